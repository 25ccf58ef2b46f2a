"""The plan ranks at every batch size the user measured a pair at, not only at 1, 8 and 64.

A user who measured speculative and baseline runs at batch (concurrency) 16 or 32 saw those pairs in the plan's notes
but could rank only at 1, 8 or 64 (the page's "Rank at batch size", ``plan --rank-batch`` with ``choices=(1, 8, 64)``).
At a measured batch the current tok/s is the measured run's, not the speed model's, and every gain there is against it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from comparelib.analysis import plan
from comparelib.errors import InputError
from comparelib.live.store import RunRecord
from tests.fixtures import bench_config, bench_store, cli_in_process, store_run
from tests.test_losing_batch import B1, BASE16, SPEC16, _run, walk_s
from tests.test_sweep import _entry

# batch 32's own sweep (baseline #20 at 800.0 tok/s, num_steps 1..4 in runs #21..#24): num_steps 3 measured off the
# line the sweep's fit draws, so the fit's figure there is not the measured one
B32 = {1: 900.0, 2: 1000.0, 3: 1100.0, 4: 1000.0}


def sweep32() -> list[RunRecord]:
    runs = walk_s()[:6]  # batch 1's baseline (#4) and sweep (#5..#9)
    runs += [_run(20, None, 800.0, batch=32)]
    runs += [_run(20 + k, k, t, B1[k][1], batch=32) for k, t in B32.items()]
    return runs


def _inputs(runs: list[RunRecord]) -> plan.Inputs:
    return plan.inputs_for(_entry(), runs=runs, own_samples=5_001.0)


def _option(result: plan.Plan, kind: str) -> plan.Option:
    return next(o for o in result.options if o.kind == kind)


def _source(result: plan.Plan, batch: int) -> plan.Source:
    sid = result.current["tok_s_source"][str(batch)]
    return next(s for s in result.sources if s.id == sid)


# the runs, the batch sizes the plan offers to rank at
OFFERED = [
    ("losing pair at 16", walk_s(), (1, 8, 16, 64)),
    ("winning pair at 16", walk_s(16, BASE16, 600.0), (1, 8, 16, 64)),
    ("pair at 8: no second 8", walk_s(8, 300.0, 270.0), (1, 8, 64)),
    ("sweep at 32", sweep32(), (1, 8, 32, 64)),
    ("batch 1 only", walk_s()[:6], (1, 8, 64)),
    ("32 without a baseline", walk_s() + [_run(30, 3, 900.0, B1[3][1], batch=32)], (1, 8, 16, 64)),
    ("no runs", [], (1, 8, 64)),
]


@pytest.mark.parametrize(("case", "runs", "offered"), OFFERED, ids=[c[0] for c in OFFERED])
def test_the_plan_offers_every_batch_with_a_measured_pair(case: str, runs: list[RunRecord], offered: tuple) -> None:  # type: ignore[type-arg]
    assert plan.rank_batches(_inputs(runs)) == offered, case


def test_at_a_measured_losing_batch_serving_without_speculation_leads_with_its_measured_gain() -> None:
    result = plan.build(_inputs(walk_s()), rank_batch=16)
    assert result.rank_batch == 16
    first = result.options[0]
    assert first.kind == "no-speculation" and first.title == "Serve without speculation at batch >= 16"
    assert first.gain is not None and first.gain.value == pytest.approx(BASE16 - SPEC16), first.gain
    assert "Gain at batch 16: +40.0 tok/s measured (run #10 against run #11)." in first.note, first.note
    assert (plan.lead(result) or "").startswith("**Ranked first: Serve without speculation at batch >= 16.**")
    # no speculative tok/s there: none is predicted, so no option claims a gain against one
    assert "16" not in result.current["tok_s"], result.current
    assert "run #11: 455.4 tok/s against 495.4 without, run #10, 0.92x" in result.current["tok_s_not_predicted"]["16"]
    for o in result.options[1:]:
        assert o.gain is None or o.gain.value is None, (o.kind, o.gain)
    assert plan.current_words(result) == (
        "Served now at batch 16: no speculative tok/s is predicted there: speculation lost at batch 16 (run #11: "
        "455.4 tok/s against 495.4 without, run #10, 0.92x)."
    )


def test_at_a_measured_winning_batch_the_current_tok_s_is_the_measured_run() -> None:
    result = plan.build(_inputs(walk_s(16, BASE16, 600.0)), rank_batch=16)
    assert result.served_steps == 3
    assert result.current["tok_s"]["16"] == pytest.approx(600.0)
    src = _source(result, 16)
    assert src.kind == "measured" and "run #11" in src.text and "600.0 tok/s" in src.text, src.text
    assert not any(o.kind == "no-speculation" for o in result.options)
    more = _option(result, "more-data")
    assert more.gain is not None and more.gain.value == pytest.approx(more.tok_s["16"].value - 600.0)
    assert plan.current_words(result) == (
        "Served now at batch 16: 600.0 tok/s, measured (run #11, num_steps 3); every gain at batch 16 is against it."
    )


# the runs, the ranking batch, the served num_steps, the measured tok/s there and the run that measured it
MEASURED = [
    ("32's own sweep", sweep32(), 32, 3, B32[3], 23),
    ("batch 1's sweep, beside a pair at 16", walk_s(), 1, 4, B1[4][0], 8),
]


@pytest.mark.parametrize(
    ("case", "runs", "rank", "served", "measured", "run_id"), MEASURED, ids=[c[0] for c in MEASURED]
)
def test_at_a_measured_batch_the_current_tok_s_and_the_gains_are_measured_not_the_models(
    case: str, runs: list[RunRecord], rank: int, served: int, measured: float, run_id: int
) -> None:
    result = plan.build(_inputs(runs), rank_batch=rank)
    assert result.served_steps == served, case
    assert result.current["tok_s"][str(rank)] == pytest.approx(measured), result.current
    src = _source(result, rank)
    assert src.kind == "measured" and f"run #{run_id}" in src.text and f"{measured:,.1f} tok/s" in src.text, src.text
    assert result.noise == pytest.approx(plan.NOISE * measured)
    # a predicted option's gain is against the measured figure: its tok/s there less the measured one
    for kind in ("more-data", "draft-size"):
        o = _option(result, kind)
        assert o.gain is not None and o.gain.value is not None, (kind, o.gain)
        assert o.gain.value == pytest.approx(o.tok_s[str(rank)].value - measured), kind
    ns = _option(result, "num-steps")
    assert ns.tok_s[str(rank)].value is not None
    assert ns.gain is not None and ns.gain.value == pytest.approx(ns.tok_s[str(rank)].value - measured)
    assert f"measured (run #{run_id}, num_steps {served})" in plan.current_words(result)


def test_a_batch_without_a_measured_pair_is_refused_with_the_batches_it_can_rank_at() -> None:
    with pytest.raises(InputError) as err:
        plan.build(_inputs(walk_s()), rank_batch=32)
    text = str(err.value)
    assert "batch 32" in text and "1, 8, 16 or 64" in text, text
    with pytest.raises(InputError, match="positive"):
        plan.build(_inputs(walk_s()), rank_batch=0)


# ---------------------------------------------------------------- the CLI


def _store_walk_s(runs: list[RunRecord], group: str = "walks-s") -> None:
    store = bench_store()
    for r in runs:
        cfg = bench_config("vllm", "acme/target", r.num_steps, draft=None, topk=1, ndt=None)
        summary = {"requests": 6, "output_tokens_per_s": r.output_tokens_per_s, "accept_length": r.accept_length}
        store_run(store, cfg, summary, group=group, concurrency=int(r.params["concurrency"]))


def test_cli_ranks_at_a_measured_batch(capsys: pytest.CaptureFixture[str]) -> None:
    _store_walk_s(walk_s())
    args = ["plan", "example", "--group", "walks-s", "--samples", "5001", "--rank-batch", "16"]
    proc = cli_in_process(capsys, *args, "--json")
    assert proc.returncode == 0, proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    assert data["rank_batch"] == 16
    first = data["options"][0]
    assert first["kind"] == "no-speculation" and first["gain_tok_s"]["value"] == pytest.approx(BASE16 - SPEC16)
    proc = cli_in_process(capsys, *args)
    assert proc.returncode == 0, proc.stderr
    # the store numbers walk S's runs #4..#11 as #1..#8
    assert "gain at bs16: +40.0 tok/s" in proc.stdout, proc.stdout
    assert "Served now at batch 16: no speculative tok/s is predicted there: speculation lost at batch 16" in (
        proc.stdout
    )


@pytest.mark.parametrize(
    ("batch", "words"),
    [
        ("32", "batch 32 has no measured pair"),
        ("0", "--rank-batch must be a positive whole number, got 0"),
    ],
)
def test_cli_refuses_a_batch_it_cannot_rank_at_in_one_line(
    batch: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _store_walk_s(walk_s())
    proc = cli_in_process(capsys, "plan", "example", "--group", "walks-s", "--rank-batch", batch)
    assert proc.returncode == 2
    assert words in proc.stderr and "Traceback" not in proc.stderr and "usage:" not in proc.stderr, proc.stderr
    if batch == "32":
        assert "1, 8, 16 or 64" in proc.stderr, proc.stderr
