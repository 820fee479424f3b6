"""Game-engine benchmarks (pytest-benchmark; reported, never gating — DESIGN.md §5/§6).

* random self-play through the Python API (``Game.legal_plays`` + ``Game.play``/``pass_``):
  whole deals per second, per preset;
* ``Game.copy()`` and ``Game.undo()`` on a mid-deal position, the two primitives of a search;
* ``Game.play(index)`` + ``undo()`` (target ≤ 1.5 µs), a random loop through ``Game`` by index,
  and ``simulate`` with Python policies (a cheap one and the random twin) beside the kernel's.

Run ``pytest benchmarks/bench_game.py --benchmark-only`` or ``python benchmarks/bench_game.py``
for a plain summary.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

import pytest

from shuangkou import Rules
from shuangkou.game import Game
from shuangkou.sim import random_policy, simulate

PRESETS = ("classic", "baibian", "jj", "qianbian")


def random_game(rules: Rules, seed: int) -> Game:
    """One deal with a uniformly random legal policy (pass counted as one more option)."""
    g = Game(rules, seed=seed)
    rnd = random.Random(seed)
    while not g.is_over:
        plays = g.legal_plays()
        n = len(plays) + (g.table is not None)
        i = rnd.randrange(n)
        if i == len(plays):
            g.pass_()
        else:
            g.play(plays[i])
    return g


def random_game_by_index(rules: Rules, seed: int) -> Game:
    """The same loop, choosing by index into ``legal_plays()`` (no Play handed back)."""
    g = Game(rules, seed=seed)
    rnd = random.Random(seed)
    while not g.is_over:
        n = len(g.legal_plays()) + (g.table is not None)
        i = rnd.randrange(n)
        if i == n - 1 and g.table is not None:
            g.pass_()
        else:
            g.play(i)
    return g


def first_play(view: object, plays: Sequence[object], rng: object) -> object:
    """A cheap Python policy: the first legal play, pass when there is none."""
    return plays[0] if len(plays) else None


def midgame(rules: Rules, seed: int = 5, steps: int = 40) -> Game:
    g = Game(rules, seed=seed)
    rnd = random.Random(seed)
    for _ in range(steps):
        if g.is_over:
            break
        plays = g.legal_plays()
        if g.table is not None and (not plays or rnd.random() < 0.5):
            g.pass_()
        else:
            g.play(rnd.choice(plays))
    return g


@pytest.mark.parametrize("preset", PRESETS)
def test_selfplay_game(benchmark, preset: str) -> None:  # type: ignore[no-untyped-def]
    rules = Rules.preset(preset)
    seeds = iter(range(10**9))
    g = benchmark(lambda: random_game(rules, next(seeds)))
    assert g.is_over


@pytest.mark.parametrize("preset", ["baibian", "qianbian"])
def test_copy(benchmark, preset: str) -> None:  # type: ignore[no-untyped-def]
    g = midgame(Rules.preset(preset))
    c = benchmark(g.copy)
    assert c == g


UNDO_BATCH = 40


@pytest.mark.parametrize("preset", ["baibian", "qianbian"])
def test_undo(benchmark, preset: str) -> None:  # type: ignore[no-untyped-def]
    """UNDO_BATCH undos per round on a fresh copy made outside the timer; divide by the batch."""
    g = midgame(Rules.preset(preset), steps=UNDO_BATCH)

    def undo_all(c: Game) -> None:
        for _ in range(UNDO_BATCH):
            c.undo()

    benchmark.pedantic(undo_all, setup=lambda: ((g.copy(),), {}), rounds=300)
    benchmark.extra_info["undos_per_round"] = UNDO_BATCH


@pytest.mark.parametrize("preset", ["baibian", "qianbian"])
def test_play_index_undo(benchmark, preset: str) -> None:  # type: ignore[no-untyped-def]
    g = midgame(Rules.preset(preset))
    n = len(g.legal_plays())
    k = iter(range(10**9))

    def play_undo() -> None:
        g.play(next(k) % n)
        g.undo()

    benchmark(play_undo)


@pytest.mark.parametrize("policy", [first_play, random_policy], ids=["first", "random_twin"])
def test_simulate_python_policy(benchmark, policy) -> None:  # type: ignore[no-untyped-def]
    seeds = iter(range(10**9))
    res = benchmark(lambda: simulate(20, "baibian", policy, seed=next(seeds)))
    assert len(res) == 20


def game_rows(seconds: float = 2.0) -> None:
    """The Game facade and Python-policy rows (issue #7 targets)."""
    for preset in ("baibian", "qianbian"):
        g = midgame(Rules.preset(preset))
        n = len(g.legal_plays())
        k = 20000
        t0 = time.perf_counter()
        for i in range(k):
            g.play(i % n)
            g.undo()
        print(f"{preset:9s} Game.play(index)+undo: {(time.perf_counter() - t0) / k * 1e6:.2f} µs")
    for preset in PRESETS:
        rules = Rules.preset(preset)
        n, decisions, t0 = 0, 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            decisions += len(random_game_by_index(rules, n).actions)
            n += 1
        dt = time.perf_counter() - t0
        print(f"{preset:9s} random loop through Game by index: {decisions / dt:9.0f} decisions/s")
    rates = {}
    for name, policy in (("kernel random", "random"), ("Python first_play", first_play),
                         ("Python random_policy", random_policy)):
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            n += len(simulate(100 if isinstance(policy, str) else 10, "baibian", policy,
                              seed=n))
        rates[name] = n / (time.perf_counter() - t0)
    for name, rate in rates.items():
        print(f"baibian   simulate {name:21s}: {rate:9.0f} games/s "
              f"({rate / 240:6.1f}x the 240 games/s of issue #7)")


def main() -> None:
    for preset in PRESETS:
        rules = Rules.preset(preset)
        random_game(rules, 0)
        n, decisions, t0 = 0, 0, time.perf_counter()
        while time.perf_counter() - t0 < 3.0:
            decisions += len(random_game(rules, n).actions)
            n += 1
        dt = time.perf_counter() - t0
        print(f"{preset:9s} random self-play: {n / dt:7.1f} games/s, "
              f"{decisions / dt:9.0f} decisions/s ({decisions / n:.0f} actions/game)")
    for preset in ("baibian", "qianbian"):
        g = midgame(Rules.preset(preset))
        k = 20000
        t0 = time.perf_counter()
        for _ in range(k):
            g.copy()
        copy_us = (time.perf_counter() - t0) / k * 1e6
        base = midgame(Rules.preset(preset), steps=UNDO_BATCH)
        copies = [base.copy() for _ in range(500)]
        t0 = time.perf_counter()
        for c in copies:
            for _ in range(UNDO_BATCH):
                c.undo()
        undo_us = (time.perf_counter() - t0) / (500 * UNDO_BATCH) * 1e6
        # One play + undo through the API (validation included) for scale.
        g = midgame(Rules.preset(preset))
        plays = g.legal_plays()
        t0 = time.perf_counter()
        for i in range(k // 10):
            g.play(plays[i % len(plays)])
            g.undo()
        play_us = (time.perf_counter() - t0) / (k // 10) * 1e6
        print(f"{preset:9s} copy: {copy_us:.2f} µs  undo: {undo_us:.2f} µs  "
              f"play(Play)+undo: {play_us:.1f} µs")


if __name__ == "__main__":
    main()
    game_rows()
