"""The code-quality gates run with the suite: mypy --strict on the Python layer, stubtest on the
extension modules' hand-written stubs, and ruff."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_mypy_strict_is_clean():
    result = run(sys.executable, "-m", "mypy")  # config: [tool.mypy] in pyproject.toml
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    "module",
    ["shuangkou._generate", "shuangkou._core", "shuangkou._sim", "shuangkou._engine",
     "shuangkou._physical", "shuangkou._solve", "shuangkou._rl", "shuangkou._learned"],
)
def test_stubs_match_the_extension(module):
    result = run(sys.executable, "-m", "mypy.stubtest", module)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_is_clean():
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    result = run(ruff, "check", "src", "tests", "benchmarks", "examples")
    assert result.returncode == 0, result.stdout + result.stderr
