"""Walk BX 4 (low): at 1400 px the Stored runs table cut every draft name to "ferrylab", and Compare runs' and the
learning curve's acceptance columns sat past the grid's edge behind a long run label. Text columns are fitted to
their longest value (Streamlit samples a few rows), and a pinned name column up to what leaves the key columns on
screen (tests/test_charts_walk.py checks the sums)."""

from __future__ import annotations

import pandas as pd

import app
from comparelib import tables


def _width(cfg: dict, name: str) -> object:
    col = cfg[name]
    return (col if isinstance(col, dict) else dict(col))["width"]


def test_a_draft_name_in_stored_runs_is_fitted_whole() -> None:
    frame = pd.DataFrame({"id": [4, 5], "draft": [None, "ferrylab/k25-eagle3-ferry"], "engine": ["sglang"] * 2})
    width = _width(app.column_config(tables.RUNS, frame), "draft")
    assert isinstance(width, int) and width >= tables.text_px("ferrylab/k25-eagle3-ferry"), width


def test_a_long_run_label_is_capped_so_acceptance_stays_on_screen() -> None:
    label = "#10 speculative steps=2 topk=1 ndt=3 (vllm s2)"
    frame = pd.DataFrame({"run": [label, "#4 baseline"], "num_steps": [2, None]})
    width = _width(app.column_config(tables.RUN_COMPARISON, frame), "run")
    assert width == tables.RUN_COMPARISON.pinned_max_px < tables.fit_px([label], "run"), width
