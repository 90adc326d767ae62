"""The core MCTS bot (``envs/core/mcts.py``): search correctness on tiny games written here
against the engine protocol, honesty about hidden information, reproducibility, the
``mcts`` bot spec, and a smoke run on every registered game that has landed."""

from __future__ import annotations

import dataclasses
import importlib.util
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest

from envs.core.bots import RandomBot, ScoringBot, make_bot
from envs.core.game import TERMINAL, Game, GameState
from envs.core.mcts import MCTSBot, _Node
from envs.core.registry import GAMES


def _landed(name: str) -> bool:
    """The game's package, env and bots modules exist (games land one by one)."""
    if importlib.util.find_spec(f"envs.{name}") is None:
        return False
    return all(importlib.util.find_spec(f"envs.{name}.{m}") is not None for m in ("env", "bots"))


LANDED = [g for g in GAMES if _landed(g)]


# --------------------------------------------------------------------------- tiny games
class _Stubs(GameState):
    """The serialising/notation half of the protocol, unused by the search."""

    def to_dict(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> GameState:
        raise ValueError("not serialisable")

    def action_to_string(self, action: int) -> str:
        return str(action)

    def string_to_action(self, text: str) -> int:
        return int(text)

    def snapshot(self) -> dict[str, Any]:
        return {}


class _TinyGame(Game[Any, Any]):
    n_players = 2
    n_actions = 2
    rewards = (-1.0, 1.0)

    @property
    def num_players(self) -> int:
        return self.n_players

    @property
    def num_actions(self) -> int:
        return self.n_actions

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (1,)

    @property
    def reward_range(self) -> tuple[float, float]:
        return self.rewards

    @property
    def max_game_length(self) -> int:
        return 100

    def observe(self, state: Any, seat: int) -> np.ndarray:
        return np.zeros(1, np.float32)

    def render_ansi(self, state: Any) -> str:
        return ""

    def render_rgb(self, state: Any) -> np.ndarray:
        return np.zeros((1, 1, 3), np.uint8)


@dataclasses.dataclass(frozen=True)
class NimConfig:
    stones: int = 10
    take: int = 3


class NimState(_Stubs):
    """Take 1..take stones (action a takes a + 1); whoever takes the last stone wins."""

    def __init__(self, stones: int, take: int, rng: np.random.Generator) -> None:
        self.stones, self.take, self.rng, self.mover, self.winner = stones, take, rng, 0, -1

    def current_player(self) -> int:
        return TERMINAL if self.stones == 0 else self.mover

    def legal_mask(self) -> np.ndarray:
        return (np.arange(self.take) < self.stones).astype(np.int8)

    def apply(self, action: int) -> None:
        if not 0 <= action < min(self.take, self.stones):
            raise ValueError(f"illegal {action}")
        self.stones -= action + 1
        if self.stones == 0:
            self.winner = self.mover
        self.mover = 1 - self.mover

    def is_terminal(self) -> bool:
        return self.stones == 0

    def returns(self) -> np.ndarray:
        if self.winner < 0:
            return np.zeros(2)
        return np.array([1.0, -1.0]) if self.winner == 0 else np.array([-1.0, 1.0])


class NimGame(_TinyGame):
    name = "nim"
    config_class = NimConfig
    n_actions = 3

    def new_initial_state(self, rng: np.random.Generator, options: Mapping[str, Any] | None = None) -> Any:
        return NimState(self.config.stones, self.config.take, rng)

    def evaluate(self, state: NimState) -> np.ndarray:
        """Exact value (stones % 4 == 0 loses for the mover): exercises the depth fallback."""
        sign = -1.0 if state.stones % (state.take + 1) == 0 else 1.0
        out = np.full(2, -sign)
        out[state.mover] = sign
        return out


@dataclasses.dataclass(frozen=True)
class TreeConfig:
    pass


# A 3-player game tree: node = (mover, [(reward vector paid by the move, next node)]).
# P0 picks A or B. After A, P1 picks between [1, 2, -3] and [-5, 1, 4]: a P1 that maximises
# its own return gives P0 +1; one that minimised P0 would give -5. After B, P0 is paid -1
# at once and moves again (a multi-step turn): +0 or -1 more. Max^n: A (1 > -1); paranoid: B.
TREE = (
    0,
    [
        ((0, 0, 0), (1, [((1, 2, -3), None), ((-5, 1, 4), None)])),
        ((-1, 0, 1), (0, [((0, 0, 0), None), ((-1, 0, 1), None)])),
    ],
)


class TreeState(_Stubs):
    def __init__(self, rng: np.random.Generator) -> None:
        self.node: Any = TREE
        self.paid = np.zeros(3)
        self.rng = rng

    def current_player(self) -> int:
        return TERMINAL if self.node is None else int(self.node[0])

    def legal_mask(self) -> np.ndarray:
        return np.array([self.node is not None] * 2, dtype=np.int8)

    def apply(self, action: int) -> None:
        reward, self.node = self.node[1][action]
        self.paid = self.paid + np.asarray(reward, dtype=np.float64)

    def is_terminal(self) -> bool:
        return self.node is None

    def returns(self) -> np.ndarray:
        return self.paid.copy()


class TreeGame(_TinyGame):
    name = "tree"
    config_class = TreeConfig
    n_players = 3
    rewards = (-5.0, 5.0)

    def new_initial_state(self, rng: np.random.Generator, options: Mapping[str, Any] | None = None) -> Any:
        return TreeState(rng)


@dataclasses.dataclass(frozen=True)
class HighCardConfig:
    cards: int = 6


class HighCardState(_Stubs):
    """Each seat holds one hidden card. P0 folds (-0.25) or bets; P1 folds (-0.5) or calls:
    the higher card wins 1, but the engine's rng upsets the result 1 time in 5."""

    def __init__(self, hands: list[int], deck: list[int], rng: np.random.Generator) -> None:
        self.hands, self.deck, self.rng = hands, deck, rng
        self.history: list[int] = []
        self.paid = np.zeros(2)

    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else len(self.history)

    def legal_mask(self) -> np.ndarray:
        return np.array([not self.is_terminal()] * 2, dtype=np.int8)

    def apply(self, action: int) -> None:
        self.history.append(action)
        if self.history == [0]:
            self.paid = np.array([-0.25, 0.25])
        elif self.history == [1, 0]:
            self.paid = np.array([0.5, -0.5])
        elif self.history == [1, 1]:
            win = 1.0 if self.hands[0] > self.hands[1] else -1.0
            if self.rng.random() < 0.2:
                win = -win
            self.paid = np.array([win, -win])

    def is_terminal(self) -> bool:
        return self.history in ([0], [1, 0], [1, 1])

    def returns(self) -> np.ndarray:
        return self.paid.copy()


class HighCardGame(_TinyGame):
    name = "high_card"
    config_class = HighCardConfig

    def new_initial_state(self, rng: np.random.Generator, options: Mapping[str, Any] | None = None) -> Any:
        cards = [int(c) for c in rng.permutation(self.config.cards)]
        return HighCardState(cards[:2], cards[2:], rng)

    def resample_hidden(self, state: Any, seat: int, rng: np.random.Generator) -> Any:
        unseen = sorted(set(range(self.config.cards)) - {state.hands[seat]})  # canonical order
        dealt = [int(c) for c in rng.permutation(unseen)]
        hands = list(state.hands)
        hands[1 - seat] = dealt[0]
        new = HighCardState(hands, dealt[1:], np.random.default_rng(int(rng.integers(2**63))))
        new.history = list(state.history)
        return new


def _search(bot: MCTSBot, state: GameState, seed: int) -> tuple[int, dict[int, tuple[int, float]]]:
    player = state.current_player()
    action = bot.act(state, player, np.random.default_rng(seed))
    root = bot.search(state, player, np.random.default_rng(seed))
    return action, bot.root_stats(root, player)


# ------------------------------------------------------------------------ search quality
@pytest.mark.parametrize("stones", [5, 6, 7, 9, 10, 11])
def test_finds_the_forced_win_in_nim(stones: int) -> None:
    game = NimGame(stones=stones)
    state = game.new_initial_state(np.random.default_rng(0))
    bot = MCTSBot(game, sims=600)
    assert bot.act(state, 0, np.random.default_rng(1)) == stones % 4 - 1


def test_depth_cap_uses_the_games_evaluation() -> None:
    game = NimGame(stones=30)
    state = game.new_initial_state(np.random.default_rng(0))
    bot = MCTSBot(game, sims=40, depth=0)  # too few sims to solve 30 stones by rollouts alone
    assert bot.act(state, 0, np.random.default_rng(3)) == 1


class NimScorer(ScoringBot):
    """Knows Nim: leaving a multiple of 4 stones scores 1."""

    def score(self, state: GameState, player: int, action: int, rng: np.random.Generator) -> float:
        assert isinstance(state, NimState)
        return float((state.stones - action - 1) % 4 == 0)


def test_prior_orders_expansion_and_biases_selection() -> None:
    game = NimGame(stones=30)
    state = game.new_initial_state(np.random.default_rng(0))
    for seed in range(5):
        bot = MCTSBot(game, sims=12, prior=NimScorer(game), bias=3.0)
        assert bot.act(state, 0, np.random.default_rng(seed)) == 1
    with pytest.raises(ValueError, match="scoring bot"):
        MCTSBot(game, prior=MCTSBot(game))


def test_each_mover_maximises_its_own_return() -> None:
    """Max^n backup with mid-game rewards, three players and a multi-step turn."""
    game = TreeGame()
    state = game.new_initial_state(np.random.default_rng(0))
    bot = MCTSBot(game, sims=300)
    assert bot.act(state, 0, np.random.default_rng(0)) == 0
    state.apply(0)
    assert bot.act(state, 1, np.random.default_rng(0)) == 0
    after_b = game.new_initial_state(np.random.default_rng(0))
    after_b.apply(1)
    assert after_b.current_player() == 0
    assert bot.act(after_b, 0, np.random.default_rng(0)) == 0


def test_bets_on_its_own_card_only() -> None:
    game = HighCardGame()
    bot = MCTSBot(game, sims=400)
    for low, high in ((0, 5), (5, 0)):
        state = HighCardState([high, low], [1, 2, 3, 4], np.random.default_rng(0))
        assert bot.act(state, 0, np.random.default_rng(0)) == (1 if high == 5 else 0)


# ---------------------------------------------------------------- honesty, determinism
def _tiny_positions() -> list[tuple[Game[Any, Any], GameState]]:
    out: list[tuple[Game[Any, Any], GameState]] = []
    for game in (NimGame(stones=9), TreeGame(), HighCardGame()):
        state = game.new_initial_state(np.random.default_rng(5))
        out.append((game, state.clone()))
        state.apply(int(np.flatnonzero(state.legal_mask())[-1]))
        if not state.is_terminal():
            out.append((game, state))
    return out


def test_reproducible_for_a_fixed_seed() -> None:
    for game, state in _tiny_positions():
        bot = MCTSBot(game, sims=80)
        assert _search(bot, state, 11) == _search(bot, state, 11)


def test_blind_to_hidden_cards_and_engine_rng() -> None:
    game = HighCardGame()
    bot = MCTSBot(game, sims=150)
    for seed in range(6):
        state = game.new_initial_state(np.random.default_rng(seed))
        for _ in range(2):  # P0, then P1 after a bet
            seat = state.current_player()
            other = game.resample_hidden(state, seat, np.random.default_rng(seed + 100))
            assert other.hands[seat] == state.hands[seat]
            assert _search(bot, state, 7) == _search(bot, other, 7)
            state.apply(1)
    # the check has teeth: the seat's own card does change the search
    a = HighCardState([5, 0], [1, 2, 3, 4], np.random.default_rng(0))
    b = HighCardState([0, 5], [1, 2, 3, 4], np.random.default_rng(0))
    assert _search(bot, a, 7) != _search(bot, b, 7)


def test_only_legal_actions_and_mover_check() -> None:
    game = NimGame(stones=2)
    state = game.new_initial_state(np.random.default_rng(0))
    bot = MCTSBot(game, sims=20)
    for seed in range(10):
        assert bot.act(state, 0, np.random.default_rng(seed)) in (0, 1)
    with pytest.raises(ValueError, match="not to move"):
        bot.act(state, 1, np.random.default_rng(0))


def test_time_budget() -> None:
    game = NimGame(stones=20)
    bot = MCTSBot(game, time=0.05)
    state = game.new_initial_state(np.random.default_rng(0))
    assert bot.act(state, 0, np.random.default_rng(0)) in (0, 1, 2)
    assert bot.last_sims >= 1 and bot.sims is None


# --------------------------------------------------------------------------- bot spec
def test_make_bot_builds_mcts_for_any_table() -> None:
    bot = make_bot(NimGame(), "mcts:sims=30,c=0.5,depth=10,epsilon=0.1", {})
    assert isinstance(bot, MCTSBot)
    assert (bot.sims, bot.c, bot.depth, bot.epsilon, bot.time) == (30, 0.5, 10, 0.1, None)
    assert make_bot(NimGame(), "mcts", {}).sims == 200  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "spec",
    [
        "mcts:sims=0",
        "mcts:sims=2.5",
        "mcts:time=-1",
        "mcts:c=x",
        "mcts:depth=None",
        "mcts:epsilon=2",
        "mcts:frobnicate=1",
        "mcts:rollout=heuristic",
        "mcts:rollout=3",
        "mcts:prior=heuristic",
        "mcts:bias=-1",
    ],
)
def test_bad_mcts_parameters_raise_value_error(spec: str) -> None:
    name = spec.split(":")[1].split("=")[0]
    with pytest.raises(ValueError, match=name):
        make_bot(NimGame(), spec, {})


def test_bad_depth_names_the_words_it_takes() -> None:
    with pytest.raises(ValueError, match=r"depth must be 'auto', 'full' or an int >= 0, got 'none'"):
        make_bot(NimGame(), "mcts:depth=none", {})


# -------------------------------------------------------------------- registered games
def _real_positions(name: str, count: int) -> list[tuple[Game[Any, Any], GameState]]:
    game: Game[Any, Any] = GAMES[name].game_class()()
    rng = np.random.default_rng(0)
    state = game.new_initial_state(np.random.default_rng(1))
    first = state.clone()
    out: list[tuple[Game[Any, Any], GameState]] = []
    for step in range(count * 7):
        if state.is_terminal():
            break
        if step % 7 == 3:
            out.append((game, state.clone()))
        legal = np.flatnonzero(state.legal_mask())
        state.apply(int(legal[rng.integers(legal.size)]))
    if not out:  # a game over in under four moves (a contributor's Kuhn poker): its first position
        out.append((game, first))
    return out


@pytest.mark.parametrize("name", LANDED)
@pytest.mark.parametrize("rollout", ["random", "heuristic"])
def test_smoke_on_registered_game(name: str, rollout: str) -> None:
    for game, state in _real_positions(name, 3):
        budget = "sims=12,depth=40" if rollout == "random" else "sims=4,depth=6"  # bot rollouts are slow
        bot = make_bot(game, f"mcts:{budget},rollout={rollout}", GAMES[name].bots())
        player = state.current_player()
        action = bot.act(state, player, np.random.default_rng(0))
        assert state.legal_mask()[action] == 1


@pytest.mark.parametrize("name", LANDED)
def test_blind_on_registered_game(name: str) -> None:
    """A world the seat cannot tell apart (hidden deal and engine rng re-drawn) changes nothing."""
    for game, state in _real_positions(name, 3):
        seat = state.current_player()
        other = game.resample_hidden(state, seat, np.random.default_rng(42))
        # the bot only ever sees resample_hidden's worlds: those must not depend on the hidden deal
        worlds = [game.resample_hidden(s, seat, np.random.default_rng(7)).to_dict() for s in (state, other)]
        diff = sorted(k for k in worlds[0] if worlds[0][k] != worlds[1].get(k))
        assert not diff, f"{name}: resample_hidden output depends on hidden {diff} (sort before shuffling)"
        bot = MCTSBot(game, sims=16, depth=30)
        assert _search(bot, state, 3) == _search(bot, other, 3)


@pytest.mark.parametrize("name", LANDED)
def test_blind_with_the_games_tuned_defaults(name: str) -> None:
    """The settings ``mcts`` uses by default in each game (its prior and rollout bots
    included) are just as blind."""
    for game, state in _real_positions(name, 2):
        seat = state.current_player()
        other = game.resample_hidden(state, seat, np.random.default_rng(42))
        bot = make_bot(game, "mcts:sims=12", GAMES[name].bots())
        assert isinstance(bot, MCTSBot)
        assert _search(bot, state, 5) == _search(bot, other, 5)


# ------------------------------------------------------------------ per-game defaults
class _TunedNim(NimGame):
    mcts_defaults = {"sims": 50, "c": 0.9, "depth": 0}


def test_game_defaults_apply_and_spec_parameters_win() -> None:
    game = _TunedNim(stones=9)
    bot = make_bot(game, "mcts", {})
    assert isinstance(bot, MCTSBot)
    assert (bot.sims, bot.c, bot.depth, bot.time) == (50, 0.9, 0, None)
    assert bot.params["rollout"] == "random"  # not tuned: the core default
    bot = make_bot(game, "mcts:c=0.2,depth=full", {})
    assert (bot.sims, bot.c, bot.depth) == (50, 0.2, None)  # type: ignore[attr-defined]
    bot = make_bot(game, "mcts:time=0.01", {})  # a budget in the spec replaces the tuned budget
    assert (bot.sims, bot.time) == (None, 0.01)  # type: ignore[attr-defined]


def test_inert_rollout_settings_are_accepted_with_a_warning() -> None:
    """With ``depth=0`` no rollout is played: a ``rollout`` or ``epsilon`` given beside it is
    accepted (a sweep over depth x rollout stays valid) but said to do nothing; given with a
    ``depth`` >= 1, or not given at all, nothing is said."""
    game = _TunedNim(stones=9)  # tuned depth=0
    with pytest.warns(UserWarning, match="rollout has no effect with depth=0 .*tuned default") as made:
        make_bot(game, "mcts:rollout=random", {})
    with pytest.warns(UserWarning, match="rollout and epsilon have no effect with depth=0 \\(given") as built:
        MCTSBot(NimGame(stones=9), rollout="random", epsilon=0.5, depth=0)
    # each warning names the caller's line (here), not make_bot's or the constructor's
    assert [w.filename for w in (*made, *built)] == [__file__, __file__]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MCTSBot(game)
        MCTSBot(game, rollout=RandomBot(game), epsilon=0.5, depth=1)
        MCTSBot(NimGame(stones=9), rollout="random")  # the core default depth is "auto"
    # epsilon with uniform rollouts, and bias without a prior, change nothing either: said
    with pytest.warns(
        UserWarning, match=r"epsilon \(rollout=random: the rollouts are uniform already\) has no"
    ):
        MCTSBot(game, rollout="random", epsilon=0.5, depth=1)
    with pytest.warns(UserWarning, match=r"bias \(no prior to weigh: give prior=heuristic\) has no effect"):
        MCTSBot(NimGame(stones=9), bias=5.0)


def test_mcts_builds_its_rollout_and_prior_from_the_table_it_is_given() -> None:
    """``make_bot(game, "mcts:prior=P,rollout=R", bots)``: P and R come from ``bots`` (over the
    game's registered table), as a plain ``make_bot(game, "P", bots)`` does."""
    from envs.octi.bots import HeuristicBot
    from envs.octi.game import OctiGame

    class Mine(HeuristicBot):
        name = "mine"

    game = OctiGame()
    table = {**GAMES["octi"].bots(), "mine": Mine, "heuristic": Mine}
    bot = make_bot(game, "mcts:prior=mine,rollout=heuristic,depth=1", table)
    assert isinstance(bot, MCTSBot) and type(bot.prior_bot) is Mine and type(bot.rollout_bot) is Mine
    with pytest.raises(ValueError, match=r"prior must be 'none' or a scoring bot .*'mine'"):
        make_bot(game, "mcts:prior=nope", table)
    assert type(make_bot(game, "mcts:prior=heuristic", GAMES["octi"].bots()).prior_bot) is HeuristicBot
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['_bots'\] for bot 'mcts'"):
        make_bot(game, "mcts:_bots=1", table)


def test_bots_name_a_finished_game_a_bad_seat_and_a_bad_rng() -> None:
    """Every bot, mcts included: a finished game first, then a seat that is no int or not the
    mover's, then an rng that is no numpy Generator, each a ``ValueError`` saying so."""
    from envs.octi.game import OctiGame

    game = OctiGame()
    state = game.new_initial_state(np.random.default_rng(0))
    rng = np.random.default_rng(0)
    for spec in ("random", "greedy", "heuristic", "mcts:sims=5"):
        bot = make_bot(game, spec, GAMES["octi"].bots())
        for seat in (0.0, "0", True):
            with pytest.raises(ValueError, match=r"player must be a seat index \(an int\)"):
                bot.act(state, seat, rng)  # type: ignore[arg-type]
        for bad in (0, None, np.random.RandomState(0)):
            with pytest.raises(ValueError, match="rng must be a numpy Generator"):
                bot.act(state, 0, bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="is not to move"):
            bot.act(state, 1, rng)
        over = state.clone()
        while not over.is_terminal():
            over.apply(int(np.flatnonzero(over.legal_mask())[0]))
        with pytest.raises(ValueError, match="^no legal action: the game is over$"):
            bot.act(over, 0, rng)


def test_bad_game_defaults_are_reported() -> None:
    class Broken(NimGame):
        mcts_defaults = {"simz": 5}

    with pytest.raises(ValueError, match="mcts_defaults"):
        MCTSBot(Broken())


@pytest.mark.parametrize("name", LANDED)
def test_registered_defaults_are_valid(name: str) -> None:
    game: Game[Any, Any] = GAMES[name].game_class()()
    bot = make_bot(game, "mcts", GAMES[name].bots())
    assert isinstance(bot, MCTSBot)
    assert set(bot.params) >= set(getattr(game, "mcts_defaults", {}) or {})


def test_progressive_widening_admits_the_priors_best_moves_first() -> None:
    """With ``widen`` a node visited n times considers only its ceil(w * sqrt(n + 1)) best
    moves by the prior: with w small the root never tries the prior's worst move."""
    game = NimGame(stones=30)
    state = game.new_initial_state(np.random.default_rng(0))

    class Ranked(ScoringBot):  # prefers taking 1, then 2, then 3 stones
        def score(self, state: GameState, player: int, action: int, rng: np.random.Generator) -> float:
            return -float(action)

    bot = MCTSBot(game, sims=3, prior=Ranked(game), widen=1.0)
    root = bot.search(state, 0, np.random.default_rng(0))
    assert set(bot.root_stats(root, 0)) == {0, 1}  # ceil(sqrt(n + 1)) <= 2 for n < 3
    plain = MCTSBot(game, sims=3, prior=Ranked(game))
    assert set(plain.root_stats(plain.search(state, 0, np.random.default_rng(0)), 0)) == {0, 1, 2}
    with pytest.raises(ValueError, match="widen needs a prior"):
        MCTSBot(game, widen=1.0)
    with pytest.raises(ValueError, match="widen"):
        MCTSBot(game, prior=Ranked(game), widen=-1.0)


# ----------------------------------------------------------------- availability counts
def test_root_children_count_every_simulation_since_their_creation() -> None:
    """Availability (Cowling, Powley & Whitehouse 2012): an edge's ``avail`` grows each time
    its parent is visited with the edge legal, expansion visits included. At a perfect-
    information root with 3 legal moves, created in simulations 0, 1, 2 of 50, they are
    available 50, 49 and 48 times."""
    game = NimGame(stones=10)
    state = game.new_initial_state(np.random.default_rng(0))
    bot = MCTSBot(game, sims=50, depth="full")
    root = bot.search(state, 0, np.random.default_rng(3))
    assert sorted(child.avail for child in root.children.values()) == [48, 49, 50]
    assert sum(child.visits for child in root.children.values()) == 50 == root.visits


def test_ucb_explores_by_availability_not_by_parent_visits() -> None:
    """The exploration term of an edge is ``c * sqrt(log(avail) / visits)``: an edge legal in
    only 3 of the parent's 100 visits (a rare determinization) gets little exploration credit
    for the 97 visits it could not have been chosen in."""
    game = NimGame(stones=2)  # moves 0 and 1 legal for player 0
    world = game.new_initial_state(np.random.default_rng(0))
    bot = MCTSBot(game, sims=10, c=0.3)
    node = _Node()
    node.visits = 100
    often, rare = _Node(), _Node()
    node.children.update({0: often, 1: rare})
    often.visits, often.total, often.avail = 10, 5.0, 100  # mean 0.5, +0.3*sqrt(ln 101 / 10)
    rare.visits, rare.total, rare.avail = 2, 0.8, 3  # mean 0.4, +0.3*sqrt(ln 4 / 2) = 0.65 < 0.70
    child, action, expanded = bot._select(node, world, 0, np.random.default_rng(0))
    assert (action, expanded, child is often) == (0, False, True)
    assert (often.avail, rare.avail) == (101, 4)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("mcts:c=nan", "c must be a finite positive float"),
        ("mcts:bias=nan", "bias must be a finite non-negative float"),
        ("mcts:time=nan", "time must be a finite positive float"),
        ("mcts:time=inf", "time must be a finite positive float"),
        ("mcts:epsilon=nan", r"epsilon must be a number in \[0, 1\]"),
        ("mcts:prior=foo", r"prior must be 'none' or a scoring bot .*\['none', 'greedy', 'heuristic'\]"),
        ("mcts:prior=random", r"prior must be 'none' or a scoring bot"),
        ("mcts:sims=3,sims=5", "bot parameter 'sims' given twice"),
    ],
)
def test_a_bad_mcts_spec_is_refused_at_once(spec: str, message: str) -> None:
    """A non-finite number (which used to hang ``act`` with ``time=inf`` or fail mid-search),
    a prior that is no scoring bot (``random`` was silently no prior) and a repeated key are
    ``ValueError`` when the bot is made, naming the parameter and what it allows."""
    from envs.core.registry import get_game

    entry = get_game("over_and_out")
    with pytest.raises(ValueError, match=message):
        make_bot(entry.game_class()(num_players=2), spec, dict(entry.bots()))


def test_spec_name_is_trimmed_and_params_report_the_budget_in_force() -> None:
    from envs.core.registry import get_game

    entry = get_game("over_and_out")
    bot = make_bot(entry.game_class()(num_players=2), " mcts :c=0.5", dict(entry.bots()))
    assert isinstance(bot, MCTSBot) and bot.params["sims"] == 200 and bot.params["c"] == 0.5


def test_params_report_numbers_as_read() -> None:
    """``sims=1e3`` runs 1,000 simulations, and ``params`` (what logs and reports show) says
    the int 1000, not the float the spec string parsed to."""
    from envs.core.registry import get_game

    entry = get_game("over_and_out")
    bot = make_bot(entry.game_class()(num_players=2), "mcts:sims=1e3,c=1", dict(entry.bots()))
    assert isinstance(bot, MCTSBot) and bot.sims == 1000
    assert type(bot.params["sims"]) is int and bot.params["sims"] == 1000
    assert type(bot.params["c"]) is float and bot.params["time"] is None
