"""Walk AT 4: the plan's free tree row, losing 2.4 tok/s, showed "0.000" tok/s gained per GPU-hour (JSON 0.0) where
README says ``tok_s_per_gpu_hour`` is null for a free option, and the free num-steps row showed none."""

from __future__ import annotations

import pytest

from comparelib.analysis import plan


@pytest.mark.parametrize(
    ("gain", "gpu_hours", "ratio"),
    [
        (-2.4, 0.0, None),  # free and losing: no ratio
        (0.0, 0.0, None),  # free and gaining nothing
        (61.8, 0.0, None),  # free and gaining: unbounded, null in the JSON (inf in the ranking)
        (100.0, 50.0, 2.0),
        (-10.0, 50.0, -0.2),  # a costed loss keeps its ratio
    ],
)
def test_a_free_option_has_no_gain_per_gpu_hour(gain: float, gpu_hours: float, ratio: float | None) -> None:
    o = plan.Option(
        kind="tree", title="t", gain=plan.Band(gain, gain, gain), training=plan.Band(gpu_hours, gpu_hours, gpu_hours)
    )
    assert o.to_json()["tok_s_per_gpu_hour"] == ratio
    assert o.to_json()["free"] is (gpu_hours == 0)
