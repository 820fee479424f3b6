"""Game's per-decision paths in C (``_physical._Base``) keep every check of the Python path:
the seat, the physical ids taken, the log, the lock; anything else is judged with its reason."""

from __future__ import annotations

import threading

import pytest

from shuangkou import IllegalPlayError, Play
from shuangkou.game import Game


def answering(seed: int = 3) -> Game:
    g = Game("baibian", seed=seed)
    g.play(g.legal_plays()[0])
    return g


def test_a_legal_play_takes_the_lowest_ids_and_is_logged() -> None:
    g = Game("baibian", seed=5)
    seat = g.to_act
    play = g.legal_plays()[-1]
    expected = g.cards_for(play)
    before = g.hand(seat)
    assert g.play(play) is play
    assert g.actions[-1].cards == expected and g.actions[-1].play == play
    assert set(before) - set(g.hand(seat)) == set(expected)
    g.undo()
    assert g.hand(seat) == before


@pytest.mark.parametrize("seat", [True, 1.0, "1"])
def test_a_seat_that_is_no_int_is_refused_as_before(seat: object) -> None:
    g = Game("baibian", seed=5)
    play = g.legal_plays()[0]
    with pytest.raises((IllegalPlayError, TypeError, ValueError)):
        g.play(play, seat=seat)  # type: ignore[arg-type]
    with pytest.raises((IllegalPlayError, TypeError, ValueError)):
        answering().pass_(seat=seat)  # type: ignore[arg-type]
    assert not g.actions


def test_wrong_seat_leading_pass_and_unlisted_play_are_judged() -> None:
    g = Game("baibian", seed=5)
    s = g.to_act
    play = g.legal_plays()[0]
    with pytest.raises(IllegalPlayError, match="turn"):
        g.play(play, seat=(s + 1) % 4)
    with pytest.raises(IllegalPlayError, match="R4"):
        g.pass_()
    g.play(play)
    weaker = [p for p in Game("baibian", seed=5).legal_plays() if p.cards == play.cards]
    with pytest.raises(IllegalPlayError):
        g.play(weaker[0])  # the same cards again: no longer held, or not beating the table
    assert len(g.actions) == 1
    assert not g.legal_plays() or g.table is not None
    assert g.play(Play.PASS) is Play.PASS and g.actions[-1].kind == "pass"


def test_two_threads_are_serialised() -> None:
    g = Game("baibian", seed=11)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            for _ in range(200):
                if g.is_over:
                    return
                plays = g.legal_plays()
                try:
                    g.play(plays[0]) if plays and not g.can_pass() else g.pass_()
                except IllegalPlayError:
                    pass  # the other thread moved first: judged on the new position
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    replayed = Game("baibian", seed=11)
    for a in g.actions:
        replayed.play(a.play) if a.kind == "play" else replayed.pass_()
    assert replayed == g


@pytest.mark.parametrize("preset", ["classic", "baibian", "jj", "qianbian"])
def test_the_seeded_deal_in_c_is_setup_of_rng_deal(preset: str) -> None:
    """``Game(rules, seed)`` deals in one C call (``_Base._deal``): the same game as the
    generic set-up (``_setup``) of :func:`shuangkou.rng.deal`'s hands — the dealt order, the
    明牌 swap and seating, the masks, the State — with a forced leader and other players too."""
    from shuangkou import Rules
    from shuangkou.rng import deal

    rules = Rules.preset(preset)
    leaders = [None] if rules.first_leader == "revealed" else [None, 0, 3]
    for seed in [0, 1, 7, 2**64 - 1, *range(100, 160)]:
        for leader in leaders:
            for players in [(0, 1, 2, 3), (9, 4, 7, 2)]:
                g = Game(rules, seed, players=players, leader=leader)
                d = deal(seed, rules.first_leader)
                ref = Game.__new__(Game)
                ref._setup(rules, d.hands, players, d.revealed,
                           d.leader if leader is None else leader)
                ref.seed = d.seed
                assert g == ref and g.state.hash == ref.state.hash
                assert (g.dealt, g.initial_hands, g._mask) == (ref.dealt, ref.initial_hands,
                                                               ref._mask)


def test_the_table_is_the_states_after_undo_and_copies() -> None:
    """``table`` (C, the last Play kept) is the State's table whatever happened since."""
    g = Game("baibian", seed=9)
    seen = 0
    while not g.is_over and seen < 120:
        plays = g.legal_plays()
        g.play(plays[-1]) if plays and (seen % 3 or not g.can_pass()) else g.pass_()
        assert g.table == g.state.table and g.copy().table == g.state.table
        if seen % 7 == 0 and g.actions:
            g.undo()
            assert g.table == g.state.table
        seen += 1
