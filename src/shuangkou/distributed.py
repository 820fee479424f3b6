"""Scale-out: the same :func:`shuangkou.sim.simulate` as tasks on Dask (or Ray), merged.

Every deal is seeded from its index (``rng.deal_seed(seed, i)``), so a run cut into chunks of
deal indices, each simulated anywhere, merges into exactly the arrays of one local run with the
same seed. See docs/simulation.md for the recipes (Dask LocalCluster, a real cluster, Ray).

::

    from dask.distributed import Client, LocalCluster
    from shuangkou.distributed import simulate_dask
    with LocalCluster(n_workers=4, threads_per_worker=1) as cluster, Client(cluster) as client:
        res = simulate_dask(client, 1_000_000, "baibian", "greedy", seed=1, chunk=50_000)

Needs the ``dask`` extra (``pip install 'shuangkou[dask]'``). Any other engine (Ray, a job
queue) needs only :func:`chunk_ranges`, :func:`run_chunk` and :func:`shuangkou.sim.merge`:
docs/simulation.md shows Ray.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .rules import Rules, as_rules
from .sim import PolicyArg, SimResult, SimStats, chunk_ranges, merge, simulate

__all__ = ["chunk_ranges", "run_chunk", "simulate_dask", "stats_dask"]


def run_chunk(
    start: int, count: int, rules: Rules | str, policy: PolicyArg, seed: int,
    threads: int = 1, wilds: str | None = None,
) -> SimResult:
    """One task: deals ``start … start+count-1`` of the run seeded ``seed`` (picklable)."""
    return simulate(count, rules, policy, threads=threads, seed=seed, start=start, wilds=wilds)


def _stats_chunk(*args: Any) -> SimStats:
    return run_chunk(*args).stats()


def simulate_dask(
    client: Any,
    n: int,
    rules: Rules | str = "baibian",
    policy: PolicyArg = "random",
    seed: int = 0,
    *,
    chunk: int = 50_000,
    start: int = 0,
    threads_per_task: int = 1,
    wilds: str | None = None,
    progress: bool = False,
) -> SimResult:
    """Run ``n`` deals as Dask tasks of ``chunk`` deals each on ``client`` (a
    ``dask.distributed.Client``) and merge them: equal to ``simulate(n, rules, policy,
    seed=seed, start=start)`` run locally."""
    r = as_rules(rules)
    futures = [
        client.submit(run_chunk, s, c, r, policy, seed, threads_per_task, wilds, pure=False)
        for s, c in chunk_ranges(n, chunk, start)
    ]
    if progress:
        from dask.distributed import progress as dask_progress

        dask_progress(futures)
    parts: Sequence[SimResult] = client.gather(futures)
    if not parts:
        return simulate(0, r, policy, seed=seed, start=start, wilds=wilds)
    return merge(parts)


def stats_dask(
    client: Any,
    n: int,
    rules: Rules | str = "baibian",
    policy: PolicyArg = "random",
    seed: int = 0,
    *,
    chunk: int = 100_000,
    start: int = 0,
    threads_per_task: int = 1,
    wilds: str | None = None,
) -> SimStats:
    """Like :func:`simulate_dask` but each task returns only its :class:`SimStats`, merged as
    they arrive: constant memory on the client for any ``n``."""
    from dask.distributed import as_completed

    r = as_rules(rules)
    futures = [
        client.submit(_stats_chunk, s, c, r, policy, seed, threads_per_task, wilds, pure=False)
        for s, c in chunk_ranges(n, chunk, start)
    ]
    total = SimStats()
    for f in as_completed(futures):
        total = total.merge(f.result())
        f.release()
    return total
