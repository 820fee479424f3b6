"""``solve(best="one")`` / ``Searcher.root_values(one=True)``: content with one optimal move,
the root's value by MTD(f) over the root as a whole, each test asking whether any move
reaches a bound (docs/solver.md "Root"). The value is the one the search of every optimal
move finds, every move it calls optimal is optimal, every other move's value bounds its exact
value from above, also after a limit, and a wrong argument is refused."""

from __future__ import annotations

import random
import subprocess
import sys
from typing import Any

import pytest

from shuangkou import Rules, State, _solve, solve
from shuangkou.errors import ArgumentError
from tests.conftest import PRESET_NAMES, interrupted_after
from tests.test_solve import stopped_brackets
from tests.test_solve_root_only import _positions
from tests.test_solve_safety import deal


def _root(state: State, one: bool, all_values: bool = False, threads: int = 1,
          techniques: Any = None) -> tuple[Any, ...]:
    """``root_values`` of an exact search of ``state`` on a fresh table (``techniques``: the
    searcher's, None for all)."""
    return _searcher(state, techniques).root_values(0, 0.0, _solve.EXACT_DEPTH, all_values,
                                                    threads, one=one)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_one_optimal_move_keeps_the_value(preset: str) -> None:
    """On dealt 5- and 6-card positions (every move's exact value from ``all_values`` the
    reference): the value of ``one``'s search is the root's, each move it lists as optimal
    has that exact value, every other move's value is at least its exact value and at most
    the root's, on one thread and on two; and over the positions it searched fewer nodes
    than the search of every optimal move (it skips the proofs that other moves reach the
    best value)."""
    rng = random.Random(f"one {preset}")
    rules = Rules.preset(preset)
    nodes = {False: 0, True: 0}
    checked = several = 0
    for size in (5, 6):
        for state in _positions(rng, rules, size, 6):
            exact = _root(state, False, all_values=True)[1]
            value = max(v for v in exact if v is not None)
            several += sum(v == value for v in exact) > 1
            for one in (False, True):
                nodes[one] += _root(state, one)[3]
            for threads in (1, 2):
                _, values, optimal, _, stopped, _ = _root(state, True, threads=threads)
                assert not stopped
                assert optimal and values[optimal[0]] == value, str(state)
                for i, v in enumerate(values):
                    assert v is not None
                    if i in optimal:
                        assert exact[i] == value, (str(state), i)
                    else:
                        assert exact[i] <= v <= value, (str(state), i, v, exact[i])
            checked += 1
    assert checked >= 8 and several >= 2
    assert nodes[True] < nodes[False], nodes


def _searcher(state: State, techniques: Any = None) -> _solve.Searcher:
    s = _solve.Searcher(state, "score", 18, "hand_count", techniques)
    s.set_position(state)
    return s


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_one_stopped_root_brackets_the_value(preset: str) -> None:
    """``root_values(one=True)`` (MTD(f) over the whole root) stopped by node limits below
    what it needs, on one thread and two: ``bounds`` bracket the root's exact value (from
    ``all_values``), a move proven to reach ``lower`` (``proven``) does, and every value it
    reports bounds that move's exact value from above."""
    rng = random.Random(f"one root limits {preset}")
    checked = proven = 0
    for state in _positions(rng, Rules.preset(preset), 6, 8):
        exact = _root(state, False, all_values=True)[1]
        value = max(exact)
        need = _root(state, True)[3]
        for share in (1, 3, 10, 25):
            for threads in (1, 2):
                s = _searcher(state)
                _, values, optimal, nodes, stopped, _ = s.root_values(
                    max(1, need * share // 40), 0.0, _solve.EXACT_DEPTH, False, threads,
                    one=True)
                lower, upper, pick = s.bounds
                assert lower <= value <= upper, (str(state), share, threads)
                for i, v in enumerate(values):
                    assert v is None or v >= exact[i], (str(state), i, v, exact[i])
                if stopped:
                    checked += 1
                    assert not optimal
                    if s.proven:
                        proven += 1
                        assert exact[pick] >= lower, (str(state), share, threads)
                else:
                    assert exact[optimal[0]] == value == lower == upper
    assert checked > 20 and proven > 5, (checked, proven)


@pytest.mark.parametrize("preset", ["classic", "baibian"])
def test_one_without_mtdf(preset: str) -> None:
    """With the ``mtdf`` technique off, ``one`` values the first move by a full window and
    tests the others against passing the best so far (the root's alpha-beta): the same value,
    its optimal moves exact, the others' values upper bounds."""
    rng = random.Random(f"one no mtdf {preset}")
    techniques = [t for t in _solve.TECHNIQUES if t != "mtdf"]
    for state in _positions(rng, Rules.preset(preset), 5, 6):
        exact = _root(state, False, all_values=True)[1]
        for threads in (1, 2):
            _, values, optimal, _, stopped, _ = _searcher(state, techniques).root_values(
                0, 0.0, _solve.EXACT_DEPTH, False, threads, one=True)
            assert not stopped and optimal
            for i, v in enumerate(values):
                if i in optimal:
                    assert v == exact[i] == max(exact), (str(state), i)
                else:
                    assert exact[i] <= v <= max(exact), (str(state), i)


@pytest.mark.usefixtures("sigint_raises")  # even when the suite runs with SIGINT ignored
@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_stops_the_root_tests(threads: int) -> None:
    """Ctrl-C during ``root_values(one=True)`` on a 9-card position (far past 0.3 s of tests of
    the whole root), one thread and two: KeyboardInterrupt within a second, every helper gone
    (the call returns only then), and the searcher searches again afterwards."""
    s = _searcher(deal("qianbian", 9, 5))
    assert interrupted_after(
        lambda: s.root_values(0, 0.0, _solve.EXACT_DEPTH, False, threads, one=True)) < 1.3
    assert s.root_values(1000, 0.0, _solve.EXACT_DEPTH, False, threads, one=True)[4]


def test_solve_best_one() -> None:
    """``solve(best="one")`` on dealt 6-card positions: the value of ``solve``, plays that are
    among its optimal ones (at least one), a principal variation from the first, exact."""
    rng = random.Random("solve one")
    for preset in ("baibian", "jj"):
        for state in _positions(rng, Rules.preset(preset), 6, 4):
            every = solve(state, max_nodes=None, time_limit=None)
            one = solve(state, max_nodes=None, time_limit=None, best="one")
            assert one.exact and one.value == every.value, str(state)
            assert one.best and set(one.best) <= set(every.best), str(state)
            assert one.pv[0] == one.best[0] and one.guess == one.best[0]


def test_best_argument_refused() -> None:
    """A ``best`` other than "all"/"one", or "one" with ``all_values`` (every value exact:
    every optimal play is found anyway), is an ArgumentError naming it; ``root_values(one=
    True)`` is refused with ``all_values`` or a depth-limited search, the searcher unchanged."""
    state = next(_positions(random.Random("refused"), Rules.preset("baibian"), 4, 1))
    with pytest.raises(ArgumentError, match="best must be 'all' or 'one', not 'two'"):
        solve(state, best="two")
    with pytest.raises(ArgumentError, match="best='one' with all_values=True"):
        solve(state, best="one", all_values=True)
    s = _solve.Searcher(state, "score", 12, "hand_count")
    s.set_position(state)
    before = s.hash
    with pytest.raises(ArgumentError, match="one=True needs an exact search"):
        s.root_values(0, 0.0, _solve.EXACT_DEPTH, True, one=True)
    with pytest.raises(ArgumentError, match="one=True needs an exact search"):
        s.root_values(0, 0.0, 3, False, one=True)
    assert s.hash == before
    assert s.root_values(0, 0.0, _solve.EXACT_DEPTH, False, one=True)[2]


def test_cli_best_one() -> None:
    """``shuangkou solve --best one``: the value of ``--best all``, one optimal play listed of
    those; a ``--best`` outside all/one is a usage error (exit 2, no traceback)."""
    state = next(_positions(random.Random("cli one"), Rules.preset("baibian"), 4, 1))
    text = str(state)
    runs = {}
    for best in ("all", "one"):
        done = subprocess.run([sys.executable, "-m", "shuangkou", "solve", text, "--best", best],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        runs[best] = dict(line.split(": ", 1) for line in done.stdout.splitlines()[1:3])
        runs[best]["value"] = done.stdout.splitlines()[0]
    assert runs["one"]["value"] == runs["all"]["value"]
    assert set(runs["one"]["optimal"].split(", ")) <= set(runs["all"]["optimal"].split(", "))
    wrong = subprocess.run([sys.executable, "-m", "shuangkou", "solve", text, "--best", "two"],
                           capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2 and "Traceback" not in wrong.stderr


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_one_stopped_by_a_limit_brackets_the_value(preset: str) -> None:
    """``solve(best="one")`` stopped at several node limits below what it needs (one thread
    and two) on dealt 5-card positions after a few random moves: ``lower <= value <= upper``
    (the moves' upper bounds of its tests against passing the best are bounds), and a guess
    proven to reach ``lower`` (``depth`` None) is a play whose exact value does."""
    rng = random.Random(f"one limits {preset}")
    checked, proven = stopped_brackets(_positions(rng, Rules.preset(preset), 5, 12), best="one")
    assert checked > 10 and proven > 2, (checked, proven)
