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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd

from comparelib.analysis import traininglogs
from comparelib.analysis.scaling import run_setting
from comparelib.analysis.stats import t_two_sided
from comparelib.analysis.traininglogs import LogRecord, ReadStats
from comparelib.analysis.verdicts import human
from comparelib.errors import DataError, InputError
from comparelib.values import band_text

Verdict = Literal["rising", "plateau", "overfitting", "too-few-points"]
Split = Literal["auto", "train", "eval"]  # which logged points a curve is fitted on ("auto": eval when enough)
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)
XUnit = Literal["samples_seen", "step", "epoch"]  # what a curve's x axis counts
MIN_FIT_POINTS = 5
# eval points a fall is read from without a noise test (fewer than ``MIN_FIT_POINTS``): a log evaluated once a pass
# for four passes (walk BP) has four
FEW_EVAL_POINTS = 3
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
    epoch: float | None = None  # as the log numbers it: whole, or a fraction of training progress (traininglogs)
    # positions its record reported, gaps included (more than len(acc) when one was NaN): how collect() tells
    # an incomplete point; not part of the point's value
    logged_positions: int = field(default=0, compare=False, repr=False)
    # every chain position the log gave, before ``steps`` cut ``acc`` (empty: the same as ``acc``): a live run at
    # its own num_steps is simulated from these, not from the positions the page's setting uses
    logged_acc: tuple[float, ...] = field(default=(), compare=False, repr=False)


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
        """Predicted change of tau from x_ref to factor * x_ref: (mean, low, high), the band not clipped at
        tau_max. The form (a >= 0) never falls as x grows, so for factor >= 1 the band's low end is at least 0: a
        delta-method band reaching under it says nothing the form allows."""
        dg = self._g(self.x_ref * factor) - self._g(self.x_ref)
        cur = self.tau_inf - self.a
        new = min(self.tau_max, self.tau_inf - self.a * factor ** (-self.b))
        mean = new - cur
        half = self._t() * math.sqrt(max(0.0, float(dg @ np.array(self.cov) @ dg)))
        return mean, max(mean - half, 0.0) if factor >= 1 else mean - half, mean + half

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


def x_words(x: float) -> str:
    """A place on a learning curve's axis (a step, samples seen, an epoch) to three significant figures: "10.8K",
    "461K", "2.5". The checkpoint the verdict names must be one the log has: ``human``'s two figures called step
    10,800 "11K" (walk AM) and epoch 2.5 "2"."""
    div, suffix = next(((d, s) for d, s in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")) if abs(x) >= d), (1, ""))
    text = f"{x / div:.3g}"
    return f"{f'{x / div:.0f}' if 'e' in text else text}{suffix}"


@dataclass(frozen=True)
class Peak:
    """Where held-out (eval) acceptance peaked and how far it fell after: the ``overfitting`` verdict's evidence.

    Walk S: eval tau_sim 2.06, 2.26, 2.38, 2.32, 2.22 over 5 epochs of 5,000 samples while train kept rising was
    called a plateau ("more of the same data will not move acceptance much"); it peaked at pass 3 and fell 0.16."""

    x: float  # on the curve's axis (``unit``)
    tau: float
    step: int
    pass_no: int | None  # the pass over the training samples (1 = the first), from the log's epochs; None: not logged
    epoch: float | None  # as the log numbers it (a fraction where the log counts progress: 2.5 is half through pass 3)
    last_x: float
    last_tau: float
    last_pass: int | None
    passes: int | None  # passes in the log (its highest epoch counted from its first)
    fall_fit: float  # the fall of the line fitted from the peak on (two lines in log x meeting at the peak)
    fall_margin: float  # its 95% margin, from the eval points' own scatter about those lines
    train_slope: float | None  # train tau_sim per doubling from the peak on; None: no train points there
    unit: str  # "samples seen", "steps" or "epochs"
    # "": overfitting; else why a fall past noise is not called that (the verdict is then ``plateau``), as a clause:
    # "train tau_sim did not rise after the peak (...)", "the fall came within the pass the peak is in ..."
    why_not: str = ""
    # the log's last point on the axis, of either split: training may run past the last eval point (walk AM: eval
    # ended at 691K samples seen, training was logged on to 742K); None where no point has an x
    end_x: float | None = None
    # the eval points where there were too few to test the fall against noise (``FEW_EVAL_POINTS`` up to
    # ``MIN_FIT_POINTS``): the fall is then read only where it fell at every eval after the peak; 0: tested
    few: int = 0

    @property
    def fall(self) -> float:
        return self.tau - self.last_tau

    def _where(self, x: float, pass_no: int | None, epoch: float | None = None) -> str:
        at = f"{x_words(x)} {self.unit}"
        if pass_no is None:
            return at
        log = f"epoch {epoch_text(epoch)} in the log, " if epoch is not None and epoch != pass_no else ""
        return f"pass {pass_no}{f' of {self.passes}' if self.passes else ''} ({log}{at})"

    def at(self) -> str:
        """The peak's checkpoint: "pass 3 of 5 (epoch 2 in the log, 15K samples seen)"."""
        return self._where(self.x, self.pass_no, self.epoch)

    def last_at(self, epoch: float | None = None) -> str:
        """The last eval point, as ``at`` says the peak: "pass 5 of 5 (epoch 4 in the log, 25K samples seen)"."""
        return self._where(self.last_x, self.last_pass, epoch)

    def checkpoint(self) -> str:
        """The checkpoint to keep: "pass-3 checkpoint (15K samples seen)", or "checkpoint at 15K samples seen"; a
        peak in the pass the fall ends in is named by its step ("checkpoint at step 300 (3K samples seen)"): that
        pass's checkpoint is after the fall; so is a peak part way through its pass (epoch 2.5 in a log counting
        progress): that pass's checkpoint is saved at its end, after the peak."""
        at = f"{x_words(self.x)} {self.unit}"
        mid_pass = self.epoch is not None and self.epoch != int(self.epoch)
        if self.pass_no is not None and (self.last_pass == self.pass_no or mid_pass):
            return f"checkpoint at step {self.step} ({at})"
        return f"pass-{self.pass_no} checkpoint ({at})" if self.pass_no is not None else f"checkpoint at {at}"

    def words(self) -> str:
        """The peak and the fall in one clause, as every page and the CLI say it."""
        train = (
            f", while train tau_sim kept rising ({self.train_slope:+.2f} per doubling of the {self.unit} after the "
            "peak)"
            if self.train_slope is not None and not self.why_not
            else ""
        )
        last = (
            f"pass {self.last_pass} ({x_words(self.last_x)} {self.unit})"
            if self.last_pass is not None
            else f"{x_words(self.last_x)} {self.unit}"
        )
        return (
            f"eval tau_sim peaked at {self.tau:.2f} at {self.at()} and fell {self.fall:.2f} to {self.last_tau:.2f} "
            f"by {last}{train}"
        )

    def fell_words(self, *, short: bool = False) -> str:
        """A fall that is not overfitting, for Overview, the plan and Acceptance vs data's lead: "eval acceptance
        peaked at pass 3 of 5 (...) and fell 0.16 after it, past noise; not overfitting, as train tau_sim did not
        ..."; ``short`` (a headline): "... past noise (not overfitting)"."""
        fell = f"eval acceptance peaked at {self.at()} and fell {self.fall:.2f} after it, past noise"
        return f"{fell} (not overfitting)" if short else f"{fell}; not overfitting, as {self.why_not}"

    def to_json(self) -> dict[str, Any]:
        return {
            "peak": {"x": self.x, "tau_sim": self.tau, "step": self.step, "pass": self.pass_no, "epoch": self.epoch},
            "last": {"x": self.last_x, "tau_sim": self.last_tau, "pass": self.last_pass},
            "fall": self.fall,
            "fall_fitted": self.fall_fit,
            "fall_fitted_margin": self.fall_margin,
            "level": LEVEL,
            "passes": self.passes,
            "train_slope_per_doubling_after_peak": self.train_slope,
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
    # where eval peaked before it fell past noise: ``overfitting``'s, or a ``plateau``'s whose fall is not called
    # overfitting (``peak.why_not`` says why); None where eval did not fall past noise after a peak
    peak: Peak | None = None

    @property
    def positions(self) -> int:
        """The chain positions tau_sim sums: the num_steps a live run must draft to be on this curve's scale."""
        return max((len(p.acc) for p in self.points), default=0)

    def positions_words(self) -> str:
        """The chain positions tau_sim sums, as ``curve`` and the Learning curve tab say them: "tau_sim over 3
        positions (num_steps 3; the log gave 7)", "tau_sim over 7 positions (num_steps 7: all the log gave)". The
        CLI reads every position unless ``--steps``, the page the chosen setting's num_steps: the same log read 7
        and 3 without a word."""
        used = max((len(p.acc) for p in self.points), default=0)
        logged = max((len(p.logged_acc) or len(p.acc) for p in self.points), default=0)
        if used < logged:
            return f"tau_sim over {used} positions (num_steps {used}; the log gave {logged})"
        asked = self.evidence.get("steps")
        more = f"; {asked} asked" if isinstance(asked, int) and asked > used else ""
        return f"tau_sim over {used} positions (num_steps {used}: all the log gave{more})"

    def ceiling_words(self) -> str | None:
        """A ``plateau`` that is still rising but near its ceiling (``evidence["near_ceiling"]``), in words for
        Overview and the plan to say instead of "has plateaued"; None for any other curve."""
        ev = self.evidence
        if not ev.get("near_ceiling"):
            return None
        last, before, g = ev["slope_per_doubling_last"], ev["slope_per_doubling_before"], ev["recent_fit"]
        return (
            f"is near its ceiling: still rising but slowing, measured {last['slope']:+.3f} per doubling over the "
            f"{last['window']}, down from {before['slope']:+.3f} over the {before['window']}; the power law fitted "
            f"to its last doubling predicts {g['gain_at_2x']['mean']:+.3f} over the next doubling"
        )

    def rise_words(self) -> str | None:
        """A ``rising`` curve's measured slope in words, for the plan's more-data row: "train tau_sim rose +0.261
        per doubling of the samples seen over its last half-doubling (22 points), measured from the log (tau_sim
        over 3 positions, the training simulation's scale, not live AL)"; None for any other curve. Overview said
        "still rising, which agrees: more data should help" above a plan that named nothing of the log (walk AL4)."""
        ev = self.evidence
        slope = ev.get("slope_per_doubling_last")
        if self.verdict != "rising" or not isinstance(slope, Mapping):
            return None
        unit = {"samples": "samples seen"}.get(str(ev.get("x")), str(ev.get("x")))
        return (
            f"{ev.get('split')} tau_sim rose {slope['slope']:+.3f} per doubling of the {unit} over its "
            f"{slope['window']}, measured from the log (tau_sim over {ev.get('positions')} positions, the training "
            "simulation's scale, not live AL)"
        )

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
    ``cond_acc`` was logged: cond_i = full_i / full_{i-1}. A chain cut short by a missing (NaN) position
    is not the point's acceptance: ``collect`` leaves such points out.
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
        self.in_order = True  # items by ascending step, so dropping a tail needs no scan

    def offer(self) -> bool:
        keep = self.seen % self.stride == 0
        self.seen += 1
        return keep

    def keep(self, item: CurvePoint) -> None:
        if self.items and item.step < self.items[-1].step:
            self.in_order = False
        self.items.append(item)
        if len(self.items) > self.cap:
            self.items = self.items[::2]
            self.stride *= 2

    def drop_from(self, step: int) -> list[int]:
        """Drop the kept items at ``step`` or later (a restarted run replaces them); their steps.

        Items normally arrive in step order (``collect`` places every record after the one before), so this
        pops a tail: a log whose counter goes back on every other line costs no scan of the kept points.
        """
        gone: list[int] = []
        if self.in_order:
            while self.items and self.items[-1].step >= step:
                gone.append(self.items.pop().step)
            gone.reverse()
        else:
            gone = [p.step for p in self.items if p.step >= step]
            self.items = [p for p in self.items if p.step < step]
            self.in_order = all(a.step <= b.step for a, b in zip(self.items, self.items[1:], strict=False))
        return gone


def thinners(max_points: int = MAX_POINTS_PER_SPLIT) -> dict[str, Thinned]:
    return {"train": Thinned(max_points), "eval": Thinned(max_points)}


@dataclass
class _Counter:
    """One split's step counter as its records arrive: where the last one was, and what was decided on the way."""

    step: int | None = None
    epoch: int | None = None
    samples: float | None = None
    offset: int = 0  # steps of the epochs before, in a log whose step counter restarts with each epoch
    epoch_offsets: dict[int, int] = field(default_factory=dict)
    new_epochs: int = 0  # times the counter restarted with a new epoch, and where first
    first_new_epoch: str = ""
    repeats: int = 0
    first_repeat: str = ""


_MAX_LISTED = 4  # restarts and steps spelled out in a note; the rest are counted


@dataclass
class _Restarts:
    """Runs restarted in the log: how many, and the notes of the first few (a log may restart on every line)."""

    count: int = 0
    notes: list[str] = field(default_factory=list)


def _points_text(n: int, what: str) -> str:
    return f"{n} {what} point" if n == 1 else f"{n} {what} points"


def _steps_text(steps: list[int]) -> str:
    return f"step {steps[0]}" if len(steps) == 1 else f"steps {min(steps)}..{max(steps)}"


def _place(
    rec: LogRecord, split: str, counters: dict[str, _Counter], kept: dict[str, Thinned], restarts: _Restarts
) -> int:
    """The record's step counted from the start of training, after dealing with a counter that went back.

    A step at or below the one before it in the same split is one of three things:

    * a new epoch, when the log says so (a higher ``epoch`` field, as speculators and a CSV's ``epoch`` column
      carry, or a larger ``samples_seen``): the counter restarts with each epoch, so the epochs before are
      counted on (from the last step logged in the epoch before; steps after it that were not logged are not
      seen);
    * the same step again (and no new epoch): the later value replaces the earlier one, and a note says so;
    * otherwise a restarted run, which a log cannot tell from a second run appended to the file (SpecForge's
      ``step`` and TensorBoard's are global, restored on resume, and carry no epoch): the later run replaces
      the earlier points of both splits from the step it restarted at, as TensorBoard itself does when a step
      goes back. A resumed run so keeps its history before the checkpoint, and a run started over (at the
      first step) replaces the whole earlier one, which is the run the user is looking at now. A note names
      the line and what was dropped.
    """
    c = counters[split]
    # the whole epoch: a log counting progress (0.25, 0.5, ...) begins a new one where it passes a whole number
    s, e = rec.step, (None if rec.epoch is None else math.floor(rec.epoch))
    # the reader's last step when it thinned lines before this one; none after a restart in the other split
    last = c.step if rec.prev_step is None or c.step is None else rec.prev_step
    if last is not None and s <= last:
        new_epoch = (e is not None and c.epoch is not None and e > c.epoch) or (
            rec.samples_seen is not None and c.samples is not None and rec.samples_seen > c.samples
        )
        if new_epoch:
            c.offset += last + (1 if s == 0 else 0)  # a counter from 0 had done step + 1 steps
            c.new_epochs += 1
            c.first_new_epoch = c.first_new_epoch or traininglogs.where(rec)
        elif s == last:
            c.repeats += 1
            c.first_repeat = c.first_repeat or traininglogs.where(rec)
        else:
            offset = c.epoch_offsets.get(e, 0) if e is not None else 0
            at = s + offset
            gone = {name: th.drop_from(at) for name, th in kept.items()}
            for name, other in counters.items():
                if name != split:  # its own step will go back too: the same restart, noted once
                    other.step = other.epoch = other.samples = None
                    other.offset = other.epoch_offsets.get(e, 0) if e is not None else 0
            restarts.count += 1
            if len(restarts.notes) < _MAX_LISTED:
                dropped = [f"{_points_text(len(v), name)} at {_steps_text(v)}" for name, v in gone.items() if v]
                remaining = sum(len(th.items) for th in kept.values())
                restarts.notes.append(
                    f"The {split} step counter went back from {last} to {s} at {traininglogs.where(rec)}: read as a "
                    "new run (or one resumed from an earlier checkpoint) appended to the log, so its points replace "
                    + (f"the earlier {' and '.join(dropped)}" if dropped else "no earlier point (none at or after it)")
                    + (
                        f"; {_points_text(remaining, 'earlier')} before step {at} "
                        + ("stays as its history" if remaining == 1 else "stay as its history")
                        if remaining
                        else ""
                    )
                    + "."
                )
            c.offset = offset
    if e is not None and e != c.epoch:
        c.epoch_offsets[e] = c.offset
    c.step, c.epoch, c.samples = s, e, rec.samples_seen
    return s + c.offset


def _width(rec: LogRecord) -> int:
    """How many positions the record reports (the highest position + 1, gaps included)."""
    d = rec.acc or rec.full
    return min(max(d) + 1, traininglogs.MAX_POSITIONS) if d else 0


def collect(
    records: Iterable[LogRecord],
    *,
    batch_size: float | None = None,
    epoch_samples: float | None = None,
    steps: int | None = None,
    max_points: int = MAX_POINTS_PER_SPLIT,
    kept: dict[str, Thinned] | None = None,
) -> tuple[list[CurvePoint], dict[str, Any]]:
    """Points from records, memory bounded by ``max_points`` per split, in training order.

    A step counter that goes back is a new epoch, a repeat or a restarted run (``_place``); nothing is
    overwritten without a note in ``info["notes"]``. A point missing a position the log reports elsewhere in
    its split (a NaN the reader left out) is dropped and counted in ``info["incomplete_points"]``: its chain
    would stop there, and a 1-position tau_sim fitted among 7-position ones is no learning curve.
    ``kept`` are the thinners a reader was given as its sampler (``sampled`` records were offered already);
    the SpecForge and speculators readers never thin away a record whose step is not above the one before, and
    hand on that step (``prev_step``), so a restart is placed where it is in the file either way.
    """
    kept = kept if kept is not None else thinners(max_points)
    counters = {split: _Counter() for split in kept}
    restarts = _Restarts()
    invalid = 0
    for rec in records:
        split = "eval" if rec.split == "eval" else "train"
        th = kept[split]
        step = _place(rec, split, counters, kept, restarts)
        if not rec.sampled and not th.offer():
            continue
        logged = acc = chain_acc(rec)
        if steps is not None:
            acc = acc[:steps]
        if not acc or not (0.0 <= min(acc) and max(acc) <= 1.0):
            invalid += 1
            continue
        if len(logged) == len(acc) or not (0.0 <= min(logged) and max(logged) <= 1.0):
            logged = ()  # nothing beyond ``acc`` (or nothing usable): not kept twice
        total, prod = 1.0, 1.0  # tau_sim, inlined: this loop runs once per kept line
        for a in acc:
            prod *= a
            total += prod
        samples = rec.samples_seen
        if samples is None:
            if rec.epoch is not None and rec.step == rec.epoch and epoch_samples:
                samples = rec.epoch * epoch_samples
            elif batch_size:
                samples = step * batch_size
        th.keep(
            CurvePoint(
                step=step,
                samples_seen=samples,
                split=rec.split,
                acc=acc,
                tau_sim=total,
                epoch=rec.epoch,
                logged_positions=_width(rec),
                logged_acc=tuple(logged),
            )
        )
    points: list[CurvePoint] = []
    info: dict[str, Any] = {
        "invalid_points": invalid,
        "incomplete_points": 0,
        "restarts": restarts.count,
        "thinned": {},
    }
    notes = list(restarts.notes)
    if restarts.count > len(restarts.notes):
        notes.append(
            f"{restarts.count - len(restarts.notes)} more restarts of the step counter were read the same way (a "
            "counter that goes back this often may be several ranks or runs writing one file: keep one rank's lines)."
        )
    if restarts.count:
        notes.append(
            "If these are epochs of one run, the log does not say so (no epoch field): give the points as CSV with "
            "an epoch or samples_seen column to have the epochs counted on."
        )
    for split, th in kept.items():
        c = counters[split]
        width = max((p.logged_positions for p in th.items), default=0)  # of the points kept, not of a replaced run
        need = min(width, steps) if steps is not None else width
        last: dict[int, CurvePoint] = {}
        short: list[int] = []
        for p in th.items:
            if len(p.acc) < need:
                short.append(p.step)
            else:
                last[p.step] = p
        points.extend(sorted(last.values(), key=lambda p: p.step))
        info["thinned"][split] = {"logged": th.seen, "kept": len(last), "every": th.stride}
        if short:
            info["incomplete_points"] += len(short)
            listed = ", ".join(str(x) for x in short[:_MAX_LISTED]) + (", ..." if len(short) > _MAX_LISTED else "")
            notes.append(
                f"Left out {_points_text(len(short), split)} missing a position of the {need} this log reports (a "
                f"NaN or empty value; step{'' if len(short) == 1 else 's'} {listed}): a chain cut short there would "
                "understate tau_sim."
            )
        if c.new_epochs:
            notes.append(
                f"The {split} step counter restarts with each epoch in this log ({c.new_epochs} times, first "
                f"at {c.first_new_epoch}): steps, and samples seen where the log does not give them, are counted on "
                "across epochs."
            )
        if c.repeats:
            notes.append(
                (f"A {split} step" if c.repeats == 1 else f"{c.repeats} {split} steps")
                + f" logged twice in a row (first at {c.first_repeat}): the later value of each is kept."
            )
    info["notes"] = notes
    return points, info


# ---------------------------------------------------------------- fit


# why a fit's band can be narrower than the decimals a sentence shows (``values.band_text``): walk AA's log lay on
# its power law to within 0.0004 tau_sim, and its 2x band read "2.38 (2.38..2.38)"
ON_FIT = "the log's points lie on the fit"


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


SLOPE_WINDOW_POINTS = 5  # points the last half-doubling needs to stand for the curve's recent slope alone


def _slope_per_doubling(xs: np.ndarray, ys: np.ndarray) -> tuple[float, int, str] | None:
    """Model-free: (least-squares slope of tau against log2(x), points, the window in words) over the most
    recent evidence.

    The last half-doubling when it holds ``SLOPE_WINDOW_POINTS`` points, else the last doubling (3+ points), else
    the last 3 points: a saturated curve rose +0.082 per doubling over its last doubling, almost all of it early in
    that doubling (+0.007 from 400K to 480K samples); the slope over the whole doubling called it still rising.
    """
    last = xs.max()
    lx = np.log2(xs)
    for frac, window, need in (
        (math.sqrt(2.0), "last half-doubling", SLOPE_WINDOW_POINTS),
        (2.0, "last doubling", 3),
    ):
        sel = xs >= last / frac * (1 - 1e-12)
        if sel.sum() >= need and np.ptp(lx[sel]) > 0:
            return float(np.polyfit(lx[sel], ys[sel], 1)[0]), int(sel.sum()), f"{window} ({int(sel.sum())} points)"
    distinct = np.unique(xs)
    if distinct.size < 3:
        return None
    sel = xs >= distinct[-3]  # the last 3 distinct x values (a fit needs 5)
    span = float(np.ptp(lx[sel]))
    return (
        float(np.polyfit(lx[sel], ys[sel], 1)[0]),
        int(sel.sum()),
        f"last {int(sel.sum())} points ({span:.1f} doublings)",
    )


def _tail_points(n: int) -> int:
    """How many of the last points the fit must meet on average: a tenth of them, at least 3."""
    return min(n, max(3, n // 10))


def _window_ratio(window: str) -> float | None:
    """How far back (a factor of x) ``_slope_per_doubling``'s window reached: half a doubling or one; None for the
    last-3-points fallback."""
    if window.startswith("last half-doubling"):
        return math.sqrt(2.0)
    if window.startswith("last doubling"):
        return 2.0
    return None


def _ls_slope(lx: np.ndarray, ys: np.ndarray) -> tuple[float, float]:
    """(least-squares slope of ys against lx, its standard error; 0 with 2 points)."""
    xm = lx - lx.mean()
    sxx = float((xm**2).sum())
    slope = float((xm * (ys - ys.mean())).sum() / sxx)
    resid = ys - ys.mean() - slope * xm
    n = int(lx.size)
    se = math.sqrt(float((resid**2).sum()) / (n - 2) / sxx) if n > 2 else 0.0
    return slope, se


def _window_noise(xs: np.ndarray, ys: np.ndarray, sel: np.ndarray) -> dict[str, Any]:
    """The slope per doubling over ``sel`` with its noise: SE, 95% margin (t at n - 2), and whether the rise is
    ``significant``: at least ``PLATEAU_GAIN``, its 95% range above 0, and still ``PLATEAU_GAIN`` or more without
    the last point (one point does not make a rise). None where ``sel`` holds under ``SLOPE_WINDOW_POINTS`` points,
    too few to tell noise from the curve's bend."""
    lx = np.log2(xs)
    s, se = _ls_slope(lx[sel], ys[sel])
    n = int(sel.sum())
    margin = t_two_sided(LEVEL, max(1, n - 2)) * se
    out: dict[str, Any] = {"slope": s, "points": n, "se": se, "margin": margin, "low": s - margin, "high": s + margin}
    out["significant"] = None
    if n >= SLOPE_WINDOW_POINTS:
        rest = sel & (xs < xs.max())
        out["slope_without_last_point"] = _ls_slope(lx[rest], ys[rest])[0]
        out["significant"] = bool(
            s >= PLATEAU_GAIN and s - margin > 0 and out["slope_without_last_point"] >= PLATEAU_GAIN
        )
    return out


def _slope_noise(xs: np.ndarray, ys: np.ndarray, slope: tuple[float, int, str]) -> dict[str, Any]:
    """``_window_noise`` over ``_slope_per_doubling``'s window; where a rise there is within noise over a
    half-doubling, the last doubling's (``over_last_doubling``, its more points) may show it past noise instead.

    Walk AN's plateaued log rose +0.082 per doubling over its last half-doubling (6 points), SE 0.038 (+-0.106),
    +0.038 without its last point, and +0.011 (SE 0.016) over its last doubling: it was "Still rising ... More of the
    same data should help". A log-linear rise with scatter moves +0.055 +- 0.075 over half a doubling, past noise
    over the doubling."""
    ratio = _window_ratio(slope[2])
    distinct = np.unique(xs)
    sel = xs >= (xs.max() / ratio * (1 - 1e-12) if ratio else distinct[max(0, distinct.size - 3)])
    out = _window_noise(xs, ys, sel)
    del out["slope"], out["points"]
    if out["significant"] is False and ratio is not None and ratio < 2:
        wide = _window_noise(xs, ys, xs >= xs.max() / 2.0 * (1 - 1e-12))
        if wide["significant"]:
            out["over_last_doubling"] = wide
            out["significant"] = True
    return out


def _pm(noise: Mapping[str, Any]) -> str:
    """A slope's uncertainty, as the sentences say it after "per doubling": "(± 0.106 at 95%, SE 0.038)"; a window
    too small to tell noise says so."""
    if noise["significant"] is None:
        return "(too few points to tell its noise)"
    wide = noise.get("over_last_doubling")
    more = (
        f"; over the last doubling ({wide['points']} points): {wide['slope']:+.3f} (± {wide['margin']:.3f} at 95%, "
        f"SE {wide['se']:.3f}), past noise"
        if wide
        else ""
    )
    return f"(± {noise['margin']:.3f} at 95%, SE {noise['se']:.3f}{more})"


def _bend(xs: np.ndarray, ys: np.ndarray, slope: tuple[float, int, str] | None) -> dict[str, Any]:
    """Model-free curvature of the recent curve: the slope per doubling over the window before the one
    ``_slope_per_doubling`` read (``slope_per_doubling_before``), whether the slope fell from it past noise
    (``slope_falling``: by more than the two slopes' 95% margin), and, where every gain between the logged points
    of the latest window (and the one before it) was positive and smaller per unit of x than the one before
    (``gains_falling``), what the next doubling adds if they keep falling as they did (an exponential approach
    fitted to the log of those gains: the fastest saturation in common use, so the low end of a prediction).

    Walk W rose +0.098 per doubling over its last half-doubling, +0.25 over the half-doubling before, its gain per
    logged point falling from 0.016 to 0.0045: the per-doubling slope of that half-doubling was read as the next
    doubling's gain (it adds +0.017)."""
    out: dict[str, Any] = {"slope_per_doubling_before": None, "slope_falling": False, "gains_falling": None}
    ratio = _window_ratio(slope[2]) if slope else None
    if slope is None or ratio is None:
        return out
    last = float(xs.max())
    lx = np.log2(xs)
    start = last / ratio * (1 - 1e-12)
    latest = xs >= start
    before = (xs < start) & (xs >= last / ratio**2 * (1 - 1e-12))
    if int(before.sum()) >= 3 and np.ptp(lx[before]) > 0:
        s_b, se_b = _ls_slope(lx[before], ys[before])
        s_l, se_l = _ls_slope(lx[latest], ys[latest])
        dof = max(1, min(int(before.sum()), int(latest.sum())) - 2)
        margin = t_two_sided(LEVEL, dof) * math.hypot(se_b, se_l)
        what = "half-doubling" if ratio < 2 else "doubling"
        out["slope_per_doubling_before"] = {
            "slope": s_b,
            "se": se_b,
            "points": int(before.sum()),
            "window": f"{what} before ({int(before.sum())} points)",
        }
        out["slope_falling"] = bool(s_b - s_l > margin and s_b > s_l)
        out["slope_fall_margin"] = margin
    # the gains between consecutive logged points of the latest window (the first from the point before it)
    order = np.argsort(xs, kind="stable")
    sx, sy = xs[order], ys[order]
    first = int(np.argmax(sx >= start))
    if first == 0 or np.unique(sx).size != sx.size:
        return out
    gx, gy = sx[first - 1 :], sy[first - 1 :]
    gains, dx = np.diff(gy), np.diff(gx)
    rate = gains / dx
    if gains.size < 3 or not (gains > 0).all() or not (np.diff(rate) < 0).all():
        return out
    mid = (gx[1:] + gx[:-1]) / 2
    c1, c0 = (float(v) for v in np.polyfit(mid, np.log(rate), 1))
    if c1 >= 0:
        return out
    nxt = (math.exp(c0 + c1 * 2 * last) - math.exp(c0 + c1 * last)) / c1
    out["gains_falling"] = {
        "gains": [float(v) for v in gains],
        "x": [float(v) for v in gx[1:]],
        "per_point_uniform": bool(dx.max() <= 1.1 * dx.min()),  # equal spacing: "per logged point" means something
        "next_doubling": float(nxt),
    }
    return out


def recent_fit(
    xs: np.ndarray, ys: np.ndarray, *, x_unit: str, split: str, tau_max: float, positions: int
) -> tuple[CurveFit, list[str], int] | None:
    """The same saturating form fitted to the last doubling's points alone, (fit, ``fit_problems``, points), where
    it holds ``MIN_FIT_POINTS`` distinct x values: the next doubling as the recent curve bends, where a fit over
    all points is pulled by the early ones (walk W's put its ceiling at 11.57) and a straight slope read over half a
    doubling does not bend at all. A power law decays slower than an exponential approach, so where the curve
    saturates faster it predicts the upper end (walk W: +0.038 for a next doubling that adds +0.017)."""
    sel = xs >= xs.max() / 2.0 * (1 - 1e-12)
    if int(np.unique(xs[sel]).size) < MIN_FIT_POINTS:
        return None
    f = fit_curve(xs[sel], ys[sel], x_unit=x_unit, split=split, tau_max=tau_max)
    return f, fit_problems(f, xs[sel], ys[sel], positions=positions), int(sel.sum())


def fit_problems(f: CurveFit, xs: np.ndarray, ys: np.ndarray, *, positions: int) -> list[str]:
    """Why the fit may not drive the verdict or predict (empty: it may).

    A ceiling past K + 1 is no chain's (a 5-position chain accepts at most 6 a cycle), and a fit that misses its
    own last points by more than its residual SE extrapolates from the wrong place: a power law fitted to a curve
    that had saturated put the last point at 3.44 (measured 3.32), its ceiling at 10.06 and +0.94 at 10x.
    """
    out: list[str] = []
    if f.tau_inf > f.tau_max + 1e-9:
        chain = f"a {positions}-position chain" if positions else "the chain"
        out.append(f"its ceiling {f.tau_inf:.2f} is above the {f.tau_max:.2f} {chain} can reach")
    order = np.argsort(xs, kind="stable")
    m = _tail_points(int(xs.size))
    tail = order[-m:]
    fitted = f.tau_inf - f.a * (xs[tail] / f.x_ref) ** (-f.b)
    miss = float(np.mean(fitted - ys[tail]))
    if abs(miss) > f.residual_se and abs(miss) > 1e-9:
        out.append(
            # as many places as the SE it is set against: "by 0.00 on average (residual SE 0.002)" read as nonsense
            f"it {'overshoots' if miss > 0 else 'undershoots'} its last {m} points by {abs(miss):.{_places(miss)}f} "
            f"on average (residual SE {f.residual_se:.{_places(f.residual_se)}f})"
        )
    return out


def _places(value: float) -> int:
    """Decimals that show ``value`` with two significant figures, 2 at least and 5 at most (0.0031: 4)."""
    v = abs(value)
    return 2 if v >= 0.1 or v == 0 else min(5, max(2, 1 - math.floor(math.log10(v))))


# ---------------------------------------------------------------- the curve


def _unit_key(unit: XUnit) -> str:
    """The axis's short name in ``evidence["x"]`` and ``CurveFit.x_unit`` (the chart keys on it)."""
    return {"samples_seen": "samples", "step": "steps", "epoch": "epochs"}.get(unit, unit)


def _unit_label(unit: XUnit) -> str:
    """The axis as text says it: samples SEEN (epochs x unique samples; walk Q read "50K samples" of 10 epochs over
    5,000 unique samples as 50K unique), steps or epochs."""
    return "samples seen" if unit == "samples_seen" else _unit_key(unit)


def _fmt_x(x: float, unit: XUnit) -> str:
    return f"{x_words(x)} {_unit_label(unit)}"


def _x_of(p: CurvePoint, unit: XUnit) -> float | None:
    """A point's x on the curve's axis (None where it has none)."""
    return p.samples_seen if unit == "samples_seen" else float(p.step)


def eval_peak(points: Sequence[CurvePoint], unit: XUnit) -> tuple[Peak | None, str]:
    """(the peak, "") where held-out acceptance fell past noise after it and that is overfitting; (the peak, why not
    overfitting) where it fell past noise but is not called that (``Peak.why_not`` holds the clause); else (None,
    why no fall past noise).

    Noise is measured from the log itself, as the other verdicts' is (a fit's residual SE and covariance): two
    straight lines in log x meeting at the highest eval point (one line when it is the first), a curve that can rise
    and then fall, are fitted to the eval points; the fall counts when the second line's fall from the peak to the
    last point is past its 95% margin (Student t on the lines' residual SE: a noisy flat curve's highest point is
    called a fall about 5% of the time, where "peak minus last point past 2.8 SDs" called it 17%) and the measured
    fall (peak minus last point) is at least ``PLATEAU_GAIN``, the least a verdict counts as a move. It is
    overfitting when the train points after the peak
    still rise (at least ``PLATEAU_GAIN`` per doubling, the bar a rising curve meets) and the last eval point is in
    a later pass than the peak (where the log numbers its epochs); with no train points there, only when the fall
    lasts more than one pass (two later passes, read from the log's epochs).
    """
    evals = sorted(
        ((x, p) for p in points if p.split == "eval" and (x := _x_of(p, unit)) is not None and x > 0),
        key=lambda t: t[0],
    )
    few = len(evals) < MIN_FIT_POINTS
    if len(evals) < FEW_EVAL_POINTS:
        return None, f"fewer than {MIN_FIT_POINTS} eval points"
    xs = np.array([x for x, _ in evals], dtype=float)
    ys = np.array([p.tau_sim for _, p in evals], dtype=float)
    i = int(np.argmax(ys))
    if i == xs.size - 1:
        return None, "eval is highest at its last point"
    if few:
        # too few points to measure the eval scatter (walk BP: 2.13, 2.42, 2.30, 2.17 at passes 1-4, train rising,
        # was "still rising ... More of the same data should help"): a fall is read where eval fell at every point
        # after the peak, over at least two of them, by at least ``PLATEAU_GAIN``; the words say it was not tested
        after_peak = ys[i:]
        fall = float(ys[i] - ys[-1])
        if xs.size - 1 - i < 2 or bool(np.any(np.diff(after_peak) > 0)) or fall < PLATEAU_GAIN:
            return None, f"fewer than {MIN_FIT_POINTS} eval points"
        return _peak_of(points, unit, evals, xs, ys, i, fall, 0.0, few=len(evals))
    lx = np.log2(xs)
    k = lx[i]
    cols = [np.ones_like(lx), np.maximum(lx - k, 0.0)] + ([np.minimum(lx - k, 0.0)] if i > 0 else [])
    design = np.column_stack(cols)
    coef, *_ = np.linalg.lstsq(design, ys, rcond=None)
    dof = max(1, xs.size - design.shape[1])
    s2 = float(((ys - design @ coef) ** 2).sum()) / dof
    g = np.zeros(design.shape[1])
    g[1] = lx[-1] - k
    fall_fit = -float(g @ coef)
    margin = t_two_sided(LEVEL, dof) * math.sqrt(max(0.0, float(g @ (s2 * np.linalg.pinv(design.T @ design)) @ g)))
    fall = float(ys[i] - ys[-1])
    if fall < PLATEAU_GAIN or fall_fit <= margin:
        return None, (
            f"eval fell {fall:.3f} after its peak, within noise (fitted fall {fall_fit:.3f}, 95% margin "
            f"{margin:.3f}; a fall must also be at least {PLATEAU_GAIN:.2f})"
        )
    return _peak_of(points, unit, evals, xs, ys, i, fall_fit, margin)


def _peak_of(
    points: Sequence[CurvePoint],
    unit: XUnit,
    evals: Sequence[tuple[float, CurvePoint]],
    xs: np.ndarray,
    ys: np.ndarray,
    i: int,
    fall_fit: float,
    margin: float,
    *,
    few: int = 0,
) -> tuple[Peak | None, str]:
    """``eval_peak``'s peak at eval point ``i``, once its fall counts: whether it is overfitting (train still rising
    after it, over later passes) or why not."""
    label = _unit_label(unit)
    epochs = [p.epoch for p in points if p.epoch is not None]
    first = min(epochs) if epochs else None
    # an epoch that is not a whole number is training progress (walk X: 0.25 at 5K samples .. 5.000 at 100K, 20K a
    # pass): a point at e in (k-1, k] is in pass k, and epoch 3.000 ends pass 3. Whole numbers count passes from the
    # log's first (speculators' 0-based, EAGLE's 1-based)
    progress = any(e != int(e) for e in epochs)

    def pass_no(e: float) -> int:
        return max(1, math.ceil(e)) if progress else int(e - (first or 0)) + 1

    def pass_of(p: CurvePoint) -> int | None:
        return None if p.epoch is None or first is None else pass_no(p.epoch)

    peak_p, last_p = evals[i][1], evals[-1][1]
    peak_pass, last_pass = pass_of(peak_p), pass_of(last_p)
    after = None if peak_pass is None or last_pass is None else last_pass - peak_pass
    train = [(x, p.tau_sim) for p in points if p.split == "train" and (x := _x_of(p, unit)) is not None and x > 0]
    later = [(x, t) for x, t in train if x >= xs[i]]
    slope = None
    if len({x for x, _ in later}) >= 3:
        tx = np.log2(np.array([x for x, _ in later], dtype=float))
        slope = float(np.polyfit(tx, np.array([t for _, t in later], dtype=float), 1)[0])
    why, why_not = "", ""  # the evidence's words, and the sentence's clause
    if slope is not None and slope < PLATEAU_GAIN:
        why = f"eval fell after its peak, but train did not rise there ({slope:+.3f} per doubling)"
        why_not = (
            f"train tau_sim did not rise after the peak ({round(slope, 2) + 0.0:+.2f} per doubling of the {label}, "
            f"under the "
            f"{PLATEAU_GAIN:.2f} a rising curve needs)"
        )
    elif slope is not None and after is not None and after < 1:
        why = "eval fell after its peak within the same pass"
        why_not = f"the fall came within the pass the peak is in (pass {peak_pass}), not over more passes"
    elif slope is None and (after is None or after < 2):
        why = "eval fell after its peak, but with no train points after it the fall must last more than one pass, " + (
            "and the log numbers no epochs" if after is None else f"and it lasted {after}"
        )
        why_not = "with no train points after the peak, only a fall lasting more than one pass is called that, " + (
            "and the log numbers no epochs"
            if after is None
            else "and this one lasted 1 pass"
            if after == 1
            else "and this one came within the pass the peak is in"
        )
    peak = Peak(
        x=float(xs[i]),
        tau=float(ys[i]),
        step=peak_p.step,
        pass_no=peak_pass,
        epoch=peak_p.epoch,
        last_x=float(xs[-1]),
        last_tau=float(ys[-1]),
        last_pass=last_pass,
        passes=None if first is None else pass_no(max(epochs)),
        fall_fit=fall_fit,
        fall_margin=margin,
        train_slope=slope,
        unit=label,
        why_not=why_not,
        end_x=max((x for p in points if (x := _x_of(p, unit)) is not None), default=None),
        few=few,
    )
    return peak, why


def epoch_text(epoch: float) -> str:
    """An epoch as the log wrote it: "3", "2.5", "0.25"."""
    return f"{epoch:g}"


def _noise_words(peak: Peak) -> str:
    if peak.few:
        return (
            f"not tested against noise: {peak.few} eval points are too few to measure their scatter (a test needs "
            f"{MIN_FIT_POINTS}), but it fell at every eval after the peak; log eval more often to test it"
        )
    return (
        f"past noise: a line fitted from the peak on falls {peak.fall_fit:.2f}, more than its 95% margin of "
        f"{peak.fall_margin:.2f} (from the eval points' own scatter about two lines in log {peak.unit} meeting at the "
        "peak)"
    )


def _fell(points: list[CurvePoint], peak: Peak, f: CurveFit, xs: np.ndarray, ev: dict[str, Any]) -> Curve:
    """A ``plateau`` whose eval fell past noise after its peak, not called overfitting (``peak.why_not``): train did
    not rise there, the fall was within one pass, or without train points it lasted one pass or passes are not
    logged. It was "Flat: eval tau_sim 2.22 at 25K samples seen (fit 2.30) ... More of the same data will not move
    acceptance much", the fall only in evidence: the sentence says the peak, the fall past noise, why it is not
    overfitting and the checkpoint to keep. The saturating fit through the fall (which hides it) predicts nothing
    and is drawn where it was fitted only."""
    hides = "eval fell past noise after its peak (a saturating curve through the fall would hide it)"
    ev.update(
        {
            "fit_used": False,
            "fit_not_used_because": [*(ev.get("fit_not_used_because") or []), hides],
            "eval_fall": {**peak.to_json(), "not_overfitting": peak.why_not},
        }
    )
    n = (peak.last_pass - peak.pass_no) if peak.last_pass is not None and peak.pass_no is not None else 0
    more = f" over {n} more pass{'es' if n != 1 else ''} of the same samples" if n > 0 else ""
    sentence = (
        f"Peaked, then fell: {peak.words()}; {_noise_words(peak)}. Not overfitting: {peak.why_not}. Keep the "
        f"{peak.checkpoint()}, where eval peaked: training past it lowered held-out acceptance{more}, so more of the "
        "same data is unlikely to raise it: look at capacity (layers, hidden size), wiring (which target layers are "
        "captured) or how well the training data matches what you serve."
    )
    return Curve(
        points=points,
        fit=f,
        verdict="plateau",
        sentence=sentence,
        evidence=ev,
        band=band(f, float(xs.min()), f.x_ref),
        peak=peak,
    )


def _overfitting(
    points: list[CurvePoint], peak: Peak, xs: np.ndarray, ys: np.ndarray, ev: dict[str, Any], unit: XUnit, tmax: float
) -> Curve:
    """The ``overfitting`` curve: fitted on the eval points up to the peak only (a saturating fit through the fall
    would hide it), drawn where it was fitted, and not extrapolated: more passes over the same samples are what
    lowered eval, and more unique data is not on this axis."""
    up = xs <= peak.x
    fit: CurveFit | None = None
    if int(np.unique(xs[up]).size) >= 4:
        fit = fit_curve(xs[up], ys[up], x_unit=_unit_key(unit), split="eval", tau_max=tmax)
    after = int((~up).sum())
    left_out = (
        f"the {_points_text(after, 'eval')} after the eval peak at {x_words(peak.x)} {peak.unit} are left out of the "
        f"fit (eval fell there: a saturating curve through them would hide the fall)"
    )
    ev.update(
        {
            "last_tau_sim": peak.last_tau,
            "overfitting": peak.to_json(),
            "fit_used": False,
            "fit_not_used_because": [left_out + ("; it is not extrapolated" if fit is not None else "")],
            "fit_points": int(up.sum()),
        }
    )
    noise = _noise_words(peak)
    seen = (
        f" The x axis counts every pass: {x_words(peak.last_x)} samples seen are {peak.passes} passes over the same "
        "samples, not new data."
        if peak.passes and peak.unit == "samples seen"
        else ""
    )
    sentence = (
        f"Overfitting: {peak.words()}; {noise}.{seen} Keep the {peak.checkpoint()}, or stop training there: more "
        "epochs over these samples lower held-out acceptance, and more unique data is likely to help."
    )
    return Curve(
        points=points,
        fit=fit,
        verdict="overfitting",
        sentence=sentence,
        evidence=ev,
        band=band(fit, float(xs.min()), peak.x) if fit is not None else [],
        peak=peak,
    )


def analyse(points: list[CurvePoint], *, split: Split = "auto", tau_max: float | None = None) -> Curve:
    """Fit and verdict for points (eval preferred when it has enough points, as it is held out).

    ``rising`` needs two things to agree: the fit gains at least ``PLATEAU_GAIN`` at 2x the data, and the
    curve's measured slope over its most recent points (model-free, ``_slope_per_doubling``) is at least that
    much per doubling too. A saturating curve gains less over the next doubling than over the last one, so
    a recent stretch that moved less than the threshold says the next will as well, whatever the power law
    extrapolates (a near-flat tail can still fit with a small b that keeps the extrapolation rising). A fit
    whose ceiling is past K + 1 or that misses its last points (``fit_problems``) predicts nothing: the measured
    slope alone decides, and the band stops at the data. Otherwise ``plateau``, and the sentence says which
    called it flat.

    A curve that meets both but bends within its recent window is ``plateau`` too, "Near its ceiling", where its
    slope fell past noise from the window before (``_bend``) and the same form fitted to the last doubling alone
    (``recent_fit``) predicts less than ``PLATEAU_GAIN`` over the next doubling: walk W's +0.098 per doubling,
    read over half a doubling down from +0.25 over the half before, was the next doubling's "+0.098 ... More of
    the same data should help"; that doubling adds +0.017 (the recent fit predicts +0.038).
    """
    if split not in ("auto", "train", "eval"):
        raise InputError(f"split must be auto, train or eval, got {split!r}")
    by_split = {s: [p for p in points if p.split == s] for s in ("train", "eval")}
    auto = split == "auto"
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
        "x": _unit_key(unit),
        "points": int(xs.size),
        "distinct_x": distinct,
        "x_min": float(xs.min()) if xs.size else None,
        "x_max": float(xs.max()) if xs.size else None,
        "span": span if xs.size else None,
        "positions": k,  # the positions tau_sim sums (``steps`` cuts them); ``positions_logged``: the log's
        "positions_logged": max((len(p.logged_acc) or len(p.acc) for p in points), default=0),
        "train_points": len(by_split["train"]),
        "eval_points": len(by_split["eval"]),
        "thresholds": {"min_points": MIN_FIT_POINTS, "min_span": MIN_SPAN, "plateau_gain_at_2x": PLATEAU_GAIN},
    }
    if unit != "samples_seen" and pts:
        ev["note"] = (
            f"no samples seen in the log; the x axis is {_unit_label(unit)} "
            "(give the samples per logged step, or per epoch for per-epoch logs, to put it in samples: "
            "`--batch-size` / `--epoch-samples` on the CLI, the two fields beside the upload on the page)"
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
    peak, why_not = eval_peak(points, unit) if split == "eval" else (None, "")
    if peak is not None and not peak.why_not:
        return _overfitting(points, peak, xs, ys, ev, unit, tmax)
    if auto and split == "train" and peak is None:
        # eval points too few to fit (a log evaluated once a pass), still read for a fall after a peak (walk BP)
        few_peak, _ = eval_peak(points, unit)
        if few_peak is not None and not few_peak.why_not:
            evals = sorted((x, p.tau_sim) for p in by_split["eval"] if (x := _x_of(p, unit)) is not None and x > 0)
            ex = np.array([x for x, _ in evals], dtype=float)
            ey = np.array([t for _, t in evals], dtype=float)
            ev["split"] = "eval"
            ev["eval_points_untested"] = len(evals)
            return _overfitting(points, few_peak, ex, ey, ev, unit, tmax)
    if why_not.startswith("eval fell"):  # a fall that was not called overfitting, and why
        ev["not_overfitting"] = why_not
    f = fit_curve(xs, ys, x_unit=_unit_key(unit), split=split, tau_max=tmax)
    last_i = int(np.argmax(xs))
    now_mean = f.predict(f.x_ref)[0]
    g2, g2_lo, g2_hi = f.gain(2.0)
    g10, g10_lo, g10_hi = f.gain(10.0)
    at2 = f.predict(2 * f.x_ref)
    at10 = f.predict(10 * f.x_ref)
    slope = _slope_per_doubling(xs, ys)
    problems = fit_problems(f, xs, ys, positions=k)
    fit_used = not problems
    ev.update(
        {
            "last_tau_sim": float(ys[last_i]),
            "fit_at_last": now_mean,
            "gain_at_2x": {"mean": g2, "low": g2_lo, "high": g2_hi},
            "gain_at_10x": {"mean": g10, "low": g10_lo, "high": g10_hi},
            "tau_at_2x": {"mean": at2[0], "low": at2[1], "high": at2[2]},
            "tau_at_10x": {"mean": at10[0], "low": at10[1], "high": at10[2]},
            "slope_per_doubling_last": None
            if slope is None
            else {"slope": slope[0], "points": slope[1], "window": slope[2], **_slope_noise(xs, ys, slope)},
            "r2": f.r2,
            "fit_used": fit_used,  # False: the gains and taus above are the fit's, not predictions
            "fit_not_used_because": problems,
        }
    )
    bend = _bend(xs, ys, slope)
    ev.update(bend)
    recent = recent_fit(xs, ys, x_unit=_unit_key(unit), split=split, tau_max=tmax, positions=k)
    ev["recent_fit"] = None
    if recent is not None:
        rf, r_problems, r_n = recent
        r_g = rf.gain(2.0)
        r_at2 = rf.predict(2 * rf.x_ref)
        ev["recent_fit"] = {
            "window": "last doubling",
            "points": r_n,
            "tau_inf": rf.tau_inf,
            "a": rf.a,
            "b": rf.b,
            "residual_se": rf.residual_se,
            "gain_at_2x": {"mean": r_g[0], "low": r_g[1], "high": r_g[2]},
            "tau_at_2x": {"mean": r_at2[0], "low": r_at2[1], "high": r_at2[2]},
            "problems": r_problems,
        }
    if f.b <= float(_B_GRID[0]) + 1e-12:
        ev["fit_note"] = "b at its lower bound: the curve is log-like here and its ceiling tau_inf is not identified"
    if peak is not None:  # eval fell past noise after its peak, not called overfitting: said, not called flat
        return _fell(points, peak, f, xs, ev)
    x_text = _fmt_x(f.x_ref, unit)
    where = f"{split} tau_sim {ys[last_i]:.2f} at {x_text}" + (f" (fit {now_mean:.2f})" if fit_used else "")
    noise = ev["slope_per_doubling_last"]
    measured = (
        f"measured over the {slope[2]}: {slope[0]:+.3f} per doubling {_pm(noise)}"
        + (", within noise" if noise["significant"] is not None and noise["low"] <= 0 <= noise["high"] else "")
        if slope
        else ""
    )
    unused = f"the power-law fit is set aside for predictions, as {' and '.join(problems)}" if problems else ""
    verdict: Verdict
    # a rise within noise (its 95% range reaches 0, or it goes with the last point) is flat too (walk AN)
    within_noise = slope is not None and slope[0] >= PLATEAU_GAIN and noise["significant"] is False
    flat_measured = slope is not None and (slope[0] < PLATEAU_GAIN or within_noise)
    # a fit that may not predict leaves the verdict to the measured slope; one that may needs both to agree
    fit_rises = g2 >= PLATEAU_GAIN if fit_used else slope is not None
    before = ev["slope_per_doubling_before"]
    slowing = (
        f"slowing: down from {before['slope']:+.3f} per doubling over the {before['window']}"
        if ev["slope_falling"]
        else ""
    )
    rfit = ev["recent_fit"]
    # the slope fell past noise and the same form fitted to the last doubling puts the next doubling under the bar:
    # the recent slope, read over a window the curve bent within, is not the next doubling's gain
    near_ceiling = (
        bool(slowing) and rfit is not None and not rfit["problems"] and rfit["gain_at_2x"]["mean"] < PLATEAU_GAIN
    )
    ev["near_ceiling"] = bool(fit_rises and not flat_measured and near_ceiling)
    if ev["near_ceiling"]:  # Overview and the plan may say "near its ceiling" rather than "has plateaued"
        verdict = "plateau"
        assert rfit is not None
        rg = rfit["gain_at_2x"]
        gf = ev["gains_falling"]
        per_point = (
            f"; the gain per logged point fell steadily from {gf['gains'][0]:+.2g} to {gf['gains'][-1]:+.2g} over "
            f"the last {len(gf['gains'])} points"
            if gf and gf["per_point_uniform"]
            else ""
        )
        faster = (
            f"; less if the gains keep falling as they did ({gf['next_doubling']:+.3f}, extrapolated from them)"
            if gf
            else ""
        )
        whole = (
            f"The fit over all {f.n} points extrapolates {g2:+.2f} at 2x (a model statement: the last doubling bends "
            "more than its shape does)"
            if fit_used
            else f"The fit over all {f.n} points is set aside for predictions, as {' and '.join(problems)}"
        )
        sentence = (
            f"Near its ceiling: {where} is still rising, but slowing: {measured}, down from "
            f"{before['slope']:+.3f} per doubling over the {before['window']}{per_point}. Predicted by the power law "
            f"fitted to the last doubling ({rfit['points']} points): "
            f"{band_text(rg['mean'], rg['low'], rg['high'], '+.3f', on_fit=ON_FIT)} over the next doubling (to "
            f"{_fmt_x(2 * f.x_ref, unit)}), to "
            f"{rfit['tau_at_2x']['mean']:.2f}, near its fitted ceiling {min(rfit['tau_inf'], tmax):.2f}, under the "
            f"{PLATEAU_GAIN:.2f} a rising curve needs{faster}. {whole}. More of the same data will add little: look "
            "at capacity (layers, hidden size), wiring (which target layers are captured) or how well the training "
            "data matches what you serve."
        )
    elif fit_rises and not flat_measured:
        verdict = "rising"
        if measured and slowing:
            measured += f"; {slowing}"
        if fit_used:
            sentence = (
                f"Still rising: {where}. The fit predicts {band_text(*at2, on_fit=ON_FIT)} at 2x "
                f"({g2:+.2f}) and {band_text(*at10, on_fit=ON_FIT)} at 10x ({g10:+.2f}) the "
                f"{_unit_label(unit)}{'; ' + measured if measured else ''}. More of the same data should help."
            )
        else:
            sentence = (
                f"Still rising: {where}; {measured}. How far it will rise is not predicted: {unused}. More of the "
                "same data should help."
            )
    else:
        verdict = "plateau"
        if slope is not None and (not fit_used or (flat_measured and g2 >= PLATEAU_GAIN)):
            # the data say flat, whatever the fit extrapolates (or the fit may not extrapolate at all)
            if within_noise:
                why = (
                    f"over the {slope[2]} it moved {slope[0]:+.3f} per doubling of the {_unit_label(unit)} "
                    f"{_pm(noise)}, {'within noise' if noise['low'] <= 0 else 'from its last point alone'} "
                    f"({noise['slope_without_last_point']:+.3f} without its last point): "
                    f"a rising curve needs at least {PLATEAU_GAIN:.2f} per doubling, above 0 at 95% and not from "
                    "its last point alone"
                )
            else:
                why = (
                    f"over the {slope[2]} it moved only {slope[0]:+.3f} per doubling of the {_unit_label(unit)} "
                    f"{_pm(noise)}, under the {PLATEAU_GAIN:.2f} a rising curve needs"
                )
            if not fit_used:
                why += f"; {unused}"
            else:
                why += (
                    f", although the fitted power law extrapolates {g2:+.2f} at 2x and {g10:+.2f} at 10x (a model "
                    "statement, not a measurement)"
                )
        else:
            ceiling = min(f.tau_inf, tmax)
            peak_i = int(np.argmax(ys))
            if round(ceiling, 2) < round(float(ys[peak_i]), 2):
                # a fit that runs below its own highest point has no ceiling to tell: the measured peak is said
                ev["measured_peak"] = {"tau_sim": float(ys[peak_i]), "x": float(xs[peak_i])}
                ev["fit_ceiling_below_peak"] = True
                ceiling_words = (
                    f"{split} tau_sim peaked at {ys[peak_i]:.2f} at {_fmt_x(float(xs[peak_i]), unit)}, measured; "
                    f"the fit's ceiling {ceiling:.2f} is below it, so it is no ceiling for this log"
                )
                why = (
                    f"the fit predicts only {g2:+.2f} at 2x and {g10:+.2f} at 10x the {_unit_label(unit)}; "
                    f"{ceiling_words}{'; ' + measured if measured else ''}"
                )
            else:
                why = (
                    f"the fit predicts only {g2:+.2f} at 2x and {g10:+.2f} at 10x the {_unit_label(unit)} "
                    f"(ceiling {ceiling:.2f}){'; ' + measured if measured else ''}"
                )
        sentence = (
            f"Flat: {where}; {why}. More of the same data will not move acceptance much: look at capacity "
            "(layers, hidden size), wiring (which target layers are captured) or how well the training data "
            "matches what you serve."
        )
    return Curve(
        points=points,
        fit=f,
        verdict=verdict,
        sentence=sentence,
        evidence=ev,
        # a fit that may not predict is drawn where it was fitted only, not extrapolated to 10x
        band=band(f, float(xs.min()), 10 * f.x_ref if fit_used else f.x_ref),
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
    read = {
        "format": stats.format,
        "files": stats.files,
        "bytes": stats.bytes,
        "lines_or_events": stats.lines,
        "long_lines_skipped": stats.long_lines,
        "bad_values": stats.bad_values,
        **info,
    }
    return _with_reading(out, read, steps)


def _with_reading(out: Curve, read: dict[str, Any], steps: int | None) -> Curve:
    """The analysed curve with what reading its log said: ``stats``, its notes in ``evidence["note"]`` (the CLI and
    the page print that note: what the reading dropped goes there too) and the positions used."""
    out.stats = read
    notes = [str(n) for n in read.get("notes") or () if n]
    if notes:
        out.evidence["note"] = " ".join(
            [n if n.endswith(".") else n + "." for n in (out.evidence.get("note"), *notes) if n]
        )
    if steps:
        out.evidence["steps"] = steps
    return out


# ---------------------------------------------------------------- kept with a draft (the results store)


def to_stored(
    curve: Curve,
    *,
    batch_size: float | None = None,
    epoch_samples: float | None = None,
    steps: int | None = None,
    split: Split = "auto",
) -> dict[str, Any]:
    """The curve as the results store keeps it with a draft (``Store.save_learning_curve``'s arguments but the
    names): its points (never the log), how the log was read (the arguments ``curve`` was given) and what reading
    it said (``stats``, notes included). ``from_stored`` rebuilds the same curve: fit, verdict and evidence."""
    points: list[dict[str, Any]] = []
    for p in curve.points:
        row: dict[str, Any] = {
            "step": p.step,
            "samples_seen": p.samples_seen,
            "split": p.split,
            "acc": list(p.acc),
            "tau_sim": p.tau_sim,
        }
        if p.epoch is not None:
            row["epoch"] = p.epoch
        if p.logged_acc:
            row["logged_acc"] = list(p.logged_acc)
        points.append(row)
    return {
        "points": points,
        "read": dict(curve.stats),
        "split": split,
        "batch_size": None if batch_size is None else float(batch_size),
        "epoch_samples": None if epoch_samples is None else float(epoch_samples),
        "steps": steps,
    }


def _stored_point(d: Any) -> CurvePoint:
    """One stored point; ValueError, KeyError or TypeError when it is not one ``to_stored`` wrote."""

    def num(v: Any) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"{v!r} is not a number")
        return v

    def probs(values: Any) -> tuple[float, ...]:
        out = tuple(num(v) for v in values)
        if any(not 0.0 <= v <= 1.0 for v in out):
            raise ValueError("an accuracy outside 0..1")
        return out

    acc = probs(d["acc"])
    logged = probs(d.get("logged_acc") or ())
    epoch = d.get("epoch")
    samples = d.get("samples_seen")
    step = d["step"]
    if isinstance(step, bool) or not isinstance(step, int):
        raise ValueError(f"step {step!r} is not a whole number")
    if not acc or d["split"] not in ("train", "eval"):
        raise ValueError("no accuracies, or a split other than train and eval")
    return CurvePoint(
        step=step,
        samples_seen=None if samples is None else num(samples),
        split=str(d["split"]),
        acc=acc,
        tau_sim=num(d["tau_sim"]),
        epoch=None if epoch is None else traininglogs.epoch_number(num(epoch)),
        logged_positions=len(logged or acc),
        logged_acc=logged,
    )


def from_stored(stored: Mapping[str, Any]) -> Curve:
    """The curve ``to_stored`` kept (a ``Store.learning_curve`` row): fitted again from its points as it was read
    (split, positions), with what reading its log said. DataError when the stored points are not readable."""
    raw = stored.get("points")
    if not isinstance(raw, list):
        raise DataError("the learning curve kept with this draft cannot be shown: its points are not readable")
    if not raw:
        raise DataError("the learning curve kept with this draft has no points")
    points = []
    for i, d in enumerate(raw, 1):
        try:
            points.append(_stored_point(d))
        except (KeyError, TypeError, ValueError) as exc:
            why = f"no {exc}" if isinstance(exc, KeyError) else str(exc)
            raise DataError(
                f"the learning curve kept with this draft cannot be shown: point {i} is not readable ({why})"
            ) from None
    split: Split = stored.get("split") or "auto"
    if split not in get_args(Split):
        raise InputError(f"split must be auto, train or eval, got {split!r}")
    steps = stored.get("steps")
    steps = int(steps) if isinstance(steps, int) and not isinstance(steps, bool) and steps >= 1 else None
    out = analyse(points, split=split, tau_max=(steps + 1) if steps else None)
    read = stored.get("read")
    return _with_reading(out, dict(read) if isinstance(read, Mapping) else {}, steps)


def at_steps(curve: Curve, steps: int) -> Curve:
    """``curve`` read over its first ``steps`` positions, as ``curve(..., steps=steps)`` reads its log: each point's
    tau_sim from every position the log gave (``logged_acc``), cut to ``steps``, fitted again below K + 1. The plan
    at 3 steps read a log kept at its 5 positions as a 5-position curve, and ``--curve`` the same log at 3 (walk AL3):
    one log, however it arrives, is read at the plan's num_steps. A curve read at ``steps`` already is returned."""
    if not 1 <= steps <= traininglogs.MAX_POSITIONS:
        raise InputError(f"--steps must be between 1 and {traininglogs.MAX_POSITIONS}, got {steps}")
    if curve.evidence.get("steps") == steps:
        return curve
    points = []
    for p in curve.points:
        full = p.logged_acc or p.acc
        acc = tuple(full[:steps])
        points.append(
            replace(p, acc=acc, tau_sim=tau_sim(acc), logged_acc=tuple(full) if len(full) > len(acc) else ())
        )
    split = curve.evidence.get("split")
    out = analyse(points, split=split if split in ("train", "eval") else "auto", tau_max=steps + 1)
    return _with_reading(out, dict(curve.stats), steps)


def kept_words(kept: Mapping[str, Any]) -> str:
    """A kept log (a ``Store.learning_curve`` row) in words: its file name, when and by whom it was kept, and how
    it was read. Acceptance vs data and ``plan`` say it alike."""
    from datetime import UTC

    when = kept.get("created_at")
    words = kept.get("source") or "a training log"
    if when is not None:
        words += f", kept on {when.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
    if kept.get("attached_by"):
        words += f" by {kept['attached_by']}"
    reading = [
        f"{kept['batch_size']:,.0f} samples per logged step" if kept.get("batch_size") else "",
        f"{kept['epoch_samples']:,.0f} samples per epoch" if kept.get("epoch_samples") else "",
        f"its first {kept['steps']} positions" if kept.get("steps") else "",
        f"fitted on its {kept['split']} points" if kept.get("split") in ("train", "eval") else "",
    ]
    if any(reading):
        words += f" (read with {', '.join(r for r in reading if r)})"
    return words


# ---------------------------------------------------------------- context for the page


def _live_points(curve: Curve | None) -> tuple[CurvePoint | None, CurvePoint | None]:
    """(the last point of the curve's fitted split, the eval peak's point where eval fell past noise after it)."""
    if curve is None:
        return None, None
    split = curve.evidence.get("split")
    same = [p for p in curve.points if p.split == split] or curve.points
    peak = curve.peak
    at_peak = (
        next((p for p in curve.points if p.split == "eval" and p.step == peak.step), None)
        if peak is not None
        else None
    )
    return (same[-1] if same else None), at_peak


def live_frame(runs: Iterable[Any], curve: Curve | None = None) -> pd.DataFrame:
    """Measured acceptance length of stored speculative runs (``store.RunRecord``) beside the simulated one.

    ``tau_sim_last`` is tau_sim of the curve's last point of its fitted split at the run's own
    num_steps, from every position the log gave (the curve's ``steps`` cuts only its own tau_sim); None when the
    log has fewer positions than the run drafts. ``tau_sim_peak`` is the same at the eval peak where eval fell past
    noise after it (``Curve.peak``, overfitting or not): the checkpoint a user would serve, where the last point is
    after the fall; None without one. ``live_words`` names both points (step, pass or epoch, samples seen).
    """
    last, at_peak = _live_points(curve)
    rows = []
    for r in runs:
        if getattr(r, "is_baseline", False):
            continue
        acc = r.accept_length if r.accept_length is not None else r.accept_length_mean
        if acc is None:
            continue
        key, _chain = run_setting(r)
        topk = int(r.topk) if getattr(r, "topk", None) else None
        sims: list[float | None] = []
        for point in (at_peak, last):
            positions = (point.logged_acc or point.acc) if point is not None else ()
            chain = not (topk and topk > 1)  # walk BR 4: a tree accepts more per cycle than a chain's tau_sim sums
            sims.append(
                tau_sim(positions, r.num_steps) if chain and r.num_steps and r.num_steps <= len(positions) else None
            )
        rows.append(
            {
                "run": r.title,
                "setting_key": key,
                "num_steps": r.num_steps,
                "topk": topk,
                "accept_length": float(acc),
                "tau_sim_peak": sims[0],
                "tau_sim_last": sims[1],
            }
        )
    return pd.DataFrame(
        rows, columns=["run", "setting_key", "num_steps", "topk", "accept_length", "tau_sim_peak", "tau_sim_last"]
    )


def on_curve(live: pd.DataFrame, positions: int) -> tuple[pd.DataFrame, str]:
    """The runs of ``live_frame`` on the curve's scale (chains drafting its ``positions``), and a sentence naming
    the others: walk BH drew a 4-step run's 3.46 over a 3-position curve, walk BR 4 a tree's 3.60 (topk 4)."""
    if not len(live):
        return live, ""
    steps = pd.to_numeric(live["num_steps"], errors="coerce")
    tree = pd.to_numeric(live["topk"], errors="coerce").fillna(1) > 1
    on = live[(steps == positions) & ~tree]
    if len(on) == len(live):
        return on, ""
    said = []
    other = live[(steps != positions) & ~tree]
    if len(other):
        steps_off = ", ".join(sorted({str(int(k)) for k in other["num_steps"] if pd.notna(k)}))
        said.append(", ".join(str(r).split(" ")[0] for r in other["run"]) + f" at num_steps {steps_off}")
    trees = live[tree]
    if len(trees):
        ks = sorted({int(k) for k in trees["topk"]})
        many = len(trees) > 1
        said.append(
            ", ".join(str(r).split(" ")[0] for r in trees["run"])
            + f", {'trees' if many else 'a tree'} (topk {', '.join(str(k) for k in ks)})"
        )
    return on, f"Not drawn on the curve (it sums {positions} positions): {'; '.join(said)}."


def _point_words(p: CurvePoint) -> str:
    """A logged point in words: "step 2500, epoch 4 in the log, 25K samples seen"."""
    parts = [f"step {p.step}"]
    if p.epoch is not None:
        parts.append(f"epoch {epoch_text(p.epoch)} in the log")
    if p.samples_seen:
        parts.append(f"{x_words(p.samples_seen)} samples seen")
    return ", ".join(parts)


def live_words(curve: Curve) -> str:
    """Which logged point each simulated column of ``live_frame`` is, for the page's caption under it."""
    last, at_peak = _live_points(curve)
    peak = curve.peak
    if peak is not None and at_peak is not None:
        after = (
            f"step {last.step}, {peak.last_at(last.epoch)}"
            if last is not None and last.split == "eval"
            else _point_words(last)
            if last is not None
            else ""
        )
        fell = "the fall (overfitting)" if not peak.why_not else "the fall past noise"
        return (
            f"tau_sim_peak: the log's eval peak (step {peak.step}, {peak.at()}), the checkpoint to serve, simulated "
            f"at each run's own num_steps; tau_sim_last: its last {last.split if last else 'eval'} point ({after}), "
            f"after {fell}."
        )
    if last is None:
        return ""
    return f"tau_sim_last: the log's last {last.split} point ({_point_words(last)}) at each run's num_steps."


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


MAX_PLAUSIBLE_EPOCHS = traininglogs.MAX_PLAUSIBLE_EPOCHS  # past it, the volume is likely another set's


def volume_note(curve: Curve | None, volume: float | None, source: str = "the volume in use") -> str | None:
    """A sentence when the log's samples seen and the training volume in use cannot both be right.

    Samples seen count every epoch, so a log past its volume is normal; walk M's log had seen 90K samples against
    an attached audit of 312 rows (288 passes), and every page answered from the 312 without a word."""
    if curve is None or not volume or volume <= 0:
        return None
    seen = max((p.samples_seen for p in curve.points if p.samples_seen), default=None)
    if not seen:
        return None
    passes = seen / volume
    if passes <= MAX_PLAUSIBLE_EPOCHS:
        return None
    return (
        f"Your training log saw {seen:,.0f} samples, {passes:,.0f} times {source} ({volume:,.0f}): more than "
        f"{MAX_PLAUSIBLE_EPOCHS} epochs, or that volume is of another set. The answers use {volume:,.0f}; attach "
        "the audit of the set the log trained on, or type its samples in the sidebar."
    )


# a volume within this fraction of the samples a log had seen at its end is that count (walk AC: 400,000 typed in,
# 400,000 samples seen over 4 passes)
SAME_COUNT = 0.05


@dataclass(frozen=True)
class PassesRead:
    """A training volume in use that the training log reads as samples seen over several passes: its samples seen at
    its end equal the volume, and its epochs count ``passes`` passes over about ``unique`` samples."""

    volume: float  # the volume in use (typed in or attached)
    passes: float
    unique: float  # about: samples seen per pass

    def words(self) -> str:
        """ "your training log reads them as 4 passes over about 100K unique samples"."""
        return (
            f"your training log reads them as {traininglogs.passes_text(self.passes)} passes over about "
            f"{human(self.unique)} unique samples"
        )

    def against(self, ref_volume: float, least: str = "") -> str:
        """ "..., 0.31x of the reference's 320K": the unique samples against the reference's volume."""
        ratio = self.unique / ref_volume
        return f"{self.words()}, {ratio:.2f}x of the reference's {least}{human(ref_volume)}"


def passes_read(curve: Curve | None, volume: float | None) -> PassesRead | None:
    """The training volume in use read through the training log: where the log's samples seen at its end are that
    volume (within ``SAME_COUNT``) and its epochs say it made several passes (``traininglogs.SEVERAL_PASSES``), the
    volume counts every pass, and the unique samples are about the samples seen over the passes (the samples seen at
    the last epoch over that epoch where the log counts progress, 4.0 at 400K; else over the passes it numbers).
    None otherwise: no log, no epochs, or a volume the log does not read as passes. Walk AC's Overview said "1.25x
    more data" of 400,000 samples typed in beside its own warning that they were 4 passes over 100,000."""
    if curve is None or not volume or volume <= 0:
        return None
    pts = [p for p in curve.points if p.samples_seen and p.epoch is not None]
    if not pts:
        return None
    last = max(pts, key=lambda p: (float(p.samples_seen or 0), float(p.epoch or 0)))
    seen = float(last.samples_seen or 0)
    if abs(seen - volume) > SAME_COUNT * volume:
        return None
    epochs = [float(p.epoch) for p in pts if p.epoch is not None]
    if any(e != int(e) for e in epochs):  # progress (0.25 .. 4.0): passes are the last point's epoch
        passes = float(last.epoch or 0)
    else:  # whole numbers count passes from the log's first (0-based or 1-based)
        passes = float(last.epoch or 0) - min(epochs) + 1
    if passes < traininglogs.SEVERAL_PASSES:
        return None
    return PassesRead(float(volume), passes, seen / passes)
