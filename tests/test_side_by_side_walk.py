"""Overview weighs the user's own evidence and answers "how does my draft compare with the published one".

A new user's walk (a Qwen3-8B EAGLE-3 draft myteam/q3-8b-eagle3-r1, 328 samples; group q3r1-b1 with a baseline,
the user's chain sweep num_steps 1..4, two trees, and runs of RedHatAI/Qwen3-8B-speculator.eagle3 at num_steps 3
and 1 in the same group; a plateaued training log loaded without samples per step) found:
1. Overview said the log had plateaued, and right below the plan ranked first "More training data" from the pooled
   fit of published drafts, never saying it could not fit the log (no samples per logged step);
2. no page compared the draft with the published one measured beside it: the reference was Tengyunw's (no
   published acceptance) and the RedHatAI runs were only "left out".
"""

from __future__ import annotations

from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from comparelib.analysis import overview
from comparelib.models import registry
from tests.fixtures import bench_config, bench_store, page_app, page_text, store_run
from tests.hub_emulator import HubEmulator

DRAFT = "myteam/q3-8b-eagle3-r1"
TARGET = "Qwen/Qwen3-8B"
GROUP = "q3r1-b1"
REDHAT = "RedHatAI/Qwen3-8B-speculator.eagle3"  # publishes an acceptance length, no config, no volume
ANGEL = "AngelSlim/Qwen3-8B_eagle3"  # publishes an acceptance length too
TENGYUN = "Tengyunw/qwen3_8b_eagle3"  # 600K samples, no acceptance length
CARD = f"---\nbase_model: {TARGET}\ntags:\n- eagle3\n---\n# Qwen3-8B EAGLE-3 draft\n"


def _draft_config() -> dict[str, Any]:
    """A SpecForge EAGLE-3 config for Qwen3-8B: it names no target (the card does)."""
    cfg = dict(registry.get_draft("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B").config or {})
    cfg.update(vocab_size=151_936, draft_vocab_size=32_000, intermediate_size=12_288, max_position_embeddings=40_960)
    cfg.pop("eagle_config", None)
    return cfg


def _target_config() -> dict[str, Any]:
    return {
        "architectures": ["Qwen3ForCausalLM"],
        "model_type": "qwen3",
        "hidden_size": 4096,
        "intermediate_size": 12_288,
        "num_hidden_layers": 36,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "vocab_size": 151_936,
        "max_position_embeddings": 40_960,
        "rms_norm_eps": 1e-6,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
    }


def _add_draft(hub: HubEmulator) -> None:
    hub.add_model(DRAFT, _draft_config(), card=CARD)
    hub.add_model(TARGET, _target_config())


def _store_group(other: str = REDHAT) -> dict[str, int]:
    """The walk's group as the bench page stores it (SGLang, batch 1); returns the run ids by name."""
    store = bench_store()
    ids: dict[str, int] = {}

    def run(name: str, draft: str | None, steps: int | None, topk: int | None, ndt: int | None, tok_s: float,
            al: float | None) -> None:  # fmt: skip
        cfg = bench_config("sglang", TARGET, steps, draft=draft, topk=topk, ndt=ndt)
        summary = {"requests": 32, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": al}
        ids[name] = store_run(store, cfg, summary, group=GROUP, endpoint="http://sglang:30000")

    run("base", None, None, None, None, 98.0, None)
    for k, tok, al in ((1, 128.0, 1.71), (2, 149.0, 2.21), (3, 160.4, 2.53), (4, 158.0, 2.70)):
        run(f"mine-{k}", DRAFT, k, 1, k + 1, tok, al)
    run("tree-a", DRAFT, 3, 4, 8, 151.0, 2.81)
    run("tree-b", DRAFT, 5, 8, 16, 139.0, 3.02)
    run("theirs-3", other, 3, 1, 4, 173.4, 2.74)
    run("theirs-1", other, 1, 1, 2, 133.0, 1.76)
    return ids


def _runs() -> list[Any]:
    return bench_store().runs(group=GROUP)


def _page(path: str, curve: Any = None) -> AppTest:
    import streamlit as st

    st.cache_data.clear()
    at = page_app(path, timeout=90)
    at.query_params["draft"] = DRAFT
    at.query_params["draft_group"] = GROUP
    at.query_params["draft_samples"] = "328"
    if curve is not None:
        at.session_state["_own_curve"] = {f"hub:{DRAFT.lower()}": curve}  # keyed by the draft's identity
    at.run()
    assert not at.exception, at.exception
    return at


# ------------------------------------------------------------------ 2. side by side, and the reference it makes


def test_a_published_draft_measured_beside_yours_is_compared_head_to_head() -> None:
    ids = _store_group()
    pairs = overview.side_by_side(_runs(), DRAFT, TARGET)
    # num_steps 3 and 1 both ran on each side, at the same engine, chain and batch; the trees have no partner
    assert [(p.theirs.id, p.yours.id) for p in pairs] == [
        (ids["theirs-3"], ids["mine-3"]),
        (ids["theirs-1"], ids["mine-1"]),
    ]
    assert pairs[0].sentence == (
        f"Measured side by side (group {GROUP}, SGLang, num_steps 3, batch 1): {REDHAT} 2.74 accept, 173.4 tok/s "
        f"(#{ids['theirs-3']}) against yours 2.53, 160.4 tok/s (#{ids['mine-3']})"
    )
    # another target's draft, or no draft named: nothing to compare
    assert overview.side_by_side(_runs(), DRAFT, "Qwen/Qwen3-32B") == ()
    assert overview.side_by_side(_runs(), None, TARGET) == ()


@pytest.mark.parametrize(
    ("measured", "expected", "why"),
    [
        # measured in your group beside yours: that draft, whatever the registry's order
        (REDHAT, REDHAT, "measured side by side with yours in group q3r1-b1"),
        (ANGEL, ANGEL, "measured side by side with yours in group q3r1-b1"),
        # no group: a draft that publishes an acceptance length before one that states only a volume (Tengyunw's)
        (None, REDHAT, "that publishes an acceptance length"),
    ],
)
def test_the_reference_is_the_published_draft_measured_beside_yours(
    measured: str | None, expected: str, why: str
) -> None:
    if measured is not None:
        _store_group(measured)
    runs = _runs()
    pick = overview.default_reference(overview.reference_choices(), DRAFT, TARGET, runs)
    assert pick.hub_id == expected and why in pick.why, pick
    assert pick.hub_id != TENGYUN


def test_overview_compares_head_to_head_and_both_pages_name_that_reference(hub: HubEmulator) -> None:
    _add_draft(hub)
    ids = _store_group()
    at = _page("../pages/overview.py")
    assert at.selectbox(key="ov_ref").value == REDHAT
    md = "\n".join(m.value for m in at.markdown)
    assert (
        f"- Measured side by side (group {GROUP}, SGLang, num_steps 3, batch 1): {REDHAT} 2.74 accept, 173.4 tok/s "
        f"(#{ids['theirs-3']}) against yours 2.53, 160.4 tok/s (#{ids['mine-3']})."
    ) in md, md
    assert "measured side by side with yours" in page_text(at)
    # the measured pair weighs in the answer: the reference publishes no acceptance on these benchmarks
    head = " ".join(i.value for i in at.info)
    assert "No real gap to the reference in what is known so far: acceptance length (within 8%)." in head, head
    assert "publishes no acceptance length" not in head, head
    # the runs compared head to head are said as such, not as "of another draft left out"
    captions = [c.value for c in at.caption]
    said = f"Runs #{ids['theirs-3']}, #{ids['theirs-1']} of {REDHAT} are not counted as yours: they are compared"
    assert any(c.startswith(said) for c in captions), captions
    assert not any("of another draft left out" in c for c in captions), captions
    scaling_page = _page("../pages/scaling.py")
    assert scaling_page.selectbox(key="sc_ref").value == REDHAT


def test_compare_names_the_reference_overview_measured_beside_yours(hub: HubEmulator) -> None:
    """Compare chose its reference without the group's runs: with AngelSlim's draft measured beside yours,
    Overview compared with AngelSlim's and Compare spoke of RedHat's (the first that publishes acceptance)."""
    _add_draft(hub)
    _store_group(ANGEL)
    assert _page("../pages/overview.py").selectbox(key="ov_ref").value == ANGEL
    said = page_text(_page("../pages/compare.py"))
    assert f"Overview compares your draft with {ANGEL}, whose config could not be read from the Hub" in said, said


def test_the_plan_chooses_its_reference_from_the_whole_group() -> None:
    """The plan reads only your draft's runs for its speed, yet its target AL's reference is chosen from the whole
    group, by the one chooser Overview and Acceptance vs data call."""
    from comparelib.analysis import plan
    from comparelib.models import comparison

    ids = _store_group()
    entry = comparison.load_entry(
        comparison.registry_source("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"), with_header=False, with_card=False
    )
    inputs = plan.inputs_for(entry, runs=_runs(), target=TARGET, draft=DRAFT)
    assert ids["theirs-3"] not in {r.id for r in inputs.runs}
    assert ids["theirs-3"] in {r.id for r in inputs.group_runs}
    chosen = overview.default_reference(overview.reference_choices(), entry.label, TARGET, inputs.group_runs)
    assert chosen.hub_id == REDHAT


# ------------------------------------------------------------------ 1. a plateaued log weighs on the plan


def _plateau_without_samples() -> Any:
    """A learning curve flat after a rise, logged by step only (no samples per step given)."""
    import math

    from comparelib.analysis import curves

    pts = []
    for i in range(40):
        step = (i + 1) * 50
        acc = (0.6 + 0.1 * (1 - math.exp(-step / 120)), 0.5, 0.4)
        pts.append(curves.CurvePoint(step, None, "train", acc, curves.tau_sim(acc)))
    curve = curves.analyse(pts)
    assert curve.verdict == "plateau" and not any(p.samples_seen for p in curve.points)
    return curve


@pytest.mark.parametrize("verdict", ["plateau", "rising", None])
def test_a_plateaued_log_is_not_outranked_by_the_pooled_trend(hub: HubEmulator, verdict: str | None) -> None:
    from comparelib.analysis import plan, scaling
    from comparelib.models import comparison

    _add_draft(hub)
    _store_group()
    entry = comparison.load_entry(DRAFT, target=TARGET, with_header=False, with_card=False)
    unfit = "the learning curve has no samples seen: give the samples per logged step on Acceptance vs data"
    inputs = plan.inputs_for(
        entry,
        runs=_runs(),
        target=TARGET,
        draft=DRAFT,
        own_samples=328.0,
        own_samples_source="typed in",
        published=scaling.published_points(),
        curve_verdict=verdict,
        curve_unused=unfit if verdict else "",
    )
    result = plan.build(inputs, rank_batch=1)
    more = next(o for o in result.options if o.kind == "more-data")
    assert more.gain is not None and more.gain.value  # the pooled trend predicts a gain either way
    if verdict == "plateau":
        assert result.options[-1] is more, [o.kind for o in result.options]
        assert more.note.startswith("Your training log (Acceptance vs data) has plateaued on this data"), more.note
        assert "new or different data" in more.note and "a bigger draft may" in more.note
        assert "The plan could not fit your log: the learning curve has no samples seen" in more.note
        assert result.fit_note.startswith("your training log could not be fitted (the learning curve has no samples")
        lead = plan.lead(result) or ""
        assert not lead.startswith("**Ranked first: More training data"), lead
        assert "plateaued on this data" in lead and "samples per logged step" in lead, lead
    else:  # without the log's verdict the pooled trend ranks it first, as in the walk
        assert result.options[0] is more and "plateaued" not in more.note and not result.log_note


def test_overview_plan_weighs_a_plateaued_log_it_could_not_fit(hub: HubEmulator) -> None:
    _add_draft(hub)
    _store_group()
    at = _page("../pages/overview.py", curve=_plateau_without_samples())
    assert any("has plateaued" in w.value for w in at.warning)
    lead = next(m.value for m in at.markdown if "plateaued on this data" in m.value)
    assert not lead.startswith("**Ranked first: More training data"), lead
    assert "The plan could not fit your log" in lead and "Samples per logged step" in lead, lead


def test_a_log_that_saw_far_more_than_the_volume_in_use_is_said(hub: HubEmulator) -> None:
    """Walk M: the log had seen 90K samples, the attached audit counted 312, and every answer used 312 in silence."""
    from comparelib.analysis import curves

    _add_draft(hub)
    _store_group()
    pts = []
    for i in range(30):
        a = 0.3 + 0.015 * i
        acc = (a, a * 0.8, a * 0.6)
        pts.append(curves.CurvePoint(i + 1, 3_000.0 * (i + 1), "train", acc, curves.tau_sim(acc)))
    curve = curves.analyse(pts)
    warned = " ".join(w.value for w in _page("../pages/overview.py", curve).warning)
    assert "Your training log saw 90,000 samples, 274 times " in warned and "(328)" in warned, warned
    scaling_warned = " ".join(w.value for w in _page("../pages/scaling.py", curve).warning)
    assert "Your training log saw 90,000 samples, 274 times your volume for " in scaling_warned, scaling_warned
    assert curves.volume_note(curve, 30_000.0) is None  # three epochs: nothing to say
    assert curves.volume_note(None, 328.0) is None


def test_overview_answers_chains_or_trees_from_the_measured_pairs(hub: HubEmulator) -> None:
    """Walk N asked "chains or trees?": the speed model fits chains only, and no page set the best tree measured
    beside the best chain."""
    _add_draft(hub)
    ids = _store_group()
    md = "\n".join(m.value for m in _page("../pages/overview.py").markdown)
    assert "- **Chains or trees** (measured):" in md, md
    assert (
        f"  - batch 1, sglang: best tree (num_steps 3, topk 4, 8 draft tokens, run #{ids['tree-a']}) 1.54x against "
        f"the best chain (num_steps 3, run #{ids['mine-3']}) 1.64x, each against its baseline (#{ids['base']}, "
        f"#{ids['base']}): the chain is 6% faster."
    ) in md, md
    # the published draft's runs are not yours: its chain at 173.4 tok/s is not the best chain
    from comparelib.analysis import speedup

    assert len(speedup.chains_and_trees(_runs(), DRAFT)) == 1
    assert speedup.chains_and_trees([r for r in _runs() if (r.topk or 1) == 1], DRAFT) == []  # no tree: nothing
    from tests.fixtures import run_cli

    proc = run_cli("speedup", "--run-group", GROUP, "--draft", DRAFT)
    assert proc.returncode == 0, proc.stderr
    assert "  - chains or trees (measured): batch 1, sglang: best tree (num_steps 3, topk 4" in proc.stdout
