"""Every resource limit of a server (:class:`Limits`, docs/protocol.md "Limits"), each field
checked when a ``Limits`` is built: a server never starts with a limit that means nothing
(``rate=nan`` turned the flood limit off, ``auth_timeout=nan`` dropped every WebSocket,
``idle=-1`` expired every table at once)."""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from ipaddress import IPv4Network, IPv6Network, ip_network
from typing import Any

from .._check import as_int, as_seconds
from ..errors import ArgumentError

__all__ = ["AddressBuckets", "Limits", "proxy_networks"]


def _number(lo: float, *, above: bool) -> Callable[[object, str], None]:
    """A finite int or float ``> lo`` (``above``) or ``>= lo``; not a bool."""
    def check(value: object, what: str) -> None:
        ok = (not isinstance(value, bool) and isinstance(value, (int, float))
              and math.isfinite(value) and (value > lo if above else value >= lo))
        if not ok:
            bound = f"> {lo:g}" if above else f">= {lo:g}"
            raise ArgumentError(f"{what} must be a finite number {bound}, got {value!r:.40}")
    return check


def _count(lo: int) -> Callable[[object, str], None]:
    def check(value: object, what: str) -> None:
        as_int(value, what, lo)
    return check


def _seconds(value: object, what: str) -> None:
    as_seconds(value, what)


def _flag(value: object, what: str) -> None:
    if not isinstance(value, bool):
        raise ArgumentError(f"{what} must be true or false, got {value!r:.40}")


def _key(value: object, what: str) -> None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise ArgumentError(f"{what} must be unset or a non-empty text, got {value!r:.40}")


def _proxies(value: object, what: str) -> None:
    if not isinstance(value, str):
        raise ArgumentError(f"{what} must be a text, got {value!r:.40}")
    proxy_networks(value)


def _limit(default: Any, check: Callable[[object, str], None], help: str) -> Any:
    return field(default=default, metadata={"help": help, "check": check})


@dataclass
class Limits:
    """Every resource limit of a server (docs/protocol.md "Limits"; ``shuangkou serve`` sets
    each with ``--limit NAME=VALUE``). Rates are per second. ``0`` means "no limit" only for
    ``create_rate``, ``read_rate``, ``tables_per_address`` and ``connections_per_address`` (and
    ``spectators=0`` allows none); every other number must be positive. Each field is
    checked when the object is built (:class:`~shuangkou.errors.ArgumentError` naming it)."""

    rate: float = _limit(20.0, _number(0, above=True), (
        "messages a second a connection may send that are not accepted actions"))
    burst: float = _limit(40.0, _number(1, above=False), "burst allowance of rate (>= 1)")
    auth_timeout: float = _limit(10.0, _seconds, "seconds a WebSocket has to join or spectate")
    queue: int = _limit(512, _count(1), "messages queued for a slow client before it is dropped")
    spectators: int = _limit(50, _count(0), "spectators per table (0: none)")
    tables: int = _limit(2000, _count(1), "unfinished tables per server")
    create_rate: float = _limit(0.2, _number(0, above=False), (
        "tables an address may create a second (sustained; 0: no limit)"))
    create_burst: float = _limit(10.0, _number(1, above=False),
                                 "burst allowance of create_rate (>= 1)")
    read_rate: float = _limit(20.0, _number(0, above=False), (
        "reads an address may make a second: the table listing, a table, its log, a"
        " WebSocket's join or spectate (sustained; 0: no limit)"))
    read_burst: float = _limit(40.0, _number(1, above=False), "burst allowance of read_rate (>= 1)")
    create_key: str | None = _limit(None, _key, (
        "if set, creating a table needs 'Authorization: Bearer KEY' (then neither"
        " create_rate nor tables_per_address applies)"))
    tables_per_address: int = _limit(20, _count(0), (
        "unfinished tables created by one address and held at once, without create_key"
        " (0: no limit)"))
    connections_per_address: int = _limit(64, _count(0), (
        "open WebSocket connections per address (0: no limit)"))
    idle: float = _limit(3600.0, _seconds, (
        "seconds without an accepted action or a taken place before an unfinished table"
        " expires (its log is kept)"))
    header_timeout: float = _limit(10.0, _seconds, (
        "seconds an HTTP connection has to send a request's headers (and idle keep-alive)"))
    body_timeout: float = _limit(10.0, _seconds, "seconds an HTTP request has to send its body")
    pause_unwatched: bool = _limit(True, _flag, (
        "pause a table of bots only while no connection watches it"))
    trust_forwarded: bool = _limit(False, _flag, (
        "behind a proxy: take the client address from the X-Forwarded-For line the proxy"
        " added (the last), on requests from proxies only"))
    proxies: str = _limit("127.0.0.1,::1", _proxies, (
        "the proxies whose X-Forwarded-For is believed with trust_forwarded: addresses or"
        " networks, comma-separated"))

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            f.metadata["check"](getattr(self, f.name), f"Limits.{f.name}")


@lru_cache(maxsize=8)
def proxy_networks(text: str) -> tuple[IPv4Network | IPv6Network, ...]:
    """``Limits.proxies`` read: comma-separated addresses or networks (``10.0.0.2``,
    ``10.0.0.0/24``, ``::1``); raises ``ArgumentError`` naming the entry."""
    networks = []
    for entry in text.split(","):
        try:
            networks.append(ip_network(entry.strip(), strict=False))
        except ValueError:
            raise ArgumentError(f"proxies: {entry.strip()[:60]!r} is not an address or"
                                " network; give e.g. 127.0.0.1,10.0.0.0/24") from None
    return tuple(networks)


class AddressBuckets:
    """A token bucket per client address: ``rate`` tokens a second up to ``burst`` (a
    ``rate`` of 0: no limit). Only addresses below a full bucket are remembered
    (:meth:`prune`)."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate: float = rate
        self.burst: float = burst
        self._buckets: dict[str, tuple[float, float]] = {}  # address: (tokens, time)

    def take(self, address: str) -> bool:
        """Take a token for ``address``; ``False`` if it has none left."""
        if self.rate <= 0:
            return True
        now = time.monotonic()
        tokens, last = self._buckets.get(address, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        if tokens < 1:
            self._buckets[address] = (tokens, now)
            return False
        self._buckets[address] = (tokens - 1, now)
        return True

    def prune(self) -> None:
        """Forget the addresses whose bucket has filled again (a full bucket is the
        default)."""
        now = time.monotonic()
        full = [a for a, (tokens, t) in self._buckets.items()
                if tokens + (now - t) * self.rate >= self.burst]
        for a in full:
            del self._buckets[a]
