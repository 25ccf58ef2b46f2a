"""What a live inference server says about itself: engine, version, model and speculative config.

SGLang reports its launch arguments (/server_info, older servers /get_server_info); vLLM exposes
only /version and Prometheus counters, so its speculative config is what the user states. Raw
payloads are kept for provenance with anything secret-looking redacted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from comparelib import redact as _redact
from comparelib.errors import BenchError
from comparelib.values import integer

ENGINES = ("sglang", "vllm", "openai")

# Counters whose change over a run gives the acceptance length (exact sample names; never prefixes).
VLLM_DRAFTS = "vllm:spec_decode_num_drafts_total"
VLLM_DRAFT_TOKENS = "vllm:spec_decode_num_draft_tokens_total"
VLLM_ACCEPTED = "vllm:spec_decode_num_accepted_tokens_total"
VLLM_ACCEPTED_PER_POS = "vllm:spec_decode_num_accepted_tokens_per_pos_total"
SGLANG_GEN_TOKENS = "sglang:generation_tokens_total"
SGLANG_VERIFY_CALLS = "sglang:spec_verify_calls_total"
SGLANG_PROMPT_TOKENS = "sglang:prompt_tokens_total"
TRACKED_COUNTERS = (
    VLLM_DRAFTS,
    VLLM_DRAFT_TOKENS,
    VLLM_ACCEPTED,
    SGLANG_GEN_TOKENS,
    SGLANG_VERIFY_CALLS,
    SGLANG_PROMPT_TOKENS,
    "vllm:generation_tokens_total",
    "vllm:prompt_tokens_total",
)


@dataclass
class ServerConfig:
    engine: str  # "sglang" | "vllm" | "openai"
    version: str | None = None
    model: str | None = None
    speculative_algorithm: str | None = None  # None = no speculation (a baseline)
    draft_model: str | None = None
    num_steps: int | None = None  # SGLang speculative_num_steps / vLLM num_speculative_tokens
    topk: int | None = None
    num_draft_tokens: int | None = None
    raw: dict = field(default_factory=dict)  # what the server reported, secrets redacted
    config_source: str = "server"  # "server" (read back), "stated" (user), "none"
    acceptance_source: str | None = None  # where acceptance comes from, or None if unavailable


# --- URL -------------------------------------------------------------------------------------------


def normalise_endpoint(url: str) -> str:
    """Base URL without a trailing /v1 or slash; BenchError for anything that is not http(s)://host."""
    text = (url or "").strip()
    if not text:
        raise BenchError("no endpoint given: pass the server's base URL, e.g. http://127.0.0.1:30000")
    if "://" not in text:
        text = "http://" + text
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BenchError(f"not an http(s) URL: {url!r}; pass the server's base URL, e.g. http://127.0.0.1:30000")
    if parts.username or parts.password:
        raise BenchError("put credentials in the API key option, not in the endpoint URL")
    try:
        _ = parts.port  # urlsplit checks the port only when asked
    except ValueError as exc:
        raise BenchError(f"bad port in endpoint {url!r}") from exc
    base = f"{parts.scheme}://{parts.netloc}{parts.path}".rstrip("/")
    for suffix in ("/v1/chat/completions", "/v1/completions", "/generate", "/v1"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
            break
    return base


# --- Prometheus text format ------------------------------------------------------------------------

_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\S+)?\s*$")
_LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?')


def parse_prometheus(text: str) -> list[tuple[str, dict[str, str], float]]:
    """Samples as (exact name, labels, value); comments and malformed lines are skipped."""
    samples = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = _SAMPLE.match(line)
        if not m:
            continue
        name, labels_text, value_text = m.group(1), m.group(3) or "", m.group(4)
        labels = {}
        pos = 0
        while pos < len(labels_text):
            lm = _LABEL.match(labels_text, pos)
            if not lm:
                break
            labels[lm.group(1)] = lm.group(2).replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
            pos = lm.end()
        try:
            value = float(value_text)
        except ValueError:
            continue
        samples.append((name, labels, value))
    return samples


def counter_snapshot(text: str) -> dict[str, Any]:
    """Tracked counters summed over label sets (DP engines, models), per-position counters by position."""
    totals: dict[str, float] = {}
    per_pos: dict[str, float] = {}
    for name, labels, value in parse_prometheus(text):
        if name in TRACKED_COUNTERS:
            totals[name] = totals.get(name, 0.0) + value
        elif name == VLLM_ACCEPTED_PER_POS and "position" in labels:
            per_pos[labels["position"]] = per_pos.get(labels["position"], 0.0) + value
    return {"counters": totals, "accepted_per_pos": per_pos}


@dataclass
class Acceptance:
    accept_length: float | None
    per_position: list[float] | None
    drafts: float | None = None
    accepted: float | None = None
    draft_tokens: float | None = None


def vllm_acceptance(before: Mapping[str, Any], after: Mapping[str, Any]) -> Acceptance:
    """1 + Δaccepted/Δdrafts and per-position Δaccepted_i/Δdrafts over the run (None if no drafts)."""
    b, a = before.get("counters", {}), after.get("counters", {})
    if VLLM_DRAFTS not in a or VLLM_ACCEPTED not in a:
        return Acceptance(None, None)
    drafts = a[VLLM_DRAFTS] - b.get(VLLM_DRAFTS, 0.0)
    accepted = a[VLLM_ACCEPTED] - b.get(VLLM_ACCEPTED, 0.0)
    draft_tokens = a.get(VLLM_DRAFT_TOKENS, 0.0) - b.get(VLLM_DRAFT_TOKENS, 0.0)
    if drafts <= 0:
        return Acceptance(None, None, drafts, accepted, draft_tokens)
    bp, ap = before.get("accepted_per_pos", {}), after.get("accepted_per_pos", {})
    positions = sorted(ap, key=lambda p: int(p) if str(p).isdigit() else 0)
    per_pos = [(ap[p] - bp.get(p, 0.0)) / drafts for p in positions] or None
    return Acceptance(1.0 + accepted / drafts, per_pos, drafts, accepted, draft_tokens)


def sglang_counter_acceptance(before: Mapping[str, Any], after: Mapping[str, Any]) -> float | None:
    """Δgeneration_tokens / Δspec_verify_calls (recent SGLang servers only)."""
    b, a = before.get("counters", {}), after.get("counters", {})
    if SGLANG_VERIFY_CALLS not in a or SGLANG_GEN_TOKENS not in a:
        return None
    calls = a[SGLANG_VERIFY_CALLS] - b.get(SGLANG_VERIFY_CALLS, 0.0)
    tokens = a[SGLANG_GEN_TOKENS] - b.get(SGLANG_GEN_TOKENS, 0.0)
    return tokens / calls if calls > 0 else None


# --- server_info -> ServerConfig --------------------------------------------------------------------


def _str(value: Any) -> str | None:
    return None if value in (None, "") else str(value)


def unwrap_server_info(info: Mapping[str, Any]) -> Mapping[str, Any]:
    """PD-disaggregated routers wrap the payload as {"prefill": [...], "decode": [...]}."""
    decode = info.get("decode")
    if isinstance(decode, list) and decode and isinstance(decode[0], Mapping):
        return decode[0]
    return info


def sglang_config(info: Mapping[str, Any], model: str | None = None) -> ServerConfig:
    info = unwrap_server_info(info)
    algo = _str(info.get("speculative_algorithm"))
    if algo is not None and algo.upper() in ("NONE", "NULL"):
        algo = None
    return ServerConfig(
        engine="sglang",
        version=_str(info.get("version")),
        model=_str(info.get("model_path")) or _str(info.get("served_model_name")) or model,
        speculative_algorithm=algo,
        draft_model=_str(info.get("speculative_draft_model_path")) if algo else None,
        num_steps=integer(info.get("speculative_num_steps")) if algo else None,
        topk=integer(info.get("speculative_eagle_topk")) if algo else None,
        num_draft_tokens=integer(info.get("speculative_num_draft_tokens")) if algo else None,
        raw=_redact.redact(dict(info)),
        config_source="server",
        acceptance_source="sglang meta_info (per request)" if algo else None,
    )


_SPEC_KEYS = {
    "speculative_algorithm": ("speculative_algorithm", "algorithm", "method"),
    "draft_model": ("draft_model", "model", "draft"),
    "num_steps": ("num_steps", "num_speculative_tokens", "k"),
    "topk": ("topk",),
    "num_draft_tokens": ("num_draft_tokens",),
}


def apply_spec_override(config: ServerConfig, spec: Mapping[str, Any] | None) -> ServerConfig:
    """User-stated speculative config (vLLM cannot report it); values given win over detected ones."""
    if not spec:
        return config
    given = {}
    for target, aliases in _SPEC_KEYS.items():
        for alias in aliases:
            if spec.get(alias) not in (None, ""):
                given[target] = spec[alias]
                break
    if not given:
        return config
    for key in ("num_steps", "topk", "num_draft_tokens"):
        if key in given:
            value = integer(given[key])
            if value is None or value < 0:
                raise BenchError(f"{key} must be a non-negative integer, got {given[key]!r}")
            given[key] = value
    for key, value in given.items():
        setattr(config, key, value)
    if config.speculative_algorithm is not None:
        config.speculative_algorithm = str(config.speculative_algorithm)
    config.raw = dict(config.raw)
    config.raw["stated_spec_config"] = _redact.redact(dict(spec))
    config.config_source = "stated" if config.engine != "sglang" else "server+stated"
    return config
