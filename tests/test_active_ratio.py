"""A MoE target's draft is also sized against the target's active parameters, what a token costs the target.

Walk N: a Qwen3-Coder-30B-A3B draft was sized only against the 30B total, never against the 3B a token
uses, which is what the draft's cost is weighed against.
"""

from __future__ import annotations

import pytest

from comparelib.models import comparison


@pytest.mark.parametrize(
    ("draft", "moe"),
    [
        ("AQ-MedAI/Kimi-K2-Instruct-eagle3", True),
        ("zhuyksir/EAGLE3-gpt-oss-20b-bf16", True),
        ("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", False),  # dense: every parameter is active (walk AB)
    ],
)
def test_active_ratio_is_over_the_targets_active_parameters(draft: str, moe: bool) -> None:
    e = comparison.load_entry(comparison.registry_source(draft), with_header=False, with_card=False)
    assert e.target_count is not None
    if not moe:  # a token passes through all of a dense text-only target: the same as the draft/target ratio
        assert e.target_count.active is None and e.ratio_active == e.ratio is not None
        return
    assert e.target_count.active and e.target_count.active < e.target_count.total
    assert e.ratio_active == pytest.approx(e.count.excluding_embedding / e.target_count.active, rel=1e-12)
    row = comparison.table([e], {}).iloc[0]
    assert row["draft_to_active"] == pytest.approx(round(e.ratio_active, 5))
    assert comparison.entry_json(e)["draft_to_target_active_ratio"] == e.ratio_active
