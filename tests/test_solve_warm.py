"""The searcher ``solve`` keeps for each calling thread between calls (issue #33 item 1,
``solve.WARM_TT_BITS``): emptied before each call (``Searcher.reset``), it searches as a new
one would (the same values, plays, bounds and nodes); one a thread, none shared; no big table
kept; usable again after a stopped or interrupted call."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import threading

import pytest

from shuangkou import State, _solve, solve
from shuangkou.errors import ArgumentError
from shuangkou.solve import WARM_TT_BITS, Solution, _warm, release_searcher, searcher
from tests.conftest import PRESET_NAMES, interrupted_after
from tests.test_solve_safety import deal


def kept() -> object:
    """The searcher the calling thread keeps (None: none)."""
    return vars(_warm).get("searcher")


def fresh(state: State, **kwargs: object) -> Solution:
    """``solve`` with a new searcher (the thread's kept one freed first)."""
    release_searcher()
    return solve(state, **kwargs)  # type: ignore[arg-type]


def calls() -> list[tuple[State, dict[str, object]]]:
    """Small positions of every preset, exact, in both objectives, every value, one optimal
    play; and whole deals stopped by a node limit (the anytime stage: probes, and the
    deepening whose horizon evaluation rests on the decomposition memo, R8 bounds)."""
    out: list[tuple[State, dict[str, object]]] = []
    for preset in PRESET_NAMES:
        for cards in (1, 2, 3, 4, 5):
            for seed in range(3):
                state = deal(preset, cards, seed)
                out.append((state, {"threads": 1}))
                out.append((state, {"threads": 1, "objective": "base", "all_values": True}))
            out.append((deal(preset, cards, 7), {"threads": 1, "best": "one"}))
        for seed in (1, 2):
            out.append((State.deal(preset, seed), {"max_nodes": 3000}))
    return out


def test_the_kept_searcher_searches_as_a_new_one() -> None:
    """Each call's solution (value, plays, bounds, every value, nodes) equals that of a new
    searcher, whatever the thread's earlier calls searched (the order shuffled, the rules and
    objective changing), and the searcher is kept from call to call where they stay."""
    todo = calls()
    expected = [fresh(state, **kwargs) for state, kwargs in todo]
    order = list(range(len(todo)))
    random.Random("warm").shuffle(order)
    # then grouped by rules and objective: each group's calls after its first on the searcher
    # the one before kept
    grouped = sorted(order, key=lambda i: (todo[i][0].rules.name,
                                           str(todo[i][1].get("objective", "score"))))
    release_searcher()
    reused = 0
    for i in order + grouped:
        state, kwargs = todo[i]
        before = kept()
        got = solve(state, **kwargs)  # type: ignore[arg-type]
        assert got == expected[i], (str(state), kwargs)
        reused += before is not None and kept() is before
    assert reused >= len(todo) - 8, reused


def test_one_searcher_a_thread() -> None:
    """Two threads solving positions of one preset at once each search with their own
    searcher (kept in the thread from call to call, never the other's): their solutions equal
    the sequential ones."""
    states = [deal("baibian", c, s) for c in (3, 4, 5) for s in range(4)]
    expected = [fresh(s, threads=1) for s in states]
    got: dict[int, list[Solution]] = {}
    searchers: dict[int, list[object]] = {}     # (held: no address reused)
    start = threading.Barrier(2)

    def work(k: int) -> None:
        got[k], searchers[k] = [], []
        for _ in range(3):
            for s in states:
                start.wait()    # the two threads' calls in step: a shared searcher would
                got[k].append(solve(s, threads=1))  # pass from one to the other
                searchers[k].append(kept())

    workers = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    for k in range(2):
        assert got[k] == expected * 3
        # the thread's one searcher, from call to call
        assert searchers[k][0] is not None
        assert all(s is searchers[k][0] for s in searchers[k])
    assert searchers[0][0] is not searchers[1][0]


def test_no_big_table_kept() -> None:
    """A call whose table grew past 2**WARM_TT_BITS entries keeps no searcher (the next call
    makes a new one); a small call's is kept with its table at its start, and
    ``release_searcher`` frees it."""
    release_searcher()
    solve(deal("baibian", 3, 1))
    small = kept()
    assert small is not None and small.table_bits <= WARM_TT_BITS  # type: ignore[attr-defined]
    big = solve(deal("classic", 6, 0), threads=1)   # 691,621 nodes: a 2^22 table
    assert big.nodes > 4 << WARM_TT_BITS
    assert kept() is None
    solve(deal("baibian", 3, 1))
    assert kept() is not None and kept() is not small
    release_searcher()
    assert kept() is None


def test_memory_kept_after_a_big_solve() -> None:
    """The resident memory a thread keeps after a big solve (its table grown to 64 MiB), and
    after small ones of the same rules next: a few MiB at most (a searcher's buffers), never
    the big table."""
    code = (
        "from shuangkou import solve\n"
        "from tests.test_solve_safety import deal\n"
        "def rss():\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmRSS'):\n"
        "            return int(line.split()[1])\n"
        "small = [deal('classic', c, s) for c in (3, 4) for s in range(3)]\n"
        "for s in small:\n"
        "    solve(s)\n"
        "before = rss()\n"
        "solve(deal('classic', 6, 0), threads=2)\n"
        "big = rss()\n"
        "for s in small:\n"
        "    solve(s)\n"
        "print(big - before, rss() - before)\n"
    )
    if not sys.platform.startswith("linux"):
        pytest.skip("reads /proc/self/status")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True)
    after_big, after_small = (int(x) for x in run.stdout.split())
    assert after_big < 8 * 1024 and after_small < 8 * 1024, run.stdout    # KiB: < 8 MiB


def test_a_stopped_call_leaves_it_exact() -> None:
    """After calls stopped by a node limit, a time limit or a refused argument, the kept
    searcher's next calls equal a new searcher's."""
    small = [deal(p, 5, s) for p in PRESET_NAMES for s in range(2)]
    expected = [fresh(s, threads=1) for s in small]
    big = deal("baibian", 7, 2)
    stops = [lambda: solve(big, max_nodes=5000, threads=1),
             lambda: solve(big, time_limit=0.01, threads=1),
             lambda: solve(State.deal("jj", 3), max_nodes=2000)]
    for stop in stops:
        solve(small[1], threads=1)
        assert not stop().exact
        s = kept()
        with pytest.raises(ArgumentError):
            solve(big, threads=0)
        assert kept() is s
        assert [solve(x, threads=1) for x in small] == expected


@pytest.mark.usefixtures("sigint_raises")
@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_leaves_it_usable(threads: int) -> None:
    """Ctrl-C in the middle of a call (one thread and two): the searcher is kept and the
    next calls equal a new searcher's."""
    small = [deal(p, 4, s) for p in ("qianbian", *PRESET_NAMES) for s in range(2)]
    expected = [fresh(s, threads=1) for s in small]
    solve(small[0], threads=1)
    s = kept()
    # a table capped at the size kept, so that what stops the call is Ctrl-C alone
    assert interrupted_after(lambda: solve(deal("qianbian", 9, 5), max_nodes=None,
                                           time_limit=None, threads=threads,
                                           tt_bits=WARM_TT_BITS)) < 1.3
    assert kept() is s
    assert [solve(x, threads=1) for x in small] == expected


def test_a_solve_inside_a_solve() -> None:
    """A solve run by a signal handler while the thread's solve is under way (the thread's
    searcher, of the same rules, taken and its lock held) makes its own searcher: both calls
    end, the inner one exact (in a child process with a timeout: sharing the searcher would
    deadlock on its lock)."""
    code = (
        "import signal, threading\n"
        "from shuangkou import solve\n"
        "from tests.test_solve_safety import deal\n"
        "inner = []\n"
        "def handler(signum, frame):\n"
        "    inner.append(solve(deal('jj', 4, 1), threads=1))\n"
        f"signal.signal({int(signal.SIGUSR1)}, handler)\n"
        "solve(deal('jj', 4, 0), threads=1)\n"
        "main = threading.main_thread().ident\n"
        f"threading.Timer(0.2, signal.pthread_kill, (main, {int(signal.SIGUSR1)})).start()\n"
        "outer = solve(deal('jj', 8, 5), max_nodes=None, time_limit=1.0, threads=1)\n"
        "print(len(inner), inner[0].nodes, inner[0].value, outer.nodes > 0)\n"
    )
    if not hasattr(signal, "pthread_kill"):
        pytest.skip("needs signal.pthread_kill")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True)
    want = fresh(deal("jj", 4, 1), threads=1)
    assert run.stdout.split() == ["1", str(want.nodes), str(want.value), "True"], run.stdout


def test_reset_empties_the_decomposition_memos() -> None:
    """Depth-limited searches of whole 千变 deals (the horizon scored by 手数, whose
    decomposition stops at a budget of nodes on some 27-card hands: what its memo holds
    decides which it solves exactly): after another deal's search and ``reset``, every value
    a new searcher's (``solve``'s anytime stage runs these searches)."""
    deals = [State.deal("qianbian", seed) for seed in range(1, 13)]

    def values(s: _solve.Searcher, state: State, depth: int) -> tuple[object, ...]:
        s.set_position(state)
        return s.root_values(0, 0.0, depth, False)[:4]

    for depth in (1, 2):
        s = searcher(deals[0], tt_bits=12, max_tt_bits=16)
        for i, state in enumerate(deals):
            values(s, deals[(i + 5) % len(deals)], depth)
            s.reset(12, 16)
            new = searcher(state, tt_bits=12, max_tt_bits=16)
            assert values(s, state, depth) == values(new, state, depth), (depth, i)


def test_reset_arguments() -> None:
    """``Searcher.reset`` checks its sizes by the argument rule, the searcher unchanged."""
    state = deal("classic", 3, 0)
    s = searcher(state, tt_bits=12, max_tt_bits=14)
    with pytest.raises(ArgumentError, match="tt_bits"):
        s.reset(3, 14)
    with pytest.raises(ArgumentError, match="max_tt_bits"):
        s.reset(12, 11)
    assert (s.table_bits, s.max_table_bits) == (12, 14)
    solve(deal("classic", 5, 1), searcher=s, threads=1)
    s.reset(12, 16)
    assert (s.table_bits, s.max_table_bits) == (12, 16)
    new = searcher(state, tt_bits=12, max_tt_bits=16)
    assert solve(state, searcher=s, threads=1) == solve(state, searcher=new, threads=1)
