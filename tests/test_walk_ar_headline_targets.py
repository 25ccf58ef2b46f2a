"""Walk AR (noticed while fixing AR3): Compare's "why is ours bigger" sentence paired a Kimi-K2.6 draft with the
Kimi-K2-Instruct one, of the same hidden size and vocabulary, and never said they were trained for different targets.
A published draft for your draft's own target is its match first; a pair for different targets says so."""

from __future__ import annotations

import json
from pathlib import Path

from comparelib.models import comparison
from tests.fixtures import KIMI_EAGLE3

OWN = {**KIMI_EAGLE3, "draft_vocab_size": 163840}  # a SpecForge EAGLE-3 config naming no target, full vocabulary


def _own(tmp_path: Path, target: str) -> comparison.Entry:
    folder = tmp_path / "k26-eagle3"
    folder.mkdir(exist_ok=True)
    (folder / "config.json").write_text(json.dumps(OWN))
    return comparison.load_entry(str(folder), target=target, with_header=False, with_card=False)


def test_a_pair_for_different_targets_says_so(tmp_path: Path) -> None:
    own = _own(tmp_path, "moonshotai/Kimi-K2.5")
    k2 = comparison.load_entry("registry:AQ-MedAI/Kimi-K2-Instruct-eagle3")  # for moonshotai/Kimi-K2-Instruct
    said = comparison.headlines([own, k2])
    assert len(said) == 1, said
    assert "trained for different targets" in said[0], said[0]
    assert "moonshotai/Kimi-K2-Instruct" in said[0] and "moonshotai/Kimi-K2.5" in said[0], said[0]


def test_the_published_draft_for_your_target_is_the_match_first(tmp_path: Path) -> None:
    own = _own(tmp_path, "moonshotai/Kimi-K2.5")
    k2 = comparison.load_entry("registry:AQ-MedAI/Kimi-K2-Instruct-eagle3")
    k25 = comparison.load_entry("registry:AQ-MedAI/Kimi-K25-eagle3")  # for moonshotai/Kimi-K2.5
    assert k25.target_label == "moonshotai/Kimi-K2.5", k25.target_label
    said = comparison.headlines([own, k2, k25])
    assert len(said) == 1 and "AQ-MedAI/Kimi-K25-eagle3" in said[0], said
    assert "different targets" not in said[0], said[0]
