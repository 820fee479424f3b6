"""Regenerate tests/data/decompose.json: least split costs of seeded 27-card deals, by the
first decomposition search (``shuangkou._solve.reference_costs``, ``_decompose_ref.pxd``: the
kernel's plays holding the lowest card, memoised per sub-hand — exact but exponential).

    python tests/data/make_decompose.py

For each preset, ``DEALS`` seeds give ``tests.conftest.seeded_deal(seed)`` (27 of the 108
cards) and ``JOKER_DEALS`` more give 23 naturals plus all four jokers (the hands whose
decomposition the first search found hardest); the costs are those of the plain count and of
the keep-bombs valued split. A hand the reference cannot finish within ``MAX_NODES`` sub-hands
is left out (the file says how many). tests/test_solve_decompose.py asserts the sweep's costs
against them.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.conftest import seeded_deal  # noqa: E402

from shuangkou import _solve  # noqa: E402
from shuangkou.cards import Hand  # noqa: E402
from shuangkou.rules import PRESETS, Rules  # noqa: E402

DEALS = 40
JOKER_DEALS = 8
MAX_NODES = 3_000_000


def joker_deal(seed: int) -> Hand:
    """23 natural cards (ids 0..103) plus SJ SJ BJ BJ."""
    ids = random.Random(seed).sample(range(104), 23) + [104, 105, 106, 107]
    return Hand.from_cards(ids)


def main() -> None:
    out: dict[str, object] = {"max_nodes": MAX_NODES, "left_out": 0, "hands": []}
    hands: list[dict[str, object]] = out["hands"]  # type: ignore[assignment]
    t0 = time.time()
    for k, preset in enumerate(PRESETS):
        rules = Rules.preset(preset)
        deals = [seeded_deal(1000 * k + s) for s in range(DEALS)]
        deals += [joker_deal(1000 * k + 500 + s) for s in range(JOKER_DEALS)]
        for hand in deals:
            found = [_solve.reference_costs(hand.packed, rules.flags, kb, [0], MAX_NODES)
                     for kb in (False, True)]
            if None in found:
                out["left_out"] += 1  # type: ignore[operator]
                continue
            costs = [f[0] for f in found if f is not None]
            hands.append({"preset": preset, "hand": str(hand), "count_cost": costs[0],
                          "valued_cost": costs[1]})
        print(preset, f"{time.time() - t0:.0f}s", flush=True)
    path = Path(__file__).with_name("decompose.json")
    path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
