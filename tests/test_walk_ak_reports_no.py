"""Walk AK: the volume gap's sentence said "nebius/MTP-DeepSeek-V3-0324 reports no GSM8K acceptance" although
its card publishes GSM8K 5.51 (at no stated setting). ``choose_setting`` is None for both cases; the sentence
must say which one it is. The data is the built-in registry's (the finding's), the call the one
Acceptance vs data makes (``pages/scaling.py``: ``gap_verdict(..., fallback_setting=<the page's setting>)``)."""

from __future__ import annotations

import pandas as pd
import pytest

from comparelib.analysis import verdicts

NEBIUS = "nebius/MTP-DeepSeek-V3-0324"
PAGE_SETTING = "steps=3,topk=1,draft=4,bs=8,sglang"


@pytest.fixture(scope="module")
def points() -> pd.DataFrame:
    return verdicts.scaling_points()


def _sentence(pts: pd.DataFrame) -> str:
    return verdicts.gap_verdict(
        600_000, NEBIUS, benchmark="gsm8k", points=pts, x="samples", fallback_setting=PAGE_SETTING
    ).sentence


def test_published_figure_without_setting_is_not_called_no_acceptance(points: pd.DataFrame) -> None:
    gsm = points[(points["draft"] == NEBIUS) & (points["benchmark"] == "gsm8k")]
    assert list(gsm["accept_length"]) == [5.51]  # the card's figure, as the registry holds it
    assert verdicts.choose_setting(points, NEBIUS, "gsm8k") is None
    text = _sentence(points)
    assert "reports no GSM8K acceptance" not in text, text
    assert f"{NEBIUS}'s published GSM8K 5.51 states no setting (num_steps, topk, draft tokens)" in text, text
    assert f"so the fit is at {PAGE_SETTING} (the setting picked on this page)" in text, text


def test_no_figure_on_the_benchmark_still_says_so(points: pd.DataFrame) -> None:
    without = points[~((points["draft"] == NEBIUS) & (points["benchmark"] == "gsm8k"))]
    text = _sentence(without)
    assert (
        f"{NEBIUS} reports no GSM8K acceptance, so the fit is at {PAGE_SETTING} (the setting picked on this page)."
        in text
    ), text
    assert "states no setting" not in text, text


def test_stated_setting_that_cannot_be_fitted_names_its_reason(points: pd.DataFrame) -> None:
    """A figure at a stated setting but without a training volume is neither "no acceptance" nor "no setting"."""
    pts = points.copy()
    row = (pts["draft"] == NEBIUS) & (pts["benchmark"] == "gsm8k")
    pts.loc[row, "setting_key"] = "steps=7,T=0"
    text = _sentence(pts)
    assert "reports no GSM8K acceptance" not in text, text
    assert "states no setting" not in text, text
    assert (
        f"{NEBIUS}'s published GSM8K 5.51 at steps=7,T=0 is not on the trend (no training volume reported)" in text
    ), text
