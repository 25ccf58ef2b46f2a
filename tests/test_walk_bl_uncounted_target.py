"""Walk BL: a target whose config names a class neither the parameter counter nor the engines' rules know
(Qwen/Qwen3.5-397B-A17B, ``Qwen3_5MoeForConditionalGeneration``).

BL1: with it as the target, "Will it serve?" took Qwen3-MoE's rules from the target's name (``target_class_from_name``
matched "qwen3.5-397b-a17b") although its config was read, and said "Serves the trained blocks on SGLang 0.5.23,
SGLang 0.5.1, ..." (SGLang 0.5.1 has no Qwen3.5 class), with the lint's "Nothing to act on: the wiring matches".
Now: no verdict, "the engines' rules know no EAGLE-3 target class for ... (Qwen3_5MoeForConditionalGeneration)",
and the lint claims no match.

BL6: the same target pasted as your draft was only "unsupported architecture ...": now it is said to be a target,
with the published drafts known for it and the offer to use it as the target, as a countable target is.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.fixtures import cli_in_process, page_app, page_text
from tests.hub_emulator import HubEmulator, write_safetensors_bytes

TARGET = "Qwen/Qwen3.5-397B-A17B"
CLS = "Qwen3_5MoeForConditionalGeneration"
PUBLISHED = "AQ-MedAI/Qwen3.5-397B-A17B-eagle3"  # the registry's draft for TARGET
H, V, DV, N, E = 256, 4096, 512, 8, 8
Shapes = dict[str, tuple[tuple[int, ...], str]]


def _target_config() -> dict[str, object]:
    layer_types = ["full_attention" if (i + 1) % 4 == 0 else "linear_attention" for i in range(N)]
    text = {
        "model_type": "qwen3_5_moe_text",
        "hidden_size": H,
        "num_hidden_layers": N,
        "vocab_size": V,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 64,
        "num_experts": E,
        "num_experts_per_tok": 2,
        "moe_intermediate_size": 128,
        "layer_types": layer_types,
        "mtp_num_hidden_layers": 1,
    }
    return {"architectures": [CLS], "model_type": "qwen3_5_moe", "text_config": text, "tie_word_embeddings": False}


def _target_tensors() -> Shapes:
    p = "model.language_model."
    t: Shapes = {f"{p}embed_tokens.weight": ((V, H), "BF16"), "lm_head.weight": ((V, H), "BF16")}
    for i in range(N):
        t[f"{p}layers.{i}.mlp.experts.gate_up_proj"] = ((E, 256, H), "BF16")
        t[f"{p}layers.{i}.mlp.experts.down_proj"] = ((E, H, 128), "BF16")
    t["mtp.fc.weight"] = ((H, 2 * H), "BF16")
    t["mtp.layers.0.mlp.experts.down_proj"] = ((E, H, 128), "BF16")
    return t


TARGET_TOTAL = 2 * V * H + N * (E * 256 * H + E * H * 128) + H * 2 * H + E * H * 128
TARGET_MTP = H * 2 * H + E * H * 128


def _draft_config(aux: list[int] | None) -> dict[str, object]:
    c: dict[str, object] = {
        "architectures": ["LlamaForCausalLMEagle3"],
        "model_type": "llama",
        "hidden_size": H,
        "intermediate_size": 512,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 64,
        "num_hidden_layers": 1,
        "vocab_size": V,
        "draft_vocab_size": DV,
        "target_hidden_size": H,
        "tie_word_embeddings": False,
    }
    if aux is not None:
        c["eagle_config"] = {"eagle_aux_hidden_state_layer_ids": aux, "use_aux_hidden_state": True}
    return c


def _draft_tensors() -> Shapes:
    m = "midlayer."
    return {
        f"{m}self_attn.q_proj.weight": ((256, 2 * H), "BF16"),
        f"{m}self_attn.k_proj.weight": ((128, 2 * H), "BF16"),
        f"{m}self_attn.v_proj.weight": ((128, 2 * H), "BF16"),
        f"{m}self_attn.o_proj.weight": ((H, 256), "BF16"),
        f"{m}mlp.gate_proj.weight": ((512, H), "BF16"),
        f"{m}mlp.up_proj.weight": ((512, H), "BF16"),
        f"{m}mlp.down_proj.weight": ((H, 512), "BF16"),
        f"{m}input_layernorm.weight": ((H,), "BF16"),
        f"{m}hidden_norm.weight": ((H,), "BF16"),
        f"{m}post_attention_layernorm.weight": ((H,), "BF16"),
        "norm.weight": ((H,), "BF16"),
        "fc.weight": ((H, 3 * H), "BF16"),
        "lm_head.weight": ((DV, H), "BF16"),
        "d2t": ((DV,), "I64"),
        "t2d": ((V,), "BOOL"),
    }


@pytest.fixture
def qwen35(hub: HubEmulator, tmp_path: Path) -> Path:
    """The target and the published draft on the Hub; your own draft (trained on blocks 1, 3, 4) in a folder."""
    hub.add_model(TARGET, _target_config(), tensors=_target_tensors(), shards=2)
    hub.add_model(PUBLISHED, _draft_config(None), tensors=_draft_tensors())
    own = tmp_path / "qwen35-eagle3"
    own.mkdir()
    (own / "config.json").write_text(json.dumps(_draft_config([1, 3, 4])))
    (own / "model.safetensors").write_bytes(write_safetensors_bytes(_draft_tensors()))
    return own


# --- BL1: the serving rows and the lint on a target whose read config names a class the rules do not know

NO_CLASS = f"the engines' rules know no EAGLE-3 target class for {TARGET}"


@pytest.mark.parametrize("which", ["own", "published"])
def test_params_gives_no_serving_rows_from_the_targets_name(
    qwen35: Path, capsys: pytest.CaptureFixture[str], which: str
) -> None:
    source = str(qwen35) if which == "own" else PUBLISHED
    res = cli_in_process(capsys, "params", source, "--target", TARGET)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    (serve,) = [line for line in out.splitlines() if line.startswith("will it serve:")]
    assert serve.startswith(f"will it serve: no verdict: {NO_CLASS}") and f"({CLS})" in serve, serve
    for wrong in ("Serves the trained blocks", "SGLang 0.5.1: ok", "same as trained: yes"):
        assert wrong not in out, out
    (wiring,) = [line for line in out.splitlines() if line.startswith("wiring:")]
    assert "the wiring matches" not in wiring, wiring
    assert "no wiring match with what SGLang 0.5.23 and vLLM 0.34.0 (v2, only runner) will do is claimed" in wiring
    assert f"the engines' rules here do not model the target's class {CLS}" in wiring, wiring

    res = cli_in_process(capsys, "params", source, "--target", TARGET, "--json")
    data = json.loads(res.stdout)
    assert data["serving"] == [], data["serving"]
    assert "qwen3_moe.py" not in res.stdout and "qwen2_moe.py" not in res.stdout


def test_compare_page_says_no_verdict_for_either_draft(qwen35: Path) -> None:
    at = page_app("../pages/compare.py", timeout=120)
    at.query_params["m"] = [str(qwen35), PUBLISHED]
    at.query_params["target"] = TARGET
    at.query_params["target_all"] = "1"
    at.run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert "Serves the trained blocks" not in text, text
    assert text.count(f"{NO_CLASS}@") == 2 and text.count(f"({CLS}); give a target whose family") == 2, text
    assert "Nothing to act on: the wiring matches" not in text, text
    claimed = [i.value for i in at.info if "no wiring match with what" in i.value]  # information, not an all-clear
    assert len(claimed) == 2 and not [s.value for s in at.success if "Nothing to act on" in s.value], claimed


# --- BL6: the target pasted as your draft


def test_params_says_the_pasted_target_is_a_target(qwen35: Path, capsys: pytest.CaptureFixture[str]) -> None:
    res = cli_in_process(capsys, "params", f"https://huggingface.co/{TARGET}")
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert f"note: {TARGET} is a target model ({CLS}, {N} layers), not a draft" in out, out
    assert f"Published drafts for it: {PUBLISHED}." in out, out
    assert f"Use it as the target: python -m comparelib params YOUR_DRAFT --target {TARGET}" in out, out
    assert f"  {'total':<20} {TARGET_TOTAL:>18,}" in out and f"  {'mtp':<20} {TARGET_MTP:>18,}" in out, out
    assert "unsupported architecture" not in out + res.stderr

    res = cli_in_process(capsys, "params", TARGET, "--no-header")  # no headers: no size, never "total 0"
    assert res.returncode == 0, res.stderr
    assert "its size is not known here" in res.stdout and "  total " not in res.stdout, res.stdout


def _notice(at: AppTest) -> str:
    (said,) = [w.value for w in at.warning if "is a target model" in w.value]
    return said


def test_compare_and_overview_give_the_target_notice_and_the_offer(qwen35: Path) -> None:
    at = page_app("../pages/compare.py", timeout=120)
    at.query_params["m"] = [f"https://huggingface.co/{TARGET}"]
    at.run()
    assert not at.exception, at.exception
    said = _notice(at)
    assert said.startswith(f"{TARGET} is a target model ({CLS}, {N} layers, ") and PUBLISHED in said, said
    assert "stored in its checkpoint" in said, said
    assert [b.label for b in at.button if b.label.endswith(" as the target")] == [f"Use {TARGET} as the target"]
    assert not [e.value for e in at.error if "unsupported architecture" in e.value]

    at = page_app("../pages/overview.py", timeout=120)
    at.query_params["draft"] = f"https://huggingface.co/{TARGET}"
    at.run()
    assert not at.exception, at.exception
    said = _notice(at)
    assert PUBLISHED in said and "use this model as the target on Compare drafts" in said, said
    assert not [e.value for e in at.error if "unsupported architecture" in e.value]
