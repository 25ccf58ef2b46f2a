"""A local stand-in for the Hugging Face Hub, good enough for huggingface_hub 2.4.0.

The tests have no internet, yet ``comparelib.models.hub`` must talk to a Hub through the real client. This
module serves the routes that client uses (``HEAD``/``GET /{repo}/resolve/{rev}/{file}`` with
``X-Repo-Commit``/``ETag``/byte ranges, ``/api/models|datasets/{repo}[/revision/{rev}]``, the file listing
``GET /api/{type}s/{repo}/tree/{rev}[/{path}]?recursive=&expand=`` and ``POST .../paths-info/{rev}``
that ``HfFileSystem`` and ``datasets`` streaming rely on) and answers
errors with the same status codes and ``X-Error-Code`` headers the Hub uses, so huggingface_hub raises
its own ``RepositoryNotFoundError``/``GatedRepoError``/``RevisionNotFoundError``/``EntryNotFoundError``.

Three ways to use it:

* pytest fixture ``hub`` (function scope): starts a server, sets ``HF_ENDPOINT`` to it and yields the
  :class:`HubEmulator`; register repos with ``hub.add_repo(...)`` / ``hub.add_model(...)``, inspect
  ``hub.requests`` (:class:`RequestRecord`: Authorization values are never stored, only ``authorized``),
  ``hub.bytes_served(".safetensors")``, ``hub.file_size(repo_id, path)``; ``hub.token`` opens private and gated repos,
  ``hub.ungranted_token`` is valid but has not accepted gated terms.
* in-process: ``url, stop = start_emulator(repo_dir=None)`` (e.g. a Playwright test that starts
  Streamlit in a subprocess with ``HF_ENDPOINT=url``: the server is a real socket on 127.0.0.1).
* standalone: ``python -m tests.hub_emulator --port 8765 --repo-dir DIR`` prints ``HUB_EMULATOR_URL=<url>``
  on stdout, then serves until killed. ``DIR/<org>/<name>/`` folders become model repos and
  ``DIR/datasets/<org>/<name>/`` dataset repos, all on branch ``main``.

Weights never have to exist: :class:`SparseFile` is a safetensors header followed by *virtual* zero
bytes, so a repo can advertise a multi-gigabyte ``model.safetensors`` while only the header is stored
and only the ranges a client asks for are sent.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import signal
import struct
import sys
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

__all__ = [
    "HubEmulator",
    "RequestRecord",
    "SparseFile",
    "hub",
    "safetensors_file",
    "start_emulator",
    "write_safetensors_bytes",
]

DEFAULT_TOKEN = "hf_emulatorValidToken0123456789abcdef"
"""Accepted everywhere, including gated repos (as if the user accepted their terms)."""
UNGRANTED_TOKEN = "hf_emulatorNoGatedAccess0123456789ab"
"""A valid token whose user has NOT accepted gated repos' terms: gated files answer 403."""

_DTYPE_BYTES = {
    "BOOL": 1,
    "U8": 1,
    "I8": 1,
    "F8_E4M3": 1,
    "F8_E5M2": 1,
    "F8_E8M0": 1,
    "I16": 2,
    "U16": 2,
    "F16": 2,
    "BF16": 2,
    "I32": 4,
    "U32": 4,
    "F32": 4,
    "I64": 8,
    "U64": 8,
    "F64": 8,
}
_DTYPE_ALIASES = {
    "float32": "F32",
    "fp32": "F32",
    "float16": "F16",
    "fp16": "F16",
    "half": "F16",
    "bfloat16": "BF16",
    "bf16": "BF16",
    "float64": "F64",
    "int64": "I64",
    "int32": "I32",
    "int16": "I16",
    "int8": "I8",
    "uint8": "U8",
    "bool": "BOOL",
    "float8_e4m3fn": "F8_E4M3",
}
_LFS_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf", ".parquet", ".arrow", ".h5", ".msgpack")
_SHA_RE = re.compile(r"^[0-9a-f]{40}$")


# --------------------------------------------------------------------------------------------------
# safetensors helpers


def _dtype_code(dtype: str) -> str:
    code = _DTYPE_ALIASES.get(dtype.lower(), dtype.upper())
    if code not in _DTYPE_BYTES:
        raise ValueError(f"unknown safetensors dtype {dtype!r}")
    return code


def _safetensors_header(
    tensors: Mapping[str, tuple[tuple[int, ...] | list[int], str]], metadata: Mapping[str, str] | None = None
) -> tuple[bytes, int]:
    """Return (8-byte length + JSON header, size of the data section)."""
    header: dict[str, Any] = {}
    if metadata is not None:
        header["__metadata__"] = dict(metadata)
    offset = 0
    for name, (shape, dtype) in tensors.items():
        code = _dtype_code(dtype)
        nbytes = math.prod(int(d) for d in shape) * _DTYPE_BYTES[code]
        header[name] = {"dtype": code, "shape": [int(d) for d in shape], "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)  # safetensors pads the header to 8-byte alignment
    return struct.pack("<Q", len(raw)) + raw, offset


def write_safetensors_bytes(
    tensors: Mapping[str, tuple[tuple[int, ...] | list[int], str]],
    *,
    fill: bool = True,
    metadata: Mapping[str, str] | None = None,
) -> bytes:
    """Bytes of a safetensors file with zero-filled tensors.

    ``fill=False`` returns only the header (offsets still describe the full data), which is all a
    header reader needs; use :func:`safetensors_file` for a header whose file also *claims* the full size.
    """
    head, data_len = _safetensors_header(tensors, metadata)
    return head + (b"\0" * data_len if fill else b"")


@dataclass(frozen=True)
class SparseFile:
    """A file of ``size`` bytes whose first bytes are ``prefix`` and the rest virtual zeros."""

    prefix: bytes
    size: int

    def read(self, start: int, end: int) -> bytes:
        """Bytes [start, end)."""
        end = min(end, self.size)
        if start >= end:
            return b""
        head = self.prefix[start:end]
        return head + b"\0" * (end - start - len(head))


def safetensors_file(
    tensors: Mapping[str, tuple[tuple[int, ...] | list[int], str]], *, metadata: Mapping[str, str] | None = None
) -> SparseFile:
    """A safetensors file of its true size whose data is never materialised (for huge real shapes)."""
    head, data_len = _safetensors_header(tensors, metadata)
    return SparseFile(head, len(head) + data_len)


FileContent = bytes | SparseFile


def _size(content: FileContent) -> int:
    return content.size if isinstance(content, SparseFile) else len(content)


def _slice(content: FileContent, start: int, end: int) -> bytes:
    if isinstance(content, SparseFile):
        return content.read(start, end)
    return content[start:end]


# --------------------------------------------------------------------------------------------------
# repository model


@dataclass
class _Blob:
    content: FileContent
    etag: str
    lfs: bool


@dataclass
class _Repo:
    repo_type: str
    repo_id: str
    gated: bool = False
    private: bool = False
    refs: dict[str, str] = field(default_factory=dict)  # branch/tag -> commit sha
    commits: dict[str, dict[str, _Blob]] = field(default_factory=dict)  # sha -> path -> blob
    card_data: dict[str, dict[str, Any] | None] = field(default_factory=dict)  # sha -> cardData


@dataclass(frozen=True)
class RequestRecord:
    """One request as the emulator saw it. ``headers`` never hold the Authorization value."""

    method: str
    path: str  # raw path, percent-encoding kept, without the query string
    query: str
    headers: dict[str, str]
    authorized: bool  # an Authorization header was present
    range: str | None
    status: int
    bytes_sent: int  # body bytes in the response (logged as the response starts)

    @property
    def url_path(self) -> str:
        return unquote(self.path)


def _blob_for(path: str, content: FileContent) -> _Blob:
    lfs = path.endswith(_LFS_SUFFIXES) or isinstance(content, SparseFile)
    if isinstance(content, SparseFile):
        digest = hashlib.sha256(b"sparse:%d:" % content.size + content.prefix).hexdigest()
    elif lfs:
        digest = hashlib.sha256(content).hexdigest()
    else:  # git blob sha1, as the Hub uses for regular files
        digest = hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()
    return _Blob(content=content, etag=digest, lfs=lfs)


def _front_matter(readme: bytes) -> dict[str, Any] | None:
    """The README's YAML block, which the Hub exposes as ``cardData``."""
    text = readme.decode("utf-8", errors="replace")
    match = re.match(r"\A---\s*\n(.*?)\n---\s*(\n|\Z)", text, re.S)
    if not match:
        return None
    import yaml

    try:
        data = yaml.safe_load(match.group(1))
    except yaml.YAMLError:
        return None
    return data if isinstance(data, dict) else None


def _safetensors_params(blob: _Blob) -> dict[str, int]:
    """dtype -> parameter count from one safetensors header (what the Hub shows as ``safetensors``)."""
    first = _slice(blob.content, 0, 8)
    if len(first) < 8:
        return {}
    (n,) = struct.unpack("<Q", first)
    try:
        header = json.loads(_slice(blob.content, 8, 8 + n))
    except ValueError:
        return {}
    counts: dict[str, int] = {}
    for name, info in header.items():
        if name == "__metadata__" or not isinstance(info, dict):
            continue
        if not all(isinstance(d, int) for d in info.get("shape") or []):
            return {}  # a hostile header: the Hub shows no safetensors summary for it
        counts[info["dtype"]] = counts.get(info["dtype"], 0) + math.prod(info["shape"])
    return counts


# --------------------------------------------------------------------------------------------------
# the server


class HubEmulator:
    """An in-memory Hub on 127.0.0.1. Thread-safe enough for a test: repos are added before requests."""

    token = DEFAULT_TOKEN
    ungranted_token = UNGRANTED_TOKEN

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._repos: dict[tuple[str, str], _Repo] = {}
        self._lock = threading.Lock()
        self._counter = 0
        self.requests: list[RequestRecord] = []
        self.tokens: set[str] = {DEFAULT_TOKEN, UNGRANTED_TOKEN}
        self.gated_access: set[str] = {DEFAULT_TOKEN}
        self.api_enabled = True
        """False imitates a plain file mirror: ``/api/...`` answers 404 with no X-Error-Code."""
        emulator = self

        class Handler(_Handler):
            hub = emulator

        self._server = ThreadingHTTPServer((host, port), Handler)
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None
        self.host, self.port = self._server.server_address[:2]
        self.url = f"http://{self.host}:{self.port}"

    # lifecycle -----------------------------------------------------------------------------------
    def start(self) -> HubEmulator:
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="hub-emulator", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> HubEmulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # repos ---------------------------------------------------------------------------------------
    def add_repo(
        self,
        repo_id: str,
        files: Mapping[str, FileContent],
        *,
        revision: str = "main",
        commit: str | None = None,
        gated: bool = False,
        private: bool = False,
        repo_type: str = "model",
        card_data: dict[str, Any] | None = None,
    ) -> str:
        """Create (or add a commit to) a repo; ``revision`` (a branch, tag or ``refs/pr/N``) points at it.

        Returns the 40-hex commit sha. ``card_data`` overrides what the README's YAML would give.
        Calling again with another revision keeps earlier ones (so tests can fetch by branch or by sha).
        """
        if repo_type not in ("model", "dataset"):
            raise ValueError("repo_type must be 'model' or 'dataset'")
        blobs = {path: _blob_for(path, content) for path, content in files.items()}
        with self._lock:
            self._counter += 1
            if commit is None:
                seed = f"{repo_type}/{repo_id}@{revision}#{self._counter}:" + ",".join(
                    f"{p}={b.etag}" for p, b in sorted(blobs.items())
                )
                commit = hashlib.sha1(seed.encode()).hexdigest()
            if not _SHA_RE.match(commit):
                raise ValueError("commit must be 40 lowercase hex characters")
            repo = self._repos.setdefault((repo_type, repo_id), _Repo(repo_type, repo_id))
            repo.gated = repo.gated or gated
            repo.private = repo.private or private
            repo.commits[commit] = blobs
            repo.refs[revision] = commit
            if card_data is None and "README.md" in blobs and isinstance(blobs["README.md"].content, bytes):
                card_data = _front_matter(blobs["README.md"].content)
            repo.card_data[commit] = card_data
        return commit

    def add_model(
        self,
        repo_id: str,
        config: Mapping[str, Any] | bytes | None,
        *,
        tensors: Mapping[str, tuple[tuple[int, ...] | list[int], str]] | None = None,
        shards: int = 1,
        card: str | None = None,
        extra_files: Mapping[str, FileContent] | None = None,
        **kwargs: Any,
    ) -> str:
        """Convenience: a model repo from a config dict (or raw bytes) plus optional tensor shapes.

        ``shards=1`` writes ``model.safetensors``; ``shards>1`` writes ``model-0000i-of-0000n.safetensors``
        and ``model.safetensors.index.json``. Weights are :class:`SparseFile` (header only in memory).
        Other keyword arguments go to :meth:`add_repo`.
        """
        files: dict[str, FileContent] = {}
        if config is not None:
            files["config.json"] = config if isinstance(config, bytes) else json.dumps(dict(config), indent=2).encode()
        if card is not None:
            files["README.md"] = card.encode()
        if tensors:
            names = list(tensors)
            if shards <= 1:
                files["model.safetensors"] = safetensors_file(tensors, metadata={"format": "pt"})
            else:
                per = math.ceil(len(names) / shards)
                weight_map: dict[str, str] = {}
                total = 0
                for i in range(shards):
                    part = {n: tensors[n] for n in names[i * per : (i + 1) * per]}
                    fname = f"model-{i + 1:05d}-of-{shards:05d}.safetensors"
                    sparse = safetensors_file(part, metadata={"format": "pt"})
                    files[fname] = sparse
                    total += sparse.size
                    weight_map.update({n: fname for n in part})
                index = {"metadata": {"total_size": total}, "weight_map": weight_map}
                files["model.safetensors.index.json"] = json.dumps(index, indent=2).encode()
        files.update(extra_files or {})
        return self.add_repo(repo_id, files, **kwargs)

    def commit_of(self, repo_id: str, revision: str = "main", repo_type: str = "model") -> str:
        return self._repos[(repo_type, repo_id)].refs[revision]

    def file_size(self, repo_id: str, path: str, *, revision: str = "main", repo_type: str = "model") -> int:
        """The size the emulator advertises for one file (to compare with bytes actually served)."""
        repo = self._repos[(repo_type, repo_id)]
        return _size(repo.commits[repo.refs.get(revision, revision)][path].content)

    # request log helpers -------------------------------------------------------------------------
    def clear_requests(self) -> None:
        with self._lock:
            self.requests.clear()

    def bytes_served(self, suffix: str = ".safetensors") -> int:
        """Body bytes sent for files whose path ends with ``suffix``."""
        return sum(r.bytes_sent for r in self.requests if r.url_path.endswith(suffix))

    def _record(self, record: RequestRecord) -> None:
        with self._lock:
            self.requests.append(record)

    # routing -------------------------------------------------------------------------------------
    def _lookup(self, repo_type: str, repo_id: str) -> _Repo | None:
        with self._lock:
            return self._repos.get((repo_type, repo_id))

    def _resolve_rev(self, repo: _Repo, revision: str) -> str | None:
        if revision in repo.refs:
            return repo.refs[revision]
        if _SHA_RE.match(revision) and revision in repo.commits:
            return revision
        return None


class _Reply(Exception):
    """Short-circuit a handler with an error answer."""

    def __init__(self, status: int, code: str | None, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers or {}


class _Handler(BaseHTTPRequestHandler):
    hub: HubEmulator
    protocol_version = "HTTP/1.0"  # one request per connection: no stale keep-alive into a stopped emulator
    server_version = "hub-emulator/1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence stderr access log
        return

    def do_HEAD(self) -> None:  # noqa: N802
        self._dispatch(head=True)

    def do_GET(self) -> None:  # noqa: N802
        self._dispatch(head=False)

    def do_POST(self) -> None:  # noqa: N802
        split = urlsplit(self.path)
        self._raw_path, self._query = split.path, split.query
        self._logged = False
        try:
            segs = [s for s in self._raw_path.split("/") if s]
            if segs[:1] == ["api"] and not self.hub.api_enabled:
                raise _Reply(404, None, "Not Found")
            if (
                segs[:1] == ["api"]
                and len(segs) >= 6
                and segs[1] in ("models", "datasets")
                and segs[4] == "paths-info"
            ):
                self._paths_info(segs)
            else:
                raise _Reply(405, None, "The emulator is read-only.")
        except _Reply as reply:
            self._send_error(reply, head=False)
        finally:
            if not self._logged:
                self._log(500, 0)

    # ---------------------------------------------------------------------------------------------
    def _dispatch(self, *, head: bool) -> None:
        split = urlsplit(self.path)
        self._raw_path, self._query = split.path, split.query
        self._logged = False
        try:
            segs = [s for s in self._raw_path.split("/") if s]
            if segs[:1] == ["api"] and not self.hub.api_enabled:
                raise _Reply(404, None, "Not Found")
            if segs[:1] == ["api"] and len(segs) >= 4 and segs[1] in ("models", "datasets"):
                self._api_info(segs, head=head)
            elif segs[:1] == ["datasets"] and len(segs) >= 6 and segs[3] == "resolve":
                self._resolve("dataset", f"{unquote(segs[1])}/{unquote(segs[2])}", segs[4:], head=head)
            elif len(segs) >= 5 and segs[2] == "resolve":
                self._resolve("model", f"{unquote(segs[0])}/{unquote(segs[1])}", segs[3:], head=head)
            else:
                raise _Reply(404, None, "Sorry, we can't find the page you are looking for.")
        except _Reply as reply:
            self._send_error(reply, head=head)
        finally:
            if not self._logged:  # an emulator bug: still record that the request came in
                self._log(500, 0)

    def _log(self, status: int, body_bytes: int) -> None:
        """Record the request BEFORE the body goes out, so a test that got its answer always sees the record."""
        self._logged = True
        auth = self.headers.get("Authorization")
        headers = {k: ("<present>" if k.lower() == "authorization" else v) for k, v in self.headers.items()}
        self.hub._record(
            RequestRecord(
                method=self.command,
                path=self._raw_path,
                query=self._query,
                headers=headers,
                authorized=auth is not None,
                range=self.headers.get("Range"),
                status=status,
                bytes_sent=body_bytes,
            )
        )

    def _token(self) -> str | None:
        auth = self.headers.get("Authorization")
        if auth is None:
            return None
        if not auth.startswith("Bearer "):
            raise _Reply(401, None, "Invalid credentials in Authorization header")
        token = auth[len("Bearer ") :].strip()
        if token not in self.hub.tokens:
            raise _Reply(401, None, "Invalid credentials in Authorization header")
        return token

    def _repo(self, repo_type: str, repo_id: str, *, files: bool) -> tuple[_Repo, str | None]:
        token = self._token()
        repo = self.hub._lookup(repo_type, repo_id)
        if repo is None or (repo.private and token not in self.hub.gated_access):
            # The Hub answers 401 (not 404) to anonymous callers so private repos stay secret.
            raise _Reply(401 if token is None else 404, "RepoNotFound", "Repository not found")
        if files and repo.gated and token not in self.hub.gated_access:
            kind = "dataset" if repo_type == "dataset" else "model"
            if token is None:
                raise _Reply(
                    401,
                    "GatedRepo",
                    f"Access to {kind} {repo_id} is restricted. You must have access "
                    "to it and be authenticated to access it. Please log in.",
                )
            raise _Reply(
                403,
                "GatedRepo",
                f"Access to {kind} {repo_id} is restricted and you are not in the "
                "authorized list. Visit the repo page to ask for access.",
            )
        return repo, token

    def _api_info(self, segs: list[str], *, head: bool) -> None:
        repo_type = "model" if segs[1] == "models" else "dataset"
        repo_id = f"{unquote(segs[2])}/{unquote(segs[3])}"
        rest = segs[4:]
        if len(rest) >= 2 and rest[0] == "tree":
            self._tree(repo_type, repo_id, rest[1:], head=head)
            return
        if rest and not (rest[0] == "revision" and len(rest) == 2):
            raise _Reply(404, None, "Sorry, we can't find the page you are looking for.")
        revision = unquote(rest[1]) if rest else "main"
        repo, _ = self._repo(repo_type, repo_id, files=False)
        sha = self.hub._resolve_rev(repo, revision)
        if sha is None:
            raise _Reply(404, "RevisionNotFound", f"Invalid rev id: {revision}")
        blobs = repo.commits[sha]
        siblings = []
        params: dict[str, int] = {}
        for path, blob in sorted(blobs.items()):
            sib: dict[str, Any] = {"rfilename": path}
            if blob.lfs:
                sib["lfs"] = {"size": _size(blob.content), "sha256": blob.etag, "pointerSize": 134}
            siblings.append(sib)
            if path.endswith(".safetensors"):
                for dtype, n in _safetensors_params(blob).items():
                    params[dtype] = params.get(dtype, 0) + n
        body: dict[str, Any] = {
            "_id": hashlib.md5(repo_id.encode()).hexdigest()[:24],
            "id": repo_id,
            "author": repo_id.split("/")[0],
            "sha": sha,
            "lastModified": "2026-01-01T00:00:00.000Z",
            "createdAt": "2025-01-01T00:00:00.000Z",
            "private": repo.private,
            "gated": "auto" if repo.gated else False,
            "disabled": False,
            "downloads": 0,
            "likes": 0,
            "tags": [],
            "siblings": siblings,
            "cardData": repo.card_data.get(sha),
        }
        if repo_type == "model":
            body["modelId"] = repo_id
            if params:
                body["safetensors"] = {"parameters": params, "total": sum(params.values())}
        self._send_json(200, body, head=head)

    # listing: /api/{type}s/{repo}/tree/{rev}[/{path}] and POST /api/{type}s/{repo}/paths-info/{rev} --------
    @staticmethod
    def _split_revision(tail: list[str]) -> tuple[str, list[str]]:
        """(revision, rest): the client quotes the revision as one segment; ``refs/pr/N`` and
        ``refs/convert/parquet`` may also come unquoted."""
        revision, rest = unquote(tail[0]), tail[1:]
        if revision == "refs" and len(rest) >= 2 and rest[0] in ("pr", "convert"):
            revision, rest = "/".join(["refs", *rest[:2]]), rest[2:]
        return revision, rest

    def _listing(self, repo_type: str, repo_id: str, revision: str) -> tuple[str, dict[str, _Blob]]:
        repo, _ = self._repo(repo_type, repo_id, files=False)
        sha = self.hub._resolve_rev(repo, revision)
        if sha is None:
            raise _Reply(404, "RevisionNotFound", f"Invalid rev id: {revision}")
        return sha, repo.commits[sha]

    @staticmethod
    def _folders(blobs: Mapping[str, _Blob]) -> set[str]:
        folders: set[str] = set()
        for path in blobs:
            parts = path.split("/")[:-1]
            folders.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
        return folders

    @staticmethod
    def _entry(path: str, blob: _Blob | None, sha: str, expand: bool) -> dict[str, Any]:
        """One tree entry as the Hub writes it (``RepoFile``/``RepoFolder`` parse these keys)."""
        if blob is None:
            entry: dict[str, Any] = {
                "type": "directory",
                "path": path,
                "oid": hashlib.sha1(f"tree:{sha}:{path}".encode()).hexdigest(),
            }
        else:
            size = _size(blob.content)
            entry = {"type": "file", "path": path, "size": size}
            if blob.lfs:
                entry["oid"] = hashlib.sha1(f"lfs-pointer:{blob.etag}".encode()).hexdigest()
                entry["lfs"] = {"oid": blob.etag, "size": size, "pointerSize": 134}
            else:
                entry["oid"] = blob.etag
        if expand:
            entry["lastCommit"] = {"id": sha, "title": "emulated commit", "date": "2026-01-01T00:00:00.000Z"}
        return entry

    def _tree(self, repo_type: str, repo_id: str, tail: list[str], *, head: bool) -> None:
        revision, path_segs = self._split_revision(tail)
        sha, blobs = self._listing(repo_type, repo_id, revision)
        folder = "/".join(unquote(s) for s in path_segs).strip("/")
        params = {k: v[-1] for k, v in parse_qs(self._query).items()}
        recursive = params.get("recursive", "false").lower() == "true"
        expand = params.get("expand", "false").lower() == "true"
        folders = self._folders(blobs)
        if folder and folder not in folders:
            if folder in blobs:  # the Hub lists a file path as that single file
                self._send_json(200, [self._entry(folder, blobs[folder], sha, expand)], head=head)
                return
            raise _Reply(404, "EntryNotFound", f'{folder} does not exist on "{revision}"')
        prefix = f"{folder}/" if folder else ""
        entries = []
        for path in sorted(folders | set(blobs)):
            if not path.startswith(prefix) or path == folder:
                continue
            if not recursive and "/" in path[len(prefix) :]:
                continue
            entries.append(self._entry(path, blobs.get(path), sha, expand))
        entries.sort(key=lambda e: (e["type"] != "directory", e["path"]))
        self._send_json(200, entries, head=head)

    def _paths_info(self, segs: list[str]) -> None:
        repo_type = "model" if segs[1] == "models" else "dataset"
        repo_id = f"{unquote(segs[2])}/{unquote(segs[3])}"
        revision, _ = self._split_revision(segs[5:])
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8", errors="replace") if length else ""
        if "json" in (self.headers.get("Content-Type") or ""):
            data = json.loads(raw or "{}")
            paths = data.get("paths") or []
            paths = [paths] if isinstance(paths, str) else list(paths)
            expand = str(data.get("expand", False)).lower() == "true"
        else:
            form = parse_qs(raw)
            paths = form.get("paths", [])
            expand = (form.get("expand") or ["false"])[-1].lower() == "true"
        sha, blobs = self._listing(repo_type, repo_id, revision)
        folders = self._folders(blobs)
        out = []
        for path in paths:
            path = path.strip("/")
            if path in blobs:
                out.append(self._entry(path, blobs[path], sha, expand))
            elif path in folders:
                out.append(self._entry(path, None, sha, expand))
        self._send_json(200, out, head=False)

    def _resolve(self, repo_type: str, repo_id: str, tail: list[str], *, head: bool) -> None:
        repo, _ = self._repo(repo_type, repo_id, files=True)
        # The client quotes the revision as one segment (refs%2Fpr%2F1); browsers may not.
        revision, path_segs = unquote(tail[0]), tail[1:]
        if revision == "refs" and len(path_segs) >= 3 and path_segs[0] in ("pr", "convert"):
            revision, path_segs = "/".join(["refs", *path_segs[:2]]), path_segs[2:]
        sha = self.hub._resolve_rev(repo, revision)
        if sha is None:
            raise _Reply(404, "RevisionNotFound", f"Invalid rev id: {revision}")
        path = "/".join(unquote(s) for s in path_segs)
        blob = repo.commits[sha].get(path)
        if blob is None:
            raise _Reply(404, "EntryNotFound", "Entry not found", headers={"X-Repo-Commit": sha})
        size = _size(blob.content)
        headers = {
            "X-Repo-Commit": sha,
            "ETag": f'"{blob.etag}"',
            "Accept-Ranges": "bytes",
            "Content-Type": "application/octet-stream" if blob.lfs else "text/plain; charset=utf-8",
            "Content-Disposition": f'inline; filename="{path.rsplit("/", 1)[-1]}"',
        }
        start, end, status = 0, size, 200
        rng = self.headers.get("Range")
        if rng and not head:
            match = re.fullmatch(r"bytes=(\d*)-(\d*)", rng.strip())
            if not match or (not match.group(1) and not match.group(2)):
                raise _Reply(416, None, "Invalid range", headers={"Content-Range": f"bytes */{size}"})
            if match.group(1):
                start = int(match.group(1))
                end = min(int(match.group(2)) + 1, size) if match.group(2) else size
            else:  # suffix range: the last N bytes
                start, end = max(size - int(match.group(2)), 0), size
            if start >= size or start >= end:
                raise _Reply(416, None, "Range not satisfiable", headers={"Content-Range": f"bytes */{size}"})
            status = 206
            headers["Content-Range"] = f"bytes {start}-{end - 1}/{size}"
        self._log(status, 0 if head else end - start)
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(end - start))
        self.end_headers()
        if head:
            return
        pos = start
        while pos < end:  # stream in chunks so a (mistaken) full read of a sparse file stays bounded in memory
            chunk = _slice(blob.content, pos, min(pos + (1 << 20), end))
            try:
                self.wfile.write(chunk)
            except (BrokenPipeError, ConnectionResetError):
                break
            pos += len(chunk)

    # ---------------------------------------------------------------------------------------------
    def _send_json(self, status: int, body: Any, *, head: bool) -> None:
        data = json.dumps(body).encode()
        self._log(status, 0 if head else len(data))
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if not head:
            self.wfile.write(data)

    def _send_error(self, reply: _Reply, *, head: bool) -> None:
        data = json.dumps({"error": reply.message}).encode()
        self._log(reply.status, 0 if head else len(data))
        self.send_response(reply.status)
        if reply.code:
            self.send_header("X-Error-Code", reply.code)
        self.send_header("X-Error-Message", reply.message)
        for k, v in reply.headers.items():
            self.send_header(k, v)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if not head:
            self.wfile.write(data)


# --------------------------------------------------------------------------------------------------
# entry points


def _load_repo_dir(emulator: HubEmulator, repo_dir: Path) -> list[str]:
    """Register ``DIR/<org>/<name>`` as model repos and ``DIR/datasets/<org>/<name>`` as dataset repos."""
    added: list[str] = []

    def collect(root: Path) -> dict[str, FileContent]:
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}

    for org in sorted(p for p in repo_dir.iterdir() if p.is_dir()):
        kind = "dataset" if org.name == "datasets" else "model"
        orgs = sorted(p for p in org.iterdir() if p.is_dir()) if kind == "dataset" else [org]
        for owner in orgs:
            for repo in sorted(p for p in owner.iterdir() if p.is_dir()):
                repo_id = f"{owner.name}/{repo.name}"
                emulator.add_repo(repo_id, collect(repo), repo_type=kind)
                added.append(f"{kind}:{repo_id}")
    return added


def start_emulator(repo_dir: str | Path | None = None, *, port: int = 0) -> tuple[str, Any]:
    """Start an emulator in a background thread: returns ``(url, stop)``; ``stop()`` shuts it down.

    The returned URL is a real socket on 127.0.0.1, so a subprocess (``streamlit run`` with
    ``HF_ENDPOINT=url``) can reach it. To add repos later, use ``HubEmulator().start()`` directly
    (``stop.__self__`` is also the emulator).
    """
    emulator = HubEmulator(port=port)
    if repo_dir is not None:
        _load_repo_dir(emulator, Path(repo_dir))
    emulator.start()
    return emulator.url, emulator.stop


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[HubEmulator]:
    """A fresh emulator per test; ``HF_ENDPOINT`` points at it for the test's duration."""
    emulator = HubEmulator().start()
    monkeypatch.setenv("HF_ENDPOINT", emulator.url)
    try:
        yield emulator
    finally:
        emulator.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.hub_emulator", description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0 = any free port)")
    parser.add_argument("--repo-dir", type=Path, help="DIR/<org>/<name>/ model repos, DIR/datasets/<org>/<name>/")
    args = parser.parse_args(argv)
    emulator = HubEmulator(port=args.port)
    added = _load_repo_dir(emulator, args.repo_dir) if args.repo_dir else []
    emulator.start()
    print(f"HUB_EMULATOR_URL={emulator.url}", flush=True)
    print(f"HUB_EMULATOR_TOKEN={DEFAULT_TOKEN}", flush=True)
    for name in added:
        print(f"repo {name}", flush=True)
    stopped = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stopped.set())
    while not stopped.wait(1.0):
        pass
    emulator.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
