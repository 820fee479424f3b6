"""A WebSocket client of the server (aiohttp), and a bot that plays a place through it: what
the tests, the fault test and ``benchmarks/bench_server.py`` drive the server with, and a
starting point for a client of your own (docs/protocol.md).

::

    async with aiohttp.ClientSession() as http:
        table = await create_table(http, "http://127.0.0.1:8000", seats=["open"] * 4)
        joined = await join_table(http, "http://127.0.0.1:8000", table["id"])
        client = await TableClient.connect(http, "http://127.0.0.1:8000", table["id"],
                                           joined["token"])
        await client.play_out()             # smallest-first until the match is over
"""

from __future__ import annotations

import time
from typing import Any

import aiohttp
import orjson

from ..cards import CARD_RANKS, N_RANKS, Hand
from ..game import play_from_dict
from ..plays import Play, legal_plays
from ..rules import Rules

__all__ = ["TableClient", "choose", "create_table", "ids_for", "join_table"]


async def create_table(http: aiohttp.ClientSession, base: str, **config: Any) -> dict[str, Any]:
    """``POST /api/tables`` with ``config`` (docs/protocol.md "Create a table")."""
    async with http.post(f"{base}/api/tables", json=config) as resp:
        doc: dict[str, Any] = await resp.json()
        if resp.status != 201:
            raise RuntimeError(f"create table: {resp.status} {doc}")
        return doc


async def join_table(http: aiohttp.ClientSession, base: str, table: str,
                     player: int | None = None, name: str = "") -> dict[str, Any]:
    """``POST /api/tables/{id}/join``: a place and its token."""
    body: dict[str, Any] = {"name": name}
    if player is not None:
        body["player"] = player
    async with http.post(f"{base}/api/tables/{table}/join", json=body) as resp:
        doc: dict[str, Any] = await resp.json()
        if resp.status != 200:
            raise RuntimeError(f"join: {resp.status} {doc}")
        return doc


def ids_for(play: Play, hand: list[int]) -> list[int]:
    """Physical ids from ``hand`` for ``play``: the lowest ids of each rank it takes."""
    need = list(play.cards.counts)
    out = []
    for c in sorted(hand):
        r = CARD_RANKS[c]
        if need[r]:
            need[r] -= 1
            out.append(c)
    return out


def hint_key(play: Play) -> tuple[int, int, int, int, int, int]:
    """Smallest-first: (kind, size, length, top, width, wilds) of a play, read from its tag
    (docs/internals.md; :meth:`Play.sort_key` builds a Hand per call, ~100x slower)."""
    tag = play.tag
    return (tag & 15, tag >> 22 & 63, tag >> 13 & 15, tag >> 4 & 15, tag >> 8 & 31,
            tag >> 28 & 7)


def choose(state: dict[str, Any], rules: Rules, table: Play | None = None) -> Play | None:
    """The smallest-first play (:func:`hint_key`) for a state whose turn it is; ``None`` = pass
    (nothing beats the table). Never passes on a lead (R4). ``table``: the state's table play
    if the caller has it parsed already."""
    counts = [0] * N_RANKS
    for c in state["hand"]:
        counts[CARD_RANKS[c]] += 1
    if table is None and state["table"] is not None:
        table = play_from_dict(state["table"])
    plays = legal_plays(Hand.from_counts(counts), rules, table, wilds="fewest")
    return min(plays, key=hint_key) if plays else None


class TableClient:
    """One connection to a table: ``welcome`` is the first message, ``state`` the latest
    state, ``seen`` every accepted action received (seq → action), ``latencies`` the seconds
    from sending an action to receiving its update."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse, welcome: dict[str, Any]) -> None:
        self.ws = ws
        self.welcome = welcome
        self.player: int | None = welcome["player"]
        self.state: dict[str, Any] = welcome["state"]
        self.rules: Rules = Rules.from_dict(welcome["config"]["options"])
        self.seen: dict[int, dict[str, Any]] = {a["seq"]: a for a in welcome["log"]}
        self.results: list[dict[str, Any]] = list(welcome["results"])
        self.errors: list[dict[str, Any]] = []
        self.latencies: list[float] = []
        self._sent: dict[int, float] = {}
        self._table_key: tuple[Any, ...] | None = None
        self._table: Play | None = None
        self._next_id = 0

    @classmethod
    async def connect(cls, http: aiohttp.ClientSession, base: str, table: str,
                      token: str | None = None) -> TableClient:
        """Open ``/ws`` and join (with a token) or spectate (without); waits for the welcome.
        Raises :class:`ConnectionError` if the server closes first, ``RuntimeError`` if it
        refuses."""
        ws = await http.ws_connect(f"{base.replace('http', 'ws', 1)}/ws?table={table}",
                                   max_msg_size=0)
        hello = {"type": "join", "table": table, "token": token} if token else \
            {"type": "spectate", "table": table}
        await ws.send_str(orjson.dumps(hello).decode())
        while True:
            raw = await ws.receive()
            if raw.type != aiohttp.WSMsgType.TEXT:
                raise ConnectionError(f"closed before the welcome: {ws.close_code}")
            msg = orjson.loads(raw.data)
            if msg["type"] == "welcome":
                return cls(ws, msg)
            if msg["type"] == "error":
                await ws.close()
                raise RuntimeError(f"join refused: {msg}")

    async def send(self, message: dict[str, Any]) -> int:
        """Send a message with a fresh ``id``; returns it."""
        self._next_id += 1
        message = {**message, "id": self._next_id}
        self._sent[self._next_id] = time.perf_counter()
        await self.ws.send_str(orjson.dumps(message).decode())
        return self._next_id

    async def receive(self, timeout: float | None = 30.0) -> dict[str, Any] | None:
        """The next message (applied to ``state``/``seen``), or ``None`` once closed."""
        raw = await self.ws.receive(timeout=timeout)
        if raw.type != aiohttp.WSMsgType.TEXT:
            return None
        msg: dict[str, Any] = orjson.loads(raw.data)
        if msg["type"] == "update":
            self.seen[msg["action"]["seq"]] = msg["action"]
            self.state = msg["state"]
            if "result" in msg:
                self.results.append(msg["result"])
        elif msg["type"] == "error":
            self.errors.append(msg)
        sent = self._sent.pop(msg.get("reply_to", -1), None) if "reply_to" in msg else None
        if sent is not None and msg["type"] == "update":
            self.latencies.append(time.perf_counter() - sent)
        return msg

    @property
    def my_turn(self) -> bool:
        """Whether this place is to act now."""
        s = self.state
        return not s["finished"] and s["seat"] is not None and s["to_act"] == s["seat"]

    async def act(self) -> None:
        """Make this place's move (smallest-first, :func:`choose`)."""
        table = self.state["table"]
        if table is not None:  # a trick's table play is parsed once, not once per answer
            key = tuple(table.values())
            if self._table_key != key:
                self._table_key, self._table = key, play_from_dict(table)
        play = choose(self.state, self.rules, None if table is None else self._table)
        if play is None:
            await self.send({"type": "pass", "seq": self.state["seq"]})
        else:
            await self.send({"type": "play", "cards": ids_for(play, self.state["hand"]),
                             "kind": play.kind.name.lower(), "seq": self.state["seq"]})

    async def play_out(self, timeout: float = 60.0) -> None:
        """Play this place until the match is over; raises :class:`ConnectionError` if the
        server closes the connection first."""
        acted_at = -1
        while not self.state["finished"]:
            if self.my_turn and acted_at != self.state["seq"]:
                acted_at = self.state["seq"]
                await self.act()
            if await self.receive(timeout) is None:
                raise ConnectionError(
                    f"closed before the match ended: {self.ws.close_code} {self.errors[-1:]}")

    async def close(self) -> None:
        """Close the connection."""
        await self.ws.close()
