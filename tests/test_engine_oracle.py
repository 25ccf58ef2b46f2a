"""The serving model against the engines' own code, case by case.

tests/data/engine_cases.json is written by tools/engine_oracle.py, which runs the id-handling functions of
sglang 0.5.23 / 0.5.1 and vllm 0.34.0 / 0.33.0 (pulled out of the released wheels with ``ast``) on a case table. Every
recorded row must come out of ``serving.serve`` the same: status, ids read, where from, boundaries captured,
fc width, citations. The live mode re-runs the extraction when the wheels are on disk (ENGINE_WHEELS).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from comparelib.models import serving

ROOT = Path(__file__).resolve().parents[1]
RECORDING = json.loads((ROOT / "tests" / "data" / "engine_cases.json").read_text())
CASES: list[dict[str, Any]] = RECORDING["cases"]
ROW_KEYS = ("status", "ids_read", "ids_from", "captured", "fc_in", "fc_in_checkpoint", "same_as_trained")


def _serve(case: dict[str, Any]) -> list[serving.Verdict]:
    return serving.serve(
        case["draft"],
        target_arch=case["target_arch"],
        n_layers=case["n"],
        target_hidden=case["target_hidden"],
        fc_in_checkpoint=case["fc_in_checkpoint"],
    )


def _case(name: str) -> dict[str, Any]:
    return next(c for c in CASES if c["name"] == name)


def _row(verdicts: list[serving.Verdict], label: str) -> serving.Verdict:
    return next(v for v in verdicts if f"{v.engine} {v.version}" + (f" {v.runner}" if v.runner else "") == label)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_every_recorded_row_matches_the_engine(case: dict[str, Any]) -> None:
    got = _serve(case)
    assert [(v.engine, v.version, v.runner) for v in got] == [
        (r["engine"], r["version"], r["runner"]) for r in case["serving"]
    ]
    for v, want in zip(got, case["serving"], strict=True):
        for key in ROW_KEYS:
            assert getattr(v, key) == want[key], f"{v.label} {key}"
        assert sorted(v.cite) == sorted(want["cite"]), v.label
        assert (v.reason == "") == (want["status"] == "ok")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_advice_matches_the_recording(case: dict[str, Any]) -> None:
    got = serving.advice(
        case["draft"],
        target_arch=case["target_arch"],
        n_layers=case["n"],
        target_hidden=case["target_hidden"],
        fc_in_checkpoint=case["fc_in_checkpoint"],
    )
    assert got.possible == case["advice"]["possible"]
    if got.possible:
        assert got.config == case["advice"]["config"]
    else:
        assert got.why


def test_every_citation_is_a_recorded_line() -> None:
    known = {str(c) for c in serving.CITES.values()}
    for case in CASES:
        for v in _serve(case):
            assert set(v.cite) <= known, v.label
    assert not RECORDING["citation_drift"]
    assert not RECORDING["hand_vs_auto"]


# ---- the issue's done-when items, spelled out --------------------------------------------------------------------
def test_kimi_draft_works_on_vllm_v2_because_its_ids_are_the_default() -> None:
    rows = _serve(_case("kimi draft [2,30,58] (SpecForge format)"))
    v2 = _row(rows, "vLLM 0.34.0 v2")
    assert (v2.status, v2.ids_from, v2.captured, v2.same_as_trained) == ("ok", "default", [2, 30, 58], True)
    assert "vllm 0.34.0 vllm/model_executor/models/interfaces.py:1785" in v2.cite
    assert any("interfaces.py:1772" in c for c in _row(rows, "vLLM 0.33.0 v2").cite)
    assert _row(rows, "vLLM 0.33.0 v1").ids_from == "eagle_config"


def test_two_id_specforge_draft_fails_on_vllm_default_runner_with_a_fix() -> None:
    case = _case("Llama 2 ids, SpecForge format [15,28] (fc 2H)")
    v2 = _row(_serve(case), "vLLM 0.34.0 v2")
    assert v2.status == "fails" and v2.captured == [2, 16, 29] and v2.fc_in == 2 * 4096
    fix = serving.advice(case["draft"], target_arch="LlamaForCausalLM", n_layers=32, target_hidden=4096)
    assert fix.possible and fix.config["eagle_aux_hidden_state_layer_ids"] == [16, 29]
    fixed = {**case["draft"], **{"eagle_aux_hidden_state_layer_ids": [16, 29]}}
    again = serving.serve(fixed, target_arch="LlamaForCausalLM", n_layers=32, target_hidden=4096)
    assert [v.status for v in again if v.engine == "vLLM"] == ["ok", "ok", "ok"]
    assert all(v.captured == [16, 29] for v in again if v.engine == "vLLM" or v.version == "0.5.23")


def test_mixtral_is_unsupported_everywhere() -> None:
    rows = _serve(_case("mixtral: no ids"))
    assert [v.status for v in rows] == ["unsupported"] * 5
    assert not serving.advice(
        _case("mixtral: no ids")["draft"], target_arch="MixtralForCausalLM", n_layers=32, target_hidden=4096
    ).possible


@pytest.mark.parametrize(
    ("name", "label", "status", "captured"),
    [
        ("seed [-1,29,57] on Kimi", "SGLang 0.5.23", "fails", None),
        ("id 0 on Kimi [0,30,58]", "vLLM 0.33.0 v1", "fails", None),
        ("Kimi N-1 [2,30,60]", "SGLang 0.5.23", "ok", [2, 30, 60]),
        ("Kimi out of range [2,30,99]", "SGLang 0.5.23", "fails", None),
        ("Kimi default ids (none), N=61", "vLLM 0.33.0 v1", "ok", [2, 30, 58]),
        ("Qwen3-8B default ids (none), N=36", "SGLang 0.5.1", "ok", [2, 18, 33]),
        ("Llama first id 1 [1,15,28]", "vLLM 0.33.0 v1", "ok", [1, 15, 28]),
        ("Llama N-1 [1,15,31]", "SGLang 0.5.23", "fails", [2, 16]),
        ("Llama -1 [-1,15,28]", "SGLang 0.5.1", "fails", None),
        ("Llama 4 ids, SpecForge format [1,10,20,28] (fc 4H)", "SGLang 0.5.1", "fails", None),
        ("Llama 2 ids, speculators format (llama layer) [16,29]", "vLLM 0.33.0 v2", "fails", None),
        ("Qwen3 2 ids, speculators format (qwen3 layer) [16,29]", "vLLM 0.33.0 v2", "ok", [16, 29]),
        ("8B draft (hidden 4096) on 70B target (8192), ids [1,39,76]", "SGLang 0.5.23", "fails", [2, 40, 77]),
        ("gpt-oss-120b ids with N [2,18,36]", "SGLang 0.5.23", "ok", [2, 18, 36]),
        ("Qwen3-MoE -2 [-2,23,44]", "SGLang 0.5.23", "ok", [24, 45, 47]),
        ("Qwen3-MoE N-1 [1,23,47]", "SGLang 0.5.23", "fails", None),
        ("Kimi top-level ids [2,30,58] only", "vLLM 0.33.0 v2", "ok", [2, 30, 58]),
        ("Kimi top-level ids [2,30,58] only", "SGLang 0.5.23", "ok", [2, 30, 58]),
        ("glm4_moe: no ids", "vLLM 0.33.0 v2", "unsupported", None),
        ("gemma3: no ids", "SGLang 0.5.23", "ok", [2, 31, 59]),
        ("glm5_dsa: no ids", "SGLang 0.5.1", "unsupported", None),
        ("minimax_m2: no ids", "vLLM 0.33.0 v2", "ok", [2, 31, 59]),
        ("qwen2_moe: no ids", "vLLM 0.33.0 v1", "unsupported", None),
        ("llama4: no ids", "SGLang 0.5.1", "ok", [2, 24, 45]),
        ("phi3: no ids", "SGLang 0.5.23", "ok", [2, 16, 29]),
        ("qwen3_next: no ids", "SGLang 0.5.1", "unsupported", None),
        # vLLM 0.34.0: V2 is the only runner, so eagle_config ids are never read (0.33.0's V1 read them)
        ("kimi own draft, first id 1: [1,29,57]", "vLLM 0.34.0 v2", "ok", [2, 30, 58]),
        ("id 0 on Kimi [0,30,58]", "vLLM 0.34.0 v2", "ok", [2, 30, 58]),
        ("Kimi top-level [3,31,59] + eagle_config [2,30,58]", "vLLM 0.34.0 v2", "ok", [3, 31, 59]),
        ("Llama 4 ids, SpecForge format [1,10,20,28] (fc 4H)", "vLLM 0.34.0 v2", "fails", [2, 16, 29]),
        ("Llama 2 ids, SpecForge format + top-level fix", "vLLM 0.34.0 v2", "ok", [16, 29]),
        ("Llama 2 ids, speculators format (llama layer) [16,29]", "vLLM 0.34.0 v2", "fails", None),
        ("Qwen3 4 ids, speculators format (qwen3 layer) [2,10,20,33]", "vLLM 0.34.0 v2", "ok", [2, 10, 20, 33]),
        ("gpt-oss-120b ids with N [2,18,36]", "vLLM 0.34.0 v2", "ok", [2, 18, 33]),
        ("glm5_dsa: no ids", "vLLM 0.34.0 v2", "ok", [2, 39, 75]),
        ("gemma3: no ids", "vLLM 0.34.0 v2", "unsupported", None),
        ("qwen2_moe: no ids", "vLLM 0.34.0 v2", "unsupported", None),
        ("minimax_m2: no ids", "vLLM 0.34.0 v2", "ok", [2, 31, 59]),
        # Ling-flash-2.0 (BailingMoeV2ForCausalLM, N=32): SGLang 0.5.23's hook (+1) and loop capture; 0.5.1 does not
        # register the class; vLLM's class has no SupportsEagle3. Ling-lite (v1, N=28): 0.5.1 registers it, no hook.
        ("bailing_moe_v2: no ids", "SGLang 0.5.23", "ok", [2, 16, 29]),
        ("bailing_moe_v2: SpecForge default-style ids [1,N//2-1,N-4]", "SGLang 0.5.23", "ok", [2, 16, 29]),
        ("bailing_moe_v2: no ids", "SGLang 0.5.1", "unsupported", None),
        ("bailing_moe_v2: no ids", "vLLM 0.34.0 v2", "unsupported", None),
        ("bailing_moe_v2: no ids", "vLLM 0.33.0 v1", "unsupported", None),
        ("bailing_moe: no ids", "SGLang 0.5.23", "ok", [2, 14, 25]),
        ("bailing_moe: no ids", "SGLang 0.5.1", "unsupported", None),
        ("bailing_moe: no ids", "vLLM 0.34.0 v2", "unsupported", None),
    ],
)
def test_issue_cases(name: str, label: str, status: str, captured: list[int] | None) -> None:
    v = _row(_serve(_case(name)), label)
    assert (v.status, v.captured) == (status, captured)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_vllm_034_runs_033s_v2_code(case: dict[str, Any]) -> None:
    """The recorded 0.34.0 row (its own wheel's functions run) equals 0.33.0's V2 row on every case: same lookup,
    default, setters and fc sizing; only the cited lines moved."""
    rows = {(r["version"], r["runner"]): r for r in case["serving"] if r["engine"] == "vLLM"}
    new, old = rows[("0.34.0", "v2")], rows[("0.33.0", "v2")]
    assert [new[k] for k in ROW_KEYS] == [old[k] for k in ROW_KEYS]
    assert ("0.34.0", "v1") not in rows
    assert all(c.startswith("vllm 0.34.0 ") for c in new["cite"])


def test_vllm_034_has_no_v1_runner() -> None:
    case = _case("kimi own draft, first id 1: [1,29,57]")
    (v1,) = serving.serve(
        case["draft"],
        target_arch=case["target_arch"],
        n_layers=case["n"],
        target_hidden=case["target_hidden"],
        rows=[("vLLM", "0.34.0", "v1")],
    )
    assert v1.status == "unsupported" and "VLLM_USE_V2_MODEL_RUNNER=0" in v1.reason
    assert v1.cite == ["vllm 0.34.0 vllm/platforms/interface.py:1484"]
    assert [v.label for v in _serve(case) if v.engine == "vLLM"] == [
        "vLLM 0.34.0 (v2, only runner)",
        "vLLM 0.33.0 (v2, default)",
        "vLLM 0.33.0 (v1, VLLM_USE_V2_MODEL_RUNNER=0)",
    ]


@pytest.mark.parametrize(
    ("kind", "label", "status", "cite"),
    [
        ("peagle", "vLLM 0.34.0 v2", "fails", "vllm 0.34.0 vllm/transformers_utils/configs/speculators/algos.py:55"),
        ("eagle3", "vLLM 0.34.0 v2", "ok", "vllm 0.34.0 vllm/model_executor/models/llama_eagle3.py:215"),
    ],
)
def test_vllm_034_rejects_p_eagle_drafts(kind: str, label: str, status: str, cite: str) -> None:
    draft = {
        "speculators_model_type": kind,
        "transformer_layer_config": {"model_type": "llama", "hidden_size": 4096},
        "eagle_aux_hidden_state_layer_ids": [2, 16, 29],
    }
    v = _row(serving.serve(draft, target_arch="LlamaForCausalLM", n_layers=32, target_hidden=4096), label)
    assert v.status == status and cite in v.cite
    assert ("P-EAGLE" in v.reason) == (status == "fails")


def test_ling_flash_rows_cite_the_bailing_code() -> None:
    rows = {v.label: v for v in _serve(_case("bailing_moe_v2: SpecForge default-style ids [1,N//2-1,N-4]"))}
    sg = rows["SGLang 0.5.23"]
    assert "sglang 0.5.23 sglang/srt/models/bailing_moe.py:1109" in sg.cite  # [val + 1 for val in layer_ids]
    assert "sglang 0.5.23 sglang/srt/models/bailing_moe.py:840" in sg.cite  # if i in self.layers_to_capture
    assert rows["SGLang 0.5.1"].reason == "SGLang 0.5.1 does not register BailingMoeV2ForCausalLM"
    for label, version in (("vLLM 0.34.0 (v2, only runner)", "0.34.0"), ("vLLM 0.33.0 (v2, default)", "0.33.0")):
        v = rows[label]
        assert "does not implement SupportsEagle3" in v.reason
        assert f"vllm {version} vllm/model_executor/models/bailing_moe.py:568" in v.cite
        assert f"vllm {version} vllm/model_executor/models/bailing_moe.py:486" in v.cite


def test_speculators_draft_never_loads_in_sglang_and_names_the_missing_class() -> None:
    rows = _serve(_case("Llama 3 ids, speculators format [2,16,29]"))
    assert [v.status for v in rows[:2]] == ["unsupported", "unsupported"]
    assert "Eagle3Speculator" in rows[0].reason


@pytest.mark.parametrize(
    ("names", "want"),
    [
        (("KimiK25ForConditionalGeneration",), "KimiK25ForConditionalGeneration"),
        (("DeepseekV2ForCausalLM",), "DeepseekV3ForCausalLM"),
        ((None, "kimi_k2"), "DeepseekV3ForCausalLM"),
        (("Gemma3ForCausalLM",), "Gemma3ForConditionalGeneration"),
        (("FalconForCausalLM", "falcon"), None),
        (("Glm4MoeLiteForCausalLM",), None),
        (("BailingMoeV2ForCausalLM", "bailing_moe"), "BailingMoeV2ForCausalLM"),
        ((None, "bailing_moe_v2"), "BailingMoeV2ForCausalLM"),
        ((None, "bailing_moe", "bailing-moe"), None),  # names Ling-lite's class and Ling 2.0's alike
    ],
)
def test_target_class(names: tuple[str | None, ...], want: str | None) -> None:
    assert serving.target_class(*names) == want


@pytest.mark.parametrize(
    ("hub_id", "want"),
    [
        ("inclusionAI/Ling-flash-2.0", "BailingMoeV2ForCausalLM"),
        ("inclusionAI/Ling-mini-base-2.0", "BailingMoeV2ForCausalLM"),
        ("inclusionAI/Ring-1T", "BailingMoeV2ForCausalLM"),
        ("inclusionAI/Ring-flash-linear-2.0", None),  # BailingMoeV2_5 (hybrid linear attention): no rules here
        ("inclusionAI/Ling-lite-1.5", "BailingMoeForCausalLM"),
        ("acme/sapling-mini-2.0", None),
    ],
)
def test_ling_names_give_their_class(hub_id: str, want: str | None) -> None:
    assert serving.target_class_from_name(hub_id) == want


@pytest.mark.parametrize(
    ("choice", "rows"),
    [
        (None, 5),
        ("vLLM 0.33.0", 2),
        ("vLLM", 1),
        ("vLLM 0.34.0", 1),
        ("vLLM 0.34.0 v1", 0),
        ("vLLM 0.33.0 v1", 1),
        ("SGLang 0.5.1", 1),
        ("SGLang", 1),
        ("SGLang 9.9", 0),
    ],
)
def test_parse_rows(choice: str | None, rows: int) -> None:
    assert len(serving.parse_rows(choice)) == rows


WHEELS = os.environ.get("ENGINE_WHEELS", "")


@pytest.mark.skipif(not WHEELS or not Path(WHEELS).is_dir(), reason="live mode: set ENGINE_WHEELS to unzipped wheels")
def test_live_oracle_reproduces_the_recording(tmp_path: Path) -> None:
    out = tmp_path / "cases.json"
    subprocess.run(
        [sys.executable, str(ROOT / "tools" / "engine_oracle.py"), "--wheels", WHEELS, "--out", str(out)], check=True
    )
    live = json.loads(out.read_text())
    assert not live["citation_drift"]
    assert [c["serving"] for c in live["cases"]] == [c["serving"] for c in CASES]


def test_mixtral_target_reads_unsupported_on_both_engines_through_params(tmp_path: Path) -> None:
    from comparelib.models import comparison, registry

    target_dir, draft_dir = tmp_path / "mixtral", tmp_path / "draft"
    target_dir.mkdir()
    draft_dir.mkdir()
    mixtral = {
        "architectures": ["MixtralForCausalLM"],
        "model_type": "mixtral",
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "num_local_experts": 8,
        "num_experts_per_tok": 2,
        "vocab_size": 32000,
    }
    (target_dir / "config.json").write_text(json.dumps(mixtral))
    draft = json.loads((registry.EXAMPLE_OWN_DRAFT / "config.json").read_text())
    draft.update(hidden_size=4096, vocab_size=32000, draft_vocab_size=32000)
    (draft_dir / "config.json").write_text(json.dumps(draft))
    entry = comparison.load_entry(str(draft_dir), target=str(target_dir), with_header=False)
    rows = comparison.entry_json(entry)["serving"]
    assert [r["status"] for r in rows] == ["unsupported"] * 5
    assert {r["engine"] for r in rows} == {"SGLang", "vLLM"}
    codes = {(f.severity, f.code) for f in entry.findings}
    assert ("error", "engine-unsupported") in codes
