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


class IllegalPlayError(ShuangkouError, ValueError):
    """A play or action that the rules do not allow here: names the play and the reason.

    Raising it never changes the object it was raised from.
    """
