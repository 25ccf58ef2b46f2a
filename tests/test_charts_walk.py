"""Layout findings of the 1400x900 browser walk, light and dark, checked on the specs and table descriptions.

Each test names the finding it guards: the user's own points drawn grey and small under the volume rule; two
baselines at one tok/s printing their labels over each other (now stacked); key table columns off-screen or cut to
the same "accept leng..."; component colours swapping between themes and three like greys for trained?; the speed
charts' plot squeezed by its titles; a subtitle naming marks that are not drawn; a histogram axis stretched
to a max_length far from the data. Charts are rendered with vl-convert where what is drawn matters.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import pandas as pd
import pytest

from comparelib import charts, tables
from comparelib.analysis import (
    curves,
    scaling,
    speedup,  # noqa: E402
)
from comparelib.models import comparison
from comparelib.models import serving as engine_model
from comparelib.models.architectures import COMPONENTS

KEY = "steps=3,topk=1,draft=4,bs=8,sglang"
# the walk's own draft: two runs at 41 samples, measured at other settings than the chosen one
OWN_RUNS = [(3.00, "steps=3,topk=1,draft=4,bs=2,sglang"), (2.67, "steps=2,topk=1,draft=3,bs=2,sglang")]
# Streamlit's named column widths, in px
NAMED_PX = {"small": 75, "medium": 200, "large": 400}


def _nodes(spec: Any) -> list[dict[str, Any]]:
    """Every view of a spec: itself and its layers, stacked and side-by-side parts, depth first."""
    out: list[dict[str, Any]] = []

    def walk(node: dict[str, Any]) -> None:
        out.append(node)
        for child in node.get("layer", []) + node.get("vconcat", []) + node.get("hconcat", []):
            walk(child)

    walk(spec)
    return out


def _mark(node: dict[str, Any]) -> str | None:
    m = node.get("mark")
    return m.get("type") if isinstance(m, dict) else m


def _rows(spec: dict[str, Any], node: dict[str, Any]) -> list[dict[str, Any]]:
    return list(spec["datasets"][node["data"]["name"]])


# --- 1. the user's own points stand out --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def own_chart() -> Any:
    own = pd.DataFrame(
        [
            scaling.own_point(
                draft="walker/draft", benchmark="gsm8k", accept_length=al, setting_key=key, chain="(3,1,4)", samples=41
            )
            for al, key in OWN_RUNS
        ],
        columns=list(scaling.POINT_COLUMNS),
    )
    pts = scaling.scaling_points(scaling.published_points(), own=own)
    sel = scaling.select(pts, benchmark="gsm8k", setting_key=KEY)
    fit = scaling.fit(sel.points[sel.points["kind"] == "published"])
    return charts.scaling_chart(
        pts, benchmark="gsm8k", setting_key=KEY, band=scaling.band(fit, clip=True), own_volume=41
    )


def _fills(svg: str) -> list[str]:
    """The fill of every drawn path, in drawing order (later is on top)."""
    return re.findall(r'<path[^>]*?fill="(#[0-9a-fA-F]{6})"', svg)


def test_own_points_are_drawn_large_violet_and_on_top_of_every_other_point(own_chart: Any) -> None:
    svg = charts.chart_to_svg(own_chart)
    plot = svg.split("role-legend", 1)[0]  # the legend's own symbol is not a data point
    fills = _fills(plot)
    own = [i for i, f in enumerate(fills) if f.lower() == charts.OWN_COLOUR]
    grey = [i for i, f in enumerate(fills) if f.lower() == charts.GREY]
    assert len(own) == len(OWN_RUNS), "each own run is one violet point, whatever its setting"
    assert grey and min(own) > max(grey), "own points are drawn after (above) the published ones"
    spec = charts._spec(own_chart)
    point = next(n for n in _nodes(spec) if "own" in json.dumps(n.get("encoding", {}).get("size", {})))
    assert charts.OWN_SIZE >= 3 * point["encoding"]["size"]["value"]  # far larger than a published point


def test_own_points_have_a_legend_entry_seen_on_both_themes(own_chart: Any) -> None:
    svg = charts.chart_to_svg(own_chart)
    legend = svg.split("role-legend", 1)[1]
    assert charts.OWN_LABEL in legend and charts.OWN_COLOUR in legend.lower()
    for background in charts.THEME_BACKGROUNDS.values():
        assert charts.contrast(charts.OWN_COLOUR, background) >= 3.0
    subtitle = charts._spec(own_chart)["title"]["subtitle"]
    assert any("your draft" in line for line in subtitle)


def test_no_own_points_no_own_legend_or_subtitle() -> None:
    chart = charts.scaling_chart(scaling.published_points(), benchmark="gsm8k", setting_key=KEY)
    svg = charts.chart_to_svg(chart)
    assert charts.OWN_LABEL not in svg and charts.OWN_COLOUR not in svg.lower()
    assert ">own<" not in svg.split("role-legend", 1)[-1]  # nor a legend entry for points that are not there
    assert not any("your draft" in line for line in charts._spec(chart)["title"]["subtitle"])


# --- 2. baseline labels never overprint ---------------------------------------------------------------------------


def _run(i: int, engine: str, tok_s: float, *, baseline: bool, steps: int | None = None) -> SimpleNamespace:
    return SimpleNamespace(
        id=i, num_steps=steps, output_tokens_per_s=tok_s, accept_length=None if baseline else 3.0, title=f"#{i}",
        kind="measured", engine=engine, is_baseline=baseline, labels=[],
    )  # fmt: skip


def _baseline_layers(runs: Sequence[SimpleNamespace]) -> tuple[list[tuple[str, float, float]], list[float]]:
    """The baseline label lines drawn (text, the rule's tok/s, px from it: each stack line has its own), and the
    tok/s of the baseline rules drawn."""
    built = charts.run_sweep_charts(runs, *speedup.sweep_chart_inputs(runs))
    assert built is not None
    spec = built[0].to_dict()
    texts = [
        (r["baseline"], r["output tok/s"], float(n["mark"]["dy"]))
        for n in _nodes(spec)
        if _mark(n) == "text"
        for r in _rows(spec, n)
    ]
    rule = next(n for n in _nodes(spec) if _mark(n) == "rule")
    return texts, sorted(r["output tok/s"] for r in _rows(spec, rule))


def _baseline_texts(runs: Sequence[SimpleNamespace]) -> list[str]:
    return [t for t, _, _ in _baseline_layers(runs)[0]]


SPEED = [_run(5, "sglang", 298.6, baseline=False, steps=3), _run(6, "sglang", 257.8, baseline=False, steps=2)]


@pytest.mark.parametrize(
    ("baselines", "stacks"),
    [
        # the walk: #4 sglang and #8 vllm 0.1 tok/s apart, one stack from the higher rule, read top down
        ([(4, "sglang", 96.7), (8, "vllm", 96.6)], [["#4 sglang baseline", "#8 vllm baseline"]]),
        ([(4, "sglang", 96.7), (8, "vllm", 96.7)], [["#4 sglang baseline", "#8 vllm baseline"]]),  # equal
        ([(4, "sglang", 96.7), (8, "vllm", 200.0)], [["#4 sglang baseline"], ["#8 vllm baseline"]]),  # apart
        ([(4, "sglang", 96.7)], [["#4 sglang baseline"]]),
    ],
)
def test_baselines_at_one_tok_s_stack_their_labels(
    baselines: list[tuple[int, str, float]], stacks: list[list[str]]
) -> None:
    runs = SPEED + [_run(i, engine, tok_s, baseline=True) for i, engine, tok_s in baselines]
    texts, rules = _baseline_layers(runs)
    by_rule: dict[float, list[tuple[float, str]]] = {}
    for text, tok_s, dy in texts:
        by_rule.setdefault(tok_s, []).append((dy, text))
    assert sorted([t for _, t in sorted(lines)] for lines in by_rule.values()) == sorted(stacks)  # top line first
    for lines in by_rule.values():
        dys = sorted(dy for dy, _ in lines)
        assert all(b - a >= charts.LINE_PX for a, b in zip(dys, dys[1:], strict=False))  # never one over another
    assert rules == sorted(tok_s for _, _, tok_s in baselines)  # every baseline keeps its own rule


def test_baselines_alone_at_one_value_still_stack() -> None:
    """No speculative run: the axis spans only the baselines; equal ones still stack, distinct ones do not."""
    texts, _ = _baseline_layers([_run(1, "sglang", 50.0, baseline=True), _run(2, "vllm", 50.0, baseline=True)])
    assert sorted(t for t, _, _ in texts) == ["#1 sglang baseline", "#2 vllm baseline"]
    assert len({dy for _, _, dy in texts}) == 2
    texts, _ = _baseline_layers([_run(1, "sglang", 50.0, baseline=True), _run(2, "vllm", 80.0, baseline=True)])
    assert {tok_s for _, tok_s, _ in texts} == {50.0, 80.0}  # one label at each rule


# --- 3. key table columns on screen at 1400 px, distinct short headers --------------------------------------------


def _px(col: tables.Column, fitted: int | None = None) -> int:
    if col.width is None:
        assert fitted is not None, f"{col.name} is fitted to its content: give its values"
        return fitted
    return NAMED_PX[col.width] if isinstance(col.width, str) else int(col.width)


def _header_px(col: tables.Column) -> float:
    return tables.text_px(col.title) + 2 * tables.CELL_PADDING_PX


def _serving_rows() -> pd.DataFrame:
    entry = comparison.load_entry("registry:AQ-MedAI/Kimi-K2-Instruct-eagle3")
    assert entry.serving, "the registry entry knows its target"
    return pd.DataFrame(engine_model.table_rows(entry.serving, engine_model.advice(**entry.serving_args)))


# (table, the pinned column's longest value in the walk, the key columns after it, the grid it is drawn in);
# by name, so that each case fails on its own where a description is missing
KEY_COLUMNS = [
    (
        "RUN_COMPARISON",
        "#5 EAGLE-3 steps=3 topk=1 ndt=4",
        ["num_steps", "output tok/s", "speedup", "speedup_note", "accept length (pooled)", "accept length (mean)"],
        "GRID_PX",
    ),
    ("LIVE_ACCEPTANCE", "#5 EAGLE-3 steps=3 topk=1 ndt=4", ["accept_length", "tau_sim_last"], "HALF_GRID_PX"),
    # walk BX 4: a run labelled by the user, fitted whole, pushed the acceptance columns past the half grid's edge
    (
        "LIVE_ACCEPTANCE",
        "#9 EAGLE-3 steps=1 topk=1 ndt=2 (chain s1 rerun)",
        ["accept_length", "tau_sim_last"],
        "HALF_GRID_PX",
    ),
    (
        "SERVING",
        "vLLM 0.33.0 (v1, VLLM_USE_V2_MODEL_RUNNER=0)",
        ["starts?", "blocks captured", "same as trained?", "what to change"],
        "GRID_PX",
    ),
    ("FINDINGS", "walker/llama31-8b-eagle3-gated@7e0bbd0", ["severity", "code", "message"], "GRID_PX"),
    (  # walk Q: the ratios sat past the grid's edge, 14th and 15th; the longest published default's name
        "DRAFT_PARAMS",
        "lmsys/SGLang-EAGLE3-Qwen3-30B-A3B-Instruct-2507-SpecForge-Nex",
        ["trainable", "stored", "draft_to_target", "draft_to_active"],
        "GRID_PX",
    ),
]


@pytest.mark.parametrize(("table_name", "name", "keys", "grid_name"), KEY_COLUMNS)
def test_key_columns_fit_the_grid_at_1400_px(table_name: str, name: str, keys: list[str], grid_name: str) -> None:
    table: tables.Table = getattr(tables, table_name)
    pinned = table.columns[0]
    assert pinned.pinned
    found = [table.get(k) for k in keys]
    cols = [c for c in found if c is not None]
    assert len(cols) == len(keys), keys
    widths = [_px(pinned, tables.pinned_px(table, [name], pinned.title))] + [_px(c) for c in cols]
    assert sum(widths) <= getattr(tables, grid_name), widths
    # the key columns come first, so the grid shows them before any other
    assert table.order([*reversed(keys), "other", pinned.name])[: len(keys) + 1] == [pinned.name, *keys]
    for c in cols:
        assert _px(c) >= _header_px(c), f"header {c.title!r} is cut"


def _shown(col: tables.Column) -> str:
    """The header as the grid draws it: a fitted column whole, a fixed one cut to what fits its width."""
    if col.width is None:
        return col.title
    room = _px(col) - 2 * tables.CELL_PADDING_PX
    return next(col.title[:n] for n in range(len(col.title), -1, -1) if tables.text_px(col.title[:n]) <= room)


@pytest.mark.parametrize("table_name", ["RUN_COMPARISON", "LIVE_ACCEPTANCE", "SERVING"])
def test_headers_are_distinct_as_drawn(table_name: str) -> None:
    """Two headers both drawn "accept leng..." (Live benchmark) tell the user nothing."""
    shown = [_shown(c) for c in getattr(tables, table_name).columns]
    assert len(set(shown)) == len(shown), shown


@pytest.mark.parametrize(
    ("table_name", "pooled", "mean"),
    [
        ("RUNS", "accept_length", "accept_length_mean"),
        ("RUN_COMPARISON", "accept length (pooled)", "accept length (mean)"),
    ],
)
def test_accept_length_headers_are_short_and_say_which_in_help(table_name: str, pooled: str, mean: str) -> None:
    """Two headers that both read "accept leng..." in a narrow column: short distinct labels, full text in help."""
    table: tables.Table = getattr(tables, table_name)
    p, m = table.get(pooled), table.get(mean)
    assert p is not None and m is not None
    assert (p.title, m.title) == ("AL pooled", "AL mean")
    assert p.help and "pooled" in p.help and m.help and "mean" in m.help


def test_the_served_rows_and_live_rows_are_all_described() -> None:
    """A column the page shows that a description does not name would fall back to the grid's own fit."""
    assert set(_serving_rows().columns) == {c.name for c in tables.SERVING.columns}
    live = curves.live_frame([])
    assert set(live.columns) == {c.name for c in tables.LIVE_ACCEPTANCE.columns}
    blocks = tables.SERVING.get("blocks captured")
    assert blocks is not None
    assert _px(blocks) >= tables.fit_px(_serving_rows()["blocks captured"])  # "outputs of blocks 1, 29, 57" whole


# --- 4. the parameters chart: fixed component colours, distinct trained? encodings ---------------------------------


def _params_spec(components: Sequence[str]) -> dict[str, Any]:
    frame = pd.DataFrame(
        {
            "draft": ["a"] * len(components),
            "component": list(components),
            "params": [10] * len(components),
            "trainable": (["frozen", "trainable", "mixed"] * len(components))[: len(components)],
        }
    )
    return charts.params_chart(frame, COMPONENTS).to_dict()


def _colour_of(spec: dict[str, Any]) -> dict[str, str]:
    scale = spec["encoding"]["color"]["scale"]
    return dict(zip(scale["domain"], scale["range"], strict=True))


def test_component_colours_are_fixed_whatever_else_is_drawn() -> None:
    """The theme's palette gave attention and mlp each other's colour in dark mode; an explicit one cannot."""
    few = _colour_of(_params_spec(["attention", "mlp"]))
    many = _colour_of(_params_spec(["embedding", "fc", "attention", "mlp", "norm", "lm_head"]))
    assert few["attention"] == many["attention"] and few["mlp"] == many["mlp"]
    assert list(many) == ["embedding", "fc", "attention", "mlp", "norm", "lm_head"]  # COMPONENTS order, only those
    assert len(set(charts.COMPONENT_COLOURS.values())) == len(charts.COMPONENT_COLOURS)
    for colour in charts.COMPONENT_COLOURS.values():
        for background in charts.THEME_BACKGROUNDS.values():
            assert charts.contrast(colour, background) >= 2.0, (colour, background)


def test_trained_mixed_frozen_differ_in_more_than_a_shade() -> None:
    enc = _params_spec(["embedding", "fc", "attention"])["encoding"]
    opacity, dash = enc["fillOpacity"], enc["strokeDash"]
    assert opacity["scale"]["domain"] == dash["scale"]["domain"] == ["trainable", "mixed", "frozen"]
    levels = opacity["scale"]["range"]
    assert min(abs(a - b) for a, b in zip(levels, levels[1:], strict=False)) >= 0.3  # not 1 / 0.75 / 0.4
    assert len({json.dumps(d) for d in dash["scale"]["range"]}) == 3  # solid, dashed, dotted outlines
    assert opacity["title"] == dash["title"]  # one legend shows both
    assert enc["stroke"]["scale"] == enc["color"]["scale"]  # the outline in the component's own colour


def _over(colour: str, alpha: float, background: str) -> str:
    """``colour`` drawn at ``alpha`` over ``background``, as the browser blends it."""
    a, b = (tuple(int(c.lstrip("#")[i : i + 2], 16) for i in (0, 2, 4)) for c in (colour, background))
    return "#" + "".join(f"{round(alpha * x + (1 - alpha) * y):02x}" for x, y in zip(a, b, strict=True))


def test_a_frozen_segment_is_outlined_at_full_strength_on_both_themes() -> None:
    """A frozen segment's fill is faint by design; its dotted outline is what shows it. Walk T: with the fill's
    opacity on the whole mark, the outline faded with it, and a walk saw the frozen embedding (#4c78a8 at 0.2
    over #0e1117) as a near-black bar on the dark theme."""
    enc = _params_spec(["embedding", "fc", "attention"])["encoding"]
    faint = enc.get("opacity") or {}
    levels = dict(zip(faint.get("scale", {}).get("domain", []), faint.get("scale", {}).get("range", []), strict=True))
    outline_alpha = levels.get("frozen", 1.0)  # a mark-wide opacity fades the outline too; a fill opacity does not
    fill = enc["fillOpacity"]["scale"] if "fillOpacity" in enc else faint["scale"]
    assert dict(zip(fill["domain"], fill["range"], strict=True))["frozen"] < 0.5  # still faint inside
    for name, colour in charts.COMPONENT_COLOURS.items():
        for theme, background in charts.THEME_BACKGROUNDS.items():
            seen = _over(colour, outline_alpha, background)
            assert charts.contrast(seen, background) >= 2.0, (name, theme, seen)


# --- 5. the speed charts keep their plot height --------------------------------------------------------------------


def _sweep_parts(predicted: bool, baseline: float | None) -> tuple[Any, Any]:
    measured = pd.DataFrame(
        {"num_steps": [2, 3], "tok_s": [257.8, 298.6], "accept_length": [2.67, 3.0], "baseline": False, "kind": "x"}
    )
    pred = (
        pd.DataFrame(
            {
                "num_steps": [1, 2, 3],
                "scenario": ["with AQ-MedAI/Kimi-K2-Instruct-eagle3's data volume"] * 3,
                "tok_s": [200.0, 250.0, 280.0],
                "accept_length": [1.8, 2.4, 2.9],
                "kind": "predicted",
            }
        )
        if predicted
        else None
    )
    return charts.sweep_chart_parts(measured, pred, baseline)


def test_speed_charts_fit_the_width_and_keep_the_plot_height() -> None:
    """Streamlit's default autosize fits titles and axes into ``height``: the plot kept ~85 of 240 px."""
    for part in _sweep_parts(predicted=True, baseline=96.7):
        spec = part.to_dict()
        assert spec["autosize"]["type"] == "fit-x" and spec["height"] >= 200
        legends = [
            n["encoding"]["color"]["legend"]
            for n in _nodes(spec)
            if "legend" in n.get("encoding", {}).get("color", {})
        ]
        assert legends and all(leg["orient"] == "bottom" for leg in legends)  # no width taken from the plot
    # stacked for exports, at a fixed width: nothing to fit
    measured = pd.DataFrame(
        {"num_steps": [2], "tok_s": [250.0], "accept_length": [2.5], "baseline": False, "kind": "x"}
    )
    stacked = charts.sweep_chart(measured).to_dict()
    assert "autosize" not in stacked and all(part["width"] == 300 for part in stacked["vconcat"])


@pytest.mark.parametrize(
    ("predicted", "baseline", "dashed", "red"),
    [(True, 96.7, True, True), (False, 96.7, False, True), (True, None, True, False), (False, None, False, False)],
)
def test_speed_subtitle_names_only_what_is_drawn(
    predicted: bool, baseline: float | None, dashed: bool, red: bool
) -> None:
    subtitle = " ".join(_sweep_parts(predicted, baseline)[0].to_dict()["title"]["subtitle"])
    assert ("dashed" in subtitle) is dashed and ("red line" in subtitle) is red


# --- 6. the learning curve's subtitle describes what is drawn ------------------------------------------------------


def _curve(samples: bool) -> curves.Curve:
    pts = [
        curves.CurvePoint(step=100 * i, samples_seen=1000.0 * i if samples else None, split="train",
                          acc=(0.8, 0.6, 0.4), tau_sim=1.0 + 0.1 * i)
        for i in range(1, 12)
    ]  # fmt: skip
    return curves.analyse(pts)


PUBLISHED = pd.DataFrame({"draft": ["a/b"], "samples": [1_400_000.0], "accept_length": [3.1], "source": ["card"]})


@pytest.mark.parametrize(("samples", "drawn"), [(True, True), (False, False)])
def test_published_drafts_are_named_only_when_drawn(samples: bool, drawn: bool) -> None:
    """On a steps axis published drafts (known by samples) cannot be placed: no diamonds, so no line naming them."""
    curve = _curve(samples)
    assert curve.evidence["x"] == ("samples" if samples else "steps")
    spec = charts.curve_chart(curve, published=PUBLISHED).to_dict()
    said = any("published" in line for line in spec["title"]["subtitle"])
    shown = any("published draft" in json.dumps(n.get("encoding", {}).get("tooltip", [])) for n in _nodes(spec))
    assert said is drawn and shown is drawn


# --- 7. the token-length histogram's axis fits the data ------------------------------------------------------------


def _walk_bins() -> tuple[list[float], list[int]]:
    """The walk's audit: 41 samples of 30 to 92 tokens in bins of 3 (audit.result.histogram)."""
    from collections import Counter

    from comparelib.audit.result import histogram

    lengths = Counter({30 + (i * 13) % 63: 1 for i in range(41)})
    h = histogram(lengths)
    return h["bins"], h["counts"]


@pytest.mark.parametrize(
    ("max_length", "rule"),
    [(2048, False), (4096, False), (128, True), (92, True), (64, True)],  # near or inside the data: drawn
)
def test_max_length_is_drawn_only_near_the_data(max_length: int, rule: bool) -> None:
    bins, counts = _walk_bins()
    spec = charts.length_histogram(bins, counts, max_length).to_dict()
    marks = [_mark(n) for n in _nodes(spec) if _mark(n)]
    assert ("rule" in marks) is rule
    if not rule:  # not drawn: said, so the user still sees where max_length is
        assert f"max_length {max_length:,}" in spec["title"]["text"]
        values = [r for ds in spec["datasets"].values() for r in ds]
        assert max(r.get("end", 0) for r in values) < max_length / 10  # nothing stretches the axis to it
