"""Chart specs (marks, log scale, encodings, dashed predictions) and the offline exports."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from comparelib import charts
from comparelib.analysis import (
    scaling,
    speedup,  # noqa: E402
)
from comparelib.errors import InputError

KEY = "steps=3,topk=1,draft=4,bs=8,sglang"


def _layers(spec: dict) -> list[dict]:
    return spec.get("layer", [])


def _mark(layer: dict) -> str:
    m = layer["mark"]
    return m["type"] if isinstance(m, dict) else m


@pytest.fixture(scope="module")
def scaling_spec() -> dict:
    pts = scaling.published_points()
    own = pd.DataFrame(
        [
            scaling.own_point(
                draft="own", benchmark="gsm8k", accept_length=2.1, setting_key=KEY, chain="(3,1,4)", samples=37_000
            )
        ],
        columns=list(scaling.POINT_COLUMNS),
    )
    pts = scaling.scaling_points(pts, own=own)
    sel = scaling.select(pts, benchmark="gsm8k", setting_key=KEY)
    f = scaling.fit(sel.points[sel.points["kind"] == "published"])
    chart = charts.scaling_chart(
        pts, benchmark="gsm8k", setting_key=KEY, band=scaling.band(f, clip=True), own_volume=37_000
    )
    return json.loads(charts.chart_to_vegalite_json(chart))


def test_scaling_chart_layers_and_log_scale(scaling_spec: dict) -> None:
    layers = _layers(scaling_spec)
    assert [_mark(layer) for layer in layers] == ["area", "line", "rule", "point", "point"]  # points over the rule
    for layer in layers:
        assert layer["encoding"]["x"]["scale"]["type"] == "log"
    grey, coloured = layers[3], layers[4]
    assert grey["mark"]["color"] == charts.GREY
    # one colour for the chosen benchmark, violet for yours: no benchmark legend with entries no point is drawn in
    assert coloured["encoding"]["color"]["field"] == "kind"
    assert coloured["encoding"]["color"]["scale"]["range"] == [charts.CHOSEN_COLOUR, charts.OWN_COLOUR]
    assert coloured["encoding"]["shape"]["field"] == "kind"
    assert coloured["encoding"]["shape"]["scale"]["domain"] == ["published", "own"]
    tips = {t["field"] for t in coloured["encoding"]["tooltip"]}
    assert {"draft", "benchmark", "setting_key", "source"} <= tips
    assert coloured["encoding"]["y"]["field"] == "accept_length"
    assert any(
        "grey: other benchmarks or other settings, not comparable" in line
        for line in scaling_spec["title"]["subtitle"]
    )


def test_scaling_chart_data_splits_settings(scaling_spec: dict) -> None:
    rows = next(iter(scaling_spec["datasets"].values()))
    # every dataset row carries whether it is at the chosen setting; the own point is there as "own"
    data = [r for ds in scaling_spec["datasets"].values() for r in ds if "comparable" in r]
    assert {r["comparable"] for r in data} == {
        "same setting",
        "other setting (not comparable)",
        "other benchmark (not comparable)",
    }
    assert any(r["kind"] == "own" and r["samples"] == 37_000 for r in data)
    assert all(r["setting_key"] == KEY for r in data if r["comparable"] == "same setting")
    assert rows


def test_your_runs_at_another_setting_are_hollow(scaling_spec: dict) -> None:
    """Walk N: a tree run's 4.36 sat as a filled diamond on a chain (3,1,4) chart, read as comparable."""
    enc = _layers(scaling_spec)[4]["encoding"]
    fill = enc["fillOpacity"]
    assert "own" in fill["condition"]["test"] and "same setting" in fill["condition"]["test"]
    assert (fill["condition"]["value"], fill["value"]) == (0, 1)
    assert enc["stroke"]["condition"]["value"] == charts.OWN_COLOUR
    assert any(
        "hollow: on other prompts or at another setting, not comparable" in line
        for line in scaling_spec["title"]["subtitle"]
    )


def test_scaling_chart_rejects_bad_axis() -> None:
    with pytest.raises(InputError):
        charts.scaling_chart(scaling.empty_points(), benchmark="gsm8k", setting_key=None, x="flops")


@pytest.fixture(scope="module")
def sweep_chart():  # type: ignore[no-untyped-def]
    points = [
        speedup.SweepPoint(
            k, 1000 * speedup.geometric_accept(0.7, k) / (20 + 1.5 * k), speedup.geometric_accept(0.7, k), run_id=k
        )
        for k in (1, 2, 4)
    ]
    model = speedup.fit_sweep(points, baseline_tok_s=50.0)
    measured = pd.DataFrame(
        [
            {
                "num_steps": p.num_steps,
                "tok_s": p.tok_s,
                "accept_length": p.accept_length,
                "baseline": False,
                "kind": "measured",
            }
            for p in points
        ]
    )
    return charts.sweep_chart(measured, speedup.what_if(model, 3.2, at_steps=3), model.baseline_tok_s)


def test_sweep_chart_dashes_predictions_only(sweep_chart) -> None:  # type: ignore[no-untyped-def]
    spec = json.loads(charts.chart_to_vegalite_json(sweep_chart))
    left, right = spec["vconcat"]  # stacked: side by side the second was clipped
    pred_line, measured_pts, baseline = left["layer"]
    assert _mark(pred_line) == "line" and pred_line["encoding"]["strokeDash"]["field"] == "kind"
    assert pred_line["encoding"]["strokeDash"]["scale"]["domain"] == ["predicted"]
    assert _mark(measured_pts) == "point" and "strokeDash" not in measured_pts["encoding"]
    assert _mark(baseline) == "rule" and baseline["encoding"]["y"]["field"] == "tok_s"
    assert _mark(right["layer"][0]) == "line" and right["layer"][0]["encoding"]["y"]["field"] == "accept_length"


def test_exports_png_svg_offline(sweep_chart) -> None:  # type: ignore[no-untyped-def]
    png = charts.chart_to_png(sweep_chart)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000
    svg = charts.chart_to_svg(sweep_chart)
    assert "<svg" in svg and "num_steps" in svg
    assert isinstance(charts.export(sweep_chart, "vega-lite"), str)
    with pytest.raises(InputError):
        charts.export(sweep_chart, "gif")


def _example_runs(tmp_path):  # type: ignore[no-untyped-def]
    from comparelib.live.store import Store

    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    store.ensure_examples()
    return store.runs()


def test_text_is_readable_in_light_and_dark_themes(scaling_spec: dict, sweep_chart, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Every colour set on text has contrast on both Streamlit backgrounds; the rest is left to the theme."""
    speed, accept = charts.run_sweep_charts(
        _example_runs(tmp_path), *speedup.sweep_chart_inputs(_example_runs(tmp_path))
    )
    specs = [scaling_spec, json.loads(charts.chart_to_vegalite_json(sweep_chart)), speed.to_dict(), accept.to_dict()]
    found = [c for spec in specs for c in charts.text_colours(spec)]
    assert charts.NEUTRAL in found  # the subtitle and the baseline labels
    for colour in found:
        for theme, background in charts.THEME_BACKGROUNDS.items():
            assert charts.contrast(colour, background) >= 4.0, (colour, theme)
    # the old dark-grey text would fail in the dark theme: the check can tell
    assert charts.contrast("#555555", charts.THEME_BACKGROUNDS["dark"]) < 3.0
    assert '"titleColor"' not in json.dumps(specs) and '"labelColor"' not in json.dumps(specs)


CONTRAST_CASES = [("#ffffff", "#000000", 21.0), ("#7a7a7a", "#ffffff", 4.3), ("#7a7a7a", "#0e1117", 4.3)]


@pytest.mark.parametrize(("a", "b", "ratio"), CONTRAST_CASES)
def test_contrast_ratio(a: str, b: str, ratio: float) -> None:
    assert charts.contrast(a, b) == pytest.approx(ratio, abs=0.15)


def test_sweep_chart_fits_a_narrow_column(sweep_chart) -> None:  # type: ignore[no-untyped-def]
    spec = json.loads(charts.chart_to_vegalite_json(sweep_chart))
    assert "hconcat" not in spec and all(part["width"] <= 320 for part in spec["vconcat"])


def test_length_histogram_marks_max_length_over_the_bins() -> None:
    spec = charts.length_histogram([0, 100, 200, 400], [5, 3, 1], max_length=256).to_dict()
    bars, rule = _layers(spec)
    assert (_mark(bars), _mark(rule)) == ("bar", "rule")
    assert bars["encoding"]["x"]["bin"] == "binned" and bars["encoding"]["x2"]["field"] == "end"
    datasets = spec["datasets"]
    rows = [r for rows in datasets.values() for r in rows]
    assert {"start": 200, "end": 400, "samples": 1} in rows  # last bin closes at the last edge
    assert {"max_length": 256} in rows


def test_domain_and_params_charts_keep_their_order() -> None:
    dom = charts.domain_chart({"code": 7, "math": 2, "other": 1}).to_dict()
    assert dom["encoding"]["y"]["sort"] is None  # the audit's order, not alphabetical
    frame = pd.DataFrame(
        {
            "draft": ["a", "a"],
            "component": ["embedding", "lm_head"],
            "params": [10, 5],
            "trainable": ["frozen", "trainable"],
        }
    )
    spec = charts.params_chart(frame, ["embedding", "midlayer", "lm_head"]).to_dict()
    assert spec["encoding"]["color"]["sort"] == ["embedding", "midlayer", "lm_head"]
    assert spec["encoding"]["fillOpacity"]["scale"]["domain"] == ["trainable", "mixed", "frozen"]
    assert spec["encoding"]["fillOpacity"]["legend"]["symbolFillColor"] == charts.NEUTRAL  # not black on a dark page
    assert spec["height"] >= 300  # both legends fit, even for one draft


def test_params_chart_stacks_its_segments_in_the_legends_order() -> None:
    """Walk AY: the stacks read attention, embedding, fc, lm_head, mlp, norm (alphabetical) beside a legend in the
    page's order (embedding, fc, attention, ...)."""
    order = ["embedding", "fc", "attention", "mlp", "norm", "lm_head"]
    frame = pd.DataFrame(
        {
            "draft": ["a"] * 6,
            "component": sorted(order),
            "params": [1, 2, 3, 4, 5, 6],
            "trainable": ["trainable"] * 6,
        }
    )
    spec = charts.params_chart(frame, order).to_dict()
    assert spec["encoding"]["order"] == {"field": "stack", "type": "quantitative"}, spec["encoding"]["order"]
    rows = next(iter(spec["datasets"].values()))
    assert (
        sorted(rows, key=lambda r: r["stack"])
        and [r["component"] for r in sorted(rows, key=lambda r: r["stack"])]
        == spec["encoding"]["color"]["scale"]["domain"]
        == order
    )


def test_plan_charts_band_target_and_symlog_cost() -> None:
    band = pd.DataFrame(
        {"samples": [1e4, 1e5, 1e6], "al": [2.0, 2.6, 3.1], "low": [1.8, 2.4, 2.8], "high": [2.2, 2.8, 3.3]}
    )
    points = pd.DataFrame(
        {"samples": [3e4, 1e6], "al": [2.3, 3.2], "kind": ["yours", "published"], "label": ["a", "b"]}
    )
    spec = json.loads(
        charts.chart_to_vegalite_json(
            charts.plan_curve_chart(band, points, target_al=3.0, samples_needed=(6e5, 3e5, None), steps=3)
        )
    )
    marks = [_mark(layer) for layer in _layers(spec)]
    assert marks[:3] == ["area", "line", "point"] and marks.count("rule") == 2 and "rect" in marks
    assert spec["layer"][1]["encoding"]["x"]["scale"]["type"] == "log"
    assert charts.text_colours(spec) == [charts.NEUTRAL]
    assert spec["title"]["text"] == "Acceptance length vs training samples: the plan's fit"
    # a fit of your training log: its x is samples seen (walk Q read a 10-epoch log's samples as unique)
    seen = json.loads(
        charts.chart_to_vegalite_json(
            charts.plan_curve_chart(band, points, target_al=3.0, samples_needed=(6e5, 3e5, None), steps=3, seen=True)
        )
    )
    assert seen["title"]["text"] == "Acceptance length vs training samples seen: the plan's fit"
    assert seen["layer"][1]["encoding"]["x"]["title"] == "training samples seen (log scale)"
    assert "samples seen needed 600,000 (300,000..unbounded)" in json.dumps(seen)
    frame = pd.DataFrame(
        {
            "rank": [1, 2],
            "option": ["more data", "num_steps"],
            "kind": ["more-data", "num-steps"],
            "gpu_hours": [400.0, 0.0],
            "gpu_hours_low": [200.0, 0.0],
            "gpu_hours_high": [None, 0.0],
            "gain_tok_s": [30.0, 1.0],
        }
    )
    cost = json.loads(charts.chart_to_vegalite_json(charts.plan_cost_chart(frame, rank_batch=8)))
    assert cost["layer"][1]["encoding"]["x"]["scale"]["type"] == "symlog"  # a free change sits at 0
    assert cost["layer"][1]["encoding"]["y"]["title"] == "tok/s gained at batch 8"
    assert charts.text_colours(cost) == [charts.NEUTRAL]


def _all_nodes(spec: dict) -> list[dict]:
    out = []

    def walk(node: dict) -> None:
        out.append(node)
        for child in node.get("layer", []) + node.get("vconcat", []) + node.get("hconcat", []):
            walk(child)

    walk(spec)
    return out


def test_sweep_charts_split_engines_and_do_not_zoom_into_noise() -> None:
    from types import SimpleNamespace

    def run(i: int, engine: str, acc: float) -> SimpleNamespace:
        return SimpleNamespace(
            id=i, num_steps=3 + i % 2, output_tokens_per_s=700.0 + i, accept_length=acc, title=f"#{i}",
            kind="measured", engine=engine, is_baseline=False,
        )  # fmt: skip

    runs = [run(1, "sglang", 2.50), run(2, "vllm", 2.51), run(3, "sglang", 2.505)]
    speed, accept = charts.run_sweep_charts(runs, *speedup.sweep_chart_inputs(runs))
    assert accept is not None
    spec = accept.to_dict()
    assert spec["encoding"]["color"]["field"] == "series"  # one series per setting, the engine among them
    rows = next(iter(spec["datasets"].values()))
    # vLLM drafts a chain (speedup.sweep_series); a method no run records is named as the runs table names it
    assert {r["series"] for r in rows} == {
        "sglang speculative (algorithm not recorded)",
        "vllm speculative (vLLM does not report the algorithm) chain",
    }
    domain = spec["encoding"]["y"]["scale"]["domain"]
    assert domain[1] - domain[0] >= charts.MIN_ACCEPT_SPAN  # 2.50 to 2.51 does not fill the height
    assert domain[0] <= 2.50 and domain[1] >= 2.51
    line = [n for n in _all_nodes(speed.to_dict()) if n.get("encoding", {}).get("color")]
    assert line and line[0]["encoding"]["color"]["field"] == "series"


def test_learning_curve_reads_on_the_dark_theme_and_names_the_live_line() -> None:
    from comparelib.analysis import curves

    pts = [curves.CurvePoint(step=i, samples_seen=1000.0 * i, split="eval" if i % 2 else "train",
                             acc=(0.8, 0.6, 0.4), tau_sim=1.0 + 0.1 * i) for i in range(1, 12)]  # fmt: skip
    curve = curves.analyse(pts)
    live = pd.DataFrame({"run": ["#1 EAGLE3 steps=3"], "accept_length": [2.1]})
    spec = charts.curve_chart(curve, live=live).to_dict()
    title = spec["title"]
    assert isinstance(title["subtitle"], list) and all(len(line) < 60 for line in title["subtitle"])
    for bg in charts.THEME_BACKGROUNDS.values():
        assert charts.contrast(title["subtitleColor"], bg) >= 3.0
        for colour in charts.SPLIT_COLOURS:
            assert charts.contrast(colour, bg) >= 2.0, (colour, bg)
    dashed = [n for n in _all_nodes(spec) if "strokeDash" in n.get("encoding", {})]
    assert dashed, "the live line has a legend entry"
    legend = dashed[0]["encoding"]["strokeDash"]["legend"]
    assert legend["symbolStrokeColor"] == charts.LIVE_COLOUR


@pytest.mark.parametrize(
    ("splits", "legend"),
    [
        (("eval",), ["eval"]),  # walk BB: an eval-only log listed "train" in the legend
        (("train",), ["train"]),
        (("train", "eval"), ["train", "eval"]),
    ],
)
def test_learning_curve_legend_lists_the_splits_logged(splits: tuple[str, ...], legend: list[str]) -> None:
    from comparelib.analysis import curves

    pts = [curves.CurvePoint(step=i, samples_seen=1000.0 * i, split=splits[i % len(splits)],
                             acc=(0.8, 0.6, 0.4), tau_sim=1.0 + 0.1 * i) for i in range(1, 12)]  # fmt: skip
    spec = charts.curve_chart(curves.analyse(pts)).to_dict()
    coloured = [n for n in _all_nodes(spec) if n.get("encoding", {}).get("color", {}).get("field") == "split"]
    scale = coloured[0]["encoding"]["color"]["scale"]
    assert scale["domain"] == legend
    assert scale["range"] == [dict(zip(("train", "eval"), charts.SPLIT_COLOURS, strict=True))[s] for s in legend]


def test_the_engine_legends_symbols_read_on_both_themes() -> None:
    """Walks BW 2, BX 6: the engine's shape legend took Vega's default black symbols, invisible in the dark theme."""
    from types import SimpleNamespace

    def run(i: int, engine: str, acc: float) -> SimpleNamespace:
        return SimpleNamespace(
            id=i, num_steps=1 + i % 3, output_tokens_per_s=700.0 + i, accept_length=acc, title=f"#{i}",
            kind="measured", engine=engine, is_baseline=False,
        )  # fmt: skip

    runs = [run(1, "sglang", 1.8), run(2, "sglang", 2.4), run(3, "vllm", 2.9)]
    _speed, accept = charts.run_sweep_charts(runs, *speedup.sweep_chart_inputs(runs))
    assert accept is not None
    shapes = [n["encoding"]["shape"] for n in _all_nodes(accept.to_dict()) if "shape" in n.get("encoding", {})]
    assert shapes and all(s.get("field") == "engine" for s in shapes), shapes
    for s in shapes:
        legend = s["legend"]
        for key in ("symbolFillColor", "symbolStrokeColor"):
            for bg in charts.THEME_BACKGROUNDS.values():
                assert charts.contrast(legend[key], bg) >= 3.0, (key, legend.get(key), bg)
