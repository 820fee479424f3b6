"""The web server (aiohttp): the JSON HTTP API, the WebSocket endpoint, the table page.

Routes (docs/protocol.md): ``GET /`` the table page, ``GET /static/…`` its files,
``GET /api`` the protocol version, ``GET|POST /api/tables``, ``GET /api/tables/{id}``,
``POST /api/tables/{id}/join``, ``GET /api/tables/{id}/log``, ``GET /ws`` the WebSocket.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import time
from collections import deque
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from ..errors import IllegalPlayError
from ..game import SPECTATOR
from .commit import GroupCommit
from .config import ConfigError, TableConfig
from .hints import HINT_BUDGET, HintSolver
from .protocol import (
    ACTIONS,
    MAX_FRAME,
    PROTOCOL_VERSION,
    ClientMessage,
    ProtocolError,
    encode,
    error_message,
    parse_client,
)
from .store import Store, open_store
from .table import Table
from .views import action_view, result_view

__all__ = ["Limits", "Server", "make_app", "new_event_loop", "serve"]

log: logging.Logger = logging.getLogger("shuangkou.server")
STATIC = Path(__file__).parent / "static"


class Limits:
    """Abuse limits (docs/protocol.md "Limits"): a connection may send ``rate`` messages a
    second that are not accepted actions, with bursts of ``burst``; it must join within
    ``auth_timeout`` seconds; at most ``queue`` messages wait for a slow client before it is
    dropped; a table takes at most ``spectators`` spectators; the server holds at most
    ``tables`` unfinished tables."""

    def __init__(self, *, rate: float = 20.0, burst: float = 40.0, auth_timeout: float = 10.0,
                 queue: int = 512, spectators: int = 50, tables: int = 2000) -> None:
        self.rate = rate
        self.burst = burst
        self.auth_timeout = auth_timeout
        self.queue = queue
        self.spectators = spectators
        self.tables = tables


class Connection:
    """One WebSocket: a bounded send queue drained by its own task (a slow client never
    stalls a table), a token bucket against floods, and the place it joined. A close goes
    through the queue too, so what was sent before it (an error) arrives first.

    The queue is a deque and the drain task sleeps on one future, woken by the first message
    queued: this runs once per message, so it is kept to a few C calls (an
    :class:`asyncio.Queue` costs several times more)."""

    def __init__(self, ws: web.WebSocketResponse, limits: Limits) -> None:
        self.ws = ws
        self.limits = limits
        self.queue: deque[bytes | tuple[int, str]] = deque()
        self.table: Table | None = None
        self.player: int | None = None
        self.joined = False
        self.closing: bool = False
        self._tokens = limits.burst
        self._last = time.monotonic()
        self._loop = asyncio.get_running_loop()
        self._wake: asyncio.Future[None] | None = None
        self.sender: asyncio.Future[None] = asyncio.ensure_future(self._drain())

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message; a client too slow to take ``queue`` of them is dropped."""
        self.send_encoded(encode(message))

    def send_encoded(self, data: bytes) -> None:
        """Queue an already encoded message (a broadcast encodes once for many)."""
        if self.closing:
            return
        if len(self.queue) >= self.limits.queue:
            self.close(1008, "too slow: the send queue is full")
            return
        self._push(data)

    def close(self, code: int, reason: str) -> None:
        """Close after what is queued (at once if the queue is full)."""
        if self.closing:
            return
        self.closing = True
        if len(self.queue) < self.limits.queue:
            self._push((code, reason))
        else:
            self.sender.cancel()
            asyncio.ensure_future(self.ws.close(code=code, message=reason.encode()[:120]))

    def _push(self, item: bytes | tuple[int, str]) -> None:
        self.queue.append(item)
        wake = self._wake
        if wake is not None:
            self._wake = None
            wake.set_result(None)

    async def _drain(self) -> None:
        queue = self.queue
        while True:
            if not queue:
                self._wake = self._loop.create_future()
                await self._wake
            item = queue.popleft()
            if isinstance(item, tuple):
                await self.ws.close(code=item[0], message=item[1].encode()[:120])
                return
            try:
                await self.ws.send_frame(item, WSMsgType.TEXT)
            except (ConnectionError, RuntimeError):
                return

    def allow(self) -> bool:
        """Take a token from the bucket; ``False`` = flooding."""
        now = time.monotonic()
        self._tokens = min(self.limits.burst, self._tokens + (now - self._last) * self.limits.rate)
        self._last = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True


class Server:
    """The tables of one server process and its store. ``bot_delay`` is how long a bot waits
    before moving (so people can follow); ``allow_seed`` lets a create request choose the
    seed (tests only: a known seed reveals every hand); ``hint_budget`` is how long the
    solver's hint order may take before a hint falls back to smallest-first (:mod:`.hints`)."""

    def __init__(self, store: Store, *, bot_delay: float = 0.5, allow_seed: bool = False,
                 limits: Limits | None = None, hint_budget: float = HINT_BUDGET) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.allow_seed = allow_seed
        self.limits: Limits = limits or Limits()
        self.commits: GroupCommit = GroupCommit(store)
        self.hints: HintSolver = HintSolver(hint_budget)
        self._tasks: set[asyncio.Future[None]] = set()
        self.tables: dict[str, Table] = {}
        self.connections: set[Connection] = set()

    def resume(self) -> int:
        """Rebuild every unfinished stored table and restart its bots and timers; returns
        how many. A table whose stored log the engine refuses is logged and left out."""
        for stored in self.store.tables(unfinished_only=True):
            try:
                table = Table.restore(stored.id, self.commits, bot_delay=self.bot_delay)
            except (IllegalPlayError, ValueError, KeyError):  # a damaged log: skip that table
                log.exception("table %s cannot be restored; left out", stored.id)
                continue
            self.tables[table.id] = table
            table.schedule()
        return len(self.tables)

    def find(self, table_id: str) -> Table:
        """A table by id (a finished one is rebuilt from the store on demand)."""
        table = self.tables.get(table_id)
        if table is None:
            if not isinstance(table_id, str) or len(table_id) > 64:
                raise ProtocolError("no_table")
            try:
                table = Table.restore(table_id, self.commits, bot_delay=self.bot_delay)
            except KeyError:
                raise ProtocolError("no_table") from None
            self.tables[table.id] = table
        return table

    # -- HTTP ------------------------------------------------------------------------------
    async def version(self, request: web.Request) -> web.Response:
        return web.json_response({"protocol": PROTOCOL_VERSION, "server": "shuangkou"})

    async def list_tables(self, request: web.Request) -> web.Response:
        tables = sorted(self.tables.values(), key=lambda t: t.created)
        return web.json_response({"tables": [t.public() for t in tables]})

    async def create_table(self, request: web.Request) -> web.Response:
        doc = await _json_body(request)
        try:
            config = TableConfig.from_request(doc, allow_seed=self.allow_seed)
        except ConfigError as e:
            return _http_error(400, "bad_config", str(e))
        if sum(not t.finished for t in self.tables.values()) >= self.limits.tables:
            return _http_error(503, "full", "the server holds its maximum of tables")
        table = Table.create(config, self.commits, bot_delay=self.bot_delay)
        self.tables[table.id] = table
        table.schedule()
        return web.json_response(table.public(), status=201)

    async def table_info(self, request: web.Request) -> web.Response:
        return web.json_response(self._table(request).public())

    async def join(self, request: web.Request) -> web.Response:
        table = self._table(request)
        doc = await _json_body(request)
        if not isinstance(doc, dict):
            return _http_error(400, "bad_message", "the request body must be a JSON object")
        player, name = doc.get("player"), doc.get("name", "")
        if player is not None and (type(player) is not int or not 0 <= player < 4):
            return _http_error(400, "bad_message", "'player' must be 0..3 or absent")
        if not isinstance(name, str) or len(name) > 24:
            return _http_error(400, "bad_message", "'name' must be a text of at most 24 chars")
        try:
            player, token = table.take(player, name.strip())
        except ValueError as e:
            return _http_error(409, "taken", str(e))
        return web.json_response({"table": table.id, "player": player, "token": token})

    async def table_log(self, request: web.Request) -> web.Response:
        """The public log of accepted actions and the results, and each deal's engine log as
        a spectator sees it (:meth:`Game.log`, no hand); with a place's token (an
        ``Authorization: Bearer`` header) each deal's log as that place's seat sees it."""
        table = self._table(request)
        player = None
        auth = request.headers.get("Authorization", "")
        if auth:
            player = table.player_for(auth.removeprefix("Bearer ").strip())
            if player is None:
                return _http_error(403, "bad_token", "no place has this token")
        body: dict[str, Any] = {
            "table": table.id, "config": table.config.public(), "player": player,
            "log": [action_view(a) for a in table.log],
            "results": [result_view(g) for g in table.match.games if g.is_over],
            "deals": [g.log(seat=SPECTATOR if player is None else g.players.index(player))
                      for g in table.match.games],
        }
        return web.json_response(body)

    def _table(self, request: web.Request) -> Table:
        try:
            return self.find(request.match_info["id"])
        except ProtocolError:
            raise web.HTTPNotFound(
                text=json.dumps({"error": "no_table", "message": "no table with this id"}),
                content_type="application/json",
            ) from None

    # -- WebSocket -------------------------------------------------------------------------
    async def websocket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=MAX_FRAME, heartbeat=30.0)
        await ws.prepare(request)
        conn = Connection(ws, self.limits)
        self.connections.add(conn)
        guard = asyncio.get_running_loop().call_later(
            self.limits.auth_timeout, self._auth_timeout, conn)
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    # Accepted actions are paced by the turn order; everything else (errors,
                    # hints, pings, refused actions) draws on the bucket.
                    if not self._handle(conn, msg.data) and not self._charge(conn):
                        break
                elif msg.type == WSMsgType.BINARY:
                    conn.send(error_message(ProtocolError("bad_json", "text frames only")))
        finally:
            self.connections.discard(conn)
            guard.cancel()
            if conn.table is not None and conn.joined:
                conn.table.detach(conn.player, conn)
            conn.close(1000, "")
            await asyncio.wait([conn.sender], timeout=5.0)
        return ws

    def _auth_timeout(self, conn: Connection) -> None:
        if not conn.joined:
            conn.close(4408, "join or spectate within the time limit")

    @staticmethod
    def _charge(conn: Connection) -> bool:
        """Take a token for a message that is not an accepted action; ``False`` (and the
        connection closing) if it is flooding."""
        if conn.allow():
            return True
        conn.send(error_message(ProtocolError("flood")))
        conn.close(1008, "flood")
        return False

    def _handle(self, conn: Connection, text: str) -> bool:
        """Answer one client frame; ``True`` if it was an action (submitted: a refusal is
        answered, and charged to the bucket, when the batch is validated)."""
        msg: ClientMessage | None = None
        try:
            msg = parse_client(text)
            reply = self._dispatch(conn, msg)
            if reply is not None:
                conn.send(reply)
            return msg.type in ACTIONS
        except ProtocolError as e:
            conn.send(error_message(e, None if msg is None else msg.id))
        except Exception:  # a bug must cost one reply, never the server or the table
            log.exception("internal error on a client message")
            conn.send(error_message(ProtocolError("server", "internal error"),
                                    None if msg is None else msg.id))
        return False

    async def _hint(self, conn: Connection, table: Table, player: int,
                    msg: ClientMessage) -> None:
        try:
            conn.send({**await table.hint(player, msg.n, self.hints), "reply_to": msg.id})
        except ProtocolError as e:  # the position moved on while the hint was computed
            conn.send(error_message(e, msg.id))
        except Exception:  # a bug must cost one reply, never the server
            log.exception("internal error on a hint")
            conn.send(error_message(ProtocolError("server", "internal error"), msg.id))

    def _dispatch(self, conn: Connection, msg: ClientMessage) -> dict[str, Any] | None:
        if msg.type == "ping":
            return {"type": "pong", "reply_to": msg.id}
        if msg.type in ("join", "spectate"):
            if conn.joined:
                raise ProtocolError("already_joined")
            assert msg.table is not None
            table = self.find(msg.table)
            player = None
            if msg.type == "join":
                assert msg.token is not None
                player = table.player_for(msg.token)
                if player is None:
                    raise ProtocolError("bad_token")
            elif len(table.spectators) >= self.limits.spectators:
                raise ProtocolError("busy")
            conn.table, conn.player, conn.joined = table, player, True
            table.attach(player, conn)
            return None
        joined = conn.table
        if joined is None or not conn.joined:
            raise ProtocolError("not_joined")
        if conn.player is None:
            raise ProtocolError("spectator")
        if msg.type == "hint":
            joined.check_hint(conn.player)  # refused at once; the answer may take a while
            task = asyncio.ensure_future(self._hint(conn, joined, conn.player, msg))
            self._tasks.add(task)  # a strong reference until it is done
            task.add_done_callback(self._tasks.discard)
            return None
        def refuse(err: ProtocolError, reply_to: str | int | None = msg.id) -> None:
            conn.send(error_message(err, reply_to))
            self._charge(conn)

        joined.act(conn.player, msg.type, msg.cards, msg.kind, seq=msg.seq, reply_to=msg.id,
                   refuse=refuse)
        return None

    # -- pages -----------------------------------------------------------------------------
    async def page(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html")

    def stop(self) -> None:
        """Stop every table's timer and close every connection (1001, going away)."""
        for table in self.tables.values():
            table.stop()
        for conn in list(self.connections):
            conn.close(1001, "the server is shutting down")


async def _json_body(request: web.Request) -> object:
    try:
        return await request.json()
    except (ValueError, UnicodeDecodeError):
        raise web.HTTPBadRequest(
            text=json.dumps({"error": "bad_json", "message": "the body is not JSON"}),
            content_type="application/json",
        ) from None


def _http_error(status: int, code: str, message: str) -> web.Response:
    return web.json_response({"error": code, "message": message}, status=status)


@web.middleware
async def _security_headers(request: web.Request, handler: Any) -> web.StreamResponse:
    resp: web.StreamResponse = await handler(request)
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("Referrer-Policy", "no-referrer")
    resp.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:",
    )
    return resp


def make_app(server: Server) -> web.Application:
    """The aiohttp application of a :class:`Server` (bodies are limited to 16 KiB)."""
    app = web.Application(client_max_size=16 * 1024, middlewares=[_security_headers])
    app.add_routes([
        web.get("/", server.page),
        web.get("/api", server.version),
        web.get("/api/tables", server.list_tables),
        web.post("/api/tables", server.create_table),
        web.get("/api/tables/{id}", server.table_info),
        web.post("/api/tables/{id}/join", server.join),
        web.get("/api/tables/{id}/log", server.table_log),
        web.get("/ws", server.websocket),
        web.static("/static", STATIC),
    ])

    async def on_startup(app: web.Application) -> None:
        server.store.checkpoint_in_background()  # no checkpoint stalls the event loop
        n = server.resume()
        log.info("resumed %d unfinished table(s) from %s", n, server.store.url)

    async def on_shutdown(app: web.Application) -> None:
        server.stop()

    async def on_cleanup(app: web.Application) -> None:
        await server.hints.aclose()
        server.store.close()

    app.on_startup.append(on_startup)
    app.on_shutdown.append(on_shutdown)
    app.on_cleanup.append(on_cleanup)
    return app


def serve(db: str = "sqlite://shuangkou.db", host: str = "127.0.0.1", port: int = 8000, *,
          bot_delay: float = 0.5, allow_seed: bool = False, durable: bool = False,
          hint_budget: float = HINT_BUDGET) -> None:
    """Run a server until interrupted (what ``shuangkou serve`` calls)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    quiet_collector()
    server = Server(open_store(db, durable=durable), bot_delay=bot_delay, allow_seed=allow_seed,
                    hint_budget=hint_budget)
    web.run_app(make_app(server), host=host, port=port, access_log=None, shutdown_timeout=5.0,
                print=lambda s: log.info("%s", s.strip()), loop=new_event_loop())


def quiet_collector() -> None:
    """Keep the cyclic garbage collector's full passes out of the event loop's way: a server
    holds ~100 k long-lived objects (tables, sockets), and a full pass over them stalled every
    table for tens of ms (the p99 of the load test). Objects alive at start-up are frozen
    (never scanned again) and the youngest generation is collected less often; reference
    counting still frees almost everything at once."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 50, 1_000)


def new_event_loop() -> asyncio.AbstractEventLoop:
    """uvloop's event loop where it exists (the server extra installs it off Windows: its
    sockets and timers are C, about a third of the CPU per action), else asyncio's."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()
