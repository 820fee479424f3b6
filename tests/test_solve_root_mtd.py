"""The root's MTD(f) (docs/solver.md "Root"): an exact search without ``all_values`` finds the
root's value by tests "does any move reach b?" over the moves that may still reach b, then,
unless one optimal move is enough (``one``), tests each move that may reach the value and is
not yet proven to. Its value and its optimal moves are those of the plain scheme (the
``mtdf`` technique off: the first move's exact value, each other move tested against it) and
of ``all_values``, on one thread and on two, in every preset."""

from __future__ import annotations

import random

import pytest

from shuangkou import Rules, _solve
from tests.conftest import PRESET_NAMES
from tests.test_solve_one import _root
from tests.test_solve_root_only import _positions

PLAIN = [t for t in _solve.TECHNIQUES if t != "mtdf"]


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_root_mtd_finds_the_plain_roots_optimal_moves(preset: str) -> None:
    """On dealt 5- and 6-card positions after a few random moves, each move's exact value from
    ``all_values`` (a search of every move by MTD(f) alone, on its own table): with every
    optimal move asked for, the value and the set of optimal moves are exactly those of the
    exact values and of the plain scheme, and every other move's value is an upper bound
    below the value; with one optimal move, each move listed is optimal. One thread and two.
    The positions include roots whose value is below the first test's bound (0 on a fresh
    table: the tests go down) and above it, and roots with several optimal moves."""
    rng = random.Random(f"root mtd {preset}")
    rules = Rules.preset(preset)
    kinds = {"below": 0, "above": 0, "several": 0}
    nodes = {"mtd": 0, "plain": 0}
    for size in (5, 6):
        for state in _positions(rng, rules, size, 8):
            exact = _root(state, False, all_values=True)[1]
            value = max(exact)
            best = {i for i, v in enumerate(exact) if v == value}
            kinds["below"] += value < 0
            kinds["above"] += value > 0
            kinds["several"] += len(best) > 1
            for threads in (1, 2):
                for techniques, name in ((None, "mtd"), (PLAIN, "plain")):
                    _, values, optimal, n, stopped, _ = _root(state, False, threads=threads,
                                                              techniques=techniques)
                    assert not stopped
                    if threads == 1:
                        nodes[name] += n
                    assert set(optimal) == best, (str(state), name, threads, optimal)
                    assert values[optimal[0]] == value, (str(state), name, threads)
                    for i, v in enumerate(values):
                        if i not in best:
                            assert exact[i] <= v < value, (str(state), name, i, v, exact[i])
                _, values, optimal, _, stopped, _ = _root(state, True, threads=threads)
                assert not stopped and optimal and set(optimal) <= best, str(state)
                assert values[optimal[0]] == value
    assert min(kinds.values()) >= 2, kinds
    # the root's MTD(f) ran: its nodes are not the plain scheme's (at 5-6 cards they are
    # about as many; it pays from 7, docs/solver.md "Root")
    assert nodes["mtd"] != nodes["plain"], nodes
