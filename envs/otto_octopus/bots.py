"""Scripted baselines for Otto the Octopus: ``random``, ``greedy``, ``heuristic``.

Both scoring bots read only what their seat sees at the table: the ocean, the scores,
hand and pile sizes, and their own hand. Scores of a placement are computed from the
board (``Ocean.points``), so no simulation (and no re-dealing of hidden tiles) is needed.
"""

from __future__ import annotations

import numpy as np

from envs.core.bots import BotFactory, RandomBot, ScoringBot
from envs.core.game import GameState
from envs.otto_octopus import board as B
from envs.otto_octopus.rules import PASS, RETURN_BASE, STOP, SWAP_BASE, State

# rough worth of holding a tile (what it usually scores later), for swap / return choices
KEEP_VALUE: tuple[float, ...] = (
    1.2, 1.2, 1.2, 4.0, 6.0,  # straight, turn-in, turn-out, end, end-shell
    2.0, 2.0, 2.5, 1.5, 3.2,  # clownfish, butterflyfish, jellyfish, pufferfish, starfish
    2.2, 2.0, 2.0, 3.2, 2.0, 0.3,  # seahorse, shark, moray, anglerfish, minnow, bubbles
)  # fmt: skip
CORAL_SQUARES = tuple(sorted(B.CORAL))


def immediate_gain(st: State, player: int, kind: int, sq: int) -> float:
    """My points for the placement minus the mean points it costs each opponent (shark)."""
    gain = float(st.ocean.points(kind, sq))
    if kind == B.SHARK and st.n > 1 and not st.config.simplified:
        gain += 2.0
    return gain


class GreedyBot(ScoringBot):
    """Best immediate outcome: the most points now (the shark counts its -2 to others);
    it places a 0-point tile rather than pass, since a tile in hand costs 1 at the end."""

    name = "greedy"
    game_name = "otto_octopus"

    def score(self, state: GameState, player: int, action: int, rng: np.random.Generator) -> float:
        assert isinstance(state, State)
        if action < PASS:
            return immediate_gain(state, player, action >> 6, action & 63)
        if action in (PASS, STOP):
            return -0.5
        kind = action - RETURN_BASE if action < SWAP_BASE else (action - SWAP_BASE) >> 2
        return -KEEP_VALUE[kind]  # give away / return the least useful tile


class HeuristicBot(ScoringBot):
    """Rules of thumb of a good player (see :meth:`score`)."""

    name = "heuristic"
    game_name = "otto_octopus"

    def score(self, state: GameState, player: int, action: int, rng: np.random.Generator) -> float:
        assert isinstance(state, State)
        st = state
        if action == PASS:
            # keep a tile only while the pile is long; late in the game every tile held costs 1
            return -1.0 if st.pile else -2.0
        if action == STOP:
            return -0.6
        if action >= RETURN_BASE:
            kind = action - RETURN_BASE if action < SWAP_BASE else (action - SWAP_BASE) >> 2
            bonus = 0.0
            if action >= SWAP_BASE:  # take from the leader: it hurts the player to beat
                j = (action - SWAP_BASE) & 3
                bonus = 0.01 * (st.scores[j] + len(st.hands[j]))
            return -KEEP_VALUE[kind] + bonus
        return self._placement(st, player, action >> 6, action & 63)

    def _placement(self, st: State, player: int, kind: int, sq: int) -> float:
        value = immediate_gain(st, player, kind, sq)
        ocean, n = st.ocean, st.n
        effects = not st.config.simplified and n > 1
        late = len(st.pile) < 2 * n
        if kind in B.END_KINDS:
            arm_len = ocean.arm_len[ocean.tip_arm[sq]]
            # an end on a short arm wastes it: wait for the arm to grow unless time runs out
            if arm_len < 3 and not late and sq not in B.CORAL:
                value -= (3 - arm_len) * (2.0 if kind == B.END_SHELL else 1.2)
        elif kind in B.ARM_KINDS and n > 1:  # solo: the outlook cost 3 points a game (doc page)
            value += self._arm_outlook(st, player, sq, kind)
        elif kind in (B.STARFISH, B.ANGLERFISH) and sq not in B.CORAL and not late:
            value -= 0.8 if self._coral_open(st, kind) else 0.0  # 3 points now or 6 on coral later
        if effects:
            if kind == B.JELLYFISH:
                value += 2.5 if n == 2 else 1.5  # an opponent's whole turn
            elif kind == B.CLOWNFISH:
                value += 1.5
            elif kind == B.BUTTERFLYFISH:
                value += 2.0 if len(st.hands[player]) > 1 else 0.2
        return value

    def _coral_open(self, st: State, kind: int) -> bool:
        """A coral corner may still take this fish (free, touching a tile)."""
        free = st.ocean.nonarm_free() & ~st.ocean.moray_block
        return any(free & B.BIT[c] for c in CORAL_SQUARES)

    def _arm_outlook(self, st: State, player: int, sq: int, kind: int) -> float:
        """Grow arms I can finish; steer them toward coral; do not hand a long arm to the next player."""
        ocean = st.ocean
        arm = ocean.tip_arm[sq] if ocean.tip_arm[sq] >= 0 else B.ARM_OF_START[sq]
        heading = (ocean.arm_heading[arm] + B.TURN_OF_KIND[kind]) % 4
        tip = B.STEP[sq][heading]
        hand = st.hands[player]
        holds_end = (
            any(k in B.END_KINDS for k in hand if k != kind) or hand.count(kind) > 1 and kind in B.END_KINDS
        )
        value = 0.0
        if tip >= 0:
            dist = min(abs(tip % 8 - c % 8) + abs(tip // 8 - c // 8) for c in CORAL_SQUARES)
            value += 0.15 * (6 - dist) / 6
            if tip in B.CORAL:
                value += 1.0 if holds_end else -0.5
        if holds_end:
            value += 0.3 * ocean.arm_len[arm] / 4  # my end will collect this arm
        return value


BOTS: dict[str, BotFactory] = {"random": RandomBot, "greedy": GreedyBot, "heuristic": HeuristicBot}
