"""Why the midgame search gains in 百变 and not in classic or JJ (docs/bots.md, "Why classic
and JJ gain nothing from the midgame"): a measurement of the midgame's judge, not a bot.

::

    python benchmarks/bench_midgame.py --rules jj --deals 30 --mode rates
    python benchmarks/bench_midgame.py --rules jj --deals 30 --mode rates --sampler weighted
    python benchmarks/bench_midgame.py --rules jj --deals 80 --mode regret --worlds 0
    python benchmarks/bench_midgame.py --rules jj --deals 80 --mode regret --worlds 8

Self-play deals of ``default:mid_worlds=0`` (deals of the run seeded ``--seed``); at the
decisions it sees, the midgame's judge — ``bots.DEFAULT``'s midgame settings for 百变: worlds
searched one move deep within 2,000 nodes each, the horizon played out by greedy rollouts,
the shortlist of the three least-damage plays and pass against the fallback's (``fast``'s)
move — is run beside it (the deal goes on with the default's own move):

* ``--mode rates``: at every decision above 32 cards (where the default leaves the fallback alone),
  how often the shortlist's best beats the fallback's move by more than each margin in the
  mean over 8 worlds (the rate the midgame would override at), and the spread of the
  fallback's move's value over the worlds;
* ``--mode regret``: at decisions with ``--lo``..``--hi`` cards left that an exact search of the
  true position solves within 400,000 nodes, the exact regret (the best move's exact value
  less the move's) of the fallback's move and of the midgame rule's move at each margin,
  the judge run on the true position (``--worlds 0``: no sampling error) or on ``--worlds``
  sampled worlds (what the bot sees; ``--sampler``), each with its change against the
  fallback on the same decisions and that change's 95% CI. Values are the solver's: the
  team's units less the opponents' (docs/solver.md, "Value").
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from shuangkou import _solve, bots
from shuangkou.inference import weighted_worlds
from shuangkou.sim import play_deal, with_game
from shuangkou.solve import _MIDGAME_TT_BITS, _shortlist, sample_worlds, searcher

MARGINS = (0, 5, 10, 20, 40)


def judge(view: Any, worlds: list[Any], plays: list[Any], prior: Any
          ) -> tuple[dict[tuple[int, int], list[float]], tuple[int, int], list[tuple[int, int]]]:
    """Each move's depth-1 rollout value in each world, the fallback's move's key and the
    shortlist's keys (the midgame's: pimc_policy's ``midgame_move``)."""
    seat = view.to_act
    values: dict[tuple[int, int], list[float]] = {}
    s = searcher(worlds[0], "score", _MIDGAME_TT_BITS, "rollout")
    for w in worlds:
        s.set_position(w)
        moves, vals, *_ = s.root_values(2000, 10.0, 1, True)
        for m, v in zip(moves, vals):
            values.setdefault(m, []).append(v)
    keys = [(p.packed, p.tag) for p in _shortlist(view, seat, plays, 3)]
    if view.table is not None:
        keys.append((0, 0))
    mine = (0, 0) if prior is None else (prior.packed, prior.tag)
    n = len(worlds)
    return ({m: v for m, v in values.items() if len(v) == n}, mine,
            [k for k in keys if k in values and len(values[k]) == n])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="jj")
    ap.add_argument("--deals", type=int, default=30)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--mode", choices=("rates", "regret"), default="rates")
    ap.add_argument("--sampler", choices=("uniform", "weighted"), default="uniform",
                    help="the worlds' sampler")
    ap.add_argument("--worlds", type=int, default=0, help="regret: 0, the true position")
    ap.add_argument("--lo", type=int, default=20, help="regret: the fewest cards left")
    ap.add_argument("--hi", type=int, default=28, help="regret: the most cards left")
    args = ap.parse_args()
    fast = bots.make("fast", args.rules)
    default = bots.make("default", args.rules, mid_worlds=0)
    rows: list[list[float]] = []
    exact: list[Any] = []  # the exact searcher, made once

    def rates(game: Any, view: Any, plays: list[Any], prior: Any) -> None:
        draw = weighted_worlds if args.sampler == "weighted" else sample_worlds
        worlds = draw(view, view.to_act, 8, 12345 + len(rows))
        values, mine, keys = judge(view, worlds, plays, prior)
        if mine in values and keys:
            best = max(keys, key=lambda k: np.mean(values[k]))
            rows.append([float(np.mean(values[best]) - np.mean(values[mine])),
                         float(np.std(values[mine]))])

    def regret(game: Any, view: Any, plays: list[Any], prior: Any) -> None:
        truth = game.state
        if not exact:
            exact.append(searcher(truth, "score", 20, "rollout"))
        exact[0].set_position(truth)
        moves, vals, _, _, stopped, _ = exact[0].root_values(400_000, 30.0, _solve.EXACT_DEPTH,
                                                             True)
        if stopped:
            return
        ex = {m: v for m, v in zip(moves, vals) if v is not None}
        draw = weighted_worlds if args.sampler == "weighted" else sample_worlds
        worlds = ([truth] if args.worlds == 0 else
                  draw(view, view.to_act, args.worlds, 77 + len(rows)))
        values, mine, keys = judge(view, worlds, plays, prior)
        keys = [k for k in keys if k in ex]
        if mine not in values or mine not in ex or not keys:
            return
        top = max(ex.values())
        best = max(keys, key=lambda k: np.mean(values[k]))
        gain = np.mean(values[best]) - np.mean(values[mine])
        rows.append([top - ex[mine]] + [top - ex[best if gain > m else mine] for m in MARGINS])

    def policy(game: Any, plays: Any, rng: Any) -> Any:
        view = game.view(game.to_act)
        plays = list(plays)
        cards = sum(view.cards_left(s) for s in range(4))
        decide = len(plays) + (view.table is not None) > 1
        if decide and (cards > 32 if args.mode == "rates" else args.lo <= cards <= args.hi):
            prior = fast(view, game.legal_plays(fast.wilds), rng)
            (rates if args.mode == "rates" else regret)(game, view, plays, prior)
        return default(view, plays, rng)

    t0 = time.perf_counter()
    for i in range(args.deals):
        play_deal(args.rules, args.seed, with_game(policy), index=i, wilds="fewest")
    a = np.array(rows, dtype=float)
    print(f"{args.rules}, {args.deals} self-play deals (seed {args.seed}), {len(a)} decisions, "
          f"{time.perf_counter() - t0:.0f} s")
    if not len(a):
        return
    if args.mode == "rates":
        print(f"  {args.sampler} worlds: the fallback's move's value, spread over the 8 worlds "
              f"(std, mean over decisions) {a[:, 1].mean():.1f}")
        print("  override rate at margin " + ", ".join(
            f"{m}: {np.mean(a[:, 0] > m):.3f}" for m in MARGINS))
    else:
        judged = ("the true position" if args.worlds == 0 else
                  f"{args.worlds} {args.sampler} worlds")
        # the change against the fallback on the same decisions, with its 95% CI
        change = a[:, 1:] - a[:, :1]
        half = (1.96 * change.std(axis=0, ddof=1) / np.sqrt(len(a)) if len(a) > 1
                else np.zeros(len(MARGINS)))
        print(f"  cards {args.lo}-{args.hi}, the judge on {judged}: mean exact regret a "
              f"decision, the fallback {a[:, 0].mean():.2f}; the midgame rule at margin " +
              ", ".join(f"{m}: {a[:, i + 1].mean():.2f} ({change[:, i].mean():+.2f} "
                        f"± {half[i]:.2f})" for i, m in enumerate(MARGINS)))


if __name__ == "__main__":
    main()
