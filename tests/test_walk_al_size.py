"""Walk AL finding 2 (an EAGLE-3 draft of lmsys/vicuna-13b-v1.3 in speculators format, acme-vicuna13b-eagle3, against
the EAGLE-1 reference yuhuili/EAGLE-Vicuna-13B-v1.3; both over the same 32,000-token vocabulary):

- the size line said "ours is 1.73 times the size of the reference with its lm_head; 1.28 times ... in its layers
  ..., the figure the answer uses (the lm_heads differ: another draft vocabulary)". Both vocabularies are 32,000
  tokens: the EAGLE-1 reference has no lm_head of its own (it uses the target's), which is what differs.
- the headline said "The largest gap is size: your draft is 1.28 times the size of the reference": a draft larger
  than the reference is short of nothing there, so size is no gap to close (no headline without a real gap).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from comparelib.analysis import overview
from comparelib.models import comparison
from tests.fixtures import cli_in_process

REFERENCE = "yuhuili/EAGLE-Vicuna-13B-v1.3"  # EAGLE-1: no lm_head of its own
EAGLE3_PUBLISHED = "yuhuili/EAGLE3-Vicuna1.3-13B"

# the walk's draft (repro make_data.py): speculators EAGLE-3, 1 layer, hidden 5,120, draft vocabulary 32,000
CONFIG = {
    "architectures": ["Eagle3Speculator"],
    "speculators_model_type": "eagle3",
    "speculators_version": "0.9.0",
    "draft_vocab_size": 32000,
    "target_hidden_size": 5120,
    "norm_before_residual": False,
    "embed_requires_grad": False,
    "eagle_aux_hidden_state_layer_ids": [2, 20, 37],
    "torch_dtype": "bfloat16",
    "transformer_layer_config": {
        "model_type": "llama",
        "hidden_size": 5120,
        "intermediate_size": 13824,
        "num_attention_heads": 40,
        "num_key_value_heads": 40,
        "head_dim": 128,
        "num_hidden_layers": 1,
        "vocab_size": 32000,
        "rms_norm_eps": 1e-06,
        "max_position_embeddings": 2048,
        "attention_bias": False,
        "mlp_bias": False,
        "hidden_act": "silu",
        "rope_theta": 10000.0,
        "tie_word_embeddings": False,
    },
    "speculators_config": {
        "algorithm": "eagle3",
        "proposal_methods": [
            {"proposal_type": "greedy", "speculative_tokens": 3, "verifier_accept_k": 1, "accept_tolerance": 0.0}
        ],
        "default_proposal_method": "greedy",
        "verifier": {"name_or_path": "lmsys/vicuna-13b-v1.3", "architectures": ["LlamaForCausalLM"]},
    },
}


@pytest.fixture
def draft_dir(tmp_path: Path) -> Path:
    d = tmp_path / "acme-vicuna13b-eagle3"
    d.mkdir()
    (d / "config.json").write_text(json.dumps(CONFIG))
    return d


def _load(source: str) -> comparison.Entry:
    return comparison.load_entry(source, with_header=False, with_card=False)


# ------------------------------------------------------------------ the reason the lm_heads differ


def test_size_facts_say_the_eagle1_reference_has_no_lm_head_of_its_own() -> None:
    own = _load(comparison.registry_source(EAGLE3_PUBLISHED))  # the walk's page: the EAGLE-3 draft pasted as yours
    ref = _load(comparison.registry_source(REFERENCE))
    size = overview.size_facts(own, ref, "our draft", REFERENCE)
    assert size.ref_lm_head == 0 and size.own_lm_head == 32000 * 5120
    assert size.own_lm_rows == 32000  # the same vocabulary as the reference's (and the target's)
    said = size.heads_differ
    assert "another draft vocabulary" not in said
    assert f"{REFERENCE} has no lm_head of its own" in said and "the target's" in said
    assert "EAGLE-1" in said
    # the "why" bullet says so too, not only that the lm_head accounts for part of the difference
    assert f"{REFERENCE} has no lm_head of its own" in size.sentence


def test_cli_size_line_names_what_differs(capsys: pytest.CaptureFixture[str], draft_dir: Path) -> None:
    out = cli_in_process(capsys, "overview", str(draft_dir), "--reference", REFERENCE).stdout
    line = next(x for x in out.splitlines() if x.startswith("- Size outside the embedding"))
    assert "another draft vocabulary" not in line
    assert "1.28 times the size of it in its layers (outside the embedding and the lm_head)" in line
    assert f"({REFERENCE} has no lm_head of its own: an EAGLE-1/2 draft uses the target's)" in line
    assert "with our lm_head" in line  # the reference has none to count "with its lm_head"


# ------------------------------------------------------------------ a larger draft is no size gap


def test_a_larger_draft_is_no_size_gap() -> None:
    name, said = overview.largest_gap(
        data_ratio=None, size_ratio=1.28, size_scope=overview.LAYERS_SCOPE, accept_ratio=None
    )
    assert name == ""
    assert "largest gap" not in said.lower()
    assert "1.28 times the size of the reference in its layers" in said
    assert "no shortfall" in said


def test_a_larger_draft_leaves_the_next_real_gap_as_the_headline() -> None:
    name, said = overview.largest_gap(
        data_ratio=2.0,
        size_ratio=1.28,
        size_scope=overview.LAYERS_SCOPE,
        accept_ratio=1.5,
        accept_same_setting=True,
        own_volume=60_000,
        ref_volume=120_000,
    )
    assert name == "training data"  # the largest real shortfall; size (ours larger) is none
    assert said.startswith("The largest gap is training data")
    others = said.split("The others are smaller (", 1)[1].split(")", 1)[0]
    assert "acceptance" in others and "size" not in others
    assert "1.28 times the size of the reference in its layers" in said and "no shortfall" in said


def test_a_smaller_draft_still_names_a_size_gap() -> None:
    name, said = overview.largest_gap(data_ratio=None, size_ratio=0.6, accept_ratio=None)
    assert name == "size"
    # the only factor known: the only gap known, not the largest (walk BS 4)
    assert said.startswith("The only gap known is size: your draft is 60% the size of the reference")


def test_cli_headline_of_the_walk(capsys: pytest.CaptureFixture[str], draft_dir: Path) -> None:
    """The walk's command with 120,000 samples typed in (1.76x the reference's 68K): nothing is a real gap."""
    out = cli_in_process(capsys, "overview", str(draft_dir), "--reference", REFERENCE, "--samples", "120000").stdout
    head = out.split("\n\n", 1)[1].splitlines()[0]
    assert "largest gap" not in head.lower()
    assert "Your draft is 1.28 times the size of the reference in its layers" in head
    assert "ahead in more training data (1.76x the reference's)" in head


def test_cli_headline_with_size_alone_says_what_is_not_known(
    capsys: pytest.CaptureFixture[str], draft_dir: Path
) -> None:
    out = cli_in_process(capsys, "overview", str(draft_dir), "--reference", REFERENCE).stdout
    head = out.split("\n\n", 1)[1].splitlines()[0]
    assert "The largest gap is size" not in head
    assert "no shortfall" in head
    assert "Not known yet:" in head  # "no real gap" from size alone is thin: what is missing is said


def test_the_walks_headline_with_its_runs() -> None:
    """The walk's inputs with its run group: acceptance measured at other settings than the published (2.03x),
    120K samples against 68K, ours 1.28 times the reference in its layers. It read "The largest gap is size"."""
    detail = "the reference's HumanEval 5.41 is 2.03 times our 2.67 (GSM8K 4.79 is higher too)"
    name, said = overview.largest_gap(
        data_ratio=68_000 / 120_000,
        size_ratio=1.28,
        size_scope=overview.LAYERS_SCOPE,
        accept_ratio=5.41 / 2.67,
        accept_same_setting=False,
        accept_detail=detail,
        own_volume=120_000,
        ref_volume=68_000,
    )
    assert name == ""
    assert "largest gap" not in said.lower()
    assert said.startswith(f"Acceptance differs: {detail}, but at different settings (not like for like).")
    assert "1.28 times the size of the reference in its layers" in said and "no shortfall" in said
    assert said.endswith("Your draft is ahead in more training data (1.76x the reference's), so it is not a gap.")
