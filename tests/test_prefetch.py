"""The first page of a browser session has the browser load, while idle, the widget code the other pages need.

Streamlit's frontend loads a widget's code the first time a page shows one; ``app.prefetch_browser_code``
asks for it earlier, so a page's first visit in a session costs what its revisit does.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

import app
from tests.fixtures import aq_config, aq_tensors
from tests.streamlit_server import LiveApp, wait_for_script

ROOT = Path(__file__).resolve().parents[1]
STATIC_JS = Path(st.__file__).parent / "static" / "static" / "js"


def test_every_named_module_is_in_this_streamlit_build() -> None:
    """An upgrade that renames or splits one of them fails here, not silently in the browser."""
    names = app.browser_chunks()
    assert len(names) == len(app.BROWSER_CHUNKS), set(app.BROWSER_CHUNKS) - {n.split(".")[0] for n in names}
    for stem, name in zip(app.BROWSER_CHUNKS, names, strict=True):
        assert name.startswith(f"{stem}.") and name.endswith(".js")
        assert (STATIC_JS / name).is_file()


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (("DataFrame.abc.js",), ['"DataFrame.abc.js"']),
        (("embed.x-1.js", "Radio.Y_2.js"), ['["embed.x-1.js", "Radio.Y_2.js"]']),
        (("a</script>.x.js",), ['"a\\u003c/script>.x.js"']),  # a name never ends the script early
    ],
)
def test_the_script_imports_each_name_against_streamlits_main_module(names, expected) -> None:
    script = app.prefetch_script(names)
    assert script.startswith("<script>") and script.endswith("</script>") and script.count("</script>") == 1
    for part in expected:
        assert part in script
    assert "new URL(n, main.src)" in script  # relative to the app's own files: a base URL path still works
    assert "requestIdleCallback" in script  # never ahead of the page the user is looking at


def _htmls(at: AppTest) -> list[str]:
    return [h.proto.body for h in at.get("html")]


def test_the_first_run_of_a_session_asks_once(tmp_path: Path, monkeypatch) -> None:
    """The first run of a session carries the script; its later runs do not (it already ran)."""
    monkeypatch.setenv("SPECDRAFT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SPECDRAFT_DB", f"sqlite:///{tmp_path / 'runs.db'}")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    assert not at.exception
    scripts = [b for b in _htmls(at) if "import(" in b]
    assert len(scripts) == 1
    for name in app.browser_chunks():
        assert f'"{name}"' in scripts[0]
    at.run()
    assert not at.exception
    assert [b for b in _htmls(at) if "import(" in b] == []


@pytest.mark.browser
def test_a_pages_first_visit_finds_its_widget_code_loaded(browser, live_app: LiveApp) -> None:
    """After Overview (the first page) the grid and chart code is in the browser before Compare is opened:
    the visit fetches neither, and the grids and chart it draws come from the modules loaded earlier."""
    live_app.hub.add_model("acme/kimi-draft", aq_config(), tensors=aq_tensors())
    query = urlencode({"draft": f"{live_app.hub.url}/acme/kimi-draft"})
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{live_app.url}/?{query}")
        page.get_by_role("heading", name="Overview", exact=True).first.wait_for(timeout=60_000)
        wait_for_script(page)
        page.wait_for_function("() => window.__specdraftPrefetched === true", timeout=60_000)
        loaded = page.evaluate("() => performance.getEntriesByType('resource').map(e => e.name.split('/').pop())")
        for name in app.browser_chunks():
            assert name in loaded, name
        before = len(loaded)
        page.get_by_test_id("stSidebarNav").get_by_text("Compare drafts", exact=True).click()
        page.get_by_role("heading", name="Compare drafts", exact=True).first.wait_for(timeout=60_000)
        wait_for_script(page)
        page.get_by_test_id("stDataFrame").first.wait_for(timeout=60_000)
        page.get_by_test_id("stVegaLiteChart").first.wait_for(timeout=60_000)
        # a lazy module asked for now would show up among the resources: wait until the browser is idle with
        # no file requested since its last idle moment
        page.evaluate(
            """() => new Promise((done) => {
                let last = -1;
                const tick = () => {
                    const n = performance.getEntriesByType("resource").length;
                    if (n === last) { done(); return; }
                    last = n;
                    requestIdleCallback(() => setTimeout(tick, 50));
                };
                tick();
            })"""
        )
        after = page.evaluate(
            f"() => performance.getEntriesByType('resource').slice({before}).map(e => e.name.split('/').pop())"
        )
        assert not [n for n in after if n in app.browser_chunks()], after
        assert page.get_by_test_id("stDataFrame").count() >= 1
        assert page.locator("[data-testid='stVegaLiteChart'] canvas, [data-testid='stVegaLiteChart'] svg").count() >= 1
        assert errors == []
    finally:
        context.close()
