"""Speed-regression gate without wall clocks.

Counts the instructions that fixed, seeded kernel workloads execute under
``valgrind --tool=callgrind`` (deterministic for one build on one kind of machine, whatever else
the machine is doing) and compares each with ``callgrind_baseline.json``: more than 5 % over its
baseline fails. Only the kernel is counted (``--toggle-collect`` on the generator's batch entry
point, the list of Play objects and the deal loop, callees included), not Python's start-up or
imports. Beside each total the gate prints the instructions per unit of work — per generated
play for the generator workloads, per decision (play or pass) for self-play — the noise-free
figures to compare with other engines.

    python benchmarks/callgrind_gate.py            # measure, compare, exit 1 on a regression
    python benchmarks/callgrind_gate.py --update   # measure and write the baseline
    python benchmarks/callgrind_gate.py --run NAME # run one workload (what valgrind runs)
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

BASELINE = Path(__file__).with_name("callgrind_baseline.json")
TOLERANCE = 0.05
PRESETS = ("classic", "baibian", "jj", "qianbian")
TABLES = ("7", "9 9", "5 5 5", "5 6 7 8 9", "6 6 7 7 8 8", "8 8 8 8", "5555 6666 7777")
# Functions counted, callees included: the Python entry points of the generator (one call per
# workload; argument conversion is a few thousand instructions) and of the Play list, since the
# C compiler may inline sk_generate into its callers; the self-play deal loop.
GENERATOR = "__pyx_pw_*generate_many"
PLAY_LIST = "__pyx_pw_*generate_plays"
DEAL_LOOP = "__pyx_f_*_play_deal"
STATE_PERFT = "__pyx_pf_*_5State_*perft*"


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
}


def measure(name: str) -> dict[str, int]:
    """``{"instructions": …, "units": …}``: instructions executed inside the workload's kernel
    entry point and the plays or decisions it produced."""
    pattern, _, _ = WORKLOADS[name]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", "--collect-atstart=no",
             f"--toggle-collect={pattern}", f"--callgrind-out-file={out}",
             sys.executable, __file__, "--run", name],
            check=True, capture_output=True, text=True,
        )
        units = int(run.stdout.split()[-1])
        for line in out.read_text().splitlines():
            if line.startswith(("summary:", "totals:")):
                count = int(line.split()[1])
                if count == 0:
                    raise RuntimeError(f"{name}: no instruction inside {pattern}: renamed?")
                return {"instructions": count, "units": units}
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
    lines = [f"{'workload':<16} {'instructions':>14} {'units':>8} {'per unit':>12} "
             f"{'vs baseline':>11}"]
    for name, m in counts.items():
        base = baseline.get(name)
        vs = f"{m['instructions'] / base['instructions'] - 1:+.1%}" if base else "new"
        unit = WORKLOADS[name][2]
        lines.append(f"{name:<16} {m['instructions']:>14,} {m['units']:>8,} "
                     f"{per_unit(m):>7.1f}/{unit:<8} {vs:>7}")
    return "\n".join(lines)


def load_baseline() -> dict[str, dict[str, int]]:
    """The committed baseline (entries of an older format, bare totals, count as missing)."""
    data = json.loads(BASELINE.read_text()) if BASELINE.exists() else {}
    return {name: m for name, m in data.items() if isinstance(m, dict)}


def main(argv: list[str]) -> int:
    if argv[:1] == ["--run"]:
        print(WORKLOADS[argv[1]][1]())
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
