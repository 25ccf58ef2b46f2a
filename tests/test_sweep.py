"""Which runs of a group one speed model may be fitted to, and what the pages say from it.

A group holds what a user measured: baselines on two engines, sweeps on each, a run at other max_tokens or on
other prompts. The speed model is fitted to one comparable sweep with its own baseline; the rest is named and
left out, never pooled (pooling read an engine's or a setting's speed as a cost of num_steps)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from comparelib.analysis import overview, plan, speedup, verdicts
from comparelib.errors import InputError
from comparelib.live.store import RunRecord
from comparelib.models.draft import OwnDraft, default_runs, run_pool
from tests.fixtures import T0, stored_run


def rec(
    id_: int,
    steps: int | None,
    tok_s: float,
    al: float | None = None,
    *,
    engine: str = "sglang",
    max_tokens: int = 64,
    prompt_set: str = "bundled",
    concurrency: int = 4,
    algo: str | None = None,
    group: str = "g",
) -> RunRecord:
    """One stored run; ``steps=None`` is a baseline (no speculation)."""
    return stored_run(
        id_,
        steps,
        tok_s,
        al,
        engine=engine,
        algo=algo or ("EAGLE3" if engine == "sglang" else "unknown"),
        group=group,
        concurrency=concurrency,
        max_tokens=max_tokens,
        prompt_set=prompt_set,
    )


def cycle_tok_s(k: int, al: float, verify: float = 10.0, step: float = 1.5, c: int = 4) -> float:
    """tok/s of a server whose cycle costs ``verify + k * step`` ms per sequence."""
    return c * al / (verify + k * step) * 1000.0


AL = {1: 1.7, 2: 2.2, 3: 2.6, 4: 2.9, 5: 3.1}

# Every group: (runs, fitted run ids, baseline id, left-out ids and a reason each must give)
MIXED = [
    rec(1, None, 388.9, engine="sglang"),
    *(rec(1 + k, k, cycle_tok_s(k, AL[k]), AL[k], engine="sglang") for k in (1, 2, 3)),
    rec(10, None, 388.9, engine="vllm"),
    # vLLM's pair is the fastest: Overview reports it, so the fit is vLLM's sweep
    *(rec(10 + k, k, cycle_tok_s(k, AL[k], verify=6.0, step=1.0), AL[k], engine="vllm") for k in (2, 4)),
    rec(20, 4, 2500.0, 2.9, engine="sglang", max_tokens=32),
]
MAX_TOKENS = [
    rec(1, None, 380.0),
    rec(2, 2, cycle_tok_s(2, AL[2]), AL[2]),
    rec(3, 3, cycle_tok_s(3, AL[3]), AL[3]),
    rec(4, 5, 2370.0, AL[5], max_tokens=16),  # faster only because its answers are short
]
PROMPTS_AND_CONCURRENCY = [
    rec(1, None, 380.0),
    rec(2, 2, cycle_tok_s(2, AL[2]), AL[2]),
    rec(3, 4, cycle_tok_s(4, AL[4]), AL[4]),
    rec(4, 3, 900.0, AL[3], prompt_set="mine.jsonl"),
    rec(5, 3, 1800.0, AL[3], concurrency=8),
]
SWEEP_CASES = [
    (MIXED, [12, 14], 10, {2: "different engine", 3: "different engine", 20: "different max_tokens"}),
    (MAX_TOKENS, [2, 3], 1, {4: "different max_tokens: 16 against 64"}),
    (PROMPTS_AND_CONCURRENCY, [2, 3], 1, {4: "different prompt_set", 5: "different concurrency: 8 against 4"}),
]


@pytest.mark.parametrize(("runs", "fitted", "base", "left_out"), SWEEP_CASES)
def test_the_fit_takes_one_comparable_sweep_and_names_the_rest(
    runs: list[RunRecord], fitted: list[int], base: int, left_out: dict[int, str]
) -> None:
    sweep = speedup.sweep_of(runs)
    assert [r.id for r in sweep.runs] == fitted
    assert sweep.baseline is not None and sweep.baseline.id == base
    model = speedup.model_from_runs(runs)
    assert [p.run_id for p in model.measured] == fitted and model.baseline_run_id == base
    assert model.t_step_ms > 0 and model.t_verify_ms > 0  # a physical cycle: pooling had given negative steps
    for rid, why in left_out.items():
        line = next((n for n in model.left_out if n.startswith(f"run #{rid} ")), None)
        assert line is not None and why in line, (rid, model.left_out)
    assert not speedup.optimum_missing(model)
    # the prediction is the sweep's: no predicted tok/s above every measurement of it by the pooled artefact
    best = speedup.optimum(model)
    assert best.tok_s < 2 * max(r.output_tokens_per_s for r in sweep.runs)  # type: ignore[operator]


def test_the_fit_holds_overviews_measured_pair() -> None:
    pair = speedup.best_pair(MIXED)
    assert pair is not None and (pair.spec.id, pair.baseline.id) == (14, 10)
    assert speedup.sweep_of(MIXED).served.id == 14  # what the plan calls served is the run Overview reports


def test_a_baseline_given_by_id_fixes_the_sweep() -> None:
    sweep = speedup.sweep_of(MIXED, baseline_run_id=1)
    assert [r.id for r in sweep.runs] == [2, 3, 4] and sweep.baseline.id == 1
    with pytest.raises(InputError, match="not a baseline run"):
        speedup.sweep_of(MIXED, baseline_run_id=12)


# Sweeps whose cycle time does not grow with num_steps: the fitted costs are not a server's
NON_PHYSICAL = [
    [(2, 700.0, 2.2), (3, 1100.0, 2.6)],  # more steps, much faster: per-step cost negative
    [(1, 2000.0, 1.7), (2, 600.0, 2.2), (3, 560.0, 2.6)],  # fixed cost negative
]


@pytest.mark.parametrize("points", NON_PHYSICAL)
def test_a_non_physical_fit_names_no_best_num_steps(points: list[tuple[int, float, float]]) -> None:
    m = speedup.fit_sweep([speedup.SweepPoint(k, t, a, run_id=i) for i, (k, t, a) in enumerate(points)])
    assert m.t_step_ms <= 0 or m.t_verify_ms <= 0
    missing = speedup.optimum_missing(m)
    assert len(missing) == 1 and "a sweep whose cycle time grows with num_steps" in missing[0], missing
    assert any("not physical" in n for n in m.notes)


def test_a_sweep_slower_than_its_baseline_says_speculation_does_not_pay() -> None:
    runs = [rec(1, None, 389.8), rec(2, 2, 300.0, 1.5), rec(3, 4, 250.0, 1.65)]
    sentence = speedup.optimum(speedup.model_from_runs(runs)).sentence
    assert "within run-to-run noise of the baseline, or below it" in sentence, sentence
    assert "Every measured num_steps was slower than the baseline (2: 0.77x, 4: 0.64x)." in sentence
    faster = [rec(1, None, 389.8), rec(2, 2, cycle_tok_s(2, AL[2]), AL[2]), rec(3, 4, cycle_tok_s(4, AL[4]), AL[4])]
    assert "noise of the baseline" not in speedup.optimum(speedup.model_from_runs(faster)).sentence


def test_live_comparison_starts_with_a_baseline() -> None:
    """Live benchmark's default selection (the newest six) holds the baselines of the pair Overview reports."""
    draft = OwnDraft.parse("acme/x", group="g")
    bases_first = [r for r in MIXED if r.is_baseline] + [r for r in MIXED if not r.is_baseline]
    assert not any(r.is_baseline for r in default_runs(bases_first, draft))  # the newest six: no baseline
    picked = speedup.with_baselines(run_pool(bases_first, draft), default_runs(bases_first, draft))
    assert [r.id for r in picked if r.is_baseline] == [1, 10]  # each engine's sweep gets its own baseline
    pair = speedup.best_pair(MIXED)
    assert pair is not None and {pair.spec.id, pair.baseline.id} <= {r.id for r in picked}


# ---------------------------------------------------------------- the plan's reading of the sweep


def _entry() -> Any:
    from comparelib.models import comparison

    return comparison.load_entry("example:own-kimi-k2.5-draft", with_header=False, with_card=False)


def test_the_plan_serves_the_sweeps_run_and_names_no_best_from_one_num_steps() -> None:
    single = [rec(1, None, 380.0), rec(2, 3, 789.9, 3.2)]
    result = plan.build(plan.inputs_for(_entry(), runs=single, own_samples=37_000.0))
    ns = next(o for o in result.options if o.kind == "num-steps")
    assert ns.note.startswith(
        "No best num_steps predicted yet (served: 3 at batch 4, run #2: Overview's pair); still missing: only one "
        "num_steps"
    )
    assert not ns.tok_s and ns.gain is None
    result = plan.build(plan.inputs_for(_entry(), runs=MIXED, own_samples=37_000.0))
    assert result.served_steps == 4  # run #14, the vLLM pair; not the fastest run of the group (#20, 32 tokens)
    ds = next((o for o in result.options if o.kind == "draft-size"), None)
    if ds is not None:  # same AL assumed: the measured one at the served num_steps, not the model's lower value
        assert ds.al is not None and ds.al.value == pytest.approx(AL[4])


def test_retraining_without_a_known_volume_is_not_free() -> None:
    result = plan.build(plan.inputs_for(_entry(), runs=MAX_TOKENS, own_samples=None))
    ds = next((o for o in result.options if o.kind == "draft-size"), None)
    if ds is None:
        pytest.skip("no draft-cost candidates recorded for the example draft")
    assert ds.total.value is None and ds.per_gpu_hour is None
    assert "cost unknown: retraining needs your training volume" in ds.note and "0 samples" not in ds.note
    ns = next(o for o in result.options if o.kind == "num-steps")
    # the served num_steps is the best: num-steps is free but gains nothing, so the uncosted gain comes first
    assert ns.gain is not None and not plan.gains(ns, result.noise) and plan.gains(ds, result.noise)
    assert result.options.index(ds) < result.options.index(ns)


# ---------------------------------------------------------------- Overview's words for ratios


GAP_CASES = [
    # data_ratio (reference / yours), expected name, text that must appear, text that must not
    (1 / 3.57, "", "Your draft is ahead in more training data (3.6x the reference's)", "gap is training data"),
    (1.56, "training data", "(1.56x fewer)", "2x fewer"),
    (2.26, "training data", "(2.3x fewer)", "2x fewer"),
    (38.0, "training data", "(38x fewer)", "38.0x"),
    (34146.0, "training data", "(34,146x fewer)", "34146x"),
]


@pytest.mark.parametrize(("ratio", "name", "has", "lacks"), GAP_CASES)
def test_the_data_gap_is_a_gap_only_when_you_have_less(ratio: float, name: str, has: str, lacks: str) -> None:
    got, sentence = overview.largest_gap(
        data_ratio=ratio, size_ratio=1.0, accept_ratio=None, own_volume=1e6 / ratio, ref_volume=1e6
    )
    assert got == name and has in sentence and lacks not in sentence, sentence


def test_more_data_than_the_reference_is_never_called_less_under_a_plateau() -> None:
    # size 1 / 1.3: a smaller draft, a real gap (a larger one is none since walk AL)
    name, sentence = overview.largest_gap(
        data_ratio=1 / 3.57, size_ratio=1 / 1.3, accept_ratio=None, own_volume=5e6, ref_volume=1.4e6,
        curve_verdict="plateau",
    )  # fmt: skip
    assert name == "size" and "the reference used more" not in sentence, sentence
    assert "ahead in more training data" in sentence


def test_the_smaller_gaps_say_which_way_they_go() -> None:
    _, sentence = overview.largest_gap(
        data_ratio=5.0, size_ratio=1 / 2.8, accept_ratio=None, own_volume=2e5, ref_volume=1e6
    )
    assert "your draft is 2.8x smaller outside the embedding" in sentence, sentence


# ---------------------------------------------------------------- "You measured" on Acceptance vs data


def test_the_measurement_set_against_the_fit_is_named_and_like_for_like() -> None:
    import pandas as pd

    from comparelib.analysis import scaling

    runs = [rec(1, None, 380.0), rec(2, 3, 800.0, 2.6), rec(3, 6, 900.0, 6.0, prompt_set="mine.jsonl")]
    pts = scaling.own_points_from_runs(runs, draft="acme/x", samples=200_000.0)
    key, _ = scaling.run_setting(runs[1])
    fit = _fit_at(key, pts["benchmark"].iloc[0])
    agrees, text = verdicts.measured_against_fit(fit, 200_000.0, pts)  # type: ignore[misc]
    assert text.startswith("You measured **2.60** (run #2, at "), text  # the run at the fit's setting, not #3's 6.00
    # the fit at another batch size: the run at the fit's num_steps still comes before a higher one at 6 steps
    fit_bs = _fit_at(key.replace("bs=4", "bs=8"), pts["benchmark"].iloc[0])
    agrees, text = verdicts.measured_against_fit(fit_bs, 200_000.0, pts)  # type: ignore[misc]
    assert text.startswith("You measured **2.60** (run #2, at ") and not agrees, text
    other = pd.DataFrame([pts.iloc[1]])  # run #3 alone: another num_steps and other prompts
    agrees, text = verdicts.measured_against_fit(fit, 200_000.0, other)  # type: ignore[misc]
    assert not agrees and "(run #3, at " in text and f"for {key}" in text, text


def _fit_at(setting_key: str, benchmark: str) -> Any:
    """A fit at ``setting_key`` on ``benchmark`` from made-up published points (a straight line in log volume)."""
    from comparelib.analysis import scaling

    rows = [
        scaling.own_point(
            draft=f"pub/{i}",
            benchmark=benchmark,
            accept_length=2.0 + 0.3 * i,
            setting_key=setting_key,
            chain="(3,1,4)",
            samples=10.0 ** (4 + i),
            tokens=None,
            target_model="acme/target",
            batch_size=4,
            engine="sglang",
            source="test",
        )
        for i in range(4)
    ]
    import pandas as pd

    published = pd.DataFrame(rows)
    published["kind"] = "published"
    points = scaling.scaling_points(published)
    sel = scaling.select(points, benchmark=benchmark, setting_key=setting_key, x="samples")
    return scaling.fit_published(sel)


def test_an_unpaired_run_is_told_what_its_closest_baseline_lacks() -> None:
    """An SGLang run at other max_tokens, beside an SGLang and a vLLM baseline: max_tokens is what differs, not
    also "engine" (the reasons of every baseline were pooled)."""
    run = rec(20, 4, 2500.0, 2.9, engine="sglang", max_tokens=32)
    why = speedup.no_baseline_reason(MIXED, [run])
    assert why.startswith("no comparable baseline in this group: the closest, run #1, has different max_tokens")
    assert "engine" not in why, why


def test_acceptance_at_another_setting_is_not_called_alike() -> None:
    _, sentence = overview.largest_gap(data_ratio=None, size_ratio=1.0, accept_ratio=1.05, accept_same_setting=False)
    assert "acceptance length (within" not in sentence and "Alike: acceptance" not in sentence, sentence
    _, sentence = overview.largest_gap(data_ratio=None, size_ratio=1.0, accept_ratio=1.05, accept_same_setting=True)
    assert "acceptance length (within 5%)" in sentence, sentence


DIFF_CASES = [
    # ours, theirs, what the sentence must name, what it must not
    (
        "steps=3,topk=1,draft=4,bs=2,sglang",
        ["steps=3,topk=1,draft=4,bs=8,sglang"],
        "batch size differs",
        "draft steps",
    ),
    (
        "steps=2,topk=1,draft=3,bs=8,sglang",
        ["steps=3,topk=1,draft=4,bs=8,sglang"],
        "num_steps and draft tokens",
        "batch",
    ),
    ("steps=3,topk=1,draft=4,bs=8,vllm", ["steps=3,topk=1,draft=4,bs=8,sglang"], "engine differs", "draft steps"),
    (None, ["steps=3,topk=1,draft=4,bs=8,sglang"], "not like for like", "differ"),
    # a reference whose setting the source does not state: no "engine differs" from its words
    (
        "steps=2,topk=1,draft=3,sglang",
        ["setting not stated by the source", "steps=3,topk=1,draft=4,bs=8,sglang"],
        "num_steps and draft tokens differ",
        "engine",
    ),
]


@pytest.mark.parametrize(("ours", "theirs", "has", "lacks"), DIFF_CASES)
def test_settings_differ_for_the_reason_that_differs(
    ours: str | None, theirs: list[str], has: str, lacks: str
) -> None:
    """Overview gave "more draft steps give longer acceptance" when only the batch size differed."""
    text = overview.setting_difference(ours, theirs)
    assert has in text and lacks not in text, text


def test_a_target_the_draft_already_measured_is_said_next_to_the_volume_needed() -> None:
    from comparelib.analysis import scaling

    runs = [rec(1, None, 380.0), rec(2, 3, 800.0, 3.1), rec(3, 2, 700.0, 2.9)]
    pts = scaling.own_points_from_runs(runs, draft="acme/x", samples=41.0)
    key, _ = scaling.run_setting(runs[1])
    fit = _fit_at(key.replace("bs=4", "bs=8"), pts["benchmark"].iloc[0])
    said = verdicts.already_reached(fit, 3.0, pts)
    assert said is not None and said.startswith("Your draft already measured 3.10 (run #2, at "), said
    assert verdicts.already_reached(fit, 3.2, pts) is None  # not reached: the volume sentence stands alone


def test_a_measured_point_off_the_trend_is_left_out_of_the_plans_fit_not_the_whole_fit() -> None:
    """41 samples measuring 3.30: the pooled fit failed ("the pooled points do not rise"), and the opened plan
    had no fit while the fold-out above it showed the published trend."""
    from comparelib.analysis import scaling

    runs = [rec(1, None, 380.0, prompt_set="gsm8k"), rec(2, 3, 900.0, 3.3, prompt_set="gsm8k")]
    runs += [rec(3, 2, 800.0, 2.8, prompt_set="gsm8k")]  # on the fit's benchmark: a point of its trend
    result = plan.build(plan.inputs_for(_entry(), runs=runs, own_samples=41.0, published=scaling.published_points()))
    assert result.fit is not None
    assert "your measured point (3.30 at 41 samples) does not lie on a rising trend" in result.fit_note
    assert "plus your measured point" not in result.fit_note


OFFLINE_CASES = [
    # by_steps rows, AL kept by steps, what the source says was left out
    (
        [{"steps": 1, "al_replay": 1.6}, {"steps": 2, "al_replay": 9.0}, {"steps": 3, "al_replay": None}],
        {1: 1.6},
        ["steps=2: al_replay 9 is impossible (between 1 and 3)", "steps=3: al_replay None is not a number"],
    ),
    ([{"steps": "x", "al_replay": 2.0}, {"steps": 2, "al_replay": 2.2}], {2: 2.2}, ["row 1: steps 'x'"]),
    ([{"steps": 2, "al_replay": 2.2}], {2: 2.2}, []),
]


@pytest.mark.parametrize(("rows", "kept", "said"), OFFLINE_CASES)
def test_plan_offline_rows_left_out_are_named(tmp_path: Any, rows: list, kept: dict, said: list) -> None:
    """An impossible AL or a null was dropped without a word, and the plan picked num_steps from what was left."""
    import json

    path = tmp_path / "eval.json"
    path.write_text(json.dumps({"by_steps": rows}))
    off = plan.read_offline(path)
    assert off.al_by_steps == kept
    for text in said:
        assert text in off.source, off.source
    assert ("left out" in off.source) is bool(said)


@pytest.mark.parametrize("rows", [[], [{"steps": 2, "al_replay": 9.0}]])
def test_plan_offline_with_no_usable_row_is_refused(tmp_path: Any, rows: list) -> None:
    import json

    from comparelib.errors import DataError

    path = tmp_path / "eval.json"
    path.write_text(json.dumps({"by_steps": rows}))
    with pytest.raises(DataError, match="no usable acceptance length by num_steps"):
        plan.read_offline(path)


# ---------------------------------------------------------------- a new user's vLLM walk (#1-#4, #8, #9, #10)


def _imported(r: RunRecord, **changes: Any) -> RunRecord:
    """``r`` as `vllm bench serve --save-result` leaves it: the tool's name and its concurrency, and neither
    the dataset nor the output length (vllm/benchmarks/serve.py writes neither)."""
    from dataclasses import replace

    params = {"format": "vllm bench serve", "max_concurrency": r.params["concurrency"], "source_file": "x.json"}
    return replace(r, kind="imported", params=params, **changes)


WALK_AL = {1: 1.80, 2: 2.17, 3: 2.51, 4: 2.77, 5: 2.91}
WALK_WIGGLE = {1: 1.0, 2: 1.004, 3: 0.998, 4: 1.003, 5: 0.997}  # run-to-run noise, fixed


def _walk_tok_s(k: int) -> float:
    """One sequence at a time (batch 1 = the sweep's concurrency, so the plan's batch-1 figure is the model's):
    a cycle of 11.15 + 1.65 k ms, the Qwen3-8B walk's fitted costs."""
    return cycle_tok_s(k, WALK_AL[k], verify=11.15, step=1.65, c=1) * WALK_WIGGLE[k]


def _walk_run(id_: int, steps: int | None, tok_s: float, al: float | None = None) -> RunRecord:
    return rec(id_, steps, tok_s, al, engine="vllm", max_tokens=256, concurrency=1)


# product baseline #1 and num_steps 1-3 (#2-#4), a page run at 5 (#9), an imported baseline #8 (dated before #1,
# as vLLM's result date said) and an imported run at num_steps 4 (#10)
WALK = [
    _walk_run(1, None, 82.5),
    *(_walk_run(1 + k, k, _walk_tok_s(k), WALK_AL[k]) for k in (1, 2, 3)),
    _imported(_walk_run(8, None, 83.2), created_at=T0 - timedelta(days=1)),
    _walk_run(9, 5, _walk_tok_s(5), WALK_AL[5]),
    _imported(_walk_run(10, 4, _walk_tok_s(4), WALK_AL[4])),
]


def test_the_plan_and_the_speedup_page_name_the_same_num_steps() -> None:
    """Overview's plan named 4 (measured AL, strict maximum, 0.1% ahead) while Acceptance vs data named 3 (the
    geometric AL): both now read the measured AL where measured and name the smallest within 2% of the fastest."""
    model = speedup.model_from_runs(WALK)
    frame = speedup.predict_frame(model).set_index("num_steps")
    assert frame.at[3, "accept_length"] == pytest.approx(2.51) and frame.at[3, "accept_source"] == "measured"
    assert frame.at[6, "accept_source"] == "predicted"
    best = speedup.optimum(model)
    assert (best.num_steps, best.ties) == (3, (4,)), best.sentence
    assert "num_steps=4 ties within noise" in best.sentence and "the smallest num_steps is named" in best.sentence
    result = plan.build(plan.inputs_for(_entry(), runs=WALK, own_samples=37_000.0))
    # #4, the fitted sweep's fastest: #10, the pair Overview reports, is imported from vllm bench serve with its
    # prompts unrecorded, another setting than the app's sweep (the chart draws it as its own line)
    assert model.fitted_run_ids == (2, 3, 4, 9) and result.served_steps == 3
    ns = next(o for o in result.options if o.kind == "num-steps")
    assert ns.al_steps == best.num_steps and "batch 1: 3 (measured; 4 ties, predicted)" in ns.note, ns.note
    assert ns.tok_s["1"].value == pytest.approx(best.tok_s)  # the same figure, not only the same pick
    assert "The served num_steps is the best or ties it within 2% at batch 1" in ns.note, ns.note
    assert not plan.gains(ns, result.noise)


def test_a_zero_gain_option_ranks_after_an_uncosted_gain() -> None:
    """num-steps gained 0.0 tok/s (it names the served one) and ranked above more-data's +61.8 whose cost is
    unknown (no target count): an option with a gain comes before one without."""
    from dataclasses import replace

    inputs = plan.inputs_for(_entry(), runs=WALK, own_samples=37_000.0)
    result = plan.build(replace(inputs, target_active=None, target_label=None))
    kinds = [o.kind for o in result.options]
    more, ns = (result.options[kinds.index(k)] for k in ("more-data", "num-steps"))
    assert more.total.value is None and plan.gains(more, result.noise)
    assert not plan.gains(ns, result.noise)
    assert kinds.index("more-data") < kinds.index("num-steps"), kinds


# (gain, its band's low end, total GPU-hours, blocking) -> rank tier, no-gain flag; noise 2.0 tok/s
RANK_CASES = [
    ((0.0, 0.0), 0.0, False, (3, 1)),  # free and no gain: last
    ((1.9, 1.9), 0.0, False, (3, 1)),  # within noise: no gain
    ((-0.4, -0.4), 0.0, False, (3, 1)),  # a tie a little below the served figure: no gain
    ((61.8, 10.5), None, False, (3, 0)),  # a gain with an unknown cost: before every no-gain
    ((61.8, 10.5), 400.0, False, (1, 0)),  # a gain whose band clears noise, costed
    ((16.6, None), 10.0, False, (2, 0)),  # a gain without a lower bound
    ((0.0, 0.0), 0.0, True, (0, 0)),  # a wiring error: first
]


@pytest.mark.parametrize(("gain", "hours", "blocking", "expected"), RANK_CASES)
def test_rank_key_puts_gains_beyond_noise_first(
    gain: tuple[float, float | None], hours: float | None, blocking: bool, expected: tuple[int, int]
) -> None:
    o = plan.Option("num-steps", "x", gain=plan.Band(gain[0], gain[1], gain[0]), blocking=blocking)
    o.training = plan.Band(hours, hours, hours)
    assert plan.rank_key(o, 2.0)[:2] == expected


def test_an_imported_run_pairs_with_a_baseline_from_the_same_tool() -> None:
    """#10 (vllm bench serve, its random prompts) was paired with this app's #1 (bundled prompts) for 1.90x
    beside #8, a baseline from the same tool; and the settings vLLM does not record passed as equal unsaid."""
    pair = speedup.best_pair(WALK)
    assert pair is not None and (pair.spec.id, pair.baseline.id) == (10, 8) and pair.note is None
    without = [r for r in WALK if r.id != 8]
    own = speedup.best_pair(without)  # the app's own pair before one that mixes the tools (walk R2)
    assert own is not None and (own.spec.id, own.baseline.id) == (4, 1) and own.note is None
    mixed_only = [r for r in without if r.is_baseline or r.id == 10]  # the imported run is the only one paired
    pair = speedup.best_pair(mixed_only)
    assert pair is not None and (pair.spec.id, pair.baseline.id) == (10, 1)
    assert pair.note == (
        "max_tokens, prompt set not recorded by vllm bench serve (run #10): not shown to match run #1's "
        "(max_tokens 256, prompt set bundled)"
    )
    model = speedup.model_from_runs(without)  # the sweep is not fitted across the two tools: #10 is left out
    assert model.fitted_run_ids == (2, 3, 4, 9) and pair.note not in model.notes
    assert model.left_out == (
        "run #10 (vllm, num_steps=4) left out of the fit: imported from x.json; its max_tokens and prompt set are "
        "not recorded (run #2: max_tokens 256, prompt set bundled)",
    )
    live = overview.live_facts(mixed_only)  # Overview's measured sentence carries the caveat with the pair
    assert live is not None and "Note: max_tokens, prompt set not recorded by vllm bench serve" in live.sentence


SAME_MODEL_CASES = [
    # served as, baseline served as, whether the pair is refused for another target model
    ("/models/Qwen3-8B", "Qwen/Qwen3-8B", False),
    ("Qwen/Qwen3-8B", "Qwen/Qwen3-8B", False),
    ("Qwen/Qwen3-8B", "Qwen/Qwen3-14B", True),
    ("acme/target", "acme/other", True),  # model_match is unsure: different names stay different
]


@pytest.mark.parametrize(("served", "base_served", "refused"), SAME_MODEL_CASES)
def test_a_local_folder_and_the_hub_id_are_one_target(served: str, base_served: str, refused: bool) -> None:
    from dataclasses import replace

    run, base = replace(WALK[3], model=served), replace(WALK[0], model=base_served)
    why = speedup.baseline_mismatch(run, base)
    assert any("different target model" in w for w in why) is refused, why


def test_run_param_is_the_shared_one() -> None:
    from comparelib import values

    assert speedup.run_param is values.run_param


def test_the_fit_takes_the_same_tree_the_chart_draws_as_one_line() -> None:
    """A tree's num_draft_tokens is its own knob: the chart drew ndt=8 and ndt=16 as two lines while the fit
    pooled them as one num_steps sweep (the ndt=16 run's higher AL read as the effect of num_steps)."""
    from dataclasses import replace

    def tree(r: RunRecord, ndt: int) -> RunRecord:
        return replace(r, topk=4, num_draft_tokens=ndt)

    runs = [
        rec(1, None, 40.0),
        tree(rec(2, 3, 90.0, 3.1), 8),
        tree(rec(3, 4, 95.0, 3.4), 8),
        tree(rec(4, 5, 97.0, 4.4), 16),
    ]
    sweep = speedup.sweep_of(runs)
    assert [r.id for r in sweep.runs] == [2, 3]  # the one line with two num_steps
    (why,) = sweep.left_out
    assert "#4" in why and "different num_draft_tokens of a tree: 16 against 8" in why, why
    series = speedup.sweep_series([r for r in runs if not r.is_baseline])
    assert {series[r.id] for r in sweep.runs} == {"sglang EAGLE-3 bs=4 tree topk=4 ndt=8"}
    assert series[4] == "sglang EAGLE-3 bs=4 tree topk=4 ndt=16"
    # chains sweep whatever their num_draft_tokens (it follows num_steps)
    chain = [rec(1, None, 40.0), rec(2, 2, 80.0, 2.4), rec(3, 4, 85.0, 2.9)]
    assert [r.id for r in speedup.sweep_of(chain).runs] == [2, 3]
