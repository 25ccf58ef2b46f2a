"""Walk BV 4: `runs`' text table left out the batch size, so a group's batch-4 and batch-16 runs (baselines #4 and
#10, EAGLE3 num_steps 2 #6 and #11) read alike but for their request counts. It has a `bs` column now."""

from __future__ import annotations

import pytest

from tests.fixtures import bench_config, bench_store, cli_in_process, store_run


def test_the_runs_table_shows_each_runs_batch(capsys: pytest.CaptureFixture[str]) -> None:
    store = bench_store()
    for batch, steps, tok_s in ((4, None, 349.5), (4, 2, 635.6), (16, None, 1146.2), (16, 2, 1950.8)):
        cfg = bench_config("sglang", "Qwen/Qwen3-30B-A3B-Instruct-2507", steps, draft="bv/draft" if steps else None,
                           topk=1 if steps else None, ndt=3 if steps else None)  # fmt: skip
        store_run(store, cfg, {"requests": 32, "errors": 0, "output_tokens_per_s": tok_s,
                               "accept_length": 2.4 if steps else None}, group="bv", concurrency=batch)  # fmt: skip
    done = cli_in_process(capsys, "runs", "--group", "bv", "--no-examples")
    assert done.returncode == 0, done.stderr
    header, *rows = done.stdout.splitlines()
    cols = header.split()
    assert "bs" in cols, header
    at = cols.index("bs")
    assert [r.split()[at] for r in rows[:4]] == ["4", "4", "16", "16"], rows
