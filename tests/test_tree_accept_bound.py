"""The most acceptance a setting allows, for a tree as for a chain (the plan's and Acceptance vs data's ceiling).

SGLang's EAGLE tree (topk > 1) verifies num_draft_tokens nodes, the root included, and accepts one path of at most
num_steps drafted tokens plus the bonus token: min(num_steps + 1, num_draft_tokens), the bound a chain
(K,1,K+1) has too (SGLang 0.5.23 speculative/eagle_info.py:52-56, eagle_utils.py:110, 634, 845). A guard: the
bound was already this; a tree's acceptance above its chain's at the same num_steps is no reason to lift it.
"""

from __future__ import annotations

import pytest

from comparelib.analysis import scaling

BOUNDS = [
    ("steps=3,topk=1,draft=4,bs=1,sglang", 4.0),  # a chain: K + 1
    ("steps=3,topk=4,draft=8,bs=1,sglang", 4.0),  # walk X's tree: num_steps 3 deep, 4 at most, as its chain
    ("steps=5,topk=8,draft=64,bs=1,sglang", 6.0),  # a wide tree: still num_steps + 1
    ("steps=5,topk=4,draft=4,bs=1,sglang", 4.0),  # 3 drafted nodes and the root: num_draft_tokens
]


@pytest.mark.parametrize(("key", "ceiling"), BOUNDS, ids=[k for k, _ in BOUNDS])
def test_a_trees_acceptance_is_bounded_by_its_depth_and_its_node_budget(key: str, ceiling: float) -> None:
    assert scaling.accept_bounds(key) == (1.0, ceiling)
    # what the trend may quote stops at that ceiling, said as the most this setting allows
    said = scaling.trend_unsaid(ceiling, None, None, scaling.accept_bounds(key))
    assert said == (
        f"its value there is the ceiling of {ceiling:.2f}, the most acceptance possible at this setting, not a "
        "prediction"
    ), said
