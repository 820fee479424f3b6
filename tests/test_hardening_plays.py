"""Issue #11 regressions, plays and tables: a hand-built ``Play`` is checked once, in its
constructor (no field spills into another's bits, the reading is one its cards have, R3); a
table is checked once per kind of input (a Play or text in ``plays._table_tag``, a bare tag
against the action table), so no entry point lists plays that ``Play.beats`` rejects; the
batch API's ints are validated, never wrapped or truncated."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import shuangkou as sk
from shuangkou import Kind, Play, State, batch
from shuangkou.errors import ArgumentError, IllegalPlayError
from shuangkou.plays import pack_tag
from tests.budget import budget

RULES = {name: sk.Rules.preset(name) for name in sk.PRESETS}
BAIBIAN, CLASSIC = RULES["baibian"], RULES["classic"]
PAIR_55 = ("5 5", Kind.PAIR, 2, 2, 1, 0, 0)  # cards, kind, top, width, length, stars, wilds
FIELDS = ("kind", "top", "width", "length", "stars", "wilds")


def _forged(cards: str, as_text: str) -> Play:
    """``cards`` carrying the reading of ``as_text``: what an edited pickle can hold (the
    constructor refuses to build it)."""
    return Play._from_codes(sk.Hand.parse(cards).packed, Play.parse(as_text, BAIBIAN).tag)


# -- the constructor ---------------------------------------------------------------------------
def test_a_hand_built_play_equals_the_kernels():
    assert Play(*PAIR_55) == Play.parse("5 5", BAIBIAN)
    assert Play(sk.Hand.parse("5 5"), np.int64(1), sk.Rank.FIVE, 2, 1, 0, 0) == Play(*PAIR_55)


@pytest.mark.parametrize("field, value, message", [
    # beyond the bit widths of the tag (docs/internals.md): each used to land in the next field
    ("top", 16, "top must be in 0..14"), ("top", 15, "top must be in 0..14"),
    ("kind", 16, "kind must be in 0..9"), ("kind", 10, "kind must be in 0..9"),
    ("width", 32, "width must be in 1..31"), ("width", 0, "width must be in 1..31"),
    ("length", 16, "length must be in 1..15"), ("stars", 32, "stars must be in 0..31"),
    ("wilds", 8, "wilds must be in 0..7"),
    # negative values (a C int cast used to fill every bit above them)
    ("top", -1, "top must be in"), ("stars", -1, "stars must be in"),
    ("wilds", -1, "wilds must be in"), ("kind", -1, "kind must be in"),
    # wrong types: refused, never truncated or read as 0/1
    ("top", 2.0, "top must be an integer"), ("width", 2.9, "width must be an integer"),
    ("kind", "PAIR", "kind must be an integer"), ("stars", True, "stars must be an integer"),
    ("length", None, "length must be an integer"),
])
def test_constructor_names_the_bad_field(field, value, message):
    args = list(PAIR_55)
    args[1 + FIELDS.index(field)] = value
    with pytest.raises(ArgumentError, match=message):
        Play(*args)


def test_overflowing_fields_cannot_alias_another_play():
    # top = 2 + 16 would add 1 to the width field: with width 1 the tag was a pair of 5s
    with pytest.raises(ArgumentError, match="top"):
        Play("5 5", Kind.PAIR, 2 + 16, 1, 1, 0, 0)
    with pytest.raises(ArgumentError, match="size"):
        Play(sk.Hand.from_counts([8] * 8 + [0] * 7), Kind.CHAIN_BOMB, 7, 8, 8, 16, 0)  # 64


@pytest.mark.parametrize("args", [
    ("5 5", Kind.SINGLE, 2, 1, 1, 0, 0),   # the table: a size inconsistent with width
    ("5 5", Kind.PAIR, 3, 2, 1, 0, 0),     # another rank's pair
    ("3 3", Kind.BOMB, 0, 2, 1, 0, 0),     # a bomb of two cards
    ("5 5", Kind.PAIR, 2, 2, 1, 0, 1),     # a wild where there is no joker
    ("5 5 5 5", Kind.BOMB, 2, 4, 1, 9, 0),  # stars no rules give a 4相 bomb (R5: 0 or 4)
])
def test_a_reading_the_cards_do_not_have_is_refused(args):
    with pytest.raises(IllegalPlayError, match="does not read as"):
        Play(*args)


def test_cards_must_be_a_hand_or_text():
    with pytest.raises(TypeError, match="cards must be a Hand or card text"):
        Play(0x22, Kind.PAIR, 2, 2, 1, 0, 0)  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match="size"):
        Play("", Kind.SINGLE, 0, 1, 1, 0, 0)


HANDS = st.lists(st.integers(0, 14), min_size=1, max_size=14).map(
    lambda ranks: sk.Hand.from_counts([min(ranks.count(r), 2 if r >= 13 else 8)
                                       for r in range(15)]))


@settings(max_examples=budget(ci=150, full=5_000))
@given(HANDS, st.sampled_from(sorted(RULES)))
def test_every_generated_play_can_be_built_from_its_fields(hand, name):
    # the constructor accepts exactly what the kernel makes, so repr stays eval-able
    for p in sk.legal_plays(hand, RULES[name]):
        assert Play(p.cards, p.kind, p.top, p.width, p.length, p.stars, p.wilds) == p


# -- tables ------------------------------------------------------------------------------------
BAD_TABLES = [
    pytest.param(_forged("5 5", "5"), BAIBIAN, id="forged-size"),   # the reproducer
    pytest.param(_forged("5 5", "7 7"), BAIBIAN, id="forged-top"),
    pytest.param(Play("5 BJ", Kind.PAIR, 2, 2, 1, 0, 1), CLASSIC, id="classic-no-wild"),
    pytest.param(Play("5 5 5 5", Kind.BOMB, 2, 4, 1, 0, 0), BAIBIAN, id="baibian-stars"),
]
ENTRY_POINTS = {
    "legal_plays": lambda r, t: sk.legal_plays("7 8", r, table=t),
    "count_plays": lambda r, t: sk.count_plays("7 8", r, table=t),
    "batch.count_plays": lambda r, t: batch.count_plays(["7 8"], r, table=t),
    "batch.legal_plays": lambda r, t: batch.legal_plays(["7 8"], r, table=t),
    "mask": lambda r, t: batch.action_table(r).mask(["7 8"], table=t),
    "play_for": lambda r, t: batch.action_table(r).play_for("7 8", 1, table=t),
    "State.from_position": lambda r, t: State.from_position(
        r, ["7 8", "3", "4", "6"], 0, table=t, table_owner=3),
}


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
@pytest.mark.parametrize("table, rules", BAD_TABLES)
def test_every_entry_point_refuses_a_table_its_cards_do_not_read_as(entry, table, rules):
    # IllegalPlayError from plays' table check; State's own check raises a plain ValueError
    with pytest.raises(ValueError, match="does not read as"):
        ENTRY_POINTS[entry](rules, table)


@pytest.mark.parametrize("tag", [
    0xF,                                          # kind 15, no width or size
    Play.parse("5", BAIBIAN).tag + (1 << 22),     # a single of two cards
    Play.parse("5 5 5 5", BAIBIAN).tag ^ (4 << 17),  # a 4相 bomb without its stars
])
def test_a_bare_table_tag_must_be_a_reading_of_the_rules(tag):
    for table in (tag, np.array([tag])):
        with pytest.raises(IllegalPlayError, match="is not a reading under baibian"):
            batch.count_plays(["7 8"], BAIBIAN, table=table)
        with pytest.raises(IllegalPlayError, match="is not a reading"):
            batch.legal_plays(["7 8"], BAIBIAN, table=table)


TABLES = st.one_of(
    # real readings of random card sets under some rules (maybe not the rules in force)
    st.tuples(HANDS, st.sampled_from(sorted(RULES))).map(
        lambda hr: sk.classify(hr[0], RULES[hr[1]])).filter(bool).map(lambda ps: ps[0]),
    # forged: real cards with another card set's reading
    st.tuples(HANDS, HANDS).map(lambda hh: sk.classify(hh[1], BAIBIAN) and Play._from_codes(
        hh[0].packed, sk.classify(hh[1], BAIBIAN)[0].tag)).filter(bool),
    # forged: real cards with any tag the kernel's shape check lets through (kind, width and
    # size set), like the single of two cards
    st.tuples(HANDS, st.integers(0, 9), st.integers(0, 14), st.integers(1, 31),
              st.integers(0, 15), st.integers(0, 31), st.integers(1, 63), st.integers(0, 7))
    .map(lambda f: Play._from_codes(f[0].packed, pack_tag(*f[1:]))),
)


@settings(max_examples=budget(ci=200, full=10_000))
@given(HANDS, TABLES, st.sampled_from(sorted(RULES)))
def test_answers_are_exactly_the_plays_that_beat_the_table(hand, table, name):
    # what the issue found broken: legal_plays listed plays that its own beats rejected
    rules = RULES[name]
    try:
        answers = sk.legal_plays(hand, rules, table=table)
    except IllegalPlayError:
        assert table.tag not in [p.tag for p in sk.classify(table.cards, rules)]
        return
    assert answers == [p for p in sk.legal_plays(hand, rules) if p.beats(table, rules)]
    assert sk.count_plays(hand, rules, table=table) == len(answers)
    assert list(batch.count_plays([hand], rules, table=table.tag)) == [len(answers)]


# -- batch ints --------------------------------------------------------------------------------
AT = batch.action_table(BAIBIAN)


@pytest.mark.parametrize("value", [2**40, 2**31, -1, 2**32 + int(AT.tags[5])])
def test_encode_refuses_values_that_are_no_tag(value):
    with pytest.raises(ArgumentError, match="tag"):
        AT.encode(value)  # 2**40 was PASS (its low bits are 0)
    with pytest.raises(ArgumentError, match="tag"):
        AT.encode_tags(np.array([value], dtype=np.int64))


def test_encode_refuses_wrong_types_and_foreign_stars():
    for bad in (7.9, True):
        with pytest.raises(ArgumentError):
            AT.encode(bad)  # type: ignore[arg-type]
    # card text is a play, read under the table's rules (issue #35), never a tag in a str
    assert AT.encode("5") == AT.encode(sk.Play.parse("5", BAIBIAN)) != 5
    with pytest.raises(ArgumentError, match="integer array"):
        AT.encode_tags(np.array([float(AT.tags[5])]))
    with pytest.raises(KeyError):  # its stars differ from the action's: no reading
        AT.encode(int(AT.tags[-1]) ^ (1 << 17))
    assert AT.encode(np.int64(AT.tags[9])) == 9 and AT.encode(0) == 0


@pytest.mark.parametrize("action", [-1, len(AT), True, 1.0, "1", None])
def test_action_indices_are_checked_once(action):
    # play_for(hand, -1) returned the last action's play; decode(True) was action 1
    for call in (lambda: AT.play_for("3 3", action, table="4"), lambda: AT.decode(action),
                 lambda: AT.describe(action)):
        with pytest.raises(batch.ActionIndexError, match="action"):
            call()
    assert issubclass(batch.ActionIndexError, ValueError)
    assert issubclass(batch.ActionIndexError, IndexError)


def test_play_batch_and_observation_refuse_bad_indices():
    pb = batch.legal_plays(["3 3", "4 4"], BAIBIAN)
    assert pb.plays(np.int64(1)) == sk.legal_plays("4 4", BAIBIAN)
    for bad in (-1, 2, 0.0, True):
        with pytest.raises(ArgumentError, match="hand index"):
            pb.plays(bad)  # -1 was an empty list
    g = sk.Game(BAIBIAN, 1)
    assert (batch.observation(g, np.int8(1)) == batch.observation(g, 1)).all()
    for bad in (True, 1.0, 4, -1):
        with pytest.raises(ArgumentError, match="seat"):
            batch.observation(g, bad)  # True and 1.0 were seat 1


def test_unpack_and_bomb_grade_refuse_what_they_used_to_wrap():
    with pytest.raises(ArgumentError, match=r"words\[0\] = -1"):
        batch.unpack([-1])  # was 15 of every rank (-1 cast to uint64)
    with pytest.raises(ArgumentError, match="integer array"):
        batch.play_vectors([34.9])  # was the word 34
    with pytest.raises(ArgumentError, match="not a packed word"):
        batch.unpack(np.array([1 << 60], np.uint64))
    assert batch.unpack([]).shape == (0, 15)
    assert batch.bomb_grade(Play.parse("3 3 3 3", BAIBIAN).tag) == 0
    for bad in (Play.parse("3 3", BAIBIAN).tag, 2**40, -1, 0):
        with pytest.raises(ArgumentError, match="tag"):
            batch.bomb_grade(bad)  # a pair's tag was column -2
