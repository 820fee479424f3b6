"""A Gymnasium single-agent env: one seat is the agent, the three others are played inside
the kernel by a built-in policy (extra ``[rl]``).

The observation is ``{"observation": float32[OBS_SIZE], "action_mask": int8[A]}`` (docs/rl.md),
an action an action-table id (0 = pass; cards by the rule of docs/rl.md), the reward the
agent seat's R8 score when the deal ends (0 before). ``reset(seed)`` deals deal 0 of the
stream ``seed``. Every id of the ``Discrete`` action space is accepted, as Gymnasium's API
asks (``check_env`` samples unmasked actions): by default (``illegal="fallback"``) one outside
the mask is replaced by pass when answering, else by the first legal action, and
``info["illegal"]`` is set; ``illegal="raise"`` raises
:class:`~shuangkou.errors.IllegalPlayError` instead (to debug a masked learner). An id outside
the action space (``10**9``, ``-1``) is no action at all: refused with an
:class:`~shuangkou.errors.ArgumentError` whatever ``illegal`` says. ``legal_actions()`` lists
the legal ids (OpenSpiel's ``legal_actions()``).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .._check import as_int, as_seat
from .._rl import Busy
from ..rules import Rules
from .aec import observation_space
from .render import render
from .vecenv import VecEnv, _in_use

__all__ = ["SingleAgentEnv"]


class SingleAgentEnv(gymnasium.Env[dict[str, np.ndarray], np.int64]):
    """One deal of ``rules``; the agent plays ``seat``, ``opponents`` (``"random"`` or
    ``"greedy"``) the three other seats, partner included."""

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"]}

    def __init__(
        self,
        rules: Rules | str = "baibian",
        *,
        seat: int = 0,
        opponents: str = "greedy",
        illegal: str = "fallback",
        render_mode: str | None = None,
    ) -> None:
        seat = as_seat(seat)
        if illegal not in ("raise", "fallback"):
            raise ValueError(f"illegal must be 'raise' or 'fallback', not {illegal!r}")
        if render_mode not in (None, "human", "ansi"):
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', not {render_mode!r}")
        self.seat = seat
        self.illegal = illegal
        self.render_mode = render_mode
        self._vec = VecEnv(rules, 1, autoreset=False,
                           opponents={s: opponents for s in range(4) if s != seat})
        self.rules: Rules = self._vec.rules
        n = len(self._vec.table)
        self.observation_space: spaces.Space[dict[str, np.ndarray]] = (
            observation_space(n))  # type: ignore[assignment]
        self.action_space: spaces.Space[np.int64] = spaces.Discrete(n)
        self._n_actions = n
        self._busy = Busy()  # one call at a time (ConcurrentUseError at the entry of a second)

    def _obs(self) -> dict[str, np.ndarray]:
        out = self._vec.last
        return {"observation": self._vec.observe(0, self.seat),
                "action_mask": out.mask[0].astype(np.int8)}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        if not self._busy.acquire(False):
            raise _in_use("env")
        try:
            super().reset(seed=seed)
            self._vec.reset(int(self.np_random.integers(0, 2**63)))
            return self._obs(), {}
        finally:
            self._busy.release()

    def step(
        self, action: np.int64
    ) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """Play the action-table id ``action`` for the agent's seat; the other seats move in
        the kernel. Returns ``(observation, reward, terminated, truncated, info)``: the reward
        is the agent's R8 score once the deal is over, else 0. An id outside the action space
        raises :class:`~shuangkou.errors.ArgumentError` (never replaced by the fallback)."""
        if not self._busy.acquire(False):
            raise _in_use("env")
        try:
            return self._step(action)
        finally:
            self._busy.release()

    def _step(
        self, action: np.int64
    ) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        info: dict[str, Any] = {}
        mask = self._vec.last.mask[0]
        a = as_int(action, "action", 0, self._n_actions - 1)  # no id of the space: no action
        if not mask[a] and self.illegal == "fallback":
            info["illegal"] = True
            a = 0 if mask[0] else int(np.flatnonzero(mask)[0])
        self._vec._step_one(a, True)
        out = self._vec.last
        done = bool(out.done[0])
        reward = float(out.rewards[0, self.seat]) if done else 0.0
        if done:
            info.update(outcome=int(out.outcome[0]),
                        places=tuple(int(p) for p in out.places[0]))
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, done, False, info

    def legal_actions(self) -> list[int]:
        """The agent's legal action-table ids, ascending (where :meth:`action_masks` is
        True), as OpenSpiel's ``legal_actions()``; empty once the deal is over."""
        if not self._busy.acquire(False):
            raise _in_use("env")
        try:
            return [] if self._vec.last.done[0] else self._vec._legal_actions()
        finally:
            self._busy.release()

    def action_masks(self) -> np.ndarray:
        """The legal actions (sb3-contrib's MaskablePPO convention)."""
        mask: np.ndarray = self._vec.last.mask[0].copy()
        return mask

    def render(self) -> str | None:
        return render(self._vec, self.render_mode)

    def close(self) -> None:
        self._vec.close()
