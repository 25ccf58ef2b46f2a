"""Tables of tall (wrapped) rows show their rows, up to a dozen, without scrolling inside the table.

Walk Q: Live benchmark's "Compare runs" (72 px rows, "why no speedup" wrapped) showed 5 of its 9 runs at 1400 px.
"""

from __future__ import annotations

import pytest

import app
from comparelib import tables


@pytest.mark.parametrize(
    ("rows", "row_height", "height"),
    [
        (9, tables.WRAP_ROW_PX, 9 * tables.WRAP_ROW_PX + app.TABLE_CHROME_PX),  # all nine on screen
        (30, tables.WRAP_ROW_PX, 12 * tables.WRAP_ROW_PX + app.TABLE_CHROME_PX),  # a dozen, then it scrolls
        (0, tables.WRAP_ROW_PX, tables.WRAP_ROW_PX + app.TABLE_CHROME_PX),
        (9, None, "auto"),  # Streamlit's own rows: its own height
    ],
)
def test_table_height(rows: int, row_height: int | None, height: int | str) -> None:
    assert app.table_height(rows, row_height) == height
    if isinstance(height, int):
        assert height - app.TABLE_CHROME_PX >= min(rows, 9) * tables.WRAP_ROW_PX
