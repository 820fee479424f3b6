"""The project's one deterministic random number generator (RULES.md R7: seeded deals).

The generator and the deal are written once, in C (``_state.pxd``: ``sk_rng_next``,
``sk_shuffle``, ``sk_deal``), and used from here, by ``State.deal`` and by self-play. What they
compute is fixed and versioned by the JSON state format:

**Generator: SplitMix64.** A 64-bit state; every output does (all arithmetic mod 2^64)::

    state = state + 0x9E3779B97F4A7C15
    z = state
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB
    return z ^ (z >> 31)

The seed is the initial state: an int 0..2^64-1 (a negative or larger seed is refused, never
reduced mod 2^64, by the argument rule of ``_check``).

**Bounded draw.** ``bounded(n) = (next() * n) >> 64`` (Lemire's multiply-shift, no rejection:
a uniform 0..n-1 up to a bias below n / 2^64).

**The deal** (R7) of one seed:

1. ``deck = list(range(108))``; Fisher–Yates: for ``i`` from 107 down to 1,
   ``j = bounded(i + 1)`` and swap ``deck[i], deck[j]``.
2. Seat ``s`` (0..3) gets ``deck[27*s : 27*s + 27]``.
3. Right after the shuffle, from the same generator, one more draw: the revealed card id
   ``bounded(108)`` (明牌 presets, ``first_leader == "revealed"``) or the leader seat
   ``bounded(4)`` (``first_leader == "random"``). It is drawn even when a match overrides the
   leader (the previous first finisher leads after 单扣/平扣), so the stream never depends on
   the match's history.

**Deal seeds.** The ``index``-th deal of a match or simulation seeded ``seed`` uses the seed
``deal_seed(seed, index)`` = one SplitMix64 output from the state
``seed ^ (index * 0xD1B54A32D192ED03 mod 2^64)``.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import _sim
from ._check import as_int, as_seed
from ._engine import SplitMix64, deal_cards
from .cards import HAND_SIZE

__all__ = ["MASK64", "Deal", "SplitMix64", "deal", "deal_seed", "shuffle_deck"]

MASK64 = (1 << 64) - 1


def deal_seed(seed: int, index: int) -> int:
    """The seed of the ``index``-th deal of a match or simulation seeded ``seed``."""
    seed, index = as_seed(seed), as_int(index, "deal index", 0, MASK64)
    return int(_sim.deal_seed(seed, index))


def shuffle_deck(rng: SplitMix64) -> list[int]:
    """The 108 card ids in dealt order (Fisher–Yates, i = 107 … 1, j = bounded(i + 1))."""
    if not isinstance(rng, SplitMix64):
        raise TypeError(f"rng must be a SplitMix64 (SplitMix64(seed)), not {type(rng).__name__}")
    return rng.shuffle()


@dataclass(frozen=True)
class Deal:
    """One seeded deal: the four hands as dealt (before any 明牌 seat swap), the draw that
    picks the first leader — ``revealed`` (a card id) or ``leader`` (a seat), the other None —
    and ``after``, the generator's state once the deal's draws are done (self-play policies
    continue from there)."""

    seed: int
    hands: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]
    revealed: int | None
    leader: int | None
    after: int


def deal(seed: int, first_leader: str) -> Deal:
    """Shuffle and deal from ``seed``; then draw the revealed card (``"revealed"``) or the
    leader seat (``"random"``) from the same generator."""
    if first_leader not in ("revealed", "random"):
        raise ValueError(f"first_leader must be 'revealed' or 'random', not {first_leader!r}")
    seed = as_seed(seed)  # never a float or bool truncated, nor a negative seed wrapped (R7)
    deck, revealed, leader, after = deal_cards(seed, first_leader == "revealed")
    hands = tuple(tuple(deck[HAND_SIZE * s : HAND_SIZE * s + HAND_SIZE]) for s in range(4))
    return Deal(seed, hands, revealed, leader, after)  # type: ignore[arg-type]
