"""Hostile visitors on a shared dashboard: endpoint policy, caps, response bytes, the store, secrets, errors.

Loopback servers only: the fake SGLang/vLLM servers, a hostile HTTP server below (huge bodies, gzip
bombs, 50 MB SSE lines) and bare listening sockets that record whether anything connected.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import socket
import sqlite3
import subprocess
import sys
import threading
import tracemalloc
import zlib
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from streamlit.testing.v1 import AppTest

from comparelib import export, redact
from comparelib.errors import BenchError, InputError, StoreError
from comparelib.live.bench import run_benchmark
from comparelib.live.endpoints import (
    BenchLimits,
    EndpointPolicy,
    EndpointRefusedError,
    PolicyResolver,
    RunSlots,
    SessionBudget,
    SessionWatch,
)
from comparelib.live.store import SCHEMA_VERSION, Store, runs_to_frame
from comparelib.models import comparison
from tests.fixtures import page_app, run_cli

ROOT = Path(__file__).resolve().parent.parent
PAGES = ROOT / "pages"
PROMPTS = ["Say hello.", "Count to three."]
SENTINEL = "Sentinel9Secret"
PG_URL = os.environ.get("SPECDRAFT_TEST_PG_URL")
MiB = 1 << 20


def texts(at: AppTest) -> str:
    """Everything a visitor can read on the page."""
    parts: list[str] = []
    for kind in (
        "error",
        "warning",
        "info",
        "success",
        "caption",
        "markdown",
        "title",
        "subheader",
        "exception",
        "code",
        "text",
    ):
        for el in at.get(kind):
            parts.append(str(getattr(el, "value", "")) + str(getattr(el, "message", "")))
    return "\n".join(parts)


# ------------------------------------------------------------------ helpers: listeners and a hostile server


class Listener:
    """A bare listening socket: tells whether anything connected, never answers."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.setblocking(False)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"

    def connections(self) -> int:
        n = 0
        while True:
            try:
                conn, _ = self.sock.accept()
            except BlockingIOError:
                return n
            conn.close()
            n += 1

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    lst = Listener()
    yield lst
    lst.close()


Handler = Callable[[asyncio.StreamWriter], Awaitable[None]]


class HostileServer:
    """HTTP/1.1 on loopback whose answers are chosen per path; counts the bytes it managed to send."""

    def __init__(self, routes: dict[str, Handler]) -> None:
        self.routes = routes
        self.sent = 0
        self.requests: list[str] = []
        self._loop = asyncio.new_event_loop()
        ready = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(ready,), daemon=True)
        self._thread.start()
        assert ready.wait(10)
        self.url = f"http://127.0.0.1:{self.port}"

    def _run(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        ready.set()
        self._loop.run_forever()
        server.close()
        # End the open connections on their own loop. Left pending, a handler is finalized later by the
        # garbage collector after its loop is gone, and the "Event loop is closed" it raises there is
        # formatted (Python 3.11's traceback carets call ast.parse) inside whatever ast.parse the main
        # thread is running: CPython 3.11 then fails that parse with "AST constructor recursion depth mismatch".
        pending = asyncio.all_tasks(self._loop)
        for task in pending:
            task.cancel()
        self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        self._loop.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, target = lines[0].split(" ")[:2]
                length = 0
                for line in lines[1:]:
                    if line.lower().startswith("content-length:"):
                        length = int(line.split(":", 1)[1])
                if length:
                    await reader.readexactly(length)
                path = target.split("?", 1)[0]
                self.requests.append(f"{method} {path}")
                handler = self.routes.get(path)
                if handler is None:
                    writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                    await writer.drain()
                    continue
                await handler(writer)
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        finally:
            try:
                writer.close()
            except RuntimeError:  # the loop already closed: nothing left to close
                pass

    async def stream(self, writer: asyncio.StreamWriter, head: bytes, body: Iterator[bytes]) -> None:
        writer.write(head)
        for piece in body:
            writer.write(piece)
            self.sent += len(piece)
            await writer.drain()  # raises once the client has hung up

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)


def _repeat(piece: bytes, total: int) -> Iterator[bytes]:
    left = total
    while left > 0:
        yield piece[:left]
        left -= len(piece)


MODELS_OK = json.dumps({"object": "list", "data": [{"id": "m", "object": "model"}]}).encode()


def _json_head(length: int, extra: str = "") -> bytes:
    return f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n{extra}\r\n".encode()


_BOMB: dict[str, bytes] = {}


def gzip_bomb(size: int = 512 * MiB) -> bytes:
    """``size`` zero bytes, gzip-compressed (about 0.1% of that on the wire)."""
    if size not in _BOMB:
        comp = zlib.compressobj(1, zlib.DEFLATED, 31)
        block = bytes(MiB)
        _BOMB[size] = b"".join([*(comp.compress(block) for _ in range(size // MiB)), comp.flush()])
    return _BOMB[size]


@pytest.fixture
def hostile() -> Iterator[Callable[[dict[str, Handler]], HostileServer]]:
    started: list[HostileServer] = []

    def factory(routes: dict[str, Handler]) -> HostileServer:
        server = HostileServer(routes)
        started.append(server)
        return server

    yield factory
    for server in started:
        server.stop()


def peak_bytes(fn: Callable[[], Any]) -> tuple[Any, int]:
    """(result or exception, peak Python heap bytes while fn ran)."""
    tracemalloc.start()
    try:
        try:
            out: Any = fn()
        except Exception as exc:  # noqa: BLE001 - returned for the caller to assert on
            out = exc
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# ------------------------------------------------------------------ endpoint policy

POLICY_CASES = [
    # (SPECDRAFT_BENCH_ALLOW, host, port, allowed)
    (None, "203.0.113.9", 80, True),  # unset: a local single user, anything
    ("loopback", "127.0.0.1", 30000, True),
    ("loopback", "127.8.9.10", 1, True),
    ("loopback", "::1", 8000, True),
    ("loopback", "10.0.0.1", 30000, False),
    ("loopback", "169.254.169.254", 80, False),  # cloud metadata
    ("loopback", "0.0.0.0", 30000, False),
    ("loopback", "::ffff:10.0.0.1", 30000, False),  # v4-mapped v6 is checked as v4
    ("loopback", "::ffff:127.0.0.1", 30000, True),
    ("", "127.0.0.1", 30000, False),  # set but empty: nothing
    ("10.1.0.0/16:30000", "10.1.2.3", 30000, True),
    ("10.1.0.0/16:30000", "10.1.2.3", 30001, False),
    ("10.1.0.0/16:30000-30010", "10.1.2.3", 30010, True),
    ("10.1.0.0/16", "10.2.0.1", 30000, False),
    ("[::1]:8000", "::1", 8000, True),
    ("[::1]:8000", "::1", 8001, False),
    ("127.0.0.1:*", "127.0.0.1", 5, True),
    ("gpu-box.internal:30000", "gpu-box.internal", 30000, True),  # a listed name is trusted, not resolved
    ("gpu-box.internal:30000", "gpu-box.internal", 22, False),
    ("*.cluster.local", "a.b.cluster.local", 80, True),
    ("*.cluster.local", "cluster.local", 80, False),
    ("*", "198.51.100.7", 443, True),
]


@pytest.mark.parametrize(("spec", "host", "port", "allowed"), POLICY_CASES)
def test_policy_table(spec: str | None, host: str, port: int, allowed: bool) -> None:
    policy = EndpointPolicy.parse(spec)

    def no_dns(*_a: Any, **_k: Any) -> Any:
        raise OSError("no DNS in this test")

    if allowed:
        policy.check(host, port, resolve=no_dns)
    else:
        with pytest.raises(BenchError) as info:
            policy.check(host, port, resolve=no_dns)
        assert "SPECDRAFT_BENCH_ALLOW" in str(info.value) or "does not resolve" in str(info.value)


@pytest.mark.parametrize("spec", ["10.0.0.0/33", "host:0", "host:99999", "host:abc", "[::1", "bad host!", "a:1:2x"])
def test_bad_policy_is_a_clear_input_error(spec: str) -> None:
    with pytest.raises(InputError, match="SPECDRAFT_BENCH_ALLOW"):
        EndpointPolicy.parse(spec)


def _resolving_to(*addresses: str) -> Callable[..., Any]:
    def resolve(host: str, port: int, **_kw: Any) -> list[Any]:
        return [
            (socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in addresses
        ]

    return resolve


DNS_CASES = [
    # (policy, addresses the name resolves to, allowed)
    ("loopback", ["127.0.0.1"], True),
    ("loopback", ["10.0.0.7"], False),
    ("loopback", ["127.0.0.1", "10.0.0.7"], False),  # every address must be allowed (round-robin rebinding)
    ("10.0.0.0/8", ["10.0.0.7", "::ffff:10.0.0.8"], True),
    ("10.0.0.0/8", ["169.254.169.254"], False),
]


@pytest.mark.parametrize(("spec", "addresses", "allowed"), DNS_CASES)
def test_a_name_is_judged_by_every_address_it_resolves_to(spec: str, addresses: list[str], allowed: bool) -> None:
    policy = EndpointPolicy.parse(spec)
    if allowed:
        policy.check("inference.example", 30000, resolve=_resolving_to(*addresses))
    else:
        with pytest.raises(EndpointRefusedError, match="is not allowed on this server"):
            policy.check("inference.example", 30000, resolve=_resolving_to(*addresses))


def _not_resolving(*_a: Any, **_k: Any) -> Any:
    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")


def _bad_idna(*_a: Any, **_k: Any) -> Any:
    raise UnicodeError("label too long")


def test_a_name_that_does_not_resolve_reads_like_a_disallowed_one() -> None:
    """Issue 23 item 8: one message, so visitors cannot tell which internal names exist."""
    policy = EndpointPolicy.parse("loopback")
    seen = set()
    for resolve in (
        _not_resolving,
        _bad_idna,
        _resolving_to("10.0.0.1"),
        _resolving_to("169.254.169.254"),
        _resolving_to("127.0.0.1", "10.0.0.1"),
    ):
        with pytest.raises(EndpointRefusedError) as info:
            policy.check("internal-a", 30000, resolve=resolve)
        seen.add((type(info.value), str(info.value)))
    assert len(seen) == 1, seen


def test_plain_postgresql_url_uses_the_pinned_driver() -> None:
    """Issue 23 item 11: postgresql:// means psycopg2 (pinned), not psycopg 3 (not installed)."""
    with pytest.raises(StoreError) as info:
        Store(f"postgresql://u:{SENTINEL}@127.0.0.1:1/db")
    assert "No module named" not in str(info.value) and SENTINEL not in str(info.value)


def test_real_dns_name_to_a_forbidden_address_is_refused_before_connecting(monkeypatch, listener: Listener) -> None:
    # "localhost" really resolves (to loopback); a policy without loopback must refuse the name
    monkeypatch.setenv("SPECDRAFT_BENCH_ALLOW", "10.0.0.0/8")
    with pytest.raises(EndpointRefusedError, match="is not allowed on this server"):
        run_benchmark(f"http://localhost:{listener.port}", prompts=PROMPTS, requests=1, warmup=0)
    assert listener.connections() == 0


def test_resolver_rechecks_every_resolution_at_connect_time() -> None:
    """The client's own resolver refuses a forbidden answer, so a name that re-binds mid-run cannot connect."""

    async def resolve(spec: str) -> list[Any]:
        resolver = PolicyResolver(EndpointPolicy.parse(spec))
        try:
            return await resolver.resolve("localhost", 30000)
        finally:
            await resolver.close()

    assert all(r["host"].startswith("127.") or r["host"] == "::1" for r in asyncio.run(resolve("127.0.0.0/8,::1")))
    with pytest.raises(OSError, match="outside SPECDRAFT_BENCH_ALLOW"):
        asyncio.run(resolve("10.0.0.0/8"))


FORBIDDEN_ENTRY = [
    "10.0.0.0/8",  # another network
    "127.0.0.1:1-1000",  # the right host, another port range
    "",  # nothing allowed
]


@pytest.mark.parametrize("spec", FORBIDDEN_ENTRY)
def test_forbidden_endpoint_refused_before_any_connection(monkeypatch, listener: Listener, spec: str) -> None:
    monkeypatch.setenv("SPECDRAFT_BENCH_ALLOW", spec)
    with pytest.raises(EndpointRefusedError) as info:
        run_benchmark(listener.url, prompts=PROMPTS, requests=1, warmup=0, timeout_s=1.0)
    assert "not allowed" in str(info.value) and "SPECDRAFT_BENCH_ALLOW" in str(info.value)
    assert listener.connections() == 0  # refused before a single TCP connection


def test_allowed_endpoint_runs(monkeypatch, fake_server) -> None:
    server = fake_server("sglang", ttft_s=0.001, chunk_delay_s=0.001, output_tokens=8)
    monkeypatch.setenv("SPECDRAFT_BENCH_ALLOW", f"127.0.0.1:{server.url.rsplit(':', 1)[1]}")
    run = run_benchmark(server.url, prompts=PROMPTS, requests=4, warmup=0, concurrency=2)
    assert run.status == "finished" and run.summary.ok == 4


def test_redirect_to_a_forbidden_host_is_not_followed(monkeypatch, hostile, listener: Listener) -> None:
    async def redirect(writer: asyncio.StreamWriter) -> None:
        writer.write(
            f"HTTP/1.1 302 Found\r\nLocation: http://127.0.0.2:{listener.port}/v1/models\r\n"
            f"Content-Length: 0\r\n\r\n".encode()
        )
        await writer.drain()

    server = hostile({"/v1/models": redirect, "/health": redirect})
    monkeypatch.setenv("SPECDRAFT_BENCH_ALLOW", "127.0.0.1")
    with pytest.raises(BenchError):
        run_benchmark(server.url, prompts=PROMPTS, requests=1, warmup=0, timeout_s=1.0)
    assert listener.connections() == 0


def test_cli_refuses_a_forbidden_endpoint_with_one_line(listener: Listener) -> None:
    proc = run_cli(
        "bench",
        "--endpoint",
        listener.url,
        "--requests",
        "1",
        "--no-store",
        env={"SPECDRAFT_BENCH_ALLOW": "10.0.0.0/8"},
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("error:") and len(proc.stderr.strip().splitlines()) == 1
    assert "SPECDRAFT_BENCH_ALLOW" in proc.stderr and "Traceback" not in proc.stderr
    assert listener.connections() == 0


def test_page_refuses_a_forbidden_endpoint(monkeypatch, listener: Listener) -> None:
    monkeypatch.setenv("SPECDRAFT_BENCH_ALLOW", "10.0.0.0/8")
    at = page_app(str(PAGES / "bench.py"), timeout=60)
    at.session_state["bench_form_open"] = True  # "Run a benchmark" is built while open
    at.run()
    assert "SPECDRAFT_BENCH_ALLOW" in texts(at)  # the policy is named under the endpoint
    at.text_input(key="bench_endpoint").set_value(listener.url)
    at.number_input(key="bench_requests").set_value(1)
    at.button(key="bench_run").click().run()
    job = at.session_state["bench_job"]
    assert job.done.wait(60)
    at.run()
    assert not at.exception
    assert any("not allowed" in e.value for e in at.error)
    assert listener.connections() == 0


# ------------------------------------------------------------------ unreachable: one message, no port scanner


def test_closed_and_silent_ports_give_the_same_message(monkeypatch) -> None:
    """A closed port (refused) and a port that never answers (timed out) must read the same."""
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    closed_port = closed.getsockname()[1]
    closed.close()  # nothing listens there now
    silent = Listener()
    monkeypatch.setenv("SPECDRAFT_BENCH_ALLOW", "loopback")
    messages = []
    for port in (closed_port, silent.port):
        with pytest.raises(BenchError) as info:
            run_benchmark(f"http://127.0.0.1:{port}", prompts=PROMPTS, requests=1, warmup=0, timeout_s=0.3)
        messages.append(str(info.value).replace(str(port), "PORT"))
    silent.close()
    assert messages[0] == messages[1]
    assert "refused" not in messages[0].lower() and "errno" not in messages[0].lower()


def test_non_200_body_is_not_shown_under_a_policy(monkeypatch, hostile) -> None:
    body = f"internal secret page {SENTINEL} /srv/app/config.py".encode()

    async def models(writer: asyncio.StreamWriter) -> None:
        writer.write(_json_head(len(MODELS_OK)) + MODELS_OK)
        await writer.drain()

    async def fail(writer: asyncio.StreamWriter) -> None:
        writer.write(f"HTTP/1.1 503 Service Unavailable\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
        await writer.drain()

    server = hostile({"/v1/models": models, "/v1/chat/completions": fail})
    monkeypatch.setenv("SPECDRAFT_BENCH_ALLOW", "loopback")
    run = run_benchmark(server.url, prompts=PROMPTS, requests=2, warmup=0, engine="openai")
    assert [r.error for r in run.results] == ["HTTP 503", "HTTP 503"]
    assert run.summary.error_kinds == {"http_error": 2}


# ------------------------------------------------------------------ caps

CAP_CASES = [
    # (env, run kwargs, message)
    ({"SPECDRAFT_BENCH_MAX_CONCURRENCY": "4"}, {"concurrency": 5}, "SPECDRAFT_BENCH_MAX_CONCURRENCY"),
    ({"SPECDRAFT_BENCH_MAX_REQUESTS": "10"}, {"requests": 9, "warmup": 2}, "SPECDRAFT_BENCH_MAX_REQUESTS"),
    ({"SPECDRAFT_BENCH_MAX_REQUESTS": "abc"}, {}, "SPECDRAFT_BENCH_MAX_REQUESTS='abc' is not a number"),
    ({"SPECDRAFT_BENCH_MAX_SECONDS": "-1"}, {}, "must be positive"),
]


@pytest.mark.parametrize(("env", "kwargs", "message"), CAP_CASES)
def test_caps_refuse_before_any_connection(
    monkeypatch, listener: Listener, env: dict[str, str], kwargs: dict[str, Any], message: str
) -> None:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    with pytest.raises(InputError) as info:
        run_benchmark(listener.url, prompts=PROMPTS, **{"requests": 1, "warmup": 0, **kwargs})
    assert message in str(info.value)
    assert listener.connections() == 0


def test_run_time_cap_stops_the_run(monkeypatch, fake_server) -> None:
    server = fake_server("sglang", ttft_s=0.01, chunk_delay_s=0.02, output_tokens=16)
    monkeypatch.setenv("SPECDRAFT_BENCH_MAX_SECONDS", "0.5")
    run = run_benchmark(server.url, prompts=PROMPTS, requests=10_000, warmup=0, concurrency=2)
    assert run.status == "interrupted"
    assert 0 < len(run.results) < 10_000
    assert any("run-time cap" in n for n in run.summary.notes)


def test_session_budget_spans_runs(fake_server) -> None:
    server = fake_server("sglang", ttft_s=0.001, chunk_delay_s=0.001, output_tokens=4)
    budget = SessionBudget(requests_left=10)
    run_benchmark(server.url, prompts=PROMPTS, requests=6, warmup=1, budget=budget)
    assert budget.requests_left == 3
    with pytest.raises(InputError, match="SPECDRAFT_BENCH_SESSION_REQUESTS"):
        run_benchmark(server.url, prompts=PROMPTS, requests=4, warmup=0, budget=budget)
    spent = SessionBudget(seconds_left=0.0)
    with pytest.raises(InputError, match="SPECDRAFT_BENCH_SESSION_SECONDS"):
        run_benchmark(server.url, prompts=PROMPTS, requests=1, warmup=0, budget=spent)


def test_runs_at_once_are_capped(monkeypatch, listener: Listener) -> None:
    monkeypatch.setenv("SPECDRAFT_BENCH_MAX_RUNS", "1")
    RunSlots.acquire(None)  # a run in progress elsewhere in this process
    try:
        with pytest.raises(BenchError, match="SPECDRAFT_BENCH_MAX_RUNS"):
            run_benchmark(listener.url, prompts=PROMPTS, requests=1, warmup=0)
    finally:
        RunSlots.release()
    assert listener.connections() == 0


def test_a_run_ends_when_its_browser_session_ends(fake_server) -> None:
    server = fake_server("sglang", ttft_s=0.01, chunk_delay_s=0.01, output_tokens=8)
    connected = threading.Event()
    connected.set()
    seen: list[int] = []

    def progress(done: int, _total: int, _tok_s: float) -> None:
        seen.append(done)
        if done >= 5:
            connected.clear()  # the browser tab is closed here

    run = run_benchmark(
        server.url,
        prompts=PROMPTS,
        requests=10_000,
        warmup=0,
        concurrency=1,
        progress=progress,
        keep_running=SessionWatch(connected.is_set, grace_s=0.0),
    )
    assert run.status == "interrupted"
    assert 5 <= len(run.results) < 50
    assert any("browser session" in n for n in run.summary.notes)


def test_session_watch_forgives_a_short_reconnect() -> None:
    now = [0.0]
    active = [True]
    watch = SessionWatch(lambda: active[0], grace_s=10.0, clock=lambda: now[0])
    assert watch()
    active[0] = False
    now[0] = 5.0
    assert watch()  # gone for 0 s
    now[0] = 14.0
    assert watch()  # gone for 9 s: still within the grace
    active[0] = True
    assert watch()  # reconnected
    active[0] = False
    now[0] = 20.0
    assert watch()
    now[0] = 30.0
    assert not watch()  # gone for 10 s


# ------------------------------------------------------------------ response bytes


def _env_caps(monkeypatch, body: int | None = None, chunk: int | None = None) -> None:
    monkeypatch.setenv("SPECDRAFT_BENCH_ALLOW", "loopback")
    if body:
        monkeypatch.setenv("SPECDRAFT_BENCH_MAX_BODY_BYTES", str(body))
    if chunk:
        monkeypatch.setenv("SPECDRAFT_BENCH_MAX_CHUNK_BYTES", str(chunk))


BODY_CASES = [
    # (name, head, body iterator factory, size on the wire)
    ("1 GB /v1/models with Content-Length", lambda: _json_head(1 << 30), lambda: _repeat(b" " * MiB, 1 << 30)),
    (
        "1 GB /v1/models chunked, no length",
        lambda: b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
        lambda: (b"100000\r\n" + b" " * MiB + b"\r\n" for _ in range(1024)),
    ),
    (
        "512 MB gzip bomb",
        lambda: _json_head(len(gzip_bomb()), "Content-Encoding: gzip\r\n"),
        lambda: iter([gzip_bomb()]),
    ),
]


@pytest.mark.parametrize(("name", "head", "body"), BODY_CASES, ids=[c[0] for c in BODY_CASES])
def test_huge_models_body_refused_with_bounded_memory(monkeypatch, hostile, name: str, head: Any, body: Any) -> None:
    gzip_bomb()  # built before measuring
    holder: dict[str, HostileServer] = {}

    async def models(writer: asyncio.StreamWriter) -> None:
        await holder["s"].stream(writer, head(), body())

    holder["s"] = server = hostile({"/v1/models": models})
    _env_caps(monkeypatch, body=4 * MiB)
    out, peak = peak_bytes(
        lambda: run_benchmark(server.url, prompts=PROMPTS, requests=1, warmup=0, engine="openai", timeout_s=30.0)
    )
    assert isinstance(out, BenchError), out
    assert "larger than 4 MiB" in str(out) and "SPECDRAFT_BENCH_MAX_BODY_BYTES" in str(out)
    assert peak < 24 * MiB, f"{name}: peak {peak / MiB:.1f} MiB"  # the cap plus the parts list, not the body


def test_fifty_megabyte_sse_chunk_dropped_with_bounded_memory(monkeypatch, hostile) -> None:
    holder: dict[str, HostileServer] = {}

    async def models(writer: asyncio.StreamWriter) -> None:
        writer.write(_json_head(len(MODELS_OK)) + MODELS_OK)
        await writer.drain()

    async def chat(writer: asyncio.StreamWriter) -> None:
        head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
        line = iter([b'data: {"choices": [{"delta": {"content": "', *_repeat(b"x" * MiB, 50 * MiB)])
        await holder["s"].stream(writer, head, line)

    holder["s"] = server = hostile({"/v1/models": models, "/v1/chat/completions": chat})
    _env_caps(monkeypatch, chunk=2 * MiB)
    run, peak = peak_bytes(
        lambda: run_benchmark(
            server.url, prompts=PROMPTS, requests=2, warmup=0, engine="openai", concurrency=1, timeout_s=30.0
        )
    )
    assert not isinstance(run, Exception), run
    assert run.summary.error_kinds == {"too_large": 2}
    assert all("SPECDRAFT_BENCH_MAX_CHUNK_BYTES" in (r.error or "") for r in run.results)
    assert peak < 16 * MiB, f"peak {peak / MiB:.1f} MiB"
    assert server.sent < 2 * 20 * MiB  # the client hung up early, it did not drain 50 MB per request


# ------------------------------------------------------------------ the store


def _stores(tmp_path: Path) -> list[str]:
    urls = [f"sqlite:///{tmp_path / 'r.sqlite'}"]
    if PG_URL:
        urls.append(PG_URL)
    return urls


def Cfg() -> dict[str, Any]:  # reads like the ServerConfig it stands for
    return {"engine": "sglang", "speculative_algorithm": "EAGLE3", "num_steps": 3, "raw": RAW}


RAW = {
    "launch": f"python -m sglang.launch_server --api-key sk-{SENTINEL} --hf-token hf_{SENTINEL} "
    f"--max-total-tokens 8192",
    "note": "caf\udcff\udcfe",
    "nul": "a\x00b",
}


BAD_TEXT = [
    ("label", {"labels": ["fine", "bad\udcff\udcfe"]}),  # bytes 0xff 0xfe from argv (surrogateescape)
    ("label", {"labels": ["lone \ud800 surrogate"]}),
    ("group", {"group": "g\udcff"}),
    ("group", {"group": "nul\x00byte"}),
]


@pytest.mark.parametrize(("what", "kwargs"), BAD_TEXT)
def test_text_that_is_not_utf8_is_refused_with_a_clear_message(
    tmp_path: Path, what: str, kwargs: dict[str, Any]
) -> None:
    for url in _stores(tmp_path):
        store = Store(url)
        before = len(store.runs())
        with pytest.raises(StoreError, match=f"{what} .* is not valid UTF-8 text"):
            store.start_run(endpoint="http://127.0.0.1:1", server_config=Cfg(), **kwargs)
        assert len(store.runs()) == before  # nothing half-written
        store.close()


def test_other_text_is_cleaned_and_secrets_masked(tmp_path: Path) -> None:
    for url in _stores(tmp_path):
        store = Store(url)
        rid = store.start_run(
            endpoint=f"http://u:{SENTINEL}@127.0.0.1:1/?token={SENTINEL}&x=\udcff", server_config=Cfg(), labels=["ok"]
        )
        store.add_request(rid, {"index": 0, "ok": False, "error": f"bad \udcff Bearer {SENTINEL}"})
        rec = store.run(rid)
        assert rec.server_config["raw"]["note"] == "caf\ufffd\ufffd" and rec.server_config["raw"]["nul"] == "ab"
        assert (
            "--api-key ***" in rec.server_config["raw"]["launch"]
            and "--max-total-tokens 8192" in rec.server_config["raw"]["launch"]
        )
        assert store.requests(rid).loc[0, "error"] == "bad \ufffd Bearer ***"
        frame = runs_to_frame(store.runs())
        for fmt in export.FORMATS:
            rendered = export.render(frame, fmt)
            assert SENTINEL not in (rendered.decode() if isinstance(rendered, bytes) else rendered)
        with store.engine.connect() as conn:
            dump = json.dumps(
                [
                    [str(v) for v in row]
                    for t in ("runs", "requests")
                    for row in conn.execute(sa.text(f"SELECT * FROM {t}")).all()
                ]
            )
        assert SENTINEL not in dump
        store.close()


def test_secrets_typed_into_labels_are_masked_on_the_way_in(tmp_path: Path) -> None:
    """Issue 23 item 5: a label or group holding a credential reaches neither the DB nor any export."""
    for url in _stores(tmp_path):
        store = Store(url)
        rid = store.start_run(
            endpoint="http://127.0.0.1:1",
            server_config=Cfg(),
            labels=[f"--api-key sk-{SENTINEL}", f"HF_TOKEN=hf_{SENTINEL}", "eagle3 k=4"],
            group=f"token hf_{SENTINEL}",
        )
        rec = store.run(rid)
        assert rec.labels == ["--api-key ***", "HF_TOKEN=***", "eagle3 k=4"], rec.labels
        frame = runs_to_frame(store.runs())
        for fmt in export.FORMATS:
            rendered = export.render(frame, fmt)
            assert SENTINEL not in (rendered.decode() if isinstance(rendered, bytes) else rendered)
        with store.engine.connect() as conn:
            dump = json.dumps([[str(v) for v in row] for row in conn.execute(sa.text("SELECT * FROM runs")).all()])
        assert SENTINEL not in dump
        store.close()


BAD_LABELS = [
    ("escape", {"labels": ["a\x1b[31mred"]}, "control characters"),
    ("bidi", {"labels": ["a\u202eb"]}, "control characters"),
    ("newline", {"labels": ["a\nb"]}, "control characters"),
    ("group-escape", {"group": "g\x1b]0;x\x07"}, "control characters"),
    ("long", {"labels": ["x" * 101]}, "the limit is 100"),
    ("megabyte", {"labels": ["x" * (1 << 20)]}, "the limit is 100"),
    ("many", {"labels": [f"l{i}" for i in range(33)]}, "the limit is 32"),
]


@pytest.mark.parametrize(("name", "kwargs", "needle"), BAD_LABELS, ids=[c[0] for c in BAD_LABELS])
def test_labels_with_controls_or_over_the_length_cap_are_refused(
    tmp_path: Path, name: str, kwargs: dict[str, Any], needle: str
) -> None:
    """Issue 23 item 7: nothing that moves a terminal's cursor, and no 1 MB label in every visitor's CSV."""
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    with pytest.raises(StoreError, match=needle) as err:
        store.start_run(endpoint="http://127.0.0.1:1", server_config=Cfg(), **kwargs)
    assert str(err.value).isascii() and len(str(err.value)) < 300
    assert store.runs() == []
    store.close()


def test_cli_refuses_a_label_with_an_escape_sequence(tmp_path: Path) -> None:
    done = run_cli(
        "bench",
        "--endpoint",
        "http://127.0.0.1:1",
        "--label",
        "x\x1b[2J",
        env={"SPECDRAFT_DB": f"sqlite:///{tmp_path}/r.db"},
    )
    assert done.returncode == 2, done.stderr
    assert "\x1b" not in done.stderr and "Traceback" not in done.stderr
    assert len([ln for ln in done.stderr.splitlines() if ln.strip()]) == 1


def test_old_rows_with_raw_labels_are_shown_cleaned(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    Store(f"sqlite:///{path}").close()
    con = sqlite3.connect(path)
    labels = json.dumps(["a\x1b[31mred", "y" * (1 << 20), f"--api-key sk-{SENTINEL}"])
    con.execute(
        "INSERT INTO runs (created_at, endpoint, engine, kind, status, labels, server_config, params, summary, notes)"
        " VALUES ('2026-01-01 00:00:00', 'http://h', 'vllm', 'measured', 'finished', ?, '{}', '{}', '{}', '{}')",
        (labels,),
    )
    con.commit()
    con.close()
    done = run_cli("runs", "--format", "csv", env={"SPECDRAFT_DB": f"sqlite:///{path}"})
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and SENTINEL not in done.stdout
    assert len(done.stdout) < 10_000


def _plant_bad_rows(path: Path) -> None:
    """Rows another tool (or an older version) could have written: bytes that are not UTF-8, corrupt JSON."""
    Store(f"sqlite:///{path}").close()
    con = sqlite3.connect(path)
    con.execute(
        "INSERT INTO runs (created_at, endpoint, engine, kind, run_group, status, labels, server_config, params, "
        "summary, notes, output_tokens_per_s, num_steps) VALUES "
        "('not a date', CAST(X'68747470FFFE' AS TEXT), 'sglang', 'measured', CAST(X'67FFFE' AS TEXT), 'finished', "
        "'[\"\\udcff\\udcfe\"]', '{broken json', 'null', '[1,2]', '\"str\"', 'fast', 'three')"
    )
    con.execute(
        "INSERT INTO runs (created_at, endpoint, engine, kind, status, labels, server_config, params, summary, notes)"
        " VALUES ('2026-01-01 00:00:00', 'http://h', 'vllm', 'measured', 'finished', '\"one label\"', '{}', '{}', "
        "'{}', '{}')"
    )
    rid = con.execute("SELECT max(id) FROM runs").fetchone()[0]
    con.execute(
        "INSERT INTO requests (run_id, idx, ok, error, chunk_gaps_s) VALUES (?, 0, 0, CAST(X'FFFE' AS TEXT),"
        " '[0.1, \"x\"')",
        (rid,),
    )
    con.execute(
        "INSERT INTO data_volumes (draft, samples, source, kind, created_at) VALUES "
        "(CAST(X'64FFFE' AS TEXT), 5, 's', 'measured', 'never')"
    )
    con.commit()
    con.close()


def test_bad_rows_never_break_runs_the_cli_or_the_bench_page(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "bad.sqlite"
    _plant_bad_rows(path)
    store = Store(f"sqlite:///{path}")
    recs = store.runs()
    assert len(recs) == 2
    assert recs[0].labels == ["\ufffd\ufffd"] and recs[0].server_config == {} and recs[0].output_tokens_per_s is None
    assert recs[0].num_steps is None and recs[0].created_at is None and recs[0].group == "g\ufffd\ufffd"
    assert recs[1].labels == ["one label"]
    assert store.requests(recs[1].id).loc[0, "error"] == "\ufffd\ufffd"
    assert store.data_volumes()[0]["draft"] == "d\ufffd\ufffd"
    store.close()
    proc = run_cli("runs", "--db", f"sqlite:///{path}")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    monkeypatch.setenv("SPECDRAFT_DB", f"sqlite:///{path}")
    at = page_app(str(PAGES / "bench.py"), timeout=60).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    table = next(df.value for df in at.dataframe if "output_tokens_per_s" in df.value.columns)
    assert len(table) >= 2


@pytest.mark.skipif(not PG_URL, reason="SPECDRAFT_TEST_PG_URL is not set")
def test_bad_json_text_on_postgresql_reads_back_clean() -> None:
    store = Store(PG_URL)
    rid = store.start_run(endpoint="http://h", server_config=Cfg(), labels=["pg"], group="pg-bad-rows")
    with store.engine.begin() as conn:  # a lone surrogate escape written straight into the JSON column
        conn.execute(
            sa.text("UPDATE runs SET labels = CAST(:v AS json) WHERE id = :id"),
            {"v": '["\\\\udcff", "ok"]', "id": rid},
        )
    rec = store.run(rid)
    assert rec.labels[1] == "ok" and "\udcff" not in rec.labels[0]
    store.delete_run(rid)
    store.close()


# ------------------------------------------------------------------ attached volumes vs published

AQ = "AQ-MedAI/Kimi-K2-Instruct-eagle3"


def test_attached_volume_never_replaces_a_published_figure(tmp_path: Path) -> None:
    for url in _stores(tmp_path):
        store = Store(url)
        store.save_data_volume(draft=AQ, samples=5, source="team audit", attached_by="alice")
        store.save_data_volume(draft=AQ, samples=1, tokens=2, source="visitor upload", attached_by="mallory")
        vols = store.data_volumes()
        mine = [v for v in vols if v["draft"] == AQ][-1]
        assert mine["attached_by"] == "mallory" and mine["created_at"] is not None
        entry = comparison.load_entry(f"registry:{AQ}")
        df = comparison.table([entry], comparison.volumes_by_draft(vols))
        assert df["train_samples"].iloc[0] == 1_400_000 and df["train_source"].iloc[0] == "published"
        attached = df["attached_volume"].iloc[0]
        assert "1 samples" in attached and "by mallory" in attached  # kept per source, beside the published one
        assert "5 samples" in attached and "team audit, by alice" in attached
        store.close()


def test_old_database_is_migrated_in_place(tmp_path: Path) -> None:
    path = tmp_path / "v1.sqlite"
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE schema_version (id INTEGER PRIMARY KEY, version INTEGER NOT NULL);
        INSERT INTO schema_version VALUES (1, 1);
        CREATE TABLE data_volumes (id INTEGER PRIMARY KEY AUTOINCREMENT, draft TEXT NOT NULL,
            samples BIGINT NOT NULL, tokens BIGINT, source TEXT NOT NULL, kind VARCHAR(16) NOT NULL,
            example_key VARCHAR(100) UNIQUE, created_at DATETIME NOT NULL);
        INSERT INTO data_volumes (draft, samples, source, kind, created_at)
            VALUES ('old', 7, 'audit', 'measured', '2025-01-01 00:00:00');
    """)
    con.close()
    store = Store(f"sqlite:///{path}")
    assert store.schema_version() == SCHEMA_VERSION
    store.save_data_volume(draft="new", samples=3, attached_by="alice")
    assert [(v["draft"], v["attached_by"]) for v in store.data_volumes()] == [("old", None), ("new", "alice")]


# ------------------------------------------------------------------ secrets in what is shown

DB_URL_FORMS = [
    "postgresql+psycopg2://alice:{s}@127.0.0.1:1/db",
    "postgresql+psycopg2://alice@127.0.0.1:1/db?password={s}",
    "postgresql+psycopg2://alice@127.0.0.1:1/db?sslmode=disable&password={s}&sslpassword={s}",
    "host=127.0.0.1 port=1 user=alice password={s} dbname=db",
    "host=127.0.0.1 port=1 user=alice password='{s} x' dbname=db",
]


@pytest.mark.parametrize("form", DB_URL_FORMS)
def test_database_url_masked_in_every_form(form: str) -> None:
    url = form.format(s=SENTINEL)
    assert SENTINEL not in redact.database_url(url)
    with pytest.raises(StoreError) as info:
        Store(url)
    assert SENTINEL not in str(info.value)


@pytest.mark.parametrize("form", DB_URL_FORMS)
def test_bench_page_never_shows_a_database_password(monkeypatch, form: str) -> None:
    monkeypatch.setenv("SPECDRAFT_DB", form.format(s=SENTINEL))
    at = page_app(str(PAGES / "bench.py"), timeout=60).run()
    assert not at.exception
    assert at.error  # nothing listens there
    assert SENTINEL not in texts(at)


SHOWN_URLS = [
    "sqlite:///{tmp}/r.sqlite?password={s}",
    *([PG_URL.replace("://postgres@", "://postgres:{s}@")] if PG_URL and "://postgres@" in PG_URL else []),
    *([PG_URL + "?password={s}"] if PG_URL and "?" not in PG_URL else []),
]


@pytest.mark.parametrize("form", SHOWN_URLS)
def test_bench_caption_masks_the_password_of_a_working_database(monkeypatch, tmp_path: Path, form: str) -> None:
    monkeypatch.setenv("SPECDRAFT_DB", form.format(tmp=tmp_path, s=SENTINEL))
    at = page_app(str(PAGES / "bench.py"), timeout=60).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    caption = next(c.value for c in at.caption if "Results database" in c.value)
    assert SENTINEL not in texts(at) and "***" in caption


TEXT_SECRETS = [
    (f"python -m sglang.launch_server --api-key {SENTINEL} --port 30000", "--api-key ***"),
    (f"vllm serve m --hf-token={SENTINEL} --max-num-seqs 8", "--hf-token=***"),
    (f"HF_TOKEN=hf_{SENTINEL} python x.py", "HF_TOKEN=***"),
    (f"curl -H 'Authorization: Bearer {SENTINEL}' http://h", "Bearer ***"),
    (f"https://h/v1?api_key={SENTINEL}&x=1", "api_key=***&x=1"),
    (f"https://bob:{SENTINEL}@h/x", "bob:***@h"),
    (f"model sk-{SENTINEL}x and ghp_{SENTINEL}", "model *** and ***"),
]


@pytest.mark.parametrize(("text", "expected"), TEXT_SECRETS)
def test_secrets_inside_longer_values_are_masked(text: str, expected: str) -> None:
    out = redact.mask_text(text)
    assert SENTINEL not in out and expected in out


def test_one_redaction_module() -> None:
    """Every module that shows or stores credentials uses comparelib/redact.py, with one placeholder."""
    offenders = []
    for path in [*ROOT.glob("comparelib/**/*.py"), *ROOT.glob("pages/*.py"), ROOT / "app.py"]:
        if path.name == "redact.py":
            continue
        text = path.read_text(encoding="utf-8")
        for needle in ('"[redacted]"', '"<HF_TOKEN>"', 'r"\\1***@"', "hide_password=True"):
            if needle in text:
                offenders.append(f"{path.relative_to(ROOT)}: {needle}")
    assert offenders == []


# ------------------------------------------------------------------ the error boundary


def _boundary_app(kind: str) -> None:
    import app
    from comparelib.errors import DataError

    def body() -> None:
        if kind == "compare":
            raise DataError("row 3 is not JSON; fix the file")
        raise RuntimeError(f"/srv/specdraft/secret/path.py exploded at postgresql://u:{SENTINEL}@db/x")

    app.page_boundary(body)


@pytest.mark.parametrize(
    ("kind", "shown"), [("compare", "row 3 is not JSON; fix the file"), ("other", "Something went wrong on this page")]
)
def test_error_boundary_shows_no_traceback(kind: str, shown: str, caplog: pytest.LogCaptureFixture) -> None:
    at = AppTest.from_function(_boundary_app, args=(kind,), default_timeout=30)
    with caplog.at_level("ERROR", logger="specdraft.app"):
        at.run()
    assert not at.exception
    assert len(at.error) == 1 and at.error[0].value.startswith(shown)
    assert "/srv/specdraft" not in texts(at) and "Traceback" not in texts(at)
    if kind == "other":  # the server log keeps the traceback, with the password masked
        assert "Traceback" in caplog.text and "RuntimeError" in caplog.text and "/srv/specdraft" in caplog.text
        assert SENTINEL not in caplog.text and "u:***@db" in caplog.text


def test_streamlit_config_hides_error_details_and_external_ip_lookup() -> None:
    import tomllib

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["client"]["showErrorDetails"] == "none"
    assert config["browser"]["serverAddress"]  # set: bootstrap prints it instead of asking checkip.amazonaws.com
    assert config["browser"]["gatherUsageStats"] is False


def test_app_icon_is_bundled() -> None:
    import app

    assert app.ICON.is_file() and app.ICON.read_bytes().startswith(b"\x89PNG")
    assert ":material/" not in (ROOT / "app.py").read_text(encoding="utf-8").split("page_icon=")[1].split(",")[0]


# ------------------------------------------------------------------ sign-in gate

AUTH = {
    "redirect_uri": "http://localhost:8501/oauth2callback",
    "cookie_secret": "c" * 32,
    "client_id": "id",
    "client_secret": "secret",
    "server_metadata_url": "http://127.0.0.1:1/.well-known/openid-configuration",
}


def _app() -> AppTest:
    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)


def test_sign_in_gate_shows_only_a_login_button(monkeypatch) -> None:
    monkeypatch.setenv("SPECDRAFT_REQUIRE_LOGIN", "1")
    at = _app()
    at.secrets["auth"] = AUTH
    at.user = {"is_logged_in": False}
    at.run()
    assert not at.exception
    assert [b.label for b in at.button] == ["Log in"]
    assert not at.dataframe and "Overview" not in [t.value for t in at.title]
    at.user = {"is_logged_in": True, "email": "alice@example.com"}
    at.run()
    assert not at.exception and "Log out" in [b.label for b in at.button]
    assert "Signed in as alice@example.com" in texts(at)


def test_sign_in_required_but_not_configured_fails_closed(monkeypatch) -> None:
    monkeypatch.setenv("SPECDRAFT_REQUIRE_LOGIN", "1")
    at = _app().run()
    assert not at.exception and not at.button
    assert "[auth]" in at.error[0].value


def test_no_gate_by_default() -> None:
    at = _app().run()
    assert not at.exception and not [b for b in at.button if b.label.startswith("Log in")]


def test_gzip_helper_really_is_a_bomb() -> None:
    bomb = gzip_bomb(64 * MiB)
    assert len(bomb) < MiB and len(gzip.decompress(bomb)) == 64 * MiB


def test_limits_come_from_settings(monkeypatch) -> None:
    monkeypatch.setenv("SPECDRAFT_BENCH_MAX_CHUNK_BYTES", "1234")
    limits = BenchLimits.from_settings()
    assert limits.max_chunk_bytes == 1234 and limits.max_body_bytes == 16 * MiB
    assert limits.max_concurrency is None  # unset: no cap for a local single user


def test_chart_export_fetches_nothing_remote(listener: Listener) -> None:
    import altair as alt

    from comparelib import charts

    chart = alt.Chart(alt.Data(url=f"{listener.url}/data.json")).mark_point().encode(x="a:Q")
    with pytest.raises(Exception, match="not allowed"):
        charts.chart_to_svg(chart)
    assert listener.connections() == 0


def test_cli_label_with_bytes_ff_fe_is_refused_in_one_line(listener: Listener, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'r.sqlite'}"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "comparelib",
            "bench",
            "--endpoint",
            listener.url,
            "--requests",
            "1",
            "--warmup",
            "0",
            "--db",
            db,
            "--label",
            b"ok\xff\xfe",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("error:") and len(proc.stderr.strip().splitlines()) == 1
    assert "is not valid UTF-8 text" in proc.stderr
    assert listener.connections() == 0  # refused before any connection
    assert run_cli("runs", "--db", db).returncode == 0


def test_runs_cli_masks_the_database_password(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'r.sqlite'}?password={SENTINEL}"
    proc = run_cli("runs", "--db", db)
    assert proc.returncode == 0, proc.stderr
    assert SENTINEL not in proc.stdout + proc.stderr and "password=***" in proc.stdout


# ------------------------------------------------------------------ the real app: closing the tab ends the run


def _wait_for(condition: Callable[[], bool], timeout_s: float) -> bool:
    """Poll a condition owned by another process (the app's database), with a deadline."""
    import time

    tick = threading.Event()
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if condition():
            return True
        tick.wait(0.2)
    return condition()


@pytest.mark.browser
def test_closing_the_browser_tab_ends_its_run(fake_server, tmp_path: Path) -> None:
    from tests.streamlit_server import CHROMIUM_ARGS, chromium_path, running_app, wait_for_script

    playwright_api = pytest.importorskip("playwright.sync_api")
    if not chromium_path():
        pytest.skip("Debian's chromium is not installed (tests/run.sh installs it)")
    server = fake_server("sglang", ttft_s=0.01, chunk_delay_s=0.01, output_tokens=8)
    home = tmp_path / "home"
    env = {"SPECDRAFT_HOME": str(home), "HF_HOME": str(tmp_path / "hf"), "SPECDRAFT_BENCH_ALLOW": "loopback"}
    with running_app(env) as url, playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
        page = browser.new_page()
        page.goto(f"{url}/bench")
        wait_for_script(page)
        page.get_by_text("Run a benchmark").first.click()
        page.get_by_label("Endpoint URL").fill(server.url)
        page.get_by_label("Requests", exact=True).fill("100000")
        page.get_by_label("Requests", exact=True).press("Enter")
        wait_for_script(page)
        page.get_by_role("button", name="Run benchmark").click()
        page.get_by_text("requests done").first.wait_for(timeout=60_000)
        browser.close()  # the visitor closes the tab; nobody presses Stop

        store = Store(f"sqlite:///{home / 'results.sqlite'}")

        def interrupted() -> bool:
            return any(r.kind == "measured" and r.status == "interrupted" for r in store.runs())

        assert _wait_for(interrupted, 90), [(r.id, r.status) for r in store.runs()]
        run = next(r for r in store.runs() if r.kind == "measured")
        assert 0 < run.requests < 100_000
        assert any("browser session" in n for n in run.summary.get("notes", []))
        store.close()


def test_anonymous_upload_flood_leaves_server_memory_flat(tmp_path: Path) -> None:
    """Issue 23 item 3: with sign-in required, six 100 MB uploads from a visitor who never signed in are
    refused before any body byte (400) and the real server's RSS stays within 50 MB; a signed-in session
    on the same server still uploads (proves the test reaches the real upload path)."""
    import aiohttp

    from tests.streamlit_client import open_session, put_upload, rss_mb, signed_cookie
    from tests.streamlit_server import running_server

    secrets = tmp_path / "secrets.toml"
    secrets.write_text("[auth]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in AUTH.items()), encoding="utf-8")
    env = {"SPECDRAFT_REQUIRE_LOGIN": "1", "SPECDRAFT_HOME": str(tmp_path / "home")}

    async def flood(url: str, pid: int) -> tuple[list[Any], float, Any]:
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            session, xsrf = await open_session(http, url)
            before = rss_mb(pid)
            body = b"x" * (100 << 20)
            codes = [await put_upload(http, url, session, xsrf, body) for _ in range(6)]
            del body
            await asyncio.sleep(1.0)
            growth = rss_mb(pid) - before
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            http.cookie_jar.update_cookies(
                {"_streamlit_user": signed_cookie(AUTH["cookie_secret"], url, "alice@example.com")},
                response_url=aiohttp.client.URL(url),
            )
            session, xsrf = await open_session(http, url)
            signed = await put_upload(http, url, session, xsrf, b"y" * (1 << 20))
        return codes, growth, signed

    with running_server(env, [f"--secrets.files={secrets}"]) as (url, pid):
        codes, growth, signed = asyncio.run(flood(url, pid))
    assert all(code != 204 for code in codes), codes
    assert growth < 50, f"server RSS grew {growth:.0f} MB"
    assert signed == 204, signed


def test_upload_gate_drops_files_of_sessions_not_signed_in(monkeypatch) -> None:
    import uploadgate

    class Manager:
        def __init__(self) -> None:
            self.files: list[tuple[str, str]] = []

        def add_file(self, session_id: str, file: str) -> None:
            self.files.append((session_id, file))

    class Runtime:
        def __init__(self) -> None:
            self.uploaded_file_mgr = Manager()

        def is_active_session(self, session_id: str) -> bool:
            return True

    runtime = Runtime()
    uploadgate.gate(runtime)
    monkeypatch.setenv("SPECDRAFT_REQUIRE_LOGIN", "1")
    monkeypatch.setattr(uploadgate, "_SIGNED", {"alice"})
    assert runtime.is_active_session("alice") and not runtime.is_active_session("anon")
    runtime.uploaded_file_mgr.add_file("anon", "a")
    runtime.uploaded_file_mgr.add_file("alice", "b")
    assert runtime.uploaded_file_mgr.files == [("alice", "b")]
    monkeypatch.setenv("SPECDRAFT_REQUIRE_LOGIN", "0")
    assert runtime.is_active_session("anon")


def test_a_kept_upload_goes_when_no_session_holds_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Uploads are kept once per content: a file is deleted when its last holder replaces it or its session ends."""
    import uploadgate
    from comparelib import paths

    monkeypatch.setenv("SPECDRAFT_DATA_ROOT", str(tmp_path))
    monkeypatch.setattr(uploadgate, "_HELD", {})
    log = str(paths.keep_upload(b"step 1: {}\n", "train.log"))
    other = str(paths.keep_upload(b"step 2: {}\n", "train.log"))
    sessions = iter(["alice", "bob", "alice"])
    monkeypatch.setattr(uploadgate, "_session_id", lambda: next(sessions))
    uploadgate.hold(log, None)  # alice
    uploadgate.hold(log, None)  # bob, same bytes: same file
    uploadgate.hold(other, log)  # alice replaces hers: bob still holds the file
    assert Path(log).exists() and Path(other).exists()
    connected = {"alice"}
    assert uploadgate.release_gone(lambda sid: sid in connected) == [log]  # bob's tab closed
    assert not Path(log).exists() and Path(other).exists()
    connected.clear()
    assert uploadgate.release_gone(lambda sid: sid in connected) == [other]
    assert not Path(other).exists() and uploadgate._HELD == {}


# ------------------------------------------------------------------ the Hub: one cache and one operator token for all


def _all_drafts(at: AppTest) -> list[str]:
    return [str(v) for d in at.dataframe if "draft" in getattr(d.value, "columns", []) for v in d.value["draft"]]


def test_a_gated_config_cached_by_one_session_is_not_served_to_another_while_the_hub_is_down(
    hub, monkeypatch, tmp_path: Path
) -> None:
    from tests.fixtures import aq_config, aq_tensors

    monkeypatch.setenv("SPECDRAFT_DATA_ROOT", str(tmp_path))  # a shared server
    sha = hub.add_model("walk/gated-g", aq_config(), tensors=aq_tensors(), gated=True)
    shown = f"walk/gated-g@{sha[:7]}"
    first = page_app(str(PAGES / "compare.py"), timeout=120)  # session A, with a token that was granted access
    first.query_params["m"] = ["walk/gated-g"]
    first.run()
    first.sidebar.text_input(key="hub_token").set_value(hub.token).run()
    assert shown in _all_drafts(first), [e.value for e in first.error]
    hub.stop()  # the Hub is unreachable now; the config sits in the shared HF_HOME cache

    later = page_app(str(PAGES / "compare.py"), timeout=120)  # a new session without a token
    later.query_params["m"] = ["walk/gated-g"]
    later.run()
    assert not later.exception
    assert shown not in _all_drafts(later) and sha[:7] not in texts(later)
    assert any("serves from its cache only repos it read without a token" in e.value for e in later.error)

    home = page_app(str(PAGES / "overview.py"), timeout=120)  # /?draft=walk/gated-g
    home.query_params["draft"] = "walk/gated-g"
    home.run()
    assert not home.exception and sha[:7] not in texts(home)
    assert any("serves from its cache only repos it read without a token" in e.value for e in home.error)

    again = page_app(str(PAGES / "compare.py"), timeout=120)  # the token that read it still opens it offline
    again.query_params["m"] = ["walk/gated-g"]
    again.run()
    again.sidebar.text_input(key="hub_token").set_value(hub.token).run()
    assert shown in _all_drafts(again), [e.value for e in again.error]


@pytest.mark.parametrize("typed", ["two words", "hf_" + "x" * 600], ids=["space", "600-chars"])
def test_a_malformed_session_token_is_said_once_and_rows_needing_none_still_work(typed: str) -> None:
    at = page_app(str(PAGES / "compare.py"), timeout=120)
    at.query_params["m"] = [f"registry:{AQ}"]
    at.run()
    at.sidebar.text_input(key="hub_token").set_value(typed).run()
    assert not at.exception
    assert [e.value for e in at.sidebar.error if "Hub token not used" in e.value]
    assert not [e.value for e in at.main.error if "access token" in e.value]  # no row failed for it
    assert AQ in _all_drafts(at)
    assert typed not in texts(at)


def test_a_compare_link_reads_at_most_twelve_drafts(hub) -> None:
    """400 m= entries once meant 1,600 Hub requests with the operator's token; a link is anybody's input."""
    at = page_app(str(PAGES / "compare.py"), timeout=120)
    at.query_params["m"] = [f"registry:{AQ}", *(f"walk/d{i}" for i in range(40))]
    at.run()
    assert not at.exception
    asked = {r.path.split("/")[4] if r.path.startswith("/api/") else r.path.split("/")[2] for r in hub.requests}
    assert len(asked) == 12  # 40 before the cap
    assert any(
        "40 drafts to read from the Hub or folders; one comparison reads at most 12" in e.value for e in at.error
    )
    assert AQ in _all_drafts(at)  # built-in drafts are not counted: all of them still compare at once


def test_page_caches_keyed_by_visitor_input_are_bounded() -> None:
    """Every st.cache_data function in app.py and the pages that takes arguments names max_entries."""
    import ast

    for path in (ROOT / "app.py", *sorted(PAGES.glob("*.py"))):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.FunctionDef) or not node.args.args:
                continue
            for deco in node.decorator_list:
                if isinstance(deco, ast.Call) and ast.unparse(deco.func) == "st.cache_data":
                    assert "max_entries" in {k.arg for k in deco.keywords}, f"{path.name}: {node.name}"
