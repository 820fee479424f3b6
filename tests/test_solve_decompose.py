"""sk.decompose (手数) against a brute-force oracle: every partition of the hand into card sets
that the reference oracle reads as a play (R2/R3), on random hands of up to 12 cards, every
preset, both the plain count and the keep-bombs valued split; and the sweep of
``_decompose.pxd`` against the first, exponential search (``_solve.reference_costs``) on bigger
hands, on full deals (its costs recorded in tests/data/decompose.json) and on the hands that
took it seconds to minutes."""

from __future__ import annotations

import itertools
import json
import random
import signal
import threading
from functools import cache
from pathlib import Path

import pytest

from shuangkou import Hand, Kind, Rules, State, _solve, classify, decompose
from shuangkou._reference import readings
from shuangkou.cards import MAX_COPIES
from tests.budget import budget
from tests.conftest import PRESET_NAMES, seeded_deal


def brute_force(hand: Hand, flags: int) -> tuple[int, int]:
    """(fewest plays, most bomb cards among the splits with that many plays): exhaustive over
    sub-multisets, each part read by the reference oracle (no kernel code involved)."""
    full = hand.counts

    @cache
    def best(counts: tuple[int, ...]) -> tuple[int, int]:
        if not any(counts):
            return (0, 0)
        low = next(r for r in range(15) if counts[r] and (r < 13 or not any(counts[:13])))
        result = (10**9, 0)
        ranges = [range(c + 1) for c in counts]
        ranges[low] = range(1, counts[low] + 1)  # the part holding the lowest card
        for part in itertools.product(*ranges):
            tags = readings(part, flags)
            if not tags:
                continue
            rest = tuple(c - p for c, p in zip(counts, part))
            n, neg_bomb_cards = best(rest)
            if tags[0] & 15 >= Kind.BOMB:
                neg_bomb_cards -= sum(part)
            cand = (n + 1, neg_bomb_cards)
            if cand < result:
                result = cand
        return result

    n, neg_bomb_cards = best(full)
    return n, -neg_bomb_cards


def biased_hand(rng: random.Random, size: int) -> Hand:
    """Cards from a narrow rank window plus jokers: chains, bombs and wild readings abound."""
    lo = rng.randrange(0, 11)
    pool = [r for r in range(lo, min(lo + 5, 13)) for _ in range(8)] + [13, 13, 14, 14]
    counts = [0] * 15
    for r in rng.sample(pool, size):
        counts[r] += 1
    return Hand.from_counts(counts)


def check(hand: Hand, rules: Rules) -> None:
    n, bomb_cards = brute_force(hand, rules.flags)
    plain = decompose(hand, rules)
    valued = decompose(hand, rules, keep_bombs=True)
    assert plain.count == n, (str(hand), plain)
    assert valued.count == n, (str(hand), valued)
    assert valued.bomb_cards == bomb_cards, (str(hand), valued)
    for d in (plain, valued):
        assert len(d.plays) == d.count
        assert sum((p.cards for p in d.plays), Hand()) == hand
        for p in d.plays:  # every part is a genuine reading of its cards
            assert p in classify(p.cards, rules)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_decompose_equals_brute_force_on_random_hands(preset: str) -> None:
    rules = Rules.preset(preset)
    rng = random.Random(f"decompose-{preset}")
    for i in range(budget(ci=60, full=400)):
        size = rng.randint(1, 12)
        hand = seeded_deal(rng.randrange(1 << 30), size) if i % 2 else biased_hand(rng, size)
        check(hand, rules)


@pytest.mark.parametrize(
    "preset, text, count",
    [
        ("classic", "3 4 5 6 7 7 7 7 7", 2),           # 34567 + 7777
        ("classic", "3 3 4 4 5 5 SJ BJ", 3),           # 334455 + SJ + BJ (no SJ+BJ pair)
        ("baibian", "3 3 4 4 5 5 SJ BJ", 2),           # 334455 + SJ BJ (pair of SJ, R3)
        ("baibian", "4 4 4 4 5 5 5 5 6 6 6 BJ", 1),    # 4相3连 with a wild (R9.5)
        ("baibian", "3 4 5 6 7 9 9 9 BJ", 2),          # 3..7 + 999 BJ (bomb 9999)
        ("qianbian", "3 4 SJ SJ BJ BJ", 1),            # straight 3..8 or 334455 (R9.8)
        ("classic", "SJ SJ BJ BJ", 1),                 # 天王
    ],
)
def test_decompose_worked_examples(preset: str, text: str, count: int) -> None:
    rules = Rules.preset(preset)
    assert decompose(text, rules).count == count
    assert brute_force(Hand.parse(text), rules.flags)[0] == count


def test_keep_bombs_prefers_whole_bombs() -> None:
    # classic 7777 8888 99: three plays either as 7777 + 8888 + 99 or as 778899 + 77 + 88; the
    # valued split keeps both bombs (8 bomb cards), the count is 3 both ways
    rules = Rules.preset("classic")
    d = decompose("7 7 7 7 8 8 8 8 9 9", rules, keep_bombs=True)
    assert d.count == 3 and d.bomb_cards == 8
    assert sorted(str(p) for p in d.plays) == ["7 7 7 7", "8 8 8 8", "9 9"]
    # 百变 3 4 5 6 7 7 7 7 BJ: two plays as 3..8 (BJ for 8) + 777 or as 34567 + 777 BJ (a bomb
    # 7777); the valued split keeps the bomb
    d = decompose("3 4 5 6 7 7 7 7 BJ", Rules.preset("baibian"), keep_bombs=True)
    assert d.count == 2 and d.bomb_cards == 4


def test_empty_hand() -> None:
    d = decompose("", Rules.preset("baibian"))
    assert d.count == 0 and d.plays == ()


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_decompose_full_deals_are_valid_splits(preset: str) -> None:
    """27-card deals are beyond the oracle; the split must still be a partition of the hand
    into genuine plays, and the valued split must have the same count."""
    rules = Rules.preset(preset)
    for seed in range(budget(ci=3, full=50)):
        hand = seeded_deal(seed)
        d = decompose(hand, rules)
        assert sum((p.cards for p in d.plays), Hand()) == hand
        assert all(p in classify(p.cards, rules) for p in d.plays)
        assert decompose(hand, rules, keep_bombs=True).count == d.count == len(d.plays)


def costs(hand: Hand, rules: Rules) -> tuple[int, int]:
    return tuple(_solve.decompose_cost(hand.packed, rules.flags, kb) for kb in (False, True))


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_decompose_equals_the_reference_search(preset: str) -> None:
    """13..18 cards: beyond brute force, within the first search's reach."""
    rules = Rules.preset(preset)
    rng = random.Random(f"reference-{preset}")
    for i in range(budget(ci=30, full=300)):
        size = rng.randint(13, 18)
        hand = seeded_deal(rng.randrange(1 << 30), size) if i % 2 else biased_hand(rng, size)
        want = tuple(_solve.reference_costs(hand.packed, rules.flags, kb, [0])[0]
                     for kb in (False, True))
        assert costs(hand, rules) == want, str(hand)


def test_decompose_equals_the_recorded_reference_on_full_deals() -> None:
    data = json.loads((Path(__file__).parent / "data" / "decompose.json").read_text())
    for row in data["hands"]:
        rules = Rules.preset(row["preset"])
        hand = Hand.parse(row["hand"])
        assert costs(hand, rules) == (row["count_cost"], row["valued_cost"]), row


# The hands the first search took seconds to minutes on; counts and valued costs by
# _solve.reference_costs (run once, without a limit: 6 s to several minutes each).
WORST = [
    ("qianbian", "33445566778899TTJJQQKKA X X D D", 2, 251),
    ("qianbian", str(State.deal("qianbian", 8).hand(3)), 4, 512),
    ("baibian", "33445566778899TTJJQQKKAXXDD", 2, 253),
    # the slowest of 600 百变 deals for it (State.deal("baibian", 12).hand(1))
    ("baibian", "3 4 4 4 4 4 5 5 6 7 8 9 9 9 9 10 10 J Q K K K A 2 SJ BJ BJ", 8, 1015),
]


@pytest.mark.parametrize("preset, text, count, valued", WORST)
def test_worst_hands(preset: str, text: str, count: int, valued: int) -> None:
    rules = Rules.preset(preset)
    hand = Hand.parse(text)
    plain = decompose(hand, rules)
    kept = decompose(hand, rules, keep_bombs=True)
    assert plain.count == kept.count == count
    assert kept.bomb_cards == _solve.UNIT * count - valued
    # bounded by the ranks, not the sub-hands: a few thousand states at most
    assert _solve.decompose_stats(hand.packed, rules.flags, True)[1] < 5_000
    for d in (plain, kept):
        assert sum((p.cards for p in d.plays), Hand()) == hand
        assert all(p in classify(p.cards, rules) for p in d.plays)


def test_whole_deck_is_bounded() -> None:
    """All 108 cards in one hand (far past a deal): still an exact answer, no runaway."""
    hand = Hand.from_counts(list(MAX_COPIES))
    d = decompose(hand, Rules.preset("classic"))
    assert d.count == len(d.plays) and sum((p.cards for p in d.plays), Hand()) == hand


@pytest.mark.usefixtures("sigint_raises")  # even when the suite runs with SIGINT ignored
def test_ctrl_c_stops_a_long_decomposition() -> None:
    """The whole deck in 千变 takes about a second: SIGINT after 50 ms raises
    KeyboardInterrupt from inside the C loop (the budget's signal check)."""
    hand = Hand.from_counts(list(MAX_COPIES))
    rules = Rules.preset("qianbian")
    timer = threading.Timer(0.05, signal.raise_signal, (signal.SIGINT,))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            for _ in range(100):
                decompose(hand, rules)
    finally:
        timer.cancel()


def test_bad_words_are_refused() -> None:
    flags = Rules.preset("baibian").flags
    hand = Hand.parse("3 3 4").packed
    with pytest.raises(ValueError, match="not part of the hand"):
        _solve.decompose_costs(hand, flags, True, [Hand.parse("5").packed])
    with pytest.raises(ValueError, match="cards word"):
        _solve.decompose_cost(0xF, flags, True)  # 15 threes


def test_house_rules_equal_the_reference_search() -> None:
    """Any rules word (house rules: stars without wilds, only the small jokers wild, ...):
    the sweep's costs and split against the first search."""
    rng = random.Random("house")
    for i in range(budget(ci=60, full=600)):
        flags = rng.randrange(64)
        size = rng.randint(4, 16)
        hand = seeded_deal(rng.randrange(1 << 30), size) if i % 2 else biased_hand(rng, size)
        for kb in (False, True):
            want = _solve.reference_costs(hand.packed, flags, kb, [0])[0]
            n, cost, words, tags = _solve.decompose_split(hand.packed, flags, kb)
            assert cost == want == _solve.decompose_cost(hand.packed, flags, kb), (flags, str(hand))
            assert sum(words) == hand.packed and all(tags) and n == len(words)


def test_keep_bombs_takes_numpys_bools_as_solve_does() -> None:
    """A hostile check's finding: ``keep_bombs=np.True_`` was refused where ``solve``'s
    flags take numpy's bools; "yes" and 1 are still refused."""
    import numpy as np

    from shuangkou import decompose
    from shuangkou.errors import ArgumentError

    assert decompose("7 7 7 7 3", "baibian", keep_bombs=np.True_) == decompose(
        "7 7 7 7 3", "baibian", keep_bombs=True)
    for bad in ("yes", 1):
        with pytest.raises(ArgumentError, match="keep_bombs"):
            decompose("3", "baibian", keep_bombs=bad)  # type: ignore[arg-type]
