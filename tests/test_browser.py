"""What only a browser shows: the real app in Debian's Chromium, driven by Playwright.

Paste a Hub URL (served by the local emulator), see the table, download the CSV and check it.
"""

from __future__ import annotations

import csv
import io
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from tests.fixtures import AQ, aq_config, aq_tensors
from tests.streamlit_server import LiveApp, wait_for_script

pytestmark = pytest.mark.browser

# Each page's link, as shared (a draft in the query), and the heading that page shows.
DEEP_LINKS = [
    ("compare", "Compare drafts"),  # first: the first session this server ever sees is a deep link
    ("", "Overview"),
    ("audit", "Dataset audit"),
    ("bench", "Live benchmark"),
    ("scaling", "Acceptance vs data"),
]


def test_deep_links_open_each_page_through_the_router(browser, live_app: LiveApp) -> None:
    """A shared link opened first thing on a fresh server shows that page inside the app's navigation.

    The router (app.py, st.navigation) must run even for the first visitor: the sidebar lists the app's
    own page titles and sections, and the draft from the link is in the sidebar.
    """
    live_app.hub.add_model("acme/kimi-draft", aq_config(), tensors=aq_tensors())
    draft = f"{live_app.hub.url}/acme/kimi-draft"
    for path, title in DEEP_LINKS:
        context = browser.new_context()  # a fresh browser: no cookies, no session
        try:
            page = context.new_page()
            page.goto(f"{live_app.url}/{path}?{urlencode({'draft': draft})}")
            wait_for_script(page)
            page.get_by_role("heading", name=title, exact=True).first.wait_for(timeout=60_000)
            nav = page.get_by_test_id("stSidebarNav")
            for _, other in DEEP_LINKS:
                assert nav.get_by_text(other, exact=True).count() == 1, (path, other)
            assert nav.get_by_text("Tools", exact=True).count() == 1
            source = page.locator("textarea[aria-label^='Draft:'], input[aria-label^='Draft:']").first
            # retried: a page may rerun once after its first run (URL sync), replacing the sidebar widgets
            expect(source).to_have_value(draft, timeout=30_000)
            assert f"/{path}?" in page.url and "draft=" in page.url, page.url
            assert page.get_by_test_id("stException").count() == 0
        finally:
            context.close()


def test_paste_url_see_table_download_csv(browser, live_app: LiveApp, tmp_path) -> None:
    emulator = live_app.hub
    sha = emulator.add_model("acme/kimi-draft", aq_config(), tensors=aq_tensors())
    url = live_app.url
    page = browser.new_page(accept_downloads=True)
    page.goto(f"{url}/compare?m=registry:{AQ}")
    wait_for_script(page)
    area = page.get_by_label("Your drafts", exact=False)
    area.fill(f"{emulator.url}/acme/kimi-draft")
    page.get_by_role("button", name="Compare").click()
    page.wait_for_url("**/compare?*acme*", timeout=60_000)
    wait_for_script(page)
    page.get_by_test_id("stDataFrame").first.wait_for(state="visible", timeout=60_000)
    assert page.get_by_test_id("stException").count() == 0

    with page.expect_download(timeout=60_000) as info:
        page.get_by_role("button", name="Download CSV").click()
    download = info.value
    assert download.suggested_filename == "draft-comparison.csv"
    rows = list(csv.DictReader(io.StringIO(open(download.path()).read())))
    assert [r["draft"] for r in rows] == [AQ, f"acme/kimi-draft@{sha[:7]}"]
    assert [int(r["excluding_embedding"]) for r in rows] == [1_190_948_864, 1_190_948_864]
    assert [int(r["total"]) for r in rows] == [2_365_353_984, 2_365_353_984]
    assert rows[1]["revision"] == sha[:12]
    page.screenshot(path=str(tmp_path / "compare.png"), full_page=True)
    page.close()
