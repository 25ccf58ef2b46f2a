"""Leftovers of the walks on Acceptance vs data and the plan (note42's "noticed and left").

1. Acceptance vs data: the lowest y tick (2.40) sat above a plotted point (2.21). The y axis now states round ticks
   that bracket every plotted value (published drafts, yours, live runs, the fit), as the tok/s axis does.
2. The plan's chart drew a GSM8K (here HumanEval) target over a fit of your training log that the plan says is on
   another scale (tau_sim, not a benchmark's AL): the target is drawn only on the fit's scale, and said so.
3. A published draft pasted as "your draft" said "Acceptance length: ours missing" beside its known published figure.
4. Ranked at batch 32, the more-data row's tok/s at batches 8 and 64 is at the served num_steps (3) while the num_steps
   row names 5 best there: the row says so, and names that row's pick.
5. plan.py read overview's private ``_ENGINE_WORDS``: engine names come from one public helper.

Set-up: walk AK's dsv3 group (tests.test_walk_ak_plan_batches) and walk AJ3's published Kimi-K2.7-Code draft.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from comparelib import charts
from comparelib.analysis import curves, plan, scaling
from comparelib.live.store import RunRecord
from tests.fixtures import cli_in_process
from tests.hub_emulator import HubEmulator
from tests.test_plan_walk_ac_ad import AD_CONFIG, AD_TARGET, _local_draft
from tests.test_walk_aj_published_own import PUB, URL, walk_hub  # noqa: F401 - walk_hub is a fixture
from tests.test_walk_ak_plan_batches import DRAFT, _plateau_log, walk_ak

# --- 1. the acceptance axis holds every plotted point


def _y_values(spec: dict[str, Any]) -> list[float]:
    """Every y value the chart plots: each layer's y (and y2) fields, read from its own dataset."""
    out: list[float] = []
    for layer in spec.get("layer", [spec]):
        data = spec["datasets"][layer["data"]["name"]] if "data" in layer else []
        for ch in ("y", "y2"):
            field = (layer.get("encoding") or {}).get(ch, {}).get("field")
            out += [float(r[field]) for r in data if field and r.get(field) is not None and not pd.isna(r[field])]
    return out


def _y_axes(spec: dict[str, Any]) -> list[tuple[list[float] | None, list[float] | None]]:
    """(scale domain, axis tick values) of every layer's y encoding."""
    out = []
    for layer in spec.get("layer", [spec]):
        y = (layer.get("encoding") or {}).get("y")
        if y is not None and "field" in y:
            out.append(((y.get("scale") or {}).get("domain"), (y.get("axis") or {}).get("values")))
    return out


def _assert_holds_every_point(chart: Any) -> None:
    spec = charts._spec(chart)
    values = _y_values(spec)
    lo, hi = min(values), max(values)
    axes = _y_axes(spec)
    assert axes, spec
    for domain, ticks in axes:
        assert domain is not None and ticks, ("no stated y domain and ticks: the renderer picks them", domain, ticks)
        assert domain[0] <= lo and domain[1] >= hi, (domain, lo, hi)
        assert ticks[0] <= lo and ticks[-1] >= hi, (ticks, lo, hi)  # the lowest tick is not above any point
    # and as drawn: the acceptance axis's labelled values run from at or below the lowest point
    svg = charts.chart_to_svg(chart)
    drawn = re.search(r"Y-axis titled '[^']*' for a linear scale with values from ([-0-9.]+) to ([-0-9.]+)", svg)
    assert drawn is not None and float(drawn[1]) <= lo and float(drawn[2]) >= hi, (drawn, lo, hi)


def _curve(tmp_path: Path) -> curves.Curve:
    return curves.curve([str(_plateau_log(tmp_path / "train.log"))], batch_size=64, steps=3)


def test_the_learning_curve_axis_holds_the_live_runs_and_published_points(tmp_path: Path) -> None:
    lc = _curve(tmp_path)
    live = pd.DataFrame({"run": ["#3 num_steps 2", "#5 num_steps 4"], "accept_length": [2.21, 3.37]})
    pub = pd.DataFrame({"draft": ["a/published"], "samples": [1.4e6], "accept_length": [3.05]})
    _assert_holds_every_point(charts.curve_chart(lc, published=pub, live=live))


def test_the_scaling_chart_axis_holds_yours_the_published_points_and_the_fit() -> None:
    key = "steps=3,topk=1,draft=4,bs=8,sglang"
    own = pd.DataFrame(
        [scaling.own_point(draft="x/d", benchmark="gsm8k", accept_length=2.21, setting_key=key, samples=5_000)],
        columns=list(scaling.POINT_COLUMNS),
    )
    pts = scaling.scaling_points(scaling.published_points(), own=own)
    fit = scaling.fit_published(scaling.select(pts, benchmark="gsm8k", setting_key=key, x="samples"))
    band = scaling.band(fit, clip=True)
    _assert_holds_every_point(charts.scaling_chart(pts, benchmark="gsm8k", setting_key=key, band=band))


def test_the_plan_chart_axis_holds_its_points_and_fit(tmp_path: Path) -> None:
    result = _ak_plan(tmp_path, 1, prompts="humaneval")
    drawn = result.chart_target()
    chart = charts.plan_curve_chart(
        result.curve_frame(),
        result.points,
        target_al=drawn[0] if drawn else None,
        target_words=drawn[1] if drawn else None,
        steps=result.steps,
        seen=True,
    )
    _assert_holds_every_point(chart)


# --- 2. the plan's chart draws the target only on the fit's scale


def _ak_plan(tmp_path: Path, rank_batch: int, *, prompts: str = "bundled", runs: bool = True) -> plan.Plan:
    """Walk AK's plan (target: the HumanEval 3.395 of the Qwen3-Coder reference), the runs on ``prompts``."""
    log = _plateau_log(tmp_path / "train.log")
    curve = curves.curve([str(log)], batch_size=64, steps=3)
    group: list[RunRecord] = (
        [replace(r, params={**r.params, "prompt_set": prompts}) for r in walk_ak()] if runs else []
    )
    inputs = plan.inputs_for(
        _local_draft(tmp_path, "dsv3-eagle3", AD_CONFIG),
        runs=group,
        own_samples=600000.0,
        own_samples_source="--samples",
        curve=curve,
        curve_source="train.log",
        target=AD_TARGET,
        draft=DRAFT,
    )
    return plan.build(inputs, steps=3, rank_batch=rank_batch)


def _chart_target_layer(result: plan.Plan) -> list[dict[str, Any]]:
    drawn = result.chart_target()
    spec = charts._spec(
        charts.plan_curve_chart(
            result.curve_frame(),
            result.points,
            target_al=drawn[0] if drawn else None,
            target_words=drawn[1] if drawn else None,
            steps=result.steps,
            seen=True,
        )
    )
    return [r for rows in spec["datasets"].values() for r in rows if "target AL" in str(r.get("label", ""))]


@pytest.mark.parametrize("case", ["no runs", "other prompts"])
def test_a_target_on_another_scale_than_your_logs_fit_is_not_drawn_on_it(tmp_path: Path, case: str) -> None:
    result = _ak_plan(tmp_path, 1, runs=case != "no runs")
    assert result.fit is not None and result.fit.scope == "curve" and result.target_al is not None
    md = next(o for o in result.options if o.kind == "more-data")
    said = md.note or ""
    assert "not set against the target" in said or "across scales" in said, said  # the plan's own words
    assert result.chart_target() is None
    assert _chart_target_layer(result) == []  # no target rule over the log's tau_sim fit


def test_a_target_put_on_your_logs_scale_by_a_live_run_is_drawn_there_and_said_so(tmp_path: Path) -> None:
    result = _ak_plan(tmp_path, 1, prompts="humaneval")  # the target's own benchmark: the live scale is its
    assert result.fit is not None and result.fit.scope == "curve" and result.target_al is not None
    drawn = result.chart_target()
    assert drawn is not None
    al, words = drawn
    # run #1 (num_steps 3, the chain, batch 1) measured 2.909 live; the log's fit at 601,600 samples seen is below
    log_now = result.fit.al(result.current["samples"]).value
    assert log_now is not None
    assert al == pytest.approx(result.target_al - (2.909090909090909 - log_now), abs=1e-6), (al, log_now)
    assert (
        f"target AL {result.target_al:g} (HumanEval, live) = {al:.2f} on your log's scale" in words
        and "your log's scale" in words
    ), words
    rows = _chart_target_layer(result)
    assert len(rows) == 1 and rows[0]["al"] == pytest.approx(al), rows


def test_a_published_trends_target_is_drawn_as_it_is(tmp_path: Path) -> None:
    inputs = plan.inputs_for(
        _local_draft(tmp_path, "dsv3-eagle3", AD_CONFIG),
        runs=[],
        own_samples=600000.0,
        own_samples_source="--samples",
        target=AD_TARGET,
        draft=DRAFT,
    )
    result = plan.build(inputs, steps=3, rank_batch=1)
    assert result.fit is not None and result.fit.scope == "pooled" and result.target_al is not None
    drawn = result.chart_target()
    assert drawn is not None and drawn[0] == pytest.approx(result.target_al), drawn


# --- 3. a published draft as yours: its published acceptance, named as published


def test_a_published_draft_as_yours_says_its_published_acceptance(
    walk_hub: HubEmulator,  # noqa: F811 - the fixture imported above
    capsys: pytest.CaptureFixture[str],
) -> None:
    done = cli_in_process(capsys, "overview", URL)
    assert done.returncode == 0, done.stderr
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("- Acceptance length:"))
    assert "ours missing" not in line, line
    # the registry's AQ-MedAI/Kimi-K2.7-Code-eagle3: GSM8K 3.23, HumanEval 2.91, MATH500 2.92 at steps=3,topk=1,draft=4
    assert "ours 2.91-3.23 at steps=3,topk=1,draft=4 (published, not measured" in line, line
    assert "GSM8K 3.23" in line and "HumanEval 2.91" in line and "MATH500 2.92" in line, line
    assert f"https://huggingface.co/{PUB}" in line, line  # its source
    assert "benchmark it" in line, line  # measuring it is still what would tell


# --- 4. the more-data row's tok/s at batches no run measured, against the num_steps row's pick there


def test_ranked_at_32_the_unmeasured_batches_say_their_num_steps_and_the_rows_pick(tmp_path: Path) -> None:
    result = _ak_plan(tmp_path, 32)
    md = next(o for o in result.options if o.kind == "more-data")
    ns = next(o for o in result.options if o.kind == "num-steps")
    # walk BW 3: batch 32 measured num_steps 3 alone, so at batches 8 and 64 every other num_steps rests on the step
    # cost assumed there: the num_steps row names no best at either (it named 5 and 6), and the more-data row no pick
    for b in (8, 64):
        assert f"batch {b}: the best is not known (no run measured batch {b}" in (ns.note or ""), ns.note
    note = md.note or ""
    assert "elsewhere num_steps 3, predicted" not in note, note
    assert (
        "batches 8 and 64: num_steps 3, batch 32's served num_steps carried there, predicted (no run measured those "
        "batches, so none is served there yet)"
    ) in note, note
    assert "the num_steps row predicts" not in note, note
    # the tok/s is what the note says: the served num_steps at batch 8 (the model's, times the AL change)
    cur = result.current["tok_s"]
    assert md.tok_s["8"].value == pytest.approx(cur["8"], rel=0.001), (md.tok_s["8"], cur["8"])


# --- 5. engine names: one public helper


def test_engine_names_come_from_one_public_helper() -> None:
    from comparelib.models import engines

    assert [engines.engine_word(e) for e in ("sglang", "SGLang", "vllm", "openai", "tgi")] == [
        "SGLang",
        "SGLang",
        "vLLM",
        "OpenAI-compatible server",
        "tgi",
    ]
    for module in (plan, __import__("comparelib.analysis.overview", fromlist=["x"])):
        assert "_ENGINE_WORDS" not in Path(str(module.__file__)).read_text(), module.__name__
