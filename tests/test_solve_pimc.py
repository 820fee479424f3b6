"""sk.pimc_policy: a working policy in Game loops and simulate, reproducible, exact at the end.
Its strength against greedy is measured by benchmarks/pimc_vs_greedy.py (docs/solver.md)."""

from __future__ import annotations

from shuangkou import Game, Rules, pimc_policy, sample_worlds, simulate, solve
from shuangkou.rng import SplitMix64
from shuangkou.sim import play_deal


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
