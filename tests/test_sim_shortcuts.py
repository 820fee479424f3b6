"""The generator properties kernel self-play relies on to skip listing plays (issue #10):

* answers narrow: a seat that passed keeps its hand, and every later table of the trick beats
  the one it passed on (R4), so self-play narrows its answer list instead of regenerating it —
  exact only if ``legal_plays(hand, T2)`` is ``legal_plays(hand, T1)`` filtered by "beats T2",
  in the same order, whenever T2 beats T1;
* the whole hand: greedy's rule 1 (a play that empties the hand is made at once) is decided
  from the hand's readings (``classify``) before any list — exact only if the plays of the list
  made of the whole hand are its readings that beat the table, in ``classify``'s order.

* greedy without the list (``greedy_shortcut``): its clean play (no wild, no bomb rank) is
  found from the hand's counts, and on a table with no clean answer it passes by its rule
  while no one is close to finishing — exact only if that is the choice greedy makes on the
  whole list.

They are checked on seeded deals' hands and on hands that are one play (the first two) or on
hands of every size and tables of every kind (the third), for every preset and both wilds
modes; the self-play results themselves are checked against the Python twins of the
policies, which list every play (test_sim.py and below).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from types import SimpleNamespace

import numpy as np
import pytest

from shuangkou import Hand, Rules, _sim, classify, legal_plays
from shuangkou.plays import Play
from shuangkou.rng import SplitMix64, deal
from shuangkou.sim import greedy_policy, simulate

from .budget import budget

PRESETS = ("classic", "baibian", "jj", "qianbian")
WILDS = ("all", "fewest")


def _hands(n: int, seed: int) -> list[Hand]:
    """Seeded 27-card hands and, from each, a random smaller hand (late-deal sizes)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        cards = list(deal(seed * 1000 + i, "random").hands[i % 4])
        out.append(Hand.from_cards(cards))
        out.append(Hand.from_cards(rng.sample(cards, rng.randint(3, 14))))
    return out


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("wilds", WILDS)
def test_answers_to_a_bigger_table_are_the_narrowed_answers(preset: str, wilds: str) -> None:
    rules = Rules.preset(preset)
    rng = random.Random(preset + wilds)
    checked = 0
    for hand in _hands(12, 3):
        other = _hands(1, rng.randrange(10**6))[0]  # tables come from another hand's plays
        leads = legal_plays(other, rules, wilds="fewest")
        for t1 in rng.sample(leads, min(6, len(leads))):
            first = legal_plays(hand, rules, t1, wilds)  # type: ignore[arg-type]
            bigger = [p for p in legal_plays(other, rules, t1, "fewest") if p.beats(t1, rules)]
            for t2 in rng.sample(bigger, min(4, len(bigger))):
                want = [p for p in first if p.beats(t2, rules)]
                assert legal_plays(hand, rules, t2, wilds) == want, (  # type: ignore[arg-type]
                    str(hand), str(t1), str(t2))
                checked += 1
    assert checked >= 100


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("wilds", WILDS)
def test_the_whole_hand_in_a_list_is_its_readings_that_beat(preset: str, wilds: str) -> None:
    rules = Rules.preset(preset)
    rng = random.Random(preset + wilds)
    hands = _hands(10, 5)
    checked = 0
    for source in hands:
        # hands that are one play (a seat about to go out), and the tables around them
        plays = legal_plays(source, rules, wilds="fewest")
        for p in rng.sample(plays, min(12, len(plays))):
            hand = Hand.from_packed(p.packed)
            readings = classify(hand, rules)
            for table in [None, *rng.sample(plays, min(5, len(plays)))]:
                listed = [q for q in legal_plays(hand, rules, table, wilds)  # type: ignore[arg-type]
                          if q.packed == hand.packed]
                beating = [r for r in readings if table is None or r.beats(table, rules)]
                assert listed == beating, (str(hand), str(table))
                assert len(beating) <= 1 or table is None  # one reading at most beats a table
                checked += 1
    assert checked >= 200


@pytest.mark.parametrize("wilds", WILDS)
@pytest.mark.parametrize("cards", ["5 6 7 SJ SJ BJ", "8 9 10 SJ BJ BJ", "5 6 SJ SJ BJ BJ"])
def test_a_hand_of_two_readings_leads_the_first(cards: str, wilds: str) -> None:
    """R3.3: a 千变 set with ≥ 3 wilds may read as a straight and a pair chain; the list has
    both, straight first (``classify``'s order, the one greedy's rule 1 plays when leading),
    and on a table only the reading of its kind beats it."""
    rules = Rules.preset("qianbian")
    hand = Hand.parse(cards)
    readings = classify(hand, rules)
    assert [r.kind.name for r in readings] == ["STRAIGHT", "PAIR_CHAIN"]
    listed = [q for q in legal_plays(hand, rules, None, wilds)  # type: ignore[arg-type]
              if q.packed == hand.packed]
    assert listed == readings
    for reading in readings:
        lower = [q for q in legal_plays(Hand.parse("3 3 4 4 5 5 6 6 7 7 8 8 9 9 10 10 J J"), rules,
                                        wilds="fewest")
                 if q.kind == reading.kind and q.size == reading.size
                 and reading.beats(q, rules)]
        assert lower
        table = lower[0]
        assert [q for q in legal_plays(hand, rules, table, wilds)  # type: ignore[arg-type]
                if q.packed == hand.packed] == [reading]


@pytest.mark.parametrize("preset", PRESETS)
def test_greedy_with_every_wild_split_matches_its_python_twin(preset: str) -> None:
    """The kernel's greedy shortcuts with ``wilds="all"`` (longer lists, several sets per
    reading) give the Python twin's deals, which scan every listed play."""
    a = simulate(20, preset, "greedy", seed=11, wilds="all")
    b = simulate(20, preset, greedy_policy, seed=11, wilds="all")
    for k in a.arrays:
        assert np.array_equal(a.arrays[k], b.arrays[k]), k


def test_a_pass_in_the_list_is_no_play() -> None:
    """The narrowing keeps plays only: a pass (Play.PASS) beats nothing."""
    rules = Rules.preset("baibian")
    assert not Play.PASS.beats(Play.parse("3", rules), rules)


def _bomb_heavy(rng: random.Random) -> Hand:
    """A late-deal hand of bombs, jokers and a few strays: few or no clean plays, so greedy
    must often fall back on the list (or on a bomb)."""
    counts = [0] * 15
    for r in rng.sample(range(13), rng.randint(1, 3)):
        counts[r] = rng.randint(4, 6)
    for r in rng.sample(range(13), rng.randint(0, 2)):
        counts[r] = counts[r] or rng.randint(1, 3)
    counts[13] = rng.randint(0, 2)
    counts[14] = rng.randint(0, 2)
    return Hand.from_counts(counts)


def _greedy_cases(preset: str, n: int, seed: int) -> Iterator[tuple[Hand, Play | None, bool,
                                                                   list[int]]]:
    """(hand, table, partner_owns, card_counts) of seat 0: hands of every size, tables from
    another hand's plays (every kind, bombs too) or none, opponents near or far from out."""
    rules = Rules.preset(preset)
    rng = random.Random(f"{preset}{seed}")
    for i in range(n):
        cards = list(deal(seed * 1000 + i, "random").hands[i % 4])
        hands = [Hand.from_cards(rng.sample(cards, rng.randint(1, 27))), _bomb_heavy(rng)]
        other = Hand.from_cards(list(deal(seed * 1000 + i, "random").hands[(i + 1) % 4]))
        tables = rng.sample(legal_plays(other, rules, wilds="fewest"), 6)
        for hand in hands:
            for table in [None, *tables]:
                counts = [len(hand), rng.choice([0, 3, 6, 7, 20]), rng.randint(1, 27),
                          rng.choice([0, 2, 6, 7, 27])]
                yield hand, table, rng.random() < 0.3, counts


def _check_greedy_shortcut(preset: str, n: int, seed: int) -> tuple[int, int]:
    rules = Rules.preset(preset)
    decided = listed = 0
    for hand, table, partner_owns, counts in _greedy_cases(preset, n, seed):
        opp_min = min((c for c in counts[1::2] if c), default=99)
        status, word, tag = _sim.greedy_shortcut_choice(
            hand.packed, rules.flags, table.tag if table is not None else 0, partner_owns,
            opp_min, counts[0])
        if status == -2:
            listed += 1
            continue
        decided += 1
        view = SimpleNamespace(seat=0, hand=hand, rules=rules, table=table,
                               table_owner=None if table is None else 2 if partner_owns else 1,
                               card_counts=tuple(counts))
        for wilds in WILDS:
            plays = legal_plays(hand, rules, table, wilds)  # type: ignore[arg-type]
            want = greedy_policy(view, plays, SplitMix64(0))  # greedy draws nothing
            got = None if status == -1 else (word, tag)
            assert got == (None if want is None else (want.packed, want.tag)), (
                str(hand), str(table), partner_owns, counts, wilds)
    return decided, listed


@pytest.mark.parametrize("preset", PRESETS)
def test_greedy_without_the_list_chooses_as_on_the_list(preset: str) -> None:
    decided, listed = _check_greedy_shortcut(preset, 40, 7)
    assert decided >= 300 and listed >= 50, (decided, listed)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_greedy_without_the_list_campaign(preset: str) -> None:
    decided, listed = _check_greedy_shortcut(preset, budget(150, 5000), 8)
    assert decided >= 1000 and listed >= 200, (decided, listed)
