"""A plateaued log is not "Still rising ... More of the same data should help" on a slope that is within noise.

Walk AN (finding 3): a SpecForge log (7 positions, global batch 32) whose eval tau_sim from 144K to 288K samples seen
is 2.764, 2.747, 2.758, 2.770, 2.738, 2.753, 2.760, 2.738, 2.764, 2.791. The CLI ``curve``, Acceptance vs data (at 7
positions) and Overview said "Still rising ... measured over the last half-doubling (6 points): +0.082 per doubling.
More of the same data should help". That slope has SE 0.038 over 6 points (95% margin +-0.106) and comes from its last
point, 2.791: without it the same window rises +0.038; over the last doubling (10 points) the log rose +0.011 +- 0.016
(SE), as the power law fitted to that doubling predicts (+0.011). At 3 positions the app already said plateau.

The log is written here in SpecForge's format with the walk's eval accuracies, and read as the CLI and the pages do.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from comparelib import cli
from comparelib.analysis import curves

# the walk's eval accuracies (steps 500..9000, batch 32: 16K..288K samples seen), acc_0..acc_6 as logged
EVAL = [
    (500, (0.3788, 0.2981, 0.2404, 0.2126, 0.1847, 0.1636, 0.1428)),
    (1000, (0.5589, 0.4683, 0.3921, 0.3275, 0.2776, 0.2489, 0.2159)),
    (1500, (0.6656, 0.5566, 0.4567, 0.3828, 0.3358, 0.296, 0.2629)),
    (2000, (0.7257, 0.6009, 0.4966, 0.4159, 0.3593, 0.314, 0.2741)),
    (2500, (0.7559, 0.6193, 0.5151, 0.4319, 0.3751, 0.3349, 0.2978)),
    (3000, (0.7662, 0.6357, 0.5195, 0.4448, 0.3823, 0.3306, 0.2956)),
    (3500, (0.777, 0.6398, 0.5352, 0.4497, 0.3884, 0.3394, 0.2965)),
    (4000, (0.7777, 0.6436, 0.5435, 0.443, 0.3833, 0.344, 0.2988)),
    (4500, (0.7897, 0.642, 0.5417, 0.4479, 0.3914, 0.3379, 0.3118)),
    (5000, (0.7817, 0.6461, 0.5388, 0.4447, 0.3847, 0.3462, 0.3008)),
    (5500, (0.7842, 0.6473, 0.5387, 0.4479, 0.3944, 0.3496, 0.3044)),
    (6000, (0.7939, 0.6421, 0.5401, 0.4426, 0.3902, 0.3477, 0.3032)),
    (6500, (0.7766, 0.6425, 0.5401, 0.4545, 0.3968, 0.3459, 0.3129)),
    (7000, (0.7842, 0.646, 0.5354, 0.4502, 0.3867, 0.3468, 0.3068)),
    (7500, (0.7834, 0.6515, 0.5333, 0.4566, 0.3918, 0.3382, 0.3022)),
    (8000, (0.7784, 0.6426, 0.5384, 0.4503, 0.3933, 0.3443, 0.2993)),
    (8500, (0.7817, 0.6504, 0.5453, 0.4524, 0.392, 0.3392, 0.3033)),
    (9000, (0.7934, 0.6496, 0.5476, 0.4486, 0.3975, 0.3497, 0.3091)),
]


def _log(path: Path, upto: int = 9000) -> Path:
    """A SpecForge log: a train record every 250 steps (acc_i a little under eval's) and the eval records above."""
    lines = ["[rank0]: Starting training gpt-oss-20b eagle3 v2, global batch 32, 300000 samples, 1 epoch"]
    for step, accs in EVAL:
        if step > upto:
            break
        for s in (step - 250, step):
            train = ", ".join(f"'train/acc_{i}': {a * 0.97:.4f}" for i, a in enumerate(accs))
            lines.append(f"step {s}: {{'train/loss': 1.5, {train}}}")
        ev = ", ".join(f"'eval/acc_{i}': {a}" for i, a in enumerate(accs))
        lines.append(f"step {step}: {{{ev}}}")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("steps", [None, 7, 3])
def test_walk_an_plateau_is_not_still_rising(tmp_path: Path, steps: int | None) -> None:
    c = curves.curve([_log(tmp_path / "specforge_v2_train_seed3.log")], batch_size=32, steps=steps)
    ev = c.evidence
    assert ev["split"] == "eval" and ev["x_max"] == 288_000
    slope = ev["slope_per_doubling_last"]
    if steps != 3:  # the walk's numbers at 7 positions
        assert slope["slope"] == pytest.approx(0.082, abs=0.001)
        assert slope["window"] == "last half-doubling (6 points)"
        assert slope["se"] == pytest.approx(0.038, abs=0.001)
        assert slope["margin"] == pytest.approx(0.106, abs=0.001)
        assert slope["slope_without_last_point"] == pytest.approx(0.038, abs=0.001)
    # a rise within noise is no rise: its 95% range reaches below 0
    assert slope["slope"] - slope["margin"] < 0 and not slope["significant"]
    assert c.verdict == "plateau", c.sentence
    s = c.sentence
    assert "Still rising" not in s and "should help" not in s, s
    assert s.startswith(f"Flat: eval tau_sim {2.59 if steps == 3 else 2.79} at 288K samples seen"), s
    assert "within noise" in s, s
    # the slope is said with its uncertainty
    assert f"{slope['slope']:+.3f} per doubling" in s and f"± {slope['margin']:.3f}" in s, s
    assert f"SE {slope['se']:.3f}" in s, s
    assert c.rise_words() is None


def test_walk_an_cli_curve_says_plateau(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _log(tmp_path / "specforge_v2_train_seed3.log")
    for extra in ([], ["--steps", "7"]):
        assert cli.main(["curve", str(path), "--batch-size", "32", *extra]) == 0
        out = capsys.readouterr().out
        assert "verdict: plateau" in out and "verdict: rising" not in out, out
        assert "+0.082 per doubling" in out and "± 0.106" in out and "within noise" in out, out


def test_walk_an_early_log_still_rising_with_its_uncertainty(tmp_path: Path) -> None:
    """The same log cut at 144K samples seen (its last doubling +0.160 per doubling, SE 0.017 over 5 points) rose
    past noise: still rising, and said with its uncertainty."""
    c = curves.curve([_log(tmp_path / "early.log", upto=4500)], batch_size=32)
    slope = c.evidence["slope_per_doubling_last"]
    assert slope["slope"] == pytest.approx(0.160, abs=0.001) and slope["points"] == 5
    assert slope["significant"] and slope["slope"] - slope["margin"] > 0
    assert c.verdict == "rising", c.sentence
    assert c.sentence.startswith("Still rising: eval tau_sim"), c.sentence
    assert f"{slope['slope']:+.3f} per doubling (± {slope['margin']:.3f} at 95%, SE {slope['se']:.3f})" in c.sentence


def test_a_rise_from_its_last_point_alone_is_not_still_rising() -> None:
    """A tail rising +0.03 per doubling (under the 0.05 bar; scatter +-0.0005) whose last point is 0.05 higher: over
    the last half-doubling it rose +0.076 per doubling, past noise, but without that one point +0.029. Flat, and said
    so."""
    xs = list(range(8_000, 288_001, 8_000))
    taus = [
        1 + min(0.75, 0.75 * x / 96_000) + max(0.0, 0.03 * math.log2(x / 96_000)) + (0.0005 if i % 2 else -0.0005)
        for i, x in enumerate(xs)
    ]
    taus[-1] += 0.05
    points = [
        curves.CurvePoint(i, float(x), "eval", (t - 1,), t) for i, (x, t) in enumerate(zip(xs, taus, strict=True), 1)
    ]
    c = curves.analyse(points)
    slope = c.evidence["slope_per_doubling_last"]
    assert slope["slope"] == pytest.approx(0.076, abs=0.001) and slope["low"] > 0  # past noise ...
    assert slope["slope_without_last_point"] == pytest.approx(0.029, abs=0.001)  # ... from one point
    assert not slope["significant"]
    assert c.verdict == "plateau", c.sentence
    assert "+0.076 per doubling" in c.sentence and "from its last point alone (+0.029 without" in c.sentence, (
        c.sentence
    )
    assert "Still rising" not in c.sentence and "within noise" not in c.sentence, c.sentence
