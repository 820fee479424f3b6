"""Group commit: every action submitted during one turn of the event loop is validated, then
committed in **one** transaction, and only then broadcast (docs/server.md "How an action goes").

Why: a commit is the largest single cost of an action (a WAL write each, ~30–70 µs); at
hundreds of tables many actions arrive in the same turn of the loop, and one transaction for
all of them costs little more than one.

Why it still never shows an uncommitted action: :meth:`GroupCommit.flush` applies the batch
to the engine, commits and broadcasts in one synchronous call. No other callback (a hint, a
join's welcome, an HTTP read, a bot) runs in between, so nothing outside this call can see a
game state that is not on disk. If the commit fails, every action of the batch is undone
(``Game.undo``) before the call returns and each sender gets ``server``. A table takes at
most one action per batch (the next one waits for the next batch), so an undo is always one
step of one deal.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..plays import Play
from .protocol import ProtocolError
from .store import Store, StoredAction

if TYPE_CHECKING:
    from .table import Table

__all__ = ["GroupCommit", "Submitted"]

log: logging.Logger = logging.getLogger("shuangkou.server")


@dataclass(slots=True)
class Submitted:
    """An action waiting for the next batch: who sent it, what it is, and where to report a
    refusal (``refuse`` is called with the error instead of an update)."""

    table: Table
    player: int
    kind: str
    cards: tuple[int, ...] | Play
    play_kind: str | None
    seq: int | None
    reply_to: str | int | None
    refuse: Callable[[ProtocolError], None]


class GroupCommit:
    """The batch of submitted actions of one store (see the module docstring)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._queue: list[Submitted] = []
        self._armed = False

    def submit(self, action: Submitted) -> None:
        """Queue an action for the batch that closes at the end of this turn of the loop."""
        self._queue.append(action)
        if not self._armed:
            self._armed = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Validate and apply the queued actions (one per table), commit them in one
        transaction, then broadcast them; refused ones are reported to their senders."""
        self._armed = False
        queue, self._queue = self._queue, []
        batch: list[tuple[Submitted, StoredAction]] = []
        later: list[Submitted] = []
        busy: set[Table] = set()
        for s in queue:
            if s.table in busy:
                later.append(s)
                continue
            try:
                record = s.table.apply(s)
            except ProtocolError as e:
                s.refuse(e)
                continue
            except Exception:  # a bug costs one refusal, never the batch (the engine
                log.exception("internal error on an action")  # changes nothing on error)
                s.refuse(ProtocolError("server", "internal error"))
                continue
            busy.add(s.table)
            batch.append((s, record))
        if batch:
            try:
                self.store.append_many([(s.table.id, r, s.table.finished) for s, r in batch])
            except Exception:
                log.exception("a batch of %d action(s) could not be stored", len(batch))
                for s, _ in reversed(batch):  # not stored, so not accepted: undo every one
                    s.table.game.undo()
                for s, _ in batch:
                    s.refuse(ProtocolError("server"))
            else:
                for s, r in batch:
                    try:
                        s.table.accepted(r, s)
                    except Exception:  # committed: the others must still be broadcast
                        log.exception("internal error broadcasting an action")
        if later:
            self._queue[:0] = later
            if not self._armed:
                self._armed = True
                asyncio.get_running_loop().call_soon(self.flush)
