"""Acceptance vs data's live results are one sweep's, and "your acceptance" is Overview's run at Overview's setting.

A user walk (a Llama-3.1-8B EAGLE-3 draft; a group with SGLang and vLLM sweeps at batch 1 and a vLLM sweep at batch
8; the reference, lmsys's Llama-3.1-8B draft, publishes at bs=1 while the page's fit setting is bs=8) found:
3. the "Live results" chart drew the batch-1 runs (~100 tok/s) as grey diamonds under the batch-8 prediction
   (~500 tok/s) and its baseline line, and no batch-1 prediction could be shown;
4. "Your acceptance: ..., run #4 (at the published chain of ...bs=8,sglang, batch 1 (published: 8); ...)" while
   Overview said "at the published setting ...bs=1,sglang", and the live tab named another run ("2.82, run #19").
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from tests.fixtures import LLAMA31_8B_EAGLE3, bench_config, bench_store, page_app, page_text, store_run
from tests.hub_emulator import HubEmulator

DRAFT = "walkm/llama31-8b-eagle3-sf"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
REFERENCE = "lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge"
GROUP = "walkm-l31"
CONFIG = LLAMA31_8B_EAGLE3
CARD = f"---\nbase_model: {LLAMA}\nlibrary_name: sglang\ntags: [eagle3]\n---\n# {DRAFT}\n"
ALS = (1.79, 2.40, 2.82, 3.20)
# (engine, batch): baseline tok/s, then tok/s at num_steps 1..4 (the walk's shape: batch 8 is ~5x batch 1)
SWEEPS: dict[tuple[str, int], tuple[float, tuple[float, ...]]] = {
    ("sglang", 1): (60.7, (79.9, 97.9, 102.3, 108.6)),
    ("vllm", 1): (60.7, (79.6, 98.0, 101.4, 107.5)),
    ("vllm", 8): (387.5, (468.2, 514.9, 523.5, 524.9)),
}


def _store() -> dict[tuple[str, int, int], int]:
    """The walk's group as the bench page stores it; ids by (engine, batch, num_steps), 0 steps the baseline."""
    store = bench_store()
    ids: dict[tuple[str, int, int], int] = {}
    for (engine, batch), (base, tok_s) in SWEEPS.items():
        for k, tps in [(0, base), *zip(range(1, 5), tok_s, strict=True)]:
            cfg = bench_config(
                engine,
                LLAMA,
                k or None,
                draft=DRAFT if k else None,
                topk=1 if k and engine == "sglang" else None,
                ndt=k + 1 if k and engine == "sglang" else None,
            )
            summary: dict[str, Any] = {"requests": 16, "errors": 0, "output_tokens_per_s": tps}
            summary["accept_length"] = ALS[k - 1] if k else None
            ids[(engine, batch, k)] = store_run(
                store, cfg, summary, group=GROUP, concurrency=batch, endpoint=f"http://{engine}:8000"
            )
    return ids


def _page(hub: HubEmulator, path: str = "../pages/scaling.py") -> AppTest:
    import streamlit as st

    st.cache_data.clear()
    hub.add_model(DRAFT, CONFIG, card=CARD)
    at = page_app(path, timeout=90)
    for key, value in {"draft": DRAFT, "draft_group": GROUP, "draft_samples": "90000"}.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def _measured_tok_s(at: AppTest) -> list[float]:
    """The grey diamonds of the live tab's throughput chart (the page's second chart)."""
    import pyarrow as pa

    chart = at.get("vega_lite_chart")[1].proto
    spec = json.loads(chart.spec)
    points = [layer["data"]["name"] for layer in spec["layer"] if layer["mark"]["type"] == "point"]
    frames = {d.name: pa.ipc.open_stream(d.data.data).read_pandas() for d in chart.datasets}
    return sorted(float(v) for name in points for v in frames[name]["tok_s"])


# ------------------------------------------------------------------ 3. one sweep drawn, and the user picks it


def test_the_live_chart_draws_only_the_sweep_its_prediction_is_fitted_to(hub: HubEmulator) -> None:
    ids = _store()
    at = _page(hub)
    # the page's sweep stays the default: batch 8 on vLLM, with its baseline
    assert at.selectbox(key="sc_sweep").value == "batch 8, vllm"
    # each option is its sweep's label: the runs a fit of it fits, counted (walk Q: the picker said only the batch)
    assert at.selectbox(key="sc_sweep").options == [
        "batch 1, sglang: 4 runs at num_steps 1, 2, 3, 4",
        "batch 1, vllm: 4 runs at num_steps 1, 2, 3, 4",
        "batch 8, vllm: 4 runs at num_steps 1, 2, 3, 4",
    ]
    assert _measured_tok_s(at) == sorted(SWEEPS[("vllm", 8)][1])  # no batch-1 diamond under it
    text = page_text(at)
    sg = [ids[("sglang", 1, k)] for k in range(1, 5)]
    assert f"Not drawn: your draft's runs #{sg[0]}-#{sg[-1]} (batch 1, sglang)" in text, text
    assert "against 387.5 tok/s without speculation" in text
    # a batch-1 prediction: its runs, its baseline
    at.selectbox(key="sc_sweep").set_value("batch 1, sglang").run()
    assert not at.exception, at.exception
    assert _measured_tok_s(at) == sorted(SWEEPS[("sglang", 1)][1])
    text = page_text(at)
    assert "against 60.7 tok/s without speculation" in text, text
    v8 = [ids[("vllm", 8, k)] for k in range(1, 5)]
    assert f"#{v8[0]}-#{v8[-1]} (batch 8, vllm)" in text


def test_sweep_choices_name_each_batch_and_engine_and_the_default_fit() -> None:
    from comparelib.analysis import speedup, verdicts

    ids = _store()
    runs = bench_store().runs(group=GROUP)
    choices, default = speedup.sweep_choices(runs, target=LLAMA, draft=DRAFT)
    assert [c.key for c in choices] == [(1, "sglang"), (1, "vllm"), (8, "vllm")]
    assert default == 2 and choices[0].label == "batch 1, sglang: 4 runs at num_steps 1, 2, 3, 4"
    for choice in choices:
        look = verdicts.live_outlook(runs, None, reference=REFERENCE, x="samples", target=LLAMA, draft=DRAFT,
                                     sweep=choice.key)  # fmt: skip
        engine, batch = choice.engine, choice.batch
        assert set(look.measured["run_id"]) == {ids[(engine, batch, k)] for k in range(5)}  # type: ignore[index]
        assert look.model.baseline_tok_s == pytest.approx(SWEEPS[(engine, batch)][0])  # type: ignore[index]
    with pytest.raises(Exception, match="no run of your draft at batch 4 on vllm"):
        verdicts.live_outlook(runs, None, reference=REFERENCE, x="samples", target=LLAMA, draft=DRAFT,
                              sweep=(4, "vllm"))  # fmt: skip


# ------------------------------------------------------------------ 4. one run, one setting, as on Overview


def test_your_acceptance_is_overviews_run_at_overviews_setting(hub: HubEmulator) -> None:
    ids = _store()
    want = ids[("sglang", 1, 3)]
    ov = page_text(_page(hub, "../pages/overview.py"))
    assert f"run #{want}, at the published setting steps=3,topk=1,draft=4,bs=1,sglang" in ov, ov
    at = _page(hub)
    text = page_text(at)
    assert (
        f"Your acceptance: 2.82, run #{want} (at the published setting steps=3,topk=1,draft=4,bs=1,sglang), "
        "the run Overview reads too." in text
    ), text
    assert "(published: 8)" not in text
    # the live tab names that run too, not the fitted batch-8 sweep's run at 3 steps
    assert f"run #{ids[('vllm', 8, 3)]})" not in text, text


def test_a_sweep_where_every_setting_lost_is_a_warning_that_says_serve_without(hub: HubEmulator) -> None:
    """Batch 16 measured num_steps 2 and 3, both slower than its baseline: the page's sentence says to serve without
    speculation there, and it is shown as a warning, not as plain text under the chart (walk U)."""
    store = bench_store()
    rows = [
        (1, 0, 230.0),
        (1, 1, 300.0),
        (1, 2, 345.0),
        (16, 0, 1743.0),
        (16, 2, 1743.0 * 0.94),
        (16, 3, 1743.0 * 0.84),
    ]
    for batch, k, tps in rows:
        cfg = bench_config("vllm", LLAMA, k or None, draft=DRAFT if k else None, topk=None, ndt=None)
        summary: dict[str, Any] = {"requests": 16, "errors": 0, "output_tokens_per_s": tps}
        summary["accept_length"] = {1: 1.69, 2: 2.31, 3: 2.73}.get(k) if k else None
        store_run(store, cfg, summary, group=GROUP, concurrency=batch, endpoint="http://vllm:8000")
    at = _page(hub)
    at.selectbox(key="sc_sweep").set_value(next(o for o in at.selectbox(key="sc_sweep").options if "batch 16" in o))
    at.run()
    assert not at.exception, at.exception
    warned = " ".join(w.value for w in at.warning)
    assert "Serve without speculation at batch 16" in warned, warned
    assert "num_steps=1 at batch 16 before trusting a prediction" in warned, warned
