"""What a connection is sent: a place's view of its table (its own hand, the partner's under
双明, the public table — never another hidden hand), an accepted action, a deal's result.

The hidden part comes only from :meth:`Game.observation` of the place's own seat (the engine's
notion of what a seat may know, R6/R7); a spectator gets the public part alone.
"""

from __future__ import annotations

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
    """The ``state`` of a table for a place (``None`` = spectator); see docs/protocol.md
    "State"."""
    game = table.game
    top = game.table
    seat = None if player is None else game.players.index(player)
    view: dict[str, Any] = {
        "seq": table.seq,
        "deal": len(table.match.games) - 1,
        "deals": table.config.deals,
        "rules": game.rules.name,
        "players": list(game.players),
        "seat": seat,
        "to_act": game.to_act,
        "counts": list(game.card_counts),
        "table": None if top is None else {
            "cards": list(game.table_cards), "kind": top.kind.name.lower(),
            "text": top.describe(), "owner": game.table_owner,
        },
        "leader": game.leader,
        "trick": game.trick,
        "passes": game.passes,
        "places": list(game.places),
        "first_leader": game.first_leader,
        "revealed": game.revealed,
        "over": game.is_over,
        "finished": table.finished,
        "totals": list(table.match.totals),
        "timer_left": None if timer_left is None else round(timer_left, 1),
        "hand": None,
        "partner_hand": None,
        "can_pass": False,
    }
    if seat is not None:
        obs = game.observation(seat)
        view["hand"] = list(obs.hand)
        view["partner_hand"] = None if obs.partner_hand is None else list(obs.partner_hand)
        view["can_pass"] = obs.to_act == seat and game.can_pass()
    return view
