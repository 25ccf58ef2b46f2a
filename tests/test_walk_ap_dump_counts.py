"""Walk AP2: a dump audit's figures (tokens, masked, supervised, share, seq_len) are over one set of files.

The walk's dump had one file whose input_ids (567) and hidden states (574) differ in length: it was left out of
the masked/supervised sums but its 567 ids were still added to ``tokens`` and the seq_len stats, so
supervised_share divided the supervised count of 49 files by the tokens of 50 (0.647, not 0.665).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from comparelib.audit.dumps import audit_dumps
from tests import dump_fixtures as fx
from tests.dump_fixtures import one_torch_thread  # noqa: F401 - autouse: one torch thread per module
from tests.fixtures import run_cli as _run_cli

N_FILES = 4
BROKEN = 1  # index of the file whose input_ids are 7 shorter than its hidden states


def _short_ids(i: int, rec: dict[str, Any]) -> None:
    if i == BROKEN:
        rec["input_ids"] = rec["input_ids"][:-7]


def test_every_figure_is_over_the_files_that_passed(tmp_path: Path) -> None:
    root = fx.build_dump(tmp_path / "d", n_files=N_FILES, mutate=_short_ids)
    report = audit_dumps(root)
    rows = report.files
    broken = rows[BROKEN]
    assert "length_mismatch" in (broken["error"] or ""), broken
    good = [r for i, r in enumerate(rows) if i != BROKEN]
    assert all(r["supervised_tokens"] is not None and r["seq_len"] for r in good), good
    s = report.summary
    tokens = sum(r["seq_len"] for r in good)
    supervised = sum(r["supervised_tokens"] for r in good)
    assert s["tokens"] == tokens
    assert s["supervised_tokens"] == supervised
    assert s["masked_tokens"] == sum(r["masked_tokens"] for r in good)
    assert s["supervised_share"] == pytest.approx(supervised / tokens)
    lens = [r["seq_len"] for r in good]
    assert s["seq_len"] == {"min": min(lens), "mean": pytest.approx(tokens / len(lens)), "max": max(lens)}
    assert s["files_counted"] == N_FILES - 1
    assert s["files_left_out"] == [broken["name"]]


def test_cli_says_over_how_many_files(tmp_path: Path) -> None:
    root = fx.build_dump(tmp_path / "d", n_files=N_FILES, mutate=_short_ids)
    env = {"OMP_NUM_THREADS": "1"}
    data = json.loads(_run_cli("audit-dump", str(root), "--json", env=env).stdout)
    assert data["summary"]["files_counted"] == N_FILES - 1
    text = _run_cli("audit-dump", str(root), env=env).stdout
    name = data["files"][BROKEN]["name"]
    assert f"over {N_FILES - 1} of {N_FILES} files read; 1 failed checks and is left out: {name}" in text, text
