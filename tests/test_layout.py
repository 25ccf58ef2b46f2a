"""The house rules of comparelib's layout, read from the import statements of every module.

comparelib is grouped by capability: ``models``, ``audit``, ``live``, ``analysis``, in that order, over a
small shared ground (the top-level modules). The ground uses no capability; a capability uses the ground
and the capabilities before it; the front ends (``pages/``, ``app.py``, ``comparelib/cli``) use only the
public surface each capability names in its ``__all__``. Nothing in comparelib imports Streamlit or a page.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "comparelib"
CAPABILITIES = ("models", "audit", "live", "analysis")
FRONT = "cli"  # the CLI is a front end, like the pages: it may call any capability's surface


@dataclass(frozen=True)
class Imported:
    line: int
    module: str  # absolute dotted name
    names: tuple[str, ...]  # from-import names; () for a plain import


def imports(source: str) -> Iterator[Imported]:
    """Every import in ``source``, at any depth (function-level and TYPE_CHECKING ones too)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Imported(node.lineno, alias.name, ())
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield Imported(node.lineno, node.module, tuple(a.name for a in node.names))


def room(module: str) -> str:
    """Where a dotted comparelib module lives: a capability, ``cli``, or ``ground``."""
    parts = module.split(".")
    if module == "comparelib.__main__":  # ``python -m comparelib``: the CLI's entry point
        return FRONT
    if len(parts) > 1 and parts[1] in (*CAPABILITIES, FRONT):
        return parts[1]
    return "ground"


def targets(imp: Imported) -> list[str]:
    """The comparelib modules an import reaches (``from comparelib import x`` reaches ``comparelib.x``)."""
    if imp.module == "comparelib" and imp.names:
        return [f"comparelib.{n}" for n in imp.names if n != "__version__"]
    if imp.module.startswith("comparelib.") and imp.module.split(".")[1] in CAPABILITIES and imp.names:
        parts = imp.module.split(".")
        if len(parts) == 2:  # from comparelib.models import hub, params
            return [f"{imp.module}.{n}" for n in imp.names]
    return [imp.module] if imp.module == "comparelib" or imp.module.startswith("comparelib.") else []


def library_violations(module: str, source: str) -> list[str]:
    """Broken rules in one comparelib module (``module`` is its dotted name)."""
    here = room(module)
    found = []
    for imp in imports(source):
        top = imp.module.split(".")[0]
        if top == "streamlit":
            found.append(f"{module}:{imp.line} imports streamlit")
        if top in ("pages", "app"):
            found.append(f"{module}:{imp.line} imports the page layer ({imp.module})")
        for target in targets(imp):
            there = room(target)
            if there == FRONT and here != FRONT:
                found.append(f"{module}:{imp.line} imports the CLI ({target})")
            elif here == "ground" and there in CAPABILITIES:
                found.append(f"{module}:{imp.line} the shared ground imports capability {target}")
            elif here in CAPABILITIES and there in CAPABILITIES:
                if CAPABILITIES.index(there) > CAPABILITIES.index(here):
                    found.append(f"{module}:{imp.line} {here} reaches up into {there} ({target})")
    return found


def surface(package: str) -> set[str]:
    return set(importlib.import_module(f"comparelib.{package}").__all__)


def _private(name: str) -> bool:
    return name.startswith("_") and not name.endswith("__")


def front_violations(where: str, source: str) -> list[str]:
    """Front-end imports (pages, app, CLI) that reach past a capability's public surface."""
    found = []
    for imp in imports(source):
        parts = imp.module.split(".")
        if parts[0] != "comparelib":
            continue
        if any(p.startswith("_") for p in parts[1:] if p != "_util") or any(_private(n) for n in imp.names):
            if not (where.startswith("comparelib/cli") and imp.module == "comparelib.cli._util"):
                found.append(f"{where}:{imp.line} imports a private name from {imp.module}")
        if len(parts) >= 2 and parts[1] in CAPABILITIES:
            public = surface(parts[1])
            if len(parts) == 2:
                missing = [n for n in imp.names if n not in public]
            else:
                missing = [parts[2]] if parts[2] not in public else []
            for name in missing:
                found.append(f"{where}:{imp.line} {name} is not in comparelib.{parts[1]}.__all__")
    return found


def dotted(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


LIBRARY = sorted(LIB.rglob("*.py"))
FRONTS = sorted([*ROOT.glob("pages/*.py"), ROOT / "app.py", *(LIB / FRONT).glob("*.py")])


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: str(p.relative_to(ROOT)))
def test_library_module_keeps_the_house_rules(path: Path) -> None:
    assert library_violations(dotted(path), path.read_text()) == []


@pytest.mark.parametrize("path", FRONTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_front_ends_use_only_public_surfaces(path: Path) -> None:
    assert front_violations(str(path.relative_to(ROOT)), path.read_text()) == []


@pytest.mark.parametrize("package", CAPABILITIES)
def test_each_capability_names_its_modules(package: str) -> None:
    modules = {p.stem for p in (LIB / package).glob("*.py") if not p.stem.startswith("_")}
    init = LIB / package / "__init__.py"
    tree = ast.parse(init.read_text())
    assert ast.get_docstring(tree), f"comparelib/{package}/__init__.py says what the package is for"
    assert surface(package) == modules


def test_the_top_level_is_the_four_capabilities_over_a_small_ground() -> None:
    folders = {p.name for p in LIB.iterdir() if p.is_dir() and not p.name.startswith("__")}
    assert folders == {*CAPABILITIES, FRONT, "builtin"}
    ground = {p.stem for p in LIB.glob("*.py")} - {"__init__", "__main__"}
    assert len(ground) <= 10, sorted(ground)


# The checker itself: a forbidden import is caught (so a passing run above means something).
CASES = [
    ("comparelib.errors", "from comparelib.models import hub", "shared ground imports capability"),
    ("comparelib.values", "from comparelib.live.store import Store", "shared ground imports capability"),
    ("comparelib.charts", "import comparelib.analysis.scaling", "shared ground imports capability"),
    (
        "comparelib.live.store",
        "from comparelib.analysis.speedup import speedup_against",
        "live reaches up into analysis",
    ),
    ("comparelib.models.lint", "from comparelib.audit import dumps", "models reaches up into audit"),
    ("comparelib.audit.scan", "from comparelib import live", "audit reaches up into live"),
    ("comparelib.analysis.verdicts", "import streamlit as st", "imports streamlit"),
    ("comparelib.models.params", "from pages import compare", "imports the page layer"),
    ("comparelib.live.bench", "from comparelib.cli import main", "imports the CLI"),
]


@pytest.mark.parametrize(("module", "source", "message"), CASES)
def test_forbidden_imports_are_caught(module: str, source: str, message: str) -> None:
    found = library_violations(module, f"def f():\n    {source}\n")
    assert len(found) == 1 and message in found[0]


ALLOWED = [
    ("comparelib.analysis.speedup", "from comparelib.live.store import RunRecord"),
    ("comparelib.live.prompts", "from comparelib.audit import conversations"),
    ("comparelib.audit.hubdata", "from comparelib.models import hub"),
    ("comparelib.models.hub", "from comparelib import limits, paths, redact, settings"),
    ("comparelib.cli.params", "from comparelib.analysis import scaling"),
]


@pytest.mark.parametrize(("module", "source"), ALLOWED)
def test_allowed_imports_pass(module: str, source: str) -> None:
    assert library_violations(module, source) == []


FRONT_CASES = [
    ("from comparelib.live.bench import _Pool", "private name"),
    ("from comparelib.models import _private", "private name"),
    ("from comparelib.models.hub import _api", "private name"),
    ("from comparelib.live import nosuchmodule", "not in comparelib.live.__all__"),
    ("import comparelib.audit._scratch", "private name"),
]


@pytest.mark.parametrize(("source", "message"), FRONT_CASES)
def test_front_end_reaching_past_a_surface_is_caught(source: str, message: str) -> None:
    found = front_violations("pages/x.py", source)
    assert found and message in found[0]
