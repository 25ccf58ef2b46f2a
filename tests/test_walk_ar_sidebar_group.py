"""Walk AR, finding 4: a run that finished on Live benchmark said "Run group **k26-app2** is now attached to your
draft" and the link carried draft_group=k26-app2, while the sidebar's "Benchmark runs (run group)" still showed the
old group k26-v3b until the next rerun: the sidebar was drawn before the page attached the group. On that same
answer the sidebar shows the attached group, beside the run's finished message and the attached-group sentence.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

import app
from comparelib import settings
from comparelib.live.store import Store

ROOT = Path(__file__).resolve().parents[1]
DRAFT = "registry:yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"
OLD, NEW = "k26-v3b", "k26-app2"
FAST = {"ttft_s": 0.0, "chunk_delay_s": 0.0, "output_tokens": 8}


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def test_the_sidebar_shows_the_group_a_finished_run_attached_on_that_answer(fake_server: Any) -> None:
    store = Store(settings.database_url())
    rid = store.start_run(
        endpoint="http://sglang:1",
        group=OLD,
        params={"concurrency": 1},
        server_config={"engine": "sglang", "model": "meta-llama/Llama-3.1-8B-Instruct"},
    )
    store.finish_run(rid, {"requests": 4, "output_tokens_per_s": 90.0})
    server = fake_server("sglang", **FAST, speculative_algorithm=None, tokens_per_chunk=1)

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["draft"] = DRAFT
    at.query_params["draft_group"] = OLD
    _ok(at.run())
    at.session_state["bench_form_open"] = True
    _ok(at.switch_page("pages/bench.py").run())
    # the user's draft with k26-v3b picked in this page's sidebar ("Use this draft"), as the walk had it
    at.sidebar.text_input(key="draft_source").set_value(DRAFT)
    at.sidebar.selectbox(key="draft_group").set_value(OLD)
    _ok(at.sidebar.button[0].click().run())
    assert at.sidebar.selectbox(key="draft_group").value == OLD
    assert at.session_state[app.DRAFT_STATE].group == OLD
    at.text_input(key="bench_endpoint").set_value(server.url)
    at.text_input(key="bench_group").set_value(NEW)
    for key, value in (("bench_concurrency", 1), ("bench_requests", 2), ("bench_max_tokens", 8), ("bench_warmup", 0)):
        at.number_input(key=key).set_value(value)
    at.button(key="bench_run").click().run()
    job = at.session_state["bench_job"]
    assert job.done.wait(60), "the benchmark thread did not finish"

    _ok(at.run())  # the answer that shows the finished run
    assert job.run_id is not None
    assert any(f"Run {job.run_id} finished: 2/2 requests" in s.value for s in at.success)
    assert any(f"Run group **{NEW}** is now attached" in c.value for c in at.caption)
    assert at.query_params["draft_group"] == NEW
    assert at.session_state[app.DRAFT_STATE].group == NEW
    assert at.sidebar.selectbox(key="draft_group").value == NEW  # was still k26-v3b here

    # said once: the next rerun keeps the finished message and the sidebar's group, without the sentence
    _ok(at.run())
    assert any(f"Run {job.run_id} finished" in s.value for s in at.success)
    assert not any("is now attached" in c.value for c in at.caption)
    assert at.sidebar.selectbox(key="draft_group").value == NEW
    assert at.query_params["draft_group"] == NEW
