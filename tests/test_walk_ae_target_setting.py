"""Walk AE (E3): Acceptance vs data said "To reach 3.172 on GSM8K at steps=3,topk=1,draft=4,bs=8,sglang": the fit's
setting, where the figure's source (AQ-MedAI/Kimi-K26-eagle3's registry result) states no engine and no batch size.
The walk's data: tests/test_walk_ae.py."""

from __future__ import annotations

import pytest

from tests.fixtures import page_text
from tests.hub_emulator import HubEmulator
from tests.test_walk_ae import _scaling


@pytest.mark.parametrize(
    ("key", "against", "said"),
    [
        (
            "steps=3,topk=1,draft=4",
            "steps=3,topk=1,draft=4,bs=8,sglang",
            "steps=3,topk=1,draft=4 (engine and batch size not stated)",
        ),
        (
            "steps=3,topk=1,draft=4,sglang",
            "steps=3,topk=1,draft=4,bs=8,sglang",
            "steps=3,topk=1,draft=4,sglang (batch size not stated)",
        ),
        (
            "steps=3,bs=1,vllm",
            "steps=3,topk=1,draft=4,bs=8,sglang",
            "steps=3,bs=1,vllm (topk and draft tokens not stated)",
        ),
        (
            "steps=3,topk=1,draft=4,bs=8,sglang",
            "steps=3,topk=1,draft=4,bs=8,sglang",
            "steps=3,topk=1,draft=4,bs=8,sglang",
        ),
        ("steps=3,topk=1,draft=4", None, "steps=3,topk=1,draft=4 (engine and batch size not stated)"),
        ("unspecified", None, "a setting its source does not state"),
    ],
)
def test_a_setting_its_source_does_not_state_is_said_not_filled_in(key: str, against: str | None, said: str) -> None:
    from comparelib.analysis import verdicts

    assert verdicts.setting_as_stated(key, against) == said


def test_the_target_is_said_at_its_own_setting_beside_the_fits(hub: HubEmulator) -> None:
    fit_key = "steps=3,topk=1,draft=4,bs=8,sglang"  # the fittable setting of the same chain the page points to
    at = _scaling(hub, fit_key)
    text = page_text(at)
    assert at.number_input(key="sc_target").value == pytest.approx(3.172)
    assert f"To reach 3.172 on GSM8K at {fit_key}" not in text, text
    assert (
        "To reach 3.172 on GSM8K, published at steps=3,topk=1,draft=4 (engine and batch size not stated), you need "
        f"about 2.6M samples by the log-linear fit at {fit_key} (acceptance linear in log samples" in text
    ), text
    # a target typed in is the user's: said at the fit's setting, as before
    at.number_input(key="sc_target").set_value(3.0).run()
    assert f"To reach 3 on GSM8K at {fit_key} you need about" in page_text(at)
