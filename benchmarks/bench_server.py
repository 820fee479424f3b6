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
    python benchmarks/bench_server.py --cluster 2 --tables 200 --seconds 20

``--cluster N`` measures the same load through ``shuangkou cluster`` (N nodes over one
PostgreSQL behind HAProxy: every request and WebSocket goes through the proxy), reports the
CPU per action of the nodes together and of HAProxy, then kills a random node with SIGKILL
``--kills`` times while ``--kill-tables`` tables of bots are watched through the proxy, and
reports how long each of the killed node's tables took to resume (from the connection's loss
to the next accepted action its client saw: proxy health check, adoption by another node,
replay of the log, reconnect).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import aiohttp

from shuangkou.server.app import new_event_loop, quiet_collector
from shuangkou.server.client import TableClient, create_table, join_table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.cluster_harness import Watched, cluster, killer, retried, watch  # noqa: E402
from tests.server_harness import UNLIMITED_ADDRESS, free_port, start_serve  # noqa: E402

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
    ap.add_argument("--cluster", type=int, default=0, metavar="N",
                    help="through `shuangkou cluster --nodes N` (HAProxy + PostgreSQL)")
    ap.add_argument("--kills", type=int, default=5, help="--cluster: nodes killed after the load")
    ap.add_argument("--kill-tables", type=int, default=8,
                    help="--cluster: tables of bots watched while nodes are killed")
    args = ap.parse_args(argv)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # 4 sockets a table, both ends
    with _target(args.cluster) as (base, pids, info):
        rss0 = sum(map(_proc_rss, pids))
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
        rss1 = sum(map(_proc_rss, pids))
        cpus0, t0 = [_proc_cpu(p) for p in pids], time.monotonic()
        go.set()
        print(f"measuring {args.seconds:g} s (server pids {pids})", file=sys.stderr,
              flush=True)
        results = [out.get(timeout=args.seconds + 600) for _ in procs]
        cpus1, t1 = [_proc_cpu(p) for p in pids], time.monotonic()
        for p in procs:
            p.join(30)
        rss2 = sum(map(_proc_rss, pids))
        resume = None
        if args.cluster:
            resume = asyncio.run(_kill_campaign(info, args.kills, args.kill_tables))
    nodes = len(pids) - (1 if args.cluster else 0)  # the last pid is HAProxy's
    cpu0, cpu1 = sum(cpus0[:nodes]), sum(cpus1[:nodes])
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
        "nodes": args.cluster or None,
        "rss_per_table_kb": round((rss1 - rss0) / max(args.tables, 1) / 1024, 1),
        "load_average": round(os.getloadavg()[0], 1),
    }
    if args.cluster:
        n_act = max(n, 1)
        report["haproxy_cpu_ms_per_action"] = round(1000 * (cpus1[-1] - cpus0[-1]) / n_act, 3)
        report["node_cpu_ms_per_action"] = [
            round(1000 * (b - a) / n_act, 3) for a, b in zip(cpus0[:nodes], cpus1[:nodes])]
        assert resume is not None
        report.update(resume)
    if args.json:
        print(json.dumps(report))
    else:
        width = max(map(len, report))
        for k, v in report.items():
            print(f"{k:<{width}}  {v}")
    ok = report["errors"] == 0 and report["lost_actions"] == 0 and not report.get("problems")
    return 0 if ok else 1


@contextmanager
def _target(nodes: int) -> Iterator[tuple[str, list[int], dict[str, Any]]]:
    """The server under test: (base URL, pids whose CPU counts, the cluster's JSON line):
    ``shuangkou serve`` over a fresh SQLite file, or ``shuangkou cluster --nodes N`` (pids:
    the nodes, then HAProxy)."""
    tmp = tempfile.mkdtemp(prefix="sk-bench-")
    os.chmod(tmp, 0o755)  # the cluster's PostgreSQL runs as the postgres user under root
    try:
        if nodes:
            args = ("--bot-delay", "0.02", *UNLIMITED_ADDRESS)
            with cluster(Path(tmp) / "c", nodes, *args) as info:
                pids = [n["pid"] for n in info["nodes"]] + [info["haproxy_pid"]]
                yield info["base"], pids, info
            return
        port = free_port()
        proc = start_serve(f"sqlite://{tmp}/bench.db", port)
        try:
            yield f"http://127.0.0.1:{port}", [proc.pid], {}
        finally:
            proc.kill()
            proc.wait()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


async def _kill_campaign(info: dict[str, Any], kills: int, n_tables: int) -> dict[str, Any]:
    """Kill a random node ``kills`` times (every 3 s) while ``n_tables`` tables of bots play,
    each watched through the proxy; the resume time of each table that lost its node, and
    every table's log checked against what its client saw."""
    base = info["base"]
    async with aiohttp.ClientSession() as http:
        watched = []
        for _ in range(n_tables):
            t = await retried(http, "POST", f"{base}/api/tables", ok=201,
                              json={"seats": ["greedy"] * 4, "deals": 100, "rules": "classic"})
            watched.append(Watched(t["id"], None))
        done = asyncio.Event()
        kill = asyncio.ensure_future(killer(info["nodes"], kills, 3.0, random.Random(1), done))
        # watched until 5 s after the last kill (the matches are long on purpose)
        tasks = [asyncio.ensure_future(watch(http, base, w, 3.0 * kills + 5)) for w in watched]
        killed = await kill
        await asyncio.gather(*tasks)
        problems = [m for w in watched for m in w.mismatches]
        resumes = sorted(r for w in watched for r in w.resumes)
        for w in watched:  # every action a client saw is in the log, in place
            doc = await retried(http, "GET", f"{base}/api/tables/{w.table}/log")
            log = {a["seq"]: a for a in doc["log"]}
            problems += [f"{w.table}: seq {s}" for s, a in w.seen.items() if log.get(s) != a]
    return {"kills": len(killed), "resumed_tables": len(resumes),
            "resume_median_s": round(statistics.median(resumes), 2) if resumes else None,
            "resume_worst_s": round(resumes[-1], 2) if resumes else None,
            "problems": problems}


if __name__ == "__main__":
    sys.exit(main())
