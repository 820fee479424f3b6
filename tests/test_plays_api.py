"""The Play value and the public functions around it: round trips, errors,
ordering, wilds modes — on whichever backend is active (SHUANGKOU_BACKEND)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import shuangkou as sk
from shuangkou import Hand, IllegalPlayError, Kind, NotationError, Play, Rank, Rules

from .conftest import PRESET_NAMES, hands


@settings(max_examples=40, deadline=None)
@given(hand=hands(max_cards=14), preset=st.sampled_from(PRESET_NAMES))
def test_every_play_round_trips_through_str_and_repr(hand, preset):
    rules = Rules.preset(preset)
    for play in sk.legal_plays(hand, rules):
        assert Play.parse(str(play), rules) == play
        assert eval(repr(play), vars(sk)) == play
        assert play.cards.issubset(hand) and len(play.cards) == play.size
        assert play in sk.classify(play.cards, rules)
        assert hash(play) == hash(eval(repr(play), vars(sk)))


def test_two_plain_readings_need_a_declared_kind():
    rules = Rules.preset("qianbian")
    both = sk.classify("3 4 SJ SJ BJ BJ", rules)  # R9.8
    assert [p.kind for p in both] == [Kind.STRAIGHT, Kind.PAIR_CHAIN]
    assert [str(p) for p in both] == ["3 4 SJ SJ BJ BJ/straight", "3 4 SJ SJ BJ BJ/pair_chain"]
    with pytest.raises(IllegalPlayError, match="two plays"):
        Play.parse("3 4 SJ SJ BJ BJ", rules)
    assert Play.parse("3 4 X X D D / pair_chain", rules).top == Rank.FIVE
    with pytest.raises(NotationError, match="planes"):
        Play.parse("3 4 X X D D/planes", rules)


def test_fields_of_a_play():
    rules = Rules.preset("baibian")
    (p,) = sk.classify("4 5 6 7 8 BJ", rules)
    assert (p.kind, p.top, p.size, p.width, p.length, p.stars, p.wilds) == (
        Kind.STRAIGHT, Rank.NINE, 6, 1, 6, 0, 1)
    assert p.reading == (Kind.STRAIGHT, Rank.NINE, 6, 1, 6)
    assert p.cards == Hand("4 5 6 7 8 BJ") and p.cards.counts[14] == 1
    assert not p.is_bomb and p.describe() == "straight 4..9 (6 cards)"
    (b,) = sk.classify("4444 5555 666 BJ", rules)
    assert (b.kind, b.width, b.length, b.stars, b.wilds) == (Kind.CHAIN_BOMB, 4, 3, 7, 1)
    assert b.describe() == "4相3连 chain bomb 4..6 (12 cards, 7★)"
    assert Play.parse("BJ", rules).describe() == "single of BJ (1 card)"


def test_pass_and_bad_inputs():
    rules = Rules.preset("baibian")
    assert not Play.PASS and str(Play.PASS) == "pass" and repr(Play.PASS) == "Play.PASS"
    assert Play.parse("pass", rules) is Play.PASS
    single = Play.parse("3", rules)
    assert single.beats(None, rules) and single.beats(Play.PASS, rules)
    assert not Play.PASS.beats(single, rules)
    with pytest.raises(IllegalPlayError, match="'3 3 4 4 BJ' is not a valid play"):
        Play.parse("3 3 4 4 BJ", rules)  # R9.4
    with pytest.raises(NotationError, match="'Z'"):
        sk.legal_plays("3 Z", rules)
    with pytest.raises(ValueError, match="wilds"):
        sk.legal_plays("3 3", rules, wilds="some")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        sk.legal_plays("3 3", rules, table=3)  # type: ignore[arg-type]
    with pytest.raises(IllegalPlayError):
        sk.legal_plays("3 3", rules, table="3 4")


def test_sorting_is_total_and_deterministic():
    rules = Rules.preset("baibian")
    plays = sk.legal_plays("5 5 5 BJ", rules)  # R9.10: seven plays
    assert len(plays) == 7 == sk.count_plays("5 5 5 BJ", rules)
    ordered = sorted(plays)
    assert sorted(reversed(plays)) == ordered
    assert [str(p) for p in ordered] == ["5", "BJ", "5 5", "5 BJ", "5 5 5", "5 5 BJ", "5 5 5 BJ"]


def test_fewest_is_one_play_per_reading():
    rules = Rules.preset("baibian")
    few = sk.legal_plays("5 5 5 BJ", rules, wilds="fewest")
    assert sorted(str(p) for p in few) == ["5", "5 5", "5 5 5", "5 5 5 BJ", "BJ"]
    assert sk.count_plays("5 5 5 BJ", rules, wilds="fewest") == 5
