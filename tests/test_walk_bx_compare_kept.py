"""Walk BX 3 (low): a second draft pasted under your own in Compare's "Your drafts" was gone after a visit to another
page: the field showed your draft alone and the comparison had to be pasted and run again. The drafts compared, the
published ones picked and the target's layers are kept across pages, as the other pages' fields are."""

from __future__ import annotations

from pathlib import Path

from tests.test_compare_target_carry import COMPARE, OVERVIEW, _folder, _llama_config, _router


def test_drafts_pasted_on_compare_stay_after_a_visit_to_another_page(tmp_path: Path) -> None:
    draft_dir = _folder(tmp_path / "my-draft", _llama_config())
    other_dir = _folder(tmp_path / "second-draft", _llama_config())
    at = _router(draft_dir)
    at.switch_page(COMPARE).run()
    assert not at.exception, at.exception
    urls = f"{draft_dir}\n{other_dir}"
    at.text_area(key="compare_urls").set_value(urls)
    at.multiselect(key="compare_picks").set_value(["AQ-MedAI/Kimi-K2-Instruct-eagle3"])
    next(b for b in at.button if b.label == "Compare").click().run()
    assert not at.exception, at.exception
    rows = " ".join(str(v) for v in at.dataframe[0].value["draft"])
    assert "second-draft" in rows, rows
    for page in (OVERVIEW, "pages/scaling.py"):
        at.switch_page(page).run()
        assert not at.exception, at.exception
        # a page switch in the browser leaves the comparison's link parameters behind (AppTest keeps them)
        for key in ("m", "target", "layers", "target_all"):
            at.query_params.pop(key, None)
        at.switch_page(COMPARE).run()
        assert not at.exception, at.exception
        assert at.text_area(key="compare_urls").value == urls, (page, at.text_area(key="compare_urls").value)
        assert at.multiselect(key="compare_picks").value == ["AQ-MedAI/Kimi-K2-Instruct-eagle3"]
        rows = " ".join(str(v) for v in at.dataframe[0].value["draft"])
        assert "second-draft" in rows and "Kimi-K2-Instruct" in rows, (page, rows)
