"""Threads (issue #18): VecEnv steps give the same results from 1 and 4 Python threads (each
with its own env), and one VecEnv used from two threads at once refuses the second call
(``ConcurrentUseError``) instead of crashing the process (it segfaulted within 0.5 s).

The crash-prone scenario runs in a subprocess so that a regression fails this test instead of
killing the test run."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

from shuangkou.errors import ConcurrentUseError
from shuangkou.rl import VecEnv

PRESETS = ("classic", "baibian", "jj", "qianbian")


def _rollout(rules: str, seed: int, steps: int, threads: int = 1) -> list[bytes]:
    """``steps`` steps of a 64-deal env with greedy opponents and seeded random agent
    actions: the bytes of every output array, step by step."""
    env = VecEnv(rules, 64, threads=threads, opponents={1: "greedy", 3: "random"})
    rng = np.random.default_rng(seed)
    out = env.reset(seed)
    trace = []
    for _ in range(steps):
        n = np.diff(out.offsets)
        a = (rng.random(n.shape[0]) * (n + out.can_pass)).astype(np.int64)
        a[a == n] = -1
        out = env.step(a)
        trace.append(b"".join(np.ascontiguousarray(getattr(out, f)).tobytes()
                              for f in out.FIELDS))
    env.close()
    return trace


def test_vecenv_steps_are_the_same_from_1_and_4_threads() -> None:
    jobs = [(rules, seed) for rules in PRESETS for seed in (1, 2)]
    alone = {job: _rollout(*job, steps=40) for job in jobs}
    together: dict[tuple[str, int], list[bytes]] = {}
    errors: list[BaseException] = []

    def work(batch: list[tuple[str, int]]) -> None:
        try:
            for job in batch:
                together[job] = _rollout(*job, steps=40, threads=2 if job[1] == 2 else 1)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    workers = [threading.Thread(target=work, args=(jobs[t::4],)) for t in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors
    assert together == alone


def test_a_second_threads_call_is_refused_and_changes_nothing() -> None:
    env = VecEnv("baibian", 4)
    out = env.reset(1)
    hands = [env.hands(i) for i in range(4)]
    legal = [env.legal_plays(i) for i in range(4)]
    zeros = np.zeros(4, np.int64)
    assert env._busy.acquire(False)  # as if another thread's call were running
    try:
        for call in (lambda: env.step(zeros), lambda: env.reset(2), lambda: env.hands(0),
                     lambda: env.observe(0, 1), lambda: env.position(0),
                     lambda: env.legal_plays(0), env.close):
            with pytest.raises(ConcurrentUseError, match="another thread"):
                call()
    finally:
        env._busy.release()
    assert isinstance(ConcurrentUseError("x"), RuntimeError)
    assert [env.hands(i) for i in range(4)] == hands
    assert [env.legal_plays(i) for i in range(4)] == legal
    assert env.step(zeros) is out


HAMMER = textwrap.dedent("""
    import sys, threading, time
    import numpy as np
    from shuangkou.errors import ConcurrentUseError
    from shuangkou.rl import VecEnv

    env = VecEnv("qianbian", 512, threads=int(sys.argv[1]))
    env.reset(1)
    refused, steps, other = [0], [0], []

    def hammer(seed):
        rng = np.random.default_rng(seed)
        end = time.monotonic() + 1.0
        while time.monotonic() < end:
            try:
                out = env.last
                n = np.diff(out.offsets)
                a = (rng.random(n.shape[0]) * (n + out.can_pass)).astype(np.int64)
                a[a == n] = -1
                env.step(a)
                steps[0] += 1
            except ConcurrentUseError:
                refused[0] += 1
            except Exception as e:  # an action chosen on a list the other thread replaced
                other.append(type(e).__name__)

    ts = [threading.Thread(target=hammer, args=(s,)) for s in range(2)]
    for t in ts: t.start()
    for t in ts: t.join()
    print(steps[0], refused[0], sorted(set(other)))
""")


@pytest.mark.parametrize("threads", [1, 2])
def test_one_vecenv_from_two_threads_does_not_crash(threads: int) -> None:
    run = subprocess.run([sys.executable, "-c", HAMMER, str(threads)], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    steps, refused, other = run.stdout.split(maxsplit=2)
    assert int(steps) > 0 and int(refused) > 0
    # the only other error possible is an action that became illegal: never a crash
    assert other.strip() in ("[]", "['IllegalPlayError']")
