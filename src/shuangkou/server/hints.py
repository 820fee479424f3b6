"""The 提示 (hint) order of the server: smallest-first, until the solver's hint order exists.

Smallest-first sorts the legal plays (one per reading, ``wilds="fewest"``) by kind, size,
length, top rank, width and wilds — the first six fields of :meth:`Play.sort_key`, read
straight from the play's tag (``Play.sort_key`` builds a Hand per call, ~100x slower) — with
ties kept in the kernel's order. The same order serves the hint request, the turn timer's
default play, and the bot client.
"""

from __future__ import annotations

from ..game import Game
from ..plays import Play

__all__ = ["hint_key", "hints", "smallest_first"]


def hint_key(play: Play) -> tuple[int, int, int, int, int, int]:
    """(kind, size, length, top, width, wilds) of a play, from its tag (docs/internals.md)."""
    tag = play.tag
    return (tag & 15, tag >> 22 & 63, tag >> 13 & 15, tag >> 4 & 15, tag >> 8 & 31,
            tag >> 28 & 7)


def smallest_first(plays: list[Play]) -> list[Play]:
    """``plays`` in the hint order (a stable sort: ties keep the given order)."""
    return sorted(plays, key=hint_key)


def hints(game: Game) -> list[Play]:
    """The hints for the seat to act of ``game``, best first."""
    return smallest_first(game.legal_plays("fewest"))
