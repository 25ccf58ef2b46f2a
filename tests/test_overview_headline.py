"""Walk Q: Overview led with the batch-16 pair (1.47x, the fastest in tok/s) while the largest speedup measured
was batch 1's (1.56x), listed after it as if a lesser pair. The clause now says which is which."""

from __future__ import annotations

import pytest

from comparelib.analysis import overview
from tests.fixtures import stored_run

DRAFT = "labq/scout-eagle3-a"


def _pairs(batch1_spec: float) -> list:  # type: ignore[type-arg]
    return [
        stored_run(1, None, 100.0, concurrency=1),
        stored_run(2, 3, batch1_spec, 2.6, draft=DRAFT, concurrency=1),
        stored_run(3, None, 544.0, concurrency=16),
        stored_run(4, 3, 800.0, 2.5, draft=DRAFT, concurrency=16),
    ]


# batch-1 speculative tok/s, whether the larger speedup elsewhere is said
CASES = [(156.0, True), (148.0, False), (149.0, False)]  # 1.56x > 1.47x; 1.48x and 1.49x tie within 2%


@pytest.mark.parametrize(("spec1", "said"), CASES)
def test_overview_says_when_the_largest_speedup_is_another_settings(spec1: float, said: bool) -> None:
    live = overview.live_facts(_pairs(spec1), DRAFT)
    assert live is not None and live.run_id == 4 and live.speedup == pytest.approx(800 / 544)
    assert live.best_other_speedup == pytest.approx(spec1 / 100)
    words = f"the largest speedup measured, {spec1 / 100:.2f}x, is another setting's (the first below)"
    assert (words in live.others_clause) is said, live.others_clause
    assert (words in live.sentence) is said, live.sentence
    assert "Other comparable pairs at other settings: " in live.others_clause
    assert f"batch 1, num_steps=3 at {spec1 / 100:.2f}x (#2/#1)" in live.others_clause, live.others_clause
