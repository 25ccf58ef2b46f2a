"""Walk BW 1 (normal): ``params`` on a target whose checkpoint was not read printed ``stored 108,641,793,536`` (and
``--json`` had it beside ``"counts_from": "config.json (no checkpoint header read)"``), and Compare's export gave the
target row the same figure, while a published draft's row in the same case leaves stored empty. Nothing was read
that says what a checkpoint stores: a target's stored count is said only from its header."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest

from tests.checkpoints import TINY_LLAMA, write_checkpoint
from tests.fixtures import cli_in_process


def _config_only(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(TINY_LLAMA))
    return folder


# (case, folder builder, extra args, stored said)
CASES = [
    ("config alone", _config_only, [], False),
    ("checkpoint not read", lambda f: write_checkpoint(TINY_LLAMA, f), ["--no-header"], False),
    ("checkpoint read", lambda f: write_checkpoint(TINY_LLAMA, f), [], True),
]


@pytest.mark.parametrize(("case", "build", "extra", "said"), CASES, ids=[c[0] for c in CASES])
def test_a_targets_stored_count_is_said_only_from_its_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, build, extra: list[str], said: bool
) -> None:
    folder = str(build(tmp_path / "target"))
    js = cli_in_process(capsys, "params", folder, "--json", *extra)
    assert js.returncode == 0, js.stderr
    data = json.loads(js.stdout)
    assert data["role"] == "target"
    stored = data["params"]["stored"]
    text = cli_in_process(capsys, "params", folder, *extra)
    assert text.returncode == 0, text.stderr
    stored_lines = [ln for ln in text.stdout.splitlines() if ln.strip().startswith("stored ")]
    csv = cli_in_process(capsys, "compare", folder, "--format", "csv", *extra)
    assert csv.returncode == 0, csv.stderr
    row = pd.read_csv(io.StringIO(csv.stdout)).iloc[0]
    if said:
        assert stored == data["checkpoint"]["param_elements"] == data["params"]["total"]
        assert len(stored_lines) == 1 and f"{stored:,}" in stored_lines[0]
        assert row["stored"] == stored
    else:
        assert data["checkpoint"] is None and stored is None, stored
        assert not stored_lines, stored_lines
        assert "stored is not shown: no checkpoint of it was read" in text.stdout
        assert pd.isna(row["stored"]), row["stored"]
