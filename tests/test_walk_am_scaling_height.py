"""Acceptance vs data stays short with a plateaued log loaded, and says everything it said (walk AM, issue 19).

22e7761 read the training log before the headline, so the log's verdict now leads "What more data would buy" in the
same run (it was one run late). That added line took the page to 3,058 px at 1400 px with the journey's data (limit
3,000: the page leads with its answer and one chart, derivations in fold-outs). The plan's other samples figure (a
derivation: another model's fit) moved into the fit's fold-out, beside the fit's formula; the answer is one block,
and what it was read from (your run, which runs are yours, the inputs) one caption.
"""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from comparelib import settings
from comparelib.analysis import verdicts
from comparelib.live.store import Store
from tests.fixtures import page_app
from tests.test_journey import _plateau_log


def _page(log: Path, group: str | None = None) -> AppTest:
    """The page through the router where a run group is given (picked in the sidebar for your draft), else alone."""
    if group is None:
        at = page_app("../pages/scaling.py", timeout=120)
    else:
        at = AppTest.from_file(str(Path(__file__).parents[1] / "app.py"), default_timeout=120)
        at.run()
        at.selectbox(key="draft_group").set_value(group)
        next(b for b in at.button if b.label == "Use this draft").click().run()
        assert not at.exception, at.exception
        at.switch_page("pages/scaling.py")
    at.session_state["sc_tab"] = "Learning curve"
    at.run()
    at.text_input(key="lc_path").input(str(log))
    at.run()
    assert not at.exception, at.exception
    return at


def _expander(at: AppTest, title: str):  # type: ignore[no-untyped-def]
    return next(e for e in at.expander if e.label.startswith(title))


def test_the_plateau_leads_and_the_plans_figure_is_said_in_the_fits_fold_out(tmp_path: Path) -> None:
    at = _page(_plateau_log(tmp_path / "plateau.log"))
    heads = [m.value for m in at.markdown if m.value.startswith("**Your training log")]
    assert len(heads) == 1, heads
    head = heads[0]
    # the answer in one block: the log's verdict first, the trend's figure (with its model named) on the next line
    assert head.startswith("**Your training log (Learning curve tab) has plateaued"), head
    assert "  \nFor a draft on the published trend (not your draft's evidence above): To reach" in head, head
    assert "by the log-linear fit" in head and "(acceptance linear in log samples, no ceiling)" in head, head
    assert verdicts.PLAN_DIFFERS not in head, head
    # ... and the plan's other figure is still on the page, once: in the fold-out with the fit's formula
    fold = _expander(at, "The fit, its prediction at your volume")
    said = [c.value for c in fold.caption if verdicts.PLAN_DIFFERS in c.value]
    assert len(said) == 1 and said[0].startswith("Fit: acceptance = "), [c.value for c in fold.caption]
    everywhere = [m.value for m in (*at.markdown, *at.caption) if verdicts.PLAN_DIFFERS in m.value]
    assert len(everywhere) == 1, everywhere


def test_what_the_answer_was_read_from_is_one_caption(tmp_path: Path) -> None:
    """The journey's runs: a SGLang pair and a vLLM run in the run group picked for the example draft."""
    store = Store(settings.database_url())
    for engine, tok_s, spec in (("sglang", 730.0, "EAGLE3"), ("sglang", 299.5, None), ("vllm", 800.0, "eagle3")):
        cfg = {
            "engine": engine,
            "model": "acme/target",
            "speculative_algorithm": spec,
            "num_steps": 4 if spec else None,
        }
        rid = store.start_run(endpoint="http://127.0.0.1:30000", server_config=cfg, group="story", params={})
        store.finish_run(rid, {"requests": 8, "output_tokens_per_s": tok_s, "accept_length": 3.1 if spec else None})
    at = _page(_plateau_log(tmp_path / "plateau.log"), group="story")
    said = [c.value for c in at.caption if "Change them under 'Benchmark, setting" in c.value]
    assert len(said) == 1, said
    lines = said[0].split("  \n")
    # your run, then the inputs, one line each (the journey's gated draft adds "No run names your draft ..." between)
    assert len(lines) == 2, lines
    assert lines[0].startswith("Your acceptance: 3.10, run #1 (the speculative run of the best comparable pair"), lines
    assert lines[1].startswith("GSM8K at "), lines
    assert [c.value for c in at.caption if "Your acceptance" in c.value] == said  # not also a caption of its own


def test_the_cli_still_says_the_plans_figure_after_its_own() -> None:
    """The library's sentence is unchanged: only the page moves the note (``verdicts.plan_note_apart``)."""
    lines = [
        "**lead**",
        "To reach 3 on GSM8K you need about 2M samples by the log-linear fit. " + verdicts.PLAN_DIFFERS,
    ]
    kept, note = verdicts.plan_note_apart(lines)
    assert kept == ["**lead**", "To reach 3 on GSM8K you need about 2M samples by the log-linear fit."]
    assert note == verdicts.PLAN_DIFFERS
    assert verdicts.plan_note_apart(kept) == (kept, None)
