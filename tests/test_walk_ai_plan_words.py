"""Walk AI: the plan's more-data words (group q3next-sg, nextlab/qwen3-next-eagle3).

- AI2: the draft ran num_steps 2 (AL 2.21) and 4 (AL 3.37), on the bundled prompts; the more-data row said "Your
  acceptance, 2.96 (at 3 steps), was measured on the 'bundled' prompts": no run measured 3 steps, 2.96 is run #3's
  3.37 at 4 steps converted by a constant per-position acceptance. It is said as converted now, wherever said.
"""

from __future__ import annotations

import pytest

from comparelib.analysis import plan, scaling, speedup
from tests.test_sweep import _entry, rec


def _ai(al2: float, al4: float, samples: float) -> plan.Plan:
    """Runs #1 (baseline), #2 (num_steps 2) and #3 (num_steps 4, served) on the bundled prompts; the plan at 3."""
    runs = [rec(1, None, 380.0, prompt_set="bundled"), rec(2, 2, 700.0, al2, prompt_set="bundled")]
    runs += [rec(3, 4, 820.0, al4, prompt_set="bundled")]
    inputs = plan.inputs_for(_entry(), runs=runs, own_samples=samples, published=scaling.published_points())
    result = plan.build(inputs, steps=3, target_al=3.2)
    assert result.served_steps == 4
    return result


def test_the_fit_note_says_your_point_at_3_steps_is_converted() -> None:
    result = _ai(2.21, 3.37, 300.0)
    assert f"{speedup.geometric_accept(speedup.alpha_for(3.37, 4), 3):.2f}" == "2.96"
    assert "your measured point (run #3, AL 2.96)" not in result.fit_note, result.fit_note
    assert (
        "your point (run #3, AL 2.96, at 3 steps, converted from run #3's 3.37 at 4 steps by a constant per-position "
        "acceptance) is left out of the fit"
    ) in result.fit_note, result.fit_note


def test_a_converted_acceptance_is_said_as_converted_not_measured() -> None:
    result = _ai(2.9, 4.6, 20.0)  # far above the trend at 20 samples: the row's "Your acceptance" sentence
    more = next(o for o in result.options if o.kind == "more-data")
    mine = f"{speedup.geometric_accept(speedup.alpha_for(4.6, 4), 3):.2f}"
    assert f"Your acceptance, {mine} (at 3 steps), was measured" not in more.note, more.note
    assert (
        f"Your acceptance, {mine} (at 3 steps, converted from run #3's 4.60 at 4 steps by a constant per-position "
        "acceptance), comes from a run on the 'bundled' prompts"
    ) in more.note, more.note


LOG_X = tuple(800.0 * i for i in range(1, 63))  # a rising log to 49,600 samples seen
LOG_AL = tuple(1 + 2.6 / (1 + (60_000.0 / v) ** 1.5) for v in LOG_X)


def test_a_rising_logs_tenfold_row_takes_acceptance_vs_datas_fit_without_a_run_at_the_chain() -> None:
    """AI4: with a rising log and no run at the plan's 3 steps (runs at 2 and 4), the row gave the bounded fit's AL
    and band at 10x (2.66 (2.44..2.97)) while Acceptance vs data's Learning curve and `curve` gave 2.66 (2.51..2.82):
    the README says a rising log's 10x row takes that page's power-law fit. It does now, run at the chain or not."""
    from dataclasses import replace

    from comparelib.analysis import curves

    runs = [rec(1, None, 380.0, prompt_set="bundled"), rec(2, 2, 700.0, 2.21, prompt_set="bundled")]
    runs += [rec(3, 4, 820.0, 3.37, prompt_set="bundled")]
    inputs = plan.inputs_for(_entry(), runs=runs, own_samples=4_960.0, published=scaling.published_points())
    inputs = replace(
        inputs, curve_x=LOG_X, curve_al=LOG_AL, curve_steps=3, curve_source="train.log", curve_verdict="rising"
    )
    result = plan.build(inputs, target_al=3.95)  # past the plateau: the row shows 10x
    more = next(o for o in result.options if o.kind == "more-data")
    assert "10x the most it was fitted on (496,000 samples seen" in more.note, more.note
    page = curves.fit_curve(LOG_X, LOG_AL, x_unit="samples_seen", split="", tau_max=4.0)
    want = page.predict(10 * max(LOG_X))  # the page's "tau at 10x", with its band
    assert more.al is not None
    assert (more.al.value, more.al.low, more.al.high) == pytest.approx(want, abs=1e-9), (more.al, want)
    assert "Acceptance vs data" in more.note.split("10x the most it was fitted on")[1], more.note
