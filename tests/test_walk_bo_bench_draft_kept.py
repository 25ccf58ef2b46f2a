"""Walk BO5: after a visit to another page, Live benchmark's Draft field was empty and a new vLLM run recorded
no draft.

The sidebar still held the user's draft, but the "Run a benchmark" form came back reset: ``app.follow_draft``
preset its Draft field only when the sidebar's draft changed, so once Streamlit dropped the field's state on a
page switch (the draft unchanged) the field read empty. The page recorded only that field, so the new vLLM
speculative run (#13) was stored with no draft and Overview left it out ("no draft recorded: cannot be shown to be
yours"), though its own sentence says a new vLLM run records the draft in your sidebar. Now:

1. the Draft field is preset from the sidebar's draft whenever its state is gone, not only when the draft changes;
   a value typed for the current draft is still kept;
2. a new run whose Draft field is empty records the sidebar's own draft where the server reports none (vLLM),
   with the note "draft recorded from the sidebar"; the built-in example draft is never recorded.
"""

from __future__ import annotations

from pathlib import Path

import app
from comparelib import settings
from comparelib.live.store import Store
from tests.fixtures import page_app

PAGE = str(Path(__file__).resolve().parent.parent / "pages" / "bench.py")
MINE = "walkbo-lab/qwen3-32b-eagle3-bo"
TARGET = "Qwen/Qwen3-32B"
FIELD = "bench_spec_draft"
FAST = {"ttft_s": 0.0, "chunk_delay_s": 0.0, "output_tokens": 8, "model": TARGET}
SIDEBAR_NOTE = f"draft recorded from the sidebar: {MINE}; the server does not report it"


def _page(draft: str | None = MINE):
    at = page_app(PAGE, timeout=60)
    at.session_state["bench_form_open"] = True
    if draft:
        at.query_params["draft"] = draft
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def _page_switch(at, *, kept: bool = False) -> None:
    """What a visit to another page leaves: a run that does not draw the form (Streamlit drops the field's widget
    state), and, as the walk found it, nothing kept of the field (``kept``: keep_values' copy left in place)."""
    at.session_state["bench_form_open"] = False
    at.run()
    assert not at.exception, at.exception
    shadow = app.KEPT_SHADOW + FIELD
    if not kept and shadow in at.session_state:
        del at.session_state[shadow]
    at.session_state["bench_form_open"] = True


def test_the_draft_field_shows_the_sidebar_draft_again_after_a_page_switch() -> None:
    at = _page()
    assert at.text_input(key=FIELD).value == MINE
    _page_switch(at)
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.text_input(key=FIELD).value == MINE  # was "": the form reset under an unchanged sidebar draft


def test_a_draft_typed_for_the_current_draft_is_kept() -> None:
    at = _page()
    at.text_input(key=FIELD).set_value("/data/drafts/qwen3-32b-eagle3-bo").run()
    _page_switch(at, kept=True)
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.text_input(key=FIELD).value == "/data/drafts/qwen3-32b-eagle3-bo"


def _run_once(at, url: str) -> None:
    at.text_input(key="bench_endpoint").set_value(url)
    at.number_input(key="bench_concurrency").set_value(1)
    at.number_input(key="bench_requests").set_value(3)
    at.number_input(key="bench_max_tokens").set_value(8)
    at.number_input(key="bench_warmup").set_value(0)
    at.button(key="bench_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    job = at.session_state["bench_job"]
    assert job.done.wait(60), "the benchmark thread did not finish"
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]


def test_a_new_vllm_run_with_an_empty_draft_field_records_the_sidebar_draft(fake_server) -> None:
    store = Store(settings.database_url())
    server = fake_server("vllm", **FAST, tokens_per_chunk=3, num_steps=3)
    at = _page()
    at.text_input(key=FIELD).set_value("")
    _run_once(at, server.url)
    run = store.runs()[-1]
    assert (run.engine, run.is_baseline, run.draft_model) == ("vllm", False, MINE)
    assert run.summary["notes"] == [SIDEBAR_NOTE]
    assert f"Run {run.id}: {SIDEBAR_NOTE}." in [c.value for c in at.caption]


def test_the_example_draft_is_never_recorded(fake_server) -> None:
    store = Store(settings.database_url())
    server = fake_server("vllm", **FAST, tokens_per_chunk=3, num_steps=3)
    at = _page(draft=None)  # the built-in example in the sidebar
    assert at.text_input(key=FIELD).value == ""
    _run_once(at, server.url)
    run = store.runs()[-1]
    assert (run.engine, run.is_baseline, run.draft_model) == ("vllm", False, None)
