"""R8 scoring: hand-worked cases per mode, the escape, the cap, the base unit, and the exact
best split of held bombs (R8.4) against brute force."""

from __future__ import annotations

import itertools
import random
from functools import cache

import pytest

from shuangkou import Hand, Play, Rules, classify
from shuangkou._reference_scoring import best_held_bombs, contribution_units, outcome_of, score
from shuangkou.scoring import Outcome

CLASSIC, BAIBIAN, JJ, QIANBIAN = (Rules.preset(n) for n in ("classic", "baibian", "jj", "qianbian"))


def P(text: str, rules: Rules) -> Play:
    return Play.parse(text, rules)


def bombs(**by_seat: list[Play]) -> list[list[Play]]:
    out: list[list[Play]] = [[], [], [], []]
    for key, plays in by_seat.items():
        out[int(key[1])] = plays
    return out


def test_outcomes_from_places() -> None:  # R8: where T's partner placed
    assert outcome_of([0, 2, 1, 3]) is Outcome.DOUBLE_WIN
    assert outcome_of([1, 0, 3, 2]) is Outcome.SINGLE_WIN
    assert outcome_of([3, 0, 2, 1]) is Outcome.TIE
    assert Outcome.DOUBLE_WIN.value == "双扣" and Outcome.TIE.english == "tie"


# -- R8.1 classic ------------------------------------------------------------------------------
def test_classic_double_win_largest_multiplier_only() -> None:
    # T = {0, 2}: base +4/-4. T's bombs: 66666 (x2) and 7777777 (x4) -> only the largest, x4.
    # Seat 1's 88888888 (x5) is not T's and does not count.
    b = bombs(s2=[P("66666", CLASSIC)], s0=[P("7777777", CLASSIC)], s1=[P("88888888", CLASSIC)])
    r = score(CLASSIC, [0, 2, 1, 3], b)
    assert r.outcome is Outcome.DOUBLE_WIN and r.name == "双扣"
    assert r.base == (4, -4, 4, -4) and r.multiplier == 4
    assert r.units == (16, -16, 16, -16) and r.zero_sum
    assert r.multiplier_bombs[0].seat == 0 and r.multiplier_bombs[0].factor == 4


def test_classic_single_win_four_jokers_option() -> None:
    b = bombs(s3=[P("SJ SJ BJ BJ", CLASSIC), P("5555", CLASSIC)])
    r = score(CLASSIC, [1, 0, 3, 2], b)  # T = {1, 3}, partner 3rd: 单扣 ±2
    assert r.outcome is Outcome.SINGLE_WIN
    assert r.units == (-10, 10, -10, 10)  # 天王 x5 (default option)
    r4 = score(CLASSIC.replace(four_jokers_multiplier=4), [1, 0, 3, 2], b)
    assert r4.units == (-8, 8, -8, 8)


def test_classic_tie_is_zero_whatever_the_bombs() -> None:
    r = score(CLASSIC, [0, 1, 3, 2], bombs(s0=[P("88888888", CLASSIC)]))
    assert r.outcome is Outcome.TIE and r.units == (0, 0, 0, 0)


# -- R8.2 baibian -------------------------------------------------------------------------------
def test_baibian_single_win_multiplier_and_contributions() -> None:
    # Places 0,1,2,3: 单扣, base by place (2,-2,2,-2). T's 444455556666 (4相3连, 7★) -> x8.
    # Contributions: seat 2's 7★ +12/-4 each; seat 1's 555555 (6★) +6/-2 each.
    b = bombs(s2=[P("444455556666", BAIBIAN)], s1=[P("555555", BAIBIAN)])
    r = score(BAIBIAN, [0, 1, 2, 3], b)
    assert r.base == (2, -2, 2, -2) and r.multiplier == 8
    assert r.contribution_totals == (-6, 2, 10, -6)
    assert r.units == (16 - 6, -16 + 2, 16 + 10, -16 - 6) == (10, -14, 26, -22)
    assert r.zero_sum


def test_baibian_tie_is_not_zero_sum() -> None:
    r = score(BAIBIAN, [1, 0, 2, 3], bombs())  # T = {1,3}: places 1 and 4 get +1 (R8.2)
    assert r.outcome is Outcome.TIE and r.units == (0, 1, 0, 1) and not r.zero_sum


def test_baibian_double_win_8_star_and_base_unit() -> None:
    rules = BAIBIAN.replace(base_score=5)
    b = bombs(s3=[P("44444444", rules)])  # T = {1,3}; 8★: x16, contribution +18/-6
    r = score(rules, [3, 1, 0, 2], b)
    assert r.multiplier == 16
    assert r.units == (-64 - 6, 64 - 6, -64 - 6, 64 + 18)
    assert r.scores == tuple(5 * u for u in r.units)


def test_baibian_five_star_multiplier_no_contribution() -> None:
    r = score(BAIBIAN, [0, 2, 1, 3], bombs(s0=[P("77777", BAIBIAN)]))
    assert r.multiplier == 2 and r.contributions == () and r.units == (8, -8, 8, -8)


# -- R8.3 jj ------------------------------------------------------------------------------------
def test_jj_cumulative_multiplier_source_example() -> None:
    # The source's 6 x 3 x 2 = 36: 双扣 base 6, a 7★ (x3) and a 6★ (x2), from either team.
    b = bombs(s1=[P("555555", JJ)], s0=[P("444455556666", JJ)], s3=[P("5555", JJ)])
    r = score(JJ, [0, 2, 3, 1], b)
    assert r.multiplier == 6 and len(r.multiplier_bombs) == 2
    assert r.units == (36, -36, 36, -36) and r.contributions == ()


def test_jj_tie_and_single_win_option() -> None:
    r = score(JJ, [2, 1, 3, 0], bombs(s1=[P("666666", JJ)]))  # 平扣: places 1,4 +1, 2,3 -1; x2
    assert r.units == (2, -2, 2, -2)
    r = score(JJ, [1, 0, 3, 2], bombs(s0=[P("44444444", JJ)], s2=[P("44444444", JJ)]))
    assert r.units == (-48, 48, -48, 48)  # 单扣 3 x (4 x 4)
    r = score(JJ.replace(jj_single_win=4), [1, 0, 3, 2], bombs())
    assert r.units == (-4, 4, -4, 4)


# -- R8.4 qianbian ------------------------------------------------------------------------------
def test_qianbian_single_win_with_held_bomb() -> None:
    # T = {3,1}, 单扣 ±2; seat 1 played 44444444 (8★): x2^4 = 16 and 16 units from each other.
    # Seat 0 still holds 7777777 SJ = an 8★ bomb (SJ wild): +48 / -16 each. Seat 2's 3 4 5: none.
    b = bombs(s1=[P("44444444", QIANBIAN)])
    held = [Hand("7777777 SJ"), Hand(""), Hand("3 4 5"), Hand("")]
    r = score(QIANBIAN, [3, 0, 1, 2], b, held)
    assert r.multiplier == 16
    assert [c.held for c in r.contributions] == [False, True]
    assert r.units == (-32 - 16 + 48, 32 + 48 - 16, -32 - 16 - 16, 32 - 16 - 16) == (0, 64, -64, 0)
    # Without the option (house rule), the held bomb does not count.
    r2 = score(QIANBIAN.replace(held_bombs_score=False), [3, 0, 1, 2], b, held)
    assert r2.units == (-48, 80, -48, 16)


def test_qianbian_clamp_at_300_not_zero_sum() -> None:
    # 单扣, T = {0,2}; seat 0 played 8相3连 333333334444444455555555 (11★): x2^7 = 128, so
    # base 2 x 128 = 256, and 100 units from each other seat.
    p = P("33333333 44444444 55555555", QIANBIAN)
    assert p.stars == 11
    r = score(QIANBIAN, [0, 1, 2, 3], bombs(s0=[p]))
    assert r.unclamped == (556, -356, 156, -356)
    assert r.units == (300, -300, 156, -300)
    assert r.clamped == (True, True, False, True) and not r.zero_sum
    assert "capped" in r.breakdown()


def test_qianbian_twelve_star_double_win_clamped() -> None:
    p = P("33333333 SJ SJ BJ BJ", QIANBIAN)
    assert p.stars == 12
    r = score(QIANBIAN, [0, 2, 1, 3], bombs(s0=[p]))
    assert r.multiplier == 256 and r.units == (300, -300, 300, -300)


@pytest.mark.parametrize(
    "rules, units", [(CLASSIC, 12), (BAIBIAN, 12), (JJ, 18), (QIANBIAN, 15)]
)
def test_escape_penalty(rules: Rules, units: int) -> None:
    b = bombs(s0=[P("44444444", rules)])
    r = score(rules.replace(base_score=10), [0, 1, 2, 3], b, escape=2)
    assert r.outcome is Outcome.ESCAPE and r.name == "逃跑"
    assert r.units == (0, 0, -units, 0) and r.scores == (0, 0, -10 * units, 0)
    assert r.contributions == () and "abandoned" in r.breakdown()


def test_breakdown_and_dict_mention_everything() -> None:
    b = bombs(s2=[P("444455556666", BAIBIAN)], s1=[P("555555", BAIBIAN)])
    r = score(BAIBIAN, [0, 1, 2, 3], b)
    text = r.breakdown()
    for part in ("单扣", "×8", "4相3连", "contribution", "seat"):
        assert part in text
    d = r.to_dict()
    assert d["outcome"] == "单扣" and d["scores"] == list(r.scores)


def test_score_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        score(BAIBIAN, [0, 1, 2], bombs())
    with pytest.raises(ValueError):
        score(BAIBIAN, [0, 1, 2, 3], [[]])
    with pytest.raises(ValueError):
        score(BAIBIAN, [0, 1, 2, 3], bombs(), escape=7)


def test_contribution_tables() -> None:
    table = [contribution_units(s, "qianbian") for s in range(5, 14)]
    assert table == [0, 2, 6, 16, 30, 60, 100, 100, 100]
    assert [contribution_units(s, "baibian") for s in range(5, 10)] == [0, 2, 4, 6, 6]
    assert contribution_units(9, "jj") == 0 and contribution_units(9, "classic") == 0


# -- held bombs: exact best split (R8.4) ----------------------------------------------------------
@pytest.mark.parametrize(
    "cards, value",
    [
        # two 8相3连 (11★, 100 each) beat two 4相6连 (10★, 60 each) and one 8相6连 (14★, 100)
        ("444444445555555566666666777777778888888899999999", 200),
        ("7 SJ SJ BJ BJ", 6),  # 天王 (7★) beats 77777 (5★, nothing)
        ("33333333 SJ SJ BJ BJ", 100),  # 12★
        ("333333 444444 555555", 30),  # 6相3连 9★ beats three 6★ (2 each)
        ("3333 4444 555 BJ", 6),  # 4相3连 with a wild: 7★
        ("2222222 BJ", 16),
        ("3 4 5 6 7 8 9", 0),
        ("", 0),
    ],
)
def test_held_examples(cards: str, value: int) -> None:
    split = best_held_bombs(cards, QIANBIAN)
    assert split.per_seat == value
    assert sum(contribution_units(b.stars, "qianbian") for b in split.bombs) == value
    used = sum((b.play.cards for b in split.bombs), Hand(""))
    assert used.issubset(Hand(cards))


def brute_force(hand: Hand, rules: Rules) -> int:
    """Max total contribution over every collection of disjoint sub-multisets, each read by
    classify (the kernel's R3 reading) — no knowledge of bomb shapes at all."""
    counts = hand.counts
    candidates = []
    for sub in itertools.product(*(range(c + 1) for c in counts)):
        if sum(sub) < 3:
            continue
        readings = [p for p in classify(Hand.from_counts(sub), rules) if p.is_bomb]
        if readings:
            v = contribution_units(readings[0].stars, rules.scoring)
            if v > 0:
                candidates.append((sub, v))

    @cache
    def best(rem: tuple[int, ...]) -> int:
        top = 0
        for sub, v in candidates:
            if all(a <= b for a, b in zip(sub, rem)):
                top = max(top, v + best(tuple(b - a for a, b in zip(sub, rem))))
        return top

    return best(counts)


def random_small_hand(rnd: random.Random) -> Hand:
    counts = [0] * 15
    low = rnd.randrange(0, 11)
    n_ranks = rnd.choice([1, 2, 3, 3, 4])
    for r in range(low, min(low + n_ranks, 13)):
        counts[r] = rnd.choice([0, 2, 3, 4, 4, 5, 6])
    counts[13] = rnd.choice([0, 0, 1, 2])
    counts[14] = rnd.choice([0, 1, 2])
    while sum(counts) > 16:
        r = max(range(13), key=lambda i: counts[i])
        counts[r] -= 1
    return Hand.from_counts(counts)


@pytest.mark.parametrize("preset", ["qianbian", "baibian"])
def test_held_split_equals_brute_force(preset: str) -> None:
    rules = Rules.preset(preset).replace(held_bombs_score=True)
    rnd = random.Random(8)
    fixed = [Hand("3333 4444 5555 SJ BJ"), Hand("9999 TTTT JJJ SJ SJ BJ"), Hand("AAAAA 2222 BJ BJ"),
             Hand("555555 666 SJ SJ BJ")]
    for hand in fixed + [random_small_hand(rnd) for _ in range(14)]:
        got = best_held_bombs(hand, rules)
        assert got.per_seat == brute_force(hand, rules), str(hand)
        # The split is real: disjoint parts of the hand, each a bomb worth what it claims.
        used = sum((b.play.cards for b in got.bombs), Hand(""))
        assert used.issubset(hand)
        for b in got.bombs:
            assert b.play in classify(b.play.cards, rules) and b.play.stars == b.stars
