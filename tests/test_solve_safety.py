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

from shuangkou import Game, Hand, Play, Rules, State, _solve, classify, pimc_policy, solve
from shuangkou._reference_game import RefState
from shuangkou.errors import ArgumentError, NotationError
from shuangkou.position import parse_position
from shuangkou.solve import as_state, searcher
from tests.conftest import interrupted_after
from tests.test_solve import oracle_values

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


def jj_after_bombs(rng: random.Random, bombs: int) -> RefState:
    """A JJ position after ``bombs`` 8-card bombs (8★, ×4 each: R8.3), dealt round the seats,
    with small hands of what is left (the four jokers and the other ranks): values up to
    24 × 4^bombs units."""
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
    return RefState.from_position(rules, hands, rng.randrange(4), bombs=played)


def test_values_past_the_range_are_refused_and_those_within_are_exact() -> None:
    """Issue #33 (a hostile campaign's finding): the search holds 32-bit values within ±2^28,
    and a JJ position after a dozen 8★ bombs (×4 each) is worth up to 24 × 4^12 = 402,653,184
    units: solve gave wrong optimal plays there, or a RuntimeError from its principal
    variation. Now a position whose static R8 bounds pass MAX_VALUE is refused, naming the
    range; after 11 such bombs (up to 100,663,296 units) the value and the optimal plays are
    the plain minimax's."""
    rng = random.Random(33)
    within = refused = 0
    while within < 6 or refused < 3:
        bombs = rng.choice([11, 12])
        state = jj_after_bombs(rng, bombs)
        engine = as_state(state)
        static = _solve.score_bounds(searcher(engine), engine)
        if bombs == 12 or max(abs(static[0]), abs(static[1])) >= _solve.MAX_VALUE:
            with pytest.raises(ArgumentError, match="268,435,455"):
                solve(state, max_nodes=None, time_limit=None)
            refused += bombs == 12
            continue
        values = oracle_values(state, "score")
        if values is None:
            continue
        best = max(values.values())
        assert abs(best) >= 2**24, best     # 4 × 4^11 units at least
        for mode in ("all", "one"):
            sol = solve(state, max_nodes=None, time_limit=None, best=mode)
            assert sol.exact and sol.value == best, (str(state), mode)
        assert set(sol.best) <= {m for m, v in values.items() if v == best}
        assert set(solve(state, max_nodes=None, time_limit=None).best) == {
            m for m, v in values.items() if v == best}, str(state)
        within += 1
