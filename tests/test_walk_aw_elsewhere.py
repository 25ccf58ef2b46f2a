"""Walk AW 3: v1's headline read "(GSM8K 2.88 and MATH500 3.23 are higher too; on its other benchmarks there, MT-Bench
2.35 and GPQA 2.36 and FinanceQA 2.56 are at or below ours)" of our 2.67, leaving out LiveCodeBench 2.82, which the
reference publishes at that setting, above ours. Its other benchmarks are named on both sides of ours."""

from __future__ import annotations

import pytest

from comparelib.analysis import overview

REF = "lmsys/SGLang-EAGLE3-Qwen3-235B-A22B-Instruct-2507-SpecForge-Meituan"
CHAIN = "steps=3,topk=1,draft=4,bs=8,sglang"


@pytest.mark.parametrize(
    ("own", "said", "not_said"),
    [
        (
            2.67,
            "on its other benchmarks there, LiveCodeBench 2.82 is higher than ours, and MT-Bench 2.35 and GPQA 2.36 "
            "and FinanceQA 2.56 are at or below ours",
            "",
        ),
        (2.20, "on its other benchmarks there, MT-Bench 2.35 and GPQA 2.36", "at or below ours"),
        (2.90, "on its other benchmarks there, MT-Bench 2.35 and GPQA 2.36 and FinanceQA 2.56 and LiveCodeBench 2.82 "
               "are at or below ours", "higher than ours"),
    ],
)  # fmt: skip
def test_its_other_benchmarks_are_named_on_both_sides_of_ours(own: float, said: str, not_said: str) -> None:
    acc = overview.accept_facts(own, CHAIN, REF)
    assert ("livecodebench", 2.817) in acc.elsewhere, acc.elsewhere
    words = overview.accept_comparison(own, acc)
    assert said in words, words
    if not_said:
        assert not_said not in words, words
