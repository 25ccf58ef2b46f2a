"""Walk BW 6 (low): after "Use it as the target on Compare drafts" (the target pasted as your draft, now in the target
field), Compare still warned that the model is a target, told the user to use it as the target, and offered the same
button. Once the target field holds it, Compare says so and offers nothing to do again."""

from __future__ import annotations

import json
from pathlib import Path

from comparelib.models import architectures
from tests.test_compare_target_carry import COMPARE, LLAMA_TARGET, _folder, _router


def test_a_target_already_in_the_target_field_is_not_offered_again(tmp_path: Path) -> None:
    target_dir = _folder(tmp_path / "llama-8b", json.loads(json.dumps(architectures.known_target(LLAMA_TARGET))))
    at = _router(target_dir, m=[str(target_dir)], target=str(target_dir))
    at.switch_page(COMPARE).run()
    assert not at.exception, at.exception
    assert not [b for b in at.button if b.label.startswith("Use ") and b.label.endswith("as the target")]
    said = " ".join(w.value for w in (*at.warning, *at.info))
    assert "use this model as the target" not in said, said
    assert "is the target now" in said, said


def test_a_target_pasted_among_the_drafts_is_still_offered(tmp_path: Path) -> None:
    target_dir = _folder(tmp_path / "llama-8b", json.loads(json.dumps(architectures.known_target(LLAMA_TARGET))))
    at = _router(target_dir, m=[str(target_dir)])
    at.switch_page(COMPARE).run()
    assert not at.exception, at.exception
    assert [b for b in at.button if b.label == "Use llama-8b as the target"]
