"""Live benchmark's sweep charts at 1400 px: the legend goes under the plot, whole, and says the algorithm.

On the right, a legend of long entries ("Qwen3-8B · sglang bs=16 chain max_tokens=256") took a half-page column's
width: the plot was ~110 px wide and entries were still cut. An EAGLE-3 line and an MTP line read alike, and vLLM
lines said no chain where SGLang's did. The charts are laid out by vl-convert (Vega's own layout) at a column's
width.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from comparelib import charts
from comparelib.analysis import speedup
from tests.test_charts_sweep_series import WALK, _run


def _stored(run: SimpleNamespace, **kw: Any) -> SimpleNamespace:
    """``run`` as the store holds it: vLLM runs have no topk (the server does not report one)."""
    return SimpleNamespace(**{**vars(run), **kw})


# two targets, two engines, EAGLE-3 and MTP, batch 1 and 16, imported runs at other settings: long entries
CROWDED = [
    *WALK,
    *(
        _stored(_run(40 + k, 300.0 + 40 * k, bs=16, steps=k, al=1.5 + 0.4 * k, engine="vllm"), topk=None,
                num_draft_tokens=None, model="Qwen/Qwen3-8B")
        for k in (1, 2, 3)
    ),
    *(
        _stored(_run(50 + k, 200.0 + 30 * k, bs=16, steps=k, al=1.7 + 0.3 * k, engine="vllm"), topk=None,
                num_draft_tokens=None, model="Qwen/Qwen3-8B", speculative_algorithm="mtp", draft_model=None)
        for k in (1, 2)
    ),
    _stored(_run(60, 180.0, bs=16, engine="vllm"), model="Qwen/Qwen3-8B"),
]  # fmt: skip

COLUMN_PX = (440, 600)  # a half-page column at 1400 px (the sidebar open, and closed)


def _scenegraph(chart: Any, width: int) -> dict[str, Any]:
    """Vega's own layout of ``chart`` in a column ``width`` px wide, as Streamlit sizes it (fit the width)."""
    import vl_convert as vlc

    spec = chart.to_dict()
    spec["width"], spec["autosize"] = width, {"type": "fit-x", "contains": "padding"}
    got = vlc.vegalite_to_scenegraph(spec)
    return json.loads(got) if isinstance(got, str) else got


def _legend_texts(node: Any, inside: bool = False) -> list[str]:
    found: list[str] = []
    if isinstance(node, dict):
        inside = inside or node.get("role") == "legend-label"
        if inside and node.get("marktype") == "text":
            found += [str(it.get("text")) for it in node.get("items", [])]
        else:
            for it in node.get("items", []) if isinstance(node.get("items"), list) else []:
                found += _legend_texts(it, inside)
    return found


@pytest.mark.parametrize("width", COLUMN_PX)
def test_sweep_plots_keep_the_columns_width_and_every_legend_entry_whole(width: int) -> None:
    built = charts.run_sweep_charts(CROWDED, *speedup.sweep_chart_inputs(CROWDED))
    assert built is not None and built[1] is not None
    names = set(charts.sweep_legend(CROWDED, speedup.sweep_chart_inputs(CROWDED)[0]).values())
    for part in built:
        legend = (
            part.to_dict()["layer"][0]["encoding"]["color"]["legend"]
            if "layer" in part.to_dict()
            else (part.to_dict()["encoding"]["color"]["legend"])
        )
        assert legend["orient"] == "bottom" and legend["labelLimit"] >= 400, legend
        plot = _scenegraph(part, width)["scenegraph"]["items"][0]
        assert plot["width"] >= 0.6 * width, f"plot {plot['width']:.0f} px of a {width} px chart"
        shown = set(_legend_texts(_scenegraph(part, width)["scenegraph"]))
        assert shown == names, shown ^ names  # whole: none cut with "…"


def test_legend_names_the_algorithm_and_vllm_chains() -> None:
    series, models = speedup.sweep_chart_inputs(CROWDED)
    said = charts.sweep_legend([r for r in CROWDED if not r.is_baseline], series)
    assert said[5] == "Llama-3.3-70B-Instruct · sglang EAGLE-3 bs=1 chain"
    assert said[9] == "Llama-3.3-70B-Instruct · sglang EAGLE-3 bs=1 tree topk=4 ndt=8"
    assert said[41] == "Qwen3-8B · vllm EAGLE-3 bs=16 chain"
    assert said[51] == "Qwen3-8B · vllm MTP bs=16 chain"


@pytest.mark.parametrize(
    ("algorithm", "draft", "named"),
    [
        ("EAGLE3", "/data/draft", "EAGLE-3"),
        ("eagle3", "/data/draft", "EAGLE-3"),
        ("EAGLE", "/data/draft", "EAGLE"),
        ("EAGLE", "/models/DeepSeek-V3/", "MTP"),  # SGLang's NEXTN: EAGLE with the target as its own draft
        ("NEXTN", None, "MTP"),
        ("deepseek_mtp", None, "MTP"),
        ("mtp", None, "MTP"),
        ("ngram", None, "n-gram"),
        ("unknown", None, None),
        (None, None, None),
    ],
)
def test_algorithm_names(algorithm: str | None, draft: str | None, named: str | None) -> None:
    run = SimpleNamespace(speculative_algorithm=algorithm, draft_model=draft, model="/models/DeepSeek-V3")
    assert charts.algorithm_name(run) == named
