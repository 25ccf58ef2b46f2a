"""The plan: which change closes a draft's acceptance gap, and what it costs in GPU-hours and terabytes.

Maintainers answer "more data, a bigger draft, other num_steps or a wiring fix?" by rule of thumb
("~500K samples for 2-3 epochs": speculators #751, SpecForge #128). This module puts the measured
inputs together instead: the acceptance-vs-data fit (``scaling``) or the draft's own learning curve
(``curves``), the speedup model of the step sweep (``speedup``), the measured draft step
(``draftcost``), the audit's tokens per sample, the wiring lint, and, when given, offline evaluation
(``eval-draft --json``: AL by num_steps and the draft-vocabulary ceiling).

Acceptance against samples is a **bounded logistic in log N**:
``AL(N) = 1 + (P - 1) / (1 + (N0 / N) ** b)`` with ``1 < P <= K + 1``. Why this form: in its middle
it is linear in log N, the log-linear law of Scylla (arXiv 2505.07858) and of EAGLE-3's scaling
figure; it can never pass the chain's hard ceiling K + 1 and may plateau below it, as SFT does
(Draft-OPD, arXiv 2605.29343); and it approaches the plateau as a power law, like the learning
curves (``curves``). On a draft's own curve all three parameters are fitted (least squares, a grid
over b and N0 with the plateau solved exactly) and the band is a residual bootstrap. On published
points P is fixed at K + 1 and the fit is a straight line in ``logit((AL - 1) / K)`` against log N
(few points; the band draws the line's coefficients from their Student t distribution). Every
prediction (AL, samples needed, GPU-hours, TB, tok/s) is read off the same draws, so the band is
carried through the whole chain.

Cost of N samples: hidden-state generation ``2 x target active params x tokens`` (a target
forward), training ``(6 x draft params x TTT steps + 2 x target lm_head) x tokens x epochs``
(forward and backward of the draft per TTT step, the teacher's logits once), storage offline
``tokens x (num_aux + 1) x hidden x 2 B``; GPU-hours at a nominal bf16 peak and a utilisation
calibrated on published runs (``calibration``).
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from comparelib.analysis import curves, draftcost, scaling, speedup, traininglogs, verdicts
from comparelib.analysis.stats import f_quantile
from comparelib.errors import CompareError, DataError, InputError
from comparelib.values import (
    VOLUME_TRAINED,
    band_text,
    bench_label,
    human,
    integer,
    model_id,
    number,
    run_param,
    volume_words,
)

Kind = Literal["more-data", "draft-size", "num-steps", "tree", "fix-wiring", "fix-vocab", "no-speculation"]
KINDS: tuple[Kind, ...] = (
    "more-data",
    "draft-size",
    "num-steps",
    "tree",
    "fix-wiring",
    "fix-vocab",
    "no-speculation",
)
BATCHES: tuple[int, ...] = (1, 8, 64)
LEVEL = 0.95
DRAWS = 400
MIN_NOISE = 0.01  # AL: the smallest residual SE a curve's band assumes
MAX_BINS = 160  # a curve's points are averaged into at most this many log-spaced bins before fitting
MAX_OFFLINE_BYTES = 16 * 1024**2
NOISE = speedup.TIE_TOLERANCE  # a tok/s gain below this share of the current figure is within run-to-run noise

# ---------------------------------------------------------------------------------------------
# Sources: every number on a plan names one


SourceKind = Literal["measured", "predicted", "user", "publication", "assumption"]


@dataclass(frozen=True)
class Source:
    id: str
    kind: SourceKind
    text: str

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "kind": self.kind, "text": self.text}


PUBLICATIONS: dict[str, Source] = {
    s.id: s
    for s in (
        Source(
            "torchspec",
            "publication",
            "TorchSpec (PyTorch blog, pytorch.org/blog/torchspec-speculative-decoding-training-at-scale): "
            "Kimi-K2.5 EAGLE-3 draft, 1,500 H200 GPU-hours for 600,000 samples / 6 billion tokens",
        ),
        Source(
            "speculators-llama8b",
            "publication",
            "vllm-project/speculators examples/train/eagle3_llama3_8b_ultrachat_offline_5k.sh: Llama-3.1-8B, "
            "5K UltraChat samples on 2 x H100, hidden states 143 s, training 5 epochs 327 s (ttt_steps 3)",
        ),
        Source(
            "scylla",
            "publication",
            "Scylla, Scaling Laws for Speculative Decoding (arXiv 2505.07858): acceptance log-linear in data",
        ),
        Source(
            "draft-opd",
            "publication",
            "Draft-OPD (arXiv 2605.29343): SFT acceptance length plateaus with more training",
        ),
        Source(
            "nvidia-datasheets",
            "publication",
            "NVIDIA datasheets, dense bf16 tensor peak: A100 312 TFLOPS, H100 SXM and H200 989 TFLOPS, "
            "B200 2,250 TFLOPS",
        ),
        Source(
            "specforge-defaults",
            "publication",
            "SpecForge 0.2.0 specforge/config/schema.py defaults: max_length 2048, ttt_length 7, num_epochs 1",
        ),
        Source(
            "speculators-storage",
            "publication",
            "speculators docs/user_guide/tutorials/train.md, disk space: seq_len x layers x hidden x dtype bytes",
        ),
    )
}

# ---------------------------------------------------------------------------------------------
# GPUs


@dataclass(frozen=True)
class Gpu:
    name: str
    bf16_tflops: float  # dense (no sparsity) tensor-core peak


GPUS: dict[str, Gpu] = {
    "A100": Gpu("A100", 312.0),  # A100 SXM datasheet, BF16 tensor core
    "H100": Gpu("H100", 989.0),  # H100 SXM datasheet, 1,979 with sparsity
    "H200": Gpu("H200", 989.0),  # H200 datasheet: the H100's compute, more memory
    "B200": Gpu("B200", 2250.0),  # B200 (HGX B200) datasheet, 4.5 PFLOPS with sparsity
}


def gpu(name: str) -> Gpu:
    key = (name or "").strip().upper().replace("NVIDIA ", "")
    for k, g in GPUS.items():
        if key.startswith(k):
            return g
    raise InputError(f"unknown GPU {name!r}; choose one of {', '.join(GPUS)}")


# ---------------------------------------------------------------------------------------------
# The cost model


def generation_flops(target_active: float, tokens: float) -> float:
    """A target forward over every token: ~2 x active params x tokens."""
    return 2.0 * target_active * tokens


def training_flops(draft_params: float, target_lm_head: float, tokens: float, ttt: int, epochs: float) -> float:
    """Draft forward + backward (6 x params) per TTT step, the teacher's logits once, per epoch."""
    return (6.0 * draft_params * ttt + 2.0 * target_lm_head) * tokens * epochs


def storage_bytes(tokens: float, num_aux: int, hidden: int, dtype_bytes: int = 2) -> float:
    """Offline hidden states: the aux layers plus the last layer, per token."""
    return tokens * (num_aux + 1) * hidden * dtype_bytes


def gpu_hours(flops: float, g: Gpu, utilisation: float) -> float:
    return flops / (g.bf16_tflops * 1e12 * utilisation) / 3600.0


@dataclass(frozen=True)
class CalibrationRun:
    """A published run: what it did and how many GPU-hours it took (one phase, or both)."""

    label: str
    source: str
    phase: Literal["generation", "training", "both"]
    gpu: str
    gpu_hours: float
    tokens: float
    target_active: float
    target_lm_head: float
    draft_params: float
    ttt: int
    epochs: float
    assumptions: tuple[str, ...] = ()


# Parameter counts from ``models.params`` over the registry's configs (checked by tests/test_plan.py):
# lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge (a 32K-vocabulary EAGLE-3 draft of Llama-3.1-8B,
# the shape speculators' example trains), its target meta-llama/Llama-3.1-8B-Instruct; Kimi-K2.5's
# active parameters and AQ-MedAI/Kimi-K25-eagle3 (a 32K-vocabulary Kimi-K2.5 draft, the shape of
# TorchSpec's lightseekorg/kimi-k2.5-eagle3, whose config the registry does not hold).
LLAMA8B_DRAFT = 424_689_664
LLAMA8B_TARGET = 8_030_261_248
LLAMA8B_LM_HEAD = 525_336_576
KIMI_DRAFT_32K = 1_190_948_864
KIMI_ACTIVE = 32_861_500_928
KIMI_LM_HEAD = 1_174_405_120
ULTRACHAT_TOKENS_PER_SAMPLE = 1300.0  # assumption: UltraChat-200k conversations, Llama-3 tokenizer

CALIBRATION_RUNS: tuple[CalibrationRun, ...] = (
    CalibrationRun(
        "speculators Llama-3.1-8B: hidden states, 5K samples, 2 x H100, 143 s",
        "speculators-llama8b",
        "generation",
        "H100",
        143.0 * 2 / 3600,
        5000 * ULTRACHAT_TOKENS_PER_SAMPLE,
        LLAMA8B_TARGET,
        LLAMA8B_LM_HEAD,
        LLAMA8B_DRAFT,
        3,
        5,
        (f"{ULTRACHAT_TOKENS_PER_SAMPLE:,.0f} tokens per UltraChat sample (not stated by the script)",),
    ),
    CalibrationRun(
        "speculators Llama-3.1-8B: training, 5 epochs, 2 x H100, 327 s",
        "speculators-llama8b",
        "training",
        "H100",
        327.0 * 2 / 3600,
        5000 * ULTRACHAT_TOKENS_PER_SAMPLE,
        LLAMA8B_TARGET,
        LLAMA8B_LM_HEAD,
        LLAMA8B_DRAFT,
        3,
        5,
        (f"{ULTRACHAT_TOKENS_PER_SAMPLE:,.0f} tokens per UltraChat sample (not stated by the script)",),
    ),
    CalibrationRun(
        "TorchSpec Kimi-K2.5: 600K samples / 6B tokens, 1,500 H200-hours",
        "torchspec",
        "both",
        "H200",
        1500.0,
        6e9,
        KIMI_ACTIVE,
        KIMI_LM_HEAD,
        KIMI_DRAFT_32K,
        7,
        1,
        ("1 epoch and ttt_length 7 (SpecForge's defaults; the blog states neither)",),
    ),
)


def _run_hours(run: CalibrationRun, u_gen: float, u_train: float) -> float:
    g = GPUS[run.gpu]
    gen = gpu_hours(generation_flops(run.target_active, run.tokens), g, u_gen)
    train = gpu_hours(
        training_flops(run.draft_params, run.target_lm_head, run.tokens, run.ttt, run.epochs), g, u_train
    )
    return {"generation": gen, "training": train, "both": gen + train}[run.phase]


@dataclass(frozen=True)
class Calibration:
    u_generation: float
    u_training: float
    rows: tuple[dict[str, Any], ...]  # per run: label, source, published and modelled GPU-hours, ratio


@functools.lru_cache(maxsize=1)
def calibration() -> Calibration:
    """Utilisations of generation and training that keep every published run closest: the pair that
    minimises the largest |log(model / published)| (a least-squares pair lets one run drift further)."""
    grid = np.geomspace(0.02, 1.0, 400)
    gen = np.array([_run_hours(r, 1.0, math.inf) if r.phase != "training" else 0.0 for r in CALIBRATION_RUNS])
    train = np.array([_run_hours(r, math.inf, 1.0) if r.phase != "generation" else 0.0 for r in CALIBRATION_RUNS])
    published = np.array([r.gpu_hours for r in CALIBRATION_RUNS])
    ug, ut = np.meshgrid(grid, grid, indexing="ij")
    model = gen[None, None, :] / ug[..., None] + train[None, None, :] / ut[..., None]
    err = np.abs(np.log(model / published[None, None, :])).max(axis=2)
    i, j = np.unravel_index(int(np.argmin(err)), err.shape)
    u_gen, u_train = float(grid[i]), float(grid[j])
    rows = tuple(
        {
            "run": r.label,
            "source": r.source,
            "published_gpu_hours": r.gpu_hours,
            "model_gpu_hours": _run_hours(r, u_gen, u_train),
            "ratio": _run_hours(r, u_gen, u_train) / r.gpu_hours,
            "assumptions": list(r.assumptions),
        }
        for r in CALIBRATION_RUNS
    )
    return Calibration(u_gen, u_train, rows)


@dataclass(frozen=True)
class CostModel:
    """What N samples cost for one draft and target on one GPU."""

    gpu: Gpu
    target_active: float
    target_lm_head: float
    target_hidden: int
    num_aux: int
    draft_params: float
    tokens_per_sample: float
    tokens_source: str
    ttt: int = 7
    epochs: float = 1.0
    u_generation: float = 0.0
    u_training: float = 0.0
    # a user's own run replaces the FLOP model: GPU-seconds per sample
    gen_gpu_s_per_sample: float | None = None
    train_gpu_s_per_sample: float | None = None  # per sample seen (one epoch of one sample)
    user_source: str = ""

    def generation_hours(self, samples: float) -> float:
        if samples <= 0:
            return 0.0
        if self.gen_gpu_s_per_sample is not None:
            return samples * self.gen_gpu_s_per_sample / 3600.0
        return gpu_hours(
            generation_flops(self.target_active, samples * self.tokens_per_sample), self.gpu, self.u_generation
        )

    def training_hours(self, samples: float, draft_params: float | None = None) -> float:
        if samples <= 0:
            return 0.0
        params = self.draft_params if draft_params is None else draft_params
        if self.train_gpu_s_per_sample is not None:
            return samples * self.epochs * self.train_gpu_s_per_sample * params / self.draft_params / 3600.0
        flops = training_flops(params, self.target_lm_head, samples * self.tokens_per_sample, self.ttt, self.epochs)
        return gpu_hours(flops, self.gpu, self.u_training)

    def storage_tb(self, samples: float) -> float:
        return storage_bytes(samples * self.tokens_per_sample, self.num_aux, self.target_hidden) / 1e12


# ---------------------------------------------------------------------------------------------
# Acceptance against samples: the bounded fit


Form = Literal["logistic", "weibull", "power"]
FORMS: tuple[Form, ...] = ("logistic", "weibull", "power")


EXTRAPOLATION_MAX = 100.0  # a sample count past this multiple of the fit's largest x is not costed
# past this multiple no count is printed: the inverse of a bounded fit explodes as the target nears its ceiling or
# the fit's slope flattens (a plan said "2,242,055,576,173 samples" where Acceptance vs data said about 3M)
OUT_OF_REACH = 1000.0


def bounded_al(x: Any, plateau: Any, n0: Any, b: Any) -> Any:
    """1 + (P - 1) / (1 + (N0 / N) ** b): works on numbers and numpy arrays."""
    return 1.0 + (plateau - 1.0) / (1.0 + (n0 / x) ** b)


def samples_at(target: float, plateau: Any, n0: Any, b: Any) -> Any:
    """N where the curve reaches ``target`` (inf where its plateau does not; 0 at or below 1)."""
    plateau, n0, b = np.asarray(plateau, float), np.asarray(n0, float), np.asarray(b, float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratio = (plateau - 1.0) / (target - 1.0) - 1.0
        n = n0 * ratio ** (-1.0 / b)
    out = np.where((target < plateau) & (ratio > 0) & (b > 0), n, np.inf)
    return np.where(target <= 1.0, 0.0, out)


@dataclass(frozen=True)
class Band:
    value: float | None
    low: float | None
    high: float | None  # None: unbounded on that side

    def to_json(self) -> dict[str, float | None]:
        return {"value": self.value, "low": self.low, "high": self.high}

    def map(self, fn: Callable[[float], float]) -> Band:
        return Band(*(None if v is None else fn(v) for v in (self.value, self.low, self.high)))

    def text(self, fmt: str, unit: str = "", missing: str = "not known") -> str:
        """ "value<unit> (low..high)", the way the page and the CLI state a band: a missing low bound reads "?",
        a missing high one "unbounded", a missing value ``missing``; never 0 for a number that is not there."""
        if self.value is None:
            return missing
        low = "?" if self.low is None else format(self.low, fmt)
        high = "unbounded" if self.high is None else format(self.high, fmt)
        value = format(self.value, fmt)
        if low == high == value:  # a point, not a band (a measured or assumed value): no "(2.10..2.10)"
            return f"{value}{unit}"
        return f"{value}{unit} ({low}..{high})"

    def hours(self) -> str:
        """GPU-hours as ``text`` says them, with one decimal below 10 hours: "0" read as free (walk BA: "GPU-hours 1
        (generation 0, training 1)" for hidden states of 120K samples through a 30B MoE)."""
        small = self.value is not None and max(v for v in (self.value, self.low, self.high) if v is not None) < 10
        return self.text(",.1f" if small else ",.0f")

    def words(self, unit: str = "", missing: str = "not known") -> str:
        """A count a fit predicts, said as the pages say one: "about 2.8M samples (1.1M..unbounded)" (``human``'s
        two significant digits), never to the sample (walk AF: "2,758,641 samples" from a fit whose band spanned
        1.14..2.74 AL, beside Acceptance vs data's "about 2.1M"). Counts (your samples) keep ``text``."""
        if self.value is None:
            return missing
        low = "?" if self.low is None else human(self.low)
        high = "unbounded" if self.high is None else human(self.high)
        value = human(self.value)
        if low == high == value:
            return f"about {value}{unit}"
        return f"about {value}{unit} ({low}..{high})"


def _band_words(b: Band) -> str:
    """ "band 1.1M..unbounded" for a predicted count's band inside a sentence, "" where it is a point as said."""
    low = "?" if b.low is None else human(b.low)
    high = "unbounded" if b.high is None else human(b.high)
    return "" if low == high == human(b.value) else f"band {low}..{high}"


def as_said(n: float | None) -> float | None:
    """``n`` rounded as ``human`` says it (2,758,641 -> 2,800,000): the plan table's predicted samples, so a cell
    says what the note says (walk Z's rule), while ``Plan.to_json`` keeps the fit's own figure."""
    if n is None or not math.isfinite(n):
        return n
    for div in (1e12, 1e9, 1e6, 1e3):
        if abs(n) >= div:
            val = n / div
            return float(round((float(f"{val:.2g}") if val < 10 else round(val)) * div))
    return float(round(n))


def _finite(v: float) -> float | None:
    return float(v) if math.isfinite(v) else None


def form_samples(form: Form, target: float, p1: Any, p2: Any, p3: Any, x_ref: float = 1.0) -> Any:
    """N where one form reaches ``target`` (inf where its plateau does not; 0 at or below 1)."""
    p1, p2, p3 = np.asarray(p1, float), np.asarray(p2, float), np.asarray(p3, float)
    if form == "logistic":
        return samples_at(target, p1, p2, p3)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if form == "weibull":
            frac = (target - 1.0) / (p1 - 1.0)
            n = p2 * (-np.log1p(-frac)) ** (1.0 / p3)
            ok = (frac > 0) & (frac < 1) & (p3 > 0)
        else:
            n = x_ref * (p2 / (p1 - target)) ** (1.0 / p3)
            ok = (p1 > target) & (p2 > 0) & (p3 > 0)
    out = np.where(ok & np.isfinite(n), n, np.inf)
    return np.where(target <= 1.0, 0.0, out)


@dataclass(frozen=True)
class BoundedFit:
    """A bounded fit of AL against samples, and the parameter sets its band is read from.

    ``region``: the sets are every grid point inside the fit's likelihood-ratio confidence region, and
    a band is the smallest and largest value over them (a profile band); otherwise they are random
    draws of the parameters and a band is their 2.5-97.5% quantiles.
    """

    plateau: float
    n0: float  # logistic / weibull: N0; power: a
    b: float
    ceiling: float  # K + 1
    steps: int  # K
    scope: Literal["curve", "pooled"]
    n: int
    x_min: float
    x_max: float
    residual_se: float
    draws: np.ndarray = field(repr=False)  # (m, 3): the form's three parameters
    label: str = ""
    form: Form = "logistic"
    draw_forms: tuple[Form, ...] = ()  # the form of each row of ``draws`` (empty: all ``form``)
    x_ref: float = 1.0  # the power form's x unit
    region: bool = False
    threshold: float = 0.0  # the region's SSE bound

    def _groups(self) -> list[tuple[Form, np.ndarray]]:
        if not self.draw_forms:
            return [(self.form, self.draws)]
        forms = np.array(self.draw_forms)
        return [(f, self.draws[forms == f]) for f in FORMS if (forms == f).any()]

    def _al_draws(self, xs: np.ndarray, rows: slice = slice(None)) -> np.ndarray:
        """AL of the parameter sets ``rows`` at every x: (sets, len(xs))."""
        out = []
        forms = np.array(self.draw_forms) if self.draw_forms else None
        for f in FORMS:
            d = self.draws[rows] if forms is None else self.draws[rows][forms[rows] == f]
            if forms is None and f != self.form or not len(d):
                continue
            xx = xs[None, :] / self.x_ref if f == "power" else xs[None, :]
            out.append(form_al(f, xx, d[:, 0:1], d[:, 1:2], d[:, 2:3]))
        return np.vstack(out) if out else np.empty((0, xs.size))

    def _edges(self, xs: np.ndarray) -> tuple[Any, Any]:
        """Lower and upper band edge at every x (a region's extremes in chunks: it can hold many sets)."""
        if not self.region:
            return tuple(np.quantile(self._al_draws(xs), [(1 - LEVEL) / 2, (1 + LEVEL) / 2], axis=0))
        lo = np.full(xs.size, np.inf)
        hi = np.full(xs.size, -np.inf)
        step = max(1, 2_000_000 // max(xs.size, 1))
        for start in range(0, self.draws.shape[0], step):
            vals = self._al_draws(xs, slice(start, start + step))
            if len(vals):
                lo, hi = np.minimum(lo, vals.min(axis=0)), np.maximum(hi, vals.max(axis=0))
        return lo, hi

    def line(self, x: Any) -> Any:
        xs = np.asarray(x, float)
        return form_al(self.form, xs / self.x_ref if self.form == "power" else xs, self.plateau, self.n0, self.b)

    def al(self, x: float) -> Band:
        xs = np.array([max(float(x), 1e-12)])
        mean = float(self.line(xs)[0])
        lo, hi = self._edges(xs)
        return Band(mean, float(min(lo[0], mean)), float(max(hi[0], mean)))

    def gain(self, x_from: float, x_to: float) -> Band:
        """The line's change from ``x_from`` to ``x_to``, with the band of that change over the parameter sets (the
        region's extremes, or the draws' 2.5-97.5% quantiles): what a measured AL at ``x_from`` moves by. The band of
        the AL at ``x_to`` itself holds the fit's uncertainty at ``x_from`` too, which a measurement there replaces
        (walk AA: that band, shifted onto a measured AL, reached under it)."""
        xs = np.array([max(float(x_from), 1e-12), max(float(x_to), 1e-12)])
        mean = float(self.line(xs[1:])[0] - self.line(xs[:1])[0])
        if not self.region:
            d = np.diff(self._al_draws(xs), axis=1)[:, 0]
            lo, hi = (float(v) for v in np.quantile(d, [(1 - LEVEL) / 2, (1 + LEVEL) / 2]))
        else:
            lo, hi = math.inf, -math.inf
            step = 1_000_000
            for start in range(0, self.draws.shape[0], step):
                d = np.diff(self._al_draws(xs, slice(start, start + step)), axis=1)[:, 0]
                if d.size:
                    lo, hi = min(lo, float(d.min())), max(hi, float(d.max()))
        return Band(mean, min(lo, mean), max(hi, mean))

    def samples_for(self, target: float) -> Band:
        """Samples where the line reaches ``target``, with its band: for a curve fit the profile
        likelihood interval (every N at which some curve of the three forms through (N, target) fits within
        the region's SSE bound); for the pooled fit the range of N where the AL band contains the target (the
        band inverted, as Fieller's interval inverts a line). An end is None (JSON null) when no bound
        exists below 10,000 x the data: the band allows a plateau under the target."""
        value = float(form_samples(self.form, target, self.plateau, self.n0, self.b, self.x_ref))
        xs = np.geomspace(max(self.x_min / 100.0, 1.0), self.x_max * 1e4, 500)
        lo: float | None
        hi: float | None
        lo_edge, hi_edge = self._edges(xs)

        def first(edge: np.ndarray) -> float | None:
            idx = np.nonzero(edge >= target)[0]
            return float(xs[idx[0]]) if idx.size else None

        lo, hi = first(hi_edge), first(lo_edge)
        if math.isfinite(value):
            lo = value if lo is None else min(lo, value)
            hi = None if hi is None else max(hi, value)
        return Band(_finite(value), lo, hi)

    def band_frame(self, x_min: float, x_max: float, num: int = 60) -> pd.DataFrame:
        xs = np.geomspace(max(x_min, 1.0), max(x_max, x_min * 1.01, 2.0), num)
        lo, hi = self._edges(xs)
        mean = self.line(xs)
        return pd.DataFrame(
            {"samples": xs, "al": mean, "low": np.minimum(lo, mean), "high": np.maximum(hi, mean)},
            columns=["samples", "al", "low", "high"],
        )

    def summary(self) -> dict[str, Any]:
        forms = {
            "logistic": "AL(N) = 1 + (P - 1) / (1 + (N0 / N) ** b)",
            "weibull": "AL(N) = 1 + (P - 1) * (1 - exp(-(N / N0) ** b))",
            "power": "AL(N) = P - a * (N / x_ref) ** -b",
        }
        band_forms = sorted(set(self.draw_forms)) if self.draw_forms else [self.form]
        return {
            "form": forms[self.form] + ", 1 < P <= K + 1",
            "form_name": self.form,
            "band_forms": band_forms,
            "band": "likelihood-ratio profile over the forms" if self.region else "Student t draws of the line",
            "plateau": self.plateau,
            ("a" if self.form == "power" else "n0"): self.n0,
            "b": self.b,
            "x_ref": self.x_ref if self.form == "power" else None,
            "ceiling": self.ceiling,
            "steps": self.steps,
            "scope": self.scope,
            "points": self.n,
            "x_min": self.x_min,
            "x_max": self.x_max,
            "residual_se": self.residual_se,
            "parameter_sets": int(self.draws.shape[0]),
            "level": LEVEL,
            "label": self.label,
        }


def _bins(x: np.ndarray, y: np.ndarray, max_bins: int = MAX_BINS) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Average points into log-spaced bins (a training log can hold thousands of points); with the counts."""
    if x.size <= max_bins:
        return x, y, np.ones_like(x)
    edges = np.geomspace(x.min(), x.max() * (1 + 1e-12), max_bins + 1)
    idx = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, max_bins - 1)
    xs, ys, ws = [], [], []
    for i in range(max_bins):
        m = idx == i
        if m.any():
            xs.append(float(np.exp(np.log(x[m]).mean())))
            ys.append(float(y[m].mean()))
            ws.append(float(m.sum()))
    return np.array(xs), np.array(ys), np.array(ws)


def form_al(form: Form, x: Any, p1: Any, p2: Any, p3: Any) -> Any:
    """AL of one bounded form. logistic and weibull: (plateau, n0, b); power: (plateau, a, b), with x
    already divided by the fit's ``x_ref``."""
    if form == "logistic":
        return bounded_al(x, p1, p2, p3)
    if form == "weibull":
        return 1.0 + (p1 - 1.0) * (1.0 - np.exp(-((x / p2) ** p3)))
    return np.maximum(p1 - p2 * x ** (-p3), 1.0)


def _region(
    form: Form, x: np.ndarray, y: np.ndarray, w: np.ndarray, ceiling: float, g1: np.ndarray, g2: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """One form over a grid of its two nonlinear parameters (g1 = b; g2 = ln N0, or the power law's
    plateau), its linear one solved: the SSE is a parabola in it, so the confidence region at each grid
    point is an exact interval around the optimum.

    Returns (params at the optimum (m, 3), their SSE (m,), the parabola's curvature (m,), the index of
    the linear parameter in params)."""
    lx = np.log(x)
    bb, vv = np.meshgrid(g1, g2, indexing="ij")
    bb, vv = bb.ravel(), vv.ravel()
    if form == "power":  # y = P - a g: for fixed (b, P), linear in a
        g = np.exp(-bb[:, None] * lx[None, :])
        r = vv[:, None] - y[None, :]
        gw = g * w[None, :]
        gg = (gw * g).sum(axis=1)
        rg = (r * gw).sum(axis=1)
        rr = (r * r * w[None, :]).sum(axis=1)
        a = np.maximum(rg / np.maximum(gg, 1e-300), 0.0)
        sse = rr - 2 * a * rg + a * a * gg
        return np.column_stack([vv, a, bb]), sse, gg, 1
    yp = y - 1.0
    z = bb[:, None] * (lx[None, :] - vv[:, None])
    g = 1.0 / (1.0 + np.exp(-z)) if form == "logistic" else -np.expm1(-np.exp(np.minimum(z, 50.0)))
    gw = g * w[None, :]
    sy = gw @ yp
    gg = (gw * g).sum(axis=1)
    c = np.clip(sy / np.maximum(gg, 1e-300), 1e-9, ceiling - 1.0)
    sse = float((w * yp) @ yp) - 2 * c * sy + c * c * gg
    return np.column_stack([1.0 + c, np.exp(vv), bb]), sse, gg, 0


def _refined(
    form: Form, x: np.ndarray, y: np.ndarray, w: np.ndarray, ceiling: float, loose: float, rounds: int = 2
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """A coarse grid, then ``rounds`` finer ones, each over the box of the points so far within ``loose`` x
    the best SSE (a long curve's region is a narrow valley a coarse grid steps over)."""
    lx = np.log(x)
    p_lo = max(float(y.min()), 1.0 + 1e-6)  # a noisy curve's plateau can sit below its highest points
    if form == "power":
        g1 = np.geomspace(0.02, 3.0, 60)
        g2 = np.linspace(p_lo, ceiling, 80)
    else:
        span = max(float(lx.max() - lx.min()), math.log(2))
        g1 = np.geomspace(0.08, 4.0, 48)
        g2 = np.linspace(lx.min() - 3 * span - 2, lx.max() + 4 * span + 4, 96)
    params, sse, curv, lin = _region(form, x, y, w, ceiling, g1, g2)
    step1, step2 = g1[1] / g1[0], g2[1] - g2[0]
    for _ in range(rounds):
        near = sse <= float(sse.min()) * loose + 1e-12
        b_in = params[near, 2]
        v_in = params[near, 0] if form == "power" else np.log(params[near, 1])
        f1 = np.geomspace(max(b_in.min() / step1, 1e-3), b_in.max() * step1, 80)
        f2 = np.linspace(v_in.min() - step2, v_in.max() + step2, 80)
        if form == "power":
            f2 = np.clip(f2, p_lo, ceiling)
        p2, s2, c2, _ = _region(form, x, y, w, ceiling, f1, f2)
        params, sse, curv = np.vstack([params, p2]), np.concatenate([sse, s2]), np.concatenate([curv, c2])
        step1, step2 = f1[1] / f1[0], f2[1] - f2[0]
    return params, sse, curv, lin


def fit_curve_bounded(
    xs: Sequence[float] | np.ndarray,
    als: Sequence[float] | np.ndarray,
    *,
    steps: int,
    label: str = "",
    max_sets: int = 400_000,
) -> BoundedFit:
    """Fit a learning curve (x: samples seen) with three bounded forms: logistic in log N, Weibull and a
    saturating power law, each 1 < P <= K + 1. The line is the best-fitting form. The band is the
    likelihood-ratio confidence region over all three (every grid point whose weighted SSE is within
    ``1 + t^2 / dof`` of the best, the 95% profile threshold for one quantity): half a learning curve
    rarely tells the forms apart, and a bootstrap around one form's fit misses how differently they
    extrapolate (tests/test_plan.py measures the coverage)."""
    x = np.asarray(xs, dtype=float)
    y = np.asarray(als, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y) & (x > 0)
    x, y = x[keep], y[keep]
    if np.unique(x).size < 4:
        raise DataError(f"a bounded curve fit needs at least 4 distinct sample counts, got {np.unique(x).size}")
    if x.max() < 2 * x.min():
        raise DataError("the curve's points span less than a doubling of samples: too short to extrapolate")
    ceiling = float(steps + 1)
    y = np.clip(y, 1.0, ceiling)
    bx, by, bw = _bins(x, y)
    x_ref = float(bx.max())
    dof = max(1, bx.size - 3)
    factor = 1.0 + 3.0 * f_quantile(LEVEL, 3, dof) / dof
    regions = {f: _refined(f, bx / x_ref if f == "power" else bx, by, bw, ceiling, factor * 1.5) for f in FORMS}
    best_form = min(FORMS, key=lambda f: float(regions[f][1].min()))
    best_params, best_sse, _, _ = regions[best_form]
    i = int(np.argmin(best_sse))
    # a floor under the residual SE: logged accuracies are rounded (EAGLE's trainer prints two decimals)
    # and the grid itself is not exact, so a near-perfect fit must not shrink the region to a point
    sse_min = max(float(best_sse[i]), MIN_NOISE**2 * dof)
    thr = sse_min * factor
    rows, forms = [], []
    for f in FORMS:
        params, sse, curv, lin = regions[f]
        inside = sse <= thr
        if not inside.any():
            continue
        p_in, half = params[inside], np.sqrt(np.maximum(thr - sse[inside], 0.0) / np.maximum(curv[inside], 1e-300))
        j = int(lin)
        lo_, hi_ = p_in.copy(), p_in.copy()
        if j == 0:  # the plateau: 1 < P <= K + 1
            lo_[:, 0] = np.maximum(p_in[:, 0] - half, 1.0 + 1e-9)
            hi_[:, 0] = np.minimum(p_in[:, 0] + half, ceiling)
        else:  # the power law's a >= 0
            lo_[:, 1] = np.maximum(p_in[:, 1] - half, 0.0)
            hi_[:, 1] = p_in[:, 1] + half
        inside_sets = np.vstack([p_in, lo_, hi_])
        if inside_sets.shape[0] > max_sets // len(FORMS):
            pick = np.random.default_rng(0).choice(inside_sets.shape[0], max_sets // len(FORMS), replace=False)
            inside_sets = inside_sets[pick]
        rows.append(inside_sets)
        forms += [f] * inside_sets.shape[0]
    draws = np.vstack(rows)
    p1, p2, p3 = (float(v) for v in best_params[i])
    return BoundedFit(
        plateau=p1,
        n0=p2,
        b=p3,
        ceiling=ceiling,
        steps=steps,
        scope="curve",
        n=int(bx.size),
        x_min=float(x.min()),
        x_max=float(x.max()),
        residual_se=math.sqrt(sse_min / max(1.0, float(bw.sum()) - 3)),
        draws=draws,
        label=label,
        form=best_form,
        draw_forms=tuple(forms),
        x_ref=x_ref,
        region=True,
        threshold=thr,
    )


def fit_pooled_bounded(
    xs: Sequence[float] | np.ndarray,
    als: Sequence[float] | np.ndarray,
    *,
    steps: int,
    draws: int = DRAWS,
    seed: int = 0,
    label: str = "",
) -> BoundedFit:
    """Published points (few, from different drafts): the plateau fixed at K + 1, a straight line in
    logit((AL - 1) / K) against log N, coefficients drawn from their Student t distribution."""
    x = np.asarray(xs, dtype=float)
    y = np.asarray(als, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y) & (x > 0)
    x, y = x[keep], y[keep]
    if np.unique(x).size < 3:
        raise DataError(f"a pooled fit needs at least 3 distinct training volumes, got {np.unique(x).size}")
    ceiling = float(steps + 1)
    frac = np.clip((y - 1.0) / steps, 0.01, 0.99)
    z = np.log(frac / (1 - frac))
    lx = np.log(x)
    design = np.column_stack([np.ones_like(lx), lx])
    coef, *_ = np.linalg.lstsq(design, z, rcond=None)
    resid = z - design @ coef
    n = x.size
    dof = n - 2
    s2 = float((resid**2).sum() / max(dof, 1))
    cov = s2 * np.linalg.inv(design.T @ design)
    rng = np.random.default_rng(seed)
    normal = rng.multivariate_normal(np.zeros(2), cov, size=draws)
    scale = np.sqrt(max(dof, 1) / rng.chisquare(max(dof, 1), size=draws))
    coefs = coef[None, :] + normal * scale[:, None]
    out = np.empty((draws, 3))
    out[:, 0] = ceiling
    slope = coefs[:, 1]
    out[:, 2] = np.where(slope > 0, slope, np.nan)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out[:, 1] = np.exp(-coefs[:, 0] / slope)
    # a non-positive slope: more data does not help in that draw (AL stays where it is at the data)
    flat = ~(slope > 0)
    out[flat, 2] = 1e-6
    out[flat, 1] = 1.0
    a, b = float(coef[0]), float(coef[1])
    if b <= 0:
        raise DataError("the pooled points do not rise with training volume: no samples can be named")
    return BoundedFit(
        plateau=ceiling,
        n0=math.exp(-a / b),
        b=b,
        ceiling=ceiling,
        steps=steps,
        scope="pooled",
        n=int(n),
        x_min=float(x.min()),
        x_max=float(x.max()),
        residual_se=math.sqrt(s2),
        draws=out,
        label=label,
    )


# ---------------------------------------------------------------------------------------------
# Offline evaluation (eval-draft --json), read defensively: it is another command's output


@dataclass(frozen=True)
class Offline:
    al_by_steps: dict[int, float]
    vocab_ceiling: float | None
    vocab_flags: tuple[str, ...]
    source: str


def read_offline(path: str | Path) -> Offline:
    """The parts of an ``eval-draft --json`` object a plan uses: AL by num_steps (``al_replay``, the
    serving-like number), the draft-vocabulary ceiling and the mapping findings."""
    p = Path(path)
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise InputError(f"cannot read {p}: {exc.strerror or exc}") from exc
    if size > MAX_OFFLINE_BYTES:
        raise DataError(f"{p.name} is {size:,} bytes; an eval-draft JSON file is at most {MAX_OFFLINE_BYTES:,}")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"{p.name} is not JSON: {exc}") from exc
    if not isinstance(data, Mapping) or not isinstance(data.get("by_steps"), list):
        raise DataError(f"{p.name}: expected eval-draft --json output with a 'by_steps' list")
    al: dict[int, float] = {}
    dropped: list[str] = []  # said, not dropped silently: an AL of 9.0 at 2 steps, a null, a step "x"
    for i, row in enumerate(data["by_steps"], 1):
        if not isinstance(row, Mapping):
            dropped.append(f"row {i} is not an object")
            continue
        k, v = number(row.get("steps")), number(row.get("al_replay"))
        if k is None or k < 1 or k != int(k):
            dropped.append(f"row {i}: steps {row.get('steps')!r} is not a number of steps")
        elif v is None:
            dropped.append(f"steps={int(k)}: al_replay {row.get('al_replay')!r} is not a number")
        elif not 1.0 <= v <= k + 1:
            dropped.append(f"steps={int(k)}: al_replay {v:g} is impossible (between 1 and {int(k) + 1})")
        else:
            al[int(k)] = float(v)
    if not al:
        why = "; ".join(dropped[:4]) or "the list is empty"
        raise DataError(f"{p.name}: no usable acceptance length by num_steps ({why})")
    raw_vocab = data.get("vocab")
    vocab: Mapping[str, Any] = raw_vocab if isinstance(raw_vocab, Mapping) else {}
    ceiling = None
    for key in ("ceiling", "coverage", "acc1_ceiling", "share_emittable"):
        v = number(vocab.get(key))
        if v is not None and 0 <= v <= 1:
            ceiling = float(v)
            break
    flags: list[str] = []
    for key in ("findings", "flags", "lint"):
        for item in vocab.get(key) or []:
            if isinstance(item, Mapping):
                sev = str(item.get("severity") or "error").lower()
                if sev in ("error", "warning"):
                    flags.append(f"{item.get('code') or sev}: {item.get('message') or ''}".strip(": "))
            elif isinstance(item, str):
                flags.append(item)
    left = f" (left out: {'; '.join(dropped[:4])}{'; ...' if len(dropped) > 4 else ''})" if dropped else ""
    return Offline(al, ceiling, tuple(flags), f"offline evaluation: {p.name}{left}")


# ---------------------------------------------------------------------------------------------
# A user's own training rate, from the timestamps in their console log

_STAMP = re.compile(rb"(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:[.,](\d+))?")
_STEP = re.compile(rb"(?:global_step\s*[=:]\s*|\bstep\s*[=:]?\s*)(\d+)", re.IGNORECASE)
RATE_WINDOW = 1024 * 1024  # bytes read at each end of a log for its first and last timestamped step


def _stamped_steps(block: bytes) -> list[tuple[float, int]]:
    out = []
    for line in block.splitlines():
        m, k = _STAMP.search(line), _STEP.search(line)
        if not m or not k:
            continue
        try:
            t = datetime.strptime(f"{m.group(1).decode()} {m.group(2).decode()}", "%Y-%m-%d %H:%M:%S")
        except ValueError:
            continue
        frac = float("0." + m.group(3).decode()) if m.group(3) else 0.0
        out.append((t.replace(tzinfo=UTC).timestamp() + frac, int(k.group(1))))
    return out


def rate_from_log(path: str | Path, batch_size: float) -> tuple[float, str] | None:
    """Training samples/s from a console log's timestamps: the first and the last line that carry both a
    timestamp (``YYYY-MM-DD HH:MM:SS``, as logging and torchrun prefixes write it) and a step (``step N``,
    ``global_step=N``), times ``batch_size`` samples per step. Reads at most 1 MiB at each end. TensorBoard
    event files (a run directory or a ``*tfevents*`` file) give the same from their events' wall times. None when
    the log has no such lines."""
    p = Path(path)
    if batch_size <= 0:
        return None
    if p.is_dir() or "tfevents" in p.name:
        span = traininglogs.event_span(p)
        if span is None:
            return None
        (t0, s0), (t1, s1) = span
        if t1 <= t0 or s1 <= s0:
            return None
        rate = (s1 - s0) * batch_size / (t1 - t0)
        return rate, (
            f"{p.name} (TensorBoard wall times): steps {s0:,}..{s1:,} in {t1 - t0:,.0f} s at {batch_size:g} "
            f"samples per step = {rate:.2f} samples/s"
        )
    if not p.is_file():
        return None
    size = p.stat().st_size
    with p.open("rb") as fh:
        head = fh.read(RATE_WINDOW)
        fh.seek(max(0, size - RATE_WINDOW))
        tail = fh.read(RATE_WINDOW)
    first, last = _stamped_steps(head), _stamped_steps(tail)
    if not first or not last:
        return None
    (t0, s0), (t1, s1) = first[0], last[-1]
    if t1 <= t0 or s1 <= s0:
        return None
    rate = (s1 - s0) * batch_size / (t1 - t0)
    return rate, (
        f"{p.name}: steps {s0:,}..{s1:,} in {t1 - t0:,.0f} s at {batch_size:g} samples per step = {rate:.2f} samples/s"
    )


# ---------------------------------------------------------------------------------------------
# Speed: tok/s at a batch size from the speedup model and the measured draft step


@dataclass(frozen=True)
class Speed:
    """The speedup model and a draft step per batch size (measured with torch, or flat).

    ``by_batch``: a model of each batch size (concurrency) the group measured a sweep at, ``model``'s among them.
    A batch with its own sweep reads its own runs; another batch's cycle is drawn through two measured ones
    (``anchors``), or held at the only measured one's, and says so (``measured_at``). Before, a group with
    sweeps at batch 1 and 32 gave batch 1 as the batch-32 figure divided by 32, labelled measured, and named a
    best num_steps at batch 1 that the batch-1 runs contradicted."""

    model: speedup.SpeedupModel
    step_ms: Callable[[int], float]  # drafting cost per step at a batch size
    served_steps: int
    step_source: str
    by_batch: Mapping[int, speedup.SpeedupModel] = field(default_factory=dict)
    step_delta: Callable[[int, int], float] | None = None  # recorded draft step at batch b less at batch c
    served_words: str = ""  # "2 at batch 8 (run #12, ...)": what is taken as served, and why

    def model_for(self, batch: int | None) -> speedup.SpeedupModel:
        """The sweep of ``batch`` where measured, else the nearest measured batch's (in ratio; the larger on a tie)."""
        if batch is None or not self.by_batch:
            return self.model
        if batch in self.by_batch:
            return self.by_batch[batch]
        return min(
            self.by_batch.values(), key=lambda m: (abs(math.log(batch / max(m.concurrency, 1))), -m.concurrency)
        )

    def measured_at(self, batch: int) -> bool:
        return self.model_for(batch).concurrency == batch

    def assumed_at(self, batch: int, k: int) -> speedup.SpeedupModel | None:
        """The batch measured at one num_steps (not ``k``) whose cycle at ``batch`` and ``k`` rests on the draft-step
        cost assumed there (``_batch_models`` splits its one cycle by it), else None. Walk AS: batch 32 measured at 3
        alone; 5 served there (5,285.9 tok/s) was sourced "(measured)" and 4 at batch 64 called an upper bound."""

        def assumed(m: speedup.SpeedupModel) -> speedup.SpeedupModel | None:
            ks = {p.num_steps for p in m.measured}
            return m if len(ks) == 1 and k not in ks and speedup.optimum_missing(m) else None

        if self.measured_at(batch):
            return assumed(self.model_for(batch))
        if self.bracketed(batch) is not None and k in self.run_steps(batch):
            return None
        pair = self.anchors(batch)
        if pair is None:
            return assumed(self.model_for(batch))
        if self.held_past(batch):
            return None if self._run_cycle(pair[1], k) is not None else assumed(pair[1])
        return assumed(pair[0]) or assumed(pair[1])

    def anchors(self, batch: int) -> tuple[speedup.SpeedupModel, speedup.SpeedupModel] | None:
        """The two measured batches an unmeasured ``batch``'s cycle is drawn through: the two around it, else the
        two nearest on its side; None with fewer than two measured batches. Holding batch 16's cycle at batch 64
        made batch 64 four times batch 16's tok/s: a decode cycle grows with the batch (a fixed weight read plus
        a cost per sequence), so the cycle is taken as linear in the batch between and past measured ones."""
        if batch in self.by_batch or len(self.by_batch) < 2:
            return None
        cs = sorted(self.by_batch)
        lower, upper = [c for c in cs if c < batch], [c for c in cs if c > batch]
        pair = (lower[-1], upper[0]) if lower and upper else (lower[-2], lower[-1]) if lower else (upper[0], upper[1])
        return self.by_batch[pair[0]], self.by_batch[pair[1]]

    def _own_step(self, batch: int, m: speedup.SpeedupModel) -> float:
        if m is self.model:
            return self.step_ms(batch)
        delta = self.step_delta(batch, m.concurrency) if self.step_delta is not None else 0.0
        return max(m.t_draft_ms + delta, 0.0)

    def _parts(self, batch: int, m: speedup.SpeedupModel, k: int | None = None) -> tuple[float, float, float]:
        """(fixed cost, checking per step, drafting per step) of a cycle at ``batch`` from the sweep ``m``; at a ``k``
        whose cycle ``m`` draws from the decode step (``SpeedupModel.floored``), the fixed cost that gives that
        cycle there (walk BN: the fitted line alone put num_steps 1 under the decode step)."""
        checking, draft = max(m.t_step_ms - m.t_draft_ms, 0.0), self._own_step(batch, m)
        if k is not None and m.floored(k):
            return m.cycle_ms(k) - k * (checking + m.t_draft_ms), checking, draft
        return m.t_verify_ms, checking, draft

    def measured_batches(self) -> tuple[int, ...]:
        """The batch sizes a sweep (or one run with its baseline) measured, smallest first."""
        return tuple(sorted(self.by_batch)) if self.by_batch else (self.model.concurrency,)

    def _held(self, batch: int, line: float, nearest: float) -> float:
        """A cost drawn through measured batches, held physical past them: past the largest measured batch it does
        not fall below that batch's (a larger batch never costs less a step), before the smallest it does not rise
        above that one's. Walk W: the line through batch 1's 23.3 ms and batch 8's 21.8 ms verification gave 9.7 ms
        at batch 64, while the measured baseline decode step was 21.3-22.5 ms."""
        cs = self.measured_batches()
        if batch > cs[-1]:
            return max(line, nearest)
        if batch < cs[0]:
            return max(min(line, nearest), 0.0)
        return max(line, 0.0)

    def held_past(self, batch: int) -> bool:
        """Whether ``batch``, past the largest measured batch, takes that batch's cycle (and baseline step) as they
        are rather than the line through the two measured batches: where that line lowers a cost with the batch (a
        fixed cost, a per-step cost or the baseline's decode step), which no larger batch does, its slopes are the
        fits' noise in splitting a cycle, not a trend to draw 8x further. Walk W: batch 1's fit (23.3 ms fixed,
        3.10 ms a step) and batch 8's (21.8 ms, 3.87 ms) drew 9.7 ms and 10.0 ms at batch 64, and named num_steps
        1 there against 3 measured best at batch 1 and 8."""
        pair = self.anchors(batch)
        if pair is None or batch <= max(self.by_batch):
            return False
        a, b = pair
        pa, pb = self._parts(a.concurrency, a), self._parts(b.concurrency, b)
        falls = pb[0] < pa[0] or pb[1] + pb[2] < pa[1] + pa[2]
        sa, sb = a.baseline_step_ms, b.baseline_step_ms
        return falls or (sa is not None and sb is not None and sb < sa)

    def _run_cycle(self, m: speedup.SpeedupModel, k: int) -> float | None:
        """The cycle (ms) the runs of the sweep ``m`` measured at ``k`` steps: batch x AL / tok/s; None where they
        measured no tok/s or AL at ``k``."""
        tok, al = m.measured_tok_s(k), m.measured_accept(k)
        return m.concurrency * al / tok * 1000.0 if tok and al else None

    def bracketed(self, batch: int) -> tuple[speedup.SpeedupModel, speedup.SpeedupModel] | None:
        """The two measured batches either side of an unmeasured ``batch`` (None past them, or at a measured one)."""
        pair = self.anchors(batch)
        return pair if pair is not None and pair[0].concurrency < batch < pair[1].concurrency else None

    def run_steps(self, batch: int) -> tuple[int, ...]:
        """The num_steps whose cycle at ``batch`` is drawn through the runs themselves: measured (tok/s and AL) at
        both measured batches around it. Walk Y: batch 8 drawn through the batch-1 and batch-16 fits gave num_steps 3
        414.2 tok/s, +40.3 over num_steps 1, while the batch-16 fit was 13.4% above run #12 at num_steps 3; drawn
        through the runs, 380.1 against 371.2, and num_steps 2 (388.0) the fastest."""
        pair = self.bracketed(batch)
        if pair is None:
            return ()
        ks = sorted({p.num_steps for m in pair for p in m.measured if p.num_steps})
        return tuple(k for k in ks if all(self._run_cycle(m, k) is not None for m in pair))

    def model_steps(self, batch: int, ks: Sequence[int]) -> tuple[int, ...]:
        """Of ``ks``, those whose cycle at ``batch`` is drawn through each batch's fit (not measured at both)."""
        if self.bracketed(batch) is None:
            return ()
        ran = set(self.run_steps(batch))
        return tuple(k for k in ks if k not in ran)

    def _per_stream(self, batch: int, al: float, k: int, step_ms: Callable[[int], float] | None = None) -> float:
        """The speed model's tok/s of one stream at ``batch``: AL over the cycle (no cap). Between two measured
        batches that both measured ``k``, the cycle is drawn through those runs' own cycles, not the fits'."""
        pair = self.bracketed(batch)
        if pair is not None and k in self.run_steps(batch):
            a, b = pair
            ca, cb = self._run_cycle(a, k), self._run_cycle(b, k)
            assert ca is not None and cb is not None
            cycle = ca + (batch - a.concurrency) / (b.concurrency - a.concurrency) * (cb - ca)
            if step_ms is not None:  # another draft's step: its difference from this draft's at this batch
                cycle = max(cycle + k * (step_ms(batch) - self.step_ms(batch)), 1e-9)
            return al / cycle * 1000.0
        m = self.model_for(batch)
        verify, checking, draft = self._parts(batch, m, k)
        pair = self.anchors(batch)
        if pair is None and speedup.unphysical(m) and (own := self._run_cycle(m, k)) is not None:
            # walk BQ 2: a fit with a fixed cost under zero (cycles growing faster than linearly) put batch 4's
            # num_steps 2 at 89.1 tok/s a stream where its run's own cycle gives 85.4: the cycle held is the run's
            if step_ms is not None:  # another draft's step: its difference from this draft's at this batch
                own = max(own + k * (step_ms(batch) - self.step_ms(batch)), 1e-9)
            return al / own * 1000.0
        if pair is not None and self.held_past(batch):  # no physical line past them: the largest measured cycle
            m = pair[1]
            if (held := self._run_cycle(m, k)) is not None:
                # its runs' own cycle at ``k``, as measured, not the fit's: walk AD held batch 32's fit at num_steps 3
                # (15% under run #10) and capped num_steps 1 to run #9, and named 1 the best at batch 64
                if step_ms is not None:  # another draft's step: its difference from this draft's at this batch
                    held = max(held + k * (step_ms(batch) - self.step_ms(batch)), 1e-9)
                return al / held * 1000.0
            verify, checking, draft = self._parts(m.concurrency, m, k)
            pair = None
        if pair is not None:
            (a, b) = pair
            pa, pb = self._parts(a.concurrency, a, k), self._parts(b.concurrency, b, k)
            near = pb if abs(batch - b.concurrency) <= abs(batch - a.concurrency) else pa
            w = (batch - a.concurrency) / (b.concurrency - a.concurrency)
            v, c, d = (self._held(batch, x + w * (y - x), n) for x, y, n in zip(pa, pb, near, strict=True))
            if v + k * (c + d) > 0:  # a line drawn below zero (a small batch past two large ones): hold the nearest
                verify, checking, draft = v, c, d
        if step_ms is not None:  # another draft's step: its difference from this draft's at this batch
            draft = max(draft + step_ms(batch) - self.step_ms(batch), 0.0)
        cycle = verify + k * (checking + draft)
        return al / cycle * 1000.0

    def stream_cap(self, batch: int, al: float, k: int, step_ms: Callable[[int], float] | None = None) -> float | None:
        """The most one stream can do at an unmeasured ``batch``: at each smaller measured batch, what its runs
        measured a stream at ``k`` (scaled to the same AL and draft step), else the model's per-stream tok/s there. A
        bigger batch never makes each stream faster (walk W: 101.3 tok/s a stream predicted at batch 64 against 90.2
        measured at batch 1 and 8). None where no smaller batch was measured. Before walk AD the runs only lowered the
        model's figure: a fit under its run (batch 32's, 15% under run #10 at num_steps 3) capped that num_steps below
        what was measured while one over its run was capped to it, and the cap's rule differed by num_steps."""
        if self.measured_at(batch):
            return None
        caps = []
        for c in (c for c in self.measured_batches() if c < batch):
            m = self.by_batch.get(c, self.model)
            cap = self._per_stream(c, al, k, step_ms)
            measured, model_al = m.measured_tok_s(k), m.measured_accept(k)
            if measured is not None and model_al is not None and (own := self._per_stream(c, model_al, k)) > 0:
                # as its runs measured ``k`` there, not the fit (walk AD: the batch-32 fit 15% under run #10 capped
                # num_steps 3 at batch 64, while num_steps 1 was capped at run #9's measurement)
                cap *= measured / c / own
            caps.append(cap)
        return min(caps) if caps else None

    def tok_s(
        self, batch: int, al: float, k: int | None = None, step_ms: Callable[[int], float] | None = None
    ) -> float:
        k = self.served_steps if k is None else k
        per = self._per_stream(batch, al, k, step_ms)
        cap = self.stream_cap(batch, al, k, step_ms)
        return batch * (per if cap is None else min(per, cap))

    def baseline_tok_s(self, batch: int) -> float | None:
        """Tok/s without speculation at ``batch``: the measured baseline of that batch's sweep, else its decode step
        drawn through two measured batches' baselines (as the cycle is), else held at the nearest one's."""
        pair = self.anchors(batch)
        if pair is not None and self.held_past(batch):  # as the cycle: the largest measured batch's decode step
            step_b = pair[1].baseline_step_ms
            return batch / step_b * 1000.0 if step_b else None
        if pair is not None:
            a, b = pair
            sa, sb = a.baseline_step_ms, b.baseline_step_ms
            if sa is not None and sb is not None:
                near = sb if abs(batch - b.concurrency) <= abs(batch - a.concurrency) else sa
                step = self._held(
                    batch, sa + (batch - a.concurrency) / (b.concurrency - a.concurrency) * (sb - sa), near
                )
                if step > 0:
                    return batch / step * 1000.0
        step_ms = self.model_for(batch).baseline_step_ms
        return batch / step_ms * 1000.0 if step_ms else None

    def al_at(self, k: int, offline: Offline | None = None, batch: int | None = None) -> float:
        """AL at ``k`` steps: measured on the server at ``k`` (the sweep of ``batch``, else the served one), else
        offline replay, else the model's (``SpeedupModel.accept_at``: never below a measurement at fewer steps):
        the speedup page reads the same values, so both name the same best num_steps. A model value below a
        measurement at the same num_steps would contradict the user's own run."""
        m = self.model_for(batch)
        served = m.measured_accept(k)
        if served is not None:
            return served
        if m is not self.model and one_num_steps(m):  # one run's acceptance is no curve: the sweep's (walk S)
            m = self.model
            if (swept := m.measured_accept(k)) is not None:
                return swept
        if m.elsewhere_accept(k) is not None:  # measured on the server at another batch, before an offline replay
            return m.accept_at(k)
        if offline is not None and k in offline.al_by_steps:
            return offline.al_by_steps[k]
        return m.accept_at(k)


BATCH_ONLY = ("different concurrency", "different number of requests")  # what a run at another batch may differ in


def _like_the_sweep(runs: Sequence[Any], model: speedup.SpeedupModel) -> Callable[[Any], bool]:
    """Whether a run was measured as the sweep was, but for the batch: walk M drew its batch-64 cycle through an
    SGLang batch-1 fit and a vLLM batch-8 one, although the group held vLLM's batch-1 sweep too."""
    fitted = {p.run_id for p in model.measured}
    anchor = next((r for r in runs if r.id in fitted and not getattr(r, "is_baseline", False)), None)

    def like(r: Any) -> bool:
        if anchor is None:
            return True
        if getattr(r, "is_baseline", False):
            why = speedup.settings_mismatch(r, anchor, model_required=False)
        else:
            why = speedup.sweep_mismatch(r, anchor)
        # at another batch the number of requests is that batch's too (walk W: 12 at batch 1, 48 at batch 8, a
        # sweep each): compared within a batch, it is not a difference of the batch across two
        batch = any(w.startswith("different concurrency") for w in why)
        return all(w.startswith(BATCH_ONLY if batch else BATCH_ONLY[:1]) for w in why)

    return like


def unlike_the_sweep(runs: Sequence[Any], model: speedup.SpeedupModel) -> dict[int, str]:
    """Each other batch whose speculative runs all differ from the fitted sweep in more than the batch, with how (the
    first such run's ``speedup.sweep_mismatch``, less the batch's own words). Walk AO: imported batch-32 runs of the
    same engine and draft were said to differ in "engine or draft"; what differed was what the import left out."""
    fitted = {p.run_id for p in model.measured}
    anchor = next((r for r in runs if r.id in fitted and not getattr(r, "is_baseline", False)), None)
    like = _like_the_sweep(runs, model)
    out: dict[int, str] = {}
    spec = sorted((r for r in runs if not getattr(r, "is_baseline", False) and getattr(r, "num_steps", None)),
                  key=lambda r: r.id)  # fmt: skip
    for r in spec:
        c = integer(run_param(r, "concurrency"))
        if anchor is None or c is None or c == model.concurrency or c in out:
            continue
        if any(like(o) for o in spec if integer(run_param(o, "concurrency")) == c):
            continue
        why = [w for w in speedup.sweep_mismatch(r, anchor) if not w.startswith(BATCH_ONLY)]
        out[c] = (
            f"run #{r.id} (batch {c}) differs from the fitted sweep's run #{anchor.id} in more than the batch: "
            + "; ".join(why or ["its baseline differs"])
        )
    return out


# why a band of the bounded fit is narrower than the decimals shown (``values.band_text``)
BOUNDED_AGREE = "the fits your log allows agree there"
BOUNDED_CHANGE = "(the log's fit at the new volume - the log's fit at your volume)"  # the live-scale rule, in words


def _gain_fit(inputs: Inputs, steps: int) -> curves.CurveFit | None:
    """Your log's own fit as Acceptance vs data and `curve` fit it (``curves.fit_curve``: the power law, on the same
    points), whose gain band the plan's live-scale AL takes; None where it cannot be fitted."""
    try:
        return curves.fit_curve(
            inputs.curve_x, inputs.curve_al, x_unit="samples_seen", split="", tau_max=float(steps) + 1.0
        )
    except DataError:
        return None


def one_num_steps(m: speedup.SpeedupModel) -> bool:
    """A batch's model from runs at one num_steps: its cycle anchors the line through the batches (``_batch_models``),
    it is no sweep to pick a num_steps from."""
    return len({p.num_steps for p in m.measured}) < 2


def _batch_models(
    runs: Sequence[Any], model: speedup.SpeedupModel, step_ms: Callable[[int], float] | None = None
) -> tuple[dict[int, speedup.SpeedupModel], list[str]]:
    """A model of each batch size the group measured a sweep at (``model`` for its own), and why a batch's runs
    were not used; empty when the runs are at one batch size.

    A batch measured at one num_steps anchors the cycle there, with its baseline or without (a cycle is AL x batch /
    tok/s; walk BF's batch-8 run with no baseline was "no run measured"; walk S: batch 16's run #11 and baseline #10,
    while batch 64 was drawn from batch 1's cycle alone at 9x what batch 16 measured): its measured
    cycle is split into a fixed cost and a per-step cost by ``step_ms`` (the draft step the plan assumes at that
    batch) plus the sweep's cost of checking one more token. At its num_steps the line through the batches is the
    measured cycle whatever the split; at other num_steps it rests on that assumption, and the plan says so."""
    spec = [r for r in runs if not getattr(r, "is_baseline", False) and getattr(r, "num_steps", None)]
    concs = sorted({c for r in spec if (c := integer(run_param(r, "concurrency"))) is not None})
    if len(concs) < 2:
        return {}, []
    out: dict[int, speedup.SpeedupModel] = {model.concurrency: model}
    notes: list[str] = []
    like_the_sweep = _like_the_sweep(runs, model)
    unlike = unlike_the_sweep(runs, model)

    for c in concs:
        if c in out:
            continue
        at_c = [r for r in runs if integer(run_param(r, "concurrency")) == c and like_the_sweep(r)]
        if not any(not getattr(r, "is_baseline", False) for r in at_c):
            why = unlike.get(c, f"the batch-{c} runs differ from the fitted sweep in more than the batch")
            notes.append(f"batch {c} is not ranked at or fitted: {why}")
            continue
        try:  # acceptance measured at another batch stands in for an extrapolation (``with_accept_elsewhere``)
            m = speedup.model_from_runs(at_c, accept_from=runs)
        except (DataError, InputError) as exc:
            notes.append(f"the batch-{c} runs give no speed model ({exc})")
            continue
        missing = speedup.optimum_missing(m)
        if missing and one_num_steps(m) and step_ms is not None and m.measured:
            k0, runs_c = m.measured[0].num_steps, _run_ids(m)
            cycle, per_step = m.cycle_ms(k0), max(model.t_step_ms - model.t_draft_ms, 0.0) + step_ms(c)
            if cycle - k0 * per_step > 0:
                out[c] = replace(
                    m,
                    t_verify_ms=cycle - k0 * per_step,
                    t_step_ms=per_step,
                    t_draft_ms=step_ms(c),
                    notes=(
                        *m.notes,
                        f"one num_steps measured ({k0}, run {runs_c}): its {cycle:.2f} ms cycle anchors the batch; "
                        f"split by the per-step cost assumed there, {per_step:.3f} ms",
                    ),
                )
                continue
            notes.append(
                f"the batch-{c} run {runs_c} does not anchor the cycle there: its {cycle:.2f} ms cycle at num_steps "
                f"{k0} is shorter than {k0} draft steps of the {per_step:.3f} ms assumed"
            )
            continue
        if missing:
            notes.append(f"the batch-{c} runs do not fix a speed model yet ({'; '.join(missing)})")
            continue
        out[c] = m
    return out, notes


@dataclass(frozen=True)
class BatchPair:
    """A batch's speculative run (the fewest num_steps within noise of the fastest), measured like the fitted sweep
    but for the batch, and its baseline."""

    batch: int
    spec: Any
    baseline: Any
    ratio: float  # spec / baseline tok/s
    # every pair measured at this batch, fewest num_steps first (this one among them)
    every: tuple[BatchPair, ...] = ()

    @property
    def words(self) -> str:
        """ "run #11: 455.4 tok/s against 495.4 without, run #10, 0.92x" """
        return (
            f"run #{self.spec.id}: {self.spec.output_tokens_per_s:,.1f} tok/s against "
            f"{self.baseline.output_tokens_per_s:,.1f} without, run #{self.baseline.id}, {self.ratio:.2f}x"
        )

    @property
    def loses(self) -> bool:
        """Slower than its baseline beyond run-to-run noise."""
        return self.ratio < 1 - NOISE

    @property
    def all_lose(self) -> bool:
        """Every speculative run measured at this batch lost to its baseline beyond noise."""
        return all(p.loses for p in self.every or (self,))

    @property
    def lost_words(self) -> str:
        """ "(run #11: 455.4 tok/s against 495.4 without, run #10, 0.92x)"; where several num_steps were measured there
        and every one lost, each: "at every num_steps measured there (run #6, num_steps 2: 1,638.4 tok/s against
        1,743.0 without, run #5, 0.94x; run #7, num_steps 3: 1,464.1 tok/s, 0.84x)". The plan named only the fastest,
        so a batch where num_steps 2 and 3 both lost read as one run's loss."""
        if len(self.every) < 2 or not self.all_lose:
            return f"({self.words})"
        parts, said_base = [], None
        for p in self.every:
            tok = f"{p.spec.output_tokens_per_s:,.1f} tok/s"
            against = (
                f" against {p.baseline.output_tokens_per_s:,.1f} without, run #{p.baseline.id}"
                if p.baseline.id != said_base
                else ""
            )
            said_base = p.baseline.id
            parts.append(f"run #{p.spec.id}, num_steps {p.spec.num_steps}: {tok}{against}, {p.ratio:.2f}x")
        return f"at every num_steps measured there ({'; '.join(parts)})"


def batch_pairs(runs: Sequence[Any], model: speedup.SpeedupModel) -> dict[int, BatchPair]:
    """Each batch's measured pair (``BatchPair``): every comparable pair of the group at every batch, measured as
    the fitted sweep was. A batch whose fastest speculative run is slower than its baseline beyond noise contradicts
    a predicted gain there and at larger batches (walk S: 0.92x measured at batch 16, 4,603.1 tok/s "predicted" at
    batch 64 from batch 1's cycle)."""
    like = _like_the_sweep(runs, model)
    found: dict[int, list[BatchPair]] = {}
    for r in runs:
        if getattr(r, "is_baseline", False) or not r.output_tokens_per_s or not like(r):
            continue
        c = integer(run_param(r, "concurrency"))
        base = speedup.choose_baseline(runs, [r]) if c is not None else None
        ratio = speedup.speedup_against(r, base)[0] if base is not None else None
        if c is not None and ratio is not None:
            found.setdefault(c, []).append(BatchPair(c, r, base, ratio))
    out: dict[int, BatchPair] = {}
    for c, pairs in found.items():  # the speedup page's pick: within noise of the fastest, the fewest num_steps
        top = max(p.spec.output_tokens_per_s for p in pairs)
        near = [p for p in pairs if p.spec.output_tokens_per_s >= top * (1 - NOISE)]
        pick = min(near, key=lambda p: (p.spec.num_steps or 0, -p.spec.output_tokens_per_s))
        every = tuple(sorted(pairs, key=lambda p: (p.spec.num_steps or 0, p.spec.id)))
        out[c] = replace(pick, every=every)
    return out


def _served_measured(
    speed: Speed, pairs_at: Mapping[int, BatchPair], batch: int
) -> tuple[float, tuple[int, ...], str] | None:
    """What is served at ``batch`` as a run measured it: the tok/s of that batch's own sweep at the served num_steps
    (the mean of its runs there, as the speedup page reads a num_steps it measured), else that batch's measured pair
    when it is at the served num_steps; with its runs and whose they are. None where no run measured it."""
    k = speed.served_steps
    m = speed.model_for(batch)
    if speed.measured_at(batch) and (t := m.measured_tok_s(k)) is not None:
        return t, m.measured_runs(k), f"of the batch-{batch} store runs {_run_ids(m)}"
    p = pairs_at.get(batch)
    if p is not None and p.spec.num_steps == k and p.spec.output_tokens_per_s:
        return float(p.spec.output_tokens_per_s), (int(p.spec.id),), f"against baseline run #{p.baseline.id}"
    return None


def rank_batches(inputs: Inputs) -> tuple[int, ...]:
    """The batch sizes the plan ranks at, in order: 1, 8 and 64, and every batch where the draft's runs measured a
    pair (``batch_pairs``: a speculative run and its baseline, measured as the fitted sweep was). A user who measured
    batch 16 saw that pair in the notes but could rank only at 1, 8 or 64."""
    spec = [r for r in inputs.runs if not getattr(r, "is_baseline", False) and getattr(r, "num_steps", None)]
    measured: set[int] = set()
    if spec:
        try:
            measured = set(batch_pairs(inputs.runs, speedup.model_from_runs(list(inputs.runs))))
        except (DataError, InputError):  # no speed model: no pair to rank at, and build says why
            measured = set()
    return tuple(sorted(set(BATCHES) | {b for b in measured if b > 0}))


def _unlike_words(inputs: Inputs) -> dict[int, str]:
    """``unlike_the_sweep`` of the draft's runs under their speed model; empty where there is none."""
    try:
        return unlike_the_sweep(inputs.runs, speedup.model_from_runs(list(inputs.runs)))
    except (DataError, InputError):
        return {}


def plan_batches(rank_batch: int) -> tuple[int, ...]:
    """The batch sizes a plan gives every option's tok/s at: 1, 8, 64 and the batch it ranks at."""
    return tuple(sorted({*BATCHES, rank_batch}))


def _or_words(batches: Sequence[int]) -> str:
    """ "1, 8, 16 or 64" """
    words = [str(b) for b in batches]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def _scaled_from(speed: Speed, batch: int) -> str:
    """How an unmeasured batch's tok/s is predicted, in a few words (the plan's note groups batches by it)."""
    pair = speed.anchors(batch)
    if pair is None:
        c = speed.model_for(batch).concurrency
        return f"batch {c} runs (linear, cycle held at batch {c}'s" + (": an upper bound)" if batch > c else ")")
    a, b = (m.concurrency for m in pair)
    if speed.held_past(batch):  # walk W: a line lowering a cost with the batch is not drawn past them
        return (
            f"batch {a} and {b} runs (past them: {_held_words(speed, pair[1])}, as the line through them lowers a "
            f"cost with the batch, which no larger batch does; each stream no faster than at batch {a} and {b} at "
            f"the same num_steps, as measured where a run measured it, else as predicted there: an upper bound"
            + _assumed_tail(speed, pair[1])
            + ")"
        )
    where = "between" if a < batch < b else "past"
    return f"batch {a} and {b} runs (cycle time linear in the batch, {where} them)" + _through_runs(speed, batch)


def _held_steps(speed: Speed, m: speedup.SpeedupModel) -> tuple[int, ...]:
    """The num_steps whose cycle the runs of ``m`` measured (tok/s and AL): held as measured past its batch."""
    ks = sorted({p.num_steps for p in m.measured if p.num_steps})
    return tuple(k for k in ks if speed._run_cycle(m, k) is not None)


def _held_words(speed: Speed, m: speedup.SpeedupModel) -> str:
    """ "batch 32's runs' own cycles held at num_steps 1, 3 and 6 (#9, #10, #11), the batch-32 fit's at other
    num_steps": what a batch past the largest measured one holds, one rule for every num_steps (walk AD)."""
    c, ks = m.concurrency, _held_steps(speed, m)
    if not ks:
        return f"batch {c}'s fitted cycle held"
    runs = ", ".join(f"#{i}" for k in ks for i in m.measured_runs(k))
    rest = any(k not in ks for k in speedup.STEPS)
    return f"batch {c}'s runs' own cycles held at num_steps {_and_words(ks)} ({runs})" + (
        f", the batch-{c} fit's at other num_steps" if rest else ""
    )


def _and_words(items: Sequence[Any]) -> str:
    xs = [str(x) for x in items]
    return xs[0] if len(xs) == 1 else ", ".join(xs[:-1]) + " and " + xs[-1]


def _through_runs(speed: Speed, batch: int) -> str:
    """ ", drawn through the runs both batches measured at num_steps 1, 2, 3 and 5, and through each batch's fit at
    other num_steps": which num_steps an unmeasured batch between two measured ones reads from the runs (walk Y)."""
    ks = speed.run_steps(batch)
    if not ks:
        return ""
    return f", drawn through the runs both batches measured at num_steps {_and_words(ks)}" + (
        ", and through each batch's fit at other num_steps" if speed.model_steps(batch, speedup.STEPS) else ""
    )


def _fit_misses(speed: Speed, batch: int) -> str:
    """ "the batch-16 fit misses its runs by up to 13.4%, at num_steps 3 in run #12": how far the fits that an
    unmeasured batch's cycle is drawn through (at num_steps no run measured at both batches) miss their own runs;
    empty when within 3%."""
    pair = speed.bracketed(batch)
    if pair is None:
        return ""
    said = []
    for m in pair:
        c = m.concurrency
        vals = {
            k: speed._per_stream(c, al, k) * c
            for k in sorted({p.num_steps for p in m.measured if p.num_steps})
            if (al := m.measured_accept(k)) is not None
        }
        gaps = speedup.model_gaps(m, vals)
        if gaps:
            k, pred, meas, runs = max(gaps, key=lambda g: abs(g[1] / g[2] - 1))
            said.append(
                f"the batch-{c} fit misses its runs by up to {abs(pred / meas - 1):.1%}, at num_steps {k} in "
                f"{speedup.runs_text(runs)}"
            )
    return "; ".join(said)


def _assumed_words(m: speedup.SpeedupModel) -> str:
    """ "the per-step cost assumed at batch 32, 1.431 ms (run #2 measured num_steps 3 alone there)" """
    k0 = m.measured[0].num_steps
    runs = speedup.runs_text(m.measured_runs(k0))
    cost = f"{m.t_step_ms:.3f} ms"
    return f"the per-step cost assumed at batch {m.concurrency}, {cost} ({runs} measured num_steps {k0} alone there)"


def _assumed_tail(speed: Speed, m: speedup.SpeedupModel) -> str:
    """ " at num_steps 3; at other num_steps it rests on the per-step cost assumed ...": where a bound holds only
    at the num_steps a one-num_steps batch measured (walk AS: 169.0 tok/s a stream at batch 64 was called a bound)."""
    if not (one_num_steps(m) and m.measured and speedup.optimum_missing(m)) or speed.model is m:
        return ""
    return (
        f" at num_steps {m.measured[0].num_steps}; at other num_steps it rests on {_assumed_words(m)}, not measured: "
        "a prediction, not a bound"
    )


def _predicted_from(speed: Speed, batch: int, k: int | None = None) -> str:
    """ "predicted from batch 1 and 8 runs, an upper bound": an unmeasured batch's figure in a few words, with the
    caveat where its cycle is held at a smaller measured batch's (a larger batch's cycle is slower). At ``k`` resting
    on a step cost assumed at a batch measured at one num_steps, it says so, and no bound (walk AS)."""
    pair = speed.anchors(batch)
    on = speed.assumed_at(batch, k) if k is not None else None
    if on is not None:
        c = speed.model_for(batch).concurrency
        runs = f"batch {c} runs" if pair is None else f"batch {pair[0].concurrency} and {pair[1].concurrency} runs"
        bound = speed.held_past(batch) if pair is not None else batch > c
        return f"predicted from {runs}, on {_assumed_words(on)}, not measured" + (": no bound" if bound else "")
    if pair is None:
        c = speed.model_for(batch).concurrency
        return f"predicted from batch {c} runs" + (", an upper bound" if batch > c else "")
    a, b = (m.concurrency for m in pair)
    return f"predicted from batch {a} and {b} runs" + (", an upper bound" if speed.held_past(batch) else "")


def _scaled_source(speed: Speed, batch: int) -> str:
    pair = speed.anchors(batch)
    if pair is None:
        m = speed.model_for(batch)
        c = m.concurrency
        bound = (
            f"; a larger batch's cycle is slower, so this is an upper bound ({batch / c:g}x past the largest measured)"
            if batch > c
            else ""
        )
        if speedup.unphysical(m):  # walk BQ 2: the runs' own cycles, as the fit is no server's
            ks = _held_steps(speed, m)
            runs = ", ".join(f"#{i}" for k in ks for i in m.measured_runs(k))
            return (
                f"predicted from {_scaled_from(speed, batch)}: tok/s at batch {batch} = {batch} x AL over the "
                f"per-sequence cycle batch {c}'s runs measured at num_steps {_and_words(ks)} ({runs}: batch x AL / "
                f"tok/s of each run), taken as the same{bound} (the straight line fitted through them is no "
                f"server's, so no other num_steps is predicted); no run measured batch {batch}"
            )
        return (
            f"predicted from {_scaled_from(speed, batch)}: tok/s at batch {batch} = {batch} x AL over the "
            f"per-sequence cycle fitted on runs {_run_ids(m)} at batch {c}, taken as the same{bound}; "
            f"no run measured batch {batch}"
        )
    a, b = pair

    def fit(m: speedup.SpeedupModel) -> str:
        if not one_num_steps(m):
            return f"the batch-{m.concurrency} fit (runs {_run_ids(m)})"
        k0 = m.measured[0].num_steps
        return (
            f"the batch-{m.concurrency} cycle of run {_run_ids(m)} alone (one num_steps measured: its "
            f"{m.cycle_ms(k0):.2f} ms cycle at num_steps {k0} anchors the line, exact there; at other num_steps split "
            f"by the per-step cost assumed, {m.t_step_ms:.3f} ms)"
        )

    if speed.held_past(batch):
        ks_held = _held_steps(speed, b)
        runs_held = (
            f"the cycle batch {b.concurrency}'s runs measured at num_steps {_and_words(ks_held)} ("
            + ", ".join(f"#{i}" for k in ks_held for i in b.measured_runs(k))
            + ": batch x AL / tok/s of each run), and at other num_steps the cycle of "
            if ks_held
            else "the cycle of "
        )
        return (
            f"predicted from {_scaled_from(speed, batch)}: tok/s at batch {batch} = {batch} x AL over {runs_held}"
            f"{fit(b)}, taken as the same at batch {batch} (the line through it and {fit(a)} lowers a fixed or "
            f"per-step cost, or the baseline's decode step, with the batch, so it is not drawn past them), and each "
            f"stream at most as fast as at batch {a.concurrency} and {b.concurrency} at the same num_steps (as "
            "measured where a run measured it, else as predicted there); a larger batch's cycle is slower, so "
            f"this is an upper bound{_assumed_tail(speed, b)}; no run measured batch {batch}"
        )
    ks = speed.run_steps(batch)
    if ks:  # walk Y: the fits' line put num_steps 3 at 414.2 tok/s, the runs' at 380.1
        rest = speed.model_steps(batch, speedup.STEPS)
        misses = _fit_misses(speed, batch)

        def ran(m: speedup.SpeedupModel) -> str:
            return f"the batch-{m.concurrency} runs ({', '.join(f'#{i}' for k in ks for i in m.measured_runs(k))})"

        return (
            f"predicted from {_scaled_from(speed, batch)}: tok/s at batch {batch} = {batch} x AL over a cycle drawn, "
            f"at num_steps {_and_words(ks)}, through the cycles {ran(a)} and {ran(b)} measured (batch x AL / tok/s "
            "of each run)"
            + (
                f"; at num_steps {_and_words(rest)} its fixed and per-step costs are drawn through {fit(a)} and "
                f"{fit(b)}, as no run measured those at both batches" + (f" ({misses})" if misses else "")
                if rest
                else ""
            )
            + f"; no run measured batch {batch}"
        )
    return (
        f"predicted from {_scaled_from(speed, batch)}: tok/s at batch {batch} = {batch} x AL over a cycle whose fixed "
        f"and per-step costs are drawn through {fit(a)} and {fit(b)}; no run measured batch {batch}"
    )


def _fit_runs(speed: Speed) -> set[int]:
    """The run ids the speed model's fits read (sweeps and baselines, every batch)."""
    ids: set[int] = set()
    for m in {id(m): m for m in (speed.model, *speed.by_batch.values())}.values():
        ids |= set(m.fitted_run_ids) | {p.run_id for p in m.measured if p.run_id is not None}
        ids |= {m.baseline_run_id} if m.baseline_run_id is not None else set()
    return ids


def _outside_fit(runs: Sequence[Any], speed: Speed, batch: int) -> tuple[list[Any], list[str]]:
    """Runs at ``batch`` the speed model does not read (another engine's, walk AJ2: vLLM #12/#13 at batch 8 beside an
    SGLang fit at batch 1), and the fit's engines as Overview names them."""
    ids = _fit_runs(speed)
    engines = sorted({_engine_words(r) for r in runs if r.id in ids})
    at = [r for r in runs if r.id not in ids and integer(run_param(r, "concurrency")) == batch]
    return [r for r in at if r.output_tokens_per_s], engines


def _no_run_words(runs: Sequence[Any], speed: Speed, batch: int) -> str:
    """ "no run measured batch 8", true of every attached run; where runs outside the fit did (another engine's), who
    they are and that the fit is not theirs (walk AJ2: "no run measured batch 8" beside vLLM's #12 and #13)."""
    out, engines = _outside_fit(runs, speed, batch)
    if not out:
        return f"no run measured batch {batch}"
    by: dict[str, list[int]] = {}
    for r in out:
        by.setdefault(_engine_words(r), []).append(int(r.id))
    said = "; ".join(
        f"{e} {'run' if len(ids) == 1 else 'runs'} {_and_words([f'#{i}' for i in ids])} measured batch {batch}"
        for e, ids in by.items()
    )
    return f"no run in this fit measured batch {batch} ({said}; this fit's runs are {_and_words(engines)}'s)"


def _measured_beside(runs: Sequence[Any], speed: Speed, batch: int, k: int) -> str:
    """A chain at num_steps ``k`` that a run outside the fit measured at ``batch``, named beside a prediction there
    (" (vLLM run #13 measured 619.2 tok/s at num_steps 3 at batch 8, another engine ...)"); "" where none (AJ2)."""
    out, engines = _outside_fit(runs, speed, batch)
    found = [r for r in out if getattr(r, "num_steps", None) == k and (getattr(r, "topk", None) or 1) <= 1]
    said = [
        f"{_engine_words(r)} run #{r.id} measured {float(r.output_tokens_per_s):,.1f} tok/s at num_steps {k} at "
        f"batch {batch}"
        + (f", another engine than the fit's, {_and_words(engines)}" if _engine_words(r) not in engines else "")
        for r in found
    ]
    return f" ({'; '.join(said)})" if said else ""


def _run_ids(model: speedup.SpeedupModel) -> str:
    return ", ".join(f"#{p.run_id}" for p in model.measured if p.run_id is not None) or "of the sweep"


def _record_for(label: str) -> dict[str, Any] | None:
    for path in draftcost.recorded_files():
        try:
            data = draftcost.load_recorded(path)
        except Exception:  # a malformed recorded file: the flat assumption below says so
            continue
        for d in data.get("drafts") or []:
            if str(d.get("draft")) == label:
                return {**d, "_file": path.name, "_device": data.get("device_name")}
    return None


def _own_published(inputs: Inputs, benchmark: str, chain: str) -> tuple[float, str] | None:
    return own_published(inputs.published, inputs.draft_label, benchmark, chain)


def own_published(pub: pd.DataFrame | None, draft: str, benchmark: str, chain: str) -> tuple[float, str] | None:
    """Your draft's own published acceptance on ``benchmark`` at ``chain`` (a published draft pasted as yours), and
    its setting: the highest where several settings of the chain are published; None for a draft not published."""
    if pub is None or not len(pub) or "chain" not in pub.columns:
        return None
    rows = pub[
        (pub["draft"].astype(str).str.lower() == draft.lower())
        & (pub["benchmark"].astype(str) == benchmark)
        & (pub["chain"].astype(str) == chain)
    ]
    rows = rows[pd.to_numeric(rows["accept_length"], errors="coerce").notna()]
    if not len(rows):
        return None
    best = rows.loc[pd.to_numeric(rows["accept_length"]).idxmax()]
    return float(best["accept_length"]), str(best["setting_key"])


def _sentence(text: str) -> str:
    """A clause as a sentence of its own: capital first letter, closing full stop."""
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


def step_function(model: speedup.SpeedupModel, record: Mapping[str, Any] | None) -> tuple[Callable[[int], float], str]:
    """Drafting cost per step at each batch: the model's (at its concurrency) moved by what the recorded
    draft-cost figures measured between that batch and the model's concurrency; flat without figures. A single
    run's cycle that is not split (``speedup.cycle_held``) has no step cost to state: "0.000 ms" read as measured
    (walk BC)."""
    if speedup.cycle_held(model):
        cycle = model.t_verify_ms  # the whole cycle: held as verification
        return (lambda _b: model.t_draft_ms), (
            f"draft step not known: one num_steps was measured at concurrency {model.concurrency}, and its "
            f"{cycle:.2f} ms cycle is not split into verification and drafting"
        )
    if record is None:
        return (lambda _b: model.t_draft_ms), (
            f"draft step {model.t_draft_ms:.3f} ms ({model.method} at concurrency {model.concurrency}), "
            "assumed equal at every batch size (no draft-cost figures recorded for this draft)"
        )
    base, _ = draftcost.step_ms_for_batch(record, model.concurrency)

    def fn(b: int) -> float:
        ms, _ = draftcost.step_ms_for_batch(record, b)
        return max(model.t_draft_ms + ms - base, 0.0)

    return fn, (
        f"draft step per batch from draft-cost figures measured on {record.get('_device')} "
        f"({record.get('_file')}), anchored at the sweep's concurrency {model.concurrency}"
    )


# ---------------------------------------------------------------------------------------------
# The plan


@dataclass
class Option:
    kind: Kind
    title: str
    al: Band | None = None
    samples_needed: Band | None = None
    generation: Band = field(default_factory=lambda: Band(0.0, 0.0, 0.0))
    training: Band = field(default_factory=lambda: Band(0.0, 0.0, 0.0))
    storage: Band = field(default_factory=lambda: Band(0.0, 0.0, 0.0))
    tok_s: dict[str, Band] = field(default_factory=dict)
    gain: Band | None = None  # tok/s gained at the ranking batch size
    evidence: list[dict[str, Any]] = field(default_factory=list)
    note: str = ""
    blocking: bool = False  # a wiring error: nothing else is worth measuring first
    weighed_down: bool = False  # your own evidence (a plateaued training log) says its predicted gain is not yours
    al_steps: int | None = None  # the num_steps ``al`` is stated at
    # batches where the row's tok/s is a measurement, and its runs ("run #4"): never labelled with the current's
    # prediction there (walk BF: the num_steps row's bs8 679.7, run #4's, read "(predicted: predicted-3)")
    measured: dict[str, str] = field(default_factory=dict)

    @property
    def total(self) -> Band:
        parts = (self.generation, self.training)

        def add(attr: str) -> float | None:
            vals = [getattr(p, attr) for p in parts]
            return None if any(v is None for v in vals) else float(sum(vals))

        return Band(add("value"), add("low"), add("high"))

    @property
    def per_gpu_hour(self) -> float | None:
        """tok/s gained per GPU-hour (inf for a free change that gains; None for a free one that does not: walk AT's
        free tree row losing 2.4 tok/s read "0.000" per GPU-hour, where the free num_steps row read none)."""
        if self.gain is None or self.gain.value is None:
            return None
        cost = self.total.value
        if cost is None:
            return None
        if cost <= 0:
            return math.inf if self.gain.value > 0 else None
        return self.gain.value / cost

    def to_json(self) -> dict[str, Any]:
        ratio = self.per_gpu_hour
        return {
            "kind": self.kind,
            "title": self.title,
            "al": None if self.al is None else self.al.to_json(),
            "al_steps": self.al_steps,
            "samples_needed": None if self.samples_needed is None else self.samples_needed.to_json(),
            "gpu_hours": {
                "generation": self.generation.to_json(),
                "training": self.training.to_json(),
                "total": self.total.to_json(),
            },
            "storage_tb": self.storage.to_json(),
            "tok_s": {k: v.to_json() for k, v in self.tok_s.items()},
            "gain_tok_s": None if self.gain is None else self.gain.to_json(),
            "tok_s_per_gpu_hour": None if ratio is None else (None if math.isinf(ratio) else ratio),
            "free": self.total.value == 0,
            "evidence": self.evidence,
            "note": self.note,
            "tok_s_measured_in": dict(self.measured),
        }


@dataclass
class Plan:
    draft: str
    target_al: float | None
    target_al_source: str
    steps: int  # K of the acceptance figures (al, target_al)
    served_steps: int | None
    rank_batch: int
    gpu: str
    options: list[Option]
    current: dict[str, Any]
    fit: BoundedFit | None
    fit_note: str
    points: pd.DataFrame  # what the fit was made on (samples, al, kind)
    sources: list[Source]
    cost: dict[str, Any]
    log_note: str = ""  # how your training log was weighed against the published trend ("" when it was not)
    rank_batches: tuple[int, ...] = BATCHES  # the batch sizes this draft's plan can rank at (``rank_batches``)
    # measured batches it cannot rank at, with why (``unlike_the_sweep``): Overview's selector left them out unsaid
    unranked: dict[int, str] = field(default_factory=dict)
    benchmark: str = (
        "gsm8k"  # what the target AL is read on (and the pooled trend fitted on, unless ``fit_note`` says)
    )
    benchmark_source: str = ""  # how it was chosen where it was not given
    # the target AL less this is where it sits on the fit's axis: 0 on a published trend, the live run's AL less your
    # log's fit on your log's fit; None where the plan says the two are on other scales (``chart_target``)
    target_shift: float | None = None

    def chart_target(self) -> tuple[float, str] | None:
        """(AL on the fit's axis, its label) where the target can be drawn over the fit; None where the plan says the
        fit is on another scale (your log's tau_sim with no live run of the target's prompts at the chain): a GSM8K
        target drawn over it read as comparable with it (walk leftover)."""
        if self.target_al is None or self.target_shift is None or self.fit is None:
            return None
        bench = bench_label(self.benchmark)
        if self.fit.scope != "curve" or not self.target_shift:
            return self.target_al, f"target AL {self.target_al:g} ({bench})"
        at = self.target_al - self.target_shift
        return at, (
            f"target AL {self.target_al:g} ({bench}, live) = {at:.2f} on your log's scale (the live run's AL is "
            f"{self.target_shift:+.2f} from your log's fit)"
        )

    @property
    def batches(self) -> tuple[int, ...]:
        """The batch sizes every option's tok/s is given at: 1, 8, 64 and the ranking batch."""
        return plan_batches(self.rank_batch)

    def to_json(self) -> dict[str, Any]:
        return {
            "draft": self.draft,
            "options": [o.to_json() for o in self.options],
            "target_al": self.target_al,
            "target_al_source": self.target_al_source,
            "steps": self.steps,
            "served_steps": self.served_steps,
            "rank_batch": self.rank_batch,
            "rank_batches": list(self.rank_batches),
            "unranked": {str(b): why for b, why in sorted(self.unranked.items())},
            "benchmark": self.benchmark,
            "benchmark_source": self.benchmark_source or None,
            "gpu": self.gpu,
            "current": self.current,
            "fit": None if self.fit is None else self.fit.summary(),
            "fit_note": self.fit_note,
            "cost_model": self.cost,
            "sources": [s.to_json() for s in self.sources],
            "log_note": _log_note_outside_row(self.log_note) or None,
        }

    @property
    def noise(self) -> float:
        """Run-to-run noise in tok/s at the ranking batch: a gain at or below it is no gain (``gains``)."""
        tok = self.current.get("tok_s") or {}
        return NOISE * float(tok.get(str(self.rank_batch)) or 0.0)

    def frame(self) -> pd.DataFrame:
        """One row per option, ranked: the table the Overview shows and exports."""
        rows = []
        for i, o in enumerate(self.options, 1):
            tot = o.total
            row: dict[str, Any] = {
                "rank": i,
                "option": o.title,
                "kind": o.kind,
                "al": o.al.value if o.al else None,
                "al_low": o.al.low if o.al else None,
                "al_high": o.al.high if o.al else None,
                # predicted: rounded as the note says them (``as_said``); ``to_json`` keeps the fit's own figures
                "samples_needed": as_said(o.samples_needed.value) if o.samples_needed else None,
                "samples_low": as_said(o.samples_needed.low) if o.samples_needed else None,
                "samples_high": as_said(o.samples_needed.high) if o.samples_needed else None,
                "gpu_hours": tot.value,
                "gpu_hours_low": tot.low,
                "gpu_hours_high": tot.high,
                "storage_tb": o.storage.value,
            }
            for b, band in o.tok_s.items():
                row[f"tok_s_bs{b}"] = band.value
            # walk BS 8: measured and predicted tok/s sat in sibling columns, told apart only in the note
            row["tok_s_basis"] = (
                "; ".join(
                    f"bs{b} measured ({o.measured[b]})" if b in o.measured else f"bs{b} predicted" for b in o.tok_s
                )
                or None
            )
            row["gain_tok_s"] = o.gain.value if o.gain else None
            ratio = o.per_gpu_hour
            row["per_gpu_hour"] = None if ratio is None or math.isinf(ratio) else ratio
            row["note"] = o.note
            rows.append(row)
        return pd.DataFrame(rows)

    def curve_frame(self) -> pd.DataFrame:
        """The fit's line and band over the plotted range (empty without a fit)."""
        if self.fit is None:
            return pd.DataFrame(columns=["samples", "al", "low", "high"])
        xs = [self.fit.x_min, self.fit.x_max]
        for o in self.options:
            if o.samples_needed is not None:
                xs += [v for v in (o.samples_needed.value, o.samples_needed.high) if v]
        hi = min(max(xs) * 1.5, self.fit.x_max * 1000)
        return self.fit.band_frame(self.fit.x_min / 1.5, hi)


def gains(o: Option, noise: float) -> bool:
    """Whether ``o`` gains tok/s beyond run-to-run noise (``noise`` tok/s at the ranking batch): a gain of 0,
    below 0 or within noise is no gain (a num_steps that ties the served one gains nothing)."""
    return o.gain is not None and o.gain.value is not None and o.gain.value > noise


def current_words(result: Plan) -> str:
    """What is served now at the ranking batch, which every gain there is against: measured (which run), predicted
    (from what), or not predicted (why); "" without a speed model. Where a tree of your draft measured faster there,
    the chain is said to be what every gain is against, not what is served, and the tree is named (walk X). Where the
    target's own MTP layers were measured faster than your draft, Overview's sentence follows (walk Z). The CLI prints
    it and Overview shows it above the table."""
    said = _current_words(result)
    mtp = _mtp_faster(result)
    return f"{said} {mtp}" if said and mtp else said


def _current_words(result: Plan) -> str:
    b = result.rank_batch
    cur = result.current
    tok = (cur.get("tok_s") or {}).get(str(b))
    measured = (cur.get("tok_s_measured") or {}).get(str(b))
    lost = (cur.get("tok_s_not_predicted") or {}).get(str(b))
    if measured is not None and tok is not None:
        runs = speedup.runs_text(measured["runs"])
        if tree := measured.get("tree_faster"):
            # walk X: "Served now" named the chain #7 (96.9 tok/s) beside the tree #9 measured at 114.7 there. The
            # chain is what every gain is set against (the speed model predicts chains only), not what is served
            t = float(tree["tok_s"])
            return (
                f"What every gain at batch {b} is against: a chain, {tok:,.1f} tok/s measured ({runs}, num_steps "
                f"{measured['num_steps']}), as the speed model predicts chains only. A tree measured faster there: "
                f"{t:,.1f} tok/s (run #{tree['run']}, {tree['shape']}), {t - tok:,.1f} more (the tree option); if "
                f"you serve it, a chain option predicted below {t:,.1f} tok/s at batch {b} is slower than what you "
                "serve."
            )
        return (
            f"Served now at batch {b}: {tok:,.1f} tok/s, measured ({runs}, num_steps {measured['num_steps']}); every "
            f"gain at batch {b} is against it."
        )
    if tok is not None:
        src = next((s.text for s in result.sources if s.id == (cur.get("tok_s_source") or {}).get(str(b))), "")
        how = src.split(": tok/s at batch", 1)[0] if src.startswith("predicted") else f"by the {src or 'speed model'}"
        return (
            f"Served now at batch {b}: {tok:,.1f} tok/s at num_steps {result.served_steps}, {how} (no run measured it "
            f"at batch {b}); every gain at batch {b} is against it."
        )
    if lost:
        return f"Served now at batch {b}: no speculative tok/s is predicted there: {lost}."
    return ""


_MORE_DATA_TITLE = "More training data (same draft, same recipe)"


RISING_LOG = "Your training log (Acceptance vs data) is still rising"  # the more-data row's note on a rising log


def _log_note_outside_row(note: str) -> str:
    """The log's note said away from the more-data row, whose "this row" would name another option."""
    return note.replace(
        "(this row's new samples)", f'(the new samples of the row "{_MORE_DATA_TITLE.split(" (")[0]}")'
    )


def _mtp_faster(result: Plan, key: str = "sentence") -> str:
    """Overview's sentence (``overview.native_mtp``) where the target's own MTP layers were measured faster than your
    draft, else "": ``key`` "short" for the lead."""
    mtp = result.current.get("native_mtp") or {}
    return str(mtp.get(key) or "") if mtp.get("verdict") == "faster" else ""


def _mtp_at_rank(result: Plan) -> str:
    """Where the MTP layers were faster at other batches than the plan's: the plan's batch named, with what was
    measured there (walk AM: ranked at batch 8, the lead ended "not what is fastest to serve at batch 1 now", where
    your draft measured faster at batch 8); "" where the plan's batch is among the faster ones or was not compared."""
    mtp = result.current.get("native_mtp") or {}
    b = result.rank_batch
    here = next((p for p in mtp.get("per_batch") or () if p.get("batch") == b), None)
    if here is None or here.get("verdict") == "faster":
        return ""
    said = (
        f"your draft measured faster than them (your run #{here['your_run_id']} at {here['your_tok_s']:,.1f} tok/s "
        f"against run #{here['mtp_run_id']} at {here['mtp_tok_s']:,.1f} tok/s)"
        if here.get("verdict") == "slower"
        else "the two measured within 2% of each other (a tie)"
    )
    return f" This plan ranks at batch {b}, where {said}."


def lead(result: Plan) -> str | None:
    """Overview's one-paragraph lead of the plan: the first option, its samples and GPU-hours. "Ranked first"
    only for an option that gains beyond noise (or a wiring error): over options that gain nothing it read as
    a recommendation to change something."""
    first = result.options[0] if result.options else None
    if first is None:
        return None
    unknown = first.gain is None or first.gain.value is None  # not predicted: not "no gain" either
    met = result.current.get("target_met_by_run") is not None or bool(result.current.get("target_met_by_published"))
    if first.kind == "more-data" and met and not gains(first, result.noise):
        # walk BG: "Ranked first: More training data" beside "Target already met by ...'s published figure"
        text = f"**The target is already met: {first.title} is not needed to reach it.** {first.note}"
    elif (
        first.kind == "more-data" and result.current.get("target_in_reach_by_trend") and not gains(first, result.noise)
    ):
        # walk BJ3: "Ranked first: More training data" for a row whose fit puts the target at or below your volume
        text = f"**{first.title}: not what the fit asks for, as it puts the target at or below your volume.** "
        text += first.note
    elif (first.blocking or unknown or gains(first, result.noise)) and not first.weighed_down:
        text = f"**Ranked first: {first.title}.** {first.note}"
    else:
        b = result.rank_batch  # walk AH3: "the served tok/s at batch 1" was a prediction; nothing was served there
        served = (
            f"served tok/s at batch {b}"
            if str(b) in (result.current.get("tok_s_measured") or {})
            else f"served setting's tok/s predicted at batch {b}, where no run measured it"
        )
        text = (
            f"**No option is predicted to gain beyond run-to-run noise ({result.noise:,.1f} tok/s, 2% of the "
            f"{served}).**{_beaten_elsewhere(result)} First listed: {first.title}. {first.note}"
        )
    if first.samples_needed is not None and first.samples_needed.value:
        tot = first.total
        hours = (
            tot.text(",.0f")
            if tot.value is not None  # no target count: generation is not costed, so there is no total
            else f"training {first.training.text(',.0f')}, hidden-state generation not costed"
        )
        seen = " seen" if first.kind == "more-data" and result.fit is not None and result.fit.scope == "curve" else ""
        text += (
            f" Samples{seen}: {first.samples_needed.words()}; GPU-hours on {result.gpu}: {hours}; "
            f"offline storage {first.storage.text(',.1f', ' TB')}."
        )
    if result.log_note and not first.weighed_down and result.log_note not in first.note:  # said there already
        # "this row" is the more-data row's own wording: under another option it named that option (walk AC C8)
        text += " " + _log_note_outside_row(result.log_note)
    if mtp := _mtp_faster(result, "short"):  # what to do first: your draft is not the fastest measured (walk Z)
        text += f" {mtp}{_mtp_at_rank(result)}"
    if first.kind != "more-data" and result.current.get("above_trend"):
        # unpredicted is not "no gain": walk R2 read "no option gains" while Acceptance vs data gave 1.6M samples;
        # beside a rising log (said above) it is how much more data adds that is not predicted (walk AL4)
        text += (
            " How much more training data adds is not predicted for your draft, which the published trend does not "
            "place: see its row."
            if result.log_note.startswith(RISING_LOG)
            else " More training data is not predicted for your draft, which the published trend does not place: see "
            "its row."
        )
    return text


def _beaten_elsewhere(result: Plan) -> str:
    """ " At batch 32, though, num_steps 2 measured 1,734.8 tok/s (run #23), +18.2% over the served 3's 1,467.1 (run
    #24): see the num_steps row.": beside "no option gains" at the ranking batch, where another batch's runs measured
    its best beyond noise over the served num_steps (walk BZ 1: the lead said nothing gains, its row +18.2%)."""
    said = []
    for d in result.current.get("served_beaten") or ():
        best = (
            f"measured {d['best_tok_s']:,.1f} tok/s ({speedup.runs_text(d['best_runs'])})"
            if d["best_runs"]
            else f"is predicted at {d['best_tok_s']:,.1f} tok/s"
        )
        gain = d["best_tok_s"] / d["served_tok_s"] - 1
        said.append(
            f"at batch {d['batch']} num_steps {d['best_steps']} {best}, {gain:+.1%} over the served "
            f"{d['served_steps']}'s {d['served_tok_s']:,.1f} ({speedup.runs_text(d['served_runs'])})"
        )
    if not said:
        return ""
    words = _and_words(said)
    return f" {words[0].upper()}{words[1:]}, though: see the num_steps row."


def rank_key(o: Option, noise: float) -> tuple[int, int, int, float, float]:
    """Wiring errors first; then gains whose whole band clears run-to-run noise, by tok/s per GPU-hour;
    then gains that only might (their band reaches below noise, or has no lower bound); then the rest:
    options with a gain before those without (a zero-gain num_steps led an uncosted +61.8 tok/s), a known
    cost before an unknown one (an uncosted option led the plan), then by gain. Free changes that gain (a
    num_steps, a measured tree) all have an unbounded tok/s per GPU-hour: the larger gain goes first."""
    if o.blocking:
        return (0, 0, 0, 0.0, 0.0)
    ratio, gain = o.per_gpu_hour, o.gain
    gained = -(gain.value if gain is not None and gain.value is not None else -math.inf)
    if o.weighed_down:  # your own evidence contradicts its predicted gain: after every other option
        return (4, 0, 0, gained, 0.0)
    if ratio is None or gain is None or gain.value is None or gain.value <= noise:
        no_gain = int(not gains(o, noise))
        uncosted = int(o.total.value is None) if not no_gain else 0  # without a gain, the order as built
        return (3, no_gain, uncosted, gained, 0.0)
    if gain.low is None or gain.low <= noise:
        return (2, 0, 0, -ratio, gained)
    return (1, 0, 0, -ratio, gained)


def _source(sources: list[Source], kind: SourceKind, text: str) -> str:
    for s in sources:
        if s.text == text:
            return s.id
    sid = f"{kind}-{sum(1 for s in sources if s.kind == kind) + 1}"
    sources.append(Source(sid, kind, text))
    return sid


def _storage_words(storage: Band, cost: CostModel, given: bool) -> str:
    """The row's offline storage and the tokens per sample it assumes (walk AN: "135.9 TB offline storage for 2.88M
    samples" was every sample at max_length 2,048 tokens, unsaid). "" where no storage is costed."""
    if not storage.value:
        return ""
    per_token = storage_bytes(1.0, cost.num_aux, cost.target_hidden)
    if given:
        basis = "your --tokens-per-sample"
    elif cost.tokens_source.startswith("measured"):
        basis = "the measured mean of the audit attached to the draft"
    else:
        basis = (
            "every sample at max_length, SpecForge's default, an upper bound: no audit measured your samples' mean "
            "length"
        )
    return (
        f" Offline storage {storage.text(',.1f', ' TB')}: the row's samples x {cost.tokens_per_sample:,.0f} tokens "
        f"per sample ({basis}) x {per_token:,.0f} B per token ({cost.num_aux + 1} hidden states of "
        f"{cost.target_hidden:,} x 2 B)."
    )


def _ev(what: str, value: Any, source: str) -> dict[str, Any]:
    return {"what": what, "value": value, "source": source}


@dataclass(frozen=True)
class Inputs:
    """Everything a plan reads, gathered by the CLI or the page."""

    draft_label: str
    draft_params: float  # trainable parameters outside the embedding
    target_label: str | None
    target_active: float | None
    target_lm_head: float
    target_hidden: int
    num_aux: int
    lint_errors: tuple[str, ...] = ()
    lint_warnings: tuple[str, ...] = ()
    runs: tuple[Any, ...] = ()
    own_samples: float | None = None
    own_samples_source: str = ""
    own_tokens: float | None = None  # total training tokens from the audit
    curve_x: tuple[float, ...] = ()
    curve_al: tuple[float, ...] = ()
    curve_steps: int | None = None
    curve_source: str = ""
    curve_set_aside: str = ""  # why the curve's own fit may not predict (``curves.fit_problems``); empty: it may
    published: pd.DataFrame | None = None  # scaling.published_points()
    family: str | None = None
    benchmark: str = "gsm8k"
    # False: ``benchmark`` is the one Acceptance vs data opens on for Overview's reference
    # (``scaling.default_benchmark``), not given; the pooled fit may then fall back to GSM8K where that benchmark
    # cannot be fitted, and says so
    benchmark_given: bool = True
    benchmark_source: str = ""  # how the benchmark was chosen, where it was not given
    offline: Offline | None = None
    step_record: Mapping[str, Any] | None = None
    candidates: tuple[tuple[str, float, Mapping[str, Any]], ...] = ()  # other drafts: label, params, draft-cost record
    # why ``target_active`` is unknown though the target's config was read: the parameter counter has no rules for
    # its architecture (``target_uncounted``); "" otherwise (walk BL5: "its config could not be read" of a read one)
    target_uncounted: str = ""
    runs_note: str = ""  # runs left out as served with another target, or the target models the runs mix
    group_runs: tuple[Any, ...] = ()  # the group's runs for the target, every draft's: what the reference is chosen by
    curve_verdict: str | None = None  # your training log's verdict (``curves``: "rising", "plateau", ...), if loaded
    curve_unused: str = ""  # why your training log could not be fitted (no samples seen), when it was not
    # an overfitting log's eval peak (``curves.Peak``): curve_x stops there; the points after it are left out of the
    # fit and drawn as such (walk S: a rising Weibull through an eval tail that fell 0.16 hid the fall); a plateau's
    # (a fall past noise not called overfitting, ``why_not``) is only said in its note, and nothing is cut
    curve_peak: Any = None
    curve_ceiling: str | None = None  # a log still rising but near its ceiling, in words (``Curve.ceiling_words``)
    curve_rise: str = ""  # a rising log's measured slope, in words (``Curve.rise_words``); "" for any other
    curve_left_out: tuple[tuple[float, float], ...] = ()  # (samples seen, tau_sim) after the peak: not fitted
    # with no target named: the published draft of your draft's hidden size and vocabulary (Overview's reference)
    shape_reference: str | None = None
    # "your acceptance": the run Overview and Acceptance vs data read it from (``overview.own_acceptance``); the
    # plan cites it where it drafts the plan's chain
    own_run: int | None = None
    # your draft's name (``draft.runs_of_draft``): the target's own MTP layers measured in ``group_runs`` are set
    # against its runs (``overview.native_mtp``), as Overview does
    draft_name: str | None = None


class Aim(tuple[float, str]):
    """A published target: (acceptance length, which draft and why), as a pair, with ``setting``, the setting key its
    source states the figure at ("steps=3,topk=1,draft=4" where it states no engine or batch size): a fit at another
    setting names it, never its own as the figure's (walk AE: "3.172 on GSM8K at ...,bs=8,sglang", a figure whose
    source states neither)."""

    setting: str | None

    def __new__(cls, accept_length: float, text: str, setting: str | None = None) -> Aim:
        aim = super().__new__(cls, (accept_length, text))
        aim.setting = setting
        return aim

    @classmethod
    def of(cls, row: Any, text: str) -> Aim:
        """The published point ``row``'s acceptance and setting key, with ``text``."""
        key = row.get("setting_key")
        return cls(float(row["accept_length"]), text, str(key) if isinstance(key, str) and key else None)


NO_TARGET = "your draft names no target"
# where your draft's config could not be read (a private repo before the token is typed): whether it names one is not
# known (walk BT 2: "your draft names no target" of a draft whose card names one); the pages say this instead
UNREAD_TARGET = "your draft could not be read, so its target is not known"


def published_target(
    points: pd.DataFrame,
    family: str | None,
    benchmark: str,
    chain: str,
    target: str | None = None,
    own: str | None = None,
    runs: Sequence[Any] = (),
    *,
    reference: str | None = None,
) -> Aim | None:
    """The published acceptance to aim at, and which draft it is and why that one (``Aim``: with the setting its
    source states it at).

    With no ``target``, ``reference`` (Overview's: a published draft of your draft's hidden size and vocabulary)
    comes first: a Llama-3 checkpoint naming no target was aimed at the Kimi-K2 draft's 3.271 while Overview compared
    it with the Llama-3.1-8B SpecForge draft.

    The draft of your own target first: Overview's reference (``overview.default_reference``) when it reports
    this benchmark at this chain, else the one of your target with the most training data that does; only then
    the family's (an org: Llama-3.1-8B, Llama-3.3-70B and Llama-4-Scout drafts tie at 1.4M samples, and the 8B
    one's 2.548 was a 70B draft's target where the 70B one reports 2.318), named as the family's and as a draft
    for another target (a Qwen3-30B-A3B draft was aimed at the Instruct-2507 draft's 2.64 as if it were its own).
    Overview's plan and Acceptance vs data's default target both read this (``default_target``); ``runs`` (your
    run group) go to the one chooser, so a published draft measured beside yours there is the reference here too.
    A draft for your own target needs a published acceptance here, not a published volume (walk T: the Ling-flash
    draft publishes GSM8K 3.44 and no sample count, and the plan aimed at the Kimi-K2 draft's 3.271); one without a
    volume is said to publish none, since the samples needed to reach it are the fit's."""
    # a target needs a published acceptance, not a published volume (walk T: the draft for your own target, which
    # publishes GSM8K 3.44 and no sample count, was passed over for another target's 3.271 with a volume)
    reported = points[
        (points["benchmark"] == benchmark) & (points["chain"] == chain) & points["accept_length"].notna()
    ]
    if reported.empty:
        return None
    volume = pd.to_numeric(reported["samples"], errors="coerce")
    sel = reported[volume.notna()]  # the drafts chosen by their training data (another target's, the family's)
    at = f"at {chain} on {benchmark}"
    no_volume = (
        "; it publishes no training volume, so the samples needed to reach it are the fit's, not read from this draft"
    )
    if target:
        from comparelib.analysis import overview

        mine = reported[reported["target_model"].astype(str).str.lower() == (model_id(target) or "").lower()]
        if own:  # your label is "org/name@rev" (walk AJ3: a published draft aimed at its own figure)
            mine = mine[mine["draft"].astype(str).str.lower() != (model_id(own) or "").lower()]
        chosen = overview.default_reference(overview.reference_choices(), own, target, runs)
        ref = chosen.hub_id
        most = pd.to_numeric(mine["samples"], errors="coerce")
        if (mine["draft"] == ref).any():
            row = mine[mine["draft"] == ref].iloc[0]
            n = number(row["samples"])
            why = {
                "side": "measured side by side with yours in your run group",
                "group": "measured in your run group",
            }.get(
                chosen.basis,
                "with the most training data" if n is not None and n >= most.max() else f"that reports {benchmark}",
            )
            return Aim.of(
                row,
                f"{ref} {at} (the published draft for your target {target} {why}, Overview's reference"
                + ("" if n is not None else no_volume)
                + ")",
            )
        if len(mine):
            counted = most.notna().any()
            row = mine.loc[most.idxmax()] if counted else mine.iloc[0]
            how = "with the most training data that reports" if counted else "that reports"
            return Aim.of(
                row,
                f"{row['draft']} {at} (the published draft for your target {target} {how} {benchmark} at {chain}"
                + ("" if number(row["samples"]) is not None else no_volume)
                + ")",
            )
        from comparelib.models.draft import model_family

        kin = reported[reported["draft"] == ref]
        if len(kin) and (fam := model_family(target)) and model_family(str(kin.iloc[0]["target_model"])) == fam:
            # the nearest draft of your target's family, Overview's reference (``overview.nearest_in_family``)
            row = kin.iloc[0]
            return Aim.of(
                row,
                f"{ref} {at} (no other published draft for your target {target} reports {benchmark} at {chain}; the "
                f"nearest is this one, a draft for {row['target_model']} (same family), Overview's reference)",
            )
    if not target and reference and (reported["draft"] == reference).any():
        row = reported[reported["draft"] == reference].iloc[0]
        return Aim.of(
            row,
            f"{reference} {at} (no target named: the published draft of your draft's hidden size and vocabulary, "
            "Overview's reference" + ("" if number(row["samples"]) is not None else no_volume) + ")",
        )
    if sel.empty:  # no draft to choose by its training data
        return None
    from comparelib.models.draft import family_words, model_size

    nearest = ""
    if family:
        fam = sel[sel["family"] == family]
        if len(fam):
            sel = fam
            size = model_size(target)
            if size:  # the target nearest yours in size first, as ``overview.nearest_in_family`` picks
                far = [abs(np.log(s / size)) if (s := model_size(str(t))) else np.inf for t in sel["target_model"]]
                sel = sel.assign(_far=far)
                sel = sel[sel["_far"] == sel["_far"].min()]
                if np.isfinite(sel["_far"].min()):
                    nearest = " for the target nearest yours in size,"
    best = sel.loc[pd.to_numeric(sel["samples"]).idxmax()]
    whose = (
        f"the {family_words(family)} family's draft{nearest}"
        if family and (sel["family"] == family).all()
        else "the published draft"
    )
    its = str(best.get("target_model") or "")
    other = f", a draft for {its}, not for your target" if target and its and its.lower() != target.lower() else ""
    if not target and its:  # walk V: a GLM draft naming no target was aimed at the Kimi-K2 draft's 3.271 unsaid
        other = f", a draft for {its}; {NO_TARGET}, so this is that model's figure, not a goal for yours"
    none_own = f"; no published draft for your target {target} reports {benchmark} at {chain}" if target else ""
    if target:
        none_own += _own_elsewhere(points, target, benchmark, chain)
    return Aim.of(best, f"{best['draft']} {at} ({whose} with the most training data{other}{none_own})")


def _own_elsewhere(points: pd.DataFrame, target: str, benchmark: str, chain: str) -> str:
    """Your target's own published figure on ``benchmark`` at another setting than ``chain``, and why it is not the
    target AL (walk AL: yuhuili/EAGLE3-Vicuna1.3-13B publishes GSM8K 6.29 on a dynamic tree at batch 1, while the
    plan aimed at a Kimi-K2 draft's 3.271 and said only that no draft of your target reports it at (3,1,4)); ""
    where it publishes none there."""
    mine = points[
        (points["benchmark"] == benchmark)
        & points["accept_length"].notna()
        & (points["target_model"].astype(str).str.lower() == (model_id(target) or "").lower())
    ]
    if mine.empty:
        return ""
    volume = pd.to_numeric(mine["samples"], errors="coerce")
    row = mine.loc[volume.idxmax()] if volume.notna().any() else mine.iloc[0]
    al = float(row["accept_length"])
    k = re.fullmatch(r"\((\d+),1,(\d+)\)", chain)
    reach = int(k.group(1)) + 1 if k else None
    why = (
        f"above the {reach} a {reach - 1}-step chain can reach"
        if reach is not None and al > reach
        else f"not at {chain}, so not the same measurement"
    )
    unstated = re.fullmatch(r"\((\d+),(\?|1),(\?|\d+)\)", str(row.get("chain") or ""))
    if reach is not None and unstated and "?" in unstated.group(0) and int(unstated.group(1)) == reach - 1:
        # walk AN: a (3,?,?) figure is the (3,1,4) chain only where its engine drafts only chains (vLLM's EAGLE,
        # ``registry.chain_setting``); where the source states no such engine, it may be a tree
        engine = row.get("engine")
        why = (
            f"its source states {reach - 1} steps but not the topk or the draft tokens"
            + ("" if isinstance(engine, str) and engine else ", nor an engine that drafts only chains")
            + f", so it may be a tree of {reach - 1} steps, not the {chain} chain"
        )
    return (
        f"; {row['draft']}, a draft for your target, publishes {bench_label(benchmark)} {al:g} at "
        f"{row['setting_key']}, {why}, so it is not the target AL here"
    )


_published_target = published_target  # the name the plan's callers and tests used


def opening_benchmark(
    points: pd.DataFrame,
    own: str | None,
    target: str | None,
    runs: Sequence[Any] = (),
    reference: str | None = None,
) -> tuple[str, str]:
    """The benchmark Acceptance vs data opens on, and why: the one Overview's reference (``reference``, else
    ``overview.default_reference`` for your target and run group) publishes most on (``scaling.benchmark_choice``:
    GSM8K first among equals; where it states no volume, a benchmark the trend can be fitted on), else GSM8K, the
    reason saying which branch. The plan reads its target AL and fits the published trend there, so both pages aim
    at one figure."""
    from comparelib.analysis import overview

    if reference is None:
        try:
            reference = overview.default_reference(overview.reference_choices(), own, target, runs).hub_id
        except (CompareError, KeyError, ValueError):
            reference = None
    bench, why = scaling.benchmark_choice(points, reference, f"{reference} (Overview's reference)")
    if not bench:
        return "gsm8k", "as no published draft states a training volume"
    return bench, f"{why}; Acceptance vs data opens on it too"


def registry_target(hub_id: str | None) -> str | None:
    """The target model a published draft is for, None when it is not in the registry."""
    from comparelib.errors import CompareError
    from comparelib.models import registry

    try:
        return registry.get_draft(hub_id).target_model or None if hub_id else None
    except CompareError:
        return None


@dataclass(frozen=True)
class MeasuredTarget:
    """Overview's reference measured beside your draft at the plan's chain: its run and acceptance length, and the
    figure as Acceptance vs data and the more-data row word it (its own prompts and setting, its draft's volume)."""

    al: float
    run: Any
    text: str
    figure: verdicts.MeasuredFigure


def measured_target(runs: Sequence[Any], own: str | None, target: str | None, chain: str) -> MeasuredTarget | None:
    """The AL Overview's reference measured in your run group beside your draft at ``chain``, if it did.

    Walk M: the reference measured 3.25 against your 2.82 side by side, Overview named training data the largest
    gap, and the plan aimed at the reference's published 2.548, said the target was met and claimed no gain."""
    if not runs or not target:
        return None
    from comparelib.analysis import overview
    from comparelib.models.registry import run_setting

    ref = overview.default_reference(overview.reference_choices(), own, target, runs).hub_id
    for pair in overview.side_by_side(runs, own, target):
        theirs = pair.theirs
        al = theirs.accept_length if theirs.accept_length is not None else theirs.accept_length_mean
        if pair.draft != ref or al is None or run_setting(theirs)[1] != chain:
            continue
        prompts = run_param(theirs, "prompt_set")
        return MeasuredTarget(
            float(al),
            theirs,
            f"{ref}'s AL measured beside yours: run #{theirs.id}, {float(al):.2f} at {pair.setting_words} "
            f"({pair.group or 'your run group'}; your run #{pair.yours.id} at the same setting)",
            verdicts.MeasuredFigure(
                float(al),
                theirs.id,
                ref,
                pair.setting_words,
                None if prompts is None else str(prompts),
                _published_volume(ref),
            ),
        )
    return None


def _published_volume(hub_id: str) -> float | None:
    """The training samples the registry publishes for ``hub_id``; None where it is not there or states none."""
    from comparelib.models import registry

    try:
        n = registry.get_draft(hub_id).train_samples
    except CompareError:
        return None
    return float(n) if n else None


def chain_of(points: pd.DataFrame, setting_key: str | None) -> str | None:
    return _chain_of(points, setting_key)


def _chain_of(points: pd.DataFrame, setting_key: str | None) -> str | None:
    """The chain "(K,1,K+1)" of a published setting, None where no point has it."""
    rows = points[points["setting_key"] == setting_key]["chain"].dropna() if setting_key else points.iloc[:0]
    return None if rows.empty else str(rows.iloc[0])


def beside_target(
    points: pd.DataFrame,
    *,
    setting_key: str | None,
    target: str | None,
    own: str | None = None,
    runs: Sequence[Any] = (),
) -> MeasuredTarget | None:
    """The measured target ``default_target`` opens Acceptance vs data on at ``setting_key``, where it is one (the
    reference measured beside yours); None where the default is published. The page words it with its own prompts
    (``verdicts.data_lead(measured=...)``), as the plan's more-data row does."""
    chain = _chain_of(points, setting_key)
    return None if chain is None else measured_target(runs, own, target, chain)


def default_target(
    points: pd.DataFrame,
    *,
    benchmark: str,
    setting_key: str | None = None,
    target: str | None,
    own: str | None = None,
    runs: Sequence[Any] = (),
    reference: str | None = None,
    chain: str | None = None,
) -> Aim | None:
    """The target AL a page opens on for ``setting_key`` (Acceptance vs data), or the plan aims at for ``chain``:
    ``published_target`` at that chain, with the family of ``target`` as the plan reads it, so the page and
    Overview's plan agree (the page opened on a round 3.00 while the plan aimed at a published 2.64). The plan calls
    it with the benchmark the page opens on (``opening_benchmark``; walk AD: the plan's GSM8K default aimed at
    another target's 2.64 while the page opened on the Qwen3-Coder draft's HumanEval 3.395)."""
    from comparelib.analysis.scaling import family_of

    if chain is None:
        chain = _chain_of(points, setting_key)
        if chain is None:
            return None
    beside = measured_target(runs, own, target, chain)
    if beside is not None:  # the plan's rule: the reference measured beside yours outweighs its published figure
        return Aim(beside.al, beside.text)
    family = family_of(target) if target else (family_of(registry_target(reference)) if reference else None)
    return published_target(
        points,
        family,
        benchmark.lower(),
        chain,
        target,
        own,
        runs,
        reference=None if target else reference,
    )


def _two_fits_words(loglin: float, logistic: float, n_points: int, steps: int) -> str:
    """The log-linear fit's samples beside the bounded logistic's, and why they differ; figures that read the same
    are said to agree (walk AR: "about 336K" both, then "so here the logistic needs more data")."""
    if human(loglin) == human(logistic):
        differ = f"puts the target at about the same, {human(loglin)} samples."
    else:
        differ = (
            f"puts the target at about {human(loglin)} samples. They differ in form, not data: the logistic's slope "
            f"in log N changes along it (steepest in its middle, flattening toward its ceiling K + 1 = {steps + 1}), "
            f"the line's stays fixed, so here the logistic needs {'more' if logistic > loglin else 'less'} data."
        )
    return (
        f" The log-linear fit on the same {n_points} points (AL linear in log N, the form Acceptance vs data draws, "
        f"no ceiling) {differ} Acceptance vs data fits its line to one setting's points, so its figure can differ "
        "again."
    )


def _loglinear_samples(xs: Any, ys: Any, target: float) -> float | None:
    """Where a straight line of AL against log10 N (Acceptance vs data's form, no ceiling) reaches ``target``
    over the same points as the pooled logistic: the figure set beside the logistic's, named as this fit's."""
    x = np.asarray(pd.to_numeric(pd.Series(xs), errors="coerce"), float)
    y = np.asarray(pd.to_numeric(pd.Series(ys), errors="coerce"), float)
    keep = np.isfinite(x) & np.isfinite(y) & (x > 0)
    x, y = x[keep], y[keep]
    if np.unique(x).size < 3:
        return None
    b, a = np.polyfit(np.log10(x), y, 1)
    if not b > 0:
        return None
    n = 10.0 ** ((target - a) / b)
    return float(n) if math.isfinite(n) else None


ABOVE_TREND = 0.10  # a measured AL this share above the pooled fit's at your volume sits off the published trend


def _measured_at_chain(
    runs: Sequence[Any], chain: str, rank_batch: int, own_run: int | None = None
) -> tuple[Any, float] | None:
    """The draft's own measured run at ``chain`` and its AL: "your acceptance" (``own_run``, the run Overview and
    Acceptance vs data read it from, ``overview.own_acceptance``) where it drafts that chain, else one at the
    ranking batch first, then the highest AL.

    Acceptance is the draft's, whatever the batch: a run at the target's chain that already reaches the target
    says more data is not needed to reach it (a plan ranked "more data" first for a target of 2.548 that run #6
    had measured 2.74 at). Walk W: the plan named run #7 (SGLang) where Overview and Acceptance vs data named run
    #16 (vLLM), both 2.91 at 3 steps."""
    from comparelib.models.registry import run_setting

    found: list[tuple[bool, float, Any]] = []
    for r in runs:
        if getattr(r, "is_baseline", False) or not getattr(r, "num_steps", None):
            continue
        al = r.accept_length if r.accept_length is not None else getattr(r, "accept_length_mean", None)
        if al is None or run_setting(r)[1] != chain:
            continue
        at_batch = number(run_param(r, "concurrency")) == rank_batch
        found.append((at_batch, float(al), r))
    if not found:
        return None
    if own_run is not None and (mine := next((t for t in found if t[2].id == own_run), None)) is not None:
        return mine[2], mine[1]
    _, al, run = max(found, key=lambda t: (t[0], t[1], -t[2].id))
    return run, al


def _engine_words(run: Any) -> str:
    """A run's engine as Overview names it ("SGLang", "vLLM")."""
    from comparelib.models import engines

    return engines.engine_word(str(getattr(run, "engine", "") or ""))


def _served_al_base(
    runs: Sequence[Any], chain: str, rank_batch: int, here: tuple[Any, float] | None, served_ids: Sequence[int]
) -> tuple[Any, float] | None:
    """The measured run a row that scales the served tok/s by an AL ratio counts its AL from: one of the runs that
    measured the served tok/s (``served_ids``) where it drafts ``chain``, else one on their engine, else ``here``.
    Walk AJ1: the more-data row said AL 2.90 from vLLM's run #11 (2.61) and scaled SGLang's served 88.7 tok/s (run
    #4, AL 2.79) by 2.90 / 2.61: one engine's speed by another's acceptance."""
    served = [r for r in runs if r.id in set(served_ids)]
    if not served or (here is not None and here[0].id in {r.id for r in served}):
        return here
    engine = getattr(served[0], "engine", None)
    if here is not None and getattr(here[0], "engine", None) == engine:
        return here
    return (
        _measured_at_chain(served, chain, rank_batch)
        or _measured_at_chain([r for r in runs if getattr(r, "engine", None) == engine], chain, rank_batch)
        or here
    )


def _own_target_against(fit: Any, use: pd.DataFrame, target: str | None) -> str:
    """Where a pooled fit runs above the published drafts of your own target at their volumes, in one sentence
    ("" where none or none below it): walk Y's plan named 771,629 samples to reach the Qwen3-30B-A3B draft's 2.64
    from a fit over every target that puts 2.78 at the 1.4M samples that draft needed for 2.64."""
    if not target or "target_model" not in use.columns:
        return ""
    mine = use[use["target_model"].astype(str).str.lower() == (model_id(target) or "").lower()]
    said: list[str] = []
    for _, row in mine.iterrows():
        n, al = number(row["samples"]), number(row["accept_length"])
        if n is None or al is None:
            continue
        trend = fit.al(float(n)).value
        if trend is not None and trend - al > 0.05:
            said.append(f"{row['draft']} published {al:.2f} at {human(n)} samples, where this fit gives {trend:.2f}")
    if not said:
        return ""
    return (
        f" The published draft{'s' if len(said) > 1 else ''} for your target sit{'' if len(said) > 1 else 's'} below "
        f"this pooled trend: {'; '.join(said)}. Your target may need more data than the trend says, so the samples "
        "named here may be too few."
    )


def _prompts_apart(run: Any, benchmark: str | None) -> str | None:
    """The prompts ``run`` was measured on, when recorded and not ``benchmark``: its AL is not on the scale of a
    figure on that benchmark, so it neither meets nor misses one (walk S: run #7 on the bundled prompts "met" the
    reference's GSM8K 2.318 through the ``--curve`` path, while the published-trend path left it out)."""
    from comparelib.analysis.verdicts import prompts_apart

    return prompts_apart(run_param(run, "prompt_set"), benchmark) if run is not None else None


def _apart_words(run: Any, al: float, chain: str, prompts: str, target_named: str, benchmark: str) -> str:
    """What was measured where, and that it is not compared with the target (``_prompts_apart``), in Acceptance vs
    data's words (``verdicts.not_on_one_scale``)."""
    from comparelib.analysis.verdicts import not_on_one_scale

    return not_on_one_scale(
        f"Run #{run.id}", al, chain, run_param(run, "concurrency"), prompts, target_named, benchmark
    )


_TREE_ONLY = ("different topk", "different num_draft_tokens")  # what a tree may differ in from its chains


def _chain_anchor(runs: Sequence[Any], model: speedup.SpeedupModel) -> Any | None:
    """The first speculative run ``model`` was fitted on; None where it fits none, or fits trees (topk > 1)."""
    fitted = set(model.fitted_run_ids) or {p.run_id for p in model.measured if p.run_id is not None}
    anchor = next((r for r in runs if r.id in fitted and not getattr(r, "is_baseline", False)), None)
    return None if anchor is None or (getattr(anchor, "topk", None) or 1) > 1 else anchor


def _measured_trees(
    runs: Sequence[Any], model: speedup.SpeedupModel, by_batch: Mapping[int, speedup.SpeedupModel] | None = None
) -> dict[int, Any]:
    """Your draft's fastest measured tree (topk > 1) at each batch size, measured as that batch's chains were but for
    its shape: at a batch with its own fitted chains (``by_batch``, or ``model``'s own batch) as those, the same
    number of requests among them; at another batch as the fitted chain sweep was but for the batch (and so the
    number of requests, as ``_like_the_sweep`` takes it). An imported run is not one (its conditions are not
    recorded). Walk X: every tree was checked against the batch-4 sweep (16 requests), so batch 1's tree, 8 requests
    as batch 1's chains, was left out on "different number of requests: 8 against 16"."""
    return {
        b: max(trees, key=lambda r: r.output_tokens_per_s)
        for b, trees in _trees_by_batch(runs, model, by_batch).items()
    }


def _trees_by_batch(
    runs: Sequence[Any], model: speedup.SpeedupModel, by_batch: Mapping[int, speedup.SpeedupModel] | None = None
) -> dict[int, list[Any]]:
    """Every tree of your draft measured at each batch size as ``_measured_trees`` takes them (each batch's fastest is
    its pick), in the order measured."""
    main = _chain_anchor(runs, model)
    if main is None:  # a fit of trees: no chain to set them beside
        return {}
    anchors = {
        c: a for c, m in {**(by_batch or {}), model.concurrency: model}.items() if (a := _chain_anchor(runs, m))
    }
    found: dict[int, list[Any]] = {}
    for r in runs:
        if getattr(r, "is_baseline", False) or (getattr(r, "topk", None) or 1) <= 1 or not r.output_tokens_per_s:
            continue
        if speedup.is_imported(r) or (b := integer(run_param(r, "concurrency"))) is None:
            continue
        why = speedup.sweep_mismatch(r, anchors.get(b, main))
        batch = any(w.startswith("different concurrency") for w in why)
        if not all(w.startswith(_TREE_ONLY + (BATCH_ONLY if batch else ())) for w in why):
            continue
        found.setdefault(b, []).append(r)
    return found


def _tree_shape(run: Any) -> tuple[Any, Any, Any]:
    """What makes two trees one configuration: num_steps, topk and draft tokens."""
    return (getattr(run, "num_steps", None), getattr(run, "topk", None), getattr(run, "num_draft_tokens", None))


def _tree_beats(runs: Sequence[Any], speed: Speed, batch: int) -> tuple[Any, float, float] | None:
    """(the tree, its tok/s, the served chain's measured tok/s) where a tree measured at ``batch``
    (``_measured_trees``) is faster than the served num_steps measured there; None elsewhere."""
    tree = _measured_trees(runs, speed.model, speed.by_batch).get(batch)
    if tree is None or not speed.measured_at(batch):
        return None
    chain = speed.model_for(batch).measured_tok_s(speed.served_steps)
    t = float(tree.output_tokens_per_s)
    return (tree, t, chain) if chain is not None and t > chain else None


def _tree_option(
    runs: Sequence[Any],
    speed: Speed,
    rank_batch: int,
    cur_tok: Mapping[int, float],
    sources: list[Source],
    model_src: str,
) -> Option | None:
    """Serving the tree your draft was measured with, where one was: its tok/s is measured, so is its gain.

    Walk Q: the plan said no option gains beyond noise (4.0 tok/s) while run #9, a tree, measured 6.5 tok/s over
    the best chain at batch 1; the speed model fits chains only, so no option could say it."""
    every = _trees_by_batch(runs, speed.model, speed.by_batch)
    fastest = {b: max(ts, key=lambda r: r.output_tokens_per_s) for b, ts in every.items()}
    if not fastest:
        return None
    # one configuration: the fastest tree at the ranking batch (else at the nearest batch that measured one), and that
    # same shape's runs at the other batches. Walk AC: the row named #6's 16 draft tokens and gave #11's 1,759.9
    # tok/s (8 draft tokens) at batch 16, where #12, the tree it named, measured 1,618.4
    at_b = (
        rank_batch
        if rank_batch in fastest
        else min(fastest, key=lambda b: (abs(math.log(b / max(rank_batch, 1))), -b))
    )
    first = fastest[at_b]
    shape = _tree_shape(first)
    mine = {
        b: max(same, key=lambda r: r.output_tokens_per_s)
        for b, ts in sorted(every.items())
        if (same := [r for r in ts if _tree_shape(r) == shape])
    }
    o = Option("tree", f"Serve the measured tree ({speedup.shape_words(first)}) at batch {at_b}")
    o.tok_s = {str(b): Band(*([float(r.output_tokens_per_s)] * 3)) for b, r in mine.items()}
    o.measured = {str(b): f"run #{r.id}" for b, r in mine.items()}  # each a tree's run, as measured
    parts: list[str] = []
    lost_at: list[str] = []  # batches where every tree measured lost to the best chain there, beyond noise

    def best_chain(b: int) -> tuple[float, Any] | None:
        m = speed.model_for(b)
        chains = [(p.tok_s, p) for p in m.measured if p.tok_s] if speed.measured_at(b) else []
        return max(chains, key=lambda cp: cp[0]) if chains else None

    def against_chain(r: Any, c: float) -> str:
        d = float(r.output_tokens_per_s) - c
        if abs(d) <= NOISE * c:
            return f"within {NOISE:.0%} of it: a tie within run-to-run noise"
        return f"{abs(d):,.1f} tok/s {'above' if d > 0 else 'below'} it"

    for b in sorted(every):
        r = mine.get(b)
        chain = best_chain(b)
        other = fastest[b] if r is None or fastest[b].output_tokens_per_s > r.output_tokens_per_s else None
        if chain is not None and all(t.output_tokens_per_s < chain[0] * (1 - NOISE) for t in every[b]):
            c, p = chain
            lost_at.append(
                f"at batch {b} every tree measured slower than the best chain there (num_steps "
                f"{p.num_steps}, run #{p.run_id}, {c:,.1f} tok/s), so serve that chain at batch {b}"
            )
        if r is None:
            head = f"batch {b}: this tree was not measured"
        else:
            t = float(r.output_tokens_per_s)
            head = f"batch {b}: run {speedup.run_ref(r)} ({speedup.shape_words(r)}) measured {t:,.1f} tok/s"
            base = speedup.choose_baseline(runs, [r])  # its own batch's baseline, measured as it was
            ratio = speedup.speedup_against(r, base)[0] if base is not None else None
            against_base = (
                f", {ratio:.2f}x its baseline, run #{base.id}" if ratio is not None and base is not None else ""
            )
            if chain is None:
                head += f"{against_base}; no chain was measured at batch {b} to set it beside"
            else:
                c, p = chain
                head += (
                    f" against the best chain, num_steps {p.num_steps} (run #{p.run_id}), {c:,.1f}: "
                    f"{against_chain(r, c)}{against_base}"
                )
        if other is not None:  # another shape was faster there: named, never in the row's cells
            head += (
                f"; the fastest tree there, run {speedup.run_ref(other)} ({speedup.shape_words(other)}), measured "
                f"{float(other.output_tokens_per_s):,.1f} tok/s"
                + (f", {against_chain(other, chain[0])}" if chain is not None else "")
            )
        parts.append(head)
    served_k = speed.served_steps
    here = mine.get(rank_batch)
    if here is not None and rank_batch in cur_tok:
        m = speed.model_for(rank_batch)
        served = m.measured_tok_s(served_k) if speed.measured_at(rank_batch) else None
        base_tok = served if served is not None else cur_tok[rank_batch]
        gained = float(here.output_tokens_per_s) - base_tok
        o.gain = Band(gained, gained, gained)
        against = (
            f"measured at num_steps {served_k} ({speedup.runs_text(m.measured_runs(served_k))})"
            if served is not None
            else f"predicted at num_steps {served_k}"
        )
        gain_words = (
            f"Gain at batch {rank_batch}: {gained:+,.1f} tok/s against the served chain's {base_tok:,.1f} "
            f"tok/s {against}" + (f", {gained / base_tok:+.0%}." if base_tok > 0 else ".")
        )
    else:
        gain_words = (
            f"No tree was measured at batch {rank_batch}, the batch the plan ranks at, so no gain is claimed there."
        )
    o.generation = o.training = o.storage = Band(0.0, 0.0, 0.0)
    o.al = Band(*([r_al] * 3)) if (r_al := first.accept_length) is not None else None
    o.al_steps = first.num_steps
    wins = [
        b
        for b, r in mine.items()
        if (chain := best_chain(b)) is not None and r.output_tokens_per_s > chain[0] * (1 + NOISE)
    ]
    lost_words = ""
    if lost_at:  # walk AC: "Ranked first: Serve the measured tree" while every tree lost at batch 16
        said = "; ".join(lost_at)
        lost_words = f"Faster at batch {_and_words(wins)} only: {said}. " if wins else f"{said[0].upper()}{said[1:]}. "
    o.note = (
        lost_words
        + "Measured, not predicted (the speed model fits chains only, so a tree is not predicted at other num_steps "
        "or batches): " + "; ".join(parts) + f". {gain_words} Free: the same draft, served with a tree."
    )
    src = _source(
        sources,
        "measured",
        "store runs " + ", ".join(f"{r.id}" for b in sorted(every) for r in every[b]),
    )
    o.evidence = [
        _ev("tree tok/s per batch", {str(b): float(r.output_tokens_per_s) for b, r in mine.items()}, src),
        _ev(
            "every tree measured, per batch",
            {
                str(b): [
                    {"run": r.id, "shape": speedup.shape_words(r), "tok_s": float(r.output_tokens_per_s)} for r in ts
                ]
                for b, ts in sorted(every.items())
            },
            src,
        ),
        _ev("chain tok/s per batch", "the fitted chain sweep's measured runs", model_src),
    ]
    return o


LEFT_OUT = "your curve after its eval peak (not fitted)"  # the plan chart's kind for an overfitting log's tail


def _peak_cut(inputs: Inputs) -> str:
    """Why the points after an overfitting log's eval peak are not in the fit ("" when none were left out)."""
    peak, n = inputs.curve_peak, len(inputs.curve_left_out)
    if peak is None or not n:
        return ""
    rose = " while train rose" if peak.train_slope is not None else ""
    return (
        f"the {n} point{'s' if n != 1 else ''} after its eval peak at {peak.at()} {'are' if n != 1 else 'is'} left "
        f"out of the fit: eval fell {peak.fall:.2f} there{rose} (overfitting), and a rising curve through them would "
        "hide the fall"
    )


def _no_speculation(
    pairs_at: Mapping[int, BatchPair],
    losing: Sequence[int],
    rank_batch: int,
    runs: Sequence[Any],
    speed: Speed,
    sources: list[Source],
) -> Option:
    """Serving without speculation at the smallest measured batch where it loses and above: free, and measured.

    Its gain at the ranking batch is the measured baseline less the measured speculative tok/s where that batch lost,
    and is not claimed at a batch no run measured; below the losing batch it does not apply."""
    n = losing[0]
    o = Option("no-speculation", f"Serve without speculation at batch >= {n}")
    o.generation = o.training = o.storage = Band(0.0, 0.0, 0.0)

    def others(p: BatchPair) -> str:
        """The batch's other losing runs, each with its ratio: every measured setting is named where all lost."""
        if not p.all_lose:
            return ""
        return "".join(
            f"; run #{q.spec.id} measured {q.spec.output_tokens_per_s:,.1f} tok/s (num_steps {q.spec.num_steps})"
            + (f" against {q.baseline.output_tokens_per_s:,.1f} without (run #{q.baseline.id})"
               if q.baseline.id != p.baseline.id else "")
            + f": {q.ratio:.2f}x"
            for q in p.every
            if q.spec.id != p.spec.id
        )  # fmt: skip

    measured = "; ".join(
        f"at batch {c}, run #{p.spec.id} measured {p.spec.output_tokens_per_s:,.1f} tok/s with speculation (num_steps "
        f"{p.spec.num_steps}) against {p.baseline.output_tokens_per_s:,.1f} without (run #{p.baseline.id}): "
        f"{p.ratio:.2f}x{others(p)}"
        for c in losing
        for p in (pairs_at[c],)
    )
    o.tok_s = {
        str(b): Band(*[float(p.baseline.output_tokens_per_s)] * 3)
        for b in plan_batches(rank_batch)
        if (p := pairs_at.get(b)) is not None and p.loses
    }
    o.measured = {b: f"run #{pairs_at[int(b)].baseline.id}" for b in o.tok_s}  # each a measured baseline
    here = pairs_at.get(rank_batch)
    if here is not None and here.loses:
        g = float(here.baseline.output_tokens_per_s - here.spec.output_tokens_per_s)
        o.gain = Band(g, g, g)
        gain_words = (
            f"Gain at batch {rank_batch}: {g:+,.1f} tok/s measured (run #{here.baseline.id} against run "
            f"#{here.spec.id})."
        )
    elif rank_batch >= n:
        gain_words = (
            f"Batch {rank_batch}, the batch the plan ranks at, was not measured, so no gain is claimed there; no "
            "speculative tok/s is predicted there either."
        )
    elif here is not None and not here.loses:
        gain_words = (
            f"At batch {rank_batch}, the batch the plan ranks at, speculation measured {here.ratio:.2f}x "
            f"({here.words}): keep it there."
        )
    else:
        gain_words = f"Batch {rank_batch}, the batch the plan ranks at, is below batch {n}: this does not apply there."
    like = _like_the_sweep(runs, speed.model)
    steps_n = sorted(
        {
            int(r.num_steps)
            for r in runs
            if not getattr(r, "is_baseline", False)
            and r.num_steps
            and integer(run_param(r, "concurrency")) == n
            and like(r)
        }
    )
    if len(steps_n) == 1 and steps_n[0] > 1:
        fewer = (
            f" Only num_steps {steps_n[0]} was measured at batch {n}: fewer draft steps cost less per cycle and may "
            f"lose less, so measure num_steps 1 there before ruling speculation out at that batch."
        )
    elif steps_n and steps_n[0] > 1:  # a user's batch 16 lost at 2 and 3; the model's "win" at 1 was not measured
        fewer = (
            f" No run measured num_steps 1 at batch {n} (only {', '.join(map(str, steps_n))}): fewer draft steps cost "
            f"less per cycle and may lose less, so measure num_steps 1 there before ruling speculation out at that "
            f"batch; a speed model's tok/s there is a prediction, not a measurement."
        )
    else:
        fewer = ""
    o.note = (
        f"Measured: {measured}, slower than without speculation beyond run-to-run noise ({NOISE:.0%}). A larger batch "
        "leaves the target less idle compute for the draft's extra tokens, so the plan predicts no speculative tok/s "
        f"at batch {n} or above where no run measured a gain. {gain_words}{fewer} Free: serve those batch sizes from "
        "a server started without a draft."
    )
    src = _source(
        sources,
        "measured",
        "store runs "
        + ", ".join(
            f"#{q.spec.id} against baseline #{q.baseline.id} (batch {c})"
            for c in losing
            for q in (pairs_at[c].every if pairs_at[c].all_lose and pairs_at[c].every else (pairs_at[c],))
        )
        + ": measured pairs where speculation loses",
    )
    o.evidence = [
        _ev(
            "measured speedup per losing batch",
            {str(c): round(pairs_at[c].ratio, 4) for c in losing},
            src,
        )
    ]
    return o


def _own_noun(inputs: Inputs) -> str:
    """What your attached volume counts, as the plan names it beside epochs: "unique samples", unless the audit
    attached the rows trained on (duplicates kept), which are not unique (walk BM 3: "144,000 unique samples at 1.7
    epochs", where the audit counted 13,840 unique rows)."""
    source = str(getattr(inputs, "own_samples_source", "") or "")  # a duck-typed inputs may lack it
    if VOLUME_TRAINED in source or volume_words(source) == VOLUME_TRAINED:
        return "samples (rows trained on, duplicates kept)"
    return "unique samples"


def _fit_passes(inputs: Inputs) -> tuple[float, str] | None:
    """An overfitting log fitted up to its eval peak, where the log numbers its passes: the passes its fit runs to
    (samples seen at the peak over the unique samples a pass, the log's samples seen at its end over its passes), and
    where the figure comes from. Walk AC: 4 passes of 100K samples, fitted to the peak at 200K samples seen, read
    "2,000,000 samples seen; 2,000,000 unique samples at 1 epoch" (the end's 400K over the 400,000 typed in)."""
    peak = inputs.curve_peak
    if peak is None or not inputs.curve_left_out or not inputs.curve_x or inputs.curve_set_aside:
        return None
    if not peak.passes or peak.unit != "samples seen" or not peak.last_x > 0 or not peak.x > 0:
        return None
    per_pass = peak.last_x / peak.passes
    passes = round(peak.x / per_pass, 1)
    at = f"pass {peak.pass_no}, " if peak.pass_no is not None else ""
    text = (
        f"your training log: {peak.last_x:,.0f} samples seen over its {peak.passes} passes (its epoch column), about "
        f"{per_pass:,.0f} unique samples a pass; its fit runs to the eval peak ({at}{peak.x:,.0f} samples seen): "
        f"{traininglogs.passes_text(passes)} pass{'' if passes == 1 else 'es'} over the unique samples, the epochs "
        "the cost divides samples seen by"
    )
    own = inputs.own_samples
    if own and abs(own / per_pass - 1) > 0.25:
        seen_all = abs(own / peak.last_x - 1) <= 0.25
        text += f"; not the {own:,.0f} of your training samples ({inputs.own_samples_source or 'given'})" + (
            ", which is about what the log saw over all its passes" if seen_all else ""
        )
    return passes, text


def _epochs_for(inputs: Inputs, epochs: float | None) -> tuple[float, str]:
    """The epochs the cost divides samples seen by, and where the figure comes from."""
    if epochs is not None:
        return epochs, "given"
    if (cut := _fit_passes(inputs)) is not None:
        return cut
    seen = max(inputs.curve_x) if inputs.curve_x and not inputs.curve_set_aside else None
    passes = traininglogs.passes_over(seen, inputs.own_samples)
    if seen and inputs.own_samples and passes is not None:  # said to one decimal, divided unrounded (walk AP)
        # past 20 the ratio is doubted, as Overview's headline and the volume note doubt it (walk AT: 150K seen over a
        # 5K sample of the data was costed as 30 epochs, said as fact)
        doubt = (
            f" (more than {traininglogs.MAX_PLAUSIBLE_EPOCHS}: or your {inputs.own_samples:,.0f} samples are of "
            "another set than the one it trained on; then the cost is that many times this, and `--epochs` gives "
            "the real count)"
            if passes > traininglogs.MAX_PLAUSIBLE_EPOCHS
            else ""
        )
        return passes, (
            f"your training log: {seen:,.0f} samples seen over your {inputs.own_samples:,.0f} {_own_noun(inputs)}, "
            "about "
            f"{traininglogs.passes_text(passes)} epochs{doubt}"
        )
    return 1.0, "SpecForge's default (1 epoch)"


def build(
    inputs: Inputs,
    *,
    target_al: float | None = None,
    gpu_name: str = "H200",
    steps: int = 3,
    ttt: int = 7,
    epochs: float | None = None,
    tokens_per_sample: float | None = None,
    rank_batch: int = 1,
    gen_samples_per_s: float | None = None,
    train_samples_per_s: float | None = None,
    user_gpus: int = 1,
    rate_source: str = "",
    draws: int = DRAWS,
    seed: int = 0,
) -> Plan:
    """Rank the options for one draft: more data, draft size, num_steps, wiring and vocabulary fixes.

    ``epochs`` None: the passes your training log made over your unique samples (samples seen at its end over
    them), else 1 (SpecForge's default). Overview passed none, and a 10-epoch log was costed as if every sample
    seen were a new one (walk Q)."""
    if target_al is not None and not 1.0 < target_al < math.inf:
        raise InputError(f"--target-al must be a finite number above 1, got {target_al:g}")
    if not 1 <= steps <= 16:
        raise InputError(f"--steps must be between 1 and 16, got {steps}")
    if rank_batch < 1:
        raise InputError(f"the ranking batch size must be a positive whole number, got {rank_batch}")
    if rank_batch not in (offered := rank_batches(inputs)):
        if (why := _unlike_words(inputs).get(rank_batch)) is not None:
            raise InputError(
                f"batch {rank_batch} is not ranked at: {why}; a pair must be measured as the fitted sweep was, so "
                f"the plan ranks at batch {_or_words(offered)}"
            )
        raise InputError(
            f"batch {rank_batch} has no measured pair (a speculative run and its baseline at that batch, measured as "
            f"the fitted sweep was), so the plan cannot rank there; it ranks at batch {_or_words(offered)}"
        )
    batches = plan_batches(rank_batch)
    # every batch an option's tok/s is given at: the plan's batches and each batch the group swept beside them (walk
    # AC: the tree row gave batch 16, measured, and the num_steps and more-data rows left that column blank while the
    # note said "Also swept: batch 16 ... 2 at 2,222.3 tok/s measured in run #8"); not a swept batch that lost
    tok_batches = batches
    epochs, epochs_src = _epochs_for(inputs, epochs)
    for name, v in (("tokens per sample", tokens_per_sample), ("epochs", epochs)):
        if v is not None and not 0 < v < math.inf:
            raise InputError(f"{name} must be a positive number, got {v:g}")
    if not 1 <= ttt <= 64:
        raise InputError(f"TTT steps must be between 1 and 64, got {ttt}")
    g = gpu(gpu_name)
    sources: list[Source] = []
    cal = calibration()
    pubs = {k: _source(sources, "publication", s.text) for k, s in PUBLICATIONS.items() if k != "speculators-storage"}
    pubs["speculators-storage"] = _source(sources, "publication", PUBLICATIONS["speculators-storage"].text)

    samples_src = ""
    if inputs.own_samples:
        text = inputs.own_samples_source or "given"
        kind: SourceKind = "user" if text in ("typed in", "--samples", "given") else "measured"
        if text.startswith("published"):  # a published draft pasted as yours: its registry figure (walk AJ3)
            kind = "publication"
        samples_src = _source(sources, kind, f"your training samples: {inputs.own_samples:,.0f} ({text})")

    # ---- tokens per sample and the cost model
    if tokens_per_sample is not None:
        tps, tps_src = tokens_per_sample, _source(sources, "user", f"--tokens-per-sample {tokens_per_sample:g}")
    elif inputs.own_tokens and inputs.own_samples:
        tps = inputs.own_tokens / inputs.own_samples
        tps_src = _source(sources, "measured", f"audit attached to the draft ({inputs.own_samples_source})")
    else:
        tps, tps_src = 2048.0, pubs["specforge-defaults"]
    if inputs.target_active is not None:
        no_target = ""
    elif inputs.target_label and inputs.target_uncounted:  # its config read, of an architecture not counted
        no_target = (
            f"the target's active parameters per token are unknown ({inputs.target_label}: "
            f"{inputs.target_uncounted}), so hidden-state generation is not costed; your own run's hidden-state "
            "samples/s cost it (`--gen-samples-per-s` on the CLI)"
        )
    elif inputs.target_label:  # named (config, card, runs) but its config was not read: private, gated, offline
        no_target = (
            f"the target's parameter count is unknown ({inputs.target_label}: its config could not be read), so "
            "hidden-state generation is not costed; give a Hub token for a gated or private target, or a local "
            "folder of its config (`--target` on the CLI)"
        )
    else:
        no_target = (
            "the target's parameter count is unknown (no target named), so hidden-state generation is not costed; "
            "name the target (`--target` on the CLI; the pages take it from the draft's config or the model its "
            "runs were served with)"
        )
    gen_s = train_s = None
    user_src = ""
    if gen_samples_per_s is not None or train_samples_per_s is not None:
        user_src = _source(
            sources,
            "user",
            f"your own run's samples/s on {user_gpus} GPU(s)" + (f": {rate_source}" if rate_source else ""),
        )
        if gen_samples_per_s:
            gen_s = user_gpus / gen_samples_per_s
        if train_samples_per_s:
            train_s = user_gpus / train_samples_per_s
    cost = CostModel(
        gpu=g,
        target_active=inputs.target_active or 0.0,
        target_lm_head=inputs.target_lm_head,
        target_hidden=inputs.target_hidden,
        num_aux=inputs.num_aux,
        draft_params=inputs.draft_params,
        tokens_per_sample=tps,
        tokens_source=tps_src,
        ttt=ttt,
        epochs=epochs,
        u_generation=cal.u_generation,
        u_training=cal.u_training,
        gen_gpu_s_per_sample=gen_s,
        train_gpu_s_per_sample=train_s,
        user_source=user_src,
    )
    cal_src = _source(
        sources,
        "publication",
        f"utilisation calibrated on TorchSpec and speculators' Llama-3.1-8B runs: generation "
        f"{cal.u_generation:.0%}, training {cal.u_training:.0%} of the bf16 peak "
        + "; ".join(f"{r['run']}: model/published {r['ratio']:.2f}" for r in cal.rows),
    )
    formulas = {
        "generation": "2 x target active params x tokens",
        "training": "(6 x draft params x TTT steps + 2 x target lm_head) x tokens x epochs",
        "storage": "tokens x (num_aux + 1) x target hidden x 2 B (offline only; online holds target GPUs)",
    }
    cost_json: dict[str, Any] = {
        "gpu": g.name,
        "bf16_tflops": g.bf16_tflops,
        "peak_source": pubs["nvidia-datasheets"],
        "utilisation": {"generation": cal.u_generation, "training": cal.u_training, "source": cal_src},
        "calibration": list(cal.rows),
        "tokens_per_sample": tps,
        "tokens_per_sample_source": tps_src,
        "ttt_steps": ttt,
        "epochs": epochs,
        "epochs_source": epochs_src,
        "target_active_params": inputs.target_active,
        "draft_params": inputs.draft_params,
        "num_aux": inputs.num_aux,
        "target_hidden": inputs.target_hidden,
        "user_rates": {"generation_gpu_s_per_sample": gen_s, "training_gpu_s_per_sample": train_s},
        "formulas": formulas,
        "note": no_target or None,
    }

    # ---- the speed model
    speed: Speed | None = None
    current_al_k: float | None = None
    speed_note = ""
    model_src = ""
    tok_src: dict[int, str] = {}  # per batch: the measured sweep of that batch, or the batch it is scaled from
    # per batch: why no speculative tok/s is predicted there (a measured loss there or at a smaller batch: walk S)
    lost: dict[int, str] = {}
    pairs_at: dict[int, BatchPair] = {}
    if inputs.runs_note:  # said with the sources (the CLI, the JSON and the page's fold-out list them)
        _source(sources, "measured", f"benchmark runs: {inputs.runs_note}")
    spec_runs = [r for r in inputs.runs if not getattr(r, "is_baseline", False) and getattr(r, "num_steps", None)]
    if spec_runs:
        try:
            model = speedup.model_from_runs(list(inputs.runs))
            step_fn, step_note = step_function(model, inputs.step_record)
            # what is served: the run the sweep stands for (Overview's measured pair when it is in the sweep)
            best = next(
                (r for r in spec_runs if r.id == model.served_run_id),
                max(spec_runs, key=lambda r: r.output_tokens_per_s or 0),
            )
            by_batch, batch_notes = _batch_models(inputs.runs, model, step_fn)
            # Overview's pair is the one its live speed leads with (``overview.lead_pair``): walk AW called the
            # fastest pair in tok/s, run #5, "Overview's pair" while Overview led with #8; the fitted sweep holds it
            # only when it measured two or more num_steps (walk S: a batch-16 pair, one run, beside a batch-1 sweep)
            from comparelib.analysis import overview

            pair = overview.lead_pair(list(inputs.runs))
            fastest_pair = speedup.best_pair(list(inputs.runs))
            if pair is not None and best.id == pair.spec.id:
                why_served = "Overview's pair"
            elif fastest_pair is not None and best.id == fastest_pair.spec.id:
                why_served = "the fastest pair in tok/s"
            elif best.id == model.served_run_id:
                sweep_batch = integer(run_param(best, "concurrency"))
                why_served = "the fastest run of the fitted sweep" + (
                    f" (batch {sweep_batch})" if sweep_batch is not None else ""
                )
            else:
                why_served = "your fastest speculative run"
            # at the ranking batch, your fastest measured run there stands for what is served: walk R's plan took
            # Overview's batch-8 pair (num_steps 2, the fastest in tok/s) as served at batch 1 and ranked a
            # "+7.3 tok/s" num_steps change against a batch-1 figure nobody measured as served
            rank_model = by_batch.get(rank_batch) or (model if model.concurrency == rank_batch else None)
            if rank_model is not None and integer(run_param(best, "concurrency")) != rank_batch:
                pts = [p for p in rank_model.measured if p.tok_s and p.run_id is not None]
                fastest = max(pts, key=lambda p: p.tok_s) if pts else None
                found = next((r for r in spec_runs if fastest is not None and r.id == fastest.run_id), None)
                if found is not None:
                    best = found
                    why_served = f"your fastest measured run at batch {rank_batch}, the batch the plan ranks at"
            served = int(best.num_steps)
            served_batch = integer(run_param(best, "concurrency"))
            # a tree measured faster at that batch (walk X: run #9, 114.7 tok/s, beside the chain #7's 96.9): the
            # chain is what the plan takes as served, not your fastest run there, and the tree option says so
            tree = _measured_trees(inputs.runs, model, by_batch).get(served_batch) if served_batch else None
            if tree is not None and best.output_tokens_per_s and tree.output_tokens_per_s > best.output_tokens_per_s:
                t_tree = float(tree.output_tokens_per_s)
                why_served = why_served.replace("your fastest measured run at", "your fastest measured chain at") + (
                    f"; run #{tree.id}, a tree ({speedup.shape_words(tree)}), measured {t_tree:,.1f} tok/s there, "
                    f"{t_tree - float(best.output_tokens_per_s):,.1f} more: see the tree option"
                )
            served_words = (
                f"{served} at batch {served_batch if served_batch is not None else 'not recorded'}, "
                f"run #{best.id}: {why_served}"
            )
            if len(by_batch) >= 2 and inputs.step_record is None:
                each = ", ".join(
                    f"batch {c}: {m.t_draft_ms:.3f} ms"
                    + (" assumed (one num_steps measured there)" if m is not model and one_num_steps(m) else "")
                    for c, m in sorted(by_batch.items())
                )
                step_note = (
                    f"draft step from each measured batch's fit ({each}); at other batches the cycle's costs are "
                    "drawn through two measured batches"
                )
            rec_ = inputs.step_record
            delta = (
                None
                if rec_ is None
                else lambda b, c: draftcost.step_ms_for_batch(rec_, b)[0] - draftcost.step_ms_for_batch(rec_, c)[0]
            )
            speed = Speed(model, step_fn, served, step_note, by_batch, delta, served_words)
            run_kind = "example" if getattr(best, "kind", "") == "example" else "measured"
            fitted = ", ".join(str(p.run_id) for p in model.measured if p.run_id is not None)
            base_txt = f", baseline run {model.baseline_run_id}" if model.baseline_run_id is not None else ""
            model_src = _source(
                sources,
                "measured",
                f"speedup model ({model.method}) from store runs {fitted}{base_txt} at batch {model.concurrency} "
                f"({run_kind}; served: run {best.id} at {served} steps); {step_note}"
                + (f"; {'; '.join(batch_notes)}" if batch_notes else ""),
            )
            pairs_at = batch_pairs(inputs.runs, model)
            losing = sorted(c for c, p in pairs_at.items() if p.loses)
            # the engine named where the group paired runs of several (walk AW: SGLang's #3/#1 beside vLLM's #8/#7)
            paired_engines = {
                str(r.engine) for r in spec_runs if speedup.choose_baseline(list(inputs.runs), [r]) is not None
            }
            from comparelib.models.engines import engine_word

            def engine_on(p: BatchPair) -> str:
                return f" on {engine_word(str(p.spec.engine))}" if len(paired_engines) > 1 else ""

            for b in batches if losing else ():
                here, first = pairs_at.get(b), pairs_at[losing[0]]
                if here is not None and here.loses:
                    lost[b] = f"speculation lost at batch {b}{engine_on(here)} {here.lost_words}"
                elif here is None and b > first.batch:
                    lost[b] = (
                        f"speculation lost at batch {first.batch}{engine_on(first)} {first.lost_words}, and batch "
                        f"{b} was not measured"
                    )
            tok_batches = tuple(
                sorted({*batches, *(c for c in by_batch if not (c in pairs_at and pairs_at[c].loses))})
            )
            for b in tok_batches:
                m = speed.model_for(b)
                if b in lost:
                    continue
                if m is model and m.concurrency == b:
                    tok_src[b] = model_src
                elif m.concurrency == b:
                    base_b = f", baseline run {m.baseline_run_id}" if m.baseline_run_id is not None else ""
                    on = speed.assumed_at(b, speed.served_steps)  # walk AS: the served num_steps not measured there
                    tok_src[b] = _source(
                        sources,
                        "measured" if on is None else "predicted",
                        f"speedup model ({m.method}) from the batch-{b} store runs {_run_ids(m)}{base_b} ({run_kind})"
                        + (
                            f"; at num_steps {speed.served_steps} (what is served) predicted on {_assumed_words(on)}, "
                            "not measured"
                            if on is not None
                            else ""
                        ),
                    )
                else:
                    said_b = _scaled_source(speed, b)
                    if said_b.endswith(f"; no run measured batch {b}"):  # true of every attached run (walk AJ2)
                        said_b = said_b[: -len(f"no run measured batch {b}")] + _no_run_words(inputs.runs, speed, b)
                    tok_src[b] = _source(sources, "predicted", said_b)
            current_al_k = float(best.accept_length if best.accept_length is not None else best.accept_length_mean)
        except (DataError, InputError) as exc:
            speed_note = f"no speed model: {exc}"
    else:
        speed_note = "no speculative benchmark run attached to the draft: tok/s cannot be predicted" + (
            f" ({inputs.runs_note.rstrip('.')})" if inputs.runs_note else ""
        )

    # ---- the acceptance fit
    fit: BoundedFit | None = None
    fit_note = ""
    chain = f"({steps},1,{steps + 1})"
    pts = pd.DataFrame(columns=["samples", "al", "kind", "label"])
    below_trend = ""  # the published drafts of your target under a pooled trend (``_own_target_against``)
    own_now: float | None = None
    own_al_k_for_trend: float | None = None  # your served AL at the plan's steps, beside the pooled trend
    own_al_k_converted = ""  # how ``own_al_k_for_trend`` was converted from another num_steps ("" where measured)
    own_prompts: str | None = None  # the prompts your point was measured on, when not the fit's benchmark
    if inputs.curve_unused and not inputs.curve_x:  # a log was given, but it cannot be fitted: said, not skipped
        fit_note = f"your training log could not be fitted ({inputs.curve_unused.rstrip('.')}); "
    if inputs.curve_x and inputs.curve_set_aside:
        # the page that draws the curve sets its fit aside: a band from it here would contradict that page
        fit_note = (
            f"your learning curve's fit is set aside, as on Acceptance vs data: {inputs.curve_set_aside}; no band "
            "or samples figure is taken from your curve; "
        )
    elif inputs.curve_x:
        k = inputs.curve_steps or steps
        steps = k
        chain = f"({steps},1,{steps + 1})"
        try:
            fit = fit_curve_bounded(inputs.curve_x, inputs.curve_al, steps=k, label=inputs.curve_source)
            own_now = float(max(inputs.curve_x))
            fit_src = _source(sources, "user", f"your training log's learning curve: {inputs.curve_source}")
            fit_note = (
                f"fitted on your learning curve ({fit.n} points after binning, tau_sim over {k} positions), "
                f"x = samples seen; best form: {fit.form}; band: the 95% joint confidence region of three "
                "bounded forms (logistic in log N, Weibull, saturating power law)"
            ) + (f"; {_peak_cut(inputs)}" if _peak_cut(inputs) else "")
            pts = pd.DataFrame(
                {"samples": list(inputs.curve_x), "al": list(inputs.curve_al), "kind": "your curve", "label": ""}
            )
            if inputs.curve_left_out:  # drawn, not fitted: the chart shows the fall the fit leaves out
                after = pd.DataFrame(inputs.curve_left_out, columns=["samples", "al"])
                pts = pd.concat([pts, after.assign(kind=LEFT_OUT, label="")], ignore_index=True)
        except DataError as exc:
            cut = f"; {_peak_cut(inputs)}" if _peak_cut(inputs) else ""
            fit_note = f"your curve could not be fitted ({exc}{cut}); "
    fit_bench = inputs.benchmark  # the benchmark of the pooled fit (``benches`` below)
    if fit is None and inputs.published is not None:
        points = inputs.published
        # the benchmark the target is read on first; where the published drafts there cannot be fitted and no
        # benchmark was given (walk AC: the Maverick draft publishes 2.45 on unspecified prompts, one volume), GSM8K's
        # trend, said so: the target is not switched to another draft's to suit the fit
        benches = [inputs.benchmark]
        if not inputs.benchmark_given and inputs.benchmark != "gsm8k":
            benches.append("gsm8k")
        note_before, switched = fit_note, ""
        for fit_bench in benches:
            fit_note = note_before + switched
            why_not = ""
            sel = points[
                (points["benchmark"] == fit_bench)
                & (points["chain"] == chain)
                & points["accept_length"].notna()
                & pd.to_numeric(points["samples"], errors="coerce").gt(0)
            ]
            fam = sel[sel["family"] == inputs.family] if inputs.family else sel.iloc[0:0]
            from comparelib.models.draft import family_words

            # the target's family first (with your point it may have the three volumes a fit needs), then every
            # target's
            scopes = [(fam, f"{family_words(inputs.family)} drafts")] if fam["samples"].nunique() >= 2 else []
            scopes.append((sel, "drafts of every target"))
            own_al_k = None
            own_label = own_how = ""
            # your acceptance at the plan's chain: measured there when a run drafted it (walk P: runs #4 and #13
            # measured 2.67 at 3 steps, and the plan converted the served 5-step run's to 2.63 instead), else the
            # served run's converted by geometric acceptance
            at_chain = _measured_at_chain(inputs.runs, chain, rank_batch, inputs.own_run)
            if at_chain is not None:
                run_c, own_al_k = at_chain
                own_label = f"{inputs.draft_label} (run #{run_c.id}: measured {own_al_k:.2f} at {chain})"
                own_how = f", plus your point measured at {steps} steps (run #{run_c.id}, AL {own_al_k:.2f})"
            elif current_al_k is not None and speed is not None:
                k0 = speed.served_steps
                try:
                    alpha = speedup.alpha_for(current_al_k, k0)
                    own_al_k = speedup.geometric_accept(alpha, steps)
                except DataError:
                    own_al_k = None
                own_label = f"{inputs.draft_label} (measured {current_al_k:g} at {k0} steps)"
                if k0 != steps:  # walk AI2: "2.96 (at 3 steps), was measured" where no run drafted 3 steps
                    own_al_k_converted = (
                        f"at {steps} steps, converted from run #{speed.model.served_run_id}'s {current_al_k:.2f} at "
                        f"{k0} steps by a constant per-position acceptance"
                    )
                own_how = (
                    f", plus your measured point at {steps} steps"
                    if k0 == steps
                    else f", plus your measured point converted from {k0} to {steps} steps by geometric acceptance"
                )
            if inputs.lint_errors:
                own_al_k = None  # measured through broken wiring: not evidence of what the data supports
            own_al_k_for_trend = own_al_k
            # a point measured on other prompts is not a point of this benchmark's trend: Acceptance vs data leaves it
            # out of its fit, and the plan does too (walk R: run #7 on the bundled chat prompts, pooled into the GSM8K
            # fit, moved the samples needed from 1.6M to 31.7M while Acceptance vs data said about 1.6M)
            own_run = (
                at_chain[0]
                if at_chain is not None
                else next((r for r in inputs.runs if speed is not None and r.id == speed.model.served_run_id), None)
            )
            prompts = _prompts_apart(own_run, fit_bench)
            other_prompts = ""
            if own_run is not None and own_al_k is not None and prompts:
                own_prompts = prompts
                other_prompts = (
                    f"; your {'point' if own_al_k_converted else 'measured point'} (run #{own_run.id}, AL "
                    f"{own_al_k:.2f}{f', {own_al_k_converted}' if own_al_k_converted else ''}) is left out of the "
                    "fit: it was "
                    f"measured on the {prompts!r} prompts, the fit is {bench_label(fit_bench)}, as on Acceptance "
                    "vs data"
                )
                own_al_k = None
            own_now = inputs.own_samples
            too_few = ""
            below_trend = ""
            for use, scope in scopes:
                xs = [float(v) for v in use["samples"]]
                ys = [float(v) for v in use["accept_length"]]
                labels = [str(d) for d in use["draft"]]
                if inputs.own_samples and own_al_k is not None:
                    xs.append(float(inputs.own_samples))
                    ys.append(float(own_al_k))
                    labels.append(own_label)
                own_left_out = ""
                try:
                    try:
                        fit = fit_pooled_bounded(xs, ys, steps=steps, draws=draws, seed=seed, label=scope)
                    except DataError:
                        if len(xs) == len(use):
                            raise
                        # your point broke the trend (far more acceptance at far fewer samples): fit the published
                        # points alone and say why, rather than no fit beside a fold-out that shows the trend
                        own_left_out = (
                            f"; your measured point ({ys[-1]:.2f} at {xs[-1]:,.0f} samples) does not lie on a rising "
                            "trend with the published ones, so it was left out of the fit"
                        )
                        xs, ys, labels = xs[: len(use)], ys[: len(use)], labels[: len(use)]
                        fit = fit_pooled_bounded(xs, ys, steps=steps, draws=draws, seed=seed, label=scope)
                except DataError as exc:
                    fit = None
                    if use is fam:  # too few of the family's volumes: every target's, said so
                        too_few = f"{scope} could not be fitted alone ({exc}); "
                        continue
                    fit_note += f"{too_few}no pooled fit: {exc}"
                    why_not = f"{too_few}{exc}"
                    break
                fit_src = _source(
                    sources,
                    "publication",
                    f"registry: published {fit_bench} acceptance at chain {chain} of {scope} "
                    f"({len(use)} points: {', '.join(sorted(set(labels[: len(use)])))})",
                )
                fit_note += (
                    too_few
                    + f"pooled fit over {scope} at chain {chain} on {fit_bench}"
                    + (own_how if own_al_k is not None and inputs.own_samples and not own_left_out else "")
                    + own_left_out
                    + other_prompts
                    + f"; plateau fixed at K + 1 = {steps + 1}; band: Student t draws of the line, {draws} draws"
                )
                kinds = ["published"] * len(use) + (["yours"] if len(xs) > len(use) else [])
                pts = pd.DataFrame({"samples": xs, "al": ys, "kind": kinds, "label": labels})
                below_trend = _own_target_against(fit, use, inputs.target_label)
                break
            if fit is not None or fit_bench == benches[-1]:
                break
            switched = (
                f"the published drafts at {chain} on the target's benchmark, {bench_label(fit_bench)}, cannot be "
                f"fitted ({why_not.rstrip('; ')}), so the trend is fitted on {bench_label(benches[-1])}, other "
                "prompts than the target's: "
            )
    elif fit is None:
        fit_note += "no fit: no learning curve and no published points given"

    # ---- target AL
    target_named = ""  # the target as a note names it: the value, and whose figure on which benchmark
    target_bench: str | None = inputs.benchmark  # the prompts the target was measured on, where known
    beside = (
        measured_target(inputs.group_runs, inputs.draft_label, inputs.target_label, chain)
        if target_al is None
        else None
    )
    if target_al is not None:
        t_src = _source(sources, "user", f"--target-al {target_al:g}")
        target_named = f"{target_al:g} (the target AL you gave)"
    elif beside is not None:
        # the reference measured in your own group outweighs its published figure, as on Overview
        target_al = beside.al
        # its own prompts: "unspecified" where its run did not record them (walk AF: a ``vllm bench serve`` import)
        target_bench = beside.figure.benchmark
        t_src = _source(sources, "measured", beside.text)
        target_named = beside.figure.named
    elif inputs.published is not None and (
        # one function with Acceptance vs data's "Target acceptance length", on the benchmark it opens on
        pub := default_target(
            inputs.published,
            benchmark=inputs.benchmark,
            chain=chain,
            target=inputs.target_label,
            own=inputs.draft_label,
            runs=inputs.group_runs,
            reference=inputs.shape_reference,
        )
    ):
        target_al, text = pub
        t_src = _source(sources, "publication", f"registry: {text}")
        # ``published_target``'s text opens with the draft: "org/draft at (K,1,K+1) on bench (why ...)"
        other = re.search(r", a draft for (.+?), not for your target", text)
        target_named = (
            f"{target_al:g} ({text.split(' at ', 1)[0]}'s published {bench_label(inputs.benchmark)} AL at {chain}"
            + (f", a draft for {other.group(1)}, not for your target" if other else "")
            + ")"
        )
    else:
        t_src = ""
    # a target read on another benchmark than the pooled trend's (the fit fell back to GSM8K: ``benches``)
    cross_bench = ""
    if target_al is not None and t_src.startswith("publication") and fit_bench != inputs.benchmark:
        on_t, on_f = (
            f"{bench_label(b)} prompts" if b == "unspecified" else bench_label(b)
            for b in (inputs.benchmark, fit_bench)
        )
        cross_bench = (
            f" The target {target_al:g} is read on {on_t} and the trend on {on_f} (no trend could be fitted on "
            f"{on_t}): where the trend reaches the target is read across benchmarks, indicative only."
        )
    # a target measured beside yours on other prompts than the pooled trend's (or unrecorded ones) is not placed on
    # it: no samples figure, and its draft's own volume is the evidence (walk AF: run #10's 3.05 from ``vllm bench
    # serve`` "reached at 2,758,641 samples" on the GSM8K trend, where the reference reached it with 532K)
    off_trend = (
        verdicts.measured_off_trend(beside.figure, fit_bench)
        if beside is not None and fit is not None and fit.scope == "pooled"
        else None
    )
    if target_al is not None and target_al >= steps + 1:
        raise InputError(f"a target AL of {target_al:g} is impossible at {steps} draft steps (at most {steps + 1})")

    # ---- current figures
    current: dict[str, Any] = {"al_served": current_al_k, "served_steps": speed.served_steps if speed else None}
    cur_tok: dict[int, float] = {}
    # at a batch where a run measured the served num_steps, what is served now is that measurement, not the model's
    # figure (which a sweep's fit misses by its residual there), and every gain there is against it: a predicted
    # option's tok/s there is the model's ratio of its figure to the model's own served one, times the measurement
    anchor: dict[int, float] = {}
    if speed is not None:
        cur_src = dict(tok_src)
        measured_now: dict[str, dict[str, Any]] = {}
        for b in tok_batches:
            if b in lost:
                continue
            cur_tok[b] = model_tok = speed.tok_s(b, speed.al_at(speed.served_steps, batch=b))
            found = _served_measured(speed, pairs_at, b)
            if found is None and speed.measured_at(b):  # walk AS: no run measured the served num_steps there
                m_b, on = speed.model_for(b), speed.assumed_at(b, speed.served_steps)
                cur_src[b] = _source(
                    sources,
                    "predicted",
                    f"num_steps {speed.served_steps} (what is served) at batch {b}: {model_tok:,.1f} tok/s predicted, "
                    f"as no run measured it there, by the speedup model ({m_b.method}) of the batch-{b} store runs "
                    f"{_run_ids(m_b)}" + (f", on {_assumed_words(on)}, not measured" if on is not None else ""),
                )
            if found is None or not model_tok > 0:
                continue
            t, ids, whose = found
            anchor[b], cur_tok[b] = t / model_tok, t
            measured_now[str(b)] = {
                "tok_s": t,
                "num_steps": speed.served_steps,
                "runs": list(ids),
                "model_tok_s": model_tok,
            }
            beats = _tree_beats(inputs.runs, speed, b)
            if beats is not None and beats[1] > t:  # walk X: what the plan takes as served is not your fastest run
                measured_now[str(b)]["tree_faster"] = {
                    "run": int(beats[0].id),
                    "tok_s": beats[1],
                    "shape": speedup.shape_words(beats[0]),
                }
            cur_src[b] = _source(
                sources,
                "measured",
                f"store {speedup.runs_text(ids)} at batch {b}, num_steps {speed.served_steps} (what is served): "
                f"{t:,.1f} tok/s measured, {whose}: the current tok/s at batch {b}; an option's predicted tok/s there "
                f"is this figure times the speedup model's ratio of the option's figure to its own served one there "
                f"({model_tok:,.1f} tok/s)",
            )
        current["tok_s"] = {str(b): v for b, v in cur_tok.items()}
        if measured_now:
            current["tok_s_measured"] = measured_now
        if lost:
            current["tok_s_not_predicted"] = {str(b): why for b, why in lost.items()}
        current["source"] = model_src
        current["tok_s_source"] = {str(b): v for b, v in cur_src.items()}
    else:
        current["tok_s"] = None
        current["note"] = speed_note
    if inputs.runs_note:
        current["runs_note"] = inputs.runs_note
    from comparelib.analysis import overview

    # the target's own MTP layers measured faster than your draft (walk Z): what is served now is not the fastest
    # measured, said with Overview's one comparison (at the ranking batch first)
    if (mtp := overview.native_mtp(inputs.group_runs, inputs.draft_name, batch=rank_batch)) is not None:
        current["native_mtp"] = mtp.to_json()
    if fit is not None and own_now:
        now = fit.al(own_now)
        current["al_fit"] = now.to_json()
        current["samples"] = own_now
        current["samples_source"] = samples_src if fit.scope == "pooled" else fit_src

    def served_run(b: int) -> tuple[int, float] | None:
        """What a batch with its own measured runs serves: the served num_steps's run where one measured it there
        ("Served now" reads the same run: walk BY 1 scaled #16, at num_steps 2, beside a "Served now" of #17 at the
        served 3), else its fastest run's num_steps and tok/s (walk AK); None elsewhere. An option's tok/s there
        scales that run."""
        if speed is None or not speed.measured_at(b):
            return None
        m = speed.model_for(b)
        ts = {p.num_steps: t for p in m.measured if p.num_steps and (t := m.measured_tok_s(p.num_steps)) is not None}
        if speed.served_steps in ts:
            return speed.served_steps, ts[speed.served_steps]
        return max(ts.items(), key=lambda kt: kt[1]) if ts else None

    served_k = speed.served_steps if speed is not None else None
    no_pick = bool(speedup.optimum_missing(speed.model)) if speed is not None else True

    def predicted_best(b: int) -> int | None:
        """The num_steps row's pick at a batch no run measured (its prediction: ``speedup.pick_steps`` over the
        model's tok/s there, as that row picks); None at a measured batch or where that row names no best."""
        if speed is None or no_pick or speed.measured_at(b):
            return None
        if any(speed.assumed_at(b, k) is not None for k in speedup.STEPS):  # no best there (walk BW 3)
            return None
        vals = {k: speed.tok_s(b, speed.al_at(k, inputs.offline, batch=b), k) for k in speedup.STEPS}
        return speedup.pick_steps(vals)[0]

    def tok_band(
        al_ratio: Band | None, *, k: int | None = None, step_ms: Callable[[int], float] | None = None
    ) -> dict[str, Band]:
        if speed is None:
            return {}
        out = {}
        for b in (b for b in tok_batches if b not in lost):
            kk = speed.served_steps if k is None else k
            scale = anchor.get(b, 1.0) if kk == speed.served_steps else 1.0  # on the measured figure (``anchor``)
            if k is None and al_ratio is not None and b != rank_batch and (ran := served_run(b)) is not None:
                kk, t = ran  # walk AK: batch 32's run #7 (num_steps 3), not batch 1's served 5 pushed to batch 32
                scale = t / speed.tok_s(b, speed.al_at(kk, batch=b), kk)
            base_al = speed.al_at(kk, batch=b)
            if al_ratio is None:
                v = speed.tok_s(b, base_al, kk, step_ms) * scale
                out[str(b)] = Band(v, v, v)
                continue

            def at(
                r: float | None, _b: int = b, _al: float = base_al, _s: float = scale, _k: int = kk
            ) -> float | None:
                if r is None:
                    return None
                return speed.tok_s(_b, min(_al * r, _k + 1.0), _k, step_ms) * _s

            out[str(b)] = Band(at(al_ratio.value), at(al_ratio.low), at(al_ratio.high))
        return out

    def gain_of(tok: dict[str, Band]) -> Band | None:
        if not tok or rank_batch not in cur_tok:
            return None
        return tok[str(rank_batch)].map(lambda v: v - cur_tok[rank_batch])

    def batch_words() -> str:
        """Where each batch's tok/s comes from: its own measured runs (named), or another batch's, scaled."""
        if speed is None:
            return ""
        own: list[str] = []
        scaled: dict[str, list[str]] = {}
        for b in tok_batches:
            m = speed.model_for(b)
            if b in lost:
                continue
            if m.concurrency == b:
                own.append(f"batch {b} from its measured runs {_run_ids(m)}")
            else:
                scaled.setdefault(_scaled_from(speed, b), []).append(str(b))
        parts = own + [f"batch {' and '.join(bs)} predicted from {how}" for how, bs in scaled.items()]
        parts += [f"batch {b} not predicted: {why}" for b, why in lost.items()]
        return _sentence("tok/s: " + "; ".join(parts))

    def batch_sources() -> str:
        return ", ".join(dict.fromkeys(tok_src[b] for b in tok_batches if b in tok_src)) or model_src

    options: list[Option] = []

    # ---- more data
    md = Option("more-data", _MORE_DATA_TITLE)
    measured_here = _measured_at_chain(inputs.runs, chain, rank_batch, inputs.own_run)
    # where the target sits on the fit's axis (``Plan.target_shift``): a published trend is on the target's scale
    # (unless a target measured beside yours is off it); your log's fit only through a live run at the chain, below
    target_shift: float | None = 0.0 if fit is not None and fit.scope != "curve" and not off_trend else None
    # one rule on every path: a run on other prompts than the target's neither meets nor misses it (walk S)
    apart = _prompts_apart(measured_here[0], target_bench) if measured_here and target_al is not None else None
    apart_words = (
        _apart_words(measured_here[0], measured_here[1], chain, apart, target_named, str(target_bench))
        if measured_here and apart
        else ""
    )
    above_trend = ""
    if fit is not None and fit.scope == "pooled" and own_now:
        # the trend's AL at your volume far below what your draft measured: the trend's ratio is not your gain
        mine = measured_here[1] if measured_here is not None else own_al_k_for_trend
        trend = fit.al(own_now)
        # one rule with Acceptance vs data (``scaling.trend_unsaid``): a value at a bound of 1..K+1, or a band over
        # all of it, is not the trend's to quote (walk T: "the 1.00 the published trend gives at your 20K samples")
        unsaid = (
            scaling.trend_unsaid(trend.value, trend.low, trend.high, (1.0, fit.ceiling))
            if trend.value is not None
            else ""
        )
        cannot = (
            f"cannot say what acceptance a draft reaches at your {own_now:,.0f} samples: {unsaid} (the pooled fit "
            f"over {fit.n} points at {chain})"
        )
        if mine is not None and trend.value and (unsaid or mine > trend.value * (1 + ABOVE_TREND)):
            converted = own_al_k_converted if measured_here is None else ""
            where = (
                f"run #{measured_here[0].id} at {chain}"
                if measured_here is not None
                else converted or f"at {steps} steps"
            )
            above_trend = (
                f"Your draft {'comes to' if converted else 'measured'} {mine:.2f} ({where}) with {own_now:,.0f} "
                "samples, and the published trend "
                f"{cannot}. So it cannot say what more data adds for your draft, and no gain or cost is claimed"
                if unsaid
                else f"Your draft sits above the published trend: it {'comes to' if converted else 'measured'} "
                f"{mine:.2f} ({where}) with "
                f"{own_now:,.0f} samples, where the trend gives {trend.text('.2f')}; the trend cannot say what more "
                "data adds for your draft, so no gain or cost is claimed"
            )
            if own_prompts:  # not above it: measured elsewhere (walk R2: chat prompts set against GSM8K's trend)
                gives = (
                    f"which {cannot}. The"
                    if unsaid
                    else f"where it gives {trend.text('.2f')} at your {own_now:,.0f} samples: the"
                )
                above_trend = (
                    f"Your acceptance, {mine:.2f} ({where}), "
                    + ("comes from a run on" if converted else "was measured on")
                    + f" the {own_prompts!r} prompts and the "
                    f"trend is {bench_label(fit_bench)}'s, {gives} two are not on one scale, so the trend "
                    "cannot say what more data adds to your tok/s, and no gain or cost is claimed"
                )
    # a run on other prompts than the target's benchmark has not met it (walk R: chat prompts against GSM8K's AL)
    if target_al is not None and measured_here is not None and measured_here[1] >= target_al and not apart:
        run_met, al_met = measured_here
        md.generation = md.training = md.storage = Band(None, None, None)
        md.note = (
            f"Target already met by run #{run_met.id}: it measured AL {al_met:.2f} at {chain} (batch "
            f"{run_param(run_met, 'concurrency') or 'not recorded'}), at or above the target {target_named}; "
            "more data is not needed to reach it, so no gain or cost is claimed."
        )
        md.evidence = [
            _ev("target AL", target_al, t_src),
            _ev(
                f"measured AL at {chain}",
                al_met,
                _source(sources, "measured", f"store run {run_met.id}: AL {al_met:g} at {chain}"),
            ),
        ]
        current["target_met_by_run"] = run_met.id
    elif (
        target_al is not None
        and measured_here is None
        and ((pub_met := _own_published(inputs, str(target_bench), chain)) is not None and pub_met[0] >= target_al)
    ):
        # a published draft pasted as yours, no run of it at the chain: its own published figure there is its
        # acceptance (walk BG: "reach 2.64 at about 772K samples" for a draft publishing 3.13 on GSM8K at (3,1,4))
        al_pub, key_pub = pub_met
        md.generation = md.training = md.storage = Band(None, None, None)
        md.note = (
            f"Target already met by {inputs.draft_label}'s published figure: it publishes AL {al_pub:.2f} on "
            f"{bench_label(str(target_bench))} at {key_pub}, at or above the target {target_named}; more data is not "
            "needed to reach it, so no gain or cost is claimed (no run of it at this chain is attached to say so for "
            "your server)."
        )
        md.evidence = [
            _ev("target AL", target_al, t_src),
            _ev(
                f"published AL at {key_pub}",
                al_pub,
                _source(sources, "publication", f"registry: {inputs.draft_label} AL {al_pub:g} at {key_pub}"),
            ),
        ]
        current["target_met_by_published"] = key_pub
    elif above_trend and fit is not None:
        md.generation = md.training = md.storage = Band(None, None, None)
        need_trend = fit.samples_for(target_al) if target_al is not None and not off_trend else None
        n_trend = need_trend.value if need_trend is not None and target_al is not None else None
        # the main branch's guards: an inverse past the evidence is no figure (a 60-digit count was printed here)
        if n_trend is None:
            reach_trend = ""
        elif n_trend > fit.x_max * OUT_OF_REACH:
            reach_trend = (
                f" (the target {target_named} is out of reach of the fitted trend within {OUT_OF_REACH:,.0f}x the "
                f"most it was fitted on, {fit.x_max:,.0f} samples, so no samples figure is given)"
            )
        elif n_trend > fit.x_max * EXTRAPOLATION_MAX:
            reach_trend = (
                f" (a draft on the trend reaches the target {target_named} at about {human(n_trend)} samples, "
                f"{n_trend / fit.x_max:,.0f}x the most it was fitted on: far past the evidence)"
            )
        else:
            # a prediction, said as Acceptance vs data says one (walk AF: "2,758,641 samples" beside its "about 2.1M")
            assert need_trend is not None  # n_trend is its value
            band_said = _band_words(need_trend)
            reach_trend = (
                f" (a draft on the trend reaches the target {target_named} at about {human(n_trend)} samples"
                + (f", {band_said})" if band_said else ")")
            )
        # the line's figure beside the logistic's, as the main branch gives it (walk AQ: 13M here, "about 3.9M by
        # the log-linear fit" on Acceptance vs data, and no word of why)
        loglin = None
        if n_trend is not None and target_al is not None and fit.scope == "pooled" and len(pts) >= 3:
            loglin = _loglinear_samples(pts["samples"], pts["al"], target_al)
        line_words = (
            f" The log-linear fit on the same {len(pts)} points (AL linear in log N, the form Acceptance vs data "
            "draws, no ceiling) puts the target at about "
            + (
                f"the same, {human(loglin)} samples."
                if human(loglin) == human(n_trend)
                else f"{human(loglin)} samples: the logistic flattens toward its ceiling K + 1 = {fit.steps + 1}, "
                "the line does not."
            )
            + " Acceptance vs data fits its line to one setting's points, so its figure can differ again."
            if loglin is not None and n_trend is not None and loglin <= fit.x_max * OUT_OF_REACH
            else ""
        )
        # a run on other prompts than the target's: neither met nor missed, said as Acceptance vs data says it
        md.note = (
            _sentence(above_trend + reach_trend)
            + line_words
            + (f" {apart_words}" if apart_words else "")
            + cross_bench
            + (f" {off_trend}" if off_trend else "")
        )
        md.evidence = [
            _ev("acceptance fit", fit.summary(), fit_src),
            _ev("target AL", target_al, t_src),
            _ev("samples now", own_now, samples_src),
        ]
        if line_words:
            md.evidence.append(_ev("samples needed by the log-linear fit on the same points", loglin, fit_src))
        current["above_trend"] = True
    elif fit is None:
        md.note = (f"{apart_words} " if apart_words else "") + (fit_note or "no acceptance fit")
    else:
        # your log's fit is on the training simulation's scale (tau_sim), not the live one the target and the
        # served AL are on (walk Q: the log's plateau 2.58 beside 2.72 measured live at 3 steps, "does not reach
        # the target 2.876 (plateau 2.58)" and a tok/s from 2.58): put it on the live scale by the measured AL at
        # the plan's chain, moved by what the fit adds from your volume to the new one
        shift = 0.0
        scale_words = ""
        scale_ev: dict[str, Any] | None = None
        # your log's x is samples SEEN (epochs x unique samples; walk Q read "496,000 samples" of a 10-epoch log
        # as unique), the published trend's unique samples; the cost is on the unique ones, n / epochs
        curve_scope = fit.scope == "curve"
        seen = " seen" if curve_scope else ""
        epochs_div = epochs if curve_scope else 1.0

        fit_passes = _fit_passes(inputs) if epochs_src.startswith("your training log") else None
        passes_how = (
            " (the passes your log made up to its eval peak: see the cost model's epochs)"
            if fit_passes is not None
            else f" (your log's passes over your {_own_noun(inputs).split(' (')[0]})"
            if epochs_src.startswith("your training log")
            else ""
        )
        # an overfitting log is fitted up to its eval peak: "your volume" on the fit is the peak's, not the checkpoint
        # your measured run serves (walk AC: "2.77 at your 200,000 samples seen" of a log that saw 400K)
        peak_cut = inputs.curve_peak if inputs.curve_left_out else None

        def unique(n: float, predicted: bool = False) -> str:
            # a count the fit predicts is said as the pages say one ("about 1.4M"), 10x a count to the sample
            per = f"about {human(n / epochs_div)}" if predicted else f"{n / epochs_div:,.0f}"
            return (
                f"{per} {_own_noun(inputs)} at {traininglogs.passes_text(epochs)} epoch{'' if epochs == 1 else 's'}"
                f"{passes_how}, "
                "the count the cost is computed on"
            )

        # your log put on the live scale by a run on other prompts than the target's is not set against it
        apart_curve = apart if curve_scope else None
        gain_fit: curves.CurveFit | None = None  # your log's power law, whose gain the live-scale AL takes
        live_here = measured_here  # the measured run the live-scale AL is counted from (``_served_al_base``)
        live_words: Callable[[str], str] | None = None  # the live-scale sentence, given how the change is read
        if curve_scope:
            log_now = fit.al(own_now).value if own_now else None
            # the row scales the served tok/s by its AL over this run's: the run must be the served one's (AJ1)
            served_ids = ((current.get("tok_s_measured") or {}).get(str(rank_batch)) or {}).get("runs") or (
                [speed.model.served_run_id] if speed is not None and speed.model.served_run_id is not None else []
            )
            live_here = _served_al_base(inputs.runs, chain, rank_batch, measured_here, served_ids)
            if live_here is not None and log_now is not None:
                run_l, live_l = live_here
                shift = live_l - log_now
                if not apart_curve:  # on the target's prompts: the target is on this live scale
                    target_shift = shift
                # on the live scale the measured AL is where you are: what is predicted is the change from your
                # volume, with the band of that change (walk AA: the bounded fit's band of the AL itself at 10x,
                # shifted, read "3.10 (2.78..3.56)", its low end under the measured 2.79, beside Acceptance vs data's
                # 10x gain +0.31 (+0.305..+0.321)). Where Acceptance vs data predicts from its own fit (a rising log)
                # and the row shows a multiple of your volume, the plan takes that fit's gain there; on a log it calls
                # flat or near its ceiling that fit's extrapolation is "a model statement", and where the row costs
                # the samples the target needs the bounded fit reaches it: the bounded fit's change, with its band
                gain_fit = _gain_fit(inputs, fit.steps) if own_now and inputs.curve_verdict == "rising" else None

                if peak_cut is not None:
                    where_now = f"at its eval peak, {own_now:,.0f} samples seen" + (
                        f" (pass {peak_cut.pass_no}{f' of {peak_cut.passes}' if peak_cut.passes else ''})"
                        if peak_cut.pass_no is not None
                        else ""
                    )
                else:
                    where_now = f"at your {own_now:,.0f} samples seen"

                other_run = (
                    f" ({_engine_words(run_l)}, the served tok/s's run; run #{measured_here[0].id}'s "
                    f"{measured_here[1]:.2f} on {_engine_words(measured_here[0])} is not counted from, as the tok/s "
                    "scaled here is not that engine's)"
                    if measured_here is not None and measured_here[0].id != run_l.id
                    else ""
                )

                def live_words(change: str) -> str:
                    return (
                        f" Your log's fit is on the training simulation's scale (tau_sim; {log_now:.2f} {where_now}), "
                        f"not the live one: run #{run_l.id} measured AL {live_l:.2f}{other_run} at "
                        + (
                            f"{chain} on the {apart_curve!r} prompts, so every AL here is predicted live AL on those "
                            f"prompts = that measured AL + {change}."
                            if apart_curve
                            else f"{chain}, so every AL here is predicted live AL = that measured AL + {change}, and "
                            "the target is compared on that scale."
                        )
                    )

                scale_words = live_words(
                    BOUNDED_CHANGE.replace("at your volume", "at its eval peak")
                    if peak_cut is not None
                    else BOUNDED_CHANGE
                )
                scale_ev = {
                    "measured live AL": live_l,
                    "run": run_l.id,
                    "log fit at your volume": log_now,
                    "rule": "predicted live AL = measured live AL + (log fit at the new volume - log fit now)",
                }
            else:
                scale_words = (
                    f" The AL figures are on your training log's scale (tau_sim, the training simulation's), not "
                    f"live: no run of your draft measured AL at {chain} to put them on the live scale the target is "
                    "on, so the comparison with the target is across scales."
                )
                # a rising log's row takes Acceptance vs data's fit here too (walk AI4: the bounded fit's 2.66
                # (2.44..2.97) at 10x beside that page's 2.66 (2.51..2.82))
                gain_fit = _gain_fit(inputs, fit.steps) if own_now and inputs.curve_verdict == "rising" else None
        fit_now = fit.al(own_now).value if own_now else None
        base_al = None if fit_now is None else fit_now + shift
        costed = target_al is not None and not apart_curve and not off_trend
        need = fit.samples_for(target_al - shift) if costed and target_al is not None else None
        at_10x = max(own_now or fit.x_max, fit.x_max) * 10
        # what the row shows when the target is not costed: 10x the largest volume in the fit (or yours)
        tenfold = ("10x your volume" if own_now and own_now > fit.x_max else "10x the most it was fitted on") + (
            f" ({at_10x:,.0f} samples seen; {unique(at_10x)})" if curve_scope else f" ({at_10x:,.0f} samples)"
        )
        shown = ""  # "; the row shows ..." with the trend's AL there, once it is known
        mine_words = f"samples{seen}: the target may already be in reach at your volume"

        def at_least_yours(n: float) -> float:
            return max(n, own_now or 0.0)

        # the fit's count for the target at or below your volume, with no run of yours measuring acceptance at the
        # chain: more data is not what the fit asks for (walk BJ3: "the target may already be in reach at your
        # volume" beside "Ranked first: More training data", 1.4M samples, 26 GPU-hours of retraining, 47 TB)
        in_reach: float | None = None

        if need is not None and need.value is not None and need.value > fit.x_max * OUT_OF_REACH:
            # the inverse exploded (a 13-digit count): out of the trend's reach, no count printed
            n_new, md.samples_needed = at_10x, None
            reach = (
                f"does not reach the target {target_named} within {OUT_OF_REACH:,.0f}x the most it was fitted on "
                f"({fit.x_max:,.0f} samples{seen}): the target is out of reach of the fitted trend, so no samples "
                "figure is given"
            )
            shown = tenfold
        elif need is not None and need.value is not None and need.value > fit.x_max * EXTRAPOLATION_MAX:
            # two orders of magnitude past the data: the bounded form's tail, not evidence; costed at 10x only
            n_new, md.samples_needed = at_10x, None
            reach = (
                f"puts the target {target_named} at about {human(need.value)} samples{seen}, "
                f"{need.value / fit.x_max:,.0f}x the most it was fitted on ({fit.x_max:,.0f}): too far past the "
                "evidence to cost"
            )
            shown = tenfold
        elif need is not None and need.value is not None:
            # no count of samples needed starts below what you have (walk Q: "20..unbounded" for a draft of
            # 2,000 samples): a band or a count at or below your volume says the target may be in reach already
            needed = need.map(at_least_yours)
            n_new, md.samples_needed = needed.value or need.value, needed
            if own_now and need.value <= own_now:
                if measured_here is None and live_here is None:
                    in_reach = need.value
                reach = (
                    f"puts the target {target_named} at about {human(need.value)} samples{seen}, at or below your "
                    f"{own_now:,.0f} {mine_words}"
                )
            else:
                said = [_band_words(needed)] + ([unique(n_new, predicted=True)] if curve_scope else [])
                reach = f"reaches the target {target_named} at about {human(n_new)} samples{seen}" + (
                    f" ({'; '.join(p for p in said if p)})" if any(said) else ""
                )
                if own_now and need.low is not None and need.low <= own_now:
                    reach += f"; the band's low end is at or below your {own_now:,.0f} {mine_words}"
        else:
            n_new, md.samples_needed = at_10x, None if need is None else need.map(at_least_yours)
            # a fit of your log whose plateau runs below the log's own highest point is no ceiling (walk U: "plateau
            # 2.39" of a log that measured 2.42): the measured peak is said beside it
            below_peak = ""
            if curve_scope and inputs.curve_al:
                top_i = max(range(len(inputs.curve_al)), key=lambda i: inputs.curve_al[i])
                top = inputs.curve_al[top_i]
                if round(fit.plateau, 2) < round(top, 2):
                    below_peak = (
                        f", below the {top:.2f} your log measured at {human(inputs.curve_x[top_i])} samples seen, "
                        "so it is no ceiling for your log"
                    )
            reach = (
                "is not set against the target"
                if apart_curve or off_trend
                else f"does not reach the target {target_named} (the fit's plateau {fit.plateau + shift:.2f}"
                + (" on the live scale" if shift else "")
                + f"{below_peak})"
                if target_al is not None
                else "has no target AL to reach"
            )
            if own_now and need is not None and need.low is not None and need.low <= own_now:
                reach += f"; its band's low end is at or below your {own_now:,.0f} {mine_words}"
            shown = tenfold
        # K draft steps accept at most K + 1 tokens a cycle: the shift to the live scale never lifts the band past it
        # (walk S: "AL 2.78 (2.36..4.41)" at 3 steps)
        ceiling = float(fit.steps) + 1.0 if fit.steps else math.inf
        curve_gain = False  # the AL is Acceptance vs data's gain on the measured AL
        if gain_fit is not None and shown and live_words and own_now and base_al is not None:  # base_al: measured
            live_al = base_al
            factor = max(n_new, own_now) / own_now
            gain_band = gain_fit.gain(factor)
            md.al = Band(*(min(live_al + v, ceiling) for v in gain_band))
            curve_gain = True
            scale_words = live_words(
                "the gain your log's power-law fit (the one Acceptance vs data draws) predicts from your volume to "
                "the new one"
            ) + (
                f" Its band is that fit's {curves.LEVEL:.0%} band of the gain ({gain_fit.n} points: "
                f"{band_text(*gain_band, '+.3f', on_fit=curves.ON_FIT)} at {factor:,.3g}x your samples seen), as "
                "Acceptance vs data gives it; the measured AL's own run-to-run spread is not in it."
            )
            assert scale_ev is not None
            scale_ev["rule"] = (
                "predicted live AL = measured live AL + the log's power-law gain from your volume (its 95% band: "
                "Acceptance vs data's fit)"
            )
        elif scale_ev is not None and own_now and base_al is not None:  # the bounded fit's gain on the measured AL
            live_al, factor = base_al, max(n_new, own_now) / own_now
            gain_b = fit.gain(own_now, max(n_new, own_now))
            md.al = gain_b.map(lambda v: min(live_al + v, ceiling))
            seen_from = "the peak's samples seen" if peak_cut is not None else "your samples seen"
            said_gain = band_text(
                gain_b.value or 0.0, gain_b.low or 0.0, gain_b.high or 0.0, "+.3f", on_fit=BOUNDED_AGREE
            )
            scale_words += (
                f" Its band is the band of that difference over the bounded fit's confidence region ({said_gain} at "
                f"{factor:,.3g}x {seen_from}); the measured AL's own "
                "run-to-run spread is not in it."
            )
        elif gain_fit is not None and shown and own_now and scale_ev is None:  # on the log's scale: the page's AL
            factor = max(n_new, own_now) / own_now
            md.al = Band(*gain_fit.predict(max(n_new, own_now)))
            base_al = gain_fit.predict(own_now)[0]  # the row's tok/s ratio: the same fit's, now to the new volume
            curve_gain = True
            scale_words += (
                f" The AL and its band are your log's power-law fit's (the one Acceptance vs data draws, "
                f"{gain_fit.n} points) at {factor:,.3g}x your samples seen, its {curves.LEVEL:.0%} band, as that page "
                "gives them."
            )
        else:
            md.al = fit.al(n_new).map(lambda v: min(v + shift, ceiling))
        if peak_cut is not None and scale_ev is not None and live_here is not None:
            # the change is the fit's from the peak; the checkpoint the measured run serves may be after the fall
            last = (
                f"pass {peak_cut.last_pass}, {human(peak_cut.last_x)} {peak_cut.unit}"
                if peak_cut.last_pass is not None
                else f"{human(peak_cut.last_x)} {peak_cut.unit}"
            )
            scale_words += (
                f" The change is counted from the eval peak, not from the checkpoint run #{live_here[0].id} "
                f"serves: if that is your last one ({last}, eval tau_sim {peak_cut.last_tau:.2f}), it is "
                f"{peak_cut.fall:.2f} below the peak on the log's scale, which keeping the {peak_cut.checkpoint()} "
                f"recovers without more data; that {peak_cut.fall:.2f} is in neither this row's AL nor its gain."
            )
            scale_ev["change from"] = "the eval peak"
        md.al_steps = fit.steps
        if shown:
            al_said = (
                band_text(md.al.value, md.al.low, md.al.high, on_fit=curves.ON_FIT if curve_gain else BOUNDED_AGREE)
                if md.al.value is not None and md.al.low is not None and md.al.high is not None and curve_scope
                else md.al.text(".2f")
            )
            reach += f"; the row shows {shown}, where the trend gives {'live ' if shift else ''}AL {al_said}"
        have = own_now or 0.0
        # a band with no count (the target not reached) costs what the row shows, n_new, as its note says (walk AM:
        # "2,560,000 unique samples ..., the count the cost is computed on" beside empty GPU-hours)
        band_n = (
            md.samples_needed
            if md.samples_needed is not None and md.samples_needed.value is not None
            else Band(n_new, n_new, n_new)
        )
        md.generation = band_n.map(lambda n: cost.generation_hours(max(n / epochs_div - have / epochs_div, 0.0)))
        if no_target and gen_s is None:
            md.generation = Band(None, None, None)
        md.training = band_n.map(lambda n: cost.training_hours(n / epochs_div))
        md.storage = band_n.map(lambda n: cost.storage_tb(n / epochs_div))
        storage_words = _storage_words(md.storage, cost, tokens_per_sample is not None)
        if in_reach is None and base_al and md.al is not None and md.al.value is not None:
            ratio = md.al.map(lambda v: v / base_al)
            md.tok_s = tok_band(ratio)
            md.gain = gain_of(md.tok_s)
            others = (
                [
                    f"batch {b}: num_steps {ran[0]}, "
                    + ("what is served there" if ran[0] == served_k else "its fastest measured run")
                    + f" ({speedup.runs_text(speed.model_for(b).measured_runs(ran[0]))})"
                    for b in tok_batches
                    if b != rank_batch and str(b) in md.tok_s and (ran := served_run(b)) is not None
                ]
                if speed is not None and md.tok_s
                else []
            )
            # walk AK: the AL column and each batch's tok/s, which setting; said only where another measured batch
            # is at its own run, or the num_steps row names another best at a batch no run measured (every batch at
            # the served num_steps, and no other pick, needs no such sentence)
            unmeasured = [b for b in md.tok_s if speed is not None and not speed.measured_at(int(b))]
            picked_there = {
                b: k_b for b in unmeasured if (k_b := predicted_best(int(b))) is not None and k_b != served_k
            }
            if speed is not None and (others or picked_there):
                served_at = [f"batch {rank_batch}: num_steps {speed.served_steps}, what is served there", *others]
                if unmeasured:  # the ranked batch's served num_steps, and the num_steps row's own pick there
                    many = len(unmeasured) > 1
                    served_at.append(
                        f"batch{'es' if many else ''} {_and_words(unmeasured)}: num_steps {speed.served_steps}, "
                        f"batch {rank_batch}'s served num_steps carried there, predicted (no run measured "
                        f"{'those batches' if many else 'it'}, so none is served there yet"
                        + (
                            "; the num_steps row predicts "
                            + _and_words(
                                [
                                    f"{k_b}{' best' if i == 0 else ''} at batch {b}"
                                    for i, (b, k_b) in enumerate(picked_there.items())
                                ]
                            )
                            + " and gives its tok/s there"
                            if picked_there
                            else ""
                        )
                        + ")"
                    )
                scale_words += (
                    f" Its AL is at {chain}; its tok/s at each batch is that batch's served setting times this AL's "
                    f"change ({'; '.join(served_at)})."
                )
        if fit.scope == "curve":
            fit_name = f"The bounded fit of your learning curve (plateau at or below K + 1 = {fit.steps + 1})"
        else:
            fit_name = (
                f"The pooled logistic fit of published drafts at {chain} (logit((AL - 1) / K) linear in log N, "
                f"plateau fixed at K + 1 = {fit.steps + 1}; not your curve)"
            )
        epochs_words = ""
        if curve_scope and own_now and inputs.own_samples and own_now > inputs.own_samples:
            # the log's passes over your unique samples against the epochs the cost divides by
            passes = own_now / inputs.own_samples
            if abs(passes / epochs - 1) > 0.25:
                epochs_words = (
                    f" Your log saw {own_now:,.0f} samples against your {inputs.own_samples:,.0f} "
                    f"{_own_noun(inputs).replace('samples', 'training samples', 1)} "
                    f"({inputs.own_samples_source or 'given'}): about {traininglogs.passes_text(passes)} "
                    f"epochs, while the cost divides samples seen by {epochs:g} epoch{'' if epochs == 1 else 's'} "
                    "(`--epochs` on the CLI)."
                )
        set_aside = (
            f"Your learning curve's fit is set aside, as on Acceptance vs data ({inputs.curve_set_aside}): no band or "
            "samples figure is taken from your curve. "
            if inputs.curve_x and inputs.curve_set_aside
            else ""
        )
        other_fit = ""
        loglin = None
        if fit.scope == "pooled" and target_al is not None and len(pts) >= 3 and not off_trend:
            loglin = _loglinear_samples(pts["samples"], pts["al"], target_al)
        if loglin is not None and (md.samples_needed is None or md.samples_needed.value is None):
            # the logistic gives no count here: the line's, said as that fit's (Acceptance vs data draws it)
            where = (
                f"at about {human(loglin)} samples"
                if loglin <= fit.x_max * OUT_OF_REACH
                else f"out of its reach too (past {OUT_OF_REACH:,.0f}x the most it was fitted on)"
            )
            other_fit = (
                f" The log-linear fit on the same {len(pts)} points (AL linear in log N, the form Acceptance vs data "
                f"draws, no ceiling) puts the target {where}; Acceptance vs data fits its line to one setting's "
                "points, so its figure can differ again."
            )
        elif loglin is not None and md.samples_needed is not None and md.samples_needed.value is not None:
            other_fit = _two_fits_words(loglin, md.samples_needed.value, len(pts), fit.steps)
        md.note = (
            set_aside
            + (f"{apart_words} " if apart_words else "")
            + f"{fit_name} {reach}."
            + (f" {off_trend}" if off_trend else "")
            + (below_trend if fit.scope == "pooled" else "")
            + (cross_bench if fit.scope == "pooled" else "")
            + scale_words
            + epochs_words
            + storage_words
            + other_fit
            + (" " + _sentence(speed_note) if speed is None and speed_note else "")
            + (f" Note: {no_target}." if no_target else "")
        )
        md.evidence = [
            _ev("acceptance fit", fit.summary(), fit_src),
            _ev("target AL", target_al, t_src),
            _ev(f"samples{seen} now", own_now, samples_src if fit.scope == "pooled" else fit_src),
            _ev("tokens per sample", tps, tps_src),
            _ev("GPU-hours: generation of the new samples, training on all of them", formulas, cal_src),
            _ev("storage, offline hidden states", formulas["storage"], pubs["speculators-storage"]),
            _ev(
                "bounded form",
                "log-linear middle, plateau at or below K + 1",
                f"{pubs['scylla']}, {pubs['draft-opd']}",
            ),
        ]
        if scale_ev is not None:
            md.evidence.append(
                _ev(
                    "your log's fit put on the live scale",
                    scale_ev,
                    _source(
                        sources,
                        "measured",
                        f"store run {scale_ev['run']}: AL {scale_ev['measured live AL']:g} at {chain}",
                    ),
                )
            )
        if loglin is not None and loglin <= fit.x_max * OUT_OF_REACH:  # past it, no count (said in the note)
            md.evidence.append(_ev("samples needed by the log-linear fit on the same points", loglin, fit_src))
        if speed is not None:
            md.evidence.append(
                _ev("tok/s", "served AL scaled by the fit's AL ratio, at the served num_steps", model_src)
            )
        if in_reach is not None and own_now:
            # as "Target already met" says it: no samples, AL, tok/s, gain or cost; the fit's count and what no run
            # measured, instead of retraining on the volume you have
            fitted = "the trend" if fit.scope == "pooled" else "your log's fit"
            md.al = md.samples_needed = md.gain = None
            md.tok_s = {}
            md.generation = md.training = md.storage = Band(None, None, None)
            if loglin is not None:
                other_fit = _two_fits_words(loglin, in_reach, len(pts), fit.steps)
            md.note = (
                set_aside
                + f"{fit_name} puts the target {target_named} at about {human(in_reach)} samples{seen}, at or below "
                f"your {own_now:,.0f} samples{seen}: more training data is not what {fitted} asks for, so no gain or "
                f"cost is claimed. No run of your draft measured acceptance at {chain} to say whether it reaches the "
                "target there"
                + (
                    "; your log's fit is on the training simulation's scale (tau_sim), not the live one the target is "
                    "on, so this is read across scales."
                    if curve_scope
                    else "."
                )
                + (f" {off_trend}" if off_trend else "")
                + (below_trend if fit.scope == "pooled" else "")
                + (cross_bench if fit.scope == "pooled" else "")
                + other_fit
            )
            md.evidence = [
                e
                for e in md.evidence
                if not str(e.get("what", "")).startswith(("GPU-hours", "storage", "tokens per", "tok/s"))
            ]
            current["target_in_reach_by_trend"] = in_reach
    log_note = ""
    if inputs.curve_verdict == "plateau":
        # your own log says more of the same data does not help: neither the published trend nor the log's own fit
        # (walk Q: +0.5 tok/s from its plateau, within noise, listed first over options that gained nothing) ranks
        # it above anything else
        md.weighed_down = True
        unfit = (
            f" The plan could not fit your log: {inputs.curve_unused.strip().rstrip('.')}."
            if inputs.curve_unused and not inputs.curve_x
            else " Your log's own fit is set aside, as on Acceptance vs data."
            if inputs.curve_x and inputs.curve_set_aside
            else ""
        )
        on_what = (
            "is ranked last, whatever its fit adds"
            if fit is not None and fit.scope == "curve"
            else "is not ranked first on the published drafts' trend alone"
        )
        # a plateau whose eval fell past noise after its peak (not called overfitting) is said as that fall
        fell = inputs.curve_peak
        log_note = (
            "Your training log (Acceptance vs data) "
            + (
                f"stopped rising on this data: {fell.fell_words()}"
                if fell is not None
                else f"{inputs.curve_ceiling} on this data"
                if inputs.curve_ceiling
                else "has plateaued on this data"
            )
            + f", so more training data {on_what}: more of the same data is not expected to raise acceptance; new or "
            "different data (another mix, longer or harder samples) or a bigger draft may."
            + (f" Keep the {fell.checkpoint()}." if fell is not None else "")
            + unfit
        )
        md.note = f"{log_note} {md.note}".strip()
        md.evidence.append(
            _ev(
                "your training log",
                "plateau",
                _source(sources, "user", "your training log's verdict on Acceptance vs data: plateau"),
            )
        )
    elif inputs.curve_verdict == "overfitting":
        # more passes over the same samples lowered eval (walk S: ranked last as a "plateau"): more UNIQUE data is
        # the remedy, more epochs are not, and the row's new samples are unique ones
        peak = inputs.curve_peak
        log_note = (
            "Your training log (Acceptance vs data) is overfitting: "
            + (f"{peak.words()}. " if peak is not None else "eval acceptance fell after its peak while train rose. ")
            + "More epochs over the same samples are not the remedy; more unique data (this row's new samples) is "
            + "likely to help. Keep the "
            + (peak.checkpoint() if peak is not None else "checkpoint where eval peaked")
            + "."
            + (f" In the plan, {_peak_cut(inputs)}." if _peak_cut(inputs) else "")
        )
        md.note = f"{log_note} {md.note}".strip()
        md.evidence.append(
            _ev(
                "your training log",
                "overfitting" if peak is None else peak.to_json(),
                _source(sources, "user", "your training log's verdict on Acceptance vs data: overfitting"),
            )
        )
    elif inputs.curve_verdict == "rising" and inputs.curve_rise and (fit is None or fit.scope != "curve"):
        # the row is the published trend's (or none), not your log's: your log's own evidence is said beside it, as
        # measured (walk AL4: Overview's "still rising, which agrees: more data should help" above a row that said
        # nothing of the log's +0.455 per doubling)
        log_note = f"{RISING_LOG}: {inputs.curve_rise}, so more of the same data should help."
        md.note = f"{log_note} {md.note}".strip()
        md.evidence.append(
            _ev(
                "your training log",
                "rising",
                _source(
                    sources, "user", f"your training log's verdict on Acceptance vs data: rising; {inputs.curve_rise}"
                ),
            )
        )
    options.append(md)

    # ---- num_steps per batch
    ns = Option("num-steps", "num_steps chosen per batch size")
    unidentified = speedup.optimum_missing(speed.model) if speed is not None else []
    if speed is not None and unidentified:
        # the per-step cost is a guess (one num_steps) or not physical: a "best num_steps" would be the guess's
        ns.note = _sentence(
            f"No best num_steps predicted yet (served: {speed.served_words}); "
            "still missing: " + "; ".join(unidentified)
        )
        ns.evidence = [_ev("per-step cost", None, model_src)]
        options.append(ns)
    elif speed is not None:
        best_k: dict[str, int] = {}
        tied_k: dict[str, tuple[int, ...]] = {}
        tok: dict[str, Band] = {}
        picks: dict[int, dict[int, float]] = {}  # what each batch's best is picked on
        gaps: list[tuple[int, str]] = []  # where a swept batch's measurement and the model part by more than a few %
        # a swept batch's predictions and measured num_steps: a prediction is weighed against the model's own at a
        # measured num_steps, as on the speedup page (walk AH3: 357.8 predicted at 5 beat 350.6 measured at 4)
        basis: dict[int, tuple[dict[int, float], set[int]]] = {}

        def pick(b: int) -> tuple[int, tuple[int, ...]]:
            return speedup.pick_steps(picks[b], *basis.get(b, (None, set())))

        def picked(b: int) -> dict[int, float]:
            """The batch's tok/s per num_steps as the speedup page picks on it: measured where that batch's own
            sweep measured the num_steps (walk P: the model put 264.6 at batch 4, num_steps 4, where 248.4 was
            measured, and named it the best over 263.4 measured at 5), else predicted."""
            m = speed.model_for(b)
            if speed.measured_at(b) and one_num_steps(m):  # a batch's one run anchors its cycle; no sweep to pick on
                return {p.num_steps: t for p in m.measured if (t := m.measured_tok_s(p.num_steps)) is not None}
            vals = {k: speed.tok_s(b, speed.al_at(k, inputs.offline, batch=b), k) for k in speedup.STEPS}
            if not speed.measured_at(b):
                # walk BW 3: where other num_steps rest on a step cost assumed at a one-num_steps batch, no best is
                # picked on them: only the num_steps the runs anchor
                anchored = {k: v for k, v in vals.items() if speed.assumed_at(b, k) is None}
                return anchored if len(anchored) < len(vals) and anchored else vals
            said = speedup.model_gaps_clause(speedup.model_gaps(m, vals))
            if said:
                gaps.append((b, said))  # its tail waits for the pick: measured or predicted (walk AN)
            basis[b] = (vals, {k for k in vals if m.measured_tok_s(k) is not None})
            return speedup.picked_tok_s(m, vals)

        def gap_words(b: int, said: str) -> str:
            """The batch's model-gap sentence, ending as the speedup page ends it: "the best is picked on the
            measurements there" only where the pick is measured (walk AN: a predicted 6 read as picked on them)."""
            k = best_k.get(str(b))
            if k is None or speed.model_for(b).measured_tok_s(k) is not None:
                return f"At batch {b} {said}; the best is picked on the measurements there."
            return (
                f"At batch {b} {said}; measured num_steps are weighed on their measurements, and the best, "
                f"num_steps={k}, is predicted."
            )

        def at(b: int, k: int) -> str:
            """ "at 83.4 tok/s measured in run #5" or "at 1,140.6 tok/s predicted" """
            m = speed.model_for(b)
            runs = m.measured_runs(k) if speed.measured_at(b) and m.measured_tok_s(k) is not None else ()
            how = f"measured in {speedup.runs_text(runs)}" if runs else "predicted"
            if not runs and not speed.measured_at(b):  # from which batches, and the caveat (walk W, walk AS)
                how = _predicted_from(speed, b, k) + _measured_beside(inputs.runs, speed, b, k)
            return f" at {picks[b][k]:,.1f} tok/s {how}"

        for b in (b for b in batches if b not in lost):  # none where a measured batch lost (``lost``: walk S)
            picks[b] = vals = picked(b)
            k_best, tied_k[str(b)] = pick(b)  # the speedup page's rule: ties go to the smaller
            best_k[str(b)] = k_best
            tok[str(b)] = Band(vals[k_best], vals[k_best], vals[k_best])
            m_b = speed.model_for(b)
            if speed.measured_at(b) and m_b.measured_tok_s(k_best) is not None:
                ns.measured[str(b)] = speedup.runs_text(m_b.measured_runs(k_best))
        ns.tok_s = tok
        ns.gain = gain_of(tok)
        served_tok = picks.get(rank_batch, {}).get(speed.served_steps)
        if served_tok is not None:  # the served num_steps read as the best is (measured where measured): like for like
            ns.gain = tok[str(rank_batch)].map(lambda v: v - served_tok)
        if str(rank_batch) in best_k:
            ns.al = Band(*[speed.al_at(best_k[str(rank_batch)], inputs.offline, batch=rank_batch)] * 3)
            ns.al_steps = best_k[str(rank_batch)]
        missing = speedup.missing_evidence(speed.model)
        off_steps = inputs.offline is not None and bool(inputs.offline.al_by_steps)
        al_src = _source(sources, "measured", inputs.offline.source) if inputs.offline and off_steps else model_src

        def tie_words(b: int, k: int, ties: Sequence[int]) -> str:
            """ "(4 ties)", "(measured; 4 ties, predicted)", "(measured; 4, 5 tie; 5 predicted)" or "(2 ties; both
            predicted)": a tied num_steps the batch's sweep did not measure is said so (walk Z: "3 (4, 5 tie) ...
            measured" read as if 5 had been measured too), and then so is the named one (walk AA: "3 (4 ties,
            predicted) at 92.4 tok/s measured in run #14" read as if 3 were predicted)."""
            m = speed.model_for(b)

            def measured(t: int) -> bool:
                return speed.measured_at(b) and m.measured_tok_s(t) is not None

            pred = [t for t in ties if not measured(t)]
            said = f"{', '.join(map(str, ties))} {'ties' if len(ties) == 1 else 'tie'}"
            if not pred:
                return f" ({said})"
            if not measured(k) and len(pred) == len(ties):  # all of them predicted
                return f" ({said}; {'both' if len(ties) == 1 else 'all'} predicted)"
            said += ", predicted" if len(ties) == 1 else f"; {', '.join(map(str, pred))} predicted"
            return f" ({'measured' if measured(k) else 'predicted'}; {said})"

        # walk AR: a batch measured at one num_steps, with no verify time and sweep to calibrate it (what the speedup
        # page asks before it names a best), has no best: what another num_steps gives there rests on an assumed
        # draft-step cost. Its one run is said, not a best
        one_at = {
            b
            for b in best_k
            if speed.measured_at(int(b))
            and one_num_steps(m_b := speed.model_for(int(b)))
            and speedup.optimum_missing(m_b)
        }

        # walk BW 3: a batch no run measured, predicted at other num_steps on a step cost assumed at a batch measured
        # at one num_steps, has no best either (``picked`` kept only the num_steps the runs anchor)
        assumed_at = {
            b: on
            for b in best_k
            if not speed.measured_at(int(b))
            and (on := next((o for k in speedup.STEPS if (o := speed.assumed_at(int(b), k)) is not None), None))
        }
        one_at |= set(assumed_at)

        def named(b: str) -> str:
            ties = tied_k[b]
            if b in assumed_at:
                k0 = best_k[b]
                return (
                    f"batch {b}: the best is not known (no run measured batch {b}, and at num_steps other than {k0} "
                    f"what it gives rests on {_assumed_words(assumed_at[b])}, not measured); "
                    f"num_steps {k0}{at(int(b), k0)}"
                )
            if b in one_at:
                return (
                    f"batch {b}: one num_steps measured, {best_k[b]},{at(int(b), best_k[b])} (the best there is not "
                    "known: no other num_steps was measured there, and what one would give rests on a draft-step "
                    "cost assumed, not measured)"
                )
            return (
                f"batch {b}: {best_k[b]}"
                + (tie_words(int(b), best_k[b], ties) if ties else "")
                + at(int(b), best_k[b])
            )

        # a batch the group swept that the plan's batches do not hold (walk N: 1 and 32 measured, the plan gave
        # 1, 8 and 64, and the batch-32 sweep's own best was said nowhere): its measured sweep's pick, named
        swept_only = []
        swept_lost = []  # a swept batch's runs that lost to its baseline beyond noise, where others did not
        for c in sorted(b for b in speed.by_batch if b not in batches):
            picks[c] = picked(c)
            k_c, ties_c = pick(c)
            if one_num_steps(speed.by_batch[c]):  # walk S's batch 16: one run, against its baseline
                p_c = pairs_at.get(c)
                swept_only.append(
                    f"batch {c} (one num_steps measured, run {_run_ids(speed.by_batch[c])}): {k_c}{at(c, k_c)}"
                    + (f", {p_c.ratio:.2f}x its baseline (run #{p_c.baseline.id})" if p_c is not None else "")
                    + ("; speculation loses there" if p_c is not None and p_c.loses else "")
                )
                continue
            m_c = speed.by_batch[c]
            if lost_c := speedup.all_lost(m_c):
                # every num_steps measured there lost: that is the answer there, not the model's pick past them (a
                # user's batch 16 lost at 2 and 3; "1 at 1,831.0 tok/s predicted" was all this line said)
                assert m_c.baseline_tok_s is not None
                base_c = m_c.baseline_tok_s
                swept_c = sorted({p.num_steps for p in m_c.measured})
                line = (
                    f"batch {c} (its own measured sweep, {_run_ids(m_c)}): every measured num_steps lost to its "
                    f"baseline (run #{m_c.baseline_run_id}, {base_c:,.1f} tok/s): "
                    + "; ".join(f"num_steps {p.num_steps} in run #{p.run_id}, {p.tok_s / base_c:.2f}x" for p in lost_c)
                    + f"; serve without speculation at batch {c}"
                )
                if k_c not in swept_c:
                    e = m_c.elsewhere_accept(k_c)
                    al_c = speed.al_at(k_c, inputs.offline, batch=c)
                    acc = e.words if e is not None else "predicted"
                    line += (
                        f" (num_steps {k_c} was not measured there: measure it before trusting the model's "
                        f"{picks[c][k_c]:,.1f} tok/s there, {picks[c][k_c] / base_c:.2f}x, predicted from runs "
                        f"{_run_ids(m_c)} with acceptance {al_c:.2f} {acc})"
                    )
                elif swept_c[0] > 1:
                    line += (
                        f" (num_steps 1 was not measured there: measure it before ruling speculation out at batch {c})"
                    )
                swept_only.append(line)
                continue
            swept_only.append(
                f"batch {c} (its own measured sweep, {_run_ids(speed.by_batch[c])}): {k_c}"
                + (tie_words(c, k_c, ties_c) if ties_c else "")
                + at(c, k_c)
            )
            if said_lost := speedup.losing_words(m_c):  # walk AB: #7 lost at batch 4 (0.92x), said nowhere
                swept_lost.append(said_lost)
        # a swept batch's column in the table: the figure its "Also swept" line names (walk AC: bs16 was blank)
        for c in (c for c in tok_batches if c not in batches and c in picks):
            k_c = pick(c)[0]
            tok[str(c)] = Band(*[picks[c][k_c]] * 3)
            m_c = speed.model_for(c)
            if speed.measured_at(c) and m_c.measured_tok_s(k_c) is not None:  # walk BV 1: said "predicted"
                ns.measured[str(c)] = speedup.runs_text(m_c.measured_runs(k_c))
        ns.tok_s = dict(sorted(tok.items(), key=lambda kv: int(kv[0])))
        served_ties = [b for b in best_k if b not in one_at and speed.served_steps in (best_k[b], *tied_k[b])]
        # walk BY 1: where a batch's runs measured the served num_steps and its best beats it beyond noise, what
        # switching gains there, from the runs (batch 16: 2 measured 9.1% over the served 3, said nowhere)
        served_loses = []
        for b in sorted(int(x) for x in picks):
            m_b = speed.model_for(b)
            t_s = m_b.measured_tok_s(speed.served_steps) if speed.measured_at(b) else None
            if t_s is None or (str(b) in one_at if str(b) in best_k else one_num_steps(m_b)):
                continue
            k_b = best_k[str(b)] if str(b) in best_k else pick(b)[0]
            t_b = picks[b].get(k_b)
            if k_b == speed.served_steps or t_b is None or t_b <= t_s * (1 + speedup.TIE_TOLERANCE):
                continue
            runs_k = m_b.measured_runs(k_b) if m_b.measured_tok_s(k_b) is not None else ()
            served_loses.append(
                f"At batch {b} the served num_steps {speed.served_steps} measured {t_s:,.1f} tok/s "
                f"({speedup.runs_text(m_b.measured_runs(speed.served_steps))}): num_steps {k_b} "
                + (f"measured {t_b:,.1f} tok/s ({speedup.runs_text(runs_k)})" if runs_k else f"{t_b:,.1f} predicted")
                + f", {t_b - t_s:+,.1f} tok/s ({t_b / t_s - 1:+.1%})."
            )
            if b != rank_batch:  # the lead names it beside "no option gains" at the ranking batch (walk BZ 1)
                current.setdefault("served_beaten", []).append(
                    {
                        "batch": b,
                        "served_steps": speed.served_steps,
                        "served_tok_s": t_s,
                        "served_runs": list(m_b.measured_runs(speed.served_steps)),
                        "best_steps": k_b,
                        "best_tok_s": t_b,
                        "best_runs": list(runs_k),
                    }
                )
        # walk Y: a batch between two measured ones reads the runs at num_steps both measured; a best or a tie at
        # another num_steps there rests on the fits, which may miss their own runs: said, with by how much
        fit_drawn = []
        for b in (b for b in batches if str(b) in best_k and speed.run_steps(b)):
            ks_fit = speed.model_steps(b, (best_k[str(b)], *tied_k[str(b)]))
            if ks_fit:
                a_c, b_c = (m.concurrency for m in speed.bracketed(b) or ())
                misses = _fit_misses(speed, b)
                fit_drawn.append(
                    f"At batch {b} num_steps {_and_words(ks_fit)} ("
                    + ", ".join(f"{picks[b][k]:,.1f} tok/s" for k in ks_fit)
                    + f") {'is' if len(ks_fit) == 1 else 'are'} drawn through the batch-{a_c} and batch-{b_c} fits, "
                    f"not runs: no run measured {'it' if len(ks_fit) == 1 else 'them'} at both batches"
                    + (f" ({misses})" if misses else "")
                    + "."
                )
        # walk AB: num_steps 1 measured 1.49 at batch 4 (and at batch 1 with other max_tokens) while batch 1 ranked
        # on the 2.00 its sweep's per-position rates predicted: an acceptance measured elsewhere stands in, said so
        stood_in = [
            f"At batch {m_b.concurrency} the acceptance at num_steps {e.num_steps} is the {e.accept_length:.2f} "
            f"{e.words}" + (f", not the fit's {e.fit_accept:.2f}" if e.fit_accept is not None else "") + "."
            for _, m_b in sorted({m.concurrency: m for m in (speed.model, *speed.by_batch.values())}.items())
            for e in m_b.accept_elsewhere
            if m_b.elsewhere_accept(e.num_steps) is e
        ]
        # walk M: batch 64's best, 1,140.6 tok/s, under the baseline drawn the same way (about 1,183): said
        no_pay = []
        for b in (b for b in batches if b not in lost):
            base = speed.baseline_tok_s(b)
            best_b = tok[str(b)].value
            if base is not None and best_b is not None and best_b <= base * (1 + speedup.TIE_TOLERANCE):
                how = "measured" if speed.measured_at(b) else "predicted"
                no_pay.append(f"batch {b} ({best_b:,.1f} tok/s against {base:,.1f} {how} without it)")
        ns.note = (
            "Best num_steps (measured tok/s where that batch's own sweep measured the num_steps, else the speedup "
            "model's prediction from the attached runs, weighed against the model's own prediction at a measured "
            f"num_steps; within {speedup.TIE_TOLERANCE:.0%} of the fastest the smallest is named): "
            + ", ".join(
                named(str(b)) if str(b) in best_k else f"batch {b}: not predicted: {lost[b]}"
                for b in batches
                if str(b) in best_k or b in lost
            )
            + f" (served: {speed.served_words})."
            + (f" Also swept: {'; '.join(swept_only)}." if swept_only else "")
            + "".join(f" {w}" for w in swept_lost)
            + "".join(f" {gap_words(b, said)}" for b, said in gaps)
            + "".join(f" {w}" for w in stood_in)
            + "".join(f" {w}" for w in fit_drawn)
            + "".join(f" {w}" for w in served_loses)
            + (
                f" The served num_steps is the best or ties it within {speedup.TIE_TOLERANCE:.0%} at batch "
                + ", ".join(served_ties)
                + ": no other num_steps gains there beyond noise."
                if served_ties
                else ""
            )
            + (" " + _sentence("Still missing: " + "; ".join(missing)) if missing else "")
            + (
                f" Speculation is not predicted to pay at {', '.join(no_pay)}: within "
                f"{speedup.TIE_TOLERANCE:.0%} of the baseline, or below it."
                if no_pay
                else ""
            )
            + " "
            + batch_words()
        )
        ns.evidence = [
            _ev("best num_steps per batch", {b: k for b, k in best_k.items() if b not in one_at}, batch_sources()),
            _ev(
                "tok/s per batch: measured sweep of that batch, or predicted from other batches",
                {
                    str(b): "not predicted" if b in lost else "measured" if speed.measured_at(b) else "predicted"
                    for b in batches
                },
                batch_sources(),
            ),
            _ev(
                "num_steps that tie within run-to-run noise, per batch",
                {b: list(t) for b, t in tied_k.items()},
                model_src,
            ),
            _ev("AL per num_steps", "offline al_replay" if off_steps else "speedup model", al_src),
        ]
        options.append(ns)

    # ---- a measured tree
    if speed is not None:
        tree = _tree_option(inputs.runs, speed, rank_batch, cur_tok, sources, model_src)
        if tree is not None:
            options.append(tree)

    # ---- draft size
    for label, params_c, record in inputs.candidates:
        if speed is None:
            break
        ds = Option("draft-size", f"Draft shaped like {label}")
        fn, note = step_function(speed.model, None)
        base_rec = inputs.step_record
        if base_rec is not None:
            own_base, _ = draftcost.step_ms_for_batch(base_rec, speed.model.concurrency)

            def cand(b: int, _r: Mapping[str, Any] = record, _o: float = own_base) -> float:
                ms, _ = draftcost.step_ms_for_batch(_r, b)
                return max(speed.model.t_draft_ms + ms - _o, 0.0)

            fn = cand
            note = f"its draft step measured on {record.get('_device')} ({record.get('_file')})"
        ds.tok_s = tok_band(None, step_ms=fn)
        ds.gain = gain_of(ds.tok_s)
        if ds.gain is not None:
            # the step cost is measured, the AL change is not known: the gain has no lower bound
            ds.gain = Band(ds.gain.value, None, ds.gain.value)
        al_now = speed.al_at(speed.served_steps)
        ds.al = Band(al_now, al_now, al_now)
        ds.al_steps = speed.served_steps
        own_have = inputs.own_samples
        if own_have:
            have = float(own_have)
            ds.training = Band(*([cost.training_hours(have, params_c)] * 3))
            ds.generation = Band(*([cost.generation_hours(have)] * 3))
            if no_target and gen_s is None:
                ds.generation = Band(None, None, None)
            ds.storage = Band(*([cost.storage_tb(have)] * 3))
            retrain = (
                f"cost = retraining on your {have:,.0f} samples (online: generation again; offline with stored "
                "states: training only)."
            )
        else:  # retraining is not free: without the volume its cost is unknown, and the option is not ranked by it
            ds.training = ds.generation = ds.storage = Band(None, None, None)
            retrain = "cost unknown: retraining needs your training volume (attach it to the draft)."
        ds.note = (
            f"Same AL assumed: no published pair of drafts that differ only in size is known, so no AL change is "
            f"claimed. The tok/s change is the measured step cost ({params_c:,.0f} against "
            f"{inputs.draft_params:,.0f} parameters outside the embedding); {retrain}"
        )
        ds.evidence = [
            _ev("draft step", note, _source(sources, "measured", f"draft-cost figures: {note}")),
            _ev("AL change", None, "none known"),
            _ev("training samples", own_have or None, samples_src or "none given"),
        ]
        options.append(ds)

    # ---- wiring and vocabulary
    fixed_al = None
    fixed_src = ""
    if fit is not None and own_now:
        fixed_al = fit.al(own_now)
        fixed_src = fit_src
    if inputs.lint_errors or inputs.lint_warnings:
        fw = Option("fix-wiring", "Fix the wiring (aux layers, norms, config the engine reads)")
        fw.blocking = bool(inputs.lint_errors)
        lint_src = _source(sources, "measured", "wiring lint (models.lint) of the draft's config against its target")
        if inputs.lint_errors and fixed_al is not None and speed is not None and current_al_k:
            # a wiring error breaks serving, not training: the fit says what the data supports
            conv = fixed_al
            if fit is not None and fit.steps != speed.served_steps:
                conv = fixed_al.map(
                    lambda v: speedup.geometric_accept(
                        speedup.alpha_for(min(v, fit.steps + 1), fit.steps),
                        speed.served_steps,
                    )
                )
            al_k = current_al_k
            ratio = conv.map(lambda v: v / al_k)
            fw.tok_s = tok_band(ratio)
            fw.gain = gain_of(fw.tok_s)
            fw.al = fixed_al
            fw.al_steps = fit.steps if fit is not None else None
            fw.note = (
                "Error-level wiring findings: the served AL is not what the training reached. Expected AL once "
                "fixed: what the fit says your data supports."
            )
        elif inputs.lint_errors:
            fw.note = "Error-level wiring findings: fix them before measuring anything else (gain unknown: no fit)."
        else:
            fw.note = "Warnings only: check them; no AL gain is claimed."
        fw.evidence = [_ev("lint", list(inputs.lint_errors or inputs.lint_warnings), lint_src)]
        if fixed_src:
            fw.evidence.append(_ev("AL once fixed", None if fixed_al is None else fixed_al.to_json(), fixed_src))
        options.append(fw)
    off = inputs.offline
    if off is not None and (off.vocab_flags or (off.vocab_ceiling is not None and off.vocab_ceiling < 0.9)):
        fv = Option("fix-vocab", "Fix the draft vocabulary / d2t mapping")
        fv.blocking = bool(off.vocab_flags)
        osrc = _source(sources, "measured", off.source)
        if speed is not None and off.vocab_ceiling:
            # acc_1 is capped by the share of target tokens the draft vocabulary can emit
            alpha = speed.model.alpha
            new_alpha = min(alpha / max(off.vocab_ceiling, 1e-6), 0.99)
            k = speed.served_steps
            ratio_v = speedup.geometric_accept(new_alpha, k) / speedup.geometric_accept(alpha, k)
            fv.tok_s = tok_band(Band(ratio_v, 1.0, ratio_v))
            fv.gain = gain_of(fv.tok_s)
            al_now = speed.al_at(k)
            fv.al = Band(al_now * ratio_v, al_now, al_now * ratio_v)
            fv.al_steps = k
        fv.note = (
            "Offline evaluation flags the vocabulary: ceiling "
            + (f"{off.vocab_ceiling:.3f}" if off.vocab_ceiling is not None else "unknown")
            + (f"; {'; '.join(off.vocab_flags)}" if off.vocab_flags else "")
            + ". Gain: the per-position acceptance freed of the ceiling (an upper bound)."
        )
        fv.evidence = [_ev("vocabulary", {"ceiling": off.vocab_ceiling, "flags": list(off.vocab_flags)}, osrc)]
        options.append(fv)

    # ---- serving without speculation where a measured batch loses (walk S: 0.92x at batch 16, never offered)
    if speed is not None and (losing := sorted(c for c, p in pairs_at.items() if p.loses)):
        without = _no_speculation(pairs_at, losing, rank_batch, inputs.runs, speed, sources)
        if rank_batch in lost:  # no speculative tok/s there: this is the plan's answer at that batch
            options.insert(0, without)
        else:
            options.append(without)

    # ---- rank
    noise = NOISE * cur_tok.get(rank_batch, 0.0)  # Plan.noise
    options.sort(key=lambda o: rank_key(o, noise))
    return Plan(
        draft=inputs.draft_label,
        target_al=target_al,
        target_al_source=t_src,
        steps=steps,
        served_steps=speed.served_steps if speed else None,
        rank_batch=rank_batch,
        gpu=g.name,
        options=options,
        current=current,
        fit=fit,
        fit_note=fit_note,
        points=pts,
        sources=sources,
        cost=cost_json,
        log_note=log_note,
        rank_batches=offered,
        unranked={b: why for b, why in _unlike_words(inputs).items() if b not in offered},
        benchmark=inputs.benchmark,
        benchmark_source=inputs.benchmark_source,
        target_shift=target_shift,
    )


# ---------------------------------------------------------------------------------------------
# Gathering the inputs for a draft (shared by the CLI and the Overview page)


def _own_acceptance_run(
    own: Sequence[Any], group: Sequence[Any], draft: str | None, target: str | None, shape_ref: str | None
) -> int | None:
    """The run Overview reads "your acceptance" from (``overview.own_acceptance`` over your draft's runs ``own``) at
    the reference it suggests from the group's runs ``group``."""
    from comparelib.analysis import overview

    try:
        reference = shape_ref or overview.default_reference(overview.reference_choices(), draft, target, group).hub_id
        mine = overview.own_acceptance(
            own, overview.reference_settings(reference), draft=draft, engine=overview.reference_engine(reference)
        )
    except (CompareError, KeyError, ValueError):  # no reference to read settings from: the plan's own rule
        return None
    return int(mine.run.id) if mine is not None and mine.run.id is not None else None


# the words ``comparison.UncountedTarget.note`` names an architecture the parameter counter has no rules for with
_UNCOUNTED = re.compile(r"has an unsupported architecture, ([^\s(]+) \(the parameter counter")


def target_uncounted(entry: Any) -> str:
    """Why ``entry``'s target has no active parameter count though its config was read: an architecture the
    parameter counter has no rules for (``comparison.UncountedTarget``), with its checkpoint's total where its
    headers were read, which does not say what one token passes through; "" for a counted target or one whose
    config was not read (walk BL5: the plan said Qwen/Qwen3.5-397B-A17B's config "could not be read", beside the
    note of its config's layers, hidden size and vocabulary)."""
    if entry.target_count is not None or not entry.target_label:
        return ""
    found = _UNCOUNTED.search(entry.target_note or "")
    if found is None and entry.target_stored is None:
        return ""
    arch = f", {found.group(1)}" if found else ""
    said = f"its config was read, but the parameter counter has no rules for its architecture{arch}"
    if entry.target_stored is not None:
        said += (
            f"; its checkpoint's {entry.target_stored:,} parameters in all do not say how many one token passes "
            "through"
        )
    return said


def inputs_for(
    entry: Any,
    *,
    runs: Sequence[Any] = (),
    own_samples: float | None = None,
    own_samples_source: str = "",
    own_tokens: float | None = None,
    curve: Any = None,
    curve_source: str = "",
    curve_verdict: str | None = None,
    curve_unused: str = "",
    offline: Offline | None = None,
    benchmark: str | None = None,
    published: pd.DataFrame | None = None,
    target: str | None = None,
    draft: str | None = None,
    own_run: int | None = None,
    steps: int = 3,
) -> Inputs:
    """``Inputs`` from a ``comparison.Entry`` (the draft, counted and linted), its runs and its data.

    ``steps``: the plan's num_steps K (``build``'s): ``curve`` is read over its first K positions, as ``--curve`` is
    (``curves.at_steps``), whether it was kept with the draft or loaded on Acceptance vs data at another setting's
    (walk AL3: a log kept at 5 positions was fitted as a 5-position curve by a plan at 3 steps).

    ``own_run``: the run "your acceptance" is read from on Overview (``overview.own_acceptance`` at its
    reference's published settings); default: the one it reads at the reference Overview suggests, so the plan
    names the run the other pages name.

    Runs served with another model than the draft's target (``target``; default: the entry's, else its runs')
    are left out and named (``runs_note``): a plan from another model's speed is not this draft's. ``draft`` (your
    draft's name) reads the runs' target from its own runs and the baselines only, and keeps only those, as
    Overview does: another draft's runs (or the target's own MTP) are left out and named; the group's runs for the
    target (every draft's) still choose the reference the target AL is read from, as on Overview.

    ``curve_verdict`` (default: ``curve``'s) is your training log's verdict; with ``curve_unused`` (why the log
    could not be fitted, e.g. no samples seen) the plan fits the published trend yet weighs the log: a plateaued
    log is not outranked by the trend's "more data".

    ``benchmark`` None: the one Acceptance vs data opens on for Overview's reference (``opening_benchmark``), so the
    plan's target AL is the figure that page opens on (walk AC: the plan insisted on GSM8K, found no GSM8K figure of
    the published Maverick draft, which publishes 2.45 on unspecified prompts, and aimed at a Llama-4-Scout draft's
    3.112; walk AD: a Qwen3-30B-A3B draft's GSM8K 2.64 beside the Qwen3-Coder draft's HumanEval 3.395)."""
    from comparelib.analysis.scaling import family_of
    from comparelib.models import lint as lint_mod
    from comparelib.models.draft import runs_for_target, runs_of_draft, target_from_runs

    # the target as named (the draft's config, its card, the page's or --target, its runs'), read or not
    named_target = target or entry.target_label or target_from_runs(runs, draft)
    by_target = runs_for_target(runs, named_target)
    shape_ref, shape_target = None, None
    if not named_target:  # Overview's reference for a draft naming no target: one of the same shape, if any
        from comparelib.analysis import overview

        chosen = overview.same_shape_reference(entry)
        if chosen is not None:
            shape_ref, shape_target = chosen.hub_id, registry_target(chosen.hub_id)
    own = runs_of_draft(by_target.kept, draft)  # your draft's runs and the baselines, as Overview's pair
    runs_note = " ".join(n for n in (by_target.note, own.note) if n)
    if own_run is None and own.kept:
        own_run = _own_acceptance_run(own.kept, by_target.kept, draft, named_target, shape_ref)

    spec = entry.spec
    try:
        shape = draftcost.shape_from_spec(spec)
        num_aux, target_hidden = shape.num_aux, shape.target_hidden
    except Exception:  # not an EAGLE-3 draft: the usual three aux layers, the draft's hidden size
        num_aux, target_hidden = lint_mod.expected_aux_count(spec), spec.target_hidden_size or spec.hidden_size
    tc = entry.target_count
    uncounted = target_uncounted(entry)
    target_active = None
    target_lm_head = 0.0
    if tc is not None:  # what one generated token runs through: no MTP module, no vision tower
        target_active = float(tc.per_token)
        target_lm_head = float(tc.lm_head)
    errors = tuple(f"{f.code}: {f.message}" for f in entry.findings if f.severity == "error" and not f.harmless)
    warnings = tuple(f"{f.code}: {f.message}" for f in entry.findings if f.severity == "warning" and not f.harmless)
    cx: tuple[float, ...] = ()
    cy: tuple[float, ...] = ()
    csteps = None
    set_aside = ""
    peak: Any = None  # the log's eval peak before a fall past noise: an overfitting log's fit stops there
    left_out: tuple[tuple[float, float], ...] = ()
    if isinstance(curve, curves.Curve):
        curve = curves.at_steps(curve, steps)
    if curve is not None and curve_verdict is None:
        curve_verdict = getattr(curve, "verdict", None)
    if curve is not None:
        pts = [p for p in curve.points if p.samples_seen]
        split = curve.evidence.get("split") if isinstance(curve.evidence, Mapping) else None
        if split in ("train", "eval"):
            pts = [p for p in pts if p.split == split] or pts
        if not pts:
            raise InputError(
                "the learning curve has no samples seen (its x axis is steps or epochs): give the samples per "
                "logged step (`--batch-size`; 'Samples per logged step' on Acceptance vs data) or per epoch "
                "(`--epoch-samples`), so the plan can count samples"
            )
        # a plateau's peak (its fall is not called overfitting) is only said: its fit is set aside, as on the page
        peak = getattr(curve, "peak", None) if curve_verdict in ("overfitting", "plateau") else None
        cut = peak is not None and curve_verdict == "overfitting"
        if cut:  # fitted up to the eval peak only: a rising fit through the fall would hide it
            left_out = tuple((float(p.samples_seen), float(p.tau_sim)) for p in pts if p.step > peak.step)
            pts = [p for p in pts if p.step <= peak.step]
        cx = tuple(float(p.samples_seen) for p in pts)
        cy = tuple(float(p.tau_sim) for p in pts)
        csteps = max((len(p.acc) for p in pts), default=0) or None
        if cx and not csteps:
            raise DataError("the learning curve has no per-position accuracies")
        ev = curve.evidence if isinstance(curve.evidence, Mapping) else {}
        if ev.get("fit_used") is False and not cut:  # Acceptance vs data and `curve` set it aside: so does the
            # plan (an overfitting log's fit is cut at its peak instead, above)
            set_aside = "; ".join(str(w) for w in ev.get("fit_not_used_because") or []) or "its fit may not predict"
    published = published if published is not None else scaling.published_points()
    bench_given = benchmark is not None
    bench_src = ""
    if benchmark is None:
        benchmark, bench_src = opening_benchmark(
            published, draft or entry.label, model_id(entry.target_label or named_target), by_target.kept, shape_ref
        )
    record = _record_for(entry.label)
    candidates = []
    if record is not None:
        for path in draftcost.recorded_files():
            try:
                data = draftcost.load_recorded(path)
            except Exception:
                continue
            for d in data.get("drafts") or []:
                if str(d.get("draft")) == entry.label:
                    continue
                shape_d = d.get("shape") or {}
                if shape_d.get("target_hidden") not in (None, target_hidden):
                    continue
                p = (d.get("params") or {}).get("excluding_embedding")
                if isinstance(p, (int, float)):
                    candidates.append(
                        (str(d.get("draft")), float(p), {**d, "_file": path.name, "_device": data.get("device_name")})
                    )
    return Inputs(
        draft_label=entry.label,
        draft_params=float(entry.count.excluding_embedding),
        # matched against the registry's ids, which carry no revision; named even where its config was not read
        target_label=model_id(entry.target_label or named_target),
        target_active=target_active,
        target_lm_head=target_lm_head,
        target_hidden=int(target_hidden),
        num_aux=int(num_aux),
        lint_errors=errors,
        lint_warnings=warnings,
        runs=own.kept,
        runs_note=runs_note,
        group_runs=tuple(by_target.kept),
        curve_verdict=curve_verdict,
        curve_unused=curve_unused,
        curve_peak=peak,
        curve_ceiling=curve.ceiling_words() if hasattr(curve, "ceiling_words") else None,
        curve_rise=(curve.rise_words() or "") if hasattr(curve, "rise_words") else "",
        curve_left_out=left_out,
        own_samples=own_samples,
        own_samples_source=own_samples_source,
        own_tokens=own_tokens,
        curve_x=cx,
        curve_al=cy,
        curve_steps=csteps,
        curve_source=curve_source,
        curve_set_aside=set_aside,
        published=published,
        family=family_of(model_id(entry.target_label or named_target) or shape_target),
        shape_reference=shape_ref,
        own_run=own_run,
        draft_name=draft,
        benchmark=benchmark.lower(),
        benchmark_given=bench_given,
        benchmark_source=bench_src,
        offline=offline,
        step_record=record,
        candidates=tuple(candidates),
        target_uncounted=uncounted,
    )
