"""Past the measured num_steps a chain's predicted acceptance never rises faster than its last measured gain.

Position i's chance does not depend on how many steps are drafted, so each further step adds no more than the step
before. A geometric fit ignored that: on 2.00, 2.60, 2.70 it put 4.08 at eight steps, where at most 3.20 is possible.
"""

from __future__ import annotations

import pytest

from comparelib.analysis import speedup
from comparelib.analysis.speedup import SpeedupModel, SweepPoint


def _model(measured: list[tuple[int, float]], rates: tuple[float, ...] | None = None) -> SpeedupModel:
    pts = tuple(SweepPoint(k, 100.0 + k, al) for k, al in measured)
    return SpeedupModel(
        t_verify_ms=10.0,
        t_step_ms=1.0,
        t_draft_ms=0.5,
        alpha=speedup._fit_alpha(pts),
        measured=pts,
        per_position=rates,
    )


CASES = [
    # measured (num_steps, AL), k, expected AL at k (None: the geometric model's own value, not bound). Walk AN: past
    # the sweep the prediction carries the shrinking gains (``accept_decayed``); the bound (the last gain kept, 3.20
    # at 8 below) was shown as the prediction
    ([(1, 2.0), (2, 2.6), (3, 2.7)], 8, 2.72),  # saturating: gains 0.6 then 0.1, each keeping 1/6 of the last
    ([(1, 2.0), (2, 2.6), (3, 2.7)], 4, 2.7167),
    ([(1, 1.8), (3, 2.6), (5, 2.9)], 7, 3.0159),  # gaps: 0.4 then 0.15 a step, two positions apart
    ([(1, 1.8), (3, 2.7), (5, 2.8)], 9, 2.8143),  # gaps, saturating
    ([(1, 1.8), (2, 2.4), (3, 2.8)], 6, 3.3630),  # still rising: gains 0.6, 0.4, below the geometric 3.66
    ([(3, 2.5)], 8, None),  # one num_steps measured: nothing to bound with
]


@pytest.mark.parametrize(("measured", "k", "expected"), CASES)
def test_prediction_past_the_sweep_keeps_the_last_gain(
    measured: list[tuple[int, float]], k: int, expected: float | None
) -> None:
    m = _model(measured)
    got = m.accept_at(k)
    if expected is None:
        assert got == pytest.approx(max(speedup.geometric_accept(m.alpha, k), measured[-1][1]))
        assert got <= m.accept_bound(k)
    else:
        assert got == pytest.approx(expected, abs=1e-4)
        assert got <= m.accept_bound(k)
    assert got >= measured[-1][1]  # never below what was measured at fewer steps


def test_per_position_rates_with_a_noisy_last_rate_are_bound_too() -> None:
    """A last conditional rate of 1.0 from noisy counts kept every further step at the last position's rate."""
    m = _model([(1, 1.7), (2, 2.2), (3, 2.35)], rates=(0.7, 0.5, 0.5))
    assert speedup.accept_from_positions((0.7, 0.5, 0.5), 8) == pytest.approx(1 + 0.7 + 0.5 * 7)
    assert m.accept_at(8) == pytest.approx(2.35 + 5 * 0.15)  # 3.10, not 5.20
