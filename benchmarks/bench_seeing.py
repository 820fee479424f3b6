"""The gap to a bot that sees all four hands (docs/bots.md, "Results"): a measurement, not a bot.

::

    python benchmarks/bench_seeing.py --rules baibian --pairs 500
    python benchmarks/bench_seeing.py --rules baibian --pairs 500 --against default-2026.12
    python benchmarks/bench_seeing.py --rules baibian --pairs 300 --options max_cards=40

The *seeing* bot is ``bots.DEFAULT``'s PIMC for the preset, its budget and fallback unchanged
(``--options`` overrides them, as a bot spec's options), with its worlds replaced by one: the
true position (``Game.state``, every hand). Its midgame search is off (it draws uniform
worlds of its own, not the sampler's): the seeing bot searches the truth exactly from
``max_cards`` down, over the default's fallback. It is handed the whole :class:`~shuangkou.Game`
(``sim.with_game``), so it plays only here, never in a contest. It plays ``--pairs`` duplicate
deal pairs against ``--against`` (each deal twice, the seeing bot's team on seats 0+2, then
1+3, the deals of ``shuangkou arena``'s run seeded ``--seed``) and the margin a deal is
printed as the arena prints it: the mean with its 95% CI over pairs, the shares of pairs won
and lost, each side's CPU ms a decision (mean, worst).
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

import numpy as np

from shuangkou import bots, simulate
from shuangkou.arena import _Timed  # the arena's CPU timing of each decision
from shuangkou.rules import as_rules
from shuangkou.sim import with_game
from shuangkou.solve import pimc_policy


def _truth(game: Any, seat: int, n: int, seed: int) -> list[Any]:
    """The sampler of the seeing bot: the true position, whatever ``n``."""
    return [game.state]


def seeing_bot(rules: Any, **overrides: Any) -> Any:
    """``bots.DEFAULT``'s PIMC for ``rules`` searching the true position (one world)."""
    r = as_rules(rules)
    maker, options = bots.DEFAULT[r.name]
    if maker != "pimc":
        raise SystemExit(f"the default of {r.name} is {maker!r}, not PIMC: nothing to give "
                         "the true hands to")
    options = {**options, **overrides}
    options.pop("sampler", None)  # one world, the truth
    options.pop("worlds", None)
    fallback = bots.make(options.pop("fallback"), r)
    for key in ("mid_worlds", "mid_nodes", "mid_depth", "margin", "shortlist"):
        options.pop(key, None)  # the midgame draws uniform worlds, not the sampler's: off
    policy = pimc_policy(1, options.pop("max_nodes", 50_000), fallback=fallback,
                         sampler=_truth, **options)
    policy.__name__ = "seeing"
    return policy


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="baibian")
    ap.add_argument("--pairs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--against", default="default", help="the bot it plays (a bot spec)")
    ap.add_argument("--options", default="", help="the seeing bot's options over DEFAULT's")
    a = ap.parse_args()
    r = as_rules(a.rules)
    _, overrides = bots.parse_spec("pimc:" + a.options)
    mine = _Timed(seeing_bot(r, **overrides))
    theirs = _Timed(bots.resolve(a.against, r))
    margins = np.zeros((a.pairs, 2))
    t0 = time.perf_counter()
    for team in (0, 1):
        pols = [with_game(mine) if s % 2 == team else theirs for s in range(4)]
        res = simulate(a.pairs, r, pols, seed=a.seed, start=a.start)
        u = res.units.astype(np.int64)
        margins[:, team] = u[:, team::2].sum(1) - u[:, 1 - team::2].sum(1)
    m = margins.mean(1)
    half = 1.959964 * float(m.std(ddof=1)) / math.sqrt(len(m)) if len(m) > 1 else math.inf
    ms = [1000 * np.array(t.times) for t in (mine, theirs)]
    print(f"seeing ({a.options or 'DEFAULT'}) vs {a.against} under {r.name}, {a.pairs} "
          f"duplicate deal pairs (seed {a.seed}, start {a.start}):")
    print(f"  margin {m.mean():+.2f} units a deal, 95% CI [{m.mean() - half:+.2f}, "
          f"{m.mean() + half:+.2f}]; won {(m > 0).mean():.1%}, lost {(m < 0).mean():.1%}")
    print(f"  CPU ms a decision: seeing {ms[0].mean():.2f} (worst {ms[0].max():.1f}), "
          f"{a.against} {ms[1].mean():.2f} (worst {ms[1].max():.1f}); "
          f"{time.perf_counter() - t0:.0f} s wall")


if __name__ == "__main__":
    main()
