"""State.history, shuangkou.inference and pimc_policy's sampler (issue #32 item 2; docs/bots.md
"Inference")."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from shuangkou import Hand, Rules, State, bots, simulate
from shuangkou.errors import ArgumentError
from shuangkou.inference import (
    HEURISTIC,
    LEARNED_JJ,
    MODEL,
    MODELS,
    Mixture,
    Model,
    _hidden,
    answers,
    named_model,
    weighted_worlds,
)
from shuangkou.plays import Play
from shuangkou.rng import SplitMix64, deal_seed
from shuangkou.rules import PRESETS
from shuangkou.sim import greedy_policy
from shuangkou.solve import pimc_policy, sample_deals


def _play_out(preset: str, seed: int, stop_at: int = 0, policy: Any = greedy_policy
              ) -> tuple[State, list[tuple[Any, ...]]]:
    """A deal played by ``policy`` until ``stop_at`` cards are left in the four hands (0: the
    end), with what the engine said before each action: (seat, its table tag or 0, whether
    its partner owned the table, the action)."""
    st = State.deal(Rules.preset(preset), deal_seed(11, seed))
    rng = SplitMix64(seed)
    seen = []
    while st.to_act is not None and sum(st.card_counts) > stop_at:
        seat = st.to_act
        table = st.table
        choice = policy(st.view(seat), st.legal("fewest"), rng)
        seen.append((seat, 0 if table is None else table.tag, st.table_owner == seat ^ 2,
                     choice))
        st.pass_() if choice is None else st.play(choice)
    return st, seen


def _records(preset: str, n: int, seeds: int = 3, stops: tuple[int, ...] = (60, 30),
             policy: Any = greedy_policy) -> Iterator[tuple[list[Any], list[Any], tuple[Any, ...]]]:
    """The record of the seat to act (its hidden seats' answers), ``n`` deals sampled from
    its view and the true hands, at each of ``stops`` cards left of the deals of seeds
    ``0 .. seeds-1`` that ``policy`` plays (``_play_out``)."""
    for seed in range(seeds):
        for stop in stops:
            st, _ = _play_out(preset, seed, stop, policy)
            if st.to_act is None:
                continue
            view = st.view(st.to_act)
            yield (answers(view, _hidden(view)), sample_deals(view, view.seat, n, seed),
                   tuple(st.hand(s) for s in range(4)))


@pytest.mark.parametrize("preset", PRESETS)
def test_history_is_the_actions_played_and_answers_follow_the_engines_table(preset: str) -> None:
    """``State.history()`` lists every play and pass in order; :func:`answers` rebuilds the
    table each seat faced exactly as the engine had it (R4/R7: tricks end, 接风)."""
    for seed in range(6):
        st, seen = _play_out(preset, seed)
        assert st.history() == [(s, a) for s, _, _, a in seen]
        assert st.view(1).history() == st.history() and st.copy().history() == st.history()
        assert answers(st.view(0), {0, 1, 2, 3}) == seen
        assert answers(st.view(0), {1, 3}) == [x for x in seen if x[0] in (1, 3)]


def test_history_of_a_position_set_up_by_hand_is_empty_and_undo_pops_it() -> None:
    st = State.from_position("classic", ["3 4", "5", "6", "7"], 0, hand_size=None)
    assert st.history() == []
    play = st.legal()[0]
    st.play(play)
    assert st.history() == [(0, play)]
    st.pass_()
    assert st.history() == [(0, play), (1, None)]
    st.undo()
    assert st.history() == [(0, play)]


def _replays(world: State, view: Any, rules: Rules) -> bool:
    """The deal replayed from ``world``'s hands plus the cards each seat played: the engine
    accepts every action of the record and reaches ``world``'s hands and table."""
    start = [Hand.from_counts([a + b for a, b in zip(world.hand(s).counts,
                                                     view.cards_played(s).counts)])
             for s in range(4)]
    history = view.history()
    st = State.from_position(rules, start, history[0][0])
    for _, play in history:
        st.pass_() if play is None else st.play(play)  # raises on an illegal action
    return (all(st.hand(s) == world.hand(s) for s in range(4)) and st.table == world.table
            and st.to_act == world.to_act and st.table_owner == world.table_owner)


@pytest.mark.parametrize("preset", PRESETS)
def test_inference_never_draws_a_world_the_public_record_rules_out(preset: str) -> None:
    """Property test against the engine: every weighted world (under each of the models,
    the mixture too), with the cards each seat played put back, replays the whole record
    legally (R4: every play beats its table from the hand then held) and reaches the view's
    position."""
    rules = Rules.preset(preset)
    checked = 0
    for seed in range(4):
        for stop in (70, 40, 20):
            st, _ = _play_out(preset, seed, stop)
            if st.to_act is None:
                continue
            view = st.view(st.to_act)
            for model in (*MODELS.values(), named_model("default+heuristic")):
                for world in weighted_worlds(view, view.seat, 6, seed, candidates=24,
                                             model=model):
                    assert world.hand(view.seat) == view.hand
                    assert _replays(world, view, rules)
                    checked += 1
    assert checked >= 24 * (len(MODELS) + 1)


def test_the_model_prefers_the_worlds_that_explain_a_pass() -> None:
    """A seat that passed over an opponent's single 9 is likelier not to hold a higher single
    (R4): the model's probability of the pass is higher for a hand of low cards, and a seat
    with nothing that beats the table passed for sure (log-probability 0)."""
    rules = Rules.preset("classic")
    nine = Play.parse("9", rules).tag
    low, high = Hand.parse("3 4 5").packed, Hand.parse("3 4 K").packed
    assert MODEL.answer_log_prob(low, rules.flags, nine, False, None) == 0.0
    assert MODEL.answer_log_prob(high, rules.flags, nine, False, None) < -0.1
    # the lowest beating single is the likeliest answer, each higher one less likely
    hand = Hand.parse("10 Q A").packed
    probs = [math.exp(MODEL.answer_log_prob(hand, rules.flags, nine, False,
                                            Play.parse(c, rules))) for c in ("10", "Q", "A")]
    assert probs[0] > probs[1] > probs[2]
    p_pass = math.exp(MODEL.answer_log_prob(hand, rules.flags, nine, False, None))
    assert sum(probs) + p_pass == pytest.approx(1.0)


@pytest.mark.parametrize("preset", PRESETS)
def test_the_vectorised_likelihood_is_the_sum_of_the_answers_probabilities(preset: str) -> None:
    """``Model.log_likelihoods`` (features by ``_core.answer_features`` in C, the softmax in
    numpy) equals the record's answers scored one by one by ``answer_log_prob`` (Python),
    each from the hand held then (the current hand plus the seat's later plays), leads too."""
    rules = Rules.preset(preset)
    compared = 0
    for record, deals, _ in _records(preset, 4):
        for hands, got in zip(deals, MODEL.log_likelihoods(record, deals, rules.flags)):
            held = [h.packed for h in hands]
            want = 0.0
            for seat, table, partner_owns, play in reversed(record):
                if play is not None:
                    held[seat] += play.packed
                want += MODEL.answer_log_prob(held[seat], rules.flags, table, partner_owns,
                                              play)
            assert got == pytest.approx(want, abs=1e-9)
            compared += 1
    assert compared >= 12


def test_answer_features_checks_its_arrays() -> None:
    from shuangkou import _core

    rules = Rules.preset("classic")
    hands = np.array([Hand.parse("3 4").packed] * 2, np.uint64)
    tables = np.array([Play.parse("3", rules).tag], np.uint32)
    seen = np.zeros(1, np.uint32)
    out = np.zeros((2, 5), np.int32)
    _core.answer_features(hands, tables, seen, rules.flags, out)
    assert out.tolist() == [[1, 0, 0, 0, 0]] * 2  # the single 4 beats the 3: one clean height
    with pytest.raises(ArgumentError, match="out of shape"):
        _core.answer_features(hands, tables, seen, rules.flags, np.zeros((2, 4), np.int32))
    with pytest.raises(ArgumentError, match="multiple"):
        _core.answer_features(hands, np.zeros(0, np.uint32), np.zeros(0, np.uint32),
                              rules.flags, out)
    with pytest.raises(ArgumentError, match="hand 1"):
        _core.answer_features(np.array([hands[0], 2**63], np.uint64), tables, seen,
                              rules.flags, out)
    with pytest.raises(ValueError, match="table"):
        _core.answer_features(hands, np.array([2**31], np.uint32), seen, rules.flags, out)


def test_weighted_worlds_favour_the_truth_on_average() -> None:
    """Over positions of deals the heuristic plays (the model's habits are the heuristic's),
    the true hidden hands are more likely under the model than the average uniform world
    (the log-likelihood gain benchmarks/bench_inference.py measures; here its sign over 30
    positions)."""
    rules = Rules.preset("baibian")
    heuristic = bots.make("heuristic", rules)
    gains = []
    for record, deals, hands in _records("baibian", 60, 15, (40, 24), heuristic):
        truth = MODEL.log_likelihood(record, hands, rules.flags)
        lls = [MODEL.log_likelihood(record, h, rules.flags) for h in deals]
        top = max(lls)
        gains.append(truth - top - math.log(sum(math.exp(x - top) for x in lls) / 60))
    assert sum(gains) / len(gains) > 0.2


def test_weighted_worlds_checks_its_arguments_and_a_flat_model_is_uniform() -> None:
    st, _ = _play_out("baibian", 1, 40)
    view = st.view(st.to_act)
    with pytest.raises(ArgumentError, match="candidates"):
        weighted_worlds(view, view.seat, 8, 1, candidates=4)
    with pytest.raises(ArgumentError):
        weighted_worlds(view, view.seat, -1, 1)
    # a model that gives every answer the same probability keeps the candidates' order
    flat = Model(lower=0.0, pass_beat=0.0, pass_bomb=0.0, pass_partner=0.0, bomb=0.0,
                 bomb_partner=0.0)
    got = weighted_worlds(view, view.seat, 5, 3, candidates=5, model=flat)
    want = sample_deals(view, view.seat, 5, 3)
    assert [tuple(w.hand(s) for s in range(4)) for w in got] == want


def test_pimc_policy_searches_the_samplers_worlds() -> None:
    """``pimc_policy(sampler=…)`` draws its worlds from the sampler (here one that counts its
    calls), and ``bots.make("pimc", sampler="weighted")`` plays legal deals."""
    calls = []

    def sampler(game: Any, seat: int, n: int, seed: int) -> list[State]:
        calls.append(n)
        return weighted_worlds(game, seat, n, seed)

    st, _ = _play_out("baibian", 2, 20)
    view = st.view(st.to_act)
    policy = pimc_policy(3, 2000, sampler=sampler)
    choice = policy(view, list(st.legal()), SplitMix64(1))
    assert calls == [3] and (choice is None or choice in st.legal())
    with pytest.raises(ArgumentError, match="sampler"):
        pimc_policy(3, 100, sampler=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="sampler"):
        bots.make("pimc", "baibian", sampler="smart")
    bot = bots.make("pimc", "baibian", worlds=2, max_nodes=200, sampler="weighted")
    assert len(simulate(1, "baibian", (bot, "greedy"), seed=3)) == 1


def _brute_mixture(mix: Mixture, record: list[Any], hands: tuple[Any, ...], flags: int) -> float:
    """A mixture's log-likelihood the long way: each hidden seat's answers scored one by one
    by each model's ``answer_log_prob`` (from the hand held then), the models averaged by
    their priors per seat, the seats multiplied."""
    total = 0.0
    for seat in sorted({r[0] for r in record}):
        per_model = []
        for model in mix.models:
            held = [h.packed for h in hands]
            ll = 0.0
            for s, table, partner_owns, play in reversed(record):
                if play is not None:
                    held[s] += play.packed
                if s == seat:
                    ll += model.answer_log_prob(held[s], flags, table, partner_owns, play)
            per_model.append(ll)
        total += math.log(sum(p / sum(mix.priors) * math.exp(ll)
                              for p, ll in zip(mix.priors, per_model)))
    return total


@pytest.mark.parametrize("preset", PRESETS)
def test_the_mixture_is_each_seats_prior_weighted_average_of_its_models(preset: str) -> None:
    """``Mixture.log_likelihoods`` (one C call, the models' softmaxes in numpy) equals the
    per-seat average of the models' likelihoods computed answer by answer in Python, for
    the shipped mixture and for uneven priors; a mixture of one model is that model."""
    rules = Rules.preset(preset)
    uneven = Mixture((MODEL, HEURISTIC, Model(lower=0.0)), (0.2, 0.5, 0.3))
    compared = 0
    for record, deals, _ in _records(preset, 3):
        for mix in (named_model("default+heuristic"), uneven):
            for hands, got in zip(deals, mix.log_likelihoods(record, deals, rules.flags)):
                assert got == pytest.approx(_brute_mixture(mix, record, hands, rules.flags),
                                            abs=1e-9)
                compared += 1
        alone = Mixture((HEURISTIC,), (2.0,)).log_likelihoods(record, deals, rules.flags)
        assert alone == pytest.approx(HEURISTIC.log_likelihoods(record, deals, rules.flags))
    assert compared >= 24


def test_the_mixture_follows_the_model_that_explains_each_seat() -> None:
    """Where one seat's moves are the heuristic's and another's the learned bot's, the
    mixture scores each seat near its better model: the true hands' log-likelihood under the
    mixture is at least each single model's less log 2 a seat (the prior of one half), and
    above the worse single model on the deals of a bot whose moves one model explains
    better."""
    rules = Rules.preset("classic")
    heuristic = bots.make("heuristic", rules)
    checked = 0
    for seed in range(6):
        st, _ = _play_out("classic", seed, 40, heuristic)
        if st.to_act is None:
            continue
        view = st.view(st.to_act)
        record = answers(view, _hidden(view))
        truth = tuple(st.hand(s) for s in range(4))
        seats = len({r[0] for r in record})
        mix = named_model("default+heuristic").log_likelihood(record, truth, rules.flags)
        singles = [m.log_likelihood(record, truth, rules.flags) for m in (MODEL, HEURISTIC)]
        assert mix >= max(singles) - seats * math.log(2) - 1e-9
        assert mix <= max(singles) + 1e-9  # an average never beats its best part
        checked += 1
    assert checked >= 4


def test_the_mixture_checks_its_models_and_priors() -> None:
    with pytest.raises(ArgumentError, match="models"):
        Mixture((), ())
    with pytest.raises(ArgumentError, match="models"):
        Mixture((MODEL, "heuristic"), (0.5, 0.5))  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match="priors must be 2 positive"):
        Mixture((MODEL, HEURISTIC), (0.5,))
    for bad in (0.0, -1.0, math.inf, True):
        with pytest.raises(ArgumentError, match="priors must be 2 positive"):
            Mixture((MODEL, HEURISTIC), (0.5, bad))


def test_the_heuristic_model_reads_the_heuristics_moves_better_than_the_default() -> None:
    """On classic deals the heuristic plays (seed 1's, not the fit's seed 7), the true
    hidden hands gain more log-likelihood over the uniform average under
    :data:`HEURISTIC` than under :data:`MODEL` (benchmarks/bench_inference.py's measure;
    docs/bots.md has it over 100 deals)."""
    rules = Rules.preset("classic")
    heuristic = bots.make("heuristic", rules)
    gains: dict[str, list[float]] = {"default": [], "heuristic": []}
    for record, deals, truth in _records("classic", 60, 12, (40, 28), heuristic):
        for name in gains:
            model = MODELS[name]
            lls = model.log_likelihoods(record, deals, rules.flags)
            top = lls.max()
            gains[name].append(model.log_likelihood(record, truth, rules.flags) - top
                               - math.log(np.exp(lls - top).mean()))
    assert len(gains["default"]) >= 16
    assert np.mean(gains["heuristic"]) > np.mean(gains["default"])


def test_the_pimc_bots_model_option(monkeypatch: pytest.MonkeyPatch) -> None:
    """``model`` picks the weights' model by name (the bot's sampler is ``weighted_worlds``
    with that model: seen here by a spy in its place), is refused with a clear error when
    unknown or without the weighted sampler, and the bot plays legal deals and pickles."""
    import pickle

    from shuangkou import inference

    seen: list[Any] = []

    def spy(view: Any, seat: int, n: int, seed: int, **kw: Any) -> list[State]:
        seen.append(kw.get("model", MODEL))
        return weighted_worlds(view, seat, n, seed, **kw)

    st, _ = _play_out("classic", 3, 24)  # an answer with a play and pass: a search
    view = st.view(st.to_act)
    monkeypatch.setattr(inference, "weighted_worlds", spy)
    for name, model in [*MODELS.items(), ("jj+heuristic", Mixture((LEARNED_JJ, HEURISTIC),
                                                                 (1.0, 1.0)))]:
        bot = bots.make("pimc", "classic", worlds=3, max_nodes=200, sampler="weighted",
                        model=name)
        seen.clear()
        choice = bot(view, st.legal(bot.wilds), SplitMix64(1))
        assert seen == [model] and (choice is None or choice in st.legal(bot.wilds))
        assert pickle.loads(pickle.dumps(bot))._made == bot._made
    monkeypatch.undo()
    assert named_model("default+heuristic") == Mixture((MODEL, HEURISTIC), (1.0, 1.0))
    for bad in ("learned", "jj+jj", "jj+", 3):
        with pytest.raises(ValueError, match="model must be one of default, heuristic, jj, "
                                             f"classic, or several .* not {re.escape(repr(bad))}"):
            bots.make("default", "classic", model=bad)
    with pytest.raises(ValueError, match="sampler='weighted', not of sampler='uniform'"):
        bots.make("pimc", "classic", model="default+heuristic")
    bot = bots.make("default", "classic", model="default+heuristic")
    assert len(simulate(2, "classic", (bot, "default-2026.12"), seed=3)) == 2
