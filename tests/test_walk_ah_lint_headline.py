"""Walk AH 2: the wiring lint's all-clear claimed a match for drafts whose wiring the engines' rules never check.

``compare yuhuili/EAGLE-vicuna-7B-v1.3`` said "Nothing to act on: the wiring matches what SGLang 0.5.23 and vLLM
0.34.0 (v2, only runner) will do." while Will it serve? said the engines' rules are for EAGLE-3 drafts. The lint
checks EAGLE-1, Medusa and MTP drafts only for hidden size, vocabulary and positions against the target; the
engines' capture rules (aux layers, fc width, draft vocabulary map) are EAGLE-3 rules. The all-clear now says what
was checked and that those rules do not apply, naming the method; EAGLE-3 drafts keep their all-clear.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from comparelib.models import comparison, lint
from tests.fixtures import run_cli

# walk AH's /tmp/walk_ah/repro/eagle_vicuna7b_config.json: yuhuili/EAGLE-vicuna-7B-v1.3's config.json
EAGLE1_VICUNA_7B = {
    "architectures": ["LlamaForCausalLM"],
    "bos_token_id": 1,
    "eos_token_id": 2,
    "hidden_act": "silu",
    "hidden_size": 4096,
    "initializer_range": 0.02,
    "intermediate_size": 11008,
    "max_position_embeddings": 2048,
    "model_type": "llama",
    "num_attention_heads": 32,
    "num_hidden_layers": 1,
    "pad_token_id": 0,
    "rms_norm_eps": 1e-06,
    "tie_word_embeddings": False,
    "torch_dtype": "float16",
    "transformers_version": "4.28.1",
    "use_cache": True,
    "vocab_size": 32000,
}
MATCH = "the wiring matches what"
ROWS = "SGLang 0.5.23 and vLLM 0.34.0 (v2, only runner)"
EAGLE3 = "lmsys/SGLang-EAGLE3-Llama-3.3-70B-Instruct-SpecForge"


# lmsys/vicuna-7b-v1.3's config.json, the draft's target
VICUNA_7B = {
    **{k: v for k, v in EAGLE1_VICUNA_7B.items() if k != "transformers_version"},
    "num_hidden_layers": 32,
    "torch_dtype": "float16",
}


@pytest.fixture(scope="module")
def target_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("vicuna-7b-v1.3")
    (folder / "config.json").write_text(json.dumps(VICUNA_7B))
    return folder


@pytest.fixture(scope="module")
def vicuna_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("EAGLE-vicuna-7B-v1.3")
    (folder / "config.json").write_text(json.dumps(EAGLE1_VICUNA_7B))
    return folder


# (case, source, target, the method the headline names, what it says was checked); a None method: EAGLE-3, unchanged
CASES: list[tuple[str, str, str | None, str | None, str]] = [
    (
        "eagle1-vicuna-7b-no-target",
        "VICUNA",
        None,
        "an EAGLE-1 draft",
        "the draft's own config only: no target was given",
    ),
    (
        "eagle1-llama3-8b-registry",
        "registry:yuhuili/EAGLE-LLaMA3-Instruct-8B",
        None,
        "an EAGLE-1 draft",
        "its hidden size and vocabulary against the target",
    ),
    (
        "eagle1-vicuna-7b-with-target",
        "VICUNA",
        "TARGET",
        "an EAGLE-1 draft",
        "its hidden size, vocabulary and positions against the target",
    ),
    (
        "medusa-vicuna-7b-registry",
        "registry:FasterDecoding/medusa-vicuna-7b-v1.3",
        None,
        "a Medusa draft",
        "its hidden size and vocabulary against the target",
    ),
    ("eagle3-unchanged", f"registry:{EAGLE3}", None, None, ""),
]


@pytest.mark.parametrize(("case", "source", "target", "method", "checked"), CASES, ids=[c[0] for c in CASES])
def test_the_all_clear_claims_a_match_only_where_the_engines_rules_check_the_wiring(
    case: str,
    source: str,
    target: str | None,
    method: str | None,
    checked: str,
    vicuna_folder: Path,
    target_folder: Path,
) -> None:
    source = str(vicuna_folder) if source == "VICUNA" else source
    target = str(target_folder) if target == "TARGET" else target
    entry = comparison.load_entry(source, target=target, with_header=False, with_card=False)
    head = comparison.lint_headline(entry)
    if method is None:
        assert head.startswith(f"Nothing to act on: {MATCH} {ROWS} will do."), head
        return
    assert MATCH not in head, head
    assert head.startswith(f"Nothing to act on in what was checked ({checked}). This is {method}: "), head
    assert "EAGLE-3 capture rules (aux layer ids, fc width, draft vocabulary map) do not apply to it" in head, head
    assert f"no wiring match with what {ROWS} will do is claimed" in head, head
    assert "a eagle1" not in head and "eagle1 draft" not in head
    # the findings say it too (an info: not something to act on)
    (note,) = [f for f in entry.findings if f.code == "not-eagle3"]
    assert note.severity == "info" and not note.harmless and f"This is {method}" in note.message


def test_the_engine_you_serve_with_gets_no_match_claim_either() -> None:
    entry = comparison.load_entry(
        "registry:yuhuili/EAGLE-LLaMA3-Instruct-8B", serving="vLLM", with_header=False, with_card=False
    )
    head = comparison.lint_headline(entry, engine=("vLLM", "the engine chosen above"))
    assert MATCH not in head, head
    assert head.startswith("Nothing to act on for vLLM (the engine chosen above) in what was checked"), head
    assert "no wiring match with what vLLM 0.34.0 (v2, only runner) will do is claimed" in head, head


def test_an_eagle1_draft_on_another_target_still_leads_with_the_error(vicuna_folder: Path) -> None:
    """The all-clear change does not hide what the lint did check: a 4096-wide head on a 7168-wide target."""
    entry = comparison.load_entry(str(vicuna_folder), target_layers=61, with_header=False, with_card=False)
    findings = lint.lint(entry.spec, target_hidden_size=7168, target_vocab_size=32000, target_layers=61)
    head = lint.headline(findings)
    assert head.startswith("Act on this first [error, hidden-mismatch]"), head


def test_cli_compare_says_what_was_checked_for_an_eagle1_draft(vicuna_folder: Path) -> None:
    proc = run_cli("compare", str(vicuna_folder), "registry:FasterDecoding/medusa-vicuna-7b-v1.3", "--no-header")
    assert proc.returncode == 0, proc.stderr
    wiring = [line for line in proc.stdout.splitlines() if line.startswith("Wiring:")]
    assert len(wiring) == 2, proc.stdout
    assert all(MATCH not in line for line in wiring), wiring
    assert "This is an EAGLE-1 draft: " in wiring[0] and "This is a Medusa draft: " in wiring[1], wiring
    eagle3 = run_cli("compare", f"registry:{EAGLE3}", "--no-header")
    assert f"Nothing to act on: {MATCH} {ROWS} will do." in eagle3.stdout, eagle3.stdout


def test_compare_page_shows_an_eagle1_all_clear_as_information_not_success() -> None:
    """The green success box read as "the wiring is fine" for a draft whose wiring the rules never checked."""
    from tests.fixtures import page_app

    at = page_app("../pages/compare.py", timeout=120).run()
    at.multiselect(key="compare_picks").set_value(["yuhuili/EAGLE-LLaMA3-Instruct-8B"])
    at.button[0].click().run()
    assert not at.exception, at.exception
    said = [i.value for i in at.info if "yuhuili/EAGLE-LLaMA3-Instruct-8B" in i.value]
    assert any("This is an EAGLE-1 draft" in s for s in said), [i.value for i in at.info]
    assert not any("EAGLE-LLaMA3-Instruct-8B" in s.value for s in at.success), [s.value for s in at.success]
