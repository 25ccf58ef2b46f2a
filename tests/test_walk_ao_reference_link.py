"""Walk AO (minor): Overview's "Reference draft" pick was not in the page's link, so a shared link showed its
recipient the suggested reference, not the one the sender compared against (README: a link reproduces the view)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.fixtures import page_app

DRAFT = "registry:lmsys/SGLang-EAGLE3-Llama-3.3-70B-Instruct-SpecForge"
OTHER = "nebius/EAGLE3-Llama-3.3-70B-Instruct"


def _overview(**params: str) -> AppTest:
    at = page_app("../pages/overview.py", timeout=60)
    at.query_params["draft"] = DRAFT
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def test_a_picked_reference_goes_into_the_link_and_a_shared_link_opens_on_it() -> None:
    at = _overview()
    box = at.selectbox(key="ov_ref")
    suggested = box.value
    assert OTHER in box.options and suggested != OTHER, (suggested, box.options)
    assert "reference" not in at.query_params  # the suggestion needs no link entry
    box.set_value(OTHER).run()
    assert not at.exception, at.exception
    assert at.query_params["reference"] == OTHER  # the link carries the pick

    shared = _overview(reference=OTHER)  # a fresh session opens the sender's link
    assert shared.selectbox(key="ov_ref").value == OTHER
    assert any(OTHER in m.value for m in shared.markdown), "the answer is against the linked reference"
    shared.selectbox(key="ov_ref").set_value(suggested).run()  # back to the suggestion: the link drops it
    assert "reference" not in shared.query_params


def test_a_linked_reference_that_is_not_offered_is_ignored() -> None:
    at = _overview(reference="acme/not-a-published-draft")
    assert at.selectbox(key="ov_ref").value != "acme/not-a-published-draft"
    assert "reference" not in at.query_params
