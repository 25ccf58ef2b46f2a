"""The volume gap's reference figure is the one the Acceptance line compares, not a dynamic tree (walk AX, finding 2).

Walk AX's Llama-3.1-8B group measured the user's EAGLE-3 draft (l31lab/llama31-8b-eagle3) at the chain (3,1,4),
batch 1, SGLang: acceptance 2.98 (run #2), 20,000 training samples, reference yuhuili/EAGLE3-LLaMA3.1-Instruct-8B.
The Acceptance line set it against yuhuili's GSM8K 1.72 at steps=3,topk=1,draft=4,bs=1,sglang (SpecForge's data),
while the fold-out "What the published data predicts for the volume gap" (and the CLI's volume gap line) said "It
reports an acceptance length of 6.23 on GSM8K at bs=1,T=0,dynamic tree (EAGLE-2),eagle": the EAGLE-3 paper's tree
figure on the authors' code, 3.6x the figure the headline used. choose_setting picked it on a tie of two volumes.
"""

from __future__ import annotations

from typing import Any

from comparelib.analysis import overview, scaling, summary, verdicts
from comparelib.models import registry
from tests.fixtures import bench_config, bench_store, store_run

TARGET = "meta-llama/Llama-3.1-8B-Instruct"
DRAFT = "l31lab/llama31-8b-eagle3"
REF = "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"
GROUP = "l31-sweep"
SWEEP = ((None, 114.37, None), (3, 259.77, 2.98), (5, 254.09, 3.41), (7, 254.88, 3.66))


def _runs() -> list[Any]:
    store = bench_store()
    for k, tok_s, al in SWEEP:
        cfg = bench_config(
            "sglang", TARGET, k, draft=DRAFT if k else None, topk=1 if k else None, ndt=k + 1 if k else None
        )
        summary_: dict[str, Any] = {"requests": 16, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": al}
        store_run(store, cfg, summary_, group=GROUP, concurrency=1)
    return list(store.runs(group=GROUP))


def test_the_volume_gap_reads_the_reference_at_the_acceptance_lines_setting() -> None:
    a = overview.answer(None, registry.get_draft(REF), _runs(), 20_000.0, own_target=TARGET, draft=DRAFT)
    assert a.own_setting and a.own_setting.startswith("steps=3,topk=1,draft=4"), a.own_setting
    assert "1.72" in a.accept.sentence and "6.23" not in a.accept.sentence, a.accept.sentence
    gap = summary.volume_gap(a, scaling.published_points())
    assert gap is not None and gap.kind == "predicted", gap
    assert "6.23" not in gap.text and "dynamic tree" not in gap.text, gap.text
    assert "It reports an acceptance length of 1.72 on GSM8K at steps=3,topk=1,draft=4,bs=1,sglang." in gap.text


def test_with_no_setting_of_yours_a_chain_figure_goes_before_a_tree() -> None:
    """No run measured: no tree figure is picked where the reference publishes a chain figure on that benchmark."""
    pts = scaling.published_points()
    key = verdicts.choose_setting(pts, REF, "gsm8k")
    assert key is not None and "tree" not in key, key
    assert "6.23" not in verdicts.gap_verdict(20_000.0, REF, points=pts).sentence
