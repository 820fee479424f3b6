"""The bots' ladder (docs/bots.md): every pair of bots on duplicate deals, every preset, with
Elo-style ratings; or the target run, ``default`` against greedy.

::

    python benchmarks/bench_bots.py --pairs 2000 --other-pairs 500 --pimc-pairs 200 \
        --json ladder.json
    python benchmarks/bench_bots.py --target --pairs 2000 --json target.json
    python benchmarks/bench_bots.py --against greedy,heuristic,default-2026.12 \
        --bots guarded,default --pairs 500 --json yardsticks.json
    python benchmarks/bench_bots.py --report ladder.json          # the tables again
    python benchmarks/bench_bots.py --instructions    # the learned bot's largest decisions
    python benchmarks/bench_bots.py --slowest --presets qianbian --pairs 1000

Each matchup is :func:`shuangkou.arena.duel` (deals played twice, the teams' seats exchanged,
in worker processes on every core). Results are written to ``--json`` after each matchup and a
rerun with the same file skips the matchups already there, so a long ladder can be stopped and
resumed. ``--pairs`` is for adjacent rungs of the ladder (the matchups that decide its
order), ``--other-pairs`` for the rest, ``--pimc-pairs`` for any with PIMC. ``--against``
plays each of ``--bots`` against each of these yardsticks instead (greedy, the heuristic and
the frozen ``default-2026.12``: the ladder table of docs/bots.md), ``--pairs`` a matchup.
Printed: per
preset, each matchup's margin a deal (95% CI), deals won and lost, the
first-out share and each side's CPU time a decision, then the ratings (greedy = 1500).

``--instructions`` prints the exact instructions (callgrind, ``instructions.py``) of one
learned decision on the largest hands: leading in 千变 with the largest ``"fewest"`` list
known (203 plays) and with the hand of the most legal plays (24,182 in its ``"all"`` list),
that list handed to the bot bounded (``max_plays=240``, the default) and unbounded; then one
``fast`` decision leading with the first hand in classic, 百变, JJ and 千变 (68, 131, 131
and 203 plays; the bombs guard overrides the network in classic and JJ); then one ``default``
decision on the lead of 百变 deal 23 and 千变 deal 1 (27 cards a seat: the searched midgame;
without the 18 ms clock, which valgrind's slowness would trip).

``--slowest`` plays ``--pairs`` duplicate pairs of ``--slowest-bot`` (``default``) against
greedy in this process, times each of its decisions (CPU time), prints the median, 99.9th
percentile and worst, then times the five slowest again (five times each, from their
positions), with what else the process did while each was first timed (involuntary context
switches, system CPU time, garbage collections): a slow decision that is fast again was the
machine's, not the bot's.
"""

from __future__ import annotations

import argparse
import gc
import heapq
import itertools
import json
import os
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import instructions  # benchmarks/: this script's folder is on sys.path
from shuangkou import Hand, Rules, State, bots
from shuangkou.arena import duel, elo
from shuangkou.rng import SplitMix64, deal_seed
from shuangkou.rules import PRESETS

LADDER = ("random", "greedy", "heuristic", "learned", "pimc")
"""The ladder's bots, weakest first (docs/bots.md)."""


def _ms(x: float | None) -> str:
    return "built-in" if x is None else f"{x:.2f}"


def table(rows: list[dict[str, Any]]) -> str:
    """Markdown tables of the matchups and ratings, per preset."""
    out = []
    for preset in dict.fromkeys(r["rules"] for r in rows):
        mine = [r for r in rows if r["rules"] == preset]
        out += [f"### {preset}", "",
                "| A vs B | pairs | A's margin a deal [95% CI] | A won | A lost | A first out "
                "| ms a decision A / B |", "|---|---|---|---|---|---|---|"]
        for r in mine:
            out.append(f"| {r['a']} vs {r['b']} | {r['pairs']:,} | {r['margin']:+.2f} "
                       f"[{r['ci95'][0]:+.2f}, {r['ci95'][1]:+.2f}] | {r['won']:.1%} | "
                       f"{r['lost']:.1%} | {r['first']:.1%} | {_ms(r['ms_a'])} / "
                       f"{_ms(r['ms_b'])} |")
        ratings = elo(mine)
        out += ["", "Ratings (Bradley–Terry on deals won, a tie half; greedy = 1500): "
                + ", ".join(f"{k} {v:.0f}" for k, v in sorted(ratings.items(),
                                                              key=lambda kv: -kv[1])), ""]
    return "\n".join(out)


# the largest learned decisions (docs/bots.md, "The learned bot's time"): 千变, leading
LARGEST_FEWEST = "3 4 5 6 7 7 7 8 8 8 8 9 9 9 9 10 10 10 J J J Q K SJ SJ BJ BJ"  # 203 plays
MOST_PLAYS = "3 3 4 4 5 5 6 6 7 7 8 8 9 9 10 10 J J Q Q K K A SJ SJ BJ BJ"  # 24,182 ("all")


def learned_decisions(hand: str, wilds: str, max_plays: int) -> Callable[[int], int]:
    """A workload: ``size`` learned decisions leading with ``hand`` in 千变."""
    def run(size: int) -> int:
        bot = bots.make("learned", "qianbian", max_plays=max_plays)
        state = State.from_position("qianbian", [Hand.parse(hand), "3", "3", "3"], 0)
        view, plays = state.view(0), state.legal(wilds)
        for _ in range(size):
            bot(view, plays, SplitMix64(1))
        return size
    return run


def fast_decisions(preset: str, hand: str) -> Callable[[int], int]:
    """A workload: ``size`` decisions of ``fast`` (the learned bot under the guards) leading
    with ``hand`` in ``preset``, on its fewest-wilds list (what a table hands it)."""
    def run(size: int) -> int:
        bot = bots.make("fast", preset)
        state = State.from_position(preset, [Hand.parse(hand), "3", "3", "3"], 0)
        view, plays = state.view(0), state.legal("fewest")
        for _ in range(size):
            bot(view, plays, SplitMix64(1))
        return size
    return run


def default_lead(preset: str, deal: int) -> Callable[[int], int]:
    """A workload: ``size`` decisions of ``default`` on the first move of deal ``deal`` (seed
    1): 27 cards a seat, so the searched midgame decides (the exact search starts at 32).
    Without its 18 ms clock (``seconds=None``): under valgrind, ~50 times slower, the clock
    would stop the search early and the count would be of a shorter decision."""
    def run(size: int) -> int:
        bot = bots.make("default", preset, seconds=None)
        state = State.deal(preset, deal_seed(1, deal))
        view, plays = state.view(state.to_act), state.legal(bot.wilds)
        for _ in range(size):
            bot(view, plays, SplitMix64(1))
        return size
    return run


INSTRUCTION_WORKLOADS = {
    "largest fewest list (203)": learned_decisions(LARGEST_FEWEST, "fewest", 240),
    "24,182 plays, bounded": learned_decisions(MOST_PLAYS, "all", 240),
    "24,182 plays, unbounded": learned_decisions(MOST_PLAYS, "all", 10**6),
    # fast on 27-card leads: the bombs guard fires on the first two (classic 68, JJ 131 plays)
    "fast, classic (68)": fast_decisions("classic", LARGEST_FEWEST),
    "fast, baibian (131)": fast_decisions("baibian", LARGEST_FEWEST),
    "fast, jj (131)": fast_decisions("jj", LARGEST_FEWEST),
    "fast, qianbian (203)": fast_decisions("qianbian", LARGEST_FEWEST),
    # default's most plays among the openings of deals 0-59 (its midgame's worst case)
    "default, baibian lead (121)": default_lead("baibian", 23),
    "default, qianbian lead (108)": default_lead("qianbian", 1),
}


def slowest(preset: str, pairs: int, seed: int, name: str = "default") -> None:
    """``--slowest``: ``name``'s decisions against greedy, timed, and its slowest re-timed,
    each with what else the process did while it was first timed: involuntary context
    switches (the machine took the core away), system CPU time, and collections of Python's
    cyclic garbage collector (generation 2: every tracked object scanned)."""
    rules = Rules.preset(preset)
    bot, greedy = bots.make(name, rules), bots.make("greedy", rules)
    rng = SplitMix64(seed)
    times: list[float] = []
    # the five slowest: (ms, decision, position, context switches, system ms, collections)
    slow: list[tuple[float, int, State, int, float, str]] = []
    collections = [0, 0, 0]

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections[info["generation"]] += 1

    gc.callbacks.append(count)
    try:
        for i in range(pairs):
            for team in (0, 1):
                st = State.deal(rules, deal_seed(seed, i))
                while (seat := st.to_act) is not None:
                    plays = st.legal(bot.wilds)
                    if seat % 2 == team:
                        before = st.copy()  # the whole deal so far: PIMC samples its view
                        gcs = list(collections)
                        usage = resource.getrusage(resource.RUSAGE_SELF)
                        t = time.process_time()
                        choice = bot(st.view(seat), plays, rng)
                        times.append(1000 * (time.process_time() - t))
                        after = resource.getrusage(resource.RUSAGE_SELF)
                        ran = "/".join(str(b - a) for a, b in zip(gcs, collections))
                        heapq.heappush(slow, (times[-1], len(times), before,
                                              after.ru_nivcsw - usage.ru_nivcsw,
                                              1000 * (after.ru_stime - usage.ru_stime), ran))
                        if len(slow) > 5:
                            heapq.heappop(slow)
                    else:
                        choice = greedy(st.view(seat), list(plays), rng) if len(plays) else None
                    st.pass_() if choice is None else st.play(choice)
    finally:
        gc.callbacks.remove(count)
    ms = np.array(times)
    print(f"{preset}: {len(ms):,} decisions of {name} ({pairs} pairs against greedy), CPU ms "
          f"median {np.median(ms):.2f}, 99.9th percentile {np.percentile(ms, 99.9):.2f}, "
          f"worst {ms.max():.2f}")
    for took, _, st, switches, system, ran in sorted(slow, key=lambda x: x[0], reverse=True):
        view, plays = st.view(st.to_act), st.legal(bot.wilds)
        again = []
        for _ in range(5):
            t = time.process_time()
            bot(view, plays, rng)
            again.append(1000 * (time.process_time() - t))
        print(f"  {took:6.2f} ms, again {np.median(again):.2f} ms (median of 5), "
              f"{len(plays)} plays; while first timed: {switches} involuntary context "
              f"switches, {system:.2f} ms system CPU, collections by generation {ran}: {st}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presets", default=",".join(PRESETS))
    ap.add_argument("--bots", default=",".join(LADDER), help="the ladder's bots")
    ap.add_argument("--pairs", type=int, default=300, help="deal pairs of adjacent rungs")
    ap.add_argument("--other-pairs", type=int, default=None,
                    help="deal pairs of the other matchups (default: --pairs)")
    ap.add_argument("--pimc-pairs", type=int, default=100, help="deal pairs of pimc matchups")
    ap.add_argument("--target", action="store_true", help="only default vs greedy")
    ap.add_argument("--against", help="yardsticks: each of --bots against each of them")
    ap.add_argument("--slowest", action="store_true",
                    help="time a bot's decisions against greedy, re-time the slowest")
    ap.add_argument("--slowest-bot", default="default", help="the bot --slowest times")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--processes", type=int, default=None)
    ap.add_argument("--json", help="results file: written after each matchup, resumed from")
    ap.add_argument("--report", help="print the tables of a results file and stop")
    a = ap.parse_args()
    if a.report:
        with open(a.report) as f:
            print(table(json.load(f)))
        return
    if a.slowest:
        for preset in a.presets.split(","):
            slowest(preset, a.pairs, a.seed, a.slowest_bot)
        return
    rows: list[dict[str, Any]] = []
    if a.json and os.path.exists(a.json):
        with open(a.json) as f:
            rows = json.load(f)
    done = {(r["a"], r["b"], r["rules"]) for r in rows}
    names = a.bots.split(",")
    if a.against:
        matchups = [(x, y) for x in names for y in a.against.split(",") if x != y]
    else:
        matchups = [("default", "greedy")] if a.target else [
            (x, y) for y, x in itertools.combinations(names, 2)]  # the stronger-listed as A
    for preset in a.presets.split(","):
        for x, y in matchups:
            if (x, y, preset) in done:
                continue
            adjacent = a.target or a.against or abs(names.index(x) - names.index(y)) == 1
            pairs = (a.pairs if a.against else a.pimc_pairs if "pimc" in (x, y)
                     else a.pairs if adjacent
                     else a.other_pairs or a.pairs)
            r = duel(x, y, preset, pairs, seed=a.seed, processes=a.processes, progress=True)
            print(r, flush=True)
            rows.append(r.summary())
            if a.json:
                with open(a.json, "w") as f:
                    json.dump(rows, f, indent=1)
    print(table(rows))


if __name__ == "__main__":
    if instructions.count_main(sys.argv[1:], INSTRUCTION_WORKLOADS):
        pass
    elif sys.argv[1:] == ["--instructions"]:
        sys.exit(instructions.report(Path(__file__), {
            name: ("decision", 2, 6) for name in INSTRUCTION_WORKLOADS}))
    else:
        main()
