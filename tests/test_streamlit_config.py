"""The server's Streamlit settings the pages' speed rests on, and what they require of the pages.

``runner.magicEnabled = false``: a bare expression in a page (``x`` or ``"text"`` on its own line, which magic would
st.write) would silently show nothing, so none may exist. ``runner.postScriptGC = false``: Streamlit's collection
after each run held the GIL while the run's last messages waited (measured by benchmarks/bench_pages.py)."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]


def test_the_server_runs_pages_without_magic_or_a_collection_after_each_run() -> None:
    runner = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["runner"]
    assert runner == {"postScriptGC": False, "magicEnabled": False}


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_no_page_relies_on_magic(script: Path) -> None:
    tree = ast.parse(script.read_text())
    docstrings = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and n.body
        and isinstance(n.body[0], ast.Expr)
        and isinstance(n.body[0].value, ast.Constant)
        and isinstance(n.body[0].value.value, str)
    }
    bare = [
        f"line {n.lineno}: {ast.unparse(n)[:60]}"
        for n in ast.walk(tree)
        if isinstance(n, ast.Expr)
        and not isinstance(n.value, (ast.Call, ast.Await, ast.Yield, ast.YieldFrom))
        and id(n.value) not in docstrings
    ]
    assert not bare, f"{script.name} writes with Streamlit magic, which the server turns off: {bare}"
