"""Stub of the solver extension ``shuangkou._solve`` (hand-written; checked by stubtest).

Hands are packed words, rules the flags word (docs/internals.md); :mod:`shuangkou.solve` is the
public API.
"""

from collections.abc import Iterable

from typing_extensions import disjoint_base

from ._core import Play
from ._engine import State
from .rules import Rules

DECO_SLOTS_LOG2: int
DECO_MAX_NODES: int
UNIT: int

def decompose_cost(hand: int, flags: int, keep_bombs: bool) -> int:
    """Least split cost of ``hand``: ``UNIT`` per play (a bomb ``UNIT`` − its cards with
    ``keep_bombs``)."""

def decompose_costs(hand: int, flags: int, keep_bombs: bool, words: Iterable[int]) -> list[int]:
    """:func:`decompose_cost` of ``hand − w`` for each ``w`` of ``words`` (one memo)."""

def decompose_split(
    hand: int, flags: int, keep_bombs: bool
) -> tuple[int, int, list[int], list[int]]:
    """``(plays, cost, words, tags)`` of an optimal split."""

def decompose_stats(
    hand: int, flags: int, keep_bombs: bool, words: Iterable[int] | None = ...
) -> tuple[int, int, int]:
    """``(cost, states expanded, memo entries)`` of one call (with ``words``: of one
    :func:`decompose_costs` call)."""

def reference_costs(
    hand: int, flags: int, keep_bombs: bool, words: Iterable[int], max_nodes: int = ...
) -> list[int] | None:
    """:func:`decompose_costs` by the first, exponential search; ``None`` past ``max_nodes``."""

def hint_order(hand: int, flags: int, leading: bool, plays: list[Play]) -> list[Play]:
    """``plays`` (each part of ``hand``) in hint order (docs/solver.md "Hints")."""

def jj_log(hand: int, flags: int) -> int:
    """The held-bomb DP's most log weight of disjoint bombs of ``hand`` (R8.3), in 64ths of
    log2 (tests)."""

def jj_power(w: int) -> int:
    """The JJ product bound of a log weight ``w`` >= 0: 2 ** (w / 64) rounded down (tests)."""

def chainless(hand: int, flags: int) -> bool:
    """No chain can be formed from ``hand`` or a part of it (the relative-rank keys)."""

EXACT_DEPTH: int
MAX_DEPTH: int
MAX_THREADS: int
MAX_VALUE: int
TECHNIQUES: dict[str, int]
OBJECTIVES: dict[str, int]
EVALUATIONS: dict[str, int]

@disjoint_base
class Searcher:
    """A search context: rules (the engine's SkParams fields), objective, transposition table
    of ``2**tt_bits`` entries (growing up to ``2**max_tt_bits``), a root position. Shareable
    across threads (its calls take its lock)."""

    @property
    def rules(self) -> Rules: ...
    def __init__(
        self, state: State, objective: str = ..., tt_bits: int = ..., evaluation: str = ...,
        techniques: Iterable[str] | None = ..., max_tt_bits: int | None = ...,
    ) -> None: ...
    def __enter__(self) -> Searcher: ...
    def __exit__(self, *exc: object) -> None: ...
    def set_position(self, state: State) -> None: ...
    def grow(self, bits: int, time_limit: float = ...) -> None: ...
    def reset(self, tt_bits: int, max_tt_bits: int) -> None: ...
    @property
    def bounds(self) -> tuple[int | None, int | None, int]: ...
    @property
    def proven(self) -> bool: ...
    @property
    def rival_ran(self) -> bool: ...
    @property
    def rival_won(self) -> bool: ...
    @property
    def objective(self) -> str: ...
    @property
    def unit(self) -> int: ...
    @property
    def table_bits(self) -> int: ...
    @property
    def max_table_bits(self) -> int: ...
    @property
    def hash(self) -> int: ...
    @property
    def grow_seconds(self) -> float: ...
    @grow_seconds.setter
    def grow_seconds(self, seconds: float) -> None: ...
    @property
    def helper_nodes(self) -> int: ...
    @property
    def forced(self) -> int: ...
    def root_values(
        self, max_nodes: int = ..., time_limit: float = ..., depth: int = ...,
        all_values: bool = ..., threads: int = ...,
        only: Iterable[tuple[int, int]] | None = ..., one: bool = ...,
        rival: tuple[int, ...] = ...,
    ) -> tuple[list[tuple[int, int]], list[int | None], list[int], int, bool, bool]: ...
    def probe(
        self, bound: int, max_nodes: int = ..., time_limit: float = ...
    ) -> tuple[bool | None, int | None, int | None, int]: ...
    def principal_variation(
        self, first: int, value: int, max_length: int = ...
    ) -> list[tuple[int, int]]: ...

def tt_key(searcher: Searcher, state: State) -> int:
    """The table key of ``state`` (tests): its relative-rank key where no hand can form a
    chain (technique ``"relative"``), else its Zobrist hash ``state.hash``."""

def order_bounds(searcher: Searcher, state: State) -> tuple[int, int] | None:
    """``(lo, hi)`` bounding the value of ``state`` for its seat to act by the finishing orders
    still possible, or ``None`` when a seat can still play a bomb (the R8 bounds)."""

def score_bounds(searcher: Searcher, state: State, seat: int | None = ...) -> tuple[int, int]:
    """``(lo, hi)`` bounding the final value of ``state`` for ``seat``'s team (default: the
    seat to act) by the finishing orders still possible and what the bombs in hand can add
    (the static R8 bounds; a finished deal's: its value)."""

def quick_bound(searcher: Searcher, state: State) -> int | None:
    """The quick tricks' lower bound on the value of ``state`` for its seat to act, or
    ``None`` when no line gives one."""
