"""Cards, ranks and notation (RULES.md R1).

Two layers:

* **Ranks.** All rule logic works on rank multisets: :class:`Hand` is an immutable multiset of
  the 15 ranks, packed into one int of 4-bit counts (rank ``r`` at bits ``4r..4r+3``), the same
  word the Cython kernel uses.
* **Physical cards.** A game server must know which card left which hand, so each of the 108
  cards has an id ``0..107``: ids ``0..103`` are ``deck * 52 + rank * 4 + suit`` (suits
  ``s h c d``), ``104, 105`` are the small jokers and ``106, 107`` the big jokers. Two copies
  of one rank and suit differ only by deck.

Notation: ranks ``3``…``9``, ``10``/``T``, ``J Q K A 2``, ``SJ``/``X`` (small joker),
``BJ``/``D`` (big joker), case-insensitive, separated by spaces, ``+`` or ``,`` or glued
(``"334455"``). Physical cards add a suit letter (``s h c d`` or ``♠ ♥ ♣ ♦``), jokers none, and
must be separated. Formatting is canonical: ranks by strength, ``10`` for ten, ``SJ``/``BJ``
for jokers, one space between cards.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from enum import IntEnum
from typing import SupportsIndex

from ._check import as_int
from .errors import NotationError

N_RANKS = 15
N_CARDS = 108
HAND_SIZE = 27


class Rank(IntEnum):
    """The 15 ranks in strength order (R1): the value is the rank index used everywhere."""

    THREE = 0
    FOUR = 1
    FIVE = 2
    SIX = 3
    SEVEN = 4
    EIGHT = 5
    NINE = 6
    TEN = 7
    JACK = 8
    QUEEN = 9
    KING = 10
    ACE = 11
    TWO = 12
    SMALL_JOKER = 13
    BIG_JOKER = 14

    @property
    def symbol(self) -> str:
        """Canonical notation of the rank: ``3``…``10``, ``J Q K A 2``, ``SJ``, ``BJ``."""
        return RANK_SYMBOLS[self]

    @property
    def is_joker(self) -> bool:
        return self >= Rank.SMALL_JOKER

    def __str__(self) -> str:
        return RANK_SYMBOLS[self]


RANK_SYMBOLS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "SJ", "BJ")
SUITS = "shcd"
_SUIT_ALIASES = {"s": 0, "h": 1, "c": 2, "d": 3, "♠": 0, "♥": 1, "♣": 2, "♦": 3}
MAX_COPIES = (8,) * 13 + (2, 2)
"""How many cards of each rank the 108-card deck holds (R1)."""

_RANK_TOKENS = {sym: Rank(i) for i, sym in enumerate(RANK_SYMBOLS)}
_RANK_TOKENS.update({"T": Rank.TEN, "X": Rank.SMALL_JOKER, "D": Rank.BIG_JOKER})
# ASCII-only matching: under Unicode case folding the Kelvin sign would match "K" and the long
# s "S", and then miss the token table. Longest alternatives first so "10", "SJ" and "BJ" win
# over one-character readings.
_RANK_RE = re.compile(r"10|SJ|BJ|[3-9TJQKA2XD]", re.IGNORECASE | re.ASCII)
_SEPARATORS = re.compile(r"[\s,+]+")
# A separated token that is a natural card with its suit ("3d", "Th", "10♦"): in rank notation
# it is that card's rank. Read glued, "3d" would be "3 D" = a 3 and a big joker (R1's clash).
_CARD_TOKEN_RE = re.compile(r"^(10|[3-9TJQKA2])([shcd♠♥♣♦])$", re.IGNORECASE | re.ASCII)

MAX_TEXT = 2048
"""Longest card text the parsers read (the full 108-card deck in the longest notation is
under 500 characters): longer input is rejected before any tokenizing."""


def quote(text: str, limit: int = 40) -> str:
    """``repr`` of (the start of) user text for an error message, at most ``limit`` chars of
    it: a 1 MB input must not make a 1 MB message."""
    if len(text) <= limit:
        return repr(text)
    return repr(text[:limit]) + f"… ({len(text)} characters)"


def check_text(text: object, what: str = "card notation") -> str:
    """``text`` if it is a ``str`` of a sane length, else :class:`NotationError`."""
    if not isinstance(text, str):
        raise NotationError(f"expected {what} as a str, got {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise NotationError(f"{what} too long: {len(text)} characters (at most {MAX_TEXT})")
    return text


def parse_rank(token: str) -> Rank:
    """One rank token (any R1 alias), or :class:`NotationError` naming it."""
    rank = _RANK_TOKENS.get(check_text(token, "a rank").strip().upper())
    if rank is None or not token.isascii():
        raise NotationError(f"unknown rank {quote(token)}")
    return rank


def _rank_tokens(text: str) -> Iterator[tuple[Rank, str]]:
    """The ranks of rank notation with their tokens, one by one; glued one-character tokens
    are allowed (R1), and a separated natural card with its suit reads as its rank."""
    for chunk in _SEPARATORS.split(check_text(text).strip()):
        card = _CARD_TOKEN_RE.match(chunk)
        if card is not None:
            yield _RANK_TOKENS[card.group(1).upper()], chunk
            continue
        pos = 0
        while pos < len(chunk):
            m = _RANK_RE.match(chunk, pos)
            if m is None:
                raise NotationError(f"unknown rank token {quote(chunk[pos:])} in {quote(text)}")
            yield _RANK_TOKENS[m.group(0).upper()], m.group(0)
            pos = m.end()


class Hand:
    """An immutable multiset of ranks: a hand, or the cards of a play.

    ``Hand.parse("3 3 4 BJ")``; ``counts`` is the tuple of 15 counts in R1 order; ``packed``
    the kernel's 64-bit word. Hashable, ordered (by counts, for deterministic listings),
    ``str`` canonical and ``repr`` pastes back.
    """

    __slots__ = ("_packed",)
    _packed: int

    def __init__(self, text: str | Hand = "") -> None:
        packed = text._packed if isinstance(text, Hand) else Hand.parse(text)._packed
        object.__setattr__(self, "_packed", packed)

    # -- construction -------------------------------------------------------------------
    @classmethod
    def _from_packed_unchecked(cls, packed: int) -> Hand:
        hand = object.__new__(cls)
        object.__setattr__(hand, "_packed", packed)
        return hand

    @classmethod
    def parse(cls, text: str) -> Hand:
        """Parse rank notation (R1). A separated token with a suit (``"3d"``, ``"Th"``) is that
        card's rank: ``Hand.parse("3d 4d") == Hand.parse("3 4")``. Raises
        :class:`NotationError` on an unknown token, on more copies of a rank than the two
        decks hold, or on text longer than :data:`MAX_TEXT`."""
        if isinstance(text, Hand):
            return text
        counts = [0] * N_RANKS
        for rank, token in _rank_tokens(text):
            counts[rank] += 1
            if counts[rank] > MAX_COPIES[rank]:
                raise NotationError(
                    f"too many {RANK_SYMBOLS[rank]}: {token!r} makes {counts[rank]}, "
                    f"the deck has {MAX_COPIES[rank]}"
                )
        return cls.from_counts(counts)

    @classmethod
    def from_counts(cls, counts: Sequence[int]) -> Hand:
        """Build from 15 counts in R1 order (validated)."""
        if len(counts) != N_RANKS:
            raise NotationError(f"expected {N_RANKS} counts, got {len(counts)}")
        packed = 0
        for r, c in enumerate(counts):
            # int-like only: a count of 7.9 is an error, not 7
            packed |= as_int(
                c, f"count of {RANK_SYMBOLS[r]}", 0, MAX_COPIES[r], NotationError
            ) << (4 * r)
        return cls._from_packed_unchecked(packed)

    @classmethod
    def from_packed(cls, packed: SupportsIndex) -> Hand:
        """Build from the kernel's packed word (validated)."""
        packed = as_int(packed, "packed hand", 0, (1 << (4 * N_RANKS)) - 1, NotationError)
        return cls.from_counts([(packed >> (4 * r)) & 15 for r in range(N_RANKS)])

    @classmethod
    def from_cards(cls, ids: Iterable[int]) -> Hand:
        """The rank multiset of physical card ids."""
        counts = [0] * N_RANKS
        for card in ids:
            counts[card_rank(card)] += 1
        return cls.from_counts(counts)

    # -- views -----------------------------------------------------------------------------
    @property
    def packed(self) -> int:
        """The 64-bit kernel word: 4 bits of count per rank, rank ``r`` at bit ``4r``."""
        return self._packed

    @property
    def counts(self) -> tuple[int, ...]:
        """Counts per rank, 15 ints in R1 order (3 … 2, SJ, BJ)."""
        p = self._packed
        return tuple((p >> (4 * r)) & 15 for r in range(N_RANKS))

    def count(self, rank: Rank | int | str) -> int:
        """How many cards of ``rank`` the multiset holds: a :class:`Rank`, its index or a rank
        token (``"10"``, ``"T"``, ``"BJ"``; ``"3"`` is the rank 3, not index 3)."""
        r = parse_rank(rank) if isinstance(rank, str) else as_int(rank, "rank", 0, N_RANKS - 1)
        return (self._packed >> (4 * r)) & 15

    def ranks(self) -> list[Rank]:
        """Every card's rank, weakest first."""
        return [Rank(r) for r, c in enumerate(self.counts) for _ in range(c)]

    def __iter__(self) -> Iterator[Rank]:
        return iter(self.ranks())

    def __len__(self) -> int:
        return sum(self.counts)

    def __bool__(self) -> bool:
        return self._packed != 0

    def issubset(self, other: Hand) -> bool:
        """True if every card of this multiset is in ``other``."""
        return all(a <= b for a, b in zip(self.counts, other.counts))

    def __add__(self, other: Hand) -> Hand:
        return Hand.from_counts([a + b for a, b in zip(self.counts, other.counts)])

    def __sub__(self, other: Hand) -> Hand:
        if not other.issubset(self):
            raise NotationError(f"{other} is not part of {self}")
        return Hand._from_packed_unchecked(self._packed - other._packed)

    # -- value semantics -------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hand) and other._packed == self._packed

    def __hash__(self) -> int:
        return hash(("Hand", self._packed))

    def __lt__(self, other: Hand) -> bool:
        return self.counts < other.counts

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Hand is immutable")

    def __str__(self) -> str:
        return " ".join(RANK_SYMBOLS[r] for r in self.ranks())

    def __repr__(self) -> str:
        return f"Hand({str(self)!r})"


# -- physical cards ------------------------------------------------------------------------
SMALL_JOKER_IDS = (104, 105)
BIG_JOKER_IDS = (106, 107)


CARD_RANKS: tuple[int, ...] = tuple(
    (c % 52) // 4 if c < 104 else (Rank.SMALL_JOKER if c < 106 else Rank.BIG_JOKER)
    for c in range(N_CARDS)
)
"""The rank index of each physical card id (unchecked look-up for hot loops)."""


def card_rank(card: int) -> Rank:
    """The rank of a physical card id (0..107)."""
    return Rank(CARD_RANKS[as_card_id(card)])


def as_card_id(card: object) -> int:
    """A physical card id 0..107 as a plain ``int`` (int-like accepted, ``bool`` not)."""
    if type(card) is int and 0 <= card < N_CARDS:
        return card
    return as_int(card, "card id", 0, N_CARDS - 1, NotationError)


def card_suit(card: int) -> int | None:
    """The suit index (0..3 = s h c d) of a physical card, ``None`` for jokers."""
    card_rank(card)
    return card % 4 if card < 104 else None


def card_face(card: int) -> int:
    """The card with its deck forgotten: 0..51 for naturals, 52 = SJ, 53 = BJ.

    Two copies of one card (same rank and suit, other deck) share a face."""
    card_rank(card)
    return card % 52 if card < 104 else 52 + (card - 104) // 2


def face_copies(face: int) -> tuple[int, int]:
    """The two physical ids (deck 0, deck 1) of a face."""
    if face < 52:
        return (face, face + 52)
    return (104, 105) if face == 52 else (106, 107)


def format_card(card: int) -> str:
    """Canonical text of one physical card: ``10h``, ``3s``, ``SJ``, ``BJ``."""
    rank = card_rank(card)
    if rank.is_joker:
        return RANK_SYMBOLS[rank]
    return RANK_SYMBOLS[rank] + SUITS[card % 4]


def format_cards(cards: Iterable[int]) -> str:
    """Canonical text of physical cards, weakest first (rank, then suit, then deck)."""
    return " ".join(format_card(c) for c in sorted(cards, key=_card_order))


def _card_order(card: int) -> tuple[int, int, int]:
    return (card_rank(card), card % 4 if card < 104 else 0, card)


_CARD_RE = re.compile(r"^(10|SJ|BJ|[3-9TJQKA2XD])([SHCD♠♥♣♦]?)$", re.IGNORECASE | re.ASCII)


def parse_faces(text: str) -> list[int]:
    """Parse physical-card notation into faces (deck not chosen): ``"Th 3s BJ"``.

    Cards must be separated by spaces, ``,`` or ``+`` (R1: ``3d`` glued would clash with
    ``3 D``). Natural cards need a suit, jokers take none.
    """
    faces: list[int] = []
    for token in _SEPARATORS.split(check_text(text, "physical-card notation").strip()):
        if not token:
            continue
        m = _CARD_RE.match(token)
        if m is None:
            raise NotationError(f"unknown card {quote(token)}")
        if len(faces) == N_CARDS:
            raise NotationError(f"more than {N_CARDS} cards in {quote(text)}")
        rank = _RANK_TOKENS[m.group(1).upper()]
        suit = m.group(2)
        if rank.is_joker:
            if suit:
                raise NotationError(f"jokers have no suit: {quote(token)}")
            faces.append(52 if rank == Rank.SMALL_JOKER else 53)
        else:
            if not suit:
                raise NotationError(f"card {quote(token)} needs a suit (s h c d)")
            faces.append(rank * 4 + _SUIT_ALIASES[suit.lower()])
    return faces


def parse_cards(text: str) -> list[int]:
    """Parse physical cards into ids; the first copy of a face is deck 0, the second deck 1.

    Raises :class:`NotationError` on an unknown token or a third copy of one card.
    """
    used: dict[int, int] = {}
    ids: list[int] = []
    for face in parse_faces(text):
        n = used.get(face, 0)
        if n == 2:
            raise NotationError(f"more than two copies of {format_card(face_copies(face)[0])}")
        used[face] = n + 1
        ids.append(face_copies(face)[n])
    return ids
