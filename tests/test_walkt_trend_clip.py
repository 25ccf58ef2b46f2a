"""Walk T: a clipped extrapolation of the published trend is not quoted as its value.

Acceptance vs data led with "Your draft already measured 2.88 (run #15), at or above the 1.00 the published trend
gives at your 20K samples", and ``scaling`` printed "at 20K samples: 1.00 (95% band 1.00..4.00)": the GSM8K line at
(3,1,4) has R² 0.34 over 7 points and falls below 1 at 20K, so 1.00 is where it was clipped, and the band there is
every possible value. One rule (``scaling.trend_unsaid``) for every place that quotes the published trend at a
volume: a value at a bound of the possible range, or a band over all of it, is said to be unsaid, and why.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from comparelib.analysis import scaling, verdicts
from tests.fixtures import cli_in_process
from tests.test_sweep import rec

KEY = "steps=3,topk=1,draft=4,bs=8,sglang"
REF = "AQ-MedAI/Ling-Flash-2.0-eagle3"
LING = "inclusionAI/Ling-flash-2.0"
FLOOR = "its value there is the floor of 1.00"
BAND = "its 95% band there, 1.00..4.00, spans every possible value"
FIT = "R² 0.34 over 7 points"


def _fit() -> scaling.Fit:
    pts = scaling.scaling_points()
    return scaling.fit_published(scaling.select(pts, benchmark="gsm8k", setting_key=KEY, x="samples"))


def _run(id_: int, steps: int | None, tok_s: float, al: float | None = None) -> Any:
    return replace(rec(id_, steps, tok_s, al, concurrency=8, group="ling-live", prompt_set="gsm8k"), model=LING)


def _own(al: float) -> Any:
    runs = [_run(14, None, 985.0), _run(15, 3, 1057.7, al)]
    return scaling.own_points_from_runs(runs, draft="walkt-lab/ling-flash-eagle3", samples=20_000, tokens=None)


def test_walk_ts_fit_is_the_one_the_walker_saw() -> None:
    f = _fit()
    assert f.n == 7 and f.r2 == pytest.approx(0.342, abs=0.001)
    mean, lo, hi, clipped = scaling.predict_bounded(f, 20_000)
    assert (round(mean, 2), round(lo, 2), round(hi, 2), clipped) == (1.0, 1.0, 4.0, True)


RULE = [  # value, low, high, bounds, what is said ("" : the value is the trend's to quote)
    (1.0, 1.0, 4.0, (1.0, 4.0), [FLOOR, BAND]),
    (1.004, 1.0, 2.5, (1.0, 4.0), [FLOOR]),  # printed 1.00: the floor, not a prediction
    (4.0, 3.6, 4.0, (1.0, 4.0), ["its value there is the ceiling of 4.00"]),
    (2.5, 1.0, 4.0, (1.0, 4.0), [BAND]),  # a value inside, a band over every possible value
    (1.56, 1.02, 2.63, (1.0, 4.0), []),  # the plan's pooled logistic at walk T's 20K samples: a prediction
    (1.11, 1.0, 3.49, (1.0, 4.0), []),  # clipped low end, a value inside: quoted, its band says the rest
]


@pytest.mark.parametrize(("value", "low", "high", "bounds", "said"), RULE)
def test_one_rule_says_when_the_trend_cannot_say(
    value: float, low: float, high: float, bounds: tuple[float, float], said: list[str]
) -> None:
    why = scaling.trend_unsaid(value, low, high, bounds)
    assert all(s in why for s in said), why
    assert bool(why) == bool(said), why


def test_acceptance_vs_datas_lead_does_not_quote_the_clip() -> None:
    lines = verdicts.data_lead(_fit(), 3.435, _own(2.88), own_volume=20_000, reference=REF, reference_volume=None)
    text = " ".join(lines)
    assert "the 1.00 the published trend gives" not in text, lines
    lead = lines[0]
    assert lead.startswith("Your draft measured 2.88 (run #15); the published trend cannot say"), lead
    assert all(s in lead for s in (FLOOR, BAND, FIT, "20K samples")), lead
    assert lines[-1].startswith("For a draft on the published trend (not your draft's evidence above): To reach"), (
        lines
    )


def test_a_prediction_inside_the_range_is_still_quoted() -> None:
    """At 1M samples the line is inside 1..4 with a band narrower than the range: the trend's value is said."""
    lines = verdicts.data_lead(_fit(), 3.435, _own(2.88), own_volume=1_000_000, reference=REF)
    assert lines[0].startswith("Your draft already measured 2.88 (run #15), at or above the 2.57 the published"), lines


def test_every_other_quote_of_the_trend_at_your_volume_follows_the_rule() -> None:
    f = _fit()
    _, against = verdicts.fit_vs_measured(f, 20_000, 2.88, measured_setting=KEY, measured_benchmark="gsm8k")
    assert "predicts **1.00**" not in against and FLOOR in against, against
    gap = verdicts.gap_verdict(20_000, "AQ-MedAI/Kimi-K2-Instruct-eagle3", benchmark="gsm8k", setting_key=KEY)
    assert "predicts 1.00" not in gap.sentence and FLOOR in gap.sentence, gap.sentence
    at_own = verdicts.fit_summary(f, own_volume=20_000)["predicted_at_own"]
    assert FLOOR in at_own["cannot_say"] and BAND in at_own["cannot_say"], at_own
    assert verdicts.fit_summary(f, own_volume=1_000_000)["predicted_at_own"]["cannot_say"] is None


def test_scaling_cli_does_not_print_the_clip_as_the_trends_value(capsys: pytest.CaptureFixture[str]) -> None:
    done = cli_in_process(capsys, "scaling", "--benchmark", "gsm8k", "--setting", "3,1,4", "--own-samples", "20000")
    assert done.returncode == 0, done.stderr
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("at 20K samples"))
    assert ": 1.00 (95% band" not in line and "the trend cannot say" in line and FLOOR in line, line


def test_the_plans_trend_at_your_volume_follows_the_rule() -> None:
    """Overview's plan and the CLI's: the pooled logistic at 7 steps sits on its floor at 1,000 samples (1.00,
    band 1.00..4.50); the more-data row said "where it gives 1.00 (1.00..4.50) at your 1,000 samples"."""
    from comparelib.analysis import plan
    from comparelib.models import comparison

    def run(id_: int, steps: int | None, tok_s: float, al: float | None = None) -> Any:
        return replace(rec(id_, steps, tok_s, al, concurrency=1, group="g"), model=LING)  # the bundled prompts

    runs = [run(1, None, 46.8), run(2, 2, 70.0, 2.3), run(3, 3, 79.1, 2.6), run(4, 4, 76.6, 2.8), run(5, 7, 60.0, 3.3)]
    entry = comparison.load_entry("example:own-kimi-k2.5-draft", with_header=False, with_card=False)
    inputs = plan.inputs_for(entry, published=scaling.published_points(), own_samples=1000, own_samples_source="typed")
    inputs = replace(inputs, runs=tuple(runs), target_label=LING, family=scaling.family_of(LING), draft_label="mine")
    result = plan.build(inputs, steps=7)
    note = next(o for o in result.options if o.kind == "more-data").note
    assert "where it gives 1.00" not in note, note
    assert (
        "which cannot say what acceptance a draft reaches at your 1,000 samples: its value there is the floor of "
        "1.00" in note
    ), note
    assert "no gain or cost is claimed" in note, note


def test_acceptance_vs_datas_fit_expander_follows_the_rule() -> None:
    """The default page (the example draft, 37K samples): the fit's value there is its floor, said as unsaid."""
    from tests.fixtures import page_app

    at = page_app("../pages/scaling.py", timeout=60).run()
    assert not at.exception, at.exception
    text = "\n".join(m.value for m in at.markdown)
    assert "At your 37K samples the fit cannot say what a draft reaches: its value there is the floor of 1.00" in text
    assert "predicts nothing it can stand behind: its line falls to the floor" not in text
