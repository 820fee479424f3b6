"""A one-minute run of the training script of the learned bot (examples/train_dmc.py), run as
a user runs it: it learns from scratch to play far better than its untrained network against
greedy, writes weights ``bots.make("learned", …, weights=…)`` plays, and its learning curve.
The full 60-minute training is the slow tier (docs/bots.md has its figures)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

from shuangkou import bots, learned, simulate
from tests.conftest import needs

EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "train_dmc.py"


@needs(module="matplotlib")  # the learning curve
def test_training_for_a_minute(tmp_path: pathlib.Path) -> None:
    png, out, weights = tmp_path / "curve.png", tmp_path / "result.json", tmp_path / "w.npz"
    subprocess.run(
        [sys.executable, str(EXAMPLE), "--minutes", "1", "--tables", "64", "--seed", "3",
         "--curve-every", "20", "--curve-pairs", "30", "--eval-pairs", "40",
         "--bonuses", "0,1", "--select-pairs", "20",
         "--out", str(weights), "--png", str(png), "--json", str(out)],
        check=True, capture_output=True, text=True, timeout=900,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
    )
    res = json.loads(out.read_text())
    assert res["deals_trained"] > 0 and res["updates"] > 0 and png.stat().st_size > 10_000
    curve = res["curve"]
    # the first point is the untrained network, before any update: no loss yet (not NaN)
    assert curve[0]["loss"] is None and all(p["loss"] is not None for p in curve[1:])
    # learned: the network predicts the deals' returns better than its first update did
    # (a loaded machine gives the minute only some hundred updates)
    assert res["last_loss"] < 0.9 * res["first_loss"]
    # the bonus on the heuristic's choice is the candidate that did best against it
    margins = res["bonus"]["margins"]
    assert margins[str(res["bonus"]["chosen"])] == max(margins.values())
    final = res["eval"]["baibian"]
    assert final["greedy"]["pairs"] == final["heuristic"]["pairs"] == 40
    # the weights play through the bots API, with the chosen bonus
    bundle = tmp_path / "bundle.npz"
    learned.bundle([weights], bundle)
    bot = bots.make("learned", "baibian", weights=bundle)
    assert bot.net.bonus == res["bonus"]["chosen"]
    assert len(simulate(2, "baibian", (bot, "greedy"), seed=1)) == 2
