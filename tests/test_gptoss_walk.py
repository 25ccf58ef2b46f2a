"""A new user's gpt-oss-120b walk: EAGLE-3 sweeps at batch 1 and batch 32 over num_steps 1..6, a baseline at each.

What the plan and the speedup model said, against what the user's own runs measured:

1. Overview's plan gave tok/s at batch 1 as the batch-32 sweep divided by 32, labelled measured, and named a best
   num_steps at batch 1 that the batch-1 runs contradicted;
2. it gave a tight samples band from the learning curve's fit while Acceptance vs data set that fit aside;
3. its target AL (3.271) was a Kimi draft's GSM8K figure, and the headline did not say whose;
4. the speedup model's AL fell where measured and predicted values splice;
5. the pooled logistic's and the log-linear fit's samples needed were shown without saying which is which;
6. "Only 0 distinct openai volume(s) report ...".
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import pytest

from comparelib.analysis import curves, plan, scaling, speedup, verdicts
from comparelib.live.store import RunRecord
from comparelib.values import human
from tests.test_sweep import _entry, cycle_tok_s, rec

GPT_OSS = "openai/gpt-oss-120b"
AL = {1: 1.75, 2: 2.30, 3: 2.70, 4: 3.00, 5: 3.20, 6: 3.35}


def _run(id_: int, steps: int | None, batch: int, *, verify: float, step: float, base_tok_s: float = 0.0) -> RunRecord:
    if steps is None:
        return rec(id_, None, base_tok_s, concurrency=batch, max_tokens=256)
    tok_s = cycle_tok_s(steps, AL[steps], verify=verify, step=step, c=batch)
    return rec(id_, steps, tok_s, AL[steps], concurrency=batch, max_tokens=256)


# batch 1: a cheap draft step against the verify forward (long chains pay); batch 32: verification dominates
BATCH1 = [_run(1, None, 1, verify=0, step=0, base_tok_s=95.0)] + [
    _run(1 + k, k, 1, verify=10.0, step=0.8) for k in range(1, 7)
]
BATCH32 = [_run(20, None, 32, verify=0, step=0, base_tok_s=1500.0)] + [
    _run(20 + k, k, 32, verify=20.0, step=6.0) for k in range(1, 7)
]


def _sources(result: plan.Plan) -> dict[str, plan.Source]:
    return {s.id: s for s in result.sources}


def test_each_batch_reads_its_own_measured_runs_and_a_scaled_one_says_so() -> None:
    """Item 1: batch 1 from the batch-1 runs (named), batch 8 and 64 predicted through the batch-1 and batch-32
    cycles."""
    result = plan.build(plan.inputs_for(_entry(), runs=BATCH1 + BATCH32, own_samples=37_000.0))
    own = speedup.optimum(speedup.model_from_runs(BATCH1))
    ns = next(o for o in result.options if o.kind == "num-steps")
    assert f"batch 1: {own.num_steps}" in ns.note, ns.note  # the batch-1 sweep's best, not the batch-32 model's
    assert ns.tok_s["1"].value == pytest.approx(own.tok_s)  # not the batch-32 figure divided by 32
    assert "batch 1 from its measured runs #2, #3, #4, #5, #6, #7" in ns.note, ns.note
    assert "batch 8 predicted from batch 1 and 32 runs (cycle time linear in the batch, between them)" in ns.note
    assert "batch 64 predicted from batch 1 and 32 runs (cycle time linear in the batch, past them)" in ns.note
    src = _sources(result)
    where = result.current["tok_s_source"]
    assert src[where["1"]].kind == "measured" and "batch-1 store runs #2" in src[where["1"]].text
    for b in ("8", "64"):
        assert src[where[b]].kind == "predicted", src[where[b]]
        assert src[where[b]].text.startswith("predicted from batch 1 and 32 runs")
    # the current batch-1 figure is the batch-1 sweep's at the served num_steps, not 1/32 of batch 32's
    m1 = speedup.model_from_runs(BATCH1)
    k = result.served_steps
    assert result.current["tok_s"]["1"] == pytest.approx(m1.tok_s(k))


def test_an_unmeasured_batch_follows_the_cycle_through_two_measured_ones() -> None:
    """Walk L: batch 64 was batch 16's tok/s times four (the batch-16 cycle held at 64 sequences). The cycle of a
    batch is drawn through the measured ones: at batch 8 between batch 1's and 32's, at 64 past them."""
    result = plan.build(plan.inputs_for(_entry(), runs=BATCH1 + BATCH32, own_samples=37_000.0))
    k = result.served_steps
    cyc = {b: b * AL[k] / result.current["tok_s"][str(b)] * 1000.0 for b in (1, 8, 64)}
    c1, c32 = 10.0 + 0.8 * k, 20.0 + 6.0 * k  # the two sweeps' cycles (ms) at the served num_steps
    assert cyc[1] == pytest.approx(c1, rel=1e-6)
    assert cyc[8] == pytest.approx(c1 + (c32 - c1) * 7 / 31, rel=1e-6)
    assert cyc[64] == pytest.approx(c1 + (c32 - c1) * 63 / 31, rel=1e-6)
    assert result.current["tok_s"]["64"] < 2 * cycle_tok_s(k, AL[k], verify=20.0, step=6.0, c=32)


def _unphysical_curve() -> curves.Curve:
    """A log that keeps rising log-linearly: the power law's ceiling lands far above K + 1, so Acceptance vs data
    sets the fit aside."""
    pts = []
    for i in range(40):
        seen = (i + 1) * 16_000
        a = min(0.2 + 0.12 * math.log(seen / 10_000), 0.97)
        pts.append(curves.CurvePoint(i + 1, float(seen), "train", (a, a, a), curves.tau_sim((a, a, a))))
    curve = curves.analyse(pts)
    assert curve.evidence["fit_used"] is False and "above the 4.00" in curve.evidence["fit_not_used_because"][0]
    return curve


def test_a_curve_fit_set_aside_on_acceptance_vs_data_gives_no_band_in_the_plan() -> None:
    """Item 2: no samples band from the curve the other page sets aside; the pooled figure, named as such."""
    curve = _unphysical_curve()
    result = plan.build(plan.inputs_for(_entry(), own_samples=37_000.0, curve=curve, curve_source="log"))
    assert result.fit is None or result.fit.scope == "pooled"
    assert "your learning curve's fit is set aside" in result.fit_note
    md = next(o for o in result.options if o.kind == "more-data")
    # a rising log's measured slope leads the row (its own evidence, walk AL4), then why its fit is set aside
    assert md.note.startswith(plan.RISING_LOG), md.note
    assert "Your learning curve's fit is set aside, as on Acceptance vs data (its ceiling" in md.note, md.note
    assert "The pooled logistic fit of published drafts" in md.note and "not your curve" in md.note


def test_the_target_al_names_the_draft_and_benchmark_it_comes_from() -> None:
    """Item 3: the headline says 3.271 is a Kimi draft's GSM8K figure, a draft for another target."""
    inputs = plan.inputs_for(_entry(), own_samples=37_000.0)
    inputs = replace(inputs, target_label=GPT_OSS, family=scaling.family_of(GPT_OSS))
    result = plan.build(inputs)
    assert result.target_al == pytest.approx(3.271)
    lead = plan.lead(result) or ""
    assert "the target 3.271 (AQ-MedAI/Kimi-K2-Instruct-eagle3's published GSM8K AL at (3,1,4)" in lead, lead
    assert "a draft for moonshotai/Kimi-K2-Instruct, not for your target" in lead, lead


def _fall_model() -> speedup.SpeedupModel:
    def point(k: int, al: float, run: int) -> speedup.SweepPoint:
        return speedup.SweepPoint(k, cycle_tok_s(k, al, c=1), al, run)

    # measured 2.35 at 2 and 3.05 at 4 (the walk's table), and 2.90 at 6: below 3.05, noise
    return speedup.fit_sweep([point(2, 2.35, 1), point(4, 3.05, 2), point(6, 2.90, 3)])


def test_predicted_acceptance_never_falls_below_a_measurement_at_fewer_steps() -> None:
    """Item 4: a chain's AL cannot fall with more steps; where the measurements fall, the model says so."""
    model = _fall_model()
    frame = speedup.predict_frame(model, range(1, 9)).set_index("num_steps")
    measured = {2: 2.35, 4: 3.05, 6: 2.90}
    for k, row in frame.iterrows():
        if row["accept_source"] == "predicted":
            below = [v for j, v in measured.items() if j < k]
            assert row["accept_length"] >= max(below, default=1.0) - 1e-12, (k, row["accept_length"])
        assert model.accept_at(int(k)) == pytest.approx(row["accept_length"])
    assert frame.at[5, "accept_length"] == pytest.approx(3.05)  # held, not the geometric value below it
    said = "measured acceptance falls from 3.05 at num_steps=4 (run #2) to 2.90 at num_steps=6 (run #3)"
    assert any(n.startswith(said) for n in model.notes), model.notes
    assert said[1:] in speedup.optimum(model).sentence


def test_both_samples_needed_figures_say_which_model_they_are_from() -> None:
    """Item 5: the pooled logistic's figure beside the log-linear one on the same points, and why they differ."""
    inputs = replace(
        plan.inputs_for(_entry(), own_samples=37_000.0), target_label=GPT_OSS, family=scaling.family_of(GPT_OSS)
    )
    result = plan.build(inputs)
    md = next(o for o in result.options if o.kind == "more-data")
    assert md.samples_needed is not None and md.samples_needed.value is not None
    assert "The pooled logistic fit of published drafts at (3,1,4)" in md.note, md.note
    assert "The log-linear fit on the same" in md.note and "They differ in form, not data" in md.note, md.note
    loglin = next(e for e in md.evidence if e["what"] == "samples needed by the log-linear fit on the same points")
    assert f"about {human(loglin['value'])} samples" in md.note  # a prediction, said as the pages say one
    # and Acceptance vs data's figure names its model and says the plan's differs
    fit: Any = scaling.fit_published(
        scaling.select(scaling.scaling_points(), benchmark="gsm8k", setting_key="steps=3,topk=1,draft=4,bs=8,sglang")
    )
    sentence = verdicts.target_sentence(fit, 3.271)
    assert "by the log-linear fit (acceptance linear in log samples, no ceiling)" in sentence, sentence
    assert "Overview's plan gives its own figure from a logistic in log N bounded at K + 1" in sentence


def test_no_family_volume_is_said_in_words() -> None:
    """Item 6: "No gpt-oss draft ...", never "Only 0 distinct gpt-oss volume(s)"."""
    verdict = verdicts.gap_verdict(37_000.0, "zhuyksir/EAGLE3-gpt-oss-20b-bf16")
    assert verdict.family == "gpt-oss" and verdict.family_distinct == 0
    assert "No gpt-oss draft with a known volume reports GSM8K" in verdict.sentence, verdict.sentence
    assert "Only 0" not in verdict.sentence and "volume(s)" not in verdict.sentence


def test_a_batch_past_the_only_measured_one_is_called_an_upper_bound() -> None:
    result = plan.build(plan.inputs_for(_entry(), runs=BATCH32, own_samples=37_000.0))
    src = _sources(result)
    where = result.current["tok_s_source"]
    text64, text8 = src[where["64"]].text, src[where["8"]].text
    assert text64.startswith("predicted from batch 32 runs (linear, cycle held at batch 32's: an upper bound)"), text64
    assert "upper bound (2x past the largest measured)" in text64, text64
    assert "upper bound" not in text8, text8
    ns = next(o for o in result.options if o.kind == "num-steps")
    assert "(served: " in ns.note and " at batch 32, run #" in ns.note, ns.note


def _engine_run(id_: int, steps: int | None, batch: int, engine: str, *, verify: float, step: float,
                base_ms: float = 0.0) -> RunRecord:  # fmt: skip
    if steps is None:
        return rec(id_, None, batch / base_ms * 1000.0, concurrency=batch, max_tokens=256, engine=engine)
    tok_s = cycle_tok_s(steps, AL[steps], verify=verify, step=step, c=batch)
    return rec(id_, steps, tok_s, AL[steps], concurrency=batch, max_tokens=256, engine=engine)


# walk M: SGLang and vLLM swept batch 1 alike (cycle 19 + 2.4 k ms), vLLM batch 8 too (24 + 6 k ms); baselines
# step 16.47 ms at batch 1 and 20.65 ms at batch 8
WALK_M_RUNS = (
    [_engine_run(1, None, 1, "sglang", verify=0, step=0, base_ms=16.47)]
    + [_engine_run(1 + k, k, 1, "sglang", verify=19.0, step=2.4) for k in range(1, 7)]
    + [_engine_run(10, None, 1, "vllm", verify=0, step=0, base_ms=16.47)]
    + [_engine_run(10 + k, k, 1, "vllm", verify=19.0, step=2.4) for k in range(1, 7)]
    + [_engine_run(20, None, 8, "vllm", verify=0, step=0, base_ms=20.65)]
    + [_engine_run(20 + k, k, 8, "vllm", verify=24.0, step=6.0) for k in range(1, 7)]
)


def test_an_unmeasured_batch_is_drawn_through_one_engines_sweeps_and_its_baseline() -> None:
    """Walk M drew batch 64 through an SGLang batch-1 fit and a vLLM batch-8 one, said the draft step was 'assumed
    equal at every batch size', and named a best num_steps at batch 64 below the baseline drawn the same way."""
    result = plan.build(plan.inputs_for(_entry(), runs=WALK_M_RUNS, own_samples=90_000.0))
    src = {s.id: s for s in result.sources}
    model_text = next(s.text for s in result.sources if s.text.startswith("speedup model"))
    assert "at batch 8" in model_text and "assumed equal at every batch size" not in model_text, model_text
    text64 = src[result.current["tok_s_source"]["64"]].text
    assert "batch-1 fit (runs #11, #12, #13, #14, #15, #16)" in text64, text64  # vLLM's batch 1, not SGLang's
    ns = next(o for o in result.options if o.kind == "num-steps")
    # the baseline drawn through 16.47 ms (batch 1) and 20.65 ms (batch 8): 64 / (16.47 + 63/7 x 4.18) ms
    base64 = 64 / (16.47 + (64 - 1) / (8 - 1) * (20.65 - 16.47)) * 1000.0
    assert ns.tok_s["64"].value < base64
    assert f"Speculation is not predicted to pay at batch 64 ({ns.tok_s['64'].value:,.1f} tok/s against " in ns.note
    assert f"{base64:,.1f} predicted without it)" in ns.note, ns.note
    assert "batch 1 (" not in ns.note.split("not predicted to pay at", 1)[1].split(":")[0]  # it pays at batch 1


def test_a_swept_batch_the_plan_does_not_list_is_named_with_its_own_best() -> None:
    """Walk N swept batch 1 and 32; the plan named bests for 1, 8 and 64 and the batch-32 sweep's own best
    (what `speedup --batch 32` prints) nowhere."""
    result = plan.build(plan.inputs_for(_entry(), runs=BATCH1 + BATCH32, own_samples=37_000.0))
    ns = next(o for o in result.options if o.kind == "num-steps")
    own32 = speedup.optimum(speedup.model_from_runs(BATCH32))
    ties = ", ".join(map(str, own32.ties))
    said = f"Also swept: batch 32 (its own measured sweep, #21, #22, #23, #24, #25, #26): {own32.num_steps}"
    assert said in ns.note and f"{own32.num_steps} ({ties} ties) at {own32.tok_s:,.1f} tok/s" in ns.note, ns.note
