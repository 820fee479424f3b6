"""The web server (aiohttp): the JSON HTTP API, the WebSocket endpoint, the table page.

Routes (docs/protocol.md): ``GET /`` the table page, ``GET /static/…`` its files,
``GET /api`` the protocol version, ``GET|POST /api/tables``, ``GET /api/tables/{id}``,
``POST /api/tables/{id}/join``, ``GET /api/tables/{id}/log``, ``GET /ws`` the WebSocket.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import time
from collections import deque
from ipaddress import ip_address
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from .._check import as_int
from ..errors import IllegalPlayError
from .commit import GroupCommit
from .config import ConfigError, TableConfig, seat_kinds
from .limits import AddressBuckets, Limits, proxy_networks
from .ownership import Ownership
from .protocol import (
    ACTIONS,
    HTTP_STATUS,
    MAX_BODY,
    MAX_FRAME,
    MAX_NAME,
    PROTOCOL_VERSION,
    ClientMessage,
    ProtocolError,
    encode,
    error_message,
    has_control,
    is_table_id,
    load_json,
    parse_client,
    with_reply,
)
from .store import Store, open_store
from .table import Table, new_id
from .views import listed_view

__all__ = ["Limits", "Server", "handler_args", "make_app", "new_event_loop", "serve"]

log: logging.Logger = logging.getLogger("shuangkou.server")
STATIC = Path(__file__).parent / "static"


class Connection:
    """One WebSocket: a bounded send queue drained by its own task (a slow client never
    stalls a table), a token bucket against floods, and the place it joined. A close goes
    through the queue too, so what was sent before it (an error) arrives first.

    The queue is a deque and the drain task sleeps on one future, woken by the first message
    queued: this runs once per message, so it is kept to a few C calls (an
    :class:`asyncio.Queue` costs several times more)."""

    def __init__(self, ws: web.WebSocketResponse, limits: Limits, address: str = "?") -> None:
        self.ws = ws
        self.limits = limits
        self.address = address  # the client's (per-address limits)
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
    seed (tests only: a known seed reveals every hand); ``ownership`` says which tables this
    process may serve (one process: all; a cluster node: those whose lease it holds,
    :mod:`.cluster`)."""

    def __init__(self, store: Store, *, bot_delay: float = 0.5, allow_seed: bool = False,
                 limits: Limits | None = None, ownership: Ownership | None = None) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.allow_seed = allow_seed
        self.limits: Limits = limits or Limits()
        self.ownership: Ownership = ownership or Ownership()
        self.commits: GroupCommit = GroupCommit(store)
        self.tables: dict[str, Table] = {}
        self.connections: set[Connection] = set()
        self.per_address: dict[str, int] = {}  # open WebSocket connections per address
        self._creations = AddressBuckets(self.limits.create_rate, self.limits.create_burst)
        self._reads = AddressBuckets(self.limits.read_rate, self.limits.read_burst)
        self._sweeper: asyncio.Task[None] | None = None

    def _load(self, table_id: str) -> Table:
        table = Table.restore(table_id, self.commits, bot_delay=self.bot_delay,
                              pause_unwatched=self.limits.pause_unwatched)
        table.on_finish = self.ownership.release
        self.tables[table.id] = table
        table.schedule()
        return table

    def resume(self) -> int:
        """Rebuild every unfinished stored table this process may own and restart its bots
        and timers; returns how many. A table whose stored log the engine refuses is logged
        and left out."""
        for stored in self.store.tables(unfinished_only=True):
            if stored.id not in self.tables and self.ownership.claim(stored.id):
                self._restore_owned(stored.id)
        return len(self.tables)

    def _restore_owned(self, table_id: str) -> Table | None:
        try:
            return self._load(table_id)
        except (IllegalPlayError, ValueError, KeyError):  # a damaged log: skip that table
            log.exception("table %s cannot be restored; left out", table_id)
            self.ownership.release(table_id)
            return None

    def find(self, table_id: str) -> Table:
        """A table by id. One not in memory is rebuilt from the store: an unfinished one only
        if this process can take its ownership (else ``elsewhere``), a finished or expired one
        always (it is read-only)."""
        table = self.tables.get(table_id)
        if table is not None:
            return table
        if not isinstance(table_id, str) or not is_table_id(table_id):
            raise ProtocolError("no_table")  # never sent to the store (PostgreSQL refuses NUL)
        stored = self.store.table(table_id)
        if stored is None:
            raise ProtocolError("no_table")
        if not stored.finished and not stored.expired:
            if not self.ownership.claim(table_id):
                raise ProtocolError("elsewhere")
            found = self._restore_owned(table_id)
            if found is None:
                raise ProtocolError("server", "the table's log cannot be restored")
            return found
        return self._load(table_id)

    def address(self, request: web.Request) -> str:
        """The client's address: the peer; or, with ``trust_forwarded`` and a peer that is
        one of ``proxies``, the address that proxy added: the last entry of the last
        ``X-Forwarded-For`` line (HAProxy adds a line of its own after any the client sent,
        and the client can write anything in those)."""
        peer = request.remote or "?"
        if not self.limits.trust_forwarded:
            return peer
        lines = request.headers.getall("X-Forwarded-For", ())
        if not lines or not _is_proxy(peer, self.limits.proxies):
            return peer
        return lines[-1].rsplit(",", 1)[-1].strip() or peer

    # -- expiry ----------------------------------------------------------------------------
    def sweep(self) -> None:
        """Expire unfinished tables idle for ``limits.idle`` seconds (stored as expired, log
        kept, connections closed with 4410); forget finished tables nobody watches; adopt
        tables no node owns (a cluster node whose peer died, :mod:`.cluster`)."""
        now = time.monotonic()
        for table in list(self.tables.values()):
            idle = now - table.active
            if not table.closed and idle >= self.limits.idle:
                table.expire()
                log.info("table %s expired after %.0f s idle", table.id, idle)
            if table.closed and not table.watched and idle >= min(self.limits.idle, 60.0):
                del self.tables[table.id]
        for table_id in self.ownership.orphans(set(self.tables)):
            if table_id not in self.tables and self.ownership.claim(table_id):
                if self._restore_owned(table_id) is not None:
                    log.info("table %s adopted", table_id)
        self._creations.prune()
        self._reads.prune()

    async def _sweep_forever(self) -> None:
        every = max(0.05, min(self.limits.idle / 4, self.ownership.scan_every, 30.0))
        while True:
            await asyncio.sleep(every)
            try:
                self.sweep()
            except Exception:  # a sweep that fails is retried, never fatal
                log.exception("sweep failed")

    # -- HTTP ------------------------------------------------------------------------------
    async def version(self, request: web.Request) -> web.Response:
        return _json({"protocol": PROTOCOL_VERSION, "server": "shuangkou",
                                  "node": self.ownership.node, "pid": os.getpid()})

    async def list_tables(self, request: web.Request) -> web.Response:
        """The tables this server holds as they stand; on a cluster node, also every other
        unfinished table of the shared store (another node's, :func:`.views.listed_view`),
        so that every node lists the same tables. Oldest first."""
        self._read(request)
        shown = [(t.created, t.id, t.public()) for t in self.tables.values()]
        if self.ownership.node is not None:
            for row in self.store.listing():
                if row.id not in self.tables and (view := listed_view(row)) is not None:
                    shown.append((row.created, row.id, view))
        shown.sort(key=lambda x: (x[0], x[1]))
        return _json({"tables": [view for _, _, view in shown]})

    async def list_bots(self, request: web.Request) -> web.Response:
        """The bots a place can be filled with, in the lobby's order (docs/protocol.md)."""
        self._read(request)
        return _json({"bots": list(seat_kinds()[1:])})

    async def create_table(self, request: web.Request) -> web.Response:
        address = self.address(request)
        key = self.limits.create_key
        authorized = request.headers.get("Authorization", "") == f"Bearer {key}"
        if key is not None and not authorized:
            raise ProtocolError("unauthorized")
        doc = await self._json_body(request)
        try:
            config = TableConfig.from_request(doc, allow_seed=self.allow_seed)
        except ConfigError as e:
            raise ProtocolError("bad_config", str(e)) from None
        open_tables = [t for t in self.tables.values() if not t.closed]
        if len(open_tables) >= self.limits.tables:
            raise ProtocolError("full")
        if key is None:  # the credential's holder is trusted: no per-address caps
            cap = self.limits.tables_per_address
            if cap and sum(t.creator == address for t in open_tables) >= cap:
                raise ProtocolError("too_many", f"this address holds {cap} unfinished tables")
            if not self._creations.take(address):
                raise ProtocolError("rate", "too many tables created from this address;"
                                    " try later")
        # The lease first, then the row: a stored table nobody leases is an orphan that
        # another node's adoption scan takes (the client would get no id and the table
        # would live on). So a table is created leased, or not at all.
        table_id = new_id()
        if not self.ownership.claim(table_id):  # 64 fresh random bits: nobody holds them
            raise ProtocolError("server", "could not take the new table's lease")
        try:
            table = Table.create(config, self.commits, bot_delay=self.bot_delay,
                                 pause_unwatched=self.limits.pause_unwatched,
                                 table_id=table_id)
        except Exception:
            self.ownership.release(table_id)
            log.exception("table %s could not be stored", table_id)
            raise ProtocolError("server", "the table could not be stored") from None
        table.creator = address
        table.on_finish = self.ownership.release
        self.tables[table.id] = table
        table.schedule()
        return _json(table.public(), status=201)

    def _read(self, request: web.Request) -> None:
        """Charge a read of tables to the client's address (``read_rate``); ``rate`` when
        its bucket is empty."""
        if not self._reads.take(self.address(request)):
            raise ProtocolError("rate", "too many reads from this address; try later")

    async def table_info(self, request: web.Request) -> web.Response:
        self._read(request)
        return _json(self._table(request).public())

    async def join(self, request: web.Request) -> web.Response:
        table = self._table(request)
        doc = await self._json_body(request)
        player, name = doc.get("player"), doc.get("name", "")
        if player is not None and (type(player) is not int or not 0 <= player < 4):
            raise ProtocolError("bad_message", "'player' must be 0..3 or absent")
        if not isinstance(name, str) or len(name) > MAX_NAME or has_control(name):
            raise ProtocolError("bad_message", f"'name' must be a text of at most {MAX_NAME}"
                                " characters, without control characters")
        player, token = table.take(player, name.strip())
        return _json({"table": table.id, "player": player, "token": token})

    async def table_log(self, request: web.Request) -> web.Response:
        """The table's log (docs/protocol.md "Log"): the accepted actions, the results, and
        each deal's engine log as the asker may see it — a finished deal whole (every hand as
        dealt; its seed once the match is over), the current one as a spectator sees it, or
        with a place's token (``Authorization: Bearer``) as that place's seat sees it."""
        self._read(request)
        table = self._table(request)
        player = None
        auth = request.headers.get("Authorization", "")
        if auth:
            player = table.player_for(auth.removeprefix("Bearer ").strip())
            if player is None:
                raise ProtocolError("bad_token")
        return _json(table.log_view(player))

    def _table(self, request: web.Request) -> Table:
        return self.find(request.match_info["id"])

    async def _json_body(self, request: web.Request) -> dict[str, Any]:
        """The request body as a JSON object (:func:`.protocol.load_json`), read within
        ``limits.body_timeout``."""
        try:
            data = await asyncio.wait_for(request.read(), self.limits.body_timeout)
        except TimeoutError:
            raise ProtocolError("timeout", "the body was not sent in time") from None
        except web.HTTPRequestEntityTooLarge:
            raise ProtocolError("too_large", f"the body is over {MAX_BODY} bytes") from None
        return load_json(data)

    # -- WebSocket -------------------------------------------------------------------------
    async def websocket(self, request: web.Request) -> web.StreamResponse:
        address = self.address(request)
        cap = self.limits.connections_per_address
        if cap and self.per_address.get(address, 0) >= cap:
            raise ProtocolError("too_many", f"this address has {cap} open connections")
        # aiohttp refuses a message of max_msg_size bytes or more: +1 takes MAX_FRAME itself
        ws = web.WebSocketResponse(max_msg_size=MAX_FRAME + 1, heartbeat=30.0)
        await ws.prepare(request)
        conn = Connection(ws, self.limits, address)
        self.connections.add(conn)
        self.per_address[address] = self.per_address.get(address, 0) + 1
        guard = asyncio.get_running_loop().call_later(
            self.limits.auth_timeout, self._auth_timeout, conn)
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    if not self._handle(conn, msg.data):
                        break
                elif msg.type == WSMsgType.BINARY:
                    if not self._refuse(conn, ProtocolError("bad_json", "text frames only")):
                        break
        finally:
            self.connections.discard(conn)
            left = self.per_address[address] - 1
            if left:
                self.per_address[address] = left
            else:
                del self.per_address[address]
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
    def _charge(conn: Connection, reply_to: str | int | None) -> bool:
        """Take a token for a frame that is not an accepted action, before it is answered;
        ``False`` if it is flooding: then the ``flood`` error is that frame's only answer
        (``reply_to``) and the connection closes."""
        if conn.allow():
            return True
        conn.send(error_message(ProtocolError("flood"), reply_to))
        conn.close(1008, "flood")
        return False

    def _refuse(self, conn: Connection, err: ProtocolError,
                reply_to: str | int | None = None) -> bool:
        """Answer a refused frame with its error, charged to the bucket first (:meth:`_charge`);
        ``False`` if it was flooding."""
        if not self._charge(conn, reply_to if reply_to is not None else err.reply_to):
            return False
        conn.send(error_message(err, reply_to))
        return True

    def _handle(self, conn: Connection, text: str) -> bool:
        """Answer one client frame, in one synchronous step (no await: nothing else can
        move the table between reading it and answering). Accepted actions are paced by the
        turn order; every other frame (errors, hints, pings, refused actions) draws on the
        flood bucket *before* it is answered, so each frame has one answer. An action is
        submitted: a refusal is charged and answered when the batch is validated. Returns
        ``False`` once the connection is closing for a flood."""
        try:
            msg = parse_client(text)
        except ProtocolError as e:
            return self._refuse(conn, e)
        action = msg.type in ACTIONS
        if not action and not self._charge(conn, msg.id):
            return False
        try:
            reply = self._dispatch(conn, msg)
        except ProtocolError as e:
            if action:
                return self._refuse(conn, e, msg.id)
            conn.send(error_message(e, msg.id))
            return True
        except Exception:  # a bug must cost one reply, never the server or the table
            log.exception("internal error on a client message")
            err = ProtocolError("server", "internal error")
            if action:
                return self._refuse(conn, err, msg.id)
            conn.send(error_message(err, msg.id))
            return True
        if reply is not None:
            conn.send(reply)
        return True

    def _dispatch(self, conn: Connection, msg: ClientMessage) -> dict[str, Any] | None:
        if msg.type == "ping":
            return with_reply({"type": "pong"}, msg.id)
        if msg.type in ("join", "spectate"):
            if conn.joined:
                raise ProtocolError("already_joined")
            if not self._reads.take(conn.address):  # a welcome is a read of the table
                raise ProtocolError("rate", "too many reads from this address; try later")
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
            table.attach(player, conn, msg.id)
            return None
        joined = conn.table
        if joined is None or not conn.joined:
            raise ProtocolError("not_joined")
        if conn.player is None:
            raise ProtocolError("spectator")
        if msg.type == "hint":
            return with_reply(joined.hint(conn.player, msg.n, msg.seq), msg.id)
        def refuse(err: ProtocolError, reply_to: str | int | None = msg.id) -> None:
            self._refuse(conn, err, reply_to)

        joined.act(conn.player, msg.type, msg.cards, msg.kind, seq=msg.seq, reply_to=msg.id,
                   refuse=refuse)
        return None

    # -- pages -----------------------------------------------------------------------------
    async def page(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html")

    def start(self) -> None:
        """Resume the stored tables and start the sweeper (the application's start-up)."""
        self.store.checkpoint_in_background()  # no checkpoint stalls the event loop
        n = self.resume()
        log.info("resumed %d unfinished table(s) from %s", n, self.store.url)
        self._sweeper = asyncio.ensure_future(self._sweep_forever())

    def stop(self) -> None:
        """Stop the sweeper and every table's timer and close every connection (1001, going
        away)."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        for table in self.tables.values():
            table.stop()
        for conn in list(self.connections):
            conn.close(1001, "the server is shutting down")


def _is_proxy(peer: str, proxies: str) -> bool:
    try:
        address = ip_address(peer)
    except ValueError:  # a Unix socket's peer, or none
        return False
    return any(address in net for net in proxy_networks(proxies))


def _json(doc: dict[str, Any], status: int = 200) -> web.Response:
    """An HTTP answer: ``doc`` encoded like every WebSocket message (:func:`.protocol.encode`)."""
    return web.Response(body=encode(doc), status=status, content_type="application/json")


@web.middleware
async def _protocol_errors(request: web.Request, handler: Any) -> web.StreamResponse:
    """An HTTP handler's :class:`ProtocolError` as ``{"error": code, "message": text}`` with
    the code's status (:data:`.protocol.HTTP_STATUS`)."""
    try:
        resp: web.StreamResponse = await handler(request)
    except ProtocolError as e:
        resp = _json({"error": e.code, "message": e.detail}, status=HTTP_STATUS[e.code])
        if e.code in ("timeout", "too_large"):  # do not wait for the rest of the body
            resp.force_close()
    except web.HTTPException:  # aiohttp's own answers (an unknown route: 404)
        raise
    except Exception:  # a bug: one JSON error per the protocol, never a plain-text 500
        log.exception("internal error on %s %s", request.method, request.path)
        resp = _json({"error": "server", "message": "internal error"}, status=500)
    return resp


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
    """The aiohttp application of a :class:`Server` (bodies are limited to
    :data:`.protocol.MAX_BODY`). Run it with :func:`handler_args` for the header timeout."""
    app = web.Application(client_max_size=MAX_BODY,
                          middlewares=[_security_headers, _protocol_errors])
    app.add_routes([
        web.get("/", server.page),
        web.get("/api", server.version),
        web.get("/api/tables", server.list_tables),
        web.get("/api/bots", server.list_bots),
        web.post("/api/tables", server.create_table),
        web.get("/api/tables/{id}", server.table_info),
        web.post("/api/tables/{id}/join", server.join),
        web.get("/api/tables/{id}/log", server.table_log),
        web.get("/ws", server.websocket),
        web.static("/static", STATIC),
    ])

    async def on_startup(app: web.Application) -> None:
        server.start()

    async def on_shutdown(app: web.Application) -> None:
        server.stop()

    async def on_cleanup(app: web.Application) -> None:
        server.ownership.close()
        server.store.close()

    app.on_startup.append(on_startup)
    app.on_shutdown.append(on_shutdown)
    app.on_cleanup.append(on_cleanup)
    return app


LINGER = 1.0
"""Seconds a connection answered before its body was read whole (``408 timeout``,
``413 too_large``, ``401``) goes on reading and dropping the rest before it is closed: long
enough for a client still sending to read the answer, not aiohttp's 10 s, which kept a
stalled body's connection open long after its ``408``."""


def handler_args(limits: Limits) -> dict[str, Any]:
    """aiohttp's connection settings for ``limits``: a connection that has not sent a whole
    request's headers within ``header_timeout`` seconds of opening (or of the last response)
    is closed — aiohttp's keep-alive timer, which runs until the headers are complete; one
    answered before its body was read is closed within :data:`LINGER` seconds."""
    return {"keepalive_timeout": limits.header_timeout, "lingering_time": LINGER}


def serve(db: str = "sqlite://shuangkou.db", host: str = "127.0.0.1", port: int = 8000, *,
          bot_delay: float = 0.5, allow_seed: bool = False, durable: bool = False,
          limits: Limits | None = None, ownership: Ownership | None = None) -> None:
    """Run a server until interrupted (what ``shuangkou serve`` calls)."""
    port = as_int(port, "port", 0, 65535)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    quiet_collector()
    limits = limits or Limits()
    server = Server(open_store(db, durable=durable), bot_delay=bot_delay, allow_seed=allow_seed,
                    limits=limits, ownership=ownership)
    web.run_app(make_app(server), host=host, port=port, access_log=None, shutdown_timeout=5.0,
                print=lambda s: log.info("%s", s.strip()), loop=new_event_loop(),
                **handler_args(limits))


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
