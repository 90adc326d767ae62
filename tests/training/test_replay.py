"""Game records: ``eightfold eval --records`` (``run_tournament(records=True)``) and
``eightfold replay`` (``training/replay.py``), which plays them again."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from envs.core.game import STATE_OPTION
from envs.core.registry import GAMES, get_game, installed_games
from training.cli import main
from training.evaluate import run_tournament
from training.position import reset_to_position
from training.replay import DATASET_KEYS, load_records, replay
from training.tournament import deal_rng, game_seed, start_of

#: configurations whose games between bots end quickly, one of each kind of seating
CASES = {
    "two seats": ("octi", {"max_turns": 16}),
    "three seats, seats go out": ("over_and_out", {"num_players": 3, "starting_chips": 1}),
    "2v2 teams": ("otto_game_over", {"num_players": 4, "teams": True, "episode": "match"}),
    "solo": ("otto_octopus", {"num_players": 1}),
}


def _cases() -> list[Any]:
    return [
        pytest.param(name, params, id=case)
        for case, (name, params) in CASES.items()
        if name in installed_games()
    ]


@pytest.mark.parametrize(("name", "params"), _cases())
def test_records_replay_and_add_up_to_the_table(name: str, params: dict[str, Any]) -> None:
    games = 4
    plain = run_tournament(name, params, ["heuristic", "random"], games, workers=1)
    res = run_tournament(name, params, ["heuristic", "random"], games, workers=1, records=True)
    records = res.pop("records")
    assert res == plain  # keeping the records changes no result
    n = GAMES[name].game_class()(**params).num_players
    solo = n == 1
    assert len(records) == games * (2 if solo else 1)
    pair = res["pairs"][0]
    results = [r["result"] for r in records[:: 2 if solo else 1]]
    assert (results.count("win"), results.count("draw"), results.count("loss")) == (
        pair["wins"],
        pair["draws"],
        pair["losses"],
    )
    for k, rec in enumerate(records):
        g = k // 2 if solo else k
        assert rec["env"] == GAMES[name].env_id and rec["params"] == params
        assert rec["pairing"] == ["heuristic", "random"] and rec["game"] == g
        assert rec["seed"] == game_seed(0, g)
        if solo:
            assert rec["seats"] == [["heuristic", "random"][k % 2]]
        else:  # the first player's seat rotates, the second fills the others
            assert rec["seats"] == ["heuristic" if s == g % n else "random" for s in range(n)]
        out = io.StringIO()
        env, played = replay(rec, f"record {k}", out)
        assert played == len(rec["moves"]) > 0
        assert env.unwrapped.state.returns().tolist() == rec["returns"]
        assert "game over after" in out.getvalue()
    json.dumps(records)  # one JSON line each


@pytest.mark.skipif("octi" not in installed_games(), reason="Octi not installed")
def test_records_start_where_the_tournament_starts() -> None:
    start = (None, ["prong c2 N", "prong d6 S"])
    res = run_tournament(
        "octi", {"max_turns": 16}, ["heuristic", "random"], 2, workers=1, start=start, records=True
    )
    game = GAMES["octi"].game_class()(max_turns=16)
    for rec in res["records"]:
        first = start_of(game, deal_rng(game, rec["seed"]), start)
        assert rec["options"] == {STATE_OPTION: first.to_dict()}
        replay(rec, "record", io.StringIO())


@pytest.fixture(scope="module")
def records_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    name = "over_and_out" if "over_and_out" in installed_games() else installed_games()[0]
    path = tmp_path_factory.mktemp("records") / "games.jsonl"
    args = ["eval", name, "--players", "heuristic", "greedy", "--games", "3", "--workers", "1"]
    if name == "over_and_out":
        args += ["--param", "num_players=2"]
    assert main([*args, "--records", str(path)]) == 0
    return path


def test_eval_writes_one_line_per_game_and_replay_lists_them(
    records_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = records_file.read_text().splitlines()
    assert len(lines) == 3 and all(json.loads(line)["pairing"] == ["heuristic", "greedy"] for line in lines)
    assert main(["replay", str(records_file)]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0].split()[:4] == ["#", "result", "moves", "returns"]
    for k, (row, line) in enumerate(zip(listed[1:], lines, strict=True), 1):
        rec = json.loads(line)
        assert row.split()[:3] == [str(k), rec["result"], str(len(rec["moves"]))]
        assert f"(game {k} of heuristic vs greedy)" in row and rec["game"] == k - 1  # from 0 in the file
        assert rec["truncated"] is False and "cut off" not in row


def test_replay_shows_every_move_and_stops_where_asked(
    records_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = load_records(records_file)[1]
    assert main(["replay", str(records_file), "2"]) == 0
    text = capsys.readouterr().out
    for i, move in enumerate(rec["moves"]):
        assert f"[{i}] " in text and f": {move}\n" in text
    assert "game over after" in text and f"heuristic's {rec['result']}" in text
    png = tmp_path / "pos.png"
    assert main(["replay", str(records_file), "2", "--upto", "3", "--out", str(png)]) == 0
    text = capsys.readouterr().out
    assert (
        "[2] " in text
        and "[3] " not in text
        and f"(stopped after 3 of the record's {len(rec['moves'])} moves)" in text
    )
    env = get_game(rec["env"]).env(**rec["params"], render_mode="rgb_array")
    env.reset(options=rec["options"])
    for move in rec["moves"][:3]:
        env.step(env.unwrapped.string_to_action(move))
    assert np.array_equal(np.asarray(Image.open(png).convert("RGB")), env.render())
    # --save: the position as reset options, which play --options @FILE takes
    saved = tmp_path / "pos.json"
    assert main(["replay", str(records_file), "2", "--upto", "3", "--save", str(saved)]) == 0
    text = capsys.readouterr().out
    params = "".join(f" --param {k}={json.dumps(v)}" for k, v in rec["params"].items())
    assert (
        f"play on from there: eightfold play {env.unwrapped.game.name}{params} --options @{saved} --vs"
        in text
    )
    assert json.loads(saved.read_text()) == {STATE_OPTION: env.unwrapped.state.to_dict()}
    again = get_game(rec["env"]).env(**rec["params"])
    reset_to_position(again, 0, f"@{saved}", None)
    assert again.unwrapped.state.to_dict() == env.unwrapped.state.to_dict()


def test_records_that_do_not_replay_are_named(
    records_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = load_records(records_file)[0]
    bad = tmp_path / "bad.jsonl"

    def case(content: str, *args: str) -> str:
        bad.write_text(content)
        assert main(["replay", str(bad), *args]) == 2
        return capsys.readouterr().err

    assert f"'{bad}' line 2 is not JSON" in case(json.dumps(rec) + "\n{oops\n")
    assert f"'{bad}' line 1 is not a game record of eightfold eval --records: it lacks ['moves']" in case(
        json.dumps({k: v for k, v in rec.items() if k != "moves"})
    )
    assert f"'{bad}' holds no game records" in case("\n")
    assert f"'{bad}' line 1: seats must be a non-empty list of player names, got 'ab'" in case(
        json.dumps({**rec, "seats": "ab"})
    )
    assert f"'{bad}' line 1: returns must be a list of numbers, one per seat" in case(
        json.dumps({**rec, "returns": rec["returns"][:1]})
    )
    for options in (5, {}, {"position": {}}):  # a record starts from its first state, nothing else
        assert f"'{bad}' line 1: options must be {{\"state\": ...}} (the game's first state" in case(
            json.dumps({**rec, "options": options})
        )
    for key, value, expected in (
        ("pairing", ["x"], "a list of the pairing's two player names, got ['x']"),
        ("game", -1, "an int >= 0, got -1"),
        ("result", "won", "one of ['win', 'draw', 'loss'], got 'won'"),
        ("truncated", "no", "true or false, got 'no'"),
        ("params", {"render_mode": "ansi"}, "a JSON object of the game's parameters"),
    ):
        assert f"'{bad}' line 1: {key} must be {expected}" in case(json.dumps({**rec, key: value}))
    assert f"{bad} game 1: num_players must be an int in [2, 8], got 'x'" in case(
        json.dumps({**rec, "params": {"num_players": "x"}}), "1"
    )
    assert f"{bad} game 1: unknown game 'eightfold/nope-v0'" in case(
        json.dumps({**rec, "env": "eightfold/nope-v0"}), "1"
    )
    assert "game must be in [1, 1] (the file holds 1 games), got 2" in case(json.dumps(rec), "2")
    assert "--upto, --delay, --out, --save and --gif replay one game: name it" in case(
        json.dumps(rec), "--upto", "3"
    )
    edited = {**rec, "moves": [*rec["moves"][:1], "play 42", *rec["moves"][2:]]}
    assert f"{bad} game 1: move 2 'play 42'" in case(json.dumps(edited), "1")
    rigged = {**rec, "returns": [-x for x in rec["returns"]]}
    err = case(json.dumps(rigged), "1")
    assert f"{bad} game 1 does not replay: after its {len(rec['moves'])} moves returns" in err
    cut = {**rec, "moves": rec["moves"][:-1]}
    assert "the game is not over, but the record says returns" in case(json.dumps(cut), "1")
    other = {**rec, "params": {"num_players": 3}}
    assert (
        f"{bad} game 1: its seats name 2 players, but over_and_out with its params {{'num_players': 3}} has 3"
        in (case(json.dumps(other), "1"))
    )
    other = {**rec, "params": {"num_players": 2, "starting_chips": 3}}
    assert "its options do not set up a game: reset option 'state' holds a game of other parameters" in case(
        json.dumps(other), "1"
    )


def test_records_from_worker_processes_are_those_of_one_process() -> None:
    """40+ games go to the process pool: the records come back whole and in game order."""
    name, params = "over_and_out", {"num_players": 2}
    players = ["heuristic", "greedy"]
    pooled = run_tournament(name, params, players, 40, workers=2, records=True)
    alone = run_tournament(name, params, players, 40, workers=1, records=True)
    assert [r["game"] for r in pooled["records"]] == list(range(40))
    assert pooled == alone


@pytest.mark.parametrize(("name", "params"), _cases())
def test_dataset_rows_are_the_envs_observations_masks_and_moves(
    name: str, params: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--dataset``: one row per decision, equal to what env() shows the seat to act at that
    move, seats that are out skipped."""
    records = run_tournament(name, params, ["heuristic", "random"], 2, workers=1, records=True)["records"]
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "d.npz"
    assert main(["replay", str(path), "--dataset", str(out)]) == 0
    assert f"wrote {out}: {sum(len(r['moves']) for r in records)} decisions from {len(records)} game(s)" in (
        capsys.readouterr().out
    )
    data = np.load(out)
    assert sorted(data.files) == sorted(DATASET_KEYS)
    row = 0
    for n, rec in enumerate(records, 1):
        env = get_game(rec["env"]).env(**rec["params"])
        env.reset(options=rec["options"])
        raw = env.unwrapped
        for step, move in enumerate(rec["moves"]):
            while env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
                env.step(None)
            agent = env.agent_selection
            seat = raw.possible_agents.index(agent)
            shown = env.observe(agent)
            np.testing.assert_array_equal(data["observations"][row], shown["observation"])
            np.testing.assert_array_equal(data["action_masks"][row], shown["action_mask"].astype(bool))
            action = raw.string_to_action(move)
            assert (data["actions"][row], data["seats"][row], data["steps"][row], data["games"][row]) == (
                action,
                seat,
                step,
                n,
            )
            assert data["players"][row] == rec["seats"][seat] and data["returns"][row] == np.float32(
                rec["returns"][seat]
            )
            env.step(action)
            row += 1
    assert row == len(data["actions"])
    # --player keeps that player's seats only; game N alone
    mine = tmp_path / "mine.npz"
    assert main(["replay", str(path), "2", "--dataset", str(mine), "--player", "random"]) == 0
    kept = np.load(mine)
    chosen = (data["games"] == 2) & (data["players"] == "random")
    assert kept["actions"].tolist() == data["actions"][chosen].tolist() and chosen.any()
    np.testing.assert_array_equal(kept["observations"], data["observations"][chosen])


def test_replay_save_prints_a_command_a_shell_takes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--save``'s command line quotes each ``--param`` (a JSON value holds spaces and quotes)."""
    import shlex

    path, pos = tmp_path / "d.jsonl", tmp_path / "pos.json"
    deck = '{"0": 20, "1": 20, "x2": 4}'
    args = ["eval", "over_and_out", "--param", "num_players=2", "--param", f"deck_counts={deck}"]
    assert main([*args, "--players", "random", "greedy", "--games", "1", "--records", str(path)]) == 0
    capsys.readouterr()
    assert main(["replay", str(path), "1", "--upto", "2", "--save", str(pos)]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    command = shlex.split(line.split("play on from there: ", 1)[1])
    assert command[:2] == ["eightfold", "play"] and f"deck_counts={deck}" in command


def test_dataset_mistakes_are_named(
    records_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "d.npz")

    def err(*args: str) -> str:
        assert main(["replay", *args]) == 2
        return capsys.readouterr().err

    assert "--player picks the decisions of --dataset" in err(str(records_file), "--player", "heuristic")
    assert "--dataset writes whole games; --upto" in err(str(records_file), "--dataset", out, "--upto", "3")
    assert "--dataset: no decision of player 'mcts' in" in err(
        str(records_file), "--dataset", out, "--player", "mcts"
    )
    rec = load_records(records_file)[0]
    mixed = tmp_path / "mixed.jsonl"
    other = {**rec, "params": {"num_players": 2, "starting_chips": 3}}
    mixed.write_text(json.dumps(rec) + "\n" + json.dumps(other) + "\n")
    assert "--dataset: game 2 of" in err(str(mixed), "--dataset", out)
    assert not Path(out).exists()
    # the same game, named and parametrised another way, goes in the same dataset
    same = {**rec, "env": "over_and_out", "params": {"num_players": 2, "starting_chips": 4}}
    mixed.write_text(json.dumps(rec) + "\n" + json.dumps(same) + "\n")
    assert main(["replay", str(mixed), "--dataset", out]) == 0
    assert set(np.load(out)["games"].tolist()) == {1, 2}


def test_play_adds_finished_games_to_a_record_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``play --record``: ``--watch``/``--random`` and ``--vs`` games that end are appended in
    ``eval --records``' form (the first state is where play started, after ``--moves``);
    games left or stopped early are not."""
    path = tmp_path / "played.jsonl"
    oao = ["over_and_out", "--param", "num_players=2"]
    assert main(["play", *oao, "--watch", "heuristic", "random", "--record", str(path)]) == 0
    assert main(["play", *oao, "--random", "--seed", "4", "--record", str(path)]) == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 400))
    assert (
        main(["play", *oao, "--vs", "greedy", "--seat", "1", "--moves", "play 3", "--record", str(path)]) == 0
    )
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", *oao, "--vs", "greedy", "--record", str(path)]) == 0
    assert main(["play", *oao, "--random", "--max-steps", "3", "--record", str(path)]) == 0
    text = capsys.readouterr().out
    assert (
        text.count(f"added the game to {path}") == 3
        and text.count(f"(not added to {path}: the game did not end)") == 2
    )
    records = load_records(path)
    assert [r["seats"] for r in records] == [
        ["heuristic", "random"],
        ["random", "random"],
        ["greedy", "human"],
    ]
    assert [r["seed"] for r in records] == [0, 4, 0] and all(
        r["params"] == {"num_players": 2} for r in records
    )
    for k, rec in enumerate(records):
        env, played = replay(rec, f"record {k}", io.StringIO())
        assert played == len(rec["moves"]) and env.unwrapped.state.returns().tolist() == rec["returns"]
    # the --vs game starts after its --moves: its first state is the one "play 3" led to
    env = get_game("over_and_out").env(num_players=2)
    reset_to_position(env, 0, None, "play 3")
    assert records[2]["options"] == {STATE_OPTION: env.unwrapped.state.to_dict()}
    assert main(["replay", str(path), "3", "--dataset", str(tmp_path / "h.npz"), "--player", "human"]) == 0
    human = np.load(tmp_path / "h.npz")
    assert (
        len(human["seats"]) > 0 and set(human["seats"].tolist()) == {1} and set(human["players"]) == {"human"}
    )
    # the --vs game is a pairing's game, as eval writes one: human against the bot, the human's result
    vs = records[2]
    human_result = "win" if vs["returns"][1] > vs["returns"][0] else "loss"
    assert (vs["pairing"], vs["game"], vs["result"]) == (["human", "greedy"], 0, human_result)
    assert all("pairing" not in r and "result" not in r for r in records[:2])
    assert main(["replay", str(path), "--result", human_result]) == 0
    assert "(game 1 of human vs greedy)" in capsys.readouterr().out


def test_play_records_a_game_that_ends_on_its_last_allowed_step_and_keeps_lines_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--max-steps N`` stops a game still running after N moves; a game that ended on its
    N-th is over and recorded. A file whose last line lacks its newline gets one first."""
    path = tmp_path / "p.jsonl"
    args = ["play", "over_and_out", "--param", "num_players=2", "--random", "--seed", "4"]
    assert main([*args, "--record", str(path)]) == 0
    n = len(load_records(path)[0]["moves"])
    path.write_text(path.read_text().rstrip("\n"))  # as an editor may leave it
    assert main([*args, "--max-steps", str(n), "--record", str(path)]) == 0
    assert main([*args, "--max-steps", str(n - 1), "--record", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.count(f"added the game to {path}") == 2 and f"(stopped after {n - 1} steps" in out
    first, second = load_records(path)
    assert first == second


def test_truncated_games_are_marked_in_records_lists_and_datasets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A game cut off at its step limit is no draw of play: the record, the list and the
    dataset say so (``truncated``), for offline RL's bootstrapping."""
    path, data = tmp_path / "t.jsonl", tmp_path / "t.npz"
    args = ["eval", "octi", "--param", "max_turns=3", "--players", "random", "greedy", "--games", "2"]
    assert main([*args, "--workers", "1", "--records", str(path)]) == 0
    assert all(r["truncated"] and r["result"] == "draw" for r in load_records(path))
    capsys.readouterr()
    assert main(["replay", str(path)]) == 0
    assert capsys.readouterr().out.count("(cut off at the step limit)") == 2
    assert main(["replay", str(path), "--dataset", str(data)]) == 0
    assert np.load(data)["truncated"].all()


def test_replay_gif_holds_every_position_shown(records_file: Path, tmp_path: Path) -> None:
    gif = tmp_path / "game.gif"
    assert main(["replay", str(records_file), "1", "--upto", "4", "--gif", str(gif)]) == 0
    rec = load_records(records_file)[0]
    env = get_game(rec["env"]).env(**rec["params"], render_mode="rgb_array")
    env.reset(options=rec["options"])
    first = env.render()
    with Image.open(gif) as im:
        assert im.n_frames == 5 and im.size == (first.shape[1], first.shape[0])
        # the palette keeps the picture (no dithering): the first frame is the first position
        shown = np.asarray(im.convert("RGB"), dtype=np.int16)
    assert np.abs(shown - first.astype(np.int16)).mean() < 2.0


def test_result_picks_the_games_listed_and_exported(
    records_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--result loss`` lists (or exports) only those games, under their own numbers."""
    recs = load_records(records_file)
    path = tmp_path / "games.jsonl"
    path.write_text(
        "".join(
            json.dumps({**r, "result": res}) + "\n"
            for r, res in zip(recs, ["win", "loss", "win"], strict=True)
        )
    )
    assert main(["replay", str(path), "--result", "win"]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    assert [row.split()[:2] for row in rows] == [["1", "win"], ["3", "win"]]
    out = tmp_path / "d.npz"
    assert main(["replay", str(path), "--result", "loss", "--dataset", str(out)]) == 0
    assert set(np.load(out)["games"].tolist()) == {2}
    capsys.readouterr()
    assert main(["replay", str(path), "--result", "draw"]) == 2
    assert "no game of" in capsys.readouterr().err
    assert main(["replay", str(path), "2", "--result", "loss"]) == 2
    assert "--result picks games for the list or --dataset" in capsys.readouterr().err


def test_tournament_seed_reaches_every_game_and_record() -> None:
    """``--seed`` deals the games: each record carries ``game_seed(seed, g)``, in this process
    and in worker processes alike, and another seed plays other games."""
    name, params, players = "over_and_out", {"num_players": 2}, ["random", "greedy"]
    for workers, games in ((1, 4), (2, 40)):  # 40 games reach the process pool
        res = run_tournament(name, params, players, games, seed=3, workers=workers, records=True)
        assert [r["seed"] for r in res["records"]] == [game_seed(3, g) for g in range(games)]
    three = run_tournament(name, params, players, 6, seed=3, workers=1, records=True)["records"]
    zero = run_tournament(name, params, players, 6, seed=0, workers=1, records=True)["records"]
    assert [r["moves"] for r in three] != [r["moves"] for r in zero]


def test_solo_pairings_play_both_players_on_the_same_deal() -> None:
    """Solo: both players of a pairing play each deal (compared head to head): the two
    records of a game start from the same state and carry the same seed."""
    res = run_tournament(
        "otto_game_over", {"num_players": 1}, ["heuristic", "greedy"], 3, workers=1, records=True
    )
    records = res["records"]
    for g in range(3):
        a, b = records[2 * g], records[2 * g + 1]
        assert a["options"] == b["options"] and a["seed"] == b["seed"] == game_seed(0, g)


def test_mode_all_plays_both_orders_beyond_two_seats() -> None:
    """``--mode all`` with 3 or 4 seats plays each pair both ways (one seat against the
    others' several, and the reverse), so no player's order decides the ratings."""
    for n in (3, 4):
        res = run_tournament(
            "over_and_out", {"num_players": n}, ["random", "greedy", "heuristic"], 2, mode="all", workers=1
        )
        pairs = {(p["a"], p["b"]) for p in res["pairs"]}
        assert ("random", "greedy") in pairs and ("greedy", "random") in pairs, pairs


def test_datasets_mark_only_cut_off_games_truncated(tmp_path: Path, records_file: Path) -> None:
    """Games that end by their rules are not truncated in the dataset (offline RL reads the
    column to bootstrap): every row of the module's finished games reads False."""
    data = tmp_path / "d.npz"
    assert all(not r["truncated"] for r in load_records(records_file))
    assert main(["replay", str(records_file), "--dataset", str(data)]) == 0
    truncated = np.load(data)["truncated"]
    assert truncated.size > 0 and not truncated.any()


def test_a_record_cut_short_is_refused_even_when_its_returns_match(
    records_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A record missing its last move whose returns are those of the position so far (0 each
    in a 2-player Over and Out before its knock-out) is still no finished game."""
    rec = load_records(records_file)[0]
    cut = {**rec, "moves": rec["moves"][:-1], "returns": [0.0] * len(rec["returns"])}
    bad = tmp_path / "cut.jsonl"
    bad.write_text(json.dumps(cut) + "\n")
    assert main(["replay", str(bad), "1"]) == 2
    assert "the game is not over" in capsys.readouterr().err


def test_records_split_on_newlines_only(records_file: Path, tmp_path: Path) -> None:
    """JSON Lines end at "\\n": a raw U+2028 or U+0085 inside a string (another tool's
    ``ensure_ascii=False``) stays inside its record."""
    rec = load_records(records_file)[0]
    odd = tmp_path / "odd.jsonl"
    lines = [
        json.dumps({**rec, "pairing": [f"a\u2028b{k}", "c\u0085d"]}, ensure_ascii=False) for k in range(2)
    ]
    odd.write_text("\n".join(lines) + "\n", encoding="utf-8")
    loaded = load_records(odd)
    assert [r["pairing"][0] for r in loaded] == ["a\u2028b0", "a\u2028b1"]


def _advice_runs(line: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> str:
    """The ``play`` command ``replay --save`` suggests, run with ``quit`` typed: its output."""
    import shlex

    command = shlex.split(line.split("play on from there: ", 1)[1].replace("<bot or model>", "random"))
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(command[1:]) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def test_replay_save_suggests_a_play_command_that_plays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command ``--save`` suggests is one ``play`` takes: a solo game without ``--vs`` (it is
    played alone), and where ``player_0`` is already out (Over and Out, OAO-34) a ``--seat`` of
    a player still in."""
    solo, pos = tmp_path / "solo.jsonl", tmp_path / "pos.json"
    assert (
        main(["play", "otto_game_over", "--param", "num_players=1", "--random", "--record", str(solo)]) == 0
    )
    capsys.readouterr()
    assert main(["replay", str(solo), "1", "--upto", "3", "--save", str(pos)]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert line.endswith(f"--options @{pos}") and "--vs" not in line
    assert "you are player_0, a solo game" in _advice_runs(line, monkeypatch, capsys)
    record, k, _out = player_0_out_record(tmp_path, capsys)
    assert main(["replay", str(record), "1", "--upto", str(k), "--save", str(pos)]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert " --vs <bot or model> --seat " in line, line
    assert "you are player_" in _advice_runs(line, monkeypatch, capsys)


def player_0_out_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, int, frozenset[int]]:
    """A ``play --random --record`` file of a 3-player Over and Out game in which ``player_0``
    goes out before the end (OAO-34), the number of moves after which it is out while others
    play on, and the seats out then."""
    three = ["over_and_out", "--param", "num_players=3"]
    for seed in range(60):
        record = tmp_path / f"oao{seed}.jsonl"
        assert main(["play", *three, "--random", "--seed", str(seed), "--record", str(record)]) == 0
        capsys.readouterr()
        game = json.loads(record.read_text())
        env = GAMES["over_and_out"].env(num_players=3)
        env.reset(options=game["options"])
        for k, move in enumerate(game["moves"], 1):
            while env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
                env.step(None)
            env.step(env.unwrapped.string_to_action(move))
            state = env.unwrapped.state
            if 0 in state.eliminated() and not state.is_terminal():
                return record, k, state.eliminated()
    raise AssertionError("no game of 60 seeds knocked player_0 out before its end")
