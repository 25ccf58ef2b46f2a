"""Walk T: ``plan`` makes the plan without the target's size when the target cannot be counted, as Overview does.

``python -m comparelib plan walkt-lab/ling-flash-eagle3 --group ling-live`` exited 2 with "error: unsupported
architecture BailingMoeV2ForCausalLM" while Overview showed a full plan for the same draft, saying "Your draft's
target ... could not be read (...); what needs its size is left out". The target here is a made-up architecture,
so the rule holds for the next target the counter does not know either.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fixtures import LLAMA31_8B_EAGLE3, cli_in_process
from tests.hub_emulator import HubEmulator

DRAFT = "walkt-lab/madeup-eagle3"
TARGET = "walkt-lab/MadeUp-MoE-100B"
ARCH = "MadeUpMoeV9ForCausalLM"  # no counter knows it
TARGET_CONFIG = {
    "architectures": [ARCH],
    "model_type": "madeup_moe_v9",
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "vocab_size": 128256,
}
CARD = f"---\nbase_model: {TARGET}\nlibrary_name: sglang\ntags: [eagle3]\n---\n# {DRAFT}\n"


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPECDRAFT_DB", f"sqlite:///{tmp_path / 'runs.sqlite'}")


@pytest.mark.parametrize(
    ("extra", "said_from"),
    [
        ([], ", from the model card's base_model"),  # the card names it: Overview's path
        (["--target", TARGET], ": "),  # given on the command line
    ],
)
def test_plan_degrades_when_the_targets_size_cannot_be_counted(
    hub: HubEmulator, store: None, capsys: pytest.CaptureFixture[str], extra: list[str], said_from: str
) -> None:
    hub.add_model(TARGET, TARGET_CONFIG)
    hub.add_model(DRAFT, LLAMA31_8B_EAGLE3, card=CARD)
    done = cli_in_process(capsys, "plan", DRAFT, *extra)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith(f"plan for {DRAFT}"), out
    line = next(ln for ln in out.splitlines() if ln.startswith(f"target {TARGET}"))
    assert ARCH in line and said_from in line, line  # which target, where from, and why it is not counted
    assert "The plan is made without the target's size: hidden-state generation is not costed" in line, line
    assert "1. [" in out, out  # a ranked plan follows

    done = cli_in_process(capsys, "plan", DRAFT, *extra, "--json")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)["target"]
    assert got["model"].startswith(TARGET) and ARCH in got["not_counted"], got


def test_plan_degrades_when_the_target_is_not_reachable(
    hub: HubEmulator, store: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """A target the Hub does not have: named, not counted, and the plan made, as Overview makes it."""
    missing = "walkt-lab/no-such-target"
    hub.add_model(DRAFT, LLAMA31_8B_EAGLE3, card=CARD.replace(TARGET, missing))
    done = cli_in_process(capsys, "plan", DRAFT)
    assert done.returncode == 0, done.stderr
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith(f"target {missing}"))
    assert "its config could not be read" in line and "The plan is made without the target's size" in line, line


def test_a_draft_that_cannot_be_read_still_fails(
    hub: HubEmulator, store: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only the target's error is set aside: a draft of an unknown architecture is still refused."""
    hub.add_model(DRAFT, {**TARGET_CONFIG, "architectures": ["MadeUpDraftForCausalLM"]})
    done = cli_in_process(capsys, "plan", DRAFT, "--target", TARGET)
    assert done.returncode == 2 and "MadeUpDraftForCausalLM" in done.stderr, (done.returncode, done.stderr)
