"""The position text: one line that names a position of a deal, as FEN does for chess.

``format_position(state)`` writes it and ``parse_position(text, rules, cls)`` reads it back
through ``cls.from_position`` (the kernel's ``State`` or the reference ``RefState``); the two
round-trip exactly. The format is documented field by field in docs/position.md::

    baibian 3456/789/TJQ/KA2 1 44@0 0 0 -/-/5555/- -

Eight fields separated by single spaces: rules, the four hands, the seat to act, the table play
and its owner, the passes since it, the seats out in order, the bombs each seat played, the seat
that abandoned. Bad text raises :class:`~shuangkou.errors.NotationError` naming the field and
the token; reading is linear in the text, whose length is capped (:data:`MAX_LENGTH`), and a
message quotes at most a few dozen characters of it.

:func:`check_position` is the one rule of what a position may hold (the decks' cards, the
cards each seat was dealt, the table bomb among its owner's bombs); every way of building a
position — ``State.from_position``, the reference ``RefState``, this text, ``VecEnv`` — applies
it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Protocol
from urllib.parse import quote, unquote

from .cards import HAND_SIZE, MAX_COPIES, N_RANKS, Hand
from .errors import NotationError, PositionError
from .plays import Kind, Play, classify
from .rules import PRESETS, Rules, as_rules

__all__ = ["FIELDS", "MAX_LENGTH", "check_position", "format_position", "parse_position"]

MAX_LENGTH = 4096
"""Longest position text read (a real one is under 300 characters)."""

FIELDS = ("rules", "hands", "to_act", "table", "passes", "places", "bombs", "escape")
"""The fields of a position text, in order."""

SYMBOLS = "3456789TJQKA2XD"
"""One character per rank (R1 notation, glued): 3 … 9, T, J, Q, K, A, 2, X = SJ, D = BJ."""

NONE = "-"
_DIGITS = "0123456789"
_RANK_OF = {c: r for r, c in enumerate(SYMBOLS)}
_QUOTE_MAX = 24


class PositionFields(Protocol):
    """The rank-level fields every position has — the kernel ``State``, ``RefState`` and
    :class:`~shuangkou.Game` alike: what this module and :mod:`shuangkou.solve` read."""

    @property
    def rules(self) -> Rules: ...
    @property
    def to_act(self) -> int | None: ...
    @property
    def table(self) -> Play | None: ...
    @property
    def table_owner(self) -> int | None: ...
    @property
    def passes(self) -> int: ...
    @property
    def places(self) -> tuple[int, ...]: ...
    def bombs_played(self, seat: int) -> tuple[Play, ...]: ...


class _Position(PositionFields, Protocol):
    """What :func:`format_position` reads: the kernel ``State`` and ``RefState`` both have it."""

    @property
    def escape(self) -> int | None: ...
    def hand(self, seat: int) -> Hand: ...



def _q(token: str) -> str:
    """A token for an error message: quoted, cut to a few dozen characters."""
    if len(token) > _QUOTE_MAX:
        token = token[:_QUOTE_MAX] + "…"
    return repr(token)


def _error(field: int, message: str) -> NotationError:
    return NotationError(f"position field {field + 1} ({FIELDS[field]}): {message}")


# -- what a position may hold --------------------------------------------------------------------
def check_position(
    hands: Sequence[Hand],
    table: Play | None,
    table_owner: int | None,
    bombs: Sequence[Sequence[Play]],
    hand_size: int | None = HAND_SIZE,
) -> None:
    """Raise :class:`~shuangkou.errors.PositionError` unless the cards of a position could
    have come from one deal (R1, R7):

    * every card held, on the table or in a bomb played is one of the two decks' (at most 8 of
      a rank 3..2, 2 of each joker: 108 cards in all); a bomb on the table is the last play of
      its owner, so it is among that seat's ``bombs`` (and counted once);
    * with ``hand_size`` (27, the standard deal), no seat holds more than it was dealt: its
      cards, plus the bombs it played, plus the table play if it owns a plain one, are at most
      ``hand_size`` (the other cards it played are not in a position). ``None`` skips this:
      scripted deals (``Game.from_deal``) may give a seat any number of cards.

    ``hands`` are the four seats' ranks, ``bombs`` the bombs each seat played. The rule is
    written once, in C (``_engine.cards_problem``), so that ``State.from_position`` applies it
    at C speed; this is its Python entry."""
    from ._engine import cards_problem

    problem = cards_problem(
        [h.packed for h in hands],
        0 if table is None else table.packed,
        0 if table is None or table_owner is None else table.tag,
        -1 if table_owner is None else table_owner,
        [(s, b.packed, b.tag) for s in range(4) for b in bombs[s]],
        0 if hand_size is None else hand_size,
    )
    if problem is not None:
        raise PositionError(problem)


# -- rules -------------------------------------------------------------------------------------
def _format_value(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return quote(str(value), safe="")


@lru_cache(maxsize=64)
def _format_rules(rules: Rules) -> str:
    """The preset's name, or the closest preset with the fields that differ in braces."""
    presets = [Rules.preset(name) for name in PRESETS]
    base = min(
        presets,
        key=lambda p: (
            p.name != rules.name,
            sum(getattr(p, f.name) != getattr(rules, f.name) for f in dataclasses.fields(Rules)),
        ),
    )
    diff = [
        f"{f.name}={_format_value(getattr(rules, f.name))}"
        for f in dataclasses.fields(Rules)
        if getattr(base, f.name) != getattr(rules, f.name)
    ]
    return base.name + ("{" + ";".join(diff) + "}" if diff else "")


def _parse_rules(token: str) -> Rules:
    name, brace, rest = token.partition("{")
    if name not in PRESETS:
        raise _error(0, f"unknown preset {_q(name)}; choose from {', '.join(PRESETS)}")
    rules = Rules.preset(name)
    if not brace:
        return rules
    if not rest.endswith("}"):
        raise _error(0, f"house rules must end with '}}': {_q(token)}")
    types = {f.name: f.type for f in dataclasses.fields(Rules)}
    changes: dict[str, Any] = {}
    for item in rest[:-1].split(";"):
        key, eq, raw = item.partition("=")
        if not eq or key not in types:
            raise _error(0, f"unknown rules field {_q(key)}")
        if key in changes:
            raise _error(0, f"rules field {_q(key)} given twice")
        kind = str(types[key])
        value: object
        if kind == "bool":
            if raw not in ("true", "false"):
                raise _error(0, f"{key} must be true or false, not {_q(raw)}")
            value = raw == "true"
        elif "int" in kind:
            if raw == "none" and "None" in kind:
                value = None
            elif raw.isascii() and raw.removeprefix("-").isdigit() and len(raw) <= 18:
                value = int(raw)
            else:
                raise _error(0, f"{key} must be an integer, not {_q(raw)}")
        else:
            value = unquote(raw)
        changes[key] = value
    try:
        return rules.replace(**changes)
    except (ValueError, TypeError) as e:
        raise _error(0, f"bad house rules: {e}") from None


# -- cards -------------------------------------------------------------------------------------
def _format_cards(hand: Hand) -> str:
    text = "".join(SYMBOLS[r] * c for r, c in enumerate(hand.counts))
    return text or NONE


def _parse_cards(token: str, field: int, what: str) -> Hand:
    if token == NONE:
        return Hand()
    counts = [0] * N_RANKS
    for ch in token:
        r = _RANK_OF.get(ch)
        if r is None:
            raise _error(field, f"unknown card {_q(ch)} in {what} (cards are {SYMBOLS}, one "
                                f"character each: T for 10, X and D the small and big jokers)")
        counts[r] += 1
        if counts[r] > MAX_COPIES[r]:
            raise _error(field, f"more than {MAX_COPIES[r]} cards {ch} in {what}")
    return Hand.from_counts(counts)


def _format_play(play: Play, rules: Rules) -> str:
    text = _format_cards(play.cards)
    if len(classify(play.cards, rules)) > 1:  # R3.3: two plain readings, name the kind
        text += "/" + play.kind.name.lower()
    return text


def _parse_play(token: str, rules: Rules, field: int, what: str) -> Play:
    cards_text, slash, kind_text = token.partition("/")
    cards = _parse_cards(cards_text, field, what)
    readings = classify(cards, rules)
    if slash:
        kind = Kind.__members__.get(kind_text.upper()) if kind_text.islower() else None
        if kind is None:
            raise _error(field, f"unknown play kind {_q(kind_text)} in {what}")
        readings = [p for p in readings if p.kind == kind]
    if not readings:
        raise _error(field, f"{_q(token)} is not a valid play under {rules.name} ({what})")
    if len(readings) > 1:
        kinds = " or ".join(p.kind.name.lower() for p in readings)
        raise _error(field, f"{_q(token)} reads as two plays: add /{kinds} ({what})")
    return readings[0]


def _parse_seat(token: str, field: int, allow_none: bool = True) -> int | None:
    if token == NONE and allow_none:
        return None
    if len(token) != 1 or token not in "0123":
        raise _error(field, f"expected a seat 0..3{' or -' if allow_none else ''}, not {_q(token)}")
    return int(token)


def _split4(token: str, field: int) -> list[str]:
    parts = token.split("/", 4)
    if len(parts) != 4:
        raise _error(field, f"expected 4 parts separated by '/', got {min(len(parts), 5)}")
    return parts


# -- the text ----------------------------------------------------------------------------------
def format_position(state: _Position) -> str:
    """The position text of ``state`` (docs/position.md): a ``State`` or ``RefState``."""
    if isinstance(state, str) or not hasattr(state, "bombs_played"):
        raise NotationError(
            f"state must be a State or RefState (State.parse reads a position text), not "
            f"{type(state).__name__}"
        )
    rules = state.rules
    table = state.table
    owner = state.table_owner
    bombs = [state.bombs_played(s) for s in range(4)]
    fields = (
        _format_rules(rules),
        "/".join(_format_cards(state.hand(s)) for s in range(4)),
        NONE if state.to_act is None else str(state.to_act),
        NONE if table is None else f"{_format_play(table, rules)}@{owner}",
        str(state.passes),
        "".join(str(s) for s in state.places) or NONE,
        "/".join(",".join(_format_play(p, rules) for p in b) or NONE for b in bombs),
        NONE if state.escape is None else str(state.escape),
    )
    return " ".join(fields)


def parse_position(text: str, rules: Rules | str | None = None, cls: Any = None) -> Any:
    """Read a position text and build it with ``cls.from_position`` (default the kernel's
    ``State``; the reference ``RefState`` works too). ``rules`` (a Rules or a preset name), if
    given, must be the rules the text names. Raises :class:`NotationError` naming the bad
    field and token (an impossible position too)."""
    if cls is None:
        from ._engine import State

        cls = State
    if not isinstance(text, str):
        raise NotationError(f"a position text is a str, not {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise NotationError(f"position text too long ({len(text)} > {MAX_LENGTH} characters)")
    fields = text.split()
    if len(fields) != len(FIELDS):
        if len(fields) > len(FIELDS):  # the docs' spaced card notation, '5 5 BJ' or '3 10'
            hint = (": cards are written one character each, glued, T for 10 ('55D', not "
                    "'5 5 BJ'; '3T', not '3 10'); spaces only separate the fields")
        elif fields and "/" in fields[0]:  # the hands first: the rules were left out
            hint = ": the first field names the rules, before the hands ('baibian 55D/-/77/3 …')"
        else:
            hint = ""
        raise NotationError(
            f"a position text has {len(FIELDS)} fields ({' '.join(FIELDS)}), got "
            f"{len(fields)}{hint}"
        )
    named = _parse_rules(fields[0])
    if isinstance(rules, str):
        rules = as_rules(rules)
    if rules is not None and named != rules:
        raise _error(0, f"the text names rules {_q(fields[0])}, not the {rules.name} given")
    hands = [
        _parse_cards(t, 1, f"the hand of seat {s}") for s, t in enumerate(_split4(fields[1], 1))
    ]
    to_act = _parse_seat(fields[2], 2)
    table: Play | None = None
    owner: int | None = None
    if fields[3] != NONE:
        play_text, at, owner_text = fields[3].rpartition("@")
        if not at:
            raise _error(3, f"expected cards@owner, not {_q(fields[3])}")
        table = _parse_play(play_text, named, 3, "the table")
        owner = _parse_seat(owner_text, 3, allow_none=False)
    # ASCII digits only: str.isdigit and int() also take '٢' (read as 2) and '²' (int()'s
    # bare ValueError)
    passes = _DIGITS.find(fields[4]) if len(fields[4]) == 1 else -1
    if passes < 0:
        raise _error(4, f"expected a count 0..9, not {_q(fields[4])}")
    places: list[int] = []
    if fields[5] != NONE:
        if len(fields[5]) > 4:
            raise _error(5, f"at most 4 seats, not {_q(fields[5])}")
        for c in fields[5]:
            seat = _parse_seat(c, 5, allow_none=False)
            assert seat is not None
            places.append(seat)
    bombs: list[list[Play]] = []
    for s, part in enumerate(_split4(fields[6], 6)):
        seat_bombs = []
        if part != NONE:
            for tok in part.split(","):
                bomb = _parse_play(tok, named, 6, f"the bombs of seat {s}")
                if not bomb.is_bomb:
                    raise _error(6, f"{_q(tok)} is not a bomb (seat {s})")
                seat_bombs.append(bomb)
        bombs.append(seat_bombs)
    escape = _parse_seat(fields[7], 7)
    try:
        state = cls.from_position(
            named, hands, to_act, table=table, table_owner=owner, passes=passes,
            places=tuple(places), bombs=tuple(tuple(b) for b in bombs), escape=escape,
        )
    except ValueError as e:
        raise NotationError(f"position text: impossible position: {e}") from None
    return state
