"""Stub of ``shuangkou._physical`` (hand-written; checked by stubtest): physical cards of a Game
at C speed, and the Game's per-decision paths."""

from collections.abc import Iterable
from typing import Any, final

from typing_extensions import disjoint_base

from .cards import Hand
from .plays import Kind, Play

def take_lowest(packed: int, mask: int) -> int: ...
def ids_of(mask: int) -> tuple[int, ...]: ...
def mask_of(ids: Iterable[int]) -> int: ...
def ranks_of(mask: int) -> int: ...

@final
class GameLock:
    """A Game's lock: one action at a time."""
    def __enter__(self) -> GameLock: ...
    def __exit__(self, *exc: object) -> None: ...

@disjoint_base
class _Base:
    _st: Any
    _log: list[tuple[str, int, tuple[int, ...], Play | None, int]]
    _lock: GameLock
    def _sync(self) -> None: ...
    def _hand_mask(self, seat: int) -> int: ...
    def _masks(self) -> tuple[int, int, int, int]: ...
    def _set_masks(self, masks: list[int]) -> None: ...
    def _toggle(self, seat: int, ids: tuple[int, ...]) -> None: ...
    def _copy_masks(self, other: _Base) -> None: ...
    def _deal(
        self, rules: Any, seed: int, leader: int | None
    ) -> tuple[
        tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...], tuple[int, int] | None,
        int | None, int,
    ]: ...
    @property
    def table(self) -> Play | None:
        """The play to beat, ``None`` when the seat to act leads."""
    @property
    def to_act(self) -> int | None:
        """The seat to act, ``None`` once the deal is over."""
    @property
    def is_over(self) -> bool:
        """Whether the deal is over."""
    def can_pass(self) -> bool:
        """Whether passing is legal now (R4: answering, not leading)."""
    def legal_plays(self, wilds: str = "all") -> list[Play]:
        """The plays the seat to act may make, in the kernel's order."""
    def play(
        self,
        cards: Play | Hand | str | Iterable[int] | int,
        kind: Kind | str | None = None,
        *,
        seat: int | None = None,
    ) -> Play:
        """Play for the seat to act."""
    def pass_(self, *, seat: int | None = None) -> None:
        """Pass (R4: not allowed when leading)."""
