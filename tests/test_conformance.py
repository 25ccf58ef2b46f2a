"""Our counts against upstream code: every shipped target and registry draft built on the meta device.

The oracle is transformers 5.23.0 (requirements-dev.txt): each model is instantiated on ``meta`` (no
memory, no weights) and its parameters summed. Buffers that checkpoints store as weights (the router
``e_score_correction_bias`` of DeepSeek, GLM and MiniMax-M2) are added back, and the MTP module, which
transformers does not build, is compared through ``params.mtp``. Drafts are built where an installed package defines
the architecture; otherwise the case is skipped with the reason.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

import pytest

from comparelib.models import architectures, params, registry
from tests.fixtures import TINY_GEMMA3, TINY_GEMMA3_TEXT, TINY_LLAMA4, TINY_QWEN3_NEXT

transformers = pytest.importorskip("transformers", reason="transformers is a test requirement (requirements-dev.txt)")
torch = pytest.importorskip("torch")

# model_type our shipped configs use -> the transformers config class that builds it
_MODEL_TYPE_ALIASES = {"kimi_k2": "deepseek_v3"}
_NOT_CONFIG_KWARGS = {"model_type", "auto_map", "quantization_config", "architectures", "transformers_version"}
# stored in checkpoints as weights, registered by transformers as buffers
_STORED_BUFFERS = ("e_score_correction_bias",)

SPECULATORS_SKIP = (
    "speculators 0.9.0 pins transformers<=5.19.0 and datasets<=5.1.0, which conflict with the pinned "
    "transformers==5.23.0 (requirements-dev.txt) and datasets==5.2.0 (requirements.txt); installed with "
    "--no-deps it does not import (needs openai, loguru, hs-connectors, ...). Nothing is vendored."
)


def _text_config(config: Mapping[str, Any]) -> Mapping[str, Any]:
    inner = config.get("text_config")
    return inner if isinstance(inner, Mapping) and config.get("hidden_size") is None else config


@functools.cache
def _meta_counts(config_json: str) -> dict[str, int]:
    """Parameter counts of transformers' own model for this config, built on the meta device (cached)."""
    inner = _text_config(json.loads(config_json))
    model_type = str(inner.get("model_type"))
    model_type = _MODEL_TYPE_ALIASES.get(model_type, model_type)
    kwargs = {k: v for k, v in inner.items() if k not in _NOT_CONFIG_KWARGS}
    hf_config = transformers.AutoConfig.for_model(model_type, **kwargs)
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(hf_config)
    named = dict(model.named_parameters())
    stored_buffers = sum(b.numel() for n, b in model.named_buffers() if n.endswith(_STORED_BUFFERS))
    embedding = model.get_input_embeddings().weight.numel()
    head = model.get_output_embeddings()
    tied = head is not None and head.weight is model.get_input_embeddings().weight
    return {
        "total": sum(p.numel() for p in named.values()) + stored_buffers,
        "embedding": embedding,
        "lm_head": 0 if tied or head is None else head.weight.numel(),
        "layers": int(hf_config.num_hidden_layers),
    }


TARGETS = architectures.known_targets()

# Shipped targets whose model_type transformers 5.23.0 does not define: they load only through the publisher's
# remote code (trust_remote_code), which no test requirement installs. Their counts are held instead to the
# parameter totals the Hub lists for the released safetensors (tests/test_params.py GOLDEN), and to hand counts of
# tiny configs of the same classes (tests/test_architectures.py BAILING_COUNTS).
NO_TRANSFORMERS_CLASS = {
    "bailing_moe": (
        "transformers 5.23.0 has no bailing_moe (Ling / Ring) model: the release's modeling_bailing_moe_v2.py is "
        "remote code; its count is checked against the Hub's safetensors total (tests/test_params.py)"
    ),
}


def test_every_shipped_target_is_covered() -> None:
    assert len(TARGETS) >= 18


@functools.cache
def _meta_total(config_json: str) -> int:
    """Parameters of the class the config names (a multimodal one: vision tower, projector and language model)."""
    config = json.loads(config_json)
    kwargs = {k: v for k, v in config.items() if k not in _NOT_CONFIG_KWARGS}
    hf_config = transformers.AutoConfig.for_model(str(config["model_type"]), **kwargs)
    with torch.device("meta"):
        model = getattr(transformers, config["architectures"][0])(hf_config)
    return sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize("hub_id", TARGETS)
def test_target_counts_match_transformers_meta_build(hub_id: str) -> None:
    config = architectures.known_target(hub_id)
    assert config is not None
    if config.get("model_type") in NO_TRANSFORMERS_CLASS:
        assert not hasattr(transformers, config["architectures"][0])  # would transformers build it after all?
        pytest.skip(NO_TRANSFORMERS_CLASS[config["model_type"]])
    ours = params.count(architectures.parse_config(config, source=hub_id))
    upstream = _meta_counts(json.dumps(config, sort_keys=True))
    # transformers builds the main model only; the MTP module is reported apart (params.mtp), and so is a
    # multimodal target's vision tower (params.vision): the language model is compared here ...
    assert ours.total - ours.mtp - ours.vision == upstream["total"]
    assert ours.embedding == upstream["embedding"]
    assert ours.lm_head == upstream["lm_head"]
    assert architectures.parse_config(config).num_hidden_layers == upstream["layers"]
    if "vision_config" in config:  # ... and the whole stored checkpoint against the multimodal class
        assert ours.vision > 0
        assert ours.total - ours.mtp == _meta_total(json.dumps(config, sort_keys=True))


def test_deepseek_v3_mtp_is_what_transformers_leaves_out() -> None:
    config = architectures.known_target("deepseek-ai/DeepSeek-V3")
    assert config is not None
    ours = params.count(architectures.parse_config(config))
    assert ours.total - _meta_counts(json.dumps(config, sort_keys=True))["total"] == ours.mtp == 13_463_426_304


def _draft_reason(published: registry.PublishedDraft) -> str:
    spec = architectures.parse_config(
        published.config or {},
        source=published.hub_id,
        target={"hidden_size": published.target_hidden_size or 0, "vocab_size": published.target_vocab_size or 0}
        if published.target_hidden_size
        else None,
    )
    if spec.dialect == "speculators-eagle3":
        return SPECULATORS_SKIP
    what = {
        "specforge-eagle3": "an EAGLE-3 head (LlamaForCausalLMEagle3)",
        "eagle3-authors": "an EAGLE-3 head whose config says LlamaForCausalLM",
        "modelopt-eagle3": "a ModelOpt EAGLE-3 head",
        "eagle1": "an EAGLE-1/2 head whose config says LlamaForCausalLM",
        "medusa": "Medusa heads",
        "mtp": "a DeepSeek MTP (NextN) module",
    }.get(spec.dialect, spec.dialect)
    base = (
        f"{published.hub_id} is {what}: transformers 5.23.0 has no such model class (its LlamaForCausalLM "
        "would build a full decoder, not this head)"
    )
    if "eagle3" not in spec.dialect:
        return base + "; no package installable next to our pins defines it."
    return base + f", and speculators, which defines EAGLE-3 drafts, cannot be installed here: {SPECULATORS_SKIP}"


DRAFTS = [d for d in registry.load_registry() if d.config is not None]


@pytest.mark.parametrize("published", DRAFTS, ids=lambda d: d.hub_id)
def test_registry_draft_counts_match_upstream(published: registry.PublishedDraft) -> None:
    try:
        import speculators  # noqa: F401
    except ImportError:
        if "medusa_num_heads" in (published.config or {}) and not published.target_hidden_size:
            pytest.skip(f"{published.hub_id}: Medusa-1 config without sizes; no upstream class builds it")
        pytest.skip(_draft_reason(published))
    pytest.fail("speculators became importable: add the meta-build comparison for its Eagle3DraftModel here")


# Families the engines serve that no shipped target config covers: small configs of each class (the counting
# rule is what is checked, so the sizes need not be a real model's; no real config is shipped for them).
NEW_FAMILY_CONFIGS: dict[str, dict[str, Any]] = {
    "phi3": {
        "architectures": ["Phi3ForCausalLM"],
        "model_type": "phi3",
        "hidden_size": 256,
        "intermediate_size": 688,
        "num_hidden_layers": 3,
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
        "vocab_size": 1000,
        "max_position_embeddings": 4096,
        "tie_word_embeddings": False,
        "pad_token_id": 0,
    },
    "mixtral": {
        "architectures": ["MixtralForCausalLM"],
        "model_type": "mixtral",
        "hidden_size": 256,
        "intermediate_size": 512,
        "num_hidden_layers": 3,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "num_local_experts": 4,
        "num_experts_per_tok": 2,
        "vocab_size": 1000,
        "max_position_embeddings": 4096,
        "tie_word_embeddings": False,
    },
}


@pytest.mark.parametrize("family", sorted(NEW_FAMILY_CONFIGS))
def test_new_family_counts_match_transformers_meta_build(family: str) -> None:
    config = NEW_FAMILY_CONFIGS[family]
    spec = architectures.parse_config(config, source=family)
    assert spec.dialect == family
    ours = params.count(spec)
    upstream = _meta_counts(json.dumps(config, sort_keys=True))
    assert (ours.total, ours.embedding, ours.lm_head) == (
        upstream["total"],
        upstream["embedding"],
        upstream["lm_head"],
    )


# Variants of the GLM / MiniMax classes the shipped configs do not exercise: no q/k norm or qkv bias, two shared
# experts, no dense layer, tied embeddings; GLM-5 layers that reuse the previous layer's DSA top-k (no indexer)
# and an explicit mlp_layer_types. Small sizes: the counting rule is what is checked.
_TINY_GLM4 = {
    "architectures": ["Glm4MoeForCausalLM"],
    "model_type": "glm4_moe",
    "hidden_size": 64,
    "intermediate_size": 96,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "vocab_size": 500,
    "num_hidden_layers": 3,
    "n_routed_experts": 8,
    "num_experts_per_tok": 2,
    "moe_intermediate_size": 32,
    "num_nextn_predict_layers": 1,
}
_TINY_DSA = {
    "architectures": ["GlmMoeDsaForCausalLM"],
    "model_type": "glm_moe_dsa",
    "hidden_size": 64,
    "intermediate_size": 96,
    "num_attention_heads": 4,
    "num_key_value_heads": 4,
    "vocab_size": 500,
    "num_hidden_layers": 5,
    "q_lora_rank": 32,
    "kv_lora_rank": 16,
    "qk_nope_head_dim": 8,
    "qk_rope_head_dim": 8,
    "v_head_dim": 8,
    "n_routed_experts": 8,
    "num_experts_per_tok": 2,
    "moe_intermediate_size": 32,
    "index_n_heads": 4,
    "index_head_dim": 16,
}
VARIANT_CONFIGS: dict[str, dict[str, Any]] = {
    "glm4-moe: transformers defaults": _TINY_GLM4,
    "glm4-moe: q/k norm, bias, 2 shared, no dense, tied": {
        **_TINY_GLM4,
        "use_qk_norm": True,
        "attention_bias": True,
        "n_shared_experts": 2,
        "first_k_dense_replace": 0,
        "tie_word_embeddings": True,
    },
    "glm-moe-dsa: every 2nd layer from layer 1 indexed": {
        **_TINY_DSA,
        "index_topk_freq": 2,
        "index_skip_topk_offset": 1,
    },
    "glm-moe-dsa: pattern and mlp_layer_types": {
        **_TINY_DSA,
        "index_topk_pattern": "FSSFS",
        "mlp_layer_types": ["dense", "sparse", "dense", "sparse", "sparse"],
        "n_shared_experts": 2,
    },
    "minimax-m2": {
        "architectures": ["MiniMaxM2ForCausalLM"],
        "model_type": "minimax_m2",
        "hidden_size": 64,
        "intermediate_size": 32,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 24,
        "vocab_size": 500,
        "num_hidden_layers": 3,
        "num_local_experts": 8,
        "num_experts_per_tok": 2,
    },
}


@pytest.mark.parametrize("label", sorted(VARIANT_CONFIGS))
def test_glm_and_minimax_variants_match_transformers_meta_build(label: str) -> None:
    config = VARIANT_CONFIGS[label]
    spec = architectures.parse_config(config, source=label)
    assert spec.dialect == label.split(":")[0]
    ours = params.count(spec)
    upstream = _meta_counts(json.dumps(config, sort_keys=True))
    assert (ours.total - ours.mtp, ours.embedding, ours.lm_head) == (
        upstream["total"],
        upstream["embedding"],
        upstream["lm_head"],
    )


@pytest.mark.parametrize(
    ("hub_id", "module", "layer_class"),
    [
        ("zai-org/GLM-4.5", "glm4_moe", "Glm4MoeDecoderLayer"),
        ("zai-org/GLM-4.5-Air", "glm4_moe", "Glm4MoeDecoderLayer"),
        ("zai-org/GLM-5", "glm_moe_dsa", "GlmMoeDsaDecoderLayer"),
    ],
)
def test_glm_mtp_layer_is_a_transformers_decoder_layer_plus_nextn_parts(
    hub_id: str, module: str, layer_class: str
) -> None:
    """transformers skips the NextN layer on load; its decoder block is the class's own last (MoE, indexed) layer,
    and the rest is the NextN wrapper: embed_tokens, enorm, hnorm, eh_proj, shared_head norm and head."""
    import importlib

    config = architectures.known_target(hub_id)
    assert config is not None
    ours = params.count(architectures.parse_config(config)).mtp
    kwargs = {k: v for k, v in config.items() if k not in _NOT_CONFIG_KWARGS}
    hf_config = transformers.AutoConfig.for_model(str(config["model_type"]), **kwargs)
    cls = getattr(importlib.import_module(f"transformers.models.{module}.modeling_{module}"), layer_class)
    with torch.device("meta"):
        block = cls(hf_config, hf_config.num_hidden_layers - 1)
    block_params = sum(p.numel() for p in block.parameters()) + sum(
        b.numel() for n, b in block.named_buffers() if n.endswith(_STORED_BUFFERS)
    )
    h, v = int(config["hidden_size"]), int(config["vocab_size"])
    assert ours == block_params + 2 * v * h + 3 * h + 2 * h * h


# The hand-counted tiny configs of test_architectures.py, and variants that flip what the counters branch on.
TINY_TARGETS: dict[str, dict[str, Any]] = {
    "gemma3-text": TINY_GEMMA3_TEXT,
    "gemma3-text-untied": {**TINY_GEMMA3_TEXT, "tie_word_embeddings": False, "attention_bias": True},
    "gemma3-multimodal": TINY_GEMMA3,
    "gemma3-siglip-head": {
        **TINY_GEMMA3,
        "vision_config": {k: v for k, v in TINY_GEMMA3["vision_config"].items() if k != "vision_use_head"},
    },
    "gemma3-tie-flag-in-text-config-only": {
        **TINY_GEMMA3,
        "text_config": {**TINY_GEMMA3["text_config"], "tie_word_embeddings": False},
    },
    "llama4": TINY_LLAMA4,
    "llama4-tie-flag-in-text-config-only": {  # Llama-4 reads its text_config's flag, Gemma-3 the top-level one
        **TINY_LLAMA4,
        "text_config": {**TINY_LLAMA4["text_config"], "tie_word_embeddings": True},
    },
    "llama4-text-only": {**TINY_LLAMA4["text_config"], "architectures": ["Llama4ForCausalLM"]},
    "llama4-moe-list": {**TINY_LLAMA4, "text_config": {**TINY_LLAMA4["text_config"], "moe_layers": [0, 3]}},
    "qwen3-next": TINY_QWEN3_NEXT,
    "qwen3-next-dense-first": {**TINY_QWEN3_NEXT, "mlp_only_layers": [0], "full_attention_interval": 2},
    # absent vision_config: transformers' default towers (SigLIP with its pooling head; Llama-4's 34 layers)
    "gemma3-default-vision": {k: v for k, v in TINY_GEMMA3.items() if k != "vision_config"},
    "llama4-default-vision": {k: v for k, v in TINY_LLAMA4.items() if k != "vision_config"},
    "gemma3-bias-default-heads": {
        **TINY_GEMMA3,
        "text_config": {
            **{k: v for k, v in TINY_GEMMA3["text_config"].items() if k not in {"num_key_value_heads", "head_dim"}},
            "attention_bias": True,
        },
    },
    "llama4-bias-top2": {
        **TINY_LLAMA4,
        "text_config": {**TINY_LLAMA4["text_config"], "attention_bias": True, "num_experts_per_tok": 2},
    },
    "qwen3-next-layer-types-step2-bias": {
        **TINY_QWEN3_NEXT,
        "decoder_sparse_step": 2,
        "attention_bias": True,
        "layer_types": ["full_attention", "linear_attention", "full_attention", "linear_attention"],
    },
    "qwen3-next-dense": {**TINY_QWEN3_NEXT, "num_experts": 0},
}


@pytest.mark.parametrize("name", sorted(TINY_TARGETS))
def test_tiny_new_targets_match_transformers_meta_build(name: str) -> None:
    config = TINY_TARGETS[name]
    ours = params.count(architectures.parse_config(config, source=name))
    if name != "gemma3-tie-flag-in-text-config-only":  # text_config alone would tie otherwise than the class
        upstream = _meta_counts(json.dumps(config, sort_keys=True))
        assert (ours.total - ours.mtp - ours.vision, ours.embedding, ours.lm_head) == (
            upstream["total"],
            upstream["embedding"],
            upstream["lm_head"],
        )
    if "text_config" in config:  # a multimodal class, with or without a vision_config
        assert ours.vision > 0 and ours.total - ours.mtp == _meta_total(json.dumps(config, sort_keys=True))
