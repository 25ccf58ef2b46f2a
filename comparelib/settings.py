"""Settings read from the environment in one place.

Functions, not module constants, because tests (and the app's sidebar) change the environment
after import; huggingface_hub itself freezes HF_ENDPOINT at import, so we pass ours explicitly.
"""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_ENDPOINT = "https://huggingface.co"


def _is_true(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "on", "yes", "true", "y"}


def hf_endpoint() -> str:
    """The Hub base URL (HF_ENDPOINT for mirrors and the test emulator)."""
    return (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


def hf_offline() -> bool:
    return _is_true(os.environ.get("HF_HUB_OFFLINE")) or _is_true(os.environ.get("TRANSFORMERS_OFFLINE"))


def hf_token() -> str | None:
    """HF_TOKEN if set; never log or display the value."""
    token = os.environ.get("HF_TOKEN") or os.environ.get("HUGGING_FACE_HUB_TOKEN")
    return token or None


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


DATA_DIR = Path(__file__).parent / "data"
