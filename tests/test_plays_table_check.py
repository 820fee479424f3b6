"""The table check of ``legal_plays`` (R3): a play the kernel made under some rules carries them
(no second classification), and is still judged again under other rules; hand-built and
unpickled plays are always judged."""

from __future__ import annotations

import pickle

import pytest

from shuangkou import Hand, IllegalPlayError, Play, Rules, legal_plays
from shuangkou.plays import Kind, classify, count_plays


def wild_pair() -> Play:
    """``5 BJ``, a pair under 百变 (the big joker stands for a 5), no play in classic."""
    (pair,) = [p for p in legal_plays("5 BJ", "baibian") if p.kind == Kind.PAIR]
    return pair


def test_kernel_play_is_rejudged_under_other_rules() -> None:
    table = wild_pair()
    hand = Hand.parse("7 7 8 8")
    assert legal_plays(hand, "baibian", table) == [
        p for p in legal_plays(hand, "baibian") if p.beats(table, "baibian")]
    with pytest.raises(IllegalPlayError, match="does not read"):
        legal_plays(hand, "classic", table)
    # and again after the failed check: the carried rules word is not overwritten by it
    assert legal_plays(hand, "baibian", table)


def test_unpickled_and_hand_built_tables_are_judged() -> None:
    table = pickle.loads(pickle.dumps(wild_pair()))
    with pytest.raises(IllegalPlayError):
        legal_plays("7 7 8 8", "classic", table)
    w = wild_pair()
    built = Play(w.cards, w.kind, w.top, w.width, w.length, w.stars, w.wilds)  # by hand
    with pytest.raises(IllegalPlayError):
        legal_plays("7 7 8 8", Rules.preset("classic"), built)
    assert legal_plays("7 7 8 8", "baibian", built) == legal_plays("7 7 8 8", "baibian",
                                                                    wild_pair())


@pytest.mark.parametrize("preset", ["classic", "baibian", "jj", "qianbian"])
def test_kernel_plays_read_as_they_claim(preset: str) -> None:
    """What the carried rules word asserts: every listed play is a reading of its cards."""
    hand = Hand.from_cards(range(0, 108, 4))
    for p in legal_plays(hand, preset) + legal_plays(hand, preset, wilds="fewest"):
        assert p in classify(p.cards, preset)


def test_same_results_as_the_python_path() -> None:
    hand = Hand.from_cards(range(1, 108, 4))
    for table in (None, "7", "9 9", "5 6 7 8 9", "8 8 8 8"):
        for wilds in ("all", "fewest"):
            plays = legal_plays(hand, "baibian", table, wilds)  # type: ignore[arg-type]
            assert len(plays) == count_plays(hand, "baibian", table, wilds)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="wilds"):
        legal_plays(hand, "baibian", None, "some")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        legal_plays(hand, "baibian", 7)  # type: ignore[arg-type]


def test_recycled_plays_carry_no_rules_of_their_last_life() -> None:
    """Plays are recycled (``_core``'s free list): one made by ``_from_codes`` (no rules known)
    from the memory of a freed kernel play must be judged as a table, not trusted."""
    w = wild_pair()
    for _ in range(3):
        plays = legal_plays(Hand.from_cards(range(0, 108, 2)), "baibian")  # under 百变
        del plays  # back to the free list, each marked "reads under 百变"
        forged = Play._from_codes(Hand.parse("5 6").packed, w.tag)  # "5 6" is no pair
        with pytest.raises(IllegalPlayError, match="does not read"):
            legal_plays("7 7 8 8", "baibian", forged)


def test_recycled_plays_hold_the_kernels_words() -> None:
    """After many lists made and freed, every listed play holds the word and tag the generator
    wrote (the pure-Python oracle's lists, derived apart)."""
    from shuangkou import _reference

    rules = Rules.preset("baibian")
    hands = [Hand.from_cards(range(k, 108, 4)) for k in range(4)]
    kept = []
    for rounds in range(3):
        for hand in hands:
            for table in (None, "7", "9 9", "8 8 8 8"):
                plays = legal_plays(hand, rules, table)
                words, tags = _reference.generate(
                    hand.packed, rules.flags, Play.parse(table, rules).tag if table else 0,
                    False)
                assert sorted((p.packed, p.tag) for p in plays) == sorted(zip(words, tags))
                if rounds == 1:
                    kept.append((hand, plays))  # some lists live on while others are freed
    assert all(p.cards.issubset(hand) for hand, plays in kept for p in plays)


def test_plays_held_survive_the_ring_wrapping_around() -> None:
    """``_core`` lists plays from a ring of the last 4,096 it listed, reusing those nothing
    else holds: plays kept (a list, one play, a play of a freed list) keep their words and
    tags while many more lists (over 4,096 plays each) are made and freed."""
    from shuangkou import _reference

    rules = Rules.preset("qianbian")
    hand = Hand.from_cards(range(0, 108, 4))
    kept = legal_plays(hand, rules)
    one = legal_plays(hand, rules, "7")[0]
    codes = [(p.packed, p.tag) for p in kept]
    single = (one.packed, one.tag)
    big = Hand.from_cards(range(1, 108, 2))  # 54 cards: a lead list longer than the ring
    for _ in range(3):
        assert len(legal_plays(big, rules)) > 4096
        legal_plays(hand, rules, "9 9")
    assert [(p.packed, p.tag) for p in kept] == codes
    assert (one.packed, one.tag) == single
    words, tags = _reference.generate(hand.packed, rules.flags, 0, False)
    assert sorted(codes) == sorted(zip(words, tags))


def test_legal_plays_has_its_signature() -> None:
    import inspect

    params = inspect.signature(legal_plays).parameters
    assert list(params) == ["hand", "rules", "table", "wilds"]
    assert params["table"].default is None and params["wilds"].default == "all"


def test_a_hand_subclass_and_card_text_list_the_same() -> None:
    class MyHand(Hand):
        __slots__ = ()

    hand = Hand.from_cards(range(0, 108, 4))
    mine = MyHand.from_packed(hand.packed)
    assert type(mine) is MyHand
    assert legal_plays(mine, "jj", "9 9") == legal_plays(hand, "jj", "9 9")
    assert legal_plays(str(hand), "jj", "9 9") == legal_plays(hand, "jj", "9 9")
