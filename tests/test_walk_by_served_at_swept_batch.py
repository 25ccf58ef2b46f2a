"""Walk BY 1 (normal): vLLM, batch 1 baseline #21 and num_steps 1-4 (#11-#13, #20; 3 fastest, served), batch 16
baseline #14 and num_steps 1-3 (#15-#17; 2 fastest, 1,308.6 tok/s, against 1,199.4 at the served 3). The plan's
"what is served" at batch 16 was run #17 (num_steps 3), while its more-data row scaled run #16 (num_steps 2) and
called it what batch 16 serves; and nowhere did the plan say that at batch 16 num_steps 2 measured 9.1% faster than
the served 3. One served run per batch (the served num_steps where a run measured it), and the loss said."""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from pathlib import Path
from typing import Any

from comparelib.analysis import plan
from comparelib.models import comparison
from tests.fixtures import stored_run
from tests.test_walk_ah_steps_agree import DRAFT_CONFIG

TARGET = "openai/gpt-oss-120b"
DRAFT = "wby-lab/gptoss120-eagle3-pinecone"


def _runs() -> list[Any]:
    kw: dict[str, Any] = dict(engine="vllm", model=TARGET, group="pc", max_tokens=256)
    b1: dict[str, Any] = {**kw, "concurrency": 1, "requests": 16}
    b16: dict[str, Any] = {**kw, "concurrency": 16, "requests": 64}
    return [
        stored_run(11, 1, 162.5, 1.50, draft=DRAFT, **b1),
        stored_run(12, 2, 184.4, 1.90, draft=DRAFT, **b1),
        stored_run(13, 3, 214.9, 2.20, draft=DRAFT, **b1),
        stored_run(14, None, 752.2, None, draft=None, **b16),
        stored_run(15, 1, 1137.6, 1.50, draft=DRAFT, **b16),
        stored_run(16, 2, 1308.6, 1.90, draft=DRAFT, **b16),
        stored_run(17, 3, 1199.4, 2.20, draft=DRAFT, **b16),
        stored_run(20, 4, 208.8, 2.40, draft=DRAFT, **b1),
        stored_run(21, None, 118.0, None, draft=None, **b1),
    ]


def _plan(tmp_path: Path) -> plan.Plan:
    cfg: dict[str, Any] = copy.deepcopy(DRAFT_CONFIG)
    cfg["speculators_config"]["verifier"]["name_or_path"] = TARGET
    folder = tmp_path / "draft"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(cfg))
    entry = comparison.load_entry(str(folder), with_header=False, with_card=False)
    return plan.build(plan.inputs_for(entry, runs=_runs(), own_samples=250_000.0), rank_batch=1)


def test_one_served_run_at_a_swept_batch_and_its_loss_said(tmp_path: Path) -> None:
    result = _plan(tmp_path)
    assert result.current["served_steps"] == 3
    assert result.current["tok_s_measured"]["16"]["runs"] == [17], result.current["tok_s_measured"]
    md = next(o for o in result.options if o.kind == "more-data")
    note = md.note or ""
    assert "batch 16: num_steps 2, its fastest measured run" not in note, note
    assert "batch 16: num_steps 3, what is served there (run #17)" in note, note  # the run "Served now" reads
    ns = next(o for o in result.options if o.kind == "num-steps")
    said = re.search(
        r"At batch 16 the served num_steps 3 measured 1,199\.4 tok/s \(run #17\): num_steps 2 measured 1,308\.6 "
        r"tok/s \(run #16\), \+109\.2 tok/s \(\+9\.1%\)",
        ns.note or "",
    )
    assert said is not None, ns.note


def test_the_lead_that_finds_no_gain_names_the_measured_gain_at_another_batch(tmp_path: Path) -> None:
    """Walk BZ 1 (normal): ranked at batch 1 the lead said "No option is predicted to gain beyond run-to-run noise"
    while its num_steps row said num_steps 2 measured +18.2% over the served 3 at batch 32: the lead says it too."""
    result = _plan(tmp_path)
    beaten = result.current["served_beaten"]
    assert [(d["batch"], d["best_steps"], d["best_runs"], d["served_runs"]) for d in beaten] == [(16, 2, [16], [17])]
    # the wiring row ranks first here; with the num_steps row first (no gain at batch 1) the lead is the one BZ read
    ns = next(o for o in result.options if o.kind == "num-steps")
    lead = plan.lead(dataclasses.replace(result, options=[ns])) or ""
    assert lead.startswith("**No option is predicted to gain beyond run-to-run noise"), lead
    assert (
        "At batch 16 num_steps 2 measured 1,308.6 tok/s (run #16), +9.1% over the served 3's 1,199.4 (run #17), "
        "though: see the num_steps row." in lead
    ), lead
