"""The server over a real PostgreSQL: a throwaway cluster (the Debian ``postgresql`` package's
``initdb``/``pg_ctl``, run as the ``postgres`` user when the tests run as root) listening on
127.0.0.1 only; the schema migrates, a match is played, and a restart resumes it exactly."""

from __future__ import annotations

import asyncio
import glob
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator

import aiohttp
import pytest

from shuangkou.server import open_store
from shuangkou.server.client import TableClient, create_table, join_table
from shuangkou.server.store import MIGRATIONS
from tests.conftest import require
from tests.server_harness import free_port, play_one, replay_log, run, running

require(module="psycopg", extra="server")
require(program="/usr/lib/postgresql/*/bin/initdb", apt="postgresql")


def _bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}")) or \
        ([shutil.which(name)] if shutil.which(name) else [])
    if not found:
        raise RuntimeError("the PostgreSQL tests need: apt-get install postgresql")
    return str(found[-1])


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    data = tempfile.mkdtemp(prefix="sk-pg-")
    as_user: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        shutil.chown(data, "postgres", "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    port = free_port()

    def pg(*args: str) -> None:
        subprocess.run([*as_user, *args], check=True, capture_output=True, timeout=120)

    pg(_bin("initdb"), "-D", data, "-A", "trust", "-U", "postgres", "--no-sync")
    pg(_bin("pg_ctl"), "-D", data, "-w", "-l", f"{data}/log", "-o",
       f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={data}"
       " -c fsync=off", "start")
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        pg(_bin("pg_ctl"), "-D", data, "-m", "immediate", "stop")
        shutil.rmtree(data, ignore_errors=True)


def test_postgres_store_migrates_once(pg_url):
    store = open_store(pg_url)
    assert store.schema_version == len(MIGRATIONS)
    store.close()
    store = open_store(pg_url)
    assert store.schema_version == len(MIGRATIONS)
    store.close()


def test_postgres_match_and_restart(pg_url):
    """Half a match, a restart on the same database (every table exactly as it stood), then
    the places reconnect with their tokens and play to the end; the log replays."""
    async def body() -> None:
        async with aiohttp.ClientSession() as http:
            async with running(pg_url) as (server, base):
                t = await create_table(http, base, seats=["open"] * 4, seed=41, deals=2)
                tokens = [(await join_table(http, base, t["id"], p))["token"]
                          for p in range(4)]
                clients = [await TableClient.connect(http, base, t["id"], tok)
                           for tok in tokens]
                for _ in range(30):
                    await play_one(clients)
                assert server.tables[t["id"]].seq == 30
                before = server.tables[t["id"]].game.key()
                seen = dict(clients[0].seen)
                for c in clients:
                    await c.close()
            async with running(pg_url) as (again, base2):
                assert again.tables[t["id"]].game.key() == before
                clients = [await TableClient.connect(http, base2, t["id"], tok)
                           for tok in tokens]
                assert all(clients[0].seen[s] == a for s, a in seen.items())
                await asyncio.gather(*(c.play_out() for c in clients))
                async with http.get(f"{base2}/api/tables/{t['id']}/log") as r:
                    served = await r.json()
                assert {a["seq"]: a for a in served["log"]} == clients[0].seen
                match = replay_log(served["config"], served["log"], 41)
                assert len(match.games) == 2 and all(g.is_over for g in match.games)

    run(body)


def test_table_leases_are_advisory_locks(pg_url):
    """cluster.PgOwnership: a table's lease is one session's advisory lock on the id's 64
    bits (the key agrees with PostgreSQL's own ``('x' || id)::bit(64)::bigint``, which the
    orphan query uses); a second node cannot take it, and it is an orphan again, for anyone
    to adopt, as soon as the holder's session ends."""
    import psycopg

    from shuangkou.server.cluster import PgOwnership, table_key

    store = open_store(pg_url)
    ids = ["0000000000000001", "7fffffffffffffff", "8000000000000000", "ffffffffffffffff",
           "a3c95e0d1b2f4867"]
    with psycopg.connect(pg_url) as conn:
        for table_id in ids:
            (key,) = conn.execute("SELECT ('x' || %s)::bit(64)::bigint", (table_id,)).fetchone()
            assert key == table_key(table_id)
    for table_id in ids:
        store.create_table(table_id, 0.0, {"x": 1})
    a, b = PgOwnership(pg_url, "a"), PgOwnership(pg_url, "b")
    try:
        assert a.claim(ids[2]) and a.claim(ids[2])  # held: claiming again is a no-op
        assert not b.claim(ids[2])
        assert ids[2] not in b.orphans(set()) + b.orphans(set())
        a.release(ids[2])
        assert b.claim(ids[2])
        assert a.claim(ids[3])
        a.close()  # the session ends: its locks go with it
        # The server ends the session's backend (and frees its locks) after the client has
        # closed, not before close() returns: look until the lock is gone, within a deadline.
        found: set[str] = set()
        deadline = time.monotonic() + 10
        while ids[3] not in found and time.monotonic() < deadline:
            found.update(b.orphans(b.held))  # at most half of the orphans a look, at random
            time.sleep(0.01)
        assert ids[3] in found and ids[2] not in found
        assert b.claim(ids[3])
    finally:
        b.close()
        a.close()
        store.close()


def test_a_new_table_is_leased_before_another_node_can_see_it(pg_url, monkeypatch):
    """The cluster's creation race (issue 34): ``POST /api/tables`` stored the table before
    taking its lease, so another node's adoption scan, running between the two, took the new
    table: the client got ``500`` and no id, and the table lived on. Here the rival node's
    scan runs at the worst moment — right after the table's row is committed — on every
    creation: each ``POST`` must answer an id that this node owns and serves, and the rival
    must take none of them (the earlier tests' tables in this database are fair game)."""
    from shuangkou.server.cluster import PgOwnership
    from shuangkou.server.store import Store

    rival = PgOwnership(pg_url, "rival")
    taken: list[str] = []
    create = Store.create_table

    def create_then_scan(self: Store, table_id: str, *args: object) -> None:
        create(self, table_id, *args)
        for orphan in rival.orphans(rival.held) + rival.orphans(rival.held):
            if rival.claim(orphan):
                taken.append(orphan)

    monkeypatch.setattr(Store, "create_table", create_then_scan)

    created: list[str] = []

    async def body() -> None:
        async with running(pg_url, ownership=PgOwnership(pg_url, "node")) as (server, base), \
                aiohttp.ClientSession() as http:
            for _ in range(5):
                t = await create_table(http, base, seats=["open", "greedy", "greedy", "greedy"])
                created.append(t["id"])
                assert t["id"] in server.ownership.held
                j = await join_table(http, base, t["id"])
                assert j["table"] == t["id"]

    try:
        run(body)
    finally:
        rival.close()
    assert len(created) == 5 and not set(created) & set(taken)


def test_nul_bytes_get_a_protocol_error_on_either_store(pg_url, tmp_path):
    """Issue 34: on PostgreSQL a NUL byte in a join name or a table id reached the database,
    which refuses NUL in text: a plain-text 500 and a logged traceback per request (SQLite
    stored the name). Both stores now answer the protocol's JSON error, the same code:
    a name with a control character is ``400 bad_message``; an id that is not a table id
    (16 hex digits) is ``404 no_table``, over HTTP and WebSocket alike."""
    async def body(db: str) -> None:
        async with running(db) as (_, base), aiohttp.ClientSession() as http:
            t = await create_table(http, base, seats=["open", "greedy", "greedy", "greedy"])
            async with http.post(f"{base}/api/tables/{t['id']}/join",
                                 json={"name": "a\x00b"}) as r:
                assert r.content_type == "application/json", await r.text()
                assert (r.status, (await r.json())["error"]) == (400, "bad_message")
            for bad in (t["id"][:8] + "%00" + t["id"][9:], "%00", t["id"].upper()):
                for path in ("", "/log"):
                    async with http.get(f"{base}/api/tables/{bad}{path}") as r:
                        assert r.content_type == "application/json", await r.text()
                        assert (r.status, (await r.json())["error"]) == (404, "no_table")
            async with http.ws_connect(f"{base}/ws") as ws:
                await ws.send_json({"type": "spectate", "table": "\x00" + t["id"][1:]})
                assert (await ws.receive_json())["code"] == "no_table"
            assert (await join_table(http, base, t["id"], name="Li Lei"))["player"] == 0

    run(lambda: body(pg_url))
    run(lambda: body(f"sqlite://{tmp_path / 'sk.db'}"))


def test_every_node_lists_every_unfinished_table(pg_url):
    """Issue 34: through the proxy ``GET /api/tables`` listed only the answering node's
    tables (0–27 of 30, by node). Two nodes over one database: each lists every unfinished
    table of the store — its own as they stand, the other node's from the store — and a
    table at rest is listed the same by both nodes as its owner shows it (config, seq,
    deal, places with their kinds and names)."""
    from shuangkou.server.cluster import PgOwnership

    async def body() -> None:
        async with running(pg_url, ownership=PgOwnership(pg_url, "a")) as (sa, a), \
                running(pg_url, ownership=PgOwnership(pg_url, "b")) as (sb, b), \
                aiohttp.ClientSession() as http:
            made = []  # tables at rest: people who do not move, bots nobody watches
            for base, seats in ((a, ["open"] * 4), (a, ["open"] * 4), (a, ["open"] * 4),
                                (b, ["open"] * 4), (b, ["greedy"] * 4)):
                made.append((await create_table(http, base, seats=seats, deals=2))["id"])
            await join_table(http, a, made[0], 1, name="Han Meimei")
            await join_table(http, b, made[3], 0, name="Li Lei")
            lists = []
            for base in (a, b):
                async with http.get(f"{base}/api/tables") as r:
                    lists.append({t["id"]: t for t in (await r.json())["tables"]})
            for listed in lists:
                for table_id in made:
                    owner = sa if table_id in sa.tables else sb
                    assert listed[table_id] == owner.tables[table_id].public()
            assert [p["name"] for p in lists[1][made[0]]["places"]] == ["", "Han Meimei", "", ""]
            assert set(lists[0]) == set(lists[1])

    run(body)
