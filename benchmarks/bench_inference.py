"""How much the inference of :mod:`shuangkou.inference` knows (docs/bots.md, "Inference").

::

    python benchmarks/bench_inference.py --rules baibian --deals 100 --bots heuristic,learned
    python benchmarks/bench_inference.py --rules baibian --deals 60 --fit --seed 7
    python benchmarks/bench_inference.py --rules classic --deals 100 --bots default-2026.12 \
        --models default,heuristic,default+heuristic

Deals are played by each of ``--bots`` on every seat (``bots.make``); at every ``--every``-th
decision with at most ``--max-cards`` cards left in the four hands, the deciding seat's view is
taken and the true hidden hands scored: the gain in log-likelihood of the truth under the weighted
sampler's distribution over the uniform one, ``log L(true) − log mean L(uniform worlds)``
(``--samples`` uniform worlds estimate the mean; the weighted distribution is the uniform one times
``L`` normalised, the limit of :func:`~shuangkou.inference.weighted_worlds` as its candidates grow).
Printed: the mean gain in nats a position with its 95% CI, and the share of positions where the
truth gained. ``--fit`` improves the model's parameters one at a time (coordinate search, steps of
0.5, kept while the mean gain grows by more than 0.001, each within ±``FIT_BOUND``) on these
positions and prints the best; measure it on deals of another ``--seed``. ``--compare "A;B;…"``
(bot specs) prints instead how often each of them decides otherwise than ``default`` at the sampled
decisions (every ``--every``-th with at most ``--max-cards`` cards left and two options or more) of
the deals ``--bots`` play: how much the weights steer the search at all (``default`` in the list:
the floor the 18 ms stop's clock leaves between two runs of the same bot). ``--models`` names the
models measured (:func:`shuangkou.inference.named_model`: ``default``, ``heuristic``, ``jj``,
``classic``, or several joined by ``+``, a mixture); ``--fit`` starts from the first.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
from typing import Any

import numpy as np

from shuangkou import Rules, State, bots
from shuangkou.inference import Mixture, Model, _hidden, answers, named_model
from shuangkou.rng import SplitMix64, deal_seed
from shuangkou.solve import sample_deals

FIT_BOUND = 20.0
"""``--fit`` keeps every parameter within ±20 (log-odds: e^20 is certainty enough)."""

def positions(rules: Rules, deals: int, bot: str, every: int, max_cards: int,
              seed: int) -> list[tuple[Any, tuple[Any, ...], Any]]:
    """``(record, true hands, view)`` at the sampled decisions of ``deals`` deals."""
    player = bots.make(bot, rules)
    out = []
    k = 0
    for d in range(deals):
        st = State.deal(rules, deal_seed(seed, d))
        rng = SplitMix64(d)
        while (seat := st.to_act) is not None:
            if sum(st.card_counts) <= max_cards:
                k += 1
                if k % every == 0:
                    snap = st.copy()
                    view = snap.view(seat)
                    record = answers(view, _hidden(view))
                    if record:
                        out.append((record, tuple(snap.hand(s) for s in range(4)), view))
            choice = player(st.view(seat), st.legal(player.wilds), rng)
            st.pass_() if choice is None else st.play(choice)
    return out


def changes(rules: Rules, deals: int, bot: str, every: int, max_cards: int, seed: int,
            specs: list[str]) -> tuple[int, list[int]]:
    """How many of the sampled decisions of ``bot``'s deals each of ``specs`` decides
    otherwise than ``default`` (each asked with the same rng seed), and how many there were."""
    player = bots.make(bot, rules)
    base = bots.make("default", rules)
    others = [bots.resolve(s, rules) for s in specs]
    differ = [0] * len(specs)
    n = k = 0
    for d in range(deals):
        st = State.deal(rules, deal_seed(seed, d))
        rng = SplitMix64(d)
        while (seat := st.to_act) is not None:
            plays = st.legal(base.wilds)
            if (sum(st.card_counts) <= max_cards and len(plays) + (st.table is not None) > 1):
                k += 1
                if k % every == 0:
                    n += 1
                    view = st.view(seat)
                    want = base(view, plays, SplitMix64(k))
                    for i, other in enumerate(others):  # each given its own legal list
                        got = other(view, st.legal(getattr(other, "wilds", "all")),
                                    SplitMix64(k))
                        differ[i] += got != want
            choice = player(st.view(seat), st.legal(player.wilds), rng)
            st.pass_() if choice is None else st.play(choice)
    return n, differ


def gains(model: Model | Mixture, pos: list[Any], samples: int, seed: int) -> np.ndarray:
    """Each position's log-likelihood gain of the truth (nats)."""
    out = []
    for i, (record, truth, view) in enumerate(pos):
        flags = view.rules.flags
        true_ll = model.log_likelihood(record, truth, flags)
        lls = model.log_likelihoods(record, sample_deals(view, view.seat, samples, seed + i),
                                    flags)
        top = lls.max()
        out.append(true_ll - (top + math.log(np.exp(lls - top).mean())))
    return np.array(out)


def report(name: str, g: np.ndarray) -> str:
    half = 1.96 * g.std(ddof=1) / math.sqrt(len(g))
    return (f"{name}: {len(g)} positions, gain {g.mean():+.3f} nats a position "
            f"[{g.mean() - half:+.3f}, {g.mean() + half:+.3f}], truth more likely in "
            f"{(g > 0).mean():.0%}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="baibian")
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--bots", default="heuristic,learned")
    ap.add_argument("--every", type=int, default=7)
    ap.add_argument("--max-cards", type=int, default=40)
    ap.add_argument("--samples", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fit", action="store_true")
    ap.add_argument("--models", default="default")
    ap.add_argument("--compare", default="")
    a = ap.parse_args()
    rules = Rules.preset(a.rules)
    if a.compare:
        specs = a.compare.split(";")
        for bot in a.bots.split(","):
            n, differ = changes(rules, a.deals, bot, a.every, a.max_cards, a.seed, specs)
            for spec, d in zip(specs, differ):
                print(f"{a.rules}, deals by {bot}: {spec} decides otherwise than default at "
                      f"{d} of {n} decisions ({d / max(n, 1):.1%})", flush=True)
        return
    models = {}
    for name in a.models.split(","):
        try:
            models[name] = named_model(name)
        except ValueError as e:
            ap.error(f"--models: {e}")
    pos = []
    for bot in a.bots.split(","):
        mine = positions(rules, a.deals, bot, a.every, a.max_cards, a.seed)
        for name in models:
            print(report(f"{a.rules}, deals by {bot}, model {name}",
                         gains(models[name], mine, a.samples, a.seed)), flush=True)
        pos += mine
    for name in models:
        print(report(f"{a.rules}, all, model {name}", gains(models[name], pos, a.samples,
                                                           a.seed)), flush=True)
    if a.fit:
        best = next(iter(models.values()))
        if not isinstance(best, Model):
            ap.error("--fit starts from a Model, not a mixture: name one first in --models")
        score = gains(best, pos, a.samples // 4, a.seed).mean()
        for _ in range(2):
            for f in dataclasses.fields(Model):
                for step in (0.5, -0.5):
                    # bounded: on few positions the likelihood can grow without end
                    # along a parameter (a move never seen), so a fit would never stop
                    while abs(getattr(best, f.name) + step) <= FIT_BOUND:
                        m = dataclasses.replace(best, **{f.name: getattr(best, f.name) + step})
                        g = gains(m, pos, a.samples // 4, a.seed).mean()
                        if g <= score + 1e-3:  # a gain under 0.001 nats: flat, stop
                            break
                        best, score = m, g
                        print(f"{score:+.3f} {best}", flush=True)
        print(report(f"fitted {best}", gains(best, pos, a.samples, a.seed)))


if __name__ == "__main__":
    main()
