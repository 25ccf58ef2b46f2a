"""The Draft cost tab says nothing of your runs against another draft's prediction (walk AX, finding 1).

Walk AX's Llama-3.1-8B group measured the user's EAGLE-3 draft (l31lab/llama31-8b-eagle3, from the Hub) at batch 1:
a baseline at 114.37 tok/s and num_steps 3, 5, 7 at 259.77, 254.09, 254.88 tok/s. The tab set the two built-in Kimi-K2
drafts (hidden 7,168) beside it and said under each "Measured faster than this prediction: 259.8 tok/s at num_steps=3
(run #2) ... The model underestimates this group; trust the measurement": run #2 served the Llama draft, whose own
prediction (259.5) missed it by 0.1%. Nor did it say that those two drafts are for another target.
"""

from __future__ import annotations

from typing import Any

from comparelib.analysis import draftcost, speedup
from comparelib.models import registry
from tests.fixtures import bench_config, bench_store, eagle3_tensors, page_app, page_text, store_run

TARGET = "meta-llama/Llama-3.1-8B-Instruct"
DRAFT = "l31lab/llama31-8b-eagle3"
GROUP = "l31-sweep"
KIMI = ("AQ-MedAI/Kimi-K2-Instruct-eagle3", "example: own Kimi-K2.5 draft")
SWEEP = ((None, 114.37, None), (3, 259.77, 2.98), (5, 254.09, 3.41), (7, 254.88, 3.66))


def _store() -> dict[int | None, int]:
    store = bench_store()
    ids: dict[int | None, int] = {}
    for k, tok_s, al in SWEEP:
        cfg = bench_config(
            "sglang", TARGET, k, draft=DRAFT if k else None, topk=1 if k else None, ndt=k + 1 if k else None
        )
        summary: dict[str, Any] = {"requests": 16, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": al}
        ids[k] = store_run(store, cfg, summary, group=GROUP, concurrency=1)
    return ids


def _config() -> dict[str, Any]:
    cfg = dict(registry.get_draft("lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge").config)
    cfg["eagle_config"] = {"eagle_aux_hidden_state_layer_ids": [1, 15, 28], "use_aux_hidden_state": True}
    return cfg


def test_a_prediction_for_another_draft_says_nothing_of_your_runs() -> None:
    _store()
    model, _ = draftcost.sweep_model(bench_store().runs(group=GROUP), target=TARGET, draft=DRAFT)
    slower = speedup.with_draft_step(model, model.t_draft_ms + 0.3, source="a bigger draft")
    frame = speedup.predict_frame(slower)[["num_steps", "tok_s", "verify_share", "accept_length"]]
    # the same frame said of the runs' own draft warns (the check still guards a model that misses its runs) ...
    assert "Measured faster than this prediction" in speedup.optimum(slower, frame=frame).sentence
    # ... and of another draft, it does not: those runs did not serve it
    other = speedup.optimum(slower, frame=frame, its_runs=False)
    assert "Measured faster" not in other.sentence and other.measured_faster is None, other.sentence
    assert "underestimates" not in other.sentence


def test_the_tab_warns_of_no_other_drafts_gap_and_says_they_are_for_another_target(hub: Any) -> None:
    hub.add_model(
        DRAFT,
        _config(),
        tensors=eagle3_tensors(4096, 14336, 128256, 32000, kv_dim=1024),
        card=f"---\nbase_model: {TARGET}\n---\n",
    )
    ids = _store()
    at = page_app("../pages/scaling.py", timeout=90)
    at.query_params["draft"] = DRAFT
    at.query_params["draft_group"] = GROUP
    at.session_state["sc_tab"] = "Draft cost"
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    served = at.selectbox(key="sc_dc_first").value
    assert served.startswith(f"{DRAFT}@"), served  # the Hub draft's label names its commit
    bests = {m.value.split("**")[1]: m.value for m in at.markdown if m.value.startswith("**")}
    assert set(KIMI) <= set(bests), list(bests)
    for name in KIMI:
        assert "Measured faster than this prediction" not in bests[name], bests[name]
        assert f"run #{ids[3]}" not in bests[name], bests[name]
    warned = " ".join(w.value for w in at.warning)
    assert "underestimates this group" not in warned, warned
    text = page_text(at)
    assert (
        f"{KIMI[0]} and {KIMI[1]} are drafts of hidden size 7,168 against 4,096 in {served}: drafts for another "
        "target." in text
    ), text
