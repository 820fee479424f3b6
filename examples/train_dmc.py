"""Deep Monte-Carlo (DMC, as DouZero) over ``shuangkou.rl.VecEnv``, in plain numpy.

The agent plays seats 0 and 2 (one team) against the kernel's built-in opponents on seats 1
and 3. For every legal play of the seat to act (and pass, when answering) a small MLP scores
``Q(observation, play)``; the agent takes the best (ε-greedy while training). When a deal
ends, each decision the team made is a training sample whose target is the team's final R8
score (Monte-Carlo return, no bootstrapping). Half the training deals are against ``random``,
half against ``greedy``.

Run (numpy only; matplotlib for the curve)::

    python examples/train_dmc.py --minutes 20 --eval-deals 2000 --curve-every 90 \
        --png curve.png --json result.json      # the run reported in docs/rl.md
    python examples/train_dmc.py                # a one-minute demo
    python examples/train_dmc.py --deals 2000 --eval-deals 250     # a one-minute smoke

At the end it plays ``--eval-deals`` seeded deals (seeds the training never saw) against
``random`` and against ``greedy`` with ε = 0 and prints the team's first-finisher share and
mean score with 95% confidence intervals, beside a uniformly random agent on the same deals.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shuangkou.rl import Step, VecEnv

AGENT_SEATS = (0, 2)
OPPONENT_SEATS = (1, 3)
OBS_SCALE = 8.0
SCORE_SCALE = 8.0       # targets are team scores / 8, clipped to ±4
N_KINDS = 11            # 10 play kinds + pass


# -- features ------------------------------------------------------------------------------------
def features(out: Step) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows ``(state, candidate)`` for every legal play of every deal, then one pass row per
    answering deal. Returns ``(X, env_of_row, is_pass)``."""
    n = out.obs.shape[0]
    counts = np.diff(out.offsets)
    env_play = np.repeat(np.arange(n), counts)
    env_pass = np.flatnonzero(out.can_pass)
    env = np.concatenate([env_play, env_pass])
    obs = out.obs[env] / OBS_SCALE
    hand = out.obs[env, :15]
    cards = np.zeros((env.shape[0], 15), np.float32)
    cards[: env_play.shape[0]] = out.cards
    kind = np.full(env.shape[0], N_KINDS - 1)
    kind[: env_play.shape[0]] = out.features[:, 0]
    f = np.zeros((env.shape[0], 4), np.float32)
    f[: env_play.shape[0]] = out.features[:, [1, 4, 5, 6]] / np.array([14, 16, 27, 4], np.float32)
    onehot = np.eye(N_KINDS, dtype=np.float32)[kind]
    x = np.concatenate([obs, cards / OBS_SCALE, (hand - cards) / OBS_SCALE, onehot, f], axis=1)
    is_pass = np.zeros(env.shape[0], bool)
    is_pass[env_play.shape[0]:] = True
    return x.astype(np.float32), env, is_pass


def choose(q: np.ndarray, env: np.ndarray, n: int) -> np.ndarray:
    """Row index of the best candidate of each deal."""
    order = np.lexsort((-q, env))
    first = np.ones(order.shape[0], bool)
    first[1:] = env[order[1:]] != env[order[:-1]]
    best = np.empty(n, np.int64)
    best[env[order[first]]] = order[first]
    return best


def row_to_action(rows: np.ndarray, env: np.ndarray, is_pass: np.ndarray,
                  out: Step) -> np.ndarray:
    a = rows - out.offsets[env[rows]]
    a[is_pass[rows]] = -1
    return a.astype(np.int64)


# -- the network ---------------------------------------------------------------------------------
class MLP:
    """``Q = W3·relu(W2·relu(W1·x))`` with Adam, mean-squared error."""

    def __init__(self, d: int, hidden: tuple[int, ...], rng: np.random.Generator) -> None:
        sizes = (d, *hidden, 1)
        self.w = [rng.normal(0, math.sqrt(2 / a), (a, b)).astype(np.float32)
                  for a, b in zip(sizes[:-1], sizes[1:])]
        self.b = [np.zeros(b, np.float32) for b in sizes[1:]]
        self.m = [np.zeros_like(p) for p in self.w + self.b]
        self.v = [np.zeros_like(p) for p in self.w + self.b]
        self.t = 0

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
        acts = [x]
        h = x
        for i, (w, b) in enumerate(zip(self.w, self.b)):
            h = h @ w + b
            if i < len(self.w) - 1:
                h = np.maximum(h, 0)
            acts.append(h)
        return h[:, 0], acts

    def train(self, x: np.ndarray, y: np.ndarray, lr: float) -> float:
        q, acts = self.forward(x)
        err = q - y
        g = (2 * err / x.shape[0])[:, None].astype(np.float32)
        grads_w: list[np.ndarray] = []
        grads_b: list[np.ndarray] = []
        for i in range(len(self.w) - 1, -1, -1):
            grads_w.append(acts[i].T @ g)
            grads_b.append(g.sum(0))
            if i:
                g = (g @ self.w[i].T) * (acts[i] > 0)
        grads = grads_w[::-1] + grads_b[::-1]
        self.t += 1
        params = self.w + self.b
        for k, (p, gr) in enumerate(zip(params, grads)):
            self.m[k] = 0.9 * self.m[k] + 0.1 * gr
            self.v[k] = 0.999 * self.v[k] + 0.001 * gr * gr
            mh = self.m[k] / (1 - 0.9 ** self.t)
            vh = self.v[k] / (1 - 0.999 ** self.t)
            p -= (lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        return float((err ** 2).mean())

    def q(self, x: np.ndarray) -> np.ndarray:
        return self.forward(x)[0]


# -- self-contained evaluation -------------------------------------------------------------------
@dataclass
class Tally:
    """Finished deals of the agent team: who finished first, team score."""

    first: list[bool] = field(default_factory=list)
    score: list[float] = field(default_factory=list)

    def add(self, out: Step, rows: np.ndarray) -> None:
        for i in np.flatnonzero(rows):
            self.first.append(int(out.places[i, 0]) in AGENT_SEATS)
            self.score.append(float(out.team_rewards[i, 0]))

    def summary(self) -> dict[str, Any]:
        n = len(self.first)
        k = sum(self.first)
        z = 1.959964
        p = k / n
        den = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / den
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
        s = np.array(self.score)
        se = s.std(ddof=1) / math.sqrt(n)
        return {"deals": n, "first_share": p, "first_ci": [centre - half, centre + half],
                "mean_score": float(s.mean()), "score_ci": [float(s.mean() - z * se),
                                                            float(s.mean() + z * se)]}


def evaluate(net: MLP | None, preset: str, opponent: str, deals: int, seed: int,
             threads: int, rng: np.random.Generator) -> dict[str, Any]:
    """Deals ``0..deals-1`` of the stream ``seed`` (rows of 250: each row plays its share),
    ε = 0; ``net=None`` is the uniformly random agent."""
    n = 250 if deals % 250 == 0 else deals
    per_row = deals // n
    env = VecEnv(preset, n, threads=threads, opponents={s: opponent for s in OPPONENT_SEATS})
    out = env.reset(seed)
    tally = Tally()
    done_rows = np.zeros(n, np.int64)
    while done_rows.min() < per_row:
        if net is None:
            k = np.diff(out.offsets)
            a = (rng.random(n) * (k + out.can_pass)).astype(np.int64)
            a[a == k] = -1
        else:
            x, e, is_pass = features(out)
            a = row_to_action(choose(net.q(x), e, n), e, is_pass, out)
        live = done_rows < per_row
        out = env.step(a)
        tally.add(out, out.done & live)
        done_rows += out.done
    env.close()
    return tally.summary()


# -- training ------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", default="baibian")
    ap.add_argument("--minutes", type=float, default=1.0, help="1: a quick demo; 20: real")
    ap.add_argument("--deals", type=int, default=None, help="stop after this many deals")
    ap.add_argument("--envs", type=int, default=128, help="deals per VecEnv (two VecEnvs)")
    ap.add_argument("--hidden", default="256,128")
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--eval-deals", type=int, default=250)
    ap.add_argument("--curve-deals", type=int, default=250, help="deals per curve point")
    ap.add_argument("--curve-every", type=float, default=20.0, help="seconds between points")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--png", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    envs = [VecEnv(args.preset, args.envs, threads=args.threads,
                   opponents={s: opp for s in OPPONENT_SEATS}) for opp in ("random", "greedy")]
    outs = [env.reset(args.seed * 1000 + k) for k, env in enumerate(envs)]
    d = features(outs[0])[0].shape[1]
    net = MLP(d, tuple(int(h) for h in args.hidden.split(",")), rng)
    cap = 200_000
    replay_x = np.zeros((cap, d), np.float32)
    replay_y = np.zeros(cap, np.float32)
    stored = 0
    pending: list[list[list[np.ndarray]]] = [[[] for _ in range(args.envs)] for _ in envs]
    curve: list[dict[str, Any]] = []
    start = time.perf_counter()
    deadline = start + 60 * args.minutes
    next_point = start
    deals = decisions = updates = 0
    loss = float("nan")
    while True:
        now = time.perf_counter()
        if args.deals is not None and deals >= args.deals:
            deadline = now
        if now >= next_point or now >= deadline:
            point = evaluate(net, args.preset, "greedy", args.curve_deals, 10**6 + len(curve),
                             args.threads, rng)
            point.update(seconds=round(now - start, 1), deals_trained=deals,
                         decisions=decisions, loss=loss)
            curve.append(point)
            print(f"[{point['seconds']:7.1f}s] deals {deals:7d}  vs greedy: first "
                  f"{point['first_share']:.3f} score {point['mean_score']:+.2f}  loss {loss:.3f}",
                  flush=True)
            next_point = time.perf_counter() + args.curve_every
            if now >= deadline:
                break
        eps = max(0.05, 0.3 * (1 - (now - start) / (0.5 * (deadline - start))))
        for k, env in enumerate(envs):
            out = outs[k]
            x, e, is_pass = features(out)
            rows = choose(net.q(x), e, args.envs)
            explore = rng.random(args.envs) < eps
            if explore.any():
                cnt = np.bincount(e, minlength=args.envs)
                start_row = np.concatenate([[0], np.cumsum(cnt)[:-1]])
                order = np.argsort(e, kind="stable")
                pick = order[start_row + (rng.random(args.envs) * cnt).astype(np.int64)]
                rows = np.where(explore, pick, rows)
            for i in range(args.envs):
                pending[k][i].append(x[rows[i]])
            decisions += args.envs
            out = env.step(row_to_action(rows, e, is_pass, out))
            outs[k] = out
            for i in np.flatnonzero(out.done):
                xs = np.stack(pending[k][i])
                y = np.clip(out.team_rewards[i, 0] / SCORE_SCALE, -4, 4)
                idx = (stored + np.arange(xs.shape[0])) % cap
                replay_x[idx] = xs
                replay_y[idx] = y
                stored += xs.shape[0]
                pending[k][i] = []
                deals += 1
        if stored >= args.batch:
            for _ in range(2):
                pick = rng.integers(0, min(stored, cap), args.batch)
                loss = net.train(replay_x[pick], replay_y[pick], args.lr)
                updates += 1
    for env in envs:
        env.close()

    result: dict[str, Any] = {
        "preset": args.preset, "minutes": args.minutes, "deals_trained": deals,
        "decisions": decisions, "updates": updates, "curve": curve, "eval": {},
    }
    eval_seed = 2**40 + args.seed
    for opp in ("random", "greedy"):
        result["eval"][opp] = {
            "trained": evaluate(net, args.preset, opp, args.eval_deals, eval_seed, args.threads,
                                rng),
            "random_agent": evaluate(None, args.preset, opp, args.eval_deals, eval_seed,
                                     args.threads, rng),
        }
        for who, r in result["eval"][opp].items():
            print(f"{who:13s} vs {opp:6s} over {r['deals']} deals: first-finisher share "
                  f"{r['first_share']:.3f} [{r['first_ci'][0]:.3f}, {r['first_ci'][1]:.3f}], "
                  f"mean team score {r['mean_score']:+.2f} "
                  f"[{r['score_ci'][0]:+.2f}, {r['score_ci'][1]:+.2f}]")
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
    for a, key, ci, label in ((ax[0], "first_share", "first_ci", "team first-finisher share"),
                              (ax[1], "mean_score", "score_ci", "mean team score")):
        a.plot(t, [p[key] for p in c], marker="o")
        a.fill_between(t, [p[ci][0] for p in c], [p[ci][1] for p in c], alpha=0.25)
        a.set_xlabel("training deals")
        a.set_title(f"{label} vs greedy ({c[0]['deals']} deals/point)")
        a.grid(alpha=0.3)
    ax[0].axhline(0.5, color="grey", lw=0.8)
    ax[1].axhline(0.0, color="grey", lw=0.8)
    fig.suptitle(f"DMC on shuangkou.rl.VecEnv ({result['preset']}), "
                 f"{result['minutes']:g} min on 2 shared cores")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
