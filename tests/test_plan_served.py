"""Walk R: the plan took Overview's pair (batch 8, num_steps 2: the fastest run in tok/s) as what is served at
batch 1, the batch it ranks at, and ranked "num_steps chosen per batch size" first at +7.3 tok/s (98.3 measured at
num_steps 3 against 91.0 at num_steps 2, a batch-1 figure nobody served). At a ranking batch with its own measured
sweep, your fastest measured run there stands for what is served, and the plan says which run that is."""

from __future__ import annotations

import pytest

from comparelib.analysis import plan
from tests.fixtures import stored_run
from tests.test_sweep import _entry

B1 = {1: 82.1, 2: 91.0, 3: 98.3, 4: 97.5, 5: 97.6}  # walk R's batch-1 sweep, baseline 60.4
AL = {1: 1.75, 2: 2.21, 3: 2.56, 4: 2.78, 5: 2.91}


def _runs() -> list:  # type: ignore[type-arg]
    runs = [stored_run(1, None, 60.4, model="acme/target", concurrency=1)]
    runs += [stored_run(1 + k, k, B1[k], AL[k], model="acme/target", concurrency=1) for k in B1]
    runs += [stored_run(10, None, 380.0, model="acme/target", concurrency=8)]
    runs += [stored_run(11, 2, 455.0, AL[2], model="acme/target", concurrency=8)]
    runs += [stored_run(12, 4, 430.0, AL[4], model="acme/target", concurrency=8)]
    return runs


# ranking batch, served num_steps, what the note says is served
CASES = [
    (1, 3, "served: 3 at batch 1, run #4: your fastest measured run at batch 1, the batch the plan ranks at"),
    (8, 2, "served: 2 at batch 8, run #11: Overview's pair"),
]


@pytest.mark.parametrize(("rank", "served", "words"), CASES)
def test_what_is_served_at_the_ranking_batch_is_measured_there(rank: int, served: int, words: str) -> None:
    result = plan.build(plan.inputs_for(_entry(), runs=_runs(), own_samples=37_000.0), rank_batch=rank)
    assert result.served_steps == served
    ns = next(o for o in result.options if o.kind == "num-steps")
    assert words in ns.note, ns.note
    if rank == 1:  # the best measured at batch 1 is what is served there: no num_steps change gains
        assert ns.gain is not None and ns.gain.value == pytest.approx(0.0), ns.gain
        assert not plan.gains(ns, result.noise)


def test_the_fitted_sweeps_fastest_run_is_not_called_overviews_pair() -> None:
    """Walk S: the fastest pair in tok/s is batch 16's (run #21 against #20, a 0.92x loss), the fitted sweep batch
    1's. Overview now leads with batch 1's #4/#1 (1.63x, ``overview.lead_pair``, walk U), so run #4 is Overview's
    pair; walk AW: the plan names it so only where it is the pair Overview leads with."""
    runs = _runs()[:6]  # batch 1's baseline and sweep
    runs += [stored_run(20, None, 495.4, model="acme/target", concurrency=16)]
    runs += [stored_run(21, 3, 455.4, AL[3], model="acme/target", concurrency=16)]
    result = plan.build(plan.inputs_for(_entry(), runs=runs, own_samples=37_000.0), rank_batch=8)
    ns = next(o for o in result.options if o.kind == "num-steps")
    assert "served: 3 at batch 1, run #4: Overview's pair" in ns.note, ns.note
