"""The plan names a target it could not read as named, not as "no target named".

Walk P: the card named deepseek-ai/DeepSeek-R1-Distill-Llama-8B, which was not reachable yet; the caption above said
the target "could not be read" while the plan's note said "the target's parameter count is unknown (no target named)".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from comparelib.analysis import plan
from comparelib.models import comparison, registry

R1 = "deepseek-ai/DeepSeek-R1-Distill-Llama-8B"  # no built-in config, no Hub here: named, not read


@pytest.mark.parametrize(
    ("target", "label", "words"),
    [
        (R1, R1, f"unknown ({R1}: its config could not be read)"),
        (None, None, "unknown (no target named)"),
    ],
)
def test_the_plan_says_whether_the_target_was_named(
    tmp_path: Path, target: str | None, label: str | None, words: str
) -> None:
    cfg = dict(registry.get_draft("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B").config or {})
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    entry = comparison.load_entry(str(tmp_path), with_header=False)
    assert entry.target_count is None
    inputs = plan.inputs_for(entry, target=target, own_samples=3003, own_samples_source="typed in")
    assert inputs.target_label == label
    note = plan.build(inputs).to_json()["cost_model"]["note"]
    assert words in note, note
