"""Compare drafts opens on your draft and the reference Overview picks for it, not on unrelated defaults.

The Llama-3.3-70B walk's draft (speculators format, verifier meta-llama/Llama-3.3-70B-Instruct) opened Compare on
the Kimi, Qwen and Llama-3.1-8B defaults, while Overview compared it with
lmsys/SGLang-EAGLE3-Llama-3.3-70B-Instruct-SpecForge.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from comparelib.analysis import overview
from comparelib.models import registry
from tests.fixtures import page_app

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "compare.py")
TARGET = "meta-llama/Llama-3.3-70B-Instruct"
LLAMA70_REF = "lmsys/SGLang-EAGLE3-Llama-3.3-70B-Instruct-SpecForge"


@pytest.fixture()
def walk_draft(tmp_path: Path) -> Path:
    """The walk's draft folder: a speculators Eagle3Speculator config naming its verifier (no weights needed)."""
    folder = tmp_path / "llama70b-eagle3-480k"
    folder.mkdir()
    layer = {
        "model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 8192,
        "intermediate_size": 28672, "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128,
        "num_hidden_layers": 1, "vocab_size": 128256, "rms_norm_eps": 1e-05, "max_position_embeddings": 131072,
        "rope_theta": 500000.0, "hidden_act": "silu", "tie_word_embeddings": False,
    }  # fmt: skip
    config = {
        "architectures": ["Eagle3Speculator"],
        "speculators_model_type": "eagle3",
        "speculators_version": "0.9.0",
        "draft_vocab_size": 32000,
        "target_hidden_size": None,
        "eagle_aux_hidden_state_layer_ids": [2, 40, 77],
        "transformer_layer_config": layer,
        "speculators_config": {
            "algorithm": "eagle3",
            "verifier": {"name_or_path": TARGET, "architectures": ["LlamaForCausalLM"]},
        },
        "torch_dtype": "bfloat16",
    }
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def _opened(at: AppTest) -> tuple[list[str], str]:
    return list(at.multiselect(key="compare_picks").value), at.text_area(key="compare_urls").value


def test_your_draft_opens_with_overviews_reference(walk_draft: Path) -> None:
    at = page_app(PAGE, timeout=120)
    at.query_params["draft"] = str(walk_draft)
    at.run()
    assert not at.exception, at.exception
    picks, urls = _opened(at)
    expected = overview.default_reference(overview.reference_choices(), walk_draft.name, TARGET).hub_id
    assert expected == LLAMA70_REF  # the one Overview shows for this draft
    assert picks == [LLAMA70_REF] and urls == str(walk_draft)
    assert not set(picks) & set(registry.DEFAULT_COMPARISON)  # no Kimi, Qwen or Llama-3.1-8B drafts
    drafts = [str(d) for d in at.dataframe[0].value["draft"]]
    assert any(LLAMA70_REF in d for d in drafts) and len(drafts) == 2


def test_the_example_and_a_link_keep_what_they_open_on(walk_draft: Path) -> None:
    at = page_app(PAGE, timeout=120).run()  # no draft set: the built-in example against the published defaults
    assert not at.exception
    picks, _ = _opened(at)
    assert picks == list(registry.DEFAULT_COMPARISON)
    linked = page_app(PAGE, timeout=120)
    linked.query_params["draft"] = str(walk_draft)
    linked.query_params["m"] = ["registry:yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"]
    linked.run()
    assert not linked.exception
    assert _opened(linked) == (["yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"], "")  # a link's drafts, as given
