"""Behaviour-cloning warm start: imitate a scripted teacher before MaskablePPO.

A policy that starts from random weights spends most of a short budget rediscovering what
the game's scripted ``heuristic`` already knows (which placement scores, which card pays).
With ``pretrain_samples: N`` the run first plays ``N`` learner decisions in the very
single-agent view PPO will train in (same seat draw, same rewards, shaping included; the
same opponents, or ``pretrain_opponents`` where the config gives them, except ``self``, whose
pool holds no snapshot yet: its share goes to the other groups by their weights, or to the
``random`` fallback when ``self`` is alone, and a ``partner: self`` partner is the random
bot), with the **teacher** bot (``pretrain_teacher``, any bot spec of the game's table)
choosing the learner's moves, then fits the fresh policy to them:

* the actor by masked cross-entropy to the teacher's choices. A scoring teacher
  (:class:`~envs.core.bots.ScoringBot`: every ``greedy`` / ``heuristic`` of this suite but
  OTTO Game Over's ``greedy``) gives its whole set ``B`` of equally best moves, plays a
  uniform one of them (exactly its ``act``; OTTO Game Over's ``heuristic`` then scores every
  Quantum Leap instead of its usual sample of 60), and the loss is ``-log pi(B | s)``: half
  of these decisions have ties, which a single-move target would turn into label noise;
* the critic by regression to the discounted return-to-go the env paid from that step
  (``vf_coef`` weighs it, as in PPO), so the first PPO updates see a sensible baseline,

for ``pretrain_epochs`` passes of ``pretrain_batch_size`` minibatches (default: PPO's
``batch_size``) with the policy's own Adam optimiser at ``pretrain_learning_rate`` (default:
PPO's ``learning_rate``; PPO's rate is back in place for the first PPO update). A warm start
wants a larger step than the PPO that follows it: in OTTO Game Over, at PPO's 1e-4 the
policy's agreement with the teacher stalls after one epoch (0.92 held out, the same on the
training decisions: it underfits, and three times the data changes nothing), while 1e-3 with
minibatches of 128 reaches 0.96 in five epochs.

``pretrain_temperature: T`` (T > 0; 0, the default, is the set loss above) fits the actor to the
teacher's whole ranking instead: the target is ``softmax(scores / T)`` over the legal moves of
a scoring teacher's ``scored_actions`` (weights under 1e-4 of the best one dropped; stored
sparse), and the loss is the cross-entropy to it, so a policy that misses the teacher's best
move learns to miss towards a good one. The moves played and the best sets do not change.
With an ``mcts`` teacher (``pretrain_teacher: "mcts:sims=50"``) the target is the search's own
policy, its root visit counts ``n(a) ** (1 / T)`` normalised (T = 1: the visit distribution, as
AlphaZero distils its search), and the move played is the search's; with T = 0 the target is
that move alone.

``pretrain_symmetries: true`` augments the fit with the game's symmetries
(``Game.symmetries()``, e.g. OTTO Game Over's three turns of the board): every decision of a
minibatch is shown in a uniformly drawn one of its images (the identity included), with its
observation, mask and teacher's set moved alike, so the fit sees up to four times the
positions for the same collection time. The held-out agreement is measured on the decisions
as played.

PPO then starts from that policy; its first self-play snapshot is the cloned policy. The
teacher only ever sees what its seat may see (bots read ``resample_hidden`` views), and the
demonstrations are seeded from the run's seed.

``pretrain_rounds: R`` adds R DAgger rounds (Ross, Gordon & Bagnell 2011): the policy fitted so
far plays ``pretrain_samples`` more decisions (sampling its moves), the teacher labels every
state it reaches, and the fit continues on all the data, so the policy also learns what to do
in the positions its own mistakes lead to.

Collection runs in ``pretrain_workers`` processes (episodes are split by a fixed seed
schedule, so the demonstrations do not depend on the number of workers). The time spent
here counts in the run's wall time (``train_summary.json``: ``pretrain_s``).

This is the warm start AlphaStar-style agents use (imitation, then RL); the RL part
optimises the true (or potential-shaped) game return, so it may move away from the teacher.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import math
import multiprocessing as mp
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.config import is_real
from envs.core.files import write_text
from envs.core.game import Symmetry
from training.interrupt import sigint_deferred, start_forkserver, start_method, worker_pool

EPISODES_PER_CHUNK = 16
"""Episodes per collection task: the seed of episode ``e`` is ``seed`` spawned at index ``e``."""


class CodedArray:
    """A ``float32`` array held as small codes into its distinct values, bit for bit.

    The observations of every eightfold game take few distinct values (counts over fixed
    divisors, one-hot planes: 57 in Octi, 76 in OTTO Game Over, 130 in Otto the Octopus, 183 in
    Over and Out over 3,000 decisions each), so a ``uint8`` code per entry (``uint16`` past 256
    values) replaces four bytes: a quarter of the memory, no rounding. The values are kept by
    their bit patterns, so ``-0.0`` stays ``-0.0`` and a NaN stays that NaN. Indexing decodes
    (``a[idx]`` is a ``float32`` array); :meth:`take` keeps rows coded; ``np.asarray(a)``
    decodes everything. Build one with :meth:`encode`, which keeps an array of more than 65,536
    distinct values as it is."""

    __slots__ = ("codes", "values")

    def __init__(self, codes: np.ndarray, values: np.ndarray) -> None:
        if codes.dtype not in (np.uint8, np.uint16) or values.dtype != np.float32 or values.ndim != 1:
            raise ValueError("CodedArray wants uint8/uint16 codes and a 1-D float32 table of values")
        self.codes = codes
        self.values = values

    @classmethod
    def encode(cls, a: np.ndarray) -> CodedArray | np.ndarray:
        """``a`` (as ``float32``) coded, or ``a`` itself when it has over 65,536 distinct values."""
        a = np.ascontiguousarray(a, dtype=np.float32)
        bits = a.reshape(-1).view(np.uint32)
        if bits.size == 0:
            return cls(np.zeros(a.shape, np.uint8), np.zeros(0, np.float32))
        # the table from a sample, then every entry looked up in it (a sort of the table, not
        # of the data: about five times faster than np.unique on the whole array); the
        # entries the sample missed, if any, join the table and the lookup is redone
        table = np.unique(bits[:: max(1, bits.size // 4096)])
        idx = np.searchsorted(table, bits)
        np.minimum(idx, table.size - 1, out=idx)
        missed = table[idx] != bits
        if missed.any():
            table = np.union1d(table, bits[missed])
            if table.size > 65536:
                return a
            idx = np.searchsorted(table, bits)
        codes = idx.astype(np.uint8 if table.size <= 256 else np.uint16).reshape(a.shape)
        return cls(codes, table.view(np.float32))

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.codes.shape)

    @property
    def dtype(self) -> np.dtype[Any]:
        return np.dtype(np.float32)

    @property
    def nbytes(self) -> int:
        return int(self.codes.nbytes + self.values.nbytes)

    def __len__(self) -> int:
        return int(self.codes.shape[0])

    def __getitem__(self, idx: Any) -> np.ndarray:
        out: np.ndarray = np.take(self.values, self.codes[idx])
        return out

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if copy is False:
            raise ValueError("a CodedArray decodes into a new array: copy=False cannot be honoured")
        out = self[...]
        return out if dtype is None else out.astype(dtype, copy=False)

    def take(self, idx: Any) -> CodedArray:
        """Rows ``idx``, still coded (the same table)."""
        return CodedArray(self.codes[idx], self.values)


def _obs_joiner(parts: Sequence[np.ndarray | CodedArray], n: int) -> tuple[Any, Any]:
    """For ``n`` rows of ``parts``' observations: ``write(at, part)``, which copies a part's rows
    in from row ``at``, and ``result()``, the joined observations.

    Coded parts are joined coded, under one table (the union of theirs) with each part's codes
    renumbered into it (``uint16`` codes past 256 values); parts with over 65,536 values
    together, or any part not coded, join as plain ``float32``."""
    shape = parts[0].shape[1:]
    coded = [p for p in parts if isinstance(p, CodedArray)]
    if len(coded) == len(parts):
        union = np.unique(np.concatenate([p.values.view(np.uint32) for p in coded]))
        if union.size <= 65536:
            dtype = np.uint8 if union.size <= 256 else np.uint16
            codes = np.empty((n, *shape), dtype=dtype)

            def write(at: int, part: Any) -> None:
                renumber = np.searchsorted(union, part.values.view(np.uint32)).astype(dtype)
                codes[at : at + len(part)] = renumber[part.codes]

            return write, lambda: CodedArray(codes, union.view(np.float32))
    out = np.empty((n, *shape), dtype=np.float32)

    def write_plain(at: int, part: Any) -> None:
        out[at : at + len(part)] = part[:]

    return write_plain, lambda: out


@dataclass
class Demonstrations:
    """Learner decisions labelled by the teacher: observations, masks, moves, returns-to-go.

    The masks and the teacher's sets of best moves are kept as bits (``np.packbits`` along the
    actions: an eighth of a ``bool`` array; OTTO Game Over's 5,228 actions take 654 bytes a
    decision instead of 5,228); :meth:`mask_rows` and :meth:`target_mask` unpack the rows a
    minibatch needs, the properties ``masks`` and ``targets`` every row. The observations are
    coded (:class:`CodedArray`: a byte an entry instead of four, bit for bit); ``obs[idx]``
    decodes the rows a minibatch needs. Build one from ``float32`` observations and ``bool``
    arrays with :meth:`of`."""

    obs: np.ndarray | CodedArray  # float32 [N, *observation_shape]; coded (CodedArray) when collected
    packed_masks: np.ndarray  # uint8 [N, ceil(num_actions / 8)]: the legal masks, packed
    actions: np.ndarray  # int64 [N]: the teacher's move (the one played, unless a driver played)
    returns: np.ndarray  # float32 [N]: discounted sum of the env's rewards from this step on
    episodes: int
    num_actions: int
    packed_targets: np.ndarray | None = None  # uint8, packed alike: the teacher's best moves (None: actions)
    # the teacher's soft targets, rows of a sparse matrix: row i is actions soft_act[ptr[i]:ptr[i+1]]
    # with weights soft_w[...] summing to 1 (None: no soft targets)
    soft: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # (ptr int64 [N+1], act int32, w float32)

    @classmethod
    def of(
        cls,
        obs: np.ndarray,
        masks: np.ndarray,
        actions: np.ndarray,
        returns: np.ndarray,
        episodes: int,
        targets: np.ndarray | None = None,
        soft: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    ) -> Demonstrations:
        """From ``float32`` observations (coded here: :class:`CodedArray`), ``bool`` masks
        ``[N, num_actions]`` and targets of the same shape (or None), integer ``actions [N]`` in
        ``range(num_actions)`` and ``returns [N]``; ``soft`` as the field documents it. Arrays
        that disagree (row counts, widths, an action out of range) are a ``ValueError`` naming them."""
        masks = np.asarray(masks, dtype=bool)
        if masks.ndim != 2:
            raise ValueError(
                f"Demonstrations.of: masks must be a bool array [N, num_actions], got shape {masks.shape}"
            )
        obs_shape = np.shape(obs)
        if not obs_shape:
            raise ValueError("Demonstrations.of: obs must be an array [N, *observation_shape], got a scalar")
        actions, returns = np.asarray(actions), np.asarray(returns)
        for name, a in (("actions", actions), ("returns", returns)):
            if a.ndim != 1:
                raise ValueError(f"Demonstrations.of: {name} must be a 1-D array [N], got shape {a.shape}")
        rows = (obs_shape[0], masks.shape[0], actions.size, returns.size)
        if len(set(rows)) != 1:
            raise ValueError(
                "Demonstrations.of: obs, masks, actions and returns must have the same number of rows, "
                f"got obs {rows[0]}, masks {rows[1]}, actions {rows[2]}, returns {rows[3]}"
            )
        n, num_actions = masks.shape
        if actions.size and not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(
                f"Demonstrations.of: actions must be integers in [0, {num_actions}), got dtype {actions.dtype}"
            )
        if actions.size and (actions.min() < 0 or actions.max() >= num_actions):
            bad = actions[(actions < 0) | (actions >= num_actions)]
            raise ValueError(
                f"Demonstrations.of: actions must be integers in [0, {num_actions}) (the masks' width), "
                f"got {int(bad[0])}"
            )
        if targets is not None:
            targets = np.asarray(targets, dtype=bool)
            if targets.shape != masks.shape:
                raise ValueError(
                    f"Demonstrations.of: targets must have the masks' shape {masks.shape}, got {targets.shape}"
                )
        if soft is not None:
            if len(soft) != 3:
                raise ValueError(
                    f"Demonstrations.of: soft must be a tuple (ptr, act, w), got {len(soft)} items"
                )
            ptr, act, w = (np.asarray(x) for x in soft)
            if ptr.shape != (n + 1,) or ptr[0] != 0 or ptr[-1] != act.size or act.size != w.size:
                raise ValueError(
                    f"Demonstrations.of: soft must be (ptr [N+1] running from 0 to len(act), act, w) with N = {n}, "
                    f"got ptr of shape {ptr.shape}, {act.size} actions and {w.size} weights"
                )
        packed_targets = None if targets is None else np.packbits(targets, axis=1)
        return cls(
            CodedArray.encode(obs),
            np.packbits(masks, axis=1),
            actions,
            returns,
            episodes,
            masks.shape[1],
            packed_targets,
            soft,
        )

    def _unpack(self, packed: np.ndarray, idx: Any) -> np.ndarray:
        rows: np.ndarray = np.unpackbits(packed[idx], axis=-1, count=self.num_actions).view(bool)
        return rows

    def mask_rows(self, idx: Any) -> np.ndarray:
        """The legal masks of the decisions ``idx`` (``bool``)."""
        return self._unpack(self.packed_masks, idx)

    @property
    def masks(self) -> np.ndarray:
        """Every legal mask, ``bool [N, num_actions]`` (unpacked anew on each access)."""
        return self.mask_rows(slice(None))

    @property
    def targets(self) -> np.ndarray | None:
        """Every set of best moves, ``bool [N, num_actions]``, or None (unpacked anew on each access)."""
        return None if self.packed_targets is None else self._unpack(self.packed_targets, slice(None))

    def target_mask(self, idx: Any) -> np.ndarray:
        """The teacher's set of best moves for the decisions ``idx`` (one-hot of the move played
        when the teacher gave no set)."""
        if self.packed_targets is not None:
            return self._unpack(self.packed_targets, idx)
        actions = self.actions[idx]
        out = np.zeros((actions.size, self.num_actions), dtype=bool)
        out[np.arange(actions.size), actions] = True
        return out

    def soft_targets(self, idx: Any) -> np.ndarray:
        """The soft targets of the decisions ``idx`` as dense rows (float32 [len(idx), num_actions])."""
        assert self.soft is not None
        _ptr, act, w = self.soft
        counts, flat = self._soft_entries(idx)
        out = np.zeros((counts.size, self.num_actions), dtype=np.float32)
        out[np.repeat(np.arange(counts.size), counts), act[flat]] = w[flat]
        return out

    def _soft_entries(self, idx: Any) -> tuple[np.ndarray, np.ndarray]:
        """Per decision of ``idx``, its number of soft entries, and their positions, in order."""
        assert self.soft is not None
        ptr = self.soft[0]
        rows = np.atleast_1d(np.arange(len(self))[idx])
        counts = ptr[rows + 1] - ptr[rows]
        starts = np.repeat(ptr[rows] - np.cumsum(counts) + counts, counts)
        return counts, starts + np.arange(int(counts.sum()))

    def subset(self, idx: Any) -> Demonstrations:
        t = None if self.packed_targets is None else self.packed_targets[idx]
        soft = None
        if self.soft is not None:
            counts, flat = self._soft_entries(idx)
            ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
            soft = (ptr, self.soft[1][flat], self.soft[2][flat])
        return Demonstrations(
            self.obs.take(idx) if isinstance(self.obs, CodedArray) else self.obs[idx],
            self.packed_masks[idx],
            self.actions[idx],
            self.returns[idx],
            0,
            self.num_actions,
            t,
            soft,
        )

    def __len__(self) -> int:
        return int(self.actions.size)


def collection_config(cfg_dict: dict[str, Any]) -> dict[str, Any]:
    """The config the demonstrations are played in: ``pretrain_opponents`` in place of
    ``opponents`` where the config gives them (PPO keeps ``opponents``)."""
    warm = cfg_dict.get("pretrain_opponents")
    return {**cfg_dict, "opponents": warm} if warm else cfg_dict


def _collect_chunk(task: tuple[dict[str, Any], int, int, int, str | None]) -> Demonstrations:
    """Episodes ``first .. first + count - 1`` of the schedule, in one process.

    With a ``driver`` (a saved model), the driver's sampled moves are played and the teacher
    only labels the states (DAgger); otherwise the teacher's own moves are played.
    """
    from envs.core.bots import ScoringBot
    from envs.core.mcts import MCTSBot
    from training.players import PolicyPlayer, make_player
    from training.train import build_single_env

    cfg_dict, seed, first, count, driver_path = task
    env, game, bots = build_single_env(collection_config(cfg_dict))
    teacher = make_player(game, cfg_dict["pretrain_teacher"], bots)
    driver = PolicyPlayer.load(driver_path, game) if driver_path else None
    scoring = isinstance(teacher, ScoringBot)
    temperature = float(cfg_dict.get("pretrain_temperature") or 0.0)
    search = isinstance(teacher, MCTSBot) and temperature > 0  # soft targets from the visit counts
    gamma = float(cfg_dict["gamma"])
    seeds = np.random.SeedSequence(seed).spawn(first + count)[first:]
    obs_l: list[np.ndarray] = []
    mask_l: list[np.ndarray] = []
    act_l: list[int] = []
    ret_l: list[float] = []
    best_l: list[np.ndarray] = []
    soft_n: list[int] = []
    soft_a: list[np.ndarray] = []
    soft_w: list[np.ndarray] = []
    for ss in seeds:
        env_seed, teacher_seed, driver_seed = (
            int(s.generate_state(1, np.uint64)[0] >> np.uint64(1)) for s in ss.spawn(3)
        )
        rng = np.random.default_rng(teacher_seed)
        driver_rng = np.random.default_rng(driver_seed)  # its own stream, apart from the deal
        obs, _ = env.reset(seed=env_seed)
        rewards: list[float] = []
        done = False
        while not done:
            mask = env.action_masks()
            if scoring:  # the whole set of best moves is the target; one of them is played
                assert isinstance(teacher, ScoringBot)
                legal, scores = teacher.scored_actions(env.state, env.seat, rng)
                best = [int(a) for a in legal[scores >= scores.max() - 1e-9]]  # = best_actions
                action = teacher.pick(best, rng)  # = teacher.act (for ScoringBot.act)
                if temperature > 0:  # softmax of the scores at that temperature, tiny weights dropped
                    w = np.exp((scores - scores.max()) / temperature)
                    keep = w >= 1e-4
                    soft_n.append(int(keep.sum()))
                    soft_a.append(legal[keep].astype(np.int32))
                    soft_w.append((w[keep] / w[keep].sum()).astype(np.float32))
                target = np.zeros(mask.size, dtype=bool)
                target[best] = True
                best_l.append(target)
            elif search:  # the search's move, and its root visits ** (1 / T) as the target
                assert isinstance(teacher, MCTSBot)
                action, legal, visits = teacher.act_with_visits(env.state, env.seat, rng)
                w = (visits / visits.max()) ** (1.0 / temperature)
                keep = w >= 1e-4
                soft_n.append(int(keep.sum()))
                soft_a.append(legal[keep].astype(np.int32))
                soft_w.append((w[keep] / w[keep].sum()).astype(np.float32))
            else:
                action = int(teacher.act(env.state, env.seat, rng))
            obs_l.append(obs)
            mask_l.append(mask)
            act_l.append(action)
            move = action if driver is None else int(driver.act(env.state, env.seat, driver_rng))
            obs, reward, terminated, truncated, _ = env.step(move)
            rewards.append(float(reward))
            done = terminated or truncated
        g = 0.0
        tail: list[float] = []
        for r in reversed(rewards):
            g = r + gamma * g
            tail.append(g)
        ret_l.extend(reversed(tail))
    n = len(act_l)
    shape = env.observation_space.shape or ()
    return Demonstrations.of(
        obs=np.asarray(obs_l, dtype=np.float32).reshape((n, *shape)),
        masks=np.asarray(mask_l, dtype=bool).reshape(n, game.num_actions),
        actions=np.asarray(act_l, dtype=np.int64),
        returns=np.asarray(ret_l, dtype=np.float32),
        episodes=count,
        targets=np.asarray(best_l, dtype=bool).reshape(n, -1) if scoring else None,
        soft=(
            (
                np.concatenate([[0], np.cumsum(soft_n)]).astype(np.int64),
                np.concatenate(soft_a) if soft_a else np.zeros(0, np.int32),
                np.concatenate(soft_w) if soft_w else np.zeros(0, np.float32),
            )
            if (scoring or search) and temperature > 0
            else None
        ),
    )


def collect_demonstrations(
    cfg_dict: dict[str, Any], samples: int, seed: int, workers: int = 1, driver: str | None = None
) -> Demonstrations:
    """At least ``samples`` learner decisions (whole episodes) played by ``pretrain_teacher``.

    Episodes are collected in chunks of :data:`EPISODES_PER_CHUNK` with seeds fixed by
    ``seed``, in order, until ``samples`` decisions are reached; the result does not depend
    on ``workers``. ``driver``: a saved model whose sampled moves are played while the teacher
    labels every state (DAgger); ``None``: the teacher plays.
    """
    if samples < 1:
        raise ValueError(f"samples must be >= 1, got {samples}")
    parts: list[Demonstrations] = []
    total, first = 0, 0
    # forkserver: the parent has torch loaded, and a teacher may be a saved model
    # (the workers leave Ctrl-C to this process, which ends them at once, and die with it)
    pooled: contextlib.AbstractContextManager[ProcessPoolExecutor | None] = contextlib.nullcontext()
    if workers > 1:
        start_forkserver()
        pooled = worker_pool(workers, mp.get_context(start_method()))
    with pooled as pool:
        while total < samples:
            # a wave of chunks: one per worker; the result is cut at the first chunk that
            # completes the count, so a wave's extra chunks never change the outcome
            n_chunks = max(1, workers)
            tasks = [
                (cfg_dict, seed, first + i * EPISODES_PER_CHUNK, EPISODES_PER_CHUNK, driver)
                for i in range(n_chunks)
            ]
            first += n_chunks * EPISODES_PER_CHUNK
            if pool is not None:
                with sigint_deferred():  # the workers start on demand: a Ctrl-C ends them once up
                    chunks = pool.map(_collect_chunk, tasks)
                results = list(chunks)
            else:
                results = [_collect_chunk(t) for t in tasks]
            for part in results:
                if total >= samples:
                    break
                parts.append(part)
                total += len(part)
            del results
    return concat(parts, consume=True)


def _return_freed_memory() -> None:
    """Hand the heap's free pages back to the system (glibc's ``malloc_trim``; nothing elsewhere).

    A collected chunk's arrays are unpickled into the heap (glibc raises its mmap threshold
    after the first large frees), so freeing them does not lower the resident size: without
    this, the chunks' memory stays resident beside their concatenation, twice the data."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        ctypes.CDLL(None).malloc_trim(0)


def concat(parts: list[Demonstrations], consume: bool = False) -> Demonstrations:
    """The decisions of ``parts``, in order (a single part is returned as it is, not copied).

    ``consume``: ``parts`` is emptied part by part as each is copied into the result, and a
    part's memory is freed (and handed back, :func:`_return_freed_memory`) as soon as it is
    copied, while the result's pages are committed as they are written: the collection's chunks
    and their concatenation are never all in memory at once."""
    if not parts:
        raise ValueError("concat needs at least one Demonstrations, got an empty list")
    if len(parts) == 1:
        return parts.pop() if consume else parts[0]
    soft = None
    if parts and all(p.soft is not None for p in parts):
        ptrs, offset = [np.zeros(1, np.int64)], 0
        for p in parts:
            assert p.soft is not None
            ptrs.append(p.soft[0][1:] + offset)
            offset += int(p.soft[0][-1])
        del p  # no reference to a part outlives its copy
        soft = (
            np.concatenate(ptrs),
            np.concatenate([p.soft[1] for p in parts if p.soft is not None]),
            np.concatenate([p.soft[2] for p in parts if p.soft is not None]),
        )
    n, num_actions = sum(len(p) for p in parts), parts[0].num_actions
    with_targets = all(p.packed_targets is not None for p in parts)
    fields = ("packed_masks", "actions", "returns") + (("packed_targets",) if with_targets else ())
    out = {
        f: np.empty((n, *getattr(parts[0], f).shape[1:]), dtype=getattr(parts[0], f).dtype) for f in fields
    }
    write_obs, joined_obs = _obs_joiner([p.obs for p in parts], n)
    episodes, at = 0, 0
    source = parts if consume else list(parts)
    while source:
        part = source.pop(0)
        write_obs(at, part.obs)
        for f in fields:
            out[f][at : at + len(part)] = getattr(part, f)
        at += len(part)
        episodes += part.episodes
        del part
        if consume:
            _return_freed_memory()
    return Demonstrations(
        joined_obs(),
        out["packed_masks"],
        out["actions"],
        out["returns"],
        episodes,
        num_actions,
        out.get("packed_targets"),
        soft,
    )


def agreement(policy: Any, demos: Demonstrations, batch: int = 1024) -> float:
    """Share of the demonstrations where the policy's most likely legal action is one of the
    teacher's best moves (the move it played, for a teacher without scores). ``batch``: rows
    per forward pass (OTTO Game Over's 5,228 logits a row: 1,024 rows add about 110 MB while
    they are scored, 4,096 about 310 MB)."""
    return float(agreement_rows(policy, demos, batch).mean()) if len(demos) else 0.0


def agreement_rows(policy: Any, demos: Demonstrations, batch: int = 1024) -> np.ndarray:
    """Per demonstration, whether the policy's most likely legal action is one of the teacher's
    best moves (:func:`agreement`'s terms)."""
    import torch

    hits = np.zeros(len(demos), dtype=bool)
    with torch.no_grad():
        for i in range(0, len(demos), batch):
            idx = np.arange(i, min(i + batch, len(demos)))
            obs = torch.from_numpy(demos.obs[idx])
            dist = policy.get_distribution(obs, action_masks=demos.mask_rows(idx))
            best = dist.mode().numpy()
            hits[idx] = demos.target_mask(idx)[np.arange(idx.size), best]
    return hits


def chance_levels(demos: Demonstrations, batch: int = 4096) -> tuple[float, np.ndarray]:
    """What agreement means against chance: the agreement a uniformly random legal move would
    have in expectation (the mean share of each decision's legal moves that are among the
    teacher's best), and which decisions are *trivial* (every legal move is among the best, so
    any player agrees; a single legal move is one). Agreement is quoted with both, since the
    games differ widely: a random player agrees on about a third of Octi's decisions and on
    more than half of Over and Out's."""
    shares = np.zeros(len(demos))
    trivial = np.zeros(len(demos), dtype=bool)
    for i in range(0, len(demos), batch):
        idx = np.arange(i, min(i + batch, len(demos)))
        legal, best = demos.mask_rows(idx), demos.target_mask(idx)
        n_legal = np.maximum(legal.sum(1), 1)
        n_best = (best & legal).sum(1)
        shares[idx] = n_best / n_legal
        trivial[idx] = n_best == legal.sum(1)
    return (float(shares.mean()) if len(demos) else 0.0), trivial


def symmetry_tables(
    symmetries: Sequence[Symmetry], obs_shape: tuple[int, ...], num_actions: int
) -> tuple[Any, np.ndarray]:
    """The gathers of the identity and ``symmetries``, stacked: a ``torch`` table for the
    (flattened) observations and a numpy one for masks and targets (row 0: the identity)."""
    import torch

    n_obs = int(np.prod(obs_shape))
    if isinstance(symmetries, (str, Symmetry)):
        raise ValueError(
            f"symmetries must be a sequence of Symmetry objects (game.symmetries()), got {type(symmetries).__name__}"
        )
    for g in symmetries:
        if not isinstance(g, Symmetry):
            raise ValueError(
                f"symmetries must be Symmetry objects (game.symmetries()), got {type(g).__name__} {g!r}"
            )
        for field, index, size, what in (
            ("obs_index", g.obs_index, n_obs, "the flattened observation"),
            ("action_index", g.action_index, num_actions, "the actions"),
        ):
            index = np.asarray(index)
            integer = np.issubdtype(index.dtype, np.integer)
            if not integer or index.shape != (size,) or not np.array_equal(np.sort(index), np.arange(size)):
                raise ValueError(
                    f"symmetry {g.name!r}: {field} must be a permutation of range({size}) ({what}), "
                    f"got an array of shape {index.shape} and dtype {index.dtype}"
                    + ("" if index.shape != (size,) or not integer else " that is not a permutation")
                )
    obs_tab = torch.as_tensor(np.stack([np.arange(n_obs), *(g.obs_index for g in symmetries)]))
    act_tab = np.stack([np.arange(num_actions), *(g.action_index for g in symmetries)])
    return obs_tab, act_tab


def images(
    obs: Any, masks: np.ndarray, targets: np.ndarray, choice: np.ndarray, obs_tab: Any, act_tab: np.ndarray
) -> tuple[Any, np.ndarray, np.ndarray]:
    """Row ``i`` of a minibatch (observation tensor, masks, targets) moved by the symmetry
    ``choice[i]`` of :func:`symmetry_tables` (0: unchanged)."""
    import torch

    flat = obs.reshape(choice.size, -1)
    moved = torch.gather(flat, 1, obs_tab[torch.as_tensor(choice)]).reshape(obs.shape)
    return moved, _columns_moved(masks, choice, act_tab), _columns_moved(targets, choice, act_tab)


def _columns_moved(a: np.ndarray, choice: np.ndarray, act_tab: np.ndarray) -> np.ndarray:
    """``np.take_along_axis(a, act_tab[choice], axis=1)``, one column gather per symmetry
    drawn (a quarter of the time on OTTO Game Over's 256 x 5,228 masks)."""
    out = np.empty_like(a)
    for g in np.unique(choice):
        rows = np.flatnonzero(choice == g)
        out[rows] = a[rows][:, act_tab[g]]
    return out


def _check_fit_args(
    policy: Any,
    demos: Any,
    epochs: Any,
    batch_size: Any,
    seed: Any,
    holdout: Any,
    learning_rate: Any,
) -> None:
    """:func:`fit`'s arguments, each refused by name (``ValueError``) when it cannot be fitted with."""

    def is_int(v: Any) -> bool:
        return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))

    if not all(hasattr(policy, a) for a in ("optimizer", "get_distribution", "predict_values")):
        hint = (
            " (pass model.policy, the model's MaskableActorCriticPolicy)" if hasattr(policy, "policy") else ""
        )
        raise ValueError(
            f"fit: policy must be an sb3 MaskableActorCriticPolicy{hint}, got {type(policy).__name__}"
        )
    if not isinstance(demos, Demonstrations):
        raise ValueError(f"fit: demos must be Demonstrations, got {type(demos).__name__}")
    if not len(demos):
        raise ValueError("fit: demos is empty (0 decisions); nothing to fit")
    for name, value, low in (("epochs", epochs, 0), ("batch_size", batch_size, 1), ("seed", seed, 0)):
        if not is_int(value) or value < low:
            raise ValueError(f"fit: {name} must be an int >= {low}, got {value!r}")
    if not is_real(holdout) or not 0 <= holdout < 1:
        raise ValueError(
            f"fit: holdout must be a number in [0, 1) (the share kept out of training), got {holdout!r}"
        )
    if learning_rate is not None and (not is_real(learning_rate) or not 0 < float(learning_rate) < math.inf):
        raise ValueError(f"fit: learning_rate must be a finite number > 0 or None, got {learning_rate!r}")
    want_obs = getattr(getattr(policy, "observation_space", None), "shape", None)
    if want_obs is not None and tuple(demos.obs.shape[1:]) != tuple(want_obs):
        raise ValueError(
            f"fit: demos observations have shape {tuple(demos.obs.shape[1:])} but the policy takes {tuple(want_obs)}"
            " (demonstrations of another game or view?)"
        )
    want_actions = getattr(getattr(policy, "action_space", None), "n", None)
    if want_actions is not None and demos.num_actions != int(want_actions):
        raise ValueError(
            f"fit: demos have {demos.num_actions} actions, the policy {int(want_actions)}"
            " (demonstrations of another game or view?)"
        )


def fit(
    policy: Any,
    demos: Demonstrations,
    epochs: int,
    batch_size: int,
    vf_coef: float,
    max_grad_norm: float,
    seed: int,
    holdout: float = 0.1,
    learning_rate: float | None = None,
    verbose: bool = False,
    symmetries: Sequence[Symmetry] = (),
) -> dict[str, Any]:
    """Fit ``policy`` (an sb3 ``MaskableActorCriticPolicy``) to ``demos``; returns the log.

    The actor's loss is ``-log pi(B | s)``, the log of the probability the policy puts on the
    teacher's set ``B`` of best moves (with one move per decision, the usual cross-entropy):
    ties are equally good, so the policy may settle on any of them. The critic regresses the
    returns-to-go. A ``holdout`` share of the decisions (the last ones) is kept out of
    training and reported as ``holdout_agreement`` (:func:`agreement`) each epoch, with
    ``holdout_agreement_nontrivial`` (on the held-out decisions where not every legal move is
    best) and, once, ``holdout_chance_agreement`` and ``holdout_trivial_share``
    (:func:`chance_levels`), what it is to be read against. ``learning_rate``
    (if given) replaces the optimiser's rate for this fit; the rate it had is put back after.
    ``verbose`` prints a line per epoch. With ``symmetries``, each training decision of a
    minibatch is replaced by its image under a uniformly drawn one of them or the identity
    (:class:`~envs.core.game.Symmetry`: observation, mask and targets gathered alike).
    """
    import torch
    import torch.nn.functional as F

    from training.policies import set_log_prob

    _check_fit_args(policy, demos, epochs, batch_size, seed, holdout, learning_rate)
    n = len(demos)
    n_train = n - int(round(holdout * n)) if n > 10 else n
    if n_train == 0 and epochs:
        raise ValueError(
            f"fit: holdout {holdout!r} keeps all {n} decisions out of training; give a smaller one"
        )
    train_idx = np.arange(n_train)
    test = demos.subset(np.arange(n_train, n))
    rng = np.random.default_rng(seed)
    log: dict[str, Any] = {"samples": n, "train": n_train, "epochs": []}
    groups = policy.optimizer.param_groups
    if len(test):  # what the held-out agreement is to be read against
        chance, trivial = chance_levels(test)
        log["holdout_chance_agreement"] = round(chance, 4)
        log["holdout_trivial_share"] = round(float(trivial.mean()), 4)
    soft = demos.soft is not None
    ret_t = torch.as_tensor(demos.returns)
    obs_tab, act_tab = symmetry_tables(symmetries, demos.obs.shape[1:], demos.num_actions)
    if symmetries:
        log["symmetries"] = len(symmetries)
    rates = [g["lr"] for g in groups]  # PPO's, put back by the finally below, whatever happens
    if learning_rate is not None:
        log["learning_rate"] = float(learning_rate)
    try:
        if learning_rate is not None:
            for g in groups:
                g["lr"] = float(learning_rate)
        for epoch in range(epochs):
            policy.set_training_mode(True)
            rng.shuffle(train_idx)
            losses, vlosses = [], []
            for i in range(0, n_train, batch_size):
                idx = np.sort(train_idx[i : i + batch_size])
                obs_b, masks_b = torch.from_numpy(demos.obs[idx]), demos.mask_rows(idx)
                best_np = demos.soft_targets(idx) if soft else demos.target_mask(idx)
                if symmetries:  # each decision in a random image (0 = as played)
                    g = rng.integers(len(act_tab), size=idx.size)
                    obs_b, masks_b, best_np = images(obs_b, masks_b, best_np, g, obs_tab, act_tab)
                dist = policy.get_distribution(obs_b, action_masks=masks_b)
                if soft:  # cross-entropy to the teacher's softmax
                    policy_loss = -(torch.as_tensor(best_np) * dist.distribution.logits).sum(-1).mean()
                else:
                    policy_loss = -set_log_prob(dist.distribution, torch.as_tensor(best_np)).mean()
                value_loss = F.mse_loss(policy.predict_values(obs_b).flatten(), ret_t[idx])
                loss = policy_loss + vf_coef * value_loss
                policy.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(policy.parameters(), max_grad_norm)
                policy.optimizer.step()
                losses.append(policy_loss.item())
                vlosses.append(value_loss.item())
            policy.set_training_mode(False)
            row = {
                "epoch": epoch + 1,
                "policy_loss": round(float(np.mean(losses)), 4),
                "value_loss": round(float(np.mean(vlosses)), 4),
            }
            if len(test):
                hits = agreement_rows(policy, test)
                row["holdout_agreement"] = round(float(hits.mean()), 4)
                if (~trivial).any():
                    row["holdout_agreement_nontrivial"] = round(float(hits[~trivial].mean()), 4)
            log["epochs"].append(row)
            if verbose:
                print(
                    f"  epoch {epoch + 1}/{epochs}: policy loss {row['policy_loss']}, value loss {row['value_loss']}"
                    + (
                        f", held-out agreement {row['holdout_agreement']} (a random legal move: "
                        f"{log['holdout_chance_agreement']}"
                        + (
                            f"; on the {1 - log['holdout_trivial_share']:.0%} of decisions where not "
                            f"every move is best: {row['holdout_agreement_nontrivial']}"
                            if "holdout_agreement_nontrivial" in row
                            else "; every held-out move is a best one"
                        )
                        + ")"
                        if "holdout_agreement" in row
                        else ""
                    ),
                    flush=True,
                )
    finally:
        for g, lr in zip(groups, rates, strict=True):
            g["lr"] = lr
    policy.set_training_mode(False)
    return log


def done_line(record: dict[str, Any]) -> str:
    """The line that closes the warm start: its time, then what its last fit measured, each
    figure only where it was measured (no epochs: no loss; ten decisions or fewer: no held-out
    set; a held-out set of trivial decisions only: no share where not every move is best)."""
    last_round = record["rounds"][-1]
    last = last_round["epochs"][-1] if last_round["epochs"] else {}
    line = f"pretraining done in {record['seconds']:.0f}s"
    if not last:
        return line + ": no epoch fitted (pretrain_epochs: 0)"
    line += f": policy loss {last['policy_loss']}"
    if "holdout_agreement" not in last:
        return line + f" (no held-out set: {last_round['samples']:,} decisions)"
    line += (
        f", held-out agreement with the teacher {last['holdout_agreement']} "
        f"(a random legal move: {last_round['holdout_chance_agreement']}"
    )
    if "holdout_agreement_nontrivial" in last:
        line += f"; where not every move is best: {last['holdout_agreement_nontrivial']}"
    return line + ")"


def check_pretrain_options(game: Any, cfg_dict: dict[str, Any], teacher_player: Any) -> None:
    """The warm start's options that depend on the game and its teacher (``TrainConfig.validate``
    runs this before a run writes anything): soft targets need a scoring teacher or a search,
    symmetries a game that declares some."""
    if float(cfg_dict.get("pretrain_temperature") or 0.0) > 0:
        from envs.core.bots import ScoringBot
        from envs.core.mcts import MCTSBot

        if not isinstance(teacher_player, (ScoringBot, MCTSBot)):
            from envs.core.registry import get_game
            from training.players import game_bots

            table = game_bots(get_game(game.name)).items()
            scoring = [n for n, make in table if isinstance(make, type) and issubclass(make, ScoringBot)]
            raise ValueError(
                f"pretrain_temperature > 0 needs a teacher with scores (a ScoringBot) or visit "
                f"counts (mcts); {cfg_dict['pretrain_teacher']!r} of {game.name} has neither "
                f"(the teachers that do: {', '.join([*scoring, 'mcts'])}): set pretrain_temperature: 0 "
                "or another teacher"
            )
    if cfg_dict.get("pretrain_symmetries") and not game.symmetries():
        from envs.core.registry import GAMES

        have = sorted(name for name, entry in GAMES.items() if entry.game_class()().symmetries())
        raise ValueError(
            f"pretrain_symmetries: {game.name} declares no symmetries (games that do: {', '.join(have)})"
        )


def dagger_seeds(seed: int, r: int) -> tuple[int, int]:
    """The seeds round ``r`` of a warm start at run seed ``seed`` collects and fits with: round 0
    ``(seed + 31337, seed)``, as ever; a DAgger round a pair drawn from ``(seed, r)`` together
    (round r once used ``seed + 31337 + r`` and ``seed + r``, round 0's seeds of the run at
    ``seed + r``, so runs at neighbouring seeds collected the same games)."""
    if r == 0:
        return seed + 31337, seed
    collect, fit = np.random.SeedSequence([seed, 31337, r]).generate_state(2, np.uint64) >> np.uint64(1)
    return int(collect), int(fit)


def pretrain(model: Any, cfg_dict: dict[str, Any], out: Path) -> dict[str, Any]:
    """Collect ``pretrain_samples`` teacher decisions and fit ``model.policy`` to them; then
    ``pretrain_rounds`` DAgger rounds: ``pretrain_samples`` more decisions in which the
    policy so far plays (sampling its moves) and the teacher labels every state, added to
    the data, and the fit continued on all of it.

    Writes ``<out>/pretrain.json`` (sizes, timings, per-round losses, held-out agreement, and
    for each DAgger round ``on_policy_agreement``: how often the policy's first choice was
    one of the teacher's best moves on the states it reached itself, before that round's
    fit) and returns the same record.
    """
    from training.players import make_player
    from training.train import build_single_env

    _env, game, bots = build_single_env(cfg_dict)
    teacher_player = make_player(game, str(cfg_dict["pretrain_teacher"]), bots)  # a bad spec fails here
    check_pretrain_options(game, cfg_dict, teacher_player)
    symmetries = game.symmetries() if cfg_dict.get("pretrain_symmetries") else ()
    samples, workers = int(cfg_dict["pretrain_samples"]), int(cfg_dict["pretrain_workers"])
    teacher = cfg_dict["pretrain_teacher"]
    t0 = time.time()
    record: dict[str, Any] = {
        "teacher": teacher,
        "opponents": collection_config(cfg_dict)["opponents"],
        "rounds": [],
    }
    parts: list[Demonstrations] = []
    rounds = int(cfg_dict.get("pretrain_rounds", 0))
    out.mkdir(parents=True, exist_ok=True)
    for r in range(rounds + 1):
        t1 = time.time()
        driver = None
        if r > 0:  # DAgger: the policy so far plays, the teacher labels
            driver = str(out / "pretrain_driver.zip")
            model.save(driver)
        collect_seed, fit_seed = dagger_seeds(int(cfg_dict["seed"]), r)
        new = collect_demonstrations(cfg_dict, samples, collect_seed, workers, driver)
        row: dict[str, Any] = {
            "round": r,
            "played_by": "teacher" if r == 0 else "policy",
            "decisions": len(new),
        }
        if r > 0:
            row["on_policy_agreement"] = round(agreement(model.policy, new), 4)
        parts.append(new)
        demos = concat(parts)
        t2 = time.time()
        against = "alone (solo)" if game.num_players == 1 else f"against {record['opponents']}"
        print(
            f"pretraining round {r}: {len(new):,} decisions played by {row['played_by']} {against}, "
            f"labelled by {teacher!r} ({t2 - t1:.0f}s)"
            + (f"; on-policy agreement {row['on_policy_agreement']}" if r > 0 else "")
            + f"; fitting {cfg_dict['pretrain_epochs']} epochs on {len(demos):,}",
            flush=True,
        )
        log = fit(
            model.policy,
            demos,
            epochs=int(cfg_dict["pretrain_epochs"]),
            batch_size=int(cfg_dict.get("pretrain_batch_size") or cfg_dict["batch_size"]),
            vf_coef=float(cfg_dict["vf_coef"]),
            max_grad_norm=float(cfg_dict["max_grad_norm"]),
            seed=fit_seed,
            learning_rate=cfg_dict.get("pretrain_learning_rate"),
            verbose=True,
            symmetries=symmetries,
        )
        row.update(
            episodes=new.episodes, collect_s=round(t2 - t1, 1), fit_s=round(time.time() - t2, 1), **log
        )
        record["rounds"].append(row)
    if rounds:
        (out / "pretrain_driver.zip").unlink(missing_ok=True)
    record["samples"] = sum(len(p) for p in parts)
    record["seconds"] = round(time.time() - t0, 1)
    print(done_line(record), flush=True)
    write_text(out / "pretrain.json", json.dumps(record, indent=2))
    return record
