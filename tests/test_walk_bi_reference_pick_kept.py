"""The reference picked on Overview holds across a visit to another page (walk BI, minor).

Walk BI picked RedHat's Maverick speculator as Overview's reference, opened Compare drafts, came back, and Overview
answered against the suggested lmsys draft again: Streamlit drops a widget's value when a run of another page does
not draw it, and the suggestion was put back.
"""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
DRAFT = "registry:AQ-MedAI/Kimi-K2-Instruct-eagle3"


def test_overview_keeps_the_picked_reference() -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["draft"] = DRAFT
    at.run()
    assert not at.exception, at.exception
    box = at.selectbox(key="ov_ref")
    suggested = box.value
    other = next(o for o in box.options if o != suggested)
    box.set_value(other).run()
    assert not at.exception, at.exception
    assert at.selectbox(key="ov_ref").value == other
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    at.switch_page("pages/overview.py").run()
    assert not at.exception, at.exception
    assert at.selectbox(key="ov_ref").value == other, (suggested, other)
