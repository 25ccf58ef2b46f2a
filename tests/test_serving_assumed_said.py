"""Where no trainer produces a draft's config, "same as trained" is set against boundaries assumed, and says so.

README promised that such a config "is assumed to have been trained on what SGLang 0.5.23 captures, and says so",
but nothing said it: a 2-id SpecForge config (SpecForge 0.2.0 accepts exactly three ids) read "Serves the trained
blocks on SGLang 0.5.23" and "same as trained: yes" as if a trainer's boundaries had been read (found while fixing
walk BC2).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from comparelib.models import registry
from tests.fixtures import cli_in_process

TARGET = "meta-llama/Llama-3.1-8B-Instruct"


def _folder(tmp_path: Path, ids: list[int]) -> str:
    cfg = dict(registry.get_draft("lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge").config)
    cfg["eagle_config"] = {"eagle_aux_hidden_state_layer_ids": ids}
    d = tmp_path / f"draft-{len(ids)}"
    d.mkdir()
    (d / "config.json").write_text(json.dumps(cfg))
    return str(d)


@pytest.mark.parametrize(
    ("ids", "assumed"),
    [
        ([1, 15], True),  # two ids: SpecForge 0.2.0 refuses, speculators does not read eagle_config
        ([1, 15, 28], False),  # SpecForge's own three: read, not assumed
    ],
)
def test_an_assumed_sameness_is_said_in_the_rows_and_the_headline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], ids: list[int], assumed: bool
) -> None:
    monkeypatch.setenv("SPECDRAFT_DATA_ROOT", str(tmp_path))
    source = _folder(tmp_path, ids)
    text = cli_in_process(capsys, "params", source, "--target", TARGET)
    assert text.returncode == 0, text.stderr
    head = next(line for line in text.stdout.splitlines() if line.startswith("will it serve:"))
    sglang = next(line for line in text.stdout.splitlines() if line.strip().startswith("SGLang 0.5.23:"))
    if assumed:
        assert "(assumed: no trainer produces this config (SpecForge 0.2.0: " in head, head
        assert "so its trained blocks are taken as what SGLang 0.5.23 captures, outputs of blocks 1, 15)" in head
        assert sglang.endswith("same as trained: yes (assumed)"), sglang
    else:
        assert "assumed" not in head and "assumed" not in sglang, (head, sglang)
    data = json.loads(cli_in_process(capsys, "params", source, "--target", TARGET, "--json").stdout)
    rows = data["serving"] if "serving" in data else data[0]["serving"]
    assert all(bool(r["trained_assumed"]) is assumed for r in rows if r["same_as_trained"] is not None), rows
