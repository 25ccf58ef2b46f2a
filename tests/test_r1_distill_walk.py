"""A new user's walk: an EAGLE-3 draft (labx/r1d-llama8b-eagle3) for deepseek-ai/DeepSeek-R1-Distill-Llama-8B, a
Llama-3.1-8B-architecture target, with a vLLM num_steps sweep 1..5 at batch 1 and 4 and 3,003 audited samples.

What it found: the model family was the Hub organisation (deepseek-ai), whose only draft reports nothing at (3,1,4),
so the plan and Acceptance vs data aimed at a Kimi-K2 draft's GSM8K 3.271 where the registry has Llama-3.1-8B drafts
at (3,1,4) (lmsys 2.548, yuhuili 1.717)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from comparelib.analysis import plan, scaling
from comparelib.models import comparison, registry
from comparelib.models.draft import family_words, model_family

R1 = "deepseek-ai/DeepSeek-R1-Distill-Llama-8B"
OWN = "labx/r1d-llama8b-eagle3"
LMSYS_8B = "lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge"  # GSM8K 2.548 at (3,1,4), 1.4M samples
KEY = "steps=3,topk=1,draft=4,bs=8,sglang"

# ---------------------------------------------------------------- 1. one family rule: a distill is its base's

FAMILY_CASES = [
    # name, family key, as people write it
    (R1, "llama3", "Llama-3"),
    ("deepseek-ai/DeepSeek-R1-Distill-Llama-70B", "llama3", "Llama-3"),
    ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "qwen2", "Qwen2"),
    ("deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", "qwen2", "Qwen2"),
    ("deepseek-ai/DeepSeek-R1-0528-Qwen3-8B", "qwen3", "Qwen3"),
    ("acme/Distill-Qwen2.5-7B", "qwen2", "Qwen2"),
    ("meta-llama/Llama-3.1-8B-Instruct", "llama3", "Llama-3"),
    ("nvidia/Llama-3.1-Nemotron-70B-Instruct", "llama3", "Llama-3"),  # a fine-tune named base first
    ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama4", "Llama-4"),
    ("deepseek-ai/DeepSeek-V3", "deepseekv3", "DeepSeek-V3"),
    ("deepseek-ai/DeepSeek-R1", "deepseekr1", "DeepSeek-R1"),
    ("moonshotai/Kimi-K2-Instruct", "kimik2", "Kimi-K2"),
    ("Qwen/Qwen3-30B-A3B", "qwen3", "Qwen3"),
    ("openai/gpt-oss-20b", "gpt-oss", "gpt-oss"),
    ("inclusionAI/Ling-flash-2.0", None, ""),
]


@pytest.mark.parametrize(("name", "key", "words"), FAMILY_CASES)
def test_a_model_is_of_its_base_lines_family(name: str, key: str | None, words: str) -> None:
    assert model_family(name) == key
    assert registry.family_of(name) == (key or "")  # the registry's (and the fits') family is the same rule
    assert family_words(key) == words


def test_the_published_points_group_the_r1_distill_draft_with_llama3() -> None:
    pts = scaling.published_points()
    fam = dict(zip(pts["draft"], pts["family"], strict=False))
    assert fam["yuhuili/EAGLE3-DeepSeek-R1-Distill-LLaMA-8B"] == fam[LMSYS_8B] == "llama3"
    assert fam["AQ-MedAI/Kimi-K2-Instruct-eagle3"] == "kimik2"


# ---------------------------------------------------------------- 2. the target AL is a Llama-3.1-8B draft's


def test_acceptance_vs_data_aims_at_the_llama_3_1_8b_draft() -> None:
    found = plan.default_target(scaling.published_points(), benchmark="gsm8k", setting_key=KEY, target=R1, own=OWN)
    assert found is not None
    value, why = found
    assert value == pytest.approx(2.548), why
    assert why.startswith(
        f"{LMSYS_8B} at (3,1,4) on gsm8k (the Llama-3 family's draft for the target nearest yours"
    ), why
    assert "a draft for meta-llama/Llama-3.1-8B-Instruct, not for your target" in why, why


def test_the_plan_aims_at_the_same_figure() -> None:
    entry = comparison.load_entry("example:own-kimi-k2.5-draft", with_header=False, with_card=False)
    inputs = plan.inputs_for(replace(entry, target_label=R1), own_samples=3_003.0)
    assert inputs.family == "llama3"
    result = plan.build(inputs)
    assert result.target_al == pytest.approx(2.548)
    source = next(s.text for s in result.sources if s.id == result.target_al_source)
    assert source.startswith(f"registry: {LMSYS_8B} at (3,1,4) on gsm8k"), source
