"""Walk AR 1: a group swept num_steps 1..5 at batch 1 (baseline #12, runs #13..#17) and measured batch 16 at one
num_steps (baseline #18, num_steps 3 in run #19). Ranked at batch 16, the plan's num-steps row named "batch 16: 3 at
738.0 tok/s measured in run #19" as the best and said "The served num_steps is the best or ties it within 2% at batch
1, 8, 16: no other num_steps gains there beyond noise", while the speedup page says what another draft step costs is
not known there and Acceptance vs data says only one num_steps was measured. At such a batch the best is not known:
the row says so, and keeps run #19's 738.0 tok/s as measured."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

from comparelib.analysis import plan
from comparelib.models import comparison
from tests.fixtures import stored_run
from tests.test_walk_ah_steps_agree import DRAFT_CONFIG

TARGET = "openai/gpt-oss-20b"
DRAFT = "gptosslab/gpt-oss-20b-eagle3-v2"


def _runs() -> list[Any]:
    kw: dict[str, Any] = dict(engine="vllm", model=TARGET, group="g", requests=64, max_tokens=256)
    b1 = [(13, 1, 57.85, 1.9), (14, 2, 73.86, 2.5), (15, 3, 79.32, 2.98), (16, 4, 65.34, 3.2), (17, 5, 58.29, 3.35)]
    return [
        stored_run(12, None, 44.07, None, draft=None, concurrency=1, **kw),
        *(stored_run(i, k, t, al, draft=DRAFT, concurrency=1, **kw) for i, k, t, al in b1),
        stored_run(18, None, 477.16, None, draft=None, concurrency=16, **kw),
        stored_run(19, 3, 737.96, 2.95, draft=DRAFT, concurrency=16, **kw),
    ]


def _inputs(tmp_path: Path) -> plan.Inputs:
    cfg: dict[str, Any] = copy.deepcopy(DRAFT_CONFIG)
    cfg["speculators_config"]["verifier"]["name_or_path"] = TARGET
    folder = tmp_path / "draft"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(cfg))
    entry = comparison.load_entry(str(folder), with_header=False, with_card=False)
    return plan.inputs_for(entry, runs=_runs(), own_samples=300_000.0)


def _num_steps_note(result: plan.Plan) -> str:
    (ns,) = [o for o in result.options if o.kind == "num-steps"]
    return ns.note


def test_ranked_at_the_one_step_batch_no_best_is_named_there(tmp_path: Path) -> None:
    note = _num_steps_note(plan.build(_inputs(tmp_path), rank_batch=16))
    assert "batch 16: 3 at" not in note, note  # named as the best
    assert re.search(
        r"batch 16: one num_steps measured, 3, at 738\.0 tok/s measured in run #19 \(the best there is not known", note
    ), note
    served = re.search(r"The served num_steps is the best or ties it [^:]*: no other", note)
    assert served is not None, note
    assert "16" not in served.group(0), served.group(0)
    (ns,) = [o for o in plan.build(_inputs(tmp_path / "again"), rank_batch=16).options if o.kind == "num-steps"]
    best = next(e["value"] for e in ns.evidence if e["what"] == "best num_steps per batch")
    assert "16" not in best and best["1"] == 3, best
    # batch 1, swept there, still names its measured best
    assert "batch 1: 3 at 79.3 tok/s measured in run #15" in note, note


def test_ranked_at_batch_1_the_swept_batch_16_says_one_num_steps(tmp_path: Path) -> None:
    note = _num_steps_note(plan.build(_inputs(tmp_path), rank_batch=1))
    assert "batch 16 (one num_steps measured, run #19)" in note, note
    served = re.search(r"The served num_steps is the best or ties it [^:]*: no other", note)
    assert served is None or "16" not in served.group(0), note
