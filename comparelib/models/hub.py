"""Hugging Face Hub access: what users paste, and the config/card/safetensors header behind it.

Everything goes through huggingface_hub (``hf_hub_download``, ``HfApi``), so the local cache,
``HF_HUB_OFFLINE``, mirrors (``HF_ENDPOINT``) and tokens behave as users expect. huggingface_hub
freezes its environment at import, so endpoint, token and cache folder are read from the
environment at call time and passed explicitly. Weights are never downloaded: parameter shapes come
from safetensors headers read by HTTP range requests. Remote code is never run.
"""

from __future__ import annotations

import contextvars
import json
import os
import re
import struct
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

from comparelib import limits, paths, redact, settings
from comparelib.errors import (
    CompareError,
    ConfigError,
    EntryNotFoundError,
    GatedRepoError,
    HostNotAllowedError,
    HubAccessError,
    HubError,
    InputError,
    OfflineError,
    RepoNotFoundError,
    RevisionNotFoundError,
)

HUB_HOSTS = frozenset({"huggingface.co", "hf.co"})
"""Hosts whose URLs are fetched, besides the host of ``settings.hf_endpoint()``."""

SafetensorsHeader = dict[str, tuple[tuple[int, ...], str]]
"""Tensor name -> (shape, safetensors dtype code such as ``"BF16"``)."""

_ROUTES = frozenset({"blob", "raw", "resolve", "tree", "blame"})
_TYPE_PREFIXES = {
    "models": "model",
    "datasets": "dataset",
    "spaces": "space",
    "kernels": "kernel",
    "buckets": "bucket",
}
_SNAPSHOT_RE = re.compile(r"[\\/]snapshots[\\/]([0-9a-f]{40})(?:[\\/]|$)")
_SHA_RE = re.compile(r"^[0-9a-f]{40}$")


# --------------------------------------------------------------------------------------------------
# references


@dataclass(frozen=True)
class ModelRef:
    """Where a model lives: a Hub repo (+revision, +file or folder inside it) or a local folder."""

    repo_id: str | None = None
    revision: str | None = None
    local_path: Path | None = None
    filename: str | None = None
    repo_type: str = "model"
    subfolder: str | None = None

    @property
    def is_local(self) -> bool:
        return self.local_path is not None

    def __str__(self) -> str:
        if self.local_path is not None:
            return str(self.local_path / self.filename) if self.filename else str(self.local_path)
        text = f"datasets/{self.repo_id}" if self.repo_type == "dataset" else str(self.repo_id)
        return f"{text}@{self.revision}" if self.revision else text


def endpoint_parts() -> tuple[str, int | None, str]:
    """(host, explicit port, path prefix) of the configured endpoint."""
    split = urlsplit(settings.hf_endpoint())
    return (split.hostname or "").lower(), split.port, split.path.strip("/")


def endpoint_host() -> str:
    """Host[:port] of the configured Hub, for messages."""
    return urlsplit(settings.hf_endpoint()).netloc or settings.hf_endpoint()


def bare_host(host: str) -> str:
    return host[4:] if host.startswith("www.") else host


def _check_host(host: str, port: int | None) -> bool:
    """True when a URL's host is a Hub: huggingface.co, hf.co or the configured endpoint's host."""
    if bare_host(host) in HUB_HOSTS:
        return True
    ep_host, ep_port, _ = endpoint_parts()
    return host == ep_host and (ep_port is None or port is None or port == ep_port)


def check_repo_id(repo_id: str, shown: str) -> str:
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:
        validate_repo_id(repo_id)
    except HFValidationError:
        raise InputError(
            f"{shown!r} is not a valid Hub repo id: use 'org/name' (letters, digits, '-', '_', '.'; "
            "no '--' or '..'; at most 96 characters)"
        ) from None
    return repo_id


def _local_ref(text: str) -> ModelRef | None:
    """A local folder with config.json, or a local .json config; None when ``text`` is not a local path."""
    path_like = (
        text.startswith(("/", "./", "../", "~", ".\\", "..\\"))
        or text in (".", "..")
        or (len(text) > 2 and text[1] == ":" and text[2] in "\\/")
    )
    try:
        path = paths.resolve_user_path(text, "folder")
    except InputError:
        if path_like:
            raise
        return None  # not under the data root: read as a Hub reference
    try:
        exists = path.exists()
    except OSError:
        exists = False
    if not exists:
        if path_like:
            raise InputError(f"no such file or folder: {text}")
        return None
    if path.is_dir():
        if (path / "config.json").is_file():
            return ModelRef(local_path=path.resolve())
        if path_like:
            raise InputError(f"folder {text} has no config.json; point at the folder holding the model's config.json")
        return None
    if path.suffix.lower() == ".json":
        return ModelRef(local_path=path.resolve().parent, filename=path.name)
    if path_like:
        raise InputError(f"{text} is not a config file; give a folder with config.json, or the config.json itself")
    return None


def _from_segments(segments: list[str], shown: str) -> ModelRef:
    """Web-URL path segments ([type/]org/name[/route/...]) to a reference."""
    repo_type = "model"
    if segments and segments[0] in _TYPE_PREFIXES:
        repo_type = _TYPE_PREFIXES[segments[0]]
        segments = segments[1:]
    if repo_type not in ("model", "dataset"):
        raise InputError(f"{shown} is a {repo_type}, not a model or dataset repo")
    if not segments:
        raise InputError(
            f"{shown} names no repository; paste a model page URL such as https://huggingface.co/org/name"
        )
    if len(segments) == 1:  # legacy single-name repos ("gpt2") still resolve on the Hub
        name, rest = segments[0], []
    else:
        name, rest = f"{segments[0]}/{segments[1]}", segments[2:]
    repo_id = check_repo_id(unquote(name), unquote(name))
    revision: str | None = None
    filename: str | None = None
    subfolder: str | None = None
    if rest:
        route, tail = rest[0], rest[1:]
        if route in ("commit", "commits") and tail:
            revision = unquote(tail[0])
        elif route in _ROUTES and tail:
            decoded = [unquote(s) for s in tail]
            # Special refs carry slashes; they are unambiguous only in the refs/pr/N and refs/convert/X forms.
            if decoded[0].startswith("refs/"):
                revision, path = decoded[0], decoded[1:]
            elif decoded[0] == "refs" and len(decoded) >= 3 and decoded[1] in ("pr", "convert"):
                revision, path = "/".join(decoded[:3]), decoded[3:]
            else:
                revision, path = decoded[0], decoded[1:]
            inner = "/".join(p for p in path if p)
            if inner:
                if route == "tree":
                    subfolder = inner
                else:
                    filename = inner
        # other routes (discussions, settings, ...) point at the repo itself
    return ModelRef(repo_id=repo_id, revision=revision, filename=filename, subfolder=subfolder, repo_type=repo_type)


def _from_hf_uri(text: str) -> ModelRef:
    from huggingface_hub import parse_hf_uri
    from huggingface_hub.errors import HfUriError

    try:
        uri = parse_hf_uri(text)
    except HfUriError:
        body = text[len("hf://") :]
        if body and "/" not in body.split("@", 1)[0]:  # hf://gpt2 or hf://gpt2@rev
            name, _, rev = body.partition("@")
            return ModelRef(repo_id=check_repo_id(name, name), revision=rev or None)
        raise InputError(
            f"{text!r} is not a Hub reference; use hf://org/name, hf://org/name@revision "
            "or hf://org/name@rev/config.json"
        ) from None
    if uri.type not in ("model", "dataset"):
        raise InputError(f"{text} is a {uri.type}, not a model or dataset repo")
    path = uri.path_in_repo.strip("/") or None
    filename = subfolder = None
    if path is not None:
        if "." in path.rsplit("/", 1)[-1]:
            filename = path
        else:
            subfolder = path
    return ModelRef(repo_id=uri.id, revision=uri.revision, filename=filename, subfolder=subfolder, repo_type=uri.type)


def check_revision(revision: str, shown: str) -> str:
    """A revision is a branch, tag, sha or refs/... name: no empty, '.' or '..' part and no backslash or control
    character, since an HTTP client resolves dot segments and ``/resolve/../`` would leave the repo's URL."""
    parts = revision.split("/")
    if any(p in ("", ".", "..") for p in parts) or "\\" in revision or not revision.isprintable():
        raise InputError(
            f"{shown}: {revision[:100]!r} is not a valid revision; use a branch, a tag or a full commit sha"
        )
    return revision


def check_path_in_repo(path: str, shown: str) -> str:
    """A file or folder inside a repo (already %-decoded): no '.' or '..' part, backslash or control character,
    so the URL built from it (with the token) stays inside the repo."""
    parts = path.strip("/").split("/")
    if any(p in (".", "..") for p in parts) or "\\" in path or not path.isprintable():
        raise InputError(
            f"{shown}: {path[:100]!r} is not a path inside the repository ('.', '..' and backslashes are not "
            "allowed); paste the file's or folder's own Hub URL"
        )
    return path


def _checked(ref: ModelRef, shown: str) -> ModelRef:
    """Every part of a Hub reference that goes into a URL, decoded, checked once here at the boundary."""
    if ref.revision is not None:
        check_revision(ref.revision, shown)
    for path in (ref.filename, ref.subfolder):
        if path is not None:
            check_path_in_repo(path, shown)
    return ref


def parse_ref(text: str) -> ModelRef:
    """Read whatever people paste: Hub URLs, ``org/name[@rev]``, ``hf://`` URIs, local folders.

    Raises ``HostNotAllowedError`` for any web host that is not a Hub, before anything is fetched, and
    ``InputError`` for a revision or path with '.'/'..' parts, however they are %-encoded.
    """
    ref = _parse_ref(text)
    if ref.local_path is not None:
        return ref
    return _checked(ref, redact.mask_url(text.strip())[:200])


def _parse_ref(text: str) -> ModelRef:
    if not isinstance(text, str):
        raise InputError("expected text: a Hub URL, org/name or a local folder")
    text = text.strip().strip("\"'").strip()
    if not text:
        raise InputError("nothing to look up: paste a Hub URL (https://huggingface.co/org/name), org/name or a folder")
    lowered = text.lower()
    if lowered.startswith("hf://"):
        return _from_hf_uri(text)
    if "://" in text:
        scheme = lowered.split("://", 1)[0]
        if scheme not in ("http", "https"):
            raise InputError(f"unsupported address {scheme}://...; paste an https://huggingface.co URL or org/name")
        url = text
    else:
        local = _local_ref(text)
        if local is not None:
            return local
        first = text.split("/", 1)[0].split("?", 1)[0].lower()
        host_like = (
            _check_host(first.split(":", 1)[0], None)
            or ("." in first and text.count("/") >= 2 and not first.startswith("."))
            or ":" in first
        )
        if not host_like:
            return _from_bare(text)
        url = "https://" + text
    try:
        split = urlsplit(url)
        port = split.port
    except ValueError:
        raise InputError(f"{redact.mask_url(text)!r} is not a valid URL") from None
    host = (split.hostname or "").lower()
    if not host:
        raise InputError(f"{redact.mask_url(text)!r} has no host; paste https://huggingface.co/org/name")
    if not _check_host(host, port):
        raise HostNotAllowedError(f"only Hugging Face Hub URLs are fetched; {host} is not one")
    if split.username is not None or split.password is not None:  # never echo or keep a secret pasted into a URL
        raise InputError(
            f"{split.scheme}://{redact.PLACEHOLDER}@{host}{split.path}: remove the user:password@ part of the URL; "
            "the Hub token is read from HF_TOKEN, never from a URL"
        )
    path = split.path
    ep_host, _, ep_prefix = endpoint_parts()
    if ep_prefix and host == ep_host and (path == "/" + ep_prefix or path.startswith(f"/{ep_prefix}/")):
        path = path[len(ep_prefix) + 1 :]
    segments = [s for s in path.split("/") if s]
    shown = f"{split.scheme}://{split.netloc}{split.path}"
    return _from_segments(segments, shown)


def _from_bare(text: str) -> ModelRef:
    """``org/name``, ``org/name@rev``, ``datasets/org/name`` or a pasted URL path without its host."""
    text = text.split("#", 1)[0].split("?", 1)[0].strip("/")
    head = text.split("@", 1)[0]
    segments = [s for s in head.split("/") if s]
    offset = 1 if segments and segments[0] in _TYPE_PREFIXES else 0
    if len(segments) > offset + 2 and segments[offset + 2] in _ROUTES | {"commit", "commits"} and "@" not in text:
        return _from_segments([s for s in text.split("/") if s], text)
    if "@" in text:
        repo_part, _, rev_part = text.partition("@")
        segments = [s for s in repo_part.split("/") if s]
        rev = unquote(rev_part)
        m = re.match(r"^refs/(?:pr/\d+|convert/[\w.-]+)", rev)
        revision, rest = (m.group(), rev[m.end() :].lstrip("/")) if m else (rev.split("/", 1) + [""])[:2]
        if not revision:
            raise InputError(f"{text!r}: nothing after '@'; write org/name@revision")
    else:
        revision, rest = None, ""
    repo_type = "model"
    if segments and segments[0] in _TYPE_PREFIXES:
        repo_type = _TYPE_PREFIXES[segments[0]]
        segments = segments[1:]
    if repo_type not in ("model", "dataset"):
        raise InputError(f"{text} is a {repo_type}, not a model or dataset repo")
    if not segments or len(segments) > 2:
        raise InputError(
            f"{text!r} is not a Hub repo id or URL: use org/name, org/name@revision, "
            "https://huggingface.co/org/name or a local folder with config.json"
        )
    repo_id = check_repo_id("/".join(segments), "/".join(segments))
    filename = subfolder = None
    if rest:
        if "." in rest.rsplit("/", 1)[-1]:
            filename = rest
        else:
            subfolder = rest
    return ModelRef(repo_id=repo_id, revision=revision, filename=filename, subfolder=subfolder, repo_type=repo_type)


# --------------------------------------------------------------------------------------------------
# fetched model


@dataclass
class FetchedModel:
    """A model's config and what can be learned without weights, pinned to one commit when remote."""

    ref: ModelRef
    repo_id: str | None
    revision: str | None
    commit_sha: str | None
    config: dict[str, Any]
    card: str | None = None
    safetensors_header: SafetensorsHeader | None = None
    files: list[str] = field(default_factory=list)
    source_label: str = ""

    @property
    def page_url(self) -> str | None:
        """The repo page on the configured Hub, at the fetched commit."""
        if self.repo_id is None:
            return None
        base = f"{settings.hf_endpoint()}/{self.repo_id}"
        return f"{base}/tree/{self.commit_sha}" if self.commit_sha else base


def hub_cache_dir() -> Path:
    """huggingface_hub's cache folder, from the environment as it is now (HF_HUB_CACHE, HF_HOME)."""
    env = os.environ
    cache = env.get("HF_HUB_CACHE") or env.get("HUGGINGFACE_HUB_CACHE")
    if cache:
        return Path(cache).expanduser()
    home = env.get("HF_HOME") or os.path.join(
        env.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache"), "huggingface"
    )
    return Path(home).expanduser() / "hub"


def auth_token() -> str | bool:
    """HF_TOKEN, or False so huggingface_hub never picks up another stored token on its own."""
    return settings.hf_token() or False


def _scrub(message: str) -> str:
    return redact.mask_text(message, settings.hf_token())


def api_client() -> Any:
    from huggingface_hub import HfApi

    return HfApi(endpoint=settings.hf_endpoint(), library_name="specdraft-compare")


def _label(repo_id: str, revision: str | None, repo_type: str = "model") -> str:
    kind = "dataset " if repo_type == "dataset" else ""
    return f"{kind}{repo_id}@{revision}" if revision else f"{kind}{repo_id}"


def is_transport_error(exc: BaseException) -> bool:
    import httpx2
    from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled

    if isinstance(exc, HfHubHTTPError):
        return False
    return isinstance(exc, (httpx2.TransportError, OfflineModeIsEnabled, ConnectionError, TimeoutError))


def map_error(
    exc: BaseException, *, repo_id: str, revision: str | None, filename: str | None, repo_type: str = "model"
) -> CompareError:
    """huggingface_hub's exceptions to ours, with text that says what to do (and never the token)."""
    from huggingface_hub import errors as hf

    host = endpoint_host()
    label = _label(repo_id, revision, repo_type)
    kind = "dataset" if repo_type == "dataset" else "model"
    has_token = settings.hf_token() is not None
    if isinstance(exc, CompareError):
        return exc
    if isinstance(exc, hf.GatedRepoError):
        page = f"{settings.hf_endpoint()}/{'datasets/' if repo_type == 'dataset' else ''}{repo_id}"
        msg = (
            f"{label} is gated: accept its terms on the Hub ({page}) and set HF_TOKEN "
            "(in the app: the sidebar's Hub token field, kept for this session only)"
        )
        if has_token:
            msg += "; the token given has not been granted access yet"
        return GatedRepoError(_scrub(msg), repo_id=repo_id, repo_type=repo_type, token_given=has_token)
    if isinstance(exc, hf.RepositoryNotFoundError):
        hint = (
            "check the name, and that HF_TOKEN can read it if it is private"
            if has_token
            else "check the name, or set HF_TOKEN if it is private (in the app: the sidebar's Hub token field)"
        )
        return RepoNotFoundError(
            _scrub(f"{kind} {repo_id} not found on {host}; {hint}"),
            repo_id=repo_id,
            repo_type=repo_type,
            token_given=has_token,
        )
    if isinstance(exc, hf.RevisionNotFoundError):
        return RevisionNotFoundError(
            _scrub(f"revision {revision!r} not found in {kind} {repo_id}; use a branch, a tag or a full commit sha")
        )
    if isinstance(exc, hf.RemoteEntryNotFoundError):
        return EntryNotFoundError(_scrub(f"{label} has no {filename}"))
    if isinstance(exc, hf.FileMetadataError) or isinstance(exc.__cause__, hf.FileMetadataError):
        return HubError(
            _scrub(f"{host} does not look like a Hugging Face Hub (no commit or ETag headers); check HF_ENDPOINT")
        )
    if isinstance(exc, hf.LocalEntryNotFoundError) or is_transport_error(exc):
        if settings.hf_offline() or isinstance(exc, hf.OfflineModeIsEnabled):
            return OfflineError(
                _scrub(
                    f"offline (HF_HUB_OFFLINE is set) and {filename or 'the file'} of {label} is not in the local "
                    f"cache ({hub_cache_dir()}); unset HF_HUB_OFFLINE to download it"
                )
            )
        return OfflineError(
            _scrub(
                f"could not reach {host} and {filename or 'the file'} of {label} is not in the local cache; "
                "check the network, or HF_ENDPOINT if you use a mirror"
            )
        )
    if isinstance(exc, hf.HfHubHTTPError):
        status = exc.response.status_code if exc.response is not None else None
        if status == 401:
            return HubError(_scrub(f"{host} rejected HF_TOKEN (invalid credentials); fix or unset HF_TOKEN"))
        return HubError(_scrub(f"{host} answered HTTP {status} for {label}; try again later"))
    return HubError(_scrub(f"could not fetch {filename or 'data'} of {label} from {host}: {type(exc).__name__}"))


def access_sentence(exc: HubAccessError, what: str, token_field: str) -> str:
    """What a page says when the Hub would not show ``what`` ("Your draft acme/x's config", "The tokenizer"):
    gated, or not there (a private repository read without a token that can see it looks missing), with what to
    do in the page's own token field ``token_field`` (the error's own message names HF_TOKEN, the CLI's way)."""
    field = f'the sidebar\'s "{token_field}" field'
    kind = "dataset" if exc.repo_type == "dataset" else "model"
    if isinstance(exc, GatedRepoError):
        page = f"{settings.hf_endpoint()}/{'datasets/' if kind == 'dataset' else ''}{exc.repo_id}"
        if exc.token_given:
            return _scrub(
                f"{what} could not be read: {kind} {exc.repo_id} is gated and the Hub token in use has not been "
                f"granted access. Accept its terms on the Hub ({page}) with that token's account, or paste another "
                f"token in {field}."
            )
        return _scrub(
            f"{what} could not be read: {kind} {exc.repo_id} is gated. Accept its terms on the Hub ({page}), then "
            f"paste a token of that account in {field}."
        )
    if exc.token_given:
        return _scrub(
            f"{what} could not be read: {endpoint_host()} shows no {kind} {exc.repo_id} to the Hub token in use, so "
            f"the name is wrong or that token cannot read it. Check the name, or paste a token that can in {field}."
        )
    return _scrub(
        f"{what} could not be read: {endpoint_host()} shows no {kind} {exc.repo_id} without a token, so it is "
        f"private (or gated), or the name is wrong. Paste a token that can read it in {field}, or check the name."
    )


# --------------------------------------------------------------------------------------------------
# who may read a repo from the shared cache while the Hub cannot say

_READERS_FILE = ".specdraft-readers.json"
_MAX_READERS = 32


def _readers_path(repo_id: str, repo_type: str) -> Path:
    """A small marker next to the repo's cache folder (huggingface_hub's ``{type}s--org--name``)."""
    return hub_cache_dir() / f"{repo_type}s--{repo_id.replace('/', '--')}" / _READERS_FILE


def _readers(repo_id: str, repo_type: str) -> list[str]:
    try:
        data = json.loads(_readers_path(repo_id, repo_type).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    readers = data.get("readers") if isinstance(data, dict) else None
    return [r for r in readers if isinstance(r, str)] if isinstance(readers, list) else []


def note_reader(repo_id: str, repo_type: str = "model", *, public: bool | None = None) -> None:
    """Record that the Hub let the token in use read this repo (its fingerprint; "" for no token), and whether
    the Hub says the repo is public ("" kept) or not ("" dropped: it went gated or private). Only what is
    recorded here is served from the cache offline on a shared server (``cache_readable``)."""
    tag = settings.token_fingerprint()
    readers = _readers(repo_id, repo_type)
    is_public = ("" in readers or tag == "") if public is None else public
    tokens = [r for r in (tag, *readers) if r]
    tokens = list(dict.fromkeys(tokens))[:_MAX_READERS]
    kept = ([""] if is_public else []) + tokens
    path = _readers_path(repo_id, repo_type)
    if kept == readers or not path.parent.is_dir():
        return  # unchanged, or nothing of it cached (nothing to serve offline)
    try:
        tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps({"readers": kept}), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache: offline, this repo is then served to nobody on a shared server


def cache_readable(repo_id: str, repo_type: str = "model") -> bool:
    """Whether this session may be served the repo from the local cache without asking the Hub.

    A single user (no SPECDRAFT_DATA_ROOT) reads their own cache. On a shared server the cache holds what
    every session fetched, gated and private repos included, so only a repo read without a token (public)
    or with this session's own token (by fingerprint) is served while the Hub cannot check the token.
    """
    if settings.data_root() is None:
        return True
    readers = _readers(repo_id, repo_type)
    return "" in readers or settings.token_fingerprint() in readers


def _not_for_this_session(repo_id: str, revision: str | None, repo_type: str) -> OfflineError:
    """Worded alike whether the repo is cached or not, so a session learns nothing about other sessions' repos."""
    why = "offline (HF_HUB_OFFLINE is set)" if settings.hf_offline() else f"could not reach {endpoint_host()}"
    return OfflineError(
        f"{why}: while the Hub cannot check a token, this shared server serves from its cache only repos it read "
        f"without a token or with this session's Hub token, and {_label(repo_id, revision, repo_type)} is not one "
        "of them; try again when the Hub is reachable"
    )


def download(repo_id: str, filename: str, *, revision: str | None, repo_type: str, local_only: bool) -> Path:
    """One file through huggingface_hub's cache; ``local_only`` reads the cache alone (``cache_readable``)."""
    from huggingface_hub import hf_hub_download

    if local_only and not cache_readable(repo_id, repo_type):
        raise _not_for_this_session(repo_id, revision, repo_type)
    try:
        path = hf_hub_download(
            repo_id,
            filename,
            repo_type=repo_type,
            revision=revision,
            cache_dir=hub_cache_dir(),
            endpoint=settings.hf_endpoint(),
            token=auth_token(),
            local_files_only=local_only,
            library_name="specdraft-compare",
        )
    except Exception as exc:  # noqa: BLE001 - every failure becomes one of ours
        raise map_error(exc, repo_id=repo_id, revision=revision, filename=filename, repo_type=repo_type) from None
    return Path(str(path))


def _reachable_metadata(repo_id: str, filename: str, *, revision: str | None, repo_type: str) -> int | None:
    """One HEAD without retries: the file's size (0 when unknown); None when the Hub cannot be reached."""
    from huggingface_hub import get_hf_file_metadata, hf_hub_url

    url = hf_hub_url(repo_id, filename, repo_type=repo_type, revision=revision, endpoint=settings.hf_endpoint())
    try:
        meta = get_hf_file_metadata(url, token=auth_token(), endpoint=settings.hf_endpoint(), retry_on_errors=False)
    except Exception as exc:  # noqa: BLE001
        if is_transport_error(exc):
            return None
        raise map_error(exc, repo_id=repo_id, revision=revision, filename=filename, repo_type=repo_type) from None
    return int(meta.size or 0)


def check_file(repo_id: str, filename: str, *, revision: str | None = None, repo_type: str = "model") -> None:
    """One HEAD of a repo file, nothing downloaded: raises what ``download_file`` would where the Hub refuses it
    (gated without a granted token, not shown, no such file); returns quietly where it answers or cannot be
    reached (the local cache may still hold it)."""
    check_repo_id(repo_id, repo_id)
    _reachable_metadata(repo_id, filename, revision=revision, repo_type=repo_type)


def download_file(
    repo_id: str,
    filename: str,
    *,
    revision: str | None = None,
    repo_type: str = "model",
    cap: limits.Cap | None = limits.CONFIG_BYTES,
) -> Path:
    """Path of one repo file in the local Hub cache, downloading it if needed (honours HF_HUB_OFFLINE).

    A file larger than ``cap`` (by the size the Hub states) is refused before it is downloaded;
    ``cap=None`` for data files that are streamed from disk.
    """
    if repo_type not in ("model", "dataset"):
        raise InputError(f"repo type must be 'model' or 'dataset', not {repo_type!r}")
    check_repo_id(repo_id, repo_id)
    return _download_capped(
        repo_id, filename, revision=revision, repo_type=repo_type, cap=cap, local_only=settings.hf_offline()
    )


def _download_capped(
    repo_id: str, filename: str, *, revision: str | None, repo_type: str, cap: limits.Cap | None, local_only: bool
) -> Path:
    """``download`` after one HEAD that refuses a file over ``cap`` before any of it is fetched (a pasted repo's
    config.json could be gigabytes); a Hub that cannot be reached leaves the local cache, as offline."""
    shown = _label(repo_id, None, repo_type)
    check_path_in_repo(filename, shown)
    if revision is not None:
        check_revision(revision, shown)
    size = None if local_only else _reachable_metadata(repo_id, filename, revision=revision, repo_type=repo_type)
    if cap is not None and size and size > cap.value():
        raise cap.refuse(f"{filename} of {_label(repo_id, revision, repo_type)}", seen=limits.human_bytes(size))
    path = download(repo_id, filename, revision=revision, repo_type=repo_type, local_only=size is None)
    if size is not None:  # the Hub answered the HEAD for this token: record it for offline use
        note_reader(repo_id, repo_type)
    return path


def _commit_from_path(path: Path) -> str | None:
    match = _SNAPSHOT_RE.search(str(path))
    return match.group(1) if match else None


def _read_config(path: Path, shown: str) -> dict[str, Any]:
    try:
        data = limits.loads(limits.read_text_capped(path, shown, limits.CONFIG_BYTES), shown)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{shown} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); fix the file or "
            "pick another revision"
        ) from None
    except UnicodeDecodeError:
        raise ConfigError(f"{shown} is not UTF-8 text; it cannot be a model config") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {shown}: {exc.strerror or exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{shown} holds a JSON {type(data).__name__}, not an object; it is not a model config")
    return data


def _dims(shape: Any, name: str, shown: str) -> tuple[int, ...]:
    """A safetensors shape: a list of non-negative integers (bool is not an integer here)."""
    if not isinstance(shape, (list, tuple)) or not all(
        isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape
    ):
        raise ConfigError(
            f"{shown}: tensor {name!r} has shape {str(shape)[:80]}; a safetensors shape is a list of "
            "non-negative integers, so this is not a valid safetensors file"
        )
    return tuple(shape)


_DTYPE_BITS = {
    **dict.fromkeys(("BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3", "F8_E8M0", "F8_E4M3FNUZ", "F8_E5M2FNUZ"), 8),
    "F4": 4,
    "F6_E2M3": 6,
    "F6_E3M2": 6,
    **dict.fromkeys(("I16", "U16", "F16", "BF16"), 16),
    **dict.fromkeys(("I32", "U32", "F32"), 32),
    **dict.fromkeys(("I64", "U64", "F64", "C64"), 64),
}
"""Bits per element of every dtype safetensors 0.8 defines."""
_U64 = 1 << 64


def _offsets_pair(offsets: Any) -> bool:
    """Whether ``offsets`` is a safetensors [begin, end] pair of integers, begin <= end < 2^64."""
    return (
        isinstance(offsets, (list, tuple))
        and len(offsets) == 2
        and all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)
        and 0 <= offsets[0] <= offsets[1] < _U64
    )


def _truncated(header: dict[str, Any], shown: str, data_size: int, name: str, offsets: Any, remote: bool) -> str:
    """What a file whose tensors reach past its data section is (header only, or cut short), and what to do."""
    described = max(
        (
            info["data_offsets"][1]
            for key, info in header.items()
            if key != "__metadata__" and isinstance(info, dict) and _offsets_pair(info.get("data_offsets"))
        ),
        default=0,
    )
    state = "holds only its header" if data_size == 0 else "is truncated"
    said = (
        f"{shown} {state}: the header describes {described:,} bytes of tensor data, {data_size:,} present "
        f"(tensor {name!r} has data_offsets {str(offsets)[:80]} outside the file's {data_size:,}-byte data section)"
    )
    if remote:
        return (
            f"{said}. The Hub's header read works with byte ranges and the Hub states the file's full size, so the "
            "file on the Hub is truncated (a header-only or interrupted upload): upload the full file to the repo "
            "again, or paste a folder holding a complete copy."
        )
    return (
        f"{said}: a download cut short or a header-only copy holds no weights, so re-download it or upload the "
        "full file."
    )


def safetensors_entries(
    header: dict[str, Any], shown: str, data_size: int | None, *, remote: bool = False
) -> SafetensorsHeader:
    """Validated tensor entries of a parsed header, by safetensors' own rules.

    Known dtype; data_offsets present, inside the data section and exactly dtype x shape bytes long;
    tensors contiguous from 0 (no overlap, no gap) and covering the whole data section when its size is
    known. So a shape can never claim more elements than the file holds ([2^62, 2^62] in 32 bytes). A tensor
    past the data section is a truncated file (header only, or cut short): said with the bytes the header
    describes and those present, and what to do (``remote``: the Hub's copy is the truncated one).
    """
    out: SafetensorsHeader = {}
    spans: list[tuple[int, int, str]] = []
    meta = header.get("__metadata__")
    if meta is not None and not (isinstance(meta, dict) and all(isinstance(v, str) for v in meta.values())):
        raise ConfigError(f"{shown}: __metadata__ is not a map of strings, so this is not a valid safetensors file")
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if not isinstance(info, dict) or "shape" not in info or "dtype" not in info:
            raise ConfigError(f"{shown}: tensor {name!r} has no shape/dtype in the safetensors header")
        dims = _dims(info["shape"], name, shown)
        dtype = info["dtype"]
        if not isinstance(dtype, str):
            raise ConfigError(f"{shown}: tensor {name!r} has a dtype that is not a string")
        bits = _DTYPE_BITS.get(dtype)
        if bits is None:
            raise ConfigError(f"{shown}: tensor {name!r} has dtype {dtype[:40]!r}, which safetensors does not define")
        offsets: Any = info.get("data_offsets")
        if not _offsets_pair(offsets):
            raise ConfigError(
                f"{shown}: tensor {name!r} has data_offsets {str(offsets)[:80]} outside the file; the file is "
                "truncated or not safetensors"
            )
        if data_size is not None and offsets[1] > data_size:
            raise ConfigError(_truncated(header, shown, data_size, name, offsets, remote))
        n = 1
        for d in dims:
            n *= d
            if n >= _U64 and 0 not in dims:
                break
        nbits = n * bits
        if nbits % 8 or nbits // 8 != offsets[1] - offsets[0]:
            raise ConfigError(
                f"{shown}: tensor {name!r} is {dtype} {list(dims)[:8]} = "
                f"{'over 2^64' if n >= _U64 else f'{nbits / 8:,g}'} bytes but its data_offsets span "
                f"{offsets[1] - offsets[0]:,}; not a valid safetensors file"
            )
        spans.append((offsets[0], offsets[1], name))
        out[name] = (dims, dtype)
    pos = 0
    for begin, end, name in sorted(spans):
        if begin != pos:
            how = "overlaps the previous tensor" if begin < pos else "leaves a gap before it"
            raise ConfigError(f"{shown}: tensor {name!r} {how} (data_offsets start {begin:,}, expected {pos:,})")
        pos = end
    if data_size is not None and pos != data_size:
        raise ConfigError(
            f"{shown}: the data section is {data_size:,} bytes but the tensors cover {pos:,}; not a valid "
            "safetensors file"
        )
    return out


def _header_entries(header: dict[str, Any], shown: str) -> SafetensorsHeader:
    return safetensors_entries(header, shown, None)


HeaderFault = Literal["short", "json", "object"]


def _parse_safetensors_header(
    read: Callable[[int, int], bytes],
    size: int | None,
    shown: str,
    fault: Callable[[HeaderFault], Exception],
    *,
    remote: bool = False,
) -> SafetensorsHeader:
    """A safetensors header (8-byte little-endian length + JSON) through ``read(start, n)``; data is not read.

    The one reader for local files and remote range requests: the length must fit the file (when its
    ``size`` is known) and the cap (SPECDRAFT_MAX_SAFETENSORS_HEADER_BYTES), shapes must be lists of
    non-negative integers and every tensor's data_offsets must lie inside the file. A file that is not
    safetensors at all raises ``fault(why)``: the local reader words it, the remote one skips the file.
    """
    prefix = read(0, 8)
    if len(prefix) < 8:
        raise fault("short")
    (length,) = struct.unpack("<Q", prefix)
    if size is not None and length > size - 8:
        raise ConfigError(f"{shown} has an impossible safetensors header length ({length} bytes)")
    cap = limits.SAFETENSORS_HEADER_BYTES
    if length > cap.value():
        raise cap.refuse(f"the safetensors header of {shown}", seen=limits.human_bytes(length))
    raw = read(8, length)
    if len(raw) < length:
        raise fault("json")
    try:
        header = limits.loads(raw.decode("utf-8"), f"the safetensors header of {shown}")
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise fault("json") from None
    if not isinstance(header, dict):
        raise fault("object")
    return safetensors_entries(header, shown, None if size is None else size - 8 - length, remote=remote)


def read_safetensors_header(path: Path) -> SafetensorsHeader:
    """Shapes and dtypes from a local safetensors file's header (8-byte length + JSON); data is not read.

    The header length is capped (SPECDRAFT_MAX_SAFETENSORS_HEADER_BYTES), shapes must be lists of
    non-negative integers and every tensor's data_offsets must lie inside the file.
    """
    faults = {
        "short": f"{path} is too small to be a safetensors file (too short)",
        "json": f"{path} does not start with a JSON safetensors header (not valid JSON); is it really safetensors?",
        "object": f"{path} has a safetensors header that is not a JSON object",
    }
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:

            def read(start: int, n: int) -> bytes:
                fh.seek(start)
                return fh.read(n)

            return _parse_safetensors_header(read, size, str(path), lambda why: ConfigError(faults[why]))
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None


def _safetensors_targets(files: list[str], prefix: str) -> tuple[list[str], str | None]:
    """Which safetensors files hold the weights: the single file, the index's shards, or all top-level ones."""
    single, index = f"{prefix}model.safetensors", f"{prefix}model.safetensors.index.json"
    if single in files:
        return [single], None
    if index in files:
        return [], index
    return sorted(
        f for f in files if f.startswith(prefix) and "/" not in f[len(prefix) :] and f.endswith(".safetensors")
    ), None


def _local_header(folder: Path) -> SafetensorsHeader | None:
    files = sorted(p.name for p in folder.iterdir() if p.is_file())
    targets, index = _safetensors_targets(files, "")
    if index is not None:
        weight_map = _read_config(paths.member(folder / index), str(folder / index)).get("weight_map") or {}
        targets = sorted(set(weight_map.values()))
        missing = [t for t in targets if not (folder / t).is_file()]
        if missing:
            raise ConfigError(f"{folder / index} lists {missing[0]} but that file is not in {folder}")
    if not targets:
        return None
    header: SafetensorsHeader = {}
    for name in targets:
        try:
            header.update(read_safetensors_header(paths.member(folder / name, "weights file")))
        except ConfigError as exc:  # the draft's own file, said as its, with what to do
            raise CheckpointError(
                f"the draft's own checkpoint could not be read: {exc}. Copy {name} into {folder} again from where "
                "the draft was saved (the file must hold its tensors' data, not only their header), or move the "
                "safetensors files out of the folder to count the draft from its config.json alone."
            ) from None
    return header


def _fetch_local(ref: ModelRef, *, with_card: bool, with_header: bool) -> FetchedModel:
    assert ref.local_path is not None
    folder = ref.local_path
    config_path = folder / (ref.filename or "config.json")
    config = _read_config(paths.member(config_path, "config file"), str(config_path))
    card = None
    readme = folder / "README.md"
    if with_card and readme.is_file():
        card = limits.read_file_capped(paths.member(readme), str(readme), limits.CONFIG_BYTES).decode(
            "utf-8", "replace"
        )
    header = _local_header(folder) if with_header else None
    files = sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and ".cache" not in p.relative_to(folder).parts
    )[:5000]
    label = folder.name if not ref.filename or ref.filename == "config.json" else f"{folder.name}/{ref.filename}"
    return FetchedModel(
        ref=ref,
        repo_id=None,
        revision=None,
        commit_sha=None,
        config=config,
        card=card,
        safetensors_header=header,
        files=files,
        source_label=label,
    )


class CheckpointError(ConfigError):
    """A local draft folder's own checkpoint (its safetensors files) cannot be read: the draft's fault, never its
    target's; the message says what to do (the CLI adds its --no-header)."""


class _NotSafetensors(Exception):
    """Internal: the remote file does not start with a safetensors header."""


_FIRST_RANGE = 100_000  # as huggingface_hub: 97% of headers fit in the first 100 kB


def _get_range(url: str, start: int, end: int, subject: str) -> tuple[bytes, int | None]:
    """Bytes ``start..end`` (inclusive) of ``url``, never reading more even if the server ignores Range.

    Returns the bytes and the file size from Content-Range when the server gave one.
    """
    import httpx2
    from huggingface_hub.utils import get_session, hf_raise_for_status

    headers = {"range": f"bytes={start}-{end}"}
    token = auth_token()
    if token:
        headers["authorization"] = f"Bearer {token}"
    want = end - start + 1
    with get_session().stream("GET", url, headers=headers, timeout=10, follow_redirects=True) as response:
        buf = bytearray()
        for chunk in response.iter_bytes():
            buf += chunk
            if len(buf) >= want or (response.status_code >= 400 and len(buf) >= 65536):
                break
        if response.status_code >= 400:
            hf_raise_for_status(
                httpx2.Response(
                    response.status_code,
                    headers=response.headers,
                    content=bytes(buf[:65536]),
                    request=response.request,
                )
            )
        total = None
        match = re.search(r"/(\d+)$", response.headers.get("content-range") or "")
        if match:
            total = int(match.group(1))
        if response.status_code == 200 and start > 0:  # Range ignored: the body starts at byte 0
            buf = buf[start:]
    return bytes(buf[:want]), total


def _remote_safetensors_header(repo_id: str, name: str, revision: str | None) -> SafetensorsHeader:
    """One remote file's header by range requests, with every cap the local reader has."""
    from huggingface_hub import hf_hub_url

    url = hf_hub_url(repo_id, name, revision=revision, endpoint=settings.hf_endpoint())
    shown = f"{_label(repo_id, revision)}: {name}"
    first, total = _get_range(url, 0, _FIRST_RANGE, shown)

    def read(start: int, n: int) -> bytes:
        if start == 0 or start + n <= len(first):  # the length prefix, or a header inside the first range
            return first[start : start + n]
        return _get_range(url, start, start + n - 1, shown)[0]

    return _parse_safetensors_header(read, total, shown, lambda why: _NotSafetensors(name), remote=True)


def _remote_header(
    repo_id: str, revision: str | None, files: list[str] | None, prefix: str
) -> SafetensorsHeader | None:
    """Safetensors headers by range requests (huggingface_hub's parse_safetensors_file_metadata).

    Composed here rather than via ``get_safetensors_metadata`` because that downloads the shard index
    into the cache folder frozen at import time, and probes with extra HEAD calls we can skip when the
    repo listing is known.
    """
    from huggingface_hub.errors import NotASafetensorsRepoError, RemoteEntryNotFoundError, SafetensorsParsingError

    def parse(name: str) -> SafetensorsHeader:
        return _remote_safetensors_header(repo_id, name, revision)

    try:
        if files is None:  # listing unknown (mirror without the API): probe like get_safetensors_metadata does
            try:
                return parse(f"{prefix}model.safetensors")
            except RemoteEntryNotFoundError:
                files = [f"{prefix}model.safetensors.index.json"]
        targets, index = _safetensors_targets(files, prefix)
        if index is not None:
            try:
                path = _download_capped(
                    repo_id, index, revision=revision, repo_type="model", cap=limits.CONFIG_BYTES, local_only=False
                )
            except EntryNotFoundError:
                return None
            weight_map = _read_config(path, f"{_label(repo_id, revision)}: {index}").get("weight_map") or {}
            targets = sorted({f"{prefix}{name}" for name in weight_map.values()})
        if not targets:
            return None
        header: SafetensorsHeader = {}
        # the session's token lives in a ContextVar, which pool threads do not inherit: carry it over
        ctx = contextvars.copy_context()
        with ThreadPoolExecutor(max_workers=min(8, len(targets))) as pool:
            for part in pool.map(lambda t: ctx.copy().run(parse, t), targets):
                header.update(part)
        return header
    except (NotASafetensorsRepoError, SafetensorsParsingError, _NotSafetensors):
        return None
    except CompareError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise map_error(exc, repo_id=repo_id, revision=revision, filename="safetensors header") from None


def fetch_model(
    text: str | ModelRef, *, with_card: bool = True, with_header: bool = True, with_files: bool = True
) -> FetchedModel:
    """Config (+ README, + safetensors shapes) of a Hub model or local folder, without any weights.

    Remote fetches resolve the revision to one commit and read every file at that commit, so the
    config, card and header always belong together. Offline (HF_HUB_OFFLINE, or the Hub unreachable)
    the local cache is used; a miss raises ``OfflineError``. Each file is refused over its size cap
    before it is downloaded. ``with_files=False`` (and no card or header) skips the repo's file listing:
    a config-only fetch then needs neither the Hub API's model info nor huggingface_hub's HfApi
    (~0.2 s to import on a fresh server's first page).
    """
    ref = parse_ref(text) if isinstance(text, str) else text
    if ref.local_path is not None:
        return _fetch_local(ref, with_card=with_card, with_header=with_header)
    if ref.repo_id is None:
        raise InputError("nothing to fetch: the reference names neither a repo nor a folder")
    if ref.repo_type != "model":
        raise InputError(f"{ref} is a {ref.repo_type} repo; paste a model repo here (datasets go to the Audit page)")
    repo_id = ref.repo_id
    if ref.filename and ref.filename.rsplit("/", 1)[-1] == "config.json":
        config_name = ref.filename  # .../blob/main/draft/config.json: the model lives in draft/
    else:
        config_name = f"{ref.subfolder.strip('/')}/config.json" if ref.subfolder else "config.json"
    prefix = config_name[: -len("config.json")]

    local_only = settings.hf_offline()
    info = None
    if not local_only and (with_files or with_card or with_header):
        from huggingface_hub.errors import HfHubHTTPError, RepositoryNotFoundError
        from huggingface_hub.errors import RevisionNotFoundError as HfRev

        try:
            info = api_client().model_info(repo_id, revision=ref.revision, token=auth_token())
        except (RepositoryNotFoundError, HfRev) as exc:
            raise map_error(exc, repo_id=repo_id, revision=ref.revision, filename=config_name) from None
        except HfHubHTTPError as exc:
            if exc.response is not None and exc.response.status_code == 401:
                raise map_error(exc, repo_id=repo_id, revision=ref.revision, filename=config_name) from None
            info = None  # a mirror without /api/models: files still resolve
        except Exception as exc:  # noqa: BLE001
            if not is_transport_error(exc):
                raise map_error(exc, repo_id=repo_id, revision=ref.revision, filename=config_name) from None
            local_only = True  # unreachable: the cache may still have it

    # The asked revision (not the sha) so the cache records the branch -> commit ref for offline use later.
    config_path = _download_capped(
        repo_id, config_name, revision=ref.revision, repo_type="model", cap=limits.CONFIG_BYTES, local_only=local_only
    )
    if info is not None:  # the Hub's word: public repos are served offline to any session, others are not
        note_reader(repo_id, public=info.private is False and not info.gated)
    commit = _commit_from_path(config_path) or (info.sha if info is not None else None)
    pinned = commit or ref.revision
    config = _read_config(config_path, f"{config_name} of {_label(repo_id, commit[:7] if commit else ref.revision)}")

    listing: list[str] | None = None  # the repo's files, when the Hub said so
    if info is not None and info.siblings is not None:
        listing = sorted(s.rfilename for s in info.siblings)
    files = listing or []
    if listing is None and local_only and commit is not None:  # offline: what the cache holds
        snapshot = hub_cache_dir() / f"models--{repo_id.replace('/', '--')}" / "snapshots" / commit
        if snapshot.is_dir():
            files = sorted(p.relative_to(snapshot).as_posix() for p in snapshot.rglob("*") if p.is_file())

    card = None
    if with_card and (listing is None or "README.md" in listing):
        try:
            readme = _download_capped(
                repo_id,
                "README.md",
                revision=pinned,
                repo_type="model",
                cap=limits.CONFIG_BYTES,
                local_only=local_only,
            )
            card = limits.read_file_capped(
                readme, f"README.md of {_label(repo_id, pinned)}", limits.CONFIG_BYTES
            ).decode("utf-8", "replace")
        except (EntryNotFoundError, OfflineError):
            card = None

    header = None
    if with_header and not local_only:  # offline: shapes would need the weights' headers, which are not cached
        header = _remote_header(repo_id, pinned, listing, prefix)
    label = f"{repo_id}@{commit[:7]}" if commit else _label(repo_id, ref.revision)
    return FetchedModel(
        ref=ref,
        repo_id=repo_id,
        revision=ref.revision,
        commit_sha=commit,
        config=config,
        card=card,
        safetensors_header=header,
        files=files,
        source_label=label,
    )


# --------------------------------------------------------------------------------------------------
# a few named tensors, without the rest of the checkpoint

_ST_DTYPES = {
    "BF16": "bfloat16",
    "F16": "float16",
    "F32": "float32",
    "F64": "float64",
    "I64": "int64",
    "I32": "int32",
    "I16": "int16",
    "I8": "int8",
    "U8": "uint8",
    "BOOL": "bool",
}
_ST_SIZES = {"BF16": 2, "F16": 2, "F32": 4, "F64": 8, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U8": 1, "BOOL": 1}


def _tensor_from_bytes(raw: bytes, dtype: str, shape: tuple[int, ...], shown: str) -> Any:
    import torch

    name = _ST_DTYPES.get(dtype)
    if name is None:
        raise ConfigError(f"{shown}: safetensors dtype {dtype} is not supported here")
    tdtype = getattr(torch, name)
    count = 1
    for d in shape:
        count *= d
    if len(raw) != count * torch.empty((), dtype=tdtype).element_size():
        raise ConfigError(f"{shown}: got {len(raw):,} bytes for a {dtype} tensor of shape {list(shape)}")
    if not raw:
        return torch.empty(shape, dtype=tdtype)
    return torch.frombuffer(bytearray(raw), dtype=tdtype).reshape(shape).clone()


def _remote_raw_header(url: str, shown: str) -> tuple[dict[str, Any], int]:
    """(header JSON, byte offset of the data section) of a remote safetensors file, by range requests."""
    first, _ = _get_range(url, 0, _FIRST_RANGE, shown)
    if len(first) < 8:
        raise ConfigError(f"{shown} is too small to be a safetensors file")
    (length,) = struct.unpack("<Q", first[:8])
    cap = limits.SAFETENSORS_HEADER_BYTES
    if length > cap.value():
        raise cap.refuse(f"the safetensors header of {shown}", seen=limits.human_bytes(length))
    raw = first[8 : 8 + length] if 8 + length <= len(first) else _get_range(url, 8, 8 + length - 1, shown)[0]
    try:
        header = limits.loads(raw.decode("utf-8"), f"the safetensors header of {shown}")
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ConfigError(f"{shown} does not start with a JSON safetensors header") from None
    if not isinstance(header, dict):
        raise ConfigError(f"{shown} has a safetensors header that is not a JSON object")
    safetensors_entries(header, shown, None)
    return header, 8 + length


def read_tensors(
    text: str | ModelRef, pick: Callable[[list[str]], list[str]], *, max_bytes: int | None = None
) -> tuple[FetchedModel, dict[str, Any]]:
    """Only the tensors ``pick`` chooses from a model's safetensors names, and the model's config.

    Local folders are read lazily with safetensors; Hub models by HTTP range requests of exactly
    those tensors' bytes (the rest of the checkpoint is never downloaded). ``max_bytes`` caps the
    total read.
    """
    model = fetch_model(text, with_card=False, with_header=False)
    out: dict[str, Any] = {}
    total = 0

    def charge(n: int, name: str) -> None:
        nonlocal total
        total += n
        if max_bytes is not None and total > max_bytes:
            raise InputError(
                f"reading {name} would take {limits.human_bytes(total)} from {model.source_label}, over the "
                f"{limits.human_bytes(max_bytes)} allowed for this read"
            )

    if model.ref.local_path is not None:
        from safetensors import safe_open

        folder = model.ref.local_path
        files = sorted(p.name for p in folder.iterdir() if p.is_file())
        targets, index = _safetensors_targets(files, "")
        if index is not None:
            weight_map = _read_config(folder / index, str(folder / index)).get("weight_map") or {}
            targets = sorted(set(weight_map.values()))
        if not targets:
            raise ConfigError(f"{folder} holds no .safetensors weights")
        for name in targets:
            path = folder / name
            header = read_safetensors_header(path)
            wanted = [k for k in pick(sorted(header)) if k in header]
            for k in wanted:
                shape, dtype = header[k]
                size = 1
                for d in shape:
                    size *= d
                charge(size * _ST_SIZES.get(dtype, 8), k)
            if wanted:
                try:
                    with safe_open(str(path), framework="pt") as f:
                        for k in wanted:
                            out[k] = f.get_tensor(k)
                except Exception as exc:  # noqa: BLE001 - safetensors raises several types
                    raise ConfigError(f"cannot read {path.name} as safetensors: {exc}") from None
        return model, out

    from huggingface_hub import hf_hub_url

    assert model.repo_id is not None
    pinned = model.commit_sha or model.revision
    prefix = (model.ref.subfolder.strip("/") + "/") if model.ref.subfolder else ""
    targets, index = (
        _safetensors_targets(model.files, prefix) if model.files else ([f"{prefix}model.safetensors"], None)
    )
    try:
        if index is not None:
            path = _download_capped(
                model.repo_id, index, revision=pinned, repo_type="model", cap=limits.CONFIG_BYTES, local_only=False
            )
            weight_map = _read_config(path, f"{_label(model.repo_id, pinned)}: {index}").get("weight_map") or {}
            targets = sorted({f"{prefix}{name}" for name in weight_map.values()})
        for name in targets:
            url = hf_hub_url(model.repo_id, name, revision=pinned, endpoint=settings.hf_endpoint())
            shown = f"{_label(model.repo_id, pinned)}: {name}"
            header, base = _remote_raw_header(url, shown)
            names = sorted(k for k in header if k != "__metadata__")
            for k in pick(names):
                info = header.get(k)
                if not isinstance(info, dict):
                    continue
                start, end = info.get("data_offsets") or (0, 0)
                charge(end - start, k)
                raw = _get_range(url, base + start, base + end - 1, shown)[0] if end > start else b""
                out[k] = _tensor_from_bytes(raw, info["dtype"], tuple(info["shape"]), f"{shown} {k}")
    except CompareError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise map_error(exc, repo_id=model.repo_id, revision=pinned, filename="safetensors tensors") from None
    return model, out
