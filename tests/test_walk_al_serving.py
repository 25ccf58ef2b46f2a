"""Walk AL (finding 1): "Will it serve?" gave the built-in yuhuili/EAGLE3-Vicuna1.3-13B "no verdict ... the engines'
rules know no EAGLE-3 target class for lmsys/vicuna-13b-v1.3" (page and ``params registry:...``), though that target
is a LlamaForCausalLM: on the page its config was read for the user's own draft on the same target (which got
verdicts, and whose size the registry row took), and the lint on the same row said "only its number of layers was
given". The EAGLE-1 row said "this is a eagle1 draft"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from comparelib.__main__ import main
from comparelib.models import comparison, lint
from tests.fixtures import page_app, page_text
from tests.hub_emulator import HubEmulator

TARGET = "lmsys/vicuna-13b-v1.3"
PUBLISHED = "yuhuili/EAGLE3-Vicuna1.3-13B"
VICUNA = {
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 5120,
    "intermediate_size": 13824,
    "max_position_embeddings": 2048,
    "model_type": "llama",
    "num_attention_heads": 40,
    "num_hidden_layers": 40,
    "rms_norm_eps": 1e-06,
    "tie_word_embeddings": False,
    "torch_dtype": "float16",
    "vocab_size": 32000,
}


def _own_draft(folder: Path, verifier: str) -> Path:
    """The walk's own draft: a speculators EAGLE-3 config naming its target (config only)."""
    folder.mkdir(parents=True, exist_ok=True)
    layer = {
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
        "tie_word_embeddings": False,
    }
    cfg = {
        "architectures": ["Eagle3Speculator"],
        "speculators_model_type": "eagle3",
        "speculators_version": "0.9.0",
        "draft_vocab_size": 32000,
        "target_hidden_size": 5120,
        "eagle_aux_hidden_state_layer_ids": [2, 20, 37],
        "torch_dtype": "bfloat16",
        "transformer_layer_config": layer,
        "speculators_config": {"algorithm": "eagle3", "verifier": {"name_or_path": verifier}},
    }
    (folder / "config.json").write_text(json.dumps(cfg))
    return folder


def test_compare_gives_the_published_vicuna_draft_the_verdicts_of_the_target_config_read_on_the_page(
    hub: HubEmulator, tmp_path: Path
) -> None:
    hub.add_repo(TARGET, {"config.json": json.dumps(VICUNA).encode()})
    own = _own_draft(tmp_path / "acme-vicuna13b-eagle3", TARGET)
    at = page_app("pages/compare.py", timeout=180).run()
    assert not at.exception, at.exception
    at.multiselect(key="compare_picks").set_value([PUBLISHED, "yuhuili/EAGLE-Vicuna-13B-v1.3"])
    at.text_area(key="compare_urls").set_value(str(own))
    at.text_input(key="compare_target").set_value("")
    at.button[0].click().run()
    assert not at.exception, at.exception
    text = page_text(at) + "\n" + "\n".join(s.value for s in at.success)
    assert "Will it serve?" in text, text
    assert f"**{PUBLISHED}**: no verdict" not in text, text  # the walk: "... know no EAGLE-3 target class ..."
    assert "know no EAGLE-3 target class" not in text, text
    assert "only its number of layers was given" not in text, text
    assert "this is a eagle1 draft" not in text, text
    assert (
        "**yuhuili/EAGLE-Vicuna-13B-v1.3**: no verdict on whether each engine serves it: the engines' rules here are "
        "for EAGLE-3 drafts; this is an EAGLE-1 draft" in text
    ), text
    # as the Hub copy of the same draft on its target (the walk: "Serves the trained blocks on SGLang 0.5.23, ...")
    assert f"**{PUBLISHED}**: Serves the trained blocks on SGLang 0.5.23" in text, text


def test_params_gives_the_registry_vicuna_draft_a_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["params", f"registry:{PUBLISHED}"]) == 0
    out = capsys.readouterr().out
    assert "will it serve: no verdict" not in out, out
    assert "SGLang 0.5.23: ok" in out, out
    assert "only its number of layers was given" not in out, out


def test_a_target_of_unknown_family_is_said_as_such_by_the_verdict_and_the_lint(
    hub: HubEmulator, tmp_path: Path
) -> None:
    """A target known by name only (its config not read, its name no family the rules know): both the serving row
    and the lint note say the target's config is what is missing, not "only its number of layers was given"."""
    own = _own_draft(tmp_path / "mystery-draft", "acme/mystery-13b")  # not on the Hub: its config cannot be read
    e = comparison.load_entry(str(own), target_layers=40, with_card=False)
    assert e.target_label == "acme/mystery-13b" and e.target_layers == 40
    why = comparison.no_serving_verdict(e)
    assert why is not None and "acme/mystery-13b" in why, why
    notes = [f.message for f in e.findings if "family is unknown" in f.message]
    assert notes, [f.message for f in e.findings]
    assert all("only its number of layers was given" not in m for m in notes), notes
    assert "config" in why and "not read" in why, why
    assert all("not read" in m for m in notes), notes
    assert lint.unknown_family_note(None) in notes[0]


def test_a_drafts_target_read_for_another_draft_gives_its_class_to_the_serving_rows(
    hub: HubEmulator, tmp_path: Path
) -> None:
    """The rule, for a target no name hint knows: draft B's target (named by its config) could not be read when B
    was loaded; draft A's same target was read. share_targets gives B A's size and the class of that config."""
    name = "acme/mystery-13b"
    b = comparison.load_entry(str(_own_draft(tmp_path / "b", name)), target_layers=40, with_card=False)
    assert b.target_label == name and not b.serving and comparison.no_serving_verdict(b)
    hub.add_repo(name, {"config.json": json.dumps(VICUNA).encode()})
    a = comparison.load_entry(str(_own_draft(tmp_path / "a", name)), with_card=False)
    assert a.serving and a.target_count is not None
    shared = comparison.share_targets([a, b])[1]
    assert shared.target_count == a.target_count
    assert comparison.no_serving_verdict(shared) is None
    assert shared.serving_args["target_arch"] == "LlamaForCausalLM"
    assert [(v.label, v.status) for v in shared.serving] == [(v.label, v.status) for v in a.serving]
    assert not any("family is unknown" in f.message for f in shared.findings), [f.message for f in shared.findings]
