"""Switching the sidebar back to a draft used earlier in the session brings back what was attached to it (walk P).

With draft A (its audit and run group attached), switching to B and then back to A gave ``?draft=A&draft_vol=...``
with no ``draft_group``: Overview then said A had no measured acceptance. Each draft's volume, run group and typed
samples are remembered for the browser session (st.session_state only) and come back when the user switches back,
unless other values were picked in the same submit. A switch still takes the new draft's own stored audit
(tests/test_volume_of_another.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from comparelib import settings
from comparelib.live.store import Store
from comparelib.models.draft import OwnDraft
from tests.test_draft_volume import _ok

ROOT = Path(__file__).resolve().parents[1]
A_ID = "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"
B_ID = "lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge"
A, B = f"registry:{A_ID}", f"registry:{B_ID}"


@pytest.mark.parametrize(
    ("one", "other", "same"),
    [
        ("https://huggingface.co/labx/r1d-llama8b-eagle3", "labx/r1d-llama8b-eagle3", True),
        ("https://huggingface.co/labx/R1D-llama8b-eagle3/tree/main", "labx/r1d-llama8b-eagle3", True),
        ("labx/r1d-llama8b-eagle3", "labx/r1d-llama8b-eagle3-v2", False),
        ("/tmp/walkP/ckpt/epoch_3", "/tmp/walkP/ckpt/epoch_3", True),
        ("/tmp/walkP/ckpt/epoch_3", "/data/ckpt/epoch_3", False),  # two folders of one name are two drafts
        (A, A_ID, False),  # the registry's entry and the Hub repo are read differently
    ],
)
def test_a_draft_is_the_same_whatever_form_it_was_pasted_in(one: str, other: str, same: bool) -> None:
    assert (OwnDraft.parse(one).identity == OwnDraft.parse(other).identity) is same


def _store() -> Store:
    store = Store(settings.database_url())
    store.save_data_volume(draft=A_ID, samples=150, tokens=9_000, source="a.jsonl")
    store.save_data_volume(draft=B_ID, samples=321, tokens=19_000, source="b.jsonl")
    for group in ("g-a", "g-b"):
        rid = store.start_run(
            endpoint="http://sglang:1",
            group=group,
            params={"concurrency": 1},
            server_config={"engine": "sglang", "model": "meta-llama/Llama-3.1-8B-Instruct"},
        )
        store.finish_run(rid, {"requests": 4, "output_tokens_per_s": 90.0})
    return store


def _use(at: AppTest, source: str, **picked: object) -> AppTest:
    at.sidebar.text_input(key="draft_source").set_value(source)
    for key, value in picked.items():
        widget = at.sidebar.number_input(key=key) if key == "draft_samples" else at.sidebar.selectbox(key=key)
        widget.set_value(value)
    return _ok(at.sidebar.button[0].click().run())


def _query(at: AppTest) -> dict[str, str]:
    return {
        k: at.query_params[k] for k in ("draft", "draft_vol", "draft_group", "draft_samples") if k in at.query_params
    }


def test_switching_back_brings_back_the_drafts_run_group_audit_and_samples() -> None:
    _store()
    at = _ok(AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run())
    _use(at, A, draft_volume=A_ID, draft_group="g-a", draft_samples=250_000)
    assert _query(at) == {"draft": A, "draft_vol": A_ID, "draft_group": "g-a", "draft_samples": "250000"}
    _use(at, B)  # A's picks still shown in the sidebar: B takes its own audit, and no run group nor samples
    assert _query(at) == {"draft": B, "draft_vol": B_ID}
    _use(at, A)  # back: A's run group, audit and samples come back
    assert _query(at) == {"draft": A, "draft_vol": A_ID, "draft_group": "g-a", "draft_samples": "250000"}
    assert at.sidebar.selectbox(key="draft_group").value == "g-a"
    assert at.sidebar.number_input(key="draft_samples").value == 250_000
    md = "\n".join(m.value for m in at.main.markdown)
    assert "no run group attached" not in md, md


def test_values_picked_in_the_same_submit_win_over_the_remembered_ones() -> None:
    _store()
    at = _ok(AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run())
    _use(at, A, draft_volume=A_ID, draft_group="g-a")
    _use(at, B, draft_group="g-b")
    assert _query(at) == {"draft": B, "draft_vol": B_ID, "draft_group": "g-b"}
    _use(at, A, draft_group="(none)")  # back to A, its run group taken off on purpose
    assert _query(at) == {"draft": A, "draft_vol": A_ID}
    _use(at, B, draft_group="g-a")  # back to B with A's group picked on purpose
    assert _query(at) == {"draft": B, "draft_vol": B_ID, "draft_group": "g-a"}


def test_a_remembered_run_group_no_longer_stored_is_not_brought_back() -> None:
    store = _store()
    at = _ok(AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run())
    _use(at, A, draft_group="g-a")
    _use(at, B)
    for run in store.runs(group="g-a"):
        store.delete_run(run.id)
    _use(at, A)
    assert "draft_group" not in at.query_params
