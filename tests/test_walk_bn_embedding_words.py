"""Walk BN (a minor): Overview said "Both carry the same 163,840,000-parameter embedding" of a draft checkpoint that
stores none and of a reference that stores none (each uses the target's). The sentence now says which stores it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from comparelib.analysis import overview
from comparelib.models import comparison, params

REFERENCE = "yuhuili/EAGLE3-Vicuna1.3-13B"  # its EAGLE-3 checkpoint stores no embedding (the registry's spec)


def _entry(stored: bool | None) -> comparison.Entry:
    """The reference's entry, its checkpoint header read as holding the embedding or not (``None``: no header read,
    a config alone, as Overview reads a draft)."""
    entry = comparison.load_entry(comparison.registry_source(REFERENCE), with_header=False, with_card=False)
    if stored is None:
        return entry
    held = entry.count.excluding_embedding + (entry.count.embedding if stored else 0)
    header = params.CheckpointReport(
        param_elements=held, buffer_elements=0, missing=[], unexpected=[], shape_mismatches=[], matches_config=True
    )
    return replace(entry, checkpoint=header)


CASES = [
    # own stores it, the reference stores it, words said, words not said
    (False, False, "Neither checkpoint stores its embedding: both count the target's 163,840,000-parameter", "carry"),
    (True, True, "Both carry the same 163,840,000-parameter embedding (32,000 x 5,120)", "Neither"),
    (True, False, f"(our draft stores it, {REFERENCE} uses the target's)", "carry"),
    (False, True, f"({REFERENCE} stores it, our draft uses the target's)", "carry"),
]


@pytest.mark.parametrize(("own_stored", "ref_stored", "said", "not_said"), CASES)
def test_the_embedding_is_carried_only_where_a_checkpoint_stores_it(
    own_stored: bool, ref_stored: bool, said: str, not_said: str
) -> None:
    facts = overview.size_facts(_entry(own_stored), _entry(ref_stored), "our draft", REFERENCE)
    assert said in facts.sentence, facts.sentence
    assert not_said not in facts.sentence, facts.sentence
    assert "adds equally to both totals" in facts.sentence, facts.sentence


@pytest.mark.parametrize(
    ("own_stored", "ref_stored", "said"),
    [
        (None, None, "Both count the same 163,840,000-parameter embedding (32,000 x 5,120)"),
        (True, None, "(our draft stores it; the other's checkpoint was not read here)"),
    ],
)
def test_a_checkpoint_not_read_is_not_said_to_store_or_lack_it(
    own_stored: bool | None, ref_stored: bool | None, said: str
) -> None:
    """Walk BU 1: Overview, reading configs alone, said "Neither checkpoint stores its embedding" of a SpecForge
    draft whose header holds embed_tokens (Compare, which reads it, counted it stored)."""
    facts = overview.size_facts(_entry(own_stored), _entry(ref_stored), "our draft", REFERENCE)
    assert said in facts.sentence, facts.sentence
    assert "Neither" not in facts.sentence and "carry" not in facts.sentence, facts.sentence
    assert "adds equally to both totals" in facts.sentence, facts.sentence
