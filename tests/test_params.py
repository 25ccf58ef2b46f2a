"""Exact counts (golden numbers), components, memory, ratio, and reconciliation against real
safetensors files written by tests/checkpoints.py and read back with safetensors.safe_open."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from comparelib.errors import DataError, InputError
from comparelib.models import architectures as A
from comparelib.models import params as P
from comparelib.models.architectures import ModelSpec, parse_config
from tests.checkpoints import TINY_EAGLE3, TINY_LLAMA, TINY_SPECULATORS, read_header, write_checkpoint
from tests.fixtures import (
    EAGLE1_VICUNA,
    KIMI_EAGLE3,
    MEDUSA_VICUNA,
    TINY_DEEPSEEK,
    TINY_GEMMA3,
    TINY_LLAMA4,
    TINY_NESTED,
    TINY_QWEN3_NEXT,
    run_cli,
)

# SpecForge configs/llama3-8B-eagle3.json (lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge)
LLAMA31_8B_EAGLE3: dict[str, Any] = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 1,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "draft_vocab_size": 32000,
    "max_position_embeddings": 2048,
    "tie_word_embeddings": False,
    "torch_dtype": "float16",
    "rms_norm_eps": 1e-05,
}
# SpecForge configs/qwen3-8b-eagle3.json shape
QWEN3_8B_EAGLE3: dict[str, Any] = {
    **LLAMA31_8B_EAGLE3,
    "intermediate_size": 12288,
    "head_dim": 128,
    "vocab_size": 151936,
}
EAGLE1_LLAMA3_8B: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 1,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
}


@cache
def spec_of(key: str) -> ModelSpec:
    """Parse once per session: the trillion-parameter targets have ~70k tensors."""
    if "/" in key:
        cfg = A.known_target(key)
        assert cfg is not None
        return parse_config(cfg, source=key)
    configs = {
        "kimi-eagle3": KIMI_EAGLE3,
        "kimi-eagle3-full-vocab": {k: v for k, v in KIMI_EAGLE3.items() if k != "draft_vocab_size"},
        "llama31-8b-eagle3": LLAMA31_8B_EAGLE3,
        "qwen3-8b-eagle3": QWEN3_8B_EAGLE3,
        "eagle1-vicuna-13b": EAGLE1_VICUNA,
        "eagle1-llama3-8b": EAGLE1_LLAMA3_8B,
        "medusa-vicuna-7b": MEDUSA_VICUNA,
    }
    if key == "deepseek-v3-mtp":
        return A.mtp_spec(A.known_target("deepseek-ai/DeepSeek-V3") or {})
    return parse_config(configs[key], source=key)


# (spec key, field, exact value). Derivations: research data_formats.md section 2 worked sizes;
# public totals (Llama-3.1-8B 8,030,261,248; DeepSeek-V3 671,026,419,200 main + MTP; EAGLE README
# 0.25B / 0.37B heads); all cross-checked tensor by tensor against torch meta builds in
# tests/test_architectures.py.
GOLDEN = [
    ("kimi-eagle3", "excluding_embedding", 1_190_948_864),
    ("kimi-eagle3", "total", 2_365_353_984),
    ("kimi-eagle3", "embedding", 1_174_405_120),
    ("kimi-eagle3", "lm_head", 229_376_000),
    ("kimi-eagle3", "trainable", 1_190_948_864),
    ("kimi-eagle3", "frozen", 1_174_405_120),
    ("kimi-eagle3", "stored", 1_190_948_864),
    ("kimi-eagle3", "buffers", 32_000 + 163_840),
    ("kimi-eagle3", "active", None),
    ("kimi-eagle3-full-vocab", "excluding_embedding", 2_135_977_984),
    ("kimi-eagle3-full-vocab", "buffers", 0),
    ("llama31-8b-eagle3", "trainable", 424_689_664),
    ("llama31-8b-eagle3", "embedding", 525_336_576),
    ("llama31-8b-eagle3", "total", 950_026_240),
    ("qwen3-8b-eagle3", "trainable", 399_523_840),
    ("qwen3-8b-eagle3", "embedding", 622_329_856),
    ("eagle1-llama3-8b", "excluding_embedding", 251_666_432),
    ("eagle1-llama3-8b", "stored", 251_666_432 + 525_336_576),
    ("eagle1-vicuna-13b", "excluding_embedding", 369_633_280),
    ("eagle1-vicuna-13b", "lm_head", 0),
    ("medusa-vicuna-7b", "total", 739_266_560),
    ("meta-llama/Llama-3.1-8B-Instruct", "total", 8_030_261_248),
    ("meta-llama/Llama-3.1-8B-Instruct", "embedding", 525_336_576),
    ("meta-llama/Llama-3.1-8B-Instruct", "active", None),
    ("meta-llama/Llama-3.3-70B-Instruct", "total", 70_553_706_496),
    ("Qwen/Qwen3-8B", "total", 8_190_735_360),
    ("Qwen/Qwen3-8B", "excluding_embedding", 7_568_405_504),
    ("Qwen/Qwen3-30B-A3B", "total", 30_532_122_624),
    ("Qwen/Qwen3-30B-A3B", "active", 3_353_032_704),
    ("moonshotai/Kimi-K2-Instruct", "total", 1_026_408_232_448),
    ("moonshotai/Kimi-K2-Instruct", "active", 32_861_500_928),
    ("moonshotai/Kimi-K2.5", "total", 1_026_408_232_448),
    # the README's table for the GLM / MiniMax targets (totals matched by transformers meta builds)
    ("zai-org/GLM-4.6", "total", 358_337_791_296),
    ("zai-org/GLM-4.6", "mtp", 5_539_962_272),
    ("zai-org/GLM-4.6", "active", 33_632_266_144),
    ("zai-org/GLM-4.5-Air", "total", 110_468_824_832),
    ("zai-org/GLM-4.5-Air", "mtp", 3_616_573_568),
    ("zai-org/GLM-4.5-Air", "active", 13_424_129_664),
    ("zai-org/GLM-5", "total", 755_767_304_448),
    ("zai-org/GLM-5", "mtp", 11_856_086_016),
    ("zai-org/GLM-5", "active", 41_784_728_832),
    ("MiniMaxAI/MiniMax-M2", "total", 228_689_764_864),
    ("MiniMaxAI/MiniMax-M2", "active", 11_030_553_088),
    ("moonshotai/Kimi-K2.5", "active", 32_861_500_928),
    ("openai/gpt-oss-20b", "total", 20_914_757_184),
    ("openai/gpt-oss-20b", "active", 4_187_440_704),
    ("deepseek-ai/DeepSeek-V3", "total", 684_489_845_504),
    ("deepseek-ai/DeepSeek-V3", "mtp", 13_463_426_304),
    # active is the main model's (published "37B active"); was 40,092,... with the MTP module's experts in.
    ("deepseek-ai/DeepSeek-V3", "active", 37_552_297_472),
    ("moonshotai/Kimi-K2-Instruct", "mtp", 0),
    # Gemma-3 / Llama-4 / Qwen3-Next: equal to transformers' meta builds (test_conformance.py); published
    # "27.4B", "109B total / 17B active", "400B / 17B active", "80B total / 3B active" (+ the stored MTP module)
    ("google/gemma-3-1b-it", "total", 999_885_952),
    ("google/gemma-3-27b-it", "total", 27_432_406_640),
    ("google/gemma-3-27b-it", "vision", 423_060_336),
    ("google/gemma-3-27b-it", "lm_head", 0),
    ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "total", 108_641_793_536),
    ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "vision", 871_932_416),
    ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "active", 17_172_894_720),
    ("meta-llama/Llama-4-Maverick-17B-128E-Instruct", "total", 401_583_781_376),
    ("meta-llama/Llama-4-Maverick-17B-128E-Instruct", "active", 17_184_691_200),
    ("Qwen/Qwen3-Next-80B-A3B-Instruct", "total", 81_324_862_720),
    ("Qwen/Qwen3-Next-80B-A3B-Instruct", "mtp", 1_650_471_424),
    ("Qwen/Qwen3-Next-80B-A3B-Instruct", "active", 3_874_929_408),
    # inclusionAI/Ling-flash-2.0 (BailingMoeV2ForCausalLM): the Hub lists its safetensors as BF16 102,889,697,280
    # + F32 7,936 (the 31 MoE layers' 256-wide expert_bias) = 102,889,705,216; published "100B total, 6.1B
    # activated (4.8B non-embedding)": active 6,152,277,760 less embedding and lm_head (2 x 643,825,664) is
    # 4,864,626,432. The chat release stores no MTP layer.
    ("inclusionAI/Ling-flash-2.0", "total", 102_889_705_216),
    ("inclusionAI/Ling-flash-2.0", "active", 6_152_277_760),
    ("inclusionAI/Ling-flash-2.0", "embedding", 643_825_664),
    ("inclusionAI/Ling-flash-2.0", "lm_head", 643_825_664),
    ("inclusionAI/Ling-flash-2.0", "excluding_embedding", 102_245_879_552),
    ("inclusionAI/Ling-flash-2.0", "frozen", 31 * 256),
    ("inclusionAI/Ling-flash-2.0", "trainable", 102_889_697_280),
    ("inclusionAI/Ling-flash-2.0", "mtp", 0),
    ("deepseek-v3-mtp", "total", 13_463_426_304),
    ("deepseek-v3-mtp", "shared_with_target", 2 * 129_280 * 7168),
]


@pytest.mark.parametrize(("key", "field", "expected"), GOLDEN, ids=[f"{g[0]}:{g[1]}" for g in GOLDEN])
def test_golden_counts(key: str, field: str, expected: int | None) -> None:
    assert getattr(P.count(spec_of(key)), field) == expected


@pytest.mark.parametrize("hub_id", A.known_targets())
def test_counts_only_parse_counts_the_same(hub_id: str) -> None:
    """A shipped target parsed for its count only (repeated experts listed as one object each) counts exactly
    what the named parse counts, field by field, from a list of the same length, shapes and flags."""
    config = A.known_target(hub_id)
    named = parse_config(config, source=hub_id)
    with A.counts_only():
        shared = parse_config(config, source=hub_id)
    assert P.count(shared) == P.count(named)
    assert len(shared.tensors) == len(named.tensors)

    def look(t: A.TensorSpec) -> tuple[Any, ...]:
        return (t.shape, t.component, t.trainable, t.is_buffer, t.shared_with_target, t.active_fraction, t.stored)

    assert [look(t) for t in shared.tensors] == [look(t) for t in named.tensors]
    assert shared.tensors[0].name == named.tensors[0].name
    assert parse_config(config, source=hub_id).tensors == named.tensors  # the mode ends with its block


def test_counts_only_lists_each_repeated_expert_once() -> None:
    config = A.known_target("moonshotai/Kimi-K2-Instruct")
    with A.counts_only():
        spec = parse_config(config, source="k2")
    distinct = {id(t) for t in spec.tensors}
    assert len(spec.tensors) > 60_000 and len(distinct) < 2_000
    assert not any(".experts.1." in t.name for t in spec.tensors)  # copies keep the first expert's names


def test_deepseek_v3_main_model_is_671b() -> None:
    c = P.count(spec_of("deepseek-ai/DeepSeek-V3"))
    assert c.total - c.mtp == 671_026_419_200


def test_active_excludes_the_mtp_module() -> None:
    spec = spec_of("deepseek-ai/DeepSeek-V3")
    c = P.count(spec)
    assert round(c.active / 1e9, 1) == 37.6
    without_mtp = type(spec)(**{**spec.__dict__, "tensors": tuple(t for t in spec.tensors if t.component != "mtp")})
    assert P.count(without_mtp).active == c.active  # the MTP module changes total, never active
    assert P.count(without_mtp).total == c.total - c.mtp


def test_count_is_consistent_with_components() -> None:
    for key in ("kimi-eagle3", "Qwen/Qwen3-30B-A3B", "openai/gpt-oss-20b"):
        spec = spec_of(key)
        c = P.count(spec)
        comps = P.components(spec)
        assert sum(x.params for x in comps if x.name != "buffer") == c.total
        assert c.trainable + c.frozen == c.total
        assert c.excluding_embedding + c.embedding == c.total


def test_components_order_and_flags() -> None:
    comps = P.components(spec_of("kimi-eagle3"))
    assert [(c.name, c.params, c.trainable) for c in comps] == [
        ("embedding", 1_174_405_120, False),
        ("fc", 154_140_672, True),
        ("attention", 411_041_792, True),
        ("mlp", 396_361_728, True),
        ("norm", 28_672, True),
        ("lm_head", 229_376_000, True),
        ("buffer", 195_840, False),
    ]
    moe = {c.name: c for c in P.components(spec_of("Qwen/Qwen3-30B-A3B"))}
    assert list(moe) == ["embedding", "attention", "experts", "router", "norm", "lm_head"]
    assert moe["experts"].params == 48 * 128 * 3 * 2048 * 768
    router = {c.name: c for c in P.components(parse_config(TINY_DEEPSEEK))}["router"]
    assert router.trainable is None  # gate weights trained, e_score_correction_bias not


# Ling-flash-2.0 by component (h 4096, 32 layers, layer 0 dense, 31 MoE layers of 256 experts + 1 shared, 8 routed
# per token): attention = 32 x (fused query_key_value (32 + 2*4) x 128 x 4096 + dense 4096 x 4096); norm = 32 x
# (two 4096 norms + query/key_layernorm 2 x 128) + final 4096; mlp = the dense layer 3 x 9216 x 4096 + 31 shared
# experts 3 x 1024 x 4096; experts = 31 x 256 x 3 x 1024 x 4096; router = 31 x (gate 256 x 4096 + expert_bias 256).
LING_FLASH_COMPONENTS = [
    ("embedding", 157_184 * 4096, True),
    ("attention", 32 * (40 * 128 * 4096 + 4096 * 4096), True),
    ("mlp", 3 * 9216 * 4096 + 31 * 3 * 1024 * 4096, True),
    ("experts", 31 * 256 * 3 * 1024 * 4096, True),
    ("router", 31 * (256 * 4096 + 256), None),
    ("norm", 32 * (2 * 4096 + 2 * 128) + 4096, True),
    ("lm_head", 157_184 * 4096, True),
]


def test_ling_flash_components() -> None:
    spec = spec_of("inclusionAI/Ling-flash-2.0")
    assert [(c.name, c.params, c.trainable) for c in P.components(spec)] == LING_FLASH_COMPONENTS
    assert sum(n for _, n, _ in LING_FLASH_COMPONENTS) == P.count(spec).total == 102_889_705_216
    # active: every non-expert weight plus 8 of 256 routed experts in each MoE layer
    routed = 31 * 256 * 3 * 1024 * 4096
    assert P.count(spec).active == P.count(spec).total - routed + routed * 8 // 256


def test_memory() -> None:
    assert P.MEMORY_DTYPES == {"bf16": 2, "fp8": 1, "fp32": 4}
    assert P.memory_bytes(1000, "fp32") == 4000
    table = P.memory_table(spec_of("kimi-eagle3"))
    buffers = 32_000 * 8 + 163_840 * 1  # d2t int64, t2d bool
    assert table == {
        "bf16": 1_190_948_864 * 2 + buffers,
        "fp8": 1_190_948_864 + buffers,
        "fp32": 1_190_948_864 * 4 + buffers,
    }
    # a target keeps everything resident
    assert P.memory_table(spec_of("meta-llama/Llama-3.1-8B-Instruct"))["bf16"] == 16_060_522_496
    with pytest.raises(InputError, match="unknown dtype"):
        P.memory_bytes(10, "int3")
    with pytest.raises(InputError):
        P.memory_bytes(-1, "bf16")


def test_ratio() -> None:
    draft, target = spec_of("kimi-eagle3"), spec_of("moonshotai/Kimi-K2-Instruct")
    assert P.ratio(draft, target) == 1_190_948_864 / 1_026_408_232_448
    assert P.ratio(P.count(draft), P.count(target)) == P.ratio(draft, target)
    assert P.ratio(spec_of("llama31-8b-eagle3"), spec_of("meta-llama/Llama-3.1-8B-Instruct")) == pytest.approx(
        424_689_664 / 8_030_261_248
    )
    empty = P.ParamCount(0, 0, 0, 0, 0, 0, None, 0, 0)
    with pytest.raises(InputError, match="no parameters"):
        P.ratio(draft, empty)


# --------------------------------------------------------------------------------------------
# Reconciliation against real safetensors files
# --------------------------------------------------------------------------------------------


def reconcile_folder(spec: ModelSpec, folder: Path) -> P.CheckpointReport:
    header = read_header(folder)
    # our own header reader must agree with safetensors.safe_open
    ours: dict[str, tuple[tuple[int, ...], str]] = {}
    for f in sorted(folder.glob("*.safetensors")):
        ours.update(P.read_safetensors_header(f))
    assert ours == header
    return P.reconcile(spec, header)


def test_specforge_checkpoint_embedding_missing_by_design(tmp_path: Path) -> None:
    spec = parse_config(TINY_EAGLE3)
    folder = write_checkpoint(spec, tmp_path / "draft")
    assert json.loads((folder / "config.json").read_text()) == TINY_EAGLE3
    report = reconcile_folder(spec, folder)
    assert report.matches_config
    assert [m[0] for m in report.missing] == ["embed_tokens.weight"]
    assert "shared with the target and frozen" in report.missing[0][1]
    assert report.by_design == ["embed_tokens.weight"] and report.gaps == []
    assert report.param_elements == P.count(spec).stored
    assert report.buffer_elements == 96 + 256  # d2t + t2d: buffers, not parameters
    assert report.unexpected == [] and report.shape_mismatches == []


def test_checkpoint_with_embedding_saved_is_flagged_in_notes(tmp_path: Path) -> None:
    spec = parse_config(TINY_EAGLE3)
    report = reconcile_folder(spec, write_checkpoint(spec, tmp_path / "d", include="all"))
    assert report.matches_config and report.missing == []
    assert any("embed_tokens.weight is present" in n for n in report.notes)
    assert report.param_elements == P.count(spec).total


def test_unexpected_tensor(tmp_path: Path) -> None:
    spec = parse_config(TINY_EAGLE3)
    folder = write_checkpoint(spec, tmp_path / "d", extra={"midlayer.self_attn.extra_proj.weight": (8, 64)})
    report = reconcile_folder(spec, folder)
    assert report.unexpected == [("midlayer.self_attn.extra_proj.weight", "not implied by the config")]
    assert not report.matches_config
    assert report.param_elements == P.count(spec).stored + 8 * 64


def test_shape_mismatch(tmp_path: Path) -> None:
    spec = parse_config(TINY_EAGLE3)
    folder = write_checkpoint(spec, tmp_path / "d", shapes={"fc.weight": (64, 2 * 64)})  # EAGLE-1-like fc
    report = reconcile_folder(spec, folder)
    assert report.shape_mismatches == [("fc.weight", (64, 192), (64, 128))]
    assert not report.matches_config


def test_real_gap_is_not_by_design(tmp_path: Path) -> None:
    spec = parse_config(TINY_EAGLE3)
    report = reconcile_folder(spec, write_checkpoint(spec, tmp_path / "d", exclude=["norm.weight", "d2t"]))
    assert report.gaps == [
        ("norm.weight", "expected by the config but absent from the checkpoint"),
        ("d2t", "expected by the config but absent from the checkpoint"),
    ]
    assert not report.matches_config
    assert report.buffer_elements == 256


def test_speculators_named_checkpoint_against_specforge_config(tmp_path: Path) -> None:
    """vLLM/speculators rename midlayer.* to layers.0.*; a prefix change is not a mismatch."""
    spec = parse_config(TINY_EAGLE3)
    folder = write_checkpoint(spec, tmp_path / "d", rename=lambda n: n.replace("midlayer.", "layers.0."))
    report = reconcile_folder(spec, folder)
    assert report.matches_config
    assert report.renamed["layers.0.self_attn.q_proj.weight"] == "midlayer.self_attn.q_proj.weight"
    assert len(report.renamed) == 10


def test_speculators_checkpoint_stores_embedding(tmp_path: Path) -> None:
    spec = parse_config(TINY_SPECULATORS)
    folder = write_checkpoint(spec, tmp_path / "d")
    header = read_header(folder)
    assert header["embed_tokens.weight"] == ((256, 64), "BF16")
    assert header["d2t"] == ((96,), "I64") and header["t2d"] == ((256,), "BOOL")
    report = P.reconcile(spec, header)
    assert report.matches_config and report.missing == [] and report.notes == []
    # and the same file read against the SpecForge reading of the draft: names differ only by prefix
    report2 = P.reconcile(parse_config(TINY_EAGLE3), header)
    assert report2.matches_config
    assert "layers.0.hidden_norm.weight" in report2.renamed


def test_model_prefix_and_sharded_target(tmp_path: Path) -> None:
    spec = parse_config(TINY_EAGLE3)
    report = reconcile_folder(spec, write_checkpoint(spec, tmp_path / "a", rename=lambda n: "model." + n))
    assert report.matches_config
    target = parse_config(TINY_LLAMA)
    folder = write_checkpoint(target, tmp_path / "t", shards=3)
    index = json.loads((folder / "model.safetensors.index.json").read_text())
    assert len(set(index["weight_map"].values())) == 3
    assert set(index["weight_map"]) == {t.name for t in target.tensors}
    report = reconcile_folder(target, folder)
    assert report.matches_config and report.missing == []
    assert report.param_elements == P.count(target).total


def test_identity_vocab_maps_are_harmless() -> None:
    spec = parse_config({k: v for k, v in TINY_EAGLE3.items() if k != "draft_vocab_size"})
    header = {t.name: (t.shape, "BF16") for t in spec.tensors if t.stored}
    header.update({"d2t": ((256,), "I64"), "t2d": ((256,), "BOOL")})
    report = P.reconcile(spec, header)
    assert report.matches_config
    assert [i[0] for i in report.ignored] == ["d2t", "t2d"]
    assert report.buffer_elements == 512


def test_quantised_target_headers() -> None:
    """gpt-oss ships MXFP4 *_blocks/*_scales; DeepSeek/Kimi ship fp8 weights with weight_scale_inv."""
    spec = spec_of("openai/gpt-oss-20b")
    header: dict[str, tuple[tuple[int, ...], str]] = {}
    for t in spec.tensors:
        if t.name.endswith(("experts.gate_up_proj", "experts.down_proj")):
            e, a, b = t.shape
            header[t.name + "_blocks"] = ((e, b, a // 32, 16), "U8")
            header[t.name + "_scales"] = ((e, b, a // 32), "U8")
        else:
            header[t.name] = (t.shape, "BF16")
    report = P.reconcile(spec, header)
    assert report.matches_config, (report.unexpected[:3], report.shape_mismatches[:3], report.gaps[:3])
    assert report.param_elements == P.count(spec).total
    assert len(report.ignored) == 2 * 24

    tiny = parse_config(TINY_DEEPSEEK)
    header = {t.name: (t.shape, "F8_E4M3") for t in tiny.tensors}
    header["model.layers.1.mlp.experts.0.up_proj.weight_scale_inv"] = ((1, 1), "F32")
    report = P.reconcile(tiny, header)
    assert report.matches_config and report.ignored[0][1] == "quantisation scale"


def test_malformed_header_inputs(tmp_path: Path) -> None:
    spec = parse_config(TINY_EAGLE3)
    with pytest.raises(DataError, match="malformed"):
        P.reconcile(spec, {"fc.weight": ("x", "BF16")})  # type: ignore[dict-item]
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"\x05\x00\x00\x00\x00\x00\x00\x00{nope")
    with pytest.raises(DataError, match="not valid JSON"):
        P.read_safetensors_header(bad)
    short = tmp_path / "short.safetensors"
    short.write_bytes(b"\x01")
    with pytest.raises(DataError, match="too short"):
        P.read_safetensors_header(short)
    with pytest.raises(DataError, match="cannot read"):
        P.read_safetensors_header(tmp_path / "absent.safetensors")


def test_multimodal_prefix_and_vision_tensors(tmp_path: Path) -> None:
    """Kimi-K2.5-style checkpoints nest the text model under language_model.; the vision tower is not counted."""

    spec = parse_config(TINY_NESTED)
    folder = write_checkpoint(
        spec,
        tmp_path / "mm",
        rename=lambda n: "language_model." + n,
        extra={"vision_tower.patch_embed.weight": (8, 8)},
    )
    report = reconcile_folder(spec, folder)
    assert report.missing == [] and report.shape_mismatches == []
    assert report.unexpected == [("vision_tower.patch_embed.weight", "not implied by the config")]
    assert report.renamed["language_model.model.norm.weight"] == "model.norm.weight"


def _released_gemma3(name: str) -> str:
    return "language_model." + name if name.startswith("model.") else name


def _transformers5_gemma3(name: str) -> str:
    for ours, saved in (
        ("model.", "model.language_model."),
        ("vision_tower.vision_model.", "model.vision_tower."),
        ("multi_modal_projector.", "model.multi_modal_projector."),
    ):
        if name.startswith(ours):
            return saved + name[len(ours) :]
    return name


def _released_llama4(name: str) -> str:
    return "language_model." + name if name.startswith(("model.", "lm_head.")) else name


@pytest.mark.parametrize(
    ("label", "config", "rename"),
    [
        ("gemma3 release layout", TINY_GEMMA3, _released_gemma3),
        ("gemma3 re-saved by transformers 5", TINY_GEMMA3, _transformers5_gemma3),
        ("llama4 release layout", TINY_LLAMA4, _released_llama4),
        ("qwen3-next", TINY_QWEN3_NEXT, lambda n: n),
    ],
)
def test_new_target_checkpoint_layouts_reconcile(tmp_path: Path, label: str, config: Any, rename: Any) -> None:
    spec = parse_config(config)
    report = reconcile_folder(spec, write_checkpoint(spec, tmp_path / "ckpt", rename=rename))
    assert (report.missing, report.unexpected, report.shape_mismatches) == ([], [], [])
    assert report.matches_config and report.param_elements == P.count(spec).total


def test_qwen3_next_checkpoint_without_mtp_says_why(tmp_path: Path) -> None:
    spec = parse_config(TINY_QWEN3_NEXT)
    mtp = [t.name for t in spec.tensors if t.component == "mtp"]
    report = reconcile_folder(spec, write_checkpoint(spec, tmp_path / "resaved", exclude=mtp))
    assert sorted(m[0] for m in report.missing) == sorted(mtp) and not report.matches_config
    assert any("whole MTP module is absent" in n for n in report.notes)


# ---- the params command: JSON contract (README) with params.mtp, broken wiring exits 0 -------------


def _cli(*args: str) -> Any:
    return run_cli("params", *args, timeout=300)


def test_cli_params_json_reports_mtp_apart(tmp_path: Path) -> None:
    config = A.known_target("deepseek-ai/DeepSeek-V3")
    (tmp_path / "config.json").write_text(json.dumps(config))
    proc = _cli(str(tmp_path), "--json", "--no-header")
    assert proc.returncode == 0, proc.stderr
    p = json.loads(proc.stdout)["params"]
    assert {"total", "excluding_embedding", "embedding", "lm_head", "trainable", "frozen", "active", "mtp"} <= set(p)
    assert (p["total"], p["mtp"], p["active"]) == (684_489_845_504, 13_463_426_304, 37_552_297_472)


def test_cli_minus_one_draft_exits_0_with_error_lint(tmp_path: Path) -> None:
    config = json.loads(json.dumps(KIMI_EAGLE3))
    config["eagle_config"] = {"eagle_aux_hidden_state_layer_ids": [-1, 29, 57]}
    (tmp_path / "config.json").write_text(json.dumps(config))
    proc = _cli(str(tmp_path), "--target", "moonshotai/Kimi-K2-Instruct", "--json", "--no-header")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["params"]["excluding_embedding"] == 1_190_948_864  # counted like any other Kimi draft
    (neg,) = [f for f in data["lint"] if f["code"] == "aux-negative"]
    assert neg["severity"] == "error" and data["lint"][0] == neg and neg["harmless"] is False
    bad = _cli(str(tmp_path), "--engine", "TGI 1.0", "--no-header")
    assert bad.returncode == 2 and "unknown engine" in bad.stderr and "Traceback" not in bad.stderr


def test_cli_params_json_serving_one_row_per_engine_and_runner(tmp_path: Path) -> None:
    from comparelib.models import comparison

    config = json.loads(json.dumps(KIMI_EAGLE3))
    config["eagle_config"] = {"eagle_aux_hidden_state_layer_ids": [2, 30, 58]}
    (tmp_path / "config.json").write_text(json.dumps(config))
    rows = comparison.entry_json(
        comparison.load_entry(str(tmp_path), target="moonshotai/Kimi-K2-Instruct", with_header=False)
    )["serving"]
    assert [(r["engine"], r["version"], r["runner"]) for r in rows] == [
        ("SGLang", "0.5.23", None),
        ("SGLang", "0.5.1", None),
        ("vLLM", "0.34.0", "v2"),
        ("vLLM", "0.33.0", "v2"),
        ("vLLM", "0.33.0", "v1"),
    ]
    keys = {"engine", "version", "runner", "status", "reason", "ids_read", "ids_from", "captured", "fc_in"}
    assert keys | {"fc_in_checkpoint", "cite"} <= set(rows[0])
    assert [r["status"] for r in rows] == ["ok", "unsupported", "ok", "ok", "ok"]  # 0.5.1: DeepSeek has no hook
    for v2 in rows[2:4]:
        assert (v2["ids_from"], v2["captured"]) == ("default", [2, 30, 58])  # V2 never reads the ids
    assert rows[4]["ids_from"] == "eagle_config" and all(r["cite"] for r in rows)
    proc = _cli(str(tmp_path), "--target", "moonshotai/Kimi-K2-Instruct", "--engine", "vLLM 0.33.0", "--json")
    assert proc.returncode == 0, proc.stderr
    assert [r["runner"] for r in json.loads(proc.stdout)["serving"]] == ["v2", "v1"]
    proc = _cli(str(tmp_path), "--target", "moonshotai/Kimi-K2-Instruct", "--engine", "vLLM", "--json")
    assert proc.returncode == 0, proc.stderr
    assert [(r["version"], r["runner"]) for r in json.loads(proc.stdout)["serving"]] == [("0.34.0", "v2")]


# ---- params <draft> --target <Gemma-3 | Llama-4 | Qwen3-Next>: counts, serving rows, the family's capture rule ------

# (target, target hidden, vocab, ids, serving statuses per row, a lint finding only that family's rule gives)
NEW_FAMILY_DRAFTS = [
    (
        "google/gemma-3-27b-it",
        5376,
        262_208,
        [2, 31, 61],  # SGLang's Gemma-3 hook: +1, boundary N reachable
        ["ok", "unsupported", "unsupported", "unsupported", "unsupported"],
        ("warning", "engine-unsupported", "Gemma3ForConditionalGeneration does not implement SupportsEagle3"),
    ),
    (
        "meta-llama/Llama-4-Scout-17B-16E-Instruct",
        5120,
        202_048,
        [2, 24, 47],  # the Llama rule: boundary 48 is out of reach, two states reach a 3-state fc
        ["fails", "fails", "ok", "ok", "ok"],
        ("error", "aux-capture", "2 captured states x target hidden 5120"),
    ),
    (
        "Qwen/Qwen3-Next-80B-A3B-Instruct",
        2048,
        151_936,
        [2, 24, 47],  # Qwen3-Next indexes self.layers[id + 1]: start-up IndexError
        ["fails", "unsupported", "ok", "ok", "ok"],
        ("error", "aux-capture", "IndexError while marking layers"),
    ),
]


@pytest.mark.parametrize(
    ("target", "hidden", "vocab", "ids", "statuses", "finding"),
    NEW_FAMILY_DRAFTS,
    ids=[c[0] for c in NEW_FAMILY_DRAFTS],
)
def test_cli_params_draft_on_new_family_target(
    tmp_path: Path,
    target: str,
    hidden: int,
    vocab: int,
    ids: list[int],
    statuses: list[str],
    finding: tuple[str, str, str],
) -> None:
    config = {
        "architectures": ["LlamaForCausalLMEagle3"],
        "model_type": "llama",
        "hidden_size": hidden,
        "intermediate_size": 4 * hidden,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "num_hidden_layers": 1,
        "vocab_size": vocab,
        "draft_vocab_size": 32_000,
        "max_position_embeddings": 262_144,
        "eagle_config": {"eagle_aux_hidden_state_layer_ids": ids},
    }
    (tmp_path / "config.json").write_text(json.dumps(config))
    proc = _cli(str(tmp_path), "--target", target, "--json", "--no-header")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    draft = P.count(parse_config(config))
    target_count = P.count(parse_config(A.known_target(target) or {}))
    assert data["target"] == target and data["params"]["excluding_embedding"] == draft.excluding_embedding
    assert data["draft_to_target_ratio"] == pytest.approx(draft.excluding_embedding / target_count.total, rel=1e-12)
    assert [(r["engine"], r["version"], r["runner"], r["status"]) for r in data["serving"]] == [
        ("SGLang", "0.5.23", None, statuses[0]),
        ("SGLang", "0.5.1", None, statuses[1]),
        ("vLLM", "0.34.0", "v2", statuses[2]),
        ("vLLM", "0.33.0", "v2", statuses[3]),
        ("vLLM", "0.33.0", "v1", statuses[4]),
    ]
    severity, code, words = finding
    assert any(f["severity"] == severity and f["code"] == code and words in f["message"] for f in data["lint"]), data[
        "lint"
    ]
    assert not any(f["code"] == "hidden-mismatch" or f["code"] == "vocab-mismatch" for f in data["lint"])


def test_cli_params_json_reports_vision_apart(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps(A.known_target("meta-llama/Llama-4-Scout-17B-16E-Instruct")))
    proc = _cli(str(tmp_path), "--json", "--no-header")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    p = data["params"]
    assert (p["total"], p["vision"], p["active"], p["mtp"]) == (108_641_793_536, 871_932_416, 17_172_894_720, 0)
    assert (data["dialect"], data["architecture"]) == ("llama4", "Llama4ForConditionalGeneration")
    assert [c["params"] for c in data["components"] if c["name"] == "vision"] == [871_932_416]
    text = _cli(str(tmp_path), "--no-header")
    assert text.returncode == 0 and "vision" in text.stdout and "871,932,416" in text.stdout


# GLM-4.6, GLM-5 (DSA) and MiniMax-M2 targets: counted exactly (test_conformance.py checks against transformers),
# so params --target gives the draft's counts, the ratio to the target, and each engine row for the target's class.
NEW_TARGET_CASES = [
    # hub id, target total (MTP included), statuses (SGLang 0.5.23, 0.5.1, vLLM 0.34.0 v2, 0.33.0 v2, 0.33.0 v1),
    # engine file the rows cite
    ("zai-org/GLM-4.6", 358_337_791_296, ["ok", "unsupported"] + ["unsupported"] * 3, "models/glm4_moe.py"),
    ("zai-org/GLM-5", 755_767_304_448, ["ok", "unsupported", "ok", "ok", "ok"], "deepseek_v32"),
    ("MiniMaxAI/MiniMax-M2", 228_689_764_864, ["ok", "unsupported", "ok", "ok", "ok"], "models/minimax_m2.py"),
    # SGLang 0.5.23 captures for BailingMoeV2ForCausalLM (models/bailing_moe.py); 0.5.1 does not register it and
    # vLLM's class does not implement SupportsEagle3
    ("inclusionAI/Ling-flash-2.0", 102_889_705_216, ["ok"] + ["unsupported"] * 4, "models/bailing_moe.py"),
]


@pytest.mark.parametrize(
    ("hub_id", "total", "statuses", "cited"), NEW_TARGET_CASES, ids=[c[0] for c in NEW_TARGET_CASES]
)
def test_cli_params_with_glm_and_minimax_targets(
    tmp_path: Path, hub_id: str, total: int, statuses: list[str], cited: str
) -> None:
    target_cfg = A.known_target(hub_id)
    assert target_cfg is not None
    assert P.count(parse_config(target_cfg)).total == total
    n = int(target_cfg["num_hidden_layers"])
    draft = {
        **LLAMA31_8B_EAGLE3,
        "hidden_size": target_cfg["hidden_size"],
        "vocab_size": target_cfg["vocab_size"],
        "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, n // 2 - 1, n - 4]},
    }
    (tmp_path / "config.json").write_text(json.dumps(draft))
    proc = _cli(str(tmp_path), "--target", hub_id, "--json", "--no-header")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    p = data["params"]
    assert p["total"] == P.count(parse_config(draft)).total
    assert data["target"] == hub_id
    assert data["draft_to_target_ratio"] == pytest.approx(p["excluding_embedding"] / total, rel=1e-12)
    rows = data["serving"]
    assert [r["status"] for r in rows] == statuses
    assert any(cited in c for r in rows for c in r["cite"])
    # lint takes the target's class from its config: the engines' own rules, never the Llama/Qwen fallback
    assert not any("family is unknown" in f["message"] for f in data["lint"])
    unsupported = [f for f in data["lint"] if f["code"] == "engine-unsupported"]
    assert bool(unsupported) == (statuses[2] == "unsupported")


# ---- tie_word_embeddings on a draft: the lm_head is the embedding's storage, counted once -------------------------
# SGLang 0.5.23 models/llama_eagle3.py:303 serves embed_tokens as the head and never loads lm_head.weight; vLLM 0.33.0
# and 0.34.0 ignore the flag (llama_eagle3.py:329 builds its own head) and load lm_head.weight only when the checkpoint
# has one.

_TINY_HEAD = 96 * 64  # TINY_EAGLE3's lm_head: draft_vocab x hidden
_TINY_EMB = 256 * 64
_KIMI_HEAD = 32_000 * 7168

# (case, config, expected ParamCount fields): the untied rows are the numbers the suite already pins, unchanged
TIED_COUNTS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    (
        "kimi untied (unchanged)",
        KIMI_EAGLE3,
        {
            "total": 2_365_353_984,
            "excluding_embedding": 1_190_948_864,
            "lm_head": _KIMI_HEAD,
            "trainable": 1_190_948_864,
            "frozen": 1_174_405_120,
            "stored": 1_190_948_864,
            "lm_head_tied": False,
        },
    ),
    (
        "kimi tied",
        {**KIMI_EAGLE3, "tie_word_embeddings": True},
        {
            "total": 2_365_353_984 - _KIMI_HEAD,
            "excluding_embedding": 1_190_948_864 - _KIMI_HEAD,
            "embedding": 1_174_405_120,
            "lm_head": 0,
            "trainable": 1_190_948_864 - _KIMI_HEAD,
            "frozen": 1_174_405_120,
            "stored": 1_190_948_864 - _KIMI_HEAD,
            "lm_head_tied": True,
        },
    ),
    (
        "tiny untied (unchanged)",
        TINY_EAGLE3,
        {"total": 80_128, "excluding_embedding": 63_744, "lm_head": _TINY_HEAD, "trainable": 63_744, "stored": 63_744},
    ),
    (
        "tiny tied",
        {**TINY_EAGLE3, "tie_word_embeddings": True},
        {
            "total": 80_128 - _TINY_HEAD,
            "excluding_embedding": 63_744 - _TINY_HEAD,
            "embedding": _TINY_EMB,
            "lm_head": 0,
            "trainable": 63_744 - _TINY_HEAD,
            "frozen": _TINY_EMB,
            "stored": 63_744 - _TINY_HEAD,
            "lm_head_tied": True,
        },
    ),
    (
        # its own (stored) embedding is the head SGLang serves: stored keeps the embedding, not a second copy
        "tiny tied, own embedding (target_hidden_size 128)",
        {**TINY_EAGLE3, "tie_word_embeddings": True, "target_hidden_size": 128},
        {
            "total": 80_128 + 64 * 3 * 64 - _TINY_HEAD,  # fc takes 3 x 128 features
            "embedding": _TINY_EMB,
            "lm_head": 0,
            "trainable": 63_744 + 64 * 3 * 64 - _TINY_HEAD,
            "stored": 80_128 + 64 * 3 * 64 - _TINY_HEAD,
            "lm_head_tied": True,
        },
    ),
    (
        # EAGLE-1 uses the target's lm_head: the flag has no head to discount
        "eagle1 tied (no lm_head tensor)",
        {**EAGLE1_LLAMA3_8B, "tie_word_embeddings": True},
        {"excluding_embedding": 251_666_432, "lm_head": 0, "stored": 251_666_432 + 525_336_576, "lm_head_tied": False},
    ),
]


@pytest.mark.parametrize(("case", "config", "expected"), TIED_COUNTS, ids=[c[0] for c in TIED_COUNTS])
def test_tied_lm_head_is_counted_once(case: str, config: dict[str, Any], expected: dict[str, Any]) -> None:
    spec = parse_config(config)
    c = P.count(spec)
    assert {k: getattr(c, k) for k in expected} == expected
    comps = P.components(spec)
    assert sum(x.params for x in comps if x.name != "buffer") == c.total
    assert c.trainable + c.frozen == c.total and c.excluding_embedding + c.embedding == c.total
    heads = [x for x in comps if x.name == "lm_head"]
    tied = bool(expected.get("lm_head_tied"))
    assert P.tied_lm_head(spec) is tied
    if tied:
        (head,) = heads
        assert (head.params, head.trainable, head.tied_to) == (0, False, "embedding")
        assert head.note.startswith("tied to the embedding") and "llama_eagle3.py:303" in head.note
        assert [(t.name, t.stored, t.trainable) for t in head.tensors] == [("lm_head.weight", False, False)]
    else:
        assert all(x.tied_to is None and x.note == "" for x in comps)
        assert P.tied_note(spec) is None


def test_tied_lm_head_is_not_resident_twice() -> None:
    untied, tied = parse_config(TINY_EAGLE3), parse_config({**TINY_EAGLE3, "tie_word_embeddings": True})
    for dtype, size in P.MEMORY_DTYPES.items():
        assert P.memory_table(untied)[dtype] - P.memory_table(tied)[dtype] == _TINY_HEAD * size
    kimi = P.memory_table(parse_config({**KIMI_EAGLE3, "tie_word_embeddings": True}))
    assert kimi["bf16"] == (1_190_948_864 - _KIMI_HEAD) * 2 + 32_000 * 8 + 163_840


# (case, tie_word_embeddings, header holds lm_head.weight, matches_config, lm_head's "why" (None: not missing),
#  header elements over count().stored, a note that must be there)
TIED_HEADERS: list[tuple[str, bool, bool, bool, str | None, int, str | None]] = [
    ("untied, head stored (unchanged)", False, True, True, None, 0, None),
    ("untied, head missing (unchanged)", False, False, False, "expected by the config but absent", -_TINY_HEAD, None),
    (
        "tied, head stored anyway",
        True,
        True,
        True,
        None,
        _TINY_HEAD,
        "lm_head.weight is present although tie_word_embeddings is true",
    ),
    ("tied, no head stored", True, False, True, "lm_head not stored: tied to the embedding", 0, None),
]


@pytest.mark.parametrize(
    ("case", "tie", "with_head", "matches", "why", "extra", "note"), TIED_HEADERS, ids=[c[0] for c in TIED_HEADERS]
)
def test_tied_lm_head_against_the_checkpoint_header(
    tmp_path: Path,
    case: str,
    tie: bool,
    with_head: bool,
    matches: bool,
    why: str | None,
    extra: int,
    note: str | None,
) -> None:
    spec = parse_config({**TINY_EAGLE3, "tie_word_embeddings": tie})
    folder = write_checkpoint(spec, tmp_path / "d", exclude=[] if with_head else ["lm_head.weight"])
    report = reconcile_folder(spec, folder)
    assert report.matches_config is matches
    assert report.param_elements == P.count(spec).stored + extra
    missing = dict(report.missing)
    assert "embed_tokens.weight" in report.by_design
    if why is None:
        assert "lm_head.weight" not in missing
    else:
        assert why in missing["lm_head.weight"]
        assert ("lm_head.weight" in report.by_design) is tie
    tie_notes = [n for n in report.notes if "tie_word_embeddings" in n]
    assert [n[: len(note)] for n in tie_notes] == ([] if note is None else [note])
