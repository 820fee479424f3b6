"""shuangkou.guards: the giveaways a GuardedBot vetoes, and the frozen baseline (issue #32;
docs/bots.md "The guards")."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from shuangkou import Rules, State, bots, simulate
from shuangkou.errors import ArgumentError
from shuangkou.guards import GuardedBot, breaks_bomb, spends_big_joker
from shuangkou.plays import Play
from shuangkou.rng import SplitMix64


class Fixed:
    """An inner bot that makes one move whatever the position (a play's cards, or pass)."""

    wilds = "fewest"

    def __init__(self, rules: Rules, cards: str | None) -> None:
        self.rules = rules
        self.cards = cards

    def __call__(self, view: Any, plays: Any, rng: Any) -> Play | None:
        if self.cards is None:
            return None
        want = Play.parse(self.cards, self.rules)
        return next(p for p in plays if p.packed == want.packed)


def _decide(preset: str, hands: list[str], cards: str | None, guards: tuple[str, ...],
            **position: Any) -> tuple[Play | None, GuardedBot]:
    rules = Rules.preset(preset)
    owner = position.get("table_owner")
    passes = 0 if owner is None else 3 - owner  # the seats between the owner and seat 0
    st = State.from_position(rules, hands, 0, hand_size=None, passes=passes, **position)
    bot = GuardedBot("g", Fixed(rules, cards), guards, heuristic=bots.make("heuristic", rules))
    return bot(st.view(0), st.legal("fewest"), SplitMix64(1)), bot


def test_no_bomb_over_the_partners_winning_play() -> None:
    """R5: the partner's play on the table wins the trick if all pass; a bomb over it is a
    giveaway (forbidding it gained +3.0 units a deal): the guard passes instead."""
    hands = ["5 5 5 5 9", "3 4 6", "8 J", "3 4 7"]
    got, bot = _decide("classic", hands, "5 5 5 5", ("partner",), table="8", table_owner=2)
    assert got is None and bot.fired["partner"] == 1
    got, _ = _decide("classic", hands, "5 5 5 5", (), table="8", table_owner=2)
    assert got is not None and got.is_bomb          # unguarded, the bomb stands
    got, _ = _decide("classic", hands, "5 5 5 5", ("partner",), table="8", table_owner=1)
    assert got is not None and got.is_bomb          # over an opponent it stands
    # a bomb that empties the hand goes out: never vetoed
    got, _ = _decide("classic", ["5 5 5 5", "3 4 6", "8 J", "3 4 7"], "5 5 5 5", ("partner",),
                     table="8", table_owner=2)
    assert got is not None and got.is_bomb


def test_no_pass_while_a_short_opponent_goes_out() -> None:
    """An opponent holding ≤ 3 cards owns the table: a pass lets him lead his last cards; the
    guard plays the highest plain play that beats it, else the smallest bomb."""
    got, bot = _decide("classic", ["9 Q K 6 6 6 6 7 7 7 7 7", "3 4", "5", "J"], None,
                       ("threat",), table="8", table_owner=1)
    assert got is not None and str(got.cards) == "K" and bot.fired["threat"] == 1
    got, _ = _decide("classic", ["3 6 6 6 6 7 7 7 7 7", "3 4", "5", "J"], None, ("threat",),
                     table="8", table_owner=1)
    assert got is not None and got.is_bomb and got.size == 4  # the smaller bomb
    # a longer opponent hand, or no guard: the pass stands
    assert _decide("classic", ["9 Q K", "3 4 5 6 8", "5", "J"], None, ("threat",),
                   table="8", table_owner=1)[0] is None
    assert _decide("classic", ["9 Q K", "3 4", "5", "J"], None, (),
                   table="8", table_owner=1)[0] is None


def test_no_natural_bomb_broken_and_no_wild_big_joker_spent_in_a_plain_play() -> None:
    """The play that breaks 7 7 7 7 to beat a straight, and a plain play that spends the wild
    big joker (R3, 百变), are handed to the heuristic, which keeps bombs whole and plays
    wild-free first."""
    rules = Rules.preset("classic")
    hand = "3 4 5 6 7 7 7 7 8 9 10 J Q"
    packed = State.from_position(rules, [hand, "3", "3", "3"], 0, hand_size=None).hand(0).packed
    assert breaks_bomb(packed, Play.parse("4 5 6 7 8", rules))
    assert not breaks_bomb(packed, Play.parse("8 9 10 J Q", rules))
    got, bot = _decide("classic", [hand, "3 4 5 6 7 8", "5", "J"], "4 5 6 7 8", ("bombs",),
                       table="3 4 5 6 7", table_owner=1)
    assert bot.fired["bombs"] == 1 and (got is None or not breaks_bomb(packed, got))
    bb = Rules.preset("baibian")
    spent = Play.parse("9 BJ", bb)  # a pair of nines, the big joker standing for one
    assert spent.wilds == 1 and spends_big_joker(spent, bb)
    assert not spends_big_joker(Play.parse("BJ", bb), bb)  # the big joker as itself
    got, bot = _decide("baibian", ["9 BJ 10 10 5", "3 4 5 6", "5", "J"], "9 BJ", ("joker",),
                       table="8 8", table_owner=1)
    assert bot.fired["joker"] == 1 and (got is None or not spends_big_joker(got, bb))


def test_guarded_bot_checks_its_guards_and_plays_legal_deals() -> None:
    with pytest.raises(ArgumentError, match="unknown guard 'nice'"):
        bots.make("guarded", "baibian", guards="partner+nice")
    bot = bots.make("guarded", "baibian")
    assert isinstance(bot, GuardedBot) and isinstance(bot.inner, bots.LearnedBot)
    assert bots.make("guarded", "classic").inner.name == "heuristic"
    assert bots.make("guarded", "baibian", guards="none").guards == frozenset()
    fast = bots.make("fast", "classic")  # the learned bot under the guards, classic too
    assert isinstance(fast.inner, bots.LearnedBot) and fast.guards == {"partner", "bombs"}
    assert bots.DEFAULT["classic"][1]["fallback"] == "fast"
    res = simulate(3, "baibian", (bot, "greedy"), seed=2)
    assert len(res) == 3


@pytest.mark.parametrize("preset", ["classic", "baibian"])
def test_the_frozen_baseline_is_cb258c5s_default(preset: str) -> None:
    """``default-2026.12`` plays deal for deal as cb258c5's default did: PIMC, 8 worlds of at
    most 12,000 nodes on a 2^16 table, over the heuristic (classic) or learned (the stop
    lifted on both sides: a loaded machine could cut one search short)."""
    frozen = bots.make(bots.BASELINE, preset, seconds=None)
    fallback = "heuristic" if preset == "classic" else "learned"
    then = bots.make("pimc", preset, worlds=8, tt_bits=16, max_nodes=12_000, max_cards=32,
                     fallback=fallback)
    a = simulate(2, preset, (frozen, "greedy"), seed=6).arrays
    b = simulate(2, preset, (then, "greedy"), seed=6).arrays
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_fast_asks_the_heuristic_once_a_decision() -> None:
    """The work bound of a guarded learned bot (docs/bots.md, "The learned bot's time"): the
    network reads the heuristic's choice as a feature, and the ``"bombs"`` guard hands the
    decision to that same choice — reused, not judged again — so a decision judges its plays
    once. Every decision of four classic deals (where the guard fires on big hands): one
    ``assess`` a decision, the guard fired, and the reused hint is what the heuristic
    itself returns there."""
    rules = Rules.preset("classic")
    fast = bots.make("fast", rules)
    heuristic = fast.heuristic
    real = type(heuristic).assess
    calls: list[int] = []

    def counted(*args: Any) -> Any:
        calls[-1] += 1
        return real(heuristic, *args)

    def player(view: Any, plays: Any, rng: Any) -> Play | None:
        calls.append(0)
        choice = fast(view, plays, rng)
        judged = calls[-1]
        _, hint = fast.inner.choose(view, plays, rng)
        if len(plays):  # nothing to choose: no hint (and no guard asks for one)
            assert hint is not None and hint[0] == real(heuristic, view, list(plays), rng)[0]
        calls[-1] = judged
        return choice

    player.wilds = "fewest"  # type: ignore[attr-defined]
    player.rules = rules  # type: ignore[attr-defined]
    mp = pytest.MonkeyPatch()
    mp.setattr(heuristic, "assess", counted)  # this bot's heuristic, not the opponent
    try:
        simulate(4, rules, (player, "heuristic"), seed=3)
    finally:
        mp.undo()
    assert calls and max(calls) == 1 and fast.fired["bombs"] > 0
