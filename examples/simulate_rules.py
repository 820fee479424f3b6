# examples/simulate_rules.py
"""Rule analysis: how often each preset ends 双扣 / 单扣 / 平扣 (R8) and how big its bombs
get, from greedy self-play, with 95% confidence intervals and a plot.

    pip install 'shuangkou[plot]'
    python examples/simulate_rules.py [FOLDER]   # writes FOLDER/presets.png (default: the
                                                 # temp folder); SK_SMOKE=1: fewer deals
"""

import os
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")  # files only, no window
import matplotlib.pyplot as plt
import numpy as np

from shuangkou import PRESETS, simulate
from shuangkou.sim import OUTCOMES_EN


def main(deals: int, out: str) -> None:
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    width = 0.8 / len(PRESETS)
    for i, name in enumerate(PRESETS):
        res = simulate(deals, name, "greedy", threads=2, seed=1)
        summary = res.summary()
        shares = [summary["outcomes"][o]["share"] for o in summary["outcomes"]]
        lows, highs = zip(*(summary["outcomes"][o]["ci95"] for o in summary["outcomes"]))
        errors = [np.subtract(shares, lows), np.subtract(highs, shares)]
        x = np.arange(len(shares)) + i * width
        left.bar(x, shares, width, yerr=errors, label=name)
        # the biggest bomb of each deal, by stars (-1: no bomb in the deal)
        stars, counts = np.unique(res.max_stars, return_counts=True)
        right.plot(stars, counts / deals, "o-", label=name)
        print(f"{name:>9}: " + "  ".join(f"{o} {s:.1%}" for o, s in zip(OUTCOMES_EN, shares)))
    left.set_xticks(np.arange(3) + 0.4 - width / 2, OUTCOMES_EN)
    left.set_title(f"outcome share, greedy self-play, {deals} deals")
    left.legend()
    right.set_xlabel("stars of the deal's biggest bomb (-1: none; classic: 0)")
    right.set_title("share of deals")
    right.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=80)
    print(f"wrote {out}")


if __name__ == "__main__":
    folder = sys.argv[1] if len(sys.argv) > 1 else tempfile.gettempdir()
    main(2_000 if os.environ.get("SK_SMOKE") else 100_000, os.path.join(folder, "presets.png"))
