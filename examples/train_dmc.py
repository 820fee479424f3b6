"""Train the learned bot (``shuangkou.bots.make("learned", rules)``): Deep Monte-Carlo (DMC, as
DouZero), numpy only, on a CPU.

Deals are played side by side on a ``shuangkou.rl.VecEnv`` (``--tables`` at a time; every
seat an agent seat of the env), each seat deciding from its view (``VecEnv.state(i).view(seat)``)
and the ``wilds="fewest"`` legal list, exactly as the bot plays at a table; the choices are
stepped as indices into the env's legal lists. Each deal draws its opponents from
``--opponents`` (``heuristic`` and ``greedy``, played from their views, the agent's team on
seats 0+2 or 1+3 by turns, or ``self``: the network on all four seats). For every
legal play of an agent seat (and pass, when answering) a small MLP scores ``Q(position,
play)`` from the features of :mod:`shuangkou.learned`; when a deal ends, each decision an
agent made is a training sample whose target is its team's final R8 score (the Monte-Carlo
return, no bootstrapping).

What makes it learn in an hour on a CPU (docs/bots.md, "The learned bot"):

* two features say which candidate greedy and the heuristic bot would play, so either is a
  one-weight policy for the network, and training learns *when to deviate* from them; others
  give each play's damage to the hand's fewest-plays split (the heuristic's own measure);
* for the first ``--warm`` share of the time the agents play the heuristic's choice with
  ε-random deviations: the targets then estimate the heuristic's own action values, and
  acting on their argmax is a policy improvement step over it; after it the agents play the
  network (ε-greedy, ε decaying), Monte-Carlo policy iteration from there.

With ``--targets rollout`` (tried on classic: docs/bots.md, "Classic, the rounds before: rollout
targets") a probed decision's candidates are instead each played out by the heuristic on every
seat from the same position (``--worlds``: also on deals sampled from the seat's view), and a
candidate's target is its advantage over the heuristic's play on the same cards.

The shipped weights (``src/shuangkou/learned_weights.npz``) were made by three runs, then
classic, JJ and 千变 trained on from them with ``--init`` (docs/bots.md has the exact
commands), each step bundled as::

    python examples/train_dmc.py --bundle baibian_qianbian.npz classic.npz jj.npz \\
        --out src/shuangkou/learned_weights.npz        # one file, a network per preset
    python examples/train_dmc.py --bundle src/shuangkou/learned_weights.npz classic.npz \\
        --out src/shuangkou/learned_weights.npz        # the shipped file, classic's replaced

(each run's ``--json`` beside its ``.npz`` adds its CPU time to the bundle's meta data,
:func:`shuangkou.learned.metadata`).

A one-minute smoke (CI)::

    python examples/train_dmc.py --minutes 1 --out /tmp/w.npz

Every ``--curve-every`` seconds it plays ``--curve-pairs`` duplicate deal pairs against greedy
and against the heuristic (each deal twice, the teams' seats exchanged; ε = 0; deals training
never saw) on the first preset and prints the mean margin a deal with its 95% CI, the share
of deals won and the training loss (``-`` before the first update).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from shuangkou import Rules, bots
from shuangkou.learned import (
    DIM,
    GREEDY_COLUMN,
    HEURISTIC_COLUMN,
    MLP,
    Adam,
    best_rows,
    bundle,
    load,
    table_features,
    unbundle,
)
from shuangkou.rl import VecEnv
from shuangkou.rng import SplitMix64
from shuangkou.solve import sample_worlds

SCORE_SCALE = 16.0   # targets are team scores / 16, clipped to ±6
CLIP = 6.0
OPPONENTS = ("heuristic", "greedy", "self")


@dataclass
class Job:
    """What one deal is played as: the opponents' bot (``"self"``: none, the network on every
    seat) and the agent team (seats 0+2: 0, seats 1+3: 1)."""

    opponent: str
    team: int


@dataclass
class Lane:
    """One ``VecEnv`` (every seat an agent seat: the opponents' seats are played here, from
    their views) and the job of each deal it plays, by deal index."""

    env: VecEnv
    job: Callable[[int], Job]
    out: Any = None  # the env's last Step


@dataclass
class Done:
    """A finished deal: its job and index, each team's R8 units, the team out first, and the
    agent decisions' ``(team, feature row)`` samples (when recording)."""

    job: Job
    index: int
    team_units: tuple[float, float]
    first_team: int
    samples: list[tuple[int, np.ndarray]]


Asking = list[tuple[Lane, int, Any, Any, list[Any]]]
"""The agent decisions of a step: each lane and row, the row's position (``VecEnv.state``),
the deciding seat's view and its legal plays (``wilds="fewest"``, as the bot plays)."""


def action_index(out: Any, row: int, play: Any) -> int:
    """``play`` (or ``None``: pass, -1) as an index into the row's legal list of the Step."""
    if play is None:
        return -1
    lo, hi = int(out.offsets[row]), int(out.offsets[row + 1])
    hit = np.flatnonzero((out.words[lo:hi] == play.packed) & (out.tags[lo:hi] == play.tag))
    if not hit.shape[0]:
        raise RuntimeError(f"row {row}: {play} is not in the VecEnv's legal list")
    return int(hit[0])


def drive(rules: Rules, lanes: list[Lane], until: Callable[[], bool],
          choose: Callable[[np.ndarray, np.ndarray, np.ndarray, int], np.ndarray],
          finished: Callable[[Done], None], record: bool,
          probe: Callable[[Asking, np.ndarray, np.ndarray, np.ndarray], None] | None = None,
          drain: bool = False) -> int:
    """Step every lane's ``VecEnv`` (reset by the caller) until ``until()``; returns the
    number of agent decisions. Each step, every row's seat to act is decided: an agent seat
    by ``choose(X, env, is_pass, n)`` (a candidate row per decision, over the features of its
    seat's view), an opponent's seat by its bot from the view; ``finished(done)`` gets each
    deal that ends. With ``drain`` the deals running when ``until()`` turns true are played
    to their end (the rows that finish meanwhile idle: their next deals are not played for).
    ``probe(asking, X, env, is_pass)``, when given, sees every step's decisions before their
    moves are made."""
    opponents = {"heuristic": bots.make("heuristic", rules), "greedy": bots.make("greedy", rules)}
    hint = opponents["heuristic"]
    stream = SplitMix64(0)  # the heuristic and greedy draw nothing; their signature wants one
    samples: dict[tuple[int, int], list[tuple[int, np.ndarray]]] = {}
    decisions = 0
    live: set[tuple[int, int]] | None = None  # draining: the rows whose deals still count
    while live is None or live:
        if live is None and until():
            if not drain:
                break
            live = {(k, i) for k, lane in enumerate(lanes) for i in range(lane.env.n)}
        asking: Asking = []
        actions = [np.full(lane.env.n, -1, np.int64) for lane in lanes]
        for k, lane in enumerate(lanes):
            out, env = lane.out, lane.env
            for i in range(env.n):
                if live is not None and (k, i) not in live:  # idle: any legal move
                    actions[k][i] = 0 if out.offsets[i + 1] > out.offsets[i] else -1
                    continue
                state = env.state(i)
                seat = state.to_act
                view = state.view(seat)
                plays = list(state.legal("fewest"))
                job = lane.job(int(out.deal_index[i]))
                if plays and (job.opponent == "self" or seat % 2 == job.team):
                    asking.append((lane, i, state, view, plays))
                elif plays:
                    actions[k][i] = action_index(out, i, opponents[job.opponent](
                        view, plays, stream))
        if asking:
            x, env_rows, is_pass = table_features([a[3] for a in asking], [a[4] for a in asking],
                                                  rules, hint, stream)
            rows = choose(x, env_rows, is_pass, len(asking))
            if probe is not None:
                probe(asking, x, env_rows, is_pass)
            offsets = np.concatenate([[0], np.cumsum([len(a[4]) for a in asking])])
            index = {id(lane): k for k, lane in enumerate(lanes)}
            for j, (lane, i, _, view, plays) in enumerate(asking):
                r = int(rows[j])
                if record:
                    samples.setdefault((index[id(lane)], i), []).append((view.seat % 2, x[r]))
                choice = None if is_pass[r] else plays[r - offsets[j]]
                actions[index[id(lane)]][i] = action_index(lane.out, i, choice)
            decisions += len(asking)
        for k, lane in enumerate(lanes):
            playing = lane.out.deal_index.copy()  # the Step's arrays are overwritten by step
            lane.out = out = lane.env.step(actions[k])
            for i in np.flatnonzero(out.done):
                if live is not None:
                    if (k, int(i)) not in live:
                        continue
                    live.discard((k, int(i)))
                idx = int(playing[i])
                units = out.team_rewards[i] / rules.base_score  # rewards are units x base
                finished(Done(lane.job(idx), idx, (float(units[0]), float(units[1])),
                              int(out.places[i, 0]) % 2, samples.pop((k, int(i)), [])))
    return decisions


def team_units(state: Any, team: int) -> int:
    u = state.result.units
    return int(u[team] + u[team + 2])


def rollout(state: Any, heuristic: Any, stream: Any, team: int) -> int:
    """``team``'s final units once the heuristic plays every seat of ``state`` (a copy: it is
    played out) to the end. The heuristic draws nothing, so one deal's rollouts differ only
    by the move they start from: the difference of two is that move's advantage on this deal,
    free of the luck of the cards still to come."""
    while (seat := state.to_act) is not None:
        plays = list(state.legal("fewest"))
        choice = heuristic(state.view(seat), plays, stream) if plays else None
        state.pass_() if choice is None else state.play(choice)
    return team_units(state, team)


def random_rows(env: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random candidate row of each decision (rows are grouped by env)."""
    cnt = np.bincount(env, minlength=n)
    order = np.argsort(env, kind="stable")
    start = np.concatenate([[0], np.cumsum(cnt)[:-1]])
    rows: np.ndarray = order[start + (rng.random(n) * cnt).astype(np.int64)]
    return rows


def hint_rows(x: np.ndarray, env: np.ndarray, n: int, column: int) -> np.ndarray:
    """The choice each decision's hint ``column`` marks (the heuristic's or greedy's)."""
    rows = np.flatnonzero(x[:, column] > 0)
    pick = np.zeros(n, np.int64)
    pick[env[rows]] = rows
    return pick


# -- evaluation on duplicate deals ---------------------------------------------------------------
def duplicate(net: MLP, preset: str, opponent: str, pairs: int, seed: int,
              tables: int) -> dict[str, Any]:
    """Deals ``0..pairs-1`` of the run ``seed`` played twice: the network on seats 0+2, then on
    1+3, ``opponent`` on the others (two VecEnvs reset with ``seed``: row ``i`` plays deals
    ``i, i + rows, …``). Per pair: the network team's margin (its seats' score minus the
    others', averaged over the two plays, as ``shuangkou arena`` counts it)."""
    rules = Rules.preset(preset)
    margin = np.zeros(pairs)
    first = np.zeros(pairs)
    seen = np.zeros((pairs, 2), bool)
    rows = math.ceil(pairs / math.ceil(pairs / tables))  # every row plays as many deals
    lanes = []
    for team in (0, 1):
        job = Job(opponent, team)
        lane = Lane(VecEnv(rules, rows), lambda idx, job=job: job)
        lane.out = lane.env.reset(seed)
        lanes.append(lane)

    def done(d: Done) -> None:
        if d.index < pairs and not seen[d.index, d.job.team]:
            team = d.job.team
            seen[d.index, team] = True
            margin[d.index] += (d.team_units[team] - d.team_units[1 - team]) / 2
            first[d.index] += (d.first_team == team) / 2

    drive(rules, lanes, lambda: bool(seen.all()),
          lambda x, e, p, n: best_rows(net.score(x), e, n), done, False)
    for lane in lanes:
        lane.env.close()
    half = 1.959964 * margin.std(ddof=1) / math.sqrt(pairs)
    return {"opponent": opponent, "pairs": pairs, "margin": float(margin.mean()),
            "margin_ci": [float(margin.mean() - half), float(margin.mean() + half)],
            "won": float((margin > 0).mean()), "lost": float((margin < 0).mean()),
            "first": float(first.mean())}


def _opponent_mix(text: str) -> tuple[list[str], np.ndarray]:
    names, weights = [], []
    for item in text.split(","):
        name, _, w = item.partition(":")
        if name not in OPPONENTS:
            raise SystemExit(f"--opponents: {name!r} is not one of {', '.join(OPPONENTS)}")
        names.append(name)
        weights.append(float(w or 1))
    p = np.array(weights)
    return names, p / p.sum()


# -- training ------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> dict[str, Any]:
    smoke = os.environ.get("SK_SMOKE") == "1"  # tests/test_examples.py: a few seconds
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--presets", default="baibian", help="comma-separated presets to train on")
    ap.add_argument("--minutes", type=float, default=0.2 if smoke else 1.0,
                    help="wall-clock training time")
    ap.add_argument("--tables", type=int, default=128, help="deals played together per preset")
    ap.add_argument("--opponents", default="heuristic:2,greedy:1,self:1",
                    help="opponent mix, name:weight (heuristic, greedy, self)")
    ap.add_argument("--hidden", default="128,64")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--updates", type=int, default=2, help="updates per --tables agent decisions")
    ap.add_argument("--warm", type=float, default=0.5,
                    help="share of the time the agents play the heuristic, with ε deviations")
    ap.add_argument("--eps", type=float, default=0.2,
                    help="deviations: greedy's choice or a random one, half and half")
    ap.add_argument("--bonus", type=float, default=0.15,
                    help="the network's bonus on the heuristic's choice, while training")
    ap.add_argument("--bonuses", default="0,0.05,0.1,0.2,0.4,1",
                    help="after training, the bonus is the best of these against the heuristic")
    ap.add_argument("--select-pairs", type=int, default=20 if smoke else 300,
                    help="duplicate pairs a bonus and preset, to choose it")
    ap.add_argument("--curve-pairs", type=int, default=30 if smoke else 200,
                    help="duplicate pairs a curve point, against each of greedy and heuristic")
    ap.add_argument("--curve-every", type=float, default=300.0, help="seconds between points")
    ap.add_argument("--eval-pairs", type=int, default=50 if smoke else 1000,
                    help="final evaluation, per preset and opponent")
    ap.add_argument("--targets", choices=("return", "rollout"), default="return",
                    help="return: a decision's target is its team's final score (Monte-Carlo); "
                         "rollout: at --probe-share of the decisions, the heuristic's play and "
                         "--alternatives others are each played out by the heuristic on every "
                         "seat, and a candidate's target is its score minus the heuristic "
                         "play's (its advantage, on the same cards)")
    ap.add_argument("--probe-share", type=float, default=0.5,
                    help="rollout targets: share of the agent decisions probed")
    ap.add_argument("--alternatives", type=int, default=4,
                    help="rollout targets: candidates probed beside the heuristic's play "
                         "(greedy's, a random one, then the network's best; more than the "
                         "candidates: every one)")
    ap.add_argument("--worlds", type=int, default=1,
                    help="rollout targets: each candidate is played out on the real deal and "
                         "on WORLDS-1 deals sampled from the seat's view, the values averaged")
    ap.add_argument("--init", default=None, metavar="NPZ",
                    help="start from this bundle's network of the first preset (a shipped "
                         "file: a longer run in two parts), instead of random weights; its "
                         "hidden sizes are the network's own")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None, help="write the weights here (.npz), also at points")
    ap.add_argument("--json", default=None)
    ap.add_argument("--png", default=None)
    ap.add_argument("--bundle", nargs="+", metavar="NPZ",
                    help="instead of training: bundle these --out files (and what their "
                         "--json records say of their CPU time) into --out")
    args = ap.parse_args(argv)
    if args.bundle:
        return rebundle(args.bundle, args.out)

    rng = np.random.default_rng(args.seed)
    presets = args.presets.split(",")
    names, weights = _opponent_mix(args.opponents)
    if args.init:
        nets = load(args.init)
        if presets[0] not in nets:
            ap.error(f"--init {args.init} has no network of {presets[0]!r} (it has "
                     f"{', '.join(sorted(nets))})")
        net = nets[presets[0]]
        args.hidden = ",".join(str(w.shape[1]) for w in net.w[:-1])
    else:
        net = MLP.new(tuple(int(h) for h in args.hidden.split(",")), rng)
    net.bonus = args.bonus
    opt = Adam(net, args.lr)
    cap = 400_000
    replay_x = np.zeros((cap, DIM), np.float32)
    replay_y = np.zeros(cap, np.float32)
    curve: list[dict[str, Any]] = []
    start = time.perf_counter()
    cpu0 = time.process_time()
    deadline = start + 60 * args.minutes
    warm_end = start + args.warm * 60 * args.minutes
    meta = {"command": "examples/train_dmc.py " + " ".join(argv or sys.argv[1:]),
            "seed": args.seed, "presets": args.presets, "hidden": args.hidden,
            "opponents": args.opponents, "targets": args.targets, "worlds": args.worlds,
            "init": args.init or ""}
    st: dict[str, Any] = {"stored": 0, "deals": 0, "updates": 0, "loss": None,
                          "next_point": start, "owed": 0.0}

    def point(now: float) -> None:
        p: dict[str, Any] = {"seconds": round(now - start, 1),
                             "cpu_seconds": round(time.process_time() - cpu0, 1),
                             "deals_trained": st["deals"], "loss": st["loss"]}
        for opp in ("greedy", "heuristic"):
            p[opp] = duplicate(net, presets[0], opp, args.curve_pairs, 10**6 + len(curve),
                               args.tables)
        curve.append(p)
        shown = "-" if st["loss"] is None else f"{st['loss']:.3f}"
        print(f"[{p['seconds']:7.1f}s, cpu {p['cpu_seconds']:7.1f}s] deals {st['deals']:7d}  "
              + "  ".join(f"vs {o}: {p[o]['margin']:+.2f} [{p[o]['margin_ci'][0]:+.2f}, "
                          f"{p[o]['margin_ci'][1]:+.2f}] won {p[o]['won']:.3f}"
                          for o in ("greedy", "heuristic")) + f"  loss {shown}", flush=True)
        if args.out:
            net.save(args.out, deals=st["deals"], **meta)
        st["next_point"] = time.perf_counter() + args.curve_every

    drawn: dict[int, Job] = {}  # the current round's jobs by deal index, drawn when first met

    def job(index: int) -> Job:
        if index not in drawn:
            drawn[index] = Job(str(rng.choice(names, p=weights)), index % 2)
        return drawn[index]

    def choose(x: np.ndarray, env: np.ndarray, is_pass: np.ndarray, n: int) -> np.ndarray:
        now = time.perf_counter()
        if now >= st["next_point"]:
            point(now)
        warm = now < warm_end
        frac = (now - warm_end) / max(deadline - warm_end, 1e-9)
        eps = args.eps if warm else max(0.03, args.eps * (1 - frac))
        pick = (hint_rows(x, env, n, HEURISTIC_COLUMN) if warm
                else best_rows(net.score(x), env, n))
        u = rng.random(n)
        if (u < eps).any():
            other = np.where(u < eps / 2, hint_rows(x, env, n, GREEDY_COLUMN),
                             random_rows(env, n, rng))
            pick = np.where(u < eps, other, pick)
        # --updates updates a --tables agent decisions (a step asks only the rows whose agent
        # seat is to act, so a call brings fewer than --tables decisions)
        st["owed"] = st["owed"] + args.updates * n / args.tables if st["stored"] >= \
            10 * args.batch else 0.0
        while st["owed"] >= 1:
            st["owed"] -= 1
            sel = rng.integers(0, min(st["stored"], cap), args.batch)
            st["loss"] = opt.step(replay_x[sel], replay_y[sel])
            st.setdefault("first_loss", st["loss"])
            st["updates"] += 1
        return pick

    def store(x: np.ndarray, y: np.ndarray) -> None:
        idx = (st["stored"] + np.arange(x.shape[0])) % cap
        replay_x[idx] = x
        replay_y[idx] = np.clip(y / SCORE_SCALE, -CLIP, CLIP)
        st["stored"] += x.shape[0]

    def finished(d: Done) -> None:
        st["deals"] += 1
        drawn.pop(d.index, None)
        if d.samples:
            teams = np.array([s[0] for s in d.samples])
            y = np.array(d.team_units, np.float32)[teams]
            store(np.stack([s[1] for s in d.samples]), y)

    heuristic = {p: bots.make("heuristic", p) for p in presets}
    stream = SplitMix64(0)

    def probe(asking: Asking, x: np.ndarray, env: np.ndarray, is_pass: np.ndarray) -> None:
        """The rollout targets: per probed decision, the heuristic's play and up to
        ``--alternatives`` others (greedy's, a random one, then the network's best) each
        played out; a candidate's target is its rollout's score minus the heuristic play's."""
        n = len(asking)
        heur = hint_rows(x, env, n, HEURISTIC_COLUMN)
        greedy = hint_rows(x, env, n, GREEDY_COLUMN)
        score = net.score(x)
        offsets = np.concatenate([[0], np.cumsum([len(a[4]) for a in asking])])
        rows_x: list[np.ndarray] = []
        rows_y: list[float] = []
        for i in np.flatnonzero(rng.random(n) < args.probe_share):
            _, _, state, view, plays = asking[i]
            cand = np.flatnonzero(env == i)
            others = cand[cand != heur[i]]
            if not others.shape[0]:
                continue
            ranked = others[np.argsort(-score[others], kind="stable")]
            picks = [int(r) for r in (greedy[i], rng.choice(others), *ranked) if r != heur[i]]
            picks = list(dict.fromkeys(picks))[:args.alternatives]
            team = view.seat % 2
            bot = heuristic[state.rules.name]
            deals = [state]
            if args.worlds > 1:
                deals += sample_worlds(view, view.seat, args.worlds - 1,
                                       int(rng.integers(1 << 62)))
            value = dict.fromkeys((int(heur[i]), *picks), 0.0)
            for r in value:
                for d in deals:
                    s = d.copy()
                    s.pass_() if is_pass[r] else s.play(plays[r - offsets[i]])
                    value[r] += rollout(s, bot, stream, team) / len(deals)
            for r, v in value.items():
                rows_x.append(x[r])
                rows_y.append(v - value[int(heur[i])])
        if rows_x:
            store(np.stack(rows_x), np.array(rows_y, np.float32))

    # the presets take turns: a slice of time each, on a VecEnv of --tables deals (row i plays
    # deals i, i + tables, ... of the round's seeded stream; the deals running when the slice
    # ends are played out)
    decisions = 0
    round_no = 0
    while time.perf_counter() < deadline:
        rules = Rules.preset(presets[round_no % len(presets)])
        end = min(deadline, time.perf_counter() + 30)
        lane = Lane(VecEnv(rules, args.tables), job)
        lane.out = lane.env.reset(args.seed * 1000 + round_no)
        drawn.clear()
        decisions += drive(rules, [lane], lambda end=end: time.perf_counter() >= end, choose,
                           finished, args.targets == "return",
                           probe if args.targets == "rollout" else None, drain=True)
        lane.env.close()
        round_no += 1
    point(time.perf_counter())

    result: dict[str, Any] = {
        **meta, "minutes": args.minutes, "deals_trained": st["deals"], "decisions": decisions,
        "updates": st["updates"], "first_loss": st.get("first_loss"), "last_loss": st["loss"],
        "cpu_seconds": round(time.process_time() - cpu0, 1),
        "curve": curve, "eval": {},
    }
    # the cautious step: the bonus on the heuristic's choice that does best against it (on
    # deals neither training nor the evaluation below plays)
    selection = {}
    for b in (float(v) for v in args.bonuses.split(",")):
        net.bonus = b
        selection[b] = sum(duplicate(net, p, "heuristic", args.select_pairs, 2**41 + k,
                                     args.tables)["margin"] for k, p in enumerate(presets))
        print(f"bonus {b:g}: margin vs heuristic {selection[b] / len(presets):+.2f} a deal "
              f"(mean over {', '.join(presets)}, {args.select_pairs} pairs each)", flush=True)
    net.bonus = max(selection, key=lambda b: selection[b])
    result["bonus"] = {"chosen": net.bonus, "margins": {str(k): v / len(presets)
                                                         for k, v in selection.items()}}
    if args.out:
        net.save(args.out, deals=st["deals"], bonus_chosen=net.bonus, **meta)
    for p in presets:
        for opp in ("greedy", "heuristic"):
            r = duplicate(net, p, opp, args.eval_pairs, 2**40 + args.seed, args.tables)
            result["eval"].setdefault(p, {})[opp] = r
            print(f"{p}: vs {opp} over {r['pairs']} duplicate pairs: margin {r['margin']:+.2f} "
                  f"[{r['margin_ci'][0]:+.2f}, {r['margin_ci'][1]:+.2f}] a deal, won "
                  f"{r['won']:.1%}, lost {r['lost']:.1%}, first out {r['first']:.1%}",
                  flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    if args.png:
        plot(result, args.png)
    return result


def rebundle(paths: list[str], out: str) -> dict[str, Any]:
    """``--bundle``: one weights file of these runs' ``--out`` files; an input that is itself
    a bundle (the shipped weights) gives its networks of the presets no other input trains.
    A network the presets shared keeps the presets left to it: after a run that trains 千变
    alone, the 百变+千变 network serves 百变 (its meta data then says ``presets=baibian`` and
    ``trained_on=baibian,qianbian``)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        runs = [p for p in paths if not _is_bundle(p)]
        trained = {q for p in runs for q in _presets_of(p)}
        kept: list[str] = []
        kept_meta: list[dict[str, str]] = []
        for n in (str(n) for p in paths if _is_bundle(p) for n in unbundle(p, tmp)):
            presets = _presets_of(n)
            left = [q for q in presets if q not in trained]
            if left:
                kept.append(n)
                kept_meta.append({} if left == presets else
                                 {"presets": ",".join(left), "trained_on": ",".join(presets)})
        bundle(kept + runs, out, kept_meta + [run_record(p) for p in runs])
    return {"bundled": paths, "out": out}


def _is_bundle(path: str) -> bool:
    with np.load(path) as z:
        return any("." in k for k in z.files)


def _presets_of(path: str) -> list[str]:
    with np.load(path) as z:
        return str(z["meta_presets"]).split(",")


def run_record(path: str) -> dict[str, Any]:
    """What a run's ``--json`` (beside its ``--out``, the same name ending ``.json``) recorded
    of its cost, for the bundle's meta data: its CPU time (the run's share of a shared
    machine), wall-clock minutes, decisions and updates. Empty without that file."""
    record = os.path.splitext(path)[0] + ".json"
    if not os.path.exists(record):
        return {}
    with open(record) as f:
        r = json.load(f)
    return {"cpu_minutes": round(r["cpu_seconds"] / 60, 1), "minutes": r["minutes"],
            "decisions": r["decisions"], "updates": r["updates"]}


def plot(result: dict[str, Any], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    c = result["curve"]
    t = [p["deals_trained"] for p in c]
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    for opp in ("greedy", "heuristic"):
        pts = [p[opp] for p in c]
        ax[0].plot(t, [p["margin"] for p in pts], marker="o", label=f"vs {opp}")
        ax[0].fill_between(t, [p["margin_ci"][0] for p in pts], [p["margin_ci"][1] for p in pts],
                           alpha=0.2)
        ax[1].plot(t, [p["won"] for p in pts], marker="o", label=f"vs {opp}")
    ax[0].set_title(f"margin a deal ({c[0]['greedy']['pairs']} duplicate pairs a point)")
    ax[1].set_title("share of deals won")
    ax[0].axhline(0.0, color="grey", lw=0.8)
    ax[1].axhline(0.5, color="grey", lw=0.8)
    for a in ax:
        a.set_xlabel("training deals")
        a.grid(alpha=0.3)
        a.legend()
    fig.suptitle(f"DMC ({result['presets']}, opponents {result['opponents']}), "
                 f"{result['minutes']:g} min on 2 shared cores, curve on "
                 f"{result['presets'].split(',')[0]}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
