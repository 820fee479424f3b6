"""shuangkou beside OpenSpiel's ``dou_dizhu`` on the same kinds of work, counted by callgrind in
one run (instructions are exact; wall clocks on a shared machine are not).

OpenSpiel comes from PyPI (``pip install -e ".[peers]"``: the ``open_spiel`` wheel). Each
workload runs inside ``operator.call`` after a warm-up, and only that call is counted (the way
``callgrind_gate.py`` counts the Python paths), so start-up, imports and set-up are left out:

* ``answer``: the whole Python call listing the answers to the play of the seat before —
  ``legal_plays(hand, rules, table)`` on 300 seeded 百变 answers beside OpenSpiel's
  ``state.legal_actions()`` at the first answer of 300 seeded deals (after the landlord's
  random lead); per call, in a plain loop of calls (the plays or actions counted in an
  uncounted run: ``n += len(...)`` would add the same ~300 instructions a call to both);
* ``lead``: the whole lead listing — ``legal_plays(hand, rules)`` on 300 seeded 27-card hands
  beside ``legal_actions()`` at the landlord's first lead of 300 seeded deals; per play listed;
* ``loop``: a random game loop in Python, the deal applied directly — ``Game`` (bench_game's
  random loop) beside OpenSpiel's ``new_initial_state`` + chance outcomes + random legal
  actions until the end; per decision (play, pass or bid; chance outcomes are not decisions).

    python benchmarks/bench_peers.py            # the table (about a minute)
    python benchmarks/bench_peers.py --run NAME # one workload (what valgrind runs)
"""

from __future__ import annotations

import gc
import operator
import random
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from instructions import SMALL

SCENARIOS = 3 if SMALL else 300  # SK_SMOKE=1: each side run once, natively
LOOP_DEALS = 1 if SMALL else 10


def counted(work: Callable[[], tuple[int, int]]) -> tuple[int, int]:
    """Warm up and collect the garbage (the imports' objects old, as in a long-running
    process), then run ``work`` inside operator.call (the counted function)."""
    work()
    gc.collect()
    result: tuple[int, int] = operator.call(work)
    return result


# -- shuangkou -----------------------------------------------------------------------------
def sk_answer() -> tuple[int, int]:
    from callgrind_gate import answer_scenarios  # benchmarks/
    from shuangkou import Rules, legal_plays

    rules = Rules.preset("baibian")
    cases = answer_scenarios(rules)
    plays = sum(len(legal_plays(hand, rules, table)) for hand, table in cases)

    def work() -> tuple[int, int]:
        for hand, table in cases:
            legal_plays(hand, rules, table)
        return len(cases), plays

    return counted(work)


def sk_lead() -> tuple[int, int]:
    from deals import deals  # benchmarks/
    from shuangkou import Hand, Rules, legal_plays

    rules = Rules.preset("baibian")
    hands = [Hand.from_packed(h) for h in deals(SCENARIOS)]

    def work() -> tuple[int, int]:
        n = 0
        for hand in hands:
            n += len(legal_plays(hand, rules))
        return n, n

    return counted(work)


def sk_loop() -> tuple[int, int]:
    from bench_game import random_game_decisions  # benchmarks/
    from shuangkou import Rules

    rules = Rules.preset("baibian")

    def work() -> tuple[int, int]:
        n = sum(random_game_decisions(rules, seed) for seed in range(LOOP_DEALS))
        return n, n

    return counted(work)


# -- OpenSpiel dou_dizhu -------------------------------------------------------------------
def _game() -> Any:
    import pyspiel

    return pyspiel.load_game("dou_dizhu")


def _deal(game: Any, rng: random.Random) -> Any:
    """A new state with the chance outcomes (the deal) applied directly."""
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(rng.choice(state.chance_outcomes())[0])
    return state


def _first_lead(game: Any, seed: int) -> Any:
    """The landlord's first lead of a seeded deal with random bids (action 0 is pass or bid 0;
    play actions are >= 4)."""
    rng = random.Random(seed)
    while True:
        state = _deal(game, rng)
        while not state.is_terminal():
            actions = state.legal_actions()
            if max(actions) >= 4:  # the play phase: the landlord leads
                return state
            state.apply_action(rng.choice(actions))
            while state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
        # nobody bid: a new deal from the same generator


def os_answer() -> tuple[int, int]:
    game = _game()
    states = []
    for seed in range(SCENARIOS):
        state = _first_lead(game, seed)
        state.apply_action(random.Random(seed).choice(state.legal_actions()))
        states.append(state)

    actions = sum(len(state.legal_actions()) for state in states)

    def work() -> tuple[int, int]:
        for state in states:
            state.legal_actions()
        return len(states), actions

    return counted(work)


def os_lead() -> tuple[int, int]:
    game = _game()
    states = [_first_lead(game, seed) for seed in range(SCENARIOS)]

    def work() -> tuple[int, int]:
        n = 0
        for state in states:
            n += len(state.legal_actions())
        return n, n

    return counted(work)


def os_loop() -> tuple[int, int]:
    game = _game()

    def work() -> tuple[int, int]:
        rng = random.Random(0)
        n = 0
        for _ in range(LOOP_DEALS):
            state = _deal(game, rng)
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(rng.choice(state.chance_outcomes())[0])
                    continue
                actions = state.legal_actions()
                state.apply_action(actions[int(rng.random() * len(actions))])
                n += 1
        return n, n

    return counted(work)


# name -> (shuangkou workload, OpenSpiel workload, unit)
WORKLOADS: dict[str, tuple[Callable[[], tuple[int, int]], Callable[[], tuple[int, int]], str]] = {
    "answer": (sk_answer, os_answer, "call"),
    "lead": (sk_lead, os_lead, "play"),
    "loop": (sk_loop, os_loop, "decision"),
}


def measure(name: str, side: int) -> tuple[int, int, int]:
    """``(instructions, units, plays)`` of one side (0 shuangkou, 1 OpenSpiel) of a workload."""
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", "--collect-atstart=no",
         "--toggle-collect=_operator_call", "--callgrind-out-file=/dev/null",
         sys.executable, __file__, "--run", name, str(side)],
        capture_output=True, text=True, check=True,
    )
    found = re.search(r"Collected : (\d+)", run.stderr)
    if found is None:
        raise RuntimeError(f"no callgrind total for {name}: {run.stderr[-400:]}")
    units, plays = map(int, run.stdout.split()[-1].split(","))
    return int(found.group(1)), units, plays


def main(argv: list[str]) -> int:
    if argv[:1] == ["--run"]:
        print(",".join(map(str, WORKLOADS[argv[1]][int(argv[2])]())))
        return 0
    if SMALL:  # a check that every workload runs; OpenSpiel's sides need the [peers] extra
        import importlib.util

        sides = (0, 1) if importlib.util.find_spec("pyspiel") else (0,)
        for name, work in WORKLOADS.items():
            for side in sides:
                print(f"{name} side {side}: {work[side]()} (not counted)")
        if sides == (0,):
            print("OpenSpiel is not installed (pip install '.[peers]'): its sides not run")
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind)")
        return 1
    print(f"{'workload':<10} {'shuangkou':>22} {'OpenSpiel dou_dizhu':>22} {'ratio':>8}")
    for name, (_, _, unit) in WORKLOADS.items():
        (i0, u0, p0), (i1, u1, p1) = measure(name, 0), measure(name, 1)
        a, b = i0 / u0, i1 / u1
        extra = f"  ({p0 / u0:.1f} vs {p1 / u1:.1f} plays a call)" if unit == "call" else ""
        print(f"{name:<10} {a:>14,.0f}/{unit:<8}{b:>14,.0f}/{unit:<8}{b / a:>7.2f}x{extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
