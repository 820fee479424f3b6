"""The learned bot's rows in C (``shuangkou._learned``; docs/bots.md, "The learned bot's
time") against the numpy encoder they replaced, kept here as the slow reference: the same
feature bits, the same network values, the same choices, at every decision of deals of every
preset, one decision at a time and in batches."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from shuangkou import State, _learned, bots, learned
from shuangkou.cards import MAX_COPIES
from shuangkou.learned import (
    _HAND,
    _LEADING,
    _LEFT,
    _NIBBLES,
    _OWNER,
    _PARTNER,
    _PASSES,
    _PLACE,
    _PLAYED,
    _READING,
    _TAG_MASKS,
    _TAG_SHIFTS,
    N_KINDS,
    _first_per_env,
)
from shuangkou.plays import Kind
from shuangkou.rng import SplitMix64, deal_seed
from shuangkou.rules import PRESETS, Rules
from shuangkou.sim import greedy_policy

# -- the reference: the numpy encoder as it was (learned.py before the C rows) -----------------
# (the observation's layout, _HAND…_TAG_MASKS, is the module's own: not what this checks)
_DECK = np.array(MAX_COPIES, np.float32)
_FIRST_BOMB = int(Kind.BOMB)
_PASS_KIND = 10


def ref_play_arrays(plays: Any) -> tuple[np.ndarray, np.ndarray]:
    words = np.fromiter((p.packed for p in plays), np.uint64)
    tags = np.fromiter((p.tag for p in plays), np.uint32)
    cards = ((words[:, None] >> _NIBBLES) & np.uint64(15)).astype(np.uint8)
    feat = ((tags[:, None] >> _TAG_SHIFTS) & _TAG_MASKS).astype(np.uint8)
    return cards, feat


def _first_among(sel: np.ndarray, env: np.ndarray, keys: list[np.ndarray], n: int) -> np.ndarray:
    rows = np.flatnonzero(sel)
    best = _first_per_env(env[rows], [k[rows] for k in keys], n)
    return np.where(best >= 0, rows[np.maximum(best, 0)] if rows.shape[0] else -1, -1)


def ref_greedy_rows(obs: np.ndarray, env: np.ndarray, cards: np.ndarray, feat: np.ndarray,
                    n: int) -> np.ndarray:
    hand = obs[:, _HAND]
    own = hand.sum(1)
    size = feat[:, 5].astype(np.int64)
    top = feat[:, 1].astype(np.int64)
    wilds = feat[:, 6].astype(np.int64)
    bomb = feat[:, 0] >= _FIRST_BOMB
    empties = size == own[env]
    broken = ((cards > 0) & (hand[env] >= 4)).any(1)
    clean = (wilds == 0) & ~broken
    plain = ~bomb
    zeros = np.zeros_like(size)
    big = 1 << 20
    bomb_key = [feat[:, 4].astype(np.int64), size, top, wilds]
    leading = obs[:, _LEADING] > 0
    lead = _first_per_env(env, [np.where(plain, 0, 1), -clean.astype(np.int64) * plain,
                                -size * plain, top * plain + np.where(plain, zeros, big)]
                          + [np.where(plain, zeros, k) for k in bomb_key], n)
    ans_clean = _first_among(plain & clean, env, [top], n)
    ans_plain = _first_among(plain, env, [top, wilds], n)
    ans_bomb = _first_among(bomb, env, bomb_key, n)
    left = obs[:, _LEFT]
    opp_min = np.where(left[:, [1, 3]] > 0, left[:, [1, 3]], 99).min(1)
    short = (opp_min <= 6) | (own <= 6)
    answer = np.where(ans_clean >= 0, ans_clean,
                      np.where(short, np.where(ans_plain >= 0, ans_plain, ans_bomb), -1))
    answer = np.where(obs[:, _OWNER.start + 2] > 0, -1, answer)
    choice = np.where(leading, lead, answer)
    out_now = _first_among(empties, env, [size], n)
    return np.where(out_now >= 0, out_now, choice)


def _shape(rest: np.ndarray) -> np.ndarray:
    nat = rest[:, :13]
    return np.stack([(nat == 1).sum(1), (nat == 2).sum(1), (nat == 3).sum(1), (nat >= 4).sum(1),
                     rest[:, 13:].sum(1), rest.sum(1)], axis=1).astype(np.float32)


def _one_hot_rows(choice: np.ndarray, pass_row: np.ndarray, rows: int) -> np.ndarray:
    out = np.zeros(rows, np.float32)
    has = choice >= 0
    out[choice[has]] = 1
    out[pass_row[~has & (pass_row >= 0)]] = 1
    return out


def ref_features(obs: np.ndarray, offsets: np.ndarray, cards: np.ndarray, feat: np.ndarray,
                 can_pass: np.ndarray, rules: Rules, judgement: learned.Judgement,
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = obs.shape[0]
    counts = np.diff(offsets)
    env_play = np.repeat(np.arange(n), counts)
    env_pass = np.flatnonzero(can_pass)
    m, k = env_play.shape[0], env_pass.shape[0]
    env = np.concatenate([env_play, env_pass])
    greedy = ref_greedy_rows(obs, env_play, cards, feat, n)
    hand = obs[:, _HAND]
    partner = obs[:, _PARTNER]
    unseen = _DECK - hand - partner - obs[:, _PLAYED].reshape(n, 4, 15).sum(1)
    left = obs[:, _LEFT]
    reading = obs[:, _READING]
    table_kind = np.eye(N_KINDS, dtype=np.float32)[np.where(reading[:, 0] > 0,
                                                              reading[:, 0] - 1, _PASS_KIND)
                                                     .astype(np.int64)]
    preset = np.zeros((n, len(PRESETS)), np.float32)
    preset[:, list(PRESETS).index(rules.name) if rules.name in PRESETS else 0] = 1
    state = np.concatenate([
        hand / 8, partner / 8, unseen / 8, left / 27, (obs[:, _PLACE] > 0), obs[:, [_LEADING]],
        obs[:, _OWNER], obs[:, [_PASSES]] / 3, table_kind, reading[:, [1]] / 14,
        reading[:, [5]] / 27, preset, judgement.plays_left[:, None] / 10,
        judgement.judged[:, None]], axis=1).astype(np.float32)
    c = np.zeros((m + k, 15), np.float32)
    c[:m] = cards
    rest = hand[env] - c
    kind = np.full(m + k, _PASS_KIND)
    kind[:m] = feat[:, 0]
    f = np.zeros((m + k, 4), np.float32)
    f[:m] = feat[:, [1, 4, 5, 6]] / np.array([14, 16, 27, 4], np.float32)
    flags = np.zeros((m + k, 3), np.float32)
    flags[:m, 0] = feat[:, 0] >= _FIRST_BOMB
    flags[:m, 1] = feat[:, 5] == hand.sum(1)[env_play]
    pass_row = np.full(n, -1, np.int64)
    pass_row[env_pass] = m + np.arange(k)
    flags[:, 2] = _one_hot_rows(greedy, pass_row, m + k)
    shape = _shape(rest) / np.array([13, 13, 13, 6, 4, 27], np.float32)
    damage = np.zeros((m + k, 1), np.float32)
    damage[:m, 0] = np.clip(judgement.damage, -1, 4) / 4
    hint = _one_hot_rows(judgement.choice, pass_row, m + k)[:, None]
    x = np.concatenate([state[env], c / 8, rest / 8, np.eye(N_KINDS, dtype=np.float32)[kind], f,
                        flags, shape, damage, hint], axis=1)
    is_pass = np.zeros(m + k, bool)
    is_pass[m:] = True
    return x.astype(np.float32, copy=False), env, is_pass


def ref_judge(views: list[Any], plays: list[list[Any]], heuristic: Any,
              rng: Any) -> learned.Judgement:
    """Every decision judged by ``heuristic.assess``, except that a hand it does not judge
    is played in Python by its rule (going out, the most stars first; else
    ``sim.greedy_policy``) rather than the C greedy ``assess`` calls."""
    damage: list[float] = []
    n = len(views)
    choice = np.full(n, -1, np.int64)
    plays_left = np.zeros(n, np.float32)
    judged = np.zeros(n, bool)
    start = 0
    for i, (view, ps) in enumerate(zip(views, plays)):
        if heuristic.judges(view.hand):
            pick, dmg, left = heuristic.assess(view, ps, rng)
        else:
            out = [p for p in ps if p.packed == view.hand.packed]
            pick = (max(out, key=lambda q: (q.stars, q.is_bomb)) if out else
                    greedy_policy(view, ps, rng))
            dmg, left = None, 0
        if pick is not None:
            choice[i] = start + ps.index(pick)
        start += len(ps)
        if dmg is None:
            damage.extend([0.0] * len(ps))
        else:
            judged[i] = True
            plays_left[i] = left
            damage.extend(d / learned._UNIT for d in dmg)
    return learned.Judgement(np.array(damage, np.float32), choice, plays_left, judged)


def ref_table_features(views: list[Any], plays: list[list[Any]], rules: Rules, heuristic: Any,
                       rng: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    obs = np.stack([learned.view_observation(v) for v in views])
    arrays = [ref_play_arrays(ps) for ps in plays]
    cards = np.concatenate([a[0] for a in arrays])
    feat = np.concatenate([a[1] for a in arrays])
    offsets = np.concatenate([[0], np.cumsum([len(ps) for ps in plays])]).astype(np.int64)
    can_pass = np.array([v.table is not None for v in views])
    return ref_features(obs, offsets, cards, feat, can_pass, rules,
                        ref_judge(views, plays, heuristic, rng))


def ref_q(net: learned.MLP, x: np.ndarray) -> np.ndarray:
    """The network as it computed before (slices concatenated, then the bias, then relu)."""
    h = x
    for i, (w, b) in enumerate(zip(net.w, net.b)):
        limit = learned.ONE_THREAD_MATVEC if w.shape[1] == 1 else learned.ONE_THREAD_MACS
        rows = max(1, limit // (w.shape[0] * w.shape[1]))
        h = (h @ w if h.shape[0] <= rows else
             np.concatenate([h[j:j + rows] @ w for j in range(0, h.shape[0], rows)])) + b
        if i < len(net.w) - 1:
            h = np.maximum(h, 0)
    return h[:, 0]


def ref_choose(bot: Any, view: Any, plays: list[Any], rng: Any) -> tuple[Any, Any]:
    """``LearnedBot.choose`` on the reference path."""
    every = list(plays)
    plays = learned.shortlist(every, bot.max_plays)
    if not plays:
        return None, None
    x, env, is_pass = ref_table_features([view], [plays], bot.rules, bot.heuristic, rng)
    score = ref_q(bot.net, x) + bot.net.bonus * x[:, learned.HEURISTIC_COLUMN]
    row = int(_first_per_env(env, [-score], 1)[0])
    hint = None
    if plays is every:
        hinted = np.flatnonzero(x[:, learned.HEURISTIC_COLUMN])
        hint = (None if not hinted.size or is_pass[hinted[0]] else plays[hinted[0]],)
    return None if is_pass[row] else plays[row], hint


# -- the checks --------------------------------------------------------------------------------
def _decisions(preset: str, deals: int, seed: int) -> list[tuple[Any, list[Any]]]:
    """Every decision of ``deals`` deals, moves by ``fast`` with one in five random (so that
    positions stray from one bot's habits): ``(view, fewest-wilds plays)``, each view of its
    own copy of the position (a view reads its state live)."""
    bot = bots.make("fast", preset)
    rng = SplitMix64(seed)
    out = []
    for i in range(deals):
        st = State.deal(preset, deal_seed(seed, i))
        while st.to_act is not None:
            view, plays = st.copy().view(st.to_act), list(st.legal("fewest"))
            out.append((view, plays))
            if rng.bounded(5) == 0:
                k = rng.bounded(len(plays) + (view.table is not None))
                move = plays[k] if k < len(plays) else None
            else:
                move = bot(view, plays, rng)
            st.pass_() if move is None else st.play(move)
    return out


@pytest.mark.parametrize("preset", PRESETS)
def test_rows_and_choices_equal_the_numpy_reference(preset: str) -> None:
    """At every decision of six deals: the feature rows bit for bit, the network's values
    bit for bit and the learned bot's choice (and the hint the guards reuse) as on the numpy
    path; then all those decisions encoded as one batch (training's call) equal too."""
    bot = bots.make("learned", preset)
    rules = bot.rules
    decisions = _decisions(preset, 6, 7)
    assert len(decisions) > 300
    unjudged = answering = 0
    for view, plays in decisions:
        got = learned.table_features([view], [plays], rules, bot.heuristic, SplitMix64(1))
        ref = ref_table_features([view], [plays], rules, bot.heuristic, SplitMix64(1))
        for a, b in zip(got, ref):
            assert a.dtype == b.dtype and np.array_equal(a, b), (preset, str(view.hand))
        assert np.array_equal(bot.net.score(got[0]), ref_q(bot.net, ref[0]) + bot.net.bonus
                              * ref[0][:, learned.HEURISTIC_COLUMN])
        assert bot.choose(view, plays, SplitMix64(1)) == ref_choose(bot, view, plays,
                                                                   SplitMix64(1))
        unjudged += not bot.heuristic.judges(view.hand)
        answering += view.table is not None
    assert answering > 50 and (preset == "classic" or unjudged > 10)
    views = [v for v, _ in decisions]
    lists = [p for _, p in decisions]
    got = learned.table_features(views, lists, rules, bot.heuristic, SplitMix64(1))
    ref = ref_table_features(views, lists, rules, bot.heuristic, SplitMix64(1))
    for a, b in zip(got, ref):
        assert np.array_equal(a, b)
    obs = np.stack([learned.view_observation(v) for v in views])
    env = np.repeat(np.arange(len(views)), [len(p) for p in lists])
    cards, feat = ref_play_arrays([p for ps in lists for p in ps])
    assert np.array_equal(learned.greedy_rows(obs, env, cards, feat, len(views)),
                          ref_greedy_rows(obs, env, cards, feat, len(views)))


def test_the_largest_decisions_equal_the_reference() -> None:
    """The benchmark's largest leads (bench_bots.py --instructions) in every preset, and the
    same hand answering a single and a pair."""
    from shuangkou import Hand, Play

    for preset in PRESETS:
        rules = Rules.preset(preset)
        bot = bots.make("learned", rules)
        for text in ("3 4 5 6 7 7 7 8 8 8 8 9 9 9 9 10 10 10 J J J Q K SJ SJ BJ BJ",
                     "3 3 4 4 5 5 6 6 7 7 8 8 9 9 10 10 J J Q Q K K A SJ SJ BJ BJ"):
            hands: list[Any] = [Hand.parse(text), "3", "3", "3"]
            for table in (None, "3", "4 4"):
                st = (State.from_position(rules, hands, 0) if table is None else
                      State.from_position(rules, hands, 0, table=Play.parse(table, rules),
                                          table_owner=3))
                view, plays = st.view(0), list(st.legal("fewest"))
                assert bot.choose(view, plays, SplitMix64(1)) == ref_choose(
                    bot, view, plays, SplitMix64(1)), (preset, text, table)


def test_kernel_refuses_rows_it_would_write_out_of_bounds() -> None:
    """Every index the C rows write is checked first: a clear ValueError, nothing written."""
    rules = Rules.preset("classic")
    st = State.deal(rules, deal_seed(1, 0))
    view, plays = st.view(st.to_act), list(st.legal("fewest"))
    obs = learned.view_observation(view)[None]
    cards, feat = learned.play_arrays(plays)
    m = len(plays)
    ok: dict[str, Any] = dict(obs=obs, offsets=np.array([0, m]), cards=cards, feat=feat,
                              can_pass=np.array([False]), preset=0,
                              damage=np.zeros(m, np.float32), choice=np.array([0]),
                              plays_left=np.zeros(1, np.float32), judged=np.array([False]))
    x, env, is_pass = _learned.encode(**ok)
    assert x.shape == (m, learned.DIM) and not is_pass.any()
    bad: list[tuple[str, Any, str]] = [
        ("offsets", np.array([0, m + 1]), "offsets must run from 0"),
        ("offsets", np.array([1, m]), "offsets must run from 0"),
        ("choice", np.array([m]), r"choice\[0\] must be one of the rows 0\.\."),
        ("damage", np.zeros(m - 1, np.float32), "damage must hold"),
        ("preset", 4, "preset must be a column 0..3"),
        ("cards", cards[:-1], "cards and feat must be"),
        ("obs", obs[:, :100], "obs must be"),
    ]
    for key, value, message in bad:
        with pytest.raises(ValueError, match=message):
            _learned.encode(**{**ok, key: value})
    with pytest.raises(ValueError, match="must not decrease"):
        _learned.encode(**{**ok, "obs": np.repeat(obs, 2, 0), "offsets": np.array([0, m + 1, m]),
                           "can_pass": np.zeros(2, bool), "choice": np.array([-1, -1]),
                           "plays_left": np.zeros(2, np.float32), "judged": np.zeros(2, bool)})
    with pytest.raises(ValueError, match=r"env\[0\] must be an observation 0\.\.0"):
        learned.greedy_rows(obs, np.full(m, 1), cards, feat, 1)
    for read in (learned.play_arrays, _learned.play_words):
        with pytest.raises(TypeError):
            read([plays[0], "3"])
    words, tags = _learned.play_words(plays)
    assert words.tolist() == [p.packed for p in plays] and tags.tolist() == [p.tag for p in plays]
    assert _learned.DIMS == (learned.STATE_DIM, learned.PLAY_DIM)
