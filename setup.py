"""Build the Cython kernel. All metadata lives in pyproject.toml; this file only cythonizes.

Portable flags only: -O3, never -march=native (wheels must run on any CPU of their arch).
``SK_STRICT=1`` (set by ``.ci/run``) turns every Cython and C compiler warning into an error.

Profile-guided where the compiler is GCC (10 or later; so the manylinux wheels too): the
extensions (all but the play generator: ``UNPROFILED``) are built instrumented
(``-fprofile-generate``), ``tools/pgo_train.py`` runs on
them, and they are built again optimised for that profile (``-fprofile-use``): the branch
layout and the inlining follow the measured profile (docs/solver.md "Figures", "Instructions
a node"). The same code computes the same results; only its speed changes. ``SK_PGO=0`` builds
without (one compile, no training: clang, MSVC and the sanitizer builds always do).

Rebuilds compile only what changed: cythonize regenerates a ``.c`` file only when its ``.pyx``
or a ``.pxd`` it cimports is newer, and build_ext recompiles only extensions whose ``.c`` is
newer than their built module; the extensions compile in parallel, one per core.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy
from Cython.Build import cythonize
from Cython.Compiler import Options
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.modified import newer_group

STRICT = os.environ.get("SK_STRICT") == "1"
PGO = os.environ.get("SK_PGO", "1") != "0"
HERE = Path(__file__).resolve().parent
# The play generator is built without a profile: its loops were tuned by hand against
# callgrind (docs/performance.md, issue #22's instructions a play), and the profile's layout
# made leads 2.5% more instructions and ~4% slower in 百变 and JJ; the solver, which calls it,
# gains as much either way (1,197 / 1,315 instructions a node against 1,195 / 1,312).
UNPROFILED = {"shuangkou._generate"}
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
    ``python -m build`` pass no ``-j``), profile-guided where it can be (the module doc)."""

    def finalize_options(self) -> None:
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1
        super().finalize_options()

    def build_extensions(self) -> None:
        stale = [ext for ext in self.extensions if self.force or newer_group(
            ext.sources + ext.depends, self.get_ext_fullpath(ext.name), "newer")]
        if not (PGO and stale and self.gcc_with_pgo()):
            super().build_extensions()
            return
        # The generator first, without a profile (UNPROFILED), so the training loads it as
        # the others will.
        plain = [ext for ext in stale if ext.name in UNPROFILED]
        stale = [ext for ext in stale if ext.name not in UNPROFILED]
        if plain:
            self.build_only(plain, [], [])
        if not stale:
            return
        # Only the extensions out of date are rebuilt; the training loads the others as built.
        # The profiles (one .gcda file per object, named by the object's path: the same object
        # files both times) in a fixed folder, emptied first (the counters would add up
        # across runs), so that ccache can reuse the instrumented objects.
        profile = os.path.abspath(os.path.join(self.build_temp, "pgo"))
        shutil.rmtree(profile, ignore_errors=True)
        force = self.force
        try:
            self.build_only(stale, [f"-fprofile-generate={profile}"], ["-fprofile-generate"])
            self.train(self.extensions)
            # GCC names a profile by its object's path: mangled into one name ("#" for "/")
            # where the object path is relative, as in a build from the checkout, and the
            # absolute path below the folder where it is absolute, as in pip's editable
            # build (its temporary build folder): the profiles are searched for in both
            found = len(list(Path(profile).rglob("*.gcda")))
            if found != len(stale):
                sys.exit(f"setup.py: the training wrote {found} profiles for {len(stale)} "
                         "extensions (each must import)")
            # Partial training: code the training never ran is optimised as without a profile,
            # not for size as if it never ran. The warnings were checked by the instrumented
            # build (-O3 as well); the profile's inlining adds false "may be used
            # uninitialized" ones in Cython's argument parsing, and a function the training
            # never ran (numpy's headers) has no profile of its own.
            self.force = True
            self.build_only(stale, [f"-fprofile-use={profile}", "-fprofile-partial-training",
                                    "-Wno-maybe-uninitialized", "-Wno-missing-profile"], [])
        finally:
            self.force = force

    def build_only(self, extensions: list[Extension], cflags: list[str],
                   ldflags: list[str]) -> None:
        """Build these of the command's extensions alone, with these flags added."""
        everything, self.extensions = self.extensions, extensions
        try:
            for ext in extensions:
                ext.extra_compile_args = compile_args + cflags
                ext.extra_link_args = link_args + ldflags
            super().build_extensions()
        finally:
            self.extensions = everything
            for ext in extensions:
                ext.extra_compile_args, ext.extra_link_args = compile_args, link_args

    def gcc_with_pgo(self) -> bool:
        """Whether the compiler is GCC 10 or later (``-fprofile-partial-training``): clang's
        and MSVC's profiles are made and read otherwise."""
        if self.compiler.compiler_type != "unix":
            return False
        macros = subprocess.run([*self.compiler.compiler_so, "-dM", "-E", "-x", "c", os.devnull],
                                capture_output=True, text=True, check=True).stdout.split("\n")
        defined = dict(line.split(" ", 2)[1:] for line in macros if line.count(" ") >= 2)
        return "__clang__" not in defined and int(defined.get("__GNUC__", "0")) >= 10

    def train(self, extensions: list[Extension]) -> None:
        """Run tools/pgo_train.py on the package as built: its Python files from the source
        tree, every extension from where this command built it (the instrumented ones write
        their profiles when the process ends)."""
        with tempfile.TemporaryDirectory(prefix="shuangkou-train-") as stage:
            package = Path(stage) / "shuangkou"
            shutil.copytree(HERE / "src" / "shuangkou", package, ignore=shutil.ignore_patterns(
                "*.c", "*.pyx", "*.so", "*.pyd", "__pycache__"))
            for ext in extensions:
                shutil.copy(self.get_ext_fullpath(ext.name), package)
            done = subprocess.run(
                [sys.executable, str(HERE / "tools" / "pgo_train.py")], cwd=stage,
                # pip's isolated build finds numpy through PYTHONPATH too: kept, after stage
                env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                             filter(None, [stage, os.environ.get("PYTHONPATH")])),
                         PYTHONHASHSEED="0",
                         OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1"),
                capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"setup.py: the profile-guided build's training run failed (SK_PGO=0 "
                         f"builds without it):\n{done.stdout[-4000:]}{done.stderr[-4000:]}")


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
