"""Self-play benchmarks: decisions/s and games/s per core for random and greedy
self-play, the speed-up on more threads, peak RSS over 10⁶ games (``simulate_stats``) and
the bytes ``simulate`` keeps a deal — all in one run::

    python benchmarks/bench_sim.py                 # default: baibian, 200k deals, 1 and 2 threads
    python benchmarks/bench_sim.py --rules qianbian --deals 100000 --games 1000000
    python benchmarks/bench_sim.py --threads 1 16 --games 0    # scaling on a 16-core machine

The thread counts are measured in alternated slices (:func:`alternated`): the deals are cut
into ``--slices`` slices, each slice is played at every thread count in turn (the order
rotating from slice to slice), and each thread count keeps its best slice. A shared machine's
other jobs come and go; the best slices are those where the cores were free, and every thread
count had the same chances, so the ratio is stable where one long run per thread count is not
(on a busy 2-core machine a 2-thread run can lose a core for any part of its time).

Targets: ≥ 1,000,000 decisions/s per core (random policy), ≥ 1.8× on 2 threads (2 cores).
Wall-clock figures are reported, never gating. Under pytest (pytest-benchmark) the
``test_bench_*`` functions time a small fixed workload.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

from shuangkou.sim import simulate


def alternated(rules: str, policy: str, deals: int, threads: list[int], slices: int,
               seed: int = 1) -> dict[str, dict[str, float]]:
    """Per thread count, the best slice's rates: ``deals`` split into ``slices`` slices of the
    same seeded run (slice ``k`` is the same deals at every thread count), each played at
    every thread count in turn, the first count rotating so none always runs first."""
    size = max(deals // slices, 1)
    for t in threads:  # warm up: the kernel's tables, the threads' first start
        simulate(min(size, 2000), rules, policy, threads=t, seed=seed + 1)
    best: dict[int, dict[str, float]] = {}
    for k in range(slices):
        for j in range(len(threads)):
            t = threads[(k + j) % len(threads)]
            t0 = time.perf_counter()
            res = simulate(size, rules, policy, threads=t, seed=seed, start=k * size)
            dt = time.perf_counter() - t0
            dec = float(res.decisions.sum())
            if t not in best or size / dt > best[t]["games_per_s"]:
                best[t] = {"threads": t, "deals": size, "seconds": dt,
                           "games_per_s": size / dt, "decisions_per_s": dec / dt,
                           "decisions_per_deal": dec / size}
    return {f"{t} threads": best[t] for t in threads}


_RSS_CHILD = """
import resource, sys
from shuangkou.sim import simulate_stats
n = int(sys.argv[1])
s = simulate_stats(n, sys.argv[2], "random", threads=int(sys.argv[3]), seed=5, chunk=50_000)
assert s.n == n
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def result_bytes_per_deal(rules: str) -> float:
    """The memory ``simulate`` keeps a deal: its result's arrays over 1,000 deals."""
    res = simulate(1000, rules, "random", seed=0)
    return sum(a.nbytes for a in res.arrays.values()) / len(res)


def peak_rss_kib(games: int, rules: str, threads: int) -> int:
    out = subprocess.run([sys.executable, "-c", _RSS_CHILD, str(games), rules, str(threads)],
                         check=True, capture_output=True, text=True)
    return int(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rules", default="baibian")
    ap.add_argument("--deals", type=int, default=200_000, help="deals a thread count plays")
    ap.add_argument("--threads", nargs="+", type=int, default=[1, 2],
                    help="thread counts, the first the baseline of the speed-ups")
    ap.add_argument("--slices", type=int, default=10, help="alternated slices of the deals")
    ap.add_argument("--games", type=int, default=1_000_000,
                    help="games for the RSS check (0: none)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    report: dict[str, object] = {"rules": args.rules, "cpus": os.cpu_count(),
                                 "slices": args.slices, "load_before": os.getloadavg()}
    base = f"{args.threads[0]} threads"
    for policy in ("random", "greedy"):
        rows = alternated(args.rules, policy, args.deals, args.threads, args.slices)
        report[policy] = {**rows, "speedup": {
            k: v["games_per_s"] / rows[base]["games_per_s"] for k, v in rows.items()}}
    if args.games:
        small = max(args.games // 10, 1)
        report["peak_rss_kib"] = {f"{small} games": peak_rss_kib(small, args.rules, 2),
                                  f"{args.games} games": peak_rss_kib(args.games, args.rules, 2)}
    report["result_bytes_per_deal"] = result_bytes_per_deal(args.rules)
    report["load_after"] = os.getloadavg()
    report["self_maxrss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"rules {args.rules}, {args.deals} deals in {args.slices} alternated slices, best "
          f"slice of each thread count; {os.cpu_count()} CPUs, load {report['load_before']}")
    for policy in ("random", "greedy"):
        r = report[policy]
        assert isinstance(r, dict)
        for k in (f"{t} threads" for t in args.threads):
            m = r[k]
            print(f"{policy:<7} {k:<10} {m['games_per_s']:>10,.0f} games/s  "
                  f"{m['decisions_per_s']:>12,.0f} decisions/s  "
                  f"({m['decisions_per_deal']:.1f} decisions/deal)  "
                  f"{r['speedup'][k]:.2f}x {base}")
    if args.games:
        for k, v in report["peak_rss_kib"].items():  # type: ignore[union-attr]
            print(f"peak RSS, {k}: {v / 1024:.1f} MiB")
    print(f"simulate keeps {report['result_bytes_per_deal']:,.0f} bytes of results a deal")
    print(f"load after: {report['load_after']}")
    return 0


def test_bench_random_selfplay(benchmark) -> None:  # type: ignore[no-untyped-def]
    benchmark(simulate, 2000, "baibian", "random", seed=1)


def test_bench_greedy_selfplay(benchmark) -> None:  # type: ignore[no-untyped-def]
    benchmark(simulate, 2000, "baibian", "greedy", seed=1)


if __name__ == "__main__":
    sys.exit(main())
