"""The oracle: a slow, deliberately simple pure-Python move generator, straight from RULES.md.

It is the judge of the Cython kernel in the test-suite, so it favours the obvious over the fast:

* A *natural shape* is a play type made of natural ranks only (R2): a single rank ``r`` taken
  ``t`` times (single, pair, triple, bomb), or a run of ranks 3..A taken ``W`` times each
  (straight, pair chain, triple chain), or a chain bomb (groups of ≥ 4).
* A card set's readings (R3) are the natural shapes of its size that contain its natural cards:
  the wild cards are exactly the shape's missing cards, each standing for one natural rank
  (3..A inside sequences and chain bombs, since shapes only use those ranks there). Jokers-only
  sets are read naturally. If any reading is a bomb, the set is its biggest bomb (R5 order,
  then the larger X); otherwise each plain kind that fits gives its highest-top reading.
* The legal plays of a hand are found by building, from every natural shape the hand can pay
  for, every way of taking its cards (naturals from the hand, the missing ones as wilds), then
  reading each distinct card set with the rule above. Every play has a natural shape behind it,
  so nothing is missed; reading each set once means nothing is counted twice.

It speaks the kernel's language (packed words, tags, flags: docs/internals.md) so it can stand in
as a backend (``SHUANGKOU_BACKEND=reference``).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._core import Play

WILD_SJ, WILD_BJ, STARS, UNEVEN, MORE_CARDS_BIGGER, FOUR_JOKERS_SMALLEST = (
    1 << i for i in range(6)
)
SINGLE, PAIR, TRIPLE, STRAIGHT, PAIR_CHAIN, TRIPLE_CHAIN = range(6)
BOMB, THREE_JOKERS, FOUR_JOKERS, CHAIN_BOMB = range(6, 10)
TWO, SJ, BJ, ACE = 12, 13, 14, 11
NATURAL_RANKS = range(13)  # 3 .. 2
MIN_LENGTH = {STRAIGHT: 5, PAIR_CHAIN: 3, TRIPLE_CHAIN: 3}
WIDTH = {STRAIGHT: 1, PAIR_CHAIN: 2, TRIPLE_CHAIN: 3}
NO_TABLE = 0

Shape = tuple[int, int, int, int, tuple[tuple[int, int], ...]]
"""(kind, top, width, stars, ((rank, count), ...)) of a natural play type."""


# -- packing (docs/internals.md) --------------------------------------------------------------
def pack(counts: tuple[int, ...]) -> int:
    return sum(c << (4 * r) for r, c in enumerate(counts))


def unpack(word: int) -> tuple[int, ...]:
    return tuple((word >> (4 * r)) & 15 for r in range(15))


def make_tag(
    kind: int, top: int, width: int, length: int, stars: int, size: int, wilds: int
) -> int:
    return kind | top << 4 | width << 8 | length << 13 | stars << 17 | size << 22 | wilds << 28


def read_tag(tag: int) -> tuple[int, int, int, int, int, int, int]:
    return (tag & 15, tag >> 4 & 15, tag >> 8 & 31, tag >> 13 & 15, tag >> 17 & 31,
            tag >> 22 & 63, tag >> 28 & 7)


# -- natural shapes --------------------------------------------------------------------------
def group_vectors(window: range, low: list[int], high: list[int], total: int | None,
                  even: bool) -> Iterator[tuple[int, ...]]:
    """Chain-bomb group sizes over ``window``: each in [low, high] (≥ 4), all equal if ``even``,
    summing to ``total`` when given."""
    if even:
        for x in range(max(low), min(high) + 1):
            if total is None or x * len(window) == total:
                yield (x,) * len(window)
        return

    def rec(i: int, acc: tuple[int, ...], used: int) -> Iterator[tuple[int, ...]]:
        if i == len(window):
            if total is None or used == total:
                yield acc
            return
        for g in range(low[i], high[i] + 1):
            yield from rec(i + 1, acc + (g,), used + g)

    yield from rec(0, (), 0)


def shapes(flags: int, high: list[int], size: int | None = None,
           wild_budget: int = 0, have: tuple[int, ...] | None = None) -> Iterator[Shape]:
    """Every natural play type with ``count(r) ≤ high[r]`` per rank and (if ``size``) exactly
    ``size`` cards; with ``have``, only those missing at most ``wild_budget`` cards of it."""

    def affordable(groups: tuple[tuple[int, int], ...]) -> bool:
        if have is None:
            return True
        return sum(max(0, c - have[r]) for r, c in groups) <= wild_budget

    for r in NATURAL_RANKS:
        for t in range(1, high[r] + 1):
            if size is not None and t != size:
                continue
            kind = (SINGLE, PAIR, TRIPLE)[t - 1] if t <= 3 else BOMB
            stars = t if kind == BOMB and flags & STARS else 0
            if affordable(((r, t),)):
                yield (kind, r, t, stars, ((r, t),))
    for kind in (STRAIGHT, PAIR_CHAIN, TRIPLE_CHAIN):
        w = WIDTH[kind]
        for length in range(MIN_LENGTH[kind], 13):
            if size is not None and w * length != size:
                continue
            for low in range(0, ACE - length + 2):
                window = range(low, low + length)
                groups = tuple((r, w) for r in window)
                if all(high[r] >= w for r in window) and affordable(groups):
                    yield (kind, low + length - 1, w, 0, groups)
    if not flags & STARS:
        return
    for y in range(3, 7):
        for low in range(0, ACE - y + 2):
            window = range(low, low + y)
            lows = [4] * y
            highs = [high[r] for r in window]
            if any(h < 4 for h in highs):
                continue
            for vec in group_vectors(window, lows, highs, size, not flags & UNEVEN):
                groups = tuple(zip(window, vec))
                if affordable(groups):
                    yield (CHAIN_BOMB, low + y - 1, min(vec), min(vec) + y, groups)


def shape_tag(shape: Shape, wilds: int) -> int:
    kind, top, width, stars, groups = shape
    size = sum(c for _, c in groups)
    return make_tag(kind, top, width, len(groups), stars, size, wilds)


# -- comparison (R4, R5) ---------------------------------------------------------------------
def bomb_order(tag: int, flags: int) -> tuple[int, ...]:
    """Sort key of a bomb reading: bigger key = bigger bomb (R5)."""
    kind, top, _, _, stars, size, _ = read_tag(tag)
    if not flags & STARS:  # classic: 天王 above all, then more cards, then higher rank
        return (1, 0, 0) if kind == FOUR_JOKERS else (0, size, top)
    special = 0
    if kind == THREE_JOKERS:
        special = -1
    elif kind == FOUR_JOKERS:
        special = -1 if flags & FOUR_JOKERS_SMALLEST else 1
    by_count = size if flags & MORE_CARDS_BIGGER else -size
    return (stars, special, by_count, top)


def beats(tag: int, table: int, flags: int) -> bool:
    if table == NO_TABLE:
        return True
    kind, top, _, _, _, size, _ = read_tag(tag)
    tkind, ttop, _, _, _, tsize, _ = read_tag(table)
    if kind >= BOMB:
        return tkind < BOMB or bomb_order(tag, flags) > bomb_order(table, flags)
    return tkind == kind and tsize == size and top > ttop


# -- readings (R3) ---------------------------------------------------------------------------
def joker_readings(sj: int, bj: int, flags: int) -> list[int]:
    """A set made only of jokers is read naturally (R3)."""
    n = sj + bj
    if n == 1:
        return [make_tag(SINGLE, SJ if sj else BJ, 1, 1, 0, 1, 0)]
    if n == 2:
        if sj == 2 or bj == 2:
            return [make_tag(PAIR, SJ if sj == 2 else BJ, 2, 1, 0, 2, 0)]
        return [make_tag(PAIR, SJ, 2, 1, 0, 2, 1)] if flags & WILD_BJ else []
    if n == 3:
        return [make_tag(THREE_JOKERS, BJ, 3, 1, 6, 3, 0)] if flags & STARS else []
    return [make_tag(FOUR_JOKERS, BJ, 4, 1, 7 if flags & STARS else 0, 4, 0)]


@lru_cache(maxsize=1 << 18)
def readings(counts: tuple[int, ...], flags: int) -> tuple[int, ...]:
    """All readings (tags) of a card set, per R3; empty if it is no valid play."""
    size = sum(counts)
    natural = counts[:13]
    sj, bj = counts[SJ], counts[BJ]
    if size == 0:
        return ()
    if sum(natural) == 0:
        return tuple(joker_readings(sj, bj, flags))
    if (sj and not flags & WILD_SJ) or (bj and not flags & WILD_BJ):
        return ()  # a joker that is not wild cannot join natural cards
    wilds = sj + bj
    high = [natural[r] + wilds for r in range(13)]
    found = [
        shape_tag(s, wilds)
        for s in shapes(flags, high, size=size)
        if all(natural[r] <= dict(s[4]).get(r, 0) for r in NATURAL_RANKS)
    ]
    bombs = [t for t in found if t & 15 >= BOMB]
    if bombs:  # R3.1: the biggest bomb reading; R3.4: ties -> larger X
        return (max(bombs, key=lambda t: (bomb_order(t, flags), t >> 8 & 31)),)
    best: dict[int, int] = {}
    for t in found:  # R3.2/R3.3: per plain kind, the highest top
        kind = t & 15
        if kind not in best or (t >> 4 & 15) > (best[kind] >> 4 & 15):
            best[kind] = t
    return tuple(best[k] for k in sorted(best))


# -- generation ------------------------------------------------------------------------------
def candidate_sets(hand: tuple[int, ...], flags: int) -> set[tuple[int, ...]]:
    """Every card set a natural shape can be paid with from ``hand``, plus every jokers-only set.
    A superset of the valid plays' card sets; readings() sorts them out."""
    wild_sj = hand[SJ] if flags & WILD_SJ else 0
    wild_bj = hand[BJ] if flags & WILD_BJ else 0
    budget = wild_sj + wild_bj
    high = [hand[r] + budget for r in range(13)]
    out: set[tuple[int, ...]] = set()

    def take(groups: tuple[tuple[int, int], ...], i: int, naturals: list[int],
             missing: int) -> None:
        """Take ``naturals`` for the first ``i`` groups; ``missing`` cards become wilds."""
        if i == len(groups):
            if sum(naturals) == 0:
                return
            for n_sj in range(max(0, missing - wild_bj), min(missing, wild_sj) + 1):
                full = [0] * 15
                for (r, _), n in zip(groups, naturals):
                    full[r] = n
                full[SJ] = n_sj
                full[BJ] = missing - n_sj
                out.add(tuple(full))
            return
        r, need = groups[i]
        for n in range(min(need, hand[r]), -1, -1):
            if missing + need - n > budget:
                break
            take(groups, i + 1, naturals + [n], missing + need - n)

    for s in shapes(flags, high, wild_budget=budget, have=hand):
        take(s[4], 0, [], 0)
    for n_sj in range(hand[SJ] + 1):
        for n_bj in range(hand[BJ] + 1):
            if n_sj + n_bj:
                out.add((0,) * 13 + (n_sj, n_bj))
    return out


def all_plays(hand: tuple[int, ...], flags: int) -> list[tuple[int, int]]:
    """Every (packed cards, tag) play of ``hand`` when leading."""
    return [(pack(c), t) for c in candidate_sets(hand, flags) for t in readings(c, flags)]


def fewest_filter(plays: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """One play per reading (kind, top, size, width, length): fewest wilds, then fewest big
    jokers, then the smallest packed word (docs/internals.md)."""
    best: dict[tuple[int, ...], tuple[int, int]] = {}

    def cost(play: tuple[int, int]) -> tuple[int, int, int]:
        word, tag = play
        return (tag >> 28 & 7, word >> (4 * BJ) & 15, word)

    for play in plays:
        kind, top, width, length, _, size, _ = read_tag(play[1])
        key = (kind, top, size, width, length)
        if key not in best or cost(play) < cost(best[key]):
            best[key] = play
    return list(best.values())


# -- the backend interface (docs/internals.md) -------------------------------------------------
def classify(cards: int, flags: int) -> list[int]:
    return list(readings(unpack(cards), flags))


def generate(hand: int, flags: int, table: int, fewest: bool) -> tuple[list[int], list[int]]:
    plays = all_plays(unpack(hand), flags)
    if fewest:
        plays = fewest_filter(plays)
    plays = sorted(p for p in plays if beats(p[1], table, flags))
    return [w for w, _ in plays], [t for _, t in plays]


def count(hand: int, flags: int, table: int, fewest: bool) -> int:
    return len(generate(hand, flags, table, fewest)[0])


def generate_plays(
    hand: int, flags: int, table: int, fewest: bool, cls: type[Play]
) -> list[Play]:
    """:func:`generate` as objects of ``cls`` (``shuangkou.plays.Play``), built as the kernel
    builds them."""
    from ._core import new_play

    words, tags = generate(hand, flags, table, fewest)
    return [new_play(cls, w, t) for w, t in zip(words, tags)]
