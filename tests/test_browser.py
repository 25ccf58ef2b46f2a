"""What only a browser shows: the real app in Debian's Chromium, driven by Playwright.

Paste a Hub URL (served by the local emulator), see the table, download the CSV and check it.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

import pytest

from tests.hub_emulator import HubEmulator
from tests.streamlit_server import CHROMIUM_ARGS, chromium_path, running_app, wait_for_script
from tests.test_comparison import AQ, aq_config, aq_tensors

pytestmark = pytest.mark.browser

playwright_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    path = chromium_path()
    if not path:
        pytest.skip("Debian's chromium is not installed (tests/run.sh installs it)")
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture()
def emulator() -> Iterator[HubEmulator]:
    emu = HubEmulator().start()
    try:
        yield emu
    finally:
        emu.stop()


def test_paste_url_see_table_download_csv(browser, emulator: HubEmulator, tmp_path) -> None:
    sha = emulator.add_model("acme/kimi-draft", aq_config(), tensors=aq_tensors())
    env = {"HF_ENDPOINT": emulator.url, "SPECDRAFT_HOME": str(tmp_path / "home"), "HF_HOME": str(tmp_path / "hf")}
    with running_app(env) as url:
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
