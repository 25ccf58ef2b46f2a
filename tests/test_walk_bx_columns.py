"""Walk BX 4 (low): at 1400 px the Stored runs table cut every draft name to "ferrylab", and the learning curve's
acceptance columns sat past the half grid's edge behind a long run label. Text columns are fitted to their longest
value (Streamlit samples a few rows), and the live table's run column up to what leaves its key columns on screen
(tests/test_charts_walk.py checks the sums). Compare runs keeps whole names first; with a long label its acceptance
columns may still need a scroll (left, said in the closing note)."""

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
    """The learning curve's live table shares half the grid with the published one: its run column stops where live
    AL and tau_sim_last still fit. Compare runs keeps run names whole (tests/test_browser.py: issue 19 item 10)."""
    label = "#9 EAGLE-3 steps=1 topk=1 ndt=2 (chain s1 rerun)"
    frame = pd.DataFrame({"run": [label, "#5 EAGLE-3 steps=1 topk=1 ndt=2"], "accept_length": [1.7, 1.7]})
    width = _width(app.column_config(tables.LIVE_ACCEPTANCE, frame), "run")
    assert width == tables.LIVE_ACCEPTANCE.pinned_max_px < tables.fit_px([label], "run"), width
    assert tables.RUN_COMPARISON.pinned_max_px is None
