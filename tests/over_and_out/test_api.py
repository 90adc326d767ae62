"""Observations, hidden information, notation, serialisation, parameters and options."""

from __future__ import annotations

import json

import numpy as np
import pytest

from envs.over_and_out.game import OverAndOutGame
from envs.over_and_out.render import render_ansi, render_rgb
from envs.over_and_out.rules import State
from envs.over_and_out_v0 import env, raw_env
from tests.over_and_out.helpers import engine


def _midgame(n: int = 4, plays: int = 25, seed: int = 0) -> State:
    state = OverAndOutGame(num_players=n).new_initial_state(np.random.default_rng(seed))
    rng = np.random.default_rng(seed)
    for _ in range(plays):
        legal = state.legal_actions()
        state.apply(legal[rng.integers(len(legal))])
    return state


def test_observation_layout() -> None:
    """OAO-40 and the encoding of the env docstring (relative seats, own hand only)."""
    state = engine(["5", "x2", "-10", "1", "x2", "3", "0", "top-out"], [22], num_players=3, first_dealer=2)
    game = OverAndOutGame(num_players=3, first_dealer=2)
    obs = game.observe(state, 1)
    assert obs.shape == (60,) and obs.dtype == np.float32
    assert list(obs[0:11]) == [0.25, 0, 0, 0.25, 0, 0, 0.25, 0, 0, 0.25, 0]  # 0, 3, x2, top-out
    assert obs[12] == 1 and obs[17] == 0 and obs[18:22].sum() == 4  # L 22, the rest in the pile
    assert obs[35:44].tolist() == [1, 1, 0, 1, 1, 1, 1, 1, 0]  # me, dealer (seat 2), seat 0
    assert obs[44:59].sum() == 0  # padding up to 8 seats


def test_resample_hidden_keeps_what_seat_knows() -> None:
    """resample_hidden changes only hidden cards; it gives the state a fresh rng."""
    game = OverAndOutGame(num_players=4)
    state = _midgame()
    rng = np.random.default_rng(5)
    me = state.current_player()
    seen_different = False
    for _ in range(10):
        other = game.resample_hidden(state, me, rng)
        assert np.array_equal(game.observe(other, me), game.observe(state, me))
        assert np.array_equal(other.legal_mask(), state.legal_mask())
        assert other.hands[me] == state.hands[me] and other.play_pile == state.play_pile
        assert sorted(other.tiptop_pile) == sorted(state.tiptop_pile)
        State.from_dict(other.to_dict())  # consistent
        seen_different |= other.hands != state.hands or other.draw_pile != state.draw_pile
        assert other.rng.bit_generator.state != state.rng.bit_generator.state
    assert seen_different


def test_to_dict_round_trip() -> None:
    state = _midgame(plays=60)
    d = json.loads(json.dumps(state.to_dict()))
    restored = State.from_dict(d)
    assert restored.to_dict() == state.to_dict()
    a = state.legal_actions()[0]
    state.apply(a)
    restored.apply(a)
    assert restored.to_dict() == state.to_dict()


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("chips", [4, 4, 4], r"chips must be a list of length 4"),
        ("total", 70, r"total must be an int in \[0, 66\], got 70"),
        ("direction", 0, r"direction must be 1 or -1"),
        ("to_move", 7, r"to_move must be an int in \[-1, 3\]"),
        ("tiptop", 23, r"Tip Top pile, discards and L must be"),
        ("tiptop_pile", [22, 22], r"Tip Top pile, discards and L must be"),
        ("draw_pile", ["0"], r"do not make up the deck"),
        ("hands", "x", r"hands must be a list of length 4"),
        ("out_order", [0], r"out_order must list each seat"),
        ("truncated", True, r"a running game has two or more players left"),
        ("rng", {"bit_generator": "nope"}, r"bit_generator must be one of"),
        ("config", {"num_players": 9}, r"num_players must be an int in \[2, 8\]"),
    ],
)
def test_from_dict_rejects(key: str, value: object, message: str) -> None:
    d = _midgame().to_dict()
    d[key] = value
    with pytest.raises(ValueError, match=message):
        State.from_dict(d)


def test_notation() -> None:
    """§8: canonical strings; case- and space-insensitive reading; illegal <index>."""
    state = engine(["5", "x2", "-10", "1", "x2", "3", "0", "top-out"], [22], num_players=2, first_dealer=1)
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["play 1", "play 5", "play x2"]
    assert state.string_to_action("  PLAY   X2 ") == 6
    assert state.action_to_string(7) == "illegal 7" and state.action_to_string(11) == "illegal 11"
    for bad in ("play -10", "bust", "play 6", "hello", "", "play"):
        with pytest.raises(ValueError, match=r"malformed action|is not legal"):
            state.string_to_action(bad)


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"num_players": 1}, "num_players"),
        ({"deck_counts": {"7": 3}}, "deck_counts"),
        ({"deck_counts": {"0": -1}}, "deck_counts"),
        ({"deck_counts": {"0": 3}}, "deck_counts"),
        ({"deck_counts": [1]}, "deck_counts"),
        ({"minus10_rule": "x"}, "minus10_rule"),
        ({"reward_mode": "x"}, "reward_mode"),
        ({"max_plays": 0}, "max_plays"),
        ({"first_dealer": 4}, "first_dealer"),
        ({"starting_chips": 5}, "starting_chips"),
        ({"starting_chips": True}, "starting_chips"),
    ],
)
def test_bad_parameters(params: dict[str, object], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        OverAndOutGame(**params)


@pytest.mark.parametrize(
    "options",
    [
        {"deck_top": ["6"]},
        {"deck_top": "5"},
        {"deck_top": ["x2"] * 5},
        {"tiptop_top": [23]},
        {"tiptop_top": [22, 22]},
        {"tiptop_top": ["22"]},
        {"shuffle": False},
        ["deck_top"],
    ],
)
def test_bad_reset_options(options: object) -> None:
    e = env(num_players=2)
    with pytest.raises(ValueError, match=r"deck_top|tiptop_top|reset option"):
        e.reset(seed=0, options=options)  # type: ignore[arg-type]


def test_options_apply_to_round_one_only() -> None:
    """§6: the stacked deal is used in round 1, later rounds are shuffled."""
    state = engine(["5", "5", "5", "5", "top-out", "0", "0", "0", "5"], [22], num_players=2, first_dealer=1)
    state.apply(5)
    state.apply(9)
    state.apply(11)
    assert state.round == 2 and state.hands[0] != [5, 5, 5]


def test_engine_rejects_bad_actions() -> None:
    state = _midgame()
    for bad in (-1, 12, 2.5, "1", None):
        with pytest.raises(ValueError, match=r"illegal action|must be an int"):
            state.clone().apply(bad)  # type: ignore[arg-type]


def test_renderers(tmp_path: object) -> None:
    """ansi shows the table and the mover's hand; rgb_array is a non-blank picture."""
    e = raw_env(render_mode="ansi", num_players=3)
    e.reset(seed=1)
    text = e.render()
    assert "total 0 / Tip Top" in text and "hand:" in text and "player_2" in text
    e = raw_env(render_mode="rgb_array", num_players=8)
    e.reset(seed=1)
    img = e.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.std() > 0


def test_rgb_seats_clear_of_the_hand() -> None:
    """The seats around the table stay above the mover's hand and its caption for every
    player count: no pixel of a seat colour (outline, chips) from the caption's top edge down
    (the bottom seat's box once ran into the caption), and the caption and the cards are
    drawn there."""
    pytest.importorskip("PIL")
    from envs.core.draw import INK, SEAT_COLORS
    from envs.over_and_out.render import HAND_TOP

    for n in range(2, 9):
        e = raw_env(render_mode="rgb_array", num_players=n)
        e.reset(seed=n)
        img = e.render()
        below = img[HAND_TOP:].reshape(-1, 3)
        assert (below == np.array(INK, dtype=np.uint8)).all(axis=1).sum() > 200  # caption, cards
        assert (img[HAND_TOP - 2] == img[HAND_TOP - 2, 0]).all()  # the caption starts below
        for colour in SEAT_COLORS[:n]:
            assert not (below == np.array(colour, dtype=np.uint8)).all(axis=1).any(), (n, colour)


def test_config_deck_counts_cannot_be_changed_in_place() -> None:
    """The Config is frozen, ``deck_counts`` included: an in-place change would bypass the
    validation and leave the hash and the cached per-kind counts stale. It still reads, pickles
    and serialises as a plain dict."""
    import copy
    import json
    import pickle

    from envs.over_and_out.config import Config

    config = Config(num_players=2)
    for change in (
        lambda d: d.__setitem__("0", -5),
        lambda d: d.update({"0": 3}),
        lambda d: d.pop("0"),
        lambda d: d.clear(),
    ):
        with pytest.raises(TypeError, match="read-only"):
            change(config.deck_counts)
    assert config.deck_counts["0"] == 8 and json.loads(json.dumps(config.deck_counts))["0"] == 8
    for twin in (pickle.loads(pickle.dumps(config)), copy.deepcopy(config)):
        assert twin == config and hash(twin) == hash(config)


def test_state_dict_holds_plain_containers() -> None:
    """``to_dict`` is plain data (the read-only ``deck_counts`` comes out as a dict): YAML can
    write it and a copy can be edited."""
    import yaml

    st = OverAndOutGame(num_players=2).new_initial_state(np.random.default_rng(0))
    d = st.to_dict()
    assert type(d["config"]["deck_counts"]) is dict
    d["config"]["deck_counts"]["0"] = 9
    assert yaml.safe_load(yaml.safe_dump(d))["config"]["deck_counts"]["0"] == 9


def test_renderers_show_counters_discarded_tiptops_and_result() -> None:
    """The picture shows the round and play count and the Tip Top cards discarded (public,
    OAO-30; only the text showed them); both name the winner once the game is over."""
    pytest.importorskip("PIL")
    state = _midgame(n=3, plays=10, seed=2)
    before = state.clone()
    state.tiptop_discards = sorted(set(before.tiptop_discards) ^ {66 if before.tiptop != 66 else 22})
    assert (render_rgb(state) != render_rgb(before)).any()
    state = before.clone()
    state.plays += 1
    assert (render_rgb(state) != render_rgb(before)).any()
    state = OverAndOutGame(num_players=2, starting_chips=1).new_initial_state(np.random.default_rng(0))
    while not state.is_terminal():
        state.apply(state.legal_actions()[0])
    winner = next(seat for seat in range(2) if state.chips[seat])
    assert f"game over: player_{winner} wins" in render_ansi(state)
    truncated = OverAndOutGame(num_players=2, max_plays=1).new_initial_state(np.random.default_rng(0))
    truncated.apply(truncated.legal_actions()[0])
    assert "play 1 of 1 - game over: truncated" in render_ansi(truncated)


def test_renderers_show_the_order_of_elimination_and_the_rules() -> None:
    """Both pictures mark an eliminated seat with its place in the order of elimination
    (``out (2nd out)``: what the placement rewards follow) and name the options that change play
    or rewards (``minus10_rule``, ``reward_mode``)."""
    pytest.importorskip("PIL")
    game = OverAndOutGame(
        num_players=5, starting_chips=1, minus10_rule="lose_below_zero", reward_mode="winner_only"
    )
    state = game.new_initial_state(np.random.default_rng(0))
    rng = np.random.default_rng(0)
    while len(state.out_order) < 2:
        state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
    text = render_ansi(state)
    first, second = state.out_order[:2]
    assert f"player_{first}: out (1st out)" in text or f"player_{first} (dealer): out (1st out)" in text
    assert f"player_{second}: out (2nd out)" in text or f"player_{second} (dealer): out (2nd out)" in text
    assert text.count("out (") == len(state.out_order)
    assert "rules: -10 lose_below_zero, rewards winner_only" in text
    other = state.clone()
    other.out_order = other.out_order[::-1]
    assert (render_rgb(state) != render_rgb(other)).any()


def test_turn_based_parallel_conversion_plays_through_eliminations() -> None:
    """PettingZoo's ``turn_based_aec_to_parallel`` observes right after a move, before the
    dead step of a seat it knocked out (OAO-41): every mask is all zeros there (OAO-40: only
    the selected agent, when it is the player to move, has a non-zero mask). The seat to move
    next is ``par.aec_env.agent_selection`` (and a live agent's ``infos[a]["active_agent"]``),
    and observing it again gives its mask (the doc page's recipe); each agent's rewards add up
    to its return."""
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    from envs import over_and_out_v0

    for seed in range(3):
        aec = over_and_out_v0.env(num_players=6, starting_chips=1)
        par = turn_based_aec_to_parallel(aec)
        obs, infos = par.reset(seed=seed)
        rng = np.random.default_rng(seed)
        totals = dict.fromkeys(aec.possible_agents, 0.0)
        knocked_out = 0
        while par.agents:
            movers = [a for a, o in obs.items() if o["action_mask"].any()]
            mover = par.aec_env.agent_selection
            assert all(infos[a].get("active_agent", mover) == mover for a in par.agents)
            if movers:
                assert movers == [mover]
                mask = obs[mover]["action_mask"]
            else:  # the step knocked a seat out: observed before its dead step
                assert knocked_out > 0
                mask = par.aec_env.observe(mover)["action_mask"]
                assert mask.any()
            action = int(rng.choice(np.flatnonzero(mask)))
            obs, rewards, terms, _truncs, infos = par.step({mover: action})
            for a, r in rewards.items():
                totals[a] += r
            knocked_out += sum(terms.values()) if par.agents else 0
        returns = aec.unwrapped.state.returns()
        assert knocked_out > 0
        assert [totals[a] for a in aec.possible_agents] == pytest.approx(list(returns))


def test_every_mask_is_zero_while_a_knocked_out_seat_takes_its_dead_step() -> None:
    """OAO-40 / OAO-41: during the dead step the knocked-out agent is selected and every
    agent's mask is all zeros; the next seat's mask appears once it is selected."""
    from envs import over_and_out_v0

    env = over_and_out_v0.env(num_players=5, starting_chips=1)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    dead_steps = 0
    for agent in env.agent_iter():
        obs, _r, term, trunc, _i = env.last()
        for other in env.agents:
            mask = env.observe(other)["action_mask"]
            assert mask.any() == (other == agent and not (term or trunc)), (agent, other)
        if term or trunc:
            dead_steps += not env.unwrapped.state.is_terminal()
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert dead_steps > 0


def test_a_position_set_up_mid_game_starts_an_episode_without_the_seats_out() -> None:
    """``reset(options={"state": ...})`` of a game with a seat knocked out: that seat is no
    agent of the new episode, nothing paid before it is a reward of it, and the parallel
    conversion steps from it."""
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    from envs import over_and_out_v0

    env = over_and_out_v0.env(num_players=5, starting_chips=1)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    while True:
        obs, _r, term, trunc, _i = env.last()
        if term or trunc:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    out = env.agent_selection  # knocked out, its dead step pending
    saved = env.unwrapped.state.to_dict()
    again = over_and_out_v0.env(num_players=5, starting_chips=1)
    again.reset(options={"state": saved})
    assert out not in again.agents and len(again.agents) == 4
    assert set(again.rewards.values()) == {0.0} and set(again._cumulative_rewards.values()) == {0.0}
    par = turn_based_aec_to_parallel(over_and_out_v0.env(num_players=5, starting_chips=1))
    obs, _ = par.reset(options={"state": saved})
    (mover,) = [a for a, o in obs.items() if o["action_mask"].any()]
    par.step({mover: int(np.flatnonzero(obs[mover]["action_mask"])[0])})


def test_a_finished_game_restored_pays_nothing_again_and_ends_every_agent() -> None:
    """``reset(options={"state": ...})`` of a finished game (a record's last state): every
    seat is an agent again, terminated, taking its dead step, and nothing already paid is a
    reward of the new episode (the returns are its baseline)."""
    from envs import over_and_out_v0

    env = over_and_out_v0.env(num_players=4, starting_chips=1)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _agent in env.agent_iter():
        obs, _r, term, trunc, _i = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    finished = env.unwrapped.state.to_dict()
    again = over_and_out_v0.env(num_players=4, starting_chips=1)
    again.reset(options={"state": finished})
    assert again.agents == again.possible_agents and all(again.terminations.values())
    assert set(again.rewards.values()) == {0.0} and set(again._cumulative_rewards.values()) == {0.0}
    steps = 0
    for _agent in again.agent_iter():
        _obs, reward, term, _trunc, _i = again.last()
        assert term and reward == 0.0
        again.step(None)
        steps += 1
    assert steps == 4


def test_round_plays_slot_is_clipped_for_a_long_round() -> None:
    """§7: slot 59 is the plays of this round / 100, clipped to 1, so a round longer than 100
    plays (a loaded state may say 150) stays inside the observation space."""
    from envs import over_and_out_v0

    env = over_and_out_v0.env(num_players=2)
    env.reset(seed=0)
    d = env.unwrapped.state.to_dict()
    d["plays"], d["round_plays"] = 150, 150
    env.reset(options={"state": d})
    obs = env.observe(env.agent_selection)
    assert obs["observation"][59] == 1.0
    assert env.observation_space(env.agent_selection).contains(obs)
