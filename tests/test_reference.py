"""Checks of the oracle itself, by methods that share nothing with it but the rulebook.

* ``brute_readings`` reads a card set by trying every assignment of its wild cards to natural
  ranks (R3 literally) and testing the natural multiset that results against R2's table.
* On small hands, every sub-multiset is read that way: the oracle's generator must find exactly
  those plays (so its shape-driven search misses nothing and invents nothing).
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from shuangkou import Rules
from shuangkou import _reference as ref

from .conftest import PRESET_NAMES, hands


def natural_type(counts: list[int], flags: int) -> list[tuple[int, int, int, int, int]]:
    """R2 for a multiset of natural ranks 3..2: [(kind, top, width, length, stars)]."""
    present = [r for r in range(13) if counts[r]]
    size = sum(counts)
    stars_on = bool(flags & ref.STARS)
    if len(present) == 1:
        r = present[0]
        if size <= 3:
            return [((ref.SINGLE, ref.PAIR, ref.TRIPLE)[size - 1], r, size, 1, 0)]
        return [(ref.BOMB, r, size, 1, size if stars_on else 0)]
    consecutive = present == list(range(present[0], present[-1] + 1))
    if not consecutive or present[-1] > ref.ACE:
        return []
    widths = {counts[r] for r in present}
    length = len(present)
    out = []
    if len(widths) == 1:
        w = widths.pop()
        if w == 1 and length >= 5:
            out.append((ref.STRAIGHT, present[-1], 1, length, 0))
        if w == 2 and length >= 3:
            out.append((ref.PAIR_CHAIN, present[-1], 2, length, 0))
        if w == 3 and length >= 3:
            out.append((ref.TRIPLE_CHAIN, present[-1], 3, length, 0))
    x = min(counts[r] for r in present)
    even = len({counts[r] for r in present}) == 1
    if stars_on and 3 <= length <= 6 and x >= 4 and (even or flags & ref.UNEVEN):
        out.append((ref.CHAIN_BOMB, present[-1], x, length, x + length))
    return out


def brute_readings(counts: tuple[int, ...], flags: int) -> set[int]:
    size = sum(counts)
    natural = list(counts[:13])
    if size == 0:
        return set()
    if sum(natural) == 0:
        return set(ref.joker_readings(counts[13], counts[14], flags))
    wild = {13: bool(flags & ref.WILD_SJ), 14: bool(flags & ref.WILD_BJ)}
    if any(counts[r] and not wild[r] for r in (13, 14)):
        return set()
    w = counts[13] + counts[14]
    found = set()
    for assign in itertools.combinations_with_replacement(range(13), w):
        full = natural[:]
        for r in assign:
            full[r] += 1
        for kind, top, width, length, stars in natural_type(full, flags):
            found.add(ref.make_tag(kind, top, width, length, stars, size, w))
    bombs = {t for t in found if t & 15 >= ref.BOMB}
    if bombs:
        return {max(bombs, key=lambda t: (ref.bomb_order(t, flags), t >> 8 & 31))}
    best: dict[int, int] = {}
    for t in found:
        if t & 15 not in best or t >> 4 & 15 > best[t & 15] >> 4 & 15:
            best[t & 15] = t
    return set(best.values())


def brute_plays(counts: tuple[int, ...], flags: int) -> set[tuple[int, int]]:
    """Every (packed cards, tag) play: each sub-multiset of the hand, read by brute force."""
    return {
        (ref.pack(sub), tag)
        for sub in itertools.product(*(range(c + 1) for c in counts))
        for tag in brute_readings(sub, flags)
    }


@settings(max_examples=300, deadline=None)
@given(hand=hands(max_cards=14), preset=st.sampled_from(PRESET_NAMES))
def test_readings_match_wild_assignment_brute_force(hand, preset):
    flags = Rules.preset(preset).flags
    assert set(ref.readings(hand.counts, flags)) == brute_readings(hand.counts, flags)


@settings(max_examples=60, deadline=None)
@given(hand=hands(max_cards=11), preset=st.sampled_from(PRESET_NAMES))
def test_generator_equals_every_sub_multiset_read(hand, preset):
    flags = Rules.preset(preset).flags
    assert set(ref.all_plays(hand.counts, flags)) == brute_plays(hand.counts, flags)


@settings(max_examples=40, deadline=None)
@given(hand=hands(max_cards=10, jokers=4), preset=st.sampled_from(PRESET_NAMES))
def test_generator_equals_brute_force_with_all_jokers(hand, preset):
    flags = Rules.preset(preset).flags
    assert set(ref.all_plays(hand.counts, flags)) == brute_plays(hand.counts, flags)


def test_chain_bomb_heavy_hand_brute_force():
    """5+ copies of consecutive ranks with wilds: uneven splits (千变) and equal ones (百变)."""
    counts = (5, 6, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1)
    for preset in ("baibian", "qianbian"):
        flags = Rules.preset(preset).flags
        assert set(ref.all_plays(counts, flags)) == brute_plays(counts, flags)


def test_fewest_keeps_one_play_per_reading():
    flags = Rules.preset("qianbian").flags
    hand = (1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2)
    plays = ref.all_plays(hand, flags)
    few = ref.fewest_filter(plays)
    readings = {(t & 15, t >> 4 & 15, t >> 22 & 63, t >> 8 & 31, t >> 13 & 15) for _, t in plays}
    assert len(few) == len(readings) and set(few) <= set(plays)
    # the straight 3..7 is made with two wilds, the small jokers (R3: SJ spent before BJ)
    straight = [(w, t) for w, t in few if t & 15 == ref.STRAIGHT and t >> 4 & 15 == 4]
    assert [ref.unpack(w) for w, _ in straight] == [(1, 1, 1) + (0,) * 10 + (2, 0)]
