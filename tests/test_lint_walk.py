"""Wiring a fresh walk found unlinted: an EAGLE-3 head with tie_word_embeddings on."""

from __future__ import annotations

import pytest

from comparelib.models import architectures, lint, registry

BASE = "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"


@pytest.mark.parametrize(
    ("tie", "draft_vocab", "flagged", "says"),
    [
        (True, 32000, True, "the 32,000-row head trained for the draft vocabulary is replaced"),
        (True, 128256, True, "never loads the trained lm_head.weight"),  # a full-vocabulary head
        (False, 32000, False, ""),
        (None, 32000, False, ""),  # not stated: transformers' LlamaConfig default is False
    ],
)
def test_a_tied_eagle3_head_is_an_error(tie: bool | None, draft_vocab: int | None, flagged: bool, says: str) -> None:
    cfg = dict(registry.get_draft(BASE).config or {})
    cfg.pop("tie_word_embeddings", None)
    if tie is not None:
        cfg["tie_word_embeddings"] = tie
    if draft_vocab is None:
        cfg.pop("draft_vocab_size", None)
    else:
        cfg["draft_vocab_size"] = draft_vocab
    spec = architectures.parse_config(cfg, source="walk")
    found = [f for f in lint.lint(spec) if f.code == "tied-lm-head"]
    assert bool(found) is flagged
    if flagged:
        assert found[0].severity == "error" and says in found[0].message, found[0].message
        assert "llama_eagle3.py:303" in found[0].message


def test_ids_at_the_top_level_read_by_default_name_the_default_not_none() -> None:
    """GLM-4.5's draft with ids only at the top level: the info said '(2, N//2, N-3) = None' and 'does not
    read eagle_config ids' (SGLang reads only eagle_config; these ids are elsewhere)."""
    spec_cfg = dict(registry.get_draft(BASE).config or {})
    ec = dict(spec_cfg.pop("eagle_config", {}) or {})
    ec.pop("eagle_aux_hidden_state_layer_ids", None)
    spec_cfg["eagle_config"] = ec
    spec_cfg["eagle_aux_hidden_state_layer_ids"] = [2, 16, 29]  # SGLang's default for 32 layers
    spec = architectures.parse_config(spec_cfg, source="walk")
    found = [f for f in lint.lint(spec, target_layers=32, target_family="llama") if f.code == "aux-agree"]
    text = " ".join(f.message for f in found)
    assert "= None" not in text
    assert "SGLang 0.5.23 uses its default (2, N//2, N-3) = [2, 16, 29]" in text, text
    assert "does not read the top-level ids" in text, text
