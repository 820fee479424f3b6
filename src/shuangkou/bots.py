"""Players for every driver: ``simulate``, ``play_deal``, ``VecEnv`` opponents, the server.

::

    from shuangkou import bots, simulate
    bot = bots.make("default", "baibian")          # the strongest bot deciding within 20 ms
    simulate(1000, "baibian", (bot, "greedy"))      # team 0+2 the bot, team 1+3 greedy
    bots.make("pimc", "jj", worlds=8, max_nodes=300)

A bot is a :class:`Bot`: a callable ``bot(view, plays, rng)`` returning one of ``plays`` or
``None`` to pass — the policy signature of :mod:`shuangkou.sim` (``view`` is the deciding
seat's ``State.view(seat)``, what the seat may know), with the ``wilds`` attribute saying which
legal list it wants. So one object plays in ``simulate``, ``play_deal`` and a server table.
The kernel's own players (``"random"``, ``"greedy"``) also carry their built-in name
(:attr:`Bot.kernel`), which ``simulate`` and ``VecEnv(opponents=…)`` run inside the kernel.

The bots (docs/bots.md has their ladder):

* ``"random"`` – uniform over the legal plays and pass (``wilds="all"``);
* ``"greedy"`` – the kernel's heuristic (:func:`shuangkou.sim.greedy_policy`);
* ``"heuristic"`` – values a hand by its 手数 (:func:`shuangkou.decompose`, bombs kept whole)
  and plays for the partner (:class:`HeuristicBot`);
* ``"pimc"`` – :func:`shuangkou.pimc_policy` over a fallback bot (:data:`PIMC_FALLBACK`):
  the fallback's move unless 8 sampled worlds, each solved exactly within 50,000 nodes once
  at most 32 cards are left, show a better one;
* ``"learned"`` – the network trained by ``examples/train_dmc.py`` (:class:`LearnedBot`);
* ``"guarded"`` – the pimc fallback's bot with its measured giveaways vetoed
  (:mod:`shuangkou.guards`);
* ``"fast"`` – the learned bot under the same guards, in every preset: no search;
* ``"default"`` – the strongest of them that decides within 20 ms (see :data:`DEFAULT`);
* ``"default-2026.12"`` – cb258c5's default, frozen as a yardstick (:data:`BASELINE`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import _solve
from .learned import MLP, best_rows, load, shortlist, table_features
from .plays import Kind, Play, classify
from .rules import Rules, as_rules
from .sim import greedy_policy, random_policy
from .solve import _breaks, pimc_policy

__all__ = ["BASELINE", "BOTS", "DEFAULT", "Bot", "HeuristicBot", "LearnedBot", "make"]

_PIMC_20MS: dict[str, Any] = {"tt_bits": 16, "max_nodes": 12_000, "seconds": 0.018}
"""PIMC within 20 ms a decision: 8 worlds of at most 12,000 nodes each over a 1 MiB table,
every search stopped 18 ms into the decision (then the fallback decides)."""
DEFAULT: dict[str, tuple[str, dict[str, Any]]] = {
    preset: ("pimc", {**_PIMC_20MS, "fallback": "fast", "sampler": "weighted"})
    for preset in ("classic", "baibian", "jj", "qianbian")}
"""What ``make("default", rules)`` builds, by preset (other rules: ``"learned"``): a bot's name
and its options, the strongest bot deciding within 20 ms a decision measured on duplicate
deals (docs/bots.md, "Results"): PIMC, bounded, over the learned bot under the guards
(``"fast"``, :mod:`shuangkou.guards`; in classic too, where it plays above the heuristic), its
worlds weighted by the plays seen (:mod:`shuangkou.inference`). Its moves are reproducible for
a seed unless the 18 ms stop cuts a search short (a loaded machine)."""


def _default(rules: Rules) -> tuple[str, dict[str, Any]]:
    return DEFAULT.get(rules.name, ("learned", {}))


class Bot:
    """A player: ``bot(view, plays, rng)`` → a play of ``plays`` or ``None`` (pass).

    ``name`` is what :func:`make` was asked for, ``wilds`` the legal list it reads (``"all"``
    or ``"fewest"``), ``kernel`` the built-in name ``simulate``/``VecEnv`` can run in the
    kernel instead (``None``: Python only). A bot holds no per-deal state, so one object may
    play every seat; it is not thread-safe (callers give each thread its own)."""

    kernel: str | None = None

    def __init__(self, name: str, rules: Rules, policy: Callable[..., Any], wilds: str) -> None:
        self.name = name
        self.__name__ = name  # simulate names its policies by __name__
        self.rules = rules
        self.wilds = wilds
        self._policy = policy

    def __call__(self, view: Any, plays: Any, rng: Any) -> Play | None:
        choice: Play | None = self._policy(view, plays, rng)
        return choice

    def __repr__(self) -> str:
        return f"<bot {self.name!r} for {self.rules.name}>"


class _KernelBot(Bot):
    def __init__(self, name: str, rules: Rules, policy: Callable[..., Any], wilds: str) -> None:
        super().__init__(name, rules, policy, wilds)
        self.kernel = name


# -- the heuristic -----------------------------------------------------------------------------
_UNIT = _solve.UNIT
_SMALL_KINDS = (Kind.SINGLE, Kind.PAIR, Kind.TRIPLE)


class HeuristicBot(Bot):
    """Plays to shed its hand in the fewest plays (手数) and for its partner.

    Each play is judged by its *damage*: how much it spoils the rest of the hand — the keep-bombs
    split cost of the play plus the rest minus the hand's own (:func:`shuangkou.solve.hints`'s
    measure: 0 when the play is part of an optimal split). Then:

    * a play that empties the hand is made at once (the most stars first: they multiply);
    * answering the partner: pass (never beat a partner's winning play);
    * answering an opponent: the least-damage, lowest plain play that beats it; a damaging one
      only when the hands are short (an opponent ≤ 6 cards, or ≤ 3 plays left); a bomb only when
      the table's owner is short, the bomb leaves ≤ 2 plays (control, then out) or costs
      nothing; against an opponent about to go out with that many cards, the highest play;
    * leading: when the partner is about to go out, the play his hand beats (双明) or his card
      count's smallest single/pair; with two plays left, the higher first (a bomb last: it wins
      the lead back); when an opponent holds ≤ 2 cards, no lead of that size unless it is the
      highest; else the least damage, plain before bomb, wild-free, lowest top, most cards.

    Its budget: a hand holding more than ``max_wilds`` wild jokers, or any wild and more than
    ``wild_cards`` cards, is played by greedy's rules (``wilds="fewest"``). Decomposition takes
    under 2 ms on any hand; the budget is for strength: judging every hand plays about a unit
    a deal worse in 百变, JJ and 千变 (docs/bots.md, "Budget")."""

    def __init__(self, name: str, rules: Rules, max_wilds: int = 1, wild_cards: int = 16) -> None:
        super().__init__(name, rules, self._decide, "fewest")
        self.max_wilds = max_wilds
        self.wild_cards = wild_cards
        self._wild_ranks = [r for r, on in ((13, rules.wild_small_joker),
                                            (14, rules.wild_big_joker)) if on]

    def _decide(self, view: Any, plays: Any, rng: Any) -> Play | None:
        return self.assess(view, list(plays), rng)[0]

    def assess(self, view: Any, plays: list[Play], rng: Any) -> tuple[
            Play | None, list[int] | None, int]:
        """``(choice, damage, left)``: the bot's choice among ``plays`` (``None``: pass), with
        what it judged it by — each play's damage (:func:`shuangkou.solve.hints`'s measure,
        in ``_solve.UNIT``; ``None`` for a hand played by greedy's rules, see
        :meth:`judges`) and the hand's 手数 (0 then)."""
        hand = view.hand
        rules = self.rules
        judged = self.judges(hand)
        damage = _breaks(hand, plays, rules) if judged else None
        left = _solve.decompose_cost(hand.packed, rules.flags, True) // _UNIT + 1 if judged else 0
        out: list[Play] = [p for p in plays if p.packed == hand.packed]
        if out:
            return max(out, key=lambda q: (q.stars, q.is_bomb)), damage, left
        if damage is None:
            return greedy_policy(view, plays, rng), None, 0
        if not plays:
            return None, damage, left
        seat = view.seat
        cards = view.card_counts
        opp = [cards[s] for s in (seat ^ 1, seat ^ 3) if cards[s]]
        opp_min = min(opp, default=99)
        by_play = dict(zip(plays, damage))
        if view.table is not None:
            return self._answer(view, plays, by_play, left, opp_min), damage, left
        return self._lead(view, plays, by_play, left, opp_min), damage, left

    def judges(self, hand: Any) -> bool:
        """Whether the bot judges ``hand`` by its split (else it plays greedy's rules): the
        budget above."""
        p = hand.packed
        wilds = sum((p >> (4 * r)) & 15 for r in self._wild_ranks)
        return not (wilds > self.max_wilds or wilds and len(hand) > self.wild_cards)

    def _answer(self, view: Any, plays: list[Play], damage: dict[Play, int], left: int,
                opp_min: int) -> Play | None:
        seat = view.seat
        owner = view.table_owner
        if owner == seat ^ 2:
            return None
        table = view.table
        plain = [p for p in plays if not p.is_bomb]
        threat = view.card_counts[owner] <= max(table.size, 2) and table.kind in _SMALL_KINDS
        if plain:
            if threat:
                return max(plain, key=lambda p: (p.top, -damage[p], -p.wilds))
            best = min(plain, key=lambda p: (damage[p], p.wilds > 0, p.top, p.wilds))
            if damage[best] <= 0 or opp_min <= 6 or left <= 3:
                return best
        bombs = [p for p in plays if p.is_bomb]
        if not bombs:
            return None
        bomb = min(bombs, key=lambda p: (damage[p], p.wilds, _bomb_rank(p, bombs, self.rules)))
        after = left - 1  # plays left once the bomb is down (damage 0: still a split's part)
        if view.card_counts[owner] <= 6 or after + max(damage[bomb], 0) // _UNIT <= 2 or (
                damage[bomb] <= 0 and opp_min <= 10):
            return bomb
        return None

    def _lead(self, view: Any, plays: list[Play], damage: dict[Play, int], left: int,
              opp_min: int) -> Play:
        seat = view.seat
        partner_left = view.card_counts[seat ^ 2]
        if 0 < partner_left <= 3:
            helped = self._help_partner(view, plays, partner_left)
            if helped is not None:
                return helped

        def key(p: Play) -> tuple[Any, ...]:
            danger = p.kind in _SMALL_KINDS and p.size <= opp_min <= 2
            return (damage[p], p.is_bomb, danger, p.wilds > 0, int(p.top) if not danger
                    else -int(p.top), -p.size, p.wilds)

        if left == 2:  # two plays: the one likely to hold the lead first, a bomb kept for last
            pair = [p for p in plays if damage[p] <= 0 and not p.is_bomb]
            if pair:
                return max(pair, key=lambda p: (p.size, p.top))
        return min(plays, key=key)

    def _help_partner(self, view: Any, plays: list[Play], partner_left: int) -> Play | None:
        """A lead the partner can go out over: beaten by his whole hand (双明), else a small
        single or pair of his card count."""
        partner = view.partner_hand
        small = [p for p in plays if p.kind in _SMALL_KINDS and p.wilds == 0]
        if partner is not None:
            outs = classify(partner, self.rules)
            fits = [p for p in small if any(r.beats(p, self.rules) for r in outs)]
            return min(fits, key=lambda p: (p.top, p.size)) if fits else None
        fits = [p for p in small if p.size == partner_left]
        return min(fits, key=lambda p: p.top) if fits else None


def _bomb_rank(p: Play, bombs: list[Play], rules: Rules) -> int:
    """How many of ``bombs`` ``p`` beats (R5 order): smallest bomb first."""
    return sum(1 for q in bombs if p.beats(q, rules))


# -- the learned policy ------------------------------------------------------------------------
class LearnedBot(Bot):
    """The network of :mod:`shuangkou.learned` (``examples/train_dmc.py``): scores every legal
    play and pass from the seat's view and makes the best.

    It reads the ``wilds="fewest"`` legal list (one play per reading, the fewest wilds), as it
    was trained; among its inputs are the choices of greedy and of the heuristic bot (which it
    holds, :attr:`heuristic`), so it decides in the heuristic's time plus the network's.
    ``weights``: another :func:`shuangkou.learned.bundle` file.

    Its time is bounded by ``max_plays``: a decision scores at most that many plays
    (:func:`shuangkou.learned.shortlist`), so the features, the heuristic's judgement and the
    network see at most ``max_plays + 1`` rows whatever list the caller hands it (a full
    ``wilds="all"`` list of a 千变 hand holds 24,182 plays; it scores that hand's 186
    fewest-wilds plays). The
    largest ``"fewest"`` list known holds 203 plays, under the default 240, so at a table the
    bound drops no play; 240 plays and a pass stay under the 256 rows where the network's
    product would switch to OpenBLAS (:meth:`shuangkou.learned.MLP.forward`)."""

    def __init__(self, name: str, rules: Rules, weights: Any = None,
                 max_plays: int = 240) -> None:
        super().__init__(name, rules, self._decide, "fewest")
        if not isinstance(max_plays, int) or max_plays < 1:
            raise ValueError(f"max_plays must be a positive int, not {max_plays!r}")
        nets = load(weights)
        # a preset's own network, else (house rules, a preset trained with no network of its
        # own) the 百变 one
        self.net: MLP = nets.get(rules.name) or nets.get("baibian") or next(iter(nets.values()))
        self.heuristic: HeuristicBot = HeuristicBot("heuristic", rules)
        self.max_plays = max_plays

    def _decide(self, view: Any, plays: Any, rng: Any) -> Play | None:
        plays = shortlist(list(plays), self.max_plays)
        if not plays:
            return None
        x, env, is_pass = table_features([view], [plays], self.rules, self.heuristic, rng)
        row = int(best_rows(self.net.score(x), env, 1)[0])
        return None if is_pass[row] else plays[row]


# -- make --------------------------------------------------------------------------------------
PIMC_FALLBACK = {"classic": "heuristic", "baibian": "learned", "jj": "learned",
                 "qianbian": "learned"}
"""The bot ``make("pimc", rules)`` falls back on, by preset (other rules: ``"heuristic"``):
the stronger of the heuristic and the learned bot on the ladder of docs/bots.md (2,000
duplicate pairs; in classic 8,000, the heuristic ahead by 0.27 units a deal, CI above 0)."""


def _pimc(name: str, rules: Rules, worlds: int = 8, max_nodes: int = 50_000,
          max_cards: int = 32, fallback: str | None = None, sampler: str = "uniform",
          **options: Any) -> Bot:
    """PIMC over a fallback bot (:data:`PIMC_FALLBACK`): the fallback's move unless every
    sampled world, searched exactly within ``max_nodes`` nodes once at most ``max_cards``
    cards are left, shows a better one (:func:`shuangkou.pimc_policy`'s ``fallback``).
    ``fallback="default"``: the default bot, or :data:`PIMC_FALLBACK`'s where the default is
    PIMC itself (every preset today).
    ``fallback="none"``: plain PIMC, depth-limited searches scored by ``evaluation``
    (``"rollout"`` or ``"hand_count"``).
    ``sampler="weighted"``: the worlds weighted by the plays seen
    (:func:`shuangkou.inference.weighted_worlds`); ``"uniform"``: :func:`sample_worlds`."""
    if sampler not in ("uniform", "weighted"):
        raise ValueError(f"sampler must be 'uniform' or 'weighted', not {sampler!r}")
    if sampler == "weighted":
        from .inference import weighted_worlds  # inference builds on solve, as this does

        options["sampler"] = weighted_worlds
    if fallback == "none":
        return Bot(name, rules, pimc_policy(worlds, max_nodes, max_cards=max_cards,
                                            **options), "all")
    maker, settings = _default(rules) if fallback == "default" else (fallback, {})
    if maker == "pimc" and fallback == "default" or not fallback:
        # no fallback, or the default, which is itself PIMC over this table's bot
        maker, settings = PIMC_FALLBACK.get(rules.name, "heuristic"), {}
    if maker not in _MAKERS or maker == "pimc":
        raise ValueError(f"fallback must be a bot other than pimc, or 'none', not {fallback!r}")
    prior = _MAKERS[maker](maker, rules, **settings)
    return Bot(name, rules, pimc_policy(worlds, max_nodes, max_cards=max_cards,
                                        fallback=prior, **options), prior.wilds)


def _guarded(name: str, rules: Rules, **options: Any) -> Bot:
    from .guards import guarded  # guards builds on this module's bots

    return guarded(name, rules, **options)


BASELINE = "default-2026.12"
"""cb258c5's ``default``, frozen as a yardstick: PIMC within 20 ms, 8 uniform worlds of at most
12,000 nodes on a 2^16 table from 32 cards left, searches stopped at 18 ms, over the heuristic
in classic and the learned bot elsewhere (the shipped weights: retraining them moves it)."""


def _baseline(name: str, rules: Rules, **options: Any) -> Bot:
    frozen = {"worlds": 8, "max_cards": 32, "tt_bits": 16, "max_nodes": 12_000,
              "seconds": 0.018, "fallback": "heuristic" if rules.name == "classic" else "learned"}
    return _pimc(name, rules, **{**frozen, **options})


_MAKERS: dict[str, Callable[..., Bot]] = {
    "random": lambda name, rules: _KernelBot(name, rules, random_policy, "all"),
    "greedy": lambda name, rules: _KernelBot(name, rules, greedy_policy, "fewest"),
    "heuristic": HeuristicBot,
    "pimc": _pimc,
    "learned": LearnedBot,
    "guarded": _guarded,
    "fast": lambda name, rules, **options: _guarded(name, rules, **{"inner": "learned",
                                                                    **options}),
    BASELINE: _baseline,
}
BOTS = (*_MAKERS, "default")
"""The names :func:`make` knows."""


def make(name: str, rules: Rules | str, **options: Any) -> Bot:
    """The bot ``name`` (one of :data:`BOTS`) for ``rules`` (a :class:`Rules` or preset name);
    ``options`` go to its maker (``pimc``: ``worlds``, ``max_nodes``, ``max_cards``,
    ``fallback`` and the rest of :func:`shuangkou.pimc_policy`'s; ``heuristic``:
    ``max_wilds``, ``wild_cards``; ``learned``: ``weights``, a path to other weights, and
    ``max_plays``, the most plays a decision scores)."""
    if not isinstance(name, str) or name not in BOTS:
        raise ValueError(f"unknown bot {name!r}: choose one of {', '.join(BOTS)}")
    r = as_rules(rules)
    if name == "default":
        maker, settings = _default(r)
        options = {**settings, **options}
    else:
        maker = name
    try:
        return _MAKERS[maker](name, r, **options)
    except TypeError as e:
        raise TypeError(f"bot {name!r}: {e}") from None
