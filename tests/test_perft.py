"""Perft-style counts: the kernel's play counts on seeded 27-card deals equal the oracle's,
recorded in tests/data/perft.json by tests/data/make_perft.py. A mismatch lists the plays that
differ, one by one (the oracle is re-run only then)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from shuangkou import Play
from shuangkou import _core as core
from shuangkou import _reference as ref
from shuangkou.rules import PRESETS, Rules

HERE = Path(__file__).parent / "data"
DATA = json.loads((HERE / "perft.json").read_text())
_spec = importlib.util.spec_from_file_location("make_perft", HERE / "make_perft.py")
assert _spec is not None and _spec.loader is not None
make_perft = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_perft)


def describe(word: int, tag: int) -> str:
    p = Play._from_codes(word, tag)
    return f"{p.cards!s:<40} {p.describe()} (wilds {p.wilds})"


def play_diff(hand: int, flags: int, table: int, fewest: bool) -> str:
    kernel = set(zip(*core.generate(hand, flags, table, fewest)))
    oracle = set(zip(*ref.generate(hand, flags, table, fewest)))
    lines = ["  oracle only: " + describe(*p) for p in sorted(oracle - kernel)]
    lines += ["  kernel only: " + describe(*p) for p in sorted(kernel - oracle)]
    return "\n".join(lines) or "  (same sets: the kernel emits duplicates)"


def test_data_covers_every_preset():
    assert set(DATA["presets"]) == set(PRESETS)


@pytest.mark.parametrize("preset", PRESETS)
def test_perft(preset):
    entry = DATA["presets"][preset]
    flags = entry["flags"]
    assert flags == Rules.preset(preset).flags
    for deal in entry["deals"]:
        hand = deal["packed"]
        recipe = make_perft.deal(deal["seed"], deal["all_jokers"])
        assert recipe.packed == hand, "the deal recipe changed"
        for label, expected in deal["counts"].items():
            table = 0 if label == "lead" else entry["tables"][label]
            for fewest, want in zip((False, True), expected):
                got = core.count(hand, flags, table, fewest)
                if got != want:
                    pytest.fail(
                        f"{preset} seed {deal['seed']} hand {deal['hand']} table {label} "
                        f"fewest {fewest}: kernel {got}, oracle {want}\n"
                        + play_diff(hand, flags, table, fewest)
                    )
