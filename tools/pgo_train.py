"""The training run of the profile-guided build (setup.py, ``SK_PGO``): a small, seeded workload
over every extension, run once against the instrumented build, whose profile the final build
is then optimised for (GCC's ``-fprofile-generate`` / ``-fprofile-use``).

It mirrors what users run — exact solves of every preset at 5–7 cards a seat, PIMC and learned
bot decisions, self-play, ``legal_plays``, the ``State``/``Game`` loops, ``VecEnv`` steps — on
seeds the benchmarks and tests do not use (a position seeded 0–99 is never trained on), so a
speed-up measured there is not fitted to the training. It needs only the package and numpy (it
runs in pip's isolated build environment) and one thread (the profile counters stay exact).
The profile changes how fast the code runs, never what it computes.

    python tools/pgo_train.py      # against the build on sys.path; ~11 s on an -O3 build
"""

from __future__ import annotations

import random

import numpy as np

import shuangkou
from shuangkou import Game, Hand, Rules, State, _core, _solve, bots, legal_plays, simulate, solve
from shuangkou.rl import VecEnv
from shuangkou.rng import SplitMix64

PRESETS = ("classic", "baibian", "jj", "qianbian")
SEED = 1000  # every seed below is SEED + k: none of the benchmarks' or tests' small seeds
WITHOUT_PEXT = [t for t in _solve.TECHNIQUES if t != "pext"]


def position(rules: Rules, cards: int, seed: int) -> State:
    """``cards`` cards a seat from the shuffled decks, seat 0 to lead (bench_solve's kind)."""
    deck = list(range(108))
    random.Random(seed).shuffle(deck)
    hands = [Hand.from_cards(deck[cards * s : cards * (s + 1)]) for s in range(4)]
    return State.from_position(rules, hands, 0)


def solves() -> None:
    """Exact solves on one thread: the search, its table, its bounds, its move ordering."""
    for name in PRESETS:
        rules = Rules.preset(name)
        for cards, seeds in ((5, 4), (6, 3), (7, 1 if name in ("baibian", "classic") else 0)):
            for k in range(seeds):
                solve(position(rules, cards, SEED + 100 * cards + k), threads=1)
        solve(position(rules, 6, SEED + 7), best="one", threads=1)
        solve(position(rules, 6, SEED + 8), "base", threads=1)
        # the key's squeeze without pext (CPUs without a fast one): its loop profiled too
        state = position(rules, 6, SEED + 600)
        searcher = _solve.Searcher(state, "score", 20, "hand_count", WITHOUT_PEXT)
        searcher.set_position(state)
        searcher.root_values(0, 0.0, _solve.EXACT_DEPTH, False, 1)


def kernel() -> None:
    """The generator's callers on dealt 27-card hands, leads and answers: ``legal_plays`` and,
    as much again as the solves' small hands ask of it, ``generate_many`` in bulk (the
    generator itself, ``_generate``, is built without a profile: setup.py's UNPROFILED)."""
    words = np.zeros(1 << 14, dtype=np.uint64)
    tags = np.zeros(1 << 14, dtype=np.uint32)
    for name in PRESETS:
        rules = Rules.preset(name)
        tables = []
        for k in range(200):
            ids = random.Random(SEED + k).sample(range(108), 54)
            first, second = Hand.from_cards(ids[:27]), Hand.from_cards(ids[27:])
            leads = legal_plays(first, rules)
            legal_plays(first, rules, wilds="fewest")
            tables.append(random.Random(k).choice(leads))
            legal_plays(second, rules, tables[-1])
        for k in range(60):  # 64 hands a call: their plays fit the buffers
            hands = np.array([Hand.from_cards(random.Random(SEED + 64 * k + i).sample(
                range(108), 27)).packed for i in range(64)], dtype=np.uint64)
            for table, fewest in ((None, False), (None, True), (tables[k], False)):
                _core.generate_many(hands, rules.flags, 0 if table is None else table.tag,
                                    fewest, words, tags)


def games() -> None:
    """Self-play in the kernel, the ``State`` and ``Game`` random loops, ``VecEnv`` steps."""
    for name in PRESETS:
        for policy in ("random", "greedy"):
            simulate(1500, name, policy, threads=1, seed=SEED)
        rules = Rules.preset(name)
        for k in range(3):
            state, rng = State.deal(rules, SEED + k), SplitMix64(SEED + k)
            while not state.is_over:
                plays = state.legal()
                i = rng.bounded(len(plays) + state.can_pass())
                state.pass_() if i == len(plays) else state.play(plays[i])
            game = Game(rules, seed=SEED + k)
            while not game.is_over:
                plays = game.legal_plays()
                i = rng.bounded(len(plays) + game.can_pass())
                game.pass_() if i == len(plays) else game.play(plays[i])
        State.deal(rules, SEED).perft(2)
        env = VecEnv(rules, 32)
        step = env.reset(seed=SEED)
        draw = np.random.default_rng(SEED)
        for _ in range(200):
            counts = np.diff(step.offsets).astype(np.int64)
            step = env.step(np.where(counts > 0, draw.integers(0, np.maximum(counts, 1)), -1))


def bot_decisions() -> None:
    """Whole deals of the PIMC bot (its worlds' solves) and the learned bot against greedy."""
    for name in PRESETS:
        pimc = bots.make("pimc", name, worlds=8, max_nodes=300)
        simulate(1, name, (pimc, "greedy"), threads=1, seed=SEED)
        simulate(20, name, ("learned", "greedy"), threads=1, seed=SEED)


def main() -> None:
    assert shuangkou.__file__ is not None
    solves()
    kernel()
    games()
    bot_decisions()


if __name__ == "__main__":
    main()
