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


def test_the_plan_says_why_a_measured_batch_is_not_offered(tmp_path: Path) -> None:
    """Overview's "Rank at batch size" left batch 32 out with no word of why (the notes and the CLI's refusal say it):
    the plan's result carries each measured batch it cannot rank at, with the reason the refusal gives."""
    result = plan.build(_inputs(tmp_path, _runs()), rank_batch=1)
    assert 32 not in result.rank_batches
    assert set(result.unranked) == {32}, result.unranked
    assert "imported from vllm_k3_c32.json" in result.unranked[32] and "run #9" in result.unranked[32]
    assert result.to_json()["unranked"] == {"32": result.unranked[32]}


def test_overview_says_why_batch_32_is_not_offered(tmp_path: Path) -> None:
    from streamlit.testing.v1 import AppTest

    from tests.fixtures import bench_config, bench_store

    store = bench_store()
    for r in _runs():
        rid = store.start_run(
            endpoint="http://127.0.0.1:8000",
            server_config=bench_config("vllm", TARGET, r.num_steps, draft=r.draft_model, topk=1, ndt=None),
            group="g",
            params=r.params,
            kind=r.kind,
        )
        store.finish_run(rid, {"requests": 12, "errors": 0, "output_tokens_per_s": r.output_tokens_per_s,
                               "accept_length": r.accept_length})  # fmt: skip
    cfg: dict[str, Any] = copy.deepcopy(DRAFT_CONFIG)
    cfg["speculators_config"]["verifier"]["name_or_path"] = TARGET
    folder = tmp_path / "draft"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(cfg))
    at = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app.py"), default_timeout=180)
    at.query_params["draft"] = str(folder)
    at.query_params["draft_group"] = "g"
    at.query_params["draft_samples"] = "300000"
    at.session_state["ov_plan"] = True  # the plan, opened: its selector
    at.run()
    assert not at.exception, at.exception
    options = [str(o) for o in at.selectbox(key="plan_batch").options]
    assert "32" not in options, options
    said = [c.value for c in at.caption if c.value.startswith("Not offered to rank at")]
    assert len(said) == 1 and "batch 32" in said[0] and "imported from vllm_k3_c32.json" in said[0], said
