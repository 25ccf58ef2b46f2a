"""Altair charts for the scaling and speedup pages, and their PNG / SVG / Vega-Lite exports.

The charts live in the library (not the pages) so the CLI, tests and pages draw the same thing,
and so an exported PNG is the chart on the screen. Predictions are always dashed; measurements
never are.
"""

from __future__ import annotations

import json
import math
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt
import pandas as pd

from comparelib.errors import InputError
from comparelib.values import plain

# Altair validates every chart part against the Vega-Lite schema as it is built, and again when the
# whole chart is serialised: building the Acceptance vs data page's charts took ~0.8 s of jsonschema
# per run. The charts here are fixed code (test_charts validates each one in full), so the per-part
# check is off; the final ``to_dict`` still validates the whole spec.
alt.utils.schemapi.disable_debug_mode()

PUBLISHED_SHAPE = "circle"
OWN_SHAPE = "diamond"
GREY = "#b8b8b8"  # marks only (points at other settings), never text
# The colour builders write for secondary text (subtitles, rule labels) and neutral marks: about 4.3:1 against both
# Streamlit's light (#ffffff) and dark (#0e1117) backgrounds, under WCAG AA's 4.5:1 for 12 px text, and no one grey
# reaches 4.5:1 on both. The app draws it per theme (``for_theme``: NEUTRAL_BY_THEME). Primary text (titles, axes,
# legends) carries no colour at all, so the app's theme sets it.
NEUTRAL = "#7a7a7a"
THEME_BACKGROUNDS = {"light": "#ffffff", "dark": "#0e1117"}
NEUTRAL_BY_THEME = {"light": "#6b6b6b", "dark": "#9e9e9e"}  # >= 4.5:1 against its theme's background


def for_theme(spec: Any, theme: str | None) -> Any:
    """``spec`` (a Vega-Lite dict from the app's chart cache, or a tuple of them) with NEUTRAL recoloured for the
    browser's theme (``theme``: "light", "dark", or None for light). The inline datasets are left alone."""
    colour = NEUTRAL_BY_THEME.get(theme or "light", NEUTRAL_BY_THEME["light"])

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: (v if k == "datasets" else walk(v)) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, tuple):
            return tuple(walk(v) for v in value)
        return colour if isinstance(value, str) and value.lower() == NEUTRAL else value

    return walk(spec)


# Marks that must be seen on both themes (>= 3:1 against each background): train light blue was
# fine, eval navy (#1f4e79) vanished on the dark one.
SPLIT_COLOURS = ("#6baed6", "#e6851e")  # train, eval
LIVE_COLOUR = "#e45756"
# The user's own measured points: a violet used by no other mark here (benchmark colours come from the theme's
# palette, the volume rule is red), >= 3:1 against both backgrounds, drawn large so a point stands out.
OWN_COLOUR = "#b040c8"
OWN_SIZE = 220
OWN_LABEL = "measured (any setting)"
LIVE_SERIES = "live acceptance length"
MIN_ACCEPT_SPAN = 0.5  # an acceptance axis spans at least this much: 2.50 to 2.51 is noise, not a trend


def padded_domain(values: Sequence[float], min_span: float = MIN_ACCEPT_SPAN, floor: float = 1.0) -> list[float]:
    """An axis domain around ``values`` at least ``min_span`` wide (never below ``floor``)."""
    vals = [float(v) for v in values if v is not None and not pd.isna(v)]
    if not vals:
        return [floor, floor + min_span]
    lo, hi = min(vals), max(vals)
    if hi - lo >= min_span:
        return [lo, hi]
    mid = (lo + hi) / 2
    lo = max(floor, mid - min_span / 2)
    return [round(lo, 2), round(lo + max(min_span, hi - lo), 2)]


def accept_axis(*columns: Any) -> dict[str, Any]:
    """``scale`` and ``axis`` of an acceptance-length y axis over every value it plots (``columns``: a layer's
    values each, points, live runs, a fit and its band): round ticks (``linear_ticks``) from one at or below the
    lowest to one at or above the highest, and the domain they span. Left to the renderer, the lowest tick (2.40)
    was drawn above a plotted point (2.21)."""
    vals = [float(v) for col in columns for v in (col if col is not None else []) if v is not None and not pd.isna(v)]
    vals = [v for v in vals if math.isfinite(v)]
    if not vals:
        return {"scale": alt.Scale(zero=False)}
    ticks = linear_ticks(min(vals), max(vals))
    return {
        "scale": alt.Scale(domain=[ticks[0], ticks[-1]], nice=False, zero=False),
        "axis": alt.Axis(values=ticks, format=tick_format(ticks)),
    }


def _luminance(hex_colour: str) -> float:
    h = hex_colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    channels = [int(h[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two #rrggbb colours (1 to 21)."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def text_colours(spec: Any) -> list[str]:
    """Every colour a Vega-Lite spec sets on text: text marks and title/subtitle/label/axis colours."""
    found: list[str] = []
    keys = {"subtitleColor", "titleColor", "labelColor", "color"}

    def walk(node: Any, in_text: bool = False) -> None:
        if isinstance(node, dict):
            mark = node.get("mark")
            is_text = in_text or mark == "text" or (isinstance(mark, dict) and mark.get("type") == "text")
            for k, v in node.items():
                if isinstance(v, str) and v.startswith("#") and (k in keys - {"color"} or (k == "color" and is_text)):
                    found.append(v)
                elif k == "mark" and isinstance(v, dict) and is_text and isinstance(v.get("color"), str):
                    found.append(v["color"])
                else:
                    walk(v, is_text if k != "layer" else False)
        elif isinstance(node, list):
            for v in node:
                walk(v, in_text)

    walk(spec)
    return found


X_TITLES = {"samples": "training samples (log scale)", "tokens": "training tokens (log scale)"}
CHOSEN_COLOUR = "#4c78a8"  # the chosen benchmark's points at the chosen setting, the colour of their fit


def _layer(*charts: alt.Chart) -> alt.LayerChart:
    """``alt.layer`` for charts without facet encodings (all of ours): the same spec, typed as a LayerChart."""
    return alt.LayerChart(layer=list(charts))


def _volume_axis(x: str) -> alt.X:
    return alt.X(f"{x}:Q", title=X_TITLES.get(x, x), scale=alt.Scale(type="log"), axis=alt.Axis(format="~s"))


def scaling_chart(
    points: pd.DataFrame,
    *,
    benchmark: str,
    setting_key: str | None,
    x: str = "samples",
    band: pd.DataFrame | None = None,
    own_volume: float | None = None,
    title: str | None = None,
) -> alt.LayerChart:
    """Acceptance length against training volume.

    The chosen benchmark's published points at the chosen setting are coloured; every other published point
    (another benchmark, or another setting) is grey and marked "not comparable" in the tooltip, and the subtitle
    says which benchmarks those are. The user's own points are large violet diamonds at any setting (the tooltip
    still says whether they are comparable; hollow when not): grey and small they vanished under the volume rule.
    The only legend is theirs, shown when they are drawn: a benchmark legend listed benchmarks (your runs' prompt
    sets among them) whose colour no point had (walk S). The fit line and its band (from ``scaling.band``) are
    drawn for the chosen benchmark and setting only.
    """
    if x not in X_TITLES:
        raise InputError(f"x must be samples or tokens, got {x!r}")
    df = points.copy()
    if len(df):
        df = df[df["usable"].astype(bool) & pd.to_numeric(df[x], errors="coerce").gt(0)].copy()
    df[x] = pd.to_numeric(df[x], errors="coerce") if len(df) else pd.Series(dtype=float)
    same_setting = df["setting_key"].eq(setting_key) if setting_key is not None else pd.Series(True, index=df.index)
    same_bench = df["benchmark"].eq(benchmark) if len(df) else pd.Series(True, index=df.index)
    df["comparable"] = [
        "same setting" if b and s else "other benchmark (not comparable)" if s else "other setting (not comparable)"
        for b, s in zip(same_bench, same_setting, strict=True)
    ]
    df["chosen"] = same_bench & same_setting
    others = sorted({str(b) for b in df.loc[same_setting & ~same_bench & df["kind"].ne("own"), "benchmark"]})
    df["kind"] = df["kind"].fillna("published")
    tooltip = [
        alt.Tooltip("draft:N", title="draft"),
        alt.Tooltip("benchmark:N"),
        alt.Tooltip("setting_key:N", title="setting"),
        alt.Tooltip("accept_length:Q", title="acceptance length", format=".2f"),
        alt.Tooltip(f"{x}:Q", format=","),
        alt.Tooltip("kind:N", title="published / own"),
        alt.Tooltip("comparable:N"),
        alt.Tooltip("source:N"),
    ]
    cols = ["draft", "benchmark", "setting_key", "accept_length", x, "kind", "comparable", "source", "chosen"]
    df = df[cols].astype({"source": "string", "draft": "string", "setting_key": "string"})
    # own rows last: within a layer, later rows are drawn on top
    df = df.sort_values("kind", key=lambda k: k.eq("own"), kind="stable")
    has_own = bool(df["kind"].eq("own").any())
    # the one legend names only the user's points (violet diamonds), and only when they are drawn; the chosen
    # benchmark's points are the title's (a benchmark legend listed benchmarks no point was coloured as)
    own_legend = (
        alt.Legend(
            values=["own"],
            labelExpr=f"{OWN_LABEL!r}",
            symbolFillColor=OWN_COLOUR,
            symbolStrokeColor=OWN_COLOUR,
            symbolSize=OWN_SIZE,
        )
        if has_own
        else None
    )
    shape = alt.Shape(
        "kind:N",
        title="your draft",
        scale=alt.Scale(domain=["published", "own"], range=[PUBLISHED_SHAPE, OWN_SHAPE]),
        legend=own_legend,
    )
    band_cols = [band[c] for c in ("accept_length", "lo", "hi")] if band is not None and len(band) else []
    y_axis = accept_axis(df["accept_length"], *band_cols)  # every point drawn and the fit's band
    y = alt.Y("accept_length:Q", title="acceptance length (tokens per cycle)", **y_axis)
    base = alt.Chart(df)
    own = alt.datum.kind == "own"
    grey = (  # published points of another benchmark or setting
        base.transform_filter((alt.datum.comparable != "same setting") & ~own)
        .mark_point(filled=True, opacity=0.25, color=GREY, size=40, shape=PUBLISHED_SHAPE)  # published only
        .encode(x=_volume_axis(x), y=y, tooltip=tooltip)
    )
    coloured = (
        base.transform_filter((alt.datum.comparable == "same setting") | own)
        .mark_point(filled=True)
        .encode(
            x=_volume_axis(x),
            y=y,
            # by kind, as the shape: the one legend (your draft's) is drawn in your points' colour
            color=alt.Color(
                "kind:N",
                title="your draft",
                scale=alt.Scale(domain=["published", "own"], range=[CHOSEN_COLOUR, OWN_COLOUR]),
                legend=own_legend,
            ),
            shape=shape,
            size=alt.condition(own, alt.value(OWN_SIZE), alt.value(70)),
            opacity=alt.condition(own, alt.value(1.0), alt.value(0.9)),
            # your runs at another setting are hollow: a tree's 4.36 sat filled on a chain (3,1,4) chart
            fillOpacity=alt.condition(own & (alt.datum.comparable != "same setting"), alt.value(0), alt.value(1)),
            stroke=alt.condition(own, alt.value(OWN_COLOUR), alt.value(None)),
            strokeWidth=alt.condition(own, alt.value(2), alt.value(0)),
            tooltip=tooltip,
        )
    )
    layers: list[alt.Chart] = [grey, coloured]
    if band is not None and len(band):
        bdf = band.rename(columns={x: "volume"})[["volume", "accept_length", "lo", "hi"]].copy()
        bx = alt.X("volume:Q", title=X_TITLES[x], scale=alt.Scale(type="log"), axis=alt.Axis(format="~s"))
        by = alt.Y("lo:Q", title="acceptance length (tokens per cycle)", **y_axis)
        layers.insert(0, alt.Chart(bdf).mark_area(opacity=0.18, color="#4c78a8").encode(x=bx, y=by, y2="hi:Q"))
        layers.insert(
            1,
            alt.Chart(bdf)
            .mark_line(color="#4c78a8")
            .encode(
                x=bx,
                y=y,
                tooltip=[
                    alt.Tooltip("volume:Q", format=","),
                    alt.Tooltip("accept_length:Q", title="fit", format=".2f"),
                    alt.Tooltip("lo:Q", format=".2f"),
                    alt.Tooltip("hi:Q", format=".2f"),
                ],
            ),
        )
    if own_volume is not None and own_volume > 0:
        rule_df = pd.DataFrame({"volume": [float(own_volume)], "label": [f"own draft: {own_volume:,.0f} {x}"]})
        # under the points: the user's own diamonds sit at this volume and must not be crossed out by it
        layers.insert(
            next(i for i, layer in enumerate(layers) if layer is grey),  # by identity: Charts compare their data
            alt.Chart(rule_df)
            .mark_rule(strokeDash=[2, 2], color="#e45756")
            .encode(x=alt.X("volume:Q", scale=alt.Scale(type="log")), tooltip=["label:N"]),
        )
    # one line per statement: a single long subtitle is cut off ("…") in a narrow column
    # one line for both: each added line pushed the title above the chart's fixed 380 px (journey test, light)
    subtitle = [
        f"coloured: {benchmark} at {setting_key or 'any setting'}; grey: other benchmarks or other settings, "
        "not comparable"
    ]
    if others:  # drawn, greyed: acceptance differs by benchmark, so another benchmark's points are no evidence here
        subtitle.append(f"other benchmarks at this setting (grey): {', '.join(others)}")
    if has_own:
        subtitle.append(
            "violet diamonds: your draft's measured runs; hollow: on other prompts or at another setting, "
            "not comparable"
        )
    if band is not None and len(band):
        subtitle.append("line and band: fit a + b·log10(volume), 95% band of the mean")
    return _layer(*layers).properties(
        title=alt.TitleParams(
            title or f"Acceptance length vs training data: {benchmark}", subtitle=subtitle, subtitleColor=NEUTRAL
        ),
        width="container",
        height=380,
    )


SWEEP_PLOT_PX = 220  # the plot area's own height
# Fit the width to the page column, keep ``height`` for the plot: titles, axes and legends add to it.
FIT_WIDTH = alt.AutoSizeParams(type="fit-x", contains="padding")


def sweep_chart(
    measured: pd.DataFrame, predicted: pd.DataFrame | None = None, baseline_tok_s: float | None = None
) -> alt.VConcatChart:
    """Throughput and acceptance length against num_steps, stacked (for exports and narrow columns).

    ``measured`` has num_steps, tok_s, accept_length, baseline (bool), kind; ``predicted`` has
    num_steps, scenario, tok_s, accept_length, kind == "predicted".
    """
    left, right = sweep_chart_parts(measured, predicted, baseline_tok_s, width=300)
    # stacked, not side by side: the page gives this chart a narrow column, and side by side the second
    # chart was cut off
    return alt.vconcat(left, right).resolve_scale(color="shared")


def sweep_chart_parts(
    measured: pd.DataFrame,
    predicted: pd.DataFrame | None = None,
    baseline_tok_s: float | None = None,
    *,
    width: int | str = "container",
) -> tuple[alt.LayerChart, alt.LayerChart]:
    """The two charts of ``sweep_chart`` on their own; ``width="container"`` fits any page column.

    In a page column (``"container"``) the width is fitted and ``height`` is the plot's own: Streamlit's
    default fits the whole chart, title and axes included, into the height, which left the plot ~85 of
    240 px. The prediction legend sits below the plot, where it takes no width from it."""
    meas = measured[~measured["baseline"].astype(bool)].copy() if len(measured) else measured.copy()
    meas = meas[["num_steps", "tok_s", "accept_length", "kind"]].copy()
    meas["series"] = "measured"
    x = alt.X("num_steps:Q", title="num_steps", scale=alt.Scale(domain=[0, 10]), axis=alt.Axis(tickMinStep=1))
    tput: list[alt.Chart] = []
    acc: list[alt.Chart] = []
    has_pred = predicted is not None and len(predicted) > 0
    # round ticks at or below the lowest and at or above the highest value drawn: left to the renderer, one run's
    # 2.78 sat above a 0.0-2.5 axis (walk BI)
    al_axis = accept_axis(
        meas["accept_length"], predicted["accept_length"] if predicted is not None and has_pred else None
    )
    if predicted is not None and has_pred:
        pred = predicted[["num_steps", "scenario", "tok_s", "accept_length", "kind"]].copy()
        # no legend of its own: the subtitle says dashed = predicted (its default black symbol vanished in dark mode)
        dash = alt.StrokeDash("kind:N", title="", scale=alt.Scale(domain=["predicted"], range=[[6, 4]]), legend=None)
        color = alt.Color(
            "scenario:N", title="prediction", legend=alt.Legend(orient="bottom", direction="vertical", labelLimit=0)
        )
        tip = [
            "scenario:N",
            "num_steps:Q",
            alt.Tooltip("tok_s:Q", format=".1f"),
            alt.Tooltip("accept_length:Q", format=".2f"),
            "kind:N",
        ]
        tput.append(
            alt.Chart(pred)
            .mark_line(point=True)
            .encode(x=x, y=alt.Y("tok_s:Q", title="output tok/s"), color=color, strokeDash=dash, tooltip=tip)
        )
        acc.append(
            alt.Chart(pred)
            .mark_line(point=True)
            .encode(
                x=x,
                y=alt.Y("accept_length:Q", title="acceptance length", **al_axis),
                color=color,
                strokeDash=dash,
                tooltip=tip,
            )
        )
    mtip = [
        "num_steps:Q",
        alt.Tooltip("tok_s:Q", format=".1f"),
        alt.Tooltip("accept_length:Q", format=".2f"),
        "kind:N",
    ]
    tput.append(
        alt.Chart(meas)
        .mark_point(filled=True, size=120, color=NEUTRAL, shape="diamond")
        .encode(x=x, y=alt.Y("tok_s:Q", title="output tok/s"), tooltip=mtip)
    )
    acc.append(
        alt.Chart(meas.dropna(subset=["accept_length"]))
        .mark_point(filled=True, size=120, color=NEUTRAL, shape="diamond")
        .encode(x=x, y=alt.Y("accept_length:Q", title="acceptance length", **al_axis), tooltip=mtip)
    )
    if baseline_tok_s:
        bdf = pd.DataFrame(
            {"tok_s": [float(baseline_tok_s)], "label": [f"baseline (no speculation): {baseline_tok_s:g} tok/s"]}
        )
        tput.append(alt.Chart(bdf).mark_rule(color="#e45756").encode(y="tok_s:Q", tooltip=["label:N"]))
    # only what is drawn (no prediction, no baseline: no line says so)
    sweep_subtitle = ["grey diamonds: measured" + ("; dashed: predicted" if has_pred else "")]
    if baseline_tok_s:
        sweep_subtitle.append("red line: baseline")
    left = _layer(*tput).properties(
        title=alt.TitleParams(
            "Output tok/s vs num_steps",
            subtitle=sweep_subtitle,
            subtitleColor=NEUTRAL,
        ),
        width=width,
        height=SWEEP_PLOT_PX,
    )
    right = _layer(*acc).properties(title="Acceptance length vs num_steps", width=width, height=SWEEP_PLOT_PX)
    if width == "container":  # a top-level chart in a page column (sweep_chart stacks them, fixed width)
        left, right = (part.properties(autosize=FIT_WIDTH) for part in (left, right))
    return left, right


def _baseline_name(rec: Any, model: str | None = None) -> str:
    """A baseline run as its label names it: id, ``model`` (a group of several target models), engine and the
    user's labels (``bs16`` tells the settings)."""
    labels = [x for x in getattr(rec, "labels", ()) if x not in ("example", "baseline")]
    engine = str(getattr(rec, "engine", None) or "")
    said = any("base" in x.lower() for x in labels)  # "baseline-bs16" says it: a shorter label fits beside the data
    words = [f"#{rec.id}", *([model] if model else []), *([engine] if engine and engine != "unknown" else []), *labels]
    return " ".join(words if said else [*words, "baseline"])


# Where a label lands on a sweep chart, in the pixels of a page column (1400 px window: the plot is ~290 x 220
# of the 320 px chart). Estimates, used only to keep labels off each other and off the data.
PLOT_PX = (290.0, 220.0)
# A line of 11 px text is 13 px from ascent to descent: lines 13 px apart touched ("#1 vllm baseline-b1" over
# "#12 sglang sglang-baseline", two baselines close in tok/s, read as one blur). Lines, and stacks, keep a gap.
TEXT_PX = 13.0
LINE_GAP_PX = 3.0
LINE_PX = TEXT_PX + LINE_GAP_PX  # one line of a stack of labels
LABEL_PAD_PX = 4.0  # text bottom above its rule
SAME_LINE_PX = 2.0  # rules closer than this are drawn as one dashed line: their labels stack on it
CHAR_PX = 6.3  # 11 px sans-serif: capitals ("NCCL_PROTO=LL") are the widest
LABEL_CHARS = 40  # a label line at most (~220 px); longer ones wrap
POINT_PX = 6.0  # a size-90 point's radius, and a little
STEPS_DOMAIN = (0.0, 10.5)  # the sweep charts' num_steps axis
# The sweep charts' legend sits under the plot, one entry a line, each in full: on the right its 230 px labels
# left a half-page column at 1400 px a plot ~110 px wide, with entries still cut.
LEGEND_LABEL_PX = 480
SWEEP_LEGEND: dict[str, Any] = {
    "orient": "bottom",
    "direction": "vertical",
    "columns": 1,
    "labelLimit": LEGEND_LABEL_PX,
}


# The plot keeps its own height (``PLOT_PX``) and the chart grows by its legend and title: Streamlit's theme fits
# the whole chart into ``height`` ("fit"), so under the Qwen3-8B walk's 4 entries the tok/s plot was 16 px tall
# with one y label and the titles were pushed out at the top. Width still fits the page column.
SWEEP_SIZE: dict[str, Any] = {"height": int(PLOT_PX[1]), "autosize": FIT_WIDTH}


def _nice_step(raw: float) -> float:
    """The smallest round step (1, 2 or 5 x 10^n) at or above ``raw`` (> 0)."""
    base = 10.0 ** math.floor(math.log10(raw))
    return next(float(f"{m * base:.6g}") for m in (1, 2, 5, 10) if m * base >= raw * (1 - 1e-9))


LINEAR_TICKS = 5  # about this many intervals on a linear tok/s axis
SINGLE_PAD = 0.05  # one tok/s value alone: the axis spans this fraction of it each side (at least 0.5)


def linear_ticks(lo: float, hi: float) -> list[float]:
    """Round tick values (a 1, 2 or 5 x 10^n step, about ``LINEAR_TICKS`` intervals) from the last at or below
    ``lo`` to the first at or above ``hi``: the linear tok/s axis's ticks and, first to last, its domain. One value
    (``lo == hi``: walk X's group held only a baseline, and the browser drew one tick labelled "43.773125") is
    given room around it, so the axis still has round ticks on both sides of it; a non-negative one stays so."""
    if not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi):
        raise ValueError(f"linear ticks need finite lo <= hi, got {lo!r}, {hi!r}")
    if hi - lo <= 1e-9 * max(1.0, abs(hi)):
        pad = max(abs(lo) * SINGLE_PAD, 0.5)
        lo, hi = (max(0.0, lo - pad) if lo >= 0 else lo - pad), hi + pad
    step = _nice_step((hi - lo) / LINEAR_TICKS)
    first, last = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
    return [float(f"{k * step:.10g}") for k in range(first, last + 1)]


def tick_format(ticks: Sequence[float], log: bool = False) -> str:
    """A d3 format for ``ticks`` that shows each as the round number it is: SI prefixes on a log axis from 1 up
    ("1.5k"; under 1 plain, "0.5", not "500m"), else thousands separated with the step's decimals ("41", "43.6")."""
    if log:
        return "~s" if min(ticks) >= 1 else "~g"
    step = min((b - a for a, b in zip(ticks, ticks[1:], strict=False)), default=1.0)
    decimals = max(0, -math.floor(math.log10(step) + 1e-9)) if step > 0 else 0
    return f",.{decimals}f"


def baseline_labels(
    base: pd.DataFrame, axis: tuple[float, float], data: Sequence[tuple[float, float]] = ()
) -> pd.DataFrame:
    """The baseline labels (``base``: "output tok/s", "baseline" name), each on its own rule, placed so none
    overprints another, another rule or the data.

    A label hangs from its own dashed rule, just above it or just under it, at the right end of the plot (num_steps
    sweeps seldom reach it) or at the left: the first of those four spots where no other label, rule, plot edge or
    ``data`` ((num_steps, tok/s) points along the drawn lines) is. Walk W's "#14 ... bs8-base48" was stacked with #9's
    label under #9's rule, read as #9's. Only rules drawn as one line (closer than ``SAME_LINE_PX`` on the tok/s
    ``axis``, (low, high)) share a spot: their labels stack, one line per rule in the rules' order (long ones
    wrapped), read top down. Rows: "output tok/s" (the rule a line hangs from), "baseline" (its text), "align"
    ("right"/"left"), "anchor" ("bottom": above the rule, "top": under it) and "dy" (pixels from the rule)."""
    cols = ["output tok/s", "baseline", "align", "anchor", "dy"]
    if base.empty:
        return pd.DataFrame(columns=cols)
    lo, hi = axis
    unit = max(hi - lo, 1e-9) / PLOT_PX[1]  # tok/s per pixel
    x_unit = (STEPS_DOMAIN[1] - STEPS_DOMAIN[0]) / PLOT_PX[0]  # num_steps per pixel
    order = base.assign(_at=range(len(base))).sort_values(["output tok/s", "_at"], ascending=[True, False])
    rows = order.to_dict("records")  # low to high; at one tok/s the first run ends on top, read first
    lines: list[list[dict[str, Any]]] = []  # rules drawn as one line
    for row in rows:  # a long label wraps (one line ran across the plot and the axis), so a rule may take lines
        row["lines"] = textwrap.wrap(str(row["baseline"]), LABEL_CHARS, break_long_words=False) or [""]
        if lines and float(row["output tok/s"]) - float(lines[-1][0]["output tok/s"]) < SAME_LINE_PX * unit:
            lines[-1].append(row)
        else:
            lines.append([row])
    rules = [float(r["output tok/s"]) for r in rows]
    placed: list[tuple[float, float, float, float]] = []  # (x0, x1, y0, y1) of the labels drawn so far
    mx, my = POINT_PX * x_unit, POINT_PX * unit  # a point at the text's edge still covers it
    out = []
    for c in reversed(lines):  # top down: a higher rule's label takes the room above it first
        names = [line for r in reversed(c) for line in r["lines"]]  # read top down as the rules are
        width = (max(len(n) for n in names) * CHAR_PX + 4) * x_unit
        tall = len(names) * LINE_PX * unit
        rule = float(c[-1]["output tok/s"])  # the line's own rule (its top one, where several are drawn as one)
        own = {float(r["output tok/s"]) for r in c}
        above, under = rule + LABEL_PAD_PX * unit, rule - LABEL_PAD_PX * unit - tall
        right, left = (STEPS_DOMAIN[1] - width, STEPS_DOMAIN[1]), (STEPS_DOMAIN[0], STEPS_DOMAIN[0] + width)
        spots = [  # in order of preference: ties take the first
            (("right", "bottom"), (*right, above, above + tall)),
            (("left", "bottom"), (*left, above, above + tall)),
            (("right", "top"), (*right, under, under + tall)),
            (("left", "top"), (*left, under, under + tall)),
        ]
        costs = []
        for _, (x0, x1, y0, y1) in spots:
            # another label's lines, or closer to them than lines of one stack are (boxes that only abut touched)
            gap = LINE_GAP_PX * unit
            clash = any(x0 < b1 and b0 < x1 and y0 - gap < d1 and d0 < y1 + gap for b0, b1, d0, d1 in placed)
            crossed = any(y0 - gap < v < y1 + gap for v in rules if v not in own)  # another dashed rule
            outside = y0 < lo or y1 > hi
            hits = sum(x0 - mx <= x <= x1 + mx and y0 - my <= y <= y1 + my for x, y in data)
            # never over another label or rule (a label between two rules is read as either's), seldom off the
            # plot, then the data
            costs.append((2 * (clash or crossed) + outside, hits))
        (align, anchor), box = spots[costs.index(min(costs))]
        placed.append(box)
        for j, name in enumerate(names):
            dy = -(LABEL_PAD_PX + LINE_PX * (len(names) - 1 - j)) if anchor == "bottom" else LABEL_PAD_PX + LINE_PX * j
            out.append({"output tok/s": rule, "baseline": name, "align": align, "anchor": anchor, "dy": dy})
    return pd.DataFrame(out, columns=cols)


LOG_SPAN = 4.0  # tok/s spanning this factor or more (batch 1 beside batch 16) is drawn on a log axis
LOG_PAD = 1.08  # room above and below the data on that axis, as a factor
LOG_TICK_LADDERS = ((1, 1.5, 2, 3, 5, 7), (1, 2, 5), (1, 3), (1,))  # mantissas, finest first
LOG_MAX_TICKS = 8


def log_ticks(lo: float, hi: float) -> list[float]:
    """Round tick values for a log axis holding ``lo``..``hi`` (both > 0): the finest ladder of mantissas (1, 1.5,
    2, 3, 5, 7 x 10^n down to 1 x 10^n) that brackets the data in at most ``LOG_MAX_TICKS`` ticks, from the last at or
    below ``lo`` to the first at or above ``hi``. Vega's own log ticks thin their labels to a few per decade: the
    walk's sweep at 1.4k-1.7k tok/s had "1k" as its top label, so the top of the data had none."""
    if not (0 < lo <= hi < math.inf):
        raise ValueError(f"log ticks need 0 < lo <= hi, got {lo!r}, {hi!r}")
    first, last = math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1
    ticks: list[float] = []
    for ladder in LOG_TICK_LADDERS:
        cands = sorted({float(f"{m * 10.0**e:.6g}") for e in range(first, last + 1) for m in ladder})
        below = max(c for c in cands if c <= lo)
        above = min(c for c in cands if c >= hi)
        ticks = [c for c in cands if below <= c <= above]
        if len(ticks) <= LOG_MAX_TICKS:
            return ticks
    return [ticks[0], *ticks[1:-1][:: math.ceil(len(ticks) / LOG_MAX_TICKS)], ticks[-1]]  # many decades


def _along_lines(spec: pd.DataFrame, series: str = "series", y: str = "output tok/s") -> list[tuple[float, float]]:
    """(num_steps, value) points every ~0.1 num_steps along each series' drawn line, its points included."""
    out: list[tuple[float, float]] = []
    for _, part in spec.dropna(subset=[y]).sort_values("num_steps").groupby(series, sort=False):
        pts = list(zip(part["num_steps"].astype(float), part[y].astype(float), strict=True))
        out += pts
        for (x0, y0), (x1, y1) in zip(pts, pts[1:], strict=False):
            n = max(2, int(abs(x1 - x0) * 10))
            out += [(x0 + (x1 - x0) * k / n, y0 + (y1 - y0) * k / n) for k in range(1, n)]
    return out


def _requests_asked(run: Any) -> int | None:
    """The number of requests a run asked for (its params, an import's num_prompts), else those it counted."""
    from comparelib.values import run_param

    for value in (run_param(run, "requests"), getattr(run, "requests", None)):
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value > 0:
            return int(value)
    return None


def _requests_words(run: Any) -> str:
    n = _requests_asked(run)
    return f"{n} requests" if n is not None else "requests not recorded"


def _measured_words(spec_runs: Sequence[Any], series: Mapping[int, str]) -> tuple[set[int], dict[int, str]]:
    """(the runs drawn apart from their line, each run's "measured" tooltip). A line has one point per num_steps:
    where one series measured a num_steps more than once (the request count splits no line:
    ``analysis.speedup.sweep_series``), the line goes through the better measured run (the most requests, then
    the fewest errors, then the newest) and the others are drawn apart, each tooltip saying which."""
    at: dict[tuple[str, Any], list[Any]] = {}
    for r in spec_runs:
        at.setdefault((series[r.id], r.num_steps), []).append(r)
    apart: set[int] = set()
    words = {r.id: _requests_words(r) for r in spec_runs}
    for (_, steps), rs in at.items():
        if len(rs) < 2:
            continue
        best = max(rs, key=lambda r: (_requests_asked(r) or 0, -(getattr(r, "errors", 0) or 0), r.id))
        listed = ", ".join(f"#{r.id} ({_requests_words(r)})" for r in sorted(rs, key=lambda r: r.id))
        for r in rs:
            if r is best:
                words[r.id] = (
                    f"{_requests_words(r)}; the line goes through this run, the better measured at num_steps {steps} "
                    f"of {listed}"
                )
            else:
                apart.add(r.id)
                words[r.id] = (
                    f"{_requests_words(r)}; drawn apart: the line goes through run #{best.id} "
                    f"({_requests_words(best)}), the better measured at num_steps {steps}"
                )
    return apart, words


def run_sweep_charts(
    records: Sequence[Any], series: Mapping[int, str], models: Mapping[int, str] | None = None
) -> tuple[alt.TopLevelMixin, alt.TopLevelMixin | None] | None:
    """tok/s (the group's baseline runs as dashed horizontal rules) and acceptance length against num_steps,
    one line per comparable setting (``series``: ``analysis.speedup.sweep_series``, by run id), led by its
    target model in a group of several (``models``: ``analysis.speedup.served_models``). The legend says each
    series as given: it names the algorithm and the shape ("sglang MTP (NEXTN) bs=1 chain") by the registry's one
    rule, which this shared module cannot import. A num_steps a line measured twice (with 4 and 6 requests) has one
    point on the line, the better measured, and the other drawn apart as a hollow point; the tooltips say which
    (``_measured_words``)."""
    spec_runs = [r for r in records if not r.is_baseline and r.num_steps is not None]
    models = models or {}
    apart, measured = _measured_words(spec_runs, series)
    spec = pd.DataFrame(
        [
            {
                "num_steps": r.num_steps,
                "output tok/s": r.output_tokens_per_s,
                "accept length": r.accept_length,
                "run": r.title,
                "kind": r.kind,
                "engine": str(getattr(r, "engine", None) or "unknown"),
                "series": series[r.id],
                "measured": measured[r.id],
                "_apart": r.id in apart,
            }
            for r in spec_runs
        ]
    )
    base = pd.DataFrame(
        [
            {"output tok/s": r.output_tokens_per_s, "baseline": _baseline_name(r, models.get(r.id)), "run": r.title}
            for r in records
            if r.is_baseline and r.output_tokens_per_s is not None
        ]
    )
    if spec.empty and base.empty:
        return None
    steps_axis: dict[str, Any] = {
        "title": "num_steps (draft depth)",
        "scale": alt.Scale(domain=list(STEPS_DOMAIN)),
        "axis": alt.Axis(tickMinStep=1),
    }
    x = alt.X("num_steps:Q", **steps_axis)
    # batch 1 and 16, chain and tree: separate lines; labels in full (the default cut "max_tokens=256" to "…"),
    # under the plot, where they take no width from it
    colour = alt.Color("series:N", title="setting", legend=alt.Legend(**SWEEP_LEGEND))
    tok_s = pd.concat(
        [spec["output tok/s"] if not spec.empty else pd.Series(dtype=float), base.get("output tok/s", pd.Series())]
    )
    tok_s = tok_s.dropna().astype(float)
    lo, hi = (float(tok_s.min()), float(tok_s.max())) if len(tok_s) else (0.0, 0.0)
    log = lo > 0 and hi / lo >= LOG_SPAN  # batch 1 under batch 16 read as a flat line on one linear axis
    # round ticks that bracket the data, so its top and bottom are read on labelled ticks, in a stated format: Vega's
    # own labelled one tick "43.773125" under a group of one baseline (walk X)
    if log:
        ticks = log_ticks(lo, hi)
        domain = [min(ticks[0], lo / LOG_PAD), max(ticks[-1], hi * LOG_PAD)]
        scale = alt.Scale(type="log", domain=domain, nice=False)
        title = "output tokens/s (log scale)"
    else:
        ticks = linear_ticks(lo, hi)
        domain = [ticks[0], ticks[-1]]
        scale = alt.Scale(domain=domain, nice=False, zero=False)
        title = "output tokens/s"
    y = alt.Y("output tok/s:Q", title=title, scale=scale, axis=alt.Axis(format=tick_format(ticks, log), values=ticks))
    on_line, off_line = (
        (spec[~spec["_apart"]].drop(columns="_apart"), spec[spec["_apart"]].drop(columns="_apart"))
        if not spec.empty
        else (spec, spec)
    )
    tips = ["run", "series", "num_steps", "output tok/s", "accept length", "measured", "kind"]
    layers = []
    if not spec.empty:
        layers.append(
            alt.Chart(on_line)
            .mark_line(point=alt.OverlayMarkDef(size=90))
            .encode(x=x, y=y, color=colour, tooltip=tips)
        )
    if not off_line.empty:  # a num_steps measured again, off the line through the better measured run
        layers.append(
            alt.Chart(off_line).mark_point(size=90, filled=False).encode(x=x, y=y, color=colour, tooltip=tips)
        )
    if not base.empty:
        layers.append(
            alt.Chart(base).mark_rule(strokeDash=[6, 4], color=NEUTRAL).encode(y=y, tooltip=["run", "output tok/s"])
        )
        along = _along_lines(on_line) if not on_line.empty else []
        if not off_line.empty:  # a point drawn apart is data a label must not cover too
            along += [
                (float(a), float(b)) for a, b in zip(off_line["num_steps"], off_line["output tok/s"], strict=True)
            ]
        if log:  # placed where they are drawn: on the log axis, in decades
            axis = (math.log10(domain[0]), math.log10(domain[1]))
            back = {math.log10(float(v)): float(v) for v in base["output tok/s"]}  # each rule's own value
            logged = base.assign(**{"output tok/s": base["output tok/s"].astype(float).map(math.log10)})
            labels = baseline_labels(logged, axis, [(x_, math.log10(v)) for x_, v in along if v > 0])
            labels["output tok/s"] = labels["output tok/s"].map(back)
        else:
            labels = baseline_labels(base, (domain[0], domain[1]), along)
        for (align, anchor, dy), part in labels.groupby(["align", "anchor", "dy"]):
            right = align == "right"
            layers.append(
                alt.Chart(part)
                .mark_text(align=align, baseline=anchor, dx=-4 if right else 4, dy=float(dy), color=NEUTRAL)
                .encode(x=alt.value("width") if right else alt.value(0), y="output tok/s:Q", text="baseline:N")
            )
    speed = _layer(*layers).properties(title="Output tokens/s vs num_steps", **SWEEP_SIZE)
    if spec.empty or spec["accept length"].isna().all():
        return speed, None
    y_al = alt.Y(
        "accept length:Q",
        title="acceptance length (tokens per verify)",
        # ticks from one at or below the lowest point to one at or above the highest (walk BK: labelled 1.80-3.20,
        # points drawn at 3.33 above the last tick), at least MIN_ACCEPT_SPAN tall (2.50 to 2.51 would not fill it)
        **accept_axis(spec["accept length"], padded_domain(list(spec["accept length"].dropna()))),
    )
    # typed: a layer's shared encoding has no data to infer them from
    al_tips = ["run:N", "series:N", "num_steps:Q", "accept length:Q", "measured:N"]
    # acceptance hardly moves with the batch: batch 1 and 16 of one draft (or SGLang and vLLM) measured one value at
    # one num_steps, and the point drawn last hid the other. Each line is drawn a little to the side (its own offset
    # in the legend's order; the tooltip says the num_steps) and each engine has its own shape
    names = sorted(set(spec["series"]))
    gap = min(0.25, 0.8 / (len(names) - 1)) if len(names) > 1 else 0.0
    shift = {n: (i - (len(names) - 1) / 2) * gap for i, n in enumerate(names)}

    def drawn(frame: pd.DataFrame) -> pd.DataFrame:
        frame = frame.dropna(subset=["accept length"])
        return frame.assign(
            **{"num_steps drawn": frame["num_steps"].astype(float) + frame["series"].map(shift).astype(float)}
        )

    x_al = alt.X("num_steps drawn:Q", **steps_axis)
    # the engine's legend above the plot: beside the settings' legend under it, its entries were cut off at 1400 px
    # (walk AT: "eng", a black square and nothing else)
    # its symbols in a grey read on both themes: Vega's default black vanished on the dark one (walks BW 2, BX 6)
    shape = alt.Shape(
        "engine:N",
        title="engine",
        legend=alt.Legend(orient="top", direction="horizontal", symbolFillColor=NEUTRAL, symbolStrokeColor=NEUTRAL),
    )
    line = alt.Chart(drawn(on_line)).mark_line(point=alt.OverlayMarkDef(size=90))
    off_al = drawn(off_line)
    accept: alt.Chart | alt.LayerChart = (
        line
        if off_al.empty
        # a num_steps measured again: a hollow point beside the line, both layers under one encoding
        else _layer(line, alt.Chart(off_al).mark_point(size=90, filled=False))
    )
    accept = accept.encode(x=x_al, y=y_al, color=colour, shape=shape, tooltip=al_tips)
    return speed, accept.properties(title="Acceptance length vs num_steps", **SWEEP_SIZE)


# ---------------------------------------------------------------------------------------------
# Exports


def curve_chart(
    curve: Any,
    *,
    published: pd.DataFrame | None = None,
    live: pd.DataFrame | None = None,
    title: str | None = None,
) -> alt.LayerChart:
    """A training run's learning curve (``curves.Curve``): tau_sim per logged point against samples seen.

    Train points light, eval points dark; the fit dashed with its 95% band; published drafts at the
    same benchmark and setting as grey diamonds (only on a samples axis); the draft's live acceptance
    length from stored runs as dotted horizontal rules.
    """
    unit = str(curve.evidence.get("x", "samples"))
    xcol = {"samples": "samples_seen", "epochs": "step", "steps": "step"}.get(unit, "step")
    pts = curve.frame()
    pts = pts[pd.to_numeric(pts[xcol], errors="coerce").gt(0)].copy()
    pts["x"] = pd.to_numeric(pts[xcol], errors="coerce")
    pts = pts[["x", "step", "split", "tau_sim"]]
    x_enc = alt.X("x:Q", title=f"{unit} seen (log scale)", scale=alt.Scale(type="log"), axis=alt.Axis(format="~s"))
    pub = pd.DataFrame()
    if published is not None and len(published) and unit == "samples":  # published drafts have no steps axis
        pub = published[pd.to_numeric(published["samples"], errors="coerce").gt(0)].copy()
        pub = pub.rename(columns={"samples": "x", "accept_length": "tau_sim"})[["draft", "x", "tau_sim"]]
        pub["draft"] = pub["draft"].astype("string")
    bdf = pd.DataFrame(curve.band).rename(columns={"mean": "tau_sim"}) if curve.band else pd.DataFrame()
    # a fit the verdict sets aside (its ceiling above what the chain can reach, say) predicts nothing: drawn grey,
    # with no band, and said so (walk BW 4: "dashed: fit" rose above a plateau the verdict called flat)
    set_aside = curve.evidence.get("fit_used") is False
    # one axis over every value drawn: the log's points, its fit and band, published drafts and live runs
    y_axis = accept_axis(
        pts["tau_sim"],
        *([bdf[c] for c in ("tau_sim", "low", "high")] if len(bdf) else []),
        pub["tau_sim"] if len(pub) else None,
        live["accept_length"] if live is not None and len(live) else None,
    )
    y_title = "acceptance length (tokens/cycle)"
    y_enc = alt.Y("tau_sim:Q", title=y_title, **y_axis)
    layers: list[alt.Chart] = []
    if len(bdf) and not set_aside:
        layers.append(
            alt.Chart(bdf)
            .mark_area(opacity=0.18, color="#4c78a8")
            .encode(x=x_enc, y=alt.Y("low:Q", title=y_title, **y_axis), y2="high:Q")
        )
    if len(bdf):
        layers.append(
            alt.Chart(bdf)
            .mark_line(color=NEUTRAL if set_aside else "#4c78a8", strokeDash=[6, 3])
            .encode(
                x=x_enc,
                y=y_enc,
                tooltip=[
                    alt.Tooltip("x:Q", title=unit, format=","),
                    alt.Tooltip("tau_sim:Q", title="fit", format=".2f"),
                    alt.Tooltip("low:Q", format=".2f"),
                    alt.Tooltip("high:Q", format=".2f"),
                ],
            )
        )
    layers.append(
        alt.Chart(pts)
        .mark_point(filled=True, size=30)
        .encode(
            x=x_enc,
            y=y_enc,
            # only the splits logged (walk BB: "train" in the legend of an eval-only log), each in its own colour
            color=alt.Color(
                "split:N",
                title="logged",
                scale=alt.Scale(
                    domain=[s for s in ("train", "eval") if s in set(pts["split"])] or ["train", "eval"],
                    range=[c for s, c in zip(("train", "eval"), SPLIT_COLOURS, strict=True) if s in set(pts["split"])]
                    or list(SPLIT_COLOURS),
                ),
            ),
            tooltip=[
                alt.Tooltip("step:Q"),
                alt.Tooltip("x:Q", title=unit, format=","),
                alt.Tooltip("split:N"),
                alt.Tooltip("tau_sim:Q", title="tau_sim", format=".3f"),
            ],
        )
    )
    if len(pub):
        layers.append(
            alt.Chart(pub)
            .mark_point(shape=OWN_SHAPE, filled=True, size=90, color=GREY)
            .encode(
                x=x_enc,
                y=y_enc,
                tooltip=[
                    alt.Tooltip("draft:N", title="published draft"),
                    alt.Tooltip("x:Q", title="samples", format=","),
                    alt.Tooltip("tau_sim:Q", title="acceptance length", format=".2f"),
                ],
            )
        )
    if live is not None and len(live):
        ldf = live[["run", "accept_length"]].rename(columns={"accept_length": "tau_sim"}).copy()
        ldf["run"] = ldf["run"].astype("string")
        ldf["series"] = LIVE_SERIES
        layers.append(
            alt.Chart(ldf)
            .mark_rule(strokeDash=[2, 2], color=LIVE_COLOUR)
            .encode(
                y=y_enc,
                # a legend entry of its own (the symbol in the rule's colour: a default black one vanishes in dark)
                strokeDash=alt.StrokeDash(
                    "series:N",
                    title="live",
                    scale=alt.Scale(domain=[LIVE_SERIES], range=[[2, 2]]),
                    legend=alt.Legend(symbolStrokeColor=LIVE_COLOUR, symbolType="stroke"),
                ),
                tooltip=[alt.Tooltip("run:N", title="live run"), alt.Tooltip("tau_sim:Q", format=".2f")],
            )
        )
    # one short line per statement, in the neutral grey: one long subtitle is cut with "..." and the
    # theme's default subtitle colour is black, unseen on the dark theme. Legends stay on the right: one
    # below the plot took its height from the fixed total, squeezing the plot and clipping the title.
    subtitle = [f"tau_sim per logged point; fit on {curve.evidence.get('split')} points"]
    peak = getattr(curve, "peak", None)
    if peak is not None and peak.why_not:  # a fall past noise, not overfitting: the fit through it predicts nothing
        subtitle = [
            "tau_sim per logged point; fit not extrapolated"
            + f": eval peaked at {peak.tau:.2f} and fell {peak.fall:.2f} after it, past noise (not overfitting)"
        ]
    elif peak is not None:  # overfitting: no fit is drawn through the eval points after the peak (walk S)
        subtitle = [
            "tau_sim per logged point; "
            + ("fit on the eval points up to the peak" if curve.band else "no fit drawn")
            + f": eval peaked at {peak.tau:.2f} and fell {peak.fall:.2f} after it (overfitting)"
        ]
    if curve.band and set_aside:
        subtitle.append("grey dashed: fit set aside for predictions (verdict)")
    elif curve.band:
        subtitle.append("dashed: fit, with the 95% band of the mean")
    if len(pub):  # only when drawn: on a steps or epochs axis they are not
        subtitle.append("grey diamonds: published drafts at this setting")
    if live is not None and len(live):
        subtitle.append("dotted red rules: live acceptance length")
    return _layer(*layers).properties(
        title=alt.TitleParams(
            title or "Learning curve: acceptance length vs data seen", subtitle=subtitle, subtitleColor=NEUTRAL
        ),
        width="container",
        height=440,  # the title block takes ~90 px of it: the plot keeps ~250
    )


AFTER_PEAK = "your curve after its eval peak (not fitted)"  # plan.LEFT_OUT: an overfitting log's tail


def plan_curve_chart(
    band: pd.DataFrame,
    points: pd.DataFrame,
    *,
    target_al: float | None = None,
    samples_needed: tuple[float | None, float | None, float | None] | None = None,
    steps: int | None = None,
    title: str | None = None,
    seen: bool = False,
    target_words: str | None = None,
) -> alt.LayerChart:
    """The plan's bounded fit (``band``: samples, al, low, high) with its band, the points it was fitted on
    (``points``: samples, al, kind, label), the target AL (dashed) and the samples it needs (a rule and
    the band of that figure). ``target_al`` is on the fit's axis (``Plan.chart_target``, which gives
    ``target_words``, its label): a target on another scale than the fit is not drawn over it."""
    # ``seen``: the fit is of your training log, whose x is samples seen (epochs x unique samples), not unique ones
    samples_words = "training samples seen" if seen else "training samples"
    title = title or f"Acceptance length vs {samples_words}: the plan's fit"
    x = alt.X(
        "samples:Q", title=f"{samples_words} (log scale)", scale=alt.Scale(type="log"), axis=alt.Axis(format="~s")
    )
    y_title = "acceptance length" + (f" at {steps} steps" if steps else "")
    # one axis over the fit, its band, its points and the target drawn
    y_axis = accept_axis(
        *([band[c] for c in ("al", "low", "high")] if len(band) else []),
        points["al"] if len(points) else None,
        [target_al] if target_al is not None else None,
    )
    layers: list[alt.Chart] = []
    if len(band):
        bdf = band[["samples", "al", "low", "high"]].astype(float)
        layers.append(
            alt.Chart(bdf)
            .mark_area(opacity=0.18, color="#4c78a8")
            .encode(x=x, y=alt.Y("low:Q", title=y_title, **y_axis), y2="high:Q")
        )
        layers.append(
            alt.Chart(bdf)
            .mark_line(color="#4c78a8")
            .encode(
                x=x,
                y=alt.Y("al:Q", title=y_title, **y_axis),
                tooltip=[
                    alt.Tooltip("samples:Q", format=","),
                    alt.Tooltip("al:Q", title="fit", format=".2f"),
                    alt.Tooltip("low:Q", format=".2f"),
                    alt.Tooltip("high:Q", format=".2f"),
                ],
            )
        )
    if len(points):
        pdf = points[["samples", "al", "kind", "label"]].copy()
        pdf["label"] = pdf["label"].astype("string")
        layers.append(
            alt.Chart(pdf)
            .mark_point(filled=True, opacity=0.85, size=55)
            .encode(
                x=x,
                y=alt.Y("al:Q", title=y_title, **y_axis),
                color=alt.Color("kind:N", title="points"),
                shape=alt.Shape(
                    "kind:N",
                    scale=alt.Scale(
                        domain=["published", "yours", "your curve", AFTER_PEAK],
                        range=[PUBLISHED_SHAPE, OWN_SHAPE, "circle", "triangle-down"],
                    ),
                    legend=None,
                ),
                tooltip=[
                    alt.Tooltip("label:N", title="draft"),
                    alt.Tooltip("samples:Q", format=","),
                    alt.Tooltip("al:Q", format=".2f"),
                ],
            )
        )
    if target_al is not None:
        tdf = pd.DataFrame({"al": [float(target_al)], "label": [target_words or f"target AL {target_al:.2f}"]})
        layers.append(
            alt.Chart(tdf)
            .mark_rule(strokeDash=[6, 3], color="#e45756")
            .encode(y=alt.Y("al:Q", title=y_title, **y_axis), tooltip=["label:N"])
        )
    if samples_needed is not None and samples_needed[0]:
        value, low, high = samples_needed
        ndf = pd.DataFrame(
            {
                "samples": [float(value)],  # type: ignore[arg-type]
                "low": [float(low) if low else float(value)],  # type: ignore[arg-type]
                "high": [float(high) if high else float(value)],  # type: ignore[arg-type]
                "label": [
                    f"samples{' seen' if seen else ''} needed {value:,.0f} ({'?' if low is None else f'{low:,.0f}'}.."
                    f"{'unbounded' if high is None else f'{high:,.0f}'})"
                ],
            }
        )
        layers.append(
            alt.Chart(ndf)
            .mark_rule(strokeDash=[2, 2], color="#e45756")
            .encode(x=alt.X("samples:Q", scale=alt.Scale(type="log")), tooltip=["label:N"])
        )
        layers.append(
            alt.Chart(ndf)
            .mark_rect(opacity=0.08, color="#e45756")
            .encode(x=alt.X("low:Q", scale=alt.Scale(type="log")), x2="high:Q", tooltip=["label:N"])
        )
    if not layers:
        layers.append(alt.Chart(pd.DataFrame({"samples": [], "al": []})).mark_point().encode(x=x, y="al:Q"))
    subtitle = [
        "line and band: bounded fit (AL at most K + 1), 95% band",
        # a target on another scale than the fit is not drawn: the subtitle does not promise one
        # short, in one line (a long one is cut with "..."): the tooltip gives the label in full
        (
            "dashed: target AL" + (", put on your log's scale" if "your log's scale" in (target_words or "") else "")
            if target_al is not None
            else "no target drawn"
        )
        + "; dotted: samples needed",
    ]
    if len(points) and (points["kind"] == AFTER_PEAK).any():  # an overfitting log: its fall is shown, not fitted
        subtitle.append("triangles: your log after its eval peak, left out of the fit (eval fell there)")
    return _layer(*layers).properties(
        title=alt.TitleParams(title, subtitle=subtitle, subtitleColor=NEUTRAL), width="container", height=340
    )


# GPU-hours on an axis: thousands separated, no trailing zeros. Without a format, a plan of free options only (a
# zero-width domain) gave Vega no tick step to set a precision from, and its one tick read "0.000000" (walk AG).
GPU_HOURS_FORMAT = ",~f"


def plan_cost_chart(frame: pd.DataFrame, *, rank_batch: int = 1) -> alt.LayerChart:
    """Cost (GPU-hours, symlog: free changes sit at 0) against tok/s gained at the ranking batch size, one
    point per option with its GPU-hours band; ``frame`` is ``Plan.frame()``."""
    cols = ["option", "kind", "rank", "gpu_hours", "gpu_hours_low", "gpu_hours_high", "gain_tok_s"]
    df = frame[[c for c in cols if c in frame.columns]].copy()
    df = df[pd.to_numeric(df["gain_tok_s"], errors="coerce").notna()] if len(df) else df
    for c in ("gpu_hours", "gpu_hours_low", "gpu_hours_high", "gain_tok_s"):
        if c in df:
            df[c] = pd.to_numeric(df[c], errors="coerce").astype(float)
    if len(df):
        df["gpu_hours_high"] = df["gpu_hours_high"].fillna(df["gpu_hours"])
        df["gpu_hours_low"] = df["gpu_hours_low"].fillna(df["gpu_hours"])
    axis = alt.Axis(format=GPU_HOURS_FORMAT)
    x = alt.X(
        "gpu_hours:Q",
        title="GPU-hours (symlog; 0 = a free change)",
        scale=alt.Scale(type="symlog", constant=1),
        axis=axis,
    )
    y = alt.Y("gain_tok_s:Q", title=f"tok/s gained at batch {rank_batch}")
    tooltip = [
        alt.Tooltip("rank:Q"),
        alt.Tooltip("option:N"),
        alt.Tooltip("gpu_hours:Q", title="GPU-hours", format=",.1f"),
        alt.Tooltip("gpu_hours_low:Q", title="low", format=",.1f"),
        alt.Tooltip("gpu_hours_high:Q", title="high", format=",.1f"),
        alt.Tooltip("gain_tok_s:Q", title="tok/s gained", format=",.1f"),
    ]
    base = alt.Chart(df)
    bars = base.mark_rule(opacity=0.6).encode(
        x=alt.X("gpu_hours_low:Q", scale=alt.Scale(type="symlog", constant=1), axis=axis),
        x2="gpu_hours_high:Q",
        y=y,
        color=alt.Color("kind:N", title="option"),
    )
    pts = base.mark_point(filled=True, size=110).encode(
        x=x, y=y, color=alt.Color("kind:N", title="option"), tooltip=tooltip
    )
    return _layer(bars, pts).properties(
        title=alt.TitleParams(
            "Cost against gain per option",
            subtitle=["up and to the left is better; ranking: tok/s gained per GPU-hour"],
            subtitleColor=NEUTRAL,
        ),
        width="container",
        height=300,
    )


# One fixed colour per component, the same on both themes (the theme's palette swapped attention and mlp
# between light and dark) and >= 2:1 against both backgrounds; COMPONENTS order.
COMPONENT_COLOURS: dict[str, str] = {
    "embedding": "#4c78a8",
    "fc": "#72b7b2",
    "attention": "#e45756",
    "mlp": "#f58518",
    "experts": "#b279a2",
    "router": "#9d755d",
    "norm": "#54a24b",
    "mtp": "#d6a20f",
    "heads": "#e377c2",
    "lm_head": "#8f6bd8",
    "vision": "#6b9bd1",
    "buffer": "#8c8c8c",
}
_SPARE_COLOURS = ("#bcbd22", "#17becf", "#8c564b", "#d35fb7")  # a component outside COMPONENTS
# trained? as fill strength and outline together: three opacities alone read as one grey in the legend
TRAINED = ("trainable", "mixed", "frozen")
TRAINED_OPACITY = (1.0, 0.55, 0.2)
TRAINED_DASH: tuple[list[int], ...] = ([1, 0], [6, 3], [2, 2])  # solid, dashed, dotted outline


def component_scale(order: Sequence[str], present: Sequence[str] | None = None) -> alt.Scale:
    """Each component's own colour (not the theme's palette), in ``order``; only those ``present`` (the legend
    lists the domain), any unknown one after them in a spare colour."""
    shown = [c for c in order if present is None or c in present]
    shown += [c for c in dict.fromkeys(present or ()) if c not in shown]
    spare = iter(_SPARE_COLOURS * (1 + len(shown)))
    return alt.Scale(domain=shown, range=[COMPONENT_COLOURS.get(c) or next(spare) for c in shown])


def params_chart(components: pd.DataFrame, order: Sequence[str], leave_out: Sequence[str] = ()) -> alt.Chart:
    """Stacked parameters per draft by component (Compare page): a fixed colour per component; trained, mixed
    or frozen as a solid, half or faint fill with a solid, dashed or dotted outline.

    ``leave_out`` names rows not drawn: a target model pasted among the drafts (its bar, 1T against 3B drafts,
    left them slivers; the page says it is shown as the target)."""
    if leave_out:
        components = components[~components["draft"].isin(list(leave_out))]
    scale = component_scale(order, [str(c) for c in components["component"]])
    # segments stacked in the legend's order (walk AY: alphabetical, attention first, beside a legend from embedding)
    rank = {c: i for i, c in enumerate(scale.domain)}
    components = components.assign(stack=[rank.get(str(c), len(rank)) for c in components["component"]])
    trained = alt.Scale(domain=list(TRAINED), range=list(TRAINED_OPACITY))
    legend = alt.Legend(  # one legend for both channels, in the neutral grey seen on both themes
        symbolFillColor=NEUTRAL, symbolStrokeColor=NEUTRAL, symbolType="square", symbolSize=200, symbolStrokeWidth=2
    )
    return (
        alt.Chart(components)
        .mark_bar(strokeWidth=2)
        .encode(
            x=alt.X("sum(params):Q", title="parameters"),
            y=alt.Y("draft:N", title=None, sort=None, axis=alt.Axis(labelLimit=480)),  # full names, never cut
            color=alt.Color("component:N", sort=list(order), scale=scale),
            stroke=alt.Stroke("component:N", sort=list(order), scale=scale),  # outline: merged into its legend
            # the fill only: the outline stays at full strength, so a faint frozen segment still shows on dark
            fillOpacity=alt.FillOpacity("trainable:N", scale=trained, title="trained?", legend=legend),
            strokeDash=alt.StrokeDash(
                "trainable:N",
                scale=alt.Scale(domain=list(TRAINED), range=list(TRAINED_DASH)),
                title="trained?",
                legend=legend,
            ),
            tooltip=["draft", "component", alt.Tooltip("params:Q", format=","), "trainable"],
            order=alt.Order("stack:Q"),
        )
        # tall enough for both legends (up to 7 components, then trained?: Streamlit spaces entries ~30 px apart)
        .properties(height=max(340, 28 * components["draft"].nunique()))
    )


# max_length is drawn (and the axis stretched to it) only within this factor of the longest sample: at 2,048
# against samples of 30-92 tokens the bars were a sliver at the left of an axis running to 2,200.
NEAR_MAX_LENGTH = 1.5


def length_histogram(bins: Sequence[float], counts: Sequence[int], max_length: int) -> alt.LayerChart:
    """Tokens per sample as binned bars, with the training max_length as a rule (Dataset audit).

    The axis fits the data: a max_length far beyond the longest sample is said above the plot, not drawn."""
    df = pd.DataFrame({"start": list(bins[:-1]), "end": list(bins[1:]), "samples": list(counts)})
    filled = df[df["samples"] > 0]
    longest = float(filled["end"].max()) if len(filled) else None
    bars = (
        alt.Chart(df)
        .mark_bar()
        .encode(
            x=alt.X("start:Q", bin="binned", title="tokens per sample"),
            x2="end:Q",
            y=alt.Y("samples:Q", title="samples"),
            tooltip=["start", "end", "samples"],
        )
    )
    if longest is not None and max_length > NEAR_MAX_LENGTH * longest:
        note = f"max_length {max_length:,} is off the axis: every sample is shorter than {longest:,.0f} tokens"
        return _layer(bars).properties(
            height=260,  # secondary text, as a subtitle would be (Vega draws no subtitle under an empty title)
            title=alt.TitleParams(note, color=NEUTRAL, fontSize=12, fontWeight="normal", anchor="start"),
        )
    rule = (
        alt.Chart(pd.DataFrame({"max_length": [max_length]}))
        .mark_rule(color="red")
        .encode(x="max_length:Q", tooltip=["max_length"])
    )
    return _layer(bars, rule).properties(height=260)


def domain_chart(domains: dict[str, int]) -> alt.Chart:
    """Samples per content domain (Dataset audit)."""
    dom = pd.DataFrame({"domain": list(domains), "samples": list(domains.values())})
    return (
        alt.Chart(dom)
        .mark_bar()
        .encode(x=alt.X("samples:Q"), y=alt.Y("domain:N", sort=None), tooltip=["domain", "samples"])
        .properties(height=160)
    )


def _spec(chart: alt.TopLevelMixin) -> dict[str, Any]:
    spec = chart.to_dict()

    # "container" width cannot be resolved outside a browser; give exports a fixed width.
    def fix(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("width") == "container":
                node["width"] = 640
            for v in node.values():
                fix(v)
        elif isinstance(node, list):
            for v in node:
                fix(v)

    fix(spec)
    return spec


def chart_to_vegalite_json(chart: alt.TopLevelMixin) -> str:
    return json.dumps(_spec(chart), indent=2, default=plain)


# vl-convert fetches any external data or image URL by default; our specs are inline, so allow none.
NO_REMOTE: list[str] = []


def chart_to_png(chart: alt.TopLevelMixin, scale: float = 2.0) -> bytes:
    import vl_convert as vlc

    return bytes(vlc.vegalite_to_png(_spec(chart), scale=scale, allowed_base_urls=NO_REMOTE))


def chart_to_svg(chart: alt.TopLevelMixin) -> str:
    import vl_convert as vlc

    return str(vlc.vegalite_to_svg(_spec(chart), allowed_base_urls=NO_REMOTE))


EXPORTS: dict[str, tuple[str, str]] = {
    "png": ("image/png", "png"),
    "svg": ("image/svg+xml", "svg"),
    "vega-lite": ("application/json", "vl.json"),
}


def export(chart: alt.TopLevelMixin, fmt: str) -> bytes | str:
    """One of EXPORTS; PNG is bytes, the others text."""
    if fmt == "png":
        return chart_to_png(chart)
    if fmt == "svg":
        return chart_to_svg(chart)
    if fmt == "vega-lite":
        return chart_to_vegalite_json(chart)
    raise InputError(f"unknown chart format {fmt!r}; use one of {', '.join(EXPORTS)}")
