"""Which training volume the pages use for your draft, and the sidebar saying so.

The rule: an attached audit comes first; a number typed in is used when none is attached. Before, a user typed
250,000 samples, attached a 310-sample audit on Dataset audit, and the sidebar kept showing 250,000 while
Overview answered "310 samples against 1.4M", with nothing saying the typed number was not used.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from comparelib.audit.result import VOLUME_TRAINED
from comparelib.models.draft import DEFAULT, OwnDraft
from tests.tokenizer_fixture import build_tokenizer

ROOT = Path(__file__).resolve().parents[1]
DRAFT = "registry:yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"
VOLS = [
    {"id": 1, "draft": "acme/x", "samples": 100, "kind": "measured"},
    {"id": 2, "draft": "acme/x", "samples": 310, "kind": "measured"},
    {"id": 3, "draft": "example: own Kimi-K2.5 draft", "samples": 37000, "kind": "example"},
]

VOLUME_CASES = [
    # volume, samples typed, samples used, the sidebar's words, the typed number not used
    ("acme/x", None, 310.0, "310 samples, attached from Dataset audit as acme/x", None),
    (None, 250_000, 250_000.0, "250,000 samples, typed in", None),
    ("acme/x", 250_000, 310.0, "310 samples, attached from Dataset audit as acme/x", 250_000),  # audit first
    ("gone", 250_000, None, "no training volume is stored under 'gone'", 250_000),
    (None, None, None, "not measured", None),
]


@pytest.mark.parametrize(("volume", "samples", "used", "words", "unused"), VOLUME_CASES)
def test_the_attached_audit_comes_first_and_says_where_it_is_from(
    volume: str | None, samples: int | None, used: float | None, words: str, unused: int | None
) -> None:
    d = OwnDraft.parse("acme/x", volume=volume, samples=samples)
    n, _where = d.training_samples(VOLS)
    assert n == used
    assert words in d.volume_text(VOLS)
    assert d.typed_unused == unused
    assert DEFAULT.volume_text(VOLS) == "37,000 samples, example: own Kimi-K2.5 draft"


def _dataset(path: Path, rows: int = 12) -> Path:
    lines = [
        json.dumps(
            {
                "id": str(i),
                "conversations": [
                    {"role": "user", "content": f"Question {i}?"},
                    {"role": "assistant", "content": "An answer. " * (i + 1)},
                ],
            }
        )
        for i in range(rows)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _sidebar(at: AppTest) -> str:
    return " ".join(c.value for c in at.sidebar.caption)


def _md(at: AppTest) -> str:
    return "\n".join(m.value for m in at.main.markdown)


def _go(at: AppTest, page: str) -> None:
    """Switch page as the router would: AppTest runs the page's file, so the router's page mark is set here
    (the sidebar's widgets are each page's own, and are refilled when the page changes)."""
    import app

    at.switch_page(f"pages/{page}.py")
    at.session_state[app.PAGE_STATE] = "" if page == "overview" else page


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, at.exception
    return at


def test_typed_then_attached_the_sidebar_says_which_and_offers_the_typed_one(tmp_path: Path) -> None:
    data, tok = _dataset(tmp_path / "train.jsonl"), build_tokenizer(tmp_path / "tok")
    at = _ok(AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run())
    # 1. the draft and 250,000 samples typed in the sidebar
    at.sidebar.text_input(key="draft_source").set_value(DRAFT)
    at.sidebar.selectbox(key="draft_volume").set_value("(none)")
    at.sidebar.number_input(key="draft_samples").set_value(250_000)
    _ok(at.sidebar.button[0].click().run())
    assert "Training data in use: 250,000 samples, typed in." in _sidebar(at)
    assert "(typed in)" in _md(at)

    # 2. its 12-row audit attached on Dataset audit
    _go(at, "audit")
    _ok(at.run())
    at.text_input(key="audit_source").set_value(str(data))
    at.text_input(key="audit_tokenizer").set_value(str(tok))
    _ok(at.button(key="audit_run").click().run())
    at.text_input(key="audit_attach_draft").set_value("my-draft")
    _ok(at.button(key="audit_attach").click().run())
    assert any("Saved 12 samples" in s.value for s in at.success)
    assert any("Attached to your draft" in c.value for c in at.main.caption)
    # the sidebar on the same screen already says so (it was drawn before the click: "typed in"), and its
    # stored-audit list shows the volume picked (it said "(none)" until the next page)
    said = _sidebar(at)
    assert f"Training data in use: 12 samples, attached from Dataset audit as my-draft: {VOLUME_TRAINED}." in said, (
        said
    )
    assert at.sidebar.selectbox(key="draft_volume").value == "my-draft"

    # 3. every page says the audit is used and the typed number is not, and offers it back
    _go(at, "overview")
    _ok(at.run())
    assert at.sidebar.number_input(key="draft_samples").value == 250_000  # still shown in the sidebar...
    said = _sidebar(at)
    assert f"Training data in use: 12 samples, attached from Dataset audit as my-draft: {VOLUME_TRAINED}." in said, (
        said
    )
    assert "The 250,000 samples typed in are not used while an audit is attached." in said, said  # ...and said
    assert f"(attached from Dataset audit as my-draft: {VOLUME_TRAINED})" in _md(at), _md(at)
    assert at.query_params["draft_vol"] == "my-draft"

    # 4. switching to the typed number: Overview answers for it, the link drops the audit
    _ok(at.sidebar.button(key="draft_use_typed").click().run())
    assert "draft_vol" not in at.query_params and at.query_params["draft_samples"] == "250000"
    assert "Training data in use: 250,000 samples, typed in." in _sidebar(at)
    assert "not used while" not in _sidebar(at)
    assert at.sidebar.selectbox(key="draft_volume").value == "(none)"
    md = _md(at)
    assert "[250K samples](/audit?" in md and "(typed in)" in md, md


def test_a_link_with_both_uses_the_audit_and_says_so(tmp_path: Path) -> None:
    from comparelib import settings
    from comparelib.live.store import Store

    Store(settings.database_url()).save_data_volume(draft="my audit", samples=310, tokens=9_000, source="audit")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    query: dict[str, Any] = {"draft": DRAFT, "draft_vol": "my audit", "draft_samples": "250000"}
    for key, value in query.items():
        at.query_params[key] = value
    _ok(at.run())
    said = _sidebar(at)
    assert "Training data in use: 310 samples, attached from Dataset audit as my audit." in said, said
    assert "The 250,000 samples typed in are not used" in said
    assert "(attached from Dataset audit as my audit)" in _md(at)
