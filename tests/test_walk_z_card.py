"""A draft card naming a target whose own MTP layers the registry lists under the target's id is read as naming that
target (walk Z: base_model deepseek-ai/DeepSeek-V3 was taken for a published draft, and every page said the target
was not known)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from comparelib.models.draft import base_model_from_card

CASES = [
    ("deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-V3"),  # a target (its native MTP is listed under its id)
    ("moonshotai/Kimi-K2-Instruct", "moonshotai/Kimi-K2-Instruct"),  # a target
    ("AQ-MedAI/Kimi-K2-Instruct-eagle3", None),  # a published draft: a draft fine-tuned from it names no target
    ("lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge", None),
]


@pytest.mark.parametrize(("base", "target"), CASES)
def test_the_cards_base_model_is_a_target_unless_it_is_a_published_draft(base: str, target: str | None) -> None:
    assert base_model_from_card(f"---\nbase_model: {base}\nlibrary_name: sglang\n---\n# draft\n") == target


def test_a_group_holding_only_the_targets_mtp_is_said_as_such(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk Z: a group holding only the target's MTP run read "attach a run group in the sidebar" (one was) and "no
    speculative run in group ..." (the MTP run is one): your draft has none there."""
    import json

    from tests.fixtures import aq_config, bench_config, bench_store, cli_in_process, store_run

    target = "moonshotai/Kimi-K2-Instruct"
    folder = tmp_path / "my-kimi-draft"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(aq_config()))
    (folder / "README.md").write_text(f"---\nbase_model: {target}\n---\n# mine\n")
    store = bench_store()
    cfg = bench_config("sglang", target, 3, draft=target, topk=1, ndt=4)  # SGLang NEXTN: the target as its draft
    cfg["speculative_algorithm"] = "NEXTN"
    summary = {"requests": 8, "errors": 0, "output_tokens_per_s": 125.0, "accept_length": 3.64}
    store_run(store, cfg, summary, group="mtp-only", concurrency=1, endpoint="http://sglang:8000")
    proc = cli_in_process(capsys, "overview", str(folder), "--group", "mtp-only", "--json")
    assert proc.returncode == 0, proc.stderr
    said = json.dumps(json.loads(proc.stdout))
    assert "attach a run group in the sidebar" not in said, said
    assert "no speculative run of your draft" in said, said
    assert "no speculative run in group" not in said, said


def test_the_acceptance_factor_reads_the_references_figure_at_your_chain() -> None:
    """Walk Z: ours (3.00 at steps=3, topk=1, draft=4, batch 1) was set against MATH500 3.49, a figure whose setting
    the source does not state, while the reference publishes MATH500 3.468 at our chain (bs=8)."""
    from comparelib.analysis import overview

    facts = overview.accept_facts(3.0, "steps=3,topk=1,draft=4,bs=1,sglang", "AQ-MedAI/Kimi-K2-Instruct-eagle3")
    assert dict(facts.by_benchmark)["math500"] == pytest.approx(3.468)
    said = overview.accept_comparison(3.0, facts)
    assert said.startswith("the reference's MATH500 3.47 is 1.16 times our 3.00"), said
    # the range still names every setting it publishes, the unstated one included
    assert [s for s, _, _ in facts.by_setting] == [
        "steps=3,topk=1,draft=4,bs=8,sglang",
        "setting not stated by the source",
    ]


@pytest.mark.parametrize("fmt", ["md", "latex", "csv"])
def test_an_integer_cell_is_rounded_as_the_notes_are(fmt: str) -> None:
    """Walk Z: the plan table said samples_needed 6,163,056 where its note said 6,163,057 (int() cut 6,163,056.6)."""
    import pandas as pd

    from comparelib import export, tables

    frame = pd.DataFrame({"rank": [1], "option": ["more data"], "samples_needed": [6_163_056.6]})
    out = export.render(frame, fmt, table=tables.PLAN)
    assert "6,163,057" in out or "6163057" in out, out
    assert "6,163,056" not in out and "6163056" not in out, out


# --- the sweep chart's series: the request count splits no line (walk Z: one MTP line read "requests=4" and
# "requests=6"; the count pairs runs with baselines, walk W, but draws no line of its own)


def _run(id_: int, steps: int | None, tok_s: float, al: float | None, *, requests: int, mtp: bool = True) -> Any:
    from tests.fixtures import stored_run

    target = "deepseek-ai/DeepSeek-V3"
    run = stored_run(
        id_, steps, tok_s, al, engine="sglang", algo="NEXTN" if mtp else "EAGLE3",
        draft=target if mtp else "/data/my-dsv3-eagle3", model=target, group="walkz-dsv3", concurrency=1,
        max_tokens=256,
    )  # fmt: skip
    return dataclasses.replace(run, params={**run.params, "requests": requests})


def _nodes(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """A chart spec and its layers, all of them."""
    out, todo = [], [spec]
    while todo:
        node = todo.pop()
        todo += node.get("layer", [])
        out.append(node)
    return out


def _layers(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [node for node in _nodes(spec) if "mark" in node]


def _rows(spec: dict[str, Any], layer: dict[str, Any]) -> list[dict[str, Any]]:
    return list(spec["datasets"][layer["data"]["name"]])


# (runs: (id, num_steps, tok/s, AL, requests, MTP?), the line's points by num_steps (run ids), points off the line)
SERIES_CASES = [
    # walk Z: two MTP runs of one configuration, 4 and 6 requests: one line, no "requests=4" / "requests=6"
    pytest.param([(2, 1, 110.0, 2.6, 4, True), (3, 3, 125.0, 3.64, 6, True)], {1: 2, 3: 3}, set(), id="two-steps"),
    # one num_steps measured twice: the line goes through the better-measured run (more requests), the other drawn
    pytest.param(
        [(2, 1, 110.0, 2.6, 6, True), (3, 3, 118.0, 3.6, 4, True), (4, 3, 125.0, 3.64, 6, True)],
        {1: 2, 3: 4},
        {3},
        id="same-steps-twice",
    ),
]


@pytest.mark.parametrize(("made", "line", "off"), SERIES_CASES)
def test_the_request_count_splits_no_sweep_line(made: list[tuple], line: dict[int, int], off: set[int]) -> None:
    from comparelib import charts
    from comparelib.analysis import speedup

    runs = [_run(1, None, 78.1, None, requests=6)]
    runs += [_run(i, k, t, al, requests=n, mtp=m) for i, k, t, al, n, m in made]
    series, models = speedup.sweep_chart_inputs(runs)
    assert len(set(series.values())) == 1, series
    assert not [s for s in series.values() if "requests" in s], series
    assert set(series.values()) == {"sglang MTP (NEXTN) bs=1 chain"}, series
    built = charts.run_sweep_charts(runs, series, models)
    assert built is not None
    for chart in built:
        assert chart is not None
        spec = chart.to_dict()
        drawn = _layers(spec)
        lines = [
            layer
            for layer in drawn
            if (layer["mark"] if isinstance(layer["mark"], str) else layer["mark"]["type"]) == "line"
        ]
        assert len(lines) == 1
        on_line = _rows(spec, lines[0])
        assert {r["num_steps"]: int(r["run"].split()[0].lstrip("#")) for r in on_line} == line, on_line
        assert len(on_line) == len(line), on_line  # one point of the line per num_steps
        legend = {r["series"] for layer in drawn if "data" in layer for r in _rows(spec, layer) if "series" in r}
        assert legend == {"sglang MTP (NEXTN) bs=1 chain"}, legend
        apart = [
            r for layer in drawn if layer is not lines[0] and "data" in layer
            for r in _rows(spec, layer) if "series" in r
        ]  # fmt: skip
        assert {int(r["run"].split()[0].lstrip("#")) for r in apart} == off, apart
        for r in apart:  # the tooltip says which run the line goes through, and why
            assert "the line goes through run #4" in r["measured"] and "6 requests" in r["measured"], r
            assert "4 requests" in r["measured"], r
        tips = {  # on the layer, or on the layers' shared encoding
            t["field"]
            for layer in _nodes(spec)
            if "tooltip" in layer.get("encoding", {})
            for t in layer["encoding"]["tooltip"]
            if isinstance(t, dict)
        }
        assert "measured" in tips, tips
