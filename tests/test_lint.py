"""Wiring lint: table-driven cases (codes and severities), capture tables, and registry configs."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from comparelib import architectures, lint, registry
from comparelib.architectures import ModelSpec, TensorSpec

YARN = {"type": "yarn", "factor": 32.0, "original_max_position_embeddings": 4096}


def draft(**kw: Any) -> ModelSpec:
    """An AQ-MedAI-shaped Kimi draft unless told otherwise (tensors are not needed by lint)."""
    base: dict[str, Any] = dict(
        source="test", architecture="LlamaForCausalLMEagle3", dialect="specforge-eagle3", role="draft",
        hidden_size=7168, vocab_size=163840, num_hidden_layers=1, tensors=(), draft_vocab_size=32000,
        target_hidden_size=None, aux_layer_ids=(2, 30, 58), max_position_embeddings=131072,
        rope_theta=1_000_000.0, rope_scaling=None,
    )
    base.update(kw)
    return ModelSpec(**base)


def target(**kw: Any) -> ModelSpec:
    base: dict[str, Any] = dict(
        source="target", architecture="DeepseekV3ForCausalLM", dialect="deepseek-v3", role="target",
        hidden_size=7168, vocab_size=163840, num_hidden_layers=61, tensors=(), max_position_embeddings=131072,
        rope_theta=1_000_000.0, rope_scaling=None,
    )
    base.update(kw)
    return ModelSpec(**base)


K61 = dict(target_layers=61, target_hidden_size=7168, target_vocab_size=163840)
FC_4096 = (TensorSpec("fc.weight", (7168, 3 * 4096), "fc"),)

# (case id, draft overrides, lint kwargs, expected {(severity, code)})
CASES: list[tuple[str, dict[str, Any], dict[str, Any], set[tuple[str, str]]]] = [
    ("no-target", {}, {}, {("info", "target-unknown"), ("warning", "target-unknown")}),
    ("aq-medai-boundary-ids", {}, K61, {("warning", "aux-convention")}),
    ("own-draft-output-ids", {"aux_layer_ids": (1, 29, 57), "draft_vocab_size": 163840}, K61,
     {("info", "aux-convention")}),
    ("ids-absent-n32", {"aux_layer_ids": None, "hidden_size": 4096, "vocab_size": 128256},
     dict(target_layers=32, target_hidden_size=4096, target_vocab_size=128256), {("info", "aux-default")}),
    ("ids-absent-no-target", {"aux_layer_ids": None}, {}, {("info", "target-unknown"), ("info", "aux-default")}),
    ("two-ids", {"aux_layer_ids": (1, 29)}, K61, {("error", "aux-count")}),
    ("four-ids", {"aux_layer_ids": (1, 15, 29, 57)}, K61, {("error", "aux-count")}),
    ("not-increasing", {"aux_layer_ids": (29, 1, 57)}, K61, {("error", "aux-order"), ("warning", "aux-convention")}),
    ("duplicate", {"aux_layer_ids": (1, 29, 29)}, K61, {("error", "aux-order"), ("info", "aux-convention")}),
    ("beyond-n", {"aux_layer_ids": (1, 29, 70)}, K61, {("error", "aux-range")}),
    ("minus-one", {"aux_layer_ids": (-1, 29, 57)}, K61, {("error", "aux-range"), ("error", "aux-embedding")}),
    ("zero-is-embedding-in-vllm", {"aux_layer_ids": (0, 29, 57)}, K61,
     {("warning", "aux-embedding"), ("warning", "aux-convention")}),
    ("boundary-n-gpt-oss", {"aux_layer_ids": (24, 30, 36), "hidden_size": 2880, "vocab_size": 201088},
     dict(target_layers=36, target_hidden_size=2880, target_vocab_size=201088),
     {("warning", "aux-range"), ("warning", "aux-convention")}),
    ("last-block-output-sglang-short", {"aux_layer_ids": (1, 17, 35), "hidden_size": 2880, "vocab_size": 201088},
     dict(target_layers=36, target_hidden_size=2880, target_vocab_size=201088),
     {("warning", "aux-range"), ("info", "aux-convention")}),
    ("unknown-convention", {"aux_layer_ids": (3, 30, 58)}, K61, {("warning", "aux-convention")}),
    ("hidden-mismatch", {"hidden_size": 4096, "aux_layer_ids": (1, 29, 57)}, K61,
     {("error", "hidden-mismatch"), ("info", "aux-convention")}),
    ("target-hidden-size-set", {"hidden_size": 4096, "target_hidden_size": 7168, "aux_layer_ids": (1, 29, 57)}, K61,
     {("info", "aux-convention")}),
    ("target-hidden-size-wrong", {"hidden_size": 4096, "target_hidden_size": 5120, "aux_layer_ids": (1, 29, 57)},
     K61, {("error", "hidden-mismatch"), ("info", "aux-convention")}),
    ("fc-shape-says-other-target", {"aux_layer_ids": (1, 29, 57), "tensors": FC_4096}, K61,
     {("error", "hidden-mismatch"), ("info", "aux-convention")}),
    ("vocab-mismatch", {"aux_layer_ids": (1, 29, 57)}, {**K61, "target_vocab_size": 129280},
     {("error", "vocab-mismatch"), ("info", "aux-convention")}),
    ("draft-vocab-larger", {"aux_layer_ids": (1, 29, 57), "draft_vocab_size": 200000}, K61,
     {("error", "draft-vocab-larger"), ("info", "aux-convention")}),
    ("vocab-map-missing", {"aux_layer_ids": (1, 29, 57)},
     {**K61, "checkpoint_tensors": ["fc.weight", "lm_head.weight"]},
     {("error", "vocab-map-missing"), ("info", "aux-convention")}),
    ("t2d-missing", {"aux_layer_ids": (1, 29, 57)}, {**K61, "checkpoint_tensors": ["fc.weight", "d2t"]},
     {("warning", "vocab-map-missing"), ("info", "aux-convention")}),
    ("vocab-maps-present", {"aux_layer_ids": (1, 29, 57)}, {**K61, "checkpoint_tensors": ["fc.weight", "d2t", "t2d"]},
     {("info", "aux-convention")}),
    ("full-vocab-needs-no-map", {"aux_layer_ids": (1, 29, 57), "draft_vocab_size": 163840},
     {**K61, "checkpoint_tensors": ["fc.weight", "lm_head.weight"]}, {("info", "aux-convention")}),
    ("target-spec-matches", {"aux_layer_ids": (1, 29, 57)}, {"target": target()}, {("info", "aux-convention")}),
    ("rope-theta-mismatch", {"aux_layer_ids": (1, 29, 57)}, {"target": target(rope_theta=50000.0)},
     {("warning", "rope-mismatch"), ("info", "aux-convention")}),
    ("rope-scaling-mismatch", {"aux_layer_ids": (1, 29, 57)}, {"target": target(rope_scaling=YARN)},
     {("warning", "rope-mismatch"), ("info", "aux-convention")}),
    ("rope-scaling-same-other-spelling", {"aux_layer_ids": (1, 29, 57), "rope_scaling": YARN},
     {"target": target(rope_scaling={**{k: v for k, v in YARN.items() if k != "type"}, "rope_type": "yarn"})},
     {("info", "aux-convention")}),
    ("max-position-short", {"aux_layer_ids": (1, 29, 57), "max_position_embeddings": 2048}, {"target": target()},
     {("warning", "max-position-mismatch"), ("info", "aux-convention")}),
    ("max-position-longer-is-fine", {"aux_layer_ids": (1, 29, 57), "max_position_embeddings": 262144},
     {"target": target()}, {("info", "aux-convention")}),
    ("explicit-layers-override-target", {}, {"target": target(), "target_layers": 32}, {("error", "aux-range")}),
    ("target-layers-unknown", {}, {"target_hidden_size": 7168}, {("warning", "target-unknown")}),
    ("eagle1-head-no-aux-checks", {"aux_layer_ids": None, "draft_vocab_size": None, "dialect": "eagle1",
                                   "architecture": "LlamaForCausalLM"}, K61, set()),
    ("eagle1-head-wrong-target", {"aux_layer_ids": None, "draft_vocab_size": None, "dialect": "eagle1",
                                  "architecture": "LlamaForCausalLM", "hidden_size": 4096}, K61,
     {("error", "hidden-mismatch")}),
]


@pytest.mark.parametrize(("case", "draft_kw", "lint_kw", "expected"), CASES, ids=[c[0] for c in CASES])
def test_lint_cases(case: str, draft_kw: dict[str, Any], lint_kw: dict[str, Any],
                    expected: set[tuple[str, str]]) -> None:
    findings = lint.lint(draft(**draft_kw), **lint_kw)
    assert {(f.severity, f.code) for f in findings} == expected
    for f in findings:
        assert f.severity in lint.SEVERITIES
        assert f.message.endswith((".", "?", ")")) and len(f.message) > 40
    ranks = [lint.SEVERITIES.index(f.severity) for f in findings]
    assert ranks == sorted(ranks)  # errors first


def test_convention_messages_name_both_readings() -> None:
    (conv,) = [f for f in lint.lint(draft(), **K61) if f.code == "aux-convention"]
    assert "outputs of blocks 2, 30, 58" in conv.message
    assert "outputs of blocks 1, 29, 57" in conv.message
    assert "[3, 31, 59]" in conv.message  # what vLLM needs if SpecForge trained on the SGLang reading
    (own,) = lint.lint(draft(aux_layer_ids=(1, 29, 57)), **K61)
    assert "[2, 30, 58]" in own.message and "SpecForge default" in own.message


def test_missing_ids_explain_defaults_for_this_n() -> None:
    (f,) = lint.lint(draft(aux_layer_ids=None), **K61)
    assert "[2, 30, 58]" in f.message and "[1, 29, 57]" in f.message


# (ids, N, engine, expected captured per id)
CAPTURE_CASES: list[tuple[list[int] | None, int, str, list[int | str]]] = [
    # AQ-MedAI Kimi-K2 draft: the one-layer split of vllm #31254 (drafts.json aux_layers agrees).
    ([2, 30, 58], 61, "SGLang", [2, 30, 58]),
    ([2, 30, 58], 61, "vLLM", [1, 29, 57]),
    ([2, 30, 58], 61, "SpecForge (training)", [2, 30, 58]),
    ([2, 30, 58], 61, "EAGLE official", [1, 29, 57]),
    # SpecForge default for 61 layers, written explicitly (the example own draft).
    ([1, 29, 57], 61, "SGLang", [1, 29, 57]),
    ([1, 29, 57], 61, "vLLM", [0, 28, 56]),
    ([1, 29, 57], 61, "SpecForge (training)", [1, 29, 57]),
    # No ids: every engine lands on outputs of blocks 1, N//2-1, N-4.
    (None, 61, "SGLang", [1, 29, 57]),
    (None, 61, "vLLM", [1, 29, 57]),
    (None, 61, "SpecForge (training)", [1, 29, 57]),
    (None, 61, "EAGLE official", [1, 29, 57]),
    (None, 32, "SGLang", [1, 15, 28]),
    (None, 32, "vLLM", [1, 15, 28]),
    (None, 32, "SpecForge (training)", [1, 15, 28]),
    (None, 32, "EAGLE official", [1, 15, 28]),
    ([1, 15, 28], 32, "SGLang", [1, 15, 28]),
    ([1, 15, 28], 32, "vLLM", [0, 14, 27]),
    ([2, 16, 29], 32, "vLLM", [1, 15, 28]),
    ([2, 16, 29], 32, "SGLang", [2, 16, 29]),
    # Embedding and the last boundary.
    ([0, 16, 29], 32, "vLLM", ["embedding", 15, 28]),
    ([-1, 16, 29], 32, "SGLang", ["embedding", 16, 29]),
    ([2, 16, 32], 32, "vLLM", [1, 15, 31]),
    ([2, 16, 32], 32, "SGLang", [2, 16, "not captured"]),
    ([1, 15, 31], 32, "SGLang", [1, 15, "not captured"]),
    ([1, 15, 31], 32, "SpecForge (training)", [1, 15, 31]),
]


@pytest.mark.parametrize(("ids", "n", "engine", "expected"), CAPTURE_CASES)
def test_capture_table(ids: list[int] | None, n: int, engine: str, expected: list[int | str]) -> None:
    rows = {r["engine"]: r for r in lint.capture_table(ids, n)}
    assert tuple(rows) == lint.CAPTURE_ENGINES
    assert rows[engine]["captured"] == expected
    assert rows[engine]["from_config"] == (ids is not None and engine != "EAGLE official")


def test_capture_table_aq_medai_matches_research_wording() -> None:
    rows = {r["engine"]: r for r in lint.capture_table([2, 30, 58], 61)}
    assert rows["SGLang"]["boundaries"] == [3, 31, 59]  # ids + 1 = inputs of blocks 3, 31, 59
    assert rows["SGLang"]["captured_text"] == "outputs of blocks 2, 30, 58"
    assert rows["vLLM"]["captured_text"] == "outputs of blocks 1, 29, 57"
    assert "#25454" in rows["SGLang"]["note"] and "outputs of blocks 1, 29, 57" in rows["SGLang"]["note"]
    with pytest.raises(ValueError):
        lint.capture_table([1, 2, 3], 0)


@pytest.mark.parametrize(("ids", "n", "expected"), [
    ([1, 29, 57], 61, "output-of-block"),
    ([2, 30, 58], 61, "boundary"),
    ([24, 30, 36], 36, "boundary"),
    ([3, 30, 58], 61, None),
    ([], 61, None),
])
def test_infer_convention(ids: list[int], n: int, expected: str | None) -> None:
    assert lint.infer_convention(ids, n) == expected


# ---- through parse_config, on the configs the app ships ------------------------------------------


def test_registry_aq_medai_against_shipped_kimi_target() -> None:
    spec = architectures.parse_config(registry.get_draft("AQ-MedAI/Kimi-K2-Instruct-eagle3").config)
    known = architectures.known_target("moonshotai/Kimi-K2-Instruct")
    if known is None:
        pytest.skip("no shipped Kimi-K2 target config")
    tgt = architectures.parse_config(known)
    codes = {(f.severity, f.code) for f in lint.lint(spec, target=tgt)}
    assert ("warning", "aux-convention") in codes
    assert not any(sev == "error" for sev, _ in codes)


def test_example_own_draft_against_kimi_k25() -> None:
    config = json.loads((registry.EXAMPLE_OWN_DRAFT / "config.json").read_text())
    spec = architectures.parse_config(config)
    findings = lint.lint(spec, target_layers=61, target_hidden_size=7168, target_vocab_size=163840,
                         checkpoint_tensors=[t.name for t in spec.tensors if t.stored])
    assert {(f.severity, f.code) for f in findings} == {("info", "aux-convention")}


@pytest.mark.parametrize(
    "published",
    [d for d in registry.load_registry() if d.config is not None and "medusa_num_heads" not in d.config],
    ids=lambda d: d.hub_id,
)
def test_every_registry_config_lints_without_errors(published: registry.PublishedDraft) -> None:
    spec = architectures.parse_config(published.config, source=published.hub_id)
    findings = lint.lint(spec, target_layers=published.target_layers, target_hidden_size=published.target_hidden_size,
                         target_vocab_size=published.target_vocab_size)
    assert not [f for f in findings if f.severity == "error"], findings


def test_findings_are_frozen() -> None:
    f = lint.Finding("info", "aux-default", "x")
    with pytest.raises(AttributeError):
        f.code = "other"  # type: ignore[misc]
    assert replace(f, code="other").code == "other"
