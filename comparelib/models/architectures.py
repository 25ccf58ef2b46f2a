"""Model configs, in every dialect people publish, turned into one description.

A ``ModelSpec`` is the list of named tensors (checkpoint names, exact shapes) that a config
implies, plus the few fields that lint and comparison need. Counting from that list is exact;
it is also what a checkpoint header is reconciled against.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from comparelib.errors import ConfigError, UnsupportedArchitectureError

# Components, in the order tables and charts show them.
COMPONENTS: tuple[str, ...] = (
    "embedding",
    "fc",
    "attention",
    "mlp",
    "experts",
    "router",
    "norm",
    "mtp",
    "heads",
    "lm_head",
    "vision",
    "buffer",
)


@dataclass(frozen=True)
class TensorSpec:
    """One stored tensor as a checkpoint names it."""

    name: str
    shape: tuple[int, ...]
    component: str
    trainable: bool = True
    is_buffer: bool = False  # d2t / t2d index maps: stored, but not parameters
    shared_with_target: bool = False  # e.g. a draft's embedding copied from (and frozen like) the target's
    active_fraction: float = 1.0  # MoE routed experts: share of these weights used per token
    stored: bool = True  # False where the producer leaves it out of the checkpoint by design
    dtype: str | None = None  # safetensors dtype when fixed by design (d2t "I64", t2d "BOOL"); else the model's

    @property
    def numel(self) -> int:
        return math.prod(self.shape)


@dataclass(frozen=True)
class ModelSpec:
    """A normalised model description, whatever dialect its config was written in."""

    source: str
    architecture: str
    dialect: str
    role: Literal["draft", "target"]
    hidden_size: int
    vocab_size: int
    num_hidden_layers: int
    tensors: tuple[TensorSpec, ...]
    draft_vocab_size: int | None = None
    target_hidden_size: int | None = None
    aux_layer_ids: tuple[int, ...] | None = None
    max_position_embeddings: int | None = None
    rope_theta: float | None = None
    rope_scaling: Mapping[str, Any] | None = None
    tie_word_embeddings: bool = False
    torch_dtype: str | None = None
    raw_config: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    target_model: str | None = None  # verifier / base model named by the config, if any
    num_experts: int | None = None  # routed experts per MoE layer (targets and MTP drafts)
    experts_per_token: int | None = None


# --------------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------------

DIALECTS: tuple[str, ...] = (
    "specforge-eagle3",
    "eagle3-authors",
    "speculators-eagle3",
    "modelopt-eagle3",
    "eagle1",
    "medusa",
    "mtp",
    "llama",
    "qwen2",
    "qwen3",
    "qwen3-moe",
    "deepseek-v3",
    "gpt-oss",
    "phi3",
    "mixtral",
    "glm4-moe",
    "glm-moe-dsa",
    "minimax-m2",
    "gemma3",
    "llama4",
    "qwen3-next",
    "bailing-moe",
)

_DIM_MAX = 10_000_000
_VOCAB_MAX = 100_000_000
_LAYERS_MAX = 100_000
_EXPERTS_MAX = 1_000_000

_FIELD_MAX: dict[str, int] = {
    "vocab_size": _VOCAB_MAX,
    "draft_vocab_size": _VOCAB_MAX,
    "num_hidden_layers": _LAYERS_MAX,
    "num_nextn_predict_layers": _LAYERS_MAX,
    "first_k_dense_replace": _LAYERS_MAX,
    "moe_layer_freq": _LAYERS_MAX,
    "decoder_sparse_step": _LAYERS_MAX,
    "medusa_num_heads": 1_000,
    "medusa_num_layers": 1_000,
    "n_routed_experts": _EXPERTS_MAX,
    "num_experts": _EXPERTS_MAX,
    "num_local_experts": _EXPERTS_MAX,
    "num_experts_per_tok": _EXPERTS_MAX,
    "experts_per_token": _EXPERTS_MAX,
    "n_shared_experts": _EXPERTS_MAX,
    "num_shared_experts": _EXPERTS_MAX,
}

# model_type -> dialect for plain (target) models
_MODEL_TYPES: dict[str, str] = {
    "llama": "llama",
    "mistral": "llama",
    "qwen2": "qwen2",
    "qwen3": "qwen3",
    "qwen3_moe": "qwen3-moe",
    "deepseek_v3": "deepseek-v3",
    "deepseek_v2": "deepseek-v3",
    "kimi_k2": "deepseek-v3",
    "gpt_oss": "gpt-oss",
    "phi3": "phi3",
    "mixtral": "mixtral",
    "glm4_moe": "glm4-moe",
    "glm_moe_dsa": "glm-moe-dsa",
    "minimax_m2": "minimax-m2",
    "gemma3": "gemma3",
    "gemma3_text": "gemma3",
    "llama4": "llama4",
    "llama4_text": "llama4",
    "qwen3_next": "qwen3-next",
    "bailing_moe_v2": "bailing-moe",  # "bailing_moe" alone names v1 and v2 releases alike: see detect_dialect
}

_ARCHITECTURES: dict[str, str] = {
    "LlamaForCausalLM": "llama",
    "MistralForCausalLM": "llama",
    "Qwen2ForCausalLM": "qwen2",
    "Qwen3ForCausalLM": "qwen3",
    "Qwen3MoeForCausalLM": "qwen3-moe",
    "DeepseekV3ForCausalLM": "deepseek-v3",
    "DeepseekV2ForCausalLM": "deepseek-v3",
    "GptOssForCausalLM": "gpt-oss",
    "Phi3ForCausalLM": "phi3",
    "MixtralForCausalLM": "mixtral",
    "Glm4MoeForCausalLM": "glm4-moe",
    "GlmMoeDsaForCausalLM": "glm-moe-dsa",
    "MiniMaxM2ForCausalLM": "minimax-m2",
    "Gemma3ForCausalLM": "gemma3",
    "Gemma3ForConditionalGeneration": "gemma3",
    "Llama4ForCausalLM": "llama4",
    "Llama4ForConditionalGeneration": "llama4",
    "Qwen3NextForCausalLM": "qwen3-next",
    "BailingMoeForCausalLM": "bailing-moe",  # Ling-lite / Ling-plus (v1)
    "BailingMoeV2ForCausalLM": "bailing-moe",  # Ling / Ring 2.0 (Ling-mini, Ling-flash, Ling-1T)
}

_MODELOPT_KEYS = frozenset(
    {
        "use_input_layernorm_in_first_layer",
        "use_last_layernorm",
        "use_mtp_layernorm",
        "next_layer_regular",
        "parallel_draft_step",
        "parallel_draft_heads_num_layers",
    }
)


def _fail(arch: str, message: str) -> ConfigError:
    return ConfigError(f"{arch or 'model'} config: {message}")


class _Reader:
    """Typed, validated access to one config mapping; every failure names the field."""

    def __init__(self, data: Mapping[str, Any], arch: str, where: str = "") -> None:
        self.data = data
        self.arch = arch
        self.where = where  # "transformer_layer_config." for nested fields

    def has(self, name: str) -> bool:
        return self.data.get(name) is not None

    def need(self, *names: str, hint: str = "") -> None:
        missing = [self.where + n for n in names if self.data.get(n) is None]
        if missing:
            plural = "fields" if len(missing) > 1 else "field"
            raise _fail(self.arch, f"missing required {plural} {', '.join(missing)}{hint}")

    def integer(self, name: str, default: int | None = None, *, minimum: int = 1, maximum: int | None = None) -> int:
        value = self.data.get(name)
        if value is None:
            if default is None:
                self.need(name)
            return default  # type: ignore[return-value]
        return _check_int(value, self.where + name, self.arch, minimum, maximum or _FIELD_MAX.get(name, _DIM_MAX))

    def opt_integer(self, name: str, *, minimum: int = 1) -> int | None:
        value = self.data.get(name)
        if value is None:
            return None
        return _check_int(value, self.where + name, self.arch, minimum, _FIELD_MAX.get(name, _DIM_MAX))

    def flag(self, name: str, default: bool = False) -> bool:
        value = self.data.get(name)
        if value is None:
            return default
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in {"true", "false"}:
            return value.strip().lower() == "true"
        raise _fail(self.arch, f"{self.where}{name} must be true or false, got {value!r}")

    def mapping(self, name: str) -> Mapping[str, Any]:
        value = self.data.get(name)
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise _fail(self.arch, f"{self.where}{name} must be an object, got {type(value).__name__}")
        return value


def _check_int(value: Any, name: str, arch: str, minimum: int, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _fail(arch, f"{name} must be an integer, got {value!r}")
    if isinstance(value, float):
        if not value.is_integer():
            raise _fail(arch, f"{name} must be an integer, got {value!r}")
        value = int(value)
    if value < minimum:
        raise _fail(arch, f"{name} must be at least {minimum}, got {value}")
    if value > maximum:
        raise _fail(arch, f"{name} = {value:,} is implausibly large (limit {maximum:,}); check the config")
    return int(value)


def _float_or_none(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _first_architecture(config: Mapping[str, Any]) -> str:
    archs = config.get("architectures")
    if isinstance(archs, str):
        return archs
    if isinstance(archs, (list, tuple)) and archs and isinstance(archs[0], str):
        return archs[0]
    return ""


# The largest real checkpoints list ~76K tensors (Qwen3-Next-80B, Kimi-K2); each field has its own cap, but their
# product (layers x experts, e.g. 1,000 x 100,000) could still make a shared dashboard build a list for minutes.
TENSORS_MAX = 1_000_000


# False inside counts_only(): repeated blocks are listed as the same TensorSpec objects, not renamed copies.
_NAMED_COPIES: ContextVar[bool] = ContextVar("specdraft_named_copies", default=True)


@contextlib.contextmanager
def counts_only() -> Iterator[None]:
    """Parse for a count only: each copy of a repeated block (MoE experts) is the first block's TensorSpec
    itself, not a renamed copy. The list has the same length, shapes and flags, so ``params.count`` gives the
    same numbers, but the names repeat ``...experts.0...``: for callers that keep only the count (a shipped
    target's). A 1T MoE target's ~70K specs then cost a list copy instead of ~70K new objects."""
    token = _NAMED_COPIES.set(False)
    try:
        yield
    finally:
        _NAMED_COPIES.reset(token)


def _too_many(count: int) -> ConfigError:
    return ConfigError(
        f"the config describes at least {count:,} tensors (layers x experts), more than any real checkpoint "
        f"(limit {TENSORS_MAX:,}); check num_hidden_layers and the expert counts"
    )


class _Tensors:
    """Collects TensorSpecs in checkpoint order, refusing a list no real checkpoint has (TENSORS_MAX)."""

    def __init__(self) -> None:
        self.items: list[TensorSpec] = []
        self.named_copies = _NAMED_COPIES.get()

    def add(self, name: str, shape: tuple[int, ...], component: str, **kw: Any) -> None:
        if len(self.items) >= TENSORS_MAX:
            raise _too_many(len(self.items) + 1)
        self.items.append(TensorSpec(name=name, shape=tuple(int(d) for d in shape), component=component, **kw))

    def linear(self, name: str, out: int, inp: int, component: str, *, bias: bool = False, **kw: Any) -> None:
        self.add(f"{name}.weight", (out, inp), component, **kw)
        if bias:
            self.add(f"{name}.bias", (out,), component, **kw)

    def repeat(self, prefix: str, count: int, build: Callable[[str], None]) -> None:
        """``build(prefix + "0.")`` once, then copies renamed ``prefix + "1."``... (identical MoE experts).

        A 1T MoE target lists ~70K expert tensors: the copies skip the dataclass constructor, which is
        most of the cost of a first count; the list is the same as ``count`` calls to ``build``.
        """
        if count <= 0:
            return
        start = len(self.items)
        build(f"{prefix}0.")
        first = self.items[start:]
        if len(self.items) + (count - 1) * len(first) > TENSORS_MAX:
            raise _too_many(len(self.items) + (count - 1) * len(first))
        if not self.named_copies:  # counts_only(): the same objects, in the same order as the named copies
            self.items.extend(first * (count - 1))
            return
        cut = len(prefix) + 2  # "<prefix>0."
        new = object.__new__
        for e in range(1, count):
            head = f"{prefix}{e}."
            for src in first:
                copy = new(TensorSpec)
                copy.__dict__.update(src.__dict__)
                copy.__dict__["name"] = head + src.name[cut:]
                self.items.append(copy)


def _norm_and_head(t: _Tensors, hidden: int, vocab: int, tied: bool) -> None:
    """A target's last two tensors: the final norm, then lm_head unless it is tied to the embedding."""
    t.add("model.norm.weight", (hidden,), "norm")
    if not tied:
        t.add("lm_head.weight", (vocab, hidden), "lm_head")


def _target_spec(
    t: _Tensors,
    config: Mapping[str, Any],
    *,
    source: str,
    arch: str,
    dialect: str,
    hidden: int,
    vocab: int,
    layers: int,
    tied: bool,
    notes: Sequence[str],
    common: Mapping[str, Any],
    **extra: Any,
) -> ModelSpec:
    """A target's ModelSpec from its tensors: the fields every target family fills the same way; ``common`` is
    the (text) config its rope, context and dtype are read from, ``extra`` the family's own fields (experts)."""
    return ModelSpec(
        source=source,
        architecture=arch,
        dialect=dialect,
        role="target",
        hidden_size=hidden,
        vocab_size=vocab,
        num_hidden_layers=layers,
        tensors=tuple(t.items),
        tie_word_embeddings=tied,
        raw_config=dict(config),
        notes=tuple(notes),
        **extra,
        **_common(common),
    )


def _aux_layer_ids(config: Mapping[str, Any], arch: str) -> tuple[int, ...] | None:
    raw = config.get("eagle_aux_hidden_state_layer_ids")
    eagle_config = config.get("eagle_config")
    if raw is None and isinstance(eagle_config, Mapping):
        raw = eagle_config.get("eagle_aux_hidden_state_layer_ids")
    if raw is None:
        return None
    if not isinstance(raw, (list, tuple)) or not all(isinstance(v, int) and not isinstance(v, bool) for v in raw):
        raise _fail(arch, f"eagle_aux_hidden_state_layer_ids must be a list of integers, got {raw!r}")
    if not raw:
        return None  # both engines treat an empty list like no list (their defaults apply)
    if len(raw) > 64 or any(abs(v) > _LAYERS_MAX for v in raw):
        raise _fail(arch, f"eagle_aux_hidden_state_layer_ids must list 1 to 64 layer ids, got {list(raw)[:8]!r}")
    # Negative ids are kept: the draft is still counted, and lint says what each engine does with them.
    return tuple(raw)


def _aux_count(config: Mapping[str, Any], arch: str) -> int:
    """How many target states the fc concatenates, as SGLang and vLLM size it: num_aux_hidden_states, else the
    number of ids in eagle_config, else 3 (sglang 0.5.23 srt/models/llama_eagle3.py LlamaModel.__init__ lines
    156-164; vllm 0.33.0 model_executor/models/llama_eagle3.py LlamaModel.__init__ lines 209-221). Top-level ids
    do not count in either engine."""
    explicit = config.get("num_aux_hidden_states")
    if explicit is not None:
        return _check_int(explicit, "num_aux_hidden_states", arch, 1, 64)
    eagle_config = config.get("eagle_config")
    ids = eagle_config.get("eagle_aux_hidden_state_layer_ids") if isinstance(eagle_config, Mapping) else None
    if isinstance(ids, (list, tuple)) and ids and len(ids) <= 64:
        return len(ids)
    return 3


def _norm_before_fc(config: Mapping[str, Any], r: _Reader) -> bool:
    """norm_before_fc as both engines read it: inside eagle_config first, then the top level."""
    eagle_config = config.get("eagle_config")
    if isinstance(eagle_config, Mapping) and eagle_config.get("norm_before_fc") is not None:
        return _Reader(eagle_config, r.arch, "eagle_config.").flag("norm_before_fc")
    return r.flag("norm_before_fc")


def _common(config: Mapping[str, Any]) -> dict[str, Any]:
    rope_scaling = config.get("rope_scaling")
    dtype = config.get("torch_dtype") or config.get("dtype")
    return {
        "max_position_embeddings": config.get("max_position_embeddings")
        if isinstance(config.get("max_position_embeddings"), int)
        and not isinstance(config.get("max_position_embeddings"), bool)
        else None,
        "rope_theta": _float_or_none(config.get("rope_theta")),
        "rope_scaling": rope_scaling if isinstance(rope_scaling, Mapping) else None,
        "torch_dtype": dtype if isinstance(dtype, str) else None,
    }


def _head_dim(r: _Reader, hidden: int, heads: int) -> int:
    if r.has("head_dim"):
        return r.integer("head_dim")
    if hidden % heads:
        raise _fail(
            r.arch,
            f"{r.where}head_dim is missing and hidden_size {hidden} is not divisible by num_attention_heads {heads}",
        )
    return hidden // heads


# ---- decoder pieces -------------------------------------------------------------------------


def _attention(
    t: _Tensors,
    prefix: str,
    *,
    hidden: int,
    heads: int,
    kv_heads: int,
    head_dim: int,
    in_dim: int,
    qkv_bias: bool = False,
    o_bias: bool = False,
    qk_norm: bool = False,
    component: str = "attention",
    **kw: Any,
) -> None:
    t.linear(f"{prefix}self_attn.q_proj", heads * head_dim, in_dim, component, bias=qkv_bias, **kw)
    t.linear(f"{prefix}self_attn.k_proj", kv_heads * head_dim, in_dim, component, bias=qkv_bias, **kw)
    t.linear(f"{prefix}self_attn.v_proj", kv_heads * head_dim, in_dim, component, bias=qkv_bias, **kw)
    t.linear(f"{prefix}self_attn.o_proj", hidden, heads * head_dim, component, bias=o_bias, **kw)
    if qk_norm:
        norm_component = "norm" if component == "attention" else component
        t.add(f"{prefix}self_attn.q_norm.weight", (head_dim,), norm_component, **kw)
        t.add(f"{prefix}self_attn.k_norm.weight", (head_dim,), norm_component, **kw)


def _mlp(
    t: _Tensors, prefix: str, hidden: int, inter: int, *, bias: bool = False, component: str = "mlp", **kw: Any
) -> None:
    t.linear(f"{prefix}gate_proj", inter, hidden, component, bias=bias, **kw)
    t.linear(f"{prefix}up_proj", inter, hidden, component, bias=bias, **kw)
    t.linear(f"{prefix}down_proj", hidden, inter, component, bias=bias, **kw)


# ---- EAGLE-3 ---------------------------------------------------------------------------------


def _eagle3_tensors(
    *,
    hidden: int,
    inter: int,
    heads: int,
    kv_heads: int,
    head_dim: int,
    vocab: int,
    draft_vocab: int,
    target_hidden: int,
    layers: int,
    layer_prefix: str,
    attn_bias: bool,
    mlp_bias: bool,
    qk_norm: bool,
    fc_bias: bool,
    fc_norm: bool,
    input_norm: bool,
    embed_stored: bool,
    embed_trainable: bool,
    embed_shared: bool,
    lm_head_trainable: bool,
    lm_head_shared: bool,
    with_t2d: bool,
    n_aux: int = 3,
) -> list[TensorSpec]:
    t = _Tensors()
    t.add(
        "embed_tokens.weight",
        (vocab, hidden),
        "embedding",
        trainable=embed_trainable,
        shared_with_target=embed_shared,
        stored=embed_stored,
    )
    if input_norm:
        t.add("input_norm.weight", (n_aux * target_hidden,), "norm")
    if fc_norm:
        for i in range(n_aux):
            t.add(f"fc_norm.{i}.weight", (target_hidden,), "norm")
    t.linear("fc", hidden, n_aux * target_hidden, "fc", bias=fc_bias)
    for i in range(layers):
        if layer_prefix == "midlayer":
            p = "midlayer." if layers == 1 else f"midlayer.{i}."
        else:
            p = f"{layer_prefix}.{i}."
        first = i == 0
        if first:
            t.add(f"{p}hidden_norm.weight", (hidden,), "norm")
        t.add(f"{p}input_layernorm.weight", (hidden,), "norm")
        _attention(
            t,
            p,
            hidden=hidden,
            heads=heads,
            kv_heads=kv_heads,
            head_dim=head_dim,
            in_dim=2 * hidden if first else hidden,
            qkv_bias=attn_bias,
            o_bias=attn_bias,
            qk_norm=qk_norm,
        )
        t.add(f"{p}post_attention_layernorm.weight", (hidden,), "norm")
        _mlp(t, f"{p}mlp.", hidden, inter, bias=mlp_bias)
    t.add("norm.weight", (hidden,), "norm")
    t.add(
        "lm_head.weight",
        (draft_vocab, hidden),
        "lm_head",
        trainable=lm_head_trainable,
        shared_with_target=lm_head_shared,
    )
    if draft_vocab < vocab:
        t.add("d2t", (draft_vocab,), "buffer", trainable=False, is_buffer=True, dtype="I64")
        if with_t2d:
            t.add("t2d", (vocab,), "buffer", trainable=False, is_buffer=True, dtype="BOOL")
    return t.items


def _dense_sizes(r: _Reader) -> tuple[int, int, int, int, int, int]:
    """hidden, intermediate, heads, kv heads, head dim, vocab: what every dense decoder config states."""
    r.need("hidden_size", "intermediate_size", "num_attention_heads", "vocab_size")
    hidden = r.integer("hidden_size")
    heads = r.integer("num_attention_heads")
    return (
        hidden,
        r.integer("intermediate_size"),
        heads,
        r.integer("num_key_value_heads", heads),
        _head_dim(r, hidden, heads),
        r.integer("vocab_size"),
    )


def _eagle3(config: Mapping[str, Any], source: str, arch: str, dialect: str) -> ModelSpec:
    r = _Reader(config, arch)
    hidden, inter, heads, kv_heads, head_dim, vocab = _dense_sizes(r)
    draft_vocab = r.integer("draft_vocab_size", vocab)
    if draft_vocab > vocab:
        raise _fail(arch, f"draft_vocab_size {draft_vocab} is larger than vocab_size {vocab}")
    target_hidden = r.integer("target_hidden_size", hidden)
    layers = r.integer("num_hidden_layers", 1)
    eagle_config = r.mapping("eagle_config")
    notes: list[str] = []
    own_embedding = target_hidden != hidden
    if dialect == "modelopt-eagle3":
        embed_stored, lm_trainable, lm_shared, with_t2d = False, draft_vocab < vocab, False, False
        notes.append("ModelOpt export: embed_tokens is not exported (the target's is used); only d2t is saved.")
        if int(eagle_config.get("parallel_draft_step") or 1) > 1:
            notes.append("parallel_draft_heads are not counted.")
    else:
        embed_stored, lm_trainable, lm_shared, with_t2d = own_embedding, True, False, True
        notes.append(
            "embed_tokens is frozen and shared with the target; SpecForge/EAGLE checkpoints normally leave it out."
        )
    if draft_vocab == vocab and "draft_vocab_size" not in config:
        notes.append("no draft_vocab_size: full-vocabulary lm_head (SGLang may load it from the target).")
    if own_embedding:
        notes.append("target_hidden_size differs from hidden_size: the draft keeps its own embedding.")
    tensors = _eagle3_tensors(
        hidden=hidden,
        inter=inter,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        vocab=vocab,
        draft_vocab=draft_vocab,
        target_hidden=target_hidden,
        layers=layers,
        layer_prefix="midlayer",
        attn_bias=r.flag("attention_bias"),
        mlp_bias=r.flag("mlp_bias"),
        qk_norm=False,
        fc_bias=r.flag("bias"),
        fc_norm=r.flag("fc_norm") or r.flag("use_aux_norm"),
        input_norm=_norm_before_fc(config, r),
        embed_stored=embed_stored,
        embed_trainable=False,
        embed_shared=not own_embedding,
        lm_head_trainable=lm_trainable,
        lm_head_shared=lm_shared,
        with_t2d=with_t2d,
        n_aux=_aux_count(config, arch),
    )
    return ModelSpec(
        source=source,
        architecture=arch or "LlamaForCausalLMEagle3",
        dialect=dialect,
        role="draft",
        hidden_size=hidden,
        vocab_size=vocab,
        num_hidden_layers=layers,
        tensors=tuple(tensors),
        draft_vocab_size=draft_vocab,
        target_hidden_size=target_hidden,
        aux_layer_ids=_aux_layer_ids(config, arch),
        tie_word_embeddings=r.flag("tie_word_embeddings"),
        raw_config=dict(config),
        notes=tuple(notes),
        **_common(config),
    )


def _speculators(config: Mapping[str, Any], source: str, arch: str) -> ModelSpec:
    kind = config.get("speculators_model_type")
    if kind != "eagle3":
        raise _fail(arch or "Speculators", f"speculators_model_type {kind!r} is not supported (only 'eagle3')")
    top = _Reader(config, arch or "Eagle3Speculator")
    top.need("transformer_layer_config")
    layer_cfg = top.mapping("transformer_layer_config")
    r = _Reader(layer_cfg, top.arch, "transformer_layer_config.")
    hidden, inter, heads, kv_heads, head_dim, vocab = _dense_sizes(r)
    layers = r.integer("num_hidden_layers", 1)
    draft_vocab = top.integer("draft_vocab_size", vocab)
    if draft_vocab > vocab:
        raise _fail(top.arch, f"draft_vocab_size {draft_vocab} is larger than vocab_size {vocab}")
    target_hidden = top.integer("target_hidden_size", hidden)
    qk_norm = str(layer_cfg.get("model_type", "")).startswith("qwen3")
    embed_trainable = top.flag("embed_requires_grad")
    tensors = _eagle3_tensors(
        hidden=hidden,
        inter=inter,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        vocab=vocab,
        draft_vocab=draft_vocab,
        target_hidden=target_hidden,
        layers=layers,
        layer_prefix="layers",
        attn_bias=r.flag("attention_bias"),
        mlp_bias=r.flag("mlp_bias"),
        qk_norm=qk_norm,
        fc_bias=False,
        fc_norm=top.flag("fc_norm"),
        input_norm=top.flag("norm_before_fc"),
        embed_stored=True,
        embed_trainable=embed_trainable,
        embed_shared=not embed_trainable,
        lm_head_trainable=False,
        lm_head_shared=False,
        with_t2d=True,
    )
    spec_cfg = top.mapping("speculators_config")
    raw_verifier = spec_cfg.get("verifier")
    verifier: Mapping[str, Any] = raw_verifier if isinstance(raw_verifier, Mapping) else {}
    target_model = verifier.get("name_or_path") if isinstance(verifier.get("name_or_path"), str) else None
    common = _common(layer_cfg)
    if common["torch_dtype"] is None:
        common["torch_dtype"] = _common(config)["torch_dtype"]
    return ModelSpec(
        source=source,
        architecture=arch or "Eagle3Speculator",
        dialect="speculators-eagle3",
        role="draft",
        hidden_size=hidden,
        vocab_size=vocab,
        num_hidden_layers=layers,
        tensors=tuple(tensors),
        draft_vocab_size=draft_vocab,
        target_hidden_size=target_hidden,
        aux_layer_ids=_aux_layer_ids(config, top.arch),
        raw_config=dict(config),
        notes=(
            "speculators saves embed_tokens (frozen copy of the target's) and a frozen lm_head "
            "initialised from the target's rows.",
        ),
        target_model=target_model,
        **common,
    )


# ---- EAGLE-1/2 and Medusa ---------------------------------------------------------------------


def _eagle1(config: Mapping[str, Any], source: str, arch: str) -> ModelSpec:
    r = _Reader(config, arch)
    hidden, inter, heads, kv_heads, head_dim, vocab = _dense_sizes(r)
    layers = r.integer("num_hidden_layers", 1)
    t = _Tensors()
    t.add("embed_tokens.weight", (vocab, hidden), "embedding", trainable=False, shared_with_target=True)
    for i in range(layers):
        p = f"layers.{i}."
        if i > 0:
            t.add(f"{p}input_layernorm.weight", (hidden,), "norm")
        _attention(
            t,
            p,
            hidden=hidden,
            heads=heads,
            kv_heads=kv_heads,
            head_dim=head_dim,
            in_dim=hidden,
            qkv_bias=r.flag("attention_bias"),
            o_bias=r.flag("attention_bias"),
        )
        t.add(f"{p}post_attention_layernorm.weight", (hidden,), "norm")
        _mlp(t, f"{p}mlp.", hidden, inter, bias=r.flag("mlp_bias"))
    t.linear("fc", hidden, 2 * hidden, "fc", bias=r.flag("bias", True))
    return ModelSpec(
        source=source,
        architecture=arch or "LlamaForCausalLM",
        dialect="eagle1",
        role="draft",
        hidden_size=hidden,
        vocab_size=vocab,
        num_hidden_layers=layers,
        tensors=tuple(t.items),
        raw_config=dict(config),
        tie_word_embeddings=r.flag("tie_word_embeddings"),
        notes=(
            "EAGLE-1/2 head: predicts the next feature and uses the target's lm_head; "
            "its checkpoint carries a frozen copy of the embedding.",
        ),
        **_common(config),
    )


def _medusa(config: Mapping[str, Any], source: str, arch: str, target: Mapping[str, Any] | None) -> ModelSpec:
    merged: dict[str, Any] = {}
    if target is not None:
        inner = _text_config(target)[0]
        merged.update({k: inner.get(k) for k in ("hidden_size", "vocab_size") if inner.get(k) is not None})
    merged.update({k: v for k, v in config.items() if v is not None})
    arch = arch or "Medusa"
    r = _Reader(merged, arch)
    r.need(
        "medusa_num_heads",
        "hidden_size",
        "vocab_size",
        hint=" (Medusa-1 configs only name base_model_name_or_path: pass the base model's config as target)",
    )
    n_heads = r.integer("medusa_num_heads")
    n_layers = r.integer("medusa_num_layers", 1)
    hidden = r.integer("hidden_size")
    vocab = r.integer("vocab_size")
    t = _Tensors()
    for i in range(n_heads):
        for j in range(n_layers):
            t.linear(f"medusa_head.{i}.{j}.linear", hidden, hidden, "heads", bias=True)
        t.add(f"medusa_head.{i}.{n_layers}.weight", (vocab, hidden), "heads")
    base = config.get("base_model_name_or_path")
    return ModelSpec(
        source=source,
        architecture=arch,
        dialect="medusa",
        role="draft",
        hidden_size=hidden,
        vocab_size=vocab,
        num_hidden_layers=n_layers,
        tensors=tuple(t.items),
        raw_config=dict(config),
        notes=(f"{n_heads} Medusa heads, each {n_layers} residual block(s) plus its own vocabulary projection.",),
        target_model=base if isinstance(base, str) else None,
        **_common(merged),
    )


# ---- DeepSeek-V3 / Kimi-K2 (MLA + MoE) ----------------------------------------------------


class _DeepSeek:
    def __init__(self, config: Mapping[str, Any], arch: str) -> None:
        r = _Reader(config, arch)
        r.need(
            "hidden_size",
            "intermediate_size",
            "num_attention_heads",
            "num_hidden_layers",
            "vocab_size",
            "kv_lora_rank",
            "qk_nope_head_dim",
            "qk_rope_head_dim",
            "v_head_dim",
        )
        self.r = r
        self.arch = arch
        self.hidden = r.integer("hidden_size")
        self.inter = r.integer("intermediate_size")
        self.heads = r.integer("num_attention_heads")
        self.layers = r.integer("num_hidden_layers")
        self.vocab = r.integer("vocab_size")
        self.q_lora = r.opt_integer("q_lora_rank")
        self.kv_lora = r.integer("kv_lora_rank")
        self.nope = r.integer("qk_nope_head_dim", minimum=0)
        self.rope = r.integer("qk_rope_head_dim", minimum=0)
        if self.nope + self.rope == 0:
            raise _fail(arch, "qk_nope_head_dim + qk_rope_head_dim must be positive")
        self.v_dim = r.integer("v_head_dim")
        self.bias = r.flag("attention_bias")
        self.experts = r.opt_integer("n_routed_experts")
        self.first_dense = r.integer("first_k_dense_replace", 0, minimum=0)
        self.freq = r.integer("moe_layer_freq", 1)
        self.mtp_layers = r.integer("num_nextn_predict_layers", 0, minimum=0)
        self.shared = 0
        self.per_tok = 0
        self.moe_inter = 0
        if self.experts:
            r.need("moe_intermediate_size", "num_experts_per_tok")
            self.moe_inter = r.integer("moe_intermediate_size")
            self.per_tok = r.integer("num_experts_per_tok")
            if self.per_tok > self.experts:
                raise _fail(arch, f"num_experts_per_tok {self.per_tok} exceeds n_routed_experts {self.experts}")
            self.shared = r.integer("n_shared_experts", 0, minimum=0)
        topk = config.get("topk_method")
        model_type = str(config.get("model_type", ""))
        self.correction_bias = topk == "noaux_tc" or (topk is None and model_type in {"deepseek_v3", "kimi_k2"})

    def is_moe(self, idx: int) -> bool:
        return bool(self.experts) and idx >= self.first_dense and idx % self.freq == 0

    def layer(self, t: _Tensors, idx: int, prefix: str, only: str | None = None, **kw: Any) -> None:
        """One decoder layer; ``only`` forces every tensor into one component (the MTP block)."""

        def c(name: str) -> str:
            return only or name

        h, a = self.hidden, f"{prefix}self_attn."
        t.add(f"{prefix}input_layernorm.weight", (h,), c("norm"), **kw)
        qk = self.nope + self.rope
        if self.q_lora:
            t.linear(f"{a}q_a_proj", self.q_lora, h, c("attention"), bias=self.bias, **kw)
            t.add(f"{a}q_a_layernorm.weight", (self.q_lora,), c("attention"), **kw)
            t.linear(f"{a}q_b_proj", self.heads * qk, self.q_lora, c("attention"), **kw)
        else:
            t.linear(f"{a}q_proj", self.heads * qk, h, c("attention"), **kw)
        t.linear(f"{a}kv_a_proj_with_mqa", self.kv_lora + self.rope, h, c("attention"), bias=self.bias, **kw)
        t.add(f"{a}kv_a_layernorm.weight", (self.kv_lora,), c("attention"), **kw)
        t.linear(f"{a}kv_b_proj", self.heads * (self.nope + self.v_dim), self.kv_lora, c("attention"), **kw)
        t.linear(f"{a}o_proj", h, self.heads * self.v_dim, c("attention"), bias=self.bias, **kw)
        t.add(f"{prefix}post_attention_layernorm.weight", (h,), c("norm"), **kw)
        m = f"{prefix}mlp."
        if not self.is_moe(idx):
            _mlp(t, m, h, self.inter, component=c("mlp"), **kw)
            return
        assert self.experts
        t.add(f"{m}gate.weight", (self.experts, h), c("router"), **kw)
        if self.correction_bias:
            t.add(f"{m}gate.e_score_correction_bias", (self.experts,), c("router"), **{**kw, "trainable": False})
        frac = self.per_tok / self.experts
        t.repeat(
            f"{m}experts.",
            self.experts,
            lambda q: _mlp(t, q, h, self.moe_inter, component=c("experts"), active_fraction=frac, **kw),
        )
        if self.shared:
            _mlp(t, f"{m}shared_experts.", h, self.moe_inter * self.shared, component=c("mlp"), **kw)

    def mtp_block(self, t: _Tensors, idx: int, prefix: str, *, as_draft: bool) -> None:
        h = self.hidden
        only = None if as_draft else "mtp"
        shared = {"trainable": False, "shared_with_target": True} if as_draft else {}
        t.add(f"{prefix}embed_tokens.weight", (self.vocab, h), "embedding" if as_draft else "mtp", **shared)
        t.add(f"{prefix}enorm.weight", (h,), only or "norm")
        t.add(f"{prefix}hnorm.weight", (h,), only or "norm")
        t.add(f"{prefix}eh_proj.weight", (h, 2 * h), only or "fc")
        self.layer(t, idx, prefix, only=only)
        t.add(f"{prefix}shared_head.norm.weight", (h,), only or "norm")
        t.add(f"{prefix}shared_head.head.weight", (self.vocab, h), "lm_head" if as_draft else "mtp", **shared)


def _mla_target(
    d: _DeepSeek, config: Mapping[str, Any], source: str, arch: str, *, dialect: str, notes: list[str]
) -> ModelSpec:
    """A DeepSeek-layout target (DeepSeek-V3, Kimi, GLM-5): decoder layers, then its MTP layers after them."""
    t = _Tensors()
    t.add("model.embed_tokens.weight", (d.vocab, d.hidden), "embedding")
    for i in range(d.layers):
        d.layer(t, i, f"model.layers.{i}.")
    tied = d.r.flag("tie_word_embeddings")
    _norm_and_head(t, d.hidden, d.vocab, tied)
    for k in range(d.mtp_layers):
        idx = d.layers + k
        d.mtp_block(t, idx, f"model.layers.{idx}.", as_draft=False)
    return _target_spec(
        t,
        config,
        source=source,
        arch=arch or _DEFAULT_ARCH[dialect],
        dialect=dialect,
        hidden=d.hidden,
        vocab=d.vocab,
        layers=d.layers,
        tied=tied,
        notes=notes,
        num_experts=d.experts,
        experts_per_token=d.per_tok or None,
        common=config,
    )


_DEFAULT_ARCH = {"deepseek-v3": "DeepseekV3ForCausalLM", "glm-moe-dsa": "GlmMoeDsaForCausalLM"}


def _deepseek_target(config: Mapping[str, Any], source: str, arch: str) -> ModelSpec:
    d = _DeepSeek(config, arch)
    notes = []
    if d.mtp_layers:
        notes.append(f"{d.mtp_layers} MTP layer(s) (model.layers.{d.layers}+) counted under component 'mtp'.")
    return _mla_target(d, config, source, arch, dialect="deepseek-v3", notes=notes)


def _mtp_draft(config: Mapping[str, Any], source: str, arch: str) -> ModelSpec:
    d = _DeepSeek(config, arch)
    count = d.mtp_layers or 1
    base = 0 if d.layers == 1 else d.layers  # SGLang's NextN export keeps one layer at index 0
    t = _Tensors()
    for k in range(count):
        idx = base + k
        d.mtp_block(t, max(idx, d.first_dense), f"model.layers.{idx}.", as_draft=True)
    return ModelSpec(
        source=source,
        architecture=arch or "DeepseekV3ForCausalLMNextN",
        dialect="mtp",
        role="draft",
        hidden_size=d.hidden,
        vocab_size=d.vocab,
        num_hidden_layers=count,
        tensors=tuple(t.items),
        raw_config=dict(config),
        notes=("DeepSeek MTP module: embedding and output head are copies of the target's (frozen, shared).",),
        num_experts=d.experts,
        experts_per_token=d.per_tok or None,
        **_common(config),
    )


def mtp_spec(config: Mapping[str, Any], source: str = "") -> ModelSpec:
    """The MTP module of a DeepSeek-V3-style target, described as a draft model."""
    inner, _ = _text_config(config)
    arch = _first_architecture(config) or _first_architecture(inner)
    r = _Reader(inner, arch)
    if r.integer("num_nextn_predict_layers", 0, minimum=0) == 0:
        raise _fail(arch, "num_nextn_predict_layers is 0 or missing: this model has no MTP module")
    return _mtp_draft(inner, source, arch)


def mtp_only_checkpoint(config: Mapping[str, Any], names: Collection[str]) -> bool:
    """Whether a checkpoint's tensor ``names`` are only the MTP layers of ``config`` (every one under
    ``layers.N.`` with N >= num_hidden_layers, and the config has num_nextn_predict_layers): an MTP module published
    with a copy of its target's config (walk AV1: nebius/MTP-DeepSeek-V3-0324 holds model.layers.61.* only)."""
    inner, _ = _text_config(config)
    layers, mtp = inner.get("num_hidden_layers"), inner.get("num_nextn_predict_layers")
    if not (isinstance(layers, int) and isinstance(mtp, int) and mtp > 0 and names):
        return False
    for name in names:
        m = re.search(r"(?:^|\.)layers\.(\d+)\.", name)
        if m is None or int(m.group(1)) < layers:
            return False
    return True


UNCOUNTED = "uncounted"  # the dialect of ``uncounted_target``: a full model the counter has no rules for
_DRAFT_MARKERS = ("eagle", "medusa", "speculator", "draft", "mtp", "nextn", "hydra")


def declared_mtp_layers(config: Mapping[str, Any]) -> int:
    """The MTP layers a target's config declares (num_nextn_predict_layers, or Qwen3.5's mtp_num_hidden_layers)."""
    inner, _ = _text_config(config)
    for key in ("num_nextn_predict_layers", "mtp_num_hidden_layers"):
        n = inner.get(key, config.get(key))
        if isinstance(n, int) and not isinstance(n, bool) and n > 0:
            return n
    return 0


def _stored_component(name: str) -> str:
    """A stored tensor's component by its name alone, for a model the counter has no rules for: the embedding, the
    lm_head, MTP layers and a vision tower by their usual names; everything else "other" (not split)."""
    if re.search(r"(^|\.)embed_tokens\.", name) and not re.search(r"(^|\.)mtp\.", name):
        return "embedding"
    if re.search(r"(^|\.)lm_head\.", name):
        return "lm_head"
    if re.search(r"(^|\.)mtp\.", name):
        return "mtp"
    if re.search(r"(^|\.)(visual|vision_tower|vision_model)\.", name):
        return "vision"
    return "other"


def uncounted_target(
    config: Mapping[str, Any], source: str, stored: Sequence[tuple[str, Sequence[int]]] | None
) -> ModelSpec | None:
    """A full model whose architecture the counter has no rules for, as a target (walk BL6: Qwen/Qwen3.5-397B-A17B
    pasted as your draft was only "unsupported architecture"); None when the config is not one.

    A full model: a causal-LM or multimodal class with no draft marker (EAGLE, Medusa, MTP, ...), no EAGLE-3 fields
    and many layers. Its tensors are its checkpoint's as stored (``stored``: (name, shape) from its safetensors
    headers; none when they were not read): the total is what it stores, and no split by component or active count
    is claimed beyond what the tensor names say (``_stored_component``)."""
    inner, _ = _text_config(config)
    arch = _first_architecture(config) or _first_architecture(inner)
    lowered = arch.lower()
    full_class = lowered.endswith(("forcausallm", "forconditionalgeneration"))
    sizes = [
        v for v in (inner.get(k) for k in ("num_hidden_layers", "hidden_size", "vocab_size")) if isinstance(v, int)
    ]
    if len(sizes) != 3 or any(isinstance(v, bool) or v <= 0 for v in sizes):
        return None
    layers, hidden, vocab = sizes
    if (
        not full_class
        or layers < 4
        or any(m in lowered for m in _DRAFT_MARKERS)
        or _is_eagle3_shaped(inner)
        or _is_eagle3_shaped(config)
        or config.get("speculators_model_type") is not None
        or config.get("medusa_num_heads") is not None
    ):
        return None
    tensors = tuple(
        TensorSpec(name, tuple(int(d) for d in shape), _stored_component(name)) for name, shape in stored or ()
    )
    return ModelSpec(
        source=source,
        architecture=arch,
        dialect=UNCOUNTED,
        role="target",
        hidden_size=hidden,
        vocab_size=vocab,
        num_hidden_layers=layers,
        tensors=tensors,
        max_position_embeddings=inner.get("max_position_embeddings")
        if isinstance(inner.get("max_position_embeddings"), int)
        else None,
        raw_config=dict(config),
        notes=(
            f"{arch}: the parameter counter has no rules for its architecture; "
            + (
                "its total is the elements stored in its checkpoint (safetensors headers)"
                if tensors
                else "its checkpoint's headers were not read, so its size is not known"
            ),
        ),
    )


# ---- dense and MoE targets --------------------------------------------------------------------


def _llama_like(config: Mapping[str, Any], source: str, arch: str, dialect: str) -> ModelSpec:
    r = _Reader(config, arch)
    r.need("num_hidden_layers")
    hidden, inter, heads, kv_heads, head_dim, vocab = _dense_sizes(r)
    layers = r.integer("num_hidden_layers")
    tied = r.flag("tie_word_embeddings")
    qkv_bias = True if dialect == "qwen2" else r.flag("attention_bias")
    o_bias = False if dialect == "qwen2" else r.flag("attention_bias")
    qk_norm = dialect in {"qwen3", "qwen3-moe"}
    mlp_bias = r.flag("mlp_bias")
    experts = per_tok = moe_inter = 0
    sparse_step = 1
    mlp_only: set[int] = set()
    if dialect == "mixtral":  # block_sparse_moe: a router and num_local_experts SwiGLU experts (w1, w3 in; w2 out)
        r.need("num_local_experts", "num_experts_per_tok")
        experts = r.integer("num_local_experts")
        per_tok = r.integer("num_experts_per_tok")
        if per_tok > experts:
            raise _fail(arch, f"num_experts_per_tok {per_tok} exceeds num_local_experts {experts}")
    if dialect == "qwen3-moe":
        r.need("num_experts", "num_experts_per_tok", "moe_intermediate_size")
        experts = r.integer("num_experts")
        per_tok = r.integer("num_experts_per_tok")
        moe_inter = r.integer("moe_intermediate_size")
        if per_tok > experts:
            raise _fail(arch, f"num_experts_per_tok {per_tok} exceeds num_experts {experts}")
        sparse_step = r.integer("decoder_sparse_step", 1)
        raw_only = config.get("mlp_only_layers") or []
        if not isinstance(raw_only, (list, tuple)) or not all(isinstance(v, int) for v in raw_only):
            raise _fail(arch, f"mlp_only_layers must be a list of integers, got {raw_only!r}")
        mlp_only = set(raw_only)
    t = _Tensors()
    t.add("model.embed_tokens.weight", (vocab, hidden), "embedding")
    for i in range(layers):
        p = f"model.layers.{i}."
        t.add(f"{p}input_layernorm.weight", (hidden,), "norm")
        if dialect == "phi3":  # fused qkv_proj and gate_up_proj, no biases
            t.linear(f"{p}self_attn.qkv_proj", (heads + 2 * kv_heads) * head_dim, hidden, "attention")
            t.linear(f"{p}self_attn.o_proj", hidden, heads * head_dim, "attention")
        else:
            _attention(
                t,
                p,
                hidden=hidden,
                heads=heads,
                kv_heads=kv_heads,
                head_dim=head_dim,
                in_dim=hidden,
                qkv_bias=qkv_bias,
                o_bias=o_bias,
                qk_norm=qk_norm,
            )
        t.add(f"{p}post_attention_layernorm.weight", (hidden,), "norm")
        if dialect == "phi3":
            t.linear(f"{p}mlp.gate_up_proj", 2 * inter, hidden, "mlp")
            t.linear(f"{p}mlp.down_proj", hidden, inter, "mlp")
        elif dialect == "mixtral":
            t.add(f"{p}block_sparse_moe.gate.weight", (experts, hidden), "router")
            frac = per_tok / experts

            def mixtral_expert(q: str, frac: float = frac) -> None:
                t.linear(f"{q}w1", inter, hidden, "experts", active_fraction=frac)
                t.linear(f"{q}w2", hidden, inter, "experts", active_fraction=frac)
                t.linear(f"{q}w3", inter, hidden, "experts", active_fraction=frac)

            t.repeat(f"{p}block_sparse_moe.experts.", experts, mixtral_expert)
        elif experts and i not in mlp_only and (i + 1) % sparse_step == 0:
            t.add(f"{p}mlp.gate.weight", (experts, hidden), "router")
            t.repeat(
                f"{p}mlp.experts.",
                experts,
                lambda q: _mlp(t, q, hidden, moe_inter, component="experts", active_fraction=per_tok / experts),
            )
        else:
            _mlp(t, f"{p}mlp.", hidden, inter, bias=mlp_bias)
    _norm_and_head(t, hidden, vocab, tied)
    notes = ("lm_head is tied to the embedding (not stored separately).",) if tied else ()
    return _target_spec(
        t,
        config,
        source=source,
        arch=arch,
        dialect=dialect,
        hidden=hidden,
        vocab=vocab,
        layers=layers,
        tied=tied,
        notes=notes,
        num_experts=experts or None,
        experts_per_token=per_tok or None,
        common=config,
    )


def _gpt_oss(config: Mapping[str, Any], source: str, arch: str) -> ModelSpec:
    r = _Reader(config, arch)
    r.need("num_hidden_layers", "num_local_experts")
    hidden, inter, heads, kv_heads, head_dim, vocab = _dense_sizes(r)
    layers = r.integer("num_hidden_layers")
    experts = r.integer("num_local_experts")
    per_tok = r.integer("num_experts_per_tok", 0) or r.integer("experts_per_token", 0)
    if not per_tok:
        r.need("num_experts_per_tok")
    if per_tok > experts:
        raise _fail(arch, f"num_experts_per_tok {per_tok} exceeds num_local_experts {experts}")
    tied = r.flag("tie_word_embeddings")
    bias = r.flag("attention_bias", True)
    frac = per_tok / experts
    t = _Tensors()
    t.add("model.embed_tokens.weight", (vocab, hidden), "embedding")
    for i in range(layers):
        p = f"model.layers.{i}."
        t.add(f"{p}input_layernorm.weight", (hidden,), "norm")
        _attention(
            t,
            p,
            hidden=hidden,
            heads=heads,
            kv_heads=kv_heads,
            head_dim=head_dim,
            in_dim=hidden,
            qkv_bias=bias,
            o_bias=bias,
        )
        t.add(f"{p}self_attn.sinks", (heads,), "attention")
        t.add(f"{p}post_attention_layernorm.weight", (hidden,), "norm")
        t.linear(f"{p}mlp.router", experts, hidden, "router", bias=True)
        x = f"{p}mlp.experts."
        t.add(f"{x}gate_up_proj", (experts, hidden, 2 * inter), "experts", active_fraction=frac)
        t.add(f"{x}gate_up_proj_bias", (experts, 2 * inter), "experts", active_fraction=frac)
        t.add(f"{x}down_proj", (experts, inter, hidden), "experts", active_fraction=frac)
        t.add(f"{x}down_proj_bias", (experts, hidden), "experts", active_fraction=frac)
    _norm_and_head(t, hidden, vocab, tied)
    return _target_spec(
        t,
        config,
        source=source,
        arch=arch or "GptOssForCausalLM",
        dialect="gpt-oss",
        hidden=hidden,
        vocab=vocab,
        layers=layers,
        tied=tied,
        notes=(
            "expert weights are counted at their logical (dequantised) shapes; the published checkpoint "
            "stores them as MXFP4 *_blocks/*_scales.",
        ),
        num_experts=experts,
        experts_per_token=per_tok,
        common=config,
    )


# ---- GLM-4.5 / 4.6 MoE, GLM-5 (DSA), MiniMax-M2 ------------------------------------------------


def _glm4_moe_layer(
    t: _Tensors,
    r: _Reader,
    idx: int,
    prefix: str,
    sizes: Mapping[str, int],
    only: str | None = None,
) -> None:
    """One Glm4Moe decoder layer as the checkpoint names it (per-expert tensors, as SGLang and vLLM load them);
    ``only`` forces every tensor into one component (the MTP layer)."""

    def c(name: str) -> str:
        return only or name

    h = sizes["hidden"]
    t.add(f"{prefix}input_layernorm.weight", (h,), c("norm"))
    _attention(
        t,
        prefix,
        hidden=h,
        heads=sizes["heads"],
        kv_heads=sizes["kv_heads"],
        head_dim=sizes["head_dim"],
        in_dim=h,
        qkv_bias=r.flag("attention_bias"),
        qk_norm=r.flag("use_qk_norm"),
        component=c("attention"),
    )
    t.add(f"{prefix}post_attention_layernorm.weight", (h,), c("norm"))
    m = f"{prefix}mlp."
    if idx < sizes["first_dense"]:
        _mlp(t, m, h, sizes["inter"], component=c("mlp"))
        return
    experts = sizes["experts"]
    t.add(f"{m}gate.weight", (experts, h), c("router"))
    # a float32 buffer in transformers, a stored tensor in the checkpoint (set during training, not learned)
    t.add(f"{m}gate.e_score_correction_bias", (experts,), c("router"), trainable=False)
    frac = sizes["per_tok"] / experts
    for e in range(experts):
        _mlp(t, f"{m}experts.{e}.", h, sizes["moe_inter"], component=c("experts"), active_fraction=frac)
    if sizes["shared"]:
        _mlp(t, f"{m}shared_experts.", h, sizes["moe_inter"] * sizes["shared"], component=c("mlp"))


def _glm4_moe(config: Mapping[str, Any], source: str, arch: str) -> ModelSpec:
    """GLM-4.5 / 4.6 / 4.5-Air: GQA with partial rope (rope changes no weight), optional q/k norms, qkv bias,
    first_k_dense_replace dense layers, then sigmoid-routed experts plus shared experts; the MTP (NextN) layers
    the checkpoint appends after the last decoder layer are counted as component 'mtp'."""
    r = _Reader(config, arch)
    r.need("num_hidden_layers", "n_routed_experts", "num_experts_per_tok", "moe_intermediate_size")
    hidden, inter, heads, kv_heads, head_dim, vocab = _dense_sizes(r)
    layers = r.integer("num_hidden_layers")
    experts = r.integer("n_routed_experts")
    per_tok = r.integer("num_experts_per_tok")
    if per_tok > experts:
        raise _fail(arch, f"num_experts_per_tok {per_tok} exceeds n_routed_experts {experts}")
    sizes = {
        "hidden": hidden,
        "inter": inter,
        "heads": heads,
        "kv_heads": kv_heads,
        "head_dim": head_dim,
        "experts": experts,
        "per_tok": per_tok,
        "moe_inter": r.integer("moe_intermediate_size"),
        "shared": r.integer("n_shared_experts", 1, minimum=0),  # transformers' default: one shared expert
        "first_dense": r.integer("first_k_dense_replace", 1, minimum=0),  # transformers' default
    }
    mtp_layers = r.integer("num_nextn_predict_layers", 0, minimum=0)
    tied = r.flag("tie_word_embeddings")
    t = _Tensors()
    t.add("model.embed_tokens.weight", (vocab, hidden), "embedding")
    for i in range(layers):
        _glm4_moe_layer(t, r, i, f"model.layers.{i}.", sizes)
    _norm_and_head(t, hidden, vocab, tied)
    for k in range(mtp_layers):
        p = f"model.layers.{layers + k}."
        t.add(f"{p}embed_tokens.weight", (vocab, hidden), "mtp")
        t.add(f"{p}enorm.weight", (hidden,), "mtp")
        t.add(f"{p}hnorm.weight", (hidden,), "mtp")
        t.add(f"{p}eh_proj.weight", (hidden, 2 * hidden), "mtp")
        _glm4_moe_layer(t, r, layers + k, p, sizes, only="mtp")
        t.add(f"{p}shared_head.norm.weight", (hidden,), "mtp")
        t.add(f"{p}shared_head.head.weight", (vocab, hidden), "mtp")
    notes = []
    if mtp_layers:
        notes.append(
            f"{mtp_layers} MTP layer(s) (model.layers.{layers}+) counted under component 'mtp', with their own "
            "embed_tokens and shared_head.head as GLM-4.5 and GLM-4.5-Air store them; GLM-4.6 checkpoints leave "
            "those two out (the engines reuse the main model's), which a header check shows as absent."
        )
    if tied:
        notes.append("lm_head is tied to the embedding (not stored separately).")
    return _target_spec(
        t,
        config,
        source=source,
        arch=arch or "Glm4MoeForCausalLM",
        dialect="glm4-moe",
        hidden=hidden,
        vocab=vocab,
        layers=layers,
        tied=tied,
        notes=notes,
        num_experts=experts,
        experts_per_token=per_tok,
        common=config,
    )


def _indexer_types(config: Mapping[str, Any], arch: str, layers: int) -> list[str]:
    """Which layers run their own DSA indexer ("full") and which reuse the previous one's top-k ("shared"), read
    the way transformers 5.23.0 GlmMoeDsaConfig.__post_init__ reads it: indexer_types, else index_topk_pattern,
    else every index_topk_freq-th layer from index_skip_topk_offset (defaults: every layer)."""
    given = config.get("indexer_types")
    if given is None and config.get("index_topk_pattern") is not None:
        pattern = config.get("index_topk_pattern")
        if isinstance(pattern, str):
            if set(pattern) - {"F", "S"}:
                raise _fail(arch, f"index_topk_pattern must use only F and S, got {pattern[:40]!r}")
            given = [{"F": "full", "S": "shared"}[ch] for ch in pattern]
        else:
            given = pattern
    if given is not None:
        if not isinstance(given, (list, tuple)) or any(v not in ("full", "shared") for v in given):
            raise _fail(arch, "indexer_types must be a list of 'full' / 'shared'")
        if len(given) < layers:
            raise _fail(arch, f"indexer_types lists {len(given)} layers, the model has {layers}")
        return list(given)
    r = _Reader(config, arch)
    freq = r.integer("index_topk_freq", 1)
    offset = r.integer("index_skip_topk_offset", 2, minimum=0)
    return ["full" if max(i - offset + 1, 0) % freq == 0 else "shared" for i in range(layers)]


class _GlmDsa(_DeepSeek):
    """GLM-5: DeepSeek-V3.2 layers (MLA with q LoRA, a DSA indexer per 'full' layer), its MoE always with the
    router correction bias; dense layers from mlp_layer_types, else first_k_dense_replace."""

    def __init__(self, config: Mapping[str, Any], arch: str) -> None:
        super().__init__(config, arch)
        self.r.need("q_lora_rank", "n_routed_experts", "index_n_heads", "index_head_dim")
        self.correction_bias = True
        # transformers 5.23.0 GlmMoeDsaConfig's defaults where DeepSeek's differ
        if config.get("first_k_dense_replace") is None:
            self.first_dense = 3
        if config.get("n_shared_experts") is None:
            self.shared = 1
        self.index_heads = self.r.integer("index_n_heads")
        self.index_dim = self.r.integer("index_head_dim")
        self.indexers = _indexer_types(config, arch, self.layers)
        raw = config.get("mlp_layer_types")
        if raw is not None and (
            not isinstance(raw, (list, tuple))
            or len(raw) < self.layers
            or any(v not in ("dense", "sparse") for v in raw)
        ):
            raise _fail(arch, f"mlp_layer_types must list 'dense' / 'sparse' for each of the {self.layers} layers")
        self.mlp_types: list[str] | None = list(raw) if raw is not None else None

    def is_moe(self, idx: int) -> bool:
        if self.mlp_types is not None and idx < len(self.mlp_types):
            return self.mlp_types[idx] == "sparse"
        return super().is_moe(idx)

    def layer(self, t: _Tensors, idx: int, prefix: str, only: str | None = None, **kw: Any) -> None:
        super().layer(t, idx, prefix, only=only, **kw)
        # MTP layers (idx past the decoder) have no previous layer to share with: their own indexer
        if idx < self.layers and self.indexers[idx] != "full":
            return
        assert self.q_lora
        comp = only or "attention"
        x = f"{prefix}self_attn.indexer."
        t.linear(f"{x}wq_b", self.index_heads * self.index_dim, self.q_lora, comp, **kw)
        t.linear(f"{x}wk", self.index_dim, self.hidden, comp, **kw)
        t.add(f"{x}k_norm.weight", (self.index_dim,), comp, **kw)  # a LayerNorm: weight and bias
        t.add(f"{x}k_norm.bias", (self.index_dim,), comp, **kw)
        t.linear(f"{x}weights_proj", self.index_heads, self.hidden, comp, **kw)


def _glm_moe_dsa(config: Mapping[str, Any], source: str, arch: str) -> ModelSpec:
    d = _GlmDsa(config, arch)
    shared = d.indexers[: d.layers].count("shared")
    notes = []
    if d.mtp_layers:
        notes.append(
            f"{d.mtp_layers} MTP layer(s) (model.layers.{d.layers}+) counted under component 'mtp', each with its "
            "own DSA indexer and, as DeepSeek-V3 stores them, its own embed_tokens and shared_head.head; a release "
            "that leaves those two out (the engines then reuse the main model's) shows them absent in a header check."
        )
    if shared:
        notes.append(f"{shared} layer(s) reuse the previous layer's DSA top-k and have no indexer weights.")
    return _mla_target(d, config, source, arch, dialect="glm-moe-dsa", notes=notes)


def _minimax_m2(config: Mapping[str, Any], source: str, arch: str) -> ModelSpec:
    """MiniMax-M2: GQA with q/k RMSNorms over all heads at once (sizes heads x head_dim), every layer a
    block_sparse_moe of w1/w3/w2 experts (intermediate_size is the expert width) with a sigmoid router and its
    e_score_correction_bias; no shared experts, no dense layers."""
    r = _Reader(config, arch)
    r.need("num_hidden_layers", "num_local_experts", "num_experts_per_tok")
    hidden, inter, heads, kv_heads, head_dim, vocab = _dense_sizes(r)
    layers = r.integer("num_hidden_layers")
    experts = r.integer("num_local_experts")
    per_tok = r.integer("num_experts_per_tok")
    if per_tok > experts:
        raise _fail(arch, f"num_experts_per_tok {per_tok} exceeds num_local_experts {experts}")
    tied = r.flag("tie_word_embeddings")
    frac = per_tok / experts
    t = _Tensors()
    t.add("model.embed_tokens.weight", (vocab, hidden), "embedding")
    for i in range(layers):
        p = f"model.layers.{i}."
        t.add(f"{p}input_layernorm.weight", (hidden,), "norm")
        _attention(t, p, hidden=hidden, heads=heads, kv_heads=kv_heads, head_dim=head_dim, in_dim=hidden)
        t.add(f"{p}self_attn.q_norm.weight", (heads * head_dim,), "norm")
        t.add(f"{p}self_attn.k_norm.weight", (kv_heads * head_dim,), "norm")
        t.add(f"{p}post_attention_layernorm.weight", (hidden,), "norm")
        m = f"{p}block_sparse_moe."
        t.add(f"{m}gate.weight", (experts, hidden), "router")
        t.add(f"{m}e_score_correction_bias", (experts,), "router", trainable=False)
        for e in range(experts):
            q = f"{m}experts.{e}."
            t.linear(f"{q}w1", inter, hidden, "experts", active_fraction=frac)
            t.linear(f"{q}w2", hidden, inter, "experts", active_fraction=frac)
            t.linear(f"{q}w3", inter, hidden, "experts", active_fraction=frac)
    _norm_and_head(t, hidden, vocab, tied)
    notes = []
    mtp_modules = config.get("num_mtp_modules")  # read for the note only: a bad value changes no count
    if config.get("use_mtp") is True and isinstance(mtp_modules, int) and mtp_modules > 0:
        notes.append(
            f"the config declares {mtp_modules} MTP module(s), but the published checkpoint has no MTP weights "
            "(both engines skip model.layers.N+ when loading): they are not counted."
        )
    if tied:
        notes.append("lm_head is tied to the embedding (not stored separately).")
    return _target_spec(
        t,
        config,
        source=source,
        arch=arch or "MiniMaxM2ForCausalLM",
        dialect="minimax-m2",
        hidden=hidden,
        vocab=vocab,
        layers=layers,
        tied=tied,
        notes=notes,
        num_experts=experts,
        experts_per_token=per_tok,
        common=config,
    )


# ---- Ling / Ring (BailingMoe v1 and BailingMoeV2) -----------------------------------------------------------------
# The checkpoints are written for the publisher's remote code: inclusionAI/Ling-V2 models/modeling_bailing_moe_v2.py
# (v2, commit af8837e) and inclusionAI/Ling models/modeling_bailing_moe.py (v1, commit 5ccaeae). SGLang 0.5.23 and
# vLLM 0.34.0 load both classes with one file, models/bailing_moe.py. Lines below are those files'.

_BAILING_V1 = "BailingMoeForCausalLM"


def _bailing_moe(config: Mapping[str, Any], source: str, arch: str) -> ModelSpec:
    """Ling / Ring: GQA through one fused ``query_key_value`` (+ ``dense`` out), optional q/k RMSNorms over a head
    (``query_layernorm`` / ``key_layernorm``), ``first_k_dense_replace`` dense layers, then MoE layers of
    ``num_experts`` SwiGLU experts, a router ``gate`` (with the sigmoid router's ``expert_bias`` in v2) and
    ``num_shared_experts`` shared experts fused into one MLP; v2 appends ``num_nextn_predict_layers`` MTP layers.

    Defaults are the config classes' (v2: Ling-V2 configuration_bailing_moe_v2.py, q/k norm and expert bias on,
    no MTP; v1: Ling configuration_bailing_moe.py, neither, and ``use_bias`` on), as the remote code reads them."""
    arch = arch or "BailingMoeV2ForCausalLM"
    v2 = arch != _BAILING_V1
    r = _Reader(config, arch)
    r.need("hidden_size", "num_attention_heads", "num_hidden_layers", "vocab_size")
    hidden = r.integer("hidden_size")
    heads = r.integer("num_attention_heads")
    kv_heads = r.integer("num_key_value_heads", heads)
    if heads % kv_heads:
        raise _fail(arch, f"num_attention_heads {heads} is not a multiple of num_key_value_heads {kv_heads}")
    head_dim = _head_dim(r, hidden, heads)
    layers = r.integer("num_hidden_layers")
    vocab = r.integer("vocab_size")
    first_dense = r.integer("first_k_dense_replace", 1 if v2 else 0, minimum=0)
    experts = r.integer("num_experts", 256 if v2 else 16)
    per_tok = r.integer("num_experts_per_tok", 8 if v2 else 2)
    if per_tok > experts:
        raise _fail(arch, f"num_experts_per_tok {per_tok} exceeds num_experts {experts}")
    mtp_layers = r.integer("num_nextn_predict_layers", 0, minimum=0) if v2 else 0
    moe = first_dense < layers or mtp_layers > 0  # an MTP layer is always MoE (modeling_bailing_moe_v2.py:879)
    # v1's config class has no default widths (None): its releases state them
    inter = r.integer("intermediate_size", 5120 if v2 else None) if first_dense else 0
    moe_inter = r.integer("moe_intermediate_size", 512 if v2 else None) if moe else 0
    shared = r.integer("num_shared_experts", 1 if v2 else 0, minimum=0)
    # SGLang bailing_moe.py:331-336 and vLLM bailing_moe.py:280-285 size the shared MLP by
    # moe_shared_expert_intermediate_size when the config has it (the Ling 2.0 releases do, equal to
    # moe_intermediate_size); the remote code (modeling_bailing_moe_v2.py:363-365) by moe_intermediate_size
    shared_inter = r.integer("moe_shared_expert_intermediate_size", moe_inter) * shared if moe and shared else 0
    qk_norm = r.flag("use_qk_norm", True) if v2 else False  # v1 has none (modeling_bailing_moe.py:492-497)
    expert_bias = r.flag("moe_router_enable_expert_bias", True) if v2 else False
    # modeling_bailing_moe_v2.py:467-476: query_key_value's bias is use_qkv_bias, dense's use_bias; the MLPs have
    # none (:278-280). (The engines add use_bias to the qkv and MLP biases too: no release sets it.)
    qkv_bias = r.flag("use_qkv_bias")
    dense_bias = r.flag("use_bias", not v2)
    tied = r.flag("tie_word_embeddings")
    frac = per_tok / experts

    def layer(idx: int, prefix: str, only: str | None = None) -> None:
        def c(name: str) -> str:
            return only or name

        h = hidden
        t.add(f"{prefix}input_layernorm.weight", (h,), c("norm"))
        a = f"{prefix}attention."
        t.linear(f"{a}query_key_value", (heads + 2 * kv_heads) * head_dim, h, c("attention"), bias=qkv_bias)
        if qk_norm:
            t.add(f"{a}query_layernorm.weight", (head_dim,), c("norm"))
            t.add(f"{a}key_layernorm.weight", (head_dim,), c("norm"))
        t.linear(f"{a}dense", h, heads * head_dim, c("attention"), bias=dense_bias)
        t.add(f"{prefix}post_attention_layernorm.weight", (h,), c("norm"))
        m = f"{prefix}mlp."
        if idx < first_dense:  # modeling_bailing_moe_v2.py:948-952 (an MTP layer is always MoE: :879)
            _mlp(t, m, h, inter, component=c("mlp"))
            return
        t.add(f"{m}gate.weight", (experts, h), c("router"))
        if expert_bias:  # a persistent float32 buffer (:302), stored; SGLang / vLLM load it as a parameter
            t.add(f"{m}gate.expert_bias", (experts,), c("router"), trainable=False)
        t.repeat(
            f"{m}experts.", experts, lambda q: _mlp(t, q, h, moe_inter, component=c("experts"), active_fraction=frac)
        )
        if shared_inter:  # num_shared_experts 0 builds a zero-width MLP: nothing stored
            _mlp(t, f"{m}shared_experts.", h, shared_inter, component=c("mlp"))

    t = _Tensors()
    t.add("model.word_embeddings.weight", (vocab, hidden), "embedding")
    for i in range(layers):
        layer(i, f"model.layers.{i}.")
    _norm_and_head(t, hidden, vocab, tied)
    for k in range(mtp_layers):
        # BailingMoeV2MTPLayer (:869-882) at model.layers.N+k, the index SGLang's NextN loader reads
        # (bailing_moe.py:970); it shares the word embeddings and lm_head (no copies: :1014 skips any)
        p = f"model.layers.{layers + k}."
        t.add(f"{p}enorm.weight", (hidden,), "mtp")
        t.add(f"{p}hnorm.weight", (hidden,), "mtp")
        t.add(f"{p}eh_proj.weight", (hidden, 2 * hidden), "mtp")
        layer(max(layers + k, first_dense), p, only="mtp")
        t.add(f"{p}final_layernorm.weight", (hidden,), "mtp")
    notes = []
    if mtp_layers:
        notes.append(
            f"{mtp_layers} MTP layer(s) (model.layers.{layers}+) counted under component 'mtp'; they share the word "
            "embeddings and lm_head. Ling 2.0 base releases store one; the chat releases store none and leave "
            "num_nextn_predict_layers out."
        )
    if tied:
        notes.append("lm_head is tied to the embedding (not stored separately).")
    return _target_spec(
        t,
        config,
        source=source,
        arch=arch,
        dialect="bailing-moe",
        hidden=hidden,
        vocab=vocab,
        layers=layers,
        tied=tied,
        notes=notes,
        num_experts=experts if moe else None,
        experts_per_token=per_tok if moe else None,
        common=config,
    )


# ---- Gemma-3, Llama-4, Qwen3-Next (read the whole config: text_config and vision_config) ------


def _sub_reader(config: Mapping[str, Any], key: str, arch: str) -> _Reader:
    """A reader over ``config[key]`` (an absent one reads as {} so transformers' defaults apply)."""
    value = config.get(key)
    if value is not None and not isinstance(value, Mapping):
        raise _fail(arch, f"{key} must be an object, got {type(value).__name__}")
    return _Reader(value or {}, arch, f"{key}.")


def _int_list(config: Mapping[str, Any], name: str, arch: str) -> list[int] | None:
    raw = config.get(name)
    if raw is None:
        return None
    if not isinstance(raw, (list, tuple)) or not all(isinstance(v, int) and not isinstance(v, bool) for v in raw):
        raise _fail(arch, f"{name} must be a list of integers, got {str(raw)[:80]}")
    return list(raw)


def _patches(r: _Reader) -> tuple[int, int]:
    """Patch side and patch count per image side of a vision config (square images only, as shipped)."""
    image, patch = r.integer("image_size"), r.integer("patch_size")
    if image < patch:
        raise _fail(r.arch, f"{r.where}image_size {image} is smaller than {r.where}patch_size {patch}")
    return patch, image // patch


def _siglip_tower(t: _Tensors, r: _Reader, prefix: str) -> int:
    """Gemma-3's SigLIP vision tower as the released checkpoints name it; returns its width.
    Defaults are transformers' SiglipVisionConfig (Gemma3Config builds one when vision_config is absent)."""
    h = r.integer("hidden_size", 768)
    inter = r.integer("intermediate_size", 3072)
    layers = r.integer("num_hidden_layers", 12)
    channels = r.integer("num_channels", 3)
    defaults = {"image_size": 224, "patch_size": 16}
    patch, side = _patches(
        _Reader({**defaults, **{k: v for k, v in r.data.items() if v is not None}}, r.arch, r.where)
    )
    v = "vision"
    e = f"{prefix}embeddings."
    t.add(f"{e}patch_embedding.weight", (h, channels, patch, patch), v)
    t.add(f"{e}patch_embedding.bias", (h,), v)
    t.add(f"{e}position_embedding.weight", (side * side, h), v)
    for i in range(layers):
        p = f"{prefix}encoder.layers.{i}."
        t.add(f"{p}layer_norm1.weight", (h,), v)
        t.add(f"{p}layer_norm1.bias", (h,), v)
        for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
            t.linear(f"{p}self_attn.{proj}", h, h, v, bias=True)
        t.add(f"{p}layer_norm2.weight", (h,), v)
        t.add(f"{p}layer_norm2.bias", (h,), v)
        t.linear(f"{p}mlp.fc1", inter, h, v, bias=True)
        t.linear(f"{p}mlp.fc2", h, inter, v, bias=True)
    t.add(f"{prefix}post_layernorm.weight", (h,), v)
    t.add(f"{prefix}post_layernorm.bias", (h,), v)
    if r.flag("vision_use_head", True):  # Gemma-3 releases set it false; SigLIP's default builds the pooling head
        q = f"{prefix}head."
        t.add(f"{q}probe", (1, 1, h), v)
        t.add(f"{q}attention.in_proj_weight", (3 * h, h), v)
        t.add(f"{q}attention.in_proj_bias", (3 * h,), v)
        t.linear(f"{q}attention.out_proj", h, h, v, bias=True)
        t.add(f"{q}layernorm.weight", (h,), v)
        t.add(f"{q}layernorm.bias", (h,), v)
        t.linear(f"{q}mlp.fc1", inter, h, v, bias=True)
        t.linear(f"{q}mlp.fc2", h, inter, v, bias=True)
    return h


def _gemma3(config: Mapping[str, Any], source: str, arch: str) -> ModelSpec:
    """Gemma-3: text-only (1B, Gemma3ForCausalLM) or with a SigLIP tower and projector (4B-27B). Defaults are
    transformers 5.23.0's Gemma3TextConfig, so a release config that leaves fields out counts as it loads."""
    inner, multimodal = _text_config(config)
    arch = arch or ("Gemma3ForConditionalGeneration" if multimodal else "Gemma3ForCausalLM")
    r = _Reader(inner, arch, "text_config." if multimodal else "")
    hidden = r.integer("hidden_size", 2304)
    inter = r.integer("intermediate_size", 9216)
    layers = r.integer("num_hidden_layers", 26)
    heads = r.integer("num_attention_heads", 8)
    kv_heads = r.integer("num_key_value_heads", 4)
    head_dim = r.integer("head_dim", 256)
    vocab = r.integer("vocab_size", 262_208)
    bias = r.flag("attention_bias")
    # the multimodal class ties its lm_head by the top-level flag alone (default true), whatever text_config says
    tied = (_Reader(config, arch) if multimodal else r).flag("tie_word_embeddings", True)
    t = _Tensors()
    notes: list[str] = []
    if multimodal:
        vr = _sub_reader(config, "vision_config", arch)
        v_hidden = _siglip_tower(t, vr, "vision_tower.vision_model.")
        t.add("multi_modal_projector.mm_input_projection_weight", (v_hidden, hidden), "vision")
        t.add("multi_modal_projector.mm_soft_emb_norm.weight", (v_hidden,), "vision")
        notes.append(
            "vision tower (SigLIP) and projector are counted under component 'vision'; a draft shares only the "
            "language model's embedding (an EAGLE-3 head keeps its own lm_head), never the vision tower."
        )
    t.add("model.embed_tokens.weight", (vocab, hidden), "embedding")
    for i in range(layers):
        p = f"model.layers.{i}."
        t.add(f"{p}input_layernorm.weight", (hidden,), "norm")
        _attention(
            t,
            p,
            hidden=hidden,
            heads=heads,
            kv_heads=kv_heads,
            head_dim=head_dim,
            in_dim=hidden,
            qkv_bias=bias,
            o_bias=bias,
            qk_norm=True,
        )
        t.add(f"{p}post_attention_layernorm.weight", (hidden,), "norm")
        t.add(f"{p}pre_feedforward_layernorm.weight", (hidden,), "norm")
        t.add(f"{p}post_feedforward_layernorm.weight", (hidden,), "norm")
        _mlp(t, f"{p}mlp.", hidden, inter)
    _norm_and_head(t, hidden, vocab, tied)
    if tied:
        notes.append("lm_head is tied to the embedding (not stored separately); the embedding scale is not a weight.")
    return _target_spec(
        t,
        config,
        source=source,
        arch=arch,
        dialect="gemma3",
        hidden=hidden,
        vocab=vocab,
        layers=layers,
        tied=tied,
        notes=notes,
        common=inner,
    )


def _llama4_vision(t: _Tensors, r: _Reader, text_hidden: int) -> None:
    """Llama-4's vision encoder, pixel-shuffle adapter and projector (transformers' Llama4VisionConfig defaults)."""
    h = r.integer("hidden_size", 768)
    inter = r.integer("intermediate_size", 5632)
    layers = r.integer("num_hidden_layers", 34)
    channels = r.integer("num_channels", 3)
    defaults = {"image_size": 448, "patch_size": 14}
    r = _Reader({**defaults, **{k: v for k, v in r.data.items() if v is not None}}, r.arch, r.where)
    patch, side = _patches(r)
    v = "vision"
    x = "vision_model."
    t.add(f"{x}class_embedding", (h,), v)
    t.add(f"{x}positional_embedding_vlm", (side * side + 1, h), v)
    t.linear(f"{x}patch_embedding.linear", h, channels * patch * patch, v)
    for norm in ("layernorm_pre", "layernorm_post"):
        t.add(f"{x}{norm}.weight", (h,), v)
        t.add(f"{x}{norm}.bias", (h,), v)
    for i in range(layers):
        p = f"{x}model.layers.{i}."
        for proj in ("q_proj", "k_proj", "v_proj", "o_proj"):
            t.linear(f"{p}self_attn.{proj}", h, h, v, bias=True)
        t.linear(f"{p}mlp.fc1", inter, h, v, bias=True)
        t.linear(f"{p}mlp.fc2", h, inter, v, bias=True)
        for norm in ("input_layernorm", "post_attention_layernorm"):
            t.add(f"{p}{norm}.weight", (h,), v)
            t.add(f"{p}{norm}.bias", (h,), v)
    proj_in = r.integer("projector_input_dim", 4096)
    proj_out = r.integer("projector_output_dim", 4096)
    t.linear(f"{x}vision_adapter.mlp.fc1", proj_in, inter, v)
    t.linear(f"{x}vision_adapter.mlp.fc2", proj_out, proj_out, v)
    t.linear("multi_modal_projector.linear_1", text_hidden, r.integer("vision_output_dim", 7680), v)


def _llama4(config: Mapping[str, Any], source: str, arch: str) -> ModelSpec:
    """Llama-4 Scout / Maverick: MoE layers (fused routed experts + a shared expert) interleaved with dense
    ones (``moe_layers``, else every ``interleave_moe_layer_step``-th); NoPE layers and the L2 qk-norm hold no
    weights. Defaults are transformers 5.23.0's Llama4TextConfig / Llama4VisionConfig."""
    inner, multimodal = _text_config(config)
    arch = arch or ("Llama4ForConditionalGeneration" if multimodal else "Llama4ForCausalLM")
    r = _Reader(inner, arch, "text_config." if multimodal else "")
    hidden = r.integer("hidden_size", 5120)
    inter = r.integer("intermediate_size", 8192)  # routed and shared experts
    inter_mlp = r.integer("intermediate_size_mlp", 16384)  # dense layers
    layers = r.integer("num_hidden_layers", 48)
    heads = r.integer("num_attention_heads", 40)
    kv_heads = r.integer("num_key_value_heads", heads)
    head_dim = _head_dim(r, hidden, heads)
    vocab = r.integer("vocab_size", 202_048)
    experts = r.integer("num_local_experts", 16)
    per_tok = r.integer("num_experts_per_tok", 1)
    if per_tok > experts:
        raise _fail(arch, f"num_experts_per_tok {per_tok} exceeds num_local_experts {experts}")
    bias = r.flag("attention_bias")
    moe_layers = _int_list(inner, "moe_layers", arch)
    if moe_layers is None:
        step = r.integer("interleave_moe_layer_step", 1)
        moe_layers = list(range(step - 1, layers, step))
    moe = set(moe_layers)
    tied = r.flag("tie_word_embeddings")  # the language model's own flag: transformers ignores the top-level one
    t = _Tensors()
    notes: list[str] = []
    if multimodal:
        _llama4_vision(t, _sub_reader(config, "vision_config", arch), hidden)
        notes.append(
            "vision encoder, adapter and projector are counted under component 'vision'; a draft shares only the "
            "language model's embedding (an EAGLE-3 head keeps its own lm_head), never the vision tower."
        )
    t.add("model.embed_tokens.weight", (vocab, hidden), "embedding")
    frac = per_tok / experts
    for i in range(layers):
        p = f"model.layers.{i}."
        _attention(
            t,
            p,
            hidden=hidden,
            heads=heads,
            kv_heads=kv_heads,
            head_dim=head_dim,
            in_dim=hidden,
            qkv_bias=bias,
            o_bias=bias,
        )
        f = f"{p}feed_forward."
        if i in moe:
            t.add(f"{f}experts.gate_up_proj", (experts, hidden, 2 * inter), "experts", active_fraction=frac)
            t.add(f"{f}experts.down_proj", (experts, inter, hidden), "experts", active_fraction=frac)
            t.linear(f"{f}router", experts, hidden, "router")
            _mlp(t, f"{f}shared_expert.", hidden, inter)
        else:
            _mlp(t, f, hidden, inter_mlp)
        t.add(f"{p}input_layernorm.weight", (hidden,), "norm")
        t.add(f"{p}post_attention_layernorm.weight", (hidden,), "norm")
    _norm_and_head(t, hidden, vocab, tied)
    if tied:
        notes.append("lm_head is tied to the embedding (not stored separately).")
    return _target_spec(
        t,
        config,
        source=source,
        arch=arch,
        dialect="llama4",
        hidden=hidden,
        vocab=vocab,
        layers=layers,
        tied=tied,
        notes=notes,
        num_experts=experts,
        experts_per_token=per_tok,
        common=inner,
    )


_QWEN3_NEXT_EXPERT_MLPS_MAX = 1_000_000


class _Qwen3Next:
    """Qwen3-Next sizes (transformers 5.23.0's Qwen3NextConfig defaults) and one decoder layer."""

    def __init__(self, config: Mapping[str, Any], arch: str) -> None:
        r = _Reader(config, arch)
        self.r, self.arch = r, arch
        self.hidden = r.integer("hidden_size", 2048)
        self.inter = r.integer("intermediate_size", 5632)
        self.layers = r.integer("num_hidden_layers", 48)
        self.heads = r.integer("num_attention_heads", 16)
        self.kv_heads = r.integer("num_key_value_heads", 2)
        self.head_dim = r.integer("head_dim", 256)
        self.vocab = r.integer("vocab_size", 151_936)
        self.bias = r.flag("attention_bias")
        self.k_heads = r.integer("linear_num_key_heads", 16)
        self.v_heads = r.integer("linear_num_value_heads", 32)
        self.k_dim = r.integer("linear_key_head_dim", 128)
        self.v_dim = r.integer("linear_value_head_dim", 128)
        self.kernel = r.integer("linear_conv_kernel_dim", 4)
        self.experts = r.integer("num_experts", 512, minimum=0)
        self.per_tok = r.integer("num_experts_per_tok", 10)
        if self.experts and self.per_tok > self.experts:
            raise _fail(arch, f"num_experts_per_tok {self.per_tok} exceeds num_experts {self.experts}")
        self.moe_inter = r.integer("moe_intermediate_size", 512)
        self.shared_inter = r.integer("shared_expert_intermediate_size", 512, minimum=0)
        self.step = r.integer("decoder_sparse_step", 1)
        self.mlp_only = set(_int_list(config, "mlp_only_layers", arch) or [])
        types = config.get("layer_types")
        if types is None:
            interval = r.integer("full_attention_interval", 4)
            types = ["linear_attention" if (i + 1) % interval else "full_attention" for i in range(self.layers)]
        if (
            not isinstance(types, (list, tuple))
            or len(types) != self.layers
            or not set(types) <= {"linear_attention", "full_attention"}
        ):
            raise _fail(
                arch,
                f"layer_types must list {self.layers} entries of 'linear_attention' / 'full_attention', "
                f"got {str(types)[:80]}",
            )
        self.types = list(types)
        # The release stores one MTP layer (mtp.*) that transformers skips on load (modeling_qwen3_next.py:947,
        # _keys_to_ignore_on_load_unexpected = [r"^mtp.*"]); the config does not always say so.
        explicit = r.opt_integer("num_nextn_predict_layers", minimum=0)
        if explicit is None:
            explicit = r.opt_integer("mtp_num_hidden_layers", minimum=0)
        self.mtp_layers = 1 if explicit is None else explicit
        # experts are stored one by one: bound the tensor list before building it (the release has 49 x 512)
        slots = (self.layers + self.mtp_layers) * self.experts
        if slots > _QWEN3_NEXT_EXPERT_MLPS_MAX:
            raise _fail(
                arch,
                f"(num_hidden_layers + MTP layers) x num_experts = {slots:,} expert MLPs is implausibly large "
                f"(limit {_QWEN3_NEXT_EXPERT_MLPS_MAX:,}); check the config",
            )

    def layer(self, t: _Tensors, idx: int, prefix: str, kind: str, only: str | None = None) -> None:
        def c(name: str) -> str:
            return only or name

        h = self.hidden
        t.add(f"{prefix}input_layernorm.weight", (h,), c("norm"))
        if kind == "linear_attention":  # gated DeltaNet
            a = f"{prefix}linear_attn."
            key, value = self.k_heads * self.k_dim, self.v_heads * self.v_dim
            t.add(f"{a}dt_bias", (self.v_heads,), c("attention"))
            t.add(f"{a}A_log", (self.v_heads,), c("attention"))
            t.add(f"{a}conv1d.weight", (2 * key + value, 1, self.kernel), c("attention"))
            t.linear(f"{a}in_proj_qkvz", 2 * key + 2 * value, h, c("attention"))
            t.linear(f"{a}in_proj_ba", 2 * self.v_heads, h, c("attention"))
            t.add(f"{a}norm.weight", (self.v_dim,), c("norm"))
            t.linear(f"{a}out_proj", h, value, c("attention"))
        else:  # gated full attention: q_proj also yields the output gate
            a = f"{prefix}self_attn."
            t.linear(f"{a}q_proj", 2 * self.heads * self.head_dim, h, c("attention"), bias=self.bias)
            t.linear(f"{a}k_proj", self.kv_heads * self.head_dim, h, c("attention"), bias=self.bias)
            t.linear(f"{a}v_proj", self.kv_heads * self.head_dim, h, c("attention"), bias=self.bias)
            t.linear(f"{a}o_proj", h, self.heads * self.head_dim, c("attention"), bias=self.bias)
            t.add(f"{a}q_norm.weight", (self.head_dim,), c("norm"))
            t.add(f"{a}k_norm.weight", (self.head_dim,), c("norm"))
        t.add(f"{prefix}post_attention_layernorm.weight", (h,), c("norm"))
        m = f"{prefix}mlp."
        if idx in self.mlp_only or not self.experts or (idx + 1) % self.step:
            _mlp(t, m, h, self.inter, component=c("mlp"))
            return
        frac = self.per_tok / self.experts
        t.add(f"{m}gate.weight", (self.experts, h), c("router"))
        for e in range(self.experts):
            _mlp(t, f"{m}experts.{e}.", h, self.moe_inter, component=c("experts"), active_fraction=frac)
        if self.shared_inter:  # 0 builds empty shared-expert weights: nothing stored
            _mlp(t, f"{m}shared_expert.", h, self.shared_inter, component=c("mlp"))
        t.add(f"{m}shared_expert_gate.weight", (1, h), c("router"))


def _qwen3_next(config: Mapping[str, Any], source: str, arch: str) -> ModelSpec:
    """Qwen3-Next: gated-DeltaNet linear-attention layers with a gated full-attention layer every
    ``full_attention_interval``, sparse MoE with a gated shared expert, and the stored MTP module."""
    inner, _ = _text_config(config)
    arch = arch or "Qwen3NextForCausalLM"
    q = _Qwen3Next(inner, arch)
    h = q.hidden
    t = _Tensors()
    t.add("model.embed_tokens.weight", (q.vocab, h), "embedding")
    for i in range(q.layers):
        q.layer(t, i, f"model.layers.{i}.", q.types[i])
    tied = q.r.flag("tie_word_embeddings")
    _norm_and_head(t, h, q.vocab, tied)
    if q.mtp_layers:
        t.add("mtp.fc.weight", (h, 2 * h), "mtp")
        t.add("mtp.pre_fc_norm_embedding.weight", (h,), "mtp")
        t.add("mtp.pre_fc_norm_hidden.weight", (h,), "mtp")
        for k in range(q.mtp_layers):
            q.layer(t, q.layers + k, f"mtp.layers.{k}.", "full_attention", only="mtp")
        t.add("mtp.norm.weight", (h,), "mtp")
    notes = [
        f"{q.types.count('full_attention')} gated full-attention and {q.types.count('linear_attention')} gated "
        "DeltaNet (linear attention) layers."
    ]
    if q.mtp_layers:
        notes.append(
            f"{q.mtp_layers} MTP layer(s) (mtp.*, sharing the embedding and lm_head) counted under component 'mtp'; "
            "the Qwen release stores them, a checkpoint saved by transformers does not."
        )
    return _target_spec(
        t,
        config,
        source=source,
        arch=arch,
        dialect="qwen3-next",
        hidden=h,
        vocab=q.vocab,
        layers=q.layers,
        tied=tied,
        notes=notes,
        num_experts=q.experts or None,
        experts_per_token=q.per_tok if q.experts else None,
        common=inner,
    )


# dialects whose counter reads the whole config (text_config and vision_config) itself
_WHOLE_CONFIG_COUNTERS = {"gemma3": _gemma3, "llama4": _llama4, "qwen3-next": _qwen3_next}


# ---- dispatch ---------------------------------------------------------------------------------


def _text_config(config: Mapping[str, Any]) -> tuple[Mapping[str, Any], bool]:
    """The language-model part of a multimodal config (``text_config``), else the config itself."""
    inner = config.get("text_config")
    if isinstance(inner, Mapping) and config.get("hidden_size") is None:
        return inner, True
    return config, False


def _is_eagle3_shaped(config: Mapping[str, Any]) -> bool:
    return (
        config.get("draft_vocab_size") is not None
        or config.get("target_hidden_size") is not None
        or isinstance(config.get("eagle_config"), Mapping)
        or config.get("eagle_aux_hidden_state_layer_ids") is not None
    )


def detect_dialect(config: Mapping[str, Any]) -> str:
    """Which producer wrote this config (one of DIALECTS); ConfigError if none fits."""
    if not isinstance(config, Mapping):
        raise ConfigError(f"a model config must be a JSON object, got {type(config).__name__}")
    top_arch = _first_architecture(config)
    if config.get("speculators_model_type") is not None or top_arch == "Eagle3Speculator":
        return "speculators-eagle3"
    if config.get("medusa_num_heads") is not None or "medusa" in top_arch.lower():
        return "medusa"
    inner, nested = _text_config(config)
    arch = _first_architecture(inner) or top_arch
    model_type = str(inner.get("model_type") or config.get("model_type") or "")
    lowered = arch.lower()
    if "eagle" in lowered and ("deepseek" in lowered or "mla" in lowered):
        raise ConfigError(
            f"{arch} config: EAGLE drafts with MLA (DeepSeek-style) attention are not supported yet; "
            "only Llama-style EAGLE-3 heads are counted"
        )
    if "eagle3" in lowered:
        eagle_config = config.get("eagle_config")
        if isinstance(eagle_config, Mapping) and _MODELOPT_KEYS & set(eagle_config):
            return "modelopt-eagle3"
        return "specforge-eagle3"
    if "eagle" in lowered:
        return "eagle1"
    if "nextn" in lowered or "mtp" in lowered:
        return "mtp"
    dialect = _ARCHITECTURES.get(arch)
    if dialect is None and (not arch or nested):
        dialect = _MODEL_TYPES.get(str(inner.get("model_type") or ""))
    if dialect is None and not arch and model_type == "bailing_moe":
        raise ConfigError(
            "config has model_type 'bailing_moe' but no 'architectures': model_type 'bailing_moe' names both "
            "BailingMoeForCausalLM (Ling-lite / Ling-plus) and BailingMoeV2ForCausalLM (Ling / Ring 2.0), whose "
            "weights differ (q/k norms, router expert bias, MTP layers); give the config with its architectures"
        )
    if dialect == "llama" and inner.get("num_hidden_layers") == 1:
        if _is_eagle3_shaped(inner):
            eagle_config = inner.get("eagle_config")
            if isinstance(eagle_config, Mapping) and _MODELOPT_KEYS & set(eagle_config):
                return "modelopt-eagle3"
            return "eagle3-authors"
        return "eagle1"
    if dialect is None and not arch and _is_eagle3_shaped(inner):
        return "specforge-eagle3"  # bare EAGLE-3 head config (no architectures): same tensors
    if dialect is None:
        supported = (*sorted(_ARCHITECTURES), "LlamaForCausalLMEagle3", "Eagle3Speculator", "Medusa")
        name = arch or (f"model_type {model_type!r}" if model_type else "")
        if not name:
            raise UnsupportedArchitectureError(
                "config has no 'architectures' and no 'model_type': cannot tell which model it describes",
                architecture="",
                supported=supported,
            )
        raise UnsupportedArchitectureError(
            f"unsupported architecture {name}: the parameter counter has no rules for it",
            architecture=name,
            supported=supported,
        )
    return dialect


def parse_config(
    config: Mapping[str, Any],
    source: str = "",
    *,
    dialect: str | None = None,
    target: Mapping[str, Any] | None = None,
) -> ModelSpec:
    """Turn a config.json (any supported dialect) into the exact list of checkpoint tensors.

    ``dialect`` forces a reading when a config is ambiguous (e.g. a 1-layer LlamaForCausalLM that is an
    EAGLE-1 head); ``target`` supplies sizes a draft config leaves to its base model (Medusa-1).
    Pure: no I/O. Raises ConfigError for anything it cannot describe exactly.
    """
    if not isinstance(config, Mapping):
        raise ConfigError(f"a model config must be a JSON object, got {type(config).__name__}")
    if dialect is not None and dialect not in DIALECTS:
        raise ConfigError(f"unknown dialect {dialect!r}; choose one of {', '.join(DIALECTS)}")
    chosen = dialect or detect_dialect(config)
    top_arch = _first_architecture(config)
    inner, nested = _text_config(config)
    arch = top_arch or _first_architecture(inner)
    try:
        if chosen == "speculators-eagle3":
            return _speculators(config, source, arch)
        if chosen == "medusa":
            return _medusa(config, source, arch, target)
        if chosen in {"specforge-eagle3", "eagle3-authors", "modelopt-eagle3"}:
            return _eagle3(inner, source, arch, chosen)
        if chosen == "eagle1":
            return _eagle1(inner, source, arch)
        if chosen == "mtp":
            return _mtp_draft(inner, source, arch)
        if chosen in _WHOLE_CONFIG_COUNTERS:
            return _WHOLE_CONFIG_COUNTERS[chosen](config, source, arch)
        if chosen == "deepseek-v3":
            spec = _deepseek_target(inner, source, arch)
        elif chosen == "gpt-oss":
            spec = _gpt_oss(inner, source, arch)
        elif chosen == "glm4-moe":
            spec = _glm4_moe(inner, source, arch)
        elif chosen == "glm-moe-dsa":
            spec = _glm_moe_dsa(inner, source, arch)
        elif chosen == "minimax-m2":
            spec = _minimax_m2(inner, source, arch)
        elif chosen == "bailing-moe":
            spec = _bailing_moe(inner, source, arch)
        else:
            spec = _llama_like(inner, source, arch, chosen)
    except (TypeError, ValueError, AttributeError, KeyError) as exc:  # malformed nested values
        raise ConfigError(f"{arch or 'model'} config could not be read: {exc}") from exc
    if nested:
        from dataclasses import replace

        spec = replace(
            spec,
            raw_config=dict(config),
            notes=spec.notes + ("text model read from text_config; the vision encoder is not counted.",),
        )
    return spec


# --------------------------------------------------------------------------------------------
# Shipped target configs
# --------------------------------------------------------------------------------------------


def _targets_dir() -> Path:
    from comparelib.settings import BUILTIN_DIR

    return BUILTIN_DIR / "targets"


def known_targets() -> list[str]:
    """Hub ids of the target configs shipped with the app (work offline)."""
    folder = _targets_dir()
    if not folder.is_dir():
        return []
    return sorted(p.stem.replace("--", "/", 1) for p in folder.glob("*.json"))


def known_target(hub_id: str) -> Mapping[str, Any] | None:
    """The shipped config.json of a well-known target, or None (case-insensitive hub id)."""
    if not isinstance(hub_id, str) or not hub_id.strip():
        return None
    wanted = hub_id.strip().strip("/").lower()
    for name in known_targets():
        if name.lower() == wanted:
            path = _targets_dir() / (name.replace("/", "--", 1) + ".json")
            with path.open(encoding="utf-8") as fh:
                data = json.load(fh)
            return data if isinstance(data, dict) else None
    return None
