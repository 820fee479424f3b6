"""The expert-iteration pipeline (examples/expert_iteration.py, docs/bots.md "Expert
iteration"): its labels are the search's soft values, its gradients are right, and a smoke
run of two rounds writes weights that play legal moves through ``bots.make`` and the arena,
with their making recorded in ``learned.metadata``."""

from __future__ import annotations

import importlib.util
import json
import pathlib
import sys

import numpy as np
import pytest

from shuangkou import PASS, Rules, State, bots, learned, pimc_policy, solve
from shuangkou.arena import duel
from shuangkou.inference import weighted_worlds
from shuangkou.learned import table_features
from shuangkou.rng import SplitMix64

EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "expert_iteration.py"


@pytest.fixture(scope="module")
def ei():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("expert_iteration", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["expert_iteration"] = module
    spec.loader.exec_module(module)
    return module


def _positions(ei, rules: Rules, cards: int, n: int):  # type: ignore[no-untyped-def]
    """``n`` decisions of heuristic self-play with at most ``cards`` cards left and two
    candidates or more, as the pipeline keeps them (features from the seat's view)."""
    heuristic = bots.make("heuristic", rules)
    out = []
    seed = 0
    while len(out) < n:
        seed += 1
        st = State.deal(rules, seed)
        rng = SplitMix64(seed)
        while st.to_act is not None:
            seat = st.to_act
            view = st.view(seat)
            plays = list(st.legal("fewest"))
            if sum(st.card_counts) <= cards and len(plays) + (view.table is not None) >= 2:
                x, _, _ = table_features([view], [plays], rules, heuristic, rng)
                out.append(ei.Position(st.copy(), seat, plays, view.table is not None, x,
                                       sum(st.card_counts)))
                break
            choice = heuristic(view, plays, rng) if plays else None
            st.pass_() if choice is None else st.play(choice)
    return out


def test_labels_are_the_searchs_mean_values(ei) -> None:  # type: ignore[no-untyped-def]
    rules = Rules.preset("baibian")
    distinct = 0
    for k, pos in enumerate(_positions(ei, rules, 12, 4)):
        seed = 1000 + k
        label = ei.search_values(pos, 3, 10**6, seed, {})
        assert label is not None
        # the same worlds solved independently, each candidate's exact value averaged
        keys = [(p.packed, p.tag) for p in pos.plays] + ([(0, 0)] if pos.can_pass else [])
        assert label.shape == (len(keys),) == (pos.x.shape[0],)
        want = np.zeros(len(keys))
        for world in weighted_worlds(pos.state.view(pos.seat), pos.seat, 3, seed):
            sol = solve(world, all_values=True, threads=1)
            assert sol.exact
            values = {(p.packed, p.tag): v for p, v in sol.values}
            want += [values[key] for key in keys]
        np.testing.assert_allclose(label, want / 3)
        distinct += len(set(label.tolist())) >= 2
        # PIMC over the same worlds, without a fallback, makes a play the labels rank best
        policy = pimc_policy(3, 10**6, sampler=lambda v, s, n, _seed, seed=seed:
                             weighted_worlds(v, s, n, seed))
        choice = policy(pos.state.view(pos.seat), pos.plays, SplitMix64(1))
        key = (0, 0) if choice is None else (choice.packed, choice.tag)
        assert label[keys.index(key)] == label.max()
    assert distinct >= 1  # soft: candidates keep their own values, not a one-hot argmax


def test_a_position_not_solved_in_time_is_dropped(ei) -> None:  # type: ignore[no-untyped-def]
    pos = _positions(ei, Rules.preset("baibian"), 40, 1)[0]
    assert ei.search_values(pos, 2, 1, 5, {}) is None


def test_horizon_values_score_a_finished_deal_by_its_result(ei) -> None:  # type: ignore[no-untyped-def]
    rules = Rules.preset("classic")
    rng = np.random.default_rng(0)
    critic = ei.new_value_net((8,), rng)
    for pos in _positions(ei, rules, 10, 6):
        v = ei.horizon_values(pos, critic, 2, 3)
        assert v.shape == (pos.x.shape[0],) and np.isfinite(v).all()
        # with a critic that says 0 everywhere, only moves that end the deal score
        zero = ei.new_value_net((8,), rng)
        for w in zero.w + zero.b:
            w[...] = 0
        v0 = ei.horizon_values(pos, zero, 2, 3)
        for j, p in enumerate(pos.plays):
            s = pos.state.copy()
            s.play(p)
            if s.to_act is None:
                u = s.result.units
                assert v0[j] == 2 * (u[pos.seat & 1] + u[(pos.seat & 1) + 2])
            else:
                assert v0[j] == 0


def test_value_features_hold_the_true_hands(ei) -> None:  # type: ignore[no-untyped-def]
    st = State.deal("baibian", 4)
    f = ei.value_features([st])[0]
    seat = st.to_act
    for k in range(4):
        counts = np.round(f[15 * k:15 * k + 15] * 8)
        assert counts.sum() == st.cards_left((seat + k) & 3) == round(f[60 + k] * 27)
        assert [int(c) for c in counts] == [
            (st.hand((seat + k) & 3).packed >> (4 * r)) & 15 for r in range(15)]
    assert f.shape == (ei.VALUE_DIM,) and f[68] == 1  # leading


def test_softmax_loss_gradient(ei) -> None:  # type: ignore[no-untyped-def]
    """MLP.backward with the pipeline's cross-entropy matches finite differences."""
    rng = np.random.default_rng(1)
    net = learned.MLP.new((6,), rng)
    net.w = [w.astype(np.float64) for w in net.w]
    net.b = [b.astype(np.float64) for b in net.b]
    x = rng.random((5, learned.DIM))
    seg = np.array([0, 0, 0, 1, 1])
    t = ei._softmax_groups(rng.normal(size=5), seg, 2)

    def loss() -> float:
        p = ei._softmax_groups(net.q(x), seg, 2)
        return float(-(t * np.log(p)).sum() / 2)

    acts = net.forward(x)
    g = (ei._softmax_groups(acts[-1][:, 0], seg, 2) - t) / 2
    grads = net.backward(acts, g)
    w = net.w[0]
    for i, j in ((0, 0), (3, 2), (100, 5)):
        old = w[i, j]
        w[i, j] = old + 1e-6
        up = loss()
        w[i, j] = old - 1e-6
        down = loss()
        w[i, j] = old
        assert grads[0][i, j] == pytest.approx((up - down) / 2e-6, rel=1e-4, abs=1e-9)


def test_smoke_run(ei, tmp_path: pathlib.Path) -> None:  # type: ignore[no-untyped-def]
    """Two rounds at tiny sizes: each round labels, trains and is measured; its weights play
    through bots.make and the arena, their metadata say how they were made."""
    argv = ["--rules", "baibian", "--rounds", "2", "--deals", "3", "--tables", "3",
            "--exact-cards", "14", "--per-deal", "2", "--horizon-cards", "30",
            "--horizon-per-deal", "1", "--worlds", "3", "--max-nodes", "20000", "--epochs", "2",
            "--value-epochs", "1", "--pairs", "2", "--seed", "7", "--out", str(tmp_path)]
    record = ei.main(argv)
    assert [r["round"] for r in record["rounds"]] == [1, 2]
    first, second = record["rounds"]
    assert first["labelled_total"]["exact"] > 0 and first["labelled_total"]["horizon"] == 0
    assert second["labelled_total"]["horizon"] > 0  # round 2: the critic labels the midgame
    assert second["labelled_total"]["exact"] >= first["labelled_total"]["exact"]
    assert [m["match"] for m in second["measure"]] == ["round 2 vs learned",
                                                       "round 2 vs round 1"]
    assert json.loads((tmp_path / "record.json").read_text())["seed"] == 7
    path = tmp_path / "round2.npz"
    meta = learned.metadata(path)["baibian"]
    assert meta["command"].endswith(" ".join(argv)) and meta["seed"] == "7"
    assert meta["round"] == "2" and float(meta["cpu_minutes"]) >= 0
    assert json.loads(meta["labelled"]) == second["labelled_total"]
    bot = bots.make("learned", "baibian", weights=path)
    st = State.deal("baibian", 9)
    rng = SplitMix64(2)
    while st.to_act is not None:   # every move it makes is legal
        plays = list(st.legal("fewest"))
        choice = bot(st.view(st.to_act), plays, rng)
        assert choice is None and st.can_pass() or choice in plays
        st.pass_() if choice is None else st.play(choice)
    fast = ei.DistilledFast("baibian", str(path))
    assert duel(fast, "heuristic", "baibian", pairs=2, processes=1).pairs == 2
    default = ei.DistilledDefault("baibian", str(path))
    assert duel(default, "fast", "baibian", pairs=1, processes=1).pairs == 1
    assert PASS.packed == 0 and PASS.tag == 0  # the labels key a pass as (0, 0)


def test_labels_round_trip_and_ties_teach_nothing(ei, tmp_path: pathlib.Path) -> None:  # type: ignore[no-untyped-def]
    """save_labels/load_labels keep every decision's rows and values; a decision whose
    candidates the search values alike is left out of training (its uniform target would
    only flatten the scores): trained on ties alone, the network does not move."""
    rng = np.random.default_rng(3)
    data = [ei.Position(None, 0, [], False, rng.random((k, learned.DIM)).astype(np.float32),
                        10 + k, np.full(k, 0.25), "exact") for k in (2, 3, 4)]
    ei.save_labels(data, tmp_path / "l.npz")
    back = ei.load_labels(tmp_path / "l.npz")
    assert [(p.cards, p.source) for p in back] == [(p.cards, p.source) for p in data]
    for a, b in zip(back, data):
        np.testing.assert_array_equal(a.x, b.x)
        np.testing.assert_array_equal(a.values, b.values)
    net0 = learned.load()["baibian"]
    empty = np.zeros((0, learned.DIM), np.float32)
    net, fit = ei.train_policy(net0, back, empty, np.zeros(0, np.float32), 0.2, 0.0, 1e-2, 2,
                               2, rng)
    assert fit["train_decisions"] == 0
    for w, w0 in zip(net.w, net0.w):
        np.testing.assert_array_equal(w, w0)


def test_the_gate_reads_the_cards_left(ei, tmp_path: pathlib.Path) -> None:  # type: ignore[no-untyped-def]
    """The distilled network plays at or below the gate's cards left, the shipped one above:
    in self-play (gated_scores, from the feature rows) as at the table (Distilled)."""
    rules = Rules.preset("baibian")
    rng = np.random.default_rng(5)
    base = learned.load()["baibian"]
    other = learned.MLP.new((4,), rng)
    for pos in _positions(ei, rules, 30, 3) + _positions(ei, rules, 108, 1):
        for gate in (pos.cards - 1, pos.cards):
            got = ei.gated_scores(other, base, gate, pos.x)
            want = (other if pos.cards <= gate else base).score(pos.x)
            np.testing.assert_array_equal(got, want)
    st = State.deal(rules, 1)
    view, plays = st.view(st.to_act), list(st.legal("fewest"))
    shipped = bots.make("learned", rules)(view, plays, SplitMix64(1))
    # 108 cards, above the gate: the base network's move, whatever the distilled one is
    zero = tmp_path / "zero.npz"
    net = learned.MLP([w * 0 for w in base.w], [b * 0 for b in base.b])
    net.save(tmp_path / "one.npz", presets="baibian")
    learned.bundle([tmp_path / "one.npz"], zero)
    assert ei.Distilled(rules, str(zero), 24)(view, plays, SplitMix64(1)) == shipped


def test_resume_goes_on_from_a_round(ei, tmp_path: pathlib.Path) -> None:  # type: ignore[no-untyped-def]
    """--resume K trains round K+1 from round K's network and labels (all of them kept)."""
    argv = ["--rounds", "1", "--deals", "2", "--tables", "2", "--exact-cards", "14",
            "--per-deal", "2", "--worlds", "2", "--max-nodes", "20000", "--epochs", "1",
            "--value-epochs", "1", "--pairs", "0", "--seed", "3", "--out", str(tmp_path)]
    first = ei.main(argv)["rounds"][0]["labelled_total"]["exact"]
    argv[1] = "2"
    again = ei.main([*argv, "--resume", "1"])
    assert [r["round"] for r in again["rounds"]] == [2]
    assert again["rounds"][0]["labelled_total"]["exact"] >= first > 0
    assert (tmp_path / "record_from1.json").exists()
    # the weights' metadata count every round's deals and CPU, the resumed ones too
    one = learned.metadata(tmp_path / "round1.npz")["baibian"]
    two = learned.metadata(tmp_path / "round2.npz")["baibian"]
    assert int(two["deals"]) == int(one["deals"]) + again["rounds"][0]["deals"]
    assert float(two["cpu_minutes"]) >= float(one["cpu_minutes"])
