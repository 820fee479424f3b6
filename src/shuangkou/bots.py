"""Players for every driver: ``simulate``, ``play_deal``, the arena, ``VecEnv`` opponents, the
server.

::

    from shuangkou import bots, simulate
    bot = bots.make("default", "baibian")          # the strongest bot deciding within 20 ms
    simulate(1000, "baibian", (bot, "greedy"))      # team 0+2 the bot, team 1+3 greedy
    bots.make("pimc", "jj", worlds=8, max_nodes=300)

**The bot protocol** (docs/bots.md, "Your own bot"). A bot is any callable
``bot(view, plays, rng)``:

* ``view`` is a :class:`shuangkou.SeatView`, the deciding seat's ``State.view(seat)``: what
  that seat may know and nothing more (docs/bots.md lists its members);
* ``plays`` is the seat's legal list (``len``, ``[i]``, iteration, ``in``), empty when
  nothing beats the table (then only a pass is legal): ``wilds="all"`` (every distinct way of
  taking cards) unless the bot has an attribute ``wilds = "fewest"`` (one play per reading,
  the fewest wilds);
* ``rng`` is the deal's :class:`~shuangkou.rng.SplitMix64` stream: draw from it (not from a
  generator of your own) and a run is reproducible for its seed;
* it returns one of ``plays`` (or its index in ``plays``), or ``None`` to pass (only when
  answering: ``view.table`` is not ``None``, R4).

Optional attributes: ``wilds`` (above), ``rules`` (the :class:`Rules` it was made for: every
driver then refuses a position of other rules, :func:`check_rules`), ``kernel`` (``"random"``
or ``"greedy"``: the kernel plays it instead, GIL-free), ``__name__`` (its name in results).
A driver calls a bot from one thread at a time and may call one object for several seats and
deals, so a bot keeps no per-deal state; the bots here are not thread-safe (give each thread
its own). A driver running worker processes (the arena) sends each a copy: a bot named by a
string is made there, an object is pickled (the bots of :func:`make` pickle as their name,
rules and options).

Every driver takes a bot as an object, a name of :data:`BOTS` with options
(``"pimc:worlds=16,max_nodes=2000"``), or your own as ``"module:function"`` (the function is
the bot) or ``"module:Class"`` (made as ``Class(rules, **options)``, options after a second
colon: ``"mybots:Searcher:depth=3"``): :func:`resolve`. :func:`register` adds a name to
:data:`BOTS` (then the server's seats offer it too, :func:`seat_bots`).

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

import dataclasses
import functools
import importlib
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from . import _solve
from ._check import as_int
from .errors import ArgumentError
from .learned import (
    BASELINE_WEIGHTS_FILE,
    HEURISTIC_COLUMN,
    MLP,
    best_rows,
    greedy_index,
    load,
    packaged,
    shortlist,
    table_features,
)
from .plays import Kind, Play, classify
from .rules import Rules, as_rules
from .sim import greedy_policy, random_policy
from .solve import _breaks, _mid_search, pimc_policy

__all__ = ["BASELINE", "BOTS", "DEFAULT", "UNTIMED", "Bot", "HeuristicBot", "LearnedBot",
           "check_rules", "make", "parse_spec", "register", "resolve", "seat_bots"]

_PIMC_20MS: dict[str, Any] = {"tt_bits": 16, "max_nodes": 12_000, "seconds": 0.018}
"""PIMC within 20 ms a decision: 8 worlds of at most 12,000 nodes each over a 1 MiB table,
every search stopped 18 ms into the decision (then the fallback decides)."""
_MIDGAME: dict[str, Any] = {"mid_worlds": 8, "mid_nodes": 2000, "mid_depth": 1, "margin": 20,
                            "shortlist": 3}
"""The searched midgame (:func:`shuangkou.pimc_policy`'s ``midgame``): what the exact search
leaves to the fallback, 8 uniform worlds searched one move deep within 2,000 nodes each, the
horizon played out by greedy rollouts; the fallback's move stands unless the best of its
three least-damage plays (and pass) beats it by more than 20 units in the mean."""
_MIDGAME_JJ: dict[str, Any] = {"mid_worlds": 16, "mid_nodes": 1000, "mid_depth": 1,
                               "margin": 5, "shortlist": 3, "mid_cards": 40}
"""JJ's midgame: 16 uniform worlds of 1,000 nodes each, held back to the decisions with at most
40 cards left (from the first trick its overrides lost in JJ: docs/bots.md, "Why classic and
JJ gain nothing from the midgame"), overriding by more than 5 (JJ's values are about half
百变's: 20 overrode 1% of the decisions)."""
_MIDGAMES: dict[str, dict[str, Any]] = {"baibian": _MIDGAME, "qianbian": _MIDGAME,
                                        "jj": _MIDGAME_JJ}
"""The presets whose default searches the midgame, with its settings: where it beat the default
without it over 2,000 duplicate pairs with its CI above 0 (百变 +2.48 [+1.58, +3.37], 千变
+6.92 [+5.71, +8.12], JJ +0.83 [+0.56, +1.10] a deal; docs/bots.md, "The searched midgame"
and "Why classic and JJ gain nothing from the midgame"); in classic no setting measured
above 0 (the same section)."""
_EXACT_MISSES: dict[str, int] = {"jj": 4}
"""The presets whose default's exact search decides with some of its worlds unsolved
(:func:`shuangkou.pimc_policy`'s ``exact_misses``): JJ, 4 of 8, over the default with
none +0.55 [+0.37, +0.73] a deal on 2,000 duplicate pairs of deals it was not chosen on
(docs/bots.md, "An opponent model that fits who is playing"); classic's screens lost."""
DEFAULT: dict[str, tuple[str, dict[str, Any]]] = {
    preset: ("pimc", {**_PIMC_20MS, "fallback": "fast", "sampler": "weighted",
                      **_MIDGAMES.get(preset, {}),
                      **({"exact_misses": _EXACT_MISSES[preset]} if preset in _EXACT_MISSES
                         else {})})
    for preset in ("classic", "baibian", "jj", "qianbian")}
"""What ``make("default", rules)`` builds, by preset (other rules: ``"learned"``): a bot's name
and its options, the strongest bot deciding within 20 ms a decision measured on duplicate
deals (docs/bots.md, "Results"): PIMC, bounded, over the learned bot under the guards
(``"fast"``, :mod:`shuangkou.guards`; in classic too, where it plays above the heuristic), its
worlds weighted by the plays seen (:mod:`shuangkou.inference`), searched exactly from 32
cards left; in :data:`_MIDGAMES`' presets the decisions before that are searched too,
overriding the fallback only by a clear margin (``mid_worlds=0`` turns it off: the default
before it). Its moves are reproducible for a seed unless the 18 ms stop cuts a search short
(a loaded machine)."""


def _default(rules: Rules) -> tuple[str, dict[str, Any]]:
    return DEFAULT.get(rules.name, ("learned", {}))


class Bot:
    """A player of this module: ``bot(view, plays, rng)`` → a play of ``plays`` or ``None``
    (pass), the protocol of the module docstring.

    ``name`` is what :func:`make` was asked for, ``rules`` the rules it was made for (a
    position of other rules is refused, :func:`check_rules`), ``wilds`` the legal list it
    reads (``"all"`` or ``"fewest"``), ``kernel`` the built-in name ``simulate``/``VecEnv``
    can run in the kernel instead (``None``: Python only). A bot holds no per-deal state, so
    one object may play every seat; it is not thread-safe (callers give each thread its own).
    A bot of :func:`make` pickles as its name, rules and options (a worker process makes its
    own)."""

    kernel: str | None = None
    _made: tuple[str, Rules, dict[str, Any]] | None = None  # make's arguments, for pickling

    def __init__(self, name: str, rules: Rules, policy: Callable[..., Any], wilds: str) -> None:
        self.name = name
        self.__name__ = name  # simulate names its policies by __name__
        self.rules = rules
        self.wilds = wilds
        self._policy = policy

    def __call__(self, view: Any, plays: Any, rng: Any) -> Play | None:
        if view.rules is not self.rules:  # the same preset object: no comparison needed
            _check_view(self, view)
        seat = getattr(view, "seat", None)  # (a view; a Game, under sim.with_game, has none)
        if seat is not None and view.to_act not in (seat, None):
            raise ArgumentError(f"{_label(self)} decides for the seat to act, {view.to_act}, "
                                f"from that seat's view: this is seat {seat}'s")
        choice: Play | None = self._policy(view, plays, rng)
        return choice

    def __reduce__(self) -> Any:
        if self._made is None:
            return super().__reduce__()
        name, rules, options = self._made
        return _remake, (name, rules, options)

    def __repr__(self) -> str:
        return f"<bot {self.name!r} for {self.rules.name}>"


def _remake(name: str, rules: Rules, options: dict[str, Any]) -> Bot:
    return make(name, rules, **options)


def _check_view(bot: Any, view: Any) -> None:
    """Refuse ``view`` if it is a position of other rules than ``bot.rules``."""
    theirs = getattr(view, "rules", None)
    if theirs is not None and theirs != bot.rules:
        raise ArgumentError(
            f"{_label(bot)} was made for {_rules_text(bot.rules)} and would judge this "
            f"position by them, but the position is under {_rules_text(theirs)}"
            f"{_rules_diff(bot.rules, theirs)}: make a bot for the position's rules")


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
        self.max_wilds: int = as_int(max_wilds, "heuristic option max_wilds", 0, 108)
        self.wild_cards: int = as_int(wild_cards, "heuristic option wild_cards", 0, 108)
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
        if view.rules is not self.rules:
            _check_view(self, view)
        hand = view.hand
        rules = self.rules
        if not self.judges(hand):
            i = greedy_index(view, plays)
            return (None if i < 0 else plays[i]), None, 0
        damage = _breaks(hand, plays, rules)
        left = _solve.decompose_cost(hand.packed, rules.flags, True) // _UNIT + 1
        out: list[Play] = [p for p in plays if p.packed == hand.packed]
        if out:
            return max(out, key=lambda q: (q.stars, q.is_bomb)), damage, left
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
    bound drops no play; 240 plays and a pass stay under the 256 rows above which the network's
    products are not sliced to run on one thread (:meth:`shuangkou.learned.MLP.forward`). The
    heuristic judges the plays once a decision: :meth:`choose` hands its choice to the
    guards."""

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
        return self.choose(view, plays, rng)[0]

    def choose(self, view: Any, plays: Any, rng: Any) -> tuple[Play | None,
                                                                tuple[Play | None] | None]:
        """``(choice, hint)``: the bot's choice among ``plays`` (``None``: pass) and, when it
        scored them all (at most ``max_plays``), ``(heuristic's choice,)``: the hint the
        network read, which is what :attr:`heuristic` returns for ``(view, plays, rng)`` — the
        guards reuse it instead of asking the heuristic again; else ``hint`` is ``None``."""
        every = list(plays)
        plays = shortlist(every, self.max_plays)
        if not plays:
            return None, None
        x, env, is_pass = table_features([view], [plays], self.rules, self.heuristic, rng)
        row = int(best_rows(self.net.score(x), env, 1)[0])
        hint = None
        if plays is every:
            hinted = np.flatnonzero(x[:, HEURISTIC_COLUMN])
            hint = (None if not hinted.size or is_pass[hinted[0]] else plays[hinted[0]],)
        return None if is_pass[row] else plays[row], hint


# -- make --------------------------------------------------------------------------------------
PIMC_FALLBACK = {"classic": "heuristic", "baibian": "learned", "jj": "learned",
                 "qianbian": "learned"}
"""The bot ``make("pimc", rules)`` falls back on, by preset (other rules: ``"heuristic"``):
the stronger of the heuristic and the learned bot on the ladder of docs/bots.md (2,000
duplicate pairs; in classic 8,000, the heuristic ahead by 0.27 units a deal, CI above 0)."""


def _pimc(name: str, rules: Rules, worlds: int = 8, max_nodes: int = 50_000,
          max_cards: int = 32, fallback: Any = None, sampler: str = "uniform",
          model: str = "default", mid_worlds: int = 0, mid_nodes: int = 1000,
          mid_depth: int = 1, **options: Any) -> Bot:
    """PIMC over a fallback bot (:data:`PIMC_FALLBACK`): the fallback's move unless every
    sampled world, searched exactly within ``max_nodes`` nodes once at most ``max_cards``
    cards are left, shows a better one (:func:`shuangkou.pimc_policy`'s ``fallback``).
    ``fallback="default"``: the default bot, or :data:`PIMC_FALLBACK`'s where the default is
    PIMC itself (every preset today).
    ``fallback`` may name a bot with its options as a spec does (``"fast:guards=overtake+bombs"``,
    :func:`parse_spec`). ``fallback="none"``: plain PIMC, depth-limited
    searches scored by ``evaluation``
    (``"rollout"`` or ``"hand_count"``). ``fallback`` may also be a bot object (the protocol
    of this module: e.g. your own network under the guards).
    ``sampler="weighted"``: the worlds weighted by the plays seen
    (:func:`shuangkou.inference.weighted_worlds`); ``"uniform"``: :func:`sample_worlds`.
    ``model``: what the weights take the other seats' moves for
    (:func:`shuangkou.inference.named_model`): ``"default"`` (the learned bot's habits),
    ``"heuristic"`` (the heuristic's), ``"jj"``, ``"classic"`` (the learned bot's refitted
    in that preset), or several joined by ``+`` (``"default+heuristic"``: each seat read by
    whichever its moves fit); only with ``sampler="weighted"``.
    ``mid_worlds`` (0: none), ``mid_nodes``, ``mid_depth``: the midgame search of
    :func:`shuangkou.pimc_policy` (its ``midgame=(mid_worlds, mid_nodes, mid_depth)``, with
    ``margin``, ``shortlist`` and ``mid_cards``): the decisions the exact search leaves to
    the fallback are searched too, and the fallback's move overridden only by a clear
    margin."""
    if mid_worlds:  # the midgame search (pimc_policy's midgame), named by scalars for specs
        options["midgame"] = (mid_worlds, mid_nodes, mid_depth)
    else:           # (checked all the same: a wrong one is refused, never ignored)
        _mid_search(mid_nodes, mid_depth, ("mid_nodes", "mid_depth"))
    if sampler not in ("uniform", "weighted"):
        raise ValueError(f"sampler must be 'uniform' or 'weighted', not {sampler!r}")
    from .inference import named_model, weighted_worlds  # inference builds on solve, as this

    try:
        weights = named_model(model)
    except ValueError as e:
        raise ValueError(f"pimc option {e}") from None
    if model != "default" and sampler != "weighted":
        raise ValueError(f"pimc option model={model!r} weighs the worlds of "
                         f"sampler='weighted', not of sampler={sampler!r}: pass both")
    if sampler == "weighted":
        options["sampler"] = (weighted_worlds if model == "default" else
                              functools.partial(weighted_worlds, model=weights))
    if fallback == "none":
        return Bot(name, rules, pimc_policy(worlds, max_nodes, max_cards=max_cards,
                                            **options), "all")
    if callable(fallback):
        prior = fallback
        check_rules(prior, rules)
    else:
        if fallback == "default":
            maker, settings = _default(rules)
        elif isinstance(fallback, str) and ":" in fallback:  # a name with its options
            maker, settings = parse_spec(fallback)
        else:
            maker, settings = fallback, {}
        if maker == "pimc" and fallback == "default" or not fallback:
            # no fallback, or the default, which is itself PIMC over this table's bot
            maker, settings = PIMC_FALLBACK.get(rules.name, "heuristic"), {}
        if maker not in _MAKERS or maker == "pimc":
            raise ValueError(f"fallback must be a bot other than pimc, a bot object, or "
                             f"'none', not {fallback!r}")
        prior = _MAKERS[maker](maker, rules, **settings)
    wilds = getattr(prior, "wilds", "all")  # a registered bot may leave it out (the protocol)
    return Bot(name, rules, pimc_policy(worlds, max_nodes, max_cards=max_cards,
                                        fallback=prior, **options), wilds)


def _make_default(name: str, rules: Rules, **options: Any) -> Bot:
    maker, settings = _default(rules)
    return _MAKERS[maker](name, rules, **{**settings, **options})


def _guarded(name: str, rules: Rules, **options: Any) -> Bot:
    from .guards import guarded  # guards builds on this module's bots

    return guarded(name, rules, **options)


BASELINE = "default-2026.12"
"""cb258c5's ``default``, frozen as a yardstick: PIMC within 20 ms, 8 uniform worlds of at most
12,000 nodes on a 2^16 table from 32 cards left, searches stopped at 18 ms, over the heuristic
in classic and elsewhere the learned bot of that build's weights
(:data:`shuangkou.learned.BASELINE_WEIGHTS_FILE`, packaged: retraining the shipped weights
leaves it as it was)."""


def _baseline(name: str, rules: Rules, **options: Any) -> Bot:
    fallback = ("heuristic" if rules.name == "classic" else
                LearnedBot("learned", rules, weights=packaged(BASELINE_WEIGHTS_FILE)))
    frozen = {"worlds": 8, "max_cards": 32, "tt_bits": 16, "max_nodes": 12_000,
              "seconds": 0.018, "fallback": fallback}
    return _pimc(name, rules, **{**frozen, **options})


_MAKERS: dict[str, Callable[..., Bot]] = {
    "random": lambda name, rules: _KernelBot(name, rules, random_policy, "all"),
    "greedy": lambda name, rules: _KernelBot(name, rules, greedy_policy, "fewest"),
    "heuristic": HeuristicBot,
    "pimc": _pimc,
    "learned": LearnedBot,
    "default": _make_default,
    "guarded": _guarded,
    "fast": lambda name, rules, **options: _guarded(name, rules, **{"inner": "learned",
                                                                    **options}),
    BASELINE: _baseline,
}
"""The registry: a bot's name → its maker, ``maker(name, rules, **options)`` → a :class:`Bot`
(:func:`register` adds to it). :data:`BOTS` lists it."""
BOTS: tuple[str, ...] = tuple(_MAKERS)
"""The names :func:`make` knows (read it as ``bots.BOTS``: :func:`register` replaces it)."""
UNTIMED: set[str] = {"pimc"}
"""Bots whose decision time has no bound with their default options (a search of tens of
milliseconds or more a move): left out of a server's seats (:func:`seat_bots`)."""


def seat_bots() -> tuple[str, ...]:
    """The bots a server's seat can be filled with: every name of :data:`BOTS` but the
    :data:`UNTIMED` ones (the server's bots move on its event loop)."""
    return tuple(b for b in BOTS if b not in UNTIMED)


def register(name: str, maker: Callable[..., Any], *, timed: bool = True) -> None:
    """Add the bot ``name`` to :data:`BOTS`: ``maker(rules, **options)`` makes it (a class
    following the protocol, as a ``"module:Class"`` spec is made, or a function returning
    a bot). Every driver then knows the name — :func:`make`, the arena and
    ``simulate`` specs, and the seats of a server started in this process (unless
    ``timed=False``: a bot without a bound on its decision time, :data:`UNTIMED`). A name
    already registered is refused."""
    global BOTS
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ArgumentError(f"a bot's name is a word of letters, digits, '_' or '-', not "
                            f"{name!r}")
    if name in _MAKERS:
        raise ArgumentError(f"bot {name!r} is already registered")
    if not callable(maker):
        raise ArgumentError(f"maker must be a callable maker(name, rules, **options), not "
                            f"{type(maker).__name__}")
    _MAKERS[name] = lambda _name, rules, **options: maker(rules, **options)
    BOTS = tuple(_MAKERS)
    if not timed:
        UNTIMED.add(name)


def make(name: str, rules: Rules | str, **options: Any) -> Bot:
    """The bot ``name`` (one of :data:`BOTS`) for ``rules`` (a :class:`Rules` or preset name);
    ``options`` go to its maker (``pimc``: ``worlds``, ``max_nodes``, ``max_cards``,
    ``fallback``, ``sampler``, ``model``, ``mid_worlds``, ``mid_nodes``, ``mid_depth`` and
    the rest of :func:`shuangkou.pimc_policy`'s;
    ``heuristic``:
    ``max_wilds``, ``wild_cards``; ``learned``: ``weights``, a path to other weights, and
    ``max_plays``, the most plays a decision scores). An option the bot does not take raises
    ``TypeError``; a bad value, ``ValueError``."""
    if not isinstance(name, str) or name not in _MAKERS:
        raise ValueError(f"unknown bot {name!r}: choose one of {', '.join(_MAKERS)}")
    r = as_rules(rules)
    try:
        bot = _MAKERS[name](name, r, **options)
    except TypeError as e:
        raise TypeError(f"bot {name!r}: {e}") from None
    if isinstance(bot, Bot):
        bot._made = (name, r, dict(options))
    return bot


# -- what every driver plays: resolve -------------------------------------------------------------
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*")
_MODULE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """A bot named by a string → ``(name, options)``: ``"pimc:worlds=16,max_nodes=2000"`` →
    ``("pimc", {"worlds": 16, "max_nodes": 2000})``, ``"mybots:Searcher:depth=3"`` →
    ``("mybots:Searcher", {"depth": 3})`` (values read as int, then float, else kept as
    text; only ASCII digits are numbers). A name of :data:`BOTS` comes first; else the text
    must be ``module:attribute``."""
    if not isinstance(spec, str):
        raise TypeError(f"a bot spec is a string, not {type(spec).__name__}")
    head, colon, rest = spec.partition(":")
    if head in _MAKERS:
        name = head
    elif colon and _MODULE.fullmatch(head):
        attr, _, rest = rest.partition(":")
        if not _MODULE.fullmatch(attr):
            raise ArgumentError(f"bot {spec!r}: after 'module:' comes a function or class "
                                f"name, not {attr!r}")
        name = f"{head}:{attr}"
    else:
        raise ArgumentError(f"unknown bot {head!r}: choose one of {', '.join(_MAKERS)}, or "
                            "name your own as 'module:function' or 'module:Class'")
    options: dict[str, Any] = {}
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ArgumentError(f"bot option {item!r} of {spec!r} is not key=value")
        # numbers are ASCII, as _check.parse_int reads them (int('٣') would read 3)
        casts = (int, float, str) if value.isascii() else (str,)
        for cast in casts:
            try:
                options[key] = cast(value)
                break
            except ValueError:
                continue
    return name, options


def _load(path: str) -> Any:
    """The object ``module:attribute`` names (the module imported)."""
    module, _, attr = path.partition(":")
    try:
        obj: Any = importlib.import_module(module)
    except ImportError as e:
        raise ArgumentError(f"bot {path!r}: cannot import module {module!r} ({e})") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ArgumentError(f"bot {path!r}: module {module!r} has no {attr!r}")
        obj = getattr(obj, part)
    return obj


def resolve(bot: Any, rules: Rules | str) -> Any:
    """The player ``bot`` stands for, under ``rules``: a name of :data:`BOTS` with options
    (:func:`make`), ``"module:function"`` (the function), ``"module:Class"`` (made as
    ``Class(rules, **options)``), or a bot object as it is. A bad spec or option raises
    ``ValueError``; what cannot be a bot, ``TypeError``; a bot made for other rules is
    refused (:func:`check_rules`)."""
    r = as_rules(rules)
    if isinstance(bot, str):
        name, options = parse_spec(bot)
        if name in _MAKERS:
            try:
                return make(name, r, **options)
            except (TypeError, OSError) as e:  # an option it does not take, a file it cannot
                raise ArgumentError(f"{bot!r}: {e}") from None  # read: the spec's fault
        obj = _load(name)
        if isinstance(obj, type):
            try:
                made = obj(r, **options)
            except TypeError as e:
                raise ArgumentError(f"bot {bot!r}: {name}(rules, **options) failed: {e}"
                                    ) from None
        elif options:
            raise ArgumentError(f"bot {bot!r}: {name} is a function (the bot itself), it "
                                "takes no options; name a class to pass options")
        else:
            made = obj
        if not callable(made):
            raise ArgumentError(f"bot {bot!r} is a {type(made).__name__}, not a callable "
                                "bot(view, plays, rng)")
        bot = made
    elif not callable(bot):
        raise TypeError(f"a bot is a callable bot(view, plays, rng), a name of "
                        f"{', '.join(_MAKERS)} or a 'module:function' spec, not "
                        f"{type(bot).__name__}")
    check_rules(bot, r)
    return bot


def check_rules(bot: Any, rules: Rules | str) -> None:
    """Refuse (``ValueError``) a bot that carries a ``rules`` attribute other than
    ``rules``: it would judge every position by the wrong rules. A bot without one is taken
    at its word."""
    r = as_rules(rules)
    own = getattr(bot, "rules", None)
    if isinstance(own, Rules) and own != r:
        raise ArgumentError(f"{_label(bot)} was made for {_rules_text(own)}, not for "
                            f"these {_rules_text(r)}{_rules_diff(own, r)}: make a bot "
                            "for these rules")


def _label(bot: Any) -> str:
    name = getattr(bot, "name", None) or getattr(bot, "__name__", None) or type(bot).__name__
    return f"bot {name!r}"


def _rules_text(r: Any) -> str:
    return f"{r.name} rules" if isinstance(r, Rules) else repr(r)


def _rules_diff(a: Rules, b: Any) -> str:
    """`` (field: the bot's value, not the other's; …)`` where two rule sets differ."""
    if not isinstance(b, Rules):
        return ""
    diff = [f"{f.name} {getattr(a, f.name)!r}, not {getattr(b, f.name)!r}"
            for f in dataclasses.fields(Rules)
            if f.name != "name" and getattr(a, f.name) != getattr(b, f.name)]
    return f" (the bot's {'; '.join(diff)})" if diff else ""
