"""Speed-regression gate without wall clocks.

Counts the instructions that fixed kernel workloads execute under ``valgrind --tool=callgrind``
(deterministic for one build on one kind of machine, whatever else the machine is doing) and
compares each with ``callgrind_baseline.json``: more than 5 % over its baseline fails.
Only the nogil kernel functions are counted (``--toggle-collect`` on the generator and the deal
loop, callees included), not Python's start-up, imports or argument checks.

    python benchmarks/callgrind_gate.py            # measure, compare, exit 1 on a regression
    python benchmarks/callgrind_gate.py --update   # measure and write the baseline
    python benchmarks/callgrind_gate.py --run NAME # run one workload (what valgrind runs)
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

BASELINE = Path(__file__).with_name("callgrind_baseline.json")
TOLERANCE = 0.05
PRESETS = ("classic", "baibian", "jj", "qianbian")


def _hands(n: int):
    import numpy as np

    from deals import deals  # benchmarks/deals.py: this script's folder is on sys.path

    return np.array(deals(n), dtype=np.uint64)


def lead() -> None:
    import numpy as np

    from shuangkou import Rules, _core

    hands = _hands(64)
    leading = np.zeros(len(hands), dtype=np.uint32)
    for name in PRESETS:
        for fewest in (False, True):
            _core.count_many(hands, Rules.preset(name).flags, leading, fewest)


def answer() -> None:
    import numpy as np

    from shuangkou import Play, Rules, _core

    hands = _hands(64)
    for name in PRESETS:
        rules = Rules.preset(name)
        for table in ("7", "9 9", "5 5 5", "5 6 7 8 9", "6 6 7 7 8 8", "8 8 8 8", "5555 6666 7777"):
            if name == "classic" and table == "5555 6666 7777":
                continue
            tables = np.full(len(hands), Play.parse(table, rules).tag, dtype=np.uint32)
            _core.count_many(hands, rules.flags, tables, False)


def selfplay(policy: str) -> None:
    from shuangkou.sim import simulate

    for name in PRESETS:
        simulate(100, name, policy, threads=1, seed=1)


WORKLOADS = {
    "lead": ("__pyx_f_*_sk_generate", lead),
    "answer": ("__pyx_f_*_sk_generate", answer),
    "selfplay-random": ("__pyx_f_*_play_deal", lambda: selfplay("random")),
    "selfplay-greedy": ("__pyx_f_*_play_deal", lambda: selfplay("greedy")),
}


def measure(name: str) -> int:
    """Instructions executed inside the workload's kernel entry point."""
    pattern, _ = WORKLOADS[name]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        subprocess.run(
            ["valgrind", "--tool=callgrind", "--collect-atstart=no",
             f"--toggle-collect={pattern}", f"--callgrind-out-file={out}",
             sys.executable, __file__, "--run", name],
            check=True, capture_output=True, text=True,
        )
        for line in out.read_text().splitlines():
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise RuntimeError(f"no instruction total in callgrind's output for {name}")


def measure_all() -> dict[str, int]:
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(WORKLOADS, pool.map(measure, WORKLOADS)))


def compare(counts: dict[str, int], baseline: dict[str, int]) -> list[str]:
    """The regressions: workloads more than TOLERANCE over their baseline (or without one)."""
    failures = []
    for name, count in counts.items():
        base = baseline.get(name)
        if base is None:
            failures.append(f"{name}: no baseline (run with --update)")
        elif count > base * (1 + TOLERANCE):
            failures.append(f"{name}: {count:,} instructions, {count / base - 1:+.1%} over "
                            f"the baseline {base:,}")
    return failures


def main(argv: list[str]) -> int:
    if argv[:1] == ["--run"]:
        WORKLOADS[argv[1]][1]()
        return 0
    counts = measure_all()
    if argv[:1] == ["--update"]:
        BASELINE.write_text(json.dumps(counts, indent=2) + "\n")
        print(f"wrote {BASELINE}")
        return 0
    baseline = json.loads(BASELINE.read_text())
    for name, count in counts.items():
        print(f"{name:18s} {count:>15,}  ({count / baseline[name] - 1:+.1%} vs baseline)")
    failures = compare(counts, baseline)
    print("\n".join(failures) or "no regression")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
