"""Legal actions and transitions of the within-turn phase machine (spec §3).

Functions over a :class:`envs.octi.rules.State`; hot paths read the state's lists into
locals and use the precomputed ``neigh`` / ``SET_BITS`` / ``FREE_BITS`` tables.
Egocentric direction ``e = d ^ E`` with ``E = 4 * seat`` ((d + 4) % 8 == d ^ 4).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from envs.octi.actions import (
    ADD,
    ENTER,
    JUMP,
    KIND_NAMES,
    LIBERATE,
    REPOSITION,
    SPARE,
    STEP,
    STOP,
    WITH,
    WITHOUT,
)
from envs.octi.actions import (
    CAPTURE as A_CAPTURE,
)
from envs.octi.board import DIR_NAMES, FREE_BITS, SET_BITS

if TYPE_CHECKING:
    from envs.octi.rules import State

RESERVE = -1
CAPTURED = -2
MAIN, DECLARE, CHAIN, MOVER, CAPTURE, OVER = range(6)
PHASE_NAMES = ("MAIN", "DECLARE", "CHAIN", "MOVER", "CAPTURE", "OVER")
POPCOUNT = tuple(bin(m).count("1") for m in range(256))


# ------------------------------------------------------------------ legal actions
def main_actions(st: State, s: int) -> list[int]:
    """Every legal MAIN action of seat ``s`` (no movers: B' is the whole board)."""
    P = st.P
    lay = st.lay
    E = 4 * s
    pos, prongs, cnt, col = st.pos, st.prongs, st.cnt, st.col
    neigh = st.geo.neigh
    x = st.x
    stp, jmp = lay.step, lay.jump
    can_add = st.supply[s] > 0
    out: list[int] = []
    for p in range(P):
        g = s * P + p
        sq = pos[g]
        if sq < 0:
            continue
        m = prongs[g]
        b = 8 * p
        if can_add:  # OCT-12, OCT-13
            out += [b + (d ^ E) for d in FREE_BITS[m]]
        nb = neigh[sq]
        for d in SET_BITS[m]:  # OCT-07: only prong directions
            n = nb[d]
            if n < 0:  # OCT-06
                continue
            if cnt[n] == 0:  # OCT-14
                out.append(stp + b + (d ^ E))
            else:
                if x and col[n] == s:  # OCT-15: stacking on own pods
                    out.append(stp + b + (d ^ E))
                land = neigh[n][d]
                if land >= 0 and cnt[land] == 0:  # OCT-17
                    out.append(jmp + b + (d ^ E))
        if lay.reposition:  # OCT-49
            r = lay.repo + 64 * p
            out += [r + 8 * (f ^ E) + (t ^ E) for f in SET_BITS[m] for t in FREE_BITS[m]]
    if x:
        out += _entries(st, s)
    return out


def _entries(st: State, s: int) -> list[int]:
    """ENTER (OCT-36, OCT-38) and LIBERATE (OCT-40) actions of seat ``s``."""
    P, K = st.P, st.K
    mine = st.pos[s * P : (s + 1) * P]
    cnt, col = st.cnt, st.col
    ego = st.geo.ego_bases[s]
    out: list[int] = []
    if RESERVE in mine:
        for b, sq in enumerate(ego):
            ok = cnt[sq] == 0 or col[sq] == s if b < K else st.classic and cnt[sq] > 0 and col[sq] == s
            if ok:
                out.append(st.lay.enter + b)
    if st.classic and CAPTURED in mine and any(sq in st.geo.enemy_base_set[s] for sq in mine):
        out += [st.lay.liberate + b for b, sq in enumerate(ego) if cnt[sq] > 0 and col[sq] == s]
    return out


def first_hops(st: State, p: int) -> list[int]:
    """Steps and jumps of own pod ``p`` from where it stands, on B', nothing jumped yet (OCT-35)."""
    s = st.to_move
    E = 4 * s
    g = s * st.P + p
    neigh = st.geo.neigh
    cnt, col = st.cnt, st.col
    b = 8 * p
    out: list[int] = []
    nb = neigh[st.pos[g]]
    for d in SET_BITS[st.prongs[g]]:
        n = nb[d]
        if n < 0:
            continue
        c = cnt[n]
        if c == 0 or (st.x and col[n] == s):
            out.append(st.lay.step + b + (d ^ E))
        if c:
            land = neigh[n][d]
            if land >= 0 and cnt[land] == 0:
                out.append(st.lay.jump + b + (d ^ E))
    return out


def further_jumps(st: State, p: int) -> list[int]:
    """Jumps continuing a series of own pod ``p`` (OCT-18, OCT-19: no square twice per pod)."""
    s = st.to_move
    E = 4 * s
    g = s * st.P + p
    neigh = st.geo.neigh
    cnt = st.cnt
    done = st.jumped[p]
    out: list[int] = []
    nb = neigh[st.pos[g]]
    for d in SET_BITS[st.prongs[g]]:
        n = nb[d]
        if n < 0 or done >> n & 1 or cnt[n] == 0:
            continue
        land = neigh[n][d]
        if land >= 0 and cnt[land] == 0:
            out.append(st.lay.jump + 8 * p + (d ^ E))
    return out


def legal_actions(st: State) -> list[int]:
    """The legal actions of the current phase (unsorted)."""
    ph = st.phase
    if ph == MAIN:
        return main_actions(st, st.to_move)
    single = st.lay.single
    if ph == CHAIN:
        return further_jumps(st, st.active) + [single + STOP - WITH]  # OCT-20, OCT-21
    if ph == MOVER:
        return first_hops(st, st.active)
    if ph == DECLARE:
        return [single, single + WITHOUT - WITH]
    if ph == CAPTURE:
        return [single + A_CAPTURE - WITH, single + SPARE - WITH]
    return []


# ------------------------------------------------------------------- transitions
def apply_action(st: State, a: int) -> None:
    """Execute a legal action ``a`` (already checked) and advance the phase machine."""
    kind, x, y, z = st.lay.decode[a]
    s = st.to_move
    E = 4 * s
    g = s * st.P + x
    if kind in (STEP, JUMP):
        first = st.phase == MAIN
        if first:
            start_move(st, x)
        elif st.phase == MOVER:
            st.pending.pop(0)
        hop(st, x, y ^ E, kind == JUMP)
        follow_up(st, x, first)
    elif kind == ADD:
        st.prongs[g] |= 1 << (y ^ E)
        st.supply[s] -= 1
        end_turn(st)
    elif kind in (ENTER, LIBERATE):
        where = RESERVE if kind == ENTER else CAPTURED
        p = st.pos[s * st.P : (s + 1) * st.P].index(where)  # lowest id (spec §1)
        sq = st.geo.ego_bases[s][x]
        st.pos[s * st.P + p] = sq
        st.prongs[s * st.P + p] = 0
        st.cnt[sq] += 1
        st.col[sq] = s
        end_turn(st)
    elif kind == REPOSITION:
        st.prongs[g] = (st.prongs[g] & ~(1 << (y ^ E))) | (1 << (z ^ E))
        end_turn(st)
    else:
        _apply_single(st, kind)


def _apply_single(st: State, kind: int) -> None:
    if kind in (WITH, WITHOUT):
        q = st.dqueue.pop(0)
        if kind == WITH:  # the pod leaves B' now: later hops may land on O (OCT-33)
            st.movers.append(q)
            st.pending.append(q)
            st.cnt[st.origin] -= 1
        if not st.dqueue:
            after_declare(st, st.movers[0])
    elif kind == STOP:
        pod_done(st, st.active)
    else:
        head = st.cqueue.pop(0)
        if kind == A_CAPTURE:
            st.cmarks.append(head)
        if not st.cqueue:
            end_turn(st)


def start_move(st: State, p: int) -> None:
    """Own pod ``p`` makes the turn's first hop: it becomes the first mover and leaves B'."""
    sq = st.pos[st.to_move * st.P + p]
    st.origin = sq
    st.movers = [p]
    st.cnt[sq] -= 1


def hop(st: State, p: int, d: int, jump: bool) -> None:
    """Move mover ``p`` one step or one jump in absolute direction ``d``."""
    g = st.to_move * st.P + p
    n = st.geo.neigh[st.pos[g]][d]
    if jump:
        bit = 1 << n
        st.jumped[p] |= bit
        if n not in st.jorder:
            st.jorder.append(n)
        n = st.geo.neigh[n][d]
    st.pos[g] = n
    st.col[n] = st.to_move
    st.last_jump = jump
    st.active = p


def follow_up(st: State, p: int, first: bool) -> None:
    """FOLLOW-UP of spec §3 after a hop by mover ``p``."""
    s = st.to_move
    if not st.classic and st.pos[s * st.P + p] in st.geo.enemy_base_set[s]:
        st.finish(s)  # OCT-42: landing on an enemy base wins at once
        return
    if first and st.x:  # OCT-34: the other pods on O with a legal first hop are asked
        P, origin = st.P, st.origin
        queue = [q for q in range(P) if q != p and st.pos[s * P + q] == origin and first_hops(st, q)]
        if queue:
            st.dqueue = queue
            st.phase = DECLARE
            return
    after_declare(st, p)


def after_declare(st: State, p: int) -> None:
    """FOLLOW-UP step 3: continue the series if a further jump exists, else the pod is done."""
    st.active = p
    if st.last_jump and further_jumps(st, p):
        st.phase = CHAIN
        return
    pod_done(st, p)


def pod_done(st: State, p: int) -> None:
    """FOLLOW-UP step 4."""
    st.finished.append(p)
    if st.pending:
        st.phase = MOVER
        st.active = st.pending[0]
        st.last_jump = False
        return
    if st.jorder:
        movers = {st.to_move * st.P + q for q in st.movers}
        pos = st.pos
        # OCT-28, OCT-29: every B' pod on a jumped square, by first jump then ascending id
        st.cqueue = [g for sq in st.jorder for g in range(len(pos)) if pos[g] == sq and g not in movers]
        if st.cqueue:
            st.phase = CAPTURE
            st.active = -1
            return
    end_turn(st)


def end_turn(st: State) -> None:
    """END of spec §3 (binding order)."""
    s, P = st.to_move, st.P
    pos, cnt = st.pos, st.cnt
    for q in st.movers:
        cnt[pos[s * P + q]] += 1
    for g in st.cmarks:  # OCT-24, OCT-26, OCT-27, OCT-51
        cnt[pos[g]] -= 1
        st.supply[s] += POPCOUNT[st.prongs[g]]
        st.prongs[g] = 0
        own = g // P == s
        pos[g] = RESERVE if (own and st.x and st.config.capture_to_reserve) else CAPTURED
    if st.movers:  # prong / enter / liberate / reposition leave no turn state behind
        st._clear_turn()
    st.phase = MAIN
    st.turn += 1
    if st.classic and all(cnt[b] > 0 and st.col[b] == s for b in st.geo.bases[1 - s]):
        st.finish(s)  # OCT-43
        return
    o = 1 - s
    acts = main_actions(st, o)
    if not acts:
        st.finish(s)  # OCT-44
        return
    if st.config.repetition_draw:  # OCT-52
        key = position_key(st, o)
        n = st.history.get(key, 0) + 1
        st.history[key] = n
        if n >= 3:
            st.finish(None)
            return
    if st.turn >= st.config.turn_limit:  # OCT-45
        st.finish(None, truncated=True)
        return
    st.to_move = o
    st._legal = acts


def position_key(st: State, to_move: int) -> str:
    """Repetition key: pods (square, colour, prongs; ids ignored), supplies, pools, side to move."""
    P = st.P
    pods = sorted((sq, g // P, st.prongs[g]) for g, sq in enumerate(st.pos) if sq >= 0)
    pools = [st.count(seat, w) for seat in (0, 1) for w in (RESERVE, CAPTURED)]
    return f"{pods}|{st.supply}|{pools}|{to_move}"


def describe_index(st: State, a: int) -> str:
    """Human description of an index (for error messages), whatever its legality."""
    if not 0 <= a < st.lay.size:
        return f"out of range 0..{st.lay.size - 1}"
    kind, x, y, z = st.lay.decode[a]
    if kind in (ADD, STEP, JUMP):
        return f"{KIND_NAMES[kind]} pod id {x} egocentric {DIR_NAMES[y]}"
    if kind == REPOSITION:
        return f"reposition pod id {x} egocentric {DIR_NAMES[y]}->{DIR_NAMES[z]}"
    if kind in (ENTER, LIBERATE):
        return f"{KIND_NAMES[kind]} egocentric base {x}"
    return KIND_NAMES[kind]
