"""Walk BP 3: after draft switches in one session, Acceptance vs data set a Qwen3-235B draft against the built-in
example's reference, AQ-MedAI/Kimi-K2-Instruct-eagle3 (another target), with a Kimi-family prediction, while Overview
used the Qwen3-235B draft's own. A reference other than the suggestion now stands only as a pick made in the select
for this draft; any other value (kept from an earlier draft) gives way to the suggestion."""

from __future__ import annotations

from tests.fixtures import page_app

DRAFT = "registry:yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"
SUGGESTED = "lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge"
KIMI = "AQ-MedAI/Kimi-K2-Instruct-eagle3"


def test_a_value_no_pick_made_gives_way_to_the_suggestion() -> None:
    at = page_app("../pages/scaling.py", timeout=60)
    at.query_params["draft"] = DRAFT
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="sc_ref").value == SUGGESTED
    at.session_state["sc_ref"] = KIMI  # what a kept value of another draft put back, with no pick behind it
    at.run()
    assert at.selectbox(key="sc_ref").value == SUGGESTED
    assert not any(KIMI in m.value for m in at.markdown), "the Kimi-K2 reference is still read"


def test_a_pick_made_in_the_select_holds() -> None:
    at = page_app("../pages/scaling.py", timeout=60)
    at.query_params["draft"] = DRAFT
    at.run()
    at.selectbox(key="sc_ref").set_value(KIMI).run()
    assert at.selectbox(key="sc_ref").value == KIMI
    at.run()
    assert at.selectbox(key="sc_ref").value == KIMI
