"""Dataset audit's fields outlive a visit to another page (walk BJ, minor).

Leaving the page and coming back emptied the dataset and tokenizer fields while the results they gave stayed shown,
and the tokenizer's caption under the empty field spoke of tokens "estimated as UTF-8 bytes / 4" above counts made
with the walker's own tokenizer.
"""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]


def test_the_audit_form_keeps_what_was_typed_across_pages() -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90).run()
    at.switch_page("pages/audit.py").run()
    assert not at.exception, at.exception
    at.text_input(key="audit_source").set_value("/data/coder_sft.jsonl")
    at.text_input(key="audit_tokenizer").set_value("/data/tokenizer")
    at.text_input(key="audit_split").set_value("validation")
    at.number_input(key="audit_max_length").set_value(4096)
    at.button(key="audit_run").click().run()  # a form's values are committed when it is submitted
    at.text_input(key="dumps_folder").set_value("/data/hs_dump")
    at.button(key="dumps_run").click().run()
    at.switch_page("pages/overview.py").run()
    assert not at.exception, at.exception
    at.switch_page("pages/audit.py").run()
    assert not at.exception, at.exception
    assert at.text_input(key="audit_source").value == "/data/coder_sft.jsonl"
    assert at.text_input(key="audit_tokenizer").value == "/data/tokenizer"
    assert at.text_input(key="audit_split").value == "validation"
    assert at.text_input(key="dumps_folder").value == "/data/hs_dump"
    assert at.number_input(key="audit_max_length").value == 4096
