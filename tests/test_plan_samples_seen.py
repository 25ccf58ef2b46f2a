"""The plan's "More training data" row on your training log's axis (walk Q).

A log's x is samples SEEN (epochs x unique samples): a draft trained 10 epochs on 4,960 unique samples has seen
49,600; the row said "10x the most it was fitted on (496,000 samples)", read as unique samples. And samples needed
read "20..unbounded" for a draft that already had 2,000 samples: a band's low end under what you have is no count
of samples needed.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest

from comparelib import cli
from comparelib.analysis import plan, speedup
from comparelib.live.store import Store
from comparelib.models import comparison
from comparelib.values import human

LOG_X = tuple(800.0 * i for i in range(1, 63))  # 62 logged points to 49,600 samples seen


def _inputs(own_samples: float) -> plan.Inputs:
    store = Store(None)
    store.ensure_examples()
    entry = comparison.load_entry(comparison.EXAMPLE_OWN, with_header=False)
    return plan.inputs_for(
        entry, runs=store.runs(group="example-kimi-k2.5"), own_samples=own_samples, own_samples_source="example audit"
    )


def _with_log(inputs: plan.Inputs, plateau: float, n0: float) -> plan.Inputs:
    al = tuple(1 + (plateau - 1) / (1 + (n0 / v) ** 1.5) for v in LOG_X)
    return replace(inputs, curve_x=LOG_X, curve_al=al, curve_steps=3, curve_source="train.csv")


def _more(result: plan.Plan) -> plan.Option:
    return next(o for o in result.options if o.kind == "more-data")


SEEN_CASES = [
    # name, log (plateau, N0; None: the published trend), target AL, epochs, your unique samples, phrases in the note
    # ("{n}": samples needed, "{u}": samples needed / epochs, each a prediction said as "about 1.4M"), phrases not in
    # it
    (
        "log reaches the target",
        (3.6, 60000.0),
        3.0,
        10.0,
        4960.0,
        ["at {n} samples seen (band ", "; {u} unique samples at 10 epochs, the count the cost is computed on)"],
        ["Your log saw"],
    ),
    (
        "log does not reach it",
        (2.46, 3000.0),
        3.0,
        10.0,
        4960.0,
        [
            "10x the most it was fitted on (496,000 samples seen; 49,600 unique samples at 10 epochs, the count the "
            "cost is computed on)",
        ],
        ["Your log saw"],
    ),
    (
        "log at 1 epoch, your volume says 10",
        (3.6, 60000.0),
        3.0,
        1.0,
        4960.0,
        [
            "at {n} samples seen (band ",
            "; {u} unique samples at 1 epoch, the count the cost is computed on)",
            "Your log saw 49,600 samples against your 4,960 unique training samples (example audit): about 10 "
            "epochs, while the cost divides samples seen by 1 epoch",
        ],
        [],
    ),
    (
        "published trend",
        None,
        3.0,
        10.0,
        37000.0,
        ["reaches the target 3 (the target AL you gave) at {n} samples"],
        ["seen", "unique"],
    ),
]


@pytest.mark.parametrize(
    ("name", "log", "target", "epochs", "own", "has", "has_not"), SEEN_CASES, ids=[c[0] for c in SEEN_CASES]
)
def test_the_rows_samples_say_seen_on_your_logs_axis(
    name: str,
    log: tuple[float, float] | None,
    target: float,
    epochs: float,
    own: float,
    has: list[str],
    has_not: list[str],
) -> None:
    inputs = _inputs(own)
    if log is not None:
        inputs = _with_log(inputs, *log)
    result = plan.build(inputs, target_al=target, epochs=epochs)
    assert result.fit is not None and result.fit.scope == ("pooled" if log is None else "curve")
    more = _more(result)
    n = more.samples_needed.value if more.samples_needed is not None else None
    words = {"n": "" if n is None else f"about {human(n)}", "u": "" if n is None else f"about {human(n / epochs)}"}
    for phrase in has:
        assert phrase.format(**words) in more.note, more.note
    for phrase in has_not:
        assert phrase not in more.note, more.note


CLAMP_CASES = [
    # name, log (None: the published trend), target AL, your unique samples, your volume on the fit's axis,
    # the fit's own count below your volume (its low end only: False), the unit the note says
    ("trend, band's low end below yours", None, 2.6, 2000.0, 2000.0, False, "samples"),
    ("trend, its count below yours", None, 2.2, 2000.0, 2000.0, True, "samples"),
    ("log, band's low end below yours", (3.0, 20000.0), 2.6, 4960.0, 49600.0, False, "samples seen"),
    ("log, its count below yours", (3.0, 20000.0), 2.5, 4960.0, 49600.0, True, "samples seen"),
]


@pytest.mark.parametrize(
    ("name", "log", "target", "own", "now", "count_below", "unit"), CLAMP_CASES, ids=[c[0] for c in CLAMP_CASES]
)
def test_samples_needed_never_starts_below_your_volume(
    name: str, log: tuple[float, float] | None, target: float, own: float, now: float, count_below: bool, unit: str
) -> None:
    inputs = _inputs(own)
    if log is not None:
        inputs = _with_log(inputs, *log)
    result = plan.build(inputs, target_al=target, epochs=10.0)
    assert result.fit is not None
    raw = result.fit.samples_for(target)  # the fit's own band: its low end is under your volume
    assert raw.low is not None and raw.low < now and raw.value is not None and (raw.value < now) == count_below
    need = _more(result).samples_needed
    note = _more(result).note
    if count_below:  # no run at the chain: the row claims no samples or cost (walk BJ3: retraining on your volume)
        assert need is None and _more(result).training.value is None, need
        assert f"at or below your {now:,.0f} {unit}: more training data is not what " in note, note
        return
    assert need is not None and need.value is not None and need.low is not None
    assert need.low == pytest.approx(now) and need.value >= now and (need.high is None or need.high >= now)
    assert need.value == pytest.approx(raw.value)
    assert (
        f"the band's low end is at or below your {now:,.0f} {unit}: the target may already be in reach at your "
        "volume" in note
    ), note
    assert "unbounded" not in need.text(",.0f") or need.low >= now


def _csv_log(path: Path) -> Path:
    """A power law that `curve` keeps (its ceiling 3.2 inside K + 1), at 2.80 at its last point, 49,600 seen."""
    lines = ["step,samples_seen,split,acc_0,acc_1,acc_2"]
    for i, x in enumerate(LOG_X):
        a = speedup.alpha_for(3.2 - 0.4 * (x / LOG_X[-1]) ** -0.3 + 0.01 * (-1) ** i, 3)
        lines.append(f"{i + 1},{x:.0f},train,{a:.6f},{a:.6f},{a:.6f}")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(
    ("args", "line"),
    [
        # your 2,000 samples: the trend's band started at 1,513 (a prediction, said as "about 2.6K (2K..")
        (["--samples", "2000", "--target-al", "2.6"], "   samples needed about {v} (2K.."),
        # your log's 49,600 samples seen: its band started below them
        (["--curve", "{log}", "--target-al", "2.8"], "   samples seen needed about {v} (50K.."),
    ],
)
def test_cli_prints_the_band_from_your_volume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], line: str
) -> None:
    log = _csv_log(tmp_path / "train.csv")
    argv = ["plan", "example", "--group", "example-kimi-k2.5", *(a.format(log=log) for a in args)]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    got = next((ln for ln in out.splitlines() if "needed" in ln), "")
    value = got.split("needed about ", 1)[-1].split(" ", 1)[0]
    assert value and value[-1] in "KMB" and not math.isnan(float(value[:-1]))
    assert got.startswith(line.format(v=value)), out
    assert "the target may already be in reach at your volume" in out


def test_the_live_scale_sentence_says_samples_seen() -> None:
    """Your log's fit at your volume, beside the AL a run measured live: on the log's axis too."""
    from tests.test_qwen3_30b_walk import SWEEP, _log_plan

    more = _more(_log_plan(2.46, 3000.0, "plateau", SWEEP, 8))
    assert "(tau_sim; 2.44 at your 49,600 samples seen), not the live one" in more.note, more.note


EPOCHS_CASES = [
    # epochs given (None: not given), your unique samples, epochs the cost uses, its source's first words
    (None, 4960.0, 10.0, "your training log: 49,600 samples seen over your 4,960 unique samples, about 10 epochs"),
    (None, 40000.0, 1.0, "SpecForge's default"),  # 49,600 seen over 40,000: within 1.25 passes, one epoch
    (3.0, 4960.0, 3.0, "given"),  # what you give stands (the note then says the log's passes differ)
]


@pytest.mark.parametrize(("given", "own", "used", "source"), EPOCHS_CASES)
def test_the_epochs_come_from_your_logs_passes_unless_given(
    given: float | None, own: float, used: float, source: str
) -> None:
    """Overview passes no epochs: a 10-epoch log (49,600 seen over 4,960 unique) was costed as if every sample
    seen were new, ten times the generation and storage (walk Q)."""
    result = plan.build(_with_log(_inputs(own), 3.6, 60000.0), target_al=3.0, epochs=given)
    assert result.cost["epochs"] == pytest.approx(used) and result.cost["epochs_source"].startswith(source)
    more = _more(result)
    n = more.samples_needed.value if more.samples_needed is not None else None
    assert n is not None
    one = _more(plan.build(_with_log(_inputs(own), 3.6, 60000.0), target_al=3.0, epochs=1.0))
    assert one.samples_needed is not None and one.samples_needed.value == pytest.approx(n)  # the fit's, either way
    assert more.storage.value == pytest.approx(one.storage.value / used)  # storage is for the unique samples
    if given is None and used > 1:
        assert f"unique samples at {used:g} epochs (your log's passes over your unique samples)" in more.note
        assert "Your log saw" not in more.note, more.note
