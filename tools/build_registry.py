"""One-off converter: research notes (drafts.json) -> comparelib/builtin/registry.json.

The app never runs this; it reads the committed registry.json. The research file is free text
written while reading cards, papers and dashboards, so most fields need a decision. The regular
rows (SpecBundle dashboard, EAGLE-3 paper table) convert mechanically; every irregular row is
decided by hand below, keyed by hub id and row index, and anything that is not a number for a
named benchmark goes into the draft's notes instead of being guessed into a column.

Usage: python tools/build_registry.py [/work/shared/research/drafts.json] [out.json]
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from comparelib.models.registry import normalize_benchmark, parse_count  # noqa: E402

DEFAULT_SRC = Path("/work/shared/research/drafts.json")
DEFAULT_OUT = ROOT / "comparelib" / "builtin" / "registry.json"

DASHBOARD_SOURCE = "sgl-project/SpecForge:docs/spec_bundle/public/raw_data/data.json@a6b6b0230009"
PAPER_SOURCE = "https://arxiv.org/abs/2503.01840 (EAGLE-3 paper, Table 1)"
VLLM_TEST_SOURCE = "vllm-project/vllm:tests/v1/spec_decode/test_acceptance_length.py@029ba375"
MIRRORS = (
    "https://fast.hugflare.com/",
    "https://huggingface.icepanda.dpdns.org/",
    "https://hf.qhduan.com/",
    "https://hg.istephan-squireso.workers.dev/",
    "https://hf-p-cfw.fyan.top/",
    "https://huface.ru/",
    "https://worker-huggingface.ww6410.workers.dev/",
    "https://hg.matlab.run/",
)

# hub_id as written in the research -> (clean id, text kept in notes)
HUB_ID_FIX = {
    "nvidia/gpt-oss-120b-Eagle3 (family: -short-context, -long-context, -throughput, -v2, -v3)": (
        "nvidia/gpt-oss-120b-Eagle3",
        "Published as a family: -short-context, -long-context, -throughput, -v2, -v3.",
    ),
    "AngelSlim/Qwen3-8B_eagle3 (also 1.7B/4B/14B/32B/a3B siblings)": (
        "AngelSlim/Qwen3-8B_eagle3",
        "Siblings exist for Qwen3 1.7B/4B/14B/32B/30B-A3B.",
    ),
    "deepseek-ai/DeepSeek-V3 (native MTP module)": (
        "deepseek-ai/DeepSeek-V3",
        "Entry describes the target's native MTP module used as a 1-token draft, not a separate repo.",
    ),
}
TARGET_FIX = {
    "meta-llama/Llama-4-Maverick-17B-128E-Instruct (served FP8)": (
        "meta-llama/Llama-4-Maverick-17B-128E-Instruct",
        "Target served in FP8.",
    ),
    "Qwen/Qwen3-235B-A22B(-Instruct-2507 used in dashboard)": (
        "Qwen/Qwen3-235B-A22B",
        "The SpecBundle dashboard measured it against Qwen/Qwen3-235B-A22B-Instruct-2507.",
    ),
    "meta-llama/Llama-4-Maverick-17B-128E(-Instruct)": (
        "meta-llama/Llama-4-Maverick-17B-128E-Instruct",
        "Card names the target as Llama-4-Maverick-17B-128E(-Instruct).",
    ),
}

# Training volume where the free text is ambiguous or needs a reading (hub id -> samples).
SAMPLES_FIX: dict[str, int | None] = {
    "yuhuili/EAGLE3-DeepSeek-R1-Distill-LLaMA-8B": None,  # "~532K + OpenThoughts math (size not stated)"
    "lightseekorg/kimi-k2.5-eagle3": 600_000,  # "~300K per phase, ~600K total": the published weights saw both
}

# Entry notes whose research wording is replaced by a user-facing sentence (same facts).
NOTES_FIX = {
    "AQ-MedAI/Kimi-K2-Instruct-eagle3": (
        "Card: ~1.4M Open-PerfectBlend samples; accept length 3.17-3.49 on HumanEval/GSM8K/Math500. SpecBundle "
        "dashboard at (3,1,4), bs=8: 3.27 gsm8k, 3.47 math500, 3.37 humaneval, but 2.39 MT-bench, 2.90 GPQA, "
        "2.99 FinanceQA, 3.16 LiveCodeBench. No AQ-MedAI Kimi-K2-Thinking EAGLE-3 draft was found."
    ),
    "yuhuili/EAGLE3-DeepSeek-R1-Distill-LLaMA-8B": (
        "Only target where GSM8K beats HumanEval; the paper attributes it to the OpenThoughts math data. The "
        "paper's T=1 row for this draft is not included (unreadable in the copy consulted)."
    ),
}

# Configs: research configs that are not a usable draft config.json (hub id -> reason for notes).
NO_CONFIG = {
    "lightseekorg/kimi-k2.5-eagle3": "Partial config only (from a look-alike card): {fields}; "
    "num_key_value_heads and draft_vocab_size unknown, so no config is stored.",
    "lmsys/sglang-EAGLE3-Llama-4-Maverick-17B-128E-Instruct-v1": "Config not read; research guess: {fields}.",
    "lmsys/Qwen3-235B-A22B-EAGLE3": "Partial config (speculators conversion notes): {fields}; "
    "intermediate_size unknown, so no config is stored.",
    "RedHatAI/Llama-4-Maverick-17B-128E-Instruct-speculator.eagle3": "Partial config: {fields}.",
    "nvidia/Llama-4-Maverick-17B-128E-Eagle3": "Partial config: {fields}.",
    "deepseek-ai/DeepSeek-V3": "Target config fields the MTP module shares: {fields}.",
}
ARCHITECTURES = {  # stated in the research's architecture field
    "LlamaForCausalLMEagle3": ["LlamaForCausalLMEagle3"],
    "LlamaForCausalLM": ["LlamaForCausalLM"],
}
DTYPE_FIX = {
    "bfloat16 (key 'dtype')": ("dtype", "bfloat16"),
    "float16 (inferred from size)": ("torch_dtype", "float16"),
}


def canonical_source(text: str | None) -> str:
    """Shorten a research citation to a URL or repo:path; mirrors become the Hub URL they copy."""
    if not text:
        return ""
    if text.startswith("sgl-project/SpecForge docs/spec_bundle/public/raw_data/data.json"):
        return DASHBOARD_SOURCE
    if text.startswith("EAGLE-3 paper arXiv 2503.01840"):
        return PAPER_SOURCE
    if text.startswith("vllm-project/vllm tests/v1/spec_decode/test_acceptance_length.py"):
        return VLLM_TEST_SOURCE
    m = re.match(r"(https?://\S+)", text)
    if m:
        url = m.group(1).rstrip(",;")
        for mirror in MIRRORS:
            if url.startswith(mirror):
                url = "https://huggingface.co/" + url[len(mirror) :]
        return url
    m = re.match(r"([\w.-]+/[\w.-]+) ((?:blog|docs|configs|tests)/\S+)", text)
    if m:
        return f"{m.group(1)}:{m.group(2)}"
    return text


def clean_number(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return value  # keep floats as floats (rope_theta 1000000.0)
    return value


def clean_config(hub_id: str, raw: dict[str, Any] | None, architecture: str) -> tuple[dict | None, list[str]]:
    notes: list[str] = []
    if raw is None:
        return None, notes
    if hub_id in NO_CONFIG:
        fields = ", ".join(f"{k}={v}" for k, v in raw.items())
        notes.append(NO_CONFIG[hub_id].format(fields=fields))
        return None, notes
    cfg: dict[str, Any] = {}
    arch_key = architecture.split(" ")[0]
    if arch_key in ARCHITECTURES:
        cfg["architectures"] = ARCHITECTURES[arch_key]
    elif arch_key == "LlamaForCausalLM-style" and "medusa_num_heads" not in raw:
        cfg["architectures"] = ["LlamaForCausalLM"]
        notes.append(
            "architectures assumed LlamaForCausalLM (described as a LlamaForCausalLM-style 1-layer head, "
            "like the other EAGLE-1 heads)."
        )
    for key, value in raw.items():
        if key == "template":
            notes.append(f"Config values are the published training template {value}.")
            continue
        if value is None and key in ("eagle_config", "max_position_embeddings", "rope_theta", "torch_dtype"):
            continue  # absent, not a stated value
        if key == "rope_theta" and isinstance(value, str):
            if value.startswith("absent -> 10000.0"):
                cfg[key] = 10000.0
                notes.append("rope_theta is absent from the config; 10000.0 is the stated default.")
                continue
            raise SystemExit(f"{hub_id}: unhandled rope_theta {value!r}")
        if key == "rope_theta" and isinstance(value, int):
            value = float(value)
        if key == "draft_vocab_size" and isinstance(value, str):
            num = int(value.split()[0])
            notes.append(f"draft_vocab_size: {value}.")
            value = num
        if key in ("torch_dtype",) and isinstance(value, str) and value in DTYPE_FIX:
            real_key, real_value = DTYPE_FIX[value]
            cfg[real_key] = real_value
            continue
        if isinstance(value, str) and key not in (
            "torch_dtype",
            "dtype",
            "base_model_name_or_path",
            "transformers_version",
        ):
            raise SystemExit(f"{hub_id}: unhandled string config value {key}={value!r}")
        cfg[key] = value
    return cfg, notes


def speedup_value(text: Any) -> float | None:
    if text is None:
        return None
    if isinstance(text, (int, float)):
        return float(text)
    m = re.match(r"\s*([0-9.]+)\s*x", str(text))
    if not m:
        raise SystemExit(f"unparsed speedup {text!r}")
    return float(m.group(1))


def setting(
    engine: str | None = None,
    batch_size: int | None = None,
    num_steps: int | None = None,
    topk: int | None = None,
    num_draft_tokens: int | None = None,
    temperature: float | None = None,
    tree: str | None = None,
    hardware: str | None = None,
) -> dict[str, Any]:
    return {
        "engine": engine,
        "batch_size": batch_size,
        "num_steps": num_steps,
        "topk": topk,
        "num_draft_tokens": num_draft_tokens,
        "temperature": temperature,
        "tree": tree,
        "hardware": hardware,
    }


def result(
    benchmark: str,
    *,
    accept_length: float | None = None,
    throughput_tok_s: float | None = None,
    baseline_tok_s: float | None = None,
    speedup: float | None = None,
    setting_: dict[str, Any],
    source: str,
    note: str | None = None,
    checkpoint: str | None = None,
    train_samples: int | None = None,
) -> dict[str, Any]:
    out = {
        "benchmark": normalize_benchmark(benchmark),
        "accept_length": accept_length,
        "throughput_tok_s": throughput_tok_s,
        "baseline_tok_s": baseline_tok_s,
        "speedup": speedup,
        "setting": setting_,
        "source": source,
        "note": note,
    }
    if checkpoint is not None:  # a figure of an earlier checkpoint, not the published weights, at its own volume
        out |= {"checkpoint": checkpoint, "train_samples": train_samples}
    return out


def chain_setting(s: dict[str, Any] | None, **extra: Any) -> dict[str, Any]:
    s = s or {}
    return setting(
        batch_size=s.get("batch_size"),
        num_steps=s.get("num_steps"),
        topk=s.get("topk"),
        num_draft_tokens=s.get("num_draft_tokens"),
        **extra,
    )


def convert_results(i: int, entry: dict[str, Any], notes: list[str]) -> list[dict[str, Any]]:
    hub = entry["hub_id"]
    out: list[dict[str, Any]] = []
    paper_hw = "A100" if "70B" in entry["target_model"] else "RTX 3090"
    for j, r in enumerate(entry["reported_results"]):
        metric = r["metric"]
        src = canonical_source(r.get("source"))
        s = r.get("setting") if isinstance(r.get("setting"), dict) else {}
        if metric == "accept_length+throughput":  # SpecBundle dashboard rows
            assert r.get("framework") == "SGLang", (hub, j)
            out.append(
                result(
                    r["benchmark"],
                    accept_length=r["accept_length"],
                    throughput_tok_s=r["throughput_tok_s"],
                    baseline_tok_s=r.get("baseline_throughput_tok_s"),
                    speedup=r.get("speedup_vs_no_spec"),
                    setting_=chain_setting(s, engine="sglang", hardware="H200"),
                    source=src,
                    note=r.get("note"),
                )
            )
            continue
        if metric == "speedup+avg_acceptance_length(tau)":  # EAGLE-3 paper Table 1
            t = s.get("temperature")
            note = r.get("note")
            tree: str | None = "dynamic tree (EAGLE-2)"
            if hub == "yuhuili/EAGLE-Vicuna-13B-v1.3" and not note:
                tree = None
                note = "EAGLE (EAGLE-1) row of the paper table for this head"
            if t == 1:
                garbled = "T=1 row: the text copy of the paper table was partly garbled; check the paper"
                note = "; ".join(x for x in (note, garbled) if x)
            out.append(
                result(
                    r["benchmark"],
                    accept_length=r["accept_length_tau"],
                    speedup=speedup_value(r["speedup"]),
                    setting_=setting(engine="eagle", batch_size=1, temperature=t, tree=tree, hardware=paper_hw),
                    source=src,
                    note=note,
                )
            )
            continue
        out.extend(irregular(hub, j, r, s, src, notes))
    return out


def irregular(
    hub: str, j: int, r: dict[str, Any], s: dict[str, Any], src: str, notes: list[str]
) -> list[dict[str, Any]]:
    """Hand decisions for the rows that are not dashboard or paper-table rows."""
    key = (hub, j)
    value = r.get("value")
    if hub == "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B":
        if j == 12:  # "373.25 tok/s vs 158.34 no-spec vs 244.10 EAGLE-2 (bs=1, 1xH100, SGLang)"
            return [
                result(
                    "MT-bench",
                    throughput_tok_s=373.25,
                    baseline_tok_s=158.34,
                    setting_=setting(engine="sglang", batch_size=1, hardware="1xH100"),
                    source="https://arxiv.org/abs/2503.01840 (EAGLE-3 paper, Table 4)",
                    note="EAGLE-2 reached 244.10 tok/s in the same setting",
                )
            ]
        if j == 13:  # throughput ratio by batch size, chain length 3, SGLang v0.4.4
            return [
                result(
                    "MT-bench",
                    speedup=float(v.rstrip("x")),
                    setting_=setting(engine="sglang", batch_size=int(bs), tree="chain (length 3)", hardware="1xH100"),
                    source="https://arxiv.org/abs/2503.01840 (EAGLE-3 paper, Table 3)",
                    note="throughput ratio vs no speculation, SGLang v0.4.4",
                )
                for bs, v in value.items()
            ]
        if j == 14:  # third-party T=1, K=7 values
            return [
                result(
                    b,
                    accept_length=v,
                    setting_=setting(num_steps=7, temperature=1),
                    source="https://huggingface.co/nebius/EAGLE3-Llama-3.3-70B-Instruct",
                    note="K=7; third-party comparison table that lists this 8B draft in a 70B table "
                    "(low-medium confidence)",
                )
                for b, v in zip(("MT-bench", "HumanEval", "GSM8K"), value, strict=True)
            ]
    if hub == "AQ-MedAI/Kimi-K2-Instruct-eagle3":
        if j in (0, 1, 2):
            return [
                result(
                    r["benchmark"],
                    accept_length=value,
                    setting_=setting(),
                    source=src,
                    note="card table 'Average Token Acceptance Lengths (MLA)'; steps/topk not stated "
                    "for this table (the card elsewhere uses bs=8, steps=3, topk=1, draft=4)",
                )
            ]
        if j == 3:
            notes.append(
                "Card: up to 1.8x peak throughput over 7 benchmarks at bs=8, (3,1,4): from +24% "
                "(MT-Bench) to +80% (Math500)."
            )
            return []
    if hub == "AQ-MedAI/Kimi-K25-eagle3" and value is None:
        return []
    if hub in ("AQ-MedAI/Kimi-K26-eagle3", "AQ-MedAI/Kimi-K2.7-Code-eagle3"):
        return [result(r["benchmark"], accept_length=value, setting_=chain_setting(s), source=src)]
    if hub == "lightseekorg/kimi-k2.5-eagle3":
        return [
            result(
                r["benchmark"],
                accept_length=r["value_phase2_40k_steps"],
                setting_=chain_setting(s, engine="sglang"),
                source=src,
                note="phase 2 (40k steps): the published weights; SpecForge bench_eagle3.py",
            ),
            result(
                r["benchmark"],
                accept_length=r["value_phase1_20k_steps"],
                setting_=chain_setting(s, engine="sglang"),
                source=src,
                note="phase 1 checkpoint (20k steps, ~300K samples), not the published weights",
                checkpoint="phase 1 checkpoint, 20k steps",
                train_samples=300_000,
            ),
        ]
    if hub == "lightseekorg/kimi-k2.5-eagle3-mla":
        return [
            result(
                r["benchmark"],
                accept_length=value,
                setting_=chain_setting(s),
                source=src,
                note="measured with the lm_eval harness",
            )
        ]
    if hub == "nvidia/Kimi-K2.6-Eagle3":
        note = "draft_length=3" + ("; qualitative subset" if "SPEED" in r["benchmark"] else "")
        return [
            result(
                r["benchmark"],
                accept_length=value,
                setting_=setting(num_steps=s["draft_length"]),
                source=src,
                note=note,
            )
        ]
    if hub == "AQ-MedAI/Qwen3.5-397B-A17B-eagle3":
        if "avg_accept_length" in r["metric"]:
            tp = next(x for x in AQ_QWEN_ROWS if x["benchmark"] == r["benchmark"] and "throughput" in x["metric"])
            return [
                result(
                    r["benchmark"],
                    accept_length=r["eagle3"],
                    throughput_tok_s=tp["eagle3"],
                    setting_=setting(batch_size=1),
                    source=src,
                    note=f"target's native MTP: accept {r['mtp']}, {tp['mtp']} tok/s; "
                    "accept length averaged over 3 runs",
                )
            ]
        return []  # throughput rows merged into the acceptance rows above
    if hub == "lmsys/sglang-EAGLE3-Llama-4-Maverick-17B-128E-Instruct-v1":
        if j == 0:
            return [
                result(
                    "unspecified",
                    accept_length=value,
                    setting_=chain_setting(s),
                    source=src,
                    note="benchmark not named on the card",
                )
            ]
        if j == 1:
            return [
                result(
                    r["benchmark"],
                    speedup=2.18,
                    setting_=setting(topk=8, num_draft_tokens=10, engine="sglang"),
                    source=src,
                    note="num_steps swept; blog text attributes 2.18x to Maverick, "
                    "2.0x to Scout (figure values not in text)",
                )
            ]
    if hub == "lmsys/sglang-EAGLE3-Llama-4-Scout-17B-16E-Instruct-v1":
        return [
            result(
                r["benchmark"],
                speedup=2.0,
                setting_=setting(engine="sglang"),
                source=src,
                note="blog text; setting not stated",
            )
        ]
    if hub == "lmsys/EAGLE3-gpt-oss-120b-bf16":
        if j in (0, 1):
            bench_note = "several standard benchmarks (figure)" if j == 0 else "benchmark not named"
            return [
                result(
                    "unspecified",
                    speedup=speedup_value(value),
                    setting_=chain_setting(s, hardware="H200, TP4"),
                    source=src,
                    note=bench_note,
                )
            ]
        notes.append(
            "lmsys blog: this draft has a higher average acceptance length than "
            "nvidia/gpt-oss-120b-Eagle3 (numbers only in a figure)."
        )
        return []
    if hub.startswith("RedHatAI/") and "per_position_acceptance" in r:
        pos = ", ".join(str(x) for x in r["per_position_acceptance"])
        return [
            result(
                r["benchmark"],
                accept_length=value,
                setting_=setting(engine="vllm", num_steps=s["num_speculative_tokens"], temperature=0),
                source=src,
                note=f"vLLM regression-test baseline, 80 prompts, 256 output tokens, "
                f"num_speculative_tokens=3; per-position acceptance {pos}",
            )
        ]
    if hub == "RedHatAI/Llama-4-Maverick-17B-128E-Instruct-speculator.eagle3":
        bench = r["benchmark"].split(" (")[0]
        n = r["benchmark"].split(" (")[1].rstrip(")")
        return [
            result(
                bench,
                accept_length=v,
                setting_=setting(engine="vllm", num_steps=k, temperature=0.6),
                source=src,
                note=f"vLLM 0.11.0, num_speculative_tokens={k}, top_p 0.9, {n} prompts; "
                "card hardware unclear (2xA100 header, 8xB200 in config)",
            )
            for k, v in enumerate(r["values_k1_to_k7"], start=1)
        ]
    if hub == "nvidia/Llama-4-Maverick-17B-128E-Eagle3":
        if j == 1:
            notes.append(
                "Community report: seanmamasde/llama4-maverick-17B-128E-eagle3-sglang was trained with "
                "SpecForge because this draft did not work as well in an SGLang grid search "
                "(accept length ~1.04 at steps=3, topk=8, draft=10 for one config)."
            )
        else:
            notes.append("Acceptance lengths: see the RedHatAI speculators conversion (same weights).")
        return []
    if hub == "nvidia/gpt-oss-120b-Eagle3 (family: -short-context, -long-context, -throughput, -v2, -v3)":
        notes.append("lmsys blog says lmsys/EAGLE3-gpt-oss-120b-bf16 has a higher average acceptance length.")
        return []
    if hub == "Tengyunw/qwen3_8b_eagle3":
        if j == 0:
            return [
                result(
                    "unspecified",
                    throughput_tok_s=365.0,
                    baseline_tok_s=187.0,
                    setting_=setting(
                        engine="sglang", batch_size=1, num_steps=6, topk=10, num_draft_tokens=32, hardware="1xH200"
                    ),
                    source=src,
                    note="187 -> 365 tok/s; cuda-graph-max-bs 2",
                )
            ]
        return [
            result(
                "unspecified",
                throughput_tok_s=220.0,
                baseline_tok_s=90.0,
                setting_=setting(hardware="1xRTX 5090"),
                source=src,
                note="90 -> 220 tok/s",
            )
        ]
    if hub == "Tengyunw/qwen3_30b_moe_eagle3":
        return [
            result(
                "unspecified",
                throughput_tok_s=231.0,
                baseline_tok_s=147.0,
                setting_=setting(engine="sglang", hardware="1xH200"),
                source="https://github.com/SafeAILab/EAGLE/issues/198",
                note="147 -> 231 tok/s",
            )
        ]
    if hub.startswith("AngelSlim/"):
        return [
            result(
                r["benchmark"],
                accept_length=r["accept_length"],
                throughput_tok_s=r["throughput_tok_s"],
                baseline_tok_s=r["baseline_tok_s"],
                setting_=setting(),
                source=src,
                note="settings not captured",
            )
        ]
    if hub == "FasterDecoding/medusa-vicuna-7b-v1.3":
        if j == 0:
            notes.append("Medusa paper (arXiv 2401.10774): Medusa-1 >2.2x; Medusa-2 2.3-3.6x.")
        else:
            notes.append(
                "EAGLE-3 paper Table 1 reports Medusa on Vicuna-13B (a different head): MT-bench 2.07x, "
                "tau 2.59 at T=0."
            )
        return []
    if hub == "deepseek-ai/DeepSeek-V3 (native MTP module)":
        if j == 0:
            notes.append("DeepSeek-V3 report: second-token acceptance rate 85%-90% across generation topics.")
            return []
        if j == 1:
            return [
                result(
                    "unspecified",
                    speedup=1.8,
                    setting_=setting(num_steps=1),
                    source="https://arxiv.org/abs/2412.19437 (DeepSeek-V3 technical report)",
                    note="decode speedup (1.8x TPS)",
                )
            ]
        return [
            result(
                "mean",
                accept_length=v,
                setting_=setting(num_steps=7, temperature=t),
                source="https://huggingface.co/nebius/MTP-DeepSeek-V3-0324",
                note="original MTP, K=7, mean of MT-bench/HumanEval/GSM8K (Nebius card)",
            )
            for t, v in ((0, value["original_MTP_T0"]), (1, value["original_MTP_T1"]))
        ]
    if hub == "nebius/MTP-DeepSeek-V3-0324":
        if j == 0:
            notes.append(
                "Card, K=7, mean of MT-bench/HumanEval/GSM8K at [T=0, T=1]: original MTP [3.2, 3.09], "
                "MTP+KL fine-tune [4.79, 4.43], MTP+LK fine-tune [4.83, 4.68]."
            )
            return [
                result(
                    "mean",
                    accept_length=v,
                    setting_=setting(num_steps=7, temperature=t),
                    source="https://huggingface.co/nebius/MTP-DeepSeek-V3-0324",
                    note="MTP+LK fine-tune (this release), K=7, mean of MT-bench/HumanEval/GSM8K",
                )
                for t, v in zip((0, 1), value["MTP+LK_ft"], strict=True)
            ]
        return [
            result(
                b,
                accept_length=v,
                setting_=setting(),
                source="https://huggingface.co/nebius/MTP-DeepSeek-V3-0324",
                note="card model-index; setting not stated",
            )
            for b, v in value.items()
        ]
    if hub == "nebius/EAGLE3-Llama-3.3-70B-Instruct":
        card = "https://huggingface.co/nebius/EAGLE3-Llama-3.3-70B-Instruct"
        if j == 0:
            cmp_ = r["comparison"]["RedHatAI/Llama-3.3-70B-Instruct-speculator.eagle3"]
            notes.append(
                f"Card compares RedHatAI/Llama-3.3-70B-Instruct-speculator.eagle3 at K=7, T=1: "
                f"MT-bench/HumanEval/GSM8K {cmp_}."
            )
            return [
                result(b, accept_length=v, setting_=setting(num_steps=7, temperature=1), source=card, note="K=7")
                for b, v in zip(("MT-bench", "HumanEval", "GSM8K"), value, strict=True)
            ]
        notes.append(
            f"Card tau means (K=7): KL loss T=0 {value['KL_T0']}, T=1 {value['KL_T1']}; "
            f"LK loss T=0 {value['LK_T0']}, T=1 {value['LK_T1']}."
        )
        return [
            result(
                "mean",
                accept_length=v,
                setting_=setting(num_steps=7, temperature=t),
                source=card,
                note="LK loss (this release), K=7, mean of MT-bench/HumanEval/GSM8K",
            )
            for t, v in ((0, value["LK_T0"]), (1, value["LK_T1"]))
        ]
    raise SystemExit(f"no decision for irregular row {key}: {r}")


AQ_QWEN_ROWS: list[dict[str, Any]] = []


def convert_entry(i: int, e: dict[str, Any]) -> dict[str, Any]:
    notes: list[str] = []
    hub_id, extra = HUB_ID_FIX.get(e["hub_id"], (e["hub_id"], None))
    if extra:
        notes.append(extra)
    target_model, t_extra = TARGET_FIX.get(e["target_model"], (e["target_model"], None))
    if t_extra:
        notes.append(t_extra)
    if e["hub_id"].startswith("AQ-MedAI/Qwen3.5"):
        AQ_QWEN_ROWS[:] = e["reported_results"]
    architecture = e.get("architecture") or ""
    config, cfg_notes = clean_config(hub_id, e.get("config"), architecture)
    notes.extend(cfg_notes)
    target = e.get("target") or {}
    for k in ("native_mtp_layers", "notes", "native_mtp"):
        if target.get(k) not in (None, False):
            notes.append(f"Target: {target[k] if k != 'native_mtp' else 'ships a native MTP head'}.")
    aux = e.get("aux_layers") or {}
    aux_ids = aux.get("config_eagle_aux_hidden_state_layer_ids")
    if aux_ids is None and config:
        aux_ids = (config.get("eagle_config") or {}).get("eagle_aux_hidden_state_layer_ids")
    if aux_ids is None and config:
        aux_ids = config.get("eagle_aux_hidden_state_layer_ids")
    if aux.get("config_origin"):
        notes.append(f"Aux layer ids: {aux['config_origin']}.")
    td = e.get("training_data") or {}
    samples_text = td.get("num_samples")
    if hub_id in SAMPLES_FIX:
        samples = SAMPLES_FIX[hub_id]
    else:
        samples = parse_count(samples_text)
    tokens_text = td.get("tokens")
    tokens = parse_count(tokens_text)
    results = convert_results(i, e, notes)
    entry_note = NOTES_FIX.get(hub_id, e.get("notes"))
    if entry_note:
        notes.insert(0, entry_note)
    reported_params = (e.get("params") or {}).get("reported_params")
    if reported_params:
        notes.append(f"Reported parameters: {reported_params}.")
    return {
        "hub_id": hub_id,
        "method": e["method"],
        "publisher": e["publisher"],
        "official": bool(e["official"]),
        "target_model": target_model,
        "target_layers": target.get("num_hidden_layers"),
        "target_hidden_size": target.get("hidden_size"),
        "target_vocab_size": target.get("vocab_size"),
        "architecture": architecture,
        "config": config,
        "config_confidence": e.get("config_confidence") or "unknown",
        "config_source": e.get("config_source"),
        "aux_layer_ids": aux_ids,
        "train_samples": samples,
        "train_samples_text": samples_text,
        "train_tokens": tokens,
        "train_tokens_text": tokens_text,
        "datasets": td.get("datasets") or [],
        "results": results,
        "source_url": f"https://huggingface.co/{hub_id}",
        "references": [canonical_source(s) for s in e.get("sources") or []],
        "notes": " ".join(notes),
    }


def main(argv: list[str]) -> int:
    src = Path(argv[1]) if len(argv) > 1 else DEFAULT_SRC
    out = Path(argv[2]) if len(argv) > 2 else DEFAULT_OUT
    raw = json.loads(src.read_text())
    drafts = [convert_entry(i, e) for i, e in enumerate(raw)]
    ids = [d["hub_id"] for d in drafts]
    assert len(ids) == len(set(ids)), "duplicate hub ids"
    doc = {
        "schema": 1,
        "about": "Published speculative-decoding drafts and the results their publishers reported. Built once "
        "from the team's research notes by tools/build_registry.py, then checked by hand; the app "
        "reads only this file.",
        "drafts": drafts,
    }
    out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(drafts)} drafts, {sum(len(d['results']) for d in drafts)} results to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
