"""What a num_steps sweep says about the cost of a speculative cycle, and what other settings would give.

Model (chain drafting, topk 1, one sequence's view):

* a cycle drafts ``k`` tokens (``k = num_steps``) and verifies them in one target forward; it emits
  ``L(k)`` tokens, the acceptance length (the bonus token included);
* cycle time ``T(k) = t_verify + k * t_step`` where ``t_verify`` is the fixed cost of a cycle (the
  target forward, scheduling) and ``t_step`` is what one more draft step adds (the draft forward plus
  the target's cost of checking one more token, which is not free for large MoE targets);
* acceptance is geometric, ``L(k) = 1 + a + ... + a^k`` for a per-position acceptance ``a``, unless
  per-position rates were measured (vLLM's fractions of all drafts, ``accept_from_positions``) for as many
  positions as the sweep's largest num_steps;
* throughput ``tok/s = c * L(k) / T(k)`` for ``c`` concurrent sequences; every run of a sweep must use
  the same concurrency, so ``T`` is the per-sequence cycle time (ms) at that load;
* the baseline run (no speculation) gives the plain decode step time ``c / tok_s``;
* at a num_steps the sweep measured, its measured acceptance stands in for ``L(k)`` (``accept_at``); at one it did
  not, an acceptance the same draft, engine, prompts and temperature measured at another batch size, request count
  or max_tokens, named with its batch, runs and what else differs (``with_accept_elsewhere``), before the model's
  extrapolation (past the largest measured num_steps, the measured gains carried on as they shrink,
  ``accept_decayed``; ``accept_bound`` is only a bound); where every measured num_steps lost to the
  baseline, the answer is to serve without speculation there and a prediction past them is said as one
  (``all_lost``, ``Optimum.recommendation``); the best
  num_steps is picked on the measured tok/s where the sweep measured that num_steps and on the prediction only
  where it did not (``picked_tok_s``), the smallest within ``TIE_TOLERANCE`` of the fastest (``pick_steps``), a
  prediction weighed against a measured num_steps on the model's own prediction there (``fastest_steps``), and named
  over the best measured one only where it beats it by more than the model's own miss of the measurements
  (``fit_error``, ``within_fit_error``): the plan picks the same way. Where the model misses a measurement by more
  than ``MODEL_GAP_TOLERANCE`` the best's sentence says so (``model_gaps``).

Two ways to identify the model:

* ``fit``: two or more num_steps with acceptance measured: ``a`` by least squares on ``L``,
  ``t_verify``/``t_step`` by least squares of the measured ``T = c * L / tok_s`` on ``k``;
* ``calibrated``: a single speculative point. One equation cannot give two costs, so the run's notes
  must help: a verify time (``verify_ms``, ``verify_share_min``) fixes the split between verifying
  and drafting at the measured ``k``, and when the notes say the point was the best of a sweep over
  ``k`` in lo..hi, ``t_step`` is taken at the middle of the range of values for which that ``k`` is
  indeed the best (so the model agrees with what was measured, by construction, and says so).

A draft step measured with torch (``draftcost``, at batch = the sweep's concurrency) can replace
the identified drafting cost (``with_draft_step``), and ``compare_drafts`` predicts candidate drafts
side by side on the same verify costs.

Everything produced here is a prediction (``kind="predicted"``); nothing is written to the store.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from comparelib.errors import CompareError, DataError, InputError
from comparelib.models import registry
from comparelib.values import id_span, integer, percent_beside, run_param

if TYPE_CHECKING:  # numpy and pandas load in the functions that fit or build frames: Overview's answer needs neither
    import pandas as pd

    from comparelib.live.store import RunRecord

STEPS = tuple(range(1, 11))
TIE_TOLERANCE = 0.02  # two settings within 2% of throughput are a tie: run-to-run noise is about that
# the model's tok/s this far from the measured one at the same num_steps is said beside the best (``model_gaps``)
MODEL_GAP_TOLERANCE = 0.03


@dataclass(frozen=True)
class SweepPoint:
    """One measured speculative run: throughput, acceptance length and the number of draft steps."""

    num_steps: int
    tok_s: float
    accept_length: float | None
    run_id: int | None = None
    accept_per_position: tuple[float, ...] | None = None


def geometric_accept(alpha: float, k: int) -> float:
    """1 + a + a^2 + ... + a^k."""
    if k <= 0:
        return 1.0
    if abs(1.0 - alpha) < 1e-12:
        return float(k + 1)
    return (1.0 - alpha ** (k + 1)) / (1.0 - alpha)


def alpha_for(accept_length: float, k: int) -> float:
    """The per-position acceptance ``a`` that gives ``accept_length`` at ``k`` steps (bisection)."""
    if k <= 0:
        raise InputError("num_steps must be at least 1")
    if not 1.0 <= accept_length <= k + 1:
        raise DataError(f"acceptance length {accept_length:g} is impossible at {k} draft steps (must be 1..{k + 1})")
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if geometric_accept(mid, k) < accept_length:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def accept_from_positions(rates: Sequence[float], k: int) -> float:
    """L(k) from vLLM's per-position acceptance rates.

    vLLM counts position i of a draft as accepted only when the first i+1 drafted tokens all were, and divides
    by all drafts (vllm 0.34.0 vllm/v1/spec_decode/metrics.py:41-49 ``SpecDecodingStats.observe_draft``, :117
    ``acceptance_rates = sum(num_accepted_tokens_per_pos) / num_drafts``; ``vllm bench serve``'s
    ``spec_decode_per_position_acceptance_rates`` divides the same counters, vllm/benchmarks/serve.py:1157): each rate
    is already the chance of reaching that position, so ``L(k) = 1 + r1 + ... + rk``. Read as conditional rates
    (as this did before), a sweep's k=1 run carried its one rate geometrically and predicted 3.86 at six steps
    where the sweep's own acceptance gave 3.46. Past the measured positions, each further position keeps the
    last measured conditional rate ``rK / r(K-1)``."""
    if not rates:
        raise DataError("no per-position acceptance rates to read")
    rs = [min(max(float(r), 0.0), 1.0) for r in rates]
    total = 1.0 + sum(rs[: min(k, len(rs))])
    if k > len(rs):
        prev = rs[-2] if len(rs) >= 2 else 1.0
        cond = min(rs[-1] / prev, 1.0) if prev > 0 else 0.0
        term = rs[-1]
        for _ in range(k - len(rs)):
            term *= cond
            total += term
    return total


def _rates_of(points: Sequence[SweepPoint]) -> tuple[tuple[float, ...] | None, str | None]:
    """The per-position rates a sweep's acceptance is read from, and a note when they are set aside.

    The run that measured the most positions: a longer draft measures the same early positions and more
    (chain drafting does not change position i's chance with k). Rates that stop short of the sweep's largest
    num_steps are not used, since the acceptance measured there says more than an extrapolated rate."""
    with_rates = [p for p in points if p.accept_per_position]
    if not with_rates:
        return None, None
    longest = max(with_rates, key=lambda p: (len(p.accept_per_position or ()), p.num_steps))
    rates = tuple(float(r) for r in longest.accept_per_position or ())
    top = max(p.num_steps for p in points)
    if len(rates) < top:
        many = f"{len(rates)} position{'s' if len(rates) != 1 else ''}"
        return None, (
            f"per-position rates measured for {many} only; acceptance past them follows the "
            f"geometric fit to the acceptance measured at num_steps up to {top}"
        )
    run = f"run #{longest.run_id}" if longest.run_id is not None else f"the num_steps={longest.num_steps} run"
    return rates, (
        f"acceptance past the measured num_steps from the per-position rates of {run} ({len(rates)} positions)"
    )


def _fit_alpha(points: Sequence[SweepPoint]) -> float:
    """Least-squares geometric ``a`` over all points with a measured acceptance length."""
    import numpy as np

    pts = [(p.num_steps, float(p.accept_length)) for p in points if p.accept_length is not None]
    grid = np.linspace(0.0, 0.999, 2000)

    def sse(al: float) -> float:
        return sum((geometric_accept(al, k) - accept) ** 2 for k, accept in pts)

    # the grid at once: L(k) = (1 - a^(k+1)) / (1 - a) for every grid value and point (a < 1 on the grid)
    ks = np.array([k for k, _ in pts], dtype=float)
    target = np.array([accept for _, accept in pts], dtype=float)
    model = (1.0 - grid[:, None] ** (ks[None, :] + 1.0)) / (1.0 - grid[:, None])
    errs = ((model - target[None, :]) ** 2).sum(axis=1)
    i = int(np.argmin(errs))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    # golden-section refinement inside the bracketing grid cells
    gr = (math.sqrt(5) - 1) / 2
    c, d = hi - gr * (hi - lo), lo + gr * (hi - lo)
    for _ in range(100):
        if sse(c) < sse(d):
            hi = d
        else:
            lo = c
        c, d = hi - gr * (hi - lo), lo + gr * (hi - lo)
    return 0.5 * (lo + hi)


@dataclass(frozen=True)
class ElsewhereAccept:
    """An acceptance length measured at a num_steps the sweep did not measure, by runs of the same draft, engine,
    prompts and temperature as the sweep, at another batch size, request count or max_tokens
    (``with_accept_elsewhere``)."""

    num_steps: int
    accept_length: float  # the mean of ``run_ids``
    batch: int
    run_ids: tuple[int, ...]
    differs: tuple[str, ...] = ()  # what else differs from the sweep, in words: "32 requests", "max_tokens 256"
    fit_accept: float | None = None  # the model's acceptance there, which this one stands in for

    @property
    def words(self) -> str:
        """ "measured at batch 1 (run #2)", "measured at batch 4 (run #5, 32 requests)" """
        return f"measured at batch {self.batch} ({', '.join((runs_text(self.run_ids), *self.differs))})"


@dataclass(frozen=True)
class SpeedupModel:
    """Cycle cost and acceptance, identified from a sweep (``method``), with the notes that say how."""

    t_verify_ms: float  # fixed per-cycle cost
    t_step_ms: float  # added per draft step (drafting + checking one more token)
    t_draft_ms: float  # of t_step, the drafting part (the rest is verification)
    alpha: float  # geometric per-position acceptance
    concurrency: int = 1
    baseline_tok_s: float | None = None
    per_position: tuple[float, ...] | None = None
    method: str = "fit"  # "fit" | "calibrated"
    measured: tuple[SweepPoint, ...] = field(default_factory=tuple)
    notes: tuple[str, ...] = field(default_factory=tuple)
    baseline_run_id: int | None = None
    served_run_id: int | None = None  # the measured run that stands for what is served (``Sweep.served``)
    left_out: tuple[str, ...] = ()  # runs of the group measured under other conditions, and why
    fitted_run_ids: tuple[int, ...] = ()  # the sweep's speculative runs (``sweep_of``), with or without an acceptance
    # acceptance measured at num_steps the sweep did not measure, at another batch, request count or max_tokens
    # (``with_accept_elsewhere``)
    accept_elsewhere: tuple[ElsewhereAccept, ...] = ()
    # below the fewest measured num_steps (``floor_below``), where the fitted line dips under the baseline's decode
    # step: the cycle is drawn from that step (``floor_ms``, at num_steps 0) by ``floor_step_ms`` a step
    # (``_verify_floor``); None where the line stands everywhere
    floor_ms: float | None = None
    floor_step_ms: float = 0.0
    floor_below: int = 0
    # the group's other baselines comparable with every fitted run, beyond noise of the one taken: (run id, tok/s)
    # (walk BS 2: Overview's pair named #6 at 82.5 tok/s, this model #8 at 85.4 alone)
    other_baselines: tuple[tuple[int, float], ...] = ()

    def accept_length(self, k: int) -> float:
        """The model's acceptance at ``k`` (per-position rates, else geometric)."""
        if self.per_position:
            return accept_from_positions(self.per_position, k)
        return geometric_accept(self.alpha, k)

    def measured_accept(self, k: int) -> float | None:
        """The mean acceptance the sweep measured at ``k`` steps; None where it measured none."""
        found = [float(p.accept_length) for p in self.measured if p.num_steps == k and p.accept_length is not None]
        return sum(found) / len(found) if found else None

    def elsewhere_accept(self, k: int) -> ElsewhereAccept | None:
        """The acceptance measured at ``k`` elsewhere (``with_accept_elsewhere``), where the sweep measured none."""
        if self.measured_accept(k) is not None:
            return None
        found = next((e for e in self.accept_elsewhere if e.num_steps == k), None)
        below = [m for j in range(1, k) if (m := self.measured_accept(j)) is not None]
        # a chain's acceptance cannot fall with more steps: one under this sweep's own at fewer steps is not used
        return found if found is not None and found.accept_length >= max(below, default=0.0) else None

    def measured_tok_s(self, k: int) -> float | None:
        """The mean output tok/s the sweep measured at ``k`` steps; None where it measured none."""
        found = [float(p.tok_s) for p in self.measured if p.num_steps == k and p.tok_s]
        return sum(found) / len(found) if found else None

    def measured_runs(self, k: int) -> tuple[int, ...]:
        """The runs the sweep measured at ``k`` steps, by id."""
        return tuple(int(p.run_id) for p in self.measured if p.num_steps == k and p.run_id is not None)

    def accept_at(self, k: int) -> float:
        """Acceptance at ``k``: measured where the sweep measured it, else the model's, held at or above every
        measurement at fewer steps. Every pick of a best num_steps (``predict_frame``, the plan) reads this one: the
        geometric value at a measured num_steps (2.56 beside a measured 2.51) named another best than the plan did.

        A chain's acceptance length is ``1 + a1 + a1 a2 + ...``, a sum of non-negative terms: it cannot fall as
        steps grow. Spliced with measurements, the model's value fell (2.35 measured, 2.48 predicted, 3.05
        measured, 2.70 predicted over four num_steps); a prediction is now never below a measurement at fewer
        steps (``falling_measurements`` says where the measurements themselves fall)."""
        measured = self.measured_accept(k)
        if measured is not None:
            return measured
        below = [m for j in range(1, k) if (m := self.measured_accept(j)) is not None]
        elsewhere = self.elsewhere_accept(k)
        if (
            elsewhere is not None
        ):  # a measurement at another batch before an extrapolation (1.69 measured, 1.75 fitted)
            return elsewhere.accept_length
        if not self.per_position and (decayed := self.accept_decayed(k)) is not None:
            return max([min(decayed, self.accept_bound(k)), *below])
        return max([min(self.accept_length(k), self.accept_bound(k)), *below])

    def accept_decayed(self, k: int) -> float | None:
        """The prediction at ``k`` past the largest measured num_steps K: each further position keeps the share of the
        one before that the measured gains keep, as vLLM's per-position rule does (``accept_from_positions``).

        Walk AN: gains of 0.57 then 0.35 (2.59, 3.16, 3.51 at 2, 3, 4; each position keeps ~0.60 of the last) gave
        3.85, 4.20, 4.55 at 5..7 (``accept_bound``, the most a chain can accept) and 4.99 at 9 (geometric), where
        the shrinking gains give 3.72 .. 3.99. The gains are per step between measured num_steps (L(0) = 1: no draft,
        one token), each placed at the middle of its positions. None where fewer than two num_steps were measured,
        at or below K, or where the last two gains do not shrink (noise: the geometric fit and the bound stand)."""
        by_k = self.accepts_known()
        ks = [0, *by_k]
        if len(ks) < 3 or k <= ks[-1]:
            return None
        acc = {0: 1.0, **by_k}
        a, b, top = ks[-3], ks[-2], ks[-1]
        g_prev, g_last = (acc[b] - acc[a]) / (b - a), (acc[top] - acc[b]) / (top - b)
        if g_last <= 0:
            return acc[top]
        if g_prev <= 0 or g_last >= g_prev:
            return None
        mid_prev, mid_last = (a + 1 + b) / 2, (b + 1 + top) / 2
        keep = (g_last / g_prev) ** (1.0 / (mid_last - mid_prev))
        term = g_last * keep ** (top - mid_last)  # the last measured position's gain
        total = acc[top]
        for _ in range(k - top):
            term *= keep
            total += term
        return min(total, k + 1.0)

    def accepts_known(self) -> dict[int, float]:
        """{num_steps: acceptance} measured for this sweep's setting: its own runs', and at num_steps it did not
        measure, those of the same draft and setting at another batch (``elsewhere_accept``), by num_steps. Walk BT 1:
        batch 32 measured 1 and 3 (1.67, 3.00); read alone, their gains did not shrink and acceptance rose +0.67 a
        step to 7.67 at num_steps 10, while batch 1's 2.50 at 2 (borrowed into the same table) says each gain keeps
        0.6 of the last, near 3.75 at most, as batch 1's own prediction."""
        steps = {p.num_steps for p in self.measured} | {e.num_steps for e in self.accept_elsewhere}
        found = {}
        for j in sorted(steps):
            a = self.measured_accept(j)
            if a is None and (e := self.elsewhere_accept(j)) is not None:
                a = e.accept_length
            if a is not None:
                found[j] = a
        return found

    def accept_bound(self, k: int) -> float:
        """The most a chain can accept at ``k`` past its measured num_steps: the last measured gain per step, kept.

        Position i's chance does not depend on how many steps are drafted, so each further step adds
        ``a1 a2 ... ai``, never more than the step before (every factor is at most 1): past the largest measured
        num_steps K, acceptance rises at most by the slope between K and the measurement before it. A geometric fit
        to 2.00, 2.60, 2.70 put 4.08 at eight steps, where the measured gains allow 3.20. Infinite where fewer than
        two num_steps were measured (here, or at another batch for num_steps it did not measure: ``accepts_known``),
        or below K."""
        known = self.accepts_known()
        ks = sorted(known)
        if len(ks) < 2 or k <= ks[-1]:
            return math.inf
        top, before = ks[-1], ks[-2]
        hi, lo = known[top], known[before]
        slope = max((hi - lo) / (top - before), 0.0)
        return hi + (k - top) * slope

    def floored(self, k: int) -> bool:
        """Whether the cycle at ``k`` is drawn from the decode step rather than the fitted line (``_verify_floor``)."""
        return (
            self.floor_ms is not None
            and k < self.floor_below
            and self.floor_ms + k * self.floor_step_ms > self.t_verify_ms + k * self.t_step_ms
        )

    def cycle_ms(self, k: int) -> float:
        if self.floored(k):
            assert self.floor_ms is not None
            return self.floor_ms + k * self.floor_step_ms
        return self.t_verify_ms + k * self.t_step_ms

    def verify_ms(self, k: int) -> float:
        cycle = self.cycle_ms(k)
        if self.floor_ms is not None:  # the target forward costs at least the decode step; drafting the rest
            return max(cycle - k * self.t_draft_ms, min(self.floor_ms, cycle))
        return cycle - k * self.t_draft_ms

    def verify_share(self, k: int) -> float:
        return self.verify_ms(k) / self.cycle_ms(k)

    def tok_s(self, k: int, accept_length: float | None = None) -> float:
        acc = self.accept_at(k) if accept_length is None else accept_length
        return self.concurrency * acc / self.cycle_ms(k) * 1000.0

    @property
    def baseline_step_ms(self) -> float | None:
        if not self.baseline_tok_s:
            return None
        return self.concurrency / self.baseline_tok_s * 1000.0


def falling_measurements(points: Sequence[SweepPoint]) -> list[str]:
    """Where measured acceptance falls as num_steps grows, one sentence each; empty when it never does.

    A chain's acceptance length cannot fall with more steps (a sum of non-negative terms), so a fall between
    measurements is run-to-run noise or runs that differ in more than num_steps; the model's predictions are
    held at the highest measurement below them instead of drawing the fall (``SpeedupModel.accept_at``)."""
    by_k: dict[int, list[SweepPoint]] = {}
    for p in points:
        if p.accept_length is not None:
            by_k.setdefault(p.num_steps, []).append(p)
    out: list[str] = []
    best: tuple[int, float, SweepPoint] | None = None  # the highest mean so far: (k, mean, a run at k)
    for k in sorted(by_k):
        pts = by_k[k]
        vals = [float(p.accept_length) for p in pts if p.accept_length is not None]
        mean = sum(vals) / len(vals)
        if best is not None and mean < best[1] - 1e-9:
            run = f" (run #{pts[0].run_id})" if pts[0].run_id is not None else ""
            was = f" (run #{best[2].run_id})" if best[2].run_id is not None else ""
            out.append(
                f"measured acceptance falls from {best[1]:.2f} at num_steps={best[0]}{was} to {mean:.2f} at "
                f"num_steps={k}{run}: a chain's acceptance length cannot fall with more steps, so this is run-to-run "
                "noise or a change between the runs; predictions are held at the highest measurement below them, "
                "not drawn falling"
            )
        if best is None or mean > best[1]:
            best = (k, mean, pts[0])
    return out


def _cycle_ms(p: SweepPoint, concurrency: int) -> float:
    return concurrency * float(p.accept_length) / p.tok_s * 1000.0  # type: ignore[arg-type]


def _verify_floor(
    ks: Any, ts: Any, t_verify: float, t_step: float, baseline_tok_s: float | None, concurrency: int
) -> tuple[float, float, int, str] | None:
    """Where the fitted line puts a cycle the sweep did not measure under the baseline's decode step, below its fewest
    measured num_steps: (the decode step, the chord's cost a step, the fewest measured num_steps, the note that says
    so); None where the line stands.

    A cycle verifies num_steps + 1 tokens a sequence in one target forward, which costs at least the plain decode
    step the baseline measured at that batch, so no cycle is cheaper than that step. Walk BJ: a batch-8 sweep at
    num_steps 2..4 (27.3 to 44.8 ms cycles) fitted 9.75 ms fixed and 8.77 ms a step, an 18.52 ms cycle at num_steps 1
    under the 19.73 ms decode step, and predicted num_steps 1 at 781.7 tok/s, above the 733.9 that 8 streams x 1.81
    accepted / 19.73 ms allow even with a free draft. Below the fewest measured num_steps the cycle is drawn on the
    chord from the decode step (at num_steps 0) to the line's cycle there, where that chord lies above the line;
    the line stands at and past the runs. Walk BN: holding the whole line's fixed cost at the step and refitting its
    slope (3.66 ms a step, where the runs grew by 7.5) predicted num_steps 10 at 191.3 tok/s past a measured fall
    from 141.9 at 3 to 128.0 at 4. Not applied where a run's own cycle is under the decode step (the runs and the
    baseline then disagree), nor where the fewest num_steps the line predicts lies past the runs (walk AD: batch 32
    measured num_steps 1, 3 and 6)."""
    if not baseline_tok_s or t_step <= 0 or t_verify <= 0:
        return None
    base_ms = concurrency / baseline_tok_s * 1000.0
    measured = {int(k) for k in ks}
    k0 = min(measured)
    if k0 <= 1 or t_verify + t_step >= base_ms or float(min(ts)) < base_ms:
        return None
    # to the line's own cycle there, so cycles never shorten with more steps (walk BO 3: drawn to the runs' 25.13 ms,
    # num_steps 1 read 23.21 ms beside the line's 22.82 ms at 2)
    cycle0 = max(t_verify + k0 * t_step, base_ms)
    step = (cycle0 - base_ms) / k0
    below = ", ".join(map(str, range(1, k0)))
    note = (
        f"the fitted line ({t_verify:.2f} ms a cycle + {t_step:.2f} ms a step) puts num_steps 1, not measured, at "
        f"{t_verify + t_step:.2f} ms, under the baseline decode step, {base_ms:.2f} ms, which each cycle's target "
        f"forward costs at least: at num_steps {below} (fewer than the {k0} measured) the cycle is drawn from that "
        f"step to the line's {cycle0:.2f} ms at num_steps {k0} ({step:.2f} ms a step; {base_ms + step:.2f} ms at "
        "num_steps 1)"
    )
    return base_ms, step, k0, note


def fit_sweep(
    points: Sequence[SweepPoint],
    *,
    baseline_tok_s: float | None = None,
    concurrency: int = 1,
    verify_ms: tuple[float, float] | float | None = None,
    verify_share_min: float | None = None,
    sweep_range: tuple[int, int] | None = None,
) -> SpeedupModel:
    """Identify the model from measured points (see the module docstring for the two methods).

    ``verify_ms`` is the measured target verify time per cycle at the measured setting (a value or a
    (lo, hi) range); ``verify_share_min`` the smallest share of the cycle it took; ``sweep_range``
    the num_steps range that was swept when only its best point was kept.
    """
    import numpy as np

    usable = [p for p in points if p.accept_length is not None and p.tok_s and p.tok_s > 0 and p.num_steps >= 1]
    if not usable:
        raise DataError(
            "no speculative run with both throughput and acceptance length; "
            "run a sweep with an SGLang or vLLM server first"
        )
    if concurrency < 1:
        raise InputError("concurrency must be at least 1")
    notes: list[str] = []
    floored: tuple[float, float, int, str] | None = None
    per_pos, rates_note = _rates_of(usable)
    if rates_note:
        notes.append(rates_note)
    alpha = _fit_alpha(usable)
    steps = sorted({p.num_steps for p in usable})
    if len(steps) >= 2:
        ks = np.array([p.num_steps for p in usable], dtype=float)
        ts = np.array([_cycle_ms(p, concurrency) for p in usable])
        slope, intercept = np.polyfit(ks, ts, 1)
        t_verify, t_step = float(intercept), float(slope)
        method = "fit"
        notes.append(f"fitted on {len(usable)} runs at num_steps {', '.join(map(str, steps))}")
        floored = _verify_floor(ks, ts, t_verify, t_step, baseline_tok_s, concurrency)
        if floored is not None:
            notes.append(floored[3])
        t_draft = t_step
        if verify_ms is not None:
            v_lo, v_hi = (verify_ms, verify_ms) if isinstance(verify_ms, (int, float)) else verify_ms
            k0 = steps[0]
            v = 0.5 * (v_lo + v_hi)
            t_draft = max(0.0, (t_verify + k0 * t_step - v) / k0)
            notes.append(f"drafting share from the measured verify time {v:g} ms at {k0} steps")
        else:
            notes.append(
                "verification assumed to cost the same at every num_steps (all of the per-step cost is drafting)"
            )
    else:
        p = usable[0]
        k0 = p.num_steps
        t_cycle = _cycle_ms(p, concurrency)
        method = "calibrated"
        notes.append(
            f"one speculative run (num_steps={k0}, {p.tok_s:g} tok/s, acceptance {p.accept_length:g}): "
            "calibrated, not fitted"
        )
        # split at the measured point
        if verify_ms is not None or verify_share_min is not None:
            v_lo, v_hi = (0.0, t_cycle)
            if verify_ms is not None:
                v_lo, v_hi = (verify_ms, verify_ms) if isinstance(verify_ms, (int, float)) else verify_ms
            lo = max(v_lo, (verify_share_min or 0.0) * t_cycle)
            hi = min(v_hi, t_cycle)
            if lo > hi:
                notes.append(
                    f"verify time {v_lo:g}-{v_hi:g} ms does not fit in the measured {t_cycle:.1f} ms cycle; "
                    "using the whole cycle as verification"
                )
                lo = hi = min(max(lo, 0.0), t_cycle)
            v = 0.5 * (lo + hi)
            notes.append(f"verify {v:.1f} ms of the {t_cycle:.1f} ms cycle at {k0} steps (from the run's notes)")
        else:
            v = t_cycle
            if sweep_range is not None:
                notes.append("no verify time recorded: the whole cycle counted as verification")
        t_draft = (t_cycle - v) / k0
        # per-step cost: from the sweep's optimum when known, else drafting only
        t_step = t_draft
        if sweep_range is not None:
            lo_c, hi_c = t_draft, t_cycle / k0  # t_step >= drafting; t_verify = T - k0*t_step >= 0
            acc0 = float(p.accept_length)  # type: ignore[arg-type]
            for k in range(sweep_range[0], sweep_range[1] + 1):
                if k == k0:
                    continue
                lk = accept_from_positions(per_pos, k) if per_pos else geometric_accept(alpha, k)
                bound = t_cycle * (lk / acc0 - 1.0) / (k - k0)
                if k > k0:
                    lo_c = max(lo_c, bound)
                else:
                    hi_c = min(hi_c, bound)
            if lo_c <= hi_c:
                t_step = 0.5 * (lo_c + hi_c)
                notes.append(
                    f"the run was the best of num_steps {sweep_range[0]}..{sweep_range[1]}: that holds for a per-step "
                    f"cost of {lo_c:.2f}..{hi_c:.2f} ms; using the middle, {t_step:.2f} ms"
                )
            else:
                t_step = lo_c
                notes.append(
                    f"no per-step cost makes num_steps={k0} the best of {sweep_range[0]}..{sweep_range[1]} under "
                    f"geometric acceptance; using {t_step:.2f} ms (the measured optimum is not reproduced)"
                )
        elif t_step > 0:
            notes.append(
                "one run and no sweep: per-step cost assumed to be drafting only (checking one more token free)"
            )
        else:  # walk S: "whole cycle counted as verification" beside "per-step cost assumed to be drafting only"
            how = (
                "no verify time recorded"
                if verify_ms is None and verify_share_min is None
                else "the recorded verify time takes the whole cycle"
            )
            notes.append(
                f"one num_steps ({k0}), {how} and no sweep: what another draft step costs is not known (the "
                f"{t_cycle:.2f} ms cycle is not split into verification and drafting), so tok/s is not predicted at "
                "another num_steps: holding the cycle fixed while acceptance grows would only bound it from above"
            )
        t_verify = t_cycle - k0 * t_step
    if method == "fit" and (t_step <= 0 or t_verify <= 0):
        notes.append(
            f"the fitted costs are not physical (fixed {t_verify:.2f} ms, per step {t_step:.2f} ms a cycle): "
            + (
                "a straight line does not fit the runs (their cycles may grow faster than linearly with num_steps), "
                "the sweep is too noisy, or its runs differ in more than num_steps; no best num_steps is predicted"
                if t_step > 0
                else "the sweep is too noisy or its runs differ in more than num_steps; no best num_steps is predicted"
            )
        )
    elif t_verify <= 0:
        notes.append("the fitted fixed cost is not positive: the sweep is too noisy or the model does not apply")
    notes += falling_measurements(usable)
    if baseline_tok_s:
        base_ms = concurrency / baseline_tok_s * 1000.0
        notes.append(f"baseline decode step {base_ms:.2f} ms ({baseline_tok_s:.1f} tok/s without speculation)")
    return SpeedupModel(
        t_verify_ms=float(t_verify),
        t_step_ms=float(t_step),
        t_draft_ms=float(t_draft),
        alpha=float(alpha),
        concurrency=concurrency,
        baseline_tok_s=baseline_tok_s,
        per_position=tuple(per_pos) if per_pos else None,
        method=method,
        measured=tuple(usable),
        notes=tuple(notes),
        floor_ms=floored[0] if floored is not None else None,
        floor_step_ms=floored[1] if floored is not None else 0.0,
        floor_below=floored[2] if floored is not None else 0,
    )


PREDICTION_COLUMNS = (
    "num_steps",
    "scenario",
    "accept_length",
    "accept_source",
    "accept_from",
    "cycle_ms",
    "verify_ms",
    "verify_share",
    "tok_s",
    "speedup",
    "kind",
    "measured_tok_s",
    "measured_runs",
    "pick_tok_s",
    "tok_s_source",
)


def predict_frame(
    model: SpeedupModel,
    steps: Iterable[int] = STEPS,
    *,
    scenario: str = "current draft",
    alpha: float | None = None,
    measured: bool = True,
) -> pd.DataFrame:
    """Predicted throughput per num_steps (``kind='predicted'``); ``alpha`` overrides the acceptance.

    The acceptance is the measured one where the sweep measured that num_steps (``accept_source``
    "measured"), else one measured at another batch size, request count or max_tokens ("other batch", the name kept
    for all three; ``accept_from`` says which runs and what differs: ``with_accept_elsewhere``), else the model's
    ("predicted"); with ``alpha`` every row is predicted.
    ``tok_s`` is always a prediction (the measured acceptance over the fitted cycle: the charts' dashed line);
    ``measured_tok_s`` is the mean the sweep measured there (``measured_runs``), and ``pick_tok_s`` what a best
    num_steps is picked on: the measurement where there is one, else the prediction (``tok_s_source`` says which).
    With ``alpha`` (another acceptance) or ``measured=False`` (another draft's step, ``compare_drafts``) nothing
    measured applies.
    """
    import pandas as pd

    own = alpha is None and measured
    rows = []
    for k in steps:
        acc_m = model.measured_accept(k) if alpha is None else None
        elsewhere = model.elsewhere_accept(k) if alpha is None else None
        said = ""
        if acc_m is not None:
            acc, source = acc_m, "measured"
        else:  # never below a measurement at fewer steps (``SpeedupModel.accept_at``)
            acc = geometric_accept(alpha, k) if alpha is not None else model.accept_at(k)
            source = "other batch" if elsewhere is not None else "predicted"
            said = elsewhere.words if elsewhere is not None else ""
        tps = model.tok_s(k, acc)
        tok_m = model.measured_tok_s(k) if own else None
        rows.append(
            {
                "num_steps": int(k),
                "scenario": scenario,
                "accept_length": acc,
                "accept_source": source,
                "accept_from": said,
                "cycle_ms": model.cycle_ms(k),
                "verify_ms": model.verify_ms(k),
                "verify_share": model.verify_share(k),
                "tok_s": tps,
                "speedup": tps / model.baseline_tok_s if model.baseline_tok_s else None,
                "kind": "predicted",
                "measured_tok_s": tok_m,
                "measured_runs": model.measured_runs(k) if tok_m is not None else (),
                "pick_tok_s": tps if tok_m is None else tok_m,
                "tok_s_source": "predicted" if tok_m is None else "measured",
            }
        )
    return pd.DataFrame(rows, columns=list(PREDICTION_COLUMNS))


def picked_tok_s(model: SpeedupModel, predicted: Mapping[int, float]) -> dict[int, float]:
    """What a best num_steps is picked on: the sweep's measured tok/s (the mean of its runs there) at a num_steps it
    measured, the prediction only elsewhere. The model at batch 4 put 264.6 tok/s at num_steps=4, where 248.4 was
    measured, and named 4 the best over 263.4 measured at 5."""
    return {k: m if (m := model.measured_tok_s(k)) is not None else v for k, v in predicted.items()}


def runs_text(run_ids: Sequence[int]) -> str:
    """ "run #15"; "runs #3 and #9 (their mean)" where a num_steps was measured more than once."""
    ids = [f"#{i}" for i in run_ids]
    if len(ids) <= 1:
        return f"run {ids[0]}" if ids else "runs not recorded"
    return f"runs {', '.join(ids[:-1])} and {ids[-1]} (their mean)"


def model_gaps(model: SpeedupModel, predicted: Mapping[int, float]) -> list[tuple[int, float, float, tuple[int, ...]]]:
    """(num_steps, predicted tok/s, measured tok/s, runs) where the prediction misses the sweep's measurement at the
    same num_steps by more than ``MODEL_GAP_TOLERANCE``, fewest steps first. The cycle comes from the linear fit
    over the whole sweep, so a run off the line (noise, or a change between runs) is missed by it."""
    out = []
    for k in sorted(predicted):
        m = model.measured_tok_s(k)
        if m is not None and m > 0 and abs(predicted[k] / m - 1) > MODEL_GAP_TOLERANCE:
            out.append((k, float(predicted[k]), m, model.measured_runs(k)))
    return out


def model_gaps_clause(gaps: Sequence[tuple[int, float, float, tuple[int, ...]]]) -> str | None:
    """The gaps of ``model_gaps`` in words: "the model misses the measurement by more than 3%: at num_steps=4 it
    predicts 264.6 tok/s, 6.5% above the 248.4 measured in run #14; ..."; None when there are none."""
    if not gaps:
        return None
    parts = []
    for i, (k, pred, meas, runs) in enumerate(gaps):
        d = (pred / meas - 1) * 100
        said = f"{abs(d):.1f}% {'above' if d > 0 else 'below'} the {meas:.1f} measured in {runs_text(runs)}"
        parts.append(f"at num_steps={k} {'it predicts ' if i == 0 else ''}{pred:.1f} tok/s, {said}")
    return f"the model misses the measurement by more than {MODEL_GAP_TOLERANCE:.0%}: " + "; ".join(parts)


def pick_steps(
    tok_s_by_steps: Mapping[int, float],
    predicted: Mapping[int, float] | None = None,
    measured: Collection[int] = (),
) -> tuple[int, tuple[int, ...]]:
    """(the num_steps to name, the others that tie with it): every num_steps within ``TIE_TOLERANCE`` of the
    fastest ties, and the smallest of them is named: the same throughput within run-to-run noise for
    fewer draft steps (less drafting, fewer rejected tokens to verify as the batch grows). It does not depend
    on which run is served, so the speedup page, the CLI and the plan (which knows the served run) name the same
    num_steps; the plan had named 4 for a 0.1% edge while the speedup page named 3. Give it the measured tok/s
    where measured (``picked_tok_s``), with the model's ``predicted`` tok/s and the ``measured`` num_steps: a
    prediction is then weighed against a measured num_steps on the model's prediction there too (``weigh``)."""
    if not tok_s_by_steps:
        raise DataError("no predicted throughput to pick a num_steps from")
    top = fastest_steps(tok_s_by_steps, predicted, measured)
    inside = within_fit_error(tok_s_by_steps, predicted, measured)  # above the measured best, inside the fit's error
    tied = sorted(
        k
        for k in tok_s_by_steps
        if k not in inside and weigh(k, top, tok_s_by_steps, predicted, measured) >= 1 - TIE_TOLERANCE
    )
    # never a measured num_steps named or tied where one measured faster is not (walk BL: 4 at 105.7 named, 3 at
    # 106.0 left out); the fastest stays, as no measured num_steps is faster than it
    meas = [j for j in measured if j in tok_s_by_steps]
    tied = [
        k
        for k in tied
        if k not in meas or not any(tok_s_by_steps[j] > tok_s_by_steps[k] for j in meas if j not in tied)
    ]
    # a prediction that only ties a measured num_steps is not named over it: the smallest measured of the ties is
    # (walk BP 2: an unmeasured num_steps 1 at 834.5 tok/s named over the measured 2's 836.7, where the model missed
    # a measured num_steps 1 by 25.5% at another batch); the prediction stays a tie, said as one
    named = next((k for k in tied if k in meas), tied[0])
    return named, tuple(k for k in tied if k != named)


def model_basis(
    a: int, b: int, tok_s: Mapping[int, float], predicted: Mapping[int, float] | None, measured: Collection[int]
) -> int | None:
    """The measured num_steps on whose model prediction ``a`` is weighed against ``b`` (``weigh``), or None where they
    are weighed on the tok/s picked (both measured, both predicted, or the measurement's side the less favourable to
    the prediction). Between a prediction and a measured num_steps that is the measured one itself, or another
    measured num_steps within noise of it on the measurements: the measurements cannot tell them apart, so a
    prediction gains on one only as far as it gains on the model's prediction at each (walk BL: 111.4 tok/s predicted
    at 6 is 8.8% above the model's 102.4 at num_steps 3, measured 106.0, but 1.1% above its 110.2 at 4, measured
    105.7, within 0.3% of 3; weighed on 3 alone it removed the measured 3 and named the slower 4)."""
    if predicted is None or (a in measured) == (b in measured):
        return None
    p, m = (a, b) if b in measured else (b, a)
    if not tok_s.get(m):
        return None
    best, basis = tok_s[p] / tok_s[m], None
    for j in sorted(measured, key=lambda j: (j != m, j)):
        if j not in tok_s or not tok_s[j] or min(tok_s[j], tok_s[m]) / max(tok_s[j], tok_s[m]) < 1 - TIE_TOLERANCE:
            continue
        ratio = predicted.get(p, tok_s[p]) / (predicted.get(j, tok_s[j]) or 1.0) * tok_s[j] / tok_s[m]
        if ratio < best:
            best, basis = ratio, j
    return basis


def on_the_model(
    a: int, b: int, tok_s: Mapping[int, float], predicted: Mapping[int, float] | None, measured: Collection[int]
) -> bool:
    """Whether ``a`` is weighed against ``b`` on the model's predictions (``model_basis``): one measured, one not,
    and the model's ratio the less favourable to the prediction."""
    return model_basis(a, b, tok_s, predicted, measured) is not None


def weigh(
    a: int, b: int, tok_s: Mapping[int, float], predicted: Mapping[int, float] | None, measured: Collection[int]
) -> float:
    """``a``'s tok/s as a share of ``b``'s. Between a measured num_steps and a predicted one a prediction gains only as
    far as it gains on both scales: against the measurement, and against the model's own prediction there (like with
    like), or at a measured num_steps within noise of it (``model_basis``). Walk AH3: 357.8 tok/s predicted at 5
    against 350.6 measured at 4 read +2.05%, a win past 2%, where the model's own 356.6 at 4 gives +0.3%, a tie. The
    measurement's side still holds where the model misses its runs (walk AB: 279.2 predicted at 2 is 4.3% under the
    291.6 measured at 3, whatever the model put at 3)."""
    if a not in measured and b in measured and predicted is not None:
        j = model_basis(a, b, tok_s, predicted, measured)
        if j is None:
            return tok_s[a] / tok_s[b] if tok_s[b] else 1.0
        return predicted.get(a, tok_s[a]) / (predicted.get(j, tok_s[j]) or 1.0) * tok_s[j] / tok_s[b]
    if a in measured and b not in measured and predicted is not None:
        w = weigh(b, a, tok_s, predicted, measured)
        return 1.0 / w if w else 1.0
    return tok_s[a] / tok_s[b] if tok_s[b] else 1.0


def fastest_steps(
    tok_s: Mapping[int, float], predicted: Mapping[int, float] | None = None, measured: Collection[int] = ()
) -> int:
    """The num_steps the others are held within noise of: the highest tok/s, except that with measurements and the
    model's ``predicted`` tok/s the best measured num_steps stands unless a predicted one gains on it beyond noise
    as ``weigh`` weighs it."""
    meas = [k for k in tok_s if k in measured] if predicted is not None else []
    pred = [k for k in tok_s if k not in meas]
    if not meas or not pred:
        return max(tok_s, key=lambda k: (tok_s[k], -k))
    best_m = max(meas, key=lambda k: (tok_s[k], -k))
    best_p = max(pred, key=lambda k: (weigh(k, best_m, tok_s, predicted, measured), -k))
    beaten = weigh(best_m, best_p, tok_s, predicted, measured) < 1 - max(
        TIE_TOLERANCE, fit_error(tok_s, predicted, measured)
    )
    return best_p if beaten else best_m


def fit_error(tok_s: Mapping[int, float], predicted: Mapping[int, float] | None, measured: Collection[int]) -> float:
    """The model's largest miss of the sweep's measurements, as a share of the measurement (0 without a model). A
    prediction must beat the best measured num_steps by more than this (and noise) to be named over it: walk AN's model
    missed run #9 by 9.7% and named a predicted 9 at +25% on an acceptance bound, then 6 at +2.5%."""
    if predicted is None:
        return 0.0
    return max((abs(predicted[k] / tok_s[k] - 1) for k in measured if k in predicted and tok_s.get(k)), default=0.0)


def within_fit_error(
    tok_s: Mapping[int, float], predicted: Mapping[int, float] | None, measured: Collection[int]
) -> list[int]:
    """The predicted num_steps ahead of the best measured one beyond noise, but not beyond the model's own error
    (``fit_error``): not named over it, nor said as ties; empty where the fastest is a prediction or the model misses
    no measurement beyond noise."""
    top = fastest_steps(tok_s, predicted, measured)
    if predicted is None or top not in measured or fit_error(tok_s, predicted, measured) <= TIE_TOLERANCE:
        return []
    return sorted(
        k for k in tok_s if k not in measured and weigh(k, top, tok_s, predicted, measured) > 1 + TIE_TOLERANCE
    )


def _sentence_of(clause: str) -> str:
    return clause[:1].upper() + clause[1:] + ("" if clause.endswith(".") else ".")


@dataclass(frozen=True)
class Optimum:
    num_steps: int
    tok_s: float  # measured where the sweep measured num_steps (``source``), else predicted
    speedup: float | None
    verify_share: float
    runner_up: int | None  # the fastest other num_steps
    runner_up_tok_s: float | None
    tie: bool  # another num_steps is within TIE_TOLERANCE of the fastest (``pick_steps``)
    sentence: str
    measured_faster: float | None = None  # a measured tok/s beyond noise above every prediction: too low
    ties: tuple[int, ...] = ()  # the num_steps that tie with the named one
    source: str = "predicted"  # "measured" (``run_ids``) or "predicted"
    run_ids: tuple[int, ...] = ()  # the runs that measured the best's tok/s
    predicted_tok_s: float | None = None  # the model's tok/s at the best num_steps
    model_gaps: tuple[tuple[int, float, float, tuple[int, ...]], ...] = ()  # ``model_gaps``
    # (num_steps, run, speedup) of every measured run, where every one was slower than the baseline beyond noise
    lost: tuple[tuple[int, int | None, float], ...] = ()
    recommendation: str | None = None  # "serve without speculation at batch 16" where every measured run lost


def all_lost(model: SpeedupModel) -> list[SweepPoint]:
    """The sweep's measured runs, fewest steps first, where every one was slower than its baseline beyond run-to-run
    noise (``TIE_TOLERANCE``); empty otherwise. At such a batch the measurements are the answer: a prediction at a
    num_steps none measured (the fit through two losing runs put +5.0% at num_steps 1) is not a recommendation."""
    base = model.baseline_tok_s
    pts = sorted(model.measured, key=lambda p: (p.num_steps, p.run_id or 0))
    if not base or not pts or any(p.tok_s >= base * (1 - TIE_TOLERANCE) for p in pts):
        return []
    return pts


def losing_words(model: SpeedupModel) -> str:
    """ "Measured slower than without speculation (189.2 tok/s) at batch 4: num_steps=4 (0.92x, run #7)." naming every
    measured run of the sweep slower than its baseline beyond run-to-run noise (``TIE_TOLERANCE``); "" where none
    was. The speedup page and the plan's "Also swept" line say it alike (walk AB: the plan named batch 4's best, #6,
    and never that #7 lost there)."""
    base = model.baseline_tok_s
    if not base:
        return ""
    losing = sorted((p for p in model.measured if p.tok_s < base * (1 - TIE_TOLERANCE)), key=lambda p: p.num_steps)
    if not losing:
        return ""
    return (
        f"Measured slower than without speculation ({base:,.1f} tok/s) at batch {model.concurrency}: "
        + ", ".join(
            f"num_steps={p.num_steps} ({p.tok_s / base:.2f}x"
            + (f", run #{p.run_id})" if p.run_id is not None else ")")
            for p in losing
        )
        + "."
    )


def optimum(
    model: SpeedupModel,
    steps: Iterable[int] = STEPS,
    frame: pd.DataFrame | None = None,
    *,
    its_runs: bool = True,
) -> Optimum:
    """The num_steps to name (``pick_steps``: the smallest within noise of the fastest), and which tie with it.

    Picked on ``pick_tok_s``: the measured tok/s at a num_steps the sweep measured, the prediction elsewhere; the
    sentence says which the best is ("measured in run #15" or "Predicted best"), and where the model misses a
    measurement by more than ``MODEL_GAP_TOLERANCE`` (``model_gaps``). ``its_runs`` False: ``frame`` predicts
    another draft than the one the model's runs measured (the Draft cost tab's other columns), so nothing is said
    of those runs against it (walk AX: a Kimi-K2 draft's slower prediction read as "the model underestimates this
    group", from the user's Llama draft's run)."""
    df = predict_frame(model, steps) if frame is None else frame
    col = "pick_tok_s" if "pick_tok_s" in df.columns else "tok_s"
    by_k = {int(k): float(v) for k, v in zip(df["num_steps"], df[col], strict=False)}
    model_by_k = {int(k): float(v) for k, v in zip(df["num_steps"], df["tok_s"], strict=False)}
    # the runs each measured num_steps was read from (none: the row is a prediction)
    runs_at: dict[int, tuple[int, ...]] = {}
    if "tok_s_source" in df.columns:
        for kk, src, ids in zip(df["num_steps"], df["tok_s_source"], df["measured_runs"], strict=False):
            if src == "measured":
                runs_at[int(kk)] = tuple(ids)

    def how(t: int) -> str:
        return f"measured in {runs_text(runs_at[t])}" if t in runs_at else "predicted"

    k, tied = pick_steps(by_k, model_by_k, runs_at)
    best = df[df["num_steps"] == k].iloc[0]
    best_tok = by_k[k]

    def rel(a: int, b: int) -> float:  # a's tok/s as a share of b's, as ``pick_steps`` weighs them
        return weigh(a, b, by_k, model_by_k, runs_at)

    def on_model(a: int, b: int) -> bool:
        return on_the_model(a, b, by_k, model_by_k, runs_at)

    def basis(a: int, b: int) -> int | None:
        return model_basis(a, b, by_k, model_by_k, runs_at)

    inside = within_fit_error(by_k, model_by_k, runs_at)  # ahead of the measured best, but not beyond the fit's error
    second_k = max((j for j in by_k if j != k and j not in inside), key=lambda j: (rel(j, k), -j), default=None)
    if second_k is not None and second_k not in runs_at:
        # a prediction that only ties a measured num_steps is not named over it, for the next best as for the best
        # (walk BZ 2: 4 predicted at 1,469.6 tok/s named over 3 measured at 1,467.1, 0.17% apart)
        ties = [j for j in runs_at if j not in (k, *inside) and rel(j, k) >= rel(second_k, k) * (1 - TIE_TOLERANCE)]
        second_k = max(ties, key=lambda j: (rel(j, k), -j), default=second_k)
    top_model = max(model_by_k.values())
    gaps = model_gaps(model, model_by_k) if runs_at else []
    base = ""
    if model.baseline_tok_s:
        run = f", run #{model.baseline_run_id}" if model.baseline_run_id is not None else ""
        others = "; ".join(
            f"run #{i} at {t:.1f} tok/s gives {(best_tok / t - 1) * 100:+.1f}%" for i, t in model.other_baselines
        )
        base = (
            f" ({(best_tok / model.baseline_tok_s - 1) * 100:+.1f}% against {model.baseline_tok_s:.1f} tok/s "
            f"without speculation{run}"
            + (
                f"; the group's other comparable baseline{'s' if len(model.other_baselines) > 1 else ''}: {others}"
                if others
                else ""
            )
            + ")"
        )
    share = f"verification {best['verify_share'] * 100:.0f}% of each cycle"
    lost = all_lost(model) if runs_at else []  # the model's own sweep (not another acceptance's what-if)
    recommendation = None
    if lost:
        assert model.baseline_tok_s is not None
        base_tok, c = model.baseline_tok_s, model.concurrency
        swept_k = sorted({p.num_steps for p in model.measured})
        fewer = [j for j in range(1, swept_k[0])]
        to_measure = k if k not in runs_at else (fewer[0] if fewer else None)
        recommendation = f"serve without speculation at batch {c}"
        brun = f" (run #{model.baseline_run_id})" if model.baseline_run_id is not None else ""
        parts = [
            "Every measured num_steps was slower than the baseline ("
            + ", ".join(f"{p.num_steps}: {p.tok_s / base_tok:.2f}x" for p in lost)
            + ").",
            f"At batch {c}, against {base_tok:,.1f} tok/s without speculation{brun}: "
            + ", ".join(
                f"num_steps={p.num_steps}"
                + (f" in run #{p.run_id}" if p.run_id is not None else "")
                + f" at {p.tok_s:,.1f} tok/s ({p.tok_s / base_tok:.2f}x)"
                for p in lost
            )
            + f". {_sentence_of(recommendation).rstrip('.')}"
            + (
                f", or measure num_steps={to_measure} at batch {c} before trusting a prediction"
                if to_measure is not None and k not in runs_at
                else f", or measure num_steps={to_measure} at batch {c} (fewer draft steps cost less a cycle) before "
                "ruling speculation out there"
                if to_measure is not None
                else ""
            )
            + ".",
        ]
        if k in runs_at:
            parts.append(
                f"Best measured: num_steps={k} at {best_tok:.1f} tok/s{base}, {how(k)}; the model predicts "
                f"{model_by_k[k]:.1f} tok/s there, {share}."
            )
        else:
            fitted = ", ".join(f"#{i}" for i in sorted({p.run_id for p in model.measured if p.run_id is not None}))
            reach = "extrapolated" if not swept_k[0] < k < swept_k[-1] else "interpolated"
            e = model.elsewhere_accept(k)
            acc = f"{float(best['accept_length']):.2f} " + (e.words if e is not None else "predicted")
            parts.append(
                f"Predicted, not measured, and not the recommendation: num_steps={k} at {best_tok:.1f} tok/s{base}, "
                f"from the model fitted to runs {fitted} (num_steps {', '.join(map(str, swept_k))}; {reach} to "
                f"num_steps {k}), acceptance {acc}, {share}."
            )
    elif k in runs_at:
        parts = [
            f"Best: num_steps={k} at {best_tok:.1f} tok/s{base}, {how(k)}; the model predicts "
            f"{model_by_k[k]:.1f} tok/s there, {share}."
        ]
    else:
        said = ""
        if runs_at:  # what the prediction stands on, and that this num_steps was not among it
            fitted = ", ".join(f"#{i}" for i in sorted({p.run_id for p in model.measured if p.run_id is not None}))
            swept = ", ".join(map(str, sorted(runs_at)))
            said = f": not measured (the sweep measured num_steps {swept}), from the model fitted to runs {fitted}"
        parts = [f"Predicted best: num_steps={k} at {best_tok:.1f} tok/s{base}{said}, {share}."]
    if tied:
        # each said as the rule measures it, below the fastest (walk AA: 541.5 named beside 552.4, "2.0% higher",
        # read as the 2% threshold itself; 541.5 is 1.97% below 552.4), with the decimals that keep it under 2%
        top_k = fastest_steps(by_k, model_by_k, runs_at)
        mixed = {t for t in (k, *tied) if t != top_k and on_model(t, top_k)}  # weighed on the model's predictions

        # a measured best with predictions above it (within noise, or the fit's error) is not "the fastest"
        ref = f"the measured {by_k[top_k]:.1f}" if any(rel(j, top_k) > 1 for j in by_k) else "the fastest"

        def below(t: int) -> str:
            if rel(t, top_k) > 1:  # a prediction within noise above a measured best (walk AN: not "-1.4% below")
                return f"{percent_beside(rel(t, top_k) - 1, TIE_TOLERANCE)}% above {ref}"
            return f"{percent_beside(1 - rel(t, top_k), TIE_TOLERANCE)}% below {ref}"

        def against(t: int, again: bool) -> str:
            """walk AH3: "0.3% above the model's 356.6 tok/s at num_steps=4" (then "0.9% below it")."""
            d = rel(t, top_k) - 1
            side = f"{percent_beside(abs(d), TIE_TOLERANCE)}% {'above' if d > 0 else 'below'}"
            theirs = f"{model_by_k[top_k]:.1f} tok/s at num_steps={top_k}"
            j = basis(t, top_k)
            if j is not None and j not in (t, top_k):  # walk BL: through a measured num_steps within noise of it
                through.append(j)
                via = f"the model's {model_by_k[j]:.1f} tok/s at num_steps={j}, {by_k[j]:.1f} {how(j)}"
                if t in runs_at:
                    return f"{side} the model's {theirs}, through {via}"
                return (
                    f"{side} it (through num_steps={j})"
                    if again
                    else f"{side} the measured {by_k[top_k]:.1f}, through {via}"
                )
            if t in runs_at:  # a measured num_steps against a predicted fastest: the model's prediction at both
                return f"the model's {model_by_k[t]:.1f} there {side} its {theirs}"
            return f"{side} it" if again else f"{side} the model's {theirs}"

        said_against: list[int] = []
        through: list[int] = []  # the measured num_steps a prediction was weighed through (``model_basis``)

        def gap(t: int) -> str:
            said = f" {how(t)}" if runs_at else ""
            if t == top_k:
                return f"{by_k[t]:.1f} tok/s{said}, the fastest"
            if t not in mixed:
                return f"{by_k[t]:.1f} tok/s{said}, {below(t)}"
            said_against.append(t)
            return f"{by_k[t]:.1f} tok/s{said}, {against(t, len(said_against) > 1)}"

        names = (
            " and ".join(f"num_steps={t}" for t in tied)
            if len(tied) <= 2
            else f"num_steps {', '.join(map(str, tied))}"
        )
        gaps_said = "; ".join(gap(t) for t in tied)
        named_gap = "" if top_k == k else f"; num_steps={k} is {below(k)}"
        if top_k != k and k in mixed:
            named_gap = f"; num_steps={k} {how(k)}, {against(k, False)}"
        rule = f"within {TIE_TOLERANCE:.0%} of the fastest the smallest num_steps is named"
        if k in runs_at and (fewer := [t for t in tied if t < k and t not in runs_at]):
            rule = (
                f"within {TIE_TOLERANCE:.0%} of the fastest the smallest measured num_steps is named: a prediction "
                f"that only ties a measurement is not named over it (measure num_steps={fewer[0]} to settle it)"
            )
        if mixed:
            rule = (
                "a prediction gains on a measured num_steps only as far as it gains on the model's own prediction "
                f"there{' (or at a measured num_steps within noise of it)' if through else ''}, and {rule}"
            )
        parts.append(f"{names} {'ties' if len(tied) == 1 else 'tie'} within noise ({gaps_said}{named_gap}): {rule}.")
    elif second_k is not None:
        lower = percent_beside(1 - rel(second_k, k), TIE_TOLERANCE)  # past 2%: never reads as 2.0
        said = f" {how(second_k)}" if runs_at else ""
        on = f" on the model's predictions at both, {model_by_k[second_k]:.1f} against {model_by_k[k]:.1f}"
        if (j := basis(second_k, k)) is not None and j not in (second_k, k):  # walk BL: within noise of the measured
            on = (
                f" on the model's predictions, {model_by_k[second_k]:.1f} against its {model_by_k[j]:.1f} at "
                f"num_steps={j}, {by_k[j]:.1f} {how(j)}"
            )
        parts.append(
            f"Next best num_steps={second_k} at {by_k[second_k]:.1f} tok/s{said} ({lower}% lower"
            f"{on if on_model(second_k, k) else ''})."
        )
    if runs_at and not lost and (losing := losing_words(model)):  # some lost beyond noise: said, not left to a column
        parts.append(losing)
    if inside:  # walk AN: a prediction ahead of the measured best by less than the model's own miss is not named
        err = fit_error(by_k, model_by_k, runs_at)
        ahead = max(inside, key=lambda j: (rel(j, k), -j))
        where = (
            f"beyond {max(runs_at)}" if min(inside) > max(runs_at) else f"at num_steps {', '.join(map(str, inside))}"
        )
        parts.append(
            f"Measured best num_steps {k} ({runs_text(runs_at[k])}); predictions {where} do not beat it within the "
            f"fit's error: the most, {by_k[ahead]:.1f} tok/s predicted at num_steps={ahead}, is "
            f"{(rel(ahead, k) - 1) * 100:.1f}% above it, where the model misses the measurements by up to "
            f"{err * 100:.1f}%."
        )
    if (clause := model_gaps_clause(gaps)) is not None:
        if k in runs_at:
            tail = "; the best is picked on the measurements there"
        else:  # a predicted best is not picked on measurements (walk AN)
            tail = f"; measured num_steps are weighed on their measurements, and the best, num_steps={k}, is predicted"
        parts.append(_sentence_of(clause + tail))
    if model.baseline_tok_s and best_tok <= model.baseline_tok_s * (1 + TIE_TOLERANCE):
        parts.append(
            "That is within run-to-run noise of the baseline, or below it: speculation is not predicted to pay "
            "at any num_steps here."
        )
        slower = sorted((p for p in model.measured if p.tok_s < model.baseline_tok_s), key=lambda p: p.num_steps)
        if its_runs and slower and len(slower) == len(model.measured) and not lost:  # ``lost``: said first
            parts.append(
                "Every measured num_steps was slower than the baseline ("
                + ", ".join(f"{p.num_steps}: {p.tok_s / model.baseline_tok_s:.2f}x" for p in slower)
                + ")."
            )
    if its_runs:
        parts += [_sentence_of(n) for n in falling_measurements(model.measured)]
    # a run faster than every prediction by more than run-to-run noise: 636.2 against 625.2 tok/s (1.7%) warned
    faster = [p for p in model.measured if p.tok_s > top_model * (1 + TIE_TOLERANCE)] if its_runs else []
    if faster:
        fastest = max(faster, key=lambda p: p.tok_s)
        parts.append(
            f"Measured faster than this prediction: {fastest.tok_s:.1f} tok/s at num_steps={fastest.num_steps}"
            + (f" (run #{fastest.run_id})" if fastest.run_id is not None else "")
            + f", more than {TIE_TOLERANCE:.0%} above the fastest prediction ({top_model:.1f} tok/s). The model "
            "underestimates this group; trust the measurement, and check that every run of the sweep used the "
            "same server and settings."
        )
    return Optimum(
        num_steps=k,
        tok_s=best_tok,
        speedup=best_tok / model.baseline_tok_s if model.baseline_tok_s else None,
        verify_share=float(best["verify_share"]),
        runner_up=second_k,
        runner_up_tok_s=by_k[second_k] if second_k is not None else None,
        tie=bool(tied),
        sentence=" ".join(parts),
        measured_faster=max(p.tok_s for p in faster) if faster else None,
        ties=tied,
        source="measured" if k in runs_at else "predicted",
        run_ids=runs_at.get(k, ()),
        predicted_tok_s=model_by_k[k],
        model_gaps=tuple(gaps),
        lost=tuple((p.num_steps, p.run_id, p.tok_s / model.baseline_tok_s) for p in lost if model.baseline_tok_s),
        recommendation=recommendation,
    )


def what_if(
    model: SpeedupModel,
    accept_length: float,
    *,
    at_steps: int | None = None,
    steps: Iterable[int] = STEPS,
    label: str | None = None,
) -> pd.DataFrame:
    """Current and improved predictions, the improved draft reaching ``accept_length`` at ``at_steps``.

    ``at_steps`` defaults to the measured num_steps; pass 3 for an acceptance quoted at (3,1,4). The
    improvement is carried as a new geometric per-position acceptance; the cycle costs stay (a
    better-trained draft of the same shape costs the same to run).
    """
    import pandas as pd

    if at_steps is None:
        if not model.measured:
            raise DataError("the model has no measured point to anchor the improved acceptance")
        at_steps = model.measured[0].num_steps
    new_alpha = min(alpha_for(accept_length, at_steps), 0.99)
    label = label or f"acceptance {accept_length:.2f} at {at_steps} steps"
    return pd.concat(
        [predict_frame(model, steps), predict_frame(model, steps, scenario=label, alpha=new_alpha)], ignore_index=True
    )


# ---------------------------------------------------------------------------------------------
# A measured draft step (``draftcost``) in place of the fitted one


def with_draft_step(model: SpeedupModel, draft_step_ms: float, *, source: str = "measured") -> SpeedupModel:
    """The model with its drafting cost per step replaced by a measured one.

    ``t_step = t_draft + (the target's cost of checking one more token)``: the checking part stays as
    fitted, the drafting part becomes ``draft_step_ms`` (the wall time of one draft step for the
    whole batch, i.e. ``draft-cost`` at batch = the sweep's concurrency). The fixed cost per cycle
    (target forward, and the draft's first forward through fc) stays as fitted.
    """
    if not (isinstance(draft_step_ms, (int, float)) and math.isfinite(draft_step_ms) and draft_step_ms >= 0):
        raise InputError(f"a draft step time must be a non-negative number of ms, got {draft_step_ms!r}")
    checking = max(model.t_step_ms - model.t_draft_ms, 0.0)
    note = (
        f"draft step {draft_step_ms:.3f} ms ({source}) replaces the {model.method} {model.t_draft_ms:.3f} ms; "
        f"checking one more token stays {checking:.3f} ms"
    )
    return SpeedupModel(
        **{
            **model.__dict__,
            "t_step_ms": checking + float(draft_step_ms),
            "t_draft_ms": float(draft_step_ms),
            "floor_step_ms": model.floor_step_ms + float(draft_step_ms) - model.t_draft_ms,
            "notes": model.notes + (note,),
        }
    )


@dataclass(frozen=True)
class DraftCandidate:
    """A draft to put side by side: its measured step time, and its acceptance when known."""

    label: str
    step_ms: float
    accept_length: float | None = None  # None: the model's (measured) acceptance
    at_steps: int | None = None  # num_steps at which accept_length is quoted (default: the measured one)


def compare_drafts(
    model: SpeedupModel, candidates: Sequence[DraftCandidate], *, steps: Iterable[int] = STEPS
) -> pd.DataFrame:
    """Predicted tok/s per num_steps for each candidate draft, side by side (``scenario`` = label).

    Each candidate keeps the model's verify costs and gets its own drafting cost per step; its
    acceptance is the model's unless it carries one. Extra columns: ``draft_step_ms`` and, against
    the first candidate, ``accept_to_match``: the acceptance length this candidate needs at that
    num_steps to equal the first one's throughput (it costs more or less per cycle).
    """

    if not candidates:
        raise InputError("give at least one draft to predict")
    labels = [c.label for c in candidates]
    if len(set(labels)) != len(labels):
        raise InputError(f"draft labels must differ, got {labels}")
    steps = list(steps)
    frames = []
    for c in candidates:
        m = with_draft_step(model, c.step_ms, source=c.label)
        alpha = None
        if c.accept_length is not None:
            at = c.at_steps or (model.measured[0].num_steps if model.measured else None)
            if at is None:
                raise DataError(f"{c.label}: say at which num_steps its acceptance {c.accept_length:g} was measured")
            alpha = min(alpha_for(c.accept_length, at), 0.99)
        f = predict_frame(m, steps, scenario=c.label, alpha=alpha, measured=False)
        f["draft_step_ms"] = float(c.step_ms)
        frames.append(f)
    return side_by_side_frame(frames)


def side_by_side_frame(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Candidates' prediction frames as one, each with ``accept_to_match``: the acceptance length it needs at each
    num_steps to equal the first's throughput (the first's acceptance x this cycle / the first's cycle)."""
    import pandas as pd

    first = frames[0].set_index("num_steps")
    for f in frames:
        f["accept_to_match"] = [
            float(first.at[k, "accept_length"] * cyc / first.at[k, "cycle_ms"])
            for k, cyc in zip(f["num_steps"], f["cycle_ms"], strict=False)
        ]
    return pd.concat(frames, ignore_index=True)


# ---------------------------------------------------------------------------------------------
# From the store


_RANGE = re.compile(r"(\d+)\s*(?:\.\.|-|to)\s*(\d+)")


def _sweep_range(notes: Mapping[str, Any]) -> tuple[int, int] | None:
    text = str(notes.get("sweep") or "")
    m = _RANGE.search(text)
    if not m or "best" not in text.lower():
        return None
    return int(m.group(1)), int(m.group(2))


def _concurrency(run: Any) -> int | None:
    return integer(run_param(run, "concurrency"))


# Benchmark parameters that change throughput on their own: a speedup across different values of
# these measures the parameter, not the draft. The number of requests asked for is one (walk W): at one concurrency a
# short run's ramp-up and ramp-down waves weigh more, and it sends fewer of the prompts, so 12 requests against 48
# at concurrency 8 gave a "1.28x speedup" between two baselines of one configuration.
RUN_PARAMS_THAT_MATTER = ("concurrency", "max_tokens", "temperature", "prompt_set", "ignore_eos", "requests")
# Server arguments (as the server reports them, SGLang's get_server_info / server_args names, vLLM's
# engine args) that change the target's own speed.
SERVER_ARGS_THAT_MATTER = (
    "tp_size",
    "dp_size",
    "ep_size",
    "pp_size",
    "tensor_parallel_size",
    "pipeline_parallel_size",
    "data_parallel_size",
    "dtype",
    "quantization",
    "kv_cache_dtype",
    "attention_backend",
    "max_running_requests",
    "cuda_graph_max_bs",
    "enable_dp_attention",
    "chunked_prefill_size",
)


def _norm(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        return value.strip()
    return value


def _differs(a: Any, b: Any) -> bool:
    """Both known and not equal (an unrecorded value on one side is not evidence of a difference)."""
    if a is None or b is None or a == "" or b == "":
        return False
    return _norm(a) != _norm(b)


def _other_model(a: Any, b: Any) -> bool:
    """Two recorded model names that differ as text: another model unless ``draft.model_match`` says "same"
    (``/models/Qwen3-8B`` against ``Qwen/Qwen3-8B``); where it is unsure, the names still count as different."""
    from comparelib.models.draft import model_match  # the Hub client with it: only for names that differ

    return model_match(str(a), str(b)) != "same"


def settings_mismatch(run: Any, other: Any, *, model_required: bool = True) -> list[str]:
    """Why two runs were not measured under the same conditions; empty when they were.

    Same target model, engine, benchmark parameters (concurrency, max_tokens, temperature, prompts), server
    arguments and environment, where both runs recorded them: everything else changes throughput by itself.
    With ``model_required`` an unrecorded model counts against the pair (a speedup claims the same model).
    """
    reasons: list[str] = []
    m_run, m_other = getattr(run, "model", None), getattr(other, "model", None)
    if model_required and (not m_run or not m_other):
        missing = [f"#{r.id}" for r, m in ((run, m_run), (other, m_other)) if not m]
        reasons.append(
            f"the target model of run {' and '.join(missing)} is not recorded, so it cannot be shown "
            "to be the same model"
        )
    elif _differs(m_run, m_other) and _other_model(m_run, m_other):
        reasons.append(f"different target model: {m_run} against {m_other}")
    e_run, e_other = getattr(run, "engine", None), getattr(other, "engine", None)
    if _differs(e_run, e_other):
        reasons.append(f"different engine: {e_run} against {e_other}")
    for key in RUN_PARAMS_THAT_MATTER:
        a, b = run_param(run, key), run_param(other, key)
        if _differs(a, b):
            name = "number of requests" if key == "requests" else key
            reasons.append(f"different {name}: {a} against {b}")
    raw_run = (getattr(run, "server_config", None) or {}).get("raw") or {}
    raw_other = (getattr(other, "server_config", None) or {}).get("raw") or {}
    if isinstance(raw_run, Mapping) and isinstance(raw_other, Mapping):
        for key in SERVER_ARGS_THAT_MATTER:
            if _differs(raw_run.get(key), raw_other.get(key)):
                reasons.append(f"different server setting {key}: {raw_run.get(key)} against {raw_other.get(key)}")
    env_run = (getattr(run, "notes", None) or {}).get("environment")
    env_other = (getattr(other, "notes", None) or {}).get("environment")
    if _differs(env_run, env_other):
        reasons.append("different server environment (e.g. NCCL variables) recorded for the two runs")
    return reasons


def baseline_mismatch(run: Any, baseline: Any) -> list[str]:
    """Why ``baseline`` is not a fair baseline for ``run``; empty when it is.

    A speedup is only meaningful against a run without speculation of the same target model, measured under
    the same conditions (``settings_mismatch``). The model must be known on both sides: an unknown model
    cannot be shown to be the same.
    """
    if run is baseline or getattr(run, "id", None) == getattr(baseline, "id", object()):
        return []
    reasons: list[str] = []
    if not getattr(baseline, "is_baseline", False):
        reasons.append(f"run #{baseline.id} uses speculation ({baseline.speculative_algorithm}), so it is no baseline")
    return reasons + settings_mismatch(run, baseline)


def sweep_mismatch(run: Any, other: Any) -> list[str]:
    """Why two speculative runs do not belong to one num_steps sweep: conditions, or the drafting itself
    (algorithm, draft model, topk) differ. A fit over such runs measures the difference, not num_steps."""
    reasons = settings_mismatch(run, other, model_required=False) + _algorithm_mismatch(run, other)
    # an MTP draft is the target's own layers: the algorithm says it, the path may be unrecorded
    if not (registry.is_mtp(run) or registry.is_mtp(other)):
        d_a, d_b = _draft_name(run), _draft_name(other)
        if d_a is not None and d_b is not None and not _same_draft(d_a, d_b):
            reasons.append(f"different draft model: {d_a} against {d_b}")
    k_a, k_b = (None if v == "unknown" else v for v in (getattr(run, "topk", None), getattr(other, "topk", None)))
    if _differs(k_a, k_b):
        reasons.append(f"different topk: {k_a} against {k_b}")
    a, b = _tree_tokens(run), _tree_tokens(other)
    if a is not None and b is not None and a != b:
        reasons.append(f"different num_draft_tokens of a tree: {a} against {b}")
    return reasons + unrecorded_conditions(run, other)


def _algorithm_mismatch(run: Any, other: Any) -> list[str]:
    """["different algorithm: ..."] where both runs state an algorithm and they are not one under its aliases (SGLang
    NEXTN = EAGLE with the target as draft, vLLM deepseek_mtp = mtp); else []."""
    algo_a, algo_b = (
        None if k == "unknown" else k for k in (registry.algorithm_key(run), registry.algorithm_key(other))
    )
    if not _differs(algo_a, algo_b):
        return []
    return [
        f"different algorithm: {registry.algorithm_label(run) or algo_a} against "
        f"{registry.algorithm_label(other) or algo_b}"
    ]


def measured_otherwise(run: Any, other: Any) -> tuple[list[str], list[str]]:
    """Why ``run`` was not measured like ``other``, as (recorded differences, conditions one of them did not record);
    both empty when it was. The sweep's conditions (``settings_mismatch``: batch, prompts, max_tokens, requests,
    temperature, server settings, environment; ``unrecorded_conditions``) and the algorithm, plus the tool that
    measured them (``run_source``): two clients time tokens differently, and each speedup is against a baseline of
    its own tool. What drafts (num_steps, topk, draft tokens) is not compared: this is what lets a tree be set
    against a chain (``chains_and_trees``)."""
    recorded = settings_mismatch(run, other, model_required=False) + _algorithm_mismatch(run, other)
    if run_source(run) != run_source(other):
        recorded.append(f"measured by {run_source(run)} against {run_source(other)}")
    return recorded, unrecorded_conditions(run, other)


def _draft_name(run: Any) -> str | None:
    """The draft a run recorded, as recorded; None where it recorded none."""
    name = str(getattr(run, "draft_model", None) or "").strip()
    return None if name in ("", "unknown") else name


def _same_draft(a: str, b: str) -> bool:
    """One draft under two names: the rule Overview pairs your draft's runs by (``draft.draft_match``: the same repo
    id, or the same folder name where either is a local folder; case and an @revision aside). Compared as text,
    walk P's run #17, served from /data/drafts/r1d-llama8b-eagle3, was left out of the sweep of
    labx/r1d-llama8b-eagle3 that Overview paired it with."""
    from comparelib.models.draft import draft_match

    return draft_match(a, b)


def _own_draft_key(name: str) -> str:
    """A draft name's key without other names to match: its repo id, else its folder name (lower case, revision
    aside); two names with one key are one draft (``_same_draft``)."""
    from comparelib.models.draft import _draft_parts

    repo, last = _draft_parts(name)
    return repo or last


def _draft_keys(runs: Iterable[Any]) -> dict[str, str]:
    """Each draft name the runs recorded, to one key per draft: a Hub repo id's (case and revision aside), which a
    local folder of its name joins (the first such repo id in sorted order where two repos share the name), else
    the folder name's. Every two names with one key are the same draft (``_same_draft``), so a sweep signature
    keyed on it (``_sweep_signature``) never joins what ``sweep_mismatch`` holds apart; without these keys a run
    served from a folder of the draft drew its own line beside the Hub id's."""
    from comparelib.models.draft import _draft_parts

    names = {n for r in runs if not registry.is_mtp(r) and (n := _draft_name(r)) is not None}
    parts = {n: _draft_parts(n) for n in names}
    repos = sorted({repo for repo, _ in parts.values() if repo})
    out: dict[str, str] = {}
    for n, (repo, last) in parts.items():
        out[n] = repo or next((r for r in repos if r.rsplit("/", 1)[-1] == last), last)
    return out


def is_imported(run: Any) -> bool:
    """Whether ``run`` was imported from another tool's result file (``importers``), not measured by this app."""
    return getattr(run, "kind", None) == "imported"


def imported_from(run: Any) -> str | None:
    """The file an imported run came from, by its name ("v2_k5.json"); None for a run this app measured."""
    if not is_imported(run):
        return None
    source = (getattr(run, "params", None) or {}).get("source_file") or (getattr(run, "notes", None) or {}).get(
        "imported_from"
    )
    return re.split(r"[/\\]", str(source).rstrip("/\\"))[-1] if source else "another tool's result file"


def run_ref(run: Any) -> str:
    """A run as a number is quoted with it: "#19 (imported)" for a run imported from another tool, else "#19"."""
    return f"#{run.id} (imported)" if is_imported(run) else f"#{run.id}"


def _conditions(run: Any) -> dict[str, Any]:
    """The measurement conditions ``_sweep_signature`` keys a sweep's line on, by the words that name them."""
    raw = (getattr(run, "server_config", None) or {}).get("raw") or {}
    raw = raw if isinstance(raw, Mapping) else {}
    out: dict[str, Any] = {_PARAM_WORDS.get(k, k): run_param(run, k) for k in RUN_PARAMS_THAT_MATTER}
    out.update({f"server setting {k}": raw.get(k) for k in SERVER_ARGS_THAT_MATTER})
    out["server environment"] = (getattr(run, "notes", None) or {}).get("environment")
    return {k: None if v == "" else v for k, v in out.items()}


def unrecorded_conditions(run: Any, other: Any) -> list[str]:
    """Why two runs are not one num_steps sweep although no recorded value differs: a condition one recorded and
    the other did not (the prompt set `vllm bench serve` never saves). Empty when both recorded the same ones.

    The sweep chart draws such runs as two settings (``sweep_series`` keys its lines on ``_sweep_signature``), and
    the fit now reads them the same way: a `vllm bench serve` run of unknown prompts was fitted into the app's
    sweep on its bundled prompts, and its per-position rates stood for the sweep's acceptance. A speedup pair still
    allows them, and says what was not recorded (``unrecorded_settings``)."""
    mine, theirs = _conditions(run), _conditions(other)
    reasons = []
    for who, known, have, lack in ((run, other, theirs, mine), (other, run, mine, theirs)):
        missing = [(k, have[k]) for k in have if have[k] is not None and lack[k] is None]
        if not missing:
            continue
        names = [k for k, _ in missing]
        words = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        verb = "is" if len(names) == 1 else "are"
        values = ", ".join(f"{k} {_norm(v)}" for k, v in missing if not k.startswith("server environment"))
        said = (
            f" (run #{known.id}: {values})"
            if values
            else f" (run #{known.id} recorded {'it' if verb == 'is' else 'them'})"
        )
        if is_imported(who):
            lead = "" if who is run else f"run #{who.id} "
            reasons.append(f"{lead}imported from {imported_from(who)}; its {words} {verb} not recorded{said}")
        else:
            reasons.append(f"{words} not recorded for run #{who.id}{said}")
    return reasons


def _tree_tokens(run: Any) -> int | None:
    """A tree's verified-token budget (SGLang's num_draft_tokens, its own knob once topk > 1: acceptance
    depends on it at a given num_steps); None for a chain, where it follows num_steps."""
    try:
        topk, ndt = int(getattr(run, "topk", None) or 0), int(getattr(run, "num_draft_tokens", None) or 0)
    except (TypeError, ValueError):
        return None
    return ndt if topk > 1 and ndt > 0 else None


def speedup_against(run: Any, baseline: Any) -> tuple[float | None, str | None]:
    """(output tok/s of ``run`` / ``baseline``, None) for a fair baseline, else (None, why there is none).

    The one speedup of the app: store records (``RunRecord``) or anything with the same attributes; the
    comparison table, the Overview and the CLI all read it, so a refused baseline says why everywhere.
    """
    reasons = baseline_mismatch(run, baseline)
    if reasons:
        return None, "no speedup: " + "; ".join(reasons)
    a, b = getattr(run, "output_tokens_per_s", None), getattr(baseline, "output_tokens_per_s", None)
    if a is None or b is None:
        missing = f"#{run.id}" if a is None else f"#{baseline.id}"
        return None, f"no speedup: run {missing} has no output throughput"
    if b <= 0:
        return None, (
            f"no speedup: baseline run #{baseline.id} has zero output tokens/s; "
            "pick a baseline that completed requests"
        )
    return a / b, None


APP_SOURCE = "this app's benchmark"
# how the parameters a speedup depends on are named when one side of a pair did not record them
_PARAM_WORDS = {"prompt_set": "prompt set", "ignore_eos": "ignore_eos", "requests": "number of requests"}


def run_source(run: Any) -> str:
    """The tool that measured ``run``: an importer's format (``params["format"]``: "vllm bench serve",
    "sglang.bench_serving"), else this app's own benchmark client."""
    fmt = (getattr(run, "params", None) or {}).get("format")
    return str(fmt) if fmt else APP_SOURCE


def unrecorded_settings(run: Any, other: Any) -> str | None:
    """The benchmark parameters one run of a pair recorded and the other did not, said by who did not record
    them; None when none. An unrecorded value is no evidence of a difference (``_differs``), nor of sameness:
    vLLM's saved result has neither its dataset nor its output length, and a vLLM run on its random prompts
    was paired with this app's baseline on the bundled ones without a word."""
    missing: dict[int, tuple[Any, Any, list[tuple[str, Any]]]] = {}
    for key in RUN_PARAMS_THAT_MATTER:
        a, b = run_param(run, key), run_param(other, key)
        if (a is None) == (b is None):
            continue
        who, known, value = (other, run, a) if a is not None else (run, other, b)
        missing.setdefault(id(who), (who, known, []))[2].append((_PARAM_WORDS.get(key, key), value))
    if not missing:
        return None
    parts = []
    for who, known, pairs in missing.values():
        by = f"by {run_source(who)} " if run_source(who) != APP_SOURCE else "for "
        parts.append(
            f"{', '.join(w for w, _ in pairs)} not recorded {by}(run #{who.id}): not shown to match run "
            f"#{known.id}'s ({', '.join(f'{w} {_norm(v)}' for w, v in pairs)})"
        )
    return "; ".join(parts)


def choose_baseline(runs: Sequence[Any], spec_runs: Sequence[Any]) -> Any | None:
    """The baseline run measured under the same conditions as the speculative runs: measured by the same tool
    (``run_source``) as most of them, then with the most shared labels, then the newest.

    Only baselines that pass ``baseline_mismatch`` against every speculative run are considered. The same tool
    comes first because what a tool leaves unrecorded passes that check: a `vllm bench serve` run was paired
    with this app's baseline (1.90x) beside a baseline imported from the same tool (1.88x).
    """
    bases = [r for r in runs if r.is_baseline and r.output_tokens_per_s]
    bases = [b for b in bases if not any(baseline_mismatch(s, b) for s in spec_runs)]
    if not bases:
        return None
    spec_labels: set[str] = set()
    for r in spec_runs:
        spec_labels.update(r.labels or [])
    sources = [run_source(s) for s in spec_runs]
    return max(
        bases,
        key=lambda r: (sources.count(run_source(r)), len(spec_labels & set(r.labels or [])), r.created_at),
    )


def other_baselines(runs: Sequence[Any], run: Any, base: Any) -> str | None:
    """The group's other baselines for ``run``, comparable to it as ``base`` is (``baseline_mismatch`` passes), whose
    tok/s differs from ``base``'s by more than run-to-run noise (``TIE_TOLERANCE``), with the speedup each gives:
    "another baseline, run #4 at 62.6 tok/s, gives 1.84x"; None where there is none. Walk AE: two batch-1 baselines
    measured alike (62.61 and 60.84 tok/s) and the pair named the newer's 1.89x alone, never the other's 1.84x."""
    if run is None or base is None or not getattr(base, "output_tokens_per_s", None):
        return None
    ref = float(base.output_tokens_per_s)
    found = []
    for b in runs:
        if not b.is_baseline or b.id == base.id or not b.output_tokens_per_s:
            continue
        if abs(float(b.output_tokens_per_s) / ref - 1) <= TIE_TOLERANCE:
            continue
        ratio, _ = speedup_against(run, b)
        if ratio is not None:
            found.append((b, ratio))
    if not found:
        return None
    found.sort(key=lambda t: t[0].id)
    if len(found) == 1:
        b, ratio = found[0]
        return f"another baseline, run #{b.id} at {b.output_tokens_per_s:.1f} tok/s, gives {ratio:.2f}x"
    each = [f"{ratio:.2f}x (run #{b.id}, {b.output_tokens_per_s:.1f} tok/s)" for b, ratio in found]
    return f"other baselines give {', '.join(each[:-1])} and {each[-1]}"


@dataclass(frozen=True)
class Pair:
    """A speculative run and the baseline measured under the same conditions, with the speedup they give."""

    spec: Any
    baseline: Any
    speedup: float
    note: str | None = None  # settings one of the two did not record (``unrecorded_settings``)


def best_pair(runs: Sequence[Any], draft: str | None = None) -> Pair | None:
    """The fastest speculative run of ``runs`` that has a comparable baseline, and that baseline; a pair measured
    by one tool (both here, or both imported) before one that mixes an imported run with a run measured here (walk
    R2: a `vllm bench serve` file of 32 prompts beside the app's 6-request baseline was headlined, and the app's own
    pair was not named).

    Every speculative run is tried (not only the newest or the fastest): a group may hold SGLang runs
    with their baseline and a vLLM run without one, and the SGLang pair still answers. With ``draft`` (your
    draft's name) only its own runs are tried (``draft.runs_of_draft``): a DeepSeek-V3 group's MTP run was
    reported as your draft's.
    """
    own = runs
    if draft:
        from comparelib.models.draft import runs_of_draft

        own = runs_of_draft(runs, draft).kept
    spec = sorted(
        (r for r in own if not r.is_baseline and r.output_tokens_per_s),
        key=lambda r: r.output_tokens_per_s,
        reverse=True,
    )
    mixed: Pair | None = None  # the fastest pair of a run imported from another tool and one measured here
    for s in spec:
        base = choose_baseline(runs, [s])
        if base is None:
            continue
        ratio, _ = speedup_against(s, base)
        if ratio is None:
            continue
        if is_imported(s) == is_imported(base):
            return Pair(s, base, ratio, unrecorded_settings(s, base))
        mixed = mixed or Pair(s, base, ratio, unrecorded_settings(s, base))
    return mixed


def tree_words(run: Any) -> str:
    """ "topk 4, 8 draft tokens" for a tree (its draft tokens where recorded), "" for a chain: how every sentence
    names a tree (Chains or trees, Overview's pairs)."""
    if (getattr(run, "topk", None) or 1) <= 1:
        return ""
    ndt = getattr(run, "num_draft_tokens", None)
    return f"topk {run.topk}" + (f", {ndt} draft tokens" if ndt else "")


def shape_words(run: Any) -> str:
    """ "num_steps 4" for a chain, "num_steps 3, topk 4, 8 draft tokens" for a tree."""
    steps = getattr(run, "num_steps", None)
    words = f"num_steps {steps}" if steps is not None else "num_steps not reported"
    tree = tree_words(run)
    return f"{words}, {tree}" if tree else words


def chains_and_trees(runs: Sequence[Any], draft: str | None = None) -> list[str]:
    """Chains or trees, as measured: for each batch size and engine where your draft ran both, the best tree's
    speedup against the best chain's measured like it, each against its own comparable baseline.

    Walk N asked "chains or trees?": the speed model fits chains only (a tree is "left out of the fit: different
    topk"), and no page set the tree measured at 1.88x beside the best chain at 1.86x, nor said that at batch 32
    the trees lost. Walk X's tree (this app, bundled prompts, max_tokens 256) was set against a chain imported from
    SGLang bench_serving on random prompts at max_tokens 96 (2.36x against its own baseline: "the tree is 11%
    faster") that the same ``speedup`` output left out of the fit for those reasons; the chain measured like the tree
    gave 2.21x (18%). The chain now is one measured like the tree (``measured_otherwise``: the sweep's conditions and
    the same tool); a faster chain measured otherwise is named apart, "not comparable", with why. Where the group's
    trees were measured in several such settings, each that has a chain measured like it gets its own line."""
    own = runs
    if draft:
        from comparelib.models.draft import runs_of_draft

        own = runs_of_draft(runs, draft).kept
    # per draft too: without ``draft`` a group of two drafts set one draft's tree against the other's chain. One
    # draft by the one-draft rule (``_draft_keys``: a local folder of a Hub draft's name is that draft), not by the
    # name as recorded: walk Q's tree served from /data/drafts/scout-eagle3-a was never set beside the chains of
    # labx/scout-eagle3-a
    keys = _draft_keys(own)
    names: dict[str, str] = {}  # a draft's key -> its name as said: a Hub id where one of its runs recorded it
    found: dict[tuple[int | None, str | None, str], dict[str, list[tuple[float, Any, Any]]]] = {}
    for r in own:
        if r.is_baseline or not r.output_tokens_per_s or not r.num_steps or registry.is_mtp(r):
            continue
        base = choose_baseline(runs, [r])
        ratio = speedup_against(r, base)[0] if base is not None else None
        if ratio is None:
            continue
        kind = "tree" if (getattr(r, "topk", None) or 1) > 1 else "chain"
        recorded = _draft_name(r)
        key = keys.get(recorded, registry.draft_label(r)) if recorded is not None else registry.draft_label(r)
        label = registry.draft_label(r)
        if key not in names or ("/" in label and "/" not in names[key]):
            names[key] = label
        found.setdefault((_concurrency(r), _engine(r), key), {}).setdefault(kind, []).append((ratio, r, base))
    out = []
    several = len({k[2] for k in found}) > 1
    for (batch, engine, key), slot in sorted(
        found.items(), key=lambda kv: (kv[0][0] or 0, kv[0][1] or "", names[kv[0][2]])
    ):
        if "tree" not in slot or "chain" not in slot:
            continue
        where = f"batch {batch if batch is not None else 'not recorded'}, {engine or 'engine not recorded'}"
        where += f", {names[key]}" if several else ""
        out += _tree_lines(where, slot["tree"], slot["chain"])
    return out


def _alike(run: Any, other: Any) -> bool:
    return measured_otherwise(run, other) == ([], [])


def _tree_lines(
    where: str, trees: Sequence[tuple[float, Any, Any]], chains: Sequence[tuple[float, Any, Any]]
) -> list[str]:
    """The lines of one batch, engine and draft (``chains_and_trees``): the best tree against the best chain measured
    like it; a tree measured otherwise than a tree already said, where a chain was measured like it, on a line of
    its own, named by how its setting differs. Largest speedup first; a chain faster than the one a tree is set
    against, measured otherwise, is named apart."""
    trees = sorted(trees, key=lambda t: (-t[0], t[1].id))
    chains = sorted(chains, key=lambda c: (-c[0], c[1].id))
    said: list[Any] = []
    lines = []
    for t, tree, tb in trees:
        if any(_alike(tree, s) for s in said):
            continue  # a faster tree measured like it is said
        alike = [c for c in chains if _alike(c[1], tree)]
        if said and not alike:
            continue  # nothing to set this one against: the best tree's line says the chains measured otherwise
        head = where + (_setting_apart(tree, said[0]) if said else "")
        said.append(tree)
        tree_words = f"best tree ({shape_words(tree)}, run {run_ref(tree)}) {t:.2f}x"
        if not alike:
            lines.append(
                f"{head}: {tree_words} against its baseline ({run_ref(tb)}); no chain measured like it: "
                + _chain_apart(chains[0], tree)
            )
            continue
        c, chain, cb = alike[0]
        if abs(t / c - 1) <= TIE_TOLERANCE:
            verdict = f"within {TIE_TOLERANCE:.0%}: a tie within run-to-run noise"
        elif t > c:
            verdict = f"the tree is {t / c - 1:.0%} faster"
        else:
            verdict = f"the chain is {c / t - 1:.0%} faster"
        line = (
            f"{head}: {tree_words} against the best chain ({shape_words(chain)}, run {run_ref(chain)}) {c:.2f}x, "
            f"each against its baseline ({run_ref(tb)}, {run_ref(cb)}): {verdict}"
        )
        faster = next((o for o in chains if o[0] > c and not _alike(o[1], tree)), None)
        lines.append(line + (f"; {_chain_apart(faster, tree)}" if faster is not None else ""))
    return lines


def _chain_apart(chain: tuple[float, Any, Any], tree: Any) -> str:
    """ "an imported chain on other prompts (num_steps 5, run #14 (imported)) 2.36x against its own baseline
    (#15 (imported)); not comparable: different max_tokens: 96 against 256; ...": a chain measured otherwise than
    ``tree``, with what differs as recorded (what one of them did not record where nothing recorded differs)."""
    ratio, run, base = chain
    who = "an imported chain" if is_imported(run) and not is_imported(tree) else "a chain"
    if run_source(run) != run_source(tree) and who == "a chain":
        who = f"a chain measured by {run_source(run)}"
    mine, theirs = run_param(run, "prompt_set"), run_param(tree, "prompt_set")
    if _differs(mine, theirs):
        who += " on other prompts"
    elif (mine is None) != (theirs is None):
        who += " on prompts not shown to match"
    recorded, unrecorded = measured_otherwise(run, tree)
    return (
        f"{who} ({shape_words(run)}, run {run_ref(run)}) {ratio:.2f}x against its own baseline ({run_ref(base)}); "
        f"not comparable: {'; '.join(recorded or unrecorded)}"
    )


def _setting_apart(run: Any, other: Any) -> str:
    """ ", prompts random, max_tokens 96": how ``run``'s benchmark setting and tool differ from ``other``'s (its
    batch aside: the line says it)."""
    parts = [
        f"{_SETTING_WORDS.get(k, k)} {_norm(run_param(run, k))}"
        for k in RUN_PARAMS_THAT_MATTER
        if k != "concurrency" and run_param(run, k) is not None and run_param(run, k) != run_param(other, k)
    ]
    if run_source(run) != run_source(other):
        parts.append(f"measured by {run_source(run)}")
    return "".join(f", {p}" for p in parts) or ", other settings"


_SETTING_WORDS = {"prompt_set": "prompts", "requests": "requests"}


def _run_text(run: Any) -> str:
    steps = f"num_steps={run.num_steps}" if getattr(run, "num_steps", None) is not None else "num_steps not reported"
    return f"run #{run.id} ({run.engine}, {steps})"


@dataclass(frozen=True)
class Sweep:
    """The speculative runs of a group that one model may be fitted to, their baseline, and who was left out.

    One engine, one draft, one set of benchmark and server settings: runs measured under other conditions
    change throughput by themselves, and a fit across them reads that change as a cost of num_steps.
    """

    runs: tuple[Any, ...]
    baseline: Any | None
    left_out: tuple[str, ...] = ()
    served: Any | None = None  # the run that stands for what is served: the measured pair's, else the fastest
    pool: tuple[Any, ...] = ()  # the runs it was chosen from: the group less those served with another target
    target_note: str | None = None  # runs left out as another target's, or the target models the group mixes


def _speculative(runs: Sequence[Any]) -> list[Any]:
    spec = [
        r
        for r in runs
        if not r.is_baseline and r.status in ("finished", None, "") and r.num_steps and r.output_tokens_per_s
    ]
    return sorted(spec, key=lambda r: (-float(r.output_tokens_per_s), r.id))


def _stated_algorithms(runs: Iterable[Any], drafts: Mapping[str, str]) -> dict[int, str]:
    """The algorithm of each run that states none, by run id, where the other runs of its draft (``drafts``' key)
    state exactly one: a vLLM server never reports its method, a ``vllm bench serve`` import of the same draft may
    have it typed, and the sweep chart drew the draft's k=3 runs as "vllm EAGLE-3 bs=4 chain" beside "vllm bs=1
    chain" (walks R and S). A draft is served with its own method (an EAGLE-3 draft with EAGLE-3)."""
    stated: dict[str, set[str]] = {}
    unstated: list[tuple[int, str]] = []
    for r in runs:
        if getattr(r, "is_baseline", False) or registry.is_mtp(r) or (d := _draft_name(r)) is None:
            continue
        key = drafts.get(d) or _own_draft_key(d)
        algo = registry.algorithm_key(r)
        if algo in (None, "unknown"):
            unstated.append((int(r.id), key))
        else:
            stated.setdefault(key, set()).add(algo)
    return {i: next(iter(stated[k])) for i, k in unstated if len(stated.get(k, ())) == 1}


def _sweep_signature(
    run: Any,
    drafts: Mapping[str, str] | None = None,
    algorithms: Mapping[int, str] | None = None,
    *,
    params: Sequence[str] = RUN_PARAMS_THAT_MATTER,
) -> tuple[str, ...]:
    """What ``sweep_mismatch`` compares, as a key: runs with equal keys always agree, so the sweep is chosen
    over a group's few distinct settings rather than over every pair of its runs (100 runs took 2.4 s). The sweep
    chart draws one line per key (``sweep_series``); a condition one run recorded and another did not splits the
    key, and ``sweep_mismatch`` holds the two apart too (``unrecorded_conditions``), so the fit never joins what
    the chart draws as two settings. The draft is keyed by ``drafts`` (``_draft_keys`` of the runs compared: a
    local folder of a Hub draft's name takes the Hub id's key), else by its own name's (``_own_draft_key``).
    ``params``: the benchmark parameters keyed (the chart's lines leave out the request count: ``SERIES_PARAMS``)."""

    def key(value: Any) -> str:
        value = None if value == "unknown" or value == "" else value
        return repr(_norm(value))

    raw = (getattr(run, "server_config", None) or {}).get("raw") or {}
    raw = raw if isinstance(raw, Mapping) else {}
    return (
        key(getattr(run, "model", None)),
        key(getattr(run, "engine", None)),
        *(key(run_param(run, k)) for k in params),
        *(key(raw.get(k)) for k in SERVER_ARGS_THAT_MATTER),
        key((getattr(run, "notes", None) or {}).get("environment")),
        # aliases of one algorithm are one (``registry.algorithm_key``); one its draft's other runs state stands for
        # an unstated one (``_stated_algorithms``)
        key((algorithms or {}).get(getattr(run, "id", -1)) or registry.algorithm_key(run)),
        key(
            None
            if registry.is_mtp(run) or (d := _draft_name(run)) is None
            else (drafts or {}).get(d) or _own_draft_key(d)
        ),
        key(getattr(run, "topk", None)),
        key(_tree_tokens(run)),
    )


def _classes(spec: Sequence[Any]) -> list[list[Any]]:
    """``spec`` (fastest first) split by ``_sweep_signature``, each class in the order of its fastest run."""
    by: dict[tuple[str, ...], list[Any]] = {}
    drafts = _draft_keys(spec)
    algorithms = _stated_algorithms(spec, drafts)
    for r in spec:
        by.setdefault(_sweep_signature(r, drafts, algorithms), []).append(r)
    return list(by.values())


def _compatible(anchor: list[Any], classes: Sequence[list[Any]]) -> list[Any]:
    """The runs of ``anchor`` and of every class that agrees with all classes already taken (fastest first).

    The same set as taking run by run: runs of one class agree with whatever their class agrees with."""
    taken = [anchor]
    for c in classes:
        if c is not anchor and all(not sweep_mismatch(c[0], t[0]) for t in taken):
            taken.append(c)
    return [r for c in taken for r in c]


def _left_out(spec: Sequence[Any], members: Sequence[Any], baseline: Any | None) -> tuple[str, ...]:
    out = []
    for r in spec:
        if any(r is m for m in members):
            continue
        reasons = next((why for m in members if (why := sweep_mismatch(r, m))), [])
        if not reasons and baseline is not None:
            reasons = baseline_mismatch(r, baseline)
        out.append(f"{_run_text(r)} left out of the fit: {'; '.join(reasons) or 'measured under other conditions'}")
    return tuple(out)


def sweep_of(
    runs: Sequence[Any],
    *,
    baseline_run_id: int | None = None,
    target: str | None = None,
    draft: str | None = None,
) -> Sweep:
    """The runs of a group to fit: the comparable set with a baseline and the most num_steps.

    Candidate sets start from each speculative run. They rank by: has a comparable baseline; measures two or
    more num_steps; holds the pair Overview reports (``best_pair``, your ``draft``'s own when given: a group's
    faster MTP or published-draft sweep was fitted in its place); how many num_steps, then runs; newest.
    A baseline given by id fixes the set to the runs comparable with it. Runs served with another model than
    the draft's ``target`` are left out first and named in ``target_note`` (``draft.runs_for_target``).
    """
    from comparelib.models.draft import runs_for_target  # the Hub client with it: only when a sweep is fitted

    split = runs_for_target(runs, target)
    runs, note = list(split.kept), (split.note if split.target and split.left_out else None)
    spec = _speculative(runs)
    if not spec:
        raise DataError(
            "this run group has no finished speculative run with a throughput; record a sweep first"
            + (f" ({note})" if note else "")
        )
    pair = best_pair(runs, draft)
    if baseline_run_id is not None:
        found = [r for r in runs if r.id == baseline_run_id]
        if not found or not found[0].is_baseline:
            raise InputError(
                f"run {baseline_run_id} is not a baseline run of this group"
                + (f" served with your draft's target ({note})" if note else "")
            )
        base = found[0]
        fair = [r for r in spec if not baseline_mismatch(r, base)]
        if not fair:
            why = sorted({w for r in spec for w in baseline_mismatch(r, base)})
            raise DataError(
                f"no speculative run of this group is comparable with baseline run #{base.id}: {'; '.join(why)}"
            )
        # the best set among those comparable with it, as below: the fastest run's own setting (an imported run of
        # unrecorded prompts) is not the sweep when the app's runs measured more num_steps
        members, _ = _best_set(_classes(fair), runs, pair, base)
        members = sorted(members, key=lambda r: (int(r.num_steps), r.id))
        served = pair.spec if pair is not None and any(pair.spec is m for m in members) else members[0]
        return Sweep(tuple(members), base, _left_out(spec, members, base), served, tuple(runs), split.note)
    members, base = _best_set(_classes(spec), runs, pair)
    members = sorted(members, key=lambda r: (int(r.num_steps), r.id))
    if pair is not None and any(pair.spec is m for m in members):
        served = pair.spec
    else:
        served = max(members, key=lambda r: float(r.output_tokens_per_s))
    return Sweep(tuple(members), base, _left_out(spec, members, base), served, tuple(runs), split.note)


def _best_set(
    classes: Sequence[list[Any]], runs: Sequence[Any], pair: Pair | None, base: Any | None = None
) -> tuple[list[Any], Any | None]:
    """The compatible set of ``classes`` to fit, and its baseline (``base`` when given, else ``choose_baseline``):
    the ranking ``sweep_of`` states, over sets started from each class."""
    best_key: tuple | None = None
    chosen: tuple[list[Any], Any | None] = (classes[0], base)
    seen: set[frozenset[int]] = set()
    for anchor in classes:
        members = _compatible(anchor, classes)
        ids = frozenset(id(m) for m in members)
        if ids in seen:
            continue
        seen.add(ids)
        found = base if base is not None else choose_baseline(runs, members)
        n_steps = len({int(m.num_steps) for m in members})
        key = (
            found is not None,
            min(n_steps, 2),
            pair is not None and any(pair.spec is m for m in members),
            n_steps,
            len(members),
            max(m.id for m in members),
        )
        if best_key is None or key > best_key:
            best_key, chosen = key, (members, found)
    return chosen


def cited_runs(pool: Sequence[Any], draft: str | None = None) -> list[Any]:
    """The fastest chain and the fastest tree under each comparable baseline of ``pool`` (your ``draft``'s runs when
    given), with their baselines: the runs Overview's other pairs, its "chains or trees" and the plan's served chain
    cite. Walk T's 100-run store opened Compare runs on the newest batch-32 runs, without the batch-1 best chain and
    tree that Overview and the plan quoted."""
    own = pool
    if draft:
        from comparelib.models.draft import runs_of_draft

        own = list(runs_of_draft(pool, draft).kept)
    best: dict[tuple[int, bool], Any] = {}
    bases: dict[int, Any] = {}
    for r in own:
        if r.is_baseline or not r.output_tokens_per_s or not r.num_steps:
            continue
        base = choose_baseline(pool, [r])
        if base is None:
            continue
        key = (int(base.id), _tree_tokens(r) is not None or int(getattr(r, "topk", None) or 1) > 1)
        if key not in best or float(r.output_tokens_per_s) > float(best[key].output_tokens_per_s):
            best[key], bases[int(base.id)] = r, base
    return [*best.values(), *bases.values()]


def with_baselines(pool: Sequence[Any], picked: Sequence[Any], draft: str | None = None) -> list[Any]:
    """``picked`` (runs of ``pool``) plus the pair Overview reports (``best_pair``) and the baseline comparable
    with each picked speculative run, in ``pool``'s order: a selection without its baselines (the newest runs
    of a group measured baseline first) would offer a speculative run as the baseline, and every speedup
    would read "no baseline". With ``draft`` (your draft's name) the pair is your draft's, as on Overview, and
    runs of another draft or of the target's own MTP layers are left out of ``picked`` (``draft.runs_of_draft``
    names them): a DeepSeek-V3 group's faster MTP run and its baseline were added as the pair."""
    if draft:
        from comparelib.models.draft import runs_of_draft

        other = {id(r) for r in runs_of_draft(pool, draft).left_out}
        picked = [r for r in picked if id(r) not in other]
    extra: list[Any] = []
    pair = best_pair(pool, draft)
    if pair is not None:
        extra += [pair.spec, pair.baseline]
    extra += cited_runs(pool, draft)
    for run in (r for r in picked if not r.is_baseline):
        base = choose_baseline(pool, [run])
        if base is not None:
            extra.append(base)
    ids = {r.id for r in picked} | {r.id for r in extra}
    return [r for r in pool if r.id in ids]


# what a run may differ from a sweep in and still say what acceptance the sweep's draft reaches at its num_steps:
# acceptance is the draft's, engine's, prompts' and temperature's, not the batch's, request count's or output
# length's (walk AB: num_steps 1 measured 1.49 at batch 4 with 32 requests and at batch 1 with max_tokens 256, and the
# plan ranked batch 1 on the 2.00 its per-position rates predicted). Tok/s is compared under like settings only
ACCEPT_ONLY = ("different concurrency", "different number of requests", "different max_tokens")


def with_accept_elsewhere(model: SpeedupModel, runs: Sequence[Any]) -> SpeedupModel:
    """``model`` with the acceptance that ``runs`` measured at num_steps its sweep did not, by the same draft,
    engine, prompts and temperature as the sweep (``sweep_mismatch`` names only ``ACCEPT_ONLY`` differences: the
    batch size, the number of requests, max_tokens). Of those, a run that differs from the sweep in the batch and
    request count alone comes first, then the batch nearest the sweep's (in ratio; the smaller on a tie), the mean of
    its runs there. It stands in for the model's extrapolation (``accept_at``) and a note says which runs and batch,
    what else differs, and the fit's figure beside it.

    A user's batch-16 sweep measured num_steps 2 and 3 only; the geometric fit to them put 1.75 at num_steps 1, where
    the same draft and server measured 1.69 at batch 1, and predicted a win there from it. Acceptance can vary with
    the batch size, so the value is named as measured at that batch, never as the same."""
    fitted = {p.run_id for p in model.measured if p.run_id is not None}
    anchor = next((r for r in runs if r.id in fitted and not r.is_baseline), None)
    measured_k = {p.num_steps for p in model.measured if p.accept_length is not None}
    if anchor is None:
        return model
    # num_steps -> (max_tokens differs, batch, what differs in words) -> runs
    found: dict[int, dict[tuple[bool, int, tuple[str, ...]], list[Any]]] = {}
    for r in runs:
        if r.is_baseline or not r.num_steps or r.id in fitted or int(r.num_steps) in measured_k:
            continue
        acc = r.accept_length if r.accept_length is not None else r.accept_length_mean
        c = _concurrency(r)
        if acc is None or c is None:
            continue
        why = sweep_mismatch(r, anchor)
        if not why or not all(w.startswith(ACCEPT_ONLY) for w in why):
            continue
        differs = tuple(
            f"{run_param(r, 'requests')} requests"
            if w.startswith("different number of requests")
            else f"max_tokens {run_param(r, 'max_tokens')}"
            for w in why
            if not w.startswith("different concurrency")
        )
        length = any(w.startswith("different max_tokens") for w in why)
        found.setdefault(int(r.num_steps), {}).setdefault((length, c, differs), []).append(r)
    if not found:
        return model
    out: list[ElsewhereAccept] = []
    notes: list[str] = []
    whose = "fit's" if model.method == "fit" else "model's"  # a calibrated model (one run) is no fit
    for k in sorted(found):
        key = min(found[k], key=lambda g: (g[0], abs(math.log(g[1] / max(model.concurrency, 1))), g[1], g[2]))
        rs = sorted(found[k][key], key=lambda r: r.id)
        vals = [float(r.accept_length if r.accept_length is not None else r.accept_length_mean) for r in rs]
        fit = model.accept_at(k)  # the extrapolation it replaces
        e = ElsewhereAccept(k, sum(vals) / len(vals), key[1], tuple(int(r.id) for r in rs), key[2], fit)
        model_e = replace(model, accept_elsewhere=(e,))
        if model_e.elsewhere_accept(k) is None:  # under this sweep's own at fewer steps: not used
            continue
        out.append(e)
        notes.append(
            f"acceptance at num_steps {k} is the {e.accept_length:.2f} {e.words}, not the {whose} {fit:.2f}: the "
            f"sweep at batch {model.concurrency} did not measure num_steps {k}; acceptance can differ with the batch "
            "size"
        )
    if not out:
        return model
    return replace(model, accept_elsewhere=tuple(out), notes=(*model.notes, *notes))


def model_from_runs(
    runs: Sequence[Any],
    *,
    baseline_run_id: int | None = None,
    draft_step_ms: float | None = None,
    target: str | None = None,
    draft: str | None = None,
    accept_from: Sequence[Any] | None = None,
) -> SpeedupModel:
    """Model from store ``RunRecord``s of one group, fitted to its comparable sweep (``sweep_of``).

    A measured draft step (``draft_step_ms``, or ``draft_step_ms`` in a run's notes) replaces the
    fitted drafting cost (``with_draft_step``). Runs served with another model than the draft's ``target``
    are left out, and the notes say which; with ``draft`` (your draft's name) the sweep holding your draft's
    pair is fitted (``sweep_of``). At a num_steps the sweep did not measure, an acceptance the group measured at
    another batch size, request count or max_tokens (of ``accept_from``, default the runs given) stands in for the
    model's (``with_accept_elsewhere``).
    """
    sweep = sweep_of(runs, baseline_run_id=baseline_run_id, target=target, draft=draft)
    spec, base = list(sweep.runs), sweep.baseline
    concs = {c for c in (_concurrency(r) for r in spec) if c is not None}
    concurrency = concs.pop() if concs else 1
    points = []
    for r in spec:
        acc = r.accept_length if r.accept_length is not None else r.accept_length_mean
        per_pos = (r.summary or {}).get("accept_per_position") if isinstance(r.summary, Mapping) else None
        points.append(
            SweepPoint(int(r.num_steps), float(r.output_tokens_per_s), acc, r.id, tuple(per_pos) if per_pos else None)
        )
    verify_ms = None
    share = None
    sweep_range = None
    for r in spec:
        n = r.notes or {}
        if "verify_ms" in n and verify_ms is None:
            vm = n["verify_ms"]
            verify_ms = (float(vm[0]), float(vm[-1])) if isinstance(vm, (list, tuple)) else float(vm)
        if "verify_share_min" in n and share is None:
            share = float(n["verify_share_min"])
        if sweep_range is None:
            sweep_range = _sweep_range(n)
    model = fit_sweep(
        points,
        baseline_tok_s=float(base.output_tokens_per_s) if base is not None else None,
        concurrency=concurrency,
        verify_ms=verify_ms,
        verify_share_min=share,
        sweep_range=sweep_range if len({p.num_steps for p in points}) == 1 else None,
    )
    source = "given"
    if draft_step_ms is None:
        for r in spec:
            value = (r.notes or {}).get("draft_step_ms")
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                draft_step_ms, source = float(value), f"measured, run {r.id}'s notes"
                break
    if draft_step_ms is not None:
        model = with_draft_step(model, draft_step_ms, source=source)
    engines = sorted({str(r.engine) for r in spec if getattr(r, "engine", None)})
    notes = [f"runs fitted: {', '.join(run_ref(r) for r in spec)}" + (f" ({', '.join(engines)})" if engines else "")]
    notes += ([sweep.target_note] if sweep.target_note else []) + list(sweep.left_out)
    notes.append(
        f"baseline: run {base.id}" + (" (imported)" if is_imported(base) else "")
        if base is not None
        else no_baseline_reason(sweep.pool, spec)
    )
    ref = base if base is not None else spec[0]
    notes += list(dict.fromkeys(n for r in spec if (n := unrecorded_settings(r, ref))))
    model = SpeedupModel(
        **{
            **model.__dict__,
            "notes": model.notes + tuple(notes),
            "baseline_run_id": base.id if base is not None else None,
            "served_run_id": sweep.served.id if sweep.served is not None else None,
            "left_out": sweep.left_out,
            "fitted_run_ids": tuple(int(r.id) for r in spec),
            "other_baselines": _other_comparable(sweep.pool, spec, base),
        }
    )
    # a calibrated model (one num_steps) too: walk BL7, batch 8 measured num_steps 3 alone, and its table put the
    # model's 2.47 and 3.43 at 2 and 4, where the same draft measured 2.50 and 3.53 at batch 1 (runs #5, #7)
    pool = sweep.pool if accept_from is None else [r for r in accept_from if r.status in ("finished", None, "")]
    return with_accept_elsewhere(model, pool)


def _other_comparable(runs: Sequence[Any], spec: Sequence[Any], base: Any | None) -> tuple[tuple[int, float], ...]:
    """``runs``' baselines other than ``base`` that every run of ``spec`` is comparable with (``baseline_mismatch``),
    more than run-to-run noise (``TIE_TOLERANCE``) from ``base``'s tok/s: (run id, tok/s), by id."""
    if base is None or not base.output_tokens_per_s:
        return ()
    ref = float(base.output_tokens_per_s)
    return tuple(
        (int(b.id), float(b.output_tokens_per_s))
        for b in sorted(runs, key=lambda r: r.id)
        if b.is_baseline
        and b.id != base.id
        and b.output_tokens_per_s
        and abs(float(b.output_tokens_per_s) / ref - 1) > TIE_TOLERANCE
        and not any(baseline_mismatch(s, b) for s in spec)
    )


def _engine(run: Any) -> str | None:
    return str(run.engine).strip().lower() if getattr(run, "engine", None) else None


@dataclass(frozen=True)
class SweepChoice:
    """One batch size and engine a group's speculative runs measured at: a sweep the speed model may be fitted to
    (``sweep_choices``). A fit across batch sizes or engines reads their throughput difference as a num_steps cost.

    A fit of this choice (``sweep_of`` on its runs) is of one setting: it leaves out the runs measured under
    another (an imported run of unrecorded prompts, ``unrecorded_conditions``; a tree beside the chains, another
    topk). ``fitted_ids`` are the runs it fits, ``left_out`` the others, and the label counts the first and says
    the others apart (walk Q: "5 runs" counted an imported run the fit left out)."""

    batch: int | None
    engine: str | None
    run_ids: tuple[int, ...]  # all its speculative runs, fewest num_steps first
    steps: tuple[int, ...]  # the num_steps of the runs a fit of it fits
    fitted_ids: tuple[int, ...] = ()  # the runs a fit of it fits (``sweep_of``), fewest num_steps first
    # (run id, why in a word) of its other runs: "imported", "tree", "chain" (beside a fit of trees), "other settings"
    left_out: tuple[tuple[int, str], ...] = ()

    @property
    def key(self) -> tuple[int | None, str | None]:
        return self.batch, self.engine

    @property
    def where(self) -> str:
        """ "batch 8, vllm" """
        batch = f"batch {self.batch}" if self.batch is not None else "batch not recorded"
        return f"{batch}, {self.engine or 'engine not recorded'}"

    @property
    def label(self) -> str:
        """ "batch 8, vllm: 6 runs at num_steps 1, 2, 3", then its runs a fit leaves out, by why: "(+1 imported and
        1 tree, left out of the fit)" """
        n = len(self.fitted_ids)
        text = f"{self.where}: {n} run{'s' if n != 1 else ''} at num_steps {', '.join(map(str, self.steps))}"
        whys = [w for _, w in self.left_out]
        parts = []
        for why, one, many in _LEFT_OUT_WORDS:
            count = whys.count(why)
            if count:
                parts.append(f"{count} {one if count == 1 else many}")
        if not parts:
            return text
        said = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
        return f"{text} (+{said}, left out of the fit)"

    def holds(self, run: Any) -> bool:
        """Whether ``run`` (speculative or baseline) was measured at this batch size and engine."""
        return _concurrency(run) == self.batch and _engine(run) == self.engine


# why a run of a sweep choice is left out of its fit, as its label counts it: (why, one, several)
_LEFT_OUT_WORDS = (
    ("imported", "imported", "imported"),
    ("tree", "tree", "trees"),
    ("chain", "chain", "chains"),
    ("other settings", "at other settings", "at other settings"),
)


def _left_out_why(run: Any, fitted: Sequence[Any]) -> str:
    """Why ``run`` is not in the sweep ``fitted``, in a word (``SweepChoice.left_out``)."""
    if is_imported(run) and not all(is_imported(f) for f in fitted):
        return "imported"
    tree = (getattr(run, "topk", None) or 1) > 1
    if fitted and all(((getattr(f, "topk", None) or 1) > 1) != tree for f in fitted):
        return "tree" if tree else "chain"
    return "other settings"


def sweep_groups(
    runs: Sequence[Any], *, target: str | None = None, draft: str | None = None
) -> tuple[SweepChoice, ...]:
    """The batch sizes and engines a group's speculative runs of ``draft`` measured at (served with ``target``),
    smallest batch first, each with the runs a fit of it fits: the runs ``verdicts.live_outlook(sweep=...)`` and
    ``speedup --batch N --engine E`` fit there (``sweep_of`` on that choice's runs, less other drafts' runs)."""
    from comparelib.models.draft import runs_for_target, runs_of_draft

    own = runs_of_draft(runs, draft)
    mine = runs_for_target(own.kept, target).kept
    by: dict[tuple[int | None, str | None], list[Any]] = {}
    for r in sorted(_speculative(mine), key=lambda r: (int(r.num_steps), r.id)):
        by.setdefault((_concurrency(r), _engine(r)), []).append(r)
    order = sorted(by, key=lambda k: (k[0] is None, k[0] or 0, k[1] or ""))
    left_out = {id(o) for o in own.left_out}
    pool = [r for r in runs if id(r) not in left_out]
    out = []
    for b, e in order:
        members = by[(b, e)]
        there = [r for r in pool if _concurrency(r) == b and _engine(r) == e]
        try:
            fitted = list(sweep_of(there, target=target, draft=draft).runs)
        except CompareError:  # no sweep to fit there: every run is counted, none said apart
            fitted = members
        ids = {int(r.id) for r in fitted}
        left = [r for r in members if int(r.id) not in ids]
        out.append(
            SweepChoice(
                b,
                e,
                tuple(int(r.id) for r in members),
                tuple(sorted({int(r.num_steps) for r in fitted})),
                tuple(int(r.id) for r in members if int(r.id) in ids),
                tuple((int(r.id), _left_out_why(r, fitted)) for r in left),
            )
        )
    return tuple(out)


def sweep_choices(
    runs: Sequence[Any], *, target: str | None = None, draft: str | None = None
) -> tuple[tuple[SweepChoice, ...], int | None]:
    """The batch sizes and engines a group's speculative runs of ``draft`` measured at (served with ``target``),
    smallest batch first, and the index of the one ``model_from_runs`` fits when none is chosen (None: no sweep
    can be fitted). The CLI's ``speedup --batch N`` makes the same choice by batch size."""
    from comparelib.models.draft import runs_of_draft

    own = runs_of_draft(runs, draft)
    choices = sweep_groups(runs, target=target, draft=draft)
    try:
        fitted = sweep_of([r for r in runs if r not in own.left_out], target=target, draft=draft)
    except CompareError:
        return choices, None
    first = fitted.runs[0].id
    return choices, next((i for i, c in enumerate(choices) if first in c.run_ids), None)


def no_baseline_reason(runs: Sequence[Any], spec_runs: Sequence[Any], *, where: str = "in this group") -> str:
    """Why the group's speculative runs have no baseline: none measured, or none comparable (and why). ``where``
    names what ``runs`` are (Live benchmark's table: "among the runs picked")."""
    bases = [r for r in runs if r.is_baseline and r.output_tokens_per_s]
    if not bases:
        return (
            f"no baseline run (the same server without speculation) {where}: no speedup; "
            "benchmark the target alone with the same settings"
        )
    # the closest baseline's reasons, not every baseline's: an SGLang run beside an SGLang baseline at other
    # max_tokens differs in max_tokens, not also in "engine" because a vLLM baseline is in the group too
    closest = min(bases, key=lambda b: (sum(len(baseline_mismatch(s, b)) for s in spec_runs), -b.id))
    reasons = sorted({why for s in spec_runs for why in baseline_mismatch(s, closest)})
    return f"no comparable baseline {where}: the closest, run #{closest.id}, has " + "; ".join(reasons)


def unphysical(model: SpeedupModel) -> bool:
    """A fitted cycle that gets cheaper with more draft steps, or costs nothing fixed: no server's. Its
    predictions (tok/s rising without end, or negative) are not shown as predictions."""
    return model.method == "fit" and (model.t_step_ms <= 0 or model.t_verify_ms <= 0)


def cycle_held(model: SpeedupModel) -> bool:
    """A single run's cycle with no cost per draft step (no verify time, no sweep): its tok/s at another num_steps
    holds the whole cycle fixed while acceptance grows, an upper bound and not a prediction. Walk S's batch-16 run
    (97.76 ms at num_steps 3) was "predicted" at 501-508 tok/s from num_steps 6 on, above the 495.4 baseline."""
    return model.method != "fit" and model.t_step_ms <= 0


def optimum_missing(model: SpeedupModel) -> list[str]:
    """What must still be measured before the model may name a best num_steps; empty when enough.

    Two or more num_steps with acceptance fix both cycle costs (``fit``), when the fit is physical: a cycle
    that gets cheaper with more draft steps (or a negative fixed cost) is noise or a changed setting, and its
    "best" would be an artefact. A single speculative point fixes the costs only with the run's verify time and
    the sweep it was the best of (the built-in example's notes); without those the per-step cost is a guess,
    and the "best num_steps" would be the guess's, not the server's.
    """
    missing: list[str] = []
    steps = sorted({p.num_steps for p in model.measured})
    calibrated_enough = any("best of num_steps" in n for n in model.notes) and any(
        "(from the run's notes)" in n for n in model.notes
    )
    ks = sorted({p.num_steps for p in model.measured if p.accept_length is not None and p.tok_s})
    cycles = [
        sum(c) / len(c)
        for k in ks
        if (c := [_cycle_ms(p, model.concurrency) for p in model.measured if p.num_steps == k and p.accept_length])
    ]
    slopes = [(cycles[i + 1] - cycles[i]) / (ks[i + 1] - ks[i]) for i in range(len(cycles) - 1)]
    steeper = (  # growing, by more each step: a convex cycle a straight line puts under zero at num_steps 0
        unphysical(model)
        and model.t_step_ms > 0
        and len(cycles) >= 3
        and all(d > 0 for d in slopes)
        and all(b > a for a, b in zip(slopes, slopes[1:], strict=False))
    )
    if steeper:
        # walk BQ 1: cycles of 29.3, 41.5 and 61.0 ms at num_steps 2, 3, 4 read "Missing: a sweep whose cycle time
        # grows with num_steps ... repeat the sweep": they grow, faster than a straight line, whose fixed cost falls
        # under zero; the measured best stands and is named
        runs = ", ".join(f"#{p.run_id}" for p in model.measured if p.run_id is not None)
        best = max(ks, key=lambda k: model.measured_tok_s(k) or 0.0)
        best_runs = runs_text(model.measured_runs(best)).replace(" (their mean)", "")
        missing.append(
            f"a cycle model that fits these runs: their cycles grow faster than linearly with num_steps "
            f"({', '.join(f'{c:.1f}' for c in cycles)} ms at num_steps {', '.join(map(str, ks))}; runs {runs}), so a "
            f"straight line through them has a fixed cost of {model.t_verify_ms:.2f} ms a cycle, which no server has, "
            f"and no num_steps they did not measure is predicted; the measured best is num_steps {best} "
            f"({model.measured_tok_s(best):,.1f} tok/s, {best_runs}); measure num_steps {ks[0] - 1} to see whether "
            "fewer steps pay"
            if ks[0] > 1
            else f"a cycle model that fits these runs: their cycles grow faster than linearly with num_steps "
            f"({', '.join(f'{c:.1f}' for c in cycles)} ms at num_steps {', '.join(map(str, ks))}; runs {runs}), so a "
            f"straight line through them has a fixed cost of {model.t_verify_ms:.2f} ms a cycle, which no server has, "
            f"and no num_steps they did not measure is predicted; the measured best is num_steps {best} "
            f"({model.measured_tok_s(best):,.1f} tok/s, {best_runs})"
        )
    elif unphysical(model):
        runs = ", ".join(f"#{p.run_id}" for p in model.measured if p.run_id is not None)
        missing.append(
            f"a sweep whose cycle time grows with num_steps: the runs fitted ({runs or 'the sweep'}) give a per-step "
            f"cost of {model.t_step_ms:.2f} ms and a fixed cost of {model.t_verify_ms:.2f} ms a cycle, which no "
            "server has; repeat the sweep under one setting, with more requests per num_steps"
        )
    elif model.method != "fit" and not calibrated_enough:
        k0 = steps[0] if steps else None
        others = ", ".join(str(k) for k in (k0 - 1, k0 + 1) if k0 and 1 <= k <= 10) if k0 else "2 and 4"
        missing.append(
            f"only one num_steps was measured ({k0}): run the same server at another num_steps "
            f"(e.g. {others}) with acceptance recorded, so the draft-step cost can be measured rather than assumed"
        )
    return missing


def missing_evidence(model: SpeedupModel) -> list[str]:
    """What must still be measured before the model may name a best num_steps (``optimum_missing``) or a
    speedup (a comparable baseline run); empty when enough."""
    missing = optimum_missing(model)
    if not model.baseline_tok_s:
        missing.append("a baseline run (the same model and server settings without speculation) to state a speedup")
    return missing


def measured_frame(runs: Sequence[Any]) -> pd.DataFrame:
    """The group's runs as rows for the sweep chart (``kind`` as stored: measured / example / imported)."""
    import pandas as pd

    rows = []
    for r in runs:
        rows.append(
            {
                "run_id": r.id,
                "num_steps": r.num_steps if not r.is_baseline else 0,
                "baseline": bool(r.is_baseline),
                "tok_s": r.output_tokens_per_s,
                "accept_length": r.accept_length if r.accept_length is not None else r.accept_length_mean,
                "labels": ", ".join(r.labels or []),
                "kind": r.kind,
            }
        )
    return pd.DataFrame(rows, columns=["run_id", "num_steps", "baseline", "tok_s", "accept_length", "labels", "kind"])


def summary(model: SpeedupModel, *, steps: Iterable[int] = STEPS) -> dict[str, Any]:
    """Plain dict for ``--json``: the model, the predictions and the optimum. A held cycle (``cycle_held``) or a fit
    that is not a server's (``unphysical``) predicts nothing at a num_steps it did not measure: tok/s, speedup and
    optimum are None there."""
    frame = predict_frame(model, steps)
    opt: dict[str, Any] | None = optimum(model, frame=frame).__dict__
    if cycle_held(model) or unphysical(model):
        # walk BQ 2: a fit the notes call not physical printed 595.9 tok/s at num_steps 1 and a verify share of -30%
        unmeasured = frame["tok_s_source"] != "measured"
        frame = frame.astype({c: object for c in ("tok_s", "speedup", "pick_tok_s", "tok_s_source")})
        frame.loc[unmeasured, ["tok_s", "speedup", "pick_tok_s"]] = None
        frame.loc[unmeasured, "tok_s_source"] = "not predicted"
        opt = None
    return {
        "method": model.method,
        "concurrency": model.concurrency,
        "t_verify_ms": model.t_verify_ms,
        "t_step_ms": model.t_step_ms,
        "t_draft_ms": model.t_draft_ms,
        # below ``floor_below`` num_steps a cycle is drawn from the decode step ``floor_ms`` (``_verify_floor``)
        "floor_ms": model.floor_ms,
        "floor_step_ms": model.floor_step_ms if model.floor_ms is not None else None,
        "floor_below": model.floor_below if model.floor_ms is not None else None,
        "alpha": model.alpha,
        "baseline_tok_s": model.baseline_tok_s,
        "measured": [p.__dict__ for p in model.measured],
        "predicted": frame.to_dict(orient="records"),
        "optimum": opt,
        "notes": list(model.notes),
        # what must still be measured before the optimum means anything (empty: enough evidence)
        "missing": missing_evidence(model),
    }


COMPARE_METRICS = [
    ("output_tokens_per_s", "output tok/s"),
    ("accept_length", "accept length (pooled)"),
    ("accept_length_mean", "accept length (mean)"),
    ("ttft_p50_ms", "TTFT p50 ms"),
    ("ttft_p99_ms", "TTFT p99 ms"),
    ("tpot_p50_ms", "TPOT p50 ms"),
    ("tpot_p99_ms", "TPOT p99 ms"),
    ("requests", "requests"),
    ("errors", "errors"),
]


def comparison_frame(records: Sequence[RunRecord], baseline: RunRecord | None = None) -> pd.DataFrame:
    """Runs side by side (one row per run) with the speedup of each over ``baseline``."""
    import pandas as pd

    rows = []
    for rec in records:
        row: dict[str, Any] = {
            "run": rec.title,
            "kind": rec.kind,
            "status": rec.status,
            "model": rec.model,
            "num_steps": rec.num_steps,
        }
        for attr, name in COMPARE_METRICS:
            row[name] = getattr(rec, attr)
        if baseline is not None:
            row["speedup"], row["speedup_note"] = speedup_against(rec, baseline)
        else:
            row["speedup"], row["speedup_note"] = None, "no baseline picked"
        rows.append(row)
    frame = pd.DataFrame(rows)
    if not frame.empty:
        frame["num_steps"] = frame["num_steps"].astype("Int64")
        frame["speedup"] = pd.to_numeric(frame["speedup"], errors="coerce").astype("float64")
    return frame


# ---------------------------------------------------------------------------------------------
# Before serving: offline AL (eval-draft) + a measured draft step (draft-cost)

OFFLINE_COLUMNS = ("batch", "num_steps", "accept_length", "draft_ms", "verify_ms", "cycle_ms", "tok_s", "best")


def offline_best_steps(
    al_by_steps: Mapping[int, float],
    cost: Mapping[str, Any],
    *,
    verify_ms: float | Mapping[int, float],
    al_source: str,
    verify_source: str,
) -> tuple[pd.DataFrame, list[str]]:
    """Predicted tok/s per batch size and num_steps from offline AL and a draft-cost record; the best per batch.

    ``cost`` is one draft's ``draft-cost --json`` object (measured, or the bandwidth-floor estimate:
    it says which). The cycle is ``verify_ms + proposal(k)``: the proposal as measured when the record
    has it for ``k`` steps, else its first forward plus ``k - 1`` measured steps. Checking more tokens in
    the verify forward is taken as free, which favours long proposals on large targets. Returns the
    frame and the evidence: what each input is and whether it was measured.
    """
    import pandas as pd

    from comparelib.analysis import draftcost

    ks = sorted(int(k) for k, v in al_by_steps.items() if isinstance(v, (int, float)) and math.isfinite(v))
    if not ks:
        raise DataError("no offline acceptance length to predict from (run eval-draft first)")
    results = cost.get("results") or []
    if not results:
        raise DataError("the draft-cost record has no measured batch size")
    rows = []
    for r in sorted(results, key=lambda r: r["batch"]):
        b = int(r["batch"])
        v = float(verify_ms if isinstance(verify_ms, (int, float)) else verify_ms.get(b, math.nan))
        if not math.isfinite(v) or v < 0:
            raise InputError(f"no verify time for batch {b}: give one per measured batch size, in ms")
        step, _how = draftcost.step_ms_for_batch(cost, b)
        by_steps = r.get("proposal_ms_by_steps") or []
        first = float(r.get("first_step_ms") or step)
        for k in ks:
            draft = float(by_steps[k - 1]) if k <= len(by_steps) else first + (k - 1) * step
            cycle = v + draft
            rows.append(
                {
                    "batch": b,
                    "num_steps": k,
                    "accept_length": float(al_by_steps[k]),
                    "draft_ms": draft,
                    "verify_ms": v,
                    "cycle_ms": cycle,
                    "tok_s": b * float(al_by_steps[k]) / cycle * 1000.0,
                    "best": False,
                }
            )
    frame = pd.DataFrame(rows, columns=list(OFFLINE_COLUMNS))
    best = frame.groupby("batch")["tok_s"].idxmax()
    frame.loc[best.to_numpy(), "best"] = True
    measured = not cost.get("estimate") and not (cost.get("results") or [{}])[0].get("fraction_of_peak") == 1.0
    evidence = [
        f"acceptance: offline replay AL ({al_source}); not measured on a server",
        (
            f"draft step: measured with torch on {cost.get('device_name') or cost.get('device')} "
            f"({cost.get('dtype')}, context {cost.get('context')})"
            if measured
            else "draft step: bandwidth-floor estimate (not measured)"
        ),
        f"verify: {verify_source}; checking more tokens taken as free",
        "predicted, not measured: confirm the best num_steps with a live sweep",
    ]
    return frame, evidence


# ---------------------------------------------------------------- the sweep charts' lines


def served_models(records: Sequence[Any], same: Callable[[str, str], str] | None = None) -> dict[int, str]:
    """The target model each run was served with, by run id, as a short name ("Qwen3-8B"), when the runs name
    more than one; else empty. ``same(a, b)`` says "same" when two names are one model (default
    ``models.draft.model_match``: a local folder of a Hub model is that model)."""
    from comparelib.models.draft import model_match  # a local folder of a Hub model is that model

    match: Callable[[str, str], str] = same or model_match
    classes: list[list[str]] = []
    for name in dict.fromkeys(m for r in records if (m := _served(r))):
        for c in classes:
            if any(match(name, other) == "same" for other in c):
                c.append(name)
                break
        else:
            classes.append([name])
    if len(classes) < 2:
        return {}
    short = {n: _short_model(next((x for x in c if _HUB_ID.fullmatch(x)), c[0])) for c in classes for n in c}
    return {r.id: short.get(_served(r), "model not recorded") for r in records}


_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")


def _served(run: Any) -> str:
    return str(getattr(run, "model", None) or "").strip()


def _short_model(name: str) -> str:
    """A model's own name in a Hub id or folder: "Qwen3-8B" for Qwen/Qwen3-8B or a Hub-cache snapshot folder."""
    cache = re.search(r"models--[^/\\]+?--([^/\\]+)", name)
    return cache.group(1) if cache else re.split(r"[/\\]", name.rstrip("/\\"))[-1] or name


DRAFT_CHARS = 22  # a draft's name in a legend entry, cut with "…": "RedHatAI/Qwen3-8B-spec…"


def _draft_names(records: Sequence[Any], draft: str | None) -> dict[int, str]:
    """Each run's draft as a legend names it ("your draft" for ``draft``'s runs, else its name, cut at
    ``DRAFT_CHARS``), by run id, when ``records`` were served with more than one draft model; else empty.
    The target's own MTP layers and model-free drafting are named by their algorithm already."""
    from comparelib.models.draft import draft_match  # the one rule for "the same draft"

    named = [r for r in records if not registry.is_mtp(r) and str(getattr(r, "draft_model", None) or "").strip()]
    distinct: list[Any] = []
    for r in named:
        if not any(draft_match(r.draft_model, d.draft_model) for d in distinct):
            distinct.append(r)
    if len(distinct) < 2:
        return {}

    full = {r.id: registry.draft_label(r) for r in named}
    labels = set(full.values())

    # cut at the end; a team's drafts share the start (two "acme/llama31-8b-eagle3…"): their names without the
    # org, cut at the start; else whole
    def own_part(s: str) -> str:
        part = s.split("/", 1)[-1]
        return part if len(part) <= DRAFT_CHARS + 1 else "\u2026" + part[-DRAFT_CHARS:]

    for cut in (lambda s: s[:DRAFT_CHARS] + "\u2026", own_part, lambda s: s):
        short = {f: f if len(f) <= DRAFT_CHARS + 1 else cut(f) for f in labels}
        if len(set(short.values())) == len(labels):
            break

    def name(r: Any) -> str:
        if draft and draft_match(r.draft_model, draft):
            return "your draft"
        return short[full[r.id]]

    return {r.id: name(r) for r in named}


# The benchmark parameters that split the sweep chart's lines: all that pair runs and hold a fit's sweep fixed but the
# number of requests asked for (walk W made it one, for pairs and fits). Two runs of one configuration measured with
# 4 and 6 requests are one setting measured twice: walk Z's chart split one MTP line into "requests=4" and
# "requests=6" (``charts.run_sweep_charts`` draws one point of a line per num_steps, the better measured).
SERIES_PARAMS = tuple(k for k in RUN_PARAMS_THAT_MATTER if k != "requests")


def sweep_series(
    records: Sequence[Any], models: dict[int, str] | None = None, *, draft: str | None = None
) -> dict[int, str]:
    """Each speculative run's series on the sweep charts, by run id: one line per comparable setting.

    Runs share a line when ``speedup._sweep_signature`` (what a num_steps sweep must hold fixed: engine, model,
    concurrency and the other benchmark and server settings, algorithm, draft, topk) agrees and, for a tree, the
    number of draft tokens too (a chain's follows num_steps); the number of requests splits no line
    (``SERIES_PARAMS``), though it pairs runs and holds a fit's sweep fixed. Keyed on the engine alone, one
    "sglang" line zig-zagged between batch 1 (~85 tok/s) and batch 16 (~800 tok/s) runs, and joined a tree to a chain.
    Labels are the charts' legend: engine, algorithm (``registry.algorithm_label``, the one naming rule: "EAGLE-3",
    "MTP (NEXTN)" for SGLang's, "MTP" for vLLM's), batch and shape: "sglang EAGLE-3 bs=16 chain", "sglang MTP
    (NEXTN) bs=1 tree topk=4 ndt=8", "vllm MTP bs=1 chain" (vLLM drafts EAGLE and MTP as a chain,
    ``registry.run_setting``: its runs state no topk). Two settings that would read alike get the first benchmark
    setting that tells them apart ("prompt_set=random") or a run id. Runs served with more than one target model
    (``served_models``) lead with theirs, "Qwen3-8B · sglang EAGLE-3 bs=1 chain": another model's line read as
    "sglang bs=1 chain (#6)" beside the draft's own. Runs of a group served with several draft models lead with
    their draft ("your draft", ``draft``'s, or its name cut short: "RedHatAI/Qwen3-8B-spec… · sglang EAGLE-3 bs=1
    chain"), where a published draft's chain and yours read alike, "chain (#8)" and "chain (#2)"."""
    models = served_models(records) if models is None else models  # the group's, baselines included
    drafts = _draft_names(records, draft)

    def topk(r: Any) -> int | None:
        v = getattr(r, "topk", None)
        return int(v) if isinstance(v, int | float) and not math.isnan(float(v)) else None

    def label(line: list[Any]) -> str:
        r = line[0]
        engine = str(getattr(r, "engine", None) or "unknown")
        bs = run_param(r, "concurrency")
        k, ndt = topk(r), getattr(r, "num_draft_tokens", None)
        if k is None:  # not reported: vLLM's EAGLE, EAGLE-3 and MTP draft a chain (registry.run_setting keys it so)
            shape = "chain" if registry._vllm_chain(r) else None
        else:
            shape = "chain" if k <= 1 else f"tree topk={k}" + (f" ndt={ndt}" if ndt else "")
        # the algorithm a run of the line reported or stated (an import of the same draft typed in, at this setting);
        # else the runs table's words: walk W's vLLM run read "vllm EAGLE-3" from its draft's SGLang runs elsewhere
        algo = next((a for x in line if (a := registry.algorithm_label(x))), None) or registry.speculation_label(r)
        said = " ".join(x for x in (engine, algo, f"bs={bs}" if bs is not None else None, shape) if x)
        lead = [x for x in (models.get(r.id) if models else None, drafts.get(r.id)) if x]
        return " · ".join([*lead, said])

    groups: dict[tuple[Any, ...], list[Any]] = {}
    keys = _draft_keys(records)  # one draft by Hub id and from a folder of its name: one line, as it is one fit
    algorithms = _stated_algorithms(records, keys)
    for r in records:
        groups.setdefault(_sweep_signature(r, keys, algorithms, params=SERIES_PARAMS), []).append(r)
    names = {k: label(rs) for k, rs in groups.items()}
    for name in set(names.values()):
        alike = [k for k, v in names.items() if v == name]
        if len(alike) < 2:
            continue
        tell = None
        for p in (k for k in SERIES_PARAMS if k != "concurrency"):
            vals = [run_param(groups[k][0], p) for k in alike]
            if None not in vals and len({str(v) for v in vals}) == len(vals):
                tell = p
                break
        for k in alike:
            first = groups[k][0]
            value = str(run_param(first, tell)).rstrip("/").rsplit("/", 1)[-1][:16] if tell else ""
            # every run of the line, not its first: walk BJ's batch-8 line through #9, #10, #11 read "(#9)"
            runs = id_span(int(r.id) for r in groups[k] if str(getattr(r, "id", "")).isdigit()) or f"#{first.id}"
            names[k] = f"{name} {tell}={value}" if tell else f"{name} ({runs})"
    return {r.id: names[k] for k, rs in groups.items() for r in rs}


def sweep_chart_inputs(records: Sequence[Any], draft: str | None = None) -> tuple[dict[int, str], dict[int, str]]:
    """(series, models) for ``charts.run_sweep_charts``: the shared chart module never imports this one.
    ``draft``: your draft's name, whose lines read "your draft" in a group of several drafts."""
    models = served_models(records)
    spec_runs = [r for r in records if not r.is_baseline and r.num_steps is not None]
    return sweep_series(spec_runs, models, draft=draft), models


def requests_run(
    runs: Sequence[Any], draft: str | None, own_target: Callable[[], str | None] | None = None
) -> Any | None:
    """The run 'Per-request results' opens on: the newest run with per-request rows stored (``request_rows``: a
    summary-only import and the example have none, whatever their summary's request count), of your draft's target
    (``own_target()``, asked only when the runs were served with several targets) and of your draft
    (``runs_of_draft``) where such runs have rows. With no rows stored at all, the same choice among the runs whose
    summary counts requests; None when there is none."""
    from comparelib.models.draft import model_match, runs_of_draft

    own = [r for r in runs if r.kind != "example"]
    with_rows = [r for r in own if getattr(r, "request_rows", 0) > 0] or [r for r in own if r.requests > 0]
    if not with_rows:
        return None
    if own_target is not None and served_models(with_rows):
        target = own_target()
        if target:
            with_rows = [r for r in with_rows if model_match(r.model, target) != "other"] or with_rows
    return (list(runs_of_draft(with_rows, draft).kept) or with_rows)[-1]
