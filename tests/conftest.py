"""Shared test set-up: every test gets its own Hub cache, app home and no token.

Fixture modules for the Hub emulator, the fake inference servers and the live app + browser are
plugins, so any test module can ask for their fixtures by name (``hub``, ``fake_server``, ``browser``,
``live_app``) without importing them. Plain shared data and builders live in tests/fixtures.py.
"""

from __future__ import annotations

import os

# Before anything imports huggingface_hub: it reads these once, at import.
os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"
os.environ.pop("HF_ENDPOINT", None)

import pytest  # noqa: E402

pytest_plugins: list[str] = ["tests.hub_emulator", "tests.streamlit_server", "tests.fake_inference"]


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HF_HOME", str(home / "hf"))
    monkeypatch.setenv("HF_HUB_CACHE", str(home / "hf" / "hub"))
    monkeypatch.setenv("SPECDRAFT_HOME", str(home / "specdraft"))
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    for name in (
        "HF_TOKEN",
        "HUGGING_FACE_HUB_TOKEN",
        "HF_HUB_OFFLINE",
        "TRANSFORMERS_OFFLINE",
        "SPECDRAFT_DB",
    ):
        monkeypatch.delenv(name, raising=False)
    # a Hub call no test planned (one without the ``hub`` fixture) is refused at once on any machine, never sent to
    # huggingface.co nor left to a network's timeout; the ``hub`` fixture points it at its emulator
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
