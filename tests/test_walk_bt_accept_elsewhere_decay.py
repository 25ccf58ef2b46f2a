"""Walk BT 1: batch 32 measured num_steps 1 and 3 (AL 1.67, 3.00) and batch 1 the same draft at 1, 2 and 3 (1.67,
2.50, 3.00). Batch 32's table borrowed batch 1's 2.50 at num_steps 2, but its prediction past 3 read only its own two
points: gains of 0.67 and 0.67 a step do not shrink, so it kept +0.67 a step to 7.67 at num_steps 10, where the
draft's own gains (+0.83, then +0.50) keep 0.6 of the last and level off near 3.75, as batch 1's prediction does.
Past the measured num_steps, acceptance decays from every acceptance measured for the sweep's setting, those borrowed
from another batch included."""

from __future__ import annotations

import pytest

from comparelib.analysis import speedup
from tests.fixtures import stored_run

DRAFT = "tealfin/qwen3-coder-30b-eagle3-tealfin"
TARGET = "Qwen/Qwen3-Coder-30B-A3B-Instruct"
# id, num_steps (None: baseline), tok/s, AL, batch (SGLang, 'bundled' prompts, 256 max tokens)
WALK_BT = [
    (5, None, 112.46, None, 1),
    (6, 1, 135.43, 1.6667, 1),
    (7, 2, 191.24, 2.5, 1),
    (8, 3, 199.10, 3.0, 1),
    (10, None, 1425.79, None, 32),
    (11, 1, 1937.76, 1.6667, 32),
    (12, 3, 1345.00, 3.0, 32),
    (13, None, 1480.92, None, 32),
]


def _runs() -> list:
    return [
        stored_run(i, k, t, al, draft=None if k is None else DRAFT, model=TARGET, concurrency=b,
                   requests=8 if b == 1 else 64, max_tokens=256)
        for i, k, t, al, b in WALK_BT
    ]  # fmt: skip


def test_batch_32_decays_past_its_runs_as_batch_1_does() -> None:
    runs = _runs()
    one = speedup.model_from_runs([r for r in runs if r.params["concurrency"] == 1])
    wide = speedup.model_from_runs([r for r in runs if r.params["concurrency"] == 32], accept_from=runs)
    assert wide.concurrency == 32 and wide.accept_at(2) == pytest.approx(2.5)  # batch 1's, borrowed
    for k in range(4, 11):
        assert wide.accept_at(k) == pytest.approx(one.accept_at(k), abs=0.02), (k, wide.accept_at(k), one.accept_at(k))
    assert wide.accept_at(10) < 3.8, wide.accept_at(10)
    assert wide.accept_at(4) == pytest.approx(3.0 + 0.5 * 0.6, abs=0.03)  # the next gain keeps 0.6 of the last
