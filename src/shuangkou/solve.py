"""Solvers (docs/solver.md): hand decomposition (手数), hints (提示), sampling of hidden hands,
the exact endgame solver and a PIMC policy.

::

    import shuangkou as sk
    rules = sk.Rules.preset("baibian")
    sk.decompose("3 4 5 6 7 7 7 BJ", rules).count      # 2: 3..7 and 777+BJ (7777)
"""

from __future__ import annotations

from dataclasses import dataclass

from . import _solve
from .cards import Hand
from .plays import Kind, Play
from .rules import Rules, as_rules

__all__ = ["Decomposition", "decompose"]


@dataclass(frozen=True)
class Decomposition:
    """An optimal split of a hand into plays: ``count`` is its 手数 (the fewest plays that
    empty the hand), ``plays`` one split reaching it (largest plays first), ``bomb_cards`` the
    number of cards of that split that are in bombs."""

    count: int
    plays: tuple[Play, ...]
    bomb_cards: int

    def __str__(self) -> str:
        return f"{self.count}: " + " | ".join(str(p) for p in self.plays)


def _bomb_cards(plays: tuple[Play, ...]) -> int:
    return sum(p.size for p in plays if p.kind >= Kind.BOMB)


def decompose(hand: Hand | str, rules: Rules | str, *, keep_bombs: bool = False) -> Decomposition:
    """The fewest plays that empty ``hand`` (手数) and one split that reaches it, exact with
    wilds (the kernel's plays, R2/R3: any card set that is a legal play).

    With ``keep_bombs`` the split is, among those with the fewest plays, one with the most cards
    in bombs (the valued split that hints use: bombs kept whole). The count is the same."""
    h = hand if isinstance(hand, Hand) else Hand.parse(hand)
    r = as_rules(rules)
    count, _, words, tags = _solve.decompose_split(h.packed, r.flags, keep_bombs)
    plays = tuple(
        sorted(
            (Play._from_codes(w, t) for w, t in zip(words, tags)),
            key=lambda p: (-p.size, p.tag, p.packed),
        )
    )
    return Decomposition(count, plays, _bomb_cards(plays))

