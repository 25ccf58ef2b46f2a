"""A draft whose Hub read fails (not found, gated without a token, the Hub down) was read again on every rerun of
every page, several times a run: st.cache_data keeps no exception. A failure is remembered for the browser session
for a minute (``app.FAILED_READ_S``), with the same message; a token typed, or another draft, reads again."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]


def _config_reads(hub, repo: str) -> int:  # type: ignore[no-untyped-def]
    return sum(1 for r in hub.requests if repo in r.path and r.path.endswith("config.json"))


def test_a_failed_draft_read_is_not_retried_on_each_rerun(hub) -> None:  # type: ignore[no-untyped-def]
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["draft"] = "acme/missing-draft"
    at.run()
    assert not at.exception, at.exception
    first = _config_reads(hub, "acme/missing-draft")
    assert first >= 1
    shown = [e.value for e in at.error] + [w.value for w in at.warning] + [i.value for i in at.info]
    assert any("acme/missing-draft" in s for s in shown), shown
    for _ in range(3):
        at.run()
        assert not at.exception, at.exception
    assert _config_reads(hub, "acme/missing-draft") == first, [r.path for r in hub.requests]
    again = [e.value for e in at.error] + [w.value for w in at.warning] + [i.value for i in at.info]
    assert any("acme/missing-draft" in s for s in again), again
