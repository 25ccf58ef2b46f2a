"""Walk BJ 1: the batch-8 "best num_steps" was a prediction faster than the app's own measured decode step allows.

The walk's group coder-vllm measured vLLM at batch 8 (32 requests, 128 tokens): baseline #8 at 405.4 tok/s (a 19.73
ms decode step for 8 streams) and num_steps 2, 3, 4 in #9, #10, #11 (638.5, 591.7, 539.6 tok/s; AL 2.21, 2.61,
3.05). The straight line through their cycles has a 9.75 ms fixed cost, half the decode step, and the page, the plan
and ``speedup`` said "Predicted best: num_steps=1 at 781.7 tok/s": above the 733.9 that 8 x 1.81 / 19.73 ms allow
with a free draft. A cycle's target forward verifies num_steps + 1 tokens a sequence and costs at least that step:
below the fewest measured num_steps the cycle is drawn from that step to the runs' own cycle, and the measured
num_steps 2 (run #9) is the best.

Walk BN 1 (vicuna-13b at batch 1): the first form of that rule held the whole line's fixed cost at the decode step and
refitted its slope; through num_steps 2, 3, 4 measured at 118.1, 141.9 and 128.0 tok/s (cycles growing 7.5 ms a
step) the refitted 3.66 ms a step named "Predicted best: num_steps=10 at 191.3 tok/s" past a measured fall. The line
now stands at and past the runs, and the measured 3 is the best.
"""

from __future__ import annotations

from typing import Any

import pytest

from comparelib.analysis import speedup
from tests.fixtures import bench_config, bench_store, cli_in_process, stored_run

TARGET = "Qwen/Qwen3-Coder-30B-A3B-Instruct"
DRAFT = "coder-eagle3-ours"
GROUP = "coder-vllm"
# the walk's batch-8 runs: id, num_steps (None: the baseline), output tok/s, acceptance length
WALK_BJ: list[tuple[int, int | None, float, float | None]] = [
    (8, None, 405.3971846314385, None),
    (9, 2, 638.4955771202485, 2.206896551724138),
    (10, 3, 591.6728522950478, 2.612244897959184),
    (11, 4, 539.5884710200986, 3.0476190476190474),
]
# walk BO's sweep at batch 1 (SGLang, Llama-3.3-70B): baseline #4 at 46.9 tok/s, num_steps 2..5 in #5..#8; the line
# (6.63 ms + 8.10 ms a step; 6.61 and 8.11 from the store's unrounded runs) is 2.3 ms under run #5's 25.13 ms cycle
# at num_steps 2
WALK_BO: list[tuple[int, int | None, float, float | None]] = [
    (4, None, 46.9, None),
    (5, 2, 99.5, 2.5),
    (6, 3, 107.0, 3.0),
    (7, 4, 87.9, 10 / 3),
    (8, 5, 76.8, 3.75),
]
# walk BN's shape at batch 1: a 20.6 ms decode step, cycles 25, 28 and 38 ms at num_steps 2, 3, 4 (3 the fastest)
WALK_BN: list[tuple[int, int | None, float, float | None]] = [
    (7, None, 1 / 20.6 * 1000.0, None),
    (8, 2, 2.95 / 25.0 * 1000.0, 2.95),
    (9, 3, 3.97 / 28.0 * 1000.0, 3.97),
    (10, 4, 4.86 / 38.0 * 1000.0, 4.86),
]
# a sweep whose line stays above its decode step (batch 1: 100 tok/s, 10 ms; cycles 16, 18, 20 ms): left as fitted
ABOVE: list[tuple[int, int | None, float, float | None]] = [
    (1, None, 100.0, None),
    (2, 2, 2.2 / 16.0 * 1000.0, 2.2),
    (3, 3, 2.6 / 18.0 * 1000.0, 2.6),
    (4, 4, 3.0 / 20.0 * 1000.0, 3.0),
]


def _runs(rows: list[tuple[int, int | None, float, float | None]], batch: int) -> list[Any]:
    return [
        stored_run(i, k, t, al, engine="vllm", draft=None if k is None else DRAFT, model=TARGET, group=GROUP,
                   requests=32, concurrency=batch, max_tokens=128, topk=None, ndt=None)
        for i, k, t, al in rows
    ]  # fmt: skip


# rows, batch, fixed cost (ms), per-step cost (ms), cycle at num_steps 1 (ms), best num_steps, its source, its runs
CASES = [
    pytest.param(WALK_BJ, 8, 9.75, 8.77, 23.51, 2, "measured", (9,), id="walk-bj-drawn-from-the-decode-step"),
    pytest.param(WALK_BN, 1, 10.83, 6.50, 22.22, 3, "measured", (9,), id="walk-bn-the-line-stands-past-the-runs"),
    pytest.param(WALK_BO, 1, 6.63, 8.10, 22.08, 3, "measured", (6,), id="walk-bo-cycles-never-shorten"),
    pytest.param(ABOVE, 1, 12.0, 2.0, 14.0, 4, "measured", (4,), id="above-the-decode-step-as-fitted"),
]


@pytest.mark.parametrize(("rows", "batch", "fixed", "step", "cycle_1", "best", "source", "run_ids"), CASES)
def test_no_cycle_is_cheaper_than_the_baseline_decode_step(
    rows: list[tuple[int, int | None, float, float | None]],
    batch: int,
    fixed: float,
    step: float,
    cycle_1: float,
    best: int,
    source: str,
    run_ids: tuple[int, ...],
) -> None:
    model = speedup.model_from_runs(_runs(rows, batch))
    assert model.baseline_step_ms is not None
    # the line stands as fitted; only a cycle it puts under the decode step is drawn from that step
    assert (model.t_verify_ms, model.t_step_ms) == pytest.approx((fixed, step), abs=0.01)
    assert model.cycle_ms(1) == pytest.approx(cycle_1, abs=0.01)
    # walk BO 3: drawn to the runs' own cycle at 2 (above the line there), num_steps 1's cycle was longer than 2's
    cycles = [model.cycle_ms(k) for k in speedup.STEPS]
    assert cycles == sorted(cycles), cycles
    for k in speedup.STEPS:
        assert model.cycle_ms(k) >= model.baseline_step_ms - 1e-9, k
        assert model.verify_ms(k) >= min(model.baseline_step_ms, model.cycle_ms(k)) - 1e-9, k
    assert not speedup.unphysical(model)
    # no num_steps is predicted above what its acceptance allows over one decode step, even with a free draft
    for k in speedup.STEPS:
        ceiling = batch * model.accept_at(k) / model.baseline_step_ms * 1000.0
        assert model.tok_s(k) <= ceiling + 1e-6, (k, model.tok_s(k), ceiling)
    opt = speedup.optimum(model)
    assert (opt.num_steps, opt.source, opt.run_ids) == (best, source, run_ids), opt.sentence


def test_the_walks_sweep_says_why_its_cycle_was_drawn_from_the_decode_step() -> None:
    model = speedup.model_from_runs(_runs(WALK_BJ, 8))
    held = [n for n in model.notes if "under the baseline decode step" in n]
    assert held == [
        "the fitted line (9.75 ms a cycle + 8.77 ms a step) puts num_steps 1, not measured, at 18.52 ms, under the "
        "baseline decode step, 19.73 ms, which each cycle's target forward costs at least: at num_steps 1 (fewer "
        "than the 2 measured) the cycle is drawn from that step to the line's 27.29 ms at num_steps 2 (3.78 ms a "
        "step; 23.51 ms at num_steps 1)"
    ], model.notes
    opt = speedup.optimum(model)
    assert "Predicted best" not in opt.sentence, opt.sentence
    assert opt.sentence.startswith("Best: num_steps=2 at 638.5 tok/s"), opt.sentence


def test_walk_bn_names_the_measured_best_not_a_prediction_past_a_fall() -> None:
    model = speedup.model_from_runs(_runs(WALK_BN, 1))
    opt = speedup.optimum(model)
    assert (opt.num_steps, opt.source) == (3, "measured"), opt.sentence
    assert opt.sentence.startswith("Best: num_steps=3 at 141.8 tok/s"), opt.sentence
    # past the runs no prediction reaches the measured best (the line stands there)
    assert max(model.tok_s(k) for k in speedup.STEPS if k > 4) < 141.8


def test_a_fit_that_is_not_physical_still_names_no_best() -> None:
    """A negative fixed cost is not held at the decode step: the sweep must be repeated, as before."""
    rows: list[tuple[int, int | None, float, float | None]] = [
        (1, None, 100.0, None),
        (2, 2, 2.2 / 4.0 * 1000.0, 2.2),  # cycles 4, 18, 32 ms: a line through -24 ms at 0 steps
        (3, 3, 2.6 / 18.0 * 1000.0, 2.6),
        (4, 4, 3.0 / 32.0 * 1000.0, 3.0),
    ]
    model = speedup.model_from_runs(_runs(rows, 1))
    assert speedup.unphysical(model)
    assert not any("below the baseline decode step" in n for n in model.notes)


def test_speedup_cli_names_the_measured_best_at_batch_8(capsys: pytest.CaptureFixture[str]) -> None:
    store = bench_store()
    for _, k, tok_s, al in WALK_BJ:
        cfg = bench_config("vllm", TARGET, k, draft=DRAFT if k else None, topk=None, ndt=None)
        summary = {"requests": 32, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": al}
        rid = store.start_run(
            endpoint="http://vllm:8000",
            server_config=cfg,
            group=GROUP,
            params={"concurrency": 8, "requests": 32, "max_tokens": 128, "temperature": 0.0},
        )
        store.finish_run(rid, summary)
    done = cli_in_process(capsys, "speedup", "--run-group", GROUP)
    assert done.returncode == 0, done.stderr
    assert "Predicted best: num_steps=1" not in done.stdout, done.stdout
    assert "781.7" not in done.stdout, done.stdout
    assert "Best: num_steps=2 at 638.5 tok/s" in done.stdout, done.stdout
    assert "the cycle is drawn from that step to the line's 27.29 ms" in done.stdout, done.stdout
    row_1 = next(line.split() for line in done.stdout.splitlines() if line.split()[:1] == ["1"])
    assert float(row_1[4]) <= 8 * float(row_1[1]) / 19.734 * 1000.0, row_1  # tok/s (predicted) at num_steps 1
