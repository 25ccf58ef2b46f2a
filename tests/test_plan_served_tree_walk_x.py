"""Walk X: "Served now at batch 1: 96.9 tok/s, measured (run #7, num_steps 3)" called the chain served while the group
held a tree measured faster at that batch (run #9, 114.7 tok/s). The chain is what the plan sets every gain against
(its speed model predicts chains only), not what is served: the line says so, and names the faster tree.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from comparelib.analysis import plan
from tests.test_plan_table_walk_x import _overview_plan
from tests.test_plan_trees_walk_x import _plan, walk_x

AGAINST = [
    # rank batch, the served chain (tok/s, run), the tree (tok/s, run), the difference
    (1, ("96.9", 7), ("114.7", 9), "17.8"),
    (4, ("387.6", 11), ("455.4", 13), "67.8"),
]


@pytest.mark.parametrize(("rank", "chain", "tree", "more"), AGAINST, ids=["batch 1", "batch 4"])
def test_a_faster_tree_is_not_called_slower_than_what_is_served(
    rank: int, chain: tuple[str, int], tree: tuple[str, int], more: str
) -> None:
    words = plan.current_words(_plan(walk_x(), rank))
    (c_tok, c_run), (t_tok, t_run) = chain, tree
    assert "Served now" not in words, words
    assert words.startswith(
        f"What every gain at batch {rank} is against: a chain, {c_tok} tok/s measured (run #{c_run}, num_steps 3), "
        "as the speed model predicts chains only."
    ), words
    assert (
        f"A tree measured faster there: {t_tok} tok/s (run #{t_run}, num_steps 3, topk 4, 8 draft tokens), {more} "
        f"more (the tree option); if you serve it, a chain option predicted below {t_tok} tok/s at batch {rank} is "
        "slower than what you serve."
    ) in words, words


def test_without_a_faster_tree_what_is_served_is_said_as_before() -> None:
    runs = [replace(r, output_tokens_per_s=90.0) if r.id == 9 else r for r in walk_x()]
    assert plan.current_words(_plan(runs)) == (
        "Served now at batch 1: 96.9 tok/s, measured (run #7, num_steps 3); every gain at batch 1 is against it."
    )


def test_the_overview_caption_says_what_every_gain_is_against(tmp_path: Path) -> None:
    """Walk X on Overview: the caption above the plan table."""
    at, ids = _overview_plan(tmp_path)
    captions = [c.value for c in at.caption]
    said = next((c for c in captions if c.startswith("What every gain at batch 1 is against")), None)
    assert said is not None, captions
    chain, tree = ids[(1, 3, 1)], ids[(1, 3, 4)]
    assert said.startswith(
        f"What every gain at batch 1 is against: a chain, 96.9 tok/s measured (run #{chain}, num_steps 3)"
    ), said
    assert f"A tree measured faster there: 114.7 tok/s (run #{tree}, num_steps 3, topk 4, 8 draft tokens)" in said
    assert not any(c.startswith("Served now at batch 1") for c in captions), captions
