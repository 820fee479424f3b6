"""The ``shuangkou`` command end to end (issue #4)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from shuangkou.cli import main
from shuangkou.sim import SimResult, simulate
from tests.conftest import needs


def test_simulate_writes_npz_csv_and_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    npz = tmp_path / "d.npz"
    args = ["simulate", "-n", "400", "--rules", "baibian", "--policy", "greedy", "--threads", "2",
            "--seed", "1", "--no-progress"]
    assert main([*args, "--out", str(npz)]) == 0
    out = capsys.readouterr().out
    for word in ("双扣", "单扣", "平扣", "95% CI", "mean score", "bombs per deal", "decisions/s"):
        assert word in out
    assert SimResult.load_npz(npz) == simulate(400, "baibian", "greedy", seed=1)
    csv = tmp_path / "d.csv"
    assert main([*args, "--out", str(csv)]) == 0
    data = np.loadtxt(csv, delimiter=",", skiprows=1, dtype=np.int64)
    assert data.shape[0] == 400
    assert csv.read_text().splitlines()[0].startswith("deal,outcome,places_0")


def test_simulate_json_and_team_policies(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    assert main(["simulate", "-n", "200", "--rules", "qianbian", "--policy", "greedy,random",
                 "--json", "--no-progress"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["n"] == 200 and doc["policies"] == ["greedy", "random"] * 2


@needs(module="pyarrow")
def test_simulate_parquet(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    path = tmp_path / "d.parquet"
    args = ["simulate", "-n", "150", "--rules", "jj", "--out", str(path), "--no-progress"]
    assert main(args) == 0
    table = pq.read_table(path)
    assert table.num_rows == 150 and "scores_3" in table.column_names


@needs(module="matplotlib")
def test_simulate_plot(tmp_path: Path) -> None:
    path = tmp_path / "d.png"
    assert main(["simulate", "-n", "300", "--rules", "classic", "--plot", str(path),
                 "--no-progress"]) == 0
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plays_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plays", "5 5 5 BJ", "--rules", "baibian"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("7 plays leading") and "bomb 5555" in out
    assert main(["plays", "3 3 6 7 8 9 BJ", "--on", "5 6 7 8 9"]) == 0
    out = capsys.readouterr().out
    assert "1 plays answering" in out and "6 7 8 9 BJ" in out
    assert main(["plays", "5 5 5 BJ", "--fewest"]) == 0
    assert capsys.readouterr().out.startswith("5 plays")  # one per reading


def test_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plays", "3 3 Z"]) == 2
    assert "error" in capsys.readouterr().err
    assert main(["simulate", "-n", "5", "--rules", "nope", "--no-progress"]) == 2
    assert main(["simulate", "-n", "5", "--out", str(tmp_path / "x.xlsx"), "--no-progress"]) == 2
    with pytest.raises(SystemExit):
        main(["simulate", "--policy", "smart"])


def test_python_dash_m_with_progress() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "shuangkou", "simulate", "-n", "300", "--rules", "baibian",
         "--policy", "random", "--threads", "2", "--seed", "1"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "300 deals" in proc.stdout
    assert "300/300" in proc.stderr  # the tqdm bar
