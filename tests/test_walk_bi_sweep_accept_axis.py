"""Acceptance vs data's sweep chart: the acceptance axis runs to a tick at or above every value drawn (walk BI).

With the sweep set to one run (batch 4, SGLang: 2.78 at num_steps 3; or batch 1 on vLLM: 2.61), the renderer's own
axis ran 0.0-2.5 and the point sat above its top tick, against README's rule for every acceptance axis.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from comparelib import charts


def _y_scales(spec: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            y = node.get("encoding", {}).get("y") if isinstance(node.get("encoding"), dict) else None
            if isinstance(y, dict) and y.get("field") == "accept_length":
                found.append(y)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(spec)
    return found


@pytest.mark.parametrize(
    ("values", "predicted"),
    [([2.78], None), ([2.61], None), ([1.80, 2.42, 2.78, 2.98, 3.12], None), ([2.21, 2.61], [1.5, 3.6])],
)
def test_every_value_sits_within_the_ticks(values: list[float], predicted: list[float] | None) -> None:
    measured = pd.DataFrame(
        {
            "num_steps": list(range(1, len(values) + 1)),
            "tok_s": [100.0 + i for i in range(len(values))],
            "accept_length": values,
            "baseline": False,
            "kind": "measured",
        }
    )
    pred = (
        pd.DataFrame(
            {
                "num_steps": list(range(1, len(predicted) + 1)),
                "scenario": "fit",
                "tok_s": [90.0] * len(predicted),
                "accept_length": predicted,
                "kind": "predicted",
            }
        )
        if predicted
        else None
    )
    _, right = charts.sweep_chart_parts(measured, pred, 80.0)
    ys = _y_scales(right.to_dict())
    assert ys, right.to_dict()
    drawn = values + (predicted or [])
    for y in ys:
        lo, hi = y["scale"]["domain"]
        ticks = y["axis"]["values"]
        assert lo <= min(drawn) and hi >= max(drawn), (y, drawn)
        assert ticks[0] <= min(drawn) and ticks[-1] >= max(drawn), (ticks, drawn)
