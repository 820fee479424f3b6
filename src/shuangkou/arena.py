"""Bot against bot on duplicate deals (docs/bots.md, "The arena").

Each deal is played twice: bot A's team on seats 0+2, then on seats 1+3, the same cards — as
in duplicate bridge, so the luck of the deal cancels out of the comparison. A pair's *margin*
is A's team units minus B's, averaged over its two plays; the figures are the mean margin a
deal with its 95% confidence interval (over pairs), the share of pairs A won (margin > 0) and
lost, the share of the plays A's team finished first, and each bot's time a decision.

Pairs run in parallel worker processes (``processes``, all cores by default), in chunks of
``chunk`` pairs; the result does not depend on either (each deal depends only on its index and
the seed)::

    from shuangkou.arena import duel
    r = duel("learned", "greedy", "baibian", pairs=2000, seed=1)
    print(r)

A bot is named as :func:`shuangkou.bots.make` knows it, with options after a colon:
``"pimc:worlds=16,max_nodes=2000"``.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import signal
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import bots
from .rules import Rules, as_rules
from .sim import simulate

__all__ = ["DuelResult", "duel", "elo", "parse_bot"]


def parse_bot(spec: str) -> tuple[str, dict[str, Any]]:
    """``"pimc:worlds=16,max_nodes=2000"`` → ``("pimc", {"worlds": 16, "max_nodes": 2000})``
    (values read as int, then float, else kept as text)."""
    if not isinstance(spec, str):
        raise TypeError(f"spec: a bot is named by a string such as 'greedy' or "
                        f"'pimc:worlds=16', not {type(spec).__name__} ({spec!r:.40})")
    name, _, rest = spec.partition(":")
    if name not in bots.BOTS:
        raise ValueError(f"unknown bot {name!r}: choose one of {', '.join(bots.BOTS)}")
    options: dict[str, Any] = {}
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ValueError(f"bot option {item!r} of {spec!r} is not key=value")
        for cast in (int, float, str):
            try:
                options[key] = cast(value)
                break
            except ValueError:
                continue
    return name, options


class _Timed:
    """A bot whose decisions are counted and timed (CPU time of the process: the machine may
    be shared, and wall time would count the other processes' turns)."""

    def __init__(self, bot: bots.Bot) -> None:
        self.bot = bot
        self.wilds = bot.wilds
        self.__name__ = bot.name
        self.times: list[float] = []

    def __call__(self, view: Any, plays: Any, rng: Any) -> Any:
        t = time.process_time()
        choice = self.bot(view, plays, rng)
        self.times.append(time.process_time() - t)
        return choice


def _chunk_job(job: tuple[str, str, Rules, int, int, int]) -> dict[str, Any]:
    return _chunk(*job)


def _chunk(a: str, b: str, rules: str | Rules, seed: int, start: int, count: int) -> dict[str, Any]:
    """Pairs ``start … start+count-1``: per pair A's margin in each play, A's team first."""
    r = as_rules(rules)
    players = []
    for spec in (a, b):
        name, options = parse_bot(spec)
        bot = bots.make(name, r, **options)
        players.append(bot.kernel or _Timed(bot))
    margins = np.zeros((count, 2))
    first = np.zeros((count, 2), bool)
    for team in (0, 1):  # A on seats 0+2, then on 1+3
        pols = [players[0] if s % 2 == team else players[1] for s in range(4)]
        res = simulate(count, r, pols, seed=seed, start=start)
        u = res.units.astype(np.int64)
        margins[:, team] = u[:, team::2].sum(1) - u[:, 1 - team::2].sum(1)
        first[:, team] = res.first_team == team
    timing = [np.array(p.times) if isinstance(p, _Timed) else None for p in players]
    return {"start": start, "margins": margins, "first": first, "timing": timing}


@dataclass
class DuelResult:
    """What :func:`duel` measured; ``margins`` ``(pairs, 2)``: A's margin in each play;
    ``timing``: each bot's CPU seconds of every decision (``None``: a built-in bot)."""

    a: str
    b: str
    rules: str
    seed: int
    margins: np.ndarray
    first: np.ndarray
    timing: list[np.ndarray | None] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def pairs(self) -> int:
        return int(self.margins.shape[0])

    def summary(self) -> dict[str, Any]:
        m = self.margins.mean(1)
        n = self.pairs
        mean = float(m.mean()) if n else math.nan
        half = 1.959964 * float(m.std(ddof=1)) / math.sqrt(n) if n > 1 else math.inf
        def stat(f: Any) -> list[float | None]:
            return [None if t is None or not t.size else 1000 * float(f(t)) for t in self.timing]

        ms, median, worst = stat(np.mean), stat(np.median), stat(np.max)
        return {"a": self.a, "b": self.b, "rules": self.rules, "seed": self.seed, "pairs": n,
                "margin": mean, "ci95": [mean - half, mean + half],
                "won": float((m > 0).mean()), "lost": float((m < 0).mean()),
                "first": float(self.first.mean()), "ms_a": ms[0], "ms_b": ms[1],
                "median_ms_a": median[0], "median_ms_b": median[1],
                "worst_ms_a": worst[0], "worst_ms_b": worst[1], "seconds": self.seconds}

    def __str__(self) -> str:
        s = self.summary()

        def ms(k: str) -> str:
            x = s[f"ms_{k}"]
            return "built-in (not timed)" if x is None else (
                f"{x:.2f} ms (median {s[f'median_ms_{k}']:.2f}, worst {s[f'worst_ms_{k}']:.1f})")

        return (
            f"{s['a']} vs {s['b']} under {s['rules']}, {s['pairs']} duplicate deal pairs "
            f"(seed {s['seed']}):\n"
            f"  {s['a']}'s margin {s['margin']:+.2f} units a deal, 95% CI "
            f"[{s['ci95'][0]:+.2f}, {s['ci95'][1]:+.2f}]\n"
            f"  deals won {s['won']:.1%}, lost {s['lost']:.1%}, tied "
            f"{1 - s['won'] - s['lost']:.1%}; {s['a']}'s team first out {s['first']:.1%}\n"
            f"  time a decision (CPU): {s['a']} {ms('a')}, {s['b']} {ms('b')}; "
            f"{s['seconds']:.0f} s wall")


def duel(a: str, b: str, rules: Rules | str = "baibian", pairs: int = 1000, *, seed: int = 1,
         start: int = 0, processes: int | None = None, chunk: int = 20,
         progress: bool = False) -> DuelResult:
    """Play ``pairs`` duplicate deal pairs (deals ``start …`` of the run seeded ``seed``) of
    bot ``a`` against bot ``b`` (names as :func:`parse_bot` reads them) in ``processes``
    worker processes (default: every core; 1 plays in this process)."""
    for spec in (a, b):
        parse_bot(spec)
    r = as_rules(rules)
    if not isinstance(pairs, int) or pairs < 1:
        raise ValueError(f"pairs must be a positive int, got {pairs!r}")
    if not isinstance(chunk, int) or chunk < 1:
        raise ValueError(f"chunk must be a positive int, got {chunk!r}")
    procs = processes or os.cpu_count() or 1
    if not isinstance(procs, int) or procs < 1:
        raise ValueError(f"processes must be a positive int, got {processes!r}")
    jobs = [(start + s, min(chunk, pairs - s)) for s in range(0, pairs, chunk)]
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=pairs, desc=f"{a} vs {b} ({r.name})", unit="pair", smoothing=0.1)
    t0 = time.perf_counter()
    parts: list[dict[str, Any]] = []
    try:
        if procs == 1:
            for s, c in jobs:
                parts.append(_chunk(a, b, r, seed, s, c))
                if bar is not None:
                    bar.update(c)
        else:
            # Workers ignore SIGINT: a Ctrl-C at a terminal reaches the whole process group, and
            # only this process should answer it (no worker tracebacks); it then terminates them,
            # as a chunk of PIMC pairs can run for minutes.
            pool = multiprocessing.Pool(procs, initializer=signal.signal,
                                        initargs=(signal.SIGINT, signal.SIG_IGN))
            try:
                for part in pool.imap_unordered(_chunk_job,
                                                [(a, b, r, seed, s, c) for s, c in jobs]):
                    parts.append(part)
                    if bar is not None:
                        bar.update(part["margins"].shape[0])
                pool.close()
            except BaseException:
                pool.terminate()  # Ctrl-C or a failed chunk: the other chunks stop now
                raise
            finally:
                pool.join()
    finally:
        if bar is not None:
            bar.close()
    parts.sort(key=lambda p: p["start"])
    timing: list[np.ndarray | None] = []
    for k in range(2):
        ts = [p["timing"][k] for p in parts]
        timing.append(None if any(t is None for t in ts) else np.concatenate(ts))
    return DuelResult(a, b, r.name, seed, np.concatenate([p["margins"] for p in parts]),
                      np.concatenate([p["first"] for p in parts]), timing,
                      time.perf_counter() - t0)


def elo(results: list[dict[str, Any]], anchor: str = "greedy", iterations: int = 2000) -> dict[
        str, float]:
    """Elo-style ratings from duel summaries (``a``, ``b``, ``pairs``, ``won``, ``lost``): the
    Bradley–Terry strengths that best explain each pair's share of deals won (a tie counts
    half), by the minorisation–maximisation iteration, on the Elo scale (400 points: 10 to 1
    odds) with ``anchor`` at 1500."""
    if not isinstance(results, list) or not all(
        isinstance(r, dict) and {"a", "b", "pairs", "won", "lost"} <= r.keys() for r in results
    ):
        raise TypeError("results must be a list of duel summaries (DuelResult.summary(): a, b, "
                        f"pairs, won, lost), not {type(results).__name__}")
    names = sorted({r["a"] for r in results} | {r["b"] for r in results})
    wins = {x: {y: 0.0 for y in names} for x in names}
    for r in results:
        n, won, lost = r["pairs"], r["won"], r["lost"]
        tie = 1 - won - lost
        wins[r["a"]][r["b"]] += n * (won + tie / 2) + 0.5  # +0.5 a side: no infinite rating
        wins[r["b"]][r["a"]] += n * (lost + tie / 2) + 0.5
    strength = {x: 1.0 for x in names}
    for _ in range(iterations):
        new = {}
        for x in names:
            games = sum((wins[x][y] + wins[y][x]) / (strength[x] + strength[y])
                        for y in names if y != x and wins[x][y] + wins[y][x])
            new[x] = sum(wins[x].values()) / games if games else 1.0
        strength = new
    base = strength.get(anchor, 1.0)
    return {x: 1500 + 400 * math.log10(strength[x] / base) for x in names}
