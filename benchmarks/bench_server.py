"""Load test of the game server (issue #9 "Load test"), bounded in time, localhost only.

``shuangkou serve`` runs in its own process over a fresh SQLite file; one client process
(``--workers`` for more; asyncio on uvloop, orjson) holds ``--tables`` tables of four
WebSocket bot clients each (smallest-first, one ``--think`` pause before each move, so the
load is paced like people rather than a flood). Every action goes the whole way: the engine
validates it, SQLite commits it (group commit: one transaction per turn of the server's event
loop), then it is broadcast to the four places. Reported: accepted actions/s, the round-trip
latency of an action (send → the actor's own update) p50/p99, errors (refusals and stalled
tables), lost actions (an action a client was shown but the server's log lacks), the CPU time
per action of the server and of the clients (the honest figure on a shared machine: wall-time
rates there depend on what else runs), and the server's memory per table.

    python benchmarks/bench_server.py                     # 500 tables, 30 s
    python benchmarks/bench_server.py --tables 1000 --seconds 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

from shuangkou.server.app import new_event_loop, quiet_collector
from shuangkou.server.client import TableClient, create_table, join_table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.server_harness import free_port, start_serve  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
STALL = 5.0  # seconds without a message at a table that should be moving


def _proc_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


def _proc_rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


async def _place(client: TableClient, stop_at: float, think: float, rng: random.Random,
                 last: dict[TableClient, float]) -> None:
    """Play one place until the time is up; ``last[client]``: when it last got a message.
    No receive timeout: aiohttp's per-receive timer is a tenth of the client's CPU; the
    worker ends the stragglers and finds stalled tables from ``last``."""
    acted = -1
    while time.monotonic() < stop_at and not client.state["finished"]:
        if client.my_turn and acted != client.state["seq"]:
            acted = client.state["seq"]
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            await client.act()
        if await client.receive(timeout=None) is None:
            return
        last[client] = time.monotonic()


async def _worker_main(base: str, n_tables: int, seconds: float, think: float,
                       ready: Any, go: Any, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    conn = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=conn) as http:
        tables = []
        for _ in range(n_tables):
            t = await create_table(http, base, seats=["open"] * 4, deals=100)
            clients = []
            for p in range(4):
                j = await join_table(http, base, t["id"], p)
                clients.append(await TableClient.connect(http, base, t["id"], j["token"]))
            tables.append((t["id"], clients))
        ready.set()
        await asyncio.get_running_loop().run_in_executor(None, go.wait)
        for _, clients in tables:  # the welcome's actions are not part of the measurement
            for c in clients:
                c.latencies.clear()
        t0 = time.monotonic()
        cpu0 = time.process_time()
        stop_at = t0 + seconds
        last: dict[TableClient, float] = {}
        tasks = [asyncio.ensure_future(_place(c, stop_at, think, rng, last))
                 for _, clients in tables for c in clients]
        # At the end a place may wait for a move its table's actor, who saw the time up
        # first, will not make: those are ended 1 s after the end.
        _, stragglers = await asyncio.wait(tasks, timeout=seconds + 1.0)
        for task in stragglers:
            task.cancel()
        await asyncio.gather(*stragglers, return_exceptions=True)
        elapsed = time.monotonic() - t0
        cpu = time.process_time() - cpu0
        latencies = [x for _, cs in tables for c in cs for x in c.latencies]
        errors = [e for _, cs in tables for c in cs for e in c.errors]
        for _, cs in tables:  # a table that made no move in the last STALL s: stalled
            if max(last.get(c, t0) for c in cs) < stop_at - STALL:
                errors.append({"type": "error", "code": "stalled"})
        lost = 0
        for tid, clients in tables:
            for c in clients:
                await c.close()
            async with http.get(f"{base}/api/tables/{tid}/log") as r:
                log = {a["seq"]: a for a in (await r.json())["log"]}
            seen: dict[int, Any] = {}
            for c in clients:
                seen.update(c.seen)
            lost += sum(1 for s, a in seen.items() if log.get(s) != a)
        return {"latencies": latencies, "errors": len(errors), "lost": lost,
                "elapsed": elapsed, "cpu": cpu, "error_codes": sorted({e["code"] for e in errors})}


def _worker(base: str, n_tables: int, seconds: float, think: float, ready: Any, go: Any,
            out: Any, seed: int) -> None:
    quiet_collector()  # the clients' pauses would count in the round trip: tuned like the server
    with asyncio.Runner(loop_factory=new_event_loop) as runner:  # uvloop, like the server
        out.put(runner.run(_worker_main(base, n_tables, seconds, think, ready, go, seed)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=500)
    ap.add_argument("--seconds", type=float, default=30.0, help="measured time")
    ap.add_argument("--think", type=float, default=0.2,
                    help="mean pause before each move (s); 0.2 offers ~2,500 actions/s at 500 "
                         "tables")
    ap.add_argument("--workers", type=int, default=1, help="client processes")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # 4 sockets a table, both ends
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        proc = start_serve(f"sqlite://{tmp}/bench.db", port)
        base = f"http://127.0.0.1:{port}"
        try:
            rss0 = _proc_rss(proc.pid)
            ctx = mp.get_context("fork")
            go = ctx.Event()
            out = ctx.Queue()
            per = [args.tables // args.workers + (i < args.tables % args.workers)
                   for i in range(args.workers)]
            readies = [ctx.Event() for _ in per]
            procs = [ctx.Process(target=_worker,
                                 args=(base, n, args.seconds, args.think, r, go, out, i))
                     for i, (n, r) in enumerate(zip(per, readies))]
            for p in procs:
                p.start()
            for r in readies:
                while not r.wait(1.0):
                    if not all(p.is_alive() for p in procs):
                        raise RuntimeError("a client worker died while setting up")
            rss1 = _proc_rss(proc.pid)
            cpu0, t0 = _proc_cpu(proc.pid), time.monotonic()
            go.set()
            print(f"measuring {args.seconds:g} s (server pid {proc.pid})", file=sys.stderr,
                  flush=True)
            results = [out.get(timeout=args.seconds + 600) for _ in procs]
            cpu1, t1 = _proc_cpu(proc.pid), time.monotonic()
            for p in procs:
                p.join(30)
            rss2 = _proc_rss(proc.pid)
        finally:
            proc.kill()
            proc.wait()
    lat = sorted(x for r in results for x in r["latencies"])
    elapsed = max(r["elapsed"] for r in results)
    n = len(lat)
    report = {
        "tables": args.tables, "connections": 4 * args.tables, "seconds": round(elapsed, 1),
        "think_s": args.think, "accepted_actions": n,
        "actions_per_s": round(n / elapsed, 1),
        "p50_ms": round(1000 * statistics.median(lat), 2) if lat else None,
        "p99_ms": round(1000 * lat[min(n - 1, int(0.99 * n))], 2) if lat else None,
        "errors": sum(r["errors"] for r in results),
        "error_codes": sorted({c for r in results for c in r["error_codes"]}),
        "lost_actions": sum(r["lost"] for r in results),
        "server_cpu_percent": round(100 * (cpu1 - cpu0) / (t1 - t0), 1),
        "server_cpu_ms_per_action": round(1000 * (cpu1 - cpu0) / max(n, 1), 3),
        "client_cpu_ms_per_action": round(1000 * sum(r["cpu"] for r in results) / max(n, 1), 3),
        "server_rss_mb": round(rss2 / 2**20, 1),
        "rss_per_table_kb": round((rss1 - rss0) / max(args.tables, 1) / 1024, 1),
        "load_average": round(os.getloadavg()[0], 1),
    }
    if args.json:
        print(json.dumps(report))
    else:
        width = max(map(len, report))
        for k, v in report.items():
            print(f"{k:<{width}}  {v}")
    return 0 if report["errors"] == 0 and report["lost_actions"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
