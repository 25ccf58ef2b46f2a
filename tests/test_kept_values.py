"""Every widget a page builds only while its tab or fold-out is shown has its value kept (``app.keep_values``).

A widget added to a lazily built part without its key in the page's KEPT list would come back reset after a
tab switch or a fold-out closing: these tests find such widgets by building each part and diffing the keys.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from tests.fixtures import page_app

PAGES = Path(__file__).resolve().parent.parent / "pages"
# widgets whose value Streamlit refuses to have written (and which hold nothing a user typed to keep)
UNWRITABLE = {"button", "download_button", "file_uploader"}


def _kept(page: str) -> tuple[set[str], tuple[str, ...]]:
    """The page's KEPT tuple and the prefixes it passes to ``app.keep_values``, read from its source."""
    tree = ast.parse((PAGES / page).read_text(encoding="utf-8"))
    kept: set[str] = set()
    prefixes: tuple[str, ...] = ()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "KEPT" for t in node.targets):
            kept = set(ast.literal_eval(node.value))
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "keep_values":
            for kw in node.keywords:
                if kw.arg == "prefixes":
                    prefixes = tuple(ast.literal_eval(kw.value))
    assert kept, f"{page} has no KEPT tuple"
    return kept, prefixes


def _leaves(node: Any) -> Iterator[Any]:
    children = getattr(node, "children", None)
    if children:
        for child in children.values():
            yield from _leaves(child)
    else:
        yield node


def _value_keys(at: AppTest) -> set[str]:
    """The user keys of the widgets drawn in the last run that hold a value."""
    assert not at.exception, at.exception
    return {
        n.key
        for n in _leaves(at._tree)
        if getattr(n, "key", None) and n.type not in UNWRITABLE and not str(n.key).startswith("FormSubmitter:")
    }


def _unkept(lazy: set[str], kept: set[str], prefixes: tuple[str, ...]) -> list[str]:
    return sorted(k for k in lazy if k not in kept and not (prefixes and k.startswith(prefixes)))


def test_every_widget_in_acceptance_vs_datas_tabs_is_kept() -> None:
    kept, prefixes = _kept("scaling.py")
    tabs = ast.literal_eval(
        next(
            n.value
            for n in ast.walk(ast.parse((PAGES / "scaling.py").read_text(encoding="utf-8")))
            if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "TABS" for t in n.targets)
        )
    )
    folds = {k for k in kept if k.endswith("_open")}
    per_tab = []
    for tab in tabs:
        at = page_app(PAGES / "scaling.py", timeout=60)
        at.session_state["sc_tab"] = tab
        for fold in folds:  # every fold-out open, so its widgets are built too
            at.session_state[fold] = True
        per_tab.append(_value_keys(at.run()))
    lazy = set.union(*per_tab) - set.intersection(*per_tab)  # in some tabs, not all: built only while shown
    assert {"sc_ex_bench", "sc_dc_first", "sc_dc_acc_0", "lc_path", "lc_split", "od_draft"} <= lazy, sorted(lazy)
    assert not _unkept(lazy, kept, prefixes), (
        f"built only while their tab is shown, but not in scaling.py's KEPT: {_unkept(lazy, kept, prefixes)}"
    )


@pytest.mark.parametrize("fold", ["bench_form_open", "import_open"])
def test_every_widget_in_live_benchmarks_fold_outs_is_kept(fold: str) -> None:
    kept, prefixes = _kept("bench.py")
    closed = _value_keys(page_app(PAGES / "bench.py", timeout=60).run())
    at = page_app(PAGES / "bench.py", timeout=60)
    at.session_state[fold] = True
    lazy = _value_keys(at.run()) - closed
    assert len(lazy) >= 2, sorted(lazy)  # the fold-out's inputs were built
    assert not _unkept(lazy, kept, prefixes), (
        f"built only while {fold} is open, but not in bench.py's KEPT: {_unkept(lazy, kept, prefixes)}"
    )
