"""Walk AE (E1): Compare drafts left the target field empty on the page the draft was pasted on: the field, drawn
before for the built-in example, kept its empty value, and the lint said 'target-unknown ... give the target model' and
Will it serve? 'no verdict', where Overview and Dataset audit named the card's target (moonshotai/Kimi-K2.6, the
base_model of the gated draft's card). The walk's data: tests/test_walk_ae.py."""

from __future__ import annotations

import pytest

from tests.fixtures import page_app, page_text
from tests.hub_emulator import HubEmulator
from tests.test_walk_ae import DRAFT, TARGET, _hub


@pytest.mark.parametrize("token_first", [True, False], ids=["token-then-draft", "draft-then-token"])
def test_compare_reads_a_gated_drafts_card_target_on_the_page_it_was_pasted_on(
    hub: HubEmulator, token_first: bool
) -> None:
    _hub(hub)
    at = page_app("pages/compare.py", timeout=180).run()  # the built-in example first, as a fresh browser
    assert not at.exception, at.exception
    if token_first:  # the walk's order
        at.sidebar.text_input(key="hub_token").set_value(hub.token).run()
    at.sidebar.text_input(key="draft_source").set_value(DRAFT)
    at.sidebar.button[0].click().run()  # "Use this draft"
    if not token_first:  # the card is read once the token is there
        at.sidebar.text_input(key="hub_token").set_value(hub.token).run()
    assert not at.exception, at.exception
    assert at.text_input(key="compare_target").value == TARGET
    text = page_text(at) + "\n" + "\n".join(e.value for e in at.error)
    assert "From your draft's model card (its base_model)." in text, text
    assert "target-unknown" not in text, text
    assert "no verdict on whether each engine serves it" not in text, text
    table = at.dataframe[0].value.set_index("draft")
    mine = [d for d in table.index if d.startswith(DRAFT)]
    assert mine and str(table.loc[mine[0], "target"]).startswith(TARGET), table
