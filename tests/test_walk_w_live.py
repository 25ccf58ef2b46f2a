"""Walk W: Live benchmark and its sweep chart.

1. Visiting Live benchmark silently switched the run group back: after one run stored in group walkw-g2, the user
   picked walkw-g1 again in the sidebar (Overview); every visit to Live benchmark reset the link to
   draft_group=walkw-g2 and its sidebar could not change the group at all. A new run stored in a group attaches it
   once, at that moment; the sidebar's group is the user's choice afterwards.
2. Request count is a compared setting: baselines #9 (12 requests at concurrency 8) and #14 (48) were one setting,
   and #9 picked as the baseline gave #14 a "1.28x speedup" over the same configuration.
3. A vLLM run's line was called "EAGLE-3" though vLLM does not report the algorithm and the run did not state it.
4. Baseline labels hung under another baseline's dashed line ("#14 ... bs8-base48" under #9's rule).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import app
from comparelib import charts, settings
from comparelib.analysis import speedup
from comparelib.live.store import Store
from comparelib.models import registry
from tests.fixtures import bench_config, page_app, stored_run

ROOT = Path(__file__).resolve().parents[1]
DRAFT = "registry:yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"
G1, G2 = "walkw-g1", "walkw-g2"
PAGE = str(ROOT / "pages" / "bench.py")
MINE = "walkw/qwen3-8b-eagle3-w"
TARGET = "Qwen/Qwen3-8B"
FAST = {"ttft_s": 0.0, "chunk_delay_s": 0.0, "output_tokens": 8}


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def _sidebar_group(at: AppTest, group: str) -> AppTest:
    """The user picks ``group`` in the sidebar's run group and submits ("Use this draft"). The draft field is set
    as the browser shows it (AppTest's page switch keeps no page path, so the field's state is not refilled)."""
    at.sidebar.text_input(key="draft_source").set_value(DRAFT)
    at.sidebar.selectbox(key="draft_group").set_value(group)
    return _ok(at.sidebar.button[0].click().run())


# --- 1. the sidebar's run group is the user's: a visit never sets it back ------------------------------------------


def test_a_run_attaches_its_group_once_and_visits_keep_the_sidebars_group(fake_server: Any) -> None:
    store = Store(settings.database_url())
    rid = store.start_run(
        endpoint="http://sglang:1",
        group=G1,
        params={"concurrency": 1},
        server_config={"engine": "sglang", "model": "meta-llama/Llama-3.1-8B-Instruct"},
    )
    store.finish_run(rid, {"requests": 4, "output_tokens_per_s": 90.0})
    server = fake_server("sglang", **FAST, speculative_algorithm=None, tokens_per_chunk=1)

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["draft"] = DRAFT
    at.query_params["draft_group"] = G1
    _ok(at.run())
    at.session_state["bench_form_open"] = True
    _ok(at.switch_page("pages/bench.py").run())
    # a run stored in walkw-g2 (the page's own Group field, for new runs)
    at.text_input(key="bench_endpoint").set_value(server.url)
    at.text_input(key="bench_group").set_value(G2)
    for key, value in (("bench_concurrency", 1), ("bench_requests", 2), ("bench_max_tokens", 8), ("bench_warmup", 0)):
        at.number_input(key=key).set_value(value)
    at.button(key="bench_run").click().run()
    job = at.session_state["bench_job"]
    assert job.done.wait(60), "the benchmark thread did not finish"
    _ok(at.run())
    assert at.query_params["draft_group"] == G2  # the new run's group is attached, at that moment
    assert any(f"Run group **{G2}** is now attached" in c.value for c in at.caption)
    _ok(at.run())
    assert at.sidebar.selectbox(key="draft_group").value == G2  # the sidebar shows what is attached

    # on this page the sidebar changes the group, and it holds on the next reruns
    _sidebar_group(at, G1)
    assert at.query_params["draft_group"] == G1
    _ok(at.run())
    assert at.query_params["draft_group"] == G1
    assert at.sidebar.selectbox(key="draft_group").value == G1
    assert not any("is now attached" in c.value for c in at.caption)

    # walkw-g2 again, then walkw-g1 picked on another page: visiting Live benchmark keeps walkw-g1
    _sidebar_group(at, G2)
    _ok(at.switch_page("pages/compare.py").run())
    _sidebar_group(at, G1)
    assert at.query_params["draft_group"] == G1
    for _ in range(2):  # a visit, and a rerun on it
        _ok(at.switch_page("pages/bench.py").run())
        assert at.query_params["draft_group"] == G1
        assert at.session_state[app.DRAFT_STATE].group == G1  # what every page reads


# --- 2. the number of requests is a compared setting; a baseline never gets a speedup over another -----------------


def _walk_run(id_: int, steps: int | None, tok_s: float, *, requests: int | None, imported: bool = False) -> Any:
    """A run of the walk's group walkw-g1 at concurrency 8 that asked for ``requests`` (an import's num_prompts)."""
    run = stored_run(id_, steps, tok_s, 2.5 if steps else None, model=TARGET, group=G1, concurrency=8, max_tokens=256)
    params = {k: v for k, v in run.params.items() if not (imported and k == "prompt_set")}
    if requests is not None:
        params["num_prompts" if imported else "requests"] = requests
    return dataclasses.replace(run, params=params, kind="imported" if imported else "measured")


DIFFERENT = "different number of requests: 48 against 12"
# (run's requests, the other's, what sweep_mismatch says of them, what refuses the pair's speedup: None where nothing)
REQUEST_CASES = [
    pytest.param(48, 12, DIFFERENT, DIFFERENT, id="48-12"),
    pytest.param(48, 48, None, None, id="same"),
    # as every other setting: one run not recording it is held apart in a sweep and said, but no evidence against
    # a pair (its note says what was not recorded: unrecorded_settings)
    pytest.param(48, None, "number of requests not recorded for run #13 (run #12: number of requests 48)", None,
                 id="one-unrecorded"),
]  # fmt: skip


@pytest.mark.parametrize(("mine", "theirs", "sweep_says", "refused"), REQUEST_CASES)
def test_the_number_of_requests_is_a_setting_a_pair_and_a_sweep_hold_fixed(
    mine: int, theirs: int | None, sweep_says: str | None, refused: str | None
) -> None:
    spec = _walk_run(12, 3, 721.6, requests=mine)
    other_spec = _walk_run(13, 4, 671.3, requests=theirs)
    base = _walk_run(9, None, 277.2, requests=theirs)
    why = [w for w in speedup.sweep_mismatch(spec, other_spec) if "requests" in w]
    assert why == ([sweep_says] if sweep_says else []), why
    ratio, note = speedup.speedup_against(spec, base)
    if refused is None:
        assert ratio == pytest.approx(721.6 / 277.2) and note is None
    else:
        assert ratio is None and note is not None and refused in note
    # the sweep chart draws one line whatever the request counts: a setting measured twice, not two settings (walk Z
    # split one MTP line into "requests=4" and "requests=6"; test_walk_z_mtp)
    series = speedup.sweep_series([spec, other_spec])
    assert series[12] == series[13] and "requests" not in series[12], series


def test_an_imported_num_prompts_is_the_same_setting_as_requests() -> None:
    app_run, imported = _walk_run(12, 3, 721.6, requests=48), _walk_run(20, 4, 671.3, requests=48, imported=True)
    assert not [w for w in speedup.sweep_mismatch(app_run, imported) if "requests" in w]
    other = _walk_run(21, 4, 671.3, requests=12, imported=True)
    assert "different number of requests: 48 against 12" in speedup.sweep_mismatch(app_run, other)


def _compare_row(at: AppTest, rid: int) -> dict[str, Any]:
    table = next(df.value for df in at.dataframe if "speedup" in df.value.columns)
    return dict(table[table["run"].str.startswith(f"#{rid} ")].iloc[0])


@pytest.mark.parametrize("requests", [(12, 48), (48, 48)], ids=["walk-12-and-48", "same-requests"])
def test_a_baseline_picked_for_every_row_gives_no_other_baseline_a_speedup(requests: tuple[int, int]) -> None:
    store = Store(settings.database_url())
    config = bench_config("sglang", TARGET, None, draft=None, topk=None, ndt=None)
    ids = []
    for n, tok_s in zip(requests, (277.2, 356.2), strict=True):
        rid = store.start_run(
            endpoint="http://sglang:1", server_config=config, group=G1, params={"concurrency": 8, "requests": n}
        )
        store.finish_run(rid, {"requests": n, "output_tokens_per_s": tok_s})
        ids.append(rid)
    spec = store.start_run(
        endpoint="http://sglang:1",
        server_config=bench_config("sglang", TARGET, 3, draft=MINE, topk=1, ndt=4),
        group=G1,
        params={"concurrency": 8, "requests": 48},
    )
    store.finish_run(spec, {"requests": 48, "output_tokens_per_s": 721.6, "accept_length": 2.9})
    at = page_app(PAGE, timeout=60)
    at.query_params["draft"] = MINE
    at.query_params["draft_group"] = G1
    _ok(at.run())
    first, second = ids
    at.multiselect(key="compare_runs").set_value([r.title for r in store.runs(group=G1)])
    _ok(at.run())
    at.selectbox(key="compare_baseline").set_value(store.run(first).title)
    _ok(at.run())
    row = _compare_row(at, second)
    assert pd.isna(row["speedup"]), row  # was 1.28x: a baseline over a baseline
    assert f"run #{second} is a baseline" in row["speedup_note"], row["speedup_note"]
    assert _compare_row(at, first)["speedup_note"] in (None, "") or pd.isna(_compare_row(at, first)["speedup_note"])
    spec_row = _compare_row(at, spec)
    if requests[0] == requests[1]:
        assert spec_row["speedup"] == pytest.approx(721.6 / 277.2)
    else:  # the spec run of 48 requests against the baseline of 12: not like for like, said so
        assert (
            pd.isna(spec_row["speedup"]) and "different number of requests: 48 against 12" in spec_row["speedup_note"]
        )


# --- 3. a line's algorithm is named only where a run of it reported or stated it ---------------------------------


def _spec_run(id_: int, steps: int, tok_s: float, *, engine: str, algo: str | None, concurrency: int = 1) -> Any:
    run = stored_run(id_, steps, tok_s, 2.5, engine=engine, algo=algo, draft=MINE, model=TARGET, group=G1,
                     concurrency=concurrency, topk=None if engine == "vllm" else 1)  # fmt: skip
    return dataclasses.replace(run, num_draft_tokens=None if engine == "vllm" else run.num_draft_tokens)


VLLM_UNSTATED = f"vllm {registry.VLLM_SPECULATION} bs=1 chain"
LEGEND_CASES = [
    # the walk: the draft's SGLang runs report EAGLE3; its vLLM run (#16) reports none and the user stated none
    pytest.param(
        [_spec_run(5, 1, 75.3, engine="sglang", algo="EAGLE3"), _spec_run(16, 3, 90.7, engine="vllm", algo="unknown")],
        {5: "sglang EAGLE-3 bs=1 chain", 16: VLLM_UNSTATED},
        id="walk-vllm-unstated",
    ),
    pytest.param(
        [_spec_run(16, 3, 90.7, engine="vllm", algo=None)], {16: VLLM_UNSTATED}, id="vllm-alone-none-recorded"
    ),
    # stated in the form's Algorithm field (or an import's): said
    pytest.param(
        [_spec_run(16, 3, 90.7, engine="vllm", algo="EAGLE3")], {16: "vllm EAGLE-3 bs=1 chain"}, id="vllm-stated"
    ),
    # one line holding a run that stated it (an import of the same draft typed EAGLE-3) and one that did not
    pytest.param(
        [_spec_run(16, 3, 90.7, engine="vllm", algo=None), _spec_run(17, 2, 85.0, engine="vllm", algo="EAGLE3")],
        {16: "vllm EAGLE-3 bs=1 chain", 17: "vllm EAGLE-3 bs=1 chain"},
        id="one-line-one-stated",
    ),
]


@pytest.mark.parametrize(("runs", "expected"), LEGEND_CASES)
def test_the_sweep_legend_names_no_algorithm_vllm_did_not_report(runs: list[Any], expected: dict[int, str]) -> None:
    series, models = speedup.sweep_chart_inputs(runs, draft=MINE)
    assert series == expected
    built = charts.run_sweep_charts(runs, series, models)
    assert built is not None
    drawn = {row["series"] for rows in built[0].to_dict()["datasets"].values() for row in rows if "series" in row}
    assert drawn == set(expected.values())


# --- 4. each baseline label on its own dashed line ----------------------------------------------------------------

# walkw-g1 as stored: (id, engine, concurrency, requests, tok/s, num_steps, accept length, label)
WALK_G1 = [
    (4, "sglang", 1, 12, 46.917, None, None, "base"),
    (5, "sglang", 1, 12, 75.319, 1, 2.0, "s1"),
    (6, "sglang", 1, 12, 84.003, 2, 2.46, "s2"),
    (7, "sglang", 1, 12, 90.156, 3, 2.91, "s3"),
    (8, "sglang", 1, 12, 89.146, 4, 3.2, "s4"),
    (9, "sglang", 8, 12, 277.233, None, None, "bs8-None"),
    (10, "sglang", 8, 48, 608.427, 1, 2.0, "bs8-1"),
    (11, "sglang", 8, 48, 678.143, 2, 2.46, "bs8-2"),
    (12, "sglang", 8, 48, 721.648, 3, 2.91, "bs8-3"),
    (13, "sglang", 8, 48, 671.341, 4, 3.2, "bs8-4"),
    (14, "sglang", 8, 48, 356.195, None, None, "bs8-base48"),
    (15, "vllm", 1, 48, 46.753, None, None, "vllm-base"),
    (16, "vllm", 1, 12, 90.668, 3, 2.91, "vllm-s3"),
]
FONT_PX = 11


def _walk_g1() -> list[Any]:
    out = []
    for id_, engine, bs, n, tok_s, steps, al, label in WALK_G1:
        run = stored_run(id_, steps, tok_s, al, engine=engine, algo=None if engine == "vllm" else "EAGLE3",
                         draft=MINE, model=TARGET, group=G1, concurrency=bs, max_tokens=256,
                         topk=None if engine == "vllm" else 1)  # fmt: skip
        out.append(dataclasses.replace(run, labels=[label], params={**run.params, "requests": n}))
    return out


def _rendered_labels(runs: list[Any], rules: dict[str, float]) -> list[tuple[str, float, float, float]]:
    """Each baseline label line as vl-convert draws the tok/s chart at a page column's plot size: (text, top, bottom,
    y of the dashed rule of the baseline it names), in pixels from the top."""
    import re

    built = charts.run_sweep_charts(runs, *speedup.sweep_chart_inputs(runs, draft=MINE))
    assert built is not None
    svg = charts.chart_to_svg(built[0].properties(width=290, height=220))
    ys = [
        float(y)
        for y in re.findall(r'aria-roledescription="rule mark" transform="translate\([-\d.e]+,([-\d.e]+)\)"', svg)
    ]
    # the rules are drawn in the baselines' order: map each baseline's tok/s to its rule's y
    rule_y = dict(zip(rules.values(), ys, strict=True))
    out = []
    for attrs, text in re.findall(r'<text (aria-label="output tok/s[^"]*"[^>]*)>([^<]*)</text>', svg):
        y = float(re.search(r"translate\([-\d.e]+,([-\d.e]+)\)", attrs).group(1))  # type: ignore[union-attr]
        own = next(v for k, v in rules.items() if text.startswith(k + " "))
        out.append((text, y - 0.8 * FONT_PX, y + 0.25 * FONT_PX, rule_y[own]))
    return out


def test_each_baseline_label_sits_on_its_own_rule_on_the_walks_chart() -> None:
    runs = _walk_g1()
    rules = {f"#{r.id}": float(r.output_tokens_per_s) for r in runs if r.is_baseline}
    built = charts.run_sweep_charts(runs, *speedup.sweep_chart_inputs(runs, draft=MINE))
    assert built is not None
    hung = [row for rows in built[0].to_dict()["datasets"].values() for row in rows if "align" in row]
    for row in hung:  # the rule a label hangs from is its own (or one drawn as the same line: 46.92 and 46.75)
        own = rules[row["baseline"].split()[0]]
        assert abs(row["output tok/s"] / own - 1) < 0.01, row
    drawn = _rendered_labels(runs, rules)
    assert {t.split()[0] for t, *_ in drawn} == set(rules)
    for text, top, bottom, own_y in drawn:
        # beside its own rule: no other rule between the text and it, none through it
        near, far = min(top, own_y), max(bottom, own_y)
        others = [y for t, *_, y in drawn if abs(y - own_y) > 2]
        assert not [y for y in others if near < y < far], (text, top, bottom, own_y, others)
        assert min(abs(top - own_y), abs(bottom - own_y)) < 2 * FONT_PX, (text, top, bottom, own_y)
