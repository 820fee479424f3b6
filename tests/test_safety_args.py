"""The argument rule (``_check``) at the entry points issue #18 found coercing or crashing:
int-likes (numpy ints) normalised; bools, floats, text, out-of-range values refused with a
``ValueError``/``TypeError`` subclass naming the argument, never wrapped, truncated or read as
something else; the object unchanged."""

from __future__ import annotations

import numpy as np
import pytest

import shuangkou as sk
from shuangkou import Game, State
from shuangkou.errors import ArgumentError, IllegalPlayError, LimitError
from shuangkou.rl import VecEnv
from shuangkou.rl.aec import env as aec_env
from shuangkou.solve import MAX_SAMPLES, sample_deals, sample_worlds

BAIBIAN = sk.Rules.preset("baibian")


# -- State --------------------------------------------------------------------------------------
def test_state_play_refuses_a_bool() -> None:
    # play(True) played legal()[1]: a bool is no index
    st = State.deal(BAIBIAN, 3)
    before = str(st)
    for flag in (True, False):
        with pytest.raises(ArgumentError, match="bool"):
            st.play(flag)
    assert str(st) == before


def test_state_seat_arguments_take_numpy_ints() -> None:
    # hand(np.int64(0)) said "seat must be 0..3, got 0"
    st = State.deal(BAIBIAN, 3)
    for seat in range(4):
        for like in (np.int64(seat), np.int8(seat), np.uint16(seat)):
            assert st.hand(like) == st.hand(seat)
            assert st.cards_left(like) == 27
            assert st.bombs_played(like) == ()
    for bad in (4, -1, True, 0.0, "0", None):
        with pytest.raises(ValueError, match="seat"):
            st.hand(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [-1, -(2**63), 2**64, 2**70])
def test_negative_or_too_big_seeds_are_refused_not_wrapped(seed: int) -> None:
    # State.deal / Game wrapped seeds mod 2**64 (-1 dealt 2**64-1's cards); VecEnv.reset refused
    for make in (lambda: State.deal(BAIBIAN, seed), lambda: Game(BAIBIAN, seed),
                 lambda: sk.Match(BAIBIAN, seed), lambda: sk.rng.deal_seed(seed, 0),
                 lambda: sk.rng.SplitMix64(seed), lambda: sk.simulate(1, BAIBIAN, seed=seed)):
        with pytest.raises(ArgumentError, match="seed|state"):
            make()
    env = VecEnv(BAIBIAN, 1)
    with pytest.raises(ArgumentError, match="seed"):
        env.reset(seed)


def test_the_largest_seed_is_one_deal_everywhere() -> None:
    top = 2**64 - 1
    assert State.deal(BAIBIAN, np.uint64(top)) == State.deal(BAIBIAN, top)
    g = Game(BAIBIAN, top)
    assert g.seed == top
    assert State.deal(BAIBIAN, top).hand(0) == g.hand_ranks(0)


@pytest.mark.parametrize("depth", [1.5, True, "2", None])
def test_perft_depth_is_an_int(depth: object) -> None:
    # perft(1.5) truncated to perft(1)
    with pytest.raises(ArgumentError, match="depth"):
        State.deal(BAIBIAN, 1).perft(depth)


def test_perft_out_of_range_depth_is_a_value_error_not_overflow() -> None:
    st = State.deal(BAIBIAN, 1)
    for depth in (2**40, 2**31, -1):
        with pytest.raises(ArgumentError, match="depth"):
            st.perft(depth)
    assert st.perft(np.int64(1)) == st.perft(1) == len(st.legal())


def test_perft_limits_are_checked_and_honoured() -> None:
    st = State.deal(BAIBIAN, 1)
    for bad in (0, -5, 1.5, True, 2**70):
        with pytest.raises(ArgumentError, match="max_nodes"):
            st.perft(2, max_nodes=bad)
    for bad in (0, -1, float("nan"), float("inf"), True, "1"):
        with pytest.raises(ArgumentError, match="time_limit"):
            st.perft(2, time_limit=bad)
    # depth 2 expands the root and its len(legal) children (a fresh deal: none is over):
    # enough with that many, too few with one less
    n1 = st.perft(1)
    n2 = st.perft(2)
    assert n1 == len(st.legal())
    assert st.perft(2, max_nodes=1 + n1) == n2
    with pytest.raises(LimitError, match="max_nodes"):
        st.perft(2, max_nodes=n1)
    with pytest.raises(LimitError, match="time_limit"):
        st.perft(30, time_limit=0.05)


# -- Game ---------------------------------------------------------------------------------------
def test_game_play_refuses_bytes() -> None:
    # Game.play(b"3") played card id 51 (bytes iterate as ints)
    g = Game(BAIBIAN, 1)
    before = g.to_json()
    for cards in (b"3", bytearray(b"3"), memoryview(b"3")):
        with pytest.raises(IllegalPlayError, match="bytes|bytearray|memoryview"):
            g.play(cards)  # type: ignore[arg-type]
    assert g.to_json() == before


# -- sampling -----------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [None, "abc", 1.5, True, -1])
def test_sample_seed_is_checked(seed: object) -> None:
    g = Game(BAIBIAN, 1)
    for fn in (sample_worlds, sample_deals):
        with pytest.raises(ArgumentError, match="seed"):
            fn(g, 0, 2, seed)  # type: ignore[arg-type]


@pytest.mark.parametrize("n", [True, 1.5, -1, MAX_SAMPLES + 1, 10**9])
def test_sample_count_is_checked_and_capped(n: object) -> None:
    # sample_worlds(game, seat, 10**9, seed) built worlds until memory ran out
    g = Game(BAIBIAN, 1)
    for fn in (sample_worlds, sample_deals):
        with pytest.raises(ArgumentError, match="n must"):
            fn(g, 0, n, 0)  # type: ignore[arg-type]


def test_sample_needs_a_game_or_a_view() -> None:
    # sample_worlds(State) raised AttributeError
    st = State.deal(BAIBIAN, 1)
    for what in (State, st, "text", None, Game):
        with pytest.raises(ArgumentError, match="a Game or a seat's view"):
            sample_worlds(what, 0, 1, 0)  # type: ignore[arg-type]
    assert len(sample_worlds(st.view(np.int64(0)), np.int64(0), np.int64(3), np.uint64(5))) == 3


# -- RL -----------------------------------------------------------------------------------------
def test_vecenv_refuses_uint64_actions_that_wrap() -> None:
    # np.uint64(2**64-1) became -1 in int64: a pass
    env = VecEnv(BAIBIAN, 2)
    out = env.reset(1)
    hands = env.hands(0), env.hands(1)
    for big in (2**64 - 1, 2**63):
        a = np.array([0, big], np.uint64)
        with pytest.raises(IllegalPlayError, match=f"deal 1: action {big}"):
            env.step(a)
        with pytest.raises(IllegalPlayError):
            env.step(a, table_ids=True)
    assert (env.hands(0), env.hands(1)) == hands
    env.step(np.zeros(2, np.uint64))  # small unsigned actions still work
    assert out is env.last


def test_aec_step_refuses_wrapping_actions() -> None:
    # AEC step(np.uint64(2**64-1)) raised OverflowError
    e = aec_env("baibian")
    e.reset(seed=3)
    for bad in (np.uint64(2**64 - 1), 2**64 - 1, -1, 10**6, True, 1.5):
        with pytest.raises(ValueError, match="action"):
            e.step(bad)  # type: ignore[arg-type]


def test_vecenv_opponents_must_be_a_mapping() -> None:
    # VecEnv(opponents=[1, 3]) raised AttributeError
    for bad in ([1, 3], (1,), "greedy", 1):
        with pytest.raises(ArgumentError, match="opponents"):
            VecEnv(BAIBIAN, 1, opponents=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="opponent policy"):
        VecEnv(BAIBIAN, 1, opponents={1: ["greedy"]})  # type: ignore[dict-item]
