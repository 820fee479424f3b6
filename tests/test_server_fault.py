"""Fault test: ``shuangkou serve`` with several tables in progress is killed with SIGKILL at
random moments and restarted, again and again, while WebSocket clients play through it and
reconnect with their tokens. Afterwards every table's stored log holds every action any client
was shown, at the same place (no accepted action lost), and replays through the engine alone
to a valid end of every deal (R7, R8)."""

from __future__ import annotations

import asyncio
import random
import signal
import subprocess
from typing import Any

import aiohttp
import pytest

from shuangkou.server.client import TableClient, create_table, join_table
from tests.budget import budget
from tests.server_harness import db_url, free_port, replay_log, run, start_serve


async def _place(http: aiohttp.ClientSession, base: str, table: str, token: str,
                 seen: dict[int, dict[str, Any]], connects: list[int]) -> None:
    """Play one place to the end of the match across server deaths; ``seen`` collects every
    action shown to it (an action shown twice must be shown the same)."""
    while True:
        client = None
        try:
            client = await TableClient.connect(http, base, table, token)
            connects.append(1)
            _merge(seen, client.seen)
            if client.state["finished"]:
                return
            try:
                await client.play_out(timeout=20)
            finally:
                _merge(seen, client.seen)
            return
        except (TimeoutError, ConnectionError, aiohttp.ClientError, RuntimeError):
            await asyncio.sleep(0.05)
        finally:
            if client is not None:
                await client.close()


def _merge(into: dict[int, dict[str, Any]], new: dict[int, dict[str, Any]]) -> None:
    for seq, action in new.items():
        assert into.setdefault(seq, action) == action, f"seq {seq} shown two ways"


def _campaign(tmp: Any, n_tables: int, kills: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    db = db_url(tmp)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc: list[subprocess.Popen[bytes]] = [start_serve(db, port, bot_delay=0.002)]

    async def body() -> dict[str, int]:
        async with aiohttp.ClientSession() as http:
            tables = []
            for i in range(n_tables):
                seats = ["open"] * 4 if i % 2 == 0 else ["open", "greedy", "open", "random"]
                t = await create_table(http, base, rules=("baibian", "qianbian", "jj")[i % 3],
                                       deals=2, seats=seats)
                tokens = {}
                for p in range(4):
                    if seats[p] == "open":
                        tokens[p] = (await join_table(http, base, t["id"], p))["token"]
                tables.append((t["id"], tokens))
            seen: dict[tuple[str, int], dict[int, dict[str, Any]]] = {}
            connects: list[int] = []
            tasks = []
            for tid, tokens in tables:
                for p, tok in tokens.items():
                    seen[tid, p] = {}
                    tasks.append(asyncio.ensure_future(
                        _place(http, base, tid, tok, seen[tid, p], connects)))
            for _ in range(kills):
                await asyncio.sleep(rng.uniform(0.05, 0.6))
                proc[0].send_signal(signal.SIGKILL)
                proc[0].wait()
                await asyncio.sleep(rng.uniform(0.0, 0.2))
                proc[0] = await asyncio.get_running_loop().run_in_executor(
                    None, start_serve, db, port, 0.002)
            await asyncio.gather(*tasks)
            for tid, tokens in tables:
                async with http.get(f"{base}/api/tables/{tid}/log") as r:
                    served = await r.json()
                log = {a["seq"]: a for a in served["log"]}
                for p in tokens:
                    for seq, action in seen[tid, p].items():
                        assert log.get(seq) == action, (tid, p, seq)  # nothing shown was lost
                async with http.get(f"{base}/api/tables/{tid}") as r:
                    info = await r.json()
                assert info["finished"]
            return {"tables": n_tables, "kills": kills, "reconnects": len(connects) - len(tasks),
                    "actions_checked": sum(len(s) for s in seen.values())}

    try:
        stats = run(body, timeout=600)
    finally:
        proc[0].kill()
        proc[0].wait()
    _check_replays(db)
    return stats


def _check_replays(db: str) -> None:
    """Every stored match replays through the engine alone to a valid end."""
    from shuangkou.server import open_store
    from shuangkou.server.config import TableConfig

    store = open_store(db)
    for t in store.tables():
        cfg = TableConfig.from_dict(t.config)
        log = [{"seq": a.seq, "deal": a.deal, "kind": a.kind, "seat": a.seat,
                "cards": list(a.cards), "play_kind": a.play_kind} for a in store.actions(t.id)]
        match = replay_log(cfg.public(), log, cfg.seed)
        assert len(match.games) == cfg.deals
        assert all(g.is_over and g.result is not None for g in match.games)
    store.close()


def test_sigkill_and_restart(tmp_path):
    stats = _campaign(tmp_path, n_tables=4, kills=4, seed=1)
    assert stats["reconnects"] >= 1


@pytest.mark.slow
def test_sigkill_campaign(tmp_path):
    n = budget(ci=8, full=24)
    stats = _campaign(tmp_path, n_tables=n, kills=budget(ci=10, full=60), seed=2)
    print(f"fault campaign: {stats}")
