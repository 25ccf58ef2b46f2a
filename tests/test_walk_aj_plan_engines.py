"""Walk AJ: the plan's more-data row and batch sources across two engines (group kimi27-code).

SGLang: baseline #1 (batch 1, 48.0 tok/s), chains num_steps 1..4 #2..#5 (AL 1.74, 2.22, 2.79, 3.00), a tree #9;
vLLM: baseline #10 (batch 1, 43.0), num_steps 3 #11 (batch 1, 79.0, AL 2.61), baseline #12 (batch 8, 342.4),
num_steps 3 #13 (batch 8, 619.2, AL 2.61). Overview reads "your acceptance" from vLLM's #11 (its reference's engine).
- AJ1: with a training log, the more-data row said AL 2.90 (run #11's 2.61 + the log's change) and 98.8 tok/s at
  batch 1: SGLang's served 88.7 (run #4) scaled by 2.905 / 2.609, a vLLM AL ratio. The row's AL base is now the run
  that anchors the served tok/s (run #4, SGLang, 2.79): 3.09 and 98.1, as without the vLLM runs.
- AJ2: predicted-1 said "no run measured batch 8" while vLLM's #12/#13 measured it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from comparelib.analysis import curves, plan
from comparelib.live.store import RunRecord
from tests.fixtures import stored_run
from tests.test_plan_walk_ac_ad import MAV, MAV_CONFIG, MAV_DRAFT, _local_draft, write_ac_log

SG_AL = {1: 1.74, 2: 2.22, 3: 120 / 43, 4: 3.0}
SG_TOK = {1: 69.2, 2: 78.1, 3: 88.70314288147142, 4: 82.5}
VL_AL = 2.6087


def _run(id_: int, k: int | None, tok_s: float, al: float | None, engine: str, batch: int, **kw: object) -> RunRecord:
    vllm = engine == "vllm"
    return stored_run(
        id_,
        k,
        tok_s,
        al,
        engine=engine,
        model=MAV,
        group="kimi27-code",
        draft=None if k is None else MAV_DRAFT,
        topk=None if vllm else kw.get("topk", 1),  # type: ignore[arg-type]
        ndt=None if vllm else kw.get("ndt", ...),  # type: ignore[arg-type]
        concurrency=batch,
        requests=8 if batch == 1 else 16,
        max_tokens=128,
    )


def walk_aj(vllm: bool = True) -> list[RunRecord]:
    runs = [_run(1, None, 48.0, None, "sglang", 1)]
    runs += [_run(1 + k, k, SG_TOK[k], SG_AL[k], "sglang", 1) for k in (1, 2, 3, 4)]
    runs += [_run(9, 4, 81.9, 3.75, "sglang", 1, topk=8, ndt=32)]
    if vllm:
        runs += [
            _run(10, None, 43.0, None, "vllm", 1),
            _run(11, 3, 79.0, VL_AL, "vllm", 1),
            _run(12, None, 342.4, None, "vllm", 8),
            _run(13, 3, 619.2, VL_AL, "vllm", 8),
        ]
    return runs


def _plan(tmp_path: Path, vllm: bool = True) -> plan.Plan:
    curve = curves.curve([str(write_ac_log(tmp_path / "train_log.csv"))], steps=3)
    inputs = plan.inputs_for(
        _local_draft(tmp_path, "kimi-eagle3", MAV_CONFIG),
        runs=walk_aj(vllm),
        own_samples=100000.0,
        own_samples_source="--samples",
        curve=curve,
        curve_source="train_log.csv",
        draft=MAV_DRAFT,
        own_run=11 if vllm else None,  # Overview's "your acceptance": vLLM's run (its reference's engine)
    )
    return plan.build(inputs, steps=3, rank_batch=1)


def _md(result: plan.Plan) -> plan.Option:
    return next(o for o in result.options if o.kind == "more-data")


def test_the_more_data_rows_al_base_is_the_run_that_anchors_the_served_tok_s(tmp_path: Path) -> None:
    result = _plan(tmp_path)
    served = result.current["tok_s_measured"]["1"]
    assert served["runs"] == [4], served
    md = _md(result)
    assert md.al is not None and md.al.value is not None and md.tok_s
    # the row's AL and its tok/s move together: the served 88.7 scaled by the row's AL over run #4's own 2.79
    tok1 = md.tok_s["1"].value
    assert tok1 == pytest.approx(served["tok_s"] * md.al.value / SG_AL[3], rel=1e-3), (tok1, md.al)
    assert "run #4 measured AL 2.79" in md.note, md.note
    assert "every AL here is predicted live AL" in md.note
    assert "run #11's 2.61 on vLLM is not counted from" in md.note, md.note
    # the same figures as without the vLLM runs (the walk's 3.087 and 98.11)
    (tmp_path / "alone").mkdir()
    alone = _md(_plan(tmp_path / "alone", vllm=False))
    assert alone.al is not None and alone.tok_s
    assert md.al.value == pytest.approx(alone.al.value, abs=1e-6)
    assert tok1 == pytest.approx(alone.tok_s["1"].value, rel=1e-6)
    assert md.al.low == pytest.approx(alone.al.low, abs=1e-6)


def test_a_batch_another_engine_measured_is_not_said_unmeasured(tmp_path: Path) -> None:
    """AJ2: predicted-1 said "no run measured batch 8" and the num_steps row "batch 8: 3 at 693.6 tok/s predicted from
    batch 1 runs" while vLLM's #12 (baseline) and #13 (num_steps 3, 619.2 tok/s) measured batch 8."""
    result = _plan(tmp_path)
    src = next(s for s in result.sources if s.id == result.current["tok_s_source"]["8"])
    assert src.kind == "predicted"
    assert "no run measured batch 8" not in src.text, src.text
    assert "vLLM runs #12 and #13 measured batch 8" in src.text, src.text
    assert "this fit's runs are SGLang's" in src.text, src.text
    ns = next(o for o in result.options if o.kind == "num-steps")
    said = ns.note.split("batch 8: ", 1)[1].split(", batch 64", 1)[0]
    assert "vLLM run #13 measured 619.2 tok/s at num_steps 3 at batch 8" in said, said
    # batch 64: no run of any engine measured it, said so as before
    src64 = next(s for s in result.sources if s.id == result.current["tok_s_source"]["64"])
    assert src64.text.endswith("no run measured batch 64"), src64.text
