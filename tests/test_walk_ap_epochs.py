"""Walk AP 3: the plan divided samples seen by passes rounded to one decimal: 1,488,000 seen over 150,000 unique is
9.92 passes, and 14,880,000 samples seen read "1,503,030 unique samples at 9.9 epochs" (and 50.4 TB of storage)
where it is 1,500,000. The figure is said to one decimal; the division uses the exact passes."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from comparelib.analysis import plan


def test_the_epochs_divide_unrounded() -> None:
    inputs = SimpleNamespace(
        curve_x=[96_000.0, 1_488_000.0], curve_set_aside=False, own_samples=150_000.0, curve_peak=None
    )
    epochs, text = plan._epochs_for(inputs, None)  # type: ignore[arg-type]
    assert 14_880_000 / epochs == pytest.approx(1_500_000), epochs
    assert "about 9.9 epochs" in text, text


def test_the_row_says_the_epochs_to_one_decimal() -> None:
    from comparelib.analysis import traininglogs

    assert traininglogs.passes_text(1_487_600 / 150_000) == "9.9"  # 9.917...: not "9.91733 epochs"
