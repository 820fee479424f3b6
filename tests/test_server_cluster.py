"""Scale-out (issue #20 item 4): ``shuangkou cluster`` — a real PostgreSQL, real HAProxy and
several nodes — routes each table to its owner; kill -9 of random nodes while tables play
through the proxy loses nothing: every table's log equals what its client saw accepted, and
every deal replays to a valid end in the engine. Needs the Debian packages ``postgresql``
and ``haproxy``.

The CI budget is small (2 nodes, 4 tables, 3 kills, ~30 s); ``SK_CLUSTER_KILLS``,
``SK_CLUSTER_TABLES``, ``SK_CLUSTER_NODES`` and ``SK_CLUSTER_DEALS`` run a bigger campaign.
The creation campaign (tables created while nodes are killed) has a bounded run here and a
bigger one in the slow tier (``tests/budget.py``)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from shuangkou.server.cluster import HAProxyRouter
from tests.budget import budget
from tests.cluster_harness import (
    Watched,
    check_log,
    cluster,
    cluster_db,
    killer,
    retried,
    watch,
)
from tests.conftest import require
from tests.server_harness import UNLIMITED_ADDRESS, run

LIMITS = ["--bot-delay", "0.02", *UNLIMITED_ADDRESS]


@pytest.fixture
def data() -> Iterator[Path]:
    """The cluster's directory: outside pytest's private tmp (PostgreSQL runs as the
    ``postgres`` user when the tests run as root, and must reach it)."""
    require(module="psycopg", extra="server")
    require(program="/usr/lib/postgresql/*/bin/initdb", apt="postgresql")
    require(program="haproxy", apt="haproxy")
    path = Path(tempfile.mkdtemp(prefix="sk-cluster-"))
    path.chmod(0o755)
    yield path / "c"
    shutil.rmtree(path, ignore_errors=True)


def test_cluster_routes_each_table_to_its_owner(data: Path) -> None:
    """Tables are created on any node and then served only by their owner: asked directly,
    the other node answers ``503 elsewhere``; through the proxy every request (HTTP and the
    WebSocket) reaches the owner, and a whole match plays to a log that replays. HAProxy
    killed and restarted starts from an empty map: the owners route their tables again."""
    async def body() -> None:
        with cluster(data, 2, *LIMITS) as info:
            base = info["base"]
            async with aiohttp.ClientSession() as http:
                tables = [await retried(http, "POST", f"{base}/api/tables", ok=201,
                                        json={"seats": ["open", "greedy", "greedy", "greedy"]})
                          for _ in range(6)]
                for t in tables:
                    for _ in range(3):  # through the proxy: always answered
                        async with aiohttp.ClientSession() as fresh:
                            doc = await retried(fresh, "GET", f"{base}/api/tables/{t['id']}")
                        assert doc["id"] == t["id"]
                    answers = []  # straight to each node: only the owner serves it
                    for n in info["nodes"]:
                        url = f"http://127.0.0.1:{n['port']}/api/tables/{t['id']}"
                        async with http.get(url) as r:
                            answers.append((r.status, (await r.json()).get("error")))
                    assert sorted(answers) == [(200, None), (503, "elsewhere")], answers
                # HAProxy dies: the cluster restarts it, and the owners route their tables
                # again (the new process starts from the empty map file)
                os.kill(info["haproxy_pid"], signal.SIGKILL)
                router = HAProxyRouter(str(data / "haproxy.sock"), str(data / "tables.map"))
                deadline = time.monotonic() + 20
                want = {t["id"] for t in tables}
                while time.monotonic() < deadline:
                    try:
                        shown = router._command(router.addresses[0],
                                                f"show map {router.map_file}")
                    except OSError:
                        shown = ""
                    if all(table_id in shown for table_id in want):
                        break
                    await asyncio.sleep(0.2)
                else:
                    raise AssertionError(f"tables not routed again: {shown!r}")
                for t in tables:
                    j = await retried(http, "POST", f"{base}/api/tables/{t['id']}/join", json={})
                    w = Watched(t["id"], j["token"])
                    await watch(http, base, w, 60)
                    assert w.finished and not w.mismatches
                    doc = await retried(http, "GET", f"{base}/api/tables/{t['id']}/log")
                    assert check_log(doc, w) == []

    run(body, timeout=180)


def test_kill_nodes_while_tables_play(data: Path) -> None:
    """kill -9 a random node again and again while bot tables (watched by a spectator) and
    tables with a person (a client playing with its token) play through the proxy; each
    killed node's tables resume on another node, the clients reconnect with the same tokens,
    and afterwards every table's log equals what its client saw accepted and replays."""
    kills = int(os.environ.get("SK_CLUSTER_KILLS", "3"))
    n_tables = int(os.environ.get("SK_CLUSTER_TABLES", "4"))
    nodes = int(os.environ.get("SK_CLUSTER_NODES", "2"))
    deals = int(os.environ.get("SK_CLUSTER_DEALS", "2"))
    rng = random.Random(kills * 1000 + n_tables)

    async def body() -> None:
        with cluster(data, nodes, *LIMITS) as info:
            base = info["base"]
            async with aiohttp.ClientSession() as http:
                watched = []
                for i in range(n_tables):
                    person = i % 2 == 1
                    seats = ["open", "greedy", "greedy", "greedy"] if person else ["greedy"] * 4
                    t = await retried(http, "POST", f"{base}/api/tables", ok=201,
                                      json={"seats": seats, "deals": deals, "rules": "classic"})
                    token = None
                    if person:
                        token = (await retried(http, "POST", f"{base}/api/tables/{t['id']}/join",
                                               json={}))["token"]
                    watched.append(Watched(t["id"], token))
                done = asyncio.Event()
                kill = asyncio.ensure_future(killer(info["nodes"], kills, 2.0, rng, done))
                await asyncio.gather(*(watch(http, base, w, 240) for w in watched))
                done.set()
                killed = await kill
                problems = [m for w in watched for m in w.mismatches]
                for w in watched:
                    assert w.finished, w.table
                    doc = await retried(http, "GET", f"{base}/api/tables/{w.table}/log")
                    problems += check_log(doc, w)
                assert problems == []
                assert len(killed) >= min(kills, 1)
                resumes = [r for w in watched for r in w.resumes]
                print(f"{len(killed)} kills, {sum(len(w.seen) for w in watched)} actions, "
                      f"{sum(w.reconnects for w in watched)} reconnects, "
                      f"resume worst {max(resumes, default=0):.2f} s")

    run(body, timeout=600)


async def _create_while_killing(data: Path, nodes: int, creators: int, kills: int) -> None:
    """``creators`` clients create tables through the proxy while a node is killed every
    1.5 s. Each request carries its own tag (the turn ``timer``, unique per request), so the
    store tells which request each stored table came from. Every ``POST`` answered ``201``
    must name a stored table of its tag that the client can join through the proxy; every
    ``POST`` a node answered with an error must have left no table; a request whose answer
    was lost (the proxy's own ``502``/``503`` or a dropped connection: the node died while
    it ran) may have left at most one."""
    import psycopg

    seats = ["open", "greedy", "greedy", "greedy"]
    with cluster(data, nodes, *LIMITS) as info:
        base = info["base"]
        created: dict[int, str] = {}  # tag -> id answered
        refused: dict[int, str] = {}  # tag -> a node's error code
        lost: list[int] = []
        tags = iter(range(10_000))
        done = asyncio.Event()

        async def creator(http: aiohttp.ClientSession) -> None:
            while not done.is_set():
                tag = next(tags)
                try:
                    async with http.post(f"{base}/api/tables",
                                         json={"seats": seats, "timer": 100 + tag}) as r:
                        if r.status == 201:
                            created[tag] = (await r.json())["id"]
                        elif r.content_type == "application/json":
                            refused[tag] = (await r.json())["error"]
                        else:  # HAProxy's own page: no node answered
                            lost.append(tag)
                except aiohttp.ClientError:
                    lost.append(tag)
                    await asyncio.sleep(0.05)

        async with aiohttp.ClientSession() as http:
            rng = random.Random(nodes * 100 + kills)
            kill = asyncio.ensure_future(killer(info["nodes"], kills, 1.5, rng, done))
            work = [asyncio.ensure_future(creator(http)) for _ in range(creators)]
            killed = await kill
            done.set()
            await asyncio.gather(*work)
            assert len(killed) == kills
            for tag, table_id in created.items():
                j = await retried(http, "POST", f"{base}/api/tables/{table_id}/join",
                                  json={})
                assert j["table"] == table_id and j["player"] == 0, (tag, j)
        with psycopg.connect(cluster_db(data)) as conn:
            rows = conn.execute("SELECT id, config FROM sk_tables").fetchall()
    stored: dict[int, list[str]] = {}
    for table_id, config in rows:
        stored.setdefault(int(json.loads(config)["timer"]) - 100, []).append(table_id)
    assert all(len(ids) == 1 for ids in stored.values()), stored
    assert {tag: ids[0] for tag, ids in stored.items() if tag in created} == created
    assert not set(stored) & set(refused), {t: refused[t] for t in set(stored) & set(refused)}
    assert set(stored) <= set(created) | set(lost)
    print(f"{len(killed)} kills: {len(created)} created, {len(refused)} refused "
          f"({sorted(set(refused.values()))}), {len(lost)} lost, of which "
          f"{len(set(stored) & set(lost))} stored")
    assert len(created) >= 10


def test_tables_created_while_nodes_die_are_leased_or_absent(data: Path) -> None:
    """The creation race (issue 34), end to end: every table a client was given can be
    joined, and no refused creation left a table behind (bounded: 2 nodes, 3 kills)."""
    run(lambda: _create_while_killing(data, nodes=2, creators=4, kills=3), timeout=240)


@pytest.mark.slow
def test_creation_campaign(data: Path) -> None:
    """The creation fault campaign, bigger (3 nodes; ``SK_BUDGET=full``: 30 kills)."""
    run(lambda: _create_while_killing(data, nodes=3, creators=8,
                                      kills=budget(ci=8, full=30)), timeout=900)


def test_per_address_limits_hold_through_the_proxy(data: Path) -> None:
    """Issue 34: behind ``shuangkou cluster`` a client sending its own ``X-Forwarded-For``
    got every table creation and WebSocket it asked for (the node read the client's line,
    not the one HAProxy adds). Through the real proxy, a client forging a new address on
    every request is held to ``tables_per_address`` and ``connections_per_address``."""
    limits = ["--bot-delay", "0.02", "--limit", "create_rate=0",
              "--limit", "tables_per_address=3", "--limit", "connections_per_address=4"]

    async def body() -> None:
        with cluster(data, 1, *limits) as info:
            base = info["base"]
            async with aiohttp.ClientSession() as http:
                got = []
                for i in range(6):
                    forged = {"X-Forwarded-For": f"203.0.113.{i}"}
                    async with http.post(f"{base}/api/tables", headers=forged,
                                         json={"seats": ["open", "greedy", "greedy",
                                                         "greedy"]}) as r:
                        got.append(r.status)
                        if r.status == 201:
                            table = (await r.json())["id"]
                assert got == [201, 201, 201, 429, 429, 429]
                sockets, refused = [], []
                for i in range(6):
                    forged = {"X-Forwarded-For": f"198.51.100.{i}"}
                    try:
                        sockets.append(await http.ws_connect(
                            f"{base}/ws?table={table}", headers=forged))
                    except aiohttp.WSServerHandshakeError as e:
                        refused.append(e.status)
                assert (len(sockets), refused) == (4, [429, 429])
                for ws in sockets:
                    await ws.close()

    run(body, timeout=120)


def test_the_proxy_is_sized_for_every_nodes_tables(data: Path) -> None:
    """Issue 34: the generated HAProxy configuration capped the whole cluster at 4,000
    connections (``maxconn 4000``: ~1,000 tables of four people; a run stalled 313 tables at
    the cap), undocumented. The cap now scales with the nodes — each node's full
    ``Limits.tables`` of four places, plus one connection a table for spectators and HTTP —
    on the process and on the front end (a front end's own default is lower), can be set
    (``--max-connections``; ``shuangkou cluster`` sizes it from ``--limit tables``), and
    HAProxy takes the configuration."""
    import subprocess

    from shuangkou.server.cluster import haproxy_config
    from shuangkou.server.limits import Limits

    data.mkdir(parents=True)
    for nodes, given, want in [(2, None, 2 * Limits().tables * 5), (3, 123_456, 123_456)]:
        names = [(f"node{i}", 40000 + i) for i in range(nodes)]
        text = haproxy_config(8080, names, str(data / "s"), str(data / "m"), maxconn=given)
        caps = [int(line.split()[1]) for line in text.splitlines()
                if line.strip().startswith("maxconn")]
        assert caps == [want, want], text  # global, and the front end
        (data / "m").write_text("")
        (data / "h.cfg").write_text(text)
        check = subprocess.run(["haproxy", "-c", "-f", str(data / "h.cfg")],
                               capture_output=True, text=True, timeout=60)
        assert check.returncode == 0, check.stdout + check.stderr


def test_the_cluster_gives_haproxy_no_more_than_the_descriptors_allow() -> None:
    """HAProxy refuses to start when it cannot raise its file-descriptor limit to two a
    connection: the cap ``shuangkou cluster`` gives it is every node full, down to what the
    hard limit allows; a ``--max-connections`` past the limit is refused up front."""
    import resource

    from shuangkou.server.cluster import max_connections, proxy_maxconn

    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    allowed = 10**7 if hard == resource.RLIM_INFINITY else (hard - 100) // 2
    assert proxy_maxconn(2, 2000) == min(max_connections(2, 2000), allowed)
    assert proxy_maxconn(1, 1) == 5
    assert proxy_maxconn(2, 2000, 300) == 300
    if allowed < 10**7:
        with pytest.raises(ValueError, match="file descriptor limit"):
            proxy_maxconn(2, 2000, allowed + 1)


def test_free_port_draws_below_the_ephemeral_range(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ports the cluster (and these tests) pick for processes started later lie below the
    range the kernel gives outgoing connections, so no connection made meanwhile can take one
    (the likely cause of HAProxy exiting at a cluster test's start), and each is free when
    drawn; where the range starts too low to draw from, the kernel's choice."""
    from shuangkou.server import cluster as cl

    low = cl._ephemeral_low()
    ports = [cl.free_port() for _ in range(50)]
    if low > cl.PORTS_FROM + 1000:
        assert all(cl.PORTS_FROM <= p < low for p in ports), (low, ports)
        assert len(set(ports)) > 40  # drawn, not a fixed port
    for p in ports[:10]:
        with socket.socket() as s:
            s.bind(("127.0.0.1", p))
    monkeypatch.setattr(cl, "_ephemeral_low", lambda: cl.PORTS_FROM)
    assert 0 < cl.free_port() < 65536


def test_cluster_on_a_taken_port_is_one_line(tmp_path: Path) -> None:
    """``shuangkou cluster --port P`` where something listens on P: a one-line error naming
    the port (exit 2) before PostgreSQL or any node starts, not HAProxy's exit later."""
    require(program="haproxy", apt="haproxy")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "shuangkou", "cluster", "--nodes", "1", "--port", str(port),
             "--data", str(tmp_path / "c")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "c").exists()  # nothing started
