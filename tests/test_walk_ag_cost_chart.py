"""Walk AG (minor): the plan's "Cost against gain per option" chart, where every option is free (a tree and a
num_steps change, 0 GPU-hours), labelled its only GPU-hours tick "0.000000" (light and dark): the axis had no format,
so Vega took the precision of a zero-width domain. The axis now says GPU-hours as numbers people write."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from comparelib import charts

FREE = pd.DataFrame(  # the walk's plan: both options free
    {
        "rank": [1, 2],
        "option": ["Serve the measured tree", "num_steps"],
        "kind": ["tree", "num-steps"],
        "gpu_hours": [0.0, 0.0],
        "gpu_hours_low": [0.0, 0.0],
        "gpu_hours_high": [0.0, 0.0],
        "gain_tok_s": [6.3, 0.0],
    }
)
PAID = FREE.assign(gpu_hours=[0.0, 412.5], gpu_hours_low=[0.0, 200.0], gpu_hours_high=[0.0, 1500.0])


def _x_ticks(svg: str) -> list[str]:
    """The tick labels of the x axis (the ones under the plot, its role-axis-label group that comes first)."""
    axis = svg.split('class="mark-text role-axis-label"')[1]
    return re.findall(r">([^<]+)</text>", axis.split("</g>")[0])


def test_the_cost_axis_has_a_format() -> None:
    spec = json.loads(charts.chart_to_vegalite_json(charts.plan_cost_chart(FREE)))
    formats = [layer["encoding"]["x"].get("axis", {}).get("format") for layer in spec["layer"]]
    assert formats and all(f == charts.GPU_HOURS_FORMAT for f in formats), formats


@pytest.mark.parametrize(
    "frame",
    [
        FREE,
        PAID,  # hundreds of hours
        PAID.assign(gpu_hours=[0.0, 3.5], gpu_hours_low=[0.0, 1.2], gpu_hours_high=[0.0, 8.0]),  # a few hours
        PAID.assign(
            gpu_hours=[0.0, 3.5e4], gpu_hours_low=[0.0, 1.2e4], gpu_hours_high=[0.0, 8e4]
        ),  # tens of thousands
    ],
)
def test_the_cost_axis_ticks_read_as_hours(frame: pd.DataFrame) -> None:
    """Rendered (vl-convert): whole hours with separators, halves as 0.5, never 1e+3 nor six decimals."""
    ticks = _x_ticks(charts.chart_to_svg(charts.plan_cost_chart(frame)))
    assert ticks[0] == "0", ticks
    assert all(re.fullmatch(r"\d{1,3}(,\d{3})*(\.\d)?", t) for t in ticks), ticks
