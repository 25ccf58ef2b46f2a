"""A run group holding the newly pasted draft's runs stays picked when the sidebar switches drafts.

Walk Q: with group scout-sweep shown in the sidebar (it held drafts a's and b's runs), b was pasted and "Use this
draft" pressed: b got no group, and Overview said its live speed was missing.
"""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.fixtures import bench_config, bench_store, store_run

ROOT = Path(__file__).resolve().parents[1]
A, B = "registry:yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "registry:lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge"
TARGET = "meta-llama/Llama-3.1-8B-Instruct"


def _use(at: AppTest, source: str, group: str | None = None) -> AppTest:
    at.sidebar.text_input(key="draft_source").set_value(source)
    if group is not None:
        at.sidebar.selectbox(key="draft_group").set_value(group)
    at.sidebar.button[0].click().run()
    assert not at.exception, at.exception
    return at


def test_a_group_with_the_new_drafts_runs_stays() -> None:
    store = bench_store()
    summary = {"requests": 8, "errors": 0, "output_tokens_per_s": 150.0, "accept_length": 2.5}
    for draft in (A.split(":", 1)[1], B.split(":", 1)[1]):
        store_run(store, bench_config("sglang", TARGET, 3, draft=draft, topk=1, ndt=4), summary, group="both")
    store_run(
        store, bench_config("sglang", TARGET, 3, draft=A.split(":", 1)[1], topk=1, ndt=4), summary, group="a-only"
    )
    at = _use(AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run(), A, "both")
    assert at.query_params["draft_group"] == "both"
    _use(at, B)  # "both" still shown in the sidebar: it holds b's runs, so it stays b's
    assert at.query_params.get("draft_group") == "both"
    _use(at, A, "a-only")
    _use(at, "registry:yuhuili/EAGLE3-LLaMA3.3-Instruct-70B")  # a group without the new draft's runs stays behind
    assert "draft_group" not in at.query_params
