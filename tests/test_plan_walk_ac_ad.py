"""Walks AC and AD: the plan's wrong answers.

Walk AC: the public speculators-format draft mavlab/maverick-eagle3-speculators for
meta-llama/Llama-4-Maverick-17B-128E-Instruct (group mav-ac, 400,000 samples typed in). SGLang baselines #1 (batch 1),
#7 (batch 16), #13 (batch 64); chains num_steps 2/3/4 (#2-#4 at batch 1, #8-#10 at batch 16); trees topk 4 with 8
and 16 draft tokens (#5-#6 at batch 1, #11-#12 at batch 16); #14 num_steps 2 at batch 64; vLLM baseline #15 and
num_steps 3 #20 at batch 1. Its training log (train_log.csv: 4 passes of 100,000 samples, eval every quarter pass)
peaks at 200K samples seen and falls.

- AC1: the tree row was titled with #6's shape (16 draft tokens) and gave #11's 1,759.9 tok/s (8 draft tokens) at
  batch 16, where #12, the named tree, measured 1,618.4; its lead named no batch, while at batch 16 every tree lost to
  chain #8 (2,222.3).
- AC2: the bs16 column was blank in the num_steps and more-data rows, although the note said "Also swept: batch 16
  ... 2 at 2,222.3 tok/s measured in run #8".
- AC3 (= AD2): the target AL came from another target's draft (Llama-4-Scout's GSM8K 3.112; walk AD: Qwen3-30B-A3B's
  2.64) while Overview's reference, a published draft for the user's own target, publishes its figure on another
  benchmark (Maverick's 2.45 "unspecified"; Qwen3-Coder's HumanEval 3.395), which Acceptance vs data opened on.
- AC5: with the overfitting log, "More training data" said "2,000,000 samples seen; 2,000,000 unique samples at 1
  epoch" and "2.77 at your 200,000 samples seen": the fit's x is samples seen over passes of ~100K unique samples.

Walk AD: the private draft coderlab/q3coder-30b-eagle3 for Qwen/Qwen3-Coder-30B-A3B-Instruct (group q3c-ad): SGLang
batch 1 baseline #1, num_steps 1/3/6 #2, #6, #7; batch 32 baseline #8, num_steps 1/3/6 #9, #10, #11.

- AD3: batch 64 named "1 (2 ties, predicted) at 6,042.2 tok/s ... batch 32's cycle held": num_steps 1 had its
  cycle capped to run #9's measurement (94.4 tok/s a stream), num_steps 3 the batch-32 fit's (15% under run #10).
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from comparelib.analysis import curves, overview, plan, scaling
from comparelib.live.store import RunRecord
from comparelib.models import comparison, registry
from tests.fixtures import stored_run

# ---------------------------------------------------------------- walk AC's data

MAV = "meta-llama/Llama-4-Maverick-17B-128E-Instruct"
MAV_DRAFT = "mavlab/maverick-eagle3-speculators"
MAV_REF = "lmsys/sglang-EAGLE3-Llama-4-Maverick-17B-128E-Instruct-v1"
AL2, AL3, AL4 = 2.4615384615384617, 3.0, 3.2
TREE8, TREE16 = 3.6923076923076925, 4.173913043478261
AC_ROWS: list[tuple[int, str, int | None, int | None, int | None, float, float | None, int, int]] = [
    # id, engine, num_steps, topk, draft tokens, tok/s, AL, batch, requests
    (1, "sglang", None, None, None, 92.91649312021416, None, 1, 8),
    (2, "sglang", 2, 1, 3, 163.84928419853082, AL2, 1, 8),
    (3, "sglang", 3, 1, 4, 175.31086300848747, AL3, 1, 8),
    (4, "sglang", 4, 1, 5, 159.48538935804825, AL4, 1, 8),
    (5, "sglang", 4, 4, 8, 182.96979391767883, TREE8, 1, 8),
    (6, "sglang", 4, 4, 16, 188.33017444410805, TREE16, 1, 8),
    (7, "sglang", None, None, None, 1182.0704050413515, None, 16, 32),
    (8, "sglang", 2, 1, 3, 2222.326490231397, AL2, 16, 32),
    (9, "sglang", 3, 1, 4, 2181.137344753235, AL3, 16, 32),
    (10, "sglang", 4, 1, 5, 1981.9863608216788, AL4, 16, 32),
    (11, "sglang", 4, 4, 8, 1759.853797212777, TREE8, 16, 32),
    (12, "sglang", 4, 4, 16, 1618.4217777646238, TREE16, 16, 32),
    (13, "sglang", None, None, None, 3561.890066816695, None, 64, 128),
    (14, "sglang", 2, 1, 3, 5657.220428936932, AL2, 64, 128),
    (15, "vllm", None, None, None, 88.11360314756719, None, 1, 8),
    (20, "vllm", 3, 1, 4, 167.32670646893496, AL3, 1, 8),
]

# the draft's config as the walk's Hub served it (speculators format, one layer, 32K draft vocabulary)
MAV_CONFIG: dict[str, Any] = {
    "architectures": ["Eagle3Speculator"],
    "speculators_model_type": "eagle3",
    "speculators_version": "0.2.0",
    "draft_vocab_size": 32000,
    "norm_before_residual": False,
    "target_hidden_size": 5120,
    "eagle_aux_hidden_state_layer_ids": [1, 23, 44],
    "transformer_layer_config": {
        "model_type": "llama",
        "hidden_size": 5120,
        "intermediate_size": 16384,
        "num_attention_heads": 40,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "num_hidden_layers": 1,
        "vocab_size": 202048,
        "rms_norm_eps": 1e-05,
        "max_position_embeddings": 131072,
        "attention_bias": False,
        "mlp_bias": False,
        "torch_dtype": "bfloat16",
    },
    "speculators_config": {
        "algorithm": "eagle3",
        "default_proposal_method": "greedy",
        "proposal_methods": [{"proposal_type": "greedy", "speculative_tokens": 3}],
        "verifier": {"name_or_path": MAV, "architectures": ["Llama4ForConditionalGeneration"]},
    },
    "torch_dtype": "bfloat16",
}


def walk_ac(ids: tuple[int, ...] | None = None) -> list[RunRecord]:
    out = []
    for id_, engine, k, topk, ndt, tok_s, al, batch, requests in AC_ROWS:
        if ids is not None and id_ not in ids:
            continue
        run = stored_run(
            id_,
            k,
            tok_s,
            al,
            engine=engine,
            model=MAV,
            group="mav-ac",
            draft=None if k is None else MAV_DRAFT,
            topk=topk,
            ndt=ndt,
            concurrency=batch,
            requests=requests,
            max_tokens=96,
        )
        run = replace(run, params={**run.params, "temperature": 0.0, "warmup": 2, "ignore_eos": False})
        if engine == "vllm" and k:  # vLLM's counters: per-position rates, no per-request mean
            run = replace(run, summary={"accept_per_position": [1.0, 0.75, 0.25]}, accept_length_mean=None)
        out.append(run)
    return out


def write_ac_log(path: Path) -> Path:
    """The walk's data/train_log.csv (scripts/make_data.py): 4 passes of 100,000 samples, batch 64; train every 10K
    samples seen, eval every 25K; eval peaks at 200K samples seen (pass 2), then falls."""
    noise = [0.004, -0.003, 0.002, -0.004, 0.003, -0.002, 0.004, -0.003, 0.002, -0.001, 0.003, -0.004, 0.002]
    noise += [-0.002, 0.003, -0.003]

    def accs(a0: float) -> list[float]:
        return [a0, a0 * 0.95, a0 * 0.92, a0 * 0.90]

    ev = {}
    for i, s in enumerate(range(25000, 400001, 25000)):
        if s <= 200000:
            a0 = 0.60 + 0.18 * (math.log(s / 25000) / math.log(8))
        else:
            a0 = 0.78 - 0.08 * ((s - 200000) / 200000)
        ev[s] = accs(a0 + noise[i])
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["step", "samples_seen", "epoch", "split", "acc_0", "acc_1", "acc_2", "acc_3"])
        for s in sorted(set(range(10000, 400001, 10000)) | set(ev)):
            if s % 10000 == 0:
                a0 = min(0.55 + 0.33 * (math.log(s / 10000) / math.log(40)), 0.99)
                w.writerow([round(s / 64), s, round(s / 100000, 4), "train"] + [f"{x:.4f}" for x in accs(a0)])
            if s in ev:
                w.writerow([round(s / 64), s, round(s / 100000, 4), "eval"] + [f"{x:.4f}" for x in ev[s]])
    return path


def _local_draft(tmp_path: Path, name: str, config: dict[str, Any]) -> Any:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config))
    return comparison.load_entry(str(folder), with_header=False, with_card=False)


def _ac_plan(tmp_path: Path, *, log: bool = True, runs: list[RunRecord] | None = None, **build: Any) -> plan.Plan:
    curve = curves.curve([str(write_ac_log(tmp_path / "train_log.csv"))], steps=3) if log else None
    inputs = plan.inputs_for(
        _local_draft(tmp_path, "maverick-eagle3", MAV_CONFIG),
        runs=walk_ac() if runs is None else runs,
        own_samples=400000.0,
        own_samples_source="--samples",
        curve=curve,
        curve_source="train_log.csv" if log else "",
        draft=MAV_DRAFT,
    )
    return plan.build(inputs, steps=3, **build)


def _option(result: plan.Plan, kind: str) -> plan.Option:
    return next(o for o in result.options if o.kind == kind)


# ---------------------------------------------------------------- AC1: one tree, its own figures, the batch said


def test_the_tree_row_carries_the_named_trees_figures_at_every_batch(tmp_path: Path) -> None:
    result = _ac_plan(tmp_path)
    tree = _option(result, "tree")
    assert tree.title == "Serve the measured tree (num_steps 4, topk 4, 16 draft tokens) at batch 1", tree.title
    # the named tree is #6 at batch 1 and #12 at batch 16, never #11 (8 draft tokens)
    assert {b: round(v.value or 0, 1) for b, v in tree.tok_s.items()} == {"1": 188.3, "16": 1618.4}, tree.tok_s
    row = result.frame().set_index("kind").loc["tree"]
    assert round(row["tok_s_bs16"], 1) == 1618.4, row
    note = tree.note or ""
    assert (
        "batch 16: run #12 (num_steps 4, topk 4, 16 draft tokens) measured 1,618.4 tok/s against the best chain, "
        "num_steps 2 (run #8), 2,222.3: 603.9 tok/s below it"
    ) in note, note
    # the faster tree of another shape there is named as such, in the note only
    assert "the fastest tree there, run #11 (num_steps 4, topk 4, 8 draft tokens), measured 1,759.9 tok/s" in note
    evidence = next(e for e in tree.evidence if e["what"] == "tree tok/s per batch")
    assert evidence["value"] == {"1": pytest.approx(188.33017444410805), "16": pytest.approx(1618.4217777646238)}


def test_the_trees_lead_says_its_batch_and_where_every_tree_lost(tmp_path: Path) -> None:
    result = _ac_plan(tmp_path)
    lead = plan.lead(result) or ""
    assert lead.startswith(
        "**Ranked first: Serve the measured tree (num_steps 4, topk 4, 16 draft tokens) at batch 1.** Faster at batch "
        "1 only: at batch 16 every tree measured slower than the best chain there (num_steps 2, run #8, 2,222.3 "
        "tok/s), so serve that chain at batch 16."
    ), lead


def test_a_tree_that_wins_at_every_measured_batch_says_no_loss(tmp_path: Path) -> None:
    # #12 measured faster than every chain at batch 16: no "slower" said, and its own cell is its own run's
    runs = [replace(r, output_tokens_per_s=2400.0) if r.id == 12 else r for r in walk_ac()]
    tree = _option(_ac_plan(tmp_path, runs=runs), "tree")
    assert round(tree.tok_s["16"].value or 0, 1) == 2400.0
    assert "slower than the best chain" not in (tree.note or ""), tree.note
    assert "the fastest tree there" not in (tree.note or ""), tree.note


# ---------------------------------------------------------------- AC2: a swept batch's column in every row


def test_a_swept_batchs_column_is_filled_in_the_num_steps_and_more_data_rows(tmp_path: Path) -> None:
    result = _ac_plan(tmp_path)
    frame = result.frame().set_index("kind")
    assert round(frame.loc["num-steps", "tok_s_bs16"], 1) == 2222.3, frame["tok_s_bs16"]  # run #8, measured
    more = frame.loc["more-data", "tok_s_bs16"]
    assert more == more and more > 2181.1, frame["tok_s_bs16"]  # predicted, above the served chain's #9 there
    assert "16" in result.current["tok_s"] and round(result.current["tok_s"]["16"], 1) == 2181.1, result.current
    # the JSON's per-batch figures carry it too, and the text says where batch 16's figures come from
    assert "16" in _option(result, "num-steps").to_json()["tok_s"]
    assert "batch 16 from its measured runs #8, #9, #10" in (_option(result, "num-steps").note or "")


# ---------------------------------------------------------------- AC3 / AD2: the target AL is your target's draft's


def _page_target(published: Any, target: str, draft: str, runs: list[RunRecord]) -> tuple[float, str] | None:
    """What Acceptance vs data opens its "Target acceptance length" on (pages/scaling.py)."""
    ref = overview.default_reference(sorted(published["draft"].dropna().unique()), draft, target, runs).hub_id
    bench = scaling.default_benchmark(published, ref)
    assert bench is not None
    setting = scaling.default_setting(published, bench, ref, overview.reference_settings(ref))
    return plan.default_target(published, benchmark=bench, setting_key=setting, target=target, own=draft, runs=runs)


def test_walk_ac_aims_at_the_published_draft_for_maverick_as_acceptance_vs_data_does(tmp_path: Path) -> None:
    result = _ac_plan(tmp_path)
    assert result.target_al == pytest.approx(2.45), result.target_al
    text = next(s.text for s in result.sources if s.id == result.target_al_source)
    assert MAV_REF in text and "not for your target" not in text, text
    page = _page_target(scaling.published_points(), MAV, MAV_DRAFT, walk_ac())
    assert page is not None and page[0] == result.target_al, page


def test_without_a_log_the_fit_says_it_is_on_another_benchmark_than_the_target(tmp_path: Path) -> None:
    result = _ac_plan(tmp_path, log=False)
    assert result.target_al == pytest.approx(2.45), result.target_al
    assert result.fit is not None, result.fit_note
    assert (
        "the published drafts at (3,1,4) on the target's benchmark, unspecified, cannot be fitted" in result.fit_note
    ), result.fit_note
    assert "so the trend is fitted on GSM8K" in result.fit_note, result.fit_note
    note = _option(result, "more-data").note or ""
    assert "the target 2.45" in note and "unspecified" in note and "GSM8K" in note, note


AD_TARGET = "Qwen/Qwen3-Coder-30B-A3B-Instruct"
AD_DRAFT = "coderlab/q3coder-30b-eagle3"
AD_REF = "lmsys/SGLang-EAGLE3-Qwen3-Coder-30B-A3B-Instruct-SpecForge"
A1, A3, A6 = 1.8028169014084507, 2.782608695652174, 3.3684210526315788
AD_ROWS: list[tuple[int, int | None, float, float | None, int, int]] = [
    # id, num_steps, tok/s, AL, batch, requests (SGLang)
    (1, None, 93.64143255946175, None, 1, 16),
    (2, 1, 131.77709635706876, A1, 1, 16),
    (6, 3, 170.79535306591808, A3, 1, 16),
    (7, 6, 146.91939052496468, A6, 1, 16),
    (8, None, 1847.9594710835336, None, 32, 64),
    (9, 1, 3021.0902828948556, A1, 32, 64),
    (10, 3, 3137.5431132684607, A3, 32, 64),
    (11, 6, 1755.5957823966096, A6, 32, 64),
]
AD_CONFIG: dict[str, Any] = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "model_type": "llama",
    "hidden_act": "silu",
    "hidden_size": 2048,
    "intermediate_size": 8192,
    "num_hidden_layers": 1,
    "num_attention_heads": 32,
    "num_key_value_heads": 4,
    "head_dim": 128,
    "vocab_size": 151936,
    "draft_vocab_size": 32000,
    "max_position_embeddings": 32768,
    "rope_theta": 10000000,
    "rms_norm_eps": 1e-06,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "target_hidden_size": 2048,
    "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 23, 44], "use_aux_hidden_state": True},
}


def walk_ad() -> list[RunRecord]:
    out = []
    for id_, k, tok_s, al, batch, requests in AD_ROWS:
        run = stored_run(
            id_,
            k,
            tok_s,
            al,
            engine="sglang",
            model=AD_TARGET,
            group="q3c-ad",
            draft=None if k is None else AD_DRAFT,
            concurrency=batch,
            requests=requests,
            max_tokens=128,
        )
        out.append(replace(run, params={**run.params, "temperature": 0.0, "warmup": 2, "ignore_eos": False}))
    return out


def _ad_plan(tmp_path: Path) -> plan.Plan:
    entry = _local_draft(tmp_path, "q3coder-30b-eagle3", AD_CONFIG)
    inputs = plan.inputs_for(
        entry, runs=walk_ad(), own_samples=895.0, own_samples_source="--samples", target=AD_TARGET, draft=AD_DRAFT
    )
    return plan.build(inputs, steps=3)


def test_walk_ad_aims_at_the_qwen3_coder_draft_as_acceptance_vs_data_does(tmp_path: Path) -> None:
    result = _ad_plan(tmp_path)
    assert result.target_al == pytest.approx(3.395), result.target_al
    text = next(s.text for s in result.sources if s.id == result.target_al_source)
    assert AD_REF in text and "humaneval" in text and "not for your target" not in text, text
    page = _page_target(scaling.published_points(), AD_TARGET, AD_DRAFT, walk_ad())
    assert page is not None and page == (result.target_al, text.removeprefix("registry: ")), page
    # the fit is on the benchmark the target is on, as Acceptance vs data's
    assert "on humaneval" in result.fit_note, result.fit_note


def test_a_benchmark_given_is_kept_and_its_target_follows_it(tmp_path: Path) -> None:
    entry = _local_draft(tmp_path, "q3coder-30b-eagle3", AD_CONFIG)
    inputs = plan.inputs_for(
        entry, runs=walk_ad(), own_samples=895.0, target=AD_TARGET, draft=AD_DRAFT, benchmark="gsm8k"
    )
    assert inputs.benchmark == "gsm8k"
    result = plan.build(inputs, steps=3)
    assert "on gsm8k" in result.fit_note, result.fit_note


# ---------------------------------------------------------------- AC5: samples seen and unique, and the anchor


def test_an_overfitting_logs_samples_seen_are_converted_by_its_own_passes(tmp_path: Path) -> None:
    result = _ac_plan(tmp_path)
    assert result.cost["epochs"] == 2, result.cost
    assert result.cost["epochs_source"].startswith(
        "your training log: 400,000 samples seen over its 4 passes (its epoch column), about 100,000 unique samples "
        "a pass; its fit runs to the eval peak (pass 2, 200,000 samples seen): 2 passes over the unique samples, the "
        "epochs the cost divides samples seen by"
    ), result.cost["epochs_source"]
    note = _option(result, "more-data").note or ""
    assert "2,000,000 unique samples at 1 epoch" not in note, note
    assert "(2,000,000 samples seen; 1,000,000 unique samples at 2 epochs" in note, note
    # the typed volume is what the log saw over its 4 passes, not its unique samples: said
    assert "not the 400,000 of your training samples (--samples)" in result.cost["epochs_source"], result.cost


def test_an_overfitting_logs_change_is_said_from_the_peak_with_what_the_served_checkpoint_lost(
    tmp_path: Path,
) -> None:
    note = _option(_ac_plan(tmp_path), "more-data").note or ""  # your acceptance is SGLang #3, as on Overview
    assert "at your 200,000 samples seen" not in note, note
    assert "2.77 at its eval peak, 200,000 samples seen (pass 2 of 4)" in note, note
    assert (
        "The change is counted from the eval peak, not from the checkpoint run #3 serves: if that is your last one "
        "(pass 4, 400K samples seen, eval tau_sim 2.45), it is 0.31 below the peak on the log's scale, which keeping "
        "the pass-2 checkpoint (200K samples seen) recovers without more data; that 0.31 is in neither this row's AL "
        "nor its gain."
    ) in note, note
    assert "the log's fit at the new volume - the log's fit at its eval peak" in note, note


# ---------------------------------------------------------------- AD3: one rule for every num_steps past batch 32


def test_past_the_largest_swept_batch_every_measured_num_steps_holds_its_measured_cycle(tmp_path: Path) -> None:
    result = _ad_plan(tmp_path)
    ns = _option(result, "num-steps")
    # batch 32's runs held: each stream as fast as measured there, num_steps 3 (#10) 3.9% above num_steps 1 (#9)
    assert ns.tok_s["64"].value == pytest.approx(2 * 3137.5431132684607, rel=1e-9), ns.tok_s["64"]
    note = ns.note or ""
    assert "batch 64: 3 at 6,275.1 tok/s predicted from batch 1 and 32 runs, an upper bound" in note, note
    assert "batch 32's runs' own cycles held at num_steps 1, 3 and 6 (#9, #10, #11)" in note, note
    assert "the batch-32 fit's at other num_steps" in note, note


def test_the_plans_own_run_is_overviews_on_the_references_engine(tmp_path: Path) -> None:
    """The plan's default "your acceptance" (the CLI's `plan`, which passes no run) is the run Overview reads, on the
    engine the reference publishes on: SGLang #3, not vLLM #20 (the same chain, batch and acceptance)."""
    runs = walk_ac()
    entry = _local_draft(tmp_path, "maverick-eagle3", MAV_CONFIG)
    inputs = plan.inputs_for(entry, runs=runs, draft=MAV_DRAFT)
    answer = overview.answer(entry, registry.get_draft(MAV_REF), runs, None, own_target=MAV, draft=MAV_DRAFT)
    assert answer.own is not None and answer.own.run.id == 3, answer.own
    assert inputs.own_run == answer.own.run.id == 3, inputs.own_run
