"""Walk AG (finding 1): the benchmark Acceptance vs data and the plan open on, for a reference that publishes its
acceptance without a training volume.

The walk (yourorg/qwen3-coder-480b-eagle3-v2, a draft for Qwen/Qwen3-Coder-480B-A35B-Instruct, 120,000 samples):
Overview's reference is lmsys/...-Qwen3-Coder-480B-...-EigenAI, which publishes HumanEval (3.495, 5.626) and
LiveCodeBench (3.094, 4.26) at (3,1,4) and (7,1,8), batch 8, and no training volume. The plan said "benchmark: GSM8K,
the one ...-EigenAI (Overview's reference) publishes most on" (it publishes no GSM8K figure) and aimed at 2.876, a
Qwen3-235B draft's GSM8K figure; Acceptance vs data led with "To reach 2.876 on GSM8K ... about 1.6M samples", whose
figure it was said only in a closed expander.
"""

from __future__ import annotations

import pytest

from comparelib.analysis import plan, scaling, verdicts
from tests.fixtures import cli_in_process, page_app, page_text, stored_run
from tests.hub_emulator import HubEmulator

TARGET = "Qwen/Qwen3-Coder-480B-A35B-Instruct"
OWN = "yourorg/qwen3-coder-480b-eagle3-v2"
EIGEN = "lmsys/SGLang-EAGLE3-Qwen3-Coder-480B-A35B-Instruct-SpecForge-EigenAI"  # HumanEval, LiveCodeBench; no volume
CODER30 = "lmsys/SGLang-EAGLE3-Qwen3-Coder-30B-A3B-Instruct-SpecForge"  # the same two benchmarks, with 1.4M samples
LLAMA = "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"  # GSM8K, HumanEval, MT-Bench 5 figures each, with volumes
DSV3 = "deepseek-ai/DeepSeek-V3"  # publishes on 'mean' only, no volume: no trend can be fitted there
KIMI26 = "nvidia/Kimi-K2.6-Eagle3"  # MT-Bench and SPEED-Bench (no published draft with a volume on the latter)
META = "lmsys/SGLang-EAGLE3-Qwen3-235B-A22B-Instruct-2507-SpecForge-Meituan"  # the 2.876 the walk aimed at


def _choice(reference: str | None) -> tuple[str, str]:
    return plan.opening_benchmark(scaling.published_points(), OWN, TARGET, reference=reference)


# ------------------------------------------------------------------------ the library: benchmark and its reason


def test_a_reference_without_a_volume_opens_on_the_benchmark_it_publishes_on() -> None:
    bench, why = _choice(EIGEN)
    assert bench == "humaneval", (bench, why)
    assert scaling.default_benchmark(scaling.published_points(), EIGEN) == "humaneval"  # the page's function
    assert f"the one {EIGEN} (Overview's reference) publishes most on" in why, why
    # HumanEval and LiveCodeBench tie at 2 figures: the reason says so and why HumanEval comes first, truly
    assert "2 figures, as many as on LiveCodeBench" in why, why


def test_a_reference_with_volumes_still_opens_on_its_own_benchmark() -> None:
    assert _choice(CODER30)[0] == "humaneval"
    bench, why = _choice(LLAMA)
    assert bench == "gsm8k", (bench, why)
    assert f"the one {LLAMA} (Overview's reference) publishes most on" in why, why
    assert "GSM8K first among equals" in why, why


def test_a_reference_whose_benchmarks_cannot_be_fitted_says_so_not_publishes_most() -> None:
    bench, why = _choice(DSV3)
    assert bench == "gsm8k", (bench, why)
    assert "publishes most on" not in why, why
    assert f"as {DSV3} (Overview's reference) publishes on mean only, without a training volume, and too few" in why
    assert "GSM8K is the default benchmark" in why, why


def test_a_benchmark_no_trend_can_be_fitted_on_is_not_the_one_published_most_on() -> None:
    """nvidia's Kimi-K2.6 draft publishes one MT-Bench and one SPEED-Bench figure: MT-Bench is opened on, and the
    reason does not claim it publishes most there without saying SPEED-Bench was passed over."""
    bench, why = _choice(KIMI26)
    assert bench == "mtbench", (bench, why)
    assert "publishes most on of the benchmarks the published trend can be fitted on (1 figure)" in why, why
    assert "it publishes on speed_bench too, without a training volume" in why, why


def test_a_reference_publishing_nothing_and_no_reference_say_gsm8k_plainly() -> None:
    bench, why = _choice("acme/unknown")
    assert bench == "gsm8k" and "publishes most on" not in why and "acme/unknown" in why, why
    assert scaling.benchmark_choice(scaling.published_points(), None) == (
        "gsm8k",
        "the default benchmark, as no reference is chosen",
    )


# ------------------------------------------------------------------------ the lead names another model's figure


def test_the_lead_says_whose_figure_a_target_of_another_model_is() -> None:
    pts = scaling.published_points()
    key = "steps=3,topk=1,draft=4,bs=8,sglang"
    fit = scaling.fit_published(scaling.select(scaling.scaling_points(pts), benchmark="gsm8k", setting_key=key))
    aim = plan.default_target(pts, benchmark="gsm8k", setting_key=key, target=TARGET, own=OWN)
    assert aim is not None and aim[0] == pytest.approx(2.876) and META in aim[1], aim
    whose = verdicts.figure_whose(aim[1], TARGET, "gsm8k")
    assert whose is not None and META in whose and "Qwen/Qwen3-235B-A22B-Instruct-2507" in whose, whose
    lead = verdicts.data_lead(fit, aim[0], pts.iloc[0:0], target_whose=whose)[0]
    assert lead.startswith(f"To reach 2.876 ({whose}) on GSM8K"), lead
    # the walk's bold lead: run #4 measured 2.78 on the bundled prompts, set apart from the GSM8K target: named too
    run = stored_run(4, 3, 93.1, 2.783, draft=OWN, model=TARGET, group="qwen3-coder-v2-h200", concurrency=1)
    mine = scaling.own_points_from_runs([run], draft=OWN, samples=120_000.0, tokens=None, target_model=TARGET)
    assert set(mine["benchmark"]) == {"bundled"}, mine
    bold = verdicts.data_lead(fit, aim[0], mine, own_volume=120_000.0, target_whose=whose)[0]
    assert f"and the target 2.876 ({whose}) is a GSM8K figure" in bold, bold
    # a figure of a draft for your own target is said as before
    own = plan.default_target(pts, benchmark="humaneval", setting_key=key, target=TARGET, own=OWN)
    assert own is not None and own[0] == pytest.approx(3.495) and EIGEN in own[1], own
    assert verdicts.figure_whose(own[1], TARGET, "humaneval") is None


# ------------------------------------------------------------------------ the CLI and the page, as the walk built it

DRAFT_CONFIG = {
    "architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama", "hidden_act": "silu", "hidden_size": 6144,
    "intermediate_size": 16384, "num_hidden_layers": 1, "num_attention_heads": 96, "num_key_value_heads": 8,
    "head_dim": 128, "vocab_size": 151936, "draft_vocab_size": 32000, "max_position_embeddings": 262144,
    "rope_theta": 10000000, "rms_norm_eps": 1e-06, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 30, 58], "use_aux_hidden_state": True},
}  # fmt: skip
TARGET_CONFIG = {
    "architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_act": "silu", "hidden_size": 6144,
    "intermediate_size": 8192, "moe_intermediate_size": 2560, "num_experts": 160, "num_experts_per_tok": 8,
    "num_hidden_layers": 62, "num_attention_heads": 96, "num_key_value_heads": 8, "head_dim": 128,
    "vocab_size": 151936, "max_position_embeddings": 262144, "rope_theta": 10000000, "rms_norm_eps": 1e-06,
    "tie_word_embeddings": False, "torch_dtype": "bfloat16", "decoder_sparse_step": 1, "mlp_only_layers": [],
    "shared_expert_intermediate_size": 0, "norm_topk_prob": True,
}  # fmt: skip
CARD = f"---\nbase_model: {TARGET}\nlicense: apache-2.0\ntags:\n- eagle3\n---\n# qwen3-coder-480b-eagle3-v2\n"


def _hub(hub: HubEmulator) -> None:
    hub.add_model(OWN, DRAFT_CONFIG, card=CARD)
    hub.add_model(TARGET, TARGET_CONFIG)


def test_the_cli_plan_opens_on_humaneval_and_aims_at_the_references_figure(
    hub: HubEmulator, capsys: pytest.CaptureFixture[str]
) -> None:
    _hub(hub)
    done = cli_in_process(capsys, "plan", OWN, "--samples", "120000")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    bench_line = next(line for line in text.splitlines() if line.startswith("benchmark: "))
    assert bench_line.startswith(f"benchmark: HumanEval, the one {EIGEN} (Overview's reference) publishes most on")
    assert "target AL 3.495" in text.splitlines()[0] and META not in text.splitlines()[0], text.splitlines()[0]
    assert "2.876" not in text, text


def test_acceptance_vs_data_leads_with_the_references_humaneval_figure(hub: HubEmulator) -> None:
    import streamlit as st

    _hub(hub)
    st.cache_data.clear()
    at = page_app("pages/scaling.py", timeout=120)
    at.query_params["draft"] = OWN
    at.query_params["draft_samples"] = "120000"
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="sc_ref").value == EIGEN
    assert at.selectbox(key="sc_bench").value == "humaneval"
    assert at.number_input(key="sc_target").value == pytest.approx(3.495)
    text = page_text(at)
    assert "To reach 3.495 on HumanEval at steps=3,topk=1,draft=4,bs=8,sglang you need about" in text, text
    assert "2.876" not in text, text
    # the user picks GSM8K: the target is then another model's figure, and the lead says whose
    at.selectbox(key="sc_bench").set_value("gsm8k").run()
    assert not at.exception, at.exception
    assert at.number_input(key="sc_target").value == pytest.approx(2.876)
    lead = next(m.value for m in at.markdown if "To reach 2.876" in m.value)
    assert f"To reach 2.876 ({META}'s published GSM8K figure, a draft for" in lead, lead
