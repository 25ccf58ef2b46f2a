"""Walk X: a tree measured at the batch the plan ranks at was left out because it was checked against another
batch's runs.

Group walkx-l31 (SGLang, Llama-3.1-8B target): batch 1 with 8 requests (baseline #4 43.8 tok/s; chains num_steps 2, 3,
4 in #6, #7, #8 at 88.5, 96.9, 93.0; a tree, num_steps 3 topk 4 8 draft tokens, #9 at 114.7), batch 4 with 16
requests (baseline #5 175.8; chains #10, #11, #12 at 351.5, 387.6, 367.8; the tree #13 at 455.4), and two imported
runs (#14 chain num_steps 5, #15 a baseline, other prompts and max_tokens). The plan fitted batch 4's sweep and
checked every tree against it: #9 failed on "different number of requests: 8 against 16", so the plan said "No tree
was measured at batch 1, the batch the plan ranks at, so no gain is claimed there", "served: 3 at batch 1, run #7:
your fastest measured run at batch 1" and "No option is predicted to gain beyond run-to-run noise", against run #9's
114.7 tok/s, 17.8 over the chain. A tree is compared with its own batch's chains and baseline (same batch, request
count and prompts), and the plan names it where it measured faster than the chain it takes as served.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from comparelib.analysis import plan
from comparelib.live.store import RunRecord
from tests.fixtures import bench_config, bench_store, cli_in_process, stored_run
from tests.test_sweep import _entry

AL = {2: 32 / 13, 3: 3.0, 4: 32 / 9, "tree": 4.0}
B1 = {"base": 43.8, 2: 88.5, 3: 96.9, 4: 93.0, "tree": 114.7}  # runs #4, #6, #7, #8, #9
B4 = {"base": 175.8, 2: 351.5, 3: 387.6, 4: 367.8, "tree": 455.4}  # runs #5, #10, #11, #12, #13
IDS = {1: {"base": 4, 2: 6, 3: 7, 4: 8, "tree": 9}, 4: {"base": 5, 2: 10, 3: 11, 4: 12, "tree": 13}}
REQUESTS = {1: 8, 4: 16}


def _run(batch: int, key: Any, tok_s: float, **over: Any) -> RunRecord:
    """One of the walk's runs, as its store held them (requests and prompts in the params)."""
    tree = key == "tree"
    steps = None if key == "base" else 3 if tree else int(key)
    r = stored_run(
        IDS[batch][key],
        steps,
        tok_s,
        None if steps is None else AL[key],
        model="acme/target",
        concurrency=batch,
        requests=REQUESTS[batch],
        max_tokens=256,
        topk=4 if tree else 1,
        ndt=8 if tree else ...,
    )
    params = {**r.params, "requests": REQUESTS[batch], **over}
    return replace(r, params=params, requests=int(params["requests"]))


def _imported() -> list[RunRecord]:
    """#14 (chain num_steps 5) and #15 (baseline), imported from `sglang.bench_serving` files: random prompts,
    96 output tokens, no request count recorded."""
    params = {"max_concurrency": 1, "dataset_name": "random", "random_output_len": 96}
    k5 = stored_run(14, 5, 105.0, 3.9, model="acme/target", concurrency=1, prompt_set=None)
    base = stored_run(15, None, 44.5, model="acme/target", concurrency=1, prompt_set=None)
    return [replace(r, kind="imported", params=params) for r in (k5, base)]


def walk_x(tree1: dict[str, Any] | None = None) -> list[RunRecord]:
    """The group's runs; ``tree1`` overrides params of the batch-1 tree #9 (None: as measured)."""
    runs = [
        _run(b, k, t, **(tree1 or {}) if (b, k) == (1, "tree") else {})
        for b, tok in ((1, B1), (4, B4))
        for k, t in tok.items()
    ]
    return sorted(runs + _imported(), key=lambda r: r.id)


def _plan(runs: list[RunRecord], rank: int = 1) -> plan.Plan:
    return plan.build(plan.inputs_for(_entry(), runs=runs, own_samples=37_000.0), rank_batch=rank)


def _option(result: plan.Plan, kind: str) -> plan.Option:
    return next(o for o in result.options if o.kind == kind)


# the ranking batch, the tree and the chain (run #, tok/s) set beside each other there, the gain
RANKED = [
    (1, (9, B1["tree"]), (7, B1[3]), "+17.8 tok/s", "+18%"),  # walk X: the tree at batch 1, 8 requests as its chains
    (4, (13, B4["tree"]), (11, B4[3]), "+67.8 tok/s", "+17%"),
]


@pytest.mark.parametrize(("rank", "tree", "chain", "gain", "pct"), RANKED, ids=["batch 1", "batch 4"])
def test_a_tree_at_the_ranking_batch_is_set_beside_that_batchs_chains_with_its_measured_gain(
    rank: int, tree: tuple[int, float], chain: tuple[int, float], gain: str, pct: str
) -> None:
    result = _plan(walk_x(), rank)
    opt = _option(result, "tree")
    assert opt.title == f"Serve the measured tree (num_steps 3, topk 4, 8 draft tokens) at batch {rank}"
    # both batches' trees are measured, each against its own batch's best chain
    assert {b: v.value for b, v in opt.tok_s.items()} == {"1": B1["tree"], "4": B4["tree"]}, opt.tok_s
    assert (
        "batch 1: run #9 (num_steps 3, topk 4, 8 draft tokens) measured 114.7 tok/s against the best chain, "
        "num_steps 3 (run #7), 96.9: 17.8 tok/s above it, 2.62x its baseline, run #4"
    ) in opt.note, opt.note
    assert (
        "batch 4: run #13 (num_steps 3, topk 4, 8 draft tokens) measured 455.4 tok/s against the best chain, "
        "num_steps 3 (run #11), 387.6: 67.8 tok/s above it, 2.59x its baseline, run #5"
    ) in opt.note, opt.note
    assert "No tree was measured" not in opt.note, opt.note
    (tree_id, tree_tok), (chain_id, chain_tok) = tree, chain
    assert opt.gain is not None and opt.gain.value == pytest.approx(tree_tok - chain_tok)
    assert opt.tok_s[str(rank)].value == pytest.approx(tree_tok) and f"batch {rank}: run #{tree_id} " in opt.note
    assert (
        f"Gain at batch {rank}: {gain} against the served chain's {chain_tok:,.1f} tok/s measured at "
        f"num_steps 3 (run #{chain_id}), {pct}."
    ) in opt.note, opt.note
    # the measured tree gains beyond noise: it leads the plan, and no line says nothing gains
    assert result.options[0].kind == "tree", [(o.kind, o.gain) for o in result.options]
    lead = plan.lead(result) or ""
    assert lead.startswith("**Ranked first: Serve the measured tree"), lead
    assert "No option is predicted to gain" not in lead


def test_what_is_served_says_the_tree_measured_faster_at_the_ranking_batch() -> None:
    result = _plan(walk_x())
    ns = _option(result, "num-steps")
    assert "your fastest measured run at batch 1" not in ns.note, ns.note
    assert (
        "served: 3 at batch 1, run #7: your fastest measured chain at batch 1, the batch the plan ranks at; run #9, "
        "a tree (num_steps 3, topk 4, 8 draft tokens), measured 114.7 tok/s there, 17.8 more: see the tree option"
    ) in ns.note, ns.note
    assert plan.current_words(result) == (  # the chain is what gains are against, not "served now" (walk X)
        "What every gain at batch 1 is against: a chain, 96.9 tok/s measured (run #7, num_steps 3), as the speed "
        "model predicts chains only. A tree measured faster there: 114.7 tok/s (run #9, num_steps 3, topk 4, 8 draft "
        "tokens), 17.8 more (the tree option); if you serve it, a chain option predicted below 114.7 tok/s at batch "
        "1 is slower than what you serve."
    )


# params of tree #9 that set it apart from batch 1's chains: it is not compared with them
APART = [
    ("16 requests at batch 1", {"requests": 16}),
    ("other prompts", {"prompt_set": "chat"}),
    ("other max_tokens", {"max_tokens": 96}),
]


@pytest.mark.parametrize(("case", "over"), APART, ids=[c[0] for c in APART])
def test_a_tree_measured_unlike_its_own_batchs_chains_is_not_set_beside_them(case: str, over: dict[str, Any]) -> None:
    result = _plan(walk_x(over))
    opt = _option(result, "tree")
    assert set(opt.tok_s) == {"4"}, (case, opt.tok_s)
    assert "No tree was measured at batch 1, the batch the plan ranks at, so no gain is claimed there." in opt.note
    ns = _option(result, "num-steps")
    assert "your fastest measured run at batch 1" in ns.note, (case, ns.note)
    assert "A tree measured faster" not in plan.current_words(result)


def test_a_tree_at_the_ranking_batch_slower_than_the_chain_changes_nothing_served() -> None:
    runs = [replace(r, output_tokens_per_s=90.0) if r.id == 9 else r for r in walk_x()]
    result = _plan(runs)
    opt = _option(result, "tree")
    assert "batch 1: run #9 (num_steps 3, topk 4, 8 draft tokens) measured 90.0 tok/s" in opt.note, opt.note
    assert opt.gain is not None and opt.gain.value == pytest.approx(90.0 - B1[3])
    assert "served: 3 at batch 1, run #7: your fastest measured run at batch 1" in _option(result, "num-steps").note
    assert "A tree measured faster" not in plan.current_words(result)


# ---------------------------------------------------------------- the CLI, on the walk's store


def _store_walk_x(group: str = "walkx-l31") -> None:
    store = bench_store()
    for r in walk_x():
        if r.kind == "imported":
            continue
        tree = (r.topk or 1) > 1
        cfg = bench_config("sglang", "acme/target", r.num_steps, draft=None, topk=r.topk, ndt=r.num_draft_tokens)
        rid = store.start_run(endpoint="http://127.0.0.1:30000", server_config=cfg, group=group, params=r.params)
        store.finish_run(
            rid,
            {"requests": r.requests, "output_tokens_per_s": r.output_tokens_per_s, "accept_length": r.accept_length},
        )
        assert not tree or r.num_draft_tokens == 8


def test_cli_plan_json_names_the_batch_1_tree(capsys: pytest.CaptureFixture[str]) -> None:
    _store_walk_x()
    proc = cli_in_process(capsys, "plan", "example", "--group", "walkx-l31", "--samples", "37000", "--json")
    assert proc.returncode == 0, proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    first = data["options"][0]
    assert first["kind"] == "tree", [(o["kind"], o["gain_tok_s"]) for o in data["options"]]
    assert first["gain_tok_s"]["value"] == pytest.approx(B1["tree"] - B1[3])
    assert first["tok_s"]["1"]["value"] == pytest.approx(B1["tree"])
    proc = cli_in_process(capsys, "plan", "example", "--group", "walkx-l31", "--samples", "37000")
    assert proc.returncode == 0, proc.stderr
    assert "No tree was measured at batch 1" not in proc.stdout, proc.stdout
    assert "A tree measured faster there: 114.7 tok/s" in proc.stdout, proc.stdout


def test_the_tree_rows_tok_s_is_said_measured_in_the_export() -> None:
    """Walk BV 1: the plan's tok_s_basis called measured tok/s "predicted"; a tree row's figures are its runs'."""
    result = _plan(walk_x())
    tree = _option(result, "tree")
    row = result.frame().set_index("kind").loc["tree"]
    assert tree.tok_s and all(f"bs{b} measured (run #" in row["tok_s_basis"] for b in tree.tok_s), row["tok_s_basis"]
    assert "predicted" not in row["tok_s_basis"], row["tok_s_basis"]
