"""The 提示 (hint) order of the server: the solver's (:func:`shuangkou.solve.hints`,
docs/solver.md "Hints"), bounded in time, with smallest-first as the fallback.

The solver's order costs a decomposition of the rest of the hand per legal play: under a
millisecond late in a deal, but seconds (百变, JJ) to a minute (千变) for a 27-card hand with
wilds, and it holds the GIL. So the server never runs it on its event loop: a child process
(:func:`_child`) answers one position at a time, and a request it has
not answered within ``budget`` seconds (or that comes while it is busy) gets the
smallest-first order instead; a late child is killed (its CPU is bounded too) and a fresh one
started for the next request.

Smallest-first sorts the legal plays (one per reading, ``wilds="fewest"``) by kind, size,
length, top rank, width and wilds — the first six fields of :meth:`Play.sort_key`, read
straight from the play's tag (``Play.sort_key`` builds a Hand per call, ~100x slower) — with
ties kept in the kernel's order. It is also the turn timer's default play and the bot
client's choice (both must be instant).
"""

from __future__ import annotations

import asyncio
import sys
from typing import Literal

import orjson

from ..game import Game
from ..plays import Play, legal_plays
from ..position import format_position, parse_position
from ..rules import Rules
from ..solve import hints as solver_hints

__all__ = ["HINT_BUDGET", "HintSolver", "hint_key", "smallest_first"]

HINT_BUDGET = 0.25
"""Seconds the solver's order may take before a hint falls back to smallest-first."""

Order = Literal["solver", "smallest"]


def hint_key(play: Play) -> tuple[int, int, int, int, int, int]:
    """(kind, size, length, top, width, wilds) of a play, from its tag (docs/internals.md)."""
    tag = play.tag
    return (tag & 15, tag >> 22 & 63, tag >> 13 & 15, tag >> 4 & 15, tag >> 8 & 31,
            tag >> 28 & 7)


def smallest_first(plays: list[Play]) -> list[Play]:
    """``plays`` in the hint order (a stable sort: ties keep the given order)."""
    return sorted(plays, key=hint_key)


class HintSolver:
    """The child process that computes :func:`shuangkou.solve.hints` (module docstring)."""

    def __init__(self, budget: float = HINT_BUDGET) -> None:
        self.budget = budget
        self._proc: asyncio.subprocess.Process | None = None
        self._busy = False

    async def order(self, game: Game) -> tuple[list[Play], Order]:
        """The hints for the seat to act of ``game`` and which order they are in."""
        plays = game.legal_plays()
        if not plays:  # nothing beats the table: no hint in either order
            return [], "solver"
        found = await self._solve(game, plays)
        if found is not None:
            return found, "solver"
        return smallest_first(game.legal_plays("fewest")), "smallest"

    async def _solve(self, game: Game, plays: list[Play]) -> list[Play] | None:
        if self._busy or self.budget <= 0:
            return None
        self._busy = True
        try:
            proc = await self._started()
            assert proc.stdin is not None and proc.stdout is not None
            request = {"rules": game.rules.to_dict(), "position": format_position(game.state)}
            proc.stdin.write(orjson.dumps(request) + b"\n")
            line = await asyncio.wait_for(proc.stdout.readline(), self.budget)
            answer = orjson.loads(line)
        except (TimeoutError, OSError, orjson.JSONDecodeError):
            self.close()  # late or gone: a fresh child for the next request
            return None
        finally:
            self._busy = False
        # indices into the kernel's list of the same position (the child checks they match)
        if not isinstance(answer, list) or answer[:1] != [len(plays)]:
            return None
        return [plays[i] for i in answer[1:]]

    async def _started(self) -> asyncio.subprocess.Process:
        if self._proc is None or self._proc.returncode is not None:
            self._proc = await asyncio.create_subprocess_exec(
                sys.executable, "-c", "from shuangkou.server.hints import _child; _child()",
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
            assert self._proc.stdout is not None
            await asyncio.wait_for(self._proc.stdout.readline(), 30.0)  # imported: ready
        return self._proc

    def close(self) -> None:
        """Kill the child (it is started again when needed)."""
        if self._proc is not None and self._proc.returncode is None:
            self._proc.kill()
        self._proc = None

    async def aclose(self) -> None:
        """Kill the child and wait for it (server shutdown: no process or pipe is left)."""
        proc = self._proc
        self.close()
        if proc is not None:
            await proc.wait()


def _child() -> None:
    """The child's loop: one JSON request a line (rules, position text), one answer a line:
    ``[number of legal plays, index of each hint in that list…]``, or ``null``."""
    out = sys.stdout.buffer
    out.write(b"ready\n")
    out.flush()
    for line in sys.stdin.buffer:
        try:
            request = orjson.loads(line)
            rules = Rules.from_dict(request["rules"])
            state = parse_position(request["position"], rules)
            plays = legal_plays(state.hand(state.to_act), rules, state.table)
            index = {p: i for i, p in enumerate(plays)}
            answer: list[int] | None = [len(plays), *(index[p] for p in solver_hints(state))]
        except Exception:  # a position it cannot take: the server falls back
            answer = None
        out.write(orjson.dumps(answer) + b"\n")
        out.flush()
