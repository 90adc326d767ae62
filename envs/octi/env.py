"""Octi — ``eightfold/octi-v0`` (module ``envs.octi_v0``).

Octi (Don Green; binding rules ``../shared/rules/octi.md``, rule IDs OCT-01..OCT-53) for two
players. Pods (octagons) move only in the directions of the prongs plugged into their
sockets; a turn adds a prong, steps, jumps (series of jumps, optional captures of either
colour), and in Octi-X enters a reserve pod or (classic) liberates a captured one. Land a
pod on an enemy base to win (classic: hold all three enemy bases at the end of your turn);
a player with no legal action at the start of its turn loses.

    from envs import octi_v0
    env = octi_v0.env(variant="x_fast")
    env.reset(seed=0)

| | |
|---|---|
| agents | ``player_0`` (Black, moves first, bottom of the board) and ``player_1`` (Red) |
| action space | ``Discrete(117)`` basic, ``Discrete(185)`` X; with ``allow_reposition`` 373 / 633 |
| observation space | ``Dict(observation=Box(0, 1, (C, H, W), float32), action_mask=Box(0, 1, (N,), int8))``; C x H x W = 84 x 7 x 6 basic, 111 x 9 x 9 X |
| rewards | +1 win / -1 loss at the agent step that ends the game; draws (truncation, repetition) 0 / 0; illegal action: -1 to the mover, 0 to the other (``env()``, which then marks both agents terminated and truncated, as PettingZoo's wrapper does; ``raw_env`` raises ``ValueError`` instead) |
| episode end | base win, three-base win, no legal action, repetition (flag), ``max_turns`` truncation |
| parallel API | no (``is_parallelizable=False``) |
| render modes | ``ansi``, ``rgb_array``, ``human`` (prints ansi) |
| automatic steps | ``game.step_events(state, action)``: only the end of the game the move brings, and how it came (a base reached, every enemy base held, the opponent left without a move, threefold repetition, the turn limit); ``eightfold play`` prints it under the move |

**Turns are several agent steps.** A turn is one action of spec §3's phase machine; the
mover keeps ``agent_selection`` through all of its phases (the other agent's mask is all
zero):

| phase | legal actions |
|---|---|
| MAIN | ``prong``, ``step``, ``jump``, ``enter`` (X), ``liberate`` (classic), ``reposition`` (flag) |
| DECLARE | ``with`` / ``without`` for each other pod of the moving stack that has a legal first hop (X) |
| CHAIN | a further ``jump`` of the active pod, or ``stop`` (only offered when a jump exists) |
| MOVER | the first hop (``step``/``jump``) of the next declared co-mover (X) |
| CAPTURE | ``capture`` / ``spare`` for each pod on a jumped square, in the order first jumped, then id |

**Actions** (spec §7; P pods per player = 4 / 7, K bases per player = 4 / 3; p = the
mover's pod id, e = egocentric direction ``(absolute + 4 * seat) % 8`` with N=0 NE=1 ... NW=7,
so e = 0 is always "forward"; b = egocentric base: 0..K-1 own bases, K..2K-1 enemy bases,
each in the mover's left-to-right order):

| action | index | notation |
|---|---|---|
| ADD(p, e) | ``8p + e`` | ``prong c2 N`` |
| STEP(p, e) | ``8P + 8p + e`` | ``step c2 N`` |
| JUMP(p, e) | ``16P + 8p + e`` | ``jump b2 NE`` |
| ENTER(b) | ``24P + b`` | ``enter c3`` |
| LIBERATE(b) | ``24P + 2K + b`` | ``liberate e7`` |
| WITH, WITHOUT, STOP, CAPTURE, SPARE | ``24P + 4K + 0 .. 4`` | ``with e3.1``, ``without c3``, ``stop``, ``capture d5``, ``spare d5`` |
| REPOSITION(p, f, t) | ``24P + 4K + 5 + 64p + 8f + t`` (flag only) | ``reposition b2 N NE`` |

Pod ids (spec §1): each player's starting pods are 0.. on its bases from its own left to
right (Black ascending file, Red descending); X ids 3..6 start in reserve; ENTER takes the
lowest reserve id, LIBERATE the lowest captured id.

**Observation** (``float32[C, H, W]``, channel first, in the observer's frame: player_1
sees the board rotated 180 degrees and directions turned by 4, so row 0 is always the
observer's own back rank and plane "direction 0" is its forward; OCT-47):

| channel | content |
|---|---|
| 0 / 1 | own / enemy pods on the square / P |
| 2-9 | own pods on the square with a prong in egocentric direction e (= channel - 2) / P |
| 10-17 | enemy pods on the square with a prong in egocentric direction e (= channel - 10) / P |
| 18 / 19 | own / enemy bases |
| 20 | origin O of the current turn (0 in MAIN) |
| 21 | focus square: the active pod (CHAIN, MOVER) or the queue head (DECLARE, CAPTURE) |
| 22 | squares already jumped by the active pod this turn (CHAIN, MOVER; in DECLARE the first mover, whose series may continue; empty in CAPTURE) |
| 23 | squares jumped by any pod this turn (capture candidates) |
| 24 | pods moving this turn (the side to move's) / P |
| 25 | movers that have finished moving / P |
| 26 | pods marked ``capture`` so far this turn / P |
| 27-31 | phase one-hot MAIN, DECLARE, CHAIN, MOVER, CAPTURE (constant planes; all 0 when over) |
| 32 / 33 | own / enemy prong supply / total prongs (24 basic, 50 X), constant |
| 34 / 35 | own / enemy reserve pods / P, constant |
| 36 / 37 | own / enemy captured pods / P, constant |
| 38 | the focus pod is own (constant) |
| 39 | completed turns / max_turns (constant) |
| 40-47 | prongs of the focus pod in egocentric direction e (= channel - 40), on the focus square |
| 48 + 9k | own pod id k: 1 on its square |
| 49 + 9k .. 56 + 9k | own pod id k has a prong in egocentric direction e, on its square |

The per-pod planes 48.. tell which action index moves which pod (actions are indexed by
pod id) and keep stacks exact; Octi has no hidden information. "Own" and "enemy" are always
the observer's, not the mover's (channel 38 is 1 when the focus pod is the observer's,
whoever moves: in a capture decision on a jumped enemy pod the mover reads 0 and the waiting
player 1). Once the game is over, the turn planes (20-26, 38, 40-47) are 0 as well as the phase
planes, even when a base win ends a turn midway; ``to_dict()`` keeps that turn's origin,
movers and jumped squares, and the rgb picture still marks them.

**Parameters** (``env(**params)``; bad values raise ``ValueError`` naming the parameter):

| name | values | default | meaning |
|---|---|---|---|
| ``variant`` | ``"basic"``, ``"x_fast"``, ``"x_classic"`` | ``"basic"`` | 6x7 board, 4 pods, 12 prongs / 9x9, 7 pods (4 in reserve), 25 prongs; classic: liberation, entry on enemy bases holding an own pod, win by holding all three enemy bases |
| ``max_turns`` | int >= 1 or ``None`` | ``None`` = 300 / 500 / 1000 | completed turns before the truncation draw |
| ``allow_reposition`` | bool | False | OCT-49: a MAIN action moves a prong to another socket of the same pod |
| ``edgeless`` | bool | False | OCT-50: the board is a torus |
| ``capture_to_reserve`` | bool | False | OCT-51 (X only; accepted and ignored in basic, as the spec's table says): own pods captured by their owner go back to reserve |
| ``repetition_draw`` | bool | False | OCT-52: a position occurring a third time is a draw |

``env()`` / ``raw_env()`` also take ``render_mode`` (``None``, ``"ansi"``, ``"rgb_array"``,
``"human"``; anything else raises ``ValueError``). A finished game's text and picture say how
it ended, read off the final position: the winner reached an enemy base (OCT-42), holds all
three enemy bases (OCT-43), or the loser cannot move (OCT-44); a draw by the turn limit
(OCT-45) or threefold repetition (OCT-52). When ``env()`` ends a game on an illegal action
(PettingZoo's way), only the AEC dicts end: the engine state, ``snapshot()``, the observation
planes and the render stay those of the position before that action.

**Notation** (spec §8, ``env.unwrapped.action_to_string`` / ``string_to_action``): squares
``a1``..``f7`` / ``i9`` and directions are absolute for both players; a pod is named by
its current square plus ``.k`` (rank of its id among the pods there) when the square holds
a stack. Parsing is case-insensitive, ignores surrounding whitespace (any Unicode whitespace,
as ``str.strip``) and collapses runs of spaces (a tab or line break between the words, or a
non-ASCII character inside the text, is malformed); malformed or illegal text
raises ``ValueError`` (the message says what was expected, names a square that is not on
the board, or lists the legal strings);
an illegal index prints as ``"illegal <index>"``. ``env.unwrapped.snapshot()`` is the
inspection hook of §8 (once the game is over, ``phase`` is ``OVER`` and ``to_move`` still names
the player who made the last move: nobody moves any more).

**Reset options**: ``options={"moves": ["prong c2 N", "prong d6 S", ...]}`` plays those
notation strings from the initial position (a convenience for setting up positions;
any other key raises ``ValueError``, except ``"options"``, which PettingZoo's ``api_test``
passes as a probe and which is ignored). ``options={"position": {...}}`` sets up a turn's start
in the schema of ``snapshot()`` (``moves``, if given too, are played from it), so a snapshot
taken in phase MAIN can be fed back; only ``board`` is required::

    {"board": {"c3": [[0, "N,NE"]], "d5": [[1, "S"]]},   # square -> pods [seat, prongs]
     "to_move": 0, "turn": 0,          # defaults; to_move may be "player_1"
     "supply": [10, 11],               # default: start supply minus the prongs on own pods
     "reserve": [0, 0], "captured": [3, 3]}   # defaults: basic: off-board pods are captured;
                                       # X: captured 0, the rest in reserve

Pod ids go to each side's board pods in that side's own reading order of the squares
(player_1's turned around), a stack's pods in the order listed, then to reserve and captured
pods: the setup's own numbering (OCT-03), so the initial snapshot loads to the initial state
exactly, while a later snapshot loads to the same position and legal moves with pods numbered
afresh (the pod-id planes of the observation, a stack's ``.k`` and action indices follow the
ids). ``from_dict``'s checks apply (OCT-09, no stacks or reserve in basic, prongs conserved),
and a finished game cannot be set up: a pod on an enemy base (basic, x_fast; OCT-42), a side
on all three enemy bases (x_classic; OCT-43), no legal action for the side to move (OCT-44)
or ``turn`` at the limit (OCT-45) raise ``ValueError``. With ``repetition_draw`` the set-up
position counts as occurred once (OCT-52). :mod:`envs.octi.position` has the details.
``options={"state": env.unwrapped.state.to_dict()}`` (every game of the suite) restores a whole
engine state exactly, hidden parts and the state's own generator included, so the rest of the
game's chance is that state's and the reset seed has no say; it takes no other option, and a
state of other parameters raises ``ValueError`` naming them (``eightfold eval --records``
writes each game's first state this way; seats already out are no agents of the restored
episode: no dead steps for them, and nothing paid before the state is paid again).

**Decisions where the spec was open** (spec §3/§4 [MODEL] rules are implemented as written):

* The capture queue is built when the last mover finishes; a pod that is itself a mover is
  never a capture candidate even if it ends on a jumped square (it is not in B').
* ``from_dict`` rejects states that cannot arise (mixed colours on a square, stacks or
  reserve pods in basic, prongs not conserved, turn bookkeeping inconsistent with the phase
  or with itself: a pod both queued and decided for capture, ``last_jump`` after a step,
  squares jumped in phase MAIN; a running game whose player to act has no legal action or
  whose history counts a position 3 times; a finished game no ending gives). A running state
  with a pod on an enemy base is taken as given (the ``position`` option refuses it): an
  edited state may set up a rule that needs one, such as OCT-40's liberation.
* The repetition history counts the initial position too; the key ignores pod ids (OCT-52).
* The per-pod planes 48.. and the focus-pod prong planes 40-47 extend the spec's §7 vector
  so a convolutional policy needs no extra scalars; everything is constant planes.

**Symmetries**: the board, its bases and every rule of every variant and option (edgeless,
allow_reposition, capture_to_reserve, repetition_draw, max_turns) are the same under the
left-right mirror (the k-th file from the left <-> the k-th from the right; E <-> W,
NE <-> NW, SE <-> SW; N and S stay): ``game.symmetries()`` (``envs.octi.encode.symmetries``)
gives it as gathers (:class:`envs.core.game.Symmetry`, named ``"mirror"``):
``observe(mirrored, seat).ravel() == observe(state, seat).ravel()[sym.obs_index]`` (the gather
indexes the flattened planes: ``obs.reshape(-1)[sym.obs_index].reshape(obs.shape)`` mirrors an
observation) and ``mirrored.legal_mask() == state.legal_mask()[sym.action_index]``. Each pod keeps its id (so stack suffixes ``.k`` and the
pod planes 48.. keep theirs) and moves to the mirrored square; direction planes and the
direction of ``prong``/``step``/``jump``/``reposition`` indices are mirrored (the mirror
commutes with player_1's 180-degree view, so one gather serves both seats), and base indices of
``enter``/``liberate`` go to the mirrored base of the same half (``enter c3`` <-> ``enter g3``).
No order in the rules comes from a scan of the squares: the declare queue and co-movers go by
pod id, the capture queue by the path (first jumped, then id), ENTER / LIBERATE take the lowest
id, and a mirrored position repeats (OCT-52) exactly when the position does; so, played with
the mirrored moves, a mirrored game stays the image of the game move for move to the same
end. The mirror of the initial position is not the initial position (player_0's pod 0 stands on b2, its image on e2; basic
e2 holds pod 3), so the images are positions of their own. Tested on every position of seeded
random games in every test and golden configuration (both seats, every phase), on the spec §9
scenarios played mirrored and over whole games played in step, against positions mirrored
independently from ``to_dict`` (``tests/octi/test_symmetry.py``; 5540 positions, 2026-12-07).
The behaviour-cloning warm start can augment its data with it (``--set pretrain_symmetries=true``;
the tuned config leaves it off).

**Bots** (``envs.octi.bots.BOTS``): ``random``; ``greedy`` (best immediate outcome: win,
then material, then supply); ``heuristic`` (greedy plus: never end a turn that lets the
opponent land on a base next turn, keep pods out of enemy jumps, shorten the prong path of
the closest pods to a free enemy base). Measured with ``envs.core.arena.play_match``,
seats alternating, default parameters, ``seed=1``: heuristic vs random 500/500 wins in basic
and 500/500 in x_fast, 496 W / 3 D / 1 L in x_classic; greedy vs random 283 W / 16 D / 201 L
(basic). The bots are deterministic up to random tie-breaks, so another seed moves these a
little (``seed=0``: x_fast 499 W / 1 L, greedy vs random 280 / 22 / 198). Measured 2026-12-07,
after the fix that made both bots capture every enemy pod of a jump series (they had spared
one about half the time when a series jumped two: 494 / 5 / 1 and 280 / 17 / 203 before).

**MCTS** (``mcts``, ``envs/core/mcts.py``): this game's ``mcts_defaults`` are ``depth=0,
prior=heuristic`` (new nodes' moves ordered and biased by the heuristic's scores, leaves valued
at once by ``evaluate``). Basic, seats rotated, 100 games each (``examples/mcts_strength.py
--games octi --seed 3``): ``mcts:sims=50`` wins 1.00 against random and greedy and 0.89
[0.81, 0.94] against heuristic; ``mcts:sims=200`` 1.00, 1.00 and 0.86 [0.78, 0.92] (0.83
[0.75, 0.89] at another seed; 0.87 before the bots' capture fix of 2026-12-07, which changed
both the prior and ``heuristic``; re-measured after it, the rest unchanged). The core defaults (depth-2 random rollouts, no prior) score
0.45 against heuristic; ``rollout=heuristic,depth=4`` reaches 1.00 at a fiftieth of the speed.

**Speed** (uniform random play, ``eightfold bench --games octi --seconds 3``, which runs
PettingZoo ``connect_four_v3.env()`` as the reference row in the same run; X rows with
``max_turns=60``; three runs on a shared 2-core machine): through ``env()`` basic 2.0-2.2x
connect_four, x_fast 1.88-2.1x, x_classic 1.65-1.9x; engine alone (legal_mask + apply +
random choice) basic 6.5-7.8x, x_fast 4.9-5.8x, x_classic 4.6-5.7x (2026-12-01: 2.16 / 1.88 /
1.71 and 6.47 / 4.86 / 4.64). The README's run of 2026-12-05, on a quiet machine: 2.47 / 2.27 /
2.23 and 6.50 / 5.37 / 5.01; a second quiet machine of the same kind the same day: 1.92 /
1.72 / 1.68 and 6.52 / 4.99 / 4.45 (basic ``env()`` 1.81-1.97 over five runs, the earlier
code alike: the ratio depends on the CPU), then, with the AEC adapter's cheaper returns check,
2.11 / 1.83 / 1.91 and 6.47 / 5.28 / 4.77 (basic ``env()`` 2.09-2.17 over six runs). Observations keep
their pod planes per observer and update only the pods that changed since the last call
(``encode.PodPlanes``; byte-identical to a full rebuild); legal masks are computed once per
position from neighbour tables.

**OpenSpiel** (``import envs.core.openspiel``, the ``openspiel`` extra; README "OpenSpiel"):
``pyspiel.load_game("eightfold_octi", {"variant": "x_fast"})`` takes this page's parameters
(``max_turns=-1`` for ``None``). It is a ``DETERMINISTIC``, ``PERFECT_INFORMATION``,
``ZERO_SUM`` game with ``TERMINAL`` rewards. The information state is the move history; the
observation tensor is the planes above, in their shape; the observation string is the
board's picture. OpenSpiel's plain ``MCTSBot`` is an honest player here.

**Version history**

* v0: first release (spec rules/octi.md; §7 action encoding; planes observation above).
"""

from __future__ import annotations

from typing import Any, ClassVar

from envs.core.aec import EightfoldAECEnv, make_env_factory
from envs.octi.game import OctiGame


class raw_env(EightfoldAECEnv):
    """Octi without the PettingZoo-classic wrappers (see the module docstring)."""

    game_class = OctiGame
    metadata: ClassVar[dict[str, Any]] = {
        "name": "octi_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": False,
        "render_fps": 1,
    }


env = make_env_factory(raw_env)
