"""Your acceptance, where the published figure states no engine: the run on the engine your live speed is served
with, before a newer run on another engine (walk BM, 2).

Walk BM's group measured its draft at (3,1,4) batch 1 on SGLang (#7, 3.00) and then on vLLM (#12, 2.50); live speed and
the plan read SGLang. Overview took the newer vLLM run: "Acceptance differs: the reference's GSM8K 3.23 is 1.29 times
our 2.50 ... so the newest run is taken", where SGLang's 3.00 is within 10% of 3.23 (1.077x).
"""

from __future__ import annotations

from typing import Any

from comparelib.analysis import overview
from tests.fixtures import bench_store, store_run

PUB = "AQ-MedAI/Kimi-K2.7-Code-eagle3"  # publishes (3,1,4) figures with no engine stated
DRAFT = "/data/kimi-k27-code-eagle3-fullvocab"
TARGET = "moonshotai/Kimi-K2.7-Code"


def _runs() -> tuple[dict[str, int], list[Any]]:
    store = bench_store()
    ids = {}
    for label, engine, steps, tok_s, al, batch in (
        ("base1", "sglang", None, 91.2, None, 1),
        ("sg3", "sglang", 3, 179.7, 3.0, 1),
        ("base8", "sglang", None, 620.0, None, 8),
        ("sg3-8", "sglang", 3, 1072.6, 3.0, 8),
        ("vl3", "vllm", 3, 140.2, 2.5, 1),  # newest, on the engine nothing else is served with
    ):
        cfg = {
            "engine": engine,
            "version": "0.0.0-fake",
            "model": TARGET,
            "speculative_algorithm": "EAGLE3" if steps else None,
            "draft_model": DRAFT if steps else None,
            "num_steps": steps,
            "topk": 1 if steps else None,
            "num_draft_tokens": 4 if steps else None,
            "temperature": 0.0,
        }
        summary = {"requests": 8, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": al}
        ids[label] = store_run(store, cfg, summary, group="bm-k27", concurrency=batch)
    runs = list(store.runs(group="bm-k27"))
    store.close()
    return ids, runs


def test_the_served_engines_run_is_your_acceptance() -> None:
    ids, runs = _runs()
    mine = overview.own_acceptance(runs, overview.reference_settings(PUB), draft="kimi-k27-code-eagle3-fullvocab")
    assert mine is not None and mine.run.id == ids["sg3"], mine
    assert mine.value == 3.0
    assert f"vLLM run #{ids['vl3']} measured 2.50 at the same chain and batch" in mine.why, mine.why
    assert "the run on the engine your live speed is served with (SGLang) is taken" in mine.why, mine.why
