"""The Dockerfile's command starts the app and /_stcore/health answers ok.

Docker itself cannot run here, so this runs the image's ENTRYPOINT as a plain process (with a
free port and loopback address) from the repository root, as the image does from /app.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def dockerfile_entrypoint() -> list[str]:
    text = (ROOT / "Dockerfile").read_text()
    match = re.search(r"^ENTRYPOINT\s+(\[.*\])\s*$", text, re.M)
    assert match, "Dockerfile has no exec-form ENTRYPOINT"
    return json.loads(match.group(1))


def wait_healthy(url: str, proc: subprocess.Popen[bytes], deadline_s: float = 90.0) -> str:
    import time

    end = time.monotonic() + deadline_s
    last = ""
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise AssertionError(f"app exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                return resp.read().decode()
        except OSError as exc:
            last = str(exc)
            try:
                proc.wait(timeout=0.25)
            except subprocess.TimeoutExpired:
                pass
    raise AssertionError(f"app not healthy in {deadline_s}s: {last}")


@pytest.fixture()
def app_process(tmp_path: Path):
    port = free_port()
    cmd = dockerfile_entrypoint()
    cmd = [c for c in cmd if not c.startswith(("--server.port", "--server.address"))]
    cmd += [f"--server.port={port}", "--server.address=127.0.0.1"]
    cmd[0:1] = [sys.executable, "-m", "streamlit"]
    env = dict(os.environ, SPECDRAFT_HOME=str(tmp_path / "home"), HF_HUB_OFFLINE="1")
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        yield port, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_dockerfile_command_starts_and_is_healthy(app_process) -> None:
    port, proc = app_process
    assert wait_healthy(f"http://127.0.0.1:{port}/_stcore/health", proc) == "ok"


def test_dockerfile_runs_as_non_root_with_volume() -> None:
    text = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^USER\s+(?!root)\w+", text, re.M)
    assert "HEALTHCHECK" in text and "/_stcore/health" in text
    assert re.search(r"^VOLUME", text, re.M) and "HF_HOME=/data" in text
