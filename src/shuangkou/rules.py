"""Rules objects: every option of RULES.md R3, R5, R6 and R8 as a field, and the four presets.

House rules are a preset with fields replaced::

    rules = Rules.preset("baibian").replace(base_score=10)
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Literal

from ._check import as_int
from .errors import ArgumentError

FirstLeader = Literal["revealed", "random"]
Scoring = Literal["classic", "baibian", "jj", "qianbian"]

# Bits of the kernel's rules word (see docs/internals.md). Fixed: the kernel cimports the same
# values from _readings.pxd; tests check that both agree.
FLAG_WILD_SJ = 1 << 0
FLAG_WILD_BJ = 1 << 1
FLAG_STARS = 1 << 2
FLAG_UNEVEN = 1 << 3
FLAG_MORE_CARDS_BIGGER = 1 << 4
FLAG_FOUR_JOKERS_SMALLEST = 1 << 5

_ALIASES = {
    "classic": "classic",
    "经典": "classic",
    "baibian": "baibian",
    "百变": "baibian",
    "huopin": "baibian",
    "火拼": "baibian",
    "jj": "jj",
    "qianbian": "qianbian",
    "千变": "qianbian",
}


@dataclass(frozen=True)
class Rules:
    """One rule set. Build it with :meth:`preset` (or :meth:`classic` …) and :meth:`replace`."""

    name: str
    """Preset name, or whatever a house-rules builder calls it."""
    wild_small_joker: bool
    """R3: small jokers are wild (千变)."""
    wild_big_joker: bool
    """R3: big jokers are wild (百变, JJ, 千变)."""
    star_bombs: bool
    """R2/R5: 三王 and chain bombs exist and bombs compare by stars; off = classic order."""
    uneven_chain_bombs: bool
    """R5: chain-bomb groups may differ in size (千变); X is then the smallest group."""
    more_cards_bigger: bool
    """R5.2: among bombs of equal stars, more cards is bigger (千变) instead of fewer."""
    four_jokers_smallest_7star: bool
    """R5.4: 天王 is the smallest 7★ bomb (千变) instead of the biggest."""
    partner_visible: bool
    """R6: 双明, each seat sees its partner's hand (JJ)."""
    first_leader: FirstLeader
    """R7: ``"revealed"`` card (明牌, with the partner swap) or ``"random"`` seat."""
    scoring: Scoring
    """R8: which scoring mode (R8.1 … R8.4)."""
    base_score: int = 1
    """R8: the unit every score is counted in."""
    four_jokers_multiplier: int = 5
    """R8.1: classic multiplier of a 天王 (one source says 4)."""
    jj_single_win: int = 3
    """R8.3: JJ 单扣 base (the project's choice; the source's table is missing); at most
    :data:`MAX_JJ_SINGLE_WIN`."""
    held_bombs_score: bool = False
    """R8.4: bombs still held at the end earn contributions (千变)."""
    score_cap: int | None = None
    """R8.4: each seat's result is clamped to ±cap units (千变: 300); ``None`` = no cap."""
    escape_penalty: int = 12
    """R8: units an abandoning seat loses."""

    def __post_init__(self) -> None:
        # Type-check every field once, here: the kernel packs the booleans into bits and the
        # scores into fixed-width ints, so `wild_big_joker=2` or `base_score=2.5` must fail at
        # construction, not corrupt a result (or raise inside a game's last play).
        if not isinstance(self.name, str) or not self.name or len(self.name) > 64:
            raise ArgumentError(f"name must be a non-empty str of ≤ 64 characters: {self.name!r}")
        for f in _BOOL_FIELDS:
            value = getattr(self, f)
            if type(value) is not bool:
                raise ArgumentError(f"{f} must be True or False, not {value!r}")
        if self.first_leader not in ("revealed", "random"):
            raise ArgumentError(
                f"first_leader must be 'revealed' or 'random', not {self.first_leader!r}"
            )
        if self.scoring not in ("classic", "baibian", "jj", "qianbian"):
            raise ArgumentError(f"unknown scoring mode {self.scoring!r}")
        if self.uneven_chain_bombs and not self.star_bombs:
            raise ArgumentError(
                "uneven_chain_bombs needs star_bombs (chain bombs exist only then)"
            )
        for f, lo, hi in _INT_FIELDS:
            _set(self, f, as_int(getattr(self, f), f, lo, hi))
        if self.score_cap is not None:
            _set(self, "score_cap", as_int(self.score_cap, "score_cap", 1, MAX_UNITS))

    # -- presets ---------------------------------------------------------------------------
    @classmethod
    def preset(cls, name: str) -> Rules:
        """One of ``classic``, ``baibian`` (百变/火拼), ``jj``, ``qianbian`` (千变)."""
        key = _ALIASES.get(name.strip().lower()) if isinstance(name, str) else None
        if key is None:
            raise ArgumentError(
                f"unknown preset {str(name)[:40]!r}; choose from classic, baibian, jj, qianbian"
            )
        return _preset(key)

    @classmethod
    def classic(cls) -> Rules:
        """经典双扣: no wilds, no stars, classic bomb order, R8.1 scoring."""
        return cls(
            name="classic", wild_small_joker=False, wild_big_joker=False, star_bombs=False,
            uneven_chain_bombs=False, more_cards_bigger=False, four_jokers_smallest_7star=False,
            partner_visible=False, first_leader="random", scoring="classic", escape_penalty=12,
        )

    @classmethod
    def baibian(cls) -> Rules:
        """百变双扣 (火拼): big jokers wild, star order, fewer cards bigger, R8.2 scoring."""
        return cls(
            name="baibian", wild_small_joker=False, wild_big_joker=True, star_bombs=True,
            uneven_chain_bombs=False, more_cards_bigger=False, four_jokers_smallest_7star=False,
            partner_visible=False, first_leader="revealed", scoring="baibian", escape_penalty=12,
        )

    @classmethod
    def jj(cls) -> Rules:
        """JJ双扣: as 百变 for plays, partner's hand visible, R8.3 cumulative multipliers."""
        return cls(
            name="jj", wild_small_joker=False, wild_big_joker=True, star_bombs=True,
            uneven_chain_bombs=False, more_cards_bigger=False, four_jokers_smallest_7star=False,
            partner_visible=True, first_leader="revealed", scoring="jj", escape_penalty=18,
        )

    @classmethod
    def qianbian(cls) -> Rules:
        """千变双扣: all jokers wild, uneven chain bombs, more cards bigger, 天王 smallest 7★,
        R8.4 scoring with held bombs and the 300 cap."""
        return cls(
            name="qianbian", wild_small_joker=True, wild_big_joker=True, star_bombs=True,
            uneven_chain_bombs=True, more_cards_bigger=True, four_jokers_smallest_7star=True,
            partner_visible=False, first_leader="revealed", scoring="qianbian",
            held_bombs_score=True, score_cap=300, escape_penalty=15,
        )

    def replace(self, **changes: object) -> Rules:
        """A copy with some fields changed (house rules); validated like any Rules."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    # -- kernel view -----------------------------------------------------------------------
    @cached_property
    def flags(self) -> int:
        """The kernel's rules word: the options that change readings and comparison (cached:
        every kernel call reads it)."""
        return (
            FLAG_WILD_SJ * self.wild_small_joker
            | FLAG_WILD_BJ * self.wild_big_joker
            | FLAG_STARS * self.star_bombs
            | FLAG_UNEVEN * self.uneven_chain_bombs
            | FLAG_MORE_CARDS_BIGGER * self.more_cards_bigger
            | FLAG_FOUR_JOKERS_SMALLEST * self.four_jokers_smallest_7star
        )

    @property
    def wild_ranks(self) -> tuple[int, ...]:
        """Rank indices of the wild cards (13 = SJ, 14 = BJ)."""
        return tuple(r for r, on in ((13, self.wild_small_joker), (14, self.wild_big_joker)) if on)

    def to_dict(self) -> dict[str, object]:
        """Plain dict of every field (for JSON state)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Rules:
        """Inverse of :meth:`to_dict`; unknown fields raise ``ValueError``."""
        if not isinstance(data, dict):
            raise ArgumentError(f"rules must be a JSON object, not {type(data).__name__}")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - names
        if unknown:
            shown = sorted(str(k)[:40] for k in unknown)[:5]
            raise ArgumentError(f"unknown rules fields: {shown}")
        missing = sorted(
            f.name for f in dataclasses.fields(cls)
            if f.name not in data and f.default is dataclasses.MISSING
        )
        if missing:
            raise ArgumentError(f"rules fields missing: {missing}")
        return cls(**data)  # type: ignore[arg-type]


PRESETS = ("classic", "baibian", "jj", "qianbian")


def _teaching_init(init: Callable[..., None]) -> Callable[..., None]:
    """The dataclass ``__init__`` with a call that does not fit its fields (``Rules("baibian")``,
    a user's first guess) refused by a TypeError that names the fix — :meth:`Rules.preset`,
    :meth:`Rules.replace` — besides what was missing or unexpected."""
    signature = inspect.signature(init)

    @functools.wraps(init)
    def __init__(self: Rules, *args: object, **kwargs: object) -> None:
        try:
            signature.bind(self, *args, **kwargs)
        except TypeError as e:
            named = args[0] if args else kwargs.get("name")
            preset = (_ALIASES.get(named.strip().lower()) if isinstance(named, str) else None)
            raise TypeError(
                f"Rules(...) builds rules from every field ({e}); for a preset write "
                f"Rules.preset({preset or 'baibian'!r}) (one of {', '.join(PRESETS)}), for "
                f"house rules Rules.preset({preset or 'baibian'!r}).replace(base_score=10)"
            ) from None
        init(self, *args, **kwargs)

    return __init__


Rules.__init__ = _teaching_init(Rules.__init__)  # type: ignore[method-assign]

MAX_BASE_SCORE = 1_000_000
"""Largest ``base_score``: scores are units × base score, and the kernel keeps them in 64-bit
ints; the bound leaves room for any deal's units."""
MAX_UNITS = 1_000_000
"""Largest unit count of a rules number (penalty, 天王 multiplier, cap; JJ's single-win base
has its own, :data:`MAX_JJ_SINGLE_WIN`)."""

MAX_JJ_SINGLE_WIN = 10
"""Largest ``jj_single_win``: R8.3's multipliers multiply over every bomb a deal plays, and the
kernel keeps a seat's units in a 32-bit int. The product is at most 4^13 × 3 = 201,326,592, a
loose bound: a ×4 bomb takes at least 8 cards, a ×3 one 7 and a ×2 one 6 (wilds among them),
but for 天王 (the four jokers, ×3) and 三王 (three, ×2), so no deal multiplies more than the
104 natural cards in ×4 bombs with 天王. 10 × that fits (2,013,265,920). (A base of a million
had scored a JJ 单扣 after twelve 8★ bombs as 1,073,741,824 units, not 16,777,216,000,000.)"""

_BOOL_FIELDS = (
    "wild_small_joker", "wild_big_joker", "star_bombs", "uneven_chain_bombs",
    "more_cards_bigger", "four_jokers_smallest_7star", "partner_visible", "held_bombs_score",
)
_INT_FIELDS = (
    ("base_score", 1, MAX_BASE_SCORE),
    ("four_jokers_multiplier", 1, MAX_UNITS),
    ("jj_single_win", 0, MAX_JJ_SINGLE_WIN),
    ("escape_penalty", 0, MAX_UNITS),
)


@cache
def _preset(key: str) -> Rules:
    """One instance per preset (Rules is immutable): ``Rules.preset`` is on hot paths such as
    ``State.deal("baibian", seed)``."""
    preset: Rules = getattr(Rules, key)()
    return preset


def _set(rules: Rules, name: str, value: object) -> None:
    """Store a normalised field value on the frozen dataclass (``numpy.int64(2)`` → ``2``)."""
    object.__setattr__(rules, name, value)


def as_rules(rules: Rules | str) -> Rules:
    """A :class:`Rules` as given, or the preset it names (for APIs taking either)."""
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return Rules.preset(rules)
    raise TypeError(f"rules must be a Rules or a preset name, not {type(rules).__name__}")
