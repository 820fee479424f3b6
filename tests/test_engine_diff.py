"""Differential tests of the game engines (RULES.md R7 flow, R8 scoring) against the reference
engine :class:`~shuangkou._reference_game.RefState` (pure Python, plays from the oracle
``_reference.py``, scores from ``_reference_scoring.py``).

Step by step on random games of every preset and policy, each engine must agree with the
reference on everything a position shows: the seat to act, the table and its owner, the passes,
the leader and trick, the places, every hand, every seat's bombs, whether pass is legal, the
legal plays (as sets; the kernel's also in ``legal_plays`` order), and at the end the whole
``Result`` (outcome, places, base, multiplier and its bombs, every played bomb's contribution,
the cap, the units; see ``result_facts`` for held bombs). ``copy``/``undo`` are checked on the
way, and the position text: each engine writes the reference's text and reads it back.

The slow tier (``@pytest.mark.slow``, sized by ``tests/budget.py``) plays ≥ 1,000 games per
preset under ``SK_BUDGET=full``; the default tier a few.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import shuangkou as sk
from shuangkou import State, _core, _reference, legal_plays
from shuangkou._reference_game import RefState
from shuangkou._reference_scoring import contribution_units
from shuangkou.game import Game
from shuangkou.plays import Play
from shuangkou.rng import SplitMix64
from shuangkou.scoring import Result
from shuangkou.sim import greedy_policy

from .budget import budget
from .conftest import PRESET_NAMES

R = {name: sk.Rules.preset(name) for name in PRESET_NAMES}
POLICIES = ("random", "greedy")
CLASSES: list[Any] = [RefState, State]
"""Every engine class with the State API: the reference first, then the kernel's."""
Engine = Any  # RefState, the kernel State, or a Game


# -- what a position shows -----------------------------------------------------------------------
def _hand(e: Engine, seat: int) -> sk.Hand:
    hand: sk.Hand = e.hand_ranks(seat) if isinstance(e, Game) else e.hand(seat)
    return hand


def _legal(e: Engine, wilds: str = "all") -> list[Play]:
    return list(e.legal_plays(wilds) if isinstance(e, Game) else e.legal(wilds))


def result_facts(e: Engine) -> object:
    """The result as compared. Held bombs (R8.4) count by their value: a hand may split into
    bombs of equal total value in several ways (``check_held`` checks each engine's split is
    one)."""
    r: Result | None = e.result
    if r is None:
        return None
    check_held(e, r)
    held = [[0] * 4 for _ in range(4)]
    for c in r.contributions:
        if c.held:
            held[c.seat] = [a + b for a, b in zip(held[c.seat], c.contribution)]
    played = tuple(c for c in r.contributions if not c.held)
    return (dataclasses.replace(r, contributions=played), held, r.scores, r.zero_sum)


def check_held(e: Engine, r: Result) -> None:
    """Each seat's held bombs are disjoint parts of its hand, each a genuine bomb (R3 by the
    oracle) with its stars and the mode's contribution (R8.4)."""
    for seat in range(4):
        mine = [c for c in r.contributions if c.held and c.seat == seat]
        total = sk.Hand()
        for c in mine:
            assert c.play.tag in _reference.classify(c.play.packed, e.rules.flags)
            assert c.play.is_bomb and c.stars == c.play.stars
            per = contribution_units(c.stars, e.rules.scoring)
            assert per > 0 and c.contribution == tuple(3 * per if s == seat else -per
                                                       for s in range(4))
            total = total + c.play.cards
        assert total.issubset(_hand(e, seat))


def facts(e: Engine, wilds: str = "all") -> dict[str, object]:
    """Everything a position shows, the legal plays as a set (their order: ``check_order``)."""
    return {
        "to_act": e.to_act, "table": e.table, "owner": e.table_owner, "passes": e.passes,
        "leader": e.leader, "trick": e.trick, "places": tuple(e.places), "over": e.is_over,
        "escape": e.escape, "can_pass": e.can_pass(),
        "hands": tuple(_hand(e, s) for s in range(4)),
        "left": tuple(e.cards_left(s) for s in range(4)),
        "bombs": tuple(tuple(e.bombs_played(s)) for s in range(4)),
        "legal": frozenset(_legal(e, wilds)), "n_legal": len(_legal(e, wilds)),
        "result": result_facts(e),
    }


def check_order(e: Engine, wilds: str = "all") -> None:
    """The legal list is in its plays generator's order: the oracle's for the reference, the
    kernel's for ``State`` (``legal_plays``' order under the default backend: the State
    contract), ``legal_plays``' (whatever the backend) for a Game."""
    if e.is_over:
        return
    hand = _hand(e, e.to_act)
    got = [(p.packed, p.tag) for p in _legal(e, wilds)]
    if isinstance(e, Game):
        want = legal_plays(hand, e.rules, e.table, wilds)  # type: ignore[arg-type]
        assert got == [(p.packed, p.tag) for p in want]
        return
    gen = _reference.generate if isinstance(e, RefState) else _core.generate
    table = e.table.tag if e.table is not None else _reference.NO_TABLE
    words, tags = gen(hand.packed, e.rules.flags, table, wilds == "fewest")
    assert got == list(zip(words, tags))


def assert_same(ref: RefState, others: Iterable[Engine], wilds: str = "all") -> None:
    want = facts(ref, wilds)
    for e in others:
        got = facts(e, wilds)
        assert got == want, {k: (got[k], want[k]) for k in want if got[k] != want[k]}
        check_order(e, wilds)


# -- policies ------------------------------------------------------------------------------------
class _PolicyView:
    """What sim's Python policies read of the seat to act, from any engine (the members of a
    seat's view, and of the Game the policies used to be given)."""

    def __init__(self, e: Engine) -> None:
        self.rules = e.rules
        self.table = e.table
        self.table_owner = e.table_owner
        self.seat = self.to_act = e.to_act
        self.hand = _hand(e, e.to_act)
        self.card_counts = tuple(e.cards_left(s) for s in range(4))
        self._e = e

    def hand_ranks(self, seat: int) -> sk.Hand:
        return _hand(self._e, seat)


Choice = tuple[str, object]  # ("play", Play) | ("pass", None) | ("abandon", seat)


def choose(policy: str, e: Engine, rnd: random.Random, stream: SplitMix64) -> Choice:
    """``random``: uniform over the legal plays and pass (rarely an abandon); ``greedy``: sim's
    greedy heuristic over the ``fewest`` plays."""
    if policy == "random":
        if rnd.random() < 0.003:
            return ("abandon", rnd.randrange(4))
        plays = _legal(e)
        k = rnd.randrange(len(plays) + e.can_pass())
        return ("pass", None) if k == len(plays) else ("play", plays[k])
    p = greedy_policy(_PolicyView(e), _legal(e, "fewest"), stream)
    return ("play", p) if p else ("pass", None)


def apply(e: Engine, choice: Choice, by_index: bool = False) -> None:
    kind, arg = choice
    if kind == "abandon":
        e.abandon(arg)
    elif kind == "pass":
        e.pass_()
    elif by_index and not isinstance(e, Game):
        e.play(_legal(e).index(arg))  # type: ignore[arg-type]
    else:
        e.play(arg)


def check_undo_copy(e: Engine, choice: Choice) -> None:
    """``copy`` is independent; ``undo`` after the action restores the position exactly."""
    before = e.copy()
    snapshot = facts(e)
    apply(e, choice)
    assert facts(before) == snapshot
    e.undo()
    assert facts(e) == snapshot and e == before
    if not isinstance(e, Game):
        assert e.hash == before.hash and hash(e) == hash(before)


def check_text(e: Engine, ref: RefState) -> None:
    """The engine writes the reference's position text and reads it back."""
    if isinstance(e, Game):
        return
    text = str(ref)
    assert str(e) == text
    back = type(e).parse(text, e.rules)
    assert back == e and back.hash == e.hash and str(back) == text


# -- the lockstep driver ---------------------------------------------------------------------------
def lockstep(
    ref: RefState, others: list[Engine], policy: str, seed: int, *, deep: bool = True
) -> int:
    """Play one deal on every engine at once; compare after every action. Returns the number of
    actions. ``deep`` adds undo/copy and position-text checks every few steps."""
    rnd = random.Random(seed)
    stream = SplitMix64(seed)
    wilds = "fewest" if policy == "greedy" else "all"
    steps = 0
    while not ref.is_over:
        assert_same(ref, others, wilds)
        choice = choose(policy, ref, rnd, stream)
        if deep and steps % 7 == 0:
            for e in [ref, *others]:
                check_undo_copy(e, choice)
                check_text(e, ref)
        apply(ref, choice)
        for i, e in enumerate(others):
            apply(e, choice, by_index=(steps + i) % 2 == 1)
        steps += 1
    assert_same(ref, others, wilds)
    assert ref.result is not None
    for e in [ref, *others]:
        check_text(e, ref)
    return steps


def engines_for_deal(rules: sk.Rules, seed: int) -> tuple[RefState, list[Engine]]:
    """The reference and every engine under test, at the start of play of deal ``seed``."""
    return RefState.deal(rules, seed), [State.deal(rules, seed), Game(rules, seed)]


# -- default tier ---------------------------------------------------------------------------------
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_random_games_step_by_step(preset: str, policy: str) -> None:
    rules = R[preset]
    for seed in range(2):
        ref, others = engines_for_deal(rules, 1000 * seed + len(preset))
        lockstep(ref, others, policy, seed)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_seeded_deals_agree(preset: str) -> None:
    """R7's seeded deal and first leader (明牌 swap included): the reference's plain-Python
    SplitMix64 deal, the kernel's, and Game's."""
    rules = R[preset]
    for seed in [*range(100), 2**64 - 1, 2**63]:  # -1, 2**64: refused (test_safety_args)
        ref = RefState.deal(rules, seed)
        game = Game(rules, seed)
        for e in (State.deal(rules, seed), game):
            assert e.to_act == ref.to_act and e.leader == ref.leader
            assert [_hand(e, s) for s in range(4)] == [ref.hand(s) for s in range(4)]
        assert game.first_leader == ref.to_act


@st.composite
def small_deals(draw: st.DrawFn) -> tuple[str, list[list[int]], int]:
    """A preset, four small hands of physical cards (1..9 each, jokers likely) and a leader."""
    preset = draw(st.sampled_from(PRESET_NAMES))
    deck = list(range(108))
    shuffled = draw(st.permutations(deck))
    jokers = [c for c in (104, 105, 106, 107) if draw(st.booleans())]
    pool = jokers + [c for c in shuffled if c not in jokers]
    hands, pos = [], 0
    for _ in range(4):
        n = draw(st.integers(1, 9))
        hands.append(sorted(pool[pos : pos + n]))
        pos += n
    return preset, hands, draw(st.integers(0, 3))


@settings(max_examples=100)
@given(deal=small_deals(), seed=st.integers(0, 2**32), policy=st.sampled_from(POLICIES))
def test_small_deals_step_by_step(deal: tuple[str, list[list[int]], int], seed: int,
                                  policy: str) -> None:
    """Endgame-sized deals (few cards, many jokers): every engine from the same position."""
    preset, ids, leader = deal
    rules = R[preset]
    hands = [sk.Hand.from_cards(h) for h in ids]
    ref = RefState.from_position(rules, hands, leader)
    others = [cls.from_position(rules, hands, leader) for cls in CLASSES[1:]]
    others.append(Game.from_deal(rules, ids, leader=leader))
    lockstep(ref, others, policy, seed)


# -- slow tier ------------------------------------------------------------------------------------
GAMES = budget(ci=5, full=1000)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_many_random_games(preset: str, record_property: Callable[[str, object], None]) -> None:
    rules = R[preset]
    actions = 0
    salt = 1_000_003 * PRESET_NAMES.index(preset)  # other deals per preset (baibian = jj flow)
    for i in range(GAMES):
        ref, others = engines_for_deal(rules, 7919 * i + 17 + salt)
        actions += lockstep(ref, others, POLICIES[i % 2], i + salt, deep=i % 10 == 0)
    record_property("games", GAMES)
    record_property("actions", actions)
    print(f"{preset}: {GAMES} games, {actions} actions compared")
