"""Walk AH1: a speculators-format EAGLE-3 draft names its target (``speculators_config.verifier.name_or_path``), and
that target was ignored unless the app ships its config.

The walk's draft (a local folder, llama3-8b-eagle3-spec) names meta-llama/Meta-Llama-3-8B-Instruct, which the app
does not ship but the Hub serves (gated) to the session's token. Overview said "target not known" and compared it with
a Llama-3.1 draft of the same shape ("no target named"), ``params`` printed "target: none known; give --target", and
run #9 (the same chain served by meta-llama/Llama-3.1-8B-Instruct) was read as "your acceptance". The README: "Your
draft's target is the one its config names." The config's target is now read as a model card's base_model is: from
the Hub with the session's token; one that cannot be read is still the target by name, and the note says why.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from comparelib import settings
from comparelib.analysis import overview
from comparelib.models import comparison
from comparelib.models.draft import OwnDraft, runs_for_target, target_of
from tests.fixtures import bench_store, cli_in_process, page_app, page_text, store_run
from tests.hub_emulator import HubEmulator

TARGET = "meta-llama/Meta-Llama-3-8B-Instruct"  # not shipped with the app; gated on the Hub
OTHER = "meta-llama/Llama-3.1-8B-Instruct"
REFERENCE = "yuhuili/EAGLE-LLaMA3-Instruct-8B"  # the registry's published draft for TARGET
NAME = "llama3-8b-eagle3-spec"
GROUP = "l3-vllm"

TARGET_CONFIG: dict[str, Any] = {  # the target's config as the Hub serves it
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 128000, "eos_token_id": 128009, "hidden_act": "silu", "hidden_size": 4096,
    "initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 8192, "model_type": "llama",
    "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "pretraining_tp": 1,
    "rms_norm_eps": 1e-05, "rope_scaling": None, "rope_theta": 500000.0, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "transformers_version": "4.40.0.dev0", "use_cache": True, "vocab_size": 128256,
}  # fmt: skip
_LAYER = {k: v for k, v in TARGET_CONFIG.items() if k not in ("architectures", "transformers_version")}
DRAFT_CONFIG: dict[str, Any] = {  # the walk's draft: speculators 0.9 EAGLE-3, its verifier named
    "architectures": ["Eagle3Speculator"], "speculators_model_type": "eagle3", "speculators_version": "0.9.0",
    "draft_vocab_size": 32000, "target_hidden_size": 4096, "norm_before_residual": False, "norm_before_fc": False,
    "fc_norm": False, "norm_output": False, "embed_requires_grad": False,
    "eagle_aux_hidden_state_layer_ids": [2, 16, 29],
    "transformer_layer_config": {**_LAYER, "num_hidden_layers": 1},
    "speculators_config": {
        "algorithm": "eagle3",
        "proposal_methods": [
            {"proposal_type": "greedy", "speculative_tokens": 3, "verifier_accept_k": 1, "accept_tolerance": 0.0}
        ],
        "default_proposal_method": "greedy",
        "verifier": {"name_or_path": TARGET, "architectures": ["LlamaForCausalLM"]},
    },
    "torch_dtype": "bfloat16", "transformers_version": "4.57.0",
}  # fmt: skip
TARGET_TOTAL = 8_030_261_248  # Meta-Llama-3-8B-Instruct counted from its config


@pytest.fixture
def walk(hub: HubEmulator, tmp_path: Path) -> Path:
    """The gated target on the Hub, and the walk's draft as a local folder named as its runs name it."""
    hub.add_model(TARGET, TARGET_CONFIG, gated=True)
    folder = tmp_path / NAME
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(DRAFT_CONFIG))
    return folder


def _store_walk_runs() -> dict[str, int]:
    """Walk AH's vLLM group as the bench page stored it: a baseline and num_steps 2, 3, 4 on the draft's target,
    then num_steps 3 again from a server serving Llama-3.1-8B-Instruct (values from the walk's database)."""
    store = bench_store()
    rows = (  # label, model, num_steps, output tok/s, accept length
        ("baseline", TARGET, None, 169.99, None),
        ("k2", TARGET, 2, 274.01, 2.2069),
        ("k3", TARGET, 3, 333.19, 2.6122),
        ("k4", TARGET, 4, 350.60, 2.9767),
        ("k3-othertarget", OTHER, 3, 305.85, 2.6122),
    )
    ids = {}
    for label, model, steps, tok_s, al in rows:
        cfg = {
            "engine": "vllm",
            "version": "0.0.0-fake",
            "model": model,
            "speculative_algorithm": "unknown" if steps else None,
            "draft_model": NAME if steps else None,
            "num_steps": steps,
        }
        summary = {"requests": 16, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": al}
        ids[label] = store_run(store, cfg, summary, group=GROUP, concurrency=4, endpoint="http://127.0.0.1:18621")
    store.close()
    return ids


def test_the_configs_named_target_is_read_from_the_hub_with_the_token(walk: Path, hub: HubEmulator) -> None:
    with settings.session_token(hub.token):
        entry = comparison.load_entry(str(walk), with_header=False, with_card=False)
    assert (entry.target_label, entry.target_from) == (TARGET, "named")
    assert entry.target_count is not None and entry.target_count.total == TARGET_TOTAL
    assert entry.target_size_from is not None and entry.target_size_from.startswith(f"read: {TARGET}@")
    assert entry.ratio is not None and entry.target_note is None
    assert entry.target_layers == 32


def test_a_named_target_the_hub_refuses_is_still_the_target_and_says_why(walk: Path) -> None:
    """Gated, no token: the target is the one the config names (the pages choose the reference and the runs by
    it); its size is unknown and the note says what its config names, why it could not be read and what to do."""
    entry = comparison.load_entry(str(walk), with_header=False, with_card=False)
    assert (entry.target_label, entry.target_from) == (TARGET, "named")
    assert entry.target_count is None and entry.ratio is None
    note = entry.target_note or ""
    assert f"names {TARGET} as its target (speculators_config.verifier.name_or_path)" in note, note
    assert "could not be read" in note and "gated" in note.lower(), note
    assert "token" in note, note  # what to do
    assert comparison.no_ratio_reason(entry) == note


def test_the_pages_rule_takes_the_named_target_its_reference_and_its_runs(walk: Path, hub: HubEmulator) -> None:
    """``target_of`` (Overview, Acceptance vs data, the CLI's overview) gets the config's target, so the
    reference is the published draft for it and the run served with Llama-3.1 is not the draft's."""
    ids = _store_walk_runs()
    store = bench_store()
    draft = OwnDraft.parse(str(walk), group=GROUP)
    runs = draft.runs(store)
    store.close()
    with settings.session_token(hub.token):
        entry = comparison.load_entry(str(walk), with_header=False, with_card=False)
    target = target_of(draft, runs, entry)
    assert (target.model, target.origin, target.note) == (TARGET, "named", "")
    ref = overview.default_reference(overview.reference_choices(), draft.name, target.model, runs)
    assert ref.hub_id == REFERENCE, ref
    split = runs_for_target(runs, target.model)
    assert [r.id for r in split.left_out] == [ids["k3-othertarget"]]
    # a target typed on Compare drafts does not replace the one the config names, and is said to be set aside
    typed = target_of(draft.with_(target=OTHER), runs, entry)
    assert typed.model == TARGET and "config names none" not in typed.note
    assert f"{OTHER}, the target set on Compare drafts, is not used here" in typed.note, typed.note


def test_params_names_the_configs_target(
    walk: Path, hub: HubEmulator, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HF_TOKEN", hub.token)
    done = cli_in_process(capsys, "params", str(walk), "--no-header")
    assert done.returncode == 0, done.stderr
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("target"))
    assert line.startswith(f"target {TARGET} ({TARGET_TOTAL:,} parameters); draft-to-target ratio"), line
    done = cli_in_process(capsys, "params", str(walk), "--no-header", "--json")
    data = json.loads(done.stdout)
    assert (data["target"], data["target_from"]) == (TARGET, "named"), data


def test_params_without_a_token_names_the_target_and_why_its_size_is_unknown(
    walk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    done = cli_in_process(capsys, "params", str(walk), "--no-header")
    assert done.returncode == 0, done.stderr
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("target"))
    assert line.startswith(f"target {TARGET}; draft-to-target ratio unknown; "), line
    assert "none known" not in line and "could not be read" in line, line


def test_cli_overview_reads_acceptance_from_the_run_on_the_named_target(
    walk: Path, hub: HubEmulator, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = _store_walk_runs()
    monkeypatch.setenv("HF_TOKEN", hub.token)
    done = cli_in_process(capsys, "overview", str(walk), "--group", GROUP, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["reference"]["hub_id"] == REFERENCE, data["reference"]
    assert data["acceptance"]["run_id"] == ids["k4"], data["acceptance"]  # the best pair's, on the named target


def test_registry_drafts_and_the_example_fetch_nothing_from_the_hub(hub: HubEmulator) -> None:
    """Only a draft read from the Hub or a folder reads the target its config names: a published draft keeps its
    registry entry's target and the example its own, without a request."""
    for source in (comparison.registry_source(REFERENCE), comparison.EXAMPLE_OWN):
        comparison.load_entry(source, with_header=False, with_card=False)
    assert hub.requests == []


def test_overview_names_the_configs_target_and_its_published_draft(walk: Path, hub: HubEmulator) -> None:
    """The walk's Overview: the draft, its run group and the session's token."""
    ids = _store_walk_runs()
    at = page_app("../pages/overview.py", timeout=120)
    at.query_params["draft"] = str(walk)
    at.query_params["draft_group"] = GROUP
    at.run()
    assert not at.exception, at.exception
    # before the token: the config's target by name (its reference, its runs), and why its size is unknown
    text = page_text(at)
    assert at.session_state["ov_ref"] == REFERENCE
    assert f"target `{TARGET}` (named by the draft)" in text, text
    assert f"Your draft's target: {NAME}'s config names {TARGET} as its target" in text, text
    assert f"{TARGET} is gated" in text, text
    at.sidebar.text_input(key="hub_token").set_value(hub.token).run()
    assert not at.exception, at.exception
    assert at.session_state["ov_ref"] == REFERENCE
    text = page_text(at)
    assert f"target `{TARGET}` (named by the draft)" in text, text
    assert "target not known" not in text and "no target named" not in text, text
    assert "could not be read" not in text, text  # read with the token
    accept = next(ln for ln in text.splitlines() if "Acceptance" in ln and "run #" in ln)
    # the best comparable pair's run on the named target (the reference publishes no acceptance length)
    assert f"run #{ids['k4']}" in accept and f"run #{ids['k3-othertarget']}" not in accept, accept
    left = f"(#{ids['k3-othertarget']}) was served with {OTHER}, not your draft's target {TARGET}; left out"
    assert left in text, text


def test_plan_aims_at_the_named_target(
    walk: Path, hub: HubEmulator, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _store_walk_runs()
    monkeypatch.setenv("HF_TOKEN", hub.token)
    done = cli_in_process(capsys, "plan", str(walk), "--group", GROUP)
    assert done.returncode == 0, done.stderr
    head = done.stdout.splitlines()[0]  # the target AL's source: aimed at the named target's family
    assert "no target named" not in head and f"your target {TARGET}" in head, head


def test_a_named_folder_that_is_not_here_leaves_the_target_to_the_runs(hub: HubEmulator, tmp_path: Path) -> None:
    """A verifier named by a folder of the trainer's machine names no model here: the note says so, and the pages
    go on to the draft's runs (their server's model) rather than a path nobody can match."""
    folder = tmp_path / NAME
    folder.mkdir()
    config = json.loads(json.dumps(DRAFT_CONFIG))
    config["speculators_config"]["verifier"]["name_or_path"] = "/mnt/train/Meta-Llama-3-8B-Instruct"
    (folder / "config.json").write_text(json.dumps(config))
    entry = comparison.load_entry(str(folder), with_header=False, with_card=False)
    assert entry.target_label is None and entry.target_from == ""
    note = entry.target_note or ""
    assert "names /mnt/train/Meta-Llama-3-8B-Instruct as its target" in note and "could not be read" in note, note
    ids = _store_walk_runs()
    store = bench_store()
    draft = OwnDraft.parse(str(folder), group=GROUP)
    runs = [r for r in draft.runs(store) if r.id != ids["k3-othertarget"]]
    store.close()
    assert (target_of(draft, runs, entry).model, target_of(draft, runs, entry).origin) == (TARGET, "runs")
