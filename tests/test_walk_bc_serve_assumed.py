"""Walk BC finding 2: a SpecForge EAGLE-3 draft for Qwen/Qwen3-8B with eagle_config ids [-1, 17, 32]. Neither
trainer produces this config (both refuse a negative id), so the trained blocks are not known; yet "Will it
serve?" said "Serves the trained blocks on SGLang 0.5.23", the rows "same as trained: yes", and offered
{"eagle_aux_hidden_state_layer_ids": [0, 18, 33], "eagle_config": {...: [-1, 17, 32]}} as the config that serves
the trained blocks: the negative id the lint flags kept, and vLLM fed the embedding output too."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

from comparelib.models import comparison, serving

H, INTER, V, DV = 4096, 12288, 151936, 32000
QWEN = "Qwen/Qwen3-8B"


def _draft(tmp_path: Path, ids: list[int], name: str = "qwen3-8b-eagle3") -> str:
    """The walk's SpecForge config (1 layer, draft vocab 32,000) and a header-only checkpoint without embed_tokens."""
    cfg = {
        "architectures": ["LlamaForCausalLMEagle3"],
        "model_type": "llama",
        "hidden_size": H,
        "intermediate_size": INTER,
        "num_hidden_layers": 1,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "vocab_size": V,
        "draft_vocab_size": DV,
        "max_position_embeddings": 40960,
        "rope_theta": 1000000.0,
        "rms_norm_eps": 1e-6,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        "hidden_act": "silu",
        "eagle_config": {"eagle_aux_hidden_state_layer_ids": ids, "use_aux_hidden_state": True},
    }
    d = tmp_path / name
    d.mkdir()
    (d / "config.json").write_text(json.dumps(cfg))
    shapes = {"fc.weight": [H, 3 * H], "norm.weight": [H], "lm_head.weight": [DV, H]}
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


def test_negative_id_rows_are_not_same_as_trained_and_no_config_is_offered(tmp_path: Path) -> None:
    e = comparison.load_entry(_draft(tmp_path, [-1, 17, 32]), target=QWEN)
    sg = next(v for v in e.serving if v.label.startswith("SGLang 0.5.23"))
    assert (sg.status, sg.captured) == ("ok", [0, 18, 33])  # the premise: SGLang reads -1 as the embedding output
    assert all(v.same_as_trained is not True for v in e.serving), [(v.label, v.same_as_trained) for v in e.serving]
    adv = serving.advice(**e.serving_args)
    said = serving.headline(e.serving, adv)
    assert "Serves the trained blocks" not in said, said
    assert "whether these are the blocks it was trained on is unknown" in said, said
    assert "SpecForge 0.2.0" in said, said  # why unknown: no trainer produces it
    offered = json.dumps(adv.config)
    assert not adv.possible and "-1" not in offered and "[0," not in offered, adv.config
    rows = serving.table_rows(e.serving, adv)
    assert all(r["same as trained?"] != "yes" for r in rows), rows


def test_trainer_produced_ids_still_serve(tmp_path: Path) -> None:
    e = comparison.load_entry(_draft(tmp_path, [1, 17, 32]), target=QWEN)
    adv = serving.advice(**e.serving_args)
    assert serving.headline(e.serving, adv).startswith("Serves the trained blocks on SGLang 0.5.23")


def test_cli_params_says_no_row_same_as_trained(tmp_path: Path) -> None:
    folder = _draft(tmp_path, [-1, 17, 32])
    run = [sys.executable, "-m", "comparelib", "params", folder, "--target", QWEN]
    text = subprocess.run(run, capture_output=True, text=True, timeout=300, check=True).stdout
    assert "Serves the trained blocks" not in text, text
    assert "same as trained: yes" not in text, text
    out = json.loads(subprocess.run([*run, "--json"], capture_output=True, text=True, timeout=300, check=True).stdout)
    rows = out["serving"] if isinstance(out["serving"], list) else out["serving"]["rows"]
    assert all(r.get("same_as_trained") is not True for r in rows), rows


def test_compare_page_box_is_never_calmer_for_the_negative_id(tmp_path: Path) -> None:
    """The walk's link: the negative-id draft's box was the calm blue info style ("Serves the trained blocks on
    SGLang 0.5.23 ...") while the fixed draft's box, with nothing wrong in it, was yellow."""
    from tests.fixtures import page_app

    bad, good = _draft(tmp_path, [-1, 17, 32]), _draft(tmp_path, [1, 17, 32], "qwen3-8b-eagle3-fixed")
    at = page_app("pages/compare.py", timeout=180)
    at.query_params["draft"] = bad
    at.query_params["m"] = [bad, good]
    at.query_params["target"] = QWEN
    at.run()
    assert not at.exception, at.exception
    said = [(kind, w.value) for kind in ("success", "info", "warning") for w in getattr(at, kind)]
    mine = [(k, s) for k, s in said if s.startswith("**qwen3-8b-eagle3**")]
    assert mine and all(k == "warning" for k, _ in mine), said
    assert not [s for _, s in mine if "Serves the trained blocks" in s], mine
    assert not [s for s in at.markdown if "Config that serves the trained blocks of **qwen3-8b-eagle3**" in s.value]
