"""What a live inference server says about itself: engine, version, model and speculative config.

SGLang reports its launch arguments (/server_info, older servers /get_server_info); vLLM exposes
only /version and Prometheus counters, so its speculative config is what the user states. Raw
payloads are kept for provenance with anything secret-looking redacted. The probe that asks (over
HTTP, inside the endpoint policy and byte caps) lives here too; ``bench`` runs the benchmark.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import re
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from comparelib import limits as _limits
from comparelib import redact as _redact
from comparelib.errors import BenchError, InputError, LimitError
from comparelib.live.endpoints import BenchLimits, EndpointPolicy
from comparelib.values import integer

Engine = Literal["sglang", "vllm", "openai"]
ENGINES: tuple[Engine, ...] = ("sglang", "vllm", "openai")

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
        # the page and the CLI have no key option: only the Python API sends one (BenchOptions(api_key=...))
        raise BenchError(
            "the endpoint URL holds a user name or password, which this app does not send: give the plain URL "
            "(http://host:port). The page and the bench command send no credentials, so benchmark a server that "
            "needs none (on your private network, or through an SSH tunnel), or run the benchmark from Python "
            "with BenchOptions(api_key=...), which sends the key as an Authorization: Bearer header"
        )
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


SPEC_SET_ASIDE = "stated_spec_config_set_aside"
"""``raw`` key: settings the form stated that SGLang's server_info contradicted, {key: {"stated", "server"}}."""


def apply_spec_override(config: ServerConfig, spec: Mapping[str, Any] | None) -> ServerConfig:
    """User-stated speculative config (vLLM cannot report it); values given win over detected ones, except what
    SGLang's server_info reports (``SPEC_SET_ASIDE``)."""
    if not spec:
        return config
    given = {}
    for target, aliases in _SPEC_KEYS.items():
        for alias in aliases:
            if spec.get(alias) not in (None, ""):
                given[target] = spec[alias]
                break
    if config.draft_model and "draft_model" in given:  # a draft the server reports is never overwritten
        stated = str(given.pop("draft_model"))
        config = record_draft(config, stated, STATED_FOR_THE_RUN)
    if not given:
        return config
    for key in ("num_steps", "topk", "num_draft_tokens"):
        if key in given:
            value = integer(given[key])
            if value is None or value < 0:
                raise BenchError(f"{key} must be a non-negative integer, got {given[key]!r}")
            given[key] = value
    if config.engine == "sglang" and config.config_source == "server":
        # what SGLang's server_info reports is what ran: a value left in the form is set aside, kept under ``raw`` and
        # said in the run's notes (walk BQ 4: a server serving num_steps 2 stored as num_steps 3 and 4 from the form)
        aside: dict[str, dict[str, Any]] = {}
        for key in list(given):
            told = getattr(config, key, None)
            if told is None:
                continue
            stated = given.pop(key)
            same = str(stated).upper() == str(told).upper() if key == "speculative_algorithm" else stated == told
            if not same:
                aside[key] = {"stated": stated, "server": told}
        if aside:
            config.raw = dict(config.raw)
            config.raw[SPEC_SET_ASIDE] = _redact.redact(aside)
        if not given:
            return config
    for key, value in given.items():
        setattr(config, key, value)
    if config.speculative_algorithm is not None:
        config.speculative_algorithm = str(config.speculative_algorithm)
    else:
        config.draft_model = None  # a baseline gets no draft
    config.raw = dict(config.raw)
    config.raw["stated_spec_config"] = _redact.redact(dict(spec))
    config.config_source = "stated" if config.engine != "sglang" else "server+stated"
    return config


# --- the probe: what answers at an endpoint, over HTTP ----------------------------------------------


def aiohttp_module() -> Any:
    try:
        import aiohttp
    except ImportError as exc:  # pragma: no cover - a packaging problem, not user input
        raise BenchError("the benchmark client needs aiohttp: pip install aiohttp==3.14.5") from exc
    return aiohttp


def request_headers(api_key: str | None) -> dict[str, str]:
    headers = {"User-Agent": "specdraft-compare-bench"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    return headers


# Byte caps of the run in progress (set by run_benchmark/detect_server; tasks inherit the context).
BODY_LIMITS: contextvars.ContextVar[BenchLimits | None] = contextvars.ContextVar("bench_limits", default=None)


class ResponseTooLargeError(BenchError):
    """A server answer over SPECDRAFT_BENCH_MAX_BODY_BYTES; reading stopped at the cap."""


def mib(n: int) -> str:
    return f"{n / (1 << 20):g} MiB"


async def get_capped(session: Any, url: str, timeout_s: float) -> tuple[int, bytes] | None:
    """(status, body), or None when nothing answered at that URL (connection refused, timeout).

    The body is read (after decompression) up to SPECDRAFT_BENCH_MAX_BODY_BYTES and refused above
    it, so a huge or gzip-bomb answer costs at most the cap in memory. Redirects are not followed.
    """
    aiohttp = aiohttp_module()
    cap = (BODY_LIMITS.get() or BenchLimits()).max_body_bytes
    try:
        async with session.get(url, timeout=aiohttp.ClientTimeout(total=timeout_s), allow_redirects=False) as resp:
            declared = resp.content_length
            if declared is not None and declared > cap and not resp.headers.get("Content-Encoding"):
                raise _limits.RESPONSE_BYTES.refuse(url, value=cap)
            body = await _limits.aread_capped(
                resp.content.iter_chunked(1 << 16), url, _limits.RESPONSE_BYTES, limit=cap
            )
            return resp.status, body
    except LimitError:
        path = url.split("://", 1)[-1].partition("/")[2]
        raise ResponseTooLargeError(
            f"the server's answer to GET /{path} is larger than {mib(cap)} (SPECDRAFT_BENCH_MAX_BODY_BYTES); "
            f"reading stopped there. Check the endpoint, or the operator can raise the cap"
        ) from None
    except (TimeoutError, aiohttp.ClientError, OSError, ValueError):
        return None


def parse_json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


@dataclass
class Probe:
    config: ServerConfig
    server_info: dict[str, Any] | None
    info_path: str | None


async def probe_server(
    session: Any, base: str, engine: Engine | None, spec_override: Mapping[str, Any] | None, timeout_s: float
) -> Probe:
    check_engine(engine)
    reached = False
    model = None
    models = await get_capped(session, base + "/v1/models", timeout_s)
    if models is None:  # no HTTP answer at all (refused, unroutable, timed out): every other path fails too
        raise BenchError(
            f"cannot reach {base}: nothing answered within {timeout_s:g} s; check that the server is "
            f"running and the URL (host and port) is right"
        )
    if models is not None:
        reached = True
        if models[0] in (401, 403):
            raise BenchError(f"{base} refused the request (HTTP {models[0]}): the server wants an API key")
        data = parse_json(models[1]) if models[0] == 200 else None
        if isinstance(data, Mapping) and isinstance(data.get("data"), list) and data["data"]:
            first = data["data"][0]
            if isinstance(first, Mapping):
                model = first.get("id")
    info, info_path = None, None
    if engine in (None, "sglang"):
        for path in ("/server_info", "/get_server_info"):
            got = await get_capped(session, base + path, timeout_s)
            if got is None:
                continue
            reached = True
            body = parse_json(got[1]) if got[0] == 200 else None
            if isinstance(body, Mapping) and any(
                k.startswith("speculative_") or k == "model_path"
                for k in (
                    body.get("decode", [{}])[0]
                    if isinstance(body.get("decode"), list)
                    and body["decode"]
                    and isinstance(body["decode"][0], Mapping)
                    else body
                )
            ):
                info, info_path = dict(body), path
                break
    if info is not None:
        config = sglang_config(info, model)
        config.raw["server_info_route"] = info_path
    else:
        version = None
        detected = engine
        if engine in (None, "vllm"):
            got = await get_capped(session, base + "/version", timeout_s)
            if got is not None:
                reached = True
                body = parse_json(got[1]) if got[0] == 200 else None
                if isinstance(body, Mapping) and isinstance(body.get("version"), str):
                    version = body["version"]
                    detected = detected or "vllm"
        if not reached:
            health = await get_capped(session, base + "/health", timeout_s)
            reached = health is not None
        if not reached:
            raise BenchError(
                f"cannot reach {base}: nothing answered; check that the server is running and the "
                f"URL (host and port) is right"
            )
        if engine == "sglang":
            raise BenchError(
                f"{base} does not answer /server_info or /get_server_info like an SGLang server; "
                f"pick another engine or leave it to detection"
            )
        if detected is None and model is None:
            raise BenchError(
                f"{base} answered, but not like an inference server (GET /v1/models gave HTTP "
                f"{models[0]}); check the host, port and path prefix, or pass the engine explicitly"
            )
        detected = detected or "openai"
        config = ServerConfig(
            engine=detected,
            version=version,
            model=model,
            config_source="none",
            raw=_redact.redact({"version": version, "model": model}),
        )
    if config.engine == "vllm":
        config.acceptance_source = None  # set from counters below / after the run
    return Probe(config=config, server_info=info, info_path=info_path)


async def fetch_metrics(session: Any, base: str, timeout_s: float) -> dict[str, Any] | None:
    try:
        got = await get_capped(session, base + "/metrics", timeout_s)
    except ResponseTooLargeError:
        return None  # counters are optional: a run without them has no vLLM acceptance, and says so
    if got is None or got[0] != 200:
        return None
    try:
        return counter_snapshot(got[1].decode("utf-8", "replace"))
    except Exception:  # noqa: BLE001 - a broken /metrics must not stop the run
        return None


async def snapshot(session: Any, base: str, probe: Probe, timeout_s: float) -> dict[str, Any]:
    payload: dict[str, Any] = {"server_info": None, "metrics": await fetch_metrics(session, base, timeout_s)}
    if probe.info_path is not None:
        try:
            got = await get_capped(session, base + probe.info_path, timeout_s)
        except ResponseTooLargeError:
            got = None
        body = parse_json(got[1]) if got is not None and got[0] == 200 else None
        if isinstance(body, Mapping):
            payload["server_info"] = _redact.redact(dict(body))
    payload["time"] = time.time()
    return payload


STATED_FOR_THE_RUN = "stated for this run"


def ignored_spec_note(stated: str = STATED_FOR_THE_RUN) -> str:
    """The note on a baseline whose stated speculative settings were set aside; ``stated`` names where they were
    stated (the page: "stated in the form"; the CLI: the flags given), as ``BenchOptions.spec_source`` says."""
    return (
        f"the server reports no speculation, so this run is a baseline; the speculative settings {stated} were "
        "set aside"
    )


IGNORED_SPEC_NOTE = ignored_spec_note()


def spec_text(config: ServerConfig) -> str:
    """The speculative config in words: "EAGLE3, num_steps=3, topk=1, num_draft_tokens=4", "speculative (method
    not stated), num_steps=1" (vLLM does not report its method), or "none (baseline)"; unstated numbers left out."""
    algo = config.speculative_algorithm
    if not algo:
        return "none (baseline)"
    name = algo if algo != "unknown" else "speculative (method not stated)"
    numbers = (("num_steps", config.num_steps), ("topk", config.topk), ("num_draft_tokens", config.num_draft_tokens))
    return ", ".join([name, *(f"{k}={v}" for k, v in numbers if v is not None)])


def reports_no_speculation(config: ServerConfig, metrics: Mapping[str, Any] | None) -> bool:
    """The server itself says it runs without a draft (not merely: it did not say)."""
    if config.speculative_algorithm is not None:
        return False
    if config.engine == "sglang" and config.config_source == "server":
        return True  # server_info was read and names no speculative_algorithm
    if config.engine == "vllm" and metrics and metrics.get("counters"):
        return not any(str(k).startswith("vllm:spec_decode") for k in metrics["counters"])
    return False


SIDEBAR_DRAFT = "the sidebar"  # where the Live benchmark page's draft comes from: the draft chosen in the sidebar
DRAFT_RECORDED_FROM = "draft_model_recorded_from"  # ServerConfig.raw: where a draft the server left out came from
DRAFT_SET_ASIDE = "stated_draft_model_set_aside"  # ServerConfig.raw: a stated draft the server's own draft overruled


def record_draft(config: ServerConfig, draft: str | None, source: str) -> ServerConfig:
    """The draft the user says the server runs (``source`` names where: ``SIDEBAR_DRAFT`` on the page, "--draft-model"
    on the CLI), recorded on a speculative run whose server reports no draft of its own: vLLM never reports it
    (its spec-decode counters, ``vllm/v1/spec_decode/metrics.py`` ``SpecDecodingProm``, carry no model name, and its
    ``/server_info`` route is registered only under ``VLLM_SERVER_DEV_MODE``,
    ``vllm/entrypoints/serve/instrumentator/__init__.py``), so a run of your draft read "no draft recorded"
    and was left out of your draft's runs as another draft's. A draft the server reports is never overwritten (the
    stated one is kept aside under ``raw``), and a baseline gets none. ``draft_notes`` says what was done."""
    name = str(draft or "").strip()
    if not name or config.speculative_algorithm is None:
        return config
    config.raw = dict(config.raw)
    if config.draft_model:
        from comparelib.models.draft import draft_match

        if not draft_match(config.draft_model, name):
            config.raw[DRAFT_SET_ASIDE] = {"draft": _redact.mask_text(name), "from": source}
        return config
    config.draft_model = _redact.mask_text(name)
    config.raw[DRAFT_RECORDED_FROM] = source
    return config


def draft_notes(config: ServerConfig) -> list[str]:
    """What ``record_draft`` (and a stated draft or setting the server overruled) did, for the run's notes."""
    raw = config.raw or {}
    notes = []
    set_aside = raw.get(SPEC_SET_ASIDE)
    if isinstance(set_aside, Mapping) and set_aside:
        notes.append(
            "the server reports "
            + ", ".join(f"{k} {v.get('server')}" for k, v in set_aside.items() if isinstance(v, Mapping))
            + "; the form's "
            + ", ".join(f"{k} {v.get('stated')}" for k, v in set_aside.items() if isinstance(v, Mapping))
            + " was not recorded (the server's setting is what ran)"
        )
    if raw.get(DRAFT_RECORDED_FROM) and config.draft_model:
        notes.append(
            f"draft recorded from {raw[DRAFT_RECORDED_FROM]}: {config.draft_model}; the server does not report it"
        )
    aside = raw.get(DRAFT_SET_ASIDE)
    if isinstance(aside, Mapping) and aside.get("draft") and config.draft_model:
        where = str(aside.get("from") or STATED_FOR_THE_RUN)
        said = f"the draft {where}" if where.startswith("stated") else f"the draft from {where}"
        notes.append(f"the server reports its draft, {config.draft_model}; {said} ({aside['draft']}) was not recorded")
    return notes


def finish_config(
    config: ServerConfig, metrics: Mapping[str, Any] | None, spec_override: Mapping[str, Any] | None
) -> ServerConfig:
    """vLLM: spec on iff spec-decode series exist; k from the number of positions; stated config wins.

    Except against the server's own word: a server that reports no speculation (SGLang's server_info
    without a speculative_algorithm, vLLM's /metrics without spec-decode counters) is a baseline, and a
    num_steps left in the form from the run before is set aside (kept under ``raw``, and said in a note)
    instead of turning the baseline into a speculative run of 4 steps, method not stated.
    """
    if spec_override and reports_no_speculation(config, metrics):
        config.raw = dict(config.raw)
        config.raw["stated_spec_config_ignored"] = _redact.redact(dict(spec_override))
        return config
    if config.engine == "vllm" and metrics:
        positions = metrics.get("accepted_per_pos") or {}
        has_spec = "vllm:spec_decode_num_drafts_total" in (metrics.get("counters") or {})
        if has_spec:
            config.acceptance_source = "vllm spec_decode counters"
            if config.speculative_algorithm is None:
                config.speculative_algorithm = "unknown"
                config.config_source = "metrics"
            if config.num_steps is None and positions:
                config.num_steps = len(positions)
    config = apply_spec_override(config, spec_override)
    return config


def detect_server(
    endpoint: str,
    *,
    engine: Engine | None = None,
    spec_override: Mapping[str, Any] | None = None,
    timeout_s: float = 10.0,
    api_key: str | None = None,
) -> ServerConfig:
    """The server's engine, version, model and speculative config (BenchError if unreachable)."""
    base = normalise_endpoint(endpoint)
    policy = EndpointPolicy.from_settings()
    check_endpoint(base, policy)
    limits = BenchLimits.from_settings()

    async def go() -> ServerConfig:
        aiohttp = aiohttp_module()
        BODY_LIMITS.set(limits)
        connector = aiohttp.TCPConnector(resolver=None if policy.open else policy.resolver())
        async with aiohttp.ClientSession(connector=connector, headers=request_headers(api_key)) as session:
            probe = await probe_server(session, base, engine, spec_override, timeout_s)
            metrics = (
                await fetch_metrics(session, base, timeout_s) if probe.config.engine in ("vllm", "sglang") else None
            )
            return finish_config(probe.config, metrics, spec_override)

    return run_sync(go())


def run_sync(coro: Any) -> Any:
    """asyncio.run, or in a helper thread if this thread already runs a loop (notebooks)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(coro)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller
            box["error"] = exc

    t = threading.Thread(target=target)
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


class OptionsError(InputError, BenchError):
    """Benchmark options that cannot be used (a bad number, route, engine or label); nothing was sent."""


def check_engine(engine: str | None) -> None:
    if engine is not None and engine not in ENGINES:
        raise OptionsError(f"unknown engine {engine!r}: use sglang, vllm or openai (or leave it to detection)")


def check_endpoint(base: str, policy: EndpointPolicy | None = None) -> None:
    """EndpointRefusedError (a BenchError) unless SPECDRAFT_BENCH_ALLOW allows base; nothing is sent."""
    policy = policy if policy is not None else EndpointPolicy.from_settings()
    parts = urlsplit(base)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    policy.check(parts.hostname or "", port)
