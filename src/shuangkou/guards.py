"""Guards: rules that veto a bot's measured giveaways (docs/bots.md, "The guards").

A :class:`GuardedBot` asks its inner bot (the learned bot, the heuristic) for a move, then
overrides it where it is one of the mistakes counted over self-play deals of the default
(docs/bots.md, "The guards"):

* ``"partner"`` – a bomb over the partner's winning play (R5: the partner leads if every
  seat passes) becomes a pass, unless the bomb empties the hand;
* ``"overtake"`` – any play over the partner's winning play becomes a pass, unless it empties
  the hand (the heuristic's rule; ``"partner"`` is its bombs only);
* ``"threat"`` – a pass while an opponent holding at most ``threat_cards`` cards owns the
  table becomes the highest plain play that beats it, else the smallest bomb (the heuristic's
  answer to a short opponent);
* ``"bombs"`` – a plain play that breaks a natural bomb (takes some but not all of a rank
  the hand holds four or more times) becomes the heuristic's play;
* ``"joker"`` – a plain play that spends a wild big joker (R3 百变: standing for another rank)
  becomes the heuristic's play.

The heuristic keeps bombs whole (its damage measure splits hands with bombs kept) and plays
wild-free first, so the last two hand the decision to the yardstick where the inner bot left
it. Each guard is cheap (a few attribute reads; the last two call the heuristic, about
0.04 ms, or over the learned bot reuse the heuristic's choice it read as a feature,
:meth:`~shuangkou.bots.LearnedBot.choose`), so a guarded bot costs what its inner bot costs.
"""

from __future__ import annotations

from typing import Any

from ._check import as_int
from .bots import PIMC_FALLBACK, Bot, LearnedBot, make
from .errors import ArgumentError
from .plays import Play
from .rules import Rules

__all__ = ["DEFAULT_GUARDS", "GUARDS", "GuardedBot", "breaks_bomb", "guarded",
           "spends_big_joker"]

GUARDS = ("partner", "overtake", "threat", "bombs", "joker")
"""The guards a :class:`GuardedBot` knows, in the order they are checked."""

DEFAULT_GUARDS = ("partner", "bombs")
"""The guards ``bots.make("guarded")`` (and so ``default``'s fallback) applies: those whose
gain over the unguarded learned bot measured above 0 (docs/bots.md, "The guards": 百变,
1,000 duplicate pairs each); ``"threat"`` and ``"joker"`` measured within noise of 0."""

_BIG_JOKER = 14


def _rank_count(packed: int, rank: int) -> int:
    return (packed >> (4 * rank)) & 15


def breaks_bomb(hand_packed: int, play: Play) -> bool:
    """Whether ``play`` takes some but not all of a rank ``hand`` holds four or more times
    (a natural bomb, R2), leaving fewer than four of it."""
    cards = play.packed
    for r in range(13):
        held = _rank_count(hand_packed, r)
        used = _rank_count(cards, r)
        if held >= 4 and 0 < used < held and held - used < 4:
            return True
    return False


def spends_big_joker(play: Play, rules: Rules) -> bool:
    """Whether plain ``play`` holds a wild big joker standing for another rank (R3)."""
    return (rules.wild_big_joker and not play.is_bomb and play.wilds > 0
            and _rank_count(play.packed, _BIG_JOKER) > 0 and int(play.top) != _BIG_JOKER)


class GuardedBot(Bot):
    """``inner``'s move, vetoed by ``guards`` (a subset of :data:`GUARDS`): see the module.
    ``heuristic``: the bot the ``"bombs"`` and ``"joker"`` guards hand the decision to (the
    inner bot's own :attr:`~shuangkou.bots.LearnedBot.heuristic` by default).
    ``fired`` counts each guard's overrides (for measurement)."""

    def __init__(self, name: str, inner: Any, guards: tuple[str, ...] = GUARDS,
                 threat_cards: int = 3, heuristic: Any = None) -> None:
        unknown = [g for g in guards if g not in GUARDS]
        if unknown:
            raise ArgumentError(f"unknown guard {unknown[0]!r}: choose from {', '.join(GUARDS)}")
        super().__init__(name, inner.rules, self._decide, inner.wilds)
        self.inner: Any = inner
        self.guards: frozenset[str] = frozenset(guards)
        self.threat_cards: int = as_int(threat_cards, "threat_cards", 0, 27)
        self.heuristic: Any = heuristic if heuristic is not None else getattr(inner, "heuristic",
                                                                         inner)
        self.fired: dict[str, int] = dict.fromkeys(GUARDS, 0)
        # the learned bot reads the heuristic's choice as a feature: reused, not asked again
        self._hinted: bool = isinstance(inner, LearnedBot) and self.heuristic is inner.heuristic

    def _decide(self, view: Any, legal: Any, rng: Any) -> Play | None:
        plays: list[Play] = list(legal)
        hint: tuple[Play | None] | None = None  # the heuristic's choice, if the inner bot had it
        choice: Play | None
        if self._hinted:
            choice, hint = self.inner.choose(view, plays, rng)
        else:
            choice = self.inner(view, plays, rng)
        guards = self.guards
        seat = view.seat
        owner = view.table_owner
        hand = view.hand.packed
        if choice is not None and choice.packed == hand:
            return choice  # going out: nothing to guard
        if choice is not None and owner == seat ^ 2 and (
                "overtake" in guards or "partner" in guards and choice.is_bomb):
            self.fired["partner" if choice.is_bomb and "partner" in guards else "overtake"] += 1
            return None
        if choice is None:
            if ("threat" in guards and owner is not None and owner & 1 != seat & 1
                    and 0 < view.card_counts[owner] <= self.threat_cards and plays):
                self.fired["threat"] += 1
                plain = [p for p in plays if not p.is_bomb]
                if plain:
                    return max(plain, key=lambda p: (p.top, -p.wilds))
                return min(plays, key=lambda p: sum(p.beats(q, self.rules) for q in plays))
            return None
        if choice.is_bomb:
            return choice
        if ("bombs" in guards and breaks_bomb(hand, choice)) or (
                "joker" in guards and spends_big_joker(choice, self.rules)):
            self.fired["bombs" if breaks_bomb(hand, choice) else "joker"] += 1
            fixed: Play | None = hint[0] if hint is not None else self.heuristic(view, plays,
                                                                                 rng)
            return fixed
        return choice


def guarded(name: str, rules: Rules, inner: str | None = None,
            guards: str = "+".join(DEFAULT_GUARDS),
            threat_cards: int = 3) -> GuardedBot:
    """``bots.make("guarded", rules, …)``: ``inner`` (a :func:`shuangkou.bots.make` name;
    default :data:`shuangkou.bots.PIMC_FALLBACK`'s bot for the preset) under ``guards``
    (names of :data:`GUARDS` joined by ``+``, as in ``"guarded:guards=partner+threat"``;
    ``"none"``: none)."""
    inner_name = inner or PIMC_FALLBACK.get(rules.name, "heuristic")
    if not isinstance(guards, str):
        raise ArgumentError(f"guards must be names joined by '+', not {guards!r}")
    return GuardedBot(name, make(inner_name, rules),
                      tuple(g for g in guards.split("+") if g and guards != "none"),
                      threat_cards)

