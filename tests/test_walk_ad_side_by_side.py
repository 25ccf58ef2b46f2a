"""Walk AD (D1): the published lmsys Coder draft, imported from a sglang.bench_serving record, was "measured in your
run group (run #14), though at no setting your draft ran", though the user's run #6 ran the same engine, chain and
batch. The setting comparison counted what the bench_serving file does not record (temperature, ignore_eos) as
differences, and the number of requests (#14 completed 16) too: only the prompt set really differs.

The group as the walk built it (scripts/bench.sh, w3_journey.py): this app's SGLang runs at batch 1 (16 requests,
128 tokens, temperature 0, the bundled prompts), and files/lmsys_bs1_steps3.jsonl imported into the group.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from comparelib.analysis import overview
from comparelib.values import run_param
from tests.fixtures import bench_store, cli_in_process, eagle3_tensors
from tests.test_plan_walk_ac_ad import AD_CONFIG

DRAFT = "coderlab/q3coder-30b-eagle3"
TARGET = "Qwen/Qwen3-Coder-30B-A3B-Instruct"
LMSYS = "lmsys/SGLang-EAGLE3-Qwen3-Coder-30B-A3B-Instruct-SpecForge"
GROUP = "q3c-ad"
APP_PARAMS = {
    "concurrency": 1,
    "requests": 16,
    "max_tokens": 128,
    "temperature": 0.0,
    "warmup": 2,
    "prompt_set": "bundled",
    "timeout_s": 120.0,
    "ignore_eos": False,
    "route": "generate",
}
# files/lmsys_bs1_steps3.jsonl, as the walk imported it (no per-request arrays; the key in server_info masked)
LMSYS_RECORD: dict[str, Any] = {
    "tag": None,
    "backend": "sglang",
    "dataset_name": "random",
    "request_rate": "inf",
    "max_concurrency": 1,
    "sharegpt_output_len": None,
    "random_input_len": 256,
    "random_output_len": 128,
    "random_range_ratio": 1.0,
    "server_info": {
        "model_path": TARGET,
        "tokenizer_path": TARGET,
        "speculative_algorithm": "EAGLE3",
        "speculative_draft_model_path": LMSYS,
        "speculative_num_steps": 3,
        "speculative_eagle_topk": 1,
        "speculative_num_draft_tokens": 4,
        "version": "0.5.9",
        "internal_states": [{"avg_spec_accept_length": 3.05}],
    },
    "duration": 11.6,
    "completed": 16,
    "total_input_tokens": 2048,
    "total_output_tokens": 2048,
    "request_throughput": 1.38,
    "input_throughput": 163.84,
    "output_throughput": 176.6,
    "total_throughput": 245.76,
    "mean_e2e_latency_ms": 3120.0,
    "median_e2e_latency_ms": 3100.0,
    "mean_ttft_ms": 31.0,
    "median_ttft_ms": 31.0,
    "p99_ttft_ms": 110.0,
    "mean_tpot_ms": 5.4,
    "median_tpot_ms": 5.4,
    "p99_tpot_ms": 12.6,
    "mean_itl_ms": 11.9,
    "median_itl_ms": 10.1,
    "p99_itl_ms": 18.0,
    "concurrency": 0.99,
    "accept_length": 3.05,
}


def _app_run(store: Any, steps: int | None, tok_s: float, al: float | None, **params: Any) -> int:
    cfg = {
        "engine": "sglang",
        "model": TARGET,
        "speculative_algorithm": "EAGLE3" if steps else None,
        "draft_model": DRAFT if steps else None,
        "num_steps": steps,
        "topk": 1 if steps else None,
        "num_draft_tokens": steps + 1 if steps else None,
    }
    rid = store.start_run(
        endpoint="http://127.0.0.1:18950", server_config=cfg, group=GROUP, params={**APP_PARAMS, **params}
    )
    store.finish_run(rid, {"requests": 16, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": al})
    return rid


def _walk_group(tmp_path: Path, **mine: Any) -> dict[str, int]:
    """The walk's batch-1 SGLang runs (#1 baseline, #2, #6, #7) and the imported lmsys record; ``mine``: other
    benchmark parameters of the user's num_steps-3 run."""
    from comparelib.live.importers import import_file

    store = bench_store()
    ids = {
        "base": _app_run(store, None, 93.6, None),
        "mine-1": _app_run(store, 1, 131.8, 1.80),
        "mine-3": _app_run(store, 3, 170.8, 2.78, **mine),
        "mine-6": _app_run(store, 6, 146.9, 3.37),
    }
    path = tmp_path / "lmsys_bs1_steps3.jsonl"
    path.write_text(json.dumps(LMSYS_RECORD) + "\n")
    [ids["lmsys"]] = import_file(store, path, group=GROUP)
    return ids


def _runs() -> list[Any]:
    return bench_store().runs(group=GROUP)


def _by_id(rid: int) -> Any:
    return next(r for r in _runs() if r.id == rid)


def test_a_bench_serving_record_states_the_requests_it_completed(tmp_path: Path) -> None:
    ids = _walk_group(tmp_path)
    imported = _by_id(ids["lmsys"])
    assert run_param(imported, "requests") == 16  # "completed": 16; sglang.bench_serving writes no num_prompts
    # what it does not record stays unknown: not a difference, not equal
    assert run_param(imported, "temperature") is None and run_param(imported, "ignore_eos") is None


@pytest.mark.parametrize(
    ("mine", "words"),
    [
        ({}, "prompts bundled"),  # temperature, ignore_eos unrecorded by the file: no difference; requests 16 = 16
        ({"requests": 32}, "prompts bundled, requests 32"),
        ({"max_tokens": 256}, "max_tokens 256, prompts bundled"),  # the file's random_output_len is 128
        ({"temperature": 0.7}, "prompts bundled"),  # against a temperature the file does not record: unknown
    ],
)
def test_the_setting_comparison_counts_only_recorded_differences(
    tmp_path: Path, mine: dict[str, Any], words: str
) -> None:
    ids = _walk_group(tmp_path, **mine)
    assert overview._setting_words(_by_id(ids["mine-3"]), _by_id(ids["lmsys"])) == words


def test_the_published_draft_is_measured_side_by_side_on_other_prompts(tmp_path: Path) -> None:
    ids = _walk_group(tmp_path)
    runs = _runs()
    # like for like only (the plan's measured target reads these): the prompts differ
    assert overview.side_by_side(runs, DRAFT, TARGET) == ()
    [pair] = overview.side_by_side(runs, DRAFT, TARGET, qualified=True)
    assert (pair.theirs.id, pair.yours.id) == (ids["lmsys"], ids["mine-3"])
    assert pair.other_prompts and not pair.like_for_like
    assert pair.sentence == (
        f"Measured side by side (group {GROUP}, SGLang, num_steps 3, batch 1), on other prompts (random 256/128 "
        f"against bundled): {LMSYS} 3.05 accept, 176.6 tok/s (#{ids['lmsys']}) against yours 2.78, 170.8 tok/s "
        f"(#{ids['mine-3']}); temperature, ignore_eos not recorded by sglang.bench_serving (run #{ids['lmsys']}): "
        f"not shown to match run #{ids['mine-3']}'s (temperature 0, ignore_eos False)"
    )
    ref = overview.default_reference(overview.reference_choices(), DRAFT, TARGET, runs)
    assert ref.hub_id == LMSYS and ref.basis == "side", ref
    assert "though at no setting your draft ran" not in ref.why
    assert (
        f"measured side by side with yours in group {GROUP} (run #{ids['lmsys']} against your #{ids['mine-3']}, "
        "SGLang, num_steps 3, batch 1, on other prompts (random 256/128 against bundled))" in ref.why
    ), ref.why


def test_a_like_for_like_pair_is_said_without_qualifier(tmp_path: Path) -> None:
    """The same prompts on both sides: side by side, like for like, and what the file does not record said."""
    record = {**LMSYS_RECORD, "dataset_name": "bundled"}
    record.pop("random_input_len")
    record.pop("random_output_len")
    store = bench_store()
    mine = _app_run(store, 3, 170.8, 2.78)
    path = tmp_path / "same.jsonl"
    path.write_text(json.dumps(record) + "\n")
    from comparelib.live.importers import import_file

    [theirs] = import_file(store, path, group=GROUP)
    [pair] = overview.side_by_side(_runs(), DRAFT, TARGET)
    assert pair.like_for_like and (pair.theirs.id, pair.yours.id) == (theirs, mine)
    assert "on other prompts" not in pair.sentence
    assert pair.sentence.endswith(
        f"(#{mine}); max_tokens, temperature, ignore_eos not recorded by sglang.bench_serving (run #{theirs}): not "
        f"shown to match run #{mine}'s (max_tokens 128, temperature 0, ignore_eos False)"
    ), pair.sentence


def test_the_acceptance_gap_is_the_measured_one_said_as_indicative(tmp_path: Path) -> None:
    """Measured side by side on other prompts: one server, engine, chain and batch, the prompts apart, where the
    published HumanEval figure differs in its prompts and its batch size too: the measured pair sets the gap, said
    as indicative, and the published figure stays in the acceptance line."""
    from comparelib.models import comparison

    ids = _walk_group(tmp_path)
    ref = comparison.load_entry(comparison.registry_source(LMSYS), with_header=False, with_card=False)
    a = overview.answer(None, ref, _runs(), 895.0, own_target=TARGET, draft=DRAFT)
    assert [p.theirs.id for p in a.side_by_side] == [ids["lmsys"]]
    assert a.accept_ratio == pytest.approx(3.05 / 2.78)
    assert "measured 3.05 against your 2.78 side by side" in a.gap_sentence, a.gap_sentence
    assert "on other prompts (random 256/128 against bundled)" in a.gap_sentence, a.gap_sentence
    assert "not like for like" in a.gap_sentence, a.gap_sentence


def _target_config() -> dict[str, Any]:
    root = Path(__file__).parents[1] / "comparelib" / "builtin" / "targets"
    cfg = json.loads((root / "Qwen--Qwen3-30B-A3B-Instruct-2507.json").read_text())
    cfg["_name_or_path"] = TARGET
    return cfg


def _draft_config() -> dict[str, Any]:
    return copy.deepcopy(AD_CONFIG)  # walk AD's draft, one definition (tests.test_plan_walk_ac_ad)


def test_overview_command_says_the_side_by_side_line(hub: Any, capsys: Any, tmp_path: Path) -> None:
    tensors = eagle3_tensors(2048, 8192, 151936, 32000, kv_dim=512)
    tensors["midlayer.self_attn.q_proj.weight"] = ((4096, 4096), "BF16")
    tensors["midlayer.self_attn.o_proj.weight"] = ((2048, 4096), "BF16")
    hub.add_model(TARGET, _target_config())
    hub.add_model(DRAFT, _draft_config(), tensors=tensors, card=f"---\nbase_model: {TARGET}\n---\n# draft\n")
    ids = _walk_group(tmp_path)
    proc = cli_in_process(capsys, "overview", f"{hub.url}/{DRAFT}", "--group", GROUP, "--samples", "895")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "though at no setting your draft ran" not in out, out
    assert (
        f"- Measured side by side (group {GROUP}, SGLang, num_steps 3, batch 1), on other prompts (random 256/128 "
        f"against bundled): {LMSYS} 3.05 accept, 176.6 tok/s (#{ids['lmsys']})"
    ) in out, out


# ------------------------------------------------------------------ D2. the volume gap and the plan: one answer


def test_the_volume_gap_fold_out_says_what_the_plans_fit_gives_and_why_they_differ(
    hub: Any, capsys: Any, tmp_path: Path
) -> None:
    """Walk AD: the fold-out said the published trend at 895 samples was "the floor of 1.00 ... (R² 0.34 over 7
    points)" while the plan's "More training data" row said "the trend is GSM8K's, where it gives 1.16
    (1.00..2.50)" from a logistic over 13 points: the fold-out names the plan's figure and why the two differ."""
    from comparelib.analysis import plan, scaling, summary
    from comparelib.models import comparison
    from comparelib.models.draft import OwnDraft

    tensors = eagle3_tensors(2048, 8192, 151936, 32000, kv_dim=512)
    tensors["midlayer.self_attn.q_proj.weight"] = ((4096, 4096), "BF16")
    tensors["midlayer.self_attn.o_proj.weight"] = ((2048, 4096), "BF16")
    hub.add_model(TARGET, _target_config())
    hub.add_model(DRAFT, _draft_config(), tensors=tensors, card=f"---\nbase_model: {TARGET}\n---\n# draft\n")
    _walk_group(tmp_path)
    proc = cli_in_process(capsys, "overview", f"{hub.url}/{DRAFT}", "--group", GROUP, "--samples", "895", "--json")
    assert proc.returncode == 0, proc.stderr
    gap = json.loads(proc.stdout)["volume_gap"]["text"]
    # the plan at Overview's defaults, as the command builds it
    draft = OwnDraft(source=f"{hub.url}/{DRAFT}", samples=895, group=GROUP)
    own = comparison.load_entry(draft.source, card_target=True)
    made = summary.plan_for(draft, own, _runs(), [], published=scaling.published_points())
    assert made.fit is not None and made.fit.scope == "pooled"
    trend = made.fit.al(895).text(".2f")
    chain = f"({made.fit.steps},1,{made.fit.steps + 1})"
    assert (
        f'The plan\'s "More training data" row reads another fit of the published points: a logistic in log N '
        f"bounded at K + 1 = {made.fit.steps + 1}, over {made.fit.n} points at chain {chain} of {made.fit.label} "
        f"(any batch size and engine), which gives {trend} at 895 samples"
    ) in gap, gap
    assert "so the two figures differ" in gap, gap
    assert plan.lead(made) is not None


def test_the_overview_page_says_both(hub: Any, tmp_path: Path) -> None:
    """The page: the side-by-side line under the answer, and the volume gap's fold-out naming the plan's fit."""
    import streamlit as st

    from tests.fixtures import page_app

    tensors = eagle3_tensors(2048, 8192, 151936, 32000, kv_dim=512)
    tensors["midlayer.self_attn.q_proj.weight"] = ((4096, 4096), "BF16")
    tensors["midlayer.self_attn.o_proj.weight"] = ((2048, 4096), "BF16")
    hub.add_model(TARGET, _target_config())
    hub.add_model(DRAFT, _draft_config(), tensors=tensors, card=f"---\nbase_model: {TARGET}\n---\n# draft\n")
    ids = _walk_group(tmp_path)
    st.cache_data.clear()
    at = page_app("../pages/overview.py", timeout=120)
    at.query_params["draft"] = f"{hub.url}/{DRAFT}"
    at.query_params["draft_group"] = GROUP
    at.query_params["draft_samples"] = "895"
    at.run()
    assert not at.exception, at.exception
    md = "\n".join(m.value for m in at.markdown)
    assert (
        f"- Measured side by side (group {GROUP}, SGLang, num_steps 3, batch 1), on other prompts (random 256/128 "
        f"against bundled): {LMSYS} 3.05 accept, 176.6 tok/s (#{ids['lmsys']})"
    ) in md, md
    assert 'The plan\'s "More training data" row reads another fit of the published points' in md, md
    assert "so the two figures differ" in md
