"""Walk BP 1 (high): a log evaluated once a pass for four passes overfitted (eval tau_sim 2.13, 2.42, 2.30, 2.17 at
passes 1-4 while train kept rising), and the Learning curve tab, Overview's headline, the plan and ``curve`` said
"Still rising ... More of the same data should help": with fewer than 5 eval points the eval split was never read.
Too few to measure their scatter, they are still read for a fall: one at every eval after the peak, over at least two
of them and at least ``PLATEAU_GAIN``, is called overfitting, with words that say it was not tested against noise."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from comparelib.analysis import curves
from tests.fixtures import cli_in_process, page_app
from tests.test_curve_overfitting import OWN, _points

WALK_BP = (2.131, 2.417, 2.297, 2.166)  # the walk's eval tau_sim at the end of passes 1-4

CASES = [
    # name, eval tau_sim (one a pass), train series, verdict
    ("walk BP: peak at pass 2, falls at 3 and 4", WALK_BP, "rising", "overfitting"),
    ("three points, peak first", (2.40, 2.30, 2.20), "rising", "overfitting"),
    ("falls, then rises again", (2.13, 2.42, 2.30, 2.36), "rising", "rising"),  # not a fall at every eval after it
    ("one eval after the peak", (2.13, 2.30, 2.42, 2.30), "rising", "rising"),  # a fall over one point is not read
    ("a dip under 0.05", (2.13, 2.42, 2.40, 2.39), "rising", "rising"),
    ("train flat after the peak", WALK_BP, "flat", "plateau"),  # eval fell, train did not rise: not overfitting
    ("two eval points", (2.42, 2.17), "rising", "rising"),  # fewer than three: not read
]


@pytest.mark.parametrize(("name", "taus", "train", "verdict"), CASES, ids=[c[0] for c in CASES])
def test_few_eval_points_are_read_for_a_fall(name: str, taus: tuple[float, ...], train: str, verdict: str) -> None:
    c = curves.analyse(_points(taus, train=train))
    assert c.verdict == verdict, c.sentence
    if verdict == "overfitting":
        assert c.sentence.startswith("Overfitting: eval tau_sim peaked at "), c.sentence
        assert f"not tested against noise: {len(taus)} eval points are too few" in c.sentence, c.sentence
        assert "More of the same data should help" not in c.sentence
        assert c.evidence["split"] == "eval" and c.evidence["eval_points_untested"] == len(taus)
    else:
        assert "Overfitting" not in c.sentence, c.sentence


def test_the_walks_log_names_the_pass_2_checkpoint() -> None:
    c = curves.analyse(_points(WALK_BP))
    assert c.peak is not None and c.peak.pass_no == 2 and c.peak.few == 4
    assert "Keep the pass-2 checkpoint" in c.sentence, c.sentence
    assert "fell 0.25" in c.sentence, c.sentence


def test_cli_curve_says_overfitting(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = ["step,samples_seen,epoch,split,acc_0,acc_1,acc_2"]
    for step in range(50, 6001, 50):  # train every 50 steps, 16 samples a step, rising
        a = 0.45 + 0.35 * (1 - 2.718 ** (-step / 1500))
        rows.append(f"{step},{step * 16},{step / 1500:.4f},train,{a:.4f},{a * 0.93:.4f},{a * 0.88:.4f}")
    for p, acc in enumerate(((0.62, 0.55, 0.5), (0.7, 0.64, 0.6), (0.67, 0.6, 0.56), (0.63, 0.56, 0.52)), start=1):
        rows.append(f"{p * 1500},{p * 24000},{p:.4f},eval,{acc[0]},{acc[1]},{acc[2]}")
    log = tmp_path / "train_log.csv"
    log.write_text("\n".join(rows) + "\n")
    done = cli_in_process(capsys, "curve", str(log))
    assert done.returncode == 0, done.stderr
    assert "verdict: overfitting" in done.stdout, done.stdout
    assert "More of the same data should help" not in done.stdout, done.stdout


def test_overview_does_not_say_more_training_helps(tmp_path: Path) -> None:
    at: AppTest = page_app("../pages/overview.py", timeout=60)
    at.session_state["_own_curve"] = {OWN: curves.analyse(_points(WALK_BP))}
    at.run()
    assert not at.exception, at.exception
    head = at.subheader[0].value if at.subheader else ""
    assert "Your training log is overfitting" in head, head
    assert "still rising" not in head and "should still help" not in head, head
