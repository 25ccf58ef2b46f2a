"""A training log uploaded for a Hub draft stays with it however the draft is pasted (walk BM, 1).

Walk BM uploaded a plateaued log for https://huggingface.co/acme-bm/kimi-k27-code-eagle3-fullvocab; after a round
trip through the target it typed the same draft as acme-bm/kimi-k27-code-eagle3-fullvocab, and Overview's headline
turned from "Your training log has plateaued, so more of the same data is unlikely to close the gap" to "The largest
gap is training data": the session kept the log under the string typed, while the audit and run group followed the
draft.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import app
from tests.fixtures import page_app
from tests.hub_emulator import HubEmulator
from tests.test_two_drafts_walk import LOG, V2, _add_drafts, _curve_shown, _use


@pytest.mark.parametrize("again", [V2, V2.upper(), f"{V2}@main", f"https://huggingface.co/{V2}/tree/main"])
def test_the_uploaded_log_follows_the_hub_draft_in_any_form(
    hub: HubEmulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, again: str
) -> None:
    _add_drafts(hub)
    at = page_app("../pages/scaling.py", timeout=90)
    at.session_state["sc_tab"] = "Learning curve"
    _use(at.run(), f"https://huggingface.co/{V2}")
    at.file_uploader[0].set_value(("v2.csv", LOG.encode(), "text/csv")).run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    assert _curve_shown(at)
    _use(at, "acme/llama31-8b-eagle3-v1")  # another draft between
    assert not _curve_shown(at)
    _use(at, again)
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    assert _curve_shown(at), again
    assert set(at.session_state[app.CURVE_STATE]) == {f"hub:{V2}"}
