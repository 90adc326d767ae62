"""Metamorphic fuzz: seat relabelling, information sets and conservation.

Over and Out (``rules/over_and_out.md``, every parameter), Otto the Octopus
(``rules/otto_octopus.md``: 1-4 players, ``open_game``, ``simplified``, ``max_steps``) and the seat
handling of OTTO Game Over (``rules/otto_game_over.md``: 2-4 players, 2v2 ``teams``,
``secret_cards``, ``blind``).

1. Seat relabelling. A position reached by seeded random play is written with the documented
   hooks (``state.to_dict()`` / ``snapshot()``), its seats rotated by k (seat i's hand, chips,
   score, table tile, ... moved to seat i + k; the seat to move, the dealer, the deciding seat
   and in 2v2 the teams moved with them), and both positions are played on with the same moves
   (a move naming a seat, OTP's ``swap <kind> player_j`` or OGO's ``magnetic-inversion
   player_j`` / ``alien-kidnapping player_j``, names the rotated seat). At every step the rotated
   game's snapshot is the rotated snapshot, seat i + k's observation is seat i's (egocentric
   encodings), its mask is seat i's (with the seat-naming moves relabelled), and rewards,
   cumulative rewards, terminations and truncations are seat i's. The specs let seat numbers
   decide only where they say so: OAO none besides ``first_dealer`` (OAO-05: the deal and play
   start left of the dealer, OAO-07/10, and pass on clockwise, OAO-04/36); OTP "``player_0`` ...
   starts" and the mulligans "in seat order" (§2.1, OTP-36), both at the deal only; OGO
   "``player_0`` is the oldest player: this breaks ties and sets the setup order" (§2.1: §2.4,
   §2.5, OGO-54, OGO-56), so an OGO run is compared up to the start of the next match, where that
   rule applies, and the first player of every regular match is checked against §2.5 itself.
2. Information sets. Each seat's observation, and the mask of the seat deciding, stay the same
   when only what it cannot see changes: the other hands and the draw pile's and Tip Top pile's
   order (OAO §3 "Information"), the other hands (in the open game their newest tile, OTP-41)
   and the pile's order (OTP-20, spec §7), the non-partner cards and the tower's and deck's order
   (OGO-27, spec §7).
3. Conservation, at every step: OAO-44 (72-card deck of ``deck_counts``, hand = chips, the 5
   Tip Top cards, 0 <= T <= L) and OAO-39 (a lost round removes exactly one chip); OTP's 60 tiles
   (§1.3) and hands of at most 3 (OTP-48); OGO's 32 path + 4 dark tiles, 11 markers per team
   (OGO-19) and 33 secret cards (§1, OGO-29, OGO-33).

The reward formulas (OAO §5, OTP §5 with OTP-38's shared win, OGO §5) are checked against whole
seeded games as the seat-free oracle of "placement".
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from envs import otto_game_over_v0, otto_octopus_v0, over_and_out_v0
from envs.otto_game_over import actions as ogo_actions
from envs.otto_octopus.board import KINDS as OTP_KINDS
from envs.otto_octopus.board import NUM_KINDS as OTP_NUM_KINDS
from envs.otto_octopus.board import TILE_MIX as OTP_TILE_MIX
from envs.otto_octopus.rules import SWAP_BASE as OTP_SWAP_BASE
from envs.over_and_out.cards import TIPTOP_VALUES, TOKENS

# ------------------------------------------------------------------------ helpers


def _moved(values: list[Any], f: Any, size: int) -> list[Any]:
    """``values`` with the entry of index i moved to index f(i)."""
    out: list[Any] = [None] * size
    for i, v in enumerate(values):
        out[f(i)] = v
    return out


def _legal(mask: np.ndarray) -> np.ndarray:
    return np.flatnonzero(np.asarray(mask) != 0)


def _play_prefix(env: Any, rng: np.random.Generator, steps: int, pick: Any) -> None:
    for _ in range(steps):
        if not env.agents:
            return
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        env.step(pick(env.observe(agent)["action_mask"], rng))


def _uniform(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(_legal(mask)))


def _mostly_place(mask: np.ndarray, rng: np.random.Generator) -> int:
    """OTP: a uniform placement most of the time (uniform play passes the game to its end)."""
    legal = _legal(mask)
    placements = legal[legal < 1024]
    if len(placements) and rng.random() > 0.08:
        return int(rng.choice(placements))
    return int(rng.choice(legal))


def _flush_dead_steps(env: Any) -> None:
    while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        env.step(None)


# -------------------------------------------------------------------- Over and Out


class OverAndOut:
    name = "over_and_out"
    module = over_and_out_v0
    pick = staticmethod(_uniform)

    @staticmethod
    def config(rng: np.random.Generator) -> dict[str, Any]:
        n = int(rng.integers(2, 9))  # OAO-01
        cfg: dict[str, Any] = {"num_players": n, "starting_chips": int(rng.integers(1, 5))}
        if rng.random() < 0.5:
            cfg["minus10_rule"] = "lose_below_zero"
        if rng.random() < 0.5:
            cfg["reward_mode"] = "winner_only"
        if rng.random() < 0.3:
            cfg["max_plays"] = int(rng.integers(1, 80))
        if rng.random() < 0.3:
            cfg["first_dealer"] = int(rng.integers(0, n))
        if rng.random() < 0.3:
            deck = {t: int(rng.integers(0, 9)) for t in TOKENS}
            deck["0"] += n * cfg["starting_chips"]
            cfg["deck_counts"] = deck
        return cfg

    @staticmethod
    def rotate_state(d: dict[str, Any], k: int, cfg: dict[str, Any]) -> dict[str, Any]:
        """A saved state: the snapshot's seat fields, and the knock-out order."""
        d = OverAndOut.rotate_snapshot(d, k, cfg)
        d["out_order"] = [(s + k) % len(d["chips"]) for s in d["out_order"]]
        return d

    @staticmethod
    def rotate_snapshot(snap: dict[str, Any], k: int, cfg: dict[str, Any]) -> dict[str, Any]:
        snap = copy.deepcopy(snap)
        n = len(snap["chips"])

        def r(s: int) -> int:
            return (s + k) % n

        snap["chips"], snap["hands"] = _moved(snap["chips"], r, n), _moved(snap["hands"], r, n)
        snap["dealer"] = r(snap["dealer"])
        if snap["to_move"] >= 0:
            snap["to_move"] = r(snap["to_move"])
        return snap

    @staticmethod
    def action(a: int, k: int, n: int) -> int:
        return a  # no action names a seat (spec §8)

    @staticmethod
    def segment(state: Any) -> Any:
        return None  # OAO numbers no seat anywhere in play

    @staticmethod
    def seat_ruled(state: Any) -> bool:
        return False

    @staticmethod
    def hide(state: Any, seat: int, rng: np.random.Generator) -> Any:
        """Re-deal what ``seat`` cannot see (spec §3 "Information"): the other hands, the draw
        pile's order, the Tip Top pile's order."""
        s = state.clone()
        others = [o for o in range(s.n) if o != seat and s.hands[o]]
        pool = list(s.draw_pile) + [c for o in others for c in s.hands[o]]
        pool = rng.permutation(pool).tolist()
        for o in others:
            size = len(s.hands[o])
            s.hands[o] = sorted(pool[:size])
            del pool[:size]
        s.draw_pile = pool
        s.tiptop_pile = rng.permutation(s.tiptop_pile).tolist()
        s._bits = -1  # the cached legal set (rules.State.legal_bits)
        return s

    @staticmethod
    def conserve(state: Any, before: Any) -> None:
        """OAO-44, and OAO-39 / OAO-33: a lost round takes exactly one chip."""
        counts = list(state.play_pile)
        for k in state.draw_pile:
            counts[k] += 1
        for hand in state.hands:
            for k in hand:
                counts[k] += 1
        assert tuple(counts) == state.config.counts, "OAO-44: hands + draw pile + play pile = the deck"
        for s in state.active_seats():
            assert len(state.hands[s]) == state.chips[s], "OAO-44: hand size = chips"
        assert sorted([*state.tiptop_pile, *state.tiptop_discards, state.tiptop]) == list(TIPTOP_VALUES)
        if not state.is_terminal():
            assert 0 <= state.total <= state.tiptop, "OAO-13"
        if before is not None:
            lost = sum(before.chips) - sum(state.chips)
            round_lost = state.round != before.round or (state.is_terminal() and not state.truncated)
            assert lost == (1 if round_lost else 0), "OAO-39: each lost round removes exactly one chip"


# ------------------------------------------------------------------ Otto the Octopus


class _SavedAsPosition:
    """A game whose saved state holds its position under ``"position"``: rotated as the snapshot."""

    @staticmethod
    def rotate_snapshot(snap: dict[str, Any], k: int, cfg: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    @classmethod
    def rotate_state(cls, d: dict[str, Any], k: int, cfg: dict[str, Any]) -> dict[str, Any]:
        d = copy.deepcopy(d)
        d["position"] = cls.rotate_snapshot(d["position"], k, cfg)
        return d


class OttoOctopus(_SavedAsPosition):
    name = "otto_octopus"
    module = otto_octopus_v0
    pick = staticmethod(_mostly_place)

    @staticmethod
    def config(rng: np.random.Generator) -> dict[str, Any]:
        cfg: dict[str, Any] = {"num_players": int(rng.integers(1, 5))}
        if rng.random() < 0.5:
            cfg["open_game"] = True
        if rng.random() < 0.3:
            cfg["simplified"] = True
        if rng.random() < 0.2:
            cfg["max_steps"] = int(rng.integers(1, 60))
        return cfg

    @staticmethod
    def rotate_snapshot(pos: dict[str, Any], k: int, cfg: dict[str, Any]) -> dict[str, Any]:
        pos = copy.deepcopy(pos)
        n = len(pos["hands"])

        def r(s: int) -> int:
            return (s + k) % n

        for key in ("hands", "scores", "skips", "passed"):
            pos[key] = _moved(pos[key], r, n)
        if pos["to_move"] >= 0:
            pos["to_move"] = r(pos["to_move"])
        return pos

    @staticmethod
    def action(a: int, k: int, n: int) -> int:
        if a >= OTP_SWAP_BASE:  # swap <kind> player_j (spec §7)
            kind, j = divmod(a - OTP_SWAP_BASE, 4)
            return OTP_SWAP_BASE + 4 * kind + (j + k) % n
        return a

    @staticmethod
    def segment(state: Any) -> Any:
        return None

    @staticmethod
    def seat_ruled(state: Any) -> bool:
        return False

    @staticmethod
    def hide(state: Any, seat: int, rng: np.random.Generator) -> Any:
        """Re-deal what ``seat`` cannot see: the other hands (only their newest tile in the open
        game, OTP-41) and the pile's order (OTP-20)."""
        s = state.clone()
        pool, slots = list(s.pile), []
        for q in range(s.n):
            if q == seat or not s.hands[q]:
                continue
            hidden = [len(s.hands[q]) - 1] if s.config.open_game else range(len(s.hands[q]))
            for i in hidden:
                pool.append(s.hands[q][i])
                slots.append((q, i))
        pool = rng.permutation(pool).tolist()
        for q, i in slots:
            s.hands[q][i] = pool.pop()
        s.pile = pool
        s.recount_pile()
        s._mask = None
        return s

    @staticmethod
    def conserve(state: Any, before: Any) -> None:
        counts = [0] * OTP_NUM_KINDS
        for kind, _sq in state.ocean.placements:
            counts[kind] += 1
        for tiles in (*state.hands, state.pile):
            for kind in tiles:
                counts[kind] += 1
        assert counts == list(OTP_TILE_MIX), "§1.3: the 60 tiles are on the ocean, in hands or in the pile"
        assert all(len(h) <= 3 for h in state.hands), "OTP-48"


# ------------------------------------------------------------------- OTTO Game Over


class OttoGameOver(_SavedAsPosition):
    name = "otto_game_over"
    module = otto_game_over_v0
    pick = staticmethod(_uniform)

    @staticmethod
    def config(rng: np.random.Generator) -> dict[str, Any]:
        n = int(rng.choice([2, 3, 4, 4]))
        cfg: dict[str, Any] = {"num_players": n}
        if n == 4 and rng.random() < 0.5:
            cfg["teams"] = True
        if rng.random() < 0.25:
            cfg["secret_cards"] = False
        if rng.random() < 0.2:
            cfg["blind"] = True
        if rng.random() < 0.5:
            cfg["episode"] = "match"
        if rng.random() < 0.2:
            cfg["head_in_the_clouds"] = True
        if rng.random() < 0.5:
            cfg["target_score"] = int(rng.integers(1, 9))
        if rng.random() < 0.3:
            cfg["max_matches"] = int(rng.integers(1, 4))
        return cfg

    @staticmethod
    def rotate_snapshot(pos: dict[str, Any], k: int, cfg: dict[str, Any]) -> dict[str, Any]:
        pos = copy.deepcopy(pos)
        n, teams = cfg["num_players"], cfg.get("teams", False)
        nt = 2 if teams else n

        def r(s: int) -> int:
            return (s + k) % n

        def t(x: int) -> int:  # 2v2: team = seat % 2 (§2.1), so an odd k swaps the teams
            return (x + k) % 2 if teams else r(x)

        pos["tables"], pos["hands"] = _moved(pos["tables"], r, n), _moved(pos["hands"], r, n)
        for key in ("markers", "totals", "match_scores"):
            pos[key] = _moved(pos[key], t, nt)
        pos["shapes"] = {key: None if o is None else t(o) for key, o in pos["shapes"].items()}
        pos["to_move"], pos["actor"] = r(pos["to_move"]), r(pos["actor"])
        if pos.get("infinity"):
            pos["infinity"]["creator"] = r(pos["infinity"]["creator"])
            pos["infinity"]["saved"] = _moved(pos["infinity"]["saved"], t, nt)
        if pos.get("result"):
            pos["result"]["winners"] = sorted(t(w) for w in pos["result"]["winners"])
            pos["result"]["returns"] = _moved(pos["result"]["returns"], r, n)
        pos["discarded"] = sorted(pos["discarded"])  # a set of tiles out of the match: no order
        return pos

    @staticmethod
    def action(a: int, k: int, n: int) -> int:
        for base in (ogo_actions.CARD_BASE, ogo_actions.JOKER_BASE):
            e = a - base
            if ogo_actions.E_MAGNETIC <= e < ogo_actions.E_REV_CW:
                return base + ogo_actions.E_MAGNETIC + (e - ogo_actions.E_MAGNETIC + k) % n
            if ogo_actions.E_ALIEN <= e < ogo_actions.N_EFFECTS:
                return base + ogo_actions.E_ALIEN + (e - ogo_actions.E_ALIEN + k) % n
        return a

    @staticmethod
    def segment(state: Any) -> Any:
        """A new match is set up in seat order and its first player found by seat (§2.1)."""
        return (state.matches, state.tiebreak)

    @staticmethod
    def seat_ruled(state: Any) -> bool:
        """OGO-56: a tie-break match that leaves the teams tied is decided by tiles drawn "teams
        in order of their lowest seat"; only its winners' being tied teams is checked."""
        if not (state.is_terminal() and state.tiebreak and not state.truncated):
            return False
        tied = [t for t in range(state.n_teams) if state.totals[t] == max(state.totals)]
        if len(tied) < 2:
            return False
        assert set(state.winners) <= set(tied), "OGO-56: the winners come from the tied teams"
        return True

    @staticmethod
    def hide(state: Any, seat: int, rng: np.random.Generator) -> Any:
        """Re-deal the cards ``seat`` cannot see (all but its own and its 2v2 partner's,
        OGO-27) and reshuffle the tower and the deck (spec §7 "Hidden")."""
        s = state.clone()
        partner = (seat + 2) % 4 if s.config.team_play else seat
        hidden = [q for q in range(s.n) if q not in (seat, partner)]
        pool = rng.permutation(list(s.deck) + [c for q in hidden for c in s.hands[q]]).tolist()
        for q in hidden:
            size = len(s.hands[q])
            s.hands[q] = sorted(pool[:size])
            del pool[:size]
        s.deck = pool
        s.tower = rng.permutation(s.tower).tolist()
        return s

    @staticmethod
    def conserve(state: Any, before: Any) -> None:
        counts = [0] * 9
        for d in state.design:
            if d >= 0:
                counts[d] += 1
        counts[3] -= 1  # the fixed centre tile C8 on c3 is not one of the 32 (§1)
        for x in (*state.tables, state.drawn, *state.tower, *state.discarded):
            if x >= 0:
                counts[x] += 1
        assert counts == [4] * 9, "§1: 4 of each of the 8 path designs + 4 dark tiles"
        cards = sum(map(len, state.hands)) + len(state.deck) + sum(state.removed) + state.voided
        if state.config.secret_cards and not state.config.blind:
            assert cards == 33, "§1 / OGO-29 / OGO-33: 33 secret cards held, in the deck, out or void"
        for team in range(state.n_teams):
            owned = [0, 0, 0]
            for (shape, _v), owner in state.shapes.items():
                if owner == team:
                    owned[shape] += 1
            assert [o + s for o, s in zip(owned, state.supply[team], strict=True)] == [4, 4, 3], "OGO-19"


GAMES = (OverAndOut, OttoOctopus, OttoGameOver)


# ------------------------------------------------------------------- the comparison


def _check_first_player(state: Any) -> None:
    """§2.5: among the seats of the leading team(s), the highest table tile, then the lowest
    seat; right after a regular match's set-up nobody can have been skipped (no dark table tile
    yet, OGO-16)."""
    values = (0, 4, 7, 8, 10, 12, 12, 16, 0)  # OGO-09, designs Z0 .. G16, DARK
    best = max(state.totals)
    seats = [s for s in range(state.n) if state.totals[state.team[s]] == best]
    top = max(values[state.tables[s]] if state.tables[s] >= 0 else 0 for s in seats)
    first = min(s for s in seats if (values[state.tables[s]] if state.tables[s] >= 0 else 0) == top)
    assert state.to_move == first, f"§2.5: the first player is player_{first}, got player_{state.to_move}"


def compare_rotated(game: Any, cfg: dict[str, Any], a_env: Any, b_env: Any, k: int, rng: Any) -> int:
    """Play ``a_env`` at random and ``b_env`` (its position rotated by ``k``) with the same
    moves; assert the contract at every step. Returns the number of moves compared."""
    n = cfg["num_players"]

    def agent(seat: int) -> str:
        return f"player_{seat}"

    start = game.segment(a_env.unwrapped.state)
    prev_a = prev_b = None
    moves = 0
    while a_env.agents:
        sa, sb = a_env.unwrapped.state, b_env.unwrapped.state
        game.conserve(sa, prev_a)
        game.conserve(sb, prev_b)
        if game.segment(sa) != start and not sa.is_terminal():
            for s in (sa, sb):  # seat-numbered set-up (OGO §2.1); not compared, but checked
                if not s.blind_match and not s.tiebreak:
                    _check_first_player(s)
            return moves
        if game.seat_ruled(sa) or game.seat_ruled(sb):
            return moves
        want = game.rotate_snapshot(a_env.unwrapped.snapshot(), k, cfg)
        got = game.rotate_snapshot(b_env.unwrapped.snapshot(), 0, cfg)
        assert got == want, {x: (want[x], got.get(x)) for x in want if want[x] != got.get(x)}
        for seat in range(n):
            a, b = agent(seat), agent((seat + k) % n)
            assert (a in a_env.agents) == (b in b_env.agents)
            if a not in a_env.agents:
                continue
            oa, ob = a_env.observe(a), b_env.observe(b)
            np.testing.assert_array_equal(oa["observation"], ob["observation"], err_msg=f"seat {seat}, k {k}")
            relabelled = np.zeros_like(oa["action_mask"])
            relabelled[[game.action(int(x), k, n) for x in _legal(oa["action_mask"])]] = 1
            np.testing.assert_array_equal(relabelled, ob["action_mask"], err_msg=f"mask of seat {seat}")
            assert a_env.rewards[a] == b_env.rewards[b]
            assert a_env._cumulative_rewards[a] == b_env._cumulative_rewards[b]
            assert a_env.terminations[a] == b_env.terminations[b]
            assert a_env.truncations[a] == b_env.truncations[b]
        if not sa.is_terminal():
            g = a_env.unwrapped.game
            decider = sa.current_player()
            for seat in range(n):
                alt = game.hide(sa, seat, rng)
                np.testing.assert_array_equal(
                    g.observe(sa, seat), g.observe(alt, seat), err_msg="information set"
                )
                if seat == decider:
                    np.testing.assert_array_equal(
                        sa.legal_mask(), alt.legal_mask(), err_msg="mask, information set"
                    )
        a = a_env.agent_selection
        b = b_env.agent_selection
        if a_env.terminations[a] or a_env.truncations[a] or b_env.terminations[b] or b_env.truncations[b]:
            # dead steps: PettingZoo takes them in agent-list order, which is a seat order
            _flush_dead_steps(a_env)
            _flush_dead_steps(b_env)
            continue
        assert b == agent((int(a.split("_")[1]) + k) % n)
        act = game.pick(a_env.observe(a)["action_mask"], rng)
        prev_a, prev_b = sa.clone(), sb.clone()
        a_env.step(act)
        b_env.step(game.action(act, k, n))
        moves += 1
    return moves


def rotation_case(game: Any, seed: int) -> int:
    rng = np.random.default_rng([seed, 50])
    cfg = game.config(rng)
    n = cfg["num_players"]
    env = game.module.env(**cfg)
    env.reset(seed=int(rng.integers(1 << 30)))
    _play_prefix(env, rng, int(rng.integers(0, 40)), game.pick)
    state = env.unwrapped.state
    if state.is_terminal():
        return 0
    d = state.to_dict()
    k = int(rng.integers(1, n)) if n > 1 else 0
    a_env, b_env = game.module.env(**cfg), game.module.env(**cfg)
    a_env.reset(options={"state": d})
    b_env.reset(options={"state": game.rotate_state(d, k, cfg)})
    return compare_rotated(game, cfg, a_env, b_env, k, rng)


BUDGET = {OverAndOut: 25, OttoOctopus: 50, OttoGameOver: 70}


@pytest.mark.parametrize("game", GAMES, ids=[g.name for g in GAMES])
def test_rotated_positions_play_the_same(game: Any) -> None:
    """Contract 1-3 on positions of seeded random games, every seat count and parameter."""
    moves = sum(rotation_case(game, seed) for seed in range(BUDGET[game]))
    assert moves > 100, moves  # the runs really compared games


def test_over_and_out_first_dealer_rotation() -> None:
    """OAO-05/07/10/36: with the same seed, ``first_dealer = f + k`` deals and plays the game of
    ``first_dealer = f`` with every seat moved on by k (the deck is shuffled the same)."""
    for seed in range(25):
        rng = np.random.default_rng([seed, 51])
        cfg = OverAndOut.config(rng)
        n = cfg["num_players"]
        f, k = int(rng.integers(n)), int(rng.integers(1, n))
        a_env = over_and_out_v0.env(**{**cfg, "first_dealer": f})
        b_env = over_and_out_v0.env(**{**cfg, "first_dealer": (f + k) % n})
        reset_seed = int(rng.integers(1 << 30))
        a_env.reset(seed=reset_seed)
        b_env.reset(seed=reset_seed)
        compare_rotated(OverAndOut, cfg, a_env, b_env, k, rng)


def test_otto_octopus_edited_positions_rotate() -> None:
    """The ``position`` hook with edited public seat fields (scores with ties, skips, passes,
    hands, the seat to move, a finished game): the rotated position plays the rotated game,
    OTP-38's shared win included."""
    compared = 0
    for seed in range(60):
        rng = np.random.default_rng([seed, 52])
        cfg = OttoOctopus.config(rng)
        n = cfg["num_players"]
        env = otto_octopus_v0.env(**cfg)
        env.reset(seed=seed)
        _play_prefix(env, rng, int(rng.integers(0, 30)), _mostly_place)
        pos = env.unwrapped.snapshot()
        if pos["to_move"] < 0:
            continue
        pos["scores"] = [int(x) for x in rng.integers(-3, 4, n)]
        if pos["phase"] == "main":
            if not cfg.get("simplified") and n > 1 and rng.random() < 0.5:
                pos["skips"] = [int(x) for x in rng.integers(0, 3, n)]
            if rng.random() < 0.5:
                pos["passed"] = [bool(x) for x in rng.integers(0, 2, n)]
            pos["to_move"] = int(rng.integers(-1 if rng.random() < 0.1 else 0, n))
            if rng.random() < 0.3:
                hands = [rng.integers(0, 16, int(rng.integers(0, 4))) for _ in range(n)]
                pos["hands"] = [[OTP_KINDS[int(x)] for x in h] for h in hands]
                del pos["pile"]  # the rest of the 60-tile mix, shuffled by the reset seed
        k = int(rng.integers(1, n)) if n > 1 else 0
        a_env, b_env = otto_octopus_v0.env(**cfg), otto_octopus_v0.env(**cfg)
        reset_seed = int(rng.integers(1 << 30))
        a_env.reset(seed=reset_seed, options={"position": pos})
        b_env.reset(seed=reset_seed, options={"position": OttoOctopus.rotate_snapshot(pos, k, cfg)})
        compared += 1
        compare_rotated(_NoConservation(OttoOctopus), cfg, a_env, b_env, k, rng)
    assert compared > 30


class _NoConservation:
    """An edited position need not hold the 60-tile mix (the env's doc page: "Positions are not
    checked against the 60-tile mix")."""

    def __init__(self, game: Any) -> None:
        self._game = game

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    @staticmethod
    def conserve(state: Any, before: Any) -> None:
        assert all(len(h) <= 3 for h in state.hands), "OTP-48"


# ------------------------------------------------------------ placement formulas


def _whole_game(module: Any, cfg: dict[str, Any], seed: int, pick: Any) -> tuple[Any, list[float]]:
    env = module.env(**cfg)
    env.reset(seed=seed)
    rng = np.random.default_rng([seed, 53])
    total = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _info = env.last()
        total[agent] += reward
        env.step(None if term or trunc else pick(obs["action_mask"], rng))
    return env.unwrapped.state, [total[a] for a in env.possible_agents]


@pytest.mark.parametrize("seed", range(25))
def test_reward_formulas_do_not_look_at_seat_numbers(seed: int) -> None:
    """The rewards of whole games are the specs' formulas of places and scores alone."""
    rng = np.random.default_rng([seed, 54])
    # OAO §5: j-th out -1 + 2(j-1)/(N-1), winner +1; truncation: the average of the places left
    cfg = OverAndOut.config(rng)
    n = cfg["num_players"]
    state, got = _whole_game(over_and_out_v0, cfg, seed, _uniform)
    placement = cfg.get("reward_mode", "placement") == "placement"
    want = [0.0] * n
    for j, s in enumerate(state.out_order, 1):
        want[s] = -1 + 2 * (j - 1) / (n - 1) if placement else -1.0
    left = [s for s in range(n) if s not in state.out_order]
    for s in left:
        m = len(left)
        want[s] = 1.0 if not state.truncated else (-1 + (2 * n - m - 1) / (n - 1) if placement else 0.0)
    np.testing.assert_allclose(got, want, err_msg=f"OAO §5 {cfg}")
    # OTP §5 / OTP-38: the k seats sharing the best final score get (n-k)/(k(n-1))
    cfg = OttoOctopus.config(rng)
    n = cfg["num_players"]
    state, got = _whole_game(otto_octopus_v0, cfg, seed, _mostly_place)
    final = [state.scores[p] - len(state.hands[p]) for p in range(n)]
    if state.truncated:
        want = [0.0] * n
    elif n == 1:
        want = [(final[0] - len(state.pile)) / 100]
    else:
        best = [p for p in range(n) if final[p] == max(final)]
        kk = len(best)
        want = [(n - kk) / (kk * (n - 1)) if p in best else -1 / (n - 1) for p in range(n)]
    np.testing.assert_allclose(got, want, err_msg=f"OTP §5 {cfg}")
    # OGO §5: "match" (own - mean of the others) / 32; "game" (T-k)/(k(T-1)) per team
    cfg = OttoGameOver.config(rng)
    state, got = _whole_game(otto_game_over_v0, cfg, seed, _uniform)
    n, nt, team = cfg["num_players"], state.n_teams, state.team
    if state.truncated:
        want = [0.0] * n
    elif cfg.get("episode") == "match":
        ms = state.match_scores
        want = [(ms[team[p]] - (sum(ms) - ms[team[p]]) / (nt - 1)) / 32 for p in range(n)]
    else:
        won = state.winners
        if not state.tiebreak:  # OGO-52: the highest total wins
            assert won == [t for t in range(nt) if state.totals[t] == max(state.totals)]
        kk = len(won)
        want = [(nt - kk) / (kk * (nt - 1)) if team[p] in won else -1 / (nt - 1) for p in range(n)]
    np.testing.assert_allclose(got, want, err_msg=f"OGO §5 {cfg}")
