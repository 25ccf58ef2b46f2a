"""Walk S: speculation pays at batch 1 and loses at batch 16, and the app said otherwise.

Group walks-s measured vLLM at batch 1 (baseline #4 at 36.4 tok/s, num_steps 1..5 in runs #5..#9, 72.4 tok/s at
num_steps 3 in run #7: 1.99x) and at batch 16 (baseline #10 at 495.4 tok/s, num_steps 3 in run #11 at 455.4: 0.92x).

1. The plan predicted 4,603.1 tok/s at batch 64 (batch 1's cycle held: an "upper bound" about 9x what batch 16
   measured), said no num_steps gains there, and never offered serving without speculation.
2. ``speedup --batch 16`` held the one run's 97.76 ms cycle at every num_steps and printed 501-508 tok/s from
   num_steps 6 on, above the baseline; its notes said "whole cycle counted as verification" and "per-step cost
   assumed to be drafting only" (drafting then costs nothing).
3. Overview's Live speed led with the batch-16 pair (the fastest in tok/s, a loss) as the draft's live speed.
"""

from __future__ import annotations

from typing import Any

import pytest

from comparelib.analysis import overview, plan, speedup
from comparelib.live.store import RunRecord
from tests.fixtures import cli_in_process, page_app, stored_run
from tests.test_sweep import _entry

# walk S's store: num_steps -> (tok/s, AL) at batch 1; run ids #4 (baseline), #5..#9
B1 = {
    1: (50.54435555878884, 1.7534246575342465),
    2: (64.55827833169906, 2.3703703703703702),
    3: (72.39801515846014, 2.782608695652174),
    4: (72.48889347473582, 3.0476190476190474),
    5: (67.86278989868471, 3.1219512195121952),
}
BASE1, BASE16, SPEC16 = 36.39919240287553, 495.4097349586265, 455.43813633974213


def _run(id_: int, steps: int | None, tok_s: float, al: float | None = None, *, batch: int) -> RunRecord:
    return stored_run(
        id_, steps, tok_s, al, engine="vllm", model="acme/target", concurrency=batch, max_tokens=128, requests=6
    )


def walk_s(losing: int = 16, base: float = BASE16, spec: float = SPEC16) -> list[RunRecord]:
    """Walk S's vLLM runs; ``losing``: the batch of the one-run pair (#10 baseline, #11 num_steps 3)."""
    runs = [_run(4, None, BASE1, batch=1)]
    runs += [_run(4 + k, k, t, al, batch=1) for k, (t, al) in B1.items()]
    runs += [_run(10, None, base, batch=losing), _run(11, 3, spec, B1[3][1], batch=losing)]
    return runs


def _plan(runs: list[RunRecord], rank: int) -> plan.Plan:
    return plan.build(plan.inputs_for(_entry(), runs=runs, own_samples=5_001.0), rank_batch=rank)


def _option(result: plan.Plan, kind: str) -> plan.Option:
    return next(o for o in result.options if o.kind == kind)


# ---------------------------------------------------------------- 1. the plan


@pytest.mark.parametrize("rank", plan.BATCHES)
def test_the_plan_offers_serving_without_speculation_where_a_measured_batch_loses(rank: int) -> None:
    result = _plan(walk_s(), rank)
    off = _option(result, "no-speculation")
    assert off.title == "Serve without speculation at batch >= 16"
    assert off.total.value == 0 and off.storage.value == 0  # free: a server flag
    assert (
        "at batch 16, run #11 measured 455.4 tok/s with speculation (num_steps 3) against 495.4 without (run #10): "
        "0.92x" in off.note
    ), off.note
    # batch 1, 8 and 64 are not measured at or above batch 16: no gain is claimed at any of them
    assert off.gain is None, off.gain
    assert off.tok_s == {}, off.tok_s


# ranking batch: whether serving without speculation leads the plan (at or above the losing batch, where no
# speculative tok/s is predicted) or comes last (below it, where it does not apply)
LEAD_CASES = [(1, False), (8, False), (64, True)]


@pytest.mark.parametrize(("rank", "leads"), LEAD_CASES)
def test_at_or_above_a_losing_batch_the_plan_predicts_no_speculative_tok_s(rank: int, leads: bool) -> None:
    result = _plan(walk_s(), rank)
    kinds = [o.kind for o in result.options]
    assert kinds.index("no-speculation") == (0 if leads else len(kinds) - 1), kinds
    lead = plan.lead(result) or ""
    assert lead.startswith("**Ranked first: Serve without speculation at batch >= 16.**") is leads, lead
    ns = _option(result, "num-steps")
    assert "64" not in ns.tok_s and "4,603.1" not in ns.note, ns.note
    assert "64" not in (result.current.get("tok_s") or {}), result.current
    assert (
        "batch 64: not predicted: speculation lost at batch 16 (run #11: 455.4 tok/s against 495.4 without, run "
        "#10, 0.92x), and batch 64 was not measured" in ns.note
    ), ns.note
    assert "batch 1, 8, 64" not in ns.note, ns.note  # the served num_steps "ties" nowhere it is not predicted
    # batch 8 lies between two measured batches now: batch 16's one run anchors the cycle, said so
    assert "batch 8 predicted from batch 1 and 16 runs (cycle time linear in the batch, between them)" in ns.note
    assert ns.tok_s["8"].value is not None and ns.tok_s["8"].value < 8 * B1[3][0] * 0.7, ns.tok_s
    assert any("run #11 alone" in s.text and "anchors" in s.text for s in result.sources), [
        s.text for s in result.sources
    ]


# the batch the one-run pair was measured at, the ranking batch, the gain claimed (None: not claimed)
GAIN_CASES = [
    (8, 8, 300.0 - 270.0),  # measured at the ranking batch: the baseline less the speculative run, measured
    (8, 64, None),  # at or above the losing batch, but not measured: not claimed
    (8, 1, None),  # below the losing batch: serving without speculation is not advised there
    (16, 64, None),
]


@pytest.mark.parametrize(("losing", "rank", "gain"), GAIN_CASES)
def test_serving_without_speculation_gains_only_what_was_measured(losing: int, rank: int, gain: float | None) -> None:
    runs = walk_s(losing, 300.0, 270.0) if losing == 8 else walk_s()
    off = _option(_plan(runs, rank), "no-speculation")
    if gain is None:
        assert off.gain is None, off.gain
    else:
        assert off.gain is not None and off.gain.value == pytest.approx(gain), off.gain
        assert off.tok_s["8"].value == pytest.approx(300.0), off.tok_s
        assert "Gain at batch 8: +30.0 tok/s measured (run #10 against run #11)" in off.note, off.note


def test_a_batch_where_speculation_pays_offers_no_serving_without_it() -> None:
    runs = walk_s(16, BASE16, 600.0)  # 1.21x at batch 16
    result = _plan(runs, 64)
    assert not any(o.kind == "no-speculation" for o in result.options)
    assert "64" in _option(result, "num-steps").tok_s


# ---------------------------------------------------------------- 2. speedup with one num_steps


def test_speedup_with_one_num_steps_holds_no_cycle_fixed(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from comparelib.live.store import Store
    from tests.fixtures import bench_config, store_run

    url = f"sqlite:///{tmp_path / 'r.sqlite'}"
    store = Store(url)
    for r in walk_s():
        cfg = bench_config("vllm", "acme/target", r.num_steps, draft="x/d" if r.num_steps else None, topk=1, ndt=None)
        summary = {"requests": 6, "output_tokens_per_s": r.output_tokens_per_s, "accept_length": r.accept_length}
        store_run(store, cfg, summary, group="walks-s", concurrency=int(r.params["concurrency"]))
    proc = cli_in_process(capsys, "speedup", "--run-group", "walks-s", "--batch", "16", "--db", url)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "whole cycle counted as verification" not in out and "drafting only" not in out, out
    assert (
        "one num_steps (3), no verify time recorded and no sweep: what another draft step costs is not known" in out
    ), out
    rows = {int(line.split()[0]): line for line in out.splitlines() if line[:9].strip().isdigit()}
    assert rows[3].split()[-2:] == ["455.4", "#8"], rows[3]  # the store numbers walk S's #11 as #8 here
    for k in (1, 2, 4, 5, 6, 10):  # not predicted: no tok/s at all, so none reads as beating the baseline
        assert rows[k].split()[-1] == "-", rows[k]
    assert all(f"{v:.1f}" not in out for v in (501.6, 505.2, 508.5)), out

    import json

    data = json.loads(
        cli_in_process(capsys, "speedup", "--run-group", "walks-s", "--batch", "16", "--db", url, "--json").stdout
    )
    assert data["optimum"] is None
    assert [r["tok_s"] is None for r in data["predicted"]] == [k != 3 for k in range(1, 11)]


def test_a_single_run_with_a_recorded_verify_time_is_not_said_to_be_held() -> None:
    m = speedup.fit_sweep([speedup.SweepPoint(2, 94.0, 2.1)], verify_ms=(21.0, 28.0), verify_share_min=0.95)
    assert not speedup.cycle_held(m)
    held = speedup.fit_sweep([speedup.SweepPoint(3, SPEC16, B1[3][1])], baseline_tok_s=BASE16, concurrency=16)
    assert speedup.cycle_held(held)


# ---------------------------------------------------------------- 3. Overview's live speed


def test_live_speed_says_where_speculation_pays_and_where_it_loses() -> None:
    runs = walk_s()
    live = overview.live_facts(runs)
    # the fastest pair in tok/s (#11/#10, batch 16) loses: the pair a user would serve leads, batch 1's (walk U)
    fastest = speedup.best_pair(runs)  # best_pair keeps its meaning: the fastest in tok/s
    assert fastest is not None and fastest.spec.id == 11
    assert live is not None and live.run_id == 7 and live.baseline_run_id == 4 and live.batch == 1
    assert live.verdict == "Speculation pays at batch 1 (1.99x, #7/#4) and loses at batch 16 (0.92x, #11/#10).", (
        live.verdict
    )
    assert "This pair is the fastest in tok/s; the largest speedup" not in live.sentence, live.sentence
    assert "vLLM EAGLE-3 batch 16, num_steps 3 at 0.92x (#11/#10), a loss" in live.sentence, live.sentence
    # pairs that agree: no verdict
    agree = overview.live_facts(walk_s(16, BASE16, 600.0))
    assert agree is not None and agree.verdict == ""


def test_overview_leads_live_speed_with_both_batches() -> None:
    from comparelib import settings
    from comparelib.live.store import Store
    from tests.fixtures import bench_config, store_run

    store = Store(settings.database_url())
    for r in walk_s():
        cfg = bench_config("vllm", "acme/target", r.num_steps, draft=None, topk=1, ndt=None)
        if r.num_steps:
            cfg["speculative_algorithm"] = "EAGLE3"
        summary = {"requests": 6, "output_tokens_per_s": r.output_tokens_per_s, "accept_length": r.accept_length}
        store_run(store, cfg, summary, group="walks-s", concurrency=int(r.params["concurrency"]))
    at = page_app("../pages/overview.py", timeout=60)
    at.query_params["draft"] = "registry:AQ-MedAI/Kimi-K2-Instruct-eagle3"
    at.query_params["draft_group"] = "walks-s"
    at.run()
    assert not at.exception, at.exception
    md = "\n".join(m.value for m in at.markdown)
    line = next(s for s in md.splitlines() if s.startswith("- **Live speed**"))
    # the store numbers walk S's #4..#11 as #1..#8
    assert line.startswith(
        "- **Live speed** (measured): Speculation pays at batch 1 (1.99x, #4/#1) and loses at batch 16 (0.92x, "
        "#8/#7). The pair to serve (the largest speedup measured; the fastest pair in tok/s loses): run #4 (vllm, "
        "num_steps 3) at batch 1, "
    ), line
    assert "This pair is the fastest in tok/s" not in line, line
    losing = "Other comparable pairs at other settings: vLLM EAGLE-3 batch 16, num_steps 3 at 0.92x (#8/#7), a loss."
    assert losing in line, line
