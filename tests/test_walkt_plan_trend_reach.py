"""Walk T (seen while fixing the clipped trend): the plan's "above the trend" row printed the inverse of the pooled
fit as a figure however far past the evidence it fell: "(a draft on the trend reaches the target 5.149 ... at
258,648,700,930,606,548,188,932,183,804,456,030,715,977,770,940,585,528,608,686,080 samples)". The other rows give
no figure past 1,000x the most the fit was fitted on, and call one past 100x far past the evidence; so does this one.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from comparelib.analysis import plan, scaling
from comparelib.models import comparison
from tests.test_sweep import rec

LING = "inclusionAI/Ling-flash-2.0"


def test_an_exploded_inverse_is_not_a_samples_figure() -> None:
    def run(id_: int, steps: int | None, tok_s: float, al: float | None = None) -> Any:
        return replace(rec(id_, steps, tok_s, al, concurrency=1, group="g", prompt_set="gsm8k"), model=LING)

    runs = [run(1, None, 46.8), run(2, 2, 70.0, 2.3), run(3, 3, 79.1, 2.6), run(4, 4, 76.6, 2.8), run(5, 7, 60.0, 3.3)]
    entry = comparison.load_entry("example:own-kimi-k2.5-draft", with_header=False, with_card=False)
    inputs = plan.inputs_for(entry, published=scaling.published_points(), own_samples=1000, own_samples_source="typed")
    inputs = replace(inputs, runs=tuple(runs), target_label=LING, family=scaling.family_of(LING), draft_label="mine")
    result = plan.build(inputs, steps=7)
    note = next(o for o in result.options if o.kind == "more-data").note
    assert note.startswith("Your draft sits above the published trend: it measured 3.30 (run #5 at (7,1,8))"), note
    counts = [int(n.replace(",", "")) for n in re.findall(r"\d{1,3}(?:,\d{3})+", note)]
    assert result.fit is not None and all(n <= result.fit.x_max * plan.OUT_OF_REACH for n in counts), note
    assert "is out of reach of the fitted trend within 1,000x the most it was fitted on" in note, note
