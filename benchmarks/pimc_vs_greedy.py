"""Head-to-head: one team plays ``sk.pimc_policy``, the other the greedy policy, over seeded
deals (seats swapped every other deal), through the Python ``Game`` loop of
``shuangkou.sim.play_deal``. Prints the PIMC team's mean margin (its R8 units minus the other
team's, per deal) with a 95% confidence interval, its win/tie/loss counts and the mean time per
PIMC decision::

    python benchmarks/pimc_vs_greedy.py --rules baibian --deals 1000
    python benchmarks/pimc_vs_greedy.py --deals 500 --start 500 --json part2.json   # split runs
    python benchmarks/pimc_vs_greedy.py --merge part1.json part2.json

Deal ``i`` is deal ``i`` of a run seeded ``--seed``: the same deals for every setting.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from typing import Any

from shuangkou import Game, Play, Rules, pimc_policy
from shuangkou.sim import play_deal


def run(rules: str, start: int, deals: int, worlds: int, nodes: int, seed: int,
        evaluation: str, save: str | None = None) -> dict[str, Any]:
    """Play the deals; with ``save``, the raw figures are rewritten there every 10 deals (a
    long run can be reported on while it goes)."""
    policy = pimc_policy(worlds=worlds, max_nodes=nodes, evaluation=evaluation)  # type: ignore[arg-type]
    spent = [0, 0.0]

    def timed(game: Game, plays: list[Play], rng: object) -> Play | None:
        t = time.perf_counter()
        choice = policy(game, plays, rng)
        spent[0] += 1
        spent[1] += time.perf_counter() - t
        return choice

    timed.wilds = "all"  # type: ignore[attr-defined]
    margins: list[int] = []
    out = {"rules": rules, "worlds": worlds, "nodes": nodes, "evaluation": evaluation,
           "margins": margins, "decisions": 0, "seconds": 0.0}
    for i in range(start, start + deals):
        pimc = (0, 2) if i % 2 == 0 else (1, 3)
        pols = [timed if s in pimc else "greedy" for s in range(4)]
        game, _ = play_deal(Rules.preset(rules), seed, pols, index=i)  # type: ignore[arg-type]
        assert game.result is not None
        u = game.result.units
        margins.append(sum(u[s] if s in pimc else -u[s] for s in range(4)))
        out["decisions"], out["seconds"] = spent
        if save and (len(margins) % 10 == 0 or i == start + deals - 1):
            with open(save, "w") as f:
                json.dump(out, f)
    return out


def report(parts: list[dict[str, Any]]) -> str:
    margins = [m for p in parts for m in p["margins"]]
    dec = sum(p["decisions"] for p in parts)
    sec = sum(p["seconds"] for p in parts)
    n = len(margins)
    mean = statistics.fmean(margins)
    half = 1.959964 * statistics.stdev(margins) / math.sqrt(n) if n > 1 else math.inf
    wins = sum(m > 0 for m in margins)
    ties = sum(m == 0 for m in margins)
    p = parts[0]
    return (
        f"{p['rules']}: PIMC ({p['worlds']} worlds, {p['nodes']} nodes/world, "
        f"{p['evaluation']}) vs greedy over {n} deals\n"
        f"  mean margin per deal {mean:+.2f} units, 95% CI [{mean - half:+.2f}, "
        f"{mean + half:+.2f}]\n"
        f"  PIMC team won {wins}, tied {ties}, lost {n - wins - ties} "
        f"({wins / n:.1%} / {ties / n:.1%} / {(n - wins - ties) / n:.1%})\n"
        f"  {dec} PIMC decisions, mean {1000 * sec / max(dec, 1):.1f} ms per decision (wall)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="baibian")
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--worlds", type=int, default=8)
    ap.add_argument("--nodes", type=int, default=300)
    ap.add_argument("--evaluation", default="rollout", choices=["rollout", "hand_count"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="write the raw margins here (every 10 deals)")
    ap.add_argument("--merge", nargs="+", help="report on saved --json parts instead")
    a = ap.parse_args()
    if a.merge:
        parts = []
        for path in a.merge:
            with open(path) as f:
                parts.append(json.load(f))
    else:
        parts = [run(a.rules, a.start, a.deals, a.worlds, a.nodes, a.seed, a.evaluation,
                     a.json)]
    print(report(parts))


if __name__ == "__main__":
    main()
