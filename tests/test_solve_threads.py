"""decompose and hints from threads (issue 18: the decomposition memo was one module-global C
struct used with the GIL released, so two threads crashed the process on 18–22-card hands with
jokers). Every call now owns its memo: 1 and 4 threads give the same results."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

from shuangkou import Hand, Play, Rules, _solve, decompose, hints
from shuangkou._reference_game import RefState
from tests.budget import budget
from tests.conftest import PRESET_NAMES

Item = tuple[str, Hand, str | None]


def joker_hand(rng: random.Random, size: int) -> Hand:
    """``size`` cards, two to four of them jokers (the hands of the crash)."""
    jokers = rng.randint(2, 4)
    ids = rng.sample(range(104), size - jokers) + rng.sample(range(104, 108), jokers)
    return Hand.from_cards(ids)


def items() -> list[Item]:
    rng = random.Random("threads")
    out: list[Item] = []
    for preset in PRESET_NAMES:
        for _ in range(budget(ci=6, full=40)):
            table = rng.choice([None, "4 4", "5"])
            out.append((preset, joker_hand(rng, rng.randint(18, 22)), table))
    return out


def work(item: Item) -> tuple[object, ...]:
    preset, hand, table = item
    rules = Rules.preset(preset)
    hands = [hand, "3", "3", "3"]
    if table is None:
        state = RefState.from_position(rules, hands, 0)
    else:
        state = RefState.from_position(
            rules, hands, 0, table=Play.parse(table, rules), table_owner=3
        )
    return (
        decompose(hand, rules),
        decompose(hand, rules, keep_bombs=True),
        [str(p) for p in hints(state)],
    )


def test_one_and_four_threads_agree() -> None:
    todo = items()
    serial = [work(i) for i in todo]
    with ThreadPoolExecutor(4) as pool:
        for _ in range(3):
            assert list(pool.map(work, todo)) == serial


def test_the_c_entry_from_four_threads() -> None:
    """The crash of issue 18: ``_solve.decompose_cost`` (GIL released) on 18–22-card hands
    holding both big jokers, from 4 threads (the old module-global memo: SIGSEGV)."""
    rng = random.Random("crash")
    todo = []
    for preset in ("baibian", "jj"):
        flags = Rules.preset(preset).flags
        for _ in range(budget(ci=40, full=200)):
            size = rng.randint(18, 22)
            ids = rng.sample(range(104), size - 2) + [106, 107]
            todo.append((Hand.from_cards(ids).packed, flags))

    def costs(item: tuple[int, int]) -> list[int]:
        return [_solve.decompose_cost(item[0], item[1], kb) for kb in (False, True)]

    serial = [costs(i) for i in todo]
    with ThreadPoolExecutor(4) as pool:
        for _ in range(3):
            assert list(pool.map(costs, todo)) == serial
