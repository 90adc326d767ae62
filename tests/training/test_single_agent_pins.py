"""Pins closing gaps found by a mutation round on ``training/single_agent.py``: outcomes of
solo and 2v2 games, the illegal-move penalty, masks, seats chosen by option, reproducible
reseeding, who plays which seat (and for which seat it acts), the final observation, errors
that name the value they refuse, snapshots joining their pools, and the redeal of a game that
ends before the learner's seat moves."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from envs.core.bots import Bot, RandomBot
from envs.core.game import GameState
from tests.training.sa_checks import random_view
from tests.training.test_audit_s14 import AddOne, AddThree, _pool
from tests.training.toy_game import ToyGame, ToyState
from training.players import OpponentPool
from training.single_agent import SingleAgentEnv, outcome, placement


# ------------------------------------------------------------------ outcomes, placement
def test_a_solo_game_scores_by_the_sign_of_its_return() -> None:
    """Solo: a zero return is a draw and a negative one a loss (a win needs a positive
    return); a bust on the very first addition returns 0 and is the learner's draw."""
    assert outcome(np.array([0.0]), 0) == "draw"
    assert outcome(np.array([-0.2]), 0) == "loss"
    assert outcome(np.array([0.1]), 0) == "win"
    game = ToyGame(num_players=1)
    env = SingleAgentEnv(game)
    env.reset(seed=0, options={"total": 9})
    _o, r, term, _t, info = env.step(0)  # 9 -> 10: busts on the first addition, return 0
    assert (r, term) == (0.0, True)
    assert info["return"] == 0.0 and info["outcome"] == "draw"


def _play_out(env: SingleAgentEnv, action: int) -> tuple[float, dict[str, Any]]:
    """Step ``action`` until the learner's episode ends: (sum of rewards, last info)."""
    total, done, info = 0.0, False, {}
    while not done:
        _obs, reward, term, trunc, info = env.step(action)
        total += float(reward)
        done = term or trunc
    return total, info


def test_a_2v2_game_lost_by_the_team_is_a_loss_placed_second() -> None:
    """2v2: the learner (seat 0) and its partner (seat 2) both lose -1/3; the partner's equal
    return must not make the game a draw, and the place is 2 of the two sides (not 3.5 of
    four seats)."""
    game = ToyGame(num_players=4, teams=True, target=6)
    env = SingleAgentEnv(game, _pool(AddOne(game)), seat=0, partner=AddOne(game))
    env.reset(seed=0, options={"total": 1})
    total, info = _play_out(env, 0)
    assert env.state.is_terminal()
    returns = env.state.returns()
    assert returns[0] == returns[2] == pytest.approx(-1 / 3) and returns[1] == pytest.approx(1 / 3)
    assert total == pytest.approx(-1 / 3)
    assert info["outcome"] == "loss" and info["placement"] == 2.0
    assert outcome(returns, 0, frozenset({0, 2})) == "loss"
    assert placement(returns, 2, frozenset({0, 2})) == 2.0


def test_a_2v2_game_won_by_the_team_is_a_win_placed_first() -> None:
    """2v2: the learner and its partner both end on +1/3; the partner's equal return is no
    rival's, so the game is a win placed 1 (not a draw shared with the partner)."""
    game = ToyGame(num_players=4, teams=True, target=6)
    env = SingleAgentEnv(game, _pool(AddOne(game)), seat=0, partner=AddOne(game))
    env.reset(seed=0)
    total, info = _play_out(env, 0)
    assert env.state.is_terminal()
    returns = env.state.returns()
    assert returns[0] == returns[2] == pytest.approx(1 / 3)
    assert total == pytest.approx(1 / 3)
    assert info["outcome"] == "win" and info["placement"] == 1.0


# ---------------------------------------------------------------- illegal moves, masks
def test_the_illegal_move_penalty_is_the_configured_one() -> None:
    """``illegal_reward`` is what a masked-out move pays and what ``info["return"]`` reports
    (not a hard-wired -1, nor the game's own return of 0)."""
    from envs.octi.game import OctiGame

    game = OctiGame()
    pool = OpponentPool()
    pool.add("random", "random", RandomBot(game))
    env = SingleAgentEnv(game, pool, seat=0, illegal_reward=-3.0)
    env.reset(seed=0)
    assert not env.action_masks()[32]  # Octi's STEP(0, 0) at the start (spec OCT-S08)
    _o, r, term, trunc, info = env.step(32)
    assert (r, term, trunc) == (-3.0, True, False)
    assert info["return"] == -3.0 and info["illegal_action"] and info["outcome"] == "loss"
    assert info["placement"] == 2.0  # last of the two players, not first
    four = ToyGame(num_players=4)
    view = random_view(four, seat=0)
    view.reset(seed=0)
    view._state.legal_mask = lambda: np.array([1, 1, 0], np.int8)  # type: ignore[union-attr,method-assign]
    _o, r, term, _t, info = view.step(2)
    assert (r, term, info["placement"]) == (-1.0, True, 4.0)


def test_masks_are_bools_and_all_true_once_the_episode_is_over() -> None:
    """``action_masks`` is ``bool[num_actions]`` (what MaskablePPO expects); after the episode
    ends it is all True, never the finished game's all-False mask (a distribution of no
    move), whether the game is over or the learner only knocked out."""
    game = ToyGame(num_players=3, target=4)
    env = random_view(game, seat=0)
    env.reset(seed=0, options={"total": 3})
    mask = env.action_masks()
    assert mask.dtype == np.bool_ and mask.shape == (3,) and mask.all()
    _o, _r, term, _t, _i = env.step(0)  # the learner busts; the others play on
    assert term and not env.state.is_terminal()
    after = env.action_masks()
    assert after.dtype == np.bool_ and after.all()
    reach = ToyGame(num_players=2, reach=True)
    env = random_view(reach, seat=0)
    env.reset(seed=0, options={"total": 7})
    _o, r, term, _t, _i = env.step(2)  # 7 -> 10: the learner wins, the game is over
    assert (r, term) == (1.0, True) and env.state.is_terminal()
    assert not env.state.legal_mask().any()
    assert env.action_masks().dtype == np.bool_ and env.action_masks().all()


# --------------------------------------------------------------------- seats, seeding
def test_the_seat_option_overrides_the_views_fixed_seat() -> None:
    """``options={"seat": s}`` pins the seat of that episode even where the view was built
    with a seat; the next plain reset is back on the view's own seat."""
    game = ToyGame(num_players=4)
    env = random_view(game, seat=2)
    assert env.reset(seed=0, options={"seat": 1})[1]["seat"] == 1 and env.seat == 1
    assert env.reset(seed=0)[1]["seat"] == 2


def test_reset_leaves_the_callers_options_alone() -> None:
    """The view takes ``seat`` out of its own copy of the options: the caller's dict, reused
    for the next episodes, still pins the seat (and still holds the game's options)."""
    game = ToyGame(num_players=4)
    env = random_view(game)
    options = {"seat": 3, "total": 2}
    for seed in range(3):
        _o, info = env.reset(seed=seed, options=options)
        assert info["seat"] == 3
    assert options == {"seat": 3, "total": 2}


def test_reset_with_the_same_seed_replays_on_the_same_env() -> None:
    """``reset(seed=s)`` twice on one env gives the same seats, opponents and observations
    (the seat/opponent stream is re-seeded on every seeded reset, not only the first)."""
    game = ToyGame(num_players=4)
    pool = OpponentPool()
    pool.add("random", "random", RandomBot(game))
    pool.add("add3", "add3", AddThree(game))
    env = SingleAgentEnv(game, pool)

    def run() -> list[Any]:
        trace: list[Any] = []
        obs, info = env.reset(seed=5)
        for _ in range(12):
            trace.append((obs.tobytes(), info["seat"], tuple(sorted(info["opponents"].items()))))
            obs, _r, term, trunc, info = env.step(0)
            if term or trunc:
                obs, info = env.reset()
        return trace

    first = run()
    env.reset(seed=99)  # somewhere else in between
    assert run() == first


def test_the_seat_is_not_drawn_from_the_deals_stream() -> None:
    """The seats and opponents have their own stream, apart from the deal's: a seat drawn from
    ``default_rng(seed)`` would be tied to the deal's first draw (in a game that draws its first
    player that way, the learner would always start)."""
    game = ToyGame(num_players=4)
    env = random_view(game)
    seeds = range(24)
    seats = [env.reset(seed=s)[1]["seat"] for s in seeds]
    deal_first = [int(np.random.default_rng(s).integers(4)) for s in seeds]
    assert sum(a == b for a, b in zip(seats, deal_first, strict=True)) < 16
    assert len(set(seats)) == 4


# ------------------------------------------------------------- who plays which seat
def test_info_opponents_names_every_other_seat_and_the_partner() -> None:
    """``info["opponents"]`` maps each other seat's agent name to the name of its player: the
    learner's own seat is not in it, and a fixed partner is named ``partner``."""
    game = ToyGame(num_players=2)
    _o, info = random_view(game, seat=1).reset(seed=0)
    assert info["opponents"] == {"player_0": "random"}
    teams = ToyGame(num_players=4, teams=True)
    env = SingleAgentEnv(teams, _pool(AddThree(teams)), seat=1, partner=AddOne(teams))
    _o, info = env.reset(seed=0)
    assert info["opponents"] == {"player_0": "add3", "player_2": "add3", "player_3": "partner"}


def test_each_opponent_seat_draws_its_own_player() -> None:
    """A pool is sampled per episode *and seat*: with two groups, three-player episodes also
    seat two different opponents (not one draw copied to every seat)."""
    game = ToyGame(num_players=3)
    pool = OpponentPool()
    pool.add("random", "random", RandomBot(game))
    pool.add("add3", "add3", AddThree(game))
    env = SingleAgentEnv(game, pool, seat=0)
    mixes = set()
    for s in range(20):
        _o, info = env.reset(seed=s)
        mixes.add(tuple(sorted(info["opponents"].values())))
    assert ("add3", "random") in mixes


class _SeatCheck(Bot):
    """Adds 1, noting the seat it is asked to play and the seat to move then."""

    name = "seatcheck"

    def __init__(self, game: ToyGame, log: list[tuple[int, int]]) -> None:
        super().__init__(game)
        self.log = log

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        self.log.append((player, state.current_player()))
        return 0


def test_opponents_act_for_their_own_seat() -> None:
    """An opponent is asked to move for the seat it sits in (a bot or frozen policy reads
    ``observe(state, player)``), never for the learner's seat."""
    game = ToyGame(num_players=3)
    log: list[tuple[int, int]] = []
    env = SingleAgentEnv(game, _pool(_SeatCheck(game, log)), seat=1)
    env.reset(seed=0)
    for _ in range(3):
        env.step(0)
    assert log and all(player == to_move for player, to_move in log)
    assert {player for player, _ in log} == {0, 2}
    rec: list[tuple[int, int]] = []
    view = random_view(ToyGame(num_players=4), rec, seat=3)
    view.reset(seed=1)
    view.step(0)
    assert [seat for seat, _a in rec] == [0, 1, 2, 0, 1, 2]  # the deal's opening, then a round


def test_the_last_observation_is_the_learners_own_seat() -> None:
    """When the learner is knocked out while the others play on, the observation returned
    with ``terminated`` is still ``observe(state, seat)`` (not the seat now to move)."""
    game = ToyGame(num_players=3, target=4)
    env = random_view(game, seat=0)
    env.reset(seed=0, options={"total": 3})
    obs, _r, term, _t, _i = env.step(0)
    state = env.state
    assert isinstance(state, ToyState) and term and not state.is_terminal()
    np.testing.assert_array_equal(obs, game.observe(state, 0))
    assert not np.array_equal(obs, game.observe(state, state.current_player()))
    with pytest.raises(RuntimeError, match=r"^the episode is over: call reset\(\)$"):
        env.step(0)  # a knocked-out learner has no move left in this episode


@pytest.mark.parametrize("gamma", [1.0001, 1.5, 2.0])
def test_a_discount_above_one_is_refused(gamma: float) -> None:
    """``gamma`` lies in (0, 1]: above 1 the shaping terms no longer telescope to a bounded
    sum; 1 itself is allowed."""
    game = ToyGame(num_players=2)
    pool = _pool(AddOne(game))
    with pytest.raises(ValueError, match=rf"^gamma must be a number in \(0, 1\], got {gamma}"):
        SingleAgentEnv(game, pool, gamma=gamma)
    assert SingleAgentEnv(game, pool, gamma=1.0).gamma == 1.0


def test_a_multiplayer_view_without_opponents_is_refused() -> None:
    """A 2-player game and no pool: a ValueError up front, not a KeyError mid-episode."""
    with pytest.raises(ValueError, match=r"^a 2-player game needs opponents"):
        SingleAgentEnv(ToyGame(num_players=2), None)


def _bad_call(case: str) -> None:
    """One call of the view with one bad value (see the cases below)."""
    from training.single_agent import make_single_agent_env

    game = ToyGame(num_players=2)
    bots = {"random": RandomBot}
    if case == "seat":
        random_view(game, seat=4)
    elif case == "option seat":
        random_view(game).reset(seed=0, options={"seat": "x"})
    elif case == "shaping":
        SingleAgentEnv(game, _pool(AddOne(game)), shaping=-0.5)
    elif case == "options":
        random_view(game).reset(seed=0, options=[("seat", 1)])  # type: ignore[arg-type]
    elif case == "solo opponents":
        make_single_agent_env(ToyGame(num_players=1), ["random"], bots)
    elif case == "partner":
        make_single_agent_env(ToyGame(num_players=4, teams=True), ["random"], bots, partner=3)  # type: ignore[arg-type]
    else:
        env = random_view(game)
        env.reset(seed=0)
        env.step(1.5 if case == "float action" else 7)


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("seat", r"^seat must be an int in \[0, 1\] or None \(random per episode\), got 4$"),
        ("option seat", r"^option seat must be an int in \[0, 1\] .*, got 'x'$"),
        ("shaping", r"^shaping must be a finite number >= 0, got -0\.5$"),
        ("options", r"^options must be None or a dict of reset options, got list$"),
        ("solo opponents", r"^opponents: a solo toy game \(num_players=1\) has none, got \['random'\]$"),
        ("partner", r"^partner must be a player spec \(a bot name or a model path\), got 3$"),
        ("float action", r"^action must be one integer index in \[0, 3\), got 1\.5$"),
        ("action out of range", r"^action must be an integer index in \[0, 3\), got 7$"),
    ],
)
def test_a_refused_value_is_named_in_the_error(case: str, message: str) -> None:
    """Each refusal names the value it got, so a user sees what was passed (not only the
    rule it broke)."""
    with pytest.raises(ValueError, match=message):
        _bad_call(case)


# ----------------------------------------------------------------------------- redeals
class _QuickState(ToyState):
    """The two-player toy, except that some deals are over at once (seat 0 has already won)."""

    def __init__(self, config: Any, rng: np.random.Generator, over: bool) -> None:
        super().__init__(config, rng)
        if over:
            self.winner = 0
            self._returns[:] = [1.0, -1.0]


class _QuickGame(ToyGame):
    """Deals drawn by the deal's generator: over at once with probability ``p_over``."""

    p_over = 0.5

    def new_initial_state(self, rng: np.random.Generator, options: Any = None) -> ToyState:
        return _QuickState(self.config, rng, over=bool(rng.random() < self.p_over))


def test_a_deal_over_before_the_learner_moves_is_redealt() -> None:
    """A deal that ends before the learner's seat moves is dealt again from the view's own
    stream (fresh deals, not the same seed a hundred times, nor an error meant for options)."""
    game = _QuickGame(num_players=2)
    seeds = [s for s in range(50) if np.random.default_rng(s).random() < 0.5][:4]
    assert seeds
    env = random_view(game, seat=1)
    for s in seeds:
        obs, info = env.reset(seed=s)
        assert not env.state.is_terminal() and info["seat"] == 1
        assert env.observation_space.contains(obs) and env.action_masks().all()


def test_a_game_that_is_always_over_before_the_learner_moves_names_the_seat() -> None:
    """If every deal ends before the learner's seat moves, reset raises (after its redeals)
    a RuntimeError naming the seat, instead of an episode on a finished game."""
    game = _QuickGame(num_players=2)
    game.p_over = 1.0
    with pytest.raises(RuntimeError, match=r"^the game ended before seat 1 could move in 100 deals$"):
        random_view(game, seat=1).reset(seed=0)


# --------------------------------------------------------------- snapshots into the pools
def test_a_saved_snapshot_joins_its_group_as_a_sampling_player(monkeypatch: pytest.MonkeyPatch) -> None:
    """``add_policy_opponent(path)`` adds the frozen policy to the ``self`` group of the
    opponents, sampling its moves as in training (not greedy); ``group="partner"`` adds it to
    the 2v2 partner pool's ``self`` group, not to the opponents. (``PolicyPlayer.load`` is
    stood in for: the file format is tested elsewhere.)"""
    from training.players import PolicyPlayer

    loads: list[tuple[str, bool]] = []

    def fake_load(path: str, game: Any, deterministic: bool = False) -> Any:
        loads.append((path, deterministic))
        return AddOne(game)

    monkeypatch.setattr(PolicyPlayer, "load", staticmethod(fake_load))
    game = ToyGame(num_players=4, teams=True)
    partner = OpponentPool()
    partner.add("add1", "add1", AddOne(game))
    env = SingleAgentEnv(game, _pool(RandomBot(game)), partner=partner)
    env.add_policy_opponent("runs/x/snap_1.zip")
    assert loads == [("runs/x/snap_1.zip", False)]
    assert set(env.opponents.groups) == {"random", "self"}  # type: ignore[union-attr]
    assert [n for n, _p in env.opponents.groups["self"].players] == ["runs/x/snap_1.zip"]  # type: ignore[union-attr]
    env.add_policy_opponent("runs/x/snap_2.zip", group="partner")
    assert loads[-1] == ("runs/x/snap_2.zip", False)
    assert set(partner.groups) == {"add1", "self"}
    assert [n for n, _p in partner.groups["self"].players] == ["runs/x/snap_2.zip"]
    assert len(env.opponents.groups["self"].players) == 1  # type: ignore[union-attr]
    solo_pool = SingleAgentEnv(ToyGame(num_players=2), _pool(RandomBot(game)))
    with pytest.raises(RuntimeError, match="partner is not a pool"):
        solo_pool.add_policy_opponent("runs/x/snap_3.zip", group="partner")


def test_a_2v2_team_knocked_out_while_the_rivals_play_on_is_placed_second() -> None:
    """Both partners out, both rivals still in: the other team counts once (placed 2, as a
    lost 2v2 game everywhere else), not once per rival seat (3)."""
    game = ToyGame(num_players=4, teams=True, target=4)
    seen = []
    for tot in range(4):
        for a in range(3):
            env = SingleAgentEnv(game, _pool(AddOne(game)), seat=0, partner=AddThree(game))
            env.reset(seed=0, options={"total": tot})
            _total, info = _play_out(env, a)
            if not env.state.is_terminal():  # the team is out, the rivals play on
                seen.append((sorted(env.state.eliminated()), info["placement"], info["outcome"]))
    assert seen and all(s == ([0, 2], 2.0, "loss") for s in seen), seen


def test_an_illegal_move_after_a_payment_still_sums_to_the_return(monkeypatch: pytest.MonkeyPatch) -> None:
    """2v2 toy: a seat is knocked out first (the learner is paid a share, -0.5 or -1/6), then
    the learner plays a masked-out move. Its step pays ``illegal_reward`` less what was paid, so
    the episode's rewards sum to ``info["return"]`` = -1, as the AEC env's cumulative reward
    (it paid a whole -1 on top: -1.5 in all, while ``info["return"]`` said -1)."""
    game = ToyGame(num_players=4, teams=True, target=6)
    checked = 0
    for tot in range(6):
        env = SingleAgentEnv(game, _pool(AddOne(game)), seat=0, partner=AddThree(game))
        env.reset(seed=0, options={"total": tot})
        paid, done = 0.0, False
        while not done and paid == 0.0:
            _obs, reward, term, trunc, _info = env.step(0)
            paid += float(reward)
            done = term or trunc
        if done:
            continue
        monkeypatch.setattr(env.state, "legal_mask", lambda: np.array([0, 1, 1], np.int8))
        _obs, reward, term, trunc, info = env.step(0)  # masked out now
        assert info["illegal_action"] and term and not trunc
        assert info["return"] == -1.0 and paid != 0.0
        assert float(reward) == pytest.approx(-1.0 - paid) and paid + float(reward) == pytest.approx(-1.0)
        checked += 1
    assert checked >= 1
