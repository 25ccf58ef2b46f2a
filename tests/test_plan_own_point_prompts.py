"""Walk R: the plan pooled the user's run on the bundled chat prompts into the published GSM8K fit.

Without a run group the plan put the target at 1,571,994 samples; with the group (run #7, AL 2.56 at 3 steps on the
bundled prompts) at 31,698,267, while Acceptance vs data, which leaves that run out of its fit ("your prompts are
'bundled', the fit is GSM8K"), said about 1.6M. A point measured on other prompts is not a point of the
benchmark's trend: the plan leaves it out too, and says so.
"""

from __future__ import annotations

import pytest

from comparelib.analysis import plan, scaling
from tests.test_sweep import _entry, rec

# prompts of the runs, whether the point is in the fit
CASES = [("bundled", False), ("gsm8k", True), ("GSM8K", True), ("mt-bench", False)]


@pytest.mark.parametrize(("prompts", "in_fit"), CASES)
def test_your_point_joins_the_fit_only_when_measured_on_its_benchmark(prompts: str, in_fit: bool) -> None:
    runs = [rec(1, None, 380.0, prompt_set=prompts), rec(2, 3, 800.0, 2.56, prompt_set=prompts)]
    runs += [rec(3, 2, 700.0, 2.2, prompt_set=prompts)]
    inputs = plan.inputs_for(_entry(), runs=runs, own_samples=3_000.0, published=scaling.published_points())
    assert inputs.benchmark == "gsm8k"
    result = plan.build(inputs, target_al=3.0)
    alone = plan.build(
        plan.inputs_for(_entry(), runs=[], own_samples=3_000.0, published=scaling.published_points()), target_al=3.0
    )
    assert result.fit is not None and alone.fit is not None
    yours = result.points[result.points["kind"] == "yours"]
    assert len(yours) == int(in_fit)
    assert ("plus your point measured at 3 steps (run #2, AL 2.56)" in result.fit_note) is in_fit, result.fit_note
    left_out = (
        f"your measured point (run #2, AL 2.56) is left out of the fit: it was measured on the {prompts!r} prompts, "
        "the fit is GSM8K, as on Acceptance vs data"
    )
    assert (left_out in result.fit_note) is (not in_fit), result.fit_note
    if not in_fit:  # the same fit, the same samples needed, as without your runs
        assert result.fit.summary() == alone.fit.summary()
        more, more_alone = (next(o for o in r.options if o.kind == "more-data") for r in (result, alone))
        assert more.samples_needed == more_alone.samples_needed


@pytest.mark.parametrize("prompts", ["bundled", "gsm8k"])
def test_a_point_on_other_prompts_is_not_above_the_trend_nor_meets_its_target(prompts: str) -> None:
    """Walk R2: with the chat-prompt point left out of the fit, the more-data row said "Your draft sits above the
    published trend" (2.56 on chat prompts against GSM8K's 1.26 at 3,000 samples), and a run on other prompts could
    "meet" a GSM8K target. Both are set against another benchmark's scale now, and said so."""
    runs = [rec(1, None, 380.0, prompt_set=prompts), rec(2, 3, 800.0, 3.5, prompt_set=prompts)]
    runs += [rec(3, 2, 700.0, 2.9, prompt_set=prompts)]
    inputs = plan.inputs_for(_entry(), runs=runs, own_samples=3_000.0, published=scaling.published_points())
    result = plan.build(inputs, target_al=3.2)  # under the 3.50 measured on those prompts; the trend: 2.98 there
    more = next(o for o in result.options if o.kind == "more-data")
    if prompts == "gsm8k":  # on the target's benchmark: the target is met
        assert more.note.startswith("Target already met by run #2"), more.note
        return
    assert "Target already met" not in more.note, more.note
    assert more.note.startswith(
        "Your acceptance, 3.50 (run #2 at (3,1,4)), was measured on the 'bundled' prompts and the trend is GSM8K's"
    ), more.note
    assert "sits above the published trend" not in more.note
    assert "a draft on the trend reaches the target" in more.note, more.note
    lead = plan.lead(result) or ""
    if result.options[0].kind != "more-data":
        assert "More training data is not predicted for your draft" in lead, lead
