"""Walk AN finding 2: the target AL of a gpt-oss-20b draft, and the more-data row's storage assumption.

RedHatAI/gpt-oss-20b-speculator.eagle3 publishes MT-Bench AL 2.56 at vLLM num_speculative_tokens 3: vLLM's EAGLE
proposer drafts a chain (topk 1), so the target verifies 3 + 1 tokens, the (3,1,4) chain. The registry keyed it
(3,?,?), so the plan and Acceptance vs data aimed at a Kimi-K2 draft's 2.39 while Overview compared your draft with
RedHat's. A (N,?,?) figure whose engine is not stated may be a tree: it is named, with why it is not used.
The more-data row costed 135.9 TB of offline storage without saying it took every sample at 2,048 tokens.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from comparelib.analysis import overview, plan, scaling
from comparelib.live.store import Store
from comparelib.models import comparison, registry

GPT_OSS = "openai/gpt-oss-20b"
REDHAT = "RedHatAI/gpt-oss-20b-speculator.eagle3"


def _row(frame: Any, draft: str, bench: str) -> Any:
    rows = frame[(frame["draft" if "draft" in frame else "hub_id"] == draft) & (frame["benchmark"] == bench)]
    assert len(rows) == 1, rows
    return rows.iloc[0]


def test_a_vllm_num_speculative_tokens_figure_is_the_chain() -> None:
    """num_speculative_tokens 3 on vLLM's EAGLE-3 is the (3,1,4) chain, in the registry and the scaling points."""
    assert _row(registry.results_frame(), REDHAT, "mtbench")["chain"] == "(3,1,4)"
    point = _row(scaling.published_points(), REDHAT, "mtbench")
    assert point["chain"] == "(3,1,4)"
    assert "topk=1" in point["setting_key"] and "draft=4" in point["setting_key"], point["setting_key"]
    # a published tree stays what it says (no chain is made of a figure that states a tree)
    trees = scaling.published_points()
    assert not trees[trees["setting_key"].astype(str).str.contains("tree")]["chain"].astype(str).eq("(3,1,4)").any()


def test_plan_and_acceptance_aim_at_overviews_reference() -> None:
    """The plan (at its chain) and Acceptance vs data (at each setting of that chain) aim at RedHat's 2.56, the
    figure of Overview's reference, not a Kimi-K2 draft's 2.39."""
    pts = scaling.published_points()
    ref = overview.default_reference(overview.reference_choices(), None, GPT_OSS, ())
    assert ref.hub_id == REDHAT
    bench, _ = plan.opening_benchmark(pts, None, GPT_OSS)
    assert bench == "mtbench"
    aim = plan.default_target(pts, benchmark=bench, target=GPT_OSS, chain="(3,1,4)")
    assert aim is not None and aim[0] == 2.56 and aim[1].startswith(REDHAT), aim
    assert "Kimi" not in aim[1], aim
    keys = pts[(pts["benchmark"] == "mtbench") & (pts["chain"] == "(3,1,4)")]["setting_key"].unique()
    for key in keys:
        page = plan.default_target(pts, benchmark=bench, setting_key=str(key), target=GPT_OSS)
        assert page is not None and page[0] == 2.56, (key, page)


def test_a_figure_at_unstated_topk_and_engine_is_named_with_why() -> None:
    """nvidia/Kimi-K2.6-Eagle3 states draft_length 3 and no engine (so no topk can be read): it may be a tree, so
    it is not the target at (3,1,4); the plan names it and says so."""
    pts = scaling.published_points()
    aim = plan.default_target(pts, benchmark="mtbench", target="moonshotai/Kimi-K2.6", chain="(3,1,4)")
    assert aim is not None
    assert "nvidia/Kimi-K2.6-Eagle3" in aim[1] and "2.62" in aim[1], aim
    assert "topk" in aim[1] and "chain" in aim[1], aim


def _inputs(own_tokens: float | None = None) -> plan.Inputs:
    store = Store(None)
    store.ensure_examples()
    entry = comparison.load_entry(comparison.EXAMPLE_OWN, with_header=False)
    inputs = plan.inputs_for(
        entry, runs=store.runs(group="example-kimi-k2.5"), own_samples=4960.0, own_samples_source="example audit"
    )
    xs = tuple(800.0 * i for i in range(1, 63))
    al = tuple(1 + 2.6 / (1 + (60000.0 / v) ** 1.5) for v in xs)
    return replace(inputs, curve_x=xs, curve_al=al, curve_steps=3, curve_source="train.csv", own_tokens=own_tokens)


def _more(result: plan.Plan) -> plan.Option:
    return next(o for o in result.options if o.kind == "more-data")


def test_the_storage_says_the_tokens_per_sample_it_assumes() -> None:
    """Walk AN: "135.9 TB offline storage for 2.88M samples" was every sample at max_length 2,048 tokens, unsaid."""
    more = _more(plan.build(_inputs(), target_al=3.0, epochs=1.0))
    assert more.storage.value
    assert "2,048 tokens per sample" in more.note and "max_length" in more.note, more.note
    measured = _more(plan.build(_inputs(own_tokens=4960.0 * 700), target_al=3.0, epochs=1.0))
    assert "700 tokens per sample" in measured.note and "measured" in measured.note, measured.note
    assert "max_length" not in measured.note.split("offline storage")[-1], measured.note
