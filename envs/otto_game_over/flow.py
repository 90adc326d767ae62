"""Turns, matches and the game (spec §2-§5): everything between two decisions.

Each function takes the engine ``State`` and mutates it; a decision phase (CARD, KIDNAP,
PLACE, INFINITY) is left set when a function returns, or OVER at the end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from envs.core.game import note_event as note
from envs.otto_game_over import actions as A
from envs.otto_game_over.geometry import (
    AROUND,
    C8,
    CENTRE,
    DARK,
    FAR0,
    MARKERS_PER_TEAM,
    NEAR0,
    NEIGHBOUR_BITS,
    NO_TILE,
    TILE_VALUE,
    VERTEX_OF,
    closed_shapes,
)
from envs.otto_game_over.geometry import FAR as FAR_OF
from envs.otto_game_over.geometry import NEAR as NEAR_OF

if TYPE_CHECKING:
    from envs.otto_game_over.rules import State

CARD, KIDNAP, PLACE, INFINITY, OVER = range(5)
PATH_TILES: tuple[int, ...] = tuple(d for d in range(8) for _ in range(4))
MAX_MATCH_SCORE = 32  # 24 in markers + 8 (spec §5)


# ------------------------------------------------------------------ board edits
def set_tile(st: State, sq: int, design: int, k: int) -> None:
    st.design[sq] = design
    st.rot[sq] = k
    st.occ |= 1 << sq
    st.frontier = (st.frontier | NEIGHBOUR_BITS[sq]) & ~st.occ
    for s in AROUND[sq]:
        st.sigs[s] = -1
    st.xn = None
    planes = st.board_planes  # observation planes kept up to date here (encode.observe)
    planes[sq] = 0.0
    planes[(1 + design) * 25 + sq] = 1.0
    planes[(9 + k) * 25 + sq] = 1.0
    dr = 4 * design + k
    for c in range(4):
        slot = 4 * VERTEX_OF[sq][c] + c
        st.near[slot] = NEAR_OF[dr][c]
        st.far[slot] = FAR_OF[dr][c]


def clear_tile(st: State, sq: int) -> None:
    st.design[sq] = NO_TILE
    st.rot[sq] = 0
    st.occ &= ~(1 << sq)
    st.frontier = 0
    for s in range(25):
        if st.occ >> s & 1:
            st.frontier |= NEIGHBOUR_BITS[s]
    st.frontier &= ~st.occ
    for s in AROUND[sq]:
        st.sigs[s] = -1
    st.xn = None
    planes = st.board_planes
    planes[sq::25] = 0.0
    planes[sq] = 1.0
    for c in range(4):
        slot = 4 * VERTEX_OF[sq][c] + c
        st.near[slot] = 0
        st.far[slot] = 0


def clear_board(st: State) -> None:
    st.design = [NO_TILE] * 25
    st.rot = [0] * 25
    st.occ = 0  # bit s set = square s holds a tile
    st.frontier = 0  # bit s set = square s is empty and next to a tile (OGO-01)
    st.sigs = [-1] * 25
    st.xn = None
    st.board_planes = np.zeros(13 * 25, dtype=np.float32)
    st.board_planes[:25] = 1.0
    st.near = list(NEAR0)
    st.far = list(FAR0)
    set_tile(st, CENTRE, C8, 0)  # the printed centre, design C8 r0 (spec §1.1)
    st.shapes = {}
    st.supply = [list(MARKERS_PER_TEAM) for _ in range(st.n_teams)]


def clear_game(st: State) -> None:
    """Every field at its start-of-game value (no match dealt yet)."""
    n, t = st.n, st.n_teams
    clear_board(st)
    st.tower, st.discarded, st.deck = [], [], []
    st.tables = [NO_TILE] * n
    st.hands = [[] for _ in range(n)]
    st.drawn = NO_TILE
    st.removed = [0] * 9
    st.voided = 0
    st.totals = [0] * t
    st.match_scores = [0] * t
    st.matches = 0
    st.tiebreak = False
    st.to_move = st.actor = 0
    st.phase = PLACE
    st.tt_pending = st.extra_turn = False
    st.kidnapped = -1
    st.inf_creator, st.inf_pos = -1, 0
    st.saved = [False] * t
    st.solo_eights = 0
    st.winners = []
    st.truncated = False
    st.final = [0.0] * n


def new_game(st: State) -> None:
    """Spec §2: shuffle the cards once per game, then deal the first match."""
    clear_game(st)
    c = st.config
    if c.secret_cards and not c.blind and not c.solo:
        st.deck = [int(x) for x in st.rng.permutation(A.DECK)]
    setup_match(st, tiebreak=False)


def setup_match(st: State, tiebreak: bool) -> None:
    """Spec §2.3-2.6: markers, tower, table tiles and cards, first player."""
    st.tiebreak = tiebreak
    clear_board(st)
    st.discarded = []
    st.drawn = NO_TILE
    st.kidnapped = -1
    st.tt_pending = False
    tiles = PATH_TILES if st.config.solo else PATH_TILES + (DARK,) * 4
    st.tower = [int(x) for x in st.rng.permutation(tiles)]
    st.tables = [NO_TILE] * st.n
    if tiebreak:  # OGO-33: held cards are void, never shown
        note(st, "void", sum(len(h) for h in st.hands))
        st.voided += sum(len(h) for h in st.hands)
        st.hands = [[] for _ in range(st.n)]
    if not st.blind_match:
        aside: list[int] = []
        for seat in range(st.n):
            tile = st.tower.pop()
            while tile == DARK:  # a starting tile may not be dark (§2.4)
                aside.append(tile)
                tile = st.tower.pop()
            st.tables[seat] = tile
            if st.cards_on and st.deck:
                st.hands[seat].append(st.deck.pop())
                st.hands[seat].sort()
        if aside:
            st.tower = [int(x) for x in st.rng.permutation(st.tower + aside)]
    first = first_player(st)
    note(st, "match", tiebreak, first)
    start_turn(st, first, False)


def first_player(st: State) -> int:
    """§2.5 / OGO-54: leading team(s), then highest table-tile value, then lowest seat."""
    best = max(st.totals)
    seats = [s for s in range(st.n) if st.totals[st.team[s]] == best]
    return max(seats, key=lambda s: (TILE_VALUE[st.tables[s]] if st.tables[s] >= 0 else 0, -s))


# ------------------------------------------------------------------------ turns
def start_turn(st: State, seat: int, extra: bool) -> None:
    """Begin ``seat``'s turn and run it until a decision (or the match end)."""
    while True:
        st.to_move = st.actor = seat
        st.extra_turn = extra
        st.drawn = NO_TILE
        claim(st, st.team[seat])  # OGO-22: the first thing of every turn (spec §3)
        if not st.tower and not any(0 <= t < DARK for t in st.tables):  # OGO-48c / OGO-49
            finish_match(st, "exhausted")
            return
        if st.cards_on and not extra and st.hands[seat]:  # OGO-30/31
            st.phase = CARD
            return
        if draw(st):
            return
        seat, extra = next_turn(st)


def next_turn(st: State) -> tuple[int, bool]:
    if st.tt_pending:  # OGO-34
        st.tt_pending = False
        note(st, "extra", st.to_move)
        return st.to_move, True
    return (st.to_move + 1) % st.n, False


def end_turn(st: State) -> None:
    start_turn(st, *next_turn(st))


def proceed(st: State) -> None:
    """After the CARD phase: draw and place, or skip."""
    if not draw(st):
        end_turn(st)


def claim(st: State, team: int) -> None:
    """OGO-21/22: put a matching marker on each unclaimed shape, oldest first."""
    supply = st.supply[team]
    for key, owner in st.shapes.items():
        if owner < 0 and supply[key[0]] > 0:
            st.shapes[key] = team
            supply[key[0]] -= 1
            note(st, "claim", st.to_move, key)


def draw(st: State) -> bool:
    """Draw the tower top (OGO-10, 15-18, 53). True when a PLACE decision follows."""
    seat = st.to_move
    if not st.tower:  # OGO-18
        if 0 <= st.tables[seat] < DARK:
            st.phase = PLACE
            return True
        note(st, "empty", seat)
        return False
    tile = st.tower.pop()
    table = st.tables[seat]
    if tile == DARK:
        if st.blind_match:  # OGO-53: skip, discard
            st.discarded.append(tile)
            note(st, "dark_blind", seat)
            return False
        if table == DARK:  # OGO-16: both discarded, new table tile and card, skip
            st.discarded += [DARK, DARK]
            st.tables[seat] = st.tower.pop() if st.tower else NO_TILE
            card = bool(st.cards_on and st.deck)
            if card:
                st.hands[seat].append(st.deck.pop())
                st.hands[seat].sort()
            note(st, "dark_pair", seat, st.tables[seat] != NO_TILE, card)
            return False
        if table == NO_TILE:  # OGO-17
            st.tables[seat] = DARK
            note(st, "dark_table", seat)
            return False
    st.drawn = tile
    st.phase = PLACE
    return True


def place(st: State, action: int) -> None:
    """Apply a legal placement ``100*t + 4*square + k`` (OGO-10), then score it."""
    t, rest = divmod(action, 100)
    sq, k = divmod(rest, 4)
    seat = st.to_move
    if t == 0:
        design = st.drawn
    else:
        design = st.tables[seat]
        st.tables[seat] = st.drawn  # the unplayed tile is the table tile (OGO-10/15)
    st.drawn = NO_TILE
    set_tile(st, sq, design, k)
    # the mask already knows whether this placement closes anything: trace only if so
    if st.closes_something(t, sq, k) and resolve_closures(st, seat, sq):
        return
    if min(st.design) >= 0:  # OGO-48b
        finish_match(st, "full")
    else:
        end_turn(st)


def resolve_closures(st: State, seat: int, sq: int) -> bool:
    """Score what the tile on ``sq`` closed (OGO-08/19/20/24/25). True if the match ended."""
    shapes, eights = closed_shapes(st.design, st.rot, sq, st.config.eight_lobes != "round")
    if eights and not st.config.solo:
        eight_closed(st, seat)
        return True
    st.solo_eights += len(eights)  # OGO-26: an 8 in solo does not end the match
    if eights:
        note(st, "solo_eight", len(eights))
    award(st, st.team[seat], shapes)
    if st.config.solo and st.solo_eights and not any(st.supply[0]):  # OGO-61
        end_solo(st, victory=True)
        return True
    return False


def award(st: State, team: int, shapes: list[tuple[int, int]]) -> None:
    """OGO-19/20/21: markers in vertex order; shapes without a marker stay unclaimed."""
    for shape, v in sorted(shapes):
        if st.supply[team][shape] > 0:
            st.supply[team][shape] -= 1
            st.shapes[(shape, v)] = team
        else:
            st.shapes[(shape, v)] = -1
        note(st, "award", team, shape, v, st.shapes[(shape, v)] >= 0)


# ------------------------------------------------------------------- the 8
def eight_closed(st: State, creator: int) -> None:
    """OGO-24/45/46/55: the match ends; Infinity decisions, or the tie-break is won."""
    note(st, "eight", creator)
    if st.tiebreak:
        st.match_scores = [8 if t == st.team[creator] else 0 for t in range(st.n_teams)]
        end_game(st, [st.team[creator]])
        return
    st.inf_creator, st.inf_pos = creator, 0
    st.saved = [False] * st.n_teams
    if st.cards_on:
        infinity_next(st)
    else:
        finish_match(st, "eight")


def infinity_next(st: State) -> None:
    """OGO-46: visit the seats from the creator on; ask those who may save points."""
    while st.inf_pos < st.n:
        seat = (st.inf_creator + st.inf_pos) % st.n
        team = st.team[seat]
        if st.hands[seat] and not st.saved[team] and st.marker_points(team) >= 1:
            st.phase = INFINITY
            st.actor = seat
            return
        st.inf_pos += 1
    finish_match(st, "eight")


def answer_infinity(st: State, action: int) -> None:
    seat = st.actor
    if action != A.KEEP_INFINITY:
        card = A.INFINITY if action == A.CARD_INFINITY else A.JOKER
        st.hands[seat].remove(card)
        st.removed[card] += 1
        st.saved[st.team[seat]] = True
    st.inf_pos += 1
    infinity_next(st)


# ------------------------------------------------------------ match and game end
def match_scores(st: State, reason: str) -> list[int]:
    """OGO-24/45/50/51: the match score of each team."""
    teams = range(st.n_teams)
    points = [st.marker_points(t) for t in teams]
    if reason == "eight":
        creator = st.team[st.inf_creator]
        return [(8 if t == creator else 0) + (points[t] if st.saved[t] else 0) for t in teams]
    if reason == "full":
        for t in teams:
            if points[t] == 0:  # OGO-51 silly match
                points[t] = sum(TILE_VALUE[x] for s, x in enumerate(st.tables) if st.team[s] == t and x >= 0)
    return points


def finish_match(st: State, reason: str) -> None:
    """The match is over: totals, then the next match, a tie-break, or the game end."""
    st.tt_pending = False  # OGO-34: the match ended, a Time Travel extra turn is void
    if st.config.solo:
        end_solo(st, victory=False)
        return
    scores = match_scores(st, reason)
    st.match_scores = scores
    st.totals = [a + b for a, b in zip(st.totals, scores, strict=True)]
    note(st, "match_over", reason, scores, st.totals)
    if st.config.episode == "match":
        end_with_match_rewards(st, scores)
        return
    best = max(st.totals)
    top = [t for t in range(st.n_teams) if st.totals[t] == best]
    if st.tiebreak:  # OGO-55/56
        end_game(st, top if len(top) == 1 else tile_rounds(st, top))
        return
    st.matches += 1
    if best >= st.config.target_score:  # OGO-52/53
        if len(top) == 1:
            end_game(st, top)
        else:
            setup_match(st, tiebreak=True)
    elif st.matches >= st.config.max_matches:  # §5 truncation
        note(st, "truncated", st.matches)
        st.truncated = True
        st.final = [0.0] * st.n
        st.phase = OVER
    else:
        setup_match(st, tiebreak=False)


def tile_rounds(st: State, top: list[int]) -> list[int]:
    """OGO-56: tied teams draw one tile each per round; strictly highest wins."""
    while len(st.tower) >= len(top):
        drawn = [st.tower.pop() for _ in top]
        note(st, "tile_round", top, drawn)
        st.discarded += drawn
        values = [TILE_VALUE[x] for x in drawn]
        best = max(values)
        if values.count(best) == 1:
            return [top[values.index(best)]]
    return top


def end_game(st: State, winners: list[int]) -> None:
    """§5 'game' rewards: winners (T-k)/(k(T-1)), losers -1/(T-1)."""
    t, k = st.n_teams, len(winners)
    st.winners = sorted(winners)
    team_reward = [(t - k) / (k * (t - 1)) if x in winners else -1 / (t - 1) for x in range(t)]
    st.final = [team_reward[st.team[s]] for s in range(st.n)]
    st.phase = OVER


def end_with_match_rewards(st: State, scores: list[int]) -> None:
    """§5 'match' rewards: (own score - mean of the others) / 32."""
    t = st.n_teams
    total = sum(scores)
    team_reward = [(scores[x] - (total - scores[x]) / (t - 1)) / MAX_MATCH_SCORE for x in range(t)]
    best = max(scores)
    st.winners = [x for x in range(t) if scores[x] == best]
    st.final = [team_reward[st.team[s]] for s in range(st.n)]
    st.phase = OVER


def solo_score(st: State) -> int:
    """OGO-62 on the state's board: :func:`victory_score` of its empty slots and unmarked shapes."""
    empty = sum(1 for d in st.design if d < 0)
    unmarked = sum(1 for owner in st.shapes.values() if owner < 0)
    return victory_score(empty, unmarked)


def victory_score(empty: int, unmarked: int) -> int:
    """OGO-62: 24 + 8 + 2 per empty slot - 1 per closed shape without a marker."""
    return 24 + 8 + 2 * empty - unmarked


def end_solo(st: State, victory: bool) -> None:
    """OGO-61/62: victory pays max(score, 0)/32, defeat -1."""
    note(st, "solo", victory)
    if victory:
        score = solo_score(st)
        st.match_scores = [score]
        st.winners = [0]
        st.final = [max(score, 0) / MAX_MATCH_SCORE]
    else:
        st.match_scores = [0]
        st.final = [-1.0]
    st.phase = OVER
