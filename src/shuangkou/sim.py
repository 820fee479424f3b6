"""Self-play at scale (RULES.md R7 flow, R8 scores): seeded, GIL-free, threaded, mergeable.

::

    from shuangkou.sim import simulate
    res = simulate(100_000, "baibian", policy="greedy", threads=2, seed=1)
    print(res.summary())                      # outcome shares with CIs, scores, bombs, length
    res.outcome, res.places, res.scores       # numpy arrays, one row per deal

**Determinism.** Deal ``i`` of a run seeded ``seed`` is dealt from ``rng.deal_seed(seed, i)``
exactly as ``Game(rules, seed=rng.deal_seed(seed, i))`` deals it, and the built-in policies
draw from the same generator after the deal. A deal's result therefore depends on
``(seed, i, rules, policies)`` only: any thread count, any chunking, any machine
(:mod:`shuangkou.distributed`) gives identical arrays.

**Policies.** ``"random"`` – uniform over the legal plays (``wilds="all"``: every distinct way
of taking cards), plus pass when answering; ``"greedy"`` – a heuristic worth playing against
(see :func:`greedy_policy`; plays from ``wilds="fewest"``). Both run inside the kernel with the
GIL released.

Every bot of :mod:`shuangkou.bots` is a policy too, by name (``"heuristic"``, ``"default"``,
``"pimc:worlds=2"`` …) or as your own ``"module:function"`` / ``"module:Class"`` spec
(:func:`shuangkou.bots.resolve`); a bot made for other rules is refused before the first deal.

A policy may also be a Python callable ``policy(view, plays, rng)`` returning one of ``plays``
(or its index) or ``None``/``PASS`` to pass. ``view`` is the deciding seat's view of the
position, ``State.view(seat)``: what that seat may know (its hand, the partner's under 双明,
cards left per seat, the table and its owner, places, bombs and cards played, the rules), so
a bot in a contest cannot read the hidden hands; ``view.seat`` is the seat deciding.
``plays`` is the State's legal list (lazy: ``len``, ``[i]``, iteration, ``in``), with
``wilds="all"`` unless the callable has an attribute ``wilds = "fewest"``; ``rng`` is the
deal's :class:`~shuangkou.rng.SplitMix64` stream. Such runs play each deal on the kernel
``State`` (sequential: ``threads`` is ignored, as the policy needs the GIL).

Trusted code that wants the whole :class:`~shuangkou.game.Game` (every hand: not for
contests) opts in with :class:`with_game`: ``simulate(n, rules, with_game(fn))`` calls
``fn(game, plays, rng)`` with ``plays`` a list; a run with such a seat plays through the
Python ``Game`` (slower), the other seats still get their view.

:func:`random_policy` and :func:`greedy_policy` are the Python twins of the built-ins: a run
with them gives the same arrays as the kernel run (tested).

``policy`` may be one policy or four (one per seat), e.g. ``("greedy", "random") * 2``.

**Output.** :class:`SimResult` holds one row per deal (see :data:`FIELDS`); ``summary()`` gives
outcome shares with Wilson 95% intervals, mean units/scores per seat, bomb and star frequencies
and game length. :func:`merge` concatenates partial results (scale-out). For runs too big to
keep, :func:`simulate_stats` streams chunks into a :class:`SimStats` in constant memory.
"""

from __future__ import annotations

import contextlib
import math
import os
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from . import _sim
from ._check import SEED_MAX, as_int, as_seed, parse_int
from ._engine import deal_cards
from .cards import HAND_SIZE
from .errors import ArgumentError, DocumentError
from .plays import PASS, Play, backend
from .rng import MASK64, SplitMix64, deal, deal_seed
from .rules import Rules, as_rules

__all__ = [
    "FIELDS",
    "OUTCOMES",
    "PolicyFn",
    "SimResult",
    "SimStats",
    "Summary",
    "chunk_ranges",
    "greedy_policy",
    "merge",
    "play_deal",
    "random_policy",
    "simulate",
    "simulate_stats",
    "with_game",
]

FIELDS: dict[str, tuple[str, tuple[int, ...]]] = dict(_sim.FIELDS)
"""Per-deal arrays of a :class:`SimResult`: name → (dtype, shape after the deal axis).

``outcome`` 0 双扣 / 1 单扣 / 2 平扣 (R8); ``places`` the seats in place order; ``leader`` the
first leader; ``revealed`` the 明牌 card id (-1 for a random leader); ``swap`` the two seats a
明牌 swap exchanged (-1, -1 if none); ``units`` and ``scores`` (units × base score, int64) per seat;
``multiplier``; ``decisions`` (plays + passes), ``plays``, ``tricks``; ``cards_left`` per seat
at the end; ``bombs_by_stars[k]`` bombs of k stars played (classic: every bomb at 0);
``bombs_by_seat``; ``max_stars`` (-1: no bomb) and ``max_bomb_size`` (0: none);
``held_units`` R8.4 held-bomb units per seat; ``overflow`` (kernel buffer overflows, always 0).
"""

OUTCOMES = ("双扣", "单扣", "平扣")
OUTCOMES_EN = ("double win", "single win", "tie")
MAX_STARS = _sim.MAX_STARS

PolicyFn = Callable[[Any, Any, SplitMix64], Play | int | None]
"""A Python policy: ``policy(view, plays, rng)`` (see the module docstring)."""
PolicyArg = str | PolicyFn | Sequence[str | PolicyFn]


class with_game:  # noqa: N801 - used like a function: with_game(fn)
    """Marks a trusted policy that is handed the whole :class:`~shuangkou.game.Game`:
    ``fn(game, plays, rng)`` (``plays`` a list of :class:`Play`). The game shows every hand,
    so this is for one's own code, never for a bot contest. The run plays through the Python
    ``Game``. ``wilds`` and ``__name__`` are taken from ``fn``."""

    def __init__(self, fn: Callable[[Any, list[Play], SplitMix64], Play | int | None]) -> None:
        if not callable(fn):
            raise TypeError(f"with_game: fn must be a policy (a callable), not {fn!r:.40}")
        self.fn = fn
        self.wilds: str = getattr(fn, "wilds", "all")
        self.__name__: str = getattr(fn, "__name__", type(fn).__name__)

    def __call__(self, game: Any, plays: list[Play], rng: SplitMix64) -> Play | int | None:
        return self.fn(game, plays, rng)

_MODES = {"classic": 0, "baibian": 1, "jj": 2, "qianbian": 3}
_BUILTIN = {"random": 0, "greedy": 1}
_DEFAULT_FEWEST = {"random": False, "greedy": True}


# -- arguments ---------------------------------------------------------------------------------
def _as_policies(policy: PolicyArg, rules: Rules) -> list[str | PolicyFn]:
    """The four seats' policies: ``"random"``/``"greedy"`` (and the bots of ``shuangkou.bots``
    the kernel plays) as kernel names, every other bot resolved by
    :func:`shuangkou.bots.resolve` (a name of ``bots.BOTS``, a ``"module:function"`` spec, a
    callable), a bot made for other rules refused."""
    from . import bots  # local: bots imports this module

    if isinstance(policy, str) or callable(policy):
        pols: list[Any] = [policy] * 4
    else:
        try:
            pols = list(policy)
        except TypeError:
            raise TypeError(f"policy must be a bot (a callable or a name) or a sequence of "
                            f"them, not {type(policy).__name__}") from None
        if len(pols) in (1, 2):
            pols = pols * (4 // len(pols))
        if len(pols) != 4:
            raise ValueError("policy must be one policy, two (team 0+2, team 1+3) or four")
    made: dict[str, Any] = {}  # one object for a spec given to several seats
    out: list[str | PolicyFn] = []
    for p in pols:
        if not (isinstance(p, str) and p in _BUILTIN):
            try:
                if isinstance(p, str):
                    p = made[p] if p in made else made.setdefault(p, bots.resolve(p, rules))
                else:
                    p = bots.resolve(p, rules)
            except (TypeError, ValueError) as e:  # the message names the argument
                raise type(e)(f"policy: {e}") from None
            # a shuangkou.bots bot the kernel plays itself ("random", "greedy") runs there
            p = getattr(p, "kernel", None) or p
        out.append(p)
    return out


def _fewest_flags(pols: Sequence[str | PolicyFn], wilds: str | None) -> list[bool]:
    if wilds is not None and wilds not in ("all", "fewest"):
        raise ValueError(f"wilds must be 'all', 'fewest' or None, not {wilds!r}")
    out = []
    for p in pols:
        if wilds is not None:
            out.append(wilds == "fewest")
        elif isinstance(p, str):
            out.append(_DEFAULT_FEWEST[p])
        else:
            out.append(getattr(p, "wilds", "all") == "fewest")
    return out


def _params(rules: Rules, pols: Sequence[str | PolicyFn], fewest: Sequence[bool]) -> dict[str, Any]:
    return {
        "flags": rules.flags,
        "mode": _MODES[rules.scoring],
        "revealed": int(rules.first_leader == "revealed"),
        "base_score": rules.base_score,
        "four_jokers_multiplier": rules.four_jokers_multiplier,
        "jj_single_win": rules.jj_single_win,
        "held_bombs": int(rules.held_bombs_score),
        "score_cap": rules.score_cap or 0,
        "policy": [_BUILTIN[p] for p in pols],  # type: ignore[index]
        "fewest": [int(f) for f in fewest],
    }


def _policy_name(p: str | PolicyFn) -> str:
    return p if isinstance(p, str) else getattr(p, "__name__", type(p).__name__)


MAX_DEAL_INDEX = 2**63 - 1
"""The largest deal index a run plays: the kernel and :attr:`SimResult.deal_index` hold deal
indices as int64, so deals ``start … start+n-1`` must all be at most this."""


def _deal_range(n: object, start: object) -> tuple[int, int]:
    """``(n, start)`` by the argument rule, the deals ``start … start+n-1`` within
    0..:data:`MAX_DEAL_INDEX` (a larger index would wrap negative in int64)."""
    n = as_int(n, "n (number of deals)", 0, MAX_DEAL_INDEX + 1)
    start = as_int(start, "start", 0, MAX_DEAL_INDEX)
    if start + n - 1 > MAX_DEAL_INDEX:
        raise ArgumentError(
            f"start must be at most 2**63 - n = {MAX_DEAL_INDEX + 1 - n} for n = {n} deals "
            f"(deal indices are int64, at most 2**63 - 1), got {start}")
    return n, start


def _empty(n: int) -> dict[str, np.ndarray]:
    try:
        return {k: np.zeros((n, *shape), dtype=dt) for k, (dt, shape) in FIELDS.items()}
    except (MemoryError, ValueError):  # numpy: "Unable to allocate …" / "array is too big"
        per_deal = sum(np.dtype(dt).itemsize * math.prod(shape) for dt, shape in FIELDS.values())
        raise MemoryError(
            f"n = {n} deals need {n * per_deal / 2**30:,.1f} GiB of results: run them in "
            "pieces with simulate_iter or simulate_stats (constant memory)") from None


# -- results -----------------------------------------------------------------------------------
@dataclass
class SimResult:
    """One row per deal (deal indices ``start … start+n-1``); arrays named as in
    :data:`FIELDS` are attributes (``res.outcome``, ``res.scores`` …)."""

    arrays: dict[str, np.ndarray]
    rules: str
    policies: tuple[str, str, str, str]
    seed: int
    start: int = 0
    meta: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.arrays["outcome"].shape[0])

    def __getattr__(self, name: str) -> np.ndarray:
        arrays = self.__dict__.get("arrays")
        if arrays is not None and name in arrays:
            array: np.ndarray = arrays[name]
            return array
        raise AttributeError(name)

    @property
    def deal_index(self) -> np.ndarray:
        return np.arange(self.start, self.start + len(self), dtype=np.int64)

    @property
    def place_of(self) -> np.ndarray:
        """(n, 4): place 1..4 of each seat."""
        out = np.empty_like(self.arrays["places"])
        rows = np.arange(len(self))[:, None]
        out[rows, self.arrays["places"]] = np.arange(1, 5, dtype=out.dtype)
        return out

    @property
    def first_team(self) -> np.ndarray:
        """Team (0: seats 0+2, 1: seats 1+3) of the first finisher: team T of R8."""
        return (self.arrays["places"][:, 0] % 2).astype(np.int8)

    def stats(self) -> SimStats:
        return SimStats.from_result(self)

    def summary(self) -> Summary:
        return self.stats().summary()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SimResult):
            return NotImplemented
        return (
            (self.rules, self.policies, self.seed, self.start)
            == (other.rules, other.policies, other.seed, other.start)
            and self.arrays.keys() == other.arrays.keys()
            and all(np.array_equal(self.arrays[k], other.arrays[k]) for k in self.arrays)
        )

    # -- files ---------------------------------------------------------------------------------
    def columns(self) -> dict[str, np.ndarray]:
        """Flat 1-D columns (``scores_0`` … ``bombs_by_stars_15``) for CSV and Parquet."""
        cols: dict[str, np.ndarray] = {"deal": self.deal_index}
        for k, a in self.arrays.items():
            if a.ndim == 1:
                cols[k] = a
            else:
                for j in range(a.shape[1]):
                    cols[f"{k}_{j}"] = a[:, j]
        return cols

    def save(self, path: str | os.PathLike[str], format: str | None = None) -> str:
        """Write to ``.npz``, ``.csv`` or ``.parquet`` (by ``format`` or the suffix). Parquet
        needs pyarrow. Returns the format used."""
        p = os.fspath(path)
        fmt = output_format(p, format)
        meta = {"rules": self.rules, "policies": ",".join(self.policies), "seed": str(self.seed),
                "start": str(self.start)}
        if fmt == "npz":
            extra = {f"meta_{k}": np.array(v) for k, v in meta.items()}
            with open(p, "wb") as f:  # a file object: numpy would append ".npz" to "x.NPZ"
                np.savez_compressed(f, **cast(dict[str, Any], {**self.arrays, **extra}))
        elif fmt == "csv":
            cols = self.columns()
            names = list(cols)
            data = np.column_stack([cols[k].astype(np.int64) for k in names])
            np.savetxt(p, data, fmt="%d", delimiter=",", header=",".join(names), comments="")
        elif fmt == "parquet":
            try:
                import pyarrow as pa
                import pyarrow.parquet as pq
            except ImportError:
                raise RuntimeError(
                    "writing parquet needs pyarrow: pip install 'shuangkou[parquet]'"
                    " (or use .npz / .csv)"
                ) from None
            table = pa.table(self.columns())
            table = table.replace_schema_metadata({k.encode(): v.encode() for k, v in meta.items()})
            pq.write_table(table, p)
        return fmt

    @classmethod
    def load_npz(cls, path: str | os.PathLike[str]) -> SimResult:
        with np.load(path) as z:
            arrays = {k: z[k] for k in FIELDS}
            pols = tuple(str(z["meta_policies"]).split(","))
            seed = parse_int(str(z["meta_seed"]), "meta_seed of the .npz", 0, SEED_MAX,
                             DocumentError)
            start = parse_int(str(z["meta_start"]), "meta_start of the .npz", 0, MAX_DEAL_INDEX,
                              DocumentError)
            return cls(arrays, str(z["meta_rules"]), pols, seed, start)  # type: ignore[arg-type]


def output_format(path: str | os.PathLike[str], format: str | None = None) -> str:
    """``npz``, ``csv`` or ``parquet``: ``format``, or the suffix of ``path``."""
    fmt = (format or os.path.splitext(os.fspath(path))[1].lstrip(".")).lower()
    if fmt not in ("npz", "csv", "parquet"):
        raise ValueError(f"unknown output format {fmt!r} of {os.fspath(path)!r}: use .npz, .csv "
                         "or .parquet")
    return fmt


def merge(parts: Sequence[SimResult]) -> SimResult:
    """Concatenate partial results of one run (same rules, policies, seed) into one, ordered by
    deal index; the parts must cover consecutive deal indices without gaps or overlaps."""
    if not parts:
        raise ValueError("nothing to merge")
    parts = sorted(parts, key=lambda r: r.start)
    head = parts[0]
    pos = head.start
    for r in parts:
        if (r.rules, r.policies, r.seed) != (head.rules, head.policies, head.seed):
            raise ValueError("cannot merge results of different runs (rules, policies or seed)")
        if r.start != pos:
            raise ValueError(f"deal indices are not contiguous: expected {pos}, got {r.start}")
        pos += len(r)
    arrays = {k: np.concatenate([r.arrays[k] for r in parts]) for k in head.arrays}
    return SimResult(arrays, head.rules, head.policies, head.seed, head.start, dict(head.meta))


# -- statistics --------------------------------------------------------------------------------
def _wilson(k: float, n: float, z: float = 1.959964) -> tuple[float, float]:
    if n == 0:
        return (float("nan"), float("nan"))
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (c - h, c + h)


@dataclass
class SimStats:
    """Sufficient statistics of many deals: mergeable, constant size (for streaming runs)."""

    n: int = 0
    outcomes: np.ndarray = field(default_factory=lambda: np.zeros(3, np.int64))
    first_team: np.ndarray = field(default_factory=lambda: np.zeros(2, np.int64))
    score_sum: np.ndarray = field(default_factory=lambda: np.zeros(4, np.float64))
    score_sq: np.ndarray = field(default_factory=lambda: np.zeros(4, np.float64))
    place_sum: np.ndarray = field(default_factory=lambda: np.zeros(4, np.float64))
    bombs_by_stars: np.ndarray = field(default_factory=lambda: np.zeros(MAX_STARS, np.int64))
    deals_with_stars: np.ndarray = field(default_factory=lambda: np.zeros(MAX_STARS, np.int64))
    deals_with_bomb: int = 0
    max_stars_hist: np.ndarray = field(default_factory=lambda: np.zeros(MAX_STARS + 1, np.int64))
    length: dict[str, list[float]] = field(default_factory=dict)
    nonzero_sum: int = 0
    overflow: int = 0
    rules: str = ""
    policies: tuple[str, ...] = ()

    @classmethod
    def from_result(cls, res: SimResult) -> SimStats:
        a = res.arrays
        s = cls(rules=res.rules, policies=res.policies)
        s.n = len(res)
        s.outcomes = np.bincount(a["outcome"], minlength=3).astype(np.int64)
        s.first_team = np.bincount(a["places"][:, 0] % 2, minlength=2).astype(np.int64)
        sc = a["scores"].astype(np.float64)
        s.score_sum = sc.sum(0)
        s.score_sq = (sc * sc).sum(0)
        s.place_sum = res.place_of.astype(np.float64).sum(0)
        b = a["bombs_by_stars"].astype(np.int64)
        s.bombs_by_stars = b.sum(0)
        s.deals_with_stars = (b > 0).sum(0)
        s.deals_with_bomb = int((b.sum(1) > 0).sum())
        s.max_stars_hist = np.bincount(a["max_stars"].astype(np.int64) + 1, minlength=MAX_STARS + 1)
        for k in ("decisions", "plays", "tricks"):
            v = a[k].astype(np.float64)
            s.length[k] = [float(v.sum()), float((v * v).sum()), float(v.min(initial=1e18)),
                           float(v.max(initial=-1e18))]
        s.nonzero_sum = int((a["units"].sum(1) != 0).sum())
        s.overflow = int(a["overflow"].sum())
        return s

    def merge(self, other: SimStats) -> SimStats:
        if self.n == 0:
            return other
        if other.n == 0:
            return self
        out = SimStats(rules=self.rules, policies=self.policies)
        out.n = self.n + other.n
        for k in ("outcomes", "first_team", "score_sum", "score_sq", "place_sum",
                  "bombs_by_stars", "deals_with_stars", "max_stars_hist"):
            setattr(out, k, getattr(self, k) + getattr(other, k))
        out.deals_with_bomb = self.deals_with_bomb + other.deals_with_bomb
        out.nonzero_sum = self.nonzero_sum + other.nonzero_sum
        out.overflow = self.overflow + other.overflow
        for k, (s1, q1, lo1, hi1) in self.length.items():
            s2, q2, lo2, hi2 = other.length[k]
            out.length[k] = [s1 + s2, q1 + q2, min(lo1, lo2), max(hi1, hi2)]
        return out

    def summary(self) -> Summary:
        n = self.n
        rows: dict[str, Any] = {"n": n, "rules": self.rules, "policies": list(self.policies)}
        rows["outcomes"] = {
            name: {"count": int(c), "share": c / n if n else float("nan"),
                   "ci95": _wilson(float(c), n)}
            for name, c in zip(OUTCOMES, self.outcomes)
        }
        rows["first_team"] = {
            f"team {t} (seats {t}+{t + 2})": {
                "count": int(c), "share": c / n if n else float("nan"), "ci95": _wilson(float(c), n)
            }
            for t, c in enumerate(self.first_team)
        }
        mean = self.score_sum / max(n, 1)
        var = np.maximum(self.score_sq / max(n, 1) - mean * mean, 0.0) * n / max(n - 1, 1)
        half = 1.959964 * np.sqrt(var / max(n, 1))
        rows["score"] = {s: {"mean": float(mean[s]), "ci95": (float(mean[s] - half[s]),
                                                               float(mean[s] + half[s]))}
                         for s in range(4)}
        rows["mean_place"] = [float(x) for x in self.place_sum / max(n, 1)]
        rows["bombs_per_deal"] = float(self.bombs_by_stars.sum() / max(n, 1))
        rows["deals_with_bomb"] = self.deals_with_bomb / max(n, 1)
        rows["stars"] = {
            int(k): {"bombs_per_deal": float(self.bombs_by_stars[k] / max(n, 1)),
                     "deals_with": float(self.deals_with_stars[k] / max(n, 1)),
                     "deals_with_at_least": float(self.max_stars_hist[k + 1:].sum() / max(n, 1))}
            for k in range(MAX_STARS) if self.bombs_by_stars[k]
        }
        length = {}
        for k, (s, q, lo, hi) in self.length.items():
            m = s / max(n, 1)
            length[k] = {"mean": m, "sd": math.sqrt(max(q / max(n, 1) - m * m, 0.0)),
                         "min": lo, "max": hi}
        rows["length"] = length
        rows["nonzero_sum_deals"] = self.nonzero_sum
        rows["overflow"] = self.overflow
        return Summary(rows)


class Summary(dict[str, Any]):
    """The summary of a run as a plain dict (JSON-able) whose ``str`` is a table."""

    def __str__(self) -> str:
        n = self["n"]
        head = f"{n} deals · rules {self['rules']} · policies {'/'.join(self['policies'])}"
        if not n:
            return head + " (nothing to summarise)"
        out = [head, ""]
        out.append("outcome          share     95% CI")
        for name, en in zip(OUTCOMES, OUTCOMES_EN):
            o = self["outcomes"][name]
            lo, hi = o["ci95"]
            out.append(f"{name} {en:<11} {o['share']:7.2%}   [{lo:.2%}, {hi:.2%}]")
        for name, o in self["first_team"].items():
            lo, hi = o["ci95"]
            out.append(f"first out: {name:<18} {o['share']:7.2%}   [{lo:.2%}, {hi:.2%}]")
        out.append("")
        out.append("seat   mean score     95% CI            mean place")
        for s in range(4):
            sc = self["score"][s]
            lo, hi = sc["ci95"]
            out.append(f"{s:>4}   {sc['mean']:+10.3f}   [{lo:+.3f}, {hi:+.3f}]   "
                       f"{self['mean_place'][s]:.3f}")
        if self["nonzero_sum_deals"]:  # every seat's mean can be positive: say why
            total = sum(self["score"][s]["mean"] for s in range(4))
            out.append(
                f"not zero-sum: in {self['nonzero_sum_deals']} deals "
                f"({self['nonzero_sum_deals'] / n:.2%}) the four scores do not sum to 0; the "
                f"means sum to {total:+.3f}\n(RULES.md R8 \"Zero-sum\": a 百变 平扣 pays "
                f"places 1 and 4 the base, 1, 0, 0, 1 (R8.2); 千变's cap (R8.4) and an escape "
                f"break it too)")
        out.append("")
        out.append(f"bombs per deal {self['bombs_per_deal']:.3f}; deals with a bomb "
                   f"{self['deals_with_bomb']:.2%}")
        if self["stars"]:
            out.append("stars   bombs/deal   deals with   deals with ≥")
            for k, v in self["stars"].items():
                out.append(f"{k:>4}★  {v['bombs_per_deal']:10.4f}   {v['deals_with']:9.3%}   "
                           f"{v['deals_with_at_least']:9.3%}")
        out.append("")
        out.append("length        mean       sd     min     max")
        for k, v in self["length"].items():
            out.append(f"{k:<10} {v['mean']:8.2f} {v['sd']:8.2f} {v['min']:7.0f} {v['max']:7.0f}")
        return "\n".join(out)


# -- the built-in policies in Python (twins of the kernel's) ------------------------------------
def random_policy(view: Any, plays: Any, rng: SplitMix64) -> Play | None:
    """Uniform over ``plays`` plus pass when answering (the kernel's ``"random"``). It reads
    only ``view.table``."""
    if view.table is None:
        first: Play = plays[rng.bounded(len(plays))]
        return first
    k = rng.bounded(len(plays) + 1)
    chosen: Play | None = None if k == len(plays) else plays[k]
    return chosen


_NAT_MASK = 0x1111111111111


def _bomb_ranks(hand: int) -> int:
    return ((hand >> 2) | (hand >> 3)) & _NAT_MASK


def _used_ranks(word: int) -> int:
    return (word | (word >> 1) | (word >> 2) | (word >> 3)) & _NAT_MASK


def _smallest_bomb(plays: Any, flags: int) -> Play | None:
    best: Play | None = None
    for p in plays:
        if not p.is_bomb:
            continue
        if best is None or backend.beats(best.tag, p.tag, flags) or (
                best.tag == p.tag and p.wilds < best.wilds):
            best = p
    return best


def greedy_policy(view: Any, plays: Any, rng: SplitMix64) -> Play | None:
    """The greedy heuristic (the kernel's ``"greedy"``; use with ``wilds="fewest"``):

    1. a play that empties the hand is made at once;
    2. leading: the plain play shedding the most cards, preferring plays that use no wild and
       break no bomb rank (a rank held ≥ 4 times), then the lowest top; a bomb only if nothing
       plain is left;
    3. answering: never over the partner; else the smallest beating plain play that uses no
       wild and breaks no bomb; when an opponent holds ≤ 6 cards or the own hand ≤ 6, any
       beating plain play, else the smallest bomb; otherwise pass (bombs kept for later).

    It reads ``seat``, ``hand``, ``rules``, ``table``, ``table_owner`` and ``card_counts`` of
    the seat's ``view``.
    """
    seat = view.seat
    hand = view.hand.packed
    flags = view.rules.flags
    p: Play
    for p in plays:
        if p.packed == hand:
            return p
    brk = _bomb_ranks(hand)

    def clean(p: Play) -> bool:
        return p.wilds == 0 and not (_used_ranks(p.packed) & brk)

    if view.table is None:
        best: Play | None = None
        bkey = (-1, -1, 0)
        for p in plays:
            if p.is_bomb:
                continue
            key = (int(clean(p)), p.size, -int(p.top))
            if key > bkey:
                best, bkey = p, key
        return best if best is not None else _smallest_bomb(plays, flags)
    if view.table_owner == (seat ^ 2):
        return None
    best = None
    for p in plays:
        if not p.is_bomb and clean(p) and (best is None or p.top < best.top):
            best = p
    if best is not None:
        return best
    counts = view.card_counts
    opp_min = min((counts[t] for t in range(4) if (t ^ seat) & 1 and counts[t]), default=99)
    if opp_min > 6 and counts[seat] > 6:
        return None
    for p in plays:
        if p.is_bomb:
            continue
        if best is None or p.top < best.top or (p.top == best.top and p.wilds < best.wilds):
            best = p
    return best if best is not None else _smallest_bomb(plays, flags)


greedy_policy.wilds = "fewest"  # type: ignore[attr-defined]
random_policy.wilds = "all"  # type: ignore[attr-defined]
_PY_BUILTIN: dict[str, PolicyFn] = {"random": random_policy, "greedy": greedy_policy}


# -- Python policies: one deal on the State (or on the Game for with_game seats) ---------------
def _python_policies(pols: Sequence[str | PolicyFn]) -> list[PolicyFn]:
    return [_PY_BUILTIN[p] if isinstance(p, str) else p for p in pols]


def play_deal(
    rules: Rules | str,
    seed: int,
    policy: PolicyArg = "random",
    *,
    index: int = 0,
    wilds: str | None = None,
) -> tuple[Any, dict[str, Any]]:
    """Play deal ``index`` of a run seeded ``seed`` through the Python :class:`Game` with
    Python policies (built-in names use their Python twins; :class:`with_game` policies get
    the game, the others their seat's view). Returns ``(game, row)``, ``row`` holding the
    :data:`FIELDS` values of the deal. :func:`simulate` uses it only for runs with a
    :class:`with_game` seat."""
    from .game import Game  # local: the kernel path never needs the Game

    r = as_rules(rules)
    pols = _as_policies(policy, r)
    fewest = _fewest_flags(pols, wilds)
    fns = _python_policies(pols)
    ds = deal_seed(seed, index)
    game = Game(r, seed=ds)
    # the policies continue the deal's generator (as the kernel does)
    stream = SplitMix64(deal(ds, r.first_leader).after)
    while not game.is_over:
        seat = game.to_act
        assert seat is not None  # a deal that is not over has a seat to act
        plays = game.legal_plays("fewest" if fewest[seat] else "all")
        fn = fns[seat]
        who = game if isinstance(fn, with_game) else game.view(seat)
        choice = fn(who, plays, stream)
        if choice is None or isinstance(choice, Play) and not choice:
            if game.table is None:
                raise ValueError(f"policy {_policy_name(pols[seat])!r} passed on a lead (R4)")
            game.pass_()
        else:
            if isinstance(choice, int) and not isinstance(choice, bool):
                choice = plays[choice]  # an index into the plays it was given (Game.play's
            game.play(choice)           # own index is into the wilds="all" list)
    acts = game.actions
    n_plays = sum(1 for a in acts if a.kind == "play")
    out = _empty(1)
    _write(out, 0, [_row(game, game.first_leader, game.revealed, game.swap, len(acts), n_plays)])
    return game, {k: v[0] for k, v in out.items()}


def _play_on_state(
    r: Rules, ds: int, fns: Sequence[PolicyFn], fewest: Sequence[bool], names: Sequence[str],
) -> tuple[Any, ...]:
    """One deal (seed ``ds``) on the engine's State, each seat's policy seeing its view; returns
    its :func:`_row`."""
    from .game import _State, reveal_swap

    deck, revealed, _, after = deal_cards(ds, r.first_leader == "revealed")
    st = _State.deal(r, ds)
    leader = st.to_act
    swap = None
    if revealed is not None:
        hands = [deck[HAND_SIZE * s: HAND_SIZE * (s + 1)] for s in range(4)]
        swap = reveal_swap(hands, revealed)[1]
    stream = SplitMix64(after)
    modes = ["fewest" if f else "all" for f in fewest]
    view, legal, play, pass_ = st.view, st.legal, st.play, st.pass_  # bound once: a hot loop
    decisions = n_plays = 0
    while (seat := st.to_act) is not None:
        choice = fns[seat](view(seat), legal(modes[seat]), stream)
        decisions += 1
        if choice is None or isinstance(choice, Play) and not choice.packed:  # None or PASS
            if st.table is None:
                raise ValueError(f"policy {names[seat]!r} passed on a lead (R4)")
            pass_()
        else:
            if fewest[seat] and not isinstance(choice, Play):
                choice = legal("fewest")[choice]  # an index into the plays it was given
            play(choice)
            n_plays += 1
    return _row(st, leader, revealed, swap, decisions, n_plays)


def _row(
    src: Any, leader: int, revealed: int | None, swap: tuple[int, int] | None,
    decisions: int, n_plays: int,
) -> tuple[Any, ...]:
    """The :data:`FIELDS` values of a finished deal, in their order; ``src`` a Game or a State
    (``result``, ``trick``, ``cards_left(seat)``, ``bombs_played(seat)``)."""
    res = src.result
    bbs = [0] * MAX_STARS
    max_stars, max_size = -1, 0
    by_seat = [0, 0, 0, 0]
    for s in range(4):
        bombs = src.bombs_played(s)
        by_seat[s] = len(bombs)
        for p in bombs:
            bbs[min(p.stars, MAX_STARS - 1)] += 1
            max_stars = max(max_stars, p.stars)
            max_size = max(max_size, p.size)
    held = [0, 0, 0, 0]
    for b in res.contributions:
        if b.held:
            held[b.seat] -= b.contribution[(b.seat + 1) & 3]
    values = {
        "outcome": OUTCOMES.index(res.outcome.value), "places": res.places, "leader": leader,
        "revealed": -1 if revealed is None else revealed,
        "swap": swap if swap is not None else (-1, -1), "units": res.units,
        "scores": res.scores, "multiplier": res.multiplier, "decisions": decisions,
        "plays": n_plays, "tricks": src.trick + 1,
        "cards_left": [src.cards_left(s) for s in range(4)], "bombs_by_stars": bbs,
        "bombs_by_seat": by_seat, "max_stars": max_stars, "max_bomb_size": max_size,
        "held_units": held, "overflow": 0,
    }
    return tuple(values[k] for k in FIELDS)


def _write(out: dict[str, np.ndarray], start: int, rows: Sequence[tuple[Any, ...]]) -> None:
    """Rows of :func:`_row` into ``out[k][start:start+len(rows)]`` (one numpy call a field)."""
    if rows:
        for k, column in zip(FIELDS, zip(*rows)):
            out[k][start:start + len(rows)] = column


# -- the fast path -----------------------------------------------------------------------------
def chunk_ranges(n: int, chunk: int, start: int = 0) -> list[tuple[int, int]]:
    """``(start, count)`` pieces covering deal indices ``start … start+n-1``."""
    n, start = _deal_range(n, start)
    chunk = as_int(chunk, "chunk", 1)
    return [(start + s, min(chunk, n - s)) for s in range(0, n, chunk)]


def _chunks(n: int, threads: int, chunk: int | None) -> list[tuple[int, int]]:
    if chunk is None:
        chunk = max(64, min(8192, -(-n // (threads * 8)) if n else 64))
    return chunk_ranges(n, chunk)


def _progress_bar(total: int, progress: bool | Any, desc: str) -> Any:
    if not isinstance(progress, bool) and progress is not None and not callable(
        getattr(progress, "update", None)
    ):
        raise TypeError(f"progress must be True, False or a bar with update(k) (tqdm), not "
                        f"{type(progress).__name__}")
    if progress is False or progress is None:
        return None
    if progress is True:
        from tqdm.auto import tqdm

        return tqdm(total=total, desc=desc, unit="deal", smoothing=0.1)
    return progress  # a caller-made bar with update()


def _run_on_threads(params: dict[str, Any], seed64: int, start: int,
                    jobs: list[tuple[int, int]], out: dict[str, np.ndarray], threads: int,
                    bar: Any) -> None:
    """Play ``jobs`` (chunks of deal indices) on ``threads`` workers, each running the GIL-free
    kernel loop and writing its chunks' rows into ``out``.

    Workers take the next chunk from a shared iterator and report each finished chunk on a queue;
    the calling thread only reads that queue (and updates the bar). It never holds a lock a worker
    needs, so a Ctrl-C landing anywhere in it stops the run: the workers finish their current
    chunk (at most 8,192 deals) and take no more. (``concurrent.futures.wait`` over thousands of
    futures locks each one in turn; a KeyboardInterrupt between those acquires left locks held,
    and the next worker to finish a chunk blocked on one forever: the run hung on Ctrl-C.)
    """
    chunks = iter(jobs)
    take = threading.Lock()
    stop = threading.Event()
    reports: queue.SimpleQueue[int | BaseException | None] = queue.SimpleQueue()

    def work() -> None:
        try:
            while not stop.is_set():
                with take:
                    job = next(chunks, None)
                if job is None:
                    break
                s, c = job
                _sim.run(params, seed64, start + s, c, out, s)
                reports.put(c)
        except BaseException as exc:  # handed to the caller, who raises it
            reports.put(exc)
        finally:
            reports.put(None)  # this worker is done

    workers = [threading.Thread(target=work, name=f"shuangkou-sim-{k}", daemon=True)
               for k in range(min(threads, len(jobs)))]
    try:
        # started inside the try: a Ctrl-C landing while a later worker starts (Thread.start
        # waits for it, long on a loaded machine) must still stop and join the earlier ones
        for w in workers:
            w.start()
        running = len(workers)
        while running:
            item = reports.get()
            if item is None:
                running -= 1
            elif isinstance(item, BaseException):
                raise item
            elif bar is not None:
                bar.update(item)
    finally:
        stop.set()  # Ctrl-C or a failed chunk: the queued chunks are not started
        for w in workers:
            with contextlib.suppress(RuntimeError):  # a worker the Ctrl-C kept from starting
                w.join()


def simulate(
    n: int,
    rules: Rules | str = "baibian",
    policy: PolicyArg = "random",
    threads: int = 1,
    seed: int = 0,
    progress: bool | Any = False,
    *,
    start: int = 0,
    wilds: str | None = None,
    chunk: int | None = None,
) -> SimResult:
    """Simulate deals ``start … start+n-1`` of the run seeded ``seed`` (see the module doc).

    ``threads`` workers each run the GIL-free kernel loop over chunks of deal indices, writing
    into slices of preallocated arrays; the result is identical for any ``threads`` and
    ``chunk``. ``progress=True`` shows a tqdm bar (or pass an object with ``update(k)``).
    ``wilds`` ("all"/"fewest") overrides the policies' play generation mode.
    """
    n, start = _deal_range(n, start)
    threads = as_int(threads, "threads", 1, 1024)
    seed = as_seed(seed)
    r = as_rules(rules)
    pols = _as_policies(policy, r)
    fewest = _fewest_flags(pols, wilds)
    names = tuple(_policy_name(p) for p in pols)
    seed64 = int(seed) & MASK64
    out = _empty(n)
    bar = _progress_bar(n, progress, f"{r.name} {'/'.join(dict.fromkeys(names))}")
    try:
        if all(isinstance(p, str) for p in pols):
            params = _params(r, pols, fewest)
            jobs = _chunks(n, threads, chunk)
            if threads == 1:
                for s, c in jobs:
                    _sim.run(params, seed64, start + s, c, out, s)
                    if bar is not None:
                        bar.update(c)
            else:
                _run_on_threads(params, seed64, start, jobs, out, threads, bar)
        else:
            fns = _python_policies(pols)
            on_game = any(isinstance(p, with_game) for p in pols)
            rows: list[tuple[Any, ...]] = []
            for i in range(n):
                if on_game:
                    _, row = play_deal(r, seed64, pols, index=start + i, wilds=wilds)
                    for k, v in row.items():
                        out[k][i] = v
                else:
                    rows.append(_play_on_state(r, deal_seed(seed64, start + i), fns, fewest,
                                               names))
                if bar is not None:
                    bar.update(1)
            _write(out, 0, rows)
    finally:
        if bar is not None and progress is True:
            bar.close()
    return SimResult(out, r.name, names, seed64, start,  # type: ignore[arg-type]
                     {"threads": threads, "wilds": wilds})


def simulate_iter(
    n: int,
    rules: Rules | str = "baibian",
    policy: PolicyArg = "random",
    threads: int = 1,
    seed: int = 0,
    *,
    start: int = 0,
    chunk: int = 100_000,
    wilds: str | None = None,
) -> Iterator[SimResult]:
    """:func:`simulate` in pieces of ``chunk`` deals (constant memory); ``merge`` of the pieces
    equals one ``simulate`` call. The counts are checked when it is called, before the first
    piece; the pieces are made one by one (``n`` may be far more pieces than fit a list)."""
    n, start = _deal_range(n, start)
    chunk = as_int(chunk, "chunk", 1)
    return (simulate(min(chunk, start + n - s), rules, policy, threads, seed, start=s,
                     wilds=wilds) for s in range(start, start + n, chunk))


def simulate_stats(
    n: int,
    rules: Rules | str = "baibian",
    policy: PolicyArg = "random",
    threads: int = 1,
    seed: int = 0,
    progress: bool | Any = False,
    *,
    start: int = 0,
    chunk: int = 100_000,
    wilds: str | None = None,
) -> SimStats:
    """Run ``n`` deals in chunks and keep only their :class:`SimStats` (constant memory:
    10⁶ deals or more)."""
    n, start = _deal_range(n, start)
    stats = SimStats()
    bar = _progress_bar(n, progress, "simulate")
    try:
        for part in simulate_iter(n, rules, policy, threads, seed, start=start, chunk=chunk,
                                  wilds=wilds):
            stats = stats.merge(part.stats())
            if bar is not None:
                bar.update(len(part))
    finally:
        if bar is not None and progress is True:
            bar.close()
    return stats


def kernel_log(
    rules: Rules | str, seed: int, index: int = 0, policy: PolicyArg = "random",
    *, wilds: str | None = None,
) -> tuple[dict[str, Any], list[tuple[int, Play]]]:
    """Debug entry point: deal ``index`` of a run seeded ``seed`` played by the kernel; returns
    its record and its decisions as ``(seat, play)`` (``Play.PASS`` for a pass), ready to
    replay through :class:`~shuangkou.game.Game` (``Game(rules, seed=rng.deal_seed(seed,
    index))``)."""
    r = as_rules(rules)
    pols = _as_policies(policy, r)
    if not all(isinstance(p, str) for p in pols):
        raise TypeError("kernel_log runs built-in policies only")
    params = _params(r, pols, _fewest_flags(pols, wilds))
    rec, log = _sim.play_logged(params, deal_seed(seed, index))
    actions = [(seat, Play._from_codes(w, t) if t else PASS) for seat, w, t in log]
    return rec, actions

