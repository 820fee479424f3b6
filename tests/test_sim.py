"""Self-play (issue #4): the kernel's deals replayed through the Python Game, determinism across
threads, invariants of every simulated deal, R8.4 held-bomb search, greedy vs random."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from shuangkou import Hand, Rules, _sim
from shuangkou._reference_scoring import best_held_bombs
from shuangkou.cards import MAX_COPIES
from shuangkou.game import Game
from shuangkou.plays import Play
from shuangkou.rng import SplitMix64, deal_seed
from shuangkou.rules import MAX_BASE_SCORE, MAX_UNITS
from shuangkou.sim import (
    SimResult,
    SimStats,
    greedy_policy,
    kernel_log,
    merge,
    random_policy,
    simulate,
    simulate_iter,
    simulate_stats,
    with_game,
)

PRESETS = ("classic", "baibian", "jj", "qianbian")
OUTCOME_NAMES = ("双扣", "单扣", "平扣")


def test_kernel_rng_mirrors_python() -> None:
    for seed in (0, 1, 2**64 - 1, 123456789):
        for i in (0, 1, 7, 10**9):
            assert _sim.deal_seed(seed, i) == deal_seed(seed, i)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("policy", ["random", "greedy", ("greedy", "random")])
def test_kernel_deal_replays_through_game(preset: str, policy: object) -> None:
    """The key test: a kernel deal's decisions, replayed through Game, give identical places,
    outcome, multiplier and scores (R7 flow, R8 scoring), for many seeds."""
    rules = Rules.preset(preset)
    for index in range(25):
        rec, actions = kernel_log(rules, 2024, index, policy)  # type: ignore[arg-type]
        game = Game(rules, seed=deal_seed(2024, index))
        assert game.first_leader == rec["leader"]
        assert tuple(Hand.from_cards(h).packed for h in game.initial_hands) == rec["first_hands"]
        assert (game.revealed if game.revealed is not None else -1) == rec["revealed"]
        for seat, play in actions:
            assert game.to_act == seat
            if play:
                game.play(play)
            else:
                game.pass_()
        assert game.is_over
        res = game.result
        assert res is not None
        assert tuple(res.places) == rec["places"]
        assert res.outcome.value == OUTCOME_NAMES[rec["outcome"]]
        assert res.multiplier == rec["multiplier"]
        assert tuple(res.units) == rec["units"]
        assert tuple(res.scores) == rec["scores"]
        assert game.card_counts == rec["cards_left"]
        assert len(actions) == rec["decisions"]


@pytest.mark.parametrize("preset", PRESETS)
def test_python_twins_reproduce_the_kernel(preset: str) -> None:
    """The callback path (Python Game + Python policies) gives the kernel's arrays exactly."""
    for name, fn in (("random", random_policy), ("greedy", greedy_policy)):
        a = simulate(25, preset, name, seed=5)
        b = simulate(25, preset, fn, seed=5)
        for k in a.arrays:
            assert np.array_equal(a.arrays[k], b.arrays[k]), (name, k)


def test_identical_for_any_thread_count_and_chunking() -> None:
    base = simulate(3000, "qianbian", "random", threads=1, seed=17)
    for threads, chunk in ((2, None), (3, 97), (4, 1000)):
        assert simulate(3000, "qianbian", "random", threads=threads, seed=17, chunk=chunk) == base
    part = simulate(1000, "qianbian", "random", threads=2, seed=17, start=1500)
    for k in base.arrays:
        assert np.array_equal(part.arrays[k], base.arrays[k][1500:2500])
    assert merge(list(simulate_iter(3000, "qianbian", "random", seed=17, chunk=700))) == base
    assert simulate(200, "baibian", seed=1) != simulate(200, "baibian", seed=2)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_invariants_of_every_deal(preset: str, policy: str) -> None:
    rules = Rules.preset(preset)
    res = simulate(3000, rules, policy, threads=2, seed=3)
    n = len(res)
    assert (res.overflow == 0).all()
    assert (np.sort(res.places, axis=1) == np.arange(4)).all()
    # the first finisher holds nothing; finishers hold nothing; R8 outcome from the places
    first = res.places[:, 0]
    rows = np.arange(n)
    assert (res.cards_left[rows, first] == 0).all()
    partner_place = np.argmax(res.places == (first ^ 2)[:, None], axis=1)
    assert (res.outcome == partner_place - 1).all()
    # every seat holds 0..27 cards; at least two seats are out, at most three
    assert ((res.cards_left >= 0) & (res.cards_left <= 27)).all()
    out = (res.cards_left == 0).sum(1)
    assert ((out >= 2) & (out <= 3)).all()
    # bombs by stars and by seat agree; stars only in star presets
    assert (res.bombs_by_stars.sum(1) == res.bombs_by_seat.sum(1)).all()
    if not rules.star_bombs:
        assert (res.bombs_by_stars[:, 1:] == 0).all()
    assert (res.plays <= res.decisions).all()
    assert (res.scores == res.units * rules.base_score).all()
    # zero-sum where R8 says so
    total = res.units.sum(1)
    if preset in ("classic", "jj"):
        assert (total == 0).all()
    elif preset == "baibian":
        assert (total[res.outcome != 2] == 0).all()
        tie = res.outcome == 2
        assert (total[tie] == 2 * res.multiplier[tie]).all()
    else:
        capped = (np.abs(res.units) == rules.score_cap).any(1)
        assert (total[~capped] == 0).all()
        assert (np.abs(res.units) <= rules.score_cap).all()


@pytest.mark.parametrize("preset", PRESETS)
def test_card_conservation(preset: str) -> None:
    rules = Rules.preset(preset)
    for index in range(20):
        rec, actions = kernel_log(rules, 77, index, "random")
        hands = [Hand.from_packed(w).counts for w in rec["first_hands"]]
        assert [sum(c[r] for c in hands) for r in range(15)] == list(MAX_COPIES)
        left = [np.array(h) for h in hands]
        for seat, play in actions:
            if play:
                left[seat] = left[seat] - np.array(play.cards.counts)
                assert (left[seat] >= 0).all()
        assert tuple(int(x.sum()) for x in left) == rec["cards_left"]


def test_held_bomb_search_matches_scoring() -> None:
    rq = Rules.preset("qianbian")
    rb = Rules.preset("baibian").replace(held_bombs_score=True)
    rnd = random.Random(4)
    for _ in range(600):
        counts = [0] * 15
        ranks = rnd.sample(range(15), rnd.randint(2, 9))
        for _ in range(rnd.randint(0, 27)):
            r = rnd.choice(ranks)
            if counts[r] < MAX_COPIES[r]:
                counts[r] += 1
        if rnd.random() < 0.5:
            counts[13], counts[14] = rnd.randint(0, 2), rnd.randint(0, 2)
        hand = Hand.from_counts(counts)
        for rules, mode in ((rq, 3), (rb, 1)):
            assert _sim.held_value(hand.packed, rules.flags, mode) == best_held_bombs(
                hand, rules
            ).per_seat, (rules.name, str(hand))


def test_house_rules_reach_the_kernel() -> None:
    rules = Rules.preset("baibian").replace(base_score=10, held_bombs_score=True, score_cap=50)
    res = simulate(500, rules, "random", seed=8)
    assert (res.scores == 10 * res.units).all()
    assert (np.abs(res.units) <= 50).all()
    for index in range(10):
        rec, actions = kernel_log(rules, 8, index)
        game = Game(rules, seed=deal_seed(8, index))
        for _, play in actions:
            game.play(play) if play else game.pass_()
        assert game.result is not None and tuple(game.result.scores) == rec["scores"]


def test_greedy_beats_random() -> None:
    res = simulate(4000, "baibian", ("greedy", "random"), threads=2, seed=99)
    team0_first = float((res.first_team == 0).mean())
    team0_score = float(res.scores[:, [0, 2]].mean())
    assert team0_first > 0.9, team0_first
    assert team0_score > 2.0, team0_score


def test_summary_and_stats_merge() -> None:
    a = simulate(1500, "jj", "greedy", seed=4)
    parts = [simulate(500, "jj", "greedy", seed=4, start=s) for s in (0, 500, 1000)]
    assert merge(parts[::-1]) == a
    merged = SimStats()
    for p in parts:
        merged = merged.merge(p.stats())
    assert merged.summary()["outcomes"] == a.summary()["outcomes"]
    s = simulate_stats(1500, "jj", "greedy", seed=4, chunk=400)
    assert s.n == 1500 and (s.outcomes == a.stats().outcomes).all()
    text = str(a.summary())
    for word in ("双扣", "单扣", "平扣", "95% CI", "decisions"):
        assert word in text
    with pytest.raises(ValueError):
        merge([parts[0], parts[2]])
    with pytest.raises(ValueError):
        merge([parts[0], simulate(500, "jj", "random", seed=4, start=500)])


def test_save_npz_roundtrip(tmp_path: object) -> None:
    a = simulate(300, "classic", "greedy", seed=6)
    path = f"{tmp_path}/a.npz"
    a.save(path)
    assert SimResult.load_npz(path) == a


def test_python_callback_policy() -> None:
    seen: list[int] = []

    def first_play(view: Any, plays: Any, rng: object) -> object:
        seen.append(view.to_act)
        return plays[0] if len(plays) else None

    res = simulate(3, "baibian", first_play, seed=1)
    assert len(res) == 3 and len(seen) == int(res.decisions.sum())
    assert res.policies == ("first_play",) * 4

    def lazy(view: Any, plays: Any, rng: object) -> None:
        return None

    with pytest.raises(ValueError, match="passed on a lead"):
        simulate(1, "baibian", lazy)
    with pytest.raises(ValueError, match="passed on a lead"):
        simulate(1, "baibian", with_game(lazy))


@pytest.mark.parametrize("preset", PRESETS)
def test_python_policy_gets_its_seats_view_only(preset: str) -> None:
    """The view a Python policy gets is the deciding seat's (R6: the partner's hand only under
    双明), holds no Game or State, and its plays are that seat's legal plays: checked against
    the same deal replayed through the Game."""
    rules = Rules.preset(preset)
    log: list[tuple[Any, ...]] = []

    def recorder(view: Any, plays: Any, rng: SplitMix64) -> Play | None:
        assert not isinstance(view, Game) and view.seat == view.to_act
        for name in dir(view):
            if not name.startswith("__"):
                assert type(getattr(view, name)).__name__ not in ("Game", "State", "RefState")
        choice = random_policy(view, plays, rng)
        # what the view says now (a view may follow its State after the call)
        log.append((view.seat, view.hand, view.partner_hand, view.table, view.card_counts,
                    list(plays), choice))
        return choice

    simulate(3, rules, recorder, seed=9)
    steps = iter(log)
    for i in range(3):
        game = Game(rules, seed=deal_seed(9, i))
        while not game.is_over:
            seat, hand, partner, table, counts, plays, choice = next(steps)
            assert seat == game.to_act
            assert hand == game.hand_ranks(seat) and plays == game.legal_plays()
            if rules.partner_visible:
                assert partner == game.hand_ranks(seat ^ 2)
            else:
                assert partner is None
            assert table == game.table and counts == game.card_counts
            game.play(choice) if choice else game.pass_()
    assert next(steps, None) is None


def test_with_game_is_the_trusted_opt_in() -> None:
    seen: list[type] = []

    def peek(game: Any, plays: list[Play], rng: SplitMix64) -> Play | None:
        seen.append(type(game))
        rival = game.to_act ^ 1  # the whole game: an opponent's cards too
        assert len(game.hand(rival)) == game.cards_left(rival)
        return random_policy(game, plays, rng)

    a = simulate(4, "baibian", with_game(peek), seed=3)
    b = simulate(4, "baibian", random_policy, seed=3)  # on the State, seeing views
    assert all(np.array_equal(a.arrays[k], b.arrays[k]) for k in a.arrays)
    assert set(seen) == {Game} and a.policies == ("peek",) * 4
    # mixed: the with_game seat sees the game, the others their view
    mixed = simulate(4, "jj", [with_game(random_policy), random_policy] * 2, seed=3)
    assert np.array_equal(mixed.scores, simulate(4, "jj", random_policy, seed=3).scores)
    with pytest.raises(TypeError):
        with_game(3)  # type: ignore[arg-type]


def test_policy_may_answer_with_an_index() -> None:
    def last(view: Any, plays: Any, rng: object) -> int | None:
        return len(plays) - 1 if len(plays) else None

    def last_play(view: Any, plays: Any, rng: object) -> Play | None:
        return plays[len(plays) - 1] if len(plays) else None

    last_play.wilds = "fewest"  # type: ignore[attr-defined]
    last.wilds = "fewest"  # type: ignore[attr-defined]
    a, b = simulate(5, "qianbian", last, seed=2), simulate(5, "qianbian", last_play, seed=2)
    assert all(np.array_equal(a.arrays[k], b.arrays[k]) for k in a.arrays)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        simulate(10, "baibian", "smart")
    with pytest.raises(ValueError):
        simulate(10, "nope")
    with pytest.raises(ValueError):
        simulate(10, "baibian", threads=0)
    with pytest.raises(ValueError):
        simulate(10, "baibian", ["random"] * 3)
    assert len(simulate(0, "baibian")) == 0


def test_scores_are_64_bit_at_the_largest_base_score() -> None:
    """#11: scores (units × base score, R8) are int64 in the kernel and in the arrays. At the
    largest base score with the largest 天王 multiplier (R8.1) they pass 2³¹ (an int32 wrapped
    them) and must equal what Game scores for the same decisions."""
    rules = Rules.preset("classic").replace(base_score=MAX_BASE_SCORE,
                                            four_jokers_multiplier=MAX_UNITS)
    res = simulate(300, rules, "random", seed=3)
    assert res.scores.dtype == np.int64
    assert (res.scores == res.units.astype(np.int64) * MAX_BASE_SCORE).all()
    big = np.flatnonzero(np.abs(res.scores).max(axis=1) >= 2**31)
    assert big.size >= 3  # 天王 played by team T: 4 × 10⁶ units, 4 × 10¹² points
    for index in big[:3]:
        rec, actions = kernel_log(rules, 3, int(index))
        game = Game(rules, seed=deal_seed(3, int(index)))
        for _, play in actions:
            game.play(play) if play else game.pass_()
        assert game.result is not None
        assert tuple(game.result.scores) == rec["scores"] == tuple(res.scores[index])
    stats = res.stats()
    assert np.allclose(stats.score_sum, res.scores.sum(axis=0))


@pytest.mark.parametrize("base", [MAX_BASE_SCORE + 1, 2**28, 2**63, 2**64 + 3, -1, 0])
def test_base_scores_out_of_range_fail_at_rules_time(base: int) -> None:
    """#11: a base score the 64-bit scores cannot hold with room for any deal's units (the
    issue's 2**28 gave −2³¹ in every seat) is a ValueError naming the field, before any deal is
    played — never a wrapped score."""
    with pytest.raises(ValueError, match="base_score"):
        simulate(10, Rules.preset("jj").replace(base_score=base), "random")


def test_summary_says_when_the_scores_are_not_zero_sum() -> None:
    # issue #35: every seat's mean score positive with no word why (R8.2: a 百变 平扣 pays
    # places 1 and 4 one base each, nobody pays it)
    res = simulate(400, "baibian", "random", seed=1)
    unbalanced = int((res.units.sum(1) != 0).sum())
    assert unbalanced > 0
    text = str(res.summary())
    assert f"not zero-sum: in {unbalanced} deals" in text and "R8.2" in text, text
    total = sum(res.scores[:, s].mean() for s in range(4))
    assert f"the means sum to {total:+.3f}" in text
    assert "zero-sum" not in str(simulate(200, "classic", "random", seed=1).summary())
