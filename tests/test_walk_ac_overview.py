"""Walk AC (a Llama-4-Maverick EAGLE-3 draft, mavlab/maverick-eagle3-speculators, against lmsys's SGLang draft;
400,000 samples typed in; a training log of 4 passes over 100,000 samples that overfits; group mav-ac):

C6. Overview's "Training volume" said "1.25x more data" beside its own warning that the log's 400K samples seen are 4
    passes: over about 100K unique samples, fewer than the reference's 320K.
C7. "Your draft is ahead in a higher measured acceptance (...), so neither is a gap": one thing, "neither".
C9. "Your acceptance" took vLLM run #20 over SGLang run #3 (the same chain, batch and acceptance), while the
    reference publishes on SGLang.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

import pytest

from comparelib.analysis import overview
from comparelib.models import registry
from tests.fixtures import stored_run

DRAFT = "mavlab/maverick-eagle3-speculators"
TARGET = "meta-llama/Llama-4-Maverick-17B-128E-Instruct"
LMSYS = "lmsys/sglang-EAGLE3-Llama-4-Maverick-17B-128E-Instruct-v1"  # 320K samples, 2.45 at (3,1,4), engine unstated


def _runs() -> list[Any]:
    """Walk AC's batch-1 runs that matter here: SGLang #1 (baseline) and #3 (3,1,4), vLLM #15 (baseline) and #20
    (3,1,4), the same acceptance 3.00; SGLang #13/#14 at batch 64, the fastest pair in tok/s."""

    def run(id_: int, steps: int | None, tok: float, al: float | None, engine: str, batch: int) -> Any:
        return stored_run(
            id_, steps, tok, al, engine=engine, draft=DRAFT if steps else None, model=TARGET, group="mav-ac",
            concurrency=batch, requests=8 if batch == 1 else 128, max_tokens=96,
        )  # fmt: skip

    return [
        run(1, None, 92.9, None, "sglang", 1),
        run(3, 3, 175.3, 3.00, "sglang", 1),
        run(13, None, 3561.9, None, "sglang", 64),
        run(14, 2, 5657.2, 2.46, "sglang", 64),
        run(15, None, 88.1, None, "vllm", 1),
        run(20, 3, 167.3, 3.00, "vllm", 1),
    ]


# ------------------------------------------------------------------ C9. your acceptance on the reference's engine


def test_the_reference_publishes_on_sglang() -> None:
    assert overview.reference_settings(LMSYS) == ("steps=3,topk=1,draft=4",)  # its figure states no engine
    assert overview.reference_engine(LMSYS) == "sglang"  # its speedup is SGLang's (the SpecForge blog)


def test_your_acceptance_is_read_on_the_engine_the_reference_publishes_on() -> None:
    mine = overview.own_acceptance(
        _runs(), overview.reference_settings(LMSYS), draft=DRAFT, engine=overview.reference_engine(LMSYS)
    )
    assert mine is not None and mine.run.id == 3, mine
    assert mine.why == "at the published chain of steps=3,topk=1,draft=4, batch 1 (the source states no batch size)"
    # and Overview reads it so
    a = overview.answer(None, registry.get_draft(LMSYS), _runs(), 400_000.0, own_target=TARGET, draft=DRAFT)
    assert a.own is not None and a.own.run.id == 3, a.own


def test_a_run_on_another_engine_says_which_the_reference_publishes_on() -> None:
    runs = [r for r in _runs() if r.id != 3]  # no SGLang run of the chain: the vLLM one, said
    mine = overview.own_acceptance(runs, ("steps=3,topk=1,draft=4",), draft=DRAFT, engine="sglang")
    assert mine is not None and mine.run.id == 20
    assert "engine vllm (the reference publishes on sglang)" in mine.why, mine.why


# ------------------------------------------------------------------ C7. the list and its quantifier agree


@pytest.mark.parametrize(
    ("parts", "said"),
    [
        (["a higher measured acceptance (x)"], "a higher measured acceptance (x), so it is not a gap"),
        (["more training data (y)", "a higher acceptance (x)"], "more training data (y) and a higher acceptance (x), "
         "so neither is a gap"),
        (["a", "b", "c"], "a, b and c, so none is a gap"),
    ],
)  # fmt: skip
def test_ahead_words_agree_with_the_number_of_things(parts: list[str], said: str) -> None:
    assert overview.ahead_words(parts) == said


@pytest.mark.parametrize(
    ("data_ratio", "said"),
    [
        (None, "Your draft is ahead in a higher measured acceptance (1.22x the reference's), so it is not a gap."),
        (0.5, "Your draft is ahead in more training data (2.0x the reference's) and a higher measured acceptance "
         "(1.22x the reference's), so neither is a gap."),
    ],
)  # fmt: skip
def test_the_headline_says_what_is_ahead_with_the_right_quantifier(data_ratio: float | None, said: str) -> None:
    _, sentence = overview.largest_gap(data_ratio=data_ratio, size_ratio=None, accept_ratio=1 / 1.22)
    assert said in sentence, sentence
    assert ", so neither is a gap" not in sentence or data_ratio is not None


# ------------------------------------------------------------------ C6. a volume the kept log reads as passes


def _train_log(path: Path) -> Path:
    """Walk AC's data/train_log.csv (scripts/make_data.py): 4 epochs of 100,000 samples, eval every quarter epoch,
    peaking at 200K samples seen and falling after while train rises."""
    noise = [0.004, -0.003, 0.002, -0.004, 0.003, -0.002, 0.004, -0.003, 0.002, -0.001, 0.003, -0.004, 0.002, -0.002,
             0.003, -0.003]  # fmt: skip
    evals = {}
    for i, s in enumerate(range(25000, 400001, 25000)):
        a0 = 0.60 + 0.18 * (math.log(s / 25000) / math.log(8)) if s <= 200000 else 0.78 - 0.08 * ((s - 200000) / 2e5)
        evals[s] = a0 + noise[i]

    def accs(a0: float) -> list[str]:
        return [f"{x:.4f}" for x in (a0, a0 * 0.95, a0 * 0.92, a0 * 0.90)]

    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["step", "samples_seen", "epoch", "split", "acc_0", "acc_1", "acc_2", "acc_3"])
        for s in sorted(set(range(10000, 400001, 10000)) | set(evals)):
            if s % 10000 == 0:
                a0 = min(0.55 + 0.33 * (math.log(s / 10000) / math.log(40)), 0.99)
                w.writerow([round(s / 64), s, round(s / 100000, 4), "train", *accs(a0)])
            if s in evals:
                w.writerow([round(s / 64), s, round(s / 100000, 4), "eval", *accs(evals[s])])
    return path


def test_the_log_reads_the_typed_volume_as_passes(tmp_path: Path) -> None:
    from comparelib.analysis import curves

    log = curves.curve([str(_train_log(tmp_path / "train_log.csv"))])
    assert log.verdict == "overfitting"
    read = curves.passes_read(log, 400_000)
    assert read is not None and read.passes == pytest.approx(4.0) and read.unique == pytest.approx(100_000)
    assert read.against(320_000) == (
        "your training log reads them as 4 passes over about 100K unique samples, 0.31x of the reference's 320K"
    )
    # a volume the log does not read as passes: its unique samples (100K), or one far from what it saw
    assert curves.passes_read(log, 100_000) is None
    assert curves.passes_read(log, 1_000_000) is None


def _summary(tmp_path: Path, volume: int) -> Any:
    from comparelib.analysis import curves, summary
    from comparelib.models.draft import DraftTarget, OwnDraft

    log = curves.curve([str(_train_log(tmp_path / "train_log.csv"))])
    draft = OwnDraft(source=f"registry:{DRAFT}", samples=volume)
    ref = registry.get_draft(LMSYS)
    suggested = overview.Reference(LMSYS, "", "")
    return summary.summarise(
        draft, None, ref, LMSYS, _runs(), [], target=DraftTarget(TARGET, "named"), suggested=suggested, curve=log
    )


def test_overview_carries_the_passes_with_the_typed_volume(tmp_path: Path) -> None:
    said = _summary(tmp_path, 400_000)
    line = next(x for x in said.lines if x.startswith("- **Training volume:**"))
    assert line.endswith(
        f"{LMSYS} 320K (published): 1.25x more samples seen; your training log reads them as 4 passes over about "
        "100K unique samples, 0.31x of the reference's 320K."
    ), line
    assert "1.25x more data" not in line
    # the headline names no data gap, and says it is closed only as the volume was given
    assert (
        "Training data is no gap only as your volume counts it (400K samples against 320K): your training log reads "
        "them as 4 passes over about 100K unique samples, 3.2x fewer than the reference's."
    ) in said.headline, said.headline
    assert said.answer.volume_read is not None


def test_a_volume_of_unique_samples_is_compared_as_before(tmp_path: Path) -> None:
    said = _summary(tmp_path, 100_000)  # the log's unique samples: 4 passes over them, no reading needed
    line = next(x for x in said.lines if x.startswith("- **Training volume:**"))
    assert line.endswith("3.2x less data."), line
    assert "no gap only as" not in said.headline
