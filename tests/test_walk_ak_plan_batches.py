"""Walk AK: the more-data row's tok/s at each batch is that batch's served setting, scaled by the row's AL change.

Group dsv3-walk (SGLang): baselines #2 (batch 1, 46.5 tok/s) and #6 (batch 32, 1,396.3); batch 1 num_steps 1/3/5
#3 (67.1), #1 (96.0), #5 (103.3, AL 3.76); batch 32 num_steps 3 #7 (2,931.1, AL 2.91); a plateaued training log.
Ranked at batch 1 (served num_steps 5), the more-data row gave bs32 3,248.8: num_steps 5 pushed to batch 32, which
no run measured, untagged, beside the measured 2,931.1 (num_steps 3), +318 tok/s for an AL change of +0.001.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest

from comparelib.analysis import curves, plan
from comparelib.live.store import RunRecord
from tests.fixtures import stored_run
from tests.test_plan_walk_ac_ad import AD_CONFIG, AD_TARGET, _local_draft

DRAFT = "dsv3lab/dsv3-0324-eagle3"
ROWS: list[tuple[int, int | None, float, float | None, int]] = [
    # id, num_steps, tok/s, AL, batch
    (1, 3, 95.97428635324957, 2.909090909090909, 1),
    (2, None, 46.48163959398636, None, 1),
    (3, 1, 67.08171052073982, 1.7297297297297298, 1),
    (5, 5, 103.30172136629314, 3.764705882352941, 1),
    (6, None, 1396.3030577553523, None, 32),
    (7, 3, 2931.085862755928, 2.909090909090909, 32),
]


def walk_ak() -> list[RunRecord]:
    out = []
    for id_, k, tok_s, al, batch in ROWS:
        run = stored_run(
            id_,
            k,
            tok_s,
            al,
            model=AD_TARGET,
            group="dsv3-walk",
            draft=None if k is None else DRAFT,
            concurrency=batch,
            requests=8 if batch == 1 else 64,
        )
        out.append(replace(run, params={**run.params, "temperature": 0.0, "warmup": 1, "ignore_eos": False}))
    return out


def _plateau_log(path: Path) -> Path:
    """SpecForge's console lines, acceptance flat for the last two thirds of the steps."""
    lines = []
    for step in range(100, 9500, 100):
        rise = 1 - math.exp(-step / 700)
        accs = {f"acc_{i}": round((0.72 - 0.07 * i) * rise, 4) for i in range(7)}
        lines.append(f"step {step}: {accs}")
    path.write_text("\n".join(lines) + "\n")
    return path


def _plan(tmp_path: Path, rank_batch: int) -> plan.Plan:
    log = _plateau_log(tmp_path / "train.log")
    curve = curves.curve([str(log)], batch_size=64, steps=3)
    assert curve.verdict == "plateau", curve.verdict
    inputs = plan.inputs_for(
        _local_draft(tmp_path, "dsv3-eagle3", AD_CONFIG),
        runs=walk_ak(),
        own_samples=600000.0,
        own_samples_source="--samples",
        curve=curve,
        curve_source="train.log",
        target=AD_TARGET,
        draft=DRAFT,
    )
    return plan.build(inputs, steps=3, rank_batch=rank_batch)


@pytest.mark.parametrize("rank_batch", [1, 32])
def test_more_data_takes_each_batchs_served_run_scaled_by_its_al_change(tmp_path: Path, rank_batch: int) -> None:
    result = _plan(tmp_path, rank_batch)
    md = next(o for o in result.options if o.kind == "more-data")
    # the plateau: the row's AL change is within noise, so is its tok/s change at each measured batch
    r32 = (md.tok_s["32"].value or 0) / 2931.085862755928  # batch 32: run #7 (num_steps 3), never 5 pushed there
    # batch 1: the served num_steps's run there, as "Served now" reads it (walk BY 1): ranked at batch 1, #5 (num_steps
    # 5, its fastest); ranked at batch 32, where 3 is served, batch 1's run at 3 (it scaled #5, beside a "Served now"
    # of the run at 3: a gain from num_steps counted as one from data)
    r1 = (md.tok_s["1"].value or 0) / (103.30172136629314 if rank_batch == 1 else result.current["tok_s"]["1"])
    assert r32 == pytest.approx(1.0, abs=0.02), md.tok_s["32"]
    assert r1 == pytest.approx(1.0, abs=0.02), md.tok_s["1"]
    assert r1 == pytest.approx(r32, abs=0.005), (md.tok_s["1"], md.tok_s["32"])  # one AL change at both
    # every column no run measured is tagged predicted (one tag per batch, every row's); the measured batches not.
    # Ranked at batch 1, 5 is served and batch 32 measured only 3: 5 there is predicted, on an assumed step (walk AS)
    kinds = {s.id: s.kind for s in result.sources}
    measured = {"1", "32"} if rank_batch == 32 else {"1"}
    for b, src in result.current["tok_s_source"].items():
        assert (kinds[src] == "predicted") == (b not in measured), (b, src)
    row = result.frame().set_index("kind").loc["more-data"]
    for b in ("1", "32"):
        assert round(row[f"tok_s_bs{b}"], 1) == round(md.tok_s[b].value or 0, 1), row


def test_more_data_says_which_setting_its_al_and_each_batchs_tok_s_are_at(tmp_path: Path) -> None:
    md = next(o for o in _plan(tmp_path, 1).options if o.kind == "more-data")
    note = md.note or ""
    assert "Its AL is at (3,1,4); its tok/s at each batch is that batch's served setting" in note, note
    assert "batch 1: num_steps 5, what is served there" in note, note
    assert "batch 32: num_steps 3, its fastest measured run (run #7)" in note, note


def test_the_exported_table_says_which_tok_s_is_measured(tmp_path: Path) -> None:
    """Walk BS 8: the plan's CSV set measured and predicted tok/s in sibling columns (tok_s_bs1 138.4 measured,
    tok_s_bs8 and tok_s_bs64 predicted), only the free-text note telling them apart. ``tok_s_basis`` says it."""
    result = _plan(tmp_path, 1)
    frame = result.frame()
    for o, (_, row) in zip(result.options, frame.iterrows(), strict=True):
        basis = str(row["tok_s_basis"] or "")
        for b in o.tok_s:
            said = f"bs{b} measured ({o.measured[b]})" if b in o.measured else f"bs{b} predicted"
            assert said in basis, (o.kind, basis)
    assert any("measured (" in str(v) for v in frame["tok_s_basis"]), frame["tok_s_basis"].tolist()
    assert any("predicted" in str(v) for v in frame["tok_s_basis"]), frame["tok_s_basis"].tolist()


def test_a_swept_batchs_column_is_said_measured_where_a_run_measured_it(tmp_path: Path) -> None:
    """Walk BV 1: the num_steps row's tok_s_bs4 635.6 and tok_s_bs16 1,950.8, runs #6 and #11 as measured (the note
    said so), were "bs4 predicted; bs16 predicted" in tok_s_basis. Here, ranked at batch 1, batch 32 is a swept batch
    outside the plan's 1, 8 and 64: its column is run #7's 2,931.1 tok/s, measured."""
    row = _plan(tmp_path, 1).frame().set_index("kind").loc["num-steps"]
    assert round(row["tok_s_bs32"], 1) == 2931.1
    assert "bs32 measured (run #7)" in row["tok_s_basis"], row["tok_s_basis"]
    assert "bs1 measured (run #5)" in row["tok_s_basis"] and "bs8 predicted" in row["tok_s_basis"]
