"""Speed-regression gate without wall clocks.

Counts the instructions that fixed, seeded workloads execute under
``valgrind --tool=callgrind`` (deterministic for one build on one kind of machine, whatever else
the machine is doing) and compares each with ``callgrind_baseline.json``: more than 5 % over its
baseline fails. Only the work is counted (``--toggle-collect`` on the generator's batch entry
point, the list of Play objects and the deal loop, callees included; for the Python paths —
``legal_plays`` answering, the ``State`` and ``Game`` random loops, the PettingZoo step — the
``operator.call`` they run in), not Python's start-up or imports. Beside each total the gate
prints the instructions per unit of work — per generated play, per call, per decision (play or
pass), per agent step — the noise-free figures to compare with other engines, and the target
each should meet (docs/performance.md; a missed target is reported, not failed).

    python benchmarks/callgrind_gate.py            # measure, compare, exit 1 on a regression
    python benchmarks/callgrind_gate.py --update   # measure and write the baseline
    python benchmarks/callgrind_gate.py --run NAME # run one workload (what valgrind runs)
    python benchmarks/callgrind_gate.py --idioms   # the draw idioms of a PettingZoo loop and
                                                   # the obvious Game loop's operations
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

BASELINE = Path(__file__).with_name("callgrind_baseline.json")
TOLERANCE = 0.05
PRESETS = ("classic", "baibian", "jj", "qianbian")
TABLES = ("7", "9 9", "5 5 5", "5 6 7 8 9", "6 6 7 7 8 8", "8 8 8 8", "5555 6666 7777")
# Functions counted, callees included: the Python entry points of the generator (one call per
# workload; argument conversion is a few thousand instructions) and of the Play list, since the
# C compiler may inline sk_generate into its callers; the self-play deal loop.
GENERATOR = "__pyx_pw_*generate_many"
PLAY_LIST = "__pyx_pw_*legal_plays"
DEAL_LOOP = "__pyx_f_*_play_deal"
STATE_PERFT = "__pyx_pf_*_5State_*perft*"
# The Python-level workloads run inside operator.call (a C function nothing else calls), so that
# everything they do is counted — calls, objects, their freeing, the garbage collector — and
# nothing else: start-up, imports and the set-up before it are not.
PYTHON_CALL = "_operator_call"


def _hands(n: int):  # type: ignore[no-untyped-def]
    import numpy as np

    from deals import deals  # benchmarks/deals.py: this script's folder is on sys.path

    return np.array(deals(n), dtype=np.uint64)


def chain_bomb_hands(n: int) -> list[int]:
    """Seeded 27-card hands rich in chain bombs: 4–5 cards of each of 5 consecutive ranks
    (3..A), 1–4 jokers (as many as fit), the rest drawn from the other cards of the decks."""
    from shuangkou import Hand

    out = []
    for seed in range(n):
        rng = random.Random(seed)
        lo = rng.randrange(8)
        counts = [0] * 15
        for r in range(lo, lo + 5):
            counts[r] = rng.randint(4, 5)
        jokers = rng.randint(1, min(4, 27 - sum(counts)))
        counts[13] = min(2, jokers)
        counts[14] = jokers - counts[13]
        pool = [r for r in range(13) for _ in range(8 - counts[r])]
        for r in rng.sample(pool, 27 - sum(counts)):
            counts[r] += 1
        out.append(Hand.from_counts(counts).packed)
    return out


def generate(hands, flags: int, table: int, fewest: bool) -> int:  # type: ignore[no-untyped-def]
    """Every play of every hand, stored into one pair of buffers (the stores are counted)."""
    import numpy as np

    from shuangkou import _core

    words = np.zeros(1 << 14, dtype=np.uint64)
    tags = np.zeros(1 << 14, dtype=np.uint32)
    return int(_core.generate_many(hands, flags, table, fewest, words, tags))


def lead(preset: str, fewest: bool = False) -> int:
    from shuangkou import Rules

    return generate(_hands(64), Rules.preset(preset).flags, 0, fewest)


def lead_fewest() -> int:
    return sum(lead(name, True) for name in PRESETS)


def answer(preset: str) -> int:
    from shuangkou import Play, Rules

    hands = _hands(64)
    rules = Rules.preset(preset)
    return sum(generate(hands, rules.flags, Play.parse(table, rules).tag, False)
               for table in TABLES if preset != "classic" or table != "5555 6666 7777")


def chain_bombs() -> int:
    import numpy as np

    from shuangkou import Rules

    hands = np.array(chain_bomb_hands(64), dtype=np.uint64)
    return sum(generate(hands, Rules.preset(name).flags, 0, False)
               for name in ("baibian", "qianbian"))


def api_lead() -> int:
    """``legal_plays`` (Play objects) on the lead hands of every preset."""
    from shuangkou import Hand, Rules, legal_plays

    hands = [Hand.from_packed(int(h)) for h in _hands(64)]
    return sum(len(legal_plays(h, Rules.preset(name))) for name in PRESETS for h in hands)


def selfplay(policy: str) -> int:
    from shuangkou.sim import simulate

    return sum(int(simulate(100, name, policy, threads=1, seed=1).arrays["decisions"].sum())
               for name in PRESETS)


def state_search() -> int:
    """Make/unmake on the game state (_state.pxd): perft 3 from a deal of every preset."""
    from shuangkou import State

    return sum(int(State.deal(name, 5).perft(3)) for name in PRESETS)


def answer_scenarios(rules):  # type: ignore[no-untyped-def]
    """300 seeded answers: the second 27 cards of a 54-card draw, against a random lead of
    the first 27 (the table the seat before put down)."""
    from shuangkou import Hand, legal_plays

    out = []
    for seed in range(300):
        ids = random.Random(seed).sample(range(108), 54)
        first, second = Hand.from_cards(ids[:27]), Hand.from_cards(ids[27:])
        out.append((second, random.Random(seed).choice(legal_plays(first, rules))))
    return out


def in_python_call(work: Callable[[], tuple[int, ...]]) -> tuple[int, ...]:
    """Run ``work`` once to warm up (caches, free lists) and collect the garbage (so that the
    imports' objects are old, as in a long-running process), then run it once inside
    operator.call (what the gate counts)."""
    import gc
    import operator

    work()
    gc.collect()
    result: tuple[int, ...] = operator.call(work)
    return result


def api_answer() -> tuple[int, ...]:
    """``legal_plays(hand, rules, table)``, the whole Python call, on the answer scenarios of
    every preset: (calls, plays). The counted loop is a plain user loop over one preset's
    answers at a time — the call, its list of plays made and freed, the loop's own bytecode
    (~130 instructions a call on CPython 3.11) — and nothing else: the plays are counted in an
    uncounted run of the same calls (``n += len(...)`` in the loop would add ~300 instructions
    a call of benchmark bookkeeping, mostly a big int's arithmetic, to what is measured)."""
    from shuangkou import Rules, legal_plays

    sets = [(r, answer_scenarios(r)) for r in map(Rules.preset, PRESETS)]
    calls = sum(len(cases) for _, cases in sets)
    plays = sum(len(legal_plays(h, r, t)) for r, cases in sets for h, t in cases)

    def work() -> tuple[int, ...]:
        for rules, cases in sets:
            for hand, table in cases:
                legal_plays(hand, rules, table)
        return calls, plays

    return in_python_call(work)


def state_loop() -> tuple[int, ...]:
    """The random loop on ``State`` over 10 seeded 百变 deals (the deal included): decisions."""
    from bench_game import random_state_game  # benchmarks/
    from shuangkou import Rules

    rules = Rules.preset("baibian")
    return in_python_call(lambda: (sum(random_state_game(rules, s) for s in range(10)),))


def game_loop() -> tuple[int, ...]:
    """The same loop through ``Game`` (physical ids, the log, the 明牌 swap, the lock; the deal
    included): decisions."""
    from bench_game import random_game_decisions  # benchmarks/
    from shuangkou import Rules

    rules = Rules.preset("baibian")
    return in_python_call(lambda: (sum(random_game_decisions(rules, s) for s in range(10)),))


def obvious_game_loop() -> tuple[int, ...]:
    """The ``Game`` loop written the obvious way (``random.Random``, ``g.table``,
    ``g.legal_plays()``, ``g.play(p)``; bench_game.obvious_game_decisions) over 10 seeded 百变
    deals, the deal and the generator's seeding included: decisions."""
    from bench_game import obvious_game_decisions  # benchmarks/
    from shuangkou import Rules

    rules = Rules.preset("baibian")
    return in_python_call(lambda: (sum(obvious_game_decisions(rules, s) for s in range(10)),))


def pettingzoo_docs_loop() -> tuple[int, ...]:
    """docs/rl.md's AEC loop (``env.last()``, ``random.Random.choice(env.legal_actions())``,
    ``env.step()``; bench_rl.pettingzoo_docs_deals) over 10 seeded 百变 deals: agent steps."""
    import random

    from bench_rl import pettingzoo_docs_deals  # benchmarks/
    from shuangkou.rl import env

    e = env("baibian")

    def work() -> tuple[int, ...]:
        e.reset(seed=0)
        return (pettingzoo_docs_deals(e, random.Random(0), 10),)

    return in_python_call(work)


def pettingzoo_flatnonzero_loop() -> tuple[int, ...]:
    """The AEC loop drawing ``rng.choice(np.flatnonzero(mask))`` (numpy's Generator), the
    idiom of most examples, over the same deals: agent steps (for comparison, no target)."""
    import numpy as np

    from bench_rl import pettingzoo_flatnonzero_deals  # benchmarks/
    from shuangkou.rl import env

    e = env("baibian")

    def work() -> tuple[int, ...]:
        e.reset(seed=0)
        return (pettingzoo_flatnonzero_deals(e, np.random.default_rng(0), 10),)

    return in_python_call(work)


def pettingzoo_loop() -> tuple[int, ...]:
    """A plain PettingZoo AEC loop (``env.last()``, a random legal action from the mask,
    ``env.step()``) over 10 seeded 百变 deals: agent steps. The draw is
    ``mask.view(bool).nonzero()[0]`` and a stdlib ``random.random()`` index, the cheapest of
    the usual idioms (``--idioms``, the draw alone, its loop included: 9.5 k instructions
    this way, 12.6 k with numpy's Generator for the index, 23.5 k with ``mask.nonzero()[0]``
    on the int8 mask itself (numpy tests it element by element), 72.1 k for
    ``rng.choice(np.flatnonzero(mask))``, 117 k for Gymnasium's ``Discrete.sample(mask)``).
    The action space and the int8 mask are PettingZoo's and Gymnasium's, unchanged."""
    import random

    from bench_rl import pettingzoo_deals  # benchmarks/
    from shuangkou.rl import env

    e = env("baibian")

    def work() -> tuple[int, ...]:
        e.reset(seed=0)
        return (pettingzoo_deals(e, random.Random(0), 10),)

    return in_python_call(work)


def draw_idiom(name: str) -> tuple[int, ...]:
    """One of bench_rl's DRAW_IDIOMS over the masks of the pettingzoo-step workload's deals:
    draws (a random legal action each, its loop's own bytecode included)."""
    import random

    import numpy as np

    from bench_rl import DRAW_IDIOMS, pettingzoo_masks  # benchmarks/
    from shuangkou.rl import env

    masks = pettingzoo_masks(10)
    space = env("baibian").action_space("seat_0")
    draw = DRAW_IDIOMS[name]
    space.seed(0)
    return in_python_call(lambda: (len(masks), draw(masks, np.random.default_rng(0),
                                                    random.Random(0), space)))


# name -> (function counted, workload returning its units of work, unit)
WORKLOADS: dict[str, tuple[str, Callable[[], int], str]] = {
    **{f"lead-{p}": (GENERATOR, lambda p=p: lead(p), "play") for p in PRESETS},
    "lead-fewest": (GENERATOR, lead_fewest, "play"),
    **{f"answer-{p}": (GENERATOR, lambda p=p: answer(p), "play") for p in PRESETS},
    "chain-bombs": (GENERATOR, chain_bombs, "play"),
    "legal-plays": (PLAY_LIST, api_lead, "play"),
    "selfplay-random": (DEAL_LOOP, lambda: selfplay("random"), "decision"),
    "selfplay-greedy": (DEAL_LOOP, lambda: selfplay("greedy"), "decision"),
    "state-perft": (STATE_PERFT, state_search, "node"),
    "legal-plays-answer": (PYTHON_CALL, api_answer, "call"),
    "state-loop": (PYTHON_CALL, state_loop, "decision"),
    "game-loop": (PYTHON_CALL, game_loop, "decision"),
    "pettingzoo-step": (PYTHON_CALL, pettingzoo_loop, "step"),
    "game-loop-obvious": (PYTHON_CALL, obvious_game_loop, "decision"),
    "pettingzoo-docs": (PYTHON_CALL, pettingzoo_docs_loop, "step"),
    "pettingzoo-flatnonzero": (PYTHON_CALL, pettingzoo_flatnonzero_loop, "step"),
}


# What the obvious Game loop's operations cost one by one (``--idioms``): each runs OPS times
# in a plain loop on the answering position of 百变 deal 3; "loop alone" is the loop's own
# cost, which --idioms subtracts from the others.
OPS = 1000
GAME_OPS: dict[str, Callable[[Any, Any, Any], None]] = {}  # name -> op


Op = Callable[[Any, Any, Any], None]


def _game_op(name: str) -> Callable[[Op], Op]:
    def register(f: Op) -> Op:
        GAME_OPS[name] = f
        return f
    return register


@_game_op("loop alone")
def _op_none(g: Any, rng: Any, rules: Any) -> None:
    for _ in range(OPS):
        pass


@_game_op("g.is_over")
def _op_is_over(g: Any, rng: Any, rules: Any) -> None:
    for _ in range(OPS):
        g.is_over  # noqa: B018 - the read is what is measured


@_game_op("g.table")
def _op_table(g: Any, rng: Any, rules: Any) -> None:
    for _ in range(OPS):
        g.table  # noqa: B018 - the read is what is measured


@_game_op("g.legal_plays()")
def _op_legal(g: Any, rng: Any, rules: Any) -> None:
    for _ in range(OPS):
        g.legal_plays()


@_game_op("rng.randrange(9) (random.Random)")
def _op_randrange(g: Any, rng: Any, rules: Any) -> None:
    for _ in range(OPS):
        rng.randrange(9)


@_game_op("random.Random(seed)")
def _op_random(g: Any, rng: Any, rules: Any) -> None:
    for seed in range(OPS):
        random.Random(seed)


@_game_op("Game(rules, seed)")
def _op_game(g: Any, rng: Any, rules: Any) -> None:
    from shuangkou.game import Game

    for seed in range(OPS):
        Game(rules, seed)


def game_op(name: str) -> tuple[int, ...]:
    """One of GAME_OPS, OPS times: (OPS,)."""
    from shuangkou import Rules
    from shuangkou.game import Game

    rules = Rules.preset("baibian")
    g = Game(rules, 3)
    g.play(g.legal_plays()[0])  # answering: a table to beat, a few plays
    rng = random.Random(1)
    op = GAME_OPS[name]
    return in_python_call(lambda: (op(g, rng, rules), OPS)[1:])


def idiom_workloads() -> dict[str, tuple[str, Callable[[], tuple[int, ...]], str]]:
    """``--idioms``: the draw idioms of a PettingZoo loop and the obvious Game loop's
    operations, measured apart (no baseline)."""
    from bench_rl import DRAW_IDIOMS  # benchmarks/

    return {**{f"draw: {name}": (PYTHON_CALL, partial(draw_idiom, name), "draw")
               for name in DRAW_IDIOMS},
            **{f"op: {name}": (PYTHON_CALL, partial(game_op, name), "op") for name in GAME_OPS}}


def workload(name: str) -> tuple[str, Callable[[], Any], str]:
    return WORKLOADS[name] if name in WORKLOADS else idiom_workloads()[name]


def targets(counts: dict[str, dict[str, int]]) -> dict[str, tuple[str, bool]]:
    """The performance targets, per workload: (what, met)."""
    out: dict[str, tuple[str, bool]] = {}
    for name, m in counts.items():
        if name.startswith("lead-") and name != "lead-fewest":
            out[name] = ("<= 30/play", per_unit(m) <= 30)
        elif name.startswith("answer-"):
            out[name] = ("<= 80/play", per_unit(m) <= 80)
        elif name == "legal-plays-answer":
            budget = 2000 * m["units"] + 40 * m.get("plays", 0)
            out[name] = (f"<= 2,000/call + 40/play = {budget / m['units']:,.0f}/call",
                         m["instructions"] <= budget)
        elif name == "game-loop" and "state-loop" in counts:
            limit = 2 * per_unit(counts["state-loop"])
            out[name] = (f"<= 2x State = {limit:,.0f}/decision", per_unit(m) <= limit)
        elif name in ("pettingzoo-step", "pettingzoo-docs"):
            out[name] = ("<= 25,000/step", per_unit(m) <= 25000)
        elif name == "game-loop-obvious":
            out[name] = ("<= 6,500/decision", per_unit(m) <= 6500)
    return out


def measure(name: str) -> dict[str, int]:
    """``{"instructions": …, "units": …}``: instructions executed inside the workload's kernel
    entry point and the plays or decisions it produced."""
    pattern, _, _ = workload(name)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", "--collect-atstart=no",
             f"--toggle-collect={pattern}", f"--callgrind-out-file={out}",
             sys.executable, __file__, "--run", name],
            check=True, capture_output=True, text=True,
        )
        units, *plays = (int(x) for x in run.stdout.split()[-1].split(","))
        for line in out.read_text().splitlines():
            if line.startswith(("summary:", "totals:")):
                count = int(line.split()[1])
                if count == 0:
                    raise RuntimeError(f"{name}: no instruction inside {pattern}: renamed?")
                return {"instructions": count, "units": units, **dict(zip(["plays"], plays))}
    raise RuntimeError(f"no instruction total in callgrind's output for {name}")


def measure_all() -> dict[str, dict[str, int]]:
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(WORKLOADS, pool.map(measure, WORKLOADS)))


def per_unit(m: dict[str, int]) -> float:
    return m["instructions"] / max(m["units"], 1)


def compare(counts: dict[str, dict[str, int]], baseline: dict[str, dict[str, int]]) -> list[str]:
    """The regressions: workloads more than TOLERANCE over their baseline (or without one)."""
    failures = []
    for name, m in counts.items():
        base = baseline.get(name)
        count = m["instructions"]
        if base is None:
            failures.append(f"{name}: no baseline (run with --update)")
        elif count > base["instructions"] * (1 + TOLERANCE):
            failures.append(f"{name}: {count:,} instructions, "
                            f"{count / base['instructions'] - 1:+.1%} over the baseline "
                            f"{base['instructions']:,}")
    return failures


def table(counts: dict[str, dict[str, int]], baseline: dict[str, dict[str, int]]) -> str:
    goals = targets(counts)
    lines = [f"{'workload':<18} {'instructions':>14} {'units':>8} {'per unit':>16} "
             f"{'vs baseline':>11}  target"]
    for name, m in counts.items():
        base = baseline.get(name)
        vs = f"{m['instructions'] / base['instructions'] - 1:+.1%}" if base else "new"
        unit = WORKLOADS[name][2]
        goal = goals.get(name)
        aim = f"{goal[0]}: {'met' if goal[1] else 'NOT MET'}" if goal else ""
        lines.append(f"{name:<18} {m['instructions']:>14,} {m['units']:>8,} "
                     f"{per_unit(m):>9.1f}/{unit:<8} {vs:>7}  {aim}")
    return "\n".join(lines)


def load_baseline() -> dict[str, dict[str, int]]:
    """The committed baseline (entries of an older format, bare totals, count as missing)."""
    data = json.loads(BASELINE.read_text()) if BASELINE.exists() else {}
    return {name: m for name, m in data.items() if isinstance(m, dict)}


def main(argv: list[str]) -> int:
    if argv[:1] == ["--run"]:
        done = workload(argv[1])[1]()
        print(",".join(map(str, done if isinstance(done, tuple) else (done,))))
        return 0
    from instructions import SMALL  # benchmarks/instructions.py, beside this script

    if SMALL:  # SK_SMOKE=1: each workload once, natively (a check that it runs)
        for name in list(idiom_workloads()) if argv[:1] == ["--idioms"] else list(WORKLOADS):
            print(f"{name}: {workload(name)[1]()} (not counted)")
        return 0
    if argv[:1] == ["--idioms"]:
        names = list(idiom_workloads())
        with ThreadPoolExecutor(max_workers=2) as pool:
            got = dict(zip(names, pool.map(measure, names)))
        loop = per_unit(got["op: loop alone"])
        for name, m in got.items():
            if name.startswith("draw: "):
                print(f"{name:<52} {per_unit(m):>9,.0f} instructions a draw")
            elif name != "op: loop alone":
                print(f"{name:<52} {per_unit(m) - loop:>9,.0f} instructions an op "
                      f"(the loop's own {loop:,.0f} subtracted)")
        return 0
    counts = measure_all()
    baseline = load_baseline()
    print(table(counts, baseline))
    if argv[:1] == ["--update"]:
        BASELINE.write_text(json.dumps(counts, indent=2) + "\n")
        print(f"wrote {BASELINE}")
        return 0
    failures = compare(counts, baseline)
    print("\n".join(failures) or "no regression")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
