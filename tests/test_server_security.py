"""Attacks on a real server on 127.0.0.1 (issue #9 item 2): each one gets an error or a close,
never a crash or a stuck table, and the table is unchanged after it — the engine state, the
accepted-action count, and the stored log — and the game then plays on."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp

from shuangkou.game import replay
from shuangkou.rng import deal_seed
from shuangkou.server import Limits, open_store
from shuangkou.server.client import TableClient, choose, create_table, ids_for, join_table
from shuangkou.server.table import Table
from tests.server_harness import (
    db_url,
    run,
    running,
    schema_checked,  # noqa: F401  (autouse)
)


class Fixture:
    """A table of four open places joined by four clients, and a spectator."""

    def __init__(self, server: Any, base: str, http: aiohttp.ClientSession) -> None:
        self.server, self.base, self.http = server, base, http

    async def setup(self, **config: Any) -> None:
        t = await create_table(self.http, self.base, seats=["open"] * 4, seed=31, **config)
        self.id = t["id"]
        self.tokens = []
        self.clients = []
        for p in range(4):
            j = await join_table(self.http, self.base, self.id, p)
            self.tokens.append(j["token"])
            self.clients.append(await TableClient.connect(self.http, self.base, self.id,
                                                          j["token"]))
        self.spectator = await TableClient.connect(self.http, self.base, self.id)

    @property
    def table(self) -> Table:
        return self.server.tables[self.id]

    def snapshot(self) -> tuple[Any, ...]:
        t = self.table
        stored = open_store(self.server.store.url).actions(self.id)
        return t.game.key(), t.seq, len(stored)

    def actor(self) -> TableClient:
        return next(c for c in self.clients if c.my_turn)

    def other(self) -> TableClient:
        return next(c for c in self.clients if not c.my_turn)

    async def advance(self) -> None:
        """One legitimate move, seen by everyone: the table is not stuck."""
        before = self.table.seq
        await self.actor().act()
        for c in [*self.clients, self.spectator]:
            while c.state["seq"] <= before:
                assert await c.receive() is not None


async def _error(c: TableClient, code: str) -> dict[str, Any]:
    while True:
        msg = await c.receive(10)
        assert msg is not None, f"closed instead of error {code}"
        if msg["type"] == "error":
            assert msg["code"] == code, msg
            return msg


async def _closed(ws: aiohttp.ClientWebSocketResponse) -> int | None:
    while True:
        msg = await ws.receive(10)
        if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED,
                        aiohttp.WSMsgType.CLOSING, aiohttp.WSMsgType.ERROR):
            return ws.close_code


def _with(tmp: Any, fn: Any, limits: Limits | None = None) -> None:
    """Run ``fn(fixture)`` against a fresh server and table, one legal move already made."""
    async def body() -> None:
        async with running(db_url(tmp), limits=limits) as (server, base), \
                aiohttp.ClientSession() as http:
            f = Fixture(server, base, http)
            await f.setup()
            await f.advance()
            await fn(f)

    run(body)


def test_actions_out_of_turn_and_illegal_are_refused(tmp_path):
    async def attacks(f: Fixture) -> None:
        game = f.table.game
        actor, other = f.actor(), f.other()
        my_seat = actor.state["seat"]
        foreign = [c for s in range(4) if s != my_seat for c in game.hand(s)]
        cases: list[tuple[TableClient, dict[str, Any], str]] = [
            (other, {"type": "play", "cards": other.state["hand"][:1]}, "not_your_turn"),
            (other, {"type": "pass"}, "not_your_turn"),
            (actor, {"type": "play", "cards": foreign[:1]}, "illegal"),  # another seat's card
            (actor, {"type": "play", "cards": [actor.state["hand"][0]] * 2}, "illegal"),
            (actor, {"type": "play", "cards": [500]}, "bad_message"),  # not a card id
            (actor, {"type": "play", "cards": [-1]}, "bad_message"),
            (actor, {"type": "play", "cards": actor.state["hand"]}, "illegal"),  # no reading
            (actor, {"type": "play", "cards": ["3s"]}, "bad_message"),
            (actor, {"type": "play", "cards": [True]}, "bad_message"),
            (actor, {"type": "play", "cards": [1.5]}, "bad_message"),
            (actor, {"type": "play", "cards": []}, "bad_message"),
            (actor, {"type": "play", "cards": list(range(109))}, "bad_message"),
            (actor, {"type": "play", "cards": {"0": 1}}, "bad_message"),
            (actor, {"type": "play", "cards": actor.state["hand"][:1], "kind": "__class__"},
             "illegal"),
            (actor, {"type": "play", "cards": actor.state["hand"][:1],
                     "seq": actor.state["seq"] - 1}, "stale"),
            (f.spectator, {"type": "pass"}, "spectator"),
            (f.spectator, {"type": "hint"}, "spectator"),
            (other, {"type": "hint"}, "not_your_turn"),
            (actor, {"type": "join", "table": f.id, "token": f.tokens[0]}, "already_joined"),
        ]
        if actor.state["table"] is None:  # R4: the leader may not pass
            cases.append((actor, {"type": "pass"}, "illegal"))
        else:  # something that does not beat the table
            cases.append((actor, {"type": "play", "cards": [min(actor.state["hand"])],
                                  "kind": "single"}, "illegal"))
        for client, msg, code in cases:
            before = f.snapshot()
            await client.send(msg)
            err = await _error(client, code)
            assert f.snapshot() == before, (msg, err)
            # an error never names a card the sender does not hold or cannot see
            sent = msg.get("cards") if isinstance(msg.get("cards"), list) else []
            for c in foreign:
                if c not in sent:
                    assert f"(id {c})" not in err["message"]
        await f.advance()

    _with(tmp_path, attacks)


def test_malformed_frames_get_an_error(tmp_path):
    async def attacks(f: Fixture) -> None:
        c = f.actor()
        frames = [
            ("not json", "bad_json"), ("[1, 2]", "bad_json"), ('"text"', "bad_json"),
            ("{}", "bad_message"), ('{"type": "shutdown"}', "unknown_type"),
            ('{"type": 7}', "bad_message"), ('{"type": "play"}', "bad_message"),
            ('{"type": "play", "cards": [1], "id": {"x": 1}}', "bad_message"),
            ('{"type": "play", "cards": [1], "seq": 1e400}', "bad_json"),  # not a finite number
            ('{"type": "play", "cards": [1], "seq": 1e23}', "bad_message"),  # a float, not an int
            ('{"type": "ping", "x": NaN}', "bad_json"),
            ('{"type": "hint", "n": "x"}', "bad_message"),
            ("[" * 2000 + "]" * 2000, "bad_json"),  # nesting deeper than the parser's stack
            ('{"type": "ping", "id": "' + "x" * 100 + '"}', "bad_message"),
        ]
        for text, code in frames:
            before = f.snapshot()
            await c.ws.send_str(text)
            await _error(c, code)
            assert f.snapshot() == before, text
        await c.ws.send_bytes(b"\x00\x01")
        await _error(c, "bad_json")
        await c.send({"type": "ping"})
        while (await c.receive())["type"] != "pong":
            pass
        await f.advance()

    _with(tmp_path, attacks)


def test_join_attacks(tmp_path):
    async def attacks(f: Fixture) -> None:
        url = f.base.replace("http", "ws") + "/ws"
        cases = [
            ({"type": "join", "table": f.id, "token": "x" * 32}, "bad_token"),
            ({"type": "join", "table": f.id, "token": f.tokens[0][:-1]}, "bad_token"),
            ({"type": "join", "table": "0" * 16, "token": f.tokens[0]}, "no_table"),
            ({"type": "join", "table": f.id}, "bad_message"),
            ({"type": "play", "cards": [1]}, "not_joined"),
            ({"type": "pass"}, "not_joined"),
        ]
        for msg, code in cases:
            before = f.snapshot()
            ws = await f.http.ws_connect(url)
            await ws.send_str(json.dumps(msg))
            reply = json.loads((await ws.receive(10)).data)
            assert (reply["type"], reply["code"]) == ("error", code), msg
            await ws.close()
            assert f.snapshot() == before
        # a token of another table does not open this one
        other = await create_table(f.http, f.base, seats=["open"] * 4, seed=32)
        tok = (await join_table(f.http, f.base, other["id"], 0))["token"]
        ws = await f.http.ws_connect(url)
        await ws.send_str(json.dumps({"type": "join", "table": f.id, "token": tok}))
        assert json.loads((await ws.receive(10)).data)["code"] == "bad_token"
        await ws.close()
        # HTTP: unknown table, bad body, oversized body, taken place, wrong log token
        async with f.http.post(f"{f.base}/api/tables/{f.id}/join", data="{") as r:
            assert r.status == 400
        async with f.http.post(f"{f.base}/api/tables", data=b"{" + b" " * 40_000 + b"}",
                               headers={"Content-Type": "application/json"}) as r:
            assert r.status == 413
        async with f.http.post(f"{f.base}/api/tables/{f.id}/join", json={"player": 0}) as r:
            assert r.status == 409
        async with f.http.post(f"{f.base}/api/tables/{f.id}/join", json={"player": 9}) as r:
            assert r.status == 400
        async with f.http.get(f"{f.base}/api/tables/{f.id}/log",
                              headers={"Authorization": "Bearer nope"}) as r:
            assert r.status == 403
        await f.advance()

    _with(tmp_path, attacks)


def test_oversized_frame_and_flood_close_the_connection(tmp_path):
    async def attacks(f: Fixture) -> None:
        url = f.base.replace("http", "ws") + "/ws"
        before = f.snapshot()
        ws = await f.http.ws_connect(url)
        await ws.send_str(json.dumps({"type": "ping", "pad": "x" * 10_000}))
        assert await _closed(ws) == 1009
        assert f.snapshot() == before
        # a flood from a seated player: an error, then the close; the table is unchanged
        c = f.other()
        for _ in range(200):
            await c.ws.send_str('{"type": "ping"}')
        codes = []
        while True:
            msg = await c.receive(10)
            if msg is None:
                break
            codes.append(msg.get("code"))
        assert "flood" in codes and c.ws.close_code == 1008
        assert f.snapshot() == before
        # the flooder's place reconnects with its token; the game goes on
        again = await TableClient.connect(f.http, f.base, f.id, f.tokens[c.player])
        f.clients[f.clients.index(c)] = again
        await f.advance()
        # a connection that never joins is closed after the time limit
        idle = await f.http.ws_connect(url)
        assert await _closed(idle) == 4408

    _with(tmp_path, attacks, limits=Limits(rate=20, burst=40, auth_timeout=0.5))


def test_no_hidden_card_reaches_a_connection(tmp_path):
    """A whole deal: every message to a place holds, as cards, only its own hand, cards
    played, and the hint it asked for; a spectator gets no hand; during the deal the log
    without a token has no hands, with a token only the place's own; once the deal is over
    the log shows the whole deal and its seed, and replays in the engine."""
    async def check(f: Fixture) -> None:
        table = f.table
        game = table.game
        dealt = {c.player: set(game.initial_hands[game.players.index(c.player)])
                 for c in f.clients}
        received: dict[int | None, list[dict[str, Any]]] = {c.player: [] for c in f.clients}
        received[None] = []
        async with f.http.get(f"{f.base}/api/tables/{f.id}/log") as r:
            early = await r.json()
        async with f.http.get(f"{f.base}/api/tables/{f.id}/log",
                              headers={"Authorization": f"Bearer {f.tokens[2]}"}) as r:
            early_mine = await r.json()

        async def play(c: TableClient) -> None:
            acted = -1
            while not c.state["finished"]:
                if c.my_turn and acted != c.state["seq"]:
                    acted = c.state["seq"]
                    await c.send({"type": "hint"})
                    await c.act()
                msg = await c.receive()
                assert msg is not None
                received[c.player].append(msg)

        async def watch(c: TableClient) -> None:
            while not c.state["finished"]:
                msg = await c.receive()
                assert msg is not None
                received[None].append(msg)

        await asyncio.gather(*(play(c) for c in f.clients), watch(f.spectator))
        played = {c for g in table.match.games for a in g.actions for c in a.cards}
        for player, msgs in received.items():
            own = dealt.get(player, set())
            for m in msgs:
                st = m.get("state")
                if st is not None:
                    if player is None:
                        assert st["hand"] is None and st["partner_hand"] is None
                    else:
                        assert set(st["hand"]) <= own and st["partner_hand"] is None
                    assert set(st["table_cards"]) <= played
                if m["type"] == "update":
                    assert set(m["action"]["cards"]) <= played
                if m["type"] == "hint":
                    assert set(m["cards"]) <= own
                assert "seed" not in m and "hands" not in m
        # during the deal (fetched before it was played out, below): no hand but one's own
        assert "seed" not in json.dumps(early["config"])
        for deal in early["deals"]:  # the spectator's form: no hand, no seed
            assert deal["seed"] is None and deal["deal"]["hands"] == [None] * 4
        for deal in early_mine["deals"]:
            shown = [set(h) for h in deal["deal"]["hands"] if h is not None]
            assert deal["seed"] is None and shown == [dealt[2]]
        assert early_mine["player"] == 2
        # once the deal (here the match) is over: the whole deal and its seed, for anyone
        async with f.http.get(f"{f.base}/api/tables/{f.id}/log") as r:
            after = await r.json()
        (deal,) = after["deals"]
        assert deal["seed"] == deal_seed(31, 0)
        assert deal["deal"]["hands"] == [list(h) for h in game.dealt]
        again = replay(deal)  # the client's own engine replays and checks it
        assert again.is_over and again.result.to_dict() == game.result.to_dict()

    _with(tmp_path, check)


def test_an_action_the_store_refuses_is_never_seen(tmp_path):
    """Group commit (server/commit.py): when the batch's commit fails, the action is undone and
    its sender gets ``server``; no connection is sent it, and the table plays on once the
    database takes writes again. The failure is real: SQLite's ``query_only`` refuses writes."""
    async def attacks(f: Fixture) -> None:
        before = f.snapshot()
        conn = f.server.store._conn
        conn.execute("PRAGMA query_only = ON")
        await f.actor().act()
        await _error(f.actor(), "server")
        assert f.snapshot() == before
        conn.execute("PRAGMA query_only = OFF")
        await f.advance()
        stored = {a.seq: a for a in open_store(f.server.store.url).actions(f.id)}
        for c in [*f.clients, f.spectator]:  # what each connection was shown is what is stored
            assert sorted(c.seen) == sorted(stored)
            for seq, a in c.seen.items():
                assert (a["kind"], a["seat"], tuple(a["cards"])) == \
                    (stored[seq].kind, stored[seq].seat, stored[seq].cards)

    _with(tmp_path, attacks)


def test_actions_of_one_turn_of_the_loop_share_one_commit(tmp_path):
    """Actions of several tables submitted in the same turn of the event loop are committed in
    one transaction (SQLite's trace shows one COMMIT), and each is broadcast after it."""
    async def body() -> None:
        async with running(db_url(tmp_path)) as (server, base), \
                aiohttp.ClientSession() as http:
            fixtures = []
            for _ in range(3):
                f = Fixture(server, base, http)
                await f.setup()
                fixtures.append(f)
            statements: list[str] = []
            server.store._conn.set_trace_callback(statements.append)
            seqs = [f.table.seq for f in fixtures]
            refused: list[Any] = []
            for f in fixtures:  # three submissions with no await between: one turn of the loop
                t = f.table
                player = t.game.players[t.game.to_act]
                state = t.state(player)
                play = choose(state, t.config.rules)
                assert play is not None  # a lead
                t.act(player, "play", tuple(ids_for(play, state["hand"])),
                      refuse=refused.append)
            for f, seq in zip(fixtures, seqs):
                for c in f.clients:
                    while c.state["seq"] <= seq:
                        assert await c.receive() is not None
            server.store._conn.set_trace_callback(None)
            inserts = [s for s in statements if s.startswith("INSERT INTO sk_actions")]
            assert len(inserts) == 3 and not refused
            assert sum(s.strip().upper() == "COMMIT" for s in statements) == 1

    run(body)


def test_a_table_id_of_other_digits_has_no_lock_key() -> None:
    # int(id, 16) also reads other scripts' digits, '_' and spaces: '٣' * 16 got the lock key
    # of '3' * 16 (another table's lease); PostgreSQL's cast of the same id fails
    import pytest

    from shuangkou.server.cluster import table_key

    assert table_key("3" * 16) == int("3" * 16, 16)
    assert table_key("FFFFFFFFFFFFFFFF") == table_key("ffffffffffffffff") == -1
    for bad in ("\u0663" * 16, "\uff13" * 16, "0000_00000000000", " 000000000000000",
                "+000000000000000", "3" * 15):
        with pytest.raises(ValueError, match="not a table id"):
            table_key(bad)
