"""RL environment benchmarks (docs/rl.md): ``VecEnv.step`` throughput, the PettingZoo env's
steps/s beside a hand-written ``Game`` wrapper, memory per env — all in one run::

    python benchmarks/bench_rl.py                  # baibian, batch 1,024, 1 and 2 threads
    python benchmarks/bench_rl.py --rules qianbian --seconds 5
    python benchmarks/bench_rl.py --instructions   # callgrind: instructions per step, exact

A VecEnv step is one decision of every row (all four seats are the agent's): uniformly random
legal actions chosen in numpy (the time to choose them is included and reported separately),
observations, masks over the action table and the CSR legal plays with card counts and
features all written. Targets:
≥ 1,000,000 env steps/s per core; PettingZoo ≥ 50,000 steps/s. Wall-clock figures are
reported, never gating. Under pytest (pytest-benchmark) the ``test_bench_*`` functions time a
small fixed workload.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import instructions  # benchmarks/: this script's folder is on sys.path
from shuangkou import Rules
from shuangkou import batch as B
from shuangkou.game import Game
from shuangkou.rl import Step, VecEnv, env


def random_actions(out: Step, rng: np.random.Generator) -> np.ndarray:
    """Uniform over each row's legal plays, plus pass (-1) when answering."""
    n = np.diff(out.offsets)
    a = (rng.random(n.shape[0]) * (n + out.can_pass)).astype(np.int64)
    a[a == n] = -1
    return a


def vecenv_rate(rules: str, n: int, threads: int, seconds: float) -> dict[str, float]:
    venv = VecEnv(rules, n, threads=threads)
    rng = np.random.default_rng(0)
    out = venv.reset(1)
    for _ in range(20):  # warm up
        out = venv.step(random_actions(out, rng))
    steps = 0
    choose = plays = 0.0
    t0 = time.perf_counter()
    c0_cpu = time.process_time()
    while time.perf_counter() - t0 < seconds:
        c0 = time.perf_counter()
        a = random_actions(out, rng)
        choose += time.perf_counter() - c0
        out = venv.step(a)
        plays += float(out.offsets[-1])
        steps += 1
    dt = time.perf_counter() - t0
    cpu = time.process_time() - c0_cpu
    mem = venv.memory_bytes / n
    venv.close()
    return {"threads": threads, "batch": n, "steps_per_s": steps * n / dt,
            "kernel_steps_per_s": steps * n / (dt - choose), "choose_share": choose / dt,
            "steps_per_cpu_s": steps * n / cpu,
            "plays_per_step": plays / (steps * n), "bytes_per_env": mem}


def thread_scaling(rules: str, n: int, seconds: float, slice_s: float = 0.2) -> dict[str, float]:
    """1 and 2 threads alternated in short slices for ``seconds`` in all; the best slice's
    wall rate of each (a shared machine's other jobs come and go: the best slices are the
    ones where the cores were free, and both configurations had the same chances)."""
    envs = {t: VecEnv(rules, n, threads=t) for t in (1, 2)}
    outs = {t: e.reset(1) for t, e in envs.items()}
    rng = np.random.default_rng(0)
    best = {1: 0.0, 2: 0.0}
    t_end = time.perf_counter() + seconds
    while time.perf_counter() < t_end:
        for t, e in envs.items():
            out, steps, t0 = outs[t], 0, time.perf_counter()
            while time.perf_counter() - t0 < slice_s:
                out = e.step(random_actions(out, rng))
                steps += 1
            outs[t] = out
            best[t] = max(best[t], steps * n / (time.perf_counter() - t0))
    for e in envs.values():
        e.close()
    return {"best_1_thread": best[1], "best_2_threads": best[2],
            "speedup": best[2] / best[1]}


def pettingzoo_deals(e: Any, rng: random.Random, deals: int) -> int:
    """``deals`` deals of the AEC env ``e`` with masked random actions; returns the steps.
    The draw is the cheapest plain idiom of ``DRAW_IDIOMS`` (callgrind_gate.py --idioms)."""
    steps = 0
    for _ in range(deals):
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            legal = obs["action_mask"].view(bool).nonzero()[0]
            e.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
        e.reset()
    return steps


# A random legal action from the int8 ``action_mask`` of a PettingZoo step, the usual ways:
# each runs over a list of masks (``masks``; ``rng`` a numpy Generator, ``r`` a
# random.Random, ``space`` the agent's Discrete action space) and returns the draws' sum.
def _draw_nonzero_numpy(masks: list[np.ndarray], rng: np.random.Generator, r: random.Random,
                        space: Any) -> int:
    n = 0
    for m in masks:
        legal = m.nonzero()[0]
        n += int(legal[int(rng.random() * legal.shape[0])])
    return n


def _draw_flatnonzero_choice(masks: list[np.ndarray], rng: np.random.Generator,
                             r: random.Random, space: Any) -> int:
    n = 0
    for m in masks:
        n += int(rng.choice(np.flatnonzero(m)))
    return n


def _draw_bool_nonzero_numpy(masks: list[np.ndarray], rng: np.random.Generator,
                             r: random.Random, space: Any) -> int:
    n = 0
    for m in masks:
        legal = m.view(bool).nonzero()[0]
        n += int(legal[int(rng.random() * len(legal))])
    return n


def _draw_bool_nonzero_stdlib(masks: list[np.ndarray], rng: np.random.Generator,
                              r: random.Random, space: Any) -> int:
    n = 0
    for m in masks:
        legal = m.view(bool).nonzero()[0]
        n += int(legal[int(r.random() * len(legal))])
    return n


def _draw_space_sample(masks: list[np.ndarray], rng: np.random.Generator, r: random.Random,
                       space: Any) -> int:
    n = 0
    for m in masks:
        n += int(space.sample(m))
    return n


DRAW_IDIOMS = {
    "m.nonzero()[0], numpy rng.random()": _draw_nonzero_numpy,
    "rng.choice(np.flatnonzero(m))": _draw_flatnonzero_choice,
    "m.view(bool).nonzero()[0], numpy rng.random()": _draw_bool_nonzero_numpy,
    "m.view(bool).nonzero()[0], random.random()": _draw_bool_nonzero_stdlib,
    "action_space(agent).sample(m)": _draw_space_sample,
}


def pettingzoo_docs_deals(e: Any, rng: random.Random, deals: int) -> int:
    """The AEC loop of docs/rl.md: a random legal action drawn from ``env.legal_actions()``
    with ``random.Random.choice``; ``deals`` deals, returns the steps (actions taken)."""
    steps = 0
    for _ in range(deals):
        for _agent in e.agent_iter():
            obs, reward, terminated, truncated, info = e.last()
            if terminated or truncated:
                e.step(None)
                continue
            e.step(rng.choice(e.legal_actions()))
            steps += 1
        e.reset()
    return steps


def pettingzoo_flatnonzero_deals(e: Any, rng: np.random.Generator, deals: int) -> int:
    """The AEC loop drawing as the usual examples do, ``rng.choice(np.flatnonzero(mask))``
    on the int8 mask (issue 35's obvious idiom): steps."""
    steps = 0
    for _ in range(deals):
        for _agent in e.agent_iter():
            obs, reward, terminated, truncated, info = e.last()
            if terminated or truncated:
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        e.reset()
    return steps


def pettingzoo_masks(deals: int) -> list[np.ndarray]:
    """The action masks (copies) the agents get in ``deals`` seeded baibian deals."""
    e = env("baibian")
    e.reset(seed=0)
    r = random.Random(0)
    masks = []
    for _ in range(deals):
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            masks.append(obs["action_mask"].copy())
            legal = obs["action_mask"].view(bool).nonzero()[0]
            e.step(int(legal[int(r.random() * len(legal))]))
        e.reset()
    return masks


def pettingzoo_rate(rules: str, seconds: float) -> tuple[float, float]:
    """``(steps/s wall, steps per CPU-second)`` of the AEC env, masked random actions."""
    e = env(rules)
    rng = random.Random(0)
    e.reset(seed=0)
    steps = 0
    t0, c0 = time.perf_counter(), time.process_time()
    while time.perf_counter() - t0 < seconds:
        steps += pettingzoo_deals(e, rng, 1)
    return steps / (time.perf_counter() - t0), steps / (time.process_time() - c0)


def pettingzoo_workload(deals: int) -> int:
    """Steps of ``deals`` seeded baibian deals of the AEC env (an instruction workload)."""
    e = env("baibian")
    e.reset(seed=0)
    return pettingzoo_deals(e, random.Random(0), deals)


def pettingzoo_docs_workload(deals: int) -> int:
    """Steps of ``deals`` seeded baibian deals of docs/rl.md's AEC loop."""
    e = env("baibian")
    e.reset(seed=0)
    return pettingzoo_docs_deals(e, random.Random(0), deals)


def vecenv_workload(steps: int, opponents: dict[int, str] | None = None) -> int:
    """Env steps of ``steps`` seeded steps of a 1,024-row baibian VecEnv on one thread, the
    random actions included (an instruction workload); ``opponents``: built-in seats."""
    venv = VecEnv("baibian", 1024, opponents=opponents)
    rng = np.random.default_rng(0)
    out = venv.reset(1)
    for _ in range(steps):
        out = venv.step(random_actions(out, rng))
    return steps * 1024


INSTRUCTION_WORKLOADS = {
    "VecEnv.step, 1 thread": vecenv_workload,
    "VecEnv.step, greedy seats 1+3": lambda steps: vecenv_workload(steps, {1: "greedy",
                                                                            3: "greedy"}),
    "PettingZoo AEC env": pettingzoo_workload,
    "PettingZoo, docs' loop": pettingzoo_docs_workload,
}


def game_wrapper_rate(rules: str, seconds: float) -> tuple[float, float]:
    """A hand-written per-step wrapper: ``Game`` plus the reference encoder and a mask per
    step (what a user writes without ``shuangkou.rl``)."""
    r = Rules.preset(rules)
    at = B.action_table(r)
    rng = np.random.default_rng(0)
    steps, seed = 0, 0
    t0, c0 = time.perf_counter(), time.process_time()
    while time.perf_counter() - t0 < seconds:
        game = Game(r, seed=seed)
        seed += 1
        while not game.is_over:
            seat = game.to_act
            B.observation(game, seat)
            mask = at.mask([game.hand_ranks(seat)], game.table)[0]
            a = int(rng.choice(np.flatnonzero(mask)))
            play = at.play_for(game.hand_ranks(seat), a, game.table)
            game.play(play) if play else game.pass_()
            steps += 1
    return steps / (time.perf_counter() - t0), steps / (time.process_time() - c0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rules", default="baibian")
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--instructions", action="store_true",
                    help="instructions per env step under callgrind (baibian), nothing else")
    args = ap.parse_args(argv)
    if args.instructions:
        return instructions.report(Path(__file__), {
            "VecEnv.step, 1 thread": ("env step", 20, 120),
            "VecEnv.step, greedy seats 1+3": ("env step", 20, 120),
            "PettingZoo AEC env": ("step", 10, 60),
            "PettingZoo, docs' loop": ("step", 10, 60)})
    report: dict[str, Any] = {"rules": args.rules, "cpus": os.cpu_count(),
                              "load_before": os.getloadavg()}
    one = vecenv_rate(args.rules, args.batch, 1, args.seconds)
    two = vecenv_rate(args.rules, args.batch, 2, args.seconds)
    report["vecenv"] = {"1 thread": one, "2 threads": two,
                        "speedup_2_threads": two["steps_per_s"] / one["steps_per_s"],
                        "cpu_efficiency_2_threads": two["steps_per_cpu_s"]
                        / one["steps_per_cpu_s"],
                        "alternated": thread_scaling(args.rules, args.batch, 2 * args.seconds)}
    pz, pz_cpu = pettingzoo_rate(args.rules, args.seconds)
    naive, naive_cpu = game_wrapper_rate(args.rules, args.seconds)
    report["pettingzoo_steps_per_s"] = pz
    report["pettingzoo_steps_per_cpu_s"] = pz_cpu
    report["game_wrapper_steps_per_s"] = naive
    report["game_wrapper_steps_per_cpu_s"] = naive_cpu
    report["pettingzoo_vs_wrapper"] = pz_cpu / naive_cpu
    report["load_after"] = os.getloadavg()
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"rules {args.rules}, batch {args.batch}, {args.seconds:g} s per point, "
          f"{os.cpu_count()} CPUs, load {report['load_before']}")
    for k in ("1 thread", "2 threads"):
        m = report["vecenv"][k]
        print(f"VecEnv.step {k:<10} {m['steps_per_s']:>11,.0f} env steps/s wall, "
              f"{m['steps_per_cpu_s']:>11,.0f} per CPU-second  (kernel alone "
              f"{m['kernel_steps_per_s']:,.0f}/s wall; numpy action choice "
              f"{m['choose_share']:.0%}; {m['plays_per_step']:.1f} legal plays/step)")
    print(f"VecEnv speed-up on 2 threads: {report['vecenv']['speedup_2_threads']:.2f}x wall; "
          f"steps per CPU-second on 2 threads / on 1: "
          f"{report['vecenv']['cpu_efficiency_2_threads']:.2f}")
    alt = report["vecenv"]["alternated"]
    print(f"VecEnv 1 and 2 threads alternated in 0.2 s slices, best slice: "
          f"{alt['best_1_thread']:,.0f} and {alt['best_2_threads']:,.0f} env steps/s wall, "
          f"speed-up {alt['speedup']:.2f}x")
    print(f"VecEnv memory per env: {one['bytes_per_env'] / 1024:.1f} KiB "
          f"(action table {len(B.action_table(args.rules))} actions)")
    print(f"PettingZoo AEC env: {pz:,.0f} steps/s wall, {pz_cpu:,.0f} per CPU-second; "
          f"hand-written Game wrapper {naive:,.0f} wall, {naive_cpu:,.0f} per CPU-second; "
          f"ratio {pz_cpu / naive_cpu:.1f}x")
    print("(on a shared machine the per-CPU-second figure is the per-core rate; wall-clock "
          "rates fall with the load)")
    print(f"load after: {report['load_after']}")
    return 0


def test_bench_vecenv_step(benchmark) -> None:  # type: ignore[no-untyped-def]
    venv = VecEnv("baibian", 256)
    rng = np.random.default_rng(0)
    state = {"out": venv.reset(1)}

    def step() -> None:
        state["out"] = venv.step(random_actions(state["out"], rng))

    benchmark(step)


def test_bench_pettingzoo_step(benchmark) -> None:  # type: ignore[no-untyped-def]
    benchmark(pettingzoo_rate, "baibian", 0.05)  # one deal at least


if __name__ == "__main__":
    if not instructions.count_main(sys.argv[1:], INSTRUCTION_WORKLOADS):
        sys.exit(main())
