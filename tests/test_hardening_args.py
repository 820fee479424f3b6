"""Issue #11 regressions, second pass: every int read from a play/observation dict, a
``VecEnv`` argument and a rules argument goes through one validation point (``_check`` for
ints, ``rules.as_rules`` for rules), so a float is refused rather than truncated, a bool is not
an int, and a preset name is accepted wherever a :class:`Rules` is."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import shuangkou as sk
from shuangkou import batch
from shuangkou.errors import ArgumentError, DocumentError
from shuangkou.game import Game, Observation, play_from_dict, play_to_dict, replay

BAIBIAN = sk.Rules.preset("baibian")


# -- item 1: play and observation dicts (the server client reads them from the wire) ----------
def _bomb_dict() -> dict[str, object]:
    return play_to_dict(sk.Play.parse("7 7 7 7", BAIBIAN))


@pytest.mark.parametrize("field", ["top", "width", "length", "stars", "wilds"])
@pytest.mark.parametrize("bad", [0.7, True, "4", None, b"4"])
def test_play_dict_fields_are_ints_never_truncated_or_bools(field, bad):
    d = _bomb_dict()
    d[field] = d[field] + bad if isinstance(bad, float) else bad  # 4.7: was read as 4
    before = copy.deepcopy(d)
    with pytest.raises(DocumentError, match=field):
        play_from_dict(d)
    assert d == before


def test_play_dict_int_like_fields_are_normalised():
    d = _bomb_dict()
    d["top"] = np.int64(d["top"])
    assert play_from_dict(d) == sk.Play.parse("7 7 7 7", BAIBIAN)


def test_observation_card_ids_are_never_truncated():
    g = Game(BAIBIAN, seed=1)
    seat = g.to_act
    good = g.observation(seat).to_dict()
    assert Observation.from_dict(copy.deepcopy(good)) == g.observation(seat)
    for key, bad in [("hand", 0.7), ("hand", True), ("seat", 0.0), ("trick", 0.5),
                     ("card_counts", 0.5)]:
        d = copy.deepcopy(good)
        if isinstance(d[key], list):
            d[key][0] = d[key][0] + bad if isinstance(bad, float) else bad
        else:
            d[key] = d[key] + bad if isinstance(bad, float) else bad
        with pytest.raises(DocumentError, match=key):
            Observation.from_dict(d)


# -- item 2: VecEnv and the envs over it ----------------------------------------------------------
@pytest.mark.parametrize("kw", [
    {"n": True}, {"n": 2.0}, {"n": 0}, {"n": 2, "threads": True}, {"n": 2, "threads": 1.0},
    {"n": 2, "threads": 3}, {"n": 2, "opponents": {1.0: "random"}},
    {"n": 2, "opponents": {True: "random"}}, {"n": 2, "opponents": {-1: "random"}},
])
def test_vecenv_sizes_and_seats_are_ints(kw):
    from shuangkou.rl.vecenv import VecEnv
    with pytest.raises(ArgumentError):
        VecEnv("baibian", **kw)


def test_vecenv_int_like_arguments_are_normalised():
    from shuangkou.rl.vecenv import VecEnv
    v = VecEnv("baibian", np.int64(2), threads=np.int32(2), opponents={np.int8(1): "random"})
    assert (v.n, v.threads, v.agent_seats) == (2, 2, (0, 2, 3))
    assert type(v.n) is int and type(v.threads) is int
    v.close()


@pytest.mark.parametrize("call", [
    lambda v: v.reset(True), lambda v: v.reset(1.5), lambda v: v.reset(-1),
    lambda v: v.hands(5_000_000), lambda v: v.hands(-1), lambda v: v.position(2),
    lambda v: v.position(1.0), lambda v: v.legal_plays(-1), lambda v: v.observe(0, 7),
    lambda v: v.observe(0, True), lambda v: v.observe(2, 0), lambda v: v.deal_log(-1),
    lambda v: v.set_position(True, sk.State.deal("baibian", 3)),
])
def test_vecenv_rows_seats_and_seeds_are_checked(call):
    # hands(5_000_000) read past the deal slots (a segfault); position(-3) read garbage.
    from shuangkou.rl.vecenv import VecEnv
    v = VecEnv("baibian", 2)
    first = v.reset(0)
    before = (first.obs.copy(), [v.position(i) for i in range(2)])
    with pytest.raises(ArgumentError):
        call(v)
    assert np.array_equal(v.last.obs, before[0]) and [v.position(i) for i in range(2)] == before[1]


def test_single_agent_env_seat_and_action_are_ints():
    from shuangkou.rl import SingleAgentEnv
    with pytest.raises(ArgumentError):
        SingleAgentEnv("baibian", seat=1.0)  # was accepted, then failed in step's reward
    with pytest.raises(ArgumentError):
        SingleAgentEnv("baibian", seat=True)
    e = SingleAgentEnv("baibian", seat=0)
    obs, _ = e.reset(seed=0)
    legal = np.flatnonzero(obs["action_mask"])
    with pytest.raises(ArgumentError):
        e.step(float(legal[0]) + 0.5)  # was truncated to a legal action and played
    assert np.array_equal(e._vec.last.mask[0], obs["action_mask"].astype(bool))


def test_aec_env_action_is_an_int():
    from shuangkou.rl import env
    e = env("baibian")
    e.reset(seed=0)
    agent = e.agent_selection
    mask = e.observe(agent)["action_mask"]
    with pytest.raises(ArgumentError):
        e.step(float(np.flatnonzero(mask)[0]) + 0.5)  # np.array([a], int64) truncated it
    assert e.agent_selection == agent and np.array_equal(e.observe(agent)["action_mask"], mask)


# -- item 3: a preset name wherever a Rules is taken (State.deal, simulate, action_table did) ----
HAND = "3 3 4 4 5 5 7 7 7 7 BJ"

RULES_ENTRY_POINTS = {
    "plays.legal_plays": lambda r: [str(p) for p in sk.legal_plays(HAND, r, table="4 4")],
    "plays.count_plays": lambda r: sk.count_plays(HAND, r),
    "plays.classify": lambda r: sk.classify("7 7 7 BJ", r),
    "Play.parse": lambda r: sk.Play.parse("7 7 7 BJ", r),
    "batch.count_plays": lambda r: batch.count_plays([sk.Hand.parse(HAND).counts], r).tolist(),
    "batch.legal_plays": lambda r: batch.legal_plays([sk.Hand.parse(HAND).counts], r).plays(0),
    "batch.legal_action_mask": lambda r: batch.legal_action_mask(
        [sk.Hand.parse(HAND).counts], r).tolist(),
    "ActionTable": lambda r: len(batch.ActionTable(r)),
    "Game": lambda r: Game(r, seed=5).to_json(),
    "Game.from_deal": lambda r: Game.from_deal(r, ["3s 4s", "5s 6s", "7s 8s", "9s 10s"]).to_json(),
    "Game.from_json": lambda r: Game.from_json(Game(BAIBIAN, 5).to_json(), rules=r).to_json(),
    "replay": lambda r: replay(Game(BAIBIAN, 5).log(), rules=r).to_json(),
    "Match": lambda r: sk.Match(r, seed=3).rules,
    "State.deal": lambda r: [sk.State.deal(r, 5).hand(s) for s in range(4)],
    "Play.beats": lambda r: sk.Play.parse("8 8", BAIBIAN).beats(sk.Play.parse("5 5", BAIBIAN), r),
}


@pytest.mark.parametrize("name", sorted(RULES_ENTRY_POINTS))
def test_every_rules_argument_takes_a_preset_name(name):
    call = RULES_ENTRY_POINTS[name]
    assert call("baibian") == call(BAIBIAN)  # was an AttributeError ('str' has no .flags)
    assert call(" BaiBian ") == call(BAIBIAN)  # Rules.preset's spelling


@pytest.mark.parametrize("name", sorted(RULES_ENTRY_POINTS))
def test_every_rules_argument_refuses_anything_else_by_name(name):
    with pytest.raises(ArgumentError, match="unknown preset"):
        RULES_ENTRY_POINTS[name]("no-such-rules")
    with pytest.raises(TypeError, match="rules must be a Rules or a preset name, not int"):
        RULES_ENTRY_POINTS[name](7)


# -- seeds: the deal's one check (rng.deal / rng.deal_seed) -------------------------------------
@pytest.mark.parametrize("seed", [1.5, True, "1", None])
def test_seeds_are_ints_never_truncated(seed):
    # Game(rules, 1.5) dealt seed 1's cards and said seed 1; Match(rules, 1.5) likewise.
    with pytest.raises(ArgumentError, match="seed"):
        Game(BAIBIAN, seed)
    with pytest.raises(ArgumentError, match="seed"):
        sk.Match(BAIBIAN, seed)
    with pytest.raises(ArgumentError, match="seed"):
        sk.rng.deal_seed(seed, 0)
    with pytest.raises(ArgumentError, match="deal index"):
        sk.rng.deal_seed(1, seed if seed is not True else 0.5)


def test_int_like_seeds_are_normalised():
    assert Game(BAIBIAN, np.uint64(2**64 - 1)).to_json() == Game(BAIBIAN, 2**64 - 1).to_json()
    assert sk.rng.deal_seed(np.int64(5), np.int8(2)) == sk.rng.deal_seed(5, 2)
    with pytest.raises(ArgumentError, match="deal index"):
        sk.rng.deal_seed(5, -1)


@pytest.mark.parametrize("seed", [1.5, True])
def test_single_deal_entry_points_check_their_seed(seed):
    # kernel_log int()-truncated 1.5 to seed 1; play_deal raised a TypeError from ``&``.
    from shuangkou.sim import kernel_log, play_deal
    with pytest.raises(ArgumentError, match="seed"):
        kernel_log(BAIBIAN, seed)
    with pytest.raises(ArgumentError, match="seed"):
        play_deal(BAIBIAN, seed)
    with pytest.raises(ArgumentError, match="deal index"):
        kernel_log(BAIBIAN, 1, index=0.5)
