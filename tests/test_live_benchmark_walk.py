"""Live benchmark and Compare drafts on a new user's Qwen3-8B walk (1400x900, light and dark).

The group: a baseline (#1), your draft's chain sweep num_steps 1..4 (#2-#5), trees topk 4 with 8 and 16 draft
tokens (#6, #7), and two runs of the published RedHatAI/Qwen3-8B-speculator.eagle3 (#8, #9). The walk found:

1. both sweep charts squashed: Streamlit's theme fits the whole chart, legend and title included, into its
   height (autosize "fit"), so the legend under the plot took the plot's height (16 px of tok/s, one y label)
   and pushed the titles out at the top;
2. legend entries "chain (#2)" and "chain (#8)": your draft's chain and the published draft's read alike;
3. "Compare runs" left your num_steps 1 and 2 runs out without a word, and "Per-request results" opened on the
   published draft's run #9;
4. Compare drafts opened with an empty target for a draft whose model card names its base_model (Overview knew
   it), and the lint said the aux layer ids could not be checked.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from comparelib import charts, settings
from comparelib.analysis import speedup
from comparelib.live.store import Store
from comparelib.models import registry
from tests.fixtures import page_app
from tests.test_sweep_legend import CROWDED

ROOT = Path(__file__).resolve().parents[1]
QWEN = "Qwen/Qwen3-8B"
MINE = "acme/qwen3-8b-eagle3"
PUBLISHED = "RedHatAI/Qwen3-8B-speculator.eagle3"
GROUP = "qwen3-8b"

# Streamlit 1.67's Vega-Lite theme (frontend CustomTheme: fonts of 16/14/12 px, spacing 2/8/16 px) with what
# draws the layout: it fits the whole chart into its height ("fit") unless a chart sets its own autosize.
STREAMLIT_THEME: dict[str, Any] = {
    "autosize": {"type": "fit", "contains": "padding"},
    "title": {"align": "left", "anchor": "start", "fontSize": 16, "fontWeight": 600, "orient": "top", "offset": 26},
    "axis": {
        "labelFontSize": 12, "titleFontSize": 14, "ticks": False, "domain": False, "labelLimit": 100,
        "titlePadding": 16, "labelPadding": 16, "labelSeparation": 2, "labelOverlap": True, "labelFlush": True,
    },
    "legend": {
        "labelFontSize": 14, "titleFontSize": 14, "titlePadding": 8, "labelPadding": 16, "columnPadding": 8,
        "rowPadding": 2, "padding": 8,
    },
    "view": {"strokeWidth": 0, "stroke": "transparent", "continuousHeight": 350, "continuousWidth": 400},
}  # fmt: skip
COLUMN_PX = (440, 600)  # a half-page column at 1400 px (the sidebar open, and closed)


def _run(i: int, tok_s: float, steps: int | None = None, al: float | None = None, **kw: Any) -> SimpleNamespace:
    base = steps is None
    return SimpleNamespace(
        id=i, num_steps=steps, output_tokens_per_s=tok_s, accept_length=al, title=f"#{i}", kind="measured",
        engine="sglang", is_baseline=base, labels=[], model=QWEN, server_config={}, notes={},
        params={"concurrency": 1, "max_tokens": 256}, speculative_algorithm=None if base else "EAGLE3",
        draft_model=None if base else kw.get("draft", MINE), topk=None if base else kw.get("topk", 1),
        num_draft_tokens=None if base else kw.get("ndt", steps + 1),  # type: ignore[operator]
    )  # fmt: skip


WALK = [
    _run(1, 95.0),
    *(_run(i, 120.0 + 12 * i, i - 1, 1.6 + 0.45 * (i - 1)) for i in (2, 3, 4, 5)),
    _run(6, 170.0, 3, 3.1, topk=4, ndt=8),
    _run(7, 166.0, 3, 3.3, topk=4, ndt=16),
    _run(8, 160.0, 3, 2.9, draft=PUBLISHED),
    _run(9, 164.0, 4, 3.2, draft=PUBLISHED),
]


# --- 1. the sweep charts keep their plot under Streamlit's theme --------------------------------------------------


def _layout(chart: Any, width: int) -> dict[str, Any]:
    """Vega's layout of ``chart`` as Streamlit draws it in a ``width`` px column (width="stretch")."""
    import vl_convert as vlc

    spec = chart.to_dict()
    spec["width"] = width
    got = vlc.vegalite_to_scenegraph(spec, config=STREAMLIT_THEME)
    return json.loads(got) if isinstance(got, str) else got


def _find(node: Any, role: str) -> dict[str, Any] | None:
    if isinstance(node, dict):
        if node.get("role") == role:
            return node
        for item in node.get("items", []) if isinstance(node.get("items"), list) else []:
            if (found := _find(item, role)) is not None:
                return found
    return None


def _walk_charts() -> list[Any]:
    series, models = speedup.sweep_chart_inputs(WALK)
    crowded = charts.run_sweep_charts(CROWDED, *speedup.sweep_chart_inputs(CROWDED))
    walk = charts.run_sweep_charts(WALK, series, models)
    measured = pd.DataFrame(
        [
            {"num_steps": r.num_steps or 0, "tok_s": r.output_tokens_per_s, "accept_length": r.accept_length,
             "baseline": r.is_baseline, "kind": "measured"}
            for r in WALK
        ]
    )  # fmt: skip
    predicted = pd.DataFrame(
        [
            {"num_steps": k, "scenario": f"{name}: acceptance {1.5 + k * 0.4:.2f} at 3 steps, 480k samples",
             "tok_s": 100.0 + 10 * k + j, "accept_length": 1.5 + 0.3 * k, "kind": "predicted"}
            for j, name in enumerate(["your draft (measured)", PUBLISHED, "AngelSlim/Qwen3-8B_eagle3", "plan"])
            for k in range(1, 9)
        ]
    )  # fmt: skip
    scaling = charts.sweep_chart_parts(measured, predicted, 95.0)  # Acceptance vs data's sweep
    assert crowded is not None and walk is not None
    return [*crowded, *walk, *scaling]


@pytest.mark.parametrize("width", COLUMN_PX)
@pytest.mark.parametrize("which", range(6))
def test_sweep_charts_keep_a_readable_plot_and_their_title_under_streamlits_theme(width: int, which: int) -> None:
    chart = _walk_charts()[which]
    assert chart is not None
    graph = _layout(chart, width)
    plot = graph["scenegraph"]["items"][0]
    top = graph.get("origin", [0, 0])[1]
    assert plot["height"] >= 200, f"plot {plot['height']:.0f} px tall in a {graph['height']} px chart"
    assert plot["width"] >= 0.6 * width, f"plot {plot['width']:.0f} px of a {width} px column"
    title = _find(graph["scenegraph"], "title")
    assert title is not None
    assert top + title["items"][0]["y"] >= 0, "the title is cut at the top"
    axis_labels = [
        n for n in (_find(a, "axis-label") for a in _axes(graph["scenegraph"])) if n is not None and n["items"]
    ]
    assert all(len(n["items"]) >= 3 for n in axis_labels), [len(n["items"]) for n in axis_labels]


def _axes(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        if node.get("role") == "axis":
            return [node]
        for item in node.get("items", []) if isinstance(node.get("items"), list) else []:
            found += _axes(item)
    return found


# --- 2. a group of several drafts: each line names its draft ------------------------------------------------------


def test_series_name_the_draft_when_the_group_holds_several() -> None:
    said = speedup.sweep_series([r for r in WALK if not r.is_baseline], draft=MINE)
    assert said[2] == said[5] == "your draft · sglang EAGLE-3 bs=1 chain"
    assert said[6] == "your draft · sglang EAGLE-3 bs=1 tree topk=4 ndt=8"
    assert said[8] == said[9] == "RedHatAI/Qwen3-8B-spec… · sglang EAGLE-3 bs=1 chain"
    anonymous = speedup.sweep_series([r for r in WALK if not r.is_baseline])  # no draft of yours: each by name
    assert anonymous[2] == "acme/qwen3-8b-eagle3 · sglang EAGLE-3 bs=1 chain"
    assert anonymous[8] == "RedHatAI/Qwen3-8B-spec… · sglang EAGLE-3 bs=1 chain"
    one = speedup.sweep_series([r for r in WALK if not r.is_baseline and r.draft_model == MINE], draft=MINE)
    assert one[2] == "sglang EAGLE-3 bs=1 chain"  # one draft: nothing to tell apart
    mtp = _run(10, 150.0, 3, 2.5, draft=None)
    mtp.speculative_algorithm = "NEXTN"
    with_mtp = speedup.sweep_series([*(r for r in WALK[1:5]), mtp], draft=MINE)
    assert with_mtp[2] == "sglang EAGLE-3 bs=1 chain" and with_mtp[10] == "sglang MTP (NEXTN) bs=1 chain"
    for r in WALK[1:]:
        assert f" {registry.algorithm_label(r)} " in said[r.id]  # the one naming rule


# --- 3./4. the pages' defaults ------------------------------------------------------------------------------------


def _store_walk(runs: list[SimpleNamespace] = WALK) -> dict[int, int]:
    """The walk's runs stored as Live benchmark stores them: walk id -> stored id."""
    store = Store(settings.database_url())
    ids = {}
    for r in runs:
        server: dict[str, Any] = {"engine": "sglang", "model": QWEN}
        if not r.is_baseline:
            server.update(
                speculative_algorithm="EAGLE3", draft_model=r.draft_model, num_steps=r.num_steps, topk=r.topk,
                num_draft_tokens=r.num_draft_tokens,
            )  # fmt: skip
        rid = store.start_run(
            endpoint="http://sglang:1", group=GROUP, params={"concurrency": 1, "max_tokens": 256}, server_config=server
        )
        summary = {"requests": 2.0, "output_tokens_per_s": r.output_tokens_per_s}
        store.finish_run(rid, {**summary, **({"accept_length": r.accept_length} if r.accept_length else {})})
        ids[r.id] = rid
    return ids


def _bench_page() -> AppTest:
    """Live benchmark opened on your draft and its run group, as the sidebar's link opens it."""
    at = page_app(str(ROOT / "pages" / "bench.py"), timeout=90)
    at.query_params["draft"] = MINE
    at.query_params["draft_group"] = GROUP
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def test_live_benchmark_opens_on_your_whole_sweep_and_your_newest_run() -> None:
    ids = _store_walk()
    at = _bench_page()
    titles = {r.id: r.title for r in Store(settings.database_url()).runs(group=GROUP)}
    picked = at.multiselect(key="compare_runs").value
    assert picked == [titles[ids[i]] for i in (1, 2, 3, 4, 5, 6, 7)], picked  # the num_steps 1 and 2 runs too
    assert at.selectbox(key="requests_run").value == titles[ids[7]]  # your newest run, not the published one's


def test_your_older_runs_left_out_of_the_selection_are_said() -> None:
    """The selection opens on the 6 newest speculative runs and the newest run's whole sweep: a num_steps 1..10
    sweep opened on 5..10, and its best (2 steps, in the story this app was built for) was not in the table."""
    more = [_run(i, 175.0 - i, i - 5, 3.4 + 0.05 * i) for i in range(10, 16)]  # your chain sweep goes on: 5..10
    ids = _store_walk([*WALK, *more])
    at = _bench_page()
    titles = {r.id: r.title for r in Store(settings.database_url()).runs(group=GROUP)}
    # the best tree (#6) is picked too, as the best chain and tree of each setting are (walk T)
    assert at.multiselect(key="compare_runs").value == [titles[ids[i]] for i in (1, 2, 3, 4, 5, 6, *range(10, 16))]
    said = [c.value for c in at.caption if "older run" in c.value]
    assert said == [  # one run: "run ... is" (walk BB)
        f"Your older run #{ids[7]} is not picked: the selection opens on your draft's 6 newest "
        f"speculative runs, its newest sweep ({', '.join(f'#{ids[i]}' for i in (2, 3, 4, 5, *range(10, 16)))}: the "
        'sweep chart\'s line "your draft · sglang EAGLE-3 bs=1 chain"), the best chain and tree of each setting and '
        "their baselines. Add them under Runs to compare them too."
    ], said
    at.multiselect(key="compare_runs").set_value([titles[ids[i]] for i in (1, 6, 7)]).run()
    assert not [c.value for c in at.caption if "older run" in c.value]  # added: no longer said
    assert at.selectbox(key="requests_run").value == titles[ids[15]]


LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def _card_draft(tmp_path: Path) -> Path:
    """A raw EAGLE-3 config (it names no target) whose model card names its base_model."""
    path = tmp_path / "llama-draft"
    path.mkdir()
    (path / "config.json").write_text(json.dumps(registry.get_draft("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B").config))
    (path / "README.md").write_text(f"---\nbase_model: {LLAMA}\ntags:\n- eagle3\n---\n# my draft\n")
    return path


def test_compare_starts_its_target_from_the_drafts_model_card(tmp_path: Path) -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["draft"] = str(_card_draft(tmp_path))
    at.run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    assert at.text_input(key="compare_target").value == LLAMA
    said = [c.value for c in at.caption]
    assert "From your draft's model card (its base_model)." in said, said
    text = "\n".join([*said, *(e.value for e in at.warning), *(e.value for e in at.markdown)])
    assert "No target given" not in text and "cannot be checked without" not in text, text
    assert at.dataframe[0].value.set_index("draft").loc["llama-draft", "target"] == LLAMA
    assert "draft_target" not in at.query_params  # the card's target is not a target set on Compare
