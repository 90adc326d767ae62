"""Over and Out — ``eightfold/over_and_out-v0`` (module ``envs.over_and_out_v0``).

A running-total card game for 2-8 players (Jax Ltd.; binding rules:
``../shared/rules/over_and_out.md``, rule IDs OAO-01..OAO-44). Players take turns
playing one card onto a common pile whose total T may never exceed the Tip Top number
L (22, 33, 44, 55 or 66). A player who cannot play without going over (``bust``) — or
whose Topsy Turvy turns up an L below T, or who plays ``-10`` below 10 under
``minus10_rule="lose_below_zero"`` (OAO-42) — loses the round and a chip; hands shrink with
the chips; a player without chips is out; the last player left wins.

    from envs import over_and_out_v0
    env = over_and_out_v0.env(num_players=4)
    env.reset(seed=0)

| | |
|---|---|
| agents | ``player_0`` ... ``player_{N-1}``, clockwise; ``player_0`` does not always open: the player left of the dealer does |
| action space | ``Discrete(12)`` |
| observation space | ``Dict(observation=Box(0, 1, (60,), float32), action_mask=Box(0, 1, (12,), int8))`` |
| rewards | placement, zero-sum (see below); ``winner_only``: -1 per eliminated player, +1 winner |
| parallel API | no (``is_parallelizable=False``) |
| render modes | ``ansi``, ``rgb_array``, ``human`` (prints ansi); a spectator's view: every mode shows the hand of the player to move face up (and ``human`` prints it after every step), so a person playing bots should render on their own turns only, as ``eightfold play`` does; text and picture show L as the Tip Top card and list as ``discarded`` the Tip Top cards Topsy Turvy discarded face up (OAO-24) |
| automatic steps | ``game.step_events(state, action)``: sentences of what a move sets off by itself (the round lost, its reason and the chip, OAO-15/28/42; a seat out; the next round's dealer, Tip Top and first player; a new Tip Top card; a reshuffle; the step limit; the winner), public facts only; ``eightfold play`` prints them under each move |

**Actions** (index = card kind, action-space order of spec §7):

| index | 0-5 | 6 | 7 | 8 | 9 | 10 | 11 |
|---|---|---|---|---|---|---|---|
| action | ``play 0`` .. ``play 5`` | ``play x2`` | ``play -10`` | ``play spin-out`` | ``play top-out`` | ``play topsy-turvy`` | ``bust`` |

The mask allows a card iff it is in hand and playable (OAO-18..OAO-24; ``-10`` needs T >= 10
unless ``minus10_rule="lose_below_zero"``); ``bust`` iff no card is. Only the agent to act
has a non-zero mask (OAO-40): while a knocked-out seat takes its dead step (OAO-41) every
mask is all zeros. PettingZoo's ``turn_based_aec_to_parallel`` observes right after the
knock-out, before that dead step, so the observations of that one parallel step have
all-zero masks; the seat to move is then ``par.aec_env.agent_selection`` (PettingZoo's
``infos[a]["active_agent"]`` too, for an agent ``a`` still in ``par.agents``: a knocked-out
seat's entry is stale, and there is none after ``reset()``), and
``par.aec_env.observe(seat)["action_mask"]`` is its mask.

**Observation** ``float32[60]``, egocentric: relative seat k = (seat - me) mod N, k = 0 is
the observer, padded to 8 seats. Only what the player knows at the table:

| index | field |
|---|---|
| 0-10 | own hand: count per card kind (action order) / 4 |
| 11 | T / 66 |
| 12-16 | L one-hot over (22, 33, 44, 55, 66) |
| 17-21 | 1 if that Tip Top value is still face down in the Tip Top pile (OAO-30) |
| 22-32 | play pile per kind (cards played since the last reshuffle or deal) / max(1, deck count of the kind) |
| 33 | draw pile size / deck size |
| 34 | direction: 1.0 counter-clockwise (after an odd number of spin-outs this round; each deal starts clockwise, OAO-37), 0.0 clockwise |
| 35 + 3k | relative seat k is active (has chips) |
| 36 + 3k | relative seat k's chips / 4 (= its hand size) |
| 37 + 3k | relative seat k is the dealer |
| 59 | plays in this round / 100, clipped to 1 |

**Rewards** (spec §5; paid in the step they happen, as differences of the engine's cumulative
``returns()``). Placement: the j-th player out gets -1 + 2(j-1)/(N-1) when eliminated, the
winner +1. Truncation (``plays >= max_plays``, over all rounds): each of the m remaining players
gets the average of the unassigned placements, (N - m)/(N - 1) (0 if nobody is out); winner_only:
0 each. Illegal action through ``env()``: the game ends, mover -1, others 0 (OAO-43).
Eliminated agents are terminated in the step that eliminates them, then dead-stepped with
``None`` (OAO-41); the others play on.

**Parameters** (``env(**params)``; a bad value raises ``ValueError`` naming the parameter):

| name | values | default | meaning |
|---|---|---|---|
| ``num_players`` | 2..8 | 4 | N |
| ``deck_counts`` | dict token -> int 0..10^6, total >= starting_chips * N | spec §1 (72 cards) | the change-and-out deck; missing tokens count 0 |
| ``minus10_rule`` | ``"require_10"``, ``"lose_below_zero"`` | ``"require_10"`` | OAO-21 / OAO-42 |
| ``reward_mode`` | ``"placement"``, ``"winner_only"`` | ``"placement"`` | §5 |
| ``max_plays`` | int >= 1 | 5000 | truncation limit; ``max_game_length = max_plays`` decisions (an AEC episode adds at most one dead step per agent) |
| ``first_dealer`` | None or 0..N-1 | None (random from the reset seed) | dealer of round 1 |
| ``starting_chips`` | 1..4 | 4 | chips = first hand size |

**Reset options** (round 1 only; ``ValueError`` for anything else): ``deck_top`` = list of card
tokens put on top of the deck in that order (first = top; block dealing deals them to the
player left of the dealer first, dealer last, then the draws); ``tiptop_top`` = list of distinct
Tip Top values (ints or numpy integers) put on top of the Tip Top pile (the first is turned up
as L). An option given as ``None`` counts as absent.
``options={"state": env.unwrapped.state.to_dict()}`` (every game of the suite) restores a whole
engine state exactly, hidden parts and the state's own generator included, so the rest of the
game's chance is that state's and the reset seed has no say; it takes no other option, and a
state of other parameters raises ``ValueError`` naming them (``eightfold eval --records``
writes each game's first state this way; seats already out are no agents of the restored
episode: no dead steps for them, and nothing paid before the state is paid again).

**Notation** (spec §8): ``play <card>`` with card in ``0 1 2 3 4 5 x2 -10 spin-out top-out
topsy-turvy``, or ``bust``. ``env.unwrapped.action_to_string(a)`` gives ``"illegal <a>"`` for an
illegal index; ``string_to_action(text)`` is case-insensitive, ignores surrounding whitespace (any Unicode
whitespace, as ``str.strip``) and collapses runs of spaces (a tab or line break between the
words, or a non-ASCII character inside the text, is malformed),
and raises ``ValueError`` for malformed text (naming the word that breaks it and the words
allowed there, e.g. ``after 'play' comes one of 0, 1, ..., got '9'``) or illegal text (listing
the legal moves). ``env.unwrapped.snapshot()`` is the §8 hook
(``to_move`` is -1 once the game is over by its rules and after a truncation, ``max_plays``
being the end of the game: nobody is to play then, though the dead steps go on; during an
eliminated player's dead step mid-game it names the player to play; when ``env()`` ends a game on an
illegal action, PettingZoo's way, only the AEC dicts end and the engine state, ``snapshot()``
included, stays as it was before that action).

**Decisions where the spec was open**

* Direction is encoded 0/1 (counter-clockwise flag) instead of +1/-1 so every observation entry
  lies in [0, 1].
* A player eliminated by the game's last round keeps its last card in the engine state (one
  chip, one card; none when the losing play was that card itself, a topsy-turvy or a -10), so
  every card is always somewhere (OAO-44), but it is hidden: snapshot ``[]``, never observed.
* When the step that eliminates a player also truncates the game (OAO-S12), the eliminated
  agent is terminated and only the players still in are truncated.
* OAO-S04's "p0 draws 1" is read as "p0 draws one card" (the card itself is random there).
* ``deck_counts`` is stored completed to all 11 tokens; each count is capped at 10^6 (sanity).
* ``deck_top`` tokens are read case-insensitively; ``tiptop_top`` values must be distinct ints.
  The extra key ``"options"`` is ignored (PettingZoo's ``api_test`` probes
  ``reset(options={"options": 1})``); every other unknown key raises ``ValueError``.
* A bust counts as a play (for ``max_plays`` and the plays-in-round field).
* ``State.from_dict`` (the ``state`` option) checks what keeps the engine sound: every card and
  Tip Top card once, hand sizes equal to chips, the eliminated seats and their cards, the end
  flags. The round counter, the table of a round with no play yet and round 1's dealer are
  taken as given, so an edited saved state can set up the rule a test checks (say chips
  ``[1, 3]`` in round 1).
* ``resample_hidden(state, seat, rng)`` re-deals the cards the seat cannot see (deck minus own
  hand minus play pile) into the other hands (same sizes) and the draw pile, shuffles the
  Tip Top pile, and gives the state a fresh rng; it depends only on what the seat knows.

**Bots** (``envs.over_and_out.bots``): ``random``, ``greedy`` (least risk of losing with this
play, then highest T/L for the next player), ``heuristic`` (keep escape cards, play numbers,
top-out as an attack with an escape in reserve). Measured with ``envs.core.arena.play_match``,
seats rotated, default deck, win = strict best return; 5,000 games per cell (500 at each of
``seed=0`` .. ``9``; the cells' per-seed values spread by ±0.02-0.03, so the one seed quoted
here before, ``seed=1``: 0.898 / 0.874 / 0.540 and 0.730 / 0.702 / 0.264, read high at N = 2;
2026-12-03):

| match | N = 2 | N = 4 (chance: 0.25) |
|---|---|---|
| heuristic vs random | 0.874 (seeds: 0.858-0.898) | 0.734 (0.704-0.760) |
| greedy vs random | 0.862 (0.842-0.878) | 0.707 (0.678-0.738) |
| heuristic vs greedy | 0.522 (0.504-0.542) | 0.274 (0.252-0.300) |

**MCTS** (``mcts``, ``envs/core/mcts.py``; no per-game defaults: the core ones, depth-2 random
rollouts then ``evaluate``: chips, escape cards, the mover's unavoidable risk). N = 2, seats
rotated, 100 games each (``examples/mcts_strength.py --seed 3``): ``mcts:sims=200`` against
random 0.890, greedy 0.500, heuristic 0.470. Seven settings over 400 games each at ``--seed
202`` (no prior or the heuristic's, depth 0, 2 or 4 with random or heuristic rollouts, c from
0.1 to 1) all scored 0.468-0.502 against ``heuristic``; full playouts scored 0.255 (random) and
0.305 (heuristic), since a whole game's outcome hardly depends on one move. The ceiling is low:
the same search *reading every hand and the deck order* (an oracle, not a bot) wins only 0.745
[0.680, 0.800] of 200 games against ``heuristic`` at 200 simulations with heuristic playouts
(``--seed 606``; 31 of 40 in an earlier run), and 0.685 [0.638, 0.729] of 400 at the core
defaults; shown only the other hand (the piles re-shuffled in every simulation) it wins 0.583
[0.534, 0.630] at the core defaults (``examples/mcts_strength.py --oracle hands --seed 505``)
and 0.460 [0.392, 0.529] with heuristic playouts (``--seed 606``), so even perfect inference of
the other hand would not reach 70%.
``heuristic`` itself beats ``greedy`` only 0.522.
Against ``random`` the same oracle wins 0.925 [0.895, 0.947] of 400 games
(``examples/mcts_strength.py ... --opponents random --oracle``, seeds 5 and 6). A best reply to
``random`` (``examples/oao_best_response.py``: every legal move played out to the end of the
round in 50 sampled worlds, heuristic continuation, the move that loses the round least often
chosen; 2 players, ``--seed 11``) wins 0.913 [0.876, 0.940] of 300 games when shown the other
hand, 0.815 [0.755, 0.863] of 200 with the honest uniform re-deal (a random player's hand holds
more ``x2`` and fewer escape cards than a uniform re-deal assumes) and 0.980 [0.950, 0.992] of
200 only when it also knows the draw pile's order; ``heuristic`` alone wins 0.873 on those
seeds. In these measurements only knowing the order of the cards passes 95% against
``random``; a one-step best reply is not the best possible policy, so this is strong evidence,
not a proof. Against ``heuristic`` (``--opponent heuristic``: the opponent's side of each
playout played by ``heuristic`` too) the same best reply wins 0.615 [0.546, 0.680] of 200 games
shown the other hand and 0.495 [0.426, 0.564] of 200 honest: 60% against ``heuristic`` needs
about perfect inference of the other hand.

**Speed** (random play, this 2-core machine, shared; ``eightfold bench``, ratios to
``connect_four_v3.env()`` measured in the same run): ``env()`` (N = 4) ~3.5-4x, the engine alone
(``legal_mask`` + ``apply``) ~13-18x; the README's run of 2026-12-05, on a quiet machine: 4.14x
and 11.62x (2 players 4.04x and 11.31x). Per agent step of ``env()`` the observation costs ~8 us,
the engine's ``apply`` + ``legal_mask`` ~4 us; the rest is the AEC bookkeeping.

**OpenSpiel** (``import envs.core.openspiel``, the ``openspiel`` extra; README "OpenSpiel"):
``pyspiel.load_game("eightfold_over_and_out", {"num_players": 3, "rng_seed": 7})`` takes this
page's parameters (``first_dealer=-1`` for ``None``, ``deck_counts`` as a nested parameter)
and ``rng_seed``, which seeds the deals. It is a ``SAMPLED_STOCHASTIC``,
``IMPERFECT_INFORMATION`` game: the engine shuffles and draws inside. Its reward model is
``REWARDS``, since a seat knocked out is paid its placement at once; the utility is
``GENERAL_SUM`` with ``reward_mode=winner_only`` and 3 or more players (with 2, +1 / -1 is
``ZERO_SUM``). The observation tensor is the vector above;
the observation string is that vector written sparsely; ``resample_from_infostate`` is
``resample_hidden``. OpenSpiel's ISMCTS at 200 simulations scores 0.280 [0.201, 0.375] against
``heuristic`` (2 players, 100 games), and ``mcts:sims=200`` beats it 0.780 [0.689, 0.850].

**Version history**

* v0: first release (spec of ``rules/over_and_out.md``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from envs.core.aec import EightfoldAECEnv, make_env_factory
from envs.over_and_out.game import OverAndOutGame


class raw_env(EightfoldAECEnv):
    """Over and Out as a PettingZoo AEC environment (see the module docstring)."""

    game_class = OverAndOutGame
    metadata: ClassVar[dict[str, Any]] = {
        "name": "over_and_out_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": False,
        "render_fps": 1,
    }


env = make_env_factory(raw_env)
