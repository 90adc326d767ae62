"""The position schema: ``reset(options={"position": {...}})``, ``snapshot()``, ``to_dict``.

A position is a JSON dict; every key is optional (defaults in brackets)::

    board         {"d3": "E12/0", ...}  square -> "<design>/<k>"; c3 is always C8/0   [{}]
    tables        per seat: design id, "DARK" or null                                  [null]
    drawn         the tile drawn this turn (phase "place" only)                        [null]
    tower         tile names, top first                                                [[]]
    tower_rest    true: the rest of the set (4 per design + 4 DARK, minus every tile
                  listed anywhere, floored at 0) is shuffled in below `tower`           [true]
    discarded     tiles out of this match (dark pairs, meteorite, tie-break draws)     [[]]
    hands         per seat: card names (secret)                                        [[]]
    deck          card names, top first (secret)                                       [[]]
    removed_cards {"meteorite": 1, ...} cards shown and out of the game                [{}]
    voided_cards  cards voided unseen when a tie-break match began                     [0]
    markers       per team {"small": n, "big": n, "square": n} left in supply; a kind
                  not given: 4/4/3 minus the team's shapes of that kind
                                                        [4/4/3 minus the team's shapes]
    shapes        {"small@vf1": 0, "square@ve4": null, ...} closed shapes in the order
                  they closed -> owning team, or null = unclaimed (OGO-21); a shape
                  closed on the board but left out is no shape (nobody claims it)      [{}]
    totals        per team game total                                                  [0]
    match_scores  per team score of the last finished match                            [0]
    matches       regular matches finished                                             [0]
    tiebreak      this is the tie-break blind match (OGO-53)                           [false]
    to_move       seat whose turn it is                                                [0]
    phase         "start" (run the start of to_move's turn: claims, CARD or draw),
                  "card", "kidnap", "place", "infinity"                              ["start"]
    actor         the deciding seat (differs from to_move only in "infinity")       [to_move]
    time_travel   a Time Travel was played this turn                                   [false]
    extra_turn    this turn is a Time-Travel extra turn                                [false]
    kidnapped     the card to play in phase "kidnap"                                   [null]
    infinity      {"creator": seat, "visited": n, "saved": [team flags]} (phase infinity)
    solo_eights   8s closed so far in a solo match                                     [0]

Names (tiles, cards, shapes and vertices, marker kinds, phases) are read in any case, as the
notation is; ``snapshot()`` writes them as above. The hands are empty in a tie-break match
(OGO-33 voids the cards held when it begins: count them in ``voided_cards``).
Team = seat in free-for-all, seat % 2 in 2v2. ``snapshot()`` writes every key (with
``tower_rest: false``), so a snapshot fed back reproduces the position exactly.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from envs.core.config import make_config
from envs.core.game import rng_from_dict, rng_to_dict
from envs.otto_game_over import actions as A
from envs.otto_game_over import flow
from envs.otto_game_over.geometry import (
    CENTRE,
    DARK,
    DESIGN_IDS,
    MARKERS_PER_TEAM,
    NO_TILE,
    SHAPE_NAMES,
    SQUARE_NAMES,
    SQUARE_OF_NAME,
    TILE_NAMES,
    TILE_OF_NAME,
    VERTEX_NAMES,
    VERTEX_OF_NAME,
    B,
    Q,
    S,
)

if TYPE_CHECKING:
    from envs.otto_game_over.rules import Config, State

PHASES = ("card", "kidnap", "place", "infinity", "over")
KEYS = frozenset(
    [
        "board",
        "tables",
        "drawn",
        "tower",
        "tower_rest",
        "discarded",
        "hands",
        "deck",
        "removed_cards",
        "voided_cards",
        "markers",
        "shapes",
        "totals",
        "match_scores",
        "matches",
        "tiebreak",
        "to_move",
        "phase",
        "actor",
        "time_travel",
        "extra_turn",
        "kidnapped",
        "infinity",
        "solo_eights",
        "result",
    ]
)


# ------------------------------------------------------------------ validators
def _int(v: Any, name: str, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise ValueError(f"position[{name!r}] must be an int in [{lo}, {hi}], got {v!r}")
    return v


def _bool(v: Any, name: str) -> bool:
    if not isinstance(v, bool):
        raise ValueError(f"position[{name!r}] must be true or false, got {v!r}")
    return v


def _list(v: Any, name: str, length: int | None = None) -> list[Any]:
    if not isinstance(v, list) or (length is not None and len(v) != length):
        want = "a list" if length is None else f"a list of {length}"
        raise ValueError(f"position[{name!r}] must be {want}, got {v!r}")
    return v


def _dict(v: Any, name: str | None) -> dict[str, Any]:
    """``v`` as a dict with string keys: the position itself (``name`` ``None``) or one entry."""
    if not isinstance(v, dict) or not all(isinstance(k, str) for k in v):
        where = "position" if name is None else f"position[{name!r}]"
        raise ValueError(f"{where} must be a dict with string keys, got {v!r}")
    return v


def _tile(v: Any, name: str, allow_none: bool = True) -> int:
    if v is None and allow_none:
        return NO_TILE
    if not isinstance(v, str) or v.upper() not in TILE_OF_NAME:
        raise ValueError(f"position[{name!r}]: tile must be one of {list(TILE_NAMES)} or null, got {v!r}")
    return TILE_OF_NAME[v.upper()]


def _card(v: Any, name: str) -> int:
    if not isinstance(v, str) or v.lower() not in A.CARD_OF_NAME:
        raise ValueError(f"position[{name!r}]: card must be one of {list(A.CARD_NAMES)}, got {v!r}")
    return A.CARD_OF_NAME[v.lower()]


def _lower_keys(d: dict[str, Any], name: str) -> dict[str, Any]:
    """``d`` with its keys in lower case (names are read in any case, as the notation is);
    two keys that differ only in case are an error."""
    out = {k.lower(): v for k, v in d.items()}
    if len(out) != len(d):
        raise ValueError(f"position[{name!r}] names a key twice (in different cases): {sorted(d)}")
    return out


def _seat_list(v: Any, name: str, n: int, fn: Any) -> list[Any]:
    return [fn(x, f"{name}[{i}]") for i, x in enumerate(_list(v, name, n))]


# ------------------------------------------------------------------- loading
def load(config: Config, rng: np.random.Generator, pos: Any, allow_over: bool = False) -> State:
    """Build a state from a position dict (``ValueError`` naming the problem)."""
    from envs.otto_game_over.rules import State

    pos = _dict(pos, None)
    unknown = sorted(set(pos) - KEYS)
    if unknown:
        raise ValueError(f"unknown position key(s) {unknown}; allowed: {sorted(KEYS)}")
    st = State(config, rng)
    n, t = st.n, st.n_teams
    _load_board(st, pos.get("board", {}))
    st.tables = _seat_list(pos.get("tables", [None] * n), "tables", n, _tile)
    st.drawn = _tile(pos.get("drawn"), "drawn")
    st.tower = [_tile(x, "tower", False) for x in _list(pos.get("tower", []), "tower")][::-1]
    st.discarded = [_tile(x, "discarded", False) for x in _list(pos.get("discarded", []), "discarded")]
    if _bool(pos.get("tower_rest", True), "tower_rest"):
        _fill_tower(st)
    st.hands = [
        sorted(_card(c, "hands") for c in _list(h, f"hands[{i}]"))
        for i, h in enumerate(_list(pos.get("hands", [[]] * n), "hands", n))
    ]
    st.deck = [_card(c, "deck") for c in _list(pos.get("deck", []), "deck")][::-1]
    removed = _lower_keys(_dict(pos.get("removed_cards", {}), "removed_cards"), "removed_cards")
    unknown = sorted(set(removed) - set(A.CARD_NAMES))
    if unknown:
        raise ValueError(
            f"position['removed_cards'] keys must be card names {list(A.CARD_NAMES)}, got {unknown}"
        )
    st.removed = [_int(removed.get(name, 0), "removed_cards", 0, 33) for name in A.CARD_NAMES]
    st.voided = _int(pos.get("voided_cards", 0), "voided_cards", 0, 33)
    _load_shapes(st, pos.get("shapes", {}))
    _load_markers(st, pos.get("markers"))
    st.totals = _seat_list(pos.get("totals", [0] * t), "totals", t, lambda v, m: _int(v, m, 0, 10**6))
    st.match_scores = _seat_list(
        pos.get("match_scores", [0] * t), "match_scores", t, lambda v, m: _int(v, m, 0, 10**6)
    )
    st.matches = _int(pos.get("matches", 0), "matches", 0, 10**6)
    st.tiebreak = _bool(pos.get("tiebreak", False), "tiebreak")
    st.to_move = _int(pos.get("to_move", 0), "to_move", 0, n - 1)
    st.actor = _int(pos.get("actor", st.to_move), "actor", 0, n - 1)
    st.tt_pending = _bool(pos.get("time_travel", False), "time_travel")
    st.extra_turn = _bool(pos.get("extra_turn", False), "extra_turn")
    kid = pos.get("kidnapped")
    st.kidnapped = -1 if kid is None else _card(kid, "kidnapped")
    st.solo_eights = _int(pos.get("solo_eights", 0), "solo_eights", 0, 100)
    _check_variant(st)
    _load_phase(st, pos, allow_over)
    return st


def _load_board(st: State, board: Any) -> None:
    for name, text in _lower_keys(_dict(board, "board"), "board").items():
        if name not in SQUARE_OF_NAME:
            raise ValueError(f"position['board']: unknown square {name!r}; squares are a1..e5")
        parts = text.split("/") if isinstance(text, str) else []
        if len(parts) != 2 or parts[0].upper() not in TILE_OF_NAME or parts[1] not in ("0", "1", "2", "3"):
            raise ValueError(f"position['board'][{name!r}] must be '<design>/<k>' like 'E12/1', got {text!r}")
        d = TILE_OF_NAME[parts[0].upper()]
        if d == DARK:
            raise ValueError(f"position['board'][{name!r}]: a dark tile can never be placed (OGO-03)")
        sq = SQUARE_OF_NAME[name]
        if sq == CENTRE and (d, parts[1]) != (3, "0"):
            raise ValueError("position['board']['c3'] is the fixed centre and must be 'C8/0'")
        flow.set_tile(st, sq, d, int(parts[1]))


def _fill_tower(st: State) -> None:
    counts = [4] * 8 + [0 if st.config.solo else 4]
    used = [d for s, d in enumerate(st.design) if d >= 0 and s != CENTRE]
    used += [x for x in (*st.tables, st.drawn, *st.tower, *st.discarded) if x >= 0]
    for x in used:
        counts[x] = max(0, counts[x] - 1)
    rest = [x for x in range(9) for _ in range(counts[x])]
    st.tower = [int(x) for x in st.rng.permutation(rest)] + st.tower  # listed tiles stay on top


def _load_shapes(st: State, shapes: Any) -> None:
    st.shapes = {}
    for key, owner in _lower_keys(_dict(shapes, "shapes"), "shapes").items():
        name, _, vname = key.partition("@")
        if name not in SHAPE_NAMES or vname not in VERTEX_OF_NAME:
            raise ValueError(
                f"position['shapes'] key must be like 'small@vf1' (small/big/square), got {key!r}"
            )
        shape, v = SHAPE_NAMES.index(name), VERTEX_OF_NAME[vname]
        if owner is not None:
            _int(owner, f"shapes[{key!r}]", 0, st.n_teams - 1)
        slots = st.far[4 * v : 4 * v + 4] if shape == 1 else st.near[4 * v : 4 * v + 4]
        if any(k != (S, B, Q)[shape] for k in slots):
            raise ValueError(f"position['shapes']: {key} is not a closed {name} on this board")
        st.shapes[(shape, v)] = -1 if owner is None else owner


def _load_markers(st: State, markers: Any) -> None:
    """A team's supply: the counts given, and for a kind not given the full count (4/4/3)
    minus the team's shapes of that kind (an error if the team owns more of them)."""
    owned = [[0] * len(SHAPE_NAMES) for _ in range(st.n_teams)]
    for (shape, _v), owner in st.shapes.items():
        if owner >= 0:
            owned[owner][shape] += 1
    given: list[Mapping[str, Any]] = [{}] * st.n_teams
    if markers is not None:
        given = [
            _lower_keys(_dict(m, f"markers[{i}]"), f"markers[{i}]")
            for i, m in enumerate(_list(markers, "markers", st.n_teams))
        ]
    st.supply = []
    for i, m in enumerate(given):
        if set(m) - set(SHAPE_NAMES):
            raise ValueError(f"position['markers'][{i}] keys must be small/big/square, got {sorted(m)}")
        row = []
        for k, (nm, hi) in enumerate(zip(SHAPE_NAMES, MARKERS_PER_TEAM, strict=True)):
            if nm in m:
                row.append(_int(m[nm], f"markers[{i}].{nm}", 0, hi))
            elif owned[i][k] > hi:
                raise ValueError(f"team {i} owns {owned[i][k]} {nm} shapes but has only {hi} {nm} markers")
            else:
                row.append(hi - owned[i][k])
        st.supply.append(row)


def _check_variant(st: State) -> None:
    if st.blind_match and any(x != NO_TILE for x in st.tables):
        raise ValueError("position['tables'] must be all null in a blind or solo match")
    no_cards = not st.config.secret_cards or st.config.blind or st.config.solo
    if no_cards and (any(st.hands) or st.deck):
        raise ValueError("position['hands'] and ['deck'] must be empty when no cards are in play")
    c = st.config
    if st.tiebreak and (c.solo or c.episode == "match"):  # §6: one match, never a tie-break
        raise ValueError("position['tiebreak'] needs episode 'game' and 2 or more players (§6, OGO-53)")
    if st.solo_eights and not c.solo:  # OGO-24/26: outside solo an 8 ends the match at once
        raise ValueError("position['solo_eights'] counts the 8s of a solo match: it must be 0 here")
    if st.tt_pending and st.extra_turn:  # OGO-30: no card in a Time-Travel extra turn
        raise ValueError("position['time_travel'] cannot be set in a Time-Travel extra turn (OGO-30)")
    if st.tiebreak and any(st.hands):  # OGO-33/53
        raise ValueError(
            "position['hands'] must be empty in the tie-break match: the cards held when it "
            "begins are void (OGO-33); count them in 'voided_cards'"
        )


def _load_phase(st: State, pos: Mapping[str, Any], allow_over: bool) -> None:
    phase = pos.get("phase", "start")
    phase = phase.lower() if isinstance(phase, str) else phase
    if phase not in ("start", *PHASES):
        raise ValueError(f"position['phase'] must be one of {['start', *PHASES]}, got {phase!r}")
    inf = pos.get("infinity")
    if st.drawn != NO_TILE and phase != "place":  # OGO-10: drawn when the placement begins
        raise ValueError(f"position['drawn'] needs phase 'place', got phase {phase!r}")
    if phase == "over":
        if not allow_over:
            raise ValueError("position['phase'] 'over': a finished game cannot be set up")
        _load_result(st, pos.get("result"))
        return
    if pos.get("result") is not None:
        raise ValueError("position['result'] belongs to phase 'over' only")
    if st.tt_pending and phase not in ("place", "infinity"):  # OGO-30: the turn's card comes first
        raise ValueError(
            f"position['time_travel'] is set only after the turn's card, in phase 'place' or "
            f"'infinity', got phase {phase!r} (OGO-30)"
        )
    if (st.kidnapped >= 0) != (phase == "kidnap") or (inf is not None) != (phase == "infinity"):
        raise ValueError("position['kidnapped'] / ['infinity'] are set exactly in their own phase")
    if phase != "infinity" and st.actor != st.to_move:
        raise ValueError("position['actor'] differs from 'to_move' only in phase 'infinity'")
    if phase == "start":
        flow.start_turn(st, st.to_move, st.extra_turn)
        return
    st.phase = PHASES.index(phase)
    if phase == "infinity":
        inf = _dict(inf, "infinity")
        st.inf_creator = _int(inf.get("creator"), "infinity.creator", 0, st.n - 1)
        st.inf_pos = _int(inf.get("visited"), "infinity.visited", 0, st.n - 1)
        st.saved = _seat_list(inf.get("saved"), "infinity.saved", st.n_teams, _bool)
        if st.actor != (st.inf_creator + st.inf_pos) % st.n:
            raise ValueError("position['actor'] must be the seat the infinity phase is visiting")
    if phase != "place" and not st.cards_on:
        raise ValueError(f"phase {phase!r} needs secret cards in play")
    if phase in ("card", "kidnap") and st.extra_turn:  # OGO-30: no card in an extra turn
        raise ValueError(
            f"phase {phase!r} cannot occur in a Time-Travel extra turn (position['extra_turn'], OGO-30)"
        )
    if not st.legal_mask().any():
        raise ValueError(f"no legal action in this position (phase {phase!r})")


def _load_result(st: State, result: Any) -> None:
    res = _dict(result, "result")
    winners = _list(res.get("winners"), "result.winners")
    st.winners = [_int(w, "result.winners", 0, st.n_teams - 1) for w in winners]
    rets = _list(res.get("returns"), "result.returns", st.n)
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and -1 <= x <= 3 for x in rets):
        raise ValueError(f"position['result']['returns'] must be numbers in [-1, 3], got {rets!r}")
    st.final = [float(x) for x in rets]
    st.truncated = _bool(res.get("truncated"), "result.truncated")
    st.phase = flow.OVER


# ------------------------------------------------------------------- dumping
def dump(st: State) -> dict[str, Any]:
    """The full position in the schema above (``snapshot()``)."""

    def tile(x: int) -> str | None:
        return None if x == NO_TILE else TILE_NAMES[x]

    pos: dict[str, Any] = {
        "board": {SQUARE_NAMES[s]: f"{DESIGN_IDS[d]}/{st.rot[s]}" for s, d in enumerate(st.design) if d >= 0},
        "tables": [tile(x) for x in st.tables],
        "drawn": tile(st.drawn),
        "tower": [TILE_NAMES[x] for x in reversed(st.tower)],
        "tower_rest": False,
        "discarded": [TILE_NAMES[x] for x in st.discarded],
        "hands": [[A.CARD_NAMES[c] for c in h] for h in st.hands],
        "deck": [A.CARD_NAMES[c] for c in reversed(st.deck)],
        "removed_cards": {A.CARD_NAMES[k]: c for k, c in enumerate(st.removed) if c},
        "voided_cards": st.voided,
        "markers": [dict(zip(SHAPE_NAMES, s, strict=True)) for s in st.supply],
        "shapes": {
            f"{SHAPE_NAMES[s]}@{VERTEX_NAMES[v]}": (None if o < 0 else o) for (s, v), o in st.shapes.items()
        },
        "totals": list(st.totals),
        "match_scores": list(st.match_scores),
        "matches": st.matches,
        "tiebreak": st.tiebreak,
        "to_move": st.to_move,
        "phase": PHASES[st.phase],
        "actor": st.actor,
        "time_travel": st.tt_pending,
        "extra_turn": st.extra_turn,
        "kidnapped": None if st.kidnapped < 0 else A.CARD_NAMES[st.kidnapped],
        "infinity": None,
        "solo_eights": st.solo_eights,
    }
    if st.phase == flow.INFINITY:
        pos["infinity"] = {"creator": st.inf_creator, "visited": st.inf_pos, "saved": list(st.saved)}
    if st.phase == flow.OVER:
        pos["result"] = {"winners": list(st.winners), "returns": list(st.final), "truncated": st.truncated}
    return pos


def state_to_dict(st: State) -> dict[str, Any]:
    return {"config": dataclasses.asdict(st.config), "position": dump(st), "rng": rng_to_dict(st.rng)}


def state_from_dict(d: Any) -> State:
    from envs.otto_game_over.rules import Config

    if not isinstance(d, Mapping):
        raise ValueError(f"a state dict is expected, got {type(d).__name__}")
    missing = {"config", "position", "rng"} - set(d)
    if missing:
        raise ValueError(f"state dict lacks {sorted(missing)}")
    if not isinstance(d["config"], Mapping) or not isinstance(d["rng"], Mapping):
        raise ValueError("state dict: 'config' and 'rng' must be dicts")
    try:
        config = make_config(Config, d["config"])
    except TypeError as exc:
        raise ValueError(f"state dict: bad config: {exc}") from exc
    return load(config, rng_from_dict(d["rng"]), d["position"], allow_over=True)
