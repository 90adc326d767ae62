"""Behaviour cloning from game records: a tournament kept with records, its teacher's
decisions as a dataset, a small masked-softmax network fitted to them, then matched.

    python examples/offline_bc.py [game] [games] [epochs] [teacher]
    python examples/offline_bc.py over_and_out 200 10 heuristic

The same steps on the command line: ``eightfold eval <game> --players <teacher> random
--records r.jsonl`` and ``eightfold replay r.jsonl --dataset d.npz --player <teacher>``; the
arrays are those of ``np.load("d.npz")`` (``training/replay.py``: ``DATASET_KEYS``).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch
from torch import nn

from envs.core.bots import make_bot
from envs.core.game import GameState
from envs.core.registry import get_game
from training.evaluate import run_tournament
from training.replay import load_records, write_dataset
from training.tournament import play_pairing

try:  # an unknown game, a bad count or teacher is named, without a traceback (exit 2)
    if len(sys.argv) > 5:
        raise ValueError(f"expected [game] [games] [epochs] [teacher], got {len(sys.argv) - 1} arguments")
    name = get_game(sys.argv[1] if len(sys.argv) > 1 else "over_and_out").name
    counts = sys.argv[2:4] + ["200", "10"][len(sys.argv[2:4]) :]
    if not all(c.isascii() and c.isdigit() and int(c) > 0 for c in counts):
        raise ValueError(f"games and epochs must be integers >= 1, got {counts}")
    games, epochs = map(int, counts)
    teacher = sys.argv[4] if len(sys.argv) > 4 else "heuristic"
    params = {"num_players": 2} if name in ("over_and_out", "otto_octopus", "otto_game_over") else {}
    # 1. the teacher's games, kept as records (the teacher against random, seats rotated); a bad
    #    teacher (bot spec or model .zip) is named before any game
    res = run_tournament(name, params, [teacher, "random"], games, workers=1, records=True)
except ValueError as exc:
    print(f"offline_bc.py: error: {exc}", file=sys.stderr)
    raise SystemExit(2) from None
torch.manual_seed(0)
with tempfile.TemporaryDirectory() as tmp:
    records_path, data_path = Path(tmp) / "games.jsonl", Path(tmp) / "teacher.npz"
    records_path.write_text("".join(json.dumps(r) + "\n" for r in res["records"]))
    # 2. the teacher's decisions as arrays
    records = load_records(records_path)
    rows = write_dataset(
        records, list(range(1, len(records) + 1)), str(data_path), str(records_path), teacher
    )
    with np.load(data_path) as data:
        obs = torch.as_tensor(data["observations"].reshape(rows, -1))
        masks = torch.as_tensor(data["action_masks"])
        actions = torch.as_tensor(data["actions"])
# what agreement is to be read against: a uniformly random legal move matches the teacher's
# with probability 1 / (number of legal moves), averaged over the decisions
chance = float((1.0 / masks.sum(1).clamp(min=1)).mean())
print(
    f"{rows} decisions of {teacher} from {len(records)} games of {name} (a random legal move agrees on {chance:.3f})"
)

# 3. a masked-softmax MLP fitted by cross-entropy to the teacher's moves
game = get_game(name).game_class()(**params)
net = nn.Sequential(nn.Linear(obs.shape[1], 128), nn.ReLU(), nn.Linear(128, game.num_actions))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
for epoch in range(epochs):
    order = torch.randperm(rows)
    total = 0.0
    for batch in torch.split(order, 256):
        logits = net(obs[batch]).masked_fill(~masks[batch], -1e9)
        loss = nn.functional.cross_entropy(logits, actions[batch])
        opt.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        opt.step()
        total += float(loss.detach()) * len(batch)
    with torch.no_grad():
        agree = (net(obs).masked_fill(~masks, -1e9).argmax(1) == actions).float().mean()
    print(
        f"epoch {epoch + 1}: loss {total / rows:.3f}, agreement with the teacher {float(agree):.3f} (training decisions)"
    )


# 4. the clone as a player (any object with act(state, seat, rng)) against random
class Clone:
    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        x = torch.as_tensor(np.asarray(game.observe(state, player), dtype=np.float32).reshape(1, -1))
        with torch.no_grad():
            logits = net(x)[0].masked_fill(~torch.as_tensor(state.legal_mask().astype(bool)), -1e9)
        return int(logits.argmax())


result = play_pairing(
    game, Clone(), make_bot(game, "random", get_game(name).bots()), ("clone", "random"), range(100), seed=1
)
print(f"clone vs random over 100 games, seats rotated: win rate {result.summary()['win_rate']:.3f}")
