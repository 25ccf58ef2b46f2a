"""Student's t distribution without scipy: its CDF and quantile, for the confidence bands of the fits.

The CDF is the regularised incomplete beta by Lentz's continued fraction, the quantile a bisection
on it (closed forms for 1 and 2 degrees of freedom). Accurate to ~1e-10, far below anything a
3-point fit can resolve. Used by the data-volume fit (``scaling``) and the learning curves (``curves``).
"""

from __future__ import annotations

import functools
import math

from comparelib.errors import InputError


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


@functools.lru_cache(maxsize=256)
def t_two_sided(level: float, df: float) -> float:
    """The t multiplier of a two-sided ``level`` interval (0.95 -> the 0.975 quantile), cached."""
    return t_quantile(0.5 + level / 2.0, df)


def f_cdf(x: float, d1: float, d2: float) -> float:
    """P(F <= x) for Fisher's F with (d1, d2) degrees of freedom."""
    if d1 <= 0 or d2 <= 0:
        raise InputError("degrees of freedom must be positive")
    if x <= 0:
        return 0.0
    return _betainc(d1 / 2.0, d2 / 2.0, d1 * x / (d1 * x + d2))


@functools.lru_cache(maxsize=256)
def f_quantile(p: float, d1: float, d2: float) -> float:
    """The F value with P(F <= f) = p (bisection on ``f_cdf``), cached: the joint confidence region of a
    nonlinear fit with d1 parameters (the learning-curve plan) uses it."""
    if not 0.0 < p < 1.0:
        raise InputError(f"probability must be strictly between 0 and 1, got {p}")
    lo, hi = 0.0, 1.0
    while f_cdf(hi, d1, d2) < p:
        hi *= 2.0
        if hi > 1e12:
            return math.inf
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if f_cdf(mid, d1, d2) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)
