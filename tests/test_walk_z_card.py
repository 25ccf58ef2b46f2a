"""A draft card naming a target whose own MTP layers the registry lists under the target's id is read as naming that
target (walk Z: base_model deepseek-ai/DeepSeek-V3 was taken for a published draft, and every page said the target
was not known)."""

from __future__ import annotations

import pytest

from comparelib.models.draft import base_model_from_card

CASES = [
    ("deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-V3"),  # a target (its native MTP is listed under its id)
    ("moonshotai/Kimi-K2-Instruct", "moonshotai/Kimi-K2-Instruct"),  # a target
    ("AQ-MedAI/Kimi-K2-Instruct-eagle3", None),  # a published draft: a draft fine-tuned from it names no target
    ("lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge", None),
]


@pytest.mark.parametrize(("base", "target"), CASES)
def test_the_cards_base_model_is_a_target_unless_it_is_a_published_draft(base: str, target: str | None) -> None:
    assert base_model_from_card(f"---\nbase_model: {base}\nlibrary_name: sglang\n---\n# draft\n") == target
