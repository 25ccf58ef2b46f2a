"""Every table a page shows marks a missing value the one way (app.MISSING), never a literal "None"."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PAGES = sorted((Path(__file__).resolve().parents[1] / "pages").glob("*.py"))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_dataframe_has_the_missing_mark(page: Path) -> None:
    tree = ast.parse(page.read_text(encoding="utf-8"))
    bare = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "dataframe"
        and not any(k.arg == "placeholder" for k in node.keywords)
    ]
    assert not bare, f"{page.name}: st.dataframe without placeholder= at lines {bare}"


def test_a_missing_value_shows_the_mark_in_a_live_page() -> None:
    from tests.fixtures import page_app

    at = page_app("../pages/audit.py", timeout=60).run()
    assert not at.exception
    at = page_app("../pages/scaling.py", timeout=60)
    at.session_state["sc_tab"] = "Points in the fit"  # its grid (the live tab has none)
    at.run()
    assert not at.exception
    frames = [d for d in at.dataframe]
    assert frames and all(d.proto.placeholder == "–" for d in frames)  # noqa: RUF001 - the en dash is the mark
