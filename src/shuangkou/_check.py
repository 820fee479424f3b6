"""The one place where int-like arguments are validated (seats, card ids, counts, seeds, sizes).

Python code takes numbers from many sources: ints, numpy integers, JSON documents. An int-like
value (anything with ``__index__``: ``int``, ``numpy.int64``) is normalised to a plain ``int``;
everything else — ``bool`` (``seat=True``), ``float`` (``11.9``), ``str``, ``bytes`` — is
rejected with a :class:`ValueError` naming the argument, never truncated or coerced.
Out-of-range values (a negative seed, a depth of ``2**40``) are refused the same way, before
they reach C, so no caller ever sees an ``OverflowError``. Real-valued arguments (time limits)
follow the same rule through :func:`as_seconds`: ints and floats, finite, in range; ``nan``,
``inf``, bools and strings refused.
"""

from __future__ import annotations

import math
from operator import index

from .errors import ArgumentError


def as_int(
    value: object,
    what: str,
    lo: int | None = None,
    hi: int | None = None,
    error: type[ValueError] = ArgumentError,
) -> int:
    """``value`` as a plain ``int`` in ``lo..hi`` (inclusive, either bound optional); else
    ``error`` (an :class:`ArgumentError` unless the caller's domain has its own class)."""
    if type(value) is int:  # a plain int (bool, a subclass, is not): nothing to convert
        n = value
    elif isinstance(value, bool):
        raise error(f"{what} must be an integer, not a bool ({value!r})")
    else:
        try:
            n = index(value)  # type: ignore[arg-type]
        except TypeError:
            raise error(
                f"{what} must be an integer, not {type(value).__name__} ({_short(value)})"
            ) from None
    if (lo is not None and n < lo) or (hi is not None and n > hi):
        lo_s = "" if lo is None else str(lo)
        hi_s = "" if hi is None else str(hi)
        raise error(f"{what} must be in {lo_s}..{hi_s}, got {_short(n)}")
    return n


_MAX_DIGITS = 40  # longer than any number in range here, and int() of text is quadratic


def parse_int(
    text: object,
    what: str,
    lo: int | None = None,
    hi: int | None = None,
    error: type[ValueError] = ArgumentError,
) -> int:
    """An integer written as text (a command-line flag, a saved field) in ``lo..hi``: ASCII
    decimal digits, an optional leading ``-``, nothing else. ``int()`` also reads other
    scripts' digits (``'٢'`` as 2, ``'３'`` as 3), ``'_'`` separators, a ``+`` and surrounding
    whitespace: none of them is a number a user types here, so each is ``error``."""
    if (not isinstance(text, str) or not 0 < len(text) <= _MAX_DIGITS
            or not text.removeprefix("-").isascii()
            or not text.removeprefix("-").isdigit()):
        raise error(f"{what} must be an integer in ASCII digits, not {_short(text)}")
    return as_int(int(text), what, lo, hi, error)


def as_seat(value: object, what: str = "seat") -> int:
    """A seat 0..3 (R7)."""
    return as_int(value, what, 0, 3)


SEED_MAX = 2**64 - 1
"""Largest seed: a seed is the 64-bit state of the generator (rng), never reduced mod 2^64."""


def as_seed(value: object, what: str = "seed") -> int:
    """A seed 0..2**64-1 (negative or larger seeds are refused, not wrapped)."""
    return as_int(value, what, 0, SEED_MAX)


def as_seconds(value: object, what: str, error: type[ValueError] = ArgumentError) -> float:
    """A positive, finite number of seconds (a time limit): an int or a float, not a bool."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise error(f"{what} must be a number of seconds, not {type(value).__name__} "
                    f"({_short(value)})")
    seconds = float(value)
    if not math.isfinite(seconds) or seconds <= 0:
        raise error(f"{what} must be a positive, finite number of seconds, got {_short(value)}")
    return seconds


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"
