"""The solver from threads (issue #18): solve() gives identical solutions from 1 and 4 threads
(each call owns its searcher), and one Searcher shared by 4 threads serialises its calls (its
lock) and gives the results it gives alone."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

from shuangkou import Hand, Rules, State, solve
from shuangkou.solve import searcher
from tests.conftest import PRESET_NAMES


def positions() -> list[State]:
    """Seeded 4-cards-a-seat deals of every preset (each solves in a few thousand nodes)."""
    out = []
    for preset in PRESET_NAMES:
        rules = Rules.preset(preset)
        for seed in range(3):
            deck = list(range(108))
            random.Random(f"threads-{preset}-{seed}").shuffle(deck)
            hands = [Hand.from_cards(deck[4 * s : 4 * s + 4]) for s in range(4)]
            out.append(State.from_position(rules, hands, seed % 4))
    return out


def summary(sol: object) -> tuple[object, ...]:
    return (sol.value, sol.best, sol.pv, sol.nodes, sol.values)  # type: ignore[attr-defined]


def test_solve_from_1_and_4_threads_is_identical() -> None:
    states = positions()
    alone = [summary(solve(s, tt_bits=16)) for s in states]
    with ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(lambda s: summary(solve(s, tt_bits=16)), states * 2))
    assert threaded == alone * 2


def test_one_searcher_shared_by_threads() -> None:
    states = [s for s in positions() if s.rules == Rules.preset("baibian")]

    def values(sr: object, state: State) -> tuple[object, ...]:
        sr.set_position(state)  # type: ignore[attr-defined]
        moves, vals, optimal, *_ = sr.root_values(0, 0.0, 1 << 20, True)  # type: ignore[attr-defined]
        return moves, vals, optimal

    alone = [values(searcher(s, tt_bits=16), s) for s in states]
    shared = searcher(states[0], tt_bits=16)
    # set_position + root_values are two calls: a thread holds the pair under its own lock
    import threading

    pair = threading.Lock()

    def task(state: State) -> tuple[object, ...]:
        with pair:
            return values(shared, state)

    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(task, states * 4))
    assert got == alone * 4
