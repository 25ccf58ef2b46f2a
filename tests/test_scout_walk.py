"""Walk Q: two Llama-4-Scout EAGLE-3 drafts on SGLang, chains and trees at batch 1 and 16, one run imported from a
`vllm bench serve` result file.

2. A sweep's label ("batch 1, sglang: 5 runs at num_steps 1, 2, 3, 4, 5") counted the imported run and the tree,
   which the fit of that sweep leaves out (an imported run of unrecorded prompts is another setting; a tree has
   another topk than the chains): the label now counts what a sweep of that choice fits and says the others apart.
3. Chains or trees grouped runs by the draft's name as recorded: draft a's tree, served from its local folder
   (/data/drafts/scout-eagle3-a), and its chains, served by Hub id (labx/scout-eagle3-a), were two drafts, so the
   tree was never set beside the chain. They are grouped by the one-draft rule (``draft.draft_match``).
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from comparelib.analysis import speedup, verdicts
from comparelib.errors import InputError
from comparelib.live.store import RunRecord
from tests.fixtures import bench_config, bench_store, run_cli, stored_run

SCOUT = "meta-llama/Llama-4-Scout-17B-16E-Instruct"
A = "labx/scout-eagle3-a"
A_FOLDER = "/data/drafts/scout-eagle3-a"  # draft a, served from a local folder of its name
B = "labx/scout-eagle3-b"
FILE = "scout_b1_k5.json"
AL = {1: 1.7, 2: 2.2, 3: 2.6, 4: 2.9, 5: 3.1}
BASE = {1: 110.0, 16: 1100.0}


def _tok_s(batch: int, steps: int, *, tree: bool = False) -> float:
    """A chain's tok/s (the baseline's x AL over the cycle's cost); a tree 5% faster at batch 1, 5% slower at 16."""
    chain = BASE[batch] * AL[steps] / (1.0 + 0.12 * steps)
    return round(chain * ((1.05 if batch == 1 else 0.95) if tree else 1.0), 1)


def _run(id_: int, batch: int, steps: int | None, draft: str | None = A, **kw: Any) -> RunRecord:
    tree = (kw.get("topk") or 1) > 1
    tok_s = BASE[batch] if steps is None else _tok_s(batch, steps, tree=tree)
    return stored_run(
        id_, steps, tok_s, None if steps is None else AL[steps], draft=draft, model=SCOUT, concurrency=batch, **kw
    )


def _imported(id_: int) -> RunRecord:
    """Draft a at batch 1 and num_steps 5, as the importer stores a `vllm bench serve` result: no prompt set and
    no output length recorded."""
    run = _run(id_, 1, 5)
    return replace(
        run, kind="imported", params={"format": "vllm bench serve", "source_file": FILE, "max_concurrency": 1}
    )


def _group() -> list[RunRecord]:
    return [
        _run(1, 1, None),
        *(_run(1 + k, 1, k) for k in range(1, 5)),  # #2-#5: draft a's chains at batch 1
        _run(6, 1, 3, topk=4, ndt=8),  # its tree at batch 1
        _imported(7),
        _run(8, 16, None),
        *(_run(8 + k, 16, k) for k in range(1, 5)),  # #9-#12: its chains at batch 16
        _run(13, 16, 3, A_FOLDER, topk=4, ndt=8),  # its tree at batch 16, served from its folder
        *(_run(13 + k, 1, k, B) for k in range(1, 4)),  # #14-#16: draft b's chains at batch 1
    ]


# ------------------------------------------------------------------ 2. a sweep's label counts what its fit fits

# (batch, engine): (the runs a sweep of it fits, the label)
SWEEPS = {
    (1, "sglang"): (
        (2, 3, 4, 5),
        "batch 1, sglang: 4 runs at num_steps 1, 2, 3, 4 (+1 imported and 1 tree, left out of the fit)",
    ),
    (16, "sglang"): (
        (9, 10, 11, 12),
        "batch 16, sglang: 4 runs at num_steps 1, 2, 3, 4 (+1 tree, left out of the fit)",
    ),
}


def test_each_sweeps_label_counts_the_runs_its_fit_fits_and_says_the_others_apart() -> None:
    runs = _group()
    choices, default = speedup.sweep_choices(runs, target=SCOUT, draft=A)
    assert [c.key for c in choices] == list(SWEEPS)
    assert {c.key: (c.fitted_ids, c.label) for c in choices} == SWEEPS
    assert choices[0].run_ids == (2, 3, 4, 6, 5, 7)  # every run of draft a there, fewest num_steps first
    assert choices[0].left_out == ((6, "tree"), (7, "imported"))
    assert default is not None
    for choice in choices:  # the fit of each choice is of the runs its label counts
        look = verdicts.live_outlook(runs, None, reference=B, x="samples", target=SCOUT, draft=A, sweep=choice.key)
        assert look.model.fitted_run_ids == choice.fitted_ids
    with pytest.raises(InputError, match=r"its sweeps: batch 1, sglang: 4 runs .*\(\+1 imported and 1 tree"):
        verdicts.live_outlook(runs, None, reference=B, x="samples", target=SCOUT, draft=A, sweep=(4, "sglang"))


def test_a_sweep_of_trees_alone_fits_its_trees() -> None:
    """The fit is of one topk: a choice that measured only trees fits them, and leaves nothing out."""
    trees = [_run(1, 1, None), *(_run(1 + k, 1, k, topk=4, ndt=8) for k in (2, 3))]
    [choice] = speedup.sweep_groups(trees, target=SCOUT, draft=A)
    assert (choice.fitted_ids, choice.left_out) == ((3, 4), ())
    assert choice.label == "batch 1, sglang: 2 runs at num_steps 2, 3"


def test_speedup_batch_and_engine_fits_what_the_label_counts() -> None:
    """``speedup --batch N --engine E`` is the page's Sweep choice: it fits the runs that choice's label counts, and
    its JSON lists every sweep as the pages label it."""
    store = bench_store()
    ids: dict[tuple[int, int | None, int], int] = {}  # (batch, num_steps or None, topk) -> id
    params = {"max_tokens": 256, "prompt_set": "bundled"}
    for batch in (1, 16):
        for steps, topk in [(None, 1), (1, 1), (2, 1), (3, 1), (3, 4)]:
            cfg = bench_config("sglang", SCOUT, steps, draft=A if steps else None, topk=topk if steps else None,
                               ndt=(8 if topk > 1 else steps + 1) if steps else None)  # fmt: skip
            rid = store.start_run(endpoint="http://sglang:30000", server_config=cfg, group="walkq",
                                  params={"concurrency": batch, **params})  # fmt: skip
            tok_s = BASE[batch] if steps is None else _tok_s(batch, steps, tree=topk > 1)
            store.finish_run(
                rid,
                {"requests": 16, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": AL.get(steps or 0)},
            )
            ids[(batch, steps, topk)] = rid
    for batch in (1, 16):
        proc = run_cli("speedup", "--run-group", "walkq", "--draft", A, "--batch", str(batch), "--engine", "sglang",
                       "--json")  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        chains = sorted(ids[(batch, k, 1)] for k in (1, 2, 3))
        assert sorted(p["run_id"] for p in out["measured"]) == chains
        sweep = next(s for s in out["sweeps"] if s["batch"] == batch)
        assert sweep["fitted_run_ids"] == chains and sweep["left_out_run_ids"] == [ids[(batch, 3, 4)]]
        assert sweep["label"] == f"batch {batch}, sglang: 3 runs at num_steps 1, 2, 3 (+1 tree, left out of the fit)"


# ------------------------------------------------------------------ 3. chains or trees: one draft under two names


@pytest.mark.parametrize("draft", [None, A, A_FOLDER], ids=["no-draft", "hub-id", "folder"])
def test_a_tree_served_from_the_drafts_folder_is_set_beside_its_chain_by_hub_id(draft: str | None) -> None:
    said = speedup.chains_and_trees(_group(), draft)
    at16 = [s for s in said if s.startswith("batch 16, sglang")]
    assert len(at16) == 1, said
    assert "best tree (num_steps 3, topk 4, 8 draft tokens, run #13)" in at16[0], at16
    assert "the chain is" in at16[0] or "a tie" in at16[0], at16
    if draft is None:  # two drafts in the group (b ran chains only): each line names its draft, a by its Hub id
        assert [line.split(": ", 1)[0] for line in said] == [f"batch 1, sglang, {A}", f"batch 16, sglang, {A}"], said
