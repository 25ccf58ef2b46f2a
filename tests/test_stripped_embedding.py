"""An EAGLE-3 draft whose checkpoint leaves out the frozen embedding it shares with the target (walk S).

speculators 0.9.0 saves embed_tokens.weight by default but lists it in Eagle3DraftModel's
``_keys_to_ignore_on_load_missing`` (speculators/models/eagle3/core.py:31) and loads the verifier's: a stripped
embedding is legal, not a mismatch. SpecForge never saves it. The CLI's ``stored`` is the header's count, as Compare's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from comparelib.models import params as P
from comparelib.models.architectures import parse_config
from tests.checkpoints import TINY_EAGLE3, TINY_SPECULATORS, read_header, write_checkpoint
from tests.fixtures import cli_in_process

SPEC_TRAINED_EMBED = {**TINY_SPECULATORS, "embed_requires_grad": True}


@pytest.mark.parametrize(
    ("config", "by_design"),
    [
        (TINY_SPECULATORS, True),  # frozen, the verifier's: speculators loads it from the target
        (TINY_EAGLE3, True),  # SpecForge: never saved
        (SPEC_TRAINED_EMBED, False),  # a trained embedding left out is a real gap
    ],
    ids=["speculators", "specforge", "speculators-trained-embedding"],
)
def test_checkpoint_without_embedding(tmp_path: Path, config: dict[str, Any], by_design: bool) -> None:
    spec = parse_config(config)
    folder = write_checkpoint(spec, tmp_path / "d", include="all", exclude=["embed_tokens.weight"])
    report = P.reconcile(spec, read_header(folder))
    assert [m[0] for m in report.missing] == ["embed_tokens.weight"]
    assert report.matches_config is by_design
    assert ("embed_tokens.weight" in report.by_design) is by_design
    if by_design:
        assert "shared with the target" in report.missing[0][1], report.missing


def test_params_and_compare_give_the_checkpoints_stored_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SPECDRAFT_DB", f"sqlite:///{tmp_path / 'runs.sqlite'}")
    spec = parse_config(TINY_SPECULATORS)
    folder = write_checkpoint(spec, tmp_path / "draft", exclude=["embed_tokens.weight"])
    header = P.reconcile(spec, read_header(folder))
    count = P.count(spec)
    assert header.param_elements == count.total - count.embedding  # the header holds no embedding

    done = cli_in_process(capsys, "params", str(folder), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["params"]["stored"] == header.param_elements
    assert data["checkpoint"]["matches_config"] is True

    done = cli_in_process(capsys, "compare", str(folder), "--format", "json")
    assert done.returncode == 0, done.stderr
    (row,) = json.loads(done.stdout)
    assert row["stored"] == data["params"]["stored"]

    done = cli_in_process(capsys, "params", str(folder))
    assert done.returncode == 0, done.stderr
    assert any(line.split() == ["stored", f"{header.param_elements:,}"] for line in done.stdout.splitlines()), (
        done.stdout
    )
    assert "matches the config" in done.stdout and "does not match" not in done.stdout
    assert "missing embed_tokens.weight (by design)" in done.stdout
