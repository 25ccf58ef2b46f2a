"""Walk AR (finding 3): Compare drafts opens on the reference Overview picks, even when the registry holds no
config of it.

A private Kimi-K2.6 draft opened Compare with "Overview compares your draft with AQ-MedAI/Kimi-K26-eagle3, which is
not listed here: the registry holds no config of it to count. The published defaults are listed instead." and the
Kimi-K2-Instruct, Kimi-K2.5, Llama-3.1-8B and Qwen3 drafts, while Overview counted that reference from its Hub
config (and Compare counted it too once its Hub id was pasted).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from comparelib.analysis import overview
from comparelib.models import registry
from tests.fixtures import KIMI_EAGLE3, page_text, routed_compare
from tests.hub_emulator import HubEmulator

TARGET = "moonshotai/Kimi-K2.6"
DRAFT = "kimilab/k26-eagle3-v3"
REF = "AQ-MedAI/Kimi-K26-eagle3"  # published for Kimi-K2.6; the registry holds no config of it
CARD = f"---\nbase_model: {TARGET}\nlibrary_name: sglang\ntags: [eagle3]\n---\n# {DRAFT}\n"
TARGET_CONFIG = json.loads(
    (Path(__file__).resolve().parents[1] / "comparelib/builtin/targets/moonshotai--Kimi-K2.5.json").read_text()
)


@pytest.fixture(autouse=True)
def _fresh_reads() -> None:
    import streamlit as st

    st.cache_data.clear()


def _setup(hub: HubEmulator, *, reference: bool) -> None:
    hub.add_model(TARGET, TARGET_CONFIG.get("config", TARGET_CONFIG))
    hub.add_model(DRAFT, {**KIMI_EAGLE3, "num_hidden_layers": 1, "intermediate_size": 24576}, card=CARD)
    if reference:
        hub.add_model(REF, KIMI_EAGLE3)


def test_the_registrys_entry_has_no_config_and_overview_picks_it() -> None:
    """The walk's premise: Overview's reference for a Kimi-K2.6 draft is one the registry cannot count."""
    ref = overview.default_reference(overview.reference_choices(), DRAFT, TARGET)
    assert ref.hub_id == REF
    assert registry.get_draft(REF).config is None


def test_compare_lists_overviews_reference_read_from_the_hub(hub: HubEmulator) -> None:
    _setup(hub, reference=True)
    at = routed_compare(DRAFT)
    picks = list(at.multiselect(key="compare_picks").value)
    urls = (at.text_area(key="compare_urls").value or "").splitlines()
    assert picks == [] and urls == [REF, DRAFT], (picks, urls)  # no drafts of other targets
    said = page_text(at)
    assert "not listed here" not in said and "published defaults" not in said, said
    drafts = [str(d) for d in at.dataframe[0].value["draft"]]
    assert len(drafts) == 2 and any(REF in d for d in drafts), drafts


def test_a_reference_the_hub_cannot_give_says_why_and_names_other_targets(hub: HubEmulator) -> None:
    _setup(hub, reference=False)  # the reference is not on this Hub: the read fails
    at = routed_compare(DRAFT)
    said = page_text(at)
    assert f"Overview compares your draft with {REF}" in said, said
    assert "could not be read from the Hub" in said and "not found" in said, said
    assert "the registry holds no config of it to count" not in said, said  # not the reason: the Hub read failed
    picks = list(at.multiselect(key="compare_picks").value)
    assert picks == list(registry.DEFAULT_COMPARISON)
    # the defaults are said to be drafts for other targets, each named
    assert "for other targets" in said, said
    for hub_id in registry.DEFAULT_COMPARISON:
        assert registry.get_draft(hub_id).target_model in said, said
