"""Walk BS 4: "The largest gap is size: your draft is 64% the size of the reference in its layers" where size was the
only thing compared: the reference states no training volume and the acceptance was not compared (other prompts).
A gap that is the only one known is said so, with what is not known, never ranked as the largest."""

from __future__ import annotations

from comparelib.analysis import overview

MISSING = ["RedHatAI/gpt-oss-20b-speculator.eagle3 publishes no training volume"]


def test_size_alone_is_the_only_gap_known_not_the_largest() -> None:
    name, said = overview.largest_gap(
        data_ratio=None, size_ratio=136_961_280 / 215_481_600, accept_ratio=None, missing=MISSING
    )
    assert name == "size"
    assert said.startswith("The only gap known is size: your draft is 64% the size of the reference"), said
    assert "largest" not in said, said
    assert f"Not known yet: {MISSING[0]}." in said, said


def test_size_beside_a_data_gap_is_still_ranked() -> None:
    name, said = overview.largest_gap(
        data_ratio=5.6, size_ratio=0.636, accept_ratio=None, own_volume=180_000, ref_volume=1_000_000
    )
    assert name == "training data" and said.startswith("The largest gap is training data"), said
