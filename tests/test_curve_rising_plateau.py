"""A curve that is still rising but bending toward its ceiling is not "Still rising ... More of the same data should
help" on a per-doubling slope read over half a doubling.

Walk W: a training log whose per-position accuracies follow ``c_i * (1 - exp(-x / 64K))`` (x: samples seen, 16K to
320K, 3 positions) rose +0.098 per doubling over its last half-doubling (6 points), down from about +0.25 over the
half-doubling before; the gain per logged point fell from 0.016 to 0.0045 over its last 6 points; its ceiling is 2.505
and the next doubling adds +0.017. The fit over all points was set aside (ceiling 11.57, past K + 1), so the measured
slope alone called it "Still rising ... +0.098 per doubling ... More of the same data should help".

Every log here is written as a CSV file and read through ``curves.curve`` and the CLI, as the page and the CLI read it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from comparelib import cli
from comparelib.analysis import curves

_C = (0.78, 0.62, 0.5)  # walk W's per-position ceilings


def _tau(accs: list[float]) -> float:
    return 1 + sum(math.prod(accs[: k + 1]) for k in range(len(accs)))


def _csv(path: Path, grow: Callable[[float], float], xs: np.ndarray, *, noise: float = 0.0, seed: int = 0) -> Path:
    """A CSV training log: acc_i = c_i * grow(samples seen) (+ noise on each accuracy), 4 decimals as logged."""
    rng = np.random.default_rng(seed)
    rows = ["step,samples_seen,split,acc_0,acc_1,acc_2"]
    for i, x in enumerate(xs, 1):
        accs = [min(1.0, max(0.0, c * grow(float(x)) + (rng.normal(0, noise) if noise else 0.0))) for c in _C]
        rows.append(f"{i * 500},{int(x)},train," + ",".join(f"{a:.4f}" for a in accs))
    path.write_text("\n".join(rows) + "\n")
    return path


def _walk_w(x: float) -> float:
    return 1 - math.exp(-x / 64_000)


WALK_XS = np.arange(16_000, 320_001, 16_000)


def test_walk_w_near_its_ceiling_is_not_called_still_rising(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _csv(tmp_path / "trainlog.csv", _walk_w, WALK_XS)
    c = curves.curve([path])
    ev = c.evidence
    # the walk's numbers: the measured slope is the one the user saw; the fit over all points is set aside
    assert ev["slope_per_doubling_last"]["slope"] == pytest.approx(0.098, abs=0.002)
    assert ev["slope_per_doubling_last"]["window"] == "last half-doubling (6 points)"
    assert not ev["fit_used"]
    # the slope fell: the half-doubling before rose more than twice as fast, past noise
    before = ev["slope_per_doubling_before"]
    assert before["slope"] > 2 * ev["slope_per_doubling_last"]["slope"] and ev["slope_falling"]
    # a power law fitted to the last doubling predicts the next doubling under the bar a rising curve needs ...
    recent = ev["recent_fit"]
    assert recent["points"] == 11 and not recent["problems"]
    gain = recent["gain_at_2x"]
    assert 0 < gain["mean"] < curves.PLATEAU_GAIN and gain["high"] < curves.PLATEAU_GAIN
    # ... and it does not understate it: the true next doubling (+0.017) is at or under its prediction, and over the
    # lower figure the falling gains give (an exponential approach)
    truth = _tau([c_ * _walk_w(640_000) for c_ in _C]) - _tau([c_ * _walk_w(320_000) for c_ in _C])
    assert truth == pytest.approx(0.0167, abs=0.0005)
    assert ev["gains_falling"]["next_doubling"] <= truth + 0.003 and truth <= gain["high"]
    assert c.verdict == "plateau" and ev["near_ceiling"], c.sentence
    s = c.sentence
    assert s.startswith("Near its ceiling: train tau_sim 2.49 at 320K samples seen"), s
    assert "Still rising" not in s and "should help" not in s and "Flat" not in s
    # every number named: measured slopes with their windows, the per-point gains, the prediction and its source
    assert "measured over the last half-doubling (6 points): +0.098 per doubling" in s
    assert "down from +0.2" in s and "over the half-doubling before (5 points)" in s
    assert "the gain per logged point fell steadily from +0.016 to +0.0045 over the last 6 points" in s
    assert f"Predicted by the power law fitted to the last doubling (11 points): {gain['mean']:+.3f}" in s
    assert f"its fitted ceiling {recent['tau_inf']:.2f}" in s
    assert "set aside for predictions" in s  # why the fit over all points predicts nothing
    assert "More of the same data will add little" in s
    # Overview and the plan can say this instead of "has plateaued"
    assert c.ceiling_words() == (
        "is near its ceiling: still rising but slowing, measured +0.098 per doubling over the last half-doubling "
        f"(6 points), down from {before['slope']:+.3f} over the half-doubling before (5 points); the power law "
        f"fitted to its last doubling predicts {gain['mean']:+.3f} over the next doubling"
    )
    kept = curves.from_stored(curves.to_stored(c))  # kept with the draft: fitted again, the same words
    assert kept.verdict == "plateau" and kept.sentence == c.sentence and kept.ceiling_words() == c.ceiling_words()
    assert cli.main(["curve", str(path)]) == 0
    out = capsys.readouterr().out
    assert "verdict: plateau\n" in out and "Still rising" not in out
    assert "fit to the last doubling (11 points): tau = " in out
    assert cli.main(["curve", str(path), "--json"]) == 0  # the new evidence is JSON
    got = json.loads(capsys.readouterr().out)
    assert got["verdict"] == "plateau" and got["evidence"]["recent_fit"]["points"] == 11


def _power(x: float) -> float:
    return 1 - 0.9 * (x / 16_000) ** -1.2


def test_a_power_law_fitted_whole_is_outweighed_by_its_last_doubling(tmp_path: Path) -> None:
    """acc_i = c_i * (1 - 0.9 * (x / 16K) ** -1.2): the fit over all points is used (its ceiling under K + 1, its last
    points met) and extrapolates +0.052 at 2x; tau_sim is no power law of x, its last doubling bends more, and the
    next doubling adds +0.034, as the fit to that doubling predicts."""
    c = curves.curve([_csv(tmp_path / "log.csv", _power, WALK_XS)])
    ev = c.evidence
    truth = _tau([c_ * _power(640_000) for c_ in _C]) - _tau([c_ * _power(320_000) for c_ in _C])
    assert truth == pytest.approx(0.034, abs=0.001)
    assert ev["fit_used"] and ev["gain_at_2x"]["mean"] >= curves.PLATEAU_GAIN  # the old rule's "rising"
    assert ev["slope_per_doubling_last"]["slope"] >= curves.PLATEAU_GAIN and ev["slope_falling"]
    gain = ev["recent_fit"]["gain_at_2x"]
    assert gain["low"] - 0.002 <= truth <= gain["high"] + 0.002
    assert c.verdict == "plateau" and ev["near_ceiling"], c.sentence
    assert c.sentence.startswith("Near its ceiling: train tau_sim 2.44 at 320K samples seen (fit 2.46)"), c.sentence
    assert f"The fit over all 20 points extrapolates {ev['gain_at_2x']['mean']:+.2f} at 2x (a model statement" in (
        c.sentence
    )
    assert "should help" not in c.sentence and "More of the same data will add little" in c.sentence


# name, grow(samples seen), x values, noise, the verdict
STAYS_RISING = [
    # far from its ceiling and rising faster than a power law: the recent fit predicts well over 0.05
    ("exponential far from its ceiling", lambda x: 1 - math.exp(-x / 2_000_000), WALK_XS, 0.0),
    # a power law: the same form fitted to the last doubling predicts as the whole fit does
    ("power law", lambda x: 1 - 0.9 * (x / 1000) ** -0.3, WALK_XS, 0.0),
    # log-linear (Scylla's form before saturation): no bend at all
    ("log-linear", lambda x: 0.1 + 0.06 * math.log2(x / 1000), WALK_XS, 0.0),
    # log-linear with scatter (sd 0.005) on each accuracy: noise is not read as a bend (none of 20 seeds was)
    ("log-linear, noisy seed 0", lambda x: 0.1 + 0.06 * math.log2(x / 1000), WALK_XS, 0.005),
    ("log-linear, noisy seed 1", lambda x: 0.1 + 0.06 * math.log2(x / 1000), WALK_XS, 0.005),
    ("log-linear, noisy seed 2", lambda x: 0.1 + 0.06 * math.log2(x / 1000), WALK_XS, 0.005),
]


@pytest.mark.parametrize(("name", "grow", "xs", "noise"), STAYS_RISING, ids=[r[0] for r in STAYS_RISING])
def test_a_curve_still_rising_past_its_bend_stays_rising(
    tmp_path: Path, name: str, grow: Callable[[float], float], xs: np.ndarray, noise: float
) -> None:
    seed = int(name[-1]) if name[-1].isdigit() else 0
    c = curves.curve([_csv(tmp_path / "log.csv", grow, xs, noise=noise, seed=seed)])
    assert c.verdict == "rising" and not c.evidence["near_ceiling"] and c.ceiling_words() is None, c.sentence
    assert c.sentence.startswith("Still rising") and "More of the same data should help" in c.sentence
    recent = c.evidence.get("recent_fit")
    if recent and not recent["problems"]:  # where the recent fit predicts, it agrees the curve rises
        assert recent["gain_at_2x"]["mean"] >= curves.PLATEAU_GAIN or not c.evidence["slope_falling"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_walk_w_with_scatter_is_still_near_its_ceiling(tmp_path: Path, seed: int) -> None:
    """Scatter (sd 0.001 on each accuracy) does not hide the bend: no per-point words (the gains no longer fall
    steadily), the same verdict from the slopes and the recent fit."""
    c = curves.curve([_csv(tmp_path / "log.csv", _walk_w, WALK_XS, noise=0.001, seed=seed)])
    assert c.verdict == "plateau" and c.sentence.startswith("Near its ceiling: "), c.sentence
    assert c.evidence["slope_falling"] and c.evidence["recent_fit"]["gain_at_2x"]["mean"] < curves.PLATEAU_GAIN
    assert "More of the same data will add little" in c.sentence and "should help" not in c.sentence
    assert ("the gain per logged point fell steadily" in c.sentence) == bool(c.evidence["gains_falling"])


def test_a_bending_curve_that_still_rises_says_it_is_slowing(tmp_path: Path) -> None:
    """Bending past noise, but the last doubling's fit still predicts at least 0.05: rising, and the slowing said."""
    c = curves.curve([_csv(tmp_path / "log.csv", lambda x: 1 - math.exp(-x / 150_000), WALK_XS)])
    ev = c.evidence
    assert ev["slope_falling"] and ev["recent_fit"]["gain_at_2x"]["mean"] >= curves.PLATEAU_GAIN
    assert c.verdict == "rising", c.sentence
    before = ev["slope_per_doubling_before"]
    assert f"slowing: down from {before['slope']:+.3f} per doubling over the {before['window']}" in c.sentence
    assert "More of the same data should help" in c.sentence


def test_acceptance_vs_data_says_near_its_ceiling_for_walk_w(tmp_path: Path) -> None:
    """The page the walk read: its verdict paragraph is the near-ceiling one, with no "should help"."""
    from streamlit.testing.v1 import AppTest

    from tests.fixtures import page_app

    at: AppTest = page_app("../pages/scaling.py", timeout=120)
    at.session_state["sc_tab"] = "Learning curve"
    at.run()
    at.text_input(key="lc_path").input(str(_csv(tmp_path / "trainlog.csv", _walk_w, WALK_XS)))
    at.run()
    assert not at.exception, at.exception
    said = "\n".join(m.value for m in at.markdown)
    assert (
        "plateau]** — Near its ceiling: train tau_sim 2.49 at 320K samples seen is still rising, but slowing" in said
    )
    assert "More of the same data will add little" in said and "should help" not in said


def test_overview_and_the_plan_say_near_its_ceiling_not_plateaued(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Overview's headline and note, and the plan's, read "has plateaued" of walk W's log, which still rose +0.098 per
    doubling: they now say what the curve says, near its ceiling, with its slopes and the next doubling predicted."""
    from tests.fixtures import cli_in_process

    path = str(_csv(tmp_path / "trainlog.csv", _walk_w, WALK_XS))
    near = curves.curve([path]).ceiling_words()
    assert near is not None and near.startswith("is near its ceiling: still rising but slowing")
    proc = cli_in_process(capsys, "overview", "example", "--curve", path, "--no-kept-log", "--json")
    assert proc.returncode == 0, proc.stderr
    said = json.loads(proc.stdout)
    everything = json.dumps(said)
    assert "has plateaued" not in everything, everything
    assert near in everything, everything
    proc = cli_in_process(capsys, "plan", "example", "--curve", path)
    assert proc.returncode == 0, proc.stderr
    assert f"Your training log (Acceptance vs data) {near} on this data" in proc.stdout, proc.stdout
    assert "has plateaued" not in proc.stdout


@pytest.mark.parametrize(
    ("tail_shift", "words"),
    [
        # walk Y read "by 0.00 on average (residual SE 0.002)": the miss shows two significant figures, as the SE does
        (0.003, r"by 0\.00[1-9]\d on average \(residual SE 0\.00[1-9]\d\)"),
        (0.2, r"by 0\.2\d on average \(residual SE 0\.00[1-9]\d\)"),
    ],
)
def test_a_fit_set_aside_for_missing_its_last_points_says_by_how_much_legibly(tail_shift: float, words: str) -> None:
    import re

    xs = np.arange(1.0, 41.0) * 1000
    ys = 3.0 - 1.0 * (xs / xs[-1]) ** -0.5
    f = curves.fit_curve(xs, ys, x_unit="samples", split="train", tau_max=6.0)
    bent = ys.copy()
    bent[-4:] -= tail_shift  # the last points fall under the fit by the shift
    said = " ".join(curves.fit_problems(f, xs, bent, positions=5))
    assert re.search(words, said), said
