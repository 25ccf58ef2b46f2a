"""Walk BX 1 (normal): lightseekorg/kimi-k2.5-eagle3 publishes each benchmark twice, for its published weights (phase
2, ~600K samples) and for a phase-1 checkpoint (~300K samples, "not the published weights"). Both were read as the
published draft's at 600K: Overview's range read "3.12-3.34 (published) ... (GSM8K 3.20, ...)" with 3.12 the
checkpoint's; the plan said "lightseekorg/kimi-k2.5-eagle3 published 3.12 at 600K samples, where this fit gives 3.19"
where the published weights' 3.20 is above that fit; and the setting read as one volume. A checkpoint's figure is now
its own point at its own volume, never the reference's."""

from __future__ import annotations

from comparelib.analysis import overview, scaling
from comparelib.models import registry

REF = "lightseekorg/kimi-k2.5-eagle3"


def test_the_references_figures_are_its_published_weights() -> None:
    mine = [r for r in registry.results_records() if r["hub_id"] == REF]
    gsm = [r["accept_length"] for r in mine if r["benchmark"] == "gsm8k"]
    assert gsm == [3.201], gsm
    assert all(r["train_samples"] == 600_000 for r in mine)
    facts = overview.accept_facts(None, None, REF)
    assert facts.ref_range_words is not None and facts.ref_range_words.startswith("3.20-3.34"), facts.ref_range_words


def test_a_checkpoints_figure_is_a_point_at_its_own_volume() -> None:
    points = scaling.published_points()
    kimi = points[points["draft"].astype(str).str.match(rf"{REF}( \(|$)") & (points["benchmark"] == "gsm8k")]
    by_samples = {
        float(s): (str(d), float(a))
        for s, d, a in zip(kimi["samples"], kimi["draft"], kimi["accept_length"], strict=True)
    }
    assert set(by_samples) == {300_000.0, 600_000.0}, by_samples
    assert by_samples[600_000.0] == (REF, 3.201)
    label, al = by_samples[300_000.0]
    assert al == 3.123 and label != REF and "phase 1 checkpoint" in label, label
