"""Exports clicked back to back all arrive (walk AG: Plan as CSV, MD, JSON and LaTeX clicked in a row put
"MediaFileStorageError: Deferred file ... not found" in the server log and the LaTeX never came: each click reran the
page, whose rerun dropped the other buttons' deferred files before the browser asked for them)."""

from __future__ import annotations

import pytest

from tests.fixtures import AQ
from tests.streamlit_server import LiveApp, wait_for_script

pytestmark = pytest.mark.browser


def test_four_exports_clicked_in_a_row_all_download(browser, live_app: LiveApp) -> None:
    page = browser.new_page(accept_downloads=True)
    page.goto(f"{live_app.url}/compare?m=registry:{AQ}")
    wait_for_script(page)
    page.get_by_test_id("stDataFrame").first.wait_for(state="visible", timeout=60_000)
    got: list[str] = []
    page.on("download", lambda d: got.append(d.suggested_filename))
    for name in ("Download CSV", "Download MD", "Download JSON", "Download LaTeX"):
        page.get_by_role("button", name=name).click(timeout=10_000)  # no wait between clicks, as the user did
    page.wait_for_timeout(100)
    for _ in range(100):
        if len(got) == 4:
            break
        page.wait_for_timeout(200)
    assert sorted(got) == sorted(f"draft-comparison.{e}" for e in ("csv", "md", "json", "tex")), got
    assert page.get_by_test_id("stException").count() == 0
    page.close()
