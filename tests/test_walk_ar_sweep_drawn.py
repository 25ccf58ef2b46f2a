"""Walk AR (minor): Acceptance vs data's batch-16 sweep, one num_steps measured there, said "Drawn: only the runs the
prediction is fitted to (batch 16, sglang)" right beside "No prediction of the best num_steps yet". With no
prediction, the runs drawn are the sweep's."""

from __future__ import annotations

from typing import Any

from comparelib.analysis import verdicts
from tests.fixtures import stored_run

DRAFT = "kimilab/k26-eagle3-v3"
TARGET = "moonshotai/Kimi-K2.6"


def _runs() -> list[Any]:
    def run(id_: int, steps: int | None, tok: float, al: float | None, batch: int) -> Any:
        kw: dict[str, Any] = {"concurrency": batch, "requests": 8, "max_tokens": 128}
        return stored_run(id_, steps, tok, al, draft=DRAFT if steps else None, model=TARGET, group="k26-v3b", **kw)

    return [
        run(12, None, 44.07, None, 1),
        run(13, 1, 57.85, 1.72, 1),
        run(14, 2, 73.86, 2.27, 1),
        run(15, 3, 79.32, 2.64, 1),
        run(18, None, 477.16, None, 16),
        run(19, 3, 737.96, 2.64, 16),
    ]


def test_a_sweep_with_no_prediction_draws_its_own_runs() -> None:
    look = verdicts.live_outlook(_runs(), None, reference="r", x="samples", sweep=(16, "sglang"), draft=DRAFT)
    assert look.best is None and look.prediction is None
    assert look.not_drawn is not None, look
    assert "prediction is fitted to" not in look.not_drawn, look.not_drawn
    assert look.not_drawn.startswith("Drawn: only the runs of this sweep (batch 16"), look.not_drawn


def test_a_sweep_with_a_prediction_says_it_is_fitted_to_them() -> None:
    look = verdicts.live_outlook(_runs(), None, reference="r", x="samples", sweep=(1, "sglang"), draft=DRAFT)
    assert look.best is not None
    assert look.not_drawn is not None and look.not_drawn.startswith(
        "Drawn: only the runs the prediction is fitted to (batch 1"
    ), look.not_drawn
