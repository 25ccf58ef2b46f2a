"""Acceptance vs data reads your acceptance at its own setting where the reference publishes none (walk BA, 2).

Walk BA's Qwen3-30B-A3B group (vLLM, batch 8) measured num_steps 2, 3, 4: acceptance 2.21, 2.61, 2.98. The reference,
Tengyunw/qwen3_30b_moe_eagle3, publishes no acceptance setting; the page aimed at lmsys's 2.64 on GSM8K at
steps=3,topk=1,draft=4,bs=8 and said "Your acceptance: 2.98, run #8 (the speculative run of the best comparable
pair)": a 4-step run beside a 3-step target, where run #7 measured 2.61 at 3 steps.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from tests.fixtures import bench_config, bench_store, page_app, store_run

TARGET = "Qwen/Qwen3-30B-A3B"
GROUP = "q3moe-ba"
SWEEP = {0: (604.21, None), 2: (1116.27, 2.2069), 3: (1103.46, 2.6122), 4: (1140.29, 2.9767)}
CONFIG = {
    "architectures": ["Eagle3Speculator"],
    "speculators_model_type": "eagle3",
    "draft_vocab_size": 32000,
    "norm_before_residual": True,
    "eagle_aux_hidden_state_layer_ids": [2, 24, 45],
    "transformer_layer_config": {
        "model_type": "llama",
        "hidden_size": 2048,
        "intermediate_size": 6144,
        "num_attention_heads": 32,
        "num_key_value_heads": 4,
        "head_dim": 128,
        "num_hidden_layers": 1,
        "vocab_size": 151936,
        "rms_norm_eps": 1e-06,
    },
    "speculators_config": {"verifier": {"name_or_path": TARGET, "architectures": ["Qwen3MoeForCausalLM"]}},
}


def _page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[AppTest, dict[int, int]]:
    monkeypatch.setenv("SPECDRAFT_DATA_ROOT", str(tmp_path))
    folder = tmp_path / "qwen3-30b-ba-eagle3"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(CONFIG))
    ids = {}
    for k, (tok_s, al) in SWEEP.items():
        cfg = bench_config("vllm", TARGET, k or None, draft=str(folder) if k else None, topk=None, ndt=None)
        summary: dict[str, Any] = {"requests": 16, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": al}
        ids[k] = store_run(bench_store(), cfg, summary, group=GROUP, concurrency=8)
    at = page_app("../pages/scaling.py", timeout=90)
    at.query_params["draft"] = str(folder)
    at.query_params["draft_group"] = GROUP
    at.query_params["draft_samples"] = "12000"
    at.run()
    assert not at.exception, at.exception
    return at, ids


def test_your_acceptance_is_read_at_the_pages_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at, ids = _page(tmp_path, monkeypatch)
    assert at.selectbox(key="sc_ref").value == "Tengyunw/qwen3_30b_moe_eagle3"  # it publishes no acceptance setting
    said = next(c.value for c in at.caption if "Your acceptance:" in c.value)
    line = next(x for x in said.split("\n") if x.startswith("Your acceptance:"))
    assert line.startswith(f"Your acceptance: 2.61, run #{ids[3]} (at the published chain of steps=3,"), line
    # Overview reads the reference's settings only: its run is named, not claimed to be the same
    assert f"Overview reads run #{ids[4]} (2.98" in line and "the run Overview reads too" not in line, line
