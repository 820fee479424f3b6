"""sk.hints: the 提示 order of docs/solver.md ("Hints"), one worked example per ordering choice."""

from __future__ import annotations

import random

from shuangkou import Game, Play, Rules, _solve, hints, legal_plays
from shuangkou._reference_game import RefState
from tests.conftest import PRESET_NAMES, seeded_deal


def at(preset: str, hand: str, table: str | None = None) -> list[str]:
    """The hints of seat 0 holding ``hand``: leading, or answering seat 3's ``table``."""
    rules = Rules.preset(preset)
    hands = [hand, "3", "3", "3"]
    if table is None:
        state = RefState.from_position(rules, hands, 0)
    else:
        top = Play.parse(table, rules)
        state = RefState.from_position(  # a table bomb is among its owner's bombs (#18)
            rules, hands, 0, table=top, table_owner=3,
            bombs=((), (), (), (top,) if top.is_bomb else ()),
        )
    return [str(p) for p in hints(state)]


def test_answering_smallest_first() -> None:
    assert at("classic", "5 8 K", "4") == ["5", "8", "K"]


def test_answering_only_plays_that_beat_the_table_of_its_kind() -> None:
    # pairs that beat 55, never the single or the triple of another kind
    assert at("classic", "4 4 6 6 7 9 9 9", "5 5") == ["6 6", "9 9"]


def test_answering_unbroken_before_broken() -> None:
    # 8 is a single of its own; a 5 would break the pair 55
    assert at("classic", "5 5 8", "4") == ["8", "5"]
    # 99 out of 9999 breaks the bomb: after 66, before the bombs
    assert at("classic", "6 6 9 9 9 9", "5 5") == ["6 6", "9 9", "9 9 9 9"]


def test_answering_least_damage_first() -> None:
    # 7 breaks the straight 3..7 (three more plays); 9 breaks the pair 99 (one more play)
    assert at("classic", "3 4 5 6 7 9 9", "6") == ["9", "7"]


def test_answering_wilds_last() -> None:
    # 百变: 99 (no wild) first, then 6 BJ (a wild, nothing broken), then 9 BJ (breaks 99)
    assert at("baibian", "6 9 9 BJ", "4 4") == ["9 9", "6 BJ", "9 BJ"]


def test_answering_bombs_after_plain_plays_from_the_smallest() -> None:
    # classic: no pair beats AA; bombs by R5: 3333 < KKKK < KKKKK (more cards bigger)
    assert at("classic", "3 3 3 3 K K K K K", "A A") == ["3 3 3 3", "K K K K", "K K K K K"]


def test_answering_a_bomb_only_bigger_bombs() -> None:
    assert at("classic", "5 5 5 5 6 6 6 6 6", "4 4 4 4 4") == ["6 6 6 6 6"]


def test_nothing_beats_the_table() -> None:
    assert at("classic", "3 4", "2") == []


def test_leading_parts_of_an_optimal_split_first_lowest_first() -> None:
    # 3 3 4 5 6 7 8 splits best in two plays, as 345678 + 3 or as 33 + 45678: those four
    # first, lowest top first, more cards first on a tie; then the plays that cost more
    got = at("classic", "3 3 4 5 6 7 8")
    assert got[:4] == ["3 3", "3", "3 4 5 6 7 8", "4 5 6 7 8"]
    assert sorted(got[4:]) == sorted(["4", "5", "6", "7", "8", "3 4 5 6 7"])


def test_leading_plain_before_bombs() -> None:
    # 5555 and 88 are both parts of the optimal split: the plain play first
    assert at("classic", "5 5 5 5 8 8")[:2] == ["8 8", "5 5 5 5"]


def test_leading_least_damage_then_more_cards() -> None:
    # 777 empties the hand; 77 and 7 each leave one play more: more cards first
    assert at("classic", "7 7 7") == ["7 7 7", "7 7", "7"]


def test_hints_of_a_game() -> None:
    game = Game.from_deal(Rules.preset("classic"), ["3s 3h 9d", "4s", "5s", "6s"], leader=0)
    assert [str(p) for p in hints(game)][:1] == ["3 3"]


def test_damage_from_one_pass_equals_each_sub_hand() -> None:
    """decompose_costs (forward layers + one memo) against one decompose_cost per hand − play,
    on full deals of every preset, leading (every legal play)."""
    rng = random.Random("damage")
    for preset in PRESET_NAMES:
        rules = Rules.preset(preset)
        for _ in range(4):
            hand = seeded_deal(rng.randrange(1 << 30), rng.randint(14, 27))
            words = [p.packed for p in legal_plays(hand, rules, None)]
            for kb in (False, True):
                got = _solve.decompose_costs(hand.packed, rules.flags, kb, words)
                want = [_solve.decompose_cost(hand.packed - w, rules.flags, kb) for w in words]
                assert got == want, (preset, str(hand), kb)
