"""Input caps: every byte read from a user, a file or a server goes through one of these.

One place for the caps (read from the environment on every call, like ``settings``, so tests and
the sidebar can change them) and for the bounded readers that enforce them. Each refusal is one
``LimitError`` whose message names the cap, its value and the variable that raises it.

Helpers here are generic (file-likes with ``read``/``readline``, iterables and async iterables of
byte chunks): the benchmark client caps server answers and SSE lines with ``aread_capped`` and
``aiter_line_batches`` (passing the SPECDRAFT_BENCH_MAX_BODY_BYTES / _CHUNK_BYTES values as
``limit``), the dataset reader caps rows with ``iter_lines`` / ``iter_chunk_lines``.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncGenerator, AsyncIterable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Self

from comparelib.errors import LimitError

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB


@dataclass(frozen=True)
class Cap:
    """One cap: the environment variable that sets it, its default and what it bounds."""

    env: str
    default: int
    what: str
    unit: str = "bytes"

    def value(self) -> int:
        raw = os.environ.get(self.env)
        if raw is None or not raw.strip():
            return self.default
        cached = _PARSED.get(raw)
        if cached is not None:
            return cached
        try:
            value = _parse_amount(raw)
        except ValueError:
            raise LimitError(
                f"{self.env}={raw!r} is not a number; give {self.what} as an integer "
                f"({'bytes, e.g. 64MiB' if self.unit == 'bytes' else self.unit})"
            ) from None
        if value <= 0:
            raise LimitError(f"{self.env} must be positive, got {raw!r}")
        if len(_PARSED) < 256:
            _PARSED[raw] = value
        return value

    def shown(self, value: int | None = None) -> str:
        value = self.value() if value is None else value
        return human_bytes(value) if self.unit == "bytes" else f"{value:,} {self.unit}"

    def refuse(self, subject: str, *, value: int | None = None, seen: str | None = None) -> LimitError:
        """The one message for this cap: what went over, the cap, and how to raise it."""
        over = f" ({seen})" if seen else ""
        return LimitError(
            f"{subject} exceeds the {self.what} cap of {self.shown(value)}{over}; if the input is "
            f"trusted, raise it with the environment variable {self.env}"
        )


_PARSED: dict[str, int] = {}  # environment text -> bytes: caps are read per row, parsed once

_AMOUNT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]i?b?|b)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": KiB, "m": MiB, "g": GiB, "t": 1024 * GiB}


def _parse_amount(raw: str) -> int:
    """``1048576``, ``64MiB``, ``2G``, ``1.5GB`` (binary units throughout)."""
    m = _AMOUNT.match(raw)
    if not m:
        raise ValueError(raw)
    unit = (m.group(2) or "").lower()[:1]
    return int(float(m.group(1)) * _UNITS[unit])


def human_bytes(n: int) -> str:
    for unit, size in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if n >= size:
            value = n / size
            return f"{value:,.0f} {unit}" if value == int(value) else f"{value:,.1f} {unit}"
    return f"{n:,} bytes"


ROW_BYTES = Cap("SPECDRAFT_MAX_ROW_BYTES", 16 * MiB, "row size")
"""One JSON Lines row, prompt line, or Hub dataset row."""
DOCUMENT_BYTES = Cap("SPECDRAFT_MAX_DOCUMENT_BYTES", 512 * MiB, "whole-document size")
"""A .json dataset file read as one document (not JSON Lines)."""
HUB_DATA_FILE_BYTES = Cap("SPECDRAFT_MAX_HUB_DATA_FILE_BYTES", 4 * GiB, "downloaded data file size")
"""A Hub dataset file downloaded whole (the audit's fallback for a repo ``datasets`` cannot load), refused by
the size the Hub states before any of it is fetched: on a shared server it lands on the server's disk."""
CONFIG_BYTES = Cap("SPECDRAFT_MAX_CONFIG_BYTES", 64 * MiB, "config file size")
"""config.json, README.md, tokenizer_config.json, a shard index, tokenizer.json: local or from the Hub."""
TEMPLATE_BYTES = Cap("SPECDRAFT_MAX_TEMPLATE_BYTES", 1 * MiB, "chat template size")
RENDER_BYTES = Cap("SPECDRAFT_MAX_RENDER_BYTES", 64 * MiB, "rendered conversation size")
RENDER_SECONDS = Cap("SPECDRAFT_MAX_RENDER_SECONDS", 10, "chat template render time", unit="seconds")
RENDER_MEMORY_BYTES = Cap("SPECDRAFT_MAX_RENDER_MEMORY_BYTES", 512 * MiB, "chat template worker memory")
"""RLIMIT_AS of the worker process that compiles and renders a chat template the project does not ship."""
DECOMPRESSED_BYTES = Cap("SPECDRAFT_MAX_DECOMPRESSED_BYTES", 64 * GiB, "decompressed size")
COMPRESSION_RATIO = Cap("SPECDRAFT_MAX_COMPRESSION_RATIO", 200, "compression ratio", unit="x")
JSON_DEPTH = Cap("SPECDRAFT_MAX_JSON_DEPTH", 128, "JSON nesting depth", unit="levels")
SAFETENSORS_HEADER_BYTES = Cap("SPECDRAFT_MAX_SAFETENSORS_HEADER_BYTES", 25_000_000, "safetensors header size")
"""Same default as huggingface_hub's SAFETENSORS_MAX_HEADER_LENGTH."""
UPLOAD_BYTES = Cap("SPECDRAFT_MAX_UPLOAD_BYTES", 500 * MiB, "upload size")
"""Also set Streamlit's server.maxUploadSize (MB) at least as high: Streamlit refuses bigger uploads first.
500, not 512: the uploaders print the cap rounded to a whole unit of 1000, and 512 read "1GB per file"."""
UPLOADS_BYTES = Cap("SPECDRAFT_MAX_UPLOADS_BYTES", 4 * GiB, "upload folder size")
"""All uploads held at once (``uploads/`` under the data root); folders older than UPLOAD_TTL are swept first."""
UPLOAD_TTL = Cap("SPECDRAFT_UPLOAD_TTL_SECONDS", 6 * 3600, "upload lifetime", unit="seconds")
RESPONSE_BYTES = Cap("SPECDRAFT_BENCH_MAX_BODY_BYTES", 16 * MiB, "HTTP response size")
"""A whole (non-streamed) HTTP body such as /v1/models or /get_server_info; a run reads it through
``endpoints.BenchLimits.from_settings``."""
SSE_LINE_BYTES = Cap("SPECDRAFT_BENCH_MAX_CHUNK_BYTES", 4 * MiB, "streamed event size")
"""One line of a server-sent-event stream; a run reads it through ``endpoints.BenchLimits.from_settings``."""

ALL: tuple[Cap, ...] = (
    ROW_BYTES,
    DOCUMENT_BYTES,
    HUB_DATA_FILE_BYTES,
    CONFIG_BYTES,
    TEMPLATE_BYTES,
    RENDER_BYTES,
    RENDER_SECONDS,
    RENDER_MEMORY_BYTES,
    DECOMPRESSED_BYTES,
    COMPRESSION_RATIO,
    JSON_DEPTH,
    SAFETENSORS_HEADER_BYTES,
    UPLOAD_BYTES,
    UPLOADS_BYTES,
    UPLOAD_TTL,
    RESPONSE_BYTES,
    SSE_LINE_BYTES,
)


# ---------------------------------------------------------------------------------------------
# Bounded readers

_CHUNK = 1 * MiB


def read_capped(fh: Any, subject: str, cap: Cap = CONFIG_BYTES, *, limit: int | None = None) -> bytes:
    """All of ``fh`` (anything with ``read(n)``), refusing once it holds more than the cap."""
    limit = cap.value() if limit is None else limit
    parts: list[bytes] = []
    size = 0
    while True:
        chunk = fh.read(min(_CHUNK, limit + 1 - size))
        if not chunk:
            break
        size += len(chunk)
        if size > limit:
            raise cap.refuse(subject, value=limit)
        parts.append(chunk)
    return b"".join(parts)


def read_file_capped(path: Any, subject: str | None = None, cap: Cap = CONFIG_BYTES) -> bytes:
    """A whole file, refused up front by its size, and while reading (it may grow or be a pipe)."""
    limit = cap.value()
    shown = subject or str(path)
    with open(path, "rb") as fh:
        try:
            size = os.fstat(fh.fileno()).st_size
        except OSError:
            size = 0
        if size > limit:
            raise cap.refuse(shown, value=limit, seen=human_bytes(size))
        return read_capped(fh, shown, cap, limit=limit)


def read_text_capped(path: Any, subject: str | None = None, cap: Cap = CONFIG_BYTES) -> str:
    """``read_file_capped`` decoded as UTF-8 (``UnicodeDecodeError`` is the caller's to word)."""
    return read_file_capped(path, subject, cap).decode("utf-8")


def iter_lines(fh: Any, subject: str, cap: Cap = ROW_BYTES) -> Iterator[bytes]:
    """Lines of a binary file-like, never holding more than the cap of one line in memory.

    ``readline(limit + 1)`` stops at the cap, so a 300 MB single-line row costs at most the cap
    before it is refused with the line number.
    """
    limit = cap.value()
    lineno = 0
    while True:
        line = fh.readline(limit + 1)
        if not line:
            return
        lineno += 1
        if len(line) > limit and not (len(line) == limit + 1 and line.endswith(b"\n")):
            raise cap.refuse(f"{subject} line {lineno}", value=limit)
        yield line


def iter_chunk_lines(chunks: Iterable[bytes], subject: str, cap: Cap = SSE_LINE_BYTES) -> Iterator[bytes]:
    """Lines (without the newline) from byte chunks of any size, a line never longer than the cap."""
    limit = cap.value()
    buf = bytearray()
    for chunk in chunks:
        start = 0
        while True:
            nl = chunk.find(b"\n", start)
            if nl < 0:
                buf += chunk[start:]
                if len(buf) > limit:
                    raise cap.refuse(f"a line of {subject}", value=limit)
                break
            buf += chunk[start:nl]
            if len(buf) > limit:
                raise cap.refuse(f"a line of {subject}", value=limit)
            yield bytes(buf)
            buf.clear()
            start = nl + 1
    if buf:
        yield bytes(buf)


async def aread_capped(
    chunks: AsyncIterable[bytes], subject: str, cap: Cap = RESPONSE_BYTES, *, limit: int | None = None
) -> bytes:
    """A whole body from async byte chunks (aiohttp's ``content.iter_chunked(n)``), refused once over the cap.

    Chunks are counted as they arrive (after decompression), so a huge or gzip-bomb answer costs at
    most the cap in memory. ``limit`` overrides the cap's value (the benchmark passes its own).
    """
    limit = cap.value() if limit is None else limit
    parts: list[bytes] = []
    size = 0
    async for chunk in chunks:
        size += len(chunk)
        if size > limit:
            raise cap.refuse(subject, value=limit)
        parts.append(chunk)
    return b"".join(parts)


async def aiter_line_batches(
    chunks: AsyncIterable[bytes], subject: str, cap: Cap = SSE_LINE_BYTES, *, limit: int | None = None
) -> AsyncGenerator[list[bytes], None]:
    """The complete lines (without the newline) of an async byte stream, one list per read that ends a line.

    A line is never held longer than the cap: the lines before an over-long one are yielded, then
    the cap is refused. A line split across reads is joined once (never quadratic); one await per
    network read, not per line, because this is the hot path of a streamed response. An unterminated
    last line is dropped, as server-sent events require (pending data is discarded at the end of the
    stream). ``limit`` overrides the cap's value (the benchmark passes its own).
    """
    limit = cap.value() if limit is None else limit
    pending: list[bytes] = []
    pending_len = 0
    async for data in chunks:
        if b"\n" not in data:
            pending.append(data)
            pending_len += len(data)
            if pending_len > limit:
                raise cap.refuse(f"a line of {subject}", value=limit)
            continue
        if pending:
            pending.append(data)
            data = b"".join(pending)
            pending, pending_len = [], 0
        lines = data.split(b"\n")
        tail = lines.pop()
        if tail:
            pending, pending_len = [tail], len(tail)
        if max(map(len, lines)) > limit:
            over = next(i for i, line in enumerate(lines) if len(line) > limit)
            if over:
                yield lines[:over]
            raise cap.refuse(f"a line of {subject}", value=limit)
        yield lines


class DecompressionGuard:
    """Wraps a decompressing file object and refuses once it has produced too much.

    Too much is the absolute cap, or more than ``ratio x compressed size`` once past 64 MiB (text
    compresses 3-20x; a bomb compresses 1000x).
    """

    def __init__(self, fh: Any, subject: str, compressed_size: int) -> None:
        self._fh = fh
        self._subject = subject
        self._abs = DECOMPRESSED_BYTES.value()
        self._ratio = COMPRESSION_RATIO.value()
        self._rel = max(64 * MiB, self._ratio * max(compressed_size, 1))
        self._compressed = compressed_size
        self.produced = 0

    def _count(self, data: bytes) -> bytes:
        self.produced += len(data)
        if self.produced > self._abs:
            raise DECOMPRESSED_BYTES.refuse(f"{self._subject} (decompressed)", value=self._abs)
        if self.produced > self._rel:
            raise COMPRESSION_RATIO.refuse(
                f"{self._subject} (decompressed)",
                value=self._ratio,
                seen=f"{human_bytes(self.produced)} so far from {human_bytes(self._compressed)} compressed",
            )
        return data

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0:
            return read_capped(self, self._subject, DECOMPRESSED_BYTES, limit=self._abs)
        return self._count(self._fh.read(n))

    def readline(self, n: int = -1) -> bytes:
        return self._count(self._fh.readline(n))

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz", ".zst")


def open_maybe_compressed(path: Any, subject: str | None = None) -> Any:
    """A binary reader of ``path``, decompressed by suffix (.gz/.bz2/.xz/.zst) behind a DecompressionGuard."""
    name = str(path)
    shown = subject or os.path.basename(name)
    size = os.path.getsize(name)
    if name.endswith(".gz"):
        import gzip

        return DecompressionGuard(gzip.open(name, "rb"), shown, size)
    if name.endswith(".bz2"):
        import bz2

        return DecompressionGuard(bz2.open(name, "rb"), shown, size)
    if name.endswith(".xz"):
        import lzma

        return DecompressionGuard(lzma.open(name, "rb"), shown, size)
    if name.endswith(".zst"):
        try:
            import zstandard
        except ImportError:
            raise LimitError(
                f"{shown} is zstd-compressed and the zstandard package is not installed: "
                "pip install zstandard, or decompress the file first"
            ) from None
        raw = open(name, "rb")  # noqa: SIM115 - closed through the guard
        reader = zstandard.ZstdDecompressor().stream_reader(raw, closefd=True)
        import io

        return DecompressionGuard(io.BufferedReader(reader), shown, size)
    return open(name, "rb")


# ---------------------------------------------------------------------------------------------
# JSON

_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)


def json_depth_over(raw: bytes | str, limit: int) -> bool:
    """Whether ``raw`` nests arrays/objects deeper than ``limit`` (brackets inside strings ignored).

    Cheap for every row: only a text with more than ``limit`` opening brackets can be too deep,
    and only such a text is scanned.
    """
    if isinstance(raw, str):
        if raw.count("[") + raw.count("{") <= limit:
            return False
        data = raw.encode("utf-8", "surrogatepass")
    else:
        data = raw if isinstance(raw, bytes) else bytes(raw)
        if data.count(b"[") + data.count(b"{") <= limit:
            return False
    import numpy as np

    bare = _STRINGS.sub(b'""', data)
    arr = np.frombuffer(bare, dtype=np.uint8)
    step = (np.isin(arr, (ord("["), ord("{")))).astype(np.int32) - np.isin(arr, (ord("]"), ord("}"))).astype(np.int32)
    if not len(step):
        return False
    return int(np.cumsum(step).max()) > limit


def json_loader(subject: str) -> Any:
    """``loads`` with the cap read once: for per-row use on hot paths (millions of rows)."""
    import json

    limit = JSON_DEPTH.value()
    decode = json.loads

    def load(raw: bytes | str) -> Any:
        if isinstance(raw, bytes):
            if raw.count(b"[") + raw.count(b"{") > limit and json_depth_over(raw, limit):
                raise JSON_DEPTH.refuse(subject, value=limit)
        elif isinstance(raw, str) and raw.count("[") + raw.count("{") > limit and json_depth_over(raw, limit):
            raise JSON_DEPTH.refuse(subject, value=limit)
        try:
            return decode(raw)
        except RecursionError:
            raise JSON_DEPTH.refuse(subject, value=limit, seen="deeper than Python can parse") from None

    return load


def loads(raw: bytes | str, subject: str) -> Any:
    """``json.loads`` with the nesting-depth cap: a clear LimitError instead of a RecursionError."""
    import json

    limit = JSON_DEPTH.value()
    if len(raw) > limit and json_depth_over(raw, limit):
        raise JSON_DEPTH.refuse(subject, value=limit)
    try:
        return json.loads(raw)
    except RecursionError:
        raise JSON_DEPTH.refuse(subject, value=limit, seen="deeper than Python can parse") from None
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError):
            raise
        raise _too_many_digits(subject) from None


def _too_many_digits(subject: str) -> LimitError:
    import sys

    return LimitError(
        f"{subject} holds an integer with more than {sys.get_int_max_str_digits():,} digits (Python's limit, "
        "PYTHONINTMAXSTRDIGITS); no config or dataset field needs one"
    )
