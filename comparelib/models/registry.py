"""The built-in registry of published drafts and the results their publishers reported.

Shipped as ``data/registry.json`` so the app opens offline with real numbers to compare against.
Values are copied from cards, papers and dashboards as printed; where a source gave no number
the field is None rather than an estimate, and the raw wording is kept next to parsed counts.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from comparelib import values
from comparelib.errors import DataError, InputError
from comparelib.settings import BUILTIN_DIR

# The published draft the app compares yours with first when nothing closer is known (Kimi-K2, EAGLE-3).
KIMI_REFERENCE = "AQ-MedAI/Kimi-K2-Instruct-eagle3"

if TYPE_CHECKING:
    import pandas as pd

REGISTRY_PATH: Path = BUILTIN_DIR / "registry.json"
EXAMPLE_OWN_DRAFT: Path = BUILTIN_DIR / "examples" / "kimi-k25-own-draft"

# The compare page opens on these (all carry a config, so parameter counts work offline).
DEFAULT_COMPARISON: tuple[str, ...] = (
    "AQ-MedAI/Kimi-K2-Instruct-eagle3",
    "AQ-MedAI/Kimi-K25-eagle3",
    "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B",
    "lmsys/SGLang-EAGLE3-Qwen3-30B-A3B-Instruct-2507-SpecForge-Nex",
)

ENGINES: tuple[str, ...] = ("sglang", "vllm", "eagle", "trt-llm")

# Spellings seen in cards and papers -> one lowercase name per benchmark.
_BENCHMARK_ALIASES: dict[str, str] = {
    "mtbench": "mtbench",
    "gsm8k": "gsm8k",
    "humaneval": "humaneval",
    "math500": "math500",
    "alpaca": "alpaca",
    "cnndm": "cnn_dm",
    "cnndailymail": "cnn_dm",
    "livecodebench": "livecodebench",
    "financeqa": "financeqa",
    "gpqa": "gpqa",
    "ceval": "ceval",
    "mmstar": "mmstar",
    "aime": "aime",
    "swebenchverified": "swebench_verified",
    "bfclv3simple": "bfcl_v3_simple",
    "bfclv3multiple": "bfcl_v3_multiple",
    "bfclv3parallel": "bfcl_v3_parallel",
    "speedbench": "speed_bench",
    "speedbenchqualitativesubset": "speed_bench",
    "mean": "mean",
    "unspecified": "unspecified",
}

_COUNT_RE = re.compile(r"(\d+(?:\.\d+)?)\s*(k|thousand|m|million|b|billion|t|trillion)?\b", re.IGNORECASE)
_MULTIPLIERS = {
    "": 1,
    "k": 1_000,
    "thousand": 1_000,
    "m": 1_000_000,
    "million": 1_000_000,
    "b": 1_000_000_000,
    "billion": 1_000_000_000,
    "t": 1_000_000_000_000,
    "trillion": 1_000_000_000_000,
}


def normalize_benchmark(name: str) -> str:
    """One name per benchmark, so 'MT-Bench', 'MT-bench' and 'mtbench' group together."""
    key = re.sub(r"[^a-z0-9]", "", name.lower())
    if key in _BENCHMARK_ALIASES:
        return _BENCHMARK_ALIASES[key]
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "unspecified"


def parse_count(text: str | int | None) -> int | None:
    """Read '1.4 million', '~532K', '600K samples' as an int; None when absent or not one number.

    A text with two different quantities ('~300K per phase, ~600K total', '532K + more') is
    ambiguous and gives None: the caller decides which one is meant.
    """
    if text is None:
        return None
    if isinstance(text, int):
        return text
    outside = re.sub(r"\([^)]*\)", " ", text)  # parentheses hold commentary, not the count
    matches = _COUNT_RE.findall(outside)
    values = {round(float(num) * _MULTIPLIERS[(unit or "").lower()]) for num, unit in matches}
    if len(values) != 1 or "+" in outside:
        return None
    return values.pop()


@dataclass(frozen=True)
class Setting:
    """How a result was measured; fields the source did not state are None."""

    engine: str | None = None
    batch_size: int | None = None
    num_steps: int | None = None
    topk: int | None = None
    num_draft_tokens: int | None = None
    temperature: float | None = None
    tree: str | None = None
    hardware: str | None = None

    @property
    def chain(self) -> str | None:
        """'(steps,topk,draft)' as SGLang users write it; None when none of the three is known."""
        parts = (self.num_steps, self.topk, self.num_draft_tokens)
        if all(p is None for p in parts):
            return None
        return "(" + ",".join("?" if p is None else str(p) for p in parts) + ")"

    @property
    def key(self) -> str:
        """A comparable string: results with the same key were measured the same way."""
        parts: list[str] = []
        for label, value in (
            ("steps", self.num_steps),
            ("topk", self.topk),
            ("draft", self.num_draft_tokens),
            ("bs", self.batch_size),
        ):
            if value is not None:
                parts.append(f"{label}={value}")
        if self.temperature is not None:
            parts.append(f"T={self.temperature:g}")
        if isinstance(self.tree, str) and self.tree:
            parts.append(self.tree)
        elif self.tree is True:  # callers that only know "a tree, not a chain"
            parts.append("tree")
        if self.engine:
            parts.append(self.engine)
        return ",".join(parts) or "unspecified"


@dataclass(frozen=True)
class ReportedResult:
    """One number a publisher (or a third party, see note) reported for a draft."""

    benchmark: str
    accept_length: float | None
    throughput_tok_s: float | None
    baseline_tok_s: float | None
    speedup: float | None
    setting: Setting
    source: str
    note: str | None = None
    # an earlier checkpoint's figure, not the published weights' (walk BX 1: lightseekorg's phase-1 figures read as
    # the published draft's at its 600K samples): its own point at its own volume, never the draft's figure
    checkpoint: str | None = None
    train_samples: float | None = None


@dataclass(frozen=True)
class PublishedDraft:
    """A published draft model, its target, its config (when known) and its reported results."""

    hub_id: str
    method: str
    publisher: str
    official: bool
    target_model: str
    target_layers: int | None
    target_hidden_size: int | None
    target_vocab_size: int | None
    config: dict[str, Any] | None
    config_confidence: str
    train_samples: int | None
    train_tokens: int | None
    datasets: tuple[str, ...]
    results: tuple[ReportedResult, ...]
    source_url: str
    notes: str
    train_samples_text: str | None = None
    train_tokens_text: str | None = None
    # a lower bound where only part of the data is counted ("~532K + OpenThoughts-114k-math"): never a fit's point
    train_samples_min: int | None = None
    architecture: str = ""
    config_source: str | None = None
    aux_layer_ids: tuple[int, ...] | None = None
    references: tuple[str, ...] = ()

    @property
    def config_read(self) -> bool:
        """Whether ``config`` is the draft's own published config.json as read from its Hub page (``config_source``
        cites it), not a training template, a config inferred from related files or one assumed from the target's
        shape: only then are counts from it the draft's, and what its checkpoint stores known without reading it."""
        cited = (self.config_source or "").lower()
        return (
            self.config is not None
            and self.config_confidence.lower().startswith("high")
            and f"huggingface.co/{self.hub_id.lower()}/" in cited
            and "config.json" in cited
        )

    @property
    def mtp_module(self) -> bool:
        """A published MTP module of its target under its own repo id (nebius/MTP-DeepSeek-V3-0324): such repos ship
        a copy of the target's config and the MTP layer's weights only, so the config alone reads as the target (walk
        AV1). The target's own MTP entry (deepseek-ai/DeepSeek-V3 for itself) is the target, not this."""
        return bool(re.match(r"\s*MTP\b", self.method, re.IGNORECASE)) and (
            self.hub_id.lower() != self.target_model.strip().lower()
        )

    @property
    def config_basis(self) -> str:
        """What the registry's ``config`` is, in words: the published config.json, or what it was built from
        ("a SpecForge template config (sgl-project/SpecForge configs/qwen3-235B-A22B-eagle3.json), not the
        published config.json (not read)")."""
        if self.config is None:
            return "no config in the registry"
        if self.config_read:
            return "the published config.json (the registry's copy)"
        said = f"{self.config_confidence} {self.config_source or ''}".lower()
        if "assumed" in said:
            kind = "a config assumed from a model of the same shape"
        elif "inferred" in said:
            kind = "a config inferred from related files"
        elif "template" in said:
            kind = "a SpecForge template config" if "specforge" in said else "a template config"
        else:
            kind = "a config not read from the draft's repo"
        src = self.config_source or ""
        cited = f" ({src})" if src.endswith(".json") and len(src) <= 100 else ""  # the template's file
        return f"{kind}{cited}, not the published config.json (not read)"


def _opt_int(d: dict[str, Any], key: str, where: str) -> int | None:
    value = d.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise DataError(f"{where}: {key} must be an integer or null, got {value!r}; fix {REGISTRY_PATH.name}.")
    return value


def _opt_float(d: dict[str, Any], key: str, where: str) -> float | None:
    value = d.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DataError(f"{where}: {key} must be a number or null, got {value!r}; fix {REGISTRY_PATH.name}.")
    return float(value)


def _setting(d: dict[str, Any], where: str) -> Setting:
    engine = d.get("engine")
    if engine is not None and engine not in ENGINES:
        raise DataError(f"{where}: unknown engine {engine!r}; use one of {', '.join(ENGINES)} or null.")
    return Setting(
        engine=engine,
        batch_size=_opt_int(d, "batch_size", where),
        num_steps=_opt_int(d, "num_steps", where),
        topk=_opt_int(d, "topk", where),
        num_draft_tokens=_opt_int(d, "num_draft_tokens", where),
        temperature=_opt_float(d, "temperature", where),
        tree=d.get("tree"),
        hardware=d.get("hardware"),
    )


_CHAIN_ONLY_METHODS = re.compile(r"eagle|mtp", re.IGNORECASE)


def chain_setting(setting: Setting, method: str) -> Setting:
    """A published vLLM EAGLE/EAGLE-3/MTP figure stated as num_steps N (``num_speculative_tokens``) with topk and
    draft tokens unstated is the chain (N,1,N+1): vLLM's proposer drafts a chain, one argmax per step, unless a
    ``speculative_token_tree`` is given (vLLM docs/features/speculative_decoding/configuration.md: one k, no
    topk/num_draft_tokens split), and the target verifies N + 1 tokens (``run_setting`` keys vLLM runs so).
    Walk AN: RedHat's gpt-oss-20b draft's MT-Bench
    2.56 at num_speculative_tokens 3 was keyed (3,?,?), so the plan aimed at another target's (3,1,4) figure. A
    figure whose engine is unstated keeps its unknowns: it may be a tree (``plan._own_elsewhere`` says so)."""
    n, topk, ndt = setting.num_steps, setting.topk, setting.num_draft_tokens
    if (
        setting.engine != "vllm"
        or n is None
        or setting.tree
        or not _CHAIN_ONLY_METHODS.search(method)
        or topk not in (None, 1)
        or ndt not in (None, n + 1)
    ):
        return setting
    return replace(setting, topk=1, num_draft_tokens=n + 1)


def _result(d: dict[str, Any], where: str, method: str = "") -> ReportedResult:
    bench = d.get("benchmark")
    if not isinstance(bench, str) or normalize_benchmark(bench) != bench:
        raise DataError(f"{where}: benchmark {bench!r} is not a normalised name.")
    res = ReportedResult(
        benchmark=bench,
        accept_length=_opt_float(d, "accept_length", where),
        throughput_tok_s=_opt_float(d, "throughput_tok_s", where),
        baseline_tok_s=_opt_float(d, "baseline_tok_s", where),
        speedup=_opt_float(d, "speedup", where),
        setting=chain_setting(_setting(d.get("setting") or {}, where), method),
        source=str(d.get("source") or ""),
        note=d.get("note"),
        checkpoint=d.get("checkpoint"),
        train_samples=_opt_float(d, "train_samples", where),
    )
    if (res.checkpoint is None) != (res.train_samples is None):
        raise DataError(f"{where}: a checkpoint's result needs its own train_samples, and only one has them.")
    if all(v is None for v in (res.accept_length, res.throughput_tok_s, res.speedup)):
        raise DataError(f"{where}: a result needs an acceptance length, a throughput or a speedup.")
    return res


def _draft(d: dict[str, Any]) -> PublishedDraft:
    hub_id = d.get("hub_id")
    if not isinstance(hub_id, str) or not re.fullmatch(r"[\w.-]+/[\w.-]+", hub_id):
        raise DataError(f"registry entry has a malformed hub_id {hub_id!r}; it must look like owner/name.")
    config = d.get("config")
    if config is not None and not isinstance(config, dict):
        raise DataError(f"{hub_id}: config must be an object or null.")
    aux = d.get("aux_layer_ids")
    return PublishedDraft(
        hub_id=hub_id,
        method=str(d["method"]),
        publisher=str(d["publisher"]),
        official=bool(d["official"]),
        target_model=str(d["target_model"]),
        target_layers=_opt_int(d, "target_layers", hub_id),
        target_hidden_size=_opt_int(d, "target_hidden_size", hub_id),
        target_vocab_size=_opt_int(d, "target_vocab_size", hub_id),
        config=config,
        config_confidence=str(d.get("config_confidence") or "unknown"),
        train_samples=_opt_int(d, "train_samples", hub_id),
        train_tokens=_opt_int(d, "train_tokens", hub_id),
        datasets=tuple(d.get("datasets") or ()),
        results=tuple(
            _result(r, f"{hub_id} result {i}", str(d["method"])) for i, r in enumerate(d.get("results") or ())
        ),
        source_url=str(d["source_url"]),
        notes=str(d.get("notes") or ""),
        train_samples_text=d.get("train_samples_text"),
        train_samples_min=_opt_int(d, "train_samples_min", hub_id),
        train_tokens_text=d.get("train_tokens_text"),
        architecture=str(d.get("architecture") or ""),
        config_source=d.get("config_source"),
        aux_layer_ids=tuple(aux) if aux is not None else None,
        references=tuple(d.get("references") or ()),
    )


@functools.lru_cache(maxsize=1)
def _load() -> tuple[PublishedDraft, ...]:
    try:
        doc = json.loads(REGISTRY_PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataError(f"cannot read the built-in registry {REGISTRY_PATH}: {exc}; reinstall the package.") from exc
    drafts = tuple(_draft(d) for d in doc.get("drafts", ()))
    seen: set[str] = set()
    for draft in drafts:
        if draft.hub_id in seen:
            raise DataError(f"the registry lists {draft.hub_id} twice; keep one entry.")
        seen.add(draft.hub_id)
    return drafts


def load_registry() -> list[PublishedDraft]:
    """Every registry entry, in the registry's order (parsed once per process)."""
    return list(_load())


def get_draft(hub_id: str) -> PublishedDraft:
    """The entry for a hub id (case-insensitive); InputError naming close matches otherwise."""
    wanted = hub_id.strip().strip("/")
    drafts = _load()
    for draft in drafts:
        if draft.hub_id.lower() == wanted.lower():
            return draft
    ids = [d.hub_id for d in drafts]
    lowered = {i.lower(): i for i in ids}
    close = [lowered[m] for m in difflib.get_close_matches(wanted.lower(), list(lowered), n=5, cutoff=0.5)]
    if not close:
        tail = wanted.lower().rsplit("/", 1)[-1]
        close = [i for i in ids if tail and tail in i.lower()][:5]
    if close:
        hint = f" Did you mean: {', '.join(close)}?"
    else:
        hint = " Load its config from the Hub (or a local config.json) instead."
    raise InputError(f"{hub_id!r} is not in the built-in registry of published drafts.{hint}")


RESULT_COLUMNS: tuple[str, ...] = (
    "hub_id",
    "target_model",
    "method",
    "benchmark",
    "accept_length",
    "throughput_tok_s",
    "baseline_tok_s",
    "speedup",
    "setting_key",
    "chain",
    "batch_size",
    "engine",
    "train_samples",
    "train_tokens",
    "source",
)


def results_records() -> list[dict[str, Any]]:
    """One record per (draft, reported result): ``results_frame``'s rows as plain dicts, for what needs no
    pandas (Overview's answer, drawn before pandas loads)."""
    return [
        {
            # a checkpoint's figure is its own draft's: no lookup of the published draft's figures finds it
            "hub_id": d.hub_id if r.checkpoint is None else f"{d.hub_id} ({r.checkpoint})",
            "target_model": d.target_model,
            "method": d.method,
            "benchmark": r.benchmark,
            "accept_length": r.accept_length,
            "throughput_tok_s": r.throughput_tok_s,
            "baseline_tok_s": r.baseline_tok_s,
            "speedup": r.speedup,
            "setting_key": r.setting.key,
            "chain": r.setting.chain,
            "batch_size": r.setting.batch_size,
            "engine": r.setting.engine,
            "train_samples": d.train_samples if r.train_samples is None else r.train_samples,
            "train_tokens": d.train_tokens if r.train_samples is None else None,
            "source": r.source,
        }
        for d in _load()
        for r in d.results
    ]


def results_frame() -> pd.DataFrame:
    """One row per (draft, reported result), for tables and the acceptance-vs-data chart."""
    import pandas as pd

    frame = pd.DataFrame(results_records(), columns=list(RESULT_COLUMNS))
    for col in ("accept_length", "throughput_tok_s", "baseline_tok_s", "speedup"):
        frame[col] = frame[col].astype("float64")
    for col in ("batch_size", "train_samples", "train_tokens"):
        frame[col] = frame[col].astype("Int64")
    return frame


def run_setting(run: Any) -> tuple[str, str | None]:
    """(setting key, chain label) of a store run, in this registry's key format, so own runs line up with
    published results."""
    params = getattr(run, "params", {}) or {}
    steps, topk, ndt = run.num_steps, run.topk, run.num_draft_tokens
    if topk is None and steps is not None and ndt is not None and ndt == steps + 1:
        topk = 1  # a chain: SGLang's num_draft_tokens = steps + 1 only makes sense with topk 1
    if _vllm_chain(run) and steps is not None and topk in (None, 1) and ndt in (None, steps + 1):
        # vLLM's EAGLE/EAGLE-3 proposer is a chain: num_speculative_tokens = K draft tokens, one argmax per step,
        # and the target verifies K + 1 (vllm 0.34 vllm/v1/worker/gpu/spec_decode/speculator.py:171 and :227-232,
        # draft_tokens [reqs, K]; autoregressive/speculator.py:242, one step per token; vllm 0.33
        # vllm/v1/spec_decode/llm_base_proposer.py:445-447 argmax, :688 the K - 1 further steps). Its runs state
        # num_steps only: keyed (K,1,K+1), they line up with published chains at the same num_steps.
        topk, ndt = 1, steps + 1
    chain = f"({steps},{topk},{ndt})" if steps is not None else "(none)"
    try:
        temp = params.get("temperature")
        setting = Setting(
            engine=(str(run.engine).lower() or None) if run.engine else None,
            # imported runs state it as max_concurrency: keyed without it they lined up with any batch size
            batch_size=values.integer(values.run_param(run, "concurrency")),
            num_steps=steps,
            topk=topk,
            num_draft_tokens=ndt,
            # Published chain results rarely state a temperature; greedy own runs are keyed without
            # it so they line up with them (an assumption, visible in the key when T is not 0).
            temperature=None if temp in (None, 0, 0.0) else float(temp),
            tree="tree" if topk and topk > 1 else None,
            hardware=None,
        )
        return setting.key, setting.chain
    except Exception:  # noqa: BLE001 - a run whose fields a Setting refuses: keep a readable key
        return f"{run.engine or '?'} {chain} bs={values.run_param(run, 'concurrency')}", chain


def _vllm_chain(run: Any) -> bool:
    """A vLLM run whose method is EAGLE/EAGLE-3, MTP (any of its aliases) or not recorded (a stated config rarely
    names it): a chain. vLLM's MTP speculator is EAGLE's (vllm 0.34 vllm/v1/worker/gpu/spec_decode/mtp/speculator.py:12
    and eagle/speculator.py:12 both subclass TargetDependentARSpeculator); its runs were keyed (3,?,?)."""
    if str(getattr(run, "engine", "") or "").lower() != "vllm":
        return False
    return algorithm_key(run) in (None, "unknown", "eagle", "eagle3", MTP)


# -- which speculative algorithm a run used, one name per algorithm
#
# SGLang serves a target's MTP (NextN) layers as the draft: ``--speculative-algorithm NEXTN`` is rewritten to EAGLE
# (sglang 0.5.23 srt/arg_groups/speculative_hook.py:109-110) and the draft path defaults to the target's own
# model path for DeepSeek-V3/R1, GLM-4.x MoE and the other MTP architectures (:1120-1143), so get_server_info
# reports algorithm "EAGLE" with draft == model. vLLM rewrites "deepseek_mtp", "qwen3_next_mtp" and every other
# "*_mtp" method to "mtp" (vllm 0.34 vllm/config/speculative.py:1375-1379).

MTP = "mtp"
_MTP_NAMES = re.compile(r"(?:nextn|mtp|[a-z0-9_]+_mtp)")


def _target_as_draft(run: Any) -> bool:
    """The run's draft is its target itself (SGLang's NEXTN): both recorded and equal, case and a trailing slash
    aside (a Hub id is one repo in any case: "deepseek-ai/DeepSeek-V3" served with "deepseek-ai/deepseek-v3")."""
    draft = str(getattr(run, "draft_model", None) or "").strip().rstrip("/\\").lower()
    model = str(getattr(run, "model", None) or "").strip().rstrip("/\\").lower()
    return bool(draft) and draft == model


def algorithm_key(run: Any) -> str | None:
    """The speculative algorithm of ``run`` as one name per algorithm, for comparing runs: None for none (a
    baseline), "unknown" when not stated, "mtp" for the target's own MTP layers (SGLang NEXTN, SGLang EAGLE with
    the target as its draft, vLLM mtp and its "*_mtp" aliases), else the name lower case without separators
    ("eagle3" for EAGLE3 and eagle-3)."""
    raw = str(getattr(run, "speculative_algorithm", None) or "").strip().lower()
    if not raw:
        return None
    if raw == "unknown":
        return "unknown"
    if _MTP_NAMES.fullmatch(raw.replace("-", "_")):
        return MTP
    key = re.sub(r"[^a-z0-9]", "", raw)
    if key == "eagle" and _target_as_draft(run):
        return MTP
    return key


def is_mtp(run: Any) -> bool:
    """``run`` drafted with its target's own MTP layers (``algorithm_key``)."""
    return algorithm_key(run) == MTP


# Algorithms as a page names them, by ``algorithm_key`` (SGLang's server_info: EAGLE3, EAGLE, STANDALONE, NGRAM;
# vLLM's speculative_config method: eagle3, eagle, ngram, medusa, draft_model, suffix). The one table: charts,
# run titles and Overview's sentences all name an algorithm through ``algorithm_label``.
_LABELS = {
    "eagle3": "EAGLE-3",
    "eagle": "EAGLE",
    "standalone": "draft model",
    "draftmodel": "draft model",
    "ngram": "n-gram",
    "medusa": "Medusa",
    "lookahead": "lookahead",
    "suffix": "suffix",
}


def algorithm_label(run: Any) -> str | None:
    """The algorithm as a page names it: "MTP (NEXTN)" (SGLang's, however recorded), "MTP" (vLLM's), "EAGLE-3",
    "EAGLE", "n-gram", ... else as recorded; None for a baseline or an algorithm not stated. A run of no known
    engine (an import) says "MTP (NEXTN)" when recorded as SGLang names it (NEXTN, or EAGLE with the target as
    draft), else "MTP"."""
    key = algorithm_key(run)
    if key in (None, "unknown"):
        return None
    if key == MTP:
        engine = str(getattr(run, "engine", None) or "").strip().lower()
        if engine in ("sglang", "vllm"):
            return "MTP (NEXTN)" if engine == "sglang" else "MTP"
        raw = str(getattr(run, "speculative_algorithm", None) or "").strip().lower()
        return "MTP (NEXTN)" if raw in ("nextn", "eagle") else "MTP"
    return _LABELS.get(key, str(run.speculative_algorithm).strip())


VLLM_SPECULATION = "speculative (vLLM does not report the algorithm)"
UNRECORDED_SPECULATION = "speculative (algorithm not recorded)"


def speculation_label(run: Any) -> str | None:
    """The speculation a run was measured with, as the runs table names it: None for a baseline, the algorithm as
    the server (or the user) reported it, else what is known. A speculative run whose algorithm is not recorded
    (vLLM's spec-decode counters, or a ``vllm bench serve`` result, show speculation and its acceptance, never the
    method) read "not stated" in ``runs`` beside the acceptance it measured: it is "speculative (vLLM does not
    report the algorithm)"."""
    if getattr(run, "is_baseline", False):
        return None
    raw = str(getattr(run, "speculative_algorithm", None) or "").strip()
    if raw and raw.lower() != "unknown":
        return raw
    engine = str(getattr(run, "engine", None) or "").strip().lower()
    return VLLM_SPECULATION if engine == "vllm" else UNRECORDED_SPECULATION


NO_DRAFT = "\u2014"  # a baseline's draft in the runs table: none
UNRECORDED_DRAFT = "not recorded"  # a speculative run's draft in the runs table when the run names none
_MODEL_FREE = ("ngram", "suffix", "lookahead")  # algorithms that draft without a draft model
_HUB_CACHE = re.compile(r"models--([^/\\]+?)--([^/\\]+)")
_HUB_REPO = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")


def draft_label(run: Any) -> str:
    """The draft a run was served with, as the runs table names it: "—" for a baseline, "MTP (NEXTN)" / "MTP"
    for the target's own MTP layers (``algorithm_label``), the Hub repo id (a Hub-cache snapshot folder's too, an
    @revision dropped) or a local folder's name for a draft model, the algorithm for one drafting without a model
    ("n-gram"), and "not recorded" when the run names none. Without it a published draft's runs read as yours."""
    if getattr(run, "is_baseline", False):
        return NO_DRAFT
    if is_mtp(run):
        return algorithm_label(run) or "MTP"
    named = str(getattr(run, "draft_model", None) or "").strip()
    if named:
        cache = _HUB_CACHE.search(named)
        if cache:
            return f"{cache.group(1)}/{cache.group(2)}"
        text = re.sub(r"^(?:hf://|https?://[^/]+/)", "", named)
        text = re.split(r"/(?:tree|resolve|blob)/", text)[0].rstrip("/\\").split("@", 1)[0]
        local = text.startswith(("/", "~", ".", "\\")) or bool(re.match(r"[A-Za-z]:[/\\]", text))
        if not local and _HUB_REPO.fullmatch(text):
            return text
        return re.split(r"[/\\]", text)[-1] or named
    if algorithm_key(run) in _MODEL_FREE:
        return algorithm_label(run) or UNRECORDED_DRAFT
    return UNRECORDED_DRAFT


def family_of(target_model: str | None) -> str:
    """The target's model family, ``draft.model_family``'s key ("llama3", "qwen3", "kimik2", "gpt-oss"); "" when
    the name names no known model line. Not the Hub organisation: deepseek-ai/DeepSeek-R1-Distill-Llama-8B is a
    Llama-3 model, and grouping it with deepseek-ai (whose drafts report nothing at its chain) aimed its plan at a
    Kimi-K2 draft's acceptance."""
    from comparelib.models.draft import model_family  # draft imports this module

    return model_family(target_model) or ""


def steps_of(key: str | None) -> int | None:
    """num_steps written in a setting key ("steps=3,topk=1,..."), None when the key does not state it."""
    m = re.search(r"steps=(\d+)", key or "")
    return int(m.group(1)) if m else None


def example_own_draft_volume() -> dict[str, Any]:
    """Training volume of the example own draft, for the acceptance-vs-data chart."""
    return {"samples": 37_000, "note": "example: the team's training set"}
