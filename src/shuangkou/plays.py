"""Plays, readings and legal-play generation (RULES.md R2–R5).

A :class:`Play` is the cards taken from a hand (a :class:`~shuangkou.cards.Hand`) plus their
reading (kind, top rank, width, length, stars, wilds used), packed like the kernel packs it:
``Play`` is the kernel's final extension type ``shuangkou._core.Play``, two C ints
``(cards word, tag)``, so that the kernel builds them without Python-level work.

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
from typing import Literal

from ._core import Play as Play
from .cards import Hand, check_text, quote
from .errors import IllegalPlayError, NotationError
from .rules import Rules, as_rules


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


def parse_play(text: str, rules: Rules | str) -> Play:
    """:meth:`Play.parse`: read a card list under ``rules``; ``"… /straight"`` picks one of two
    plain readings. Raises :class:`IllegalPlayError` if the cards are no valid play, or are two
    plays and no kind was given."""
    rules = as_rules(rules)
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


def _play_from_codes(cards: int, tag: int) -> Play:
    """Unpickle a play."""
    return Play._from_codes(cards, tag)


PASS = Play.PASS


# -- the public functions ------------------------------------------------------------------
def _as_hand(cards: Hand | str, what: str = "hand") -> Hand:
    """A Hand, or card text parsed (R1); anything else refused naming the argument ``what``
    (a list of tokens is not read: one way to write cards)."""
    if isinstance(cards, Hand):
        return cards
    if not isinstance(cards, str):
        raise NotationError(
            f"{what} must be a Hand or card text such as '3 3 4 BJ', not {type(cards).__name__}"
            + (" (join the tokens with spaces)" if isinstance(cards, (list, tuple)) else "")
        )
    return Hand.parse(cards)


def _table_tag(table: Play | str | None, rules: Rules) -> int:
    """The tag of a table play given as a Play, card text or None (leading): the one check of
    a table for every entry point taking one. A Play must be a reading its cards have under
    ``rules`` (R3): a hand-built or unpickled play that is not would make the generators and
    :meth:`Play.beats` disagree."""
    if table is None:
        return NO_TABLE
    if isinstance(table, str):
        return Play.parse(table, rules).tag
    if not isinstance(table, Play):
        raise TypeError(f"table must be a Play, card text or None, not {type(table).__name__}")
    if table and not table._reads_under(rules.flags):
        try:
            what = table.describe()
        except IndexError:  # a forged tag whose kind or ranks are out of range
            what = f"tag {table.tag:#x}"
        raise IllegalPlayError(
            f"table {table.cards} does not read as {what} under {rules.name} (R3)")
    return table.tag


def classify(cards: Hand | str, rules: Rules | str) -> list[Play]:
    """Every reading of a card set under ``rules`` (R3): one play usually; two for a 千变 set
    that reads as two plain kinds; none if the cards are no valid play."""
    hand = _as_hand(cards, "cards")
    tags = backend.classify(hand.packed, as_rules(rules).flags)
    return [Play._from_codes(hand.packed, tag) for tag in tags]


WildsMode = Literal["all", "fewest"]


def _fewest(wilds: str) -> bool:
    if wilds not in ("all", "fewest"):
        raise ValueError(f"wilds must be 'all' or 'fewest', not {wilds!r}")
    return wilds == "fewest"


def legal_plays(
    hand: Hand | str,
    rules: Rules | str,
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
    rules = as_rules(rules)
    plays: list[Play] = backend.generate_plays(
        h.packed, rules.flags, _table_tag(table, rules), _fewest(wilds), Play
    )
    return plays


if backend.__name__ == "shuangkou._core":
    # The same contract in one C-level call (the hot path of servers and Python bots: the
    # table checked once, the list built in one loop); the function above runs the reference.
    legal_plays = backend.legal_plays  # noqa: F811


def count_plays(
    hand: Hand | str,
    rules: Rules | str,
    table: Play | str | None = None,
    wilds: WildsMode = "all",
) -> int:
    """``len(legal_plays(...))`` without building any object."""
    h = _as_hand(hand)
    rules = as_rules(rules)
    return int(backend.count(h.packed, rules.flags, _table_tag(table, rules), _fewest(wilds)))


def plays_from_codes(words: Sequence[int], tags: Sequence[int]) -> list[Play]:
    """Plays from kernel output arrays (e.g. from :mod:`shuangkou.batch`)."""
    return [Play._from_codes(int(c), int(t)) for c, t in zip(words, tags)]
