"""After "Use ... as the target" on Compare drafts, the next "Use this draft" switches back at once (walk AZ, 1).

Walk AZ pasted its target, meta-llama/Llama-3.3-70B-Instruct, as its draft, pressed Compare's "Use ... as the target",
then typed its own draft back in the sidebar and pressed "Use this draft": the field went back to the target and every
page kept answering for it, with no message; a second press worked. The Compare page set the draft's target after
the sidebar was drawn, so the next run took the draft for changed elsewhere and refilled the field over what was typed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from comparelib.models import architectures, registry

ROOT = Path(__file__).resolve().parents[1]
TARGET = "meta-llama/Llama-3.3-70B-Instruct"


def _use(at: AppTest, source: str) -> None:
    at.sidebar.text_input(key="draft_source").set_value(source)
    next(b for b in at.sidebar.button if b.label == "Use this draft").click().run()
    assert not at.exception, at.exception


def test_switching_back_after_use_as_target_takes_one_press(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPECDRAFT_DATA_ROOT", str(tmp_path))
    own = tmp_path / "llama33-70b-eagle3"
    own.mkdir()
    (own / "config.json").write_text(
        json.dumps(registry.get_draft("lmsys/SGLang-EAGLE3-Llama-3.3-70B-Instruct-SpecForge").config)
    )
    (own / "README.md").write_text(f"---\nbase_model: {TARGET}\n---\n")
    target = tmp_path / "Llama-3.3-70B-Instruct"
    target.mkdir()
    (target / "config.json").write_text(json.dumps(architectures.known_target(TARGET)))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["draft"] = str(own)
    at.query_params["draft_samples"] = "120000"
    at.run()
    assert not at.exception, at.exception
    _use(at, str(target))  # the target pasted as your draft
    assert at.query_params["draft"] == str(target)
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    (as_target,) = [b for b in at.button if b.label == "Use Llama-3.3-70B-Instruct as the target"]
    as_target.click().run()
    assert not at.exception, at.exception
    assert at.query_params["draft_target"] == str(target)
    _use(at, str(own))  # one press
    assert at.query_params["draft"] == str(own), at.query_params
    assert at.sidebar.text_input(key="draft_source").value == str(own)
    # the target set on Compare drafts comes along, and the typed samples the draft had
    assert at.query_params["draft_target"] == str(target)
    assert at.query_params["draft_samples"] == "120000", at.query_params
