"""One table: a :class:`~shuangkou.game.Match` played by people and bots, its listeners, its
turn timer, and the order *validate → commit → broadcast* every action goes through.

Places and seats. A table has four **places** (players 0..3, fixed for the match: a token
belongs to a place). The engine's **seats** are the positions in a deal; a 明牌 deal (R7) may
swap two players' seats, so the seat of a place is looked up in ``game.players`` each time.

Actions go through the server's :class:`~.commit.GroupCommit`: validated, applied and
committed with the other actions of the same turn of the event loop, then broadcast, all in
one synchronous call, so actions on one table are applied one at a time, in order, and nothing
uncommitted is ever seen.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Protocol

from ..bots import Bot, make
from ..errors import IllegalPlayError
from ..game import SPECTATOR, Game, Match
from ..plays import Play
from ..rng import SplitMix64
from ..rules import Rules
from ..solve import hints as solver_hints
from .commit import GroupCommit, Submitted
from .config import TableConfig
from .protocol import ProtocolError, encode, with_reply
from .store import Store, StoredAction
from .views import action_view, public_view, result_view, seat_view

__all__ = ["SHARED_BOTS", "Listener", "Table", "new_id", "shared_bot", "token_digest"]

_GOLDEN = 0x9E3779B97F4A7C15


class Listener(Protocol):
    """A connection a table sends to (the server's WebSocket wrapper)."""

    def send(self, message: dict[str, Any]) -> None:
        """Queue one message (never blocks)."""

    def send_encoded(self, data: bytes) -> None:
        """Queue one message already encoded (:func:`.protocol.encode`)."""

    def close(self, code: int, reason: str) -> None:
        """Close the connection."""


SHARED_BOTS = 32
"""The most bots a server keeps (:func:`shared_bot`): one per bot kind and rules in use. A
searched ``default`` holds about 2 MB once it has searched an end game, so the bots of a
server stay within about 64 MB however many tables play them."""


@lru_cache(maxsize=SHARED_BOTS)
def shared_bot(kind: str, rules: Rules) -> Bot:
    """The bot every table of this process plays for ``kind`` under ``rules``, made on first
    use (:func:`shuangkou.bots.make`). One object may play every seat of every table: a bot
    holds no per-deal state (each decision gets the seat's view and the table's own seeded
    generator), and the tables run on the event loop's one thread."""
    return make(kind, rules)


def new_id() -> str:
    """A fresh table id: 16 random hex digits (64 bits, the key of its lease in a cluster)."""
    return secrets.token_hex(8)


def token_digest(token: str) -> str:
    """The stored form of a token (SHA-256 hex): a copy of the database gives no tokens."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


class Table:
    """A table (see the module docstring). Build it with :meth:`create` or :meth:`restore`."""

    def __init__(self, table_id: str, config: TableConfig, commits: GroupCommit,
                 created: float, *, bot_delay: float = 0.5, pause_unwatched: bool = True
                 ) -> None:
        self.id = table_id
        self.config = config
        self.commits = commits
        self.store: Store = commits.store
        self.created = created
        self.bot_delay = bot_delay
        self.pause_unwatched = pause_unwatched  # a table of bots waits while nobody watches
        self.expired: bool = False
        self.active: float = time.monotonic()  # last accepted action or taken place (idle expiry)
        self.creator: str | None = None  # the address that created it (per-address cap)
        self.on_finish: Callable[[str], None] = lambda table_id: None
        self.match: Match = Match(config.rules, config.seed)
        self.match.deal()
        self.log: list[StoredAction] = []
        self.digests: dict[int, str] = {}
        self.names: dict[int, str] = {}
        self.listeners: dict[int, Listener] = {}
        self.spectators: set[Listener] = set()
        self._timer: asyncio.TimerHandle | None = None
        self._hints: tuple[int, list[Play]] | None = None  # (seq, order) of the last hint
        self._views: list[dict[str, Any]] = []  # action_view of each logged action
        self._result_views: list[dict[str, Any]] = []  # result_view of each deal over
        self._whole_logs: list[dict[str, Any]] = []  # Game.log() of each deal over
        self.deadline: float | None = None

    # -- lifecycle -------------------------------------------------------------------------
    @classmethod
    def create(cls, config: TableConfig, commits: GroupCommit, *, bot_delay: float = 0.5,
               pause_unwatched: bool = True, table_id: str | None = None) -> Table:
        """A new table, stored (committed) before it is returned; nothing is stored if it
        raises. ``table_id``: a fresh id drawn by the caller (:func:`new_id`; a cluster node
        takes its lease first, :meth:`.app.Server.create_table`), else one is drawn here."""
        table = cls(table_id or new_id(), config, commits, time.time(), bot_delay=bot_delay,
                    pause_unwatched=pause_unwatched)
        commits.store.create_table(table.id, table.created, config.to_dict())
        return table

    @classmethod
    def restore(cls, table_id: str, commits: GroupCommit, *, bot_delay: float = 0.5,
                pause_unwatched: bool = True) -> Table:
        """Rebuild a stored table by replaying its actions through the engine (each one is
        re-validated: a corrupt log raises :class:`~shuangkou.errors.IllegalPlayError`)."""
        store = commits.store
        stored = store.table(table_id)
        if stored is None:
            raise KeyError(table_id)
        table = cls(table_id, TableConfig.from_dict(stored.config), commits, stored.created,
                    bot_delay=bot_delay, pause_unwatched=pause_unwatched)
        table.expired = stored.expired
        for a in store.actions(table_id):
            if a.seq != len(table.log):
                raise IllegalPlayError(f"table {table_id}: action seq {a.seq} out of order")
            game = table.game
            if a.deal != len(table.match.games) - 1:
                raise IllegalPlayError(f"table {table_id}: action {a.seq} in the wrong deal")
            table._apply(game, a.kind, a.seat, a.cards, a.play_kind)
            table.log.append(a)
            table._next_deal()
        for player, (digest, name) in store.seats(table_id).items():
            table.digests[player] = digest
            table.names[player] = name
        return table

    # -- the state -------------------------------------------------------------------------
    @property
    def game(self) -> Game:
        """The current deal (the last one, once the match is over)."""
        game = self.match.current
        assert game is not None
        return game

    @property
    def finished(self) -> bool:
        """Whether every deal of the match has been played."""
        return len(self.match.games) == self.config.deals and self.game.is_over

    @property
    def closed(self) -> bool:
        """Whether the table takes no more actions: finished or expired."""
        return self.expired or self.finished

    @property
    def watched(self) -> bool:
        """Whether any connection (place or spectator) is attached."""
        return bool(self.listeners or self.spectators)

    def expire(self) -> None:
        """Close an idle unfinished table for good (docs/protocol.md "Limits"): stored as
        expired (its log is kept), its timer stopped, its connections closed (4410)."""
        self.store.expire(self.id)
        self.expired = True
        self.stop()
        self.on_finish(self.id)
        for listener in [*self.listeners.values(), *self.spectators]:
            listener.close(4410, "the table expired: idle too long")

    @property
    def seq(self) -> int:
        """The number of accepted actions (the next action's ``seq``)."""
        return len(self.log)

    def seat_of(self, player: int) -> int:
        """The current deal's seat of a place."""
        return self.game.players.index(player)

    def player_kind(self, player: int) -> str:
        """``"human"`` for a taken open place, ``"open"`` for a free one, else the bot."""
        kind = self.config.seats[player]
        if kind == "open":
            return "human" if player in self.digests else "open"
        return kind

    def public(self) -> dict[str, Any]:
        """The table as listed (no hidden information)."""
        return {
            "id": self.id, "config": self.config.public(), "seq": self.seq,
            "deal": len(self.match.games) - 1, "finished": self.finished,
            "expired": self.expired, "places": self.places(),
        }

    def places(self) -> list[dict[str, Any]]:
        """Who fills each place: kind, name, connected."""
        return [
            {"player": p, "kind": self.player_kind(p), "name": self.names.get(p, ""),
             "connected": p in self.listeners}
            for p in range(4)
        ]

    def public_state(self) -> dict[str, Any]:
        """The spectator's state (the public part every place's state starts from)."""
        left = None if self.deadline is None else max(0.0, self.deadline - time.monotonic())
        return public_view(self, left)

    def state(self, player: int | None, public: dict[str, Any] | None = None) -> dict[str, Any]:
        """The state message body for a place (``None``: a spectator)."""
        return seat_view(self, player, self.public_state() if public is None else public)

    def log_view(self, player: int | None) -> dict[str, Any]:
        """``GET /api/tables/{id}/log`` (docs/protocol.md "Log"): every accepted action and
        result, and each deal's engine log (:meth:`Game.log`). A finished deal is shown whole
        — every hand as dealt, indexed by the seat it was dealt to (before a 明牌 swap) — so
        any client can check it with its own engine; its seed only once the match is over
        (a deal's seed gives the match's seed, :func:`shuangkou.rng.deal_seed` is
        invertible, and with it every later deal). The deal in play is as ``player``'s seat
        sees it (``None``: a spectator). An expired table has nothing left to hide: every
        deal whole, with its seed."""
        games = self.match.games
        deals: list[dict[str, Any]] = [
            doc if self.closed else {**doc, "seed": None} for doc in self._deal_logs()]
        for g in games[len(deals):]:  # the deal in play (or, expired, cut short)
            deals.append(g.log() if self.expired else
                         g.log(seat=SPECTATOR if player is None else g.players.index(player)))
        return {
            "table": self.id, "config": self.config.public(), "player": player,
            "finished": self.finished, "expired": self.expired,
            "log": self._action_views(), "results": self._results(), "deals": deals,
        }

    # What a read is built from, kept as it is first built: the accepted actions, results
    # and whole logs of the deals that are over never change (a read is never made between
    # applying an action and committing it, :mod:`.commit`), so a read of a long table
    # builds only what is new since the last one. The lists are only ever extended.
    def _over(self) -> int:
        """How many deals are over (they end in order; only the last may be in play)."""
        games = self.match.games
        return len(games) - (not games[-1].is_over)

    def _action_views(self) -> list[dict[str, Any]]:
        views = self._views
        if len(views) < len(self.log):
            views.extend(action_view(a) for a in self.log[len(views):])
        return list(views)

    def _results(self) -> list[dict[str, Any]]:
        done, games = self._result_views, self.match.games
        done.extend(result_view(games[i]) for i in range(len(done), self._over()))
        return list(done)

    def _deal_logs(self) -> list[dict[str, Any]]:
        """The whole engine logs of the deals that are over, with their seeds."""
        done, games = self._whole_logs, self.match.games
        done.extend(games[i].log() for i in range(len(done), self._over()))
        return list(done)

    # -- seats and listeners ---------------------------------------------------------------
    def take(self, player: int | None, name: str) -> tuple[int, str]:
        """Give an open place (the first free one if ``player`` is None) a fresh token,
        stored before it is returned. Raises :class:`ProtocolError` (``taken``, ``expired``)
        if there is none."""
        if self.expired:
            raise ProtocolError("expired")
        free = [p for p in range(4) if self.config.seats[p] == "open" and p not in self.digests]
        if player is None:
            if not free:
                raise ProtocolError("taken", "no open place is free at this table")
            player = free[0]
        if player not in free:
            raise ProtocolError("taken", f"place {player} is not a free open place")
        token = secrets.token_urlsafe(24)
        digest = token_digest(token)
        if not self.store.take_seat(self.id, player, digest, name):
            raise ProtocolError("taken", f"place {player} was just taken")
        self.digests[player] = digest
        self.names[player] = name
        self.active = time.monotonic()
        self._broadcast_places()
        self.schedule()
        return player, token

    def player_for(self, token: str) -> int | None:
        """The place a token belongs to (constant-time comparison), or ``None``."""
        digest = token_digest(token)
        found = None
        for p, d in self.digests.items():
            if hmac.compare_digest(d, digest):
                found = p
        return found

    def attach(self, player: int | None, listener: Listener,
               reply_to: str | int | None = None) -> None:
        """Start sending to a listener (a reconnect replaces the place's old connection) and
        send it the welcome (``reply_to``: the join's id): the whole public log, the deal
        results so far, its state. A paused table of bots starts again."""
        if player is None:
            self.spectators.add(listener)
        else:
            old = self.listeners.get(player)
            self.listeners[player] = listener
            if old is not None and old is not listener:
                old.close(4000, "replaced by a newer connection with this token")
        listener.send(with_reply({
            "type": "welcome", "table": self.id, "player": player,
            "config": self.config.public(), "expired": self.expired,
            "log": self._action_views(), "results": self._results(),
            "state": self.state(player),
        }, reply_to))
        self._broadcast_places()
        if self._timer is None:
            self.schedule()

    def detach(self, player: int | None, listener: Listener) -> None:
        """Stop sending to a listener."""
        if player is None:
            self.spectators.discard(listener)
        elif self.listeners.get(player) is listener:
            del self.listeners[player]
            self._broadcast_places()

    # -- actions ---------------------------------------------------------------------------
    def act(self, player: int, kind: str, cards: tuple[int, ...] | Play = (),
            play_kind: str | None = None, *, seq: int | None = None,
            reply_to: str | int | None = None,
            refuse: Callable[[ProtocolError], None]) -> None:
        """Submit an action of a place: at the end of this turn of the event loop the engine
        validates it, the batch is committed, then it is broadcast (:mod:`.commit`). A refused
        action changes nothing and ``refuse`` gets the error."""
        self.commits.submit(
            Submitted(self, player, kind, cards, play_kind, seq, reply_to, refuse))

    def apply(self, s: Submitted) -> StoredAction:
        """Validate a submitted action through the engine and apply it (uncommitted: only
        :class:`.commit.GroupCommit` calls this, and it commits or undoes it before anything
        else runs). Raises :class:`ProtocolError` (nothing changed) if it is refused."""
        if self.finished:
            raise ProtocolError("match_over")
        if self.expired:
            raise ProtocolError("expired")
        if s.seq is not None and s.seq != self.seq:
            raise ProtocolError("stale", f"the table is at seq {self.seq}, not {s.seq}")
        game = self.game
        seat = self.seat_of(s.player)
        if s.kind != "abandon" and game.to_act != seat:
            raise ProtocolError("not_your_turn", f"it is seat {game.to_act}'s turn")
        try:
            self._apply(game, s.kind, seat, s.cards, s.play_kind)
        except IllegalPlayError as e:
            raise ProtocolError("illegal", str(e)) from None
        done = game.actions[-1]
        return StoredAction(
            self.seq, len(self.match.games) - 1, done.kind, done.seat, done.cards,
            None if done.play is None else done.play.kind.name.lower(),
        )

    def accepted(self, record: StoredAction, s: Submitted) -> None:
        """A committed action: log it, deal the next deal if this one ended, re-arm the bots
        and timer, broadcast it."""
        self.log.append(record)
        self.active = time.monotonic()
        ended = self.game if self.game.is_over else None
        self._next_deal()
        if self.finished:
            self.on_finish(self.id)
        self.schedule()  # first: the states broadcast carry the new deadline
        self._broadcast_action(record, ended, s.reply_to, s.player)

    @staticmethod
    def _apply(game: Game, kind: str, seat: int, cards: tuple[int, ...] | Play,
               play_kind: str | None) -> None:
        if kind == "play":
            game.play(cards, play_kind, seat=seat)
        elif kind == "pass":
            game.pass_(seat=seat)
        elif kind == "abandon":
            game.abandon(seat)
        else:
            raise IllegalPlayError(f"unknown action {kind!r}")

    def _next_deal(self) -> None:
        if self.game.is_over and len(self.match.games) < self.config.deals:
            self.match.deal()

    def hint(self, player: int, n: int, seq: int | None = None) -> dict[str, Any]:
        """The ``n``-th hint (cycling) for a place whose turn it is, of the position now
        (``seq``, when given, must be it: else ``stale``): :func:`shuangkou.solve.hints`,
        computed once per position. Synchronous on purpose: it reads the live game and
        answers in one step, so no other action can move the position in between (an await
        here let a hint be computed for one seat and answered with the next seat's cards)."""
        if self.finished:
            raise ProtocolError("match_over")
        if self.expired:
            raise ProtocolError("expired")
        if seq is not None and seq != self.seq:
            raise ProtocolError("stale", f"the table is at seq {self.seq}, not {seq}")
        game, seat = self.game, self.seat_of(player)
        if game.to_act != seat:
            raise ProtocolError("not_your_turn", f"it is seat {game.to_act}'s turn")
        order = self.hint_order()
        if not order:
            return {"type": "hint", "cards": [], "pass": True, "count": 0, "seq": self.seq}
        play = order[n % len(order)]
        return {"type": "hint", "cards": list(game.cards_for(play, seat)),
                "kind": play.kind.name.lower(), "text": play.describe(), "pass": False,
                "count": len(order), "seq": self.seq}

    def hint_order(self) -> list[Play]:
        """The solver's hint order for the seat to act now (cached for this ``seq``)."""
        if self._hints is None or self._hints[0] != self.seq:
            self._hints = (self.seq, solver_hints(self.game))
        return self._hints[1]

    # -- broadcasting ----------------------------------------------------------------------
    def _broadcast_action(self, record: StoredAction, ended: Game | None,
                          reply_to: str | int | None, actor: int) -> None:
        act = action_view(record)
        result = None if ended is None else result_view(ended)
        public = self.public_state()
        for player, listener in list(self.listeners.items()):
            msg: dict[str, Any] = {"type": "update", "action": act,
                                   "state": self.state(player, public)}
            if player == actor and reply_to is not None:
                msg["reply_to"] = reply_to
            if result is not None:
                msg["result"] = result
            listener.send(msg)
        if self.spectators:
            spec: dict[str, Any] = {"type": "update", "action": act, "state": public}
            if result is not None:
                spec["result"] = result
            data = encode(spec)  # one encoding for every spectator
            for listener in list(self.spectators):
                listener.send_encoded(data)

    def _broadcast_places(self) -> None:
        data = encode({"type": "places", "places": self.places()})
        for listener in [*self.listeners.values(), *self.spectators]:
            listener.send_encoded(data)

    # -- bots and the turn timer -----------------------------------------------------------
    def schedule(self) -> None:
        """Arm what moves the table next: a bot's move after ``bot_delay``, or the turn timer
        of a person (or a free open place). Called after every change."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.deadline = None
        if self.closed:
            return
        game = self.game
        assert game.to_act is not None
        player = game.players[game.to_act]
        loop = asyncio.get_running_loop()
        bots_only = "open" not in self.config.seats
        if bots_only and self.pause_unwatched and not self.watched:
            return  # paused: attach() starts it again
        if self.config.seats[player] != "open":
            self._timer = loop.call_later(self.bot_delay, self._auto_move, player, True)
        elif self.config.timer is not None:
            self.deadline = time.monotonic() + self.config.timer
            self._timer = loop.call_later(self.config.timer, self._auto_move, player, False)

    def _auto_move(self, player: int, bot: bool) -> None:
        """A bot's move, or the timeout default (docs/protocol.md "Turn timer"): pass when
        passing is legal, else the first hint (:meth:`hint_order`). Chosen on the position
        now and submitted with its ``seq``: if another action (an abandon out of turn) moves
        the table before the batch is applied, the move is refused as ``stale`` instead of
        being applied to a position it was not chosen for (that action re-armed the table)."""
        self._timer = None
        game = self.game
        seat = game.to_act
        if self.closed or seat is None or game.players[seat] != player:
            return
        if bot:
            kind = self.config.seats[player]
            policy = shared_bot(kind, self.config.rules)
            plays = game.legal_plays(getattr(policy, "wilds", "all"))  # the bot protocol
            rng = SplitMix64((self.config.seed ^ (self.seq + 1) * _GOLDEN) & (2**64 - 1))
            # the bot is handed only its seat's view (the fair-bot rule of shuangkou.sim)
            choice = policy(game.view(seat), plays, rng)
            if isinstance(choice, int) and not isinstance(choice, bool):
                choice = plays[choice]  # a bot may answer by the play's index
        else:
            choice = None if game.can_pass() else self.hint_order()[0]
        def retry(err: ProtocolError) -> None:  # e.g. the store refused it: try again later
            if err.code != "stale" and self._timer is None:
                self._timer = asyncio.get_running_loop().call_later(
                    max(self.bot_delay, 1.0), self._auto_move, player, bot)

        if choice:
            self.act(player, "play", choice, seq=self.seq, refuse=retry)
        else:
            self.act(player, "pass", seq=self.seq, refuse=retry)

    def stop(self) -> None:
        """Cancel the timer (server shutdown)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
