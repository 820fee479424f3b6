"""Kernel tests: the rulebook's examples (R3, R5, R9) through the public API, the error paths
of ``shuangkou._core``, and differential tests of the kernel against the pure-Python oracle
``shuangkou._reference`` (same (cards word, tag) set, exactly).

Expected values below are written from RULES.md, not from running the kernel.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shuangkou import Hand, Kind, Play, Rank, Rules, classify, legal_plays
from shuangkou import _core as core
from shuangkou import _reference as ref
from shuangkou import rules as rules_mod
from shuangkou.cards import MAX_COPIES

from .conftest import PRESET_NAMES, hands, seeded_deal

BAIBIAN = Rules.preset("baibian")
QIANBIAN = Rules.preset("qianbian")
CLASSIC = Rules.preset("classic")
FLAGS = {name: Rules.preset(name).flags for name in PRESET_NAMES}


def reading(text: str, rules: Rules = BAIBIAN) -> tuple[tuple[Kind, int, int, int, int], ...]:
    """(kind, top, size, width, length) of every reading of a card set."""
    return tuple(p.reading for p in classify(text, rules))


def stars(text: str, rules: Rules = BAIBIAN) -> int:
    (p,) = classify(text, rules)
    return p.stars


def play(text: str, rules: Rules = BAIBIAN) -> Play:
    (p,) = classify(text, rules)
    return p


# -- R9 worked examples ---------------------------------------------------------------------
class TestR9:
    def test_1_jokers(self):
        assert reading("BJ") == ((Kind.SINGLE, Rank.BIG_JOKER, 1, 1, 1),)
        assert reading("SJ BJ") == ((Kind.PAIR, Rank.SMALL_JOKER, 2, 2, 1),)
        assert reading("BJ BJ") == ((Kind.PAIR, Rank.BIG_JOKER, 2, 2, 1),)
        assert reading("SJ SJ BJ")[0][0] == Kind.THREE_JOKERS
        assert stars("SJ SJ BJ") == 6

    def test_2_one_rank_with_wilds(self):
        assert reading("3 3 BJ") == ((Kind.TRIPLE, Rank.THREE, 3, 3, 1),)
        assert reading("2 2 2 BJ") == ((Kind.BOMB, Rank.TWO, 4, 4, 1),)
        assert stars("2 2 2 BJ") == 4
        assert reading("7 7 7 7 BJ") == ((Kind.BOMB, Rank.SEVEN, 5, 5, 1),)
        assert stars("7 7 7 7 BJ") == 5

    def test_3_straights(self):
        assert reading("4 5 6 7 8 BJ") == ((Kind.STRAIGHT, Rank.NINE, 6, 1, 6),)
        assert reading("J Q K A BJ") == ((Kind.STRAIGHT, Rank.ACE, 5, 1, 5),)
        assert reading("Q K A 2 BJ") == ()

    def test_4_pair_chains(self):
        assert reading("3 3 4 4 BJ") == ()
        assert reading("3 3 4 5 BJ BJ") == ((Kind.PAIR_CHAIN, Rank.FIVE, 6, 2, 3),)

    def test_5_chain_bombs(self):
        expected = ((Kind.CHAIN_BOMB, Rank.SIX, 12, 4, 3),)
        assert reading("4444 5555 6666") == expected
        assert stars("4444 5555 6666") == 7
        assert reading("4444 5555 666 BJ") == expected
        assert reading("44444 5555 6666") == ()
        assert reading("44444 5555 6666", QIANBIAN) == ((Kind.CHAIN_BOMB, Rank.SIX, 13, 4, 3),)
        assert stars("44444 5555 6666", QIANBIAN) == 7

    def test_6_baibian_order(self):
        chain, seven, tian, eight = (
            play(t) for t in ("444455556666", "6666666", "SJ SJ BJ BJ", "44444444")
        )
        assert seven.beats(chain, BAIBIAN) and not chain.beats(seven, BAIBIAN)
        assert tian.beats(seven, BAIBIAN) and not seven.beats(tian, BAIBIAN)
        assert eight.beats(tian, BAIBIAN) and not tian.beats(eight, BAIBIAN)
        assert play("333333").beats(play("SJ SJ BJ"), BAIBIAN)
        assert not play("SJ SJ BJ").beats(play("333333"), BAIBIAN)

    def test_7_classic(self):
        assert play("44444", CLASSIC).beats(play("KKKK", CLASSIC), CLASSIC)
        assert play("SJ SJ BJ BJ", CLASSIC).beats(play("22222222", CLASSIC), CLASSIC)
        assert not play("22222222", CLASSIC).beats(play("SJ SJ BJ BJ", CLASSIC), CLASSIC)
        assert reading("BJ 3", CLASSIC) == ()
        assert play("SJ SJ BJ BJ", CLASSIC).stars == 0

    def test_8_qianbian_two_readings(self):
        assert reading("3 4 SJ SJ BJ BJ", QIANBIAN) == (
            (Kind.STRAIGHT, Rank.EIGHT, 6, 1, 6),
            (Kind.PAIR_CHAIN, Rank.FIVE, 6, 2, 3),
        )
        assert reading("7 SJ SJ BJ BJ", QIANBIAN) == ((Kind.BOMB, Rank.SEVEN, 5, 5, 1),)
        plays = legal_plays("3 4 SJ SJ BJ BJ", QIANBIAN)
        full = Hand("3 4 SJ SJ BJ BJ")
        assert sorted(p.kind for p in plays if p.cards == full) == [
            Kind.STRAIGHT, Kind.PAIR_CHAIN,
        ]

    def test_9_answer(self):
        table = play("5 6 7 8 9")
        plays = legal_plays("3 3 6 7 8 9 BJ", BAIBIAN, table)
        assert [(str(p.cards), p.reading) for p in plays] == [
            ("6 7 8 9 BJ", (Kind.STRAIGHT, Rank.TEN, 5, 1, 5))
        ]
        assert not play("3 3 BJ").beats(table, BAIBIAN)

    def test_10_seven_plays(self):
        plays = legal_plays("5 5 5 BJ", BAIBIAN)
        got = sorted((str(p.cards), p.kind) for p in plays)
        assert got == sorted([
            ("5", Kind.SINGLE), ("BJ", Kind.SINGLE), ("5 5", Kind.PAIR), ("5 BJ", Kind.PAIR),
            ("5 5 5", Kind.TRIPLE), ("5 5 BJ", Kind.TRIPLE), ("5 5 5 BJ", Kind.BOMB),
        ])


# -- R3 and R5 examples ---------------------------------------------------------------------
class TestR3:
    def test_biggest_reading(self):
        assert reading("7777+BJ") == ((Kind.BOMB, Rank.SEVEN, 5, 5, 1),)
        assert reading("45678+BJ") == ((Kind.STRAIGHT, Rank.NINE, 6, 1, 6),)
        assert reading("77899+BJ") == ((Kind.PAIR_CHAIN, Rank.NINE, 6, 2, 3),)
        assert reading("77+8+9+BJ+BJ") == ((Kind.PAIR_CHAIN, Rank.NINE, 6, 2, 3),)
        assert reading("SJ+BJ") == ((Kind.PAIR, Rank.SMALL_JOKER, 2, 2, 1),)
        assert reading("SJ SJ BJ")[0][0] == Kind.THREE_JOKERS
        assert reading("3344+BJ") == ()

    def test_wild_alone_is_itself(self):
        for rules in (BAIBIAN, QIANBIAN):
            assert reading("BJ", rules) == ((Kind.SINGLE, Rank.BIG_JOKER, 1, 1, 1),)
        assert reading("SJ", QIANBIAN) == ((Kind.SINGLE, Rank.SMALL_JOKER, 1, 1, 1),)

    def test_sj_bj_is_no_pair_in_classic(self):
        assert reading("SJ BJ", CLASSIC) == ()
        assert reading("SJ SJ BJ", CLASSIC) == ()  # no 三王 without stars (R6)

    def test_small_joker_is_not_wild_in_baibian(self):
        assert reading("5 SJ") == ()
        assert reading("5 SJ", QIANBIAN) == ((Kind.PAIR, Rank.FIVE, 2, 2, 1),)

    def test_two_plain_kinds_qianbian(self):
        assert reading("3 4 5 X D D", QIANBIAN) == (
            (Kind.STRAIGHT, Rank.EIGHT, 6, 1, 6),
            (Kind.PAIR_CHAIN, Rank.FIVE, 6, 2, 3),
        )
        assert reading("33 44 55 66 X X D D", QIANBIAN) == (
            (Kind.PAIR_CHAIN, Rank.EIGHT, 12, 2, 6),
            (Kind.TRIPLE_CHAIN, Rank.SIX, 12, 3, 4),
        )

    def test_tied_chain_bomb_splits_take_larger_x(self):
        (p,) = classify("QQQQ KKKK AAAA X X D D", QIANBIAN)
        assert p.reading == (Kind.CHAIN_BOMB, Rank.ACE, 16, 5, 3)
        assert p.stars == 8 and p.wilds == 4

    def test_same_reading_different_cards_are_two_plays(self):
        pairs = [p for p in legal_plays("5 5 BJ", BAIBIAN) if p.kind == Kind.PAIR]
        assert sorted(str(p.cards) for p in pairs if p.top == Rank.FIVE) == ["5 5", "5 BJ"]

    def test_wilds_field(self):
        assert play("7 7 7 7 BJ").wilds == 1
        assert play("SJ BJ").wilds == 1
        assert play("SJ SJ BJ").wilds == 0
        assert play("4 5 6 7 8 BJ").wilds == 1


class TestR5:
    def test_baibian_examples(self):
        assert play("6666666").beats(play("444455556666"), BAIBIAN)
        tian = play("SJ SJ BJ BJ")
        assert tian.beats(play("6666666"), BAIBIAN) and tian.beats(play("444455556666"), BAIBIAN)
        assert play("555555").beats(play("SJ SJ BJ"), BAIBIAN)
        assert play("44444444").beats(tian, BAIBIAN)
        assert play("22222").beats(play("AAAAA"), BAIBIAN)
        assert not play("AAAAA").beats(play("22222"), BAIBIAN)

    def test_qianbian_more_cards_and_small_tianwang(self):
        chain = play("444455556666", QIANBIAN)
        seven = play("6666666", QIANBIAN)
        tian = play("SJ SJ BJ BJ", QIANBIAN)
        assert chain.beats(seven, QIANBIAN) and not seven.beats(chain, QIANBIAN)
        assert seven.beats(tian, QIANBIAN) and chain.beats(tian, QIANBIAN)
        assert not tian.beats(seven, QIANBIAN)

    def test_star_levels(self):
        assert stars("4444 5555 6666 7777 8888 9999") == 10  # 4相6连
        assert stars("55555 66666 77777 88888 99999") == 10  # 5相5连
        assert stars("88888888 99999999 TTTTTTTT") == 11  # 8相3连

    def test_equal_is_not_bigger(self):
        for text in ("5", "5 5", "3 4 5 6 7", "5555", "SJ SJ BJ BJ", "444455556666"):
            assert not play(text).beats(play(text), BAIBIAN)
        assert not play("5 BJ").beats(play("5 5"), BAIBIAN)

    def test_plain_needs_same_kind_and_size(self):
        assert not play("4 5 6 7 8 9").beats(play("3 4 5 6 7"), BAIBIAN)
        assert not play("6 6").beats(play("5"), BAIBIAN)
        assert play("2").beats(play("A"), BAIBIAN)
        assert play("SJ").beats(play("2"), BAIBIAN) and play("BJ").beats(play("SJ"), BAIBIAN)
        assert play("5555").beats(play("3 4 5 6 7 8 9 10 J Q K A"), BAIBIAN)

    def test_classic_order(self):
        assert play("33333", CLASSIC).beats(play("2222", CLASSIC), CLASSIC)
        assert play("SJ SJ BJ BJ", CLASSIC).beats(play("33333333", CLASSIC), CLASSIC)
        assert reading("4444 5555 6666", CLASSIC) == ()  # no chain bombs in classic


# -- the Python-visible kernel functions: constants and error paths --------------------------
def test_flag_constants_agree_with_rules():
    for name in ("FLAG_WILD_SJ", "FLAG_WILD_BJ", "FLAG_STARS", "FLAG_UNEVEN",
                 "FLAG_MORE_CARDS_BIGGER", "FLAG_FOUR_JOKERS_SMALLEST"):
        assert getattr(core, name) == getattr(rules_mod, name)
    assert core.NO_TABLE == 0


BAD_WORDS = [
    -1,
    1 << 60,
    9,  # nine 3s
    9 << (4 * 12),  # nine 2s
    3 << (4 * 13),  # three small jokers
    3 << (4 * 14),  # three big jokers
]


@pytest.mark.parametrize("word", BAD_WORDS)
def test_bad_cards_word(word):
    f = FLAGS["baibian"]
    with pytest.raises(ValueError):
        core.classify(word, f)
    with pytest.raises(ValueError):
        core.generate(word, f, 0, False)
    with pytest.raises(ValueError):
        core.count(word, f, 0, True)
    with pytest.raises(ValueError):
        core.generate_into(word, f, 0, False, np.zeros(4, np.uint64), np.zeros(4, np.uint32))


@pytest.mark.parametrize("flags", [-1, 64, 1 << 40, rules_mod.FLAG_UNEVEN])
def test_bad_flags(flags):
    with pytest.raises(ValueError):
        core.classify(1, flags)
    with pytest.raises(ValueError):
        core.count(1, flags, 0, False)
    with pytest.raises(ValueError):
        core.beats(1 << 8 | 1 << 22, 0, flags)


@pytest.mark.parametrize("table", [-1, 1 << 31, 10 | 1 << 8 | 1 << 22, 1 << 22, 1 << 8])
def test_bad_table(table):
    f = FLAGS["qianbian"]
    with pytest.raises(ValueError):
        core.generate(0x11, f, table, False)
    with pytest.raises(ValueError):
        core.beats(play("5").tag, table, f)


def test_beats_needs_a_play():
    with pytest.raises(ValueError):
        core.beats(0, play("5").tag, FLAGS["baibian"])
    assert core.beats(play("5").tag, 0, FLAGS["baibian"])  # anything beats a free lead


def test_non_int_arguments():
    with pytest.raises(TypeError):
        core.classify("3 3", FLAGS["baibian"])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        core.count(0, 2.0, 0, False)  # type: ignore[arg-type]


def test_empty_hand_and_set():
    for f in FLAGS.values():
        assert core.classify(0, f) == []
        assert core.generate(0, f, 0, False) == ([], [])
        assert core.count(0, f, 0, True) == 0


def test_generate_into_and_batches():
    f = FLAGS["qianbian"]
    hand = seeded_deal(3).packed
    words, tags = core.generate(hand, f, 0, False)
    total = len(words)
    assert total == core.count(hand, f, 0, False) > 20
    w = np.zeros(total + 5, np.uint64)
    t = np.zeros(total + 5, np.uint32)
    assert core.generate_into(hand, f, 0, False, w, t) == total
    assert w[:total].tolist() == words and t[:total].tolist() == tags
    assert not w[total:].any()
    small_w = np.zeros(10, np.uint64)
    small_t = np.zeros(7, np.uint32)
    assert core.generate_into(hand, f, 0, False, small_w, small_t) == total  # writes 7
    assert small_w[:7].tolist() == words[:7] and not small_w[7:].any()
    assert core.generate_into(hand, f, 0, False, w[:0], t[:0]) == total

    deals = np.array([seeded_deal(s).packed for s in range(20)], np.uint64)
    tables = np.array([0, Play.parse("5 5", Rules.preset("qianbian")).tag] * 10, np.uint32)
    out = core.count_many(deals, f, tables, True)
    assert out.tolist() == [core.count(int(h), f, int(t), True) for h, t in zip(deals, tables)]
    offsets, words_b, tags_b = core.generate_batch(deals, f, tables, True)
    for i, (h, t) in enumerate(zip(deals, tables)):
        part = slice(offsets[i], offsets[i + 1])
        got = (words_b[part].tolist(), tags_b[part].tolist())
        assert got == core.generate(int(h), f, int(t), True)
    with pytest.raises(ValueError, match="tables"):
        core.count_many(deals, f, tables[:5], True)
    bad = deals.copy()
    bad[4] = 9
    with pytest.raises(ValueError, match=r"hands\[4\]"):
        core.count_many(bad, f, tables, True)
    bad_tables = tables.copy()
    bad_tables[3] = 15  # kind 15, no width
    with pytest.raises(ValueError, match=r"tables\[3\]"):
        core.generate_batch(deals, f, bad_tables, True)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_every_cap_writes_the_first_plays_and_nothing_past_it(preset):
    """The generators check each batch of plays against the buffer once when it fits whole
    (docs/internals.md): for every cap, the buffer gets the list's first ``cap`` plays and
    nothing past them, the total is returned, and ``nth`` stops at each play. Hands with no,
    some and all four jokers, leading and answering."""
    f = FLAGS[preset]
    rules = Rules.preset(preset)
    hands_ = [seeded_deal(s).packed for s in range(2)] + [
        Hand.from_counts([3, 4, 4, 3, 2, 1, 0, 5, 2, 2, 1, 1, 0, 2, 2]).packed]
    for hand in hands_:
        for table in (0, Play.parse("6", rules).tag, Play.parse("4 4 4 4", rules).tag):
            words, tags = core.generate(hand, f, table, False)
            total = len(words)
            caps = sorted(set(range(min(total, 80) + 1)) | set(range(0, total + 2, 7)))
            for cap in caps:
                w = np.zeros(total + 8, np.uint64)
                t = np.zeros(total + 8, np.uint32)
                assert core.generate_into(hand, f, table, False, w[:cap], t[:cap]) == total
                keep = min(cap, total)
                assert w[:keep].tolist() == words[:keep] and t[:keep].tolist() == tags[:keep]
                assert not w[keep:].any() and not t[keep:].any()
            for k in range(min(total, 80)):
                assert core.nth(hand, f, table, False, k) == (words[k], tags[k])


def test_large_output_goes_past_the_stack_buffer():
    f = FLAGS["qianbian"]
    hand = Hand.from_counts([3] * 12 + [0, 2, 2]).packed  # thousands of sequences
    words, tags = core.generate(hand, f, 0, False)
    assert len(words) == core.count(hand, f, 0, False) > 2048
    assert len(set(zip(words, tags))) == len(words)


# -- differential: kernel == oracle ---------------------------------------------------------
def describe(word: int, tag: int) -> str:
    p = Play._from_codes(word, tag)
    return f"{p.cards!s:<40} {p.describe()} (wilds {p.wilds}, tag {tag:#x})"


def assert_same_plays(hand: int, flags: int, table: int, fewest: bool) -> None:
    kw, kt = core.generate(hand, flags, table, fewest)
    rw, rt = ref.generate(hand, flags, table, fewest)
    kernel = list(zip(kw, kt))
    oracle = set(zip(rw, rt))
    dupes = len(kernel) - len(set(kernel))
    if set(kernel) != oracle or dupes:
        lines = [
            f"hand {Hand.from_packed(hand)} flags {flags:#x} fewest {fewest} table "
            + (describe(0, table) if table else "none"),
            f"kernel {len(kernel)} plays ({dupes} duplicated), oracle {len(oracle)}",
        ]
        lines += ["  oracle only: " + describe(*p) for p in sorted(oracle - set(kernel))]
        lines += ["  kernel only: " + describe(*p) for p in sorted(set(kernel) - oracle)]
        pytest.fail("\n".join(lines))
    assert core.count(hand, flags, table, fewest) == len(kernel)


@st.composite
def chain_heavy_hands(draw: st.DrawFn) -> Hand:
    """5+ copies of 3..4 consecutive ranks, some jokers, a few other cards (≤ 27 cards)."""
    counts = [0] * 15
    y = draw(st.integers(3, 4))
    low = draw(st.integers(0, 12 - y))
    for r in range(low, low + y):
        counts[r] = draw(st.integers(4 if y == 4 else 5, 8 if y == 3 else 6))
    counts[13] = draw(st.integers(0, 2))
    counts[14] = draw(st.integers(0, 2))
    for r in draw(st.lists(st.integers(0, 12), max_size=3)):
        if counts[r] < MAX_COPIES[r] and sum(counts) < 27:
            counts[r] += 1
    return Hand.from_counts(counts)


@st.composite
def wild_heavy_hands(draw: st.DrawFn) -> Hand:
    """All four jokers plus up to 14 naturals, often bunched on a few ranks."""
    counts = [0] * 13 + [2, 2]
    low = draw(st.integers(0, 9))
    span = draw(st.integers(2, 8))
    for _ in range(draw(st.integers(0, 14))):
        r = draw(st.integers(low, min(12, low + span)))
        counts[r] = min(8, counts[r] + 1)
    return Hand.from_counts(counts)


DIFF_SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _check_lead_and_answers(data: st.DataObject, hand: Hand, flags: int) -> None:
    for fewest in (False, True):
        assert_same_plays(hand.packed, flags, 0, fewest)
    _, tags = ref.generate(hand.packed, flags, 0, False)
    if tags:
        for table in data.draw(st.lists(st.sampled_from(tags), min_size=1, max_size=3)):
            assert_same_plays(hand.packed, flags, table, data.draw(st.booleans()))


@pytest.mark.parametrize("preset", PRESET_NAMES)
@DIFF_SETTINGS
@given(hand=hands(max_cards=27), data=st.data())
def test_differential_random_hands(preset, hand, data):
    _check_lead_and_answers(data, hand, FLAGS[preset])


@pytest.mark.parametrize("preset", PRESET_NAMES)
@DIFF_SETTINGS
@given(hand=wild_heavy_hands(), data=st.data())
def test_differential_wild_heavy(preset, hand, data):
    _check_lead_and_answers(data, hand, FLAGS[preset])


@pytest.mark.parametrize("preset", PRESET_NAMES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hand=chain_heavy_hands(), data=st.data())
def test_differential_chain_bomb_heavy(preset, hand, data):
    _check_lead_and_answers(data, hand, FLAGS[preset])


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_differential_seeded_deals(preset):
    flags = FLAGS[preset]
    for seed in range(8):
        hand = seeded_deal(1000 + seed).packed
        for fewest in (False, True):
            assert_same_plays(hand, flags, 0, fewest)
        _, tags = ref.generate(hand, flags, 0, False)
        for table in random.Random(seed).sample(tags, 4):
            assert_same_plays(hand, flags, table, False)


@pytest.mark.parametrize("preset", PRESET_NAMES)
@settings(max_examples=150, deadline=None)
@given(cards=hands(max_cards=16))
def test_classify_matches_oracle(preset, cards):
    flags = FLAGS[preset]
    assert core.classify(cards.packed, flags) == ref.classify(cards.packed, flags)


@pytest.mark.parametrize("preset", PRESET_NAMES)
@settings(max_examples=150, deadline=None)
@given(a=hands(max_cards=14), b=hands(max_cards=14))
def test_beats_matches_oracle(preset, a, b):
    flags = FLAGS[preset]
    for ta in core.classify(a.packed, flags):
        for tb in core.classify(b.packed, flags):
            assert core.beats(ta, tb, flags) == ref.beats(ta, tb, flags)


# -- self-consistency, independent of the oracle: generate == classify every subset ----------
def brute_force(hand: int, flags: int, table: int, fewest: bool) -> set[tuple[int, int]]:
    counts = [(hand >> (4 * r)) & 15 for r in range(15)]
    plays = []
    for sub in itertools.product(*(range(c + 1) for c in counts)):
        word = sum(c << (4 * r) for r, c in enumerate(sub))
        plays += [(word, t) for t in core.classify(word, flags)]
    if fewest:
        best: dict[tuple[int, ...], tuple[int, int]] = {}
        for word, tag in plays:
            p = Play._from_codes(word, tag)
            key = (p.kind, p.top, p.size, p.width, p.length)
            cost = (p.wilds, word >> 56 & 15, word)
            if key not in best or cost < (best[key][1] >> 28 & 7, best[key][0] >> 56, best[key][0]):
                best[key] = (word, tag)
        plays = list(best.values())
    return {p for p in plays if core.beats(p[1], table, flags)} if table else set(plays)


@pytest.mark.parametrize("preset", PRESET_NAMES)
@settings(max_examples=80, deadline=None)
@given(hand=hands(max_cards=11), data=st.data())
def test_generate_is_classify_of_every_subset(preset, hand, data):
    flags = FLAGS[preset]
    for fewest in (False, True):
        words, tags = core.generate(hand.packed, flags, 0, fewest)
        assert len(words) == len(set(zip(words, tags)))
        assert set(zip(words, tags)) == brute_force(hand.packed, flags, 0, fewest)
        if tags:
            table = data.draw(st.sampled_from(tags))
            got = set(zip(*core.generate(hand.packed, flags, table, fewest)))
            assert got == brute_force(hand.packed, flags, table, fewest)


# -- Play objects (issue #7 item 6: the kernel's final extension type) -------------------------
def test_play_is_a_final_untracked_extension_type_with_value_semantics():
    import gc
    import pickle

    from shuangkou import plays

    assert plays.Play is core.Play and Play.PASS is plays.PASS and not Play.PASS
    with pytest.raises(TypeError):
        type("Sub", (Play,), {})  # final: no subclass can change its layout
    ps = legal_plays("3 3 4 5 6 7 SJ BJ", QIANBIAN)
    assert not any(gc.is_tracked(p) for p in ps)  # no GC bookkeeping per play
    for p in ps:
        q = pickle.loads(pickle.dumps(p))
        assert q == p and hash(q) == hash(p) == hash((p.packed, p.tag)) and q is not p
        assert Play.parse(str(p), QIANBIAN) == p
    assert sorted(ps) == sorted(ps, key=Play.sort_key)
    a, b = sorted(ps)[:2]
    assert a < b and a <= b and b > a and b >= a and a != b and not a == b
    assert Play("3 3", Kind.PAIR, Rank.THREE, 2, 1, 0, 0) == play("3 3")
    assert Play._from_codes(0, 0) == Play.PASS and repr(Play.PASS) == "Play.PASS"
    with pytest.raises(TypeError):
        core.new_play(int, 0, 0)


# -- the self-play pieces: count, then build play k (issue #10) -------------------------------
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_nth_builds_play_k_of_the_list_and_count_matches(preset):
    """``nth(k)`` is ``generate()[k]`` for every k (leads, answers of every kind, bombs, both
    wild modes), None past the end; ``count`` is the list's length."""
    flags = FLAGS[preset]
    rules = Rules.preset(preset)
    tables = [0] + [p.tag for p in map(lambda t: Play.parse(t, rules), (
        "7", "9 9", "5 5 5", "5 6 7 8 9", "6 6 7 7 8 8", "4 4 4 5 5 5 6 6 6", "8 8 8 8"))]
    rich = ["4 4 4 4 5 5 5 5 5 6 6 6 6 7 7 7 7 9 SJ SJ BJ BJ", "10 10 10 J J J J Q Q Q Q K A SJ BJ"]
    for hand in [seeded_deal(seed, size).packed for seed, size in enumerate((27, 27, 13, 20))] + [
            Hand(text).packed for text in rich]:
        for table in tables + ([] if preset == "classic" else [
                Play.parse("5555 6666 7777", rules).tag]):
            for fewest in (False, True):
                words, tags = core.generate(hand, flags, table, fewest)
                assert core.count(hand, flags, table, fewest) == len(words)
                got = [core.nth(hand, flags, table, fewest, k) for k in range(len(words))]
                assert got == list(zip(words, tags))
                assert core.nth(hand, flags, table, fewest, len(words)) is None
                assert core.nth(hand, flags, table, fewest, -1) is None
