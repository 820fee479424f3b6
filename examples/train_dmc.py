"""Train the learned bot (``shuangkou.bots.make("learned", rules)``): Deep Monte-Carlo (DMC, as
DouZero) over ``shuangkou.rl.VecEnv``, numpy only, on a CPU.

The agent plays seats 0 and 2 (one team) against the kernel's greedy opponents on seats 1 and
3. For every legal play of the seat to act (and pass, when answering) a small MLP scores
``Q(position, play)`` from the features of :mod:`shuangkou.learned`; when a deal ends, each
decision the team made is a training sample whose target is the team's final R8 score (the
Monte-Carlo return, no bootstrapping).

What makes it learn in an hour on a CPU (docs/bots.md, "The learned bot"):

* one feature says which candidate greedy itself would play, so greedy is a one-weight policy
  for the network and training learns *when to deviate* from it;
* for the first ``--warm`` share of the time the team plays greedy with ε-random deviations:
  the targets then estimate greedy's own action values, and acting on their argmax is a policy
  improvement step over greedy; after it the team plays the network (ε-greedy, ε decaying),
  Monte-Carlo policy iteration from there.

The shipped weights (``src/shuangkou/learned_weights.npz``) were made by::

    python examples/train_dmc.py --minutes 60 --seed 1 --out src/shuangkou/learned_weights.npz \\
        --json train.json --png docs/images/learning_curve.png

Other runs::

    python examples/train_dmc.py --presets classic,jj --minutes 50 --seed 2 --out classic_jj.npz
    python examples/train_dmc.py --bundle baibian.npz classic_jj.npz \
        --out src/shuangkou/learned_weights.npz       # one file, a network per preset

Other runs::

    python examples/train_dmc.py --minutes 1 --out /tmp/w.npz     # a one-minute smoke (CI)

Every ``--curve-every`` seconds it plays ``--curve-deals`` duplicate deal pairs against greedy
(each deal twice, the team's seats exchanged; ε = 0; seeds training never saw) and prints the
mean margin a deal with its 95% CI, the share of deals won and the training loss (``-`` before
the first update: the curve's first point comes before any training).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from typing import Any

import numpy as np

from shuangkou import Rules
from shuangkou.learned import DIM, GREEDY_COLUMN, MLP, Adam, best_rows, bundle, features
from shuangkou.rl import Step, VecEnv

SCORE_SCALE = 16.0   # targets are team scores / 16, clipped to ±6
CLIP = 6.0


def candidates(out: Step, rules: Rules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return features(out.obs, out.offsets, out.cards, out.features, out.can_pass, rules)


def to_actions(rows: np.ndarray, env: np.ndarray, is_pass: np.ndarray, out: Step) -> np.ndarray:
    """Legal-list indices (-1 = pass) of the chosen candidate rows."""
    a = rows - out.offsets[env[rows]]
    a[is_pass[rows]] = -1
    return a.astype(np.int64)


def random_rows(env: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random candidate row of each observation (rows are grouped by env)."""
    cnt = np.bincount(env, minlength=n)
    order = np.argsort(env, kind="stable")
    start = np.concatenate([[0], np.cumsum(cnt)[:-1]])
    return order[start + (rng.random(n) * cnt).astype(np.int64)]


# -- evaluation on duplicate deals ---------------------------------------------------------------
def duplicate(net: MLP, preset: str, pairs: int, seed: int) -> dict[str, Any]:
    """Deals ``0..pairs-1`` of the stream ``seed`` played twice: the network on seats 0+2, then
    on 1+3, greedy on the others. Per deal: the network team's margin (its seats' scores minus
    the others', summed over the two plays)."""
    rules = Rules.preset(preset)
    margin = np.zeros(pairs)
    first = np.zeros(pairs)
    for team in (0, 1):
        env = VecEnv(rules, pairs, autoreset=False,
                     opponents={s: "greedy" for s in range(4) if s % 2 != team})
        out = env.reset(seed)
        live = np.ones(pairs, bool)
        while live.any():
            x, e, is_pass = candidates(out, rules)
            a = np.zeros(pairs, np.int64)
            if x.shape[0]:
                rows = best_rows(net.q(x), e, pairs)
                ok = rows >= 0
                a[ok] = to_actions(rows[ok], e, is_pass, out)
            out = env.step(a)
            d = out.done & live
            margin[d] += out.team_rewards[d, team] - out.team_rewards[d, 1 - team]
            first[d] += (out.places[d, 0] % 2) == team
            live &= ~out.done
        env.close()
    half = 1.959964 * margin.std(ddof=1) / math.sqrt(pairs)
    return {"pairs": pairs, "margin": float(margin.mean() / 2),
            "margin_ci": [float((margin.mean() - half) / 2), float((margin.mean() + half) / 2)],
            "won": float((margin > 0).mean()), "lost": float((margin < 0).mean()),
            "first": float(first.mean() / 2)}


# -- training ------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> dict[str, Any]:
    smoke = os.environ.get("SK_SMOKE") == "1"  # tests/test_examples.py: a few seconds
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--presets", default="baibian", help="comma-separated presets to train on")
    ap.add_argument("--minutes", type=float, default=0.2 if smoke else 1.0,
                    help="wall-clock training time")
    ap.add_argument("--envs", type=int, default=256, help="deals stepped together per preset")
    ap.add_argument("--hidden", default="128,64")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--updates", type=int, default=2, help="updates per env step")
    ap.add_argument("--warm", type=float, default=0.3,
                    help="share of the time the team plays ε-greedy around greedy")
    ap.add_argument("--curve-pairs", type=int, default=50 if smoke else 200,
                    help="duplicate pairs a curve point")
    ap.add_argument("--curve-every", type=float, default=300.0, help="seconds between points")
    ap.add_argument("--eval-pairs", type=int, default=100 if smoke else 1000,
                    help="final evaluation, per preset")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None, help="write the weights here (.npz), also at points")
    ap.add_argument("--json", default=None)
    ap.add_argument("--png", default=None)
    ap.add_argument("--bundle", nargs="+", metavar="NPZ",
                    help="instead of training: bundle these --out files into --out")
    args = ap.parse_args(argv)
    if args.bundle:
        bundle(args.bundle, args.out)
        return {"bundled": args.bundle, "out": args.out}

    rng = np.random.default_rng(args.seed)
    presets = args.presets.split(",")
    rules = [Rules.preset(p) for p in presets]
    envs = [VecEnv(r, args.envs, opponents={1: "greedy", 3: "greedy"}) for r in rules]
    outs = [env.reset(args.seed * 1000 + k) for k, env in enumerate(envs)]
    net = MLP.new(tuple(int(h) for h in args.hidden.split(",")), rng)
    opt = Adam(net, args.lr)
    cap = 400_000
    replay_x = np.zeros((cap, DIM), np.float32)
    replay_y = np.zeros(cap, np.float32)
    stored = 0
    pending: list[list[list[np.ndarray]]] = [[[] for _ in range(args.envs)] for _ in envs]
    curve: list[dict[str, Any]] = []
    start = time.perf_counter()
    cpu0 = time.process_time()
    deadline = start + 60 * args.minutes
    warm_end = start + args.warm * 60 * args.minutes
    next_point = start
    deals = decisions = updates = 0
    loss: float | None = None
    meta = {"command": "examples/train_dmc.py " + " ".join(argv or __import__("sys").argv[1:]),
            "seed": args.seed, "presets": args.presets, "hidden": args.hidden}
    while True:
        now = time.perf_counter()
        if now >= next_point or now >= deadline:
            point = duplicate(net, presets[0], args.curve_pairs, 10**6 + len(curve))
            point.update(seconds=round(now - start, 1), cpu_seconds=round(time.process_time()
                                                                          - cpu0, 1),
                         deals_trained=deals, decisions=decisions, loss=loss)
            curve.append(point)
            shown = "-" if loss is None else f"{loss:.3f}"
            print(f"[{point['seconds']:7.1f}s] deals {deals:7d}  vs greedy on {presets[0]}: "
                  f"margin {point['margin']:+.2f} [{point['margin_ci'][0]:+.2f}, "
                  f"{point['margin_ci'][1]:+.2f}] won {point['won']:.3f}  loss {shown}",
                  flush=True)
            if args.out:
                net.save(args.out, deals=deals, **meta)
            next_point = time.perf_counter() + args.curve_every
            if now >= deadline:
                break
        warm = now < warm_end
        frac = (now - warm_end) / max(deadline - warm_end, 1e-9)
        eps = 0.2 if warm else max(0.03, 0.15 * (1 - frac))
        for k, env in enumerate(envs):
            out = outs[k]
            x, e, is_pass = candidates(out, rules[k])
            n = args.envs
            if warm:
                rows = np.flatnonzero(x[:, GREEDY_COLUMN] > 0)
                pick = np.full(n, -1, np.int64)
                pick[e[rows]] = rows
                miss = pick < 0
                if miss.any():
                    pick[miss] = random_rows(e, n, rng)[miss]
            else:
                pick = best_rows(net.q(x), e, n)
            explore = rng.random(n) < eps
            if explore.any():
                pick = np.where(explore, random_rows(e, n, rng), pick)
            chosen = x[pick]
            for i in range(n):
                pending[k][i].append(chosen[i])
            decisions += n
            out = env.step(to_actions(pick, e, is_pass, out))
            outs[k] = out
            for i in np.flatnonzero(out.done):
                xs = np.stack(pending[k][i])
                y = np.clip(out.team_rewards[i, 0] / SCORE_SCALE, -CLIP, CLIP)
                idx = (stored + np.arange(xs.shape[0])) % cap
                replay_x[idx] = xs
                replay_y[idx] = y
                stored += xs.shape[0]
                pending[k][i] = []
                deals += 1
            if stored >= 10 * args.batch:
                for _ in range(args.updates):
                    sel = rng.integers(0, min(stored, cap), args.batch)
                    loss = opt.step(replay_x[sel], replay_y[sel])
                    updates += 1
    for env in envs:
        env.close()

    result: dict[str, Any] = {
        **meta, "minutes": args.minutes, "deals_trained": deals, "decisions": decisions,
        "updates": updates, "cpu_seconds": round(time.process_time() - cpu0, 1),
        "curve": curve, "eval": {},
    }
    if args.out:
        net.save(args.out, deals=deals, **meta)
    for p in presets:
        r = duplicate(net, p, args.eval_pairs, 2**40 + args.seed)
        result["eval"][p] = r
        print(f"{p}: vs greedy over {r['pairs']} duplicate pairs: margin {r['margin']:+.2f} "
              f"[{r['margin_ci'][0]:+.2f}, {r['margin_ci'][1]:+.2f}] a deal, won "
              f"{r['won']:.1%}, lost {r['lost']:.1%}, first out {r['first']:.1%}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    if args.png:
        plot(result, args.png)
    return result


def plot(result: dict[str, Any], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    c = result["curve"]
    t = [p["deals_trained"] for p in c]
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    ax[0].plot(t, [p["margin"] for p in c], marker="o")
    ax[0].fill_between(t, [p["margin_ci"][0] for p in c], [p["margin_ci"][1] for p in c],
                       alpha=0.25)
    ax[0].set_title(f"margin a deal vs greedy ({c[0]['pairs']} duplicate pairs a point)")
    ax[1].plot(t, [p["won"] for p in c], marker="o")
    ax[1].set_title("share of deals won vs greedy")
    ax[0].axhline(0.0, color="grey", lw=0.8)
    ax[1].axhline(0.5, color="grey", lw=0.8)
    for a in ax:
        a.set_xlabel("training deals")
        a.grid(alpha=0.3)
    fig.suptitle(f"DMC on shuangkou.rl.VecEnv ({result['presets']}), "
                 f"{result['minutes']:g} min on 2 shared cores")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
