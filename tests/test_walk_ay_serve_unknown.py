"""Walk AY finding 1: a SpecForge EAGLE-3 draft for Kimi-K2 with eagle_aux_hidden_state_layer_ids [0, 0, 0] (the
trained boundaries are unknown: neither trainer produces this config and SGLang 0.5.23 does not start). vLLM 0.34.0
starts and feeds its default blocks 1, 29, 57, its row "same as trained: unknown", yet "Will it serve?" and the CLI
said "Serves the trained blocks on vLLM 0.34.0". A row whose sameness is unknown is never said to serve them."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from comparelib.models import comparison, serving

H, INTER, V = 7168, 18432, 163840
KIMI = "moonshotai/Kimi-K2-Instruct"


def _draft(tmp_path: Path, ids: list[int]) -> str:
    """The walk's config (SpecForge LlamaForCausalLMEagle3) and a header-only checkpoint without embed_tokens."""
    cfg = {
        "architectures": ["LlamaForCausalLMEagle3"],
        "model_type": "llama",
        "hidden_size": H,
        "intermediate_size": INTER,
        "num_hidden_layers": 1,
        "num_attention_heads": 64,
        "num_key_value_heads": 64,
        "head_dim": 128,
        "vocab_size": V,
        "draft_vocab_size": V,
        "max_position_embeddings": 131072,
        "rope_theta": 50000.0,
        "rms_norm_eps": 1e-6,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        "hidden_act": "silu",
        "eagle_config": {"eagle_aux_hidden_state_layer_ids": ids, "use_aux_hidden_state": True},
    }
    d = tmp_path / "kimi-k2-own-eagle3"
    d.mkdir()
    (d / "config.json").write_text(json.dumps(cfg))
    shapes = {"fc.weight": [H, 3 * H], "norm.weight": [H], "lm_head.weight": [V, H]}
    hdr: dict[str, object] = {}
    off = 0
    for k, s in shapes.items():
        n = 2 * s[0] * (s[1] if len(s) > 1 else 1)
        hdr[k] = {"dtype": "BF16", "shape": s, "data_offsets": [off, off + n]}
        off += n
    h = json.dumps(hdr).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(d / "model.safetensors", "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        f.truncate(8 + len(h) + off)
    return str(d)


@pytest.mark.parametrize("engine", [None, ("vLLM", "the engine chosen above")])
def test_unknown_sameness_is_not_said_to_serve_the_trained_blocks(
    tmp_path: Path, engine: tuple[str, str] | None
) -> None:
    e = comparison.load_entry(_draft(tmp_path, [0, 0, 0]), target=KIMI)
    v034 = next(v for v in e.serving if v.label.startswith("vLLM 0.34.0"))
    assert (v034.status, v034.same_as_trained, v034.captured) == ("ok", None, [2, 30, 58])  # the premise
    adv = serving.advice(**e.serving_args)
    said = serving.headline(e.serving, adv, engine=engine)
    assert "Serves the trained blocks" not in said, said
    assert said.startswith("vLLM 0.34.0 (v2, only runner)"), said
    assert "starts and feeds the draft outputs of blocks 1, 29, 57 (ids from default)" in said, said
    assert "whether these are the blocks it was trained on is unknown" in said, said
    assert not serving.serves_trained(v034, adv)


def test_known_sameness_still_serves(tmp_path: Path) -> None:
    e = comparison.load_entry(_draft(tmp_path, [1, 29, 57]), target=KIMI)
    adv = serving.advice(**e.serving_args)
    said = serving.headline(e.serving, adv)
    assert said.startswith("Serves the trained blocks on SGLang 0.5.23"), said
    assert "unknown" not in said, said


def test_compare_page_does_not_show_unknown_sameness_as_served(tmp_path: Path) -> None:
    from tests.fixtures import page_app

    at = page_app("pages/compare.py", timeout=180).run()
    at.sidebar.text_input(key="draft_source").set_value(_draft(tmp_path, [0, 0, 0]))
    at.sidebar.button[0].click().run()  # "Use this draft"
    at.text_input(key="compare_target").set_value(KIMI)
    next(b for b in at.button if b.label == "Compare").click().run()
    assert not at.exception, at.exception
    said = [w.value for w in at.warning if "kimi-k2-own-eagle3" in w.value and "starts and feeds" in w.value]
    assert said and "whether these are the blocks it was trained on is unknown" in said[0], [
        w.value for w in at.warning
    ]
    assert not [s.value for s in at.success if "Serves the trained blocks" in s.value and "kimi" in s.value]


def test_lint_does_not_say_the_unknown_trained_blocks_match(tmp_path: Path) -> None:
    """With the engine given as vLLM 0.34.0 the lint said "Nothing to act on ... the wiring matches" and "uses its
    default ... = [2, 30, 58], which happens to be what the draft was trained on" for the same draft."""
    e = comparison.load_entry(_draft(tmp_path, [0, 0, 0]), target=KIMI, serving="vLLM 0.34.0")
    said = comparison.lint_headline(e, engine=("vLLM", "the engine given with --engine"))
    assert not said.startswith("Nothing to act on"), said
    assert "whether these are the blocks it was trained on is unknown" in said, said
    assert not [f.message for f in e.findings if "happens to be what the draft was trained on" in f.message]
