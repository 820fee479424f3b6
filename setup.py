"""Build the Cython kernel. All metadata lives in pyproject.toml; this file only cythonizes.

Portable flags only: -O3, never -march=native (wheels must run on any CPU of their arch).
``SK_STRICT=1`` (set by ``.ci/run``) turns every Cython and C compiler warning into an error.

Rebuilds compile only what changed: cythonize regenerates a ``.c`` file only when its ``.pyx``
or a ``.pxd`` it cimports is newer, and build_ext recompiles only extensions whose ``.c`` is
newer than their built module; the extensions compile in parallel, one per core.
"""

import os
import sys

import numpy
from Cython.Build import cythonize
from Cython.Compiler import Options
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

STRICT = os.environ.get("SK_STRICT") == "1"
Options.warning_errors = STRICT

compile_args = ["/O2"] if sys.platform == "win32" else ["-O3"]
if STRICT:
    compile_args.append("/WX" if sys.platform == "win32" else "-Werror")
# Drop the debug info (-g from Python's CFLAGS: ~85% of each .so) but keep the symbol table,
# which the callgrind gate's --toggle-collect needs; MSVC writes no debug info without /DEBUG.
link_args = [] if sys.platform == "win32" else ["-Wl,-S"]


def extension(name: str) -> Extension:
    """``shuangkou.<name>`` from ``src/shuangkou/<name>.pyx`` (cimports the .pxd files beside)."""
    return Extension(
        f"shuangkou.{name}",
        [f"src/shuangkou/{name}.pyx"],
        include_dirs=[numpy.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
    )


# _generate: the play generators (the others call them through its exported pointers); _core:
# plays for Python; _sim: the self-play deal loop and batch loops; _engine: State; _physical:
# the physical card ids of a Game; _solve: the solver; _rl: the RL VecEnv; _learned: the
# learned bot's feature rows.
extensions = [
    extension(name)
    for name in ("_generate", "_core", "_sim", "_engine", "_physical", "_solve", "_rl",
                 "_learned")
]


class parallel_build_ext(build_ext):
    """build_ext compiling one extension per core unless ``-j`` says otherwise (pip and
    ``python -m build`` pass no ``-j``)."""

    def finalize_options(self) -> None:
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1
        super().finalize_options()


setup(
    cmdclass={"build_ext": parallel_build_ext},
    ext_modules=cythonize(
        extensions,
        compiler_directives={"language_level": "3", "autotestdict": False},
        # bare names for the .pxd files (from _state cimport …); "src" for the package's
        # cdef classes (from shuangkou._engine cimport State)
        include_path=["src/shuangkou", "src"],
    )
)
