"""Persistence: the tables and every accepted action in a real database.

SQLite (stdlib ``sqlite3``) by default, PostgreSQL (``psycopg`` 3) for a ``postgresql://`` URL.
The store holds what is needed to rebuild every table exactly (docs/server.md "Persistence"):
the table's configuration (rules, seed, deals, timer, seats, token digests) and the ordered list
of accepted actions; the game state itself is never stored, it is re-derived by replaying the
actions through the engine, which re-validates each one.

Durability: :meth:`Store.append_many` commits before it returns and the server broadcasts
only after it returns (one transaction per turn of the event loop, :mod:`.commit`), so an
action a client has seen is on disk. SQLite runs in WAL mode with
``synchronous=NORMAL``: a commit survives the process being killed (``kill -9``); pass
``durable=True`` (``synchronous=FULL``) to survive power loss too, at an fsync per action.

Migrations: ``schema_version`` holds the number of the last migration applied;
:data:`MIGRATIONS` is the ordered list, each applied once in its own transaction.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import orjson

__all__ = ["MIGRATIONS", "ListedTable", "StoredAction", "StoredTable", "Store", "open_store"]

MIGRATIONS: tuple[str, ...] = (
    # 1: tables and their actions
    """
    CREATE TABLE sk_tables (
        id TEXT PRIMARY KEY,
        created DOUBLE PRECISION NOT NULL,
        config TEXT NOT NULL,
        finished INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE sk_actions (
        table_id TEXT NOT NULL REFERENCES sk_tables(id),
        seq INTEGER NOT NULL,
        deal INTEGER NOT NULL,
        kind TEXT NOT NULL,
        seat INTEGER NOT NULL,
        cards TEXT NOT NULL,
        play_kind TEXT,
        PRIMARY KEY (table_id, seq)
    );
    CREATE TABLE sk_seats (
        table_id TEXT NOT NULL REFERENCES sk_tables(id),
        player INTEGER NOT NULL,
        token_digest TEXT NOT NULL,
        name TEXT NOT NULL,
        PRIMARY KEY (table_id, player)
    );
    """,
)
"""Schema migrations, oldest first. Never edit one that has shipped: append a new one."""


@dataclass(frozen=True)
class StoredAction:
    """One accepted action: ``seq`` counts from 0 per table over the whole match; ``deal`` is
    the deal's index; ``kind`` ``"play"``, ``"pass"`` or ``"abandon"``; ``cards`` the physical
    ids; ``play_kind`` the reading's kind name (for a 千变 set with two readings)."""

    seq: int
    deal: int
    kind: str
    seat: int
    cards: tuple[int, ...] = ()
    play_kind: str | None = None


@dataclass(frozen=True)
class StoredTable:
    """A table as stored: its id, configuration document, and whether the match is over or
    expired unfinished (``sk_tables.finished``: 0 open, 1 finished, 2 expired)."""

    id: str
    created: float
    config: dict[str, Any]
    finished: bool
    expired: bool = False

    @classmethod
    def from_row(cls, r: Any) -> StoredTable:
        return cls(r[0], float(r[1]), json.loads(r[2]), int(r[3]) == 1, int(r[3]) == 2)


@dataclass(frozen=True)
class ListedTable:
    """An unfinished table as :meth:`Store.listing` reads it: ``config`` its stored JSON
    text, ``seq`` its number of accepted actions, ``deal`` the deal of the last one (0 if
    none), ``names`` the taken places' names by place."""

    id: str
    created: float
    config: str
    seq: int
    deal: int
    names: dict[int, str]


class Store:
    """A database of tables and actions over one DB-API connection (see the module docstring).
    Calls are synchronous and short (one indexed insert and a commit)."""

    def __init__(self, conn: Any, placeholder: str, url: str, path: str = "") -> None:
        self._conn = conn
        self._ph = placeholder
        self._path = path
        self._checkpointer: threading.Thread | None = None
        self._stop = threading.Event()
        self.url = url
        self._insert_action = self._sql(
            "INSERT INTO sk_actions (table_id, seq, deal, kind, seat, cards, play_kind)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)"
        )
        self._finish = self._sql("UPDATE sk_tables SET finished = 1 WHERE id = ?")
        self._migrate()

    def _sql(self, text: str) -> str:
        return text.replace("?", self._ph)

    @contextmanager
    def _tx(self) -> Iterator[Any]:
        cur = self._conn.cursor()
        try:
            yield cur
            self._conn.commit()
        except BaseException:
            self._conn.rollback()
            raise
        finally:
            cur.close()

    def _migrate(self) -> None:
        """Apply the missing migrations. On PostgreSQL under an advisory lock (the two-int
        key space, apart from the tables' leases), so that nodes starting together over a
        fresh database migrate one at a time."""
        pg = self._ph == "%s"
        if pg:
            self._conn.execute("SELECT pg_advisory_lock(5837, 1)")
            self._conn.commit()
        try:
            self._migrate_locked()
        finally:
            if pg:
                self._conn.execute("SELECT pg_advisory_unlock(5837, 1)")
                self._conn.commit()

    def _migrate_locked(self) -> None:
        with self._tx() as cur:
            cur.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            cur.execute("SELECT version FROM schema_version")
            row = cur.fetchone()
            if row is None:
                cur.execute("INSERT INTO schema_version (version) VALUES (0)")
                done = 0
            else:
                done = int(row[0])
        if done > len(MIGRATIONS):
            raise RuntimeError(
                f"database schema version {done} is newer than this server's {len(MIGRATIONS)}"
            )
        for n in range(done, len(MIGRATIONS)):
            with self._tx() as cur:
                for stmt in MIGRATIONS[n].split(";"):
                    if stmt.strip():
                        cur.execute(stmt)
                cur.execute(self._sql("UPDATE schema_version SET version = ?"), (n + 1,))

    @property
    def schema_version(self) -> int:
        """The number of migrations applied."""
        with self._tx() as cur:
            cur.execute("SELECT version FROM schema_version")
            return int(cur.fetchone()[0])

    def create_table(self, table_id: str, created: float, config: dict[str, Any]) -> None:
        """Store a new table (committed on return)."""
        with self._tx() as cur:
            cur.execute(
                self._sql("INSERT INTO sk_tables (id, created, config) VALUES (?, ?, ?)"),
                (table_id, created, json.dumps(config, sort_keys=True)),
            )

    def append_many(self, rows: list[tuple[str, StoredAction, bool]]) -> None:
        """Store accepted actions, each ``(table id, action, finished)``, in one transaction
        (committed on return, or nothing is: the server's group commit). The hot path of
        the server: statements on the connection and one commit, no cursor of its own."""
        conn = self._conn
        try:
            for table_id, a, finished in rows:
                conn.execute(self._insert_action, (
                    table_id, a.seq, a.deal, a.kind, a.seat, orjson.dumps(a.cards).decode(),
                    a.play_kind,
                ))
                if finished:
                    conn.execute(self._finish, (table_id,))
            conn.commit()
        except BaseException:
            conn.rollback()
            raise

    def expire(self, table_id: str) -> None:
        """Mark an unfinished table expired (committed on return; its actions are kept)."""
        with self._tx() as cur:
            cur.execute(
                self._sql("UPDATE sk_tables SET finished = 2 WHERE id = ? AND finished = 0"),
                (table_id,))

    def take_seat(self, table_id: str, player: int, token_digest: str, name: str) -> bool:
        """Give ``player``'s place to the holder of a token (its SHA-256 digest is stored, never
        the token); ``False`` if the place was already taken. Committed on return."""
        try:
            with self._tx() as cur:
                cur.execute(
                    self._sql("INSERT INTO sk_seats (table_id, player, token_digest, name)"
                              " VALUES (?, ?, ?, ?)"),
                    (table_id, player, token_digest, name),
                )
        except Exception as e:  # the primary key refused a second holder
            if "unique" in str(e).lower() or "duplicate" in str(e).lower():
                return False
            raise
        return True

    def seats(self, table_id: str) -> dict[int, tuple[str, str]]:
        """The taken places of a table: player → (token digest, name)."""
        with self._tx() as cur:
            cur.execute(
                self._sql("SELECT player, token_digest, name FROM sk_seats WHERE table_id = ?"),
                (table_id,),
            )
            return {int(r[0]): (r[1], r[2]) for r in cur.fetchall()}

    def table(self, table_id: str) -> StoredTable | None:
        """One stored table, or ``None``."""
        with self._tx() as cur:
            cur.execute(
                self._sql("SELECT id, created, config, finished FROM sk_tables WHERE id = ?"),
                (table_id,),
            )
            r = cur.fetchone()
        return None if r is None else StoredTable.from_row(r)

    def tables(self, *, unfinished_only: bool = False) -> list[StoredTable]:
        """Every stored table (or only the unfinished ones), oldest first."""
        where = " WHERE finished = 0" if unfinished_only else ""
        with self._tx() as cur:
            cur.execute(f"SELECT id, created, config, finished FROM sk_tables{where} "
                        "ORDER BY created, id")
            rows = cur.fetchall()
        return [StoredTable.from_row(r) for r in rows]

    def listing(self) -> list[ListedTable]:
        """Every unfinished table, oldest first, as the lobby lists it: its configuration,
        its number of accepted actions and the deal of the last one, and its taken places'
        names — what any node of a cluster can read of a table another node serves (three
        index lookups a table, no replay)."""
        with self._tx() as cur:
            cur.execute(
                "SELECT t.id, t.created, t.config,"
                " (SELECT MAX(a.seq) FROM sk_actions a WHERE a.table_id = t.id),"
                " (SELECT a.deal FROM sk_actions a WHERE a.table_id = t.id"
                "  ORDER BY a.seq DESC LIMIT 1)"
                " FROM sk_tables t WHERE t.finished = 0 ORDER BY t.created, t.id")
            rows = cur.fetchall()
            cur.execute(
                "SELECT s.table_id, s.player, s.name FROM sk_seats s"
                " JOIN sk_tables t ON t.id = s.table_id WHERE t.finished = 0")
            seats: dict[str, dict[int, str]] = {}
            for table_id, player, name in cur.fetchall():
                seats.setdefault(table_id, {})[int(player)] = name
        return [ListedTable(r[0], float(r[1]), r[2], 0 if r[3] is None else int(r[3]) + 1,
                            0 if r[4] is None else int(r[4]), seats.get(r[0], {}))
                for r in rows]

    def actions(self, table_id: str) -> list[StoredAction]:
        """A table's accepted actions in order."""
        with self._tx() as cur:
            cur.execute(
                self._sql(
                    "SELECT seq, deal, kind, seat, cards, play_kind FROM sk_actions"
                    " WHERE table_id = ? ORDER BY seq"
                ),
                (table_id,),
            )
            rows = cur.fetchall()
        return [
            StoredAction(int(r[0]), int(r[1]), r[2], int(r[3]), tuple(json.loads(r[4])), r[5])
            for r in rows
        ]

    def checkpoint_in_background(self, every: float = 1.0) -> None:
        """SQLite: move WAL checkpoints off the caller's thread. A checkpoint copies the WAL
        into the database file and fsyncs it (tens to hundreds of milliseconds on a busy
        disk); SQLite's automatic one runs inside a commit, so it stalled the server's event
        loop. Here the commits never checkpoint, and a thread with its own connection runs a
        passive checkpoint (it never blocks a writer) every ``every`` seconds. No-op for
        PostgreSQL and ``:memory:``. Stopped by :meth:`close`."""
        if self._ph != "?" or self._path in ("", ":memory:"):
            return
        self._conn.execute("PRAGMA wal_autocheckpoint=0")
        self._stop = threading.Event()
        self._checkpointer = threading.Thread(
            target=_checkpoints, args=(self._path, every, self._stop),
            name="shuangkou-checkpoint", daemon=True)
        self._checkpointer.start()

    def close(self) -> None:
        """Close the connection (and stop the checkpoint thread, after a last checkpoint)."""
        if self._checkpointer is not None:
            self._stop.set()
            self._checkpointer.join()
            self._checkpointer = None
        self._conn.close()


def open_store(url: str, *, durable: bool = False) -> Store:
    """Open (creating and migrating if needed) the store at ``url``: ``sqlite://PATH`` (so
    ``sqlite:///var/sk.db`` is ``/var/sk.db``), a plain file path, ``sqlite://:memory:``, or ``postgresql://user:pw@host/db``
    (needs ``psycopg``: ``pip install 'shuangkou[server]'``)."""
    if not isinstance(url, str):
        raise TypeError(f"url must be a str such as 'sqlite://shuangkou.db', not "
                        f"{type(url).__name__}")
    if url.startswith(("postgresql://", "postgres://")):
        import psycopg

        return Store(psycopg.connect(url), "%s", url)
    path = url.removeprefix("sqlite://")  # sqlite:///tmp/x.db is /tmp/x.db
    conn = sqlite3.connect(path, isolation_level="DEFERRED", check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
    conn.execute("PRAGMA foreign_keys=ON")
    return Store(conn, "?", url, path)


def _checkpoints(path: str, every: float, stop: threading.Event) -> None:
    conn = sqlite3.connect(path)
    try:
        while not stop.wait(every):
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
        conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
    finally:
        conn.close()
