"""Walk BQ 1: an SGLang sweep at batch 4 with cycles of 29.3, 41.5 and 61.0 ms at num_steps 2, 3, 4 (runs #12-#14)
read "No prediction of the best num_steps yet. Missing: a sweep whose cycle time grows with num_steps ... repeat the
sweep": the cycles grow, faster than a straight line, whose fixed cost falls under zero (-3.68 ms). The missing item
now says so and names the measured best; a fit that is not physical for another reason keeps the old words."""

from __future__ import annotations

import pytest

from comparelib.analysis import speedup
from tests.fixtures import QWEN3_8B_EAGLE3, bench_config, bench_store, cli_in_process, store_run, stored_run

# the walk's runs: id, num_steps (None: baseline), tok/s, AL (batch 4, SGLang)
WALK_BQ = [
    (11, None, 187.8, None),
    (12, 2, 341.7, 2.5),
    (13, 3, 289.2, 3.0),
    (14, 4, 228.1, 3.48),
]


def test_convex_cycles_name_the_measured_best() -> None:
    runs = [
        stored_run(i, k, t, al, draft=None if k is None else "acme-bq/qwen3-8b-eagle3", model="Qwen/Qwen3-8B",
                   concurrency=4, requests=16)
        for i, k, t, al in WALK_BQ
    ]  # fmt: skip
    model = speedup.model_from_runs(runs)
    assert speedup.unphysical(model) and model.t_verify_ms < 0 < model.t_step_ms
    missing = speedup.optimum_missing(model)
    assert len(missing) == 1, missing
    said = missing[0]
    assert "a sweep whose cycle time grows with num_steps" not in said, said
    assert "their cycles grow faster than linearly with num_steps (29.3, 41.5, 61.0 ms at num_steps 2, 3, 4" in said
    assert "the measured best is num_steps 2 (341.7 tok/s, run #12); measure num_steps 1" in said, said


def test_the_cli_table_predicts_nothing_from_a_fit_no_server_has(capsys: pytest.CaptureFixture[str]) -> None:
    """Walk BQ 2: ``speedup`` printed num_steps 1 at 595.9 tok/s and verify shares of -30% from the fit its own notes
    called not physical."""
    store = bench_store()
    for _, k, tok_s, al in WALK_BQ:
        cfg = bench_config("sglang", "Qwen/Qwen3-8B", k, draft="acme-bq/qwen3-8b-eagle3" if k else None,
                           topk=1 if k else None, ndt=(k + 1) if k else None)  # fmt: skip
        store_run(store, cfg, {"requests": 16, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": al},
                  group="bq-main", concurrency=4)  # fmt: skip
    done = cli_in_process(capsys, "speedup", "--run-group", "bq-main")
    assert done.returncode == 0, done.stderr
    rows = {
        int(p[0]): p
        for line in done.stdout.splitlines()
        if (p := line.split()) and p[0].isdigit() and len(p) >= 5 and p[2] in ("m", "p", "b")
    }
    assert rows[1][3:6] == ["-", "-", "-"], rows[1]  # cycle, verify%, tok/s: not predicted
    assert all(not r[4].startswith("-") or r[4] == "-" for r in rows.values()), rows  # no negative verify share
    assert "-: not predicted: the fitted costs are not a server's" in done.stdout, done.stdout
    assert "a straight line does not fit the runs" in done.stdout, done.stdout


def test_the_plan_holds_the_runs_own_cycle_at_a_batch_it_did_not_measure(
    capsys: pytest.CaptureFixture[str],
    hub,  # noqa: ANN001
) -> None:
    """Walk BQ 2, the plan: "Served now at batch 1: 89.1 tok/s" was drawn from the fit the paragraph under it calls
    no server's; batch 4's run #2 measured num_steps 2 in a 29.26 ms cycle (4 x 2.5 / 341.7), 85.4 tok/s a stream."""
    mine = "acme-bq/qwen3-8b-eagle3"
    hub.add_model(mine, QWEN3_8B_EAGLE3)
    store = bench_store()
    for _, k, tok_s, al in WALK_BQ:
        cfg = bench_config("sglang", "Qwen/Qwen3-8B", k, draft=mine if k else None,
                           topk=1 if k else None, ndt=(k + 1) if k else None)  # fmt: skip
        store_run(store, cfg, {"requests": 16, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": al},
                  group="bq-plan", concurrency=4)  # fmt: skip
    done = cli_in_process(capsys, "plan", mine, "--group", "bq-plan", "--rank-batch", "1")
    assert done.returncode == 0, done.stderr
    held = 2.5 / (4 * 2.5 / 341.7)
    assert f"Served now at batch 1: {held:,.1f} tok/s at num_steps 2, predicted from batch 4 runs" in done.stdout, (
        done.stdout
    )
    assert "per-sequence cycle batch 4's runs measured at num_steps 2, 3 and 4 (#2, #3, #4" in done.stdout
    assert "per-sequence cycle fitted on runs" not in done.stdout, done.stdout
