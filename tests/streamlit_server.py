"""Run the real app in a subprocess for browser tests, and wait on its health endpoint.

A pytest plugin (tests/conftest.py loads it), so browser tests ask for these fixtures by name:

* ``browser`` (module scope: a running sync Playwright owns the main thread's event loop, so later
  modules that call asyncio.run must not share it): Debian's Chromium driven by Playwright; the test is
  skipped when either is missing.
* ``live_app`` (function scope): a fresh ``streamlit run app.py`` whose Hub is the test's ``hub`` emulator, with its
  own SPECDRAFT_HOME and HF_HOME; yields a :class:`LiveApp` (``url``, ``hub``).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.hub_emulator import HubEmulator

ROOT = Path(__file__).resolve().parents[1]

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


# How often a starting server's /_stcore/health is asked (benchmarks/bench_pages.py times the start with it).
POLL_S = 0.02


def chromium_path() -> str | None:
    """Debian's chromium (Playwright cannot download its own browser here)."""
    import shutil

    return os.environ.get("SPECDRAFT_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running_app(env: Mapping[str, str], deadline_s: float = 90.0, port: int | None = None) -> Iterator[str]:
    """Start ``streamlit run app.py`` on a loopback port (a free one unless given); yield its base URL."""
    with running_server(env, deadline_s=deadline_s, port=port) as (url, _pid):
        yield url


@contextmanager
def running_server(
    env: Mapping[str, str], extra_args: Sequence[str] = (), deadline_s: float = 90.0, port: int | None = None
) -> Iterator[tuple[str, int]]:
    """``running_app`` with more command-line options; yields (base URL, server pid)."""
    import time

    port = port or free_port()
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        f"--server.port={port}",
        "--server.address=127.0.0.1",
        "--server.headless=true",
        "--browser.gatherUsageStats=false",
        *extra_args,
    ]
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    try:
        end = time.monotonic() + deadline_s
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with {proc.returncode}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                    if resp.read() == b"ok":
                        break
            except OSError:
                if time.monotonic() > end:
                    raise RuntimeError("streamlit did not become healthy") from None
                try:  # a refused connection fails at once: a fine step costs little, and bench_pages times it
                    proc.wait(timeout=POLL_S)
                except subprocess.TimeoutExpired:
                    pass
        yield url, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def wait_for_script(page, timeout_ms: int = 60_000) -> None:
    """Wait until the app's script run finished (Streamlit's own e2e convention), not a sleep."""
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=timeout_ms)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """One headless Chromium per test module; each test opens its own pages (or contexts)."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    path = chromium_path()
    if not path:
        pytest.skip("Debian's chromium is not installed (tests/run.sh installs it)")
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@dataclass(frozen=True)
class LiveApp:
    url: str
    hub: HubEmulator


@pytest.fixture()
def live_app(hub: HubEmulator, tmp_path: Path) -> Iterator[LiveApp]:
    """A fresh app server (no session has run on it yet) reading drafts from the ``hub`` emulator."""
    env = {"HF_ENDPOINT": hub.url, "SPECDRAFT_HOME": str(tmp_path / "home"), "HF_HOME": str(tmp_path / "hf")}
    with running_app(env) as url:
        yield LiveApp(url=url, hub=hub)
