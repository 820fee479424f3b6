"""Reinforcement learning over the kernel (docs/rl.md).

* :class:`VecEnv` – N deals stepped together in C (GIL released, threads split the batch),
  observations, legal masks over the action table and the exact legal plays as CSR, rewards,
  in-kernel opponents. Needs only numpy.
* :func:`env` – a PettingZoo AEC env; :class:`SingleAgentEnv` – a Gymnasium env (optional extra
  ``shuangkou[rl]``).
"""

from __future__ import annotations

from typing import Any

from .vecenv import Step, VecEnv

__all__ = ["SingleAgentEnv", "Step", "VecEnv", "env"]


def env(rules: Any = "baibian", render_mode: str | None = None) -> Any:
    """A PettingZoo AEC env of one deal (:class:`shuangkou.rl.aec.ShuangkouAEC`; needs the
    ``[rl]`` extra)."""
    from .aec import env as make

    return make(rules, render_mode=render_mode)


def __getattr__(name: str) -> Any:
    if name == "SingleAgentEnv":  # imported lazily: gymnasium is the optional extra [rl]
        from .gym import SingleAgentEnv

        return SingleAgentEnv
    raise AttributeError(f"module 'shuangkou.rl' has no attribute {name!r}")
