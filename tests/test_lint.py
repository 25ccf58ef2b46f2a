"""Wiring lint: table-driven cases (codes and severities), capture tables, and registry configs."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from comparelib.models import architectures, engines, lint, registry
from comparelib.models.architectures import ModelSpec, TensorSpec

YARN = {"type": "yarn", "factor": 32.0, "original_max_position_embeddings": 4096}


def draft(**kw: Any) -> ModelSpec:
    """An AQ-MedAI-shaped Kimi draft unless told otherwise (tensors are not needed by lint)."""
    base: dict[str, Any] = dict(
        source="test",
        architecture="LlamaForCausalLMEagle3",
        dialect="specforge-eagle3",
        role="draft",
        hidden_size=7168,
        vocab_size=163840,
        num_hidden_layers=1,
        tensors=(),
        draft_vocab_size=32000,
        target_hidden_size=None,
        aux_layer_ids=(2, 30, 58),
        max_position_embeddings=131072,
        rope_theta=1_000_000.0,
        rope_scaling=None,
    )
    base.update(kw)
    return ModelSpec(**base)


def target(**kw: Any) -> ModelSpec:
    base: dict[str, Any] = dict(
        source="target",
        architecture="DeepseekV3ForCausalLM",
        dialect="deepseek-v3",
        role="target",
        hidden_size=7168,
        vocab_size=163840,
        num_hidden_layers=61,
        tensors=(),
        max_position_embeddings=131072,
        rope_theta=1_000_000.0,
        rope_scaling=None,
    )
    base.update(kw)
    return ModelSpec(**base)


K61 = dict(target_layers=61, target_hidden_size=7168, target_vocab_size=163840, target_family="deepseek")
V033 = [("SGLang", "0.5.23"), ("vLLM", "0.33.0")]  # the older vLLM, whose V1 runner still reads eagle_config ids
FC_4096 = (TensorSpec("fc.weight", (7168, 3 * 4096), "fc"),)

# (case id, draft overrides, lint kwargs, expected {(severity, code)})
# K61 is a Kimi-K2 target (DeepSeek family): SGLang 0.5.23 reads ids as given unless the first is 1
# (deepseek_v2.py set_eagle3_layers_to_capture), vLLM always as given, so [2, 30, 58] agree. The default set is the
# newest of each engine: SGLang 0.5.23 and vLLM 0.34.0, whose only runner (V2) reads no eagle_config ids.
CASES: list[tuple[str, dict[str, Any], dict[str, Any], set[tuple[str, str]]]] = [
    ("no-target", {}, {}, {("info", "target-unknown"), ("warning", "target-unknown")}),
    # The published Kimi draft on a Kimi target: both engines capture outputs of blocks 1, 29, 57 (issue 8).
    ("aq-medai-ids-on-kimi", {}, K61, {("info", "aux-agree")}),
    # First id 1 on a Kimi target: SGLang adds 1 (boundaries 2, 30, 58), vLLM 0.33.0's V1 does not (1, 29, 57);
    # vLLM 0.34.0 reads no eagle_config ids and its default is [2, 30, 58], what SGLang trained on.
    (
        "own-draft-output-ids",
        {"aux_layer_ids": (1, 29, 57), "draft_vocab_size": 163840},
        K61,
        {("info", "aux-agree")},
    ),
    (
        "own-draft-output-ids-vllm-0.33.0",
        {"aux_layer_ids": (1, 29, 57), "draft_vocab_size": 163840},
        {**K61, "serving": V033},
        {("warning", "aux-convention")},
    ),
    # On a Llama-family target SGLang always adds 1, so [2, 30, 58] is one layer apart between engines.
    ("aq-medai-ids-on-llama-family", {}, {**K61, "target_family": "llama"}, {("warning", "aux-convention")}),
    (
        "ids-absent-n32",
        {"aux_layer_ids": None, "hidden_size": 4096, "vocab_size": 128256},
        dict(target_layers=32, target_hidden_size=4096, target_vocab_size=128256),
        {("info", "aux-default")},
    ),
    ("ids-absent-no-target", {"aux_layer_ids": None}, {}, {("info", "target-unknown"), ("info", "aux-default")}),
    # SGLang 0.5.23 sizes fc as hidden x len(ids) and serves it, but vLLM 0.33.0's default runner (V2) never reads
    # eagle_config ids: it captures its 3 default states into a 2H (4H) fc and fails; SpecForge refuses the count.
    ("two-ids", {"aux_layer_ids": (2, 30)}, K61, {("warning", "aux-count"), ("error", "aux-capture")}),
    ("four-ids", {"aux_layer_ids": (2, 16, 30, 58)}, K61, {("warning", "aux-count"), ("error", "aux-capture")}),
    # Order: SGLang captures in layer order, vLLM sorts; both feed [2, 30, 58] low to high.
    ("not-increasing", {"aux_layer_ids": (30, 2, 58)}, K61, {("warning", "aux-order"), ("info", "aux-agree")}),
    # A repeat: the DeepSeek packer raises "captured 2 of 3", vLLM captures two states.
    # vLLM starts, but no trainer produces these ids: whether it feeds the trained blocks is unknown (walk AY)
    ("duplicate", {"aux_layer_ids": (2, 30, 30)}, K61, {("error", "aux-capture"), ("warning", "aux-unknown")}),
    ("beyond-n", {"aux_layer_ids": (1, 29, 70)}, K61, {("error", "aux-range")}),
    ("minus-one", {"aux_layer_ids": (-1, 29, 57)}, K61, {("error", "aux-negative")}),
    (
        "minus-one-llama-family",
        {"aux_layer_ids": (-1, 29, 57)},
        {**K61, "target_family": "llama"},
        {("error", "aux-negative")},
    ),
    # 0 on a Kimi target: SGLang 0.5.23 captures the embedding output (as given); vLLM V1 adds residual=None at
    # boundary 0 (deepseek_v2.py:1562, a crash) and V2 reads no eagle_config ids (its default: other blocks).
    (
        "zero-on-kimi",
        {"aux_layer_ids": (0, 29, 57)},
        K61,
        {("warning", "aux-embedding"), ("warning", "aux-convention")},
    ),
    (
        "zero-on-kimi-vllm-0.33.0",
        {"aux_layer_ids": (0, 29, 57)},
        {**K61, "serving": V033},
        {("warning", "aux-embedding"), ("error", "aux-capture"), ("warning", "aux-convention")},
    ),
    # On Llama SGLang adds 1 (no embedding); only vLLM 0.33.0's V1 reads 0 from eagle_config as the embedding.
    (
        "zero-on-llama-family",
        {"aux_layer_ids": (0, 29, 57)},
        {**K61, "target_family": "llama"},
        {("warning", "aux-convention")},
    ),
    (
        "zero-on-llama-family-vllm-0.33.0",
        {"aux_layer_ids": (0, 29, 57)},
        {**K61, "target_family": "llama", "serving": V033},
        {("warning", "aux-embedding"), ("warning", "aux-convention")},
    ),
    # gpt-oss: SGLang keeps ids as given when the max id is N and captures boundary N at the final norm.
    (
        "boundary-n-gpt-oss",
        {"aux_layer_ids": (24, 30, 36), "hidden_size": 2880, "vocab_size": 201088},
        dict(target_layers=36, target_hidden_size=2880, target_vocab_size=201088, target_family="gpt-oss"),
        {("warning", "aux-convention")},  # vLLM V2 ignores eagle_config ids: its default (2, 18, 33)
    ),
    # The same ids on a Llama-family target: SGLang adds 1 and cannot reach boundary 37.
    (
        "boundary-n-llama-family",
        {"aux_layer_ids": (24, 30, 36), "hidden_size": 2880, "vocab_size": 201088},
        dict(target_layers=36, target_hidden_size=2880, target_vocab_size=201088, target_family="llama"),
        # no trainer produces these ids, so no engine "agrees" with a trained reading: vLLM's is unknown (walk AY)
        {("error", "aux-capture"), ("warning", "aux-unknown")},
    ),
    # gpt-oss, last block's output: SGLang +1 = boundary 36 = N, reachable there (final norm) ...
    (
        "last-block-output-gpt-oss",
        {"aux_layer_ids": (1, 17, 35), "hidden_size": 2880, "vocab_size": 201088},
        dict(target_layers=36, target_hidden_size=2880, target_vocab_size=201088, target_family="gpt-oss"),
        {("warning", "aux-convention")},
    ),
    # ... but not on Llama-family targets, where SGLang captures only at a layer's input.
    (
        "last-block-output-llama-short",
        {"aux_layer_ids": (1, 17, 35), "hidden_size": 2880, "vocab_size": 201088},
        dict(target_layers=36, target_hidden_size=2880, target_vocab_size=201088, target_family="llama"),
        {("error", "aux-capture"), ("warning", "aux-unknown")},
    ),
    (
        "unknown-reading",
        {"aux_layer_ids": (3, 30, 58)},
        {**K61, "target_family": "llama"},
        {("warning", "aux-convention")},
    ),
    (
        "hidden-mismatch",
        {"hidden_size": 4096, "aux_layer_ids": (2, 30, 58)},
        K61,
        {("error", "hidden-mismatch"), ("error", "aux-capture")},
    ),
    (
        "target-hidden-size-set",
        {"hidden_size": 4096, "target_hidden_size": 7168, "aux_layer_ids": (2, 30, 58)},
        K61,
        {("info", "aux-agree")},
    ),
    (
        "target-hidden-size-wrong",
        {"hidden_size": 4096, "target_hidden_size": 5120, "aux_layer_ids": (2, 30, 58)},
        K61,
        {("error", "hidden-mismatch"), ("error", "aux-capture")},
    ),
    (
        "fc-shape-says-other-target",
        {"aux_layer_ids": (2, 30, 58), "tensors": FC_4096},
        K61,
        {("error", "hidden-mismatch"), ("error", "aux-capture")},
    ),
    (
        "vocab-mismatch",
        {"aux_layer_ids": (2, 30, 58)},
        {**K61, "target_vocab_size": 129280},
        {("error", "vocab-mismatch"), ("info", "aux-agree")},
    ),
    (
        "draft-vocab-larger",
        {"aux_layer_ids": (2, 30, 58), "draft_vocab_size": 200000},
        K61,
        {("error", "draft-vocab-larger"), ("info", "aux-agree")},
    ),
    (
        "vocab-map-missing",
        {"aux_layer_ids": (2, 30, 58)},
        {**K61, "checkpoint_tensors": ["fc.weight", "lm_head.weight"]},
        {("error", "vocab-map-missing"), ("info", "aux-agree")},
    ),
    (
        "t2d-missing",
        {"aux_layer_ids": (2, 30, 58)},
        {**K61, "checkpoint_tensors": ["fc.weight", "d2t"]},
        {("warning", "vocab-map-missing"), ("info", "aux-agree")},
    ),
    (
        "vocab-maps-present",
        {"aux_layer_ids": (2, 30, 58)},
        {**K61, "checkpoint_tensors": ["fc.weight", "d2t", "t2d"]},
        {("info", "aux-agree")},
    ),
    (
        "full-vocab-needs-no-map",
        {"aux_layer_ids": (2, 30, 58), "draft_vocab_size": 163840},
        {**K61, "checkpoint_tensors": ["fc.weight", "lm_head.weight"]},
        {("info", "aux-agree")},
    ),
    ("target-spec-matches", {"aux_layer_ids": (2, 30, 58)}, {"target": target()}, {("info", "aux-agree")}),
    (
        "rope-theta-mismatch",
        {"aux_layer_ids": (2, 30, 58)},
        {"target": target(rope_theta=50000.0)},
        {("warning", "rope-mismatch"), ("info", "aux-agree")},
    ),
    (
        "rope-scaling-mismatch",
        {"aux_layer_ids": (2, 30, 58)},
        {"target": target(rope_scaling=YARN)},
        {("warning", "rope-mismatch"), ("info", "aux-agree")},
    ),
    (
        "rope-scaling-same-other-spelling",
        {"aux_layer_ids": (2, 30, 58), "rope_scaling": YARN},
        {"target": target(rope_scaling={**{k: v for k, v in YARN.items() if k != "type"}, "rope_type": "yarn"})},
        {("info", "aux-agree")},
    ),
    (
        "max-position-short",
        {"aux_layer_ids": (2, 30, 58), "max_position_embeddings": 2048},
        {"target": target()},
        {("warning", "max-position-mismatch"), ("info", "aux-agree")},
    ),
    (
        "max-position-longer-is-fine",
        {"aux_layer_ids": (2, 30, 58), "max_position_embeddings": 262144},
        {"target": target()},
        {("info", "aux-agree")},
    ),
    ("explicit-layers-override-target", {}, {"target": target(), "target_layers": 32}, {("error", "aux-range")}),
    ("target-layers-unknown", {}, {"target_hidden_size": 7168}, {("warning", "target-unknown")}),
    (
        "eagle1-head-no-aux-checks",
        {"aux_layer_ids": None, "draft_vocab_size": None, "dialect": "eagle1", "architecture": "LlamaForCausalLM"},
        K61,
        {("info", "not-eagle3")},  # says the EAGLE-3 capture rules do not apply (walk AH2)
    ),
    (
        "eagle1-head-wrong-target",
        {
            "aux_layer_ids": None,
            "draft_vocab_size": None,
            "dialect": "eagle1",
            "architecture": "LlamaForCausalLM",
            "hidden_size": 4096,
        },
        K61,
        {("error", "hidden-mismatch"), ("info", "not-eagle3")},
    ),
]


@pytest.mark.parametrize(("case", "draft_kw", "lint_kw", "expected"), CASES, ids=[c[0] for c in CASES])
def test_lint_cases(
    case: str, draft_kw: dict[str, Any], lint_kw: dict[str, Any], expected: set[tuple[str, str]]
) -> None:
    findings = lint.lint(draft(**draft_kw), **lint_kw)
    assert {(f.severity, f.code) for f in findings} == expected
    for f in findings:
        assert f.severity in lint.SEVERITIES
        assert f.message.endswith((".", "?", ")")) and len(f.message) > 40
    ranks = [(f.harmless, lint.SEVERITIES.index(f.severity)) for f in findings]
    assert ranks == sorted(ranks)  # errors first, known-harmless last


def test_ranking_puts_what_to_act_on_before_known_harmless() -> None:
    findings = lint.lint(draft(aux_layer_ids=(1, 29, 57)), target=target(rope_theta=50000.0), serving=V033)
    keys = [(f.harmless, lint.SEVERITIES.index(f.severity)) for f in findings]
    assert keys == sorted(keys)
    assert [f.code for f in findings] == ["aux-convention", "rope-mismatch"]
    assert findings[1].harmless and not findings[0].harmless
    assert lint.headline(findings).startswith("Act on this first [warning, aux-convention]")


def test_headline_when_only_harmless_findings() -> None:
    findings = lint.lint(draft(), target=target(rope_theta=50000.0))
    assert all(f.harmless for f in findings) and len(findings) == 2
    assert lint.headline(findings) == (
        "Nothing to act on: the wiring matches what SGLang 0.5.23 and vLLM 0.34.0 (v2, only runner) will do. "
        "2 known-harmless notes are collapsed below."
    )


def test_the_cli_comparison_does_not_point_below_at_notes_it_does_not_print(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``compare --format md`` said "3 known-harmless note(s) are collapsed below" with nothing below it."""
    from comparelib import cli

    ref = "registry:lmsys/SGLang-EAGLE3-Llama-3.3-70B-Instruct-SpecForge"
    assert cli.main(["compare", "--format", "md", "--no-header", ref]) == 0
    out = capsys.readouterr().out
    wiring = [line for line in out.splitlines() if line.startswith("Wiring: ")]
    assert wiring and not any("below" in line for line in wiring), wiring
    assert f"3 known-harmless notes are listed by `python -m comparelib params {ref}`." in wiring[0], wiring
    one = [lint.Finding("info", "aux-default", "x", harmless=True)]
    assert lint.headline(one).endswith("1 known-harmless note is collapsed below.")


def test_convention_message_names_the_runner_and_the_fix() -> None:
    # [1, 29, 57] on Kimi: SpecForge trained through SGLang (first id 1: +1) on boundaries [2, 30, 58]. SGLang 0.5.23
    # and vLLM's default runner (which never reads eagle_config ids; its default is [2, 30, 58]) serve those; only
    # vLLM 0.33.0's V1 reads the ids as boundaries and is one block early.
    (conv,) = [
        f for f in lint.lint(draft(aux_layer_ids=(1, 29, 57)), **K61, serving=V033) if f.code == "aux-convention"
    ]
    assert conv.message.startswith("vLLM 0.33.0 (v1, VLLM_USE_V2_MODEL_RUNNER=0) reads [1, 29, 57] from eagle_config")
    assert "outputs of blocks 0, 28, 56" in conv.message
    assert 'add at the top level: {"eagle_aux_hidden_state_layer_ids": [2, 30, 58]}' in conv.message


def test_kimi_ids_on_kimi_target_agree_because_they_are_vllm_default() -> None:
    findings = lint.lint(draft(), **K61)
    assert [f.code for f in findings] == ["aux-agree"]
    assert "SGLang 0.5.23 captures outputs of blocks 1, 29, 57" in findings[0].message
    assert (
        "vLLM 0.34.0 (v2, only runner) uses its default (2, N//2, N-3) = [2, 30, 58], which happens to be what the "
        "draft was trained on; it does not read eagle_config ids" in findings[0].message
    )


def test_minus_one_says_what_each_engine_does_and_what_to_write() -> None:
    (kimi,) = lint.lint(draft(aux_layer_ids=(-1, 29, 57)), **K61)
    assert kimi.severity == "error" and kimi.code == "aux-negative"
    assert "captured 2 of 3 aux hidden states" in kimi.message  # SGLang's DeepSeek packer
    assert "vLLM 0.34.0 (v2, only runner) runs on outputs of blocks 1, 29, 57" in kimi.message  # ids not read
    assert "(v1," not in kimi.message  # 0.34.0 has no V1
    assert "SpecForge 0.2.0 refuses them" in kimi.message and "speculators 0.9.0 refuses them" in kimi.message
    # SGLang's DeepSeek path adds 1 when the first id is 1, so [1, 29, 57] there; vLLM reads the top level as given
    fix = "for SGLang 0.5.23 write [1, 29, 57] into eagle_config; for vLLM 0.34.0 / 0.33.0 write [2, 30, 58]"
    assert fix in kimi.message
    (old,) = lint.lint(draft(aux_layer_ids=(-1, 29, 57)), **K61, serving=V033)
    assert "vLLM 0.33.0 (v1, VLLM_USE_V2_MODEL_RUNNER=0): 2 captured states" in old.message  # -1 never reached
    assert "vLLM 0.33.0 (v2, default) runs on outputs of blocks 1, 29, 57" in old.message
    (llama,) = lint.lint(draft(aux_layer_ids=(-1, 29, 57)), **{**K61, "target_family": "llama"})
    assert "SGLang 0.5.23 runs on the embedding output, outputs of blocks 29, 57" in llama.message
    assert fix in llama.message


def test_minus_one_without_target_is_still_an_error() -> None:
    codes = {(f.severity, f.code) for f in lint.lint(draft(aux_layer_ids=(-1, 29, 57)))}
    assert ("error", "aux-negative") in codes


def test_missing_ids_explain_defaults_for_this_n() -> None:
    (f,) = lint.lint(draft(aux_layer_ids=None), **K61)
    assert f.harmless and f.code == "aux-default" and "outputs of blocks 1, 29, 57" in f.message
    assert "vLLM 0.34.0 (v2, only runner)" in f.message and "(v1" not in f.message
    (old,) = lint.lint(draft(aux_layer_ids=None), **K61, serving=V033)
    assert "vLLM 0.33.0 (v2, default)" in old.message and "vLLM 0.33.0 (v1" in old.message


def test_one_engine_version_selected() -> None:
    old = lint.lint(draft(), **K61, serving=[("SGLang", "0.5.1")])
    assert [(f.severity, f.code) for f in old] == [("error", "engine-unsupported")]
    assert "sglang 0.5.1 sglang/srt/model_executor/model_runner.py:380" in old[0].message
    new = lint.lint(draft(), **K61, serving=[("vLLM", "0.33.0")])
    assert [(f.severity, f.code) for f in new] == [("info", "aux-agree")]
    # vLLM alone gives both runners: a SpecForge-trained [1, 29, 57] draft is right on V2 (default), off on V1
    (own,) = lint.lint(draft(aux_layer_ids=(1, 29, 57)), **K61, serving=[("vLLM", "0.33.0")])
    assert (own.severity, own.code) == ("warning", "aux-convention") and "(v1," in own.message
    # vLLM 0.34.0 has V2 only, which reads no eagle_config ids: its default [2, 30, 58] is what was trained
    newest = lint.lint(draft(aux_layer_ids=(1, 29, 57)), **K61, serving=[("vLLM", "0.34.0")])
    assert [(f.severity, f.code) for f in newest] == [("info", "aux-agree")]
    assert "vLLM 0.34.0 (v2, only runner)" in newest[0].message


def test_speculators_config_is_not_read_by_sglang() -> None:
    spec = draft(dialect="speculators-eagle3", architecture="Eagle3Speculator")
    both = lint.lint(spec, **K61)
    assert ("warning", "engine-not-read") in {(f.severity, f.code) for f in both}
    only = lint.lint(spec, **K61, serving=[("SGLang", "0.5.23")])
    assert [(f.severity, f.code) for f in only] == [("error", "engine-not-read")]
    assert "SGLang has no such model class" in only[0].message


def test_top_level_ids_are_read_by_vllm_and_not_by_sglang() -> None:
    config = {"architectures": ["LlamaForCausalLMEagle3"], "eagle_aux_hidden_state_layer_ids": [1, 29, 57]}
    findings = lint.lint(draft(aux_layer_ids=(1, 29, 57), raw_config=config), **K61)
    # SGLang reads only eagle_config (its default [2, 30, 58] is what SpecForge's default trains on for no ids);
    # every vLLM runner reads the top level as given: boundaries [1, 29, 57], one block early.
    conv = [f for f in findings if f.code == "aux-convention"]
    assert [f.message.split(" reads")[0] for f in conv] == ["vLLM 0.34.0 (v2, only runner)"]
    old = lint.lint(draft(aux_layer_ids=(1, 29, 57), raw_config=config), **K61, serving=V033)
    conv += [f for f in old if f.code == "aux-convention"]
    assert [f.message.split(" reads")[0] for f in conv[1:]] == [
        "vLLM 0.33.0 (v2, default)",
        "vLLM 0.33.0 (v1, VLLM_USE_V2_MODEL_RUNNER=0)",
    ]
    assert all("from top-level" in f.message for f in conv)


def test_fc_width_follows_number_of_ids() -> None:
    fc4 = (TensorSpec("fc.weight", (7168, 4 * 7168), "fc"),)
    config = {"eagle_config": {"eagle_aux_hidden_state_layer_ids": [2, 16, 30, 58]}}
    spec = draft(aux_layer_ids=(2, 16, 30, 58), tensors=fc4, raw_config=config)
    assert "hidden-mismatch" not in {f.code for f in lint.lint(spec, **K61)}
    three = draft(tensors=fc4, raw_config={"eagle_config": {"eagle_aux_hidden_state_layer_ids": [2, 30, 58]}})
    (mismatch,) = [f for f in lint.lint(three, **K61) if f.code == "hidden-mismatch"]
    assert "3 x 7168 = 21504" in mismatch.message


def test_norm_flags_as_the_engines_read_them() -> None:
    both = {"norm_before_fc": False, "eagle_config": {"norm_before_fc": True}}
    assert "norm-before-fc" in {f.code for f in lint.lint(draft(raw_config=both), **K61)}
    legacy = {"use_aux_norm": True}
    assert "aux-norm-legacy" in {f.code for f in lint.lint(draft(raw_config=legacy), **K61)}


def test_capture_table_rows_cite_their_source() -> None:
    rows = lint.capture_table([2, 30, 58], 61, family="deepseek")
    assert [r["engine"] for r in rows] == ["SGLang 0.5.23", "vLLM 0.34.0", "SpecForge 0.2.0", "speculators 0.9.0"]
    assert all(r["captured"] == [2, 30, 58] and r["status"] == "ok" for r in rows)
    assert all(".py" in r["source"] for r in rows)
    llama = {r["engine"]: r for r in lint.capture_table([2, 30, 58], 61, family="llama")}
    assert llama["SGLang 0.5.23"]["captured_text"] == "outputs of blocks 2, 30, 58"
    assert llama["vLLM 0.34.0"]["captured_text"] == "outputs of blocks 1, 29, 57"
    with pytest.raises(ValueError):
        lint.capture_table([1, 2, 3], 0)


def test_default_boundaries_come_from_the_table() -> None:
    assert lint.default_boundaries(61) == (2, 30, 58)
    assert lint.default_boundaries(32) == (2, 16, 29)


# ---- through parse_config, on the configs the app ships ------------------------------------------


def test_registry_aq_medai_against_shipped_kimi_target() -> None:
    spec = architectures.parse_config(registry.get_draft("AQ-MedAI/Kimi-K2-Instruct-eagle3").config)
    known = architectures.known_target("moonshotai/Kimi-K2-Instruct")
    if known is None:
        pytest.skip("no shipped Kimi-K2 target config")
    tgt = architectures.parse_config(known)
    codes = {(f.severity, f.code) for f in lint.lint(spec, target=tgt)}
    # Was a warning that SGLang and vLLM are "one layer apart"; by deepseek_v2.py both capture blocks 1, 29, 57.
    assert ("info", "aux-agree") in codes and ("warning", "aux-convention") not in codes
    assert not any(sev == "error" for sev, _ in codes)


def test_example_own_draft_against_kimi_k25() -> None:
    config = json.loads((registry.EXAMPLE_OWN_DRAFT / "config.json").read_text())
    spec = architectures.parse_config(config)
    kw: dict[str, Any] = dict(
        target_layers=61,
        target_hidden_size=7168,
        target_vocab_size=163840,
        checkpoint_tensors=[t.name for t in spec.tensors if t.stored],
        target_family="deepseek",
    )
    # ids [1, 29, 57] on Kimi-K2.5: SGLang adds 1 (first id is 1); vLLM 0.34.0 reads no eagle_config ids and
    # defaults to the same [2, 30, 58]; vLLM 0.33.0's V1 reads them as given: one layer apart, for real.
    assert {(f.severity, f.code) for f in lint.lint(spec, **kw)} == {("info", "aux-agree")}
    assert {(f.severity, f.code) for f in lint.lint(spec, **kw, serving=V033)} == {("warning", "aux-convention")}


@pytest.mark.parametrize(
    "published",
    [d for d in registry.load_registry() if d.config is not None and "medusa_num_heads" not in d.config],
    ids=lambda d: d.hub_id,
)
def test_every_registry_config_lints_without_errors(published: registry.PublishedDraft) -> None:
    spec = architectures.parse_config(published.config, source=published.hub_id)
    findings = lint.lint(
        spec,
        target_layers=published.target_layers,
        target_hidden_size=published.target_hidden_size,
        target_vocab_size=published.target_vocab_size,
        target_family=engines.family_of(published.target_model),
    )
    assert not [f for f in findings if f.severity == "error"], findings


def test_findings_are_frozen() -> None:
    f = lint.Finding("info", "aux-default", "x")
    with pytest.raises(AttributeError):
        f.code = "other"  # type: ignore[misc]
    assert replace(f, code="other").code == "other"


# The target-layers count a user types (Compare page text box, `params --target-layers`): one check for both.
TARGET_LAYERS_CASES: list[tuple[Any, Any]] = [
    (None, None),
    ("", None),
    ("   ", None),
    ("61", 61),
    (" 61 ", 61),
    ("٣٠", 30),  # Arabic-Indic digits: int() reads 30
    (61, 61),
    (1, 1),
    (10_000, 10_000),
    ("0", ValueError),
    ("-3", ValueError),
    ("3.5", ValueError),
    ("1e9", ValueError),
    ("abc", ValueError),
    ("99999999999999999999999", ValueError),
    (0, ValueError),
    (10_001, ValueError),
    (True, ValueError),
]


@pytest.mark.parametrize(("value", "expected"), TARGET_LAYERS_CASES)
def test_parse_target_layers(value: Any, expected: Any) -> None:
    from comparelib.errors import InputError

    if expected is ValueError:
        with pytest.raises(
            InputError, match=r"--target-layers must be a whole number between 1 and 10000.*num_hidden"
        ):
            lint.parse_target_layers(value, name="--target-layers")
    else:
        assert lint.parse_target_layers(value) == expected


@pytest.mark.parametrize(
    ("hub_id", "unsupported_on_vllm"),
    [
        ("zai-org/GLM-4.6", True),
        ("zai-org/GLM-5", False),
        ("MiniMaxAI/MiniMax-M2", False),
        ("inclusionAI/Ling-flash-2.0", True),  # BailingMoeV2ForCausalLM: SGLang 0.5.23 only
    ],
)
def test_glm_and_minimax_targets_lint_with_their_engine_class(hub_id: str, unsupported_on_vllm: bool) -> None:
    """Given only the target's spec (no target_family), lint finds the engines' class from its architecture."""
    config = architectures.known_target(hub_id)
    assert config is not None
    target = architectures.parse_config(config, source=hub_id)
    n = target.num_hidden_layers
    head = architectures.parse_config(
        {
            "architectures": ["LlamaForCausalLMEagle3"],
            "hidden_size": target.hidden_size,
            "intermediate_size": 4 * target.hidden_size,
            "num_attention_heads": 32,
            "num_key_value_heads": 8,
            "vocab_size": target.vocab_size,
            "draft_vocab_size": 32000,
            "rope_theta": target.rope_theta,
            "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, n // 2 - 1, n - 4]},
        }
    )
    findings = lint.lint(head, target=target)
    assert findings and not any("family is unknown" in f.message for f in findings)
    unsupported = [f for f in findings if f.code == "engine-unsupported"]
    assert bool(unsupported) == unsupported_on_vllm
    if unsupported_on_vllm:  # the class's own rule; the Llama rules would have said vLLM serves it
        assert f"{target.architecture} does not implement SupportsEagle3" in unsupported[0].message
        llama = lint.lint(head, target=target, target_family="llama")
        assert not any(f.code == "engine-unsupported" for f in llama)


# Walk T: ids on a target of unknown family (only --target-layers 32, or a class the engines' rules do not model).
# (ids, N, target class given or None): the findings must be the Llama-like class's findings, each saying so.
LING = dict(hidden_size=4096, vocab_size=157184, draft_vocab_size=157184)
UNKNOWN_FAMILY_CASES = [
    ((1, 15, 28), 32, None),  # the walk: SpecForge's default for N=32
    ((0, 14, 27), 32, None),  # SGLang adds 1, vLLM 0.34.0 reads no eagle_config ids: they differ
    ((1, 15, 28), 32, "MadeUpMoeForCausalLM"),  # a made-up class: the engines' rules here cannot model it
    ((2, 18, 33), 36, None),
    (None, 32, None),
]


@pytest.mark.parametrize(("ids", "n", "cls"), UNKNOWN_FAMILY_CASES)
def test_unknown_family_says_what_the_llama_path_does(ids: tuple[int, ...] | None, n: int, cls: str | None) -> None:
    """The unknown-family sentences follow the same rule (serving.py) as a known Llama-like target's, and say that
    the family is unknown: walk T read 'vLLM 0.34.0 captures outputs of blocks 1, 15, 28 ... for vLLM 0.34.0 write
    [2, 16, 29]' (the old per-family table), beside the app's own 'vLLM feeds blocks 0, 14, 27' on a known target."""
    head = draft(**LING, aux_layer_ids=ids)
    given = target(
        architecture=cls or "X", dialect="unknown", hidden_size=4096, vocab_size=157184, num_hidden_layers=n
    )
    unknown = lint.lint(head, target=given) if cls else lint.lint(head, target_layers=n, target_hidden_size=4096)
    llama = lint.lint(head, target_layers=n, target_hidden_size=4096, target_family="LlamaForCausalLM")
    aux = [f for f in unknown if f.code.startswith(("aux-", "engine-"))]
    assert aux and [f.code for f in aux] == [f.code for f in llama if f.code.startswith(("aux-", "engine-"))]
    for f, g in zip(aux, [f for f in llama if f.code.startswith(("aux-", "engine-"))], strict=True):
        assert f.message.endswith(g.message), (f.message, g.message)
        assert "family is unknown" in f.message
        assert "Llama-like target (LlamaForCausalLM)" in f.message
        if cls:
            assert cls in f.message
    if ids == (1, 15, 28):  # SpecForge's ids for N=32: every engine feeds outputs of blocks 1, 15, 28
        (agree,) = aux
        assert agree.code == "aux-agree"
        assert "vLLM 0.34.0 (v2, only runner) uses its default (2, N//2, N-3) = [2, 16, 29]" in agree.message
        assert "write [2, 16, 29]" not in agree.message
