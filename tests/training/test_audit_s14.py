"""Audit (s14) of the training layer: 2v2 team rewards after the learner is eliminated, and
solo pairings in tournaments."""

from __future__ import annotations

import numpy as np

from envs.core.bots import Bot, RandomBot
from envs.core.game import GameState
from tests.training.toy_game import ToyGame
from training.players import OpponentPool
from training.single_agent import SingleAgentEnv, outcome
from training.tournament import bradley_terry_elo, play_pairing


class AddOne(Bot):
    name = "add1"

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        return 0


class AddThree(Bot):
    name = "add3"

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        return 2


def _pool(bot: Bot) -> OpponentPool:
    pool = OpponentPool()
    pool.add(bot.name, bot.name, bot)
    return pool


def test_2v2_partner_plays_on_after_the_learner_is_eliminated() -> None:
    """2v2: the learner busts first, its partner outlasts both opponents. The team's reward
    (the partner's win, shared by the toy's team rule) is the learner's too: the episode must
    run on (the partner moving inside step) and end with a draw (0), not a loss at -0.5."""
    game = ToyGame(num_players=4, teams=True, target=6)
    env = SingleAgentEnv(game, _pool(AddThree(game)), seat=0, partner=AddOne(game))
    env.reset(seed=0, options={"total": 5})
    _obs, reward, terminated, truncated, info = env.step(0)  # 5 -> 6: the learner is out first
    assert env.state.is_terminal()
    final = float(env.state.returns()[0])
    assert final == 0.0
    assert (reward, terminated, truncated) == (final, True, False)
    assert info["return"] == final and info["outcome"] == "draw"


def test_2v2_rewards_sum_to_the_teams_final_return() -> None:
    """Random 2v2 games: whenever the learner's episode ends, nothing the game still pays
    can change the learner's return (the rest of the game is played out to check)."""
    game = ToyGame(num_players=4, teams=True)
    env = SingleAgentEnv(game, _pool(RandomBot(game)))
    rng = np.random.default_rng(0)
    for ep in range(60):
        env.reset(seed=ep)
        total, done = 0.0, False
        while not done:
            _o, r, term, trunc, info = env.step(int(rng.integers(3)))
            total += r
            done = term or trunc
        state = env.state.clone()
        while not state.is_terminal():
            state.apply(int(rng.integers(3)))
        assert abs(total - state.returns()[env.seat]) < 1e-9, (ep, total, state.returns())
        if env.state.is_terminal():
            team = frozenset({env.seat, (env.seat + 2) % 4})
            assert info["outcome"] == outcome(state.returns(), env.seat, team)


def test_solo_pairing_is_played_by_both_players() -> None:
    """Solo: a pairing ``a`` vs ``b`` compared only ``a``'s own scores (``b`` never played), so
    whichever player was named first took the other's rating. Each deal must be played by
    both, head to head: adding 1 (9 additions before the bust, return 0.9) beats adding 3
    (4 additions, 0.3) on every deal, whatever the order of the names."""
    game = ToyGame(num_players=1)
    three, one = AddThree(game), AddOne(game)
    res = play_pairing(game, three, one, ("add3", "add1"), range(6), seed=0)
    assert (res.games, res.wins, res.draws, res.losses) == (6, 0, 0, 6)
    assert res.returns == [0.3] * 6 and res.placements == [2.0] * 6
    rev = play_pairing(game, one, three, ("add1", "add3"), range(6), seed=0)
    assert (rev.wins, rev.losses) == (6, 0)
    same = play_pairing(game, one, AddOne(game), ("add1", "add1'"), range(4), seed=0)
    assert (same.draws, same.placements) == (4, [1.5] * 4)
    assert bradley_terry_elo(["add3", "add1"], [res])["add1"] > 1000.0
