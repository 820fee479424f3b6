"""The learned bot's weights file read as untrusted input (issue 34): every defect is one
:class:`DocumentError` naming the file's key, raised by ``learned.load`` (and ``metadata``,
``MLP.load``, ``bots.make("learned", weights=...)``) before any network is used, and a file
declaring more than :data:`learned.MAX_WEIGHTS_BYTES` of arrays is refused from its headers,
before an array is read. It was: no networks → ``StopIteration`` in the bot; a stray key →
``KeyError``; a wrong layer shape → accepted until the first decision; NaN → played; a 1 GB
layer in a 1.1 MB file → read in full."""

from __future__ import annotations

import io
import pathlib
import zipfile
from typing import Any

import numpy as np
import pytest

from shuangkou import bots, learned
from shuangkou.errors import DocumentError


def _net(hidden: tuple[int, ...] = (8,), seed: int = 0) -> dict[str, np.ndarray]:
    return learned.MLP.new(hidden, np.random.default_rng(seed)).arrays()


def _bundle(d: pathlib.Path, **arrays: Any) -> pathlib.Path:
    """A weights file holding exactly ``arrays`` (keys with '.' spelled '__')."""
    path = d / "w.npz"
    np.savez(path, **{k.replace("__", "."): v for k, v in arrays.items()})
    return path


def _classic(**changes: Any) -> dict[str, Any]:
    """The arrays of a bundle with one network, for classic, with ``changes``."""
    out: dict[str, Any] = {f"classic__{k}": v for k, v in _net().items()}
    out["classic__meta_seed"] = np.array("3")
    out.update(changes)
    return {k: v for k, v in out.items() if v is not None}


def _refused(path: pathlib.Path, match: str) -> None:
    for read in (learned.load, learned.metadata, lambda p: bots.make("learned", "classic",
                                                                    weights=p)):
        with pytest.raises(DocumentError, match=match):
            read(path)


def test_a_good_file_loads_and_plays(tmp_path: pathlib.Path) -> None:
    path = _bundle(tmp_path, **_classic(jj__same_as=np.array("classic")))
    nets = learned.load(path)
    assert sorted(nets) == ["classic", "jj"] and nets["jj"] is nets["classic"]
    assert learned.metadata(path)["classic"] == {"seed": "3"}
    bots.make("learned", "classic", weights=path)


def test_a_file_of_no_network_is_refused(tmp_path: pathlib.Path) -> None:
    # load returned {}, and the bot's next(iter({}.values())) raised StopIteration
    _refused(_bundle(tmp_path, classic__meta_seed=np.array("3")), "holds no network")
    # one network's own file (MLP.save) is not a bundle
    _refused(_bundle(tmp_path, **_net()), r"key 'w0'.*not PRESET\.NAME")


@pytest.mark.parametrize(("key", "match"), [
    ("classic__x", r"key 'classic\.x' is not one a weights file holds"),
    # a gap in the layers: KeyError 'classic.b2'
    ("classic__w7", r"'classic\.w2' is missing: a network of 3 layers has keys w0\.\.w2"),
    ("classic__b3", r"'classic\.b3' is extra: a network of 2 layers has keys w0\.\.w1"),
    ("jj__b0", r"jj.*no 'jj\.w0'"),
    ("jj__same_as", r"'jj\.same_as' names 'nobody'"),
    ("stray", r"key 'stray' is not PRESET\.NAME"),
])
def test_a_stray_key_is_refused_naming_it(tmp_path: pathlib.Path, key: str, match: str) -> None:
    value = np.array("nobody") if key.endswith("same_as") else np.zeros(8, np.float32)
    _refused(_bundle(tmp_path, **_classic(**{key: value})), match)


def test_an_alias_of_an_alias_or_a_network_and_an_alias_are_refused(
        tmp_path: pathlib.Path) -> None:
    _refused(_bundle(tmp_path, **_classic(jj__same_as=np.array("classic"),
                                         qianbian__same_as=np.array("jj"))),
             r"'qianbian\.same_as' names 'jj'")
    _refused(_bundle(tmp_path, **_classic(classic__same_as=np.array("classic"))),
             r"classic.*both a network and same_as")


@pytest.mark.parametrize(("key", "value", "match"), [
    ("classic__w0", np.zeros((learned.DIM + 1, 8), np.float32), r"'classic\.w0' has shape"),
    ("classic__w1", np.zeros((8, 2), np.float32), r"'classic\.w1' has shape \(8, 2\)"),
    ("classic__w1", np.zeros((9, 1), np.float32), r"'classic\.w1' has shape \(9, 1\)"),
    ("classic__b0", np.zeros(7, np.float32), r"'classic\.b0' has shape \(7,\)"),
    ("classic__w0", np.zeros(learned.DIM * 8, np.float32), r"'classic\.w0' has shape"),
    ("classic__bonus", np.zeros(2, np.float32), r"'classic\.bonus' has shape \(2,\)"),
    ("classic__meta_seed", np.array(["3", "4"]), r"'classic\.meta_seed' has shape"),
])
def test_a_wrong_shape_is_refused_on_load(tmp_path: pathlib.Path, key: str, value: np.ndarray,
                                          match: str) -> None:
    # the bot was made, and its first decision raised numpy's matmul error
    _refused(_bundle(tmp_path, **_classic(**{key: value})), match)


@pytest.mark.parametrize(("key", "value", "match"), [
    ("classic__w0", np.zeros((learned.DIM, 8), np.int32), r"'classic\.w0' .*int32.*float"),
    ("classic__w0", np.zeros((learned.DIM, 8), np.complex64), r"'classic\.w0' .*complex"),
    ("classic__bonus", np.array("0.5"), r"'classic\.bonus' .*<U3"),
    ("classic__meta_seed", np.array(3), r"'classic\.meta_seed' .*int64.*text"),
    ("jj__same_as", np.array(1.0), r"'jj\.same_as' .*float64.*text"),
])
def test_a_wrong_dtype_is_refused(tmp_path: pathlib.Path, key: str, value: np.ndarray,
                                  match: str) -> None:
    _refused(_bundle(tmp_path, **_classic(**{key: value})), match)


def test_an_object_array_is_refused_from_its_header(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "w.npz"
    arrays: dict[str, Any] = {f"classic.{k}": v for k, v in _net().items()}
    arrays["classic.meta_seed"] = np.array([{"a": 1}], dtype=object)
    np.savez(path, **arrays)
    _refused(path, r"'classic\.meta_seed' .*object")


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, 1e300])
@pytest.mark.parametrize("key", ["classic__w1", "classic__b0", "classic__bonus"])
def test_weights_that_are_not_finite_are_refused(tmp_path: pathlib.Path, key: str,
                                                 bad: float) -> None:
    # NaN scores every play NaN: the bot played the first row, silently
    arrays = _classic()
    value = np.array(arrays[key], np.float64)
    value.flat[0] = bad  # 1e300: finite in float64, inf once float32
    arrays[key] = value
    _refused(_bundle(tmp_path, **arrays), rf"'{key.replace('__', '.')}' .*not finite")


def _huge_member(path: pathlib.Path, name: str, shape: tuple[int, ...]) -> None:
    """Append to ``path`` an .npy member declaring ``shape`` float32, all zeros, compressed."""
    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        head, {"descr": "<f4", "fortran_order": False, "shape": shape})
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as zf, \
            zf.open(name + ".npy", "w", force_zip64=True) as f:
        f.write(head.getvalue())
        block = bytes(1 << 20)
        for _ in range(int(np.prod(shape)) * 4 // len(block)):
            f.write(block)


def test_a_huge_declared_layer_is_refused_before_it_is_read(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 256 MiB of zeros (a 1 GB one was read in full): ~0.25 MB compressed
    path = _bundle(tmp_path, **_classic())
    _huge_member(path, "classic.w9", (1 << 14, 1 << 12))
    assert path.stat().st_size < 1_000_000
    read: list[str] = []
    real = np.lib.format.read_array
    monkeypatch.setattr(np.lib.format, "read_array",
                        lambda f, *a, **k: read.append("array") or real(f, *a, **k))
    _refused(path, r"'classic\.w9' .*268,435,456 bytes.*at most")
    assert read == []  # refused from the headers: no array was read


def test_the_bound_counts_every_array_of_the_file(tmp_path: pathlib.Path) -> None:
    assert learned.MAX_WEIGHTS_BYTES == 64 * 2**20
    rows = learned.MAX_WEIGHTS_BYTES // 4 // (learned.DIM + 1) // 2 + 1
    arrays = _classic(**{f"{p}__{k}": v for p in ("jj", "baibian") for k, v in
                         learned.MLP.new((rows,), np.random.default_rng(0)).arrays().items()})
    _refused(_bundle(tmp_path, **arrays), "at most 67,108,864 bytes")


def test_not_a_weights_file_is_one_error(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "w.npz"
    for content in (b"", b"not a zip", np.zeros(3).tobytes()):
        path.write_bytes(content)
        _refused(path, "not a weights file")
    np.save(tmp_path / "one.npy", np.zeros(3))
    _refused(tmp_path / "one.npy", "not a weights file")
    good = _bundle(tmp_path, **_classic()).read_bytes()
    path.write_bytes(good[: len(good) // 2])  # torn
    _refused(path, "not a weights file")
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("classic.w0.txt", "hello")
    _refused(path, r"'classic\.w0\.txt' is not an array")


def test_one_networks_file_is_checked_as_well(tmp_path: pathlib.Path) -> None:
    net = learned.MLP.new((8,), np.random.default_rng(0))
    net.w[1][0, 0] = np.nan
    net.save(tmp_path / "a.npz", presets="classic")
    for read in (learned.MLP.load, lambda p: learned.bundle([p], tmp_path / "b.npz")):
        with pytest.raises(DocumentError, match=r"key 'w1' .*not finite"):
            read(tmp_path / "a.npz")
