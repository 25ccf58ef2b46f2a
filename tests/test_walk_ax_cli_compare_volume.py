"""The CLI's ``compare`` gives a Hub draft's attached audit, as the page's export does (walk AX, minor).

Walk AX attached a 20,000-row audit to its private Hub draft l31lab/llama31-8b-eagle3 (stored under the repo id).
The Compare page's CSV export gave ``train_samples`` 20,000; ``python -m comparelib compare ... --format csv`` left
``train_samples`` and ``attached_volume`` empty: the CLI looked the volume up by the entry's label, which names the
commit ("l31lab/llama31-8b-eagle3@8f13534").
"""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest

from comparelib import settings
from comparelib.live.store import Store
from comparelib.models import registry
from tests.fixtures import cli_in_process, eagle3_tensors

DRAFT = "l31lab/llama31-8b-eagle3"


def test_the_cli_compare_gives_the_audit_attached_to_a_hub_draft(hub: Any, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = dict(registry.get_draft("lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge").config)
    hub.add_model(DRAFT, cfg, tensors=eagle3_tensors(4096, 14336, 128256, 32000, kv_dim=1024))
    Store(settings.database_url()).save_data_volume(
        draft=DRAFT, samples=20_000, tokens=4_118_969, source="l31lab/ultrachat-20k"
    )
    done = cli_in_process(capsys, "compare", DRAFT, "--format", "csv")
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert len(rows) == 1 and rows[0]["draft"].startswith(f"{DRAFT}@"), rows  # the label names the commit
    assert rows[0]["train_samples"] == "20000" and rows[0]["train_tokens"] == "4118969", rows[0]
    assert "20,000 samples" in rows[0]["attached_volume"], rows[0]
