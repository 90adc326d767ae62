"""The single-agent Gymnasium view of an eightfold game, for sb3-contrib ``MaskablePPO``.

One seat is the learner's; every other seat is played inside :meth:`SingleAgentEnv.step`
by a player drawn per episode from an :class:`~training.players.OpponentPool` (bots,
frozen policies, or a weighted mix). So every transition - and every reward - belongs to
the learner's seat:

* the reward of a step is the change of ``state.returns()[seat]`` from the learner's
  action up to its next decision (rewards paid while opponents move included);
* the episode ends for the learner when the game ends - also on an opponent's move, with
  the learner's own final reward - or when the learner is eliminated (in 2v2: when both
  partners are, so the team's reward earned by the partner after the learner is out is paid);
* the rewards of an episode therefore sum to the learner's final return, always.

This is exactly what the PettingZoo SB3 tutorial wrapper gets wrong: it returns the
cumulative reward of ``agent_selection`` *after* the step, i.e. of the next agent, so a
game lost on the opponent's move is credited to the wrong side. Here the seat is fixed
for the episode and rewards are read by seat, never by "who moves next".

Observations are ``game.observe(state, seat)`` (the same array the AEC env puts under
``"observation"``), masks are ``state.legal_mask()`` (its ``"action_mask"``). A masked-out
move ends the episode with ``illegal_reward`` (-1; ``info["illegal_action"]``) as its return, as
PettingZoo's ``TerminateIllegalWrapper`` (its step pays ``illegal_reward`` less what the episode
paid before, so the rewards still sum to the return); an index outside ``[0, num_actions)`` is no move at all and raises
``ValueError``, as ``raw_env`` does (``env()``'s wrapper asserts there, as PettingZoo
classic's ``AssertOutOfBoundsWrapper``).

    env = SingleAgentEnv(game, OpponentPool.from_specs(game, ["random"], bots))
    obs, info = env.reset(seed=0)              # options={"seat": 1} pins the seat
    obs, r, term, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[0]))

Every other reset option is the game's own (its doc page; ``{"state": ...}`` in every game), so
an episode can start from a set-up position; options that end the game before the learner's
seat moves are a ``ValueError`` naming them.

Reward shaping (off by default): ``shaping=k`` adds ``k * (gamma * phi(s') - phi(s))`` to each
reward, with ``phi(s) = game.evaluate(state)[seat]`` (the game's static evaluation, the one the
MCTS bot uses; ``phi = 0`` once the learner is out). It is potential-based (Ng, Harada &
Russell 1999): the shaped episode return differs from the true one by ``-k * phi(s0)`` (plus
discounting terms), so the optimal policy is unchanged, while the learner gets a signal on
every step instead of only at the end. ``info["return"]``, ``info["outcome"]`` and every
evaluation use the true returns.

Every info holds ``seat`` (the learner's seat this episode) and ``opponents`` (each other
seat's agent name and its player's name: ``{"player_1": "heuristic"}``; a fixed partner is
``"partner"``). The learner's last step carries ``info["outcome"]`` (win / draw / loss) and
``info["placement"]`` (1 = best, ties share their places), from the final returns as ``eval``
counts them. A learner knocked out while others play on (Over and Out, 3+ players) ends its
episode then: its outcome is a loss and its placement 1 + the number of rivals still playing,
its rank in knock-out order. That is ``eval``'s placement under the default
``reward_mode="placement"``; under ``"winner_only"`` every loser ends on -1, and ``eval``,
which ranks by the final returns, ties them all ((n + 2) / 2 for n players), so a training
log's placements there keep the knock-out order that ``eval``'s do not, and their means differ.

By name, from specs (:func:`make_env`), or through Gymnasium: ``import training`` registers
``eightfold/<game>-single-v0`` for every game::

    env = gymnasium.make("eightfold/octi-single-v0", opponents={"random": 1, "heuristic": 3})
    env = gymnasium.make("eightfold/otto_octopus-single-v0", opponents=["mcts:sims=50"], num_players=2)

Seats: ``seat=None`` (default) draws the learner's seat uniformly per episode; an int pins
it. In 2v2 games (``config.teams``; partners sit opposite) the partner seat is played by
``partner`` (a player, or a pool to sample from; default: the opponent pool).
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from envs.core.aec import check_seed, own_metadata
from envs.core.config import is_real
from envs.core.game import Game, GameState, check_game, team_seats
from training import VIEW_OF, register_gymnasium  # noqa: F401  (register_gymnasium: its old home, re-exported)
from training.players import OpponentPool, Player

_MAX_REDEALS = 100


def _seat_value(name: str, seat: Any, n: int) -> int | None:
    """A seat given by the caller: None, or an integer in [0, n) (numpy integers read as the
    int they hold; a bool is not a seat)."""
    if seat is None:
        return None
    if isinstance(seat, (int, np.integer)) and not isinstance(seat, (bool, np.bool_)) and 0 <= seat < n:
        return int(seat)
    raise ValueError(f"{name} must be an int in [0, {n - 1}] or None (random per episode), got {seat!r}")


def placement(returns: np.ndarray, seat: int, team: frozenset[int] = frozenset()) -> float:
    """1 = best; ties share the mean of their places. Partners (``team``: ``seat`` and the
    seats that share its return) are not rivals, and each other team counts once: with teams
    of k seats, seat s is on the side of the seats s mod n/k (``team_seats``' pairing), so a
    2v2 game is placed 1 (won), 1.5 (drawn) or 2 (lost)."""
    mine = returns[seat]
    n = len(returns)
    step = n // len(team) if len(team) > 1 else n
    rivals = [returns[s] for s in range(step) if s != seat % step and s not in team]
    above = sum(1 for r in rivals if r > mine + 1e-9)
    tied = sum(1 for r in rivals if abs(r - mine) <= 1e-9)
    return 1.0 + above + 0.5 * tied


def outcome(returns: np.ndarray, seat: int, team: frozenset[int] = frozenset()) -> str:
    """``"win"`` (strict best of the table), ``"draw"`` (shared best) or ``"loss"``.

    Solo games (one seat): a positive return is a win, zero a draw, negative a loss.
    """
    if len(returns) == 1:
        r = float(returns[0])
        return "win" if r > 1e-9 else ("draw" if r >= -1e-9 else "loss")
    place = placement(returns, seat, team)
    if place == 1.0:
        return "win"
    mine = returns[seat]
    rivals = [r for s, r in enumerate(returns) if s != seat and s not in team]
    return "draw" if rivals and mine >= max(rivals) - 1e-9 else "loss"


def _action_index(action: Any, n: int) -> int:
    """``action`` as an int: a Python or numpy integer (what SB3's vector envs pass, taken
    without building an array) or a one-element integer array; never a float rounded, nor a
    bool, else ``ValueError``."""
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        return int(action)
    arr = np.asarray(action)
    if arr.size != 1 or arr.dtype.kind not in "iu":
        raise ValueError(f"action must be one integer index in [0, {n}), got {action!r}")
    return int(arr.reshape(()))


class SingleAgentEnv(gym.Env[np.ndarray, np.int64]):
    """See the module docstring."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        game: Game[Any, Any],
        opponents: OpponentPool | None = None,
        *,
        seat: int | None = None,
        partner: Player | OpponentPool | None = None,
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        shaping: float = 0.0,
        gamma: float = 0.99,
    ) -> None:
        check_game(game, "SingleAgentEnv", also="or make_env(name, ...) by name")
        if opponents is not None and not isinstance(opponents, OpponentPool):
            raise ValueError(
                "opponents must be an OpponentPool or None (OpponentPool.from_specs(game, ['heuristic'], bots) "
                f"or make_env(..., opponents=[...]) build one from specs), got {type(opponents).__name__} "
                f"{opponents!r}"
            )
        if (
            partner is not None
            and not isinstance(partner, OpponentPool)
            and not callable(getattr(partner, "act", None))
        ):
            raise ValueError(
                "partner must be a player with act(state, seat, rng) (make_player(game, spec, bots)), an "
                f"OpponentPool or None, got {type(partner).__name__} {partner!r}"
            )
        n = game.num_players
        seat = _seat_value("seat", seat, n)
        if partner is not None and len(team_seats(game, 0)) < 2:
            raise ValueError(
                f"partner is for 2v2 games only (teams with 4 players); this {game.name} "
                f"game ({n} player{'' if n == 1 else 's'}) has no partner seat"
            )
        if opponents is None and n > 1:
            raise ValueError(f"a {n}-player game needs opponents (an OpponentPool)")
        if render_mode not in (None, "ansi", "rgb_array"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'rgb_array', got {render_mode!r}")
        if not is_real(shaping) or not 0 <= shaping < math.inf:  # NaN fails both comparisons
            raise ValueError(f"shaping must be a finite number >= 0, got {shaping!r}")
        if not is_real(gamma) or not 0 < gamma <= 1:
            raise ValueError(f"gamma must be a number in (0, 1], got {gamma!r}")
        if not is_real(illegal_reward) or not math.isfinite(illegal_reward):
            raise ValueError(f"illegal_reward must be a finite number, got {illegal_reward!r}")
        evaluate = getattr(game, "evaluate", None)
        if shaping and not callable(evaluate):
            raise ValueError(f"shaping needs the game's evaluate(state); {game.name} has none")
        self.shaping = float(shaping)
        self.gamma = float(gamma)
        self._evaluate = evaluate if shaping else None
        self._phi = 0.0
        self.game = game
        self.opponents = opponents
        self.partner = partner
        self.fixed_seat = seat
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        lo, hi = game.observation_bounds
        self.observation_space = spaces.Box(lo, hi, shape=tuple(game.observation_shape), dtype=np.float32)
        self.action_space = spaces.Discrete(game.num_actions)
        # a copy of its own: Gymnasium's vector envs write into their first env's metadata
        # (autoreset_mode), which would otherwise change the class's for every view
        self.metadata = own_metadata(type(self).metadata)
        self._rng = np.random.default_rng()
        self._state: GameState | None = None
        self.seat = 0
        self.players: dict[int, tuple[str, Player]] = {}
        self._team: frozenset[int] = frozenset({0})  # the learner's side, set per episode
        self._paid = 0.0
        self._done = True

    # ------------------------------------------------------------------ access
    @property
    def state(self) -> GameState:
        if self._state is None:
            raise RuntimeError("call reset() first")
        return self._state

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now (``bool[num_actions]``); for MaskablePPO. Before
        the first ``reset()`` and once the episode has ended there is no decision, and the mask
        is all True: a Gymnasium vector env asks for it between the last step and its own
        reset, and the next ``step()`` resets whatever the action (an all-False mask would give
        MaskablePPO no action to draw)."""
        if self._state is None or self._done:
            return np.ones(self.game.num_actions, dtype=bool)  # no decision: nothing acts on it
        return self._state.legal_mask().astype(bool)

    def add_opponent(self, group: str, name: str, player: Player) -> None:
        """Add a member to the opponent pool (self-play snapshots arrive this way)."""
        if self.opponents is None:
            raise RuntimeError("this env has no opponent pool")
        self.opponents.add(group, name, player)

    def add_policy_opponent(self, path: str, group: str = "self") -> None:
        """Load a saved model as a frozen player (called through ``VecEnv.env_method``).

        ``group="partner"`` adds it to the partner pool (2v2 partner played by past selves).
        """
        from training.players import PolicyPlayer

        player = PolicyPlayer.load(path, self.game)
        if group == "partner":
            if not isinstance(self.partner, OpponentPool):
                raise RuntimeError("this env's partner is not a pool")
            self.partner.add("self", path, player)
        else:
            self.add_opponent(group, path, player)

    # ------------------------------------------------------------------- reset
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if options is not None and not isinstance(options, Mapping):
            raise ValueError(f"options must be None or a dict of reset options, got {type(options).__name__}")
        if seed is not None:
            seed = check_seed(seed)
        super().reset(seed=seed)
        if seed is not None:  # own stream for seats and opponents, apart from the deal
            self._rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
        opts: dict[str, Any] = dict(options or {})
        seat_opt = _seat_value("option seat", opts.pop("seat", None), self.game.num_players)
        for attempt in range(_MAX_REDEALS):
            # the first game of reset(seed=s) is dealt exactly like the AEC env's reset(seed=s)
            deal_seed = seed if seed is not None and attempt == 0 else int(self._rng.integers(2**63 - 1))
            try:
                self._state = self.game.new_initial_state(np.random.default_rng(deal_seed), opts or None)
            except ValueError as err:  # the game lists its own options; this view adds "seat"
                if str(err).startswith("unknown reset option"):
                    raise ValueError(f"{err} (and this view's 'seat')") from None
                raise
            if opts and self._state.is_terminal():  # no deal can help: the options end the game
                raise ValueError(
                    f"the reset options {sorted(opts)} set up a finished game: no episode starts there"
                )
            self.seat = self._choose_seat(seat_opt)
            self._seat_players()
            self._paid = 0.0
            self._done = False
            self._play_others()
            if not self._learner_out():
                self._phi = self._potential()
                return self._obs(), self._info()
        if opts:
            raise ValueError(
                f"from the reset options {sorted(opts)} the game ended before seat {self.seat} could move, "
                f"in {_MAX_REDEALS} tries: set up a position where the learner's seat still has a move"
            )
        raise RuntimeError(f"the game ended before seat {self.seat} could move in {_MAX_REDEALS} deals")

    def _choose_seat(self, seat_opt: int | None) -> int:
        seat = seat_opt if seat_opt is not None else self.fixed_seat
        if seat is None:
            return int(self._rng.integers(self.game.num_players))
        return seat

    def _seat_players(self) -> None:
        team = self._team = team_seats(self.game, self.seat)
        self.players = {}
        for s in range(self.game.num_players):
            if s == self.seat:
                continue
            source = self.partner if (s in team and self.partner is not None) else self.opponents
            if isinstance(source, OpponentPool):
                self.players[s] = source.sample(self._rng)
            elif source is not None:
                self.players[s] = ("partner", source)
        # info["opponents"] of the episode, by agent name (Gymnasium's vector infos take string
        # keys all the way down); each info gets a copy
        self._names = {self.game.agent_name(s): name for s, (name, _) in self.players.items()}

    # -------------------------------------------------------------------- step
    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError(
                "call reset() first" if self._state is None else "the episode is over: call reset()"
            )
        state = self.state
        a = _action_index(action, self.game.num_actions)
        if not 0 <= a < self.game.num_actions:  # no move at all: bad input, as in the AEC env
            raise ValueError(f"action must be an integer index in [0, {self.game.num_actions}), got {a}")
        if not state.legal_mask()[a]:
            # as PettingZoo's TerminateIllegalWrapper: the episode ends, the mover is penalised
            self._done = True
            info = self._info()
            sides = self.game.num_players // max(1, len(self._team))
            info.update(illegal_action=True, outcome="loss", placement=float(sides))
            info["return"] = self.illegal_reward
            # the episode's rewards sum to illegal_reward, as the AEC env's cumulative reward:
            # what was paid before (a match won, a partner knocked out) is taken back here
            reward, self._paid = self.illegal_reward - self._paid, self.illegal_reward
            if self._evaluate is not None:  # the end of the episode: phi = 0, as any other end
                reward += self.shaping * (0.0 - self._phi)
                self._phi = 0.0
            return self._obs(), reward, True, False, info
        state.apply(a)
        self._play_others()
        now = float(state.returns()[self.seat])
        reward, self._paid = now - self._paid, now
        out = self._learner_out()
        if self._evaluate is not None:  # potential-based shaping (module docstring)
            phi = 0.0 if out else self._potential()
            reward += self.shaping * (self.gamma * phi - self._phi)
            self._phi = phi
        # a side knocked out by the step that also truncates the game is terminated (OAO-S12):
        # only the seats still in are cut off
        knocked_out = self._team <= state.eliminated()
        truncated = out and state.is_terminal() and state.is_truncated() and not knocked_out
        terminated = out and not truncated
        self._done = out
        return self._obs(), reward, terminated, truncated, self._info()

    def _potential(self) -> float:
        if self._evaluate is None:
            return 0.0
        return float(self._evaluate(self.state)[self.seat])

    def _learner_out(self) -> bool:
        """The game is over, or the learner's side is out: in 2v2 an eliminated learner's
        partner plays on (inside ``step``) and the team's later rewards are still the learner's."""
        state = self.state
        return state.is_terminal() or self._team <= state.eliminated()

    def _play_others(self) -> None:
        """Let the other seats move until the learner must decide or is out."""
        state = self.state
        for _ in range(self.game.max_game_length + 1):
            if self._learner_out():
                return
            p = state.current_player()
            if p == self.seat:
                return
            state.apply(int(self.players[p][1].act(state, p, self._rng)))
        raise RuntimeError("opponents exceeded the game's max_game_length")

    # ------------------------------------------------------------ observation
    def _obs(self) -> np.ndarray:
        return np.asarray(self.game.observe(self.state, self.seat), dtype=np.float32)

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"seat": self.seat, "opponents": dict(self._names)}
        state = self.state
        if self._learner_out():
            returns = np.asarray(state.returns(), dtype=np.float64)
            team = self._team
            if state.is_terminal():
                info["placement"] = placement(returns, self.seat, team)
                info["outcome"] = outcome(returns, self.seat, team)
            else:  # eliminated while the others play on: behind every side still in
                out = set(state.eliminated())
                sides = {
                    team_seats(self.game, s) for s in range(self.game.num_players) if s not in out | team
                }
                info["placement"] = 1.0 + len(sides)  # in 2v2 the other team counts once
                info["outcome"] = "loss"
            info["return"] = float(returns[self.seat])
        return info

    def render(self) -> Any:
        """The game's text (``"ansi"``) or picture (``"rgb_array"``, ``uint8[H, W, 3]``; needs
        Pillow) of the position the learner is to move in; None without a render mode."""
        if self.render_mode == "ansi":
            return self.game.render_ansi(self.state)
        if self.render_mode == "rgb_array":
            return self.game.render_rgb(self.state)
        return None


def make_env(
    game: str,
    *,
    opponents: Sequence[str] | Mapping[str, float] | None = None,
    seat: int | None = None,
    partner: str | None = None,
    shaping: float = 0.0,
    gamma: float = 0.99,
    illegal_reward: float = -1.0,
    render_mode: str | None = None,
    **params: Any,
) -> SingleAgentEnv:
    """The single-agent view of a game by name, all from specs; what ``gymnasium.make`` calls
    for the ids ``eightfold/<game>-single-v0`` that ``import training`` registers::

        env = make_env("otto_octopus", opponents=["heuristic"], num_players=2)
        env = gymnasium.make("eightfold/octi-single-v0", opponents={"random": 1, "heuristic": 3})

    ``game``: a registered name or id (``octi``, ``eightfold/octi-v0``); every keyword not
    named here is a parameter of the game (``num_players=2``, ``variant="x_fast"``), checked by
    its ``Config``; the others are :func:`make_single_agent_env`'s and the view's."""
    from envs.core.registry import get_game
    from training.players import game_bots

    entry = get_game(game)
    game_class = entry.game_class()
    fields = {f.name for f in dataclasses.fields(game_class.config_class)}
    unknown = sorted(set(params) - fields - {"config"}, key=repr)  # the game takes a config too
    if unknown:  # neither the game's parameter nor the view's: name both lists
        view = [k for k in inspect.signature(make_env).parameters if k not in ("game", "params")]
        raise ValueError(
            f"unknown keyword(s) {unknown} for the single-agent view of {entry.name}; the view's: "
            f"{view}; the game's parameters: {sorted(fields)}"
        )
    return make_single_agent_env(
        game_class(**params),
        opponents,
        game_bots(entry),
        seat=seat,
        partner=partner,
        shaping=shaping,
        gamma=gamma,
        illegal_reward=illegal_reward,
        render_mode=render_mode,
    )


class ViewOf:
    """The entry point of the id ``eightfold/<game>-single-v0``: :func:`make_env` of that game.
    It carries the view's ``metadata``, so ``gymnasium.make`` knows its render modes (and adds
    its ``RenderCollection`` for ``render_mode="rgb_array_list"``), and it refuses a ``game``
    keyword naming another game (Gymnasium lets a caller's keywords override the id's)."""

    metadata = SingleAgentEnv.metadata

    def __init__(self, game: str) -> None:
        self.game = game

    def __call__(self, game: str | None = None, **kwargs: Any) -> SingleAgentEnv:
        from envs.core.registry import NAMESPACE, get_game

        if game is not None and get_game(game).name != self.game:  # an unknown name: its error
            raise ValueError(
                f"game: {NAMESPACE}/{self.game}-single-v0 is the view of {self.game}, got game={game!r}; "
                f"use {NAMESPACE}/{get_game(game).name}-single-v0"
            )
        return make_env(game=self.game, **kwargs)

    def __repr__(self) -> str:
        return f"{type(self).__module__}.{type(self).__qualname__}({self.game!r})"


def __getattr__(name: str) -> Any:
    if name.startswith(VIEW_OF):
        from envs.core.registry import GAMES

        if name[len(VIEW_OF) :] in GAMES:
            return ViewOf(name[len(VIEW_OF) :])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def make_single_agent_env(
    game: Game[Any, Any],
    opponents: Sequence[str] | Mapping[str, float] | None,
    bots: Mapping[str, Any],
    seat: int | None = None,
    partner: str | None = None,
    **view: Any,
) -> SingleAgentEnv:
    """Build the view of ``game`` from specs: ``opponents`` are bot specs (``random``,
    ``heuristic``, ``mcts:sims=50``) or saved models (``runs/x/model.zip``), equal weights from
    a list or weighted from a dict, one drawn per episode and seat (None: ``["random"]``; a solo
    game takes none; ``"self"`` is an empty group for the snapshots added with
    :meth:`SingleAgentEnv.add_policy_opponent`, the ``random`` bot playing while every group is
    empty); ``partner``: the 2v2 partner's spec (default: the opponents' pool); ``view``:
    :class:`SingleAgentEnv`'s other keywords (``shaping``, ``gamma``, ``render_mode``, ...)."""
    from training.players import make_player

    if game.num_players == 1:
        if opponents:
            raise ValueError(
                f"opponents: a solo {game.name} game (num_players=1) has none, got {opponents!r}"
            )
        pool = None
    else:
        if isinstance(opponents, str):
            raise ValueError(
                f"opponents must be a list of specs or a dict of weights, got the string {opponents!r}"
            )
        if opponents is not None and not isinstance(opponents, (list, tuple, Mapping)):
            raise ValueError(
                f"opponents must be a list of specs or a dict of weights, got {type(opponents).__name__}"
            )
        pool = OpponentPool.from_specs(game, opponents if opponents is not None else ["random"], bots)
    if partner is not None and not isinstance(partner, str):
        raise ValueError(f"partner must be a player spec (a bot name or a model path), got {partner!r}")
    if partner == "self":
        raise ValueError(
            "partner 'self' (past selves as the partner) is eightfold train's: it keeps the pool of "
            "snapshots; here give a bot spec or a model path, or None for the opponents' pool"
        )
    mate = make_player(game, partner, bots) if partner else None
    return SingleAgentEnv(game, pool, seat=seat, partner=mate, **view)
