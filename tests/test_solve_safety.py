"""solve(), searcher() and pimc_policy() under careless or hostile input (issue #18): the
argument rule (int-like values normalised; bools, floats, out-of-range values and wrong types
refused with a ValueError naming the argument), limits that are honoured, Ctrl-C that stops a
search at once, and the anytime answer of a time-limited search."""

from __future__ import annotations

import importlib
import math
import random
import subprocess
import sys
import time

import numpy as np
import pytest

from shuangkou import (
    PASS,
    Game,
    Hand,
    Play,
    Rules,
    State,
    _solve,
    classify,
    pimc_policy,
    solve,
)
from shuangkou._reference_game import RefState
from shuangkou.errors import ArgumentError, NotationError
from shuangkou.position import parse_position
from shuangkou.solve import as_state, searcher
from tests.conftest import interrupted_after
from tests.test_solve import check, oracle_values

SMALL = "baibian 35/-/336/356 3 - 0 1 -/-/-/- -"


def deal(preset: str, cards: int, seed: int) -> State:
    deck = list(range(108))
    random.Random(seed).shuffle(deck)
    hands = [Hand.from_cards(deck[cards * s : cards * (s + 1)]) for s in range(4)]
    return State.from_position(Rules.preset(preset), hands, 0)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"max_nodes": 1.5}, "max_nodes"), ({"max_nodes": True}, "max_nodes"),
        ({"max_nodes": -5}, "max_nodes"), ({"max_nodes": 0}, "max_nodes"),
        ({"max_nodes": 2**70}, "max_nodes"), ({"max_nodes": "9"}, "max_nodes"),
        ({"tt_bits": 4.5}, "tt_bits"), ({"tt_bits": 99}, "tt_bits"),
        ({"tt_bits": False}, "tt_bits"),
        ({"all_values": "yes"}, "all_values"), ({"all_values": 1}, "all_values"),
        ({"all_values": None}, "all_values"),
        ({"time_limit": -1}, "time_limit"), ({"time_limit": math.nan}, "time_limit"),
        ({"time_limit": math.inf}, "time_limit"), ({"time_limit": 0}, "time_limit"),
        ({"time_limit": True}, "time_limit"), ({"time_limit": "1"}, "time_limit"),
        ({"objective": "points"}, "objective"), ({"objective": None}, "objective"),
    ],
)
def test_solve_refuses_bad_arguments(kwargs: dict[str, object], name: str) -> None:
    state = RefState.parse(SMALL)
    with pytest.raises(ArgumentError, match=name):
        solve(state, **kwargs)  # type: ignore[arg-type]


def test_solve_normalises_int_like_arguments() -> None:
    state = RefState.parse(SMALL)
    sol = solve(state, max_nodes=np.int64(10_000), tt_bits=np.int32(12), time_limit=30)
    assert sol.exact and sol.value == 8


@pytest.mark.parametrize("position", [None, 3, Hand.parse("3 4"), b"baibian"])
def test_solve_refuses_what_is_not_a_position(position: object) -> None:
    with pytest.raises(ArgumentError,
                       match="position must be a State, RefState, Game or a position text"):
        solve(position)  # type: ignore[arg-type]


def test_solve_takes_a_position_text() -> None:
    # issue #35: a position text where a position is expected, as hints takes one (was
    # "position must be a State, RefState or Game, not str")
    text = str(RefState.parse(SMALL))
    assert solve(text) == solve(RefState.parse(SMALL))


def test_solve_names_the_field_of_a_bad_position_text() -> None:
    with pytest.raises(NotationError, match="field"):
        solve("baibian 55D/-/77/3 0 99@9 2 1 -/666666/-/- -")


def test_solve_takes_numpy_bools() -> None:
    sol = solve(RefState.parse(SMALL), all_values=np.bool_(True))
    assert sol.exact and len(sol.values) == 3 and all(v is not None for _, v in sol.values)


def finished_state() -> State:
    state = parse_position(SMALL)
    for play in solve(state).pv:
        state.play(play)
    assert state.to_act is None
    return state


def test_solve_refuses_a_finished_position() -> None:
    """Issue #33: a finished deal (a State played out, its RefState, an abandoned Game) is an
    ArgumentError naming the position (it was an AssertionError); nothing is changed."""
    state = finished_state()
    before = str(state)
    game = Game.from_deal(Rules.preset("classic"), ["3s 4s", "5s", "6s", "7s"], leader=0)
    game.abandon(1)
    for position in (state, RefState.parse(before), game):
        with pytest.raises(ArgumentError, match="position: the deal is over"):
            solve(position)  # type: ignore[arg-type]
    assert str(state) == before


def test_cli_solve_refuses_a_finished_position(capsys: pytest.CaptureFixture[str]) -> None:
    from shuangkou.cli import main

    assert main(["solve", str(finished_state())]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err.count("\n") == 1
    assert out.err.startswith("shuangkou: error: position: the deal is over")


def test_a_table_too_big_names_its_size() -> None:
    """Issue #33: a table the memory cannot hold is a MemoryError naming tt_bits, its size and
    the way out (it had no message). The address space is capped in a child process so that
    the allocation fails on any machine, overcommit or not."""
    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_AS, (2**31, 2**31))\n"
        "from shuangkou.position import parse_position\n"
        "from shuangkou.solve import searcher\n"
        f"searcher(parse_position({SMALL!r}), tt_bits=28)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 1
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("MemoryError: tt_bits=28: the transposition table of 2**28 "
                           "entries of 16 bytes (4 GiB) could not be allocated"), last
    assert "smaller tt_bits" in last


def test_solve_refuses_a_seat_view_with_a_reason() -> None:
    game = Game.from_deal(Rules.preset("classic"), ["3s 4s", "5s", "6s", "7s"], leader=0)
    with pytest.raises(ArgumentError, match="view hides the other hands"):
        solve(game.view(0))  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match="view hides the other hands"):
        solve(State.from_position(Rules.preset("classic"), [Hand.parse("3")] * 4, 0).view(1))  # type: ignore[arg-type]


def test_searcher_and_pimc_check_their_arguments_at_construction() -> None:
    state = deal("baibian", 3, 1)
    for kwargs, name in [({"tt_bits": 4.5}, "tt_bits"), ({"tt_bits": True}, "tt_bits"),
                         ({"objective": "x"}, "objective"), ({"evaluation": 1}, "evaluation")]:
        with pytest.raises(ArgumentError, match=name):
            searcher(state, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match="state"):
        searcher("text")  # type: ignore[arg-type]
    for kwargs, name in [
        ({"worlds": 0}, "worlds"), ({"worlds": 1.5}, "worlds"), ({"max_nodes": True}, "max_nodes"),
        ({"max_nodes": -5}, "max_nodes"), ({"max_depth": 0}, "max_depth"),
        ({"max_depth": 10_000}, "max_depth"), ({"tt_bits": 4.5}, "tt_bits"),
        ({"objective": "x"}, "objective"), ({"evaluation": "minimax"}, "evaluation"),
    ]:
        with pytest.raises(ArgumentError, match=name):
            pimc_policy(**kwargs)  # type: ignore[arg-type]


def test_searcher_calls_name_an_argument_past_the_value_range() -> None:
    """A searcher's probe bound and principal-variation value beyond ±MAX_VALUE (the search's
    32-bit values) and a NaN time limit are refused by name, not converted (an OverflowError
    or a bound past the search's infinity, before)."""
    state = deal("baibian", 3, 1)
    s = searcher(state)
    s.set_position(state)
    for bound in (10**12, -(10**12), 2**31, _solve.MAX_VALUE + 1, -_solve.MAX_VALUE):
        with pytest.raises(ArgumentError, match="bound"):
            s.probe(bound, 1000)
    with pytest.raises(ArgumentError, match="bound"):
        s.probe(True, 1000)
    for value in (10**12, _solve.MAX_VALUE + 1, -_solve.MAX_VALUE - 1):
        with pytest.raises(ArgumentError, match="value"):
            s.principal_variation(0, value)
    with pytest.raises(ArgumentError, match="time_limit"):
        s.root_values(1000, math.nan)
    assert s.probe(_solve.MAX_VALUE, 1000)[0] is not None     # the edges are taken


def test_node_limit_returns_an_answer() -> None:
    # 9 cards a seat is far past 200,000 nodes: the call returns, not exact, with nodes
    # at the limit
    sol = solve(deal("baibian", 9, 3), max_nodes=200_000)
    assert not sol.exact and sol.value is None and sol.nodes <= 200_001


def test_time_limit_gives_an_anytime_answer() -> None:
    state = deal("baibian", 9, 3)
    t = time.monotonic()
    sol = solve(state, max_nodes=None, time_limit=0.5)
    assert time.monotonic() - t < 2.0
    assert not sol.exact and sol.guess is not None
    assert sol.guess in set(state.legal()) | {None}
    assert "best so far" in str(sol)
    tiny = solve(state, time_limit=1e-9)     # spent before the search starts: still a play
    assert not tiny.exact and tiny.guess in set(state.legal())
    small = solve(RefState.parse(SMALL), time_limit=10.0)
    assert small.exact and small.value == 8 and small.guess == small.best[0]


@pytest.mark.usefixtures("sigint_raises")  # even when the suite runs with SIGINT ignored
def test_ctrl_c_stops_a_search_within_a_second() -> None:
    state = deal("qianbian", 9, 5)    # solve.THREADS threads: two on two cores
    assert interrupted_after(lambda: solve(state, max_nodes=None)) < 1.3


def test_default_table_cap_grows_with_the_position(monkeypatch: pytest.MonkeyPatch) -> None:
    """solve's table grows up to 2^22 entries below BIG_TT_CARDS cards in hand, 2^25 from
    there on (an 8-card search fills 2^22 and loses its costly entries: docs/solver.md), never
    past 1/16 of the memory, nor past what the node limit can fill; it starts at
    START_TT_BITS."""
    # the module (the package's ``solve`` is the function)
    solve_mod = importlib.import_module("shuangkou.solve")
    assert solve_mod.default_tt_bits(4 * 7) == solve_mod.TT_BITS == 22
    assert solve_mod.default_tt_bits(solve_mod.BIG_TT_CARDS) == solve_mod.BIG_TT_BITS == 25
    pages = {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": 2**30 // 4096}     # a 1 GiB machine
    monkeypatch.setattr(solve_mod.os, "sysconf", lambda name: pages[name])
    assert solve_mod.default_tt_bits(32) == 22      # 2^22 x 16 bytes = 1/16 of 1 GiB
    monkeypatch.undo()
    made: list[_solve.Searcher] = []
    real = _solve.Searcher

    def spy(*args):  # type: ignore[no-untyped-def]
        made.append(real(*args))
        return made[-1]

    monkeypatch.setattr(solve_mod._solve, "Searcher", spy)
    for cards, limit in ((7, None), (8, None), (8, 1_000)):
        # each call a new searcher: one stopped early (a loaded machine) stays small enough
        # to be kept for the next call on this thread, which would make none
        solve_mod.release_searcher()
        solve(deal("baibian", cards, 2), max_nodes=limit, time_limit=0.05, threads=1)
    monkeypatch.undo()
    assert [s.max_table_bits for s in made] == [
        solve_mod.default_tt_bits(28), solve_mod.default_tt_bits(32), 11]  # 2 x 1,000 < 2^11
    assert all(solve_mod.START_TT_BITS <= s.table_bits <= s.max_table_bits for s in made[:2])


def jj_after_bombs(rng: random.Random, bombs: int, held: bool = False) -> RefState:
    """A JJ position after ``bombs`` 8-card bombs (8★, ×4 each: R8.3), dealt round the seats,
    with small hands of what is left (the four jokers and the other ranks): values up to
    24 × 4^bombs units. ``held``: the last of them is still in its seat's hand, that seat to
    act (playing it, every other seat passing, reaches the position ``bombs`` would give
    with that seat to act)."""
    rules = Rules.preset("jj")
    ranks = rng.sample(range(13), 13)
    played: list[list[Play]] = [[], [], [], []]
    for k, rank in enumerate(ranks[:bombs]):
        counts = [0] * 15
        counts[rank] = 8
        played[k % 4].append(classify(Hand.from_counts(counts), rules)[0])
    pool = [r for r in ranks[bombs:] for _ in range(8)] + [13, 13, 14, 14]
    rng.shuffle(pool)
    hands = []
    for seat in range(4):
        counts = [0] * 15
        for _ in range(rng.randint(1, min(27 - 8 * len(played[seat]), 4))):
            counts[pool.pop()] += 1
        hands.append(Hand.from_counts(counts))
    if not held:
        return RefState.from_position(rules, hands, rng.randrange(4), bombs=played)
    last = (bombs - 1) % 4
    counts = list(hands[last].counts)
    counts[ranks[bombs - 1]] += 8
    hands[last] = Hand.from_counts(counts)
    played[last].pop()
    return RefState.from_position(rules, hands, last, bombs=played)


def test_values_past_the_range_are_searched_in_steps_of_the_bombs_played() -> None:
    """Issue #33 (a hostile campaign's finding): the search holds 32-bit values within ±2^28,
    and a JJ position after a dozen 8★ bombs (×4 each) is worth up to 24 × 4^12 = 402,653,184
    units: solve gave wrong optimal plays there, or a RuntimeError from its principal
    variation; then it refused them. Every value of such a position's subtree is a multiple
    of the multiplier of the bombs played so far (R8.3), so the searcher holds its values
    divided by that unit: the value, every optimal play, the principal variation (replayed to
    that value), every play's value (``all_values``, and on two threads over one searcher
    kept across the positions), a limited call's bounds and a probe are the plain minimax's,
    in units. Positions after 11 bombs, within the range, keep the unit 1 (their search
    unchanged)."""
    rng = random.Random(33)
    past = within = 0
    kept = None
    while past < 6 or within < 3:
        bombs = rng.choice([11, 12, 12])
        state = jj_after_bombs(rng, bombs)
        values = oracle_values(state, "score")
        if values is None:
            continue
        engine = as_state(state)
        kept = kept or searcher(engine)
        kept.set_position(engine)
        assert kept.unit == (4**12 if bombs == 12 else 1)
        moves, found, _, _, stopped, _ = kept.root_values(all_values=True, threads=2)
        assert not stopped and dict(zip(moves, found)) == {
            (m.packed, m.tag) if m else (0, 0): v for m, v in values.items()}, str(state)
        if bombs == 11:
            within += 1
            continue
        past += 1
        best = max(values.values())
        assert abs(best) >= 2**26, best     # 4 × 4^12 units at least: past the range
        check(state, values, "score")       # value, every optimal play, the line replayed
        assert solve(state, best="one").value == best
        assert dict(solve(state, all_values=True).values) == values, str(state)
        limited = solve(state, max_nodes=1)
        assert limited.lower <= best <= limited.upper
        answer, bound, _, _ = kept.probe(best)
        assert answer is True and bound >= best
        answer, bound, _, _ = kept.probe(best + 1)  # the least multiple above: best + unit
        assert answer is False and bound <= best
        with pytest.raises(ArgumentError, match="multiple of 16,777,216"):
            kept.principal_variation(0, best + 1)


def test_a_searcher_kept_across_units_gives_each_position_its_values() -> None:
    """A searcher's table holds values in its root's unit: moving to a root of another unit
    empties it, so a kept searcher (as a bot's) gives each position the values of a fresh
    one: a position after eleven bombs, the twelfth in the hand of the seat to act (unit
    4^11), whose line "the bomb, every other seat passing" reaches a position after twelve
    (4^12) solved first on the same searcher; and one within the range (unit 1)."""
    rng = random.Random(5)
    held = jj_after_bombs(rng, 12, held=True)
    after = held.copy()     # the bomb, every other seat passing: the same seat to lead
    after.play(next(m for m in held.legal() if m.size == 8))
    for _ in range(3):
        after.play(PASS)
    assert after.to_act == held.to_act
    assert sum(len(after.bombs_played(t)) for t in range(4)) == 12
    cases = [as_state(p) for p in (after, held, jj_after_bombs(rng, 10))]
    fresh = [solve(c, searcher=searcher(c), all_values=True).values for c in cases]
    kept = searcher(cases[0])
    for k in [0, 1, 2, 1, 0, 2, 0]:
        assert kept.set_position(cases[k]) is None and kept.unit == [4**12, 4**11, 1][k]
        assert solve(cases[k], searcher=kept, all_values=True).values == fresh[k], k


def test_values_that_bombs_in_hand_could_multiply_past_the_range_are_refused() -> None:
    """A JJ position whose bombs still in hand could multiply its value past the range (here
    twelve 8-card bombs dealt, none played: 24 × 4^12 units, the unit 1) is refused, naming
    the range, as a position too big to solve exactly."""
    rules = Rules.preset("jj")
    hands = []
    for seat in range(4):
        counts = [0] * 15
        for rank in range(3 * seat, 3 * seat + 3):
            counts[rank] = 8
        hands.append(Hand.from_counts(counts))
    state = State.from_position(rules, hands, 0)
    with pytest.raises(ArgumentError, match="268,435,455 units"):
        solve(state, max_nodes=1000)


def test_a_searcher_shared_by_threads_gives_each_call_its_own_position() -> None:
    """A hostile check's finding: ``solve(searcher=shared)`` from two threads returned the
    other thread's value and optimal plays (22 of 80 calls), or a RuntimeError: each of its
    calls on the searcher took the lock, but another thread's ``set_position`` landed between
    them. ``solve`` now holds the searcher for the whole call (``with searcher:``)."""
    import threading

    a, b = deal("baibian", 5, 0), deal("baibian", 5, 1)
    expected = {id(p): solve(p, max_nodes=None, time_limit=None, threads=1) for p in (a, b)}
    assert expected[id(a)].value != expected[id(b)].value
    shared = searcher(a, "score", 16, max_tt_bits=20)
    bad: list[object] = []

    def work(position: State) -> None:
        want = expected[id(position)]
        for _ in range(30):
            try:
                got = solve(position, max_nodes=None, time_limit=None, threads=1,
                            searcher=shared)
            except Exception as e:  # noqa: BLE001 (a race's error is what this looks for)
                bad.append(e)
                continue
            if got.value != want.value or set(got.best) != set(want.best):
                bad.append((got.value, got.best))

    workers = [threading.Thread(target=work, args=(p,)) for p in (a, b)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not bad, bad[:3]


def test_holding_a_searcher_twice_on_one_thread_is_refused() -> None:
    """A hostile check's finding: a signal handler solving with the searcher its thread was
    searching with waited forever on the lock. A thread holding a searcher (``with``, as
    ``solve`` does) cannot hold it again: a clear RuntimeError, where it would change the
    position under the interrupted call; its own calls meanwhile run."""
    state = deal("baibian", 3, 1)
    s = searcher(state)
    with s:
        s.set_position(state)
        assert s.root_values()[2]
        with pytest.raises(RuntimeError, match="held by this thread already"):
            solve(state, searcher=s)
    assert solve(state, searcher=s).exact    # released: usable again


@pytest.mark.usefixtures("sigint_raises")  # even when the suite runs with SIGINT ignored
def test_ctrl_c_during_a_growth_is_a_keyboard_interrupt() -> None:
    """A hostile check's finding: Ctrl-C landing in ``Searcher.grow`` (as ``solve``'s rounds
    call it) became a SystemError ("__exit__ of _thread.lock returned a result with an
    exception set"): the interrupt was raised after the lock's release. Now it is a
    KeyboardInterrupt, the table as it was, the searcher usable."""
    state = deal("baibian", 9, 3)
    s = searcher(state, "score", 20, max_tt_bits=25)
    s.set_position(state)
    s.root_values(300_000)
    assert interrupted_after(lambda: s.grow(25), 0.01) < 1.3
    assert s.table_bits == 20
    with pytest.raises(ArgumentError, match="time_limit"):
        s.grow(25, math.nan)


def test_a_node_limit_on_many_threads_ends_in_a_few_rounds() -> None:
    """A hostile check's finding: ``solve(max_nodes=..., threads=4+)`` ran thousands of root
    searches of one node each once fewer nodes were left than a chunk a thread (SV_CHUNK): a
    helper thread with no chunk stopped the call. Now a search starts no more threads than
    chunks are left: the limit's last nodes go in a few rounds, all of them searched."""
    solve_mod = importlib.import_module("shuangkou.solve")
    state = deal("classic", 8, 9)
    real = solve_mod._Run.exact
    for threads in (4, 8):
        calls = 0

        def counted(run: object, cap: int | None, workers: int) -> int | None:
            nonlocal calls
            calls += 1
            return real(run, cap, workers)  # type: ignore[arg-type]

        solve_mod._Run.exact = counted
        try:
            sol = solve(state, max_nodes=100_500, time_limit=None, threads=threads)
        finally:
            solve_mod._Run.exact = real
        assert calls <= 2 + 100_500 // 1024 // 8, calls    # (2,124 and 15,913 before)
        assert 100_000 <= sol.nodes <= 100_501


def test_a_bots_search_past_the_range_ends_with_a_move() -> None:
    """A hostile check's finding: a depth-limited search of a JJ position after twelve 8★
    bombs (values past the range), as the bots run it, crashed the interpreter: no move's
    value equalled the best, and the first optimal move was read from an empty list
    unchecked (at depth 6 here). It now searches in steps of the bombs' multiplier
    (``unit``), and values that could still pass the range in steps are clipped to
    ±MAX_VALUE steps (no such position comes this close: ``solve`` refuses them): every
    depth values every move and ends with one."""
    state = State.parse(
        "jj 2DD/22X/222/22X 3 - 0 - 33333333,77777777,JJJJJJJJ/44444444,88888888,QQQQQQQQ/"
        "55555555,99999999,KKKKKKKK/66666666,TTTTTTTT,AAAAAAAA -", Rules.preset("jj"))
    for evaluation in ("hand_count", "rollout"):
        s = searcher(state, "score", 20, evaluation)
        s.set_position(state)
        assert s.unit == 4**12
        for depth in range(1, 9):
            _, values, optimal, _, stopped, _ = s.root_values(2_000, 0.0, depth, True)
            assert stopped or optimal, (evaluation, depth)
            assert all(abs(v) <= _solve.MAX_VALUE * s.unit for v in values if v is not None)
