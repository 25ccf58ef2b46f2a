"""Walk BW 3 (normal): batch 1 swept num_steps 1..3, batch 8 measured num_steps 3 alone. The plan said at batch 8 the
best "is not known: ... rests on a draft-step cost assumed, not measured", and in the same sentence named "batch 64: 5
(6, 7 tie; all predicted) at 8,157.6 tok/s ... on the per-step cost assumed at batch 8, 2.369 ms ... not measured": a
best further from any run, on the assumption it had just declined. A batch no run measured whose figures at other
num_steps rest on that assumption has no best either: the row says so, and gives the num_steps the runs anchor.

Here (walk AR's runs) batch 1 swept 1..5 and batch 16 measured 3 alone: batch 8 lies between them and batch 64 past
them, and both named a best (3, and 4 with 5, 6 tied) on batch 16's assumed step cost."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from comparelib.analysis import plan
from tests.test_walk_ar_one_step_batch import _inputs


@pytest.mark.parametrize("rank_batch", [1, 16])
def test_a_batch_predicted_on_an_assumed_step_cost_names_no_best(tmp_path: Path, rank_batch: int) -> None:
    result = plan.build(_inputs(tmp_path), rank_batch=rank_batch)
    (ns,) = [o for o in result.options if o.kind == "num-steps"]
    note = ns.note
    assert "batch 64: 4" not in note and "batch 8: 3 at" not in note, note
    for b, cycle in (("8", "between them"), ("64", "past them")):
        said = re.search(
            rf"batch {b}: the best is not known \(no run measured batch {b}, and at num_steps other than "
            r"3 what it gives rests on the per-step cost assumed at batch 16, 6\.438 ms \(run #19 measured "
            r"num_steps 3 alone there\), not measured\); num_steps 3 at ([\d,.]+) tok/s predicted from "
            r"batch 1 and 16 runs",
            note,
        )
        assert said is not None, (b, note)
        # the row's figure there is the anchored num_steps', as said
        assert f"{ns.tok_s[b].value:,.1f}" == said.group(1), (ns.tok_s[b], said.group(1))
        assert cycle in note
    best = next(e["value"] for e in ns.evidence if e["what"] == "best num_steps per batch")
    assert "8" not in best and "64" not in best and best["1"] == 3, best
    served = re.search(r"The served num_steps is the best or ties it [^:]*: no other", note)
    assert served is None or " 8" not in served.group(0), served.group(0)
