"""Doc-page and README claims that ``test_doc_claims.py`` and ``test_doc_pages.py`` do not pin,
executed: every observation index of the four pages' tables rebuilt from ``snapshot()`` /
``to_dict()`` along seeded random games, the pages' action-index tables, the reward formulas of
the README and the pages, the spec's component models against the engine constants, and the
cheap bot measurements the pages quote. The tests at the end pin two
doc findings (fixed since).
"""

from __future__ import annotations

import collections
import importlib
import re
from pathlib import Path
from typing import Any

import numpy as np

from envs import octi_v0, otto_game_over_v0, otto_octopus_v0, over_and_out_v0
from envs.core.arena import play_match
from envs.core.bots import make_bot
from envs.otto_game_over import geometry as ogo_geometry
from envs.otto_game_over.encode import OFFSET as OGO_OFFSET
from envs.otto_octopus.board import KINDS as OTO_KINDS
from envs.otto_octopus.board import TILE_MIX as OTO_MIX
from envs.otto_octopus.game import OttoOctopusGame
from envs.over_and_out.game import OverAndOutGame

REPO = Path(__file__).resolve().parents[2]
RULES = REPO.parent / "shared" / "rules"

OAO_KINDS = ["0", "1", "2", "3", "4", "5", "x2", "-10", "spin-out", "top-out", "topsy-turvy"]
TIPTOP = [22, 33, 44, 55, 66]
DIRS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
OCTI_PHASES = ["MAIN", "DECLARE", "CHAIN", "MOVER", "CAPTURE"]
DESIGNS = ["Z0", "A4", "B7", "C8", "D10", "E12", "F12", "G16"]
CARDS = [
    "time-travel",
    "magnetic-inversion",
    "revolution-cw",
    "revolution-acw",
    "meteorite",
    "quantum-leap",
    "alien-kidnapping",
    "infinity",
    "joker",
]


def _page(name: str) -> str:
    return importlib.import_module(f"envs.{name}.env").__doc__ or ""


def _play(env: Any, rng: np.random.Generator, limit: int, check: Any) -> None:
    """Random legal play, ``check(env)`` before every step (dead steps included)."""
    for _agent in env.agent_iter(limit):
        check(env)
        obs, _r, term, trunc, _i = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


# --- Over and Out's page: the observation table, index by index ---


def _check_over_and_out(env: Any, deck: dict[str, int], history: dict[str, Any]) -> None:
    snap = env.unwrapped.snapshot()
    n = len(snap["chips"])
    if snap["round"] != history["round"] or snap["play_pile"] == 0:
        history.update(round=snap["round"], counts=collections.Counter())
        if snap["round"] != history["round_of_plays"]:
            history.update(round_of_plays=snap["round"], plays=0)
    assert sum(history["counts"].values()) == snap["play_pile"]
    for me in range(n):
        ob = env.observe(f"player_{me}")["observation"]
        assert ob.shape == (60,) and ob.dtype == np.float32
        hand = snap["hands"][me]
        assert np.allclose(ob[0:11], [hand.count(k) / 4 for k in OAO_KINDS])  # 0-10 own hand / 4
        assert np.isclose(ob[11], snap["total"] / 66)  # 11 T / 66
        assert list(ob[12:17]) == [float(snap["tiptop"] == v) for v in TIPTOP]  # 12-16 L one-hot
        assert ob[17 + TIPTOP.index(snap["tiptop"])] == 0  # 17-21 face down only
        if snap["to_move"] >= 0:
            assert ob[17:22].sum() == snap["tiptop_pile"]
        expected_played = [history["counts"][k] / max(1, deck[k]) for k in OAO_KINDS]
        assert np.allclose(ob[22:33], expected_played)  # 22-32 play pile / max(1, count)
        assert np.isclose(ob[33], snap["draw_pile"] / sum(deck.values()))  # 33 draw pile / deck
        assert ob[34] == float(snap["direction"] == -1)  # 34 counter-clockwise flag
        for k in range(8):  # 35 + 3k: active, chips / 4, dealer of relative seat k
            seat = (me + k) % n
            want = (
                [float(snap["chips"][seat] > 0), snap["chips"][seat] / 4, float(snap["dealer"] == seat)]
                if k < n
                else [0.0, 0.0, 0.0]
            )
            assert np.allclose(ob[35 + 3 * k : 38 + 3 * k], want)
        assert np.isclose(ob[59], min(1.0, history["plays"] / 100))  # 59 plays this round / 100


def test_fuzz_over_and_out_observation_table() -> None:
    rng = np.random.default_rng(2026)
    for g in range(10):
        params: dict[str, Any] = {
            "num_players": int(rng.integers(2, 9)),
            "starting_chips": int(rng.integers(1, 5)),
        }
        if g % 2:
            deck = {k: int(rng.integers(0, 12)) for k in OAO_KINDS if rng.random() < 0.8}
            deck["0"] = deck.get("0", 0) + params["num_players"] * params["starting_chips"]
            params["deck_counts"] = deck
        env = over_and_out_v0.env(**params)
        env.reset(seed=g)
        full_deck = OverAndOutGame(**params).config.deck_counts
        history: dict[str, Any] = {
            "round": 1,
            "round_of_plays": 1,
            "plays": 0,
            "counts": collections.Counter(),
        }
        for _agent in env.agent_iter(600):
            _check_over_and_out(env, full_deck, history)
            obs, _r, term, trunc, _i = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            assert bool(mask[11]) != bool(mask[:11].any())  # ``bust`` iff no card is playable
            action = int(rng.choice(np.flatnonzero(mask)))
            if action < 11:
                history["counts"][OAO_KINDS[action]] += 1
            history["plays"] += 1
            env.step(action)


# --- Octi's page: the planes (0-39 and the turn planes) and the action table ---


OCTI_SEEN: collections.Counter[str] = collections.Counter()


def _octi_frame(variant: str) -> tuple[int, int, int, int, list[list[str]]]:
    if variant == "basic":
        return 7, 6, 4, 24, [["b2", "c2", "d2", "e2"], ["b6", "c6", "d6", "e6"]]
    return 9, 9, 7, 50, [["c3", "e3", "g3"], ["c7", "e7", "g7"]]


def _check_octi(env: Any, variant: str, max_turns: int) -> None:
    h, w, p, total, bases = _octi_frame(variant)
    snap = env.unwrapped.snapshot()
    d = env.unwrapped.state.to_dict()
    phase = d["phase"]
    OCTI_SEEN[phase] += 1
    for me in (0, 1):
        ob = env.observe(f"player_{me}")["observation"]

        def rc(r: int, f: int, me: int = me) -> tuple[int, int]:
            return (r, f) if me == 0 else (h - 1 - r, w - 1 - f)

        def at(square: str) -> tuple[int, int]:
            return rc(int(square[1:]) - 1, ord(square[0]) - 97)

        e = np.zeros((48, h, w), np.float32)
        for square, pods in snap["board"].items():
            for seat, prongs in pods:
                own = seat == me
                e[(0, 1)[not own]][at(square)] += 1 / p
                for name in filter(None, prongs.split(",")):
                    e[(2 if own else 10) + (DIRS.index(name) + 4 * me) % 8][at(square)] += 1 / p
        for side in (0, 1):
            for base in bases[side]:
                e[18 if side == me else 19][at(base)] = 1
        if phase in OCTI_PHASES:
            e[27 + OCTI_PHASES.index(phase)] = 1
        if phase not in ("MAIN", "OVER"):
            mover = d["to_move"]
            e[20][rc(*divmod(d["origin"], w))] = 1
            if phase == "CAPTURE":
                focus = d["capture_queue"][0]
            else:
                focus = mover * p + (d["declare_queue"][0] if phase == "DECLARE" else d["active"])
            square = rc(*divmod(d["pos"][focus], w))
            e[21][square] = 1
            if phase != "CAPTURE":
                for s in d["jumped"][d["active"]]:
                    e[22][rc(*divmod(s, w))] = 1
            for s in d["jumped_order"]:
                e[23][rc(*divmod(s, w))] = 1
            for plane, pods in ((24, d["movers"]), (25, d["finished"])):
                for m in pods:
                    e[plane][rc(*divmod(d["pos"][mover * p + m], w))] += 1 / p
            for c in d["capture_marks"]:
                e[26][rc(*divmod(d["pos"][c], w))] += 1 / p
            e[38] = float(focus // p == me)
            for a in range(8):
                if d["prongs"][focus] >> a & 1:
                    e[40 + (a + 4 * me) % 8][square] = 1
        e[32], e[33] = snap["supply"][me] / total, snap["supply"][1 - me] / total
        e[34], e[35] = snap["reserve"][me] / p, snap["reserve"][1 - me] / p
        e[36], e[37] = snap["captured"][me] / p, snap["captured"][1 - me] / p
        e[39] = snap["turn"] / max_turns
        assert np.allclose(ob[:48], e, atol=1e-6), (variant, me, phase)
        ids = sum(ob[48 + 9 * k] for k in range(p))  # 48 + 9k: own pod id k on its square
        assert np.allclose(ids, ob[0] * p, atol=1e-5)


def _check_octi_actions(env: Any, variant: str) -> None:
    h, w, p, _total, bases = _octi_frame(variant)
    k = len(bases[0])
    obs = env.observe(env.agent_selection)
    me = int(env.agent_selection[-1])
    ob = obs["observation"]

    def square_of(pod: int) -> str:
        ((r, f),) = np.argwhere(ob[48 + 9 * pod] > 0)
        r, f = (r, f) if me == 0 else (h - 1 - r, w - 1 - f)
        return f"{chr(97 + f)}{r + 1}"

    own = bases[me] if me == 0 else bases[1][::-1]
    enemy = bases[1 - me] if me == 0 else bases[0][::-1]
    for a in map(int, np.flatnonzero(obs["action_mask"])):
        words = env.unwrapped.action_to_string(a).split()
        if a < 24 * p:  # ADD / STEP / JUMP(p, e): 8p + e, 8P + 8p + e, 16P + 8p + e
            assert words[0] == ("prong", "step", "jump")[a // (8 * p)]
            assert words[1].split(".")[0] == square_of(a % (8 * p) // 8)
            assert words[2] == DIRS[(a % 8 - 4 * me) % 8]
        elif a < 24 * p + 4 * k:  # ENTER(b) = 24P + b, LIBERATE(b) = 24P + 2K + b
            kind, b = ("enter", a - 24 * p) if a < 24 * p + 2 * k else ("liberate", a - 24 * p - 2 * k)
            assert words == [kind, (own + enemy)[b]]
        elif a < 24 * p + 4 * k + 5:
            assert words[0] == ["with", "without", "stop", "capture", "spare"][a - 24 * p - 4 * k]
        else:  # REPOSITION(p, f, t) = 24P + 4K + 5 + 64p + 8f + t
            q = a - 24 * p - 4 * k - 5
            assert words[0] == "reposition" and words[1].split(".")[0] == square_of(q // 64)
            assert words[2:] == [DIRS[(q % 64 // 8 - 4 * me) % 8], DIRS[(q % 8 - 4 * me) % 8]]


def test_fuzz_octi_planes_and_action_table() -> None:
    rng = np.random.default_rng(7)
    OCTI_SEEN.clear()
    for g, variant in enumerate(["basic", "x_fast", "x_classic", "x_fast", "x_classic", "basic"]):
        max_turns = int(rng.integers(60, 150))
        env = octi_v0.env(variant=variant, max_turns=max_turns, allow_reposition=g == 3)
        env.reset(seed=g)

        def check(env: Any, variant: str = variant, max_turns: int = max_turns) -> None:
            _check_octi(env, variant, max_turns)
            if not any(env.terminations.values()) and not any(env.truncations.values()):
                _check_octi_actions(env, variant)

        _play(env, rng, 700, check)
    assert set(OCTI_SEEN) >= {"MAIN", "DECLARE", "MOVER", "CAPTURE", "OVER"}, (
        OCTI_SEEN
    )  # every plane exercised


# --- Otto the Octopus's page: the planes that do not move, the tile planes, the vector ---

SQ8 = {f"{f}{r}": (r - 1) * 8 + i for i, f in enumerate("abcdefgh") for r in range(1, 9)}


def _check_otto_octopus(env: Any, n: int, open_game: bool) -> None:
    snap = env.unwrapped.snapshot()
    placed = {SQ8[p.split()[1]]: p.split()[0] for p in snap["placements"]}
    perimeter = {SQ8[s] for s in SQ8 if s[0] in "ah" or s[1] in "18"}
    over = snap["to_move"] == -1
    for me in range(n):
        ob = env.observe(f"player_{me}")["observation"]
        planes, v = ob[:1728].reshape(27, 64), ob[1728:]
        for sq in range(64):
            want = [OTO_KINDS.index(placed[sq])] if sq in placed else []
            assert list(np.flatnonzero(planes[:16, sq])) == want  # 0-15 placed kind
            arm = placed.get(sq) in ("straight", "turn-in", "turn-out")
            assert planes[17:21, sq].sum() == float(arm)  # 17-20 arm tile heading
        assert {int(i) for i in np.flatnonzero(planes[16])} == {SQ8[s] for s in ("d4", "e4", "d5", "e5")}
        assert set(np.flatnonzero(planes[22])) == perimeter  # 28 squares
        assert {int(i) for i in np.flatnonzero(planes[23])} == {SQ8[s] for s in ("a1", "h1", "a8", "h8")}
        algae = ("b7", "c6", "f6", "g7", "b2", "c3", "f3", "g2")
        assert {int(i) for i in np.flatnonzero(planes[24])} == {SQ8[s] for s in algae}
        starts = {"d6", "e6", "f5", "f4", "e3", "d3", "c4", "c5"}
        assert {int(i) for i in np.flatnonzero(planes[25])} == {
            SQ8[s] for s in starts if SQ8[s] not in placed
        }
        assert np.allclose(v[:16], [snap["hands"][me].count(k) / 3 for k in OTO_KINDS])
        hidden = list(snap["pile"])
        for k in range(4):
            seat = (me + k) % n
            present = k < n
            assert np.isclose(v[64 + k], len(snap["hands"][seat]) / 3 if present else 0)
            assert np.isclose(v[85 + k], np.clip(snap["scores"][seat] / 100, -1, 1) if present else 0)
            assert np.isclose(v[89 + k], min(1, snap["skips"][seat] / 2) if present else 0)
            assert v[93 + k] == (float(snap["passed"][seat]) if present else 0)
            if k >= 1:
                shown = np.zeros(16)
                if present:
                    hand = snap["hands"][seat]
                    visible, secret = (hand[:-1], hand[-1:]) if open_game else ([], hand)
                    hidden += secret
                    for tile in visible:
                        shown[OTO_KINDS.index(tile)] += 1 / 3
                assert np.allclose(v[16 + 16 * (k - 1) : 32 + 16 * (k - 1)], shown)
        mix = dict(zip(OTO_KINDS, OTO_MIX, strict=True))
        assert np.allclose(v[69:85], [min(1, hidden.count(k) / mix[k]) for k in OTO_KINDS])
        assert np.isclose(v[68], min(1, len(snap["pile"]) / 60))
        assert np.isclose(v[97], min(1, snap["extra"] / 3))
        phases = ["main", "extra", "swap", "return"]
        assert list(v[98:102]) == ([0.0] * 4 if over else [float(snap["phase"] == x) for x in phases])
        slot = [0.0] * 4
        if not over:
            slot[(snap["to_move"] - me) % n] = 1.0
        assert list(v[102:106]) == slot
        assert ob.min() >= -1 and ob.max() <= 1


def test_fuzz_otto_octopus_observation_tables() -> None:
    rng = np.random.default_rng(11)
    for g, (n, open_game) in enumerate([(1, False), (2, True), (3, False), (4, True), (2, False), (3, True)]):
        env = otto_octopus_v0.env(num_players=n, open_game=open_game, simplified=g == 2)
        env.reset(seed=g)
        _play(env, rng, 250, lambda env, n=n, o=open_game: _check_otto_octopus(env, n, o))


# --- OTTO Game Over's page: the blocks of the observation ---


def _tile_one_hot(tile: str | None) -> list[float]:
    out = [0.0] * 10  # none, dark, Z0..G16
    out[0 if tile is None else 1 if tile.upper() == "DARK" else 2 + DESIGNS.index(tile)] = 1.0
    return out


def _check_otto_game_over(env: Any, n: int, teams: bool, params: dict[str, Any]) -> None:
    o = OGO_OFFSET
    snap = env.unwrapped.snapshot()
    n_teams = 2 if teams else n
    over = "result" in snap
    for me in range(n):
        ob = env.observe(f"player_{me}")["observation"]
        board = ob[:325].reshape(13, 25)
        for sq in range(25):
            tile = snap["board"].get(f"{'abcde'[sq % 5]}{sq // 5 + 1}")
            want = [0.0] * 13
            if tile is None:
                want[0] = 1
            else:
                design, turn = tile.split("/")
                want[1 + DESIGNS.index(design)] = want[9 + int(turn)] = 1
            assert list(board[:, sq]) == want
        vertices = np.zeros((15, 36))
        kinds = {"small": 0, "big": 1, "square": 2}
        for key, owner in snap["shapes"].items():
            kind, v = key.split("@")
            index = ord(v[1]) - 97 + (int(v[2:]) - 1) * 6
            vertices[
                12 + kinds[kind] if owner is None else kinds[kind] * 4 + (owner - me) % n_teams, index
            ] = 1
        assert np.array_equal(ob[325:865].reshape(15, 36), vertices)
        assert list(ob[o["drawn"] : o["drawn"] + 10]) == _tile_one_hot(snap["drawn"])
        tower = [t.upper() for t in snap["tower"]]
        want_tower = [min(1, tower.count(d) / 4) for d in DESIGNS] + [min(1, tower.count("DARK") / 4)]
        assert np.allclose(ob[o["tower"] : o["tower"] + 9], want_tower)
        hands = snap["hands"] or [[] for _ in range(n)]
        assert np.allclose(ob[o["my_cards"] : o["my_cards"] + 9], [hands[me].count(c) / 4 for c in CARDS])
        partner = hands[(me + 2) % 4] if teams else []
        assert np.allclose(
            ob[o["partner_cards"] : o["partner_cards"] + 9], [partner.count(c) / 4 for c in CARDS]
        )
        assert np.isclose(ob[o["deck"]], len(snap["deck"]) / 33)
        removed = [min(1, snap["removed_cards"].get(c, 0) / 4) for c in CARDS]
        assert np.allclose(ob[o["removed"] : o["removed"] + 9], removed)
        for k in range(4):
            seat = (me + k) % n
            held = min(1, len(hands[seat]) / 8) if k < n else 0
            assert np.isclose(ob[o["cards_held"] + k], held)
            table = (snap["tables"] or [None] * n)[seat] if k < n else None
            assert list(ob[o["tables"] + 10 * k : o["tables"] + 10 * k + 10]) == (
                _tile_one_hot(table) if k < n else [0.0] * 10
            )
            team = (me % n_teams + k) % n_teams if k < n_teams else None
            total = min(1, snap["totals"][team] / params["target_score"]) if team is not None else 0
            assert np.isclose(ob[o["totals"] + k], total)
            markers = snap["markers"][team] if team is not None else {"small": 0, "big": 0, "square": 0}
            want_markers = [markers["small"] / 4, markers["big"] / 4, markers["square"] / 3]
            assert np.allclose(ob[o["markers"] + 3 * k : o["markers"] + 3 * k + 3], want_markers)
            score = min(1, snap["match_scores"][team] / 32) if team is not None else 0
            assert np.isclose(ob[o["match_scores"] + k], score)
        phases = ["card", "kidnap", "place", "infinity"]
        assert list(ob[o["phase"] : o["phase"] + 4]) == (
            [0.0] * 4 if over else [float(snap["phase"] == x) for x in phases]
        )
        for block in ("to_move", "actor"):
            want = [0.0] * 4
            if not over:
                want[(snap[block] - me) % n] = 1.0
            assert list(ob[o[block] : o[block] + 4]) == want
        kidnapped = np.zeros(9)
        if snap["kidnapped"] is not None and not over:
            kidnapped[CARDS.index(snap["kidnapped"])] = 1
        assert np.array_equal(ob[o["kidnapped"] : o["kidnapped"] + 9], kidnapped)
        flags = ob[o["flags"] : o["flags"] + 4]
        assert flags[0] == float(bool(snap["extra_turn"])) and flags[2] == float(bool(snap["tiebreak"]))
        assert flags[3] == float(n == 1)
        if n == 1 or params.get("blind") or snap["tiebreak"]:
            assert flags[1] == 1
        misc = ob[o["misc"] : o["misc"] + 4]
        unclaimed = sum(owner is None for owner in snap["shapes"].values())
        assert misc[0] == float(bool(snap["time_travel"]))
        assert np.isclose(misc[1], min(1, snap["matches"] / params["max_matches"]))
        assert np.isclose(misc[3], min(1, unclaimed / 8))


def test_fuzz_otto_game_over_observation_blocks() -> None:
    rng = np.random.default_rng(13)
    configs: list[dict[str, Any]] = [
        {"num_players": 2, "target_score": 8, "max_matches": 3},
        {"num_players": 3, "episode": "match", "target_score": 24, "max_matches": 30},
        {"num_players": 4, "teams": True, "episode": "match", "target_score": 24, "max_matches": 30},
        {"num_players": 1, "target_score": 24, "max_matches": 30},
    ]
    for g, params in enumerate(configs * 3):
        env = otto_game_over_v0.env(**params)
        env.reset(seed=g)
        n, teams = params["num_players"], params.get("teams", False)
        _play(env, rng, 400, lambda env, n=n, t=teams, p=params: _check_otto_game_over(env, n, t, p))


# --- the pages' index tables, every index ---


def test_otto_game_over_action_table_every_index() -> None:
    """Page: 0-199 ``100*t + 4*S + k``; 200 ``no card``; 201 + E; 2713 + E (joker); 5225-5227.
    Effect E: 0 time-travel, 1+j magnetic-inversion, 5/6 revolutions, 7 meteorite,
    8 + 100*S(from) + 4*S(to) + k quantum-leap, 2508 + j alien-kidnapping; S = (rank-1)*5 + file."""
    raw = otto_game_over_v0.raw_env()  # before any reset (the page: in any state)

    def sq(s: int) -> str:
        return f"{'abcde'[s % 5]}{s // 5 + 1}"

    def effect(e: int) -> str:
        if e < 8:
            if 1 <= e <= 4:
                return f"magnetic-inversion player_{e - 1}"
            return {0: "time-travel", 5: "revolution-cw", 6: "revolution-acw", 7: "meteorite"}[e]
        if e < 2508:
            q = e - 8
            return f"quantum-leap {sq(q // 100)} {sq(q % 100 // 4)} r{q % 4}"
        return f"alien-kidnapping player_{e - 2508}"

    for i in range(5228):
        if i < 200:
            want = f"{('drawn', 'table')[i // 100]} {sq(i % 100 // 4)} r{i % 4}"
        elif i == 200:
            want = "no card"
        elif i < 2713:
            want = f"card {effect(i - 201)}"
        elif i < 5225:
            want = f"card joker as {effect(i - 2713)}"
        else:
            want = ("card infinity", "card joker as infinity", "keep infinity")[i - 5225]
        assert raw.action_to_string(i) == want
        assert raw.string_to_action(want) == i


def test_otto_octopus_action_table_every_index() -> None:
    raw = otto_octopus_v0.raw_env()
    squares = {v: k for k, v in SQ8.items()}
    for i in range(1106):
        if i < 1024:
            want = f"place {OTO_KINDS[i // 64]} {squares[i % 64]}"
        elif i < 1026:
            want = ("pass", "stop")[i - 1024]
        elif i < 1042:
            want = f"return {OTO_KINDS[i - 1026]}"
        else:
            want = f"swap {OTO_KINDS[(i - 1042) // 4]} player_{(i - 1042) % 4}"
        assert raw.action_to_string(i) == want


def test_limits_of_the_pages() -> None:
    """Otto the Octopus: ``min(max_steps, 60 * (n + 2) + n + 2 * (n - 1))`` (364 + 6 = 370 with 4
    players); Over and Out: ``max_game_length = max_plays``; Octi: ``max_turns`` None = 300 / 500 /
    1000 (read off plane 39, completed turns / max_turns)."""
    for n in (1, 2, 3, 4):
        for max_steps in (1, 150, 1000):
            game = OttoOctopusGame(num_players=n, max_steps=max_steps)
            assert game.max_game_length == min(max_steps, 60 * (n + 2) + n + 2 * (n - 1))
    assert OttoOctopusGame(num_players=4).max_game_length == 370
    for plays in (1, 77, 5000):
        assert OverAndOutGame(max_plays=plays).max_game_length == plays
    for variant, limit in (("basic", 300), ("x_fast", 500), ("x_classic", 1000)):
        env = octi_v0.env(variant=variant)
        env.reset(seed=0, options={"moves": ["prong c2 N" if variant == "basic" else "prong c3 N"]})
        assert np.isclose(env.observe("player_0")["observation"][39, 0, 0], 1 / limit)


# --- README "Rewards and episode ends" and the pages' reward sections ---


def _returns(env: Any, rng: np.random.Generator) -> tuple[dict[str, float], list[str], dict[str, Any], int]:
    total: dict[str, float] = collections.defaultdict(float)
    truncated: list[str] = []
    info: dict[str, Any] = {}
    decisions = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, inf = env.last()
        total[agent] += reward
        if term or trunc:
            if trunc:
                truncated.append(agent)
            info[agent] = dict(inf)
            env.step(None)
            continue
        decisions += 1
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return total, truncated, info, decisions


def test_fuzz_reward_formulas() -> None:
    rng = np.random.default_rng(17)
    for g in range(12):  # Over and Out: placement, truncation average, winner_only (OAO §5)
        n = int(rng.integers(2, 7))
        mode = ("placement", "winner_only")[g % 2]
        env = over_and_out_v0.env(
            num_players=n, reward_mode=mode, starting_chips=1 + g % 2, max_plays=(40, 5000)[g % 3 > 0]
        )
        env.reset(seed=g)
        total, truncated, _info, decisions = _returns(env, rng)
        assert decisions <= env.unwrapped.game.max_game_length
        got = sorted(total.values())
        m = len(truncated)
        if mode == "placement":
            placed = [-1 + 2 * (j - 1) / (n - 1) for j in range(1, n - m + 1 if m else n)]
            rest = [(n - m) / (n - 1)] * m if m else [1.0]
            assert np.allclose(got, sorted(placed + rest))
        else:
            assert np.allclose(got, sorted([-1.0] * (n - max(m, 1)) + ([0.0] * m if m else [1.0])))
    for g in range(6):  # Otto the Octopus: (n-k)/(k(n-1)) and -1/(n-1); solo final score / 100
        n = 1 + g % 4
        env = otto_octopus_v0.env(num_players=n, max_steps=(1000, 40)[g == 5])
        env.reset(seed=g)
        total, truncated, info, _ = _returns(env, rng)
        final = info["player_0"]["final_scores"]
        got = [total[f"player_{s}"] for s in range(n)]
        if truncated:
            assert got == [0.0] * n and info["player_0"]["winners"] == []
        elif n == 1:
            assert np.isclose(got[0], final[0] / 100)
        else:
            best, k = max(final), final.count(max(final))
            assert np.allclose(got, [(n - k) / (k * (n - 1)) if s == best else -1 / (n - 1) for s in final])
    for g, params in enumerate(  # OTTO Game Over: T = number of sides (spec §5)
        [
            {"num_players": 3, "target_score": 4},
            {"num_players": 4, "teams": True, "target_score": 4},
            {"num_players": 3, "episode": "match"},
            {"num_players": 4, "teams": True, "episode": "match"},
            {"num_players": 1},
            {"num_players": 2, "target_score": 60, "max_matches": 1},
        ]
    ):
        env = otto_game_over_v0.env(**params)
        env.reset(seed=g)
        total, truncated, info, _ = _returns(env, rng)
        n = params["num_players"]
        team = [s % 2 if params.get("teams") else s for s in range(n)]
        sides = len(set(team))
        got = [total[f"player_{s}"] for s in range(n)]
        inf = info["player_0"]
        if n == 1:
            assert np.isclose(got[0], max(inf["solo_score"], 0) / 32 if inf["winners"] else -1.0)
        elif truncated:
            assert got == [0.0] * n
        elif params.get("episode") == "match":
            ms = inf["match_scores"]
            assert np.allclose(got, [(ms[t] - (sum(ms) - ms[t]) / (sides - 1)) / 32 for t in team])
        else:
            k = len(inf["winners"])
            want = [
                (sides - k) / (k * (sides - 1)) if t in inf["winners"] else -1 / (sides - 1) for t in team
            ]
            assert np.allclose(got, want)


# --- the specs' component models against the engine ---


def test_spec_component_models_match_the_engine() -> None:
    # Octi §1: pods 4 / 7 (3 on bases + 4 in reserve), supply 12 / 25 per player
    for variant, supply, reserve, on_board in (
        ("basic", 12, 0, 4),
        ("x_fast", 25, 4, 3),
        ("x_classic", 25, 4, 3),
    ):
        env = octi_v0.env(variant=variant)
        env.reset(seed=0)
        snap = env.unwrapped.snapshot()
        assert snap["supply"] == [supply] * 2 and snap["reserve"] == [reserve] * 2
        assert sum(len(pods) for pods in snap["board"].values()) == 2 * on_board
    # Over and Out §1: 72 change-and-out cards of 11 kinds, Tip Top 22..66
    deck = OverAndOutGame().config.deck_counts
    assert sum(deck.values()) == 72 and list(deck) == OAO_KINDS
    env = over_and_out_v0.env(num_players=2)
    env.reset(seed=0)
    snap = env.unwrapped.snapshot()
    assert snap["tiptop"] in TIPTOP and snap["tiptop_pile"] == 4
    # OTTO Game Over §1.4/1.5: 8 designs x 4 + 4 dark = 36 tiles, 33 cards, markers 4/4/3
    env = otto_game_over_v0.env(num_players=4)
    env.reset(seed=3)
    snap = env.unwrapped.snapshot()
    tiles = collections.Counter(t.upper() for t in [*snap["tower"], *snap["tables"], *snap["discarded"]])
    assert tiles == dict.fromkeys([*DESIGNS, "DARK"], 4) and snap["board"] == {"c3": "C8/0"}
    cards = collections.Counter(snap["deck"])
    for hand in snap["hands"]:
        cards.update(hand)
    assert cards == {**dict.fromkeys(CARDS[:8], 4), "joker": 1}
    assert snap["markers"][0] == {"small": 4, "big": 4, "square": 3}
    # Otto the Octopus §1.3: the 60-tile mix
    assert dict(zip(OTO_KINDS, OTO_MIX, strict=True)) == {
        "straight": 12, "turn-in": 6, "turn-out": 6, "end": 4, "end-shell": 4, "clownfish": 2,
        "butterflyfish": 2, "jellyfish": 2, "pufferfish": 2, "starfish": 2, "seahorse": 2, "shark": 2,
        "moray": 2, "anglerfish": 2, "minnow": 3, "bubbles": 7,
    }  # fmt: skip
    spec = RULES / "otto_game_over.md"
    if spec.exists():  # the binding machine-readable block of §1.4
        block = spec.read_text(encoding="utf-8").split("Machine-readable (binding):\n```python\n")[1]
        scope: dict[str, Any] = {}
        exec(block.split("```")[0], scope)
        assert scope["DESIGNS"] == ogo_geometry.DESIGNS and scope["FRAME"] == ogo_geometry.FRAME


# --- bot measurements the pages quote, where they are cheap to repeat ---


def test_quoted_cheap_bot_measurements_repeat() -> None:
    """Over and Out's page: ``seed=1`` alone gave 0.898 / 0.874 / 0.540 at N = 2; Otto the
    Octopus's page: solo ``random`` -38.5 over 3,000 games at ``seed=0``."""
    from envs.otto_octopus.bots import BOTS as OTO_BOTS
    from envs.over_and_out.bots import BOTS as OAO_BOTS

    game = OverAndOutGame(num_players=2)
    rates = []
    for a, b in (("heuristic", "random"), ("greedy", "random"), ("heuristic", "greedy")):
        result = play_match(game, [make_bot(game, a, OAO_BOTS), make_bot(game, b, OAO_BOTS)], 500, seed=1)
        rates.append(result.wins / result.games)
    assert rates == [0.898, 0.874, 0.54]
    solo = OttoOctopusGame(num_players=1)
    result = play_match(solo, [make_bot(solo, "random", OTO_BOTS)], 3000, seed=0)
    assert round(100 * float(np.mean(result.returns)), 1) == -38.5


# --- doc findings, fixed (the docs were wrong; the code follows the spec) ---


def test_otto_game_over_reward_formula_defines_t() -> None:
    page = " ".join(_page("otto_game_over").split())
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    defines_t = re.compile(r"T\s*(=|is)\s*(the )?number of (teams|sides)|T (teams|sides)")
    assert defines_t.search(page.split("Rewards (spec §5)")[1][:400])
    assert defines_t.search(readme.split("- OTTO Game Over: at the end only")[1][:400])


def test_otto_game_over_greedy_measurement_names_its_seed() -> None:
    page = " ".join(_page("otto_game_over").split())
    sentence = page[page.index("greedy vs random, one match") :][:160]
    assert "seed" in sentence.split("250 W")[0]
