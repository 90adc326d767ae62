"""Clean-room spec checks for Octi (``rules/octi.md``) and OTTO Game Over (``rules/otto_game_over.md``).

Written from the rules specs and the public API only (env doc pages, ``reset`` options,
``snapshot()``, notation), independently of the project's own tests. Each test names the rule
IDs it checks. Two small independent references are built here from the spec text alone:

* Octi: the exact set of MAIN actions of a position (OCT-07, 10, 12-15, 17, 36, 38, 40, 49, 50),
  compared with the engine in seeded random games of every variant and flag;
* OTTO: the tracer and shape classifier of spec §1.2-1.4 / OGO-05..08 and the must-score /
  must-8 / zero-tile / head-in-the-clouds placement masks (OGO-01, 02, 11-15, 18, 58), compared
  with the engine in seeded random games at 1-4 players, 2v2 and every option.
"""

from __future__ import annotations

import collections

import numpy as np
import pytest

from envs import octi_v0, otto_game_over_v0

# ====================================================================== helpers


def _legal(env) -> list[str]:
    u = env.unwrapped
    return sorted(u.action_to_string(int(i)) for i in np.flatnonzero(u.state.legal_mask()))


def _play(env, *moves: str) -> None:
    for m in moves:
        env.step(env.unwrapped.string_to_action(m))


def _rewards(env) -> list[float]:
    return [round(float(env.rewards[a]), 6) for a in env.possible_agents]


def _flags(env, which: str) -> list[bool]:
    d = env.terminations if which == "term" else env.truncations
    return [bool(d[a]) for a in env.possible_agents]


# ====================================================================== Octi

OCTI_DIRS = {
    "N": (0, 1),
    "NE": (1, 1),
    "E": (1, 0),
    "SE": (1, -1),
    "S": (0, -1),
    "SW": (-1, -1),
    "W": (-1, 0),
    "NW": (-1, 1),
}
FILES = "abcdefghi"


def _octi_geo(variant: str):
    if variant == "basic":
        return 6, 7, {0: ["b2", "c2", "d2", "e2"], 1: ["b6", "c6", "d6", "e6"]}
    return 9, 9, {0: ["c3", "e3", "g3"], 1: ["c7", "e7", "g7"]}


def _octi_nb(sq: str, d: str, w: int, h: int, edgeless: bool) -> str | None:
    x, y = FILES.index(sq[0]) + OCTI_DIRS[d][0], int(sq[1:]) - 1 + OCTI_DIRS[d][1]
    if edgeless:
        return f"{FILES[x % w]}{y % h + 1}"
    if 0 <= x < w and 0 <= y < h:
        return f"{FILES[x]}{y + 1}"
    return None


def octi_ref_main(snap: dict, variant: str, edgeless: bool = False, repo: bool = False) -> set[str]:
    """The MAIN actions the spec allows in a snapshot (independent reference)."""
    w, h, bases = _octi_geo(variant)
    x_var = variant != "basic"
    me = snap["to_move"]
    board = snap["board"]
    out: set[str] = set()
    for sq, pods in board.items():
        for k, (seat, prongs) in enumerate(pods):
            if seat != me:
                continue
            prs = [p for p in prongs.split(",") if p]
            name = sq + (f".{k}" if len(pods) > 1 else "")
            if snap["supply"][me] > 0:  # OCT-12, OCT-13
                out |= {f"prong {name} {d}" for d in OCTI_DIRS if d not in prs}
            if repo:  # OCT-49
                out |= {f"reposition {name} {f} {t}" for f in prs for t in OCTI_DIRS if t not in prs}
            for d in prs:  # OCT-07
                t = _octi_nb(sq, d, w, h, edgeless)
                if t is None:
                    continue
                occ = board.get(t, [])
                if not occ or (x_var and all(p[0] == me for p in occ)):  # OCT-14, OCT-15
                    out.add(f"step {name} {d}")
                if occ:  # OCT-17
                    land = _octi_nb(t, d, w, h, edgeless)
                    if land is not None and not board.get(land):
                        out.add(f"jump {name} {d}")
    if x_var and snap["reserve"][me] > 0:  # OCT-36, OCT-38
        for b in bases[me]:
            if all(p[0] == me for p in board.get(b, [])):
                out.add(f"enter {b}")
        if variant == "x_classic":
            for b in bases[1 - me]:
                occ = board.get(b, [])
                if occ and occ[0][0] == me:
                    out.add(f"enter {b}")
    own_on_enemy_base = any(board.get(b) and board[b][0][0] == me for b in bases[1 - me])
    if variant == "x_classic" and snap["captured"][me] > 0 and own_on_enemy_base:  # OCT-40
        for b in bases[me] + bases[1 - me]:
            occ = board.get(b, [])
            if occ and occ[0][0] == me:
                out.add(f"liberate {b}")
    return out


def _octi_check_invariants(snap: dict, variant: str) -> None:
    x_var = variant != "basic"
    pods_each, prongs_total = (7, 50) if x_var else (4, 24)
    n_prongs = 0
    count = [0, 0]
    for pods in snap["board"].values():
        assert len({p[0] for p in pods}) == 1  # OCT-09
        if not x_var:
            assert len(pods) == 1  # no stacks in basic
        for seat, prongs in pods:
            count[seat] += 1
            n_prongs += len([p for p in prongs.split(",") if p])
    assert n_prongs + sum(snap["supply"]) == prongs_total  # OCT-26 conservation
    for s in (0, 1):
        assert count[s] + snap["reserve"][s] + snap["captured"][s] == pods_each


def _octi(pos=None, moves=None, **kw):
    env = octi_v0.env(**kw)
    opts = {}
    if pos is not None:
        opts["position"] = pos
    if moves:
        opts["moves"] = moves
    env.reset(seed=1, options=opts or None)
    return env


OCTI_FUZZ = [
    ("basic", {}),
    ("basic", {"edgeless": True}),
    ("basic", {"allow_reposition": True}),
    ("x_fast", {}),
    ("x_fast", {"edgeless": True, "capture_to_reserve": True}),
    ("x_classic", {}),
    ("x_classic", {"allow_reposition": True, "repetition_draw": True}),
]


@pytest.mark.parametrize(("variant", "flags"), OCTI_FUZZ)
def test_octi_main_legal_set_and_invariants_in_random_games(variant, flags):
    """OCT-07/10/12-15/17/36/38/40/49/50: every MAIN legal set equals the spec's; OCT-09, OCT-26,
    pod conservation after every agent step; the game ends only as §5 allows (OCT-42..45)."""
    w, h, bases = _octi_geo(variant)
    for seed in (11, 12):
        kw = dict(flags)
        kw["max_turns"] = 60 if variant != "basic" else 120
        env = octi_v0.env(variant=variant, **kw)
        env.reset(seed=seed)
        u = env.unwrapped
        rng = np.random.default_rng(seed)
        while True:
            snap = u.snapshot()
            _octi_check_invariants(snap, variant)
            if snap["phase"] == "OVER":
                break
            legal = set(_legal(env))
            assert legal
            if snap["phase"] == "MAIN":
                ref = octi_ref_main(
                    snap, variant, flags.get("edgeless", False), flags.get("allow_reposition", False)
                )
                assert legal == ref, (snap, legal - ref, ref - legal)
            a = sorted(legal)[int(rng.integers(len(legal)))]
            env.step(u.string_to_action(a))
        r = list(u.state.returns())
        if u.state.is_truncated():
            assert snap["turn"] == kw["max_turns"] and r == [0.0, 0.0]
        elif r != [0.0, 0.0]:
            win = 0 if r[0] > 0 else 1
            assert snap["to_move"] == win  # OCT-45: only the mover wins
            on = [b for b in bases[1 - win] if snap["board"].get(b) and snap["board"][b][0][0] == win]
            other = dict(snap, to_move=1 - win)
            stuck = not octi_ref_main(
                other, variant, flags.get("edgeless", False), flags.get("allow_reposition", False)
            )
            need = 3 if variant == "x_classic" else 1
            assert len(on) >= need or stuck


@pytest.mark.parametrize(
    ("variant", "flags"),
    [("basic", {"edgeless": True}), ("x_fast", {}), ("x_classic", {}), ("x_classic", {"edgeless": True})],
)
def test_octi_turn_machine_phases_in_random_games(variant, flags):
    """§3 phase machine, checked against B' tracked from the actions: CHAIN offers exactly the active
    pod's further jumps over a B' pod onto a B'-empty square not jumped before by that pod, plus
    ``stop`` (OCT-17..21); MOVER offers exactly the declared pod's first hops (OCT-14, 15, 17, 32,
    35); DECLARE offers with/without one pod; the first capture decision is on the first square
    jumped that still holds a B' pod, and the queue holds every B' pod on a jumped square, squares in
    order of first jump (OCT-23, 28, 29)."""
    w, h, _ = _octi_geo(variant)
    x_var = variant != "basic"
    edg = flags.get("edgeless", False)
    seen = collections.Counter()
    for seed in range(6):
        env = octi_v0.env(variant=variant, max_turns=80, **flags)
        env.reset(seed=seed)
        u = env.unwrapped
        rng = np.random.default_rng(seed)
        movers: list[str] = []
        seq_jumped: set[str] = set()
        all_jumped: list[str] = []
        while (snap := u.snapshot())["phase"] != "OVER":
            legal = _legal(env)
            ph, me, board = snap["phase"], snap["to_move"], snap["board"]

            def bprime(sq, board=board, movers=movers):
                return len(board.get(sq, [])) - movers.count(sq)

            if ph == "MAIN":
                movers, seq_jumped, all_jumped = [], set(), []
            elif ph == "DECLARE":
                assert len(legal) == 2 and legal[0].startswith("with ") and legal[1].startswith("without ")
            elif ph == "CAPTURE":
                assert len(legal) == 2 and legal[0].startswith("capture ") and legal[1].startswith("spare ")
            elif ph in ("CHAIN", "MOVER"):
                names = {a.split()[1] for a in legal if a != "stop"}
                assert len(names) == 1
                name = names.pop()
                sq, _, k = name.partition(".")
                seat, prongs = board[sq][int(k or 0)]
                assert seat == me
                exp = {"stop"} if ph == "CHAIN" else set()
                for d in [p for p in prongs.split(",") if p]:
                    t = _octi_nb(sq, d, w, h, edg)
                    if t is None:
                        continue
                    if ph == "MOVER" and (
                        bprime(t) == 0 or (x_var and all(p[0] == me for p in board.get(t, [])))
                    ):
                        exp.add(f"step {name} {d}")
                    land = _octi_nb(t, d, w, h, edg) if bprime(t) >= 1 else None
                    if land is not None and bprime(land) == 0 and (ph == "MOVER" or t not in seq_jumped):
                        exp.add(f"jump {name} {d}")
                assert set(legal) == exp, (snap, movers, seq_jumped)
                seen[ph] += 1
            a = legal[int(rng.integers(len(legal)))]
            words = a.split()
            if words[0] in ("step", "jump"):
                sq = words[1].split(".")[0]
                t = _octi_nb(sq, words[2], w, h, edg)
                if ph == "MAIN":
                    movers = [sq]
                if ph in ("MAIN", "MOVER"):
                    seq_jumped = set()
                if ph == "MOVER":
                    movers.remove(sq)
                    movers.append(sq)
                dest = t
                if words[0] == "jump":
                    seq_jumped.add(t)
                    all_jumped.append(t)
                    dest = _octi_nb(t, words[2], w, h, edg)
                idx = len(movers) - 1 - movers[::-1].index(sq)
                movers[idx] = dest
            elif words[0] == "with":
                movers.insert(0, words[1].split(".")[0])
            env.step(u.string_to_action(a))
            after = u.snapshot()
            if words[0] == "step":
                assert after["phase"] != "CHAIN"  # OCT-16: a step ends the pod's movement
            if after["phase"] == "CHAIN":
                assert "stop" in _legal(env) and len(_legal(env)) >= 2  # OCT-20, OCT-21
            if after["phase"] == "CAPTURE" and ph != "CAPTURE":
                order = list(dict.fromkeys(all_jumped))
                queue = [t for t in order for _ in range(len(after["board"].get(t, [])) - movers.count(t))]
                decided = []
                while u.snapshot()["phase"] == "CAPTURE":
                    choice = _legal(env)[int(rng.integers(2))]
                    decided.append(choice.split()[1].split(".")[0])
                    env.step(u.string_to_action(choice))
                assert decided == queue  # the whole capture queue, in order of first jump
                seen["capture"] += 1
    assert seen["capture"] > 0 and seen["CHAIN"] > 0


def test_octi_x_fast_co_mover_landing_on_enemy_base_wins_at_once():
    """OCT-42 (x_fast), §3 FOLLOW-UP 1: a declared co-mover that lands on an enemy base wins at once;
    the remaining declared mover does not move; END (turn counter) is skipped."""
    env = _octi(
        {
            "board": {
                "d6": [[0, "N"], [0, "NE"], [0, "NW"]],
                "a1": [[0, ""]],
                "a9": [[1, ""]],
                "i9": [[1, "S"]],
            }
        },
        variant="x_fast",
    )
    _play(env, "step d6.0 N")
    assert _legal(env) == ["with d6.0", "without d6.0"]
    _play(env, "with d6.0")
    assert _legal(env) == ["with d6.1", "without d6.1"]
    _play(env, "with d6.1", "step d6.0 NE")
    snap = env.unwrapped.snapshot()
    assert snap["phase"] == "OVER" and snap["turn"] == 0
    assert snap["board"]["e7"] == [[0, "NE"]] and snap["board"]["d6"] == [[0, "NW"]]
    assert _rewards(env) == [1.0, -1.0] and _flags(env, "term") == [True, True]


def test_octi_x_fast_first_hop_on_enemy_base_skips_declaration():
    """OCT-42 + §3 FOLLOW-UP order: the base win (step 1) comes before the declare queue (step 2)."""
    env = _octi({"board": {"e6": [[0, "N"], [0, "NE"]], "c3": [[0, ""]], "a9": [[1, ""]]}}, variant="x_fast")
    _play(env, "step e6.0 N")
    assert env.unwrapped.snapshot()["phase"] == "OVER"
    assert _rewards(env) == [1.0, -1.0]


def test_octi_x_classic_landing_is_no_win_but_three_bases_at_end_is():
    """OCT-42 vs OCT-43: in classic a landing on one enemy base does not end the game; holding all
    three enemy bases at END (after captures) wins, whoever's pods were jumped."""
    env = _octi(
        {"board": {"e6": [[0, "N"]], "c3": [[0, ""]], "a9": [[1, ""]], "i9": [[1, ""]]}}, variant="x_classic"
    )
    _play(env, "step e6 N")
    assert env.unwrapped.snapshot()["phase"] == "MAIN" and env.agent_selection == "player_1"
    env = _octi(
        {"board": {"c7": [[0, "N"]], "g7": [[0, ""]], "e5": [[0, "N"]], "e6": [[1, ""]], "a9": [[1, ""]]}},
        variant="x_classic",
    )
    _play(env, "jump e5 N")
    assert _legal(env) == ["capture e6", "spare e6"]
    _play(env, "spare e6")
    assert env.unwrapped.snapshot()["turn"] == 1
    assert _rewards(env) == [1.0, -1.0]


def test_octi_co_movers_each_jump_the_same_square_single_capture_decision():
    """OCT-19 (per pod), OCT-29, OCT-32: co-movers may both jump one square; the jumped pod is
    decided once; a co-mover may land where the first mover landed."""
    env = _octi(
        {"board": {"c3": [[0, "N,E"], [0, "N"]], "c4": [[1, ""]], "e9": [[1, ""]], "g9": [[1, ""]]}},
        variant="x_fast",
    )
    _play(env, "jump c3.0 N", "with c3")
    assert _legal(env) == ["jump c3 N"]
    _play(env, "jump c3 N")
    assert _legal(env) == ["capture c4", "spare c4"]
    _play(env, "capture c4")
    snap = env.unwrapped.snapshot()
    assert snap["board"]["c5"] == [[0, "N,E"], [0, "N"]]
    assert snap["captured"] == [0, 1] and "c4" not in snap["board"]


def test_octi_jumped_stack_gets_one_decision_per_pod():
    """OCT-28, OCT-26: each pod of a jumped stack is decided on its own; prongs of a captured pod go
    to the capturer's supply."""
    env = _octi(
        {"board": {"e4": [[0, "N"]], "e5": [[1, "S"], [1, ""]], "a1": [[0, ""]], "i9": [[1, ""]]}},
        variant="x_fast",
    )
    _play(env, "jump e4 N")
    assert _legal(env) == ["capture e5.0", "spare e5.0"]
    _play(env, "capture e5.0")
    assert _legal(env) == ["capture e5.1", "spare e5.1"]
    _play(env, "spare e5.1")
    snap = env.unwrapped.snapshot()
    assert snap["board"]["e5"] == [[1, ""]] and snap["supply"] == [25, 24] and snap["captured"] == [0, 1]


def test_octi_stack_pod_without_legal_first_hop_is_not_declared():
    """OCT-35: a pod on the origin with prongs but no legal first hop is not asked."""
    env = _octi(
        {
            "board": {
                "e5": [[0, "N"], [0, "S"]],
                "e4": [[1, ""]],
                "e3": [[0, ""]],
                "a1": [[0, ""]],
                "i9": [[1, ""]],
            }
        },
        variant="x_fast",
    )
    _play(env, "step e5.0 N")
    snap = env.unwrapped.snapshot()
    assert snap["phase"] == "MAIN" and snap["to_move"] == 1


@pytest.mark.parametrize("ctr", [False, True])
def test_octi_capture_to_reserve(ctr):
    """OCT-27, OCT-51: an own pod captured by its owner goes to the captured pool, or with
    capture_to_reserve to reserve; enemy pods always go to their owner's captured pool."""
    env = _octi(
        {"board": {"a1": [[0, "N"]], "a2": [[0, ""]], "b4": [[0, "E"]], "c4": [[1, ""]], "i9": [[1, ""]]}},
        variant="x_fast",
        capture_to_reserve=ctr,
    )
    _play(env, "jump a1 N", "capture a2")
    snap = env.unwrapped.snapshot()
    assert (snap["reserve"], snap["captured"]) == (([5, 5], [0, 0]) if ctr else ([4, 5], [1, 0]))
    _play(env, "prong i9 S", "jump b4 E", "capture c4")
    assert env.unwrapped.snapshot()["captured"][1] == 1


@pytest.mark.parametrize(("ctr", "g3"), [(True, [[0, ""], [0, "N"]]), (False, [[0, "N"], [0, ""]])])
def test_octi_enter_takes_lowest_reserve_id(ctr, g3):
    """§1 pod ids, OCT-36, OCT-51: ENTER brings the lowest reserve id. With capture_to_reserve the
    self-captured pod 1 returns to reserve and enters below pod 2 on g3 (stack order = id order);
    without it pod 3 enters above pod 2."""
    pos = {"board": {"a1": [[0, "N"]], "a2": [[0, ""]], "g3": [[0, "N"]], "i9": [[1, ""]]}, "reserve": [4, 6]}
    env = _octi(pos, variant="x_fast", capture_to_reserve=ctr)
    _play(env, "jump a1 N", "capture a2", "prong i9 S", "enter g3")
    assert env.unwrapped.snapshot()["board"]["g3"] == g3


def test_octi_capture_to_reserve_ignored_in_basic():
    """OCT-51 / §6: capture_to_reserve is ignored in basic."""
    env = _octi({"board": {"a1": [[0, "N"]], "a2": [[0, ""]], "f7": [[1, ""]]}}, capture_to_reserve=True)
    _play(env, "jump a1 N", "capture a2")
    snap = env.unwrapped.snapshot()
    assert snap["reserve"] == [0, 0] and snap["captured"] == [3, 3] and snap["supply"] == [11, 12]


def test_octi_win_on_the_last_turn_beats_truncation():
    """§3 END order, OCT-42/45: a base win on the max_turns-th turn is a win, not a draw; a quiet
    max_turns-th turn truncates with 0/0."""
    env = _octi({"board": {"b5": [[0, "N"]], "f7": [[1, ""]]}, "turn": 3}, max_turns=4)
    _play(env, "step b5 N")
    assert _rewards(env) == [1.0, -1.0] and _flags(env, "trunc") == [False, False]
    env = _octi({"board": {"b4": [[0, "N"]], "f7": [[1, "N"]]}, "turn": 3}, max_turns=4)
    _play(env, "step b4 N")
    assert _rewards(env) == [0.0, 0.0] and _flags(env, "trunc") == [True, True]
    assert env.unwrapped.snapshot()["turn"] == 4


def test_octi_no_pods_on_board_with_reserve_is_not_a_loss_in_x():
    """OCT-44 / OCT-36: a player whose last board pod is captured but who can enter from reserve
    still has a legal action; capturing the last pod in basic wins."""
    env = _octi({"board": {"a4": [[0, "N"]], "a5": [[1, ""]]}}, variant="x_fast")
    _play(env, "jump a4 N", "capture a5")
    assert env.unwrapped.snapshot()["phase"] == "MAIN"
    assert _legal(env) == ["enter c7", "enter e7", "enter g7"]
    env = _octi({"board": {"a3": [[0, "N"]], "a4": [[1, ""]]}})
    _play(env, "jump a3 N", "capture a4")
    assert _rewards(env) == [1.0, -1.0]


def test_octi_classic_liberation_targets():
    """OCT-40, OCT-41: liberation needs an own pod on an enemy base; the lowest captured pod goes
    without prongs onto a base holding an own pod; no entry without reserve."""
    env = _octi(
        {"board": {"c7": [[0, ""]], "a1": [[0, ""]], "i9": [[1, ""]]}, "reserve": [0, 6], "captured": [5, 0]},
        variant="x_classic",
    )
    assert [a for a in _legal(env) if not a.startswith("prong")] == ["liberate c7"]
    _play(env, "liberate c7")
    snap = env.unwrapped.snapshot()
    assert (
        snap["board"]["c7"] == [[0, ""], [0, ""]]
        and snap["captured"] == [4, 0]
        and snap["supply"] == [25, 25]
    )
    # liberation is x_classic only (OCT-39): in x_fast an own pod on an enemy base has already
    # won (OCT-42), so the position above is refused as a finished game, and a pod about to
    # reach the base wins there instead of liberating
    fast = {"reserve": [0, 6], "captured": [5, 0]}
    with pytest.raises(ValueError, match=r"enemy base c7.*OCT-42"):
        _octi({"board": {"c7": [[0, ""]], "a1": [[0, ""]], "i9": [[1, ""]]}, **fast}, variant="x_fast")
    env = _octi({"board": {"c6": [[0, "N"]], "a1": [[0, ""]], "i9": [[1, ""]]}, **fast}, variant="x_fast")
    _play(env, "step c6 N")
    assert _rewards(env) == [1.0, -1.0] and not _legal(env)


def test_octi_classic_entry_on_enemy_base_needs_own_pod_there():
    """OCT-36, OCT-38: classic may enter on an enemy base holding an own pod, never on an own base
    holding an enemy pod."""
    env = _octi(
        {"board": {"c7": [[0, ""]], "e3": [[1, ""]], "i9": [[1, ""]], "a1": [[0, ""]]}}, variant="x_classic"
    )
    enters = [a for a in _legal(env) if a.startswith("enter")]
    assert enters == ["enter c3", "enter c7", "enter g3"]


def test_octi_repetition_draw_and_flag_off():
    """OCT-52, §3 END step 5: a position occurring the third time is a draw; off by default."""
    moves = ["prong b2 N", "prong e6 S", "prong b2 S", "prong e6 N"]
    cycle = ["step b2 N", "step e6 S", "step b3 S", "step e5 N"]
    env = _octi(moves=moves, repetition_draw=True)
    _play(env, *cycle, *cycle[:-1])
    assert env.unwrapped.snapshot()["phase"] == "MAIN"
    _play(env, cycle[-1])
    assert env.unwrapped.snapshot()["turn"] == 12
    assert _flags(env, "term") == [True, True] and _rewards(env) == [0.0, 0.0]
    env = _octi(moves=moves)
    _play(env, *cycle, *cycle)
    assert env.unwrapped.snapshot()["phase"] == "MAIN"


def test_octi_repetition_ignores_pod_ids():
    """OCT-52: pod ids are not part of the position. Two Black pods with equal prongs circle a 2x2
    block while Red steps back and forth: the position after turn 1 recurs after turn 9 with the
    two pods exchanged and again after turn 13, which is the third occurrence: a draw."""
    black = ["step c3 N", "step b3 E", "step c4 W", "step c3 N", "step b4 S", "step c4 S"]
    red = ["step f5 S", "step f4 N"] * 3
    seq = [m for pair in zip(black, red, strict=True) for m in pair]
    pos = {"board": {"b3": [[0, "N,E,S,W"]], "c3": [[0, "N,E,S,W"]], "f5": [[1, "N,S"]]}}
    env = _octi(pos, repetition_draw=True)
    _play(env, *seq, seq[0])
    snap = env.unwrapped.snapshot()
    assert snap["phase"] == "OVER" and snap["turn"] == 13
    assert _rewards(env) == [0.0, 0.0] and _flags(env, "term") == [True, True]


def test_octi_edgeless_jump_wraps():
    """OCT-50: on the torus a jump over the edge lands on the other side."""
    env = _octi({"board": {"a7": [[0, "N"]], "a1": [[1, ""]], "f4": [[1, ""]]}}, edgeless=True)
    assert "jump a7 N" in _legal(env) and "step a7 N" not in _legal(env)
    _play(env, "jump a7 N", "spare a1")
    assert env.unwrapped.snapshot()["board"]["a2"] == [[0, "N"]]


def test_octi_blocked_with_empty_supply_loses():
    """OCT-13, OCT-44, OCT-06: Red's only pod has prongs pointing off the board and its supply is
    0, so after any Black turn Red has no legal action: Black wins at END (turn counted)."""
    env = _octi({"board": {"a1": [[0, "N"]], "a7": [[1, "N,NW,W"]]}, "supply": [20, 0]})
    _play(env, "prong a1 E")
    snap = env.unwrapped.snapshot()
    assert snap["phase"] == "OVER" and snap["turn"] == 1
    assert _rewards(env) == [1.0, -1.0] and _flags(env, "term") == [True, True]


def test_octi_full_pod_and_empty_supply_offer_no_prong():
    """OCT-08, OCT-12, OCT-13: no prong for a pod with 8 prongs, none at all with supply 0."""
    env = _octi({"board": {"c3": [[0, "N,NE,E,SE,S,SW,W,NW"]], "a1": [[0, ""]], "f7": [[1, ""]]}})
    assert not any(a.startswith("prong c3") for a in _legal(env))
    assert any(a.startswith("prong a1") for a in _legal(env))
    env = _octi({"board": {"c3": [[0, "N"]], "a1": [[0, ""]], "f7": [[1, ""]]}, "supply": [0, 23]})
    assert _legal(env) == ["step c3 N"]


def test_octi_illegal_action_ends_game():
    """OCT-48: an index with mask 0 ends the game, -1 to the mover, 0 to the other."""
    env = _octi(variant="x_fast")
    mask = env.observe("player_0")["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    env.step(bad)
    assert _rewards(env) == [-1.0, 0.0] and _flags(env, "term") == [True, True]


# ====================================================================== OTTO Game Over

DESIGNS = {
    "Z0": (0, ((0, 5, "L"), (1, 4, "L"), (3, 6, "L"), (2, 7, "L"))),
    "A4": (4, ((1, 2, "s"), (3, 4, "s"), (5, 6, "s"), (7, 0, "s"))),
    "B7": (7, ((5, 6, "Q"), (4, 7, "B"), (1, 2, "s"), (0, 3, "L"))),
    "C8": (8, ((0, 3, "B"), (2, 5, "B"), (4, 7, "B"), (6, 1, "B"))),
    "D10": (10, ((4, 6, "X"), (3, 5, "X"), (1, 2, "s"), (7, 0, "s"))),
    "E12": (12, ((5, 6, "Q"), (4, 7, "B"), (1, 2, "Q"), (0, 3, "B"))),
    "F12": (12, ((1, 5, "X"), (2, 6, "X"), (4, 7, "B"), (0, 3, "B"))),
    "G16": (16, ((1, 2, "Q"), (3, 4, "Q"), (5, 6, "Q"), (7, 0, "Q"))),
}
FRAME = {
    "va1": "s", "vb1": "s", "vc1": "Q", "vd1": "Q", "ve1": "s", "vf1": "s",
    "va6": "s", "vb6": "s", "vc6": "Q", "vd6": "Q", "ve6": "s", "vf6": "s",
    "va2": "s", "va3": "Q", "va4": "Q", "va5": "s", "vf2": "s", "vf3": "Q", "vf4": "Q", "vf5": "s",
}  # fmt: skip
VALUE = {k: v[0] for k, v in DESIGNS.items()}
KIND = {"s": "small", "B": "big", "Q": "square"}
OF = "abcde"
VF = "abcdef"


def _sq(f: int, r: int) -> str:
    return f"{OF[f]}{r}"


def _vx(x: int, y: int) -> str:
    return f"v{VF[x]}{y}"


def _strokes(tile: str) -> dict[int, tuple[int, str]]:
    d, k = tile.split("/")
    out = {}
    for a, b, kind in DESIGNS[d][1]:
        a2, b2 = (a + 2 * int(k)) % 8, (b + 2 * int(k)) % 8
        out[a2], out[b2] = (b2, kind), (a2, kind)
    return out


def _frame(f: int, r: int, q: int, v: str, board: dict):
    return (f, r, q, FRAME[v]) if _sq(f, r) in board else None


def _cross(f: int, r: int, p: int, board: dict):
    """Where a line leaving port p of square (f, r) continues (spec §1.2, §1.4 frame joins)."""
    side = p // 2
    nf, nr = [(f, r + 1), (f + 1, r), (f, r - 1), (f - 1, r)][side]
    if 0 <= nf < 5 and 1 <= nr <= 5:
        q = (p + 5) % 8 if p % 2 == 0 else (p + 3) % 8
        return (nf, nr, q, None) if _sq(nf, nr) in board else None
    corners = {(0, 5, 0): (7, "va6"), (0, 5, 7): (0, "va6"), (4, 5, 1): (2, "vf6"), (4, 5, 2): (1, "vf6"),
               (4, 1, 3): (4, "vf1"), (4, 1, 4): (3, "vf1"), (0, 1, 5): (6, "va1"), (0, 1, 6): (5, "va1")}  # fmt: skip
    if (f, r, p) in corners:
        q, v = corners[(f, r, p)]
        return _frame(f, r, q, v, board)
    if side == 0:
        return _frame(f + 1, r, 0, _vx(f + 1, 6), board) if p == 1 else _frame(f - 1, r, 1, _vx(f, 6), board)
    if side == 2:
        return _frame(f + 1, r, 5, _vx(f + 1, 1), board) if p == 4 else _frame(f - 1, r, 4, _vx(f, 1), board)
    if side == 3:
        return _frame(f, r - 1, 7, _vx(0, r), board) if p == 6 else _frame(f, r + 1, 6, _vx(0, r + 1), board)
    return _frame(f, r - 1, 2, _vx(5, r), board) if p == 3 else _frame(f, r + 1, 3, _vx(5, r + 1), board)


def _trace(board: dict, f0: int, r0: int, p0: int):
    items = []
    f, r, p = f0, r0, p0
    for _ in range(400):
        q, kind = _strokes(board[_sq(f, r)])[p]
        items.append(("tile", kind, (f, r), p, q))
        nxt = _cross(f, r, q, board)
        if nxt is None:
            return None
        f, r, p, fk = nxt
        if fk is not None:
            items.append(("frame", fk, None, None, None))
        if (f, r, p) == (f0, r0, p0):
            return items
    raise AssertionError("runaway line")


def _classify(items, lobes: str):
    kinds = [it[1] for it in items]
    for k in ("s", "B", "Q"):
        if all(x == k for x in kinds):
            _, _, (f, r), a, b = items[0]
            c = next(
                c
                for c in range(4)
                if {a, b} in ({(2 * c + 1) % 8, (2 * c + 2) % 8}, {2 * c, (2 * c + 3) % 8})
            )
            return (KIND[k], _vx(*[(f + 1, r + 1), (f + 1, r), (f, r), (f, r + 1)][c]))
    xs = [i for i, it in enumerate(items) if it[1] == "X"]
    if len(xs) == 2 and items[xs[0]][2] == items[xs[1]][2]:
        i, j = xs
        lobe1 = [it[1] for it in items[i + 1 : j]]
        lobe2 = [it[1] for it in items[j + 1 :] + items[:i]]

        def ok(lobe):
            return bool(lobe) and (
                all(x == "s" for x in lobe) or (lobes == "round_or_square" and all(x == "Q" for x in lobe))
            )

        if ok(lobe1) and ok(lobe2):
            return ("eight", _sq(*items[i][2]))
    return None


def otto_closed_through(board: dict, sq: str, lobes: str = "round") -> set:
    f, r = OF.index(sq[0]), int(sq[1])
    out = set()
    for p in range(8):
        items = _trace(board, f, r, p)
        if items is not None and (c := _classify(items, lobes)):
            out.add(c)
    return out


def _frontier(board: dict) -> list[str]:
    out = []
    for f in range(5):
        for r in range(1, 6):
            if _sq(f, r) in board:
                continue
            near = [(f + 1, r), (f - 1, r), (f, r + 1), (f, r - 1)]
            if any(_sq(a, b) in board for a, b in near if 0 <= a < 5 and 1 <= b <= 5):
                out.append(_sq(f, r))
    return out


def otto_ref_place(snap: dict, head: bool = False, lobes: str = "round"):
    """Expected legal placements of a PLACE snapshot and the shapes each closes."""
    board = snap["board"]
    drawn = snap["drawn"]
    table = snap["tables"][snap["to_move"]]
    opts = []
    if drawn in DESIGNS:
        opts.append(("drawn", drawn))
    if table in DESIGNS and drawn != "Z0":  # OGO-14, OGO-15, OGO-18
        opts.append(("table", table))
    cand = {}
    for t, d in opts:
        for s in _frontier(board):  # OGO-01
            for k in range(4):  # OGO-02
                cand[f"{t} {s} r{k}"] = otto_closed_through({**board, s: f"{d}/{k}"}, s, lobes)
    if drawn == "Z0" or head:
        return set(cand), cand
    eights = {a for a, c in cand.items() if any(x[0] == "eight" for x in c)}  # OGO-12
    if eights:
        return eights, cand
    scoring = {a for a, c in cand.items() if c}  # OGO-11, OGO-13
    return (scoring or set(cand)), cand


def _team(seat: int, cfg: dict) -> int:
    return seat % 2 if cfg.get("teams") else seat


OTTO_FUZZ = [
    ({"num_players": 2}, 3),
    ({"num_players": 3}, 1),
    ({"num_players": 4}, 1),
    ({"num_players": 4, "teams": True}, 1),
    ({"num_players": 1}, 2),
    ({"num_players": 2, "head_in_the_clouds": True, "episode": "match"}, 2),
    ({"num_players": 2, "eight_lobes": "round_or_square", "target_score": 12}, 2),
    ({"num_players": 3, "blind": True, "target_score": 12}, 1),
    ({"num_players": 2, "secret_cards": False, "target_score": 12}, 1),
    ({"num_players": 4, "episode": "match"}, 2),
]


@pytest.mark.parametrize(("cfg", "n_games"), OTTO_FUZZ)
def test_otto_random_games_against_reference(cfg, n_games):
    """OGO-01/02/05-08/11-15/18/58, eight_lobes: every PLACE legal set equals the reference's;
    OGO-08/19/20: each placement's new shapes and their owners; OGO-19/29/§1.5: tiles (36, solo
    32), cards (33) and markers (4/4/3 per team) conserved; OGO-50/51/52: a full board scores
    markers or the silly table-tile value, and totals add match scores; §2.4/2.5: new matches
    start with no dark table tile, the right first player and one card dealt per player."""
    n = cfg.get("num_players", 2)
    solo = n == 1
    n_teams = 1 if solo else (2 if cfg.get("teams") else n)
    head = cfg.get("head_in_the_clouds", False)
    lobes = cfg.get("eight_lobes", "round")
    cards_on = cfg.get("secret_cards", True) and not cfg.get("blind") and not solo
    checked = collections.Counter()
    for seed in range(n_games):
        env = otto_game_over_v0.env(**cfg)
        env.reset(seed=100 + seed)
        u = env.unwrapped
        rng = np.random.default_rng(seed)
        cand: dict = {}
        while True:
            s = u.snapshot()
            n_tiles = len(s["board"]) - 1 + sum(1 for t in s["tables"] if t) + bool(s["drawn"])
            assert n_tiles + len(s["tower"]) + len(s["discarded"]) == (32 if solo else 36)
            if cards_on:
                held = sum(len(h) for h in s["hands"]) + len(s["deck"])
                assert held + sum(s["removed_cards"].values()) + s["voided_cards"] == 33
            for t in range(n_teams):
                own = collections.Counter(k.split("@")[0] for k, v in s["shapes"].items() if v == t)
                m = s["markers"][t]
                assert (m["small"] + own["small"], m["big"] + own["big"], m["square"] + own["square"]) == (
                    4,
                    4,
                    3,
                )
            if "result" in s:
                break
            if s["phase"] == "place":
                exp, cand = otto_ref_place(s, head, lobes)
                assert set(_legal(env)) == exp, s
                checked["place"] += 1
            acts = np.flatnonzero(u.state.legal_mask())
            a = int(rng.choice(acts))
            astr = u.action_to_string(a)
            env.step(a)
            s2 = u.snapshot()
            if s["phase"] != "place":
                continue
            closed = cand[astr]
            eights = any(c[0] == "eight" for c in closed)
            new = {k for k in s2["shapes"] if k not in s["shapes"]}
            expected_new = {f"{k}@{v}" for k, v in closed if k != "eight"}
            ended = s2["matches"] != s["matches"] or "result" in s2 or s2["tiebreak"] != s["tiebreak"]
            if not ended and not eights and s2["phase"] != "infinity" and s2["board"].get(astr.split()[1]):
                assert new == expected_new, (astr, s)
                team = 0 if solo else _team(s["to_move"], cfg)
                for kind in ("small", "big", "square"):  # OGO-20 vertex order
                    ks = sorted((x for x in new if x.startswith(kind)), key=lambda x: (int(x[-1]), x[-2]))
                    for i, x in enumerate(ks):
                        if i < s["markers"][team][kind]:
                            assert s2["shapes"][x] == team
                        else:  # no marker left: unclaimed, or claimed by the next player's team (OGO-22)
                            assert s2["shapes"][x] != team
                checked["shapes"] += 1
            if eights and not solo and not ended:
                assert s2["phase"] == "infinity"  # OGO-24/45: only Infinity answers delay the end
            if (
                ended
                and not solo
                and not s["tiebreak"]
                and not s2["tiebreak"]
                and len(s["board"]) == 24
                and not eights
            ):
                pts = [0] * n_teams
                has = [False] * n_teams
                val = {"small": 1, "big": 2, "square": 4}
                for k, v in s["shapes"].items():
                    if v is not None:
                        pts[v] += val[k.split("@")[0]]
                        has[v] = True
                team = _team(s["to_move"], cfg)
                for kind in val:
                    got = min(sum(1 for x in expected_new if x.startswith(kind)), s["markers"][team][kind])
                    pts[team] += val[kind] * got
                    has[team] |= got > 0
                tables = list(s["tables"])
                if astr.startswith("table"):
                    tables[s["to_move"]] = s["drawn"]
                for t in range(n_teams):
                    if not has[t]:  # OGO-51 silly match
                        pts[t] = sum(
                            VALUE.get(tables[i], 0) for i in range(n) if _team(i, cfg) == t and tables[i]
                        )
                assert list(s2["match_scores"]) == pts, (astr, s)
                checked["full"] += 1
            if s2["matches"] != s["matches"] and not s["tiebreak"]:
                assert [a - b for a, b in zip(s2["totals"], s["totals"], strict=True)] == list(
                    s2["match_scores"]
                )
            if (
                s2["matches"] != s["matches"]
                and "result" not in s2
                and not s2["tiebreak"]
                and not cfg.get("blind")
            ):
                assert "DARK" not in s2["tables"]  # §2.4
                best = max(s2["totals"])
                cands = [i for i in range(n) if s2["totals"][_team(i, cfg)] == best]
                first = max(cands, key=lambda i: (VALUE.get(s2["tables"][i], 0), -i))  # §2.5
                if not s2["discarded"]:
                    assert s2["to_move"] == first
                if cards_on and len(s["deck"]) >= n and s2["phase"] in ("card", "place"):
                    assert [len(h) for h in s2["hands"]] == [len(h) + 1 for h in s["hands"]]  # OGO-28
                checked["newmatch"] += 1
    assert checked["place"] > 0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_otto_meteorite_storms_reach_tile_exhaustion(n):
    """OGO-37 (replacements only while the tower lasts), OGO-17/18 (empty tower: the table tile or
    a skip), OGO-49/50 (no path tile left anywhere: the match ends on marker points, no silly):
    seeded games where everyone holds meteorites, checked against the reference placement mask."""
    exhausted = 0
    for seed in range(8):
        env = otto_game_over_v0.env(num_players=n, episode="match")
        pos = {
            "tables": ["A4"] * n,
            "hands": [["meteorite"] * 4 for _ in range(n)],
            "deck": ["meteorite"] * 4,
        }
        env.reset(seed=seed, options={"position": pos})
        u = env.unwrapped
        rng = np.random.default_rng(seed)
        prev = u.snapshot()
        while not u.state.is_terminal():
            s = u.snapshot()
            if s["phase"] == "place":
                assert set(_legal(env)) == otto_ref_place(s)[0], s
            acts = np.flatnonzero(u.state.legal_mask())
            storm = [a for a in acts if u.action_to_string(int(a)) == "card meteorite"]
            a = int(storm[0]) if storm and rng.random() < 0.8 else int(rng.choice(acts))
            prev = s
            env.step(a)
        s = u.snapshot()
        if not s["tower"] and not any(t in DESIGNS for t in s["tables"]) and 8 not in s["match_scores"]:
            pts = [0] * n
            for k, v in prev["shapes"].items():
                if v is not None:
                    pts[v] += {"small": 1, "big": 2, "square": 4}[k.split("@")[0]]
            if set(s["shapes"]) == set(prev["shapes"]):
                assert s["match_scores"] == pts
                exhausted += 1
    assert exhausted > 0


# ---------------------------------------------------------------- OTTO scenarios

P_EIGHT = {
    "a5": "A4/0", "b5": "B7/0", "c5": "E12/0", "c4": "Z0/0", "d3": "G16/0", "e3": "Z0/0",
    "c2": "Z0/0", "e2": "F12/0", "b1": "A4/0", "c1": "Z0/0", "e1": "A4/0",
}  # fmt: skip
B14 = {
    "a5": "B7/3", "b5": "Z0/0", "c5": "D10/1", "d5": "G16/2", "e5": "E12/1",
    "a4": "C8/1", "b4": "F12/1", "c4": "A4/3", "d4": "C8/3", "e4": "A4/0",
    "a3": "Z0/2", "b3": "F12/3", "d3": "B7/1", "e3": "E12/3",
    "a2": "G16/3", "b2": "F12/2", "c2": "B7/3", "d2": "A4/3", "e2": "Z0/0",
    "a1": "F12/1", "c1": "A4/1", "d1": "C8/3", "e1": "D10/1",
}  # fmt: skip


SOLO_BOARD = {
    "a5": "A4/0", "b5": "G16/0", "c5": "G16/0", "d5": "G16/0", "e5": "A4/0", "b4": "E12/1", "c4": "C8/0",
    "d4": "E12/0", "b3": "C8/0", "d3": "C8/0", "b2": "E12/0", "c2": "C8/0", "d2": "E12/1", "e2": "B7/1",
    "a1": "A4/0", "b1": "B7/3", "c1": "G16/0", "d1": "A4/0",
}  # fmt: skip
SOLO_SHAPES = {
    "big@vc3": 0, "big@vd3": 0, "big@vc4": 0, "big@vd4": 0, "square@vc1": 0, "square@vc6": 0,
    "square@vd6": 0, "small@va1": 0, "small@va6": 0, "small@vf6": 0,
}  # fmt: skip


def _otto(pos=None, seed=1, **kw):
    env = otto_game_over_v0.env(**kw)
    env.reset(seed=seed, options={"position": pos} if pos is not None else None)
    return env


def _snap(env) -> dict:
    return env.unwrapped.snapshot()


@pytest.mark.parametrize(
    ("card", "tables"),
    [("revolution-cw", [None, "A4", "B7", "DARK"]), ("revolution-acw", ["B7", "DARK", None, "A4"])],
)
def test_otto_revolution_four_players_moves_dark_and_empty_tables(card, tables):
    """OGO-36: cw passes seat i's table tile to i+1, acw to i-1; dark and empty tables travel too."""
    env = _otto(
        {"tables": ["A4", "B7", "DARK", None], "tower": ["E12", "F12"], "hands": [[card], [], [], []]},
        num_players=4,
    )
    _play(env, "card " + card)
    assert _snap(env)["tables"] == tables


def test_otto_meteorite_with_short_tower_then_exhaustion_ends_match():
    """OGO-37: tables removed, replacements drawn from the card player clockwise until the tower
    is empty; OGO-18: empty tower -> the table tile must be placed; OGO-49: then no path tile is
    left anywhere and the match ends (markers only, no silly)."""
    env = _otto(
        {
            "tables": ["A4", "B7", "C8", "D10"],
            "tower": ["E12", "DARK"],
            "tower_rest": False,
            "hands": [[], [], ["meteorite"], []],
            "to_move": 2,
        },
        num_players=4,
        episode="match",
    )
    assert _legal(env) == ["card meteorite", "no card"]
    _play(env, "card meteorite")
    s = _snap(env)
    assert s["tables"] == [None, None, "E12", "DARK"] and s["discarded"] == ["A4", "B7", "C8", "D10"]
    assert {a.split()[0] for a in _legal(env)} == {"table"}
    _play(env, "table b3 r0")
    s = _snap(env)
    assert s["result"]["returns"] == [0.0, 0.0, 0.0, 0.0] and s["match_scores"] == [0, 0, 0, 0]


def test_otto_magnetic_inversion_with_partner_and_dark_tile():
    """OGO-35, OGO-57: any other seat, the 2v2 partner included; dark tiles swap too."""
    env = _otto(
        {
            "tables": ["A4", "B7", "DARK", "D10"],
            "tower": ["E12"],
            "hands": [["magnetic-inversion"], [], [], []],
        },
        num_players=4,
        teams=True,
    )
    assert _legal(env) == [
        "card magnetic-inversion player_1",
        "card magnetic-inversion player_2",
        "card magnetic-inversion player_3",
        "no card",
    ]
    _play(env, "card magnetic-inversion player_2")
    assert _snap(env)["tables"] == ["DARK", "B7", "A4", "D10"]
    # OGO-15: with a dark table tile only the drawn tile can be placed
    assert {a.split()[0] for a in _legal(env)} == {"drawn"}


def test_otto_kidnap_in_2v2_only_opponents_and_kidnapped_time_travel():
    """OGO-42: the victim must be on another team and hold a card; OGO-43/44 + OGO-34: a kidnapped
    time-travel gives the kidnapper an extra turn without a CARD phase."""
    env = _otto(
        {
            "tables": ["A4", "B7", "C8", "D10"],
            "tower": ["E12", "F12", "G16"],
            "hands": [["alien-kidnapping"], ["time-travel"], ["meteorite"], []],
        },
        num_players=4,
        teams=True,
    )
    assert _legal(env) == ["card alien-kidnapping player_1", "no card"]
    _play(env, "card alien-kidnapping player_1")
    s = _snap(env)
    assert s["phase"] == "kidnap" and _legal(env) == ["card time-travel"] and s["hands"][1] == []
    _play(env, "card time-travel", "drawn b3 r0")
    s = _snap(env)
    assert s["to_move"] == 0 and s["extra_turn"] and s["phase"] == "place" and s["drawn"] == "F12"


def test_otto_kidnapped_joker_and_chained_and_failed_kidnaps():
    """OGO-43: a kidnapped joker plays as any start-of-turn kind with a target; OGO-44: a kidnapped
    kidnapping chains; it fails (void, removed) when it has no target."""
    env = _otto(
        {
            "tables": ["A4", "B7", "C8"],
            "tower": ["E12", "F12"],
            "hands": [["alien-kidnapping"], ["joker"], []],
        },
        num_players=3,
    )
    _play(env, "card alien-kidnapping player_1")
    assert _legal(env) == [
        "card joker as magnetic-inversion player_1",
        "card joker as magnetic-inversion player_2",
        "card joker as meteorite",
        "card joker as revolution-acw",
        "card joker as revolution-cw",
        "card joker as time-travel",
    ]
    env = _otto(
        {
            "tables": ["A4", "B7", "C8"],
            "tower": ["E12", "F12"],
            "hands": [["alien-kidnapping"], ["alien-kidnapping"], ["revolution-cw"]],
        },
        num_players=3,
    )
    _play(env, "card alien-kidnapping player_1")
    assert _legal(env) == ["card alien-kidnapping player_2"]
    _play(env, "card alien-kidnapping player_2", "card revolution-cw")
    s = _snap(env)
    assert s["tables"] == ["C8", "A4", "B7"] and s["phase"] == "place" and s["to_move"] == 0
    env = _otto(
        {"tables": ["A4", "B7"], "tower": ["E12"], "hands": [["alien-kidnapping"], ["quantum-leap"]]},
    )
    _play(env, "card alien-kidnapping player_1")
    s = _snap(env)
    assert s["phase"] == "place" and s["hands"] == [[], []]
    assert s["removed_cards"] == {"quantum-leap": 1, "alien-kidnapping": 1}


def test_otto_infinity_in_2v2_partner_and_opponent_joker():
    """OGO-45..47, OGO-57: after an 8 the seats answer creator first, clockwise; the creator's
    partner saves 8 + markers, the opposing team keeps its markers via the joker."""
    env = _otto(
        {
            "board": P_EIGHT,
            "tables": ["D10", "G16", "A4", "B7"],
            "tower": ["C8", "E12"],
            "shapes": {"small@vf1": 0, "small@va6": 1},
            "hands": [[], ["infinity"], ["infinity"], ["joker"]],
            "phase": "place",
            "drawn": "B7",
        },
        num_players=4,
        teams=True,
        episode="match",
    )
    assert _legal(env) == ["table a1 r0"]
    _play(env, "table a1 r0")
    order = []
    for answer in ("keep infinity", "card infinity", "card joker as infinity"):
        order.append(_snap(env)["actor"])
        _play(env, answer)
    assert order == [1, 2, 3]
    s = _snap(env)
    assert s["match_scores"] == [9, 1]
    assert _rewards(env) == [0.25, -0.25, 0.25, -0.25]


def test_otto_infinity_eligibility_needs_marker_points():
    """OGO-46: a seat decides only if it holds a card and its team has marker points on the board."""
    env = _otto(
        {
            "board": P_EIGHT,
            "tables": ["D10", "G16", "A4"],
            "tower": ["B7", "C8"],
            "shapes": {"small@vf1": None, "small@va6": 2},
            "hands": [["infinity"], ["infinity"], ["infinity"]],
            "markers": [{"small": 0}, {"small": 0}, {"small": 3}],
        },
        num_players=3,
        episode="match",
    )
    assert _legal(env) == ["no card"]  # OGO-31: the CARD phase is offered with only Infinity held
    _play(env, "no card", "table a1 r0")
    s = _snap(env)
    assert s["phase"] == "infinity" and s["actor"] == 2
    _play(env, "keep infinity")
    assert _snap(env)["match_scores"] == [8, 0, 0]


def test_otto_time_travel_after_a_skipped_turn_and_void_after_an_eight():
    """OGO-34: the extra turn follows a skip too (dark pair, OGO-16 with a card drawn), and is void
    when the turn closed an 8 (the next match starts with the higher total first, §2.5)."""
    env = _otto(
        {
            "tables": ["DARK", "G16"],
            "tower": ["DARK", "B7", "C8"],
            "tower_rest": False,
            "hands": [["time-travel"], []],
            "deck": ["meteorite"],
        }
    )
    _play(env, "card time-travel")
    s = _snap(env)
    assert (s["to_move"], s["phase"], s["extra_turn"]) == (0, "place", True)
    assert s["tables"] == ["B7", "G16"] and s["hands"] == [["meteorite"], []] and s["drawn"] == "C8"
    env = _otto(
        {
            "board": P_EIGHT,
            "tables": ["D10", "G16"],
            "tower": ["B7", "C8"],
            "hands": [["time-travel"], []],
            "shapes": {"small@vf1": 0, "small@va6": 1},
        }
    )
    _play(env, "card time-travel", "table a1 r0")
    s = _snap(env)
    assert s["totals"] == [8, 0] and s["matches"] == 1 and s["to_move"] == 0 and not s["extra_turn"]


def test_otto_quantum_leap_closing_an_eight_goes_to_infinity():
    """OGO-38, OGO-41, OGO-24: a Quantum Leap may move a tile anywhere; an 8 it closes ends the
    match for the card player, after the Infinity answers."""
    env = _otto(
        {
            "board": {**P_EIGHT, "d5": "D10/0"},
            "tables": ["G16", "G16"],
            "tower": ["B7", "C8"],
            "hands": [["quantum-leap"], ["infinity"]],
            "shapes": {"small@vf1": 0, "small@va6": 1},
        },
        episode="match",
    )
    _play(env, "card quantum-leap d5 a1 r0")
    assert _snap(env)["phase"] == "infinity" and _legal(env) == ["card infinity", "keep infinity"]
    _play(env, "card infinity")
    assert _snap(env)["match_scores"] == [8, 1]


def test_otto_quantum_leap_lock_and_unclaimed_shape_vanishes():
    """OGO-39: tiles with a corner on a marked vertex cannot move (c3 never); OGO-23: moving a tile
    of an unclaimed shape removes it; OGO-41/21: the shape it closes has no marker left, so stays
    unclaimed."""
    env = _otto(
        {
            "board": {"a1": "A4/0", "a2": "A4/0", "b1": "A4/0", "b2": "Z0/0"},
            "shapes": {"small@va1": 0, "small@vb1": 0, "small@va2": None},
            "tables": ["G16", "B7"],
            "tower": ["C8", "E12"],
            "hands": [["quantum-leap"], []],
            "markers": [{"small": 0}, {"small": 0}],
        }
    )
    assert sorted({a.split()[2] for a in _legal(env) if "quantum" in a}) == ["a2", "b2"]
    assert "card quantum-leap a2 a2 r1" not in _legal(env)  # OGO-40
    _play(env, "card quantum-leap a2 e5 r0")
    assert _snap(env)["shapes"] == {"small@va1": 0, "small@vb1": 0, "small@vf6": None}


@pytest.mark.parametrize(
    ("small", "owners"),
    [(0, (1, 1, 1)), (1, (0, 1, 1)), (2, (0, 0, 1))],
)
def test_otto_markers_in_vertex_order_and_claims_by_next_player(small, owners):
    """OGO-20: with too few markers the shapes closed at once get them by rank line, then file
    line (va1, vb1, va2); OGO-21/22: the next player's team claims the rest at its turn start."""
    env = _otto(
        {
            "board": {"a2": "A4/0", "b1": "A4/0", "b2": "Z0/0"},
            "tables": ["G16", "B7"],
            "tower": ["A4", "C8"],
            "markers": [{"small": small}, {"small": 4}],
        }
    )
    _play(env, "drawn a1 r0")
    s = _snap(env)
    assert (s["shapes"]["small@va1"], s["shapes"]["small@vb1"], s["shapes"]["small@va2"]) == owners


def test_otto_claims_oldest_unclaimed_shape_first():
    """OGO-22: one marker claims the oldest unclaimed shape; equally old ones in vertex order."""
    env = _otto(
        {
            "board": {"a2": "A4/0", "b1": "A4/0", "b2": "Z0/0"},
            "tables": ["G16", "B7"],
            "tower": ["A4", "C8"],
            "markers": [{"small": 1}, {"small": 1}],
        }
    )
    _play(env, "drawn a1 r0")
    s = _snap(env)
    assert s["shapes"] == {"small@va1": 0, "small@vb1": 1, "small@va2": None}
    assert s["markers"][1]["small"] == 0


def test_otto_dark_tiles_15_16_17_18():
    """OGO-15 (dark drawn: table placed, dark kept, drawn tile played after), OGO-16 (dark on dark:
    discard both, new table tile and card, skip), OGO-17 (dark, no table: becomes table, skip),
    OGO-18 (tower empty, dark table: skip)."""
    env = _otto(
        {"tables": ["B7", "A4"], "tower": ["DARK", "C8", "G16", "E12"], "tower_rest": False}, episode="match"
    )
    assert {a.split()[0] for a in _legal(env)} == {"table"} and len(_legal(env)) == 16
    _play(env, "table b3 r0")
    assert _snap(env)["tables"] == ["DARK", "A4"]
    _play(env, _legal(env)[0])
    s = _snap(env)
    assert s["to_move"] == 0 and s["drawn"] == "G16" and {a.split()[0] for a in _legal(env)} == {"drawn"}
    env = _otto(
        {
            "tables": ["DARK", "A4"],
            "tower": ["DARK", "DARK", "C8"],
            "tower_rest": False,
            "deck": ["meteorite", "time-travel"],
        },
        episode="match",
    )
    s = _snap(env)
    assert (s["to_move"], s["tables"], s["hands"], s["discarded"]) == (
        1,
        ["DARK", "A4"],
        [["meteorite"], []],
        ["DARK", "DARK"],
    )
    env = _otto({"tables": [None, "A4"], "tower": ["DARK"], "tower_rest": False}, episode="match")
    s = _snap(env)
    assert (s["to_move"], s["tables"], s["tower"]) == (1, ["DARK", "A4"], [])
    env = _otto({"tables": ["DARK", "A4"], "tower": [], "tower_rest": False}, episode="match")
    assert _snap(env)["to_move"] == 1 and {a.split()[0] for a in _legal(env)} == {"table"}


def test_otto_silly_match_tie_starts_blind_match():
    """OGO-51/52/53/54, OGO-33 (spec S14 at other totals): a 24-24 tie starts a blind match with
    the lowest tied seat, no tables, held cards void."""
    env = _otto(
        {
            "board": B14,
            "tables": ["C8", "B7"],
            "hands": [["meteorite"], []],
            "to_move": 1,
            "phase": "place",
            "drawn": "E12",
            "shapes": {"small@va6": 1, "small@vf1": 1},
            "totals": [16, 22],
        }
    )
    _play(env, "drawn b1 r0")
    s = _snap(env)
    assert s["totals"] == [24, 24] and s["tiebreak"] and s["to_move"] == 0
    assert s["tables"] == [None, None] and s["hands"] == [[], []] and s["voided_cards"] == 1


def test_otto_three_players_tie_blind_match_starts_with_lowest_tied_seat():
    """OGO-53, OGO-54, OGO-51: p1 and p2 tie at 24 (p2 by a silly score), p0 below: the blind
    match starts with p1."""
    env = _otto(
        {
            "board": B14,
            "tables": ["Z0", "B7", "C8"],
            "to_move": 1,
            "phase": "place",
            "drawn": "E12",
            "shapes": {"small@va6": 1, "small@vf1": 1},
            "totals": [10, 22, 16],
        },
        num_players=3,
    )
    _play(env, "drawn b1 r0")
    s = _snap(env)
    assert s["match_scores"] == [0, 2, 8] and s["totals"] == [10, 24, 24]
    assert s["tiebreak"] and s["to_move"] == 1


@pytest.mark.parametrize(
    ("tower", "winners", "rewards"),
    [
        (["A4", "A4", "G16", "B7"], [0], [1.0, -1.0]),
        (["B7", "G16"], [1], [-1.0, 1.0]),
        (["A4", "A4", "G16"], [0, 1], [0.0, 0.0]),
        (["DARK", "Z0", "C8", "C8", "A4"], [0, 1], [0.0, 0.0]),
    ],
)
def test_otto_tiebreak_tile_rounds(tower, winners, rewards):
    """OGO-55, OGO-56: a tie after the blind match is settled by tile rounds (one tile per team,
    lowest seat first, strictly highest wins, dark = 0); an incomplete round is a draw."""
    env = _otto(
        {
            "board": B14,
            "tables": [None, None],
            "to_move": 1,
            "phase": "place",
            "drawn": "E12",
            "shapes": {"small@va6": 0, "small@vf1": 1},
            "totals": [24, 24],
            "tiebreak": True,
            "tower": tower,
            "tower_rest": False,
            "matches": 3,
        }
    )
    _play(env, "drawn b1 r0")
    s = _snap(env)
    assert s["totals"] == [25, 25] and s["result"]["winners"] == winners and _rewards(env) == rewards


def test_otto_blind_match_can_be_won_by_an_untied_team():
    """OGO-55: after the blind match the highest total wins, whichever team it is."""
    env = _otto(
        {
            "board": B14,
            "tables": [None] * 3,
            "to_move": 1,
            "phase": "place",
            "drawn": "E12",
            "shapes": {"small@va6": 0, "small@vf1": 0},
            "totals": [23, 24, 24],
            "tiebreak": True,
            "matches": 3,
        },
        num_players=3,
    )
    _play(env, "drawn b1 r0")
    assert _snap(env)["totals"] == [25, 24, 24] and _rewards(env) == [1.0, -0.5, -0.5]


@pytest.mark.parametrize(
    ("tower", "rewards"), [(["G16", "A4"], [1.0, -1.0, 1.0, -1.0]), (["A4", "G16"], [-1.0, 1.0, -1.0, 1.0])]
)
def test_otto_2v2_tile_rounds_team_of_lowest_seat_draws_first(tower, rewards):
    """OGO-56, OGO-57: in 2v2 the team of seat 0 draws first in each round; both partners share it."""
    env = _otto(
        {
            "board": B14,
            "tables": [None] * 4,
            "to_move": 1,
            "phase": "place",
            "drawn": "E12",
            "shapes": {"small@va6": 0, "small@vf1": 1},
            "totals": [24, 24],
            "tiebreak": True,
            "tower": tower,
            "tower_rest": False,
            "matches": 3,
        },
        num_players=4,
        teams=True,
    )
    _play(env, "drawn b1 r0")
    assert _rewards(env) == rewards


def test_otto_solo_victory_score_counts_unmarked_shapes():
    """OGO-62: a victory scores 24 + 8 + 2 x empty slots - 1 per closed shape without a marker."""
    env = _otto(
        {"board": SOLO_BOARD, "shapes": {**SOLO_SHAPES, "small@va1": None}, "tower": ["D10"],
         "markers": [{"small": 1, "big": 0, "square": 0}]},
        num_players=1,
    )  # fmt: skip
    _play(env, "drawn e1 r0")
    assert _snap(env)["match_scores"] == [41] and _rewards(env) == [41 / 32]


def test_otto_eight_in_tiebreak_wins_for_any_team():
    """OGO-55, §5 game rewards with T=3: an 8 in the tie-break match wins at once, even for a team
    that was not tied: +1 / -1/2 / -1/2."""
    env = _otto(
        {
            "board": P_EIGHT,
            "tables": [None, None, None],
            "phase": "place",
            "drawn": "D10",
            "shapes": {"small@vf1": 1, "small@va6": 1},
            "totals": [5, 30, 30],
            "tiebreak": True,
            "matches": 3,
        },
        num_players=3,
    )
    assert _legal(env) == ["drawn a1 r0"]
    _play(env, "drawn a1 r0")
    assert _snap(env)["result"]["winners"] == [0] and _rewards(env) == [1.0, -0.5, -0.5]


def test_otto_four_player_draw_rewards():
    """§5: T=4, k=2 winners: (T-k)/(k(T-1)) = 1/3 each, losers -1/3."""
    env = _otto(
        {
            "board": B14,
            "tables": [None] * 4,
            "to_move": 1,
            "phase": "place",
            "drawn": "E12",
            "shapes": {"small@va6": 0, "small@vf1": 1},
            "totals": [24, 24, 3, 3],
            "tiebreak": True,
            "tower": ["A4", "A4"],
            "tower_rest": False,
            "matches": 3,
        },
        num_players=4,
    )
    _play(env, "drawn b1 r0")
    assert _rewards(env) == [0.333333, 0.333333, -0.333333, -0.333333]


@pytest.mark.parametrize(("target", "over"), [(8, True), (9, False)])
def test_otto_target_score(target, over):
    """OGO-52, §6 target_score: the game ends when a team reaches target_score after a match."""
    env = _otto(
        {
            "board": B14,
            "tables": ["C8", "B7"],
            "to_move": 1,
            "phase": "place",
            "drawn": "E12",
            "shapes": {"small@va6": 1, "small@vf1": 1},
        },
        target_score=target,
    )
    _play(env, "drawn b1 r0")
    s = _snap(env)
    assert s["totals"] == [8, 2] and ("result" in s) == over
    if over:
        assert _rewards(env) == [1.0, -1.0]


def test_otto_max_matches_truncation():
    """§5 truncation: max_matches regular matches without a total at the target -> truncated, 0."""
    env = _otto(
        {
            "board": B14,
            "tables": ["C8", "B7"],
            "to_move": 1,
            "phase": "place",
            "drawn": "E12",
            "shapes": {"small@va6": 1, "small@vf1": 1},
            "matches": 2,
        },
        max_matches=3,
    )
    _play(env, "drawn b1 r0")
    assert _flags(env, "trunc") == [True, True] and _rewards(env) == [0.0, 0.0]


def test_otto_blind_regular_match_eight_is_ordinary_eight_nil():
    """§6 blind, OGO-24: in a regular blind match an 8 scores 8-0 and the game goes on."""
    env = _otto(
        {
            "board": P_EIGHT,
            "tables": [None, None],
            "phase": "place",
            "drawn": "D10",
            "shapes": {"small@vf1": 1, "small@va6": 1},
            "totals": [5, 3],
        },
        blind=True,
    )
    _play(env, "drawn a1 r0")
    s = _snap(env)
    assert s["totals"] == [13, 3] and s["match_scores"] == [8, 0] and "result" not in s
    assert s["tables"] == [None, None] and s["to_move"] == 0


def test_otto_solo_victory_and_eight_without_all_markers():
    """OGO-60/61/62 (S15 and a variant): victory at once with 11 markers and an 8, score
    24 + 8 + 2*empty - unmarked; an 8 without all markers does not end the solo match."""
    board, shapes = SOLO_BOARD, SOLO_SHAPES
    env = _otto({"board": board, "shapes": shapes, "tower": ["D10"]}, num_players=1)
    assert _legal(env) == ["drawn e1 r0", "drawn e1 r3"]
    _play(env, "drawn e1 r0")
    assert _rewards(env) == [1.3125] and _snap(env)["match_scores"] == [42]
    shapes2 = {k: v for k, v in shapes.items() if k != "small@va6"}
    env = _otto({"board": board, "shapes": shapes2, "tower": ["D10", "A4"]}, num_players=1)
    _play(env, "drawn e1 r0")
    s = _snap(env)
    assert "result" not in s and s["solo_eights"] == 1 and s["phase"] == "place"


def test_otto_illegal_action_four_players():
    """OGO-63: an illegal action ends the episode: -1 to the mover, 0 to everyone else."""
    env = _otto(num_players=4, seed=3)
    mover = env.agent_selection
    mask = env.observe(mover)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    r = {a: env.rewards[a] for a in env.possible_agents}
    assert r[mover] == -1 and sum(r.values()) == -1
    assert all(env.terminations.values())
