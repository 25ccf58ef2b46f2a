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


# Runs Overview (the first page) through app.py in AppTest, in a fresh interpreter, and notes which modules are
# loaded at the moment the sidebar's draft field is drawn: a spy that calls through to Streamlit's text_input.
FIELD_CHECK = """
import sys
import streamlit as st
from streamlit.testing.v1 import AppTest

WATCH = ("pandas", "numpy", "PIL", "sqlalchemy", "altair", "torch", "datasets", "huggingface_hub.hf_api",
         "comparelib.models.comparison", "comparelib.live.store")
loaded = {}
draw = st.text_input

def text_input(label, *args, **kwargs):
    if label.startswith("Draft:") and not loaded:
        loaded.update({m: m in sys.modules for m in WATCH})
    return draw(label, *args, **kwargs)

st.text_input = text_input
answered = {}
write = st.markdown

def markdown(body, *args, **kwargs):
    if "Size outside the embedding" in str(body) and not answered:  # Overview's answer, its first figure
        answered.update({m: m in sys.modules for m in WATCH})
    return write(body, *args, **kwargs)

st.markdown = markdown
at = AppTest.from_file("app.py", default_timeout=120)
at.run()
assert not at.exception, at.exception
assert loaded, "no draft field was drawn"
early = sorted(m for m, on in loaded.items() if on)
assert not early, f"loaded before the draft field: {early}"
assert answered, "no answer was drawn"
early = sorted(m for m in ("pandas", "numpy", "altair", "torch", "datasets") if answered[m])
assert not early, f"loaded before the answer: {early}"
assert at.title[0].value == "Overview" and at.sidebar.text_input[0].label.startswith("Draft:")
assert "sqlalchemy" in sys.modules and "pandas" in sys.modules  # the page did go on to read the DB and answer
print("ok")
"""


def test_the_draft_field_and_the_answer_come_before_the_page_loads_its_libraries(tmp_path) -> None:
    """On a fresh server's first page, the sidebar's draft field is sent before SQLAlchemy (the results
    database), comparison (architectures, lint, engine rules), pandas, or numpy and PIL (the page icon) load:
    the browser fetches the field's widget code while they load, and the page is usable ~0.7 s sooner. The
    answer is computed and drawn before pandas loads (~0.4 s), which the rest of the page needs.
    Every page draws its heading and the sidebar before its own imports."""
    env = dict(os.environ, SPECDRAFT_HOME=str(tmp_path / "home"), HF_HUB_OFFLINE="1")
    out = subprocess.run(
        [sys.executable, "-c", FIELD_CHECK],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stdout[-1000:] + out.stderr[-2000:]
    for page in sorted((ROOT / "pages").glob("*.py")):
        text = page.read_text()
        first_import = text.index("\nfrom comparelib")
        assert text.index("st.title(") < first_import, page.name
        if "own_draft()  #" in text:
            assert text.index("app.own_draft()") < first_import, page.name


WARM_CHECK = """
import sys, threading
import app
from comparelib.models import comparison
assert "altair" not in sys.modules  # nothing heavy before the first page has run
for _ in range(3):  # every script run calls it; only the first starts the thread
    app.warm_up()
started = [t for t in threading.enumerate() if t.name == "specdraft-warm-up"]
assert len(started) == 1, started
started[0].join(120)
assert "altair" in sys.modules and "comparelib.charts" in sys.modules
for hub_id in ("AQ-MedAI/Kimi-K2-Instruct-eagle3", "AQ-MedAI/Kimi-K25-eagle3"):  # counts from the warmed targets
    entry = comparison.load_entry(comparison.registry_source(hub_id))
    assert entry.target_count is not None and entry.target_count.total > 10**12
app.warm_up()
assert [t for t in threading.enumerate() if t.name == "specdraft-warm-up"] == []
print("ok")
"""


def test_warm_up_starts_once_per_server_and_loads_what_other_pages_need() -> None:
    """app.warm_up (called at the end of every script run) starts one background thread per server."""
    out = subprocess.run(
        [sys.executable, "-c", WARM_CHECK], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-2000:]
