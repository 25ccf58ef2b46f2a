"""How long does choosing a group's comparable sweep take, against the fit it feeds?

``speedup.model_from_runs`` first picks the runs one model may be fitted to (``speedup.sweep_of``: one engine,
draft and setting, with its baseline), then fits them. Choosing compared every pair of runs for every candidate
anchor, so a 100-run group took seconds on every Overview, Live benchmark and Acceptance vs data rerun; it now
compares the group's distinct settings. Prints, for groups of 25, 100 and 400 runs (one setting, and four:
two engines x two max_tokens), the median time of ``model_from_runs`` and of the reference measured in the same
run: ``fit_sweep`` on the chosen runs' points alone (what the fit costs without the choice). The ratio is the
choice's overhead; ``--json`` prints one object.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from comparelib.analysis import speedup  # noqa: E402 - after the path is set
from comparelib.live.store import RunRecord  # noqa: E402
from tests.fixtures import stored_run  # noqa: E402

AL = {1: 1.7, 2: 2.2, 3: 2.6, 4: 2.9, 5: 3.1}


def _run(i: int, steps: int | None, engine: str, max_tokens: int, rng: random.Random) -> RunRecord:
    al = AL[steps] if steps else None
    tok_s = 4 * (al or 1.0) / (10.0 + (steps or 0) * 1.5) * 1000.0 * rng.uniform(0.97, 1.03)
    return stored_run(i, steps, tok_s, al, engine=engine, max_tokens=max_tokens)


def group(n: int, settings: int, seed: int = 0) -> list[RunRecord]:
    """``n`` runs: a baseline per setting, the rest speculative at 1..5 steps spread over the settings."""
    rng = random.Random(seed)
    combos = [("sglang", 64), ("vllm", 64), ("sglang", 32), ("vllm", 32)][:settings]
    runs = [_run(i + 1, None, e, m, rng) for i, (e, m) in enumerate(combos)]
    for i in range(len(runs) + 1, n + 1):
        engine, max_tokens = combos[i % len(combos)]
        runs.append(_run(i, 1 + i % 5, engine, max_tokens, rng))
    return runs


def _median_s(fn, repeats: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = []
    for n in (25, 100, 400):
        for settings in (1, 4):
            runs = group(n, settings)
            model = speedup.model_from_runs(runs)
            points = list(model.measured)
            full = _median_s(lambda runs=runs: speedup.model_from_runs(runs), args.repeats)
            ref = _median_s(lambda points=points: speedup.fit_sweep(points, concurrency=4), args.repeats)
            rows.append(
                {
                    "runs": n,
                    "settings": settings,
                    "fitted_runs": len(points),
                    "model_from_runs_ms": round(full * 1000, 2),
                    "fit_only_ms": round(ref * 1000, 2),
                    "ratio": round(full / ref, 2),
                }
            )
    if args.json:
        print(json.dumps({"rows": rows}))
        return 0
    print("runs  settings  fitted  model_from_runs ms  fit alone ms  ratio")
    for r in rows:
        print(
            f"{r['runs']:>4}  {r['settings']:>8}  {r['fitted_runs']:>6}  {r['model_from_runs_ms']:>18.2f}  "
            f"{r['fit_only_ms']:>12.2f}  {r['ratio']:>5.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
