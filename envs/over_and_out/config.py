"""The parameters of Over and Out (spec §6), validated."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from envs.core.config import check_choice, check_int, plain_fields
from envs.over_and_out.cards import DEFAULT_DECK, KIND_OF, TOKENS

MINUS10_RULES = ("require_10", "lose_below_zero")
REWARD_MODES = ("placement", "winner_only")
#: a sanity cap on each deck count (spec: int >= 0) so a typo cannot exhaust memory; far above
#: any deck a test or an experiment needs
MAX_KIND_COUNT = 1_000_000


class DeckCounts(dict[str, int]):
    """``Config.deck_counts``: a dict (JSON, ``==`` and ``asdict`` treat it as one) that refuses
    to change, so the frozen ``Config`` stays frozen (its hash and cached ``counts`` with it)."""

    def _read_only(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("Config.deck_counts is read-only; build a new Config with other deck_counts")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _read_only

    def __reduce__(self) -> tuple[Any, ...]:  # pickle / copy: rebuilt from a plain dict
        return (type(self), (dict(self),))

    def __copy__(self) -> DeckCounts:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> DeckCounts:
        return self


def _check_deck_counts(value: object, min_total: int) -> dict[str, int]:
    """Validate ``deck_counts``; return it completed to every token, in action-space order."""
    if not isinstance(value, Mapping):
        raise ValueError(
            f"deck_counts must be a dict token -> count with tokens {list(TOKENS)}, got {value!r}"
        )
    for token, count in value.items():
        if token not in KIND_OF:
            raise ValueError(f"deck_counts has unknown card token {token!r}; allowed tokens: {list(TOKENS)}")
        check_int(f"deck_counts[{token!r}]", count, 0, MAX_KIND_COUNT)
    counts = {t: int(value.get(t, 0)) for t in TOKENS}
    total = sum(counts.values())
    if total < min_total:
        raise ValueError(
            f"deck_counts holds {total} cards but starting_chips * num_players = {min_total} must be dealt"
        )
    return counts


@dataclass(frozen=True)
class Config:
    """Parameters of one Over and Out game (spec §6)."""

    num_players: int = field(default=4, metadata={"help": "number of players N, 2..8"})
    deck_counts: dict[str, int] = field(
        default_factory=lambda: dict(DEFAULT_DECK),
        metadata={"help": "change-and-out deck: card token -> count (missing tokens count 0)"},
    )
    minus10_rule: str = field(
        default="require_10",
        metadata={"help": "'require_10' (-10 needs T >= 10) or 'lose_below_zero' (-10 below 10 loses)"},
    )
    reward_mode: str = field(
        default="placement", metadata={"help": "'placement' (zero-sum by finishing order) or 'winner_only'"}
    )
    max_plays: int = field(default=5000, metadata={"help": "truncation limit: plays over all rounds, >= 1"})
    first_dealer: int | None = field(
        default=None, metadata={"help": "dealer of round 1 (seat), or None for random from the reset seed"}
    )
    starting_chips: int = field(default=4, metadata={"help": "chips (= first hand size) per player, 1..4"})

    def __post_init__(self) -> None:
        plain_fields(self)
        check_int("num_players", self.num_players, 2, 8)
        check_int("starting_chips", self.starting_chips, 1, 4)
        counts = _check_deck_counts(self.deck_counts, self.starting_chips * self.num_players)
        object.__setattr__(self, "deck_counts", DeckCounts(counts))
        check_choice("minus10_rule", self.minus10_rule, MINUS10_RULES)
        check_choice("reward_mode", self.reward_mode, REWARD_MODES)
        check_int("max_plays", self.max_plays, 1)
        fd = self.first_dealer
        if fd is not None and (type(fd) is not int or not 0 <= fd < self.num_players):
            raise ValueError(
                f"first_dealer must be None or an int in [0, {self.num_players - 1}], got {fd!r}"
            )

    def __hash__(self) -> int:  # deck_counts is a dict: hash its items
        return hash(
            (
                self.num_players,
                tuple(self.deck_counts.items()),
                self.minus10_rule,
                self.reward_mode,
                self.max_plays,
                self.first_dealer,
                self.starting_chips,
            )
        )

    @cached_property
    def counts(self) -> tuple[int, ...]:
        """Deck count per kind, in action-space order."""
        return tuple(self.deck_counts[t] for t in TOKENS)

    @cached_property
    def inverse_counts(self) -> tuple[float, ...]:
        """1 / max(1, count) per kind, then 1 / deck size (the observation's scales; kept with
        the config, so a sweep over ``deck_counts`` keeps nothing once its games are gone)."""
        counts = self.counts
        return (*(1.0 / max(1, c) for c in counts), 1.0 / sum(counts))


def config_from_params(params: Any) -> Config:
    """A Config from a dict of parameters (``ValueError`` for anything malformed)."""
    from envs.core.config import make_config

    if not isinstance(params, Mapping):
        raise ValueError(f"config must be a dict of parameters, got {params!r}")
    try:
        return make_config(Config, params)
    except TypeError as exc:
        raise ValueError(f"malformed config: {exc}") from exc
