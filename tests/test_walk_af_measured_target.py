"""Walk AF: a target measured beside yours carries its own prompts and setting (F1), and samples a fit predicts are
said to the precision the pages use (F2).

The walk (a Llama-3.3-70B EAGLE-3 draft of 90,000 samples, runs on the bundled prompts, and the published
yuhuili/EAGLE3-LLaMA3.3-Instruct-70B imported from ``vllm bench serve`` as run #10: vLLM, num_steps 3, batch 1, 3.05,
prompt set not recorded) found:
F1. Acceptance vs data said "the target 3.05 is a GSM8K figure" and "To reach 3.05 on GSM8K ... you need about 2.1M
    samples"; the plan: "a draft on the trend reaches the target 3.05 (... run #10) at 2,758,641 samples". 3.05 is
    run #10's acceptance on prompts it did not record, not a GSM8K figure, and the reference reached it with its
    published 532K samples.
F2. The plan said "2,758,641 samples" (a fit's prediction whose band spans 1.14..2.74) where Acceptance vs data said
    "about 2.1M".
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from comparelib.analysis import plan, scaling, verdicts
from comparelib.live.store import RunRecord, Store
from comparelib.models import comparison
from comparelib.values import human
from tests.fixtures import cli_in_process, page_app, page_text, stored_run
from tests.hub_emulator import HubEmulator

TARGET = "meta-llama/Llama-3.3-70B-Instruct"
OWN = "l70lab/llama33-70b-eagle3-r2"
REF = "yuhuili/EAGLE3-LLaMA3.3-Instruct-70B"  # 532K samples (registry), measured beside yours as run #10
GROUP = "l70-af"
UNNAMED = "is a figure on prompts its source does not name"
NAMED = f"3.05 ({REF}'s AL measured beside yours, run #10)"


def _run(
    id_: int, steps: int | None, tok_s: float, al: float | None = None, *, engine: str = "sglang", batch: int = 1,
    topk: int = 1, prompts: str = "bundled",
) -> RunRecord:  # fmt: skip
    return stored_run(
        id_, steps, tok_s, al, engine=engine, draft=OWN if steps else None, model=TARGET, group=GROUP,
        concurrency=batch, max_tokens=96, prompt_set=prompts, topk=topk if steps else None,
        ndt=8 if topk > 1 else ...,
    )  # fmt: skip


def _imported(prompt_set: str | None = None) -> RunRecord:
    """Run #10 as ``comparelib import`` stores a ``vllm bench serve`` result: no prompt set, no temperature."""
    run = stored_run(
        10, 3, 96.0, 3.05, engine="vllm", draft=REF, model=TARGET, group=GROUP, topk=None, ndt=None, al_mean=None
    )
    params: dict[str, Any] = {"max_concurrency": 1, "num_prompts": 12, "format": "vllm bench serve"}
    if prompt_set is not None:
        params["prompt_set"] = prompt_set
    return replace(run, params=params)


def _walk(prompts: str = "bundled", al3: float = 2.743, ref_prompts: str | None = None) -> list[RunRecord]:
    """The walk's group: your SGLang chains at batch 1 and 8 (#1-#7), a vLLM pair (#8, #9), the reference (#10)."""
    return [
        _run(1, 5, 106.1, 3.556, prompts=prompts),
        _run(2, 3, 95.8, al3, prompts=prompts),
        _run(3, None, 48.0, prompts=prompts),
        _run(4, 3, 103.2, 3.556, topk=4, prompts=prompts),
        _run(5, 3, 618.3, al3, batch=8, prompts=prompts),
        _run(6, 5, 601.4, 3.556, batch=8, prompts=prompts),
        _run(7, None, 305.2, batch=8, prompts=prompts),
        _run(8, 3, 87.7, 2.595, engine="vllm", prompts=prompts),
        _run(9, None, 46.3, engine="vllm", prompts=prompts),
        _imported(ref_prompts),
    ]


def _plan(runs: list[RunRecord], **kw: Any) -> plan.Plan:
    entry = comparison.load_entry("example:own-kimi-k2.5-draft", with_header=False, with_card=False)
    inputs = plan.inputs_for(
        entry, runs=runs, own_samples=90_000.0, published=scaling.published_points(), target=TARGET, draft=OWN
    )
    return plan.build(replace(inputs, family="llama3", draft_label=OWN, target_label=TARGET), **kw)


def _more(result: plan.Plan) -> plan.Option:
    return next(o for o in result.options if o.kind == "more-data")


# ------------------------------------------------------------------------ F1: the plan's more-data row

PLAN_CASES = [
    # name, your runs' prompts, your AL at (3,1,4), the reference run's prompts, phrases in the note, not in it
    (
        "walk: bundled prompts, reference's prompts not recorded",
        "bundled",
        2.743,
        None,
        [
            f"Run #5 measured AL 2.74 at (3,1,4) (batch 8) on the 'bundled' prompts, and the target {NAMED} {UNNAMED}",
            "cannot say how many samples reach it",
            "532K training samples",
        ],
        ["reaches the target", "is a GSM8K figure", "2,758,641"],
    ),
    (
        "GSM8K prompts, below the trend: the row is not costed at the target",
        "gsm8k",
        2.0,
        None,
        [f"the target {NAMED} {UNNAMED}", "cannot say how many samples reach it", "532K training samples"],
        ["reaches the target", "Target already met"],
    ),
    (
        "GSM8K prompts, above the target: not met, the target's prompts are not named",
        "gsm8k",
        3.2,
        None,
        [f"on the 'gsm8k' prompts, and the target {NAMED} {UNNAMED}", "cannot say how many samples reach it"],
        ["Target already met", "reaches the target"],
    ),
]


@pytest.mark.parametrize(
    ("name", "prompts", "al3", "ref_prompts", "has", "has_not"), PLAN_CASES, ids=[c[0] for c in PLAN_CASES]
)
def test_a_measured_target_on_unnamed_prompts_is_not_placed_on_the_gsm8k_trend(
    name: str, prompts: str, al3: float, ref_prompts: str | None, has: list[str], has_not: list[str]
) -> None:
    result = _plan(_walk(prompts, al3, ref_prompts))
    assert result.target_al == pytest.approx(3.05)
    more = _more(result)
    for phrase in has:
        assert phrase in more.note, more.note
    for phrase in has_not:
        assert phrase not in more.note, more.note
    assert more.samples_needed is None
    assert result.to_json()["options"][[o.kind for o in result.options].index("more-data")]["samples_needed"] is None


def test_a_measured_target_on_the_trends_prompts_is_placed_on_it_in_rounded_words() -> None:
    """Run #10 recorded GSM8K prompts: its 3.05 is a GSM8K figure, and the trend's samples for it are a prediction,
    said as 'about N' (F2), not to the sample."""
    result = _plan(_walk("gsm8k", 2.0, "gsm8k"))
    more = _more(result)
    assert "cannot say how many samples reach it" not in more.note, more.note
    assert f"the target {NAMED}" in more.note, more.note
    found = [float(m.replace(",", "")) for m in __import__("re").findall(r"\d{1,3}(?:,\d{3}){2,}", more.note)]
    assert not [n for n in found if n != 900_000.0], more.note  # counts only: 10x your 90,000 samples
    assert " at about " in more.note, more.note


# ------------------------------------------------------------------------ F1: Acceptance vs data's answer


def _fit() -> scaling.Fit:
    pts = scaling.published_points()
    key = "steps=3,topk=1,draft=4,bs=8,sglang"
    return scaling.fit_published(scaling.select(scaling.scaling_points(pts), benchmark="gsm8k", setting_key=key))


def _own(prompts: str, al: float) -> pd.DataFrame:
    runs = [_run(5, 3, 618.3, al, batch=8, prompts=prompts)]
    return scaling.own_points_from_runs(runs, draft=OWN, samples=90_000.0, tokens=None, target_model=TARGET)


def _figure(**kw: Any) -> Any:
    """Run #10 as the plan and Acceptance vs data read it: 3.05 at vLLM, num_steps 3, batch 1, prompts not recorded,
    by a draft of 532K published samples; ``kw`` changes a field."""
    return replace(verdicts.MeasuredFigure(3.05, 10, REF, "vLLM, num_steps 3, batch 1", None, 532_000.0), **kw)


LEAD_CASES = [
    # name, your prompts, your AL, the measured target (its fields changed from run #10's; None: the number alone),
    # phrases in the answer, not in it
    (
        "walk: bundled prompts, measured target on unnamed prompts",
        "bundled",
        2.743,
        {},
        [f"the target {NAMED} {UNNAMED}", "cannot say how many samples reach it", "532K training samples"],
        ["To reach", "is a GSM8K figure"],
    ),
    (
        "the same target typed in is a GSM8K figure on the trend",
        "bundled",
        2.743,
        None,
        ["the target 3.05 is a GSM8K figure", "To reach 3.05 on GSM8K"],
        [UNNAMED, "cannot say how many samples reach it"],
    ),
    (
        "a measured target on the trend's prompts is on it",
        "bundled",
        2.743,
        {"prompts": "gsm8k"},
        ["is a GSM8K figure", "To reach 3.05 on GSM8K"],
        [UNNAMED, "cannot say how many samples reach it"],
    ),
    (
        "a measured target on other named prompts",
        "gsm8k",
        3.2,
        {"prompts": "mtbench"},
        ["the target 3.05 (", "on the 'mtbench' prompts", "cannot say how many samples reach it"],
        ["To reach", "already measured"],
    ),
]


@pytest.mark.parametrize(
    ("name", "prompts", "al", "measured", "has", "has_not"), LEAD_CASES, ids=[c[0] for c in LEAD_CASES]
)
def test_acceptance_vs_data_names_a_measured_targets_own_prompts(
    name: str,
    prompts: str,
    al: float,
    measured: dict[str, Any] | None,
    has: list[str],
    has_not: list[str],
) -> None:
    said = " ".join(
        verdicts.data_lead(
            _fit(), 3.05, _own(prompts, al), own_volume=90_000.0, reference=REF, reference_volume=532_000.0,
            measured=None if measured is None else _figure(**measured),
        )
    )  # fmt: skip
    for phrase in has:
        assert phrase in said, said
    for phrase in has_not:
        assert phrase not in said, said


def test_the_plan_and_acceptance_vs_data_say_one_sentence_of_the_measured_target() -> None:
    result = _plan(_walk())
    figure = plan.measured_target(result_runs := _walk(), OWN, TARGET, "(3,1,4)")
    assert figure is not None and figure.figure == _figure(), figure
    sentence = verdicts.measured_off_trend(figure.figure, "gsm8k")
    assert sentence and sentence in _more(result).note, _more(result).note
    lead = verdicts.data_lead(_fit(), 3.05, _own("bundled", 2.743), own_volume=90_000.0, measured=figure.figure)
    assert sentence in lead, lead
    assert result_runs


# ------------------------------------------------------------------------ F2: samples a fit predicts


def _example(own_samples: float = 37_000.0) -> plan.Inputs:
    store = Store(None)
    store.ensure_examples()
    entry = comparison.load_entry(comparison.EXAMPLE_OWN, with_header=False)
    return plan.inputs_for(entry, runs=store.runs(group="example-kimi-k2.5"), own_samples=own_samples)


def test_predicted_samples_are_said_rounded_and_the_json_keeps_the_raw_figure(
    capsys: pytest.CaptureFixture[str],
) -> None:
    result = plan.build(_example(), target_al=3.0)
    more = _more(result)
    need = more.samples_needed
    assert need is not None and need.value is not None and need.value != round(need.value, -4)
    raw = need.value
    # the note, the lead and the table say the prediction as the pages do ("about 2.8M"), not to the sample
    assert f"at about {human(raw)} samples" in more.note, more.note
    assert f"{raw:,.0f}" not in more.note, more.note
    lead = plan.lead(result) or ""
    assert f"{raw:,.0f}" not in lead, lead
    frame = result.frame()
    cell = float(frame.loc[frame["kind"] == "more-data", "samples_needed"].iloc[0])
    assert cell != raw and human(cell) == human(raw) and cell % 1000 == 0, cell
    # the plan's JSON keeps the fit's own figure, for machines
    assert result.to_json()["options"][result.options.index(more)]["samples_needed"]["value"] == raw
    # the CLI's text says it rounded too
    done = cli_in_process(capsys, "plan", "example", "--target-al", "3.0", "--samples", "37000")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert f"{raw:,.0f}" not in text and f"about {human(raw)}" in text, text
    assert math.isfinite(raw)
    assert json.dumps(result.to_json())  # serialisable


# ------------------------------------------------------------------------ F1 on the page, as the walk built it

DRAFT_CONFIG = {
    "architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama", "hidden_act": "silu", "hidden_size": 8192,
    "intermediate_size": 28672, "num_hidden_layers": 1, "num_attention_heads": 64, "num_key_value_heads": 8,
    "head_dim": 128, "vocab_size": 128256, "draft_vocab_size": 32000, "max_position_embeddings": 4096,
    "rope_theta": 500000.0, "rms_norm_eps": 1e-05, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
}  # fmt: skip
CARD = f"---\nbase_model: {TARGET}\nlicense: llama3.3\ntags:\n- eagle3\n---\n# llama33-70b-eagle3-r2\n"
VLLM_BENCH = {
    "date": "20260310-120000", "backend": "openai-chat", "label": "yuhuili-k3-bs1", "model_id": TARGET,
    "num_prompts": 12, "request_rate": "inf", "burstiness": 1.0, "max_concurrency": 1, "duration": 12.0,
    "completed": 12, "failed": 0, "total_input_tokens": 1200, "total_output_tokens": 1152, "output_throughput": 96.0,
    "mean_ttft_ms": 32.0, "median_ttft_ms": 31.0, "p99_ttft_ms": 35.0, "mean_tpot_ms": 10.2, "median_tpot_ms": 10.1,
    "p99_tpot_ms": 11.5, "spec_decode_acceptance_length": 3.05, "spec_decode_num_drafts": 300,
    "spec_decode_draft_tokens": 900, "spec_decode_accepted_tokens": 615,
}  # fmt: skip


def _store_walk(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Runs #1-#9 stored as the bench page stores them (bundled prompts), run #10 imported as the walk did."""
    from comparelib import settings

    store = Store(settings.database_url())
    for r in _walk()[:9]:
        cfg = {
            "engine": r.engine, "model": TARGET, "speculative_algorithm": r.speculative_algorithm,
            "draft_model": r.draft_model, "num_steps": r.num_steps, "topk": r.topk if r.engine == "sglang" else None,
            "num_draft_tokens": r.num_draft_tokens if r.engine == "sglang" else None,
        }  # fmt: skip
        rid = store.start_run(endpoint=r.endpoint, server_config=cfg, group=GROUP, params=dict(r.params))
        summary = {"requests": 12, "errors": 0, "output_tokens_per_s": r.output_tokens_per_s}
        store.finish_run(rid, {**summary, "accept_length": r.accept_length})
        assert rid == r.id
    path = tmp_path / "yuhuili_vllm_k3_bs1.json"
    path.write_text(json.dumps(VLLM_BENCH))
    done = cli_in_process(
        capsys, "import", str(path), "--group", GROUP, "--draft", REF, "--spec-algorithm", "EAGLE3", "--num-steps", "3"
    )
    assert done.returncode == 0, done.stderr


def test_acceptance_vs_data_opens_on_the_measured_target_as_what_it_is(
    hub: HubEmulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import streamlit as st

    hub.add_model(OWN, DRAFT_CONFIG, card=CARD)
    _store_walk(tmp_path, capsys)
    st.cache_data.clear()
    at = page_app("pages/scaling.py", timeout=120)
    at.query_params["draft"] = OWN
    at.query_params["draft_group"] = GROUP
    at.query_params["draft_samples"] = "90000"
    at.run()
    assert not at.exception, at.exception
    assert at.number_input(key="sc_target").value == pytest.approx(3.05)
    text = page_text(at)
    assert f"the target {NAMED} {UNNAMED}" in text, text
    assert "cannot say how many samples reach it" in text and "532K training samples" in text, text
    assert "To reach 3.05" not in text and "the target 3.05 is a GSM8K figure" not in text, text
    # a figure typed in is the user's own, on the page's benchmark: the trend gives its samples
    at.number_input(key="sc_target").set_value(3.0).run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert "To reach 3 on GSM8K" in text and UNNAMED not in text, text
