"""Build the Cython kernel. All metadata lives in pyproject.toml; this file only cythonizes.

Portable flags only: -O3, never -march=native (wheels must run on any CPU of their arch).
"""

import sys

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

compile_args = ["/O2"] if sys.platform == "win32" else ["-O3"]
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


# _core: play generation; _sim: the self-play deal loop and batch loops; _engine: State;
# _physical: the physical card ids of a Game.
extensions = [extension(name) for name in ("_core", "_sim", "_engine", "_physical")]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={"language_level": "3", "autotestdict": False},
        # bare names for the .pxd files (from _state cimport …); "src" for the package's
        # cdef classes (from shuangkou._engine cimport State)
        include_path=["src/shuangkou", "src"],
    )
)
