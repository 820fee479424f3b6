"""VecEnv (docs/rl.md) against the Python engine, in lockstep: every row's deal is replayed
through ``Game``; observations equal the reference encoder's bytes, legal plays equal
``legal_plays``, masks equal ``ActionTable.mask``, rewards equal ``Game``'s R8 scores.
Determinism across threads and N; table-id actions follow the documented card rule; an
illegal action changes nothing."""

from __future__ import annotations

import numpy as np
import pytest

from shuangkou import Hand, Rules, State, legal_plays
from shuangkou import batch as B
from shuangkou.errors import IllegalPlayError
from shuangkou.game import Game
from shuangkou.plays import Play
from shuangkou.rl import Step, VecEnv
from shuangkou.rng import deal_seed
from tests.budget import budget

PRESETS = ("classic", "baibian", "jj", "qianbian")
SEED = 2024


def random_actions(out: Step, rng: np.random.Generator) -> np.ndarray:
    """Uniform over each row's legal plays, plus pass when answering (-1)."""
    n = np.diff(out.offsets)
    a = (rng.random(n.shape[0]) * (n + out.can_pass)).astype(np.int64)
    a[a == n] = -1
    return a


class Mirror:
    """One Python ``Game`` per row, fed the row's action log."""

    def __init__(self, env: VecEnv, seed: int) -> None:
        self.env, self.seed = env, seed
        self.games: list[Game] = []
        self.index: list[int] = []
        self.applied: list[int] = []
        self.finished = 0

    def _new(self, index: int) -> Game:
        return Game(self.env.rules, seed=deal_seed(self.seed, index))

    @staticmethod
    def _feed(game: Game, log: list, start: int) -> None:
        for seat, play in log[start:]:
            assert game.to_act == seat
            if play is None:
                game.pass_()
            else:
                game.play(play)

    def sync(self, out: Step) -> None:
        env = self.env
        if not self.games:
            self.index = [int(k) for k in out.deal_index]
            self.games = [self._new(k) for k in self.index]
            self.applied = [0] * env.n
        for i in range(env.n):
            if out.done[i]:
                index, log = env.deal_log(i, last=True)
                game = self.games[i]
                assert index == self.index[i]
                self._feed(game, log, self.applied[i])
                assert game.is_over
                assert tuple(out.rewards[i]) == game.result.scores
                r = game.result.scores
                assert tuple(out.team_rewards[i]) == (r[0] + r[2], r[1] + r[3])
                assert tuple(out.places[i]) == game.result.places
                self.finished += 1
                # row i's next deal: index + N (docs/rl.md)
                assert out.deal_index[i] == index + env.n
                self.index[i] = int(out.deal_index[i])
                self.games[i] = self._new(self.index[i])
                self.applied[i] = 0
            else:
                assert not out.rewards[i].any() and out.outcome[i] == -1
            index, log = env.deal_log(i)
            assert index == int(out.deal_index[i])
            self._feed(self.games[i], log, self.applied[i])
            self.applied[i] = len(log)

    def check(self, out: Step) -> None:
        env, at = self.env, self.env.table
        for i, game in enumerate(self.games):
            seat = game.to_act
            assert seat == out.to_act[i] and seat in env.agent_seats
            assert out.obs[i].tobytes() == B.observation(game, seat).tobytes()
            for other in range(4):  # what PettingZoo's observe(agent) returns
                assert env.observe(i, other).tobytes() == B.observation(game, other).tobytes()
            plays = env.legal_plays(i)
            assert plays == game.legal_plays()
            lo, hi = out.offsets[i], out.offsets[i + 1]
            assert (out.cards[lo:hi] == B.play_vectors(out.words[lo:hi])).all()
            pb = B.PlayBatch(np.array([0, hi - lo]), out.words[lo:hi], out.tags[lo:hi])
            assert (out.features[lo:hi] == pb.fields).all()
            assert (out.action_ids[lo:hi] == at.encode_tags(out.tags[lo:hi])).all()
            hand = game.hand_ranks(seat)
            assert (out.mask[i] == at.mask([hand], game.table)[0]).all()
            assert out.can_pass[i] == game.can_pass()


def lockstep(env: VecEnv, seed: int, deals: int) -> None:
    """Random actions until ``deals`` deals finished, every step mirrored and checked."""
    mirror = Mirror(env, seed)
    rng = np.random.default_rng(seed)
    out = env.reset(seed)
    assert list(out.deal_index) == list(range(env.n))
    mirror.sync(out)
    mirror.check(out)
    while mirror.finished < deals:
        out = env.step(random_actions(out, rng))
        mirror.sync(out)
        mirror.check(out)


@pytest.mark.parametrize("preset", PRESETS)
def test_lockstep_with_game(preset: str) -> None:
    lockstep(VecEnv(preset, 5, log=True), SEED, 8)


@pytest.mark.parametrize("preset", ["baibian", "qianbian"])
@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_in_kernel_opponents(preset: str, policy: str) -> None:
    env = VecEnv(preset, 4, log=True, opponents={1: policy, 3: policy})
    assert env.agent_seats == (0, 2)
    lockstep(env, 5, 6)


def _record(env: VecEnv, steps: int, seed: int) -> list[bytes]:
    rng = np.random.default_rng(1)
    out = env.reset(seed)
    rec = []
    for _ in range(steps):
        out = env.step(random_actions(out, rng))
        rec.append(b"".join(np.ascontiguousarray(getattr(out, f)).tobytes()
                            for f in Step.FIELDS))
    return rec


def test_threads_do_not_change_anything() -> None:
    a = _record(VecEnv("baibian", 12, opponents={3: "greedy"}), 150, 9)
    env = VecEnv("baibian", 12, threads=2, opponents={3: "greedy"})
    b = _record(env, 150, 9)
    env.close()
    assert a == b


def test_three_threads_and_after_close_the_same_steps() -> None:
    """Uneven blocks (7 rows on 3 threads: each region's plays moved down in the CSR), and the
    env stepping on in the caller's thread alone after close(), give the one-thread bytes."""
    a = _record(VecEnv("qianbian", 7, opponents={1: "random"}), 120, 4)
    env = VecEnv("qianbian", 7, threads=3, opponents={1: "random"})
    rng = np.random.default_rng(1)  # as _record's
    out = env.reset(4)
    b = []
    for k in range(120):
        if k == 60:
            env.close()
        out = env.step(random_actions(out, rng))
        b.append(b"".join(np.ascontiguousarray(getattr(out, f)).tobytes()
                          for f in Step.FIELDS))
    assert a == b


def _per_deal(n: int, threads: int) -> dict[int, tuple[float, ...]]:
    """Rewards of each finished deal index, with actions that depend only on the deal's own
    history (deal index and how many decisions it has had)."""
    env = VecEnv("jj", n, threads=threads, opponents={1: "random"})
    out = env.reset(77)
    count = np.zeros(n, np.int64)
    res: dict[int, tuple[float, ...]] = {}
    while len(res) < 12:
        k = np.diff(out.offsets) + out.can_pass
        h = (out.deal_index * 1_000_003 + count * 7919) % 1_000_033
        a = (h % k).astype(np.int64)
        a[a == np.diff(out.offsets)] = -1
        index = out.deal_index.copy()
        out = env.step(a)
        count += 1
        for i in np.flatnonzero(out.done):
            res[int(index[i])] = tuple(out.rewards[i])
            count[i] = 0
    env.close()
    return res


def test_deal_i_is_the_same_whatever_n_and_threads() -> None:
    a, b, c = _per_deal(3, 1), _per_deal(5, 2), _per_deal(8, 2)
    common = set(a) & set(b) & set(c)
    assert len(common) >= 3
    assert all(a[k] == b[k] == c[k] for k in common)


@pytest.mark.parametrize("preset", ["baibian", "qianbian"])
def test_table_id_actions_follow_the_rule(preset: str) -> None:
    env = VecEnv(preset, 4, log=True)
    at = env.table
    rng = np.random.default_rng(2)
    out = env.reset(3)
    for _ in range(120):
        ids = np.array([rng.choice(np.flatnonzero(out.mask[i])) for i in range(env.n)])
        before = [(env.hands(i), env.position(i), len(env.deal_log(i)[1])) for i in range(env.n)]
        out = env.step(ids, table_ids=True)
        for i in range(env.n):
            hands, (seat, word, tag, _, _, _), n_before = before[i]
            _, log = env.deal_log(i, last=bool(out.done[i]))
            s, play = log[n_before]
            table = None if tag == 0 else Play._from_codes(word, tag)
            expected = at.play_for(Hand.from_packed(hands[seat]), int(ids[i]), table)
            assert s == seat and (play or Play.PASS) == expected


def test_illegal_actions_change_nothing() -> None:
    env = VecEnv("baibian", 3)
    out = env.reset(1)
    snap = [f.copy() for f in (out.obs, out.mask, out.offsets, out.words)]
    leading = int(np.flatnonzero(~out.can_pass)[0])
    bad = np.zeros(3, np.int64)
    bad[leading] = -1
    with pytest.raises(IllegalPlayError, match=f"deal {leading}: action -1: pass"):
        env.step(bad)
    n = np.diff(out.offsets)
    with pytest.raises(IllegalPlayError, match="out of the legal list"):
        env.step(n)
    with pytest.raises(IllegalPlayError, match="table action not legal"):
        env.step(np.full(3, len(env.table) - 1), table_ids=True)
    with pytest.raises(ValueError):
        env.step(np.zeros(2, np.int64))
    after = env.last
    for a, b in zip(snap, (after.obs, after.mask, after.offsets, after.words)):
        assert (a == b).all()
    out = env.step(np.zeros(3, np.int64))  # still playable


def test_arguments() -> None:
    with pytest.raises(ValueError):
        VecEnv("baibian", 0)
    with pytest.raises(ValueError):
        VecEnv("baibian", 2, threads=3)
    with pytest.raises(ValueError):
        VecEnv("baibian", 2, opponents={0: "random", 1: "random", 2: "random", 3: "random"})
    with pytest.raises(ValueError):
        VecEnv("baibian", 2, opponents={4: "random"})
    with pytest.raises(ValueError):
        VecEnv("baibian", 2, opponents={1: "smart"})
    with pytest.raises(RuntimeError):
        VecEnv("baibian", 2).step([0, 0])
    with pytest.raises(ValueError, match="log=False"):
        env = VecEnv("baibian", 2)
        env.reset(0)
        env.deal_log(0)
    assert VecEnv("jj", 4).memory_bytes > 0
    assert Rules.preset("jj").partner_visible
    assert legal_plays("3", Rules.preset("jj"))


def test_without_autoreset_a_finished_deal_stays_over() -> None:
    env = VecEnv("classic", 2, autoreset=False, opponents={1: "greedy", 2: "greedy",
                                                           3: "greedy"})
    rng = np.random.default_rng(4)
    out = env.reset(8)
    ended: dict[int, tuple[float, ...]] = {}
    while len(ended) < 2:
        out = env.step(random_actions(out, rng))  # a finished row's action is ignored
        for i in np.flatnonzero(out.done):
            assert i not in ended
            ended[int(i)] = tuple(out.rewards[i])
        for i in ended:
            assert out.to_act[i] == -1 and not out.can_pass[i] and not out.mask[i].any()
            assert out.offsets[i + 1] == out.offsets[i] and not out.obs[i].any()
    assert all(sum(r) == 0 for r in ended.values())  # classic is zero-sum (R8)
    out = env.reset(8)
    assert (out.to_act >= 0).all()


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_lockstep_campaign(preset: str) -> None:
    """Many deals in lockstep with Game (SK_BUDGET=full: 300 deals per preset), one seat an
    in-kernel greedy opponent."""
    env = VecEnv(preset, 6, log=True, opponents={3: "greedy"})
    lockstep(env, 99, budget(ci=6, full=300))


@pytest.mark.parametrize("threads", [1, 2])
def test_buffers_grow_when_a_lead_has_many_plays(threads: int) -> None:
    """qianbian leads from 27 cards have far more plays than the initial 256 per row."""
    env = VecEnv("qianbian", 2, threads=threads)
    start = env._capacity
    out = env.reset(3)
    assert env._capacity > start and out.offsets[-1] > start
    for i in range(2):
        game = Game(env.rules, seed=deal_seed(3, i))
        assert env.legal_plays(i) == game.legal_plays()
        assert out.obs[i].tobytes() == B.observation(game, game.to_act).tobytes()
    env.close()


def test_set_position_plays_on_like_state() -> None:
    """A row loaded from a State (an endgame) plays to the end; replaying its log on the State
    gives the same R8 scores."""
    rules = Rules.preset("baibian")
    env = VecEnv(rules, 2, log=True, opponents={1: "greedy"})
    out = env.reset(6)
    state = State.from_position(rules, ["3 3 4 5 6 7 8 BJ", "9 9 10", "K K K K", "A 2"], 2,
                                bombs=((), (), (), ()))
    out = env.set_position(1, state)
    assert out.to_act[1] == 2 and env.legal_plays(1) == list(state.legal())
    rng = np.random.default_rng(0)
    while not out.done[1]:
        out = env.step(random_actions(out, rng))
    _, log = env.deal_log(1, last=True)
    for _, play in log:
        state.play(play) if play is not None else state.pass_()
    assert state.is_over and tuple(out.rewards[1]) == state.result.scores
    with pytest.raises(ValueError, match="agent seat"):
        env.set_position(0, State.from_position(rules, ["3", "4", "5", "6"], 1))
    with pytest.raises(ValueError, match="State under baibian"):
        env.set_position(0, State.from_position("jj", ["3", "4", "5", "6"], 0))


@pytest.mark.parametrize("preset", ["classic", "qianbian"])
def test_state_of_a_row_is_the_deal_replayed(preset: str) -> None:
    """``VecEnv.state(i)`` equals the row's deal replayed from its log on a fresh State: the
    position, the cards each seat played, the legal list in the env's order; it is a copy."""
    env = VecEnv(preset, 3, log=True)
    out = env.reset(11)
    rng = np.random.default_rng(1)
    for _ in range(90):
        n = np.diff(out.offsets)
        a = (rng.random(3) * n).astype(np.int64)
        a[(out.can_pass & (rng.random(3) < 0.3)) | (n == 0)] = -1
        out = env.step(a)
    for i in range(3):
        index, log = env.deal_log(i)
        st = State.deal(preset, deal_seed(11, index))
        for _, p in log:
            st.pass_() if p is None else st.play(p)
        got = env.state(i)
        assert got == st and got.to_act == out.to_act[i]
        assert all(got.cards_played(s) == st.cards_played(s) for s in range(4))
        assert list(got.legal()) == env.legal_plays(i)
        got.pass_() if got.can_pass() else got.play(0)  # a copy: the row does not move
        assert env.state(i) == st
    with pytest.raises(ValueError, match="row"):
        env.state(3)
