"""A new user's walk: a local EAGLE-3 draft for Qwen/Qwen3-30B-A3B whose config names no target (set on Compare),
an SGLang sweep at num_steps 2, 3, 4 plus a baseline, 201 audited samples, a plateaued SpecForge log; Overview's
reference Tengyunw/qwen3_30b_moe_eagle3 publishes a volume (600K) and no acceptance length.

What it found: Overview's plan aimed at 2.64 (the Instruct-2507 draft's, another target's) while Acceptance vs data
opened on 3.00; that page led with "to reach 3 you need about 2M samples" above a run that measured 2.67 where the
fit gives 2.25 at the reference's volume, and a plateaued log; Overview's acceptance line read "Tengyunw/... not
published (published) on GSM8K/HumanEval/MATH500 ... theirs none"; and "attach training data or benchmark runs"
with runs attached and quoted."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pandas as pd
import pytest

from comparelib.analysis import overview, plan, scaling, verdicts
from comparelib.models import comparison, registry
from tests.test_sweep import rec

TARGET = "Qwen/Qwen3-30B-A3B"
TENGYUN = "Tengyunw/qwen3_30b_moe_eagle3"  # 600K samples, no config, no acceptance length
INSTRUCT = "lmsys/SGLang-EAGLE3-Qwen3-30B-A3B-Instruct-2507-SpecForge-Nex"  # GSM8K 2.64 at (3,1,4), 1.4M samples
KEY = "steps=3,topk=1,draft=4,bs=8,sglang"


def _run(id_: int, steps: int | None, tok_s: float, al: float | None = None) -> Any:
    return replace(rec(id_, steps, tok_s, al, concurrency=8, group="qwen30b"), model=TARGET)


SWEEP = [_run(1, None, 150.0), _run(2, 2, 200.0, 2.30), _run(3, 3, 230.0, 2.67), _run(4, 4, 225.0, 2.90)]


# ---------------------------------------------------------------- 1. one target AL, said as the family's


TARGET_CASES = [
    # target, family, AL, phrases that must be in the why, phrases that must not
    (
        TARGET,
        "qwen3",
        2.64,
        ["the Qwen3 family's draft", f"a draft for {TARGET}-Instruct-2507, not for your target"],
        [f"the published draft for your target {TARGET}"],
    ),
    (f"{TARGET}-Instruct-2507", "qwen3", 2.64, [f"the published draft for your target {TARGET}-Instruct-2507"], []),
    (None, "qwen3", 2.64, ["the Qwen3 family's draft with the most training data"], ["not for your target"]),
]


@pytest.mark.parametrize(("target", "family", "al", "has", "has_not"), TARGET_CASES)
def test_a_draft_for_another_target_is_named_the_familys(
    target: str | None, family: str, al: float, has: list[str], has_not: list[str]
) -> None:
    found = plan._published_target(scaling.published_points(), family, "gsm8k", "(3,1,4)", target, "my-local-draft")
    assert found is not None
    value, why = found
    assert value == pytest.approx(al) and why.startswith(f"{INSTRUCT} at (3,1,4) on gsm8k"), why
    assert all(p in why for p in has), why
    assert not any(p in why for p in has_not), why


def test_acceptance_vs_datas_default_target_is_the_plans() -> None:
    """Both pages read ``plan.published_target``: the plan for a Qwen3-30B-A3B draft and the page's default."""
    entry = comparison.load_entry("example:own-kimi-k2.5-draft", with_header=False, with_card=False)
    pts = scaling.published_points()
    inputs = plan.inputs_for(entry, runs=SWEEP, published=pts)
    inputs = replace(inputs, runs=tuple(SWEEP), target_label=TARGET, family="qwen3", draft_label="my-local-draft")
    result = plan.build(inputs)
    page = plan.default_target(pts, benchmark="gsm8k", setting_key=KEY, target=TARGET, own="my-local-draft")
    assert page is not None and result.target_al == pytest.approx(page[0]) == pytest.approx(2.64)
    source = next(s.text for s in result.sources if s.id == result.target_al_source)
    assert source == f"registry: {page[1]}"


# ---------------------------------------------------------------- 2. your own evidence leads, the trend follows


def _fit_and_own(al: float) -> tuple[scaling.Fit, pd.DataFrame]:
    pts = scaling.published_points()
    fit = scaling.fit_published(scaling.select(pts, benchmark="gsm8k", setting_key=KEY, x="samples"))
    # measured on GSM8K prompts, the fit's: a run on other prompts neither meets nor misses it (test_plan_walk_w)
    own = scaling.own_points_from_runs(
        [*SWEEP[:2], _run(3, 3, 230.0, al)], draft="mine", samples=None, tokens=None, benchmark="gsm8k"
    )
    return fit, own


LEAD_CASES = [
    # measured AL at 3 steps, target, curve verdict, the lead starts with, the trend's sentence is qualified
    (2.67, 3.0, None, "Your draft already measured 2.67 (run #3), at or above the 2.25 the published trend", True),
    (2.67, 3.0, "plateau", "Your training log (Learning curve tab) has plateaued", True),
    (3.10, 3.0, None, "Your draft already measured 3.10 (run #3, at steps=3", True),
    (1.80, 3.0, None, "To reach 3 on GSM8K at steps=3,topk=1,draft=4,bs=8,sglang you need about 2M samples", False),
]


@pytest.mark.parametrize(("al", "target", "verdict", "lead", "qualified"), LEAD_CASES)
def test_the_lead_says_what_your_own_evidence_says_first(
    al: float, target: float, verdict: str | None, lead: str, qualified: bool
) -> None:
    fit, own = _fit_and_own(al)
    lines = verdicts.data_lead(fit, target, own, reference=TENGYUN, reference_volume=600_000.0, curve_verdict=verdict)
    assert lines[0].startswith(lead), lines
    sentence = verdicts.target_sentence(fit, target)
    assert lines[-1] == (
        f"For a draft on the published trend (not your draft's evidence above): {sentence}" if qualified else sentence
    )


# ---------------------------------------------------------------- 3. a reference that publishes no acceptance


ACCEPT_CASES = [
    # reference, ours measured, phrases in the line, phrases not in it
    (
        TENGYUN,
        2.67,
        [f"ours 2.67; {TENGYUN} publishes no acceptance length, so there is no published figure"],
        ["none", "not published", "(published)", "GSM8K", "Settings differ"],
    ),
    (INSTRUCT, 2.67, ["(published) on GSM8K/HumanEval/MATH500", "Settings differ:"], ["publishes no acceptance"]),
    (INSTRUCT, None, ["(published) on GSM8K/HumanEval/MATH500"], ["Settings differ"]),
]


@pytest.mark.parametrize(("reference", "ours", "has", "has_not"), ACCEPT_CASES)
def test_the_acceptance_line_of_a_reference_without_acceptance(
    reference: str, ours: float | None, has: list[str], has_not: list[str]
) -> None:
    acc = overview.accept_facts(ours, "steps=3,topk=1,draft=4,bs=1,sglang", reference)
    line = overview.accept_line(acc, reference, f"{ours:.2f}" if ours else "missing", KEY, measured=ours is not None)
    assert all(p in line for p in has), line
    assert not any(p in line for p in has_not), line
    if reference == TENGYUN:
        assert "theirs none" not in acc.sentence and "publishes no acceptance length" in acc.sentence


# ---------------------------------------------------------------- 4. what is missing, named


def test_no_gap_names_what_is_missing_not_runs_that_are_attached() -> None:
    own = comparison.load_entry("example:own-kimi-k2.5-draft", with_header=False, with_card=False)
    ref = next(d for d in registry.load_registry() if d.hub_id == TENGYUN)
    ans = overview.answer(own, ref, SWEEP, None, own_target=TARGET)
    assert ans.best_run is not None and ans.own_accept is not None  # a run is attached and quoted
    assert ans.gap == ""
    assert "attach training data or benchmark runs" not in ans.gap_sentence, ans.gap_sentence
    assert ans.gap_sentence.startswith("Not enough evidence yet to name a gap: your training volume is missing")
    assert f"{TENGYUN} publishes no acceptance length" in ans.gap_sentence
    # with a volume the data gap is named, as before
    named = overview.answer(own, ref, SWEEP, 201.0, own_target=TARGET)
    assert named.gap == "training data", named.gap_sentence


MISSING_CASES = [
    # own volume, reference volume, own AL, runs attached, expected items (substrings, in order)
    (None, 6e5, 2.67, True, ["your training volume is missing", f"{TENGYUN} publishes no acceptance length"]),
    (201.0, None, 2.67, True, [f"{TENGYUN} publishes no training volume", "publishes no acceptance length"]),
]


@pytest.mark.parametrize(("own_vol", "ref_vol", "own_al", "has_runs", "items"), MISSING_CASES)
def test_missing_evidence(
    own_vol: float | None, ref_vol: float | None, own_al: float | None, has_runs: bool, items: list[str]
) -> None:
    acc = overview.accept_facts(own_al, KEY, TENGYUN)
    got = overview.missing_evidence(
        reference=TENGYUN,
        own_volume=own_vol,
        ref_volume=ref_vol,
        own_accept=own_al,
        acc=acc,
        sizes_known=False,
        has_runs=has_runs,
    )
    assert len(got) == len(items) + 1 and got[-1].startswith("the registry has no config"), got
    assert all(i in g for i, g in zip(items, got, strict=False)), got


# ---------------------------------------------------------------- 5. your training log's fit on the live scale
# Walk Q: a log plateaued at 2.58 (tau_sim) beside 2.72 measured live at 3 steps; the plan said "AL 2.58", "does not
# reach the target 2.876 (plateau 2.58)", a tok/s from it, and ranked more data first on +0.5 tok/s.


def _log(plateau: float, n0: float) -> tuple[tuple[float, ...], tuple[float, ...]]:
    x = [800.0 * i for i in range(1, 63)]  # 62 logged points to 49,600 samples
    return tuple(x), tuple(1 + (plateau - 1) / (1 + (n0 / v) ** 1.5) for v in x)


def _log_plan(plateau: float, n0: float, verdict: str, runs: list[Any], rank_batch: int) -> plan.Plan:
    entry = comparison.load_entry("example:own-kimi-k2.5-draft", with_header=False, with_card=False)
    x, y = _log(plateau, n0)
    inputs = plan.inputs_for(entry, runs=runs, published=scaling.published_points())
    inputs = replace(
        inputs,
        runs=tuple(runs),
        target_label=TARGET,
        family="qwen3",
        draft_label="my-local-draft",
        curve_x=x,
        curve_al=y,
        curve_steps=3,
        curve_verdict=verdict,
        curve_source="train.csv",
    )
    return plan.build(inputs, target_al=2.9, rank_batch=rank_batch)


LIVE_SCALE_CASES = [
    # log plateau, its N0, verdict, runs, ranking batch, measured live AL at (3,1,4) (None: none), phrases in the note
    (2.46, 3000.0, "plateau", SWEEP, 8, 2.67, ["run #3 measured AL 2.67 at (3,1,4)", "on the live scale)"]),
    (3.6, 60000.0, "rising", SWEEP, 8, 2.67, ["run #3 measured AL 2.67 at (3,1,4)", "reaches the target 2.9"]),
    (2.46, 3000.0, "plateau", [SWEEP[0], SWEEP[1], SWEEP[3]], 8, None, ["the training simulation's), not live"]),
]


@pytest.mark.parametrize(("plateau", "n0", "verdict", "runs", "batch", "live", "has"), LIVE_SCALE_CASES)
def test_the_logs_fit_is_put_on_the_live_scale(
    plateau: float, n0: float, verdict: str, runs: list[Any], batch: int, live: float | None, has: list[str]
) -> None:
    # measured on the target's benchmark: a run on other prompts is not set against it (walk S, see
    # test_plan_target_prompts)
    runs = [replace(r, params={**r.params, "prompt_set": "gsm8k"}) for r in runs]
    result = _log_plan(plateau, n0, verdict, runs, batch)
    more = next(o for o in result.options if o.kind == "more-data")
    fit = result.fit
    assert fit is not None and fit.scope == "curve" and more.al is not None and more.al.value is not None
    now = fit.al(49600.0).value
    assert now is not None
    shift = 0.0 if live is None else live - now  # predicted live AL = measured + (fit at new N - fit now)
    needed = more.samples_needed.value if more.samples_needed is not None else None
    n_new = needed if needed is not None else 496000.0  # not reached: the row shows 10x the log's volume
    assert more.al.value == pytest.approx(fit.al(n_new).value + shift)  # type: ignore[operator]
    if needed is not None:  # the target is reached on the live scale, not the log's
        assert needed == pytest.approx(fit.samples_for(2.9 - shift).value)
    assert all(h in more.note for h in has), more.note
    if live is not None:  # tok/s from the live AL's ratio, so a plateau near your live AL gains next to nothing
        assert abs(more.al.value - live) < 0.1 if verdict == "plateau" else more.al.value > live
        assert f"plateau {plateau:.2f})" not in more.note, more.note


def test_a_plateaued_log_ranks_more_data_last() -> None:
    """Its own fit's small gain (within noise) no longer lists it above options that gain nothing."""
    result = _log_plan(2.46, 3000.0, "plateau", SWEEP, 8)
    more = next(o for o in result.options if o.kind == "more-data")
    assert more.gain is not None and more.gain.value is not None and more.gain.value > 0
    assert result.options[-1] is more, [(o.kind, o.gain) for o in result.options]
    assert more.note.startswith("Your training log (Acceptance vs data) has plateaued on this data"), more.note
    assert "ranked last" in result.log_note
    assert not (plan.lead(result) or "").startswith("**Ranked first: More training data")
