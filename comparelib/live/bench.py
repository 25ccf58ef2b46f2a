"""Live benchmark client for SGLang, vLLM and OpenAI-compatible servers.

Streams requests at a fixed concurrency and measures, per request, TTFT (first content chunk),
end-to-end latency, the server's own output-token count and TPOT = (E2E - TTFT) / (N - 1). Chunk
gaps are kept apart from TPOT because speculative decoding sends several tokens per chunk.
Acceptance length comes from SGLang's per-request meta_info (pooled sum/sum and the per-request
mean) or from the change of vLLM's spec-decode counters over the run. Each finished request goes
to the recorder (the results store) from a writer thread, so the event loop is never blocked by
the database and a killed run keeps what it measured.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import math
import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any, Literal

from comparelib import limits as _limits
from comparelib import redact as _redact
from comparelib.errors import BenchError, CompareError, InputError, LimitError, StoreError
from comparelib.live.endpoints import BenchLimits, EndpointPolicy, RunSlots, SessionBudget
from comparelib.live.prompts import Prompt, as_messages, as_text
from comparelib.live.servers import (
    BODY_LIMITS,
    SIDEBAR_DRAFT,
    STATED_FOR_THE_RUN,
    Acceptance,
    Engine,
    OptionsError,
    ServerConfig,
    aiohttp_module,
    check_endpoint,
    check_engine,
    draft_notes,
    fetch_metrics,
    finish_config,
    ignored_spec_note,
    mib,
    normalise_endpoint,
    probe_server,
    record_draft,
    request_headers,
    run_sync,
    sglang_counter_acceptance,
    snapshot,
    vllm_acceptance,
)

__all__ = [
    "BenchOptions",
    "BenchRun",
    "RequestResult",
    "RunSummary",
    "ServerConfig",
    "benchmark",
    "percentiles",
    "run_benchmark",
    "summarize",
    "ROUTES",
    "OptionsError",
]

RouteName = Literal["generate", "chat", "completions"]
Route = Literal["auto", "generate", "chat", "completions"]  # auto: SGLang's /generate, else chat
RunStatus = Literal["finished", "interrupted", "failed"]
ErrorKind = Literal["http_error", "stream_cut", "timeout", "garbage_chunk", "connection", "empty", "too_large"]
ROUTES: dict[RouteName, str] = {
    "generate": "/generate",
    "chat": "/v1/chat/completions",
    "completions": "/v1/completions",
}
Percentile = Literal["p50", "p90", "p99", "mean"]
PERCENTILE_KEYS: tuple[Percentile, ...] = ("p50", "p90", "p99", "mean")
ProgressFn = Callable[[int, int, float], None]
_LOG = logging.getLogger(__name__)


@dataclass
class RequestResult:
    index: int
    ok: bool
    error: str | None
    started_at: float  # unix time
    prompt_tokens: int | None
    output_tokens: int | None  # from the server's usage / meta_info, never re-tokenised
    ttft_s: float | None
    e2e_s: float | None
    tpot_s: float | None  # (e2e - ttft) / (output_tokens - 1)
    n_chunks: int
    chunk_gaps_s: list[float]  # gaps between content chunks
    spec_verify_ct: int | None  # SGLang meta_info
    accept_length: float | None  # completion_tokens / spec_verify_ct (SGLang)
    error_kind: ErrorKind | None = None


@dataclass
class RunSummary:
    requests: int
    errors: int
    duration_s: float
    output_tokens: int
    output_tokens_per_s: float
    request_throughput: float
    accept_length: float | None
    accept_length_mean: float | None
    accept_per_position: list[float] | None
    ttft_ms: dict[str, float]
    tpot_ms: dict[str, float]
    e2e_ms: dict[str, float]
    itl_ms: dict[str, float]
    ok: int = 0
    error_kinds: dict[str, int] = field(default_factory=dict)
    acceptance_source: str | None = None
    spec_decode: dict[str, float] | None = None  # vLLM counter deltas (drafts, accepted, draft_tokens)
    missing_usage: int = 0  # ok requests whose server sent no token count
    notes: list[str] = field(default_factory=list)


@dataclass
class BenchRun:
    run_id: int | None
    endpoint: str
    server_config: ServerConfig
    summary: RunSummary
    results: list[RequestResult]
    status: RunStatus = "finished"
    params: dict[str, Any] = field(default_factory=dict)


# --- statistics ------------------------------------------------------------------------------------


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    n = len(sorted_values)
    pos = (n - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, n - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def percentiles(values: Sequence[float], scale: float = 1.0) -> dict[str, float]:
    """p50/p90/p99/mean of values times scale; NaN for every key when there are none."""
    clean = sorted(v * scale for v in values if v is not None and math.isfinite(v))
    if not clean:
        return {k: math.nan for k in PERCENTILE_KEYS}
    return {
        "p50": _quantile(clean, 0.5),
        "p90": _quantile(clean, 0.9),
        "p99": _quantile(clean, 0.99),
        "mean": sum(clean) / len(clean),
    }


def summarize(
    results: Sequence[RequestResult],
    duration_s: float,
    *,
    vllm: Acceptance | None = None,
    sglang_counters: float | None = None,
) -> RunSummary:
    """Run-level figures from the measured requests (warm-up excluded by the caller)."""
    ok = [r for r in results if r.ok]
    out_tokens = sum(r.output_tokens or 0 for r in ok)
    kinds: dict[str, int] = {}
    for r in results:
        if not r.ok:
            kinds[r.error_kind or "other"] = kinds.get(r.error_kind or "other", 0) + 1
    with_spec = [r for r in ok if r.spec_verify_ct and r.output_tokens is not None]
    accept = accept_mean = None
    per_pos: list[float] | None = None
    source: str | None = None
    spec_decode = None
    if with_spec:
        accept = sum(r.output_tokens or 0 for r in with_spec) / sum(r.spec_verify_ct or 0 for r in with_spec)
        accept_mean = sum(r.accept_length or 0.0 for r in with_spec) / len(with_spec)
        source = "sglang meta_info"
    elif vllm is not None and vllm.accept_length is not None:
        accept, per_pos, source = vllm.accept_length, vllm.per_position, "vllm spec_decode counters"
        spec_decode = {
            "drafts": vllm.drafts or 0.0,
            "accepted": vllm.accepted or 0.0,
            "draft_tokens": vllm.draft_tokens or 0.0,
        }
    elif sglang_counters is not None:
        accept, source = sglang_counters, "sglang counters"
    duration = max(duration_s, 1e-9)
    notes = []
    missing = sum(1 for r in ok if r.output_tokens is None)
    if missing:
        notes.append(f"{missing} request(s) had no usage from the server; their tokens are not counted")
    return RunSummary(
        requests=len(results),
        errors=len(results) - len(ok),
        duration_s=duration_s,
        output_tokens=out_tokens,
        output_tokens_per_s=out_tokens / duration if ok else 0.0,
        request_throughput=len(ok) / duration if ok else 0.0,
        accept_length=accept,
        accept_length_mean=accept_mean,
        accept_per_position=per_pos,
        ttft_ms=percentiles([r.ttft_s for r in ok if r.ttft_s is not None], 1000.0),
        tpot_ms=percentiles([r.tpot_s for r in ok if r.tpot_s is not None], 1000.0),
        e2e_ms=percentiles([r.e2e_s for r in ok if r.e2e_s is not None], 1000.0),
        itl_ms=percentiles([g for r in ok for g in r.chunk_gaps_s], 1000.0),
        ok=len(ok),
        error_kinds=kinds,
        acceptance_source=source,
        spec_decode=spec_decode,
        missing_usage=missing,
        notes=notes,
    )


# --- HTTP ------------------------------------------------------------------------------------------
# --- one streamed request --------------------------------------------------------------------------


@dataclass
class _Req:
    route: RouteName
    max_tokens: int
    temperature: float
    timeout_s: float
    model: str | None
    ignore_eos: bool
    detail: bool = True  # keep server texts in error messages (no endpoint policy: a local single user)
    chunk_cap: int = 4 << 20

    @classmethod
    def of(cls, options: BenchOptions, route: RouteName, model: str | None, *, detail: bool, chunk_cap: int) -> _Req:
        return cls(
            route=route,
            max_tokens=options.max_tokens,
            temperature=options.temperature,
            timeout_s=options.timeout_s,
            model=model,
            ignore_eos=options.ignore_eos,
            detail=detail,
            chunk_cap=chunk_cap,
        )


def _body(route: str, prompt: Prompt, req: _Req) -> dict[str, Any]:
    if route == "generate":
        params: dict[str, Any] = {"max_new_tokens": req.max_tokens, "temperature": req.temperature}
        if req.ignore_eos:
            params["ignore_eos"] = True
        return {"text": as_text(prompt), "sampling_params": params, "stream": True}
    body: dict[str, Any] = {
        "max_tokens": req.max_tokens,
        "temperature": req.temperature,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if req.model:
        body["model"] = req.model
    if req.ignore_eos:
        body["ignore_eos"] = True
    if route == "chat":
        body["messages"] = as_messages(prompt)
    else:
        body["prompt"] = as_text(prompt)
    return body


def _chunk_message(cap: int) -> str:
    return (
        f"one streamed chunk is larger than {mib(cap)} (SPECDRAFT_BENCH_MAX_CHUNK_BYTES); the response was "
        f"dropped there. The operator can raise the cap"
    )


class _StreamError(Exception):
    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind


async def _one(session: Any, url: str, index: int, prompt: Prompt, req: _Req) -> RequestResult:
    aiohttp = aiohttp_module()
    loads = json.loads
    clock = time.perf_counter
    started_at = time.time()
    t0 = clock()
    first: float | None = None
    last = 0.0
    gaps: list[float] = []
    n_chunks = 0
    prompt_tokens = out_tokens = verify = None
    prev_completion = 0
    done = finished = False
    done_at: float | None = None
    route = req.route
    body = _body(route, prompt, req)
    error: _StreamError | None = None
    try:
        async with session.post(
            url, json=body, timeout=aiohttp.ClientTimeout(total=req.timeout_s), allow_redirects=False
        ) as resp:
            if resp.status != 200:
                if not req.detail:  # the status only: a server's body is not shown to other visitors
                    raise _StreamError("http_error", f"HTTP {resp.status}")
                text = (await resp.content.read(300)).decode("utf-8", "replace")
                raise _StreamError("http_error", f"HTTP {resp.status}: {' '.join(text.split())}")
            cap = req.chunk_cap
            lines_of = _limits.aiter_line_batches(resp.content.iter_any(), url, _limits.SSE_LINE_BYTES, limit=cap)
            async with aclosing(lines_of) as batches:
                async for lines in batches:
                    for line in lines:
                        if not line.startswith(b"data:"):
                            continue
                        payload = line[5:].strip()
                        if payload == b"[DONE]":
                            # The response is complete here; bookkeeping waits until the other streams
                            # whose chunks arrived in the same poll have been timestamped.
                            done_at = clock()
                            done = True
                            await asyncio.sleep(0)
                            continue
                        try:
                            obj = loads(payload)
                        except ValueError:
                            raise _StreamError(
                                "garbage_chunk", "unparseable chunk" + (f": {payload[:80]!r}" if req.detail else "")
                            ) from None
                        if not isinstance(obj, dict):
                            raise _StreamError(
                                "garbage_chunk", "unexpected chunk" + (f": {payload[:80]!r}" if req.detail else "")
                            )
                        content = False
                        if route == "generate":
                            meta = obj.get("meta_info") or {}
                            ct = meta.get("completion_tokens")
                            if isinstance(ct, int):
                                if ct > prev_completion:
                                    content = True
                                    prev_completion = ct
                                out_tokens = ct
                            elif obj.get("text"):
                                content = True
                            if meta.get("prompt_tokens") is not None:
                                prompt_tokens = meta["prompt_tokens"]
                            if meta.get("spec_verify_ct") is not None:
                                verify = meta["spec_verify_ct"]
                            if meta.get("finish_reason"):
                                finished = True
                        else:
                            if "error" in obj and not obj.get("choices"):
                                err = obj["error"]
                                msg = err.get("message") if isinstance(err, dict) else err
                                raise _StreamError(
                                    "http_error",
                                    "server error in stream" + (f": {str(msg)[:300]}" if req.detail else ""),
                                )
                            for choice in obj.get("choices") or ():
                                if route == "chat":
                                    delta = choice.get("delta") or {}
                                    if (
                                        delta.get("content")
                                        or delta.get("reasoning_content")
                                        or delta.get("reasoning")
                                    ):
                                        content = True
                                elif choice.get("text"):
                                    content = True
                                if choice.get("finish_reason"):
                                    finished = True
                            usage = obj.get("usage")
                            if usage:
                                if usage.get("completion_tokens") is not None:
                                    out_tokens = usage["completion_tokens"]
                                if usage.get("prompt_tokens") is not None:
                                    prompt_tokens = usage["prompt_tokens"]
                            ext = obj.get("sglext")
                            if ext:  # newest SGLang: return_spec_tokens_details rides the stream
                                details = ext.get("spec_tokens_details") or {}
                                if details.get("spec_verify_ct") is not None:
                                    verify = details["spec_verify_ct"]
                        if content:
                            now = clock()
                            if first is None:
                                first = now
                            else:
                                gaps.append(now - last)
                            last = now
                            n_chunks += 1
            if not done:
                raise _StreamError(
                    "stream_cut",
                    "stream ended before [DONE]"
                    + (" (after the final chunk)" if finished else " (incomplete response)"),
                )
    except _StreamError as exc:
        error = exc
    except LimitError:  # one SSE line over the cap: the rest of the response is not read
        error = _StreamError("too_large", _chunk_message(req.chunk_cap))
    except TimeoutError:
        error = _StreamError("timeout", f"no complete response within {req.timeout_s:g} s (server stalled?)")
    except aiohttp.ClientPayloadError as exc:
        error = _StreamError("stream_cut", f"stream cut mid-way: {exc.__class__.__name__}")
    except aiohttp.ServerDisconnectedError:
        error = _StreamError("stream_cut", "server closed the connection mid-response")
    except (aiohttp.ClientError, OSError) as exc:
        # One message for refused, reset, unroutable and DNS alike: error texts must not map a network.
        error = _StreamError(
            "connection", f"server unreachable ({exc.__class__.__name__})" if req.detail else "server unreachable"
        )
    e2e = (done_at if done_at is not None and error is None else clock()) - t0
    ttft = first - t0 if first is not None else None
    if error is None and (first is None or not out_tokens):
        error = _StreamError("empty", "the server streamed no output tokens")
    if error is not None:
        return RequestResult(
            index=index,
            ok=False,
            error=str(error),
            started_at=started_at,
            prompt_tokens=prompt_tokens,
            output_tokens=out_tokens,
            ttft_s=ttft,
            e2e_s=e2e,
            tpot_s=None,
            n_chunks=n_chunks,
            chunk_gaps_s=gaps,
            spec_verify_ct=verify,
            accept_length=None,
            error_kind=error.kind,
        )
    tpot = (e2e - ttft) / (out_tokens - 1) if out_tokens and out_tokens > 1 and ttft is not None else None
    accept = out_tokens / verify if out_tokens and verify else None
    return RequestResult(
        index=index,
        ok=True,
        error=None,
        started_at=started_at,
        prompt_tokens=prompt_tokens,
        output_tokens=out_tokens,
        ttft_s=ttft,
        e2e_s=e2e,
        tpot_s=tpot,
        n_chunks=n_chunks,
        chunk_gaps_s=gaps,
        spec_verify_ct=verify,
        accept_length=accept,
    )


# --- recorder thread -------------------------------------------------------------------------------


class _Writer:
    """Runs every recorder call on one thread, in order, so the event loop never waits on the database."""

    def __init__(self, recorder: Any) -> None:
        self.recorder = recorder
        self.error: BaseException | None = None
        self._q: queue.Queue[tuple[Callable[[], Any], Future[Any]] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._loop, name="bench-recorder", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while True:
            item = self._q.get()
            if item is None:
                return
            fn, fut = item
            try:
                fut.set_result(fn())
            except BaseException as exc:  # noqa: BLE001 - handed to the caller through the future
                if self.error is None:
                    self.error = exc
                fut.set_exception(exc)

    def submit(self, fn: Callable[[], Any]) -> Future[Any]:
        fut: Future[Any] = Future()
        self._q.put((fn, fut))
        return fut

    def close(self) -> None:
        self._q.put(None)
        self._thread.join()


# --- the run ---------------------------------------------------------------------------------------


def _check(name: str, value: Any, minimum: float, integer: bool = True) -> None:
    ok = isinstance(value, int) and not isinstance(value, bool) if integer else isinstance(value, (int, float))
    if not ok or value < minimum or (not integer and not math.isfinite(value)):
        raise OptionsError(f"{name} must be {'an integer' if integer else 'a number'} >= {minimum:g}, got {value!r}")


def _check_text(what: str, text: str) -> None:
    """Labels and groups must be valid UTF-8 text (a shell can pass bytes 0xff 0xfe as lone surrogates)."""
    try:
        str(text).encode("utf-8")
        ok = "\x00" not in str(text)
    except UnicodeEncodeError:
        ok = False
    if not ok:
        shown = str(text).encode("utf-8", "replace").decode("utf-8").replace("\x00", "?")[:80]
        raise OptionsError(
            f"{what} {shown!r} is not valid UTF-8 text (it holds undecodable bytes such as 0xff or a "
            f"NUL); retype it with plain characters"
        )


@dataclass(frozen=True)
class BenchOptions:
    """What to measure: the server and the request mix of one run, checked when it is built.

    Building one raises ``OptionsError`` (an InputError and a BenchError) naming the option and what
    it accepts; the endpoint is normalised (``normalise_endpoint``: BenchError for a bad URL). The
    server-side caps (``BenchLimits``, the endpoint policy, a session budget) are checked when the run
    starts, because they depend on where it runs.
    """

    endpoint: str
    concurrency: int = 8
    requests: int = 64
    max_tokens: int = 256
    temperature: float = 0.0
    warmup: int = 2
    timeout_s: float = 120.0
    labels: tuple[str, ...] = ()
    engine: Engine | None = None
    spec_override: Mapping[str, Any] | None = None
    group: str | None = None
    route: Route = "auto"
    ignore_eos: bool = False
    api_key: str | None = field(default=None, repr=False)  # never in a repr, a log or the stored params
    prompt_set: str = "bundled"
    # where spec_override was stated, as a note names it when the server set it aside: "stated in the form" on
    # the page, the flags given on the CLI
    spec_source: str = STATED_FOR_THE_RUN
    # the draft the user says the server runs, recorded only on a speculative run whose server reports no draft
    # (vLLM never does; ``servers.record_draft``); ``draft_source`` names where it came from in the run's notes:
    # SIDEBAR_DRAFT on the page, "--draft-model" on the CLI
    draft_model: str | None = None
    draft_source: str = STATED_FOR_THE_RUN

    def __post_init__(self) -> None:
        object.__setattr__(self, "endpoint", normalise_endpoint(self.endpoint))
        _check("concurrency", self.concurrency, 1)
        _check("requests", self.requests, 1)
        _check("max_tokens", self.max_tokens, 1)
        _check("warmup", self.warmup, 0)
        _check("temperature", self.temperature, 0.0, integer=False)
        _check("timeout", self.timeout_s, 0.001, integer=False)
        if self.route not in ("auto", *ROUTES):
            raise OptionsError(f"route must be auto, {', '.join(ROUTES)}; got {self.route!r}")
        check_engine(self.engine)
        if isinstance(self.labels, str):
            raise OptionsError(f"labels must be a list of texts, got one text {self.labels[:80]!r}")
        object.__setattr__(self, "labels", tuple(self.labels))
        for what, text in [
            *(("label", x) for x in self.labels),
            ("group", self.group or ""),
            ("draft", self.draft_model or ""),
        ]:
            _check_text(what, text)

    def params(self) -> dict[str, Any]:
        """The run's parameters as stored with it (the route is added once it is chosen)."""
        return {
            "concurrency": self.concurrency,
            "requests": self.requests,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "warmup": self.warmup,
            "prompt_set": self.prompt_set,
            "timeout_s": self.timeout_s,
            "ignore_eos": self.ignore_eos,
        }


def run_benchmark(
    endpoint: str,
    *,
    prompts: Sequence[Prompt],
    concurrency: int = 8,
    requests: int = 64,
    max_tokens: int = 256,
    temperature: float = 0.0,
    warmup: int = 2,
    timeout_s: float = 120.0,
    labels: Sequence[str] = (),
    engine: Engine | None = None,
    spec_override: Mapping[str, Any] | None = None,
    recorder: Any = None,
    progress: ProgressFn | None = None,
    group: str | None = None,
    stop_event: threading.Event | None = None,
    route: Route = "auto",
    ignore_eos: bool = False,
    api_key: str | None = None,
    prompt_set: str = "bundled",
    keep_running: Callable[[], bool] | None = None,
    budget: SessionBudget | None = None,
    policy: EndpointPolicy | None = None,
    limits: BenchLimits | None = None,
) -> BenchRun:
    """``benchmark`` with the options given one by one (see BenchOptions for what each means)."""
    options = BenchOptions(
        endpoint=endpoint,
        concurrency=concurrency,
        requests=requests,
        max_tokens=max_tokens,
        temperature=temperature,
        warmup=warmup,
        timeout_s=timeout_s,
        labels=tuple(labels),
        engine=engine,
        spec_override=spec_override,
        group=group,
        route=route,
        ignore_eos=ignore_eos,
        api_key=api_key,
        prompt_set=prompt_set,
    )
    return benchmark(
        options,
        prompts=prompts,
        recorder=recorder,
        progress=progress,
        stop_event=stop_event,
        keep_running=keep_running,
        budget=budget,
        policy=policy,
        limits=limits,
    )


def benchmark(
    options: BenchOptions,
    *,
    prompts: Sequence[Prompt],
    recorder: Any = None,
    progress: ProgressFn | None = None,
    stop_event: threading.Event | None = None,
    keep_running: Callable[[], bool] | None = None,
    budget: SessionBudget | None = None,
    policy: EndpointPolicy | None = None,
    limits: BenchLimits | None = None,
) -> BenchRun:
    """Benchmark a live server and (with a recorder) store everything as it is measured.

    Warm-up requests run first and are not measured. The run is status "interrupted" when
    stop_event is set, keep_running() turns false (the page's browser session ended) or the run-time
    cap is reached (in-flight requests are cancelled and not counted). The endpoint policy and caps
    (comparelib/live/endpoints.py, from the environment unless given) are checked before any connection.
    """
    policy = policy if policy is not None else EndpointPolicy.from_settings()
    limits = limits if limits is not None else BenchLimits.from_settings()
    prompt_list = list(prompts)
    if not prompt_list:
        raise InputError("no prompts to send")
    limits.check(concurrency=options.concurrency, requests=options.requests, warmup=options.warmup)
    if budget is not None:
        budget.check(options.requests + options.warmup)
    check_endpoint(options.endpoint, policy)
    caps = [c for c in (limits.max_seconds, budget.seconds_left if budget is not None else None) if c is not None]
    guard = _Guard(stop_event=stop_event, keep_running=keep_running, max_seconds=min(caps) if caps else None)
    RunSlots.acquire(limits.max_runs)
    started = time.monotonic()
    try:
        run: BenchRun = run_sync(
            _run(options, prompt_list, recorder=recorder, progress=progress, guard=guard, policy=policy, limits=limits)
        )
        return run
    finally:
        RunSlots.release()
        if budget is not None:
            budget.spend(guard.sent, time.monotonic() - started)


@dataclass
class _Guard:
    """Why a run stops early: the Stop button, the browser session gone, or the run-time cap."""

    stop_event: threading.Event | None = None
    keep_running: Callable[[], bool] | None = None
    max_seconds: float | None = None
    sent: int = 0
    reason: str | None = None

    @property
    def active(self) -> bool:
        return self.stop_event is not None or self.keep_running is not None or self.max_seconds is not None

    def should_stop(self, started: float) -> bool:
        if self.stop_event is not None and self.stop_event.is_set():
            self.reason = self.reason or "stopped"
        elif self.max_seconds is not None and time.monotonic() - started >= self.max_seconds:
            self.reason = (
                f"stopped at the run-time cap of {self.max_seconds:g} s (SPECDRAFT_BENCH_MAX_SECONDS or "
                f"what is left of SPECDRAFT_BENCH_SESSION_SECONDS)"
            )
        elif self.keep_running is not None:
            try:
                alive = bool(self.keep_running())
            except Exception:  # noqa: BLE001 - cannot tell: assume the session is gone
                alive = False
            if not alive:
                self.reason = "stopped: the browser session that started it has ended"
        return self.reason is not None

    async def watch(self, started: float, stopping: asyncio.Event) -> None:
        """Sets ``stopping`` once the run should stop (polled every 50 ms)."""
        while not self.should_stop(started):
            await asyncio.sleep(0.05)
        stopping.set()


@dataclass
class _Tally:
    """What one pool run has measured so far (for the progress callback and the duration)."""

    last_end: float
    tokens: int = 0
    done: int = 0


class _Pool:
    """The concurrent request workers of a run: ``concurrency`` tasks taking request numbers from one counter.

    ``run`` sends n requests (a warm-up, or the measured ones) and returns the measured duration;
    measured results are kept in ``results``, handed to ``on_result`` (the recorder) and counted
    for ``progress``. Setting ``stopping`` cancels the requests in flight; they are not counted.
    """

    def __init__(
        self,
        session: Any,
        url: str,
        req: _Req,
        *,
        concurrency: int,
        guard: _Guard,
        stopping: asyncio.Event,
        progress: ProgressFn | None = None,
        on_result: Callable[[RequestResult], Any] | None = None,
    ) -> None:
        self.session, self.url, self.req = session, url, req
        self.concurrency = concurrency
        self.guard, self.stopping = guard, stopping
        self.progress, self.on_result = progress, on_result
        self.results: list[RequestResult] = []

    async def run(self, n: int, pick: Callable[[int], Prompt], *, record: bool) -> float:
        counter = iter(range(n))
        start = time.perf_counter()
        tally = _Tally(last_end=start)

        async def worker() -> None:
            for i in counter:
                if self.stopping.is_set():
                    return
                if i >= self.concurrency:
                    # Chunks of other streams that arrived with this one's end are already
                    # queued: let them be timestamped before this task sends a new request.
                    await asyncio.sleep(0)
                    if self.stopping.is_set():
                        return
                self.guard.sent += 1
                result = await _one(self.session, self.url, i, pick(i), self.req)
                if record:
                    self._record(result, n, start, tally)

        tasks: list[asyncio.Task[Any]] = [asyncio.create_task(worker()) for _ in range(min(self.concurrency, n))]
        gate: asyncio.Task[Any] = asyncio.create_task(self.stopping.wait())
        pending: set[asyncio.Task[Any]] = set(tasks)
        while pending and not self.stopping.is_set():
            _, pending = await asyncio.wait(pending | {gate}, return_when=asyncio.FIRST_COMPLETED)
            pending.discard(gate)
            for t in tasks:
                if t.done() and not t.cancelled() and t.exception() is not None:
                    raise t.exception()  # type: ignore[misc]
        if self.stopping.is_set():
            for t in pending:
                t.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            if not self.results:
                tally.last_end = time.perf_counter()
        gate.cancel()
        return tally.last_end - start

    def _record(self, result: RequestResult, n: int, start: float, tally: _Tally) -> None:
        tally.last_end = last_end = time.perf_counter()
        self.results.append(result)
        tally.done += 1
        if result.ok:
            tally.tokens += result.output_tokens or 0
        if self.on_result is not None:
            self.on_result(result)
        if self.progress is not None:
            try:
                self.progress(tally.done, n, tally.tokens / max(last_end - start, 1e-9))
            except Exception:  # noqa: BLE001 - a broken progress bar must not stop the run
                pass


def _choose_route(route: Route, config: ServerConfig, first_metrics: Mapping[str, Any] | None) -> RouteName:
    """The route to send to ("auto": SGLang's native /generate, else chat), and where acceptance will come from."""
    chosen: RouteName = route if route != "auto" else ("generate" if config.engine == "sglang" else "chat")
    if chosen == "generate" and config.engine != "sglang":
        raise InputError("the native /generate route exists only on SGLang servers; use chat or completions")
    if config.engine == "openai":
        config.acceptance_source = None
    elif chosen != "generate" and config.engine == "sglang":
        config.acceptance_source = (
            "sglang counters"
            if first_metrics and "sglang:spec_verify_calls_total" in (first_metrics.get("counters") or {})
            else None
        )
    return chosen


def _run_summary(
    results: list[RequestResult],
    duration: float,
    snapshots: tuple[Mapping[str, Any], Mapping[str, Any]],
    config: ServerConfig,
    options: BenchOptions,
    stop_reason: str | None,
) -> RunSummary:
    """summarize() with the acceptance from the counters and the notes that qualify the figures."""
    before, after = snapshots
    vllm = sgl = None
    if before.get("metrics") and after.get("metrics"):
        if config.engine == "vllm":
            vllm = vllm_acceptance(before["metrics"], after["metrics"])
        elif config.engine == "sglang":
            sgl = sglang_counter_acceptance(before["metrics"], after["metrics"])
    summary = summarize(results, duration, vllm=vllm, sglang_counters=sgl)
    if "stated_spec_config_ignored" in (config.raw or {}):
        summary.notes.append(ignored_spec_note(options.spec_source))
    summary.notes.extend(draft_notes(config))
    if config.speculative_algorithm is None and options.draft_model and options.draft_source != SIDEBAR_DRAFT:
        # the page's draft is the sidebar's on every run (said only where it is recorded); a draft typed for
        # this run (the CLI's --draft-model) is said to be set aside
        summary.notes.append(
            f"no speculation was measured, so this run is a baseline and records no draft; the draft given with "
            f"{options.draft_source} ({options.draft_model}) was not recorded"
        )
    if config.engine == "openai":
        summary.notes.append("generic OpenAI-compatible server: no acceptance data")
    elif summary.accept_length is None and config.speculative_algorithm is not None:
        summary.notes.append("the server gave no acceptance data for this route")
    if (
        any(r.ok and r.output_tokens is not None and r.output_tokens < options.max_tokens for r in results)
        and not options.ignore_eos
        and config.engine != "openai"
    ):
        summary.notes.append("some requests stopped before max_tokens; compare runs with matched lengths")
    if stop_reason and stop_reason != "stopped":
        summary.notes.append(stop_reason)
    return summary


def _failure(exc: Exception, base: str, policy: EndpointPolicy) -> BenchError:
    """An unexpected error as a BenchError: its text only without a policy (a local single user), else logged."""
    if policy.open:
        return BenchError(f"benchmark against {base} failed: {exc.__class__.__name__}: {_redact.mask_text(str(exc))}")
    _LOG.warning("benchmark against %s failed:\n%s", base, _redact.traceback_text())
    return BenchError(f"benchmark against {base} failed ({exc.__class__.__name__}); the server log has the details")


class _Recording:
    """The recorder side of one run: every call on the writer thread, in order; nothing without a recorder."""

    def __init__(self, recorder: Any) -> None:
        self.recorder = recorder
        self.writer = _Writer(recorder) if recorder is not None else None
        self.run_id: int | None = None

    async def start(self, **run: Any) -> None:
        if self.writer is not None:
            start_run = functools.partial(self.recorder.start_run, **run)
            self.run_id = await asyncio.wrap_future(self.writer.submit(start_run))

    def _submit(self, method: str, *args: Any, **kwargs: Any) -> None:
        if self.writer is not None and self.run_id is not None:
            self.writer.submit(functools.partial(getattr(self.recorder, method), self.run_id, *args, **kwargs))

    def request(self, result: RequestResult) -> None:
        self._submit("add_request", result)

    def snapshot(self, which: str, payload: Mapping[str, Any]) -> None:
        self._submit("add_snapshot", which, payload)

    def close(self, summary: RunSummary | None, results: list[RequestResult], status: RunStatus) -> None:
        """Finish the stored run (with what was measured, if the run failed) and wait for the writes."""
        if self.writer is None:
            return
        if self.run_id is not None:
            self._submit("finish_run", summary if summary is not None else summarize(results, 0.0), status=status)
        self.writer.close()

    def check(self) -> None:
        """The first recorder error, as a CompareError (after close, once the run itself succeeded)."""
        if self.writer is not None and self.writer.error is not None:
            err = self.writer.error
            raise err if isinstance(err, CompareError) else StoreError(f"could not record the run: {err}")


async def _run(
    options: BenchOptions,
    prompts: list[Prompt],
    *,
    recorder: Any,
    progress: ProgressFn | None,
    guard: _Guard,
    policy: EndpointPolicy,
    limits: BenchLimits,
) -> BenchRun:
    aiohttp = aiohttp_module()
    BODY_LIMITS.set(limits)
    run_started = time.monotonic()
    base, params = options.endpoint, options.params()
    probe_timeout = min(options.timeout_s, 10.0)
    connector = aiohttp.TCPConnector(
        limit=0, limit_per_host=0, ttl_dns_cache=300, resolver=None if policy.open else policy.resolver()
    )
    recording = _Recording(recorder)
    results: list[RequestResult] = []
    status: RunStatus = "failed"
    summary: RunSummary | None = None
    try:
        async with aiohttp.ClientSession(
            connector=connector, headers=request_headers(options.api_key), read_bufsize=1 << 16
        ) as session:
            probe = await probe_server(session, base, options.engine, options.spec_override, probe_timeout)
            first_metrics = (
                await fetch_metrics(session, base, probe_timeout) if probe.config.engine != "openai" else None
            )
            config = finish_config(probe.config, first_metrics, options.spec_override)
            config = record_draft(config, options.draft_model, options.draft_source)
            params["route"] = chosen = _choose_route(options.route, config, first_metrics)
            labels, group = list(options.labels), options.group
            await recording.start(
                endpoint=base, server_config=config, labels=labels, params=dict(params), group=group, kind="measured"
            )
            stopping = asyncio.Event()
            watcher = asyncio.create_task(guard.watch(run_started, stopping)) if guard.active else None
            req = _Req.of(options, chosen, config.model, detail=policy.open, chunk_cap=limits.max_chunk_bytes)
            pool = _Pool(
                session,
                base + ROUTES[chosen],
                req,
                concurrency=options.concurrency,
                guard=guard,
                stopping=stopping,
                progress=progress,
                on_result=recording.request,
            )
            results, n_prompts = pool.results, len(prompts)
            if options.warmup:
                await pool.run(options.warmup, lambda i: prompts[(n_prompts - 1 - i) % n_prompts], record=False)
            before = await snapshot(session, base, probe, probe_timeout)
            recording.snapshot("before", before)
            duration = 0.0
            if not stopping.is_set():
                duration = await pool.run(options.requests, lambda i: prompts[i % n_prompts], record=True)
            interrupted = stopping.is_set()
            if watcher is not None:
                watcher.cancel()
            after = await snapshot(session, base, probe, probe_timeout)
            recording.snapshot("after", after)
            results.sort(key=lambda r: r.index)
            reason = guard.reason if interrupted else None
            summary = _run_summary(results, duration, (before, after), config, options, reason)
            status = "interrupted" if interrupted else "finished"
    except CompareError:
        raise
    except Exception as exc:  # noqa: BLE001 - turned into a message the user can act on
        raise _failure(exc, base, policy) from (exc if policy.open else None)
    finally:
        recording.close(summary, results, status)
    recording.check()
    assert summary is not None
    return BenchRun(
        run_id=recording.run_id,
        endpoint=base,
        server_config=config,
        summary=summary,
        results=results,
        status=status,
        params=params,
    )
