"""The landing page: the answer first for the built-in example, numbers linked to their pages."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

REF = "AQ-MedAI/Kimi-K2-Instruct-eagle3"


def _run() -> AppTest:
    at = AppTest.from_file("../pages/overview.py", default_timeout=60).run()
    assert not at.exception, at.exception
    return at


def _md(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_answer_first_for_the_example() -> None:
    at = _run()
    assert not at.error
    headline = at.subheader[0].value
    assert headline.startswith("The largest gap is training data: 37K samples against 1.4M (38x fewer).")
    md = _md(at)
    # size outside and with the embedding, linked to the compare page
    assert "[2,135,977,984](/compare?" in md and "[1,190,948,864](/compare?" in md
    assert "[3,310,383,104](/compare?" in md and "[2,365,353,984](/compare?" in md
    assert "all of it is the lm_head: 163,840 x 7,168 over the full vocabulary against 32,000 x 7,168" in md
    assert "1,174,405,120-parameter embedding (163,840 x 7,168), frozen and shared with the target" in md
    # data volume ratio, acceptance at (not) the same setting, live speed
    assert "[37K samples](/audit)" in md and "[38x](/scaling) less data." in md
    assert "[~2.1](/bench)" in md and "[3.17-3.49](/scaling)" in md and "**Settings differ:**" in md
    assert "[94 tok/s](/bench)" in md and "[88.8 tok/s](/bench)" in md and "[+5.9%](/bench)" in md
    assert "(example data)" in md
    # the volume gap in the published data, and links to every page
    assert "38x fewer" in md and "[chart](/scaling)" in md
    for page in ("compare", "audit", "bench", "scaling"):
        assert f"(/{page})" in md


def test_selectors_change_the_answer() -> None:
    at = _run()
    at.selectbox(key="ov_ref").set_value("lmsys/SGLang-EAGLE3-Llama-3.3-70B-Instruct-SpecForge").run()
    assert not at.exception
    md = _md(at)
    assert "lmsys/SGLang-EAGLE3-Llama-3.3-70B-Instruct-SpecForge" in md
    at.selectbox(key="ov_vol").set_value("typed in").run()
    at.number_input(key="ov_vol_typed").set_value(1_400_000).run()
    assert not at.exception
    assert "[1.4M samples](/audit) (typed in)" in _md(at)


def test_our_draft_from_the_registry_and_a_bad_folder() -> None:
    at = _run()
    at.selectbox(key="ov_own").set_value(REF).run()
    assert not at.exception
    assert "same size outside the embedding" in _md(at)
    at.selectbox(key="ov_own").set_value("a local folder with config.json").run()
    at.text_input(key="ov_own_path").set_value("/no/such/folder").run()
    assert not at.exception
    assert any("no config.json at '/no/such/folder'" in e.value for e in at.error)
