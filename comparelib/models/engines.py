"""Which target layers an EAGLE-3 draft is fed, per engine, engine version and target family.

Every rule below was read from the engine's released code (the wheel on the package index), and each
row names the file and function it comes from. These per-family rows predate ``serving``, which models each
engine version and vLLM runner per target class and is what ``lint`` and ``params --json`` use (on a target of
unknown class, its Llama-like class, and saying so); this table serves only the engine choices and
``lint.capture_table``. Its vLLM 0.33.0 rows
describe Model Runner V1 (``VLLM_USE_V2_MODEL_RUNNER=0``), not 0.33.0's default; its vLLM 0.34.0 rows describe
Model Runner V2, 0.34.0's only runner (V1 was removed).

Numbering used throughout: boundary ``b`` is the input of block ``b`` (0 = the embedding output,
``N`` = after the last of ``N`` blocks), i.e. HF ``output_hidden_states[b]``; "output of block k"
is boundary ``k + 1``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from comparelib.errors import InputError

# Target families: the engines' model files group architectures like this.
FAMILIES: dict[str, str] = {
    "llama": "Llama / Llama-4 / Mistral / Qwen2 / Qwen3 (dense)",
    "qwen-moe": "Qwen2-MoE / Qwen3-MoE / Qwen3-Next",
    "deepseek": "DeepSeek-V2 / V3, Kimi-K2 / K2.5",
    "gpt-oss": "gpt-oss",
}

# our dialect (architectures.DIALECTS) -> family
_DIALECT_FAMILY: dict[str, str] = {
    "llama": "llama",
    "qwen2": "llama",
    "qwen3": "llama",
    "qwen3-moe": "qwen-moe",
    "qwen3-next": "qwen-moe",
    "llama4": "llama",
    "deepseek-v3": "deepseek",
    "gpt-oss": "gpt-oss",
}

# Explicit-id rules (how an engine turns configured ids into capture boundaries).
PLUS_ONE = "plus-one"  # boundary = id + 1
PLUS_ONE_IF_FIRST_IS_ONE = "plus-one-if-first-is-1"  # +1 only when ids[0] == 1, else as given
AS_GIVEN_IF_MAX_IS_N = "as-given-if-max-is-N"  # as given when max(ids) == N, else +1
AS_GIVEN = "as-given"  # boundary = id
UNSUPPORTED = "unsupported"  # the engine has no EAGLE-3 capture for this family

# What happens when a boundary is never reached (id -1 as given, a boundary past the reach, a repeat).
SHORT: Final = "short"  # fewer states than the draft's fc expects: the fc matmul fails on the shape
CAPTURE_FAILS: Final = "capture-fails"  # the capture buffer raises "captured 2 of 3 aux hidden states"
STARTUP_FAILS: Final = "startup-fails"  # an IndexError while marking layers, before serving starts

SERVING: Final = "serving"
TRAINING: Final = "training"
Role = Literal["serving", "training"]
Unmatched = Literal["short", "capture-fails", "startup-fails"]
# What one engine does with one draft: runs, or why not (the three above, refused/not-read/unsupported).
Status = Literal["ok", "short", "capture-fails", "startup-fails", "refused", "not-read", "unsupported"]


@dataclass(frozen=True)
class CaptureRule:
    """How one engine version captures aux hidden states for one target family."""

    engine: str  # "SGLang" | "vLLM" | "SpecForge" | "speculators"
    version: str
    family: str  # a FAMILIES key, or "*" for every family
    role: Role
    explicit: str  # one of the explicit-id rules above
    default: tuple[str, str, str]  # boundaries used when the config names no ids, as expressions of N
    reach: str  # highest boundary the engine can capture: "N-1" or "N"
    order: str  # how the engine orders and de-duplicates what it captures
    unmatched: Unmatched  # a boundary that is never reached
    ids_from: tuple[str, ...]  # where the ids are read, first hit wins: "top-level", "eagle_config"
    reads_speculators: bool  # whether it reads speculators-format (Eagle3Speculator) configs
    source: str  # engine file and function this row was read from
    refuses: str = ""  # trainers: what they reject outright (empty: nothing)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.engine, self.version, self.family)

    @property
    def label(self) -> str:
        return f"{self.engine} {self.version}"


_BOUNDARY_DEFAULT = ("2", "N//2", "N-3")
_SG_ORDER = "captured in layer order, each layer once (`i in layers_to_capture`)"
_VLLM_ORDER = "sorted and de-duplicated (EagleModelMixin._set_aux_hidden_state_layers)"
_SG_IDS = ("eagle_config",)
_VLLM_IDS = ("top-level", "eagle_config")
_VLLM_V2_IDS = ("top-level", "eagle_config.layer_ids")
_V34_READ = (
    "; ids from v1/worker/gpu/spec_decode/eagle/eagle3_utils.py get_eagle3_aux_layers_from_config (line 109: top "
    "level, then eagle_config.layer_ids, never eagle_config.eagle_aux_hidden_state_layer_ids); Model Runner V2 is "
    "the only runner (v1/worker/gpu_worker.py line 587; VLLM_USE_V2_MODEL_RUNNER=0 raises, platforms/interface.py "
    "line 1484)"
)
_SG_READ = (
    "; ids read only from eagle_config (srt/model_executor/model_runner_components/spec_aux_hidden_state.py "
    "_resolve_eagle_aux_hidden_state)"
)

RULES: tuple[CaptureRule, ...] = (
    # ---- SGLang 0.5.23 ------------------------------------------------------------------------
    CaptureRule(
        "SGLang",
        "0.5.23",
        "llama",
        SERVING,
        PLUS_ONE,
        _BOUNDARY_DEFAULT,
        "N-1",
        _SG_ORDER,
        SHORT,
        _SG_IDS,
        False,
        "sglang 0.5.23 srt/models/llama.py LlamaForCausalLM.set_eagle3_layers_to_capture (line 941: "
        "[val + 1 for val in layer_ids]); capture at a layer's input in LlamaModel.forward (line 491); "
        "qwen3.py / qwen2.py alike (lines 791 / 794)" + _SG_READ,
    ),
    CaptureRule(
        "SGLang",
        "0.5.23",
        "qwen-moe",
        SERVING,
        PLUS_ONE,
        _BOUNDARY_DEFAULT,
        "N-1",
        _SG_ORDER,
        STARTUP_FAILS,
        _SG_IDS,
        False,
        "sglang 0.5.23 srt/models/qwen3_moe.py Qwen3MoeForCausalLM.set_eagle3_layers_to_capture (line "
        "1143: val + 1), marked by srt/models/qwen2_moe.py Qwen2MoeModel.set_eagle3_layers_to_capture "
        "(line 1156: setattr(self.layers[layer_id], ...)); Qwen3-Next alike (srt/models/qwen3_next.py "
        "lines 1301, 957)" + _SG_READ,
    ),
    CaptureRule(
        "SGLang",
        "0.5.23",
        "deepseek",
        SERVING,
        PLUS_ONE_IF_FIRST_IS_ONE,
        _BOUNDARY_DEFAULT,
        "N-1",
        _SG_ORDER,
        CAPTURE_FAILS,
        _SG_IDS,
        False,
        "sglang 0.5.23 srt/models/deepseek_v2.py DeepseekV2ForCausalLM.set_eagle3_layers_to_capture "
        "(lines 3470-3473: +1 only if layer_ids[0] == 1); AuxHiddenStatePacker.finalize in "
        "srt/layers/aux_hidden_states.py (line 86: 'captured {n} of {k} aux hidden states'); Kimi-K2.5 "
        "delegates (srt/models/kimi_k25.py line 939)" + _SG_READ,
    ),
    CaptureRule(
        "SGLang",
        "0.5.23",
        "gpt-oss",
        SERVING,
        AS_GIVEN_IF_MAX_IS_N,
        _BOUNDARY_DEFAULT,
        "N",
        _SG_ORDER,
        SHORT,
        _SG_IDS,
        False,
        "sglang 0.5.23 srt/models/gpt_oss.py GptOssForCausalLM.set_eagle3_layers_to_capture (lines "
        "1349-1352: as given when max(layer_ids) == num_layers, else val + 1); boundary N captured at "
        "the final norm in GptOssModel.forward (line 732)" + _SG_READ,
    ),
    # ---- SGLang 0.5.1 (before the DeepSeek and gpt-oss paths changed) -------------------------------
    CaptureRule(
        "SGLang",
        "0.5.1",
        "llama",
        SERVING,
        PLUS_ONE,
        _BOUNDARY_DEFAULT,
        "N-1",
        _SG_ORDER,
        SHORT,
        _SG_IDS,
        False,
        "sglang 0.5.1 srt/models/llama.py LlamaForCausalLM.set_eagle3_layers_to_capture (line 738: "
        "val + 1); ids read only from eagle_config (srt/model_executor/model_runner.py line 373)",
    ),
    CaptureRule(
        "SGLang",
        "0.5.1",
        "qwen-moe",
        SERVING,
        PLUS_ONE,
        _BOUNDARY_DEFAULT,
        "N-1",
        _SG_ORDER,
        SHORT,
        _SG_IDS,
        False,
        "sglang 0.5.1 srt/models/qwen3_moe.py set_eagle3_layers_to_capture (val + 1); ids read only from "
        "eagle_config (srt/model_executor/model_runner.py line 373)",
    ),
    CaptureRule(
        "SGLang",
        "0.5.1",
        "deepseek",
        SERVING,
        UNSUPPORTED,
        _BOUNDARY_DEFAULT,
        "N-1",
        _SG_ORDER,
        SHORT,
        _SG_IDS,
        False,
        "sglang 0.5.1 srt/models/deepseek_v2.py: DeepseekV2ForCausalLM has no "
        "set_eagle3_layers_to_capture, so EAGLE-3 cannot run on DeepSeek-V3/Kimi targets",
    ),
    CaptureRule(
        "SGLang",
        "0.5.1",
        "gpt-oss",
        SERVING,
        PLUS_ONE,
        _BOUNDARY_DEFAULT,
        "N-1",
        _SG_ORDER,
        SHORT,
        _SG_IDS,
        False,
        "sglang 0.5.1 srt/models/gpt_oss.py GptOssForCausalLM.set_eagle3_layers_to_capture (line 1147: "
        "always val + 1); capture only inside the layer loop (line 569)",
    ),
    # ---- vLLM 0.34.0 (Model Runner V2, the only runner) ------------------------------------------------
    CaptureRule(
        "vLLM",
        "0.34.0",
        "llama",
        SERVING,
        AS_GIVEN,
        _BOUNDARY_DEFAULT,
        "N",
        _VLLM_ORDER,
        SHORT,
        _VLLM_V2_IDS,
        True,
        "vllm 0.34.0 model_executor/models/interfaces.py EagleModelMixin._set_aux_hidden_state_layers "
        "(line 1630: tuple(sorted(set(layers)))) and SupportsEagle3.get_eagle3_default_aux_hidden_state_"
        "layers (line 1785); boundaries 0..N in model_executor/models/llama.py LlamaModel.forward "
        "(lines 429, 439)" + _V34_READ,
    ),
    CaptureRule(
        "vLLM",
        "0.34.0",
        "qwen-moe",
        SERVING,
        AS_GIVEN,
        _BOUNDARY_DEFAULT,
        "N",
        _VLLM_ORDER,
        SHORT,
        _VLLM_V2_IDS,
        True,
        "vllm 0.34.0 model_executor/models/interfaces.py EagleModelMixin._set_aux_hidden_state_layers "
        "(line 1630) and _maybe_add_hidden_state (line 1660)" + _V34_READ,
    ),
    CaptureRule(
        "vLLM",
        "0.34.0",
        "deepseek",
        SERVING,
        AS_GIVEN,
        _BOUNDARY_DEFAULT,
        "N",
        "captured in layer order, each layer once (`idx in aux_hidden_state_layers`)",
        SHORT,
        _VLLM_V2_IDS,
        True,
        "vllm 0.34.0 model_executor/models/deepseek_v2.py DeepseekV2ForCausalLM.set_aux_hidden_state_"
        "layers (line 1956, as given) and DeepseekV2Model.forward (line 1561 before each layer, line 1586 "
        "after the last); Kimi-K2.5 delegates (model_executor/models/kimi_k25.py line 471)" + _V34_READ,
    ),
    CaptureRule(
        "vLLM",
        "0.34.0",
        "gpt-oss",
        SERVING,
        AS_GIVEN,
        _BOUNDARY_DEFAULT,
        "N",
        _VLLM_ORDER,
        SHORT,
        _VLLM_V2_IDS,
        True,
        "vllm 0.34.0 model_executor/models/gpt_oss.py GptOssModel.forward (lines 526, 532: boundary "
        "i + 1 after block i) with EagleModelMixin (interfaces.py line 1630)" + _V34_READ,
    ),
    # ---- vLLM 0.33.0 (Model Runner V1, VLLM_USE_V2_MODEL_RUNNER=0) ------------------------------------
    CaptureRule(
        "vLLM",
        "0.33.0",
        "llama",
        SERVING,
        AS_GIVEN,
        _BOUNDARY_DEFAULT,
        "N",
        _VLLM_ORDER,
        SHORT,
        _VLLM_IDS,
        True,
        "vllm 0.33.0 model_executor/models/interfaces.py EagleModelMixin._set_aux_hidden_state_layers "
        "(line 1617: tuple(sorted(set(layers)))) and SupportsEagle3.get_eagle3_default_aux_hidden_state_"
        "layers (line 1772); boundaries 0..N in model_executor/models/llama.py LlamaModel.forward "
        "(lines 429, 439); ids from v1/worker/gpu_model_runner.py _get_eagle3_aux_layers_from_config "
        "(line 5207: top level, then eagle_config)",
    ),
    CaptureRule(
        "vLLM",
        "0.33.0",
        "qwen-moe",
        SERVING,
        AS_GIVEN,
        _BOUNDARY_DEFAULT,
        "N",
        _VLLM_ORDER,
        SHORT,
        _VLLM_IDS,
        True,
        "vllm 0.33.0 model_executor/models/interfaces.py EagleModelMixin._set_aux_hidden_state_layers "
        "(line 1617) and _maybe_add_hidden_state (line 1647); ids from v1/worker/gpu_model_runner.py "
        "_get_eagle3_aux_layers_from_config (line 5207)",
    ),
    CaptureRule(
        "vLLM",
        "0.33.0",
        "deepseek",
        SERVING,
        AS_GIVEN,
        _BOUNDARY_DEFAULT,
        "N",
        "captured in layer order, each layer once (`idx in aux_hidden_state_layers`)",
        SHORT,
        _VLLM_IDS,
        True,
        "vllm 0.33.0 model_executor/models/deepseek_v2.py DeepseekV2ForCausalLM.set_aux_hidden_state_"
        "layers (line 1956, as given) and DeepseekV2Model.forward (line 1561 before each layer, line 1586 "
        "after the last); Kimi-K2.5 delegates (model_executor/models/kimi_k25.py line 471)",
    ),
    CaptureRule(
        "vLLM",
        "0.33.0",
        "gpt-oss",
        SERVING,
        AS_GIVEN,
        _BOUNDARY_DEFAULT,
        "N",
        _VLLM_ORDER,
        SHORT,
        _VLLM_IDS,
        True,
        "vllm 0.33.0 model_executor/models/gpt_oss.py GptOssModel.forward (lines 526, 532: boundary "
        "i + 1 after block i) with EagleModelMixin (interfaces.py line 1617)",
    ),
    # ---- trainers -----------------------------------------------------------------------------------
    CaptureRule(
        "SpecForge",
        "0.2.0",
        "*",
        TRAINING,
        "via-sglang",
        ("1", "N//2-1", "N-4"),
        "N-1",
        "captures through SGLang's set_eagle3_layers_to_capture",
        SHORT,
        ("run override", "eagle_config"),
        False,
        "specforge 0.2.0 specforge/algorithms/model_providers.py resolve_eagle_capture_layers (line 204: "
        "default [1, N//2-1, N-4]; line 206: exactly three non-negative ids); captured through SGLang "
        "(specforge/offline_capture/sglang_backend/capture.py line 87); specforge/application/"
        "composition.py resolve_offline_capture (ids < N)",
        refuses="negative ids, repeats, a count other than three, ids >= N",
    ),
    CaptureRule(
        "speculators",
        "0.9.0",
        "*",
        TRAINING,
        AS_GIVEN,
        _BOUNDARY_DEFAULT,
        "N",
        "captured through vLLM (sorted, de-duplicated)",
        SHORT,
        ("top-level",),
        True,
        "speculators 0.9.0 speculators/models/utils.py resolve_target_layer_ids (line 111: default "
        "[2, N//2, N-3]; lines 117-121: distinct, within [0, N])",
        refuses="negative ids, repeats, ids > N",
    ),
)

SERVING_ENGINES: tuple[str, ...] = ("SGLang", "vLLM")
# a run's engine as stored (``RunRecord.engine``: "sglang", "vllm", "openai") as the pages name it
_ENGINE_NAMES: Final = {"sglang": "SGLang", "vllm": "vLLM", "openai": "OpenAI-compatible server"}


def engine_word(engine: str) -> str:
    """ "sglang" -> "SGLang", "openai" -> "OpenAI-compatible server": a run's engine as people name it (any case);
    one the app does not know is given as it is. Overview and the plan name engines by it alike."""
    return _ENGINE_NAMES.get(engine.lower(), engine)


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else 0 for p in version.split("."))


def versions(engine: str) -> list[str]:
    """Versions with rules for this engine, newest first."""
    found = {r.version for r in RULES if r.engine == engine}
    if not found:
        raise InputError(f"no capture rules for engine {engine!r}; known: {', '.join(engine_names())}")
    return sorted(found, key=_version_key, reverse=True)


def engine_names() -> list[str]:
    return list(dict.fromkeys(r.engine for r in RULES))


def newest(engine: str) -> str:
    return versions(engine)[0]


def serving_choices() -> list[str]:
    """'SGLang 0.5.23', 'SGLang 0.5.1', 'vLLM 0.34.0', 'vLLM 0.33.0': every serving engine version with rules,
    newest first."""
    return [f"{e} {v}" for e in SERVING_ENGINES for v in versions(e)]


def parse_choice(text: str) -> tuple[str, str]:
    """'SGLang 0.5.23' -> ('SGLang', '0.5.23'); a bare engine name means its newest rules."""
    parts = (text or "").strip().split()
    if not parts:
        raise InputError("empty engine choice; pick one of " + ", ".join(serving_choices()))
    engine = next((e for e in engine_names() if e.lower() == parts[0].lower()), None)
    if engine is None:
        raise InputError(f"unknown engine {parts[0]!r}; pick one of {', '.join(serving_choices())}")
    version = parts[1] if len(parts) > 1 else newest(engine)
    if version not in versions(engine):
        raise InputError(f"no rules for {engine} {version}; known versions: {', '.join(versions(engine))}")
    return engine, version


def family_of(name: str | None) -> str | None:
    """The target family of a dialect (architectures.DIALECTS) or a hub id / architecture name; None if unknown."""
    if not name:
        return None
    if name in _DIALECT_FAMILY:
        return _DIALECT_FAMILY[name]
    low = name.lower()
    if "distill-llama" in low or "distill-qwen" in low:
        return "llama"  # DeepSeek-R1 distills are Llama / Qwen2 models
    if "deepseek" in low or "kimi" in low:
        return "deepseek"
    if "gpt-oss" in low or "gpt_oss" in low or "gptoss" in low:
        return "gpt-oss"
    if "qwen" in low and ("moe" in low or "next" in low or re.search(r"-a\d+(\.\d+)?b", low)):
        return "qwen-moe"
    if "llama" in low or "qwen" in low or "mistral" in low:
        return "llama"
    return None


def rule(engine: str, version: str | None = None, family: str | None = None) -> CaptureRule:
    """The rule row for an engine version (newest when None) and target family (Llama family when None)."""
    version = version or newest(engine)
    fam = family or "llama"
    for r in RULES:
        if r.engine == engine and r.version == version and r.family in (fam, "*"):
            return r
    raise InputError(f"no capture rule for {engine} {version} on a {FAMILIES.get(fam, fam)} target")


def _default(expr: tuple[str, str, str], n: int) -> list[int]:
    table = {"1": 1, "2": 2, "N//2": n // 2, "N//2-1": n // 2 - 1, "N-3": n - 3, "N-4": n - 4}
    return [table[e] for e in expr]


def apply_explicit(kind: str, ids: Sequence[int], n: int) -> list[int]:
    """Boundaries an explicit-id rule turns ``ids`` into (before reach and de-duplication)."""
    ids = list(ids)
    if kind == PLUS_ONE:
        return [i + 1 for i in ids]
    if kind == PLUS_ONE_IF_FIRST_IS_ONE:
        return [i + 1 for i in ids] if ids and ids[0] == 1 else ids
    if kind == AS_GIVEN_IF_MAX_IS_N:
        return ids if ids and max(ids) == n else [i + 1 for i in ids]
    return ids


def ids_for(kind: str, boundaries: Sequence[int], n: int) -> list[int] | None:
    """The ids to write so that rule ``kind`` captures exactly ``boundaries`` (the inverse of apply_explicit).

    None when no ids do it: e.g. SGLang 0.5.23 on a DeepSeek target cannot start at boundary 1, because a
    first id of 1 is the one case where it adds 1.
    """
    b = list(boundaries)
    for candidate in (b, [x - 1 for x in b]):
        if apply_explicit(kind, candidate, n) == b:
            return candidate
    return None


@dataclass(frozen=True)
class Capture:
    """What one engine captures for one draft config on one target."""

    rule: CaptureRule
    ids: tuple[int, ...] | None  # the ids this engine reads (None: none, so its default)
    boundaries: tuple[int, ...]  # boundaries it asks for, in config order
    captured: tuple[int, ...]  # boundaries it actually captures, in the order they reach the draft
    expected: int  # states the draft's fc expects
    status: Status
    note: str

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def describe_boundaries(boundaries: Sequence[int]) -> str:
    """'the embedding output, outputs of blocks 29, 57' for boundaries (0, 30, 58)."""
    parts: list[str] = []
    blocks = [b - 1 for b in boundaries if b >= 1]
    if any(b == 0 for b in boundaries):
        parts.append("the embedding output")
    if blocks:
        parts.append(
            ("output of block " if len(blocks) == 1 else "outputs of blocks ") + ", ".join(str(b) for b in blocks)
        )
    return ", ".join(parts) if parts else "nothing"


def read_ids(rule_: CaptureRule, config: Mapping[str, Any], dialect: str) -> tuple[int, ...] | None:
    """The ids this engine reads from a draft config, following its own lookup order."""
    eagle_config = config.get("eagle_config")
    places = {
        "top-level": config.get("eagle_aux_hidden_state_layer_ids"),
        "eagle_config": eagle_config.get("eagle_aux_hidden_state_layer_ids")
        if isinstance(eagle_config, Mapping)
        else None,
        "eagle_config.layer_ids": eagle_config.get("layer_ids") if isinstance(eagle_config, Mapping) else None,
        "run override": None,
    }
    if dialect == "speculators-eagle3":
        places["eagle_config"] = None
    for where in rule_.ids_from:
        raw = places.get(where)
        if isinstance(raw, (list, tuple)) and raw and all(isinstance(v, int) and not isinstance(v, bool) for v in raw):
            return tuple(raw)
    return None


def capture(
    rule_: CaptureRule,
    ids: Sequence[int] | None,
    n_layers: int,
    *,
    expected: int | None = None,
    reads_config: bool = True,
    family: str | None = None,
) -> Capture:
    """Apply one rule row to configured ids (None = none configured) on a target of ``n_layers`` blocks.

    ``family`` matters for trainers that capture through an engine (SpecForge uses SGLang's rule for the
    target's family); serving rows already carry their family.
    """
    if n_layers < 1:
        raise InputError(f"the target's number of layers must be positive, got {n_layers}")
    want = expected if expected is not None else (len(ids) if ids else 3)
    if not reads_config:
        return Capture(
            rule_,
            None,
            (),
            (),
            want,
            "not-read",
            f"{rule_.label} does not read speculators-format configs (it reads EAGLE-3 settings only "
            "from eagle_config); no rule applies. Serve this draft with vLLM, or convert it to a "
            "SpecForge-style config with an eagle_config.",
        )
    if rule_.explicit == UNSUPPORTED:
        return Capture(
            rule_,
            None if ids is None else tuple(ids),
            (),
            (),
            want,
            "unsupported",
            f"{rule_.label} has no EAGLE-3 capture for {FAMILIES.get(rule_.family, rule_.family)} targets "
            f"({rule_.source}).",
        )
    ids_t = None if ids is None else tuple(int(i) for i in ids)
    if rule_.role == TRAINING and ids_t is not None:
        reach_max = n_layers if rule_.reach == "N" else n_layers - 1
        bad = [i for i in ids_t if i < 0 or i > reach_max]
        if bad or len(set(ids_t)) != len(ids_t) or (rule_.engine == "SpecForge" and len(ids_t) != 3):
            return Capture(
                rule_,
                ids_t,
                (),
                (),
                want,
                "refused",
                f"{rule_.label} refuses these ids before training ({rule_.refuses}; {rule_.source}).",
            )
    applied, reach = rule_.explicit, rule_.reach
    if applied == "via-sglang":  # SpecForge hands its ids (or its default) to SGLang's capture
        sg = rule("SGLang", None, family)
        applied, reach = sg.explicit, sg.reach
    if ids_t is None and rule_.explicit != "via-sglang":
        boundaries = _default(rule_.default, n_layers)
    else:
        boundaries = apply_explicit(
            applied, ids_t if ids_t is not None else _default(rule_.default, n_layers), n_layers
        )
    top = n_layers if reach == "N" else n_layers - 1
    reachable = sorted({b for b in boundaries if 0 <= b <= top})
    status: Status = "ok"
    notes: list[str] = []
    lost = [b for b in boundaries if not 0 <= b <= top]
    if lost:
        notes.append(
            f"boundary {', '.join(str(b) for b in lost)} is never reached (this engine captures boundaries 0..{top})"
        )
    if len(set(boundaries)) != len(boundaries):
        notes.append("a repeated layer is captured once")
    if len(reachable) != want:
        status = rule_.unmatched
        if rule_.unmatched == STARTUP_FAILS and not [b for b in boundaries if b > top]:
            status = SHORT
    if status == SHORT:
        notes.append(
            f"only {len(reachable)} of the {want} states the draft's fc expects reach it, so the fc "
            "input has the wrong width and the draft cannot run"
        )
    elif status == CAPTURE_FAILS:
        notes.append(f"capture fails: 'captured {len(reachable)} of {len(boundaries)} aux hidden states'")
    elif status == STARTUP_FAILS:
        notes.append("startup fails with an IndexError while marking the layers to capture")
    return Capture(rule_, ids_t, tuple(boundaries), tuple(reachable), want, status, "; ".join(notes))


def table_rows() -> list[dict[str, Any]]:
    """The rule table as rows (for the page and the docs)."""
    return [
        {
            "engine": r.engine,
            "version": r.version,
            "family": FAMILIES.get(r.family, "every family"),
            "explicit ids": r.explicit,
            "default": "[" + ", ".join(r.default) + "]",
            "highest boundary": r.reach,
            "order": r.order,
            "ids read from": " then ".join(r.ids_from),
            "source": r.source,
        }
        for r in RULES
    ]
