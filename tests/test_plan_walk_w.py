"""Walk W: two wrong answers from one user's Qwen3-8B EAGLE-3 draft (SGLang sweeps at batch 1 and 8, a vLLM run).

1. Overview's plan (and ``plan``) said "batch 64: 1 at 6,482.1 tok/s predicted": 101.3 tok/s a stream, while each
   stream measured 90.2 at batch 1 (run #7) and batch 8 (run #12). The line through the batch-1 fit (23.3 ms fixed,
   3.10 ms a step) and the batch-8 fit (21.8 ms, 3.87 ms) lowered the fixed cost to 9.7 ms at batch 64, under the
   21.3-22.5 ms baseline decode step measured, and named num_steps 1 there against 3 measured best at 1 and 8.
   A cost past the measured batches does not fall with the batch, each stream is no faster than measured at a smaller
   batch, and the batch is said as predicted from which batches, an upper bound.
2. Acceptance vs data said "Your draft already measured 2.91 (run #16) ... at or above the target 2.64" while
   Overview's plan said the two are not on one scale (run #7, the bundled prompts against a GSM8K target). The plan's
   rule is the one: a run on other prompts neither meets nor misses a target on a benchmark. Both now say so in the
   same words, of the same run: the one Overview reads "your acceptance" from (``overview.own_acceptance``).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest

from comparelib.analysis import plan, scaling, speedup, verdicts
from comparelib.live.store import RunRecord
from tests.fixtures import bench_config, bench_store, cli_in_process, published_fit, stored_run
from tests.test_sweep import _entry

AL = {1: 2.0, 2: 32 / 13, 3: 32 / 11, 4: 3.2}  # acceptance at num_steps 1..4, as runs #5..#8 and #10..#13 measured
B1 = {1: 75.3, 2: 84.0, 3: 90.2, 4: 89.1}  # SGLang batch 1, runs #5..#8; baseline #4 46.9
B8 = {1: 608.4, 2: 678.1, 3: 721.6, 4: 671.3}  # SGLang batch 8, runs #10..#13; baseline #14 356.2


def _run(id_: int, steps: int | None, tok_s: float, batch: int, *, engine: str = "sglang", prompts: str = "bundled"):  # type: ignore[no-untyped-def]
    vllm = engine == "vllm"
    return stored_run(
        id_,
        steps,
        tok_s,
        AL[steps] if steps else None,
        engine=engine,
        model="acme/target",
        concurrency=batch,
        requests=12 if batch == 1 else 48,
        prompt_set=prompts,
        topk=None if vllm else 1,
        ndt=None if vllm else ...,
    )


def walk_w(prompts: str = "bundled") -> list[RunRecord]:
    """The group's runs: SGLang batch 1 (#4 baseline, #5..#8), batch 8 (#10..#13, #14 baseline), vLLM batch 1 (#15
    baseline, #16 num_steps 3, 2.91 as run #7)."""
    runs = [_run(4, None, 46.9, 1, prompts=prompts)]
    runs += [_run(4 + k, k, t, 1, prompts=prompts) for k, t in B1.items()]
    runs += [_run(9 + k, k, t, 8, prompts=prompts) for k, t in B8.items()]
    runs += [_run(14, None, 356.2, 8, prompts=prompts)]
    runs += [
        _run(15, None, 46.8, 1, engine="vllm", prompts=prompts),
        _run(16, 3, 90.7, 1, engine="vllm", prompts=prompts),
    ]
    return runs


def with_requests(runs: list[RunRecord]) -> list[RunRecord]:
    """The walk's runs as its store held them: 12 requests at batch 1, 48 at batch 8, in the params."""
    return [replace(r, params={**r.params, "requests": 12 if r.params["concurrency"] == 1 else 48}) for r in runs]


def rising() -> list[RunRecord]:
    """A control whose costs all rise with the batch (fixed 10 -> 12 ms, a step 1.5 -> 2.0 ms, baseline decode 9 ->
    10 ms): its line is drawn past the measured batches, as before."""
    cyc = {1: (10.0, 1.5), 8: (12.0, 2.0)}
    runs = [_run(1, None, 1000.0 / 9.0, 1), _run(10, None, 8000.0 / 10.0, 8)]
    for c, (v, s) in cyc.items():
        runs += [_run((1 if c == 1 else 10) + k, k, c * AL[k] / (v + k * s) * 1000.0, c) for k in (1, 2, 3, 4)]
    return runs


def _speed(runs: list[RunRecord]) -> plan.Speed:
    """The plan's speed model of these runs, built as ``plan.build`` builds it."""
    model = speedup.model_from_runs(list(runs))
    step_fn, note = plan.step_function(model, None)
    by_batch, _ = plan._batch_models(runs, model, step_fn)
    return plan.Speed(model, step_fn, 3, note, by_batch)


def _measured_per_stream(runs: list[RunRecord], k: int | None) -> dict[int, float]:
    """Each measured batch's tok/s a stream at num_steps ``k`` (None: the baseline), SGLang runs."""
    return {
        int(r.params["concurrency"]): float(r.output_tokens_per_s) / int(r.params["concurrency"])
        for r in runs
        if r.engine == "sglang" and r.num_steps == k
    }


# ---------------------------------------------------------------- 1. past the measured batches


CASES = {"walk W": walk_w, "walk W, 12 and 48 requests": lambda: with_requests(walk_w()), "rising": rising}


@pytest.mark.parametrize("case", list(CASES))
def test_each_stream_is_no_faster_at_a_larger_batch_than_measured_at_a_smaller_one(case: str) -> None:
    runs = CASES[case]()
    speed = _speed(runs)
    assert sorted(speed.by_batch) == [1, 8]
    for k in (None, 1, 2, 3, 4):
        measured = _measured_per_stream(runs, k)
        bound = min(measured.values())
        before = measured[8]
        for b in (16, 32, 64, 128):
            tok = speed.baseline_tok_s(b) if k is None else speed.tok_s(b, speed.al_at(k, batch=b), k)
            assert tok is not None
            per = tok / b
            assert per <= bound * (1 + 1e-9), (case, k, b, per, measured)
            assert per <= before * (1 + 1e-9), (case, k, b, per, before)  # never faster as the batch grows
            before = per


def test_walk_w_batch_64_holds_batch_8s_cycle_and_picks_what_was_measured_best() -> None:
    speed = _speed(walk_w())
    result = plan.build(plan.inputs_for(_entry(), runs=walk_w(), own_samples=305.0), rank_batch=1)
    ns = next(o for o in result.options if o.kind == "num-steps")
    best = next(e["value"] for e in ns.evidence if e["what"] == "best num_steps per batch")
    assert best == {"1": 3, "8": 3, "64": 3}, best  # the walk's plan named 1 at batch 64
    at64 = ns.tok_s["64"].value
    assert at64 is not None and at64 <= 64 * B8[3] / 8, at64  # the walk's 6,482.1: 101.3 a stream
    assert f"batch 64: 3 at {at64:,.1f} tok/s predicted from batch 1 and 8 runs, an upper bound" in ns.note, ns.note
    # walk AD: the runs' own cycles held where batch 8 measured them, the fit's only where it did not
    assert (
        "batch 64 predicted from batch 1 and 8 runs (past them: batch 8's runs' own cycles held at num_steps 1, 2, 3 "
        "and 4 (#10, #11, #12, #13), the batch-8 fit's at other num_steps"
    ) in ns.note, ns.note
    src = next(s.text for s in result.sources if s.text.startswith("predicted from batch 1 and 8 runs"))
    assert "this is an upper bound; no run measured batch 64" in src, src
    assert "SpeedupModel(" not in src, src  # the fits are named by their runs
    # the baseline there is batch 8's decode step too, not a line drawn 8x past it
    assert speed.baseline_tok_s(64) == pytest.approx(64 * 356.2 / 8, rel=1e-3)
    assert speed.held_past(64) and speed.held_past(16) and not speed.held_past(8)


def test_a_line_whose_costs_rise_is_still_drawn_past_the_measured_batches() -> None:
    speed = _speed(rising())
    assert not speed.held_past(64)
    result = plan.build(plan.inputs_for(_entry(), runs=rising(), own_samples=305.0), rank_batch=1)
    ns = next(o for o in result.options if o.kind == "num-steps")
    assert "batch 64 predicted from batch 1 and 8 runs (cycle time linear in the batch, past them)" in ns.note
    assert "an upper bound" not in ns.note, ns.note
    # the line itself: fixed 10 + (64 - 1) / 7 x 2 = 28 ms, a step 1.5 + 9 x 0.5 = 6 ms
    assert speed.tok_s(64, AL[3], 3) == pytest.approx(64 * AL[3] / (28.0 + 3 * 6.0) * 1000.0, rel=1e-6)


# ---------------------------------------------------------------- 2. one rule for the target, one run named


def _fit() -> scaling.Fit:
    """A published GSM8K fit at chain (3,1,4)."""
    return published_fit("steps=3,topk=1,draft=4,bs=1,sglang", first=1.8, step=0.25)


def _more_data(runs: list[RunRecord], **kw: Any) -> plan.Option:
    inputs = plan.inputs_for(_entry(), runs=runs, own_samples=305.0, published=scaling.published_points(), **kw)
    return next(o for o in plan.build(inputs, target_al=2.64).options if o.kind == "more-data")


APART = (
    "Run #16 measured AL 2.91 at (3,1,4) (batch 1) on the 'bundled' prompts, and the target 2.64{named} is a GSM8K "
    "figure: the two are not on one scale, so they are not compared (the target is neither met nor missed by that "
    "run)."
)


@pytest.mark.parametrize(("prompts", "met"), [("bundled", False), ("gsm8k", True)])
def test_acceptance_vs_data_and_the_plan_say_the_same_of_your_run_against_the_target(prompts: str, met: bool) -> None:
    runs = walk_w(prompts)
    # Acceptance vs data's lead reads your acceptance's run alone (the page's lead_pts: run #16)
    own = scaling.own_points_from_runs([r for r in runs if r.id == 16], draft="mine", samples=305.0)
    lines = verdicts.data_lead(_fit(), 2.64, own, own_volume=305.0)
    if met:  # on the target's own benchmark the run meets it, on both pages
        assert lines[0].startswith("Your draft already measured 2.91 (run #16, at "), lines
        note = _more_data(runs, own_run=16).note
        assert note.startswith("Target already met by run #16"), note
        return
    assert not any("at or above the target" in line for line in lines), lines  # the walk's "already measured"
    assert lines[0] == APART.format(named=""), lines
    assert verdicts.already_reached(_fit(), 2.64, own) is None
    note = _more_data(runs, own_run=16).note
    assert APART.format(named=" (the target AL you gave)") in note, note
    assert "Target already met" not in note and "run #7" not in note, note


def test_the_plan_names_the_run_overview_reads_your_acceptance_from() -> None:
    """Run #7 (SGLang) and #16 (vLLM) both measured 2.91 at 3 steps, batch 1: the plan took the older, #7, where
    Overview and Acceptance vs data name #16; with no run given it reads Overview's choice itself."""
    runs = walk_w()
    said = _more_data(runs, own_run=16).note
    assert "Run #16 measured AL 2.91" in said and "run #7" not in said.lower(), said
    said7 = _more_data(runs, own_run=7).note
    assert "Run #7 measured AL 2.91" in said7 and "#16" not in said7, said7
    # with none given: the run Overview's own_acceptance picks at the reference it suggests for these runs
    inputs = plan.inputs_for(_entry(), runs=runs, own_samples=305.0)
    from comparelib.analysis import overview

    ref = overview.default_reference(overview.reference_choices(), None, inputs.target_label, runs).hub_id
    mine = overview.own_acceptance(list(inputs.runs), overview.reference_settings(ref))
    assert mine is not None and inputs.own_run == mine.run.id


def test_plan_says_which_batches_no_run_measured(capsys: pytest.CaptureFixture[str]) -> None:
    """``plan``'s tok/s line gave "bs64: 6,482.1" bare: a batch no run measured names the source it is predicted from,
    the one its sources list says is an upper bound."""
    store = bench_store()
    for r in walk_w():
        cfg = bench_config(r.engine, "acme/target", r.num_steps, draft=None, topk=r.topk, ndt=r.num_draft_tokens)
        rid = store.start_run(
            endpoint=f"http://{r.engine}:8000", server_config=cfg, group="walk-w", params=dict(r.params)
        )
        store.finish_run(
            rid,
            {
                "requests": 12,
                "errors": 0,
                "output_tokens_per_s": r.output_tokens_per_s,
                "accept_length": r.accept_length,
            },
        )
    proc = cli_in_process(capsys, "plan", "example", "--group", "walk-w")
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.strip().startswith("tok/s bs1:"))
    sid = re.search(r"bs64: [\d,.]+ \(predicted: (predicted-\d+)\)", line)
    assert sid is not None, line
    assert "(predicted" not in line.split("bs64")[0], line  # batch 1 and 8 were measured
    src = next(x for x in proc.stdout.splitlines() if x.strip().startswith(f"{sid.group(1)}:"))
    assert "predicted from batch 1 and 8 runs" in src and "an upper bound" in src, src


def test_a_sweep_at_another_batch_may_ask_for_another_number_of_requests() -> None:
    """Walk W's store: 12 requests at batch 1, 48 at batch 8. The request count is a compared setting (a baseline of
    12 against one of 48 at one batch is no speedup), but across batches it is each batch's own: the batch-1 sweep
    stays measured, not "predicted from batch 8 runs (no run measured it at batch 1)"."""
    runs = with_requests(walk_w())
    speed = _speed(runs)
    assert sorted(speed.by_batch) == [1, 8]
    result = plan.build(plan.inputs_for(_entry(), runs=runs, own_samples=305.0), rank_batch=1)
    assert plan.current_words(result).startswith("Served now at batch 1: 90.2 tok/s, measured (run #7, num_steps 3)")
    # at one batch a run of another request count is still not the sweep's
    like = plan._like_the_sweep(runs, speed.by_batch[8])
    r12 = next(r for r in runs if r.id == 12)
    short = replace(r12, id=20, params={**r12.params, "requests": 12})
    assert short.params["concurrency"] == 8 and not like(short)
    assert like(next(r for r in runs if r.id == 7))
