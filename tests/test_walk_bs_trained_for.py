"""Walk BS 3: with another target typed in Compare's Target field, the lead said the user's draft was one "trained
for" that target ("They are drafts trained for different targets (RedHat... for openai/gpt-oss-20b, wbs-oss20b-eagle3
for meta-llama/Llama-3.1-8B-Instruct)"), while its config names openai/gpt-oss-20b and the lint on the same page said
so. The target a draft was trained for is the one it names; the one typed is what it is checked against."""

from __future__ import annotations

import json
from pathlib import Path

from comparelib.models import comparison
from tests.test_compare_default_reference import walk_draft  # noqa: F401 (a fixture: a Llama-3.3-70B draft folder)

PUBLISHED = "yuhuili/EAGLE3-LLaMA3.3-Instruct-70B"


def test_a_typed_target_is_not_said_to_be_what_the_draft_was_trained_for(walk_draft: Path) -> None:  # noqa: F811
    config = json.loads((walk_draft / "config.json").read_text())
    (walk_draft / "config.json").write_text(json.dumps({**config, "draft_vocab_size": 64000}))  # a size to explain
    typed = comparison.load_entry(str(walk_draft), target="meta-llama/Llama-3.1-8B-Instruct")
    assert typed.target_label == "meta-llama/Llama-3.1-8B-Instruct" and typed.target_from == "given"
    published = comparison.load_entry(f"registry:{PUBLISHED}")
    said = " ".join(comparison.headlines([published, typed]))
    assert said, said
    assert "for meta-llama/Llama-3.1-8B-Instruct" not in said, said
    assert "trained for different targets" not in said, said  # both name meta-llama/Llama-3.3-70B-Instruct
