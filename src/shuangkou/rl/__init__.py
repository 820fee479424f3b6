"""Reinforcement learning over the kernel (docs/rl.md).

* :class:`VecEnv` – N deals stepped together in C (GIL released, threads split the batch),
  observations, legal masks over the action table and the exact legal plays as CSR, rewards,
  in-kernel opponents. Needs only numpy.
* :func:`env` – a PettingZoo AEC env; :class:`SingleAgentEnv` – a Gymnasium env (optional extra
  ``shuangkou[rl]``).
"""

from __future__ import annotations

from .vecenv import Step, VecEnv

__all__ = ["Step", "VecEnv"]
