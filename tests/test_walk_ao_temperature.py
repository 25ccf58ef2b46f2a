"""Walk AO1: Overview set our draft against nebius/EAGLE3-Llama-3.3-70B-Instruct's HumanEval 5.08 and GSM8K 5.01
(steps=7,T=1) and went on "At that setting it also publishes mean 4.81 and MT-Bench 3.89", but its card gives the
mean as 4.81 at T=0 and 4.66 at T=1: the other benchmarks were picked by num_steps alone, temperature ignored. They
are now those at exactly the settings the range was read at (``AcceptFacts.elsewhere``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from comparelib.analysis import overview
from tests.fixtures import bench_store, cli_in_process, eagle3_tensors

NEBIUS = "nebius/EAGLE3-Llama-3.3-70B-Instruct"
TARGET = "meta-llama/Llama-3.3-70B-Instruct"
DRAFT = "l33lab/llama33-70b-eagle3"
GROUP = "l33-g1"
DRAFT_CONFIG: dict[str, Any] = {  # a one-layer EAGLE-3 draft for Llama-3.3-70B over its full vocabulary
    "architectures": ["LlamaForCausalLMEagle3"],
    "model_type": "llama",
    "hidden_size": 8192,
    "intermediate_size": 28672,
    "num_hidden_layers": 1,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "vocab_size": 128256,
    "draft_vocab_size": 128256,
    "max_position_embeddings": 131072,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 39, 76], "use_aux_hidden_state": True},
}
# the registry's nebius figures (comparelib/builtin/registry.json), from its model card
ROWS = [
    ("mtbench", 3.89, "steps=7,T=1"),
    ("humaneval", 5.08, "steps=7,T=1"),
    ("gsm8k", 5.01, "steps=7,T=1"),
    ("mean", 4.81, "steps=7,T=0"),
    ("mean", 4.66, "steps=7,T=1"),
]


def _results() -> pd.DataFrame:
    return pd.DataFrame([{"hub_id": NEBIUS, "benchmark": b, "accept_length": a, "setting_key": k} for b, a, k in ROWS])


def test_the_other_benchmarks_are_those_at_the_same_temperature() -> None:
    own_key = "steps=3,topk=1,draft=4,bs=32,vllm"
    acc = overview.accept_facts(2.50, own_key, NEBIUS, results=_results())
    assert acc.ref_settings == ("steps=7,T=1",), acc
    assert dict(acc.elsewhere) == {"mtbench": 3.89, "mean": 4.66}, acc.elsewhere
    line = overview.accept_line(acc, NEBIUS, "2.50", own_key, measured=True)
    assert "At that setting it also publishes mean 4.66 and MT-Bench 3.89." in line, line
    assert "4.81" not in line, line


def test_a_figure_at_the_same_steps_and_another_temperature_alone_is_left_out() -> None:
    rows = pd.DataFrame(
        [
            {"hub_id": NEBIUS, "benchmark": "gsm8k", "accept_length": 5.01, "setting_key": "steps=7,T=1"},
            {"hub_id": NEBIUS, "benchmark": "mtbench", "accept_length": 4.20, "setting_key": "steps=7,T=0"},
        ]
    )
    acc = overview.accept_facts(2.50, "steps=3,topk=1,draft=4,bs=1,sglang", NEBIUS, results=rows)
    assert acc.elsewhere == (), acc.elsewhere
    assert "also publishes" not in overview.accept_line(acc, NEBIUS, "2.50", None, measured=False)


def test_the_overview_command_names_the_figures_at_that_temperature(
    hub: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = Path(__file__).parents[1] / "comparelib" / "builtin" / "targets"
    hub.add_model(TARGET, json.loads((root / "meta-llama--Llama-3.3-70B-Instruct.json").read_text()))
    tensors = eagle3_tensors(8192, 28672, 128256, 128256, kv_dim=1024)
    hub.add_model(DRAFT, DRAFT_CONFIG, tensors=tensors, card=f"---\nbase_model: {TARGET}\n---\n# draft\n")
    store = bench_store()  # the walk's vLLM num_steps-3 pair at batch 32
    for steps, tok, al in ((None, 1024.0, None), (3, 1638.4, 2.50)):
        cfg = {
            "engine": "vllm",
            "model": TARGET,
            "speculative_algorithm": "EAGLE3" if steps else None,
            "draft_model": DRAFT if steps else None,
            "num_steps": steps,
            "topk": 1 if steps else None,
            "num_draft_tokens": 4 if steps else None,
        }
        params = {"concurrency": 32, "requests": 64, "max_tokens": 256, "prompt_set": "gsm8k", "warmup": 1}
        rid = store.start_run(endpoint="http://127.0.0.1:18600", server_config=cfg, group=GROUP, params=params)
        store.finish_run(rid, {"requests": 64, "errors": 0, "output_tokens_per_s": tok, "accept_length": al})
    source = f"{hub.url}/{DRAFT}"
    args = ("overview", source, "--group", GROUP, "--samples", "120000", "--reference", NEBIUS, "--no-kept-log")
    proc = cli_in_process(capsys, *args)
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("- Acceptance length: "))
    assert "At that setting it also publishes mean 4.66 and MT-Bench 3.89." in line, line
    assert "4.81" not in line, line

    proc = cli_in_process(capsys, *args, "--json")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "At that setting it also publishes mean 4.66 and MT-Bench 3.89." in out, out[:3000]
    assert "mean 4.81" not in out, out[:3000]
