"""The instruction-count speed gate runs with the suite (valgrind required)."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

spec = importlib.util.spec_from_file_location(
    "callgrind_gate", Path(__file__).resolve().parent.parent / "benchmarks" / "callgrind_gate.py"
)
assert spec is not None and spec.loader is not None
gate = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gate)


def test_compare_flags_only_growth_over_tolerance():
    base = {"a": 1000, "b": 1000}
    assert gate.compare({"a": 1050, "b": 10}, base) == []
    assert [f.split(":")[0] for f in gate.compare({"a": 1051, "b": 1000}, base)] == ["a"]
    assert "no baseline" in gate.compare({"c": 1}, base)[0]


@pytest.mark.callgrind  # cibuildwheel's test step deselects it (no valgrind there)
def test_kernel_instruction_counts_within_5_percent_of_baseline():
    assert shutil.which("valgrind"), "the speed gate needs valgrind: apt-get install valgrind"
    baseline = json.loads(gate.BASELINE.read_text())
    counts = gate.measure_all()
    assert all(count > 0 for count in counts.values()), counts  # the toggles found the kernel
    assert gate.compare(counts, baseline) == []
