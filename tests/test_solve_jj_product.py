"""JJ's product bound (R8.3: every bomb played multiplies the score; docs/solver.md "R8 bounds
with bombs in hand"): ``_solve.jj_log`` runs the held-bomb DP (``sk_held_jj_log``) with
each bomb weighted by log2 of its JJ factor in 64ths, rounded up, and ``_solve.jj_power``
turns the most weight into a product bound (``sv_jj_product``). Checked against a brute
force over every bomb that ``legal_plays`` lists for the hand and what is left of it: the
same most weight, and a bound at least the most that any disjoint bombs of the hand
multiply to."""

from __future__ import annotations

import dataclasses
import math
import random
from functools import cache

import pytest

from shuangkou import Hand, Kind, Rules, _solve, legal_plays
from shuangkou._reference_scoring import _jj_factor

BOMBS = {Kind.BOMB, Kind.CHAIN_BOMB, Kind.THREE_JOKERS, Kind.FOUR_JOKERS}
WEIGHT = {f: math.ceil(64 * math.log2(f)) for f in (2, 3, 4)}   # 64, 102, 128


def brute(hand: Hand, rules: Rules) -> tuple[int, int]:
    """(most weight, most product) over the families of disjoint bombs of ``hand``: a family
    is a bomb of the hand and a family of the rest (or none)."""

    @cache
    def best(counts: tuple[int, ...]) -> tuple[int, int]:
        weight, product = 0, 1
        for play in legal_plays(Hand.from_counts(counts), rules):
            factor = _jj_factor(play.stars) if play.kind in BOMBS else 1
            if factor == 1:
                continue
            rest = tuple(a - b for a, b in zip(counts, play.cards.counts, strict=True))
            w, p = best(rest)
            weight = max(weight, WEIGHT[factor] + w)
            product = max(product, factor * p)
        return weight, product

    return best(hand.counts)


def floor_power(weight: int) -> int:
    """The largest integer at most 2 ** (weight / 64), in exact integer arithmetic."""
    p = max(1, int(2 ** (weight / 64)))     # near it (a float), then exact
    while p ** 64 > 1 << weight:
        p -= 1
    while (p + 1) ** 64 <= 1 << weight:
        p += 1
    return p


def hands(seed: int) -> list[Hand]:
    """Bomb-rich hands of 8..27 cards drawn from two to four consecutive ranks (eight copies
    each) and the four jokers — X相 bombs of up to 10 cards with the wilds, chain bombs, 三王
    and 天王 — then whole dealt hands of 27 cards."""
    rng = random.Random(seed)
    out: list[Hand] = []
    for width in (2, 3, 3, 4):
        for _ in range(15):
            lo = rng.randrange(0, 10)
            pool = [r for r in range(lo, lo + width) for _ in range(8)] + [13, 13, 14, 14]
            counts = [0] * 15
            for r in rng.sample(pool, rng.randint(8, min(27, len(pool)))):
                counts[r] += 1
            out.append(Hand.from_counts(counts))
    deck = list(range(108))
    for _ in range(8):
        rng.shuffle(deck)
        out.append(Hand.from_cards(deck[:27]))
    return out


def test_the_weight_is_the_brute_forces_and_the_product_bound_holds() -> None:
    rules = Rules.preset("jj")
    flags = rules.flags
    multiplied = 0
    for hand in hands(1):
        weight = _solve.jj_log(hand.packed, flags)
        bound = _solve.jj_power(weight)
        want_weight, product = brute(hand, rules)
        assert weight == want_weight, hand
        assert product <= bound, hand                       # a bound (R8.3)
        assert floor_power(weight) <= bound <= floor_power(weight) + 1, hand   # below 2^31
        multiplied += product > 2
    assert multiplied >= 30      # the hands exercise products of several bombs


def test_without_stars_the_bound_still_holds() -> None:
    """JJ scoring with the classic bomb order (no chain bombs, no 三王): the DP still
    considers them, so its weight is at least the brute force's, never less."""
    rules = dataclasses.replace(Rules.preset("classic"), name="jj-classic-order", scoring="jj")
    for hand in hands(2)[:30]:
        weight = _solve.jj_log(hand.packed, rules.flags)
        want_weight, product = brute(hand, rules)
        assert weight >= want_weight and product <= _solve.jj_power(weight), hand


@pytest.mark.parametrize("weight", [0, 63, 64, 102, 128, 166, 230, 64 * 39 + 63, 64 * 40])
def test_the_power_is_rounded_down_within_one(weight: int) -> None:
    """``sv_jj_product`` against exact integer arithmetic: 2 ** (w / 64) rounded down, or above
    it by the table's rounding up (2^-31 of it at most, so by at most 1 below 2^31), capped
    at 2^40."""
    bound = _solve.jj_power(weight)
    if weight < 64 * 40:
        assert floor_power(weight) <= bound <= floor_power(weight) * (1 + 2**-31) + 1
    else:
        assert bound == 1 << 40


def test_the_hooks_refuse_what_is_not_a_hand_or_a_weight() -> None:
    with pytest.raises(ValueError, match="hand must be a cards word"):
        _solve.jj_log(9, Rules.preset("jj").flags)      # nine 3s: R1 has eight copies
    with pytest.raises(ValueError, match="w must be >= 0"):
        _solve.jj_power(-1)
