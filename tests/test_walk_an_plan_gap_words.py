"""Walk AN 1, the plan's side: at a batch whose own sweep the model misses by more than 3%, the plan's num_steps row
ended "the best is picked on the measurements there" whatever it picked. With runs at num_steps 1, 2, 3 (130, 150,
190 tok/s) the pick at batch 1 is a predicted 6, so that clause was false; the speedup page says "measured num_steps
are weighed on their measurements, and the best, num_steps=6, is predicted" there, and the plan now says the same."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from comparelib.analysis import plan, speedup
from comparelib.models import comparison
from tests.fixtures import stored_run
from tests.test_walk_ah_steps_agree import DRAFT_CONFIG

TARGET = "openai/gpt-oss-20b"
DRAFT = "gptosslab/gpt-oss-20b-eagle3-v2"


def _runs(sweep: list[tuple[int, float, float]]) -> list[object]:
    base = stored_run(1, None, 100.0, None, engine="sglang", draft=None, model=TARGET, group="g", requests=12,
                      concurrency=1, max_tokens=256)  # fmt: skip
    return [base] + [
        stored_run(2 + i, k, t, al, engine="sglang", draft=DRAFT, model=TARGET, group="g", requests=12,
                   concurrency=1, max_tokens=256)
        for i, (k, t, al) in enumerate(sweep)
    ]  # fmt: skip


def _num_steps_note(tmp_path: Path, runs: list[object]) -> str:
    cfg: dict[str, Any] = copy.deepcopy(DRAFT_CONFIG)
    cfg["speculators_config"]["verifier"]["name_or_path"] = TARGET
    folder = tmp_path / "draft"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(cfg))
    entry = comparison.load_entry(str(folder), with_header=False, with_card=False)
    result = plan.build(plan.inputs_for(entry, runs=runs, own_samples=300_000.0), rank_batch=1)
    return next(o for o in result.options if o.kind == "num-steps").note


def test_a_predicted_pick_is_not_said_to_be_picked_on_measurements(tmp_path: Path) -> None:
    runs = _runs([(1, 130.0, 1.8), (2, 150.0, 2.5), (3, 190.0, 3.1)])
    opt = speedup.optimum(speedup.model_from_runs(runs))
    assert opt.source == "predicted" and "misses the measurement" in opt.sentence, opt.sentence
    note = _num_steps_note(tmp_path, runs)
    assert f"batch 1: {opt.num_steps} (" in note and "At batch 1 the model misses" in note, note
    assert "picked on the measurements" not in note, note
    assert f"the best, num_steps={opt.num_steps}, is predicted" in note, note


def test_a_measured_pick_keeps_the_clause(tmp_path: Path) -> None:
    from tests.test_walk_an_steps import RUNS  # the walk's sweep: the measured 3 (run #9) stands

    runs = [
        stored_run(i, k, t, al, engine="sglang", draft=None if k is None else DRAFT, model=TARGET, group="g",
                   requests=12, concurrency=1, max_tokens=256)
        for i, k, t, al in RUNS
    ]  # fmt: skip
    note = _num_steps_note(tmp_path, runs)
    assert "batch 1: 3 (measured" in note, note
    if "At batch 1 the model misses" in note:
        assert "the best is picked on the measurements there" in note, note
