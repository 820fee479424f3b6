"""The solver's table key (``sv_tt_key``, docs/solver.md "Relative ranks"): where no hand can
form a chain (R2), positions that differ only in ranks nobody holds share one key, and any two
positions that differ otherwise must not: a shared key lets the table answer for the wrong
position, and the solver's values become wrong. The key mixes the hands by 128-bit products
(``sv_mum``), so these tests enumerate many small positions and compare their keys with an
independent reading of what the key must tell apart."""

from __future__ import annotations

import itertools
import random

from shuangkou import PASS, Hand, Rules, State
from tests.budget import budget
from tests.conftest import PRESET_NAMES

# card ids (cards.py): deck*52 + rank*4 + suit, rank 0 = "3" (R1); 104, 105 small jokers
SMALL_JOKER = 104


def _relative(state: State) -> tuple:
    """What the relative-rank key must tell apart, read from the public ``State``: the natural
    ranks held (and the table's top, R4) renumbered 0, 1, 2, … in order, every hand's count of
    each and its jokers (R1), the table's reading with its top renumbered and its owner, the
    seat to act, the passes, the places and the escape."""
    hands = [state.hand(seat).packed for seat in range(4)]
    table = state.table
    held = {r for r in range(13) for h in hands if h >> 4 * r & 15}
    if table is not None and table.top < 13:
        held.add(table.top)
    index = {r: i for i, r in enumerate(sorted(held))}
    read_hands = tuple(
        (tuple((index[r], h >> 4 * r & 15) for r in range(13) if h >> 4 * r & 15),
         h >> 52 & 15, h >> 56 & 15)
        for h in hands)
    read_table = None if table is None else (
        table.kind, index.get(table.top, table.top), table.width, table.length, table.stars,
        table.size, table.wilds, state.table_owner)
    return state.to_act, state.passes, read_table, read_hands, state.places, state.escape


def _positions(rules: Rules, cards: list[int]) -> list[State]:
    """Every split of ``cards`` (at most 7) over the four seats, one card or more each (so at
    most 4 a hand: none can form a chain, R2), each seat to lead, and after each single or
    pair it can lead, then 0–2 passes: positions that differ in hands, tables, owners, seat
    to act and passes."""
    out = []
    seen = set()
    for owners in itertools.product(range(4), repeat=len(cards)):
        if len(set(owners)) < 4:
            continue
        hands = [Hand.from_cards([c for c, o in zip(cards, owners) if o == s])
                 for s in range(4)]
        split = tuple(h.packed for h in hands)
        if split in seen:   # the same hands from other copies of a card
            continue
        seen.add(split)
        for leader in range(4):
            state = State.from_position(rules, hands, leader)
            out.append(state)
            for play in state.legal():
                if play.size > 2:
                    continue
                after = state.copy()
                after.play(play)
                out.append(after)
                for _ in range(2):
                    if after.is_over or after.table is None:
                        break
                    after = after.copy()
                    after.play(PASS)
                    out.append(after)
    return out


def test_relative_keys_collide_only_for_the_same_relative_position() -> None:
    """Over every split of three small card sets over the seats (two of them the same but for
    the gaps between their ranks; 6 cards, 7 under ``SK_BUDGET=full``), each seat leading or
    after a lead and passes, and every preset: two positions share a key exactly when they are
    the same position up to the ranks nobody holds. A scheme that confused two seats' hands, a
    hand with none, or two tables would fail here."""
    from shuangkou import _solve

    sets = (    # (rank, suit) and jokers: 3 3 5 9 9 K joker; 4 4 8 Q Q A joker; 3 5 5 9 9 K K
        [0, 1, 2 * 4, 6 * 4 + 2, 52 + 6 * 4 + 3, 10 * 4, SMALL_JOKER],
        [4, 5, 5 * 4, 9 * 4 + 2, 52 + 9 * 4 + 3, 11 * 4, SMALL_JOKER],
        [0, 2 * 4, 2 * 4 + 1, 6 * 4 + 2, 52 + 6 * 4 + 3, 10 * 4, 52 + 10 * 4],
    )
    for preset in PRESET_NAMES:
        rules = Rules.preset(preset)
        found = [_positions(rules, cards[: budget(6, 7)]) for cards in sets]
        searcher = _solve.Searcher(found[0][0], "score", 12)
        by_key: dict[int, tuple] = {}
        by_position: dict[tuple, int] = {}
        keys = []
        for states in found:
            keys.append(set())
            for state in states:
                key = _solve.tt_key(searcher, state)
                position = _relative(state)
                assert by_key.setdefault(key, position) == position, (preset, str(state))
                assert by_position.setdefault(position, key) == key, (preset, str(state))
                keys[-1].add(key)
        assert len(by_position) > budget(10_000, 100_000), (preset, len(by_position))
        assert keys[0] == keys[1]   # the same positions but for the gaps: the same keys


def test_relative_keys_alike_with_and_without_pext() -> None:
    """The squeeze by BMI2 ``pext`` and by the shift loop (technique "pext" off) give the same
    key to every position (on a processor without a fast pext both take the loop)."""
    from shuangkou import _solve

    rules = Rules.preset("baibian")
    states = _positions(rules, [0, 1, 2 * 4, 6 * 4 + 2, 52 + 6 * 4 + 3])
    with_pext = _solve.Searcher(states[0], "score", 12)
    without = _solve.Searcher(states[0], "score", 12, "hand_count",
                              [t for t in _solve.TECHNIQUES if t != "pext"])
    for state in states:
        assert _solve.tt_key(with_pext, state) == _solve.tt_key(without, state), str(state)


def test_chain_capable_positions_keep_the_zobrist_hash() -> None:
    """Where a hand can still form a chain, the key is the engine's Zobrist hash, and with the
    technique "relative" off it always is."""
    from shuangkou import _solve

    rng = random.Random("key")
    rules = Rules.preset("baibian")
    checked = 0
    for _ in range(60):
        deck = list(range(108))
        rng.shuffle(deck)
        hands = [Hand.from_cards(deck[9 * s : 9 * (s + 1)]) for s in range(4)]
        state = State.from_position(rules, hands, 0)
        plain = _solve.Searcher(state, "score", 12, "hand_count",
                                [t for t in _solve.TECHNIQUES if t != "relative"])
        assert _solve.tt_key(plain, state) == state.hash
        if not all(_solve.chainless(h.packed, rules.flags) for h in hands):
            assert _solve.tt_key(_solve.Searcher(state, "score", 12), state) == state.hash
            checked += 1
    assert checked >= 20  # most 9-card hands of 百变 can form a chain
