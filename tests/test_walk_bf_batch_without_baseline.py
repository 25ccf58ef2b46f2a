"""A batch measured by a speculative run with no baseline there is a measured batch in the plan (walk BF, 1).

Walk BF's group held batch-1 runs (a baseline, num_steps 3 and 5) and one run at batch 8 (num_steps 3, 679.66 tok/s,
AL 2.91) with no batch-8 baseline. The plan said "batches 8 and 64: ... predicted (no run measured those batches, so
none is served there yet)", and at --rank-batch 8 "Served now at batch 8: 736.0 tok/s at num_steps 5, predicted from
batch 1 runs ... (no run measured it at batch 8)": the batch-8 run was dropped for want of a baseline, which a cycle
does not need (AL x batch / tok/s).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from comparelib.models import registry
from tests.fixtures import bench_config, bench_store, cli_in_process, store_run

TARGET = "meta-llama/Llama-3.1-8B-Instruct"


def _group(tmp_path: Path) -> tuple[str, list[int]]:
    d = tmp_path / "l8-draft"
    d.mkdir()
    cfg = dict(registry.get_draft("lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge").config)
    cfg["eagle_config"] = {"eagle_aux_hidden_state_layer_ids": [1, 15, 28]}
    (d / "config.json").write_text(json.dumps(cfg))
    (d / "README.md").write_text(f"---\nbase_model: {TARGET}\n---\n")

    def run(k: int | None, tok_s: float, al: float | None, batch: int) -> int:
        c = bench_config(
            "sglang", TARGET, k, draft=str(d) if k else None, topk=1 if k else None, ndt=k + 1 if k else None
        )
        summary = {"requests": 16, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": al}
        return store_run(bench_store(), c, summary, group="bf", concurrency=batch)

    ids = [run(None, 37.6, None, 1), run(3, 88.4, 2.91, 1), run(5, 92.0, 3.45, 1), run(3, 679.66, 2.91, 8)]
    return str(d), ids


def test_the_batch_8_run_is_what_is_served_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SPECDRAFT_DATA_ROOT", str(tmp_path))
    source, ids = _group(tmp_path)
    at8 = cli_in_process(capsys, "plan", source, "--group", "bf", "--samples", "8000", "--rank-batch", "8")
    assert at8.returncode == 0, at8.stderr
    assert f"Served now at batch 8: 679.7 tok/s, measured (run #{ids[3]}, num_steps 3)" in at8.stdout, at8.stdout
    at1 = cli_in_process(capsys, "plan", source, "--group", "bf", "--samples", "8000")
    assert at1.returncode == 0, at1.stderr
    text = " ".join(at1.stdout.split())
    assert "no run measured those batches" not in text and "no run measured it at batch 8" not in text, text
    assert f"batch 8: one num_steps measured, 3, at 679.7 tok/s measured in run #{ids[3]}" in text, text
    # the num_steps row's batch-8 figure is run #4's measurement, not the current's prediction there
    assert f"bs8: 679.7 (measured: run #{ids[3]})" in text, text
