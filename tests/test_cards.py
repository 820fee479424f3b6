"""R1: notation of ranks and physical cards, the Hand value, and every error path."""

from __future__ import annotations

import pytest
from hypothesis import given

from shuangkou import Hand, NotationError, Rank, format_cards, parse_cards
from shuangkou.cards import card_face, card_rank, card_suit, face_copies, format_card, parse_rank

from .conftest import hands


@pytest.mark.parametrize(
    "text",
    ["334455", "3 3 4 4 5 5", "3,3,4,4,5,5", "3+3+4+4+5+5", "33 44 55", " 3 3  4 4 5 5 "],
)
def test_glued_and_separated_rank_notation(text):
    assert Hand.parse(text).counts == (2, 2, 2) + (0,) * 12


def test_aliases_are_case_insensitive():
    assert Hand.parse("TTJJQQ") == Hand.parse("10 10 J J Q Q") == Hand.parse("ttjjqq")
    assert Hand.parse("X D") == Hand.parse("SJ BJ") == Hand.parse("sj bj") == Hand.parse("xd")
    assert Hand.parse("77+8+9+BJ+BJ").counts[4:7] == (2, 1, 1)
    assert Hand.parse("77+8+9+BJ+BJ").count(Rank.BIG_JOKER) == 2
    assert parse_rank("t") == Rank.TEN and parse_rank("D") == Rank.BIG_JOKER


def test_canonical_format_round_trips():
    hand = Hand.parse("bj 3 t x 2 A 10")
    assert str(hand) == "3 10 10 A 2 SJ BJ"
    assert repr(hand) == "Hand('3 10 10 A 2 SJ BJ')"
    assert eval(repr(hand)) == hand


@given(hands())
def test_every_hand_round_trips(hand):
    assert Hand.parse(str(hand)) == hand
    assert Hand.from_counts(hand.counts) == hand
    assert Hand.from_packed(hand.packed) == hand
    assert len(hand) == sum(hand.counts)


@pytest.mark.parametrize(
    "text, token",
    [("3 3 Z", "'Z'"), ("1 2", "'1"), ("3 11", "'1"), ("SJ SJ SJ", "'SJ'"), ("3" * 9, "'3'")],
)
def test_bad_rank_notation_names_the_token(text, token):
    with pytest.raises(NotationError) as err:
        Hand.parse(text)
    assert token in str(err.value)
    assert isinstance(err.value, ValueError)


def test_hand_value_semantics():
    a, b = Hand.parse("3 3 4"), Hand.parse("3 4")
    assert b.issubset(a) and not a.issubset(b)
    assert a - b == Hand.parse("3") and b + Hand.parse("3") == a
    assert hash(a) == hash(Hand.parse("4 3 3")) and len({a, Hand.parse("433")}) == 1
    assert sorted([a, b]) == sorted([b, a])
    with pytest.raises(NotationError):
        b - a
    with pytest.raises(AttributeError):
        a._packed = 0  # type: ignore[misc]
    assert not Hand.parse("") and Hand.parse("") == Hand()


def test_counts_out_of_range_are_rejected():
    with pytest.raises(NotationError):
        Hand.from_counts([0] * 14)
    with pytest.raises(NotationError):
        Hand.from_counts([9] + [0] * 14)
    with pytest.raises(NotationError):
        Hand.from_counts([0] * 13 + [3, 0])
    with pytest.raises(NotationError):
        Hand.from_packed(1 << 60)
    with pytest.raises(NotationError):
        Hand.parse(33)  # type: ignore[arg-type]


def test_physical_card_ids():
    # R1: ids 0..103 = deck*52 + rank*4 + suit; 104/105 small jokers, 106/107 big jokers
    assert [card_rank(i) for i in (0, 3, 4, 51, 52, 103, 104, 105, 106, 107)] == [
        Rank.THREE, Rank.THREE, Rank.FOUR, Rank.TWO, Rank.THREE, Rank.TWO,
        Rank.SMALL_JOKER, Rank.SMALL_JOKER, Rank.BIG_JOKER, Rank.BIG_JOKER,
    ]
    assert card_suit(1) == 1 and card_suit(104) is None
    assert card_face(7) == card_face(59) == 7 and card_face(105) == 52 and card_face(107) == 53
    assert face_copies(7) == (7, 59) and face_copies(53) == (106, 107)
    assert Hand.from_cards(range(108)).counts == (8,) * 13 + (2, 2)
    with pytest.raises(NotationError):
        card_rank(108)


def test_physical_card_notation():
    ids = parse_cards("Th 3s 3s A♥ SJ BJ 10h")
    assert ids[:3] == [7 * 4 + 1, 0, 52]
    assert ids[4:] == [104, 106, 7 * 4 + 1 + 52]
    assert format_card(ids[0]) == "10h" and format_card(104) == "SJ"
    assert ids[3] == 11 * 4 + 1
    assert format_cards(ids) == "3s 3s 10h 10h Ah SJ BJ"
    assert parse_cards(format_cards(range(108))) == sorted(
        range(108), key=lambda c: (card_rank(c), c % 4 if c < 104 else 0, c)
    )


@pytest.mark.parametrize(
    "text, token", [("3d3d", "'3d3d'"), ("3", "'3'"), ("SJh", "'SJh'"), ("3s 3s 3s", "3s"),
                    ("Zs", "'Zs'")],
)
def test_bad_card_notation_names_the_token(text, token):
    with pytest.raises(NotationError) as err:
        parse_cards(text)
    assert token in str(err.value)
