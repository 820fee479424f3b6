"""A PettingZoo AEC env over one deal of the kernel (``shuangkou.rl.env``; extra ``[rl]``).

Agents ``seat_0`` … ``seat_3`` (R7: 0+2 and 1+3 are partners). The observation of an agent is
``{"observation": float32[OBS_SIZE], "action_mask": int8[A]}``: its own view (docs/rl.md,
"Observations") and, for the agent to act, the legal actions of the fixed action table (the
other agents' masks are all 0). An action is an action-table id (0 = pass); its cards follow
the rule of docs/rl.md. When the deal ends every agent gets its R8 score as reward and is
terminated. ``reset(seed)`` deals deal 0 of the stream ``seed`` (the cards of
``Game(rules, rng.deal_seed(seed, 0))``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Self

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import AgentSelector

from .._check import as_int
from .._rl import AgentIter, Busy
from ..batch import OBS_SIZE
from ..rules import Rules
from .render import render
from .vecenv import VecEnv, _in_use

__all__ = ["ShuangkouAEC", "env"]

OBS_HIGH = 27.0
"""Upper bound of every observation entry (a seat holds at most 27 cards)."""


def observation_space(n_actions: int) -> spaces.Dict:
    """The observation space of the PettingZoo and Gymnasium envs."""
    return spaces.Dict({
        "observation": spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), np.float32),
        "action_mask": spaces.Box(0, 1, (n_actions,), np.int8),
    })


Observation = dict[str, np.ndarray]
"""An agent's observation: ``{"observation": float32[OBS_SIZE], "action_mask": int8[A]}``."""


if TYPE_CHECKING:
    class _AECBase:
        """What type checkers see of pettingzoo's ``AECEnv``: it ships no types (no
        ``py.typed``), so subclassing it would leave this env's public type unknown. These are
        the members of its API that this env inherits and does not define (users' and this
        module's calls); at run time the base is ``AECEnv`` itself."""

        metadata: dict[str, Any]
        _cumulative_rewards: dict[str, float]

        @property
        def num_agents(self) -> int: ...
        @property
        def max_num_agents(self) -> int: ...
        @property
        def unwrapped(self) -> Self: ...
        def _was_dead_step(self, action: int | None) -> None: ...
        def _accumulate_rewards(self) -> None: ...
else:
    _AECBase = AECEnv


class ShuangkouAEC(_AECBase):
    """One deal, four agents, over a one-row :class:`VecEnv` (see the module docstring)."""

    metadata: dict[str, Any] = {"name": "shuangkou_v1", "render_modes": ["human", "ansi"],
                                "is_parallelizable": False}

    def __init__(self, rules: Rules | str = "baibian", render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode not in (None, "human", "ansi"):
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', not {render_mode!r}")
        self.render_mode: str | None = render_mode
        self._vec = VecEnv(rules, 1, autoreset=False)
        self.rules: Rules = self._vec.rules
        n = len(self._vec.table)
        self.possible_agents: list[str] = [f"seat_{s}" for s in range(4)]
        self.observation_spaces: dict[str, spaces.Dict] = {
            a: observation_space(n) for a in self.possible_agents}
        self.action_spaces: dict[str, spaces.Discrete] = {
            a: spaces.Discrete(n) for a in self.possible_agents}
        self._seeds = np.random.default_rng()
        self._n_actions = n
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        self._zero_mask = np.zeros(n, np.int8)
        self._to_act = -1
        # one call at a time, taken at the entry of every call that reads or writes the
        # agents' dicts (a second thread's call is refused with ConcurrentUseError before it
        # reads anything, never left to fail inside PettingZoo's bookkeeping)
        self._busy = Busy()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal deal 0 of the stream ``seed`` (a fresh random stream when ``None``)."""
        if not self._busy.acquire(False):
            raise _in_use("env")
        try:
            self._reset(seed)
        finally:
            self._busy.release()

    def _reset(self, seed: int | None) -> None:
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
        out = self._vec.reset(int(self._seeds.integers(0, 2**63)))
        self.agents: list[str] = list(self.possible_agents)
        self.rewards: dict[str, float] = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations: dict[str, bool] = {a: False for a in self.agents}
        self.truncations: dict[str, bool] = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._selector = AgentSelector(self.agents)
        self._to_act = int(out.to_act[0])
        self.agent_selection: str = self.possible_agents[self._to_act]
        self._acting_agent: str | None = self.agent_selection
        # the acting agent's observation: views into row 0, rewritten by each step, in one
        # dict made here (no dict a step)
        self._acting: Observation = {"observation": out.obs[0],
                                     "action_mask": out.mask[0].view(np.int8)}

    def agent_iter(self, max_iter: int = 2**63) -> Iterator[str]:
        """The agent to act, step after step, until the deal is over or ``max_iter`` agents
        have been given (PettingZoo's loop), from an iterator in C (PettingZoo's own makes a
        Python ``__next__`` call a step)."""
        return AgentIter(self, as_int(max_iter, "max_iter"))

    def last(
        self, observe: bool = True
    ) -> tuple[Observation | None, float, bool, bool, dict[str, Any]]:
        """``(observation, cumulative reward, terminated, truncated, info)`` of the agent to
        act (PettingZoo's ``last``; the acting agent's observation without a call)."""
        busy = self._busy
        if not busy.acquire(False):
            raise _in_use("env")
        try:  # (the body inline: a call a step costs a few hundred instructions)
            agent = self.agent_selection
            if not observe:
                obs = None
            elif agent is self._acting_agent:
                obs = self._acting
            else:
                obs = self._observe(agent)
            return (obs, self._cumulative_rewards[agent], self.terminations[agent],
                    self.truncations[agent], self.infos[agent])
        finally:
            busy.release()

    def observe(self, agent: str) -> Observation:
        """The agent's observation. The acting agent's is the same dict every step, its arrays
        views into the env's row (what the last step wrote, no copy): they change with the
        next step — copy them to keep them. Another agent's view is computed into new
        arrays."""
        if not self._busy.acquire(False):
            raise _in_use("env")
        try:
            return self._observe(agent)
        finally:
            self._busy.release()

    def _observe(self, agent: str) -> Observation:
        seat = self._seat.get(agent)
        if seat is None:
            seat = int(agent[-1])  # not an agent's name: the error of a bad seat
        if seat == self._to_act:
            return self._acting
        return {"observation": self._vec.observe(0, seat), "action_mask": self._zero_mask.copy()}

    def legal_actions(self, agent: str | None = None) -> list[int]:
        """The legal action-table ids of ``agent`` (default: the agent to act), ascending,
        as OpenSpiel's ``legal_actions()``: the ids where its ``action_mask`` is 1, without
        reading the mask (``random.choice(env.legal_actions())`` is a random legal action).
        Empty for an agent not to act, and once the deal is over. A new list each call."""
        busy = self._busy
        if not busy.acquire(False):
            raise _in_use("env")
        try:
            if agent is not None and self._seat.get(agent) is None:
                raise ValueError(f"agent must be one of {self.possible_agents}, not {agent!r}")
            if self._to_act < 0 or agent is not None and self._seat[agent] != self._to_act:
                return []
            return self._vec._legal_actions()
        finally:
            busy.release()

    def step(self, action: int | None) -> None:
        """Play the action-table id ``action`` (``None`` for a terminated agent) for the agent
        to act. A call while another thread's call on this env runs raises
        :class:`~shuangkou.errors.ConcurrentUseError` and changes nothing."""
        busy = self._busy
        if not busy.acquire(False):
            raise _in_use("env")
        try:  # (the body inline: a call a step costs a few hundred instructions)
            agent = self.agent_selection
            if self.terminations[agent] or self.truncations[agent]:
                self._was_dead_step(action)
                return
            self._cumulative_rewards[agent] = 0.0
            # an action-table id (0 passes): 2**64-1 is refused, not wrapped to -1
            if type(action) is not int or not 0 <= action < self._n_actions:
                action = as_int(action, "action", 0, self._n_actions - 1)
            self._to_act = to_act = self._vec._step_one(action, True)
            if to_act >= 0:
                # every reward is 0 until the deal ends (reset sets them so): nothing to add
                self.agent_selection = self._acting_agent = self.possible_agents[to_act]
            else:
                self._deal_over()
            if self.render_mode == "human":
                self.render()
        finally:
            busy.release()

    def _deal_over(self) -> None:
        """Every agent's reward and termination once the deal is over."""
        out = self._vec.last
        outcome, places = int(out.outcome[0]), tuple(out.places[0].tolist())
        for s, a in enumerate(self.possible_agents):
            self.rewards[a] = float(out.rewards[0, s])
            self.terminations[a] = True
            self.infos[a] = {"outcome": outcome, "places": places}
        self._acting_agent = None
        self.agent_selection = self._selector.next()
        self._accumulate_rewards()

    def render(self) -> str | None:
        return render(self._vec, self.render_mode)

    def close(self) -> None:
        self._vec.close()


def env(rules: Rules | str = "baibian", render_mode: str | None = None) -> ShuangkouAEC:
    """A PettingZoo AEC env of one deal under ``rules`` (see :mod:`shuangkou.rl.aec`)."""
    return ShuangkouAEC(rules, render_mode=render_mode)
