"""Expert iteration for the learned bot: a policy and a value distilled from search, numpy only
(docs/bots.md, "Expert iteration").

Each round:

1. **Positions**, by self-play on a ``shuangkou.rl.VecEnv`` (the round's network on every
   seat — the shipped one above ``--gate`` cards —, ε-random moves, through
   ``examples/train_dmc.py``'s driver: each seat decides from
   its view, the choices stepped as indices into the env's legal lists). Decisions with at
   least two candidates are kept for labelling: with ``--exact-cards`` cards or fewer left
   in the four hands (``--per-deal`` a deal at most), and, from the second round, with up to
   ``--horizon-cards`` (``--horizon-per-deal``; 0 by default: see 4).
2. **Soft labels**, each candidate's (every play of the ``wilds="fewest"`` list, and pass when
   answering) mean value over ``--worlds`` worlds sampled from the seat's view
   (:func:`shuangkou.inference.weighted_worlds`): at most ``--exact-cards`` cards, its exact
   value in each world (:func:`shuangkou.solve`, ``all_values=True``, ``--max-nodes`` a
   world; a position with a world not solved in time is dropped) — PIMC with 1.5 times the
   default's worlds and 4 times its nodes; above it, from the second round, the value
   network's (below) judgement of the position each candidate leads to, in each world (a
   one-move search with the value as its horizon). Values are the acting team's R8 units
   less the other team's, scaled as the learned network's targets (a team's units / 16).
3. **Training**: the policy — the learned bot's network (its 134 features, so it plays as
   ``bots.make("learned", rules, weights=...)``) fine-tuned from the round's network by a
   cross-entropy from each labelled decision's softmax of the candidates' values to the
   network's softmax of its scores (both at temperature ``--tau``), beside the Monte-Carlo
   targets of the self-play decisions (the final team score, as ``train_dmc.py`` trains):
   weight ``--anchor``, which keeps the positions the search does not label where DMC left
   them. The epoch kept is the one whose choices lose least against the search's best on
   held-out labelled decisions (``regret``). The value — a critic that sees all four hands
   (as PerfectDou's): the final team score of the seat to act from the true position, fitted
   on every self-play decision by mean squared error.
4. **Back into play**: :class:`Distilled` plays the round's network where it was trained (at
   most ``--gate`` cards left, default ``--exact-cards``) and the shipped one above: played
   everywhere, a network fine-tuned on endgame labels alone lost to learned.
   :class:`DistilledFast` is it under ``fast``'s guards, :class:`DistilledDefault` under
   ``default``'s PIMC. The value is not in ``pimc_policy`` (its horizon is scored in C and
   takes no Python callable); it labels positions above ``--exact-cards`` by the one-move
   search of step 2 when ``--horizon-cards`` is given (then raise ``--gate`` to play them).
5. **Measured**: each round's network on duplicate deals (``shuangkou.arena.duel``, the
   ``shuangkou arena`` command) against the learned bot and the previous round's network;
   then the next round relabels from the new network's self-play.

Every file written records its command, seeds, data sizes and CPU time (``learned.metadata``).
A smoke run (``SK_SMOKE=1``, what the test suite runs) takes seconds::

    python examples/expert_iteration.py --rules baibian --rounds 2 --out /tmp/ei

A round's bots from the command line (run in examples/)::

    shuangkou arena expert_iteration:Distilled:weights=/tmp/ei/round1.npz learned \\
        --rules baibian --deals 500 --processes 1
    shuangkou arena expert_iteration:DistilledFast:weights=/tmp/ei/round1.npz fast \\
        --rules baibian --deals 500 --processes 1

``--resume K`` goes on from round K of ``--out`` (its network and labels).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from train_dmc import CLIP, SCORE_SCALE, Asking, Done, Job, Lane, drive, random_rows  # noqa: E402

from shuangkou import PASS, Rules, bots, learned, solve  # noqa: E402
from shuangkou.arena import duel  # noqa: E402
from shuangkou.guards import DEFAULT_GUARDS, GuardedBot  # noqa: E402
from shuangkou.inference import weighted_worlds  # noqa: E402
from shuangkou.learned import HEURISTIC_COLUMN, MLP, Adam, best_rows  # noqa: E402
from shuangkou.rl import VecEnv  # noqa: E402
from shuangkou.solve import searcher  # noqa: E402

_NIBBLES = (4 * np.arange(15)).astype(np.uint64)
VALUE_DIM = 4 * 15 + 4 + 4 + 1 + 11 + 2 + 4 + 1
"""The critic's inputs: the four hands (relative seats: the seat to act, next, partner,
previous), cards left and out-or-not per seat, leading, the table's kind, top and size, its
owner, passes."""


# -- the critic: the position with the true hands --------------------------------------------------
def value_features(states: list[Any]) -> np.ndarray:
    """The critic's inputs of positions (``State`` s, a seat to act each), from the seat to
    act's side: what :data:`VALUE_DIM` lists."""
    out = np.zeros((len(states), VALUE_DIM), np.float32)
    for i, st in enumerate(states):
        seat = st.to_act
        words = np.array([st.hand((seat + k) & 3).packed for k in range(4)], np.uint64)
        counts = ((words[:, None] >> _NIBBLES) & np.uint64(15)).astype(np.float32)
        left = counts.sum(1)
        row = out[i]
        row[:60] = counts.ravel() / 8
        row[60:64] = left / 27
        places = st.places
        row[64:68] = [((seat + k) & 3) in places for k in range(4)]
        table = st.table
        if table is None:
            row[68] = 1
            row[69 + 10] = 1
        else:
            row[69 + int(table.kind)] = 1
            row[80] = int(table.top) / 14
            row[81] = table.size / 27
            row[82 + ((st.table_owner - seat) & 3)] = 1
            row[86] = st.passes / 3
    return out


def new_value_net(hidden: tuple[int, ...], rng: np.random.Generator) -> MLP:
    """A critic of :data:`VALUE_DIM` inputs (an :class:`~shuangkou.learned.MLP` of its own
    sizes: ``learned.load`` reads the policy's only, so it is saved with ``np.savez``)."""
    sizes = (VALUE_DIM, *hidden, 1)
    return MLP([rng.normal(0, math.sqrt(2 / a), (a, b)).astype(np.float32)
                for a, b in zip(sizes[:-1], sizes[1:])],
               [np.zeros(b, np.float32) for b in sizes[1:]])


def fit_value(x: np.ndarray, y: np.ndarray, hidden: tuple[int, ...], epochs: int,
              rng: np.random.Generator) -> tuple[MLP, dict[str, float]]:
    """The critic fitted by mean squared error on 85% of ``(x, y)`` (split by row), with its
    held-out error against the variance (the error of predicting the mean)."""
    n = x.shape[0]
    order = rng.permutation(n)
    cut = max(1, int(0.85 * n))
    tr, va = order[:cut], order[cut:]
    net = new_value_net(hidden, rng)
    opt = Adam(net, 1e-3)
    for _ in range(epochs):
        for b in np.array_split(rng.permutation(tr), max(1, tr.shape[0] // 512)):
            opt.step(x[b], y[b])
    if not va.shape[0]:
        va = tr
    err = net.q(x[va]) - y[va]
    mse = float((err * err).mean())
    var = float(y[va].var())
    return net, {"samples": int(n), "held_out": int(va.shape[0]), "mse": mse,
                 "variance": var, "r2": 1 - mse / var if var > 0 else 0.0}


# -- labels ----------------------------------------------------------------------------------------
@dataclass
class Position:
    """A decision kept for labelling: the true position (a copy), the seat, its candidates
    (``plays``, then pass when ``can_pass``) and their feature rows, in the same order."""

    state: Any
    seat: int
    plays: list[Any]
    can_pass: bool
    x: np.ndarray
    cards: int
    values: np.ndarray | None = None
    source: str = ""


def _key(p: Any) -> tuple[int, int]:
    return (p.packed, p.tag)


def search_values(pos: Position, worlds: int, max_nodes: int, seed: int,
                  tables: dict[Any, Any]) -> np.ndarray | None:
    """Each candidate's mean exact value over ``worlds`` worlds sampled from the seat's view
    (R8 units, the seat's team less the other), ``None`` when a world is not solved within
    ``max_nodes`` nodes. ``tables`` keeps a searcher a rules set (its table stays warm)."""
    view = pos.state.view(pos.seat)
    keys = [_key(p) for p in pos.plays] + ([_key(PASS)] if pos.can_pass else [])
    total = np.zeros(len(keys))
    for world in weighted_worlds(view, pos.seat, worlds, seed):
        s = tables.get(world.rules)
        if s is None:
            s = tables[world.rules] = searcher(world, "score", 18)
        sol = solve(world, max_nodes=max_nodes, time_limit=None, all_values=True, threads=1,
                    searcher=s)
        if not sol.exact:
            return None
        found = {_key(p): v for p, v in sol.values}
        total += [found[k] for k in keys]
    return total / worlds


def horizon_values(pos: Position, critic: MLP, worlds: int, seed: int) -> np.ndarray:
    """Each candidate's mean value over ``worlds`` sampled worlds of the position it leads to,
    judged by the critic (a one-move search, the critic its horizon; a deal the move ends is
    scored by its result), R8 units of the seat's team less the other's."""
    view = pos.state.view(pos.seat)
    moves = list(pos.plays) + ([None] if pos.can_pass else [])
    team = pos.seat & 1
    after: list[Any] = []
    sign: list[float] = []
    fixed = np.zeros((worlds, len(moves)))
    rows: list[tuple[int, int]] = []
    for w, world in enumerate(weighted_worlds(view, pos.seat, worlds, seed)):
        for j, move in enumerate(moves):
            s = world.copy()
            s.pass_() if move is None else s.play(move)
            if s.to_act is None:
                u = s.result.units
                fixed[w, j] = 2 * (u[team] + u[team + 2])
            else:
                after.append(s)
                sign.append(1.0 if (s.to_act & 1) == team else -1.0)
                rows.append((w, j))
    if after:
        # the critic predicts the side to act's units / SCORE_SCALE: back to units, both teams
        v = critic.q(value_features(after)) * np.array(sign) * SCORE_SCALE * 2
        for (w, j), val in zip(rows, v):
            fixed[w, j] = val
    return fixed.mean(0)


# -- self-play -------------------------------------------------------------------------------------
@dataclass
class Harvest:
    """What a round's self-play gives: the positions to label, the Monte-Carlo samples
    (feature row of each move made, its team's final score / 16) and the critic's samples
    (the true position of each decision, its seat's team's final score / 16)."""

    positions: list[Position] = field(default_factory=list)
    mc_x: list[np.ndarray] = field(default_factory=list)
    mc_y: list[float] = field(default_factory=list)
    v_x: list[np.ndarray] = field(default_factory=list)
    v_y: list[float] = field(default_factory=list)
    deals: int = 0
    decisions: int = 0


_LEFT = slice(45, 49)  # the features' cards left per seat / 27 (learned.features' layout)


def gated_scores(net: MLP, base: MLP, gate: int, x: np.ndarray) -> np.ndarray:
    """:meth:`MLP.score` of ``net`` on the rows of positions of at most ``gate`` cards left in
    the four hands, of ``base`` on the others (:class:`Distilled`'s choice)."""
    low = np.rint(x[:, _LEFT].sum(1) * 27) <= gate
    out: np.ndarray = np.where(low, net.score(x), base.score(x))
    return out


def self_play(net: MLP, base: MLP, gate: int, rules: Rules, deals: int, tables: int,
              seed: int, eps: float, exact_cards: int, per_deal: int, horizon_cards: int,
              horizon_per_deal: int, rng: np.random.Generator) -> Harvest:
    """``deals`` deals of ``rules`` played by ``net`` (``base`` above ``gate`` cards) on every
    seat (ε-random moves) on a ``VecEnv`` of ``tables`` rows reset with ``seed``, harvested
    as :class:`Harvest` says:
    each deal gives at most ``per_deal`` positions of ``exact_cards`` cards or fewer and
    ``horizon_per_deal`` of up to ``horizon_cards``, drawn uniformly among its decisions
    with two candidates or more."""
    h = Harvest()
    lane = Lane(VecEnv(rules, tables), lambda idx: Job("self", idx % 2))
    lane.out = lane.env.reset(seed)
    pending: dict[int, list[tuple[int, np.ndarray]]] = {}   # deal → (team, critic row)
    seen: dict[int, list[Position]] = {}                   # deal → candidate positions

    def choose(x: np.ndarray, env: np.ndarray, is_pass: np.ndarray, n: int) -> np.ndarray:
        pick = best_rows(gated_scores(net, base, gate, x), env, n)
        u = rng.random(n)
        return np.where(u < eps, random_rows(env, n, rng), pick)

    def probe(asking: Asking, x: np.ndarray, env: np.ndarray, is_pass: np.ndarray) -> None:
        feats = value_features([a[2] for a in asking])
        for j, (ln, i, state, view, plays) in enumerate(asking):
            deal = int(ln.out.deal_index[i])
            pending.setdefault(deal, []).append((view.seat & 1, feats[j]))
            rows = np.flatnonzero(env == j)
            cards = sum(state.card_counts)
            if rows.shape[0] >= 2 and cards <= max(exact_cards, horizon_cards):
                seen.setdefault(deal, []).append(Position(
                    state.copy(), view.seat, plays, view.table is not None, x[rows], cards))

    def finished(d: Done) -> None:
        h.deals += 1
        units = np.array(d.team_units, np.float32)
        for team, row in pending.pop(d.index, []):
            h.v_x.append(row)
            h.v_y.append(float(np.clip(units[team] / SCORE_SCALE, -CLIP, CLIP)))
        for team, row in d.samples:
            h.mc_x.append(row)
            h.mc_y.append(float(np.clip(units[team] / SCORE_SCALE, -CLIP, CLIP)))
        found = seen.pop(d.index, [])
        for limit, lo, k, tag in ((exact_cards, 0, per_deal, "exact"),
                                  (horizon_cards, exact_cards, horizon_per_deal, "horizon")):
            pool = [p for p in found if lo < p.cards <= limit]
            for j in rng.permutation(len(pool))[:k]:
                pool[j].source = tag
                h.positions.append(pool[j])

    h.decisions = drive(rules, [lane], lambda: h.deals >= deals, choose, finished, True, probe,
                        drain=True)
    lane.env.close()
    return h


# -- training the policy ---------------------------------------------------------------------------
def _softmax_groups(s: np.ndarray, seg: np.ndarray, n: int) -> np.ndarray:
    """Softmax of ``s`` within each group ``seg`` (0..n-1)."""
    top = np.full(n, -np.inf)
    np.maximum.at(top, seg, s)
    e = np.exp(s - top[seg])
    tot = np.zeros(n)
    np.add.at(tot, seg, e)
    out: np.ndarray = e / tot[seg]
    return out


def regret(net: MLP, data: list[Position]) -> tuple[float, float]:
    """Over labelled decisions: the mean value (a team's units) the network's choice gives up
    against the best candidate by the labels, and the share of decisions it picks a best one."""
    if not data:
        return 0.0, 0.0
    lost, hit = 0.0, 0
    for p in data:
        assert p.values is not None
        v = p.values
        c = int(np.argmax(net.score(p.x)))
        lost += float(v.max() - v[c])
        hit += bool(v[c] >= v.max() - 1e-9)
    return lost * SCORE_SCALE / len(data), hit / len(data)


def train_policy(net0: MLP, data: list[Position], mc_x: np.ndarray, mc_y: np.ndarray,
                 tau: float, anchor: float, lr: float, epochs: int, batch: int,
                 rng: np.random.Generator, layers: int = 0,
                 loss: str = "ce") -> tuple[MLP, dict[str, Any]]:
    """``net0`` fine-tuned on the labelled decisions (cross-entropy from the softmax of their
    values to the softmax of the network's scores, at temperature ``tau``) and the
    Monte-Carlo samples (mean squared error, weight ``anchor``); the epoch kept is the one of
    least regret on the held-out 15% of ``data``; ``layers``: only the last that many layers
learn (0: all); ``loss="mse"``: each decision's scores and values centred, their squared
difference, instead of the cross-entropy. Returns the network and its record."""
    net = MLP([w.copy() for w in net0.w], [b.copy() for b in net0.b], net0.bonus)
    order = rng.permutation(len(data))
    cut = max(1, int(0.85 * len(data))) if len(data) > 1 else len(data)
    # a decision whose candidates the search values alike teaches nothing about the choice
    # (its target would be uniform: it would only flatten the network's scores)
    train = [data[i] for i in order[:cut] if np.ptp(data[i].values) > 0]
    held = [data[i] for i in order[cut:]] or train
    opt = Adam(net, lr)
    best = (regret(net, held)[0], 0, [w.copy() for w in net.w], [b.copy() for b in net.b])
    curve = [{"epoch": 0, "regret": best[0], "agree": regret(net, held)[1]}]
    mc_batch = 4 * batch
    for epoch in range(1, epochs + 1):
        for chunk in np.array_split(rng.permutation(len(train)), max(1, len(train) // batch)):
            if not chunk.shape[0]:
                continue
            xs = [train[i].x for i in chunk]
            seg = np.repeat(np.arange(len(xs)), [x.shape[0] for x in xs])
            x = np.concatenate(xs)
            v = np.concatenate([train[i].values for i in chunk]).astype(np.float64)
            k = x.shape[0]
            if anchor > 0 and mc_x.shape[0]:
                pick = rng.integers(0, mc_x.shape[0], mc_batch)
                x = np.concatenate([x, mc_x[pick]])
            acts = net.forward(x)
            out = acts[-1][:, 0]
            s = (out[:k] + net.bonus * x[:k, HEURISTIC_COLUMN]).astype(np.float64)
            p = _softmax_groups(s / tau, seg, len(xs))
            t = _softmax_groups(v / tau, seg, len(xs))
            g = np.zeros(x.shape[0])
            if loss == "ce":
                g[:k] = (p - t) / len(xs)
            else:  # each decision's scores and values centred, their squared difference
                d = s - v
                mean = np.zeros(len(xs))
                np.add.at(mean, seg, d)
                d -= (mean / np.bincount(seg, minlength=len(xs)))[seg]
                g[:k] = 2 * d / k
            if x.shape[0] > k:
                g[k:] = anchor * 2 * (out[k:] - mc_y[pick]) / mc_batch
            grads = net.backward(acts, g)
            n_layers = len(net.w)
            for i in range(n_layers - layers if layers else 0):  # frozen: the first layers
                grads[i][...] = 0
                grads[n_layers + i][...] = 0
            opt.apply(grads)
        r, agree = regret(net, held)
        curve.append({"epoch": epoch, "regret": r, "agree": agree})
        if r < best[0]:
            best = (r, epoch, [w.copy() for w in net.w], [b.copy() for b in net.b])
    net.w, net.b = best[2], best[3]
    return net, {"train_decisions": len(train), "held_out": len(held), "kept_epoch": best[1],
                 "held_out_regret_before": curve[0]["regret"],
                 "held_out_agree_before": curve[0]["agree"],
                 "held_out_regret_after": best[0],
                 "held_out_agree_after": curve[best[1]]["agree"], "curve": curve}


# -- the bots of a round's network -----------------------------------------------------------------
class Distilled(bots.Bot):
    """The learned bot playing the distilled network (``weights``, a round's file) where it
    was trained, at ``cards`` cards or fewer left in the four hands, and the shipped network
    (``base``: another bundle) above: fine-tuned on endgame labels alone, the network plays
    worse elsewhere (docs/bots.md, "Expert iteration")."""

    def __init__(self, rules: Any, weights: str, cards: int = 24, base: str | None = None
                 ) -> None:
        r = Rules.preset(rules) if isinstance(rules, str) else rules
        self.low = bots.make("learned", r, weights=weights)
        self.high = bots.make("learned", r, **({"weights": base} if base else {}))
        super().__init__("distilled", r, self._choose, "fewest")
        self.cards = int(cards)
        self.heuristic = self.low.heuristic  # the guards' fallback (GuardedBot)

    def _choose(self, view: Any, plays: Any, rng: Any) -> Any:
        bot = self.low if sum(view.card_counts) <= self.cards else self.high
        return bot(view, plays, rng)


def DistilledFast(rules: Any, weights: str, cards: int = 24) -> GuardedBot:  # noqa: N802
    """``fast`` with the distilled network: :class:`Distilled` under the default guards
    (``bots.make("fast")`` is the shipped network under them)."""
    return GuardedBot("fast-distilled", Distilled(rules, weights, cards), DEFAULT_GUARDS)


def DistilledDefault(rules: Any, weights: str, cards: int = 24) -> bots.Bot:  # noqa: N802
    """``default`` with another network: the same bounded PIMC (``bots.DEFAULT``'s options:
    its worlds, bounds and midgame search) over :func:`DistilledFast`."""
    r = Rules.preset(rules) if isinstance(rules, str) else rules
    name, options = bots.DEFAULT.get(r.name, ("pimc", {}))
    if name != "pimc" or options.get("fallback") != "fast":
        raise ValueError(f"the default of {r.name} is not PIMC over fast: {name} {options}")
    return bots.make("pimc", r, **{**options, "fallback": DistilledFast(r, weights, cards)})


def save_policy(net: MLP, path: Path, preset: str, meta: dict[str, Any]) -> None:
    """The network as a one-preset weights bundle (what ``bots.make("learned",
    weights=...)`` reads), with ``meta`` in ``learned.metadata``."""
    single = path.with_suffix(".net.npz")
    net.save(single, presets=preset, **{k: v for k, v in meta.items() if k != "presets"})
    learned.bundle([single], path)
    single.unlink()


def save_labels(data: list[Position], path: Path) -> None:
    """The labelled decisions so far (feature rows, values, where each decision's rows start,
    cards left, label source), for training other networks on them (:func:`load_labels`)."""
    np.savez_compressed(
        path, x=np.concatenate([p.x for p in data]),
        values=np.concatenate([p.values for p in data]),
        offsets=np.cumsum([0] + [p.x.shape[0] for p in data]),
        cards=np.array([p.cards for p in data]), source=np.array([p.source for p in data]))


def load_labels(path: Any) -> list[Position]:
    """The decisions :func:`save_labels` wrote (without their positions)."""
    with np.load(path) as z:
        x, values, o, cards, source = (z[k] for k in ("x", "values", "offsets", "cards",
                                                      "source"))
    return [Position(None, -1, [], False, x[o[i]:o[i + 1]], int(cards[i]), values[o[i]:o[i + 1]],
                     str(source[i])) for i in range(o.shape[0] - 1)]


def measure(a: Any, b: Any, rules: Rules, pairs: int, seed: int, label: str) -> dict[str, Any]:
    """``a`` against ``b`` on ``pairs`` duplicate deals (one process): the arena's summary."""
    t = time.process_time()
    r = duel(a, b, rules, pairs=pairs, seed=seed, processes=1).summary()
    return {"match": label, "pairs": r["pairs"], "seed": seed, "margin": r["margin"],
            "ci": r["ci95"], "won": r["won"], "lost": r["lost"], "ms_a": r["ms_a"],
            "ms_b": r["ms_b"], "cpu_seconds": round(time.process_time() - t, 1)}


def _show(m: dict[str, Any]) -> str:
    return (f"  {m['match']} over {m['pairs']} pairs: {m['margin']:+.2f} [{m['ci'][0]:+.2f}, "
            f"{m['ci'][1]:+.2f}] a deal, won {m['won']:.1%}, lost {m['lost']:.1%}")


# -- the rounds ------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> dict[str, Any]:
    smoke = os.environ.get("SK_SMOKE") == "1"
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="baibian", help="the preset to train (every preset)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--deals", type=int, default=4 if smoke else 600,
                    help="self-play deals a round")
    ap.add_argument("--tables", type=int, default=4 if smoke else 64)
    ap.add_argument("--eps", type=float, default=0.05, help="self-play's random moves")
    ap.add_argument("--exact-cards", type=int, default=14 if smoke else 24,
                    help="positions of at most this many cards are labelled by exact PIMC")
    ap.add_argument("--per-deal", type=int, default=2 if smoke else 12)
    ap.add_argument("--horizon-cards", type=int, default=30 if smoke else 0,
                    help="from round 2, positions up to this many cards are labelled by the "
                         "critic's one-move search (0: none)")
    ap.add_argument("--horizon-per-deal", type=int, default=1 if smoke else 2)
    ap.add_argument("--worlds", type=int, default=4 if smoke else 12)
    ap.add_argument("--max-nodes", type=int, default=20_000 if smoke else 50_000)
    ap.add_argument("--tau", type=float, default=0.2,
                    help="softmax temperature, in the network's units (a team's units / 16)")
    ap.add_argument("--anchor", type=float, default=0.5)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--epochs", type=int, default=2 if smoke else 10)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--value-hidden", default="128,64")
    ap.add_argument("--value-epochs", type=int, default=2 if smoke else 10)
    ap.add_argument("--pairs", type=int, default=4 if smoke else 500,
                    help="duplicate pairs a measurement (0: none)")
    ap.add_argument("--measure-default", action="store_true",
                    help="also measure the last round's network under default's PIMC")
    ap.add_argument("--gate", type=int, default=None,
                    help="the distilled network plays at most this many cards left, the first "
                         "round's above (default --exact-cards: where it is trained)")
    ap.add_argument("--resume", type=int, default=0, metavar="K",
                    help="go on from round K of --out (its network and labels), to --rounds")
    ap.add_argument("--weights", default=None,
                    help="the first round's network (a bundle; default the shipped weights)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None, help="folder for each round's files")
    args = ap.parse_args(argv)
    rules = Rules.preset(args.rules)
    rng = np.random.default_rng(args.seed)
    out = Path(args.out) if args.out else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    command = "examples/expert_iteration.py " + " ".join(sys.argv[1:] if argv is None else argv)
    nets = learned.load(args.weights)
    net = nets.get(rules.name) or nets.get("baibian") or next(iter(nets.values()))
    base = net
    gate = args.exact_cards if args.gate is None else args.gate
    prev_bot: Any = bots.make("learned", rules, **({"weights": args.weights}
                                                   if args.weights else {}))
    base_bot: Any = prev_bot
    labelled: list[Position] = []
    critic: MLP | None = None
    record: dict[str, Any] = {"command": command, "seed": args.seed, "rules": rules.name,
                              "rounds": []}
    if args.resume:
        if out is None:
            raise SystemExit("--resume reads --out's files: give --out")
        done = out / f"round{args.resume}.npz"
        net = learned.load(done)[rules.name]
        labelled = load_labels(out / f"round{args.resume}_labels.npz")
        prev_bot = Distilled(rules, str(done), gate, args.weights)
        record["resumed_from"] = str(done)
        before = learned.metadata(done)[rules.name]  # the rounds before: their deals and CPU
        prior = (int(before["deals"]), float(before["cpu_minutes"]))
    else:
        prior = (0, 0.0)
    cpu0 = time.process_time()
    for rnd in range(args.resume + 1, args.rounds + 1):
        t0 = time.process_time()
        h = self_play(net, base, gate, rules, args.deals, args.tables, args.seed * 1000 + rnd,
                      args.eps, args.exact_cards, args.per_deal,
                      args.horizon_cards if critic is not None else 0, args.horizon_per_deal,
                      rng)
        t1 = time.process_time()
        tables: dict[Any, Any] = {}
        dropped = 0
        for pos in h.positions:
            seed = int(rng.integers(1 << 62))
            if pos.source == "exact":
                v = search_values(pos, args.worlds, args.max_nodes, seed, tables)
            else:
                assert critic is not None
                v = horizon_values(pos, critic, args.worlds, seed)
            if v is None:
                dropped += 1
                continue
            pos.values = v / (2 * SCORE_SCALE)   # the team's units / 16, the network's scale
            pos.state = None                     # the labels are all training needs
            labelled.append(pos)
        t2 = time.process_time()
        if out:
            save_labels(labelled, out / f"round{rnd}_labels.npz")
        mc_x = np.array(h.mc_x, np.float32).reshape(-1, learned.DIM)
        mc_y = np.array(h.mc_y, np.float32)
        net, fit = train_policy(net, labelled, mc_x, mc_y, args.tau, args.anchor, args.lr,
                                args.epochs, args.batch, rng)
        critic, value_fit = fit_value(np.array(h.v_x, np.float32), np.array(h.v_y, np.float32),
                                      tuple(int(k) for k in args.value_hidden.split(",")),
                                      args.value_epochs, rng)
        t3 = time.process_time()
        sources = {s: sum(p.source == s for p in labelled) for s in ("exact", "horizon")}
        info: dict[str, Any] = {
            "round": rnd, "self_play_seed": args.seed * 1000 + rnd, "deals": h.deals,
            "decisions": h.decisions, "positions": len(h.positions), "dropped": dropped,
            "labelled_total": sources, "mc_samples": int(mc_y.shape[0]),
            "value_samples": len(h.v_y), "policy": {k: v for k, v in fit.items()
                                                    if k != "curve"},
            "policy_curve": fit["curve"], "value": value_fit,
            "cpu_seconds": {"self_play": round(t1 - t0, 1), "labels": round(t2 - t1, 1),
                            "training": round(t3 - t2, 1)}}
        print(f"round {rnd}: {h.deals} deals, {h.decisions} decisions, {len(h.positions)} "
              f"positions ({dropped} dropped), labelled so far {sources}; held-out regret "
              f"{fit['held_out_regret_before']:.3f} -> {fit['held_out_regret_after']:.3f} "
              f"units (epoch {fit['kept_epoch']}), agree {fit['held_out_agree_before']:.3f} -> "
              f"{fit['held_out_agree_after']:.3f}; value R2 {value_fit['r2']:.3f}; cpu "
              f"{info['cpu_seconds']}", flush=True)
        meta = {"command": command, "seed": args.seed, "round": rnd, "presets": rules.name,
                "hidden": ",".join(str(w.shape[1]) for w in net.w[:-1]),
                "deals": prior[0] + sum(r["deals"] for r in record["rounds"]) + h.deals,
                "labelled": json.dumps(sources), "worlds": args.worlds,
                "max_nodes": args.max_nodes, "exact_cards": args.exact_cards,
                "horizon_cards": args.horizon_cards, "gate": gate, "tau": args.tau,
                "anchor": args.anchor,
                "cpu_minutes": round(prior[1] + (time.process_time() - cpu0) / 60, 1)}
        if out:
            path = out / f"round{rnd}.npz"
            save_policy(net, path, rules.name, meta)
            np.savez(out / f"round{rnd}_value.npz", **critic.arrays(),
                     meta=np.array(json.dumps(meta)))
            bot: Any = Distilled(rules, str(path), gate, args.weights)
            info["measure"] = [] if not args.pairs else [
                measure(bot, base_bot, rules, args.pairs, args.seed, f"round {rnd} vs learned")]
            if prev_bot is not base_bot and args.pairs:
                info["measure"].append(measure(bot, prev_bot, rules, args.pairs, args.seed,
                                               f"round {rnd} vs round {rnd - 1}"))
            for m in info["measure"]:
                print(_show(m), flush=True)
            prev_bot = bot
        info["cpu_seconds"]["measure"] = round(time.process_time() - t3, 1)
        record["rounds"].append(info)
    if out and args.measure_default and args.pairs:
        path = str(out / f"round{args.rounds}.npz")
        record["fast"] = measure(DistilledFast(rules, path, gate), bots.make("fast", rules),
                                 rules,
                                 args.pairs, args.seed, f"fast over round {args.rounds} vs fast")
        record["default"] = measure(DistilledDefault(rules, path, gate),
                                    bots.make("default", rules),
                                    rules, args.pairs, args.seed,
                                    f"default over round {args.rounds} vs default")
        print(_show(record["fast"]), _show(record["default"]), sep="\n", flush=True)
    record["cpu_minutes"] = round((time.process_time() - cpu0) / 60, 1)
    if out:
        name = f"record_from{args.resume}.json" if args.resume else "record.json"
        (out / name).write_text(json.dumps(record, indent=1))
    return record


if __name__ == "__main__":
    main()
