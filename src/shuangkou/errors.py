"""The exceptions of shuangkou.

Every bad input raises one of these, and every concrete class is also ``ValueError`` so
callers that only know the standard library still catch them.
"""

from __future__ import annotations


class ShuangkouError(Exception):
    """Base class of every error this library raises on purpose."""


class NotationError(ShuangkouError, ValueError):
    """Text that is not valid card notation (RULES.md R1): names the offending token."""


class ArgumentError(ShuangkouError, ValueError):
    """An argument of the wrong type or outside its range (a seat, an id, a count, a rules
    field): names the argument and the value."""


class DocumentError(ShuangkouError, ValueError):
    """A saved document (game, log, match, the learned bot's weights file) that is malformed
    or not allowed: names the field (the key)."""


class IllegalPlayError(ShuangkouError, ValueError):
    """A play or action that the rules do not allow here: names the play and the reason.

    Raising it never changes the object it was raised from.
    """


class PositionError(ShuangkouError, ValueError):
    """A position that no deal can reach (RULES.md R1, R7): more cards than the decks hold, a
    seat holding more than it was dealt, a table bomb its owner did not play. Names the seat
    or the rank."""


class ConcurrentUseError(ShuangkouError, RuntimeError):
    """An object that is not shared between threads (``VecEnv``) was called from a second
    thread while a call was still running in another."""


class LimitError(ShuangkouError, RuntimeError):
    """A work or time limit stopped a computation that has no partial answer (``perft``):
    names the limit."""
