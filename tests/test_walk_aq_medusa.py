"""Walk AQ (minor): FasterDecoding/medusa-vicuna-7b-v1.3 pasted by Hub id gave only "Medusa config: missing required
fields hidden_size, vocab_size" on Overview and Compare, while its ``registry:`` form was counted. A Medusa-1 config
names only its base model (``base_model_name_or_path``): the head's sizes are that model's, read as a target is."""

from __future__ import annotations

import pytest

from comparelib.errors import ConfigError
from comparelib.models import comparison

MEDUSA1 = {"medusa_num_heads": 2, "medusa_num_layers": 1, "base_model_name_or_path": "lmsys/vicuna-7b-v1.3"}
VICUNA_7B = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "num_attention_heads": 32,
    "num_key_value_heads": 32,
    "num_hidden_layers": 32,
    "vocab_size": 32000,
    "max_position_embeddings": 2048,
    "rms_norm_eps": 1e-06,
    "tie_word_embeddings": False,
}
# 2 heads of a 4096 x 4096 linear with bias and a 32,000 x 4,096 lm_head each
HEADS = 2 * (4096 * 4096 + 4096 + 32000 * 4096)


def test_a_published_medusa_head_pasted_by_hub_id_is_counted(hub) -> None:  # type: ignore[no-untyped-def]
    hub.add_model("FasterDecoding/medusa-vicuna-7b-v1.3", MEDUSA1)
    entry = comparison.load_entry("FasterDecoding/medusa-vicuna-7b-v1.3", with_header=False, with_card=False)
    assert entry.count.total == HEADS, entry.count.total
    assert entry.target_label == "lmsys/vicuna-7b-v1.3"


def test_an_unpublished_medusa_head_takes_its_base_models_sizes(hub) -> None:  # type: ignore[no-untyped-def]
    hub.add_model("acme/vicuna-7b", VICUNA_7B)
    hub.add_model("acme/medusa-head", {**MEDUSA1, "base_model_name_or_path": "acme/vicuna-7b"})
    entry = comparison.load_entry("acme/medusa-head", with_header=False, with_card=False)
    assert entry.count.total == HEADS, entry.count.total
    assert entry.target_label == "acme/vicuna-7b"


def test_a_medusa_head_whose_base_model_cannot_be_read_says_so(hub) -> None:  # type: ignore[no-untyped-def]
    hub.add_model("acme/medusa-head", {**MEDUSA1, "base_model_name_or_path": "acme/missing-base"})
    with pytest.raises(ConfigError, match="acme/missing-base"):
        comparison.load_entry("acme/medusa-head", with_header=False, with_card=False)
