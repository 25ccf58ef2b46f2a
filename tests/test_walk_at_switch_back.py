"""Switching away from a draft and back brings back exactly what it had, not its own stored audit (walk AT).

A link opened ``?draft=<folder epoch_4>&draft_samples=150000`` (no ``draft_vol``): 150,000 samples typed in are in
use, though an audit is stored under ``epoch_4`` from an earlier session. Switching to another draft and back
attached that stored audit (``draft_vol=epoch_4``, 4,997 samples in use): the draft never had it in this session.
A draft's own stored audit is taken only the first time it is used in the session.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from comparelib import settings
from comparelib.live.store import Store
from tests.test_draft_volume import _ok

ROOT = Path(__file__).resolve().parents[1]
OTHER = "registry:lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge"


def _use(at: AppTest, source: str) -> AppTest:
    at.sidebar.text_input(key="draft_source").set_value(source)
    return _ok(at.sidebar.button[0].click().run())


def _in_use(at: AppTest) -> str:
    return "\n".join(c.value for c in at.sidebar.caption if "Training data in use" in c.value)


def test_switching_back_keeps_the_typed_samples_and_attaches_no_stored_audit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPECDRAFT_DATA_ROOT", str(tmp_path))
    own = tmp_path / "outputs" / "scout-eagle3" / "epoch_4"
    own.mkdir(parents=True)
    Store(settings.database_url()).save_data_volume(draft="epoch_4", samples=4_997, tokens=2_000_000, source="t.jsonl")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["draft"] = str(own)
    at.query_params["draft_samples"] = "150000"
    _ok(at.run())
    assert "150,000 samples, typed in" in _in_use(at), _in_use(at)
    assert "draft_vol" not in at.query_params
    _use(at, OTHER)
    assert at.query_params["draft"] == OTHER
    _use(at, str(own))  # back: what it had when left, 150,000 typed in and no audit
    assert at.query_params["draft"] == str(own)
    assert "draft_vol" not in at.query_params, dict(at.query_params)
    assert at.query_params["draft_samples"] == "150000"
    assert "150,000 samples, typed in" in _in_use(at), _in_use(at)
    assert "4,997" not in _in_use(at)


def test_a_draft_used_first_still_takes_its_own_stored_audit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPECDRAFT_DATA_ROOT", str(tmp_path))
    own = tmp_path / "epoch_4"
    own.mkdir()
    Store(settings.database_url()).save_data_volume(draft="epoch_4", samples=4_997, tokens=2_000_000, source="t.jsonl")
    at = _ok(AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run())
    _use(at, str(own))
    assert at.query_params["draft_vol"] == "epoch_4"
    _use(at, OTHER)
    _use(at, str(own))  # back: its audit, attached when it was left, comes back
    assert at.query_params["draft_vol"] == "epoch_4"
