"""Acceptance vs data opens on the benchmark its reference publishes on, and follows the reference.

Walk N: a Qwen3-Coder draft's page opened on GSM8K, where the coder reference publishes nothing (HumanEval only).
"""

from __future__ import annotations

import pytest

from comparelib.analysis import scaling
from tests.fixtures import page_app

CODER = "lmsys/SGLang-EAGLE3-Qwen3-Coder-30B-A3B-Instruct-SpecForge"  # publishes HumanEval only
LLAMA = "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"  # GSM8K among several


@pytest.mark.parametrize(
    ("reference", "bench"),
    [(CODER, "humaneval"), (LLAMA, "gsm8k"), ("acme/unknown", "gsm8k"), (None, "gsm8k")],
)
def test_the_default_benchmark_is_the_references(reference: str | None, bench: str) -> None:
    assert scaling.default_benchmark(scaling.published_points(), reference) == bench


def test_the_benchmark_follows_the_reference_until_picked() -> None:
    at = page_app("pages/scaling.py", timeout=90)
    at.query_params["draft"] = "registry:lmsys/SGLang-EAGLE3-Qwen3-Coder-480B-A35B-Instruct-SpecForge-EigenAI"
    at.run()
    assert not at.exception, at.exception
    at.selectbox(key="sc_ref").set_value(CODER).run()
    assert at.selectbox(key="sc_bench").value == "humaneval"
    assert "HumanEval" in " ".join(c.value for c in at.caption)
    at.selectbox(key="sc_bench").set_value("mtbench").run()  # a pick holds while the reference stays
    at.selectbox(key="sc_setting").run()
    assert at.selectbox(key="sc_bench").value == "mtbench"
    at.selectbox(key="sc_ref").set_value(LLAMA).run()
    # walk BV 2: a benchmark picked for this draft stays when the reference changes (it went back to the new
    # reference's default, and the answer was then for a benchmark nobody picked)
    assert at.selectbox(key="sc_bench").value == "mtbench"
