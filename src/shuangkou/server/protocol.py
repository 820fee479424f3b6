"""The wire protocol (docs/protocol.md): its version, the error codes, and the checks every
client message passes before it reaches a table.

A client message is one JSON object per WebSocket text frame with a ``type``; it may carry an
``id`` (a string or integer of the client's choosing) that the reply echoes as ``reply_to``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

__all__ = [
    "ACTIONS", "CLIENT_TYPES", "MAX_FRAME", "PROTOCOL_VERSION", "ClientMessage", "ProtocolError",
    "encode", "error_message", "parse_client",
]

PROTOCOL_VERSION = 1
"""Bumped on any change a client could notice (docs/protocol.md "Versioning")."""

MAX_FRAME = 4096
"""Largest client frame in bytes; a bigger one closes the connection (1009)."""

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
}
"""Every error code with its meaning (docs/protocol.md "Errors")."""


class ProtocolError(Exception):
    """A client message that is refused: ``code`` is one of :data:`ERRORS`."""

    def __init__(self, code: str, detail: str = "") -> None:
        assert code in ERRORS, code
        super().__init__(detail or ERRORS[code])
        self.code = code
        self.detail: str = detail or ERRORS[code]


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


def parse_client(text: str) -> ClientMessage:
    """Check one client frame; raises :class:`ProtocolError` on anything malformed. The cards
    are only checked for shape here (a list of at most 108 integers): the engine decides
    whether they are held and legal."""
    try:
        doc = orjson.loads(text)
    except orjson.JSONDecodeError:  # also nesting deeper than 1,024 and NaN
        raise ProtocolError("bad_json") from None
    if not isinstance(doc, dict):
        raise ProtocolError("bad_json")
    typ = doc.get("type")
    if not isinstance(typ, str) or typ not in CLIENT_TYPES:
        shown = typ if isinstance(typ, str) and len(typ) <= 20 else "?"
        raise ProtocolError("unknown_type", f"unknown message type {shown!r}")
    mid = _opt(doc, "id", (str, int), 64)
    cards: tuple[int, ...] = ()
    if typ == "play":
        raw = doc.get("cards")
        if not isinstance(raw, list) or not 0 < len(raw) <= 108:
            raise ProtocolError("bad_message", "'cards' must be a list of 1..108 card ids")
        if any(isinstance(c, bool) or not isinstance(c, int) for c in raw):
            raise ProtocolError("bad_message", "card ids must be integers")
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


def error_message(err: ProtocolError, reply_to: str | int | None = None) -> dict[str, Any]:
    """The ``error`` message for ``err``."""
    msg: dict[str, Any] = {"type": "error", "code": err.code, "message": err.detail}
    if reply_to is not None:
        msg["reply_to"] = reply_to
    return msg
