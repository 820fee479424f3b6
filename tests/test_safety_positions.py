"""The one position rule (``position.check_position``, RULES.md R1/R7) and its consumers:
``State.from_position``, the position text (``State.parse``), the reference ``RefState``,
``VecEnv.set_position``. Issue #18: a seat of 104 cards, held cards plus own bombs over 27 and a
table bomb missing from its owner's bombs were all accepted (the first made VecEnv write before
its mask buffer). Scripted deals of other sizes stay allowed where they were (``Game.from_deal``)
and are refused, with a ``ValueError``, by what cannot represent them (VecEnv)."""

from __future__ import annotations

import numpy as np
import pytest

from shuangkou import Game, Rules, State
from shuangkou._reference_game import RefState
from shuangkou.cards import HAND_SIZE
from shuangkou.errors import NotationError, PositionError
from shuangkou.position import check_position, format_position
from shuangkou.rl import VecEnv

BAIBIAN = Rules.preset("baibian")
BUILDERS = (State.from_position, RefState.from_position)

# A seat holding all 104 natural cards (8 of each rank 3..2): 1.26 M legal plays
ALL_NATURALS = " ".join(r for r in "3 4 5 6 7 8 9 10 J Q K A 2".split() for _ in range(8))
# 28 cards: one more than a seat is dealt (R7), possible only in a scripted deal
TWENTY_EIGHT = "3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7 8 8 8 8 9 9 9 9"


@pytest.mark.parametrize("build", BUILDERS)
def test_a_seat_of_104_cards_is_refused(build) -> None:
    with pytest.raises(PositionError, match="seat 0 .* 104 cards: a seat is dealt 27"):
        build(BAIBIAN, [ALL_NATURALS, "SJ", "BJ", "BJ"], 0)


@pytest.mark.parametrize("build", BUILDERS)
def test_held_cards_plus_own_bombs_over_27_are_refused(build) -> None:
    held = "3 3 4 4 5 5 6 6 7 7 8 8 9 9 10 10 J J Q Q K K A"  # 23 cards
    ok = build(BAIBIAN, [held, "2", "SJ", "BJ"], 0, bombs=(["K K K K"], [], [], []))
    assert ok.bombs_played(0)[0].size == 4  # 23 + 4 = 27: a full deal
    with pytest.raises(PositionError, match="seat 0 .* 28 cards"):
        build(BAIBIAN, [held, "2", "SJ", "BJ"], 0, bombs=(["A A A A A"], [], [], []))
    # the owner's plain table play counts too: it held those cards
    with pytest.raises(PositionError, match="seat 3 .* 28 cards"):
        build(BAIBIAN, ["3", "4", "5", held + " 2 2"], 0, table="2 2 2", table_owner=3)


@pytest.mark.parametrize("build", BUILDERS)
def test_a_table_bomb_must_be_among_its_owners_bombs(build) -> None:
    # issue #18: this changed the solved value from -280 to -16 (the bomb did not count, R8)
    hands = ["3 4", "7", "8", "9"]
    with pytest.raises(PositionError, match="not among the bombs seat 0 played"):
        build(BAIBIAN, hands, 1, table="5 5 5 5", table_owner=0)
    with pytest.raises(PositionError, match="not among the bombs seat 0 played"):
        build(BAIBIAN, hands, 1, table="5 5 5 5", table_owner=0, bombs=([], ["5 5 5 5"], [], []))
    st = build(BAIBIAN, hands, 1, table="5 5 5 5", table_owner=0, bombs=(["5 5 5 5"], [], [], []))
    assert st.table == st.bombs_played(0)[0]


@pytest.mark.parametrize("build", BUILDERS)
def test_cards_beyond_the_decks_are_refused_once_counted(build) -> None:
    # the table bomb is in its owner's bombs: counted once, so 8 fives in all is possible
    five4 = "5 5 5 5"
    st = build(BAIBIAN, [five4, "7", "8", "9"], 1, table=five4, table_owner=0,
               bombs=([five4], [], [], []))
    assert st.hand(0).counts[2] == 4
    with pytest.raises(PositionError, match="more cards than the decks hold: 9 cards 5"):
        build(BAIBIAN, [five4 + " 5", "7", "8", "9"], 1, table=five4, table_owner=0,
              bombs=([five4], [], [], []))
    with pytest.raises(PositionError, match="3 cards BJ"):
        build(BAIBIAN, ["BJ", "BJ", "8", "9"], 1, table="BJ", table_owner=0)


def test_the_rule_speaks_for_itself() -> None:
    # check_position on its own: the four seats' ranks, the table, its owner, the bombs
    from shuangkou import Hand
    from shuangkou.plays import Play

    hands = [Hand.parse(TWENTY_EIGHT), Hand(), Hand(), Hand()]
    with pytest.raises(PositionError):
        check_position(hands, None, None, ((), (), (), ()))
    check_position(hands, None, None, ((), (), (), ()), hand_size=None)
    check_position(hands, None, None, ((), (), (), ()), hand_size=28)
    bomb = Play.parse("6 6 6 6", BAIBIAN)
    with pytest.raises(PositionError, match="6 6 6 6"):
        check_position([Hand(), Hand.parse("7"), Hand(), Hand()], bomb, 2, ((), (), (), ()))
    assert HAND_SIZE == 27


def test_the_position_text_applies_it() -> None:
    ok = State.from_position(BAIBIAN, ["3 4", "7", "8", "9"], 1, table="5 5 5 5",
                             table_owner=0, bombs=(["5 5 5 5"], [], [], []))
    text = format_position(ok)
    assert State.parse(text, BAIBIAN) == ok
    missing = text.replace(" 5555/-/-/- ", " -/-/-/- ")
    assert missing != text
    with pytest.raises(NotationError, match="impossible position.*not among the bombs"):
        State.parse(missing, BAIBIAN)
    big = "baibian " + "3" * 8 + "4" * 8 + "5" * 8 + "6" * 4 + "/7/8/9 0 - 0 - -/-/-/- -"
    with pytest.raises(NotationError, match="impossible position.*28 cards"):
        State.parse(big, BAIBIAN)


def test_scripted_deals_of_other_sizes_stay_allowed() -> None:
    # Game.from_deal takes any sizes (disjoint cards): a 28-card seat is still a game
    physical = " ".join(f"{r}{suit}" for r in "3456789" for suit in "shcd")
    g = Game.from_deal(BAIBIAN, [physical, "7s", "8s", "9s"])
    assert g.cards_left(0) == 28
    st = g.state
    assert st.cards_left(0) == 28 and len(st.legal()) > 0
    # ... and from_position takes them when told the deal is scripted
    same = State.from_position(BAIBIAN, [TWENTY_EIGHT, "7", "8", "9"], 0, hand_size=None)
    assert same == st


def test_vecenv_refuses_what_its_action_table_cannot_hold() -> None:
    # issue #18: a 104-card seat made _mask_row write mask[i, -1] (before the buffer for row 0)
    env = VecEnv(BAIBIAN, 2)
    env.reset(5)
    before = [env.hands(i) for i in range(2)], env.last.mask.copy()
    for hands in ([ALL_NATURALS, "SJ", "BJ", "BJ"], [TWENTY_EIGHT, "7", "8", "9"]):
        big = State.from_position(BAIBIAN, hands, 0, hand_size=None)
        for row in (0, 1):
            with pytest.raises(PositionError, match="a seat is dealt 27"):
                env.set_position(row, big)
    assert [env.hands(i) for i in range(2)] == before[0]
    assert (env.last.mask == before[1]).all()
    # a standard position is still taken
    ok = State.from_position(BAIBIAN, ["3 3 4", "7", "8", "9"], 0)
    out = env.set_position(0, ok)
    assert out.mask[0].sum() == len(ok.legal())


def test_the_kernel_checks_every_mask_index_itself() -> None:
    # Below VecEnv's checks: loading the 104-card seat straight into the kernel must leave the
    # unmapped plays out of the mask (flagged), never write outside row 0.
    env = VecEnv(BAIBIAN, 2)
    env.reset(5)
    row1 = env.last.mask[1].copy()
    big = State.from_position(BAIBIAN, [ALL_NATURALS, "SJ", "BJ", "BJ"], 0, hand_size=None)
    k = env._kernel
    k.load(0, big)
    while k.run(2) < 0:  # the region overflows first: grow as VecEnv does
        env._grow(2 * env._capacity)
        k.bind(env._buf)
    assert k.unmapped_row() == 0
    assert (env._buf["mask"][1] == row1).all()
    ids = env._buf["action_ids"][: env._buf["offsets"][1]]
    assert (ids == -1).any() and ids.max() < len(env.table)
    for bad in (-1, 2, True, 2**70):
        with pytest.raises(IndexError):
            k.hands(bad)
        with pytest.raises(IndexError):
            k.load(bad, big)
    with pytest.raises(ValueError):
        k.observe(0, 4, np.zeros(182, np.float32))
    with pytest.raises(ValueError):
        k.observe(0, 0, np.zeros(10, np.float32))
