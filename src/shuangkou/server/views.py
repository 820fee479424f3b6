"""What a connection is sent: a place's view of its table (its own hand, the partner's under
双明, the public table — never another hidden hand), an accepted action, a deal's result.

The hidden part comes only from :meth:`Game.observation` of the place's own seat (the engine's
notion of what a seat may know, R6/R7); a spectator gets the public part alone. The per-seat
logs are :meth:`Game.log` with ``seat=`` (hidden hands redacted by the engine).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..game import Game

if TYPE_CHECKING:
    from .store import StoredAction
    from .table import Table

__all__ = ["action_view", "result_view", "seat_view"]


def action_view(a: StoredAction) -> dict[str, Any]:
    """An accepted action as every connection sees it (played cards are public)."""
    return {"seq": a.seq, "deal": a.deal, "kind": a.kind, "seat": a.seat,
            "cards": list(a.cards), "play_kind": a.play_kind}


def result_view(game: Game) -> dict[str, Any]:
    """A finished deal's result with the R8 breakdown (public once the deal is over)."""
    res = game.result
    assert res is not None
    return {"players": list(game.players), **res.to_dict(), "breakdown": res.breakdown()}


def seat_view(table: Table, player: int | None, timer_left: float | None) -> dict[str, Any]:
    """The ``state`` of a table for a place (``None`` = spectator): the engine's
    :meth:`Observation.to_dict` of the place's seat without the history (sent once, in the
    welcome's log, then one action per update), plus the table's own fields; see
    docs/protocol.md "State"."""
    game = table.game
    if player is None:
        # A spectator: the public part of an observation (seat 0's, with its hand removed).
        view = replace(game.observation(0), history=()).to_dict()
        view["seat"] = view["hand"] = view["partner_hand"] = None
        can_pass = False
    else:
        seat = game.players.index(player)
        view = replace(game.observation(seat), history=()).to_dict()
        can_pass = game.to_act == seat and game.can_pass()
    del view["history"]
    top = game.table
    view.update(
        seq=table.seq, deal=len(table.match.games) - 1, deals=table.config.deals,
        rules=game.rules.name, passes=game.passes, can_pass=can_pass,
        table_text=None if top is None else top.describe(),
        finished=table.finished, totals=list(table.match.totals),
        timer_left=None if timer_left is None else round(timer_left, 1),
    )
    return view
