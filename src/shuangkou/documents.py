"""Reading saved documents (games, logs, matches) as untrusted input.

A game server loads documents that clients may have edited. Everything here turns a bad
document into a :class:`DocumentError` (a ``ValueError``) naming the field, in time linear in
the document's size: no ``KeyError``/``TypeError``/``RecursionError``/``OverflowError`` escapes,
``NaN``/``Infinity`` are refused, and a document longer than any the library writes is refused
before it is parsed: a game document or log over :data:`MAX_DOCUMENT` characters, a match over
:data:`MAX_MATCH_DOCUMENT` (:data:`MAX_DEAL_DOCUMENT` for each of the :data:`MAX_MATCH_DEALS`
deals a match may hold).

A caller that must load only what it would have made itself pins it (:class:`Trust`): the
rules it plays (``rules=``: a document with other rules, e.g. ``escape_penalty: 0``, is
refused) and ``seeded=True`` (the deal must be the standard seeded deal, so nobody can script
themselves a hand).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ._check import as_int
from .errors import DocumentError
from .rules import Rules, as_rules

MAX_DOCUMENT = 2_000_000
"""Most characters a game document or log may have, ~100 times what a deal writes: its
cards are played at most 108 times, each play passed at most 3 times, and its result lists
at most 27 bombs (4 cards each at least), twice; counted that way, ~21 kB without
indentation. Of 1,000 classic deals played to many actions (every pass taken), the longest
wrote 5,077 characters, 12,715 with ``indent=2`` (tests/test_safety_documents.py)."""
MAX_DEAL_DOCUMENT = 32_000
"""Characters a match document may have for each deal it can hold: a deal's game document as
:meth:`Match.to_json <shuangkou.game.Match.to_json>` writes it (no indentation) is ~21 kB at
most (:data:`MAX_DOCUMENT`); 1,000 such deals wrote 5,078,568 characters."""
MAX_MATCH_DEALS = 1_000
"""Most deals a :class:`~shuangkou.game.Match` holds (``Match.deal`` refuses the next one), so
that every match document the library writes, it reads back, and a hostile one is bounded."""
MAX_MATCH_DOCUMENT = MAX_MATCH_DEALS * MAX_DEAL_DOCUMENT
"""Most characters a match document may have (32 MB)."""
MAX_DEPTH = 8
"""Deepest nesting of lists/objects a game document has (match documents nest one more)."""


@dataclass(frozen=True)
class Trust:
    """What a loader insists on: ``rules`` (the document's rules must equal them) and
    ``seeded`` (the deal must be a seeded standard deal, not a scripted one)."""

    rules: Rules | None = None
    seeded: bool = False

    @classmethod
    def pinned(cls, rules: Rules | str | None, seeded: bool) -> Trust:
        """The trust of a loader's ``rules=`` (a Rules or a preset name) and ``seeded=``."""
        return cls(None if rules is None else as_rules(rules), seeded)


def _refuse_constant(name: str) -> Any:
    raise DocumentError(f"{name} is not a number a document may hold")


def load(text: object, what: str, limit: int = MAX_DOCUMENT) -> dict[str, Any]:
    """The JSON object of a document given as text of at most ``limit`` characters or as an
    already parsed ``dict``."""
    if isinstance(text, dict):
        doc: object = text
    elif isinstance(text, str):
        if len(text) > limit:
            raise DocumentError(f"{what} too large: {len(text):,} characters (at most "
                                f"{limit:,})")
        try:
            doc = json.loads(text, parse_constant=_refuse_constant)
        except DocumentError:
            raise
        except (ValueError, RecursionError) as e:
            raise DocumentError(f"{what} is not valid JSON: {str(e)[:80]}") from None
    else:
        raise DocumentError(f"{what} must be JSON text or a dict, not {type(text).__name__}")
    if not isinstance(doc, dict):
        raise DocumentError(f"{what} must be a JSON object, not {type(doc).__name__}")
    _check_depth(doc, MAX_DEPTH + 2, what)
    return doc


def _check_depth(value: object, limit: int, what: str) -> None:
    stack = [(value, 0)]
    while stack:
        v, d = stack.pop()
        if d > limit:
            raise DocumentError(f"{what} nests deeper than any document does")
        if isinstance(v, dict):
            stack.extend((x, d + 1) for x in v.values())
        elif isinstance(v, list):
            stack.extend((x, d + 1) for x in v)
        elif isinstance(v, float) and v != v:  # NaN from a dict given directly
            raise DocumentError(f"{what} holds NaN")


def get(doc: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str,
        default: Any = ..., nullable: bool = False) -> Any:
    """``doc[key]``, checked to be of ``kind`` (``None`` allowed if ``nullable``)."""
    if key not in doc:
        if default is ...:
            raise DocumentError(f"{where}: field {key!r} is missing")
        return default
    v = doc[key]
    if v is None and nullable:
        return None
    if isinstance(v, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise DocumentError(f"{where}: field {key!r} must not be a bool")
    if not isinstance(v, kind):
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise DocumentError(f"{where}: field {key!r} must be {names}, not {type(v).__name__}")
    return v


def integer(value: object, where: str, lo: int | None = None, hi: int | None = None) -> int:
    """An int field of a document (in ``lo..hi``)."""
    return as_int(value, where, lo, hi, DocumentError)


def int_list(value: object, where: str, lo: int, hi: int, length: int | None = None) -> list[int]:
    """A list of ints in ``lo..hi`` (of ``length`` items if given)."""
    if not isinstance(value, list):
        raise DocumentError(f"{where} must be a list, not {type(value).__name__}")
    if length is not None and len(value) != length:
        raise DocumentError(f"{where} must have {length} items, not {len(value)}")
    return [integer(v, f"{where}[{i}]", lo, hi) for i, v in enumerate(value)]


def rules_of(doc: dict[str, Any], trust: Trust, where: str) -> Rules:
    """The document's rules, equal to the pinned ones if the loader pinned them."""
    data = get(doc, "rules", dict, where)
    try:
        rules = Rules.from_dict(data)
    except (ValueError, TypeError) as e:
        raise DocumentError(f"{where}: rules: {e}") from None
    if trust.rules is not None and rules != trust.rules:
        diff = [k for k, v in trust.rules.to_dict().items() if rules.to_dict()[k] != v]
        raise DocumentError(f"{where}: the rules differ from the ones required ({diff[:5]})")
    return rules
