"""Release artefacts: one version everywhere, the CLI's --version and --help, and what the
sdist and the wheel carry (``python -m build``, as ``.ci/run`` and the release do).

The sdist and wheel come from ``$SK_DIST`` when set (``.ci/run`` builds them once and points
here), else they are built into a temporary directory (about a minute).
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import struct
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import shuangkou
from shuangkou.cli import main
from tests.conftest import require

ROOT = Path(__file__).resolve().parent.parent
EXTENSIONS = sorted(p.stem for p in (ROOT / "src" / "shuangkou").glob("*.pyx"))


def test_one_version_everywhere(capsys: pytest.CaptureFixture[str]) -> None:
    assert shuangkou.__version__ == importlib.metadata.version("shuangkou")
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"shuangkou {shuangkou.__version__}\n"


def test_help_shows_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for shown in ("number of deals (default: 10000)", "(default: baibian)",
                  "(default: random)", "(default: 1)", "first deal index (default: 0)"):
        assert shown in out
    assert "(default: None)" not in out and "(default: False)" not in out


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("SK_DIST")
    if given:
        return Path(given)
    require(module="build")
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return out


def _one(dist: Path, pattern: str) -> Path:
    found = sorted(dist.glob(pattern))
    assert len(found) == 1, f"{pattern} in {dist}: {found}"
    return found[0]


def elf_section_names(data: bytes) -> set[str]:
    """Section names of a 64-bit little-endian ELF file (the Linux extension modules)."""
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "not ELF64 LE"
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    def header(i: int) -> tuple[int, int]:
        name, = struct.unpack_from("<I", data, shoff + i * shentsize)
        offset, = struct.unpack_from("<Q", data, shoff + i * shentsize + 0x18)
        return name, offset
    strtab = header(shstrndx)[1]
    names = set()
    for i in range(shnum):
        start = strtab + header(i)[0]
        names.add(data[start:data.index(b"\0", start)].decode())
    return names


def test_wheel_has_binaries_and_stubs_not_sources(dist: Path) -> None:
    wheel = _one(dist, f"shuangkou-{shuangkou.__version__}-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        assert not [n for n in names if n.endswith((".c", ".pyx"))]
        for pxd in (ROOT / "src" / "shuangkou").glob("*.pxd"):  # for shuangkou.get_include()
            assert f"shuangkou/{pxd.name}" in names, pxd.name
        assert "shuangkou/py.typed" in names
        for ext in EXTENSIONS:
            assert f"shuangkou/{ext}.pyi" in names, ext
            (binary,) = [n for n in names if n.startswith(f"shuangkou/{ext}.")
                         and n.endswith((".so", ".pyd"))]
            data = z.read(binary)
            if data[:4] == b"\x7fELF":  # macOS keeps debug info out of the binary anyway
                sections = elf_section_names(data)
                assert ".symtab" in sections  # kept: callgrind's --toggle-collect needs it
                assert not [s for s in sections if s.startswith(".debug")], binary
        metadata = z.read(f"shuangkou-{shuangkou.__version__}.dist-info/METADATA").decode()
    assert f"Version: {shuangkou.__version__}\n" in metadata
    assert "Requires-Python: >=3.11\n" in metadata


def test_sdist_has_sources_docs_and_examples(dist: Path) -> None:
    sdist = _one(dist, f"shuangkou-{shuangkou.__version__}.tar.gz")
    top = f"shuangkou-{shuangkou.__version__}/"
    with tarfile.open(sdist) as t:
        names = {n.removeprefix(top) for n in t.getnames()}
    for ext in EXTENSIONS:
        assert f"src/shuangkou/{ext}.pyx" in names
        assert f"src/shuangkou/{ext}.c" not in names
    for needed in ("CHANGELOG.md", "LICENSE", "docs/conf.py", "docs/index.md",
                   "examples/simulate_rules.py", "tests/test_docs.py", "benchmarks/deals.py",
                   "tools/pgo_train.py"):
        assert needed in names, needed
    assert not [n for n in names if n.startswith(("docs/_build", "docs/api/"))]


def test_metadata_is_ready_for_pypi() -> None:
    meta = importlib.metadata.metadata("shuangkou")
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or [])
    assert {"Homepage", "Documentation", "Source", "Issues", "Changelog"} <= set(urls)
    assert meta["Author"] or meta["Author-email"]
    assert meta["Keywords"]
    classifiers = meta.get_all("Classifier") or []
    assert any(c.startswith("Development Status :: ") for c in classifiers)


def test_readme_links_are_absolute_for_pypi() -> None:
    """PyPI shows README.md without the repo around it: a relative link would break there."""
    text = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(([^)]+)\)", text)
    assert links, "no links found"
    assert [u for u in links if not u.startswith(("https://", "#"))] == []


def test_test_oracles_are_not_public_api() -> None:
    """The reference modules are private test oracles: no public module re-exports them."""
    import shuangkou.scoring

    for module in (shuangkou, shuangkou.scoring):
        for name in module.__all__:
            home = getattr(getattr(module, name), "__module__", "") or ""
            assert "_reference" not in home, f"{module.__name__}.{name} is from {home}"


@pytest.mark.parametrize("make", ["env", "SingleAgentEnv"])
def test_rl_envs_without_the_extra_name_it(make: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import shuangkou.rl

    for name in ("gymnasium", "pettingzoo", "shuangkou.rl.aec", "shuangkou.rl.gym"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setitem(sys.modules, "gymnasium", None)  # import gymnasium: ModuleNotFoundError
    with pytest.raises(ImportError, match=re.escape("pip install 'shuangkou[rl]'")):
        getattr(shuangkou.rl, make)() if make == "env" else shuangkou.rl.SingleAgentEnv


def test_needs_skips_with_the_install_line_and_fails_under_ci(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """tests/conftest.py's ``require``: a skip naming the install command on a user's
    machine, a failure under ``CI=true`` (where .ci/run installed everything)."""
    from tests import conftest

    assert conftest.missing(program="sh", module="pytest") is None
    assert conftest.missing(program="sk-no-such-tool", apt="sk-tools") == \
        "needs sk-no-such-tool: apt-get install sk-tools"
    assert conftest.missing(module="sk_no_such_module") == \
        "needs sk_no_such_module: pip install '.[test-all]'"
    # a bare folder on the path (the checkout's build/ after `pip install .`) is no package
    (tmp_path / "sk_stray_folder").mkdir()
    monkeypatch.syspath_prepend(str(tmp_path))
    assert conftest.missing(module="sk_stray_folder") == \
        "needs sk_stray_folder: pip install '.[test-all]'"
    monkeypatch.setattr(conftest, "IN_CI", False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install sk-tools"):
        conftest.require(program="sk-no-such-tool", apt="sk-tools")
    monkeypatch.setattr(conftest, "IN_CI", True)
    with pytest.raises(pytest.fail.Exception, match="CI=true: needs sk_no_such_module"):
        conftest.require(module="sk_no_such_module")
    conftest.require(program="sh")  # present: returns


@pytest.mark.parametrize(("missing", "args", "extra"), [
    ("pyarrow", ["--out", "x.parquet"], "parquet"),
    ("matplotlib", ["--plot", "x.png"], "plot"),
])
def test_cli_options_without_their_extra_name_it(
        missing: str, args: list[str], extra: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, missing, None)  # import: ModuleNotFoundError
    assert main(["simulate", "-n", "3", "--no-progress", *args]) == 2
    assert f"pip install 'shuangkou[{extra}]'" in capsys.readouterr().err
