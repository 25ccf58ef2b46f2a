"""Walk AI: the target's own MTP layers measured at two batches beside your draft (Qwen3-Next-80B-A3B, SGLang).

The walk's group q3next-sg: #1 baseline batch 1 (77.27 tok/s), #2 and #3 your draft at num_steps 2 and 4
(129.06, 163.82), #4 MTP (SGLang NEXTN, reported as algorithm EAGLE with the target as its draft) num_steps 3
(184.78); #5 baseline batch 16 (731.33), #6 and #7 your draft (1191.24, 1429.61), #8 MTP (1067.20).

Overview compared the MTP layers at batch 16 only ("measured slower than your draft: run #8 at 1067.2 tok/s
against your run #7 at 1429.6 tok/s") and named #4 "another draft left out", though at batch 1 MTP #4 measured
184.8 tok/s against the draft's best #3 at 163.8 (12.8% faster); the plan on the same page said faster (batch 1).
``overview.native_mtp`` now compares at every batch both were measured, says each, and warns where MTP is faster.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from comparelib.analysis import overview
from tests.fixtures import bench_config, bench_store, cli_in_process, page_app, page_text

TARGET = "Qwen/Qwen3-Next-80B-A3B-Instruct"
GROUP = "q3next-sg"


def _draft_folder(tmp_path: Path) -> Path:
    """The walk's EAGLE-3 draft (hidden 2048, one layer, 32000-token draft vocabulary), its card naming the target."""
    folder = tmp_path / "qwen3-next-eagle3"
    folder.mkdir()
    config = {
        "architectures": ["LlamaForCausalLMEagle3"],
        "hidden_act": "silu",
        "hidden_size": 2048,
        "intermediate_size": 16384,
        "max_position_embeddings": 262144,
        "model_type": "llama",
        "num_attention_heads": 16,
        "num_key_value_heads": 2,
        "head_dim": 256,
        "num_hidden_layers": 1,
        "rms_norm_eps": 1e-06,
        "rope_theta": 10000000,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        "vocab_size": 151936,
        "draft_vocab_size": 32000,
    }
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "README.md").write_text(f"---\nbase_model: {TARGET}\nlibrary_name: sglang\n---\n# mine\n")
    return folder


def _put(folder: Path, steps: int | None, tok_s: float, *, batch: int, mtp: bool = False) -> int:
    """One run as the Live benchmark page stores it; an MTP run as SGLang reports NEXTN: EAGLE, the target as draft."""
    store = bench_store()
    draft = (TARGET if mtp else str(folder)) if steps else None
    config = bench_config(
        "sglang", TARGET, steps, draft=draft, topk=1 if steps else None, ndt=steps + 1 if steps else None
    )
    if mtp:
        config["speculative_algorithm"] = "EAGLE"
    params = {"concurrency": batch, "requests": 64, "max_tokens": 256, "prompt_set": "bundled"}
    rid = store.start_run(endpoint="http://sglang:30000", server_config=config, group=GROUP, params=params)
    summary: dict[str, Any] = {"requests": 64, "errors": 0, "output_tokens_per_s": tok_s}
    store.finish_run(rid, summary)
    return rid


def _walk_ai(folder: Path) -> None:
    assert _put(folder, None, 77.27, batch=1) == 1
    _put(folder, 2, 129.06, batch=1)
    _put(folder, 4, 163.82, batch=1)
    _put(folder, 3, 184.78, batch=1, mtp=True)
    _put(folder, None, 731.33, batch=16)
    _put(folder, 2, 1191.24, batch=16)
    _put(folder, 4, 1429.61, batch=16)
    assert _put(folder, 3, 1067.20, batch=16, mtp=True) == 8


FASTER_B1 = "faster at batch 1 (run #4 at 184.8 tok/s against your run #3 at 163.8 tok/s"
SLOWER_B16 = "slower at batch 16 (run #8 at 1067.2 tok/s against your run #7 at 1429.6 tok/s"


@pytest.mark.parametrize("batch", [None, 1, 16])
def test_native_mtp_compares_at_every_batch(tmp_path: Path, batch: int | None) -> None:
    folder = _draft_folder(tmp_path)
    _walk_ai(folder)
    found = overview.native_mtp(bench_store().runs(group=GROUP), str(folder), batch=batch)
    assert found is not None
    # whichever batch is asked first, MTP was measured faster at batch 1: the verdict the plan and Overview read
    assert found.faster and found.verdict == "faster", found.sentence
    assert (found.mtp.id, found.yours.id) == (4, 3), found.sentence
    said = {(b.mtp.id, b.yours.id, b.verdict) for b in found.batches}
    assert said == {(4, 3, "faster"), (8, 7, "slower")}, said
    assert FASTER_B1 in found.sentence and SLOWER_B16 in found.sentence, found.sentence
    assert "batch 1" in found.short and "184.8" in found.short, found.short
    js = found.to_json()
    assert [(b["batch"], b["verdict"]) for b in js["per_batch"]] == [(1, "faster"), (16, "slower")], js


def test_cli_overview_json_and_plan_agree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _draft_folder(tmp_path)
    _walk_ai(folder)
    proc = cli_in_process(capsys, "overview", str(folder), "--group", GROUP, "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    mtp = out["native_mtp"]
    assert mtp["verdict"] == "faster" and mtp["mtp_run_id"] == 4 and mtp["your_run_id"] == 3, mtp
    assert FASTER_B1 in mtp["sentence"] and SLOWER_B16 in mtp["sentence"], mtp
    notes = {n["text"]: n["kind"] for n in out["notes"]}
    hit = [t for t in notes if FASTER_B1 in t]
    assert hit and notes[hit[0]] == "warning", notes
    assert not any("another draft left out" in t and "#4" in t for t in notes), notes
    assert "own MTP layers were measured faster" in (out["plan"]["lead"] or ""), out["plan"]


def test_overview_page_warns_of_mtp_faster_at_batch_1(tmp_path: Path) -> None:
    folder = _draft_folder(tmp_path)
    _walk_ai(folder)
    at = page_app("pages/overview.py", timeout=90)
    at.query_params["draft"] = str(folder)
    at.query_params["draft_group"] = GROUP
    at.run()
    assert not at.exception, at.exception
    text = page_text(at)
    warnings = "\n".join(w.value for w in at.warning)
    assert FASTER_B1 in warnings and SLOWER_B16 in warnings, warnings
    assert "measured slower than your draft: run #8" not in text, text
    assert "run of another draft left out: #4" not in text and "runs of another draft left out: #4" not in text, text
