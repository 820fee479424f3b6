# examples/dask_run.py
"""A simulation on a Dask cluster: a local one here; on a real cluster start a scheduler and
workers (see docs/simulation.md) and give Client its address instead.

    pip install 'shuangkou[dask]'
    python examples/dask_run.py            # SK_SMOKE=1: a few thousand deals
"""

import os

from dask.distributed import Client, LocalCluster

from shuangkou.distributed import simulate_dask, stats_dask
from shuangkou.sim import simulate


def main(deals: int) -> None:
    with LocalCluster(n_workers=2, threads_per_worker=1) as cluster, Client(cluster) as client:
        res = simulate_dask(client, deals, "baibian", "greedy", seed=1, chunk=deals // 20)
        assert res == simulate(deals, "baibian", "greedy", seed=1)  # the same arrays
        # 100x more deals, streamed into constant-size statistics
        stats = stats_dask(client, 100 * deals, "qianbian", "random", seed=2, chunk=deals)
        print(stats.summary())


if __name__ == "__main__":  # Dask's worker processes import this file: run only as a script
    main(1_000 if os.environ.get("SK_SMOKE") else 1_000_000)
