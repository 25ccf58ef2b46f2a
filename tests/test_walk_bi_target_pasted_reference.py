"""A target model pasted as your draft: pages pick references among its own published drafts (walk BI, 3).

Walk BI pasted meta-llama/Llama-4-Maverick-17B-128E-Instruct as its draft. Every page warned that it is a target and
listed its three published drafts, but Compare drafts opened its "Published drafts" on a Llama-4-Scout draft (the
draft of the same hidden size and vocabulary, the rule for a draft whose target is unknown) and Acceptance vs data
read "To reach 3.112 (lmsys/SGLang-EAGLE3-Llama-4-Scout-17B-16E-Instruct-SpecForge's published GSM8K figure, a draft
for meta-llama/Llama-4-Scout-17B-16E-Instruct; your draft names no target) ...".
"""

from __future__ import annotations

import json

from comparelib.models import architectures
from tests.fixtures import page_app, page_text
from tests.hub_emulator import HubEmulator

MAVERICK = "meta-llama/Llama-4-Maverick-17B-128E-Instruct"
LMSYS = "lmsys/sglang-EAGLE3-Llama-4-Maverick-17B-128E-Instruct-v1"
LMSYS_CONFIG = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "model_type": "llama",
    "hidden_size": 5120,
    "intermediate_size": 32768,
    "num_attention_heads": 40,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "num_hidden_layers": 1,
    "vocab_size": 202048,
    "draft_vocab_size": 32000,
    "max_position_embeddings": 2048,
    "rms_norm_eps": 1e-05,
    "rope_theta": 500000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}


def _hub(hub: HubEmulator) -> None:
    hub.add_model(MAVERICK, json.loads(json.dumps(architectures.known_target(MAVERICK))))
    hub.add_model(LMSYS, LMSYS_CONFIG, card=f"---\nbase_model: {MAVERICK}\n---\nEAGLE-3 for Maverick.\n")


def test_compare_opens_on_a_draft_of_the_pasted_target(hub: HubEmulator) -> None:
    _hub(hub)
    at = page_app("../pages/compare.py", timeout=120)
    at.query_params["draft"] = MAVERICK
    at.run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert f"{MAVERICK} is a target model" in text, text
    shown = [s for s in at.text_area if s.value] + [s for s in at.text_input if s.value]
    values = " ".join(str(s.value) for s in shown) + " " + " ".join(str(m.value) for m in at.multiselect)
    assert LMSYS in values, values
    assert "Scout" not in values, values


def test_acceptance_vs_data_aims_at_a_draft_of_the_pasted_target(hub: HubEmulator) -> None:
    _hub(hub)
    at = page_app("../pages/scaling.py", timeout=120)
    at.query_params["draft"] = MAVERICK
    at.run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert f"{MAVERICK} is a target model" in text, text
    assert "Scout" not in text, text
    assert "your draft names no target" not in text, text
    assert f"Default 2.45: {LMSYS} at (3,1,4)" in text, text
    assert at.session_state["sc_ref"] == LMSYS
