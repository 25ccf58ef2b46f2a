"""The Benchmark page's num_steps sweep charts on the Llama-3.3-70B walk: one line per comparable setting, and
baseline labels that overprint neither each other nor the data.

The walk ran SGLang at batch 1 and 16, chains and a tree (topk 4, num_steps 5, 8 draft tokens), plus an
imported batch-16 run and baseline at other benchmark settings. Keyed on the engine alone, one "sglang" line
zig-zagged between ~85 and ~845 tok/s, the acceptance line joined the tree's 4.00 to a chain's 3.43, and the
baseline labels were crossed by those lines. The charts are rendered with vl-convert at a page column's size.
"""

from __future__ import annotations

import itertools
import re
from types import SimpleNamespace
from typing import Any

import pytest

from comparelib import charts
from comparelib.analysis import speedup  # noqa: E402

MODEL = "meta-llama/Llama-3.3-70B-Instruct"
DRAFT = "/data/llama70b-eagle3-480k"
APP = {"max_tokens": 96, "temperature": 0, "prompt_set": "bundled", "ignore_eos": False}
IMPORTED = {"max_tokens": 256, "prompt_set": "random"}


def _run(
    i: int,
    tok_s: float,
    *,
    bs: int,
    steps: int | None = None,
    al: float | None = None,
    topk: int = 1,
    ndt: int | None = None,
    labels: tuple[str, ...] = (),
    params: dict[str, Any] | None = None,
    engine: str = "sglang",
    draft: str = DRAFT,
) -> SimpleNamespace:
    base = steps is None
    return SimpleNamespace(
        id=i, num_steps=steps, output_tokens_per_s=tok_s, accept_length=al, title=f"#{i}", kind="measured",
        engine=engine, is_baseline=base, labels=list(labels), model=MODEL,
        params={"concurrency": bs, **(params or APP)}, server_config={}, notes={},
        speculative_algorithm=None if base else "EAGLE3", draft_model=None if base else draft,
        topk=None if base else topk, num_draft_tokens=None if base else (ndt or steps + 1),  # type: ignore[operator]
    )  # fmt: skip


# the walk's group llama70b-480k, as stored
WALK = [
    _run(1, 37.7, bs=1, labels=("baseline-bs1",)),
    _run(5, 76.0, bs=1, steps=2, al=2.40),
    _run(6, 82.2, bs=1, steps=3, al=2.74),
    _run(7, 90.1, bs=1, steps=4, al=3.20),
    _run(8, 89.2, bs=1, steps=5, al=3.43),
    _run(9, 92.1, bs=1, steps=5, al=4.00, topk=4, ndt=8),
    _run(10, 474.2, bs=16, labels=("baseline-bs16",)),
    _run(11, 845.5, bs=16, steps=3, al=2.74),
    _run(14, 420.0, bs=16, labels=("base-bs16",), params=IMPORTED),
    _run(15, 690.0, bs=16, steps=4, al=3.05, params=IMPORTED, draft="/models/llama70b-eagle3-480k"),
    _run(16, 843.2, bs=16, steps=5, al=4.00, topk=4, ndt=8),
]


def _datasets(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [row for rows in spec["datasets"].values() for row in rows if "series" in row]


# --- 1. one series per comparable setting -------------------------------------------------------------------------

SERIES_CASES = [
    # (runs, expected series by run id): the walk's settings, each its own line with a label that says which
    (WALK, {5: "sglang EAGLE-3 bs=1 chain", 6: "sglang EAGLE-3 bs=1 chain", 7: "sglang EAGLE-3 bs=1 chain",
            8: "sglang EAGLE-3 bs=1 chain",
            9: "sglang EAGLE-3 bs=1 tree topk=4 ndt=8", 11: "sglang EAGLE-3 bs=16 chain max_tokens=96",
            15: "sglang EAGLE-3 bs=16 chain max_tokens=256", 16: "sglang EAGLE-3 bs=16 tree topk=4 ndt=8"}),
    # one setting, two engines: the engine tells them apart
    ([_run(1, 90, bs=1, steps=2), _run(2, 95, bs=1, steps=3), _run(3, 80, bs=1, steps=2, engine="vllm")],
     {1: "sglang EAGLE-3 bs=1 chain", 2: "sglang EAGLE-3 bs=1 chain", 3: "vllm EAGLE-3 bs=1 chain"}),
    # trees with other numbers of draft tokens are other settings; a chain's follow num_steps
    ([_run(1, 90, bs=4, steps=3, topk=4, ndt=8), _run(2, 95, bs=4, steps=5, topk=4, ndt=8),
      _run(3, 97, bs=4, steps=5, topk=4, ndt=16), _run(4, 91, bs=4, steps=3), _run(5, 92, bs=4, steps=4)],
     {1: "sglang EAGLE-3 bs=4 tree topk=4 ndt=8", 2: "sglang EAGLE-3 bs=4 tree topk=4 ndt=8",
      3: "sglang EAGLE-3 bs=4 tree topk=4 ndt=16",
      4: "sglang EAGLE-3 bs=4 chain", 5: "sglang EAGLE-3 bs=4 chain"}),
    # settings alike in every named field but the draft: each line names its draft (the run ids did not say it)
    ([_run(1, 90, bs=1, steps=3), _run(2, 95, bs=1, steps=3, draft="/data/other")],
     {1: "llama70b-eagle3-480k · sglang EAGLE-3 bs=1 chain", 2: "other · sglang EAGLE-3 bs=1 chain"}),
    # alike in every named field, the draft too (another environment): the first run's id tells them apart
    ([_run(1, 90, bs=1, steps=3),
      SimpleNamespace(**{**vars(_run(2, 95, bs=1, steps=3)), "notes": {"environment": "b"}})],
     {1: "sglang EAGLE-3 bs=1 chain (#1)", 2: "sglang EAGLE-3 bs=1 chain (#2)"}),
    # a line of several runs alike with another: every run of it is named, not its first (walk BJ: "(#9)" for the
    # batch-8 line through #9, #10, #11)
    ([_run(1, 90, bs=1, steps=3), _run(2, 92, bs=1, steps=4), _run(3, 93, bs=1, steps=5),
      SimpleNamespace(**{**vars(_run(4, 95, bs=1, steps=3)), "notes": {"environment": "b"}})],
     {1: "sglang EAGLE-3 bs=1 chain (#1-#3)", 2: "sglang EAGLE-3 bs=1 chain (#1-#3)",
      3: "sglang EAGLE-3 bs=1 chain (#1-#3)", 4: "sglang EAGLE-3 bs=1 chain (#4)"}),
    # walks R and S: vLLM never reports its method; an import of the same draft typed EAGLE-3. Its runs name the
    # algorithm its other runs state, and at one setting they are one line (they read "vllm bs=1 chain" beside it)
    ([SimpleNamespace(**{**vars(_run(1, 60, bs=1, steps=2, engine="vllm")), "speculative_algorithm": None}),
      SimpleNamespace(**{**vars(_run(2, 64, bs=1, steps=3, engine="vllm")), "speculative_algorithm": "unknown"}),
      _run(3, 62, bs=1, steps=4, engine="vllm"), _run(4, 200, bs=4, steps=3, engine="vllm")],
     {1: "vllm EAGLE-3 bs=1 chain", 2: "vllm EAGLE-3 bs=1 chain", 3: "vllm EAGLE-3 bs=1 chain",
      4: "vllm EAGLE-3 bs=4 chain"}),
    # another draft's stated algorithm says nothing of this one's
    ([SimpleNamespace(**{**vars(_run(1, 60, bs=1, steps=2, engine="vllm")), "speculative_algorithm": None}),
      _run(2, 64, bs=1, steps=3, engine="vllm", draft="/data/other")],
     {1: "llama70b-eagle3-480k · vllm speculative (vLLM does not report the algorithm) bs=1 chain",
      2: "other · vllm EAGLE-3 bs=1 chain"}),  # the runs table's words for a speculation of no stated method
]  # fmt: skip


@pytest.mark.parametrize(("runs", "expected"), SERIES_CASES)
def test_sweep_series_one_per_comparable_setting(runs: list[SimpleNamespace], expected: dict[int, str]) -> None:
    assert speedup.sweep_series([r for r in runs if not r.is_baseline]) == expected


def test_walk_lines_neither_zig_zag_between_batch_sizes_nor_join_tree_and_chain() -> None:
    built = charts.run_sweep_charts(WALK, *speedup.sweep_chart_inputs(WALK))
    assert built is not None and built[1] is not None
    speed, accept = (part.to_dict() for part in built)
    for spec in (speed, accept):
        colour = [n["encoding"]["color"] for n in [spec, *spec.get("layer", [])] if "color" in n.get("encoding", {})]
        assert colour and all(c["field"] == "series" for c in colour)
        assert all(c["legend"]["labelLimit"] >= 200 for c in colour)  # "max_tokens=256" not cut to "…"
    by_series: dict[str, list[dict[str, Any]]] = {}
    for row in _datasets(speed):
        by_series.setdefault(row["series"], []).append(row)
    for rows in by_series.values():  # one line never spans batch 1 (~90 tok/s) and batch 16 (~800)
        tok_s = [r["output tok/s"] for r in rows]
        assert max(tok_s) < 2 * min(tok_s), rows
    at5 = {r["series"]: r["accept length"] for r in _datasets(accept) if r["num_steps"] == 5}
    # the legend names the algorithm (speedup.sweep_series, by registry.algorithm_label)
    assert at5["sglang EAGLE-3 bs=1 chain"] == pytest.approx(3.43)
    assert at5["sglang EAGLE-3 bs=1 tree topk=4 ndt=8"] == 4.0
    assert {"sglang EAGLE-3 bs=16 chain max_tokens=96", "sglang EAGLE-3 bs=1 tree topk=4 ndt=8"} <= set(by_series)


# --- 2. baseline labels overprint nothing -------------------------------------------------------------------------

FONT_PX = 11
PAGE_PLOT = (290, 220)  # the plot in a Benchmark page column at 1400 px (the 320 px chart less title and axis)
# vl-convert draws sans-serif text in Liberation Sans (Arial's widths, wider than the page's Source Sans)
SANS = "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf"


def _text_px(text: str) -> float:
    from PIL import ImageFont

    try:
        return float(ImageFont.truetype(SANS, FONT_PX).getlength(text))
    except OSError:  # no such font here: its widest average, capitals (6.3 px a character)
        return len(text) * 0.58 * FONT_PX


def _svg_layout(runs: list[SimpleNamespace]) -> dict[str, Any]:
    """The speed chart drawn at a page column's plot size: label boxes, point centres, line paths, rule heights."""
    built = charts.run_sweep_charts(runs, *speedup.sweep_chart_inputs(runs))
    assert built is not None
    svg = charts.chart_to_svg(built[0].properties(width=PAGE_PLOT[0], height=PAGE_PLOT[1]))
    labels = []
    for attrs, text in re.findall(r'<text (aria-label="output tok/s[^"]*"[^>]*)>([^<]*)</text>', svg):
        x, y = (float(v) for v in re.search(r"translate\(([-\d.e]+),([-\d.e]+)\)", attrs).groups())  # type: ignore[union-attr]
        width = _text_px(text)
        x0 = x - width if 'text-anchor="end"' in attrs else x
        fill = re.search(r'fill="([^"]+)"', attrs).group(1)  # type: ignore[union-attr]
        labels.append({"text": text, "box": (x0, x0 + width, y - 0.8 * FONT_PX, y + 0.25 * FONT_PX), "fill": fill})
    points = [
        tuple(float(v) for v in m)
        for m in re.findall(r'aria-roledescription="point" transform="translate\(([-\d.e]+),([-\d.e]+)\)"', svg)
    ]
    lines = [
        [tuple(float(v) for v in xy.split(",")) for xy in re.findall(r"[-\d.e]+,[-\d.e]+", d)]
        for d in re.findall(r'aria-roledescription="line mark" d="([^"]+)"', svg)
    ]
    rule = r'aria-roledescription="rule mark" transform="translate\(0,([-\d.e]+)\)"'
    rules = [float(y) for y in re.findall(rule, svg)]
    return {"labels": labels, "points": points, "lines": lines, "rules": rules}


def _hit(box: tuple[float, float, float, float], x: float, y: float, pad: float = 0.0) -> bool:
    x0, x1, y0, y1 = box
    return x0 - pad <= x <= x1 + pad and y0 - pad <= y <= y1 + pad


CROWDED = [  # steps 1..10 fill the plot's right end at the baselines' height: the labels find room elsewhere
    *[_run(i, 120.0 - 2 * i, bs=1, steps=i, al=2.0 + 0.1 * i) for i in range(1, 11)],  # 100 tok/s at 10 steps
    _run(20, 96.0, bs=1, labels=("baseline-bs1",)),
    _run(21, 60.0, bs=1, labels=("other-run", "NCCL_PROTO=LL", "NCCL_ALGO=Ring", "NCCL_P2P_LEVEL=SYS")),
]


@pytest.mark.parametrize("runs", [WALK, CROWDED], ids=["walk", "crowded"])
def test_baseline_labels_overprint_no_label_point_line_or_rule(runs: list[SimpleNamespace]) -> None:
    got = _svg_layout(runs)
    labels = got["labels"]
    for i, a in enumerate(labels):
        ax0, ax1, ay0, ay1 = a["box"]
        assert 0 <= ax0 and ax1 <= PAGE_PLOT[0], a  # inside the plot: not over the axis or the legend
        for b in labels[i + 1 :]:
            bx0, bx1, by0, by1 = b["box"]
            assert not (ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1), (a, b)
        assert not any(_hit(a["box"], x, y, pad=4.5) for x, y in got["points"]), a  # a point's radius
        for line in got["lines"]:
            for (x0, y0), (x1, y1) in zip(line, line[1:], strict=False):
                assert not any(_hit(a["box"], x0 + (x1 - x0) * k / 50, y0 + (y1 - y0) * k / 50) for k in range(51)), a
        assert not any(ay0 < y < ay1 for y in got["rules"]), a  # no dashed rule through the text
        for background in charts.THEME_BACKGROUNDS.values():  # light and dark
            assert charts.contrast(a["fill"], background) >= 4.0
    assert len(labels) >= sum(r.is_baseline for r in runs)  # a line per baseline (a long name wraps onto more)


def test_walk_baselines_at_batch_16_stack_over_their_rules() -> None:
    """#10 (474 tok/s) and #14 (420) are ~14 px apart on the page: one stack, read top down as the rules are."""
    labels = _svg_layout(WALK)["labels"]
    tops = {lab["text"]: lab["box"][2] for lab in labels}
    assert tops["#10 sglang baseline-bs16"] < tops["#14 sglang base-bs16"]  # #10's higher rule: the top line
    assert "#1 sglang baseline-bs1" in tops  # "baseline-bs1" already says baseline: no second "baseline"


def _y_scales(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [n["encoding"]["y"] for n in spec.get("layer", [spec]) if "y" in n.get("encoding", {})]


@pytest.mark.parametrize(
    ("runs", "log"),
    [(WALK, True), (CROWDED, False), ([r for r in WALK if r.params["concurrency"] == 16], False)],
    ids=["bs1-and-bs16", "one-batch", "bs16-only"],
)
def test_batch_1_beside_batch_16_is_drawn_on_a_log_axis(runs: list[SimpleNamespace], log: bool) -> None:
    """On one linear axis the walk's batch-1 sweep (76 to 90 tok/s) lay flat at the foot of batch 16's 845: its
    peak at 4 steps could not be seen. A group spanning 4x or more is drawn on a log axis, and says so."""
    built = charts.run_sweep_charts(runs, *speedup.sweep_chart_inputs(runs))
    assert built is not None
    ys = [y for y in _y_scales(built[0].to_dict()) if "title" in y]  # the labels' layers share the lines' scale
    assert ys and all((y.get("scale", {}).get("type") == "log") == log for y in ys), ys
    assert all(y["title"].endswith("(log scale)") == log for y in ys)
    if log:  # every point and rule on the axis, the labels on their own rules (overprinting: the test above)
        (lo, hi) = {tuple(y["scale"]["domain"]) for y in ys}.pop()
        tok_s = [float(r.output_tokens_per_s) for r in runs]
        assert lo < min(tok_s) and max(tok_s) < hi
        labels = charts.run_sweep_charts(runs, *speedup.sweep_chart_inputs(runs))[0].to_dict()  # type: ignore[index]
        hung = {row["output tok/s"] for row in _datasets_all(labels) if "baseline" in row and "align" in row}
        assert hung <= {float(r.output_tokens_per_s) for r in runs if r.is_baseline}, hung


def _datasets_all(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [row for rows in spec["datasets"].values() for row in rows]


# --- 3. baselines close in tok/s: their labels keep a gap ---------------------------------------------------------

LABEL_GAP_PX = 2.0  # between two labels' lines (their fonts' full height, ascent to descent)


def _close_baselines(gap: float, *, above_data: bool) -> list[SimpleNamespace]:
    """A vLLM and an SGLang baseline ``gap`` tok/s apart at batch 1, with a sweep above them (or across them)."""
    base = [
        _run(1, 80.0, bs=1, labels=("baseline-b1",), engine="vllm"),
        _run(12, 80.0 + gap, bs=1, labels=("sglang-baseline",)),
    ]
    tok = (lambda k: 95.0 + 3 * k) if above_data else (lambda k: 60.0 + 8 * k)
    sweep = [_run(20 + k, tok(k), bs=1, steps=k, al=2.0 + 0.2 * k) for k in range(1, 6)]
    vllm = [_run(30 + k, tok(k) - 2, bs=1, steps=k, al=2.0 + 0.2 * k, engine="vllm") for k in range(1, 6)]
    return [*base, *sweep, *vllm]


def _label_lines(runs: list[SimpleNamespace], width: int) -> list[tuple[str, float, float, float, float]]:
    """Each baseline label's line as vl-convert lays it out in a page column ``width`` px wide: (text, x0, x1, top,
    bottom), top to bottom of the font's full height (ascent and descent) around the line's baseline."""
    from PIL import ImageFont

    from tests.test_sweep_legend import _scenegraph

    try:
        font = ImageFont.truetype(SANS, FONT_PX)
        ascent, descent = (float(v) for v in font.getmetrics())
    except OSError:  # Liberation Sans' metrics
        font, ascent, descent = None, 0.905 * FONT_PX, 0.212 * FONT_PX
    built = charts.run_sweep_charts(runs, *speedup.sweep_chart_inputs(runs))
    assert built is not None
    found: list[dict[str, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("marktype") == "text":
                found.extend(i for i in node.get("items", []) if "baseline: " in str(i.get("description")))
            for child in node.get("items", []) if isinstance(node.get("items"), list) else []:
                walk(child)

    walk(_scenegraph(built[0], width)["scenegraph"])
    out = []
    for it in found:
        y = float(it["y"]) + float(it.get("dy", 0))
        # Vega's baselines: "bottom" puts the text's bottom (0.21 em under the alphabetic baseline) at y, "top" its
        # top (0.79 em over it)
        alpha = y - 0.21 * FONT_PX if it.get("baseline") == "bottom" else y + 0.79 * FONT_PX
        text = str(it["text"])
        wide = _text_px(text)
        x = float(it["x"]) + float(it.get("dx", 0))
        x0 = x - wide if it.get("align") == "right" else x
        out.append((text, x0, x0 + wide, alpha - ascent, alpha + descent))
    return out


@pytest.mark.parametrize("gap", [0.0, 0.5, 2.0, 4.0, 8.0])
@pytest.mark.parametrize("above_data", [True, False], ids=["sweep-above", "sweep-across"])
@pytest.mark.parametrize("width", [440, 600])
def test_labels_of_baselines_close_in_tok_s_keep_a_gap(gap: float, above_data: bool, width: int) -> None:
    """A walk's group: "#1 vllm baseline-b1" and "#12 sglang sglang-baseline" (80 and ~80 tok/s) were stacked one
    line height (13 px) apart, an 11 px font's full height: the two lines touched and read as one blur."""
    lines = _label_lines(_close_baselines(gap, above_data=above_data), width)
    assert {t for t, *_ in lines} == {"#1 vllm baseline-b1", "#12 sglang sglang-baseline"}
    for (ta, ax0, ax1, at, ab), (tb, bx0, bx1, bt, bb) in itertools.combinations(lines, 2):
        if ax0 < bx1 and bx0 < ax1:  # one above the other
            apart = max(bt - ab, at - bb)
            assert apart >= LABEL_GAP_PX, f"{ta!r} and {tb!r} {apart:.1f} px apart"
