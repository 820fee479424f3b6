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
                assert (g.dealt, g.initial_hands, g._masks()) == (ref.dealt, ref.initial_hands,
                                                               ref._masks())


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


def _views_are_the_states(g: Game) -> None:
    st = g.state
    assert g.is_over is st.is_over
    assert g.to_act == st.to_act and type(g.to_act) is type(st.to_act)
    assert g.table == st.table
    if st.table is not None and g.actions:  # the table is the top play, as played
        top = [a for a in g.actions if a.kind == "play"][-1]
        assert g.table == top.play and g.table_cards == top.cards


def test_the_views_follow_every_kind_of_action() -> None:
    """``is_over``, ``to_act`` and ``table`` are copies of the State's kept in C fields (read
    like slots): after each way of acting (a listed Play, an index, card text, ids, a
    hand-built Play, a pass, undo, abandon, a copy, a JSON round trip, a scripted deal) they
    are the State's."""
    from shuangkou import Rules

    rules = Rules.preset("baibian")
    for seed in range(6):
        g = Game(rules, seed)
        _views_are_the_states(g)
        step = 0
        while not g.is_over:
            plays = g.legal_plays()
            how = (seed + step) % 6
            if g.can_pass() and (not plays or how == 0):
                g.pass_()
            elif how == 1:
                g.play(len(plays) - 1)
            elif how == 2:
                g.play(" ".join(_faces(g, plays[0])))
            elif how == 3:
                g.play(list(g.cards_for(plays[0])))
            elif how == 4:
                p = plays[-1]  # an equal Play built by hand: the Python path
                g.play(Play(p.cards, p.kind, p.top, p.width, p.length, p.stars, p.wilds))
            else:
                g.play(plays[0])
            _views_are_the_states(g)
            if step % 5 == 4:
                g.undo()
                _views_are_the_states(g)
            _views_are_the_states(g.copy())
            step += 1
        assert g.is_over is True and g.to_act is None
        g.undo()
        _views_are_the_states(g)
        _views_are_the_states(Game.from_json(g.to_json()))
        g.abandon(1)
        _views_are_the_states(g)
        assert g.is_over is True
    scripted = Game.from_deal(rules, ["3s 4s", "5s", "6s", "7s 8s"], leader=3)
    _views_are_the_states(scripted)
    scripted.play("8s")
    _views_are_the_states(scripted)


def _faces(g: Game, play: Play) -> list[str]:
    from shuangkou.cards import format_cards

    return format_cards(g.cards_for(play)).split()


def test_the_views_are_read_only() -> None:
    g = Game("classic", seed=1)
    for name in ("is_over", "table", "to_act"):
        with pytest.raises(AttributeError):
            setattr(g, name, None)
    assert g.is_over is False and g.table is None and g.to_act in range(4)


def test_a_mask_above_card_107_is_refused() -> None:
    from shuangkou._physical import ids_of

    assert ids_of((1 << 107) | (1 << 64) | (1 << 63) | 1) == (0, 63, 64, 107)
    with pytest.raises(ValueError, match="0..107"):
        ids_of(1 << 108)
    g = Game("classic", seed=1)
    with pytest.raises(ValueError, match="0..107"):
        g._toggle(0, (108,))
    with pytest.raises(ValueError, match="seat"):
        g._toggle(4, (1,))
    assert g.hand(0) == Game("classic", seed=1).hand(0)
