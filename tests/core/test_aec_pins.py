"""Pins from a mutation round on ``envs/core/aec.py`` and ``envs/core/arena.py``: each test
here failed on a plausible bug of the AEC adapter or of the match runner (a mutant) that the
rest of the suite let through.

The scripted games of ``tests/core/test_mutation_gaps.py`` are reused: a three-seat game whose
moves pay, knock seats out and end the game on cue, and a one-round bidding game. A game of
chance on top of the bidding game (``DealGame``) records each deal it makes and the options it
was given, so the match runner's seeding and option passing can be checked deal by deal.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pytest

from envs.core.arena import MatchResult, play_game, play_match
from envs.core.game import Game, GameState
from envs.core.registry import GAMES
from tests.core.test_mutation_gaps import BidGame, BidState, ConstBot, _raw


# ------------------------------------------------------------------ seeding
@pytest.mark.parametrize("bad", [-1, -7, 1.5, "3"])
def test_a_bad_seed_error_names_the_value_given(bad: Any) -> None:
    """The ``reset`` seed error ends with the value given (``got -1``), not only the rule:
    without it a caller passing a computed seed cannot tell which value was wrong."""
    env = _raw({})
    with pytest.raises(
        ValueError, match=rf"^seed must be None or an integer >= 0, got {re.escape(repr(bad))}$"
    ):
        env.reset(seed=bad)


def _deal(env: Any) -> str:
    from tests.core.helpers import position_json

    return position_json(env.unwrapped.state)


def test_a_seeded_reset_fixes_the_unseeded_resets_after_it() -> None:
    """Gymnasium's convention, kept by ``reset``'s docstring: ``reset()`` after ``reset(seed=s)``
    draws from the stream ``s`` started, so a run seeded once repeats episode for episode,
    whatever the env did before the seeded reset; the unseeded resets still deal new games."""
    runs = []
    for before in (0, 1, 3):
        env = GAMES["over_and_out"].env()
        for _ in range(before):
            env.reset()  # unseeded resets before the seeded one have no say
        env.reset(seed=5)
        runs.append([_deal(env)] + [(env.reset(), _deal(env))[1] for _ in range(3)])
    assert runs[0] == runs[1] == runs[2]
    assert len(set(runs[0])) == 4  # each reset deals another game
    # pinned: the episodes after reset(seed=5) are those of these seeds (runs reported at a seed
    # repeat across versions only while the stream does)
    for deal, episode_seed in zip(runs[0][1:], EPISODE_SEEDS_AFTER_5, strict=True):
        env.reset(seed=episode_seed)
        assert _deal(env) == deal


EPISODE_SEEDS_AFTER_5 = (3718111675614000522, 6950657364458267415, 293650551157291550)


@pytest.mark.parametrize("bad", [1.5, "1", None])
def test_a_bad_action_error_names_the_value_given(bad: Any) -> None:
    """The unwrapped env's ``step`` error names the range and the value given (``got 1.5``),
    so a policy returning floats or strings is found from the message alone; nothing is played."""
    env = _raw({})
    with pytest.raises(
        ValueError, match=rf"^action must be an integer index in \[0, 3\), got {re.escape(repr(bad))}$"
    ):
        env.step(bad)
    assert env.state.to_dict() == {"t": 0} and env.agent_selection == "player_0"


def test_a_position_restored_with_a_seat_out_keys_every_dict_by_the_agents_left() -> None:
    """``reset(options={"state": ...})`` of an Over and Out game with a seat knocked out: the
    seat is no agent, and ``rewards``, ``_cumulative_rewards``, ``terminations``,
    ``truncations`` and ``infos`` hold exactly the agents left, at every step to the end
    (PettingZoo's invariant; a stale key reads as an agent still in the game)."""
    env = GAMES["over_and_out"].env(num_players=5, starting_chips=1)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    while True:
        obs, _r, term, trunc, _i = env.last()
        if term or trunc:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    again = GAMES["over_and_out"].env(num_players=5, starting_chips=1)
    again.reset(options={"state": env.unwrapped.state.to_dict()})
    raw = again.unwrapped
    assert len(again.agents) == 4
    for _agent in again.agent_iter():
        for d in (raw.rewards, raw._cumulative_rewards, raw.terminations, raw.truncations, raw.infos):
            assert sorted(d) == sorted(again.agents)
        obs, _r, term, trunc, _i = again.last()
        again.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


# ------------------------------------------------------------------- spaces
def test_spaces_declare_what_observe_returns(game_name: str) -> None:
    """The README: observations are ``{"observation": float32, "action_mask": int8}``; the
    declared spaces say the same dtypes (a network or a replay buffer built from the space
    would otherwise store masks as floats), and each observation lies in its space."""
    env = GAMES[game_name].env()
    env.reset(seed=0)
    for agent in env.agents:
        space = env.observation_space(agent)
        assert space["observation"].dtype == np.float32
        assert space["action_mask"].dtype == np.int8
        obs = env.observe(agent)
        assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
        assert space.contains(obs)


# ------------------------------------------------------- render and notation
def test_render_without_a_render_mode_warns_and_returns_nothing(game_name: str) -> None:
    """Gymnasium's convention: ``render()`` on an env made without ``render_mode`` warns that
    one is needed and returns ``None`` (no text picked silently in place of a mode)."""
    env = GAMES[game_name].env()
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


def test_notation_round_trips_through_the_env_at_the_current_position(game_name: str) -> None:
    """``env.action_to_string`` / ``env.string_to_action`` after ``reset()`` read the current
    position (Octi's strings name its squares): every legal move of the first positions of a
    seeded game goes to text and back to the same index."""
    env = GAMES[game_name].env()
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(6):
        obs, _r, term, trunc, _i = env.last()
        if term or trunc:
            break
        legal = np.flatnonzero(obs["action_mask"])
        for a in legal:
            assert env.string_to_action(env.action_to_string(int(a))) == a
        env.step(int(rng.choice(legal)))


# -------------------------------------------------------------------- arena
class DealState(BidState):
    """The bidding game with a deal: one number drawn from the game's generator at the start."""

    def __init__(self, n: int, rng: np.random.Generator) -> None:
        super().__init__(n, rng)
        self.deal = int(rng.integers(2**62))


class DealGame(BidGame):
    """The bidding game of chance: records each deal and the reset options it was given."""

    name: ClassVar[str] = "deal"

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.log: list[tuple[int, dict[str, Any] | None]] = []

    def new_initial_state(self, rng: np.random.Generator, options: Mapping[str, Any] | None = None) -> Any:
        state = DealState(self.config.num_players, rng)
        self.log.append((state.deal, None if options is None else dict(options)))
        return state


class DrawBot(ConstBot):
    """Bids ``bid`` after drawing ``draws`` numbers from its generator; records the last one."""

    def __init__(self, game: Game[Any, Any], bid: int, draws: int = 1) -> None:
        super().__init__(game, bid)
        self.draws = draws
        self.drawn: list[int] = []

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        self.drawn.append(int(rng.integers(2**62, size=self.draws)[-1]))
        return super().act(state, player, rng)


def test_match_games_and_neighbouring_seeds_deal_distinct_games() -> None:
    """``play_match``: every game of a match is a new deal, and the matches at seeds s and s + 1
    share none (results are pooled over chunks at consecutive seeds: a shared deal would count
    one game twice); the same seed deals the same games again."""
    game = DealGame(num_players=2)
    bots = [ConstBot(game, 1), ConstBot(game, 1)]
    deals = []
    for seed in (0, 1, 2, 0):
        game.log.clear()
        play_match(game, bots, games=4, seed=seed)
        deals.append([d for d, _ in game.log])
    assert deals[0] == deals[3]
    assert len({d for run in deals[:3] for d in run}) == 12


def test_match_and_game_pass_the_reset_options_to_every_deal() -> None:
    """``options`` reach ``new_initial_state`` in every game of a match and in ``play_game``
    (a variant or start position silently dropped would measure the default game instead)."""
    game = DealGame(num_players=2)
    bots = [ConstBot(game, 1), ConstBot(game, 2)]
    play_match(game, bots, games=3, seed=0, options={"variant": "x"})
    play_game(game, bots, seed=0, options={"variant": "y"})
    assert [opts for _, opts in game.log] == [{"variant": "x"}] * 3 + [{"variant": "y"}]


def test_each_seat_has_its_own_generator_apart_from_the_deal() -> None:
    """``play_game``: each seat's bot draws from its own generator, none of them the deal's: a
    bot's first draw is not the deal's number, and how much one bot draws does not change what
    another draws (a shared stream would make one bot's play depend on the other's)."""
    game = DealGame(num_players=3)
    seen = []
    for draws in (1, 5):
        bots = [DrawBot(game, 1, draws), DrawBot(game, 1), DrawBot(game, 1)]
        play_game(game, bots, seed=4)
        seen.append([b.drawn[0] for b in bots])
    deal = game.log[-1][0]
    assert seen[0][1:] == seen[1][1:]
    assert len({deal, *seen[0]}) == 4  # the deal's number and each seat's first draw


def test_match_result_text_prints_its_numbers() -> None:
    """``str(MatchResult)`` (what ``examples/`` and users print): W / D / L in that order,
    the win rate (wins per game, not the score) and the mean return of ``bots[0]``."""
    res = MatchResult(games=4, wins=1, draws=2, losses=1, returns=[1.0, 0.0, 0.0, -3.0])
    assert str(res) == "4 games: 1 W / 2 D / 1 L (win rate 0.250, mean return -0.500)"
    res.truncated = 2
    assert str(res) == (
        "4 games: 1 W / 2 D / 1 L (win rate 0.250, mean return -0.500; 2 cut off at the step limit)"
    )
    assert res.win_rate == 0.25 and res.score == 0.5


def test_games_cut_off_at_the_step_limit_are_still_games() -> None:
    """``MatchResult``: a cut-off game is counted in ``games`` (and as a draw), so ``games`` is
    ``wins + draws + losses`` and the rates are per game played, cut-off ones included."""
    from envs.core.bots import RandomBot
    from envs.octi.game import OctiGame

    game = OctiGame(max_turns=4)
    res = play_match(game, [RandomBot(game), RandomBot(game)], games=3, seed=0)
    assert res.truncated == 3
    assert res.games == 3 == res.wins + res.draws + res.losses == len(res.returns)
    assert (res.win_rate, res.score) == (0.0, 0.5)


class RandomBid(ConstBot):
    """Bids a number drawn from its generator."""

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        self.seats.append(player)
        return int(rng.integers(3))


def test_a_match_at_a_seed_plays_the_same_games_as_when_its_results_were_published() -> None:
    """Published baselines (README, docs/results) name the ``play_match`` seed they were made
    at: the deals and every seat's generator are fixed by that seed, so a rerun repeats them.
    Pinned on literal values (numpy's documented ``SeedSequence`` / ``default_rng`` streams): a
    change of how games or seats are seeded would silently change every published number."""
    game = DealGame(num_players=3)
    res = play_match(game, [RandomBid(game, 0) for _ in range(3)], games=6, seed=7)
    assert res.returns == pytest.approx([-2 / 3, 1 / 3, -1.0, 4 / 3, -1.0, 2 / 3])
    assert (res.wins, res.draws, res.losses) == (2, 1, 3)
    assert [d for d, _ in game.log[:2]] == [94540387811616059, 1546205244206435711]


def test_play_game_returns_the_engines_returns_exactly() -> None:
    """``play_game`` returns each seat's final return as the engine computed it (float64):
    thirds rounded to float32 would no longer equal the returns recorded elsewhere."""
    game = BidGame(num_players=3)
    out = play_game(game, [ConstBot(game, 2), ConstBot(game, 1), ConstBot(game, 1)], seed=0)
    assert out.dtype == np.float64
    assert out.tolist() == (np.array([2.0, 1.0, 1.0]) - 4.0 / 3.0).tolist()


def test_a_numpy_seed_plays_the_games_of_the_same_python_seed() -> None:
    """``play_match(seed=np.int64(s))`` deals what ``seed=s`` deals, however large ``s``: the
    game seeds ``seed * 1_000_003 + g`` overflowed int64 above about 9.2e12 and dealt other
    games (or raised numpy's "expected non-negative integer", naming no seed)."""
    game = DealGame(num_players=2)
    bots = [RandomBid(game, 0), RandomBid(game, 0)]
    for seed in (5, 2**64 // 1_000_003 + 1, 2**62):
        runs = []
        for given in (seed, np.int64(seed) if seed < 2**63 else np.uint64(seed)):
            game.log.clear()
            res = play_match(game, bots, games=3, seed=given)
            runs.append(([d for d, _ in game.log], res.returns))
        assert runs[0] == runs[1], seed
