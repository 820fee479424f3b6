"""The benchmarks' workload: seeded 27-card deals from the 108-card deck."""

from __future__ import annotations

import random

from shuangkou import Hand


def deals(n: int, first_seed: int = 0) -> list[int]:
    """Packed 27-card hands: ``random.Random(seed).sample(range(108), 27)`` for n seeds."""
    return [
        Hand.from_cards(random.Random(s).sample(range(108), 27)).packed
        for s in range(first_seed, first_seed + n)
    ]
