"""A reference whose training data is only partly counted is compared as "at least" that much, never as unknown.

Walk P: yuhuili/EAGLE3-DeepSeek-R1-Distill-LLaMA-8B lists "~532K + OpenThoughts-114k-math (size of math subset not
stated)". Overview said "No real gap ... Not known yet: it publishes no training volume" beside a 3,003-sample draft:
a gap of at least 177x was never named.
"""

from __future__ import annotations

from comparelib.models import registry
from tests.fixtures import page_app, page_text

R1 = "yuhuili/EAGLE3-DeepSeek-R1-Distill-LLaMA-8B"


def test_the_registry_keeps_the_counted_part_as_a_lower_bound_only() -> None:
    d = registry.get_draft(R1)
    assert (d.train_samples, d.train_samples_min) == (None, 532_000)  # never a fit's point: train_samples stays None


def test_overview_names_the_data_gap_as_at_least() -> None:
    at = page_app("pages/overview.py", timeout=90)
    at.query_params["draft"] = "registry:lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge"
    at.query_params["draft_samples"] = "3003"
    at.run()
    at.selectbox(key="ov_ref").set_value(R1).run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert "publishes no training volume" not in text, text
    assert "The largest gap is training data: 3K samples against at least 532K (at least 177x fewer)." in text, text
    assert f"{R1} at least [532K]" in text and "(published: ~532K + OpenThoughts-114k-math" in text, text


def test_a_reference_config_the_registry_only_assumes_names_no_size_gap() -> None:
    """Walk P: "No real gap ... size (within 0%)" against a draft whose config the registry assumes, not reads."""
    assert registry.get_draft(R1).config_confidence.startswith("low")
    at = page_app("pages/overview.py", timeout=90)
    at.query_params["draft"] = "registry:yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"
    at.run()
    at.selectbox(key="ov_ref").set_value(R1).run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert "size (within" not in text, text
    # walk BK3: its repo holds config.json, which is not read (not "publishes no config" / "not published")
    assert f"{R1}'s config is assumed, not the published config.json (not read), so sizes are not compared" in text
    assert f"counted from the configs; {R1}'s is assumed, not the published config.json (not read)" in text, text
