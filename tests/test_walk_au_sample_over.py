"""Walk AU: a sampled audit of 15,000 rows (7 over max_length; 5 in the 10,000-row sample) said "8 row(s) in the
sample are longer" (the extrapolated 7.5, rounded) and gave an interval of 3.7 to 11 for them, below the 5 the sample
held. The estimate is said as one, of all rows; a count's interval never goes below what the sample holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from comparelib.audit import scan
from comparelib.audit.scan import audit


@pytest.mark.parametrize(
    ("values", "population", "indicator", "low_at_least", "high_at_most"),
    [
        ([1.0] * 5 + [0.0] * 9995, 15_000, True, 5.0, 5.0 + 5_000),
        ([1.0] * 2 + [0.0] * 98, 100, True, 2.0, 2.0),  # the whole population sampled: exact
        ([1.0] * 1 + [0.0] * 9, 1_000, True, 1.0, 1.0 + 990),
        ([300.0, 0.0, 0.0, 0.0], 40, False, 300.0, float("inf")),  # tokens: at least the sample's
    ],
)
def test_a_counts_interval_holds_what_the_sample_holds(
    values: list[float], population: int, indicator: bool, low_at_least: float, high_at_most: float
) -> None:
    est = scan._estimate(values, population, indicator=indicator)
    assert est["low"] >= low_at_least - 1e-9, est
    assert est["high"] <= high_at_most + 1e-9, est
    assert est["low"] <= est["value"] <= est["high"], est


def test_the_rows_over_max_length_are_said_as_estimated(tmp_path: Path) -> None:
    rows = []
    for i in range(3_000):
        long = i % 400 == 7  # 8 rows well over max_length 64 (byte/4 counting)
        text = ("word " * 200) if long else f"answer {i}"
        rows.append({"conversations": [{"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": text}]})
    path = tmp_path / "train.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = audit(str(path), sample=1_000, max_length=64)
    assert result.estimated, result.notes
    said = result.volume_sentence()
    assert "in the sample are longer" not in said, said
    assert f"about {result.over_max_length:,} row(s) are longer, estimated from the sample" in said, said
    over = result.estimate["over_max_length"]
    assert over["low"] >= 0 and over["high"] <= 8 + 2_000, over
