# examples/ray_run.py
"""A simulation on Ray: each task is one chunk of deal indices, merged back into one run
equal to a single-process `simulate`.

    pip install 'shuangkou[ray]'
    python examples/ray_run.py             # SK_SMOKE=1: a few thousand deals
"""

import os

import ray

from shuangkou.distributed import chunk_ranges, run_chunk
from shuangkou.sim import merge, simulate


def main(deals: int) -> None:
    ray.init()  # or ray.init(address="auto") on a cluster
    task = ray.remote(run_chunk)
    refs = [task.remote(s, c, "jj", "random", 7) for s, c in chunk_ranges(deals, deals // 20)]
    res = merge(ray.get(refs))
    assert res == simulate(deals, "jj", "random", seed=7)  # the same arrays
    print(res.summary())
    ray.shutdown()


if __name__ == "__main__":  # Ray's workers import this file: run only as a script
    main(2_000 if os.environ.get("SK_SMOKE") else 1_000_000)
