"""Write the API reference pages (``docs/api/*.rst``) from the installed package.

One page per public module: ``shuangkou`` and every submodule or subpackage whose dotted
name has no part starting with ``_``, found with ``pkgutil.walk_packages``. The index lists
every module with the first sentence of its docstring; each page opens with the same one-line
summary of every class and function it exports. A module's
public names are its ``__all__``, or without one the classes and functions it defines and
the values it assigns at top level. Each object is documented once, on its home page (the
module that defines it, if public, else a public submodule that exports it, else the
package); every other page that exports it links there.
"""

from __future__ import annotations

import ast
import enum
import importlib
import inspect
import pkgutil
from pathlib import Path
from types import ModuleType

PACKAGE = "shuangkou"


def public_modules() -> list[str]:
    """The package and its public submodules, in dotted-name order after the package."""
    pkg = importlib.import_module(PACKAGE)
    names = []
    for info in pkgutil.walk_packages(pkg.__path__, PACKAGE + "."):
        parts = info.name.split(".")[1:]
        if not any(part.startswith("_") for part in parts):
            names.append(info.name)
    return [PACKAGE, *sorted(names)]


def _assigned_names(module: ModuleType) -> set[str]:
    """Names bound by top-level assignments in the module's source (none for extensions)."""
    try:
        source = inspect.getsource(module)
    except (OSError, TypeError):
        return set()
    names: set[str] = set()
    for node in ast.parse(source).body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, getattr(ast, "TypeAlias", ())):  # `type X = ...`, 3.12+
            targets = [node.name]  # type: ignore[attr-defined]
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def exports(module: ModuleType) -> list[str]:
    """The public names of ``module``."""
    declared = getattr(module, "__all__", None)
    if declared is not None:
        return list(declared)
    assigned = _assigned_names(module)
    names = []
    for name, obj in vars(module).items():
        if name.startswith("_") or inspect.ismodule(obj):
            continue
        if inspect.isclass(obj) or inspect.isroutine(obj):
            if getattr(obj, "__module__", None) == module.__name__:
                names.append(name)
        elif name in assigned:
            names.append(name)
    return names


def _directive(obj: object) -> tuple[str, list[str]]:
    if inspect.isclass(obj):
        if issubclass(obj, BaseException):
            return "autoexception", [":members:", ":show-inheritance:"]
        if issubclass(obj, enum.Enum):
            return "autoclass", [":members:", ":undoc-members:", ":show-inheritance:"]
        return "autoclass", [":members:", ":show-inheritance:"]
    if inspect.isroutine(obj):
        return "autofunction", []
    return "autodata", []


def plan() -> dict[str, list[tuple[str, str | None]]]:
    """For each public module, its names and where each is documented (None: on this page)."""
    modules = {name: importlib.import_module(name) for name in public_modules()}
    exported = {name: exports(mod) for name, mod in modules.items()}
    homes: dict[tuple[int, str], str] = {}
    for modname, names in exported.items():
        for name in names:
            obj = getattr(modules[modname], name)
            key = (id(obj), name)
            defined_in = getattr(obj, "__module__", None)
            current = homes.get(key)
            if current is None or modname == defined_in or (
                current == PACKAGE and defined_in != current
            ):
                homes[key] = modname
    result: dict[str, list[tuple[str, str | None]]] = {}
    for modname, names in exported.items():
        rows: list[tuple[str, str | None]] = []
        for name in names:
            home = homes[(id(getattr(modules[modname], name)), name)]
            rows.append((name, None if home == modname else home))
        result[modname] = rows
    return result


def summary(obj: object) -> str:
    """The first sentence of ``obj``'s own docstring, on one line ("" without one)."""
    doc = obj.__doc__ if isinstance(obj, ModuleType) else inspect.getdoc(obj)
    paragraph = inspect.cleandoc(doc or "").split("\n\n")[0]
    text = " ".join(paragraph.split())
    end = text.find(". ")
    return text if end < 0 else text[:end + 1]


def _summary_list(module: ModuleType, rows: list[tuple[str, str | None]]) -> list[str]:
    """A bullet per exported class and function: its link and its one-line summary."""
    lines = []
    for name, home in rows:
        obj = getattr(module, name)
        if inspect.isclass(obj) or inspect.isroutine(obj):
            line = f"* :py:obj:`{name} <{home or module.__name__}.{name}>`"
            text = summary(obj)
            lines.append(f"{line} — {text}" if text else line)
    return lines + [""] if lines else []


def _page(modname: str, rows: list[tuple[str, str | None]]) -> str:
    module = importlib.import_module(modname)
    lines = [modname, "=" * len(modname), "", f".. automodule:: {modname}", ""]
    lines += _summary_list(module, rows)
    elsewhere = [(n, home) for n, home in rows if home is not None]
    if elsewhere:
        refs = ", ".join(f":py:obj:`{n} <{home}.{n}>`" for n, home in elsewhere)
        lines += [f"Also exported here, documented on their home page: {refs}.", ""]
    for name, home in rows:
        if home is not None:
            continue
        directive, options = _directive(getattr(module, name))
        lines.append(f".. {directive}:: {modname}.{name}")
        lines += [f"   {opt}" for opt in options]
        lines.append("")
    return "\n".join(lines)


def write_pages(out: Path) -> list[str]:
    """(Re)write ``out/index.rst`` and one page per public module; return the module names."""
    out.mkdir(exist_ok=True)
    pages = plan()
    wanted = {f"{m}.rst" for m in pages} | {"index.rst"}
    for old in out.glob("*.rst"):
        if old.name not in wanted:
            old.unlink()
    index = ["API reference", "=============", "",
             "Generated from the docstrings of every public module.", ""]
    for m in pages:
        text = summary(importlib.import_module(m))
        index.append(f"* :doc:`{m}` — {text}" if text else f"* :doc:`{m}`")
    index += ["", ".. toctree::", "   :hidden:", ""]
    index += [f"   {m}" for m in pages]
    _write(out / "index.rst", "\n".join(index) + "\n")
    for modname, rows in pages.items():
        _write(out / f"{modname}.rst", _page(modname, rows))
    return list(pages)


def _write(path: Path, text: str) -> None:
    """Write only on change, so Sphinx's incremental builds stay incremental."""
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
