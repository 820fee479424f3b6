"""docs/protocol.md is the contract (issue #20 items 1-2): the hint race, the id echo on every
reply, one error code per fault on both transports, the seating of every logged field across a
明牌 swap (R7), the whole deal after it ends, and the JSON Schema itself. Every message the
in-process servers here send is checked against docs/protocol.schema.json (``schema_checked``).
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import aiohttp
import orjson

from shuangkou.game import Match, replay
from shuangkou.rng import deal_seed
from shuangkou.server import PROTOCOL_VERSION, Limits
from shuangkou.server.client import TableClient, create_table, join_table
from shuangkou.server.protocol import ERRORS, HTTP_STATUS, MAX_DEPTH, MAX_FRAME
from tests.server_harness import (
    SCHEMA,
    db_url,
    run,
    running,
    schema_checked,  # noqa: F401  (autouse)
    schema_validator,
)


async def _seated(http: aiohttp.ClientSession, base: str,
                  **config: Any) -> tuple[str, list[str], list[TableClient]]:
    t = await create_table(http, base, seats=["open"] * 4, **config)
    tokens = [(await join_table(http, base, t["id"], p))["token"] for p in range(4)]
    clients = [await TableClient.connect(http, base, t["id"], tok) for tok in tokens]
    return t["id"], tokens, clients


async def _next(c: TableClient, typ: str) -> dict[str, Any]:
    while True:
        msg = await c.receive(10)
        assert msg is not None, f"closed before a {typ}"
        if msg["type"] == typ:
            return msg


async def _frame(ws: aiohttp.ClientWebSocketResponse, text: str) -> dict[str, Any]:
    """Send a raw frame; the next message that is not a ``places`` broadcast."""
    await ws.send_str(text)
    while True:
        msg: dict[str, Any] = orjson.loads((await ws.receive(10)).data)
        if msg["type"] != "places":
            return msg


# -- item 1: no await holds a live position ------------------------------------------------
def test_hint_and_action_back_to_back_never_leak(tmp_path):
    """The attack of the issue: a hint and, without waiting, the asker's own action (and the
    next seat's hint right behind it), turn after turn. Every hint is for the asker's seat at
    the position it asked about: its cards are all in the asker's hand then (never the next
    seat's), and no hint is refused with ``server``. On the old server (hints awaited in a
    child process, then ``cards_for`` on the live game) 6-13 of 30-40 such hints leaked."""
    # this client sends hints far faster than a person: above the flood limit's defaults
    limits = Limits(rate=1e4, burst=1e4, create_rate=0, tables_per_address=0)

    async def body() -> None:
        async with running(db_url(tmp_path), limits=limits) as (server, base), \
                aiohttp.ClientSession() as http:
            rng = random.Random(5)
            # a whole classic deal, and 百变's first turns (wilds)
            for rules, seed, turns in (("classic", 4, 1000), ("baibian", 3, 16)):
                table_id, _, clients = await _seated(http, base, rules=rules, seed=seed)
                table = server.tables[table_id]
                hints = 0
                while not table.finished and table.seq < turns:
                    actor = next(c for c in clients if c.my_turn)
                    nxt = clients[(clients.index(actor) + 1) % 4]
                    asked = {"seq": actor.state["seq"], "hand": set(actor.state["hand"])}
                    other_hand = set(table.game.hand(table.seat_of(nxt.player)))
                    hint_id = await actor.send({"type": "hint", "n": rng.randrange(5)})
                    await actor.act()  # no await of the hint's answer in between
                    nxt_id = await nxt.send({"type": "hint"})
                    for c, mid, hand in ((actor, hint_id, asked["hand"]), (nxt, nxt_id, None)):
                        while True:
                            msg = await c.receive(60)
                            assert msg is not None, c.ws.close_code
                            if msg.get("reply_to") == mid:
                                break
                        if msg["type"] == "error":
                            assert msg["code"] in ("not_your_turn", "match_over"), msg
                            continue
                        assert msg["type"] == "hint", msg
                        if hand is None:  # the next seat's own hint, on its own turn
                            hand = other_hand
                        else:
                            assert msg["seq"] == asked["seq"]
                        assert set(msg["cards"]) <= hand, (msg, sorted(hand))
                        hints += 1
                    await asyncio.gather(*(_drain(c, table.seq) for c in clients))
                assert hints >= min(turns, 40)
                for c in clients:
                    await c.close()

    run(body, timeout=240)


async def _drain(c: TableClient, seq: int) -> None:
    while c.state["seq"] < seq:
        assert await c.receive(10) is not None


def test_a_hint_for_an_older_position_is_stale(tmp_path):
    """A hint may name the position it is for (``seq``): a moved-on table refuses it
    (``stale``) instead of answering for another position."""
    async def body() -> None:
        async with running(db_url(tmp_path)) as (_, base), aiohttp.ClientSession() as http:
            _, _, clients = await _seated(http, base, rules="classic", seed=4)
            actor = next(c for c in clients if c.my_turn)
            seq = actor.state["seq"]
            await actor.send({"type": "hint", "seq": seq + 1})
            err = await _next(actor, "error")
            assert err["code"] == "stale"
            await actor.send({"type": "hint", "seq": seq})
            assert (await _next(actor, "hint"))["seq"] == seq

    run(body)


# -- item 2: the doc is the contract --------------------------------------------------------
def test_every_reply_echoes_the_id(tmp_path):
    """``reply_to`` on the welcome, pong, hint, update and every error to a frame whose ``id``
    could be read (also ``unknown_type`` and ``bad_message``); a frame that is not a JSON
    object within the limits (``bad_json``) or whose id is malformed has none."""
    async def body() -> None:
        async with running(db_url(tmp_path)) as (_, base), aiohttp.ClientSession() as http:
            table_id, tokens, clients = await _seated(http, base, rules="classic", seed=4)
            ws = await http.ws_connect(f"{base.replace('http', 'ws', 1)}/ws?table={table_id}")
            cases = [
                ('{"id": 5, "type": "dance"}', "unknown_type", 5),
                ('{"id": "a", "type": "play"}', "bad_message", "a"),
                ('{"id": "b", "type": "join", "table": 7}', "bad_message", "b"),
                ('{"id": 6, "type": "pass"}', "not_joined", 6),
                ('{"id": 7, "type": "spectate", "table": "00"}', "no_table", 7),
                ('{"id": {"x": 1}, "type": "ping"}', "bad_message", None),
                ('{"id": 8, "type": "ping", "x": NaN}', "bad_json", None),
                ('{"id": 9, "type": "ping", "x": ' + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "}",
                 "bad_json", None),
                # issue 34: each fault its documented code — a missing or non-text type is a
                # field fault (bad_message), a card id outside 0..107 is no card (bad_message,
                # not the engine's illegal), and "id": null is a malformed id (no reply_to)
                ('{"id": 11}', "bad_message", 11),
                ('{"id": 12, "type": 3}', "bad_message", 12),
                ('{"id": 13, "type": "play", "cards": [108]}', "bad_message", 13),
                ('{"id": 14, "type": "play", "cards": [-1]}', "bad_message", 14),
                ('{"id": null, "type": "ping"}', "bad_message", None),
            ]
            for text, code, echo in cases:
                msg = await _frame(ws, text)
                assert msg["type"] == "error" and msg["code"] == code, (text, msg)
                assert msg.get("reply_to") == echo, (text, msg)
            assert (await _frame(ws, '{"type": "ping", "id": 10}')) == {
                "type": "pong", "reply_to": 10}
            assert (await _frame(ws, '{"type": "ping"}')) == {"type": "pong"}
            msg = await _frame(ws, orjson.dumps(
                {"type": "join", "table": table_id, "token": tokens[0], "id": "j"}).decode())
            assert msg["type"] == "welcome" and msg["reply_to"] == "j"
            await ws.close()
            actor = next(c for c in clients if c.my_turn)
            mid = await actor.send({"type": "hint"})
            assert (await _next(actor, "hint"))["reply_to"] == mid
            mid = await actor.send({"type": "play", "cards": [999]})
            err = await _next(actor, "error")
            assert err["code"] == "bad_message" and err["reply_to"] == mid
            held = actor.state["hand"]
            mid = await actor.send({"type": "play", "cards": [
                next(c for c in range(108) if c not in held)]})  # a card id it does not hold
            err = await _next(actor, "error")
            assert err["code"] == "illegal" and err["reply_to"] == mid
            seq = actor.state["seq"]
            await actor.act()
            while actor.state["seq"] == seq:
                msg = await _next(actor, "update")
            assert msg["reply_to"] == actor._next_id

    run(body)


def test_the_flood_error_answers_the_frame_that_overflowed(tmp_path):
    """A burst of ``burst`` frames is answered; the next one is answered by the ``flood``
    error alone (issue 34: it was answered twice, its pong and then the flood error, both
    with its ``reply_to``, so ``burst + 1`` frames got through), then the close (1008).
    Every kind of frame draws on the bucket: malformed, binary, refused actions."""
    limits = Limits(rate=1e-3, burst=2, create_rate=0, tables_per_address=0)

    async def body() -> None:
        async with running(db_url(tmp_path), limits=limits) as (_, base), \
                aiohttp.ClientSession() as http:
            url = f"{base.replace('http', 'ws', 1)}/ws"
            for first, second in [('{"type": "ping", "id": 1}', '{"type": "ping", "id": 2}'),
                                  ("not json", '{"type": "pass", "id": 2}'),
                                  (b"\x00", '{"id": 2}')]:
                ws = await http.ws_connect(url)
                for frame in (first, second):
                    await (ws.send_bytes(frame) if isinstance(frame, bytes)
                           else ws.send_str(frame))
                    assert (await ws.receive(5)).type == aiohttp.WSMsgType.TEXT
                flood = await _frame(ws, '{"type": "ping", "id": 3}')
                assert flood == {"type": "error", "code": "flood", "reply_to": 3,
                                 "message": ERRORS["flood"]}  # the only answer to frame 3
                assert (await ws.receive(5)).type in (aiohttp.WSMsgType.CLOSE,
                                                      aiohttp.WSMsgType.CLOSED)
                assert ws.close_code == 1008

    run(body)


def test_a_frame_of_exactly_max_frame_bytes_is_taken(tmp_path):
    """docs/protocol.md: frames of *at most* 4096 bytes; a frame of exactly 4096 was closed
    with 1009 (issue 34). 4096 bytes are answered, 4097 close the connection (1009)."""
    async def body() -> None:
        async with running(db_url(tmp_path)) as (_, base), aiohttp.ClientSession() as http:
            url = f"{base.replace('http', 'ws', 1)}/ws"
            head = '{"type": "ping", "id": 1, "pad": "'
            for size in (MAX_FRAME - 1, MAX_FRAME):
                ws = await http.ws_connect(url)
                frame = head + "x" * (size - len(head) - 2) + '"}'
                assert len(frame.encode()) == size
                assert await _frame(ws, frame) == {"type": "pong", "reply_to": 1}, size
                await ws.close()
            ws = await http.ws_connect(url)
            await ws.send_str(head + "x" * (MAX_FRAME + 1 - len(head) - 2) + '"}')
            msg = await ws.receive(5)
            assert msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
            assert ws.close_code == 1009

    run(body)


def test_one_error_code_per_fault_on_both_transports(tmp_path):
    """NaN, a non-object, nesting past the limit: ``bad_json`` over HTTP and WebSocket alike;
    HTTP statuses are the documented ones."""
    async def body() -> None:
        async with running(db_url(tmp_path)) as (_, base), aiohttp.ClientSession() as http:
            table_id, _, _ = await _seated(http, base, rules="classic", seed=4)
            ws = await http.ws_connect(f"{base.replace('http', 'ws', 1)}/ws")
            deep = "[" * MAX_DEPTH + "]" * MAX_DEPTH  # depth MAX_DEPTH + 1 inside an object
            faults = [
                ('{"rules": "classic", "deals": NaN}', '{"type": "ping", "x": NaN}', "bad_json"),
                ("[1]", "[1]", "bad_json"),
                ("not json", "not json", "bad_json"),
                ('{"rules": ' + deep + "}", '{"type": "ping", "x": ' + deep + "}", "bad_json"),
                ('{"rules": "nope"}', None, "bad_config"),
            ]
            for body_text, frame, code in faults:
                async with http.post(f"{base}/api/tables", data=body_text) as r:
                    assert r.status == HTTP_STATUS[code] == 400, body_text
                    assert (await r.json())["error"] == code, body_text
                if frame is not None:
                    msg = await _frame(ws, frame)
                    assert msg["code"] == code, frame
            ok = '{"type": "ping", "x": ' + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "}"
            assert (await _frame(ws, ok))["type"] == "pong"  # at the limit: fine
            for name, code in (("x" * 25, "bad_message"), ("x" * 24, "taken")):
                async with http.post(f"{base}/api/tables/{table_id}/join",
                                     json={"name": name}) as r:
                    assert (r.status, (await r.json())["error"]) == (HTTP_STATUS[code], code)
            async with http.post(f"{base}/api/tables", data=b" " * (17 * 1024)) as r:
                assert (r.status, (await r.json())["error"]) == (413, "too_large")
            async with http.get(f"{base}/api/tables/ffffffffffffffff") as r:
                assert (r.status, (await r.json())["error"]) == (404, "no_table")
            await ws.close()

    run(body)


def test_seating_of_every_logged_field_across_a_swap(tmp_path):
    """R7 明牌 swap (docs/protocol.md "Seating"): the log's ``deal.players`` and
    ``deal.hands`` are the seating as dealt (hands indexed by the dealt seat), ``state.players``
    and ``results[d].players`` the seating after the swap, and the next deal starts from the
    seating the previous one ended with."""
    seed = next(s for s in range(1000) if Match("baibian", s).deal().swap is not None)
    match = Match("baibian", seed)
    swap = match.deal().swap
    assert swap is not None

    async def body() -> None:
        async with running(db_url(tmp_path)) as (server, base), \
                aiohttp.ClientSession() as http:
            table_id, tokens, clients = await _seated(http, base, rules="baibian",
                                                      seed=seed, deals=2)
            game = server.tables[table_id].game
            a, b = swap
            for c, token in zip(clients, tokens):
                st = c.state
                assert st["players"] == list(game.players)
                assert st["players"][a] == game.players[a]
                dealt_seat = b if st["seat"] == a else a if st["seat"] == b else st["seat"]
                async with http.get(f"{base}/api/tables/{table_id}/log",
                                    headers={"Authorization": f"Bearer {token}"}) as r:
                    doc = await r.json()
                deal = doc["deals"][0]["deal"]
                assert deal["players"][dealt_seat] == c.player  # the seating as dealt
                assert sorted(deal["hands"][dealt_seat]) == sorted(st["hand"])
            await asyncio.gather(*(c.play_out() for c in clients))
            async with http.get(f"{base}/api/tables/{table_id}/log") as r:
                doc = await r.json()
            first = server.tables[table_id].match.games[0]
            assert doc["results"][0]["players"] == list(first.players)
            assert doc["deals"][1]["deal"]["players"] == list(first.players)

    run(body)


def test_the_whole_deal_after_it_ends(tmp_path):
    """Once a deal is over anyone can fetch it whole (every hand as dealt) and replay it
    with their own engine; the seeds come once the match is over (a deal's seed would give
    the later deals away)."""
    async def body() -> None:
        async with running(db_url(tmp_path)) as (server, base), \
                aiohttp.ClientSession() as http:
            t = await create_table(http, base, rules="jj", seed=77, deals=2,
                                   seats=["greedy"] * 4)
            table = server.tables[t["id"]]
            spec = await TableClient.connect(http, base, t["id"])
            while len(table.match.games) < 2:
                assert await spec.receive(10) is not None
            async with http.get(f"{base}/api/tables/{t['id']}/log") as r:
                doc = await r.json()
            done, playing = doc["deals"]
            assert done["seed"] is None and None not in done["deal"]["hands"]
            assert done["deal"]["hands"] == [list(h) for h in table.match.games[0].dealt]
            assert replay(done).result.to_dict() == table.match.games[0].result.to_dict()
            assert playing["deal"]["hands"] == [None] * 4 and playing["seed"] is None
            while not spec.state["finished"]:
                assert await spec.receive(10) is not None
            async with http.get(f"{base}/api/tables/{t['id']}/log") as r:
                doc = await r.json()
            for i, deal in enumerate(doc["deals"]):
                assert deal["seed"] == deal_seed(77, i)
                assert replay(deal, seeded=True).is_over  # seed and hands agree
            await spec.close()

    run(body)


def test_the_schema_is_versioned_and_strict():
    """The schema carries the protocol version, lists every error code, and refuses a message
    the server must never send (so ``schema_checked`` can fail)."""
    assert SCHEMA["protocol"] == PROTOCOL_VERSION
    assert set(SCHEMA["$defs"]["error_code"]["enum"]) == set(ERRORS)
    ws = schema_validator("server_message")
    assert ws.is_valid({"type": "pong", "reply_to": 3})
    assert not ws.is_valid({"type": "pong", "reply_to": None})
    assert not ws.is_valid({"type": "hint", "cards": [0], "pass": False, "count": 1, "seq": 0})
    assert not ws.is_valid({"type": "error", "code": "nope", "message": ""})
    assert not ws.is_valid({"type": "welcome", "table": "x"})


def test_a_bot_move_overtaken_by_another_action_is_refused_as_stale(tmp_path):
    """A bot's move is chosen on the position when its timer fires and submitted with that
    ``seq``; an abandon (allowed out of turn) queued first moves the table on, so the bot's
    move is refused (``stale``) rather than applied to the next deal's position."""
    async def body() -> None:
        async with running(db_url(tmp_path), bot_delay=1000.0) as (server, base), \
                aiohttp.ClientSession() as http:
            t = await create_table(http, base, seats=["open", "greedy", "greedy", "greedy"],
                                   seed=9, deals=2)
            table = server.tables[t["id"]]
            j = await join_table(http, base, t["id"])
            human = await TableClient.connect(http, base, t["id"], j["token"])
            while table.game.players[table.game.to_act] == 0:  # a bot to act
                await human.act()
                await _drain(human, table.seq + 1)
            bot = table.game.players[table.game.to_act]
            refused: list[str] = []
            submit = table.act

            def spy(player: int, kind: str, *args: Any, refuse: Any, **kw: Any) -> None:
                def noted(err: Any) -> None:
                    refused.append(err.code)
                    refuse(err)
                submit(player, kind, *args, refuse=noted, **kw)

            table.act = spy  # type: ignore[method-assign]
            seq = table.seq
            table.act(0, "abandon", refuse=lambda e: None)  # first in the batch
            table._auto_move(bot, True)  # the bot's move, chosen at the same seq
            await _drain(human, seq + 1)
            await asyncio.sleep(0.05)
            assert refused == ["stale"]
            assert table.seq == seq + 1 and table.log[-1].kind == "abandon"
            assert len(table.match.games) == 2  # the next deal, untouched by the bot's move
            await human.close()

    run(body)
