"""Regenerate tests/data/perft.json: play counts of seeded 27-card deals, by the ORACLE.

    python tests/data/make_perft.py

For each preset, ten seeds of its own (so presets do not share hands) give
``random.Random(seed).sample(range(108), 27)`` and five more give wild-heavy deals, 23 naturals
plus all four jokers (``deal`` below; ids 0..103 naturals of rank ``(id % 52) // 4``, 104-105
SJ, 106-107 BJ); the counts are those of
``shuangkou._reference.generate`` when leading and when answering a few fixed tables, with
``wilds="all"`` and ``"fewest"``. tests/test_perft.py asserts the kernel's counts against them.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

from shuangkou import _reference as ref
from shuangkou.cards import Hand
from shuangkou.rules import PRESETS, Rules

RANDOM_DEALS = 10
JOKER_DEALS = 5
TABLES = (
    "9",
    "7 7",
    "5 5 5",
    "3 4 5 6 7",
    "8 9 10 J Q K",
    "4 4 5 5 6 6",
    "8 8 8 9 9 9 10 10 10",
    "8 8 8 8",
    "6 6 6 6 6",
    "4444 5555 6666",
    "SJ SJ BJ",
    "SJ SJ BJ BJ",
)
OUT = Path(__file__).with_name("perft.json")


def deal(seed: int, all_jokers: bool) -> Hand:
    """The deal recipe (tests/test_perft.py repeats it): 27 of the 108 cards, or 23 naturals
    and the four jokers."""
    rng = random.Random(seed)
    if all_jokers:
        return Hand.from_cards(rng.sample(range(104), 23) + [104, 105, 106, 107])
    return Hand.from_cards(rng.sample(range(108), 27))


def seeds(preset_index: int) -> list[tuple[int, bool]]:
    """(seed, all_jokers) of a preset's deals."""
    base = 100 * preset_index
    return [(base + i, False) for i in range(RANDOM_DEALS)] + [
        (base + 50 + i, True) for i in range(JOKER_DEALS)
    ]


def main() -> None:
    start = time.perf_counter()
    data: dict[str, object] = {"presets": {}}
    for index, name in enumerate(PRESETS):
        flags = Rules.preset(name).flags
        tables = {}
        for text in TABLES:
            readings = ref.classify(Hand(text).packed, flags)
            if readings:  # e.g. no 三王 or chain bombs in classic
                tables[text] = readings[0]
        deals = []
        for seed, all_jokers in seeds(index):
            hand = deal(seed, all_jokers)
            counts = {}
            for label, table in [("lead", 0), *tables.items()]:
                counts[label] = [
                    ref.count(hand.packed, flags, table, False),
                    ref.count(hand.packed, flags, table, True),
                ]
            deals.append({"seed": seed, "all_jokers": all_jokers, "hand": str(hand),
                          "packed": hand.packed, "counts": counts})
        data["presets"][name] = {"flags": flags, "tables": tables, "deals": deals}  # type: ignore[index]
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {OUT} in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
