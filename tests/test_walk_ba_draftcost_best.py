"""The Draft cost tab names the best num_steps of the draft the sweep measured as Live results does (walk BA, 1).

Walk BA's vLLM sweep at batch 8 measured num_steps 2, 3, 4 at 1116.27, 1103.46 and 1140.29 tok/s (runs #6-#8). The
Live results tab said "Best: num_steps=4 at 1140.3 tok/s ... measured in run #8"; the Draft cost tab, on the same fit,
said "Predicted best: num_steps=3 at 1126.8 tok/s ... num_steps=4 ties within noise": picked on the fit's curve alone,
where 3 was measured 3.2% slower than 4.
"""

from __future__ import annotations

from typing import Any

from comparelib.analysis import draftcost, speedup
from tests.fixtures import bench_config, bench_store, page_app, store_run

TARGET = "moonshotai/Kimi-K2.5"
DRAFT = "example:own-kimi-k2.5-draft"  # its step cost is in the recorded figures: the draft the sweep measured
FIRST = "example: own Kimi-K2.5 draft"
GROUP = "walkba-like"
# num_steps: (tok/s, acceptance) at batch 8, walk BA's runs #5-#8
SWEEP = {0: (604.21, None), 2: (1116.27, 2.2069), 3: (1103.46, 2.6122), 4: (1140.29, 2.9767)}


def _store() -> dict[int, int]:
    store = bench_store()
    ids = {}
    for k, (tok_s, al) in SWEEP.items():
        cfg = bench_config("vllm", TARGET, k or None, draft=None, topk=1 if k else None, ndt=k + 1 if k else None)
        summary: dict[str, Any] = {"requests": 16, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": al}
        ids[k] = store_run(store, cfg, summary, group=GROUP, concurrency=8)
    return ids


def test_the_measured_draft_is_picked_on_its_measurements() -> None:
    ids = _store()
    model, _ = draftcost.sweep_model(bench_store().runs(group=GROUP), target=TARGET, draft=None)
    live = speedup.optimum(model)
    assert live.num_steps == 4 and live.source == "measured", live.sentence
    cands = [draftcost.Candidate(FIRST, 1.21, at_steps=4), draftcost.Candidate("other", 0.81, at_steps=4)]
    side = draftcost.compare(model, cands, served=True)
    mine = draftcost.best(model, side, cands[0], served=True)
    assert (mine.num_steps, mine.source, mine.run_ids) == (4, "measured", (ids[4],)), mine.sentence
    assert mine.sentence == live.sentence  # the Live results tab's words, on the same fit
    # an acceptance typed for it is a what-if: a prediction, and the runs are not set against it
    typed = draftcost.Candidate(FIRST, 1.21, typed=3.3, at_steps=4)
    what_if = draftcost.best(model, draftcost.compare(model, [typed, cands[1]], served=True), typed, served=True)
    assert what_if.source == "predicted" and "measured in run" not in what_if.sentence, what_if.sentence


def test_the_tab_says_the_best_the_live_results_tab_says() -> None:
    ids = _store()
    at = page_app("../pages/scaling.py", timeout=90)
    at.query_params["draft"] = DRAFT
    at.query_params["draft_group"] = GROUP
    at.session_state["sc_tab"] = "Draft cost"
    at.run()
    assert not at.exception, at.exception
    best = next(m.value for m in at.markdown if m.value.startswith(f"**{FIRST}**: "))
    assert "Best: num_steps=4 at 1140.3 tok/s" in best and f"measured in run #{ids[4]}" in best, best
    assert "Predicted best: num_steps=3" not in best, best
