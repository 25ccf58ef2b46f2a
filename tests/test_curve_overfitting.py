"""An overfitting training log is not a plateau (walk S, finding 4).

Walk S's speculators log ran 5 epochs over 5,000 unique samples: eval tau_sim by epoch 2.06, 2.26, 2.38, 2.32,
2.22 (peak at pass 3, then a fall of 0.16) while train acceptance kept rising. ``curve``, the Learning curve tab and
Overview called it "plateau — Flat: ... More of the same data will not move acceptance much: look at capacity ...
wiring", the plan ranked more training data last, and its chart drew a rising Weibull through the falling eval points.
The right answer: keep the pass-3 checkpoint (or stop there); more UNIQUE data is likely to help, more epochs are not.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from comparelib import cli
from comparelib.analysis import curves, overview, plan
from comparelib.analysis.curves import CurvePoint
from comparelib.live.store import Store
from comparelib.models import comparison
from tests.fixtures import page_app, page_text

# walk S's eval points: conditional accuracies per position at the end of epochs 0..4 (val/cond_acc_i_epoch)
WALK_S_EVAL = (
    (0.600, 0.520, 0.460),
    (0.665, 0.585, 0.525),
    (0.700, 0.620, 0.560),
    (0.685, 0.600, 0.540),
    (0.655, 0.570, 0.505),
)
WALK_S_TAU = tuple(curves.tau_sim(a) for a in WALK_S_EVAL)  # 2.06, 2.26, 2.38, 2.32, 2.22
STEPS_PER_EPOCH = 500
BATCH = 10  # samples per logged step: 500 steps x 10 = the 5,000 unique samples a pass


def _train_acc(step: int) -> tuple[float, float, float]:
    """Train acceptance that keeps rising over all 5 epochs (walk S's rose from tau_sim 1.7 to 2.8)."""
    a0 = 0.45 + 0.37 * (1 - math.exp(-step / 900))
    return (round(a0, 4), round(a0 * 0.92, 4), round(a0 * 0.86, 4))


def _tau_acc(tau: float) -> tuple[float, float, float]:
    """Accuracies (a, a, a) whose tau_sim over 3 positions is ``tau``."""
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if curves.tau_sim((mid,) * 3) < tau else (lo, mid)
    return (lo, lo, lo)


def _points(
    eval_tau: tuple[float, ...], *, epochs: bool = True, train: str | None = "rising", per_epoch: int = 1
) -> list[CurvePoint]:
    """Eval points ``per_epoch`` times a pass (the last of each pass at its end), x = samples seen; train points
    every 25 steps, rising, flat or none."""
    out: list[CurvePoint] = []
    n_epochs = len(eval_tau) // per_epoch
    if train is not None:
        for step in range(25, n_epochs * STEPS_PER_EPOCH + 1, 25):
            acc = _train_acc(step) if train == "rising" else _train_acc(900)
            out.append(
                CurvePoint(
                    step=step,
                    samples_seen=float(step * BATCH),
                    split="train",
                    acc=acc,
                    tau_sim=curves.tau_sim(acc),
                    epoch=(step - 1) // STEPS_PER_EPOCH if epochs else None,
                )
            )
    for i, tau in enumerate(eval_tau):
        step = (i + 1) * STEPS_PER_EPOCH // per_epoch
        acc = WALK_S_EVAL[i] if eval_tau == WALK_S_TAU else _tau_acc(tau)
        out.append(
            CurvePoint(
                step=step,
                samples_seen=float(step * BATCH),
                split="eval",
                acc=acc,
                tau_sim=curves.tau_sim(acc),
                epoch=(step - 1) // STEPS_PER_EPOCH if epochs else None,
            )
        )
    return out


def _walk_s_log(path: Path, train: str = "rising") -> Path:
    """Walk S's log in speculators' console shape: train records every 25 steps (rising, or ``flat``), a val record
    per epoch."""
    lines = []
    for epoch in range(5):
        for step in range(epoch * STEPS_PER_EPOCH + 25, (epoch + 1) * STEPS_PER_EPOCH + 1, 25):
            a = _train_acc(step if train == "rising" else 900)
            body = ", ".join(f"train/cond_acc_{i}={v}" for i, v in enumerate(a))
            lines.append(f"[10:00:00] INFO     train/loss=7.0, {body}, epoch={epoch}, lr=1.00e-04, global_step={step}")
        val = ", ".join(f"val/cond_acc_{i}_epoch={v:.3f}" for i, v in enumerate(WALK_S_EVAL[epoch]))
        lines.append(f"[11:00:00] INFO     val/loss_epoch=2.1, {val}, epoch={epoch}")
    path.write_text("\n".join(lines) + "\n")
    return path


def walk_s_curve(tmp_path: Path) -> curves.Curve:
    return curves.curve([_walk_s_log(tmp_path / "train_speculators.log")], batch_size=BATCH)


# ---------------------------------------------------------------- the verdict

PEAK_AT_4 = (WALK_S_TAU[0], WALK_S_TAU[1], WALK_S_TAU[3], WALK_S_TAU[2], WALK_S_TAU[4])  # one pass after the peak
RISING = (2.06, 2.26, 2.38, 2.45, 2.50)
FLAT_AFTER = (2.06, 2.26, 2.38, 2.37, 2.375)  # reaches its top and stays
SMALL_DIP = (2.06, 2.26, 2.38, 2.365, 2.35)  # a fall of 0.03: under the 0.05 a verdict counts
DENSE = (2.00, 2.10, 2.18, 2.25, 2.31, 2.36, 2.33, 2.29, 2.25, 2.20)  # evaluated twice a pass, peak at pass 3

VERDICT_CASES = [
    # name, eval tau_sim, epochs logged, train series, eval points per pass, verdict
    ("walk S", WALK_S_TAU, True, "rising", 1, "overfitting"),
    ("walk S, no train points", WALK_S_TAU, True, None, 1, "overfitting"),  # fell over 2 passes
    ("walk S, no train points, no epochs", WALK_S_TAU, False, None, 1, "plateau"),  # passes not known
    ("walk S, train flat", WALK_S_TAU, True, "flat", 1, "plateau"),  # eval fell, train did not rise
    ("walk S, train rising, no epochs", WALK_S_TAU, False, "rising", 1, "overfitting"),
    ("peak at pass 4, no train points", PEAK_AT_4, True, None, 1, "plateau"),  # one pass after it
    ("rising", RISING, True, "rising", 1, "rising"),
    ("flat after its top", FLAT_AFTER, True, "rising", 1, "plateau"),
    ("a dip within noise", SMALL_DIP, True, "rising", 1, "plateau"),
    ("evaluated twice a pass", DENSE, True, "rising", 2, "overfitting"),
]


@pytest.mark.parametrize(
    ("name", "taus", "epochs", "train", "per_epoch", "verdict"), VERDICT_CASES, ids=[c[0] for c in VERDICT_CASES]
)
def test_overfitting_is_its_own_verdict(
    name: str, taus: tuple[float, ...], epochs: bool, train: str | None, per_epoch: int, verdict: str
) -> None:
    c = curves.analyse(_points(taus, epochs=epochs, train=train, per_epoch=per_epoch))
    assert c.evidence["split"] == "eval"
    assert c.verdict == verdict, (c.sentence, c.evidence.get("not_overfitting"))
    if verdict != "overfitting":
        # a plateau's peak is one whose fall past noise is not called overfitting, and says why (below)
        assert (c.peak is None or c.peak.why_not) and "Overfitting" not in c.sentence
        return
    assert c.peak is not None and not c.peak.why_not
    assert "capacity" not in c.sentence and "Flat" not in c.sentence
    assert c.sentence.startswith("Overfitting: eval tau_sim peaked at "), c.sentence
    assert "more unique data is likely to help" in c.sentence and "Keep the " in c.sentence
    # the fit is of the points up to the peak, drawn there only: no rising line through the fall
    assert all(b["x"] <= c.peak.x * (1 + 1e-9) for b in c.band)
    assert c.evidence["fit_used"] is False and "left out of the fit" in c.evidence["fit_not_used_because"][0]
    assert c.evidence["overfitting"]["fall"] == pytest.approx(c.peak.tau - c.peak.last_tau)


def test_walk_s_names_the_peak_the_fall_and_the_checkpoint() -> None:
    c = curves.analyse(_points(WALK_S_TAU))
    peak = c.peak
    assert peak is not None
    assert (peak.pass_no, peak.epoch, peak.passes, peak.x) == (3, 2, 5, 15_000.0)
    assert peak.tau == pytest.approx(2.377, abs=1e-3) and peak.fall == pytest.approx(0.160, abs=1e-3)
    assert peak.train_slope is not None and peak.train_slope >= curves.PLATEAU_GAIN
    said = c.sentence
    for phrase in (
        "peaked at 2.38 at pass 3 of 5 (epoch 2 in the log, 15K samples seen)",
        "fell 0.16 to 2.22 by pass 5 (25K samples seen)",
        "while train tau_sim kept rising",
        "25K samples seen are 5 passes over the same samples, not new data",
        "Keep the pass-3 checkpoint (15K samples seen), or stop training there",
        "more epochs over these samples lower held-out acceptance",
    ):
        assert phrase in said, said
    # past noise, by the log's own scatter: the fitted fall and its margin are said
    assert f"falls {peak.fall_fit:.2f}, more than its 95% margin of {peak.fall_margin:.2f}" in said
    assert peak.fall_fit > peak.fall_margin > 0
    assert c.fit is None and c.band == []  # 3 points up to the peak: too few to fit, nothing drawn through them


def test_a_noisy_flat_eval_is_rarely_called_overfitting() -> None:
    """The fall is judged against the eval points' own scatter: a flat curve's highest point is no peak."""
    rng = np.random.default_rng(7)
    called = 0
    for _ in range(200):
        taus = tuple(float(v) for v in 2.3 + rng.normal(0.0, 0.03, 10))
        called += curves.analyse(_points(taus, per_epoch=2)).verdict == "overfitting"
    assert called <= 20, called  # at most 10% (the margin is 95%)


def test_a_kept_curve_keeps_its_verdict(tmp_path: Path) -> None:
    c = walk_s_curve(tmp_path)
    again = curves.from_stored(curves.to_stored(c, batch_size=BATCH))
    assert again.verdict == c.verdict == "overfitting"
    assert again.sentence == c.sentence


# ---------------------------------------------------------------- the CLI


def test_cli_curve_says_overfitting(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = _walk_s_log(tmp_path / "train_speculators.log")
    assert cli.main(["curve", str(log), "--batch-size", str(BATCH)]) == 0
    out = capsys.readouterr().out
    assert "verdict: overfitting" in out and "plateau" not in out, out
    assert "peaked at 2.38 at pass 3 of 5" in out and "fell 0.16 to 2.22" in out
    assert "no fit: the 2 eval points after the eval peak at 15K samples seen are left out of the fit" in out
    assert cli.main(["curve", str(log), "--batch-size", str(BATCH), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["verdict"] == "overfitting" and got["fit"] is None
    over = got["evidence"]["overfitting"]
    assert over["peak"]["pass"] == 3 and over["peak"]["x"] == 15_000 and over["fall"] == pytest.approx(0.160, abs=1e-3)
    assert over["train_slope_per_doubling_after_peak"] > curves.PLATEAU_GAIN


def test_cli_eval_only_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without train records, a fall over two later passes is still overfitting; without epochs it is not called."""
    rows = ["step,samples_seen,epoch,split,acc_0,acc_1,acc_2"]
    for e, acc in enumerate(WALK_S_EVAL):
        rows.append(f"{(e + 1) * STEPS_PER_EPOCH},{(e + 1) * 5000},{e},eval,{acc[0]},{acc[1]},{acc[2]}")
    log = tmp_path / "eval_only.csv"
    log.write_text("\n".join(rows) + "\n")
    assert cli.main(["curve", str(log)]) == 0
    out = capsys.readouterr().out
    assert "verdict: overfitting" in out and "while train" not in out, out
    assert "no fit: the 2 eval points after the eval peak at 15K samples seen are left out" in out
    log.write_text("\n".join(",".join(r.split(",")[:2] + r.split(",")[3:]) for r in rows) + "\n")  # no epoch
    assert cli.main(["curve", str(log)]) == 0
    assert "verdict: plateau" in capsys.readouterr().out


# ---------------------------------------------------------------- the pages and the plan


def _curve_tab(log: Path) -> tuple[AppTest, str]:
    """Acceptance vs data on its Learning curve tab with ``log`` loaded (``BATCH`` samples a step), and its text,
    after no exception or error."""
    at = page_app("../pages/scaling.py", timeout=120)
    at.session_state["sc_tab"] = "Learning curve"
    at.run()
    at.text_input(key="lc_path").input(str(log))
    at.number_input(key="lc_batch").set_value(BATCH)
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at, page_text(at)


def test_learning_curve_tab_says_overfitting(tmp_path: Path) -> None:
    log = _walk_s_log(tmp_path / "train_speculators.log")
    at, text = _curve_tab(log)
    assert "trending_down: overfitting]** — Overfitting: eval tau_sim peaked at 2.38 at pass 3 of 5" in text, text
    assert "Keep the pass-3 checkpoint (15K samples seen)" in text
    assert "plateau" not in text and "look at capacity" not in text
    spec = json.loads(at.get("vega_lite_chart")[-1].proto.spec)
    assert "area" not in [layer["mark"]["type"] for layer in spec["layer"]]  # no fit through the fall
    assert "no fit drawn: eval peaked at 2.38 and fell 0.16 after it (overfitting)" in " ".join(
        spec["title"]["subtitle"]
    )
    at.run()  # the page's lead reads the log this session loaded
    lead = next(m.value for m in at.markdown if m.value.startswith("**Your training log"))
    assert lead.startswith("**Your training log (Learning curve tab) is overfitting: eval tau_sim peaked"), lead
    assert "more unique data is likely to help" in lead


OWN = "example:own-kimi-k2.5-draft"


def test_overview_weighs_an_overfitting_log(tmp_path: Path) -> None:
    """The data gap stands (for unique data), the note names the peak and the checkpoint, and the plan does not rank
    more data last nor fit a rising curve through the fall."""
    at = page_app("../pages/overview.py", timeout=60)
    at.session_state["_own_curve"] = {OWN: walk_s_curve(tmp_path)}
    at.run()
    assert not at.exception, at.exception
    head = at.subheader[0].value if at.subheader else ""
    assert head.startswith("The largest gap is training data"), head
    assert "Your training log is overfitting: eval acceptance peaked at pass 3 of 5" in head, head
    assert "more unique data is likely to help and more epochs are not; keep the pass-3 checkpoint" in head
    assert "plateaued" not in page_text(at)
    note = next(w.value for w in at.warning if "overfitting" in w.value)
    assert "peaked at 2.38 at pass 3 of 5 (epoch 2 in the log, 15K samples seen) and fell 0.16" in note, note
    lead = next(m.value for m in at.markdown if "First listed" in m.value or "Ranked first" in m.value)
    assert "is overfitting" in lead and "ranked last" not in lead, lead
    at.session_state["ov_plan"] = True
    at.run()
    captions = " ".join(c.value for c in at.caption)
    assert "the 2 points after its eval peak at pass 3 of 5" in captions and "left out of the fit" in captions


def _dense_curve() -> curves.Curve:
    c = curves.analyse(_points(DENSE, per_epoch=2))
    assert c.verdict == "overfitting"
    return c


def test_plan_fits_up_to_the_peak_and_draws_the_fall_apart() -> None:
    store = Store(None)
    store.ensure_examples()
    entry = comparison.load_entry(comparison.EXAMPLE_OWN, with_header=False)
    inputs = plan.inputs_for(
        entry,
        runs=store.runs(group="example-kimi-k2.5"),
        own_samples=5_000.0,
        own_samples_source="example audit",
        curve=_dense_curve(),
        curve_source="train.log",
    )
    peak_x = 15_000.0
    assert max(inputs.curve_x) == peak_x and len(inputs.curve_left_out) == 4 and not inputs.curve_set_aside
    result = plan.build(inputs)
    assert result.fit is not None and result.fit.scope == "curve" and result.fit.x_max == peak_x
    assert "the 4 points after its eval peak at pass 3 of 5" in result.fit_note
    drawn = result.points
    after = drawn[drawn["kind"] == plan.LEFT_OUT]
    assert sorted(after["samples"]) == [17_500.0, 20_000.0, 22_500.0, 25_000.0]
    more = next(o for o in result.options if o.kind == "more-data")
    assert not more.weighed_down
    said = more.note
    assert said.startswith("Your training log (Acceptance vs data) is overfitting: eval tau_sim peaked"), said
    assert "more unique data (this row's new samples) is likely to help" in more.note
    assert "Keep the pass-3 checkpoint (15K samples seen)" in more.note
    # the cost's epochs are the peak checkpoint's: 15,000 samples seen over 5,000 unique
    assert (
        "unique samples at 3 epochs (the passes your log made up to its eval peak: see the cost model's epochs)"
    ) in more.note, more.note


def test_overview_and_acceptance_words_without_a_peak() -> None:
    """A verdict known without its curve (a log that could not be fitted) still says what to do."""
    words: Any = overview.CURVE_NOTES["overfitting"]
    assert "more unique data is likely to help" in words and "plateau" not in words
    name, sentence = overview.largest_gap(
        data_ratio=280.0, size_ratio=1.0, accept_ratio=None, own_volume=5_000, ref_volume=1.4e6,
        curve_verdict="overfitting",
    )  # fmt: skip
    assert name == "training data" and "Your training log is overfitting" in sentence
    assert "contradicted" not in name


# ---------------------------------------------------------------- a fall past noise that is not overfitting
# eval_peak measured these falls past noise, but called none overfitting (train flat after the peak, the fall within
# one pass, no train points and a fall over one pass or passes not logged); analyse then said "Flat: eval tau_sim 2.22
# at 25K samples seen (fit 2.30) ... More of the same data will not move acceptance much", the reason only in evidence

FELL_CASES = [
    # name, eval tau_sim, _points options, why not overfitting (in the sentence), passes after the peak (in the advice)
    (
        "train flat",
        WALK_S_TAU,
        {"train": "flat"},
        "train tau_sim did not rise after the peak (+0.00 per doubling of the samples seen",
        " over 2 more passes of the same samples",
    ),
    ("within one pass", WALK_S_TAU, {"per_epoch": 5}, "the fall came within the pass the peak is in", ""),
    ("no train points, no epochs", WALK_S_TAU, {"train": None, "epochs": False}, "the log numbers no epochs", ""),
    ("no train points, one pass after", PEAK_AT_4, {"train": None}, "this one lasted 1 pass", " over 1 more pass"),
]


@pytest.mark.parametrize(("name", "taus", "opts", "why", "more"), FELL_CASES, ids=[c[0] for c in FELL_CASES])
def test_a_fall_past_noise_is_said_not_called_flat(
    name: str, taus: tuple[float, ...], opts: dict[str, Any], why: str, more: str
) -> None:
    c = curves.analyse(_points(taus, **opts))
    assert c.verdict == "plateau"  # more of the same data did not help: Overview and the plan weigh it as a plateau
    peak = c.peak
    assert peak is not None and peak.why_not, c.evidence.get("not_overfitting")
    said = c.sentence
    assert said.startswith("Peaked, then fell: eval tau_sim peaked at 2.38 at "), said
    assert "and fell 0.16 to 2.22 by " in said, said
    assert f"falls {peak.fall_fit:.2f}, more than its 95% margin of {peak.fall_margin:.2f}" in said
    assert f"Not overfitting: {peak.why_not}." in said and why in peak.why_not, said
    assert (
        f"Keep the {peak.checkpoint()}, where eval peaked: training past it lowered held-out acceptance{more}" in said
    )
    assert "Flat" not in said and "will not move acceptance much" not in said and "kept rising" not in said
    # a saturating fit through the fall would hide it: drawn where fitted, not extrapolated, and it predicts nothing
    assert c.evidence["fit_used"] is False
    assert any("eval fell past noise after its peak" in w for w in c.evidence["fit_not_used_because"])
    assert all(b["x"] <= peak.last_x * (1 + 1e-9) for b in c.band)
    assert c.evidence["eval_fall"]["fall"] == pytest.approx(peak.fall)
    assert c.evidence["eval_fall"]["not_overfitting"] == peak.why_not
    # a fall within noise keeps the flat sentence
    quiet = curves.analyse(_points(SMALL_DIP))
    assert quiet.peak is None and quiet.sentence.startswith("Flat: eval tau_sim 2.35 at "), quiet.sentence


def test_the_checkpoint_of_a_peak_inside_its_pass_is_named_by_step() -> None:
    """All five eval points in one pass: "the pass-1 checkpoint" would be its end, after the fall."""
    c = curves.analyse(_points(WALK_S_TAU, per_epoch=5))
    assert c.peak is not None and c.peak.step == 300
    assert "Keep the checkpoint at step 300 (3K samples seen), where eval peaked" in c.sentence, c.sentence


def _fell() -> curves.Curve:
    c = curves.analyse(_points(WALK_S_TAU, train="flat"))
    assert c.verdict == "plateau" and c.peak is not None
    return c


def test_overview_and_the_plan_say_the_fall_not_a_plateau() -> None:
    c = _fell()
    name, lead = overview.largest_gap(
        data_ratio=280.0, size_ratio=1.0, accept_ratio=None, own_volume=5_000, ref_volume=1.4e6,
        curve_verdict="plateau", curve_peak=c.peak,
    )  # fmt: skip
    assert name == "training data (contradicted by your training log)"
    assert lead.startswith("Your training log stopped rising: eval acceptance peaked at pass 3 of 5"), lead
    assert "fell 0.16 after it, past noise (not overfitting), so more of the same data is unlikely" in lead
    assert "plateaued" not in lead
    store = Store(None)
    store.ensure_examples()
    entry = comparison.load_entry(comparison.EXAMPLE_OWN, with_header=False)
    inputs = plan.inputs_for(
        entry,
        runs=store.runs(group="example-kimi-k2.5"),
        own_samples=5_000.0,
        own_samples_source="example audit",
        curve=c,
        curve_source="train.log",
    )
    assert inputs.curve_set_aside and not inputs.curve_left_out  # its fit is set aside, as on Acceptance vs data
    more = next(o for o in plan.build(inputs).options if o.kind == "more-data")
    assert more.weighed_down
    assert more.note.startswith(
        "Your training log (Acceptance vs data) stopped rising on this data: eval acceptance peaked at pass 3 of 5"
    ), more.note
    assert "past noise; not overfitting, as train tau_sim did not rise after the peak" in more.note, more.note
    assert "Keep the pass-3 checkpoint (15K samples seen)" in more.note and "plateaued" not in more.note


def test_overview_notes_the_fall(tmp_path: Path) -> None:
    at = page_app("../pages/overview.py", timeout=60)
    at.session_state["_own_curve"] = {
        OWN: curves.curve([_walk_s_log(tmp_path / "flat.log", train="flat")], batch_size=BATCH)
    }
    at.run()
    assert not at.exception, at.exception
    assert "plateaued" not in page_text(at)
    note = next(w.value for w in at.warning if "Your training log (Acceptance vs data)" in w.value)
    assert note.startswith(
        "Your training log (Acceptance vs data) stopped rising: eval acceptance peaked at pass 3"
    ), note
    assert "keep the pass-3 checkpoint (15K samples seen)" in note, note


# ---------------------------------------------------------------- live acceptance beside the log's checkpoint

LIVE_CASES = [
    # name, curve, the point simulated for tau_sim_peak (None: no peak), words naming it
    ("overfitting", lambda: curves.analyse(_points(WALK_S_TAU)), 2, "step 1500, pass 3 of 5"),
    ("fell, train flat", _fell, 2, "step 1500, pass 3 of 5"),
    ("rising", lambda: curves.analyse(_points(RISING)), None, "step 2500, epoch 4 in the log"),
]


@pytest.mark.parametrize(("name", "build", "peak_i", "named"), LIVE_CASES, ids=[c[0] for c in LIVE_CASES])
def test_live_acceptance_is_simulated_at_the_peak_checkpoint(
    name: str, build: Any, peak_i: int | None, named: str
) -> None:
    """The table beside live runs simulated the last eval point only: past a fall that is not the checkpoint a user
    serves, and nothing said which point it was."""
    c = build()
    store = Store(None)
    store.ensure_examples()
    frame = curves.live_frame(store.runs(group="example-kimi-k2.5"), c)  # one live run, at 2 steps
    assert len(frame) == 1 and frame["num_steps"].iloc[0] == 2
    evals = [p for p in c.points if p.split == "eval"]
    assert frame["tau_sim_last"].iloc[0] == pytest.approx(curves.tau_sim(evals[-1].acc, 2))
    words = curves.live_words(c)
    if peak_i is None:
        assert frame["tau_sim_peak"].isna().all()
        assert words.startswith(f"tau_sim_last: the log's last eval point ({named}, 25K samples seen)"), words
        return
    assert frame["tau_sim_peak"].iloc[0] == pytest.approx(curves.tau_sim(evals[peak_i].acc, 2))
    assert words.startswith(f"tau_sim_peak: the log's eval peak ({named} (epoch 2 in the log, 15K samples seen))"), (
        words
    )
    assert "the checkpoint to serve" in words and "tau_sim_last: its last eval point (step 2500, pass 5 of 5" in words


def test_learning_curve_tab_names_the_fall_and_the_peak_checkpoint(tmp_path: Path) -> None:
    log = _walk_s_log(tmp_path / "train_speculators.log", train="flat")
    at, text = _curve_tab(log)
    assert (
        "trending_down: plateau, eval fell after its peak]** — Peaked, then fell: eval tau_sim peaked at 2.38" in text
    )
    assert "Flat:" not in text and "has plateaued" not in text
    live = next(d.value for d in at.dataframe if "tau_sim_peak" in d.value.columns)
    assert live["tau_sim_peak"].iloc[0] == pytest.approx(curves.tau_sim(WALK_S_EVAL[2], 2))  # the run's 2 steps
    assert "tau_sim_peak: the log's eval peak (step 1500, pass 3 of 5" in text
    at.run()  # the page's lead reads the log this session loaded
    lead = next(m.value for m in at.markdown if m.value.startswith("**Your training log"))
    assert lead.startswith("**Your training log (Learning curve tab) stopped rising: eval acceptance peaked"), lead


def test_lead_names_the_more_data_row_when_another_option_leads() -> None:
    """Walk AC C8: the lead appended the log's "more unique data (this row's new samples)" to "Ranked first: Serve
    the measured tree", where "this row" was the tree."""
    store = Store(None)
    store.ensure_examples()
    entry = comparison.load_entry(comparison.EXAMPLE_OWN, with_header=False)
    inputs = plan.inputs_for(
        entry,
        runs=store.runs(group="example-kimi-k2.5"),
        own_samples=5_000.0,
        own_samples_source="example audit",
        curve=_dense_curve(),
        curve_source="train.log",
    )
    result = plan.build(inputs)
    other = next(o for o in result.options if o.kind != "more-data")
    result.options = [other] + [o for o in result.options if o is not other]
    text = plan.lead(result) or ""
    assert "is overfitting" in text, text
    assert "this row's" not in text, text
    assert 'more unique data (the new samples of the row "More training data") is likely to help' in text, text
    more = next(o for o in result.options if o.kind == "more-data")
    result.options = [more] + [o for o in result.options if o is not more]
    assert "this row's" not in (plan.lead(result) or "").split(more.note, 1)[1]
