"""Acceptance length against training-data volume: points, a log-linear fit, its band and inverse.

The question behind this module is "how much more data would my draft need?". Published drafts
report acceptance at many different speculative settings (chain 3,1,4 against deep trees, batch 1
against batch 8, SGLang against vLLM); acceptance is not comparable across those, so every fit is
made inside one (benchmark, setting key) and points from elsewhere are returned as excluded, with
the reason, never silently mixed in.

Model: ``accept = a + b * log10(volume)``, ordinary least squares. The band is the confidence band
of the mean (Student t, n - 2 degrees of freedom); it is only drawn where at least three distinct
volumes exist. Extrapolation is allowed but flagged: the band is honest about it only in so far as
the straight line is right.

Sentences about a fit live in ``verdicts``, the Overview page's figures in ``overview``, the
Student t maths in ``stats``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from comparelib.analysis.stats import t_two_sided
from comparelib.errors import DataError, InputError
from comparelib.models.draft import family_words
from comparelib.models.registry import family_of as family_of  # re-exported: callers name them here
from comparelib.models.registry import run_setting as run_setting
from comparelib.models.registry import steps_of as steps_of
from comparelib.values import bench_label, number

MIN_DISTINCT_VOLUMES = 3
LEVEL = 0.95
Axis = Literal["samples", "tokens"]  # the volume a fit is made against
X_COLUMNS: tuple[Axis, ...] = ("samples", "tokens")
POINT_COLUMNS: tuple[str, ...] = (
    "draft",
    "kind",
    "target_model",
    "family",
    "method",
    "benchmark",
    "setting_key",
    "chain",
    "batch_size",
    "engine",
    "samples",
    "tokens",
    "accept_length",
    "source",
    "usable",
    "reason",
)

# ---------------------------------------------------------------------------------------------
# Points


def _empty_points() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype="object") for c in POINT_COLUMNS})


def published_points(results: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per (registry draft, benchmark, setting); ``usable``/``reason`` say why a row can't be fitted.

    ``results`` is ``registry.results_frame()`` (or any frame with its columns); None loads the registry.
    """
    if results is None:
        from comparelib.models import registry

        results = registry.results_frame()
    rows: list[dict[str, Any]] = []
    for rec in results.to_dict(orient="records"):
        samples, tokens, acc = (
            number(rec.get("train_samples")),
            number(rec.get("train_tokens")),
            number(rec.get("accept_length")),
        )
        reasons = []
        if acc is None:
            reasons.append("no acceptance length reported")
        if samples is None and tokens is None:
            reasons.append("no training volume reported")
        rows.append(
            {
                "draft": rec.get("hub_id"),
                "kind": "published",
                "target_model": rec.get("target_model"),
                "family": family_of(rec.get("target_model")),
                "method": rec.get("method"),
                "benchmark": str(rec.get("benchmark") or "").lower(),
                "setting_key": rec.get("setting_key"),
                "chain": rec.get("chain"),
                "batch_size": rec.get("batch_size"),
                "engine": rec.get("engine"),
                "samples": samples,
                "tokens": tokens,
                "accept_length": acc,
                "source": rec.get("source"),
                "usable": not reasons,
                "reason": "; ".join(reasons),
            }
        )
    if not rows:
        return _empty_points()
    return pd.DataFrame(rows, columns=list(POINT_COLUMNS))


def empty_points() -> pd.DataFrame:
    """A points frame with no rows (the columns every function here expects)."""
    return _empty_points()


def own_point(
    *,
    draft: str,
    benchmark: str,
    accept_length: float | None,
    setting_key: str | None,
    chain: str | None = None,
    samples: float | None = None,
    tokens: float | None = None,
    target_model: str | None = None,
    batch_size: Any = None,
    engine: str | None = None,
    source: str = "",
) -> dict[str, Any]:
    """A point for one of the user's drafts (volume typed in or from an audit, acceptance from a run)."""
    reasons = []
    if number(accept_length) is None:
        reasons.append("no acceptance length measured")
    if number(samples) is None and number(tokens) is None:
        reasons.append("no training volume given")
    return {
        "draft": draft,
        "kind": "own",
        "target_model": target_model,
        "family": family_of(target_model),
        "method": "EAGLE-3",
        "benchmark": (benchmark or "").lower(),
        "setting_key": setting_key,
        "chain": chain,
        "batch_size": batch_size,
        "engine": engine,
        "samples": number(samples),
        "tokens": number(tokens),
        "accept_length": number(accept_length),
        "source": source,
        "usable": not reasons,
        "reason": "; ".join(reasons),
    }


def own_points_from_runs(
    runs: Iterable[Any],
    *,
    draft: str,
    samples: float | None = None,
    tokens: float | None = None,
    target_model: str | None = None,
    benchmark: str | None = None,
) -> pd.DataFrame:
    """One point per speculative store run (``RunRecord``) with a measured acceptance length.

    The benchmark is the run's prompt set (``params["prompt_set"]``) unless given; the setting key is
    built the same way the registry builds its keys, so a run at (3,1,4) lands with published (3,1,4).
    """
    rows = []
    for run in runs:
        if getattr(run, "is_baseline", False):
            continue
        params = getattr(run, "params", {}) or {}
        bench = benchmark or params.get("prompt_set") or params.get("benchmark") or "live"
        key, chain = run_setting(run)
        acc = run.accept_length if run.accept_length is not None else getattr(run, "accept_length_mean", None)
        kind = getattr(run, "kind", "measured")
        rows.append(
            own_point(
                draft=draft,
                benchmark=str(bench),
                accept_length=acc,
                setting_key=key,
                chain=chain,
                samples=samples,
                tokens=tokens,
                target_model=target_model or getattr(run, "model", None),
                batch_size=params.get("concurrency"),
                engine=getattr(run, "engine", None),
                source=f"store run {run.id} ({kind})",
            )
        )
    if not rows:
        return _empty_points()
    return pd.DataFrame(rows, columns=list(POINT_COLUMNS))


def scaling_points(
    results: pd.DataFrame | None = None, *, own: pd.DataFrame | Sequence[Mapping[str, Any]] | None = None
) -> pd.DataFrame:
    """Every published point (registry) plus the user's own points, each with ``usable``/``reason``.

    ``results`` is a registry results frame, or an already built points frame (``published_points``).
    """
    if results is not None and "draft" in results.columns and "usable" in results.columns:
        frames = [results]
    else:
        frames = [published_points(results)]
    if own is not None:
        own_df = own if isinstance(own, pd.DataFrame) else pd.DataFrame(list(own), columns=list(POINT_COLUMNS))
        if len(own_df):
            frames.append(own_df[list(POINT_COLUMNS)])
    frames = [f for f in frames if len(f)]
    if not frames:
        return _empty_points()
    out = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0].reset_index(drop=True)
    return out


@dataclass(frozen=True)
class Selection:
    """The comparable points for one benchmark and setting, and everything left out, with why."""

    benchmark: str
    setting_key: str
    x: Axis
    points: pd.DataFrame
    excluded: pd.DataFrame


def select(
    points: pd.DataFrame,
    *,
    benchmark: str,
    setting_key: str | None,
    x: Axis = "samples",
    family: str | None = None,
    chain: str | None = None,
) -> Selection:
    """Split ``points`` into the comparable ones (same benchmark and setting key, volume known) and the rest.

    ``chain`` (with ``setting_key=None``) is the looser match used only for clearly labelled fits:
    same (steps,topk,draft tokens), batch size and engine not required to agree.
    """
    if x not in X_COLUMNS:
        raise InputError(f"x must be one of {', '.join(X_COLUMNS)}, got {x!r}")
    bench = (benchmark or "").lower()
    reasons: list[str] = []
    for rec in points.to_dict(orient="records"):
        r: list[str] = []
        if rec["benchmark"] != bench:
            r.append(f"other benchmark ({rec['benchmark']})")
        if setting_key is not None and rec["setting_key"] != setting_key:
            r.append(f"different setting ({rec['setting_key']})")
        if chain is not None and rec.get("chain") != chain:
            r.append(f"different chain ({rec.get('chain')})")
        if family is not None and rec.get("family") != family:
            r.append(f"other model family ({family_words(rec.get('family')) or 'none known'})")
        if not rec["usable"]:
            r.append(rec["reason"])
        elif number(rec.get(x)) is None or (number(rec.get(x)) or 0) <= 0:
            r.append(f"no {x} reported")
        reasons.append("; ".join(r))
    mask = pd.Series([not r for r in reasons], index=points.index, dtype=bool)
    excluded = points.loc[~mask].copy()
    excluded["reason"] = [r for r in reasons if r]
    return Selection(
        bench, setting_key or "", x, points.loc[mask].reset_index(drop=True), excluded.reset_index(drop=True)
    )


# ---------------------------------------------------------------------------------------------
# Fit


@dataclass(frozen=True)
class Fit:
    """accept = a + b * log10(volume), with what the band and the inverse need."""

    a: float
    b: float
    se_a: float
    se_b: float
    n: int
    r2: float
    residual_se: float
    benchmark: str = ""
    setting_key: str = ""
    x: Axis = "samples"
    x_mean: float = 0.0  # mean of log10(volume)
    sxx: float = 0.0  # sum of squared deviations of log10(volume)
    distinct: int = 0  # distinct volumes
    x_min: float = 0.0  # log10 of the smallest / largest fitted volume, to flag extrapolation
    x_max: float = 0.0
    label: str = ""  # e.g. "moonshotai drafts" or "pooled across drafts"
    drafts: tuple[str, ...] = field(default_factory=tuple)

    @property
    def df(self) -> int:
        return self.n - 2

    def t(self, level: float = LEVEL) -> float:
        return t_two_sided(level, self.df)

    def extrapolates(self, volume: float) -> bool:
        x = math.log10(volume)
        return x < self.x_min - 1e-9 or x > self.x_max + 1e-9


def fit(
    points: pd.DataFrame, *, x: Axis = "samples", benchmark: str = "", setting_key: str = "", label: str = ""
) -> Fit:
    """Least-squares fit of acceptance on log10(volume) over ``points`` (already one benchmark and setting).

    Raises DataError when fewer than three distinct volumes exist: two points define a line but no
    uncertainty, and a band from one degree of freedom is the least we show.
    """
    if x not in X_COLUMNS:
        raise InputError(f"x must be one of {', '.join(X_COLUMNS)}, got {x!r}")
    if benchmark == "" and len(points) and "benchmark" in points:
        benchmark = str(points["benchmark"].iloc[0])
    if setting_key == "" and len(points) and "setting_key" in points:
        setting_key = str(points["setting_key"].iloc[0])
    vol = pd.to_numeric(points[x], errors="coerce") if len(points) else pd.Series(dtype=float)
    acc = pd.to_numeric(points["accept_length"], errors="coerce") if len(points) else pd.Series(dtype=float)
    ok = vol.notna() & acc.notna() & (vol > 0)
    v = vol[ok].to_numpy(dtype=float)
    y = acc[ok].to_numpy(dtype=float)
    distinct = len(np.unique(v))
    if distinct < MIN_DISTINCT_VOLUMES:
        raise DataError(
            f"need at least {MIN_DISTINCT_VOLUMES} distinct training volumes to fit {benchmark or 'this benchmark'}"
            f" at {setting_key or 'this setting'}; have {distinct} ({len(v)} point(s))"
        )
    xs = np.log10(v)
    n = len(xs)
    x_mean = float(xs.mean())
    y_mean = float(y.mean())
    sxx = float(((xs - x_mean) ** 2).sum())
    sxy = float(((xs - x_mean) * (y - y_mean)).sum())
    b = sxy / sxx
    a = y_mean - b * x_mean
    resid = y - (a + b * xs)
    sse = float((resid**2).sum())
    sst = float(((y - y_mean) ** 2).sum())
    s2 = sse / (n - 2)
    s = math.sqrt(s2)
    se_b = s / math.sqrt(sxx)
    se_a = s * math.sqrt(1.0 / n + x_mean**2 / sxx)
    r2 = 1.0 - sse / sst if sst > 0 else 1.0
    drafts = tuple(sorted({str(d) for d in points.loc[ok, "draft"]})) if "draft" in points else ()
    return Fit(
        a=a,
        b=b,
        se_a=se_a,
        se_b=se_b,
        n=n,
        r2=r2,
        residual_se=s,
        benchmark=benchmark,
        setting_key=setting_key,
        x=x,
        x_mean=x_mean,
        sxx=sxx,
        distinct=distinct,
        x_min=float(xs.min()),
        x_max=float(xs.max()),
        label=label,
        drafts=drafts,
    )


def fit_published(sel: Selection, label: str = "") -> Fit:
    """The fit over a selection's published points (own points are drawn beside it, never fitted)."""
    pub = sel.points[sel.points["kind"] == "published"]
    return fit(pub, x=sel.x, benchmark=sel.benchmark, setting_key=sel.setting_key, label=label)


def _half_width(f: Fit, xlog: float, level: float) -> float:
    return f.t(level) * f.residual_se * math.sqrt(1.0 / f.n + (xlog - f.x_mean) ** 2 / f.sxx)


def predict(f: Fit, volume: float, level: float = LEVEL) -> tuple[float, float, float]:
    """(mean, lo, hi) acceptance at ``volume``: the confidence band of the mean line."""
    if volume is None or not volume > 0:
        raise InputError(f"volume must be a positive number, got {volume!r}")
    xlog = math.log10(volume)
    mean = f.a + f.b * xlog
    hw = _half_width(f, xlog, level)
    return mean, mean - hw, mean + hw


def band(
    f: Fit, volumes: Iterable[float] | None = None, level: float = LEVEL, num: int = 60, clip: bool = False
) -> pd.DataFrame:
    """The line and band sampled over ``volumes`` (default: the fitted range, widened half a decade).

    ``clip`` limits it to the possible acceptance range (1..steps+1) for drawing.
    """
    if volumes is None:
        volumes = np.logspace(f.x_min - 0.5, f.x_max + 0.5, num)
    rows = []
    for v in volumes:
        if clip:
            mean, lo, hi, _ = predict_bounded(f, float(v), level)
        else:
            mean, lo, hi = predict(f, float(v), level)
        rows.append({f.x: float(v), "accept_length": mean, "lo": lo, "hi": hi})
    return pd.DataFrame(rows)


def volume_for(f: Fit, target_accept: float, level: float = LEVEL) -> tuple[float, float | None, float | None] | None:
    """Volume where the line reaches ``target_accept``, with the range where the band contains it.

    Returns (n, lo, hi); lo or hi is None when the band never leaves the target on that side (the
    slope is not resolved well enough to bound it). None when the fitted slope is not positive:
    then more data is not predicted to help, and no volume can be named.
    """
    if f.b <= 0:
        return None
    x_star = (target_accept - f.a) / f.b
    # Fieller: (a + b x - y)^2 = t^2 s^2 (1/n + (x - xm)^2 / sxx), a quadratic in x.
    t2s2 = (f.t(level) * f.residual_se) ** 2
    qa = f.b**2 - t2s2 / f.sxx
    qb = 2.0 * f.b * (f.a - target_accept) + 2.0 * t2s2 * f.x_mean / f.sxx
    qc = (f.a - target_accept) ** 2 - t2s2 * (1.0 / f.n + f.x_mean**2 / f.sxx)
    lo: float | None
    hi: float | None
    if qa > 0:
        disc = qb * qb - 4 * qa * qc
        if disc < 0:  # cannot happen for qa > 0 (x_star lies inside), guard rounding
            disc = 0.0
        r1 = (-qb - math.sqrt(disc)) / (2 * qa)
        r2 = (-qb + math.sqrt(disc)) / (2 * qa)
        lo, hi = 10.0**r1, 10.0**r2
    else:
        lo, hi = None, None
    return 10.0**x_star, lo, hi


def accept_bounds(setting_key: str | None) -> tuple[float, float]:
    """Acceptance length is at least 1 and at most min(steps + 1, draft tokens), a chain's or a tree's; the line
    knows neither. A tree (topk > 1) accepts one root-to-leaf path of its num_draft_tokens nodes, the root (the
    bonus token) included, at most num_steps deep: SGLang 0.5.23 verifies into an accept_index num_steps + 1 wide
    (``EagleVerifyInput.max_tree_depth``, speculative/eagle_info.py:52-56; eagle_utils.py:634) with accept_lens =
    correct drafts + 1 (eagle_utils.py:845), the tree holding num_draft_tokens - 1 drafted nodes (eagle_utils.py:110).
    A tree accepts more than a chain of the same num_steps does, never past this ceiling."""
    steps = steps_of(setting_key)
    chain = re.search(r"\((\d+),(?:\d+|\?),(\d+|\?)\)", setting_key or "")  # a looser fit's "chain (3,1,4)"
    if steps is None and chain:
        steps = int(chain.group(1))
    hi = float(steps + 1) if steps is not None else math.inf
    m2 = re.search(r"draft=(\d+)", setting_key or "")
    if m2:
        hi = min(hi, float(m2.group(1)))
    elif chain and chain.group(2).isdigit():
        hi = min(hi, float(chain.group(2)))
    return 1.0, hi


def predict_bounded(f: Fit, volume: float, level: float = LEVEL) -> tuple[float, float, float, bool]:
    """``predict`` clipped to the possible range; the flag says whether clipping happened."""
    lo_b, hi_b = accept_bounds(f.setting_key)
    mean, lo, hi = predict(f, volume, level)
    clipped = mean < lo_b or mean > hi_b or lo < lo_b or hi > hi_b
    clip = lambda v: min(max(v, lo_b), hi_b)  # noqa: E731
    return clip(mean), clip(lo), clip(hi), clipped


def trend_unsaid(
    value: float, low: float | None, high: float | None, bounds: tuple[float, float], level: float = LEVEL
) -> str:
    """Why a trend's acceptance at one volume is not the trend's to quote ("" when it is): one rule for every place
    that quotes the published trend at a volume. A value at a bound of the possible range (the floor of 1.00 or the
    ceiling of K + 1, as printed, to two decimals) is where the line was clipped or pressed, not a prediction; a
    band over every possible value says nothing. Walk T: "at or above the 1.00 the published trend gives at your
    20K samples", from a line of R² 0.34 over 7 points clipped at 1 there, with a band of 1.00..4.00."""
    lo_b, hi_b = bounds
    parts = []
    if round(value, 2) <= lo_b:
        parts.append(f"its value there is the floor of {lo_b:.2f}, the least acceptance possible, not a prediction")
    elif round(value, 2) >= hi_b:
        parts.append(
            f"its value there is the ceiling of {hi_b:.2f}, the most acceptance possible at this setting, not a "
            "prediction"
        )
    if low is not None and high is not None and round(low, 2) <= lo_b and round(high, 2) >= hi_b:
        parts.append(f"its {level:.0%} band there, {low:.2f}..{high:.2f}, spans every possible value")
    return ", and ".join(parts)


def unsaid_at(f: Fit, volume: float, level: float = LEVEL) -> str:
    """``trend_unsaid`` for the line ``f`` at ``volume``, with the fit's R², its points and whether ``volume`` is
    past the published volumes ("" when the fit's value there may be quoted)."""
    from comparelib.values import human

    mean, lo, hi, _ = predict_bounded(f, volume, level)
    why = trend_unsaid(mean, lo, hi, accept_bounds(f.setting_key), level)
    if not why:
        return ""
    past = ""
    if f.extrapolates(volume):
        side = "below the smallest" if math.log10(volume) < f.x_min else "beyond the largest"
        past = f", {human(volume)} is {side} published volume ({human(10**f.x_min)}..{human(10**f.x_max)})"
    return f"{why} (the fit: R² {f.r2:.2f} over {f.n} points{past})"


def fit_at_reference(f: Fit, points: pd.DataFrame, reference: str) -> tuple[float, int, float] | None:
    """(acceptance, num_steps, volume): what ``f`` predicts at ``reference``'s volume, when the setting
    states its num_steps and the prediction lies strictly inside 1..steps+1 with a band narrower than that range
    (``unsaid_at``); None otherwise."""
    volumes = points.loc[points["draft"] == reference, f.x].dropna()
    if not volumes.size:
        return None
    volume = float(volumes.iloc[0])
    steps = steps_of(f.setting_key)
    accept, _, _, _ = predict_bounded(f, volume)
    if steps and 1.0 < accept < steps + 1 and not unsaid_at(f, volume):  # a value the trend cannot say is none
        return accept, steps, volume
    return None


# ---------------------------------------------------------------------------------------------
# Choosing what to fit


def benchmarks(points: pd.DataFrame) -> list[str]:
    """Benchmarks with at least one usable point, most points first."""
    usable = points[points["usable"].astype(bool)]
    return list(usable["benchmark"].value_counts().index)


def default_benchmark(points: pd.DataFrame, reference: str | None) -> str | None:
    """The benchmark a page opens on for ``reference`` (``benchmark_choice``)."""
    return benchmark_choice(points, reference)[0]


def _names(benches: Sequence[str], most: int = 4) -> str:
    """Benchmarks in words: "HumanEval", "HumanEval and MT-Bench", "A, B, C and 7 others"."""
    labels = [bench_label(b) for b in benches] or [""]
    if len(labels) > most:
        labels = [*labels[: most - 1], f"{len(labels) - most + 1} others"]
    return labels[0] if len(labels) <= 1 else f"{', '.join(labels[:-1])} and {labels[-1]}"


def benchmark_choice(
    points: pd.DataFrame, reference: str | None, who: str | None = None, x: Axis = "samples"
) -> tuple[str | None, str]:
    """The benchmark Acceptance vs data and the plan open on for ``reference``, and why (a phrase that follows
    "GSM8K, "; ``who`` names the reference in it, ``reference`` itself by default).

    The one ``reference`` publishes most figures on (GSM8K first among equals, then the one the trend has most points
    on), counting a benchmark where its figures state a training volume or the published trend can be fitted
    (a setting with ``MIN_DISTINCT_VOLUMES``); else GSM8K. Walk AG: the Qwen3-Coder-480B draft of EigenAI publishes
    HumanEval and LiveCodeBench without a volume; only figures with one were counted, so the page and plan opened on
    GSM8K "the one it publishes most on", aimed at a Qwen3-235B draft's GSM8K 2.876."""
    options = benchmarks(points)
    if not options:
        return None, "no published draft states a training volume on any benchmark"
    who = who or reference
    # as ``settings_for`` marks a setting fittable, for every benchmark at once
    vol = points[points["usable"].astype(bool) & pd.to_numeric(points[x], errors="coerce").gt(0)]
    distinct = vol.groupby(["benchmark", "setting_key"])[x].nunique()
    fit_ok = set(distinct[distinct >= MIN_DISTINCT_VOLUMES].index.get_level_values(0))
    fittable = [b for b in options if b in fit_ok]
    fallback = "gsm8k" if "gsm8k" in fittable else (fittable or ["gsm8k" if "gsm8k" in options else options[0]])[0]
    fb = (
        "the default benchmark"
        if fallback == "gsm8k"
        else f"the benchmark with the most published points {'the trend can be fitted on' if fittable else ''}".strip()
    )
    if not reference:
        return fallback, f"{fb}, as no reference is chosen"
    own = points[points["draft"].eq(reference) & pd.to_numeric(points["accept_length"], errors="coerce").notna()]
    counts = own["benchmark"].value_counts()
    if counts.empty:
        return fallback, f"{fb}, as {who} publishes no acceptance figure in the registry"
    with_volume = set(own.loc[own["usable"].astype(bool), "benchmark"])
    candidates = [b for b in counts.index if b in with_volume or b in fittable]
    passed = [str(b) for b in counts.index if b not in candidates]
    passed_words = _names(passed)
    unfit = "without a training volume, and too few published drafts state one there to fit the trend"
    if not candidates:
        only = " only" if len(passed) == 1 else ""
        return fallback, f"as {who} publishes on {passed_words}{only}, {unfit}: {bench_label(fallback)} is {fb}"
    trend = points[points["usable"].astype(bool)]["benchmark"].value_counts()
    # most figures; GSM8K first among equals, then the benchmark the trend has most points on, then by name
    ranked = sorted(candidates, key=lambda b: (-int(counts[b]), b != "gsm8k", -int(trend.get(b, 0)), str(b)))
    best, n = str(ranked[0]), int(counts[ranked[0]])
    tied = [str(b) for b in ranked[1:] if int(counts[b]) == n]
    # a benchmark with as many figures set aside: "most on" is said of the ones the trend can be fitted on only
    passed_many = [b for b in passed if int(counts[b]) >= n]
    among = " of the benchmarks the published trend can be fitted on" if passed_many else ""
    why = f"the one {who} publishes most on{among} ({n} figure{'s' if n != 1 else ''}"
    if tied:
        why += f", as many as on {_names(tied)}; "
        if best == "gsm8k":
            why += "GSM8K first among equals"
        elif int(trend.get(best, 0)) > int(trend.get(tied[0], 0)):
            why += (
                f"{bench_label(best)} first, where the trend has more published points with a volume: "
                f"{int(trend.get(best, 0))} against {int(trend.get(tied[0], 0))}"
            )
        else:
            why += f"{bench_label(best)} first among equals by name"
    why += ")"
    if passed_many:
        why += f"; it publishes on {_names(passed_many)} too, {unfit}"
    return best, why


def settings_for(points: pd.DataFrame, benchmark: str, x: Axis = "samples") -> pd.DataFrame:
    """Setting keys reported on ``benchmark``: points and distinct volumes each, best-fittable first."""
    usable = points[points["usable"].astype(bool) & (points["benchmark"] == benchmark.lower())]
    usable = usable[pd.to_numeric(usable[x], errors="coerce").gt(0)]
    rows = []
    for key, grp in usable.groupby("setting_key", dropna=True):
        rows.append(
            {
                "setting_key": key,
                "chain": grp["chain"].dropna().iloc[0] if grp["chain"].notna().any() else None,
                "points": len(grp),
                "distinct_volumes": int(grp[x].nunique()),
                "fittable": int(grp[x].nunique()) >= MIN_DISTINCT_VOLUMES,
            }
        )
    df = pd.DataFrame(rows, columns=["setting_key", "chain", "points", "distinct_volumes", "fittable"])
    return df.sort_values(["distinct_volumes", "points"], ascending=False).reset_index(drop=True)


def default_setting(
    points: pd.DataFrame, benchmark: str, reference: str | None, preferred: Sequence[str] = (), x: Axis = "samples"
) -> str | None:
    """The setting a page opens on for ``benchmark``: the first of ``preferred`` (the reference's published settings,
    fewest steps first, as Overview reads them: ``overview.reference_settings``) that ``reference`` reports there with
    a known volume, so the target it publishes, the published drafts listed and the headline are at one setting;
    else the best-fittable one (``settings_for``). None where no setting has data.

    Walk X: the page opened on ``...bs=8,sglang`` (most published volumes) and said "To reach 2.548 on GSM8K at
    ...bs=8,sglang", 2.548 being lmsys's Llama-3.1-8B draft's figure at bs=1, a draft not among bs=8's."""
    options = settings_for(points, benchmark, x)
    if options.empty:
        return None
    bench = (benchmark or "").lower()
    own = points[
        points["usable"].astype(bool)
        & points["draft"].eq(reference)
        & points["benchmark"].eq(bench)
        & pd.to_numeric(points[x], errors="coerce").gt(0)
    ]
    published = set(own["setting_key"].dropna().astype(str)) & set(options["setting_key"].astype(str))
    for key in preferred:
        if key in published:
            return key
    return str(options["setting_key"].iloc[0])


def fittable_same_chain(points: pd.DataFrame, benchmark: str, setting_key: str, x: Axis = "samples") -> Any | None:
    """The best-fittable setting drafting the same chain as ``setting_key`` (another batch size or engine), as a
    ``settings_for`` row; None where ``setting_key`` is fittable itself, has no chain, or no such setting exists."""
    options = settings_for(points, benchmark, x)
    mine = options[options["setting_key"] == setting_key]
    if mine.empty or bool(mine["fittable"].iloc[0]) or mine["chain"].iloc[0] is None:
        return None
    same = options[(options["chain"] == mine["chain"].iloc[0]) & options["fittable"].astype(bool)]
    return next(same.itertuples(), None)


def resolve_setting(points: pd.DataFrame, benchmark: str, setting: str | None, x: Axis = "samples") -> str:
    """A full setting key from a key, a chain ("3,1,4" / "(3,1,4)") or None (the best-fittable one)."""
    options = settings_for(points, benchmark, x)
    if options.empty:
        known = ", ".join(benchmarks(points)[:15])
        raise InputError(f"no published draft with a known training volume reports {benchmark!r}; try one of: {known}")
    if setting is None or not str(setting).strip():
        return str(options["setting_key"].iloc[0])
    text = str(setting).strip()
    if text in set(options["setting_key"]):
        return text
    chain = "(" + text.strip("()").replace(" ", "") + ")"
    if not all(part.isdigit() or part == "?" for part in chain.strip("()").split(",")):
        raise InputError(
            f"--setting must be a chain like 3,1,4 or a setting key such as {options['setting_key'].iloc[0]!r}"
        )
    match = options[options["chain"] == chain]
    if match.empty:
        raise InputError(
            f"no {benchmark} result at chain {chain}; settings with data: "
            f"{', '.join(options['setting_key'].astype(str))}"
        )
    return str(match["setting_key"].iloc[0])
