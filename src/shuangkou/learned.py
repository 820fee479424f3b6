"""The learned bot's eyes and brain: the features it scores each candidate play by, the small
numpy network doing the scoring, and its weights file (docs/bots.md, "The learned bot").

One feature function serves training and play: :func:`features` reads a batch of observations
(the layout of :data:`shuangkou.batch.OBS_FIELDS`, what ``VecEnv`` returns) and the legal plays
of each as card counts and reading features (``Step.cards`` / ``Step.features``). At the table,
:func:`view_observation` writes the fields it uses from a seat's view, so a bot in
``simulate``, ``play_deal`` or the server sees exactly what it was trained on. It reads no
明牌 fields (a view has none).

Each candidate row holds the position (hands, unseen cards, cards left, the table, the hand's
手数), the play (its cards, reading, what is left of the hand and the shape of that rest, how
much it spoils the hand's fewest-plays split) and two hints: whether the play is the one the
greedy heuristic (:func:`shuangkou.sim.greedy_policy`) would make, and whether it is the one
``bots.make("heuristic", rules)`` would make. Either is then a one-weight policy for the
network, which only has to learn when to deviate from them: that is what makes a one-hour CPU
training beat both.

:func:`table_features` builds the rows from seats' views and legal lists (the bot at the
table, and training); :func:`features` is the array part of it.
"""

from __future__ import annotations

import math
import os
import re
import zipfile
import zlib
from dataclasses import dataclass
from importlib import resources
from typing import Any, NamedTuple, cast

import numpy as np

from . import _learned, _solve
from .batch import OBS_OFFSETS, OBS_SIZE
from .errors import DocumentError
from .rules import PRESETS, Rules

__all__ = ["BASELINE_WEIGHTS_FILE", "DIM", "GREEDY_COLUMN", "HEURISTIC_COLUMN", "MAX_WEIGHTS_BYTES",
           "MLP", "WEIGHTS_FILE", "Judgement", "bundle", "features", "greedy_rows", "judge",
           "load", "metadata", "packaged", "play_arrays", "shortlist", "table_features",
           "unbundle", "view_observation"]

WEIGHTS_FILE = "learned_weights.npz"
"""The shipped weights, package data of :mod:`shuangkou` (made by ``examples/train_dmc.py``)."""

BASELINE_WEIGHTS_FILE = "learned_weights_2026_12.npz"
"""The weights shipped until the JJ, classic and 千变 networks were trained on (those of build
cb258c5), package data too: frozen, they are the learned fallback of ``default-2026.12``
(:data:`shuangkou.bots.BASELINE`), so retraining the shipped weights leaves that yardstick
where it was (docs/bots.md, "The learned bot")."""

N_KINDS = 11  # the 10 kinds of Kind, then "pass" (candidate) or "no table play" (table)
_O = OBS_OFFSETS
_HAND = slice(_O["hand"], _O["hand"] + 15)
_PARTNER = slice(_O["partner_hand"], _O["partner_hand"] + 15)
_LEFT = slice(_O["cards_left"], _O["cards_left"] + 4)
_PLAYED = slice(_O["played"], _O["played"] + 60)
_PLACE = slice(_O["place"], _O["place"] + 4)
_LEADING = _O["leading"]
_READING = slice(_O["table_reading"], _O["table_reading"] + 7)
_OWNER = slice(_O["table_owner"], _O["table_owner"] + 4)
_PASSES = _O["passes"]
_NIBBLES = (4 * np.arange(15)).astype(np.uint64)
_TAG_SHIFTS = np.array([0, 4, 8, 13, 17, 22, 28], np.uint32)
_TAG_MASKS = np.array([15, 15, 31, 15, 31, 63, 7], np.uint32)
_NOT_WILDS = np.uint32(0xFFFFFFFF ^ (7 << 28))  # a reading tag without its wilds field
STATE_DIM = 15 * 3 + 4 + 4 + 1 + 4 + 1 + N_KINDS + 2 + len(PRESETS) + 2
PLAY_DIM = 15 * 2 + N_KINDS + 4 + 3 + 6 + 2
DIM = STATE_DIM + PLAY_DIM
GREEDY_COLUMN = DIM - 9
"""The column of :func:`features` that is 1 on the candidate greedy would play."""
HEURISTIC_COLUMN = DIM - 1
"""The column of :func:`features` that is 1 on the candidate the heuristic bot would play."""
_UNIT = _solve.UNIT


# -- the observation of a view ---------------------------------------------------------------
def view_observation(view: Any) -> np.ndarray:
    """The :data:`~shuangkou.batch.OBS_FIELDS` fields :func:`features` reads, from a seat's
    view (``State.view(seat)``, what ``simulate`` and the server hand a bot); the other fields
    (bombs by grade, 明牌) stay 0. Seats are relative: 0 the viewer, 1 next, 2 partner."""
    obs = np.zeros(OBS_SIZE, np.float32)
    seat = view.seat
    partner = view.partner_hand
    # the hands as packed words, unpacked in one numpy call (Hand.counts is a Python loop)
    words = np.array([view.hand.packed, 0 if partner is None else partner.packed]
                     + [view.cards_played((seat + k) & 3).packed for k in range(4)], np.uint64)
    counts = (words[:, None] >> _NIBBLES) & np.uint64(15)
    obs[_HAND] = counts[0]
    if partner is not None:
        obs[_PARTNER] = counts[1]
        obs[_O["partner_visible"]] = 1
    obs[_PLAYED] = counts[2:].ravel()
    places = view.places
    cards = view.card_counts
    for k in range(4):
        s = (seat + k) & 3
        obs[_LEFT.start + k] = cards[s]
        if s in places:
            obs[_PLACE.start + k] = places.index(s) + 1
    table = view.table
    if table is None:
        obs[_LEADING] = 1
    else:
        obs[_READING] = (int(table.kind) + 1, int(table.top), table.width, table.length,
                         table.stars, table.size, table.wilds)
        obs[_OWNER.start + ((view.table_owner - seat) & 3)] = 1
        obs[_PASSES] = view.passes
    return obs


def play_arrays(plays: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(cards, features)`` of a list of plays as ``VecEnv`` writes them: ``(M, 15)`` uint8
    card counts and ``(M, 7)`` uint8 kind, top, width, length, stars, size, wilds (the
    reading tag's fields, docs/internals.md). In C, from each :class:`Play`'s two fields."""
    cards, feat = _learned.play_arrays(plays)
    return cards, feat


def shortlist(plays: list[Any], cap: int) -> list[Any]:
    """At most ``cap`` of ``plays`` (all of them, the same list, when they are no more), in
    their order: one play per reading, the fewest wilds and of those the lowest cards — exactly
    the ``wilds="fewest"`` legal list when ``plays`` is the ``"all"`` one (tested) — and of
    those, if still more than ``cap``, the ones with the fewest wilds, lowest top, most cards.
    Numpy over the plays' words: linear in ``len(plays)``, so the learned bot's decision is
    bounded whatever list it is handed."""
    if len(plays) <= cap:
        return plays
    packed, tags = _learned.play_words(plays)
    wilds = (tags >> _TAG_SHIFTS[6]) & _TAG_MASKS[6]
    order = np.lexsort((packed, wilds))
    _, first = np.unique(tags[order] & _NOT_WILDS, return_index=True)
    keep = np.sort(order[first])
    if keep.shape[0] > cap:
        top = ((tags[keep] >> _TAG_SHIFTS[1]) & _TAG_MASKS[1]).astype(np.int64)
        size = ((tags[keep] >> _TAG_SHIFTS[5]) & _TAG_MASKS[5]).astype(np.int64)
        keep = np.sort(keep[np.lexsort((-size, top, wilds[keep]))[:cap]])
    return [plays[i] for i in keep]


# -- greedy's choice ---------------------------------------------------------------------------
def _first_per_env(env: np.ndarray, keys: list[np.ndarray], n: int) -> np.ndarray:
    """Per env, the row with the smallest ``keys`` (lexicographic, first key most
    significant); -1 for an env with no row."""
    out = np.full(n, -1, np.int64)
    if env.shape[0] == 0:
        return out
    order = np.lexsort((*keys[::-1], env))
    first = np.ones(order.shape[0], bool)
    first[1:] = env[order[1:]] != env[order[:-1]]
    out[env[order[first]]] = order[first]
    return out


def greedy_rows(obs: np.ndarray, env: np.ndarray, cards: np.ndarray, feat: np.ndarray,
                n: int) -> np.ndarray:
    """The row (of ``env``/``cards``/``feat``, the legal plays of ``n`` observations) greedy
    would play in each observation, -1 for a pass: :func:`shuangkou.sim.greedy_policy`'s rules
    on these arrays (bombs ordered by stars, size, top: a feature, not the rules' R5 order;
    ties to the first row). In C (``_learned``), one pass over the rows."""
    rows: np.ndarray = _learned.greedy_rows(obs, env, cards, feat, n)
    return rows


# -- features ----------------------------------------------------------------------------------
class Judgement(NamedTuple):
    """What the heuristic bot makes of a batch of decisions (:func:`judge`): per play row its
    ``damage`` (extra plays it costs the hand's fewest-plays split, ``solve._breaks`` / UNIT;
    0 where not judged), per decision the row it would play (``choice``, -1 for a pass), the
    hand's 手数 (``plays_left``) and whether it judged the hand by its split (``judged``: not a
    big hand holding wilds, which it plays by greedy's rules)."""

    damage: np.ndarray
    choice: np.ndarray
    plays_left: np.ndarray
    judged: np.ndarray


def judge(views: list[Any], plays: list[list[Any]], heuristic: Any, rng: Any) -> Judgement:
    """The heuristic bot's (``bots.make("heuristic", rules)``, its ``assess``) view of each
    decision: its choice among ``plays[i]`` from ``views[i]``, and the split damage of every
    play."""
    damage: list[np.ndarray] = []
    n = len(views)
    choice = np.full(n, -1, np.int64)
    plays_left = np.zeros(n, np.float32)
    judged = np.zeros(n, bool)
    start = 0
    from .bots import HeuristicBot  # bots imports this module: here, not at the top

    # the shortcut is the heuristic bot's own rule (not a subclass's)
    plain = type(heuristic) is HeuristicBot
    for i, (view, ps) in enumerate(zip(views, plays)):
        if plain and view.rules is heuristic.rules and not heuristic.judges(view.hand):
            row, dmg = greedy_index(view, ps), None
        else:
            pick, dmg, left = heuristic.assess(view, ps, rng)
            row = -1 if pick is None else ps.index(pick)
        if row >= 0:
            choice[i] = start + row
        start += len(ps)
        if dmg is None:
            damage.append(np.zeros(len(ps), np.float32))
        else:
            judged[i] = True
            plays_left[i] = left
            # float64 division, then float32: the rounding of Python's d / UNIT
            damage.append((np.array(dmg, np.float64) / _UNIT).astype(np.float32))
    return Judgement(damage[0] if n == 1 else np.concatenate(damage) if n else
                     np.zeros(0, np.float32), choice, plays_left, judged)


def greedy_index(view: Any, plays: list[Any]) -> int:
    """The index of the heuristic's choice in ``plays`` (-1: pass) on a hand it does not
    judge by its split (``HeuristicBot.assess`` calls it): a play that empties the hand, the
    most stars first, else greedy's (:func:`shuangkou.sim.greedy_policy`), here the kernel's
    greedy over the list in C — the same play (tested against ``greedy_policy``), without a
    Python pass over every play."""
    seat = view.seat
    hand = view.hand.packed
    table = view.table
    counts = view.card_counts
    opp = [counts[t] for t in (seat ^ 1, seat ^ 3) if counts[t]]
    i: int = _learned.greedy_choice(plays, hand, view.rules.flags,
                                    0 if table is None else table.tag,
                                    view.table_owner == seat ^ 2, min(opp, default=99),
                                    counts[seat])
    if i >= 0 and plays[i].packed == hand:  # going out: the heuristic's order of such plays
        out = [k for k, p in enumerate(plays) if p.packed == hand]
        i = max(out, key=lambda k: (plays[k].stars, plays[k].is_bomb))
    return i


def table_features(views: list[Any], plays: list[list[Any]], rules: Rules, heuristic: Any,
                   rng: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`features` of decisions at the table: ``views[i]`` a seat's view
    (``State.view(seat)``), ``plays[i]`` its legal list (a list of :class:`Play`, non-empty),
    ``heuristic`` the heuristic bot of ``rules`` (its choices are the hint column)."""
    obs = np.stack([view_observation(v) for v in views])
    arrays = [play_arrays(ps) for ps in plays]
    cards = np.concatenate([a[0] for a in arrays])
    feat = np.concatenate([a[1] for a in arrays])
    offsets = np.concatenate([[0], np.cumsum([len(ps) for ps in plays])]).astype(np.int64)
    can_pass = np.array([v.table is not None for v in views])
    return features(obs, offsets, cards, feat, can_pass, rules,
                    judge(views, plays, heuristic, rng))


def features(obs: np.ndarray, offsets: np.ndarray, cards: np.ndarray, feat: np.ndarray,
             can_pass: np.ndarray, rules: Rules, judgement: Judgement,
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One row per candidate: the legal plays of each observation (rows ``offsets[i]`` to
    ``offsets[i + 1]`` of ``cards``/``feat``), then a pass row for each answering one. Returns
    ``(X, env_of_row, is_pass)``; ``X`` is ``(rows, DIM)`` float32."""
    preset = list(PRESETS).index(rules.name) if rules.name in PRESETS else 0
    x, env, is_pass = _learned.encode(obs, offsets, cards, feat, can_pass, preset,
                                      judgement.damage, judgement.choice, judgement.plays_left,
                                      judgement.judged)
    return x, env, is_pass


def best_rows(q: np.ndarray, env: np.ndarray, n: int) -> np.ndarray:
    """The highest-scoring row of each of the ``n`` observations (the first of equals)."""
    if n == 1 and q.shape[0]:  # one decision (the bot at a table): no sort
        return np.array([int(np.argmax(q))], np.int64)
    return _first_per_env(env, [-q], n)


# -- the network -------------------------------------------------------------------------------
ONE_THREAD_MACS = 1 << 18
"""Most multiply-adds of one BLAS product while deciding (:func:`_one_thread_product`):
OpenBLAS computes a matrix product of at most ``65536 × GEMM_MULTITHREAD_THRESHOLD`` (4 by
default: 2^18) multiply-adds on the calling thread; above it, it wakes its threads, whose
start and spinning cost milliseconds of CPU time on a busy machine (measured: a 64-row first
layer took 5 ms of CPU on 2 loaded cores, 40 rows 0.013 ms)."""
ONE_THREAD_MATVEC = 2304 * 4 - 1
"""The same bound for a matrix-vector product (a layer of one output): OpenBLAS's ``gemv``
runs on the calling thread below ``2304 × GEMM_MULTITHREAD_THRESHOLD`` multiply-adds."""


def _one_thread_product(h: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``h @ w`` in slices of rows, each product within :data:`ONE_THREAD_MACS` (or
    :data:`ONE_THREAD_MATVEC`): BLAS's speed without its threads (numpy's own loops, as
    ``einsum``, are 5–7 times slower on a decision's 75–240 rows)."""
    limit = ONE_THREAD_MATVEC if w.shape[1] == 1 else ONE_THREAD_MACS
    rows = max(1, limit // (w.shape[0] * w.shape[1]))
    if h.shape[0] <= rows:
        whole: np.ndarray = h @ w
        return whole
    return np.concatenate([h[i:i + rows] @ w for i in range(0, h.shape[0], rows)])


@dataclass
class MLP:
    """``Q = W_L·relu(…relu(W_1·x + b_1)…) + b_L``: a candidate's expected final team score
    (scaled), trained by mean-squared error with Adam (:meth:`train`)."""

    w: list[np.ndarray]
    b: list[np.ndarray]
    bonus: float = 0.0
    """Added to the score of the heuristic's candidate when choosing (:meth:`score`, not
    :meth:`q`): the bot leaves the heuristic's play only for one it values that much higher
    (a cautious policy-improvement step, chosen after training: ``examples/train_dmc.py``)."""

    @classmethod
    def new(cls, hidden: tuple[int, ...], rng: np.random.Generator) -> MLP:
        sizes = (DIM, *hidden, 1)
        return cls([rng.normal(0, math.sqrt(2 / a), (a, b)).astype(np.float32)
                    for a, b in zip(sizes[:-1], sizes[1:])],
                   [np.zeros(b, np.float32) for b in sizes[1:]])

    def forward(self, x: np.ndarray) -> list[np.ndarray]:
        acts = [x]
        h = x
        last = len(self.w) - 1
        # few rows (one decision): in products BLAS runs on this thread; many (training): whole
        small = x.shape[0] < 256
        for i, (w, b) in enumerate(zip(self.w, self.b)):
            h = (_one_thread_product(h, w) if small else h @ w) + b
            if i < last:
                h = np.maximum(h, 0)
            acts.append(h)
        return acts

    def q(self, x: np.ndarray) -> np.ndarray:
        """The network's value of each candidate row of ``x``."""
        return self.forward(x)[-1][:, 0]

    def score(self, x: np.ndarray) -> np.ndarray:
        """What the bot maximises: :meth:`q` plus :attr:`bonus` on the heuristic's candidate."""
        return self.q(x) + self.bonus * x[:, HEURISTIC_COLUMN]

    def grads(self, x: np.ndarray, y: np.ndarray) -> tuple[float, list[np.ndarray]]:
        """The mean squared error of :meth:`q` against ``y`` and its gradient (weights, then
        biases, as :class:`Adam` takes them)."""
        acts = self.forward(x)
        err = acts[-1][:, 0] - y
        return float((err * err).mean()), self.backward(acts, 2 * err / x.shape[0])

    def backward(self, acts: list[np.ndarray], g: np.ndarray) -> list[np.ndarray]:
        """The gradient of a loss with respect to the weights, then the biases, given the
        activations :meth:`forward` returned and the loss's gradient ``g`` with respect to
        each row's output (any loss: ``examples/expert_iteration.py`` trains a softmax over
        each decision's candidates)."""
        g = np.asarray(g, np.float32)[:, None]
        gw: list[np.ndarray] = []
        gb: list[np.ndarray] = []
        for i in range(len(self.w) - 1, -1, -1):
            gw.append(acts[i].T @ g)
            gb.append(g.sum(0))
            if i:
                g = (g @ self.w[i].T) * (acts[i] > 0)
        return gw[::-1] + gb[::-1]

    def arrays(self, prefix: str = "") -> dict[str, np.ndarray]:
        out = {f"{prefix}w{i}": w for i, w in enumerate(self.w)}
        out.update({f"{prefix}b{i}": b for i, b in enumerate(self.b)})
        out[f"{prefix}bonus"] = np.array(self.bonus, np.float32)
        return out

    def save(self, path: Any, **meta: Any) -> None:
        """One network and its ``meta`` (text: the command, seed, presets it was trained on)."""
        arrays = self.arrays()
        arrays.update({f"meta_{k}": np.array(str(v)) for k, v in meta.items()})
        np.savez_compressed(path, **cast(dict[str, Any], arrays))

    @classmethod
    def from_arrays(cls, z: dict[str, np.ndarray], prefix: str = "") -> MLP:
        """The network under ``prefix`` of arrays :func:`_read` checked."""
        layers = sum(1 for k in z if k.startswith(prefix + "w"))
        return cls([z[f"{prefix}w{i}"] for i in range(layers)],
                   [z[f"{prefix}b{i}"] for i in range(layers)],
                   float(z[f"{prefix}bonus"]) if f"{prefix}bonus" in z else 0.0)

    @classmethod
    def load(cls, path: Any) -> MLP:
        """A network :meth:`save` wrote (checked as :func:`load` checks a bundle)."""
        return cls.from_arrays(_read(path, bundled=False, meta=False))


class Adam:
    """Adam over an :class:`MLP`'s parameters."""

    def __init__(self, net: MLP, lr: float) -> None:
        self.net: MLP = net
        self.lr: float = lr
        self.t: int = 0
        self.m: list[np.ndarray] = [np.zeros_like(p) for p in net.w + net.b]
        self.v: list[np.ndarray] = [np.zeros_like(p) for p in net.w + net.b]

    def step(self, x: np.ndarray, y: np.ndarray) -> float:
        """One update on the mean squared error of ``net.q(x)`` against ``y``; its loss."""
        loss, grads = self.net.grads(x, y)
        self.apply(grads)
        return loss

    def apply(self, grads: list[np.ndarray]) -> None:
        """One update along ``grads`` (:meth:`MLP.backward`'s order)."""
        self.t += 1
        c1, c2 = 1 - 0.9 ** self.t, 1 - 0.999 ** self.t
        for k, (p, g) in enumerate(zip(self.net.w + self.net.b, grads)):
            self.m[k] = 0.9 * self.m[k] + 0.1 * g
            self.v[k] = 0.999 * self.v[k] + 0.001 * g * g
            p -= (self.lr * (self.m[k] / c1) / (np.sqrt(self.v[k] / c2) + 1e-8)).astype(
                np.float32)


def bundle(paths: list[Any], out: Any, meta: list[dict[str, Any]] | None = None) -> None:
    """One weights file of the networks :meth:`MLP.save` wrote in ``paths``, keyed by the
    presets each was trained on (its ``meta_presets``): a network is stored once, under its
    first preset, and its other presets name that one (``same_as``). Every preset keeps the
    network's meta data, plus ``meta[i]`` (more text about ``paths[i]``, e.g. its CPU time)."""
    arrays: dict[str, np.ndarray] = {}
    for i, path in enumerate(paths):
        z = _read(path, bundled=False)
        net = MLP.from_arrays(z)
        info = {k: v for k, v in z.items() if k.startswith("meta_")}
        info.update({f"meta_{k}": np.array(str(v)) for k, v in (meta[i] if meta else {}).items()})
        first, *others = str(info["meta_presets"]).split(",")
        arrays.update(net.arrays(f"{first}."))
        for preset in others:
            arrays[f"{preset}.same_as"] = np.array(first)
        for preset in (first, *others):
            arrays.update({f"{preset}.{k}": v for k, v in info.items()})
    np.savez_compressed(out, **cast(dict[str, Any], arrays))


def unbundle(path: Any, folder: Any) -> list[Any]:
    """The networks of a :func:`bundle` file written back as :meth:`MLP.save` files in
    ``folder`` (one a network, named after its first preset, with its meta data: what
    :func:`bundle` reads), so a bundle can be made again with some networks replaced."""
    from pathlib import Path

    nets = load(path)
    meta = metadata(path)
    out = []
    done: set[int] = set()
    for preset, net in nets.items():
        if id(net) in done:
            continue
        done.add(id(net))
        dest = Path(folder) / f"{preset}.npz"
        net.save(dest, **meta[preset])
        out.append(dest)
    return out


def load(path: Any = None) -> dict[str, MLP]:
    """The networks of a :func:`bundle` file by preset name, by default the shipped weights
    (presets trained together share one :class:`MLP`). The files packaged with shuangkou are
    ``packaged(WEIGHTS_FILE)`` and ``packaged(BASELINE_WEIGHTS_FILE)``."""
    if path is None:
        path = packaged(WEIGHTS_FILE)
    z = _read(path, bundled=True, meta=False)
    presets = sorted({k.split(".", 1)[0] for k in z})
    alias = {p: str(z[f"{p}.same_as"]) for p in presets if f"{p}.same_as" in z}
    nets = {p: MLP.from_arrays(z, f"{p}.") for p in presets if p not in alias}
    return {p: nets[alias.get(p, p)] for p in presets}


def packaged(name: str) -> Any:
    """The path of a weights file packaged with shuangkou (:data:`WEIGHTS_FILE`,
    :data:`BASELINE_WEIGHTS_FILE`): a file of the installed package (the compiled kernel
    never runs from a zip archive). Another name is refused (``ValueError``)."""
    if name not in (WEIGHTS_FILE, BASELINE_WEIGHTS_FILE):
        raise ValueError(f"packaged weights are {WEIGHTS_FILE!r} (the shipped networks) or "
                         f"{BASELINE_WEIGHTS_FILE!r} (default-2026.12's), not {name!r}; "
                         "another file: pass its path to load()")
    return resources.files("shuangkou") / name


def metadata(path: Any = None) -> dict[str, dict[str, str]]:
    """Per preset of a :func:`bundle` file, how its network was made (command, seed, …)."""
    if path is None:
        path = packaged(WEIGHTS_FILE)
    out: dict[str, dict[str, str]] = {}
    for k, v in _read(path, bundled=True).items():
        preset, _, name = k.partition(".")
        if name.startswith("meta_"):
            out.setdefault(preset, {})[name[5:]] = str(v)
    return out


# -- reading a weights file --------------------------------------------------------------------
MAX_WEIGHTS_BYTES = 64 * 2**20
"""Most bytes the arrays of a weights file may hold, all together, as their headers declare
them (the shipped file's hold 0.4 MB): a file over it is refused before any array is read, so
a small compressed file cannot make :func:`load` read gigabytes."""

_LAYER = re.compile(r"([wb])(0|[1-9][0-9]{0,3})", re.ASCII)


def _read(path: Any, bundled: bool, meta: bool = True) -> dict[str, np.ndarray]:
    """The arrays of a weights file: a :func:`bundle` file (keys ``PRESET.NAME``) or, if not
    ``bundled``, one network's :meth:`MLP.save` file (keys ``NAME``), every one checked as
    untrusted input. From the members' headers first, before any array is read: each key is
    one the file holds (``w<i>``/``b<i>`` layers, ``bonus``, ``same_as``, ``meta_*`` text),
    of its dtype (weights real floats, text unicode) and shape (``w0`` takes the :data:`DIM`
    features, each layer the one before, the last gives one value), the total at most
    :data:`MAX_WEIGHTS_BYTES`. Then the arrays: the weights finite as float32 (what the
    network computes in), each ``same_as`` naming a preset of the file with a network (the
    ``meta_*`` text is read only if ``meta``: most of a bundle's keys, which playing does not
    need; their headers are checked all the same). Any defect is one
    :class:`~shuangkou.errors.DocumentError` naming the file and the key; a file that cannot
    be opened raises the ``OSError``."""
    where = f"weights file {_show(path)}"
    try:
        with zipfile.ZipFile(path) as zf:
            headers = _headers(zf, where)
            groups = _groups(headers, where, bundled)
            z = {key: _array(zf, key, where) for key in headers
                 if meta or ".meta_" not in f".{key}"}
    except DocumentError:
        raise
    except zipfile.BadZipFile as e:
        raise DocumentError(f"{where}: not a weights file (a .npz zip archive): {e}") from None
    except (EOFError, ValueError, zlib.error, RuntimeError, NotImplementedError) as e:
        # a torn or corrupt member; an encrypted one, or one of a compression zipfile lacks
        raise DocumentError(f"{where}: not a weights file, a member cannot be read: "
                            f"{str(e)[:80]}") from None
    for prefix, kind in groups.items():
        if kind == "alias":
            target = str(z[f"{prefix}same_as"])
            if groups.get(f"{target}.") != "network":
                raise DocumentError(f"{where}: key '{prefix}same_as' names {target[:40]!r}, "
                                    "not a preset of this file with a network of its own")
    return z


def _show(path: Any) -> str:
    """The file for a message: its path (the end of a long one), or a file object's name."""
    if isinstance(path, (str, os.PathLike)):
        name = str(os.fspath(path))
    else:
        name = str(getattr(path, "name", "(a file object)"))
    return repr(name if len(name) <= 60 else "…" + name[-60:])


def _headers(zf: zipfile.ZipFile, where: str) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
    """Each member's key, shape and dtype, from its .npy header; the declared bytes bounded."""
    out: dict[str, tuple[tuple[int, ...], np.dtype]] = {}
    total = 0
    for info in zf.infolist():
        key = info.filename.removesuffix(".npy")
        with zf.open(info) as f:
            try:
                version = np.lib.format.read_magic(f)
                read = {(1, 0): np.lib.format.read_array_header_1_0,
                        (2, 0): np.lib.format.read_array_header_2_0}[version]
                shape, _, dtype = read(f)
            except (ValueError, KeyError, EOFError):
                raise DocumentError(f"{where}: member {_q(info.filename)} is not an array "
                                    "np.savez wrote") from None
        if key in out or key == info.filename:
            raise DocumentError(f"{where}: member {_q(info.filename)} is not an array "
                                "np.savez wrote (or is there twice)")
        if dtype.hasobject or dtype.fields is not None or dtype.kind not in "fU":
            what = "object" if dtype.hasobject else str(dtype)
            raise DocumentError(f"{where}: key {_q(key)} holds {what}: weights are real "
                                "floats, meta data text")
        size = dtype.itemsize * math.prod(shape)
        total += size
        if total > MAX_WEIGHTS_BYTES:
            raise DocumentError(f"{where}: key {_q(key)} declares {size:,} bytes, {total:,} "
                                "with the keys before it: a weights file holds at most "
                                f"{MAX_WEIGHTS_BYTES:,} bytes of arrays")
        out[key] = (tuple(shape), dtype)
    return out


def _groups(headers: dict[str, tuple[tuple[int, ...], np.dtype]], where: str,
            bundled: bool) -> dict[str, str]:
    """Each key prefix (``"PRESET."``, or ``""`` for one network's file) as ``"network"`` or
    ``"alias"`` (``same_as``), every key and shape checked."""
    names: dict[str, dict[str, tuple[tuple[int, ...], np.dtype]]] = {}
    for key, head in headers.items():
        preset, dot, name = key.partition(".") if bundled else ("", "", key)
        if bundled and (not dot or not preset):
            raise DocumentError(f"{where}: key {_q(key)} is not PRESET.NAME: a bundle's keys "
                                "are (one network's MLP.save file is bundled by "
                                "learned.bundle)")
        names.setdefault(preset + dot, {})[name] = head
    groups = {prefix: _group(prefix, keys, where) for prefix, keys in names.items()}
    if "network" not in groups.values():
        raise DocumentError(f"{where}: holds no network (no 'w0' key"
                            f"{', PRESET.w0' if bundled else ''})")
    return groups


def _group(prefix: str, keys: dict[str, tuple[tuple[int, ...], np.dtype]], where: str) -> str:
    """One preset's keys (or a network file's): ``"network"`` or ``"alias"``."""
    layers: dict[str, set[int]] = {"w": set(), "b": set()}
    for name, (shape, dtype) in keys.items():
        m = _LAYER.fullmatch(name)
        if m is not None:
            layers[m.group(1)].add(int(m.group(2)))
            want = "f"
        elif name == "bonus":
            want = "f"
        elif name == "same_as" or name.startswith("meta_"):
            want = "U"
        else:
            raise DocumentError(f"{where}: key {_q(prefix + name)} is not one a weights file "
                                "holds (w<i>, b<i>, bonus, same_as, meta_*)")
        if dtype.kind != want:
            raise DocumentError(f"{where}: key {_q(prefix + name)} holds {dtype}, not "
                                f"{'a real float' if want == 'f' else 'text'}")
        if m is None and shape != ():
            raise DocumentError(f"{where}: key {_q(prefix + name)} has shape {shape}, not ()")
    n = len(layers["w"])
    if "same_as" in keys:
        if n or layers["b"] or "bonus" in keys:
            raise DocumentError(f"{where}: {_q(prefix[:-1])} holds both a network and same_as")
        return "alias"
    if not n:
        if layers["b"] or "bonus" in keys:
            raise DocumentError(f"{where}: {_q(prefix[:-1])} holds a network's keys but no "
                                f"{_q(prefix + 'w0')}")
        raise DocumentError(f"{where}: {_q(prefix[:-1])} holds no network (no "
                            f"{_q(prefix + 'w0')}) and no same_as")
    for kind in "wb":
        wrong = sorted(layers[kind] ^ set(range(n)))
        if wrong:
            raise DocumentError(
                f"{where}: {_q(f'{prefix}{kind}{wrong[0]}')} "
                f"{'is missing' if wrong[0] < n else 'is extra'}: a network of {n} layers has "
                f"keys w0..w{n - 1} and b0..b{n - 1}")
    fan_in = DIM  # each layer takes the one before's width; the first, the features
    for i in range(n):
        w, b = keys[f"w{i}"][0], keys[f"b{i}"][0]
        last = i == n - 1
        if len(w) != 2 or w[0] != fan_in or w[1] < 1 or (last and w[1] != 1):
            raise DocumentError(
                f"{where}: key {_q(f'{prefix}w{i}')} has shape {w}, not ({fan_in}, "
                f"{1 if last else 'width'}) (this version's {DIM} features in, one value out)")
        if b != (w[1],):
            raise DocumentError(f"{where}: key {_q(f'{prefix}b{i}')} has shape {b}, not "
                                f"({w[1]},) (the width of {_q(f'{prefix}w{i}')})")
        fan_in = w[1]
    return "network"


def _array(zf: zipfile.ZipFile, key: str, where: str) -> np.ndarray:
    """One member's array (its header checked), weights as float32 and finite."""
    with zf.open(key + ".npy") as f:
        a = np.lib.format.read_array(f, allow_pickle=False)
    if a.dtype.kind == "f":
        with np.errstate(over="ignore"):  # a float64 past float32's range: inf, refused next
            a = np.asarray(a, np.float32)
        if not np.isfinite(a).all():
            raise DocumentError(f"{where}: key {_q(key)} holds weights that are not finite "
                                "(NaN or infinite as float32)")
    return a


def _q(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:60] + "…")
