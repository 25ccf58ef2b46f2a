"""Walk AD 3: a checkpoint whose tensors are not the shapes its config builds is not "Nothing to act on".

otherlab/q3-8b-eagle3's config (32 heads x 128) builds q_proj [4096, 8192] and o_proj [4096, 4096]; its safetensors
header stores [8192, 8192] and [4096, 8192]. ``params`` said "checkpoint: ... does not match the config", yet the
lint said "Nothing to act on", every "Will it serve?" row read "ok" and Compare offered "Config that serves the
trained blocks". Each engine builds every tensor from the config and loads the checkpoint into it; what its weight
loader then does with a tensor of another shape is read from the wheels (vLLM 0.33.0/0.34.0 ModelWeightParameter
and default_weight_loader, SGLang 0.5.1/0.5.23 linear.py weight_loader): the default loader, the embedding's and a
dimension the loader does not slice assert; a dimension it slices (the output rows of q/k/v and gate/up, the input
columns of o_proj and down_proj) keeps the first rows or columns of a larger checkpoint without an error, and a
smaller one raises in narrow (vLLM, SGLang 0.5.1) or is padded with zeros (SGLang 0.5.23's gate/up and row loaders).
Both ways the engine does not serve the draft that was trained. Through Compare, ``params`` and the page:
tests/test_walk_ad_checkpoint_entry.py.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from comparelib.models import lint
from comparelib.models import serving as serving_model
from comparelib.models.architectures import parse_config
from tests.fixtures import QWEN3_8B_EAGLE3

TARGET = "Qwen/Qwen3-8B"  # shipped: hidden 4096, 36 layers, vocab 151936
QPROJ, OPROJ = "midlayer.self_attn.q_proj.weight", "midlayer.self_attn.o_proj.weight"
ROWS = ["SGLang 0.5.23", "SGLang 0.5.1", "vLLM 0.34.0 (v2, only runner)", "vLLM 0.33.0 (v2, default)"]
V1 = "vLLM 0.33.0 (v1, VLLM_USE_V2_MODEL_RUNNER=0)"


def _config() -> dict[str, Any]:
    cfg = copy.deepcopy(QWEN3_8B_EAGLE3)
    cfg["eagle_config"] = {"eagle_aux_hidden_state_layer_ids": [1, 17, 32]}
    return cfg


def _serve(shapes: list[tuple[str, list[int], list[int]]]) -> dict[str, serving_model.Verdict]:
    args: dict[str, Any] = {
        "draft": _config(),
        "target_arch": "Qwen3ForCausalLM",
        "n_layers": 36,
        "target_hidden": 4096,
        "fc_in_checkpoint": 12288,
        "checkpoint_shapes": shapes,
    }
    return {v.label: v for v in serving_model.serve(**args)}


WALK = [(QPROJ, [4096, 8192], [8192, 8192]), (OPROJ, [4096, 4096], [4096, 8192])]
SLICED = "the loader keeps the first {keep} of its {have} {what} and drops the rest without an error"
ASSERTS = "the weight load asserts on the shape"

# (mismatches, {row label: text its reason holds, or "ok"}, every failing row's captured is None (it stops at load))
LOAD_CASES: list[tuple[str, list[tuple[str, list[int], list[int]]], dict[str, str], bool]] = [
    (
        "walk AD: q_proj and o_proj of a 64-head draft in a 32-head config",
        WALK,
        {
            r: f"at load: {QPROJ} shape [8192, 8192] vs config [4096, 8192]: "
            + SLICED.format(keep=4096, have=8192, what="rows")
            for r in [*ROWS, V1]
        },
        False,
    ),
    (
        "q_proj in-features the loader does not slice",
        [(QPROJ, [4096, 8192], [4096, 4096])],
        {r: f"at load: {QPROJ} shape [4096, 4096] vs config [4096, 8192]: {ASSERTS}" for r in [*ROWS, V1]},
        True,
    ),
    (
        "q_proj with fewer rows than the config's",
        [(QPROJ, [4096, 8192], [2048, 8192])],
        {r: "cannot cut 4096 rows from its 2048 (RuntimeError in narrow)" for r in [*ROWS, V1]},
        True,
    ),
    (
        "o_proj with fewer input columns: SGLang 0.5.23 pads with zeros, the others raise",
        [(OPROJ, [4096, 4096], [4096, 2048])],
        {
            "SGLang 0.5.23": "pads its 2048 columns with zeros to 4096 without an error",
            "SGLang 0.5.1": "cannot cut 4096 columns from its 2048",
            "vLLM 0.34.0 (v2, only runner)": "cannot cut 4096 columns from its 2048",
            V1: "cannot cut 4096 columns from its 2048",
        },
        False,
    ),
    (
        "a norm of another width",
        [("norm.weight", [4096], [2048])],
        {r: f"at load: norm.weight shape [2048] vs config [4096]: {ASSERTS}" for r in [*ROWS, V1]},
        True,
    ),
    (
        "d2t: vLLM loads it with the default loader, SGLang adds it to arange without a check",
        [("d2t", [32000], [16000])],
        {
            "SGLang 0.5.23": "ok",
            "SGLang 0.5.1": "ok",
            "vLLM 0.34.0 (v2, only runner)": f"at load: d2t shape [16000] vs config [32000]: {ASSERTS}",
            V1: f"at load: d2t shape [16000] vs config [32000]: {ASSERTS}",
        },
        True,
    ),
    ("t2d: every engine skips it", [("t2d", [151936], [128256])], {r: "ok" for r in [*ROWS, V1]}, False),
    ("no mismatch", [], {r: "ok" for r in [*ROWS, V1]}, False),
]


@pytest.mark.parametrize(("case", "shapes", "want", "stops"), LOAD_CASES, ids=[c[0] for c in LOAD_CASES])
def test_each_engine_loads_a_tensor_of_another_shape_as_its_code_does(
    case: str, shapes: list[tuple[str, list[int], list[int]]], want: dict[str, str], stops: bool
) -> None:
    rows = _serve(shapes)
    for label, said in want.items():
        v = rows[label]
        if said == "ok":
            assert v.status == "ok", (case, label, v.reason)
            continue
        assert v.status == "fails", (case, label, v.status, v.reason)
        assert v.reason.startswith("at load: "), (case, label, v.reason)
        assert said in v.reason, (case, label, v.reason)
        if "pads" in said or "keeps the first" in said:
            assert v.captured is not None, (case, label)  # it starts: the draft it serves is not the trained one
            assert "the engine starts with a draft that is not the one trained" in v.reason, v.reason
        else:
            assert v.captured is None, (case, label)
        assert any(
            "parameter.py" in c or "linear.py" in c or "weight_utils.py" in c or "vocab_parallel" in c for c in v.cite
        ), (case, label, v.cite)
    if stops:
        assert all(v.captured is None for v in rows.values() if v.status == "fails"), case


def test_the_walk_rows_name_both_tensors_and_cite_the_loaders() -> None:
    rows = _serve(WALK)
    v = rows["vLLM 0.34.0 (v2, only runner)"]
    assert f"{OPROJ} shape [4096, 8192] vs config [4096, 4096]: " + SLICED.format(
        keep=4096, have=8192, what="columns"
    ) in (v.reason), v.reason
    assert "vllm 0.34.0 vllm/model_executor/parameter.py:188" in v.cite, v.cite  # load_qkv_weight's narrow
    assert "vllm 0.34.0 vllm/model_executor/parameter.py:213" in v.cite, v.cite  # load_row_parallel_weight's narrow
    sg = rows["SGLang 0.5.23"]
    assert "sglang 0.5.23 sglang/srt/layers/linear.py:1523" in sg.cite, sg.cite  # QKVParallelLinear.weight_loader
    assert "sglang 0.5.23 sglang/srt/layers/linear.py:1699" in sg.cite, sg.cite  # RowParallelLinear.weight_loader
    known = {str(c) for c in serving_model.CITES.values()}
    assert set(v.cite + sg.cite) <= known


def test_no_config_serves_the_trained_blocks_of_a_checkpoint_that_does_not_match_its_config() -> None:
    args: dict[str, Any] = {
        "draft": _config(),
        "target_arch": "Qwen3ForCausalLM",
        "n_layers": 36,
        "target_hidden": 4096,
    }
    assert serving_model.advice(**args, fc_in_checkpoint=12288).possible
    adv = serving_model.advice(**args, fc_in_checkpoint=12288, checkpoint_shapes=WALK)
    assert not adv.possible and not adv.config
    assert f"{QPROJ}: checkpoint [8192, 8192], config [4096, 8192]" in adv.why[0], adv.why
    assert serving_model.advice(**args, fc_in_checkpoint=12288, checkpoint_shapes=[WALK[0][:1] + WALK[0][1:]]).why
    # a tensor no engine loads does not stop the config
    assert serving_model.advice(
        **args, fc_in_checkpoint=12288, checkpoint_shapes=[("t2d", [151936], [128256])]
    ).possible
    rows = list(_serve(WALK).values())
    change = serving_model.change_for(rows[0], adv)
    assert "the config the checkpoint was trained with" in change, change
    head = serving_model.headline(rows, adv)
    assert "does not load this checkpoint as trained" in head, head


def test_lint_names_every_tensor_and_both_shapes() -> None:
    spec = parse_config(_config(), source="x")
    found = lint.lint(spec, checkpoint_shapes=WALK)
    errors = [f for f in found if f.code == "checkpoint-shape"]
    assert len(errors) == 1 and errors[0].severity == "error", found
    msg = errors[0].message
    assert f"{QPROJ} is [8192, 8192] but the config builds [4096, 8192]" in msg, msg
    assert f"{OPROJ} is [4096, 8192] but the config builds [4096, 4096]" in msg, msg
    assert not [f for f in lint.lint(spec, checkpoint_shapes=[]) if f.code == "checkpoint-shape"]
    t2d = [f for f in lint.lint(spec, checkpoint_shapes=[("t2d", [151936], [128256])]) if f.code == "checkpoint-shape"]
    assert t2d and t2d[0].severity == "warning" and "no engine loads it" in t2d[0].message, t2d
