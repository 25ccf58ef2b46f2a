"""How fast each page settles in Chromium: cold (first visit after ``streamlit run``), warm (the sidebar
link, the page's first visit in a browser session on a server that has run it) and revisit (the same
session comes back to it), with the user's own draft (served by the local Hub emulator) and a results
database of 100 runs.

The reference, measured in the same run on the same machine: a bare Streamlit page (a title and one
line, the ``hello`` app's weight) served by its own ``streamlit run``. Ratios are page / reference,
so a slow or busy machine moves both. The first page is timed from ``streamlit run``: the server's
start (until /_stcore/health answers) plus Overview's cold visit, at four moments: its heading on screen,
the sidebar's draft field there to type in, its answer (the first figure) on screen, and settled. The
bare page's floor is the same sum for the reference; the draft field's floor is a bare page with one text
field under its heading (its widget code is fetched on first use, as the app's is), until that field is on
screen. The first page and the bare page's floor are measured twice: in a fresh browser
(nothing cached) and in a returning one (the same browser, the same address, after an earlier start of
the same server: the usual case of a user who restarts ``streamlit run`` and reloads the tab, with
Streamlit's own files in the browser's cache).

A page is settled when its heading is shown, its script has finished, and the browser has gone idle
with no new file requested: the widget code a page loads on demand, its grids and its charts are drawn
and counted for this page, not for the next one. In the warm passes each click waits (untimed) until
the browser has also finished what the page before it started while idle, as it does while a user reads.

    python benchmarks/bench_pages.py            # a table
    python benchmarks/bench_pages.py --json     # one JSON object
    python benchmarks/bench_pages.py --runs 100 --repeats 3

Needs Playwright and Debian's chromium (tests/run.sh installs both), like the browser tests.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"

from tests.fixtures import aq_config, aq_tensors  # noqa: E402
from tests.hub_emulator import HubEmulator  # noqa: E402
from tests.streamlit_server import CHROMIUM_ARGS, POLL_S, chromium_path, running_app, wait_for_script  # noqa: E402

# (url path, the page's heading)
PAGES = [
    ("", "Overview"),
    ("compare", "Compare drafts"),
    ("audit", "Dataset audit"),
    ("bench", "Live benchmark"),
    ("scaling", "Acceptance vs data"),
]
NAV = {"": "Overview", "compare": "Compare drafts", "audit": "Dataset audit", "bench": "Live benchmark"}
NAV["scaling"] = "Acceptance vs data"
GROUP = "bench-sweep"
ANSWER = "Size outside the embedding"  # Overview's answer, the first page's (its first figure)
DRAFT_FIELD = "Draft: Hub URL, org/name, folder or registry:org/name"  # the sidebar's field: the page is usable
VIEW = {"width": 1400, "height": 1000}
BARE = 'import streamlit as st\nst.title("Hello")\nst.write("A bare page: the reference.")\n'
# The least a usable page can be: a heading and one text field, whose widget code is fetched on first use as the
# app's is. Its field on screen after `streamlit run` is the floor for the draft field. Under the heading, not
# in the sidebar: a bare page's sidebar opens with its first element, and that slide would count too.
BARE_FIELD = BARE + 'st.text_input("Draft")\n'


def seed(db_url: str, runs: int) -> None:
    """``runs`` stored runs: a sweep group of the user's (spec at 1..4 steps and a baseline), the rest spread
    over other groups and engines, as a team's database grows."""
    from comparelib.live.store import Store

    store = Store(db_url)
    store.ensure_examples()
    start = datetime.now(UTC) - timedelta(days=30)
    for i in range(runs):
        group = GROUP if i < 10 else f"team-{i % 9}"
        engine = "vllm" if i % 3 == 2 else "sglang"
        steps = None if i % 5 == 0 else 1 + i % 4
        cfg = {
            "engine": engine,
            "model": "acme/target",
            "speculative_algorithm": "EAGLE3" if steps else None,
            "num_steps": steps,
            "num_draft_tokens": steps + 1 if steps else None,
        }
        rid = store.start_run(
            endpoint="http://127.0.0.1:30000",
            server_config=cfg,
            group=group,
            params={"concurrency": 8, "max_tokens": 256},
            created_at=start + timedelta(hours=i),
        )
        tok = 300.0 if not steps else 300.0 * (1 + 0.35 * steps - 0.04 * steps * steps)
        acc = None if not steps else 1 + 0.7 * steps - 0.05 * steps * steps
        store.finish_run(rid, {"requests": 64, "errors": 0, "output_tokens_per_s": tok, "accept_length": acc})
    store.save_data_volume(draft="acme/kimi-draft", samples=120_000, tokens=90_000_000, source="audit")


# Two animation frames, then idle callbacks 50 ms apart until one finds no file requested since the last:
# code loaded on demand (grids, charts) and its drawing are done. The modules app.prefetch_browser_code
# asks for while the browser is idle (window.__specdraftPrefetch) are for other pages: not counted.
IDLE = """() => new Promise((done) => {
  let last = -1;
  const tick = () => {
    const ahead = new Set(window.__specdraftPrefetch || []);
    const n = performance.getEntriesByType("resource").filter((e) => !ahead.has(e.name.split("/").pop())).length;
    if (n === last) { done(); return; }
    last = n;
    requestIdleCallback(() => setTimeout(tick, 50));
  };
  requestAnimationFrame(() => requestAnimationFrame(tick));
})"""


# The same wait with every file counted: before a timed click, what the last page started while idle is done.
# The app's prefetch starts a second after its page; wait for it to end first.
QUIET = IDLE.replace("const ahead = new Set(window.__specdraftPrefetch || []);", "const ahead = new Set();").replace(
    "requestAnimationFrame(() => requestAnimationFrame(tick));",
    "const wait = () => (window.__specdraftPrefetch && !window.__specdraftPrefetched ? setTimeout(wait, 50) : tick());"
    " requestAnimationFrame(() => requestAnimationFrame(wait));",
)


def settle(page: Any, heading: str, timeout_ms: int = 120_000) -> None:
    """The page's heading is shown, its script has finished, and the browser is idle with nothing left to
    load: what the page draws after its script (lazily loaded widget code, grids, charts) counts for it."""
    page.get_by_role("heading", name=heading, exact=True).first.wait_for(timeout=timeout_ms)
    wait_for_script(page, timeout_ms)
    page.evaluate(IDLE)


def measure(runs: int, repeats: int) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    path = chromium_path()
    if not path:
        raise SystemExit("Debian's chromium is not installed (tests/run.sh installs it)")
    tmp = Path(tempfile.mkdtemp(prefix="bench-pages-"))
    hub = HubEmulator().start()
    try:
        hub.add_model("acme/kimi-draft", aq_config(), tensors=aq_tensors())
        db = f"sqlite:///{tmp / 'runs.db'}"
        seed(db, runs)
        env = {
            "HF_ENDPOINT": hub.url,
            "SPECDRAFT_HOME": str(tmp / "home"),
            "HF_HOME": str(tmp / "hf"),
            "SPECDRAFT_DB": db,
        }
        query = urlencode(
            {"draft": f"{hub.url}/acme/kimi-draft", "draft_vol": "acme/kimi-draft", "draft_group": GROUP}
        )
        bare = tmp / "bare.py"
        bare.write_text(BARE, encoding="utf-8")
        (tmp / "bare_field.py").write_text(BARE_FIELD, encoding="utf-8")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)
            try:
                return _measure(browser, env, query, bare, repeats)
            finally:
                browser.close()
    finally:
        hub.stop()


def _serve(env: dict[str, str], script: Path | None = None, port: int | None = None) -> Any:
    """running_app for app.py, or for a bare script (the reference), on ``port`` (else a free one)."""
    if script is None:
        return running_app(env, port=port)
    import contextlib
    import subprocess

    from tests.streamlit_server import free_port

    @contextlib.contextmanager
    def bare() -> Any:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(script), f"--server.port={bare_port}",
             "--server.address=127.0.0.1", "--server.headless=true", "--browser.gatherUsageStats=false"],
            cwd=script.parent, env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        url = f"http://127.0.0.1:{bare_port}"
        try:
            for _ in range(int(40 / POLL_S)):
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                        if r.read() == b"ok":
                            break
                except OSError:
                    time.sleep(POLL_S)  # as running_app asks: both starts are timed to the same step
            yield url
        finally:
            proc.terminate()
            proc.wait(timeout=10)

    bare_port = port or free_port()
    return bare()


def _first_visit(
    browser_or_context: Any, url: str, heading: str, answer: str | None = None
) -> tuple[float, float, float, float]:
    """(heading on screen, the draft field usable, answer on screen, settled) seconds for one visit in a new
    page; with no answer to wait for (the reference), the first three are 0."""
    page = browser_or_context.new_page(**({"viewport": VIEW} if hasattr(browser_or_context, "new_context") else {}))
    try:
        t = time.perf_counter()
        page.goto(url)
        titled = usable = shown = 0.0
        if answer:
            page.get_by_role("heading", name=heading).first.wait_for(timeout=120_000)
            titled = time.perf_counter() - t
            field = page.get_by_label(DRAFT_FIELD).first
            field.wait_for(timeout=120_000)
            usable = time.perf_counter() - t
            page.get_by_text(answer, exact=False).first.wait_for(timeout=120_000)
            shown = time.perf_counter() - t
        settle(page, heading)
        return titled, usable, shown, time.perf_counter() - t
    finally:
        page.close()


def _measure(browser: Any, env: dict[str, str], query: str, bare: Path, repeats: int) -> dict[str, Any]:
    from tests.streamlit_server import free_port

    ref_cold: list[float] = []
    ref_warm: list[float] = []
    ref_healthy: list[float] = []
    ref_back: list[float] = []  # the bare page in a returning browser: healthy + cold visit
    ref_field: list[float] = []  # a bare page with one sidebar field: healthy + the field on screen
    for _ in range(repeats):
        port = free_port()
        context = browser.new_context(viewport=VIEW)  # the returning browser: its cache outlives the first server
        try:
            t0 = time.perf_counter()
            with _serve(env, bare, port) as url:
                ref_healthy.append(time.perf_counter() - t0)
                page = context.new_page()
                t = time.perf_counter()
                page.goto(url)
                settle(page, "Hello")
                ref_cold.append(time.perf_counter() - t)
                t = time.perf_counter()
                page.reload()
                settle(page, "Hello")
                ref_warm.append(time.perf_counter() - t)
                page.close()
            t0 = time.perf_counter()
            with _serve(env, bare, port) as url:
                healthy = time.perf_counter() - t0
                ref_back.append(healthy + _first_visit(context, url, "Hello")[3])
            t0 = time.perf_counter()
            with _serve(env, bare.with_name("bare_field.py"), port) as url:
                healthy = time.perf_counter() - t0
                page = browser.new_page(viewport=VIEW)  # a fresh browser, as the first page's own figure
                try:
                    t = time.perf_counter()
                    page.goto(url)
                    page.get_by_label("Draft").first.wait_for(timeout=120_000)
                    ref_field.append(healthy + time.perf_counter() - t)
                finally:
                    page.close()
        finally:
            context.close()
    cold: dict[str, list[float]] = {p: [] for p, _ in PAGES}
    warm: dict[str, list[float]] = {p: [] for p, _ in PAGES}
    revisit: dict[str, list[float]] = {p: [] for p, _ in PAGES}
    healthy_s: list[float] = []
    first_page: list[float] = []
    first_answer: list[float] = []
    first_heading: list[float] = []
    first_usable: list[float] = []
    back_page: list[float] = []
    back_answer: list[float] = []
    for _ in range(repeats):
        port = free_port()
        context = browser.new_context(viewport=VIEW)
        try:
            t0 = time.perf_counter()
            with _serve(env, port=port) as url:
                healthy = time.perf_counter() - t0
                healthy_s.append(healthy)
                for i, (path, heading) in enumerate(PAGES):  # cold: each page's first visit, a fresh browser each
                    answer = ANSWER if i == 0 else None
                    titled, usable, shown, settled = _first_visit(browser, f"{url}/{path}?{query}", heading, answer)
                    cold[path].append(settled)
                    if i == 0:  # its heading, the draft field, the answer on screen (its size line), settled
                        first_heading.append(healthy + titled)
                        first_usable.append(healthy + usable)
                        first_answer.append(healthy + shown)
                        first_page.append(healthy + settled)
                page = context.new_page()
                page.goto(f"{url}/?{query}")
                settle(page, "Overview")
                # warm: the sidebar link, in one session, on a server that has run every page. The first pass is
                # each page's first visit in this browser session; the second comes back to pages already seen,
                # as a user going back and forth does. Each click waits until the browser has finished what
                # the page before it did while idle (as a user reading it lets it), untimed.
                for figures in (warm, revisit):
                    for path, heading in [*PAGES[1:], PAGES[0]]:
                        link = page.get_by_test_id("stSidebarNav").get_by_text(NAV[path], exact=True)
                        page.evaluate(QUIET)  # a reader's pause: the click comes on a quiet browser
                        t = time.perf_counter()
                        link.click()
                        settle(page, heading)
                        figures[path].append(time.perf_counter() - t)
                page.close()
            t0 = time.perf_counter()  # the same server started again, the same browser comes back
            with _serve(env, port=port) as url:
                healthy = time.perf_counter() - t0
                _, _, shown, settled = _first_visit(context, f"{url}/?{query}", "Overview", ANSWER)
                back_answer.append(healthy + shown)
                back_page.append(healthy + settled)
        finally:
            context.close()
    med = statistics.median
    ref_c, ref_w = med(ref_cold), med(ref_warm)
    rows = [
        {
            "page": NAV[path],
            "cold_s": round(med(cold[path]), 2),
            "warm_s": round(med(warm[path]), 2),
            "cold_ratio": round(med(cold[path]) / ref_c, 1),
            "warm_ratio": round(med(warm[path]) / ref_w, 1),
            "revisit_s": round(med(revisit[path]), 2),
            "revisit_ratio": round(med(revisit[path]) / ref_w, 1),
        }
        for path, _ in PAGES
    ]
    return {
        "reference": {
            "page": "bare Streamlit page",
            "cold_s": round(ref_c, 2),
            "warm_s": round(ref_w, 2),
            "floor_s": round(med(ref_healthy) + ref_c, 2),
            "floor_returning_s": round(med(ref_back), 2),
            "floor_field_s": round(med(ref_field), 2),
        },
        "server_healthy_after_start_s": round(med(healthy_s), 2),
        "first_page_after_start_s": round(med(first_page), 2),
        "first_heading_after_start_s": round(med(first_heading), 2),
        "first_draft_field_after_start_s": round(med(first_usable), 2),
        "first_answer_after_start_s": round(med(first_answer), 2),
        "first_page_returning_s": round(med(back_page), 2),
        "first_answer_returning_s": round(med(back_answer), 2),
        "pages": rows,
        "repeats": repeats,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=100, help="runs in the seeded database (default 100)")
    p.add_argument("--repeats", type=int, default=1, help="fresh servers per figure (median; default 1)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    out = measure(args.runs, args.repeats)
    if args.json:
        print(json.dumps(out))
        return 0
    ref = out["reference"]
    print(f"reference (bare Streamlit page): cold {ref['cold_s']:.2f} s, warm {ref['warm_s']:.2f} s")
    print(f"server answers /_stcore/health after `streamlit run`: {out['server_healthy_after_start_s']:.2f} s")
    print(
        f"first page after `streamlit run`, fresh browser: heading {out['first_heading_after_start_s']:.2f} s, "
        f"draft field {out['first_draft_field_after_start_s']:.2f} s, "
        f"answer {out['first_answer_after_start_s']:.2f} s, settled {out['first_page_after_start_s']:.2f} s "
        f"(a bare page's floor: {ref['floor_s']:.2f} s; with one text field, that field: "
        f"{ref['floor_field_s']:.2f} s)"
    )
    print(
        f"first page after `streamlit run`, returning browser: answer {out['first_answer_returning_s']:.2f} s,"
        f" settled {out['first_page_returning_s']:.2f} s (a bare page's floor: {ref['floor_returning_s']:.2f} s)"
    )
    print("cold: first visit after start; warm: first visit in a session; revisit: that session comes back")
    print(f"{'page':<20} {'cold s':>7} {'x ref':>6} {'warm s':>7} {'x ref':>6} {'revisit s':>9} {'x ref':>6}")
    for r in out["pages"]:
        print(
            f"{r['page']:<20} {r['cold_s']:>7.2f} {r['cold_ratio']:>6.1f} {r['warm_s']:>7.2f} {r['warm_ratio']:>6.1f}"
            f" {r['revisit_s']:>9.2f} {r['revisit_ratio']:>6.1f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
