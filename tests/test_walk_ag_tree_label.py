"""Walk AG2: Overview (and the CLI's ``overview``) led "Live speed" with a tree named as a plain chain: "run #6
(sglang, num_steps=3) at batch 1, 99.4 tok/s ... 2.09x", where run #6 is num_steps 3, topk 4, 16 draft tokens and
chain run #4 (num_steps 3, 1.96x) reads the same. Every run setting Overview names is now the one label the plan and
"Chains or trees" use (``speedup.shape_words``): "num_steps 3, topk 4, 16 draft tokens" for a tree, "num_steps 3"
for a chain, in the lead and in "Other comparable pairs" alike.

The group as the walk measured it (batch 1, 8 requests, 128 tokens): SGLang baseline #1 and num_steps 1, 2, 3, 5
chains (#2-#5), the tree #6; a vLLM num_steps-3 run #7 (vLLM states no topk) against its baseline #11.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from comparelib.analysis import overview
from tests.fixtures import bench_store, cli_in_process, eagle3_tensors, stored_run
from tests.test_walk_ad_side_by_side import _draft_config, _target_config

DRAFT = "yourorg/qwen3-coder-30b-eagle3-v2"
TARGET = "Qwen/Qwen3-Coder-30B-A3B-Instruct"
GROUP = "qwen3-coder-v2-h200"
TREE = "num_steps 3, topk 4, 16 draft tokens"

# id, engine, (num_steps, topk, draft tokens) or None for a baseline, tok/s, acceptance
WALK = [
    (1, "sglang", None, 47.5, None),
    (2, "sglang", (1, 1, 2), 65.8, 1.75),
    (3, "sglang", (2, 1, 3), 81.1, 2.33),
    (4, "sglang", (3, 1, 4), 93.1, 2.78),
    (5, "sglang", (5, 1, 6), 78.5, 3.20),
    (6, "sglang", (3, 4, 16), 99.4, 3.20),
    (7, "vllm", (3, None, None), 85.4, 2.78),
    (11, "vllm", None, 42.5, None),
]


def _runs() -> list[Any]:
    out = []
    for id_, engine, shape, tok, al in WALK:
        steps, topk, ndt = shape or (None, None, None)
        out.append(
            stored_run(
                id_,
                steps,
                tok,
                al,
                engine=engine,
                draft=DRAFT if shape else None,
                model=TARGET,
                group=GROUP,
                topk=topk,
                ndt=ndt,
                concurrency=1,
                requests=8,
                max_tokens=128,
            )  # fmt: skip
        )
    return out


def test_the_live_pair_names_the_tree_with_its_topk_and_draft_tokens() -> None:
    live = overview.live_facts(_runs(), DRAFT)
    assert live is not None and (live.run_id, live.baseline_run_id) == (6, 1), live
    assert live.setting == TREE
    assert f"run #6 (sglang, {TREE}) at 99.4 tok/s" in live.sentence, live.sentence
    assert "num_steps=3" not in live.sentence, live.sentence
    # the other pair, a chain, in the same label
    assert live.others == ("vLLM EAGLE-3 batch 1, num_steps 3 at 2.01x (#7/#11)",), live.others


def test_overviews_live_speed_line_names_the_tree() -> None:
    from comparelib.analysis import summary
    from comparelib.models import registry
    from comparelib.models.draft import DraftTarget, OwnDraft

    lmsys = "lmsys/SGLang-EAGLE3-Qwen3-Coder-30B-A3B-Instruct-SpecForge"
    said = summary.summarise(
        OwnDraft(source=f"registry:{DRAFT}", samples=120_000, group=GROUP), None, registry.get_draft(lmsys), lmsys,
        _runs(), [], target=DraftTarget(TARGET, "named"), suggested=overview.Reference(lmsys, "", ""),
    )  # fmt: skip
    line = next(x for x in said.lines if x.startswith("- **Live speed** (measured): "))
    assert f"run #6 (sglang, {TREE}) at batch 1, " in line, line
    assert "num_steps=" not in line, line
    assert "Other comparable pairs at other settings: vLLM EAGLE-3 batch 1, num_steps 3 at 2.01x (#7/#11)." in line


def _store_walk() -> dict[int, int]:
    """The walk's group, stored as the bench page stores it; returns the walk's run ids to the stored ones."""
    store = bench_store()
    ids = {}
    for id_, engine, shape, tok, al in WALK:
        steps, topk, ndt = shape or (None, None, None)
        cfg = {
            "engine": engine,
            "model": TARGET,
            "speculative_algorithm": "EAGLE3" if shape else None,
            "draft_model": DRAFT if shape else None,
            "num_steps": steps,
            "topk": topk,
            "num_draft_tokens": ndt,
        }
        params = {"concurrency": 1, "requests": 8, "max_tokens": 128, "prompt_set": "bundled", "warmup": 1}
        rid = store.start_run(endpoint=f"http://127.0.0.1:186{id_:02d}", server_config=cfg, group=GROUP, params=params)
        store.finish_run(rid, {"requests": 8, "errors": 0, "output_tokens_per_s": tok, "accept_length": al})
        ids[id_] = int(rid)
    return ids


def test_the_overview_command_names_the_tree(hub: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    tensors = eagle3_tensors(2048, 8192, 151936, 32000, kv_dim=512)
    tensors["midlayer.self_attn.q_proj.weight"] = ((4096, 4096), "BF16")
    tensors["midlayer.self_attn.o_proj.weight"] = ((2048, 4096), "BF16")
    hub.add_model(TARGET, _target_config())
    hub.add_model(DRAFT, _draft_config(), tensors=tensors, card=f"---\nbase_model: {TARGET}\n---\n# draft\n")
    ids = _store_walk()
    source = f"{hub.url}/{DRAFT}"
    proc = cli_in_process(capsys, "overview", source, "--group", GROUP, "--samples", "120000")
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("- Live speed (measured): "))
    assert f"run #{ids[6]} (sglang, {TREE}) at batch 1, 99.4 tok/s" in line, line
    assert "num_steps=" not in line, line
    assert f"vLLM EAGLE-3 batch 1, num_steps 3 at 2.01x (#{ids[7]}/#{ids[11]})" in line, line

    proc = cli_in_process(capsys, "overview", source, "--group", GROUP, "--samples", "120000", "--json")
    assert proc.returncode == 0, proc.stderr
    live = json.loads(proc.stdout)["live"]
    assert (live["run_id"], live["num_steps"], live["setting"]) == (ids[6], 3, TREE), live
