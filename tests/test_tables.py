"""Column descriptions drive both the page and the exports: numbers stay numbers in CSV/JSON, carry
units in Markdown/LaTeX, LaTeX keeps the paper columns, times are ISO 8601, missing cells are empty."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pandas as pd
import pytest

from comparelib import export, tables
from comparelib.live.store import Store
from comparelib.models import comparison

AQ = "AQ-MedAI/Kimi-K2-Instruct-eagle3"


@pytest.fixture(scope="module")
def params_frame() -> pd.DataFrame:
    entries = [comparison.load_entry(f"registry:{AQ}"), comparison.load_entry(comparison.EXAMPLE_OWN)]
    return comparison.table(entries)


def test_latex_keeps_the_columns_that_matter(params_frame: pd.DataFrame) -> None:
    tex = export.render(params_frame, "latex", table=tables.DRAFT_PARAMS)
    header = tex.splitlines()[0]
    # 11 columns, not 22: the last, train_source, says where train_samples comes from (walk AN), wrapped
    assert header == "\\begin{tabular}{lrrrrrrrrrp{6cm}}"
    assert "excluding\\_embedding" in tex and "lint\\_warnings" not in tex and "1,190,948,864" in tex
    assert "bf16 (GiB)" in tex  # the unit once, in the header
    body = tex.split("\\midrule", 1)[1]
    assert "GiB" not in body  # not repeated in every cell


def test_a_small_drafts_memory_is_not_zero() -> None:
    col = tables.DRAFT_PARAMS.get("bf16_GiB")
    assert col is not None and col.text(0.0093) == "0.009 GiB"


def test_json_and_csv_keep_numbers_as_numbers(params_frame: pd.DataFrame) -> None:
    records = json.loads(export.render(params_frame, "json", table=tables.DRAFT_PARAMS))
    assert records[0]["excluding_embedding"] == 1_190_948_864 and isinstance(records[0]["bf16_GiB"], float)
    assert records[1]["train_samples"] is None  # missing: null, never "None"
    csv_text = export.render(params_frame, "csv", table=tables.DRAFT_PARAMS)
    assert "None" not in csv_text and "1190948864" in csv_text


def test_the_ratios_read_as_percents_on_screen_and_in_markdown_and_stay_fractions_in_csv_and_json(
    params_frame: pd.DataFrame,
) -> None:
    """Walk Q: "0.0012" told little; the grid draws Streamlit's "percent" (up to two places, trailing zeros
    dropped) and Markdown writes the same text; CSV and JSON keep the fraction, rounded to four places."""
    for name in ("draft_to_target", "draft_to_active"):
        col = tables.DRAFT_PARAMS.get(name)
        assert col is not None and col.printf() == "percent"
        assert [col.text(v) for v in (0.00116, 0.065, 0.05289, 0.5)] == ["0.12%", "6.5%", "5.29%", "50%"]
    md = export.render(params_frame, "md", table=tables.DRAFT_PARAMS)
    assert "| 0.12% |" in md and "| 3.62% |" in md
    records = json.loads(export.render(params_frame, "json", table=tables.DRAFT_PARAMS))
    assert (records[0]["draft_to_target"], records[0]["draft_to_active"]) == (0.0012, 0.0362)


# (column, value, markdown text)
MD_CASES = [
    ("output tok/s", 2827.71234, "2,827.7"),
    ("speedup", 1.05855, "1.06x"),
    ("TTFT p50 ms", 21.04, "21.0"),
    ("num_steps", 3, "3"),
]


@pytest.mark.parametrize(("column", "value", "text"), MD_CASES)
def test_markdown_numbers_read_like_the_page(column: str, value: float, text: str) -> None:
    df = pd.DataFrame({"run": ["a", "b"], column: [value, None]})
    md = export.render(df, "md", table=tables.RUN_COMPARISON)
    assert f"| a | {text} |" in md and "| b |  |" in md and "None" not in md and "nan" not in md


def test_runs_frame_times_are_datetimes_and_export_as_iso(tmp_path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    rid = store.start_run(
        endpoint="http://h:1", server_config={"engine": "sglang"}, created_at=datetime(2026, 3, 1, 12, 30, tzinfo=UTC)
    )
    store.finish_run(rid, {"requests": 2, "output_tokens_per_s": 123.456}, status="interrupted")
    frame = store.runs_frame()
    assert pd.api.types.is_datetime64_any_dtype(frame["created_at"])
    rec = json.loads(export.render(frame, "json", table=tables.RUNS))[0]
    assert rec["created_at"] == "2026-03-01T12:30:00+00:00"
    assert rec["output_tokens_per_s"] == 123.5 and rec["status"] == "interrupted" and rec["topk"] is None


def test_streamlit_formats_come_from_the_same_description() -> None:
    assert tables.RUN_COMPARISON.get("speedup").printf() == "%.2fx"
    assert tables.RUNS.get("ttft_p50_ms").printf() == "%.1f ms"
    assert tables.DRAFT_PARAMS.get("total").printf() == "localized"
    assert tables.DRAFT_PARAMS.get("draft").pinned


def test_text_width_is_the_grids_font_never_less() -> None:
    # 199.99 px as Chromium's canvas draws it in the grid's font (tests/test_browser.py measures the same way);
    # kerning only narrows, so the sum of advances is an upper bound within a few px
    assert 199.99 <= tables.text_px(AQ) <= 199.99 + 3
    assert tables.text_px("m") > tables.text_px("i")
    assert tables.text_px("漢") == 14.0  # outside the table: a full em


@pytest.mark.parametrize(
    ("values", "title", "expected"),
    [
        ([AQ, "acme/kimi-draft@82eefc8"], "draft", 202 + 16 + 2),  # the longest name, padding, rounding
        ([AQ, None, float("nan")], "draft", 202 + 16 + 2),  # missing cells are skipped
        ([], "draft", 32 + 16 + 2),  # no rows: the (bold) title fits
        (["x" * 200], "draft", tables.MAX_FIT_PX),  # Streamlit's cap on a fitted column
    ],
)
def test_fit_px(values: list[object], title: str, expected: int) -> None:
    assert tables.fit_px(values, title) == expected


@pytest.mark.parametrize(
    ("table", "column"),
    [
        (tables.DRAFT_PARAMS, "draft"),
        (tables.FINDINGS, "draft"),
        (tables.RUN_COMPARISON, "run"),
        (tables.RUNS, "group"),
        (tables.RUNS, "model"),
    ],
)
def test_user_named_key_columns_fit_their_content(table: tables.Table, column: str) -> None:
    """No fixed width that cuts a user's names (issue 19, item 10): the page sizes them to their content."""
    col = table.get(column)
    assert col is not None and col.width is None


def test_the_runs_table_leads_with_what_a_run_is_and_measured() -> None:
    """Walk M: at 1400 px the stored runs' tok/s and AL sat past the grid's right edge, behind group, target model,
    status and engine."""
    lead = [c.name for c in tables.RUNS.columns[:10]]  # batch: walk O's #3 and #7 differed only in it
    assert lead == [
        "id", "draft", "engine", "batch", "num_steps", "topk", "output_tokens_per_s", "accept_length",
        "accept_length_mean", "speculative_algorithm",
    ]  # fmt: skip


def test_the_plan_table_leads_with_the_gain_and_shows_whole_headers() -> None:
    """Walk M: at 1400 px "samples needed" read "samples ne..." and the gain sat past the grid's edge."""
    names = [c.name for c in tables.PLAN.columns]
    assert names[:6] == ["rank", "option", "gain_tok_s", "per_gpu_hour", "al", "samples_needed"]
    # a fixed width fits its label: about 7 px a character, plus padding and the sort mark
    for c in tables.PLAN.columns:
        if isinstance(c.width, int):
            assert c.width >= 7 * len(c.label or c.name) + 16, c


def test_the_live_acceptance_headers_are_whole() -> None:
    """Walk BS 6: at 1400 px the learning curve's live table cut "tau_sim_last" to "tau_sim_la" (102 px)."""
    for c in tables.LIVE_ACCEPTANCE.columns:
        if isinstance(c.width, int):
            assert c.width >= tables.fit_px([], c.title), (c.name, c.width, tables.fit_px([], c.title))
