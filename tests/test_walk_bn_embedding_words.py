"""Walk BN (a minor): Overview said "Both carry the same 163,840,000-parameter embedding" of a draft checkpoint that
stores none and of a reference that stores none (each uses the target's). The sentence now says which stores it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from comparelib.analysis import overview
from comparelib.models import comparison

REFERENCE = "yuhuili/EAGLE3-Vicuna1.3-13B"  # its EAGLE-3 checkpoint stores no embedding (the registry's spec)


def _entry(stored: bool) -> comparison.Entry:
    entry = comparison.load_entry(comparison.registry_source(REFERENCE), with_header=False, with_card=False)
    tensors = tuple(replace(t, stored=stored) if t.component == "embedding" else t for t in entry.spec.tensors)
    return replace(entry, spec=replace(entry.spec, tensors=tensors))


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
