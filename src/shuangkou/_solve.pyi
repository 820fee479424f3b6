"""Stub of the solver extension ``shuangkou._solve`` (hand-written; checked by stubtest).

Hands are packed words, rules the flags word (docs/internals.md); :mod:`shuangkou.solve` is the
public API.
"""

from collections.abc import Iterable

DECO_SLOTS_LOG2: int
UNIT: int

def decompose_cost(hand: int, flags: int, keep_bombs: bool) -> int:
    """Least split cost of ``hand``: ``UNIT`` per play (a bomb ``UNIT`` − its cards with
    ``keep_bombs``)."""

def decompose_costs(hand: int, flags: int, keep_bombs: bool, words: Iterable[int]) -> list[int]:
    """:func:`decompose_cost` of ``hand − w`` for each ``w`` of ``words``."""

def decompose_split(
    hand: int, flags: int, keep_bombs: bool
) -> tuple[int, int, list[int], list[int]]:
    """``(plays, cost, words, tags)`` of an optimal split."""

def decompose_nodes() -> int:
    """Sub-hands solved by the shared memo so far."""
