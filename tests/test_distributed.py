"""Scale-out on Dask (issue #4): merged results of a local cluster equal a local run."""

from __future__ import annotations

import pytest

from tests.conftest import require

require(module="dask")
from dask.distributed import Client, LocalCluster  # noqa: E402

from shuangkou.distributed import chunk_ranges, simulate_dask, stats_dask  # noqa: E402
from shuangkou.sim import simulate  # noqa: E402


@pytest.fixture(scope="module")
def client():  # type: ignore[no-untyped-def]
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as c:
        yield c


def test_chunk_ranges() -> None:
    assert chunk_ranges(10, 4, 5) == [(5, 4), (9, 4), (13, 2)]
    assert chunk_ranges(0, 4) == []
    with pytest.raises(ValueError):
        chunk_ranges(5, 0)


@pytest.mark.parametrize("preset", ["baibian", "qianbian"])
def test_dask_equals_local_run(client, preset: str) -> None:  # type: ignore[no-untyped-def]
    local = simulate(4000, preset, ("greedy", "random"), seed=21)
    remote = simulate_dask(client, 4000, preset, ("greedy", "random"), seed=21, chunk=600)
    assert remote == local
    stats = stats_dask(client, 4000, preset, ("greedy", "random"), seed=21, chunk=900)
    assert stats.summary()["outcomes"] == local.summary()["outcomes"]
    assert (stats.score_sum == local.stats().score_sum).all()


def test_dask_offset_run(client) -> None:  # type: ignore[no-untyped-def]
    local = simulate(500, "jj", "random", seed=3, start=1000)
    assert simulate_dask(client, 500, "jj", "random", seed=3, start=1000, chunk=128) == local
