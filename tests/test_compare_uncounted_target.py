"""Walk T: a target whose architecture the parameter counter does not know (inclusionAI/Ling-flash-2.0's
BailingMoeV2ForCausalLM in the walk; a made-up architecture here, so the rule holds for the next one too).

1. Compare said "the target your draft's model card names, X, could not be read (...); shown without it. Give the
   target in the field above" with X already in the field, and told the published draft to "Type X in the target
   field and tick ..." which, done, brought the same messages back.
2. The list of every supported architecture was printed above the answer (Compare and Overview).
3. The target was never counted although its safetensors index and shard headers were readable: its total comes
   from the checkpoint now (stored elements), said as such, with active parameters left unknown.
4. The parameters CSV and ``compare`` left the draft's ``target`` empty while the page named the card's target.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.fixtures import LLAMA31_8B_EAGLE3, cli_in_process, page_text, routed_compare
from tests.hub_emulator import HubEmulator

ARCH = "MadeUpMoeV9ForCausalLM"  # no counter knows it
TARGET = "walkt-lab/MadeUp-MoE-100B"
DRAFT = "walkt-lab/madeup-eagle3"
TARGET_CONFIG: dict[str, Any] = {
    "architectures": [ARCH],
    "model_type": "madeup_moe_v9",
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "vocab_size": 128256,
}
# three shards and an index, as a sharded Hub checkpoint; one F32 router bias per MoE layer, as Ling's expert_bias
TARGET_TENSORS: dict[str, tuple[tuple[int, ...], str]] = {
    "model.word_embeddings.weight": ((128256, 4096), "BF16"),
    **{f"model.layers.{i}.mlp.experts.weight": ((64, 1024, 4096), "BF16") for i in range(4)},
    **{f"model.layers.{i}.mlp.gate.expert_bias": ((64,), "F32") for i in range(4)},
    "lm_head.weight": ((128256, 4096), "BF16"),
}
STORED = sum(math.prod(shape) for shape, _ in TARGET_TENSORS.values())
CARD = f"---\nbase_model: {TARGET}\nlibrary_name: sglang\ntags: [eagle3]\n---\n# {DRAFT}\n"
SUPPORTED_LIST = "LlamaForCausalLMEagle3, Eagle3Speculator"  # the tail of the list the walk saw above the answer


@pytest.fixture(autouse=True)
def _fresh_reads() -> None:
    """The pages cache each read per process: a repo served with headers in one case must be read again."""
    import streamlit as st

    st.cache_data.clear()


def _setup(hub: HubEmulator, *, headers: bool = True) -> None:
    hub.add_model(TARGET, TARGET_CONFIG, tensors=TARGET_TENSORS if headers else None, shards=3)
    hub.add_model(DRAFT, LLAMA31_8B_EAGLE3, card=CARD)


def _row(at: AppTest, label: str) -> pd.Series:
    table = at.dataframe[0].value
    return table[table["draft"].str.startswith(label)].iloc[0]


def test_stored_is_the_sum_of_the_shards_headers() -> None:
    assert STORED == 2 * 128256 * 4096 + 4 * 64 * 1024 * 4096 + 4 * 64


@pytest.mark.parametrize("headers", [True, False])
def test_compare_keeps_the_cards_target_and_counts_it_from_its_checkpoint(hub: HubEmulator, headers: bool) -> None:
    _setup(hub, headers=headers)
    at = routed_compare(DRAFT, m=[DRAFT])
    assert at.text_input(key="compare_target").value == TARGET  # from the card, as in the walk
    said = page_text(at) + "\n".join(e.value for e in at.error)
    # 1: no advice to give what the field holds; 2: no list of architectures above the answer
    assert "Give the target in the field above" not in said and "could not be read" not in said, said
    assert SUPPORTED_LIST not in said and "supported:" not in said, said
    own = _row(at, DRAFT)
    assert own["target"].startswith(TARGET), own  # 4: the CSV's target is the card's, as the page names it
    why = next(c.value for c in at.caption if f"unsupported architecture, {ARCH}" in c.value)
    if headers:  # 3: its total from the checkpoint, and what needs the architecture
        assert own["draft_to_target"] == pytest.approx(own["excluding_embedding"] / STORED, abs=1e-5)
        assert pd.isna(own["draft_to_active"])
        assert "checkpoint" in own["target_size_from"] and ARCH in own["target_size_from"], own
        assert f"{STORED:,} parameters" in why and "active parameters per token" in why, why
    else:
        assert pd.isna(own["draft_to_target"])
        assert "no safetensors checkpoint" in why and "what needs its size is left out" in why, why
        assert ARCH in own["target_size_from"], own
    assert "wiring lint against the target's config (layers 32, hidden 4096, vocabulary 128256)" in why, why
    # the lint checked the ids against the config's 32 layers, on the Llama-like path, and said why
    headline = next(x.value for x in [*at.success, *at.warning, *at.error] if DRAFT in x.value and "[" in x.value)
    assert "target-unknown" not in headline, headline


PUBLISHED = "lmsys/SGLang-EAGLE3-Qwen3-Coder-30B-A3B-Instruct-SpecForge"
CODER = "Qwen/Qwen3-Coder-30B-A3B-Instruct"  # its target: not shipped with the app; served here as a made-up class
CODER_DRAFT = "walkt-lab/coder-eagle3"


def _coder(hub: HubEmulator, headers: bool) -> None:
    cfg = {**TARGET_CONFIG, "hidden_size": 2048, "num_hidden_layers": 48, "vocab_size": 151936}
    tensors = {"model.embed.weight": ((151936, 2048), "BF16"), "lm_head.weight": ((151936, 2048), "BF16")}
    hub.add_model(CODER, cfg, tensors=tensors if headers else None)
    draft = {**LLAMA31_8B_EAGLE3, "hidden_size": 2048, "vocab_size": 151936}
    hub.add_model(CODER_DRAFT, draft, card=CARD.replace(TARGET, CODER).replace(DRAFT, CODER_DRAFT))


@pytest.mark.parametrize("headers", [True, False])
def test_published_drafts_advice_is_never_to_give_what_the_field_holds(hub: HubEmulator, headers: bool) -> None:
    """The walk's loop: the advice, followed (the target in the field, the box ticked, Compare pressed), must not
    come back; the published draft takes the total read for your draft's same target, or says why there is none."""
    _coder(hub, headers)
    at = routed_compare(CODER_DRAFT, m=[CODER_DRAFT, f"registry:{PUBLISHED}"])
    assert at.text_input(key="compare_target").value == CODER
    for tick in (False, True):
        if tick:
            at.checkbox(key="compare_target_all").check()
            at.button[0].click().run()
            assert not at.exception, at.exception
        said = page_text(at) + "\n".join(e.value for e in at.error)
        assert "in the target field and tick" not in said and "Give the target in the field above" not in said
        assert SUPPORTED_LIST not in said, said
        published = _row(at, PUBLISHED)
        assert published["target"] == CODER or published["target"].startswith(CODER), published
        if headers:
            total = 2 * 151936 * 2048
            assert published["draft_to_target"] == pytest.approx(published["excluding_embedding"] / total, abs=1e-5)
        else:
            assert pd.isna(published["draft_to_target"])
            assert f"unsupported architecture, {ARCH}" in published["target_size_from"], published
            assert any(PUBLISHED in c.value and f"unsupported architecture, {ARCH}" in c.value for c in at.caption)


def test_a_draft_of_an_unknown_architecture_keeps_the_list_in_an_expander(hub: HubEmulator) -> None:
    hub.add_model(DRAFT, {**LLAMA31_8B_EAGLE3, "architectures": ["MadeUpDraftForCausalLM"]})
    at = routed_compare(DRAFT, m=[DRAFT])
    error = next(e.value for e in at.error if DRAFT in e.value)
    assert "unsupported architecture MadeUpDraftForCausalLM" in error and SUPPORTED_LIST not in error, error
    listed = [x for x in at.expander if x.label == "Supported architectures"]
    assert listed and SUPPORTED_LIST in " ".join(c.value for c in listed[0].caption), listed


# ------------------------------------------------------------------ the CLI, as the page


@pytest.fixture
def empty_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPECDRAFT_DB", f"sqlite:///{tmp_path / 'runs.sqlite'}")


def test_params_names_the_cards_target_and_its_checkpoints_total(
    hub: HubEmulator, capsys: pytest.CaptureFixture[str]
) -> None:
    _setup(hub)
    done = cli_in_process(capsys, "params", DRAFT)
    assert done.returncode == 0, done.stderr
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("target"))
    assert line.startswith(f"target {TARGET}@") and "from the model card's base_model" in line, line
    assert "draft-to-target ratio" in line and f"{STORED:,} parameters" in line and ARCH in line, line
    assert SUPPORTED_LIST not in done.stdout + done.stderr
    got = json.loads(cli_in_process(capsys, "params", DRAFT, "--json").stdout)
    assert got["target"].startswith(TARGET) and got["target_from"] == "card", got["target"]
    assert got["draft_to_target_ratio"] == pytest.approx(got["params"]["excluding_embedding"] / STORED)
    assert got["draft_to_target_active_ratio"] is None
    no_header = cli_in_process(capsys, "params", DRAFT, "--no-header")
    line = next(ln for ln in no_header.stdout.splitlines() if ln.startswith("target"))
    assert "ratio unknown" in line and "only its config was read here" in line, line


def test_compare_csv_names_the_cards_target(
    hub: HubEmulator, empty_db: None, capsys: pytest.CaptureFixture[str]
) -> None:
    _setup(hub)
    done = cli_in_process(capsys, "compare", DRAFT, "--format", "csv")
    assert done.returncode == 0, done.stderr
    import io

    row = pd.read_csv(io.StringIO(done.stdout)).iloc[0]
    assert row["target"].startswith(TARGET), row
    assert row["draft_to_target"] == pytest.approx(row["excluding_embedding"] / STORED, abs=1e-5)
    assert "checkpoint" in row["target_size_from"], row
    assert f"unsupported architecture, {ARCH}" in done.stderr and "--target" + " " + TARGET not in done.stderr


def test_cli_error_for_an_unknown_architecture_keeps_the_list_as_its_detail(
    hub: HubEmulator, capsys: pytest.CaptureFixture[str]
) -> None:
    hub.add_model(DRAFT, {**LLAMA31_8B_EAGLE3, "architectures": ["MadeUpDraftForCausalLM"]})
    done = cli_in_process(capsys, "params", DRAFT)
    assert done.returncode == 2
    assert done.stderr.startswith("error: unsupported architecture MadeUpDraftForCausalLM: the parameter counter")
    assert "(the parameter counter knows: " in done.stderr and SUPPORTED_LIST in done.stderr, done.stderr


def test_overview_says_why_the_target_is_not_sized_without_the_list(hub: HubEmulator) -> None:
    _setup(hub)
    at = AppTest.from_file(str(Path(__file__).parent.parent / "app.py"), default_timeout=120)
    at.query_params["draft"] = DRAFT
    at.run()
    at.switch_page("pages/overview.py").run()
    assert not at.exception, at.exception
    said = page_text(at) + "\n".join(e.value for e in at.error)
    assert SUPPORTED_LIST not in said and "supported:" not in said, said
    why = [c.value for c in at.caption if f"unsupported architecture, {ARCH}" in c.value]
    assert why and why[0].startswith(f"Your draft's target: {TARGET}@"), said
