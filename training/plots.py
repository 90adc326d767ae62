"""PNG plots (matplotlib, Agg backend): a run's learning curve and a tournament's results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.files import replacing


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def read_monitor(run_dir: Path) -> dict[str, np.ndarray]:
    """All envs' episodes in wall-clock order: return, length, cumulative steps, won."""
    rows: list[tuple[float, float, int, float]] = []
    for path in sorted((run_dir / "monitor").glob("*.monitor.csv")):
        lines = path.read_text(encoding="utf-8").splitlines()
        if len(lines) < 2:
            continue
        try:  # each file's times count from its own start (a resumed run writes new files)
            t_start = float(json.loads(lines[0].lstrip("#")).get("t_start", 0.0))
        except (ValueError, AttributeError):
            t_start = 0.0
        cols = lines[1].split(",")
        for line in lines[2:]:
            rec = dict(zip(cols, line.split(","), strict=False))
            try:
                won = 1.0 if rec.get("outcome") == "win" else 0.0
                ret = rec.get("return") or rec["r"]  # the true return (without reward shaping)
                rows.append((t_start + float(rec["t"]), float(ret), int(rec["l"]), won))
            except (KeyError, ValueError):
                continue
    rows.sort()
    arr = np.array(rows, dtype=np.float64).reshape(-1, 4)
    return {"t": arr[:, 0], "r": arr[:, 1], "steps": np.cumsum(arr[:, 2]), "won": arr[:, 3]}


def _rolling(x: np.ndarray, window: int) -> np.ndarray:
    if x.size == 0:
        return x
    w = max(1, min(window, x.size))
    c = np.cumsum(np.insert(x, 0, 0.0))
    out = np.empty_like(x)
    out[w - 1 :] = (c[w:] - c[:-w]) / w
    out[: w - 1] = c[1:w] / np.arange(1, w)
    return out


def read_evals(run_dir: Path) -> list[dict[str, Any]]:
    """The rows of ``eval.jsonl``; a line a kill cut short is passed over."""
    path = run_dir / "eval.jsonl"
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and "timesteps" in row:
            rows.append(row)
    return rows


def _with_format(out: Path) -> Path:
    """A name without a suffix gets ``.png`` (matplotlib's default format, and the name it
    wrote before the file was written in one step)."""
    return out if out.suffix else out.with_name(f"{out.name}.png")


def learning_curve(run_dir: Path, out: Path, window: int = 500) -> Path:
    """Training episodes (rolling return and win fraction vs the training opponents) and the
    periodic evaluations (win rate vs each baseline, with 95% intervals) against the steps."""
    plt = _plt()
    mon = read_monitor(run_dir)
    evals = read_evals(run_dir)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    if mon["r"].size:
        ax1.plot(mon["steps"], _rolling(mon["r"], window), label=f"episode return (rolling {window})")
        ax1.plot(mon["steps"], _rolling(mon["won"], window), label="win fraction vs training opponents")
    ax1.set_xlabel("learner steps")
    ax1.set_title("training episodes")
    ax1.grid(alpha=0.3)
    if mon["r"].size:
        ax1.legend(loc="lower right")
    if evals:
        # every baseline of any evaluation (a resumed run may evaluate against others)
        bots = list(dict.fromkeys(k for e in evals for k, v in e.items() if isinstance(v, dict)))
        for bot in bots:
            rows = [e for e in evals if isinstance(e.get(bot), dict)]
            steps = [e["timesteps"] for e in rows]
            wr = np.array([e[bot]["win_rate"] for e in rows])
            lo = np.array([e[bot]["win_rate_ci95"][0] for e in rows])
            hi = np.array([e[bot]["win_rate_ci95"][1] for e in rows])
            ax2.plot(steps, wr, marker="o", label=f"vs {bot}")
            ax2.fill_between(steps, lo, hi, alpha=0.15)
    ax2.set_ylim(0, 1)
    ax2.set_xlabel("learner steps")
    ax2.set_title("evaluation: win rate (95% CI)")
    ax2.grid(alpha=0.3)
    if evals:
        ax2.legend(loc="lower right")
    fig.suptitle(str(run_dir))
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    out = _with_format(out)
    with replacing(out) as tmp:
        fig.savefig(tmp, dpi=110, format=out.suffix[1:])
    plt.close(fig)
    return out


def short_names(names: list[str]) -> dict[str, str]:
    """Each player's label: its file name, or as many trailing path parts as tell it apart
    (``run_a/model.zip`` and ``run_b/model.zip``); bot specs stay as they are."""
    unique = list(dict.fromkeys(names))
    depth = 1
    while True:
        labels = {n: "/".join(Path(n).parts[-depth:]) or n for n in unique}
        clash = len(set(labels.values())) < len(unique)
        if not clash or depth > max(len(Path(n).parts) for n in unique):
            return labels if not clash else {n: n for n in unique}
        depth += 1


def plot_tournament(res: dict[str, Any], out: Path) -> Path:
    """Win rate of each pairing with its 95% interval, and the Elo ratings."""
    plt = _plt()
    pairs = res["pairs"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 0.6 * max(3, len(pairs)) + 1.5))
    short = short_names([*(p["a"] for p in pairs), *(p["b"] for p in pairs), *res["elo"]])
    labels = [f"{short[p['a']]} vs {short[p['b']]}" for p in pairs]
    wr = np.array([p["win_rate"] for p in pairs])
    err = np.array(
        [[p["win_rate"] - p["win_rate_ci95"][0], p["win_rate_ci95"][1] - p["win_rate"]] for p in pairs]
    )
    y = np.arange(len(pairs))
    ax1.barh(y, wr, xerr=err.T.reshape(2, -1), color="tab:blue", alpha=0.8, capsize=4)
    ax1.set_yticks(y, labels)
    ax1.set_xlim(0, 1)
    sides = int(res.get("sides", max(2, int(res.get("num_players", 2)))))
    ax1.axvline(1 / sides, color="grey", lw=0.8, ls="--")  # even odds between the sides
    seating = res.get("seating", "seats rotated")
    ax1.set_xlabel(f"win rate, 95% Wilson CI ({res['games_per_pairing']} games, {seating})")
    elo = sorted(res["elo"].items(), key=lambda kv: kv[1])
    base = min(e for _, e in elo) - 100.0  # bars from below the weakest, so differences show
    ax2.barh([short[n] for n, _ in elo], [e - base for _, e in elo], left=base, color="tab:orange")
    for i, (_, e) in enumerate(elo):
        ax2.text(e, i, f" {e:.0f}", va="center")
    ax2.set_xlim(base, max(e for _, e in elo) + 120.0)
    ax2.set_xlabel("Elo (Bradley-Terry)")
    fig.suptitle(f"{res['env']} {res['params'] or ''}")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    out = _with_format(out)
    with replacing(out) as tmp:
        fig.savefig(tmp, dpi=110, format=out.suffix[1:])
    plt.close(fig)
    return out
