"""Counts and ranges a user gives, refused up front by the argument rule (``_check``) when
they would overflow what the code holds them in, or streamed: never wrapped, never an
``OverflowError`` or a numpy error naming no argument (issue #34)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import shuangkou as sk
from shuangkou.errors import ArgumentError
from shuangkou.sim import MAX_DEAL_INDEX, chunk_ranges, simulate_iter, simulate_stats

TOP = 2**63 - 1  # the largest int64: the kernel's and SimResult.deal_index's deal index


def test_the_last_int64_deal_index_is_played_and_reported() -> None:
    assert MAX_DEAL_INDEX == int(np.iinfo(np.int64).max) == TOP
    res = sk.simulate(2, "classic", start=TOP - 1, seed=5)
    assert res.deal_index.tolist() == [TOP - 1, TOP]
    # the same deals as the Python path plays them (deal_seed of each index)
    for i, index in enumerate((TOP - 1, TOP)):
        one = sk.sim.play_deal("classic", 5, "random", index=index)[1]
        assert int(res.outcome[i]) == one["outcome"] and res.scores[i].tolist() == list(
            one["scores"])


@pytest.mark.parametrize(("n", "start"), [(3, TOP - 1), (2, TOP), (1, TOP + 1), (1, 2**64),
                                          (2**63 + 1, 0), (2**70, 0)])
def test_deal_indices_past_int64_are_refused_naming_start(n: int, start: int) -> None:
    # start=2**63-2 with n=3 wrapped the third deal's index to -2**63; start=2**63 was an
    # OverflowError from the kernel's int64 argument
    for run in (lambda: sk.simulate(n, "classic", start=start),
                lambda: simulate_iter(n, "classic", start=start, chunk=2**62),  # when called
                lambda: simulate_stats(n, "classic", start=start, chunk=2**62),
                lambda: chunk_ranges(n, 2**62, start)):
        with pytest.raises(ArgumentError, match=r"start|n \(number of deals\)"):
            run()


def test_a_result_too_big_to_hold_names_n_and_the_streaming_calls() -> None:
    # simulate(2**63) was numpy's "Maximum allowed dimension exceeded", naming nothing
    for n in (2**63, 2**50):
        with pytest.raises(MemoryError, match=rf"n = {n} deals.*simulate_stats"):
            sk.simulate(n, "classic")


def test_simulate_iter_streams_its_pieces() -> None:
    # it built the list of every piece first (10**15 deals in pieces of 1: memory exhausted
    # before the first deal); a million pieces, ~100 MB of list, show it within bounds
    tracemalloc.start()
    try:
        it = simulate_iter(10**6, "classic", seed=3, chunk=1, start=7)
        first, second = next(it), next(it)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000, peak
    assert (first.start, len(first), second.start) == (7, 1, 8)
    assert first == sk.simulate(1, "classic", seed=3, start=7)


def test_vecenv_rows_are_bounded_by_the_kernels_int() -> None:
    # n=2**63 was numpy's "Maximum allowed dimension exceeded", naming nothing; the kernel
    # counts rows in a C int
    from shuangkou.errors import ArgumentError
    from shuangkou.rl import VecEnv

    for n in (2**31, 2**63, 10**30):
        with pytest.raises(ArgumentError, match=r"n must be in 1\.\.2147483647"):
            VecEnv("classic", n)
