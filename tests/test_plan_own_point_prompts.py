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
