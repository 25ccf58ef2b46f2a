"""Walk BO6 (high): typing the training samples in the sidebar changed Overview's reference.

The walk's Llama-3.3-70B draft was set against the suggested lmsys SpecForge draft; typing 180000 in "…or training
samples, typed in" and pressing Enter left the "Reference (published)" select on its first option
(yuhuili/EAGLE3-LLaMA3.1-Instruct-8B), which the user never picked, and wrote it into the link as ``reference=``.
Here the select's value that came along with the samples (its first option, as the browser sent it) must not count:
anything about the draft other than its identity never changes the reference.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.fixtures import page_app
from tests.test_compare_default_reference import walk_draft  # noqa: F401 (a fixture: the walk's draft folder)

TARGET = "meta-llama/Llama-3.3-70B-Instruct"
SUGGESTED = "lmsys/SGLang-EAGLE3-Llama-3.3-70B-Instruct-SpecForge"
OTHER = "nebius/EAGLE3-Llama-3.3-70B-Instruct"
SUBMIT = "FormSubmitter:draft_form-Use this draft"


def _overview(draft: Path) -> AppTest:
    at = page_app("../pages/overview.py", timeout=120)
    at.query_params["draft"] = str(draft)
    at.run()
    assert not at.exception, at.exception
    return at


def _type_samples(at: AppTest, samples: int, *, fell_back: bool) -> None:
    """Type ``samples`` in the sidebar and press Enter (the form's submit); ``fell_back``: the reference select
    comes along on its first option, as the walk's browser sent it."""
    if fell_back:
        box = at.selectbox(key="ov_ref")
        box.set_value(box.options[0])
    at.number_input(key="draft_samples").set_value(samples)
    at.button(key=SUBMIT).click().run()
    assert not at.exception, at.exception
    assert at.query_params["draft_samples"] == str(samples)


@pytest.mark.parametrize("fell_back", [False, True])
def test_typed_samples_keep_the_suggested_reference(walk_draft: Path, fell_back: bool) -> None:  # noqa: F811
    at = _overview(walk_draft)
    box = at.selectbox(key="ov_ref")
    assert box.value == SUGGESTED and box.options[0] != SUGGESTED, (box.value, box.options[:3])
    assert "reference" not in at.query_params
    _type_samples(at, 180_000, fell_back=fell_back)
    assert at.selectbox(key="ov_ref").value == SUGGESTED
    assert at.session_state["ov_ref"] == SUGGESTED
    assert "reference" not in at.query_params  # nothing was picked: the link names no reference
    at.run()  # and it holds on the next run
    assert at.selectbox(key="ov_ref").value == SUGGESTED and "reference" not in at.query_params
    _type_samples(at, 250_000, fell_back=fell_back)  # changed again
    assert at.selectbox(key="ov_ref").value == SUGGESTED and "reference" not in at.query_params


@pytest.mark.parametrize("fell_back", [False, True])
def test_typed_samples_keep_a_picked_reference(walk_draft: Path, fell_back: bool) -> None:  # noqa: F811
    at = _overview(walk_draft)
    at.selectbox(key="ov_ref").set_value(OTHER).run()
    assert not at.exception, at.exception
    assert at.selectbox(key="ov_ref").value == OTHER and at.query_params["reference"] == OTHER
    _type_samples(at, 180_000, fell_back=fell_back)
    assert at.selectbox(key="ov_ref").value == OTHER
    assert at.query_params["reference"] == OTHER  # the pick stays in the link
    at.run()
    assert at.selectbox(key="ov_ref").value == OTHER and at.query_params["reference"] == OTHER


def _use_draft(at: AppTest, source: str) -> None:
    at.text_input(key="draft_source").set_value(source)
    at.button(key=SUBMIT).click().run()
    assert not at.exception, at.exception


def test_a_picked_reference_comes_back_with_its_draft(walk_draft: Path) -> None:  # noqa: F811
    """Walk BS 1 (normal): a reference picked on Overview was gone after pasting another draft (the target) and the
    draft again, and the headline changed with it ("the largest gap is training data" to "... is size"); the
    sidebar brings back the draft's samples and runs, and the pick comes back with them. The other draft opens
    on its own suggestion, and a pick made on Acceptance vs data comes back there the same way."""
    at = _overview(walk_draft)
    at.selectbox(key="ov_ref").set_value(OTHER).run()
    assert at.selectbox(key="ov_ref").value == OTHER and at.query_params["reference"] == OTHER
    _use_draft(at, TARGET)
    assert at.selectbox(key="ov_ref").value != OTHER and "reference" not in at.query_params
    _use_draft(at, str(walk_draft))
    assert at.selectbox(key="ov_ref").value == OTHER, at.selectbox(key="ov_ref").value
    assert at.query_params["reference"] == OTHER  # a pick again: in the link
    at.run()
    assert at.selectbox(key="ov_ref").value == OTHER and at.query_params["reference"] == OTHER


def test_a_reference_picked_on_acceptance_vs_data_comes_back_with_its_draft(walk_draft: Path) -> None:  # noqa: F811
    at = page_app("../pages/scaling.py", timeout=120)
    at.query_params["draft"] = str(walk_draft)
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="sc_ref").value == SUGGESTED
    at.selectbox(key="sc_ref").set_value(OTHER).run()
    assert at.selectbox(key="sc_ref").value == OTHER
    _use_draft(at, TARGET)
    assert at.selectbox(key="sc_ref").value != OTHER
    _use_draft(at, str(walk_draft))
    assert at.selectbox(key="sc_ref").value == OTHER, at.selectbox(key="sc_ref").value
