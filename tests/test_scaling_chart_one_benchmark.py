"""A data-scaling chart for one benchmark shows that benchmark's points (walk S, finding 8d).

The walk's chart titled 'gsm8k' coloured seven other benchmarks' published points at the same setting and listed
'bundled' and 'live' (its own runs' prompt sets, drawn violet) in a benchmark legend with no mark of that colour.
Now only the chosen benchmark's points at the chosen setting are coloured; the others are grey and the subtitle
says which and why; the legend names only what is drawn (your draft's diamonds).
"""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from comparelib import charts
from comparelib.analysis import scaling

KEY = "steps=3,topk=1,draft=4,bs=8,sglang"
BENCH = "gsm8k"


def _chart(own_benchmarks: list[str]):
    own = pd.DataFrame(
        [
            scaling.own_point(draft="walks-lab/d", benchmark=b, accept_length=2.5, setting_key=KEY, samples=5_000)
            for b in own_benchmarks
        ],
        columns=list(scaling.POINT_COLUMNS),
    )
    pts = scaling.scaling_points(scaling.published_points(), own=own if len(own) else None)
    return pts, charts.scaling_chart(pts, benchmark=BENCH, setting_key=KEY)


def _fills(svg: str) -> list[str]:
    return [f.lower() for f in re.findall(r'<path[^>]*?fill="(#[0-9a-fA-F]{6})"', svg)]


@pytest.mark.parametrize("own_benchmarks", [["bundled", "live"], [BENCH], []])
def test_only_the_chosen_benchmarks_points_are_coloured(own_benchmarks: list[str]) -> None:
    pts, chart = _chart(own_benchmarks)
    svg = charts.chart_to_svg(chart)
    plot, _, legend = svg.partition("role-legend")
    published = pts[(pts["kind"] == "published") & pts["usable"].astype(bool) & pts["samples"].gt(0)]
    at_key = published[published["setting_key"] == KEY]
    assert set(at_key["benchmark"]) - {BENCH}, "the case needs other benchmarks at the chosen setting"
    chosen = at_key[at_key["benchmark"] == BENCH]
    coloured = [f for f in _fills(plot) if f not in (charts.GREY.lower(), charts.OWN_COLOUR.lower(), "#ffffff")]
    assert len(coloured) == len(chosen), (len(coloured), len(chosen))
    # no legend entry without a visible mark: no benchmark names at all, your draft's entry only when drawn
    for name in {*published["benchmark"], "bundled", "live"}:
        assert f">{name}<" not in legend, name
    assert (charts.OWN_LABEL in legend) is bool(own_benchmarks)


def test_the_subtitle_says_the_other_benchmarks_are_grey_and_why() -> None:
    pts, chart = _chart(["bundled"])
    subtitle = " ".join(charts._spec(chart)["title"]["subtitle"])
    assert f"coloured: {BENCH} at {KEY}" in subtitle, subtitle
    assert "grey: other benchmarks or other settings, not comparable" in subtitle, subtitle
    assert "other benchmarks at this setting (grey): " in subtitle and "mtbench" in subtitle, subtitle
    assert "hollow: on other prompts or at another setting" in subtitle, subtitle
    data = [r for ds in charts._spec(chart)["datasets"].values() for r in ds if "comparable" in r]
    own = [r for r in data if r["kind"] == "own"]
    assert own and all(r["comparable"] == "other benchmark (not comparable)" for r in own)
    assert json.dumps(own)  # rows are plain JSON
