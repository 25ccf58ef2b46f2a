"""Compare drafts with walk R's data: a Qwen3-235B-A22B-Instruct-2507 EAGLE-3 draft on the Hub (its card names the
target), the same draft in a local folder whose model.safetensors is a header without its data, and the published
lmsys/SGLang-EAGLE3-Qwen3-235B-A22B-Instruct-2507-SpecForge-Meituan (a SpecForge template config in the registry).

1. The local folder's truncated checkpoint was blamed on the target: "the target your draft's model card names,
   Qwen/..., could not be read (.../model.safetensors: tensor ... outside the file's 0-byte data section)".
2. The published draft's ``stored`` count came from a template config, shown as exact beside counts read from
   checkpoint headers.
3. The published draft's draft/target ratio was blank although its target's config had been read for your draft.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.fixtures import cli_in_process, page_text, routed_compare
from tests.hub_emulator import HubEmulator, write_safetensors_bytes

DRAFT = "walkr-lab/qwen3-235b-eagle3-r"
TARGET = "Qwen/Qwen3-235B-A22B-Instruct-2507"
PUBLISHED = "lmsys/SGLang-EAGLE3-Qwen3-235B-A22B-Instruct-2507-SpecForge-Meituan"
H, INTER = 4096, 12288
TARGET_CONFIG: dict[str, Any] = {
    "architectures": ["Qwen3MoeForCausalLM"],
    "model_type": "qwen3_moe",
    "hidden_size": H,
    "num_hidden_layers": 94,
    "num_attention_heads": 64,
    "num_key_value_heads": 4,
    "head_dim": 128,
    "vocab_size": 151936,
    "intermediate_size": 12288,
    "moe_intermediate_size": 1536,
    "num_experts": 128,
    "num_experts_per_tok": 8,
    "decoder_sparse_step": 1,
    "mlp_only_layers": [],
    "norm_topk_prob": True,
    "max_position_embeddings": 262144,
    "rope_theta": 5000000,
    "rms_norm_eps": 1e-6,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}
DRAFT_CONFIG: dict[str, Any] = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "model_type": "llama",
    "hidden_size": H,
    "intermediate_size": INTER,
    "num_hidden_layers": 1,
    "num_attention_heads": 64,
    "num_key_value_heads": 4,
    "head_dim": 128,
    "vocab_size": 151936,
    "draft_vocab_size": 32000,
    "max_position_embeddings": 262144,
    "rope_theta": 5000000,
    "rms_norm_eps": 1e-6,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 46, 90], "use_aux_hidden_state": True},
}
TENSORS: dict[str, tuple[tuple[int, ...], str]] = {
    "midlayer.self_attn.q_proj.weight": ((8192, 8192), "BF16"),
    "midlayer.self_attn.k_proj.weight": ((512, 8192), "BF16"),
    "midlayer.self_attn.v_proj.weight": ((512, 8192), "BF16"),
    "midlayer.self_attn.o_proj.weight": ((4096, 8192), "BF16"),
    "midlayer.mlp.gate_proj.weight": ((INTER, H), "BF16"),
    "midlayer.mlp.up_proj.weight": ((INTER, H), "BF16"),
    "midlayer.mlp.down_proj.weight": ((H, INTER), "BF16"),
    "midlayer.input_layernorm.weight": ((H,), "BF16"),
    "midlayer.hidden_norm.weight": ((H,), "BF16"),
    "midlayer.post_attention_layernorm.weight": ((H,), "BF16"),
    "fc.weight": ((H, 3 * H), "BF16"),
    "norm.weight": ((H,), "BF16"),
    "lm_head.weight": ((32000, H), "BF16"),
    "d2t": ((32000,), "I64"),
    "t2d": ((151936,), "BOOL"),
}
CARD = f"---\nbase_model: {TARGET}\ntags:\n- eagle3\n---\n# {DRAFT}\nEAGLE-3 draft for {TARGET}.\n"
STORED = 441_466_880  # the header's parameter elements: every tensor above but d2t/t2d


def _setup(hub: HubEmulator, tmp_path: Path) -> Path:
    """The walk's Hub repos, and the draft's local copy whose model.safetensors is its header alone."""
    hub.add_model(TARGET, TARGET_CONFIG)
    hub.add_model(DRAFT, DRAFT_CONFIG, tensors=TENSORS, card=CARD)
    folder = tmp_path / "drafts" / "qwen3-235b-eagle3-r"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(DRAFT_CONFIG))
    (folder / "README.md").write_text(CARD)
    (folder / "model.safetensors").write_bytes(write_safetensors_bytes(TENSORS, fill=False))
    return folder


def _compare(*sources: str) -> AppTest:
    """Compare drafts through the router, with the walk's draft in the sidebar and ``sources`` in the link."""
    return routed_compare(DRAFT, m=list(sources))


def test_your_drafts_own_truncated_checkpoint_is_said_as_the_drafts_not_the_targets(
    hub: HubEmulator, tmp_path: Path
) -> None:
    folder = _setup(hub, tmp_path)
    at = _compare(DRAFT, str(folder))
    assert at.text_input(key="compare_target").value == TARGET  # from the card, as in the walk
    said = [w.value for w in at.warning] + [e.value for e in at.error]
    blamed = [s for s in said if "could not be read" in s and TARGET in s and "model.safetensors" in s]
    assert not blamed, blamed  # the target was read; the folder's own checkpoint is what is broken
    errors = [e.value for e in at.error if str(folder) in e.value]
    assert len(errors) == 1, said
    error = errors[0]
    assert "0-byte data section" in error and "own checkpoint" in error, error
    assert "Copy model.safetensors" in error and "config.json alone" in error, error  # what to do
    assert TARGET not in error, error
    table = at.dataframe[0].value.set_index("draft")
    assert table.loc[table.index[0], "target"].startswith(TARGET)  # the Hub draft is still shown with its target


def test_a_target_your_draft_names_that_cannot_be_read_is_still_said_as_the_targets(
    hub: HubEmulator, tmp_path: Path
) -> None:
    """The other side of 1: the card's target missing from the Hub is the target's, and the draft is still shown."""
    folder = _setup(hub, tmp_path)
    (folder / "model.safetensors").write_bytes(write_safetensors_bytes(TENSORS))  # a whole checkpoint
    missing = "Qwen/Qwen3-235B-A22B-Instruct-2507-missing"
    (folder / "README.md").write_text(CARD.replace(TARGET, missing))
    at = routed_compare(str(folder), m=[str(folder)])
    assert not at.error, [e.value for e in at.error]
    warned = [w.value for w in at.warning if "could not be read" in w.value]
    assert warned and missing in warned[0] and "shown without it" in warned[0], warned
    assert "qwen3-235b-eagle3-r" in set(at.dataframe[0].value["draft"])


def _row(at: AppTest, label: str) -> pd.Series:
    table = at.dataframe[0].value
    return table[table["draft"].str.startswith(label)].iloc[0]


def test_a_template_configs_stored_count_is_not_shown_as_read(hub: HubEmulator, tmp_path: Path) -> None:
    _setup(hub, tmp_path)
    at = _compare(f"registry:{PUBLISHED}", DRAFT)
    published, own = _row(at, PUBLISHED), _row(at, DRAFT)
    assert pd.isna(published["stored"]), published["stored"]  # a template's count is no checkpoint's
    assert "template" in published["counts_from"] and "not read" in published["counts_from"], published
    assert own["stored"] == STORED and own["counts_from"] == "config.json and its checkpoint header"
    assert "SpecForge template" in page_text(at)  # said under the table, beside the estimate


def test_a_published_draft_shares_the_target_read_for_your_draft(hub: HubEmulator, tmp_path: Path) -> None:
    _setup(hub, tmp_path)
    at = _compare(f"registry:{PUBLISHED}", DRAFT)
    published, own = _row(at, PUBLISHED), _row(at, DRAFT)
    assert own["draft_to_target"] > 0
    target_total = own["excluding_embedding"] / own["draft_to_target"]
    assert published["draft_to_target"] == pytest.approx(published["excluding_embedding"] / target_total, abs=1e-5)
    assert published["target"] == TARGET
    assert DRAFT in published["target_size_from"], published["target_size_from"]


def test_a_published_drafts_blank_ratio_says_why(hub: HubEmulator, tmp_path: Path) -> None:
    """With no draft here whose target was read, the ratio stays blank and the page says why and what to do."""
    _setup(hub, tmp_path)
    at = _compare(f"registry:{PUBLISHED}")
    published = _row(at, PUBLISHED)
    assert pd.isna(published["draft_to_target"])
    why = published["target_size_from"]
    assert "not shipped" in why and "target" in why, why
    assert any(PUBLISHED in c.value and "not shipped" in c.value for c in at.caption), page_text(at)


# ------------------------------------------------------------------ the CLI, as the page


@pytest.fixture
def empty_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPECDRAFT_DB", f"sqlite:///{tmp_path / 'runs.sqlite'}")


def test_compare_csv_and_json_say_what_each_count_comes_from(
    hub: HubEmulator, tmp_path: Path, empty_db: None, capsys: pytest.CaptureFixture[str]
) -> None:
    _setup(hub, tmp_path)
    done = cli_in_process(capsys, "compare", f"registry:{PUBLISHED}", DRAFT, "--format", "json")
    assert done.returncode == 0, done.stderr
    rows = {r["draft"].split("@")[0]: r for r in json.loads(done.stdout)}
    published, own = rows[PUBLISHED], rows[DRAFT]
    assert published["stored"] is None and published["counts_from"].startswith("estimated from a SpecForge template")
    assert own["stored"] == STORED and own["counts_from"] == "config.json and its checkpoint header"
    assert published["draft_to_target"] == pytest.approx(
        published["excluding_embedding"] * own["draft_to_target"] / own["excluding_embedding"], abs=1e-4
    )  # JSON rounds the ratio to 4 decimals
    assert published["target_size_from"].startswith(f"read for {DRAFT}@")
    assert f"{PUBLISHED}: counts estimated from a SpecForge template" in done.stderr  # said beside the table

    alone = cli_in_process(capsys, "compare", f"registry:{PUBLISHED}", "--format", "csv")
    assert alone.returncode == 0, alone.stderr
    assert "not shipped with the app" in alone.stdout  # target_size_from: why draft_to_target is blank
    assert "no draft/target ratio" in alone.stderr and f"--target {TARGET} --target-all" in alone.stderr


def test_params_names_the_drafts_own_truncated_checkpoint(
    hub: HubEmulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _setup(hub, tmp_path)
    done = cli_in_process(capsys, "params", str(folder))
    assert done.returncode == 2
    assert "the draft's own checkpoint could not be read" in done.stderr and "config.json alone" in done.stderr
    assert "--no-header" in done.stderr  # the CLI's own way round it


def test_params_of_a_template_says_its_counts_are_estimates(capsys: pytest.CaptureFixture[str]) -> None:
    done = cli_in_process(capsys, "params", f"registry:{PUBLISHED}")
    assert done.returncode == 0, done.stderr
    assert "note: counts estimated from a SpecForge template config" in done.stdout, done.stdout
    assert not [line for line in done.stdout.splitlines() if line.strip().startswith("stored ")], done.stdout
    as_json = json.loads(cli_in_process(capsys, "params", f"registry:{PUBLISHED}", "--json").stdout)
    assert as_json["counts_estimated"] is True and "template" in as_json["counts_from"]
