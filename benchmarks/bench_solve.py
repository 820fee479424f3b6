"""Solver benchmarks (docs/solver.md "Figures"): nodes/s of the exact search and the time to
solve seeded positions of 5, 6, 7, 8 and 9 cards a seat (median and worst per preset, and how
many were solved exactly within the cap), each technique's node reduction (``--ablation``) and
the speed-up over a plain minimax (no pruning, no table: the reference engine's, in Python)::

    python benchmarks/bench_solve.py --rules baibian --sizes 5 6 7     # time to exact
    python benchmarks/bench_solve.py --ablation --sizes 6 --positions 10  # technique table
    python benchmarks/bench_solve.py --ablation --rich --sizes 8            # bomb-rich positions
    python benchmarks/bench_solve.py --minimax 3                         # vs plain minimax
    python benchmarks/bench_solve.py --rules baibian --sizes 7 --threads 1 2   # wall, 1 vs 2
    python benchmarks/bench_solve.py --sizes 9 --positions 3 --threads 2 --solve --cap 0  # solve()
    python benchmarks/bench_solve.py --per-call                          # small solves' cost
    python benchmarks/bench_solve.py --limits                            # answers on deals
    python benchmarks/bench_solve.py --instructions                      # a solve's, a node's

A position: ``n`` cards a seat drawn from the shuffled 108-card deck (seeded), seat 0 to lead,
nothing played yet. Times are CPU seconds of this process (the machine is shared: wall clock
is noisy; node counts do not depend on load) and, for the search on several threads
(``--threads``: each position searched with each count in turn), wall seconds too. Each solve is
capped (``--cap`` nodes, ``--seconds`` of wall clock: the search's own limit, ``time_limit``)
so a run stays short; a capped position counts as unsolved and its time as the cap's.
The search is one root search over a table of its cap from the start, on several threads
with ``--best one`` from 9 cards a seat with the portfolio's rival as ``solve`` runs it
(``solve.rival_passes``; ``--no-rival``: without it); ``--solve`` times
``solve()`` itself instead (``max_nodes`` the cap, ``time_limit`` ``--seconds``; ``--cap 0``
and no ``--seconds``: neither, so no anytime stage runs): its table grows from
``START_TT_BITS`` and, on several threads, its search runs in rounds (docs/solver.md
"Threads"); its span is not known (the column shows its nodes).

``--per-call``: what a call costs beyond its search, in one run: the CPU of the default
``solve`` of small positions (over the calling thread's searcher, emptied: ``WARM_TT_BITS``)
against ``solve(tt_bits=12, threads=1)`` (a table that fits, one thread), against the
default call with a new searcher (``release_searcher()`` before each: the call before the
thread's searcher was kept), against the old call (its table fixed at ``default_tt_bits`` of
the cards, its threads started at once: ``Searcher(state, "score", default_tt_bits(cards))``
searched with ``THREADS`` threads) and the same call again with a warm searcher
(``solve(state, searcher=s)``, its table kept: each solve of the position after the first
finds it there), and, each in a fresh process,
the peak memory and the time that ``solve(max_nodes=1000)`` adds on a whole deal, the same
two ways (Linux: the peak RSS, ``VmHWM``, reset before the call; a new searcher), and the
memory a thread keeps between calls: what is allocated (glibc's ``mallinfo2``) after small
solves, after a big one (its table past ``WARM_TT_BITS``: not kept), and after
``release_searcher()``.

``--per-call --each``: each position's row too (``position(preset, cards, seed)``), above
the row of medians.

``--limits``: whole deals (``State.deal(preset, seed)``) solved with the default limits and
with time limits of 0.5, 1 and 2 s: the wall time against the limit, and what came back (a
play, the bounds proven); ``--repeat N`` makes the four calls N times over (a call's wall time
varies with its threads' timing and with the memory the earlier calls left mapped).

``--instructions``: the exact instructions of one 6-card 百变 solve (seed 3, with and without
pext) and of a node of the exact search (one thread, a 2^20 table) on seeded 百变 positions of
5 and of 6 cards a seat (``instructions.py``: callgrind's totals of two workload sizes,
differenced, so start-up cancels out).

Under pytest (pytest-benchmark) ``test_bench_*`` times one small fixed workload.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import instructions  # benchmarks/: this script's folder is on sys.path
from shuangkou import PASS, Hand, Play, Rules, State, _solve, solve
from shuangkou._reference_game import RefState
from shuangkou.solve import (
    DEFAULT_TIME_LIMIT,
    THREADS,
    default_tt_bits,
    release_searcher,
    rival_passes,
    searcher,
)

SIZES = (5, 6, 7, 8, 9)
PRESETS = ("classic", "baibian", "jj", "qianbian")


NO_RIVAL = False
"""``--no-rival``: the search on several threads without the portfolio's rival
(``solve.rival_passes``): every thread on the one exact search, as the builds before it
searched."""

RICH = False
"""``--rich``: positions drawn from four consecutive ranks (eight copies each) and the four
jokers instead of the whole deck: bombs (wild ones, chain bombs, 三王) in most hands."""


def position(rules: Rules, cards: int, seed: int) -> State:
    rng = random.Random(seed)
    if RICH:
        low = rng.randrange(0, 9)
        pool = [r for r in range(low, low + 4) for _ in range(8)] + [13, 13, 14, 14]
        rng.shuffle(pool)
        hands = []
        for s in range(4):
            counts = [0] * 15
            for r in pool[cards * s : cards * (s + 1)]:
                counts[r] += 1
            hands.append(Hand.from_counts(counts))
        return State.from_position(rules, hands, 0)
    deck = list(range(108))
    rng.shuffle(deck)
    hands = [Hand.from_cards(deck[cards * s : cards * (s + 1)]) for s in range(4)]
    return State.from_position(rules, hands, 0)


def plain_minimax(state: RefState) -> tuple[int, int]:
    """(value for the seat to act, positions visited): every line to the end."""
    seat = state.to_act
    assert seat is not None
    best, nodes = None, 1
    moves: list[Play] = list(state.legal()) + ([PASS] if state.table is not None else [])
    for m in moves:
        state.play(m)
        if state.is_over:
            assert state.result is not None
            u = state.result.units
            v = sum(x if (t ^ seat) & 1 == 0 else -x for t, x in enumerate(u))
        else:
            v, n = plain_minimax(state)
            nodes += n
            v = v if (state.to_act ^ seat) & 1 == 0 else -v  # type: ignore[operator]
        state.undo()
        best = v if best is None or v > best else best
    assert best is not None
    return best, nodes


Run = tuple[float, int, int, int | None, float, int]
"""One search: CPU s, nodes, forced moves, value (None if capped), wall s, the nodes of the
busiest thread (its span: the wall time of the search on idle cores, in nodes)."""


def search(state: State, cap: int, seconds: float, techniques: list[str] | None = None,
           tt_bits: int | None = None, threads: int = 1, one: bool = False,
           via_solve: bool = False) -> Run:
    """One exact root search (see ``Run``; ``one``: one optimal move is enough,
    ``solve(best="one")``; ``via_solve``: a ``solve()`` call, its table growing and its
    threads' search in rounds, with every technique)."""
    bits = tt_bits or default_tt_bits(sum(state.card_counts))
    if via_solve:
        t, w = time.process_time(), time.perf_counter()
        sol = solve(state, max_nodes=cap or None, time_limit=seconds or None, threads=threads,
                    best="one" if one else "all", tt_bits=bits)
        dt, dw = time.process_time() - t, time.perf_counter() - w
        return dt, sol.nodes, 0, sol.value, dw, sol.nodes
    s = _solve.Searcher(state, "score", bits, "hand_count", techniques)
    s.set_position(state)
    t, w = time.process_time(), time.perf_counter()
    _, values, optimal, nodes, stopped, _ = s.root_values(
        cap, seconds, _solve.EXACT_DEPTH, False, threads, one=one,
        rival=() if NO_RIVAL else rival_passes(sum(state.card_counts), threads, one))
    dt, dw = time.process_time() - t, time.perf_counter() - w
    # the helpers share the rest alike (within a few %): the busiest is the calling thread or
    # the helpers' mean, whichever searched more
    span = max(nodes - s.helper_nodes, -(-s.helper_nodes // max(threads - 1, 1)))
    return dt, nodes, s.forced, None if stopped else values[optimal[0]], dw, span


def time_to_exact(a: argparse.Namespace) -> None:
    cap = f"{a.cap:,}" if a.cap else "no"
    print(f"exact solve, {a.positions} seeded positions a size; each capped at {cap} nodes "
          f"and {a.seconds:g} s (a capped one counts as unsolved, at the cap's time)")
    print("times: CPU s with one thread, wall s with more (the search's own clock)")
    print(f"{'preset':<9} {'cards':>5} {'thr':>3} {'exact':>6} {'<=1 s':>6} {'<=10 s':>7} "
          f"{'median s':>9} {'worst s':>9} {'median nodes':>13} {'Mnodes/s':>9} "
          f"{'wall med':>9} {'CPU med':>8}")
    techniques = [t for t in _solve.TECHNIQUES if t not in a.without] if a.without else None
    if a.without:
        print(f"techniques off: {', '.join(a.without)}")
    if a.solve:
        print("each position by solve() (its table grown from START_TT_BITS, in rounds on "
              "threads)")
    if a.best == "one":
        print("one optimal move (solve(best='one')): MTD(f) over the root, each test "
              "'does any move reach b?'")
    total_nodes, total_time = 0, 0.0
    walls: dict[int, list[float]] = {t: [] for t in a.threads}
    spans: dict[int, list[int]] = {t: [] for t in a.threads}
    alls: dict[int, list[int]] = {t: [] for t in a.threads}
    for preset in a.rules:
        rules = Rules.preset(preset)
        for n in a.sizes:
            runs: dict[int, list[Run]] = {t: [] for t in a.threads}
            for seed in range(a.positions):     # each position with each count in turn
                state = position(rules, n, seed)
                for t in a.threads:
                    runs[t].append(search(state, a.cap, a.seconds, techniques, a.tt_bits,
                                          threads=t, one=a.best == "one",
                                          via_solve=a.solve))
                    if a.each:
                        r = runs[t][-1]
                        print(f"  {preset} {n} cards seed {seed} threads {t}: {r[1]:,} nodes, "
                              f"value {r[3]}, {r[0]:.2f} CPU s"
                              + (f", span {r[5]:,}" if t > 1 and not a.solve else ""),
                              flush=True)
            for t in a.threads:
                rs = runs[t]
                # the time that counts: CPU alone, wall when the threads share the work
                times = [r[0] if t == 1 else r[4] for r in rs]
                nodes = [r[1] for r in rs]
                walls[t] += [r[4] for r in rs]
                spans[t] += [r[5] for r in rs]
                alls[t] += nodes
                if t == 1:
                    total_nodes += sum(nodes)
                    total_time += sum(times)
                exact = [x for x, r in zip(times, rs) if r[3] is not None]
                rate = sum(nodes) / max(sum(r[0] for r in rs), 1e-9) / 1e6
                print(f"{preset:<9} {n:>5} {t:>3} {len(exact):>3}/{len(rs):<2} "
                      f"{sum(x <= 1 for x in exact):>6} {sum(x <= 10 for x in exact):>7} "
                      f"{statistics.median(times):>9.3f} {max(times):>9.3f} "
                      f"{int(statistics.median(nodes)):>13,} {rate:>9.2f} "
                      f"{statistics.median(r[4] for r in rs):>9.3f} "
                      f"{statistics.median(r[0] for r in rs):>8.3f}", flush=True)
    if 1 in a.threads:
        print(f"\nall, one thread: {total_nodes:,} nodes in {total_time:.2f} CPU s = "
              f"{total_nodes / max(total_time, 1e-9) / 1e6:.2f} M nodes/s")
    for t in a.threads:
        print(f"wall, {t} thread(s): {sum(walls[t]):.2f} s in all"
              + (f" ({sum(walls[1]) / max(sum(walls[t]), 1e-9):.2f}x of one thread's)"
                 if 1 in a.threads and t != 1 else "")
              + f"; nodes {sum(alls[t]):,}"
              + (f" ({sum(alls[t]) / max(sum(alls[1]), 1):.2f}x one thread's)"
                 if 1 in a.threads and t != 1 else "")
              + f"; span {sum(spans[t]):,} nodes"
              + (f" ({sum(spans[1]) / max(sum(spans[t]), 1):.2f}x fewer than one thread's)"
                 if 1 in a.threads and t != 1 else ""))


def ablation(a: argparse.Namespace) -> None:
    """Each technique's effect: all on, then each one off (same positions, one run)."""
    every = list(_solve.TECHNIQUES)
    configs = [("all techniques", every, None)]
    configs += [(f"without {t}", [x for x in every if x != t], None) for t in every]
    configs += [("all, table 2^24", every, 24), ("all, table 2^20", every, 20),
                ("all, table 2^18", every, 18), ("none, table 2^18 (old)", [], 18)]
    for preset in a.rules:
        rules = Rules.preset(preset)
        for n in a.sizes:
            states = [position(rules, n, seed) for seed in range(a.positions)]
            print(f"\n{preset}, {n} cards a seat, {len(states)} positions (cap {a.cap:,} nodes "
                  f"and {a.seconds:g} s each)")
            print(f"{'search':<24} {'exact':>6} {'nodes':>13} {'forced':>7} {'CPU s':>8}")
            base = None
            values = None
            for name, techniques, bits in configs:
                runs = [search(s, a.cap, a.seconds, techniques, bits) for s in states]
                nodes = sum(r[1] for r in runs)
                forced = sum(r[2] for r in runs) / max(nodes, 1)
                vals = [r[3] for r in runs]
                if values is None:
                    values = vals
                # a technique changes the work, never a value
                assert all(v is None or w is None or v == w for v, w in zip(vals, values))
                base = base or nodes
                print(f"{name:<24} {sum(v is not None for v in vals):>3}/{len(vals):<2} "
                      f"{nodes:>13,} {forced:>7.0%} {sum(r[0] for r in runs):>8.2f} "
                      f"({nodes / base:.2f}x nodes)", flush=True)


def versus_minimax(a: argparse.Namespace) -> None:
    print("\nspeed-up over plain minimax (Python, reference engine), 3 cards a seat:")
    print(f"{'preset':<9} {'minimax s':>10} {'solve s':>9} {'ratio':>8} {'minimax nodes':>14} "
          f"{'solve nodes':>12}")
    for preset in a.rules:
        rules = Rules.preset(preset)
        mt = st = 0.0
        mn = sn = 0
        for seed in range(a.minimax):
            pos = position(rules, 3, seed)
            ref = RefState.from_position(rules, [pos.hand(s) for s in range(4)], 0)
            t = time.process_time()
            value, nodes = plain_minimax(ref)
            mt += time.process_time() - t
            mn += nodes
            t = time.process_time()
            sol = solve(pos)
            st += time.process_time() - t
            sn += sol.nodes
            assert sol.value == value
        print(f"{preset:<9} {mt:>10.3f} {st:>9.4f} {mt / max(st, 1e-9):>7.0f}x {mn:>14,} "
              f"{sn:>12,}")


def solves(k: int, without: tuple[str, ...] = ()) -> int:
    """The instruction-count workload: ``k`` exact one-thread solves of the 6-card 百变
    position of seed 3 (``position``), each with its own searcher and table, with the
    techniques of ``without`` off; returns ``k``."""
    state = position(Rules.preset("baibian"), 6, 3)
    techniques = [t for t in _solve.TECHNIQUES if t not in without]
    for _ in range(k):
        assert search(state, 0, 0.0, techniques)[3] is not None
    return k


def old_call(state: State, max_nodes: int) -> None:
    """The call as it was before the table grew with the search (issue #33): a table fixed at
    ``default_tt_bits`` of the cards in hand, threads started at once."""
    s = _solve.Searcher(state, "score", default_tt_bits(sum(state.card_counts)))
    s.set_position(state)
    s.root_values(max_nodes, 0.0, _solve.EXACT_DEPTH, False, THREADS)


def new_searcher_call(state: State) -> None:
    """The default call with a new searcher: the thread's kept one freed first (the call as
    it was before ``solve`` kept a searcher for each thread)."""
    release_searcher()
    solve(state)


def call_cpu(call, reps: int) -> float:  # type: ignore[no-untyped-def]
    """CPU seconds a call, the best of three rounds of ``reps`` calls (every thread's CPU)."""
    best = float("inf")
    for _ in range(3):
        t = time.process_time()
        for _ in range(reps):
            call()
        best = min(best, (time.process_time() - t) / reps)
    return best


MEMORY_CODE = """
import sys, time
sys.path.insert(0, {here!r})
from bench_solve import old_call
from shuangkou import State, solve
from shuangkou.solve import release_searcher

def kib(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1])

state = State.deal({preset!r}, {seed})
solve(State.deal({preset!r}, 0), max_nodes=1, threads=1)     # the imports' memory first
release_searcher()  # the call makes its own searcher, as a thread's first call does
with open("/proc/self/clear_refs", "w") as f:   # the peak (VmHWM) reset to the RSS now
    f.write("5")
before = kib("VmRSS")
t = time.perf_counter()
if {old}:
    old_call(state, 1000)
else:
    solve(state, max_nodes=1000)
print((kib("VmHWM") - before) / 1024, time.perf_counter() - t)
"""


KEPT_CODE = """
import sys
sys.path.insert(0, {here!r})
from bench_solve import position
from shuangkou import Rules, solve
from shuangkou.solve import release_searcher

import ctypes
class Info(ctypes.Structure):   # glibc's struct mallinfo2
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]
libc = ctypes.CDLL(None)
libc.mallinfo2.restype = Info

def mib():  # the memory malloc has given out and not had back: heap blocks and mapped ones
    info = libc.mallinfo2()
    return (info.uordblks + info.hblkhd) / 2**20

rules = Rules.preset("classic")
small = [position(rules, c, s) for c in (3, 4) for s in range(3)]
big = position(rules, 6, 0)
solve(small[0])
release_searcher()
before = mib()
def show(what):
    print(f"{{what:<58}} {{mib() - before:>6.2f}}", flush=True)
for s in small:
    solve(s)
show("6 small solves (3-4 cards): a searcher kept")
release_searcher()
show("release_searcher()")
nodes = solve(big, threads=2).nodes
show(f"a 6-card solve, 2 threads ({{nodes:,}} nodes): not kept")
for s in small:
    solve(s)
show("6 small solves")
solve(big, threads=2, tt_bits=16)
show("the 6-card solve, 2 threads, tt_bits=16: kept")
release_searcher()
show("release_searcher()")
"""


def per_call(a: argparse.Namespace) -> None:
    """Small solves' CPU a call, and the memory and time of a 1,000-node solve of a deal."""
    print(f"CPU a call (ms; best of 3 rounds), median over {a.positions} positions a row; "
          f"threads {THREADS} by default")
    print(f"{'preset':<9} {'cards':>5} {'nodes':>7} {'default':>8} {'2^12,1thr':>9} "
          f"{'ratio':>6} {'new srch':>8} {'old call':>9} {'old/new':>8} {'warm':>7}")
    for preset in a.rules:
        rules = Rules.preset(preset)
        for n in [c for c in a.sizes if c <= 5] or [4]:
            rows = []
            for seed in range(a.positions):
                state = position(rules, n, seed)
                nodes = solve(state, threads=1).nodes
                reps = max(1, min(50, 200_000 // max(nodes, 1)))
                new = call_cpu(lambda st=state: solve(st), reps)
                small = call_cpu(lambda st=state: solve(st, tt_bits=12, threads=1), reps)
                fresh = call_cpu(lambda st=state: new_searcher_call(st), reps)
                old = call_cpu(lambda st=state: old_call(st, 0), reps)
                s = searcher(state, tt_bits=12, max_tt_bits=22)
                warm = call_cpu(lambda st=state, s=s: solve(st, searcher=s), reps)
                rows.append((nodes, new, small, fresh, old, warm))
                if a.each:  # the position's own row (the medians below hide an outlier)
                    print(f"  seed {seed:<3} {nodes:>7,} {new * 1e3:>8.3f} {small * 1e3:>9.3f} "
                          f"{'':>6} {fresh * 1e3:>8.3f} {old * 1e3:>9.2f} {'':>8} "
                          f"{warm * 1e3:>7.3f}", flush=True)
            med = [statistics.median(r[k] for r in rows) for k in range(6)]
            print(f"{preset:<9} {n:>5} {int(med[0]):>7,} {med[1] * 1e3:>8.3f} "
                  f"{med[2] * 1e3:>9.3f} {med[1] / med[2]:>6.2f} {med[3] * 1e3:>8.3f} "
                  f"{med[4] * 1e3:>9.2f} {med[4] / med[1]:>7.1f}x {med[5] * 1e3:>7.3f}",
                  flush=True)
    here = os.path.dirname(os.path.abspath(__file__))
    print("\nsolve(max_nodes=1000) on a whole deal (State.deal(preset, seed)), a fresh process "
          "each: peak RSS added (MiB), wall s")
    print(f"{'preset':<9} {'seed':>4} {'MiB':>6} {'s':>6} {'old MiB':>8} {'old s':>6}")
    for preset in a.rules:
        for seed in range(1, 4):
            out = []
            for old in (False, True):
                code = MEMORY_CODE.format(here=here, preset=preset, seed=seed, old=old)
                run = subprocess.run([sys.executable, "-c", code], capture_output=True,
                                     text=True, check=True)
                out += [float(x) for x in run.stdout.split()]
            print(f"{preset:<9} {seed:>4} {out[0]:>6.1f} {out[1]:>6.3f} {out[2]:>8.1f} "
                  f"{out[3]:>6.3f}", flush=True)
    print("\nwhat a thread keeps between calls (solve.WARM_TT_BITS), a fresh process: the "
          "memory allocated (glibc's mallinfo2: in use, heap and mapped), over the process's "
          "after one solve and release_searcher() (MiB)")
    subprocess.run([sys.executable, "-c", KEPT_CODE.format(here=here)], check=True)


def limits(a: argparse.Namespace) -> None:
    """Whole deals under the default limits and under time limits: wall s, answer, the bounds
    the call returned and the root's static R8 bounds (``_solve.score_bounds``)."""
    print("whole deals: wall s (and / the time limit), the play, the bounds returned, and the "
          "static R8 bounds of the deal")
    print(f"{'preset':<9} {'seed':>4} {'limit':>8} {'wall s':>7} {'ratio':>6} {'nodes':>11} "
          f"{'bounds':>14} {'static':>14}  play")
    ratios = []
    for preset in a.rules:
        for seed in range(1, a.positions + 1):
            state = State.deal(preset, seed)
            static = _solve.score_bounds(_solve.Searcher(state, "score", 12), state)
            for limit in [None, 0.5, 1.0, 2.0] * a.repeat:
                t = time.perf_counter()
                sol = solve(state) if limit is None else solve(state, time_limit=limit)
                wall = time.perf_counter() - t
                ratio = wall / (limit or DEFAULT_TIME_LIMIT)
                ratios.append(ratio)
                got = f"[{sol.lower:+d}, {sol.upper:+d}]"
                fixed = f"[{static[0]:+d}, {static[1]:+d}]"
                print(f"{preset:<9} {seed:>4} {'default' if limit is None else limit:>8} "
                      f"{wall:>7.2f} {ratio:>6.2f} {sol.nodes:>11,} {got:>14} {fixed:>14}  "
                      f"{sol.guess or 'pass'}", flush=True)
    print(f"wall / limit: median {statistics.median(ratios):.2f}, worst {max(ratios):.2f}")


def search_nodes(cards: int):  # type: ignore[no-untyped-def]
    """A workload for ``--instructions``: exact searches of 百变 positions of ``cards`` cards a
    seat, seeds 0..size-1 (one thread, a fixed 2^20 table); its units are the nodes."""
    def run(size: int) -> int:
        nodes = 0
        for seed in range(size):
            state = position(Rules.preset("baibian"), cards, seed)
            s = _solve.Searcher(state, "score", 20)
            s.set_position(state)
            nodes += s.root_values(0, 0.0, _solve.EXACT_DEPTH, False, 1)[3]
        return nodes
    return run


INSTRUCTION_WORKLOADS = {
    "solve 6 cards 百变 seed 3": solves,
    "the same without pext": lambda k: solves(k, ("pext",)),
    "exact search, 5 cards (百变)": search_nodes(5),
    "exact search, 6 cards (百变)": search_nodes(6),
}
"""``--instructions``: counted by ``instructions.per_unit`` as the difference of two runs. A
solve's: a run with no solve and one with one (imports, the position's set-up and start-up
cancel out): the instructions of the search alone, its table's allocation included. A node's:
exact searches of 4 and 16 seeded 5-card positions (1 and 2 of 6 cards), one thread, a fixed
2^20 table, over the difference of their nodes."""


def main() -> None:
    if instructions.count_main(sys.argv[1:], INSTRUCTION_WORKLOADS):
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", nargs="+", default=list(PRESETS), choices=PRESETS)
    ap.add_argument("--sizes", nargs="+", type=int, default=list(SIZES))
    ap.add_argument("--positions", type=int, default=10, help="seeded positions a size")
    ap.add_argument("--cap", type=int, default=200_000_000,
                    help="nodes a solve at most (0: no limit)")
    ap.add_argument("--seconds", type=float, default=0.0,
                    help="wall-clock seconds a solve at most (its time_limit; 0: none; node "
                         "caps are load-free)")
    ap.add_argument("--threads", nargs="+", type=int, default=[1],
                    help="threads a search (each position with each count in turn)")
    ap.add_argument("--without", nargs="+", default=[], choices=list(_solve.TECHNIQUES),
                    help="techniques turned off (the time-to-exact tables)")
    ap.add_argument("--each", action="store_true",
                    help="each position's nodes and value (--per-call: its times)")
    ap.add_argument("--best", choices=("all", "one"), default="all",
                    help="the time-to-exact tables: every optimal move (solve's default) or one "
                         "(solve(best='one'))")
    ap.add_argument("--tt-bits", type=int, default=None,
                    help="the time-to-exact tables: the table's cap, 2^N entries of 16 bytes "
                         "(default: solve's, default_tt_bits of the position)")
    ap.add_argument("--solve", action="store_true",
                    help="the time-to-exact tables: each position by solve() (max_nodes the "
                         "cap; its table grown as solve grows it, in rounds on threads) "
                         "rather than one root search over a table of the cap")
    ap.add_argument("--no-rival", action="store_true",
                    help="the time-to-exact tables on several threads: no portfolio (every "
                         "thread on the one exact search, docs/solver.md \"Threads\")")
    ap.add_argument("--ablation", action="store_true", help="each technique's node reduction")
    ap.add_argument("--rich", action="store_true",
                    help="bomb-rich positions (four ranks and the jokers; at most 8 cards a seat)")
    ap.add_argument("--minimax", type=int, default=0, help="positions for the minimax ratio")
    ap.add_argument("--instructions", action="store_true",
                    help="under callgrind: one 6-card 百变 solve (seed 3) with and without pext, "
                         "and the instructions a node at 5 and 6 cards, nothing else")
    ap.add_argument("--per-call", action="store_true",
                    help="small solves' CPU a call and a 1,000-node solve's memory, new vs old")
    ap.add_argument("--limits", action="store_true",
                    help="whole deals under the default and time limits: wall s, answers")
    ap.add_argument("--repeat", type=int, default=1,
                    help="--limits: each call this many times")
    a = ap.parse_args()
    if a.repeat < 1:
        ap.error(f"--repeat must be 1 or more, got {a.repeat}")
    global RICH, NO_RIVAL
    RICH = a.rich
    NO_RIVAL = a.no_rival
    if a.solve and a.without:
        ap.error("--solve: solve() searches with every technique (drop --without)")
    if a.rich and max(a.sizes) > 8:
        ap.error("--rich: at most 8 cards a seat (the pool holds 36 cards)")
    if a.instructions:
        sys.exit(instructions.report(Path(__file__), {
            "solve 6 cards 百变 seed 3": ("solve", 0, 1),
            "the same without pext": ("solve", 0, 1),
            "exact search, 5 cards (百变)": ("node", 4, 16),  # ~4 k nodes a seed
            "exact search, 6 cards (百变)": ("node", 1, 2),  # ~0.5 M nodes a seed
        }))
    if a.limits:
        limits(a)
    elif a.per_call:
        per_call(a)
    elif a.ablation:
        ablation(a)
    elif a.minimax:
        versus_minimax(a)
    else:
        time_to_exact(a)


def test_bench_solve_5_cards(benchmark) -> None:  # type: ignore[no-untyped-def]
    state = position(Rules.preset("baibian"), 5, 1)
    benchmark(solve, state)


if __name__ == "__main__":
    main()
