"""Walk AJ minor: Compare's LaTeX export carries what is trained, what is frozen and what is stored.

The walk's own draft stores an embedding copy: stored 3,310,383,104 against trainable 2,135,977,984 (measured by
Compare from its config.json and checkpoint header, the walk's CSV export). The CSV said it; the LaTeX export had
no frozen or stored column, so a paper table built from it could not.
"""

from __future__ import annotations

import io

import pandas as pd
import pytest

from comparelib import export, tables

# Two rows of the walk's Compare CSV export (cmp_draft-comparison.csv), some of its columns.
WALK_AJ_CSV = """\
draft,total,excluding_embedding,embedding,lm_head,trainable,frozen,stored,bf16_GiB,draft_to_target,train_samples,lint_warnings
kimi-k27-code-eagle3-own,3310383104,2135977984,1174405120,1174405120,2135977984,1174405120,3310383104,3.979,0.0021,2000,0
AQ-MedAI/Kimi-K2.7-Code-eagle3@1799d63,2365353984,1190948864,1174405120,229376000,1190948864,1174405120,1190941696,2.219,0.0012,400000,0
"""

# (column, the own draft's cell as LaTeX and Markdown write it)
OWN_CELLS = [
    ("trainable", "2,135,977,984"),
    ("frozen", "1,174,405,120"),
    ("stored", "3,310,383,104"),
]


def _cells(text: str, fmt: str) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of a rendered LaTeX tabular or Markdown table, cells stripped, LaTeX escapes undone."""
    if fmt == "latex":
        head = text.split("\\toprule\n", 1)[1].split("\\midrule", 1)[0]
        body = text.split("\\midrule\n", 1)[1].split("\\bottomrule", 1)[0]

        def split(line: str) -> list[str]:
            return [
                c.strip().replace("\\_", "_").replace("{,}", ",")
                for c in line.rstrip().removesuffix("\\\\").split("&")
            ]

        return split(head.strip()), [split(line) for line in body.strip().splitlines()]
    lines = text.strip().splitlines()

    def cut(line: str) -> list[str]:
        return [c.strip() for c in line.strip().strip("|").split("|")]

    return cut(lines[0]), [cut(line) for line in lines[2:]]


@pytest.mark.parametrize("fmt", ["latex", "md"])
@pytest.mark.parametrize(("column", "cell"), OWN_CELLS, ids=[c[0] for c in OWN_CELLS])
def test_the_params_export_carries_trainable_frozen_and_stored(fmt: str, column: str, cell: str) -> None:
    frame = pd.read_csv(io.StringIO(WALK_AJ_CSV))
    header, rows = _cells(export.render(frame, fmt, table=tables.DRAFT_PARAMS), fmt)
    assert column in header, header
    own = next(r for r in rows if r[0] == "kimi-k27-code-eagle3-own")
    assert own[header.index(column)] == cell, dict(zip(header, own, strict=True))


def test_latex_keeps_its_paper_columns_in_the_pages_order() -> None:
    """Trainable, frozen and stored side by side (what training updates, what it holds fixed, what a checkpoint
    keeps), and no descriptive column a page cannot fit."""
    frame = pd.read_csv(io.StringIO(WALK_AJ_CSV))
    header, _ = _cells(export.render(frame, "latex", table=tables.DRAFT_PARAMS), "latex")
    i = header.index("trainable")
    assert header[i : i + 3] == ["trainable", "frozen", "stored"], header
    assert "lint_warnings" not in header
