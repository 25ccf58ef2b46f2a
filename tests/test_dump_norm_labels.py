"""The dump audit's two norms say what they are: the aux numbers are a median RMS per element, the --all layer
numbers a mean L2 norm per token, ~sqrt(hidden) apart.

The Llama-3.3-70B walk's `audit-dump --all` printed "mean aux norms 0.0212/0.0388/0.0523" beside "layer low:
mean norm 1.918": the same word for quantities 90x apart at hidden 8192. Each number is recomputed here from the
dump with the definition its label names, so the label cannot drift from what is computed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import torch

from tests import dump_fixtures as fx
from tests.dump_fixtures import one_torch_thread  # noqa: F401 - autouse: one torch thread per module
from tests.fixtures import run_cli


@pytest.fixture(scope="module")
def dump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fx.build_dump(tmp_path_factory.mktemp("norms") / "d", "speculators", n_files=3, dtype=torch.float32)


def _chunks(path: Path) -> list[torch.Tensor]:
    """The low, mid and high captured layers of one speculators file ([tokens, 4, hidden]: three aux, final)."""
    from safetensors.torch import load_file

    hs = load_file(str(path))["hidden_states"].double()
    return [hs[:, k] for k in range(3)]


def test_cli_labels_each_norm_with_what_it_is(dump: Path) -> None:
    proc = run_cli("audit-dump", str(dump), "--all", env={"OMP_NUM_THREADS": "1"})
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "mean aux norms" not in text and "mean norm " not in text and "aux norms" not in text
    head = next(line for line in text.splitlines() if line.startswith("tokens "))
    assert "aux RMS per element (median over tokens, mean over files), low/mid/high" in head
    drift = [line for line in text.splitlines() if line.startswith("layer ")]
    assert len(drift) == 4 and all(": L2 norm per token (mean over tokens) " in line for line in drift)

    data = json.loads(run_cli("audit-dump", str(dump), "--all", "--json", env={"OMP_NUM_THREADS": "1"}).stdout)
    units = data["summary"]["norm_units"]
    assert "RMS per element" in units["mean_aux_norms"] and "L2 norm per token" in units["layer_drift"]
    # the numbers are what the labels say, recomputed from the files (the fixture's files are small: every
    # position is read)
    files = sorted(p for p in dump.rglob("*.safetensors"))
    assert files
    medians, l2 = [], []
    for path in files:
        chunks = _chunks(path)
        medians.append([float(c.pow(2).mean(dim=1).sqrt().median()) for c in chunks])
        l2.append(float(torch.linalg.vector_norm(chunks[0], dim=1).mean()))
    rms = [sum(m[k] for m in medians) / len(medians) for k in range(3)]
    assert data["summary"]["mean_aux_norms"] == pytest.approx(rms, rel=1e-3)
    low = data["summary"]["layer_drift"]["low"]
    assert low["min_norm"] == pytest.approx(min(l2), rel=1e-3) and low["max_norm"] == pytest.approx(max(l2), rel=1e-3)
    shown = re.search(r"low/mid/high ([\d.e-]+)/", head)
    assert shown and float(shown.group(1)) == pytest.approx(rms[0], rel=5e-3)


def test_without_all_no_layer_norm_is_explained(dump: Path) -> None:
    data = json.loads(run_cli("audit-dump", str(dump), "--json", env={"OMP_NUM_THREADS": "1"}).stdout)
    assert set(data["summary"]["norm_units"]) == {"aux_norms", "mean_aux_norms"}  # no --all: no layer norms shown
