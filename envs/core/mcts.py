"""A game-agnostic Monte Carlo tree search bot (UCT), for every eightfold game.

    bot = make_bot(game, "mcts:sims=200", bots)   # the game's tuned defaults (its mcts_defaults)
    bot = make_bot(game, "mcts:sims=200,depth=2,rollout=heuristic", bots)   # any game's BOTS table
    action = bot.act(state, player, rng)

(Octi and both Otto games tune ``depth=0``: no rollout, so a ``rollout`` or ``epsilon`` acts
only with a ``depth`` >= 1 given beside it.)

Design
------
* **Hidden information: determinized UCT with one shared tree** (single-observer
  information-set MCTS). Each simulation starts from a fresh determinization
  ``game.resample_hidden(state, player, rng)``: every card/tile hidden from ``player`` is
  re-dealt and the engine gets a fresh generator, so neither the hidden deal nor future
  chance is ever read from the true state. All simulations share one tree whose edges are
  keyed by ``(mover, action index)``; in a node only the actions legal in the *sampled*
  world are expanded or selected, and UCB uses the number of times a child was
  *available* instead of the parent's visit count (Cowling, Powley & Whitehouse 2012).
  For perfect-information games this is plain UCT with stochastic (open-loop) chance.
  Reading the true state for anything but ``player``'s own legal mask would break the
  blindness test in ``tests/core/test_mcts.py``.
* **Players**: the mover at a node is ``state.current_player()`` of the sampled world, so
  multi-step turns and out-of-turn decisions need nothing special. Keying edges by the
  mover keeps statistics consistent even if hidden information changes who moves.
* **Multi-player returns** (max^n): an edge stores the return its mover gained from that
  point on, ``returns()[mover]`` at the end of the simulation minus ``returns()[mover]``
  when the move was chosen, scaled by the span of ``game.reward_range``. Each node
  therefore maximises its own mover's return; rewards paid mid-game (eliminations) count
  from the moment they are paid.
* **Rollouts and evaluation**: ``random`` (uniform legal moves) or any bot of the game's
  ``BOTS`` table (``heuristic``, ``greedy``), mixed with uniform moves with probability
  ``epsilon``. ``depth`` caps a rollout; then the value is ``game.evaluate(state)`` when the
  game defines such a method (``float64[num_players]`` in return units, within
  ``reward_range``, zero-sum where the game is; it may read the whole *sampled* state, which
  is a determinization, never the true one), otherwise the returns paid so far. The default
  ``depth="auto"`` is ``AUTO_DEPTH`` (2) steps when the game has ``evaluate`` and a full
  playout otherwise; ``depth="full"`` always plays out. Every eightfold game defines
  ``evaluate`` (``envs/<game>/evaluate.py``), built from its ``heuristic`` bot's knowledge;
  :func:`share_values` turns per-seat strengths into values that sum like the returns.
* **Prior** (optional, ``prior=heuristic``): a scoring bot's scores of a new node's legal
  actions, scaled to [-1, 0], pick the first expansion and add a progressive bias
  ``bias * b / (visits + 1)`` that fades as the edge is visited. With ``widen=w`` a node
  visited ``n`` times admits only its ``ceil(w * sqrt(n + 1))`` best moves by the prior
  (progressive widening), so a wide node is not swept move by move before any is deepened.
* **Budget**: ``sims`` simulations per move, or ``time`` seconds per move (not
  reproducible), or both (whichever ends first). The clock is read between simulations and
  at least one simulation runs, so a move takes ``time`` plus up to one simulation (a full
  heuristic playout of an OTTO Game Over game: most of a second).
* **Cost**: one ``resample_hidden`` (a clone) per simulation; the tree walk and the
  rollout then mutate that one copy in place.
* **Reproducibility**: every random draw comes from the ``rng`` passed to :meth:`act`.

Tuning record (``mcts:sims=200`` against ``heuristic``, 2-player configs: Over and Out
``num_players=2``, OTTO Game Over ``episode="match"`` unless said; seats rotated; score =
(wins + draws/2) / games with its 95% Wilson interval; ``examples/mcts_strength.py`` or the same
match loop). The chosen per-game defaults (``mcts_defaults``) are marked *default*; the
README has the strength table of those defaults at two budgets.

=================  =====================================================  =====  ======  ==============
game               settings (``sims=200`` plus)                           games  score   95% CI
=================  =====================================================  =====  ======  ==============
octi               core defaults (c=0.3, depth auto = 2, no prior)           40  0.450   [0.307, 0.602]
octi               c=0.3,rollout=heuristic,depth=4,prior=heuristic           40  1.000   [0.912, 1.000]
octi               *default* depth=0,prior=heuristic                        100  0.830   [0.745, 0.891]
otto_octopus       core defaults                                             40  0.438   [0.296, 0.590]
otto_octopus       *default* depth=0,prior=heuristic                        200  0.522   [0.454, 0.591]
otto_octopus       depth=0,prior=heuristic,bias=3                           200  0.520   [0.451, 0.588]
otto_octopus       depth=2,prior=heuristic                                  200  0.527   [0.458, 0.596]
otto_octopus       rollout=greedy,depth=6,prior=heuristic                   100  0.505   [0.409, 0.601]
otto_octopus       ``sims=1000``,depth=0,prior=heuristic                    100  0.480   [0.385, 0.577]
otto_octopus       evaluate + 0.5 x best placement of each hand (trial)     200  0.520   [0.451, 0.588]
otto_octopus       depth=0,prior=heuristic,widen=1                          200  0.512   [0.444, 0.581]
otto_octopus       depth=0,prior=heuristic,c=0.1 (``--seed 303``)           300  0.487   [0.431, 0.543]
otto_octopus       depth=0,prior=heuristic,c=1 (``--seed 303``)             300  0.517   [0.460, 0.573]
otto_octopus       rollout=heuristic,depth=4,prior=heuristic (303)          300  0.532   [0.475, 0.587]
otto_octopus       evaluate + open arms shared by ends in hand (trial)      300  0.523   [0.467, 0.579]
otto_octopus       same, half weight (trial)                                300  0.492   [0.436, 0.548]
otto_octopus       same, plus 0.3 x kept value of the hand (trial)          300  0.457   [0.401, 0.513]
over_and_out       core defaults (*default*)                                 40  0.450   [0.307, 0.602]
over_and_out       c=0.3,rollout=heuristic,depth=4,prior=heuristic           40  0.475   [0.329, 0.625]
over_and_out       c=0.7,rollout=heuristic,depth=full                        40  0.300   [0.181, 0.454]
over_and_out       core defaults (``--seed 202``)                           400  0.482   [0.434, 0.531]
over_and_out       depth=0 (202)                                            400  0.502   [0.454, 0.551]
over_and_out       prior=heuristic (202)                                    400  0.480   [0.431, 0.529]
over_and_out       depth=0,prior=heuristic (202)                            400  0.495   [0.446, 0.544]
over_and_out       rollout=heuristic,depth=4,prior=heuristic (202)          400  0.480   [0.431, 0.529]
over_and_out       c=0.1 (202)                                              400  0.470   [0.422, 0.519]
over_and_out       c=1 (202)                                                400  0.468   [0.419, 0.516]
over_and_out       depth=full (random playouts, 202)                        400  0.255   [0.215, 0.300]
over_and_out       rollout=heuristic,depth=full (202)                       400  0.305   [0.262, 0.352]
otto_game_over     core defaults                                             40  0.500   [0.352, 0.648]
otto_game_over     core defaults (another seed)                             200  0.350   [0.287, 0.418]
otto_game_over     *default* depth=0,prior=heuristic                         40  0.475   [0.329, 0.625]
otto_game_over     *default* depth=0,prior=heuristic (another seed)         200  0.545   [0.476, 0.613]
otto_game_over     *default* depth=0,prior=heuristic (``--seed 31``)        200  0.487   [0.419, 0.556]
otto_game_over     depth=0,prior=heuristic,bias=3 (``--seed 31``)           200  0.487   [0.419, 0.556]
otto_game_over     depth=0,prior=heuristic,bias=0.3 (``--seed 31``)         200  0.527   [0.458, 0.596]
otto_game_over     depth=0,prior=heuristic,c=0.1 (``--seed 31``)            200  0.487   [0.419, 0.556]
otto_game_over     depth=0,prior=heuristic,c=0.05 (``--seed 31``)           200  0.517   [0.449, 0.586]
otto_game_over     depth=0,prior=heuristic,widen=1 (``--seed 31``)          200  0.583   [0.513, 0.649]
otto_game_over     depth=0,prior=heuristic,widen=1 (``--seed 37``)          400  0.590   [0.541, 0.637]
otto_game_over     core defaults, ``episode="game"`` (whole games)           20  0.300   [0.145, 0.519]
otto_game_over     *default* depth=0,prior=heuristic, whole games            16  0.750   [0.505, 0.898]
otto_game_over     *default*, whole games (another seed)                    100  0.680   [0.583, 0.763]
otto_game_over     *default*, whole games (a third seed)                    100  0.770   [0.678, 0.842]
otto_game_over     *default*, whole games (a fourth seed)                   100  0.710   [0.615, 0.790]
otto_game_over     *default*, whole games (``--seed 59``)                    60  0.683   [0.558, 0.787]
otto_game_over     *default*, whole games (``--seed 67``)                   100  0.730   [0.636, 0.807]
otto_game_over     *default*, whole games (``--seed 71``)                    30  0.700   [0.521, 0.833]
otto_game_over     *default*, whole games (``--seed 73``)                    20  0.850   [0.640, 0.948]
otto_game_over     *default*, whole games (``--seed 79``)                    60  0.717   [0.592, 0.815]
otto_game_over     *default*, whole games (``--seed 83``)                    40  0.825   [0.681, 0.913]
otto_game_over     *default*, whole games (``--seed 89``)                    80  0.738   [0.632, 0.821]
otto_game_over     *default*, whole games (``--seed 97``)                    80  0.762   [0.659, 0.842]
otto_game_over     *default*, whole games (``--seed 101``)                   60  0.700   [0.575, 0.801]
otto_game_over     *default*, whole games (``--seed 103``)                   60  0.750   [0.628, 0.842]
otto_game_over     *default*, whole games (``--seed 107``, size fixed)      160  0.750   [0.678, 0.811]
otto_game_over     widen=1, whole games (``--seed 41``)                     100  0.700   [0.604, 0.781]
otto_game_over     widen=1, whole games (``--seed 43``)                     100  0.600   [0.502, 0.691]
otto_game_over     rollout=heuristic,depth=1 (``--seed 31``)                200  0.583   [0.513, 0.649]
otto_game_over     rollout=heuristic,depth=1, whole games (seed 47)          40  0.700   [0.546, 0.819]
otto_game_over     ``sims=400``, whole games (seeds 610,000 + i)             60  0.600   [0.474, 0.714]
=================  =====================================================  =====  ======  ==============

Ceilings (a search that *cheats*: the same UCT on the true state, so it knows every hand, the
deck order and future chance; ``sims=200``): Over and Out ``rollout=heuristic,depth=full``
0.775 [0.625, 0.877] (40 games) and 0.745 [0.680, 0.800] (200 games, ``--seed 606``); Otto the Octopus ``rollout=heuristic,depth=4,prior=heuristic``
1.000 [0.912, 1.000] (40 games); ``examples/mcts_strength.py --oracle`` runs such a ceiling. In
Over and Out even perfect knowledge of every card barely passes 70% against ``heuristic`` (and
wins only 0.925 [0.895, 0.947] of 400 games against ``random``; a flat best reply to
``random`` shown the other hand, ``examples/oao_best_response.py``, 0.913 of 300), so an honest
bot cannot be expected to; in Otto the Octopus knowing one's next tiles is worth everything, and every honest
setting tried (five times the simulations included) ends within noise of 0.52: the search adds
little to the ``heuristic`` prior there.

What each piece of hidden information is worth (the search's ``resample_hidden`` keeps part
of the truth: ``examples/mcts_strength.py --oracle hands``, ``--oracle deal``, ``--oracle``;
2 players against ``heuristic``; score):

==============  =========================================  =============  =============  =============  =============
game            settings (``sims=200`` plus)               honest         hands seen     deal seen      everything
==============  =========================================  =============  =============  =============  =============
over_and_out    core defaults (400 games each)             0.482 (202)    0.583 (505)    0.688 (505)    0.685 (505)
over_and_out    rollout=heuristic,depth=full (200 each)    0.305 (202)    0.460 (606)    --             0.745 (606)
otto_octopus    depth=0,prior=heuristic (200 each)         0.522          0.570 (404)    0.632 (404)    0.660 (404)
otto_octopus    rollout=heuristic,depth=4,prior=heuristic  0.532 (303)    0.660 (404)    0.963 (404)    0.988 (404)
==============  =========================================  =============  =============  =============  =============

(``--seed`` in brackets; the honest Over and Out runs had 400 games; *hands seen*: every hand
true, the draw pile (and Tip Top pile) re-shuffled in each simulation; *deal seen*: hands and
pile order true, only later chance (reshuffles, pufferfish picks, seahorse returns) re-drawn;
*everything*: ``--oracle``. Intervals: Over and Out hands 0.583 [0.534, 0.630] and 0.460
[0.392, 0.529], deal 0.688 [0.640, 0.731], everything 0.685 [0.638, 0.729] and 0.745
[0.680, 0.800]; Otto the Octopus with rollouts: hands 0.660 [0.592, 0.722], deal 0.963
[0.926, 0.981], everything 0.988 [0.961, 0.996].) Knowing the other hands, which an honest
player could at best infer, is worth 0.04-0.16 and leaves both games below 70% (point estimates;
the highest interval ends at 0.722); the rest of the
ceilings is the order of the draws, which no player knows.

In OTTO Game Over the ``heuristic`` prior matters (it sees the next player's
threats, which 200 simulations spread over ~80 moves cannot), at about 1.6 times the cost per
simulation (four times before ``heuristic`` was made faster); over whole games it reaches 70%
(0.731 [0.701, 0.760] over the 890 games of seeds 17, 19, 23, 59, 67, 71, 73, 79, 83, 89, 97,
101 and 103, batches added over days; then a replication of a size fixed before it ran, 160
games at ``--seed 107``: 0.750 [0.678, 0.811]; all 1,050 games: 0.734 [0.707, 0.760]). Progressive widening
(``widen=1``) won more single matches (0.590 over 400, against 0.487-0.545 for the default) but
not more whole games (0.700 and 0.600 over 100 each at ``--seed 41`` and ``43``: 0.650
[0.582, 0.713] over 200, against the default's 0.720 over the 300 games of that time), so the defaults stay. One
``heuristic`` rollout step before ``evaluate`` (``rollout=heuristic,depth=1``, the prior kept;
255-400 simulations/s against the default's 1,400-1,600 on the same positions) did the same:
0.583 of single matches at ``--seed 31`` (the default: 0.487 there), and 28 of the first 40
whole games to finish (0.700 [0.546, 0.819]) of a 100-game run stopped because each game took
90-360 s a core (``play_match`` over 2-game chunks at seeds 470,000 + i; 2026-12-02). Both
changes win more single matches and no more whole games than the default. In a single match
the reward is the point margin / 32, a few hundredths between moves against an exploration
term of ~0.2 at 200 simulations, so the visits follow the prior; a smaller ``c`` (0.1, 0.05) or
a weaker prior (``bias=0.3``) changed nothing measurable there (0.49-0.53 at ``--seed 31``,
the default 0.487). Twice the budget did not win more whole games either: ``sims=400`` won 36
of 60 (0.600 [0.474, 0.714]; ``play_match`` over 2-game chunks at seeds 610,000 + i, 45-125 s
a game a core; 2026-12-02). The 70% goal is reached
in Octi, and in OTTO Game Over's whole games (0.734 [0.707, 0.760] over 1,050 games).

Simulations per second: ``eightfold bench --mcts`` (one core, each game's defaults).
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from envs.core.bots import Bot, ScoringBot, check_engine_state, check_mover, make_bot
from envs.core.config import check_int, check_seed
from envs.core.game import Game, GameState, legal_indices

AUTO_DEPTH = 2  # rollout steps before the game's evaluation when ``depth="auto"``
#: the core defaults; a game's ``mcts_defaults`` (its tuned settings) override them, and the
#: parameters of a spec (``mcts:sims=400,c=0.5``) override both
CORE_DEFAULTS: dict[str, Any] = {
    "sims": None, "time": None, "rollout": "random", "c": 0.3, "depth": "auto",
    "epsilon": 0.0, "prior": "none", "bias": 1.0, "widen": 0.0,
}  # fmt: skip
_UNSET: Any = object()
ROLLOUTS_HELP = "'random' or the name of a bot in the game's BOTS table (e.g. 'heuristic')"


class _Node:
    """An edge of the shared tree and the node it leads to."""

    __slots__ = ("children", "visits", "total", "avail", "bias")

    def __init__(self) -> None:
        self.children: dict[int, _Node] = {}
        self.bias: dict[int, float] | None = None  # prior of each child key, in [-1, 0]
        self.visits = 0
        self.total = 0.0  # sum of the mover's scaled return gained after this edge
        self.avail = 1  # times the edge was legal when its parent was visited


def _positive(name: str, value: Any, kind: type, allow_none: bool = True, zero: bool = False) -> Any:
    """``value`` as a positive (or, with ``zero``, non-negative) ``kind``; ``ValueError`` otherwise."""
    if value is None and allow_none:
        return None
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or value < 0 or (value == 0 and not zero) or (kind is int and not float(value).is_integer()):
        sign = "non-negative" if zero else "positive"
        raise ValueError(f"mcts: {name} must be a finite {sign} {kind.__name__}, got {value!r}")
    return kind(value)


def _outside_stacklevel() -> int:
    """The ``stacklevel`` of a warning raised in :class:`MCTSBot`'s constructor that names the
    first caller outside this module and ``envs.core.bots`` (``make_bot``): the user's line."""
    from envs.core import bots

    internal = {__file__, bots.__file__}
    frame, level = sys._getframe(1), 1  # the frame that calls warnings.warn
    while frame.f_back is not None and frame.f_code.co_filename in internal:
        frame, level = frame.f_back, level + 1
    return level


class MCTSBot(Bot):
    """Determinized UCT over action indices (see the module docstring).

    Parameters: ``sims`` (simulations per move, default 200 unless ``time`` is given),
    ``time`` (seconds per move), ``rollout`` (``"random"`` or a bot of the game's table),
    ``c`` (UCB exploration constant on returns scaled to a unit range, default 0.3),
    ``depth`` (rollout step cap: ``"auto"`` = ``AUTO_DEPTH`` with a game ``evaluate`` else play
    out, ``"full"`` or ``None`` = play out, 0 = evaluate the leaf at once), ``epsilon`` (chance of a
    uniform move in a bot rollout), ``prior`` (``"none"`` or a scoring bot of the game's table
    whose scores order expansions and add a progressive bias), ``bias`` (its weight) and
    ``widen`` (progressive widening with a prior: a node visited ``n`` times considers only its
    ``ceil(widen * sqrt(n + 1))`` best moves by the prior; 0 = every legal move).

    Defaults: a game may declare its tuned settings as ``mcts_defaults`` (a dict of these
    parameters, measured in its doc page); they replace ``CORE_DEFAULTS``, and every parameter
    given here (or in a spec, ``mcts:c=0.5``) replaces both. ``self.params`` holds the result,
    as in force: the budget used, numbers as read, ``depth="auto"`` as it resolved (2 or ``"full"``).
    With ``depth=0`` (the tuned default of Octi, OTTO Game Over and Otto the Octopus) no
    rollout is played, so ``rollout`` and ``epsilon`` change nothing until ``depth`` >= 1; given
    with ``depth=0`` they are accepted (a sweep over depth x rollout stays valid) with a
    ``UserWarning`` that says so.
    """

    name = "mcts"

    def __init__(
        self,
        game: Game[Any, Any],
        sims: Any = _UNSET,
        time: Any = _UNSET,
        rollout: Any = _UNSET,
        c: Any = _UNSET,
        depth: Any = _UNSET,
        epsilon: Any = _UNSET,
        prior: Any = _UNSET,
        bias: Any = _UNSET,
        widen: Any = _UNSET,
        *,
        _bots: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(game)
        # the bots rollout and prior name: the game's table, with the one make_bot was given
        table = {**_game_bots(game), **(_bots or {})}
        table.pop("mcts", None)
        given = {
            "sims": sims, "time": time, "rollout": rollout, "c": c, "depth": depth,
            "epsilon": epsilon, "prior": prior, "bias": bias, "widen": widen,
        }  # fmt: skip
        p = resolve_params(game, {k: v for k, v in given.items() if v is not _UNSET})
        self.params: dict[str, Any] = p  # the settings in force (for logs and reports)
        sims, time, rollout, c, depth = p["sims"], p["time"], p["rollout"], p["c"], p["depth"]
        epsilon, prior, bias, widen = p["epsilon"], p["prior"], p["bias"], p["widen"]
        self.sims: int | None = _positive("sims", sims, int)
        self.time: float | None = _positive("time", time, float)
        if self.sims is None and self.time is None:
            self.sims = 200
        self.c: float = _positive("c", c, float, allow_none=False)
        # params report the budget in force and the numbers as read (``sims=1e3`` is 1000)
        p["sims"], p["time"], p["c"] = self.sims, self.time, self.c
        evaluate = getattr(game, "evaluate", None)
        self.evaluate: Callable[[GameState], np.ndarray] | None = evaluate if callable(evaluate) else None
        if depth == "auto":  # a short rollout and the game's evaluation, else play out
            depth = AUTO_DEPTH if self.evaluate is not None else None
        elif depth == "full":
            depth = None
        try:
            self.depth: int | None = _positive("depth", depth, int, zero=True)
        except ValueError:
            raise ValueError(f"mcts: depth must be 'auto', 'full' or an int >= 0, got {depth!r}") from None
        p["depth"] = "full" if self.depth is None else self.depth  # "auto" as it resolved
        if not isinstance(epsilon, (int, float)) or isinstance(epsilon, bool) or not 0 <= epsilon <= 1:
            raise ValueError(f"mcts: epsilon must be a number in [0, 1], got {epsilon!r}")
        self.epsilon = float(epsilon)
        self.rollout_bot = _rollout_bot(game, rollout, table)
        inert = [k for k in ("rollout", "epsilon") if given[k] is not _UNSET]
        if self.depth == 0 and inert:  # accepted (a sweep over depth x rollout stays valid), but said
            whence = "given" if given["depth"] is not _UNSET else f"{game.name}'s tuned default"
            warnings.warn(
                f"mcts: {' and '.join(inert)} {'has' if len(inert) == 1 else 'have'} no effect with depth=0 ({whence}: the leaf is "
                "evaluated at once, no rollout is played); give depth >= 1 for rollouts",
                UserWarning,
                stacklevel=_outside_stacklevel(),
            )
        self.prior_bot: ScoringBot | None = None
        if prior != "none":
            try:
                candidate = None if prior == "random" else _rollout_bot(game, prior, table)
            except ValueError:
                candidate = None
            if not isinstance(candidate, ScoringBot):
                raise ValueError(
                    f"mcts: prior must be 'none' or a scoring bot of the game's table "
                    f"(one of {_prior_names(table)}), got {prior!r}"
                )
            self.prior_bot = candidate
        self.bias_weight: float = _positive("bias", bias, float, allow_none=False, zero=True)
        idle = []  # given, valid, and changing nothing in this search: said, as for depth=0
        if given["epsilon"] is not _UNSET and self.depth != 0 and self.rollout_bot is None:
            idle.append("epsilon (rollout=random: the rollouts are uniform already)")
        if given["bias"] is not _UNSET and self.prior_bot is None:
            idle.append("bias (no prior to weigh: give prior=heuristic)")
        if idle:
            warnings.warn(
                f"mcts: {' and '.join(idle)} has no effect", UserWarning, stacklevel=_outside_stacklevel()
            )
        self.widen: float = _positive("widen", widen, float, allow_none=False, zero=True)
        if self.widen > 0 and self.prior_bot is None:
            raise ValueError("mcts: widen needs a prior (prior=heuristic) to rank the moves it admits")
        lo, hi = game.reward_range
        self.scale = 1.0 / (hi - lo) if hi > lo else 1.0
        self.num_actions = game.num_actions
        self.last_sims = 0  # simulations run by the last call of act (for measuring)

    # ------------------------------------------------------------------ public
    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        legal, root = self._root(state, player, rng)
        return int(legal[0]) if root is None else self._best_root_action(root, player, legal)

    def act_with_visits(
        self, state: GameState, player: int, rng: np.random.Generator
    ) -> tuple[int, np.ndarray, np.ndarray]:
        """:meth:`act` (the same move for the same ``rng``), with the search's policy: the legal
        moves and the root's visit count of each (a lone legal move: one visit, no search), the
        target a search is distilled to (``pretrain_temperature`` with an ``mcts`` teacher)."""
        legal, root = self._root(state, player, rng)
        if root is None:
            return int(legal[0]), legal, np.ones(1)
        base = player * self.num_actions
        children = root.children
        visits = np.array(
            [c.visits if (c := children.get(base + int(a))) is not None else 0 for a in legal],
            dtype=np.float64,
        )
        return self._best_root_action(root, player, legal), legal, visits

    def _root(
        self, state: GameState, player: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, _Node | None]:
        """The mover's legal moves, and the searched root (``None``: one legal move, no search)."""
        check_engine_state(state, self.name)
        if state.is_terminal():
            raise ValueError("no legal action: the game is over")
        check_mover(state, player, self.name, rng, self.game)
        mask = state.legal_mask()
        seats = len(state.returns())
        if mask.shape != (self.num_actions,) or seats != self.game.num_players:
            # a position of another config of the game: fine unless its spaces differ from the
            # ones this search's tables are sized for
            raise ValueError(
                f"{self.name}: the state has {seats} seats and {mask.size} actions, this bot's game "
                f"{self.game.num_players} and {self.num_actions}; build the bot on the state's game"
            )
        legal = legal_indices(mask)  # the mover's own legal moves are visible to it
        self.last_sims = 0
        if legal.size == 1:
            return legal, None
        return legal, self.search(state, player, rng)

    def search(self, state: GameState, player: int, rng: np.random.Generator) -> _Node:
        """Run the simulation budget from ``state`` as seen by ``player``; the root node."""
        root = _Node()
        deadline = None if self.time is None else time.perf_counter() + self.time
        n = 0
        while self.sims is None or n < self.sims:
            if deadline is not None and n > 0 and time.perf_counter() >= deadline:
                break
            world = self.game.resample_hidden(state, player, rng)
            self._simulate(root, world, rng)
            root.visits += 1
            n += 1
        self.last_sims = n
        return root

    # ---------------------------------------------------------------- internals
    def _simulate(self, root: _Node, world: GameState, rng: np.random.Generator) -> None:
        """Select, expand, roll out and back up one simulation on ``world`` (mutated)."""
        path: list[tuple[_Node, int, float]] = []
        node = root
        while not world.is_terminal():
            mover = world.current_player()
            child, action, expanded = self._select(node, world, mover, rng)
            path.append((child, mover, float(world.returns()[mover])))
            world.apply(action)
            node = child
            if expanded:
                break
        final = self._rollout(world, rng)
        scale = self.scale
        for child, mover, before in path:
            child.visits += 1
            child.total += (float(final[mover]) - before) * scale

    def _select(
        self, node: _Node, world: GameState, mover: int, rng: np.random.Generator
    ) -> tuple[_Node, int, bool]:
        """The edge to follow: an untried legal action if any, else the best UCB child."""
        base = mover * self.num_actions
        children = node.children
        keys = (legal_indices(world.legal_mask()) + base).tolist()
        bias = None if self.prior_bot is None else self._bias(node, world, mover, keys, rng)
        if bias is not None and self.widen > 0:  # progressive widening: the prior's best first
            reach = self.widen * math.sqrt(node.visits + 1)  # inf for a huge widen: no ceil of it
            if reach < len(keys):
                allowed = max(1, math.ceil(reach))
                keys = sorted(keys, key=lambda k: (-bias.get(k, -0.5), k))[:allowed]
        untried = [k for k in keys if k not in children]
        if untried:
            for k in keys:
                child = children.get(k)
                if child is not None:
                    child.avail += 1
            if bias is None:
                key = untried[int(rng.random() * len(untried))]
            else:  # the prior's favourite first
                key = max(untried, key=lambda k: bias.get(k, -0.5))
            new = children[key] = _Node()
            return new, key - base, True
        best: _Node | None = None
        best_key = -1
        best_ucb = -math.inf
        c, weight = self.c, self.bias_weight
        for k in keys:
            child = children[k]
            child.avail += 1
            ucb = child.total / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
            if bias is not None:  # progressive bias: fades as the edge gathers visits
                ucb += weight * bias.get(k, -0.5) / (child.visits + 1)
            if ucb > best_ucb:
                best, best_key, best_ucb = child, k, ucb
        assert best is not None
        return best, best_key - base, False

    def _bias(
        self, node: _Node, world: GameState, mover: int, keys: list[int], rng: np.random.Generator
    ) -> dict[int, float]:
        """The prior bot's scores of the node's legal actions, scaled to [-1, 0] (computed once)."""
        if node.bias is None:
            assert self.prior_bot is not None
            base = mover * self.num_actions
            scores = self.prior_bot.scores(world, mover, [k - base for k in keys], rng)
            top, span = max(scores), max(scores) - min(scores)
            node.bias = {
                k: (sc - top) / span if span > 0 else 0.0 for k, sc in zip(keys, scores, strict=True)
            }
        return node.bias

    def _rollout(self, world: GameState, rng: np.random.Generator) -> np.ndarray:
        """Play ``world`` on to the end (or ``depth`` steps); the returns then."""
        bot, eps, depth = self.rollout_bot, self.epsilon, self.depth
        steps = 0
        while not world.is_terminal():
            if depth is not None and steps >= depth:
                if self.evaluate is not None:
                    return np.asarray(self.evaluate(world), dtype=np.float64)
                break
            mover = world.current_player()
            if bot is not None and (eps == 0.0 or rng.random() >= eps):
                action = bot.act(world, mover, rng)
            else:
                legal = legal_indices(world.legal_mask())
                action = int(legal[int(rng.random() * legal.size)])
            world.apply(action)
            steps += 1
        return np.asarray(world.returns(), dtype=np.float64)

    def _best_root_action(self, root: _Node, player: int, legal: np.ndarray) -> int:
        """Most visited legal root action (ties: best mean, then lowest index)."""
        base = player * self.num_actions
        best_key: tuple[int, float] = (-1, -math.inf)
        best_action = int(legal[0])
        for a in legal:
            child = root.children.get(base + int(a))
            if child is None or child.visits == 0:
                continue
            key = (child.visits, child.total / child.visits)
            if key > best_key:
                best_key, best_action = key, int(a)
        return best_action

    def root_stats(self, root: _Node, player: int) -> dict[int, tuple[int, float]]:
        """``action -> (visits, mean scaled return)`` of ``player``'s root edges (for tests)."""
        base = player * self.num_actions
        return {
            key - base: (child.visits, child.total / max(1, child.visits))
            for key, child in root.children.items()
            if base <= key < base + self.num_actions
        }


def resolve_params(game: Game[Any, Any], given: dict[str, Any]) -> dict[str, Any]:
    """The settings of an ``mcts`` bot: ``CORE_DEFAULTS`` < ``game.mcts_defaults`` < ``given``.

    A budget given in the spec (``sims`` or ``time``) replaces the game's default budget as a
    whole, so ``mcts:time=1`` is not also capped by a default ``sims``."""
    unknown = sorted(set(given) - set(CORE_DEFAULTS))
    if unknown:
        raise ValueError(f"mcts: unknown parameter(s) {unknown}; expected {sorted(CORE_DEFAULTS)}")
    tuned = dict(getattr(game, "mcts_defaults", None) or {})
    bad = sorted(set(tuned) - set(CORE_DEFAULTS))
    if bad:
        raise ValueError(f"{game.name}: mcts_defaults has unknown key(s) {bad}")
    if "sims" in given or "time" in given:
        tuned.pop("sims", None)
        tuned.pop("time", None)
    return {**CORE_DEFAULTS, **tuned, **given}


def share_values(strength: np.ndarray, mean: float, low: float, high: float) -> np.ndarray:
    """Values ``mean + c * (softmax(strength) - 1/m)`` of ``m`` players: they sum to
    ``m * mean`` (zero-sum when the returns still to be paid average ``mean``), the strongest
    gets the most, and ``c`` is as large as keeps every value in ``[low, high]``
    (``low <= mean <= high``). Two players with ``(low, high) = (-1, 1)``: ``tanh(d / 2)``."""
    m = int(strength.size)
    if m == 1:
        return np.array([mean], dtype=np.float64)
    z = np.exp(strength - strength.max())
    p = z / z.sum()
    c = max(0.0, min((high - mean) / (1.0 - 1.0 / m), (mean - low) * m))
    return np.asarray(mean + c * (p - 1.0 / m), dtype=np.float64)


def _game_bots(game: Game[Any, Any]) -> dict[str, Any]:
    """The game's registered bot table (empty for a game outside the registry)."""
    from envs.core.registry import get_game

    try:
        return dict(get_game(game.name).bots())
    except (ValueError, ImportError, AttributeError):
        return {}


def _prior_names(table: Mapping[str, Any]) -> list[str]:
    """``"none"`` and the scoring bots of ``table`` (what ``prior`` accepts)."""
    scoring = [n for n, f in table.items() if isinstance(f, type) and issubclass(f, ScoringBot)]
    return ["none", *sorted(scoring)]


def _rollout_bot(game: Game[Any, Any], rollout: str | Bot, table: Mapping[str, Any]) -> Bot | None:
    """``None`` for uniform random rollouts, else the bot of ``table`` that plays them."""
    if isinstance(rollout, Bot):
        return rollout
    if not isinstance(rollout, str):
        raise ValueError(f"mcts: rollout must be {ROLLOUTS_HELP}, got {rollout!r}")
    if rollout == "random":
        return None
    if rollout not in table or rollout == "mcts":
        raise ValueError(f"mcts: unknown rollout {rollout!r}; expected {ROLLOUTS_HELP}: {sorted(table)}")
    bot: Bot = table[rollout](game)
    return bot


def measure_sims_per_second(
    game: Game[Any, Any], spec: str = "mcts:sims=200", positions: int = 5, seed: int = 0
) -> float:
    """Simulations per second of the ``spec`` bot, searched from ``positions`` positions (each
    with a choice) of seeded random games of ``game``: one game gives them in the four games
    here; a short game is followed by more until there are ``positions`` (the bench and
    ``examples/mcts_strength.py`` call it). ``ValueError`` if 1,000 games hold no choice."""
    bot = make_bot(game, spec, {})
    if not isinstance(bot, MCTSBot):
        raise ValueError(f"{spec!r} is not an mcts spec")
    check_int("positions", positions, 1)
    seed = check_seed(seed)
    rng = np.random.default_rng(seed)
    found: list[GameState] = []
    for played in range(1000):  # a short game picks few positions (none, sometimes): play on
        state = game.new_initial_state(np.random.default_rng(seed + 1 + played))
        while not state.is_terminal() and len(found) < positions:
            if rng.random() < 0.2 and int(state.legal_mask().sum()) > 1:
                found.append(state.clone())
            legal = legal_indices(state.legal_mask())
            state.apply(int(legal[rng.integers(legal.size)]))
        if len(found) == positions:
            break
    if not found:
        raise ValueError(f"no position with a choice in 1,000 random games of {type(game).__name__}")
    sims, spent = 0, 0.0
    for pos in found:
        start = time.perf_counter()
        bot.search(pos, pos.current_player(), rng)
        spent += time.perf_counter() - start
        sims += bot.last_sims
    return sims / spent if spent > 0 else 0.0
