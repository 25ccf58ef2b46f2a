"""An audit stored under one draft's name never answers for another draft without saying so.

A user with two drafts of one team (v1, v2) attached v2's audit, switched the sidebar to v1, and Overview answered
v1 with the 321 samples stored under v2's name, with no warning. The Dataset audit's "attach" field also kept the
previous draft's name after a switch, so v1's audit was stored under v2's name and attached to v1.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from comparelib import settings
from comparelib.live.store import Store
from comparelib.models.draft import OwnDraft
from tests.test_draft_volume import _dataset, _go, _ok, _sidebar
from tests.tokenizer_fixture import build_tokenizer

ROOT = Path(__file__).resolve().parents[1]
V1_ID = "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"
V2_ID = "lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge"
V1, V2 = f"registry:{V1_ID}", f"registry:{V2_ID}"

OTHER_CASES = [
    # draft source, attached volume, the volume when it names another draft
    ("acme/llama31-8b-eagle3-v1", "acme/llama31-8b-eagle3-v2", "acme/llama31-8b-eagle3-v2"),
    ("acme/llama31-8b-eagle3-v1", "acme/llama31-8b-eagle3-v1", None),
    ("acme/llama31-8b-eagle3-v1", "ACME/llama31-8b-eagle3-v1", None),  # case aside
    ("https://huggingface.co/acme/llama31-8b-eagle3-v1/tree/main", "acme/llama31-8b-eagle3-v1", None),
    ("acme/llama31-8b-eagle3-v1", "my training data", None),  # a label names no draft
    ("/data/ckpt/llama31-8b-eagle3-v1", "acme/llama31-8b-eagle3-v1", None),  # a folder: its name
    ("/data/ckpt/epoch_9", "acme/llama31-8b-eagle3-v2", "acme/llama31-8b-eagle3-v2"),
    (V1, V2_ID, V2_ID),
    ("acme/llama31-8b-eagle3-v1", None, None),
]


@pytest.mark.parametrize(("source", "volume", "other"), OTHER_CASES)
def test_a_volume_under_another_drafts_name_is_named(source: str, volume: str | None, other: str | None) -> None:
    d = OwnDraft.parse(source, volume=volume)
    assert d.volume_of_another == other
    rows = [{"id": 1, "draft": volume, "samples": 321, "kind": "measured"}] if volume else []
    assert ("another draft's name" in d.volume_text(rows)) == bool(other)


def _two_audits() -> None:
    store = Store(settings.database_url())
    store.save_data_volume(draft=V1_ID, samples=150, tokens=9_000, source="v1.jsonl")
    store.save_data_volume(draft=V2_ID, samples=321, tokens=19_000, source="v2.jsonl")


def _use(at: AppTest, source: str, volume: str | None = None) -> AppTest:
    at.sidebar.text_input(key="draft_source").set_value(source)
    if volume is not None:
        at.sidebar.selectbox(key="draft_volume").set_value(volume)
    return _ok(at.sidebar.button[0].click().run())


def test_switching_drafts_takes_the_new_drafts_own_audit_not_the_old_ones() -> None:
    _two_audits()
    at = _ok(AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run())
    _use(at, V2, V2_ID)
    assert at.query_params["draft_vol"] == V2_ID
    assert "Training data in use: 321 samples" in _sidebar(at)
    # v1 pasted while v2's audit is still picked in the list: v1's own audit is used
    _use(at, V1)
    assert at.query_params["draft_vol"] == V1_ID
    assert at.sidebar.selectbox(key="draft_volume").value == V1_ID
    assert "Training data in use: 150 samples, attached from Dataset audit as " + V1_ID in _sidebar(at)
    md = "\n".join(m.value for m in at.main.markdown)
    assert "321" not in md and "150 samples" in md, md


def test_another_drafts_audit_picked_on_purpose_is_used_with_a_warning() -> None:
    _two_audits()
    at = _ok(AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run())
    _use(at, V1)
    _use(at, V1, V2_ID)  # the same draft, v2's audit picked on purpose
    assert at.query_params["draft_vol"] == V2_ID
    said = " ".join(w.value for w in at.sidebar.warning)
    assert f"stored under {V2_ID}, not under your draft's name ({V1_ID})" in said, said
    main = " ".join(w.value for w in at.main.warning)
    assert f"(321 samples) is the audit stored under {V2_ID}, another draft's name" in main, main
    # switching to another draft never carries it along
    _use(at, "registry:yuhuili/EAGLE3-LLaMA3.3-Instruct-70B")
    assert "draft_vol" not in at.query_params


def test_the_attach_field_follows_the_sidebars_draft(tmp_path: Path) -> None:
    data, tok = _dataset(tmp_path / "train.jsonl"), build_tokenizer(tmp_path / "tok")
    at = _ok(AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run())
    _use(at, V2)
    _go(at, "audit")
    _ok(at.run())
    at.text_input(key="audit_source").set_value(str(data))
    at.text_input(key="audit_tokenizer").set_value(str(tok))
    _ok(at.button(key="audit_run").click().run())
    assert at.text_input(key="audit_attach_draft").value == V2_ID
    # the sidebar switched to v1 on this page: the field names v1, and attaching stores and attaches under it
    _use(at, V1)
    assert at.text_input(key="audit_attach_draft").value == V1_ID
    _ok(at.button(key="audit_attach").click().run())
    assert any("Saved 12 samples / " in s.value and V1_ID in s.value for s in at.success)
    assert at.query_params["draft_vol"] == V1_ID
    rows = Store(settings.database_url()).data_volumes()
    assert [r["draft"] for r in rows if r["kind"] == "measured"] == [V1_ID]
    # another draft's name typed in: stored for it, not attached to yours
    at.text_input(key="audit_attach_draft").set_value(V2_ID)
    _ok(at.button(key="audit_attach").click().run())
    assert any(f"Not attached to your draft ({V1_ID})" in c.value for c in at.main.caption)
    assert at.query_params["draft_vol"] == V1_ID
