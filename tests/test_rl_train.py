"""A one-minute smoke of the training example (examples/train_dmc.py), run as a user runs it:
a short DMC run over VecEnv learns enough to beat the uniformly random agent against random
opponents, and writes its learning curve."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

from tests.conftest import needs

EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "train_dmc.py"


@needs(module="matplotlib")  # the learning curve
def test_training_smoke(tmp_path: pathlib.Path) -> None:
    png, out = tmp_path / "curve.png", tmp_path / "result.json"
    subprocess.run(
        [sys.executable, str(EXAMPLE), "--deals", "1500", "--minutes", "5", "--envs", "64",
         "--eval-deals", "250", "--curve-every", "1000", "--curve-deals", "50",
         "--png", str(png), "--json", str(out)],
        check=True, capture_output=True, text=True, timeout=600,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
    )
    res = json.loads(out.read_text())
    assert res["deals_trained"] >= 1500 and png.stat().st_size > 10_000
    vs_random = res["eval"]["random"]
    trained, baseline = vs_random["trained"], vs_random["random_agent"]
    assert trained["deals"] == baseline["deals"] == 250
    # learned: the team finishes first clearly more often than a random agent's team
    assert trained["first_ci"][0] > baseline["first_ci"][1]
    assert trained["mean_score"] > baseline["mean_score"]
