"""Settings read from the environment in one place.

Functions, not module constants, because tests (and the app's sidebar) change the environment
after import; huggingface_hub itself freezes HF_ENDPOINT at import, so we pass ours explicitly.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

DEFAULT_ENDPOINT = "https://huggingface.co"


def _is_true(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "on", "yes", "true", "y"}


def hf_endpoint() -> str:
    """The Hub base URL (HF_ENDPOINT for mirrors and the test emulator)."""
    return (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


def hf_offline() -> bool:
    return _is_true(os.environ.get("HF_HUB_OFFLINE")) or _is_true(os.environ.get("TRANSFORMERS_OFFLINE"))


# A token given for one app session (typed on the page): it lives in this context only, so two
# sessions of one server never see each other's, and nothing writes it to disk, logs or URLs.
_SESSION_TOKEN: ContextVar[str | None] = ContextVar("specdraft_session_token", default=None)
MAX_TOKEN_CHARS = 512


def hf_token() -> str | None:
    """The session's token if one was given (``session_token``), else HF_TOKEN; never log or show it."""
    session = _SESSION_TOKEN.get()
    if session:
        return session
    token = os.environ.get("HF_TOKEN") or os.environ.get("HUGGING_FACE_HUB_TOKEN")
    return token or None


def check_token(token: str | None) -> str:
    """A typed token, stripped ("" for none); ``InputError`` unless it is one word of at most 512 characters.

    The sidebar checks it once, so a malformed token is said there and not used, instead of failing every row.
    """
    token = (token or "").strip()
    if len(token) > MAX_TOKEN_CHARS or any(ch.isspace() or not ch.isprintable() for ch in token):
        from comparelib.errors import InputError

        raise InputError("that does not look like a Hub access token (one word, at most 512 characters)")
    return token


@contextmanager
def session_token(token: str | None) -> Iterator[None]:
    """Use ``token`` for Hub calls made inside the block (this thread/context only).

    An empty token leaves HF_TOKEN in charge. The value is never stored anywhere else.
    """
    token = check_token(token)
    reset = _SESSION_TOKEN.set(token or None)
    try:
        yield
    finally:
        _SESSION_TOKEN.reset(reset)


def token_fingerprint(token: str | None = None) -> str:
    """A short one-way tag of the token in use, for cache keys (results fetched with one token are not
    served to a session without it); never the token itself."""
    value = token if token is not None else (hf_token() or "")
    if not value:
        return ""
    return hashlib.sha256(b"specdraft:" + value.encode()).hexdigest()[:16]


def home() -> Path:
    """Where the app keeps its own files (results database)."""
    base = os.environ.get("SPECDRAFT_HOME") or os.path.join(
        os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share"), "specdraft"
    )
    return Path(base)


def database_url() -> str:
    """SQLAlchemy URL of the results store: SPECDRAFT_DB, else a SQLite file under home()."""
    url = os.environ.get("SPECDRAFT_DB")
    if url:
        return url
    return f"sqlite:///{home() / 'results.sqlite'}"


def data_root() -> Path | None:
    """SPECDRAFT_DATA_ROOT: the one folder server-side paths may point into (None: any path, single user)."""
    raw = (os.environ.get("SPECDRAFT_DATA_ROOT") or "").strip()
    return Path(raw).expanduser() if raw else None


BUILTIN_DIR = Path(__file__).parent / "builtin"
"""What ships with the package: the published-draft registry, target configs, prompts, the example."""


# --- live benchmarks on a shared server (comparelib/live/endpoints.py) ----------------------------------


def bench_allow() -> str | None:
    """SPECDRAFT_BENCH_ALLOW as set (None when unset: no endpoint policy, a local single user)."""
    return os.environ.get("SPECDRAFT_BENCH_ALLOW")


def _env_number(name: str, kind: type, default: float | int | None = None) -> float | int | None:
    from comparelib.errors import InputError

    text = (os.environ.get(name) or "").strip()
    if not text:
        return default
    try:
        value = kind(text)
    except ValueError:
        raise InputError(
            f"{name}={text!r} is not a number; set it to a positive {kind.__name__} or unset it"
        ) from None
    if not value > 0:
        raise InputError(f"{name}={text!r} must be positive; unset it for no cap")
    return value


def bench_limits() -> dict[str, float | int | None]:
    """Benchmark caps from the environment (None: no cap), keyed like endpoints.BenchLimits.

    The two byte caps (SPECDRAFT_BENCH_MAX_BODY_BYTES / _CHUNK_BYTES) are ``limits`` caps, read there.
    """
    return {
        "max_concurrency": _env_number("SPECDRAFT_BENCH_MAX_CONCURRENCY", int),
        "max_requests": _env_number("SPECDRAFT_BENCH_MAX_REQUESTS", int),
        "max_seconds": _env_number("SPECDRAFT_BENCH_MAX_SECONDS", float),
        "session_requests": _env_number("SPECDRAFT_BENCH_SESSION_REQUESTS", int),
        "session_seconds": _env_number("SPECDRAFT_BENCH_SESSION_SECONDS", float),
        "max_runs": _env_number("SPECDRAFT_BENCH_MAX_RUNS", int),
    }


def require_login() -> bool:
    """SPECDRAFT_REQUIRE_LOGIN: the app shows a sign-in button instead of its pages until st.login succeeds."""
    return _is_true(os.environ.get("SPECDRAFT_REQUIRE_LOGIN"))
