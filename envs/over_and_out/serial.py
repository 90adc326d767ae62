"""``State.to_dict`` / ``State.from_dict``: the full state as JSON-friendly data.

Cards are written as their tokens; piles list their top card last. ``from_dict``
checks every field and the game's invariants (OAO-44: every card and every Tip Top
card exactly once; hand size = chips) and raises ``ValueError`` for anything else.
Returns are not stored: they follow from the elimination order and the end flags.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from envs.core.config import config_to_dict
from envs.core.game import TERMINAL, rng_from_dict, rng_to_dict
from envs.over_and_out.cards import KIND_OF, NUM_KINDS, TIPTOP_VALUES, TOKENS
from envs.over_and_out.config import config_from_params

if TYPE_CHECKING:
    from envs.over_and_out.rules import State

KEYS = (
    "game",
    "config",
    "chips",
    "hands",
    "draw_pile",
    "play_pile",
    "tiptop_pile",
    "tiptop_discards",
    "tiptop",
    "total",
    "direction",
    "dealer",
    "round",
    "plays",
    "round_plays",
    "to_move",
    "out_order",
    "truncated",
    "rng",
)


def state_to_dict(s: State) -> dict[str, Any]:
    return {
        "game": "over_and_out",
        "config": config_to_dict(s.config),
        "chips": list(s.chips),
        "hands": [[TOKENS[k] for k in h] for h in s.hands],
        "draw_pile": [TOKENS[k] for k in s.draw_pile],
        "play_pile": {TOKENS[k]: c for k, c in enumerate(s.play_pile) if c},
        "tiptop_pile": list(s.tiptop_pile),
        "tiptop_discards": list(s.tiptop_discards),
        "tiptop": s.tiptop,
        "total": s.total,
        "direction": s.direction,
        "dealer": s.dealer,
        "round": s.round,
        "plays": s.plays,
        "round_plays": s.round_plays,
        "to_move": s.to_move,
        "out_order": list(s.out_order),
        "truncated": s.truncated,
        "rng": rng_to_dict(s.rng),
    }


def _int(name: str, v: Any, lo: int, hi: int) -> int:
    if type(v) is not int or not lo <= v <= hi:
        raise ValueError(f"state field {name} must be an int in [{lo}, {hi}], got {v!r}")
    return v


def _list(name: str, v: Any, length: int | None = None) -> list[Any]:
    if not isinstance(v, list) or (length is not None and len(v) != length):
        size = "" if length is None else f" of length {length}"
        raise ValueError(f"state field {name} must be a list{size}, got {v!r}")
    return v


def _cards(name: str, v: Any) -> list[int]:
    out = []
    for t in _list(name, v):
        if not isinstance(t, str) or t not in KIND_OF:
            raise ValueError(f"state field {name} holds {t!r}, not a card token of {list(TOKENS)}")
        out.append(KIND_OF[t])
    return out


def _play_pile(v: Any) -> list[int]:
    if not isinstance(v, Mapping):
        raise ValueError(f"state field play_pile must be a dict token -> count, got {v!r}")
    counts = [0] * NUM_KINDS
    for t, c in v.items():
        if t not in KIND_OF:
            raise ValueError(f"state field play_pile has unknown card token {t!r}")
        counts[KIND_OF[t]] = _int(f"play_pile[{t!r}]", c, 0, 10**6)
    return counts


def _tiptops(d: Mapping[str, Any]) -> tuple[list[int], list[int], int]:
    pile = [_int("tiptop_pile[]", x, 0, 99) for x in _list("tiptop_pile", d["tiptop_pile"])]
    discards = [_int("tiptop_discards[]", x, 0, 99) for x in _list("tiptop_discards", d["tiptop_discards"])]
    limit = _int("tiptop", d["tiptop"], 0, 99)
    if sorted([*pile, *discards, limit]) != list(TIPTOP_VALUES):
        raise ValueError(f"the Tip Top pile, discards and L must be the cards {TIPTOP_VALUES} once each")
    return pile, sorted(discards), limit


def state_from_dict(cls: type[State], d: Mapping[str, Any]) -> State:
    if not isinstance(d, Mapping):
        raise ValueError(f"expected a dict from State.to_dict(), got {type(d).__name__}")
    missing = [k for k in KEYS if k not in d]
    extra = [k for k in d if k not in KEYS]
    if missing or extra:
        raise ValueError(f"malformed state dict: missing keys {missing}, unknown keys {extra}")
    if d["game"] != "over_and_out":
        raise ValueError(f"not an over_and_out state: game = {d['game']!r}")
    config = config_from_params(d["config"])
    try:
        rng = rng_from_dict(d["rng"])
    except ValueError:  # rng_from_dict's own message names the fault ("malformed rng state: ...")
        raise
    except Exception as exc:  # anything else numpy lets through
        raise ValueError(f"malformed rng state: {exc!r}") from exc
    s = cls(config, rng)
    _fill(s, d)
    _check(s)
    s._returns = _returns(s)
    s._returns_array = None
    return s


def _fill(s: State, d: Mapping[str, Any]) -> None:
    n, cfg = s.n, s.config
    s.chips = [_int("chips[]", c, 0, cfg.starting_chips) for c in _list("chips", d["chips"], n)]
    s.hands = [sorted(_cards("hands[]", h)) for h in _list("hands", d["hands"], n)]
    s.draw_pile = _cards("draw_pile", d["draw_pile"])
    s.play_pile = _play_pile(d["play_pile"])
    s.tiptop_pile, s.tiptop_discards, s.tiptop = _tiptops(d)
    s.total = _int("total", d["total"], 0, max(TIPTOP_VALUES))
    if d["direction"] not in (1, -1) or type(d["direction"]) is not int:
        raise ValueError(f"state field direction must be 1 or -1, got {d['direction']!r}")
    s.direction = d["direction"]
    s.dealer = _int("dealer", d["dealer"], 0, n - 1)
    s.round = _int("round", d["round"], 1, 10**9)
    s.plays = _int("plays", d["plays"], 0, cfg.max_plays)
    s.round_plays = _int("round_plays", d["round_plays"], 0, s.plays)
    s.to_move = _int("to_move", d["to_move"], TERMINAL, n - 1)
    s.out_order = [_int("out_order[]", x, 0, n - 1) for x in _list("out_order", d["out_order"])]
    if not isinstance(d["truncated"], bool):
        raise ValueError(f"state field truncated must be true or false, got {d['truncated']!r}")
    s.truncated = d["truncated"]


def _check(s: State) -> None:
    """The cross-field invariants a reachable state satisfies."""
    counts = list(s.play_pile)
    for k in s.draw_pile:
        counts[k] += 1
    for h in s.hands:
        for k in h:
            counts[k] += 1
    if tuple(counts) != s.config.counts:
        raise ValueError("hands + draw pile + play pile do not make up the deck of deck_counts")
    active = s.active_seats()
    if sorted(s.out_order) != [x for x in range(s.n) if x not in active]:
        raise ValueError("out_order must list each seat without chips exactly once")
    if any(len(s.hands[x]) != s.chips[x] for x in active):
        raise ValueError("each active player's hand size must equal its chips")
    # The next deal empties an eliminated hand (OAO-35), so only the seat whose loss ended the
    # game can still hold a card: its last one, kept for the card count.
    last = s.out_order[-1] if s.to_move == TERMINAL and not s.truncated and s.out_order else None
    if any(len(s.hands[x]) > (1 if x == last else 0) for x in s.out_order):
        raise ValueError(
            "an eliminated player holds no cards, except its last card when its loss ended the game"
        )
    if s.to_move == TERMINAL:
        if s.truncated != (len(active) > 1):
            raise ValueError("a finished game has one player left, or is truncated with more")
        if s.truncated and s.plays < s.config.max_plays:
            raise ValueError("a truncated game has plays >= max_plays")
    else:
        if s.truncated or len(active) < 2 or s.plays >= s.config.max_plays:
            raise ValueError("a running game has two or more players left, plays < max_plays")
        if s.chips[s.to_move] == 0 or s.chips[s.dealer] == 0:
            raise ValueError("the player to move and the dealer must have chips")
        if s.total > s.tiptop:
            raise ValueError("a running round has total <= tiptop")


def _returns(s: State) -> list[float]:
    """Rewards paid so far, from the elimination order and the end flags (spec §5)."""
    n, placement = s.n, s.config.reward_mode == "placement"
    ret = [0.0] * n
    for j, seat in enumerate(s.out_order, start=1):
        ret[seat] = (2 * j - n - 1) / (n - 1) if placement else -1.0
    active = s.active_seats()
    if s.to_move == TERMINAL:
        if not s.truncated:
            ret[active[0]] = 1.0
        elif placement:
            for seat in active:
                ret[seat] = (n - len(active)) / (n - 1)
    return ret
