"""A new user's walk: an EAGLE-3 draft (labx/r1d-llama8b-eagle3) for deepseek-ai/DeepSeek-R1-Distill-Llama-8B, a
Llama-3.1-8B-architecture target, with a vLLM num_steps sweep 1..5 at batch 1 and 4 and 3,003 audited samples.

What it found: the model family was the Hub organisation (deepseek-ai), whose only draft reports nothing at (3,1,4),
so the plan and Acceptance vs data aimed at a Kimi-K2 draft's GSM8K 3.271 where the registry has Llama-3.1-8B drafts
at (3,1,4) (lmsys 2.548, yuhuili 1.717)."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from comparelib.analysis import overview, plan, scaling
from comparelib.live.store import RunRecord
from comparelib.models import comparison, registry
from comparelib.models.draft import family_words, model_family
from tests.fixtures import LLAMA31_8B_EAGLE3, page_app, page_text
from tests.test_sweep import rec

R1 = "deepseek-ai/DeepSeek-R1-Distill-Llama-8B"
OWN = "labx/r1d-llama8b-eagle3"
LMSYS_8B = "lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge"  # GSM8K 2.548 at (3,1,4), 1.4M samples
KEY = "steps=3,topk=1,draft=4,bs=8,sglang"

# ---------------------------------------------------------------- 1. one family rule: a distill is its base's

FAMILY_CASES = [
    # name, family key, as people write it
    (R1, "llama3", "Llama-3"),
    ("deepseek-ai/DeepSeek-R1-Distill-Llama-70B", "llama3", "Llama-3"),
    ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "qwen2", "Qwen2"),
    ("deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", "qwen2", "Qwen2"),
    ("deepseek-ai/DeepSeek-R1-0528-Qwen3-8B", "qwen3", "Qwen3"),
    ("acme/Distill-Qwen2.5-7B", "qwen2", "Qwen2"),
    ("meta-llama/Llama-3.1-8B-Instruct", "llama3", "Llama-3"),
    ("nvidia/Llama-3.1-Nemotron-70B-Instruct", "llama3", "Llama-3"),  # a fine-tune named base first
    ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama4", "Llama-4"),
    ("deepseek-ai/DeepSeek-V3", "deepseekv3", "DeepSeek-V3"),
    ("deepseek-ai/DeepSeek-R1", "deepseekr1", "DeepSeek-R1"),
    ("moonshotai/Kimi-K2-Instruct", "kimik2", "Kimi-K2"),
    ("Qwen/Qwen3-30B-A3B", "qwen3", "Qwen3"),
    ("openai/gpt-oss-20b", "gpt-oss", "gpt-oss"),
    ("inclusionAI/Ling-flash-2.0", None, ""),
]


@pytest.mark.parametrize(("name", "key", "words"), FAMILY_CASES)
def test_a_model_is_of_its_base_lines_family(name: str, key: str | None, words: str) -> None:
    assert model_family(name) == key
    assert registry.family_of(name) == (key or "")  # the registry's (and the fits') family is the same rule
    assert family_words(key) == words


def test_the_published_points_group_the_r1_distill_draft_with_llama3() -> None:
    pts = scaling.published_points()
    fam = dict(zip(pts["draft"], pts["family"], strict=False))
    assert fam["yuhuili/EAGLE3-DeepSeek-R1-Distill-LLaMA-8B"] == fam[LMSYS_8B] == "llama3"
    assert fam["AQ-MedAI/Kimi-K2-Instruct-eagle3"] == "kimik2"


# ---------------------------------------------------------------- 2. the target AL is a Llama-3.1-8B draft's


def test_acceptance_vs_data_aims_at_the_llama_3_1_8b_draft() -> None:
    found = plan.default_target(scaling.published_points(), benchmark="gsm8k", setting_key=KEY, target=R1, own=OWN)
    assert found is not None
    value, why = found
    assert value == pytest.approx(2.548), why
    assert why.startswith(
        f"{LMSYS_8B} at (3,1,4) on gsm8k (the Llama-3 family's draft for the target nearest yours"
    ), why
    assert "a draft for meta-llama/Llama-3.1-8B-Instruct, not for your target" in why, why


def test_the_plan_aims_at_the_same_figure() -> None:
    entry = comparison.load_entry("example:own-kimi-k2.5-draft", with_header=False, with_card=False)
    inputs = plan.inputs_for(replace(entry, target_label=R1), own_samples=3_003.0)
    assert inputs.family == "llama3"
    result = plan.build(inputs)
    assert result.target_al == pytest.approx(2.548)
    source = next(s.text for s in result.sources if s.id == result.target_al_source)
    assert source.startswith(f"registry: {LMSYS_8B} at (3,1,4) on gsm8k"), source


# ---------------------------------------------------------------- 3. no absurd extrapolation printed as a count


def _run(id_: int, steps: int | None, tok_s: float, al: float | None = None, batch: int = 1) -> RunRecord:
    # on GSM8K, the plan's benchmark: its point belongs in the plan's pooled fit (a point on the bundled prompts
    # is left out of it, as on Acceptance vs data: test_plan_own_point_prompts.py)
    run = rec(id_, steps, tok_s, al, concurrency=batch, group="r1d-sweep", engine="vllm", prompt_set="gsm8k")
    return replace(run, model=R1, draft_model=None if steps is None else OWN)


# the walk's vLLM sweep (group r1d-sweep): num_steps 1..5 at batch 1 and batch 4, each with its baseline
SWEEP = [
    _run(1, None, 40.77),
    _run(2, 1, 62.05, 1.778),
    _run(3, 2, 77.95, 2.400),
    _run(4, 3, 78.95, 2.667),
    _run(5, 4, 83.37, 3.000),
    _run(6, 5, 80.00, 3.097),
    _run(7, None, 135.42, batch=4),
    _run(11, 1, 213.55, 1.778, 4),
    _run(12, 2, 248.42, 2.400, 4),
    _run(13, 3, 260.47, 2.667, 4),
    _run(14, 4, 248.38, 3.000, 4),
    _run(15, 5, 263.45, 3.097, 4),
]


def _walk_plan(target_al: float | None = None) -> plan.Plan:
    entry = comparison.load_entry("example:own-kimi-k2.5-draft", with_header=False, with_card=False)
    inputs = plan.inputs_for(replace(entry, target_label=R1, label=OWN), runs=SWEEP, own_samples=3_003.0)
    return plan.build(inputs, target_al=target_al)


BILLIONS = re.compile(r"\d{1,3}(?:,\d{3}){3,}")  # a count of a billion or more, written out


@pytest.mark.parametrize(
    ("times", "says", "costed"),
    [
        # the walk's 3.271: the logistic's inverse gave 2,242,055,576,173 samples
        (None, "is out of reach of the fitted trend, so no samples figure is given", False),
        (300.0, "x the most it was fitted on (1,400,000): too far past the evidence to cost", False),
        (30.0, "reaches the target", True),
    ],
)
def test_the_plan_prints_no_absurd_sample_count(times: float | None, says: str, costed: bool) -> None:
    """``times``: the target is what the plan's own fit gives at that multiple of its largest volume (None: the walk's
    3.271, past 1,000x)."""
    fit = _walk_plan(3.271).fit
    assert fit is not None and fit.x_max == pytest.approx(1_400_000)
    target = 3.271 if times is None else float(fit.al(fit.x_max * times).value)  # type: ignore[arg-type]
    result = _walk_plan(target)
    more = next(o for o in result.options if o.kind == "more-data")
    assert says in more.note, more.note
    assert not BILLIONS.search(more.note), more.note
    assert (more.samples_needed is not None) == costed
    if not costed:  # what the row shows instead, and the trend's AL there
        assert (
            "the row shows 10x the most it was fitted on (14,000,000 samples), where the trend gives AL" in more.note
        )
        assert "The log-linear fit on the same" in more.note  # Acceptance vs data's form, said beside it


# ---------------------------------------------------------------- 4. your point at the plan's chain is measured


@pytest.mark.parametrize(
    ("left_out", "says", "al"),
    [
        # runs #4 (batch 1) and #13 (batch 4) measured 2.67 at 3 steps: that run, said as measured
        ((), "plus your point measured at 3 steps (run #4, AL 2.67)", 2.667),
        ((4,), "plus your point measured at 3 steps (run #13, AL 2.67)", 2.667),  # another batch's, still measured
        # no run at 3 steps: the served run's AL converted, said so
        ((4, 13), "plus your measured point converted from", None),
    ],
)
def test_the_plans_own_point_is_measured_at_its_chain(left_out: tuple[int, ...], says: str, al: float | None) -> None:
    entry = comparison.load_entry("example:own-kimi-k2.5-draft", with_header=False, with_card=False)
    runs = [r for r in SWEEP if r.id not in left_out]
    inputs = plan.inputs_for(replace(entry, target_label=R1, label=OWN), runs=runs, own_samples=3_003.0)
    result = plan.build(inputs)
    assert says in result.fit_note, result.fit_note
    assert ("converted" in result.fit_note) == (al is None), result.fit_note
    yours = result.points[result.points["kind"] == "yours"]
    assert len(yours) == 1
    if al is not None:
        assert float(yours["al"].iloc[0]) == pytest.approx(al, abs=1e-3)
        assert "measured 2.67 at (3,1,4)" in str(yours["label"].iloc[0])


# ---------------------------------------------------------------- 5. no target named: a reference of your shape


def _epoch3(**change: Any) -> dict[str, Any]:
    """The walk's local checkpoint ckpt/epoch_3: Llama-3 shapes, a config that names no target (walk M's Llama-3.1-8B
    draft config, with the checkpoint's context and head size, and the default aux layers)."""
    config = {k: v for k, v in LLAMA31_8B_EAGLE3.items() if k != "eagle_config"}
    return {**config, "max_position_embeddings": 131072, "head_dim": 128, **change}


# a Llama-3.2-3B-shaped draft (hidden 3,072): no published draft has its shape
SHAPES = [
    (
        _epoch3(),
        LMSYS_8B,
        "Chosen for the same hidden size and vocabulary as your draft (4,096 and 128,256); no target named",
    ),
    (
        _epoch3(hidden_size=3072, intermediate_size=8192, num_attention_heads=24),
        registry.KIMI_REFERENCE,
        "no published draft has its hidden size and vocabulary (3,072 and 128,256)",
    ),
]


@pytest.mark.parametrize(("config", "ref", "why"), SHAPES)
def test_no_target_named_picks_a_reference_of_the_drafts_shape(
    tmp_path: Path, config: dict[str, Any], ref: str, why: str
) -> None:
    (tmp_path / "config.json").write_text(json.dumps(config))
    own = comparison.load_entry(str(tmp_path), with_header=False, with_card=False)
    assert own.target_label is None
    pick = overview.default_reference(
        overview.reference_choices(), own.label, None, own_shape=overview.draft_shape(own)
    )
    assert pick.hub_id == ref and why in pick.why, pick
    assert "Compare drafts' target field" in pick.why
    ref_entry = comparison.load_entry(comparison.registry_source(ref), with_header=False, with_card=False)
    answer = overview.answer(own, ref_entry, [], None, own_target=None, draft=own.label)
    assert "largest gap is size" not in answer.gap_sentence and not answer.headline, answer.gap_sentence
    if ref == registry.KIMI_REFERENCE:  # another architecture: the sentence says the target is unknown, and how
        assert answer.gap_sentence.startswith(
            "Not like for like: your draft's target is not known and "
            f"{ref} is a draft of another architecture (hidden size 7,168 and vocabulary 163,840, against your "
            "3,072 and 128,256), so no gap is named against it. Not known yet: your draft's target, to compare like "
            "for like: set your draft's target in Compare drafts' target field"
        ), answer.gap_sentence
        # with a training volume, the data differs and is said so, never as "the largest gap" against another
        # architecture's draft (walk V)
        answer = overview.answer(own, ref_entry, [], 3_003.0, own_target=None, draft=own.label)
        assert answer.gap == "" and "largest gap" not in answer.gap_sentence, answer.gap_sentence
        assert "not a gap to close: 466x less training data (3K samples against 1.4M)" in answer.gap_sentence


@pytest.mark.parametrize(("config", "ref", "why"), SHAPES)
def test_overview_and_acceptance_vs_data_open_on_that_reference(
    tmp_path: Path, config: dict[str, Any], ref: str, why: str
) -> None:
    (tmp_path / "config.json").write_text(json.dumps(config))
    at = page_app("../pages/overview.py", timeout=60)
    at.query_params["draft"] = str(tmp_path)
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="ov_ref").value == ref
    text = page_text(at)
    assert "largest gap is size" not in text, text
    assert [s.value for s in at.subheader if "largest gap" in s.value] == []
    if ref == LMSYS_8B:  # how the reference was chosen, said under the answer
        assert any(c.value.startswith(why) for c in at.caption), [c.value for c in at.caption]
    else:
        assert any("your draft's target is not known" in i.value for i in at.info), [i.value for i in at.info]
        assert "the size of the reference" not in text and "is a draft of another architecture" in text, text
    sc = page_app("../pages/scaling.py", timeout=60)
    sc.query_params["draft"] = str(tmp_path)
    sc.run()
    assert not sc.exception, sc.exception
    assert sc.selectbox(key="sc_ref").value == ref


def test_with_no_target_the_plan_and_the_page_aim_at_that_reference(tmp_path: Path) -> None:
    """Overview compared the checkpoint with the Llama-3.1-8B SpecForge draft while its plan, finding no target,
    aimed at the Kimi-K2 draft's 3.271 (the published draft with the most data)."""
    (tmp_path / "config.json").write_text(json.dumps(_epoch3()))
    own = comparison.load_entry(str(tmp_path), with_header=False, with_card=False)
    inputs = plan.inputs_for(own, own_samples=3003, own_samples_source="typed in")
    assert inputs.shape_reference == LMSYS_8B
    result = plan.build(inputs)
    assert result.target_al == pytest.approx(2.548), result.target_al
    sc = page_app("../pages/scaling.py", timeout=60)
    sc.query_params["draft"] = str(tmp_path)
    sc.run()
    assert not sc.exception, sc.exception
    assert sc.number_input(key="sc_target").value == pytest.approx(2.548)
