"""Shared test helpers: presets, seeded 27-card deals, hypothesis strategies for hands, and
``needs``/``require`` for tests that need an OS program or an optional package."""

from __future__ import annotations

import contextlib
import glob
import importlib.util
import os
import random
import shutil
import signal
import threading
import time
from collections.abc import Callable, Iterator

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from shuangkou import Hand, Rules
from shuangkou.cards import MAX_COPIES

PRESET_NAMES = ("classic", "baibian", "jj", "qianbian")

# No per-example deadline: the oracle's time varies with the hand, and a shared CI machine's
# speed with its load; a slow example is not a failure. Tests set their own example counts.
settings.register_profile(
    "shuangkou", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("shuangkou")


@pytest.fixture(params=PRESET_NAMES)
def rules(request: pytest.FixtureRequest) -> Rules:
    return Rules.preset(request.param)


def seeded_deal(seed: int, size: int = 27) -> Hand:
    """``size`` of the 108 physical cards, drawn with ``random.Random(seed)``."""
    return Hand.from_cards(random.Random(seed).sample(range(108), size))


@st.composite
def hands(draw: st.DrawFn, max_cards: int = 27, jokers: int | None = None) -> Hand:
    """A rank multiset of up to ``max_cards`` cards; ``jokers`` fixes SJ = BJ = jokers // 2."""
    counts = [0] * 15
    n = draw(st.integers(0, max_cards))
    for _ in range(n):
        r = draw(st.integers(0, 14))
        if counts[r] < MAX_COPIES[r]:
            counts[r] += 1
    if jokers is not None:
        counts[13] = counts[14] = jokers // 2
    return Hand.from_counts(counts)


# -- what a test needs beyond the lean test extra ---------------------------------------------
# The README's test command (``pip install ".[test]" && python -m pytest``) must pass on any
# machine with Python, so a test needing an OS program or a package outside ``[test]`` is
# skipped with the command that installs it. Under ``CI=true`` (``.ci/run``, which installs
# everything) a missing need fails instead, so CI can never pass by skipping.
IN_CI = os.environ.get("CI", "").lower() == "true"


def missing(*, program: str | None = None, module: str | None = None,
            apt: str | None = None, extra: str = "test-all") -> str | None:
    """Why a test cannot run here (the install command), or None when ``program`` (a command
    on PATH or a glob of paths) and ``module`` (an importable top-level package) are present.
    A bare folder of that name (a namespace package with no code: the checkout's ``build/``
    after ``pip install .``) is not the package."""
    if program is not None and not (shutil.which(program) or glob.glob(program)):
        return f"needs {program}: apt-get install {apt or program}"
    spec = None if module is None else importlib.util.find_spec(module)
    if module is not None and (spec is None or spec.origin is None):
        return f"needs {module}: pip install '.[{extra}]'"
    return None


def require(**need: str) -> None:
    """Skip the calling test, fixture or module (fail under ``CI=true``) unless ``need``
    (``missing``'s arguments) is met. At module level, call it before the imports it guards."""
    reason = missing(**need)
    if reason is None:
        return
    if IN_CI:
        pytest.fail(f"CI=true: {reason}", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def needs(**need: str) -> pytest.MarkDecorator:
    """Mark a test (or ``pytestmark`` a module) with ``require(**need)``, checked at setup:
    ``@needs(program="valgrind")``, ``@needs(module="matplotlib")``."""
    return pytest.mark.needs(**need)


def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers("needs"):
        require(**mark.kwargs)


# -- Ctrl-C ----------------------------------------------------------------------------------
# A suite started with SIGINT ignored (``nohup``, ``&`` in a non-interactive shell) passes the
# ignored disposition to every child, and Python then installs no KeyboardInterrupt handler.
@contextlib.contextmanager
def sigint_caught() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt in this process while the block runs, whatever the
    suite was started with; the previous handler comes back after it.

    Children started inside the block see Ctrl-C as at a terminal: a caught signal is reset
    to its default by ``exec`` (an ignored one would stay ignored). This replaces a
    ``preexec_fn`` that reset it in the child: Python code between ``fork`` and ``exec`` can
    deadlock on a lock another thread of this process held at the fork (malloc's under ASan
    hung the sanitizer tier once)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.fixture
def sigint_raises() -> Iterator[None]:
    """In-process Ctrl-C tests: SIGINT raises KeyboardInterrupt during the test."""
    with sigint_caught():
        yield


def interrupted_after(call: Callable[[], object], delay: float = 0.3) -> float:
    """Ctrl-C ``delay`` seconds into ``call`` (SIGINT to the main thread, as a terminal sends
    it; the test runs under ``sigint_raises``), which must end in KeyboardInterrupt. Returns
    the seconds from the start of ``call`` until it did."""
    main = threading.main_thread().ident
    assert main is not None and threading.get_ident() == main
    timer = threading.Timer(delay, signal.pthread_kill, (main, signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
    finally:
        timer.cancel()
    return time.monotonic() - start
