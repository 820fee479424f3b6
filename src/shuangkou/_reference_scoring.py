"""The R8 arithmetic of the reference engine: a deal's outcome and scores from what it
produced (RULES.md R8), in plain Python.

:func:`score` turns the finishing order, the bombs each seat played, the cards each seat still
holds and the seat that abandoned (if any) into a :class:`~shuangkou.scoring.Result` with the
full breakdown. The held-bomb contribution of R8.4 (手中牌贡献分按最大计算) needs the best split
of the cards a seat still holds into disjoint bombs, wilds placed freely: :func:`best_held_bombs`
solves it exactly by dynamic programming over the ranks (see its docstring).

This is the test-side oracle of the kernel's scoring (``tests/test_engine_diff*.py``), driven by
:class:`shuangkou._reference_game.RefState`. Private, not API: the wheel carries it for
``SHUANGKOU_BACKEND=reference`` and for the suite run against the installed wheel.

Choices made where RULES.md is silent (documented here and cited in tests):

* **R8.1 beyond 8 cards.** Classic's multiplier is ``cards − 3`` for an X相 bomb of 5…8 cards;
  larger bombs exist only under house rules (wilds with classic scoring) and continue the same
  line (``cards − 3``). 三王 multiplies by 1 and a chain bomb counts like an X相 bomb of its X
  (both only exist under house rules with classic scoring).
* **Contribution tables.** baibian (R8.2): 6★/7★/≥8★ take 2/4/6 units from each other seat;
  qianbian (R8.4): 6★ 2, 7★ 6, 8★ 16, 9★ 30, 10★ 60, ≥11★ 100. The classic and JJ modes have
  none. Held bombs (``rules.held_bombs_score``) use the mode's table, so the option changes
  nothing under classic or JJ scoring.
* **The cap** (``rules.score_cap``, 千变 300) applies in whatever mode sets it, to each seat's
  final units; the escape penalty is never clamped (no cap below it is allowed to matter:
  the cap applies to deal results, the penalty replaces them).
* **Escape.** The abandoning seat gets ``-rules.escape_penalty`` units, every other seat 0 —
  no base, no multiplier, no contributions, no held bombs (R8 "Escape"). The outcome is
  :attr:`Outcome.ESCAPE` ('逃跑'); places are still reported (finishers first, then the rest
  ranked as R7 ranks unplaced seats).
* **JJ 平扣.** The cumulative multiplier of R8.3 multiplies the 平扣 base (±1) as well.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from . import _reference
from .cards import Hand
from .plays import Kind, Play
from .rules import Rules
from .scoring import BombScore, Outcome, Result

__all__ = [
    "HeldBomb",
    "HeldSplit",
    "best_held_bombs",
    "contribution_units",
    "outcome_of",
    "score",
]


# -- tables (R8.1–R8.4) ------------------------------------------------------------------------
_BAIBIAN_CONTRIB = {6: 2, 7: 4}  # ≥8★: 6
_QIANBIAN_CONTRIB = {6: 2, 7: 6, 8: 16, 9: 30, 10: 60}  # ≥11★: 100


def contribution_units(stars: int, mode: str) -> int:
    """Units a bomb of ``stars`` takes from *each* other seat (its owner gains 3×), per the
    scoring mode's table (R8.2, R8.4); 0 for modes without contributions."""
    if mode == "baibian":
        if stars < 6:
            return 0
        return _BAIBIAN_CONTRIB.get(stars, 6)
    if mode == "qianbian":
        if stars < 6:
            return 0
        return _QIANBIAN_CONTRIB.get(stars, 100)
    return 0


def _classic_factor(play: Play, rules: Rules) -> int:
    """R8.1: 5 cards ×2, 6 ×3, 7 ×4, 8 ×5 (cards − 3 beyond, house rules), 天王 by option."""
    if play.kind == Kind.FOUR_JOKERS:
        return rules.four_jokers_multiplier
    if play.kind == Kind.THREE_JOKERS:
        return 1
    x = play.width if play.kind == Kind.CHAIN_BOMB else play.size
    return max(1, x - 3)


def _star_factor(stars: int, mode: str) -> int:
    """R8.2 / R8.4 multiplier of team T's biggest bomb by stars."""
    if stars < 5:
        return 1
    if mode == "baibian":
        return {5: 2, 6: 4, 7: 8}.get(stars, 16)
    return 1 << (stars - 4)  # qianbian: 5★ ×2, 6★ ×4, 7★ ×8, ×2 per further star


def _jj_factor(stars: int) -> int:
    """R8.3: each bomb multiplies: 6★ ×2, 7★ ×3, ≥8★ ×4."""
    if stars < 6:
        return 1
    return {6: 2, 7: 3}.get(stars, 4)


# -- the scoring function -----------------------------------------------------------------------
def _base_units(rules: Rules, outcome: Outcome, places: Sequence[int]) -> list[int]:
    t0 = places[0] % 2
    base = [0, 0, 0, 0]
    mode = rules.scoring
    if mode == "classic":  # R8.1
        v = {Outcome.DOUBLE_WIN: 4, Outcome.SINGLE_WIN: 2, Outcome.TIE: 0}[outcome]
        for s in range(4):
            base[s] = v if s % 2 == t0 else -v
    elif mode == "baibian":  # R8.2, by place
        by_place = {
            Outcome.DOUBLE_WIN: (4, 4, -4, -4),
            Outcome.SINGLE_WIN: (2, -2, 2, -2),
            Outcome.TIE: (1, 0, 0, 1),
        }[outcome]
        for i, s in enumerate(places):
            base[s] = by_place[i]
    elif mode == "jj":  # R8.3
        if outcome is Outcome.TIE:
            for i, s in enumerate(places):
                base[s] = (1, -1, -1, 1)[i]
        else:
            v = 6 if outcome is Outcome.DOUBLE_WIN else rules.jj_single_win
            for s in range(4):
                base[s] = v if s % 2 == t0 else -v
    else:  # qianbian, R8.4
        v = {Outcome.DOUBLE_WIN: 3, Outcome.SINGLE_WIN: 2, Outcome.TIE: 1}[outcome]
        for s in range(4):
            base[s] = v if s % 2 == t0 else -v
    return base


def outcome_of(places: Sequence[int]) -> Outcome:
    """R8: where the first finisher's partner placed (2nd 双扣, 3rd 单扣, 4th 平扣)."""
    partner = places[0] ^ 2
    where = list(places).index(partner)
    return (Outcome.DOUBLE_WIN, Outcome.SINGLE_WIN, Outcome.TIE)[where - 1]


def _contribution_vector(seat: int, per_seat: int) -> tuple[int, int, int, int]:
    return tuple(3 * per_seat if s == seat else -per_seat for s in range(4))  # type: ignore[return-value]


def score(
    rules: Rules,
    places: Sequence[int],
    bombs: Sequence[Sequence[Play]] = ((), (), (), ()),
    held: Sequence[Hand] | None = None,
    escape: int | None = None,
) -> Result:
    """Score one deal (R8).

    * ``places`` – the four seats in place order (finishing order, unplaced seats ranked);
    * ``bombs`` – per seat, the plays it made (non-bombs are ignored), in any order;
    * ``held`` – per seat, the cards it still holds at the end (for R8.4 held bombs);
    * ``escape`` – the seat that abandoned (逃跑), if any.
    """
    places = tuple(int(s) for s in places)
    if sorted(places) != [0, 1, 2, 3]:
        raise ValueError(f"places must be the four seats in place order, got {places}")
    if len(bombs) != 4:
        raise ValueError("bombs must list the plays of each of the 4 seats")
    if held is not None and len(held) != 4:
        raise ValueError("held must give the cards of each of the 4 seats")
    first_team = (places[0], places[0] ^ 2)
    none4 = (False, False, False, False)
    if escape is not None:
        if escape not in range(4):
            raise ValueError(f"escape seat must be 0..3, got {escape}")
        units = [0, 0, 0, 0]
        units[escape] = -rules.escape_penalty
        u = tuple(units)
        return Result(
            Outcome.ESCAPE, places, first_team, (0, 0, 0, 0), 1, (), (), u, u, none4,  # type: ignore[arg-type]
            escape, rules.base_score, rules.name, rules.scoring,
        )

    outcome = outcome_of(places)
    mode = rules.scoring
    base = _base_units(rules, outcome, places)
    played = [(s, p) for s in range(4) for p in bombs[s] if p and p.is_bomb]

    # Multiplier.
    mult_bombs: list[BombScore] = []
    multiplier = 1
    z4 = (0, 0, 0, 0)
    if mode == "jj":  # R8.3: cumulative over every bomb, both teams
        for s, p in played:
            f = _jj_factor(p.stars)
            if f > 1:
                multiplier *= f
                mult_bombs.append(BombScore(s, p, False, p.stars, f, z4))
    else:  # R8.1, R8.2, R8.4: team T's single largest factor
        best: tuple[int, int, Play] | None = None
        for s, p in played:
            if s not in first_team:
                continue
            f = _classic_factor(p, rules) if mode == "classic" else _star_factor(p.stars, mode)
            if f > 1 and (best is None or f > best[0]):
                best = (f, s, p)
        if best is not None:
            multiplier = best[0]
            mult_bombs.append(BombScore(best[1], best[2], False, best[2].stars, best[0], z4))

    # Contributions: played bombs, then held bombs.
    contribs: list[BombScore] = []
    for s, p in played:
        per = contribution_units(p.stars, mode)
        if per:
            contribs.append(BombScore(s, p, False, p.stars, 1, _contribution_vector(s, per)))
    if rules.held_bombs_score and held is not None:
        for s in range(4):
            if not held[s]:
                continue
            for hb in best_held_bombs(held[s], rules).bombs:
                per = contribution_units(hb.stars, mode)
                if per:
                    vec = _contribution_vector(s, per)
                    contribs.append(BombScore(s, hb.play, True, hb.stars, 1, vec))

    unclamped = [base[s] * multiplier for s in range(4)]
    for b in contribs:
        for s in range(4):
            unclamped[s] += b.contribution[s]
    units = list(unclamped)
    clamped = [False] * 4
    if rules.score_cap is not None:
        cap = rules.score_cap
        for s in range(4):
            if units[s] > cap or units[s] < -cap:
                units[s] = cap if units[s] > 0 else -cap
                clamped[s] = True
    return Result(
        outcome, places, first_team, tuple(base), multiplier, tuple(mult_bombs),  # type: ignore[arg-type]
        tuple(contribs), tuple(unclamped), tuple(units), tuple(clamped),  # type: ignore[arg-type]
        None, rules.base_score, rules.name, rules.scoring,
    )


# -- held bombs: the exact best split (R8.4) ------------------------------------------------------
@dataclass(frozen=True)
class HeldBomb:
    """One bomb of a best split: its cards and reading (a :class:`Play`) and its stars."""

    play: Play
    stars: int


@dataclass(frozen=True)
class HeldSplit:
    """The best split of held cards: total units taken from *each* other seat, and the bombs."""

    per_seat: int
    bombs: tuple[HeldBomb, ...]


Plan = tuple[tuple[str, int, int, int], ...]
"""Bombs of a split: ``("bomb", rank, size, 0)`` or ``("chain", low rank, width, length)``."""

MIN_CHAIN, MAX_CHAIN, LAST_CHAIN_RANK = 3, 6, 11  # R2: 3 ≤ Y ≤ 6, ranks 3..A
MIN_BOMB = 4


def _partitions(total: int, largest: int) -> list[tuple[int, ...]]:
    """Non-increasing tuples of parts ≥ MIN_BOMB, each ≤ ``largest``, summing to ≤ total
    (including the empty tuple)."""
    out: list[tuple[int, ...]] = [()]
    for first in range(min(total, largest), MIN_BOMB - 1, -1):
        for rest in _partitions(total - first, first):
            out.append((first, *rest))
    return out


def _solve_naturals(
    nat: tuple[int, ...], wilds: int, star_bombs: bool, mode: str
) -> tuple[int, Plan]:
    """Best total (units per other seat) of disjoint X相 bombs and chain bombs from natural
    counts ``nat`` (13 ranks) plus ``wilds`` wild cards; returns (value, plan) where plan items
    are ``("bomb", rank, size, 0)`` or ``("chain", low rank, width, length)``."""

    def value(stars: int) -> int:
        return contribution_units(stars, mode)

    @cache
    def f(r: int, open_: tuple[tuple[int, int], ...], w: int) -> tuple[int, Plan]:
        if r == 13:
            return (0, ())
        n = nat[r]
        best: tuple[int, Plan] = (-1, ())
        k = len(open_)
        can_continue = r <= LAST_CHAIN_RANK
        for mask in range(1 << k):  # bit set = the chain continues through rank r
            cont: list[tuple[int, int]] = []
            gain = 0
            plan_closed: list[tuple[str, int, int, int]] = []
            ok = True
            for i, (x, length) in enumerate(open_):
                if mask >> i & 1:
                    if not can_continue or length >= MAX_CHAIN:
                        ok = False
                        break
                    cont.append((x, length + 1))
                else:
                    if length < MIN_CHAIN:
                        ok = False
                        break
                    gain += value(x + length)
                    plan_closed.append(("chain", r - length, x, length))
            if not ok:
                continue
            demand = sum(x for x, _ in cont)
            room = n + w - demand
            if room < 0:
                continue
            # New chains may start here if they can still reach MIN_CHAIN ranks.
            can_open = star_bombs and r + MIN_CHAIN - 1 <= LAST_CHAIN_RANK
            chain_opts = _partitions(room, room) if can_open else [()]
            for new_chains in chain_opts:
                room2 = room - sum(new_chains)
                # Single-rank bombs: need at least one natural each; only worth it if they pay.
                for singles in _partitions(room2, room2):
                    if len(singles) > n or any(value(x if star_bombs else 0) <= 0 for x in singles):
                        continue
                    used = demand + sum(new_chains) + sum(singles)
                    need_wild = max(0, used - n)
                    if need_wild > w:
                        continue
                    opened = tuple(sorted(cont + [(x, 1) for x in new_chains]))
                    sub_v, sub_plan = f(r + 1, opened, w - need_wild)
                    if sub_v < 0:
                        continue
                    total = gain + sum(value(x) for x in singles) + sub_v
                    if total > best[0]:
                        new_bombs = tuple(("bomb", r, x, 0) for x in singles)
                        plan = tuple(plan_closed) + new_bombs + sub_plan
                        best = (total, plan)
        return best

    return f(0, (), wilds)


def _assign_cards(
    plan: Sequence[tuple[str, int, int, int]], nat: Sequence[int], wild_pool: list[int]
) -> list[Hand]:
    """Cards of each planned bomb: at each rank, one natural to each single bomb first, then
    naturals to the groups in order, wilds (from ``wild_pool``, small jokers first) for the rest."""
    cards = [[0] * 15 for _ in plan]
    left = list(nat)
    pool = list(wild_pool)
    for r in range(13):
        groups = []  # (bomb index, size, is single)
        for i, (kind, rank, x, length) in enumerate(plan):
            if kind == "bomb" and rank == r:
                groups.append((i, x, True))
            elif kind == "chain" and rank <= r < rank + length:
                groups.append((i, x, False))
        need = {i: x for i, x, _ in groups}
        for i, _, single in groups:
            if single and left[r]:
                cards[i][r] += 1
                left[r] -= 1
                need[i] -= 1
        for i, _, _ in groups:
            take = min(need[i], left[r])
            cards[i][r] += take
            left[r] -= take
            need[i] -= take
            for _ in range(need[i]):
                cards[i][pool.pop(0)] += 1
            need[i] = 0
    return [Hand.from_counts(c) for c in cards]


@lru_cache(maxsize=4096)
def _best_held(packed: int, rules: Rules) -> HeldSplit:
    hand = Hand._from_packed_unchecked(packed)
    counts = hand.counts
    nat = counts[:13]
    sj, bj = counts[13], counts[14]
    mode = rules.scoring
    star = rules.star_bombs
    # Jokers-only bombs first (R3: read naturally): none, 三王 (3 jokers, star presets only)
    # or 天王 (all 4); the remaining wild jokers then serve as wilds.
    joker_options: list[tuple[int, int]] = [(0, 0)]
    if star:
        for a in range(min(sj, 3) + 1):
            b = 3 - a
            if b <= bj:
                joker_options.append((a, b))
    if sj == 2 and bj == 2:
        joker_options.append((2, 2))
    best: tuple[int, Plan, tuple[int, int], list[int]] | None = None
    for a, b in joker_options:
        joker_stars = 0 if a + b == 0 else (6 if a + b == 3 else (7 if star else 0))
        jv = contribution_units(joker_stars, mode) if a + b else 0
        if a + b and jv <= 0:
            continue
        pool = [13] * ((sj - a) if rules.wild_small_joker else 0)
        pool += [14] * ((bj - b) if rules.wild_big_joker else 0)
        v, plan = _solve_naturals(tuple(nat), len(pool), star, mode)
        total = v + jv
        if best is None or total > best[0]:
            best = (total, plan, (a, b), pool)
    assert best is not None
    total, plan, (a, b), pool = best
    parts = _assign_cards(plan, nat, pool)
    if a + b:
        parts.append(Hand.from_counts([0] * 13 + [a, b]))
    bombs: list[HeldBomb] = []
    for cards in parts:
        # Read by the oracle (R3), whatever backend the kernel API uses.
        tags = _reference.classify(cards.packed, rules.flags)
        readings = [Play._from_codes(cards.packed, t) for t in tags if t & 15 >= _reference.BOMB]
        if not readings:  # cannot happen: every planned part is a bomb shape
            raise AssertionError(f"held split part {cards} is not a bomb under {rules.name}")
        p = readings[0]
        bombs.append(HeldBomb(p, p.stars))
    bombs.sort(key=lambda hb: (-hb.stars, hb.play.sort_key()))
    return HeldSplit(total, tuple(bombs))


def best_held_bombs(cards: Hand | str, rules: Rules) -> HeldSplit:
    """The split of ``cards`` (a seat's hand at the end of a deal) into disjoint bombs, wilds
    placed freely, that maximises the seat's contribution under ``rules.scoring`` (R8.4
    手中牌贡献分按最大计算). Cards in no bomb are simply left over.

    Exact: the jokers-only bombs (三王, 天王) are tried first, then a dynamic programme walks the
    ranks 3 → 2 with state (open chain bombs as (X, length so far), wilds left). At each rank
    every open chain continues (X more cards) or closes (if ≥ 3 ranks), and any set of new
    chains (X ≥ 4) and single-rank bombs (≥ 1 natural each) may start, naturals first, wilds
    covering the shortfall. Chain-bomb groups are taken equal: extra cards above the smallest
    group add no star (R5), so equal groups lose nothing even where groups may differ.
    """
    hand = cards if isinstance(cards, Hand) else Hand.parse(cards)
    return _best_held(hand.packed, rules)
