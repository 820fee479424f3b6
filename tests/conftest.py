"""Shared test helpers: presets, seeded 27-card deals, hypothesis strategies for hands."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from shuangkou import Hand, Rules
from shuangkou.cards import MAX_COPIES

PRESET_NAMES = ("classic", "baibian", "jj", "qianbian")

# No per-example deadline: the oracle's time varies with the hand, and a shared CI machine's
# speed with its load; a slow example is not a failure. Tests set their own example counts.
settings.register_profile(
    "shuangkou", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("shuangkou")


@pytest.fixture(params=PRESET_NAMES)
def rules(request: pytest.FixtureRequest) -> Rules:
    return Rules.preset(request.param)


def seeded_deal(seed: int, size: int = 27) -> Hand:
    """``size`` of the 108 physical cards, drawn with ``random.Random(seed)``."""
    return Hand.from_cards(random.Random(seed).sample(range(108), size))


@st.composite
def hands(draw: st.DrawFn, max_cards: int = 27, jokers: int | None = None) -> Hand:
    """A rank multiset of up to ``max_cards`` cards; ``jokers`` fixes SJ = BJ = jokers // 2."""
    counts = [0] * 15
    n = draw(st.integers(0, max_cards))
    for _ in range(n):
        r = draw(st.integers(0, 14))
        if counts[r] < MAX_COPIES[r]:
            counts[r] += 1
    if jokers is not None:
        counts[13] = counts[14] = jokers // 2
    return Hand.from_counts(counts)
