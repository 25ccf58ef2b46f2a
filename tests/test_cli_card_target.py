"""The CLI takes a Hub draft's target from its model card's ``base_model``, as the pages do.

A user walk: a SpecForge-format EAGLE-3 draft (LlamaForCausalLMEagle3, its config names no target) whose README
front matter says ``base_model: meta-llama/Llama-3.1-8B-Instruct``. Compare drafts found that target and checked the
aux-layer wiring against it, but ``params`` printed "target: none known" and ``compare`` said "Act on this first
[warning, target-unknown]". Each command now reaches the card's target, says where it came from, and --target
still wins.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures import LLAMA31_8B_EAGLE3, cli_in_process
from tests.hub_emulator import HubEmulator

DRAFT = "walkm/llama31-8b-eagle3-sf"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
CONFIG = LLAMA31_8B_EAGLE3
CARD = f"---\nbase_model: {LLAMA}\nlibrary_name: sglang\ntags: [eagle3]\n---\n# {DRAFT}\nOur EAGLE-3 draft.\n"
FROM_CARD = "from the model card's base_model"


@pytest.fixture
def card_draft(hub: HubEmulator) -> str:
    hub.add_model(DRAFT, CONFIG, card=CARD)
    return DRAFT


@pytest.fixture
def empty_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPECDRAFT_DB", f"sqlite:///{tmp_path / 'runs.sqlite'}")


CASES = {  # command line (DRAFT where the draft goes) -> what it says of the card's target
    "params": (["params", DRAFT, "--no-header"], [f"target {LLAMA} ({FROM_CARD}; --target overrides it)"]),
    "params --json": (["params", DRAFT, "--no-header", "--json"], [f'"target": "{LLAMA}"', '"target_from": "card"']),
    "compare": (
        ["compare", DRAFT, "registry:lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge", "--no-header"],
        [
            f": target {LLAMA} {FROM_CARD} (--target overrides it)",
            f"| {LLAMA} |",
            # the wiring checked against that target, as Compare drafts does
            "reads [2, 16, 29]",
            '"eagle_aux_hidden_state_layer_ids": [4, 16, 28]',
        ],
    ),
    "plan": (["plan", DRAFT], [f"target {LLAMA}, {FROM_CARD}"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_cli_takes_the_target_from_the_drafts_model_card(
    case: str, card_draft: str, empty_db: None, capsys: pytest.CaptureFixture[str]
) -> None:
    args, said = CASES[case]
    done = cli_in_process(capsys, *args)
    assert done.returncode == 0, done.stderr
    for text in said:
        assert text in done.stdout, done.stdout
    assert "none known" not in done.stdout and "target-unknown" not in done.stdout, done.stdout
    assert "cannot be checked without the target" not in done.stdout, done.stdout


@pytest.mark.parametrize("command", ["params", "compare"])
def test_cli_target_option_wins_over_the_model_card(
    command: str, card_draft: str, empty_db: None, capsys: pytest.CaptureFixture[str]
) -> None:
    done = cli_in_process(capsys, command, DRAFT, "--no-header", "--target", "meta-llama/Llama-3.3-70B-Instruct")
    assert done.returncode == 0, done.stderr
    assert "meta-llama/Llama-3.3-70B-Instruct" in done.stdout, done.stdout
    assert FROM_CARD not in done.stdout + done.stderr


def test_params_says_why_an_unreadable_card_target_is_not_used(
    hub: HubEmulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """A base_model the Hub has no config for: the target stays unknown and the line says why and what to do."""
    hub.add_model(DRAFT, CONFIG, card=CARD.replace(LLAMA, "walkm/no-such-target"))
    done = cli_in_process(capsys, "params", DRAFT, "--no-header")
    assert done.returncode == 0, done.stderr
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("target"))
    assert line.startswith("target: none known; its model card names walkm/no-such-target as base_model"), line
    assert "give --target" in line, line
