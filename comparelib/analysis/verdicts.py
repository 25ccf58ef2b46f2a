"""What a data-volume fit says, in sentences: the volume to reach a target, a measurement against the fit,
and where a draft's training volume sits against a published reference (the gap verdict).

The numbers come from ``scaling`` (points, selection, fit); this module only words them, and picks
which fit a verdict may lean on (the reference's model family first, then pooled, each labelled).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import pandas as pd

from comparelib.analysis.scaling import (
    LEVEL,
    Axis,
    Fit,
    Selection,
    accept_bounds,
    fit_published,
    predict,
    predict_bounded,
    scaling_points,
    select,
    settings_for,
    unsaid_at,
    volume_for,
)
from comparelib.analysis.speedup import (
    Optimum,
    SpeedupModel,
    SweepChoice,
    measured_frame,
    missing_evidence,
    model_from_runs,
    optimum,
    optimum_missing,
    predict_frame,
    sweep_groups,
    what_if,
)
from comparelib.errors import CompareError, DataError, InputError
from comparelib.models.draft import family_words
from comparelib.models.registry import KIMI_REFERENCE as KIMI_REFERENCE  # re-exported
from comparelib.models.registry import family_of
from comparelib.values import UNRECORDED_PROMPTS, band_text, id_span, number, prompts_apart, run_param, times
from comparelib.values import bench_label as bench_label  # re-exported: callers name them here
from comparelib.values import human as human

FitScope = Literal["family", "pooled", "none"]  # which points a gap verdict's fit was made from


def fit_vs_measured(
    f: Fit,
    volume: float,
    measured: float,
    *,
    measured_setting: str | None = None,
    measured_benchmark: str | None = None,
    measured_source: str | None = None,
    level: float = LEVEL,
) -> tuple[bool, str]:
    """(agrees, sentence): the fit's prediction at ``volume`` next to an acceptance the user measured.

    A measurement outside the fit's band is explained rather than hidden: the fit is made of other
    drafts' published numbers at one benchmark and setting, so a different setting or prompt set, a
    different target, or a volume outside the fitted range each make it a poor guide to this draft. A
    measurement at another setting or on other prompts never "agrees": it is not the number the fit predicts.
    """
    mean, lo, hi, clipped = predict_bounded(f, volume, level)
    lo_b, hi_b = accept_bounds(f.setting_key)
    uninformative = lo <= lo_b + 0.01 and hi >= hi_b - 0.01  # the band is the whole possible range
    other_setting = bool(measured_setting) and measured_setting != f.setting_key
    other_bench = bool(measured_benchmark) and measured_benchmark != f.benchmark
    unsaid = unsaid_at(f, volume, level)  # a clipped value or a band over every value is not the trend's
    close = lo <= measured <= hi and not uninformative and not unsaid and abs(measured - mean) <= 0.5
    agrees = close and not other_setting and not other_bench
    where_measured = ", ".join(
        x for x in (measured_source, f"at {measured_setting}" if measured_setting else None) if x
    )
    text = (
        f"You measured **{measured:.2f}**"
        + (f" ({where_measured})" if where_measured else "")
        + (
            f"; the fit cannot say what a draft reaches at {human(volume)}"
            if unsaid
            else "; the fit predicts "
            f"{band_text(mean, lo, hi, label=f'{level:.0%} band', on_fit=PUBLISHED_ON_FIT, emphasis='**')} "
            f"at {human(volume)}"
        )
        + (f" for {f.setting_key}" if other_setting else "")
        + (f": {unsaid}." if unsaid else ".")
    )
    if agrees:
        return True, text + " Your measurement is close to the fit: the published drafts' trend agrees with it."
    if unsaid:  # no value to set the measurement against: neither higher nor lower than it
        return (
            False,
            text + " So it neither confirms nor contradicts your measurement: trust the measurement for your draft.",
        )
    reasons = []
    if uninformative:
        reasons.append(
            f"the band spans every possible value ({lo_b:.0f}..{hi_b:.0f}) there, so the fit can neither "
            "confirm nor contradict a measurement"
        )
    if other_setting:
        reasons.append(f"you measured at {measured_setting}, the fit is for {f.setting_key}")
    if other_bench:
        reasons.append(f"your prompts are {measured_benchmark!r}, the fit is {bench_label(f.benchmark)}")
    if f.extrapolates(volume):
        reasons.append("your volume is outside the published volumes the fit was made from (an extrapolation)")
    if clipped:
        reasons.append("the fitted line leaves the possible range there and was clipped")
    reasons.append("the fit is made of other drafts (other targets, recipes and data), not of yours")
    if close:  # near the fit's value, but not like for like
        return False, (text + " Not like for like, so no agreement is claimed: " + "; ".join(reasons) + ".")
    direction = "higher" if measured > mean else "lower"
    where = "outside the band" if not lo <= measured <= hi else f"{abs(measured - mean):.2f} from the fit's value"
    return False, (
        text
        + f" Your measurement is {direction} ({where}). Why they can disagree: "
        + "; ".join(reasons)
        + ". Trust the measurement for your draft; the fit only shows the published trend."
    )


def _chain_fields(key: str | None) -> tuple[int | None, int | None, int | None]:
    """(num_steps, topk, draft tokens) a setting key states, each None where it does not: read by name, as
    "steps=3,bs=4,vllm" states no topk where a string prefix took "bs=4" for one."""
    found = dict(re.findall(r"(?:^|,)\s*(steps|topk|draft)=(\d+)", key or ""))
    return tuple(int(found[k]) if k in found else None for k in ("steps", "topk", "draft"))  # type: ignore[return-value]


def same_chain(key: str | None, other: str | None) -> bool:
    """Whether two setting keys draft the same chain: the same num_steps, and topk and draft tokens equal where
    both keys state them (batch size, engine and temperature aside). A key without num_steps matches none."""
    a, b = _chain_fields(key), _chain_fields(other)
    if a[0] is None or a[0] != b[0]:
        return False
    return all(x is None or y is None or x == y for x, y in zip(a[1:], b[1:], strict=True))


def _most_like(f: Fit, own_points: pd.DataFrame) -> tuple[pd.Series, str | None] | None:
    """The user's own point most like the fit (same setting and benchmark, else same setting, else same
    num_steps/topk/draft tokens, else any), the highest acceptance among those, and its run ("run #N")."""
    measured = own_points.dropna(subset=["accept_length"]) if len(own_points) else own_points
    if not len(measured):
        return None
    keys = measured["setting_key"].astype(str)
    same_setting = measured[keys == str(f.setting_key)]
    same_both = same_setting[same_setting["benchmark"].astype(str) == str(f.benchmark)]
    chained = measured[keys.map(lambda k: same_chain(k, f.setting_key))]
    tiers = (same_both, same_setting, chained, measured)
    pool = next(t for t in tiers if len(t))
    best = pool.sort_values("accept_length").iloc[-1]
    source = str(best.get("source") or "") if "source" in best.index else ""
    run = re.match(r"store run (\d+)", source)
    return best, (f"run #{run.group(1)}" if run else source or None)


def measured_against_fit(f: Fit, volume: float, own_points: pd.DataFrame) -> tuple[bool, str] | None:
    """:func:`fit_vs_measured` for the user's own point most like the fit (``_most_like``), named by its run.
    None when none was measured."""
    found = _most_like(f, own_points)
    if found is None:
        return None
    best, source = found
    return fit_vs_measured(
        f,
        volume,
        float(best["accept_length"]),
        measured_setting=str(best["setting_key"]),
        measured_benchmark=str(best["benchmark"]),
        measured_source=source,
    )


def _figure_words(benchmark: str) -> str:
    """ "a GSM8K figure", "an MT-Bench figure", or for unnamed prompts "a figure on prompts its source does not
    name"."""
    label = bench_label(benchmark)
    if label.lower() in ("unspecified", "unknown"):
        return "a figure on prompts its source does not name"
    return f"{'an' if label[:1].lower() in 'aeiou' or label.startswith('MT') else 'a'} {label} figure"


def not_on_one_scale(run: str, al: float, chain: str, batch: Any, prompts: str, target: str, benchmark: str) -> str:
    """What was measured where, and that it is not compared with the target (``prompts_apart``): the plan's
    more-data row and Acceptance vs data's lead say it in these words. ``run``: "Run #16"; ``benchmark``: the prompts
    the target was measured on ("unspecified" where its source does not name them)."""
    figure = _figure_words(benchmark)
    return (
        f"{run} measured AL {al:.2f} at {chain} (batch {batch or 'not recorded'}) on the {prompts!r} prompts, and the "
        f"target {target} is {figure}: the two are not on one scale, so they are not compared (the target is "
        "neither met nor missed by that run)."
    )


@dataclass(frozen=True)
class MeasuredFigure:
    """A target AL measured in your run group (Overview's reference beside your draft, ``plan.measured_target``):
    a figure of its own prompts and setting, not the published trend's benchmark (walk AF: run #10, 3.05 from ``vllm
    bench serve`` at vLLM, num_steps 3, batch 1, prompts not recorded, was called a GSM8K figure and placed on the
    published GSM8K trend at 2.76M samples, where the reference had reached it with its published 532K)."""

    al: float
    run_id: int
    draft: str  # the draft measured
    setting: str  # "vLLM, num_steps 3, batch 1"
    prompts: str | None  # the prompt set its run recorded; None: not recorded
    volume: float | None = None  # the draft's published training samples; None: not known

    @property
    def benchmark(self) -> str:
        """Its prompts as a benchmark name: "unspecified" where its run did not record them."""
        p = (self.prompts or "").strip().lower()
        return "unspecified" if p in UNRECORDED_PROMPTS else p

    @property
    def named(self) -> str:
        """The target as the plan and Acceptance vs data name it: "3.05 (org/draft's AL measured beside yours, run
        #10)"."""
        return f"{round(self.al, 3):g} ({self.draft}'s AL measured beside yours, run #{self.run_id})"


def measured_off_trend(m: MeasuredFigure, benchmark: str) -> str | None:
    """Why a published trend on ``benchmark`` gives no samples figure for the measured target ``m``: it was measured
    on other prompts (or prompts its run did not record), so where the trend reaches that number says nothing of
    what reaches it on its own prompts; the one evidence of that is the measured draft's own training volume. None
    where ``m`` was measured on ``benchmark``'s prompts. One sentence for Acceptance vs data and the plan's
    more-data row."""
    if m.benchmark == str(benchmark).strip().lower():
        return None
    label = bench_label(benchmark)
    on = "on prompts its run did not record" if m.benchmark == "unspecified" else f"on the {m.prompts!r} prompts"
    doubt = _volume_doubt(m.draft) if m.volume else ""  # walk AT: a template's 1.4M was "its published volume"
    evidence = (
        f"{m.draft} reached it with its {human(m.volume)} training samples ({doubt or 'its published volume'}), the "
        "one evidence of what reaches it on those prompts"
        if m.volume
        else f"{m.draft} publishes no training volume, so nothing says what volume reaches it on those prompts"
    )
    return (
        f"The target {round(m.al, 3):g} is run #{m.run_id}'s acceptance of {m.draft}, measured at {m.setting} {on}, "
        f"not {_figure_words(benchmark)}: the published "
        f"{label} trend cannot say how many samples reach it, so no samples figure is given; {evidence}."
    )


def _volume_doubt(hub_id: str) -> str:
    """``comparison.volume_doubt`` of the registry's ``hub_id``: "" where its volume is the card's own figure."""
    from comparelib.models.comparison import volume_doubt_of  # the registry's words for its volumes live there

    return volume_doubt_of(hub_id)


def _point_apart(best: pd.Series, f: Fit) -> str | None:
    """``prompts_apart`` for an own point set against the fit ``f`` (its benchmark is its run's prompt set)."""
    return prompts_apart(best.get("benchmark"), f.benchmark)


def _batch_of(best: pd.Series) -> Any:
    b = number(best.get("batch_size"))
    return None if b is None else f"{b:g}"


class _Setting(NamedTuple):
    """A benchmark and setting with no fit at it (its published volumes too few): what ``already_reached`` reads."""

    setting_key: str
    benchmark: str


def reached_at(setting_key: str, benchmark: str, target: float, own_points: pd.DataFrame) -> str | None:
    """``already_reached`` at a setting no fit was made at: the reference's own setting may be too thin to fit
    (lmsys's Llama-3.1-8B draft publishes GSM8K at bs=1 alone), and the page then led with the no-fit warning above a
    run that already measured the target (walk X)."""
    return already_reached(_Setting(setting_key, benchmark), target, own_points)  # type: ignore[arg-type]


def already_reached(f: Fit, target: float, own_points: pd.DataFrame, named: str | None = None) -> str | None:
    """A sentence when the user's own run at the fit's num_steps already measured ``target`` or more: "you need
    about 2M samples to reach 3" reads wrong above a run that measured 3.00 (None otherwise). A run measured on other
    prompts than the fit's benchmark has not reached it (``prompts_apart``): None. Reads only ``f``'s setting_key
    and benchmark (``reached_at`` passes those alone). ``named``: the target in words, its figure alone by default."""
    found = _most_like(f, own_points)
    if found is None:
        return None
    best, source = found
    if not same_chain(str(best["setting_key"]), f.setting_key) or float(best["accept_length"]) < target:
        return None
    if _point_apart(best, f):
        return None
    return (
        f"Your draft already measured {float(best['accept_length']):.2f}"
        + (f" ({source}, at {best['setting_key']})" if source else f" (at {best['setting_key']})")
        + f": at or above the target {named or f'{round(target, 3):g}'}, on your own server rather than on the "
        f"published drafts' "
        f"{bench_label(f.benchmark)} prompts."
    )


def data_lead(
    f: Fit,
    target: float,
    own_points: pd.DataFrame,
    *,
    own_volume: float | None = None,
    reference: str | None = None,
    reference_volume: float | None = None,
    curve_verdict: str | None = None,
    curve_peak: Any = None,
    curve_ceiling: str | None = None,
    measured: MeasuredFigure | None = None,
    target_setting: str | None = None,
    target_whose: str | None = None,
) -> list[str]:
    """Acceptance vs data's answer, in order: what your own evidence says first, then the published trend.

    "To reach 3 you need about 2M samples" led the page above a draft that already measured 2.67 where the fit
    gives 2.25 at the reference's volume, and whose training log had plateaued (Overview said plateau). When the
    draft meets the target, sits at or above the trend at the larger of its own and the reference's volume
    (``live_outlook``'s "no more data scenario" rule), or its log plateaued (``curve_verdict``), that comes
    first, and the volume sentence follows as the trend's alone. The first item is the lead. An overfitting log
    (``curve_peak``: a ``curves.Peak``) leads too: keep the peak checkpoint, and more unique data, not more passes
    (walk S called one whose eval fell 0.16 after pass 3 of 5 a plateau). A plateau with ``curve_peak`` (eval fell
    past noise after it, not called overfitting) is said as that fall and its checkpoint, not as "has plateaued".

    ``measured``: the target is that AL measured in your run group (the page's default, ``plan.measured_target``), a
    figure of its own prompts: your run is set against it on those prompts (``not_on_one_scale``), and where they are
    not the trend's benchmark the trend gives no samples figure for it (``measured_off_trend``), as the plan's
    more-data row says (walk AF).

    ``target_setting``: the setting the published target's source states it at (``plan.Aim.setting``), said where the
    fit is at another (``target_sentence``). ``target_whose``: whose figure the target is where it is a draft's for
    another model (``figure_whose``), said beside it (``target_sentence``)."""
    first: list[str] = []
    if curve_verdict == "plateau" and curve_peak is not None:  # eval fell past noise, not called overfitting
        first.append(
            f"Your training log (Learning curve tab) stopped rising: {curve_peak.fell_words()}. By your own evidence, "
            f"more of the same data is unlikely to raise acceptance, whatever the published trend says; keep the "
            f"{curve_peak.checkpoint()}."
        )
    elif curve_verdict == "plateau" and curve_ceiling:  # still rising, but near its ceiling (walk W)
        first.append(
            f"Your training log (Learning curve tab) {curve_ceiling}: by your own evidence, more of the same data is "
            "unlikely to raise acceptance much, whatever the published trend says."
        )
    elif curve_verdict == "plateau":
        first.append(
            "Your training log (Learning curve tab) has plateaued: by your own evidence, more of the same data is "
            "unlikely to raise acceptance, whatever the published trend says."
        )
    elif curve_verdict == "overfitting":
        fell = (
            f": {curve_peak.words()}"
            if curve_peak is not None
            else ": held-out (eval) acceptance fell after its peak while train acceptance rose"
        )
        keep = curve_peak.checkpoint() if curve_peak is not None else "checkpoint where eval peaked"
        first.append(
            f"Your training log (Learning curve tab) is overfitting{fell}. Keep the {keep}; more unique data is "
            "likely to help, more epochs over the same samples are not."
        )
    off_trend = measured_off_trend(measured, f.benchmark) if measured is not None else None
    # the target's prompts: a measured target's own where they are not the trend's, else the trend's benchmark
    t_bench = measured.benchmark if measured is not None and off_trend else f.benchmark
    # another model's draft's figure is named as such wherever the target is said (walk AG)
    named = f"{round(target, 3):g}" + (f" ({target_whose})" if target_whose else "")
    reached = None if off_trend else already_reached(f, target, own_points, named)
    found = _most_like(f, own_points)
    apart = _point_apart(found[0], f) if found is not None else None  # your run against the trend
    apart_t = prompts_apart(found[0].get("benchmark"), t_bench) if found is not None else None  # ... the target
    on_chain = found is not None and same_chain(str(found[0]["setting_key"]), f.setting_key)
    if found is not None and on_chain and (apart or apart_t):
        # where a run on other prompts would have "met" the target or sat "at or above" the trend, the plan's words
        # (``not_on_one_scale``): neither is set against it; below both, the trend's sentence alone, as before
        best, source = found
        mine = float(best["accept_length"])
        volumes = [v for v in (own_volume, reference_volume) if v]
        if apart_t and (mine >= target or (apart and volumes and mine >= predict_bounded(f, max(volumes))[0])):
            chain = str(best.get("chain") or "")
            first.append(
                not_on_one_scale(
                    (source[:1].upper() + source[1:]) if source else "Your run",
                    mine,
                    chain if chain not in ("", "nan", "None") else str(best["setting_key"]),
                    _batch_of(best),
                    apart_t,
                    measured.named if measured is not None and off_trend else named,
                    t_bench,
                )
            )
        elif measured is not None and mine >= target and str(best.get("benchmark") or "").lower() == t_bench:
            # on the measured target's own recorded prompts: set against it there
            first.append(
                f"Your draft already measured {mine:.2f}" + (f" ({source})" if source else "") + f": at or above "
                f"the target {measured.named}, on the same {t_bench!r} prompts."
            )
    elif reached:
        first.append(reached)
    elif found is not None and on_chain:
        vols = [(v, who) for v, who in ((own_volume, "your"), (reference_volume, f"{reference}'s")) if v]
        if vols:
            vol, who = max(vols, key=lambda t: t[0])
            mean = predict_bounded(f, vol)[0]
            own_al = float(found[0]["accept_length"])
            unsaid = unsaid_at(f, vol)
            if unsaid:  # walk T: "at or above the 1.00 the published trend gives", a clip, quoted as its value
                first.append(
                    f"Your draft measured {own_al:.2f}"
                    + (f" ({found[1]})" if found[1] else "")
                    + f"; the published trend cannot say what acceptance a draft reaches at {who} {human(vol)} "
                    f"{f.x}: {unsaid}. So it cannot say what more data adds for your draft."
                )
            elif own_al >= mean:
                first.append(
                    f"Your draft already measured {own_al:.2f}"
                    + (f" ({found[1]})" if found[1] else "")
                    + f", at or above the {mean:.2f} the published trend gives at {who} {human(vol)} {f.x}: the "
                    "trend cannot say what more data adds for your draft."
                )
    # a measured target on other prompts than the trend's is not placed on it (walk AF)
    sentence = off_trend or target_sentence(f, target, published_at=target_setting, whose=target_whose)
    if not first:
        return [sentence]
    return [*first, sentence if off_trend else _on_trend(sentence)]


def _on_trend(sentence: str) -> str:
    return f"For a draft on the published trend (not your draft's evidence above): {sentence}"


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
            # why "mean" is not the trend's value there (``scaling.unsaid_at``); None when it is
            "cannot_say": unsaid_at(f, own_volume) or None,
        }
    return out


_STATED = (("engine", "engine"), ("bs", "batch size"), ("topk", "topk"), ("draft", "draft tokens"))


def _key_parts(key: str) -> dict[str, str]:
    """ "steps=3,topk=1,draft=4,bs=8,sglang" as {"steps": "3", ..., "engine": "sglang"}."""
    out: dict[str, str] = {}
    for part in (key or "").split(","):
        name, sep, value = part.strip().partition("=")
        if sep:
            out[name] = value
        elif re.fullmatch(r"[a-z][a-z0-9_.-]*", name):  # "sglang"; as overview._setting_parts reads it
            out["engine"] = name
    return out


def setting_as_stated(key: str | None, against: str | None = None) -> str:
    """A published figure's setting key with what its source leaves unsaid, never filled in from another setting:
    "steps=3,topk=1,draft=4 (engine and batch size not stated)". ``against``: the setting it is set beside (a fit's),
    whose stated parts the figure's source does not state are named; without it, the engine and batch size."""
    if not key or key == "unspecified":
        return "a setting its source does not state"
    mine = _key_parts(key)
    theirs = _key_parts(against) if against else {"engine": "", "bs": ""}
    missing = [words for part, words in _STATED if part not in mine and part in theirs]
    if not missing:
        return key
    said = missing[0] if len(missing) == 1 else f"{', '.join(missing[:-1])} and {missing[-1]}"
    return f"{key} ({said} not stated)"


# why Overview's plan gives another samples figure than the log-linear fit: ``target_sentence`` says it after its
# figure; Acceptance vs data moves it into the fit's fold-out (``plan_note_apart``)
PLAN_DIFFERS = (
    "Overview's plan gives its own figure from a logistic in log N bounded at K + 1, fitted to the published "
    "points at this chain: its slope flattens toward that ceiling, so the two figures differ."
)


def plan_note_apart(lines: list[str]) -> tuple[list[str], str | None]:
    """``data_lead``'s lines without ``PLAN_DIFFERS``, and the note where one of them said it: the page's headline
    leads with its answer and says how the plan's model differs in the fit's fold-out, beside the fit's formula
    (issue 19: derivations in fold-outs; the log's verdict leading too pushed the page past its height)."""
    said = any(PLAN_DIFFERS in line for line in lines)
    return [line.replace(" " + PLAN_DIFFERS, "") for line in lines], PLAN_DIFFERS if said else None


def target_sentence(f: Fit, target_accept: float, *, published_at: str | None = None, whose: str | None = None) -> str:
    """'To reach 3.0 on GSM8K at (3,1,4) you need about N samples (range M..K).'

    ``published_at``: the setting key the target figure's source states it at (``plan.Aim.setting``). Where it is not
    the fit's, the target is said at its own setting and the fit at the fit's (walk AE: "To reach 3.172 on GSM8K at
    steps=3,topk=1,draft=4,bs=8,sglang", a figure whose source states no engine and no batch size).

    ``whose``: another model's draft's figure, said beside the target (``figure_whose``; walk AG: "To reach 2.876 on
    GSM8K" led the page, a Qwen3-235B draft's figure for a Qwen3-Coder-480B draft, said only in a closed expander)."""
    goal = f"{round(target_accept, 3):g}" + (f" ({whose})" if whose else "")
    where = f"{bench_label(f.benchmark)} at {f.setting_key}"
    fit_at = ""
    if published_at and published_at != f.setting_key:
        where = f"{bench_label(f.benchmark)}, published at {setting_as_stated(published_at, f.setting_key)},"
        fit_at = f" at {f.setting_key}"
    inv = volume_for(f, target_accept)
    if inv is None:
        return _flat_sentence(f, target_accept, goal, published_at)
    n, lo, hi = inv
    # Overview's plan states samples needed from another model; both figures say which model they are from
    model = f"by the log-linear fit{fit_at} (acceptance linear in log {f.x}, no ceiling)"
    other = " " + PLAN_DIFFERS
    if lo is None or hi is None:
        return (
            f"To reach {goal} on {where} you need about {human(n)} {f.x} {model} "
            f"(no {int(LEVEL * 100)}% "
            f"range: the slope, {f.b:+.2f} ± {f.se_b:.2f} per decade, is too uncertain to bound it)." + other
        )
    note = "; outside the fitted volumes, so an extrapolation" if f.extrapolates(n) else ""
    return (
        f"To reach {goal} on {where} you need about {human(n)} {f.x} {model} "
        f"(range {human(lo)}..{human(hi)}, {int(LEVEL * 100)}% band{note})." + other
    )


def _flat_sentence(f: Fit, target_accept: float, goal: str, published_at: str | None) -> str:
    """A fit that does not rise with more volume, set against the target's level over the published data's range.
    Walk BC: "does not rise ... so no volume reaches 2.26" under a line at about 2.57 over 320K..1.4M samples, above
    the target at every volume there: by that trend the target is met, and volume is not what limits acceptance."""
    if published_at and published_at != f.setting_key:
        goal += f" (published at {setting_as_stated(published_at, f.setting_key)})"
    at_lo, at_hi = f.a + f.b * f.x_min, f.a + f.b * f.x_max
    span = (
        f"the published data's range ({at_lo:.2f} at {human(10.0**f.x_min)} to {at_hi:.2f} at "
        f"{human(10.0**f.x_max)} {f.x})"
    )
    head = f"The log-linear fit for {bench_label(f.benchmark)} at {f.setting_key}"
    flat = f"does not rise with more {f.x} (slope {f.b:+.2f} per decade)"
    if target_accept <= min(at_lo, at_hi):
        said = (
            f"{head} is at or above the target {goal} at every volume in {span} and {flat}: by this trend a draft "
            f"trained on any of these volumes already meets the target, and data volume is not what limits its "
            f"acceptance."
        )
    elif target_accept > max(at_lo, at_hi):
        said = (
            f"{head} is below the target {goal} at every volume in {span} and {flat}: by this trend more {f.x} do "
            f"not reach it; data volume is not what limits acceptance."
        )
    else:
        said = (
            f"{head} crosses the target {goal} within {span} and {flat}: by this trend more {f.x} do not raise "
            f"acceptance; data volume is not what limits it."
        )
    # no PLAN_DIFFERS: this fit names no volume, and Overview's plan says its own fit's figure can differ from it
    return said


def figure_whose(text: str, target: str | None, benchmark: str, *, unread: bool = False) -> str | None:
    """Whose figure a published target is, where its draft is for another model than ``target`` (or ``target`` is
    not known): "D's published GSM8K figure, a draft for T, not for your target"; None where the draft is for
    ``target``, or ``text`` (``plan.Aim``'s: "org/draft at (K,1,K+1) on bench (why)") names no registry draft.
    ``unread``: your draft could not be read, so whether it names a target is not known (walk BT 2: "your draft names
    no target" of a private draft whose card names one, before the token was typed)."""
    from comparelib.analysis.plan import NO_TARGET, UNREAD_TARGET
    from comparelib.models import registry

    draft = text.split(" at ", 1)[0].strip()
    try:
        its = registry.get_draft(draft).target_model or ""
    except CompareError:
        return None
    if not its or (target and its.lower() == target.split("@", 1)[0].strip().lower()):
        return None
    mine = ", not for your target" if target else f"; {UNREAD_TARGET}" if unread else f"; {NO_TARGET}"
    return f"{draft}'s published {bench_label(benchmark)} figure, a draft for {its}{mine}"


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
    fit_scope: FitScope
    fit: Fit | None
    predicted: tuple[float, float, float] | None  # clipped to 1..steps+1
    extrapolated: bool
    family_chain_fit: Fit | None  # looser, labelled: same family and chain, batch size / engine may differ
    family_chain_predicted: tuple[float, float, float] | None
    sentence: str


def _published_entry(reference: str) -> Any:
    """The registry's entry for ``reference`` (a draft with a config and a volume but no results), else None."""
    from comparelib.models import registry

    try:
        return registry.get_draft(reference)
    except CompareError:
        return None


def _volume_floor(reference: str) -> tuple[float, str] | None:
    """(the lower bound, the registry's words for the volume) where ``reference`` publishes no training volume but
    the registry states a lower bound (``train_samples_min``: part of its data counted, the rest not stated); None
    otherwise."""
    from comparelib.models import registry

    try:
        p = registry.get_draft(reference)
    except CompareError:
        return None
    if p.train_samples or not p.train_samples_min:
        return None
    return float(p.train_samples_min), f"published: {p.train_samples_text}" if p.train_samples_text else "a bound"


def _reference_rows(pts: pd.DataFrame, reference: str, benchmark: str) -> pd.DataFrame:
    return pts[(pts["draft"] == reference) & (pts["benchmark"] == benchmark) & pts["usable"].astype(bool)]


def _chain_of(key: str | None) -> str | None:
    """ "steps=3,topk=1,draft=4,bs=1,sglang" as "(3,1,4)", as the points' ``chain``; None without num_steps."""
    parts = dict(p.strip().partition("=")[::2] for p in (key or "").split(",") if "=" in p)
    if "steps" not in parts:
        return None
    return "(" + ",".join(parts.get(k, "?") for k in ("steps", "topk", "draft")) + ")"


def choose_setting(pts: pd.DataFrame, reference: str, benchmark: str, own_setting: str | None = None) -> str | None:
    """The reference's setting on ``benchmark`` the comparison reads: ``own_setting`` (your run's) where it publishes
    there, else one at your chain, else one at any stated chain before a tree or unstated one (walk AX: a tie picked
    the EAGLE-3 paper's dynamic-tree GSM8K 6.23 while the Acceptance line read the chain's 1.72); within that, the
    one with the most distinct volumes across drafts (best-fitted)."""
    rows = _reference_rows(pts, reference, benchmark)
    if rows.empty:
        return None
    keyed = rows[rows["setting_key"].notna()]
    mine = _chain_of(own_setting)
    for tier in (
        keyed[keyed["setting_key"] == own_setting],
        keyed[keyed["chain"] == mine] if mine else keyed.iloc[0:0],
        keyed[keyed["chain"].notna()],
    ):
        if not tier.empty:
            rows = tier
            break
    best, best_n = None, -1
    for key in rows["setting_key"].dropna().unique():
        same = pts[(pts["benchmark"] == benchmark) & (pts["setting_key"] == key) & pts["usable"].astype(bool)]
        n = same["samples"].dropna().nunique()
        if n > best_n:
            best, best_n = key, n
    return best


def _kind_word(rows: pd.DataFrame) -> str:
    """ "published" (a registry figure) or "measured" (a run's), as the rows are."""
    return "published" if (rows["kind"] == "published").all() else "measured"


def _why_not_its_setting(pts: pd.DataFrame, reference: str, benchmark: str) -> str:
    """Why ``choose_setting`` found no setting of ``reference``'s on ``benchmark``: no figure there at all, a
    figure at no stated setting, or one at a stated setting that cannot go on the trend (walk AK: a published
    GSM8K 5.51 at no stated setting was said to be "no GSM8K acceptance")."""
    label = bench_label(benchmark)
    rows = pts[(pts["draft"] == reference) & (pts["benchmark"] == benchmark)]
    rows = rows[pd.to_numeric(rows["accept_length"], errors="coerce").notna()]
    if rows.empty:
        return f"{reference} reports no {label} acceptance"
    key = rows["setting_key"].fillna("").astype(str)
    unstated = rows[key.isin(["", "unspecified"])]
    stated = rows[~key.isin(["", "unspecified"])]
    said = []
    if len(unstated):
        figs = ", ".join(f"{float(a):.2f}" for a in unstated["accept_length"])
        one = len(unstated) == 1
        said.append(
            f"{reference}'s {_kind_word(unstated)} {label} {figs} state{'s' if one else ''} no setting "
            "(num_steps, topk, draft tokens)"
        )
    for i, rec in enumerate(stated.to_dict(orient="records")):
        why = str(rec.get("reason") or "") or "not usable"
        if "no training volume reported" in why and (floor := _volume_floor(reference)) is not None:
            # walk BK1: a bound is stated, so "no training volume reported" was false; a bound places no point
            why = why.replace(
                "no training volume reported",
                f"its training volume is only a lower bound, at least {human(floor[0])} samples",
            )
        said.append(
            f"{reference}'s {_kind_word(stated.iloc[[i]])} {label} {float(rec['accept_length']):.2f} at "
            f"{rec['setting_key']} is not on the trend ({why})"
        )
    return "; ".join(said)


def _try_fit(sel: Selection, label: str) -> Fit | None:
    try:
        return fit_published(sel, label)
    except DataError:
        return None


# why a published trend's band can be narrower than the decimals shown (``values.band_text``)
PUBLISHED_ON_FIT = "the published points lie on the fit"


def at_floor(mean: float, clipped: bool) -> bool:
    """The fitted line's mean was clipped to the floor of 1.00 (no token accepted): far below its volumes it
    predicts nothing, not an acceptance of 1.00."""
    return clipped and mean <= 1.0 + 1e-9


def _pred_text(f: Fit, volume: float, x: Axis) -> tuple[str, tuple[float, float, float], bool]:
    mean, lo, hi, clipped = predict_bounded(f, volume)
    extrap = f.extrapolates(volume)
    text = f"{band_text(mean, lo, hi, label='95% band', on_fit=PUBLISHED_ON_FIT)} at {human(volume)} {x}"
    unsaid = unsaid_at(f, volume)
    if unsaid:  # walk Q: "predicts 1.00" beside a measured 2.72 read as "no acceptance"; walk T: any clip, one rule
        return f"nothing it can stand behind at {human(volume)} {x}: {unsaid}", (mean, lo, hi), extrap
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


def _best_setting(pts: pd.DataFrame, benchmark: str, x: Axis) -> str | None:
    """The setting on ``benchmark`` with the most distinct volumes (what Acceptance vs data opens on)."""
    options = settings_for(pts, benchmark, x)
    return None if options.empty else str(options["setting_key"].iloc[0])


def gap_verdict(
    own_volume: float,
    reference: str,
    *,
    benchmark: str = "gsm8k",
    setting_key: str | None = None,
    fallback_setting: str | None = None,
    points: pd.DataFrame | None = None,
    x: Axis = "samples",
    own_setting: str | None = None,
) -> GapVerdict:
    """Compare ``own_volume`` with ``reference``'s volume, and predict acceptance at ``own_volume``.

    Every fit is made at one setting key: ``setting_key``, else the reference's own on ``benchmark``
    (``choose_setting``: at ``own_setting``, your run's, or its chain first), else, when it has no fittable figure
    at a stated setting there (``_why_not_its_setting`` says which), ``fallback_setting`` (the page's)
    or the best-fitted setting, said so. Settings are never pooled: acceptance at 7 steps is not acceptance
    at 3, and a line through both predicted more than the 3-step ceiling.
    The fit is first tried on drafts of the reference's own model family at that setting key;
    with fewer than three distinct volumes there, it falls back to all drafts at that setting key
    (pooled across families, labelled so). A looser family fit (same chain, batch size / engine not required to
    agree) is added as a separate, labelled sentence when it exists.
    """
    if own_volume is None or not own_volume > 0:
        raise InputError(f"own training volume must be a positive number, got {own_volume!r}")
    pts = scaling_points() if points is None else points
    bench = benchmark.lower()
    ref_rows = pts[pts["draft"] == reference]
    published = _published_entry(reference) if ref_rows.empty else None
    if ref_rows.empty and published is None:
        raise InputError(
            f"{reference} has no published acceptance results (or is not a published draft); pick a reference "
            "that reports acceptance length"
        )
    if published is not None:  # in the registry without results (a config and a volume): no acceptance of its own
        ref_vol = number(published.train_samples if x == "samples" else published.train_tokens)
        family = family_of(published.target_model)
    else:
        ref_vol = number(ref_rows[x].dropna().iloc[0]) if ref_rows[x].notna().any() else None
        family = str(ref_rows["family"].iloc[0])
    setting_note = ""
    if setting_key is None:
        setting_key = choose_setting(pts, reference, bench, own_setting)
    if setting_key is None:
        setting_key = fallback_setting or _best_setting(pts, bench, x)
        if setting_key:
            setting_note = (
                f"{_why_not_its_setting(pts, reference, bench)}, so the fit is at {setting_key} ("
                + ("the setting picked on this page" if fallback_setting else "the best-fitted setting")
                + ")."
            )
    ratio = ref_vol / own_volume if ref_vol else None
    ref_acc_rows = _reference_rows(pts, reference, bench)
    if setting_key is not None:
        ref_acc_rows = ref_acc_rows[ref_acc_rows["setting_key"] == setting_key]
    ref_acc = float(ref_acc_rows["accept_length"].iloc[0]) if len(ref_acc_rows) else None
    chain = (
        str(ref_acc_rows["chain"].iloc[0]) if len(ref_acc_rows) and pd.notna(ref_acc_rows["chain"].iloc[0]) else None
    )

    fam_distinct = 0
    f = None
    scope: FitScope = "none"
    # the family as people write it ("Llama-3"); a target of no known model line has no family to fit first
    fam_words = family_words(family) or "same-family"
    if setting_key is not None:  # None: nothing reports this benchmark; a fit without a setting pools them all
        fam_sel = select(pts, benchmark=bench, setting_key=setting_key, x=x, family=family)
        fam_distinct = int(fam_sel.points[fam_sel.points["kind"] == "published"][x].nunique()) if family else 0
        scope = "family"
        f = _try_fit(fam_sel, f"{fam_words} drafts") if family else None
        if f is None:
            scope = "pooled"
            f = _try_fit(select(pts, benchmark=bench, setting_key=setting_key, x=x), "pooled across drafts")
            if f is None:
                scope = "none"
    loose = None
    if chain and scope != "family" and family:
        loose_sel = select(pts, benchmark=bench, setting_key=None, x=x, family=family, chain=chain)
        loose_sel = Selection(loose_sel.benchmark, f"chain {chain}", x, loose_sel.points, loose_sel.excluded)
        loose = _try_fit(loose_sel, f"{fam_words} drafts at chain {chain}, batch size and engine not all stated")

    parts: list[str] = []
    if ref_vol and ratio and x == "samples" and (doubt := _volume_doubt(reference)):  # walk AT: said so
        ref_said = f"{human(ref_vol)} ({doubt})"
    else:
        ref_said = human(ref_vol) if ref_vol else ""
    if ref_vol and ratio:
        if ratio >= 1.5:
            far = "far below" if ratio >= 10 else "below"
            parts.append(
                f"{human(own_volume)} training {x} sits {far} the {ref_said} of the published draft "
                f"{reference} ({times(ratio)} fewer)."
            )
        elif ratio <= 1 / 1.5:
            parts.append(
                f"{human(own_volume)} training {x} is more than the {ref_said} of {reference} "
                f"({times(1 / ratio)} more)."
            )
        else:
            parts.append(f"{human(own_volume)} training {x} is close to the {ref_said} of {reference}.")
    elif x == "samples" and (floor := _volume_floor(reference)) is not None:
        # a lower bound only (part of its data counted, the rest not stated): said so, as the headline compares on it
        # (walk BK1: "does not report its training volume, so the volumes cannot be compared" under a headline of
        # "12K samples against at least 532K")
        bound, stated = floor
        fewer = f"at least {times(bound / own_volume)} fewer" if bound / own_volume >= 1.5 else "near or above it"
        parts.append(
            f"{reference} states only a lower bound on its training volume, at least {human(bound)} samples "
            f"({stated}): your {human(own_volume)} samples are {fewer}, but the trend cannot place a draft known "
            "only by a bound."
        )
    else:
        parts.append(f"{reference} does not report its training volume, so the volumes cannot be compared.")
    where = f"{bench_label(bench)} at {setting_key}" if setting_key else bench_label(bench)
    if ref_acc is not None:
        parts.append(f"It reports an acceptance length of {ref_acc:.2f} on {where}.")
    if setting_note:
        parts.append(setting_note)
    pred = None
    extrap = False
    if f is None:
        parts.append(
            f"Too few drafts with a known volume report {where} to fit a trend, so no acceptance is predicted."
        )
    else:
        text, pred, extrap = _pred_text(f, own_volume, x)
        if scope == "pooled":
            few = (
                f"No {fam_words} draft with a known volume reports {where}"
                if fam_distinct == 0
                else f"Only {fam_distinct} distinct {fam_words} volume{'s' if fam_distinct > 1 else ''} "
                f"report{'' if fam_distinct > 1 else 's'} {where}, too few to fit"
            )
            parts.append(
                f"{few}; a fit pooled across all {len(f.drafts)} drafts at {setting_key}, every model family "
                f"(R² {f.r2:.2f}, slope {f.b:+.2f} per decade) predicts {text}."
            )
        else:
            parts.append(
                f"A fit over {f.n} {fam_words} points at {setting_key} (R² {f.r2:.2f}, slope {f.b:+.2f} per decade) "
                f"predicts {text}."
            )
    loose_pred = None
    if loose is not None:
        text, loose_pred, _ = _pred_text(loose, own_volume, x)
        parts.append(
            f"Looser, labelled: {fam_words} drafts at chain {chain} on {bench_label(bench)} ({loose.n} points, "
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


def kimi_verdict(points: pd.DataFrame | None = None, *, benchmark: str = "gsm8k") -> GapVerdict:
    """The built-in example: the team's 37K-sample Kimi-K2.5 draft against AQ-MedAI's 1.4M-sample one."""
    from comparelib.models import registry

    own = float(registry.example_own_draft_volume()["samples"])
    return gap_verdict(own, KIMI_REFERENCE, benchmark=benchmark, points=points)


@dataclass(frozen=True)
class LiveOutlook:
    """What a run group's measurements say about num_steps, with the fit's "more data" scenario when it adds one."""

    measured: pd.DataFrame  # the runs of the sweep the model is fitted to, and its baseline: what is drawn beside it
    model: SpeedupModel
    prediction: pd.DataFrame | None  # None: one num_steps cannot say which is best
    missing: list[str]  # measurements that would make the prediction firmer (or possible)
    scenario: str | None  # label of the "more data" rows in ``prediction``
    no_scenario: str | None  # why the fit adds no "more data" scenario, when it was asked for one
    best: Optimum | None  # None while the best num_steps cannot be predicted
    best_with_more_data: Optimum | None
    runs_note: str | None = None  # runs left out as served with another target, or the targets the group mixes
    sweep: SweepChoice | None = None  # the batch size and engine fitted
    sweeps: tuple[SweepChoice, ...] = ()  # every batch size and engine the draft's runs measured at
    not_drawn: str | None = None  # your draft's runs outside the fitted sweep, named: they are not drawn


def _not_drawn(choices: Sequence[SweepChoice], chosen: SweepChoice | None, fitted: set[int]) -> str | None:
    """Your draft's runs outside the fitted sweep, by the sweep they belong to; None when every run is drawn."""
    parts = [f"{id_span(c.run_ids)} ({c.where})" for c in choices if c is not chosen]
    rest = [i for i in (chosen.run_ids if chosen is not None else ()) if i not in fitted]
    if rest:
        parts.append(f"{id_span(rest)} (left out of the fit: see how the speed model was identified)")
    if not parts:
        return None
    return (
        "Drawn: only the runs the prediction is fitted to"
        + (f" ({chosen.where})" if chosen is not None else "")
        + f". Not drawn: your draft's runs {'; '.join(parts)}"
        + ("; pick their sweep under 'Sweep' to see them." if len(choices) > 1 else ".")
    )


def live_outlook(
    runs: Sequence[Any],
    at_reference: tuple[float, int, float] | None,
    *,
    reference: str,
    x: Axis,
    target: str | None = None,
    draft: str | None = None,
    sweep: tuple[int | None, str | None] | None = None,
    own_run: tuple[int, int, float] | None = None,
    benchmark: str | None = None,
) -> LiveOutlook:
    """Speed predictions from a run group; ``at_reference`` is scaling.fit_at_reference's (accept, steps, volume).

    The "more data" scenario is shown only when the fit at the reference's volume beats what the draft
    already reaches at that num_steps (``own_run``: your acceptance as Overview picks it, (run id, num_steps,
    acceptance), where it drafted that num_steps; else the sweep's); otherwise the published trend says nothing
    about more data for it.
    Runs served with another model than the draft's ``target`` are neither drawn nor fitted (``runs_note``), nor
    with ``draft`` (your draft's name) runs of another draft or of the target's own MTP layers (``runs_of_draft``):
    the outlook is your draft's, as Overview's pair is. ``sweep`` (batch size, engine; one of ``sweep_choices``)
    fits the runs measured there; None fits the sweep ``model_from_runs`` picks. ``measured`` holds only the
    fitted sweep's runs and its baseline; the draft's other runs are named in ``not_drawn``. ``benchmark``: the
    fit's; a run measured on other prompts is not set against its figure (``prompts_apart``: walk Y read "the
    published trend says nothing about more data" from a GSM8K 2.78 against 3.00 on the bundled prompts, which the
    page's lead said are not compared).
    """
    from comparelib.models.draft import runs_for_target, runs_of_draft

    # the default sweep is the one model_from_runs fits below (read from its runs), not chosen twice
    choices = sweep_groups(runs, target=target, draft=draft)
    whole = list(runs)  # an acceptance measured at another batch stands in for an extrapolation (accept_from)
    chosen: SweepChoice | None = None
    if sweep is not None:
        chosen = next((c for c in choices if c.key == tuple(sweep)), None)
        if chosen is None:
            raise InputError(
                f"no run of your draft at batch {sweep[0]} on {sweep[1]} in this group; its sweeps: "
                + ("; ".join(c.label for c in choices) or "none")
            )
        runs = [r for r in runs if chosen.holds(r)]
    split = runs_for_target(runs, target)
    own = runs_of_draft(split.kept, draft)
    note = " ".join(n for n in (split.note, own.note) if n) or None
    model = model_from_runs(
        [r for r in runs if r not in own.left_out],
        target=target,
        draft=draft,
        accept_from=[r for r in whole if r not in own.left_out],
    )
    if sweep is None:  # the choice model_from_runs made
        chosen = next((c for c in choices if set(model.fitted_run_ids) & set(c.run_ids)), None)
    drawn = set(model.fitted_run_ids) | {model.baseline_run_id}
    measured = measured_frame([r for r in own.kept if r.id in drawn])
    not_drawn = _not_drawn(choices, chosen, set(model.fitted_run_ids))
    improved: float | None = None
    label: str | None = None
    no_scenario: str | None = None
    if at_reference is not None:
        improved, k_imp, ref_vol = at_reference
        label = f"fit at {human(ref_vol)} {x}: {improved:.2f} at {k_imp} steps"
        reached = model.accept_at(k_imp)  # the measured AL where the sweep measured k_imp
        at_k = [p for p in model.measured if p.num_steps == k_imp and p.accept_length is not None]
        if own_run is not None and own_run[1] == k_imp:  # your acceptance, the run every page names
            reached = own_run[2]
            where = f"your draft measured at {k_imp} steps ({own_run[2]:.2f}, run #{own_run[0]}, your acceptance)"
        elif at_k:
            where = f"your draft measured at {k_imp} steps ({at_k[0].accept_length:.2f}, run #{at_k[0].run_id})"
        elif (other := model.elsewhere_accept(k_imp)) is not None:
            where = f"your draft {other.words} at {k_imp} steps ({other.accept_length:.2f})"
        else:
            steps = ", ".join(str(k) for k in sorted({p.num_steps for p in model.measured}))
            where = (
                f"the model predicts for your draft at {k_imp} steps ({reached:.2f}, extrapolated from the "
                f"runs at num_steps={steps}; not measured)"
            )
        compared = own_run[0] if own_run is not None and own_run[1] == k_imp else at_k[0].run_id if at_k else None
        record = next((r for r in whole if compared is not None and r.id == compared), None)
        apart = prompts_apart(run_param(record, "prompt_set"), benchmark) if record is not None else None
        if apart is not None:
            no_scenario = (
                f"No \"more data\" scenario: the fit's {improved:.2f} at {reference}'s volume is a "
                f"{bench_label(benchmark or '')} figure and {where} on the {apart!r} prompts: not on one scale, so "
                f"the published trend is not set against your runs here (measure on {bench_label(benchmark or '')} "
                "prompts to compare)."
            )
            improved, label = None, None
        elif improved <= reached:
            no_scenario = (
                f"No \"more data\" scenario: the fit's prediction of {improved:.2f} at {reference}'s volume is not "
                f"above what {where}, so the published trend says nothing about more data for your draft."
            )
            improved, label = None, None
    missing = missing_evidence(model)
    if optimum_missing(model):
        # no prediction to be fitted to (walk AR: "Drawn: only the runs the prediction is fitted to" beside "No
        # prediction of the best num_steps yet"): the runs drawn are the sweep's
        if not_drawn is not None:
            not_drawn = not_drawn.replace("the runs the prediction is fitted to", "the runs of this sweep", 1)
        return LiveOutlook(
            measured, model, None, missing, None, no_scenario, None, None, note, chosen, choices, not_drawn
        )
    if improved is not None and at_reference is not None:
        prediction = what_if(model, improved, at_steps=at_reference[1], label=label)
        better = optimum(model, frame=prediction[prediction["scenario"] == label])
    else:
        prediction, better = predict_frame(model), None
    best = optimum(model)
    return LiveOutlook(
        measured, model, prediction, missing, label, no_scenario, best, better, note, chosen, choices, not_drawn
    )
