"""Plays, readings and legal-play generation (RULES.md R2–R5).

A :class:`Play` is the cards taken from a hand (a :class:`~shuangkou.cards.Hand`) plus their
reading (kind, top rank, width, length, stars, wilds used), packed like the kernel packs it:
``Play`` objects are thin views of two C ints, ``(cards word, tag)``, held by the kernel's
``PlayCodes`` base class so that the kernel builds them without Python-level work.

The work is done by a backend with four functions (``classify``, ``generate``, ``count``,
``beats`` — see docs/internals.md): the Cython kernel ``shuangkou._core``, or, when the
environment variable ``SHUANGKOU_BACKEND=reference`` is set, the slow pure-Python oracle
``shuangkou._reference`` (the test-suite runs the API against both).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from enum import IntEnum
from types import ModuleType
from typing import ClassVar, Literal

from ._core import PlayCodes, new_play
from .cards import RANK_SYMBOLS, Hand, Rank, check_text, quote
from .errors import IllegalPlayError, NotationError
from .rules import Rules


def _load_backend() -> ModuleType:
    name = os.environ.get("SHUANGKOU_BACKEND", "core")
    if name == "reference":
        from . import _reference

        return _reference
    if name != "core":
        raise ImportError(f"SHUANGKOU_BACKEND must be 'core' or 'reference', not {name!r}")
    from . import _core

    return _core


backend: ModuleType = _load_backend()


class Kind(IntEnum):
    """Play types (R2). The first six are plain kinds, the last four bomb kinds."""

    SINGLE = 0
    PAIR = 1
    TRIPLE = 2
    STRAIGHT = 3
    PAIR_CHAIN = 4
    TRIPLE_CHAIN = 5
    BOMB = 6
    THREE_JOKERS = 7
    FOUR_JOKERS = 8
    CHAIN_BOMB = 9

    @property
    def is_bomb(self) -> bool:
        return self >= Kind.BOMB

    @property
    def is_sequence(self) -> bool:
        return Kind.STRAIGHT <= self <= Kind.TRIPLE_CHAIN


# -- the tag: a reading packed in 31 bits (docs/internals.md) -----------------------------------
NO_TABLE = 0
"""The tag passed to the kernel when leading (no real play has tag 0: width ≥ 1)."""


def pack_tag(
    kind: int, top: int, width: int, length: int, stars: int, size: int, wilds: int
) -> int:
    """Pack a reading into the kernel's 31-bit tag."""
    return (
        kind | top << 4 | width << 8 | length << 13 | stars << 17 | size << 22 | wilds << 28
    )


def unpack_tag(tag: int) -> tuple[int, int, int, int, int, int, int]:
    """``(kind, top, width, length, stars, size, wilds)`` of a tag."""
    return (
        tag & 15, tag >> 4 & 15, tag >> 8 & 31, tag >> 13 & 15, tag >> 17 & 31,
        tag >> 22 & 63, tag >> 28 & 7,
    )


class Play(PlayCodes):
    """A legal play: the cards taken plus their reading (R3). Immutable and hashable.

    * ``cards`` – a :class:`Hand` (jokers counted as the physical SJ/BJ they are);
    * ``kind`` – :class:`Kind`; ``top`` – the :class:`Rank` it compares by (R4);
    * ``size`` – number of cards; ``width`` – cards per rank (X of a bomb, the smallest group
      of a chain bomb); ``length`` – ranks in a sequence or chain bomb (Y), else 1;
    * ``stars`` – star level of a bomb (R5), 0 for plain plays and in classic;
    * ``wilds`` – cards standing for another rank.

    ``str`` is the canonical card list (plus ``/kind`` when a 千变 set of three or more wilds
    could read as another plain kind); ``Play.parse(str(p), rules) == p``. :data:`Play.PASS`
    is the falsy pass.
    """

    __slots__ = ()
    PASS: ClassVar[Play]

    def __new__(
        cls,
        cards: Hand | str,
        kind: Kind,
        top: int,
        width: int,
        length: int,
        stars: int,
        wilds: int,
    ) -> Play:
        hand = Hand.parse(cards) if isinstance(cards, str) else cards
        tag = pack_tag(int(kind), int(top), width, length, stars, len(hand), wilds)
        return cls._from_codes(hand.packed, tag)

    @classmethod
    def _from_codes(cls, cards: int, tag: int) -> Play:
        play: Play = new_play(cls, cards, tag)
        return play

    def __reduce__(self) -> tuple[object, tuple[int, int]]:
        return (_play_from_codes, (self.packed, self.tag))

    @classmethod
    def parse(cls, text: str, rules: Rules) -> Play:
        """Read a card list under ``rules``; ``"… /straight"`` picks one of two plain readings.

        Raises :class:`IllegalPlayError` if the cards are no valid play, or are two plays and
        no kind was given."""
        text = check_text(text, "play notation")
        if text.strip().lower() == "pass":
            return PASS
        kind: Kind | None = None
        if "/" in text:
            # one split, no backtracking regex: linear in the input whatever its shape
            text, _, suffix = text.rpartition("/")
            try:
                kind = Kind[suffix.strip().upper()]
            except KeyError:
                raise NotationError(f"unknown play kind {quote(suffix.strip())}") from None
        readings = classify(text, rules)
        if kind is not None:
            readings = [p for p in readings if p.kind == kind]
        if not readings:
            raise IllegalPlayError(f"{quote(text.strip())} is not a valid play under {rules.name}")
        if len(readings) > 1:
            kinds = " or ".join(f"/{p.kind.name.lower()}" for p in readings)
            raise IllegalPlayError(f"{quote(text.strip())} reads as two plays: add {kinds}")
        return readings[0]

    # -- fields ----------------------------------------------------------------------------
    @property
    def cards(self) -> Hand:
        return Hand._from_packed_unchecked(self.packed)

    @property
    def kind(self) -> Kind:
        return Kind(self.tag & 15)

    @property
    def top(self) -> Rank:
        return Rank(self.tag >> 4 & 15)

    @property
    def width(self) -> int:
        return self.tag >> 8 & 31

    @property
    def length(self) -> int:
        return self.tag >> 13 & 15

    @property
    def stars(self) -> int:
        return self.tag >> 17 & 31

    @property
    def size(self) -> int:
        return self.tag >> 22 & 63

    @property
    def wilds(self) -> int:
        return self.tag >> 28 & 7

    @property
    def is_bomb(self) -> bool:
        return self.kind.is_bomb

    @property
    def reading(self) -> tuple[Kind, Rank, int, int, int]:
        """What the play *is*, whatever cards make it: (kind, top, size, width, length)."""
        return (self.kind, self.top, self.size, self.width, self.length)

    def beats(self, other: Play | None, rules: Rules) -> bool:
        """True if this play may be played on ``other`` (R4, R5); anything beats ``None``
        or a pass (a free lead)."""
        if not self:
            return False
        if not other:
            return True
        return bool(backend.beats(self.tag, other.tag, rules.flags))

    # -- value semantics -------------------------------------------------------------------
    def __bool__(self) -> bool:
        return self.tag != NO_TABLE

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Play) and (self.packed, self.tag) == (other.packed, other.tag)

    def __hash__(self) -> int:
        return hash((self.packed, self.tag))

    def sort_key(self) -> tuple[int, ...]:
        """Total order for deterministic listings: kind, size, length, top, width, wilds,
        then the cards."""
        return (
            self.tag & 15, self.size, self.length, self.tag >> 4 & 15, self.width,
            self.wilds, *self.cards.counts,
        )

    def __lt__(self, other: Play) -> bool:
        return self.sort_key() < other.sort_key()

    def __str__(self) -> str:
        if not self:
            return "pass"
        text = str(self.cards)
        if self.wilds >= 3 and not self.is_bomb:
            text += "/" + self.kind.name.lower()
        return text

    def __repr__(self) -> str:
        if not self:
            return "Play.PASS"
        return (
            f"Play({str(self.cards)!r}, Kind.{self.kind.name}, top=Rank.{self.top.name}, "
            f"width={self.width}, length={self.length}, stars={self.stars}, wilds={self.wilds})"
        )

    def describe(self) -> str:
        """Human text: ``'straight 4..9 (6 cards)'``, ``'bomb 77777 (5★)'``."""
        if not self:
            return "pass"
        top = RANK_SYMBOLS[self.top]
        kind = self.kind.name.lower().replace("_", " ")
        if self.kind.is_sequence or self.kind == Kind.CHAIN_BOMB:
            low = RANK_SYMBOLS[self.top - self.length + 1]
            desc = f"{kind} {low}..{top}"
            if self.kind == Kind.CHAIN_BOMB:
                desc = f"{self.width}相{self.length}连 {desc}"
        elif self.kind == Kind.BOMB:
            desc = f"bomb {top * self.width}"
        elif self.kind in (Kind.THREE_JOKERS, Kind.FOUR_JOKERS):
            desc = "三王" if self.kind == Kind.THREE_JOKERS else "天王"
        else:
            desc = f"{kind} of {top}"
        stars = f", {self.stars}★" if self.stars else ""
        cards = "1 card" if self.size == 1 else f"{self.size} cards"
        return f"{desc} ({cards}{stars})"


def _play_from_codes(cards: int, tag: int) -> Play:
    """Unpickle a play."""
    return Play._from_codes(cards, tag)


PASS = Play._from_codes(0, NO_TABLE)
Play.PASS = PASS


# -- the public functions ------------------------------------------------------------------
def _as_hand(cards: Hand | str) -> Hand:
    return cards if isinstance(cards, Hand) else Hand.parse(cards)


def _table_tag(table: Play | str | None, rules: Rules) -> int:
    if table is None:
        return NO_TABLE
    if isinstance(table, str):
        table = Play.parse(table, rules)
    if not isinstance(table, Play):
        raise TypeError(f"table must be a Play, card text or None, not {type(table).__name__}")
    return table.tag


def classify(cards: Hand | str, rules: Rules) -> list[Play]:
    """Every reading of a card set under ``rules`` (R3): one play usually; two for a 千变 set
    that reads as two plain kinds; none if the cards are no valid play."""
    hand = _as_hand(cards)
    tags = backend.classify(hand.packed, rules.flags)
    return [Play._from_codes(hand.packed, tag) for tag in tags]


WildsMode = Literal["all", "fewest"]


def _fewest(wilds: str) -> bool:
    if wilds not in ("all", "fewest"):
        raise ValueError(f"wilds must be 'all' or 'fewest', not {wilds!r}")
    return wilds == "fewest"


def legal_plays(
    hand: Hand | str,
    rules: Rules,
    table: Play | str | None = None,
    wilds: WildsMode = "all",
) -> list[Play]:
    """Every legal play of ``hand``: all of them when leading (``table=None``), else those that
    beat ``table`` (passing is always allowed and not listed).

    ``wilds="all"`` lists every distinct way of taking cards (R3: ``5 5`` and ``5 BJ`` are two
    plays); ``wilds="fewest"`` keeps one play per reading, the one using the fewest wild cards
    (small jokers before big ones).
    """
    h = _as_hand(hand)
    plays: list[Play] = backend.generate_plays(
        h.packed, rules.flags, _table_tag(table, rules), _fewest(wilds), Play
    )
    return plays


def count_plays(
    hand: Hand | str,
    rules: Rules,
    table: Play | str | None = None,
    wilds: WildsMode = "all",
) -> int:
    """``len(legal_plays(...))`` without building any object."""
    h = _as_hand(hand)
    return int(backend.count(h.packed, rules.flags, _table_tag(table, rules), _fewest(wilds)))


def plays_from_codes(words: Sequence[int], tags: Sequence[int]) -> list[Play]:
    """Plays from kernel output arrays (e.g. from :mod:`shuangkou.batch`)."""
    return [Play._from_codes(int(c), int(t)) for c, t in zip(words, tags)]
