"""The screens of docs/bots.md, "Spending the budget in classic and JJ": duplicate pairs of
each candidate against one opponent, in this process, each run's per-pair margins kept.

::

    python benchmarks/screen_defaults.py --rules jj --pairs 300 --seed 11 --against default \\
        default:shortlist=5 default:strength=2

``hybrid`` (registered here) is a fallback for classic: ``fast`` above ``cards`` cards left in
the four hands, the guarded heuristic (``guarded``) from there down
(``default:fallback=hybrid:cards=40``)."""

from __future__ import annotations

import argparse
import json
import os

import numpy as np

from shuangkou import arena, bots


def _hybrid(rules, cards=32, late="guarded"):
    early, lateb = bots.make("fast", rules), bots.make(late, rules)

    def policy(view, plays, rng):
        left = sum(view.cards_left(s) for s in range(4))
        return (lateb if left <= cards else early)(view, plays, rng)

    return bots.Bot("hybrid", rules, policy, early.wilds)


bots.register("hybrid", _hybrid)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bots", nargs="+", help="the candidates (arena specs)")
    ap.add_argument("--rules", default="jj")
    ap.add_argument("--pairs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--against", default="default")
    ap.add_argument("--out", default=None, help="a folder: each run's margins as .npy, a JSON line each")
    args = ap.parse_args()
    for a in args.bots:
        r = arena.duel(a, args.against, args.rules, args.pairs, seed=args.seed,
                       start=args.start, processes=1)
        print(r, flush=True)
        if args.out:
            tag = f"{args.rules}__{a}__{args.against}__s{args.seed}__st{args.start}__n{args.pairs}"
            np.save(os.path.join(args.out, tag.replace("/", "_") + ".npy"), r.margins.mean(1))
            with open(os.path.join(args.out, "screens.jsonl"), "a") as f:
                f.write(json.dumps({"tag": tag, "summary": str(r)}) + "\n")


if __name__ == "__main__":
    main()
