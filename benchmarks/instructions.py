"""Instructions per unit of work of a Python-level loop, counted by callgrind: noise-free.

On a shared machine even CPU-time rates move by ±20% with the other jobs (cache and core
sharing), so a slower figure in one round's table need not mean slower code. Two runs of the
same seeded workload at two sizes, under ``valgrind --tool=callgrind``, give its exact cost per
unit (per decision, per env step): the difference of the totals over the difference of the
units. Used by ``bench_game.py --instructions``, ``bench_rl.py --instructions`` and
``bench_bots.py --instructions``; compare two builds by running the same command in each.

Only the workload is counted, not the process: it runs once at size 1 to warm up (imports,
first-call caches, the interpreter's specialised bytecode), the garbage is collected, and
callgrind counts what runs inside the ``operator.call`` that then runs it (as
``callgrind_gate.py`` does). Counting the whole process made two runs of one build disagree
(6,235 and 5,478 a decision of the ``Game`` loop): the start-up and imports do not repeat
exactly — three runs of the ``Game`` workload at size 1, almost all start-up, counted 1,141.7,
1,143.3 and 1,146.5 M instructions with ``PYTHONHASHSEED=0`` — and that noise was divided by
the ~14,000 decisions between the two sizes. Counted this way, two runs give the same totals
to the instruction. Hash randomisation is off (``PYTHONHASHSEED=0``: the same set and dict
layouts every run) and BLAS runs one thread (``OPENBLAS_NUM_THREADS=1``: all the work in the
counted thread).

A workload is a script and a name: ``python SCRIPT --count NAME SIZE`` runs it at ``SIZE`` and
prints the units it did (the scripts' ``count_main``).

With ``SK_SMOKE=1`` in the environment (:data:`SMALL`: tests/test_doc_commands.py
runs every benchmark command the docs name that way) each workload runs once natively at its
small size, without valgrind: the command is exercised in seconds, nothing is counted.
"""

from __future__ import annotations

import gc
import operator
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

SMALL = os.environ.get("SK_SMOKE") == "1"
"""The small mode of the benchmark scripts (seconds a command: a check that it runs)."""

COUNTED = "_operator_call"
"""The C function the counted run of a workload runs in (nothing else calls it)."""


def _run(script: Path, name: str, size: int) -> tuple[int, int]:
    """``(instructions, units)`` of one callgrind run of the workload at ``size``."""
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
         "--collect-atstart=no", f"--toggle-collect={COUNTED}",
         sys.executable, str(script), "--count", name, str(size)],
        capture_output=True, text=True, check=True,
        env=dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1",
                 OMP_NUM_THREADS="1"),
    )
    found = re.search(r"Collected : (\d+)", run.stderr)
    if found is None:
        raise RuntimeError(f"no callgrind total in the output of {name}: {run.stderr[-400:]}")
    return int(found.group(1)), int(run.stdout.split()[-1])


def per_unit(script: Path, name: str, small: int, large: int) -> float:
    """Instructions per unit of the workload, from its runs at ``small`` and ``large``."""
    i0, u0 = _run(script, name, small)
    i1, u1 = _run(script, name, large)
    return (i1 - i0) / (u1 - u0)


def report(script: Path, workloads: Mapping[str, tuple[str, int, int]]) -> int:
    """Print instructions per unit of each workload (name -> (unit, small, large))."""
    if SMALL:
        for name, (unit, small, _) in workloads.items():
            done = subprocess.run([sys.executable, str(script), "--count", name, str(small)],
                                  capture_output=True, text=True, check=True)
            print(f"{name:28s} ran natively at size {small}: {done.stdout.split()[-1]} "
                  f"{unit}s (SK_SMOKE: not counted)")
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind)")
        return 1
    for name, (unit, small, large) in workloads.items():
        print(f"{name:28s} {per_unit(script, name, small, large):>10,.0f} instructions/{unit}")
    return 0


def count_main(argv: list[str], workloads: Mapping[str, Callable[[int], int]]) -> bool:
    """If ``argv`` is ``[--count, NAME, SIZE]``, run the workload and print its units (what
    :func:`per_unit` runs under valgrind); returns whether it did."""
    if len(argv) != 3 or argv[0] != "--count":
        return False
    work = workloads[argv[1]]
    work(1)  # warm up: imports, caches, specialised bytecode (not counted)
    gc.collect()
    print(operator.call(work, int(argv[2])))  # what callgrind counts
    return True
