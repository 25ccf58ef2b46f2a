"""Does the plan's cost model reproduce the published training runs, and how fast and how often right is its fit?

Prints, in one run:

* calibration: for each published run (TorchSpec's Kimi-K2.5 1,500 H200-hours; speculators'
  Llama-3.1-8B hidden states in 143 s and 5 epochs in 327 s on 2 x H100), the GPU-hours the plan's
  cost model gives under the calibrated utilisations, and the ratio model / published (aim: 0.5..2);
  plus each run left out of the calibration (utilisations fitted on the other two where they identify
  both), the honest out-of-sample ratio;
* the Kimi example's plan: samples, GPU-hours and TB for "more data" with their bands;
* coverage: curves drawn from known saturating laws with noise, fitted on their first half; the share
  of seeds whose samples-to-target band holds the truth (aim: >= 0.9), and the fit's time per curve
  against a reference measured in the same run (one numpy least-squares solve of the same points).

``--json`` prints one object.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from comparelib.analysis import plan  # noqa: E402 - after the path is set


def _laws() -> list[tuple[str, object, tuple[float, float, float], float]]:
    def logistic(x: np.ndarray, p: float, n0: float, b: float) -> np.ndarray:
        return 1 + (p - 1) / (1 + (n0 / x) ** b)

    def weibull(x: np.ndarray, p: float, n0: float, b: float) -> np.ndarray:
        return 1 + (p - 1) * (1 - np.exp(-((x / n0) ** b)))

    def power(x: np.ndarray, p: float, n0: float, b: float) -> np.ndarray:
        return p - (p - 1.2) * (x / n0) ** (-b)

    return [
        ("logistic", logistic, (3.6, 2e5, 0.6), 0.03),
        ("weibull", weibull, (3.4, 3e5, 0.45), 0.03),
        ("power", power, (3.3, 5e3, 0.35), 0.02),
        ("logistic, low noise", logistic, (3.0, 5e4, 1.0), 0.005),
    ]


def coverage(seeds: int) -> list[dict[str, object]]:
    rows = []
    x = np.linspace(5e3, 4e5, 60)
    half = x <= x.max() / 2
    for name, law, params, sd in _laws():
        target = float(law(np.array([x.max()]), *params)[0])  # type: ignore[operator]
        hits = bounded = 0
        fit_s = ref_s = 0.0
        for seed in range(seeds):
            y = law(x, *params) + np.random.default_rng(seed).normal(0, sd, x.size)  # type: ignore[operator]
            t0 = time.perf_counter()
            fit = plan.fit_curve_bounded(x[half], y[half], steps=3)
            band = fit.samples_for(target)
            fit_s += time.perf_counter() - t0
            t0 = time.perf_counter()
            np.linalg.lstsq(np.column_stack([np.ones(half.sum()), np.log(x[half])]), y[half], rcond=None)
            ref_s += time.perf_counter() - t0
            hits += (band.low or 0) <= x.max() and (band.high is None or x.max() <= band.high)
            bounded += band.high is not None
        rows.append(
            {
                "law": name,
                "noise_sd": sd,
                "seeds": seeds,
                "coverage": hits / seeds,
                "bounded_share": bounded / seeds,
                "fit_ms": fit_s / seeds * 1000,
                "ratio_vs_lstsq": fit_s / max(ref_s, 1e-9),
            }
        )
    return rows


def leave_one_out() -> list[dict[str, object]]:
    """Each run's ratio when the utilisations come from the others only (a phase no other run covers
    keeps the calibrated value, said so)."""
    out = []
    full = plan.calibration()
    grid = np.geomspace(0.02, 1.0, 400)
    for i, run in enumerate(plan.CALIBRATION_RUNS):
        others = [r for j, r in enumerate(plan.CALIBRATION_RUNS) if j != i]
        best = None
        for ug in grid:
            for ut in (full.u_training,) if all(r.phase == "generation" for r in others) else grid:
                err = max(abs(math.log(plan._run_hours(r, ug, ut) / r.gpu_hours)) for r in others)
                if best is None or err < best[0]:
                    best = (err, ug, ut)
        assert best is not None
        _, ug, ut = best
        out.append({"run": run.label, "ratio_out_of_sample": plan._run_hours(run, ug, ut) / run.gpu_hours})
    return out


def example_plan() -> dict[str, object]:
    from comparelib.live.store import Store
    from comparelib.models import comparison

    store = Store("sqlite://")
    store.ensure_examples()
    entry = comparison.load_entry(comparison.EXAMPLE_OWN, with_header=False)
    inputs = plan.inputs_for(
        entry, runs=store.runs(group="example-kimi-k2.5"), own_samples=37000, own_samples_source="example"
    )
    p = plan.build(inputs)
    first = p.options[0]
    return {
        "first": first.kind,
        "target_al": p.target_al,
        "samples_needed": first.samples_needed.to_json() if first.samples_needed else None,
        "gpu_hours": first.total.to_json(),
        "storage_tb": first.storage.to_json(),
        "tok_s_bs1": first.tok_s.get("1").to_json() if first.tok_s.get("1") else None,  # type: ignore[union-attr]
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    cal = plan.calibration()
    out = {
        "utilisation": {"generation": cal.u_generation, "training": cal.u_training},
        "calibration": [
            {k: r[k] for k in ("run", "published_gpu_hours", "model_gpu_hours", "ratio")} for r in cal.rows
        ],
        "leave_one_out": leave_one_out(),
        "example": example_plan(),
        "coverage": coverage(args.seeds),
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"utilisation: generation {cal.u_generation:.1%}, training {cal.u_training:.1%} of the bf16 peak")
    for r, loo in zip(out["calibration"], out["leave_one_out"], strict=True):  # type: ignore[call-overload]
        print(
            f"  {r['run']}: published {r['published_gpu_hours']:.3f} GPU-h, model {r['model_gpu_hours']:.3f}, "
            f"ratio {r['ratio']:.2f} (left out of the calibration: {loo['ratio_out_of_sample']:.2f})"
        )
    print(f"example: {json.dumps(out['example'])}")
    for c in out["coverage"]:  # type: ignore[union-attr]
        print(
            f"  {c['law']} (sd {c['noise_sd']}): coverage {c['coverage']:.2f}, bounded {c['bounded_share']:.2f}, "
            f"{c['fit_ms']:.0f} ms per fit ({c['ratio_vs_lstsq']:.0f}x one lstsq)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
