"""Which servers a live benchmark may talk to, and how much it may send: the shared-dashboard policy.

``SPECDRAFT_BENCH_ALLOW`` is a comma list of entries, each optionally with ``:PORT``, ``:LOW-HIGH``
or ``:*`` (any port):

- ``loopback`` (127.0.0.0/8 and ::1), ``*`` (anything), an IP, a CIDR (``10.1.0.0/16``),
  ``[v6]:port`` for an IPv6 address with a port;
- a host name (``gpu-box.internal``) or a suffix wildcard (``*.cluster.local``): the name is trusted
  as the operator wrote it, whatever it resolves to.

Unset means no policy (a local single user: any endpoint). With a policy, a name that is not listed
is resolved and *every* address it resolves to must be allowed, both before the run (so a refusal
comes before any connection) and again each time the client resolves it (``PolicyResolver``), so a
name that re-binds to a forbidden address mid-run is refused too. Redirects are never followed.

Caps (unset = none): ``SPECDRAFT_BENCH_MAX_CONCURRENCY``, ``SPECDRAFT_BENCH_MAX_REQUESTS`` (per run,
warm-up included), ``SPECDRAFT_BENCH_MAX_SECONDS`` (per run), ``SPECDRAFT_BENCH_SESSION_REQUESTS`` and
``SPECDRAFT_BENCH_SESSION_SECONDS`` (per browser session), ``SPECDRAFT_BENCH_MAX_RUNS`` (runs at once
in one server process). Response byte caps always apply (defaults below).
"""

from __future__ import annotations

import ipaddress
import re
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from comparelib import limits, settings
from comparelib.errors import BenchError, InputError

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))
_HOSTNAME = re.compile(r"^(\*\.)?[a-z0-9_]([a-z0-9_\-]{0,62})(\.[a-z0-9_]([a-z0-9_\-]{0,62}))*\.?$")
ALLOW_VAR = "SPECDRAFT_BENCH_ALLOW"


class EndpointRefusedError(BenchError):
    """The endpoint is outside SPECDRAFT_BENCH_ALLOW; nothing was sent to it."""


@dataclass(frozen=True)
class _Rule:
    networks: tuple[IPNetwork, ...] = ()
    name: str | None = None  # exact host name, or ".suffix" for *.suffix
    ports: tuple[tuple[int, int], ...] | None = None  # None: any port

    def port_ok(self, port: int) -> bool:
        return self.ports is None or any(lo <= port <= hi for lo, hi in self.ports)

    def name_ok(self, host: str) -> bool:
        if self.name is None:
            return False
        if self.name.startswith("."):
            return host.endswith(self.name) and len(host) > len(self.name)
        return host == self.name

    def address_ok(self, address: IPAddress) -> bool:
        return any(address in net for net in self.networks if net.version == address.version)


def _ports(text: str, entry: str) -> tuple[tuple[int, int], ...] | None:
    text = text.strip()
    if text in ("", "*"):
        return None
    lo_text, _, hi_text = text.partition("-")
    try:
        lo, hi = int(lo_text), int(hi_text or lo_text)
    except ValueError:
        raise InputError(
            f"{ALLOW_VAR}: bad port {text!r} in {entry!r}; use host:8000, host:8000-8100 or host:*"
        ) from None
    if not 1 <= lo <= hi <= 65535:
        raise InputError(f"{ALLOW_VAR}: port range {text!r} in {entry!r} is outside 1-65535")
    return ((lo, hi),)


def _address(text: str) -> IPAddress:
    address = ipaddress.ip_address(text.split("%", 1)[0])
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _rule(entry: str) -> _Rule:
    text = entry.strip()
    ports: tuple[tuple[int, int], ...] | None = None
    if text.startswith("["):
        host, sep, rest = text[1:].partition("]")
        if not sep:
            raise InputError(f"{ALLOW_VAR}: unclosed '[' in {entry!r}")
        if rest:
            if not rest.startswith(":"):
                raise InputError(f"{ALLOW_VAR}: expected :PORT after ']' in {entry!r}")
            ports = _ports(rest[1:], entry)
    elif text.count(":") == 1:
        host, port_text = text.split(":")
        ports = _ports(port_text, entry)
    else:
        host = text
    host = host.strip().lower()
    if host == "loopback" or host == "localhost":
        return _Rule(networks=_LOOPBACK, name="localhost", ports=ports)
    if host == "*":
        return _Rule(networks=(ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0")), name=".", ports=ports)
    try:
        return _Rule(networks=(ipaddress.ip_network(host, strict=False),), ports=ports)
    except ValueError:
        pass
    if not _HOSTNAME.match(host):
        raise InputError(f"{ALLOW_VAR}: {entry!r} is not a host, IP, CIDR or 'loopback'")
    name = host.rstrip(".")
    return _Rule(name=name[1:] if name.startswith("*.") else name, ports=ports)


@dataclass(frozen=True)
class EndpointPolicy:
    """Allowed benchmark endpoints; ``rules is None`` means no policy (everything allowed)."""

    rules: tuple[_Rule, ...] | None = None
    spec: str | None = None

    @classmethod
    def parse(cls, spec: str | None) -> EndpointPolicy:
        if spec is None:
            return cls()
        entries = [e for e in spec.split(",") if e.strip()]
        return cls(rules=tuple(_rule(e) for e in entries), spec=spec)

    @classmethod
    def from_settings(cls) -> EndpointPolicy:
        return cls.parse(settings.bench_allow())

    @property
    def open(self) -> bool:
        """No policy: a local single user, any endpoint."""
        return self.rules is None

    def name_allowed(self, host: str, port: int) -> bool:
        host = host.lower().rstrip(".")
        return bool(self.rules) and any(
            r.port_ok(port) and (r.name_ok(host) or r.name == ".") for r in self.rules or ()
        )

    def address_allowed(self, address: str | IPAddress, port: int) -> bool:
        if self.rules is None:
            return True
        try:
            addr = _address(str(address))
        except ValueError:
            return False
        return any(r.port_ok(port) and r.address_ok(addr) for r in self.rules)

    def _refused(self, host: str, port: int, why: str = "") -> EndpointRefusedError:
        return EndpointRefusedError(
            f"endpoint {host}:{port} is not allowed on this server, or its name does not resolve{why}; nothing was "
            "sent to it. The operator "
            f"can allow it in {ALLOW_VAR} (hosts, CIDRs, host:port, comma-separated)"
        )

    def check(self, host: str, port: int, resolve: Callable[..., Any] = socket.getaddrinfo) -> None:
        """Refuse (EndpointRefusedError) unless host:port and every address host resolves to are allowed."""
        if self.rules is None:
            return
        try:
            literal = _address(host.strip("[]"))
        except ValueError:
            literal = None
        if literal is not None:
            if not self.address_allowed(literal, port):
                raise self._refused(host, port)
            return
        if self.name_allowed(host, port):
            return
        try:
            infos = resolve(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            # the same words as a disallowed address: a different one would tell visitors which names exist
            raise self._refused(host, port) from None
        addresses = {info[4][0] for info in infos}
        if not addresses or not all(self.address_allowed(a, port) for a in addresses):
            raise self._refused(host, port)

    def resolver(self) -> Any:
        """An aiohttp resolver that re-checks every resolution against this policy (no DNS re-binding)."""
        return PolicyResolver(self)


class PolicyResolver:
    """aiohttp resolver: resolves with a thread (like aiohttp's default) and refuses forbidden addresses."""

    def __init__(self, policy: EndpointPolicy) -> None:
        from aiohttp.resolver import ThreadedResolver

        self._policy = policy
        self._inner = ThreadedResolver()

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET) -> list[Any]:
        found = await self._inner.resolve(host, port, family)
        if self._policy.name_allowed(host, port):
            return found
        if not found or not all(self._policy.address_allowed(r["host"], port) for r in found):
            raise OSError(f"{host} resolves to an address outside {ALLOW_VAR}")
        return found

    async def close(self) -> None:
        await self._inner.close()


# --- caps --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BenchLimits:
    """Per-run caps and response byte caps (None: no cap)."""

    max_concurrency: int | None = None
    max_requests: int | None = None
    max_seconds: float | None = None
    session_requests: int | None = None
    session_seconds: float | None = None
    max_runs: int | None = None
    max_body_bytes: int = limits.RESPONSE_BYTES.default
    max_chunk_bytes: int = limits.SSE_LINE_BYTES.default

    @classmethod
    def from_settings(cls) -> BenchLimits:
        raw = settings.bench_limits()

        def whole(key: str) -> int | None:
            value = raw[key]
            return None if value is None else int(value)

        def seconds(key: str) -> float | None:
            value = raw[key]
            return None if value is None else float(value)

        return cls(
            max_concurrency=whole("max_concurrency"),
            max_requests=whole("max_requests"),
            max_seconds=seconds("max_seconds"),
            session_requests=whole("session_requests"),
            session_seconds=seconds("session_seconds"),
            max_runs=whole("max_runs"),
            max_body_bytes=limits.RESPONSE_BYTES.value(),
            max_chunk_bytes=limits.SSE_LINE_BYTES.value(),
        )

    def check(self, *, concurrency: int, requests: int, warmup: int) -> None:
        """InputError naming the cap and its variable when a run asks for more than this server allows."""
        if self.max_concurrency is not None and concurrency > self.max_concurrency:
            raise InputError(
                f"concurrency {concurrency} is over this server's cap of {self.max_concurrency} "
                f"(SPECDRAFT_BENCH_MAX_CONCURRENCY); lower it, or the operator can raise the cap"
            )
        if self.max_requests is not None and requests + warmup > self.max_requests:
            raise InputError(
                f"{requests} requests + {warmup} warm-up are over this server's cap of "
                f"{self.max_requests} per run (SPECDRAFT_BENCH_MAX_REQUESTS); lower them, or the "
                f"operator can raise the cap"
            )


@dataclass
class SessionBudget:
    """What one browser session may still send: requests and run seconds (None: unlimited)."""

    requests_left: int | None = None
    seconds_left: float | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @classmethod
    def from_limits(cls, limits: BenchLimits) -> SessionBudget:
        return cls(requests_left=limits.session_requests, seconds_left=limits.session_seconds)

    def check(self, requests: int) -> None:
        with self._lock:
            if self.requests_left is not None and requests > self.requests_left:
                raise InputError(
                    f"this session may send {self.requests_left} more request(s) "
                    f"(SPECDRAFT_BENCH_SESSION_REQUESTS); ask for fewer, or the operator can raise "
                    f"the cap"
                )
            if self.seconds_left is not None and self.seconds_left <= 0:
                raise InputError(
                    "this session has used its benchmark time (SPECDRAFT_BENCH_SESSION_SECONDS); "
                    "the operator can raise the cap"
                )

    def spend(self, requests: int, seconds: float) -> None:
        with self._lock:
            if self.requests_left is not None:
                self.requests_left = max(self.requests_left - requests, 0)
            if self.seconds_left is not None:
                self.seconds_left = max(self.seconds_left - seconds, 0.0)


class RunSlots:
    """At most ``SPECDRAFT_BENCH_MAX_RUNS`` benchmarks at once in this process."""

    _lock = threading.Lock()
    _active = 0

    @classmethod
    def acquire(cls, limit: int | None) -> None:
        with cls._lock:
            if limit is not None and cls._active >= limit:
                raise BenchError(
                    f"{cls._active} benchmark(s) already running on this server, the cap is {limit} "
                    f"(SPECDRAFT_BENCH_MAX_RUNS); try again when one has finished"
                )
            cls._active += 1

    @classmethod
    def release(cls) -> None:
        with cls._lock:
            cls._active = max(cls._active - 1, 0)


class SessionWatch:
    """keep_running() for a run started from a page: false once the browser session has been gone ``grace_s``.

    ``is_active`` says whether the session is connected now (the page passes Streamlit's
    ``Runtime.is_active_session``); a short reconnect (network blip, laptop lid) does not end the run.
    """

    def __init__(
        self, is_active: Callable[[], bool], grace_s: float = 10.0, clock: Callable[[], float] | None = None
    ) -> None:
        import time

        self._is_active = is_active
        self._grace = grace_s
        self._clock = clock or time.monotonic
        self._gone_since: float | None = None

    def __call__(self) -> bool:
        if self._is_active():
            self._gone_since = None
            return True
        now = self._clock()
        if self._gone_since is None:
            self._gone_since = now
        return now - self._gone_since < self._grace
