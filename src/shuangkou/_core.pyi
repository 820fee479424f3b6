"""Stub of the Cython kernel ``shuangkou._core`` (docs/internals.md is the contract).

Cards are packed words (4 bits per rank), readings 31-bit tags, rules the flags word of
``Rules.flags``. Every function raises ``ValueError`` on a malformed word, flags or tag.
"""

from collections.abc import Callable
from typing import ClassVar, final

import numpy as np
import numpy.typing as npt

from .cards import Hand, Rank
from .plays import Kind
from .rules import Rules

__pyx_capi__: dict[str, object]
"""The C functions other extensions cimport (``_core.pxd``: ``play_of``, ``play_list``)."""

FLAG_WILD_SJ: int
FLAG_WILD_BJ: int
FLAG_STARS: int
FLAG_UNEVEN: int
FLAG_MORE_CARDS_BIGGER: int
FLAG_FOUR_JOKERS_SMALLEST: int
NO_TABLE: int

def classify(cards: int, flags: int) -> list[int]:
    """Readings (tags) of the card set ``cards``, sorted by kind (R3)."""

def generate(hand: int, flags: int, table: int, fewest: bool) -> tuple[list[int], list[int]]:
    """Every play of ``hand`` beating ``table`` (0 = leading): ``(words, tags)``."""

def answer_features(
    hands: npt.NDArray[np.uint64], tables: npt.NDArray[np.uint32],
    seen: npt.NDArray[np.uint32], flags: int, out: npt.NDArray[np.int32],
) -> None:
    """The inference model's features of each answer, into ``out`` (see the extension)."""

def count(hand: int, flags: int, table: int, fewest: bool) -> int:
    """The number of plays :func:`generate` would return."""

def nth(hand: int, flags: int, table: int, fewest: bool, k: int) -> tuple[int, int] | None:
    """Play ``k`` of :func:`generate`'s list as ``(word, tag)``; None if out of range."""

def beats(tag: int, table: int, flags: int) -> bool:
    """R4/R5: may the play ``tag`` be played on ``table`` (0 = a free lead)?"""

def generate_into(
    hand: int,
    flags: int,
    table: int,
    fewest: bool,
    words: npt.NDArray[np.uint64],
    tags: npt.NDArray[np.uint32],
) -> int:
    """Write at most ``min(len(words), len(tags))`` plays; return how many there are."""

def count_many(
    hands: npt.NDArray[np.uint64], flags: int, tables: npt.NDArray[np.uint32], fewest: bool
) -> npt.NDArray[np.int64]: ...
def generate_batch(
    hands: npt.NDArray[np.uint64], flags: int, tables: npt.NDArray[np.uint32], fewest: bool
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint64], npt.NDArray[np.uint32]]: ...
def generate_many(
    hands: npt.NDArray[np.uint64],
    flags: int,
    table: int,
    fewest: bool,
    words: npt.NDArray[np.uint64],
    tags: npt.NDArray[np.uint32],
) -> int:
    """Generate every hand's plays into the same buffers; return the total (benchmarks)."""

@final
class Play:
    """A legal play: the cards taken plus their reading (R3). Immutable and hashable."""

    PASS: ClassVar[Play]
    def __init__(
        self,
        cards: Hand | str,
        kind: Kind,
        top: int,
        width: int,
        length: int,
        stars: int,
        wilds: int,
    ) -> None: ...
    def _reads_under(self, flags: int) -> bool:
        """Whether the cards have this reading under the rules word ``flags`` (R3)."""
    @staticmethod
    def _from_codes(cards: int, tag: int) -> Play:
        """The play with cards word ``cards`` and reading tag ``tag``, unchecked."""
    @classmethod
    def parse(cls, text: str, rules: Rules | str) -> Play:
        """Read a card list under ``rules`` (``"… /straight"`` picks a reading)."""
    def __reduce__(self) -> tuple[Callable[[int, int], Play], tuple[int, int]]: ...
    @property
    def packed(self) -> int: ...
    @property
    def tag(self) -> int: ...
    @property
    def cards(self) -> Hand: ...
    @property
    def kind(self) -> Kind: ...
    @property
    def top(self) -> Rank: ...
    @property
    def width(self) -> int: ...
    @property
    def length(self) -> int: ...
    @property
    def stars(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def wilds(self) -> int: ...
    @property
    def is_bomb(self) -> bool: ...
    @property
    def reading(self) -> tuple[Kind, Rank, int, int, int]:
        """What the play *is*, whatever cards make it: (kind, top, size, width, length)."""
    def beats(self, other: Play | str | None, rules: Rules | str) -> bool:
        """True if this play may be played on ``other`` (R4, R5): a Play, its card text or
        ``None``."""
    def __bool__(self) -> bool: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __ne__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def sort_key(self) -> tuple[int, ...]:
        """Total order for deterministic listings."""
    def __lt__(self, value: Play, /) -> bool: ...
    def __le__(self, value: Play, /) -> bool: ...
    def __gt__(self, value: Play, /) -> bool: ...
    def __ge__(self, value: Play, /) -> bool: ...
    def describe(self) -> str:
        """Human text: ``'straight 4..9 (6 cards)'``, ``'bomb 77777 (5★)'``."""

def new_play(cls: type[Play], packed: int, tag: int) -> Play:
    """A :class:`Play` holding ``packed`` and ``tag``, unchecked."""

def generate_plays(
    hand: int, flags: int, table: int, fewest: bool, cls: type[Play]
) -> list[Play]:
    """:func:`generate`, as a list of :class:`Play` objects."""

def legal_plays(
    hand: Hand | str, rules: Rules | str, table: Play | str | None = None, wilds: str = "all"
) -> list[Play]:
    """``shuangkou.plays.legal_plays`` in one C-level call (the kernel backend's)."""
