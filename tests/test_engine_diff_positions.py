"""Positions set up from scratch (``from_position``) on every engine: mid-trick after passes,
after a seat went out (接风, R7), after bombs (R8); rebuilt positions of random games that must
equal the original and play on identically; impossible positions; equal positions reached by
different move orders (transpositions) with equal hashes; hash collisions over many random
distinct positions (slow tier, reported); what a seat's view shows (R6)."""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest

import shuangkou as sk
from shuangkou import Hand, Play, State
from shuangkou._reference_game import RefState
from shuangkou.cards import MAX_COPIES

from .budget import budget
from .conftest import PRESET_NAMES
from .test_engine_diff import CLASSES, assert_same, facts, lockstep

R = {name: sk.Rules.preset(name) for name in PRESET_NAMES}


def P(text: str, rules: sk.Rules) -> Play:
    return Play.parse(text, rules)


def build(cls: Any, rules: sk.Rules, hands: list[str], to_act: int, **kw: Any) -> Any:
    return cls.from_position(rules, hands, to_act, **kw)


# -- hand-built positions, expectations worked from R7/R8 ---------------------------------------
@pytest.mark.parametrize("cls", CLASSES)
def test_mid_trick_after_passes(cls: Any) -> None:
    c = R["classic"]
    # Seat 3 played 9; seat 0 passed; seat 1 is to act.
    s = build(cls, c, ["3 4", "5 K", "6 7", "8 8"], 1, table=P("9", c), table_owner=3, passes=1)
    assert s.can_pass() and set(s.legal()) == {P("K", c)}
    s.pass_()
    assert s.to_act == 2 and s.passes == 2
    s.pass_()  # everyone else passed: seat 3 leads a new trick
    assert s.to_act == 3 and s.table is None and s.passes == 0 and s.leader == 3
    assert s.trick == 1 and not s.can_pass()


@pytest.mark.parametrize("cls", CLASSES)
def test_jiefeng_after_the_owner_went_out(cls: Any) -> None:
    b = R["baibian"]
    # Seat 1 went out with its last card, the 9 9 on the table; seat 2 passed; seat 3 to act.
    s = build(
        cls, b, ["5 5", "", "7 7", "3 6"], 3, table=P("9 9", b), table_owner=1, passes=1,
        places=(1,),
    )
    s.pass_()
    s.pass_()  # seat 0 passes: the trick ends, the owner is out -> 接风 to seat 3 (partner)
    assert s.to_act == 3 and s.table is None and s.leader == 3
    s.play(P("3", b))
    assert s.to_act == 0  # seat 1 is skipped from now on (R7)
    s.play(P("5", b))
    assert s.to_act == 2


@pytest.mark.parametrize("cls", CLASSES)
def test_bombs_already_played_count_in_the_result(cls: Any) -> None:
    b = R["baibian"]
    bomb6 = P("6 6 6 6 6 6", b)  # 6★: +6 / -2 each (R8.2), T's: ×4
    bomb7 = P("7 7 7 7 7 7 7", b)  # 7★ of the other team: +12 / -4 each, no multiplier
    s = build(
        cls, b, ["3", "4 4", "5", "8 8"], 0, places=(), bombs=((bomb6,), (bomb7,), (), ()),
    )
    s.play(P("3", b))  # seat 0 out 1st
    s.pass_()
    s.pass_()
    s.pass_()  # 接风 to seat 2
    s.play(P("5", b))  # seat 2 out 2nd: 双扣
    r = s.result
    assert s.is_over and r is not None and r.outcome is sk.Outcome.DOUBLE_WIN
    assert r.places == (0, 2, 3, 1) and r.multiplier == 4  # 1, 3 tie: play order after 2
    # base by place (4, 4, -4, -4) × 4, then contributions 6★ (+6, -2, -2, -2) and 7★
    # (-4, +12, -4, -4).
    assert r.units == (16 + 6 - 4, -16 - 2 + 12, 16 - 2 - 4, -16 - 2 - 4)
    assert [(x.seat, x.stars) for x in r.contributions] == [(0, 6), (1, 7)]


@pytest.mark.parametrize("cls", CLASSES)
def test_position_decided_at_once_mid_trick(cls: Any) -> None:
    q = R["qianbian"]
    # Seat 0 is out; seat 2 plays its last card on the table: 双扣 at once (R7), seat 3 holds
    # 8 8 8 8 8 8 (6★): a held bomb, 2 units from each other seat (R8.4).
    s = build(
        cls, q, ["", "K", "A", "8 8 8 8 8 8 3"], 2, table=P("Q", q), table_owner=1, places=(0,),
    )
    s.play(P("A", q))
    r = s.result
    assert r is not None and s.to_act is None and r.places == (0, 2, 1, 3)
    assert r.units == (3 - 2, -3 - 2, 3 - 2, -3 + 6)
    assert [(x.seat, x.held) for x in r.contributions] == [(3, True)]


IMPOSSIBLE: list[tuple[dict[str, Any], str]] = [
    ({"hands": ["5 5 5 5 5", "5 5 5 5", "3", "4"]}, "more than 8"),
    ({"to_act": 1, "hands": ["3", "", "4", "5"], "places": (1,)}, "has no cards"),
    ({"places": (2,)}, "places"),
    ({"table": None, "passes": 1}, "need a table"),
    ({"table_owner": 2}, "need a table"),
    ({"table": "9", "table_owner": 3, "passes": 3}, "trick is over"),
    ({"table": "9", "table_owner": 3, "passes": 0}, "seat 0 is to act"),
    ({"table": "9", "table_owner": 0, "to_act": 0}, "is to act"),
    ({"hands": ["3", "4", "", "5"], "places": (2,), "table": "9", "table_owner": 1,
      "to_act": 3, "passes": 1}, "seat 0 is to act"),
    ({"hands": ["", "4", "", "5"], "places": (0, 2), "to_act": 1}, "over"),
    ({"hands": ["", "4", "", "5 5"], "places": (2, 0), "to_act": 3, "table": "9",
      "table_owner": 2}, "over"),
    ({"hands": ["", "", "3", "5"], "places": (0, 1), "to_act": 2, "table": "9",
      "table_owner": 0}, "not the last to go out"),
    ({"bombs": ((), ("9 9",), (), ())}, "bomb"),
]


@pytest.mark.parametrize("cls", CLASSES)
@pytest.mark.parametrize("changes, message", IMPOSSIBLE)
def test_impossible_positions_raise(cls: Any, changes: dict[str, Any], message: str) -> None:
    """Each engine refuses; the reference's message is checked (the kernel words its own)."""
    c = R["classic"]
    args: dict[str, Any] = {"hands": ["3", "4", "5", "6"], "to_act": 1}
    args.update(changes)
    for key in ("table",):
        if isinstance(args.get(key), str):
            args[key] = P(args[key], c)
    if "bombs" in args:
        args["bombs"] = tuple(tuple(P(t, c) for t in b) for b in args["bombs"])
    hands, to_act = args.pop("hands"), args.pop("to_act")
    with pytest.raises(ValueError, match=message if cls is RefState else None):
        cls.from_position(c, hands, to_act, **args)


def test_a_hand_built_play_is_validated() -> None:
    c = R["classic"]
    s = RefState.from_position(c, ["3 3 4", "5", "6", "7"], 0)
    # not what 3 3 reads as: forged (the constructor refuses it; an unpickled play is not)
    fake = Play._from_codes(P("3 3", c).packed, P("4 4", c).tag)
    before = s.copy()
    for bad in (fake, P("5", c), 3, "3"):
        with pytest.raises(sk.IllegalPlayError):
            s.play(bad)  # type: ignore[arg-type]
        assert s == before and facts(s) == facts(before)
    with pytest.raises(sk.IllegalPlayError, match="leader"):
        s.pass_()
    with pytest.raises(sk.IllegalPlayError, match="nothing to undo"):
        s.undo()


# -- rebuilt positions of random games -----------------------------------------------------------
def rebuild(cls: Any, s: Any) -> Any:
    """The position of ``s`` set up from scratch through ``cls.from_position``."""
    return cls.from_position(
        s.rules, [s.hand(k) for k in range(4)], s.to_act, table=s.table,
        table_owner=s.table_owner, passes=s.passes, places=s.places,
        bombs=[s.bombs_played(k) for k in range(4)], leader=s.leader, trick=s.trick,
    )


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_rebuilt_mid_game_positions_play_on_identically(preset: str) -> None:
    rules = R[preset]
    rnd = random.Random(len(preset) * 7)
    checked = 0
    for seed in range(3):
        s = RefState.deal(rules, 50 + seed)
        while not s.is_over:
            if rnd.random() < 0.08:
                copies = [rebuild(cls, s) for cls in CLASSES]
                assert copies[0] == s and copies[0].hash == s.hash
                for cp in copies:
                    assert facts(cp) == facts(s) and str(cp) == str(s)
                ref = rebuild(RefState, s)
                lockstep(ref, copies, "random", rnd.randrange(1 << 30), deep=False)
                checked += 1
            plays = s.legal()
            k = rnd.randrange(len(plays) + s.can_pass())
            s.pass_() if k == len(plays) else s.play(plays[k])
    assert checked >= 5


# -- transpositions ----------------------------------------------------------------------------
@pytest.mark.parametrize("cls", CLASSES)
def test_transpositions_equal_and_hash_equal(cls: Any) -> None:
    b = R["baibian"]
    hands = ["3 4 5555 6666 K", "7", "8", "9"]

    def reach(order: list[str]) -> Any:
        s = cls.from_position(b, hands, 0)
        for text in order:  # seat 0 leads each; the others cannot beat it and pass
            s.play(P(text, b))
            if s.table is not None and not s.is_over:
                while s.to_act != 0:
                    s.pass_()
        return s

    orders = [["3", "4", "5555", "6666"], ["4", "3", "6666", "5555"], ["5555", "3", "6666", "4"]]
    reached = [reach(o) for o in orders]
    for s in reached[1:]:
        assert s == reached[0] and s.hash == reached[0].hash and hash(s) == hash(reached[0])
    assert reached[0].bombs_played(0) == (P("5555", b), P("6666", b))  # kept in play order
    other = reach(["3", "5555", "6666"])
    assert other != reached[0] and other.hash != reached[0].hash


@pytest.mark.parametrize("cls", CLASSES)
def test_random_walks_of_a_small_deal_group_by_position(cls: Any) -> None:
    """Many random walks from one small deal: positions equal by the reference's canonical key
    are equal on the engine with one hash; distinct ones are unequal with (here) distinct
    hashes."""
    q = R["qianbian"]
    hands = ["3 3 4 5 BJ", "3 4 4 6", "5 5 6 SJ", "6 7 7 BJ"]
    rnd = random.Random(5)
    by_key: dict[tuple[object, ...], set[int]] = {}
    for _ in range(60):
        ref = RefState.from_position(q, hands, 0)
        s = cls.from_position(q, hands, 0)
        while not ref.is_over:
            by_key.setdefault(ref.key(), set()).add(s.hash)
            assert s == ref if cls is RefState else s.hash in by_key[ref.key()]
            plays = ref.legal()
            k = rnd.randrange(len(plays) + ref.can_pass())
            for e in (ref, s):
                e.pass_() if k == len(plays) else e.play(plays[k])
    assert all(len(h) == 1 for h in by_key.values())
    hashes = [next(iter(h)) for h in by_key.values()]
    assert len(set(hashes)) == len(hashes) and len(hashes) > 100


# -- hash collisions over random distinct positions ----------------------------------------------
@cache
def _plays(rules: sk.Rules) -> tuple[list[Play], list[Play]]:
    """Tables (every single and pair of a natural rank) and a pool of bombs."""
    tables = [P(" ".join([sym] * n), rules) for sym in sk.cards.RANK_SYMBOLS[:13] for n in (1, 2)]
    return tables, [P("5555", rules), P("6666666", rules), P("SJ SJ BJ BJ", rules)]


def random_position(rnd: random.Random, rules: sk.Rules, cls: Any) -> Any:
    """A random reachable-looking position: random bombs already played and maybe a table (a
    single or pair) with a consistent owner and passes, then random hands from the rest of the
    two decks (some empty: out in random order, the deal not decided)."""
    tables, pool = _plays(rules)
    while True:
        bombs = [tuple(rnd.choice(pool) for _ in range(rnd.randrange(3))) for _ in range(4)]
        table = rnd.choice(tables) if rnd.random() < 0.6 else None
        left = list(MAX_COPIES)
        for p in [b for seat in bombs for b in seat] + ([table] if table else []):
            for r, c in enumerate(p.cards.counts):
                left[r] -= c
        if min(left) < 0:
            continue
        deck = [r for r in range(15) for _ in range(left[r])]
        rnd.shuffle(deck)
        counts = [[0] * 15 for _ in range(4)]
        for seat in range(4):
            if rnd.random() < 0.15:
                continue
            for r in deck[25 * seat : 25 * seat + rnd.randrange(1, 26)]:
                counts[seat][r] += 1
        empty = [seat for seat in range(4) if not any(counts[seat])]
        rnd.shuffle(empty)
        places = tuple(empty)
        first = places[0] if places else -1
        if places and ((first ^ 2) in places or {first ^ 1, first ^ 3} <= set(places)):
            continue  # R7: decided, the deal would be over
        hands = [Hand.from_counts(c) for c in counts]
        active = [seat for seat in range(4) if any(counts[seat])]
        owner = None
        passes = 0
        if table is not None:
            owner = rnd.choice(active + list(places[-1:]))
            after = [(owner + k) & 3 for k in (1, 2, 3) if any(counts[(owner + k) & 3])]
            passes = rnd.randrange(len(after))
            to_act = after[passes]
            if table.is_bomb:  # the owner played it: it is among its bombs (check_position)
                bombs[owner] += (table,)
        else:
            to_act = rnd.choice(active)
        return cls.from_position(  # up to 25 cards a seat plus its bombs: not a 27-card deal
            rules, hands, to_act, table=table, table_owner=owner, passes=passes, places=places,
            bombs=bombs, hand_size=None,
        )


def identity(s: Any) -> str:
    """The position as text with each seat's bombs sorted (their order is not part of it)."""
    fields = str(s).split()
    fields[6] = "/".join(",".join(sorted(b.split(","))) for b in fields[6].split("/"))
    return " ".join(fields)


POSITIONS = budget(ci=2_000, full=200_000)  # set up one by one: ~0.5 ms each in Python
WALK_POSITIONS = budget(ci=20_000, full=1_000_000)


@pytest.mark.slow
@pytest.mark.parametrize("cls", CLASSES)
def test_hash_collisions_over_random_positions(
    cls: Any, record_property: Callable[[str, object], None]
) -> None:
    rnd = random.Random(2026)
    hash_of: dict[str, int] = {}
    hashes: set[int] = set()
    collisions = 0
    for i in range(POSITIONS):
        s = random_position(rnd, R[PRESET_NAMES[i % 4]], cls)
        ident = identity(s)
        if ident in hash_of:
            assert hash_of[ident] == s.hash  # equal positions, equal hash
            continue
        hash_of[ident] = s.hash
        collisions += s.hash in hashes
        hashes.add(s.hash)
    distinct = hash_of
    record_property("positions", len(distinct))
    record_property("collisions", collisions)
    print(f"{cls.__name__}: {len(distinct)} distinct positions hashed, {collisions} collisions")
    assert len(distinct) > POSITIONS * 0.99
    assert collisions <= 1  # 64-bit: expected ~n²/2**65, 3e-8 for a million


def state_key(s: State) -> tuple[object, ...]:
    """What State equality compares, read through its API: hands, seat to act, table and
    owner, passes, places, each seat's bombs (their tags, a multiset) and the escape."""
    table = s.table
    return (
        tuple(s.hand(k).packed for k in range(4)), s.to_act,
        None if table is None else (table.packed, table.tag), s.table_owner, s.passes,
        s.places, tuple(tuple(sorted(p.tag for p in s.bombs_played(k))) for k in range(4)),
        s.escape,
    )


@pytest.mark.slow
def test_kernel_hash_collisions_along_random_walks(
    record_property: Callable[[str, object], None],
) -> None:
    """The kernel's incremental Zobrist hash over the positions of random games (every
    preset, random deals, uniform over plays and pass): distinct positions (by ``state_key``)
    counted against distinct hashes; equal positions must hash equal."""
    rnd = random.Random(77)
    hash_of: dict[tuple[object, ...], int] = {}
    hashes: set[int] = set()
    collisions = seen = deals = 0
    while seen < WALK_POSITIONS:
        s = State.deal(R[PRESET_NAMES[deals % 4]], rnd.getrandbits(64))
        deals += 1
        while not s.is_over and seen < WALK_POSITIONS:
            seen += 1
            key = state_key(s)
            h = s.hash
            if key in hash_of:
                assert hash_of[key] == h  # equal positions, equal hash
            else:
                hash_of[key] = h
                collisions += h in hashes
                hashes.add(h)
            n = len(s.legal())
            k = rnd.randrange(n + s.can_pass())
            s.pass_() if k == n else s.play(k)
    record_property("positions", len(hash_of))
    record_property("collisions", collisions)
    print(f"State walks: {deals} deals, {seen} positions, {len(hash_of)} distinct, "
          f"{collisions} collisions")
    assert len(hash_of) > WALK_POSITIONS * 0.9
    assert collisions <= 1  # 64-bit: expected ~n²/2**65, 3e-8 for a million


# -- views (R6) ----------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", CLASSES)
def test_view_shows_only_what_the_seat_may_know(cls: Any) -> None:
    for name, visible in (("baibian", False), ("jj", True)):
        s = cls.deal(R[name], 9)
        seat = s.to_act
        v = s.view(seat)
        assert v.hand == s.hand(seat)
        assert (v.partner_hand == s.hand(seat ^ 2)) if visible else v.partner_hand is None
        assert v.card_counts == (27, 27, 27, 27) and v.table is None
        assert [v.cards_left(k) for k in range(4)] == [27] * 4 and v.to_act == seat
        assert set(v.legal()) == set(s.legal()) and not v.can_pass()
        assert v.cards_played(seat) == sk.Hand() and v.bombs_played(seat) == ()
        other = s.view((seat + 1) & 3)
        assert len(other.legal()) == 0 and other.hand == s.hand((seat + 1) & 3)
        p = s.legal()[0]
        s.play(p)
        after = s.view(seat)
        assert after.cards_played(seat) == p.cards and after.table == p
        assert after.card_counts[seat] == 27 - p.size


def test_reference_engine_legal_plays_do_not_depend_on_the_backend() -> None:
    """RefState lists the oracle's plays: same set as the kernel's, in the oracle's order."""
    b = R["baibian"]
    s = RefState.deal(b, 4)
    from shuangkou import _reference

    hand = s.hand(s.to_act)
    words, tags = _reference.generate(hand.packed, b.flags, 0, False)
    assert [(p.packed, p.tag) for p in s.legal()] == list(zip(words, tags))
    assert set(s.legal()) == set(sk.legal_plays(hand, b))
    assert_same(s, [rebuild(RefState, s)])
