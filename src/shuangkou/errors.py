"""The exceptions of shuangkou.

Every bad input raises one of these, and both concrete classes are also ``ValueError`` so
callers that only know the standard library still catch them.
"""

from __future__ import annotations


class ShuangkouError(Exception):
    """Base class of every error this library raises on purpose."""


class NotationError(ShuangkouError, ValueError):
    """Text that is not valid card notation (RULES.md R1): names the offending token."""


class IllegalPlayError(ShuangkouError, ValueError):
    """A play or action that the rules do not allow here: names the play and the reason.

    Raising it never changes the object it was raised from.
    """
