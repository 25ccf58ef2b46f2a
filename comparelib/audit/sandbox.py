"""Untrusted chat templates compiled and rendered in rlimited worker processes.

A Jinja template is a program: in-process checks cannot bound its time or memory (a loop with an
empty body is never timed; ``'%0999999999d' % 1`` allocates before any size check). So a template
the project does not ship runs in a small pool of fresh ``python -I`` children that set
RLIMIT_AS / RLIMIT_CPU / RLIMIT_FSIZE / RLIMIT_NPROC before reading any input, talk JSON both ways
(never pickle: a worker that escaped the Jinja sandbox must not get code run in the server) and are
SIGKILLed on the wall-clock deadline (render time cap + 1 s after their last sign of progress).
A template whose worker was killed is remembered and refused at once the next time.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import math
import os
import select
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from comparelib import limits
from comparelib.errors import ConfigError, DataError, LimitError

_HDR = struct.Struct("<I")
_FLUSH_S = 0.2
_SLACK_S = 1.0
_START_S = 30.0
_ROOT = str(Path(__file__).resolve().parents[2])
_BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from comparelib.audit import sandbox; sandbox.worker_main()"


def _enc(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


def _dec(raw: bytes) -> Any:
    return json.loads(raw.decode("utf-8", "surrogatepass"))


def _write_frame(fd: int, payload: bytes) -> None:
    view = memoryview(_HDR.pack(len(payload)) + payload)
    while view:
        view = view[os.write(fd, view) :]


def _read_exact(fd: int, n: int) -> bytes:
    parts, got = [], 0
    while got < n:
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            raise EOFError
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def digest(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()


def mode() -> str:
    """SPECDRAFT_RENDER_SANDBOX: ``auto`` (workers for templates the project does not ship), ``always``, ``off``."""
    raw = os.environ.get("SPECDRAFT_RENDER_SANDBOX", "auto").strip().lower() or "auto"
    if raw not in ("auto", "always", "off"):
        raise LimitError(f"SPECDRAFT_RENDER_SANDBOX={raw!r}: use auto, always or off")
    return raw


# ---------------------------------------------------------------------------------------------
# Worker side


def worker_main() -> None:  # pragma: no cover - runs in the child (tests observe it from outside)
    import resource

    # Limits first, before any input is read. No PR_SET_PDEATHSIG: it fires when the *thread* that
    # spawned the worker exits (Streamlit's script thread). Idle workers exit on stdin EOF.
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    try:
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    except (ValueError, OSError):
        pass
    os.nice(10)
    import jinja2.ext  # noqa: F401 - imported before RLIMIT_AS so the imports fit
    import jinja2.sandbox  # noqa: F401

    from comparelib.audit import templates

    mem = limits.RENDER_MEMORY_BYTES.value()
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    cpu_s = limits.RENDER_SECONDS.value()
    rfd, wfd = sys.stdin.fileno(), sys.stdout.fileno()
    sys.stdout = sys.stderr  # nothing else may write on the frame channel
    loaded: OrderedDict[str, tuple[Any, Any]] = OrderedDict()

    def arm_cpu() -> None:
        used = resource.getrusage(resource.RUSAGE_SELF)
        soft = math.ceil(used.ru_utime + used.ru_stime + cpu_s + 0.5)
        resource.setrlimit(resource.RLIMIT_CPU, (soft, resource.RLIM_INFINITY))

    def one(tpl: Any, shape: Any, op: str, item: Any) -> list[Any]:
        if op == "render":
            return ["ok", tpl.render(item[0], bool(item[1]))]
        turns = [(str(r), str(c)) for r, c in item]
        text = tpl.render_turns(turns)
        fast = templates.fast_spans(text, turns, shape) if shape else None
        if fast is not None:
            return ["ok", text, fast]
        try:
            full, spans = templates.reference_spans(tpl, turns, full=text)
            return ["ok", full, spans]
        except LimitError:
            raise
        except DataError:
            if shape is None:
                raise
            return ["ok", text, templates.pretemplated_spans(text, shape), 1]  # 1: spans by header, not prefix

    _write_frame(wfd, _enc({"ready": 1}))
    while True:
        try:
            (n,) = _HDR.unpack(_read_exact(rfd, 4))
            req = _dec(_read_exact(rfd, n))
        except EOFError:
            return
        key = req["key"]
        try:
            if "source" in req:
                tpl = templates.ChatTemplate(req["source"], req.get("special") or {}, name=req.get("name", "template"))
                arm_cpu()
                templates._compile(tpl.source)
                _write_frame(wfd, _enc({"tick": 1}))
                arm_cpu()
                shape = templates.probe_shape(tpl)
                loaded[key] = (tpl, shape)
                while len(loaded) > 16:
                    loaded.popitem(last=False)
                _write_frame(wfd, _enc({"tick": 1, "shape": list(shape.__dict__.values()) if shape else None}))
        except MemoryError:
            _write_frame(wfd, _enc({"fatal": "memory"}))
            continue
        except (LimitError, ConfigError) as exc:
            _write_frame(wfd, _enc({"fatal": type(exc).__name__, "message": str(exc)}))
            continue
        if key not in loaded:
            _write_frame(wfd, _enc({"fatal": "unknown"}))
            continue
        tpl, shape = loaded[key]
        out: list[Any] = []
        size = 0
        last = time.monotonic()
        fatal: dict[str, Any] | None = None
        for item in req["items"]:
            arm_cpu()
            try:
                res = one(tpl, shape, req["op"], item)
            except LimitError as exc:
                fatal = {"fatal": "LimitError", "message": str(exc)}
                break
            except MemoryError:
                out = []
                fatal = {"fatal": "memory"}
                break
            except RecursionError:
                res = ["err", "the chat template recursed too deeply on a conversation"]
            except DataError as exc:
                res = ["err", str(exc)]
            out.append(res)
            size += sum(len(x) for x in res if isinstance(x, str))
            now = time.monotonic()
            if now - last >= _FLUSH_S or size >= 8 << 20:
                _write_frame(wfd, _enc({"part": out}))
                out, size, last = [], 0, now
        if fatal is not None:
            _write_frame(wfd, _enc(fatal))
        else:
            _write_frame(wfd, _enc({"done": out}))


# ---------------------------------------------------------------------------------------------
# Parent side


class RenderCancelled(DataError):
    """The caller stopped wanting the render (its browser session ended)."""


class _Worker:
    def __init__(self) -> None:
        env = {k: v for k, v in os.environ.items() if k.startswith("SPECDRAFT_MAX_")}
        env.update(SPECDRAFT_RENDER_SANDBOX="off", PATH=os.environ.get("PATH", "/usr/bin:/bin"), LANG="C.UTF-8")
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-c", _BOOT, _ROOT],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
            start_new_session=True,  # own process group: a kill never reaches the server
            env=env,
            cwd=tempfile.gettempdir(),
        )
        assert self.proc.stdout is not None and self.proc.stdin is not None
        self.rfd = self.proc.stdout.fileno()
        self.wfd = self.proc.stdin.fileno()
        self.buf = bytearray()
        self.keys: set[str] = set()
        self.ready = False

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        try:
            self.proc.kill()
        except OSError:
            pass
        self.proc.wait()
        for fh in (self.proc.stdin, self.proc.stdout):
            try:
                if fh is not None:
                    fh.close()
            except OSError:
                pass

    def frame(self, until: float, cancel: Callable[[], bool] | None, cap: int) -> Any | None:
        while True:
            if len(self.buf) >= 4:
                (n,) = _HDR.unpack_from(self.buf)
                if n > cap:
                    raise limits.RENDER_BYTES.refuse("the chat template's answer")
                if len(self.buf) >= 4 + n:
                    raw = bytes(self.buf[4 : 4 + n])
                    del self.buf[: 4 + n]
                    return _dec(raw)
            now = time.monotonic()
            if now >= until or (cancel is not None and cancel()):
                return None
            ready, _, _ = select.select([self.rfd], [], [], max(0.0, min(0.1, until - now)))
            if ready:
                chunk = os.read(self.rfd, 4 << 20)
                if not chunk:
                    raise EOFError
                self.buf += chunk


class TemplatePool:
    """A few lazily started workers; each call takes one, and gives it back (or kills it)."""

    def __init__(self, size: int = 2) -> None:
        self.size = size
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # a worker was taken or given back
        self._slots = threading.BoundedSemaphore(size)
        self._bad: OrderedDict[str, tuple[float, str]] = OrderedDict()
        self._shapes: dict[str, list[Any] | None] = {}

    def pids(self) -> list[int]:
        with self._lock:
            return [w.proc.pid for w in [*self._idle, *self._busy]]

    def wait_busy(self, count: int, timeout: float) -> list[int] | None:
        """The pids of the busy workers once at least ``count`` are rendering; None if not within ``timeout`` s.
        Lets a caller (a health check, a test) know renders hold the workers without polling."""
        with self._changed:
            if not self._changed.wait_for(lambda: len(self._busy) >= count, timeout):
                return None
            return [w.proc.pid for w in self._busy]

    def _take(self) -> _Worker:
        self._slots.acquire()
        with self._lock:
            while self._idle:
                w = self._idle.pop()
                if w.alive():
                    self._busy.add(w)
                    self._changed.notify_all()
                    return w
                w.kill()
        try:
            w = _Worker()
        except BaseException:
            self._slots.release()
            raise
        with self._lock:
            self._busy.add(w)
            self._changed.notify_all()
        return w

    def _give(self, w: _Worker, ok: bool) -> None:
        with self._lock:
            self._busy.discard(w)
            if ok:
                self._idle.append(w)
            self._changed.notify_all()
        if not ok:
            w.kill()
        self._slots.release()

    def _remember_bad(self, key: str, message: str) -> None:
        with self._lock:
            self._bad[key] = (time.monotonic(), message)
            while len(self._bad) > 256:
                self._bad.popitem(last=False)

    def call(self, template: Any, op: str, items: Sequence[Any], *, cancel: Callable[[], bool] | None = None) -> Any:
        key = digest(template.source)
        with self._lock:
            bad = self._bad.get(key)
        if bad is not None and time.monotonic() - bad[0] < 3600:
            raise LimitError(bad[1])
        seconds = limits.RENDER_SECONDS.value()
        time_msg = str(limits.RENDER_SECONDS.refuse("rendering one conversation with the chat template"))
        mem_msg = str(limits.RENDER_MEMORY_BYTES.refuse("the chat template (its worker process)"))
        cap = 4 * limits.RENDER_BYTES.value() + (1 << 20)
        w = self._take()
        ok = False
        try:
            with self._lock:  # again: it may have been killed while this call waited for a worker
                bad = self._bad.get(key)
            if bad is not None and time.monotonic() - bad[0] < 3600:
                ok = w.alive()
                raise LimitError(bad[1])
            if not w.ready:
                msg = w.frame(time.monotonic() + _START_S, cancel, cap)
                if not msg or "ready" not in msg:
                    raise DataError("the chat template worker did not start")
                w.ready = True
            req: dict[str, Any] = {"key": key, "op": op, "items": list(items)}
            if key not in w.keys:
                req.update(source=template.source, special=dict(template.special), name=template.name)
            _write_frame(w.wfd, _enc(req))
            w.keys.add(key)
            out: list[Any] = []
            until = time.monotonic() + seconds + _SLACK_S + _FLUSH_S
            while True:
                msg = w.frame(until, cancel, cap)
                if msg is None:
                    if cancel is not None and cancel():
                        raise RenderCancelled("the audit stopped: its browser session ended")
                    self._remember_bad(key, time_msg)
                    raise LimitError(time_msg)
                if "tick" in msg:
                    if "shape" in msg:
                        with self._lock:
                            self._shapes[key] = msg["shape"]
                    until = time.monotonic() + seconds + _SLACK_S
                elif "part" in msg:
                    out.extend(msg["part"])
                    until = time.monotonic() + seconds + _SLACK_S + _FLUSH_S
                elif "done" in msg:
                    out.extend(msg["done"])
                    ok = True
                    return out
                else:
                    w.keys.discard(key)
                    kind = msg.get("fatal")
                    ok = kind in ("LimitError", "ConfigError")
                    if kind == "ConfigError":
                        raise ConfigError(msg.get("message", "the chat template does not parse"))
                    if kind == "LimitError":
                        raise LimitError(msg.get("message", time_msg))
                    self._remember_bad(key, mem_msg)
                    raise LimitError(mem_msg)
        except (EOFError, BrokenPipeError):
            code = w.proc.wait()
            message = time_msg if code == -signal.SIGXCPU else mem_msg
            self._remember_bad(key, message)
            raise LimitError(message) from None
        finally:
            self._give(w, ok)

    def shape(self, template: Any) -> list[Any] | None:
        key = digest(template.source)
        with self._lock:
            if key in self._shapes:
                return self._shapes[key]
        self.call(template, "render", [])
        with self._lock:
            return self._shapes.get(key)

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for w in idle:
            w.kill()


_POOL: TemplatePool | None = None
_POOL_LOCK = threading.Lock()


def pool() -> TemplatePool:
    """The process-wide pool (SPECDRAFT_RENDER_WORKERS workers, default 2, at most 8)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            try:
                size = int(os.environ.get("SPECDRAFT_RENDER_WORKERS", "2"))
            except ValueError:
                raise LimitError("SPECDRAFT_RENDER_WORKERS must be a whole number of processes") from None
            _POOL = TemplatePool(max(1, min(size, 8)))
            atexit.register(_POOL.close)
        return _POOL
