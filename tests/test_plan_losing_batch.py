"""A batch where every measured speculative setting loses: no predicted win is the headline there.

A user's gpt-oss-20b EAGLE-3 draft on vLLM: at batch 1 a baseline (#1) and num_steps 1, 2, 3 (#2..#4; num_steps 1
measured acceptance 1.69); at batch 16 a baseline (#5, 1,743.0 tok/s) and only num_steps 2 and 3 (#6 at 0.94x, #7 at
0.84x), both losing. ``speedup --batch 16`` said "Predicted best: num_steps=1 at 1831.0 tok/s (+5.0% ...)" and the
plan "Also swept: batch 16 ...: 1 at 1,831.0 tok/s predicted", extrapolated from the two losing runs with a predicted
acceptance of 1.75 at num_steps 1, although num_steps 1 measured 1.69 (at batch 1). Neither said to serve batch 16
without speculation.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from comparelib.analysis import plan, speedup
from comparelib.live.store import RunRecord
from tests.fixtures import bench_config, bench_store, cli_in_process, store_run, stored_run

BASE1, BASE16 = 230.0, 1743.0
# id, num_steps (None: baseline), tok/s, acceptance length, batch; ids as the store numbers them
ROWS: list[tuple[int, int | None, float, float | None, int]] = [
    (1, None, BASE1, None, 1),
    (2, 1, 300.0, 1.69, 1),
    (3, 2, 345.0, 2.25, 1),
    (4, 3, 350.0, 2.62, 1),
    (5, None, BASE16, None, 16),
    (6, 2, BASE16 * 0.94, 2.31, 16),
    (7, 3, BASE16 * 0.84, 2.73, 16),
]
# the batch-16 fit's cycle (runs #6, #7) at num_steps 1: 15.28 ms; 16 sequences
CYCLE1 = 16 * 2.31 / (BASE16 * 0.94) * 1000 - (16 * 2.73 / (BASE16 * 0.84) - 16 * 2.31 / (BASE16 * 0.94)) * 1000
LOST_16 = "Every measured num_steps was slower than the baseline (2: 0.94x, 3: 0.84x)."
RUNS_16 = (
    "At batch 16, against 1,743.0 tok/s without speculation (run #5): num_steps=2 in run #6 at 1,638.4 tok/s (0.94x), "
    "num_steps=3 in run #7 at 1,464.1 tok/s (0.84x). Serve without speculation at batch 16, or measure num_steps=1 at "
    "batch 16 before trusting a prediction."
)


def _entry() -> Any:
    from comparelib.models import comparison

    return comparison.load_entry("example:own-kimi-k2.5-draft", with_header=False, with_card=False)


def runs(batches: tuple[int, ...] = (1, 16)) -> list[RunRecord]:
    return [
        stored_run(i, k, t, al, engine="vllm", model="acme/target", concurrency=b, max_tokens=128, requests=6)
        for i, k, t, al, b in ROWS
        if b in batches
    ]


def _plan(rank: int) -> plan.Plan:
    return plan.build(plan.inputs_for(_entry(), runs=runs(), own_samples=5_001.0), rank_batch=rank)


def _option(result: plan.Plan, kind: str) -> plan.Option:
    return next(o for o in result.options if o.kind == kind)


# ---------------------------------------------------------------- the speedup model


def test_acceptance_measured_at_another_batch_stands_in_for_the_extrapolation() -> None:
    model = speedup.model_from_runs(runs())  # the sweep holding the fastest pair: batch 16
    assert model.concurrency == 16
    assert speedup.model_from_runs(runs((16,))).accept_at(1) == pytest.approx(1.75, abs=0.01)  # the extrapolation
    assert model.accept_at(1) == pytest.approx(1.69)  # measured at batch 1, run #2
    row = speedup.predict_frame(model).set_index("num_steps").loc[1]
    assert row["accept_source"] == "other batch" and row["accept_from"] == "measured at batch 1 (run #2)", row
    assert row["tok_s"] == pytest.approx(16 * 1.69 / CYCLE1 * 1000, rel=1e-3)
    assert speedup.predict_frame(model).set_index("num_steps").loc[2, "accept_source"] == "measured"
    assert any(
        "acceptance at num_steps 1 is the 1.69 measured at batch 1 (run #2), not the fit's 1.75" in n
        and "acceptance can differ with the batch size" in n
        for n in model.notes
    ), model.notes


# which runs the model sees, the predicted tok/s and acceptance at num_steps 1 said beside the lead
LOSING = [
    ("batch 16 alone", (16,), "acceptance 1.75 predicted"),
    ("with batch 1", (1, 16), "acceptance 1.69 measured at batch 1 (run #2)"),
]


@pytest.mark.parametrize(("case", "batches", "accept"), LOSING, ids=[c[0] for c in LOSING])
def test_where_every_measured_num_steps_lost_the_sentence_leads_with_serving_without(
    case: str, batches: tuple[int, ...], accept: str
) -> None:
    best = speedup.optimum(speedup.model_from_runs(runs(batches)))
    assert best.sentence.startswith(f"{LOST_16} {RUNS_16} "), best.sentence
    assert "Predicted best" not in best.sentence, best.sentence
    # the model's figure stays, said as a prediction from the two losing runs, not as the recommendation
    assert "Predicted, not measured, and not the recommendation: num_steps=1 at " in best.sentence, best.sentence
    assert "from the model fitted to runs #6, #7 (num_steps 2, 3; extrapolated to num_steps 1)" in best.sentence
    assert accept in best.sentence, (case, best.sentence)
    assert best.lost == ((2, 6, pytest.approx(0.94)), (3, 7, pytest.approx(0.84))), best.lost
    assert best.recommendation == "serve without speculation at batch 16", best.recommendation


def test_where_num_steps_1_was_measured_and_lost_nothing_is_left_to_measure_first() -> None:
    one = [
        stored_run(i, k, t, al, engine="vllm", model="acme/target", concurrency=16, max_tokens=128, requests=6)
        for i, k, t, al in [(5, None, BASE16, None), (6, 1, BASE16 * 0.96, 1.69), (7, 2, BASE16 * 0.94, 2.31)]
    ]
    best = speedup.optimum(speedup.model_from_runs(one))
    assert best.sentence.startswith(
        "Every measured num_steps was slower than the baseline (1: 0.96x, 2: 0.94x). At batch 16, against 1,743.0 "
        "tok/s without speculation (run #5): num_steps=1 in run #6 at 1,673.3 tok/s (0.96x), num_steps=2 in run #7 at "
        "1,638.4 tok/s (0.94x). Serve without speculation at batch 16. Best measured: num_steps=1 at 1673.3 tok/s "
        "(-4.0% against 1743.0 tok/s without speculation, run #5), measured in run #6;"
    ), best.sentence
    assert "Predicted" not in best.sentence, best.sentence


def test_a_batch_where_speculation_wins_keeps_its_best() -> None:
    best = speedup.optimum(speedup.model_from_runs(runs((1,))))
    assert best.lost == () and best.recommendation is None
    assert best.sentence.startswith("Best: num_steps="), best.sentence


# ---------------------------------------------------------------- the plan


def test_also_swept_says_every_measured_setting_lost_and_predicts_nothing_as_a_win() -> None:
    ns = _option(_plan(1), "num-steps")
    also = ns.note.split("Also swept: ", 1)[1]
    assert also.startswith(
        "batch 16 (its own measured sweep, #6, #7): every measured num_steps lost to its baseline (run #5, 1,743.0 "
        "tok/s): num_steps 2 in run #6, 0.94x; num_steps 3 in run #7, 0.84x; serve without speculation at batch 16 "
        "(num_steps 1 was not measured there: measure it before trusting the model's "
    ), also
    assert "1 at 1,831.0 tok/s predicted" not in ns.note and "1,831.0" not in ns.note, ns.note
    assert "acceptance 1.69 measured at batch 1 (run #2)" in also, also


def test_ranked_at_the_losing_batch_the_plan_lists_every_losing_run_and_what_to_measure() -> None:
    result = _plan(16)
    first = result.options[0]
    assert first.kind == "no-speculation" and first.title == "Serve without speculation at batch >= 16"
    assert (
        "at batch 16, run #6 measured 1,638.4 tok/s with speculation (num_steps 2) against 1,743.0 without (run #5): "
        "0.94x; run #7 measured 1,464.1 tok/s (num_steps 3): 0.84x" in first.note
    ), first.note
    assert "No run measured num_steps 1 at batch 16 (only 2, 3)" in first.note, first.note
    assert "measure num_steps 1 there before ruling speculation out at that batch" in first.note, first.note
    assert plan.current_words(result) == (
        "Served now at batch 16: no speculative tok/s is predicted there: speculation lost at batch 16 at every "
        "num_steps measured there (run #6, num_steps 2: 1,638.4 tok/s against 1,743.0 without, run #5, 0.94x; run "
        "#7, num_steps 3: 1,464.1 tok/s, 0.84x)."
    )
    assert "16" not in _option(result, "num-steps").tok_s


# ---------------------------------------------------------------- the CLI


def _store() -> None:
    store = bench_store()
    for _, k, t, al, b in ROWS:
        cfg = bench_config("vllm", "acme/target", k, draft=None, topk=1, ndt=None)
        store_run(
            store, cfg, {"requests": 6, "output_tokens_per_s": t, "accept_length": al}, group="oss", concurrency=b
        )


def test_cli_speedup_at_the_losing_batch(capsys: pytest.CaptureFixture[str]) -> None:
    _store()
    proc = cli_in_process(capsys, "speedup", "--run-group", "oss", "--batch", "16")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    rows = {int(line.split()[0]): line.split() for line in out.splitlines() if line[:9].strip().isdigit()}
    assert rows[1][1:3] == ["1.69", "b"], rows[1]  # measured at another batch, named below the table
    assert "b = measured at another batch size (num_steps 1: measured at batch 1 (run #2))" in out, out
    assert f"{LOST_16} {RUNS_16}" in out, out
    assert "Predicted best" not in out, out
    data: dict[str, Any] = json.loads(
        cli_in_process(capsys, "speedup", "--run-group", "oss", "--batch", "16", "--json").stdout
    )
    assert data["optimum"]["recommendation"] == "serve without speculation at batch 16"
    assert [lost[:2] for lost in data["optimum"]["lost"]] == [[2, 6], [3, 7]]
    assert data["predicted"][0]["accept_source"] == "other batch"


def test_cli_plan_at_the_losing_batch(capsys: pytest.CaptureFixture[str]) -> None:
    _store()
    args = ["plan", "example", "--group", "oss", "--samples", "5001"]
    out = cli_in_process(capsys, *args).stdout
    assert "every measured num_steps lost to its baseline (run #5, 1,743.0 tok/s)" in out, out
    assert "1 at 1,831.0 tok/s predicted" not in out, out
    proc = cli_in_process(capsys, *args, "--rank-batch", "16")
    assert proc.returncode == 0, proc.stderr
    assert "1. [no-speculation] Serve without speculation at batch >= 16" in proc.stdout, proc.stdout
    assert "run #7 measured 1,464.1 tok/s (num_steps 3): 0.84x" in proc.stdout, proc.stdout


def test_the_sweep_picked_on_the_page_keeps_the_acceptance_measured_at_another_batch() -> None:
    """Acceptance vs data's "Sweep" box fits batch 16 alone: its runs were filtered before the fit, so num_steps 1
    showed the extrapolated 1.75 although batch 1 measured 1.69 (run #2)."""
    from comparelib.analysis import verdicts

    look = verdicts.live_outlook(runs(), None, reference="r", x="samples", sweep=(16, "vllm"))
    assert look.model.concurrency == 16 and set(look.model.fitted_run_ids) == {6, 7}
    assert look.model.accept_at(1) == pytest.approx(1.69)
    assert look.prediction is not None
    row = look.prediction.set_index("num_steps").loc[1]
    assert row["accept_source"] == "other batch" and row["accept_from"] == "measured at batch 1 (run #2)", row
