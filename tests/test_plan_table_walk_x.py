"""The plan table on walk X's group (a tree and chains at batch 1 and 4): every export carries the page's columns and
the same rounded numbers.

The LaTeX export kept seven "paper" columns: the tok/s at each batch (the plan's answer) and the note saying which
figures are measured and which predicted were dropped, while the page, CSV and Markdown carried them. The tree's
batch-4 tok/s (a batch only the tree gives a figure at) had no column description: the page drew it unformatted, and
CSV and Markdown wrote 455.3902094482915.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import pytest

from comparelib import export, tables
from comparelib.analysis import plan
from comparelib.live.store import RunRecord
from tests.test_plan_trees_walk_x import IDS, _plan, walk_x
from tests.test_trees_walk_x import MEASURED

if TYPE_CHECKING:
    from streamlit.testing.v1 import AppTest

# walk X's measured tok/s, unrounded as the store held them: run id -> tok/s
EXACT = {
    IDS[b][key]: MEASURED[(b, None if key == "base" else 3 if key == "tree" else key, 4 if key == "tree" else 1)][0]
    for b in (1, 4)
    for key in IDS[b]
}


def _exact_walk_x() -> list[RunRecord]:
    return [replace(r, output_tokens_per_s=EXACT.get(r.id, r.output_tokens_per_s)) for r in walk_x()]


_LATEX_UNESCAPE = [
    (r"\textbackslash{}", "\\"),
    (r"\textasciitilde{}", "~"),
    (r"\textasciicircum{}", "^"),
    *((f"\\{c}", c) for c in "&%$#_{}"),
]


def _latex_cells(line: str) -> list[str]:
    cells = []
    for cell in line.rstrip().removesuffix("\\\\").split(" & "):
        cell = cell.strip()
        for escaped, plain in _LATEX_UNESCAPE:
            cell = cell.replace(escaped, plain)
        cells.append(cell)
    return cells


def _parsed(text: str, fmt: str) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of an export, cells as text with the format's escapes undone."""
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(text)))
        return rows[0], rows[1:]
    if fmt == "md":
        lines = text.strip().splitlines()

        def cut(line: str) -> list[str]:
            return [c.strip().replace("\\|", "|") for c in line.strip()[1:-1].split(" | ")]

        return cut(lines[0]), [cut(line) for line in lines[2:]]
    head = text.split("\\toprule\n", 1)[1].split("\\midrule", 1)[0]
    body = text.split("\\midrule\n", 1)[1].split("\\bottomrule", 1)[0]
    return _latex_cells(head.strip()), [_latex_cells(line) for line in body.strip().splitlines()]


def _shown(result: plan.Plan) -> tuple[pd.DataFrame, tables.Table]:
    """The plan's frame and table as Overview shows and exports them."""
    frame = result.frame()
    table = tables.plan_table_of(list(frame.columns))
    return frame[table.order(list(frame.columns))], table


def _number(cell: str) -> float | None:
    """A numeric cell as a number: thousands separators and a unit dropped ("86.7 TB", "737,893", "1{,}190")."""
    cell = cell.replace("{,}", "").replace(",", "").removesuffix(" TB").strip()
    return float(cell) if cell else None


@pytest.mark.parametrize("rank", [1, 4])
def test_every_export_of_the_plan_table_carries_the_pages_columns_and_numbers(rank: int) -> None:
    frame, table = _shown(_plan(_exact_walk_x(), rank))
    # every column the page shows is described (units, decimals): the tree's batch-4 tok/s was not
    assert [c for c in frame.columns if table.get(str(c)) is None] == []
    tok = [c for c in frame.columns if str(c).startswith("tok_s_bs")]
    assert tok == ["tok_s_bs1", "tok_s_bs4", "tok_s_bs8", "tok_s_bs64"], list(frame.columns)
    parsed = {fmt: _parsed(export.render(frame, fmt, table=table), fmt) for fmt in ("csv", "md", "latex")}
    # LaTeX names a column with a unit by its label and unit once ("offline storage (TB)"): read back to its name
    by_header = {c.header: c.name for c in table.columns if c.unit}
    headers = {fmt: [by_header.get(h, h) for h in head] for fmt, (head, _) in parsed.items()}
    assert headers["csv"] == list(frame.columns)
    assert headers["md"] == headers["csv"], headers
    assert headers["latex"] == headers["csv"], headers
    # the same rounded numbers and the same words in every format, row for row
    numeric = {c.name for c in table.columns if c.kind in ("int", "float")}
    for fmt in ("md", "latex"):
        assert len(parsed[fmt][1]) == len(parsed["csv"][1]) == len(frame)
        for csv_row, row in zip(parsed["csv"][1], parsed[fmt][1], strict=True):
            for name, a, b in zip(headers["csv"], csv_row, row, strict=True):
                if name in numeric:
                    assert _number(a) == _number(b), (fmt, name, a, b)
                else:
                    assert a == b, (fmt, name, a, b)
    # the tree's row: its measured tok/s at both batches, rounded to the table's one decimal everywhere
    head, rows = parsed["csv"]
    tree = next(r for r in rows if r[head.index("kind")] == "tree")
    assert (tree[head.index("tok_s_bs1")], tree[head.index("tok_s_bs4")]) == ("114.7", "455.4"), tree
    md_head, md_rows = parsed["md"]
    md_tree = next(r for r in md_rows if r[md_head.index("kind")] == "tree")
    assert md_tree[md_head.index("tok_s_bs4")] == "455.4", md_tree


def test_the_latex_plan_wraps_its_note_within_the_page() -> None:
    """The note (which figures are measured, which predicted, from what) runs to hundreds of characters: LaTeX sets
    it as a paragraph column, not one line past the page's edge."""
    frame, table = _shown(_plan(_exact_walk_x(), 1))
    tex = export.render(frame, "latex", table=table)
    spec = tex.splitlines()[0].removeprefix("\\begin{tabular}{").removesuffix("}")
    aligns = re.findall(r"p\{[^}]*\}|[lrc]", spec)
    cols = _parsed(tex, "latex")[0]
    assert len(aligns) == len(cols), (spec, cols)
    assert [c for c, a in zip(cols, aligns, strict=True) if a.startswith("p{")] == ["note"], (spec, cols)


def _overview_plan(tmp_path: Path) -> tuple[AppTest, dict[Any, int]]:
    """Overview on walk X's group (stored as the bench page stores it), the plan opened."""
    import streamlit as st

    from comparelib.models import registry
    from tests.fixtures import page_app
    from tests.test_trees_walk_x import GROUP, _store_walk

    ids: dict[Any, int] = _store_walk(tmp_path)
    folder = tmp_path / "llama31-8b-eagle3-fullvocab"
    folder.mkdir()
    config = dict(registry.get_draft("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B").config or {})
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    st.cache_data.clear()
    at = page_app("../pages/overview.py", timeout=120)
    at.query_params["draft"] = str(folder)
    at.query_params["draft_group"] = GROUP
    at.query_params["draft_samples"] = "1000"
    at.run()
    at.session_state["ov_plan"] = True  # the user opens the plan
    at.run()
    assert not at.exception, at.exception
    return at, ids


def test_the_overview_plan_table_draws_every_column_in_the_order_its_exports_carry(tmp_path: Path) -> None:
    at, _ = _overview_plan(tmp_path)
    grid = next(df for df in at.dataframe if "option" in df.value.columns)
    shown = grid.value
    config = json.loads(grid.proto.columns)
    # every column is drawn as its description says (the tree's batch-4 tok/s was drawn raw: "tok_s_bs4", unrounded)
    assert [c for c in shown.columns if c not in config] == [], config
    assert config["tok_s_bs4"]["label"] == "tok/s bs4", config.get("tok_s_bs4")
    assert config["tok_s_bs4"]["type_config"]["format"] == "%.1f", config["tok_s_bs4"]
    # in the order of the frame every export is rendered from
    assert list(grid.proto.column_order) == list(shown.columns), (list(grid.proto.column_order), list(shown.columns))
    tok = [c for c in shown.columns if str(c).startswith("tok_s_bs")]
    assert tok == ["tok_s_bs1", "tok_s_bs4", "tok_s_bs8", "tok_s_bs64"], list(shown.columns)
