"""The game server over real sockets on 127.0.0.1: the HTTP API, whole matches played by
WebSocket clients and by bots, hints, reconnects, the turn timer, restarts, the store.
Rules cited: R4 (passing), R6 (双明), R7 (deal, 明牌 swap), R8 (scoring)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import urllib.request

import aiohttp
import pytest

from shuangkou.game import Match
from shuangkou.rules import Rules
from shuangkou.server import PROTOCOL_VERSION, open_store
from shuangkou.server.client import TableClient, create_table, join_table
from shuangkou.server.config import ConfigError, TableConfig
from shuangkou.server.store import MIGRATIONS
from shuangkou.solve import hints as sk_hints
from tests.server_harness import (
    db_url,
    free_port,
    play_one,
    replay_log,
    run,
    running,
    schema_checked,  # noqa: F401  (autouse)
    start_serve,
)


async def _seat_all(http: aiohttp.ClientSession, base: str, **config: object) -> tuple[
        dict[str, object], list[TableClient]]:
    t = await create_table(http, base, **config)
    _, clients = await _seat_all_existing(http, base, str(t["id"]))
    return t, clients


# -- the HTTP API ---------------------------------------------------------------------------
def test_http_api_create_list_join(tmp_path):
    async def body():
        async with running(db_url(tmp_path)) as (_, base), aiohttp.ClientSession() as http:
            async with http.get(f"{base}/api") as r:
                assert (await r.json())["protocol"] == PROTOCOL_VERSION == 2
            t = await create_table(http, base, rules="jj", deals=3, timer=30,
                                   seats=["open", "open", "greedy", "random"],
                                   options={"base_score": 2})
            assert "seed" not in json.dumps(t)  # the seed would reveal every hand
            assert t["config"]["options"]["base_score"] == 2
            assert [p["kind"] for p in t["places"]] == ["open", "open", "greedy", "random"]
            async with http.get(f"{base}/api/tables") as r:
                listed = (await r.json())["tables"]
            assert [x["id"] for x in listed] == [t["id"]]
            j1 = await join_table(http, base, t["id"], name="ann")
            j2 = await join_table(http, base, t["id"])
            assert (j1["player"], j2["player"]) == (0, 1)
            assert j1["token"] != j2["token"] and len(j1["token"]) >= 32
            async with http.post(f"{base}/api/tables/{t['id']}/join", json={}) as r:
                assert r.status == 409  # no open place left
            async with http.post(f"{base}/api/tables/{t['id']}/join", json={"player": 2}) as r:
                assert r.status == 409  # a bot's place
            async with http.get(f"{base}/api/tables/{t['id']}") as r:
                info = await r.json()
            assert [p["kind"] for p in info["places"]][:2] == ["human", "human"]
            assert info["places"][0]["name"] == "ann"
            async with http.get(f"{base}/api/tables/nope") as r:
                assert r.status == 404
            async with http.get(f"{base}/") as r:
                page = await r.text()
            assert "table.js" in page and r.headers["X-Content-Type-Options"] == "nosniff"
            async with http.get(f"{base}/static/table.js") as r:
                assert r.status == 200 and "不要" in await r.text()

    run(body)


@pytest.mark.parametrize("doc, word", [
    ({"rules": "poker"}, "rules"),
    ({"deals": 0}, "deals"),
    ({"deals": True}, "deals"),
    ({"timer": 0.5}, "timer"),
    ({"seats": ["open", "open", "open"]}, "seats"),
    ({"seats": ["open", "open", "open", "alphago"]}, "seats"),
    ({"options": {"base_score": -1}}, "base_score"),
    ({"options": {"base_score": 10**30}}, "base_score"),
    ({"options": {"star_bombs": 1}}, "star_bombs"),
    ({"options": {"name": "x"}}, "name"),
    ({"options": {"scoring": "poker"}}, "house rules"),
    ({"options": {"uneven_chain_bombs": True, "star_bombs": False}}, "house rules"),
    ({"seed": 5}, "seed"),
    ({"colour": "red"}, "colour"),
    ([1, 2], "object"),
])
def test_bad_configs_are_refused(doc, word):
    with pytest.raises(ConfigError, match=word):
        TableConfig.from_request(doc)


def test_config_round_trip():
    cfg = TableConfig.from_request({"rules": "qianbian", "deals": 2, "timer": 5, "seed": 9,
                                    "options": {"score_cap": None}}, allow_seed=True)
    assert cfg.rules == Rules.qianbian().replace(score_cap=None)
    assert TableConfig.from_dict(json.loads(json.dumps(cfg.to_dict()))) == cfg
    assert "seed" not in cfg.public()
    # no chosen seed: a random 64-bit one, different each time
    assert TableConfig.from_request({}).seed != TableConfig.from_request({}).seed


# -- whole matches ------------------------------------------------------------------------
@pytest.mark.parametrize("preset", ["baibian", "classic", "jj", "qianbian"])
def test_four_clients_play_a_match(tmp_path, preset):
    """Four WebSocket clients play a 2-deal match to the end; everyone saw the same log, the
    log replays through the engine alone to the same results, totals add up (R8)."""
    async def body():
        async with running(db_url(tmp_path)) as (server, base), \
                aiohttp.ClientSession() as http:
            t, clients = await _seat_all(http, base, rules=preset, deals=2,
                                         seats=["open"] * 4, seed=11)
            await asyncio.gather(*(c.play_out() for c in clients))
            logs = [c.seen for c in clients]
            assert all(lg == logs[0] for lg in logs)
            assert not any(c.errors for c in clients)
            async with http.get(f"{base}/api/tables/{t['id']}/log") as r:
                served = await r.json()
            assert {a["seq"]: a for a in served["log"]} == logs[0]
            match = replay_log(served["config"], served["log"], 11)
            assert len(match.games) == 2 and all(g.is_over for g in match.games)
            assert [g.result.to_dict()["scores"] for g in match.games] == \
                [r["scores"] for r in served["results"]] == \
                [r["scores"] for r in clients[0].results]
            assert clients[0].state["totals"] == list(match.totals)
            for c in clients:  # partner hands only under 双明 (R6)
                assert c.state["finished"]
            table = server.tables[t["id"]]
            assert table.finished and table.match.totals == match.totals
            assert open_store(db_url(tmp_path)).tables(unfinished_only=True) == []

    run(body)


def test_person_against_three_bots(tmp_path):
    async def body():
        async with running(db_url(tmp_path)) as (_, base), aiohttp.ClientSession() as http:
            t = await create_table(http, base, seats=["open", "greedy", "random", "greedy"],
                                   seed=3, deals=2)
            j = await join_table(http, base, t["id"])
            c = await TableClient.connect(http, base, t["id"], j["token"])
            await c.play_out()
            assert len(c.results) == 2 and c.state["finished"]
            assert all(a["seat"] in range(4) for a in c.seen.values())
            assert sorted(c.seen) == list(range(len(c.seen)))

    run(body)


def test_all_bot_table_plays_itself_and_spectators_see_no_hand(tmp_path):
    async def body():
        async with running(db_url(tmp_path), bot_delay=0.001) as (server, base), \
                aiohttp.ClientSession() as http:
            t = await create_table(http, base, seats=["greedy", "random", "greedy", "random"],
                                   seed=4)
            spec = await TableClient.connect(http, base, t["id"])
            assert spec.player is None
            states = [spec.state]
            while not spec.state["finished"]:
                msg = await spec.receive()
                assert msg is not None
                if msg["type"] == "update":
                    states.append(msg["state"])
            assert all(s["hand"] is None and s["partner_hand"] is None and s["seat"] is None
                       for s in states)
            assert len(spec.results) == 1
            match = replay_log({"options": Rules.baibian().to_dict()},
                               [spec.seen[i] for i in sorted(spec.seen)], 4)
            assert match.games[0].result.to_dict()["scores"] == spec.results[0]["scores"]
            assert server.tables[t["id"]].finished

    run(body)


def test_partner_hand_only_under_jj(tmp_path):
    async def body():
        async with running(db_url(tmp_path)) as (server, base), \
                aiohttp.ClientSession() as http:
            for preset, visible in (("jj", True), ("baibian", False)):
                t, clients = await _seat_all(http, base, rules=preset, seats=["open"] * 4,
                                             seed=21)
                game = server.tables[t["id"]].game
                for c in clients:
                    seat = c.state["seat"]
                    assert c.state["hand"] == list(game.hand(seat))
                    expect = list(game.hand(seat ^ 2)) if visible else None
                    assert c.state["partner_hand"] == expect
                spec = await TableClient.connect(http, base, t["id"])
                assert spec.state["hand"] is None and spec.state["partner_hand"] is None
                for c in [*clients, spec]:
                    await c.close()

    run(body)


def test_hint_is_the_solvers_order_and_playable(tmp_path):
    """Hints follow shuangkou.solve.hints (docs/solver.md "Hints"), cycled by ``n``."""
    async def body():
        async with running(db_url(tmp_path)) as (server, base), \
                aiohttp.ClientSession() as http:
            t, clients = await _seat_all(http, base, rules="classic", seats=["open"] * 4,
                                         seed=8)
            table = server.tables[t["id"]]
            for _ in range(12):  # hints on leads and on answers
                c = next(x for x in clients if x.my_turn)
                game = table.game
                want = sk_hints(game)
                await c.send({"type": "hint", "n": 1})
                reply = await _reply(c, "hint")
                assert reply["seq"] == table.seq
                if not want:
                    assert reply["pass"] and reply["cards"] == [] and reply["count"] == 0
                    await c.send({"type": "pass"})
                else:
                    trial = game.copy()
                    trial.play(reply["cards"], reply["kind"])
                    assert trial.table == want[1 % len(want)] and reply["count"] == len(want)
                    await c.send({"type": "play", "cards": reply["cards"],
                                  "kind": reply["kind"]})
                await _reply(c, "update")
                await asyncio.gather(*(_drain_to(x, table.seq) for x in clients))

    run(body)


async def _reply(c: TableClient, typ: str) -> dict[str, object]:
    while True:
        msg = await c.receive()
        assert msg is not None
        if msg["type"] == typ:
            return msg
        assert msg["type"] != "error", msg


async def _drain_to(c: TableClient, seq: int) -> None:
    while c.state["seq"] < seq:
        assert await c.receive() is not None


def test_reconnect_with_the_token_resumes_the_place(tmp_path):
    async def body():
        async with running(db_url(tmp_path)) as (server, base), \
                aiohttp.ClientSession() as http:
            t = await create_table(http, base, seats=["open", "greedy", "greedy", "greedy"],
                                   seed=2)
            j = await join_table(http, base, t["id"])
            c = await TableClient.connect(http, base, t["id"], j["token"])
            for _ in range(3):
                if c.my_turn:
                    await c.act()
                await c.receive()
            seen = dict(c.seen)
            await c.close()
            await asyncio.sleep(0.05)
            again = await TableClient.connect(http, base, t["id"], j["token"])
            assert again.player == 0
            assert all(again.seen[s] == a for s, a in seen.items())
            table = server.tables[t["id"]]
            assert again.state["hand"] == list(table.game.hand(table.seat_of(0)))
            # a second connection with the same token replaces the first
            third = await TableClient.connect(http, base, t["id"], j["token"])
            closed = await again.receive()
            while closed is not None:
                closed = await again.receive()
            assert again.ws.close_code == 4000
            await third.play_out()
            assert third.state["finished"]

    run(body)


def test_turn_timer_default_action(tmp_path):
    """On timeout the server passes for the place when passing is legal (R4), else plays
    the first hint (shuangkou.solve.hints)."""
    async def body():
        async with running(db_url(tmp_path)) as (server, base), \
                aiohttp.ClientSession() as http:
            t = await create_table(http, base, seats=["open", "greedy", "greedy", "greedy"],
                                   seed=6, timer=1)
            table = server.tables[t["id"]]
            j = await join_table(http, base, t["id"])
            c = await TableClient.connect(http, base, t["id"], j["token"])
            for _ in range(2):
                while not c.my_turn:
                    assert await c.receive() is not None
                assert 0 < c.state["timer_left"] <= 1
                game = table.game.copy()
                expect = None if game.can_pass() else sk_hints(game)[0]
                before = table.seq
                while before not in c.seen:
                    assert await c.receive() is not None
                act = c.seen[before]
                assert act["seat"] == game.to_act
                if expect is None:
                    assert act["kind"] == "pass"
                else:
                    game.play(expect)
                    assert act["kind"] == "play" and act["cards"] == list(game.table_cards)

    run(body, timeout=60)


def test_restart_resumes_every_table_exactly(tmp_path):
    async def body():
        db = db_url(tmp_path)
        async with aiohttp.ClientSession() as http:
            async with running(db) as (server, base):
                t, clients = await _seat_all(http, base, seats=["open"] * 4, seed=13, deals=2)
                bots = await create_table(http, base, seats=["open", "greedy", "greedy",
                                                             "greedy"], seed=14)
                for _ in range(40):
                    await play_one(clients)
                assert server.tables[t["id"]].seq == 40
                before = {i: tb.game.key() for i, tb in server.tables.items()}
                seqs = {i: tb.seq for i, tb in server.tables.items()}
                tokens = [x for x in server.tables[t["id"]].digests.items()]
                for x in clients:
                    await x.close()
            async with running(db) as (again, base2):
                assert {i: tb.game.key() for i, tb in again.tables.items()} == before
                assert {i: tb.seq for i, tb in again.tables.items()} == seqs
                assert list(again.tables[t["id"]].digests.items()) == tokens
                assert again.tables[bots["id"]].game.to_act is not None

    run(body)


# -- the store ------------------------------------------------------------------------------
def test_store_migrations_are_applied_once(tmp_path):
    url = db_url(tmp_path)
    store = open_store(url)
    assert store.schema_version == len(MIGRATIONS)
    store.close()
    store = open_store(url)  # reopening applies nothing again
    assert store.schema_version == len(MIGRATIONS)
    store.close()
    conn = sqlite3.connect(tmp_path / "sk.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.execute("UPDATE schema_version SET version = 99")
    conn.commit()
    conn.close()
    with pytest.raises(RuntimeError, match="newer"):
        open_store(url)


def test_tokens_are_stored_as_digests(tmp_path):
    async def body():
        async with running(db_url(tmp_path)) as (_, base), aiohttp.ClientSession() as http:
            t = await create_table(http, base, seed=1)
            return (await join_table(http, base, t["id"]))["token"]

    token = run(body)
    raw = (tmp_path / "sk.db").read_bytes() + (tmp_path / "sk.db-wal").read_bytes() \
        if (tmp_path / "sk.db-wal").exists() else (tmp_path / "sk.db").read_bytes()
    assert token.encode() not in raw


def test_match_totals_follow_the_seating(tmp_path):
    """Totals are per player (place) while a 明牌 swap (R7) moves players between seats."""
    async def body():
        async with running(db_url(tmp_path)) as (server, base), \
                aiohttp.ClientSession() as http:
            for seed in range(30):
                m = Match(Rules.baibian(), seed)
                if m.deal().swap is not None:
                    break
            t, clients = await _seat_all(http, base, seats=["open"] * 4, seed=seed)
            assert sorted(c.state["seat"] for c in clients) == [0, 1, 2, 3]
            assert any(c.state["seat"] != c.player for c in clients)
            await asyncio.gather(*(c.play_out() for c in clients))
            res = clients[0].results[0]
            for c in clients:
                assert c.state["totals"][c.player] == res["scores"][res["players"].index(
                    c.player)]

    run(body)


def test_serve_command_runs_the_server(tmp_path):
    port = free_port()
    proc = start_serve(db_url(tmp_path), port)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/") as r:
            page = r.read().decode()
        assert "<html" in page and "/static/table.css" in page
        req = urllib.request.Request(f"http://127.0.0.1:{port}/api/tables", method="POST",
                                     data=b"{}", headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req) as r:
            assert r.status == 201
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_damaged_log_leaves_only_that_table_out(tmp_path):
    """A stored action the engine refuses (a tampered database) keeps that table out of the
    restart; the other tables resume."""
    async def body():
        db = db_url(tmp_path)
        async with aiohttp.ClientSession() as http:
            async with running(db) as (_, base):
                bad = await create_table(http, base, seats=["open"] * 4, seed=51)
                good = await create_table(http, base, seats=["open"] * 4, seed=52)
                for t in (bad, good):
                    _, clients = await _seat_all_existing(http, base, t["id"])
                    await play_one(clients)
                    for c in clients:
                        await c.close()
            conn = sqlite3.connect(tmp_path / "sk.db")
            conn.execute("UPDATE sk_actions SET cards = '[107, 106]' WHERE table_id = ?",
                         (bad["id"],))
            conn.commit()
            conn.close()
            async with running(db) as (again, _):
                assert bad["id"] not in again.tables and good["id"] in again.tables

    run(body)


async def _seat_all_existing(http: aiohttp.ClientSession, base: str, table: str) -> tuple[
        str, list[TableClient]]:
    clients = []
    for p in range(4):
        j = await join_table(http, base, table, p)
        clients.append(await TableClient.connect(http, base, table, j["token"]))
    return table, clients


def test_reads_of_a_long_table_build_each_deal_once(tmp_path, monkeypatch):
    """Issue 34: every ``GET /log`` and every welcome rebuilt the whole history (each
    finished deal's engine log, every action's and result's view): ~16 ms of server CPU a
    read of a 100-deal match. What never changes is built once: a second read builds no
    finished deal's log again, and what it answers equals a table restored afresh (nothing
    cached) — during the match (finished deals without their seeds) and after it."""
    from shuangkou.game import Game
    from shuangkou.server.table import Table

    built: list[int] = []
    log = Game.log

    def counted(self: Game, *args: object, **kw: object) -> dict:
        if self.is_over:
            built.append(1)
        return log(self, *args, **kw)

    monkeypatch.setattr(Game, "log", counted)

    async def body() -> None:
        async with running(db_url(tmp_path), bot_delay=0.0) as (server, base), \
                aiohttp.ClientSession() as http:
            t = await create_table(http, base, seats=["greedy"] * 4, deals=3, seed=5)
            spectator = await TableClient.connect(http, base, t["id"])
            table = server.tables[t["id"]]
            for until in (lambda: len(table.match.games) == 3, lambda: table.finished):
                while not until():
                    assert await spectator.receive(10) is not None
                table.stop()  # at rest while it is read
                reads = []
                for _ in range(2):
                    built.clear()
                    async with http.get(f"{base}/api/tables/{t['id']}/log") as r:
                        reads.append((await r.json(), len(built)))
                (first, n1), (second, n2) = reads
                assert first == second and n1 >= 1 and n2 == 0
                fresh = Table.restore(t["id"], table.commits)
                assert json.loads(json.dumps(fresh.log_view(None))) == first
                assert (first["deals"][0]["seed"] is None) == (not table.finished)
                table.schedule()
            await spectator.close()

    run(body)


def test_tables_share_their_bots(tmp_path, monkeypatch):
    """Issue 34: each table built its own bots (a searched ``default`` holds ~2 MB of search
    tables: ~3 MB a table, ~6 GB at the 2,000-table cap). A bot holds no per-deal state and
    the tables run on one thread, so every table of the server plays a kind of bot for a
    rules with the same object — at most :data:`~shuangkou.server.table.SHARED_BOTS` of
    them, the least recently used dropped — and a table's moves stay those of its seed."""
    from shuangkou.server import table as table_module

    made: list[tuple[str, str]] = []
    make = table_module.make

    def counted(kind: str, rules: Rules, **kw: object) -> object:
        made.append((kind, rules.name))
        return make(kind, rules, **kw)

    table_module.shared_bot.cache_clear()
    monkeypatch.setattr(table_module, "make", counted)
    try:
        async def body() -> list[list[dict]]:
            logs = []
            async with running(db_url(tmp_path), bot_delay=0.0) as (server, base), \
                    aiohttp.ClientSession() as http:
                for _ in range(3):
                    t = await create_table(http, base, seats=["greedy", "heuristic"] * 2,
                                           rules="classic", seed=11)
                    spectator = await TableClient.connect(http, base, t["id"])
                    while not spectator.state["finished"]:
                        assert await spectator.receive(10) is not None
                    await spectator.close()
                    async with http.get(f"{base}/api/tables/{t['id']}/log") as r:
                        logs.append((await r.json())["log"])
            return logs

        logs = run(body)
    finally:
        table_module.shared_bot.cache_clear()
    assert sorted(made) == [("greedy", "classic"), ("heuristic", "classic")]  # once each
    assert logs[0] == logs[1] == logs[2]  # the same seed, the same moves
    assert table_module.shared_bot.cache_info().maxsize == table_module.SHARED_BOTS


@pytest.mark.parametrize("case", ["port", "postgres", "sqlite"])
def test_serve_start_up_failures_are_one_line(tmp_path, case):
    """Issue 34: a server that could not start printed a raw traceback (``address already in
    use``; a 19-line ``psycopg.OperationalError``). Now one line naming the cause and the
    fix, exit 2: the port taken, a database nobody answers at, a SQLite file that cannot be
    opened."""
    import socket
    import subprocess
    import sys

    if case == "postgres":
        pytest.importorskip("psycopg")
    port = free_port()
    db = db_url(tmp_path)
    with socket.socket() as held:
        if case == "port":
            held.bind(("127.0.0.1", port))
            held.listen()
            want = ["127.0.0.1:", "in use", "--port"]
        elif case == "postgres":
            db = f"postgresql://someone:secret@127.0.0.1:{free_port()}/nowhere"
            want = ["cannot open the database", "postgresql://someone@127.0.0.1", "--db"]
        else:
            db = f"sqlite://{tmp_path}/no/such/dir/sk.db"
            want = ["cannot open the database", "no/such/dir", "--db"]
        done = subprocess.run(
            [sys.executable, "-m", "shuangkou", "serve", "--db", db, "--port", str(port)],
            capture_output=True, text=True, timeout=60)
    lines = [ln for ln in done.stderr.splitlines() if ln.startswith("shuangkou: error:")]
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert len(lines) == 1 and all(w in lines[0] for w in want), done.stderr
    assert "secret" not in done.stderr


def test_a_config_built_in_python_is_checked_as_a_request_is():
    # one check for both paths: the same field refused with the same error class, which is
    # still the ArgumentError the constructor raised before
    from shuangkou.errors import ArgumentError
    for field, value in (("deals", 0), ("deals", True), ("timer", 0.5), ("seed", -1),
                         ("seats", ["open", "open", "open"])):
        doc = {field: value}
        with pytest.raises(ConfigError, match=field):
            TableConfig.from_request(doc, allow_seed=True)
        kw = {"seed": 1, field: value}
        with pytest.raises(ConfigError, match=field) as caught:
            TableConfig(Rules.baibian(), **kw)
        assert isinstance(caught.value, ArgumentError)
