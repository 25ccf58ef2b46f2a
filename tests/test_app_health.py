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


SERVING_CHECK = """
import asyncio, sys, threading
import app
assert "pandas" not in sys.modules and "sqlalchemy" not in sys.modules

async def start():  # what uvicorn does with the st.App's lifespan when `streamlit run app.py` starts
    async with app._serving(app.server):
        started = [t for t in threading.enumerate() if t.name == "specdraft-warm-up"]
        assert len(started) == 1, started  # in the background: the server answers meanwhile
        return started[0]

asyncio.run(start()).join(120)
from comparelib.models import comparison
for mod in ("pandas", "sqlalchemy", "huggingface_hub.hf_api", "comparelib.analysis.overview"):
    assert mod in sys.modules, mod
assert comparison._known_target_counted.cache_info().currsize >= 1  # the reference's target, counted
assert "altair" not in sys.modules  # the other pages' libraries wait until a page has run
app.warm_up()  # the end of the first script run: the rest, in a second thread
rest = [t for t in threading.enumerate() if t.name == "specdraft-warm-up"]
assert len(rest) == 1, rest
rest[0].join(120)
assert "altair" in sys.modules
print("ok")
"""


def test_streamlit_run_serves_the_st_app_whose_start_loads_the_first_pages_libraries() -> None:
    """`streamlit run app.py` finds app.server (an st.App, by Streamlit's own discovery); its lifespan loads
    what Overview needs while the first browser is still loading Streamlit's frontend."""
    from streamlit.web.server.app_discovery import discover_asgi_app

    found = discover_asgi_app(ROOT / "app.py")
    assert found.is_asgi_app and found.import_string == "app:server", found
    out = subprocess.run(
        [sys.executable, "-c", SERVING_CHECK], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-2000:]


def test_streamlits_one_time_direct_run_check_is_still_the_flag_the_router_sets() -> None:
    """The router marks Streamlit's one-time "use streamlit run" check as done: its inspect.stack() walk cost
    0.46 s of the first page's run. A Streamlit that renamed the flag would bring the cost back silently."""
    from streamlit import delta_generator

    assert isinstance(delta_generator._use_warning_has_been_displayed, bool)
    assert "_use_warning_has_been_displayed" in delta_generator._maybe_print_use_warning.__code__.co_names
