"""Walk AA: a gated Hub draft for Qwen/Qwen3-235B-A22B-Instruct-2507, swept on SGLang at batch 8 (#1 baseline,
#2..#4) and batch 1 (#13 baseline, #8, #14, #9), with its training log (train_log.csv, 18 lines, eval every 500
steps, nearly noise-free).

- AA1: the plan's "More training data" said "the trend gives live AL 3.10 (2.78..3.56)" at 10x the samples seen,
  while Acceptance vs data and `curve --steps 3` give the 10x gain +0.31 (+0.305..+0.321): a band 50x wider whose
  low end lies under the measured starting AL 2.79, which no rising form allows.
- AA2: "num_steps=3 ties within noise (552.4 tok/s measured in run #3, 2.0% higher)": the tie rule measures from
  the fastest (541.5 is 1.97% below 552.4); "2.0% higher" read as the threshold itself.
- AA3: "batch 1: 3 (4 ties, predicted) at 92.4 tok/s measured in run #14" read as if 3 were predicted.
- AA4: on this log the learning curve said "2.38 (2.38..2.38) at 2x".
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from comparelib import values
from comparelib.analysis import curves, plan, speedup
from comparelib.live.store import RunRecord
from comparelib.models import comparison
from tests.fixtures import stored_run

LOG = """step,samples_seen,split,acc_0,acc_1,acc_2,acc_3,acc_4
250,16000,train,0.4500,0.4100,0.3700,0.3300,0.2900
500,32000,train,0.5347,0.4947,0.4547,0.4147,0.3747
500,32000,eval,0.5147,0.4747,0.4347,0.3947,0.3547
750,48000,train,0.5745,0.5345,0.4945,0.4545,0.4145
1000,64000,train,0.5990,0.5590,0.5190,0.4790,0.4390
1000,64000,eval,0.5790,0.5390,0.4990,0.4590,0.4190
1250,80000,train,0.6161,0.5761,0.5361,0.4961,0.4561
1500,96000,train,0.6291,0.5891,0.5491,0.5091,0.4691
1500,96000,eval,0.6091,0.5691,0.5291,0.4891,0.4491
1750,112000,train,0.6393,0.5993,0.5593,0.5193,0.4793
2000,128000,train,0.6477,0.6077,0.5677,0.5277,0.4877
2000,128000,eval,0.6277,0.5877,0.5477,0.5077,0.4677
2250,144000,train,0.6547,0.6147,0.5747,0.5347,0.4947
2500,160000,train,0.6607,0.6207,0.5807,0.5407,0.5007
2500,160000,eval,0.6407,0.6007,0.5607,0.5207,0.4807
2750,176000,train,0.6659,0.6259,0.5859,0.5459,0.5059
2812,179968,train,0.6671,0.6271,0.5871,0.5471,0.5071
2812,179968,eval,0.6471,0.6071,0.5671,0.5271,0.4871
"""

AL = {2: 2.4, 3: 2.7906976744186047, 5: 3.1578947368421053}
# id, num_steps (None: baseline), tok/s, batch: the walk's SGLang runs of the draft
ROWS: list[tuple[int, int | None, float, int]] = [
    (1, None, 306.3, 8),
    (2, 2, 541.52, 8),
    (3, 3, 552.39, 8),
    (4, 5, 493.66, 8),
    (13, None, 47.31, 1),
    (8, 2, 85.41, 1),
    (14, 3, 92.40, 1),
    (9, 5, 87.78, 1),
]


def walk_aa(batches: tuple[int, ...] = (1, 8)) -> list[RunRecord]:
    out = []
    for id_, k, tok_s, batch in ROWS:
        if batch not in batches:
            continue
        run = stored_run(
            id_, k, tok_s, AL.get(k) if k else None, engine="sglang", group="qlab-235b", concurrency=batch, requests=16
        )
        out.append(replace(run, params={**run.params, "requests": 16 if batch == 8 else 8, "max_tokens": 120}))
    return out


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "train_log.csv"
    path.write_text(LOG)
    return path


def _entry() -> Any:
    return comparison.load_entry("example:own-kimi-k2.5-draft", with_header=False, with_card=False)


def _plan(log: Path) -> plan.Plan:
    curve = curves.curve([str(log)], steps=3)
    inputs = plan.inputs_for(_entry(), runs=walk_aa(), own_samples=348.0, curve=curve, curve_source="train_log.csv")
    return plan.build(inputs, steps=3)


def _option(result: plan.Plan, kind: str) -> plan.Option:
    return next(o for o in result.options if o.kind == kind)


# ---------------------------------------------------------------- AA1: the more-data band is the log fit's gain band


def test_the_more_data_band_is_the_measured_al_plus_the_logs_gain_band(log: Path) -> None:
    curve = curves.curve([str(log)], steps=3)
    g = curve.evidence["gain_at_10x"]  # what Acceptance vs data and `curve --json` give at 10x
    assert (round(g["mean"], 2), round(g["low"], 3), round(g["high"], 3)) == (0.31, 0.305, 0.321), g
    md = _option(_plan(log), "more-data")
    assert md.al is not None and md.al_steps == 3
    live = AL[3]  # run #3 (batch 8) measured it at (3,1,4)
    assert md.al.value == pytest.approx(live + g["mean"], abs=1e-9), md.al
    assert md.al.low == pytest.approx(live + g["low"], abs=1e-9), md.al
    assert md.al.high == pytest.approx(live + g["high"], abs=1e-9), md.al
    assert md.al.low >= live, md.al  # more data of a rising fit never lowers acceptance
    note = md.note or ""
    assert "where the trend gives live AL 3.10 (3.10..3.11)" in note, note
    assert (
        "so every AL here is predicted live AL on those prompts = that measured AL + the gain your log's power-law "
        "fit (the one Acceptance vs data draws) predicts from your volume to the new one. Its band is that fit's 95% "
        "band of the gain (6 points: +0.313 (+0.305..+0.321) at 10x your samples seen), as Acceptance vs data gives "
        "it; the measured AL's own run-to-run spread is not in it."
    ) in note, note


def test_a_gain_band_of_a_rising_fit_never_falls_below_zero() -> None:
    xs = [16000.0 * i for i in range(1, 9)]
    ys = [2.0, 2.3, 2.1, 2.35, 2.2, 2.4, 2.25, 2.42]  # noisy, barely rising: the band is wide
    f = curves.fit_curve(xs, ys, x_unit="samples_seen", split="eval", tau_max=4.0)
    mean, low, high = f.gain(10.0)
    assert f.a >= 0 and mean >= 0 and low >= 0 and high >= mean, (mean, low, high)


# ---------------------------------------------------------------- AA2: a tie said as the rule measures it


def test_a_tie_is_said_from_the_fastest_as_the_rule_measures_it() -> None:
    best = speedup.optimum(speedup.model_from_runs(walk_aa((8,))))
    assert best.num_steps == 2 and best.ties == (3,), best.sentence
    assert "2.0% higher" not in best.sentence, best.sentence
    assert (
        "num_steps=3 ties within noise (552.4 tok/s measured in run #3, the fastest; num_steps=2 is 1.97% below the "
        "fastest): "
        "within 2% of the fastest the smallest num_steps is named."
    ) in best.sentence, best.sentence


# (tok/s below the fastest as a fraction, the threshold, the words): never equal to or past the threshold for a tie,
# never under it for one that is not
PCT = [
    (0.0197, 0.02, True, "1.97"),
    (0.0199999, 0.02, True, "1.99999"),
    (0.012, 0.02, True, "1.2"),
    (0.0201, 0.02, False, "2.01"),
    (0.043, 0.02, False, "4.3"),
]


@pytest.mark.parametrize(("gap", "limit", "within", "text"), PCT)
def test_a_percentage_beside_a_threshold_reads_on_its_side(gap: float, limit: float, within: bool, text: str) -> None:
    assert values.percent_beside(gap, limit) == text
    assert (float(text) < limit * 100) == within


# ---------------------------------------------------------------- AA3: which of the named and tied is predicted


def test_the_named_num_steps_says_it_was_measured_where_a_tie_is_predicted(log: Path) -> None:
    note = _option(_plan(log), "num-steps").note or ""
    assert "batch 1: 3 (4 ties, predicted) at" not in note, note
    assert "batch 1: 3 (measured; 4 ties, predicted) at 92.4 tok/s measured in run #14" in note, note


# ---------------------------------------------------------------- AA4: a band under the shown decimals


def test_a_band_narrower_than_the_shown_decimals_is_said_in_words(log: Path) -> None:
    curve = curves.curve([str(log)], steps=3)
    assert "(2.38..2.38)" not in curve.sentence, curve.sentence
    assert "2.38 (band under 0.01: the log's points lie on the fit) at 2x (+0.12)" in curve.sentence, curve.sentence


BANDS = [
    # value, low, high, format, text
    (2.3812, 2.3791, 2.3833, ".2f", "2.38 (band under 0.01: the points lie on the fit)"),
    (2.5762, 2.5674, 2.5849, ".2f", "2.58 (2.57..2.58)"),
    (0.1231, 0.1226, 0.1234, "+.3f", "+0.123 (band under 0.001: the points lie on the fit)"),
    (0.1231, 0.1100, 0.1342, "+.3f", "+0.123 (+0.110..+0.134)"),
]


@pytest.mark.parametrize(("value", "low", "high", "fmt", "text"), BANDS)
def test_one_band_formatter(value: float, low: float, high: float, fmt: str, text: str) -> None:
    assert values.band_text(value, low, high, fmt) == text
