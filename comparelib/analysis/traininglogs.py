"""Training logs: per-position draft accuracies read from the files trainers write, streamed.

Each reader yields ``LogRecord`` objects (one logged point: step, split, per-position accuracy) and
never holds the file in memory: text is read line by line with a bounded ``readline`` (an
over-long line is skipped, never buffered whole), TensorBoard event files through the tensorboard
package's own record loader. What each trainer prints, and where it is printed (read from the
trainers' released source, not from memory):

* SpecForge 0.2.0 (``pip download specforge==0.2.0``)
  - console: ``specforge/training/assembly.py::_logger`` prints ``step {step}: {dict}`` where the
    dict is Python's repr of the metrics. Train metrics come from
    ``specforge/training/controller.py`` (the EAGLE-3 metric reduction) as ``acc_{i}``,
    ``ploss_{i}``, ``acc``, ``loss``; with a tracker configured they are renamed ``train/acc_{i}``
    (``specforge/training/tracking.py::training_metric_names``) and lists are expanded to
    ``name/{i}`` (``tracking.py::scalar_metrics``). Eval metrics come from
    ``specforge/eval/evaluator.py`` as ``eval/per_position_acc`` (a list; ``eval/per_position_acc/{i}``
    once expanded) and ``eval/simulated_acc_len`` (= a0 + a0*a1 + ..., i.e. tau_sim - 1).
  - TensorBoard: ``specforge/tracker.py::TensorboardTracker.log`` calls
    ``SummaryWriter(log_dir=<output_dir>/runs).add_scalar(key, value, global_step=step)`` for every
    scalar of that same dict, so the tags are ``train/acc_{i}`` and ``eval/per_position_acc/{i}``.
  - Its ``acc_i`` is counted over every loss-masked position at TTT depth i (denominator
    ``loss_mask.sum()``, ``specforge/algorithms/eagle3/model.py::_compute_metric_counts``), not
    only where the earlier positions were right; the chain product treats it as conditional, as
    SpecForge's own ``simulated_acc_len`` does.
* speculators 0.9.0 (``pip download speculators==0.9.0``)
  - ``speculators/train/trainer.py`` logs ``{"train": metrics, "profile": ..., "epoch": e, "lr": lr,
    "global_step": s}`` and, per epoch, ``{"val": {k + "_epoch": v}, "epoch": e}`` to the
    ``speculators.metrics`` logger; the console handler formats it with
    ``speculators/train/logger.py::FormatDictFilter`` as ``train/cond_acc_0=0.812, ...,
    global_step=50`` (floats to 3 decimals, nested keys joined with ``/``), printed by Rich, which
    may wrap a long record over several lines. The TensorBoard handler
    (``logger.py::TensorBoardHandler.emit``) writes the same flattened keys as scalar tags at
    ``global_step``.
  - ``cond_acc_{i}`` is P(position i right | positions < i right) and ``full_acc_{i}`` is
    P(positions 0..i all right) (``speculators/models/metrics.py::compute_accuracy_single_step``);
    cond is used when present, else cond_i = full_i / full_{i-1}.
* The EAGLE authors' EAGLE-3 trainer (SafeAILab/EAGLE, ``eagle/traineagle3/main.py``, the epoch
  loop): ``Train Epoch [{epoch+1}/{num_epochs}], position {i},  Acc: {acc:.2f}`` and the same with
  ``Test`` for the held-out set, once per epoch; per-step values go to wandb only. Two decimals.
* Generic CSV: a header with ``step``, optional ``samples_seen``, ``epoch``, ``split`` (train/eval)
  and ``acc_0``..``acc_K``. ``epoch`` is a whole number (the pass, counted from the log's first: 0- or 1-based) or
  training progress as a fraction (0.25 .. 5.0, as a Hugging Face Trainer logs it): 3.0 ends pass 3.
  SpecForge's console and TensorBoard logs carry no epoch; speculators' ``epoch=`` and EAGLE's ``Epoch [e/N]``
  are whole numbers.
"""

from __future__ import annotations

import csv
import math
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from comparelib import paths as user_paths
from comparelib.errors import DataError, InputError

FORMATS = ("auto", "tensorboard", "specforge", "speculators", "eagle", "csv")
MAX_LINE_BYTES = 256 * 1024
MAX_TEXT_BYTES = 16 * 1024**3  # a text/CSV log above this is refused (time, not memory, is the limit)
MAX_EVENT_FILE_BYTES = 2 * 1024**3
MAX_EVENT_FILES = 256
MAX_POSITIONS = 64
SNIFF_LINES = 20_000

SEVERAL_PASSES = 1.25  # a log that saw more than this many times your unique samples ran several epochs over them
# past this many passes over the volume in use, the volume is likely another set's (``curves.volume_note`` says so,
# and Overview's headline does not assert the passes there: walk AT)
MAX_PLAUSIBLE_EPOCHS = 20


def passes_over(seen: float | None, unique: float | None) -> float | None:
    """How many times a log's samples seen went over your unique training samples, where it is several
    (``SEVERAL_PASSES``); None otherwise, or where either count is unknown. The plan takes it as the epochs and
    Overview says a rising log rose over passes of the same samples, not over new data."""
    if not seen or not unique or seen <= unique * SEVERAL_PASSES:
        return None
    return seen / unique


def passes_text(passes: float) -> str:
    """ "4" or "2.5": a count of passes as a sentence says it; whole from 100 on, as the "2,667 times" beside it
    (walk Y read "about 2,666.7 passes" there)."""
    return f"{passes:,.0f}" if passes >= 100 else f"{passes:,.1f}".removesuffix(".0")


@dataclass
class LogRecord:
    """One logged point: per-position accuracy at one step of one split."""

    step: int
    split: str  # "train" or "eval"
    acc: dict[int, float] = field(default_factory=dict)  # position -> accuracy (conditional)
    full: dict[int, float] = field(default_factory=dict)  # speculators' cumulative full_acc, if that is all there is
    samples_seen: float | None = None
    # as the log numbers it: a whole number (speculators' 0-based, EAGLE's 1-based, a CSV's), or a CSV's fractional
    # progress (0.25 .. 5.0, as a Hugging Face Trainer or wandb export logs it; ``curves.eval_peak`` maps it to passes)
    epoch: float | None = None
    sampled: bool = False  # already offered to the caller's sampler (and kept)
    source: str = ""  # the file's name and the record's line (event, for TensorBoard) in it: notes cite them
    line: int = 0
    line_kind: str = "line"
    # the split's step logged just before, when this one is not higher: a reader that thins lines through its
    # sampler never thins such a record away and says what came before it, so a restart is seen where it is
    prev_step: int | None = None


def where(rec: LogRecord) -> str:
    """``train.log line 21``: where a record is in its file, for a note a user can check."""
    return f"{rec.source} {rec.line_kind} {rec.line}" if rec.source else f"{rec.line_kind} {rec.line}"


Sampler = Callable[[str], bool]
"""Asked "keep the next record of this split?" before a reader does the costly part of a line."""


@dataclass
class ReadStats:
    """What the readers skipped, so a page can say it."""

    format: str = ""
    lines: int = 0
    long_lines: int = 0
    bad_values: int = 0  # NaN or unreadable accuracies (and CSV rows) left out
    files: int = 0
    bytes: int = 0
    notes: list[str] = field(default_factory=list)


# ---------------------------------------------------------------- bounded line reading


def bounded_lines(path: Path, stats: ReadStats, max_line: int = MAX_LINE_BYTES) -> Iterator[str]:
    """The file's lines, decoded; a line longer than ``max_line`` bytes is skipped and counted.

    ``readline(limit)`` reads at most ``limit`` bytes, so a single multi-gigabyte line costs
    ``max_line`` bytes of memory, never its length.
    """
    with open(path, "rb") as fh:
        readline = fh.readline
        while True:
            raw = readline(max_line)
            if not raw:
                return
            stats.lines += 1
            if len(raw) >= max_line and not raw.endswith(b"\n"):
                stats.long_lines += 1
                while True:  # drain the rest of the over-long line in bounded pieces
                    rest = readline(max_line)
                    if not rest or rest.endswith(b"\n"):
                        break
                continue
            yield raw.decode("utf-8", "replace")


def _check_file(path: Path, cap: int) -> int:
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    if not path.is_file():
        raise InputError(f"{path}: not a regular file")
    size = path.stat().st_size
    if size > cap:
        raise DataError(f"{path}: {size / 1e9:.1f} GB is above the {cap / 1e9:.0f} GB cap for a training log")
    try:
        with open(path, "rb"):
            pass
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return size


def epoch_number(v: float | None) -> float | None:
    """An epoch as the log gives it: a whole number as an int (``2.0`` is epoch 2, as before), a fraction as it is
    (walk X's ``epoch`` column ran 0.25 .. 5.000 as training progress: ``int()`` made 5.000 a sixth pass)."""
    if v is None or not math.isfinite(v):
        return None
    return int(v) if v == int(v) else v


def _value(text: str) -> float | None:
    try:
        v = float(text)
    except ValueError:
        return None
    return None if math.isnan(v) else v  # NaN dropped here; range checks are the curve's job


# ---------------------------------------------------------------- SpecForge console lines

_SF_LINE = re.compile(r"(?:^|[\s\]:>])step (\d+): \{(.*)\}\s*$")
_SF_SCALAR = re.compile(r"'(?:(train|eval)/)?(acc_|per_position_acc/)(\d+)': ([-+0-9.eE]+|nan|inf)")
_SF_LIST = re.compile(r"'eval/per_position_acc': \[([^\]]*)\]")


_SF_TRAIN_PAIR = re.compile(r"'(?:train/)?acc_(\d+)': ([^,}]+)")


def parse_specforge_line(
    line: str, sampler: Sampler | None = None, stats: ReadStats | None = None, seen: dict[str, int] | None = None
) -> list[LogRecord]:
    """Records in one SpecForge ``step N: {...}`` line (none when it carries no accuracies).

    With a ``sampler``, a train line the caller would thin away is dropped before its numbers are parsed,
    unless its step is not above the last train step in ``seen`` (updated here): a step counter that goes
    back is always handed on, unsampled and with its ``prev_step``.
    A NaN accuracy (a rank that saw no loss-masked position at that depth) is left out of the record and
    counted in ``stats.bad_values``; the record then lacks that position, which the curve refuses to read
    as a shorter chain.
    """
    head, sep, body = line.partition(": {")
    if sep and head.startswith("step ") and head[5:].isdigit():  # the plain print() line, no regex needed
        step = int(head[5:])
        body = body.rstrip()
        if not body.endswith("}"):
            return []
        body = body[:-1]
    else:  # a prefixed line (torchrun's "[rank0]: ", a timestamp)
        m = _SF_LINE.search(line)
        if not m:
            return []
        step, body = int(m.group(1)), m.group(2)
    if "eval/" not in body:  # the common case: a train line, one findall and one dict
        if "acc_" not in body:
            return []
        prev, back = None, False
        if seen is not None:
            prev = seen.get("train")
            seen["train"] = step
            back = prev is not None and step <= prev
        if sampler is not None and not back and not sampler("train"):
            return []
        pairs = _SF_TRAIN_PAIR.findall(body)
        try:
            acc = {int(p): float(v) for p, v in pairs}
        except ValueError:  # a value that is no number at all: counted with the NaNs below
            acc = {int(p): x if (x := _value(v)) is not None else math.nan for p, v in pairs}
        if any(math.isnan(v) for v in acc.values()):
            if stats is not None:
                stats.bad_values += sum(math.isnan(v) for v in acc.values())
            acc = {k: v for k, v in acc.items() if not math.isnan(v)}
        if not acc:
            return []
        if back:
            return [LogRecord(step=step, split="train", acc=acc, prev_step=prev)]
        return [LogRecord(step=step, split="train", acc=acc, sampled=sampler is not None)]
    out: dict[str, LogRecord] = {}
    for prefix, kind, pos, val in _SF_SCALAR.findall(body):
        split = "eval" if prefix == "eval" else "train"
        if kind == "per_position_acc/" and prefix != "eval":
            continue
        v = _value(val)
        if v is None:
            if stats is not None:
                stats.bad_values += 1
            continue
        rec = out.setdefault(split, LogRecord(step=step, split=split))
        rec.acc[int(pos)] = v
    lm = _SF_LIST.search(body)
    if lm:
        rec = out.setdefault("eval", LogRecord(step=step, split="eval"))
        for i, item in enumerate(lm.group(1).split(",")):
            v = _value(item.strip()) if item.strip() else None
            if v is not None:
                rec.acc[i] = v
            elif stats is not None:
                stats.bad_values += 1
    train = out.get("train")
    if seen is not None and train is not None and train.acc:  # keep the fast path's last train step right
        prev = seen.get("train")
        if prev is not None and step <= prev:
            train.prev_step = prev
        seen["train"] = step
    return [r for r in out.values() if r.acc]


# ---------------------------------------------------------------- speculators console records

_SPEC_TOKEN = re.compile(
    r"(?<![\w/])(?:(train|val)/(cond|full)_acc_(\d+)(_epoch)?|(global_step|epoch))=([-+0-9.eE]+|nan|inf)"
)


_SPEC_STEP = re.compile(r"global_step=(\d+)")


class SpeculatorsParser:
    """Stateful: a Rich-wrapped record may span lines; a train record ends at ``global_step=``,
    a val record at its ``epoch=`` (it has no step of its own: the last train step seen is used)."""

    def __init__(self, stats: ReadStats | None = None) -> None:
        self.pending: LogRecord | None = None
        self.last_step = 0
        self.seen_step: int | None = None  # the last global_step read, thinned lines included
        self.epoch: int | None = None
        self.stats = stats  # NaN accuracies are counted in its bad_values

    def feed(self, line: str, sampler: Sampler | None = None) -> list[LogRecord]:
        """Records completed by this line; with a ``sampler``, a whole train record on one line that the
        caller would thin away is skipped after reading only its ``global_step`` (never one whose step is not
        above the last one read: a counter that goes back is handed on, unsampled)."""
        if sampler is not None and self.pending is None and "val/" not in line:
            at = line.rfind("global_step=")
            if at > 0 and "_acc_" in line:
                m = _SPEC_STEP.match(line, at)
                if m:
                    step = int(m.group(1))
                    back = self.seen_step is not None and step <= self.seen_step
                    if not back and not sampler("train"):
                        self.last_step = self.seen_step = step
                        return []
                    out = self._tokens(line)
                    for rec in out:
                        rec.sampled = rec.split == "train" and not back
                    return out
        return self._tokens(line)

    def _tokens(self, line: str) -> list[LogRecord]:
        out: list[LogRecord] = []
        for split, kind, pos, _epoch_suffix, plain, val in _SPEC_TOKEN.findall(line):
            if plain == "global_step":
                v = _value(val)
                if v is not None:
                    self.last_step = int(v)
                if self.pending is not None and self.pending.split == "train":
                    self.pending.step = self.last_step
                    self.pending.epoch = self.epoch
                    if self.seen_step is not None and self.last_step <= self.seen_step:
                        self.pending.prev_step = self.seen_step
                    out.append(self.pending)
                    self.pending = None
                self.seen_step = self.last_step
                continue
            if plain == "epoch":
                v = _value(val)
                self.epoch = int(v) if v is not None else None
                if self.pending is not None and self.pending.split == "eval":
                    self.pending.step = self.last_step
                    self.pending.epoch = self.epoch
                    out.append(self.pending)
                    self.pending = None
                continue
            rec_split = "eval" if split == "val" else "train"
            if self.pending is not None and self.pending.split != rec_split:
                self.pending = None  # a record cut short; never mix splits
            if self.pending is None:
                self.pending = LogRecord(step=self.last_step, split=rec_split)
            v = _value(val)
            if v is None:
                if self.stats is not None:
                    self.stats.bad_values += 1
                continue
            (self.pending.acc if kind == "cond" else self.pending.full)[int(pos)] = v
        return out


# ---------------------------------------------------------------- EAGLE authors' trainer

_EAGLE_LINE = re.compile(r"(Train|Test) Epoch \[(\d+)/(\d+)\], position (\d+),\s*Acc: ([-+0-9.eE]+|nan)")


class EagleParser:
    """``Train/Test Epoch [e/N], position i,  Acc: x`` lines, grouped into one record per epoch and split."""

    def __init__(self, stats: ReadStats | None = None) -> None:
        self.pending: LogRecord | None = None
        self.stats = stats  # NaN accuracies are counted in its bad_values

    def feed(self, line: str, line_no: int = 0) -> list[LogRecord]:
        """Records completed by this line (a record is complete when the next one starts); ``line_no`` is
        kept on a record started here, as the record is handed out a line or more later."""
        m = _EAGLE_LINE.search(line)
        if not m:
            return []
        split = "train" if m.group(1) == "Train" else "eval"
        epoch, pos, v = int(m.group(2)), int(m.group(4)), _value(m.group(5))
        out: list[LogRecord] = []
        p = self.pending
        if p is not None and (p.split != split or p.epoch != epoch or pos in p.acc):
            out.append(p)
            p = self.pending = None
        if p is None:
            p = self.pending = LogRecord(step=epoch, split=split, epoch=epoch, line=line_no)
        if v is not None:
            p.acc[pos] = v
        elif self.stats is not None:
            self.stats.bad_values += 1
        return out

    def finish(self) -> list[LogRecord]:
        out = [self.pending] if self.pending is not None else []
        self.pending = None
        return out


# ---------------------------------------------------------------- text dispatch

_SNIFF = (
    ("specforge", re.compile(r"step \d+: \{")),
    ("speculators", re.compile(r"(?:cond|full)_acc_\d+(?:_epoch)?=")),
    ("eagle", _EAGLE_LINE),
)


def read_text(path: Path, fmt: str, stats: ReadStats, sampler: Sampler | None = None) -> Iterator[LogRecord]:
    """Records of a SpecForge / speculators / EAGLE console log; ``fmt='auto'`` locks onto the first
    format whose line shape appears (within the first ``SNIFF_LINES`` lines)."""
    stats.bytes += _check_file(path, MAX_TEXT_BYTES)
    stats.files += 1
    first_line = stats.lines  # a record's line in this file is stats.lines - first_line when it is read
    lines = _plain(bounded_lines(path, stats))
    if fmt == "auto":
        buffered: list[str] = []
        for line in lines:
            buffered.append(line)
            hit = next((name for name, rx in _SNIFF if rx.search(line)), None)
            if hit:
                fmt = hit
                break
            if len(buffered) >= SNIFF_LINES:
                break
        if fmt == "auto":
            raise DataError(
                f"{path}: no training metrics recognised in its first {len(buffered)} lines. Supported: SpecForge "
                "'step N: {...}' lines, speculators 'train/cond_acc_0=...' records, EAGLE 'Train Epoch [e/N], "
                "position i, Acc: x' lines, TensorBoard event files and CSV with step and acc_0..acc_K columns."
            )
        lines = _chain(buffered, lines)
    stats.format = stats.format or fmt
    # the sniffed lines are replayed from a buffer, but only the last of them can hold a record (the first that
    # matched), and stats.lines is that line's number then: the numbers below are the file's own
    name = path.name
    if fmt == "specforge":
        seen: dict[str, int] = {}
        for line in lines:
            if "acc" in line:
                for rec in parse_specforge_line(line, sampler, stats, seen):
                    rec.source, rec.line = name, stats.lines - first_line
                    yield rec
    elif fmt == "speculators":
        sp = SpeculatorsParser(stats)
        for line in lines:
            if "=" in line:
                for rec in sp.feed(line, sampler):
                    rec.source, rec.line = name, stats.lines - first_line  # the line that completed it
                    yield rec
    elif fmt == "eagle":
        ep = EagleParser(stats)
        for line in lines:
            if "Acc:" in line:
                for rec in ep.feed(line, stats.lines - first_line):
                    rec.source = name
                    yield rec
        for rec in ep.finish():
            rec.source = name
            yield rec
    else:
        raise InputError(f"unknown text log format {fmt!r}; use one of {', '.join(FORMATS)}")


_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")


def _plain(lines: Iterator[str]) -> Iterator[str]:
    """Lines without terminal colour codes (Rich colours numbers when a log was captured from a terminal)."""
    for line in lines:
        yield _ANSI.sub("", line) if "\x1b[" in line else line


def _chain(first: list[str], rest: Iterator[str]) -> Iterator[str]:
    yield from first
    first.clear()
    yield from rest


# ---------------------------------------------------------------- CSV

_ACC_COL = re.compile(
    r"^(?:(train|eval|val|valid|validation|test)/)?(?:(cond_|full_)?acc_|epochacc_)(\d+)(?:_epoch)?$"
)
_SPLITS = {"train": "train", "eval": "eval", "val": "eval", "valid": "eval", "validation": "eval", "test": "eval"}


def read_csv(path: Path, stats: ReadStats) -> Iterator[LogRecord]:
    """``step``, optional ``samples_seen``/``epoch``/``split``, ``acc_0``..``acc_K`` (one row per point).

    Columns named like a tracker's keys are read too, with the split from their prefix: ``train/acc_0``,
    ``eval/acc_0``, ``val/cond_acc_0_epoch``, ``train/full_acc_0`` (cumulative), and the EAGLE trainer's wandb
    ``train/epochacc_0`` / ``test/epochacc_0``, so a wandb CSV export (``Step`` column) works as it is.
    """
    stats.bytes += _check_file(path, MAX_TEXT_BYTES)
    stats.files += 1
    stats.format = stats.format or "csv"
    first_line = stats.lines
    reader = csv.reader(bounded_lines(path, stats))
    try:
        header = [h.strip().lower() for h in next(reader)]
    except StopIteration:
        raise DataError(f"{path}: empty CSV file") from None
    except csv.Error as exc:
        raise DataError(f"{path}: not a readable CSV file ({exc})") from None
    if "step" not in header:
        raise DataError(f"{path}: the CSV header needs a 'step' column (got {', '.join(header[:12]) or 'nothing'})")
    # (column index, split from the prefix or None for the row's split, cumulative?, position)
    acc_cols: list[tuple[int, str | None, bool, int]] = []
    for i, h in enumerate(header):
        m = _ACC_COL.match(h)
        if m:
            acc_cols.append((i, _SPLITS[m.group(1)] if m.group(1) else None, m.group(2) == "full_", int(m.group(3))))
    if not acc_cols:
        raise DataError(f"{path}: the CSV header needs acc_0..acc_K columns (got {', '.join(header[:12])})")
    i_step = header.index("step")
    i_samples = header.index("samples_seen") if "samples_seen" in header else None
    i_epoch = header.index("epoch") if "epoch" in header else None
    i_split = header.index("split") if "split" in header else None
    try:
        for row in reader:
            if not row or len(row) < len(header):
                if row:
                    stats.bad_values += 1
                continue
            step = _value(row[i_step])
            if step is None:
                stats.bad_values += 1
                continue
            row_split = _SPLITS.get(row[i_split].strip().lower(), "") if i_split is not None else "train"
            samples = _value(row[i_samples]) if i_samples is not None and row[i_samples].strip() else None
            epoch_v = _value(row[i_epoch]) if i_epoch is not None and row[i_epoch].strip() else None
            recs: dict[str, LogRecord] = {}
            for i, col_split, cumulative, pos in acc_cols:
                cell = row[i].strip()
                if not cell:
                    continue
                split = col_split or row_split
                v = _value(cell)
                if v is None or not split:
                    stats.bad_values += 1
                    continue
                rec = recs.get(split)
                if rec is None:
                    rec = recs[split] = LogRecord(
                        step=int(step),
                        split=split,
                        samples_seen=samples,
                        epoch=epoch_number(epoch_v),
                        source=path.name,
                        line=stats.lines - first_line,
                    )
                (rec.full if cumulative else rec.acc)[pos] = v
            yield from recs.values()
    except csv.Error as exc:
        raise DataError(f"{path}: CSV error near line {stats.lines} ({exc})") from None


# ---------------------------------------------------------------- TensorBoard event files

_TB_TAG = re.compile(
    r"^(train|eval|val|test)/(?:(acc)_(\d+)|per_position_(acc)/(\d+)|(cond|full)_acc_(\d+)(?:_epoch)?)$"
)


def event_files(path: Path) -> list[Path]:
    """The event files at ``path``: the file itself, or every ``*tfevents*`` file under a run directory."""
    if path.is_dir():
        found: list[Path] = []
        for root, _dirs, files in user_paths.walk(path):  # never into the uploads folder
            for name in sorted(files):
                if "tfevents" in name:
                    # a symlink inside the run directory must not lead outside the data root either
                    found.append(user_paths.resolve_user_path(Path(root) / name, "TensorBoard event file"))
                    if len(found) > MAX_EVENT_FILES:
                        raise DataError(
                            f"{path}: more than {MAX_EVENT_FILES} TensorBoard event files; "
                            "point at one run's directory"
                        )
        if not found:
            raise DataError(f"{path}: a directory without TensorBoard event files (names containing 'tfevents')")
        return sorted(found)
    return [path]


def read_tensorboard(path: Path, stats: ReadStats) -> Iterator[LogRecord]:
    """Scalars with per-position accuracy tags, through tensorboard's ``EventFileLoader`` (one event at a time).

    Events of one step arrive one scalar each; a record is emitted when the step of its split changes.
    """
    try:
        from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
        from tensorboard.util import tensor_util
    except ImportError:  # pragma: no cover - tensorboard is in requirements.txt
        raise DataError(
            "reading TensorBoard event files needs the tensorboard package (pip install tensorboard)"
        ) from None
    stats.format = stats.format or "tensorboard"
    for file in event_files(path):
        stats.bytes += _check_file(file, MAX_EVENT_FILE_BYTES)
        stats.files += 1
        pending: dict[str, LogRecord] = {}
        events_before = stats.lines
        try:
            for event in EventFileLoader(str(file)).Load():
                stats.lines += 1
                if not event.HasField("summary"):
                    continue
                for value in event.summary.value:
                    m = _TB_TAG.match(value.tag)
                    if not m:
                        continue
                    split = "train" if m.group(1) == "train" else "eval"
                    kind = "full" if m.group(6) == "full" else "acc"  # cond_acc, acc_i, per_position_acc/i
                    pos = int(m.group(3) or m.group(5) or m.group(7))
                    if value.HasField("simple_value"):
                        v: float | None = float(value.simple_value)
                    elif value.HasField("tensor"):
                        try:
                            v = float(tensor_util.make_ndarray(value.tensor).reshape(-1)[0])
                        except (ValueError, IndexError, TypeError):
                            v = None
                    else:
                        v = None
                    if v is None or math.isnan(v):
                        stats.bad_values += 1
                        continue
                    rec = pending.get(split)
                    if rec is not None and rec.step != event.step:
                        yield rec
                        rec = None
                    if rec is None:
                        rec = pending[split] = LogRecord(
                            step=int(event.step),
                            split=split,
                            source=file.name,
                            line=stats.lines - events_before,
                            line_kind="event",
                        )
                    (rec.full if kind == "full" else rec.acc)[pos] = v
        except DataError:
            raise
        except MemoryError:  # a record header claiming more bytes than memory: corrupt or hostile
            raise DataError(
                f"{file}: not a readable TensorBoard event file (a record claims an impossible size)"
            ) from None
        except Exception as exc:  # noqa: BLE001 - a truncated or foreign file: say which, never a traceback
            why = str(exc).strip() or "unreadable record"
            raise DataError(f"{file}: not a readable TensorBoard event file ({type(exc).__name__}: {why})") from None
        if stats.lines == events_before and file.stat().st_size > 0:
            raise DataError(f"{file}: not a readable TensorBoard event file (no complete event record in it)")
        yield from pending.values()


def event_span(path: Path) -> tuple[tuple[float, int], tuple[float, int]] | None:
    """(wall time, step) of the earliest and the latest step in TensorBoard event files; None without steps.

    Every event carries the writer's wall clock, so a run's own training rate needs no console log.
    """
    try:
        from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
    except ImportError:  # pragma: no cover - tensorboard is in requirements.txt
        return None
    first: tuple[float, int] | None = None
    last: tuple[float, int] | None = None
    for file in event_files(path):
        _check_file(file, MAX_EVENT_FILE_BYTES)
        try:
            for event in EventFileLoader(str(file)).Load():
                if not event.HasField("summary") or event.step <= 0:
                    continue
                point = (float(event.wall_time), int(event.step))
                if first is None or point[1] < first[1]:
                    first = point
                if last is None or point[1] > last[1]:
                    last = point
        except Exception as exc:  # noqa: BLE001 - a truncated or foreign file: say which, never a traceback
            raise DataError(f"{file}: not a readable TensorBoard event file ({type(exc).__name__})") from None
    return (first, last) if first is not None and last is not None else None


# ---------------------------------------------------------------- entry point


def detect(path: Path) -> str:
    """The reader for ``path`` from its name: TensorBoard for directories and ``*tfevents*``, CSV for ``.csv``."""
    if path.is_dir() or "tfevents" in path.name:
        return "tensorboard"
    if path.suffix.lower() == ".csv":
        return "csv"
    return "auto"


def read(
    paths: Iterable[str | os.PathLike[str]],
    fmt: str = "auto",
    stats: ReadStats | None = None,
    sampler: Sampler | None = None,
) -> Iterator[LogRecord]:
    """Every record of every file, in file order; ``stats`` collects what was read and skipped.

    ``sampler`` (optional) lets the SpecForge reader skip parsing lines the caller would thin away;
    records it let through carry ``sampled=True``.
    """
    if fmt not in FORMATS:
        raise InputError(f"unknown log format {fmt!r}; use one of {', '.join(FORMATS)}")
    stats = stats if stats is not None else ReadStats()
    for raw in paths:
        path = user_paths.resolve_user_path(raw, "training log")  # a shared server reads only under its data root
        if not path.exists():
            raise InputError(f"{path}: no such file or directory")
        kind = detect(path) if fmt == "auto" else fmt
        if kind == "tensorboard":
            yield from read_tensorboard(path, stats)
        elif kind == "csv":
            yield from read_csv(path, stats)
        else:
            if path.is_dir():
                raise InputError(f"{path}: a directory; only TensorBoard run directories can be read as a whole")
            yield from read_text(path, kind, stats, sampler)
