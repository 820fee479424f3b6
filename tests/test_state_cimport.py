"""Other extensions reach ``State``'s C struct without Python calls (docs/internals.md, "The
game state"): a small extension is built here as a user builds one against the installed
package — ``shuangkou.get_include()`` as the Cython include path (the package folder for the
bare ``.pxd`` names, the folder above for the package's cdef classes) — and searched with it.
Run against the installed wheel, this checks that the wheel ships what such a build needs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from shuangkou import State, get_include

PYX = '''
# cython: language_level=3
from libc.stdint cimport uint32_t, uint64_t

from shuangkou._engine cimport State
from _state cimport SkState, SkUndo, sk_legal, sk_pass, sk_play, sk_restore, sk_save

cdef long count(State s, SkState* st, int depth, uint64_t* w, uint32_t* t) noexcept nogil:
    cdef int i, n
    cdef long total = 0
    cdef SkUndo u
    if depth == 0 or st.over:
        return 1
    n = sk_legal(&s.p, st, False, w, t, 4096)
    for i in range(n + (st.table != 0)):
        sk_save(st, &u)
        if i < n:
            sk_play(st, w[i], t[i])
        else:
            sk_pass(st)
        total += count(s, st, depth - 1, w + n, t + n)
        sk_restore(st, &u)
    return total

def leaves(State s, int depth):
    cdef SkState work = s.st        # the struct, copied: no Python call below
    cdef uint64_t w[16384]
    cdef uint32_t t[16384]
    return count(s, &work, depth, w, t), work.hash == s.st.hash
'''


@pytest.mark.slow
def test_an_extension_cimports_state(tmp_path: Path) -> None:
    from Cython.Build import cythonize
    from setuptools import Distribution, Extension

    (tmp_path / "probe_state.pyx").write_text(PYX)
    ext = Extension("probe_state", [str(tmp_path / "probe_state.pyx")], extra_compile_args=["-O0"])
    dist = Distribution({"ext_modules": cythonize(
        [ext], include_path=get_include(), quiet=True,
        compiler_directives={"language_level": "3"}, build_dir=str(tmp_path),
    )})
    cmd = dist.get_command_obj("build_ext")
    cmd.build_lib = str(tmp_path)
    cmd.build_temp = str(tmp_path / "tmp")
    cmd.ensure_finalized()
    cmd.run()
    built = next(tmp_path.glob("probe_state*.so"), None) or next(tmp_path.glob("probe_state*.pyd"))
    spec = importlib.util.spec_from_file_location("probe_state", built)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["probe_state"] = mod
    spec.loader.exec_module(mod)
    st = State.deal("baibian", 5)
    assert mod.leaves(st, 3) == (st.perft(3), True)
