"""Walk AJ4: a dump audit's supervised_tokens counts what the trainer supervises, not the raw loss-mask ones.

SpecForge (0.2.0 algorithms/eagle3/data.py normalize_offline_sample, data/preprocessing.py
OfflineEagle3Dataset.process_data) and the EAGLE-1/2 trainer (eagle/train/main.py CustomDataset) set the last
position of every sample's loss mask to 0 at load time, whatever it held; a mask whose last value is 1 therefore
supervises one position fewer than it marks. The walk's dump read "supervised 304" (8 files x 38 ones) next to
the note that the last position is not supervised: the trainer supervises 8 x 37 = 296.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch

from comparelib.audit.dumps import audit_dumps
from tests import dump_fixtures as fx
from tests.dump_fixtures import one_torch_thread  # noqa: F401 - autouse: one torch thread per module
from tests.fixtures import page_app
from tests.fixtures import run_cli as _run_cli

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "audit.py")
N_FILES = 3


def _ones_at(positions: slice) -> Any:
    """A mutator: the loss mask is 1 exactly at ``positions`` (counted from the end when negative)."""

    def mutate(i: int, rec: dict[str, Any]) -> None:
        mask = torch.zeros_like(rec["loss_mask"])
        mask[positions] = 1
        rec["loss_mask"] = mask

    return mutate


# (case, layout, mask ones, masked per file, supervised per file, codes expected among all findings)
CASES: list[tuple[str, str, slice, int, int, set[str]]] = [
    ("specforge last 1", "specforge", slice(-5, None), 5, 4, {"loss_mask_last"}),
    ("specforge last 0", "specforge", slice(-6, -1), 5, 5, set()),
    ("eagle12 last 1", "eagle12", slice(-5, None), 5, 4, {"loss_mask_last"}),
    ("eagle12 last 0", "eagle12", slice(-6, -1), 5, 5, set()),
    # a mask marking only the last position supervises nothing once the trainer zeroes it
    (
        "specforge only last",
        "specforge",
        slice(-1, None),
        1,
        0,
        {"loss_mask_last", "loss_mask_empty", "no_supervised_tokens"},
    ),
]


@pytest.mark.parametrize(("case", "layout", "ones", "masked", "supervised", "codes"), CASES, ids=[c[0] for c in CASES])
def test_supervised_tokens_count_what_the_trainer_supervises(
    tmp_path: Path, case: str, layout: str, ones: slice, masked: int, supervised: int, codes: set[str]
) -> None:
    root = fx.build_dump(tmp_path / "d", layout, n_files=N_FILES, mutate=_ones_at(ones))
    report = audit_dumps(root)
    assert report.files_read == N_FILES
    for row in report.files:
        assert row["supervised_tokens"] == supervised, row
        assert row["masked_tokens"] == masked, row
    s = report.summary
    assert s["supervised_tokens"] == N_FILES * supervised
    assert s["masked_tokens"] == N_FILES * masked
    assert s["supervised_share"] == pytest.approx(N_FILES * supervised / s["tokens"])
    found = {f.code for f in report.findings}
    assert codes <= found, found
    assert ("loss_mask_last" in found) == ("loss_mask_last" in codes)
    if "loss_mask_last" in codes:
        (note,) = [f for f in report.findings if f.code == "loss_mask_last"]
        # the note gives both counts, so the summary's two numbers are explained where they are read
        assert f"{N_FILES * supervised:,} of the {N_FILES * masked:,} masked" in note.message, note.message


def run_cli(*args: str) -> Any:
    return _run_cli("audit-dump", *args, env={"OMP_NUM_THREADS": "1"})


@pytest.mark.parametrize(
    ("ones", "masked", "supervised"), [(slice(-5, None), 5, 4), (slice(-6, -1), 5, 5)], ids=["last 1", "last 0"]
)
def test_cli_json_and_text_say_the_trainers_count(tmp_path: Path, ones: slice, masked: int, supervised: int) -> None:
    root = fx.build_dump(tmp_path / "d", n_files=N_FILES, mutate=_ones_at(ones))
    proc = run_cli(str(root), "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["summary"]["supervised_tokens"] == N_FILES * supervised
    assert [r["supervised_tokens"] for r in data["files"]] == [supervised] * N_FILES
    assert data["summary"]["masked_tokens"] == N_FILES * masked
    proc = run_cli(str(root))
    assert proc.returncode == 0, proc.stderr
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("tokens "))
    assert f"supervised {N_FILES * supervised}" in line, line
    if masked != supervised:
        assert f"of {N_FILES * masked} masked" in line, line
    else:
        assert "masked" not in line, line


def test_page_shows_the_trainers_count(tmp_path: Path) -> None:
    root = fx.build_dump(tmp_path / "d", n_files=N_FILES, mutate=_ones_at(slice(-5, None)))
    at = page_app(PAGE, timeout=60).run()
    at.text_input(key="dumps_folder").set_value(str(root))
    at = at.button(key="dumps_run").click().run()
    assert not at.exception, at.exception
    summary = json.loads(at.json[0].value)
    assert summary["supervised_tokens"] == N_FILES * 4 and summary["masked_tokens"] == N_FILES * 5
    files = next(d.value for d in at.dataframe if "name" in d.value.columns)
    assert list(files["supervised_tokens"]) == ["4"] * N_FILES and list(files["masked_tokens"]) == ["5"] * N_FILES
