"""How long a warm rerun of a page's script takes (Streamlit's AppTest, no browser): the server-side
part of "every page warm in < 1 s", where caching what a page recomputes shows.

Each page runs once (cold: imports, caches filled), then ``--reruns`` more times with the same inputs;
the median of those is the figure. The database holds ``--runs`` stored runs, seeded as
bench_pages.py seeds it, and the example draft's run group is the seeded sweep.

The reference, measured in the same run: a bare page (a title and one line) rerun the same way.

    python benchmarks/bench_rerun.py              # a table
    python benchmarks/bench_rerun.py --json       # one JSON object
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"

PAGES = ["scaling", "bench", "compare", "audit"]
BARE = 'import streamlit as st\nst.title("Hello")\nst.write("A bare page: the reference.")\n'


def _timed(at: Any, reruns: int) -> dict[str, float]:
    start = time.perf_counter()
    at.run()
    cold = time.perf_counter() - start
    if at.exception:
        raise SystemExit(f"the page failed: {at.exception}")
    warm = []
    for _ in range(reruns):
        start = time.perf_counter()
        at.run()
        warm.append(time.perf_counter() - start)
    return {"cold_s": round(cold, 3), "warm_s": round(statistics.median(warm), 3)}


def measure(runs: int, reruns: int) -> dict[str, Any]:
    from streamlit.testing.v1 import AppTest

    from benchmarks.bench_pages import GROUP, seed
    from tests.fixtures import page_app

    tmp = Path(tempfile.mkdtemp(prefix="bench-rerun-"))
    db = f"sqlite:///{tmp / 'runs.db'}"
    os.environ.update({"SPECDRAFT_HOME": str(tmp / "home"), "HF_HOME": str(tmp / "hf"), "SPECDRAFT_DB": db})
    os.environ.pop("HF_TOKEN", None)
    seed(db, runs)

    bare = tmp / "bare.py"
    bare.write_text(BARE, encoding="utf-8")
    ref = _timed(AppTest.from_file(str(bare), default_timeout=120), reruns)
    out: dict[str, Any] = {"runs": runs, "reruns": reruns, "reference": ref, "pages": []}
    for name in PAGES:
        at = page_app(ROOT / "pages" / f"{name}.py", timeout=120)  # as the router runs it
        at.query_params["draft"] = "example"
        at.query_params["draft_group"] = GROUP
        row = _timed(at, reruns)
        row["page"] = name
        row["warm_ratio"] = round(row["warm_s"] / ref["warm_s"], 1)
        out["pages"].append(row)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=100, help="runs in the seeded database (default 100)")
    p.add_argument("--reruns", type=int, default=7, help="warm reruns per page (median; default 7)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    out = measure(args.runs, args.reruns)
    if args.json:
        print(json.dumps(out))
        return 0
    ref = out["reference"]
    print(f"reference (bare page): warm rerun {ref['warm_s'] * 1000:.0f} ms")
    print(f"{'page':<10} {'cold s':>7} {'warm ms':>8} {'x ref':>6}")
    for r in out["pages"]:
        print(f"{r['page']:<10} {r['cold_s']:>7.2f} {r['warm_s'] * 1000:>8.0f} {r['warm_ratio']:>6.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
