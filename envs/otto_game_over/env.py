"""OTTO Game Over — ``eightfold/otto_game_over-v0`` (module ``envs.otto_game_over_v0``).

Tile laying for 1-4 players or 2v2 teams: place path tiles on a 5x5 board around a fixed
centre, close small circles (1), big circles (2) and squares (4) and claim them with point
markers; closing an 8 ends the match 8-nil. Secret cards bend the rules. Matches are
played until a team reaches ``target_score`` (24). Binding rules: ``rules/otto_game_over.md``
in the shared folder (rule IDs OGO-01..64 are cited by ``tests/otto_game_over``).

    from envs import otto_game_over_v0
    env = otto_game_over_v0.env(num_players=4, teams=True)   # 2v2
    env.reset(seed=0)

Agents and turns
----------------
``player_0 .. player_{n-1}`` clockwise. In 2v2, team 0 (the spec's team A) = seats 0 and 2,
team 1 (team B) = seats 1 and 3: a seat's team is ``seat % 2``, and the text, the picture and
``infos`` number the teams so. In free-for-all (and solo) each seat is its own team: team t =
seat t.
One agent acts at a time (AEC). Decision phases: CARD (start of an own turn while holding a
card: ``no card`` or one card), KIDNAP (play the kidnapped card), PLACE (place the drawn or
the table tile), INFINITY (after an 8: each eligible seat, creator first, answers; this makes
that agent the selected one, out of turn). Draws, claims, skips and scoring are automatic.

Action space: ``Discrete(5228)`` in every configuration
--------------------------------------------------------
S(square) = (rank-1)*5 + file (a=0): a1=0, c3=12, e5=24.

=========  ===============================================  =========================
index      meaning                                          notation
=========  ===============================================  =========================
0-199      100*t + 4*S + k, t = 0 drawn / 1 table tile       ``drawn b3 r1``
200        no card                                           ``no card``
201 + E    play a card with effect E                         ``card <effect>``
2713 + E   play the joker as effect E                        ``card joker as <effect>``
5225-5227  card infinity / joker as infinity / keep          ``keep infinity`` ...
=========  ===============================================  =========================

Effect E: 0 ``time-travel``; 1+j ``magnetic-inversion player_j``; 5 ``revolution-cw``;
6 ``revolution-acw``; 7 ``meteorite``; 8 + 100*S(from) + 4*S(to) + k
``quantum-leap <from> <to> r<k>``; 2508+j ``alien-kidnapping player_j``. Orientation ``r<k>``
= k quarter turns clockwise.

The ``j`` of ``player_j`` is an absolute seat (spec §7's action table, §8's notation), while
the observation is egocentric and holds no feature of the observer's own seat. So one
observation can stand behind masks in which index ``201 + 1 + j`` (or ``201 + 2508 + j``, and
the joker's ``2713 + ...``) means a different seat relative to the observer: the seat ``j`` is
``(j - seat) % n`` places clockwise from the observer (with 2 players always the other seat;
in 2v2 ``(seat + 2) % 4`` is the partner). A policy for 3-4 players needs its own seat: it is
the agent's name (``seat = env.possible_agents.index(agent)``). Append it to the observation
(a one-hot of 4, in a wrapper), or remap the seat-naming actions to relative ones
(``r = (j - seat) % n``, back ``j = (seat + r) % n``) before the policy sees the mask and
after it picks. A model trained either way plays in your own loop,
not in ``eightfold eval``, ``play`` or as a training opponent: those feed the view's observation
unchanged (an appended seat is refused by its shape) and read a pick as an absolute seat.

``action_to_string`` gives one canonical string per index in any state, before the first
``reset()`` too (``illegal <i>`` only out of range); ``string_to_action`` parses
case-insensitively with surrounding whitespace ignored (any Unicode whitespace, as
``str.strip``) and runs of spaces collapsed, and returns the index of any well-formed string,
legal or not (the mask says which are legal); malformed text raises ``ValueError`` saying what
is wrong, then the grammar: a tab or line break between the words, or a non-ASCII character
inside the text, is named as such; words outside the table are named with the words the table
allows there (``after 'card magnetic-inversion' comes one of player_0, player_1, player_2,
player_3, got 'player_4'``).

Observation: ``{"observation": float32[1013], "action_mask": int8[5228]}``
-------------------------------------------------------------------------
Egocentric: seats relative to the observer (0 = me, then clockwise), teams relative to my
team. All values in [0, 1]: every count divided by its scale below is clipped at 1, and the
slots of seats and teams a configuration does not have are zero. The clip is reached in play
by four entries: a seat holding more than 8 cards (``cards_held``; greedy bots held up to 18
in six seeded games at ``target_score=48``), unclaimed shapes past 8, a solo victory's match score
(below), and game totals above ``target_score`` (spec §7's "totals / target"), at the end of
the game and in a tie-break match, where every team at or above the target reads 1 (a
trailing team's gap shows only while its total is below the target; the totals stay in
``infos["totals"]`` and in ``snapshot()``). Elsewhere it is reached only in positions set up
beyond the game's copy counts. Blocks in order (offset = sum of the sizes before):

=============  ======  ==================================================================
block          size    content
=============  ======  ==================================================================
board          13x25   plane*25 + S: plane 0 empty; 1-8 design Z0,A4,B7,C8,D10,E12,F12,G16;
                       9-12 orientation r0..r3
vertices       15x36   plane*36 + V (V = (y-1)*6 + x, va1=0 .. vf6=35): plane kind*4 + team
                       = a marker of kind small/big/square of relative team; 12-14 unclaimed
                       shape of that kind
drawn          10      the tile drawn this turn (public): none, dark, Z0..G16
tables         4x10    each relative seat's table tile, same one-hot
tower          9       tiles left in the tower per kind Z0..G16, dark, / 4 (public: all
                       drawn tiles are shown; the order stays hidden)
markers        4x3     markers left per relative team: small/4, big/4, square/3
totals         4       game totals per relative team / target_score (clipped at 1)
my_cards       9       my cards by kind (9 kinds, joker last) / 4
partner_cards  9       the 2v2 partner's cards by kind / 4 (OGO-27), zero otherwise
cards_held     4       number of cards of each relative seat / 8 (clipped)
deck           1       cards left in the deck / 33
removed        9       cards shown and out of the game, by kind / 4
phase          4       card, kidnap, place, infinity (all zero when over)
kidnapped      9       the kidnapped card to be played (KIDNAP)
flags          4       Time-Travel extra turn, blind match (also 1 in the tie-break match
                       and in solo, which run blind: OGO-53, OGO-60), tie-break match, solo
to_move        4       seat whose turn it is (relative; all zero when over)
actor          4       seat deciding now (relative; differs in INFINITY; all zero when over)
creator        4       creator of the 8 (relative; INFINITY phase)
saved          4       teams already saved by an Infinity (relative, INFINITY phase)
misc           4       Time Travel pending, matches / max_matches, an 8 closed (solo),
                       unclaimed shapes / 8
match_scores   4       last finished match's score per relative team / 32 (clipped at 1:
                       a solo victory scores 32 + 2 per empty square - 1 per unmarked
                       shape, OGO-62, e.g. 42 in S15)
=============  ======  ==================================================================

Hidden and never observed: the tower order, the deck order, other players' cards (except the
2v2 partner's). ``Game.resample_hidden`` reshuffles the tower and re-deals the deck and the
hidden hands (sizes kept) and draws a fresh RNG.

Rendering: ``render_mode`` = ``"ansi"`` (the board as text, with shapes, totals, markers left,
table tiles, card counts (not the cards), tower and deck sizes, the drawn tile, who acts, the
last match's scores, the cards shown and out of the game, a Time-Travel extra turn, the
kidnapped card, the creator of an 8 and the teams saved while Infinity is answered, a closed 8
standing on the board by its X tile, and in solo whether an 8 is closed), ``"rgb_array"`` (a
``uint8[536, 866, 3]`` picture: closed shapes in their owners' colours, the frame's half of a
border shape too, markers on their vertices, a closed 8's whole line, tile strokes and frame
lobes, in purple, and the files and ranks along the board) or ``"human"``
(prints the ansi text after the reset and every step); any other value raises ``ValueError``.
In 2v2 the text adds each team's seats to its line and each seat's team to the seat's line
(``team 0 (player_0, player_2): ...``, ``player_1 (team 1): ...``), as the picture's panel
names it (``player_1  team 1``).

What a move sets off by itself, as sentences (``game.step_events(state, action)``; public facts
only, ``eightfold play`` prints them under each move): shapes scored or left unclaimed
(OGO-19..21) and claims (OGO-22), dark tiles and skipped turns (OGO-16..18, 53), the
Time-Travel extra turn (OGO-34), a kidnapped card and whether it must be played (OGO-42/43),
Meteorite's new table tiles (OGO-37), an 8 (OGO-24/26), a match's end with its scores and the
totals, the next (or tie-break) match and who starts, tie-break tile draws (OGO-56), the
winner and the solo result. Another seat's placement, as ``Game.public_action_string`` shows it
at the table, names the tile placed (``drawn c4 r2 (B7)``: the drawn and table tiles are
public).

Key to the text: each square reads ``<tile>/<k>``, the design (Z0, A4, B7, C8, D10, E12,
F12, G16; the number is its value) in orientation ``r<k>``, or ``.`` when empty; ``shapes``
lists each closed shape as ``<kind>@<vertex>=<owner>`` (``team0``, or ``-`` unclaimed); a
seat's ``table`` is its table tile (``DARK`` = a dark, antimatter tile; ``-`` none) and
``card(s)`` how many secret cards it holds; ``drawn`` is the tile drawn this turn.

Key to the picture: each tile is drawn with its four strokes: quarter circles (small and big
circle parts), right-angle brackets (square parts), the crossing X of D10 and F12 (the 8), and
thin light-grey lines, the dead lines (``L``) that close nothing and score 0, so Z0, made
only of dead lines, is the tile drawn all in light grey. An empty square is a plain, darker
square with its name in the corner.
Round and square lobes round the board are the frame's half-shapes. A stroke or frame lobe in
a team's colour is part of a shape that team has claimed (``SEAT_COLORS[team]``: team 0 red,
team 1 blue, ...; a thicker dark grey when closed but unclaimed); a disc or square on a vertex is a marker
(small disc = small circle, large disc = big circle, square = square; hollow = unclaimed);
purple strokes are a closed 8's line. The panel shows who acts, the match, tower and deck
sizes, the notes of the text, the drawn tile, and per seat (``>`` marks the one deciding) its
team's colour box, total, marker points, markers left (``s`` small, ``b`` big, ``q`` square),
its card count and its table tile.

Parameters (spec §6)
--------------------
``num_players`` 1-4 (1 = solo) [2]; ``teams`` 2v2, needs 4 players [False]; ``secret_cards``
[True] (False = trial run); ``blind`` every match blind [False]; ``head_in_the_clouds`` masks
do not force scoring [False]; ``episode`` "game" | "match" ["game"]; ``target_score`` [24];
``max_matches`` truncation [30]; ``eight_lobes`` "round" | "round_or_square" ["round"].
Bad values raise ``ValueError`` naming the parameter.

Rewards (spec §5): only at the end. "game", with T = the number of teams (the players, or 2
in 2v2) and k of them winning: winners (T-k)/(k(T-1)), losers -1/(T-1) (two
sides: +1/-1, draw 0); truncation after ``max_matches`` regular matches pays 0. "match":
(own match score - mean of the others) / 32. Solo: victory max(score, 0)/32, defeat -1.
Illegal action through ``env()``: -1 to the mover, game over (OGO-63); only the AEC dicts
end (PettingZoo's way): the engine state, ``snapshot()``, the observations and the render stay
those of the position before that action.

``infos`` (the same for every agent; indexed by absolute team, not by seat and not relative to
the observer as the observation is: in free-for-all and solo team t is seat t, in 2v2 team 0 =
seats 0 and 2, team 1 = seats 1 and 3): ``match_scores``, a list with one int per team, the
last finished match's score (all 0 before one ends; 8 and 0s after an 8; in solo the victory
score, or 0); ``totals``, one int per team, the game totals; ``winners``, the sorted list of
the winning teams once the game is over (empty until then, after a truncation and after a solo
defeat; ``[0]`` for a solo victory; several teams on a draw; in episode ``"match"`` the teams
with the best match score), so in 2v2 ``[1]`` means ``player_1`` and ``player_3`` won. Solo
adds ``solo_score``, ``match_scores[0]``.

Symmetries
----------
The board and its frame look the same after a quarter turn, and so do the rules of tracing,
closing and scoring: ``game.symmetries()`` (``envs.otto_game_over.encode.SYMMETRIES``) gives
the three turns as gathers (:class:`envs.core.game.Symmetry`): ``observe(turned, seat).ravel() ==
observe(state, seat).ravel()[sym.obs_index]`` (the observation is flat already) and ``turned.legal_mask() ==
state.legal_mask()[sym.action_index]``. A clockwise quarter turn takes square (file, rank) to
(rank, 4 - file), vertex (x, y) to (y, 5 - x), a tile in orientation r<k> to r<k+1>, and so
placements ``100*t + 4*S + k`` and Quantum Leaps ``8 + 100*from + 4*to + k`` alike; the fixed
centre stays C8 r0 (its design is the same in every orientation). Mirror images are not
offered: a mirror maps the rules to themselves too (every design's mirror image is the same
design in another orientation, and the frame is mirror-symmetric; checked on 134 mirrored
positions and 20 matches played in step, 2026-12-03), but the orientation it gives depends on
the design (B7: r<k> to r<3-k>, D10: r<k> to r<-k>, ...), so it is no fixed reordering of
observation and action indices, which is what a ``Symmetry`` is. Played with the turned moves (and the same
engine generator) a turned game stays the image of the game move for move, across matches; the
one rule a turn does not preserve is which of several shapes of one kind closed by a single
placement takes a team's last marker of that kind (vertex order, OGO-20), which can send the
two games apart. Tested on every position of seeded random games in every test configuration
against boards turned independently, and over whole games played in step
(``tests/otto_game_over/test_symmetry.py``). Training uses them to
augment the behaviour-cloning warm start (``pretrain_symmetries``).

Reset options and the position schema
-------------------------------------
``reset(seed, options={"position": {...}})`` sets up any position; the schema (every key
optional: board, tables, drawn, tower top-first, tower_rest, discarded, hands, deck,
removed_cards, voided_cards, markers, shapes, totals, match_scores, matches, tiebreak,
to_move, phase, actor, time_travel, extra_turn, kidnapped, infinity, solo_eights) is
documented in :mod:`envs.otto_game_over.position`. Example (spec §9 S3: legal are exactly
``drawn e2 r0``, ``drawn e2 r2``, ``drawn e4 r0``, ``drawn e4 r2``, ``table e2 r2``, ``table e4 r0``)::

    {"board": {"d3": "E12/0", "d4": "E12/1", "e3": "E12/1"}, "tables": ["B7", "A4"],
     "tower": ["E12", "G16"]}

``shapes`` lists the closed shapes with their owners (``{"small@vf1": 0}``: the small circle at
vertex f1, claimed by team 0; ``null`` = unclaimed), and a shape that is not closed on the given
board raises ``ValueError``. A shape closed on the board but left out of ``shapes`` is no shape:
neither marked nor unclaimed, so no claim takes it (the spec's hook lists the markers placed and
the unclaimed shapes; a board alone sets up placements without their scoring). Names (squares,
tiles, cards, shapes and vertices, marker kinds, phases) are read in any case, as the notation
is; a tie-break match position holds no cards (OGO-33: they are void; ``voided_cards`` counts
them). ``env.unwrapped.snapshot()`` returns the full position in the same schema
(plus ``result`` once the game is over); fed back it reproduces any position of a game not
yet over (a finished game cannot be set up: ``ValueError``). Any other option key raises ``ValueError`` (PettingZoo's
``api_test`` probe key ``"options"`` is ignored).
``options={"state": env.unwrapped.state.to_dict()}`` (every game of the suite) restores a whole
engine state exactly, hidden parts and the state's own generator included, so the rest of the
game's chance is that state's and the reset seed has no say; it takes no other option, and a
state of other parameters raises ``ValueError`` naming them (``eightfold eval --records``
writes each game's first state this way; seats already out are no agents of the restored
episode: no dead steps for them, and nothing paid before the state is paid again).

Decisions where the spec was open
---------------------------------
* Position set-up checks the schema, the board and its shapes, the variant (no tables or cards
  where the match has none, no tie-break match in solo or in episode ``"match"``, ``solo_eights``
  only in solo) and the Time Travel of the turn (``time_travel`` only in phase ``"place"`` or
  ``"infinity"`` and never in an extra turn; no ``"card"`` or ``"kidnap"`` phase in an extra
  turn). Beyond that, turn flags, the Infinity visit and the totals are taken as given, so a
  test can set up the rule it checks in a few keys: an ``extra_turn`` in a trial run is played,
  an ``"infinity"`` phase needs no 8 on the board, and a running match may hold a total at
  ``target_score`` (the game ends when that match does).
* Position set-up does not enforce copy counts (spec §9 S5 has five Z0 tiles); the unlisted
  rest of the tower is the set minus every listed tile, floored at 0. Marker counts given in
  ``markers`` are taken as they are (0-4/4/3), not checked against the shapes the team owns;
  the rules read the supply, so a solo position given an empty supply wins with its next 8
  whatever stands on the board. In play the supply and the owned shapes always add up to
  4/4/3.
* Solo: a placement that completes the victory (OGO-61) and fills the last slot wins (score
  32 - unmarked shapes): the board did not fill *first*.
* At the start of a turn the player's team makes its claims (OGO-22) before the tile-exhaustion
  end (OGO-49) is checked, in the order of the spec's turn outline (§3): a shape left unclaimed
  when the last tile was placed still scores for the next player's team.
* OGO-22's "oldest shape first": shapes that one placement closed together are equally old;
  among them claims go in the vertex order of OGO-20 (rank line, then file line).
* Position option: a blind or solo match has no table tiles and no cards (OGO-33, OGO-53,
  OGO-60), so there a position's ``tables`` entries must be null (``[null, null]``, or leave
  ``tables`` out) and its ``hands`` and ``deck`` empty (a ``ValueError`` names the key; the
  spec's S9 blind variant gives the tower only).
* ``teams=True`` with ``num_players=1`` is accepted and ignored (solo ignores ``teams``);
  with 2 or 3 players it is a ``ValueError``.
* A kidnapped card counts as removed (shown) at once, whether it is then played or fails.
* Cards voided when a tie-break match starts are never shown: they only add to a count.
* Tiles drawn in the tie-break rounds (OGO-56) go to the discard pile of the match.
* After an 8 in the tie-break match the match scores read 8-0 and the totals are unchanged.
* A regular match that ends with two or more teams tied for the highest total at or above
  ``target_score`` starts the tie-break match (OGO-53) even when it was the ``max_matches``-th:
  the game has reached its end condition, and the tie-break match and tile rounds are finite.
  Truncation (§5) applies only when ``max_matches`` regular matches end with no total at the
  target.

Bots (``envs.otto_game_over.bots``)
-----------------------------------
``random``; ``greedy`` (most points now, always saves with Infinity, keeps its cards);
``heuristic`` (scores, but subtracts what the next opponent could close next turn with its
public table tile or an average draw — above all an 8 — plays Infinity, simulates the
start-of-turn cards on a re-dealt state, and plays a card when the simulation says it gains
more than ``card_margin`` points, spec ``heuristic:card_margin=1.5``, the default; in solo,
progress toward a victory, below). Measured with ``envs.core.arena.play_match``
(seats swapped, 2 players): one match (``episode="match"``, 5,000 games: 1,000 at each of ``seed=0`` .. ``4``,
2026-12-05) heuristic vs random 3,728 W / 404 D / 868 L (win rate 0.746; 0.706 over 500 games
with the earlier ``heuristic``); whole games to 24 (1,000 games: 200 at each of ``seed=0`` .. ``4``, 2026-12-03)
911 W / 89 L (0.911; the 200 games of ``seed=1`` alone, quoted before, 187 / 13);
greedy vs random, one match, 500 games (``seed=1``): 250 W / 32 D / 218 L (0.50; 258 / 30 / 212 at ``seed=0``).
Solo (OGO-60..62) is a hard puzzle (a victory needs 4 big circles, which close only at the
16 inner vertices, and an 8 before the board fills). There ``heuristic`` values each placement
by the board it leaves: a victory's reward, -1 for a full board, else ``-1 + 1.5 * progress``
(``evaluate.solo_progress``: per requirement, the markers placed plus the best half-built
shapes of that kind counted by the square of their filled share, or the best open X tile;
the four shares' mean blended with their product), read from the board and the supply only.
It wins 52 of 1,000 deals (0.052 [0.040, 0.068]; ``eightfold eval otto_game_over --param
num_players=1 --players heuristic random --games 1000``, 2026-12-05; 9.5 of the 11 markers
placed and an 8 closed in about half the deals; big circles are missing in about four of
five defeats). Scoring only the points of the move, as it did before, it won none of 200 deals
(about 5.5 markers; ``random`` and ``greedy``, which still play that way, win none).
``mcts:sims=200``, whose leaves are valued by the same progress, won 2 of 100 (the same
command). The rules' own victory (spec S15) is tested. In a solo evaluation the
better score of the same deal wins, so ``heuristic`` against ``random`` or ``greedy`` counts
its victories; a learner's solo reward is -1 until it finds a victory.

MCTS (``mcts``, ``envs/core/mcts.py``): this game's ``mcts_defaults`` are ``depth=0,
prior=heuristic``: every new node's moves are ordered and biased by ``heuristic``'s scores,
which see the next player's best reply (above all a closing 8) that 200 simulations spread
over ~80 moves would miss, and leaves are valued at once by ``evaluate`` (match: marker
points; game: a softmax of totals plus markers; solo: the progress above). One match, 2 players, seats rotated
(``examples/mcts_strength.py``): ``mcts:sims=200`` against heuristic 0.545 [0.476, 0.613] over
200 matches, where the core defaults (2-step random rollouts) score 0.350 [0.287, 0.418];
against random 0.787 and greedy 0.850 (40 matches each; one match is much luck: heuristic
itself wins 0.746 of single matches against random, a score of 0.786 with draws counted half
as the search's figures are). Whole games (the default config), where
a per-match edge adds up: 771 W / 279 L against heuristic over 1,050 games (0.734 [0.707, 0.760];
68 / 32 at ``--seed 17``, 77 / 23 at ``--seed 19``, 71 / 29 at ``--seed 23``, ~40 s a game
per core; 41 / 19 at ``--seed 59``, 73 / 27 at ``--seed 67``, 21 / 9 at ``--seed 71``, 17 / 3
at ``--seed 73``, 43 / 17 at ``--seed 79``, 33 / 7 at ``--seed 83``, 59 / 21 at ``--seed 89``, 61 / 19 at ``--seed 97``, 42 / 18 at ``--seed 101``, 45 / 15 at ``--seed 103``, 31-85 s a game
per core; then 120 / 40 at ``--seed 107``, a replication whose size was fixed before it ran, 0.750
[0.678, 0.811], 36 s a game per core), after 12 W / 4 L at ``--seed 13``: above 70% at the point estimate, and the
interval's lower end at 0.707 (the first 890 games were added in batches over days; the last 160
were a fixed-size replication). Twice the budget
(``mcts:sims=400``) won 36 of 60 whole games (0.600 [0.474, 0.714]), no more. The prior costs about 1.6 times the core defaults per simulation (2,166
simulations/s in the default config on one core, ``eightfold bench --mcts``, four times
before ``heuristic`` was made faster; 2,526 on a quiet machine on 2026-12-05, after the
mask scans below, and 2,854 once ``heuristic`` skipped tracing the placements the mask knows
close nothing and recomputed only the X tiles next to a tried placement: 1.55 ms a decision
against 2.09, the same choices and scores to the bit over 1,000 positions of four configs).

Speed (random play, 2 players, ``eightfold bench --games otto_game_over --seconds 3`` and
alternating 0.7 s runs against PettingZoo ``connect_four_v3`` in the same process, on a
loaded shared 2-core machine, so only same-run ratios mean anything): ``env()`` 0.95-1.3x
``connect_four_v3``, engine alone (mask + apply) 1.8-2.5x. On 2026-12-05, on a quiet machine
(``eightfold bench --seconds 3``): ``env()`` **1.44x**, engine 2.83x (2 players, whole games;
2v2, solo and blind 1.28-1.34x / 2.55-2.57x), after two changes: every scan of a legal mask
(the bots, MCTS, the benchmark's random player) goes through ``envs.core.game.legal_indices``
(numpy's ``nonzero`` on this ``int8`` mask of 5,228 entries loops element by element, 15 us,
against under 3 us on ``mask != 0``), and the X-tile needs of the board (``scoring.x_needs``)
are cached like the need signatures. Per step, quiet moments: observe ~12 us, placement mask
~13-18 us, card mask ~7 us (set from index arrays: a Quantum Leap has hundreds of targets),
apply ~8-10 us. The must-score / must-8 mask reads one precomputed table entry per
(candidate square, tile) from cached slot signatures (``scoring.BITS``, no re-trace; both
caches are refreshed by every board edit and tested against a fresh computation) and fills a
bytearray by 4-byte slices; the board planes of the observation are kept up to date by
``flow.set_tile``.

OpenSpiel
---------
``import envs.core.openspiel`` (the ``openspiel`` extra; README "OpenSpiel") registers
``eightfold_otto_game_over``: ``pyspiel.load_game("eightfold_otto_game_over", {"num_players":
2, "rng_seed": 7})`` takes this page's parameters and ``rng_seed``, which seeds the deals. It
is a ``SAMPLED_STOCHASTIC``, ``IMPERFECT_INFORMATION`` game with ``TERMINAL`` rewards,
``ZERO_SUM`` (``GENERAL_SUM`` solo). The observation tensor is the vector above; the
observation string is that vector written sparsely; ``resample_from_infostate`` is
``resample_hidden``.

Version history
---------------
* v0: first release.
"""

from __future__ import annotations

from typing import Any, ClassVar

from envs.core.aec import EightfoldAECEnv, make_env_factory
from envs.otto_game_over.game import OttoGameOverGame


class raw_env(EightfoldAECEnv):  # noqa: N801  (PettingZoo naming)
    """The OTTO Game Over AEC environment (see the module docstring)."""

    game_class = OttoGameOverGame
    metadata: ClassVar[dict[str, Any]] = {
        "name": "otto_game_over_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": False,
        "render_fps": 1,
    }


env = make_env_factory(raw_env)
