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


def _missing_extra(error: ModuleNotFoundError) -> ImportError:
    """The error for a failed import of the envs: an ImportError naming the extra when
    gymnasium or pettingzoo is missing, else ``error`` itself."""
    if (error.name or "").partition(".")[0] not in ("gymnasium", "pettingzoo"):
        return error
    return ImportError(f"{error.name} is missing: the PettingZoo and Gymnasium envs need the "
                       "rl extra (pip install 'shuangkou[rl]'); VecEnv needs only numpy",
                       name=error.name)


def env(rules: Any = "baibian", render_mode: str | None = None) -> Any:
    """A PettingZoo AEC env of one deal (:class:`shuangkou.rl.aec.ShuangkouAEC`; needs the
    ``[rl]`` extra: without it, an ImportError saying how to install it)."""
    try:
        from .aec import env as make
    except ModuleNotFoundError as e:
        raise _missing_extra(e) from e
    return make(rules, render_mode=render_mode)


def __getattr__(name: str) -> Any:
    if name == "SingleAgentEnv":  # imported lazily: gymnasium is the optional extra [rl]
        try:
            from .gym import SingleAgentEnv
        except ModuleNotFoundError as e:
            raise _missing_extra(e) from e
        return SingleAgentEnv
    raise AttributeError(f"module 'shuangkou.rl' has no attribute {name!r}")
