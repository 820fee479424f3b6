"""``Searcher.root_values(only=...)``: a search of some root moves alone (the searched
midgame's candidates, :func:`shuangkou.pimc_policy`) gives them the values the search of every
move gives them, and a wrong ``only`` is refused with the searcher unchanged."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from shuangkou import PASS, Hand, Rules, State, _solve
from shuangkou.errors import ArgumentError
from tests.conftest import PRESET_NAMES


def _positions(rng: random.Random, rules: Rules, size: int, count: int) -> Iterator[State]:
    """Dealt positions of ``size`` cards a seat, a random leader, each after 0-3 random moves
    (leading and answering; the ones those moves ended are left out)."""
    for k in range(count):
        deck = list(range(108))
        rng.shuffle(deck)
        hands = [Hand.from_cards(deck[size * s : size * (s + 1)]) for s in range(4)]
        state = State.from_position(rules, hands, k % 4)
        for _ in range(rng.randint(0, 3)):
            state.play(rng.choice(list(state.legal()) + ([PASS] if state.table else [])))
            if state.is_over:
                break
        if not state.is_over:
            yield state


def _fresh(state: State, evaluation: str) -> _solve.Searcher:
    """A searcher on a fresh (empty) table, ``state`` its root: depth-limited values depend
    on what the table holds, so each search compared starts from an empty one."""
    s = _solve.Searcher(state, "score", 12, evaluation)
    s.set_position(state)
    return s


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_only_values_are_every_moves_values(preset: str) -> None:
    """Depth 1 (the midgame's search: the horizon right after the move, scored by greedy
    rollouts or 手数) on 27- and 10-card positions, and exact searches on 5-card ones: each
    picked move's value from a search of the picked moves alone (one move; a few with pass
    when a play is on the table; the first and the last generated) equals its value from the
    search of every move, both on fresh tables (the exact ones also split over two threads);
    ``moves`` lists the picked moves in generation order and ``optimal`` the best of them."""
    rng = random.Random(f"only {preset}")
    rules = Rules.preset(preset)
    cases = [(27, 1, "rollout"), (10, 1, "rollout"), (27, 1, "hand_count"),
             (5, _solve.EXACT_DEPTH, "hand_count")]
    checked = 0
    for size, depth, evaluation in cases:
        for state in _positions(rng, rules, size, 4):
            moves, values, *_, stopped, _ = _fresh(state, evaluation).root_values(
                0, 0.0, depth, True)
            assert not stopped
            value = dict(zip(moves, values))
            picks = [[rng.choice(moves)], rng.sample(moves, min(4, len(moves))),
                     [moves[-1], moves[0]]]
            if state.table is not None:
                picks.append([(0, 0), *rng.sample(moves, min(3, len(moves)))])
            for pick in picks:
                got, got_values, optimal, _, stopped, _ = _fresh(state, evaluation).root_values(
                    0, 0.0, depth, True, only=pick)
                assert not stopped
                assert got == [m for m in moves if m in pick], (str(state), pick)
                assert got_values == [value[m] for m in got], (str(state), depth, pick)
                best = max(value[m] for m in pick)
                assert sorted(optimal) == [i for i, m in enumerate(got) if value[m] == best]
                if depth == _solve.EXACT_DEPTH:  # split over two threads: the same values
                    again = _fresh(state, evaluation).root_values(0, 0.0, depth, True, threads=2,
                                                                  only=pick)
                    assert again[:2] == (got, got_values), (str(state), pick)
                checked += 1
    assert checked >= 30


def test_only_is_checked_and_a_refusal_changes_nothing() -> None:
    """A move that is not a legal move of the root (a play of another hand, pass with no play
    on the table), something that is not a (packed, tag) pair, a string and an empty list are
    refused with ArgumentError naming ``only``; the searcher then searches as a fresh one."""
    rules = Rules.preset("baibian")
    state = next(_positions(random.Random("only checks"), rules, 8, 1))
    while state.table is not None:  # a lead: pass is not legal
        state.play(PASS)
    moves, values, *_ = _fresh(state, "rollout").root_values(0, 0.0, 1, True)
    theirs = next(_positions(random.Random("only other hands"), rules, 8, 1))
    foreign = next(m for m in ((p.packed, p.tag) for p in theirs.legal()) if m not in moves)
    s = _fresh(state, "rollout")
    bad: list[object] = [[foreign], [moves[0], (0, 0)], [moves[0][0]], [(moves[0][0],)],
                         [(str(moves[0][0]), moves[0][1])], "3 4 5", [], 7]
    for only in bad:
        with pytest.raises(ArgumentError, match="only"):
            s.root_values(0, 0.0, 1, True, only=only)  # type: ignore[arg-type]
    assert s.root_values(0, 0.0, 1, True)[:2] == (moves, values)
    assert s.root_values(0, 0.0, 1, True, only=moves)[:2] == (moves, values)
    assert s.root_values(0, 0.0, 1, True, only=[moves[0], moves[0]])[:2] == (
        [moves[0]], [values[0]])
