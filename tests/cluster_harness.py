"""Shared by tests/test_server_cluster.py and ``benchmarks/bench_server.py --cluster``:
``shuangkou cluster`` in a subprocess, clients that play and watch tables through its proxy
and reconnect when their node dies, and a killer of random nodes."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from shuangkou.game import replay
from shuangkou.server.client import TableClient
from tests.server_harness import free_port


@contextmanager
def cluster(data: Path, nodes: int, *args: str) -> Iterator[dict[str, Any]]:
    """``shuangkou cluster --nodes N`` (``args``: more flags) until the block ends; yields its
    JSON line, plus ``"base"``, the proxy's URL. Stopped with SIGTERM (it stops everything)."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "shuangkou", "cluster", "--nodes", str(nodes), "--port",
         str(port), "--data", str(data), *args],
        stdout=subprocess.PIPE, stderr=open(data.parent / f"{data.name}.err", "wb"))
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("cluster did not start: "
                               + (data.parent / f"{data.name}.err").read_text()[-2000:])
        info: dict[str, Any] = json.loads(line)
        info["base"] = f"http://127.0.0.1:{info['proxy']}"
        yield info
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()


def cluster_db(data: Path) -> str:
    """The URL of a running cluster's PostgreSQL (its port is line 4 of postmaster.pid)."""
    port = (data / "pg" / "postmaster.pid").read_text().splitlines()[3].strip()
    return f"postgresql://postgres@127.0.0.1:{port}/postgres"


def node_pid(port: int) -> int | None:
    """The pid serving a node's port now (the cluster restarts killed nodes), or ``None``."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api", timeout=2) as r:
            return int(json.loads(r.read())["pid"])
    except OSError:
        return None


async def retried(http: aiohttp.ClientSession, method: str, url: str, *, ok: int = 200,
                  seconds: float = 30.0, **kw: Any) -> Any:
    """An HTTP call through the proxy, retried while no node can answer for the table
    (``503``: a node died, or another node is taking the table over)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            async with http.request(method, url, **kw) as r:
                if r.status == ok:
                    return await r.json()
                if r.status not in (502, 503) or time.monotonic() > deadline:
                    raise RuntimeError(f"{method} {url}: {r.status} {await r.text()}")
        except aiohttp.ClientConnectionError:
            if time.monotonic() > deadline:
                raise
        await asyncio.sleep(0.1)


@dataclass
class Watched:
    """One table as its client saw it: every accepted action (seq → action, from updates and
    welcomes), whether the match ended, each reconnect's wait (seconds from losing the
    connection to the next accepted action), and log mismatches."""

    table: str
    token: str | None
    seen: dict[int, dict[str, Any]] = field(default_factory=dict)
    finished: bool = False
    resumes: list[float] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    reconnects: int = 0


async def watch(http: aiohttp.ClientSession, base: str, w: Watched, seconds: float) -> None:
    """Play (with a token) or watch a table through the proxy until its match is over,
    reconnecting with the same token whenever the connection drops; checks each welcome's log
    against what was seen before it."""
    deadline = time.monotonic() + seconds
    lost_at: float | None = None
    while not w.finished and time.monotonic() < deadline:
        try:
            c = await TableClient.connect(http, base, w.table, w.token)
        except (aiohttp.ClientError, ConnectionError, RuntimeError, OSError):
            await asyncio.sleep(0.1)
            continue
        log = c.welcome["log"]
        for seq, a in w.seen.items():
            if seq >= len(log) or log[seq] != a:
                w.mismatches.append(f"{w.table}: seq {seq} seen {a}, log has "
                                    f"{log[seq] if seq < len(log) else None}")
        w.seen.update((a["seq"], a) for a in log)
        acted = -1
        try:
            while not c.state["finished"]:
                if time.monotonic() > deadline:
                    break
                if c.my_turn and acted != c.state["seq"]:
                    acted = c.state["seq"]
                    await c.act()
                msg = await c.receive(timeout=10)
                if msg is None:
                    break
                if msg["type"] == "update":
                    if lost_at is not None:
                        w.resumes.append(time.monotonic() - lost_at)
                        lost_at = None
                    a = msg["action"]
                    old = w.seen.get(a["seq"])
                    if old is not None and old != a:
                        w.mismatches.append(f"{w.table}: seq {a['seq']} changed")
                    w.seen[a["seq"]] = a
            else:
                w.finished = True
        except (TimeoutError, aiohttp.ClientError, ConnectionError):
            pass
        finally:
            await c.close()
        if not w.finished:
            w.reconnects += 1
            if lost_at is None:
                lost_at = time.monotonic()


async def killer(nodes: list[dict[str, Any]], kills: int, every: float,
                 rng: random.Random, done: asyncio.Event) -> list[int]:
    """kill -9 a random node every ``every`` seconds, ``kills`` times (or until ``done``);
    returns the pids killed."""
    killed: list[int] = []
    loop = asyncio.get_running_loop()
    while len(killed) < kills and not done.is_set():
        try:
            await asyncio.wait_for(done.wait(), every)
            break
        except TimeoutError:
            pass
        node = rng.choice(nodes)
        pid = await loop.run_in_executor(None, node_pid, node["port"])
        if pid is None:  # still restarting from the last kill
            continue
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)
    return killed


def check_log(doc: dict[str, Any], w: Watched) -> list[str]:
    """Compare a table's final log (``GET /log``) with what its client saw, and replay every
    deal with the engine (seeded: the seeds are public once the match is over)."""
    problems = []
    log = doc["log"]
    if [a["seq"] for a in log] != list(range(len(log))):
        problems.append(f"{w.table}: seqs out of order")
    if {a["seq"]: a for a in log} != w.seen:
        problems.append(f"{w.table}: the log ({len(log)}) differs from what its client saw "
                        f"({len(w.seen)})")
    if not doc["finished"]:
        problems.append(f"{w.table}: not finished")
    for i, deal in enumerate(doc["deals"]):
        game = replay(deal, seeded=True)  # every action legal where it stands (raises)
        if not game.is_over or game.result is None:
            problems.append(f"{w.table}: deal {i} did not end")
        elif game.result.to_dict()["scores"] != doc["results"][i]["scores"]:
            problems.append(f"{w.table}: deal {i}'s result differs")
        if len(game.actions) != sum(a["deal"] == i for a in log):
            problems.append(f"{w.table}: deal {i}'s actions differ from the table log")
    return problems
