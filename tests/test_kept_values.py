"""Every widget a page builds only while its tab or fold-out is shown has its value kept (``app.keep_values``),
through a tab switch, a fold-out closing and a visit to another page.

A widget added to a lazily built part without its key in app.KEPT would come back reset after a tab switch,
a fold-out closing or a page switch: these tests find such widgets by building each part and diffing the keys.
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


def _kept() -> tuple[set[str], tuple[str, ...]]:
    """The keys and prefixes the router and the lazily built pages keep (app.KEPT, app.KEPT_PREFIXES)."""
    import app

    assert app.KEPT
    return set(app.KEPT), app.KEPT_PREFIXES


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
    kept, prefixes = _kept()
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
        f"built only while their tab is shown, but not in app.KEPT: {_unkept(lazy, kept, prefixes)}"
    )


@pytest.mark.parametrize("fold", ["bench_form_open", "import_open"])
def test_every_widget_in_live_benchmarks_fold_outs_is_kept(fold: str) -> None:
    kept, prefixes = _kept()
    closed = _value_keys(page_app(PAGES / "bench.py", timeout=60).run())
    at = page_app(PAGES / "bench.py", timeout=60)
    at.session_state[fold] = True
    lazy = _value_keys(at.run()) - closed
    assert len(lazy) >= 2, sorted(lazy)  # the fold-out's inputs were built
    assert not _unkept(lazy, kept, prefixes), (
        f"built only while {fold} is open, but not in app.KEPT: {_unkept(lazy, kept, prefixes)}"
    )


def test_what_was_typed_on_a_page_is_still_there_after_a_visit_to_another() -> None:
    """Through the router: an endpoint typed in Live benchmark's form and an offline-evaluation path typed in
    Acceptance vs data's last tab are still there after Overview has run (Streamlit alone drops a widget's
    value once a run on another page does not draw it)."""
    at = AppTest.from_file(str(PAGES.parent / "app.py"), default_timeout=60).run()
    at.switch_page("pages/bench.py")
    at.session_state["bench_form_open"] = True
    at.run()
    at.text_input(key="bench_endpoint").set_value("http://10.0.0.5:30000").run()
    at.switch_page("pages/scaling.py")
    at.session_state["sc_tab"] = "Before serving"
    at.run()
    at.text_input(key="od_draft").set_value("/data/drafts/mine").run()
    at.switch_page("pages/overview.py").run()
    assert not at.exception, at.exception
    at.switch_page("pages/bench.py").run()
    assert at.session_state["bench_form_open"] is True  # the fold-out is open again, as it was left
    assert at.text_input(key="bench_endpoint").value == "http://10.0.0.5:30000"
    at.switch_page("pages/scaling.py").run()
    assert at.session_state["sc_tab"] == "Before serving"
    assert at.text_input(key="od_draft").value == "/data/drafts/mine"
