"""Logs that bent the learning curve: a NaN position, a step counter that goes back, a flat tail called rising.

Every log is written here in the trainer's own line shape (see ``tests/test_curves.py`` for one case per format) and
read through ``curves.curve`` / ``curves.collect``, as the CLI and the page read them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from comparelib.analysis import curves, overview, traininglogs
from comparelib.analysis.curves import CurvePoint
from comparelib.analysis.traininglogs import LogRecord

NAN = float("nan")
POSITIONS = 7


def _accs(a0: float, n: int = POSITIONS) -> list[float]:
    return [round(a0 * 0.97**i, 4) for i in range(n)]


def _sf(step: int, accs: list[float], split: str = "train") -> str:
    """A SpecForge 0.2.0 console line (``training/assembly.py::_logger`` prints the dict's repr; NaN as ``nan``)."""
    if split == "eval":
        return f"step {step}: { ({'eval/avg_loss': 1.0, 'eval/per_position_acc': accs})!r}"
    return f"step {step}: { ({'loss': 1.0, **{f'acc_{i}': a for i, a in enumerate(accs)}})!r}"


def _spec(step: int, accs: list[float], epoch: int = 0) -> str:
    """A speculators console record on one line (``train/logger.py::FormatDictFilter``)."""
    body = ", ".join(f"train/cond_acc_{i}={a}" for i, a in enumerate(accs))
    return f"INFO {body}, epoch={epoch}, lr=1.00e-04, global_step={step}"


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


# ---------------------------------------------------------------- F1: a NaN position is not a shorter chain

NAN_STEPS = (1000, 1500, 2000)


def _with_nan(at: int) -> Callable[[int], list[float]]:
    def accs(step: int) -> list[float]:
        a = _accs(0.6 + 0.01 * step / 100)
        if step in NAN_STEPS:
            a[at] = NAN
        return a

    return accs


def _sf_log(accs: Callable[[int], list[float]]) -> list[str]:
    return [_sf(s, accs(s)) for s in range(100, 2100, 100)]


def _sf_eval_log(accs: Callable[[int], list[float]]) -> list[str]:
    return [_sf(s, _accs(0.6), "train") for s in range(100, 2100, 100)] + [
        _sf(s, accs(s), "eval") for s in range(100, 2100, 100)
    ]


def _csv_log(accs: Callable[[int], list[float]]) -> list[str]:
    rows = ["step," + ",".join(f"acc_{i}" for i in range(POSITIONS))]
    for s in range(100, 2100, 100):
        rows.append(f"{s}," + ",".join("" if math.isnan(a) else str(a) for a in accs(s)))
    return rows


# name, file, lines, options, split, positions kept, NaN values counted, points dropped
NAN_CASES = [
    ("specforge, NaN at position 1", "sf.log", _sf_log(_with_nan(1)), {}, "train", 7, 3, 3),
    ("specforge, NaN at the last position", "sf.log", _sf_log(_with_nan(6)), {}, "train", 7, 3, 3),
    ("specforge eval list", "sf.log", _sf_eval_log(_with_nan(2)), {"split": "eval"}, "eval", 7, 3, 3),
    (
        "speculators cond_acc",
        "spec.log",
        [_spec(s, _with_nan(1)(s)) for s in range(100, 2100, 100)],
        {},
        "train",
        7,
        3,
        3,
    ),
    ("csv, an empty cell", "m.csv", _csv_log(_with_nan(3)), {}, "train", 7, 0, 3),
    ("--steps 1 needs only position 0", "sf.log", _sf_log(_with_nan(1)), {"steps": 1}, "train", 1, 3, 0),
]


@pytest.mark.parametrize(
    ("name", "file", "lines", "opts", "split", "positions", "bad", "dropped"), NAN_CASES, ids=[c[0] for c in NAN_CASES]
)
def test_a_point_missing_a_position_is_dropped_and_said(
    tmp_path: Path,
    name: str,
    file: str,
    lines: list[str],
    opts: dict,
    split: str,
    positions: int,
    bad: int,
    dropped: int,
) -> None:
    c = curves.curve([_write(tmp_path / file, lines)], batch_size=64, **opts)
    pts = [p for p in c.points if p.split == split]
    assert {len(p.acc) for p in pts} == {positions}  # never a 1-position tau_sim among 7-position ones
    assert len(pts) == 20 - dropped
    if dropped:
        assert not {p.step for p in pts} & set(NAN_STEPS)
    assert c.stats["bad_values"] == bad
    assert c.stats["incomplete_points"] == dropped
    if dropped:
        assert f"Left out {dropped} {split} points missing a position of the {positions}" in c.evidence["note"]
        assert "1000, 1500, 2000" in c.evidence["note"]
    else:
        assert "missing a position" not in (c.evidence.get("note") or "")


def test_nan_position_no_longer_cuts_the_last_point_to_one_plus_acc0(tmp_path: Path) -> None:
    """The tester's log: acc_0 = 0.80 at step 2000 with acc_1 = nan read as tau_sim 1.80, a 7-position value ~3.7."""
    c = curves.curve([_write(tmp_path / "nanpos.log", _sf_log(_with_nan(1)))], batch_size=64)
    last = c.points[-1]
    assert last.step == 1900 and last.tau_sim == pytest.approx(curves.tau_sim(_accs(0.79)))
    assert min(p.tau_sim for p in c.points) > 2.0  # 1 + acc_0 is at most 1.8 here
    assert c.evidence["last_tau_sim"] == pytest.approx(last.tau_sim)


# ---------------------------------------------------------------- F2: a step counter that goes back


def test_a_second_run_appended_replaces_the_first_and_the_note_says_where(tmp_path: Path) -> None:
    """Two flat runs in one file: run 2's steps used to overwrite run 1's one by one, leaving a rising mix."""
    lines = [_sf(s, _accs(0.7, 4)) for s in range(100, 2100, 100)] + [
        _sf(s, _accs(0.3, 4)) for s in range(100, 1100, 100)
    ]
    c = curves.curve([_write(tmp_path / "concat.log", lines)], batch_size=64)
    assert [p.step for p in c.points] == list(range(100, 1100, 100))
    assert {p.acc[0] for p in c.points} == {0.3}  # run 2 only, never a mix
    assert c.verdict == "plateau"
    assert c.stats["restarts"] == 1
    note = c.evidence["note"]
    assert "went back from 2000 to 100 at concat.log line 21" in note
    assert "replace the earlier 20 train points at steps 100..2000" in note
    assert "give the points as CSV with an epoch or samples_seen column" in note


def test_a_resumed_run_keeps_the_history_before_its_checkpoint(tmp_path: Path) -> None:
    run1 = [_sf(s, _accs(0.5, 3)) for s in range(100, 2100, 100)]
    run2 = [_sf(s, _accs(0.6, 3)) for s in range(1500, 3100, 100)]  # resumed from the step-1400 checkpoint
    preamble = ["[rank0]: loading the target model", "[rank0]: starting training"]  # before the first record
    c = curves.curve([_write(tmp_path / "train.log", preamble + run1 + run2)], batch_size=64)
    assert [p.step for p in c.points] == list(range(100, 3100, 100))
    assert [p.acc[0] for p in c.points] == [0.5] * 14 + [0.6] * 16
    note = c.evidence["note"]
    assert "went back from 2000 to 1500 at train.log line 23" in note
    assert "6 train points at steps 1500..2000" in note and "14 earlier points before step 1500" in note


def test_a_restart_replaces_the_other_splits_points_too_and_is_noted_once(tmp_path: Path) -> None:
    lines = []
    for a0, last in ((0.7, 2000), (0.3, 1000)):  # two runs, the second shorter
        for s in range(100, last + 100, 100):
            lines.append(_sf(s, _accs(a0, 3)))
            if s % 200 == 0:
                lines.append(_sf(s, _accs(a0 - 0.05, 3), "eval"))
    c = curves.curve([_write(tmp_path / "both.log", lines)], batch_size=64)
    ev = [p for p in c.points if p.split == "eval"]
    assert [p.step for p in ev] == [200, 400, 600, 800, 1000]
    assert {p.acc[0] for p in ev} == {0.25}
    assert c.stats["restarts"] == 1 and c.evidence["note"].count("went back") == 1
    assert "10 eval points at steps 200..2000" in c.evidence["note"]


def test_a_replaced_run_does_not_set_how_many_positions_the_later_one_needs(tmp_path: Path) -> None:
    """Run 1 drafted 7 positions, run 2 (appended, started over) only 3: run 2's points are complete."""
    lines = [_sf(s, _accs(0.7)) for s in range(100, 1100, 100)] + [_sf(s, _accs(0.6, 3)) for s in range(100, 600, 100)]
    c = curves.curve([_write(tmp_path / "train.log", lines)])
    assert [(p.step, len(p.acc)) for p in c.points] == [(s, 3) for s in range(100, 600, 100)]
    assert c.stats["incomplete_points"] == 0 and c.evidence["positions"] == 3


def _tb(path: Path, steps: range, a0: float) -> Path:
    from torch.utils.tensorboard import SummaryWriter

    w = SummaryWriter(log_dir=str(path))
    for s in steps:
        w.add_scalar("train/acc_0", a0, global_step=s)
        w.add_scalar("train/acc_1", a0, global_step=s)
    w.close()
    return next(path.glob("*tfevents*"))


def test_tensorboard_files_of_a_restarted_run(tmp_path: Path) -> None:
    first = _tb(tmp_path / "a", range(10, 210, 10), 0.5)
    second = _tb(tmp_path / "b", range(10, 110, 10), 0.25)
    c = curves.curve([first, second])
    assert [(p.step, p.acc[0]) for p in c.points] == [(s, 0.25) for s in range(10, 110, 10)]
    assert f"at {second.name} event" in c.evidence["note"]


def test_an_eagle_log_whose_epochs_start_over(tmp_path: Path) -> None:
    lines = [f"Train Epoch [{e}/5], position 0,  Acc: 0.{40 + e}" for e in range(1, 6)]
    lines += [f"Train Epoch [{e}/3], position 0,  Acc: 0.{60 + e}" for e in range(1, 4)]
    c = curves.curve([_write(tmp_path / "eagle.log", lines)], epoch_samples=1000)
    assert [(p.step, p.acc[0]) for p in c.points] == [(1, 0.61), (2, 0.62), (3, 0.63)]
    assert "went back from 5 to 1 at eagle.log line 6" in c.evidence["note"]


# name, file, lines, options, [steps counted on], samples seen at the last point
EPOCH_CASES = [
    (
        "csv epoch column, steps from 100 each epoch",
        "m.csv",
        ["epoch,step,acc_0,acc_1"] + [f"{e},{s},0.{5 + e},0.5" for e in range(3) for s in range(100, 1100, 100)],
        {"batch_size": 64},
        list(range(100, 3100, 100)),
        3000 * 64.0,
    ),
    (
        "csv samples_seen grows while step restarts",
        "m.csv",
        ["step,samples_seen,acc_0"]
        + [f"{s},{(e * 10 + s // 100) * 6400},0.{5 + e}" for e in range(3) for s in range(100, 1100, 100)],
        {},
        list(range(100, 3100, 100)),
        30 * 6400.0,
    ),
    (
        "speculators epoch field, global_step from 1 each epoch",
        "spec.log",
        [_spec(s, [0.5 + 0.1 * e, 0.5], epoch=e) for e in range(3) for s in range(10, 110, 10)],
        {"batch_size": 8},
        list(range(10, 310, 10)),
        300 * 8.0,
    ),
    (
        "speculators epoch field, global_step from 0 each epoch",
        "spec.log",
        [_spec(s, [0.5 + 0.1 * e, 0.5], epoch=e) for e in range(2) for s in range(0, 100, 10)],
        {"batch_size": 8},
        list(range(0, 100, 10)) + list(range(91, 191, 10)),  # 0..90 is 91 steps done
        181 * 8.0,
    ),
]


@pytest.mark.parametrize(
    ("name", "file", "lines", "opts", "steps", "last_samples"), EPOCH_CASES, ids=[c[0] for c in EPOCH_CASES]
)
def test_epochs_that_restart_the_counter_are_counted_on(
    tmp_path: Path, name: str, file: str, lines: list[str], opts: dict, steps: list[int], last_samples: float
) -> None:
    c = curves.curve([_write(tmp_path / file, lines)], **opts)
    assert [p.step for p in c.points] == steps  # every epoch kept, in training order
    assert c.points[-1].samples_seen == last_samples
    assert c.evidence["x_max"] == last_samples
    assert "restarts with each epoch" in c.evidence["note"] and "went back" not in c.evidence["note"]
    assert c.stats["restarts"] == 0


def test_a_repeated_step_keeps_the_later_value_and_says_so() -> None:
    recs = [
        LogRecord(step=5, split="train", acc={0: 0.5}, source="a.log", line=1),
        LogRecord(step=5, split="train", acc={0: 0.25}, source="a.log", line=2),
        LogRecord(step=6, split="train", acc={0: 0.5}, source="a.log", line=3),
    ]
    points, info = curves.collect(recs)
    assert [(p.step, p.tau_sim) for p in points] == [(5, 1.25), (6, 1.5)]
    assert info["notes"] == [
        "A train step logged twice in a row (first at a.log line 2): the later value of each is kept."
    ]


@pytest.mark.parametrize("fmt", ["specforge", "speculators"])
def test_thinning_lines_before_parsing_sees_restarts_where_they_are(tmp_path: Path, fmt: str) -> None:
    """The readers' sampler fast path thins lines before parsing them; a step that goes back is never thinned away,
    so the fast path places a restart (and a repeat) at the same line, with the same points, as reading every line."""
    lines = []
    for a0, last in ((0.5, 3000), (0.25, 1500)):
        for s in range(1, last + 1):
            accs = [a0, 0.5]
            lines.append(_sf(s, accs) if fmt == "specforge" else _spec(s, accs))
            if s == 1000 and a0 == 0.5:
                lines.append(lines[-1])
    path = _write(tmp_path / f"{fmt}.log", lines)
    kept = curves.thinners(64)
    fast, fast_info = curves.collect(traininglogs.read([path], sampler=lambda split: kept[split].offer()), kept=kept)
    slow, slow_info = curves.collect(traininglogs.read([path]), max_points=64)
    assert fast == slow and fast_info == slow_info
    assert slow_info["thinned"]["train"]["every"] > 1
    assert {p.acc[0] for p in slow} == {0.25}
    assert f"went back from 3000 to 1 at {fmt}.log line 3002:" in slow_info["notes"][0]
    assert any(f"(first at {fmt}.log line 1001)" in n for n in slow_info["notes"])


def test_a_monotonic_log_has_no_notes(tmp_path: Path) -> None:
    c = curves.curve([_write(tmp_path / "sf.log", [_sf(s, _accs(0.6, 3)) for s in range(100, 2100, 100)])])
    assert c.stats["notes"] == [] and c.stats["restarts"] == 0 and c.stats["incomplete_points"] == 0
    assert c.evidence["note"].startswith("no samples seen")  # only the axis note, as before


# ---------------------------------------------------------------- F8: "rising" needs the data to rise too


def _saturating(step: float) -> tuple[float, ...]:
    """The tester's plateau: acc_0 = 0.75 - 0.3 exp(-step/300), flat to 4 decimals from step ~2000."""
    return tuple(_accs(0.75 - 0.3 * math.exp(-step / 300)))


def _pts(xs: np.ndarray, taus: np.ndarray) -> list[CurvePoint]:
    return [
        CurvePoint(step=i + 1, samples_seen=float(x), split="train", acc=(0.9,) * 6, tau_sim=float(t))
        for i, (x, t) in enumerate(zip(xs, taus, strict=True))
    ]


def test_a_flat_tail_is_not_called_rising_by_the_extrapolation() -> None:
    steps = np.arange(100, 4100, 100)
    c = curves.analyse(
        [
            CurvePoint(
                step=int(s),
                samples_seen=s * 64.0,
                split="train",
                acc=_saturating(s),
                tau_sim=curves.tau_sim(_saturating(s)),
            )
            for s in steps
        ]
    )
    assert c.evidence["gain_at_2x"]["mean"] >= curves.PLATEAU_GAIN  # the power law alone would say rising
    assert c.evidence["slope_per_doubling_last"]["slope"] < 0.01
    assert c.verdict == "plateau"
    # the slope is the last half-doubling's (12 points): +0.002 over the whole last doubling, +0.000 over its end
    assert c.sentence.startswith("Flat:") and "last half-doubling (12 points) it moved only +0.000 per doubling" in (
        c.sentence
    )
    assert "extrapolates +0.06 at 2x" in c.sentence and "Still rising" not in c.sentence


SHAPES = [
    ("power law", np.geomspace(1e3, 1e5, 12), lambda x: 4.0 - 2.0 * (x / 1e5) ** -0.3),
    ("log-like", np.geomspace(1e3, 2e5, 10), lambda x: 1.5 + 0.25 * np.log10(x)),
    ("saturated", np.geomspace(1e3, 1e5, 12), lambda x: 3.0 - 1.0 * (x / 1e2) ** -1.5),
    ("flat from 10x the start", np.geomspace(1e3, 1e5, 30), lambda x: 3.0 - np.maximum(0, 0.6 * np.log10(1e4 / x))),
    # rises 0.5 per doubling, then stops for the last doubling: the fit still extrapolates +0.3 at 2x
    ("flat over the last doubling", np.geomspace(1e3, 1e5, 40), lambda x: 3.0 - np.maximum(0, 0.5 * np.log2(5e4 / x))),
    # two points in the last doubling: the slope is the last 3 points'; the fit's ceiling is past K + 1
    ("two points in the last doubling", np.geomspace(1e3, 1e5, 12), lambda x: 2 + 0.1 * np.log2(x)),
]


@pytest.mark.parametrize(("name", "xs", "fn"), SHAPES, ids=[s[0] for s in SHAPES])
def test_rising_means_the_fit_and_the_last_doubling_agree(name: str, xs: np.ndarray, fn) -> None:  # type: ignore[no-untyped-def]
    """Rising: the recent measured slope, and the fit's gain at 2x where the fit may predict (``fit_used``)."""
    c = curves.analyse(_pts(xs, fn(xs)))
    gain = c.evidence["gain_at_2x"]["mean"]
    slope = c.evidence["slope_per_doubling_last"]
    assert slope is not None  # a fit needs 5 points: the last 3 give a slope at least
    rises = (gain >= curves.PLATEAU_GAIN or not c.evidence["fit_used"]) and slope["slope"] >= curves.PLATEAU_GAIN
    assert c.verdict == ("rising" if rises else "plateau"), c.sentence
    assert c.sentence.startswith("Still rising" if rises else "Flat")
    if slope is not None and gain >= curves.PLATEAU_GAIN > slope["slope"]:  # the sentence says what called it flat
        assert f"moved only {slope['slope']:+.3f} per doubling" in c.sentence


def test_no_new_verdict_name() -> None:
    """Overview words every verdict the curve can give (``overview.CURVE_NOTES``)."""
    assert set(curves.VERDICTS) == set(overview.CURVE_NOTES)
