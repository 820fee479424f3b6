"""Your own bot through every driver (docs/bots.md, "Your own bot"): a function and a class
that follow the bot protocol, played by ``simulate``, ``play_deal`` (the Python ``Game``),
the arena in this process and in worker processes, and refused by ``VecEnv`` (whose kernel
plays only its own players) and by a position of other rules.

    python examples/your_bot.py              # from this folder: "your_bot:lowest" also works
    shuangkou arena your_bot:Cautious:short=3 heuristic --rules classic --deals 200
"""

from __future__ import annotations

import os
from typing import Any

from shuangkou import Rules, bots, simulate
from shuangkou.arena import duel
from shuangkou.rl import VecEnv
from shuangkou.sim import play_deal

SMOKE = os.environ.get("SK_SMOKE") == "1"  # tests/test_examples.py: a few seconds
PAIRS = 20 if SMOKE else 500


def lowest(view: Any, plays: Any, rng: Any) -> Any:
    """A bot as a function: the legal play of the lowest top; pass when nothing beats the
    table (``plays`` is then empty)."""
    if not len(plays):
        return None
    return min(plays, key=lambda p: (int(p.top), p.size))


class Cautious:
    """A bot as a class, made as ``Cautious(rules, **options)`` (what a ``"module:Class"``
    spec does): reads the fewest-wilds list, never beats its partner, keeps its bombs until an
    opponent holds ``short`` cards or fewer, and otherwise plays as ``lowest``."""

    wilds = "fewest"

    def __init__(self, rules: Rules, short: int = 6) -> None:
        self.rules = rules  # every driver checks a position's rules against these
        self.short = short
        self.__name__ = "cautious"

    def __call__(self, view: Any, plays: Any, rng: Any) -> Any:
        seat = view.seat
        if view.table is not None and view.table_owner == seat ^ 2:
            return None  # the partner is winning the trick
        danger = min((view.cards_left(s) for s in (seat ^ 1, seat ^ 3) if view.cards_left(s)),
                     default=99) <= self.short
        candidates = [p for p in plays if danger or not p.is_bomb]
        return lowest(view, candidates, rng)


def main() -> None:
    rules = Rules.preset("classic")
    cautious = Cautious(rules)
    res = simulate(PAIRS, rules, (cautious, lowest), seed=1)
    print(f"simulate: {res.policies[0]} vs {res.policies[1]}, mean units per seat "
          f"{res.units.mean(0).round(2).tolist()}")
    game, row = play_deal(rules, 1, (cautious, "heuristic"))
    print(f"play_deal: {len(game.actions)} actions, places {row['places'].tolist()}")
    for a, b in ((lowest, "greedy"), (cautious, "heuristic")):
        print(duel(a, b, rules, PAIRS, seed=2, processes=2))  # pickled to two workers
    try:
        VecEnv(rules, 4, opponents={1: cautious})
    except ValueError as e:
        print(f"VecEnv: {e}")
    try:
        simulate(1, "baibian", cautious)
    except ValueError as e:
        print(f"other rules: {e}")
    print("every bot name:", ", ".join(bots.BOTS))


if __name__ == "__main__":
    main()
