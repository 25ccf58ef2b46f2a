"""parse_config: dialect detection, exact tensor lists (cross-checked on torch's meta device), errors."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import torch
from torch import nn

from comparelib.errors import ConfigError
from comparelib.models import architectures as A
from comparelib.models.architectures import ModelSpec, parse_config
from tests.checkpoints import TINY_EAGLE3, TINY_LLAMA, TINY_SPECULATORS
from tests.fixtures import (
    EAGLE1_VICUNA,
    KIMI_EAGLE3,
    MEDUSA_VICUNA,
    TINY_DEEPSEEK,
    TINY_GEMMA3,
    TINY_GEMMA3_TEXT,
    TINY_LLAMA4,
    TINY_NESTED,
    TINY_QWEN3_NEXT,
)

# yuhuili/EAGLE3-LLaMA3.1-Instruct-8B: the authors' format (LlamaForCausalLM, 1 layer, draft vocab)
EAGLE3_AUTHORS_8B: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 1,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "vocab_size": 128256,
    "draft_vocab_size": 32000,
    "max_position_embeddings": 2048,
    "tie_word_embeddings": False,
    "torch_dtype": "float16",
    "rms_norm_eps": 1e-05,
}

# ModelOpt export (eagle_config carries ModelOpt-only switches)
MODELOPT: dict[str, Any] = {
    **{k: v for k, v in TINY_EAGLE3.items() if k != "eagle_config"},
    "eagle_config": {
        "eagle_aux_hidden_state_layer_ids": [1, 3, 4],
        "use_aux_hidden_state": True,
        "use_input_layernorm_in_first_layer": True,
        "use_last_layernorm": True,
        "use_mtp_layernorm": False,
        "next_layer_regular": True,
    },
}


TINY_QWEN2 = {**TINY_LLAMA, "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "tie_word_embeddings": True}
TINY_DEEPSEEK_NO_QLORA = {
    **TINY_DEEPSEEK,
    "q_lora_rank": None,
    "num_nextn_predict_layers": 0,
    "topk_method": "greedy",
    "model_type": "deepseek_v2",
    "architectures": ["DeepseekV2ForCausalLM"],
}
TINY_QWEN3_MOE = {
    **TINY_LLAMA,
    "architectures": ["Qwen3MoeForCausalLM"],
    "model_type": "qwen3_moe",
    "num_experts": 8,
    "num_experts_per_tok": 2,
    "moe_intermediate_size": 32,
    "decoder_sparse_step": 2,
    "mlp_only_layers": [5],
}
TINY_QWEN3_SPECULATORS = copy.deepcopy(TINY_SPECULATORS)
TINY_QWEN3_SPECULATORS["transformer_layer_config"].update({"model_type": "qwen3", "num_hidden_layers": 2})
TINY_QWEN3_SPECULATORS.update({"fc_norm": True, "norm_before_fc": True})
TINY_EAGLE3_2LAYER = {**TINY_EAGLE3, "num_hidden_layers": 2, "target_hidden_size": 48}

# Tiny GLM-4.5-style, GLM-5 (DSA) and MiniMax-M2 targets, small enough to count by hand (HAND_COUNTS below).
TINY_GLM4_MOE: dict[str, Any] = {
    "architectures": ["Glm4MoeForCausalLM"],
    "model_type": "glm4_moe",
    "hidden_size": 8,
    "intermediate_size": 16,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "head_dim": 4,
    "vocab_size": 10,
    "num_hidden_layers": 2,
    "n_routed_experts": 4,
    "num_experts_per_tok": 2,
    "moe_intermediate_size": 4,
    "n_shared_experts": 1,
    "first_k_dense_replace": 1,
    "num_nextn_predict_layers": 1,
    "attention_bias": True,
    "use_qk_norm": True,
    "partial_rotary_factor": 0.5,
}
TINY_GLM_DSA: dict[str, Any] = {
    "architectures": ["GlmMoeDsaForCausalLM"],
    "model_type": "glm_moe_dsa",
    "hidden_size": 8,
    "intermediate_size": 16,
    "num_attention_heads": 2,
    "num_key_value_heads": 2,
    "vocab_size": 10,
    "num_hidden_layers": 3,
    "q_lora_rank": 4,
    "kv_lora_rank": 4,
    "qk_nope_head_dim": 2,
    "qk_rope_head_dim": 2,
    "v_head_dim": 2,
    "n_routed_experts": 4,
    "num_experts_per_tok": 2,
    "moe_intermediate_size": 4,
    "n_shared_experts": 1,
    "first_k_dense_replace": 1,
    "index_n_heads": 2,
    "index_head_dim": 4,
    "index_topk_pattern": "FSF",
}
TINY_MINIMAX_M2: dict[str, Any] = {
    "architectures": ["MiniMaxM2ForCausalLM"],
    "model_type": "minimax_m2",
    "hidden_size": 8,
    "intermediate_size": 4,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "head_dim": 4,
    "vocab_size": 10,
    "num_hidden_layers": 2,
    "num_local_experts": 4,
    "num_experts_per_tok": 1,
    "use_mtp": True,
    "num_mtp_modules": 3,
}
# Tiny Ling 2.0 (BailingMoeV2ForCausalLM; the release's model_type is "bailing_moe") and Ling-lite (v1,
# BailingMoeForCausalLM) targets, counted by hand in BAILING_COUNTS below.
TINY_BAILING_V2: dict[str, Any] = {
    "architectures": ["BailingMoeV2ForCausalLM"],
    "model_type": "bailing_moe",
    "hidden_size": 8,
    "intermediate_size": 16,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "head_dim": 4,
    "vocab_size": 10,
    "num_hidden_layers": 2,
    "num_experts": 4,
    "num_experts_per_tok": 2,
    "moe_intermediate_size": 4,
    "num_shared_experts": 1,
    "first_k_dense_replace": 1,
    "use_qk_norm": True,
    "use_qkv_bias": False,
    "use_bias": False,
    "moe_router_enable_expert_bias": True,
    "num_nextn_predict_layers": 1,
    "partial_rotary_factor": 0.5,
    "tie_word_embeddings": False,
}
TINY_BAILING_V1: dict[str, Any] = {
    "architectures": ["BailingMoeForCausalLM"],
    "model_type": "bailing_moe",
    "hidden_size": 8,
    "intermediate_size": 16,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "vocab_size": 10,
    "num_hidden_layers": 2,
    "num_experts": 4,
    "num_experts_per_tok": 2,
    "moe_intermediate_size": 4,
    "num_shared_experts": 2,
    "first_k_dense_replace": 0,
    "use_qkv_bias": False,
    "use_bias": False,
    "tie_word_embeddings": False,
}


def target(hub_id: str) -> dict[str, Any]:
    cfg = A.known_target(hub_id)
    assert cfg is not None, hub_id
    return dict(cfg)


# --------------------------------------------------------------------------------------------
# Dialect detection
# --------------------------------------------------------------------------------------------

DETECTION = [
    ("kimi eagle3 (SpecForge)", KIMI_EAGLE3, "specforge-eagle3", "draft"),
    ("EAGLE authors' format", EAGLE3_AUTHORS_8B, "eagle3-authors", "draft"),
    ("speculators", TINY_SPECULATORS, "speculators-eagle3", "draft"),
    ("ModelOpt", MODELOPT, "modelopt-eagle3", "draft"),
    ("EAGLE-1 head", EAGLE1_VICUNA, "eagle1", "draft"),
    ("sglang EAGLE-1 arch", {**EAGLE1_VICUNA, "architectures": ["LlamaForCausalLMEagle"]}, "eagle1", "draft"),
    ("Medusa", MEDUSA_VICUNA, "medusa", "draft"),
    ("NextN export", {**TINY_DEEPSEEK, "architectures": ["DeepseekV3ForCausalLMNextN"]}, "mtp", "draft"),
    ("Llama target", TINY_LLAMA, "llama", "target"),
    ("Qwen2 target", TINY_QWEN2, "qwen2", "target"),
    ("Qwen3-8B", "Qwen/Qwen3-8B", "qwen3", "target"),
    ("Qwen3-30B-A3B", "Qwen/Qwen3-30B-A3B", "qwen3-moe", "target"),
    ("DeepSeek-V3", TINY_DEEPSEEK, "deepseek-v3", "target"),
    ("Kimi-K2.5 nested text_config", "moonshotai/Kimi-K2.5", "deepseek-v3", "target"),
    ("gpt-oss", "openai/gpt-oss-20b", "gpt-oss", "target"),
    ("Gemma-3 1B (text only)", TINY_GEMMA3_TEXT, "gemma3", "target"),
    ("Gemma-3 multimodal", TINY_GEMMA3, "gemma3", "target"),
    ("Gemma-3 by model_type", {k: v for k, v in TINY_GEMMA3.items() if k != "architectures"}, "gemma3", "target"),
    ("Llama-4 multimodal", TINY_LLAMA4, "llama4", "target"),
    (
        "Llama-4 text-only class",
        {**TINY_LLAMA4["text_config"], "architectures": ["Llama4ForCausalLM"]},
        "llama4",
        "target",
    ),
    ("Qwen3-Next", TINY_QWEN3_NEXT, "qwen3-next", "target"),
    ("GLM-4.6", "zai-org/GLM-4.6", "glm4-moe", "target"),
    ("GLM-4.5-Air", "zai-org/GLM-4.5-Air", "glm4-moe", "target"),
    ("GLM-5", "zai-org/GLM-5", "glm-moe-dsa", "target"),
    ("MiniMax-M2", "MiniMaxAI/MiniMax-M2", "minimax-m2", "target"),
    ("Ling-flash-2.0", "inclusionAI/Ling-flash-2.0", "bailing-moe", "target"),
    ("Ling-lite (BailingMoe v1)", TINY_BAILING_V1, "bailing-moe", "target"),
    (
        "bailing_moe_v2 by model_type",
        {**{k: v for k, v in TINY_BAILING_V2.items() if k != "architectures"}, "model_type": "bailing_moe_v2"},
        "bailing-moe",
        "target",
    ),
    ("glm4_moe by model_type", {k: v for k, v in TINY_GLM4_MOE.items() if k != "architectures"}, "glm4-moe", "target"),
    (
        "glm_moe_dsa by model_type",
        {k: v for k, v in TINY_GLM_DSA.items() if k != "architectures"},
        "glm-moe-dsa",
        "target",
    ),
    (
        "minimax_m2 by model_type",
        {k: v for k, v in TINY_MINIMAX_M2.items() if k != "architectures"},
        "minimax-m2",
        "target",
    ),
    (
        "no architectures, model_type only",
        {k: v for k, v in TINY_LLAMA.items() if k != "architectures"},
        "llama",
        "target",
    ),
]


@pytest.mark.parametrize(("label", "config", "dialect", "role"), DETECTION, ids=[d[0] for d in DETECTION])
def test_dialect_detection(label: str, config: Any, dialect: str, role: str) -> None:
    cfg = target(config) if isinstance(config, str) else config
    assert A.detect_dialect(cfg) == dialect
    spec = parse_config(cfg, source=label)
    assert spec.dialect == dialect
    assert spec.role == role
    assert spec.source == label
    assert len({t.name for t in spec.tensors}) == len(spec.tensors), "tensor names must be unique"


def test_forced_dialect_reads_ambiguous_head_as_eagle3() -> None:
    spec = parse_config(EAGLE1_VICUNA, dialect="eagle3-authors")
    assert spec.dialect == "eagle3-authors"
    assert spec.draft_vocab_size == 32000  # absent -> full vocabulary
    assert "lm_head.weight" in {t.name for t in spec.tensors}


# --------------------------------------------------------------------------------------------
# The EAGLE-3 tensor list (research data_formats.md section 2)
# --------------------------------------------------------------------------------------------


def names(spec: ModelSpec) -> dict[str, Any]:
    return {t.name: t for t in spec.tensors}


def test_specforge_eagle3_tensor_list_and_flags() -> None:
    spec = parse_config(KIMI_EAGLE3)
    t = names(spec)
    assert list(t) == [
        "embed_tokens.weight",
        "fc.weight",
        "midlayer.hidden_norm.weight",
        "midlayer.input_layernorm.weight",
        "midlayer.self_attn.q_proj.weight",
        "midlayer.self_attn.k_proj.weight",
        "midlayer.self_attn.v_proj.weight",
        "midlayer.self_attn.o_proj.weight",
        "midlayer.post_attention_layernorm.weight",
        "midlayer.mlp.gate_proj.weight",
        "midlayer.mlp.up_proj.weight",
        "midlayer.mlp.down_proj.weight",
        "norm.weight",
        "lm_head.weight",
        "d2t",
        "t2d",
    ]
    assert t["fc.weight"].shape == (7168, 3 * 7168)
    assert t["midlayer.self_attn.q_proj.weight"].shape == (64 * 128, 2 * 7168)
    assert t["lm_head.weight"].shape == (32000, 7168)
    emb = t["embed_tokens.weight"]
    assert (emb.shape, emb.trainable, emb.shared_with_target, emb.stored) == ((163840, 7168), False, True, False)
    assert t["lm_head.weight"].trainable and t["lm_head.weight"].stored
    assert t["d2t"].is_buffer and t["d2t"].shape == (32000,) and t["d2t"].dtype == "I64"
    assert t["t2d"].is_buffer and t["t2d"].shape == (163840,) and t["t2d"].dtype == "BOOL"
    assert spec.aux_layer_ids == (2, 30, 58)
    assert spec.torch_dtype == "bfloat16"  # newer configs say "dtype"
    assert spec.rope_theta == 1_000_000.0


def test_negative_aux_ids_are_counted_not_refused() -> None:
    cfg = copy.deepcopy(KIMI_EAGLE3)
    cfg["eagle_config"] = {"eagle_aux_hidden_state_layer_ids": [-1, 30, 58]}
    spec = parse_config(cfg)
    assert spec.aux_layer_ids == (-1, 30, 58)
    assert [t.name for t in spec.tensors] == [t.name for t in parse_config(KIMI_EAGLE3).tensors]
    bad = copy.deepcopy(KIMI_EAGLE3)
    bad["eagle_config"] = {"eagle_aux_hidden_state_layer_ids": [1, "two", 3]}
    with pytest.raises(ConfigError, match="list of integers"):
        parse_config(bad)
    empty = copy.deepcopy(KIMI_EAGLE3)
    empty["eagle_config"] = {"eagle_aux_hidden_state_layer_ids": []}
    assert parse_config(empty).aux_layer_ids is None  # both engines treat [] like no ids


@pytest.mark.parametrize(
    ("eagle_config", "top", "fc_in", "input_norm", "fc_norms"),
    [
        # fc width = target hidden x number of ids in eagle_config (sglang/vllm llama_eagle3.py)
        ({"eagle_aux_hidden_state_layer_ids": [2, 16, 30, 58]}, {}, 4 * 7168, None, 0),
        ({"eagle_aux_hidden_state_layer_ids": [2, 58]}, {}, 2 * 7168, None, 0),
        ({}, {"num_aux_hidden_states": 5}, 5 * 7168, None, 0),
        # top-level ids do not size fc in either engine: only eagle_config's are counted (else 3)
        ({}, {"eagle_aux_hidden_state_layer_ids": [2, 16, 30, 58]}, 3 * 7168, None, 0),
        # norm_before_fc inside eagle_config wins over the top level
        (
            {"eagle_aux_hidden_state_layer_ids": [2, 30, 58], "norm_before_fc": True},
            {"norm_before_fc": False},
            3 * 7168,
            3 * 7168,
            0,
        ),
        (
            {"eagle_aux_hidden_state_layer_ids": [2, 30, 58], "norm_before_fc": False},
            {"norm_before_fc": True},
            3 * 7168,
            None,
            0,
        ),
        ({"eagle_aux_hidden_state_layer_ids": [2, 30], "norm_before_fc": True}, {}, 2 * 7168, 2 * 7168, 0),
        # SGLang's legacy use_aux_norm builds the per-state fc_norm
        ({"eagle_aux_hidden_state_layer_ids": [2, 30, 58]}, {"use_aux_norm": True}, 3 * 7168, None, 3),
        ({"eagle_aux_hidden_state_layer_ids": [2, 16, 30, 58]}, {"fc_norm": True}, 4 * 7168, None, 4),
    ],
)
def test_fc_width_and_norms_as_the_engines_read_them(
    eagle_config: dict[str, Any], top: dict[str, Any], fc_in: int, input_norm: int | None, fc_norms: int
) -> None:
    cfg = copy.deepcopy(KIMI_EAGLE3)
    cfg.pop("eagle_config", None)
    cfg.update(top)
    cfg["eagle_config"] = eagle_config
    t = names(parse_config(cfg))
    assert t["fc.weight"].shape == (7168, fc_in)
    assert (t["input_norm.weight"].shape[0] if "input_norm.weight" in t else None) == input_norm
    assert sum(name.startswith("fc_norm.") for name in t) == fc_norms


# speculators format: vLLM 0.33.0 copies eagle_aux_hidden_state_layer_ids to the top level of the draft config
# (transformers_utils/configs/speculators/algos.py update_eagle3), and its model_executor/models/llama_eagle3.py
# LlamaModel.__init__ sizes fc from num_aux_hidden_states or eagle_config's ids only, else 3: so the fc the engine
# builds is 3 x target hidden whatever the id count (SGLang 0.5.23 does not read this format). The speculators 0.9.0
# trainer sizes fc from the id count (models/eagle3/core.py Eagle3 __init__): a checkpoint trained with other than
# three ids does not load in vLLM 0.33.0, and the header reconciliation shows the difference.
SPECULATORS_AUX_CASES = [
    ([2, 4, 5], 3 * 64),
    ([2, 5], 3 * 64),
    ([1, 2, 4, 5], 3 * 64),
    (None, 3 * 64),
]


@pytest.mark.parametrize(("ids", "fc_in"), SPECULATORS_AUX_CASES)
def test_speculators_fc_width_as_vllm_builds_it(ids: list[int] | None, fc_in: int) -> None:
    cfg = copy.deepcopy(TINY_SPECULATORS)
    cfg["eagle_aux_hidden_state_layer_ids"] = ids
    assert names(parse_config(cfg))["fc.weight"].shape == (64, fc_in)


def test_full_vocab_draft_has_no_vocab_maps() -> None:
    cfg = {k: v for k, v in KIMI_EAGLE3.items() if k != "draft_vocab_size"}
    t = names(parse_config(cfg))
    assert "d2t" not in t and "t2d" not in t
    assert t["lm_head.weight"].shape == (163840, 7168)


def test_speculators_names_and_frozen_parts() -> None:
    spec = parse_config(TINY_SPECULATORS)
    t = names(spec)
    assert "layers.0.hidden_norm.weight" in t and not any(n.startswith("midlayer") for n in t)
    assert t["embed_tokens.weight"].stored and not t["embed_tokens.weight"].trainable
    assert not t["lm_head.weight"].trainable
    assert spec.target_model == "tiny/target"
    assert spec.aux_layer_ids == (2, 4, 5)  # top-level ids


def test_speculators_qwen3_layer_config_options() -> None:
    t = names(parse_config(TINY_QWEN3_SPECULATORS))
    assert t["layers.0.self_attn.q_norm.weight"].shape == (16,)
    assert t["layers.1.self_attn.k_norm.weight"].shape == (16,)
    assert t["layers.1.self_attn.q_proj.weight"].shape == (64, 64)  # later layers take H, not 2H
    assert t["input_norm.weight"].shape == (3 * 64,)
    assert [n for n in t if n.startswith("fc_norm.")] == ["fc_norm.0.weight", "fc_norm.1.weight", "fc_norm.2.weight"]


def test_modelopt_export_keeps_d2t_only() -> None:
    t = names(parse_config(MODELOPT))
    assert "d2t" in t and "t2d" not in t
    assert not t["embed_tokens.weight"].stored


def test_multi_layer_eagle3_with_other_target_width() -> None:
    spec = parse_config(TINY_EAGLE3_2LAYER)
    t = names(spec)
    assert t["fc.weight"].shape == (64, 3 * 48)
    assert "midlayer.0.hidden_norm.weight" in t and "midlayer.1.hidden_norm.weight" not in t
    assert t["midlayer.1.self_attn.q_proj.weight"].shape == (64, 64)
    # target width differs: the draft cannot reuse the target's embedding, so it stores its own
    assert t["embed_tokens.weight"].stored and not t["embed_tokens.weight"].shared_with_target


def test_mtp_spec_from_target() -> None:
    spec = A.mtp_spec(TINY_DEEPSEEK)
    t = names(spec)
    assert spec.dialect == "mtp" and spec.role == "draft"
    assert t["model.layers.3.eh_proj.weight"].shape == (64, 128)
    assert t["model.layers.3.embed_tokens.weight"].shared_with_target
    assert t["model.layers.3.shared_head.head.weight"].component == "lm_head"
    assert "model.layers.3.mlp.experts.5.down_proj.weight" in t
    with pytest.raises(ConfigError, match="num_nextn_predict_layers"):
        A.mtp_spec(TINY_DEEPSEEK_NO_QLORA)


def test_deepseek_target_mtp_is_its_own_component() -> None:
    spec = parse_config(TINY_DEEPSEEK)
    mtp = [t for t in spec.tensors if t.name.startswith("model.layers.3.")]
    assert mtp and all(t.component == "mtp" for t in mtp)
    assert not any(t.component == "mtp" for t in spec.tensors if not t.name.startswith("model.layers.3."))


def test_medusa_sizes_from_target() -> None:
    cfg = {
        "medusa_num_heads": 3,
        "medusa_num_layers": 1,
        "base_model_name_or_path": "meta-llama/Llama-3.1-8B-Instruct",
    }
    with pytest.raises(ConfigError, match="hidden_size, vocab_size"):
        parse_config(cfg)
    spec = parse_config(cfg, target=target("meta-llama/Llama-3.1-8B-Instruct"))
    assert names(spec)["medusa_head.2.1.weight"].shape == (128256, 4096)
    assert spec.target_model == "meta-llama/Llama-3.1-8B-Instruct"


# --------------------------------------------------------------------------------------------
# Independent reference: the same modules built with torch.nn on the meta device
# --------------------------------------------------------------------------------------------


class Norm(nn.Module):
    def __init__(self, n: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n))


def lin(i: int, o: int, bias: bool = False) -> nn.Linear:
    return nn.Linear(i, o, bias=bias)


def g(cfg: dict[str, Any], key: str, default: Any = None) -> Any:
    v = cfg.get(key)
    return default if v is None else v


class Attn(nn.Module):
    def __init__(
        self, c: dict[str, Any], in_dim: int, qkv_bias: bool = False, o_bias: bool = False, qk_norm: bool = False
    ) -> None:
        super().__init__()
        h, nh = c["hidden_size"], c["num_attention_heads"]
        kv, hd = g(c, "num_key_value_heads", nh), g(c, "head_dim", h // nh)
        self.q_proj, self.k_proj = lin(in_dim, nh * hd, qkv_bias), lin(in_dim, kv * hd, qkv_bias)
        self.v_proj, self.o_proj = lin(in_dim, kv * hd, qkv_bias), lin(nh * hd, h, o_bias)
        if qk_norm:
            self.q_norm, self.k_norm = Norm(hd), Norm(hd)


class MLP(nn.Module):
    def __init__(self, h: int, i: int, bias: bool = False) -> None:
        super().__init__()
        self.gate_proj, self.up_proj, self.down_proj = lin(h, i, bias), lin(h, i, bias), lin(i, h, bias)


class Layer(nn.Module):
    def __init__(
        self,
        c: dict[str, Any],
        in_dim: int | None = None,
        *,
        first_eagle3: bool = False,
        input_norm: bool = True,
        **attn: Any,
    ) -> None:
        super().__init__()
        h = c["hidden_size"]
        if first_eagle3:
            self.hidden_norm = Norm(h)
        if input_norm:
            self.input_layernorm = Norm(h)
        self.self_attn = Attn(c, in_dim or h, **attn)
        self.post_attention_layernorm = Norm(h)
        self.mlp = MLP(h, c["intermediate_size"], bool(c.get("mlp_bias")))


def ref_causal_lm(c: dict[str, Any], **attn: Any) -> nn.Module:
    root, m = nn.Module(), nn.Module()
    m.embed_tokens = nn.Embedding(c["vocab_size"], c["hidden_size"])
    m.layers = nn.ModuleList(Layer(c, **attn) for _ in range(c["num_hidden_layers"]))
    m.norm = Norm(c["hidden_size"])
    root.model = m
    if not c.get("tie_word_embeddings"):
        root.lm_head = lin(c["hidden_size"], c["vocab_size"])
    return root


class Experts(nn.Module):
    def __init__(self, h: int, i: int, n: int) -> None:
        super().__init__()
        for e in range(n):
            self.add_module(str(e), MLP(h, i))


class Qwen3MoeBlock(nn.Module):
    def __init__(self, c: dict[str, Any]) -> None:
        super().__init__()
        self.gate = lin(c["hidden_size"], c["num_experts"])
        self.experts = Experts(c["hidden_size"], c["moe_intermediate_size"], c["num_experts"])


def ref_qwen3_moe(c: dict[str, Any]) -> nn.Module:
    root = ref_causal_lm(c, qk_norm=True)
    step, dense_only = c.get("decoder_sparse_step", 1), c.get("mlp_only_layers") or []
    for i, layer in enumerate(root.model.layers):
        if i not in dense_only and (i + 1) % step == 0:  # transformers' Qwen3MoeDecoderLayer rule
            layer.mlp = Qwen3MoeBlock(c)
    return root


class MLA(nn.Module):
    def __init__(self, c: dict[str, Any]) -> None:
        super().__init__()
        h, nh = c["hidden_size"], c["num_attention_heads"]
        qk = c["qk_nope_head_dim"] + c["qk_rope_head_dim"]
        if c.get("q_lora_rank"):
            self.q_a_proj = lin(h, c["q_lora_rank"])
            self.q_a_layernorm = Norm(c["q_lora_rank"])
            self.q_b_proj = lin(c["q_lora_rank"], nh * qk)
        else:
            self.q_proj = lin(h, nh * qk)
        self.kv_a_proj_with_mqa = lin(h, c["kv_lora_rank"] + c["qk_rope_head_dim"])
        self.kv_a_layernorm = Norm(c["kv_lora_rank"])
        self.kv_b_proj = lin(c["kv_lora_rank"], nh * (c["qk_nope_head_dim"] + c["v_head_dim"]))
        self.o_proj = lin(nh * c["v_head_dim"], h)


class Gate(nn.Module):
    def __init__(self, c: dict[str, Any]) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(c["n_routed_experts"], c["hidden_size"]))
        if c.get("topk_method") == "noaux_tc":
            self.e_score_correction_bias = nn.Parameter(torch.empty(c["n_routed_experts"]))


class DeepSeekMoE(nn.Module):
    def __init__(self, c: dict[str, Any]) -> None:
        super().__init__()
        self.gate = Gate(c)
        self.experts = Experts(c["hidden_size"], c["moe_intermediate_size"], c["n_routed_experts"])
        if c.get("n_shared_experts"):
            self.shared_experts = MLP(c["hidden_size"], c["moe_intermediate_size"] * c["n_shared_experts"])


class DeepSeekLayer(nn.Module):
    def __init__(self, c: dict[str, Any], idx: int) -> None:
        super().__init__()
        self.input_layernorm = Norm(c["hidden_size"])
        self.self_attn = MLA(c)
        self.post_attention_layernorm = Norm(c["hidden_size"])
        moe = idx >= c.get("first_k_dense_replace", 0) and idx % c.get("moe_layer_freq", 1) == 0
        self.mlp = DeepSeekMoE(c) if moe else MLP(c["hidden_size"], c["intermediate_size"])


class MTPLayer(DeepSeekLayer):
    def __init__(self, c: dict[str, Any], idx: int) -> None:
        super().__init__(c, idx)
        h = c["hidden_size"]
        self.embed_tokens = nn.Embedding(c["vocab_size"], h)
        self.enorm, self.hnorm = Norm(h), Norm(h)
        self.eh_proj = lin(2 * h, h)
        self.shared_head = nn.Module()
        self.shared_head.norm = Norm(h)
        self.shared_head.head = lin(h, c["vocab_size"])


def ref_deepseek(c: dict[str, Any]) -> nn.Module:
    root, m = nn.Module(), nn.Module()
    n = c["num_hidden_layers"]
    m.embed_tokens = nn.Embedding(c["vocab_size"], c["hidden_size"])
    layers: list[nn.Module] = [DeepSeekLayer(c, i) for i in range(n)]
    layers += [MTPLayer(c, n + k) for k in range(c.get("num_nextn_predict_layers") or 0)]
    m.layers = nn.ModuleList(layers)
    m.norm = Norm(c["hidden_size"])
    root.model = m
    root.lm_head = lin(c["hidden_size"], c["vocab_size"])
    return root


def layered(c: dict[str, Any], make_layer: Any, kind: Any, n_layers: int) -> dict[str, tuple[int, ...]]:
    """Shapes of a full model without building 60 identical MoE layers: each distinct layer kind is
    built once on the meta device and its parameter names are placed under every index of that kind."""
    top, m = nn.Module(), nn.Module()
    m.embed_tokens = nn.Embedding(c["vocab_size"], c["hidden_size"])
    m.norm = Norm(c["hidden_size"])
    top.model = m
    if not c.get("tie_word_embeddings"):
        top.lm_head = lin(c["hidden_size"], c["vocab_size"])
    out = shapes_of(top)
    cache: dict[Any, dict[str, tuple[int, ...]]] = {}
    for i in range(n_layers):
        k = kind(i)
        if k not in cache:
            cache[k] = shapes_of(make_layer(i))
        out.update({f"model.layers.{i}.{n}": s for n, s in cache[k].items()})
    return out


def ref_deepseek_layered(c: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    n = c["num_hidden_layers"]
    total = n + (c.get("num_nextn_predict_layers") or 0)

    def kind(i: int) -> str:
        if i >= n:
            return "mtp"
        return "moe" if i >= c["first_k_dense_replace"] and i % c.get("moe_layer_freq", 1) == 0 else "dense"

    return layered(c, lambda i: MTPLayer(c, i) if i >= n else DeepSeekLayer(c, i), kind, total)


def ref_qwen3_moe_layered(c: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    def make(i: int) -> nn.Module:
        layer = Layer(c, qk_norm=True)
        layer.mlp = Qwen3MoeBlock(c)
        return layer

    return layered(c, make, lambda i: "moe", c["num_hidden_layers"])


class GptOssExperts(nn.Module):
    def __init__(self, c: dict[str, Any]) -> None:
        super().__init__()
        e, h, i = c["num_local_experts"], c["hidden_size"], c["intermediate_size"]
        self.gate_up_proj = nn.Parameter(torch.empty(e, h, 2 * i))
        self.gate_up_proj_bias = nn.Parameter(torch.empty(e, 2 * i))
        self.down_proj = nn.Parameter(torch.empty(e, i, h))
        self.down_proj_bias = nn.Parameter(torch.empty(e, h))


def ref_gpt_oss(c: dict[str, Any]) -> nn.Module:
    root = ref_causal_lm(c, qkv_bias=True, o_bias=True)
    for layer in root.model.layers:
        layer.self_attn.sinks = nn.Parameter(torch.empty(c["num_attention_heads"]))
        layer.mlp = nn.Module()
        layer.mlp.router = lin(c["hidden_size"], c["num_local_experts"], True)
        layer.mlp.experts = GptOssExperts(c)
    return root


def ref_eagle3(
    c: dict[str, Any], *, layer_name: str = "midlayer", qk_norm: bool = False, t2d: bool = True
) -> nn.Module:
    """SpecForge's LlamaForCausalLMEagle3 (speculators: layer_name='layers')."""
    h, v = c["hidden_size"], c["vocab_size"]
    vd = g(c, "draft_vocab_size", v)
    ht = g(c, "target_hidden_size", h)
    n = g(c, "num_hidden_layers", 1)
    root = nn.Module()
    root.embed_tokens = nn.Embedding(v, h)
    root.fc = lin(3 * ht, h)
    if c.get("fc_norm"):
        root.fc_norm = nn.ModuleList(Norm(ht) for _ in range(3))
    if c.get("norm_before_fc"):
        root.input_norm = Norm(3 * ht)
    layers = [Layer(c, 2 * h, first_eagle3=True, qk_norm=qk_norm)]
    layers += [Layer(c, qk_norm=qk_norm) for _ in range(1, n)]
    if layer_name == "midlayer" and n == 1:
        root.midlayer = layers[0]
    else:
        root.add_module(layer_name, nn.ModuleList(layers))
    root.norm = Norm(h)
    root.lm_head = lin(h, vd)
    if vd < v:
        root.register_buffer("d2t", torch.empty(vd, dtype=torch.int64))
        if t2d:
            root.register_buffer("t2d", torch.empty(v, dtype=torch.bool))
    return root


def ref_eagle1(c: dict[str, Any]) -> nn.Module:
    root = nn.Module()
    root.embed_tokens = nn.Embedding(c["vocab_size"], c["hidden_size"])
    root.layers = nn.ModuleList(Layer(c, input_norm=i > 0) for i in range(c["num_hidden_layers"]))
    root.fc = lin(2 * c["hidden_size"], c["hidden_size"], True)
    return root


class ResBlock(nn.Module):
    def __init__(self, h: int) -> None:
        super().__init__()
        self.linear = lin(h, h, True)


def ref_medusa(c: dict[str, Any]) -> nn.Module:
    root = nn.Module()
    h, v, k = c["hidden_size"], c["vocab_size"], c.get("medusa_num_layers", 1)
    root.medusa_head = nn.ModuleList(
        nn.Sequential(*[ResBlock(h) for _ in range(k)], lin(h, v)) for _ in range(c["medusa_num_heads"])
    )
    return root


def speculators_cfg(c: dict[str, Any]) -> dict[str, Any]:
    return {
        **c["transformer_layer_config"],
        "draft_vocab_size": c["draft_vocab_size"],
        "fc_norm": c.get("fc_norm"),
        "norm_before_fc": c.get("norm_before_fc"),
    }


def shapes_of(module: nn.Module) -> dict[str, tuple[int, ...]]:
    out = {n: tuple(p.shape) for n, p in module.named_parameters()}
    out.update({n: tuple(b.shape) for n, b in module.named_buffers()})
    return out


META_CASES = [
    ("Llama-3.1-8B", lambda: target("meta-llama/Llama-3.1-8B-Instruct"), lambda c: ref_causal_lm(c)),
    ("Llama-3.3-70B", lambda: target("meta-llama/Llama-3.3-70B-Instruct"), lambda c: ref_causal_lm(c)),
    ("Qwen3-8B", lambda: target("Qwen/Qwen3-8B"), lambda c: ref_causal_lm(c, qk_norm=True)),
    ("tiny Qwen2 tied", lambda: TINY_QWEN2, lambda c: ref_causal_lm(c, qkv_bias=True)),
    ("tiny Qwen3-MoE", lambda: TINY_QWEN3_MOE, ref_qwen3_moe),
    ("Qwen3-30B-A3B", lambda: target("Qwen/Qwen3-30B-A3B"), ref_qwen3_moe_layered),
    ("gpt-oss-20b", lambda: target("openai/gpt-oss-20b"), ref_gpt_oss),
    ("tiny DeepSeek-V3 with MTP", lambda: TINY_DEEPSEEK, ref_deepseek),
    ("DeepSeek-V3", lambda: target("deepseek-ai/DeepSeek-V3"), ref_deepseek_layered),
    ("Kimi-K2-Instruct", lambda: target("moonshotai/Kimi-K2-Instruct"), ref_deepseek_layered),
    ("Kimi-K2.5 text model", lambda: target("moonshotai/Kimi-K2.5"), lambda c: ref_deepseek_layered(c["text_config"])),
    ("tiny DeepSeek-V2 no q_lora", lambda: TINY_DEEPSEEK_NO_QLORA, ref_deepseek),
    ("Kimi EAGLE-3 draft", lambda: KIMI_EAGLE3, lambda c: ref_eagle3(c)),
    ("EAGLE-3 authors 8B", lambda: EAGLE3_AUTHORS_8B, lambda c: ref_eagle3(c)),
    ("2-layer EAGLE-3", lambda: TINY_EAGLE3_2LAYER, lambda c: ref_eagle3(c)),
    ("ModelOpt EAGLE-3", lambda: MODELOPT, lambda c: ref_eagle3(c, t2d=False)),
    ("speculators llama", lambda: TINY_SPECULATORS, lambda c: ref_eagle3(speculators_cfg(c), layer_name="layers")),
    (
        "speculators qwen3 + fc_norm + input_norm",
        lambda: TINY_QWEN3_SPECULATORS,
        lambda c: ref_eagle3(speculators_cfg(c), layer_name="layers", qk_norm=True),
    ),
    ("EAGLE-1 vicuna-13B", lambda: EAGLE1_VICUNA, ref_eagle1),
    ("Medusa vicuna-7B", lambda: MEDUSA_VICUNA, ref_medusa),
]


@pytest.mark.parametrize(("label", "get_config", "builder"), META_CASES, ids=[c[0] for c in META_CASES])
def test_tensor_list_matches_torch_meta_build(label: str, get_config: Any, builder: Any) -> None:
    cfg = get_config()
    spec = parse_config(cfg, source=label)
    with torch.device("meta"):
        built = builder(cfg)
    reference = built if isinstance(built, dict) else shapes_of(built)
    ours = {t.name: t.shape for t in spec.tensors}
    assert sorted(set(ours) - set(reference)) == []
    assert sorted(set(reference) - set(ours)) == []
    assert ours == reference
    assert sum(t.numel for t in spec.tensors if not t.is_buffer) == sum(
        math_prod(s) for n, s in reference.items() if n not in ("d2t", "t2d")
    )


def test_mtp_draft_matches_reference_mtp_layer() -> None:
    cfg = target("deepseek-ai/DeepSeek-V3")
    spec = A.mtp_spec(cfg)
    with torch.device("meta"):
        layer = MTPLayer(cfg, 61)
    reference = {f"model.layers.61.{n}": tuple(p.shape) for n, p in layer.named_parameters()}
    assert {t.name: t.shape for t in spec.tensors} == reference


def math_prod(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------

ERRORS = [
    ("unknown architecture", {"architectures": ["MambaForCausalLM"], "hidden_size": 64}, "MambaForCausalLM"),
    ("no architecture at all", {"hidden_size": 64}, "architectures"),
    ("not a mapping", ["hidden_size"], "JSON object"),
    (
        "missing fields",
        {"architectures": ["LlamaForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2},
        "intermediate_size, num_attention_heads, vocab_size",
    ),
    ("negative hidden", {**TINY_LLAMA, "hidden_size": -64}, "hidden_size must be at least 1"),
    ("zero layers", {**TINY_LLAMA, "num_hidden_layers": 0}, "num_hidden_layers must be at least 1"),
    ("huge hidden", {**TINY_LLAMA, "hidden_size": 20_000_000}, "hidden_size = 20,000,000 is implausibly large"),
    ("huge vocab", {**TINY_LLAMA, "vocab_size": 200_000_000}, "vocab_size = 200,000,000 is implausibly large"),
    ("fractional size", {**TINY_LLAMA, "intermediate_size": 127.5}, "intermediate_size must be an integer"),
    ("string size", {**TINY_LLAMA, "num_attention_heads": "4"}, "num_attention_heads must be an integer"),
    ("bool size", {**TINY_LLAMA, "vocab_size": True}, "vocab_size must be an integer"),
    ("nan size", {**TINY_LLAMA, "hidden_size": float("nan")}, "hidden_size must be an integer"),
    ("draft vocab > vocab", {**TINY_EAGLE3, "draft_vocab_size": 1000}, "draft_vocab_size 1000 is larger"),
    (
        "bad aux ids",
        {**TINY_EAGLE3, "eagle_config": {"eagle_aux_hidden_state_layer_ids": ["a"]}},
        "eagle_aux_hidden_state_layer_ids",
    ),
    (
        "indivisible heads",
        {k: v for k, v in {**TINY_LLAMA, "num_attention_heads": 5}.items() if k != "head_dim"},
        "head_dim",
    ),
    (
        "speculators without layer config",
        {k: v for k, v in TINY_SPECULATORS.items() if k != "transformer_layer_config"},
        "transformer_layer_config",
    ),
    (
        "speculators nested negative",
        {
            **TINY_SPECULATORS,
            "transformer_layer_config": {**TINY_SPECULATORS["transformer_layer_config"], "hidden_size": -1},
        },
        "transformer_layer_config.hidden_size",
    ),
    ("speculators other algorithm", {**TINY_SPECULATORS, "speculators_model_type": "hydra"}, "hydra"),
    (
        "moe top-k above experts",
        {**target("Qwen/Qwen3-30B-A3B"), "num_experts_per_tok": 500},
        "num_experts_per_tok 500 exceeds",
    ),
    ("deepseek missing MLA field", {k: v for k, v in TINY_DEEPSEEK.items() if k != "kv_lora_rank"}, "kv_lora_rank"),
    ("MLA eagle draft", {**TINY_EAGLE3, "architectures": ["DeepseekV3ForCausalLMEagle3"]}, "MLA"),
    ("medusa no sizes", {"medusa_num_heads": 2}, "hidden_size, vocab_size"),
    (
        "rope_scaling wrong type is tolerated but layer config must be an object",
        {**TINY_SPECULATORS, "transformer_layer_config": [1, 2]},
        "must be an object",
    ),
    ("bad mlp_only_layers", {**target("Qwen/Qwen3-30B-A3B"), "mlp_only_layers": "none"}, "mlp_only_layers"),
    ("bad flag", {**TINY_LLAMA, "tie_word_embeddings": "maybe"}, "tie_word_embeddings must be true or false"),
    ("gemma3 vision not an object", {**TINY_GEMMA3, "vision_config": [1]}, "vision_config must be an object"),
    (
        "gemma3 image smaller than a patch",
        {**TINY_GEMMA3, "vision_config": {**TINY_GEMMA3["vision_config"], "image_size": 7}},
        "vision_config.image_size 7 is smaller than vision_config.patch_size 14",
    ),
    (
        "llama4 moe_layers not integers",
        {**TINY_LLAMA4, "text_config": {**TINY_LLAMA4["text_config"], "moe_layers": ["1"]}},
        "moe_layers must be a list of integers",
    ),
    (
        "llama4 top-k above experts",
        {**TINY_LLAMA4, "text_config": {**TINY_LLAMA4["text_config"], "num_experts_per_tok": 5}},
        "num_experts_per_tok 5 exceeds num_local_experts 4",
    ),
    (
        "qwen3-next layer_types of the wrong length",
        {**TINY_QWEN3_NEXT, "layer_types": ["full_attention"]},
        "layer_types must list 4 entries",
    ),
    (
        "qwen3-next expert list too long to build",
        {**TINY_QWEN3_NEXT, "num_hidden_layers": 1000, "num_experts": 100_000, "layer_types": None},
        "expert MLPs is implausibly large",
    ),
    (
        "qwen3-next unknown layer type",
        {**TINY_QWEN3_NEXT, "layer_types": ["mamba"] * 4},
        "'linear_attention' / 'full_attention'",
    ),
    ("glm4 top-k above experts", {**TINY_GLM4_MOE, "num_experts_per_tok": 5}, "num_experts_per_tok 5 exceeds"),
    (
        "glm4 no expert width",
        {k: v for k, v in TINY_GLM4_MOE.items() if k != "moe_intermediate_size"},
        "moe_intermediate",
    ),
    ("glm5 no indexer heads", {k: v for k, v in TINY_GLM_DSA.items() if k != "index_n_heads"}, "index_n_heads"),
    ("glm5 no q lora", {k: v for k, v in TINY_GLM_DSA.items() if k != "q_lora_rank"}, "q_lora_rank"),
    ("glm5 bad indexer pattern", {**TINY_GLM_DSA, "index_topk_pattern": "FXF"}, "index_topk_pattern"),
    ("glm5 short indexer_types", {**TINY_GLM_DSA, "indexer_types": ["full"]}, "indexer_types lists 1 layers"),
    ("glm5 bad mlp_layer_types", {**TINY_GLM_DSA, "mlp_layer_types": ["dense", "moe", "sparse"]}, "mlp_layer_types"),
    (
        "minimax no experts",
        {k: v for k, v in TINY_MINIMAX_M2.items() if k != "num_local_experts"},
        "num_local_experts",
    ),
    ("bailing top-k above experts", {**TINY_BAILING_V2, "num_experts_per_tok": 5}, "num_experts_per_tok 5 exceeds"),
    ("bailing v1 no expert width", {k: v for k, v in TINY_BAILING_V1.items() if k != "moe_intermediate_size"}, "moe"),
    (
        "bailing v1 no dense width",
        {**{k: v for k, v in TINY_BAILING_V1.items() if k != "intermediate_size"}, "first_k_dense_replace": 1},
        "intermediate_size",
    ),
    (
        # the config class defaults to model_type "bailing_moe" for both classes: without architectures, which one
        # (v1: no q/k norm, no expert bias, dense bias on; v2: the opposite) is not guessed
        "bailing_moe without architectures",
        {k: v for k, v in TINY_BAILING_V2.items() if k != "architectures"},
        "model_type 'bailing_moe' names both",
    ),
]


@pytest.mark.parametrize(("label", "config", "message"), ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_configs_raise_config_error(label: str, config: Any, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(config)
    assert message in str(info.value)


# A config whose every field is within its own cap but whose layers x experts would list ~10^8 tensors: refused as
# soon as the list passes TENSORS_MAX, not built for minutes (a shared dashboard parses what visitors paste).
HUGE_MOE = [
    ("qwen3-moe", {**TINY_QWEN3_MOE, "num_hidden_layers": 1000, "num_experts": 100_000, "mlp_only_layers": []}),
    ("deepseek-v3", {**TINY_DEEPSEEK, "num_hidden_layers": 1000, "n_routed_experts": 100_000}),
    (
        "mixtral",
        {
            **TINY_LLAMA,
            "architectures": ["MixtralForCausalLM"],
            "model_type": "mixtral",
            "num_hidden_layers": 1000,
            "num_local_experts": 100_000,
            "num_experts_per_tok": 2,
        },
    ),
    ("glm4-moe", {**TINY_GLM4_MOE, "num_hidden_layers": 1000, "n_routed_experts": 100_000}),
    (
        "glm-moe-dsa",
        {**TINY_GLM_DSA, "num_hidden_layers": 1000, "n_routed_experts": 100_000, "index_topk_pattern": None},
    ),
    ("minimax-m2", {**TINY_MINIMAX_M2, "num_hidden_layers": 1000, "num_local_experts": 100_000}),
    ("bailing-moe", {**TINY_BAILING_V2, "num_hidden_layers": 1000, "num_experts": 100_000}),
]


@pytest.mark.parametrize(("dialect", "config"), HUGE_MOE, ids=[c[0] for c in HUGE_MOE])
def test_layers_times_experts_past_any_checkpoint_is_refused(dialect: str, config: dict[str, Any]) -> None:
    config = {k: v for k, v in config.items() if v is not None}
    with pytest.raises(ConfigError, match="more than any real checkpoint"):
        parse_config(config)
    assert A.TENSORS_MAX >= 10 * 76_000  # ten times the largest shipped target's list


def test_unknown_dialect_name_is_config_error() -> None:
    with pytest.raises(ConfigError, match="unknown dialect"):
        parse_config(TINY_LLAMA, dialect="eagle9")


# (config, count field, exact value), counted by hand from the tiny configs above:
# GLM4: attention q 64+8, k 32+4, v 32+4, o 64 = 208; q/k norms 8; layer norms 16; dense MLP 3*16*8 = 384;
#   MoE: router 32 + correction bias 4 + 4 experts * 3*4*8 = 384 + shared 96 = 516. Layer 0 = 616, layer 1 = 748;
#   MTP = embed 80 + enorm/hnorm 16 + eh_proj 128 + one MoE layer 748 + shared_head norm 8 + head 80 = 1060;
#   total = embed 80 + 616 + 748 + norm 8 + lm_head 80 + 1060 = 2592; active drops half the main experts (192).
# GLM-5: MLA q_a 32 + q_a norm 4 + q_b 32 + kv_a 48 + kv_a norm 4 + kv_b 32 + o 32 = 184; indexer wq_b 32 + wk 32 +
#   k_norm 8 + weights_proj 16 = 88 (layers 0 and 2, pattern FSF); layers 672, 716, 804; total 2360; active drops
#   half of two layers' experts (384).
# MiniMax-M2: attention 192 + q_norm 8 + k_norm 4 + norms 16 + router 32 + bias 4 + experts 384 = 640 per layer;
#   total 80 + 1280 + 8 + 80 = 1448; one of four experts per token: active drops 2 * 288.
HAND_COUNTS = [
    ("glm4", TINY_GLM4_MOE, "total", 2592),
    ("glm4", TINY_GLM4_MOE, "mtp", 1060),
    ("glm4", TINY_GLM4_MOE, "embedding", 80),
    ("glm4", TINY_GLM4_MOE, "lm_head", 80),
    ("glm4", TINY_GLM4_MOE, "active", 2592 - 1060 - 192),
    ("glm4", TINY_GLM4_MOE, "trainable", 2592 - 8),
    ("glm4", TINY_GLM4_MOE, "frozen", 8),
    ("glm4", TINY_GLM4_MOE, "stored", 2592),
    ("glm4 no MTP", {**TINY_GLM4_MOE, "num_nextn_predict_layers": 0}, "total", 2592 - 1060),
    ("glm4 tied", {**TINY_GLM4_MOE, "tie_word_embeddings": True}, "lm_head", 0),
    ("glm4 no qk norm/bias", {**TINY_GLM4_MOE, "use_qk_norm": False, "attention_bias": False}, "total", 2592 - 3 * 24),
    ("glm4 two shared", {**TINY_GLM4_MOE, "n_shared_experts": 2}, "total", 2592 + 2 * 96),
    ("glm4 no dense", {**TINY_GLM4_MOE, "first_k_dense_replace": 0}, "total", 2592 + 516 - 384),
    ("glm5", TINY_GLM_DSA, "total", 2360),
    ("glm5", TINY_GLM_DSA, "active", 2360 - 384),
    ("glm5", TINY_GLM_DSA, "trainable", 2360 - 8),
    ("glm5 every layer indexed", {k: v for k, v in TINY_GLM_DSA.items() if k != "index_topk_pattern"}, "total", 2448),
    (
        "glm5 freq 2 offset 1",
        {**TINY_GLM_DSA, "index_topk_pattern": None, "index_topk_freq": 2, "index_skip_topk_offset": 1},
        "total",
        2360,
    ),
    ("glm5 all dense", {**TINY_GLM_DSA, "mlp_layer_types": ["dense"] * 3}, "total", 2360 + 2 * (384 - 516)),
    ("glm5 + MTP", {**TINY_GLM_DSA, "num_nextn_predict_layers": 1}, "mtp", 80 + 16 + 128 + 804 + 8 + 80),
    ("minimax", TINY_MINIMAX_M2, "total", 1448),
    ("minimax", TINY_MINIMAX_M2, "active", 1448 - 576),
    ("minimax", TINY_MINIMAX_M2, "mtp", 0),
    ("minimax", TINY_MINIMAX_M2, "trainable", 1440),
]

# Ling 2.0 (BailingMoeV2ForCausalLM), as inclusionAI/Ling-V2 models/modeling_bailing_moe_v2.py builds it and SGLang
# 0.5.23 / vLLM 0.34.0 models/bailing_moe.py load it (h = 8):
#   attention: fused query_key_value (2 + 2*1 heads) * 4 = 16 rows x 8 = 128, dense 8x8 = 64 -> 192;
#   query/key_layernorm 4 + 4 = 8; input/post norms 16; dense MLP (layer 0, first_k_dense_replace 1) 3*16*8 = 384;
#   MoE: gate 4x8 = 32 + expert_bias 4 + 4 experts x 3*4*8 = 384 + one shared expert 96 = 516.
#   Layer 0 = 600, layer 1 = 732; embedding 80 + final norm 8 + lm_head 80 -> main model 1500.
#   MTP layer (model.layers.2): input/post norms 16 + enorm/hnorm 16 + eh_proj 8x16 = 128 + attention 200 +
#   MoE 516 + final_layernorm 8 = 884 -> total 2384. Active: the main model minus half its routed experts (192).
# Ling-lite (BailingMoeForCausalLM, v1): no q/k norm, no expert bias, every layer MoE (first_k_dense_replace 0) with
#   two shared experts (width 2*4): layer = 192 + 16 + 32 + 384 + 3*8*8 = 816 -> 80 + 1632 + 8 + 80 = 1800.
BAILING_COUNTS = [
    ("ling2", TINY_BAILING_V2, "total", 2384),
    ("ling2", TINY_BAILING_V2, "mtp", 884),
    ("ling2", TINY_BAILING_V2, "embedding", 80),
    ("ling2", TINY_BAILING_V2, "lm_head", 80),
    ("ling2", TINY_BAILING_V2, "active", 2384 - 884 - 192),
    ("ling2", TINY_BAILING_V2, "trainable", 2384 - 8),  # expert_bias: set during training, not learned
    ("ling2", TINY_BAILING_V2, "frozen", 8),
    ("ling2", TINY_BAILING_V2, "stored", 2384),
    ("ling2 no MTP", {**TINY_BAILING_V2, "num_nextn_predict_layers": 0}, "total", 1500),
    ("ling2 no MTP key", {k: v for k, v in TINY_BAILING_V2.items() if k != "num_nextn_predict_layers"}, "mtp", 0),
    ("ling2 two MTP layers", {**TINY_BAILING_V2, "num_nextn_predict_layers": 2}, "mtp", 2 * 884),
    ("ling2 tied", {**TINY_BAILING_V2, "tie_word_embeddings": True}, "total", 2384 - 80),
    ("ling2 qkv and dense bias", {**TINY_BAILING_V2, "use_qkv_bias": True, "use_bias": True}, "total", 2384 + 3 * 24),
    ("ling2 no qk norm", {**TINY_BAILING_V2, "use_qk_norm": False}, "total", 2384 - 3 * 8),
    ("ling2 no expert bias", {**TINY_BAILING_V2, "moe_router_enable_expert_bias": False}, "frozen", 0),
    ("ling2 two shared", {**TINY_BAILING_V2, "num_shared_experts": 2}, "total", 2384 + 2 * 96),
    ("ling2 no shared", {**TINY_BAILING_V2, "num_shared_experts": 0}, "total", 2384 - 2 * 96),
    ("ling2 shared width", {**TINY_BAILING_V2, "moe_shared_expert_intermediate_size": 6}, "total", 2384 + 2 * 48),
    ("ling2 no dense", {**TINY_BAILING_V2, "first_k_dense_replace": 0}, "total", 2384 + 516 - 384),
    (
        # the config class's defaults (Ling-V2 configuration_bailing_moe_v2.py): q/k norm and expert bias on
        "ling2 defaults",
        {k: v for k, v in TINY_BAILING_V2.items() if k not in ("use_qk_norm", "moe_router_enable_expert_bias")},
        "total",
        2384,
    ),
    ("ling-lite", TINY_BAILING_V1, "total", 1800),
    ("ling-lite", TINY_BAILING_V1, "active", 1800 - 2 * 192),
    ("ling-lite", TINY_BAILING_V1, "frozen", 0),
    ("ling-lite", TINY_BAILING_V1, "mtp", 0),
    # v1's config class defaults use_bias to true: attention.dense gets a bias (MLPs never have one)
    ("ling-lite use_bias default", {k: v for k, v in TINY_BAILING_V1.items() if k != "use_bias"}, "total", 1816),
    ("ling-lite no shared", {**TINY_BAILING_V1, "num_shared_experts": 0}, "total", 1800 - 2 * 192),
]


@pytest.mark.parametrize(
    ("label", "config", "field", "value"), BAILING_COUNTS, ids=[f"{c[0]}-{c[2]}" for c in BAILING_COUNTS]
)
def test_bailing_moe_counts_by_hand(label: str, config: dict[str, Any], field: str, value: int) -> None:
    from comparelib.models import params

    assert getattr(params.count(parse_config(config)), field) == value


def test_bailing_moe_checkpoint_names_and_components() -> None:
    """The names the release's safetensors use (SGLang's loader maps gate_proj/up_proj onto gate_up_proj and
    q_norm/k_norm onto query/key_layernorm; the checkpoint keeps the modelling code's names)."""
    spec = parse_config(TINY_BAILING_V2)
    t = names(spec)
    assert t["model.word_embeddings.weight"].component == "embedding"
    assert t["model.layers.0.attention.query_key_value.weight"].shape == (16, 8)
    assert t["model.layers.0.attention.dense.weight"].shape == (8, 8)
    assert t["model.layers.0.attention.query_layernorm.weight"].component == "norm"
    assert t["model.layers.0.mlp.gate_proj.weight"].shape == (16, 8)
    assert "model.layers.0.mlp.gate.weight" not in t  # first_k_dense_replace 1
    assert t["model.layers.1.mlp.gate.weight"].component == "router"
    bias = t["model.layers.1.mlp.gate.expert_bias"]
    assert (bias.shape, bias.component, bias.trainable) == ((4,), "router", False)
    assert t["model.layers.1.mlp.experts.3.down_proj.weight"].shape == (8, 4)
    assert t["model.layers.1.mlp.experts.3.up_proj.weight"].active_fraction == 0.5
    assert t["model.layers.1.mlp.shared_experts.gate_proj.weight"].component == "mlp"
    assert t["model.layers.2.eh_proj.weight"].shape == (8, 16)
    mtp = [x for x in spec.tensors if x.name.startswith("model.layers.2.")]
    assert {x.name[len("model.layers.2.") :] for x in mtp} >= {
        "enorm.weight",
        "hnorm.weight",
        "final_layernorm.weight",
        "mlp.gate.expert_bias",
    }
    assert all(x.component == "mtp" for x in mtp)
    assert not any("embed_tokens" in n or "shared_head" in n for n in t)  # the MTP layer shares both
    assert [x.name for x in spec.tensors[-len(mtp) - 2 :][:2]] == ["model.norm.weight", "lm_head.weight"]
    assert spec.num_experts == 4 and spec.experts_per_token == 2 and spec.num_hidden_layers == 2
    assert any("MTP" in n for n in spec.notes)
    lite = names(parse_config(TINY_BAILING_V1))
    assert "model.layers.0.attention.query_layernorm.weight" not in lite
    assert "model.layers.0.mlp.gate.expert_bias" not in lite
    assert lite["model.layers.0.mlp.shared_experts.down_proj.weight"].shape == (8, 8)


@pytest.mark.parametrize(
    ("label", "config", "field", "value"), HAND_COUNTS, ids=[f"{c[0]}-{c[2]}" for c in HAND_COUNTS]
)
def test_new_family_counts_by_hand(label: str, config: dict[str, Any], field: str, value: int) -> None:
    from comparelib.models import params

    assert getattr(params.count(parse_config(config)), field) == value


def test_glm4_moe_checkpoint_names_and_components() -> None:
    t = names(parse_config(TINY_GLM4_MOE))
    assert t["model.layers.1.mlp.gate.e_score_correction_bias"].component == "router"
    assert not t["model.layers.1.mlp.gate.e_score_correction_bias"].trainable
    assert t["model.layers.1.mlp.experts.3.down_proj.weight"].shape == (8, 4)
    assert t["model.layers.1.mlp.shared_experts.gate_proj.weight"].component == "mlp"
    assert t["model.layers.0.self_attn.q_proj.bias"].shape == (8,)
    assert "model.layers.0.self_attn.o_proj.bias" not in t
    assert t["model.layers.0.self_attn.k_norm.weight"].component == "norm"
    assert "model.layers.0.mlp.gate.weight" not in t  # first_k_dense_replace
    assert t["model.layers.2.eh_proj.weight"].shape == (8, 16)
    mtp = [x for x in t.values() if x.name.startswith("model.layers.2.")]
    assert mtp and all(x.component == "mtp" for x in mtp)


def test_glm5_indexer_only_on_full_layers_and_minimax_names() -> None:
    t = names(parse_config(TINY_GLM_DSA))
    assert t["model.layers.0.self_attn.indexer.wq_b.weight"].shape == (8, 4)
    assert t["model.layers.2.self_attn.indexer.k_norm.bias"].shape == (4,)
    assert not any(n.startswith("model.layers.1.self_attn.indexer.") for n in t)
    assert t["model.layers.1.mlp.gate.e_score_correction_bias"].component == "router"
    m = parse_config(TINY_MINIMAX_M2)
    mt = names(m)
    assert mt["model.layers.0.self_attn.q_norm.weight"].shape == (8,)
    assert mt["model.layers.0.self_attn.k_norm.weight"].shape == (4,)
    assert mt["model.layers.1.block_sparse_moe.experts.3.w2.weight"].shape == (8, 4)
    assert not mt["model.layers.1.block_sparse_moe.e_score_correction_bias"].trainable
    assert any("3 MTP module" in n for n in m.notes)


# --------------------------------------------------------------------------------------------
# Gemma-3, Llama-4, Qwen3-Next: hand-counted tiny configs (the same configs are built by transformers on
# the meta device in test_conformance.py)
# --------------------------------------------------------------------------------------------


def _variant(base: dict[str, Any], where: str | None = None, **changes: Any) -> dict[str, Any]:
    cfg = copy.deepcopy(base)
    node = cfg[where] if where else cfg
    for key, value in changes.items():
        if value is None:
            node.pop(key, None)
        else:
            node[key] = value
    return cfg


# Derivations (h = hidden 64, vocab 300: embedding 19,200):
# Gemma-3 text layer: q 4096 + k 2048 + v 2048 + o 4096 + q/k norm 32 + four norms 256 + mlp 3*128*64 = 24,576
#   -> 37,152; 2 layers + embedding + final norm 64 = 93,568 (lm_head tied: not stored, not counted twice).
# SigLIP tower (32 wide, 2 layers, 28px / 14px patches): patch conv 18,816 + bias 32, positions 4*32 = 128,
#   layer (2 LayerNorms 128, q/k/v/out with bias 4,224, fc1 2,112, fc2 2,080) 8,544 x 2, post-LN 64 -> 36,128;
#   projector 32*64 + norm 32 = 2,080 -> vision 38,208. SigLIP's default pooling head adds 8,512.
# Llama-4 text (4 layers, MoE on 1 and 3): attention 12,288 + norms 128; dense FF 3*96*64 = 18,432; MoE FF:
#   experts gate_up 4*64*64 + down 4*32*64 = 24,576, router 256, shared expert 3*32*64 = 6,144
#   -> 2*(30,848 + 43,392) + embedding + norm + lm_head = 186,944; active drops 3/4 of the experts (36,864).
#   Vision: class 32 + positions 5*32 + patch 32*588 + pre/post LN 128 + 2 layers of 8,544 + adapter
#   48*64 + 48*48 + projector 64*48 = 44,672.
# Qwen3-Next (4 layers: 3 DeltaNet, 1 full, every MLP MoE): DeltaNet 4 + 4 + conv 80*4 + qkvz 128*64 + ba 8*64
#   + norm 12 + out 64*48 = 12,116; gated attention q 128*64 + k/v 2*2,048 + o 4,096 + norms 32 = 16,416;
#   MoE router 256 + experts 4*6,144 + shared 3*48*64 + gate 64 = 34,112 -> main 228,188; MTP: fc 64*128,
#   two pre-norms 128, one full layer 50,656, norm 64 = 59,040; active drops half of the main experts (49,152).
COUNT_CASES: list[tuple[str, dict[str, Any], dict[str, int | None]]] = [
    ("gemma3 1B-style text", TINY_GEMMA3_TEXT, {"total": 93_568, "lm_head": 0, "vision": 0, "active": None}),
    (
        "gemma3 untied",
        _variant(TINY_GEMMA3_TEXT, tie_word_embeddings=False),
        {"total": 93_568 + 19_200, "lm_head": 19_200},
    ),
    ("gemma3 multimodal", TINY_GEMMA3, {"total": 131_776, "embedding": 19_200, "lm_head": 0, "vision": 38_208}),
    (
        "gemma3 SigLIP default head",
        _variant(TINY_GEMMA3, "vision_config", vision_use_head=None),
        {"total": 131_776 + 8_512, "vision": 38_208 + 8_512},
    ),
    (
        "llama4 interleaved MoE + vision",
        TINY_LLAMA4,
        {"total": 231_616, "lm_head": 19_200, "vision": 44_672, "active": 150_080},
    ),
    (
        "llama4 every layer MoE (moe_layers wins over the step)",
        _variant(TINY_LLAMA4, "text_config", moe_layers=[0, 1, 2, 3]),
        {"total": 231_616 + 2 * (43_392 - 30_848), "active": 150_080 + 2 * (43_392 - 30_848) - 2 * 18_432},
    ),
    (
        "qwen3-next hybrid + MTP",
        TINY_QWEN3_NEXT,
        {"total": 287_228, "mtp": 59_040, "active": 179_036, "lm_head": 19_200},
    ),
    (
        "qwen3-next without MTP",
        _variant(TINY_QWEN3_NEXT, num_nextn_predict_layers=0),
        {"total": 228_188, "mtp": 0, "active": 179_036},
    ),
    (
        "qwen3-next dense first layer",
        _variant(TINY_QWEN3_NEXT, mlp_only_layers=[0]),
        {"total": 287_228 - 34_112 + 3 * 128 * 64, "active": 179_036 - 34_112 + 3 * 128 * 64 + 12_288},
    ),
]


@pytest.mark.parametrize(("label", "config", "expected"), COUNT_CASES, ids=[c[0] for c in COUNT_CASES])
def test_new_target_counts_by_hand(label: str, config: dict[str, Any], expected: dict[str, int | None]) -> None:
    from comparelib.models import params

    counted = params.count(parse_config(config, source=label))
    assert {k: getattr(counted, k) for k in expected} == expected


def test_gemma3_tied_embedding_is_counted_once_and_the_scale_is_no_weight() -> None:
    spec = parse_config(TINY_GEMMA3)
    names = [t.name for t in spec.tensors]
    assert names.count("model.embed_tokens.weight") == 1 and "lm_head.weight" not in names
    assert not any("embed_scale" in n for n in names)
    assert spec.tie_word_embeddings and any("tied" in n for n in spec.notes)
    assert any("never the vision tower" in n for n in spec.notes)
    vision = {t.name.split(".")[0] for t in spec.tensors if t.component == "vision"}
    assert vision == {"vision_tower", "multi_modal_projector"}  # the released checkpoints' prefixes


def test_llama4_no_rope_layers_hold_no_weights() -> None:
    with_nope = _variant(TINY_LLAMA4, "text_config", no_rope_layers=[0, 0, 0, 0], use_qk_norm=True)
    assert [t.shape for t in parse_config(with_nope).tensors] == [t.shape for t in parse_config(TINY_LLAMA4).tensors]


def test_qwen3_next_layer_kinds_follow_the_interval() -> None:
    spec = parse_config(_variant(TINY_QWEN3_NEXT, full_attention_interval=2))
    full = sorted(
        {int(t.name.split(".")[2]) for t in spec.tensors if ".self_attn." in t.name and t.name.startswith("model.")}
    )
    assert full == [1, 3] and any("2 gated full-attention and 2 gated DeltaNet" in n for n in spec.notes)
    assert all(t.component == "mtp" for t in spec.tensors if t.name.startswith("mtp."))


# --------------------------------------------------------------------------------------------
# Shipped targets
# --------------------------------------------------------------------------------------------


def test_known_targets_listing_and_lookup() -> None:
    ids = A.known_targets()
    assert ids == sorted(
        [
            "meta-llama/Llama-3.1-8B-Instruct",
            "meta-llama/Llama-3.3-70B-Instruct",
            "moonshotai/Kimi-K2-Instruct",
            "moonshotai/Kimi-K2.5",
            "Qwen/Qwen3-8B",
            "Qwen/Qwen3-30B-A3B",
            "Qwen/Qwen3-30B-A3B-Instruct-2507",
            "openai/gpt-oss-20b",
            "deepseek-ai/DeepSeek-V3",
            "google/gemma-3-1b-it",
            "google/gemma-3-27b-it",
            "meta-llama/Llama-4-Scout-17B-16E-Instruct",
            "meta-llama/Llama-4-Maverick-17B-128E-Instruct",
            "Qwen/Qwen3-Next-80B-A3B-Instruct",
            "zai-org/GLM-4.5",
            "zai-org/GLM-4.5-Air",
            "zai-org/GLM-4.6",
            "zai-org/GLM-5",
            "MiniMaxAI/MiniMax-M2",
            "inclusionAI/Ling-flash-2.0",
        ]
    )
    assert A.known_target("qwen/qwen3-8b") == A.known_target("Qwen/Qwen3-8B")
    assert A.known_target("nobody/nothing") is None
    assert A.known_target("") is None


def test_kimi_k2_config_facts() -> None:
    cfg = target("moonshotai/Kimi-K2-Instruct")
    facts = {
        "num_hidden_layers": 61,
        "hidden_size": 7168,
        "vocab_size": 163840,
        "num_attention_heads": 64,
        "q_lora_rank": 1536,
        "kv_lora_rank": 512,
        "qk_nope_head_dim": 128,
        "qk_rope_head_dim": 64,
        "v_head_dim": 128,
        "intermediate_size": 18432,
        "moe_intermediate_size": 2048,
        "n_routed_experts": 384,
        "num_experts_per_tok": 8,
        "n_shared_experts": 1,
        "first_k_dense_replace": 1,
        "num_nextn_predict_layers": 0,
    }
    assert {k: cfg[k] for k in facts} == facts
    nested = target("moonshotai/Kimi-K2.5")["text_config"]
    assert {k: nested[k] for k in facts} == facts


def test_ling_flash_config_facts() -> None:
    """The shipped inclusionAI/Ling-flash-2.0 config: the sizes its model card and Hub listing give (model_type
    "bailing_moe" with BailingMoeV2ForCausalLM, as the Hub lists it), and no MTP layer (the chat release stores
    none: its card says MTP is for the base model; the Hub's safetensors total has no room for one)."""
    cfg = target("inclusionAI/Ling-flash-2.0")
    facts = {
        "architectures": ["BailingMoeV2ForCausalLM"],
        "model_type": "bailing_moe",
        "hidden_size": 4096,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 4,
        "head_dim": 128,
        "vocab_size": 157184,
        "intermediate_size": 9216,
        "moe_intermediate_size": 1024,
        "num_experts": 256,
        "num_experts_per_tok": 8,
        "num_shared_experts": 1,
        "first_k_dense_replace": 1,
        "n_group": 8,
        "topk_group": 4,
        "use_qk_norm": True,
        "use_qkv_bias": False,
        "use_bias": False,
        "tie_word_embeddings": False,
        "partial_rotary_factor": 0.5,
        "routed_scaling_factor": 2.5,
        "score_function": "sigmoid",
        "moe_router_enable_expert_bias": True,
    }
    assert {k: cfg[k] for k in facts} == facts
    assert cfg.get("num_nextn_predict_layers", 0) == 0


def test_parse_config_is_pure_and_keeps_raw_config() -> None:
    cfg = copy.deepcopy(KIMI_EAGLE3)
    spec = parse_config(cfg)
    assert cfg == KIMI_EAGLE3  # input untouched
    assert spec.raw_config == KIMI_EAGLE3


# --------------------------------------------------------------------------------------------
# Robustness: every single-field corruption of a valid config is either read or a ConfigError
# --------------------------------------------------------------------------------------------

TINY_GPT_OSS = {
    "architectures": ["GptOssForCausalLM"],
    "hidden_size": 64,
    "intermediate_size": 64,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "num_hidden_layers": 2,
    "vocab_size": 256,
    "num_local_experts": 4,
    "num_experts_per_tok": 2,
}
CORRUPTIBLE = [
    ("specforge", TINY_EAGLE3),
    ("speculators", TINY_SPECULATORS),
    ("speculators-qwen3", TINY_QWEN3_SPECULATORS),
    ("modelopt", MODELOPT),
    ("deepseek", TINY_DEEPSEEK),
    ("qwen3-moe", TINY_QWEN3_MOE),
    ("gpt-oss", TINY_GPT_OSS),
    ("nested", TINY_NESTED),
    ("medusa", {"medusa_num_heads": 2, "hidden_size": 64, "vocab_size": 256}),
    ("eagle1", {**TINY_LLAMA, "num_hidden_layers": 1}),
    ("llama", TINY_LLAMA),
    ("gemma3", TINY_GEMMA3),
    ("llama4", TINY_LLAMA4),
    ("qwen3-next", TINY_QWEN3_NEXT),
    ("glm4-moe", TINY_GLM4_MOE),
    ("glm-moe-dsa", TINY_GLM_DSA),
    ("minimax-m2", TINY_MINIMAX_M2),
    ("bailing-moe-v2", TINY_BAILING_V2),
    ("bailing-moe-v1", TINY_BAILING_V1),
]
WEIRD_VALUES: list[Any] = [None, -1, 0, "x", [], {}, 1e20, True, 3.5, float("inf"), [1, "a"], {"a": 1}]


def _field_paths(d: dict[str, Any], prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = []
    for k, v in d.items():
        out.append(prefix + (k,))
        if isinstance(v, dict):
            out.extend(_field_paths(v, prefix + (k,)))
    return out


@pytest.mark.parametrize(("label", "base"), CORRUPTIBLE, ids=[c[0] for c in CORRUPTIBLE])
def test_corrupted_fields_never_crash(label: str, base: dict[str, Any]) -> None:
    rejected = 0
    for path in _field_paths(base):
        for value in [*WEIRD_VALUES, "<delete>"]:
            cfg = copy.deepcopy(base)
            node = cfg
            for key in path[:-1]:
                node = node[key]
            if value == "<delete>":
                del node[path[-1]]
            else:
                node[path[-1]] = value
            try:
                spec = parse_config(cfg)
            except ConfigError as exc:
                assert str(exc), path
                rejected += 1
            else:
                assert all(d > 0 for t in spec.tensors for d in t.shape), (path, value)
    assert rejected > 0
