"""Walk S: the plan said "Target already met by run #7: it measured AL 2.78 at (3,1,4) (batch 1), at or above the
target 2.318 (lmsys/...'s published GSM8K AL)": run #7 was measured on the app's bundled prompts, on vLLM at batch
1, the 2.318 on GSM8K. Acceptance vs data and ``plan`` without ``--curve`` both said the two are on other prompts;
the ``--curve`` path (and Overview with a kept log) set them side by side anyway.

One rule for both paths: a run on other prompts than the target's benchmark neither meets nor misses the target;
the plan says what was measured where, and that no comparison is made. Overview's acceptance line names the prompt
set as differing too, not only the batch size.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from comparelib.analysis import overview, plan, scaling
from tests.test_sweep import _entry, rec

LOG_X = tuple(800.0 * i for i in range(1, 63))  # a training log to 49,600 samples seen
LOG_AL = tuple(1 + 2.6 / (1 + (60_000.0 / v) ** 1.5) for v in LOG_X)  # still rising, plateau 3.6
TARGET = 3.2

# path (your log fitted, or the published trend), the prompts your runs were measured on, run #2's AL at 3 steps,
# whether the target is met by run #2
CASES = [
    ("log", "gsm8k", 3.5, True),
    ("log", "GSM8K", 3.5, True),
    ("log", "bundled", 3.5, False),
    ("log", "bundled", 2.9, False),  # below the target: not "missed" either
    ("log", "mt-bench", 3.5, False),
    ("trend", "gsm8k", 3.5, True),
    ("trend", "bundled", 3.5, False),
    ("trend", "bundled", 2.9, False),
]


def _more(path: str, prompts: str, al: float) -> plan.Option:
    runs = [rec(1, None, 380.0, prompt_set=prompts), rec(2, 3, 800.0, al, prompt_set=prompts)]
    runs += [rec(3, 2, 700.0, al - 0.4, prompt_set=prompts)]
    inputs = plan.inputs_for(_entry(), runs=runs, own_samples=4_960.0, published=scaling.published_points())
    if path == "log":
        inputs = replace(inputs, curve_x=LOG_X, curve_al=LOG_AL, curve_steps=3, curve_source="train.csv")
    result = plan.build(inputs, target_al=TARGET)
    assert (result.fit is not None and result.fit.scope) == ("curve" if path == "log" else "pooled")
    return next(o for o in result.options if o.kind == "more-data")


@pytest.mark.parametrize(("path", "prompts", "al", "met"), CASES)
def test_only_a_run_on_the_targets_benchmark_meets_or_misses_it(path: str, prompts: str, al: float, met: bool) -> None:
    more = _more(path, prompts, al)
    assert more.note.startswith("Target already met by run #2") is met, more.note
    if met:
        return
    assert "Target already met" not in more.note, more.note
    if path == "trend" and al == 3.5:  # the no-curve path's words, kept (walk R2)
        assert f"was measured on the {prompts!r} prompts and the trend is GSM8K's" in more.note, more.note
        return
    said = (
        f"Run #2 measured AL {al:.2f} at (3,1,4) (batch 4) on the {prompts!r} prompts, and the target {TARGET:g} "
        "(the target AL you gave) is a GSM8K figure: the two are not on one scale, so they are not compared (the "
        "target is neither met nor missed by that run)."
    )
    assert said in more.note, more.note
    if path == "log":  # your log, put on the live scale by run #2, is not set against the target either
        for claim in ("reaches the target", "does not reach the target", "in reach", "and the target is compared"):
            assert claim not in more.note, (claim, more.note)
        assert more.samples_needed is None
        assert "is not set against the target" in more.note, more.note
        assert f"run #2 measured AL {al:.2f} at (3,1,4) on the {prompts!r} prompts" in more.note, more.note


REF = "lmsys/SGLang-EAGLE3-Llama-3.3-70B-Instruct-SpecForge"
KEY = "steps=3,topk=1,draft=4,bs=1,sglang"  # walk S's run #13; the reference is published at bs=8

# your run's prompts, what the line says of them
PROMPT_CASES = [
    ("bundled", "prompts and batch size differ: your 'bundled' prompts against their GSM8K/HumanEval/MATH500"),
    ("mt-bench", "prompts and batch size differ: your 'mt-bench' prompts against their GSM8K/HumanEval/MATH500"),
    ("gsm8k", "(batch size differs: another batch size is another measurement, so this is not like for like)"),
    (None, "(batch size differs: another batch size is another measurement, so this is not like for like)"),
]


@pytest.mark.parametrize(("prompts", "said"), PROMPT_CASES)
def test_overviews_acceptance_line_names_the_prompts_as_differing(prompts: str | None, said: str) -> None:
    acc = overview.accept_facts(2.78, KEY, REF)
    line = overview.accept_line(acc, REF, "2.78", KEY, measured=True, own_prompts=prompts)
    assert said in line, line
    assert line.endswith("so this is not like for like)."), line


@pytest.mark.parametrize("prompts", ["bundled", "mt-bench"])
def test_the_more_data_band_on_the_live_scale_never_passes_k_plus_one(prompts: str) -> None:
    """Walk S: on the --curve path the log's fit, moved to the live scale by run #2's AL, read "AL 2.78 (2.36..4.41)"
    at 3 steps: an acceptance length of K draft steps is at most K + 1, whatever the shift adds."""
    more = _more("log", prompts, 3.9)  # run #2 measured 3.9 at 3 steps: the shift lifts the fit's band past 4
    assert more.al is not None and more.al.high is not None
    assert more.al.high <= 4.0 + 1e-9, more.al
    assert more.al.value is not None and more.al.value <= 4.0 + 1e-9, more.al


@pytest.mark.parametrize(
    ("bench", "says"),
    [
        ("gsm8k", "is a GSM8K figure:"),
        ("humaneval", "is a HumanEval figure:"),
        ("mtbench", "is an MT-Bench figure:"),
        ("unspecified", "is a figure on prompts its source does not name:"),  # walk AC: read "is a unspecified figure"
    ],
)
def test_not_on_one_scale_names_the_target_benchmark_in_words(bench: str, says: str) -> None:
    from comparelib.analysis import verdicts

    text = verdicts.not_on_one_scale("Run #4", 2.61, "(3,1,4)", 1, "bundled", "2.45", bench)
    assert says in text and " a unspecified" not in text, text
