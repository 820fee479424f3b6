"""Scale-out: several server nodes over one PostgreSQL, behind HAProxy (docs/server.md
"Scale-out and deployment").

A table is stateful (its :class:`~shuangkou.game.Match` lives in one process), so a cluster
does not share tables: each table is **owned** by one node, and the proxy routes the table's
HTTP requests (``/api/tables/{id}/…``) and WebSocket (``/ws?table={id}``) to its owner.

- **Ownership** is a PostgreSQL session-level advisory lock on the table's id
  (:class:`PgOwnership`), taken on a node's own connection. A node that dies — even by
  ``kill -9`` — loses its connection, so PostgreSQL frees its locks at once; nothing has to
  notice the death or wait out a lease.
- **Adoption**: every node looks for unfinished tables whose lock nobody holds
  (:meth:`PgOwnership.orphans`, every :attr:`PgOwnership.scan_every` seconds), takes the lock,
  rebuilds the table from the store (replaying every accepted action through the engine) and
  restarts its bots and timer. Clients reconnect through the proxy with the same token.
- **Routing**: the owner tells HAProxy, over its runtime API, that the table's key maps to
  its backend (:class:`HAProxyRouter`: ``del map`` + ``add map`` on a map file). Requests for a
  table not in the map (new, finished, or during a hand-over) go to any live node: one that
  can take the lock serves it, one that cannot answers ``503 elsewhere`` and the client
  retries. A node adopting a table routes it before it answers for it.
- **No accepted action is lost or forked**: an action is broadcast only once committed, and
  ``(table_id, seq)`` is the primary key of the actions, so if two nodes ever believed they
  owned a table (a node cut off from the database but alive) the second commit of a ``seq``
  fails and is refused (``server``); a node whose lock connection fails exits so its tables
  move.

:func:`run_cluster` is ``shuangkou cluster``: a local PostgreSQL cluster, N nodes and HAProxy
on one machine, for trying it and for the tests.
"""

from __future__ import annotations

import json
import logging
import math
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .limits import Limits
from .ownership import Ownership

__all__ = ["CONNECTIONS_PER_TABLE", "HAProxyRouter", "PORTS_FROM", "PgOwnership", "free_port",
           "haproxy_config", "max_connections", "proxy_maxconn", "run_cluster", "table_key"]

log: logging.Logger = logging.getLogger("shuangkou.server")


_TABLE_ID = re.compile(r"[0-9a-fA-F]{16}")


def table_key(table_id: str) -> int:
    """The advisory-lock key of a table: its 16 hex digits as a signed 64-bit integer (the
    same as PostgreSQL's ``('x' || id)::bit(64)::bigint``). Raises ``ValueError``."""
    if not _TABLE_ID.fullmatch(table_id):  # int(..., 16) also reads '٣', '_', spaces
        raise ValueError(f"not a table id: {table_id[:20]!r}")
    k = int(table_id, 16)
    return k - (1 << 64) if k >= 1 << 63 else k


class HAProxyRouter:
    """Routes tables to this node through the runtime API of each HAProxy in front (a ``stats
    socket`` at ``level admin``): ``addresses`` are Unix socket paths or ``host:port``,
    comma-separated; ``map_file`` the map of table id → backend the proxies' ``use_backend``
    reads (:func:`haproxy_config`). A proxy that cannot be reached is logged and skipped: its
    map is rebuilt when it is back (:meth:`restarted`)."""

    def __init__(self, addresses: str, map_file: str) -> None:
        self.addresses: list[str] = [a.strip() for a in addresses.split(",") if a.strip()]
        self.map_file: str = map_file
        self._pids: dict[str, str | None] = dict.fromkeys(self.addresses)

    @staticmethod
    def _command(address: str, text: str) -> str:
        if ":" in address and not address.startswith("/"):
            host, port = address.rsplit(":", 1)
            sock = socket.create_connection((host, int(port)), timeout=2.0)
        else:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(2.0)
            sock.connect(address)
        with sock:
            sock.sendall(text.encode() + b"\n")
            out = b""
            while chunk := sock.recv(65536):
                out += chunk
        return out.decode(errors="replace")

    def _each(self, text: str) -> None:
        for address in self.addresses:
            try:
                self._command(address, text)
            except OSError:
                log.warning("HAProxy at %s did not take %r", address, text[:60])

    def route(self, table_id: str, backend: str) -> None:
        """Send the table's traffic to ``backend``."""
        self._each(f"del map {self.map_file} {table_id}; "
                   f"add map {self.map_file} {table_id} {backend}")

    def unroute(self, table_id: str) -> None:
        """Send the table's traffic to any node (it finished or expired)."""
        self._each(f"del map {self.map_file} {table_id}")

    def restarted(self) -> bool:
        """Whether a proxy came back or was restarted since the last look (its process id
        changed): its map starts from the file again, so the owners must route anew."""
        changed = False
        for address in self.addresses:
            try:
                info = self._command(address, "show info")
                pid = next((ln.split(":", 1)[1].strip() for ln in info.splitlines()
                            if ln.startswith("Pid:")), None)
            except OSError:
                pid = None
            if pid is not None and pid != self._pids[address]:
                changed = True
            self._pids[address] = pid
        return changed


class PgOwnership(Ownership):
    """Table ownership as PostgreSQL advisory locks on a connection of this node's own (see
    the module docstring). ``node`` is the node's backend name in the proxy."""

    scan_every = 0.5

    def __init__(self, url: str, node: str, router: HAProxyRouter | None = None) -> None:
        import psycopg

        self.node: str = node
        self.router = router
        self.held: set[str] = set()
        self._conn = psycopg.connect(url, autocommit=True)

    def _rows(self, sql: str, *args: Any) -> list[Any]:
        try:
            return list(self._conn.execute(sql, args).fetchall())
        except Exception:  # the lock connection is gone: so are our locks; stop serving
            log.critical("the ownership connection failed: node %s stops", self.node,
                         exc_info=True)
            os._exit(3)

    def _one(self, sql: str, *args: Any) -> Any:
        return self._rows(sql, *args)[0][0]

    def claim(self, table_id: str) -> bool:
        if table_id in self.held:
            return True
        try:
            key = table_key(table_id)
        except ValueError:
            return False
        if not self._one("SELECT pg_try_advisory_lock(%s)", key):
            return False
        self.held.add(table_id)
        if self.router is not None:
            self.router.route(table_id, self.node)
        return True

    def release(self, table_id: str) -> None:
        if table_id not in self.held:
            return
        self.held.discard(table_id)
        if self.router is not None:
            try:
                self.router.unroute(table_id)
            except OSError:
                log.warning("could not unroute table %s", table_id)
        self._one("SELECT pg_advisory_unlock(%s)", table_key(table_id))

    def orphans(self, held: set[str]) -> list[str]:
        """Unfinished tables whose lock no session holds, in random order, at most half of
        them (rounded up) so that the live nodes share a dead node's tables. (Also, since it
        runs on every scan: when a proxy was restarted, route this node's tables again.)"""
        if self.router is not None and self.router.restarted():
            for table_id in self.held:
                self.router.route(table_id, self.node)
        rows = self._rows(
            "SELECT t.id FROM sk_tables t WHERE t.finished = 0 AND length(t.id) = 16"
            " AND NOT EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory'"
            " AND l.objsubid = 1"
            " AND l.classid::bigint = ((('x' || t.id)::bit(64)::bigint >> 32) & 4294967295)"
            " AND l.objid::bigint = (('x' || t.id)::bit(64)::bigint & 4294967295))")
        found = [r[0] for r in rows if r[0] not in held]
        random.shuffle(found)
        return found[:math.ceil(len(found) / 2)]

    def close(self) -> None:
        self._conn.close()  # every lock goes with the session
        self.held.clear()


CONNECTIONS_PER_TABLE = 5
"""Client connections the proxy holds per table a node may serve: its four places, and one
more for spectators and HTTP requests (:func:`max_connections`)."""


def max_connections(nodes: int, tables: int) -> int:
    """The proxy's connection cap for ``nodes`` nodes of ``tables`` tables each
    (``Limits.tables``): every node full, :data:`CONNECTIONS_PER_TABLE` a table. HAProxy
    needs two file descriptors a connection (it raises its own limit when run as root; else
    ``ulimit -n`` must allow them) and allocates buffers only while data moves."""
    return nodes * tables * CONNECTIONS_PER_TABLE


def proxy_maxconn(nodes: int, tables: int, requested: int | None = None) -> int:
    """The connection cap ``shuangkou cluster`` gives HAProxy: ``requested``, else every
    node full (:func:`max_connections`), but never more than this machine's hard limit on
    file descriptors allows (two a connection, 100 spare): HAProxy refuses to start past
    it. Raises ``ValueError`` for a ``requested`` cap past that limit."""
    import resource

    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    allowed = 10**7 if hard == resource.RLIM_INFINITY else max(1, (hard - 100) // 2)
    if requested is None:
        return min(max_connections(nodes, tables), allowed)
    if requested > allowed:
        raise ValueError(f"--max-connections {requested}: this machine's file descriptor"
                         f" limit ({hard}, ulimit -Hn) allows HAProxy at most {allowed}")
    return requested


def haproxy_config(port: int, nodes: list[tuple[str, int]], socket_path: str,
                   map_file: str, host: str = "127.0.0.1", maxconn: int | None = None) -> str:
    """An HAProxy configuration: the front end on ``host:port``; a table's requests go to its
    owner's backend when the map has it, else to any live node (round robin, health-checked
    with ``GET /api``); WebSockets are tunnelled. At most ``maxconn`` client connections, on
    the process and the front end (default :func:`max_connections` of the nodes at the
    default ``Limits.tables``)."""
    if maxconn is None:
        maxconn = max_connections(len(nodes), Limits().tables)
    check = "check inter 500ms fall 2 rise 1"
    lines = [
        "global",
        f"    stats socket {socket_path} mode 600 level admin",
        f"    maxconn {maxconn}",
        "defaults",
        "    mode http",
        "    option forwardfor",
        "    option http-server-close",
        "    timeout connect 2s",
        "    timeout client 60s",
        "    timeout server 60s",
        "    timeout tunnel 1h",
        "    timeout http-request 10s",
        "    retries 2",
        "frontend shuangkou",
        f"    bind {host}:{port}",
        f"    maxconn {maxconn}",
        "    http-request set-var(txn.table) path,field(4,/) if { path_beg /api/tables/ }",
        "    http-request set-var(txn.table) url_param(table) if { path /ws }",
        f"    use_backend %[var(txn.table),map({map_file})]"
        f" if {{ var(txn.table),map({map_file}) -m found }}",
        "    default_backend any",
        "backend any",
        "    balance roundrobin",
        "    option httpchk GET /api",
    ]
    lines += [f"    server {name} 127.0.0.1:{p} {check}" for name, p in nodes]
    for name, p in nodes:
        lines += [f"backend {name}", "    option httpchk GET /api",
                  f"    server {name} 127.0.0.1:{p} {check}"]
    return "\n".join(lines) + "\n"


# -- shuangkou cluster --------------------------------------------------------------------------
PORTS_FROM = 10_000
"""The lowest port :func:`free_port` hands out."""


def _ephemeral_low() -> int:
    """The lowest port the system gives an outgoing connection (Linux's
    ``ip_local_port_range``; elsewhere IANA's dynamic range, from 49152)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 49152


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now, for a process started later.

    Drawn below the system's ephemeral range (from :data:`PORTS_FROM`): a port the kernel
    chose (``bind`` to port 0) lies inside that range, and in the seconds before the process
    that is to listen there starts, the kernel may give the same port to an outgoing
    connection (a node's to PostgreSQL, a health check), and the listener's bind then fails
    (the likely cause of HAProxy exiting at a cluster test's start). Ports below the range
    are never given out that way; one is checked free by binding it. Falls back to the
    kernel's choice where the range starts too low to draw from."""
    low = _ephemeral_low()
    rng = random.SystemRandom()  # two processes drawing at once must not share a sequence
    for _ in range(100 if low > PORTS_FROM + 1000 else 0):
        port = rng.randrange(PORTS_FROM, low)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pg_bin(name: str) -> str:
    found = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))
    if found:
        return str(found[-1])
    path = shutil.which(name)
    if path is None:
        raise ValueError(f"cluster needs PostgreSQL's {name}: apt-get install postgresql")
    return path


class _Postgres:
    """A throwaway PostgreSQL cluster in ``data`` on 127.0.0.1 (run as ``postgres`` when
    this process is root: PostgreSQL refuses to run as root)."""

    def __init__(self, data: Path) -> None:
        self.data = data
        self.port = free_port()
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def _run(self, *args: str) -> None:
        done = subprocess.run([*self.as_user, *args], capture_output=True, timeout=120)
        if done.returncode:
            raise RuntimeError(f"{Path(args[0]).name} failed: "
                               f"{done.stderr.decode(errors='replace')[-800:]}"
                               + (" (as root, DIR and its parents must be readable by the"
                                  " postgres user)" if self.as_user else ""))

    def start(self) -> int:
        self.data.mkdir(parents=True, exist_ok=True)
        if self.as_user:
            shutil.chown(self.data, "postgres", "postgres")
        if not (self.data / "PG_VERSION").exists():
            self._run(_pg_bin("initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres",
                      "--no-sync")
        self._run(_pg_bin("pg_ctl"), "-D", str(self.data), "-w", "-l",
                  str(self.data / "log"), "-o",
                  f"-c listen_addresses=127.0.0.1 -c port={self.port}"
                  f" -c unix_socket_directories={self.data} -c max_connections=200", "start")
        return int((self.data / "postmaster.pid").read_text().split()[0])

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def stop(self) -> None:
        self._run(_pg_bin("pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")


def _wait_http(port: int, proc: subprocess.Popen[bytes], what: str, log: Path,
               seconds: float = 60) -> None:
    """Wait until ``proc`` answers ``GET /api`` on ``port``; if it exits first, raise with
    the end of its ``log`` (why it stopped: a port taken, a bad configuration)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = log.read_text(errors="replace")[-600:].strip() if log.exists() else ""
            raise RuntimeError(f"{what} exited with {proc.returncode}"
                               + (f"; the end of {log}:\n{tail}" if tail else ""))
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"GET /api HTTP/1.0\r\n\r\n")
                if s.recv(12).endswith(b" 200"):  # answered by a node, not the proxy's 503
                    return
        except OSError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not start")


def run_cluster(nodes: int, port: int, data: str, serve_args: list[str],
                maxconn: int | None = None) -> int:
    """``shuangkou cluster``: start PostgreSQL (in ``data``/pg), ``nodes`` nodes
    (``shuangkou serve`` with ``serve_args``) and HAProxy on 127.0.0.1:``port`` (at most
    ``maxconn`` connections, :func:`haproxy_config`); print one
    JSON line ``{"proxy", "nodes": [{"pid", "port", "name"}], "postgres_pid", "haproxy_pid"}``;
    restart a node that dies (same port and name: its tables have moved meanwhile) and
    HAProxy if it dies (the nodes route their tables again); stop everything on SIGTERM or
    SIGINT."""
    if nodes < 1:
        raise ValueError("--nodes must be >= 1")
    if shutil.which("haproxy") is None:
        raise ValueError("cluster needs HAProxy: apt-get install haproxy")
    with socket.socket() as s:  # the proxy's port, before anything starts (HAProxy would exit)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as HAProxy binds it
        try:
            s.bind(("127.0.0.1", port))
        except OSError as e:
            raise ValueError(f"cannot listen on 127.0.0.1:{port}: {e.strerror or e} (another"
                             " server there? choose another --port)") from None
    root = Path(data).resolve()
    root.mkdir(parents=True, exist_ok=True)
    pg = _Postgres(root / "pg")
    names = [f"node{i + 1}" for i in range(nodes)]
    ports = [free_port() for _ in names]
    sock, map_file = root / "haproxy.sock", root / "tables.map"
    map_file.write_text("")
    (root / "haproxy.cfg").write_text(
        haproxy_config(port, list(zip(names, ports)), str(sock), str(map_file),
                       maxconn=maxconn))
    procs: dict[str, subprocess.Popen[bytes]] = {}
    stopping = False

    def stop(*_: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    pg_pid = pg.start()
    haproxy: subprocess.Popen[bytes] | None = None
    logs = root / "logs"
    logs.mkdir(exist_ok=True)

    def start_node(name: str, node_port: int) -> subprocess.Popen[bytes]:
        with open(logs / f"{name}.log", "ab") as out:
            return subprocess.Popen(
                [sys.executable, "-m", "shuangkou", "serve", "--db", pg.url,
                 "--host", "127.0.0.1", "--port", str(node_port), "--node", name,
                 "--router", str(sock), "--router-map", str(map_file),
                 "--limit", "trust_forwarded=true", *serve_args],
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def start_haproxy() -> subprocess.Popen[bytes]:
        with open(logs / "haproxy.log", "ab") as out:
            return subprocess.Popen(["haproxy", "-db", "-f", str(root / "haproxy.cfg")],
                                    stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)

    try:
        for name, node_port in zip(names, ports):
            procs[name] = start_node(name, node_port)
        for name, node_port in zip(names, ports):
            _wait_http(node_port, procs[name], name, logs / f"{name}.log")
        haproxy = start_haproxy()  # after the nodes: its first health checks find them up
        _wait_http(port, haproxy, "haproxy", logs / "haproxy.log")
        print(json.dumps({"proxy": port, "nodes": [
            {"pid": procs[n].pid, "port": p, "name": n} for n, p in zip(names, ports)],
            "postgres_pid": pg_pid, "haproxy_pid": haproxy.pid}), flush=True)
        while not stopping:
            time.sleep(0.1)
            if haproxy.poll() is not None and not stopping:
                print(f"haproxy exited ({haproxy.returncode}); restarting", file=sys.stderr,
                      flush=True)  # the nodes route their tables again (restarted())
                haproxy = start_haproxy()
            for name, node_port in zip(names, ports):
                if procs[name].poll() is not None and not stopping:
                    print(f"{name} exited ({procs[name].returncode}); restarting",
                          file=sys.stderr, flush=True)
                    procs[name] = start_node(name, node_port)
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.terminate()
        for p in procs.values():
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        if haproxy is not None and haproxy.poll() is None:
            haproxy.terminate()
            haproxy.wait(10)
        pg.stop()
    return 0
