"""sk.hints: the 提示 order of docs/solver.md ("Hints"), one worked example per ordering choice."""

from __future__ import annotations

import random
from functools import cmp_to_key

import pytest

from shuangkou import Game, Hand, Play, Rules, State, _solve, hints, legal_plays
from shuangkou._reference_game import RefState
from shuangkou.errors import ArgumentError
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


def test_answering_bombs_least_damage_first_then_smallest() -> None:
    # classic: no pair beats AA. The hand splits best as 3333 + KKKKK (two bombs, nothing
    # loose): either one breaks nothing; KKKK leaves a lone K (one play more), so it comes
    # last although it is smaller than KKKKK (R5: more cards bigger); 3333 < KKKKK by R5
    assert at("classic", "3 3 3 3 K K K K K", "A A") == ["3 3 3 3", "K K K K K", "K K K K"]


def test_answering_bombs_wild_free_before_a_smaller_wild_bomb() -> None:
    # 百变 (BJ wild), answering 22 (no pair beats it): the hand splits best as 444+BJ and 7777,
    # two bombs. 4444 (made with the BJ) and 7777 both break nothing: the natural one first
    # though 4444 is smaller (R5), the wild kept; 77777 (7777 + BJ) leaves 444 on its own,
    # a bomb less (damage: 3 cards out of bombs); 7777 made 777 + BJ leaves 444 and a lone 7
    # (a play more), so it is last
    assert at("baibian", "4 4 4 7 7 7 7 BJ", "2 2") == [
        "7 7 7 7", "4 4 4 BJ", "7 7 7 7 BJ", "7 7 7 BJ",
    ]


def test_answering_no_wild_spent_breaking_a_chain_before_a_natural_bomb() -> None:
    # the weakness the first order had (bombs smallest first): 百变, answering 22 (no plain
    # answer), 333444555 + 9999 + BJ splits best as the chain and 99999 (2 plays). Damage:
    # 99999 none; 9999 leaves the BJ loose, 999 + BJ a lone 9 (one play more each: the
    # natural one first); 3333, 4444 or 5555 made with the BJ break the chain into two
    # triples (two plays more). The first hints keep the chain
    got = at("baibian", "3 3 3 4 4 4 5 5 5 9 9 9 9 BJ", "2 2")
    assert got == ["9 9 9 9 BJ", "9 9 9 9", "9 9 9 BJ", "3 3 3 BJ", "4 4 4 BJ", "5 5 5 BJ"]


def test_answering_the_partner_bombs_last() -> None:
    """Over the partner's play (seat 2 of seat 0) the bombs come after every plain answer,
    even when each plain answer breaks something and a bomb breaks nothing: a 提示 never
    offers to bomb the partner before a plain play (and the turn timer passes there, R4)."""
    rules = Rules.preset("classic")
    # 3..7 is a straight and 8888 a bomb: answering a single 6, 7 breaks the straight (four
    # plays more), 8 breaks the bomb (a play more and a bomb less), 8888 breaks nothing
    hands = ["3 4 5 6 7 8 8 8 8", "3", "3", "3"]
    for owner in (2, 3):            # the partner, an opponent: the same order
        state = RefState.from_position(rules, hands, 0, table=Play.parse("6", rules),
                                       table_owner=owner, passes=3 - owner)
        assert [str(p) for p in hints(state)] == ["8", "7", "8 8 8 8"], owner


def test_answering_a_bomb_only_bigger_bombs() -> None:
    assert at("classic", "5 5 5 5 6 6 6 6 6", "4 4 4 4 4") == ["6 6 6 6 6"]


def test_nothing_beats_the_table() -> None:
    assert at("classic", "3 4", "2") == []


def test_leading_parts_of_an_optimal_split_first_lowest_rank_first() -> None:
    # 3 3 4 5 6 7 8 splits best in two plays, as 345678 + 3 or as 33 + 45678: those four
    # first; the three holding a 3 before 45678, and of those the most cards first
    got = at("classic", "3 3 4 5 6 7 8")
    assert got[:4] == ["3 4 5 6 7 8", "3 3", "3", "4 5 6 7 8"]
    assert sorted(got[4:]) == sorted(["4", "5", "6", "7", "8", "3 4 5 6 7"])


def test_leading_a_long_straight_before_a_lone_card_it_holds_the_rank_of() -> None:
    # the weakness of "lowest top first": 3..J + 6 splits best as the straight and the 6;
    # the old order led the lone 6 (top 6 < J). The straight sheds the 3 (the lowest rank)
    # and eight more cards; a lone card below the straight still comes first
    assert at("classic", "3 4 5 6 6 7 8 9 10 J")[:2] == ["3 4 5 6 7 8 9 10 J", "6"]
    assert at("classic", "3 5 6 7 8 9 10 J")[:2] == ["3", "5 6 7 8 9 10 J"]


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


# -- the worst hands: the order from independent costs, and the size of the call ----------------
# The most legal plays a 27-card hand has: 24,182, in 千变 (all four jokers wild) with two
# cards of each rank 3..K (or 4..A) and an A (or a 3) — the hill-climb of
# ``benchmarks/bench_hints.py --climb`` (twelve starts, eleven of them random) finds no hand
# with more. The largest hint call is leading with one of them.
WORST = [
    ("baibian", "3 3 4 4 5 5 6 6 7 7 8 8 9 9 10 10 J J Q Q K K A SJ SJ BJ BJ"),
    ("qianbian", "3 3 4 4 5 5 6 6 7 7 8 8 9 9 10 10 J J Q Q K K A SJ SJ BJ BJ"),
    ("qianbian", "3 4 4 5 5 6 6 7 7 8 8 9 9 10 10 J J Q Q K K A A SJ SJ BJ BJ"),
    ("qianbian", str(State.deal("qianbian", 8).hand(3))),  # the slowest to decompose, first
]
TABLES = (None, "5", "7 7", "3 4 5 6 7", "4 4 5 5 6 6", "8 8 8", "6 6 6 6")


def reference_order(rules: Rules, hand: Hand, plays: list[Play], leading: bool) -> list[Play]:
    """docs/solver.md "Hints" written out in Python over costs from one decompose_cost per
    ``hand − play`` (the sweep alone, no shared pass; itself checked against the exponential
    search and brute force in test_solve_decompose.py), bombs in R5 order by Play.beats."""
    unit = _solve.UNIT
    base = _solve.decompose_cost(hand.packed, rules.flags, True)
    damage = []
    for p in plays:
        rest = _solve.decompose_cost(hand.packed - p.packed, rules.flags, True)
        damage.append((unit - p.size if p.is_bomb else unit) + rest - base)
    assert min(damage, default=0) >= 0  # the play and a split of the rest split the hand

    def key(p: Play, damage: int) -> tuple[int, ...]:
        if leading:
            return (damage, p.is_bomb, p.wilds > 0, p.top - p.length + 1, -p.size, p.top)
        return (p.is_bomb, damage, p.wilds > 0, 0 if p.is_bomb else p.top)

    def cmp(i: int, j: int) -> int:
        a, b = plays[i], plays[j]
        ka, kb = key(a, damage[i]), key(b, damage[j])
        if ka != kb:
            return -1 if ka < kb else 1
        if a.is_bomb and not leading and (a.beats(b, rules) or b.beats(a, rules)):
            return 1 if a.beats(b, rules) else -1
        return (a.wilds > b.wilds) - (a.wilds < b.wilds) or (i > j) - (i < j)

    return [plays[i] for i in sorted(range(len(plays)), key=cmp_to_key(cmp))]


def test_worst_hands_order_equals_the_reference() -> None:
    for preset, text in WORST:
        rules = Rules.preset(preset)
        hand = Hand.parse(text)
        hands: list[Hand | str] = [hand, "3", "3", "3"]
        for table in TABLES:
            if table is None:
                state = RefState.from_position(rules, hands, 0)
            else:
                top = Play.parse(table, rules)
                state = RefState.from_position(
                    rules, hands, 0, table=top, table_owner=3,
                    bombs=((), (), (), (top,) if top.is_bomb else ()),
                )
            plays = legal_plays(hand, rules, state.table)
            want = reference_order(rules, hand, plays, table is None)
            assert hints(state) == want, (preset, text, table)


def test_the_largest_hint_call() -> None:
    """The hands with the most legal plays, with their counts, and the work of their damage
    pass in states (load-independent; the times are in benchmarks/bench_hints.py)."""
    rules = Rules.preset("qianbian")
    for text in WORST[1][1], WORST[2][1]:
        hand = Hand.parse(text)
        plays = legal_plays(hand, rules)
        assert len(plays) == 24_182
        _, states, _ = _solve.decompose_stats(hand.packed, rules.flags, True,
                                              [p.packed for p in plays])
        assert states < 100_000, states  # 72,946 and 74,660 when written


def test_hint_order_checks_its_arguments() -> None:
    rules = Rules.preset("classic")
    hand = Hand.parse("3 4 5")
    plays = legal_plays(hand, rules)
    with pytest.raises(ValueError, match=r"plays\[0\]"):
        _solve.hint_order(Hand.parse("3 4").packed, rules.flags, True, legal_plays("5", rules))
    with pytest.raises(TypeError):
        _solve.hint_order(hand.packed, rules.flags, True, [*plays, "3"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="hand"):
        _solve.hint_order(1 << 63, rules.flags, True, [])
    assert _solve.hint_order(hand.packed, rules.flags, True, []) == []
    assert plays == legal_plays(hand, rules)  # the list given is left as it was


def test_hints_of_the_seat_to_act_from_its_view() -> None:
    """A hostile check's finding: ``hints(view)`` (a view is what a policy gets) raised a
    TypeError. The seat to act's view gives that seat's hints, as its State and Game do;
    another seat's view, which does not hold the hand, is refused by name."""
    for preset in PRESET_NAMES:
        state = State.deal(preset, 1)
        game = Game(preset, seed=3)
        for position in (state, game):
            seat = position.to_act
            assert seat is not None
            assert hints(position.view(seat)) == hints(position)
            with pytest.raises(ArgumentError, match=f"seat {seat} is to act"):
                hints(position.view(seat ^ 1))
