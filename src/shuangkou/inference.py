"""Inference of the hidden hands: worlds weighted by how likely they make the plays seen.

:func:`shuangkou.solve.sample_worlds` deals the unseen cards uniformly among the deals
consistent with what a seat knows (its hand, the partner's under 双明, the cards each seat
played, the cards left): exact, and blind to *how* the others played. This module adds the
play: a hidden seat that passed over an opponent's pair while holding higher pairs is less
likely than one that held none; a seat that answered with a high single while holding low
ones is less likely than one whose lowest single it was (Policy-Based Inference, as in Skat).

* :class:`Model` – a small policy model of a seat's move (a softmax over pass, each distinct
  height of clean plain play, the plays breaking a rank, and a bomb: the heuristic's habits —
  the lowest clean play first, pass over the partner, bombs kept), and
  :meth:`Model.log_likelihoods`, the log-probability that each world's hidden hands make the
  moves seen in the deal's public record (``view.history()``);
* :class:`Mixture` – each hidden seat plays by one of several models, not known which (the
  learned bot's habits, :data:`MODEL`, or the heuristic's, :data:`HEURISTIC`): a world's
  likelihood averages the models per seat, so each opponent is read by the model its own
  moves fit (:func:`named_model`: ``"default+heuristic"``);
* :func:`weighted_worlds` – sampling-importance-resampling: ``candidates`` worlds drawn by
  :func:`~shuangkou.solve.sample_deals` (uniform, exact), each weighted by its likelihood, and
  ``n`` drawn from them in proportion (systematic resampling), as positions ready for the
  search; ``pimc_policy(sampler=weighted_worlds)`` searches them.

Every world is one :func:`~shuangkou.solve.sample_deals` drew, so it is consistent with the
public record (tested against the engine: the deal replayed from each world's hands); the
weights only change how often each is drawn. Leads are modelled as answers without a pass
(the lowest clean play first, whatever its kind); 明牌 is not (a view does not carry it).
docs/bots.md ("Inference") has the measurements.
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _core
from ._check import as_int
from ._engine import SeatView, State
from .errors import ArgumentError
from .solve import MAX_SAMPLES, _check_sampling, sample_deals, sample_worlds

__all__ = ["HEURISTIC", "LEARNED_CLASSIC", "LEARNED_JJ", "MODEL", "MODELS", "Mixture", "Model",
           "answers", "named_model", "weighted_worlds"]

_BOMB = 6  # Kind.BOMB: kinds from here on are bombs (R2)
_READING = (1 << 28) - 1  # a tag less its wilds field (plays.pack_tag)


@dataclass(frozen=True)
class Model:
    """An answering seat's policy, as logits of a softmax over its options at a table:

    * a *clean* plain play (one that takes every card of the ranks it touches: it breaks no
      pair, triple or bomb) beating the table: ``lower × k`` for the ``k``-th lowest distinct
      height among them (the lowest 0);
    * a plain play that breaks a rank: ``broken`` (each such play one option, shared);
    * pass: ``pass_beat`` when the table is an opponent's and a clean plain play beats it,
      ``pass_broken`` when only a breaking one does, ``pass_bomb`` when only a bomb does;
      ``pass_partner`` over the partner's play;
    * a bomb (the bombs that beat the table one option, shared): ``bomb``, or
      ``bomb_partner`` over the partner's play.

    A seat with nothing that beats the table passes for sure (no information). A lead is the
    same softmax without pass: the lowest clean height first (every kind together), then the
    breaking plays and the bombs."""

    lower: float = -0.4
    broken: float = -2.5
    pass_beat: float = -3.5
    pass_broken: float = -2.0
    pass_bomb: float = -1.0
    pass_partner: float = 3.0
    bomb: float = 0.0
    bomb_partner: float = -2.0

    def answer_log_prob(self, hand: int, flags: int, table: int, partner_owns: bool,
                        play: Any) -> float:
        """The log-probability that a seat holding ``hand`` (packed) answers ``table`` (a
        tag) with ``play`` (``None``: a pass)."""
        words, tags = _core.generate(hand, flags, table, True)
        if not tags:
            return 0.0
        # the clean plays' tops as a bit set, the others counted; whether the play seen
        # (matched by its reading less its wilds: the list holds the fewest-wilds one) is clean
        heights = broken = bombs = 0
        seen = -1 if play is None else play.tag & _READING
        clean_seen = False
        for w, t in zip(words, tags):
            if t & 15 >= _BOMB:
                bombs += 1
            elif hand & _ranks_of(w) == w:
                heights |= 1 << (t >> 4 & 15)
                clean_seen |= t & _READING == seen
            else:
                broken += 1
        k = heights.bit_count()
        if not table:  # a lead: no pass
            p_pass, p_bomb = -math.inf, self.bomb
        elif partner_owns:
            p_pass, p_bomb = self.pass_partner, self.bomb_partner
        else:
            p_pass = self.pass_beat if k else self.pass_broken if broken else self.pass_bomb
            p_bomb = self.bomb
        e_plain = _plain_sums(self.lower)
        z = e_plain[k] + math.exp(p_pass)
        if broken:
            z += math.exp(self.broken)
        if bombs:
            z += math.exp(p_bomb)
        if play is None:
            logit = p_pass
        elif play.is_bomb:
            logit = p_bomb - math.log(bombs)
        elif clean_seen or not broken:
            logit = self.lower * (heights & ((1 << int(play.top)) - 1)).bit_count()
        else:
            logit = self.broken - math.log(broken)
        return logit - math.log(z)

    def log_likelihood(self, record: list[tuple[int, int, bool, Any]], hands: tuple[Any, ...],
                       flags: int) -> float:
        """The log-probability that the current ``hands`` (Hand per seat) make the moves of
        ``record`` (:func:`answers`)."""
        return float(self.log_likelihoods(record, [hands], flags)[0])

    def log_likelihoods(self, record: list[tuple[int, int, bool, Any]],
                        deals: list[tuple[Any, ...]], flags: int) -> np.ndarray:
        """:meth:`log_likelihood` of each of ``deals`` at once: the answers' features come
        from one C call (``_core.answer_features``), the softmax in numpy; equal to the sum
        of :meth:`answer_log_prob` over the record (tested)."""
        if not record or not deals:
            return np.zeros(len(deals))
        result: np.ndarray = self._answer_log_probs(_Answers(record, deals, flags)).sum(1)
        return result

    def _answer_log_probs(self, a: _Answers) -> np.ndarray:
        """Each deal's log-probability of each answer of the record, ``(deals, answers)``."""
        heights, broken, bombs, below, clean = a.heights, a.broken, a.bombs, a.below, a.clean
        p_pass = np.where(a.lead, -np.inf, np.where(
            a.partner, self.pass_partner, np.where(heights > 0, self.pass_beat, np.where(
                broken > 0, self.pass_broken, self.pass_bomb))))
        p_bomb = np.where(a.partner & ~a.lead, self.bomb_partner, self.bomb)
        z = (np.asarray(_plain_sums(self.lower))[heights] + np.exp(p_pass)
             + (broken > 0) * math.exp(self.broken) + (bombs > 0) * np.exp(p_bomb))
        logit = np.where(a.passed, p_pass,
                         np.where(a.bombed, p_bomb - np.log(np.maximum(bombs, 1)),
                                  np.where((clean > 0) | (broken == 0), self.lower * below,
                                           self.broken - np.log(np.maximum(broken, 1)))))
        some = heights + broken + bombs > 0  # nothing beats the table: a sure pass
        result: np.ndarray = np.where(some, logit - np.log(z), 0.0)
        return result


class _Answers:
    """The record's answers from each deal's hands: the features of ``_core.answer_features``
    (one C call for every deal and answer), each an array ``(deals, answers)``, and the
    record's own columns (``seats``, ``lead``, ``partner``, ``passed``, ``bombed``)."""

    def __init__(self, record: list[tuple[int, int, bool, Any]], deals: list[tuple[Any, ...]],
                 flags: int) -> None:
        self.seats = np.array([r[0] for r in record])
        later = [0] * 4  # each seat's cards played from this action on (its hand before it)
        before = []
        for seat, _, _, play in reversed(record):
            if play is not None:
                later[seat] += play.packed
            before.append(later[seat])
        held_then = np.array(before[::-1], np.uint64)
        now = np.array([[h.packed for h in d] for d in deals], np.uint64)
        held = np.ascontiguousarray(now[:, self.seats] + held_then[None, :]).ravel()
        tables = np.array([r[1] for r in record], np.uint32)
        seen = np.array([0 if r[3] is None else r[3].tag for r in record], np.uint32)
        rows = np.empty((held.size, 5), np.int32)
        _core.answer_features(held, tables, seen, flags, rows)
        f = rows.reshape(len(deals), len(record), 5)
        self.heights, self.broken, self.bombs, self.below, self.clean = (
            f[..., i] for i in range(5))
        self.partner = np.array([r[2] for r in record])
        self.passed = np.array([r[3] is None for r in record])
        self.bombed = np.array([r[3] is not None and r[3].is_bomb for r in record])
        self.lead = tables == 0


@dataclass(frozen=True)
class Mixture:
    """A seat's moves explained by one of several :class:`Model` s, not known which: each
    hidden seat plays by ``models[i]`` with prior probability ``priors[i]``, independently of
    the other seats, so a world's likelihood is the product over the seats of
    ``sum_i priors[i] × L_i(that seat's moves | world)`` — the Bayesian average over which
    model each opponent is, whose weight shifts to the model that explains that seat's
    moves (e.g. :data:`MODEL` for the learned bot, :data:`HEURISTIC` for the heuristic).
    Computed from the same features as its models' (one C call), so it costs about what one
    model does."""

    models: tuple[Model, ...]
    priors: tuple[float, ...]

    def __post_init__(self) -> None:
        if not self.models or not all(isinstance(m, Model) for m in self.models):
            raise ArgumentError(f"Mixture models must be a non-empty tuple of Model, not "
                                f"{self.models!r}")
        if len(self.priors) != len(self.models) or not all(
                isinstance(p, (int, float)) and not isinstance(p, bool) and 0 < p < math.inf
                for p in self.priors):
            raise ArgumentError(f"Mixture priors must be {len(self.models)} positive numbers, "
                                f"one a model, not {self.priors!r}")

    def log_likelihood(self, record: list[tuple[int, int, bool, Any]], hands: tuple[Any, ...],
                       flags: int) -> float:
        """The log-probability that ``hands`` make the moves of ``record``."""
        return float(self.log_likelihoods(record, [hands], flags)[0])

    def log_likelihoods(self, record: list[tuple[int, int, bool, Any]],
                        deals: list[tuple[Any, ...]], flags: int) -> np.ndarray:
        """:meth:`log_likelihood` of each of ``deals`` at once."""
        if not record or not deals:
            return np.zeros(len(deals))
        a = _Answers(record, deals, flags)
        per_model = np.stack([m._answer_log_probs(a) for m in self.models])  # (m, deals, rows)
        log_prior = np.log(np.asarray(self.priors, float) / sum(self.priors))
        total = np.zeros(len(deals))
        for seat in np.unique(a.seats):
            ll = per_model[:, :, a.seats == seat].sum(2) + log_prior[:, None]  # (m, deals)
            top = ll.max(0)
            total += top + np.log(np.exp(ll - top).sum(0))
        return total


_NIBBLE_LOW = int("1" * 16, 16)  # the lowest bit of each 4-bit rank count


def _ranks_of(word: int) -> int:
    """The 4-bit fields of the ranks ``word`` (a packed card set) holds, all ones."""
    return ((word | word >> 1 | word >> 2 | word >> 3) & _NIBBLE_LOW) * 15


@functools.lru_cache(maxsize=16)
def _plain_sums(lower: float) -> list[float]:
    """``sum(exp(lower × i) for i < k)`` by ``k``: the clean plays' softmax terms."""
    out = [0.0]
    for k in range(16):
        out.append(out[-1] + math.exp(lower * k))
    return out


MODEL = Model()
"""The model :func:`weighted_worlds` uses unless given another: its parameters fitted by
``python benchmarks/bench_inference.py --deals 25 --fit --seed 7`` (coordinate search on the
log-likelihood of the true hands, positions of 百变 deals played by the heuristic and the
learned bot; docs/bots.md, "Inference"), measured on deals of other seeds. It reads the
learned bot's moves well, the heuristic's not."""

HEURISTIC = Model(lower=-0.4, broken=0.0, pass_beat=-2.5, pass_broken=-1.5, pass_bomb=0.0,
                  pass_partner=3.0, bomb=0.0, bomb_partner=-2.0)
"""A model of the heuristic's moves (and ``default-2026.12``'s in classic, the heuristic
under an endgame search): :data:`MODEL`'s parameters refitted by ``python
benchmarks/bench_inference.py --rules classic --deals 40 --fit --seed 7 --bots
heuristic,default-2026.12`` — it breaks ranks and passes over a beatable play more often
than the learned bot (docs/bots.md, "An opponent model that fits who is playing")."""

LEARNED_JJ = Model(lower=-0.4, broken=-1.5, pass_beat=-2.0, pass_broken=-1.5, pass_bomb=-0.5,
                   pass_partner=-0.5, bomb=-1.0, bomb_partner=-2.0)
"""A model of the learned bot's moves in JJ (the fallback of the default and of
``default-2026.12`` there): :data:`MODEL`'s parameters refitted by ``python
benchmarks/bench_inference.py --rules jj --deals 40 --fit --seed 7 --bots
default-2026.12,default`` — by its parameters JJ's learned bot breaks ranks more often,
bombs less, and passes over its partner's play far less surely than :data:`MODEL` (百变's
fit) assumes."""

LEARNED_CLASSIC = Model(lower=-0.9, broken=-5.0, pass_beat=-2.0, pass_broken=-1.5,
                        pass_bomb=-1.0, pass_partner=3.5, bomb=-1.5, bomb_partner=-2.0)
"""A model of the default's moves in classic (the learned bot under the guards and an
endgame search): refitted by ``python benchmarks/bench_inference.py --rules classic --deals
40 --fit --seed 7 --bots default``."""

MODELS: dict[str, Model] = {"default": MODEL, "heuristic": HEURISTIC, "jj": LEARNED_JJ,
                            "classic": LEARNED_CLASSIC}
"""The models by name, as :func:`named_model` (and ``bots.make("pimc", model=…)``) reads
them."""


def named_model(name: str) -> Model | Mixture:
    """The model ``name`` stands for: a name of :data:`MODELS`, or several joined by ``+``
    (``"jj+heuristic"``), a :class:`Mixture` of them at even odds."""
    parts = name.split("+") if isinstance(name, str) else [name]
    if not all(isinstance(p, str) and p in MODELS for p in parts) or len(set(parts)) < len(parts):
        raise ArgumentError(f"model must be one of {', '.join(MODELS)}, or several of them "
                            f"joined by '+' (each once), not {name!r}")
    if len(parts) == 1:
        return MODELS[parts[0]]
    return Mixture(tuple(MODELS[p] for p in parts), (1.0,) * len(parts))


def answers(view: Any, seats: set[int] | frozenset[int]) -> list[tuple[int, int, bool, Any]]:
    """``seats``' actions of ``view.history()``, in order, each with the table it answered:
    ``(seat, table tag or 0 for a lead, whether the table was its partner's, play or None)``.
    The table is followed along the record by R4/R7: a trick ends when every other seat still
    holding cards has passed since the top play."""
    history = view.history()
    left = [view.cards_left(s) + len(view.cards_played(s)) for s in range(4)]
    out: list[tuple[int, int, bool, Any]] = []
    table, owner, passes = 0, -1, 0
    for seat, play in history:
        if seat in seats:
            out.append((seat, table, owner == seat ^ 2, play))
        if play is None:
            passes += 1
            if passes >= sum(1 for s in range(4) if s != owner and left[s]):
                table, owner, passes = 0, -1, 0
        else:
            table, owner, passes = play.tag, seat, 0
            left[seat] -= play.size
    return out


def _hidden(view: Any) -> frozenset[int]:
    seat = view.seat
    known = {seat} if view.partner_hand is None else {seat, seat ^ 2}
    return frozenset(s for s in range(4) if s not in known)


def weighted_worlds(view: Any, seat: int, n: int, seed: int, *, candidates: int | None = None,
                    model: Model | Mixture = MODEL) -> list[State]:
    """``n`` positions like :func:`~shuangkou.solve.sample_worlds` (the view's position, the
    hidden hands replaced), the hidden hands drawn from ``candidates`` uniform deals (``n``
    to :data:`~shuangkou.solve.MAX_SAMPLES`; default ``4 n``) in proportion to ``model``'s
    likelihood of the record's moves (sampling-importance-resampling). From a view without
    a record (a position set up mid-deal), or one whose hidden seats made no move, the
    worlds are uniform; from a
    :class:`~shuangkou.Game` (``sim.with_game``), :func:`~shuangkou.solve.sample_worlds`'s."""
    _check_sampling(view, seat, n, seed)
    if not isinstance(view, SeatView):  # a Game (sim.with_game): its own exact sampler
        return sample_worlds(view, seat, n, seed)
    m = (min(4 * n, MAX_SAMPLES) if candidates is None
         else as_int(candidates, "candidates", n, MAX_SAMPLES))
    if view.to_act is None:
        raise ValueError("the deal is over: there is no world to sample")
    deals = sample_deals(view, seat, m, seed)
    record = answers(view, _hidden(view))
    if record and m > n:
        logw = model.log_likelihoods(record, deals, view.rules.flags)
        w = np.exp(logw - logw.max()).tolist()
        step = sum(w) / n
        u = random.Random(seed ^ 0x9E3779B97F4A7C15).random() * step
        chosen, acc, i = [], w[0], 0
        for k in range(n):  # systematic resampling: the k-th pointer at u + k·step
            target = u + k * step
            while acc < target and i + 1 < m:
                i += 1
                acc += w[i]
            chosen.append(deals[i])
        deals = chosen
    else:
        deals = deals[:n]
    bombs = [view.bombs_played(s) for s in range(4)]
    return [
        State.from_position(
            view.rules, hands, view.to_act, table=view.table, table_owner=view.table_owner,
            passes=view.passes, places=view.places, bombs=bombs, leader=view.leader,
            trick=view.trick, hand_size=None)
        for hands in deals
    ]
