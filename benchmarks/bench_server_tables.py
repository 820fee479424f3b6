"""What one table costs the server (issue 34): the CPU of reading a long table — ``GET
/api/tables/{id}/log`` and a spectator's ``welcome`` of a match of ``--deals`` deals of
four greedy bots — and the resident memory of ``--tables`` tables of four ``default`` bots,
each played through one deal (the bots' end-game searches allocate their tables). In
process, no sockets: the server's own code (``Table.log_view``/``Table.attach`` and the
encoding), best of ``--repeat`` runs.

    python benchmarks/bench_server_tables.py
    python benchmarks/bench_server_tables.py --deals 100 --tables 40
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import time
from typing import Any

from shuangkou.server.commit import GroupCommit
from shuangkou.server.config import TableConfig
from shuangkou.server.protocol import encode
from shuangkou.server.store import open_store
from shuangkou.server.table import Table


class _Listener:
    """A connection that encodes what it is sent, as the server's does, and keeps nothing."""

    def send(self, message: dict[str, Any]) -> None:
        encode(message)

    def send_encoded(self, data: bytes) -> None:
        pass

    def close(self, code: int, reason: str) -> None:
        pass


async def _played(deals: int) -> Table:
    """A finished match of ``deals`` deals of four greedy bots."""
    commits = GroupCommit(open_store("sqlite://:memory:"))
    config = TableConfig.from_request({"rules": "baibian", "deals": deals,
                                       "seats": ["greedy"] * 4, "seed": 7}, allow_seed=True)
    table = Table.create(config, commits, bot_delay=0.0, pause_unwatched=False)
    table.schedule()
    while not table.finished:
        await asyncio.sleep(0)
    table.stop()
    return table


def _best(fn: Any, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _rss() -> int:
    """This process's resident memory in bytes (Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


async def _tables(n: int) -> tuple[float, int]:
    """Resident bytes per table of four default bots once its deal is over (PIMC searches
    only the end game; its search tables are C memory, which tracemalloc would not see)."""
    commits = GroupCommit(open_store("sqlite://:memory:"))
    await _warm(commits)
    gc.collect()
    before = _rss()
    tables = []
    for i in range(n):
        config = TableConfig.from_request({"seats": ["default"] * 4, "seed": i},
                                          allow_seed=True)
        table = Table.create(config, commits, bot_delay=0.0, pause_unwatched=False)
        table.schedule()
        tables.append(table)
    while not all(t.finished for t in tables):  # a whole deal: the end game is searched
        await asyncio.sleep(0.01)
    gc.collect()
    return (_rss() - before) / n, sum(t.seq for t in tables)


async def _warm(commits: GroupCommit) -> None:
    """One table played a move first, so that what every table shares (modules, the learned
    weights) is loaded before the measurement."""
    config = TableConfig.from_request({"seats": ["default"] * 4, "seed": 99}, allow_seed=True)
    table = Table.create(config, commits, bot_delay=0.0, pause_unwatched=False)
    table.schedule()
    while not table.finished:
        await asyncio.sleep(0.01)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    table = asyncio.run(_played(args.deals))
    body = len(encode(table.log_view(None)))
    log_s = _best(lambda: encode(table.log_view(None)), args.repeat)
    welcome_s = _best(lambda: table.attach(None, _Listener()), args.repeat)
    per_table, moves = asyncio.run(_tables(args.tables))
    print(f"{args.deals} deals, {table.seq} actions: GET /log {log_s * 1e3:.2f} ms "
          f"({body / 1e6:.2f} MB), welcome {welcome_s * 1e3:.2f} ms (best of {args.repeat})")
    print(f"{args.tables} one-deal tables of default bots ({moves} moves): "
          f"{per_table / 1e6:.2f} MB resident a table")


if __name__ == "__main__":
    main()
