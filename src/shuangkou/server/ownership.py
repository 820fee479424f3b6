"""Which tables a server process may serve. A table is stateful, so exactly one process
serves it at a time: alone, a process owns every table (:class:`Ownership`); in a cluster, a
node owns a table while it holds the table's lease, a PostgreSQL advisory lock
(:class:`shuangkou.server.cluster.PgOwnership`), and the proxy routes the table to it."""

from __future__ import annotations

__all__ = ["Ownership"]


class Ownership:
    """One process serving every table: every claim succeeds, no table is ever orphaned."""

    node: str | None = None
    """This node's name in the proxy (``None``: not in a cluster)."""
    scan_every: float = 30.0
    """Seconds between looks for :meth:`orphans`."""

    def claim(self, table_id: str) -> bool:
        """Take the table's ownership (and route it here); ``False`` if another node has it."""
        return True

    def release(self, table_id: str) -> None:
        """Give the table up (it finished, or expired)."""

    def orphans(self, held: set[str]) -> list[str]:
        """Unfinished tables no node owns (to adopt); ``held`` are this node's."""
        return []

    def close(self) -> None:
        """Give every table up (shutdown)."""
