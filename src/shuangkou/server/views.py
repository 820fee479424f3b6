"""What a connection is sent: a place's view of its table (its own hand, the partner's under
双明, the public table — never another hidden hand), an accepted action, a deal's result.

The public part comes from :meth:`Game.observation` with the hands taken out; a place adds
exactly what an observation of its own seat holds privately (the engine's notion of what a
seat may know, R6/R7); a spectator gets the public part alone. The per-seat
logs are :meth:`Game.log` with ``seat=`` (hidden hands redacted by the engine).
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..game import Game, play_to_dict
from ..plays import Play
from .config import TableConfig

if TYPE_CHECKING:
    from .store import ListedTable, StoredAction
    from .table import Table

__all__ = ["action_view", "listed_view", "public_view", "result_view", "seat_view"]


def action_view(a: StoredAction) -> dict[str, Any]:
    """An accepted action as every connection sees it (played cards are public)."""
    return {"seq": a.seq, "deal": a.deal, "kind": a.kind, "seat": a.seat,
            "cards": list(a.cards), "play_kind": a.play_kind}


def result_view(game: Game) -> dict[str, Any]:
    """A finished deal's result with the R8 breakdown (public once the deal is over)."""
    res = game.result
    assert res is not None
    return {"players": list(game.players), **res.to_dict(), "breakdown": res.breakdown()}


def public_view(table: Table, timer_left: float | None) -> dict[str, Any]:
    """The ``state`` a spectator gets: the public part of the engine's
    :meth:`Observation.to_dict` (an observation with the hands taken out, and without the
    history: the welcome's log and one action per update carry it), plus the table's own
    fields; see docs/protocol.md "State". Built once per broadcast."""
    game = table.game
    top = game.table
    view = replace(game.observation(0), history=(), hand=(), partner_hand=None,
                   table=None).to_dict()
    del view["history"]
    if top is not None:
        view["table"], table_text = _play_view(top)
    view.update(
        seat=None, hand=None, can_pass=False,
        seq=table.seq, deal=len(table.match.games) - 1, deals=table.config.deals,
        rules=game.rules.name, passes=game.passes,
        table_text=None if top is None else table_text,
        finished=table.finished, totals=list(table.match.totals),
        timer_left=None if timer_left is None else round(timer_left, 1),
    )
    return view


@lru_cache(maxsize=4096)
def _play_view(play: Play) -> tuple[dict[str, Any], str]:
    """A table play's dict and description: the costliest part of a state (card notation is
    built in Python), and the same plays come up again and again (never mutated: the
    states only get encoded)."""
    return play_to_dict(play), play.describe()


def seat_view(table: Table, player: int | None, public: dict[str, Any]) -> dict[str, Any]:
    """The ``state`` for a place (``None`` = spectator): ``public`` plus what the place's
    seat holds privately — exactly what :meth:`Game.observation` adds for a seat: its hand,
    and the partner's under 双明 (``rules.partner_visible``, R6); read straight from the game
    (four observations per action would double the cost of a broadcast)."""
    if player is None:
        return public
    game = table.game
    seat = game.players.index(player)
    return {
        **public, "seat": seat, "hand": list(game.hand(seat)),
        "partner_hand": list(game.hand(seat ^ 2)) if game.rules.partner_visible else None,
        "can_pass": game.to_act == seat and game.can_pass(),
    }


def listed_view(row: ListedTable) -> dict[str, Any] | None:
    """A table another cluster node serves, as ``GET /api/tables`` lists it from the store
    (the form of :meth:`Table.public`): ``deal`` is the deal of its last accepted action and
    no place is ``connected`` (that node knows; docs/protocol.md "HTTP API"). ``None`` for a
    stored configuration this server cannot read."""
    config = _listed_config(row.config)
    if config is None:
        return None
    seats = config["seats"]
    return {
        "id": row.id, "config": config, "seq": row.seq, "deal": row.deal, "finished": False,
        "expired": False, "places": [
            {"player": p, "kind": ("human" if p in row.names else "open")
             if seats[p] == "open" else seats[p], "name": row.names.get(p, ""),
             "connected": False} for p in range(4)],
    }


@lru_cache(maxsize=8192)
def _listed_config(text: str) -> dict[str, Any] | None:
    """A stored configuration's public form, read once per table (it never changes; the
    dict is only encoded, never mutated)."""
    try:
        return TableConfig.from_dict(json.loads(text)).public()
    except (ValueError, KeyError, TypeError):
        return None
