"""Issue #35: every figure in README.md and docs/ names the command that prints it. This test
finds every ``python benchmarks/….py …`` command those pages name and runs each one in a small
mode, so none crashes or drifts from its flags:

* the command as written, placeholders filled (``<checkout …>/src``: the build under test;
  ``N``: 2) and optional ``[…]`` parts left out (their flags are checked against the script);
* plus the script's size flags of :data:`SMALL_FLAGS`, appended (argparse keeps the last), and
  ``SK_SMOKE=1`` (``benchmarks/instructions.py``'s ``SMALL``) for what has no size
  flag: callgrind commands run each workload once natively, the kernel table on 20 hands;
* every flag the page gives must be one the script takes (argparse: its ``--help``; a script
  without argparse: a flag its source tests for), so a renamed flag fails here.

Each script's commands run in one temporary folder, in the pages' order with ``--report``
(which reads what a ``--json`` run wrote) last."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import shuangkou

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"
INSTALLED = Path(shuangkou.__file__).resolve().parent.parent
"""The folder holding the shuangkou under test (``src`` in an editable install)."""
PAGES = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md")
                                     if not {"_build", "api"} & set(p.parts))]

SMALL_FLAGS: dict[str, list[str]] = {
    "bench_bots.py": ["--pairs", "1", "--other-pairs", "1", "--pimc-pairs", "1",
                      "--processes", "1", "--presets", "classic"],
    "bench_game.py": [],
    "bench_inference.py": ["--deals", "1", "--samples", "10", "--every", "20"],
    "bench_hints.py": ["--deals", "3", "--old", "1", "--cap", "2000"],
    "bench_kernel.py": [],
    "bench_midgame.py": ["--deals", "1"],
    "bench_peers.py": [],
    "bench_rl.py": ["--seconds", "0.1", "--batch", "8"],
    "bench_seeing.py": ["--pairs", "1"],
    "bench_server.py": ["--tables", "2", "--seconds", "1", "--think", "0.05"],
    "bench_server_tables.py": ["--deals", "2", "--tables", "2", "--repeat", "1"],
    "bench_sim.py": ["--deals", "400", "--slices", "2", "--games", "20"],
    "bench_solve.py": ["--sizes", "4", "--positions", "1", "--cap", "20000", "--repeat", "1"],
    "callgrind_gate.py": [],
    "pimc_vs_greedy.py": ["--deals", "2", "--worlds", "2", "--nodes", "50"],
}
"""Per script, the flags that make a cited command small (appended after the page's)."""

WHOLE_ARGV = ("--instructions",)
"""Flags a script reads as its whole command line (``sys.argv[1:] == [flag]``): nothing is
appended to those commands; ``SK_SMOKE`` makes them small."""

_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
_COMMAND = re.compile(r"(?:python3? )?benchmarks/(\w+\.py)([^#`]*)")


def _snippets(text: str) -> list[str]:
    """The code of a page: each line of its fenced blocks (``\\`` continuations joined) and
    each inline code span (a span may wrap over lines in the source)."""
    out = []
    for block in _FENCE.findall(text):
        out += block.replace("\\\n", " ").splitlines()
    out += [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", _FENCE.sub("", text))]
    return out


def cited() -> dict[str, list[tuple[str, str]]]:
    """Per script, its distinct commands as the pages write them (arguments only) and the
    first page naming each."""
    found: dict[str, dict[str, str]] = {}
    for page in PAGES:
        for snippet in _snippets(page.read_text(encoding="utf-8")):
            for m in _COMMAND.finditer(snippet):
                args = " ".join(m.group(2).split())
                found.setdefault(m.group(1), {}).setdefault(
                    args, page.relative_to(ROOT).as_posix())
    return {script: list(commands.items()) for script, commands in sorted(found.items())}


CITED = cited()


def _argv(args: str) -> tuple[list[str], list[str]]:
    """``(argv to run, flags of the optional parts)`` of a page's arguments."""
    args = re.sub(r"<[^>]*>/src", str(INSTALLED), args)  # --against: this build itself
    optional = re.findall(r"\[([^\]]*)\]", args)
    required = re.sub(r"\[[^\]]*\]", " ", args)
    argv = ["2" if token == "N" else token for token in shlex.split(required)]
    flags = [t for part in optional for t in part.split() if t.startswith("--")]
    return argv, flags


def test_the_pages_cite_every_script_small_mode_knows() -> None:
    # a script the pages start citing needs its small flags here; one they stop citing goes
    assert set(CITED) == set(SMALL_FLAGS), set(CITED) ^ set(SMALL_FLAGS)
    assert sum(len(c) for c in CITED.values()) >= 30  # the extraction finds the pages' commands


def _flag_check(script: str, env: dict[str, str]) -> Callable[[str], bool]:
    """Whether the script takes a flag: one in its ``--help`` (argparse), or one it tests
    ``sys.argv`` for before any parser (quoted in its source: ``argv == ["--instructions"]``)."""
    source = (BENCHMARKS / script).read_text(encoding="utf-8")
    text = ""
    if "ArgumentParser(" in source:
        done = subprocess.run([sys.executable, str(BENCHMARKS / script), "--help"], env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        text = done.stdout
    return lambda flag: (f'"{flag}"' in source
                         or re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", text) is not None)


_ARENA = re.compile(r"shuangkou arena ([\w:=.,]+) ([\w:=.,]+)((?: --[\w-]+ [\w.]+)*)")
_PLACEHOLDERS = {"BOT_A": "greedy", "BOT_B": "random", "BOT": "fast", "B": "greedy", "R": "baibian",
                 "N": "2"}


def arena_commands() -> list[tuple[list[str], str]]:
    """The ``shuangkou arena`` commands of the pages (docs/bots.md's figures), as argv with
    the placeholders filled, and the first page naming each."""
    found: dict[tuple[str, ...], str] = {}
    for page in PAGES:
        for snippet in _snippets(page.read_text(encoding="utf-8")):
            for m in _ARENA.finditer(snippet):
                argv = [_PLACEHOLDERS.get(t, t) for t in " ".join(m.groups()).split()]
                found.setdefault(tuple(argv), page.relative_to(ROOT).as_posix())
    return [(list(argv), page) for argv, page in found.items()]


def test_each_cited_arena_command_runs_in_a_small_mode() -> None:
    commands = arena_commands()
    assert len(commands) >= 4, commands
    for argv, page in commands:
        done = subprocess.run(
            [sys.executable, "-m", "shuangkou", "arena", *argv, "--deals", "1",
             "--processes", "1", "--no-progress"],
            capture_output=True, text=True, timeout=300)
        assert done.returncode == 0 and done.stdout.strip(), (
            f"{page}: shuangkou arena {' '.join(argv)}\n{done.stdout[-1500:]}\n{done.stderr}")


@pytest.mark.parametrize("script", sorted(SMALL_FLAGS))
def test_each_cited_command_runs_in_a_small_mode(script: str, tmp_path: Path) -> None:
    env = dict(os.environ, SK_SMOKE="1")
    takes = _flag_check(script, env)
    commands = sorted(CITED.get(script, []), key=lambda c: "--report" in c[0])
    assert commands, f"no page names benchmarks/{script}"
    for args, page in commands:
        argv, optional = _argv(args)
        for flag in [t for t in argv if t.startswith("--")] + optional:
            assert takes(flag), f"{page}: benchmarks/{script} {args}: no flag {flag} there"
        small = [] if any(f in argv for f in WHOLE_ARGV) else SMALL_FLAGS[script]
        done = subprocess.run([sys.executable, str(BENCHMARKS / script), *argv, *small],
                              cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, (
            f"{page}: python benchmarks/{script} {args} (small: {' '.join(small)}) exited "
            f"{done.returncode}\n{done.stdout[-1500:]}\n{done.stderr[-3000:]}")
        assert done.stdout.strip(), f"{page}: benchmarks/{script} {args} printed nothing"


def test_bench_hints_without_the_old_search() -> None:
    # issue #35: --old 0 crashed (statistics.StatisticsError: no median for empty data) on a
    # preset without worst hands; its old columns are dashes now
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_hints.py"), "--deals", "2", "--old", "0",
         "--rules", "classic"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    row = done.stdout.splitlines()[-1].split()
    assert row[:2] == ["classic", "2"] and row.count("-") == 6, done.stdout
