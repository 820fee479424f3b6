"""Self-play benchmarks: decisions/s and games/s per core for random and greedy
self-play, the speed-up on 2 threads, and peak RSS over 10⁶ games — all in one run::

    python benchmarks/bench_sim.py                 # default: baibian, 200k deals per point
    python benchmarks/bench_sim.py --rules qianbian --deals 100000 --games 1000000

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


def measure(rules: str, policy: str, deals: int, threads: int, seed: int = 1) -> dict[str, float]:
    simulate(min(deals, 2000), rules, policy, threads=threads, seed=seed + 1)  # warm up
    t0 = time.perf_counter()
    res = simulate(deals, rules, policy, threads=threads, seed=seed)
    dt = time.perf_counter() - t0
    dec = float(res.decisions.sum())
    return {"threads": threads, "deals": deals, "seconds": dt, "games_per_s": deals / dt,
            "decisions_per_s": dec / dt, "decisions_per_deal": dec / deals}


_RSS_CHILD = """
import resource, sys
from shuangkou.sim import simulate_stats
n = int(sys.argv[1])
s = simulate_stats(n, sys.argv[2], "random", threads=int(sys.argv[3]), seed=5, chunk=50_000)
assert s.n == n
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def peak_rss_kib(games: int, rules: str, threads: int) -> int:
    out = subprocess.run([sys.executable, "-c", _RSS_CHILD, str(games), rules, str(threads)],
                         check=True, capture_output=True, text=True)
    return int(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rules", default="baibian")
    ap.add_argument("--deals", type=int, default=200_000)
    ap.add_argument("--games", type=int, default=1_000_000, help="games for the RSS check")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    report: dict[str, object] = {"rules": args.rules, "cpus": os.cpu_count(),
                                 "load_before": os.getloadavg()}
    for policy in ("random", "greedy"):
        one = measure(args.rules, policy, args.deals, 1)
        two = measure(args.rules, policy, args.deals, 2)
        report[policy] = {"1 thread": one, "2 threads": two,
                          "speedup_2_threads": two["games_per_s"] / one["games_per_s"]}
    if args.games:
        small = max(args.games // 10, 1)
        report["peak_rss_kib"] = {f"{small} games": peak_rss_kib(small, args.rules, 2),
                                  f"{args.games} games": peak_rss_kib(args.games, args.rules, 2)}
    report["load_after"] = os.getloadavg()
    report["self_maxrss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"rules {args.rules}, {args.deals} deals per point, {os.cpu_count()} CPUs, "
          f"load {report['load_before']}")
    for policy in ("random", "greedy"):
        r = report[policy]
        assert isinstance(r, dict)
        for k in ("1 thread", "2 threads"):
            m = r[k]
            print(f"{policy:<7} {k:<10} {m['games_per_s']:>10,.0f} games/s  "
                  f"{m['decisions_per_s']:>12,.0f} decisions/s  "
                  f"({m['decisions_per_deal']:.1f} decisions/deal)")
        print(f"{policy:<7} speed-up on 2 threads: {r['speedup_2_threads']:.2f}x")
    if args.games:
        for k, v in report["peak_rss_kib"].items():  # type: ignore[union-attr]
            print(f"peak RSS, {k}: {v / 1024:.1f} MiB")
    print(f"load after: {report['load_after']}")
    return 0


def test_bench_random_selfplay(benchmark) -> None:  # type: ignore[no-untyped-def]
    benchmark(simulate, 2000, "baibian", "random", seed=1)


def test_bench_greedy_selfplay(benchmark) -> None:  # type: ignore[no-untyped-def]
    benchmark(simulate, 2000, "baibian", "greedy", seed=1)


if __name__ == "__main__":
    sys.exit(main())
