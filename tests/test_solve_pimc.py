"""sk.pimc_policy: a working policy in Game loops and simulate, reproducible, exact at the end.
Its strength against greedy is measured by benchmarks/pimc_vs_greedy.py (docs/solver.md)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from shuangkou import Game, Play, Rules, pimc_policy, sample_worlds, simulate, solve
from shuangkou.errors import ArgumentError
from shuangkou.rng import SplitMix64
from shuangkou.sim import play_deal
from shuangkou.solve import searcher


def test_pimc_plays_whole_deals_reproducibly() -> None:
    rules = Rules.preset("baibian")
    pol = pimc_policy(worlds=2, max_nodes=100)
    a, _ = play_deal(rules, 3, [pol, "greedy", pol, "greedy"])
    b, _ = play_deal(rules, 3, [pimc_policy(worlds=2, max_nodes=100), "greedy"] * 2)
    assert a.is_over and [x.cards for x in a.actions] == [x.cards for x in b.actions]


def test_pimc_in_simulate() -> None:
    res = simulate(2, "classic", [pimc_policy(worlds=2, max_nodes=50), "greedy"], seed=1)
    assert len(res) == 2


def test_pimc_is_exact_in_a_small_endgame() -> None:
    # JJ (partner visible): only the opponents' 4 cards are unknown. With a big budget every
    # world is solved exactly; here one play is optimal in every world, so PIMC must make it
    game = Game.from_deal(Rules.preset("jj"), ["3s 3h 9d", "4s 5s", "6s 7s", "8s Ts"], leader=0)
    worlds = sample_worlds(game, 0, 40, seed=2)
    everywhere = set.intersection(*(set(solve(w).best) for w in worlds))
    assert everywhere
    choice = pimc_policy(worlds=4, max_nodes=100_000)(game, game.legal_plays(), SplitMix64(1))
    assert choice in everywhere


def _ties_game() -> Game:
    """Classic, seat 0 leads 34567 KK BJ: its fewest split is 34567 | KK | BJ (3 plays), so
    each of those three leads leaves 2 plays, the other hands untouched."""
    hands = ["3s 4s 5s 6s 7s Kh Kd BJ", "3h 8h 9h Th Jh Qh Ah 2h 2s 9s 8s",
             "4d 5d 6d 7d 8d 9d Td Jd Qd 4c 5c", "3c 6c 7c 8c 9c Tc Jc Qc Kc Ac 5h"]
    return Game.from_deal(Rules.preset("classic"), hands, leader=0)


def test_hand_count_ties_go_to_the_least_damage_play() -> None:
    """The 手数 horizon value is coarse: a depth-1 search scores every lead that is part of a
    fewest split alike (the deal ranked by plays left is the same after each). The old policy
    made the first such move generated — the big joker, a lead that throws away the hand's
    control. Ties now go by the hints' order: least damage, then the lowest top: 34567."""
    game = _ties_game()
    plays = game.legal_plays("all")
    by_name = {str(p): p for p in plays}
    for world in sample_worlds(game, 0, 4, seed=3):
        s = searcher(world, "score", 12, "hand_count")
        s.set_position(world)
        moves, values, *_ = s.root_values(0, 0.0, 1, True)
        value = dict(zip(moves, values))
        tied = {value[(by_name[n].packed, by_name[n].tag)] for n in ("3 4 5 6 7", "K K", "BJ")}
        assert len(tied) == 1 and tied.pop() == max(v for v in values if v is not None)
    for nodes in (40, 100):
        pol = pimc_policy(worlds=4, max_nodes=nodes, evaluation="hand_count")
        assert str(pol(game, plays, SplitMix64(1))) == "3 4 5 6 7"


def test_a_fallback_decides_unless_every_world_is_solved() -> None:
    """With a fallback, PIMC trusts exact searches only: too many cards left, or a world the
    node budget cannot solve, and the fallback's move is made; in the small JJ endgame of
    test_pimc_is_exact_in_a_small_endgame every world is solved and a play optimal in all of
    them wins over a fallback that picks another."""
    game = Game.from_deal(Rules.preset("jj"), ["3s 3h 9d", "4s 5s", "6s 7s", "8s Ts"], leader=0)
    plays = game.legal_plays()
    everywhere = set.intersection(*(set(solve(w).best) for w in sample_worlds(game, 0, 40, 2)))
    worse = next(p for p in plays if p not in everywhere)
    calls = []

    def fallback(view: object, legal: list[Play], rng: object) -> Play:
        calls.append(view)
        return worse

    for kwargs in ({"max_cards": 8}, {"max_nodes": 1}):
        pol = pimc_policy(worlds=4, fallback=fallback, **kwargs)  # type: ignore[arg-type]
        assert pol(game, plays, SplitMix64(1)) == worse
    pol = pimc_policy(worlds=4, max_nodes=100_000, fallback=fallback)
    assert pol(game, plays, SplitMix64(1)) in everywhere and len(calls) == 3


def test_a_fallback_move_that_is_optimal_is_kept() -> None:
    game = Game.from_deal(Rules.preset("jj"), ["3s 3h 9d", "4s 5s", "6s 7s", "8s Ts"], leader=0)
    plays = game.legal_plays()
    worlds = sample_worlds(game, 0, 4, seed=SplitMix64(1).next())
    value: dict[Play, int] = {}
    for w in worlds:
        for p, v in solve(w, all_values=True).values:
            assert v is not None
            value[p] = value.get(p, 0) + v
    top = max(value.values())
    for p in (q for q in plays if value[q] == top):
        def fallback(view: object, legal: list[Play], rng: object, p: Play = p) -> Play:
            return p

        pol = pimc_policy(worlds=4, max_nodes=100_000, fallback=fallback)
        assert pol(game, plays, SplitMix64(1)) == p


def test_pimc_checks_its_new_arguments() -> None:
    for kwargs, name in [({"fallback": 3}, "fallback"), ({"max_cards": -1}, "max_cards"),
                         ({"max_cards": 1.5}, "max_cards"), ({"seconds": 0}, "seconds"),
                         ({"seconds": "1"}, "seconds")]:
        with pytest.raises(ArgumentError, match=name):
            pimc_policy(**kwargs)  # type: ignore[arg-type]


def test_a_time_limit_bounds_a_decision() -> None:
    """``seconds`` stops the searches: a full deal with a node budget of minutes returns
    (the fallback's move: no world was solved)."""
    game = Game(Rules.preset("classic"), seed=4)
    plays = game.legal_plays()
    pol = pimc_policy(worlds=4, max_nodes=10**9, max_cards=108, seconds=0.05,
                      fallback=lambda v, ps, r: ps[-1])
    assert pol(game, plays, SplitMix64(1)) == plays[-1]


def test_the_fallbacks_time_counts_against_the_time_limit() -> None:
    """``seconds`` bounds the whole decision: a fallback that takes longer than it leaves no
    time to search, so its move is made even where the search would find a better one (the
    small JJ endgame above, solved at once). The old deadline started after the fallback."""
    import time

    game = Game.from_deal(Rules.preset("jj"), ["3s 3h 9d", "4s 5s", "6s 7s", "8s Ts"], leader=0)
    plays = game.legal_plays()
    everywhere = set.intersection(*(set(solve(w).best) for w in sample_worlds(game, 0, 40, 2)))
    worse = next(p for p in plays if p not in everywhere)

    def slow(view: object, legal: list[Play], rng: object) -> Play:
        time.sleep(0.03)
        return worse

    fast = pimc_policy(worlds=4, max_nodes=100_000, fallback=slow, seconds=10.0)
    assert fast(game, plays, SplitMix64(1)) in everywhere  # time enough: the search decides
    pol = pimc_policy(worlds=4, max_nodes=100_000, fallback=slow, seconds=0.02)
    assert pol(game, plays, SplitMix64(1)) == worse


def test_the_fallback_sees_the_seats_view_in_a_game_loop() -> None:
    """Wrapped in ``sim.with_game`` the policy gets the Game; the fallback still gets what a
    bot reads, the seat's view (the heuristic bot plays whole deals through it)."""
    from shuangkou import bots
    from shuangkou.sim import with_game

    rules = Rules.preset("classic")
    heuristic = bots.make("heuristic", rules)
    pol = with_game(pimc_policy(worlds=2, max_nodes=200, max_cards=12, fallback=heuristic))
    game, _ = play_deal(rules, 2, [pol, "greedy"] * 2)
    assert game.is_over


def test_a_time_limit_bounds_plain_pimc_too() -> None:
    """Without a fallback, ``seconds`` stops the depth-limited searches as well: a node budget
    of minutes on a full deal still returns one of the plays."""
    game = Game(Rules.preset("classic"), seed=4)
    plays = game.legal_plays()
    pol = pimc_policy(worlds=2, max_nodes=10**9, seconds=0.05)
    assert pol(game, plays, SplitMix64(1)) in plays


def test_the_pimc_bot_is_its_fallback_until_the_worlds_are_solved() -> None:
    """``bots.make("pimc")`` with no card small enough to search (``max_cards=0``) plays its
    fallback's game move for move; its defaults come from ``bots.PIMC_FALLBACK``."""
    from shuangkou import bots

    for preset, fallback in bots.PIMC_FALLBACK.items():
        bot = bots.make("pimc", preset, max_cards=0)
        assert bot.wilds == bots.make(fallback, preset).wilds == "fewest"
        a = simulate(3, preset, (bot, "greedy"), seed=2).arrays
        b = simulate(3, preset, (bots.make(fallback, preset), "greedy"), seed=2).arrays
        assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    assert bots.make("pimc", "classic", fallback="none").wilds == "all"
    # fallback="default": PIMC_FALLBACK's bot where the default is PIMC itself (the presets),
    # else the default (other rules: learned)
    house = Rules.preset("jj").replace(name="house")
    for rules, fallback in (("classic", "heuristic"), (house, "learned")):
        a = simulate(2, rules, (bots.make("pimc", rules, fallback="default", max_cards=0),
                                "greedy"), seed=3).arrays
        b = simulate(2, rules, (bots.make(fallback, rules), "greedy"), seed=3).arrays
        assert all(np.array_equal(a[k], b[k]) for k in a)
    for bad in ("pimc", "x"):
        with pytest.raises(ValueError, match="fallback"):
            bots.make("pimc", "classic", fallback=bad)


# -- the midgame search (issue #32 item 3) ------------------------------------------------------
def test_the_midgame_search_overrides_a_clearly_worse_fallback_move() -> None:
    """``midgame`` searches what the exact search leaves to the fallback (here every decision:
    ``max_cards=0``). Searched deep enough to be exact (the small JJ endgame above), a
    fallback move that is optimal in no world is overridden — unless ``margin`` asks for more
    than any move gains, more cards are left than ``mid_cards``, or the shortlist holds no
    better move."""
    game = Game.from_deal(Rules.preset("jj"), ["3s 3h 9d", "4s 5s", "6s 7s", "8s Ts"], leader=0)
    plays = game.legal_plays()
    worlds = sample_worlds(game, 0, 4, seed=SplitMix64(1).next())
    value: dict[Play, int] = {}
    for w in worlds:  # the worlds the policy searches: the same seed
        for p, v in solve(w, all_values=True).values:
            assert v is not None
            value[p] = value.get(p, 0) + v
    worse = min(plays, key=value.__getitem__)
    better = max(plays, key=value.__getitem__)
    gain = (value[better] - value[worse]) / 4  # the mean over the worlds
    assert gain > 0

    def fallback(view: object, legal: list[Play], rng: object) -> Play:
        return worse

    def pol(**kwargs: object) -> object:
        return pimc_policy(4, fallback=fallback, max_cards=0, midgame=(4, 100_000, 64),
                           **kwargs)  # type: ignore[arg-type]

    assert pol()(game, plays, SplitMix64(1)) == better  # type: ignore[operator]
    assert pol(margin=gain - 0.5)(game, plays, SplitMix64(1)) == better  # type: ignore[operator]
    assert pol(margin=gain)(game, plays, SplitMix64(1)) == worse  # type: ignore[operator]
    left = sum(game.cards_left(s) for s in range(4))  # mid_cards: searched only from there down
    assert pol(mid_cards=left)(game, plays, SplitMix64(1)) == better  # type: ignore[operator]
    assert pol(mid_cards=left - 1)(game, plays, SplitMix64(1)) == worse  # type: ignore[operator]
    assert pimc_policy(4, fallback=fallback, max_cards=0)(game, plays, SplitMix64(1)) == worse
    order = _tie_key(game, plays)
    first = min(plays, key=lambda p: order[(p.packed, p.tag)])
    expected = first if value[first] > value[worse] else worse
    assert pol(shortlist=1)(game, plays, SplitMix64(1)) == expected  # type: ignore[operator]


def _tie_key(game: Game, plays: list[Play]) -> dict[tuple[int, int], tuple[int, ...]]:
    from shuangkou.solve import _tie_order

    return _tie_order(game.hand_ranks(0), plays, game.rules, False)


def test_the_midgame_search_decides_every_position_within_its_budget() -> None:
    """Whole deals of every preset with the midgame searched from the first trick: every
    decision is one of the legal plays (or a pass at a table), a deal is reproducible for its
    seed when no clock stops it, and a clock stop leaves a legal move too."""
    from shuangkou import bots

    for preset in ("classic", "baibian", "jj", "qianbian"):
        rules = Rules.preset(preset)
        fast = bots.make("fast", rules)
        made: list[tuple[Play | None, list[Play], bool]] = []

        inner = pimc_policy(2, 300, tt_bits=12, fallback=fast, midgame=(2, 300, 2), margin=4)

        def pol(view: Any, plays: list[Play], rng: object, inner: Any = inner,
                made: list[Any] = made) -> Play | None:
            choice = inner(view, plays, rng)
            made.append((choice, plays, view.table is not None))
            return choice  # type: ignore[no-any-return]

        pol.wilds = fast.wilds  # type: ignore[attr-defined]
        a, _ = play_deal(rules, 5, [pol, "greedy"] * 2)
        first = [x.cards for x in a.actions]
        assert a.is_over and made
        assert all(c in ps if c is not None else at_table for c, ps, at_table in made)
        b, _ = play_deal(rules, 5, [pol, "greedy"] * 2)
        assert [x.cards for x in b.actions] == first
        timed = pimc_policy(4, 10**9, fallback=fast, midgame=(4, 10**9, 64), seconds=0.01)
        game = Game(rules, seed=4)
        plays = game.legal_plays("fewest")
        assert timed(game.view(game.first_leader), plays, SplitMix64(1)) in plays


def test_the_midgame_arguments_are_checked() -> None:
    heuristic = lambda v, ps, r: ps[0]  # noqa: E731
    for kwargs, name in [({"midgame": (2, 100, 1)}, "fallback"),
                         ({"midgame": (2, 100), "fallback": heuristic}, "midgame"),
                         ({"midgame": (0, 100, 1), "fallback": heuristic}, "worlds"),
                         ({"midgame": (2, 0, 1), "fallback": heuristic}, "nodes"),
                         ({"midgame": (2, 100, 0), "fallback": heuristic}, "depth"),
                         ({"midgame": (2, 100, 1), "fallback": heuristic, "margin": -1},
                          "margin"),
                         ({"midgame": (2, 100, 1), "fallback": heuristic, "margin": "1"},
                          "margin"),
                         ({"midgame": (2, 100, 1), "fallback": heuristic, "shortlist": -1},
                          "shortlist"),
                         ({"midgame": (2, 100, 1), "fallback": heuristic, "mid_cards": -1},
                          "mid_cards"),
                         ({"midgame": (2, 100, 1), "fallback": heuristic, "mid_cards": 109},
                          "mid_cards"),
                         ({"midgame": (2, 100, 1), "fallback": heuristic, "mid_cards": "40"},
                          "mid_cards")]:
        with pytest.raises(ArgumentError, match=name):
            pimc_policy(**kwargs)  # type: ignore[arg-type]


def test_exact_misses_lets_the_search_decide_with_worlds_unsolved() -> None:
    """``exact_misses``: 0 plays as the policy without it; allowing every world but one to go
    unsolved, the search decides where one unsolved world handed the decision to the
    fallback (the games differ on these deals), and the bot plays legal deals; bad counts
    are refused."""
    from shuangkou import bots

    rules = Rules.preset("classic")

    def pimc(**kw: Any) -> Any:
        return bots.make("pimc", rules, worlds=4, max_nodes=1_000, max_cards=28, **kw)

    def games(bot: Any) -> dict[str, np.ndarray]:
        return simulate(10, rules, (bot, "greedy"), seed=4).arrays

    base, zero, loose = games(pimc()), games(pimc(exact_misses=0)), games(pimc(exact_misses=3))
    assert all(np.array_equal(base[k], zero[k]) for k in base)
    assert not all(np.array_equal(base[k], loose[k]) for k in base)
    for bad in (-1, 5):
        with pytest.raises(ValueError, match="exact_misses must be in 0..4"):
            pimc(exact_misses=bad)


def test_a_time_limit_bounds_the_sampling_too() -> None:
    """A hostile check's finding: ``worlds`` were all drawn by one sampler call before the
    clock was first read (100,000 worlds took 9.3 s under ``seconds=0.1``), and ``worlds``
    past the sampler's MAX_SAMPLES failed at every decision. Now they are drawn WORLDS_CHUNK
    at a time, the clock read before each draw: a sampler that takes 20 ms a call is called
    until the limit passes, no more; a decision of more worlds than MAX_SAMPLES draws them
    all, chunk by chunk, the first chunk with the decision's seed (what one call of at most
    WORLDS_CHUNK worlds draws), each other its own."""
    import time

    from shuangkou.solve import MAX_SAMPLES, WORLDS_CHUNK

    calls: list[tuple[int, int]] = []

    def counting(game: object, seat: int, n: int, seed: int) -> list[Any]:
        calls.append((n, seed))
        return []

    def slow(game: object, seat: int, n: int, seed: int) -> list[Any]:
        time.sleep(0.02)
        return counting(game, seat, n, seed)

    game = Game(Rules.preset("baibian"), seed=2)
    plays = game.legal_plays()
    worlds = 2 * MAX_SAMPLES + 7
    pimc_policy(worlds=worlds, sampler=counting)(game, plays, SplitMix64(1))
    assert sum(n for n, _ in calls) == worlds and max(n for n, _ in calls) == WORLDS_CHUNK
    assert calls[0][1] == SplitMix64(1).next() and len({s for _, s in calls}) == len(calls)
    calls.clear()
    pimc_policy(worlds=worlds, sampler=slow, seconds=0.1)(game, plays, SplitMix64(1))
    assert 1 <= len(calls) <= 6     # about 0.1 s / 20 ms, where it was every chunk (782)
    calls.clear()
    pimc_policy(worlds=WORLDS_CHUNK, sampler=counting)(game, plays, SplitMix64(1))
    assert calls == [(WORLDS_CHUNK, SplitMix64(1).next())]


def test_a_finished_deal_gets_no_move_and_a_lead_without_plays_is_refused() -> None:
    """A hostile check's findings: a bare AssertionError on a finished deal (an
    ArgumentError about the seat under ``python -O``), and a pass returned on a lead given no
    plays. A finished deal now gets None (no move), as from every bot; a lead without plays
    is refused by name."""
    pol = pimc_policy(worlds=2, max_nodes=500)
    game = Game(Rules.preset("classic"), seed=3)
    with pytest.raises(ArgumentError, match="plays: none on a lead"):
        pol(game, [], None)
    game.abandon(1)
    for position in (game, game.view(0)):
        assert pol(position, [], None) is None
