"""Walk Q: the plan had no tree option.

A batch-1 SGLang sweep of chains (num_steps 1..5) beside a tree (num_steps 3, topk 4, 8 draft tokens) that measured
6.5 tok/s over the best chain: the plan said "No option is predicted to gain beyond run-to-run noise (4.0 tok/s)",
because the speed model fits chains only. A measured tree is now an option of its own, with its measured gain.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from comparelib.analysis import plan
from comparelib.live.store import RunRecord
from tests.fixtures import stored_run
from tests.test_sweep import _entry

AL = {1: 1.8, 2: 2.4, 3: 2.8, 4: 3.05, 5: 3.2}
CHAIN_TOK = {1: 160.0, 2: 188.0, 3: 199.0, 4: 201.0, 5: 197.0}  # best chain: num_steps 4, 201.0 (run #5)


def _run(id_: int, steps: int | None, tok_s: float, al: float | None = None, **kw: Any) -> RunRecord:
    return stored_run(id_, steps, tok_s, al, model="acme/target", concurrency=1, **kw)


CHAINS = [_run(1, None, 110.0)] + [_run(1 + k, k, CHAIN_TOK[k], AL[k]) for k in range(1, 6)]


def _plan(runs: list[RunRecord]) -> plan.Plan:
    return plan.build(plan.inputs_for(_entry(), runs=runs, own_samples=37_000.0))


# tree tok/s, expected gain over the served chain (or None: no option), words in the note, ranked first
CASES = [
    # walk Q: 6.5 over the best chain, beyond 2% noise: the tree leads the plan, its gain measured
    (207.5, "6.5 tok/s above it", True),
    # a tree within noise of the best chain: listed, said as a tie, not first
    (202.0, "within 2% of it: a tie within run-to-run noise", False),
    # a tree slower than the chain: said so, gains nothing
    (180.0, "21.0 tok/s below it", False),
]


@pytest.mark.parametrize(("tree_tok", "words", "first"), CASES)
def test_a_measured_tree_is_an_option_with_its_measured_gain(tree_tok: float, words: str, first: bool) -> None:
    tree = _run(9, 3, tree_tok, 3.4, topk=4, ndt=8)
    result = _plan(CHAINS + [tree])
    opt = next((o for o in result.options if o.kind == "tree"), None)
    assert opt is not None, [o.title for o in result.options]
    assert opt.title == "Serve the measured tree (num_steps 3, topk 4, 8 draft tokens) at batch 1"
    assert (
        f"batch 1: run #9 (num_steps 3, topk 4, 8 draft tokens) measured {tree_tok:,.1f} tok/s against the best "
        "chain, num_steps 4 (run #5), 201.0: " + words
    ) in opt.note, opt.note
    served = result.served_steps
    assert served is not None
    assert opt.gain is not None and opt.gain.value == pytest.approx(tree_tok - CHAIN_TOK[served])
    assert (
        f"Gain at batch 1: {tree_tok - CHAIN_TOK[served]:+,.1f} tok/s against the served chain's "
        f"{CHAIN_TOK[served]:,.1f} tok/s measured at num_steps {served}"
    ) in opt.note, opt.note
    assert opt.tok_s["1"].value == pytest.approx(tree_tok) and opt.total.value == 0
    assert (result.options[0].kind == "tree") is first, [(o.kind, o.gain) for o in result.options]
    lead = plan.lead(result)
    assert lead is not None
    if first:
        assert lead.startswith("**Ranked first: Serve the measured tree"), lead
        assert "No option is predicted to gain" not in lead


def test_no_tree_option_without_a_measured_tree_or_for_an_imported_one() -> None:
    assert not [o for o in _plan(CHAINS).options if o.kind == "tree"]
    imported = replace(_run(9, 3, 230.0, 3.4, topk=4, ndt=8), kind="imported")
    assert not [o for o in _plan(CHAINS + [imported]).options if o.kind == "tree"]
    other_tokens = _run(9, 3, 230.0, 3.4, topk=4, ndt=8, max_tokens=256)  # measured under other conditions
    assert not [o for o in _plan(CHAINS + [other_tokens]).options if o.kind == "tree"]


def test_a_tree_at_another_batch_claims_no_gain_at_the_ranking_batch() -> None:
    tree = replace(
        _run(9, 3, 900.0, 3.4, topk=4, ndt=8), params={"concurrency": 8, "max_tokens": 64, "prompt_set": "bundled"}
    )
    opt = next(o for o in _plan(CHAINS + [tree]).options if o.kind == "tree")
    assert opt.gain is None and "no chain was measured at batch 8" in opt.note, opt.note
    assert "No tree was measured at batch 1" in opt.note


def test_a_sweep_of_trees_alone_gets_no_tree_option() -> None:
    """A group of trees only is fitted as its own sweep: there is no chain to set a tree beside."""
    trees = [_run(1, None, 110.0)] + [_run(1 + k, k, CHAIN_TOK[k], AL[k], topk=4, ndt=8) for k in range(1, 6)]
    assert not [o for o in _plan(trees).options if o.kind == "tree"]
