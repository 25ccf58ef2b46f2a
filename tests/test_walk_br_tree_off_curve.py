"""Walk BR 4: a tree run (SGLang, topk 4, 8 draft tokens, AL 3.60) was drawn on the learning curve as a "live
acceptance length" rule beside chains at num_steps 3, and its tau_sim set beside it in the table: tau_sim sums a
chain's per-position rates, and a tree accepts more per cycle at the same depth, so it is not on the curve's scale.
Trees are left off the curve, with no tau_sim, and said so as other num_steps are."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from comparelib.analysis import curves
from tests.test_qwen3_walk import _log, _run


def test_a_tree_is_not_on_a_chains_curve(tmp_path: Path) -> None:
    lc = curves.curve([str(_log(tmp_path / "specforge.csv"))], steps=3)
    runs = [
        _run(1, None),
        _run(2, 3, 3.33, engine="sglang", topk=1, ndt=4),
        _run(3, 3, 3.60, engine="sglang", topk=4, ndt=8),
        _run(4, 5, 3.70),
    ]
    frame = curves.live_frame(runs, lc)
    tree = frame[frame["run"].str.startswith("#3")].iloc[0]
    assert pd.isna(tree["tau_sim_last"]) and pd.isna(tree["tau_sim_peak"]), tree
    chain = frame[frame["run"].str.startswith("#2")].iloc[0]
    assert chain["tau_sim_last"] == chain["tau_sim_last"]  # a number: a chain at the curve's positions
    on, off = curves.on_curve(frame, lc.positions)
    assert [r.split(" ")[0] for r in on["run"]] == ["#2"], on
    assert off == "Not drawn on the curve (it sums 3 positions): #4 at num_steps 5; #3, a tree (topk 4).", off
