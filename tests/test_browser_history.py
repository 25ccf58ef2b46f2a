"""Walk BR 1: each page switch left four browser-history entries, the page's link with one more of the draft's
parameters each (the app wrote them one at a time, and each write is an entry), so Back stayed on the page and
opened the link without the run group, then without the audit: the sidebar's group read "(none)" and Overview said
"no run group attached" of a draft with 9 runs. Back and Forward never take the draft's attachments off it."""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode, urlparse

import pytest

from tests.fixtures import QWEN3_8B_EAGLE3
from tests.streamlit_server import LiveApp, wait_for_script

pytestmark = pytest.mark.browser

DRAFT = "acme-br/llama-draft"
GROUP = "br-group"
VOLUME = "acme-br/llama-draft"


def _seed(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from comparelib import settings
    from comparelib.live.store import Store

    monkeypatch.setenv("SPECDRAFT_HOME", str(tmp_path / "home"))  # the live app's database
    store = Store(settings.database_url())
    for steps, tok_s in ((None, 80.0), (3, 140.0)):
        cfg = {"engine": "sglang", "model": "Qwen/Qwen3-8B", "speculative_algorithm": "EAGLE3" if steps else None,
               "draft_model": DRAFT if steps else None, "num_steps": steps}  # fmt: skip
        rid = store.start_run(endpoint="http://127.0.0.1:30000", server_config=cfg, group=GROUP,
                              params={"concurrency": 1, "temperature": 0.0})  # fmt: skip
        store.finish_run(rid, {"requests": 8, "output_tokens_per_s": tok_s, "accept_length": 2.8 if steps else None})
    store.save_data_volume(draft=VOLUME, samples=20_000, tokens=20_000 * 800, source="audit", kind="measured")


def _open(browser, live_app: LiveApp, tmp_path, monkeypatch, path: str):  # type: ignore[no-untyped-def]
    """A page of a fresh session on the user's draft with its audit and run group in the link (``path``: "" for
    Overview, "scaling", "bench")."""
    live_app.hub.add_model(DRAFT, QWEN3_8B_EAGLE3)
    _seed(tmp_path, monkeypatch)
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.set_default_timeout(120_000)
    query = urlencode({"draft": DRAFT, "draft_vol": VOLUME, "draft_group": GROUP})
    page.goto(f"{live_app.url}/{path}?{query}")
    return page


def _params(url: str) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlparse(url).query).items()}


def test_back_and_forward_keep_the_drafts_run_group_and_audit(
    browser, live_app: LiveApp, tmp_path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    page = _open(browser, live_app, tmp_path, monkeypatch, "")
    wait_for_script(page)
    start = page.evaluate("history.length")
    sidebar = page.get_by_test_id("stSidebar")
    for label in ("Compare drafts", "Live benchmark"):
        sidebar.get_by_role("link", name=label).click()
        page.wait_for_timeout(300)
        wait_for_script(page)
    pushed = page.evaluate("history.length") - start
    paths = []
    for _ in range(pushed):  # back to where the walk began, however many entries a switch left
        page.go_back()
        page.wait_for_timeout(300)
        wait_for_script(page)
        said = _params(page.url)
        paths.append(urlparse(page.url).path)
        # an entry may carry no draft at all (the session's draft is read then), never a draft cut short
        if "draft" in said:
            assert said.get("draft_group") == GROUP and said.get("draft_vol") == VOLUME, (page.url, paths)
        shown = sidebar.get_by_role("combobox", name="Benchmark runs (run group)").input_value()
        assert shown == GROUP, (page.url, shown, paths)
    assert paths[-1] in ("/", ""), paths  # Back reached Overview
    for _ in range(pushed):
        page.go_forward()
        page.wait_for_timeout(300)
        wait_for_script(page)
        said = _params(page.url)
        if "draft" in said:
            assert said.get("draft_group") == GROUP and said.get("draft_vol") == VOLUME, page.url
    page.close()


def _select_value(page, label: str) -> str:  # type: ignore[no-untyped-def]
    """What a selectbox shows in the browser (its combobox's text), not what the server holds."""
    return str(page.get_by_test_id("stMain").get_by_role("combobox", name=label).first.input_value())


def _runs_picked(page) -> list[str]:  # type: ignore[no-untyped-def]
    """The runs Live benchmark's "Runs" select shows picked in the browser."""
    runs = page.get_by_test_id("stMultiSelect").filter(has_text="Runs").first
    runs.wait_for()
    wait_for_script(page)
    return sorted(t.get_attribute("title") or "" for t in runs.locator("[data-tag] > span[title]").all())


def _nav(page, label: str) -> None:  # type: ignore[no-untyped-def]
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=label).click()
    page.wait_for_timeout(300)
    wait_for_script(page)


def test_a_kept_reference_is_shown_again_after_a_page_switch_and_never_becomes_a_pick(
    browser, live_app: LiveApp, tmp_path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Walk BQ 8 (isolated by a helper after the walk): on Acceptance vs data, one rerun (a tab), another page and
    back: the server kept RedHatAI/Qwen3-8B-speculator.eagle3, but the browser, which forgets a page's widgets on a
    switch, drew the select on its first option (AQ-MedAI/Kimi-K2-Instruct-eagle3); the next rerun sent that back as
    the user's pick, and the page answered against a Kimi-K2 draft on GSM8K ("need about 1.1M samples"). A kept value
    is sent with its widget again after a switch, on each run until one draws it."""
    page = _open(browser, live_app, tmp_path, monkeypatch, "scaling")
    wait_for_script(page)
    page.get_by_text("Benchmark, setting, your training volume and run group").first.click()
    first = (_select_value(page, "Reference draft"), _select_value(page, "Benchmark"))
    assert first[0] == "RedHatAI/Qwen3-8B-speculator.eagle3", first
    for tab in (1, 0):  # a rerun of the page, then a switch away and back, then another rerun
        page.get_by_role("tab").nth(tab).click()
        page.wait_for_timeout(300)
        wait_for_script(page)
        _nav(page, "Live benchmark")
        _nav(page, "Acceptance vs data")
        page.get_by_text("Benchmark, setting, your training volume and run group").first.click()
        assert (_select_value(page, "Reference draft"), _select_value(page, "Benchmark")) == first
    page.get_by_role("tab").nth(1).click()
    page.wait_for_timeout(300)
    wait_for_script(page)
    assert (_select_value(page, "Reference draft"), _select_value(page, "Benchmark")) == first
    assert "Kimi-K2-Instruct" not in page.get_by_test_id("stMain").inner_text()
    page.close()


def test_live_benchmarks_runs_are_shown_picked_after_a_page_switch(
    browser, live_app: LiveApp, tmp_path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    """Walk BR 2: back on Live benchmark the Runs select was empty while the table compared the runs it kept; adding
    one run there then left that run alone, with no baseline."""
    page = _open(browser, live_app, tmp_path, monkeypatch, "bench")
    picked = _runs_picked(page)
    assert len(picked) == 2, picked
    for _ in range(2):  # reruns of the page (on and off again), as any click on it makes one
        page.get_by_text("Include example data").first.click()
        page.wait_for_timeout(300)
        wait_for_script(page)
    assert _runs_picked(page) == picked
    _nav(page, "Overview")
    _nav(page, "Live benchmark")
    assert _runs_picked(page) == picked
    page.close()


def test_a_kept_field_in_a_tab_shows_its_value_after_a_page_switch(
    browser, live_app: LiveApp, tmp_path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    """Walk BS 6: the learning curve's "Samples per logged step" read 0 after a switch to Overview and back, while the
    curve still used the 16 typed in: the field is drawn in a tab, a run after the page's first."""
    from tests.test_page_curves import _specforge_log

    log = _specforge_log(tmp_path / "train.log")
    page = _open(browser, live_app, tmp_path, monkeypatch, "scaling")
    wait_for_script(page)
    page.get_by_role("tab", name="Learning curve").click()
    wait_for_script(page)
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(log))
    page.wait_for_timeout(500)
    wait_for_script(page)
    field = page.get_by_role("spinbutton", name="Samples per logged step (global batch size)")
    field.fill("16")
    field.press("Enter")
    page.wait_for_timeout(500)
    wait_for_script(page)
    assert field.input_value() == "16"
    page.get_by_role("button", name="Keep this log with your draft").click()
    page.wait_for_timeout(500)
    wait_for_script(page)
    _nav(page, "Overview")
    _nav(page, "Acceptance vs data")
    page.get_by_role("tab", name="Learning curve").click()
    page.wait_for_timeout(300)
    wait_for_script(page)
    field = page.get_by_role("spinbutton", name="Samples per logged step (global batch size)")
    assert field.input_value() == "16"
    page.close()
