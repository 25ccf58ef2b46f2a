"""Learning curves: simulated acceptance length against samples seen, from the training run's own logs.

Per logged point the chain expectation ``tau_sim = 1 + sum_k prod_{i<=k} acc_i`` is the acceptance
length a chain draft of that many steps would reach if position i were right with probability
``acc_i`` given the earlier ones were (the engines' convention: 1 + accepted / drafts, the bonus
token included; SpecForge's ``eval/simulated_acc_len`` is the same sum without the 1).

The curve is fitted with ``tau(n) = tau_inf - a * (n / n_last) ** -b`` (a saturating power law; b
small behaves like a logarithm), by profiling b over a grid and solving the linear part exactly:
numpy only. The band is the 95% confidence band of the fitted mean from the fit's covariance (delta
method). The verdict says whether more of the same data should still help.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd

from comparelib.analysis import traininglogs
from comparelib.analysis.scaling import run_setting
from comparelib.analysis.stats import t_two_sided
from comparelib.analysis.traininglogs import LogRecord, ReadStats
from comparelib.analysis.verdicts import human
from comparelib.errors import DataError, InputError

Verdict = Literal["rising", "plateau", "too-few-points"]
Split = Literal["auto", "train", "eval"]  # which logged points a curve is fitted on ("auto": eval when enough)
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)
XUnit = Literal["samples_seen", "step", "epoch"]  # what a curve's x axis counts
MIN_FIT_POINTS = 5
MIN_SPAN = 2.0  # the points must cover at least a doubling of the x axis
PLATEAU_GAIN = 0.05  # acceptance length gained at 2x that still counts as "rising"
MAX_POINTS_PER_SPLIT = 4096
LEVEL = 0.95
_B_GRID = np.geomspace(0.02, 3.0, 160)


@dataclass(frozen=True)
class CurvePoint:
    """One logged point."""

    step: int
    samples_seen: float | None
    split: str
    acc: tuple[float, ...]
    tau_sim: float
    epoch: int | None = None


@dataclass(frozen=True)
class CurveFit:
    """``tau(x) = tau_inf - a * (x / x_ref) ** -b`` with its covariance; x is samples, steps or epochs."""

    tau_inf: float
    a: float
    b: float
    x_ref: float
    x_unit: str
    split: str
    n: int
    r2: float
    residual_se: float
    cov: tuple[tuple[float, ...], ...]
    tau_max: float

    def _g(self, x: float) -> np.ndarray:
        u = x / self.x_ref
        p = u ** (-self.b)
        return np.array([1.0, -p, self.a * p * math.log(u)])

    def _t(self) -> float:
        return t_two_sided(LEVEL, max(1, self.n - 3))

    def predict(self, x: float) -> tuple[float, float, float]:
        """(mean, low, high) at x, clipped to [1, tau_max]."""
        g = self._g(x)
        mean = self.tau_inf - self.a * (x / self.x_ref) ** (-self.b)
        half = self._t() * math.sqrt(max(0.0, float(g @ np.array(self.cov) @ g)))

        def clip(v: float) -> float:
            return min(self.tau_max, max(1.0, v))

        return clip(mean), clip(mean - half), clip(mean + half)

    def gain(self, factor: float) -> tuple[float, float, float]:
        """Predicted change of tau from x_ref to factor * x_ref: (mean, low, high), un-clipped band."""
        dg = self._g(self.x_ref * factor) - self._g(self.x_ref)
        cur = self.tau_inf - self.a
        new = min(self.tau_max, self.tau_inf - self.a * factor ** (-self.b))
        mean = new - cur
        half = self._t() * math.sqrt(max(0.0, float(dg @ np.array(self.cov) @ dg)))
        return mean, mean - half, mean + half

    def summary(self) -> dict[str, Any]:
        return {
            "form": "tau(x) = tau_inf - a * (x / x_ref) ** -b",
            "tau_inf": self.tau_inf,
            "a": self.a,
            "b": self.b,
            "x_ref": self.x_ref,
            "x": self.x_unit,
            "split": self.split,
            "n": self.n,
            "r2": self.r2,
            "residual_se": self.residual_se,
            "level": LEVEL,
        }


@dataclass
class Curve:
    """The points, the fit and the verdict for one training run."""

    points: list[CurvePoint]
    fit: CurveFit | None
    verdict: Verdict
    sentence: str
    evidence: dict[str, Any] = field(default_factory=dict)
    band: list[dict[str, float]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)

    def frame(self) -> pd.DataFrame:
        """One row per point: step, samples_seen, split, epoch, tau_sim, acc_0..acc_K."""
        k = max((len(p.acc) for p in self.points), default=0)
        rows = []
        for p in self.points:
            row: dict[str, Any] = {
                "step": p.step,
                "samples_seen": p.samples_seen,
                "split": p.split,
                "epoch": p.epoch,
                "tau_sim": p.tau_sim,
            }
            for i in range(k):
                row[f"acc_{i}"] = p.acc[i] if i < len(p.acc) else None
            rows.append(row)
        cols = ["step", "samples_seen", "split", "epoch", "tau_sim"] + [f"acc_{i}" for i in range(k)]
        return pd.DataFrame(rows, columns=cols)

    def to_json(self) -> dict[str, Any]:
        """The ``curve --json`` object."""
        return {
            "points": [
                {
                    "step": p.step,
                    "samples_seen": p.samples_seen,
                    "split": p.split,
                    "acc": list(p.acc),
                    "tau_sim": p.tau_sim,
                }
                for p in self.points
            ],
            "fit": None if self.fit is None else {"parameters": self.fit.summary(), "band": self.band},
            "verdict": self.verdict,
            "sentence": self.sentence,
            "evidence": self.evidence,
            "read": self.stats,
        }


# ---------------------------------------------------------------- tau_sim


def tau_sim(acc: Sequence[float], steps: int | None = None) -> float:
    """``1 + sum_k prod_{i<=k} acc_i`` over the first ``steps`` positions (all when None)."""
    if steps is not None and steps < 1:
        raise InputError(f"steps must be at least 1, got {steps}")
    total, prod = 1.0, 1.0
    for i, a in enumerate(acc[:steps] if steps is not None else acc):
        if not (isinstance(a, (int, float)) and 0.0 <= a <= 1.0):
            raise InputError(f"acc_{i} = {a!r} is not a probability between 0 and 1")
        prod *= a
        total += prod
    return total


def chain_acc(rec: LogRecord) -> tuple[float, ...]:
    """Conditional per-position accuracy from 0 up to the first missing position.

    speculators' ``full_acc_i`` (all of 0..i right) is turned into conditional values when no
    ``cond_acc`` was logged: cond_i = full_i / full_{i-1}.
    """
    out: list[float] = []
    if rec.acc:
        d = rec.acc
        vals = [d.get(i) for i in range(min(len(d), traininglogs.MAX_POSITIONS))]
        if None in vals:
            vals = vals[: vals.index(None)]
        return tuple(vals)  # type: ignore[arg-type]
    prev = 1.0
    i = 0
    while i in rec.full and i < traininglogs.MAX_POSITIONS:
        f = rec.full[i]
        out.append(0.0 if prev <= 0 else min(1.0, max(0.0, f / prev)))
        prev = f
        i += 1
    return tuple(out)


# ---------------------------------------------------------------- collecting points


class Thinned:
    """At most ``cap`` items in arrival order: when full, every other one is dropped and the stride doubles.

    ``offer()`` says whether the next item would be kept (counting it either way), so a reader can
    skip parsing what would be thrown away; ``keep(item)`` stores an offered, accepted item.
    """

    def __init__(self, cap: int) -> None:
        self.cap = max(2, cap)
        self.items: list[CurvePoint] = []
        self.stride = 1
        self.seen = 0

    def offer(self) -> bool:
        keep = self.seen % self.stride == 0
        self.seen += 1
        return keep

    def keep(self, item: CurvePoint) -> None:
        self.items.append(item)
        if len(self.items) > self.cap:
            self.items = self.items[::2]
            self.stride *= 2


def thinners(max_points: int = MAX_POINTS_PER_SPLIT) -> dict[str, Thinned]:
    return {"train": Thinned(max_points), "eval": Thinned(max_points)}


def collect(
    records: Iterable[LogRecord],
    *,
    batch_size: float | None = None,
    epoch_samples: float | None = None,
    steps: int | None = None,
    max_points: int = MAX_POINTS_PER_SPLIT,
    kept: dict[str, Thinned] | None = None,
) -> tuple[list[CurvePoint], dict[str, Any]]:
    """Points from records, memory bounded by ``max_points`` per split; duplicates of (split, step) keep the last.

    ``kept`` are the thinners a reader was given as its sampler (``sampled`` records were offered already).
    """
    kept = kept if kept is not None else thinners(max_points)
    invalid = 0
    for rec in records:
        th = kept["eval" if rec.split == "eval" else "train"]
        if not rec.sampled and not th.offer():
            continue
        acc = chain_acc(rec)
        if steps is not None:
            acc = acc[:steps]
        if not acc or not (0.0 <= min(acc) and max(acc) <= 1.0):
            invalid += 1
            continue
        total, prod = 1.0, 1.0  # tau_sim, inlined: this loop runs once per kept line
        for a in acc:
            prod *= a
            total += prod
        samples = rec.samples_seen
        if samples is None:
            if rec.epoch is not None and rec.step == rec.epoch and epoch_samples:
                samples = rec.epoch * epoch_samples
            elif batch_size:
                samples = rec.step * batch_size
        th.keep(
            CurvePoint(step=rec.step, samples_seen=samples, split=rec.split, acc=acc, tau_sim=total, epoch=rec.epoch)
        )
    points: list[CurvePoint] = []
    info: dict[str, Any] = {"invalid_points": invalid, "thinned": {}}
    for split, th in kept.items():
        last: dict[int, CurvePoint] = {}
        for p in th.items:
            last[p.step] = p
        points.extend(sorted(last.values(), key=lambda p: p.step))
        info["thinned"][split] = {"logged": th.seen, "kept": len(last), "every": th.stride}
    return points, info


# ---------------------------------------------------------------- fit


def fit_curve(
    xs: Sequence[float] | np.ndarray, taus: Sequence[float] | np.ndarray, *, x_unit: str, split: str, tau_max: float
) -> CurveFit:
    """Least-squares ``tau_inf - a * (x / x_ref) ** -b`` (a >= 0, 0.02 <= b <= 3); needs 4+ points with x > 0."""
    x = np.asarray(xs, dtype=float)
    y = np.asarray(taus, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y) & (x > 0)
    x, y = x[keep], y[keep]
    n = int(x.size)
    if n < 4:
        raise DataError(f"a curve fit needs at least 4 points with {x_unit} > 0, got {n}")
    x_ref = float(x.max())
    u = x / x_ref
    best: tuple[float, float, float, float] | None = None
    for b in _B_GRID:
        p = u ** (-b)
        design = np.column_stack([np.ones(n), -p])
        coef, *_ = np.linalg.lstsq(design, y, rcond=None)
        t_inf, a = float(coef[0]), float(coef[1])
        if a < 0:  # a falling curve is not "saturating": fit a flat line instead
            t_inf, a = float(y.mean()), 0.0
        sse = float(((y - (t_inf - a * p)) ** 2).sum())
        if best is None or sse < best[0] - 1e-15:
            best = (sse, t_inf, a, float(b))
    assert best is not None
    sse, t_inf, a, b = best
    p = u ** (-b)
    jac = np.column_stack([np.ones(n), -p, a * p * np.log(u)])
    dof = max(1, n - 3)
    s2 = sse / dof
    cov = s2 * np.linalg.pinv(jac.T @ jac)
    ss_tot = float(((y - y.mean()) ** 2).sum())
    r2 = 1.0 - sse / ss_tot if ss_tot > 0 else 0.0
    return CurveFit(
        tau_inf=t_inf,
        a=a,
        b=b,
        x_ref=x_ref,
        x_unit=x_unit,
        split=split,
        n=n,
        r2=r2,
        residual_se=math.sqrt(s2),
        cov=tuple(tuple(float(v) for v in row) for row in cov),
        tau_max=tau_max,
    )


def band(f: CurveFit, x_min: float, x_max: float, n: int = 60) -> list[dict[str, float]]:
    """The fitted mean and its 95% band on a log grid from x_min to x_max."""
    out = []
    for x in np.geomspace(max(x_min, 1e-12), x_max, n):
        mean, lo, hi = f.predict(float(x))
        out.append({"x": float(x), "mean": mean, "low": lo, "high": hi})
    return out


def _slope_per_doubling(xs: np.ndarray, ys: np.ndarray) -> tuple[float, int] | None:
    """Model-free: least-squares slope of tau against log2(x) over the last doubling of x (3+ points)."""
    last = xs.max()
    sel = xs >= last / 2
    if sel.sum() < 3 or np.ptp(np.log2(xs[sel])) == 0:
        return None
    slope = float(np.polyfit(np.log2(xs[sel]), ys[sel], 1)[0])
    return slope, int(sel.sum())


# ---------------------------------------------------------------- the curve


def _unit_label(unit: XUnit) -> str:
    return {"samples_seen": "samples", "step": "steps", "epoch": "epochs"}.get(unit, unit)


def _fmt_x(x: float, unit: XUnit) -> str:
    return f"{human(x)} {_unit_label(unit)}"


def analyse(points: list[CurvePoint], *, split: Split = "auto", tau_max: float | None = None) -> Curve:
    """Fit and verdict for points (eval preferred when it has enough points, as it is held out)."""
    if split not in ("auto", "train", "eval"):
        raise InputError(f"split must be auto, train or eval, got {split!r}")
    by_split = {s: [p for p in points if p.split == s] for s in ("train", "eval")}
    if split == "auto":
        split = "eval" if len({p.step for p in by_split["eval"]}) >= MIN_FIT_POINTS else "train"
    pts = by_split[split]
    k = max((len(p.acc) for p in points), default=0)
    tmax = float(tau_max) if tau_max is not None else float(k + 1)
    unit: XUnit
    if pts and all(p.samples_seen is not None for p in pts):
        unit = "samples_seen"
        xs = np.array([p.samples_seen for p in pts], dtype=float)
    elif pts and all(p.epoch is not None and p.step == p.epoch for p in pts):
        unit = "epoch"
        xs = np.array([p.step for p in pts], dtype=float)
    else:
        unit = "step"
        xs = np.array([p.step for p in pts], dtype=float)
    ys = np.array([p.tau_sim for p in pts], dtype=float)
    pos = xs > 0
    xs, ys = xs[pos], ys[pos]
    distinct = int(np.unique(xs).size)
    span = float(xs.max() / xs.min()) if xs.size else 0.0
    ev: dict[str, Any] = {
        "split": split,
        "x": _unit_label(unit),
        "points": int(xs.size),
        "distinct_x": distinct,
        "x_min": float(xs.min()) if xs.size else None,
        "x_max": float(xs.max()) if xs.size else None,
        "span": span if xs.size else None,
        "positions": k,
        "train_points": len(by_split["train"]),
        "eval_points": len(by_split["eval"]),
        "thresholds": {"min_points": MIN_FIT_POINTS, "min_span": MIN_SPAN, "plateau_gain_at_2x": PLATEAU_GAIN},
    }
    if unit != "samples_seen" and pts:
        ev["note"] = (
            f"no samples seen in the log; the x axis is {_unit_label(unit)} "
            "(give --batch-size, or --epoch-samples for per-epoch logs, to put it in samples)"
        )
    if not pts or distinct < MIN_FIT_POINTS or span < MIN_SPAN:
        need = f"at least {MIN_FIT_POINTS} {split} points with {_unit_label(unit)} > 0 spanning {MIN_SPAN:g}x"
        have = (
            f"{distinct} distinct {_unit_label(unit)} values spanning {span:.2g}x"
            if xs.size
            else f"no {split} points with {_unit_label(unit)} > 0"
        )
        return Curve(
            points=points,
            fit=None,
            verdict="too-few-points",
            sentence=f"Too few points to tell: {have}; a verdict needs {need}. Log more often or train longer.",
            evidence=ev,
        )
    f = fit_curve(xs, ys, x_unit=_unit_label(unit), split=split, tau_max=tmax)
    last_i = int(np.argmax(xs))
    now_mean = f.predict(f.x_ref)[0]
    g2, g2_lo, g2_hi = f.gain(2.0)
    g10, g10_lo, g10_hi = f.gain(10.0)
    at2 = f.predict(2 * f.x_ref)
    at10 = f.predict(10 * f.x_ref)
    slope = _slope_per_doubling(xs, ys)
    ev.update(
        {
            "last_tau_sim": float(ys[last_i]),
            "fit_at_last": now_mean,
            "gain_at_2x": {"mean": g2, "low": g2_lo, "high": g2_hi},
            "gain_at_10x": {"mean": g10, "low": g10_lo, "high": g10_hi},
            "tau_at_2x": {"mean": at2[0], "low": at2[1], "high": at2[2]},
            "tau_at_10x": {"mean": at10[0], "low": at10[1], "high": at10[2]},
            "slope_per_doubling_last": None if slope is None else {"slope": slope[0], "points": slope[1]},
            "r2": f.r2,
        }
    )
    if f.b <= float(_B_GRID[0]) + 1e-12:
        ev["fit_note"] = "b at its lower bound: the curve is log-like here and its ceiling tau_inf is not identified"
    where = f"{split} tau_sim {ys[last_i]:.2f} at {_fmt_x(f.x_ref, unit)} (fit {now_mean:.2f})"
    measured = f"; measured over the last doubling: {slope[0]:+.3f} per doubling ({slope[1]} points)" if slope else ""
    verdict: Verdict
    if g2 >= PLATEAU_GAIN:
        verdict = "rising"
        sentence = (
            f"Still rising: {where}. The fit predicts {at2[0]:.2f} ({at2[1]:.2f}..{at2[2]:.2f}) at 2x "
            f"({g2:+.2f}) and {at10[0]:.2f} ({at10[1]:.2f}..{at10[2]:.2f}) at 10x ({g10:+.2f}) the "
            f"{_unit_label(unit)}{measured}. More of the same data should help."
        )
    else:
        verdict = "plateau"
        sentence = (
            f"Flat: {where}; the fit predicts only {g2:+.2f} at 2x and {g10:+.2f} at 10x the "
            f"{_unit_label(unit)} (ceiling {min(f.tau_inf, tmax):.2f}){measured}. More of the same data will "
            "not move acceptance much: look at capacity (layers, hidden size), wiring (which target layers are "
            "captured) or how well the training data matches what you serve."
        )
    return Curve(
        points=points,
        fit=f,
        verdict=verdict,
        sentence=sentence,
        evidence=ev,
        band=band(f, float(xs.min()), 10 * f.x_ref),
    )


def curve(
    paths: Sequence[str | os.PathLike[str]],
    *,
    fmt: str = "auto",
    batch_size: float | None = None,
    epoch_samples: float | None = None,
    steps: int | None = None,
    split: Split = "auto",
) -> Curve:
    """Read training logs and return their learning curve (CLI and page share this)."""
    if not paths:
        raise InputError("give at least one training log (file or TensorBoard run directory)")
    for name, v in (("--batch-size", batch_size), ("--epoch-samples", epoch_samples)):
        if v is not None and not (0 < v < math.inf):
            raise InputError(f"{name} must be a positive number, got {v:g}")
    if steps is not None and not 1 <= steps <= traininglogs.MAX_POSITIONS:
        raise InputError(f"--steps must be between 1 and {traininglogs.MAX_POSITIONS}, got {steps}")
    stats = ReadStats()
    kept = thinners()
    records = traininglogs.read(paths, fmt, stats, sampler=lambda split: kept[split].offer())
    points, info = collect(records, batch_size=batch_size, epoch_samples=epoch_samples, steps=steps, kept=kept)
    if not points:
        raise DataError(
            f"no per-position accuracies found in {', '.join(str(p) for p in paths)} (read as {stats.format or fmt}); "
            "expected acc_0..acc_K (SpecForge, CSV), cond_acc_i/full_acc_i (speculators) "
            "or EAGLE's 'position i, Acc:' lines"
        )
    out = analyse(points, split=split, tau_max=(steps + 1) if steps else None)
    out.stats = {
        "format": stats.format,
        "files": stats.files,
        "bytes": stats.bytes,
        "lines_or_events": stats.lines,
        "long_lines_skipped": stats.long_lines,
        "bad_values": stats.bad_values,
        **info,
    }
    if steps:
        out.evidence["steps"] = steps
    return out


# ---------------------------------------------------------------- context for the page


def live_frame(runs: Iterable[Any], curve: Curve | None = None) -> pd.DataFrame:
    """Measured acceptance length of stored speculative runs (``store.RunRecord``) beside the simulated one.

    ``tau_sim_last`` is tau_sim of the curve's last point of its fitted split at the run's own
    num_steps (None when the log has fewer positions than the run drafts).
    """
    last: CurvePoint | None = None
    if curve is not None:
        split = curve.evidence.get("split")
        same = [p for p in curve.points if p.split == split] or curve.points
        last = same[-1] if same else None
    rows = []
    for r in runs:
        if getattr(r, "is_baseline", False):
            continue
        acc = r.accept_length if r.accept_length is not None else r.accept_length_mean
        if acc is None:
            continue
        key, _chain = run_setting(r)
        sim = None
        if last is not None and r.num_steps and r.num_steps <= len(last.acc):
            sim = tau_sim(last.acc, r.num_steps)
        rows.append(
            {
                "run": r.title,
                "setting_key": key,
                "num_steps": r.num_steps,
                "accept_length": float(acc),
                "tau_sim_last": sim,
            }
        )
    return pd.DataFrame(rows, columns=["run", "setting_key", "num_steps", "accept_length", "tau_sim_last"])


def published_frame(published: pd.DataFrame, *, benchmark: str, setting_key: str | None) -> pd.DataFrame:
    """Published drafts' acceptance at one benchmark and setting, with their training samples."""
    cols = ["draft", "samples", "accept_length", "source"]
    if published is None or published.empty or setting_key is None:
        return pd.DataFrame(columns=cols)
    sel = published[
        (published["benchmark"] == benchmark.lower())
        & (published["setting_key"] == setting_key)
        & published["accept_length"].notna()
    ]
    return sel[cols].reset_index(drop=True)
