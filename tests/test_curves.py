"""Learning curves from training logs: tau_sim, every log format (files written here), fit, verdict, CLI."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from comparelib import cli
from comparelib.analysis import curves, traininglogs
from comparelib.analysis.curves import CurvePoint
from comparelib.analysis.traininglogs import LogRecord, ReadStats
from comparelib.errors import DataError, InputError
from tests.fixtures import stored_run

# ---------------------------------------------------------------- tau_sim


@pytest.mark.parametrize(
    ("acc", "steps", "expected"),
    [
        ([], None, 1.0),
        ([0.5], None, 1.5),
        ([0.5, 0.5], None, 1.75),
        ([1.0, 1.0, 1.0], None, 4.0),
        ([0.8, 0.5, 0.25], None, 1 + 0.8 + 0.4 + 0.1),
        ([0.0, 0.9, 0.9], None, 1.0),
        ([0.5, 0.5, 0.5], 1, 1.5),
        ([0.5, 0.5, 0.5], 2, 1.75),
        ([0.5, 0.5], 5, 1.75),
    ],
)
def test_tau_sim(acc: list[float], steps: int | None, expected: float) -> None:
    assert curves.tau_sim(acc, steps) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("acc", "steps"), [([1.2], None), ([-0.1], None), ([float("nan")], None), ([0.5], 0)])
def test_tau_sim_refuses(acc: list[float], steps: int | None) -> None:
    with pytest.raises(InputError):
        curves.tau_sim(acc, steps)


@pytest.mark.parametrize(
    ("acc", "full", "expected"),
    [
        ({0: 0.8, 1: 0.5, 2: 0.25}, {}, (0.8, 0.5, 0.25)),
        ({0: 0.8, 2: 0.25}, {}, (0.8,)),  # stops at the first missing position
        ({}, {0: 0.8, 1: 0.4, 2: 0.1}, (0.8, 0.5, 0.25)),  # speculators' full_acc is cumulative
        ({}, {0: 0.0, 1: 0.0}, (0.0, 0.0)),
        ({0: 0.5}, {0: 0.9}, (0.5,)),  # cond wins over full
    ],
)
def test_chain_acc(acc: dict, full: dict, expected: tuple) -> None:
    got = curves.chain_acc(LogRecord(step=1, split="train", acc=acc, full=full))
    assert got == pytest.approx(expected)


# ---------------------------------------------------------------- readers, one case per format

SF_TRAIN = (
    "step 100: {'acc_0': 0.8, 'acc_1': 0.5, 'ploss_0': 1.2, 'ploss_1': 1.9, 'acc': 0.65, 'loss': 2.72, 'lr': 0.0001}"
)
SF_TRACKED = (
    "step 150: {'train/acc_0': 0.5, 'train/acc_1': 0.5, 'train/ploss_0': 1.0, 'train/loss': 1.0, "
    "'perf/optimizer_step_time_s': 1.5}"
)
SF_EVAL = (
    "step 200: {'eval/avg_loss': 1.0, 'eval/avg_acc': 0.5, 'eval/per_position_acc': [0.5, 0.5, 0.5], "
    "'eval/simulated_acc_len': 0.875}"
)
SF_EVAL_EXPANDED = "[rank0]: step 300: {'eval/per_position_acc/0': 0.5, 'eval/per_position_acc/1': 0.25}"
SPEC_TRAIN = (
    "[12:00:00] INFO     train/loss_0=1.234, train/full_acc_0=0.800, train/cond_acc_0=0.800, "
    "train/full_acc_1=0.400, train/cond_acc_1=0.500, train/loss=2.000, profile/step_time=0.500, epoch=0, "
    "lr=1.00e-04, global_step=10     trainer.py:587"
)
SPEC_WRAPPED = (
    "[12:00:01] INFO     train/loss_0=1.234, train/full_acc_0=0.800,\n"
    "                    train/cond_acc_0=0.500, train/full_acc_1=0.400,\n"
    "                    train/cond_acc_1=0.500, epoch=0, lr=1.00e-04, global_step=20\n"
)
SPEC_COLOURED = (  # captured from a terminal: Rich's highlighter colours the numbers
    "\x1b[2;36m[12:00:02]\x1b[0m\x1b[2;36m \x1b[0m\x1b[34mINFO    \x1b[0m train/cond_acc_0=\x1b[1;36m0.500\x1b[0m, "
    "train/cond_acc_1=\x1b[1;36m0.500\x1b[0m, epoch=\x1b[1;36m0\x1b[0m, global_step=\x1b[1;36m30\x1b[0m"
)
SPEC_VAL = "[12:05:00] INFO     val/loss_epoch=1.000, val/cond_acc_0_epoch=0.500, val/cond_acc_1_epoch=0.500, epoch=0"
SPEC_FULL_ONLY = "train/full_acc_0=0.800, train/full_acc_1=0.400, train/full_acc_2=0.100, epoch=1, global_step=5"
EAGLE_LINES = [
    "Now training epoch 0",
    "Train Epoch [1/40], position 0,  Acc: 0.80",
    "Train Epoch [1/40], position 1,  Acc: 0.50",
    "Train Epoch [1/40], position 0, pLoss: 1.23",
    "Train Epoch [1/40], position 1, pLoss: 2.34",
    "Test Epoch [1/40], position 0,  Acc: 0.50",
    "Test Epoch [1/40], position 1,  Acc: 0.50",
    "Train Epoch [2/40], position 0,  Acc: 0.90",
    "Train Epoch [2/40], position 1,  Acc: 0.50",
]
EAGLE = "\n".join(EAGLE_LINES)
CSV_SPLIT = "step,samples_seen,split,acc_0,acc_1\n10,160,train,0.5,0.5\n10,160,eval,0.25,1.0\n20,320,val,1.0,1.0\n"
CSV_PLAIN = "epoch,step,acc_0,acc_1,acc_2\n0,50,0.5,0.5,0.5\n0,100,0.8,0.5,0.25\n"
# a wandb export of the EAGLE trainer's per-step keys (eagle/traineagle3/main.py logs train/acc_i to wandb)
CSV_WANDB = (
    "Step,train/lr,train/ploss_0,train/acc_0,train/acc_1,test/epochacc_0,test/epochacc_1\n"
    "100,0.0001,1.2,0.8,0.5,,\n"
    "200,0.0001,1.1,0.5,0.5,0.25,1.0\n"
)
CSV_PREFIXED = "step,train/cond_acc_0,train/cond_acc_1,val/full_acc_0_epoch,val/full_acc_1_epoch\n7,0.5,0.25,0.8,0.4\n"

# (file name, text, format, extra options, expected [(split, step, samples_seen, tau_sim)])
CASES = [
    ("sf.log", SF_TRAIN, "specforge", {}, [("train", 100, None, 2.2)]),
    ("sf.log", SF_TRACKED, "specforge", {"batch_size": 16}, [("train", 150, 2400.0, 1.75)]),
    ("sf.log", SF_EVAL, "specforge", {}, [("eval", 200, None, 1.875)]),
    ("sf.log", SF_EVAL_EXPANDED, "specforge", {}, [("eval", 300, None, 1.625)]),
    ("spec.log", SPEC_TRAIN, "speculators", {}, [("train", 10, None, 2.2)]),
    ("spec.log", SPEC_WRAPPED, "speculators", {}, [("train", 20, None, 1.75)]),
    (
        "spec.log",
        SPEC_TRAIN + "\n" + SPEC_VAL,
        "speculators",
        {},
        [("train", 10, None, 2.2), ("eval", 10, None, 1.75)],
    ),
    ("spec.log", SPEC_FULL_ONLY, "speculators", {}, [("train", 5, None, 2.3)]),
    ("spec.log", SPEC_COLOURED, "speculators", {}, [("train", 30, None, 1.75)]),
    (
        "eagle.log",
        EAGLE,
        "eagle",
        {"epoch_samples": 1000},
        [("train", 1, 1000.0, 2.2), ("train", 2, 2000.0, 1 + 0.9 + 0.45), ("eval", 1, 1000.0, 1.75)],
    ),
    ("m.csv", CSV_SPLIT, "csv", {}, [("train", 10, 160.0, 1.75), ("eval", 10, 160.0, 1.5), ("eval", 20, 320.0, 3.0)]),
    ("m.csv", CSV_PLAIN, "csv", {"batch_size": 4}, [("train", 50, 200.0, 1.875), ("train", 100, 400.0, 2.3)]),
    ("w.csv", CSV_WANDB, "csv", {}, [("train", 100, None, 2.2), ("train", 200, None, 1.75), ("eval", 200, None, 1.5)]),
    ("p.csv", CSV_PREFIXED, "csv", {}, [("train", 7, None, 1.625), ("eval", 7, None, 2.2)]),
]


def _rows(points: list[CurvePoint]) -> list[tuple]:
    return sorted((p.split, p.step, p.samples_seen, pytest.approx(p.tau_sim, abs=1e-9)) for p in points)


@pytest.mark.parametrize(("name", "text", "fmt", "opts", "expected"), CASES)
def test_text_formats(tmp_path: Path, name: str, text: str, fmt: str, opts: dict, expected: list) -> None:
    path = tmp_path / name
    preamble = "" if fmt == "csv" else "some unrelated start-up line\n"
    path.write_text(preamble + text + "\n")
    stats = ReadStats()
    points, _ = curves.collect(traininglogs.read([path], "auto", stats), **opts)
    assert stats.format == fmt
    got = sorted((p.split, p.step, p.samples_seen, p.tau_sim) for p in points)
    want = sorted(expected)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=False):
        assert g[:3] == w[:3]
        assert g[3] == pytest.approx(w[3], abs=1e-9)


def test_csv_val_is_eval_and_specforge_simulated_len_is_tau_minus_one(tmp_path: Path) -> None:
    (tmp_path / "sf.log").write_text(SF_EVAL + "\n")
    points, _ = curves.collect(traininglogs.read([tmp_path / "sf.log"]))
    # SpecForge's own eval/simulated_acc_len (0.875 in that line) omits the bonus token
    assert points[0].tau_sim == pytest.approx(0.875 + 1)


def test_tensorboard_specforge_and_speculators_tags(tmp_path: Path) -> None:
    from torch.utils.tensorboard import SummaryWriter

    run = tmp_path / "out" / "runs"
    w = SummaryWriter(log_dir=str(run))  # what specforge/tracker.py::TensorboardTracker does
    for step in (50, 100):
        w.add_scalar("train/acc_0", 0.5, global_step=step)
        w.add_scalar("train/acc_1", 0.5, global_step=step)
        w.add_scalar("train/ploss_0", 1.25, global_step=step)
        w.add_scalar("train/loss", 2.0, global_step=step)
    w.add_scalar("eval/avg_acc", 0.75, global_step=100)
    w.add_scalar("eval/per_position_acc/0", 0.75, global_step=100)
    w.add_scalar("eval/per_position_acc/1", 0.5, global_step=100)
    w.add_scalar("eval/simulated_acc_len", 1.125, global_step=100)
    w.close()
    other = tmp_path / "spec"
    w = SummaryWriter(log_dir=str(other))  # speculators/train/logger.py::TensorBoardHandler flattened keys
    w.add_scalar("train/full_acc_0", 0.5, global_step=7)
    w.add_scalar("train/cond_acc_0", 0.5, global_step=7)
    w.add_scalar("train/full_acc_1", 0.125, global_step=7)
    w.add_scalar("train/cond_acc_1", 0.25, global_step=7)
    w.add_scalar("val/cond_acc_0_epoch", 1.0, global_step=9)
    w.add_scalar("val/cond_acc_1_epoch", 0.5, global_step=9)
    w.close()

    stats = ReadStats()
    points, _ = curves.collect(traininglogs.read([tmp_path / "out"], "auto", stats), batch_size=8)
    assert stats.format == "tensorboard" and stats.files == 1
    assert _rows(points) == [
        ("eval", 100, 800.0, 1 + 0.75 + 0.375),
        ("train", 50, 400.0, 1.75),
        ("train", 100, 800.0, 1.75),
    ]
    file = next(other.glob("*tfevents*"))
    points, _ = curves.collect(traininglogs.read([file]))
    assert _rows(points) == [("eval", 9, None, 2.5), ("train", 7, None, 1.625)]


# ---------------------------------------------------------------- bounded reading, errors, thinning


def test_huge_line_is_skipped_not_buffered(tmp_path: Path) -> None:
    path = tmp_path / "sf.log"
    with open(path, "w") as fh:
        fh.write(SF_TRAIN + "\n")
        fh.write("x" * (traininglogs.MAX_LINE_BYTES * 4 + 17) + "\n")  # one line of ~1 MB
        fh.write("y" * (traininglogs.MAX_LINE_BYTES * 2))  # and a final one without a newline
    stats = ReadStats()
    lines = list(traininglogs.bounded_lines(path, stats))
    assert lines == [SF_TRAIN + "\n"]
    assert stats.long_lines == 2
    assert max(len(x) for x in lines) < traininglogs.MAX_LINE_BYTES


def test_bounded_lines_small_cap(tmp_path: Path) -> None:
    path = tmp_path / "a.log"
    path.write_bytes(b"short\n" + b"z" * 100 + b"\nafter\n")
    stats = ReadStats()
    assert list(traininglogs.bounded_lines(path, stats, max_line=16)) == ["short\n", "after\n"]
    assert (stats.lines, stats.long_lines) == (3, 1)


@pytest.mark.parametrize(
    ("content", "name", "fmt", "message"),
    [
        ("hello\nworld\n", "x.log", "auto", "no training metrics recognised"),
        ("a,b\n1,2\n", "x.csv", "auto", "needs a 'step' column"),
        ("step,loss\n1,2\n", "x.csv", "auto", "acc_0..acc_K"),
        ("", "x.csv", "auto", "empty CSV"),
        ("not an event file at all", "events.out.tfevents.1.host", "auto", "not a readable TensorBoard event file"),
        ("step,acc_0\n1,2.5\n", "x.csv", "auto", "no per-position accuracies"),
    ],
)
def test_bad_files(tmp_path: Path, content: str, name: str, fmt: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(DataError, match=message):
        curves.curve([path], fmt=fmt)


@pytest.mark.parametrize("claimed", [1 << 62, 1 << 40, 10_000])
def test_event_record_claiming_a_huge_length_is_refused(tmp_path: Path, claimed: int) -> None:
    """A record header with a valid CRC but a length far past the file: an error, not an allocation."""
    import struct

    from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import masked_crc32c

    header = struct.pack("<Q", claimed)
    path = tmp_path / "events.out.tfevents.1.evil"
    path.write_bytes(header + struct.pack("<I", masked_crc32c(header)) + b"x" * 100)
    with pytest.raises(DataError, match="not a readable TensorBoard event file"):
        curves.curve([path])


def test_missing_path_and_bad_options(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        curves.curve([tmp_path / "nope.log"])
    (tmp_path / "a.csv").write_text(CSV_PLAIN)
    with pytest.raises(InputError, match="--batch-size"):
        curves.curve([tmp_path / "a.csv"], batch_size=-1)
    with pytest.raises(InputError, match="--steps"):
        curves.curve([tmp_path / "a.csv"], steps=0)
    with pytest.raises(InputError, match="unknown log format"):
        curves.curve([tmp_path / "a.csv"], fmt="wandb")


def test_thinning_keeps_memory_bounded_and_spread() -> None:
    recs = (LogRecord(step=s, split="train", acc={0: 0.5}) for s in range(1, 10_001))
    points, info = curves.collect(recs, max_points=100)
    assert 50 <= len(points) <= 100
    steps = [p.step for p in points]
    assert steps[0] == 1 and steps[-1] > 9_000  # covers the whole run, not just its start
    assert info["thinned"]["train"]["logged"] == 10_000
    assert info["thinned"]["train"]["every"] >= 100


def test_duplicate_steps_keep_the_last() -> None:
    recs = [LogRecord(step=5, split="train", acc={0: 0.5}), LogRecord(step=5, split="train", acc={0: 0.25})]
    points, _ = curves.collect(recs)
    assert [(p.step, p.tau_sim) for p in points] == [(5, 1.25)]


def test_out_of_range_accuracies_are_dropped() -> None:
    recs = [LogRecord(step=1, split="train", acc={0: 1.5}), LogRecord(step=2, split="train", acc={0: 0.5})]
    points, info = curves.collect(recs)
    assert [p.step for p in points] == [2] and info["invalid_points"] == 1


# ---------------------------------------------------------------- fit and verdict


def _points(xs: np.ndarray, ys: np.ndarray, split: str = "eval") -> list[CurvePoint]:
    return [
        CurvePoint(step=i + 1, samples_seen=float(x), split=split, acc=(0.9,) * 6, tau_sim=float(y))
        for i, (x, y) in enumerate(zip(xs, ys, strict=False))
    ]


def test_fit_recovers_a_noiseless_power_law() -> None:
    xs = np.geomspace(1e3, 1e5, 12)
    ys = 4.0 - 2.0 * (xs / 1e5) ** -0.3
    f = curves.fit_curve(xs, ys, x_unit="samples", split="eval", tau_max=7.0)
    assert f.b == pytest.approx(0.3, abs=0.01)
    assert f.tau_inf == pytest.approx(4.0, abs=0.05)
    assert f.r2 > 0.999
    mean, lo, hi = f.predict(2e5)
    assert mean == pytest.approx(4.0 - 2.0 * 2**-0.3, abs=0.02)
    assert lo <= mean <= hi


VERDICTS = [
    # name, xs, ys(x), verdict
    ("rising", np.geomspace(1e3, 1e5, 12), lambda x: 4.0 - 2.0 * (x / 1e5) ** -0.3, "rising"),
    ("log-like rising", np.geomspace(1e3, 2e5, 10), lambda x: 1.5 + 0.25 * np.log10(x), "rising"),
    ("plateau", np.geomspace(1e3, 1e5, 12), lambda x: 3.0 - 1.0 * (x / 1e2) ** -1.5, "plateau"),
    ("flat", np.geomspace(1e3, 1e5, 12), lambda x: 2.4 + 0.0 * x, "plateau"),
    ("falling", np.geomspace(1e3, 1e5, 12), lambda x: 3.0 - 0.1 * np.log10(x), "plateau"),
    ("three points", np.array([1e3, 1e4, 1e5]), lambda x: 2 + 0 * x, "too-few-points"),
    ("narrow span", np.linspace(1e4, 1.5e4, 8), lambda x: 2 + x / 1e5, "too-few-points"),
]


@pytest.mark.parametrize(("name", "xs", "fn", "verdict"), VERDICTS, ids=[v[0] for v in VERDICTS])
def test_verdicts(name: str, xs: np.ndarray, fn, verdict: str) -> None:  # type: ignore[no-untyped-def]
    c = curves.analyse(_points(xs, fn(xs)))
    assert c.verdict == verdict, c.sentence
    if verdict == "rising" and c.evidence["fit_used"]:
        assert c.evidence["gain_at_2x"]["mean"] >= curves.PLATEAU_GAIN
        assert c.evidence["gain_at_10x"]["mean"] > c.evidence["gain_at_2x"]["mean"]
        assert "at 2x" in c.sentence and "at 10x" in c.sentence and "samples" in c.sentence
        assert c.band and all(b["low"] <= b["mean"] <= b["high"] for b in c.band)
    elif verdict == "rising":
        # a log-like curve fits with a ceiling past K + 1: rising by its measured slope, nothing extrapolated
        assert c.evidence["slope_per_doubling_last"]["slope"] >= curves.PLATEAU_GAIN
        assert "at 2x" not in c.sentence and "is not predicted" in c.sentence and "ceiling" in c.sentence
        assert c.band and max(b["x"] for b in c.band) == pytest.approx(max(xs))
    elif verdict == "plateau":
        assert c.evidence["gain_at_2x"]["mean"] < curves.PLATEAU_GAIN
        assert "capacity" in c.sentence
    else:
        assert c.fit is None and "Too few points" in c.sentence


SEEN_CASES = [
    # name, xs, ys(x), samples seen on the x axis (False: steps), how the x value is stated in the sentence
    ("rising", np.geomspace(1e3, 1e5, 12), lambda x: 4.0 - 2.0 * (x / 1e5) ** -0.3, True, "at 100K samples seen"),
    ("plateau", np.geomspace(1e3, 1e5, 12), lambda x: 3.0 - 1.0 * (x / 1e2) ** -1.5, True, "at 100K samples seen"),
    ("flat", np.geomspace(1e3, 1e5, 12), lambda x: 2.4 + 0.0 * x, True, "at 10x the samples seen"),
    ("three points", np.array([1e3, 1e4, 1e5]), lambda x: 2 + 0 * x, True, "3 distinct samples seen values"),
    ("steps", np.geomspace(10, 1000, 12), lambda x: 4.0 - 2.0 * (x / 1e3) ** -0.3, False, "at 1K steps"),
]


@pytest.mark.parametrize(("name", "xs", "fn", "seen", "stated"), SEEN_CASES, ids=[c[0] for c in SEEN_CASES])
def test_the_verdict_says_samples_seen(name: str, xs: np.ndarray, fn, seen: bool, stated: str) -> None:  # type: ignore[no-untyped-def]
    """Walk Q: 10 epochs over 5,000 unique samples read "50K samples", as if 50K unique; the log's x is samples
    seen (epochs x unique samples), and every x value the verdict states says so."""
    points = _points(xs, fn(xs), split="train")
    if not seen:
        points = [replace(p, step=int(round(x)), samples_seen=None) for p, x in zip(points, xs, strict=True)]
    c = curves.analyse(points)
    assert stated in c.sentence, c.sentence
    assert (" samples " not in c.sentence.replace("samples seen", "")) and (("seen" in c.sentence) == seen)
    assert c.evidence["x"] == ("samples" if seen else "steps")  # the axis key the chart reads stays as it was


def test_noisy_rising_curve_and_eval_preferred() -> None:
    rng = np.random.default_rng(0)
    xs = np.geomspace(2e3, 2e5, 40)
    train = _points(xs, 4.0 - 2.0 * (xs / 2e5) ** -0.3 + rng.normal(0, 0.03, xs.size), split="train")
    ex = np.geomspace(2e3, 2e5, 6)
    ev = _points(ex, 3.6 - 1.5 * (ex / 2e5) ** -0.4)
    c = curves.analyse(train + ev)
    assert c.evidence["split"] == "eval" and c.verdict == "rising"
    c_train = curves.analyse(train + ev, split="train")
    assert c_train.evidence["split"] == "train" and c_train.verdict == "rising"
    assert c_train.evidence["slope_per_doubling_last"]["slope"] > 0


def test_axis_falls_back_to_steps_and_epochs(tmp_path: Path) -> None:
    path = tmp_path / "sf.log"
    lines = [f"step {s}: {{'acc_0': {0.5 + 0.04 * math.log(s):.4f}, 'acc_1': 0.5}}" for s in range(10, 200, 10)]
    path.write_text("\n".join(lines) + "\n")
    c = curves.curve([path])
    assert c.evidence["x"] == "steps" and "--batch-size" in c.evidence["note"]
    c = curves.curve([path], batch_size=32)
    assert c.evidence["x"] == "samples" and c.points[0].samples_seen == 320.0
    eagle = tmp_path / "eagle.log"
    eagle.write_text(
        "\n".join(f"Test Epoch [{e}/40], position 0,  Acc: {0.5 + 0.05 * math.log(e):.2f}" for e in range(1, 9)) + "\n"
    )
    c = curves.curve([eagle])
    assert c.evidence["x"] == "epochs" and c.evidence["split"] == "eval"


def test_steps_option_truncates_positions(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text(CSV_PLAIN)
    c = curves.curve([tmp_path / "a.csv"], steps=1)
    assert [p.tau_sim for p in c.points] == [1.5, 1.8]
    assert all(len(p.acc) == 1 for p in c.points)


# ---------------------------------------------------------------- CLI


def _rising_csv(path: Path, with_eval: bool = True) -> Path:
    rows = ["step,samples_seen,split,acc_0,acc_1,acc_2"]
    for i, n in enumerate(np.geomspace(1e3, 1e5, 10)):
        a = 0.9 - 0.4 * (n / 1e3) ** -0.5
        rows.append(f"{(i + 1) * 10},{n:.0f},train,{a:.6f},{a:.6f},{a:.6f}")
        if with_eval:
            rows.append(f"{(i + 1) * 10},{n:.0f},eval,{a - 0.02:.6f},{a - 0.02:.6f},{a - 0.02:.6f}")
    path.write_text("\n".join(rows) + "\n")
    return path


def test_cli_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _rising_csv(tmp_path / "m.csv")
    assert cli.main(["curve", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) >= {"points", "fit", "verdict", "sentence"}
    assert out["verdict"] in curves.VERDICTS and out["verdict"] == "rising"
    assert len(out["points"]) == 20
    p0 = out["points"][0]
    assert set(p0) == {"step", "samples_seen", "split", "acc", "tau_sim"}
    a = p0["acc"][0]
    assert p0["tau_sim"] == pytest.approx(1 + a + a * a + a**3)
    assert {"tau_inf", "a", "b"} <= set(out["fit"]["parameters"]) and len(out["fit"]["band"]) > 10
    assert out["fit"]["parameters"]["split"] == "eval"


def test_cli_text_and_batch_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "sf.log"
    path.write_text(SF_TRAIN + "\n" + SF_TRACKED + "\n")
    assert cli.main(["curve", str(path), "--batch-size", "64", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [p["samples_seen"] for p in out["points"]] == [6400.0, 9600.0]
    assert out["verdict"] == "too-few-points" and out["fit"] is None
    assert cli.main(["curve", str(path)]) == 0
    text = capsys.readouterr().out
    assert "verdict: too-few-points" in text and "specforge" in text


def _seven_positions_csv(path: Path) -> Path:
    """A SpecForge-style CSV: ten points, seven positions each, as SpecForge logs them."""
    rows = ["step,samples_seen," + ",".join(f"acc_{i}" for i in range(7))]
    for s in range(1, 11):
        rows.append(f"{s * 100},{s * 3200}," + ",".join(f"{(0.6 + 0.02 * s) * 0.9**i:.4f}" for i in range(7)))
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize(
    ("steps", "said"),
    [
        # walk: the CLI read 7 positions where the page, at its setting's num_steps, read 3, and neither said so
        (None, "tau_sim over 7 positions (num_steps 7: all the log gave); --steps N uses the first N"),
        (3, "tau_sim over 3 positions (num_steps 3; the log gave 7)"),
        (9, "tau_sim over 7 positions (num_steps 7: all the log gave; 9 asked)"),
    ],
)
def test_cli_curve_states_the_positions_it_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], steps: int | None, said: str
) -> None:
    log = _seven_positions_csv(tmp_path / "specforge.csv")
    extra = ["--steps", str(steps)] if steps else []
    assert cli.main(["curve", str(log), *extra]) == 0
    out = capsys.readouterr().out
    assert said in out, out
    assert cli.main(["curve", str(log), *extra, "--json"]) == 0
    ev = json.loads(capsys.readouterr().out)["evidence"]
    assert ev["positions_logged"] == 7 and ev["positions"] == min(steps or 7, 7)


@pytest.mark.parametrize(
    "args",
    [
        ["curve", "{tmp}/missing.log"],
        ["curve", "{tmp}/junk.log"],
        ["curve", "{tmp}/junk.log", "--batch-size", "-3"],
        ["curve", "{tmp}"],  # a directory without event files
    ],
)
def test_cli_bad_input_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list) -> None:
    (tmp_path / "junk.log").write_text("nothing to see\n")
    argv = [a.format(tmp=tmp_path) for a in args]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert "Traceback" not in err


@pytest.mark.parametrize("fmt", ["specforge", "speculators"])
def test_skipping_lines_before_parsing_keeps_the_same_points(tmp_path: Path, fmt: str) -> None:
    """The readers' sampler fast path drops exactly the lines collect() would thin away, no more, no less."""
    path = tmp_path / f"{fmt}.log"
    lines = []
    for s in range(1, 3001):
        a = round(0.5 + 0.3 * (1 - 1 / s), 4)
        if fmt == "specforge":
            lines.append(f"step {s}: {{'acc_0': {a}, 'acc_1': 0.5, 'loss': 1.0}}")
            if s % 100 == 0:
                lines.append(f"step {s}: {{'eval/per_position_acc': [{a}, 0.25]}}")
        else:
            lines.append(f"INFO train/full_acc_0={a}, train/cond_acc_0={a}, train/cond_acc_1=0.500, global_step={s}")
            if s % 100 == 0:
                lines.append(f"INFO val/cond_acc_0_epoch={a}, val/cond_acc_1_epoch=0.250, epoch={s // 100}")
    path.write_text("\n".join(lines) + "\n")
    kept = curves.thinners(64)
    fast, fast_info = curves.collect(traininglogs.read([path], sampler=lambda split: kept[split].offer()), kept=kept)
    slow, slow_info = curves.collect(traininglogs.read([path]), max_points=64)
    assert fast == slow
    assert fast_info == slow_info
    assert slow_info["thinned"]["train"]["every"] > 1 and len(slow) < 3000


# ---------------------------------------------------------------- a saturated curve is not "still rising"

_SAT_ACC = (0.82, 0.74, 0.70, 0.67, 0.65)


def _speculators_log(path: Path, grow, steps: int = 30000, every: int = 500, batch: int = 16) -> Path:  # type: ignore[no-untyped-def]
    """A speculators log as Rich wraps it: cond_acc_i = c_i * grow(samples seen)."""
    lines = []
    for s in range(every, steps + 1, every):
        a = [c * grow(s * batch) for c in _SAT_ACC]
        full = [math.prod(a[: k + 1]) for k in range(len(a))]
        fields = (
            [f"train/loss_{k}={2 - v:.3f}" for k, v in enumerate(a)]
            + [f"train/cond_acc_{k}={v:.3f}" for k, v in enumerate(a)]
            + [f"train/full_acc_{k}={v:.3f}" for k, v in enumerate(full)]
            + ["profile/step_time=0.412", "epoch=0", "lr=1.00e-04", f"global_step={s}"]
        )
        rows = [", ".join(fields[i : i + 6]) + ("," if i + 6 < len(fields) else "") for i in range(0, len(fields), 6)]
        lines.append(f"[12/04/25 10:00:00] INFO     {rows[0]}    logger.py:270")
        lines += [" " * 29 + r for r in rows[1:]]
    path.write_text("\n".join(lines) + "\n")
    return path


SATURATING = [
    # name, acc factor of samples seen, verdict, the fit's problems (substrings), how the sentence starts
    # the walk's log: 3.227 at 240K, 3.311 at 400K, 3.318 at 480K, ceiling 3.321; its power law put the ceiling at
    # 10.06 (K + 1 = 6), the last point at 3.44 and "+0.082 per doubling" over the whole last doubling: "Still rising"
    ("saturated by 480K", lambda n: 1 - 0.55 * math.exp(-n / 70_000), "plateau", ("ceiling", "overshoots"), "Flat:"),
    # far from its ceiling and rising faster than a power law: rising by the recent slope, the fit set aside
    ("rising at 480K", lambda n: 1 - 0.55 * math.exp(-n / 2_000_000), "rising", ("undershoots",), "Still rising:"),
    # a power law with its ceiling under K + 1: the fit is used and predicts
    ("power law at 480K", lambda n: 1 - 0.9 * (n / 1000) ** -0.3, "rising", (), "Still rising:"),
]


@pytest.mark.parametrize(("name", "grow", "verdict", "problems", "start"), SATURATING, ids=[s[0] for s in SATURATING])
def test_a_saturated_speculators_log_is_judged_on_its_recent_slope(  # type: ignore[no-untyped-def]
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, grow, verdict: str, problems: tuple, start: str
) -> None:
    path = _speculators_log(tmp_path / "train.log", grow)
    c = curves.curve([path], batch_size=16)
    assert c.evidence["split"] == "train" and c.evidence["positions"] == 5 and c.evidence["x_max"] == 480_000
    assert c.verdict == verdict, c.sentence
    assert c.sentence.startswith(start)
    slope = c.evidence["slope_per_doubling_last"]
    assert slope["window"].startswith("last half-doubling")
    assert (slope["slope"] >= curves.PLATEAU_GAIN) == (verdict == "rising")
    reasons = " ".join(c.evidence["fit_not_used_because"])
    assert all(p in reasons for p in problems) and bool(reasons) == bool(problems), reasons
    if problems:  # a fit set aside predicts nothing and is drawn only where it was fitted
        assert not c.evidence["fit_used"] and "set aside" in c.sentence
        assert "at 2x" not in c.sentence and "at 10x" not in c.sentence and "(fit " not in c.sentence
        assert max(b["x"] for b in c.band) == pytest.approx(480_000)
    else:
        assert c.evidence["fit_used"] and c.fit is not None and c.fit.tau_inf <= 6
        assert "at 2x" in c.sentence and max(b["x"] for b in c.band) == pytest.approx(4_800_000)
    assert cli.main(["curve", str(path), "--batch-size", "16"]) == 0
    out = capsys.readouterr().out
    assert f"verdict: {verdict}\n" in out and "fitting train against samples seen\n" in out
    assert ("Still rising" in out) == (verdict == "rising")
    assert ("fit set aside for predictions: " in out) == bool(problems)


# ---------------------------------------------------------------- kept with a draft: the stored form and back


def _restarted_specforge(path: Path) -> Path:
    """A SpecForge console log, no samples per step, restarted from step 40 (a note) after reaching step 90."""
    lines = [f"step {s}: {{'acc_0': {0.5 + 0.04 * math.log(s):.4f}, 'acc_1': 0.5}}" for s in range(10, 100, 10)]
    lines += [f"step {s}: {{'acc_0': {0.52 + 0.04 * math.log(s):.4f}, 'acc_1': 0.5}}" for s in range(40, 300, 10)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _eagle_epochs(path: Path) -> Path:
    path.write_text(
        "\n".join(f"Test Epoch [{e}/40], position 0,  Acc: {0.5 + 0.05 * math.log(e):.2f}" for e in range(1, 9)) + "\n"
    )
    return path


STORED_LOGS = [
    # name, the log, how it is read
    ("rising csv, eval fitted", lambda t: _rising_csv(t / "m.csv"), {}),
    ("rising csv, train split", lambda t: _rising_csv(t / "m.csv"), {"split": "train"}),
    ("saturated speculators", lambda t: _speculators_log(t / "s.log", SATURATING[0][1]), {"batch_size": 16.0}),
    # 3 of the 5 positions used: the live runs' tau_sim still reads all 5 (``logged_acc``)
    (
        "speculators, 3 positions",
        lambda t: _speculators_log(t / "s.log", SATURATING[2][1]),
        {"batch_size": 16, "steps": 3},
    ),
    ("restarted, steps axis", lambda t: _restarted_specforge(t / "sf.log"), {}),
    ("eagle epochs", lambda t: _eagle_epochs(t / "eagle.log"), {"epoch_samples": 5000.0}),
]


@pytest.mark.parametrize(("name", "make", "reading"), STORED_LOGS, ids=[s[0] for s in STORED_LOGS])
def test_a_curve_rebuilt_from_its_stored_form_is_the_curve(  # type: ignore[no-untyped-def]
    tmp_path: Path, name: str, make, reading: dict
) -> None:
    """What a share link shows from a kept log is what its sender saw: the verdict, the fit, the evidence with its
    notes, the band and the points, rebuilt from the points alone (through JSON, as the store keeps them)."""
    original = curves.curve([make(tmp_path)], **reading)
    form = json.loads(json.dumps(curves.to_stored(original, **reading)))
    assert set(form) == {"points", "read", "split", "batch_size", "epoch_samples", "steps"}
    assert len(form["points"]) == len(original.points) and "acc_0" not in json.dumps(form)  # points, not the log
    back = curves.from_stored(form)
    assert back.verdict == original.verdict and back.sentence == original.sentence
    assert back.fit == original.fit
    assert back.evidence == original.evidence and back.stats == original.stats and back.band == original.band
    assert back.points == original.points
    assert [p.logged_acc for p in back.points] == [p.logged_acc for p in original.points]
    live = [stored_run(1, 4, 100.0, 2.5), stored_run(2, 2, 90.0, 2.0)]  # the runs beside it, simulated the same
    assert curves.live_frame(live, back).equals(curves.live_frame(live, original))
    if name == "restarted, steps axis":
        assert "went back" in back.evidence["note"] and "--batch-size" in back.evidence["note"]


def test_a_kept_curve_comes_back_from_the_store(tmp_path: Path) -> None:
    from comparelib.live.store import MAX_CURVE_POINTS, Store

    assert MAX_CURVE_POINTS == 2 * curves.MAX_POINTS_PER_SPLIT  # what reading a log keeps always fits
    original = curves.curve([_speculators_log(tmp_path / "s.log", SATURATING[0][1])], batch_size=16, steps=3)
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    store.save_learning_curve(draft="acme/d", source="s.log", **curves.to_stored(original, batch_size=16, steps=3))
    row = store.learning_curve("acme/d")
    assert row is not None
    back = curves.from_stored(row)
    assert (back.verdict, back.fit, back.evidence, back.stats) == (
        original.verdict,
        original.fit,
        original.evidence,
        original.stats,
    )
    store.close()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"points": None}, "its points are not readable"),
        ({"points": []}, "has no points"),
        ({"points": [{"step": 1}]}, "point 1 is not readable"),
        ({"points": [{"step": 1, "split": "train", "acc": [1.5], "tau_sim": 2.5}]}, "point 1 is not readable"),
        ({"points": [{"step": 1, "split": "train", "acc": [0.5], "tau_sim": "x"}]}, "point 1 is not readable"),
        ({"split": "test"}, "split must be auto, train or eval"),
    ],
)
def test_an_unreadable_stored_curve_is_said(change: dict, message: str) -> None:
    good = {"step": 1, "samples_seen": 10.0, "split": "train", "acc": [0.5], "tau_sim": 1.5}
    form = {"points": [good], "read": {}, "split": "auto", "batch_size": None, "epoch_samples": None, "steps": None}
    with pytest.raises((DataError, InputError), match=message):
        curves.from_stored({**form, **change})
