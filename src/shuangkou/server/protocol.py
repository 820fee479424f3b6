"""The wire protocol (docs/protocol.md): its version, the error codes, and the checks every
client message passes before it reaches a table.

A client message is one JSON object per WebSocket text frame with a ``type``; it may carry an
``id`` (a string or integer of the client's choosing) that every reply to it echoes as
``reply_to`` — errors included, as soon as the frame is an object with a well-formed ``id``.
HTTP bodies go through the same JSON check (:func:`load_json`), so a fault has one error code
on both transports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson

__all__ = [
    "ACTIONS", "CLIENT_TYPES", "ERRORS", "HTTP_STATUS", "MAX_BODY", "MAX_DEPTH", "MAX_FRAME",
    "MAX_NAME", "PROTOCOL_VERSION", "ClientMessage", "ProtocolError", "encode",
    "error_message", "has_control", "is_table_id", "load_json", "parse_client", "with_reply",
]

PROTOCOL_VERSION = 2
"""Bumped on any change a client could notice (docs/protocol.md "Versioning"); the JSON Schema
``protocol.schema.json`` carries the same number."""

MAX_FRAME = 4096
"""Largest client frame in bytes; a bigger one closes the connection (1009)."""
MAX_BODY = 16 * 1024
"""Largest HTTP request body in bytes (413)."""
MAX_DEPTH = 4
"""Deepest nesting of objects and arrays in a frame or body (the messages need 3)."""
MAX_NAME = 24
"""Longest player name (characters)."""

CLIENT_TYPES = ("join", "spectate", "play", "pass", "hint", "abandon", "ping")
ACTIONS = ("play", "pass", "abandon")
"""The client messages that are game actions."""

ERRORS: dict[str, str] = {
    "bad_json": "the frame is not a JSON object",
    "bad_message": "a field is missing or has the wrong type",
    "unknown_type": "the message type is not one of the protocol's",
    "not_joined": "join or spectate first",
    "already_joined": "this connection has already joined",
    "bad_token": "no seat has this token",
    "no_table": "no table with this id",
    "spectator": "spectators cannot act",
    "not_your_turn": "another seat is to act",
    "illegal": "the engine rejected the action",
    "stale": "the action was sent for an older state (seq)",
    "match_over": "the match is over",
    "flood": "too many messages; the connection is closed",
    "busy": "the table has too many spectators",
    "server": "the server could not store the action; nothing changed",
    "bad_config": "the table configuration is refused",
    "taken": "that place is not free",
    "full": "the server holds its maximum of tables",
    "rate": "too many tables created, or reads, from this address; try later",
    "too_many": "this address holds too many tables or connections",
    "unauthorized": "creating tables needs the server's credential",
    "timeout": "the request was not sent in time",
    "expired": "the table expired unfinished (idle too long); its log is kept",
    "elsewhere": "another node owns this table; retry (the proxy routes to it)",
    "too_large": "the HTTP body is too large",
}
"""Every error code with its meaning (docs/protocol.md "Errors")."""


HTTP_STATUS: dict[str, int] = {
    "bad_json": 400, "bad_message": 400, "bad_config": 400, "unauthorized": 401,
    "bad_token": 403, "no_table": 404, "timeout": 408, "taken": 409, "expired": 410,
    "too_large": 413, "rate": 429, "too_many": 429, "server": 500, "full": 503,
    "elsewhere": 503,
}
"""The HTTP status of each error code an HTTP request can get (the body is
``{"error": code, "message": text}``)."""


class ProtocolError(Exception):
    """A client message that is refused: ``code`` is one of :data:`ERRORS`."""

    def __init__(self, code: str, detail: str = "", reply_to: str | int | None = None) -> None:
        assert code in ERRORS, code
        super().__init__(detail or ERRORS[code])
        self.code = code
        self.detail: str = detail or ERRORS[code]
        self.reply_to = reply_to  # the frame's id, when it had a well-formed one


@dataclass(frozen=True)
class ClientMessage:
    """A checked client message: ``type``, the optional echo ``id``, and the fields its type
    takes (``table``/``token`` for join and spectate, ``cards``/``kind`` for play, ``seq`` for
    any action, ``n`` for hint)."""

    type: str
    id: str | int | None = None
    table: str | None = None
    token: str | None = None
    cards: tuple[int, ...] = ()
    kind: str | None = None
    seq: int | None = None
    n: int = 0


def _opt(doc: dict[str, Any], name: str, types: tuple[type, ...], limit: int = 200) -> Any:
    v = doc.get(name)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, types):
        raise ProtocolError("bad_message", f"{name!r} has the wrong type")
    if isinstance(v, str) and len(v) > limit:
        raise ProtocolError("bad_message", f"{name!r} is too long")
    if isinstance(v, int) and not -(2**53) <= v <= 2**53:
        raise ProtocolError("bad_message", f"{name!r} is out of range")
    return v


_TABLE_ID = re.compile(r"[0-9a-f]{16}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def is_table_id(text: str) -> bool:
    """Whether ``text`` has the form of a table id: 16 lowercase hex digits (anything else is
    ``no_table`` without asking the store)."""
    return _TABLE_ID.fullmatch(text) is not None


def has_control(text: str) -> bool:
    """Whether ``text`` holds a control character (NUL among them: PostgreSQL refuses it in
    text, and no name needs one)."""
    return _CONTROL.search(text) is not None


def load_json(data: str | bytes) -> dict[str, Any]:
    """A frame or HTTP body as a JSON object; :class:`ProtocolError` ``bad_json`` if it is not
    JSON, holds NaN/Infinity (orjson refuses them), is not an object or nests deeper than
    :data:`MAX_DEPTH`."""
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        raise ProtocolError("bad_json") from None
    if not isinstance(doc, dict):
        raise ProtocolError("bad_json", "the frame or body must be a JSON object")
    level: list[Any] = [doc]  # the containers at depth 1, 2, ...
    for _ in range(MAX_DEPTH):
        level = [v for x in level for v in (x.values() if isinstance(x, dict) else x)
                 if isinstance(v, (dict, list))]
        if not level:
            return doc
    raise ProtocolError("bad_json", f"nested deeper than {MAX_DEPTH} levels")


def parse_client(text: str | bytes) -> ClientMessage:
    """Check one client frame; raises :class:`ProtocolError` on anything malformed (with
    ``reply_to`` set once the frame's ``id`` is read). The cards are only checked for shape
    here (a list of 1..108 card ids, each 0..107): the engine decides whether they are
    held and legal."""
    doc = load_json(text)
    if "id" in doc and doc["id"] is None:  # an id, but not one a reply could echo
        raise ProtocolError("bad_message", "'id' must be a string or an integer, not null")
    mid = _opt(doc, "id", (str, int), 64)
    try:
        return _message(doc, mid)
    except ProtocolError as e:
        e.reply_to = mid
        raise


def _message(doc: dict[str, Any], mid: str | int | None) -> ClientMessage:
    typ = doc.get("type")
    if not isinstance(typ, str):  # missing or not a text: a field fault, not a type's
        raise ProtocolError("bad_message", "'type' must be a message type (a text)")
    if typ not in CLIENT_TYPES:
        shown = typ if len(typ) <= 20 else typ[:20] + "…"
        raise ProtocolError("unknown_type", f"unknown message type {shown!r}")
    cards: tuple[int, ...] = ()
    if typ == "play":
        raw = doc.get("cards")
        if not isinstance(raw, list) or not 0 < len(raw) <= 108:
            raise ProtocolError("bad_message", "'cards' must be a list of 1..108 card ids")
        if any(isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < 108
               for c in raw):  # not a card id at all: a field fault (held or not: illegal)
            raise ProtocolError("bad_message", "card ids must be integers 0..107")
        cards = tuple(raw)
    if typ in ("join", "spectate") and not isinstance(doc.get("table"), str):
        raise ProtocolError("bad_message", "'table' must be a table id")
    if typ == "join" and not isinstance(doc.get("token"), str):
        raise ProtocolError("bad_message", "'token' must be the seat's token")
    n = _opt(doc, "n", (int,))
    return ClientMessage(
        type=typ, id=mid, table=_opt(doc, "table", (str,), 64),
        token=_opt(doc, "token", (str,), 128), cards=cards, kind=_opt(doc, "kind", (str,), 20),
        seq=_opt(doc, "seq", (int,)), n=0 if n is None else n,
    )


def encode(message: dict[str, Any]) -> bytes:
    """A server message as the UTF-8 JSON of one text frame (orjson: compact, non-ASCII kept)."""
    return orjson.dumps(message)


def with_reply(message: dict[str, Any], reply_to: str | int | None) -> dict[str, Any]:
    """``message`` with ``reply_to`` when the frame it answers had an id."""
    if reply_to is not None:
        message["reply_to"] = reply_to
    return message


def error_message(err: ProtocolError, reply_to: str | int | None = None) -> dict[str, Any]:
    """The ``error`` message for ``err`` (``reply_to``: the frame's id, else the one the
    error carries)."""
    msg: dict[str, Any] = {"type": "error", "code": err.code, "message": err.detail}
    if reply_to is None:
        reply_to = err.reply_to
    if reply_to is not None:
        msg["reply_to"] = reply_to
    return msg
