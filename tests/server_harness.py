"""Shared by the server tests: a real server on 127.0.0.1 (in-process on a free port, or the
``shuangkou serve`` command in a subprocess), and an independent replay of a table's log."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from jsonschema import Draft202012Validator

from shuangkou.game import Match
from shuangkou.rules import Rules
from shuangkou.server import Limits, Server, make_app, open_store
from shuangkou.server import app as server_app
from shuangkou.server import table as server_table
from shuangkou.server.app import handler_args
from shuangkou.server.client import TableClient
from shuangkou.server.cluster import free_port  # noqa: F401 (the tests' and benchmarks' too)
from shuangkou.server.ownership import Ownership
from shuangkou.server.protocol import encode

SCHEMA: dict[str, Any] = json.loads(
    (Path(__file__).parent.parent / "docs" / "protocol.schema.json").read_text())
"""docs/protocol.schema.json: the protocol's JSON Schema."""


def schema_validator(name: str) -> Draft202012Validator:
    """A validator for one of the schema's ``$defs`` (``server_message``, ``http_answer``)."""
    return Draft202012Validator({"$ref": f"#/$defs/{name}", "$defs": SCHEMA["$defs"]})


_WS, _HTTP = schema_validator("server_message"), schema_validator("http_answer")


@pytest.fixture(autouse=True)
def schema_checked(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Check every message an in-process server sends (WebSocket messages and HTTP answers
    alike go through ``protocol.encode``) against docs/protocol.schema.json; a test that
    imports this fixture fails if any did not match."""
    bad: list[str] = []

    def checked(message: dict[str, Any]) -> bytes:
        validator = _WS if "type" in message else _HTTP
        for err in validator.iter_errors(message):
            bad.append(f"{err.message} at {list(err.absolute_path)} in {str(message)[:300]}")
        return encode(message)

    monkeypatch.setattr(server_app, "encode", checked)
    monkeypatch.setattr(server_table, "encode", checked)
    yield
    assert not bad, bad[:5]


@asynccontextmanager
async def running(db: str, *, limits: Limits | None = None, bot_delay: float = 0.0,
                  allow_seed: bool = True, ownership: Ownership | None = None,
                  ) -> AsyncIterator[tuple[Server, str]]:
    """A server on a free localhost port over the store at ``db``: yields (server, base URL).
    Without ``limits``, the defaults less the per-address creation and read limits (tests
    create and read many tables from 127.0.0.1; tests/test_server_limits.py tests those).
    ``ownership``: a cluster node's (default: one process owning every table)."""
    if limits is None:
        limits = Limits(create_rate=0, read_rate=0, tables_per_address=0)
    server = Server(open_store(db), bot_delay=bot_delay, allow_seed=allow_seed,
                    limits=limits, ownership=ownership)
    runner = web.AppRunner(make_app(server), **handler_args(server.limits))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield server, f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


def run(coro: Callable[[], Awaitable[Any]], timeout: float = 120.0) -> Any:
    """Run an async test body with a hard time limit."""
    async def main() -> Any:
        return await asyncio.wait_for(coro(), timeout)

    return asyncio.run(main())


async def play_one(clients: list[TableClient]) -> None:
    """The place to act makes one move (smallest-first); returns once every client has
    received it."""
    actor = next(c for c in clients if c.my_turn)
    seq = actor.state["seq"]
    await actor.act()
    for c in clients:
        while c.state["seq"] <= seq:
            if await c.receive() is None:
                raise ConnectionError("closed while waiting for an update")
        assert not c.errors, c.errors


UNLIMITED_ADDRESS = ["--limit", "create_rate=0", "--limit", "tables_per_address=0",
                     "--limit", "connections_per_address=0", "--limit", "read_rate=0"]
"""``serve`` flags lifting the per-address limits: tests and benchmarks run every client from
127.0.0.1 (tests/test_server_limits.py tests those limits)."""


def start_serve(db: str, port: int, bot_delay: float = 0.0) -> subprocess.Popen[bytes]:
    """``shuangkou serve`` in a subprocess; returns once it answers ``GET /api``."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "shuangkou", "serve", "--db", db, "--host", "127.0.0.1",
         "--port", str(port), "--bot-delay", str(bot_delay), *UNLIMITED_ADDRESS],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            err = proc.stderr.read().decode() if proc.stderr else ""
            raise RuntimeError(f"serve exited: {err}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api", timeout=1).read()
            return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("serve did not start")


def replay_log(config: dict[str, Any], log: list[dict[str, Any]], seed: int) -> Match:
    """Play a logged match again through the engine alone (the test's own replay, not the
    server's): every action must be legal where it stands; returns the match."""
    rules = Rules.from_dict(config["options"])
    match = Match(rules, seed)
    game = match.deal()
    for i, a in enumerate(log):
        assert a["seq"] == i
        if game.is_over:
            game = match.deal()
        assert a["deal"] == len(match.games) - 1
        if a["kind"] == "play":
            game.play(a["cards"], a["play_kind"], seat=a["seat"])
        elif a["kind"] == "pass":
            game.pass_(seat=a["seat"])
        else:
            game.abandon(a["seat"])
    return match


def db_url(tmp: Path, name: str = "sk.db") -> str:
    return f"sqlite://{tmp / name}"
