"""``SeatView.legal()`` (issue #18): the list is live and judges "is it this seat's turn" each
time it is read. It froze that at creation: a list kept past the seat's turn listed the next
seat's plays (built from its hidden hand, R6), and one taken while waiting stayed empty on the
seat's own turn."""

from __future__ import annotations

from shuangkou import Game, Rules, State, legal_plays

BAIBIAN = Rules.preset("baibian")


def test_a_kept_seat_list_never_shows_another_seats_plays() -> None:
    st = State.deal(BAIBIAN, 11)
    me = st.to_act
    mine = st.view(me).legal()
    assert list(mine) == legal_plays(st.hand(me), BAIBIAN, None)
    st.play(0)  # now the next seat is to act: my list must not show its hidden hand's plays
    nxt = st.to_act
    assert nxt != me and len(st.legal()) > 0
    assert len(mine) == 0 and list(mine) == [] and mine[:] == []
    for p in st.legal():
        assert p not in mine


def test_a_list_taken_while_waiting_fills_on_the_seats_turn() -> None:
    st = State.deal(BAIBIAN, 12)
    waiting = (st.to_act + 1) % 4
    later = st.view(waiting).legal()
    assert len(later) == 0
    st.play(0)
    assert st.to_act == waiting
    assert list(later) == list(st.legal()) and len(later) > 0
    assert later[0] == st.legal()[0] and later.index(st.legal()[0]) == 0


def test_game_views_are_live_too() -> None:
    g = Game(BAIBIAN, 5)
    seat = g.to_act
    view = g.view(seat)
    kept = view.legal()
    assert len(kept) == len(g.legal_plays())
    g.play(0)
    assert len(kept) == 0 and len(view.legal()) == 0 and not view.can_pass()
