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

A bot is named as :func:`shuangkou.bots.make` knows it, with options after a colon
(``"pimc:worlds=16,max_nodes=2000"``), as your own ``"module:function"`` or
``"module:Class"``, or passed as an object following the bot protocol (:mod:`shuangkou.bots`)::

    def my_bot(view, plays, rng):          # at a module's top level: it pickles to workers
        return plays[0]

    duel(my_bot, "greedy", "classic", pairs=200)
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import os
import pickle
import queue
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import bots
from ._check import as_int, as_seed
from .errors import ArgumentError
from .rules import Rules, as_rules
from .sim import simulate

__all__ = ["MAX_PAIRS", "DuelResult", "duel", "elo", "parse_bot"]


def parse_bot(spec: str) -> tuple[str, dict[str, Any]]:
    """``"pimc:worlds=16,max_nodes=2000"`` → ``("pimc", {"worlds": 16, "max_nodes": 2000})``
    (values read as int, then float, else kept as text); ``"mybots:Searcher:depth=3"`` →
    ``("mybots:Searcher", {"depth": 3})``: :func:`shuangkou.bots.parse_spec`."""
    return bots.parse_spec(spec)


MAX_PAIRS = 10**8
"""The most pairs one :func:`duel` plays: its result keeps every pair's margins (18 bytes a
pair, 1.8 GB at the cap) and the Python bots' decision times; a bigger run is several duels
on successive ``start`` values."""
_LAST_DEAL = 2**63 - 1  # deal indices are int64 in the kernel


class _Timed:
    """A bot whose decisions are counted and timed (CPU time of the process: the machine may
    be shared, and wall time would count the other processes' turns)."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.wilds = getattr(bot, "wilds", "all")
        self.rules = getattr(bot, "rules", None)
        self.__name__ = getattr(bot, "name", None) or getattr(bot, "__name__", "bot")
        self.times: list[float] = []

    def __call__(self, view: Any, plays: Any, rng: Any) -> Any:
        t = time.process_time()
        choice = self.bot(view, plays, rng)
        self.times.append(time.process_time() - t)
        return choice


_WORKER: list[Any] = []
"""A worker process's two bots (:func:`_start_worker`), made once for all its chunks."""


def _start_worker(players: tuple[Any, Any], rules: Rules) -> None:
    # Workers ignore SIGINT: a Ctrl-C at a terminal reaches the whole process group, and only
    # the parent should answer it (no worker tracebacks); it then terminates them.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER[:] = [bots.resolve(p, rules) for p in players]


def _chunk_job(job: tuple[Rules, int, int, int]) -> dict[str, Any]:
    return _chunk(_WORKER, *job)


def _chunk(players: list[Any], r: Rules, seed: int, start: int, count: int) -> dict[str, Any]:
    """Pairs ``start … start+count-1``: per pair A's margin in each play, A's team first."""
    seats = [p.kernel if getattr(p, "kernel", None) else _Timed(p) for p in players]
    margins = np.zeros((count, 2))
    first = np.zeros((count, 2), bool)
    for team in (0, 1):  # A on seats 0+2, then on 1+3
        pols = [seats[0] if s % 2 == team else seats[1] for s in range(4)]
        res = simulate(count, r, pols, seed=seed, start=start)
        u = res.units.astype(np.int64)
        margins[:, team] = u[:, team::2].sum(1) - u[:, 1 - team::2].sum(1)
        first[:, team] = res.first_team == team
    timing = [np.array(p.times) if isinstance(p, _Timed) else None for p in seats]
    return {"start": start, "margins": margins, "first": first, "timing": timing}


def _for_workers(bot: Any, player: Any, which: str) -> Any:
    """What a worker process is sent to make its own copy of a bot: the spec string as given,
    else the object itself, which must pickle."""
    if isinstance(bot, str):
        return bot
    try:
        pickle.dumps(player)
    except Exception as e:
        raise ArgumentError(
            f"bot {which} ({player!r}) cannot be sent to worker processes: it does not "
            f"pickle ({type(e).__name__}: {e}). Define it at the top level of a module (a "
            "function or a class instance, not a lambda or a closure), name it as "
            "'module:function', or pass processes=1 to play it in this process") from None
    return player


def _label(bot: Any, player: Any) -> str:
    if isinstance(bot, str):
        return bot
    return str(getattr(player, "name", None) or getattr(player, "__name__", None)
               or type(player).__name__)


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


def duel(a: Any, b: Any, rules: Rules | str = "baibian", pairs: int = 1000, *, seed: int = 1,
         start: int = 0, processes: int | None = None, chunk: int = 20,
         progress: bool = False) -> DuelResult:
    """Play ``pairs`` duplicate deal pairs (deals ``start …`` of the run seeded ``seed``) of
    bot ``a`` against bot ``b`` in ``processes`` worker processes (default: every core; 1
    plays in this process). A bot is a name of :data:`shuangkou.bots.BOTS` with options
    (``"pimc:worlds=16"``), a ``"module:function"`` or ``"module:Class"`` spec, or an object
    following the bot protocol (:mod:`shuangkou.bots`): worker processes get a pickled copy
    of an object (one that does not pickle is refused, saying why). Every argument is checked
    and both bots are made here before any deal is played; at most ``2 × processes`` chunks
    are queued at a time."""
    r = as_rules(rules)
    players = [bots.resolve(x, r) for x in (a, b)]
    pairs = as_int(pairs, "pairs", 1, MAX_PAIRS)
    chunk = as_int(chunk, "chunk", 1, MAX_PAIRS)
    seed = as_seed(seed)
    start = as_int(start, "start", 0, _LAST_DEAL - pairs + 1)
    procs = as_int((os.cpu_count() or 1) if processes is None else processes, "processes", 1,
                   1024)
    procs = min(procs, -(-pairs // chunk))  # never more workers than chunks
    names = (_label(a, players[0]), _label(b, players[1]))
    jobs = ((r, seed, start + s, min(chunk, pairs - s)) for s in range(0, pairs, chunk))
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=pairs, desc=f"{names[0]} vs {names[1]} ({r.name})", unit="pair",
                   smoothing=0.1)
    t0 = time.perf_counter()
    parts: list[dict[str, Any]] = []
    try:
        if procs == 1:
            for job in jobs:
                parts.append(_chunk(players, *job))
                if bar is not None:
                    bar.update(job[-1])
        else:
            sent = (_for_workers(a, players[0], "a"), _for_workers(b, players[1], "b"))
            for part in _pooled(procs, sent, r, jobs):
                parts.append(part)
                if bar is not None:
                    bar.update(part["margins"].shape[0])
    finally:
        if bar is not None:
            bar.close()
    parts.sort(key=lambda p: p["start"])
    timing: list[np.ndarray | None] = []
    for k in range(2):
        ts = [p["timing"][k] for p in parts]
        timing.append(None if any(t is None for t in ts) else np.concatenate(ts))
    return DuelResult(names[0], names[1], r.name, seed,
                      np.concatenate([p["margins"] for p in parts]),
                      np.concatenate([p["first"] for p in parts]), timing,
                      time.perf_counter() - t0)


def _pooled(procs: int, players: tuple[Any, Any], rules: Rules,
            jobs: Iterator[tuple[Rules, int, int, int]]) -> Iterator[dict[str, Any]]:
    """The chunks' results as ``procs`` worker processes finish them, at most ``2 × procs``
    chunks queued at a time (the jobs are drawn as they are sent: any count streams)."""
    pool = multiprocessing.Pool(procs, initializer=_start_worker, initargs=(players, rules))
    done: queue.SimpleQueue[Any] = queue.SimpleQueue()
    waiting = 0
    try:
        for job in itertools.islice(jobs, 2 * procs):
            pool.apply_async(_chunk_job, (job,), callback=done.put, error_callback=done.put)
            waiting += 1
        while waiting:
            part = done.get()
            waiting -= 1
            if isinstance(part, BaseException):
                raise part
            for job in itertools.islice(jobs, 1):
                pool.apply_async(_chunk_job, (job,), callback=done.put,
                                 error_callback=done.put)
                waiting += 1
            yield part
        pool.close()
    except BaseException:
        pool.terminate()  # Ctrl-C or a failed chunk: the other chunks stop now
        raise
    finally:
        pool.join()


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
