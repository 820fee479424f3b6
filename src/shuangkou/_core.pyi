"""Stub of the Cython kernel ``shuangkou._core`` (docs/internals.md is the contract).

Cards are packed words (4 bits per rank), readings 31-bit tags, rules the flags word of
``Rules.flags``. Every function raises ``ValueError`` on a malformed word, flags or tag.
"""

from typing import TypeVar

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

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

def count(hand: int, flags: int, table: int, fewest: bool) -> int:
    """The number of plays :func:`generate` would return."""

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

@disjoint_base
class PlayCodes:
    """Base of ``shuangkou.plays.Play``: the packed cards word and the reading tag."""

    @property
    def packed(self) -> int: ...
    @property
    def tag(self) -> int: ...

_P = TypeVar("_P", bound=PlayCodes)

def new_play(cls: type[_P], packed: int, tag: int) -> _P:
    """A ``cls`` holding ``packed`` and ``tag``, unchecked."""

def generate_plays(hand: int, flags: int, table: int, fewest: bool, cls: type[_P]) -> list[_P]:
    """:func:`generate`, as a list of ``cls`` objects."""
