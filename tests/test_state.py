"""``sk.State`` (the C game state of ``_state.pxd``) against the Python ``Game`` (R7 flow, R8
scoring through ``_reference_scoring.score``): seeded random games of every preset step by
step, results and their parts, undo/copy, hashing, set-up positions, seat views and every
error path."""

from __future__ import annotations

import gc
import random

import pytest
from hypothesis import given, settings

from shuangkou import Hand, IllegalPlayError, Play, Rules, State, _sim, classify
from shuangkou._reference_scoring import best_held_bombs, contribution_units
from shuangkou.game import Game
from shuangkou.plays import PASS, legal_plays
from shuangkou.rng import deal_seed
from shuangkou.scoring import Outcome
from shuangkou.sim import kernel_log
from tests.budget import budget
from tests.conftest import PRESET_NAMES, hands

MODES = {"classic": 0, "baibian": 1, "jj": 2, "qianbian": 3}


def same_position(st: State, g: Game) -> None:
    """Every State property equals the Game's."""
    assert st.is_over == g.is_over
    assert st.to_act == g.to_act
    assert st.table == g.table
    assert st.table_owner == g.table_owner
    assert st.passes == g.passes
    assert st.leader == g.leader
    assert st.trick == g.trick
    assert st.places == g.places
    assert st.escape == g.escape
    assert st.card_counts == g.card_counts
    assert st.can_pass() == g.can_pass()
    for s in range(4):
        assert st.hand(s) == g.hand_ranks(s)
        assert st.cards_left(s) == g.cards_left(s)
        assert st.bombs_played(s) == g.bombs_played(s)


def same_result(st: State, g: Game) -> None:
    """The kernel's Result equals scoring.score's, part by part. Held bombs (R8.4) may be a
    different split of equal value: compared by each seat's total."""
    a, b = st.result, g.result
    assert a is not None and b is not None
    if a.outcome is Outcome.ESCAPE and not st.places:
        # Nobody out: R7 ranks by cards left, ties in play order from the first leader (as
        # game.py documents; its code starts one seat early). Checked on its own.
        fl = st.leader if st.trick == 0 else None
        key = sorted(range(4), key=lambda t: (st.cards_left(t), (t - (fl or 0)) & 3))
        if fl is not None:
            assert a.places == tuple(key)
        b = b.__class__(**{**b.__dict__, "places": a.places, "first_team": a.first_team})
    assert (a.outcome, a.places, a.first_team, a.base, a.multiplier) == (
        b.outcome, b.places, b.first_team, b.base, b.multiplier)
    assert a.multiplier_bombs == b.multiplier_bombs
    assert [c for c in a.contributions if not c.held] == [c for c in b.contributions if not c.held]

    def held(r: object) -> list[tuple[int, int, int, int]]:
        tot = [[0, 0, 0, 0] for _ in range(4)]
        for c in r.contributions:  # type: ignore[attr-defined]
            if c.held:
                for s in range(4):
                    tot[c.seat][s] += c.contribution[s]
        return [tuple(t) for t in tot]  # type: ignore[misc]

    assert held(a) == held(b)
    assert (a.unclamped, a.units, a.clamped, a.escape, a.scores) == (
        b.unclamped, b.units, b.clamped, b.escape, b.scores)
    assert (a.base_score, a.rules_name, a.scoring) == (b.base_score, b.rules_name, b.scoring)


def play_both(rules: Rules, seed: int, check_lists: bool = True, abandon: bool = False) -> int:
    """A random game through State and Game side by side; returns the decisions made."""
    g = Game(rules, seed)
    st = State.deal(rules, seed)
    rng = random.Random(seed)
    n = 0
    while not g.is_over:
        same_position(st, g)
        plays = g.legal_plays()
        if check_lists:
            assert list(st.legal()) == plays
            assert len(st.legal()) == len(plays)
            assert list(st.legal("fewest")) == g.legal_plays("fewest")
        if abandon and rng.random() < 0.01:
            seat = rng.randrange(4)
            g.abandon(seat)
            st.abandon(seat)
            break
        k = rng.randrange(len(plays) + g.can_pass())
        if k == len(plays):
            g.pass_()
            st.pass_()
        elif rng.random() < 0.5:
            g.play(plays[k])
            st.play(k)
        else:
            g.play(plays[k])
            st.play(plays[k])
        n += 1
    same_position(st, g)
    same_result(st, g)
    assert list(st.legal()) == []
    return n


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_random_games_match_game(preset: str) -> None:
    rules = Rules.preset(preset)
    for seed in range(12):
        play_both(rules, seed)
    for seed in range(100, 110):
        play_both(rules, seed, abandon=True)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_random_games_match_game_campaign(preset: str) -> None:
    rules = Rules.preset(preset)
    for seed in range(budget(ci=40, full=1000)):
        play_both(rules, 10_000 + seed, check_lists=seed % 4 == 0, abandon=seed % 3 == 0)


def test_house_rules_scoring_matches_game() -> None:
    """Options every preset leaves at its default reach the kernel's scoring."""
    for rules in (
        Rules.preset("classic").replace(four_jokers_multiplier=4, base_score=10),
        Rules.preset("jj").replace(jj_single_win=4),
        Rules.preset("baibian").replace(held_bombs_score=True, score_cap=20),
        Rules.preset("qianbian").replace(score_cap=40, escape_penalty=7),
    ):
        for seed in range(8):
            play_both(rules, seed, check_lists=False, abandon=seed % 2 == 0)


def test_deal_is_games_start() -> None:
    for preset in PRESET_NAMES:
        rules = Rules.preset(preset)
        for seed in (0, 7, 2**64 - 1, 2**63):  # negative seeds are refused (test_safety_args)
            st, g = State.deal(rules, seed), Game(rules, seed)
            same_position(st, g)
            assert st.trick == 0 and st.table is None
            for s in range(4):
                assert st.cards_played(s) == Hand()
    assert State.deal("baibian", 7) == State.deal(Rules.preset("baibian"), 7)


def test_kernel_self_play_replays_through_state() -> None:
    """Each logged kernel decision is legal in the State and the results agree."""
    for preset in PRESET_NAMES:
        for i, policy in enumerate(("random", "greedy")):
            rec, actions = kernel_log(preset, 5, i, policy)
            st = State.deal(preset, deal_seed(5, i))
            for seat, p in actions:
                assert st.to_act == seat
                st.play(p) if p else st.pass_()
            assert st.is_over
            assert st.result is not None
            assert st.result.units == rec["units"]
            assert st.result.places == rec["places"]
            assert st.trick + 1 == rec["tricks"]


# -- undo, copy, equality, hash -------------------------------------------------------------
def snapshot(st: State) -> tuple[object, ...]:
    return (st.to_act, st.table, st.table_owner, st.passes, st.leader, st.trick, st.places,
            st.escape, st.is_over, st.hash, tuple(st.hand(s) for s in range(4)),
            tuple(st.bombs_played(s) for s in range(4)), list(st.legal()))


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_undo_reverts_every_action(preset: str) -> None:
    rng = random.Random(3)
    st = State.deal(preset, 3)
    trail = [snapshot(st)]
    while not st.is_over:
        n = len(st.legal())
        k = rng.randrange(n + st.can_pass())
        if rng.random() < 0.02:
            st.abandon(rng.randrange(4))
        elif k == n:
            st.pass_()
        else:
            st.play(k)
        trail.append(snapshot(st))
        if rng.random() < 0.3:  # undo and redo the same move: back to the same position
            copy = st.copy()
            st.undo()
            assert snapshot(st) == trail[-2]
            assert st != copy or st.hash == copy.hash
            trail.pop()
            st = copy
            trail.append(snapshot(st))
    result = st.result
    while len(trail) > 1:
        trail.pop()
        st.undo()
        assert snapshot(st) == trail[-1]
    assert result is not None and st.result is None
    with pytest.raises(IllegalPlayError, match="nothing to undo"):
        st.undo()


def test_copy_is_independent() -> None:
    st = State.deal("jj", 11)
    st.play(0)
    c = st.copy()
    assert c == st and hash(c) == hash(st) and c.hash == st.hash
    c.play(len(c.legal()) - 1)
    assert c != st
    c.undo()
    assert c == st
    c.undo()
    st.undo()
    assert c == st and c.to_act == st.to_act
    import copy as copy_mod

    assert copy_mod.copy(st) == st and copy_mod.deepcopy(st) == st


def test_pickle_keeps_the_position() -> None:
    import pickle

    rng = random.Random(2)
    for preset in PRESET_NAMES:
        st = State.deal(preset, 2)
        for _ in range(rng.randrange(30, 200)):
            if st.is_over:
                break
            n = len(st.legal())
            k = rng.randrange(n + st.can_pass())
            st.pass_() if k == n else st.play(k)
        back = pickle.loads(pickle.dumps(st))
        assert back == st and back.hash == st.hash and snapshot(back) == snapshot(st)
        assert back.result == st.result


def test_equal_positions_by_other_move_orders_hash_equal() -> None:
    """Two tricks led by the same seat, everybody passing, in either order: one position
    (the trick counter and the history are not part of it)."""
    rules = Rules.preset("baibian")
    hands4 = ["3 4 5 5 5 5 9", "6 7", "8 J", "Q K"]
    a = State.from_position(rules, hands4, 0)
    b = a.copy()
    for st, order in ((a, ("3", "5 5 5 5")), (b, ("5 5 5 5", "3"))):
        for text in order:
            st.play(Play.parse(text, rules))
            for _ in range(3):
                st.pass_()
    assert a == b and a.hash == b.hash and hash(a) == hash(b)
    assert a.bombs_played(0) == b.bombs_played(0)
    # The same position set up directly hashes the same (the incremental hash = from scratch).
    c = State.from_position(rules, ["4 9", "6 7", "8 J", "Q K"], 0, bombs=(["5 5 5 5"], [], [], []))
    assert c == a and c.hash == a.hash
    # Other fields do change the hash.
    d = State.from_position(rules, ["4 9", "6 7", "8 J", "Q K"], 0)
    assert d != a and d.hash != a.hash
    assert a != "not a state"


def test_bombs_are_a_multiset_in_the_hash() -> None:
    rules = Rules.preset("qianbian")
    h = ["3", "4", "5", "6"]
    one = State.from_position(rules, h, 0, bombs=(["7 7 7 7"], [], [], []))
    two = State.from_position(rules, h, 0, bombs=(["7 7 7 7", "7 7 7 7"], [], [], []))
    other_seat = State.from_position(rules, h, 0, bombs=([], ["7 7 7 7"], [], []))
    order = State.from_position(rules, h, 0, bombs=(["8 8 8 8", "7 7 7 7"], [], [], []))
    order2 = State.from_position(rules, h, 0, bombs=(["7 7 7 7", "8 8 8 8"], [], [], []))
    assert len({one.hash, two.hash, other_seat.hash, order.hash}) == 4
    assert one != two and one != other_seat
    assert order == order2 and order.hash == order2.hash


def test_incremental_hash_equals_hash_from_scratch() -> None:
    """At every step of random games, a State set up from the same position by
    from_position (hash computed from scratch) is equal and hashes the same."""
    for preset in PRESET_NAMES:
        rules = Rules.preset(preset)
        rng = random.Random(preset)
        st = State.deal(rules, 21)
        while not st.is_over:
            if st.places == () or len(st.places) < 2:
                fresh = State.from_position(
                    rules, [st.hand(s) for s in range(4)], st.to_act, table=st.table,
                    table_owner=st.table_owner, passes=st.passes, places=st.places,
                    bombs=[st.bombs_played(s) for s in range(4)],
                )
                assert fresh == st and fresh.hash == st.hash
            n = len(st.legal())
            k = rng.randrange(n + st.can_pass())
            st.pass_() if k == n else st.play(k)


def test_hash_collisions_over_random_positions() -> None:
    seen: dict[int, tuple[object, ...]] = {}
    count = 0
    for seed in range(budget(ci=60, full=600)):
        rng = random.Random(seed)
        st = State.deal(PRESET_NAMES[seed % 4], seed)
        while not st.is_over:
            key = snapshot(st)[:9] + snapshot(st)[10:12]
            prev = seen.setdefault(st.hash, key)
            assert prev == key, "two different positions with one hash"
            count += 1
            n = len(st.legal())
            k = rng.randrange(n + st.can_pass())
            st.pass_() if k == n else st.play(k)
    assert count > 1000


# -- positions set up by hand -------------------------------------------------------------------
def test_from_position_mid_trick() -> None:
    rules = Rules.preset("baibian")
    st = State.from_position(
        rules, ["3 3 6 7 8 9 BJ", "4 4", Hand.parse("K K").packed, Hand.parse("A")], 2,
        table="5 6 7 8 9", table_owner=0, passes=1, trick=4,
    )
    assert st.to_act == 2 and st.passes == 1 and st.trick == 4 and st.leader == 0
    assert st.table == Play.parse("5 6 7 8 9", rules)
    assert list(st.legal()) == []
    st.pass_()
    assert st.to_act == 3
    st.pass_()  # seats 1..3 all passed: seat 0 leads
    assert st.to_act == 0 and st.table is None and st.trick == 5
    # R9.9: from 3 3 6 7 8 9 BJ only 6 7 8 9 BJ beats 5 6 7 8 9.
    st2 = State.from_position(rules, ["4", "5", "3 3 6 7 8 9 BJ", "6"], 2, table="5 6 7 8 9",
                              table_owner=1)
    assert [str(p) for p in st2.legal()] == ["6 7 8 9 BJ"]
    assert st2.legal().index(Play.parse("6 7 8 9 BJ", rules)) == 0
    st2.play(Play.parse("6 7 8 9 BJ", rules))
    assert st2.places == () and st2.to_act == 3 and st2.hand(2) == Hand.parse("3 3")
    assert st2.cards_played(2) == Hand.parse("6 7 8 9 BJ")


def test_from_position_finished_deals() -> None:
    """A finished deal (to_act None: decided, or abandoned) is a position too; its result is
    the one reached by play."""
    rules = Rules.preset("classic")
    played = State.from_position(rules, ["3", "4 4", "5", "6"], 0)
    played.play(Play.parse("3", rules))
    played.abandon(3)
    direct = State.from_position(rules, ["", "4 4", "5", "6"], None, table="3", table_owner=0,
                                 places=(0,), escape=3)
    assert direct == played and direct.hash == played.hash and direct.is_over
    assert direct.result == played.result and direct.to_act is None
    decided = State.from_position(rules, ["", "4", "", "6"], None, places=(0, 2))
    assert decided.is_over and decided.result is not None
    assert decided.result.outcome is Outcome.DOUBLE_WIN and decided.result.places == (0, 2, 3, 1)
    with pytest.raises(IllegalPlayError, match="over"):
        decided.play(0)


def test_from_position_finishers_and_jiefeng() -> None:
    """接风 (R7): seat 0 goes out with the top play; after everyone passes its partner leads."""
    rules = Rules.preset("classic")
    st = State.from_position(rules, ["9", "3 4", "5 6", "7 8"], 0)
    st.play(Play.parse("9", rules))
    assert st.places == (0,) and st.to_act == 1
    st.pass_()
    st.pass_()
    st.pass_()
    assert st.to_act == 2 and st.table is None and st.leader == 2


def test_from_position_errors() -> None:
    rules = Rules.preset("baibian")
    four = ["3", "4", "5", "6"]
    bad: list[tuple[dict[str, object], str]] = [
        ({"hands": four[:3]}, "4 hands"),
        ({"hands": ["3", "4", "5", 1.5]}, None),  # type error below
        ({"hands": ["3", "4", "5", 9 << 4]}, "packed cards word"),
        ({"hands": ["3 3 3 3 3", "3 3 3 3", "5", "6"]}, "more cards than the deck"),
        ({"to_act": 4}, "to_act must be in 0..3"),
        ({"to_act": True}, "to_act must be an integer, not a bool"),
        ({"table": "7"}, "table_owner"),
        ({"table": "7", "table_owner": 0}, "owner cannot be the seat to act"),
        ({"table": "7", "table_owner": 3, "passes": 3}, "passes must be"),
        ({"table": "7", "table_owner": 2}, "turn"),
        ({"table": "3 4", "table_owner": 3}, "not a valid play"),
        ({"table_owner": 3}, "no table"),
        ({"passes": 1}, "no table"),
        ({"places": (1,)}, "exactly when"),
        ({"hands": ["3", "", "5", "6"]}, "exactly when"),
        ({"hands": ["3", "", "5", ""], "places": (1, 3)}, "over at this position"),
        ({"escape": 2}, "over at this position"),
        ({"hands": ["", "", "3", "5"], "places": (0, 1), "to_act": 2, "table": "9",
          "table_owner": 0}, "not the last to go out"),
        ({"hands": ["", "4", "5", "6"], "places": (0,)}, "cannot act"),
        ({"hands": ["3", "", "5", "6"], "places": (1, 1)}, "out twice"),
        ({"bombs": (["3 4"], [], [], [])}, "not a valid play"),
        ({"bombs": (["3 3"], [], [], [])}, "not a bomb"),
        ({"bombs": ([], [])}, "each of the 4 seats"),
        ({"bombs": (["3 3 3 3 3 3 3 3"], [], [], [])}, "more cards than the deck"),
        ({"trick": -1}, "trick"),
    ]
    for change, msg in bad:
        kw: dict[str, object] = {"hands": four, "to_act": 0, **change}
        hands_, to_act = kw.pop("hands"), kw.pop("to_act")
        if msg is None:
            with pytest.raises(TypeError):
                State.from_position(rules, hands_, to_act, **kw)  # type: ignore[arg-type]
            continue
        with pytest.raises(ValueError, match=msg):
            State.from_position(rules, hands_, to_act, **kw)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        State()
    with pytest.raises(TypeError):
        State.from_position(rules, four, 0, table=7)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        State.from_position("nonsense", four, 0)


# -- actions: errors change nothing -------------------------------------------------------------
def test_illegal_actions_raise_and_change_nothing() -> None:
    rules = Rules.preset("baibian")
    st = State.from_position(rules, ["3 3 7 BJ", "5 5", "9", "K K"], 1, table="4 4",
                             table_owner=0)
    before = snapshot(st)
    with pytest.raises(IllegalPlayError, match="does not hold"):
        st.play(Play.parse("9 9", rules))
    with pytest.raises(IllegalPlayError, match="does not read"):
        # forged (the constructor refuses it; an unpickled play is not checked)
        st.play(Play._from_codes(Play.parse("5 5", rules).packed, Play.parse("Q Q", rules).tag))
    with pytest.raises(IllegalPlayError, match="does not beat"):
        st.play(Play.parse("5", rules))
    with pytest.raises(IllegalPlayError, match="index 5"):
        st.play(5)
    with pytest.raises(IllegalPlayError, match="index -1"):
        st.play(-1)
    with pytest.raises(IllegalPlayError, match="index"):
        st.play(2**70)
    with pytest.raises(TypeError):
        st.play("5 5")  # type: ignore[arg-type]
    with pytest.raises(IllegalPlayError, match="abandon"):
        st.abandon(7)
    with pytest.raises(ValueError, match="wilds"):
        st.legal("some")
    with pytest.raises(ValueError, match="seat"):
        st.hand(4)
    assert snapshot(st) == before
    st.play(PASS)  # Play.PASS passes
    assert st.to_act == 2 and st.passes == 1
    st.undo()
    import numpy as np

    st.play(np.int64(0))  # any integer type indexes legal()
    assert st.table == Play.parse("5 5", rules)
    lead = State.from_position(rules, ["3", "4", "5", "6"], 0)
    with pytest.raises(IllegalPlayError, match="must play"):
        lead.pass_()
    lead.abandon(2)
    assert lead.is_over and lead.to_act is None and lead.escape == 2
    for action in (lambda: lead.play(0), lead.pass_, lambda: lead.abandon(1)):
        with pytest.raises(IllegalPlayError, match="over"):
            action()
    res = lead.result
    assert res is not None and res.outcome is Outcome.ESCAPE
    assert res.units == (0, 0, -12, 0) and res.places == (0, 1, 2, 3)


def test_legal_view_is_lazy_live_and_complete() -> None:
    rules = Rules.preset("qianbian")
    st = State.deal(rules, 9)
    view = st.legal()
    plays = legal_plays(st.hand(st.to_act), rules)  # type: ignore[arg-type]
    assert len(view) == len(plays) and list(view) == plays
    assert view[0] == plays[0] and view[-1] == plays[-1] and view[2:5] == plays[2:5]
    assert plays[3] in view and "x" not in view and PASS not in view
    with pytest.raises(IndexError):
        view[len(plays)]
    with pytest.raises(ValueError):
        view.index(PASS)
    assert repr(view) == f"<LegalPlays: {len(plays)} plays>"
    st.play(0)  # the view follows the position
    assert list(view) == legal_plays(st.hand(st.to_act), rules, st.table)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        type(view)()


# -- seat views -----------------------------------------------------------------------------------
def test_seat_view_shows_only_what_the_seat_may_know() -> None:
    for preset in ("baibian", "jj"):
        rules = Rules.preset(preset)
        st = State.deal(rules, 4)
        st.play(0)
        seat = st.to_act
        assert seat is not None
        v = st.view(seat)
        assert v.seat == seat and v.rules == rules and v.hand == st.hand(seat)
        assert v.partner_hand == (st.hand(seat ^ 2) if rules.partner_visible else None)
        assert v.to_act == seat and v.table == st.table and v.table_owner == st.table_owner
        assert v.card_counts == st.card_counts and v.passes == 0 and v.places == ()
        assert v.leader == st.leader and v.trick == 0 and not v.is_over and v.result is None
        assert v.cards_played(st.table_owner) == st.table.cards  # type: ignore[union-attr]
        assert v.cards_left(0) == st.cards_left(0) and v.bombs_played(0) == ()
        assert list(v.legal()) == list(st.legal()) and v.can_pass()
        other = st.view(seat ^ 1)
        assert len(other.legal()) == 0 and not other.can_pass()
        # No way from the view to the State (attributes, GC referents) or its hidden hands.
        assert not any(isinstance(getattr(v, a, None), State) for a in dir(v))
        assert not any(isinstance(r, State) for r in gc.get_referents(v))
        assert not any(isinstance(r, State) for r in gc.get_referents(v.legal()))
        assert "hand" not in [a for a in dir(v) if a.startswith("_s")]
        with pytest.raises(TypeError):
            type(v)()
        assert repr(v).startswith(f"<SeatView seat {seat}")


# -- R8.4 held bombs ------------------------------------------------------------------------------
def check_held(hand: Hand, rules: Rules) -> None:
    mode = MODES[rules.scoring]
    want = best_held_bombs(hand, rules).per_seat
    assert _sim.held_value(hand.packed, rules.flags, mode) == want
    value, parts = _sim.held_split(hand.packed, rules.flags, mode)
    assert value == want
    left = hand.packed
    total = 0
    for word, tag in parts:  # disjoint bombs taken from the hand, each read as its tag
        cards = Hand._from_packed_unchecked(word)
        assert all(a <= b for a, b in zip(cards.counts, Hand._from_packed_unchecked(left).counts))
        left -= word
        p = Play._from_codes(word, tag)
        assert p.is_bomb and p in classify(cards, rules)
        total += contribution_units(p.stars, rules.scoring)
    assert total == value


@settings(max_examples=budget(ci=150, full=3000))
@given(hands(max_cards=27))
def test_held_bombs_match_scoring_random(hand: Hand) -> None:
    for preset in ("baibian", "qianbian"):
        check_held(hand, Rules.preset(preset))


@settings(max_examples=budget(ci=40, full=400))
@given(hands(max_cards=60, jokers=4))
def test_held_bombs_match_scoring_big_hands(hand: Hand) -> None:
    check_held(hand, Rules.preset("qianbian"))


def test_held_bombs_full_deck_and_edges() -> None:
    q = Rules.preset("qianbian")
    full = Hand.from_counts([8] * 13 + [2, 2])
    check_held(full, q)
    assert _sim.held_value(full.packed, q.flags, 3) == 500
    for text in ("", "SJ SJ BJ", "SJ SJ BJ BJ", "3 3 3 3 3 3", "4444 5555 6666 BJ",
                 "3333 4444 5555 6666 7777 8888 9999", "7 7 7 7 7 7 7 7 SJ SJ BJ BJ"):
        check_held(Hand.parse(text), q)
        check_held(Hand.parse(text), Rules.preset("baibian"))
    assert _sim.held_split(full.packed, Rules.preset("classic").flags, 0) == (0, [])


def test_held_bombs_in_the_result() -> None:
    """A 千变 deal that ends with bombs in hand lists them, and their units add up."""
    rules = Rules.preset("qianbian")
    st2 = State.from_position(rules, ["3", "4 4", "9", "6 6 6 6 6 6 6 BJ"], 0)
    st2.play(0)  # seat 0 out
    st2.play(0)  # seat 1 plays a 4
    st2.play(0)  # seat 2 plays 9 and is out: the first finisher's partner, 双扣
    res = st2.result
    assert res is not None and res.outcome is Outcome.DOUBLE_WIN
    held = [c for c in res.contributions if c.held]
    assert [(c.seat, c.stars) for c in held] == [(3, 8)]
    assert held[0].contribution == (-16, -16, -16, 48)
    g = Game.from_deal(rules, ["3s", "4s 4h", "9s", "6s 6h 6c 6d 6s 6h 6c BJ"], leader=0)
    for _ in range(3):
        g.play(g.legal_plays()[0])
    assert g.result is not None and g.result.units == res.units


def test_legal_lists_longer_than_a_slots_first_buffer() -> None:
    """The legal-plays cache starts every slot on one shared allocation of 256 plays each; a
    longer list (qianbian deal 1 leads with 1,463 plays) moves its slot to buffers of its
    own. Every slot, grown or not, lists the position's plays: those of ``legal_plays`` on
    the seat's hand, after plays and undos that cycle through all 16 slots."""
    st = State.deal("qianbian", 1)
    rules = Rules.preset("qianbian")

    def same() -> None:
        hand = st.hand(st.to_act)
        assert list(st.legal()) == legal_plays(hand, rules, st.table)

    assert len(st.legal()) > 256
    same()
    rnd = random.Random(1)
    for _ in range(40):
        legal = st.legal()
        st.play(rnd.randrange(len(legal))) if not st.can_pass() else st.pass_()
        same()
    for _ in range(40):
        st.undo()
        same()
    assert len(st.legal()) > 256
