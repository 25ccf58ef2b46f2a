"""``params`` without --json: the target, the draft-to-target ratio, the will-it-serve rows, the checkpoint and a
tied lm_head's note are printed, as --json has them (the text printed only counts, components and lint before)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from comparelib.models import serving
from tests.checkpoints import TINY_EAGLE3, TINY_LLAMA, write_checkpoint
from tests.fixtures import KIMI_EAGLE3, run_cli


def _params(*args: str) -> tuple[dict[str, Any], list[str]]:
    """--json's object and the text output's lines for the same arguments."""
    js = run_cli("params", *args, "--json", timeout=300)
    text = run_cli("params", *args, timeout=300)
    assert js.returncode == 0 and text.returncode == 0, (js.stderr, text.stderr)
    assert "Traceback" not in text.stderr
    return json.loads(js.stdout), text.stdout.splitlines()


def _kimi(folder: Path) -> Path:
    config = json.loads(json.dumps(KIMI_EAGLE3))
    config["eagle_config"] = {"eagle_aux_hidden_state_layer_ids": [2, 30, 58]}
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def _tiny_tied(folder: Path, *, head: bool = True) -> Path:
    """A tied tiny EAGLE-3 draft with real safetensors; ``head``: the checkpoint keeps an lm_head.weight anyway."""
    return write_checkpoint(
        {**TINY_EAGLE3, "tie_word_embeddings": True}, folder, exclude=[] if head else ["lm_head.weight"]
    )


def _tiny_target(folder: Path) -> Path:
    return write_checkpoint(TINY_LLAMA, folder)


# (case, draft folder builder, extra args (a "TARGET" item is the local target folder), lines that must be printed)
CASES: list[tuple[str, Any, list[str], list[str]]] = [
    (
        "kimi draft on a shipped target",
        _kimi,
        ["--target", "moonshotai/Kimi-K2-Instruct", "--no-header"],
        [
            "target moonshotai/Kimi-K2-Instruct (1,026,408,232,448 parameters); draft-to-target ratio 0.001160 "
            "(0.116%: excluding embedding over the target's total; 3.624% of its 32,861,500,928 active parameters, "
            "what a token costs it)",
            "  SGLang 0.5.23: ok; feeds outputs of blocks 1, 29, 57 (ids from eagle_config); same as trained: yes",
            "  SGLang 0.5.1: unsupported: DeepseekV3ForCausalLM has no EAGLE-3 hook (AttributeError: no attribute "
            "'set_eagle3_layers_to_capture')",
            "  vLLM 0.34.0 (v2, only runner): ok; feeds outputs of blocks 1, 29, 57 (ids from default); "
            "same as trained: yes",
            "  vLLM 0.33.0 (v2, default): ok; feeds outputs of blocks 1, 29, 57 (ids from default); "
            "same as trained: yes",
            "  vLLM 0.33.0 (v1, VLLM_USE_V2_MODEL_RUNNER=0): ok; feeds outputs of blocks 1, 29, 57 (ids from "
            "eagle_config); same as trained: yes",
            "  lm_head                     229,376,000",
        ],
    ),
    (
        "kimi draft, one engine",
        _kimi,
        ["--target", "moonshotai/Kimi-K2-Instruct", "--engine", "SGLang 0.5.23", "--no-header"],
        ["  SGLang 0.5.23: ok; feeds outputs of blocks 1, 29, 57 (ids from eagle_config); same as trained: yes"],
    ),
    (
        "tied tiny draft on a local target, head stored anyway",
        _tiny_tied,
        ["--target", "TARGET"],
        [
            "target tgt (254,784 parameters); draft-to-target ratio 0.226074 (22.607%: excluding embedding over the "
            "target's total)",
            "  lm_head                               0  (tied to the embedding)",
            "  lm_head                       0  tied to the embedding",
            "checkpoint: 63,744 parameter elements, 352 buffer elements; matches the config",
            "  SGLang 0.5.23: ok; feeds outputs of blocks 1, 3, 4 (ids from eagle_config); same as trained: yes",
            "  vLLM 0.34.0 (v2, only runner): fails: 2 captured states x target hidden 64 = 128 features reach an "
            "fc built for 192 (3 x 64): shape error in the first draft forward; feeds outputs of blocks 1, 2 (ids "
            'from default); same as trained: no; change: add at the top level: {"eagle_aux_hidden_state_layer_ids": '
            "[2, 4, 5]}",
            "  vLLM 0.33.0 (v2, default): fails: 2 captured states x target hidden 64 = 128 features reach an fc "
            "built for 192 (3 x 64): shape error in the first draft forward; feeds outputs of blocks 1, 2 (ids from "
            'default); same as trained: no; change: add at the top level: {"eagle_aux_hidden_state_layer_ids": '
            "[2, 4, 5]}",
        ],
    ),
    (
        "tied tiny draft without a head, no target",
        lambda f: _tiny_tied(f, head=False),
        [],
        [
            "target: none known; give --target for the draft-to-target ratio",
            "checkpoint: 57,600 parameter elements, 352 buffer elements; matches the config",
            "  missing lm_head.weight (by design): lm_head not stored: tied to the embedding (tie_word_embeddings "
            "true); vLLM 0.33.0 and 0.34.0 then use the target's lm_head",
            "will it serve: no verdict: the engines' rules need an EAGLE-3 draft and its target (--target)",
        ],
    ),
]


@pytest.mark.parametrize(("case", "build", "extra", "expected"), CASES, ids=[c[0] for c in CASES])
def test_params_text_prints_what_json_has(
    tmp_path: Path, case: str, build: Any, extra: list[str], expected: list[str]
) -> None:
    draft = build(tmp_path / "draft")
    args = [str(_tiny_target(tmp_path / "tgt")) if a == "TARGET" else a for a in extra]
    data, lines = _params(str(draft), *args)
    for line in expected:
        assert line in lines, (line, lines)
    # every field of --json named in the task has its line: target and ratio, one row per serving verdict,
    # a tied component's note, the checkpoint's notes
    if data["target"] is not None:
        assert any(line.startswith(f"target {data['target']} (") for line in lines)
        assert f"draft-to-target ratio {data['draft_to_target_ratio']:.6f}" in "\n".join(lines)
    for r in data["serving"]:
        label = serving.row_label(r["engine"], r["version"], r["runner"])
        assert any(line.startswith(f"  {label}: {r['status']}") for line in lines), (label, lines)
    assert len([line for line in lines if line.startswith("will it serve: ")]) == 1
    for comp in data["components"]:
        if comp["note"]:
            assert f"note: {comp['name']} {comp['note']}" in lines
    for note in (data["checkpoint"] or {}).get("notes", []):
        assert f"  note: {note}" in lines


def test_params_text_says_the_head_is_tied_and_why(tmp_path: Path) -> None:
    data, lines = _params(str(_tiny_tied(tmp_path / "draft")), "--target-layers", "6")
    assert data["params"]["lm_head_tied"] is True and data["params"]["lm_head"] == 0
    (head,) = [c for c in data["components"] if c["name"] == "lm_head"]
    assert (head["params"], head["tied_to"]) == (0, "embedding")
    (note,) = [line for line in lines if line.startswith("note: lm_head tied to the embedding")]
    assert "models/llama_eagle3.py:303" in note and "vLLM 0.33.0 and 0.34.0 ignore the flag" in note
    (present,) = [line for line in lines if "lm_head.weight is present although tie_word_embeddings" in line]
    assert present in [f"  note: {n}" for n in data["checkpoint"]["notes"]]
    assert "target: none known (N = 6 layers given); give --target for the draft-to-target ratio" in lines


def test_params_text_of_a_target_has_no_target_line_or_serving(tmp_path: Path) -> None:
    folder = _tiny_target(tmp_path / "tgt")
    _, lines = _params(str(folder))
    assert not [line for line in lines if line.startswith(("target", "will it serve"))]
    assert lines[0] == "tgt  (LlamaForCausalLM, llama, a target model)"
    assert lines[1].startswith("note: tgt is a target model")
