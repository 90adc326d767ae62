"""Random streams that must not coincide: the env copies of training runs at neighbouring
seeds, DAgger rounds of runs at neighbouring seeds, and a demo's random policy and the deal it
plays. (That the same seed repeats a run is tested with each part.)"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from training.config import TrainConfig
from training.train import build_vec_env, run_seeded


def _first_deals(seed: int, tmp_path: Path, n_envs: int = 3) -> list[str]:
    """The first deal of each copy of a run's vectorised envs, seeded as SB3 seeds them."""
    cfg = TrainConfig(
        env="over_and_out", params={"num_players": 2}, seed=seed, n_envs=n_envs, opponents={"random": 1.0}
    )
    vec = build_vec_env(cfg, tmp_path / f"run{seed}")
    try:
        vec.seed(seed)  # what MaskablePPO(seed=...) does: copy i is reset with seed + i
        vec.reset()
        states = vec.get_attr("state")
        return [json.dumps(st.to_dict(), sort_keys=True, default=str) for st in states]
    finally:
        vec.close()


def test_runs_at_neighbouring_seeds_deal_apart(tmp_path: Path) -> None:
    """SB3 seeds copy i of the run at S with S + i: copy i + 1 of the run at 0 and copy i of the
    run at 1 got the same number and dealt the same games (15% of their games alike over
    thousands). The run's seed is folded in (``run_seeded``)."""
    zero, one = _first_deals(0, tmp_path), _first_deals(1, tmp_path)
    assert len(set(zero)) == 3 and len(set(one)) == 3
    assert not set(zero) & set(one), "no copy of the run at seed 1 deals a first game of the run at 0"
    assert _first_deals(0, tmp_path / "again") == zero, "the same seed, the same games"
    assert run_seeded(1, 0) != run_seeded(1, 1) and run_seeded(5, 3) == run_seeded(5, 3)
    assert all(0 <= run_seeded(s, r) < 2**63 for s in (0, 2**40) for r in (0, 9))


def test_dagger_rounds_of_neighbouring_seeds_deal_apart() -> None:
    """DAgger round r of the run at S collected from ``S + 31337 + r``, the seed of round 0 of the
    run at S + r: the seeds of its rounds now come from ``(seed, round)`` together."""
    from training.pretrain import dagger_seeds

    seen = {dagger_seeds(seed, r) for seed in range(4) for r in range(4)}
    assert len(seen) == 16, "every (run seed, round) collects and fits from seeds of its own"
    collect, fit = dagger_seeds(0, 0)
    assert collect != fit


def test_the_readme_random_policy_does_not_read_the_deals_stream() -> None:
    """A random policy drawn from ``default_rng(seed)`` reads the very bits the deal of
    ``reset(seed=seed)`` read (first mover and first move were correlated at -0.85 in Over and
    Out); the README and the examples draw the policy from ``default_rng([seed, 1])``."""
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    use = readme[readme.index("## Use in research code") :]
    use = use[: use.index("\n## ")]
    assert "default_rng([" in use and "default_rng(seed)" not in use
    a = np.random.default_rng(3).integers(2**32, size=4)
    b = np.random.default_rng([3, 1]).integers(2**32, size=4)
    assert not np.array_equal(a, b)
