"""Game-engine benchmarks (pytest-benchmark; reported, never gating).

Through :class:`~shuangkou.State` (the C game state, ``_state.pxd``):

* a random-policy loop in Python (``n = len(st.legal())``, then ``st.play(i)`` or
  ``st.pass_()``): decisions per second, per preset;
* ``State.play(index)`` + ``undo()`` and ``State.copy()`` on a mid-deal position;
* the leaf rate of a plain depth-limited make/unmake search (perft: every play and pass to a
  fixed depth) in Python through ``State``, and the same search in C on the State's struct
  (``State.perft``).

Through :class:`~shuangkou.game.Game` (physical cards, validation, log):

* random self-play (``Game.legal_plays`` + ``Game.play``/``pass_``): games and decisions per
  second, per preset; ``Game.copy()`` and ``Game.undo()``;
* ``Game.play(index)`` + ``undo()`` (issue #7 target ≤ 1.5 µs), the random loop choosing by
  index, and ``simulate`` with Python policies (a cheap one and the random twin, each seat
  seeing its view) beside the kernel's own policy (:func:`game_rows`).

Run ``pytest benchmarks/bench_game.py --benchmark-only`` or ``python benchmarks/bench_game.py``
for a plain table (all rows of one run, so their ratios hold on a loaded machine; the table
times by CPU time, and the loops by the wall clock too). It ends with the README's table, 百变,
built from the CPU-time figures of the same run: copy it whole (mixing a wall-clock figure into
a CPU-time row, or rows of two runs, made a 0.7× "regression" of the ``Game`` loop appear in
one round's README that no instruction count shows).

``python benchmarks/bench_game.py --instructions`` prints instead the exact instructions per
decision of the 百变 random loops through ``State`` and ``Game`` (both drawing with
``SplitMix64``), and of the ``Game`` loop written the obvious way (``random.Random``,
``g.table``, :func:`obvious_game_decisions`) — ``instructions.py``, callgrind, a few minutes:
the figures to compare between builds (two runs of one build print the same).
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

import instructions  # benchmarks/: this script's folder is on sys.path
from shuangkou import Rules, State
from shuangkou.game import Game
from shuangkou.rng import SplitMix64
from shuangkou.sim import random_policy, simulate

PRESETS = ("classic", "baibian", "jj", "qianbian")
UNDO_BATCH = 40
PERFT_DEPTH = 3


# -- State -------------------------------------------------------------------------------------
def random_state_game(rules: Rules, seed: int) -> int:
    """One deal through State with a uniformly random policy (pass one more option when
    answering); returns the decisions made."""
    st = State.deal(rules, seed)
    rng = SplitMix64(seed)
    n = 0
    while not st.is_over:
        k = len(st.legal())
        i = rng.bounded(k + st.can_pass())
        if i == k:
            st.pass_()
        else:
            st.play(i)
        n += 1
    return n


def state_midgame(rules: Rules, seed: int = 5, steps: int = 40) -> State:
    st = State.deal(rules, seed)
    rng = SplitMix64(seed)
    for _ in range(steps):
        if st.is_over:
            break
        k = len(st.legal())
        i = rng.bounded(k + st.can_pass())
        st.pass_() if i == k else st.play(i)
    return st


def perft(st: State, depth: int) -> int:
    """Leaves ``depth`` actions below ``st``: make, recurse, unmake."""
    if depth == 0 or st.is_over:
        return 1
    n = len(st.legal())
    total = 0
    for i in range(n):
        st.play(i)
        total += perft(st, depth - 1)
        st.undo()
    if st.can_pass():
        st.pass_()
        total += perft(st, depth - 1)
        st.undo()
    return total


def perft_position(rules: Rules) -> State:
    """The start of play of deal 5 (a lead of 27 cards, then the answers)."""
    return State.deal(rules, 5)


@pytest.mark.parametrize("preset", PRESETS)
def test_state_random_loop(benchmark, preset: str) -> None:  # type: ignore[no-untyped-def]
    rules = Rules.preset(preset)
    seeds = iter(range(10**9))
    n = benchmark(lambda: random_state_game(rules, next(seeds)))
    assert n > 0


@pytest.mark.parametrize("preset", ["baibian", "qianbian"])
def test_state_play_undo(benchmark, preset: str) -> None:  # type: ignore[no-untyped-def]
    st = state_midgame(Rules.preset(preset))
    while not len(st.legal()):
        st.pass_()
    n = len(st.legal())

    def play_undo() -> None:
        for i in range(n):
            st.play(i)
            st.undo()

    benchmark(play_undo)
    benchmark.extra_info["plays_per_round"] = n


@pytest.mark.parametrize("preset", ["baibian", "qianbian"])
def test_state_copy(benchmark, preset: str) -> None:  # type: ignore[no-untyped-def]
    st = state_midgame(Rules.preset(preset))
    assert benchmark(st.copy) == st


@pytest.mark.parametrize("preset", ["baibian", "qianbian"])
def test_state_perft(benchmark, preset: str) -> None:  # type: ignore[no-untyped-def]
    st = perft_position(Rules.preset(preset))
    assert benchmark(lambda: perft(st, PERFT_DEPTH)) == st.perft(PERFT_DEPTH)


# -- Game --------------------------------------------------------------------------------------
def random_game(rules: Rules, seed: int) -> Game:
    """One deal with a uniformly random legal policy (pass counted as one more option)."""
    g = Game(rules, seed=seed)
    random_loop(g, seed)
    return g


def random_game_decisions(rules: Rules, seed: int) -> int:
    """:func:`random_game`, returning the decisions made (the history is not built)."""
    return random_loop(Game(rules, seed=seed), seed)


def random_loop(g: Game, seed: int) -> int:
    """The loop of :func:`random_state_game` through Game, with the same generator so that the
    two compare (the plays as objects, ``play`` given the chosen ``Play``): decisions made."""
    rng = SplitMix64(seed)
    n = 0
    while not g.is_over:
        plays = g.legal_plays()
        k = len(plays)
        i = rng.bounded(k + g.can_pass())
        if i == k:
            g.pass_()
        else:
            g.play(plays[i])
        n += 1
    return n


def obvious_game_decisions(rules: Rules, seed: int) -> int:
    """The random loop as a newcomer writes it — ``random.Random``, ``g.table``,
    ``g.legal_plays()``, ``g.play(p)`` — uniform over the legal plays and, when answering,
    pass (README and docs/performance.md show it): decisions made."""
    rng = random.Random(seed)
    g = Game(rules, seed)
    n = 0
    while not g.is_over:
        plays = g.legal_plays()
        i = rng.randrange(len(plays) + (g.table is not None))
        if i == len(plays):
            g.pass_()
        else:
            g.play(plays[i])
        n += 1
    return n


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


def random_game_by_index(rules: Rules, seed: int) -> int:
    """The same loop choosing by index into ``legal_plays()``; returns the decisions made."""
    g = Game(rules, seed=seed)
    rnd = random.Random(seed)
    while not g.is_over:
        n = len(g.legal_plays())
        i = rnd.randrange(n + (g.table is not None))
        if i == n:
            g.pass_()
        else:
            g.play(i)
    return len(g.actions)


def first_play(view: object, plays: Sequence[object], rng: object) -> object:
    """A cheap Python policy: the first legal play, pass when there is none."""
    return plays[0] if len(plays) else None


@pytest.mark.parametrize("preset", ["baibian", "qianbian"])
def test_game_play_index_undo(benchmark, preset: str) -> None:  # type: ignore[no-untyped-def]
    g = midgame(Rules.preset(preset))
    while not g.legal_plays():
        g.pass_()
    n = len(g.legal_plays())

    def play_undo() -> None:
        for i in range(n):
            g.play(i)
            g.undo()

    benchmark(play_undo)
    benchmark.extra_info["plays_per_round"] = n


@pytest.mark.parametrize("policy", [first_play, random_policy], ids=["first", "random_twin"])
def test_simulate_python_policy(benchmark, policy) -> None:  # type: ignore[no-untyped-def]
    seeds = iter(range(10**9))
    assert len(benchmark(lambda: simulate(20, "baibian", policy, seed=next(seeds)))) == 20


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


@pytest.mark.parametrize("preset", ["baibian", "qianbian"])
def test_undo(benchmark, preset: str) -> None:  # type: ignore[no-untyped-def]
    """UNDO_BATCH undos per round on a fresh copy made outside the timer; divide by the batch."""
    g = midgame(Rules.preset(preset), steps=UNDO_BATCH)

    def undo_all(c: Game) -> None:
        for _ in range(UNDO_BATCH):
            c.undo()

    benchmark.pedantic(undo_all, setup=lambda: ((g.copy(),), {}), rounds=300)
    benchmark.extra_info["undos_per_round"] = UNDO_BATCH


# -- the plain table ---------------------------------------------------------------------------
def per_call(fn: Callable[[], object], calls: int, repeat: int = 5) -> float:
    """Best of ``repeat`` CPU timings of ``fn`` (which makes ``calls`` calls), µs per call."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best / calls * 1e6


def rate(fn: Callable[[int], int],
         seconds: float = 0.05 if instructions.SMALL else 2.0) -> tuple[float, float]:
    """Units per second of ``fn(i)`` (it returns how many units it did), for ``seconds``: by
    the wall clock and by this process's CPU time (a shared machine deschedules us)."""
    fn(0)
    i, units, t0, c0 = 0, 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - t0 < seconds:
        units += fn(i)
        i += 1
    return units / (time.perf_counter() - t0), units / (time.process_time() - c0)


def loop_row(preset: str) -> tuple[float, float]:
    """Prints the row; returns the CPU-time rates ``(State, Game)``."""
    rules = Rules.preset(preset)
    s_wall, s_cpu = rate(lambda i: random_state_game(rules, i))
    g_wall, g_cpu = rate(lambda i: len(random_game(rules, i).actions))
    print(f"{preset:9s} {s_wall:10,.0f} {s_cpu:10,.0f} {g_wall:9,.0f} {g_cpu:9,.0f} "
          f"{s_cpu / g_cpu:5.1f}×")
    return s_cpu, g_cpu


def primitives_row(preset: str) -> tuple[float, float, float, float]:
    """Prints the row; returns µs of ``(State play+undo, State copy, Game play+undo, Game
    copy)``."""
    rules = Rules.preset(preset)
    st = state_midgame(rules)
    while not len(st.legal()):
        st.pass_()
    n = len(st.legal())

    def state_play_undo() -> None:
        for _ in range(200):
            for i in range(n):
                st.play(i)
                st.undo()

    def state_copy() -> None:
        for _ in range(20000):
            st.copy()

    g = midgame(rules)
    while not g.legal_plays():
        g.pass_()
    plays = g.legal_plays()

    def game_play_undo() -> None:
        for p in plays * 20:
            g.play(p)
            g.undo()

    def game_copy() -> None:
        for _ in range(2000):
            g.copy()

    su = per_call(state_play_undo, 200 * n)
    sc = per_call(state_copy, 20000)
    gu = per_call(game_play_undo, 20 * len(plays))
    gc = per_call(game_copy, 2000)
    print(f"{preset:9s} {su:13.3f} µs {sc:8.3f} µs {gu:12.3f} µs {gc:7.3f} µs "
          f"{gu / su:6.0f}× {gc / sc:6.0f}×")
    return su, sc, gu, gc


def perft_row(preset: str) -> tuple[float, float]:
    """Prints the row; returns the leaf rates ``(Python loop, C)``."""
    st = perft_position(Rules.preset(preset))
    t0 = time.process_time()
    leaves = perft(st, PERFT_DEPTH)
    py = time.process_time() - t0
    t0 = time.process_time()
    c_leaves = st.perft(PERFT_DEPTH)
    c = time.process_time() - t0
    assert c_leaves == leaves
    print(f"{preset:9s} {PERFT_DEPTH:>6d} {leaves:>8,d} {leaves / py:>16,.0f} "
          f"{c_leaves / c:>13,.0f} {c_leaves / c / (leaves / py):5.0f}×")
    return leaves / py, c_leaves / c


def game_index_row(preset: str) -> None:
    rules = Rules.preset(preset)
    g = midgame(rules)
    while not g.legal_plays():
        g.pass_()
    plays = g.legal_plays()
    n = len(plays)

    def by_index() -> None:
        for _ in range(200):
            for i in range(n):
                g.play(i)
                g.undo()

    def by_play() -> None:
        for _ in range(200):
            for p in plays:
                g.play(p)
                g.undo()

    _, loop = rate(lambda i: random_game_by_index(rules, i))  # CPU-time rate
    print(f"{preset:9s} {per_call(by_index, 200 * n):15.3f} µs "
          f"{per_call(by_play, 200 * n):13.3f} µs {loop:15,.0f} d/s")


def simulate_row(name: str, policy: object, batch: int) -> None:
    _, games = rate(lambda i: len(simulate(batch, "baibian", policy, seed=i)))  # type: ignore[arg-type]
    print(f"{name:24s} {games:9,.0f} {games / 240:8.1f}×")


def game_rows() -> None:
    """Game.play(index)+undo, the Game loop by index, simulate with Python policies."""
    print(f"{'preset':9s} {'Game play(i)+undo':>18s} {'play(Play)+undo':>16s} "
          f"{'Game loop by index':>19s}")
    for preset in ("baibian", "qianbian"):
        game_index_row(preset)
    print()
    print(f"{'simulate (baibian)':24s} {'games/s':>9s} {'vs 240/s':>9s}")
    simulate_row("kernel 'random'", "random", 200)
    simulate_row("Python first_play", first_play, 20)
    simulate_row("Python random_policy", random_policy, 20)


def main() -> None:
    print("random-policy loops, decisions/s (wall clock, CPU time)")
    print(f"{'preset':9s} {'State wall':>10s} {'State CPU':>10s} {'Game wall':>9s} "
          f"{'Game CPU':>9s} {'ratio':>6s}")
    loops = {preset: loop_row(preset) for preset in PRESETS}
    print()
    print(f"{'preset':9s} {'State play+undo':>16s} {'State copy':>11s} {'Game play+undo':>15s} "
          f"{'Game copy':>10s} {'ratios':>14s}")
    prims = {preset: primitives_row(preset) for preset in ("baibian", "qianbian")}
    print()
    print(f"{'preset':9s} {'perft':>6s} {'leaves':>8s} {'Python leaves/s':>16s} "
          f"{'C leaves/s':>13s} {'ratio':>6s}")
    perfts = {preset: perft_row(preset) for preset in ("baibian", "qianbian")}
    readme_table(loops["baibian"], prims["baibian"], perfts["baibian"])


def readme_table(
    loop: tuple[float, float], prims: tuple[float, float, float, float],
    perfts: tuple[float, float],
) -> None:
    """The README's table, 百变, from the rows above (all CPU-time figures of this run: copy
    it whole, so that its ratios hold)."""
    s_loop, g_loop = loop
    su, sc, gu, gc = prims
    py, c = perfts
    print()
    print("README table (百变, CPU time, this run)")
    print("| | `State` | `Game` | ratio |")
    print("|---|---|---|---|")
    print(f"| random loop, decisions/s (百变) | {s_loop / 1e6:.2f} M | {g_loop / 1e3:.0f} k | "
          f"{s_loop / g_loop:.0f}× |")
    print(f"| `play` + `undo` | {su:.3f} µs | {gu:.2f} µs | {gu / su:.0f}× |")
    print(f"| `copy()` | {sc:.3f} µs | {gc:.3f} µs | {gc / sc:.0f}× |")
    print(f"| perft depth {PERFT_DEPTH}, leaves/s (百变) | {py / 1e6:.1f} M (Python loop) | "
          f"{c / 1e6:.1f} M (C) | {c / py:.0f}× |")


def decisions(loop: Callable[[Rules, int], int]) -> Callable[[int], int]:
    """The 百变 loop over deals ``0..size-1``, returning its decisions (an instruction
    workload)."""
    return lambda size: sum(loop(Rules.preset("baibian"), seed) for seed in range(size))


INSTRUCTION_WORKLOADS = {
    "State random loop (百变)": decisions(random_state_game),
    "Game random loop (百变)": decisions(random_game_decisions),
    "Game obvious loop (百变)": decisions(obvious_game_decisions),
}


if __name__ == "__main__":
    if instructions.count_main(sys.argv[1:], INSTRUCTION_WORKLOADS):
        pass
    elif sys.argv[1:] == ["--instructions"]:
        sys.exit(instructions.report(Path(__file__), {  # deals: ~144 decisions each
            "State random loop (百变)": ("decision", 100, 1100),
            "Game random loop (百变)": ("decision", 20, 120),
            "Game obvious loop (百变)": ("decision", 20, 120)}))
    else:
        main()
        print()
        game_rows()
