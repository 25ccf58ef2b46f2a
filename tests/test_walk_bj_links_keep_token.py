"""Overview with a Hub token typed: its numbers are not markdown links (walks BH, BJ).

A markdown link opens a new tab: a new browser session without the token typed in this one. Walk BJ followed
Overview's "145,235,968" to Compare drafts, which then said the gated target "could not be read" and its wiring
headline "Aux layer ids [3, 20, 40] cannot be checked", where the Overview that linked there had read and linted it.
"""

from __future__ import annotations

import re

from tests.fixtures import page_app
from tests.hub_emulator import HubEmulator

DRAFT = "registry:AQ-MedAI/Kimi-K2-Instruct-eagle3"
LINK = re.compile(r"\]\(/(compare|audit|bench|scaling)")


def _markdown(at) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(m.value for m in at.markdown) + "\n".join(c.value for c in at.caption)


def test_numbers_are_links_without_a_token_and_text_with_one(hub: HubEmulator) -> None:
    at = page_app("../pages/overview.py", timeout=120)
    at.query_params["draft"] = DRAFT
    at.query_params["draft_samples"] = "37000"
    at.run()
    assert not at.exception, at.exception
    before = _markdown(at)
    assert LINK.search(before), before  # links in a session with no token to lose
    assert "Each number links to the page that produced it." in before, before
    at.sidebar.text_input(key="hub_token").set_value(hub.token).run()
    assert not at.exception, at.exception
    after = _markdown(at)
    assert not LINK.search(after), after
    assert "With a Hub token typed, numbers are not links" in after, after
    assert "Each number links" not in after, after
    assert hub.token not in after  # never shown
