"""The one place where int-like arguments are validated (seats, card ids, counts, seeds, sizes).

Python code takes numbers from many sources: ints, numpy integers, JSON documents. An int-like
value (anything with ``__index__``: ``int``, ``numpy.int64``) is normalised to a plain ``int``;
everything else — ``bool`` (``seat=True``), ``float`` (``11.9``), ``str``, ``bytes`` — is
rejected with a :class:`ValueError` naming the argument, never truncated or coerced.
"""

from __future__ import annotations

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


def as_seat(value: object, what: str = "seat") -> int:
    """A seat 0..3 (R7)."""
    return as_int(value, what, 0, 3)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"
