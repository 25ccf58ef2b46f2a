"""A local inference server that speaks SGLang, vLLM and plain OpenAI streaming, with known timings.

Tests and benchmarks compute the truth from the options (TTFT delay, inter-chunk delay, tokens per
chunk = tokens accepted per verify step) and compare it with what the benchmark client measured.
It is a raw asyncio HTTP/1.1 server (keep-alive, chunked SSE), so it needs no extra package and
handles hundreds of concurrent streams. Faults are injected by request number.

Use in tests::

    def test_x(fake_server):
        server = fake_server(engine="sglang", ttft_s=0.05, chunk_delay_s=0.02)

Standalone (the benchmark and the browser test run it in its own process)::

    python -m tests.fake_inference --engine sglang --port 30000 --ttft-ms 50 --chunk-delay-ms 20
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

ENGINES = ("sglang", "vllm", "openai")


@dataclass
class FakeOptions:
    """Everything the server does is fixed by these, so the truth can be computed from them."""

    engine: str = "sglang"
    ttft_s: float = 0.05
    chunk_delay_s: float = 0.02
    tokens_per_chunk: int = 4
    # Tokens per chunk cycling per verify step (overrides tokens_per_chunk), e.g. [4, 3, 3, 1].
    accept_pattern: list[int] | None = None
    output_tokens: int = 32  # per request unless the request asks for fewer (max_tokens)
    honour_max_tokens: bool = False
    role_chunk: bool = True  # OpenAI chat: a role-only chunk with empty content first, at once
    # Speculative configuration the server reports (None algorithm = no speculation).
    speculative_algorithm: str | None = "EAGLE3"
    draft_model: str = "fake/draft-eagle3"
    num_steps: int = 3
    topk: int = 1
    num_draft_tokens: int = 4
    model: str = "fake/target-model"
    version: str = "0.0.0-fake"
    server_info_route: str = "both"  # "both" | "legacy" (only /get_server_info) | "none"
    api_key_in_info: str | None = "sk-should-never-be-stored"
    # Faults by generation-request number (1-based; every k-th request; 0 = never).
    fail_every: int = 0
    cut_every: int = 0  # connection dropped mid-stream (no terminating chunk)
    truncate_every: int = 0  # body ends cleanly but without [DONE] / finish
    stall_every: int = 0  # stops sending mid-stream and never finishes
    garbage_every: int = 0  # one unparseable data line mid-stream

    def pattern(self) -> list[int]:
        return list(self.accept_pattern) if self.accept_pattern else [self.tokens_per_chunk]

    def chunks_for(self, n_tokens: int) -> list[int]:
        """Tokens in each chunk (one chunk per verify step) for a request of n_tokens."""
        pattern, sizes, i, left = self.pattern(), [], 0, n_tokens
        while left > 0:
            take = min(pattern[i % len(pattern)], left)
            sizes.append(take)
            left -= take
            i += 1
        return sizes

    def spec_k(self) -> int:
        return max(max(self.pattern()) - 1, self.num_steps)


@dataclass
class Counters:
    """Prometheus-style counters, advanced as chunks are served (like vLLM's per-step updates)."""

    requests: int = 0
    prompt_tokens: int = 0
    generation_tokens: int = 0
    verify_calls: int = 0
    drafts: int = 0
    draft_tokens: int = 0
    accepted: int = 0
    accepted_per_pos: dict[int, int] = field(default_factory=dict)


class _Cut(Exception):
    pass


def _words(n: int, start: int) -> str:
    return "".join(f" w{start + i}" for i in range(n))


class FakeInferenceServer:
    def __init__(self, options: FakeOptions) -> None:
        if options.engine not in ENGINES:
            raise ValueError(f"engine must be one of {ENGINES}")
        self.options = options
        self.counters = Counters()
        self._stop = asyncio.Event()
        self._server: asyncio.base_events.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self.port = 0
        # What the server actually did per finished stream (time.perf_counter = CLOCK_MONOTONIC, so
        # comparable across processes on Linux): the truth a client's measurement is checked against.
        self.timings: list[dict[str, Any]] = []

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._server = await asyncio.start_server(self._handle, host, port, backlog=2048, limit=1 << 20)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.close()
        for w in list(self._writers):
            w.close()
        if self._server is not None:
            try:
                await asyncio.wait_for(self._server.wait_closed(), 2)
            except (TimeoutError, Exception):
                pass

    # --- HTTP plumbing -------------------------------------------------------------------------
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            while not self._stop.is_set():
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
                    return
                received = time.perf_counter()
                lines = head.decode("latin-1").split("\r\n")
                method, target, _ = (lines[0].split(" ", 2) + ["", ""])[:3]
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                body = b""
                length = int(headers.get("content-length", "0") or 0)
                if length:
                    body = await reader.readexactly(length)
                path = target.split("?", 1)[0]
                try:
                    keep = await self._route(method, path, body, writer, received)
                except _Cut:
                    return
                if not keep or headers.get("connection", "").lower() == "close":
                    return
        except (ConnectionError, asyncio.CancelledError):
            return
        finally:
            self._writers.discard(writer)
            try:
                writer.close()
            except Exception:
                pass

    async def _send(
        self, writer: asyncio.StreamWriter, status: int, payload: Any, ctype: str = "application/json"
    ) -> bool:
        data = (
            payload
            if isinstance(payload, bytes)
            else (payload.encode() if isinstance(payload, str) else json.dumps(payload).encode())
        )
        reason = {200: "OK", 404: "Not Found", 500: "Internal Server Error", 400: "Bad Request"}.get(status, "X")
        writer.write(
            f"HTTP/1.1 {status} {reason}\r\nContent-Type: {ctype}\r\nContent-Length: {len(data)}\r\n"
            f"Connection: keep-alive\r\n\r\n".encode()
            + data
        )
        await writer.drain()
        return True

    async def _route(self, method: str, path: str, body: bytes, writer: asyncio.StreamWriter, received: float) -> bool:
        o = self.options
        if method == "GET":
            if path == "/health":
                return await self._send(writer, 200, b"", "text/plain")
            if path == "/v1/models":
                return await self._send(
                    writer,
                    200,
                    {
                        "object": "list",
                        "data": [{"id": o.model, "object": "model", "owned_by": o.engine, "max_model_len": 8192}],
                    },
                )
            if path == "/metrics" and o.engine in ("sglang", "vllm"):
                return await self._send(writer, 200, self.metrics_text(), "text/plain; version=0.0.4")
            if o.engine == "sglang" and path in ("/server_info", "/get_server_info"):
                allowed = {"both": ("/server_info", "/get_server_info"), "legacy": ("/get_server_info",)}.get(
                    o.server_info_route, ()
                )
                if path in allowed:
                    return await self._send(writer, 200, self.server_info())
            if path == "/_fake/timings":
                return await self._send(writer, 200, {"timings": self.timings, "options": dataclasses.asdict(o)})
            if o.engine == "vllm" and path == "/version":
                return await self._send(writer, 200, {"version": o.version})
            return await self._send(writer, 404, {"detail": "Not Found"})
        if method == "POST" and path == "/_fake/reset":
            self.timings = []
            return await self._send(writer, 200, {"ok": True})
        if method == "POST":
            routes = {"/v1/chat/completions": "chat", "/v1/completions": "completions"}
            if o.engine == "sglang":
                routes["/generate"] = "generate"
            kind = routes.get(path)
            if kind is None:
                return await self._send(writer, 404, {"detail": "Not Found"})
            try:
                req = json.loads(body or b"{}")
            except ValueError:
                return await self._send(writer, 400, {"error": "bad json"})
            return await self._generate(kind, req, writer, received)
        return await self._send(writer, 404, {"detail": "Not Found"})

    def server_info(self) -> dict[str, Any]:
        o = self.options
        spec = o.speculative_algorithm is not None
        info: dict[str, Any] = {
            "model_path": o.model,
            "tokenizer_path": o.model,
            "tp_size": 1,
            "port": self.port,
            "speculative_algorithm": o.speculative_algorithm,
            "speculative_draft_model_path": o.draft_model if spec else None,
            "speculative_num_steps": o.num_steps if spec else None,
            "speculative_eagle_topk": o.topk if spec else None,
            "speculative_num_draft_tokens": o.num_draft_tokens if spec else None,
            "hf_token": "hf_secretsecretsecret" if o.api_key_in_info else None,
            "version": o.version,
            "internal_states": [{"avg_spec_accept_length": self.accept_so_far()}],
        }
        if o.api_key_in_info:
            info["api_key"] = o.api_key_in_info
        return info

    def accept_so_far(self) -> float | None:
        c = self.counters
        return c.generation_tokens / c.verify_calls if c.verify_calls else None

    def metrics_text(self) -> str:
        c, o = self.counters, self.options
        if o.engine == "sglang":
            lab = f'{{model_name="{o.model}"}}'
            return "\n".join(
                [
                    "# HELP sglang:prompt_tokens_total Number of prefill tokens processed.",
                    "# TYPE sglang:prompt_tokens_total counter",
                    f"sglang:prompt_tokens_total{lab} {float(c.prompt_tokens)}",
                    "# TYPE sglang:generation_tokens_total counter",
                    f"sglang:generation_tokens_total{lab} {float(c.generation_tokens)}",
                    "# TYPE sglang:spec_verify_calls_total counter",
                    f"sglang:spec_verify_calls_total{lab} {float(c.verify_calls)}",
                    "# TYPE sglang:spec_accept_length gauge",
                    f"sglang:spec_accept_length{lab} {self.accept_so_far() or 0.0}",
                    "",
                ]
            )
        if o.engine == "vllm":
            lab = f'engine="0",model_name="{o.model}"'
            lines = [
                "# HELP vllm:spec_decode_num_drafts_total Number of spec decoding drafts.",
                "# TYPE vllm:spec_decode_num_drafts_total counter",
                f"vllm:spec_decode_num_drafts_total{{{lab}}} {float(c.drafts)}",
                f"vllm:spec_decode_num_drafts_created{{{lab}}} 1.7e9",
                "# TYPE vllm:spec_decode_num_draft_tokens_total counter",
                f"vllm:spec_decode_num_draft_tokens_total{{{lab}}} {float(c.draft_tokens)}",
                "# TYPE vllm:spec_decode_num_accepted_tokens_total counter",
                f"vllm:spec_decode_num_accepted_tokens_total{{{lab}}} {float(c.accepted)}",
                f"vllm:spec_decode_num_accepted_tokens_created{{{lab}}} 1.7e9",
                "# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter",
            ]
            if o.speculative_algorithm is not None:
                for pos in range(o.spec_k()):
                    lines.append(
                        f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{{lab},position="{pos}"}} '
                        f"{float(c.accepted_per_pos.get(pos, 0))}"
                    )
            lines += [
                "# TYPE vllm:generation_tokens_total counter",
                f"vllm:generation_tokens_total{{{lab}}} {float(c.generation_tokens)}",
                "",
            ]
            if o.speculative_algorithm is None:
                lines = [ln for ln in lines if "spec_decode" not in ln]
            return "\n".join(lines)
        return ""

    # --- generation ----------------------------------------------------------------------------
    def _count_step(self, tokens: int) -> None:
        c, o = self.counters, self.options
        c.generation_tokens += tokens
        if o.speculative_algorithm is None:
            return
        c.verify_calls += 1
        k = o.spec_k()
        c.drafts += 1
        c.draft_tokens += k
        acc = tokens - 1
        c.accepted += acc
        for pos in range(acc):
            c.accepted_per_pos[pos] = c.accepted_per_pos.get(pos, 0) + 1

    async def _generate(self, kind: str, req: dict[str, Any], writer: asyncio.StreamWriter, received: float) -> bool:
        o, c = self.options, self.counters
        c.requests += 1
        n = c.requests
        if kind == "generate":
            prompt = str(req.get("text", ""))
            params = req.get("sampling_params") or {}
            asked = params.get("max_new_tokens")
            stream = bool(req.get("stream"))
        else:
            if kind == "chat":
                prompt = " ".join(str(m.get("content", "")) for m in req.get("messages") or [])
            else:
                prompt = str(req.get("prompt", ""))
            asked = req.get("max_tokens") or req.get("max_completion_tokens")
            stream = bool(req.get("stream"))
        prompt_tokens = max(1, len(prompt.split()))
        c.prompt_tokens += prompt_tokens
        total = o.output_tokens
        if o.honour_max_tokens and isinstance(asked, int) and asked > 0:
            total = min(total, asked)
        if o.fail_every and n % o.fail_every == 0:
            return await self._send(writer, 500, {"error": {"message": "fake internal error", "code": 500}})
        sizes = o.chunks_for(total)
        want_usage = bool((req.get("stream_options") or {}).get("include_usage"))
        rid = f"req-{n}"

        if not stream:
            await asyncio.sleep(o.ttft_s + o.chunk_delay_s * max(len(sizes) - 1, 0))
            for s in sizes:
                self._count_step(s)
            text = _words(total, 0)
            usage = {"prompt_tokens": prompt_tokens, "completion_tokens": total, "total_tokens": prompt_tokens + total}
            if kind == "generate":
                meta = self._meta(rid, prompt_tokens, total, len(sizes), True)
                payload: dict[str, Any] = {"text": text, "meta_info": meta}
            elif kind == "chat":
                payload = {
                    "id": rid,
                    "object": "chat.completion",
                    "model": o.model,
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "length"}
                    ],
                    "usage": usage,
                }
            else:
                payload = {
                    "id": rid,
                    "object": "text_completion",
                    "model": o.model,
                    "choices": [{"index": 0, "text": text, "finish_reason": "length"}],
                    "usage": usage,
                }
            return await self._send(writer, 200, payload)

        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
            b"Transfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n"
        )

        def emit(obj: Any) -> None:
            raw = obj if isinstance(obj, bytes) else json.dumps(obj, separators=(",", ":")).encode()
            data = b"data: " + raw + b"\n\n"
            writer.write(b"%x\r\n%s\r\n" % (len(data), data))

        created = int(time.time())
        chat_prefix = (
            f'{{"id":"{rid}","object":"chat.completion.chunk","created":{created},'
            f'"model":{json.dumps(o.model)},"choices":[{{"index":0,"delta":{{"content":"'
        ).encode()
        if kind == "chat" and o.role_chunk:
            emit(
                {
                    "id": rid,
                    "object": "chat.completion.chunk",
                    "created": created,
                    "model": o.model,
                    "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}],
                }
            )
            await writer.drain()
        if o.ttft_s > 0:
            await asyncio.sleep(o.ttft_s)
        fault_at = len(sizes) // 2
        done_tokens = 0
        first_at = last_at = 0.0
        chunk_at: list[float] = []  # when each chunk was written: its gaps are the ITL the server made
        for i, size in enumerate(sizes):
            if i > 0 and o.chunk_delay_s > 0:
                await asyncio.sleep(o.chunk_delay_s)
            if i == fault_at and i > 0:
                if o.cut_every and n % o.cut_every == 0:
                    await writer.drain()
                    writer.transport.abort()
                    raise _Cut
                if o.stall_every and n % o.stall_every == 0:
                    await writer.drain()
                    await self._stop.wait()
                    raise _Cut
                if o.garbage_every and n % o.garbage_every == 0:
                    emit(b'{"choices": [{"delta": {"content": "x"')
                if o.truncate_every and n % o.truncate_every == 0:
                    writer.write(b"0\r\n\r\n")
                    await writer.drain()
                    return True
            self._count_step(size)
            last = i == len(sizes) - 1
            piece = _words(size, done_tokens)
            done_tokens += size
            last_at = time.perf_counter()
            chunk_at.append(last_at)
            if i == 0:
                first_at = last_at
            if kind == "generate":
                emit(
                    {
                        "text": _words(done_tokens, 0),
                        "output_ids": [],
                        "meta_info": self._meta(rid, prompt_tokens, done_tokens, i + 1, last),
                    }
                )
            elif kind == "chat" and not last:  # hot path: pre-rendered, so the server outpaces any client
                emit(chat_prefix + piece.encode() + b'"},"finish_reason":null}]}')
            elif kind == "chat":
                emit(
                    {
                        "id": rid,
                        "object": "chat.completion.chunk",
                        "created": created,
                        "model": o.model,
                        "choices": [
                            {"index": 0, "delta": {"content": piece}, "finish_reason": "length" if last else None}
                        ],
                    }
                )
            else:
                emit(
                    {
                        "id": rid,
                        "object": "text_completion",
                        "created": created,
                        "model": o.model,
                        "choices": [{"index": 0, "text": piece, "finish_reason": "length" if last else None}],
                    }
                )
            if o.chunk_delay_s > 0 or last or i % 16 == 15:
                await writer.drain()
        if kind != "generate" and want_usage:
            emit(
                {
                    "id": rid,
                    "object": "chat.completion.chunk" if kind == "chat" else "text_completion",
                    "created": created,
                    "model": o.model,
                    "choices": [],
                    "usage": {
                        "prompt_tokens": prompt_tokens,
                        "completion_tokens": total,
                        "total_tokens": prompt_tokens + total,
                    },
                }
            )
        emit(b"[DONE]")
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        self.timings.append(
            {
                "id": rid,
                "received": received,
                "first": first_at,
                "last": last_at,
                "chunk_at": chunk_at,
                "done": time.perf_counter(),
                "tokens": total,
                "chunks": len(sizes),
            }
        )
        return True

    def _meta(self, rid: str, prompt_tokens: int, completion: int, steps: int, last: bool) -> dict[str, Any]:
        o = self.options
        meta: dict[str, Any] = {
            "id": rid,
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion,
            "cached_tokens": 0,
            "finish_reason": {"type": "length", "length": completion} if last else None,
        }
        if last and o.speculative_algorithm is not None:
            meta["spec_verify_ct"] = steps
            meta["spec_accept_length"] = completion / steps
        if last:
            meta["e2e_latency"] = o.ttft_s + o.chunk_delay_s * (steps - 1)
        return meta


class FakeServer:
    """A FakeInferenceServer running on its own event loop in a daemon thread."""

    def __init__(self, options: FakeOptions, host: str = "127.0.0.1", port: int = 0) -> None:
        self.options = options
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self.server = FakeInferenceServer(options)
        self._thread = threading.Thread(target=self._run, args=(host, port), name="fake-inference", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("fake inference server did not start")
        if self._error is not None:
            raise RuntimeError(f"fake inference server failed: {self._error}")
        self.url = f"http://{host}:{self.server.port}"

    def _run(self, host: str, port: int) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self.server.start(host, port))
        except BaseException as exc:  # noqa: BLE001 - reported to the starting thread
            self._error = exc
            self._ready.set()
            return
        self._ready.set()
        self._loop.run_forever()
        self._loop.run_until_complete(self.server.close())
        self._loop.close()

    @property
    def counters(self) -> Counters:
        return self.server.counters

    @property
    def timings(self) -> list[dict[str, Any]]:
        """Per finished stream: received / first / last content write / done (perf_counter seconds)."""
        return list(self.server.timings)

    def call(self, fn: Callable[[], Any]) -> Any:
        """Run fn on the server's loop thread (consistent view of counters)."""
        fut = asyncio.run_coroutine_threadsafe(_as_coro(fn), self._loop)
        return fut.result(5)

    def stop(self) -> None:
        if self._loop.is_running():
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)


async def _as_coro(fn: Callable[[], Any]) -> Any:
    return fn()


def start_fake_server(engine: str = "sglang", *, host: str = "127.0.0.1", port: int = 0, **options: Any) -> FakeServer:
    return FakeServer(FakeOptions(engine=engine, **options), host=host, port=port)


@pytest.fixture
def fake_server() -> Iterator[Callable[..., FakeServer]]:
    """Factory: fake_server(engine="vllm", ttft_s=0.05, ...) -> FakeServer; all stopped at teardown."""
    started: list[FakeServer] = []

    def factory(engine: str = "sglang", **options: Any) -> FakeServer:
        server = start_fake_server(engine, **options)
        started.append(server)
        return server

    yield factory
    for server in started:
        server.stop()


SGLANG_ALIASES = {"NEXTN": "EAGLE"}
"""Algorithms SGLang resolves before it reports them (sglang 0.5.23 arg_groups/speculative_hook.py
``_resolve_speculative_algorithm_alias``: NEXTN becomes EAGLE); for an MTP target (DeepSeek-V3, GLM-4.5, ...) with no
draft given, ``_handle_eagle_family`` sets the draft path to the target's model path. Its server_info then says
EAGLE with the target as the draft."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m tests.fake_inference", description=__doc__.splitlines()[0])
    p.add_argument("--engine", choices=ENGINES, default="sglang")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--ttft-ms", type=float, default=50.0)
    p.add_argument("--chunk-delay-ms", type=float, default=20.0)
    p.add_argument("--tokens-per-chunk", type=int, default=4)
    p.add_argument("--accept-pattern", type=str, default="", help="comma-separated tokens per chunk, cycled")
    p.add_argument("--output-tokens", type=int, default=32)
    p.add_argument("--honour-max-tokens", action="store_true")
    p.add_argument("--no-spec", action="store_true", help="serve as a baseline without speculation")
    p.add_argument(
        "--algorithm",
        default="EAGLE3",
        help="the speculative algorithm as launched (EAGLE3, EAGLE, NEXTN, STANDALONE, NGRAM, ...); reported as "
        "SGLang reports it: NEXTN as EAGLE, with the target as the draft unless --draft-model is given",
    )
    p.add_argument("--num-steps", type=int, default=3)
    p.add_argument("--topk", type=int, default=1, help="the draft tree's width (1: a chain)")
    p.add_argument("--num-draft-tokens", type=int, default=0, help="a tree's token budget (default: num_steps + 1)")
    p.add_argument("--model", default="fake/target-model", help="the target model the server reports")
    p.add_argument(
        "--draft-model",
        default=None,
        help="the draft model the server reports (default fake/draft-eagle3; the target for NEXTN)",
    )
    for name in ("fail", "cut", "truncate", "stall", "garbage"):
        p.add_argument(f"--{name}-every", type=int, default=0)
    return p


def _options(args: argparse.Namespace) -> FakeOptions:
    algorithm = str(args.algorithm).strip().upper()
    resolved = SGLANG_ALIASES.get(algorithm, algorithm)
    draft = args.draft_model or (args.model if algorithm in SGLANG_ALIASES else "fake/draft-eagle3")
    return FakeOptions(
        engine=args.engine,
        ttft_s=args.ttft_ms / 1000,
        chunk_delay_s=args.chunk_delay_ms / 1000,
        tokens_per_chunk=args.tokens_per_chunk,
        accept_pattern=[int(x) for x in args.accept_pattern.split(",") if x.strip()] or None,
        output_tokens=args.output_tokens,
        honour_max_tokens=args.honour_max_tokens,
        speculative_algorithm=None if args.no_spec else resolved,
        num_steps=args.num_steps,
        topk=args.topk,
        num_draft_tokens=args.num_draft_tokens or args.num_steps + 1,
        model=args.model,
        draft_model=draft,
        fail_every=args.fail_every,
        cut_every=args.cut_every,
        truncate_every=args.truncate_every,
        stall_every=args.stall_every,
        garbage_every=args.garbage_every,
    )


def options_from_args(argv: list[str]) -> FakeOptions:
    """The options the command line ``argv`` serves with (as ``main`` reads them)."""
    return _options(_parser().parse_args(argv))


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    opts = _options(args)

    async def serve() -> None:
        server = FakeInferenceServer(opts)
        await server.start(args.host, args.port)
        print(f"fake {opts.engine} server listening on http://{args.host}:{server.port}", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        await server.close()

    asyncio.run(serve())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
