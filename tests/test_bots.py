"""shuangkou.bots, shuangkou.learned and the arena (issue #21; docs/bots.md)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from shuangkou import Game, Hand, Rules, State, bots, learned, simulate
from shuangkou.arena import duel, elo, parse_bot
from shuangkou.batch import OBS_OFFSETS, observation
from shuangkou.cli import main
from shuangkou.plays import Kind, Play
from shuangkou.rl import VecEnv
from shuangkou.rng import SplitMix64
from shuangkou.rules import PRESETS
from shuangkou.sim import greedy_policy, play_deal

FAST = ("random", "greedy", "heuristic", "learned", "default")


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("name", FAST)
def test_every_bot_plays_legal_deals_in_every_preset(preset: str, name: str) -> None:
    """simulate plays each decision on the State, which refuses an illegal play or a pass on a
    lead (R4): a full run is the legality check. The bot holds every seat, then one team."""
    bot = bots.make(name, preset)
    assert bot.name == name and bot.rules == Rules.preset(preset)
    res = simulate(4, preset, bot, seed=3)
    assert len(res) == 4 and (res.cards_left.sum(1) >= 0).all()
    res = simulate(4, preset, (bot, "greedy"), seed=4)
    assert (np.sort(res.places, 1) == np.arange(4)).all()


@pytest.mark.parametrize("preset", PRESETS)
def test_pimc_bot_plays_legal_deals(preset: str) -> None:
    bot = bots.make("pimc", preset, worlds=2, max_nodes=50)
    res = simulate(1, preset, (bot, "greedy"), seed=5)
    assert len(res) == 1


def test_pimc_takes_a_bot_object_as_its_fallback() -> None:
    """``pimc``'s fallback may be a bot object (a user's network under the guards, say): it
    plays as the fallback named by string does, and one made for other rules is refused."""
    named = bots.make("pimc", "baibian", worlds=2, max_nodes=50, fallback="heuristic")
    given = bots.make("pimc", "baibian", worlds=2, max_nodes=50,
                      fallback=bots.make("heuristic", "baibian"))
    a = simulate(2, "baibian", (named, "greedy"), seed=8).arrays
    b = simulate(2, "baibian", (given, "greedy"), seed=8).arrays
    assert all(np.array_equal(a[k], b[k]) for k in a)
    with pytest.raises(ValueError, match="made for"):
        bots.make("pimc", "baibian", fallback=bots.make("heuristic", "classic"))


def test_pimc_takes_a_fallback_named_with_its_options() -> None:
    """``fallback="fast:guards=overtake+bombs"`` (a name with options, as a spec names a bot:
    classic's default) plays as that bot made with those options, differs from the bot
    without them, and a bad option is refused naming it."""
    kw = {"worlds": 2, "max_nodes": 50, "tt_bits": 12}
    named = bots.make("pimc", "classic", fallback="fast:guards=overtake+bombs", **kw)
    given = bots.make("pimc", "classic", fallback=bots.make("fast", "classic",
                                                            guards="overtake+bombs"), **kw)
    plain = bots.make("pimc", "classic", fallback="fast", **kw)
    a = simulate(8, "classic", (named, "greedy"), seed=8).arrays
    b = simulate(8, "classic", (given, "greedy"), seed=8).arrays
    c = simulate(8, "classic", (plain, "greedy"), seed=8).arrays
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not all(np.array_equal(a[k], c[k]) for k in a)
    with pytest.raises(ValueError, match="guard 'nope'"):
        bots.make("pimc", "classic", fallback="fast:guards=nope")


@pytest.mark.parametrize("preset", PRESETS)
def test_default_is_the_bot_default_names(preset: str) -> None:
    """``make("default")`` plays deal for deal as the bot ``bots.DEFAULT`` names for the preset,
    with its options; options given to ``make`` override them; other rules get learned. The
    time stop is lifted on both sides (a loaded machine could cut one side's search short)."""
    name, options = bots.DEFAULT[preset]
    untimed = {"seconds": None} if "seconds" in options else {}
    a = simulate(2, preset, (bots.make("default", preset, **untimed), "greedy"), seed=6).arrays
    b = simulate(2, preset, (bots.make(name, preset, **{**options, **untimed}), "greedy"),
                 seed=6).arrays
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    assert isinstance(bots.make("default", Rules.preset(preset).replace(name="house")),
                      bots.LearnedBot)


def test_the_midgame_bot_is_legal_reproducible_and_refuses_other_rules() -> None:
    """``pimc`` with the midgame search (issue #32 item 3; ``DEFAULT``'s where it ships):
    every decision is legal (``simulate``'s State refuses an illegal play), one object plays
    the same deals for a seed twice (its midgame table is fresh each decision: depth-limited
    values depend on what a table holds), and a position of other rules is refused."""
    from shuangkou.errors import ArgumentError

    bot = bots.make("pimc", "baibian", fallback="fast", tt_bits=12, max_nodes=2000,
                    mid_worlds=4, mid_nodes=500, margin=20, shortlist=3)
    a = simulate(2, "baibian", (bot, "greedy"), seed=7).arrays
    b = simulate(2, "baibian", (bot, "greedy"), seed=7).arrays
    assert all(np.array_equal(a[k], b[k]) for k in a)
    g = Game(Rules.preset("jj"), seed=2)
    with pytest.raises(ArgumentError, match="made for baibian rules"):
        bot(g.view(g.first_leader), g.legal_plays(bot.wilds), SplitMix64(1))
    with pytest.raises(ArgumentError, match="midgame's worlds"):
        bots.make("pimc", "baibian", fallback="fast", mid_worlds=-1)
    with pytest.raises(ArgumentError, match="mid_cards"):
        bots.make("pimc", "baibian", fallback="fast", mid_worlds=4, mid_cards=109)


def test_a_decision_does_not_depend_on_the_decisions_before_it() -> None:
    """One ``pimc`` object plays seeded deals the same the second time: each decision empties
    its thread's exact searcher first, whose table and memos, warm from the decisions before,
    would decide which worlds finish within ``max_nodes`` (here the third deal took 117
    decisions instead of 115 the second time before they were emptied)."""
    bot = bots.make("pimc", "jj", fallback="fast", tt_bits=12, max_nodes=2000, mid_worlds=4)
    a = simulate(3, "jj", (bot, "greedy"), seed=9).arrays
    b = simulate(3, "jj", (bot, "greedy"), seed=9).arrays
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_mid_cards_holds_the_midgame_search_back() -> None:
    """``mid_cards=0``: the midgame never searches, so the bot plays as the one without it;
    ``mid_cards=108`` (every decision) plays as the midgame bot, which differs here."""
    kw = {"fallback": "fast", "tt_bits": 12, "max_nodes": 2000, "mid_nodes": 500,
          "margin": 0, "shortlist": 3}
    runs = {key: simulate(3, "jj", (bots.make("pimc", "jj", **kw, **extra), "greedy"),
                          seed=9).arrays
            for key, extra in [("off", {}), ("none", {"mid_worlds": 4, "mid_cards": 0}),
                               ("all", {"mid_worlds": 4, "mid_cards": 108}),
                               ("on", {"mid_worlds": 4})]}

    def same(x: str, y: str) -> bool:
        return all(np.array_equal(runs[x][k], runs[y][k]) for k in runs[x])
    assert same("off", "none") and same("all", "on") and not same("off", "on")


def test_a_bot_is_a_policy_for_play_deal_and_a_server_table() -> None:
    """The server's bot seat calls ``policy(game.view(seat), game.legal_plays(wilds), rng)``."""
    bot = bots.make("default", "baibian")
    game, row = play_deal("baibian", 9, (bot, "greedy"))
    assert game.is_over and row["decisions"] > 0
    g = Game(Rules.preset("jj"), seed=2)
    bot = bots.make("default", "jj")  # a baibian bot refuses a jj position (R3, R6)
    choice = bot(g.view(g.to_act), g.legal_plays(bot.wilds), SplitMix64(1))
    assert choice in g.legal_plays(bot.wilds)


def test_kernel_bots_run_in_the_kernel_everywhere() -> None:
    greedy = bots.make("greedy", "baibian")
    assert greedy.kernel == "greedy" and bots.make("heuristic", "baibian").kernel is None
    assert simulate(50, "baibian", greedy, seed=1) == simulate(50, "baibian", "greedy", seed=1)
    a = VecEnv("baibian", 8, opponents={1: greedy, 3: bots.make("random", "baibian")})
    b = VecEnv("baibian", 8, opponents={1: "greedy", 3: "random"})
    sa, sb = a.reset(3), b.reset(3)
    assert np.array_equal(sa.obs, sb.obs)
    with pytest.raises(ValueError, match="opponent policy"):
        VecEnv("baibian", 2, opponents={1: bots.make("heuristic", "baibian")})


def test_make_refuses_bad_names_and_options() -> None:
    with pytest.raises(ValueError, match="unknown bot 'best'"):
        bots.make("best", "baibian")
    with pytest.raises(TypeError, match="bot 'greedy'"):
        bots.make("greedy", "baibian", worlds=3)
    with pytest.raises(TypeError, match="bot 'learned'"):
        bots.make("learned", "baibian", wilds="all")  # it reads the fewest-wilds list only
    with pytest.raises(ValueError):
        bots.make("greedy", "no-such-preset")


def test_heuristic_never_beats_its_partner_and_goes_out_when_it_can() -> None:
    from shuangkou import State

    rules = Rules.preset("classic")
    bot = bots.make("heuristic", rules)
    # seat 0 answers its partner's (seat 2) 7 with a hand that could beat it: it passes
    st = State.parse("classic 3459/6/7/8 0 7@2 1 - -/-/-/- -", rules)
    plays = st.legal("fewest")
    assert len(plays) and bot(st.view(0), plays, SplitMix64(1)) is None
    # over an opponent's play it goes out when one play empties its hand
    st = State.parse("classic 99/3456/7/8 0 55@1 2 - -/-/-/- -", rules)
    choice = bot(st.view(0), st.legal("fewest"), SplitMix64(1))
    assert choice is not None and choice.cards == Hand.parse("9 9")


def test_heuristic_leads_for_a_partner_with_one_card() -> None:
    """Partner on one card (and visible under 双明 in no preset here): lead the smallest
    single, which he can beat, rather than the hand's best split play."""
    from shuangkou import State

    rules = Rules.preset("classic")
    st = State.parse("classic 3399JQK/45678/A/6789 0 - 0 - -/-/-/- -", rules)
    choice = bots.make("heuristic", rules)(st.view(0), st.legal("fewest"), SplitMix64(1))
    assert choice is not None and choice.kind == Kind.SINGLE and choice.cards == Hand.parse("3")


# -- the learned policy ------------------------------------------------------------------------
def test_shipped_weights_load_with_their_provenance() -> None:
    nets = learned.load()
    assert "baibian" in nets
    for net in nets.values():
        assert net.w[0].shape[0] == learned.DIM
    meta = learned.metadata()
    for preset, m in meta.items():
        assert "train_dmc.py" in m["command"] and m["seed"].isdigit(), preset


def test_the_baseline_keeps_the_weights_of_its_build() -> None:
    """``default-2026.12`` is cb258c5's default: in 百变, JJ and 千变 its fallback is the
    learned bot of that build's weights, packaged frozen (learned.BASELINE_WEIGHTS_FILE: the
    file is byte for byte cb258c5's ``learned_weights.npz``, whose SHA-256 is
    ``git show cb258c5:src/shuangkou/learned_weights.npz | sha256sum``). Before the endgame
    (more than 32 cards left) the baseline plays its fallback's move: the frozen network's,
    which differs from the shipped network's at some decisions (the JJ network was trained on),
    so the test fails if the baseline read the shipped weights."""
    import hashlib

    with pytest.raises(ValueError, match="packaged weights are"):
        learned.packaged("weights.npz")
    frozen = learned.packaged(learned.BASELINE_WEIGHTS_FILE)
    assert hashlib.sha256(frozen.read_bytes()).hexdigest() == (
        "10a9deecc59eb80905d7af62ecdfdeea72502c6dd5383d8003a89816f6495b40")
    rules = Rules.preset("jj")
    base = bots.make(bots.BASELINE, rules)
    old = bots.make("learned", rules, weights=frozen)
    new = bots.make("learned", rules)
    differ = 0
    for seed in range(6):
        state = State.deal(rules, seed)
        while sum(state.card_counts) > 32:
            view = state.view(state.to_act)
            plays = view.legal("fewest")
            choice = base(view, plays, SplitMix64(1))
            assert choice == old(view, plays, SplitMix64(1))
            differ += choice != new(view, plays, SplitMix64(1))
            state.play(choice) if choice is not None else state.pass_()
    assert differ > 0


def test_view_observation_matches_the_reference_encoder() -> None:
    """The fields the learned bot reads, written from a seat's view, equal the reference
    encoder's (batch.observation, which VecEnv's C encoder is tested against)."""
    used = ("hand", "partner_hand", "partner_visible", "cards_left", "played", "place",
            "leading", "table_reading", "table_owner", "passes")
    for preset, seed in (("baibian", 1), ("qianbian", 2), ("classic", 3)):
        game = Game(Rules.preset(preset), seed=seed)
        rng = SplitMix64(seed)
        checked = 0
        while not game.is_over:
            seat = game.to_act
            mine = learned.view_observation(game.view(seat))
            ref = observation(game, seat)
            for name, size in ((n, s) for n, s in _fields() if n in used):
                o = OBS_OFFSETS[name]
                assert np.array_equal(mine[o:o + size], ref[o:o + size]), (preset, name)
            checked += 1
            choice = greedy_policy(game.view(seat), game.legal_plays("fewest"), rng)
            game.play(choice) if choice else game.pass_()
        assert checked > 20


def _fields() -> list[tuple[str, int]]:
    from shuangkou.batch import OBS_FIELDS

    return list(OBS_FIELDS)


def test_greedy_feature_is_greedys_choice_in_classic() -> None:
    """In classic (no wilds) the vectorised greedy of the features picks greedy_policy's play
    at every decision where greedy plays no bomb (bombs are ordered approximately there)."""
    rules = Rules.preset("classic")
    agree = total = 0
    for seed in range(6):
        game = Game(rules, seed=seed)
        rng = SplitMix64(seed)
        while not game.is_over:
            view = game.view(game.to_act)
            plays = list(game.legal_plays("fewest"))
            choice = greedy_policy(view, plays, SplitMix64(0))
            if choice is None or not choice.is_bomb:
                x, env, is_pass = _features(view, plays, rules)
                flagged = np.flatnonzero(x[:, learned.GREEDY_COLUMN] > 0)
                assert len(flagged) == 1
                row = int(flagged[0])
                mine = None if is_pass[row] else plays[row]
                assert mine == choice
                agree += 1
            total += 1
            move = greedy_policy(view, plays, rng)
            game.play(move) if move else game.pass_()
    assert agree > 0.9 * total


def _features(view: object, plays: list, rules: Rules) -> tuple:
    return learned.table_features([view], [plays], rules, bots.make("heuristic", rules),
                                  SplitMix64(0))


def _one_weight_bundle(path: object, column: int) -> None:
    """Weights whose network scores a candidate by one feature column alone."""
    import pathlib

    d = pathlib.Path(str(path))
    net = learned.MLP([np.zeros((learned.DIM, 1), np.float32), np.ones((1, 1), np.float32)],
                      [np.zeros(1, np.float32), np.zeros(1, np.float32)])
    net.w[0][column, 0] = 1
    net.save(d / "one.npz", presets=",".join(PRESETS), seed=0, command="examples/train_dmc.py")
    learned.bundle([d / "one.npz"], d / "bundle.npz")


@pytest.mark.parametrize("preset", PRESETS)
def test_heuristic_hint_is_the_heuristics_play(preset: str, tmp_path: object) -> None:
    """A network weighing only the heuristic column plays exactly as the heuristic bot: the
    column marks its choice (play or pass) at every decision, in every preset."""
    import pathlib

    _one_weight_bundle(tmp_path, learned.HEURISTIC_COLUMN)
    bot = bots.make("learned", preset, weights=pathlib.Path(str(tmp_path)) / "bundle.npz")
    mine = simulate(6, preset, (bot, "greedy"), seed=11)
    ref = simulate(6, preset, (bots.make("heuristic", preset), "greedy"), seed=11)
    assert np.array_equal(mine.units, ref.units) and np.array_equal(mine.places, ref.places)
    assert np.array_equal(mine.decisions, ref.decisions)


def test_damage_feature_is_the_heuristics_measure() -> None:
    """The damage column is ``solve._breaks`` / UNIT (clipped to [-1, 4], over 4) on a judged
    hand, 0 on a hand the heuristic plays by greedy's rules; the hand's 手数 beside it."""
    from shuangkou import State, _solve
    from shuangkou.solve import _breaks

    rules = Rules.preset("classic")
    st = State.parse("classic 3334445567899JQQKA/6/7/8 0 - 0 - -/-/-/- -", rules)
    view, plays = st.view(0), list(st.legal("fewest"))
    x, env, is_pass = _features(view, plays, rules)
    ref = np.clip(np.array(_breaks(view.hand, plays, rules)) / _solve.UNIT, -1, 4) / 4
    assert np.allclose(x[:len(plays), learned.HEURISTIC_COLUMN - 1], ref)
    assert len(set(ref)) > 2  # the hand has plays that break its split and plays that do not
    # a 百变 hand with two wild jokers is not judged: damage 0, the "judged" flag 0
    bb = Rules.preset("baibian")
    st = State.parse("baibian 3334445567899JQQKA2XD/6/7/8 0 - 0 - -/-/-/- -", bb)
    view, plays = st.view(0), list(st.legal("fewest"))
    x, _, _ = _features(view, plays, bb)
    assert (x[:, learned.HEURISTIC_COLUMN - 1] == 0).all()
    assert (x[:, learned.STATE_DIM - 1] == 0).all()


# -- the learned bot's bound (docs/bots.md, "The learned bot's time") -------------------------
LARGEST_FEWEST = "3 4 5 6 7 7 7 8 8 8 8 9 9 9 9 10 10 10 J J J Q K SJ SJ BJ BJ"
MOST_PLAYS = "3 3 4 4 5 5 6 6 7 7 8 8 9 9 10 10 J J Q Q K K A SJ SJ BJ BJ"


def test_shortlist_of_the_all_list_is_the_fewest_list() -> None:
    """Past its cap, shortlist keeps one play per reading, the fewest wilds and then the lowest
    cards: the kernel's ``wilds="fewest"`` list of the same position, play for play."""
    from shuangkou.game import _State
    from shuangkou.rng import deal_seed

    wider = 0
    for preset in ("baibian", "jj", "qianbian"):
        rules = Rules.preset(preset)
        for i in range(3):
            st = _State.deal(rules, deal_seed(5, i))
            while st.to_act is not None:
                every, fewest = list(st.legal("all")), list(st.legal("fewest"))
                if len(every) > len(fewest):
                    wider += 1
                    got = learned.shortlist(every, max(len(fewest), 1))
                    assert sorted((p.packed, p.tag) for p in got) == sorted(
                        (p.packed, p.tag) for p in fewest), (preset, str(st.view(st.to_act).hand))
                assert learned.shortlist(every, len(every)) is every  # within the cap: as is
                move = greedy_policy(st.view(st.to_act), fewest, SplitMix64(i))
                st.pass_() if move is None else st.play(move)
    assert wider > 30  # positions where the all list holds more plays than the fewest one


def test_learned_bot_scores_at_most_max_plays(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bound: handed the 24,182 plays of the hand with the most legal plays, the learned
    bot featurises that hand's fewest-wilds list (186 plays) and decides as it does on that
    list; with ``max_plays=50``, 50 plays of the fewest wilds, lowest tops. The largest known
    fewest lists fit the default cap, so at a table the bound drops no play."""
    from shuangkou import State

    rules = Rules.preset("qianbian")
    seen: list[int] = []
    real = bots.table_features

    def spy(views: list, plays: list, *rest: object) -> tuple:
        seen.append(len(plays[0]))
        return real(views, plays, *rest)

    monkeypatch.setattr(bots, "table_features", spy)
    bot = bots.make("learned", rules)
    assert bot.max_plays == 240
    st = State.from_position(rules, [Hand.parse(MOST_PLAYS), "3", "3", "3"], 0)
    every, fewest = st.legal("all"), st.legal("fewest")
    assert (len(every), len(fewest)) == (24_182, 186)
    view = st.view(0)
    assert bot(view, every, SplitMix64(1)) == bot(view, fewest, SplitMix64(1))
    assert seen == [186, 186]
    small = bots.make("learned", rules, max_plays=50)
    choice = small(view, every, SplitMix64(1))
    assert seen[-1] == 50 and choice in list(fewest)
    kept = learned.shortlist(list(every), 50)
    assert len(kept) == 50 and max(p.wilds for p in kept) <= min(
        p.wilds for p in fewest if p not in kept)
    for text in (LARGEST_FEWEST, MOST_PLAYS):
        for table in (None, "3", "4 4"):
            hands: list[Hand | str] = [Hand.parse(text), "3", "3", "3"]
            pos = (State.from_position(rules, hands, 0) if table is None else
                   State.from_position(rules, hands, 0, table=Play.parse(table, rules),
                                       table_owner=3))
            assert len(pos.legal("fewest")) < bot.max_plays
    assert len(State.from_position(rules, [Hand.parse(LARGEST_FEWEST), "3", "3", "3"], 0)
               .legal("fewest")) == 203
    with pytest.raises(ValueError, match="max_plays must be a positive int, not 0"):
        bots.make("learned", rules, max_plays=0)


class _Spied(np.ndarray):
    """A weight matrix that logs each product taken with it: (rows, its rows, its columns)."""

    log: list[tuple[int, int, int]] = []

    def __rmatmul__(self, h: np.ndarray) -> np.ndarray:
        _Spied.log.append((h.shape[0], *self.shape))
        return np.asarray(h) @ np.asarray(self)


def test_learned_bot_products_stay_on_blas_one_thread() -> None:
    """The network's work on the largest decision known (203 plays, 千变): each layer's
    product handed to BLAS in as few slices of rows as fit :data:`learned.ONE_THREAD_MACS`
    multiply-adds (:data:`learned.ONE_THREAD_MATVEC` for the one-output layer) — what
    OpenBLAS runs on the calling thread; its threads cost milliseconds of CPU time on a busy
    machine — the slices covering every row once, the values those of the whole products."""
    from shuangkou import State

    rules = Rules.preset("qianbian")
    bot = bots.make("learned", rules)
    net = bot.net
    bot.net = learned.MLP([w.view(_Spied) for w in net.w], net.b, net.bonus)
    st = State.from_position(rules, [Hand.parse(LARGEST_FEWEST), "3", "3", "3"], 0)
    view, plays = st.view(0), list(st.legal("fewest"))
    _Spied.log.clear()
    choice = bot(view, plays, SplitMix64(1))
    assert len(plays) == 203 and choice in plays
    for w in net.w:
        k, n = w.shape
        bound = learned.ONE_THREAD_MATVEC if n == 1 else learned.ONE_THREAD_MACS
        rows = [r for r, *shape in _Spied.log if tuple(shape) == (k, n)]
        assert sum(rows) == len(plays)  # leading: a row a play, no pass row
        assert max(rows) * k * n <= bound and len(rows) == -(-len(plays) // (bound // (k * n)))
    x, _, _ = learned.table_features([view], [plays], rules, bot.heuristic, SplitMix64(1))
    h = x.astype(np.float64)
    for i, (w, b) in enumerate(zip(net.w, net.b)):
        h = h @ w.astype(np.float64) + b
        h = np.maximum(h, 0) if i < len(net.w) - 1 else h
    assert np.allclose(bot.net.q(x), h[:, 0], rtol=1e-5, atol=1e-5)


def test_bundle_keys_networks_by_preset(tmp_path: object) -> None:
    import pathlib

    d = pathlib.Path(str(tmp_path))
    net = learned.MLP.new((8,), np.random.default_rng(0))
    net.save(d / "a.npz", presets="classic,jj", seed=3, command="examples/train_dmc.py x")
    learned.bundle([d / "a.npz"], d / "b.npz")
    nets = learned.load(d / "b.npz")
    assert sorted(nets) == ["classic", "jj"]
    assert np.array_equal(nets["jj"].w[0], net.w[0])
    assert learned.metadata(d / "b.npz")["classic"]["seed"] == "3"
    bot = bots.make("learned", "qianbian", weights=d / "b.npz")  # no 百变 net: the first one
    assert bot.net.w[0].shape == net.w[0].shape


def test_bundle_stores_each_network_once_with_its_runs_cost(tmp_path: object) -> None:
    """Three runs' files (one of two presets) bundle into one file holding three networks,
    each preset's meta data with its run's CPU minutes from the run's --json record."""
    import pathlib
    import subprocess
    import sys

    d = pathlib.Path(str(tmp_path))
    runs = {"bq": "baibian,qianbian", "c": "classic", "j": "jj"}
    made = {}
    for k, (name, presets) in enumerate(runs.items()):
        made[name] = learned.MLP.new((8,), np.random.default_rng(k))
        made[name].bonus = 0.5 * k
        made[name].save(d / f"{name}.npz", presets=presets, seed=k, command=f"train {name}")
        (d / f"{name}.json").write_text(json.dumps(
            {"cpu_seconds": 600.0 * (k + 1), "minutes": 55, "decisions": 7, "updates": 3}))
    script = pathlib.Path(__file__).parents[1] / "examples" / "train_dmc.py"
    subprocess.run([sys.executable, str(script), "--bundle", *(str(d / f"{n}.npz") for n in runs),
                    "--out", str(d / "all.npz")], check=True)
    with np.load(d / "all.npz") as z:
        assert sum(1 for k in z.files if k.endswith(".w0")) == 3  # 千变 names 百变's network
    nets = learned.load(d / "all.npz")
    assert sorted(nets) == sorted(PRESETS) and nets["qianbian"] is nets["baibian"]
    for name, presets in runs.items():
        for p in presets.split(","):
            assert np.array_equal(nets[p].w[1], made[name].w[1]), p
            assert nets[p].bonus == made[name].bonus
    meta = learned.metadata(d / "all.npz")
    assert meta["qianbian"]["command"] == "train bq" and meta["jj"]["seed"] == "2"
    assert [meta[p]["cpu_minutes"] for p in ("baibian", "qianbian", "classic", "jj")] == [
        "10.0", "10.0", "20.0", "30.0"]


def test_rebundle_replaces_one_network_and_keeps_the_others(tmp_path: object) -> None:
    """``train_dmc.py --bundle SHIPPED NEW`` keeps the shipped file's networks of the presets
    NEW does not train, as they were (weights, bonus, meta data), and takes NEW's for its."""
    import pathlib
    import subprocess
    import sys

    d = pathlib.Path(str(tmp_path))
    old = {}
    for k, presets in enumerate(("baibian,qianbian", "classic", "jj")):
        old[presets] = learned.MLP.new((8,), np.random.default_rng(k))
        old[presets].bonus = 0.1 * k
        old[presets].save(d / f"{k}.npz", presets=presets, seed=k, command=f"run {k}")
    learned.bundle([d / f"{k}.npz" for k in range(3)], d / "shipped.npz",
                   [{"cpu_minutes": 10 * k} for k in range(3)])
    new = learned.MLP.new((8,), np.random.default_rng(9))
    new.bonus = 0.7
    new.save(d / "classic.npz", presets="classic", seed=9, command="run new")
    (d / "classic.json").write_text(json.dumps(
        {"cpu_seconds": 3000.0, "minutes": 52, "decisions": 7, "updates": 3}))
    script = pathlib.Path(__file__).parents[1] / "examples" / "train_dmc.py"
    subprocess.run([sys.executable, str(script), "--bundle", str(d / "shipped.npz"),
                    str(d / "classic.npz"), "--out", str(d / "shipped.npz")], check=True)
    nets, meta = learned.load(d / "shipped.npz"), learned.metadata(d / "shipped.npz")
    assert sorted(nets) == sorted(PRESETS) and nets["qianbian"] is nets["baibian"]
    for preset, net in (("baibian", old["baibian,qianbian"]), ("jj", old["jj"]),
                        ("classic", new)):
        assert all(np.array_equal(a, b) for a, b in zip(nets[preset].w, net.w)), preset
        assert nets[preset].bonus == pytest.approx(net.bonus)
    assert [meta[p]["command"] for p in ("baibian", "qianbian", "classic", "jj")] == [
        "run 0", "run 0", "run new", "run 2"]
    assert [meta[p]["cpu_minutes"] for p in ("baibian", "classic", "jj")] == ["0", "50.0", "20"]
    # a run of one preset of a shared network: the network keeps serving the other
    own = learned.MLP.new((8,), np.random.default_rng(10))
    own.save(d / "qianbian.npz", presets="qianbian", seed=10, command="run qianbian")
    subprocess.run([sys.executable, str(script), "--bundle", str(d / "shipped.npz"),
                    str(d / "qianbian.npz"), "--out", str(d / "shipped.npz")], check=True)
    nets, meta = learned.load(d / "shipped.npz"), learned.metadata(d / "shipped.npz")
    assert sorted(nets) == sorted(PRESETS) and nets["qianbian"] is not nets["baibian"]
    for preset, net in (("baibian", old["baibian,qianbian"]), ("qianbian", own),
                        ("classic", new), ("jj", old["jj"])):
        assert all(np.array_equal(a, b) for a, b in zip(nets[preset].w, net.w)), preset
    assert meta["baibian"]["presets"] == "baibian"
    assert meta["baibian"]["trained_on"] == "baibian,qianbian"
    assert meta["qianbian"]["command"] == "run qianbian"


def _train_dmc() -> object:
    """examples/train_dmc.py as a module (registered first: its dataclasses look it up)."""
    import importlib.util
    import pathlib
    import sys

    if "train_dmc" not in sys.modules:
        path = pathlib.Path(__file__).parents[1] / "examples" / "train_dmc.py"
        spec = importlib.util.spec_from_file_location("train_dmc", path)
        assert spec is not None and spec.loader is not None
        sys.modules["train_dmc"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules["train_dmc"])
    return sys.modules["train_dmc"]


def test_init_refuses_a_bundle_without_the_preset(tmp_path: object, capsys: object) -> None:
    """``train_dmc.py --init NPZ`` starts from NPZ's network of the first preset; a bundle
    without one is refused by name (argparse's exit 2), before any training."""
    import pathlib

    d = pathlib.Path(str(tmp_path))
    learned.MLP.new((8,), np.random.default_rng(0)).save(d / "c.npz", presets="classic",
                                                          seed=0, command="x")
    learned.bundle([d / "c.npz"], d / "b.npz")
    with pytest.raises(SystemExit) as stop:
        _train_dmc().main(["--presets", "jj", "--init", str(d / "b.npz")])  # type: ignore[attr-defined]
    assert stop.value.code == 2
    assert "has no network of 'jj' (it has classic)" in capsys.readouterr().err  # type: ignore[attr-defined]


def test_rollout_is_the_heuristic_playing_the_deal_out() -> None:
    """The rollout targets rest on this: a rollout from a deal's start is the heuristic on
    every seat, as simulate plays it (the same units), and rollouts from one position differ
    only by their first move."""
    from shuangkou.game import _State
    from shuangkou.rng import deal_seed

    t = _train_dmc()
    rules = Rules.preset("classic")
    h = bots.make("heuristic", rules)
    res = simulate(3, rules, h, seed=4)
    for i in range(3):
        units = res.units[i]
        for team in (0, 1):
            got = t.rollout(_State.deal(rules, deal_seed(4, i)), h, SplitMix64(0), team)  # type: ignore[attr-defined]
            assert got == units[team] + units[team + 2]
    st = _State.deal(rules, deal_seed(4, 0))
    a = [t.rollout(st.copy(), h, SplitMix64(k), 0) for k in range(2)]  # type: ignore[attr-defined]
    assert a[0] == a[1] and st.to_act is not None  # the copy was played, not the position


def test_train_dmc_rollout_targets_smoke(tmp_path: object) -> None:
    """A few seconds of --targets rollout (with sampled worlds) trains and writes its record."""
    import pathlib

    t = _train_dmc()
    d = pathlib.Path(str(tmp_path))
    out = t.main(["--presets", "classic", "--targets", "rollout", "--worlds", "2",  # type: ignore[attr-defined]
                  "--alternatives", "2", "--minutes", "0.05", "--tables", "8", "--batch", "16",
                  "--select-pairs", "2", "--curve-pairs", "2", "--eval-pairs", "2",
                  "--bonuses", "0,1", "--out", str(d / "w.npz"), "--json", str(d / "w.json")])
    assert out["targets"] == "rollout" and out["worlds"] == 2 and out["updates"] > 0
    assert out["deals_trained"] > 0 and out["bonus"]["chosen"] in (0.0, 1.0)
    assert learned.MLP.load(d / "w.npz").w[0].shape[0] == learned.DIM


# -- the arena ---------------------------------------------------------------------------------
def test_parse_bot_reads_options() -> None:
    assert parse_bot("pimc:worlds=16,max_nodes=2000,evaluation=rollout") == (
        "pimc", {"worlds": 16, "max_nodes": 2000, "evaluation": "rollout"})
    assert parse_bot("greedy") == ("greedy", {})
    with pytest.raises(ValueError, match="unknown bot"):
        parse_bot("nobody")
    with pytest.raises(ValueError, match="key=value"):
        parse_bot("pimc:worlds")


def test_duel_is_duplicate_and_independent_of_processes() -> None:
    one = duel("greedy", "random", "baibian", 30, seed=2, processes=1, chunk=7)
    two = duel("greedy", "random", "baibian", 30, seed=2, processes=2, chunk=11)
    assert np.array_equal(one.margins, two.margins) and np.array_equal(one.first, two.first)
    # a bot against itself: each pair's two plays are mirror images, every margin is 0
    same = duel("greedy", "greedy", "classic", 20, seed=2, processes=1)
    assert (same.margins.sum(1) == 0).all()
    s = one.summary()
    assert s["pairs"] == 30 and s["margin"] > 0 and s["ci95"][0] < s["margin"] < s["ci95"][1]
    # independent check of the margin: A's team units minus B's, from simulate directly
    res = simulate(30, "baibian", ("greedy", "random"), seed=2)
    u = res.units.astype(np.int64)
    assert np.array_equal(one.margins[:, 0], u[:, 0::2].sum(1) - u[:, 1::2].sum(1))


def test_duel_times_python_bots() -> None:
    r = duel("heuristic", "greedy", "jj", 4, seed=1, processes=1)
    s = r.summary()
    assert s["ms_a"] is not None and s["ms_a"] >= 0 and s["ms_b"] is None
    times = r.timing[0]
    assert times is not None and times.size > 4 * 2 * 10 and r.timing[1] is None
    assert 0 <= s["median_ms_a"] <= s["worst_ms_a"] and s["ms_a"] <= s["worst_ms_a"]
    assert s["worst_ms_a"] == 1000 * times.max() and s["median_ms_b"] is None
    assert "time a decision" in str(r) and "median" in str(r)


def test_elo_orders_and_anchors() -> None:
    rows = [{"a": "b1", "b": "b0", "pairs": 100, "won": 0.8, "lost": 0.2},
            {"a": "b2", "b": "b1", "pairs": 100, "won": 0.7, "lost": 0.3},
            {"a": "b2", "b": "b0", "pairs": 100, "won": 0.9, "lost": 0.1}]
    ratings = elo(rows, anchor="b0")
    assert ratings["b0"] == pytest.approx(1500)
    assert ratings["b2"] > ratings["b1"] > ratings["b0"]
    # two bots only: the rating gap is the Elo gap of the (smoothed) win share
    two = elo([{"a": "x", "b": "y", "pairs": 99, "won": 0.75, "lost": 0.25}], anchor="y")
    share = (99 * 0.75 + 0.5) / 100
    assert two["x"] - 1500 == pytest.approx(400 * np.log10(share / (1 - share)), abs=0.01)


def test_arena_cli(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "greedy", "random", "--rules", "classic", "--deals", "10",
                 "--processes", "1", "--no-progress", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["pairs"] == 10 and doc["a"] == "greedy" and doc["rules"] == "classic"
    assert main(["arena", "greedy", "nobody", "--deals", "2", "--no-progress"]) == 2
    assert "unknown bot 'nobody'" in capsys.readouterr().err
    for flag, value in (("--deals", "0"), ("--processes", "0"), ("--seed", "-1"),
                        ("--start", "1.5")):
        with pytest.raises(SystemExit) as stop:  # argparse's usage error
            main(["arena", "greedy", "random", flag, value, "--no-progress"])
        assert stop.value.code == 2
        assert f"argument {flag}" in capsys.readouterr().err


def test_train_dmc_plays_on_vecenv_the_arenas_deals() -> None:
    """examples/train_dmc.py drives its deals on the public VecEnv (no private engine import):
    a network that always makes the heuristic's play (a huge bonus on its column) scores, in
    the script's duplicate evaluation, exactly the margins the arena measures for the
    heuristic on the same deals (greedy's Python twin plays as the kernel's)."""
    import pathlib

    t = _train_dmc()
    source = (pathlib.Path(__file__).parents[1] / "examples" / "train_dmc.py").read_text()
    assert "_State" not in source and "shuangkou.game" not in source
    net = learned.MLP.new((8,), np.random.default_rng(0))
    net.bonus = 1e6
    got = t.duplicate(net, "classic", "greedy", 7, 5, 3)  # type: ignore[attr-defined]
    want = duel("heuristic", "greedy", "classic", 7, seed=5, processes=1)
    assert got["margin"] == pytest.approx(float(want.margins.mean()))
    assert got["first"] == pytest.approx(float(want.first.mean()))


@pytest.mark.parametrize("name", ["greedy", "heuristic", "pimc", "default"])
def test_a_bot_handed_another_seats_view_names_the_seats(name: str) -> None:
    """A hostile check's finding: a bot handed the view of a seat that is not to act, with
    the plays of the seat that is, failed deep in the kernel ("words[0] = 0x… is not part
    of the hand 0x…"). It now refuses by name; a finished deal's view still gets None."""
    from shuangkou.errors import ArgumentError

    game = Game(Rules.preset("baibian"), seed=1)
    bot = bots.make(name, "baibian")
    seat = game.to_act
    assert seat is not None
    with pytest.raises(ArgumentError, match=f"seat to act, {seat}, .* seat {seat ^ 1}'s"):
        bot(game.view(seat ^ 1), game.legal_plays(), SplitMix64(1))
    assert bot(game.view(seat), game.legal_plays(), SplitMix64(1)) in game.legal_plays()
    game.abandon(0)
    assert bot(game.view(1), [], SplitMix64(1)) is None


@pytest.mark.parametrize("name", ["pimc", "default-2026.12"])
def test_midgame_options_without_a_midgame_are_checked_all_the_same(name: str) -> None:
    """A hostile check's finding: with ``mid_worlds`` 0 (no midgame search) a NaN margin or
    a negative shortlist, mid_cards, mid_nodes or mid_depth were ignored silently (the
    default bot refused them). They are refused by name."""
    import math

    from shuangkou.errors import ArgumentError

    for option, value in [("margin", math.nan), ("shortlist", -1), ("mid_cards", -1),
                          ("mid_nodes", 0), ("mid_depth", 0)]:
        with pytest.raises(ArgumentError, match=option):
            bots.make(name, "baibian", mid_worlds=0, **{option: value})
