"""Walk BV 2: on Acceptance vs data a benchmark the user picked (MATH500) went back to the reference's default
(GSM8K) when the reference changed, and after a visit to another page; the answer was then for a benchmark nobody
picked ("To reach 2.64 on GSM8K ..." instead of "... 3.402 on MATH500 ..."). A benchmark picked for this draft stays;
until one is picked, each reference opens on its own (RedHat's MT-Bench)."""

from __future__ import annotations

from tests.fixtures import QWEN3_8B_EAGLE3, page_app

DRAFT = "bluevale/qwen3-8b-eagle3"
REDHAT = "RedHatAI/Qwen3-8B-speculator.eagle3"  # publishes MT-Bench only
ANGEL = "AngelSlim/Qwen3-8B_eagle3"  # GSM8K, HumanEval, MT-Bench, Alpaca


def test_a_picked_benchmark_stays_when_the_reference_changes(hub) -> None:  # noqa: ANN001
    hub.add_model(DRAFT, QWEN3_8B_EAGLE3)
    at = page_app("../pages/scaling.py", timeout=120)
    at.query_params["draft"] = f"{hub.url}/{DRAFT}"
    at.query_params["draft_target"] = "Qwen/Qwen3-8B"  # set on Compare drafts, as a link carries it
    at.run()
    assert not at.exception, at.exception
    assert (at.selectbox(key="sc_ref").value, at.selectbox(key="sc_bench").value) == (REDHAT, "mtbench")
    at.selectbox(key="sc_ref").set_value(ANGEL).run()  # nothing picked yet: the new reference's own default
    assert at.selectbox(key="sc_bench").value == "gsm8k"
    at.selectbox(key="sc_bench").set_value("humaneval").run()
    assert at.selectbox(key="sc_bench").value == "humaneval"
    at.selectbox(key="sc_ref").set_value(REDHAT).run()
    assert not at.exception, at.exception
    assert at.selectbox(key="sc_bench").value == "humaneval", at.selectbox(key="sc_bench").value
    at.run()
    assert at.selectbox(key="sc_bench").value == "humaneval"
