"""The static R8 bounds of any position, bombs in hand included (``_solve.score_bounds``,
``sv_score_bounds``; docs/solver.md "Search"): they bracket the exact value (the plain
minimax over the reference engine, and ``solve``) on small positions of every preset and both
objectives; along random playouts of whole deals the final value lies within the bounds of
every position on the way; a finished deal's bounds are its value; the cut-off built on them
(technique ``"score"``) changes no value and no optimal play; and a whole deal stopped by the
default limits gets numeric bounds within them (issue #33)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from shuangkou import PASS, Hand, Play, Rules, State, _solve, solve
from shuangkou.solve import Solution
from tests.budget import budget
from tests.conftest import PRESET_NAMES
from tests.test_solve import _played_positions, narrow_hands, oracle_values, random_position


def final_value(state: State, seat: int, objective: str) -> int:
    """docs/solver.md "Value" of a finished deal for ``seat``'s team, from its R8 result."""
    result = state.result
    assert result is not None
    units = result.units if objective == "score" else result.base
    return sum(u if (t ^ seat) & 1 == 0 else -u for t, u in enumerate(units))


def bomb_position(rng: random.Random, rules: Rules, most: int) -> State:
    """Hands of 2..``most`` cards from three consecutive ranks (eight copies each) and the
    four jokers: bombs of 5-7 cards, chain bombs, wild ones and 三王 in many hands."""
    _, hands = narrow_hands(rng, 3, 2, most)
    return State.from_position(rules, hands, rng.randrange(4))


def solved_bomb_positions(seed: str, each: int, most: int) -> Iterator[tuple[State, Solution]]:
    """``each`` bomb-rich positions (``bomb_position``, up to ``most`` cards a seat) of every
    preset, drawn from ``random.Random(seed)``, with ``solve``'s exact result and every
    move's value."""
    rng = random.Random(seed)
    for preset in PRESET_NAMES:
        rules = Rules.preset(preset)
        for _ in range(each):
            state = bomb_position(rng, rules, most)
            full = solve(state, all_values=True, threads=1, time_limit=None)
            assert full.exact and full.value is not None
            yield state, full


def exact_value(state: State, objective: str) -> int:
    """``solve``'s exact value without the cut-off under test (technique ``"score"``)."""
    without = [t for t in _solve.TECHNIQUES if t != "score"]
    s = _solve.Searcher(state, objective, 16, "hand_count", without)
    sol = solve(state, objective, threads=1, time_limit=None, searcher=s)
    assert sol.exact and sol.value is not None
    return sol.value


@pytest.mark.parametrize("objective", ["score", "base"])
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_score_bounds_bracket_the_exact_value(preset: str, objective: str) -> None:
    """Small positions, bomb-heavy (``random_position``: a narrow rank window plus jokers,
    bombs played before, mid-trick, a seat out; ``bomb_position``: up to 7 cards a seat of
    three ranks, so bombs that multiply and contribute): ``lo <= value <= hi`` for the plain
    minimax value where its tree is small enough, and for ``solve``'s exact value (without
    the cut-off built on these bounds) on every one; a fresh searcher's bounds are the
    same (the caches)."""
    rules = Rules.preset(preset)
    rng = random.Random(f"score-bounds-{preset}-{objective}")
    searcher = None
    minimax = checked = 0
    for k in range(budget(ci=60, full=600)):
        ref = random_position(rng, rules, 4) if k % 2 else None
        state = State.parse(str(ref), rules) if ref else bomb_position(rng, rules, 7)
        searcher = searcher or _solve.Searcher(state, objective, 12, "hand_count", None)
        lo, hi = _solve.score_bounds(searcher, state)
        fresh = _solve.Searcher(state, objective, 12, "hand_count", None)
        assert _solve.score_bounds(fresh, state) == (lo, hi), str(state)
        values = oracle_values(ref, objective) if ref else None
        if values is not None:
            minimax += 1
            assert lo <= max(values.values()) <= hi, (str(ref), lo, hi)
        value = exact_value(state, objective)
        assert lo <= value <= hi, (str(state), lo, value, hi)
        checked += 1
    assert minimax >= budget(ci=15, full=150) and checked == budget(ci=60, full=600)


def rich_position(rng: random.Random, rules: Rules) -> State:
    """Hands from three consecutive ranks (eight copies each) and the four jokers, one team's
    of 3 cards a seat and the other's of 11: bombs, chain bombs and wild ones, and a deal that
    often ends with a long hand still holding some (R8.4)."""
    lo = rng.randrange(0, 10)
    pool = [r for r in range(lo, lo + 3) for _ in range(8)] + [13, 13, 14, 14]
    rng.shuffle(pool)
    short = rng.randrange(2)
    hands = []
    for s in range(4):
        counts = [0] * 15
        for _ in range(3 if s % 2 == short else 11):
            counts[pool.pop()] += 1
        hands.append(Hand.from_counts(counts))
    return State.from_position(rules, hands, rng.randrange(4))


def random_move(state: State, rng: random.Random) -> Play:
    """A bomb a quarter of the times one can be played; else, answering, a pass half the
    time; leading, a play of the fewest cards most of the time (long hands keep cards, some
    bombs stay in hand to the end: R8.4); else any move."""
    plays = list(state.legal())
    bombs = [p for p in plays if p.is_bomb]
    if bombs and rng.random() < 1 / 4:
        return rng.choice(bombs)
    if state.table is not None and rng.random() < 1 / 2:
        return PASS
    if state.table is None and rng.random() < 3 / 4:
        fewest = min(len(p.cards) for p in plays)
        return rng.choice([p for p in plays if len(p.cards) == fewest])
    return rng.choice(plays + ([PASS] if state.table is not None else []))


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_score_bounds_hold_along_playouts(preset: str) -> None:
    """From whole deals and from bomb-rich positions, random playouts (``random_move``: some
    bombs played, some still in hand at the end, R8.4's held bombs): the
    final value of the line, for the team of the seat to act at each position on it, lies
    within that position's static bounds, both objectives; a bomb-free position's are the
    finishing orders' (``order_bounds``); a finished deal's bounds are its value exactly."""
    rules = Rules.preset(preset)
    rng = random.Random(f"score-playouts-{preset}")
    searchers: dict[str, _solve.Searcher] = {}
    bombs_played = positions = bomb_free = 0
    for k in range(budget(ci=12, full=120)):
        state = State.deal(rules, k) if k % 3 == 0 else rich_position(rng, rules)
        seen: list[tuple[str, int, int, int]] = []
        while not state.is_over:
            seat = state.to_act
            assert seat is not None
            for objective in ("score", "base"):
                s = searchers.get(objective) or _solve.Searcher(state, objective, 12,
                                                                "hand_count", None)
                searchers[objective] = s
                lo, hi = _solve.score_bounds(s, state)
                seen.append((objective, seat, lo, hi))
                order = _solve.order_bounds(s, state)   # bomb-free: the finishing orders'
                assert order is None or order == (lo, hi), (str(state), order, lo, hi)
                bomb_free += order is not None
            state.play(random_move(state, rng))
        bombs_played += state.result.multiplier > 1 or bool(state.result.contributions)
        positions += len(seen)
        for objective, seat, lo, hi in seen:
            v = final_value(state, seat, objective)
            assert lo <= v <= hi, (preset, k, objective, seat, lo, v, hi)
        for seat in range(4):
            for objective in ("score", "base"):
                v = final_value(state, seat, objective)
                got = _solve.score_bounds(searchers[objective], state, seat)
                assert got == (v, v), (preset, k, objective, seat, got, v)
    assert positions > 100 and bombs_played > 0 and 0 < bomb_free < positions


def test_score_bounds_use_the_bombs_in_hand() -> None:
    """Two positions alike but for a bomb in one hand: the bound of the one with the bomb is
    wider on that seat's side (it can multiply and, 百变, contribute), and equals the
    finishing orders' bound without it (``order_bounds``)."""
    rules = Rules.preset("baibian")
    plain = State.parse("baibian 3456/789/TJQ/KA2 0 - 0 - -/-/-/- -", rules)
    bomb = State.parse("baibian 3333333/789/TJQ/KA2 0 - 0 - -/-/-/- -", rules)
    s = _solve.Searcher(plain, "score", 12, "hand_count", None)
    assert _solve.score_bounds(s, plain) == _solve.order_bounds(s, plain)
    lo, hi = _solve.score_bounds(s, bomb)
    p_lo, p_hi = _solve.order_bounds(s, plain)
    # a 7★ bomb: team T's multiplier up to 8 and a contribution of 4 a seat, 16 a team
    assert lo == p_lo and hi == p_hi * 8 + 16, (lo, hi, p_lo, p_hi)


def test_score_technique_changes_no_value() -> None:
    """Every root move's exact value, and so the optimal plays, are the same with the static
    R8 bounds' cut-off (technique ``"score"``) on and off, on dealt positions of 4-6 cards a
    seat after a few random moves and on bomb-rich ones (``bomb_position``), every preset,
    both objectives."""
    rng = random.Random("score-technique")
    every = list(_solve.TECHNIQUES)
    without = [t for t in every if t != "score"]
    for preset in PRESET_NAMES:
        rules = Rules.preset(preset)
        states = list(_played_positions(rng, rules, (4, 5, 5, 6)))
        states += [bomb_position(rng, rules, 7) for _ in range(budget(ci=6, full=60))]
        for state in states:
            for objective in ("score", "base"):
                found = []
                for techniques in (every, without):
                    s = _solve.Searcher(state, objective, 18, "hand_count", techniques)
                    s.set_position(state)
                    _, values, optimal, _, stopped, _ = s.root_values(
                        0, 0.0, _solve.EXACT_DEPTH, True)
                    assert not stopped
                    found.append((values, optimal))
                assert found[0][0] == found[1][0], (str(state), objective)
                assert sorted(found[0][1]) == sorted(found[1][1]), (str(state), objective)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_whole_deal_stopped_has_bounds(preset: str) -> None:
    """Issue #33: a whole deal stopped by a limit (a second here; the default limits in
    ``test_solve.py``) has numeric bounds, ``lower <= upper``, within the root's static
    bounds, and a legal play."""
    state = State.deal(preset, 3)
    s = _solve.Searcher(state, "score", 12, "hand_count", None)
    lo, hi = _solve.score_bounds(s, state)
    sol = solve(state, time_limit=1.0)
    assert not sol.exact
    assert isinstance(sol.lower, int) and isinstance(sol.upper, int)
    assert lo <= sol.lower <= sol.upper <= hi, (lo, sol.lower, sol.upper, hi)
    assert sol.guess in state.legal()
    assert f"value in [{sol.lower:+d}, {sol.upper:+d}]" in str(sol)


def test_probe_answers_the_null_window() -> None:
    """``Searcher.probe(bound)`` (solve's null-window tests at the bounds): on small positions
    of every preset, with bounds around the exact value, it answers whether the value reaches
    ``bound``; ``True`` names a move whose exact value is at least the value returned, and
    ``False`` returns an upper bound on the value (fail-soft: at or above it)."""
    answered = 0
    for state, full in solved_bomb_positions("probe", budget(ci=8, full=80), 5):
        exact = [v for _, v in full.values]
        for bound in (full.value - 5, full.value, full.value + 1, full.value + 9):
            s = _solve.Searcher(state, "score", 12, "hand_count", None)
            s.set_position(state)
            reached, value, move, nodes = s.probe(bound)
            assert reached == (full.value >= bound), (str(state), bound)
            if reached:
                assert bound <= value <= exact[move], (str(state), bound, value)
            else:
                assert full.value <= value < bound, (str(state), bound, value)
            answered += 1
        stopped = _solve.Searcher(state, "score", 12, "hand_count", None)
        stopped.set_position(state)
        assert stopped.probe(full.value + 1, 1)[0] in (None, False)
    assert answered == 4 * len(PRESET_NAMES) * budget(ci=8, full=80)


def test_solve_probes_keep_the_bounds_sound() -> None:
    """A limited ``solve`` whose exact search a limit stopped runs its probes at the bounds
    (then, unless a play is proven, the deepening) with the reserve it held back: on
    bomb-rich positions of every preset stopped at several node limits, ``lower <= value <=
    upper``, the guess proven to reach ``lower`` (``depth`` None) does, and the bounds are
    narrower than the static ones somewhere (the probes and searches prove something)."""
    checked = narrowed = 0
    for state, full in solved_bomb_positions("probes-in-solve", budget(ci=6, full=60), 7):
        exact = dict(full.values)
        s = _solve.Searcher(state, "score", 12, "hand_count", None)
        lo, hi = _solve.score_bounds(s, state)
        for share in (4, 10, 20):
            cut = solve(state, max_nodes=max(2, full.nodes * share // 40), threads=1,
                        time_limit=None)
            if cut.exact:
                continue
            checked += 1
            assert lo <= cut.lower <= full.value <= cut.upper <= hi, (str(state), share)
            narrowed += (cut.lower, cut.upper) != (lo, hi)
            if cut.depth is None:
                assert exact[cut.guess or PASS] >= cut.lower, str(state)
    assert checked > 20 and narrowed > 5, (checked, narrowed)
