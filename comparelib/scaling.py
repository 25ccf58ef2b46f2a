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
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from comparelib.errors import DataError, InputError

MIN_DISTINCT_VOLUMES = 3
LEVEL = 0.95
X_COLUMNS = ("samples", "tokens")
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
# Student t quantile without scipy: regularised incomplete beta by Lentz's continued fraction,
# then bisection. Accurate to ~1e-10, which is far below anything a 3-point fit can resolve.


def _betacf(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = tiny if abs(d) < tiny else d
    d = 1.0 / d
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    bt = math.exp(lbt)
    if x < (a + 1.0) / (a + b + 2.0):
        return bt * _betacf(a, b, x) / a
    return 1.0 - bt * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    if df <= 0:
        raise InputError("degrees of freedom must be positive")
    tail = 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The t value with P(T <= t) = p (two-sided 95% uses p = 0.975)."""
    if not 0.0 < p < 1.0:
        raise InputError(f"probability must be strictly between 0 and 1, got {p}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    if p == 0.5:
        return 0.0
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        q = 2.0 * p - 1.0
        return q * math.sqrt(2.0 / (1.0 - q * q))
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
        if hi > 1e12:
            return math.inf
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


# ---------------------------------------------------------------------------------------------
# Points


def family_of(target_model: str | None) -> str:
    """Model family = the organisation of the target (moonshotai, meta-llama, Qwen ...)."""
    if not target_model:
        return ""
    return str(target_model).split("/")[0].strip().lower()


def _empty_points() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype="object") for c in POINT_COLUMNS})


def _num(value: Any) -> float | None:
    if value is None:
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


def published_points(results: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per (registry draft, benchmark, setting); ``usable``/``reason`` say why a row can't be fitted.

    ``results`` is ``registry.results_frame()`` (or any frame with its columns); None loads the registry.
    """
    if results is None:
        from comparelib import registry

        results = registry.results_frame()
    rows: list[dict[str, Any]] = []
    for rec in results.to_dict(orient="records"):
        samples, tokens, acc = (
            _num(rec.get("train_samples")),
            _num(rec.get("train_tokens")),
            _num(rec.get("accept_length")),
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
    if _num(accept_length) is None:
        reasons.append("no acceptance length measured")
    if _num(samples) is None and _num(tokens) is None:
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
        "samples": _num(samples),
        "tokens": _num(tokens),
        "accept_length": _num(accept_length),
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


def run_setting(run: Any) -> tuple[str, str]:
    """(setting key, chain label) of a store run, in the registry's format when it is available."""
    params = getattr(run, "params", {}) or {}
    steps, topk, ndt = run.num_steps, run.topk, run.num_draft_tokens
    if topk is None and steps is not None and ndt is not None and ndt == steps + 1:
        topk = 1  # a chain: SGLang's num_draft_tokens = steps + 1 only makes sense with topk 1
    chain = f"({steps},{topk},{ndt})" if steps is not None else "(none)"
    try:
        from comparelib.registry import Setting

        temp = params.get("temperature")
        setting = Setting(
            engine=(str(run.engine).lower() or None) if run.engine else None,
            batch_size=params.get("concurrency"),
            num_steps=steps,
            topk=topk,
            num_draft_tokens=ndt,
            # Published chain results rarely state a temperature; greedy own runs are keyed without
            # it so they line up with them (an assumption, visible in the key when T is not 0).
            temperature=None if temp in (None, 0, 0.0) else float(temp),
            tree="tree" if topk and topk > 1 else None,
            hardware=None,
        )
        return setting.key, setting.chain
    except Exception:  # registry not importable or a different constructor: keep a readable key
        return f"{run.engine or '?'} {chain} bs={params.get('concurrency')}", chain


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
    x: str
    points: pd.DataFrame
    excluded: pd.DataFrame


def select(
    points: pd.DataFrame,
    *,
    benchmark: str,
    setting_key: str | None,
    x: str = "samples",
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
            r.append(f"other model family ({rec.get('family')})")
        if not rec["usable"]:
            r.append(rec["reason"])
        elif _num(rec.get(x)) is None or (_num(rec.get(x)) or 0) <= 0:
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
    x: str = "samples"
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
        return t_quantile(0.5 + level / 2.0, self.df)

    def extrapolates(self, volume: float) -> bool:
        x = math.log10(volume)
        return x < self.x_min - 1e-9 or x > self.x_max + 1e-9


def fit(
    points: pd.DataFrame, *, x: str = "samples", benchmark: str = "", setting_key: str = "", label: str = ""
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
    """Acceptance length is at least 1 and at most steps + 1 (a chain); the line knows neither."""
    import re

    m = re.search(r"steps=(\d+)", setting_key or "")
    hi = float(int(m.group(1)) + 1) if m else math.inf
    m2 = re.search(r"draft=(\d+)", setting_key or "")
    if m2:
        hi = min(hi, float(m2.group(1)))
    return 1.0, hi


def predict_bounded(f: Fit, volume: float, level: float = LEVEL) -> tuple[float, float, float, bool]:
    """``predict`` clipped to the possible range; the flag says whether clipping happened."""
    lo_b, hi_b = accept_bounds(f.setting_key)
    mean, lo, hi = predict(f, volume, level)
    clipped = mean < lo_b or mean > hi_b or lo < lo_b or hi > hi_b
    clip = lambda v: min(max(v, lo_b), hi_b)  # noqa: E731
    return clip(mean), clip(lo), clip(hi), clipped


def fit_vs_measured(
    f: Fit,
    volume: float,
    measured: float,
    *,
    measured_setting: str | None = None,
    measured_benchmark: str | None = None,
    level: float = LEVEL,
) -> tuple[bool, str]:
    """(agrees, sentence): the fit's prediction at ``volume`` next to an acceptance the user measured.

    A measurement outside the fit's band is explained rather than hidden: the fit is made of other
    drafts' published numbers at one benchmark and setting, so a different setting or prompt set, a
    different target, or a volume outside the fitted range each make it a poor guide to this draft.
    """
    mean, lo, hi, clipped = predict_bounded(f, volume, level)
    lo_b, hi_b = accept_bounds(f.setting_key)
    uninformative = lo <= lo_b + 0.01 and hi >= hi_b - 0.01  # the band is the whole possible range
    agrees = lo <= measured <= hi and not uninformative and abs(measured - mean) <= 0.5
    text = (
        f"You measured **{measured:.2f}**; the fit predicts **{mean:.2f}** ({level:.0%} band {lo:.2f}..{hi:.2f}) "
        f"at {human(volume)}."
    )
    if agrees:
        return True, text + " Your measurement is close to the fit: the published drafts' trend agrees with it."
    reasons = []
    if uninformative:
        reasons.append(
            f"the band spans every possible value ({lo_b:.0f}..{hi_b:.0f}) there, so the fit can neither "
            "confirm nor contradict a measurement"
        )
    if measured_setting and measured_setting != f.setting_key:
        reasons.append(f"you measured at {measured_setting}, the fit is for {f.setting_key}")
    if measured_benchmark and measured_benchmark != f.benchmark:
        reasons.append(f"your prompts are {measured_benchmark!r}, the fit is {bench_label(f.benchmark)}")
    if f.extrapolates(volume):
        reasons.append("your volume is outside the published volumes the fit was made from (an extrapolation)")
    if clipped:
        reasons.append("the fitted line leaves the possible range there and was clipped")
    reasons.append("the fit is made of other drafts (other targets, recipes and data), not of yours")
    direction = "higher" if measured > mean else "lower"
    where = "outside the band" if not lo <= measured <= hi else f"{abs(measured - mean):.2f} from the fit's value"
    return False, (
        text
        + f" Your measurement is {direction} ({where}). Why they can disagree: "
        + "; ".join(reasons)
        + ". Trust the measurement for your draft; the fit only shows the published trend."
    )


def fit_summary(f: Fit, *, target_accept: float | None = None, own_volume: float | None = None) -> dict[str, Any]:
    """Plain dict for the CLI and the page: coefficients, uncertainty, inverse and prediction."""
    out: dict[str, Any] = {
        "benchmark": f.benchmark,
        "setting_key": f.setting_key,
        "x": f.x,
        "label": f.label,
        "a": f.a,
        "b": f.b,
        "se_a": f.se_a,
        "se_b": f.se_b,
        "n": f.n,
        "distinct_volumes": f.distinct,
        "r2": f.r2,
        "residual_se": f.residual_se,
        "level": LEVEL,
        "drafts": list(f.drafts),
    }
    if target_accept is not None:
        inv = volume_for(f, target_accept)
        out["target_accept"] = target_accept
        out["volume_for_target"] = None if inv is None else {"n": inv[0], "lo": inv[1], "hi": inv[2]}
        out["target_sentence"] = target_sentence(f, target_accept)
    if own_volume is not None:
        mean, lo, hi = predict(f, own_volume)
        cmean, clo, chi, clipped = predict_bounded(f, own_volume)
        out["own_volume"] = own_volume
        out["predicted_at_own"] = {
            "mean": cmean,
            "lo": clo,
            "hi": chi,
            "clipped_to_possible_range": clipped,
            "line_mean": mean,
            "line_lo": lo,
            "line_hi": hi,
            "extrapolated": f.extrapolates(own_volume),
        }
    return out


# ---------------------------------------------------------------------------------------------
# Sentences


def human(n: float | None) -> str:
    """37000 -> '37K', 1_400_000 -> '1.4M'."""
    if n is None or not math.isfinite(n):
        return "unbounded"
    for div, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if abs(n) >= div:
            val = n / div
            text = f"{val:.2g}" if val < 10 else f"{val:.0f}"
            if "e" in text:
                text = f"{val:.0f}"
            return f"{text}{suffix}"
    return f"{n:.0f}"


def bench_label(benchmark: str) -> str:
    names = {
        "gsm8k": "GSM8K",
        "mtbench": "MT-Bench",
        "humaneval": "HumanEval",
        "math500": "MATH500",
        "livecodebench": "LiveCodeBench",
        "gpqa": "GPQA",
        "financeqa": "FinanceQA",
    }
    return names.get(benchmark, benchmark)


def target_sentence(f: Fit, target_accept: float) -> str:
    """'To reach 3.0 on GSM8K at (3,1,4) you need about N samples (range M..K).'"""
    where = f"{bench_label(f.benchmark)} at {f.setting_key}"
    inv = volume_for(f, target_accept)
    if inv is None:
        return (
            f"The fit for {where} does not rise with more {f.x} (slope {f.b:+.2f} per decade), so no volume "
            f"reaches {target_accept:g}."
        )
    n, lo, hi = inv
    if lo is None or hi is None:
        return (
            f"To reach {target_accept:g} on {where} you need about {human(n)} {f.x} (no {int(LEVEL * 100)}% range: "
            f"the slope, {f.b:+.2f} ± {f.se_b:.2f} per decade, is too uncertain to bound it)."
        )
    note = "; outside the fitted volumes, so an extrapolation" if f.extrapolates(n) else ""
    return (
        f"To reach {target_accept:g} on {where} you need about {human(n)} {f.x} "
        f"(range {human(lo)}..{human(hi)}, {int(LEVEL * 100)}% band{note})."
    )


@dataclass(frozen=True)
class GapVerdict:
    """Where a draft's training volume sits against a reference draft's, and what a fit predicts there."""

    own_volume: float
    reference: str
    reference_volume: float | None
    ratio: float | None  # reference volume / own volume
    benchmark: str
    setting_key: str
    chain: str | None
    reference_accept: float | None
    family: str
    family_distinct: int
    fit_scope: str  # "family" | "pooled" | "none"
    fit: Fit | None
    predicted: tuple[float, float, float] | None  # clipped to 1..steps+1
    extrapolated: bool
    family_chain_fit: Fit | None  # looser, labelled: same family and chain, batch size / engine may differ
    family_chain_predicted: tuple[float, float, float] | None
    sentence: str


def _reference_rows(pts: pd.DataFrame, reference: str, benchmark: str) -> pd.DataFrame:
    return pts[(pts["draft"] == reference) & (pts["benchmark"] == benchmark) & pts["usable"].astype(bool)]


def choose_setting(pts: pd.DataFrame, reference: str, benchmark: str) -> str | None:
    """The reference's setting on ``benchmark`` with the most distinct volumes across drafts (best-fitted)."""
    rows = _reference_rows(pts, reference, benchmark)
    if rows.empty:
        return None
    best, best_n = None, -1
    for key in rows["setting_key"].dropna().unique():
        same = pts[(pts["benchmark"] == benchmark) & (pts["setting_key"] == key) & pts["usable"].astype(bool)]
        n = same["samples"].dropna().nunique()
        if n > best_n:
            best, best_n = key, n
    return best


def _try_fit(sel: Selection, x: str, label: str) -> Fit | None:
    pub = sel.points[sel.points["kind"] == "published"]
    try:
        return fit(pub, x=x, benchmark=sel.benchmark, setting_key=sel.setting_key, label=label)
    except DataError:
        return None


def _pred_text(f: Fit, volume: float, x: str) -> tuple[str, tuple[float, float, float], bool]:
    mean, lo, hi, clipped = predict_bounded(f, volume)
    extrap = f.extrapolates(volume)
    text = f"{mean:.2f} (95% band {lo:.2f}..{hi:.2f}) at {human(volume)} {x}"
    notes = []
    if extrap:
        notes.append(
            "an extrapolation "
            + ("below the smallest" if math.log10(volume) < f.x_min else "beyond the largest")
            + " published volume"
        )
    if clipped:
        notes.append("clipped to the possible range 1..steps+1, so the line says little there")
    if notes:
        text += ", " + "; ".join(notes)
    return text, (mean, lo, hi), extrap


def gap_verdict(
    own_volume: float,
    reference: str,
    *,
    benchmark: str = "gsm8k",
    setting_key: str | None = None,
    points: pd.DataFrame | None = None,
    x: str = "samples",
) -> GapVerdict:
    """Compare ``own_volume`` with ``reference``'s volume, and predict acceptance at ``own_volume``.

    The fit is first tried on drafts of the reference's own model family at the same setting key;
    with fewer than three distinct volumes there, it falls back to all drafts at that setting key
    (pooled, labelled so). A looser family fit (same chain, batch size / engine not required to
    agree) is added as a separate, labelled sentence when it exists.
    """
    if own_volume is None or not own_volume > 0:
        raise InputError(f"own training volume must be a positive number, got {own_volume!r}")
    pts = scaling_points() if points is None else points
    bench = benchmark.lower()
    ref_rows = pts[pts["draft"] == reference]
    if ref_rows.empty:
        raise InputError(
            f"{reference} has no published acceptance results (or is not a published draft); pick a reference "
            "that reports acceptance length"
        )
    ref_vol = _num(ref_rows[x].dropna().iloc[0]) if ref_rows[x].notna().any() else None
    family = str(ref_rows["family"].iloc[0])
    if setting_key is None:
        setting_key = choose_setting(pts, reference, bench)
    ratio = ref_vol / own_volume if ref_vol else None
    ref_acc_rows = _reference_rows(pts, reference, bench)
    if setting_key is not None:
        ref_acc_rows = ref_acc_rows[ref_acc_rows["setting_key"] == setting_key]
    ref_acc = float(ref_acc_rows["accept_length"].iloc[0]) if len(ref_acc_rows) else None
    chain = (
        str(ref_acc_rows["chain"].iloc[0]) if len(ref_acc_rows) and pd.notna(ref_acc_rows["chain"].iloc[0]) else None
    )

    fam_sel = select(pts, benchmark=bench, setting_key=setting_key, x=x, family=family)
    fam_distinct = int(fam_sel.points[fam_sel.points["kind"] == "published"][x].nunique())
    scope = "family"
    f = _try_fit(fam_sel, x, f"{family} drafts")
    if f is None:
        scope = "pooled"
        f = _try_fit(select(pts, benchmark=bench, setting_key=setting_key, x=x), x, "pooled across drafts")
        if f is None:
            scope = "none"
    loose = None
    if chain and scope != "family":
        loose_sel = select(pts, benchmark=bench, setting_key=None, x=x, family=family, chain=chain)
        loose_sel = Selection(loose_sel.benchmark, f"chain {chain}", x, loose_sel.points, loose_sel.excluded)
        loose = _try_fit(loose_sel, x, f"{family} drafts at chain {chain}, batch size and engine not all stated")

    parts: list[str] = []
    if ref_vol and ratio:
        if ratio >= 1.5:
            far = "far below" if ratio >= 10 else "below"
            parts.append(
                f"{human(own_volume)} training {x} sits {far} the {human(ref_vol)} of the published draft "
                f"{reference} ({ratio:.0f}x fewer)."
            )
        elif ratio <= 1 / 1.5:
            parts.append(
                f"{human(own_volume)} training {x} is more than the {human(ref_vol)} of {reference} "
                f"({1 / ratio:.1f}x more)."
            )
        else:
            parts.append(f"{human(own_volume)} training {x} is close to the {human(ref_vol)} of {reference}.")
    else:
        parts.append(f"{reference} does not report its training volume, so the volumes cannot be compared.")
    where = f"{bench_label(bench)} at {setting_key}" if setting_key else bench_label(bench)
    if ref_acc is not None:
        parts.append(f"It reports an acceptance length of {ref_acc:.2f} on {where}.")
    pred = None
    extrap = False
    if f is None:
        parts.append(
            f"Too few drafts with a known volume report {where} to fit a trend, so no acceptance is predicted."
        )
    else:
        text, pred, extrap = _pred_text(f, own_volume, x)
        if scope == "pooled":
            parts.append(
                f"Only {fam_distinct} distinct {family} volume(s) report {where}, too few to fit; a fit pooled across "
                f"all {len(f.drafts)} drafts at this setting (R² {f.r2:.2f}, slope {f.b:+.2f} per decade) predicts {text}."
            )
        else:
            parts.append(
                f"A fit over {f.n} {family} points at this setting (R² {f.r2:.2f}, slope {f.b:+.2f} per decade) "
                f"predicts {text}."
            )
    loose_pred = None
    if loose is not None:
        text, loose_pred, _ = _pred_text(loose, own_volume, x)
        parts.append(
            f"Looser, labelled: {family} drafts at chain {chain} on {bench_label(bench)} ({loose.n} points, "
            f"{loose.distinct} volumes {human(10**loose.x_min)}..{human(10**loose.x_max)}; batch size and engine "
            f"not all stated) give slope {loose.b:+.2f} per decade and predict {text}."
        )
    return GapVerdict(
        own_volume=own_volume,
        reference=reference,
        reference_volume=ref_vol,
        ratio=ratio,
        benchmark=bench,
        setting_key=setting_key or "",
        chain=chain,
        reference_accept=ref_acc,
        family=family,
        family_distinct=fam_distinct,
        fit_scope=scope,
        fit=f,
        predicted=pred,
        extrapolated=extrap,
        family_chain_fit=loose,
        family_chain_predicted=loose_pred,
        sentence=" ".join(parts),
    )


def gap_sentence(own_volume: float, reference_draft: str, **kw: Any) -> str:
    return gap_verdict(own_volume, reference_draft, **kw).sentence


KIMI_REFERENCE = "AQ-MedAI/Kimi-K2-Instruct-eagle3"


def kimi_verdict(points: pd.DataFrame | None = None, *, benchmark: str = "gsm8k") -> GapVerdict:
    """The built-in example: the team's 37K-sample Kimi-K2.5 draft against AQ-MedAI's 1.4M-sample one."""
    from comparelib import registry

    own = float(registry.example_own_draft_volume()["samples"])
    return gap_verdict(own, KIMI_REFERENCE, benchmark=benchmark, points=points)


# ---------------------------------------------------------------------------------------------
# Choosing what to fit


def benchmarks(points: pd.DataFrame) -> list[str]:
    """Benchmarks with at least one usable point, most points first."""
    usable = points[points["usable"].astype(bool)]
    return list(usable["benchmark"].value_counts().index)


def settings_for(points: pd.DataFrame, benchmark: str, x: str = "samples") -> pd.DataFrame:
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


def resolve_setting(points: pd.DataFrame, benchmark: str, setting: str | None, x: str = "samples") -> str:
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
            f"no {benchmark} result at chain {chain}; settings with data: {', '.join(options['setting_key'].astype(str))}"
        )
    return str(match["setting_key"].iloc[0])


# ---------------------------------------------------------------------------------------------
# The overview's answer: size, data, acceptance, live speed, and which gap is largest.


@dataclass(frozen=True)
class SizeFacts:
    """Parameter counts of two drafts and the reason they differ."""

    own_excluding_embedding: int
    own_total: int
    ref_excluding_embedding: int
    ref_total: int
    own_embedding: int
    ref_embedding: int
    own_lm_head: int
    ref_lm_head: int
    own_lm_rows: int | None
    ref_lm_rows: int | None
    hidden: int | None
    embedding_shared: bool
    sentence: str


def _lm_rows(spec: Any) -> tuple[int | None, int | None]:
    for t in spec.tensors:
        if t.component == "lm_head" and len(t.shape) == 2:
            return int(t.shape[0]), int(t.shape[1])
    return None, None


def size_facts(
    own_spec: Any, ref_spec: Any, own_name: str = "our draft", ref_name: str = "the reference"
) -> SizeFacts:
    """Counts outside and with the embedding, and the one-line reason (lm_head vocabulary, usually)."""
    from comparelib import params

    a, b = params.count(own_spec), params.count(ref_spec)
    a_rows, hidden = _lm_rows(own_spec)
    b_rows, _ = _lm_rows(ref_spec)
    diff = a.excluding_embedding - b.excluding_embedding
    lm_diff = a.lm_head - b.lm_head
    shared = bool(a.shared_with_target) and bool(b.shared_with_target) if hasattr(a, "shared_with_target") else False
    emb_note = ""
    if a.embedding and a.embedding == b.embedding:
        emb_shape = next((t.shape for t in own_spec.tensors if t.component == "embedding"), None)
        dims = f" ({emb_shape[0]:,} x {emb_shape[1]:,})" if emb_shape and len(emb_shape) == 2 else ""
        emb_note = (
            f" Both carry the same {a.embedding:,}-parameter embedding{dims}"
            + (", frozen and shared with the target" if shared else "")
            + ", so it adds equally to both totals."
        )
    if diff == 0:
        why = "They have the same size outside the embedding."
    elif lm_diff and abs(diff - lm_diff) <= 0.01 * abs(diff):
        bigger, smaller = (own_name, ref_name) if diff > 0 else (ref_name, own_name)
        rows_big, rows_small = (a_rows, b_rows) if diff > 0 else (b_rows, a_rows)
        why = (
            f"{bigger} is {abs(diff):,} parameters larger outside the embedding, and all of it is the lm_head: "
            f"{rows_big:,} x {hidden:,} over the full vocabulary against {rows_small:,} x {hidden:,} over a reduced "
            f"draft vocabulary in {smaller}."
        )
    else:
        why = (
            f"{own_name} is {diff:+,} parameters outside the embedding against {ref_name}, "
            f"of which the lm_head accounts for {lm_diff:+,}."
        )
    return SizeFacts(
        own_excluding_embedding=a.excluding_embedding,
        own_total=a.total,
        ref_excluding_embedding=b.excluding_embedding,
        ref_total=b.total,
        own_embedding=a.embedding,
        ref_embedding=b.embedding,
        own_lm_head=a.lm_head,
        ref_lm_head=b.lm_head,
        own_lm_rows=a_rows,
        ref_lm_rows=b_rows,
        hidden=hidden,
        embedding_shared=shared,
        sentence=why + emb_note,
    )


def setting_label(key: str | None) -> str:
    """A setting key for sentences: the registry's "unspecified" reads as what it means."""
    if not key or key == "unspecified":
        return "setting not stated by the source"
    return key


HEADLINE_BENCHMARKS: tuple[str, ...] = ("gsm8k", "humaneval", "math500")


def steps_of(key: str | None) -> int | None:
    import re

    m = re.search(r"steps=(\d+)", key or "")
    return int(m.group(1)) if m else None


@dataclass(frozen=True)
class AcceptFacts:
    own: float | None
    own_setting: str | None
    ref_lo: float | None
    ref_hi: float | None
    ref_settings: tuple[str, ...]
    same_setting: bool
    sentence: str


def accept_facts(
    own_accept: float | None,
    own_setting: str | None,
    reference: str,
    *,
    benchmarks: Sequence[str] = HEADLINE_BENCHMARKS,
    results: pd.DataFrame | None = None,
) -> AcceptFacts:
    """Our acceptance against the reference's at the same setting, or the nearest ones, saying which."""
    pts = published_points(results)
    ref = pts[(pts["draft"] == reference) & pts["accept_length"].notna()]
    if benchmarks:
        ref = ref[ref["benchmark"].isin([b.lower() for b in benchmarks])]
    same = ref[ref["setting_key"] == own_setting] if own_setting else ref.iloc[0:0]
    same_setting = not same.empty
    if same_setting:
        chosen = same
    else:
        own_steps = steps_of(own_setting)
        limit = (own_steps + 1) if own_steps is not None else None
        steps = ref["setting_key"].map(steps_of)
        if limit is not None:
            known = steps.dropna()
            limit = max(limit, int(known.min())) if len(known) else limit
            chosen = ref[steps.isna() | (steps <= limit)]
        else:
            chosen = ref
    settings = tuple(sorted({setting_label(str(k)) for k in chosen["setting_key"].dropna()}))
    lo = float(chosen["accept_length"].min()) if len(chosen) else None
    hi = float(chosen["accept_length"].max()) if len(chosen) else None
    benches = "/".join(bench_label(b) for b in benchmarks) if benchmarks else "all benchmarks"
    ref_text = (
        "no published acceptance" if lo is None else (f"{lo:.2f}" if abs(hi - lo) < 0.005 else f"{lo:.2f}-{hi:.2f}")
    )
    own_text = "not measured" if own_accept is None else f"~{own_accept:.1f}"
    if same_setting:
        tail = f"at the same setting ({own_setting})."
    else:
        tail = (
            f"but the settings differ: ours {own_setting or 'unknown'}, theirs "
            f"{'; '.join(settings) or 'none'}; acceptance grows with the number of draft steps, so this is "
            "not a like-for-like comparison."
        )
    sentence = f"Acceptance length: ours {own_text}, {reference} {ref_text} on {benches}, {tail}"
    return AcceptFacts(own_accept, own_setting, lo, hi, settings, same_setting, sentence)


@dataclass(frozen=True)
class LiveFacts:
    spec_tok_s: float
    baseline_tok_s: float
    gain: float  # spec / baseline - 1
    num_steps: int | None
    num_draft_tokens: int | None
    run_id: int
    baseline_run_id: int
    kind: str
    sentence: str


def live_facts(runs: Sequence[Any]) -> LiveFacts | None:
    """Best speculative run of a group against the baseline measured under the same conditions."""
    from comparelib import speedup

    spec = [r for r in runs if not r.is_baseline and r.output_tokens_per_s]
    if not spec:
        return None
    best = max(spec, key=lambda r: r.output_tokens_per_s)
    base = speedup.choose_baseline(runs, [best])
    if base is None:
        return None
    gain = best.output_tokens_per_s / base.output_tokens_per_s - 1.0
    kind = "example" if "example" in (best.kind, base.kind) else best.kind
    sentence = (
        f"Live: {best.output_tokens_per_s:g} tok/s with speculation (num_steps={best.num_steps}, "
        f"{best.num_draft_tokens} draft tokens) against {base.output_tokens_per_s:g} tok/s without: {gain * 100:+.1f}%"
        + (" (example data)." if kind == "example" else ".")
    )
    return LiveFacts(
        float(best.output_tokens_per_s),
        float(base.output_tokens_per_s),
        gain,
        best.num_steps,
        best.num_draft_tokens,
        best.id,
        base.id,
        kind,
        sentence,
    )


def largest_gap(
    *,
    data_ratio: float | None,
    size_ratio: float | None,
    accept_ratio: float | None,
    accept_same_setting: bool = False,
    own_volume: float | None = None,
    ref_volume: float | None = None,
) -> tuple[str, str]:
    """(name, sentence) of the largest of the gaps, each as a factor >= 1 against the reference."""
    factors: dict[str, float] = {}
    if data_ratio:
        factors["training data"] = max(data_ratio, 1 / data_ratio)
    if size_ratio:
        factors["size"] = max(size_ratio, 1 / size_ratio)
    if accept_ratio:
        factors["acceptance length"] = max(accept_ratio, 1 / accept_ratio)
    if not factors:
        return "", "Not enough facts to name the largest gap."
    name = max(factors, key=lambda k: factors[k])
    others = ", ".join(f"{k} {v:.1f}x" for k, v in factors.items() if k != name)
    if name == "training data" and own_volume and ref_volume:
        lead = (
            f"The largest gap is training data: {human(own_volume)} samples against {human(ref_volume)} "
            f"({factors[name]:.0f}x {'fewer' if own_volume < ref_volume else 'more'})."
        )
    else:
        lead = f"The largest gap is {name}: a factor of {factors[name]:.1f}."
    if others:
        lead += (
            f" The others are smaller ({others}"
            + (
                "; acceptance compared across different settings"
                if "acceptance length" in factors and not accept_same_setting
                else ""
            )
            + ")."
        )
    return name, lead
