"""Walk AQ (minor): for a run on other prompts than the trend's benchmark, the plan's more-data row gave only the
bounded logistic's "a draft on the trend reaches the target 3.435 ... at about 13M samples", while Acceptance vs data
said about 3.9M by its log-linear fit; only Acceptance vs data's fold-out explained the two. The row gives the
log-linear figure on the same points beside it, named as that fit's, as the row does where no run stands apart."""

from __future__ import annotations

import pytest

from comparelib.analysis import plan, scaling
from comparelib.values import human
from tests.test_sweep import _entry, rec


def _more(prompts: str, target: float) -> plan.Option:
    runs = [rec(1, None, 380.0, prompt_set=prompts), rec(2, 3, 800.0, 3.5, prompt_set=prompts)]
    runs += [rec(3, 2, 700.0, 2.9, prompt_set=prompts)]
    inputs = plan.inputs_for(_entry(), runs=runs, own_samples=3_000.0, published=scaling.published_points())
    result = plan.build(inputs, target_al=target)
    return next(o for o in result.options if o.kind == "more-data")


def test_the_log_linear_figure_stands_beside_the_trends_for_a_run_on_other_prompts() -> None:
    more = _more("bundled", 3.2)
    assert "a draft on the trend reaches the target" in more.note, more.note
    assert "The log-linear fit on the same" in more.note, more.note
    loglin = next((e for e in more.evidence if e["what"].startswith("samples needed by the log-linear fit")), None)
    assert loglin is not None, [e["what"] for e in more.evidence]
    assert f"at about {human(float(loglin['value']))} samples" in more.note, (loglin, more.note)


@pytest.mark.parametrize(
    ("loglin", "logistic", "said", "not_said"),
    [
        (336_100.0, 336_400.0, "puts the target at about the same, 336K samples.", "They differ in form"),
        (3_900_000.0, 13_000_000.0, "so here the logistic needs more data", "about the same"),
        (2_000_000.0, 1_000_000.0, "so here the logistic needs less data", "about the same"),
    ],
)
def test_two_fits_that_read_the_same_are_said_to_agree(
    loglin: float, logistic: float, said: str, not_said: str
) -> None:
    """Walk AR (minor): "about 336K samples" from both fits, then "They differ in form ... so here the logistic needs
    more data"."""
    words = plan._two_fits_words(loglin, logistic, 13, 3)
    assert said in words and not_said not in words, words
