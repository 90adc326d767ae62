"""The single-agent view on the toy engine: Gymnasium API, reward attribution, AEC identity,
seats, teams and solo play. The same checks run on every real game in
``tests/core/test_single_agent.py``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from envs.core.bots import Bot, RandomBot
from envs.core.game import GameState
from tests.training.sa_checks import check_matches_aec, check_rewards_sum_to_return, random_view
from tests.training.toy_game import ToyAECEnv, ToyGame
from training.players import OpponentPool
from training.single_agent import SingleAgentEnv, outcome, placement

TOY_CONFIGS = [
    {"num_players": 1},
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 4},
    {"num_players": 4, "teams": True},
    {"num_players": 2, "reach": True},
    {"num_players": 2, "planes": True},
]


class AddThree(Bot):
    name = "add3"

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        return 2


def fixed_pool(game: ToyGame, bot: Bot) -> OpponentPool:
    pool = OpponentPool()
    pool.add(bot.name, bot.name, bot)
    return pool


@pytest.mark.parametrize("params", TOY_CONFIGS, ids=str)
def test_check_env(params: dict[str, Any]) -> None:
    check_env(random_view(ToyGame(**params)), skip_render_check=True)


@pytest.mark.parametrize("params", TOY_CONFIGS, ids=str)
def test_rewards_sum_to_the_learners_return(params: dict[str, Any]) -> None:
    check_rewards_sum_to_return(ToyGame(**params), episodes=40)


@pytest.mark.parametrize("params", TOY_CONFIGS, ids=str)
def test_matches_the_aec_env(params: dict[str, Any]) -> None:
    game = ToyGame(**params)
    for seed in range(6):
        check_matches_aec(game, ToyAECEnv(**params), seed=seed, seat=seed % game.num_players)


def test_a_game_lost_on_the_opponents_move_is_the_learners_loss() -> None:
    """The PettingZoo SB3 tutorial wrapper credits the last reward to the agent that just
    moved; when the opponent's move ends the game, the loser never sees its -1. Here the
    learner gets its own -1 as the reward of its last step."""
    game = ToyGame(num_players=2, reach=True)
    env = SingleAgentEnv(game, fixed_pool(game, AddThree(game)), seat=0)
    env.reset(seed=0, options={"total": 4})
    _obs, reward, terminated, truncated, info = env.step(2)  # 4 -> 7; the opponent adds 3 -> 10 and wins
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["outcome"] == "loss" and info["return"] == -1.0

    # the tutorial's step() on the AEC env: after the opponent's winning move it returns
    # the *opponent's* reward and termination, and the episode ends without the learner's -1
    aec = ToyAECEnv(num_players=2, reach=True)
    aec.reset(seed=0, options={"total": 4})
    aec.step(2)
    mover = aec.agent_selection
    aec.step(2)
    assert (aec._cumulative_rewards[mover], aec.terminations[mover]) == (1.0, True)


def test_a_win_arriving_on_the_opponents_move_is_paid() -> None:
    """3 players: the learner's +1 is paid when the last opponent busts (not its move)."""
    game = ToyGame(num_players=3)
    env = SingleAgentEnv(game, fixed_pool(game, AddThree(game)), seat=0)
    env.reset(seed=0)
    total = 0.0
    done = False
    while not done:
        _o, r, done, _t, info = env.step(0)  # the learner adds 1, the bots add 3 and bust first
        total += r
    assert info["outcome"] == "win" and total == 1.0 and info["placement"] == 1.0


def test_elimination_ends_the_learners_episode() -> None:
    game = ToyGame(num_players=3, target=4)
    env = SingleAgentEnv(game, fixed_pool(game, RandomBot(game)), seat=0)
    env.reset(seed=0, options={"total": 3})
    _o, r, term, trunc, info = env.step(0)  # 3 -> 4: the learner busts first
    assert (r, term, trunc) == (-1.0, True, False)
    assert info["outcome"] == "loss" and info["placement"] == 3.0
    assert not env.state.is_terminal()


def test_illegal_action_ends_the_episode_with_a_penalty() -> None:
    """A masked-out move ends the episode with the penalty (PettingZoo's TerminateIllegalWrapper);
    an index outside the action space is no move at all: a ``ValueError``, as in the AEC env."""
    from envs.octi.game import OctiGame

    game = OctiGame()
    env = random_view(game)
    env.reset(seed=0, options={"seat": 0})
    with pytest.raises(ValueError, match="action must be an integer index"):
        env.step(game.num_actions)
    assert not env.action_masks()[32]  # Octi's STEP(0, 0) at the start (spec OCT-S08)
    _o, r, term, _t, info = env.step(32)
    assert (r, term, info["illegal_action"]) == (-1.0, True, True)
    with pytest.raises(RuntimeError):
        env.step(0)


def test_an_action_that_is_no_integer_is_refused() -> None:
    """A float (never rounded to a move), a bool or several values are a ``ValueError`` and play
    nothing; an int, a numpy integer or a one-element integer array (what SB3 hands over) is an
    action."""
    game = ToyGame(num_players=2)
    env = random_view(game)
    env.reset(seed=0)
    before = env.state.to_dict()
    for junk in (0.0, 1.5, True, np.array([0, 1]), "0", None):
        with pytest.raises(ValueError, match="one integer index"):
            env.step(junk)
        assert env.state.to_dict() == before
    legal = int(np.flatnonzero(env.action_masks())[0])
    env.step(np.array([legal]))
    assert env.state.to_dict() != before


def test_seat_is_random_per_episode_or_fixed() -> None:
    game = ToyGame(num_players=4)
    env = random_view(game)
    env.reset(seed=3)
    seats = set()
    for _ in range(40):
        env.reset()
        seats.add(env.seat)
    assert seats == {0, 1, 2, 3}
    fixed = random_view(game, seat=2)
    assert {fixed.reset(seed=s)[1]["seat"] for s in range(10)} == {2}
    with pytest.raises(ValueError, match="seat"):
        random_view(game, seat=4)


def test_seat_values_numpy_ints_yes_bools_and_others_no() -> None:
    """A numpy integer is the seat it holds (as everywhere a parameter is read); a bool, a
    float or a string is refused up front with a ValueError naming ``seat``."""
    game = ToyGame(num_players=4)
    info = random_view(game, seat=np.int64(1)).reset(seed=0)[1]
    assert info["seat"] == 1 and type(info["seat"]) is int
    info = random_view(game).reset(seed=0, options={"seat": np.int8(3)})[1]
    assert info["seat"] == 3 and type(info["seat"]) is int
    for bad in (True, 0.5, 1.0, "1", -1, 4):
        with pytest.raises(ValueError, match=r"^seat must be an int in \[0, 3\]"):
            random_view(game, seat=bad)
        with pytest.raises(ValueError, match=r"^option seat must be an int in \[0, 3\]"):
            random_view(game).reset(seed=0, options={"seat": bad})


def test_unknown_reset_option_lists_seat_too() -> None:
    from envs.over_and_out.game import OverAndOutGame

    game = OverAndOutGame(num_players=2)
    with pytest.raises(ValueError, match=r"unknown reset option\(s\) \['sea'\].*'seat'"):
        random_view(game).reset(seed=0, options={"sea": 1})
    assert random_view(game).reset(seed=0, options={"seat": 1})[1]["seat"] == 1


def test_partner_outside_2v2_is_an_error() -> None:
    """A partner where the game seats none would be dropped without a word."""
    for params in ({"num_players": 4}, {"num_players": 2}):
        game = ToyGame(**params)
        with pytest.raises(ValueError, match="partner is for 2v2 games only"):
            SingleAgentEnv(game, fixed_pool(game, RandomBot(game)), partner=AddThree(game))


def test_the_configs_partner_applies_to_2v2_only() -> None:
    """``partner`` in a config (OTTO Game Over's says ``self``) is for 2v2: a 2-player run
    builds no partner pool and saves no partner snapshots."""
    from training.config import TrainConfig
    from training.train import build_single_env, selfplay_groups

    for params, partnered in (({"num_players": 2}, False), ({"num_players": 4, "teams": True}, True)):
        cfg = {"env": "otto_game_over", "params": params, "partner": "self", "opponents": {"random": 1.0}}
        env, game, _ = build_single_env(cfg)
        assert (env.partner is not None) is partnered
        assert ("partner" in selfplay_groups(TrainConfig(**cfg), game)) is partnered


def test_same_seed_same_episode() -> None:
    game = ToyGame(num_players=3)
    runs = []
    for _ in range(2):
        env = random_view(game)
        env.reset(seed=11)
        trace = []
        for _ in range(30):
            o, r, term, trunc, _ = env.step(1)
            trace.append((o.tobytes(), r, env.seat))
            if term or trunc:
                env.reset()
        runs.append(trace)
    assert runs[0] == runs[1]


def test_partner_plays_the_opposite_seat() -> None:
    game = ToyGame(num_players=4, teams=True)
    partner = AddThree(game)
    env = SingleAgentEnv(game, fixed_pool(game, RandomBot(game)), partner=partner)
    for s in range(8):
        env.reset(seed=s)
        mate = (env.seat + 2) % 4
        assert env.players[mate][1] is partner
        assert all(p is not partner for seat, (_n, p) in env.players.items() if seat != mate)


def test_opponents_are_sampled_per_episode() -> None:
    game = ToyGame(num_players=2)
    pool = OpponentPool()
    pool.add("random", "random", RandomBot(game))
    pool.add("add3", "add3", AddThree(game))
    env = SingleAgentEnv(game, pool)
    env.reset(seed=0)
    names = set()
    for _ in range(30):
        _o, info = env.reset()
        names.update(info["opponents"].values())
    assert names == {"random", "add3"}


def test_placement_and_outcome() -> None:
    r = np.array([1.0, -1.0, 0.0])
    assert placement(r, 0) == 1.0 and placement(r, 1) == 3.0 and outcome(r, 2) == "loss"
    tie = np.array([0.5, 0.5, -1.0])
    assert placement(tie, 0) == 1.5 and outcome(tie, 0) == "draw"
    teams = np.array([1.0, -1.0, 1.0, -1.0])
    assert outcome(teams, 0, frozenset({0, 2})) == "win"
    assert outcome(np.array([0.3]), 0) == "win"
    # 2v2: the other team is one rival side, so a game is placed 1, 1.5 or 2 (it was 1..3)
    assert placement(teams, 0, frozenset({0, 2})) == 1.0 and placement(teams, 3, frozenset({1, 3})) == 2.0
    assert placement(np.zeros(4), 1, frozenset({1, 3})) == 1.5


def test_an_illegal_move_in_2v2_is_placed_last_of_the_two_sides() -> None:
    from envs.otto_game_over.game import OttoGameOverGame

    game = OttoGameOverGame(num_players=4, teams=True)
    env = random_view(game)
    env.reset(seed=0, options={"seat": 0})
    illegal = int(np.flatnonzero(~env.action_masks().astype(bool))[0])
    _o, _r, _term, _trunc, info = env.step(illegal)
    assert info["illegal_action"] and info["placement"] == 2.0


def test_the_gymnasium_view_names_partner_self_as_eightfold_trains() -> None:
    from training.single_agent import make_single_agent_env

    game = ToyGame(num_players=4, teams=True)
    with pytest.raises(ValueError, match="partner 'self' .* is eightfold train's"):
        make_single_agent_env(game, ["random"], {"random": RandomBot}, partner="self")


def test_a_state_option_starts_the_episode_there_and_a_finished_one_is_refused() -> None:
    """The reset option ``state`` (every game) works in the view; options that end the game
    before the learner moves are a ValueError naming them, not a hundred futile redeals."""
    from envs.octi.game import OctiGame

    game = OctiGame(max_turns=2)
    state = game.new_initial_state(np.random.default_rng(0))
    state.play("prong c2 N")
    view = random_view(game, seat=1)
    obs, info = view.reset(seed=0, options={"state": state.to_dict()})
    assert info["seat"] == 1 and view.state.to_dict() == state.to_dict()
    np.testing.assert_array_equal(obs, game.observe(state, 1))
    state.play("prong d6 S")  # turn 2 of 2: over by the turn limit
    with pytest.raises(ValueError, match=r"^the reset options \['state'\] set up a finished game"):
        view.reset(seed=0, options={"state": state.to_dict()})
    # player_1 to move, the learner in seat 0: the limit ends the game before its move
    with pytest.raises(
        ValueError, match=r"^from the reset options \['moves'\] the game ended before seat 0 could move"
    ):
        random_view(game, seat=0).reset(seed=0, options={"moves": ["prong c2 N"]})


def test_view_arguments_of_the_wrong_kind_are_named() -> None:
    """``make_env``'s opponents and illegal_reward, and a bot spec that is not a string, are
    ValueErrors naming them (they were a TypeError or an unnamed float error)."""
    from envs.core.bots import make_bot
    from envs.over_and_out.game import OverAndOutGame
    from training.single_agent import make_env

    with pytest.raises(ValueError, match=r"^opponents must be a list of specs or a dict of weights, got int"):
        make_env("over_and_out", opponents=5, num_players=2)
    for bad in ("x", float("nan"), True, None):
        with pytest.raises(ValueError, match=r"^illegal_reward must be a finite number, got "):
            make_env("over_and_out", opponents=["random"], illegal_reward=bad, num_players=2)
    assert (
        make_env("over_and_out", opponents=["random"], illegal_reward=-2, num_players=2).illegal_reward
        == -2.0
    )
    game = OverAndOutGame(num_players=2)
    with pytest.raises(ValueError, match=r"^a bot spec is a string such as 'heuristic'"):
        make_bot(game, None, {})  # type: ignore[arg-type]


def test_the_mask_is_all_true_where_there_is_no_decision() -> None:
    """Before the first ``reset()`` and after the episode's end the mask is all True (the
    README and ``action_masks``' docstring): a Gymnasium vector env (next-step autoreset) asks
    for it between the last step and its reset, and the step that follows resets whatever the
    action, so MaskablePPO never draws from an empty mask."""
    import gymnasium as gym

    import training  # noqa: F401  (registers the ids)
    from envs.over_and_out.game import OverAndOutGame

    game = OverAndOutGame(num_players=2)
    env = SingleAgentEnv(game, OpponentPool(fallback=RandomBot(game)))
    assert env.action_masks().all() and env.action_masks().shape == (game.num_actions,)
    env.reset(seed=0)
    assert not env.action_masks().all(), "a decision: the rules' mask"
    vec = gym.vector.SyncVectorEnv(
        [lambda: gym.make("eightfold/over_and_out-single-v0", opponents=["random"], num_players=2)]
    )
    vec.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(500):
        masks = np.stack(vec.call("action_masks"))
        action = int(rng.choice(np.flatnonzero(masks[0])))
        _obs, _r, term, trunc, _info = vec.step(np.array([action]))
        if term[0] or trunc[0]:
            break
    else:
        raise AssertionError("no episode ended in 500 steps")
    assert np.stack(vec.call("action_masks"))[0].all(), "the episode ended: no decision"
    vec.step(np.array([0]))  # next-step autoreset: the action is ignored
    assert not np.stack(vec.call("action_masks"))[0].all(), "a new episode's decision"
    vec.close()
