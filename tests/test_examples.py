"""Every script in examples/ runs to the end at its smoke size (``SK_SMOKE=1``: each
script picks a small workload itself) in a scratch directory, with a fresh interpreter.

A script added to examples/ is picked up here with no edit; one that needs a package puts
that package in an extra pulled into ``[test]``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import require

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.py"))
# the optional package each script needs beyond the lean test extra
NEEDS = {"dask_run.py": "dask", "ray_run.py": "ray", "simulate_rules.py": "matplotlib",
         "train_dmc.py": "matplotlib"}


def test_there_are_examples() -> None:
    names = {p.name for p in EXAMPLES}
    assert {"simulate_rules.py", "dask_run.py", "ray_run.py"} <= names


def test_examples_readme_lists_every_script() -> None:
    readme = (EXAMPLES[0].parent / "README.md").read_text()
    assert [p.name for p in EXAMPLES if f"| `{p.name}` |" not in readme] == []


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(script: Path, tmp_path: Path) -> None:
    if script.name in NEEDS:
        require(module=NEEDS[script.name])
    cwd, tmp = tmp_path / "cwd", tmp_path / "tmp"
    cwd.mkdir()
    tmp.mkdir()
    env = dict(os.environ, SK_SMOKE="1", MPLBACKEND="Agg", TMPDIR=str(tmp))
    done = subprocess.run([sys.executable, str(script)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    if script.name == "simulate_rules.py":
        png = tmp / "presets.png"  # in the temp folder: run from a checkout, it leaves no file
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert "qianbian" in done.stdout
        assert list(cwd.iterdir()) == []
