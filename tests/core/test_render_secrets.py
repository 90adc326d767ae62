"""The text pictures show the hand of the seat to act only (a spectator's view with the
mover's hand; each env's doc page): a mutation round found that printing every seat's hand, or
the next seat's, passed every test."""

from __future__ import annotations

import numpy as np

from envs import otto_game_over_v0, otto_octopus_v0, over_and_out_v0


def _random_steps(env, steps: int, check) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng([0, 1])
    env.reset(seed=0)
    for _ in range(steps):
        if any(env.terminations.values()) or any(env.truncations.values()):
            break
        check(env)
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))


def test_over_and_out_text_shows_one_hand_on_the_movers_line() -> None:
    def check(env) -> None:  # type: ignore[no-untyped-def]
        lines = [line for line in env.render().splitlines() if "hand:" in line]
        assert len(lines) == 1 and lines[0].startswith(">"), lines

    _random_steps(over_and_out_v0.env(render_mode="ansi", num_players=3), 40, check)


def test_otto_octopus_text_shows_the_movers_hand_only() -> None:
    def check(env) -> None:  # type: ignore[no-untyped-def]
        raw = env.unwrapped
        hands = raw.snapshot()["hands"]
        actor = int(env.agent_selection.split("_")[1])
        shown = [line for line in env.render().splitlines() if "hand:" in line]
        assert len(shown) == 1 and shown[0].endswith("hand: " + ", ".join(hands[actor])), (shown, hands)

    _random_steps(otto_octopus_v0.env(render_mode="ansi"), 40, check)


def test_otto_game_over_text_names_no_card_held() -> None:
    env = otto_game_over_v0.env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    seats = [line for line in text.splitlines() if line.startswith("player_") and "table" in line]
    assert seats == ["player_0: table F12, 1 card(s)", "player_1: table E12, 1 card(s)"], seats
    held = {name.lower() for hand in env.unwrapped.snapshot()["hands"] for name in hand}
    assert held and not any(name in text.lower() for name in held), held
