"""Walk AO 2: a group of vLLM runs measured here at batch 1 (baseline #1, num_steps 3 #3, num_steps 5 #4) and two
`vllm bench serve` runs imported at concurrency 32 (baseline #8, num_steps 3 #9, the same draft). The plan said the
batch-32 runs "differ from the fitted sweep in more than the batch (engine or draft)", although engine and draft are
the same, and refused `--rank-batch 32` as having "no measured pair". The real difference is what the import did not
record (``speedup.sweep_mismatch``): the plan now gives it, in its source note and in the refusal."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from comparelib.analysis import plan, speedup
from comparelib.errors import InputError
from comparelib.models import comparison
from tests.fixtures import stored_run
from tests.test_walk_ah_steps_agree import DRAFT_CONFIG

TARGET = "openai/gpt-oss-20b"
DRAFT = "gptosslab/gpt-oss-20b-eagle3-v2"


def _imported(run: Any, source: str) -> Any:
    return dataclasses.replace(run, kind="imported", params={"concurrency": 32, "source_file": source})


def _runs() -> list[Any]:
    kw: dict[str, Any] = dict(engine="vllm", model=TARGET, group="g", requests=12, concurrency=1, max_tokens=256)
    return [
        stored_run(1, None, 30.0, None, draft=None, **kw),
        stored_run(3, 3, 60.0, 2.6, draft=DRAFT, **kw),
        stored_run(4, 5, 62.0, 3.0, draft=DRAFT, **kw),
        _imported(stored_run(8, None, 600.0, None, draft=None, **{**kw, "concurrency": 32}), "vllm_base_c32.json"),
        _imported(stored_run(9, 3, 960.0, 2.5, draft=DRAFT, **{**kw, "concurrency": 32}), "vllm_k3_c32.json"),
    ]


def _inputs(tmp_path: Path, runs: list[Any]) -> plan.Inputs:
    cfg: dict[str, Any] = copy.deepcopy(DRAFT_CONFIG)
    cfg["speculators_config"]["verifier"]["name_or_path"] = TARGET
    folder = tmp_path / "draft"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(cfg))
    entry = comparison.load_entry(str(folder), with_header=False, with_card=False)
    return plan.inputs_for(entry, runs=runs, own_samples=300_000.0)


def test_the_batch_32_note_gives_the_real_difference(tmp_path: Path) -> None:
    runs = _runs()
    why = speedup.sweep_mismatch(runs[4], runs[1])
    assert any("imported from vllm_k3_c32.json" in w for w in why), why
    result = plan.build(_inputs(tmp_path, runs), rank_batch=1)
    text = " ".join(s.text for s in result.sources if "batch-32" in s.text or "batch 32" in s.text)
    assert "engine or draft" not in text, text
    assert "imported from vllm_k3_c32.json" in text and "run #9" in text, text
    assert 32 not in result.rank_batches


def test_rank_batch_32_is_refused_with_the_real_reason(tmp_path: Path) -> None:
    with pytest.raises(InputError) as exc:
        plan.build(_inputs(tmp_path, _runs()), rank_batch=32)
    msg = str(exc.value)
    assert "imported from vllm_k3_c32.json" in msg and "run #9" in msg, msg
    assert "has no measured pair" not in msg, msg
