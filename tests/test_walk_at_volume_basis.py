"""Walk AT, finding 1: a reference's training volume that the registry marks as a template guess was called
"published" and drove the headline.

scoutlab's Llama-4-Scout draft, 150,000 samples typed in, against lmsys/SGLang-EAGLE3-Llama-4-Scout-17B-16E-Instruct-
SpecForge, whose registry volume reads "1.4M (template, unverified)" (Compare's export: 'unverified: "1.4M (template,
unverified)"'). Overview said "... 1.4M (published): 9.3x less data." and "The largest gap is training data: 150K
samples against 1.4M (9.3x fewer)."; Acceptance vs data and the plan's more-data row said "reached it with its 1.4M
training samples (its published volume)". Each must say what the registry says the figure is.
"""

from __future__ import annotations

from typing import Any

from comparelib.analysis import overview, verdicts
from comparelib.models import comparison, registry

TARGET = "meta-llama/Llama-4-Scout-17B-16E-Instruct"
TEMPLATE = "lmsys/SGLang-EAGLE3-Llama-4-Scout-17B-16E-Instruct-SpecForge"  # "1.4M (template, unverified)"
PUBLISHED = "lmsys/sglang-EAGLE3-Llama-4-Scout-17B-16E-Instruct-v1"  # "320K", stated on its card
DRAFT = "scoutlab/scout-eagle3"


def test_the_registry_words_a_template_volume_as_one() -> None:
    assert comparison.volume_doubt(registry.get_draft(TEMPLATE)) == "a template figure, unverified"
    assert comparison.volume_doubt(registry.get_draft(PUBLISHED)) == ""
    # approximate as the card states it ("~532K") is still the card's own figure
    assert comparison.volume_doubt(registry.get_draft("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B")) == ""
    assert comparison.volume_doubt(registry.get_draft("zhuyksir/EAGLE3-gpt-oss-20b-bf16")) == (
        "read from its dataset's name, not stated"
    )


def _summary(reference: str, volume: int = 150_000) -> Any:
    from comparelib.analysis import summary
    from comparelib.models.draft import DraftTarget, OwnDraft

    draft = OwnDraft(source=DRAFT, samples=volume)
    return summary.summarise(
        draft,
        None,
        registry.get_draft(reference),
        reference,
        [],
        [],
        target=DraftTarget(TARGET, "named"),
        suggested=overview.Reference(reference, "", ""),
    )


def test_overview_does_not_call_a_template_volume_published() -> None:
    said = _summary(TEMPLATE)
    line = next(x for x in said.lines if x.startswith("- **Training volume:**"))
    assert "(published)" not in line, line
    assert f'{TEMPLATE} 1.4M (unverified: "1.4M (template, unverified)"): 9.3x less data.' in line, line
    assert said.answer.gap == "training data"
    assert (
        "The largest gap is training data: 150K samples against 1.4M (9.3x fewer; the 1.4M is a template figure, "
        "unverified)."
    ) in said.headline, said.headline


def test_a_published_volume_is_still_called_published() -> None:
    said = _summary(PUBLISHED, 30_000)
    line = next(x for x in said.lines if x.startswith("- **Training volume:**"))
    assert f"{PUBLISHED} 320K (published): 11x less data." in line, line
    assert "The largest gap is training data: 30K samples against 320K (11x fewer)." in said.headline, said.headline


def test_the_plateau_headline_says_so_too() -> None:
    _, sentence = overview.largest_gap(
        data_ratio=1_400_000 / 150_000,
        size_ratio=None,
        accept_ratio=None,
        own_volume=150_000,
        ref_volume=1_400_000,
        curve_verdict="plateau",
        ref_doubt="a template figure, unverified",
    )
    assert "although the reference used more (150K samples against 1.4M, a template figure, unverified)" in sentence


def _measured(draft: str, volume: float) -> verdicts.MeasuredFigure:
    return verdicts.MeasuredFigure(3.05, 10, draft, "SGLang, num_steps 3, batch 1", None, volume)


def test_acceptance_vs_data_and_the_plan_name_the_basis() -> None:
    sentence = verdicts.measured_off_trend(_measured(TEMPLATE, 1_400_000), "gsm8k")
    assert sentence is not None
    assert "its published volume" not in sentence, sentence
    assert f"{TEMPLATE} reached it with its 1.4M training samples (a template figure, unverified)" in sentence
    kept = verdicts.measured_off_trend(_measured(PUBLISHED, 320_000), "gsm8k")
    assert kept is not None and "with its 320K training samples (its published volume)" in kept, kept


def test_the_volume_gap_names_the_basis() -> None:
    v = verdicts.gap_verdict(150_000, TEMPLATE)
    assert "the 1.4M (a template figure, unverified) of the published draft" in v.sentence, v.sentence


def test_another_targets_reference_says_so_too() -> None:
    a = overview.answer(
        None, registry.get_draft(TEMPLATE), [], 150_000.0, own_target="meta-llama/Llama-3.1-8B-Instruct", draft=DRAFT
    )
    assert a.gap == ""
    assert "9.3x less training data (150K samples against 1.4M, a template figure, unverified)" in a.gap_sentence


def test_the_passes_caveat_says_a_template_volume_is_one() -> None:
    """Walk AT1's fixer left passes_caveat saying "against 1.4M" bare where the headline qualified it."""
    from types import SimpleNamespace

    from comparelib.analysis import overview

    read = SimpleNamespace(volume=1_600_000.0, unique=400_000.0, words=lambda: "your log reads them as 4 passes")
    said = overview.passes_caveat(read, 1_400_000.0, "", ref_doubt="a template figure, unverified")
    assert "(1.6M samples against 1.4M, a template figure, unverified)" in said, said
    assert "a template figure" not in overview.passes_caveat(read, 1_400_000.0, "")
