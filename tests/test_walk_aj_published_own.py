"""Walk AJ3: a published draft pasted as "your draft" (https://huggingface.co/AQ-MedAI/Kimi-K2.7-Code-eagle3, in the
registry for moonshotai/Kimi-K2.7-Code with 400,000 training samples, read from the Hub).

Before: Overview compared it with AQ-MedAI/Kimi-K2-Instruct-eagle3 while its plan aimed at "3.23
(AQ-MedAI/Kimi-K2.7-Code-eagle3's published GSM8K AL)", the draft's own figure ("Overview's reference"): the plan
passed the draft's label with its revision ("...@1799d63"), which the reference rule did not know as the draft.
"Training volume: ours is missing" though the registry publishes 400,000 for it; and the target's size was
unknown ("its config could not be read ... give a Hub token") though the target is public on the Hub, because a
published draft read its target only from a config shipped with the app.

Also from the walk (overview.own_acceptance): "your acceptance" switched from SGLang run #4 (2.79) to the newer vLLM
run #11 (2.61) at the same chain and batch, and the sentence never named #4.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from comparelib import settings
from comparelib.analysis import overview, plan
from comparelib.models import comparison
from comparelib.models.draft import OwnDraft
from comparelib.models.registry import KIMI_REFERENCE
from tests.fixtures import bench_store, cli_in_process, page_app, page_text, store_run
from tests.hub_emulator import HubEmulator

PUB = "AQ-MedAI/Kimi-K2.7-Code-eagle3"  # in the registry: target TARGET, 400,000 samples, GSM8K 3.23 at (3,1,4)
TARGET = "moonshotai/Kimi-K2.7-Code"  # no config shipped with the app; public on the walk's Hub
TARGET_TOTAL = 1_026_408_232_448  # `params PUB --target TARGET` on the walk's Hub
H, V, INTER = 7168, 163840, 18432
TARGET_CONFIG: dict[str, Any] = {  # the walk's make_data.py
    "architectures": ["DeepseekV3ForCausalLM"], "model_type": "kimi_k2", "hidden_size": H,
    "intermediate_size": INTER, "moe_intermediate_size": 2048, "num_hidden_layers": 61, "num_attention_heads": 64,
    "num_key_value_heads": 64, "n_routed_experts": 384, "n_shared_experts": 1, "num_experts_per_tok": 8,
    "first_k_dense_replace": 1, "moe_layer_freq": 1, "q_lora_rank": 1536, "kv_lora_rank": 512,
    "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "vocab_size": V,
    "num_nextn_predict_layers": 0, "n_group": 1, "topk_group": 1, "routed_scaling_factor": 2.827,
    "max_position_embeddings": 262144, "tie_word_embeddings": False, "rms_norm_eps": 1e-6, "rope_theta": 50000.0,
    "torch_dtype": "bfloat16", "bos_token_id": 163584, "eos_token_id": 163585, "topk_method": "noaux_tc",
    "scoring_func": "sigmoid", "norm_topk_prob": True, "hidden_act": "silu",
}  # fmt: skip
PUB_CONFIG: dict[str, Any] = {
    "architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama", "hidden_size": H, "intermediate_size": INTER,
    "num_hidden_layers": 1, "num_attention_heads": 64, "num_key_value_heads": 64, "head_dim": 128, "vocab_size": V,
    "draft_vocab_size": 32000, "max_position_embeddings": 262144, "rope_theta": 1000000.0,
    "tie_word_embeddings": False, "torch_dtype": "bfloat16", "rms_norm_eps": 1e-6,
    "eagle_config": {"eagle_aux_hidden_state_layer_ids": [2, 30, 58], "use_aux_hidden_state": True},
}  # fmt: skip
URL = f"https://huggingface.co/{PUB}"


@pytest.fixture
def walk_hub(hub: HubEmulator) -> HubEmulator:
    hub.add_model(TARGET, TARGET_CONFIG)
    hub.add_model(PUB, PUB_CONFIG)
    return hub


# --- the target of a published draft read from the Hub


def test_a_published_drafts_target_is_read_from_the_hub_when_not_shipped(walk_hub: HubEmulator) -> None:
    entry = comparison.load_entry(URL, with_header=False, with_card=False)
    assert entry.published is not None and entry.published.hub_id == PUB
    assert (entry.target_label, entry.target_from) == (TARGET, "published")
    assert entry.target_count is not None and entry.target_count.total == TARGET_TOTAL
    assert (entry.target_size_from or "").startswith(f"read: {TARGET}@"), entry.target_size_from
    assert entry.ratio is not None and entry.target_note is None


def test_a_published_drafts_target_the_hub_refuses_is_named_with_why(hub: HubEmulator) -> None:
    hub.add_model(TARGET, TARGET_CONFIG, gated=True)
    hub.add_model(PUB, PUB_CONFIG)
    entry = comparison.load_entry(URL, with_header=False, with_card=False)
    assert (entry.target_label, entry.target_from) == (TARGET, "published")
    assert entry.target_count is None and entry.ratio is None
    note = entry.target_note or ""
    assert f"the registry names {TARGET} as {PUB}'s target" in note, note
    assert "could not be read" in note and "gated" in note.lower() and "token" in note, note
    with settings.session_token(hub.token):
        again = comparison.load_entry(URL, with_header=False, with_card=False)
    assert again.target_count is not None and again.target_count.total == TARGET_TOTAL


def test_params_counts_the_published_drafts_target(walk_hub: HubEmulator, capsys: pytest.CaptureFixture[str]) -> None:
    done = cli_in_process(capsys, "params", PUB, "--no-header")
    assert done.returncode == 0, done.stderr
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("target"))
    assert line.startswith(f"target {TARGET} ({TARGET_TOTAL:,} parameters); draft-to-target ratio 0.00116"), line


# --- one reference: never the draft itself, on Overview and in the plan


def test_the_reference_is_another_draft_whatever_revision_the_label_carries() -> None:
    for own in (PUB, f"{PUB}@1799d63"):
        ref = overview.default_reference(overview.reference_choices(), own, TARGET)
        assert ref.hub_id == KIMI_REFERENCE, (own, ref)


def test_the_plans_target_is_overviews_reference_not_the_drafts_own_figure() -> None:
    points = plan.scaling.published_points()
    aim = plan.published_target(points, "kimik2", "gsm8k", "(3,1,4)", TARGET, f"{PUB}@1799d63")
    assert aim is not None
    assert aim[1].startswith(f"{KIMI_REFERENCE} at (3,1,4) on gsm8k"), aim
    assert "Overview's reference" in aim[1] and f"{PUB} at" not in aim[1], aim
    assert aim[0] == pytest.approx(3.271), aim


# --- its published training volume


def test_a_published_draft_carries_its_published_training_volume() -> None:
    for source in (URL, PUB, f"registry:{PUB}"):
        n, where = OwnDraft.parse(source).training_samples([])
        assert n == 400_000, (source, where)
        assert where.startswith(f"published: the registry's figure for {PUB}"), where
    typed = OwnDraft.parse(URL, samples=1234).training_samples([])
    assert typed == (1234.0, "typed in")
    # a folder of the same name is not the published draft: its volume is not the registry's
    assert OwnDraft.parse("/data/Kimi-K2.7-Code-eagle3").training_samples([])[0] is None


def test_cli_overview_and_plan_for_the_published_draft(
    walk_hub: HubEmulator, capsys: pytest.CaptureFixture[str]
) -> None:
    done = cli_in_process(capsys, "overview", URL)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert f"reference: {KIMI_REFERENCE}" in out, out
    assert "training volume: 400,000 samples, published" in out, out
    assert "ours is missing" not in out, out
    assert f"{PUB}'s published GSM8K AL" not in out, out
    assert f"3.271 ({KIMI_REFERENCE}'s published GSM8K AL" in out, out
    assert "its config could not be read" not in out, out
    done = cli_in_process(capsys, "plan", URL)
    assert done.returncode == 0, done.stderr
    head = done.stdout.splitlines()[0]
    assert f"(from {KIMI_REFERENCE} at (3,1,4) on gsm8k" in head and "Overview's reference" in head, head
    samples = next(ln for ln in done.stdout.splitlines() if ln.startswith("training samples"))
    assert "400,000" in samples and "published" in samples, samples
    data = json.loads(cli_in_process(capsys, "plan", URL, "--json").stdout)
    own = [s for s in data["sources"] if "your training samples" in s["text"]]
    assert [s["kind"] for s in own] == ["publication"], own


def test_overview_page_for_the_published_draft(walk_hub: HubEmulator) -> None:
    at = page_app("../pages/overview.py", timeout=120)
    at.query_params["draft"] = URL
    at.run()
    assert not at.exception, at.exception
    assert at.session_state["ov_ref"] == KIMI_REFERENCE
    text = page_text(at)
    assert "Training volume:** ours" in text and "400K samples" in text, text
    assert "ours is missing" not in text, text
    assert f"{PUB}'s published GSM8K AL" not in text, text
    assert f"{KIMI_REFERENCE}'s published GSM8K AL" in text, text
    assert "its config could not be read" not in text, text


# --- your acceptance where two engines measured the published chain


def _engine_runs() -> dict[str, int]:
    """The walk's group: SGLang #4 (3,1,4) at 2.79, then vLLM at num_steps 3 (no topk, draft tokens) at 2.61 at
    batch 1 and again at batch 8 (the fastest pair, which Overview leads live speed with)."""
    store = bench_store()
    ids = {}
    for label, engine, steps, topk, ndt, tok_s, al, batch in (
        ("sg-base", "sglang", None, None, None, 48.0, None, 1),
        ("sg3", "sglang", 3, 1, 4, 88.7, 2.7907, 1),
        ("vl-base", "vllm", None, None, None, 42.98, None, 1),
        ("vl3", "vllm", 3, None, None, 79.01, 2.6087, 1),
        ("vl-base8", "vllm", None, None, None, 342.37, None, 8),
        ("vl3-8", "vllm", 3, None, None, 619.19, 2.6087, 8),
    ):
        cfg = {
            "engine": engine,
            "version": "0.0.0-fake",
            "model": TARGET,
            "speculative_algorithm": "EAGLE3" if steps else None,
            "draft_model": "/data/kimi-k27-code-eagle3-own" if steps else None,
            "num_steps": steps,
            "topk": topk,
            "num_draft_tokens": ndt,
        }
        summary = {"requests": 8, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": al}
        ids[label] = store_run(store, cfg, summary, group="kimi27-code", concurrency=batch)
    store.close()
    return ids


def _runs() -> list[Any]:
    store = bench_store()
    try:
        return list(store.runs(group="kimi27-code"))
    finally:
        store.close()


def test_your_acceptance_names_the_other_engines_run_at_the_same_chain_and_batch() -> None:
    ids = _engine_runs()
    runs = _runs()
    settings_ = overview.reference_settings(PUB)
    mine = overview.own_acceptance(runs, settings_, draft="kimi-k27-code-eagle3-own")
    # no engine known: the run on the engine live speed is served with (the batch-8 vLLM pair; walk BM)
    assert mine is not None and mine.run.id == ids["vl3"], mine
    assert f"SGLang run #{ids['sg3']} measured 2.79 at the same chain and batch" in mine.why, mine.why
    assert "the run on the engine your live speed is served with (vLLM)" in mine.why, mine.why
    assert "states no engine" in mine.why, mine.why
    on_sglang = overview.own_acceptance(runs, settings_, draft="kimi-k27-code-eagle3-own", engine="sglang")
    assert on_sglang is not None and on_sglang.run.id == ids["sg3"], on_sglang
    assert f"vLLM run #{ids['vl3']} measured 2.61 at the same chain and batch" in on_sglang.why, on_sglang.why
