"""The Draft cost tab fits your draft's own runs, never the target's MTP runs (walk AV, finding 2).

Walk AV's DeepSeek-V3 group held your EAGLE-3 draft at batch 1 (num_steps 3 and 5: 106.61 and 113.08 tok/s, AL 2.91
and 3.56), the same draft at batch 8, and the target's own MTP (NEXTN) layers at batch 1 (num_steps 1 and 3: 72.71
and 112.44 tok/s, AL 1.78 and 3.20). The tab fitted the NEXTN runs and said "fitted to runs #6 and #10, its own runs"
and "measured at num_steps 1, 3 (runs #6 and #10: 1.78, 3.20)"; the Live results tab and Overview fit runs #3 and #4.
"""

from __future__ import annotations

from typing import Any

from comparelib.analysis import draftcost
from tests.fixtures import bench_config, bench_store, store_run

TARGET = "deepseek-ai/DeepSeek-V3-0324"
DRAFT = "dsv3lab/dsv3-0324-eagle3"
GROUP = "dsv3-av"


def _run(batch: int, steps: int | None, tok_s: float, al: float | None, *, mtp: bool = False) -> int:
    cfg = bench_config(
        "sglang",
        TARGET,
        steps,
        draft=None if mtp or not steps else DRAFT,
        topk=1 if steps else None,
        ndt=steps + 1 if steps else None,
    )
    if mtp:
        cfg["speculative_algorithm"] = "NEXTN"
    summary: dict[str, Any] = {"requests": 16, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": al}
    return store_run(bench_store(), cfg, summary, group=GROUP, concurrency=batch)


def _store() -> dict[str, int]:
    return {
        "b1": _run(1, None, 46.23, None),
        "b8": _run(8, None, 172.76, None),
        "e3": _run(1, 3, 106.61, 2.91),
        "e5": _run(1, 5, 113.08, 3.56),
        "e3b8": _run(8, 3, 328.97, 2.91),
        "n1": _run(1, 1, 72.71, 1.78, mtp=True),
        "n3": _run(1, 3, 112.44, 3.20, mtp=True),
    }


def test_the_draft_cost_fit_is_your_drafts_runs_not_the_targets_mtp_runs() -> None:
    ids = _store()
    model, note = draftcost.sweep_model(bench_store().runs(group=GROUP), target=TARGET, draft=DRAFT)
    assert set(model.fitted_run_ids) == {ids["e3"], ids["e5"]}, model.fitted_run_ids
    assert model.measured_accept(3) == 2.91 and model.measured_accept(1) is None
    # the MTP runs left out are named, as another draft's
    assert note is not None and f"#{ids['n1']}" in note and f"#{ids['n3']}" in note, note


def test_the_draft_cost_tab_says_when_its_fit_is_the_targets_mtp_runs() -> None:
    from tests.fixtures import page_app

    kimi, own, group = "moonshotai/Kimi-K2.5", "example:own-kimi-k2.5-draft", "walkav-tab"
    store = bench_store()

    def run(steps: int | None, tok_s: float, al: float | None, *, mtp: bool = False, batch: int = 1) -> int:
        cfg = bench_config(
            "sglang",
            kimi,
            steps,
            draft=None if mtp or not steps else own,
            topk=1 if steps else None,
            ndt=steps + 1 if steps else None,
        )
        if mtp:
            cfg["speculative_algorithm"] = "NEXTN"
        summary: dict[str, Any] = {"requests": 16, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": al}
        return store_run(store, cfg, summary, group=group, concurrency=batch)

    run(None, 46.23, None)
    run(None, 172.76, None, batch=8)
    run(3, 328.97, 2.91, batch=8)  # your draft's best pair, at batch 8: no sweep there
    run(3, 106.61, 2.91), run(5, 113.08, 3.56)
    n1, n3 = run(1, 72.71, 1.78, mtp=True), run(3, 112.44, 3.20, mtp=True)
    at = page_app("../pages/scaling.py", timeout=90)
    at.query_params["draft"] = own
    at.query_params["draft_group"] = group
    at.session_state["sc_tab"] = "Draft cost"
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    # the built-in example draft names no run (``match_name`` None): the group's runs are fitted as they are, and
    # where that fit is the target's MTP runs the caption says so rather than "its own runs" alone
    caption = next(c.value for c in at.caption if c.value.startswith("Acceptances start"))
    assert f"fitted to runs #{n1} and #{n3}" in caption, caption
    assert (
        f"The sweep fitted is runs #{n1} and #{n3} of MTP (NEXTN), the target's own MTP layers, not a draft's."
        in caption
    ), caption
