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
    names = set(speedup.sweep_chart_inputs(CROWDED)[0].values())
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
        # the acceptance chart's engine legend (its points' shapes) too
        engines = {r.engine for r in CROWDED if not r.is_baseline} if part is built[1] else set()
        assert shown == names | engines, shown ^ (names | engines)  # whole: none cut with "…"


def test_legend_names_the_algorithm_and_vllm_chains() -> None:
    said, models = speedup.sweep_chart_inputs(CROWDED)
    assert said[5] == "Llama-3.3-70B-Instruct · sglang EAGLE-3 bs=1 chain"
    assert said[9] == "Llama-3.3-70B-Instruct · sglang EAGLE-3 bs=1 tree topk=4 ndt=8"
    assert said[41] == "Qwen3-8B · vllm EAGLE-3 bs=16 chain"
    assert said[51] == "Qwen3-8B · vllm MTP bs=16 chain"
    built = charts.run_sweep_charts(CROWDED, said, models)
    assert built is not None
    drawn = {row["series"] for rows in built[0].to_dict()["datasets"].values() for row in rows if "series" in row}
    assert drawn == set(said.values())  # the chart draws the series as named: no second naming rule in charts


DSV3 = "deepseek-ai/DeepSeek-V3"


def _mtp(i: int, steps: int, engine: str, algorithm: str, draft: str | None) -> SimpleNamespace:
    return _stored(
        _run(i, 100.0 + i, bs=1, steps=steps, al=2.0, engine=engine),
        model=DSV3, speculative_algorithm=algorithm, draft_model=draft, topk=None if engine == "vllm" else 1,
    )  # fmt: skip


# every spelling of the target's own MTP layers: one line per engine, named by the registry's rule (the legend
# said "MTP" where the Overview and the run titles said "MTP (NEXTN)" for SGLang's)
MTP_SPELLINGS = [
    (_mtp(1, 2, "sglang", "EAGLE", DSV3), "sglang MTP (NEXTN) bs=1 chain"),  # as SGLang reports NEXTN
    (_mtp(2, 3, "sglang", "NEXTN", None), "sglang MTP (NEXTN) bs=1 chain"),
    (_mtp(3, 4, "sglang", "EAGLE", "deepseek-ai/deepseek-v3/"), "sglang MTP (NEXTN) bs=1 chain"),
    (_mtp(4, 2, "vllm", "mtp", None), "vllm MTP bs=1 chain"),
    (_mtp(5, 3, "vllm", "deepseek_mtp", None), "vllm MTP bs=1 chain"),
    (_mtp(6, 4, "vllm", "MTP", None), "vllm MTP bs=1 chain"),
]


def test_every_mtp_spelling_is_one_line_per_engine_named_as_the_registry_names_it() -> None:
    from comparelib.models import registry

    runs = [run for run, _ in MTP_SPELLINGS]
    series, _ = speedup.sweep_chart_inputs(runs)
    assert {r.id: series[r.id] for r in runs} == {run.id: said for run, said in MTP_SPELLINGS}
    for run, said in MTP_SPELLINGS:
        assert f" {registry.algorithm_label(run)} " in said


@pytest.mark.parametrize(
    ("algorithm", "draft", "engine", "named"),
    [
        ("EAGLE3", "/data/draft", "sglang", "EAGLE-3"),
        ("eagle3", "/data/draft", "vllm", "EAGLE-3"),
        ("EAGLE", "/data/draft", "sglang", "EAGLE"),
        ("EAGLE", "/models/DeepSeek-V3/", "sglang", "MTP (NEXTN)"),  # SGLang's NEXTN: the target as its own draft
        ("EAGLE", "/models/deepseek-v3", "sglang", "MTP (NEXTN)"),  # case aside
        ("NEXTN", None, "sglang", "MTP (NEXTN)"),
        ("mtp", None, "sglang", "MTP (NEXTN)"),  # stated on an import of a SGLang run
        ("NEXTN", None, None, "MTP (NEXTN)"),  # no engine recorded: as SGLang names it
        ("deepseek_mtp", None, "vllm", "MTP"),
        ("mtp", None, "vllm", "MTP"),
        ("MTP", None, None, "MTP"),
        ("ngram", None, "vllm", "n-gram"),
        ("draft_model", "/data/small", "vllm", "draft model"),
        ("STANDALONE", "/data/small", "sglang", "draft model"),
        ("unknown", None, "vllm", None),
        (None, None, "sglang", None),
    ],
)
def test_algorithm_labels(algorithm: str | None, draft: str | None, engine: str | None, named: str | None) -> None:
    """The one naming rule (``registry.algorithm_label``), which the legend, run titles and Overview use."""
    from comparelib.models import registry

    run = SimpleNamespace(
        speculative_algorithm=algorithm, draft_model=draft, model="/models/DeepSeek-V3", engine=engine
    )
    assert registry.algorithm_label(run) == named
