"""``audit-dump --config`` takes a Hub draft as the Dataset audit page takes the sidebar's (walk S, finding 8a).

The walk's ``audit-dump … --config walks-lab/llama33-70b-eagle3-speculators`` stopped at "draft config not found"
while the page checked the same dump against that private Hub draft. Both read it through
``dumps.load_draft_config`` (the page's sidebar draft through ``dumps.draft_config_of`` on the same entry).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from comparelib.audit import dumps
from comparelib.errors import CompareError, InputError
from tests import dump_fixtures as fx
from tests.checkpoints import TINY_SPECULATORS
from tests.fixtures import cli_in_process
from tests.hub_emulator import HubEmulator

DRAFT = "lab/tiny-eagle3-speculators"
CONFIG: dict[str, Any] = {
    **TINY_SPECULATORS,
    "draft_vocab_size": 64,
    "target_hidden_size": fx.HIDDEN,
    "eagle_aux_hidden_state_layer_ids": [2, fx.N_LAYERS // 2, fx.N_LAYERS - 3],
    "transformer_layer_config": {
        **TINY_SPECULATORS["transformer_layer_config"],
        "hidden_size": fx.HIDDEN,
        "head_dim": 8,
        "vocab_size": fx.VOCAB,
    },
}


@pytest.fixture
def private_draft(hub: HubEmulator, monkeypatch: pytest.MonkeyPatch) -> HubEmulator:
    hub.add_model(DRAFT, CONFIG, private=True)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.delenv("HUGGING_FACE_HUB_TOKEN", raising=False)
    return hub


@pytest.mark.parametrize("source", [DRAFT, f"https://huggingface.co/{DRAFT}", f"{DRAFT}@main"])
def test_load_draft_config_reads_a_hub_draft(
    private_draft: HubEmulator, monkeypatch: pytest.MonkeyPatch, source: str
) -> None:
    monkeypatch.setenv("HF_TOKEN", private_draft.token)
    assert dumps.load_draft_config(source) == CONFIG


def test_load_draft_config_keeps_local_files(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"hidden_size": 32}))
    assert dumps.load_draft_config(str(tmp_path)) == {"hidden_size": 32}
    assert dumps.load_draft_config(str(tmp_path / "config.json")) == {"hidden_size": 32}
    with pytest.raises(InputError, match="no such file"):
        dumps.load_draft_config(str(tmp_path / "missing"))


def test_cli_audit_dump_config_from_the_hub(
    private_draft: HubEmulator,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = fx.build_dump(tmp_path / "hs", "speculators", n_files=2)
    # without a token the private repo is not found: one message naming HF_TOKEN, exit 2
    done = cli_in_process(capsys, "audit-dump", str(root), "--config", DRAFT, "--json")
    assert done.returncode == 2 and "HF_TOKEN" in done.stderr, done.stderr
    assert "draft config not found" not in done.stderr

    monkeypatch.setenv("HF_TOKEN", private_draft.token)
    done = cli_in_process(capsys, "audit-dump", str(root), "--config", DRAFT, "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)["summary"]
    assert summary["target_hidden_size"] == fx.HIDDEN  # from the Hub draft's config


def test_a_target_is_no_draft_config(hub: HubEmulator) -> None:
    from tests.checkpoints import TINY_LLAMA

    hub.add_model("lab/tiny-target", TINY_LLAMA)
    with pytest.raises(CompareError, match="not a draft"):
        dumps.load_draft_config("lab/tiny-target")
