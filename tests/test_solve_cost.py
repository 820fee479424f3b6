"""What a solve costs beyond its search (issue #33): the table grows with the search (a small
call takes little memory), the threads start only once a search proves big, and a searcher
passed to solve keeps its table warm from call to call."""

from __future__ import annotations

import importlib
import random
import subprocess
import sys

import pytest

from shuangkou import Hand, Rules, State, _solve, solve
from shuangkou.errors import ArgumentError
from shuangkou.solve import FIRST_ROUND_BITS, SOLO_NODES, searcher


def deal(preset: str, cards: int, seed: int) -> State:
    deck = list(range(108))
    random.Random(seed).shuffle(deck)
    hands = [Hand.from_cards(deck[cards * s : cards * (s + 1)]) for s in range(4)]
    return State.from_position(Rules.preset(preset), hands, 0)


def test_a_small_call_takes_little_memory() -> None:
    """Issue #33: solve(max_nodes=1000) on a whole deal took 425-540 MiB (a 512 MiB table on
    huge pages, touched all over by a thousand nodes); now its table grows with its stores.
    Peak RSS of a child process, before and after the call."""
    code = (
        "import resource\n"
        "from shuangkou import State, solve\n"
        "state = State.deal('baibian', 7)\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "solve(state, max_nodes=1000)\n"
        "solve(state, max_nodes=1000, threads=2)\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True)
    assert int(run.stdout) < 16 * 1024, run.stdout      # KiB: under 16 MiB


def test_a_growing_table_changes_no_value() -> None:
    """A table that starts at 2^4 entries and doubles as it fills (every entry kept) gives the
    values of a fixed 2^20 one, every move's, on positions of every preset; it grows, and
    never past its cap."""
    for preset in ("classic", "baibian", "jj", "qianbian"):
        for seed in range(3):
            state = deal(preset, 5, seed)
            fixed = searcher(state, tt_bits=20)
            grown = searcher(state, tt_bits=4, max_tt_bits=14)
            runs = []
            for s in (fixed, grown):
                s.set_position(state)
                runs.append(s.root_values(0, 0.0, _solve.EXACT_DEPTH, True))
            assert runs[0][:3] == runs[1][:3], (preset, seed)
            assert 4 < grown.table_bits <= grown.max_table_bits == 14 == fixed.table_bits - 6
            assert fixed.max_table_bits == 20


def test_a_doubling_that_may_outlast_the_time_limit_waits() -> None:
    """Issue #33 item 5: a doubling of the table cannot stop midway (2^24 -> 2^25 entries took
    1.5 s where the memory was fresh to the machine, so a whole deal's default 4 s solve ended
    at 5.1-5.4 s), so a search under a time limit doubles only while four times its predicted
    cost (``grow_seconds`` a new entry) fits in the time left. The same search with a cost
    that fits grows as one without a limit does; one whose doubling cannot fit stays at its
    first size; the values are the same."""
    state = deal("baibian", 5, 1)
    found = {}
    for label, cost, seconds in (("no limit", 1e-8, 0.0), ("fits", 1e-12, 100.0),
                                 ("too dear", 1.0, 100.0)):   # 4 x 1 s x 2^9 > 100 s
        s = searcher(state, tt_bits=8, max_tt_bits=14)
        s.grow_seconds = cost
        assert s.grow_seconds == cost
        s.set_position(state)
        moves, values, optimal, _, stopped, _ = s.root_values(
            0, seconds, _solve.EXACT_DEPTH, True)
        assert not stopped
        found[label] = (moves, values, optimal), s.table_bits
    assert found["no limit"][1] == found["fits"][1] > 10, found
    assert found["too dear"][1] == 8
    assert found["no limit"][0] == found["fits"][0] == found["too dear"][0]
    s = searcher(state)
    for bad in (0, -1.0, True, "1"):
        with pytest.raises(ArgumentError, match="grow_seconds"):
            s.grow_seconds = bad    # type: ignore[assignment]
    assert s.grow_seconds == 1e-8


def test_a_doubling_between_searches_fits_its_time_limit_or_is_dropped() -> None:
    """``Searcher.grow(bits, time_limit)`` (solve's rounds on threads): refused where the
    doubling is predicted to take more than a quarter of the limit; dropped midway, the old
    table whole, where the limit passes during it (its budget is polled every 65,536 old
    entries, so a 2^20-entry table meets a limit of 100 ns); without a limit it grows. The
    values searched after a refused or dropped doubling are a fresh searcher's."""
    state = deal("jj", 5, 2)
    s = searcher(state, tt_bits=20, max_tt_bits=24)
    s.set_position(state)
    expected = s.root_values(0, 0.0, _solve.EXACT_DEPTH, True)[:3]
    s.grow_seconds = 1.0
    s.grow(24, 100.0)                   # 4 x 1 s x 2^24 > 100 s: refused
    assert s.table_bits == 20
    s.grow_seconds = 1e-15
    s.grow(24, 1e-7)                    # 4 x 1e-15 s x 2^24 < 100 ns: started, then dropped
    assert s.table_bits == 20
    s.set_position(state)
    assert s.root_values(0, 0.0, _solve.EXACT_DEPTH, True)[:3] == expected
    s.grow(24)                          # no limit
    assert s.table_bits == 24
    s.set_position(state)
    assert s.root_values(0, 0.0, _solve.EXACT_DEPTH, True)[:3] == expected


def test_threads_start_only_for_a_big_search() -> None:
    """A search that ends within SOLO_NODES nodes runs on the calling thread alone; a bigger
    one gets its helpers (the same value either way)."""
    small, big = deal("baibian", 4, 1), deal("baibian", 7, 2)
    s = searcher(small, tt_bits=12, max_tt_bits=22)
    sol = solve(small, max_nodes=None, threads=2, searcher=s)
    assert s.helper_nodes == 0 and sol.nodes <= SOLO_NODES
    assert sol.value == solve(small, max_nodes=None, threads=1).value
    # the big one: past SOLO_NODES, on two threads. Whether the helper searched in the last
    # root search (what helper_nodes counts) is up to the OS's scheduler: on a loaded machine
    # the calling thread can finish a short last round before the helper runs, so a few
    # solves, one of them helped
    helped = []
    for _ in range(5):
        s = searcher(big, tt_bits=12, max_tt_bits=22)
        sol = solve(big, max_nodes=None, threads=2, searcher=s)
        assert sol.nodes > SOLO_NODES
        assert sol.value == solve(big, max_nodes=None, threads=1).value
        helped.append(s.helper_nodes)
        if s.helper_nodes > 0:
            break
    assert max(helped) > 0, helped


@pytest.mark.parametrize("seconds", [None, 1000.0])
def test_the_rounds_tables(monkeypatch: pytest.MonkeyPatch, seconds: float | None) -> None:
    """On threads solve searches in rounds (docs/solver.md "Threads"): after the search on one
    thread, whose table grows as it fills, the first round's table has FIRST_ROUND_BITS more
    bits and room for as many nodes as entries, every later round's is the cap (no node
    limit) — under a time limit 4x the last round's; no table grows under the threads, and
    the value is one thread's."""
    module = importlib.import_module("shuangkou.solve")
    exact = module._Run.exact
    rounds: list[tuple[int, int | None, int, int]] = []

    def record(run, cap, threads):  # type: ignore[no-untyped-def]
        bits = run.s.table_bits
        found = exact(run, cap, threads)
        rounds.append((bits, cap, threads, run.s.table_bits))
        return found

    monkeypatch.setattr(module._Run, "exact", record)
    state = deal("baibian", 6, 12)  # 3.2 M nodes on one thread: past the first round's room
    s = searcher(state, tt_bits=12, max_tt_bits=24)
    sol = solve(state, max_nodes=None, time_limit=seconds, threads=2, searcher=s)
    assert len(rounds) > 2 and rounds[0][:3] == (12, SOLO_NODES, 1), rounds
    first = rounds[0][3] + FIRST_ROUND_BITS
    assert first < 22 and rounds[1] == (first, 1 << first, 2, first), rounds
    for (_, _, _, last), (bits, cap, threads, after) in zip(rounds[1:], rounds[2:]):
        grown = 24 if seconds is None else min(last + 2, 24)
        assert (bits, cap, threads, after) == (
            grown, None if grown == 24 else 1 << grown, 2, grown), rounds
    monkeypatch.undo()
    assert sol.value == solve(state, max_nodes=None, time_limit=None, threads=1).value


def test_a_searcher_stays_warm_across_calls() -> None:
    # a position whose cold search is big enough (2,162 nodes) for the 10x margin
    state = deal("classic", 5, 5)
    s = searcher(state, tt_bits=12, max_tt_bits=20)
    cold = solve(state, searcher=s, threads=1)
    warm = solve(state, searcher=s, threads=1)
    fresh = solve(state, threads=1)
    assert cold.value == warm.value == fresh.value and cold.best == warm.best == fresh.best
    assert cold.nodes == fresh.nodes and warm.nodes * 10 < cold.nodes
    with pytest.raises(ArgumentError, match="searcher: its rules and objective"):
        solve(state, "base", searcher=s)
    with pytest.raises(ArgumentError, match="searcher: its rules and objective"):
        solve(deal("jj", 5, 3), searcher=s)
    with pytest.raises(ArgumentError, match="searcher must be a Searcher"):
        solve(state, searcher="warm")  # type: ignore[arg-type]
