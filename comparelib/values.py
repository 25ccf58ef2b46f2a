"""One definition of "a usable number" and of "plain JSON", shared by the store, the fits, exports and the CLI.

Booleans are never numbers here: a JSON ``true`` in a run record or a registry entry is a flag that
was written in the wrong field, not an acceptance length of 1.0.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable, Mapping
from datetime import date, datetime
from typing import Any


def number(value: Any) -> float | None:
    """A finite float, or None for missing, boolean, non-numeric, NaN or infinite values."""
    if value is None or isinstance(value, bool):
        return None
    try:
        out = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return out if math.isfinite(out) else None


def integer(value: Any) -> int | None:
    """:func:`number` truncated to an int (JSON often carries counts as 1.0e6)."""
    out = number(value)
    return None if out is None else int(out)


# The same benchmark parameter under the names the app's client and the imported tools store it by
# (sglang.bench_serving / vllm bench serve: max_concurrency, random_output_len, dataset_name).
PARAM_ALIASES: dict[str, tuple[str, ...]] = {
    "concurrency": ("concurrency", "max_concurrency"),
    "max_tokens": ("max_tokens", "random_output_len"),
    "prompt_set": ("prompt_set", "dataset_name"),
    # asked for, this app's and vLLM's; sglang.bench_serving states none, only those it completed (``completed``)
    "requests": ("requests", "num_prompts", "completed"),
}


def run_param(run: Any, key: str) -> Any:
    """A benchmark parameter of ``run`` by its name or an alias: imported runs at concurrency 1 and 32 were
    compared because only "concurrency" was read (a 22x "speedup")."""
    params = getattr(run, "params", None) or {}
    for name in PARAM_ALIASES.get(key, (key,)):
        value = params.get(name)
        if value is not None and value != "":
            return value
    return None


def plain(value: Any) -> Any:
    """Strict-JSON types: dataclasses to dicts, NaN/inf/NA to None, numpy/torch scalars unwrapped, dates as ISO."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(v) for v in value]
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if _is_missing(value):
        return None
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if hasattr(value, "item") and callable(value.item):  # numpy / torch scalars
        try:
            return plain(value.item())
        except (TypeError, ValueError):
            return str(value)
    return str(value)


def _is_missing(value: Any) -> bool:
    """pandas' NA/NaT without importing pandas for callers that never see a DataFrame."""
    name = type(value).__name__
    return name in {"NAType", "NaTType"}


_REVISION = re.compile(r"@[\w./-]+$")


def model_id(label: str | None) -> str | None:
    """A model label without its revision ("Qwen/Qwen3-Coder-30B-A3B-Instruct@d94ed40" -> the repo id): the
    registry names targets without one, and walk N's plan, matching the label as it was, found no published draft
    for its own target and aimed at another model's figure."""
    if label is None:
        return None
    return _REVISION.sub("", str(label).strip()) or None


def id_span(ids: Iterable[int]) -> str:
    """Run ids with consecutive ones joined: "#1-#5, #8"."""
    spans: list[list[int]] = []
    for i in sorted(set(ids)):
        if spans and i == spans[-1][1] + 1:
            spans[-1][1] = i
        else:
            spans.append([i, i])
    return ", ".join(f"#{a}" if a == b else f"#{a}-#{b}" for a, b in spans)


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


def times(factor: float) -> str:
    """A ratio as the pages print it: two decimals below 2x, one below 10x, whole above ("1.56x", "3.6x",
    "38x"). One rule everywhere, so a headline and the line under it never round one ratio differently."""
    if factor < 2:
        return f"{factor:.2f}x"
    return f"{factor:.1f}x" if factor < 10 else f"{factor:,.0f}x"


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


def percent(fraction: float, places: int = 1) -> str:
    """A share as shown to people: a nonzero share never reads 0.0% ("<0.1%"), nor one short of all 100.0%
    (">99.9%"); exactly none and exactly all read 0.0% and 100.0%. A half rounds up, as people round: 20 of 320
    is 6.3%, where Python's round-half-to-even format read 6.2% (walk W)."""
    from decimal import ROUND_HALF_UP, Decimal

    exact = Decimal(repr(round(fraction * 100, 9)))  # 6.25, not the float's 6.2499...
    shown = f"{exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP):f}%"
    step = 10.0**-places
    if 0 < fraction and shown == f"{0:.{places}%}":
        return f"<{step:.{places}f}%"
    if fraction < 1 and shown == f"{1:.{places}%}":
        return f">{100 - step:.{places}f}%"
    return shown


def percent_beside(fraction: float, limit: float) -> str:
    """``fraction`` in percent (no sign), with the fewest decimals (one at least) that keep it on its side of
    ``limit``: a gap under a 2% threshold never reads "2.0" (walk AA: 541.5 is 1.97% below 552.4, a tie, said
    "2.0% higher"), one over it never reads as it; exactly at it reads as it."""
    shown = f"{fraction * 100:.1f}"
    for places in range(1, 7):
        shown = f"{fraction * 100:.{places}f}"
        v, cap = float(shown), limit * 100
        if (v < cap) if fraction < limit else (v > cap) if fraction > limit else True:
            return shown
    return shown


def band_text(
    value: float,
    low: float,
    high: float,
    fmt: str = ".2f",
    *,
    label: str = "band",
    on_fit: str = "the points lie on the fit",
    unit: str = "",
    emphasis: str = "",
) -> str:
    """A fitted value and its band as every sentence states one: "2.58 (2.57..2.58)", or with a ``label`` other than
    "band", "2.58 (95% band 2.57..2.58)". A band whose ends read alike at the shown decimals is said in words,
    "2.38 (band under 0.01: the points lie on the fit)" (``on_fit`` says why it is so narrow), never as a
    degenerate range: walk AA's noise-free log read "2.38 (2.38..2.38)"."""
    lo, hi = format(low, fmt), format(high, fmt)
    mid = f"{emphasis}{format(value, fmt)}{unit}{emphasis}"  # emphasis "**": Markdown bold, as the pages write it
    if lo == hi:
        m = re.search(r"\.(\d+)", fmt)
        places = int(m.group(1)) if m else 0
        step = format(10.0**-places, f".{places}f")
        return f"{mid} ({label} under {step}: {on_fit})"
    return f"{mid} ({'' if label == 'band' else label + ' '}{lo}..{hi})"


def clipped(text: str, chars: int) -> str:
    """``text`` cut to ``chars`` characters, with "…" where it was cut, so a cut id never reads as whole."""
    return text if len(text) <= chars else text[:chars] + "\u2026"


# What an attached training volume counts, in the source it is stored with ("<dataset> (<words>)") and in every
# sentence that names it: SpecForge and speculators drop a row with no supervised token and keep duplicates.
VOLUME_TRAINED = "rows trained on, with duplicates kept and rows with no supervised token left out"
_VOLUME_TRAINED_EXACT = "rows trained on, with exact duplicates kept and rows with no supervised token left out"
"""What a trained volume stored before said it counts: the same rows (every copy, whitespace-only ones too)."""
VOLUME_UNIQUE = (
    "unique usable rows, with duplicates (exact or differing only in whitespace) and rows with no supervised token "
    "left out"
)
_VOLUME_UNIQUE_EXACT = "unique usable rows, with exact duplicates and rows with no supervised token left out"
"""What a unique volume stored before whitespace-only duplicates were left out too says it counts."""


# the stored kind of a volume whose audit read a sample and did not extrapolate it (the Hub states no row count):
# its samples are the sample's rows, not the data's, so a count typed in the sidebar comes before it
VOLUME_KIND_SAMPLE = "sample"


def volume_words(source: str | None) -> str | None:
    """What a stored volume counts, read from its source (None for a volume stored before it said so, or typed)."""
    if f"({_VOLUME_TRAINED_EXACT})" in str(source or ""):
        return VOLUME_TRAINED  # the same count, in the words that say it exactly
    known = (VOLUME_TRAINED, VOLUME_UNIQUE, _VOLUME_UNIQUE_EXACT)
    return next((w for w in known if f"({w})" in str(source or "")), None)


UNRECORDED_PROMPTS = ("", "live", "none", "nan")  # an own point's benchmark where its run recorded no prompt set


def prompts_apart(prompts: Any, benchmark: str | None) -> str | None:
    """The prompts a run was measured on, when recorded and not ``benchmark``: its acceptance is not on the scale of
    a figure on that benchmark, so it neither meets nor misses one (one rule for the plan and Acceptance vs data:
    walk W's Acceptance vs data said run #16 on the bundled prompts was "at or above the target 2.64", a GSM8K
    figure, while Overview's plan said the two are not compared)."""
    if prompts is None or not benchmark or str(prompts).strip().lower() in UNRECORDED_PROMPTS:
        return None
    return None if str(prompts).lower() == str(benchmark).lower() else str(prompts)
