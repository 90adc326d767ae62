"""The chance events of the four games against the distributions their rules specs give.

Rule tests on single positions cannot see a biased shuffle, a "random" choice that is always
the first, a dealer that is not uniform or a re-deal (``Game.resample_hidden``) that is not
the deal conditioned on what a seat knows. Each test here draws thousands of seeded samples
through the public engine / env API (``new_initial_state(rng)``, ``reset(seed=...)``,
the documented position loaders, ``resample_hidden``) and tests the frequencies against the
spec's model with chi-square or binomial tests. Every seed is fixed, and a test fails only
at p < 1e-6, so a correct engine passes for sure; ``test_controls_*`` show that the same
statistics do fail on planted biases (biased samplers fed to the same helpers, no mocks).

Chance events and the distribution each spec implies (where the spec fixes a thing it must
not be random):

- Octi: none at all; player_0 moves first (OCT-03, OCT-04).
- Over and Out: round-1 dealer uniform when ``first_dealer`` is None, else that seat
  (OAO-05); the player left of the dealer starts (OAO-10); the change-and-out cards and the
  5 Tip Top cards are shuffled uniformly (OAO-06, OAO-07); later dealers rotate clockwise
  (OAO-36) and each round is a fresh uniform deal (OAO-37); a reshuffled play pile is a
  uniform order (OAO-32); an exhausted Tip Top pile is rebuilt from the discards in uniform
  order (OAO-29).
- Otto the Octopus: player_0 starts (§2.1); a uniform pile, 3 tiles each, mulligans in seat
  order (OTP-35, OTP-36); the pufferfish takes a uniform tile (OTP-24); the seahorse returns
  a tile to a uniform place in the pile (OTP-26).
- OTTO Game Over: the 33 cards shuffled once per game (§2.2), the tower shuffled per match
  (§2.3), table tiles never dark (§2.4), first player by the §2.5 rule (not random), the
  kidnapped card uniform (OGO-42), a loaded position's tower rest shuffled uniformly.
- ``resample_hidden`` (all three hidden-information games): the hidden cards/tiles re-dealt
  uniformly from what the seat cannot see, i.e. like a fresh deal conditioned on the seat's
  view. In Otto the Octopus that view includes what the rules tell every seat: before the
  first placement each hand is the one the mulligan kept (an arm tile, OTP-35/36), and a seat
  asked to place holds a placement (OTP-19's automatic pass); the re-deal broke both once
  (about 20% of opening re-deals with 2 players gave the other an unplayable hand), fixed
  2026-12-07.
"""

from __future__ import annotations

import collections
import itertools
import math
from collections.abc import Callable, Sequence
from math import comb

import numpy as np
import pytest

from envs import otto_game_over_v0, otto_octopus_v0
from envs.octi.game import OctiGame
from envs.otto_game_over.actions import DECK
from envs.otto_game_over.game import OttoGameOverGame
from envs.otto_game_over.geometry import DARK, TILE_VALUE
from envs.otto_octopus.board import ARM_KINDS, MINNOW, SHARK, STARFISH, TILE_MIX
from envs.otto_octopus.encode import hidden_tiles
from envs.otto_octopus.game import OttoOctopusGame
from envs.over_and_out.cards import NUM_KINDS, TIPTOP_VALUES, TOKENS
from envs.over_and_out.game import OverAndOutGame

ALPHA = 1e-6  # fail only when the engine is off the spec's model beyond any doubt


# ----------------------------------------------------------------------------- statistics
# (written here: scipy is no dependency of the project; they agree with scipy.stats to 1e-12)
def _chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for a chi-square variable with ``df`` degrees of freedom: the regularized
    upper incomplete gamma Q(df/2, x/2), by its series below a + 1, else its continued fraction."""
    a, x = df / 2.0, x / 2.0
    if x <= 0:
        return 1.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        while abs(term) > abs(total) * 1e-15:
            n += 1
            term *= x / n
            total += term
        return max(0.0, 1.0 - math.exp(log_front) * total)
    b = x + 1 - a
    c, d = 1e300, 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1 / d
        h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return math.exp(log_front) * h


def _norm_sf(z: float) -> float:
    return 0.5 * math.erfc(z / math.sqrt(2))


def _binom_two_sided(hits: int, trials: int, p: float) -> float:
    """Exact two-sided binomial test: the probability of outcomes no likelier than ``hits``."""
    logs = [
        math.lgamma(trials + 1) - math.lgamma(k + 1) - math.lgamma(trials - k + 1)
        + (k * math.log(p) if k else 0.0) + ((trials - k) * math.log1p(-p) if trials - k else 0.0)
        for k in range(trials + 1)
    ]  # fmt: skip
    bound = logs[hits] + 1e-7 * abs(logs[hits]) + 1e-12  # scipy's relative tolerance for ties
    return min(1.0, sum(math.exp(v) for v in logs if v <= bound))


def _contingency_pvalue(table: np.ndarray) -> float:
    """Chi-square test of independence (Yates' correction at one degree of freedom, as scipy)."""
    table = np.asarray(table, dtype=float)
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / table.sum()
    df = (table.shape[0] - 1) * (table.shape[1] - 1)
    diff = np.abs(table - expected)
    if df == 1:
        diff = np.maximum(diff - 0.5, 0.0)
    return _chi2_sf(float((diff**2 / expected).sum()), df) if df else 1.0


def _assert_fits(observed: Sequence[float], probs: Sequence[float], what: str) -> None:
    """Chi-square goodness of fit of ``observed`` counts to the model ``probs``; cells the
    model gives probability 0 must stay empty."""
    obs = np.asarray(observed, dtype=float)
    p = np.asarray(probs, dtype=float)
    p = p / p.sum()
    assert obs[p == 0].sum() == 0, f"{what}: outcomes the spec rules out occurred: {obs}"
    obs, p = obs[p > 0], p[p > 0]
    if obs.size < 2:
        return
    expected = p * obs.sum()
    pvalue = _chi2_sf(float(((obs - expected) ** 2 / expected).sum()), obs.size - 1)
    assert pvalue >= ALPHA, f"{what}: p = {pvalue:.2e}, observed {obs.tolist()}, model {p.round(4).tolist()}"


def _assert_uniform(observed: Sequence[float], what: str) -> None:
    _assert_fits(observed, [1.0] * len(observed), what)


def _assert_rate(hits: int, trials: int, p: float, what: str) -> None:
    """Exact binomial test of a rate."""
    pvalue = _binom_two_sided(hits, trials, p)
    assert pvalue >= ALPHA, f"{what}: {hits}/{trials} against {p:.4f}, p = {pvalue:.2e}"


def _assert_z(observed: np.ndarray, expected: np.ndarray, variance: np.ndarray, what: str) -> None:
    """Per-cell z tests of summed Bernoulli indicators with event-dependent probabilities
    (Bonferroni over the cells)."""
    live = variance > 0
    z = (observed[live] - expected[live]) / np.sqrt(variance[live])
    pvalue = min(1.0, 2 * _norm_sf(float(np.abs(z).max())) * int(live.sum()))
    assert pvalue >= ALPHA, f"{what}: z = {z.round(2).tolist()}"


def _multisets(unseen: Sequence[int], size: int) -> list[tuple[int, ...]]:
    """Every count vector of ``size`` items drawable from ``unseen`` (count per kind)."""
    kinds = [k for k, u in enumerate(unseen) if u]
    out = set()
    for combo in itertools.combinations_with_replacement(kinds, size):
        m = np.bincount(combo, minlength=len(unseen))
        if all(m[k] <= unseen[k] for k in kinds):
            out.add(tuple(int(x) for x in m))
    return sorted(out)


def _assert_hypergeometric(hands: collections.Counter, unseen: Sequence[int], size: int, what: str) -> None:
    """A hand of ``size`` drawn uniformly from the ``unseen`` cards: its count vector is
    multivariate hypergeometric. Cells expected below 5 are pooled."""
    cells = _multisets(unseen, size)
    total = comb(sum(unseen), size)
    probs = np.array([np.prod([comb(u, c) for u, c in zip(unseen, m, strict=True)]) / total for m in cells])
    obs = np.array([hands[m] for m in cells], dtype=float)
    n = sum(hands.values())
    assert obs.sum() == n, f"{what}: hands that cannot be drawn from the unseen cards"
    big = probs * n >= 5
    o, p = list(obs[big]), list(probs[big])
    if (~big).any():
        o.append(obs[~big].sum())
        p.append(probs[~big].sum())
    _assert_fits(o, p, what)


def _random_moves(state, rng: np.random.Generator, count: int):  # noqa: ANN001, ANN202
    for _ in range(count):
        if state.is_terminal():
            break
        legal = np.flatnonzero(state.legal_mask())
        state.apply(int(legal[rng.integers(legal.size)]))
    return state


# ----------------------------------------------------------------------------------- Octi
def test_octi_has_no_chance_and_player_0_starts() -> None:
    """OCT-03, OCT-04: the setup is fixed and Black (player_0) moves first whatever the seed;
    nothing is hidden, so a re-deal changes nothing."""
    for variant in ("basic", "x_fast", "x_classic"):
        game = OctiGame(variant=variant)
        first = game.new_initial_state(np.random.default_rng(0))
        ref = first.to_dict()
        ref.pop("rng", None)
        for seed in range(1, 60):
            state = game.new_initial_state(np.random.default_rng(seed))
            d = state.to_dict()
            d.pop("rng", None)
            assert d == ref and state.current_player() == 0
        _random_moves(first, np.random.default_rng(1), 12)
        other = game.resample_hidden(first, first.current_player(), np.random.default_rng(2))
        a, b = first.to_dict(), other.to_dict()
        a.pop("rng", None)
        b.pop("rng", None)
        assert a == b


# --------------------------------------------------------------------------- Over and Out
@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_oao_first_dealer_uniform_and_left_of_dealer_starts(n: int) -> None:
    """OAO-05: with first_dealer=None the round-1 dealer is uniform over the seats; OAO-10:
    the player to the dealer's left plays first; a fixed first_dealer is never random."""
    game = OverAndOutGame(num_players=n)
    dealers = np.zeros(n)
    for seed in range(4000):
        state = game.new_initial_state(np.random.default_rng(seed))
        dealers[state.dealer] += 1
        assert state.current_player() == (state.dealer + 1) % n
    _assert_uniform(dealers, f"OAO-05 round-1 dealer, {n} players")
    fixed = OverAndOutGame(num_players=n, first_dealer=n - 1)
    for seed in range(50):
        state = fixed.new_initial_state(np.random.default_rng(seed))
        assert state.dealer == n - 1 and state.current_player() == 0


def test_oao_deal_is_a_uniform_shuffle() -> None:
    """OAO-07, OAO-08: every hand and every draw-pile place holds a card drawn uniformly
    from the deck; the top two draw-pile cards jointly as without replacement."""
    n = 3
    game = OverAndOutGame(num_players=n)
    counts = np.array(game.config.counts, dtype=float)
    hands = np.zeros((n, NUM_KINDS))
    top, bottom = np.zeros(NUM_KINDS), np.zeros(NUM_KINDS)
    pairs = collections.Counter()
    samples = 6000
    for seed in range(samples):
        state = game.new_initial_state(np.random.default_rng(seed))
        for p in range(n):
            hands[p] += np.bincount(state.hands[p], minlength=NUM_KINDS)
        top[state.draw_pile[-1]] += 1
        bottom[state.draw_pile[0]] += 1
        pairs[state.draw_pile[-1], state.draw_pile[-2]] += 1
    for p in range(n):
        _assert_fits(hands[p], counts, f"OAO-07 hand of seat {p}")
    _assert_fits(top, counts, "OAO-08 draw pile top")
    _assert_fits(bottom, counts, "OAO-08 draw pile bottom")
    cells = list(itertools.product(range(NUM_KINDS), repeat=2))
    joint = [counts[i] * (counts[j] - (i == j)) for i, j in cells]
    _assert_fits([pairs[c] for c in cells], joint, "OAO-08 top two draw-pile cards")


def test_oao_tiptop_pile_order_uniform() -> None:
    """OAO-06, OAO-09: the Tip Top cards are shuffled: (L, then the pile top to bottom) is
    uniform over the 120 orders, and independent of the round-1 dealer."""
    game = OverAndOutGame(num_players=4)
    orders = collections.Counter()
    by_dealer = np.zeros((4, 5))
    for seed in range(8000):
        state = game.new_initial_state(np.random.default_rng(seed))
        orders[(state.tiptop, *state.tiptop_pile[::-1])] += 1
        by_dealer[state.dealer, TIPTOP_VALUES.index(state.tiptop)] += 1
    _assert_uniform([orders[p] for p in itertools.permutations(TIPTOP_VALUES)], "OAO-06 Tip Top order")
    assert _contingency_pvalue(by_dealer) >= ALPHA, "dealer and L are correlated"


def test_oao_neighbouring_seeds_are_independent() -> None:
    """reset(seed=s) and reset(seed=s+1) deal independently: the same dealer, the same L and
    the same first draw-pile card coincide only as often as chance gives."""
    n = 4
    game = OverAndOutGame(num_players=n)
    counts = np.array(game.config.counts, dtype=float)
    deals = [game.new_initial_state(np.random.default_rng(seed)) for seed in range(8001)]
    pairs = list(zip(deals, deals[1:], strict=False))
    same_dealer = sum(a.dealer == b.dealer for a, b in pairs)
    same_l = sum(a.tiptop == b.tiptop for a, b in pairs)
    same_top = sum(a.draw_pile[-1] == b.draw_pile[-1] for a, b in pairs)
    _assert_rate(same_dealer, len(pairs), 1 / n, "neighbouring seeds, same dealer")
    _assert_rate(same_l, len(pairs), 1 / 5, "neighbouring seeds, same L")
    _assert_rate(
        same_top, len(pairs), float(((counts / counts.sum()) ** 2).sum()), "neighbouring seeds, same top card"
    )


def test_oao_env_reset_seeds_are_independent() -> None:
    """The same through the AEC env: neighbouring reset seeds' first movers agree only by
    chance (the first mover is left of a uniform dealer, OAO-05/OAO-10)."""
    from envs import over_and_out_v0

    env = over_and_out_v0.raw_env(num_players=3)
    firsts = []
    for seed in range(3001):
        env.reset(seed=seed)
        firsts.append(env.agent_selection)
    _assert_uniform(list(collections.Counter(firsts).values()), "first mover over reset seeds")
    same = sum(a == b for a, b in zip(firsts, firsts[1:], strict=False))
    _assert_rate(same, len(firsts) - 1, 1 / 3, "neighbouring reset seeds, same first mover")


def test_oao_dealer_rotates_and_each_round_is_dealt_afresh() -> None:
    """OAO-36: the next dealer is the next active seat clockwise from the last one, and play
    starts at its left; OAO-37: the next round's Tip Top card is again uniform."""
    n = 3
    game = OverAndOutGame(num_players=n)
    second_l = np.zeros(5)
    for seed in range(1500):
        state = game.new_initial_state(np.random.default_rng(seed))
        first = state.dealer
        moves = np.random.default_rng(10**6 + seed)
        while state.round == 1 and not state.is_terminal():
            _random_moves(state, moves, 1)
        if state.is_terminal():
            continue
        want = next(s for s in ((first + i) % n for i in range(1, n + 1)) if state.chips[s])
        assert state.dealer == want, f"seed {seed}: dealer {state.dealer}, rotation gives {want}"
        left = next(s for s in ((want + i) % n for i in range(1, n + 1)) if state.chips[s])
        assert state.current_player() == left
        second_l[TIPTOP_VALUES.index(state.tiptop)] += 1
    _assert_uniform(second_l, "OAO-37 round-2 Tip Top card")


def test_oao_reshuffled_draw_pile_is_uniform() -> None:
    """OAO-32: an empty draw pile is rebuilt from the play pile (the card just played
    included) in uniform order: each place holds a kind in proportion to that pile."""
    game = OverAndOutGame(num_players=2, deck_counts={"0": 3, "1": 3, "2": 3, "3": 3})
    observed, expected, variance = np.zeros(NUM_KINDS), np.zeros(NUM_KINDS), np.zeros(NUM_KINDS)
    events = 0
    for seed in range(450):
        state = game.new_initial_state(np.random.default_rng(seed))
        moves = np.random.default_rng(10**6 + seed)
        while not state.is_terminal():
            legal = np.flatnonzero(state.legal_mask())
            a = int(legal[moves.integers(legal.size)])
            if state.draw_pile or a >= NUM_KINDS:
                state.apply(a)
                continue
            pile = np.array(state.play_pile, dtype=float)
            pile[a] += 1
            before = state.round
            state.apply(a)
            if state.is_terminal() or state.round != before:
                continue  # the play lost the round: no draw, no reshuffle (OAO-16)
            assert len(state.draw_pile) == pile.sum() - 1
            p = pile / pile.sum()
            observed[state.draw_pile[0]] += 1
            expected += p
            variance += p * (1 - p)
            events += 1
    assert events > 5000
    _assert_z(observed, expected, variance, "OAO-32 reshuffled draw pile (bottom card)")


def test_oao_exhausted_tiptop_pile_is_reshuffled_uniformly() -> None:
    """OAO-24, OAO-29: Topsy Turvy turns the Tip Top pile's top; once the pile is empty,
    the discards (not the current card) are shuffled into a new pile: with a deck of Topsy
    Turvy cards only, the first 5 values are a uniform order of all 5, and the next 4 a
    uniform order of the other four."""
    game = OverAndOutGame(num_players=2, deck_counts={"topsy-turvy": 16}, first_dealer=1)
    tt = TOKENS.index("topsy-turvy")
    first5, after = collections.Counter(), collections.Counter()
    for seed in range(3000):
        state = game.new_initial_state(np.random.default_rng(seed))
        seq = [state.tiptop]
        for _ in range(8):
            state.apply(tt)
            seq.append(state.tiptop)
        assert state.round == 1 and state.total == 0
        first5[tuple(seq[:5])] += 1
        assert sorted(seq[4:9]) == sorted(TIPTOP_VALUES)
        after[tuple(seq[4:9])] += 1
    perms = list(itertools.permutations(TIPTOP_VALUES))
    _assert_uniform([first5[p] for p in perms], "OAO-06 first Tip Top order")
    _assert_uniform([after[p] for p in perms], "OAO-29 rebuilt Tip Top pile order")


@pytest.mark.parametrize(("n", "seed", "moves"), [(2, 5, 7), (4, 11, 9)])
def test_oao_resample_is_the_conditional_deal(n: int, seed: int, moves: int) -> None:
    """resample_hidden (env doc page): another seat's hand is a uniform draw from the cards
    the seat cannot see (deck minus own hand minus play pile), i.e. multivariate
    hypergeometric; the draw pile's places and the Tip Top pile's order are uniform."""
    game = OverAndOutGame(num_players=n)
    state = _random_moves(
        game.new_initial_state(np.random.default_rng(seed)), np.random.default_rng(99), moves
    )
    seat = state.current_player()
    unseen = [c - p for c, p in zip(game.config.counts, state.play_pile, strict=True)]
    for k in state.hands[seat]:
        unseen[k] -= 1
    rng = np.random.default_rng(123)
    hands, tops, orders = collections.Counter(), np.zeros(NUM_KINDS), collections.Counter()
    opp = (seat + 1) % n
    for _ in range(5000):
        other = game.resample_hidden(state, seat, rng)
        assert other.hands[seat] == state.hands[seat]
        hands[tuple(int(x) for x in np.bincount(other.hands[opp], minlength=NUM_KINDS))] += 1
        tops[other.draw_pile[-1]] += 1
        orders[tuple(other.tiptop_pile)] += 1
    _assert_hypergeometric(hands, unseen, len(state.hands[opp]), "re-dealt opponent hand")
    _assert_fits(tops, unseen, "re-dealt draw pile top")
    k = len(state.tiptop_pile)
    assert len(orders) == np.prod(range(1, k + 1))
    _assert_uniform(list(orders.values()), "re-dealt Tip Top pile order")


# ----------------------------------------------------------------------- Otto the Octopus
def _arms(hand: Sequence[int]) -> int:
    return sum(k in ARM_KINDS for k in hand)


def _reference_otp_deal(n: int, rng: np.random.Generator) -> tuple[list[list[int]], list[int]]:
    """Spec §2 and OTP-36 written independently: a uniform pile (top = end), 3 tiles each,
    then in seat order: while a hand has no arm tile, draw 3 new, shuffle the rejects back."""
    pile = [k for k, c in enumerate(TILE_MIX) for _ in range(c)]
    pile = [pile[i] for i in rng.permutation(len(pile))]
    hands = [[pile.pop() for _ in range(3)] for _ in range(n)]
    for p in range(n):
        while not _arms(hands[p]):
            rejected, hands[p] = hands[p], [pile.pop() for _ in range(3)]
            pile += rejected
            pile = [pile[i] for i in rng.permutation(len(pile))]
    return hands, pile


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_otp_player_0_starts_every_game(n: int) -> None:
    """Spec §2.1: player_0 starts; the first player is fixed, never drawn."""
    game = OttoOctopusGame(num_players=n)
    for seed in range(200):
        assert game.new_initial_state(np.random.default_rng(seed)).current_player() == 0


def test_otp_solo_mulligan_exact_distribution() -> None:
    """OTP-35, OTP-36 (solo): the kept hand's number of arm tiles follows the exact law of
    the procedure: the first 3 of 60 tiles (24 arm tiles) if they hold one, else 3 of the
    other 57 (24 arm tiles) conditioned on holding one."""

    def hg(total: int, good: int, a: int) -> float:
        return comb(good, a) * comb(total - good, 3 - a) / comb(total, 3)

    mull = hg(60, 24, 0) / (1 - hg(57, 24, 0))
    probs = [0.0] + [hg(60, 24, a) + mull * hg(57, 24, a) for a in (1, 2, 3)]
    game = OttoOctopusGame(num_players=1)
    arms = np.zeros(4)
    for seed in range(12000):
        arms[_arms(game.new_initial_state(np.random.default_rng(seed)).hands[0])] += 1
    _assert_fits(arms, probs, "OTP-36 solo kept hand, arm tiles")


@pytest.mark.parametrize("n", [2, 4])
def test_otp_deal_matches_an_independent_model(n: int) -> None:
    """Spec §2.2-2.3, OTP-36: the engine's deals and an independent sampler of the spec's
    procedure give the same laws (two-sample chi-square) of each seat's arm-tile count and
    of the pile's top and bottom tiles."""
    game = OttoOctopusGame(num_players=n)
    ref_rng = np.random.default_rng(2024)
    eng = {"arms": np.zeros((n, 4)), "top": np.zeros(16), "bottom": np.zeros(16)}
    ref = {k: v.copy() for k, v in eng.items()}
    for seed in range(6000):
        state = game.new_initial_state(np.random.default_rng(seed))
        hands, pile = _reference_otp_deal(n, ref_rng)
        for d, hs, pl in ((eng, state.hands, state.pile), (ref, hands, pile)):
            d["top"][pl[-1]] += 1
            d["bottom"][pl[0]] += 1
            for p in range(n):
                d["arms"][p, _arms(hs[p])] += 1
    assert eng["arms"][:, 0].sum() == 0, "a dealt hand without an arm tile (OTP-35)"
    tables = [(eng["top"], ref["top"]), (eng["bottom"], ref["bottom"])]
    tables += [(eng["arms"][p], ref["arms"][p]) for p in range(n)]
    for a, b in tables:
        table = np.array([a, b])
        table = table[:, table.sum(axis=0) > 0]
        assert _contingency_pvalue(table) >= ALPHA, table


def test_otp_seahorse_return_goes_to_a_uniform_place() -> None:
    """OTP-26: the returned tile is inserted at a uniformly random position of the pile
    (6 places in a pile of 5, the top included, where the redraw takes it straight back)."""
    env = otto_octopus_v0.raw_env(num_players=2)
    pos = {
        "placements": ["straight d6", "straight d7"],
        "hands": [["seahorse", "starfish", "jellyfish"], ["bubbles"] * 3],
        "pile": ["bubbles"] * 6,
    }
    where = collections.Counter()
    for seed in range(3000):
        env.reset(seed=seed, options={"position": pos})
        u = env.unwrapped
        env.step(u.string_to_action("place seahorse c7"))
        env.step(u.string_to_action("return starfish"))
        state = u.state
        where["hand" if STARFISH in state.hands[0] else state.pile[::-1].index(STARFISH)] += 1
    assert sum(where.values()) == 3000
    _assert_uniform([where[k] for k in ("hand", 0, 1, 2, 3, 4)], "OTP-26 seahorse insertion")


def test_otp_pufferfish_takes_a_uniform_tile() -> None:
    """OTP-24: the tile taken from the opponent's hand is uniform over that hand."""
    env = otto_octopus_v0.raw_env(num_players=3)
    pos = {
        "placements": ["straight d6", "straight d7"],
        "hands": [["pufferfish", "straight", "end"], ["bubbles"] * 3, ["starfish", "minnow", "shark"]],
        "pile": ["bubbles"] * 5,
    }
    taken = collections.Counter()
    for seed in range(3000):
        env.reset(seed=seed, options={"position": pos})
        u = env.unwrapped
        env.step(u.string_to_action("place pufferfish c7"))
        env.step(u.string_to_action("swap end player_2"))
        got = [k for k in (STARFISH, MINNOW, SHARK) if k in u.state.hands[0]]
        assert len(got) == 1
        taken[got[0]] += 1
    _assert_uniform([taken[k] for k in (STARFISH, MINNOW, SHARK)], "OTP-24 pufferfish pick")


@pytest.mark.parametrize("open_game", [False, True])
def test_otp_resample_midgame_is_uniform(open_game: bool) -> None:
    """resample_hidden (doc page): during play (after the deal) another seat's hidden tiles
    (its whole hand, or only its newest tile in the open game, OTP-41) and the pile are a
    uniform draw from the tiles the seat cannot see."""
    game = OttoOctopusGame(num_players=3, open_game=open_game)
    state = _random_moves(game.new_initial_state(np.random.default_rng(8)), np.random.default_rng(2), 9)
    seat = state.current_player()
    opp = (seat + 1) % 3
    unseen = list(np.bincount(state.pile + hidden_tiles(state, seat), minlength=16))
    rng = np.random.default_rng(5)
    hands, tops = collections.Counter(), np.zeros(16)
    for _ in range(4000):
        other = game.resample_hidden(state, seat, rng)
        hand = other.hands[opp]
        if open_game:
            assert hand[:-1] == state.hands[opp][:-1]
            hand = hand[-1:]
        hands[tuple(int(x) for x in np.bincount(hand, minlength=16))] += 1
        tops[other.pile[-1]] += 1
    size = min(1, len(state.hands[opp])) if open_game else len(state.hands[opp])
    _assert_hypergeometric(hands, unseen, size, "re-dealt hidden tiles of an opponent")
    _assert_fits(tops, unseen, "re-dealt pile top")


@pytest.mark.parametrize("n", [2, 4])
def test_otp_resample_at_the_deal_keeps_the_mulligan_guarantee(n: int) -> None:
    """OTP-35/36 and spec T1 ("Invariant after any reset: every hand holds >= 1 legal
    placement"): before anyone has acted, every seat knows that each other hand holds an arm
    tile, so a re-deal that is a fresh deal conditioned on the seat's view never gives an
    opponent a hand without one (fresh deals never do; the re-deal does in ~20% / ~50%)."""
    game = OttoOctopusGame(num_players=n)
    state = game.new_initial_state(np.random.default_rng(3))
    rng = np.random.default_rng(5)
    bad = 0
    for _ in range(300):
        other = game.resample_hidden(state, 0, rng)
        bad += any(_arms(other.hands[q]) == 0 for q in range(1, n))
    assert bad == 0, f"{bad}/300 re-deals give another seat an unplayable opening hand"


# a 2-player position of a seeded random game (seed 0, 50 moves): player_1 to move in MAIN
_OTP_LATE = {
    "placements": [
        "turn-in e6",
        "turn-in f4",
        "turn-out f3",
        "seahorse g4",
        "end-shell f6",
        "straight d6",
        "turn-in d7",
        "turn-out c4",
        "anglerfish h4",
        "straight e7",
        "minnow f2",
        "clownfish c7",
        "minnow h3",
        "straight c3",
        "turn-out f7",
        "end-shell c2",
        "jellyfish g2",
        "end-shell g3",
        "bubbles c6",
        "shark h5",
        "turn-out f8",
        "starfish b3",
        "jellyfish b7",
        "pufferfish a3",
        "minnow g1",
        "shark d8",
        "bubbles g7",
        "straight c5",
        "straight b5",
        "bubbles b2",
        "bubbles h2",
        "seahorse h6",
        "butterflyfish g6",
        "straight d3",
        "end-shell d2",
        "bubbles g8",
        "straight f5",
        "end a5",
        "butterflyfish c8",
        "straight e3",
        "end e2",
        "anglerfish h7",
        "bubbles a6",
    ],
    "hands": [["turn-in", "turn-out", "straight"], ["turn-in", "end", "moray"]],
    "pile": [
        "pufferfish",
        "end",
        "bubbles",
        "straight",
        "clownfish",
        "moray",
        "turn-in",
        "straight",
        "starfish",
        "straight",
        "turn-out",
    ],
    "scores": [27, 39],
    "passed": [True, False],
    "to_move": 1,
}


def test_otp_resample_keeps_a_placement_for_the_seat_asked_to_move() -> None:
    """OTP-19: a player with no legal placement passes automatically, so a seat asked to act
    in MAIN holds a placeable tile, and every seat sees that it is asked. A re-deal from
    another seat's view must keep that (the true state has 15 placements; ~5% of re-deals
    leave only ``pass``)."""
    game = OttoOctopusGame(num_players=2)
    state = game.new_initial_state(np.random.default_rng(0), {"position": _OTP_LATE})
    assert state.current_player() == 1 and state.legal_mask().sum() > 1
    rng = np.random.default_rng(0)
    bad = 0
    for _ in range(600):
        other = game.resample_hidden(state, 0, rng)
        bad += int(other.legal_mask().sum()) == 1  # only `pass` left
    assert bad == 0, f"{bad}/600 re-deals leave player_1 in MAIN with no placement"


# ------------------------------------------------------------------------- OTTO Game Over
@pytest.mark.parametrize("params", [{"num_players": 2}, {"num_players": 4, "teams": True}])
def test_ogo_setup_deal(params: dict) -> None:
    """§2.2-2.5: the cards are one uniform shuffle (each seat's card and the deck top in
    proportion to the 33 cards); table tiles are never dark (§2.4) and otherwise uniform over
    the 8 designs; the dark tiles lie at uniform places of the tower; the first player is the
    §2.5 rule (highest table tile, then lowest seat), never a draw."""
    game = OttoGameOverGame(**params)
    n = game.num_players
    deck = np.bincount(DECK, minlength=9)
    tables, cards, deck_top = np.zeros((n, 9)), np.zeros((n, 9)), np.zeros(9)
    dark_at = None
    for seed in range(5000):
        state = game.new_initial_state(np.random.default_rng(seed))
        want = max(range(n), key=lambda q: (TILE_VALUE[state.tables[q]], -q))
        assert state.current_player() == want
        for p in range(n):
            tables[p, state.tables[p]] += 1
            assert len(state.hands[p]) == 1
            cards[p, state.hands[p][0]] += 1
        deck_top[state.deck[-1]] += 1
        if dark_at is None:
            dark_at = np.zeros(len(state.tower))
        assert len(state.tower) == len(dark_at) and state.tower.count(DARK) == 4
        dark_at[[i for i, t in enumerate(state.tower) if t == DARK]] += 1
    for p in range(n):
        _assert_fits(tables[p], [1] * 8 + [0], f"§2.4 table tile of seat {p}")
        _assert_fits(cards[p], deck, f"§2.4 card of seat {p}")
    _assert_fits(deck_top, deck, "§2.2 deck top")
    _assert_uniform(dark_at, "§2.3 dark tiles' places in the tower")


def test_ogo_neighbouring_seeds_are_independent() -> None:
    """reset(seed=s) and s+1 shuffle independently: seat 0's table tile and card agree across
    neighbouring seeds only as often as chance gives."""
    game = OttoGameOverGame(num_players=2)
    deals = [game.new_initial_state(np.random.default_rng(seed)) for seed in range(4001)]
    pairs = list(zip(deals, deals[1:], strict=False))
    same_table = sum(a.tables[0] == b.tables[0] for a, b in pairs)
    same_card = sum(a.hands[0] == b.hands[0] for a, b in pairs)
    deck = np.bincount(DECK, minlength=9) / len(DECK)
    _assert_rate(same_table, len(pairs), 1 / 8, "neighbouring seeds, same table tile")
    _assert_rate(same_card, len(pairs), float((deck**2).sum()), "neighbouring seeds, same card")


def test_ogo_kidnapped_card_is_uniform() -> None:
    """OGO-42: Alien Kidnapping takes one of the victim's cards uniformly at random."""
    env = otto_game_over_v0.raw_env(num_players=2)
    pos = {"hands": [["alien-kidnapping"], ["time-travel", "meteorite", "infinity"]], "tables": ["A4", "B7"]}
    left = collections.Counter()
    for seed in range(3000):
        env.reset(seed=seed, options={"position": pos})
        u = env.unwrapped
        env.step(u.string_to_action("card alien-kidnapping player_1"))
        left[tuple(u.state.hands[1])] += 1
    assert len(left) == 3
    _assert_uniform(list(left.values()), "OGO-42 kidnapped card")


def test_ogo_loaded_tower_rest_is_shuffled_uniformly() -> None:
    """Position schema ``tower_rest``: the rest of the set is shuffled in below the listed
    tower; its places hold each kind in proportion to that rest."""
    game = OttoGameOverGame(num_players=2)
    pos = {"tables": ["A4", "B7"], "tower": ["DARK", "DARK"], "hands": [["meteorite"], []], "phase": "card"}
    rest = np.array([4, 3, 3, 4, 4, 4, 4, 4, 2])  # the set less the tables A4, B7 and two DARK
    third, bottom = np.zeros(9), np.zeros(9)
    for seed in range(4000):
        state = game.new_initial_state(np.random.default_rng(seed), {"position": pos})
        assert state.tower[-2:] == [DARK, DARK] and len(state.tower) == 2 + rest.sum()
        third[state.tower[-3]] += 1
        bottom[state.tower[0]] += 1
    _assert_fits(third, rest, "tower_rest, the place below the listed tiles")
    _assert_fits(bottom, rest, "tower_rest, the bottom")


def test_ogo_next_match_reshuffles_the_tower_but_not_the_deck() -> None:
    """§2.2: the cards are never reshuffled: a new match deals from the deck's top in seat
    order; §2.3: the tower is shuffled afresh each match (dark tiles at uniform places)."""
    game = OttoGameOverGame(num_players=2)
    dark_at = np.zeros(40)
    matches = 0
    for seed in range(300):
        state = game.new_initial_state(np.random.default_rng(seed))
        moves = np.random.default_rng(seed + 7)
        while state.matches == 0 and not state.is_terminal():
            deck = list(state.deck)
            _random_moves(state, moves, 1)
        if state.matches != 1 or state.is_terminal() or state.tiebreak:
            continue
        dealt = len(deck) - len(state.deck)
        assert state.deck == deck[: len(state.deck)] and 0 <= dealt <= 2
        towers = len(state.tower) + (state.drawn >= 0)
        tower = state.tower + ([state.drawn] if state.drawn >= 0 else [])
        assert towers == 34
        dark_at[[i for i, t in enumerate(tower) if t == DARK]] += 1
        matches += 1
    assert matches > 200
    _assert_uniform(dark_at[:34], "§2.3 match-2 dark tiles' places in the tower")


def test_ogo_resample_is_the_conditional_deal() -> None:
    """resample_hidden (doc page): the tower is a uniform order of its (public) contents; the
    other players' cards and the deck are a uniform deal of the cards the seat cannot see."""
    game = OttoGameOverGame(num_players=3)
    state = _random_moves(game.new_initial_state(np.random.default_rng(4)), np.random.default_rng(1), 1)
    seat, opp = 0, 1
    unseen = list(np.bincount(list(state.deck) + state.hands[1] + state.hands[2], minlength=9))
    tower = np.bincount(state.tower, minlength=9)
    rng = np.random.default_rng(9)
    hands, tops, decks = collections.Counter(), np.zeros(9), np.zeros(9)
    for _ in range(4000):
        other = game.resample_hidden(state, seat, rng)
        assert other.hands[seat] == state.hands[seat]
        hands[tuple(int(x) for x in np.bincount(other.hands[opp], minlength=9))] += 1
        tops[other.tower[-1]] += 1
        decks[other.deck[-1]] += 1
    _assert_hypergeometric(hands, unseen, len(state.hands[opp]), "re-dealt opponent cards")
    _assert_fits(tops, tower, "re-dealt tower top")
    _assert_fits(decks, unseen, "re-dealt deck top")


# ------------------------------------------------------------------------------- controls
def _naive_shuffle(items: Sequence[int], rng: np.random.Generator) -> tuple[int, ...]:
    """The classic biased shuffle: swap each place with any place (n^n paths)."""
    out = list(items)
    for i in range(len(out)):
        j = int(rng.integers(len(out)))
        out[i], out[j] = out[j], out[i]
    return tuple(out)


def _control_cases() -> dict[str, Callable[[], None]]:
    rng = np.random.default_rng(2026)

    def biased_dealer() -> None:  # seat 0 chosen 30% of the time instead of 25%
        draws = rng.choice(4, size=4000, p=[0.30, 0.2333, 0.2333, 0.2334])
        _assert_uniform(np.bincount(draws, minlength=4), "planted dealer")

    def naive_tiptop_shuffle() -> None:
        orders = collections.Counter(_naive_shuffle(TIPTOP_VALUES, rng) for _ in range(12000))
        _assert_uniform([orders[p] for p in itertools.permutations(TIPTOP_VALUES)], "planted shuffle")

    def seahorse_off_by_one() -> None:  # integers(len(pile)): never on top
        where = collections.Counter(int(rng.integers(5)) for _ in range(3000))
        _assert_uniform([where[k] for k in range(6)], "planted insertion")

    def first_card_kidnapped() -> None:
        _assert_uniform([3000, 0, 0], "planted kidnap")

    def correlated_seeds() -> None:  # the next seed repeats the dealer 5 points too often
        same = int((rng.random(8000) < 0.30).sum())
        _assert_rate(same, 8000, 0.25, "planted seed correlation")

    def wrong_pool_redeal() -> None:  # opponent's hand drawn with the seat's own cards left in
        unseen = [3, 3, 3, 3]
        own = [2, 0, 0, 0]
        pool = np.repeat(np.arange(4), np.add(unseen, own))
        hands = collections.Counter(
            tuple(int(x) for x in np.bincount(rng.permutation(pool)[:3], minlength=4)) for _ in range(5000)
        )
        _assert_hypergeometric(hands, unseen, 3, "planted re-deal")

    return {
        "biased_dealer": biased_dealer,
        "naive_tiptop_shuffle": naive_tiptop_shuffle,
        "seahorse_off_by_one": seahorse_off_by_one,
        "first_card_kidnapped": first_card_kidnapped,
        "correlated_seeds": correlated_seeds,
        "wrong_pool_redeal": wrong_pool_redeal,
    }


@pytest.mark.parametrize("case", sorted(_control_cases()))
def test_controls_detect_planted_biases(case: str) -> None:
    """The statistics above fail (p < 1e-6) on deliberately biased samplers of the same
    events: a biased dealer, the naive swap shuffle, an off-by-one insertion, a kidnap that
    always takes the first card, correlated neighbouring seeds, a re-deal from the wrong pool."""
    with pytest.raises(AssertionError):
        _control_cases()[case]()
