"""DeepSeek-R1 distills are served as their base model's class.

Walk P: Compare gave yuhuili's R1-Distill-LLaMA-8B draft "no verdict: the engines' rules know no EAGLE-3 target class"
while the user's draft on the same target (its config read: LlamaForCausalLM) got SGLang and vLLM verdicts.
"""

from __future__ import annotations

import pytest

from comparelib.models import comparison, serving


@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("deepseek-ai/DeepSeek-R1-Distill-Llama-8B", "LlamaForCausalLM"),
        ("deepseek-ai/DeepSeek-R1-Distill-Llama-70B", "LlamaForCausalLM"),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "Qwen2ForCausalLM"),
        ("deepseek-ai/DeepSeek-R1", "DeepseekV3ForCausalLM"),
        ("meta-llama/Llama-3.1-8B-Instruct", "LlamaForCausalLM"),
    ],
)
def test_target_class_from_name(name: str, cls: str) -> None:
    assert serving.target_class_from_name(name) == cls


def test_the_published_r1_distill_draft_gets_a_verdict() -> None:
    e = comparison.load_entry(
        comparison.registry_source("yuhuili/EAGLE3-DeepSeek-R1-Distill-LLaMA-8B"), with_header=False, with_card=False
    )
    assert e.serving, comparison.no_serving_verdict(e)
    assert comparison.no_serving_verdict(e) is None
