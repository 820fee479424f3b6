"""Kernel benchmarks: lead and answer enumeration on seeded 27-card deals, the
Python ``legal_plays`` API, and the oracle on the same hands.

    python -m pytest benchmarks/bench_kernel.py --benchmark-only
    python benchmarks/bench_kernel.py          # a plain summary table
    python benchmarks/bench_kernel.py --against <other checkout>/src   # this build vs another

``floor ns`` is the cost of only storing as many 12-byte records as the kernel generates
(``×floor``: the kernel's ns per play over it). Both modes measure the two the same way
(:func:`lead_and_floor`): alternated slices, the lead enumeration then the stores, best of each
over ``ROUNDS``, so a busy machine's preemptions fall out of both and the ratio is taken on one
footing (the plain table once divided a mean of 5 by a best of 5). ``api ns/pl`` is
``legal_plays`` (Play objects) per play. The ratio is the machine's too: the floor is a
bandwidth-bound fill, the kernel branchy code, so another CPU can order the presets otherwise.

``--against`` compares the kernel of this checkout with another built one (``python setup.py
build_ext --inplace`` there) on the same hands: lead and answer enumeration inside
``generate_many``, each build in its own subprocess, the two alternating for several rounds
(best of each), beside the store-only floor, so the ratios come from one run.

Wall-clock figures are reported, never gating. ``extra_info`` of each benchmark carries the
number of plays, so ns per generated play = time / plays.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np
import pytest

from deals import deals
from instructions import SMALL
from shuangkou import Hand, Rules, legal_plays
from shuangkou import _core as core
from shuangkou import _reference as ref

PRESETS = ("classic", "baibian", "jj", "qianbian")
N_HANDS = 20 if SMALL else 500  # SK_SMOKE=1: a check that the table prints
N_REF_HANDS = 2 if SMALL else 20
TABLES = {  # a mid plain play of each kind, plus a bomb
    "single": "9",
    "pair": "9 9",
    "triple": "9 9 9",
    "straight": "7 8 9 10 J",
    "pair_chain": "8 8 9 9 10 10",
    "triple_chain": "8 8 8 9 9 9 10 10 10",
    "bomb": "9 9 9 9 9",
}
CAP = 1 << 16
WORDS = np.zeros(CAP, np.uint64)
TAGS = np.zeros(CAP, np.uint32)


HANDS = deals(N_HANDS)
HANDS_ARRAY = np.array(HANDS, np.uint64)


def table_tag(name: str, flags: int) -> int:
    return core.classify(Hand(TABLES[name]).packed, flags)[0]


def per_call_ns(fn: Callable[[int], object], hands: list[int], repeat: int = 7) -> list[float]:
    """Best-of-``repeat`` wall time of ``fn(hand)`` for each hand, in ns."""
    out = []
    clock = time.perf_counter_ns
    for h in hands:
        best = float("inf")
        for _ in range(repeat):
            t0 = clock()
            fn(h)
            best = min(best, clock() - t0)
        out.append(best)
    return out


# -- pytest-benchmark ---------------------------------------------------------------------------
def record_mean_ns(benchmark, name: str, per: int) -> None:  # type: ignore[no-untyped-def]
    """``extra_info[name]`` = mean round time in ns / ``per`` (absent under --benchmark-disable,
    which measures nothing)."""
    if benchmark.stats is not None:
        benchmark.extra_info[name] = benchmark.stats.stats.mean * 1e9 / per


@pytest.mark.parametrize("preset", PRESETS)
def test_kernel_lead(benchmark, preset):
    """Lead enumeration, wilds="all", into a buffer: one round = every hand once."""
    flags = Rules.preset(preset).flags

    def run() -> int:
        return sum(core.generate_into(h, flags, 0, False, WORDS, TAGS) for h in HANDS)

    plays = run()
    benchmark.extra_info.update(hands=len(HANDS), plays=plays)
    benchmark(run)
    record_mean_ns(benchmark, "ns_per_play", plays)


@pytest.mark.parametrize("preset", PRESETS)
def test_kernel_lead_no_python(benchmark, preset):
    """Lead enumeration with the loop inside the kernel (generate_many): kernel time only."""
    flags = Rules.preset(preset).flags

    def run() -> int:
        return core.generate_many(HANDS_ARRAY, flags, 0, False, WORDS, TAGS)

    plays = run()
    benchmark.extra_info.update(hands=len(HANDS), plays=plays)
    benchmark(run)
    record_mean_ns(benchmark, "ns_per_play", plays)
    record_mean_ns(benchmark, "ns_per_hand", len(HANDS))


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("preset", PRESETS)
def test_kernel_answer(benchmark, preset, table):
    flags = Rules.preset(preset).flags
    tag = table_tag(table, flags)

    def run() -> int:
        return core.generate_many(HANDS_ARRAY, flags, tag, False, WORDS, TAGS)

    plays = run()
    benchmark.extra_info.update(hands=len(HANDS), plays=plays)
    benchmark(run)
    record_mean_ns(benchmark, "ns_per_hand", len(HANDS))


@pytest.mark.parametrize("preset", PRESETS)
def test_api_legal_plays(benchmark, preset):
    rules = Rules.preset(preset)
    hands = [Hand.from_packed(h) for h in HANDS[:100]]

    def run() -> int:
        return sum(len(legal_plays(h, rules)) for h in hands)

    benchmark.extra_info.update(hands=len(hands), plays=run())
    benchmark(run)


@pytest.mark.parametrize("preset", PRESETS)
def test_reference_lead(benchmark, preset):
    flags = Rules.preset(preset).flags
    hands = HANDS[:N_REF_HANDS]

    def run() -> int:
        ref.readings.cache_clear()  # no help from earlier rounds
        return sum(len(ref.generate(h, flags, 0, False)[0]) for h in hands)

    benchmark.extra_info.update(hands=len(hands), plays=run())
    benchmark.pedantic(run, rounds=3, iterations=1)


# -- plain summary ------------------------------------------------------------------------------
def store_floor_ns(plays: int, repeat: int = 5) -> float:
    """ns per record of just writing ``plays`` (cards word, tag) records, the floor under any
    generator: numpy fills of the two buffers, best of ``repeat``."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter_ns()
        for start in range(0, plays, CAP):
            n = min(CAP, plays - start)
            WORDS[:n] = 0x1234
            TAGS[:n] = 0x5678
        best = min(best, time.perf_counter_ns() - t0)
    return best / plays


ROUNDS = 2 if SMALL else 9
"""Alternated slices of :func:`lead_and_floor` (each a full pass over the hands)."""


def lead_and_floor(flags: int, rounds: int = ROUNDS) -> tuple[float, float, int]:
    """``(kernel ns per play, floor ns per record, plays)`` of the lead enumeration of every
    hand (``generate_many``): the kernel pass and the store-only pass alternate, ``rounds``
    times, and each keeps its best."""
    plays = core.generate_many(HANDS_ARRAY, flags, 0, False, WORDS, TAGS)
    kernel = floor = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter_ns()
        core.generate_many(HANDS_ARRAY, flags, 0, False, WORDS, TAGS)
        kernel = min(kernel, time.perf_counter_ns() - t0)
        floor = min(floor, store_floor_ns(plays, 1) * plays)
    return kernel / plays, floor / plays, plays


def summary() -> None:
    print(f"{'preset':<9} {'plays/hand':>10} {'ns/play':>8} {'floor ns':>8} {'×floor':>6} "
          f"{'lead µs':>8} {'call µs':>8} {'answer ns':>9} {'api µs':>8} {'api ns/pl':>9} "
          f"{'ref µs':>9} {'ref/api':>8} {'ref/kern':>8}")
    for preset in PRESETS:
        flags = Rules.preset(preset).flags
        ns_play, floor, plays = lead_and_floor(flags)

        def kernel_times(tag: int, flags: int = flags) -> list[float]:
            """Per hand, kernel only: the hand repeated 32 times in one generate_many."""
            out = []
            for h in HANDS:
                batch = np.full(32, h, np.uint64)
                best = float("inf")
                for _ in range(3):
                    t0 = time.perf_counter_ns()
                    core.generate_many(batch, flags, tag, False, WORDS, TAGS)
                    best = min(best, time.perf_counter_ns() - t0)
                out.append(best / 32)
            return out

        lead = kernel_times(0)
        answers = [t for name in TABLES for t in kernel_times(table_tag(name, flags))]
        calls = per_call_ns(
            lambda h, f=flags: core.generate_into(h, f, 0, False, WORDS, TAGS), HANDS)
        rules = Rules.preset(preset)
        api = per_call_ns(
            lambda h, r=rules: legal_plays(Hand.from_packed(h), r), HANDS[:100], 3)

        def oracle(h: int, flags: int = flags) -> None:
            ref.readings.cache_clear()
            ref.generate(h, flags, 0, False)

        ref_t = statistics.median(per_call_ns(oracle, HANDS[:N_REF_HANDS], 1))
        api_plays = sum(core.count(h, flags, 0, False) for h in HANDS[:100])
        print(f"{preset:<9} {plays / len(HANDS):>10.1f} {ns_play:>8.2f} "
              f"{floor:>8.2f} {ns_play / floor:>6.1f} "
              f"{statistics.median(lead) / 1e3:>8.2f} {statistics.median(calls) / 1e3:>8.2f} "
              f"{statistics.median(answers):>9.0f} {statistics.median(api) / 1e3:>8.1f} "
              f"{sum(api) / api_plays:>9.1f} "
              f"{ref_t / 1e3:>9.0f} {ref_t / statistics.median(api[:N_REF_HANDS]):>8.0f} "
              f"{ref_t / statistics.median(lead[:N_REF_HANDS]):>8.0f}")


def kernel_ns() -> dict[str, dict[str, float]]:
    """Per preset: ns per generated play of the lead and the store-only floor per record
    (:func:`lead_and_floor`), ns per hand of an answer (the mean over the tables of
    ``TABLES``, best of 5), kernel only (``generate_many`` over every hand)."""
    out = {}
    for preset in PRESETS:
        flags = Rules.preset(preset).flags
        lead, floor, lead_plays = lead_and_floor(flags)
        total = 0.0
        plays = 0
        for tag in [table_tag(t, flags) for t in TABLES]:
            plays += core.generate_many(HANDS_ARRAY, flags, tag, False, WORDS, TAGS)
            best = float("inf")
            for _ in range(5):
                t0 = time.perf_counter_ns()
                core.generate_many(HANDS_ARRAY, flags, tag, False, WORDS, TAGS)
                best = min(best, time.perf_counter_ns() - t0)
            total += best
        out[preset] = {"lead": lead, "floor": floor, "lead_plays": lead_plays,
                       "answer": total / len(TABLES) / len(HANDS), "answer_plays": plays}
    return out


def compare(other_src: str, rounds: int = 1 if SMALL else 5) -> None:
    """This build (the shuangkou this interpreter imports: the checkout's ``src`` in an
    editable install) vs the one in ``other_src``: alternating subprocesses, best per build."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(core.__file__)))
    best: dict[str, dict[str, dict[str, float]]] = {}
    for _ in range(rounds):
        for label, src in (("this", here), ("other", other_src)):
            env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
            run = subprocess.run([sys.executable, __file__, "--measure"], env=env,
                                 check=True, capture_output=True, text=True)
            got = json.loads(run.stdout)
            old = best.setdefault(label, got)
            for preset, row in got.items():
                for key, value in row.items():
                    old[preset][key] = min(old[preset][key], value)
    this, other = best["this"], best["other"]
    print(f"{'preset':<9} {'lead ns/play':>12} {'floor ns':>8} {'×floor':>6} {'other ns':>8} "
          f"{'speed-up':>8} {'answer ns/hand':>14} {'other ns':>8} {'speed-up':>8}")
    for preset in PRESETS:
        a, b = this[preset], other[preset]
        if a["lead_plays"] != b["lead_plays"] or a["answer_plays"] != b["answer_plays"]:
            print(f"{preset}: the builds generate different plays "
                  f"({a['lead_plays']:.0f} vs {b['lead_plays']:.0f} on lead)")
        floor = a["floor"]  # measured beside this build's lead, in its subprocesses
        print(f"{preset:<9} {a['lead']:>12.2f} {floor:>8.2f} {a['lead'] / floor:>6.1f} "
              f"{b['lead']:>8.2f} {b['lead'] / a['lead']:>7.2f}× "
              f"{a['answer']:>14.0f} {b['answer']:>8.0f} {b['answer'] / a['answer']:>7.2f}×")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--measure"]:
        print(json.dumps(kernel_ns()))
    elif sys.argv[1:2] == ["--against"] and len(sys.argv) == 3:
        compare(sys.argv[2])
    else:
        summary()
