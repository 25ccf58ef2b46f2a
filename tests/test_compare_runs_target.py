"""Compare drafts starts its empty target field from your draft's runs, as Overview does (``app.draft_target``),
and says so under the field.

Before, with your draft (a raw EAGLE-3 config: no target) and its run group attached, Overview knew the target
from the runs' server while Compare's field was empty and its lint said "No target given ... give the target".
A link's target, a target typed in the field and the published drafts' own targets are left as they were.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from comparelib.models import registry
from tests.fixtures import routed_compare

ROOT = Path(__file__).resolve().parents[1]
COMPARE = "pages/compare.py"
LLAMA_TARGET = "meta-llama/Llama-3.1-8B-Instruct"
QWEN_TARGET = "Qwen/Qwen3-8B"
GROUP = "llama-sweep"
RUNS_WORDS = f"From your runs' server (run group {GROUP})"
PUBLISHED = "AQ-MedAI/Kimi-K2-Instruct-eagle3"  # in the default comparison, trained for Kimi-K2
# what Compare opens your Llama-3.1-8B draft with: the reference Overview picks for its target
REFERENCE = "lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge"


def _draft(tmp_path: Path) -> Path:
    """yuhuili's Llama-3.1-8B draft config as a folder: a raw EAGLE-3 config names no target."""
    path = tmp_path / "llama-draft"
    path.mkdir()
    (path / "config.json").write_text(json.dumps(registry.get_draft("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B").config))
    return path


def _runs(model: str) -> None:
    """A baseline and a speculative run of the user's server, stored as the bench page stores them."""
    from comparelib import settings
    from comparelib.live.store import Store

    store = Store(settings.database_url())
    for spec in (None, "EAGLE3"):
        rid = store.start_run(
            endpoint="http://127.0.0.1:30000",
            server_config={"engine": "sglang", "model": model, "speculative_algorithm": spec, "num_steps": 3},
            group=GROUP,
            params={"concurrency": 4, "max_tokens": 64},
        )
        store.finish_run(rid, {"requests": 8, "errors": 0, "output_tokens_per_s": 50.0, "accept_length": 2.5})


def _compare(draft_dir: Path, **query: Any) -> AppTest:
    """Compare drafts through the router, with ``draft_dir`` as your draft and its run group attached."""
    return routed_compare(str(draft_dir), GROUP, **query)


def _page_text(at: AppTest) -> str:
    parts = [e.value for kind in ("caption", "info", "warning", "error", "markdown") for e in getattr(at.main, kind)]
    parts += [df.value.to_csv() for df in at.dataframe]
    return "\n".join(str(p) for p in parts)


def _target_of(at: AppTest, label: str) -> Any:
    return at.dataframe[0].value.set_index("draft").loc[label, "target"]


def _press_compare(at: AppTest) -> AppTest:
    next(b for b in at.button if b.label == "Compare").click().run()
    assert not at.exception, at.exception
    return at


def test_the_target_field_starts_from_your_runs_server(tmp_path: Path) -> None:
    draft_dir = _draft(tmp_path)
    _runs(LLAMA_TARGET)
    at = _compare(draft_dir)
    assert at.text_input(key="compare_target").value == LLAMA_TARGET
    text = _page_text(at)
    assert RUNS_WORDS in text, text
    assert "No target given" not in text and "give the target" not in text, text
    assert _target_of(at, "llama-draft") == LLAMA_TARGET
    assert at.multiselect(key="compare_picks").value == [REFERENCE]  # Overview's reference for that target
    assert "draft_target" not in at.query_params  # your runs' target is not a target set on Compare
    at.multiselect(key="compare_picks").set_value([REFERENCE, PUBLISHED])
    _press_compare(at)
    assert _target_of(at, PUBLISHED) != LLAMA_TARGET  # a published draft keeps the target it was trained for
    assert at.query_params["target"] == LLAMA_TARGET and "draft_target" not in at.query_params
    assert at.text_input(key="compare_target").value == LLAMA_TARGET and RUNS_WORDS in _page_text(at)


@pytest.mark.parametrize(
    ("how", "expected"),
    [
        ("link", QWEN_TARGET),  # the link's target wins
        ("typed", QWEN_TARGET),  # a target typed in the field wins
        ("cleared", ""),  # an emptied field stays empty
    ],
)
def test_the_links_or_the_users_target_wins_over_the_runs(tmp_path: Path, how: str, expected: str) -> None:
    draft_dir = _draft(tmp_path)
    _runs(LLAMA_TARGET)
    at = _compare(draft_dir, target=QWEN_TARGET) if how == "link" else _compare(draft_dir)
    if how != "link":
        at.text_input(key="compare_target").set_value(expected)
        _press_compare(at)
    assert at.text_input(key="compare_target").value == expected
    assert RUNS_WORDS not in _page_text(at)
    target = _target_of(at, "llama-draft")
    assert target == expected if expected else pd.isna(target)  # no target
    if expected:
        assert at.query_params["draft_target"] == expected  # typed or linked: the draft's, as before


def test_no_run_group_leaves_the_field_empty(tmp_path: Path) -> None:
    draft_dir = _draft(tmp_path)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["draft"] = str(draft_dir)
    at.run()
    at.switch_page(COMPARE).run()
    assert not at.exception, at.exception
    assert at.text_input(key="compare_target").value == ""
    assert "No target given" in _page_text(at)  # nothing to start from: the page asks, as before


def test_a_runs_target_this_machine_cannot_read_is_said_and_the_draft_still_shown(tmp_path: Path) -> None:
    """A server reports the folder it loaded the model from: not readable here, it must not drop your draft."""
    draft_dir = _draft(tmp_path)
    _runs(str(tmp_path / "on-the-server" / "llama-8b"))
    at = _compare(draft_dir)
    assert at.text_input(key="compare_target").value.endswith("llama-8b")
    assert not at.error, [e.value for e in at.error]
    assert any("could not be read" in w.value and "shown without it" in w.value for w in at.warning)
    assert "llama-draft" in set(at.dataframe[0].value["draft"])
