"""Walk AN, two minor findings.

AN-a. Overview said of its reference "RedHatAI/gpt-oss-20b-speculator.eagle3's is not known: the registry has no
      config for it" though the repo is public and Compare drafts read its config in the same session (307,641,600
      parameters outside the embedding, as the user's draft). A reference without a shipped config is now read from
      the Hub as Compare reads it (the session's token where given); "not known" is said only when it could not be
      read, and why (gated, not found, the Hub not reached).
AN-b. openai/gpt-oss-20b pasted as "your draft" was flagged on Overview and Compare ("is a target model"), while
      Acceptance vs data only listed "7 runs of another draft left out". It now says the same sentence
      (``models.draft.target_notice``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.fixtures import page_app
from tests.hub_emulator import HubEmulator

REDHAT = "RedHatAI/gpt-oss-20b-speculator.eagle3"
TARGET = "openai/gpt-oss-20b"
DRAFT = "gptosslab/gpt-oss-20b-eagle3-v1"


def _speculators(verifier: str = TARGET) -> dict[str, Any]:
    """The RedHatAI draft's config as the walk's Hub had it (speculators format, naming its verifier)."""
    return {
        "architectures": ["Eagle3Speculator"],
        "speculators_model_type": "eagle3",
        "speculators_version": "0.2.0",
        "draft_vocab_size": 32000,
        "norm_before_residual": False,
        "target_hidden_size": None,
        "transformer_layer_config": {
            "model_type": "llama",
            "hidden_size": 2880,
            "intermediate_size": 17280,
            "num_attention_heads": 64,
            "num_key_value_heads": 8,
            "head_dim": 64,
            "num_hidden_layers": 1,
            "vocab_size": 201088,
            "rms_norm_eps": 1e-05,
            "max_position_embeddings": 131072,
            "attention_bias": False,
            "mlp_bias": False,
        },
        "speculators_config": {
            "algorithm": "eagle3",
            "default_proposal_method": "greedy",
            "proposal_methods": [{"proposal_type": "greedy", "speculative_tokens": 3}],
            "verifier": {"name_or_path": verifier, "architectures": ["GptOssForCausalLM"]},
        },
        "torch_dtype": "bfloat16",
    }


def _hub(hub: HubEmulator, *, gated: bool = False) -> None:
    from comparelib.models import architectures

    hub.add_model(TARGET, json.loads(json.dumps(architectures.known_target(TARGET))))
    hub.add_model(DRAFT, _speculators())
    hub.add_model(REDHAT, _speculators(), gated=gated)


def _overview(hub: HubEmulator, token: bool) -> Any:
    import streamlit as st

    st.cache_data.clear()  # a repo read by an earlier test's emulator is not this one's
    at = page_app("pages/overview.py", timeout=180)
    at.query_params.update({"draft": DRAFT})
    at.run()
    if token:
        at.sidebar.text_input(key="hub_token").set_value(hub.token).run()
    assert not at.exception, at.exception
    assert at.selectbox(key="ov_ref").value == REDHAT
    return at


def _said(at: Any) -> str:
    return "\n".join(m.value for m in at.markdown) + "\n".join(c.value for c in at.caption)


def test_overview_reads_a_public_reference_config_from_the_hub(hub: HubEmulator) -> None:
    _hub(hub)
    at = _overview(hub, token=False)
    said = _said(at)
    assert "is not known" not in said, said
    # both sizes counted: the reference's as Compare counts it, equal to yours
    assert said.count("307,641,600") >= 2, said
    # the suggestion's reason no longer says its size is not known
    assert "so its size is not known" not in said, said


def test_overview_says_why_a_gated_reference_is_not_known(hub: HubEmulator) -> None:
    _hub(hub, gated=True)
    at = _overview(hub, token=False)
    md = "\n".join(m.value for m in at.markdown)
    assert f"{REDHAT}'s is not known: the registry has no config for it" in md, md
    assert "gated" in md, md
    # with the session's token the same page reads it
    at.sidebar.text_input(key="hub_token").set_value(hub.token).run()
    assert not at.exception, at.exception
    md = "\n".join(m.value for m in at.markdown)
    assert "is not known" not in md and md.count("307,641,600") >= 2, md


def test_cli_overview_reads_the_reference_from_the_hub(
    hub: HubEmulator, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.fixtures import cli_in_process

    _hub(hub)
    done = cli_in_process(capsys, "overview", DRAFT)
    assert done.returncode == 0, done.stderr
    assert f"against {REDHAT}" in done.stdout, done.stdout
    assert "is not known" not in done.stdout and done.stdout.count("307,641,600") >= 2, done.stdout


def test_acceptance_vs_data_says_a_pasted_target_is_a_target(hub: HubEmulator) -> None:
    _hub(hub)
    at = page_app("pages/scaling.py", timeout=180)
    at.query_params.update({"draft": TARGET})
    at.run()
    assert not at.exception, at.exception
    warned = [w.value for w in at.warning]
    assert any(w.startswith(f"{TARGET} is a target model") and "not a draft" in w for w in warned), warned
