"""Walk BL 3-5: Overview for a draft of Qwen/Qwen3.5-397B-A17B, a target of an architecture the parameter counter
does not know (Qwen3_5MoeForConditionalGeneration), with the published AQ-MedAI draft pasted as yours.

3. The reference was the nearest draft of the family, lmsys's Qwen3-Coder-480B draft (hidden size 6,144, from its
   SpecForge template), and the headline read "The largest gap is size: your draft is 47% the size of the reference
   in its layers" against a draft of another architecture (your draft's hidden size is 4,096); the plan aimed at its
   HumanEval AL, unsaid. Now it is not like for like, no gap is named, and the plan's samples are said to be no goal.
4. Overview said the target's "checkpoint headers were not read (only its config was read here)" where Compare
   drafts reads them: its total is now read on Overview too.
5. Overview's plan said "the target's parameter count is unknown (Qwen/Qwen3.5-397B-A17B: its config could not be
   read)" beside a note of that very config's layers, hidden size and vocabulary.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from comparelib.analysis import overview
from tests.fixtures import cli_in_process, page_app, page_text
from tests.hub_emulator import HubEmulator

DRAFT = "AQ-MedAI/Qwen3.5-397B-A17B-eagle3"  # a published draft: the registry names its target
TARGET = "Qwen/Qwen3.5-397B-A17B"
CODER = "lmsys/SGLang-EAGLE3-Qwen3-Coder-480B-A35B-Instruct-SpecForge-EigenAI"  # the nearest of the family
ARCH = "Qwen3_5MoeForConditionalGeneration"
H, V = 4096, 248320
DRAFT_CONFIG: dict[str, Any] = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "model_type": "llama",
    "hidden_size": H,
    "intermediate_size": 16384,
    "num_attention_heads": 32,
    "num_key_value_heads": 4,
    "head_dim": 128,
    "num_hidden_layers": 1,
    "vocab_size": V,
    "draft_vocab_size": 32000,
    "target_hidden_size": H,
    "max_position_embeddings": 262144,
    "rms_norm_eps": 1e-6,
    "hidden_act": "silu",
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}
TARGET_CONFIG: dict[str, Any] = {
    "architectures": [ARCH],
    "model_type": "qwen3_5_moe",
    "text_config": {"model_type": "qwen3_5_moe_text", "hidden_size": H, "num_hidden_layers": 60, "vocab_size": V},
    "tie_word_embeddings": False,
}
TARGET_TENSORS: dict[str, tuple[tuple[int, ...], str]] = {
    "model.language_model.embed_tokens.weight": ((V, H), "BF16"),
    **{f"model.language_model.layers.{i}.mlp.experts.down_proj": ((512, H, 1024), "BF16") for i in range(3)},
    "lm_head.weight": ((V, H), "BF16"),
}
STORED = sum(math.prod(shape) for shape, _ in TARGET_TENSORS.values())


@pytest.fixture(autouse=True)
def _fresh_reads() -> None:
    import streamlit as st

    st.cache_data.clear()


@pytest.fixture
def qwen35(hub: HubEmulator) -> HubEmulator:
    hub.add_model(DRAFT, DRAFT_CONFIG)
    hub.add_model(TARGET, TARGET_CONFIG, tensors=TARGET_TENSORS, shards=2)
    return hub


def _asserts(text: str) -> None:
    # 3: no gap against a draft of another hidden size, and why
    assert "The largest gap" not in text, text
    assert (
        f"{CODER} is a draft for Qwen/Qwen3-Coder-480B-A35B-Instruct, not for your target {TARGET} (same family, "
        f"Qwen3, but of another architecture: hidden size 6,144 against your draft's {H:,}), so gaps are not like "
        "for like"
    ) in text, text
    assert "not a goal for your draft" in text, text  # the plan's samples aim at that draft's figure
    # 4: the target's total read from its checkpoint headers, as Compare drafts reads it
    assert "headers were not read" not in text, text
    assert f"its total, {STORED:,} parameters, is read from its checkpoint" in text, text
    # 5: its config was read: the plan says what is unknown and why, not that the config could not be read
    assert "its config could not be read" not in text, text
    assert f"the target's active parameters per token are unknown ({TARGET}: its config was read" in text, text
    assert ARCH in text, text


def test_cli_overview(qwen35: HubEmulator, capsys: pytest.CaptureFixture[str]) -> None:
    done = cli_in_process(capsys, "overview", DRAFT)
    assert done.returncode == 0, done.stderr
    _asserts(done.stdout)


def test_overview_page(qwen35: HubEmulator) -> None:
    at = page_app("../pages/overview.py", timeout=180)
    at.query_params["draft"] = DRAFT
    at.run()
    assert not at.exception, at.exception
    _asserts(" ".join(page_text(at).split()))


def test_cli_plan_says_why_generation_is_not_costed(qwen35: HubEmulator, capsys: pytest.CaptureFixture[str]) -> None:
    done = cli_in_process(capsys, "plan", DRAFT)
    assert done.returncode == 0, done.stderr
    assert f"its total, {STORED:,} parameters, is read from its checkpoint" in done.stdout, done.stdout
    assert "its config could not be read" not in done.stdout, done.stdout
    assert "the target's active parameters per token are unknown" in done.stdout, done.stdout


@pytest.mark.parametrize(
    ("target", "ref_target", "hidden", "said"),
    [
        # the family's nearest of your hidden size: like for like, as before
        (TARGET, "Qwen/Qwen3-Coder-480B-A35B-Instruct", (H, H), ""),
        # the family's nearest of another hidden size: not like for like (walk BL3)
        (TARGET, "Qwen/Qwen3-Coder-480B-A35B-Instruct", (H, 6144), "hidden size 6,144 against your draft's 4,096"),
        # a hidden size not known: the family rule alone, as before
        (TARGET, "Qwen/Qwen3-Coder-480B-A35B-Instruct", None, ""),
        # another family: not like for like whatever the hidden size
        ("zai-org/GLM-4.5-Air", "moonshotai/Kimi-K2-Instruct", (H, H), "so gaps are not like for like"),
        # a draft for your very target: like for like
        (TARGET, TARGET, (H, 6144), ""),
    ],
)
def test_unlike_reference(target: str, ref_target: str, hidden: tuple[int, int] | None, said: str) -> None:
    got = overview.unlike_reference(target, "ref/draft", ref_target, hidden=hidden)
    assert (said in got) if said else got == "", got
