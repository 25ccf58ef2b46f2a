"""The target set on Compare drafts is your draft's: Overview and Acceptance vs data answer for it when the draft
names none, say so, and say when the draft's own target is used instead. A target model pasted among the drafts
stays out of the parameters chart (a 8B target beside 0.4B drafts left them slivers).

Before, Compare's field reached no other page: a raw EAGLE-3 config for a Llama-3.1-8B target, sized against it
on Compare, was set against the Kimi-K2 draft on Overview ("target is not known").
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from streamlit.testing.v1 import AppTest

from comparelib.models import architectures, registry
from comparelib.models.draft import COMPARE_WORDS, OwnDraft, resolve_target
from tests.fixtures import page_app

ROOT = Path(__file__).resolve().parents[1]
COMPARE = "pages/compare.py"
OVERVIEW = "pages/overview.py"
KIMI_REF = "AQ-MedAI/Kimi-K2-Instruct-eagle3"
LLAMA_TARGET = "meta-llama/Llama-3.1-8B-Instruct"
LLAMA_REF = "lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge"  # the Llama-3.1-8B draft with the most samples
QWEN_TARGET = "Qwen/Qwen3-8B"


def _folder(path: Path, config: dict[str, Any]) -> Path:
    path.mkdir()
    (path / "config.json").write_text(json.dumps(config))
    return path


def _llama_config(verifier: str | None = None) -> dict[str, Any]:
    """yuhuili's Llama-3.1-8B draft config: a raw EAGLE-3 config names no target; speculators' names its verifier."""
    cfg = dict(registry.get_draft("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B").config or {})
    if verifier:
        cfg["speculators_config"] = {"verifier": {"name_or_path": verifier}}
    return cfg


def _router(draft_dir: Path, **query: Any) -> AppTest:
    """The app through its router (pages switch as in a browser), landed on Overview with ``draft_dir``."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["draft"] = str(draft_dir)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def _set_target_on_compare(draft_dir: Path, target: str, first_ref: str = LLAMA_REF) -> AppTest:
    """Open Overview (its reference ``first_ref``: with no target known, the published draft of the draft's hidden
    size and vocabulary), then Compare with ``draft_dir`` as your draft; type ``target`` in its target field and
    press Compare."""
    at = _router(draft_dir)
    assert at.selectbox(key="ov_ref").value == first_ref
    at.switch_page(COMPARE).run()
    assert not at.exception, at.exception
    at.text_input(key="compare_target").set_value(target)
    next(b for b in at.button if b.label == "Compare").click().run()
    assert not at.exception, at.exception
    return at


def _captions(at: AppTest) -> str:
    """The page's captions (not the sidebar's, which names the target set on Compare on every page)."""
    return " ".join(c.value for c in at.main.caption)


def test_a_target_set_on_compare_answers_on_overview_for_a_draft_naming_none(tmp_path: Path) -> None:
    draft_dir = _folder(tmp_path / "llama-draft", _llama_config())
    at = _set_target_on_compare(draft_dir, LLAMA_TARGET)
    assert at.query_params["draft_target"] == LLAMA_TARGET  # in the link, as the draft's other attachments

    at.switch_page(OVERVIEW).run()
    assert not at.exception, at.exception
    assert at.selectbox(key="ov_ref").value == LLAMA_REF  # for the target now, not for its shape alone
    said = _captions(at)
    assert f"Target {LLAMA_TARGET}, the {COMPARE_WORDS}" in said, said
    assert f"Target set on Compare drafts: {LLAMA_TARGET}" in " ".join(c.value for c in at.sidebar.caption)

    # a link carries it to another browser session; a session without it keeps "target is not known"
    linked = page_app(OVERVIEW, timeout=60)
    linked.query_params["draft"] = str(draft_dir)
    linked.query_params["draft_target"] = LLAMA_TARGET
    linked.run()
    assert not linked.exception, linked.exception
    assert linked.selectbox(key="ov_ref").value == LLAMA_REF
    other = page_app(OVERVIEW, timeout=60)
    other.query_params["draft"] = str(draft_dir)
    other.run()
    assert other.selectbox(key="ov_ref").value == LLAMA_REF  # no target: a draft of its hidden size and vocabulary
    assert COMPARE_WORDS not in _captions(other)
    assert "Chosen for the same hidden size and vocabulary as your draft" in _captions(other)
    assert "Chosen as the published draft for your target" in _captions(linked)


def test_acceptance_vs_data_preselects_the_reference_for_the_target_set_on_compare(tmp_path: Path) -> None:
    draft_dir = _folder(tmp_path / "llama-draft", _llama_config())
    at = _set_target_on_compare(draft_dir, LLAMA_TARGET)
    at.switch_page("pages/scaling.py").run()
    assert not at.exception, at.exception
    assert at.selectbox(key="sc_ref").value == LLAMA_REF  # was the Kimi-K2 draft, as on Overview


def test_the_use_as_target_button_sets_the_target_overview_answers_for(tmp_path: Path) -> None:
    """A target model pasted as a draft on Compare, then moved to the target field with its button."""
    draft_dir = _folder(tmp_path / "llama-draft", _llama_config())
    target_dir = _folder(tmp_path / "llama-8b", json.loads(json.dumps(architectures.known_target(LLAMA_TARGET))))
    at = _router(draft_dir, m=[str(draft_dir), str(target_dir)])
    at.switch_page(COMPARE).run()
    assert not at.exception, at.exception
    next(b for b in at.button if b.label == "Use llama-8b as the target").click().run()
    assert not at.exception, at.exception
    assert at.query_params["draft_target"] == str(target_dir)
    at.switch_page(OVERVIEW).run()
    assert not at.exception, at.exception
    assert f"Target {target_dir}, the {COMPARE_WORDS}" in _captions(at)


def test_the_draft_config_target_wins_and_a_different_compare_target_is_said(tmp_path: Path) -> None:
    draft_dir = _folder(tmp_path / "spec-draft", _llama_config(verifier=LLAMA_TARGET))
    at = _set_target_on_compare(draft_dir, QWEN_TARGET, LLAMA_REF)
    at.switch_page(OVERVIEW).run()
    assert not at.exception, at.exception
    assert at.selectbox(key="ov_ref").value == LLAMA_REF  # the config's Llama target, not the Qwen3 one typed
    said = _captions(at)
    assert f"Target {LLAMA_TARGET}, from your draft's config; {QWEN_TARGET}, the target set on Compare" in said, said
    assert "is not used here" in said

    # the same target typed on Compare: nothing to say
    same = _set_target_on_compare(draft_dir, f"https://huggingface.co/{LLAMA_TARGET}", LLAMA_REF)
    same.switch_page(OVERVIEW).run()
    assert not same.exception, same.exception
    assert "Compare drafts" not in _captions(same), _captions(same)


def _chart_rows(at: AppTest) -> list[dict[str, Any]]:
    """The rows the parameters chart draws (its Arrow datasets)."""
    charts = at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")
    rows: list[dict[str, Any]] = []
    for ds in charts[0].proto.datasets:
        rows += pa.ipc.open_stream(io.BytesIO(ds.data.data)).read_all().to_pylist()
    return rows


def test_a_target_pasted_among_the_drafts_is_left_out_of_the_parameters_chart(tmp_path: Path) -> None:
    draft_dir = _folder(tmp_path / "llama-draft", _llama_config())
    target_dir = _folder(tmp_path / "qwen3-8b", json.loads(json.dumps(architectures.known_target(QWEN_TARGET))))
    at = page_app(COMPARE, timeout=120)
    at.query_params["m"] = [f"registry:{LLAMA_REF}", str(draft_dir), str(target_dir)]
    at.run()
    assert not at.exception, at.exception
    assert at.dataframe[0].value.set_index("draft").loc["qwen3-8b", "role"] == "target"  # the table keeps it
    drawn = {r["draft"] for r in _chart_rows(at)}
    assert drawn == {LLAMA_REF, "llama-draft"}, drawn
    assert "qwen3-8b is shown as the target" in _captions(at)


RESOLVE_CASES = [
    # named, runs' model, typed on Compare, model, origin, in the note ("" = no note)
    (LLAMA_TARGET, None, None, LLAMA_TARGET, "named", ""),
    (LLAMA_TARGET, None, f"https://huggingface.co/{LLAMA_TARGET}/tree/main", LLAMA_TARGET, "named", ""),
    (LLAMA_TARGET, None, QWEN_TARGET, LLAMA_TARGET, "named", f"{QWEN_TARGET}, the target set on Compare drafts"),
    (None, LLAMA_TARGET, QWEN_TARGET, LLAMA_TARGET, "runs", "from your draft's runs"),
    (None, LLAMA_TARGET, LLAMA_TARGET.upper(), LLAMA_TARGET, "runs", ""),  # hub ids are case-insensitive
    (None, None, f"https://huggingface.co/{QWEN_TARGET}", QWEN_TARGET, "compare", COMPARE_WORDS),
    (None, None, "/data/targets/my-70b", "/data/targets/my-70b", "compare", COMPARE_WORDS),
    (None, None, "  ", None, "", ""),
    (None, None, None, None, "", ""),
]


@pytest.mark.parametrize(("named", "run_model", "typed", "model", "origin", "note"), RESOLVE_CASES)
def test_resolve_target(
    named: str | None, run_model: str | None, typed: str | None, model: str | None, origin: str, note: str
) -> None:
    from types import SimpleNamespace

    runs = [SimpleNamespace(kind="measured", model=run_model)] if run_model else []
    got = resolve_target(named, runs, typed)
    assert (got.model, got.origin) == (model, origin)
    assert (note in got.note) if note else not got.note, got.note


def test_the_compare_target_travels_with_the_draft_in_its_link() -> None:
    d = OwnDraft.parse("acme/x", target=f"https://user:secret@huggingface.co/{LLAMA_TARGET}")
    q = d.to_query()
    assert q == {"draft": "acme/x", "draft_target": f"https://huggingface.co/{LLAMA_TARGET}"}
    assert OwnDraft.from_query(q) == d
    assert OwnDraft.from_query({"draft": "acme/x"}).target is None
    with pytest.raises(Exception, match="draft_target is longer"):
        OwnDraft.from_query({"draft": "acme/x", "draft_target": "t" * 501})
