"""A published trend clipped to the floor of 1.00 at your volume predicts nothing, and says so.

Walk Q: "the published trend predicts 1.00 (95% band 1.00..4.00) at 5K samples" beside a measured 2.72 read as
"no acceptance".
"""

from __future__ import annotations

import pytest

from comparelib.analysis import scaling, verdicts

KIMI = "AQ-MedAI/Kimi-K2-Instruct-eagle3"


@pytest.mark.parametrize(("volume", "floor"), [(5_000, True), (10, True), (1_400_000, False)])
def test_a_trend_at_its_floor_predicts_nothing(volume: int, floor: bool) -> None:
    said = verdicts.gap_verdict(volume, KIMI, points=scaling.published_points()).sentence
    # the words of the one rule for a trend's value at your volume (``scaling.unsaid_at``, walk T)
    assert ("predicts nothing it can stand behind" in said) == floor, said
    assert ("its value there is the floor of 1.00, the least acceptance possible, not a prediction" in said) == floor
    assert ("predicts 1.00 (" in said) is False, said
    if floor:  # the floor is said once, with why, not again as "clipped to the possible range"
        first = said.split("Looser")[0]
        assert "is below the smallest published volume (320K..1.4M))." in first, said
        assert "clipped to the possible range" not in first, said


def test_at_floor() -> None:
    assert verdicts.at_floor(1.0, True) and not verdicts.at_floor(1.0, False) and not verdicts.at_floor(4.0, True)
