"""Walks BO and BP: the app's menu offered no theme switch (``client.toolbarMode = "minimal"`` hides the menu), so a
visitor reached dark only through the browser's or the OS's colour scheme. Under "viewer" the menu keeps the theme
selector and hides the developer items (rerun, clear cache) from every visitor."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.streamlit_server import LiveApp, wait_for_script

pytestmark = pytest.mark.browser


def _luminance(rgb: str) -> float:
    r, g, b = (int(v) for v in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def test_the_menu_switches_to_dark_and_back(browser, live_app: LiveApp) -> None:
    context = browser.new_context(color_scheme="light")
    try:
        page = context.new_page()
        page.goto(live_app.url)
        wait_for_script(page)
        app = page.get_by_test_id("stApp")
        background = "el => getComputedStyle(el).backgroundColor"
        assert _luminance(app.evaluate(background)) > 200  # light: the browser's scheme
        page.get_by_test_id("stMainMenu").click()
        menu = page.get_by_test_id("stMainMenuList")
        expect(menu).to_be_visible()
        for developer in ("Rerun", "Clear cache", "Deploy"):
            assert menu.get_by_text(developer, exact=True).count() == 0, developer
        page.get_by_test_id("stMainMenuItem-theme-Dark").click()
        page.wait_for_function(
            "el => { const m = getComputedStyle(el).backgroundColor.match(/\\d+/g); return m && +m[0] < 80; }",
            arg=app.element_handle(),
            timeout=10_000,
        )
        assert _luminance(app.evaluate(background)) < 80
        light = page.get_by_test_id("stMainMenuItem-theme-Light")
        if not light.is_visible():  # the menu may stay open after a theme is picked
            page.get_by_test_id("stMainMenu").click()
        light.click()
        page.wait_for_function(
            "el => { const m = getComputedStyle(el).backgroundColor.match(/\\d+/g); return m && +m[0] > 200; }",
            arg=app.element_handle(),
            timeout=10_000,
        )
    finally:
        context.close()
