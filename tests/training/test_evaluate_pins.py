"""Pins found by mutation testing of ``training/evaluate.py`` and ``training/players.py``
(``eightfold eval``): which player sits in which seat, which pairings each mode plays, the
players a tournament refuses, a start checked against every game's deal, a model's greedy or
sampled moves, the numbers of the printed table, and the files written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from envs.core.bots import Bot
from envs.core.game import GameState, legal_indices
from envs.core.registry import GAMES, installed_games
from training.cli import main
from training.evaluate import run_tournament
from training.replay import decisions, load_records
from training.tournament import deal_rng, game_seed, start_of

needs = pytest.mark.skipif(
    not {"octi", "over_and_out", "otto_octopus"} <= set(installed_games()), reason="games not installed"
)
pytestmark = needs


class Lowest(Bot):
    """Always the lowest legal action: its moves show which seats it held."""

    name = "lowest"

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        return int(legal_indices(state.legal_mask())[0])


class Highest(Bot):
    """Always the highest legal action."""

    name = "highest"

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        return int(legal_indices(state.legal_mask())[-1])


@pytest.fixture
def marked_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every game's bot table gains ``lowest`` and ``highest`` (the tournament builds its
    players from :func:`training.players.game_bots`)."""
    import training.players as players

    real = players.game_bots
    monkeypatch.setattr(
        players, "game_bots", lambda entry: {**real(entry), "lowest": Lowest, "highest": Highest}
    )


@pytest.mark.parametrize(
    ("name", "params"), [("octi", {"max_turns": 6}), ("over_and_out", {"num_players": 3})]
)
def test_each_named_player_makes_the_moves_of_its_own_seats(
    name: str, params: dict[str, Any], marked_bots: None
) -> None:
    """The pairing's first player plays the seat its record gives it and the second player the
    others, move by move (the two players swapped, or the second replaced by the first, kept
    every count adding up while the table credited one player with the other's games)."""
    n = GAMES[name].game_class()(**params).num_players
    res = run_tournament(name, params, ["lowest", "highest"], n, workers=1, records=True)
    assert len(res["records"]) == n
    for g, rec in enumerate(res["records"]):
        assert rec["seats"] == ["lowest" if s == g % n else "highest" for s in range(n)]
        cols = decisions(rec, "record", g)
        assert set(cols["seats"]) == set(range(n)), "every seat moved"
        for mask, action, who in zip(cols["action_masks"], cols["actions"], cols["players"], strict=True):
            legal = np.flatnonzero(mask)
            assert action == (legal[0] if who == "lowest" else legal[-1]), (g, who)


def test_each_mode_plays_the_pairings_it_names() -> None:
    """``first`` pairs the first player with every other one (not just the second); ``all``
    plays every pair once with two seats, and both ways only beyond two seats; a game of two
    seats is played with seats rotated (not as a solo game's shared deals)."""
    three = ["random", "greedy", "heuristic"]
    for params, mode, want in (
        ({"num_players": 2}, "first", [("random", "greedy"), ("random", "heuristic")]),
        ({"num_players": 2}, "all", [("random", "greedy"), ("random", "heuristic"), ("greedy", "heuristic")]),
        ({"num_players": 3}, "first", [("random", "greedy"), ("random", "heuristic")]),
    ):
        res = run_tournament("over_and_out", params, three, 1, mode=mode, workers=1)
        assert [(p["a"], p["b"]) for p in res["pairs"]] == want, (params, mode)
        assert res["games_per_pairing"] == 1 and all(p["games"] == 1 for p in res["pairs"])
        assert res["players"] == three and set(res["elo"]) == set(three)
        assert (res["sides"], res["seating"]) == (params["num_players"], "seats rotated")
        assert res["num_players"] == params["num_players"] and res["env"] == "eightfold/over_and_out-v0"


def test_one_player_or_a_repeated_one_is_refused() -> None:
    """A tournament of one player (no pairing: an empty table) or with a player named twice
    (its pairings merged into one, of doubled games) is refused before any game."""
    with pytest.raises(ValueError, match=r"^name at least two players"):
        run_tournament("over_and_out", {"num_players": 2}, ["random"], 2, workers=1)
    with pytest.raises(ValueError, match=r"^players must be distinct, got \['random', 'greedy', 'greedy'\]"):
        run_tournament("over_and_out", {"num_players": 2}, ["random", "greedy", "greedy"], 2, workers=1)


def test_a_start_is_checked_against_every_games_own_deal_at_the_seed() -> None:
    """Moves legal after game 1's deal at ``--seed 5`` but not after a later game's are refused
    before any game, naming that game and the seed (only game 1 checked, or the deals of seed 0
    checked, let the tournament start and fail midway, or named the wrong game)."""
    game = GAMES["otto_octopus"].game_class()()
    seed = 5
    state = start_of(game, deal_rng(game, game_seed(seed, 0)))
    rng = np.random.default_rng(0)
    moves = []
    for _ in range(6):
        action = int(rng.choice(legal_indices(state.legal_mask())))
        moves.append(state.action_to_string(action))
        state.apply(action)
    bad = None
    for g in range(1, 12):
        try:
            start_of(game, deal_rng(game, game_seed(seed, g)), (None, moves))
        except ValueError:
            bad = g
            break
    assert bad is not None, "some later deal refuses the moves"
    players = ["random", "heuristic"]
    with pytest.raises(
        ValueError, match=rf"^game {bad + 1} of each pairing \(its own deal, --seed {seed}\): "
    ):
        run_tournament("otto_octopus", {}, players, bad + 1, seed=seed, workers=1, start=(None, moves))


def _greedy_moves(records: Path, model: Path) -> tuple[int, int]:
    """(moves of ``model`` in the records that are its most likely move, all its moves)."""
    import torch
    from sb3_contrib import MaskablePPO

    policy = MaskablePPO.load(model, device="cpu").policy
    greedy = total = 0
    for k, rec in enumerate(load_records(records)):
        cols = decisions(rec, "record", k, player=str(model))
        for obs, mask, action in zip(
            cols["observations"], cols["action_masks"], cols["actions"], strict=True
        ):
            with torch.no_grad():
                dist = policy.get_distribution(torch.as_tensor(obs[None]), action_masks=mask[None])
            probs = dist.distribution.probs[0].numpy()  # type: ignore[union-attr]
            greedy += int(np.argmax(probs)) == action
            total += 1
    return greedy, total


def test_a_model_plays_its_most_likely_move_unless_stochastic(
    octi_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``eval`` plays a model's best move at every turn by default and samples with
    ``--stochastic``, in this order in one process (a flag inverted, ignored, or a player
    cached without it changed which policy the table rated)."""
    records = tmp_path / "games.jsonl"
    args = ["eval", "octi", "--param", "max_turns=8", "--players", str(octi_model), "random"]
    args += ["--games", "2", "--workers", "1", "--records", str(records)]
    assert main(args) == 0
    greedy, total = _greedy_moves(records, octi_model)
    assert total >= 4 and greedy == total, "deterministic by default"
    assert main([*args, "--stochastic"]) == 0
    greedy, total = _greedy_moves(records, octi_model)
    assert total >= 4 and greedy < total, "--stochastic samples"
    capsys.readouterr()


def test_the_table_prints_each_pairings_own_numbers() -> None:
    """Every row of the table shows its pairing's games, wins, draws, losses, win rate with
    its interval (low first) and, beyond two sides, the mean place; a long name keeps its head
    and its end (the run's folder and the file name that tell models apart) around an ellipsis;
    Elo is listed best first. A 2v2 game has two sides: no place column (a swapped column or
    bound printed wrong numbers under the right heads)."""
    from training.evaluate import format_table, short_names

    res = run_tournament("over_and_out", {"num_players": 3}, ["random", "greedy", "heuristic"], 3, workers=1)
    long = "runs/a-rather-long-experiment-name/checkpoints/model_123456_steps.zip"
    res["pairs"][1]["b"] = long
    res["elo"] = {"random": 1000.0, "greedy": 1234.0, long: 900.0}
    lines = format_table(res).splitlines()
    shown = short_names(["random", "greedy", "heuristic", long])[long]
    assert shown == long[:10] + "..." + long[-21:] and len(shown) == 34
    assert lines[0].split()[-1] == "place"
    for line, p in zip(lines[2:4], res["pairs"], strict=True):
        lo, hi = p["win_rate_ci95"]
        assert line.split()[1:] == [
            shown if p["b"] == long else p["b"],
            str(p["games"]), str(p["wins"]), str(p["draws"]), str(p["losses"]),
            f"{p['win_rate']:.3f}", f"[{lo:.3f},", f"{hi:.3f}]", f"{p['mean_placement']:.2f}",
        ]  # fmt: skip
    assert shown in lines[3]
    assert lines[-1].endswith(f"greedy 1234, random 1000, {shown} 900")
    two_sides = {**res, "num_players": 4, "sides": 2}
    assert "place" not in format_table(two_sides).splitlines()[0]
    assert format_table(two_sides).splitlines()[2].split()[-1] == f"{hi:.3f}]"


def test_the_final_evaluation_plays_the_model_first_against_each_baseline(
    octi_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``train --eval-games N``: the model is the first player, paired with each of
    ``eval_opponents`` (only), ``final_eval_games`` games each, in the run's game; the report
    written to ``final_eval.json`` is the one returned, next to ``final_eval.png``."""
    from training.config import TrainConfig
    from training.evaluate import evaluate_model_vs_baselines

    cfg = TrainConfig(
        env="octi",
        params={"max_turns": 8},
        eval_opponents=["random", "greedy"],
        final_eval_games=3,
        eval_games=5,
        eval_workers=1,
    )
    res = evaluate_model_vs_baselines(cfg, octi_model, tmp_path)
    model = str(octi_model)
    assert res["players"] == [model, "random", "greedy"] and res["params"] == {"max_turns": 8}
    assert [(p["a"], p["b"], p["games"]) for p in res["pairs"]] == [
        (model, "random", 3),
        (model, "greedy", 3),
    ]
    assert json.loads((tmp_path / "final_eval.json").read_text()) == json.loads(json.dumps(res))
    assert (tmp_path / "final_eval.png").stat().st_size > 1000
    out = capsys.readouterr().out
    assert "3 games each, seats swapped" in out and f"wrote {tmp_path / 'final_eval.json'}" in out


def _numpy_global_state() -> tuple[list[int], int]:
    """numpy's global Mersenne Twister: its key and position."""
    state: Any = np.random.get_state()
    return [int(x) for x in state[1]], int(state[2])


def test_a_sampling_model_draws_from_the_callers_generator_only(octi_model: Path) -> None:
    """A stochastic model samples with the ``rng`` it is given: the same generator gives the
    same moves whatever numpy's global state (the tournament's ``--seed`` fixes its games), and
    the global state is left alone (drawing from it made seeded games differ run to run)."""
    from training.players import PolicyPlayer

    game = GAMES["octi"].game_class()(max_turns=8)
    player = PolicyPlayer.load(str(octi_model), game, deterministic=False)
    state = game.new_initial_state(np.random.default_rng(0))
    picks = []
    for global_seed in (0, 99):
        np.random.seed(global_seed)
        before = _numpy_global_state()
        rng = np.random.default_rng(1)
        picks.append([player.act(state, state.current_player(), rng) for _ in range(30)])
        assert _numpy_global_state() == before, "numpy's global state untouched"
    assert picks[0] == picks[1] and len(set(picks[0])) > 1


def test_the_commands_options_reach_the_tournament_and_its_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``eval --mode all --seed 3 --games 2 --records F --json J``: every pair plays, each game
    deals from ``--seed``, every game's record is written (and none into the JSON), and the
    command says how many (an option dropped on its way played another tournament)."""
    records, out = tmp_path / "games.jsonl", tmp_path / "r.json"
    args = ["eval", "over_and_out", "--param", "num_players=2", "--players", "random", "greedy", "heuristic"]
    args += ["--games", "2", "--mode", "all", "--seed", "3", "--workers", "1"]
    assert main([*args, "--records", str(records), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    res = json.loads(out.read_text())
    pairs = [("random", "greedy"), ("random", "heuristic"), ("greedy", "heuristic")]
    assert [(p["a"], p["b"]) for p in res["pairs"]] == pairs and "records" not in res
    assert set(res["elo"]) == {"random", "greedy", "heuristic"} and res["elo"]["random"] == 1000.0
    recs = load_records(records)
    assert [tuple(r["pairing"]) for r in recs] == [p for p in pairs for _ in range(2)]
    assert [r["seed"] for r in recs] == [game_seed(3, g) for _ in pairs for g in range(2)]
    assert f"wrote {records} (6 games; eightfold replay {records} lists them)" in printed
    assert f"wrote {out}" in printed and "win rate [95% CI]" in printed and "Elo (Bradley-Terry" in printed


def test_a_policy_of_other_observations_or_actions_is_refused_naming_both() -> None:
    """A policy is refused by a game whose observation shape differs, or whose action count
    differs with the same observations (either check alone let a model play a game it was
    not trained for, on misread inputs or actions)."""
    from tests.training.test_mutation_gaps import _toy_policy
    from tests.training.toy_game import ToyGame
    from training.players import PolicyPlayer

    class FourActions(ToyGame):
        @property
        def num_actions(self) -> int:
            return 4

    policy = _toy_policy(ToyGame(num_players=2, target=6))
    PolicyPlayer(policy, ToyGame(num_players=2, target=6), name="m.zip")  # its own game: accepted
    for game, theirs in (
        (ToyGame(num_players=2, target=8), "(12,) / 3"),
        (FourActions(num_players=2, target=6), "(10,) / 4"),
    ):
        with pytest.raises(ValueError, match="was trained on observations") as err:
            PolicyPlayer(policy, game, name="m.zip")
        assert "policy 'm.zip' was trained on observations (10,) / 3 actions" in str(err.value)
        assert f"but this game config has {theirs}: a model of another game, variant or player count" in str(
            err.value
        )


def test_loading_a_model_leaves_the_global_generators_where_they_were(
    octi_model: Path, tmp_path: Path
) -> None:
    """sb3's ``load`` re-seeds ``random``, numpy and torch; their states are put back (a
    snapshot loaded into a ``dummy`` run's process shifted the run's random stream)."""
    import random
    import shutil

    import torch

    from training.players import PolicyPlayer

    path = tmp_path / "fresh.zip"  # a file no earlier test loaded: a real load
    shutil.copy(octi_model, path)
    random.seed(7)
    np.random.seed(7)
    torch.manual_seed(7)
    before = (random.getstate(), _numpy_global_state(), torch.get_rng_state().clone())
    PolicyPlayer.load(str(path), GAMES["octi"].game_class()(max_turns=8))
    assert random.getstate() == before[0]
    assert _numpy_global_state() == before[1]
    assert torch.equal(torch.get_rng_state(), before[2])


def test_a_missing_model_is_named_and_a_checkpoint_finds_its_runs_game(tmp_path: Path) -> None:
    """A model path that holds nothing is a ValueError naming it (with the env given too);
    a model in a run's ``checkpoints/`` or ``pool/`` folder finds the run's ``config.yaml``
    (env and params for ``eval`` without an env name; the first model named decides)."""
    from training.evaluate import infer_env
    from training.players import trained_with

    missing = str(tmp_path / "none.zip")
    with pytest.raises(ValueError, match=rf"^no model at {missing!r}"):
        run_tournament("octi", {"max_turns": 8}, [missing, "random"], 2, workers=1)
    (tmp_path / "config.yaml").write_text("env: over_and_out\nparams:\n  num_players: 3\n")
    for folder in ("checkpoints", "pool", "."):
        model = tmp_path / folder / "model_128_steps.zip"
        model.parent.mkdir(exist_ok=True)
        model.write_bytes(b"")
        assert trained_with(str(model)) == ("over_and_out", {"num_players": 3}), folder
        assert infer_env(["random", str(model)]) == ("over_and_out", {"num_players": 3}), folder
    other = tmp_path / "other"  # two runs named: the first model's run decides
    other.mkdir()
    (other / "config.yaml").write_text("env: octi\nparams: {max_turns: 8}\n")
    (other / "model.zip").write_bytes(b"")
    assert infer_env([str(other / "model.zip"), str(model)]) == ("octi", {"max_turns": 8})
    assert infer_env([str(model), str(other / "model.zip")]) == ("over_and_out", {"num_players": 3})


def test_an_opponent_pool_of_no_specs_is_refused() -> None:
    """No opponent named is an error, not a pool in which the random fallback silently
    plays every game."""
    from training.players import OpponentPool

    game = GAMES["over_and_out"].game_class()(num_players=2)
    nothing: tuple[list[str], dict[str, float]] = ([], {})
    for specs in nothing:
        with pytest.raises(ValueError, match=r"^the opponent pool is empty"):
            OpponentPool.from_specs(game, specs, GAMES["over_and_out"].bots())


def test_a_model_file_rewritten_since_is_played_anew(
    octi_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tournament names a model file that an earlier one in this process played, rewritten
    since with other weights (a resumed run's ``model.zip``, a notebook training and evaluating
    in turn): its moves are the new policy's. The player cache, keyed by the path alone, went
    on playing the old one."""
    import os
    import shutil

    import torch
    from sb3_contrib import MaskablePPO

    model = tmp_path / "model.zip"
    shutil.copy(octi_model, model)
    records = tmp_path / "games.jsonl"
    args = ["eval", "octi", "--param", "max_turns=8", "--players", str(model), "random"]
    args += ["--games", "2", "--workers", "1", "--records", str(records)]
    assert main(args) == 0
    first = [rec["moves"] for rec in load_records(records)]
    other = MaskablePPO.load(octi_model, device="cpu")
    with torch.no_grad():
        for p in other.policy.parameters():
            p.add_(torch.randn_like(p))
    other.save(model)
    os.utime(model, ns=(os.stat(model).st_atime_ns, os.stat(model).st_mtime_ns + 10**10))
    assert main(args) == 0
    greedy, total = _greedy_moves(records, model)
    assert total >= 4 and greedy == total, "the rewritten file's policy plays"
    assert [rec["moves"] for rec in load_records(records)] != first


def test_an_in_process_tournament_leaves_the_callers_torch_threads(octi_model: Path) -> None:
    """A tournament played in this process (one worker) puts torch's thread count back: one
    thread is a pool worker's setting, and a caller going on with torch work kept it."""
    import torch

    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        run_tournament("octi", {"max_turns": 8}, [str(octi_model), "random"], 2, workers=1)
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
