"""Shared test data and builders (plain values and functions, no pytest fixtures: those are in conftest.py
and the plugin modules it loads). Test modules import from here, never from each other.
"""

from __future__ import annotations

import copy
import os
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import EllipsisType
from typing import TYPE_CHECKING, Any

import pytest

from comparelib.models import registry

if TYPE_CHECKING:
    from streamlit.testing.v1 import AppTest

    from comparelib.live.store import RunRecord, Store

TESTS = Path(__file__).resolve().parent


def page_app(path: str | os.PathLike[str], timeout: float = 60) -> AppTest:
    """AppTest of one page file as the router runs it: the session is marked routed (app.ensure_routed).

    Without the mark a page run on its own routes through app.run() and shows the default page,
    which is what a fresh server's first deep link must do, and what the browser test checks.
    """
    from streamlit.testing.v1 import AppTest

    import app

    page = Path(path) if os.path.isabs(path) else TESTS / path
    if not page.exists():  # "pages/x.py" relative to the project root
        page = TESTS.parent / path
    at = AppTest.from_file(str(page), default_timeout=timeout)
    at.session_state[app.ROUTED] = True
    return at


# --- draft and target configs (parse_config cases shared by test_architectures and test_params)

# Kimi-K2-Instruct EAGLE-3 draft by AQ-MedAI (config as published; see research drafts.json)
KIMI_EAGLE3: dict[str, Any] = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "model_type": "llama",
    "hidden_size": 7168,
    "intermediate_size": 18432,
    "num_hidden_layers": 1,
    "num_attention_heads": 64,
    "num_key_value_heads": 64,
    "head_dim": 128,
    "vocab_size": 163840,
    "draft_vocab_size": 32000,
    "max_position_embeddings": 131072,
    "rope_theta": 1000000.0,
    "rope_scaling": None,
    "tie_word_embeddings": False,
    "dtype": "bfloat16",
    "rms_norm_eps": 1e-06,
    "attention_bias": False,
    "mlp_bias": False,
    "eagle_config": {"eagle_aux_hidden_state_layer_ids": [2, 30, 58], "use_aux_hidden_state": True},
}


EAGLE1_VICUNA: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 5120,
    "intermediate_size": 13824,
    "num_hidden_layers": 1,
    "num_attention_heads": 40,
    "vocab_size": 32000,
    "max_position_embeddings": 2048,
    "torch_dtype": "float16",
    "rms_norm_eps": 1e-06,
    "tie_word_embeddings": False,
}


MEDUSA_VICUNA = {
    "medusa_num_heads": 5,
    "medusa_num_layers": 1,
    "base_model_name_or_path": "lmsys/vicuna-7b-v1.3",
    "hidden_size": 4096,
    "vocab_size": 32000,
}


TINY_DEEPSEEK = {
    "architectures": ["DeepseekV3ForCausalLM"],
    "model_type": "deepseek_v3",
    "hidden_size": 64,
    "intermediate_size": 96,
    "num_attention_heads": 4,
    "num_hidden_layers": 3,
    "vocab_size": 256,
    "q_lora_rank": 24,
    "kv_lora_rank": 16,
    "qk_nope_head_dim": 8,
    "qk_rope_head_dim": 4,
    "v_head_dim": 8,
    "n_routed_experts": 6,
    "num_experts_per_tok": 2,
    "n_shared_experts": 1,
    "moe_intermediate_size": 32,
    "first_k_dense_replace": 1,
    "moe_layer_freq": 1,
    "num_nextn_predict_layers": 1,
    "topk_method": "noaux_tc",
    "tie_word_embeddings": False,
}


TINY_NESTED = {
    "architectures": ["KimiK25ForConditionalGeneration"],
    "text_config": {**TINY_DEEPSEEK, "architectures": None, "model_type": "kimi_k2"},
}


# --- tiny Gemma-3 / Llama-4 / Qwen3-Next targets: sizes small enough to count by hand (test_architectures)
# and to build with transformers on the meta device (test_conformance)

TINY_GEMMA3_TEXT: dict[str, Any] = {
    "architectures": ["Gemma3ForCausalLM"],
    "model_type": "gemma3_text",
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "vocab_size": 300,
}
_TINY_SIGLIP = {
    "model_type": "siglip_vision_model",
    "hidden_size": 32,
    "intermediate_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "image_size": 28,
    "patch_size": 14,
    "vision_use_head": False,
}
TINY_GEMMA3: dict[str, Any] = {
    "architectures": ["Gemma3ForConditionalGeneration"],
    "model_type": "gemma3",
    "mm_tokens_per_image": 4,
    "text_config": {k: v for k, v in TINY_GEMMA3_TEXT.items() if k != "architectures"},
    "vision_config": _TINY_SIGLIP,
}
TINY_LLAMA4: dict[str, Any] = {
    "architectures": ["Llama4ForConditionalGeneration"],
    "model_type": "llama4",
    "text_config": {
        "model_type": "llama4_text",
        "hidden_size": 64,
        "intermediate_size": 32,
        "intermediate_size_mlp": 96,
        "num_hidden_layers": 4,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 16,
        "vocab_size": 300,
        "num_local_experts": 4,
        "num_experts_per_tok": 1,
        "interleave_moe_layer_step": 2,
    },
    "vision_config": {
        "model_type": "llama4_vision_model",
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "image_size": 28,
        "patch_size": 14,
        "vision_output_dim": 48,
        "projector_input_dim": 48,
        "projector_output_dim": 48,
    },
}
TINY_QWEN3_NEXT: dict[str, Any] = {
    "architectures": ["Qwen3NextForCausalLM"],
    "model_type": "qwen3_next",
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 4,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "vocab_size": 300,
    "num_experts": 4,
    "num_experts_per_tok": 2,
    "moe_intermediate_size": 32,
    "shared_expert_intermediate_size": 48,
    "linear_num_key_heads": 2,
    "linear_num_value_heads": 4,
    "linear_key_head_dim": 8,
    "linear_value_head_dim": 12,
    "linear_conv_kernel_dim": 4,
}

# --- Qwen3 targets and their EAGLE-3 drafts as SpecForge writes them (raw configs: they name no target)

QWEN3_32B_SIZES = {"hidden_size": 5120, "intermediate_size": 25600, "vocab_size": 151936, "num_hidden_layers": 64}


def qwen3_32b_config(**extra: Any) -> dict[str, Any]:
    """Qwen/Qwen3-32B's config; ``extra`` adds keys (e.g. rope_theta)."""
    return {
        "architectures": ["Qwen3ForCausalLM"],
        "model_type": "qwen3",
        **QWEN3_32B_SIZES,
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "max_position_embeddings": 40960,
        "rms_norm_eps": 1e-06,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        **extra,
    }


def qwen3_32b_eagle3_config(eagle_config: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """An EAGLE-3 draft for Qwen3-32B (one layer, draft vocab 32000) with ``eagle_config`` (its aux layer ids)."""
    return {
        **qwen3_32b_config(**extra),
        "architectures": ["LlamaForCausalLMEagle3"],
        "model_type": "llama",
        "num_hidden_layers": 1,
        "draft_vocab_size": 32000,
        "eagle_config": eagle_config,
    }


# an EAGLE-3 draft for Qwen3-8B (the walk-throughs' qwen3_8b draft)
QWEN3_8B_EAGLE3: dict[str, Any] = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "hidden_size": 4096,
    "intermediate_size": 12288,
    "num_hidden_layers": 1,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "vocab_size": 151936,
    "draft_vocab_size": 32000,
    "max_position_embeddings": 40960,
    "rope_theta": 1000000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "rms_norm_eps": 1e-06,
}

# --- the AQ-MedAI Kimi-K2 EAGLE-3 draft: registry config and the tensors a SpecForge checkpoint stores

# walk M's own draft for meta-llama/Llama-3.1-8B-Instruct: a SpecForge (SGLang-format) EAGLE-3 config that names no
# target (its model card's base_model does)
LLAMA31_8B_EAGLE3 = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "hidden_act": "silu",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "max_position_embeddings": 4096,
    "model_type": "llama",
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_hidden_layers": 1,
    "rms_norm_eps": 1e-05,
    "rope_theta": 500000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "vocab_size": 128256,
    "draft_vocab_size": 32000,
    "eagle_config": {"eagle_aux_hidden_state_layer_ids": [3, 15, 27], "use_aux_hidden_state": True},
}


AQ = "AQ-MedAI/Kimi-K2-Instruct-eagle3"


def aq_config() -> dict:
    return copy.deepcopy(registry.get_draft(AQ).config)


def aq_tensors(*, with_embedding: bool = False, with_vocab_map: bool = True) -> dict[str, tuple[tuple[int, ...], str]]:
    """The tensor shapes a SpecForge checkpoint of the AQ-MedAI draft stores (header only in the emulator)."""
    return eagle3_tensors(
        7168, 18432, 163840, 32000, kv_dim=8192, with_embedding=with_embedding, with_vocab_map=with_vocab_map
    )


def eagle3_tensors(
    H: int,
    FFN: int,
    V: int,
    Vd: int,
    *,
    kv_dim: int,
    with_embedding: bool = False,
    with_vocab_map: bool = True,
) -> dict[str, tuple[tuple[int, ...], str]]:
    """The tensor shapes a SpecForge EAGLE-3 checkpoint stores: hidden ``H``, FFN, vocab ``V``, draft vocab ``Vd``;
    one midlayer, q_proj 8192 wide, k/v_proj ``kv_dim`` wide."""
    t = {
        "fc.weight": ((H, 3 * H), "BF16"),
        "midlayer.hidden_norm.weight": ((H,), "BF16"),
        "midlayer.input_layernorm.weight": ((H,), "BF16"),
        "midlayer.self_attn.q_proj.weight": ((8192, 2 * H), "BF16"),
        "midlayer.self_attn.k_proj.weight": ((kv_dim, 2 * H), "BF16"),
        "midlayer.self_attn.v_proj.weight": ((kv_dim, 2 * H), "BF16"),
        "midlayer.self_attn.o_proj.weight": ((H, 8192), "BF16"),
        "midlayer.post_attention_layernorm.weight": ((H,), "BF16"),
        "midlayer.mlp.gate_proj.weight": ((FFN, H), "BF16"),
        "midlayer.mlp.up_proj.weight": ((FFN, H), "BF16"),
        "midlayer.mlp.down_proj.weight": ((H, FFN), "BF16"),
        "norm.weight": ((H,), "BF16"),
        "lm_head.weight": ((Vd, H), "BF16"),
    }
    if with_vocab_map:
        t["d2t"] = ((Vd,), "I64")
        t["t2d"] = ((V,), "BOOL")
    if with_embedding:
        t["embed_tokens.weight"] = ((V, H), "BF16")
    return t


# --- a benchmark record as SGLang bench_serving writes it


def sglang_record(*, accept: float | None = 2.87, details: bool = True, steps: int = 3, rate: object = "inf") -> dict:
    rec = {
        "tag": None,
        "backend": "sglang",
        "dataset_name": "random",
        "request_rate": rate,
        "max_concurrency": 4,
        "sharegpt_output_len": None,
        "random_input_len": 512,
        "random_output_len": 256,
        "random_range_ratio": 1.0,
        "server_info": {
            "model_path": "meta-llama/Llama-3.1-8B-Instruct",
            "tokenizer_path": "meta-llama/Llama-3.1-8B-Instruct",
            "speculative_algorithm": "EAGLE3",
            "speculative_draft_model_path": "lmsys/sglang-EAGLE3-LLaMA3.1-Instruct-8B",
            "speculative_num_steps": steps,
            "speculative_eagle_topk": 1,
            "speculative_num_draft_tokens": steps + 1,
            "api_key": "sk-server-secret-0123456789abcdef",
            "version": "0.5.9",
            "internal_states": [{"avg_spec_accept_length": accept}],
        },
        "duration": 12.5,
        "completed": 4,
        "total_input_tokens": 2048,
        "total_input_text_tokens": 2048,
        "total_input_vision_tokens": 0,
        "total_output_tokens": 1024,
        "total_output_tokens_retokenized": 1019,
        "request_throughput": 0.32,
        "input_throughput": 163.84,
        "output_throughput": 81.92,
        "total_throughput": 245.76,
        "mean_e2e_latency_ms": 3120.0,
        "median_e2e_latency_ms": 3100.0,
        "std_e2e_latency_ms": 40.0,
        "p99_e2e_latency_ms": 3190.0,
        "mean_ttft_ms": 95.0,
        "median_ttft_ms": 90.0,
        "std_ttft_ms": 8.0,
        "p99_ttft_ms": 110.0,
        "mean_tpot_ms": 11.9,
        "median_tpot_ms": 11.8,
        "std_tpot_ms": 0.3,
        "p99_tpot_ms": 12.6,
        "mean_itl_ms": 11.9,
        "median_itl_ms": 10.1,
        "std_itl_ms": 2.0,
        "p95_itl_ms": 14.0,
        "p99_itl_ms": 18.0,
        "concurrency": 3.98,
        "accept_length": accept,
        "max_output_tokens_per_s": 96.0,
        "max_concurrent_requests": 4,
    }
    if details:
        rec.update(
            {
                "input_lens": [512, 512, 512, 512, 512],
                "output_lens": [256, 256, 256, 256, 0],
                "ttfts": [0.09, 0.085, 0.1, 0.095, 0.0],
                "itls": [[0.0118] * 255, [0.0117] * 255, [0.0119] * 255, [0.0118] * 255, []],
                "generated_texts": ["a", "b", "c", "d", ""],
                "errors": ["", "", "", "", "ClientPayloadError: stream cut"],
            }
        )
    return rec


# --- the CLI run in this process (output captured by pytest)


def cli_in_process(capsys: pytest.CaptureFixture[str], *args: str) -> subprocess.CompletedProcess[str]:
    from comparelib.cli import main

    code = main(list(args))
    out = capsys.readouterr()
    return subprocess.CompletedProcess(list(args), code, out.out, out.err)


# --- the CLI run as a user runs it: a fresh interpreter, from the project root


def run_cli(
    *args: str | bytes, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``python -m comparelib ARGS`` in a subprocess; ``env`` is added to this process's environment."""
    import sys

    return subprocess.run(
        [sys.executable, "-m", "comparelib", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=TESTS.parent,
        env={**os.environ, **(env or {})},
        check=False,
    )


# --- stored benchmark runs: as the store returns them (RunRecord), and stored as the bench page stores them

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def stored_run(
    id_: int,
    steps: int | None,
    tok_s: float | None,
    al: float | None = None,
    *,
    engine: str = "sglang",
    algo: str | None = "EAGLE3",
    draft: str | None = None,
    model: str = "acme/target",
    group: str = "g",
    topk: int | None = 1,
    ndt: int | None | EllipsisType = ...,
    al_mean: float | None | EllipsisType = ...,
    requests: int = 64,
    concurrency: int = 4,
    max_tokens: int = 64,
    prompt_set: str | None = "bundled",
) -> RunRecord:
    """One finished run as the store returns it, made at ``T0 + id_`` minutes. ``steps=None`` is a baseline: no
    algorithm, draft, topk or draft tokens. ``ndt`` is steps + 1 unless given, ``al_mean`` is ``al`` unless
    given; ``prompt_set=None`` leaves it out of the params."""
    from comparelib.live.store import RunRecord

    base = steps is None
    params: dict[str, Any] = {"concurrency": concurrency, "max_tokens": max_tokens}
    if prompt_set is not None:
        params["prompt_set"] = prompt_set
    return RunRecord(
        id=id_,
        created_at=T0 + timedelta(minutes=id_),
        endpoint=f"http://{engine}:1",
        engine=engine,
        kind="measured",
        group=group,
        labels=[],
        status="finished",
        speculative_algorithm=None if base else algo,
        draft_model=None if base else draft,
        model=model,
        num_steps=steps,
        topk=None if base else topk,
        num_draft_tokens=None if steps is None else steps + 1 if isinstance(ndt, EllipsisType) else ndt,
        is_baseline=base,
        requests=requests,
        errors=0,
        output_tokens_per_s=tok_s,
        accept_length=al,
        accept_length_mean=al if isinstance(al_mean, EllipsisType) else al_mean,
        ttft_p50_ms=None,
        ttft_p99_ms=None,
        tpot_p50_ms=None,
        tpot_p99_ms=None,
        summary={},
        server_config={},
        params=params,
        notes={},
    )


def bench_store() -> Store:
    """The store the pages and the CLI open in a test (settings.database_url(): the test's SPECDRAFT_HOME)."""
    from comparelib import settings
    from comparelib.live.store import Store

    return Store(settings.database_url())


def bench_config(
    engine: str, model: str, steps: int | None, *, draft: str | None, topk: int | None, ndt: int | None
) -> dict[str, Any]:
    """A server config as the bench page stores it; ``steps=None`` (or 0) is a baseline, no algorithm."""
    return {
        "engine": engine,
        "model": model,
        "speculative_algorithm": "EAGLE3" if steps else None,
        "draft_model": draft,
        "num_steps": steps,
        "topk": topk,
        "num_draft_tokens": ndt,
    }


def store_run(
    store: Store,
    server_config: dict[str, Any],
    summary: dict[str, Any],
    *,
    group: str,
    concurrency: int = 1,
    endpoint: str = "http://127.0.0.1:30000",
    prompt_set: str | None = None,
) -> int:
    """One run stored as the bench page stores it (started, then finished with ``summary``); returns its id."""
    # the bench page stores the temperature it asked for (greedy by default): a run without one is an import's
    rid = store.start_run(
        endpoint=endpoint,
        server_config=server_config,
        group=group,
        params={"concurrency": concurrency, "temperature": 0.0} | ({"prompt_set": prompt_set} if prompt_set else {}),
    )
    store.finish_run(rid, summary)
    return rid


# --- what pages say, and Compare drafts opened as a link opens it


def page_text(at: AppTest) -> str:
    """A page's markdown, captions, subheaders, infos and warnings, one a line."""
    return "\n".join(
        [m.value for m in at.markdown]
        + [c.value for c in at.caption]
        + [s.value for s in at.subheader]
        + [i.value for i in at.info]
        + [w.value for w in at.warning]
    )


def routed_compare(draft: str, group: str | None = None, **query: Any) -> AppTest:
    """Compare drafts through the router, with ``draft`` and its run ``group`` (if any) in the sidebar (its link)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(TESTS.parent / "app.py"), default_timeout=120)
    at.query_params["draft"] = draft
    if group is not None:
        at.query_params["draft_group"] = group
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    return at


# --- dataset audit: the counts a text's pieces make


def expected_counts(tokenizer: object, pieces: list[tuple[str, bool]]) -> tuple[int, int]:
    """(tokens, supervised tokens) of the text the pieces make, tokenised whole."""
    from comparelib.audit import templates

    text, spans, pos = "", [], 0
    for piece, supervised in pieces:
        if supervised:
            spans.append((pos, pos + len(piece)))
        text += piece
        pos += len(piece)
    enc = tokenizer.encode(text, add_special_tokens=False)  # type: ignore[attr-defined]
    return len(enc.ids), sum(templates.mask_from_offsets(enc.offsets, spans))


def published_fit(setting_key: str, *, first: float = 2.0, step: float = 0.3) -> Any:
    """A GSM8K fit of four published drafts of acme/target at chain (3,1,4) and ``setting_key``: acceptance
    ``first + step * i`` at 10^(4+i) samples (``scaling.Fit``)."""
    import pandas as pd

    from comparelib.analysis import scaling

    rows = [
        scaling.own_point(
            draft=f"pub/{i}",
            benchmark="gsm8k",
            accept_length=first + step * i,
            setting_key=setting_key,
            chain="(3,1,4)",
            samples=10.0 ** (4 + i),
            target_model="acme/target",
            source="test",
        )
        for i in range(4)
    ]
    pub = pd.DataFrame(rows)
    pub["kind"] = "published"
    return scaling.fit_published(
        scaling.select(scaling.scaling_points(pub), benchmark="gsm8k", setting_key=setting_key)
    )
