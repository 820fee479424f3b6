"""Solver benchmarks (docs/solver.md): nodes/s of the exact search, the time to solve seeded
positions of 3, 4, 5, 6 and 8 cards per seat (median and worst per preset, and how many solved
within the time limit), and the speed-up over a plain minimax (no pruning, no table: the
reference engine's, in Python) on the same small positions — all in one run::

    python benchmarks/bench_solve.py                    # every preset, 5 positions per size
    python benchmarks/bench_solve.py --rules baibian --positions 10 --limit 1 --cap 5000000

A position: ``n`` cards per seat drawn from the shuffled 108-card deck (seeded), seat 0 to
lead, nothing played yet. Times are CPU seconds of this process (the machine is shared: wall
clock is noisy); the search is single-threaded. Under pytest (pytest-benchmark) the
``test_bench_*`` functions time one small fixed workload.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from shuangkou import PASS, Hand, Play, Rules, solve
from shuangkou._reference_game import RefState

SIZES = (3, 4, 5, 6, 8)


def position(rules: Rules, cards: int, seed: int) -> RefState:
    deck = list(range(108))
    random.Random(seed).shuffle(deck)
    hands = [Hand.from_cards(deck[cards * s : cards * (s + 1)]) for s in range(4)]
    return RefState.from_position(rules, hands, 0)


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


def timed_solve(state: RefState, limit: float, cap: int) -> tuple[float, int, bool]:
    """(CPU seconds, nodes, solved within ``limit`` CPU seconds); ``cap`` nodes at most."""
    t = time.process_time()
    sol = solve(state, max_nodes=cap)
    dt = time.process_time() - t
    return dt, sol.nodes, sol.exact and dt <= limit


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", nargs="+", default=["classic", "baibian", "jj", "qianbian"])
    ap.add_argument("--positions", type=int, default=5, help="seeded positions per size")
    ap.add_argument("--limit", type=float, default=1.0, help="CPU seconds counted as solved")
    ap.add_argument("--cap", type=int, default=20_000_000, help="nodes per solve at most")
    ap.add_argument("--minimax", type=int, default=3, help="positions for the minimax ratio")
    a = ap.parse_args()
    print(f"exact solve, {a.positions} seeded positions per size; solved = exact within "
          f"{a.limit:g} CPU s (each search capped at {a.cap:,} nodes)")
    print(f"{'preset':<9} {'cards':>5} {'solved':>7} {'median s':>9} {'worst s':>9} "
          f"{'median nodes':>13} {'Mnodes/s':>9}")
    total_nodes, total_time = 0, 0.0
    for preset in a.rules:
        rules = Rules.preset(preset)
        for n in SIZES:
            runs = [timed_solve(position(rules, n, seed), a.limit, a.cap)
                    for seed in range(a.positions)]
            times = [r[0] for r in runs]
            nodes = [r[1] for r in runs]
            total_nodes += sum(nodes)
            total_time += sum(times)
            rate = sum(nodes) / max(sum(times), 1e-9) / 1e6
            print(f"{preset:<9} {n:>5} {sum(r[2] for r in runs):>4}/{len(runs):<2} "
                  f"{statistics.median(times):>9.4f} {max(times):>9.4f} "
                  f"{int(statistics.median(nodes)):>13,} {rate:>9.2f}")
    print(f"\nall sizes: {total_nodes:,} nodes in {total_time:.2f} CPU s = "
          f"{total_nodes / max(total_time, 1e-9) / 1e6:.2f} M nodes/s")
    print("\nspeed-up over plain minimax (Python, reference engine), 3 cards per seat:")
    print(f"{'preset':<9} {'minimax s':>10} {'solve s':>9} {'ratio':>8} {'minimax nodes':>14} "
          f"{'solve nodes':>12}")
    for preset in a.rules:
        rules = Rules.preset(preset)
        mt = st = 0.0
        mn = sn = 0
        for seed in range(a.minimax):
            state = position(rules, 3, seed)
            t = time.process_time()
            value, nodes = plain_minimax(state)
            mt += time.process_time() - t
            mn += nodes
            t = time.process_time()
            sol = solve(state)
            st += time.process_time() - t
            sn += sol.nodes
            assert sol.value == value
        print(f"{preset:<9} {mt:>10.3f} {st:>9.4f} {mt / max(st, 1e-9):>7.0f}x {mn:>14,} "
              f"{sn:>12,}")


def test_bench_solve_4_cards(benchmark) -> None:  # type: ignore[no-untyped-def]
    state = position(Rules.preset("baibian"), 4, 1)
    benchmark(solve, state)


if __name__ == "__main__":
    main()
