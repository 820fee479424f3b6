"""sk.solve against a plain minimax over the reference engine (RefState: the plays oracle, R7
flow and R8 arithmetic written out in Python), on random small positions of every preset —
mid-trick, after passes, after a seat went out, after bombs — for both objectives: the value
and the set of optimal plays; a principal variation, replayed, scores the value."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from typing import Any

import pytest

from shuangkou import PASS, Game, Hand, Play, Rules, State, classify, solve
from shuangkou._reference_game import RefState
from tests.budget import budget
from tests.conftest import PRESET_NAMES


def team_value(state: RefState, seat: int, objective: str) -> int:
    """docs/solver.md: the seat's team total minus the other team's."""
    result = state.result
    assert result is not None
    units = result.units if objective == "score" else result.base
    return sum(u if (t ^ seat) & 1 == 0 else -u for t, u in enumerate(units))


def moves(state: RefState) -> list[Play]:
    return list(state.legal()) + ([PASS] if state.table is not None else [])


class TooBig(Exception):
    """The oracle's tree is over its budget: the test draws another position."""


def minimax(state: RefState, objective: str, budget: list[int]) -> int:
    """Plain negamax, no pruning, no table: the value for the seat to act. ``budget`` counts
    down the positions the oracle may still visit."""
    seat = state.to_act
    assert seat is not None
    best = None
    for m in moves(state):
        v = child_value(state, m, seat, objective, budget)
        best = v if best is None or v > best else best
    assert best is not None
    return best


def child_value(state: RefState, move: Play, seat: int, objective: str, budget: list[int]) -> int:
    budget[0] -= 1
    if budget[0] < 0:
        raise TooBig
    state.play(move)
    try:
        if state.is_over:
            return team_value(state, seat, objective)
        v = minimax(state, objective, budget)
        return v if (state.to_act ^ seat) & 1 == 0 else -v  # type: ignore[operator]
    finally:
        state.undo()


def narrow_hands(rng: random.Random, width: int, least: int, most: int
                 ) -> tuple[int, list[Hand]]:
    """Four hands of ``least``..``most`` cards each from ``width`` consecutive natural ranks
    (eight copies each, the lowest drawn from 0..9) and the four jokers: bombs, chain bombs,
    wild readings and 三王 are common. Returns the lowest rank and the hands."""
    lo = rng.randrange(0, 10)
    pool = [r for r in range(lo, lo + width) for _ in range(8)] + [13, 13, 14, 14]
    rng.shuffle(pool)
    hands = []
    for _ in range(4):
        counts = [0] * 15
        for _ in range(rng.randint(least, most)):
            counts[pool.pop()] += 1
        hands.append(Hand.from_counts(counts))
    return lo, hands


def random_position(rng: random.Random, rules: Rules, cards: int) -> RefState:
    """Hands of up to ``cards`` cards from a narrow rank window plus jokers (bombs, chains and
    wild readings are common), then a few random actions: positions mid-trick, after passes,
    after a seat went out, after bombs."""
    while True:
        lo, hands = narrow_hands(rng, 4, 1, cards)
        bombs: list[list[Play]] = [[], [], [], []]
        if rng.random() < 0.4:  # a bomb played earlier in the deal, of a rank nobody holds
            rank = rng.choice([r for r in range(13) if not lo <= r < lo + 4])
            counts = [0] * 15
            counts[rank] = rng.randint(4, 7)
            bomb = classify(Hand.from_counts(counts), rules)[0]
            bombs[rng.randrange(4)].append(bomb)
        state = RefState.from_position(rules, hands, rng.randrange(4), bombs=bombs)
        for _ in range(rng.randint(0, 6)):
            ms = moves(state)
            bombs = [m for m in ms if m and m.is_bomb]
            state.play(rng.choice(bombs) if bombs and rng.random() < 0.5 else rng.choice(ms))
            if state.is_over:
                break
        if not state.is_over:
            return state


ORACLE_NODES = 20_000


def oracle_values(state: RefState, objective: str) -> dict[Play, int] | None:
    """Each move's exact value by plain minimax, or None if the tree is over budget."""
    seat = state.to_act
    assert seat is not None
    budget = [ORACLE_NODES]
    try:
        return {m: child_value(state, m, seat, objective, budget) for m in moves(state)}
    except TooBig:
        return None


def check(state: RefState, values: dict[Play, int], objective: str) -> None:
    seat = state.to_act
    assert seat is not None
    value = max(values.values())
    sol = solve(state, objective)
    assert sol.exact and sol.value == value, str(state)
    assert set(sol.best) == {m for m, v in values.items() if v == value}, str(state)
    # the principal variation, replayed, ends the deal with that value
    replay = state.copy()
    for p in sol.pv:
        replay.play(p)
    assert replay.is_over and team_value(replay, seat, objective) == value


@pytest.mark.parametrize("objective", ["score", "base"])
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_solve_equals_plain_minimax(preset: str, objective: str) -> None:
    rules = Rules.preset(preset)
    rng = random.Random(f"solve-{preset}-{objective}")
    seen = {"mid-trick": 0, "after passes": 0, "a seat out": 0, "after bombs": 0}
    n = 0
    while n < budget(ci=40, full=400):
        state = random_position(rng, rules, 3 if n % 4 else 4)
        values = oracle_values(state, objective)
        if values is None:
            continue
        n += 1
        seen["mid-trick"] += state.table is not None
        seen["after passes"] += state.passes > 0
        seen["a seat out"] += bool(state.places)
        seen["after bombs"] += any(state.bombs_played(s) for s in range(4))
        check(state, values, objective)
    assert all(seen.values()), seen  # every kind of position was met


def test_limits_stop_the_search_with_bounds() -> None:
    state = RefState.parse("baibian 35/-/336/356 3 - 0 1 -/-/-/- -")
    full = solve(state)
    assert full.exact and full.value == 8 and full.lower == full.upper == 8
    cut = solve(state, max_nodes=full.nodes // 2)
    assert not cut.exact and cut.value is None and cut.best == ()
    assert cut.lower <= full.value <= cut.upper
    assert cut.nodes <= full.nodes // 2 + 1
    timed = solve(state, time_limit=60.0)
    assert timed.exact and timed.value == 8


@pytest.mark.parametrize("best", ["all", "one"])
def test_a_limit_the_search_fits_in_costs_nothing(best: str) -> None:
    """Issue #33: a limited call runs the exact search first, with all but GUESS_SHARE of its
    budget, and spends nothing on probes or the deepening when that search ends: on one
    thread (deterministic node counts) its nodes are the unlimited call's. The position (6
    cards a seat) needs ~280,000 nodes, past SOLO_NODES, where the order before (probes and
    deepening after SOLO_NODES, then the exact search again) added nodes."""
    deck = list(range(108))
    random.Random(8).shuffle(deck)
    hands = [Hand.from_cards(deck[6 * s : 6 * (s + 1)]) for s in range(4)]
    state = State.from_position(Rules.preset("baibian"), hands, 0)
    free = solve(state, max_nodes=None, time_limit=None, threads=1, best=best)
    assert free.exact and free.nodes > 100_000
    for limits in ({"max_nodes": 2 * free.nodes, "time_limit": None},
                   {"max_nodes": None, "time_limit": 600.0}, {}):    # {}: the defaults
        cut = solve(state, threads=1, best=best, **limits)
        assert cut.exact and (cut.value, cut.best) == (free.value, free.best), limits
        assert cut.nodes == free.nodes, (limits, cut.nodes, free.nodes)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_a_stopped_search_brackets_the_value(preset: str) -> None:
    """Issue #33: a search stopped by a limit gives bounds that hold and a legal play. Random
    small positions (mid-trick, after bombs, a seat out) of every preset (``stopped_brackets``)."""
    rng = random.Random(f"bounds-{preset}")
    rules = Rules.preset(preset)
    states = (random_position(rng, rules, 5) for _ in range(budget(25, 200)))
    checked, proven = stopped_brackets(states)
    assert checked > 20 and proven > 5, (checked, proven)


def stopped_brackets(states: Iterable[State | RefState], **options: Any) -> tuple[int, int]:
    """Each position solved exactly, then by ``solve(**options)`` stopped at four node limits
    below what that needs (one thread and two): an unstopped search gives the value; a
    stopped one ``lower <= value <= upper`` (numbers: the static R8 bounds at worst) and a
    legal guess which, when proven to reach ``lower`` (``depth`` None), is a play whose exact
    value does. Returns how many searches stopped, and how many of those had a proven guess."""
    checked = proven = 0
    for state in states:
        full = solve(state, all_values=True, threads=1, time_limit=None)
        assert full.exact and full.value is not None
        exact = dict(full.values)
        for share in (1, 3, 10, 30):
            limit = max(1, full.nodes * share // 40)
            for threads in (1, 2):
                cut = solve(state, max_nodes=limit, threads=threads, time_limit=None, **options)
                if cut.exact:
                    assert cut.value == full.value
                    continue
                checked += 1
                assert cut.lower <= full.value <= cut.upper, (str(state), limit)
                assert cut.guess in exact or (cut.guess is None and PASS in exact)
                if cut.depth is None:
                    proven += 1
                    assert exact[cut.guess or PASS] >= cut.lower, (str(state), limit)
    return checked, proven


def test_default_limits_answer_a_whole_deal() -> None:
    """Issue #33: the default limits on a whole deal (~19 s and no play before) return in
    about DEFAULT_TIME_LIMIT seconds with a legal play (wall clock: generous, the machine
    may be loaded) and numeric bounds on the value, within the root's static R8 bounds."""
    import time

    from shuangkou import _solve
    from shuangkou.solve import DEFAULT_TIME_LIMIT

    state = State.deal("baibian", 7)
    t = time.monotonic()
    sol = solve(state)
    assert time.monotonic() - t < DEFAULT_TIME_LIMIT * 2
    assert not sol.exact and sol.guess in state.legal()
    lo, hi = _solve.score_bounds(_solve.Searcher(state, "score", 12, "hand_count", None), state)
    assert isinstance(sol.lower, int) and isinstance(sol.upper, int)
    assert lo <= sol.lower <= sol.upper <= hi, (lo, sol.lower, sol.upper, hi)
    assert "best so far" in str(sol)


def test_print_shows_every_value_when_asked() -> None:
    """Issue #35: print(solve(..., all_values=True)) lists each move's value."""
    state = RefState.parse("baibian 35/-/336/356 3 - 0 1 -/-/-/- -")
    assert str(solve(state, all_values=True)).splitlines()[-1] == "values: 3 +2, 5 +8, 6 +2"
    assert "values:" not in str(solve(state))


def test_solve_a_game_and_its_errors() -> None:
    game = Game.from_deal(Rules.preset("classic"), ["3s 4s", "5s", "6s", "7s"], leader=0)
    sol = solve(game)
    assert sol.exact and sol.seat == 0
    game.play(game.legal_plays()[0])
    assert solve(game).seat == 1
    with pytest.raises(ValueError, match="objective"):
        solve(game, "points")  # type: ignore[arg-type]
    while not game.is_over:
        plays = game.legal_plays()
        game.play(plays[0]) if plays else game.pass_()
    with pytest.raises(ValueError, match="over"):
        solve(game)


def test_cli_solve_and_hint(capsys: pytest.CaptureFixture[str]) -> None:
    from shuangkou.cli import main

    assert main(["solve", "baibian 35/-/336/356 3 - 0 1 -/-/-/- -"]) == 0
    out = capsys.readouterr().out
    assert "value +8 (score) for seat 3's team" in out and "optimal: 5" in out
    assert main(["hint", "classic 3345/3/3/3 0 - 0 - -/-/-/- -"]) == 0
    assert capsys.readouterr().out.splitlines()[1].split()[:2] == ["3", "3"]
    assert main(["solve", "baibian 35/-/336/356 3 - 0 1"]) == 2
    assert "8 fields" in capsys.readouterr().err
    # a hostile check's findings: a finished deal was "0 hints for seat None" (exit 0), and
    # an unfinished one without a seat to act "to_act must be an integer, not NoneType"
    for command in ("hint", "solve"):
        assert main([command, "classic -/3/-/3 - - 0 02 -/-/-/- -"]) == 2
        assert "the deal is over (no seat to act)" in capsys.readouterr().err
        assert main([command, "classic -/3/3/3 - - 0 0 -/-/-/- -"]) == 2
        assert "the deal is not over at this position (R7)" in capsys.readouterr().err


def test_all_values_are_exact() -> None:
    rng = random.Random("all-values")
    for preset in PRESET_NAMES:
        rules = Rules.preset(preset)
        for _ in range(5):
            state = random_position(rng, rules, 3)
            values = oracle_values(state, "score")
            if values is None:
                continue
            sol = solve(state, all_values=True)
            assert dict(sol.values) == values, str(state)


def test_techniques_change_no_value() -> None:
    """Every root move's exact value is the same with the search's techniques (relative-rank
    keys, buckets, MTD(f), quick tricks, the transposition cut-off, the finishing-order
    bounds, forced passes without a node, the 手数 move order) on and all off, on dealt
    positions of 5-6 cards a seat (mostly chain-free and bomb-free hands: relative ranks
    beyond 4 cards, the bounds from the root) and after a few random moves."""
    from shuangkou import _solve

    rng = random.Random("techniques")
    for preset in PRESET_NAMES:
        for state in _played_positions(rng, Rules.preset(preset), (5, 5, 5, 6)):
            found = []
            for techniques in (None, ()):
                s = _solve.Searcher(state, "score", 18, "hand_count", techniques)
                s.set_position(state)
                _, values, _, _, stopped, _ = s.root_values(0, 0.0, _solve.EXACT_DEPTH, True)
                assert not stopped
                found.append(values)
            assert found[0] == found[1], str(state)


def _played_positions(rng: random.Random, rules: Rules, sizes: tuple[int, ...]) -> Iterator[State]:
    """Dealt positions of ``sizes[k]`` cards a seat, seat k leading, each after 0-3 random
    moves; the ones those moves ended are left out."""
    for k, n in enumerate(sizes):
        deck = list(range(108))
        rng.shuffle(deck)
        hands = [Hand.from_cards(deck[n * s : n * (s + 1)]) for s in range(4)]
        state = State.from_position(rules, hands, k)
        for _ in range(rng.randint(0, 3)):
            moves = list(state.legal()) + ([PASS] if state.table is not None else [])
            state.play(rng.choice(moves))
            if state.is_over:
                break
        if not state.is_over:
            yield state


def test_forced_passes_keep_depth_limited_values() -> None:
    """Forced passes are made without a node, but each still takes one move of a
    depth-limited search (none at the horizon): every root move's value at depths 1-8 is the
    same with them on and off, on dealt 5-card positions after a few random moves."""
    from shuangkou import _solve

    rng = random.Random("forced")
    without = [t for t in _solve.TECHNIQUES if t != "forced"]
    checked = 0
    for preset in PRESET_NAMES:
        for state in _played_positions(rng, Rules.preset(preset), (5, 5, 5, 5)):
            for depth in (1, 2, 3, 5, 8):
                found = []
                for techniques in (None, without):
                    s = _solve.Searcher(state, "score", 18, "hand_count", techniques)
                    s.set_position(state)
                    found.append(s.root_values(0, 0.0, depth, True)[1])
                assert found[0] == found[1], (str(state), depth)
                checked += 1
    assert checked >= 40


def test_split_order_changes_no_value() -> None:
    """The move order by 手数 (technique "split": plays that are no part of a fewest-plays
    split tried after those that are) runs only in exact searches: every root move's exact
    value is the same with it on and off, and so is every depth-limited value (whose results
    may depend on the order through the table, PIMC's on them), on dealt 6-card positions
    after a few random moves, leading and answering."""
    from shuangkou import _solve

    rng = random.Random("split")
    without = [t for t in _solve.TECHNIQUES if t != "split"]
    checked = 0
    for preset in PRESET_NAMES:
        for state in _played_positions(rng, Rules.preset(preset), (6, 6, 6, 6)):
            for depth in (_solve.EXACT_DEPTH, 2, 5):
                found = []
                for techniques in (None, without):
                    s = _solve.Searcher(state, "score", 18, "hand_count", techniques)
                    s.set_position(state)
                    _, values, _, _, stopped, _ = s.root_values(0, 0.0, depth, True)
                    assert not stopped
                    found.append(values)
                assert found[0] == found[1], (str(state), depth)
                checked += 1
    assert checked >= 36


def test_pext_key_is_the_loops_key() -> None:
    """The relative-rank key squeezed by BMI2 pext (technique "pext", used only where the
    processor has it fast) is the shift loop's key: with one thread the search visits exactly
    as many nodes and finds every root move's value alike with it on and off, on dealt 4- and
    6-card positions after a few random moves (most of them chain-free: the relative keys
    apply). On a processor without a fast pext both runs take the loop (it alone is tested)."""
    from shuangkou import _solve

    rng = random.Random("pext")
    without = [t for t in _solve.TECHNIQUES if t != "pext"]
    checked = 0
    for preset in PRESET_NAMES:
        for cards in ((4, 4, 4, 4), (6, 6, 6, 6)):
            for state in _played_positions(rng, Rules.preset(preset), cards):
                found = []
                for techniques in (None, without):
                    s = _solve.Searcher(state, "score", 18, "hand_count", techniques)
                    s.set_position(state)
                    _, values, _, nodes, stopped, _ = s.root_values(0, 0.0, _solve.EXACT_DEPTH,
                                                                    True)
                    assert not stopped
                    found.append((values, nodes))
                assert found[0] == found[1], str(state)
                checked += 1
    assert checked >= 24


def test_chainless_is_sound() -> None:
    """The relative-rank keys rest on ``_solve.chainless``: when it says no chain can be formed
    from a hand, the kernel lists no straight, chain of pairs or triples, or chain bomb for it
    (R2/R3, every preset); and it recognises most chain-free hands (else the keys lose)."""
    from shuangkou import _solve, legal_plays
    from shuangkou.plays import Kind

    chains = {Kind.STRAIGHT, Kind.PAIR_CHAIN, Kind.TRIPLE_CHAIN, Kind.CHAIN_BOMB}
    rng = random.Random("chainless")
    for preset in PRESET_NAMES:
        rules = Rules.preset(preset)
        free = recognised = 0
        for _ in range(400):
            deck = list(range(108))
            rng.shuffle(deck)
            hand = Hand.from_cards(deck[: rng.randint(5, 12)])
            has_chain = any(p.kind in chains for p in legal_plays(hand, rules))
            said = _solve.chainless(hand.packed, rules.flags)
            assert not (said and has_chain), (preset, str(hand))
            free += not has_chain
            recognised += said
        assert recognised >= 0.9 * free, (preset, recognised, free)


def played_positions(rng: random.Random, rules: Rules, count: int, most_moves: int
                     ) -> Iterator[tuple[State, RefState]]:
    """``count`` dealt positions of 2 or 3 cards a seat (the k-th: seat k % 4 to lead), each
    after 0..``most_moves`` random moves, as a ``State`` and a ``RefState`` moved alike; the
    deals those moves ended are left out."""
    for k in range(count):
        deck = list(range(108))
        rng.shuffle(deck)
        n = 2 + k % 2
        hands = [Hand.from_cards(deck[n * s : n * (s + 1)]) for s in range(4)]
        state = State.from_position(rules, hands, k % 4)
        ref = RefState.from_position(rules, hands, k % 4)
        for _ in range(rng.randint(0, most_moves)):
            m = rng.choice(moves(ref))
            state.play(m)
            ref.play(m)
            if ref.is_over:
                break
        if not ref.is_over:
            yield state, ref


def test_order_bounds_hold() -> None:
    """The R8 bound from the finishing orders still possible (``_solve.order_bounds``): given
    whenever no seat can play a bomb (the kernel lists none for any hand still in), and then
    the plain minimax value lies within it; on dealt positions of every preset, after a few
    random moves (mid-trick, after a seat went out). The bounds cut: some are one-sided."""
    from shuangkou import _solve, legal_plays

    rng = random.Random("order-bounds")
    checked = narrow = 0
    for preset in PRESET_NAMES:
        rules = Rules.preset(preset)
        for state, ref in played_positions(rng, rules, budget(ci=20, full=200), 6):
            searcher = _solve.Searcher(state, "score", 16, "hand_count", None)
            bounds = _solve.order_bounds(searcher, state)
            bombs = any(p.is_bomb for s in range(4) if len(ref.hand(s))
                        for p in legal_plays(ref.hand(s), rules))
            assert (bounds is None) == bombs, str(ref)
            values = oracle_values(ref, "score")
            if bounds is None or values is None:
                continue
            lo, hi = bounds
            assert lo <= max(values.values()) <= hi, (str(ref), bounds)
            checked += 1
            narrow += lo > -hi or ref.places != ()
    assert checked >= budget(ci=40, full=400) and narrow > 0, (checked, narrow)


def test_quick_bound_holds() -> None:
    """The quick tricks' lower bound (``_solve.quick_bound``: a line of plays neither opponent
    can beat that ends with the seat out, and then, R7 接风, with the partner out at once when
    its hand is one play) is at most the plain minimax value, on dealt positions of every
    preset after a few random moves; some positions get one."""
    from shuangkou import _solve

    rng = random.Random("quick-bound")
    checked = given = 0
    for preset in PRESET_NAMES:
        rules = Rules.preset(preset)
        for state, ref in played_positions(rng, rules, budget(ci=30, full=300), 4):
            values = oracle_values(ref, "score")
            if values is None:
                continue
            searcher = _solve.Searcher(state, "score", 16, "hand_count", None)
            lb = _solve.quick_bound(searcher, state)
            checked += 1
            if lb is not None:
                given += 1
                assert lb <= max(values.values()), (str(ref), lb)
    assert checked >= budget(ci=60, full=600) and given > 0, (checked, given)


def test_quick_bound_relays_to_the_partner() -> None:
    """Seat 0 leads the big joker and then 2 2, neither of which the opponents can beat; the
    trick ends with seat 0 out, the lead goes to its partner (R7 接风), whose straight is one
    play (or, with a 2 or a 4, one sure play and then one play): places 1 and 2, the most
    there is (R8 双扣). The finishing orders alone give no bound (seat 0 out first could
    still be followed by both opponents), nor does a partner holding two plays besides a
    sure one."""
    from shuangkou import State, _solve

    rules = Rules.preset("classic")
    for partner, relays in (("7 8 9 10 J", True), ("2 7 8 9 10 J", True),
                            ("4 7 8 9 10 J", True), ("7 8 9 10 K", False)):
        hands = [Hand.parse(h) for h in ("BJ 2 2", "3 4", partner, "5 6")]
        state = State.from_position(rules, hands, 0)
        searcher = _solve.Searcher(state, "score", 16, "hand_count", None)
        lo, hi = _solve.order_bounds(searcher, state) or (None, None)
        lb = _solve.quick_bound(searcher, state)
        value = solve(state).value
        assert lb is not None and lb <= value <= hi
        assert (lb == hi == value) == relays, (partner, lb, value)


def test_order_bounds_cache_across_positions() -> None:
    """One searcher's cached finishing-order bounds equal a fresh searcher's on every position
    of a random walk (seats of both teams to act, places set or not): the cache tells the
    teams and the places apart."""
    from shuangkou import State, _solve

    rng = random.Random("order-cache")
    for preset in PRESET_NAMES:
        rules = Rules.preset(preset)
        shared = None
        seen = 0
        for k in range(budget(ci=40, full=400)):
            deck = list(range(108))
            rng.shuffle(deck)
            hands = [Hand.from_cards(deck[3 * s : 3 * (s + 1)]) for s in range(4)]
            state = State.from_position(rules, hands, k % 4)
            shared = shared or _solve.Searcher(state, "score", 12, "hand_count", None)
            while not state.is_over:
                fresh = _solve.Searcher(state, "score", 12, "hand_count", None)
                got = _solve.order_bounds(shared, state)
                assert got == _solve.order_bounds(fresh, state), str(state)
                seen += got is not None and bool(state.places)
                ms = list(state.legal()) + ([PASS] if state.table is not None else [])
                state.play(rng.choice(ms))
        assert seen > 0, preset


def test_move_groups_change_no_value() -> None:
    """Move groups (technique "groups": at a chain-free node of an exact search, one play of
    each group whose ranks no other seat can tell apart) leave every root move's exact value
    and the optimal plays as they are, with all values asked for and without, on dealt 4-6
    card positions after a few random moves, every preset; and they do group somewhere (fewer
    nodes in all), so the positions exercise them."""
    from shuangkou import _solve

    rng = random.Random("groups")
    without = [t for t in _solve.TECHNIQUES if t != "groups"]
    checked = 0
    nodes = [0, 0]
    for preset in PRESET_NAMES:
        for cards in ((4, 4, 4, 4), (5, 5, 5, 5), (6, 6, 6, 6)):
            for state in _played_positions(rng, Rules.preset(preset), cards):
                found = []
                for k, techniques in enumerate((None, without)):
                    s = _solve.Searcher(state, "score", 18, "hand_count", techniques)
                    s.set_position(state)
                    _, values, optimal, n, stopped, _ = s.root_values(0, 0.0, _solve.EXACT_DEPTH,
                                                                      True)
                    _, _, best, _, stopped2, _ = s.root_values(0, 0.0, _solve.EXACT_DEPTH)
                    assert not stopped and not stopped2
                    nodes[k] += n
                    found.append((values, optimal, sorted(best)))
                assert found[0] == found[1], str(state)
                checked += 1
    assert checked >= 36
    assert nodes[0] < nodes[1]
