"""A published trend that does not rise with more samples is set against the target's level (walk BC, 1).

Walk BC: MT-Bench at steps=3,topk=1,draft=4,bs=8,sglang fits accept = 2.769 - 0.034 * log10(samples) over 7 published
points (320K..1.4M samples); the line gives about 2.57 there. Acceptance vs data and ``scaling --target-accept 2.26``
said "does not rise with more samples (slope -0.03 per decade), so no volume reaches 2.26" (and "... reaches 1.5"):
the line is above both at every volume in the data's range, so the trend already meets them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from comparelib.cli import main
from tests.fixtures import QWEN3_8B_EAGLE3, bench_config, bench_store, page_app, store_run

SETTING = "steps=3,topk=1,draft=4,bs=8,sglang"
TARGET = "Qwen/Qwen3-8B"
GROUP = "q3-8b-bc"
REDHAT = "RedHatAI/Qwen3-8B-speculator.eagle3"


def _summary(al: float | None) -> dict[str, Any]:
    out: dict[str, Any] = {"requests": 16, "errors": 0, "output_tokens_per_s": 150.0 if al is None else 210.0}
    if al is not None:
        out["accept_length"] = al
    return out


@pytest.fixture(autouse=True)
def _empty_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPECDRAFT_DATA_ROOT", str(tmp_path))


def _scaling(capsys: pytest.CaptureFixture[str], target: str) -> str:
    assert main(["scaling", "--benchmark", "mtbench", "--setting", SETTING, "--target-accept", target]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("target", ["2.26", "1.5"])
def test_cli_target_below_a_flat_trend_is_met(capsys: pytest.CaptureFixture[str], target: str) -> None:
    out = _scaling(capsys, target)
    assert "-0.034" in out  # the walk's fit: it does not rise
    assert "no volume reaches" not in out, out
    line = next(x for x in out.splitlines() if f"target {target}" in x)
    assert f"at or above the target {target} at every volume in the published data's range" in line, line
    assert "320K" in line and "1.4M" in line, line  # the range said, with the line's values there
    assert "already meets" in line and "not what limits" in line, line


def test_cli_target_above_a_flat_trend_is_not_reached(capsys: pytest.CaptureFixture[str]) -> None:
    out = _scaling(capsys, "3.5")
    line = next(x for x in out.splitlines() if "target 3.5" in x)
    assert "below the target 3.5 at every volume in the published data's range" in line, line
    assert "already meets" not in line, line


def _texts(at: AppTest) -> list[str]:
    kinds = ("markdown", "caption", "info", "success", "warning", "error")
    return [str(e.value) for kind in kinds for e in getattr(at, kind)]


def test_page_lead_sets_the_published_target_against_a_flat_trend(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walk's page: a local Qwen3-8B SpecForge EAGLE-3 draft, a group of SGLang runs (baseline, and (3,1,4) at
    batch 1 measuring 1.60), and RedHatAI's Qwen3-8B draft as the reference (Overview's default for Qwen3-8B)."""
    folder = tmp_path / "qwen3-8b-eagle3-wrong"
    folder.mkdir()
    eagle = {"eagle_aux_hidden_state_layer_ids": [1, 17, 32], "use_aux_hidden_state": True}
    (folder / "config.json").write_text(json.dumps({**QWEN3_8B_EAGLE3, "eagle_config": eagle}))
    store = bench_store()
    store_run(
        store, bench_config("sglang", TARGET, None, draft=None, topk=None, ndt=None), _summary(None), group=GROUP
    )
    spec = bench_config("sglang", TARGET, 3, draft=str(folder), topk=1, ndt=4)
    store_run(store, spec, _summary(1.60), group=GROUP)
    at = page_app("../pages/scaling.py", timeout=120)
    at.query_params["draft"] = str(folder)
    at.query_params["draft_group"] = GROUP
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="sc_ref").value == REDHAT
    texts = _texts(at)
    assert not any("no volume reaches" in t for t in texts), [t for t in texts if "no volume" in t]
    lead = next(t for t in texts if "does not rise with more samples" in t)
    assert "at or above the target" in lead and "already meets the target" in lead, lead
    assert "(published at " in lead, lead  # RedHat's figure is said at its own setting, not the fit's
