"""A user's own bots, as a module outside the package would hold them: the bot protocol of
shuangkou.bots followed by a function and by a class (tests/test_bot_protocol.py names them
as "tests.user_bots:lowest" and "tests.user_bots:Counting")."""

from __future__ import annotations

from typing import Any


def lowest(view: Any, plays: Any, rng: Any) -> Any:
    """Plays the legal play of the lowest top (then fewest cards); passes only when nothing
    beats the table."""
    if not len(plays):
        return None
    return min(plays, key=lambda p: (int(p.top), p.size))


class Counting:
    """A class made as ``Counting(rules, **options)``: reads the fewest-wilds list, answers by
    the index of a play, passes over its partner, and leads at random (the deal's ``rng``)
    once an opponent holds ``short`` cards or fewer."""

    wilds = "fewest"

    def __init__(self, rules: Any, short: int = 5) -> None:
        self.rules = rules
        self.short = int(short)
        self.__name__ = f"counting{self.short}"

    def __call__(self, view: Any, plays: Any, rng: Any) -> Any:
        seat = view.seat
        if view.table is not None and view.table_owner == seat ^ 2:
            return None
        if not len(plays):
            return None
        opponents = [view.cards_left(s) for s in (seat ^ 1, seat ^ 3) if view.cards_left(s)]
        if view.table is None and opponents and min(opponents) <= self.short:
            return rng.bounded(len(plays))
        return 0
