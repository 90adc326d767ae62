"""Otto the Octopus — ``eightfold/otto_octopus-v0``
====================================================

Tile laying for 1-4 players (spec ``../shared/rules/otto_octopus.md``). Players grow Otto's eight
arms from the middle of an 8x8 ocean and place fish around him; arm ends score their
arm, shells double, coral corners double, algae add one, and ten kinds of fish have
effects (extra turns and placements, skipped turns, swaps, returns, the shark's penalty,
the moray's exclusion zone, the anglerfish on the perimeter, the minnow shoal 1/3/6).

Usage::

    from envs import otto_octopus_v0
    env = otto_octopus_v0.env(num_players=2, render_mode="ansi")
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        action = None if term or trunc else int(obs["action_mask"].nonzero()[0][0])
        env.step(action)

Agents and turns
----------------
``player_0`` .. ``player_{n-1}``; ``player_0`` starts. Turn phases (spec §3), each decision
one AEC step of the same agent: MAIN (``place`` / ``pass``), EXTRA after a clownfish or
butterflyfish (``place`` / ``stop``), SWAP after a pufferfish (``swap``), RETURN after a
seahorse (``return``). Skipped turns, automatic passes (no legal placement), refills and
the end of the game happen inside ``step`` and never need a decision.

Action space: ``Discrete(1106)``
--------------------------------
Squares ``S = (rank - 1) * 8 + file`` (a1 = 0, h1 = 7, a8 = 56, h8 = 63); kinds ``K``::

    0 straight   1 turn-in   2 turn-out   3 end   4 end-shell   5 clownfish
    6 butterflyfish   7 jellyfish   8 pufferfish   9 starfish   10 seahorse
    11 shark   12 moray   13 anglerfish   14 minnow   15 bubbles

==============  ===============================  ==========================
index           notation                         formula
==============  ===============================  ==========================
0 .. 1023       ``place <kind> <square>``        ``64 * K + S``
1024            ``pass``
1025            ``stop``
1026 .. 1041    ``return <kind>``                ``1026 + K``
1042 .. 1105    ``swap <kind> player_<j>``       ``1042 + 4 * K + j``
==============  ===============================  ==========================

Arm-tile orientation is implied (every arm is right-handed: ``straight`` keeps the
heading, ``turn-in`` turns right, ``turn-out`` left), so it is not part of the action.

The ``j`` of ``swap <kind> player_j`` is an absolute seat (spec §7's action table, §8's
notation), while the observation is egocentric and holds no feature of the observer's own
seat. So with 3 or 4 players one observation can stand behind masks in which index
``1042 + 4 * K + j`` means a different opponent: the seat ``j`` is ``(j - seat) % n`` slots
clockwise from the observer (the slot of the observation's per-seat entries). A policy for 3-4
players needs its own seat: it is the agent's name (``seat = env.possible_agents.index(agent)``).
Append it to the observation (a one-hot of 4, in a wrapper), or remap the swap actions to
relative ones (``r = (j - seat) % n``, back ``j = (seat + r) % n``) before the policy sees the
mask and after it picks. With 2 players ``j`` is always the other seat. A model trained either way plays in your own loop,
not in ``eightfold eval``, ``play`` or as a training opponent: those feed the view's observation
unchanged (an appended seat is refused by its shape) and read a pick as an absolute seat.

Observation: ``{"observation": float32[1834] in [-1, 1], "action_mask": int8[1106]}``
------------------------------------------------------------------------------------------
Egocentric: seat slots run from the observer in turn order (slot 0 = me); unused slots
are 0. The first 1728 entries are 27 planes of 8x8 (``plane * 64 + S``):

=======  ================================================================
plane    content (1 = yes)
=======  ================================================================
0 - 15   a placed tile of kind K on the square
16       Otto (d4, e4, d5, e5)
17 - 20  an arm tile leaving its square heading N / E / S / W
21       an open arm tip (where the arm's next tile or end goes)
22       dark perimeter square (anglerfish squares)
23       coral corner (x2)
24       algae square (+1)
25       start square of an arm not yet started
26       next to a moray (no new fish; all zero in the simplified game)
=======  ================================================================

Then the vector (offset from 1728):

=========  ==========================================================================
offset     content
=========  ==========================================================================
0 - 15     my hand: count of each kind / 3
16 - 63    3 x 16: visible tiles of slots 1..3 (open game: all but the newest) / 3
64 - 67    hand sizes of slots 0..3 / 3
68         pile size / 60
69 - 84    unseen tiles per kind (pile + tiles hidden from me) / its count in the mix, max 1
85 - 88    running scores of slots 0..3 / 100, clipped to [-1, 1]
89 - 92    pending skipped turns / 2, max 1
93 - 96    passed since the last placement (OTP-37)
97         extra placements left / 3, max 1
98 - 101   phase one-hot: main, extra, swap, return (all 0 once over)
102 - 105  slot to act, one-hot (all 0 once over)
=========  ==========================================================================

Never observed: other hands (but their visible tiles in the open game), the pile order,
the kind a seahorse returned, the kinds a pufferfish swapped (except by their owners).

Rewards
-------
Only at the end. 2-4 players: with ``k`` seats sharing the best final score (running
score minus tiles in hand), each of them gets ``(n - k) / (k * (n - 1))`` and everyone
else ``-1 / (n - 1)`` (zero-sum; 2 players: +1 / -1 / 0 for a draw). Solo: final score
(minus hand and pile) / 100. An illegal action ends the episode with -1 for the mover
and 0 for the others (OTP-44). ``infos``: ``scores`` (running), and once the game is over by
its rules or cut off ``final_scores`` and ``winners`` (seats; empty after a truncation, which
pays 0 to everyone: ``final_scores`` are then counted as at a normal end at the moment of the
cut, running score minus tiles in hand, and in solo minus the pile too). A game ended by an
illegal action has only ``scores``, and only its AEC dicts end (PettingZoo's way): the engine
state, the observations and the render stay those of the position before that action.

Rendering: ``render_mode`` = ``"ansi"`` (the ocean as text, with the rules in play (``rules: full
game, closed hands``; ``simplified``, ``open``), scores, hand sizes, skips, the
pile size, the hand of the seat to act and, in the open game, the tiles the other seats show;
at the end the final scores and the winners: a spectator's view, not an observation),
``"rgb_array"`` (a ``uint8[568, 868, 3]`` picture of the same spectator's view, the acting
seat's hand included, with an arrow on each start square of an arm not begun) or ``"human"``
(prints the ansi text after the reset and every step); a person playing bots should render on
their own turns only, as ``eightfold play`` does; any other value raises ``ValueError``.

What a move sets off by itself, as sentences (``game.step_events(state, action)``; public facts
only, ``eightfold play`` prints them under each move): the shark's cost to the others (OTP-27),
the mover's draws, counted, never named (OTP-18/21/26), skipped turns (OTP-23) and automatic
passes (OTP-19) as the turn goes round, and the end (OTP-37), with the final scores and the
winners (OTP-38/40) or the step limit.

Key to the text (each square is one symbol; files a-h, ranks 1-8 as in the notation):

=======================  ===================================================================
symbol                   meaning
=======================  ===================================================================
``.``                    empty water
``#``                    empty dark perimeter square (where an anglerfish may go, OTP-09)
``C``                    empty coral corner (doubles the arm ending there)
``a``                    empty algae square (+1)
``*``                    an open arm tip: the empty square an arm's open end points to, where
                         its next tile or end goes (shown over the square's own symbol)
``^`` ``>`` ``v`` ``<``  the start square of an arm not begun yet; the arrow is the heading
                         of its first tile, out of Otto
``OO``                   Otto (d4, e4, d5, e5)
``S`` ``Ti`` ``To``      straight, turn-in, turn-out, followed by the heading the arm leaves
                         the square in (``^`` N, ``>`` E, ``v`` S, ``<`` W): ``Ti^``, ``To>``
``E`` ``Es``             end, end-shell (the arm is closed there)
``cl`` ``pu`` ...        a fish or bubbles, by its label (below)
``>`` before a seat      the seat to act (in the status lines below the board)
=======================  ===================================================================

Labels: ``cl`` clownfish, ``bu`` butterflyfish, ``je`` jellyfish, ``pu`` pufferfish, ``st``
starfish, ``se`` seahorse, ``sk`` shark, ``mo`` moray, ``an`` anglerfish, ``mi`` minnow,
``bb`` bubbles.

The picture draws the same: water light blue, the perimeter dark blue, coral corners pink,
algae green; an arm is a purple band with white suckers on its right-hand side, an end a
purple disc and an end-shell a disc under a yellow half shell; a yellow ring marks an open
arm tip (``*``), a purple arrow the start square of an arm not begun; a fish is a coloured
fish with its two-letter label, bubbles are white rings. A key at the foot of the panel says
this and spells out the fish labels.

Parameters
----------
=================  =======  ==============================================================
name               default  meaning
=================  =======  ==============================================================
``num_players``    2        1-4; 1 = solo (clownfish, butterflyfish, jellyfish, pufferfish
                            effects off; final score counts the pile, OTP-39/40)
``open_game``      False    all hand tiles but the newest are public (OTP-41)
``simplified``     False    fish only score: no effects, no moray / anglerfish limits (OTP-42)
``max_steps``      1000     truncation after this many decisions (a game needs <= 370)
=================  =======  ==============================================================

Notation (spec §8)
------------------
``env.unwrapped.action_to_string(a)`` gives the canonical string of any index, in any state and
before the first ``reset()`` too (``"illegal <a>"`` only out of range); ``string_to_action(s)`` parses case-insensitively with surrounding
whitespace ignored (any Unicode whitespace, as ``str.strip``) and runs of spaces collapsed (a
tab or line break between the words, or a non-ASCII character inside the text, is malformed)
and returns the index of any canonical string, legal now or not (the mask says
which; stepping an illegal one ends the episode, OTP-44). Anything else raises ``ValueError``
saying what is wrong, then the grammar: a tab or line break between the words, or a
non-ASCII character, is named as such; otherwise the word that breaks it and the words
allowed there (``after 'place straight' comes one of a1, b1, ...``).
Examples: ``place turn-in d6``, ``place end-shell a8``, ``pass``, ``stop``,
``return bubbles``, ``swap end player_2``.

Reset options and positions
---------------------------
``reset(seed, options={"position": {...}})`` starts from a position; ``snapshot()``
returns the current one in the same schema (feeding it back reproduces it).
``options={"state": env.unwrapped.state.to_dict()}`` (every game of the suite) restores a whole
engine state exactly, hidden parts and the state's own generator included, so the rest of the
game's chance is that state's and the reset seed has no say; it takes no other option, and a
state of other parameters raises ``ValueError`` naming them (``eightfold eval --records``
writes each game's first state this way; seats already out are no agents of the restored
episode: no dead steps for them, and nothing paid before the state is paid again). The
position schema::

    {"placements": ["straight d6", "straight d7"],  # play order; arm tiles in arm order
     "hands": [["straight", "turn-in", "starfish"], ["bubbles"]],  # per seat, oldest first
     "pile": ["bubbles", ...],   # top first; default: rest of the 60-tile mix, shuffled
     "scores": [0, 0], "skips": [0, 0], "passed": [false, false],
     "to_move": 0,               # -1 = over
     "phase": "main",            # main | extra | swap | return
     "extra": 0}                 # extra placements left (0 in main)

Only ``hands`` is required. On input a placement may also be written as its action
(``"place straight d6"``) and ``to_move`` as an agent name (``"player_1"``); ``snapshot()``
always writes the forms above. Placements are replayed through every placement rule; a hand
holds at most 3 tiles; every problem raises ``ValueError`` naming the key. The phase must be
one play can reach: ``swap`` needs a tile in the mover's hand and in an opponent's (OTP-24),
``return`` one in the mover's hand and one in the pile (OTP-26); ``extra``, ``swap`` and
``return`` follow a placement, so every ``passed`` flag is false there (OTP-37) and the mover
has no pending skip (OTP-23); the simplified game has none of them (OTP-42) and solo only
``return`` (OTP-39), and neither has skips (the jellyfish has no effect there). After loading
the automatic steps run (a pending skip of the seat to move, an automatic pass, the end).

Decisions where the spec was open
---------------------------------
* ``action_to_string`` follows spec §8 (one canonical string per index whatever the
  state); ``"illegal <a>"`` is reserved for indices out of range.
* A mid-turn phase is taken as given without the fish that led to it (``swap`` need not follow
  a pufferfish in ``placements``), and ``to_move: -1`` ends the game as given, passes or not:
  a test can set up the decision or the final scoring it checks in a few keys.
* Positions are not checked against the 60-tile mix (the spec's own §9 defaults hold 13
  bubbles); C4 still counts ``24 - arm tiles placed`` as the spec words it.
* Open game: hands keep acquisition order; placing, swapping or returning a kind removes
  its oldest copy, so a visible copy goes before the secret one. A swapped-in tile is the
  newest (secret) tile of its new owner. Where OTP-41 makes a tile public, it wins over §7's
  list of hidden kinds (written for the closed game): a visible tile that a pufferfish gives
  away or a seahorse returns was in everyone's view before it left, and a swapped-in tile
  turns visible once its owner acquires a newer one, as it would at the table. When the
  secret tile itself leaves the hand (placed, say, before an extra placement), the newest tile
  left becomes the secret one, although the others saw it: OTP-41 read literally (the secret
  tile is always the most recently acquired one held), so every hand that holds a tile
  keeps exactly one secret tile.
* The pile size is observed as ``len(pile) / 60`` clipped to 1 (only a loaded position can
  hold more than 60 tiles), so every observation stays in its ``[-1, 1]`` box.
* ``resample_hidden`` re-deals the pile and all tiles hidden from the seat, uniformly over the
  deals consistent with its observation and with what the rules tell every seat: before the
  first placement every other hand holds an arm tile (the mulligan, OTP-35/36), and a seat
  asked to place holds a placement (else it would have passed automatically, OTP-19/33); a
  deal that breaks either is drawn again. It does not model private memory beyond the
  observation (a seahorse owner's knowledge of the returned kind, a pufferfish pair's
  knowledge of the swapped kinds), nor what earlier turns implied: after the first
  placement, with 3 or 4 players, the hands of seats yet to play are not held to the
  mulligan, and an automatic pass is not remembered. Its deals are uniform among the
  consistent ones, not weighted by the mulligan's seat-by-seat redraws (a close match).
* Mulligan (OTP-36) "playable" = at least one legal placement, tested on the empty ocean.
* ``max_game_length = min(max_steps, 60 * (n + 2) + n + 2 * (n - 1))``: spec §5's bound
  (364 with 4 players) counts at most n - 1 passes between placements, but a skipped turn is
  no pass (OTP-23/37), so a player may pass again while a jellyfish's skip delays the end:
  each of the two jellyfish adds at most n - 1 passes (370 with 4 players).
* A game that ends by its rules on its ``max_steps``-th decision ends normally (terminations
  and the real rewards); the truncation (every agent truncated, rewards 0) cuts off only a
  game still running after ``max_steps`` decisions, as in the suite's other games.
* PettingZoo's ``api_test`` probe ``reset(options={"options": ...})`` is accepted as a no-op.

Bots (``envs.otto_octopus.bots``)
---------------------------------
``random``; ``greedy`` (most points now, shark counted as +2, never passes while a tile
fits); ``heuristic`` (greedy plus: save ends for long arms, value jellyfish / clownfish /
butterflyfish turns, keep starfish and anglerfish for coral, steer arms toward coral,
return / give away the least useful tile). Measured with ``envs.core.arena.play_match``,
5,000 games each (1,000 at each of ``seed=0`` .. ``4``), seats rotated (2026-12-03; the
1,000 games of ``seed=1`` alone, quoted here before, gave 0.955 / 0.947 / 0.530 / 0.884 /
0.779 / 0.955 / 0.906):

==========================  ==============  ========  =====================================
match (bot vs opponents)    params          win rate  W / D / L
==========================  ==============  ========  =====================================
heuristic vs random         2 players       0.952     4,762 / 31 / 207 (mean return +0.91)
greedy vs random            2 players       0.934     4,672 / 41 / 287
heuristic vs greedy         2 players       0.527     2,635 / 123 / 2,242 (mean return +0.08)
heuristic vs 2 x random     3 players       0.869     4,345 / 82 / 573 (chance: 0.33)
heuristic vs 3 x random     4 players       0.777     3,886 / 109 / 1,005 (chance: 0.25)
heuristic vs random         open game       0.952     4,762 / 31 / 207 (the same games: neither
                                                      bot reads the visible tiles)
heuristic vs random         simplified      0.928     4,638 / 44 / 318
==========================  ==============  ========  =====================================

Solo, mean final score over 3,000 games (``play_match(game, [bot], 3000, seed=0)``, the
returns x 100, 2026-12-05; 95% half-widths 0.9-1.3): random -38.5, greedy +65.6, heuristic
+66.4. In solo the heuristic values an arm placement by its points alone: its arm outlook
(growing arms it holds an end for, steering them toward coral, keeping coral tips for its own
ends) is about opponents taking arms, and with it the heuristic scored +63.1 on the same games (+61.6 in an earlier
1,000-game measurement). Dropping its rule that an end waits for an arm of 3 as well made it
score as greedy (+66.5 over 3,000 other games), a longer wait (arms of 4-6) far worse (+48).

MCTS (``mcts``, ``envs/core/mcts.py``): this game's ``mcts_defaults`` are ``depth=0,
prior=heuristic`` (every new node's moves ordered and biased by the heuristic's scores, leaves
valued at once by ``evaluate``: ``tanh`` of the final-score margin / 8). 2 players, seats
rotated, ``examples/mcts_strength.py -n 60 --seed 3``: ``mcts:sims=200`` against random 0.967,
greedy 0.508, heuristic 0.533 (200 games at another seed: 0.522 [0.454, 0.591]; the core
defaults 0.44). Against random over more games (2026-12-05, ``-n 400``, seeds 808 and 809):
``mcts:sims=50`` 0.973 [0.959, 0.982] of 800, ``mcts:sims=200`` 0.961 [0.938, 0.976] of 400,
above the heuristic's 0.952. Competent play is close to a coin toss here (heuristic vs greedy 0.527 above),
while a search that cheats by reading the pile and the other hand wins 40/40 against
``heuristic`` (``rollout=heuristic,depth=4,prior=heuristic``; 0.988 [0.961, 0.996] over 200
games at ``--seed 404``): the draws decide. What it reads is what matters. The same search
shown only the other hand (the pile order re-drawn in every simulation) wins 0.660
[0.592, 0.722]; shown the deal (hands and pile order; only pufferfish and seahorse chance
re-drawn) it wins 0.963 [0.926, 0.981]; honest, 0.532 [0.475, 0.587] (300 games). So even
perfect inference of the other hand stays below 70% as a point estimate, and the rest of the gap is the order of
the pile, which no player can know (``examples/mcts_strength.py --oracle hands``,
``--oracle deal``). Every honest setting tried (five times the
simulations, bot rollouts, exploration constants 0.1 to 1, hand-potential and open-arm
evaluations; 100-300 games each) stayed within noise of 0.52; the record is in the ``mcts``
module docstring.

Speed
-----
Random play through ``env()`` (``reset`` / ``last`` / ``step``), as agent-steps/s relative
to PettingZoo ``connect_four_v3`` ``env()`` on a shared, heavily loaded 2-core machine
(absolute numbers depressed and noisy; the ratio is the figure to read). Measured
interleaved in one process (12 rounds of 0.4 s each: connect_four, otto ``env()``, otto
engine, connect_four; median of the per-round ratios): ``env()`` **1.57 - 1.60x** (two
runs; single rounds 1.25 - 1.79), engine alone (``legal_mask`` + ``apply``) 3.1 - 3.2x; the
previous release measured 1.39 - 1.41x / 2.75x the same way, with the same core adapter. ``eightfold bench --games otto_octopus --seconds 3`` gave
1.30 - 1.97 for ``env()`` across runs on the same code (load varied); the README's run of
2026-12-05, on a quiet machine: ``env()`` 1.94x, engine 3.64x (2 players; solo 1.69x / 2.75x,
3 players open 2.01x / 3.78x, 4 players simplified 2.10x / 3.82x). About half of an
``env()`` step is now the shared adapter and wrappers. What makes it fast: the placement
table (legal squares per kind, hand-independent) is built once per board from 64-bit
int square sets (occupied squares, open tips, last usable exits of unstarted arms: C1-C3
as a few bit operations per arm) and shared by every mask and clone; the ocean keeps a
whole observation buffer whose 27 board planes are updated on each placement, so
``observe`` is one copy plus a few scalar writes; the pile's kind counts are kept in
step; masks are cached until the next action.

OpenSpiel
---------
``import envs.core.openspiel`` (the ``openspiel`` extra; README "OpenSpiel") registers
``eightfold_otto_octopus``: ``pyspiel.load_game("eightfold_otto_octopus", {"num_players": 2,
"rng_seed": 7})`` takes this page's parameters and ``rng_seed``, which seeds the deals. It is a
``SAMPLED_STOCHASTIC``, ``IMPERFECT_INFORMATION`` game with ``TERMINAL`` rewards, ``ZERO_SUM``
(``GENERAL_SUM`` solo). The observation tensor is the vector above; the observation string
is that vector written sparsely; ``resample_from_infostate`` is ``resample_hidden``.
OpenSpiel's ISMCTS at 200 simulations scores 0.310 [0.228, 0.406] against ``heuristic`` (2
players, 100 games), and ``mcts:sims=200`` beats it 0.765 [0.673, 0.837].

Version history
---------------
* v0: first release (spec ``../shared/rules/otto_octopus.md``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from envs.core.aec import EightfoldAECEnv, make_env_factory
from envs.otto_octopus.game import OttoOctopusGame


class raw_env(EightfoldAECEnv):
    """Otto the Octopus as a PettingZoo AEC environment (see the module docstring)."""

    game_class = OttoOctopusGame
    metadata: ClassVar[dict[str, Any]] = {
        "name": "otto_octopus_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": False,
        "render_fps": 1,
    }


env = make_env_factory(raw_env)
