"""Walk AL: Compare said of an EAGLE-3 draft against the EAGLE-1 reference yuhuili/EAGLE-Vicuna-13B-v1.3 (both over
32,000 tokens) "163,840,000 of them (61%) are in the lm_head: an output layer over 32,000 tokens against 32,000": no
difference at all in what it named. The reference has no lm_head of its own (EAGLE-1/2 uses the target's), as
Overview says (b95853e): Compare now says it by the same rule and words (``comparison.heads_differ``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from comparelib.analysis import overview
from comparelib.models import comparison
from tests.fixtures import cli_in_process
from tests.test_walk_al_size import REFERENCE, draft_dir  # noqa: F401 (a fixture: the walk's draft folder)

NO_HEAD = f"{REFERENCE} has no lm_head of its own: an EAGLE-1/2 draft uses the target's"


def _load(source: str) -> comparison.Entry:
    return comparison.load_entry(source, with_header=False, with_card=False)


def test_the_difference_names_the_reference_without_a_head(draft_dir: Path) -> None:  # noqa: F811
    own, ref = _load(str(draft_dir)), _load(comparison.registry_source(REFERENCE))
    said = comparison.difference_sentence(own, ref) or ""
    assert "are in the lm_head" in said, said
    assert "an output layer over 32,000 tokens against 32,000" not in said, said
    assert f"are in the lm_head ({NO_HEAD})." in said, said


def test_compare_and_overview_say_it_in_the_same_words(draft_dir: Path) -> None:  # noqa: F811
    own, ref = _load(str(draft_dir)), _load(comparison.registry_source(REFERENCE))
    size = overview.size_facts(own, ref, "our draft", REFERENCE)
    assert size.heads_differ == comparison.heads_differ(own, ref, "our draft", REFERENCE) == NO_HEAD


def test_the_cli_compare_line(capsys: pytest.CaptureFixture[str], draft_dir: Path) -> None:  # noqa: F811
    out = cli_in_process(capsys, "compare", str(draft_dir), f"registry:{REFERENCE}").stdout
    assert "an output layer over 32,000 tokens against 32,000" not in out, out
    assert NO_HEAD in out, out


def test_another_vocabulary_is_still_said_as_one() -> None:
    """A full-vocabulary head against a 32,000-row draft vocabulary: the rows are named (a guard)."""
    own = _load(comparison.registry_source("AQ-MedAI/Kimi-K2-Instruct-eagle3"))
    ref = _load(comparison.registry_source("lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge"))
    said = comparison.heads_differ(own, ref, own.label, ref.label)
    assert said.startswith("another draft vocabulary: ") or "heads of another width" in said, said
