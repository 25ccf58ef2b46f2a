"""Walk AT (finding 5): a log rising to 150K samples seen, with a 4,997-sample audit attached, was headlined "still
rising, over about 30 passes of your 5K samples ... it does not show what new data would add", while the page's own
note said 30 passes is "more than 20 epochs, or that volume is of another set". The log records no epochs: 30 is only
a ratio, so the headline says both readings where the page flags it, and asserts passes only where it does not."""

from __future__ import annotations

import pytest

from comparelib.analysis import curves, overview

REF = 1_400_000.0  # the lmsys Scout draft's published volume


def _headline(seen: float, volume: float) -> str:
    """The "training data" headline with a rising log that saw ``seen`` samples, as ``overview.answer`` passes it."""
    name, sentence = overview.largest_gap(
        data_ratio=REF / volume,
        size_ratio=None,
        accept_ratio=1.1,
        own_volume=volume,
        ref_volume=REF,
        curve_verdict="rising",
        curve_passes=seen / volume,
    )
    assert name == "training data", sentence
    return sentence


# samples seen at the log's end, the volume in use, whether the passes reading is asserted, what must be said
CASES = [
    # walk R: 4 passes over 3,000 samples: plausible epochs, said as passes
    (12_000.0, 3_000.0, True, "over about 4 passes of your 3K samples"),
    # the page's note starts past 20 passes: 20 is still read as passes
    (100_000.0, 5_000.0, True, "over about 20 passes of your 5K samples"),
    # walk AT: 150K seen over a 4,997-sample audit, 30.0 times: either reading, neither asserted
    (150_000.0, 4_997.0, False, "Its 150K samples seen are 30 times your 5K samples"),
    # walk M's scale: 90K over 312, 288 times
    (90_000.0, 312.0, False, "Its 90K samples seen are 288 times your 312 samples"),
]


@pytest.mark.parametrize(("seen", "volume", "asserted", "said"), CASES)
def test_a_rising_headline_asserts_passes_only_where_they_are_plausible(
    seen: float, volume: float, asserted: bool, said: str
) -> None:
    sentence = _headline(seen, volume)
    assert said in sentence, sentence
    assert "still rising" in sentence, sentence
    assert ("does not show what new data would add" in sentence and "another set" not in sentence) is asserted, (
        sentence
    )
    if not asserted:  # both readings, and what each says of more data
        assert "passes of your" not in sentence, sentence
        assert "or your" in sentence and "of another set" in sentence, sentence
        assert "more data should help" in sentence, sentence


def _rising_curve(seen_end: float) -> curves.Curve:
    """A 15-point rising log up to ``seen_end`` samples seen, no epochs (walk AT's train_log.csv, train split)."""
    pts = []
    for i in range(1, 16):
        a = 0.52 + 0.045 * i / 15
        acc = (a, a * 0.8, a * 0.6)
        pts.append(curves.CurvePoint(i * 16, seen_end * i / 15, "train", acc, curves.tau_sim(acc)))
    return curves.analyse(pts)


@pytest.mark.parametrize(("seen", "volume"), [(c[0], c[1]) for c in CASES])
def test_the_headline_hedges_exactly_where_the_pages_volume_note_warns(seen: float, volume: float) -> None:
    """The headline and the note beside it (``curves.volume_note``) read the same ratio the same way."""
    curve = _rising_curve(seen)
    assert curve.verdict == "rising"
    warned = curves.volume_note(curve, volume) is not None
    assert ("another set" in _headline(seen, volume)) is warned


# the volume in use beside walk S's overfitting log (last eval point at 25K samples seen), what its note says of it
OVERFIT_CASES = [
    (5_000.0, "Its last eval point, at 25K samples seen, is about 5 passes over your 5K samples, not new data."),
    (
        1_000.0,
        "Its last eval point, at 25K samples seen, is 25 times your 1K samples: about as many passes over them, or "
        "your 1K samples are of another set than the one it trained on.",
    ),
]


@pytest.mark.parametrize(("volume", "said"), OVERFIT_CASES)
def test_an_overfitting_note_asserts_passes_only_where_they_are_plausible(volume: float, said: str) -> None:
    from tests.test_curve_overfitting import WALK_S_TAU, _points

    peak = curves.analyse(_points(WALK_S_TAU)).peak
    assert peak is not None and peak.last_x == 25_000.0
    note = overview.overfitting_words(peak, volume)
    assert said in note, note


@pytest.mark.parametrize(
    ("seen", "volume", "doubted"),
    [(150_000.0, 4_997.0, True), (100_000.0, 5_000.0, False), (1_488_000.0, 150_000.0, False)],
)
def test_the_plans_epochs_past_20_are_doubted(seen: float, volume: float, doubted: bool) -> None:
    """The plan's cost divided 150K samples seen by 30 epochs over a 5K sample of the data, said as fact, while
    Overview's headline gives both readings past 20."""
    from types import SimpleNamespace

    from comparelib.analysis import plan

    inputs = SimpleNamespace(curve_x=[seen / 10, seen], curve_set_aside=False, own_samples=volume, curve_peak=None)
    epochs, text = plan._epochs_for(inputs, None)  # type: ignore[arg-type]
    assert epochs == pytest.approx(seen / volume)
    assert ("or your" in text and "of another set" in text) is doubted, text
