"""Walk AI3: the FP8 checkpoint's published draft is a draft for your target (Qwen3-Next-80B-A3B-Instruct).

The registry's lmsys/SGLang-EAGLE3-Qwen3-Next-80B-A3B-Instruct-FP8-SpecForge names Qwen/...-Instruct-FP8 as its
target. Overview said "No published draft for Qwen/Qwen3-Next-80B-A3B-Instruct can be compared here; the nearest
is lmsys/...-FP8-SpecForge for Qwen/...-Instruct-FP8 (same family, Qwen3), not a draft for your target", though
the app's own rule for the same model (``draft.model_match``) says "same" for the two names. Reference choice now
matches a reference's target to yours by that rule, and says the checkpoint in words.
"""

from __future__ import annotations

from comparelib.analysis import overview
from comparelib.models.draft import drafts_for_target, model_match

TARGET = "Qwen/Qwen3-Next-80B-A3B-Instruct"
FP8 = "Qwen/Qwen3-Next-80B-A3B-Instruct-FP8"
LMSYS = "lmsys/SGLang-EAGLE3-Qwen3-Next-80B-A3B-Instruct-FP8-SpecForge"


def test_the_fp8_checkpoints_draft_is_chosen_as_a_draft_for_your_target() -> None:
    assert model_match(FP8, TARGET) == "same"  # the app's one rule
    ref = overview.default_reference(overview.reference_choices(), "nextlab/qwen3-next-eagle3", TARGET)
    assert ref.hub_id == LMSYS, ref
    assert "not a draft for your target" not in ref.why and "No published draft" not in ref.why, ref.why
    assert "published for the FP8 checkpoint of your target" in ref.why, ref.why
    # nor is it "the nearest of another target" of the family
    near = overview.nearest_in_family(TARGET, "nextlab/qwen3-next-eagle3")
    assert near is None or near.hub_id != LMSYS, near
    assert LMSYS in drafts_for_target(TARGET)


def test_unlike_reference_says_nothing_unlike_for_the_fp8_checkpoints_draft() -> None:
    said = overview.unlike_reference(TARGET, LMSYS, FP8)
    assert "not for your target" not in said and "No published draft" not in said, said


def test_a_later_release_is_not_your_targets_checkpoint() -> None:
    """Only a quantisation marks a checkpoint of the same target: Qwen3-30B-A3B-Instruct-2507 is another release
    (test_qwen3_walk keeps Tengyunw's draft as Qwen3-30B-A3B's reference)."""
    from comparelib.models.draft import same_target

    assert same_target(FP8, TARGET) and same_target(TARGET, TARGET)
    assert not same_target("Qwen/Qwen3-30B-A3B-Instruct-2507", "Qwen/Qwen3-30B-A3B")


def test_compare_sizes_the_fp8_checkpoints_target_from_the_shipped_bf16_config() -> None:
    """Compare gave the lmsys draft no draft/target ratio ("the config of its target ...-FP8 is not shipped") though
    the app ships Qwen3-Next-80B-A3B-Instruct's config: a quantised checkpoint has the same parameters."""
    from comparelib.models import comparison

    e = comparison.load_entry(comparison.REGISTRY_PREFIX + LMSYS)
    assert e.target_label == FP8, e.target_label
    assert e.ratio is not None and comparison.no_ratio_reason(e) is None, comparison.no_ratio_reason(e)
    assert e.target_size_from and TARGET in e.target_size_from and "FP8 checkpoint" in e.target_size_from, (
        e.target_size_from
    )
    bf16 = comparison.load_entry(comparison.REGISTRY_PREFIX + LMSYS, target=TARGET)
    assert e.target_count == bf16.target_count
