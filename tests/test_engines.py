"""The capture-rule table, one row per behaviour, each naming the engine line it was read from.

Boundaries: 0 = the embedding output, b = output of block b-1, N = after the last block.
"""

from __future__ import annotations

import pytest

from comparelib.errors import InputError
from comparelib.models import engines

# (engine, version, family, ids, N, captured boundaries, status, the engine line this row comes from)
RULE_CASES: list[tuple[str, str, str, list[int] | None, int, tuple[int, ...], str, str]] = [
    # SGLang 0.5.23, Llama/Qwen: always id + 1, capture at a layer's input, so boundary N is out of reach.
    (
        "SGLang",
        "0.5.23",
        "llama",
        [1, 15, 28],
        32,
        (2, 16, 29),
        "ok",
        "sglang/srt/models/llama.py:941 self.model.layers_to_capture = [val + 1 for val in layer_ids]",
    ),
    ("SGLang", "0.5.23", "llama", [2, 30, 58], 61, (3, 31, 59), "ok", "sglang/srt/models/llama.py:941"),
    (
        "SGLang",
        "0.5.23",
        "llama",
        None,
        32,
        (2, 16, 29),
        "ok",
        "sglang/srt/models/llama.py:936 [2, num_layers // 2, num_layers - 3]",
    ),
    (
        "SGLang",
        "0.5.23",
        "llama",
        [-1, 15, 28],
        32,
        (0, 16, 29),
        "ok",
        "sglang/srt/models/llama.py:941 (-1 + 1 = 0: layer 0's input, the embedding output, llama.py:491)",
    ),
    (
        "SGLang",
        "0.5.23",
        "llama",
        [1, 15, 31],
        32,
        (2, 16),
        "short",
        "sglang/srt/models/llama.py:486 for i in range(self.start_layer, self.end_layer): 32 is never an index",
    ),
    (
        "SGLang",
        "0.5.23",
        "llama",
        [1, 15, 15],
        32,
        (2, 16),
        "short",
        "sglang/srt/models/llama.py:492 `if i in self.layers_to_capture`: a repeated layer is captured once",
    ),
    (
        "SGLang",
        "0.5.23",
        "llama",
        [28, 1, 15],
        32,
        (2, 16, 29),
        "ok",
        "sglang/srt/models/llama.py:486 captures in layer order, whatever the order of the ids",
    ),
    # SGLang 0.5.23, Qwen3-MoE: marking layer N raises IndexError at startup.
    (
        "SGLang",
        "0.5.23",
        "qwen-moe",
        [1, 24, 47],
        48,
        (2, 25),
        "startup-fails",
        "sglang/srt/models/qwen2_moe.py:1156 setattr(self.layers[layer_id], ...)",
    ),
    # SGLang 0.5.23, DeepSeek-V2/V3/Kimi: +1 only when the first id is 1.
    (
        "SGLang",
        "0.5.23",
        "deepseek",
        [2, 30, 58],
        61,
        (2, 30, 58),
        "ok",
        "sglang/srt/models/deepseek_v2.py:3473 self.model.layers_to_capture = list(layer_ids)",
    ),
    (
        "SGLang",
        "0.5.23",
        "deepseek",
        [1, 29, 57],
        61,
        (2, 30, 58),
        "ok",
        "sglang/srt/models/deepseek_v2.py:3470 if layer_ids and layer_ids[0] == 1: [val + 1 ...]",
    ),
    ("SGLang", "0.5.23", "deepseek", None, 61, (2, 30, 58), "ok", "sglang/srt/models/deepseek_v2.py:3465"),
    (
        "SGLang",
        "0.5.23",
        "deepseek",
        [-1, 29, 57],
        61,
        (29, 57),
        "capture-fails",
        "sglang/srt/layers/aux_hidden_states.py:86 'captured {n} of {k} aux hidden states'",
    ),
    (
        "SGLang",
        "0.5.23",
        "deepseek",
        [2, 30, 61],
        61,
        (2, 30),
        "capture-fails",
        "sglang/srt/models/deepseek_v2.py:3176 capture only inside the layer loop; packer.finalize raises",
    ),
    # SGLang 0.5.23, gpt-oss: as given when max id == N (captured at the final norm), else +1.
    (
        "SGLang",
        "0.5.23",
        "gpt-oss",
        [2, 12, 24],
        24,
        (2, 12, 24),
        "ok",
        "sglang/srt/models/gpt_oss.py:1350 if layer_ids and max(layer_ids) == num_layers: list(layer_ids)",
    ),
    (
        "SGLang",
        "0.5.23",
        "gpt-oss",
        [1, 11, 23],
        24,
        (2, 12, 24),
        "ok",
        "sglang/srt/models/gpt_oss.py:1352 [val + 1 ...]; gpt_oss.py:732 final_norm capture of end_layer",
    ),
    # SGLang 0.5.1: DeepSeek has no EAGLE-3 capture; gpt-oss always +1 and cannot reach N.
    (
        "SGLang",
        "0.5.1",
        "deepseek",
        [2, 30, 58],
        61,
        (),
        "unsupported",
        "sglang 0.5.1 srt/models/deepseek_v2.py: no set_eagle3_layers_to_capture",
    ),
    (
        "SGLang",
        "0.5.1",
        "gpt-oss",
        [2, 12, 24],
        24,
        (3, 13),
        "short",
        "sglang 0.5.1 srt/models/gpt_oss.py:1147 [val + 1 ...]; gpt_oss.py:569 capture only in the loop",
    ),
    ("SGLang", "0.5.1", "llama", [1, 15, 28], 32, (2, 16, 29), "ok", "sglang 0.5.1 srt/models/llama.py:738"),
    # vLLM 0.33.0: ids are boundaries as given, sorted and de-duplicated, boundary N reachable.
    (
        "vLLM",
        "0.33.0",
        "llama",
        [2, 16, 29],
        32,
        (2, 16, 29),
        "ok",
        "vllm/model_executor/models/llama.py:439 _maybe_add_hidden_state(aux, idx + 1, ...)",
    ),
    (
        "vLLM",
        "0.33.0",
        "llama",
        [0, 16, 32],
        32,
        (0, 16, 32),
        "ok",
        "vllm/model_executor/models/llama.py:429 (boundary 0 before the first layer) and :439 (idx + 1 = N)",
    ),
    (
        "vLLM",
        "0.33.0",
        "llama",
        [29, 2, 16],
        32,
        (2, 16, 29),
        "ok",
        "vllm/model_executor/models/interfaces.py:1617 tuple(sorted(set(layers)))",
    ),
    ("vLLM", "0.33.0", "llama", [2, 16, 16], 32, (2, 16), "short", "vllm/model_executor/models/interfaces.py:1617"),
    (
        "vLLM",
        "0.33.0",
        "llama",
        [-1, 16, 29],
        32,
        (16, 29),
        "short",
        "vllm/model_executor/models/interfaces.py:1647 `if layer_idx in self.aux_hidden_state_layers`: -1 never is",
    ),
    (
        "vLLM",
        "0.33.0",
        "llama",
        None,
        32,
        (2, 16, 29),
        "ok",
        "vllm/model_executor/models/interfaces.py:1772 (2, num_layers // 2, num_layers - 3)",
    ),
    (
        "vLLM",
        "0.33.0",
        "deepseek",
        [2, 30, 58],
        61,
        (2, 30, 58),
        "ok",
        "vllm/model_executor/models/deepseek_v2.py:1561 `if idx in self.aux_hidden_state_layers` before layer idx",
    ),
    (
        "vLLM",
        "0.33.0",
        "deepseek",
        [2, 30, 61],
        61,
        (2, 30, 61),
        "ok",
        "vllm/model_executor/models/deepseek_v2.py:1586 `if self.end_layer in self.aux_hidden_state_layers`",
    ),
    (
        "vLLM",
        "0.33.0",
        "gpt-oss",
        [2, 12, 24],
        24,
        (2, 12, 24),
        "ok",
        "vllm/model_executor/models/gpt_oss.py:532 _maybe_add_hidden_state(aux, i + 1, ...)",
    ),
    # vLLM 0.34.0 (Model Runner V2, its only runner): the same setters and forward loops as 0.33.0.
    ("vLLM", "0.34.0", "llama", [2, 16, 29], 32, (2, 16, 29), "ok", "vllm/model_executor/models/llama.py:439"),
    (
        "vLLM",
        "0.34.0",
        "llama",
        [29, 2, 16],
        32,
        (2, 16, 29),
        "ok",
        "vllm/model_executor/models/interfaces.py:1630 tuple(sorted(set(layers)))",
    ),
    ("vLLM", "0.34.0", "llama", [-1, 16, 29], 32, (16, 29), "short", "vllm/model_executor/models/interfaces.py:1660"),
    (
        "vLLM",
        "0.34.0",
        "llama",
        None,
        32,
        (2, 16, 29),
        "ok",
        "vllm/model_executor/models/interfaces.py:1785 (2, num_layers // 2, num_layers - 3)",
    ),
    (
        "vLLM",
        "0.34.0",
        "deepseek",
        [2, 30, 61],
        61,
        (2, 30, 61),
        "ok",
        "vllm/model_executor/models/deepseek_v2.py:1586",
    ),
    (
        "vLLM",
        "0.34.0",
        "qwen-moe",
        [2, 24, 48],
        48,
        (2, 24, 48),
        "ok",
        "vllm/model_executor/models/interfaces.py:1630",
    ),
    ("vLLM", "0.34.0", "gpt-oss", [2, 12, 24], 24, (2, 12, 24), "ok", "vllm/model_executor/models/gpt_oss.py:532"),
    # Trainers.
    (
        "SpecForge",
        "0.2.0",
        "llama",
        None,
        32,
        (2, 16, 29),
        "ok",
        "specforge/algorithms/model_providers.py:204 [1, N//2-1, N-4], captured through SGLang (+1)",
    ),
    (
        "SpecForge",
        "0.2.0",
        "deepseek",
        [2, 30, 58],
        61,
        (2, 30, 58),
        "ok",
        "specforge/offline_capture/sglang_backend/capture.py:87 set_eagle3_layers_to_capture (DeepSeek rule)",
    ),
    (
        "SpecForge",
        "0.2.0",
        "llama",
        [-1, 15, 28],
        32,
        (),
        "refused",
        "specforge/algorithms/model_providers.py:206 'three non-negative integers'",
    ),
    ("SpecForge", "0.2.0", "llama", [1, 15], 32, (), "refused", "specforge/application/planning.py:104 len != 3"),
    (
        "speculators",
        "0.9.0",
        "llama",
        None,
        32,
        (2, 16, 29),
        "ok",
        "speculators/models/utils.py:111 [2, num_layers // 2, num_layers - 3]",
    ),
    (
        "speculators",
        "0.9.0",
        "llama",
        [2, 16, 32],
        32,
        (2, 16, 32),
        "ok",
        "speculators/models/utils.py:119 max(target_layer_ids) > num_layers is the limit: N is valid",
    ),
    (
        "speculators",
        "0.9.0",
        "llama",
        [-1, 16, 29],
        32,
        (),
        "refused",
        "speculators/models/utils.py:119 min(target_layer_ids) < 0",
    ),
]


@pytest.mark.parametrize(
    ("engine", "version", "family", "ids", "n", "captured", "status", "line"),
    RULE_CASES,
    ids=[f"{c[0]}-{c[1]}-{c[2]}-{c[3]}-{c[4]}" for c in RULE_CASES],
)
def test_capture_rules(
    engine: str,
    version: str,
    family: str,
    ids: list[int] | None,
    n: int,
    captured: tuple[int, ...],
    status: str,
    line: str,
) -> None:
    rule = engines.rule(engine, version, family)
    got = engines.capture(rule, ids, n, family=family)
    assert (got.captured, got.status) == (captured, status), line
    # the row cites the file this case's line comes from
    cited_file = line.split(":")[0].split()[-1].split("/", 1)[-1]
    assert cited_file.rsplit("/", 1)[-1] in rule.source or rule.role == engines.TRAINING, (cited_file, rule.source)


def test_every_rule_cites_an_engine_file_and_function() -> None:
    for r in engines.RULES:
        assert r.version in r.source and ".py" in r.source, r
        assert r.family in engines.FAMILIES or r.family == "*"
    keys = [r.key for r in engines.RULES]
    assert len(keys) == len(set(keys))


def test_speculators_format_is_not_read_by_sglang() -> None:
    r = engines.rule("SGLang", "0.5.23", "llama")
    got = engines.capture(r, [2, 16, 29], 32, reads_config=False)
    assert got.status == "not-read" and "does not read speculators-format configs" in got.note
    assert engines.rule("vLLM").reads_speculators and not r.reads_speculators


@pytest.mark.parametrize(
    ("rule_kind", "boundaries", "n", "ids"),
    [
        (engines.PLUS_ONE, [2, 16, 29], 32, [1, 15, 28]),
        (engines.AS_GIVEN, [2, 16, 29], 32, [2, 16, 29]),
        (engines.PLUS_ONE_IF_FIRST_IS_ONE, [2, 30, 58], 61, [2, 30, 58]),
        (engines.PLUS_ONE_IF_FIRST_IS_ONE, [1, 29, 57], 61, None),  # unreachable: a first id of 1 means +1
        (engines.AS_GIVEN_IF_MAX_IS_N, [2, 12, 24], 24, [2, 12, 24]),
        (engines.AS_GIVEN_IF_MAX_IS_N, [2, 12, 23], 24, [1, 11, 22]),
    ],
)
def test_ids_for_inverts_the_rule(rule_kind: str, boundaries: list[int], n: int, ids: list[int] | None) -> None:
    assert engines.ids_for(rule_kind, boundaries, n) == ids
    if ids is not None:
        assert engines.apply_explicit(rule_kind, ids, n) == boundaries


def test_read_ids_follows_each_engine_lookup() -> None:
    top_only = {"eagle_aux_hidden_state_layer_ids": [1, 15, 28]}
    nested = {"eagle_config": {"eagle_aux_hidden_state_layer_ids": [2, 16, 29]}}
    both = {**top_only, **nested}
    sg, vl = engines.rule("SGLang"), engines.rule("vLLM")
    assert engines.read_ids(sg, top_only, "specforge-eagle3") is None  # spec_aux_hidden_state.py:192
    assert engines.read_ids(vl, top_only, "specforge-eagle3") == (1, 15, 28)  # gpu_model_runner.py:5207
    assert engines.read_ids(sg, both, "specforge-eagle3") == (2, 16, 29)
    assert engines.read_ids(vl, both, "specforge-eagle3") == (1, 15, 28)  # top level first in vLLM
    # vLLM 0.34.0 (the newest) has only Model Runner V2: eagle_config ids are never read, eagle_config.layer_ids is
    v33 = engines.rule("vLLM", "0.33.0")
    assert vl.version == "0.34.0" and engines.read_ids(vl, nested, "specforge-eagle3") is None  # eagle3_utils.py:109
    assert engines.read_ids(v33, nested, "specforge-eagle3") == (2, 16, 29)  # V1, gpu_model_runner.py:5219
    layer_ids = {"eagle_config": {"layer_ids": [3, 17, 30]}}
    assert engines.read_ids(vl, layer_ids, "specforge-eagle3") == (3, 17, 30)  # eagle3_utils.py:135
    assert engines.read_ids(v33, layer_ids, "specforge-eagle3") is None


@pytest.mark.parametrize(
    ("name", "family"),
    [
        ("deepseek-v3", "deepseek"),
        ("moonshotai/Kimi-K2.5", "deepseek"),
        ("openai/gpt-oss-120b", "gpt-oss"),
        ("Qwen/Qwen3-235B-A22B-Instruct-2507", "qwen-moe"),
        ("qwen3-moe", "qwen-moe"),
        ("qwen3", "llama"),
        ("meta-llama/Llama-3.1-8B-Instruct", "llama"),
        ("gpt2", None),
        (None, None),
        ("deepseek-ai/DeepSeek-R1-Distill-Llama-8B", "llama"),
        ("Qwen/Qwen3-Coder-480B-A35B-Instruct", "qwen-moe"),
        ("Qwen/Qwen3-Next-80B-A3B-Instruct", "qwen-moe"),
        ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama"),
        ("llama4", "llama"),  # our dialects for the new targets
        ("qwen3-next", "qwen-moe"),
        ("gemma3", None),  # no old-table family: the serving model's Gemma3ForConditionalGeneration rules apply
    ],
)
def test_family_of(name: str | None, family: str | None) -> None:
    assert engines.family_of(name) == family


def test_choices_newest_first_and_parsing() -> None:
    assert engines.serving_choices()[:2] == ["SGLang 0.5.23", "SGLang 0.5.1"]
    assert engines.serving_choices() == ["SGLang 0.5.23", "SGLang 0.5.1", "vLLM 0.34.0", "vLLM 0.33.0"]
    assert engines.parse_choice("vllm") == ("vLLM", "0.34.0")
    assert engines.parse_choice("vLLM 0.33.0") == ("vLLM", "0.33.0")
    assert engines.parse_choice("SGLang 0.5.1") == ("SGLang", "0.5.1")
    for bad in ("", "tgi", "SGLang 9.9"):
        with pytest.raises(InputError):
            engines.parse_choice(bad)
    assert {r["engine"] for r in engines.table_rows()} == {"SGLang", "vLLM", "SpecForge", "speculators"}
