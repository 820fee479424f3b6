"""The instruction-count speed gate runs with the suite (valgrind required)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tests.conftest import needs

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))  # the gate imports benchmarks/deals.py
spec = importlib.util.spec_from_file_location("callgrind_gate", BENCHMARKS / "callgrind_gate.py")
assert spec is not None and spec.loader is not None
gate = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gate)


def m(instructions: int, units: int = 1) -> dict[str, int]:
    return {"instructions": instructions, "units": units}


def test_compare_flags_only_growth_over_tolerance():
    base = {"a": m(1000), "b": m(1000)}
    assert gate.compare({"a": m(1050), "b": m(10)}, base) == []
    assert [f.split(":")[0] for f in gate.compare({"a": m(1051), "b": m(1000)}, base)] == ["a"]
    assert "no baseline" in gate.compare({"c": m(1)}, base)[0]


def test_per_unit_and_table():
    assert gate.per_unit(m(1000, 8)) == 125.0
    text = gate.table({"lead-classic": m(1000, 8)}, {"lead-classic": m(2000, 8)})
    assert "125.0/play" in text and "-50.0%" in text


def test_targets_of_the_python_paths():
    answer = {"instructions": 2000 * 10 + 40 * 50, "units": 10, "plays": 50}
    goals = gate.targets({"legal-plays-answer": answer, "state-loop": m(3000, 1),
                          "game-loop": m(6001, 1), "pettingzoo-step": m(25000, 1),
                          "lead-classic": m(31, 1), "answer-jj": m(80, 1)})
    assert goals["legal-plays-answer"][1] and "2,200/call" in goals["legal-plays-answer"][0]
    assert not goals["game-loop"][1] and "6,000" in goals["game-loop"][0]
    assert goals["pettingzoo-step"][1] and goals["answer-jj"][1]
    assert not goals["lead-classic"][1]
    answer["instructions"] += 1
    assert not gate.targets({"legal-plays-answer": answer})["legal-plays-answer"][1]
    obvious = gate.targets({"game-loop-obvious": m(6500, 1), "pettingzoo-docs": m(25001, 1)})
    assert obvious["game-loop-obvious"] == ("<= 6,500/decision", True)
    assert obvious["pettingzoo-docs"] == ("<= 25,000/step", False)
    assert not gate.targets({"game-loop-obvious": m(6501, 1)})["game-loop-obvious"][1]


def test_chain_bomb_hands_are_27_cards_with_a_chain_bomb_window():
    for packed in gate.chain_bomb_hands(16):
        counts = [packed >> (4 * r) & 15 for r in range(15)]
        assert sum(counts) == 27
        assert any(all(c >= 4 for c in counts[a:a + 5]) for a in range(8))


@pytest.mark.callgrind  # cibuildwheel's test step deselects it (no valgrind there)
@needs(program="valgrind")
def test_kernel_instruction_counts_within_5_percent_of_baseline():
    baseline = gate.load_baseline()
    counts = gate.measure_all()
    assert set(counts) == set(baseline), "workloads changed: run the gate with --update"
    assert all(c["instructions"] > 0 and c["units"] > 0 for c in counts.values()), counts
    assert gate.compare(counts, baseline) == []
