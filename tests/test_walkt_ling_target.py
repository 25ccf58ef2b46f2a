"""Walk T: the target AL is the published draft for your own target, whatever its training volume.

A draft for inclusionAI/Ling-flash-2.0: Overview's reference AQ-MedAI/Ling-Flash-2.0-eagle3 publishes GSM8K 3.44 at
(3,1,4) and no training volume (``train_samples: null``). Acceptance vs data said "Default 3.271: the Kimi-K2 draft
... no published draft for your target reports gsm8k at (3,1,4)" one line above "Chosen as the published draft for
your target ... that publishes an acceptance length", and Overview's plan aimed at 3.271 too: the chooser dropped
every point without a sample count before looking for your target's draft. A target needs an acceptance, not a
volume; where the samples needed are asked for, the reference's missing volume is said.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from comparelib.analysis import plan, scaling
from comparelib.models import comparison, registry

LING = "inclusionAI/Ling-flash-2.0"
REF = "AQ-MedAI/Ling-Flash-2.0-eagle3"
OWN = "walkt-lab/ling-flash-eagle3"
KEY = "steps=3,topk=1,draft=4,bs=8,sglang"


def test_the_registry_entry_is_walk_ts() -> None:
    ref = registry.get_draft(REF)
    assert ref.target_model == LING and ref.train_samples is None and ref.train_tokens is None


CASES = [  # benchmark, chain, the reference's published AL there (the registry's entry)
    ("gsm8k", "(3,1,4)", 3.435),
    ("math500", "(3,1,4)", 3.434),
    ("mtbench", "(3,1,4)", 2.393),
    ("gsm8k", "(7,1,8)", 5.149),
]


@pytest.mark.parametrize(("bench", "chain", "al"), CASES)
def test_the_target_is_your_targets_published_draft_without_a_volume(bench: str, chain: str, al: float) -> None:
    pts = scaling.published_points()
    found = plan.published_target(pts, scaling.family_of(LING), bench, chain, LING, OWN)
    assert found is not None
    value, why = found
    assert value == pytest.approx(al), why
    assert why.startswith(f"{REF} at {chain} on {bench} (the published draft for your target {LING}"), why
    assert "publishes no training volume" in why, why
    assert "not for your target" not in why and "with the most training data" not in why, why


def test_acceptance_vs_data_and_overviews_plan_aim_at_it() -> None:
    """The page's default (``default_target``) and the plan Overview and the CLI build read one rule."""
    pts = scaling.published_points()
    page = plan.default_target(pts, benchmark="gsm8k", setting_key=KEY, target=LING, own=OWN)
    assert page is not None and page[0] == pytest.approx(3.435), page
    entry = comparison.load_entry("example:own-kimi-k2.5-draft", with_header=False, with_card=False)
    inputs = plan.inputs_for(entry, published=pts, own_samples=19_998, own_samples_source="typed in")
    inputs = replace(inputs, target_label=LING, family=scaling.family_of(LING), draft_label=OWN)
    result = plan.build(inputs)
    assert result.target_al == pytest.approx(3.435)
    source = next(s.text for s in result.sources if s.id == result.target_al_source)
    assert source == f"registry: {page[1]}"
    md = next(o for o in result.options if o.kind == "more-data")
    assert f"{REF}'s published GSM8K AL at (3,1,4)" in md.note, md.note
    assert "3.271" not in md.note and "Kimi" not in md.note, md.note
