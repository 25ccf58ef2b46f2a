"""Walk R: the Hub token typed after a private draft was pasted. The draft's target became readable, Overview's
suggested reference changed with it, yet the page kept the one it had suggested before (a Kimi-K2 draft for a
Qwen3-235B draft). A suggestion preselected and never picked follows what is now known; a pick the user made holds."""

from __future__ import annotations

import pytest

from tests.fixtures import page_app, qwen3_32b_config, qwen3_32b_eagle3_config
from tests.hub_emulator import HubEmulator

DRAFT = "walkr/qwen3-32b-eagle3"
TARGET = "Qwen/Qwen3-32B"


def _overview(hub: HubEmulator):  # type: ignore[no-untyped-def]
    hub.add_model(TARGET, qwen3_32b_config())
    cfg = qwen3_32b_eagle3_config({"eagle_aux_hidden_state_layer_ids": [1, 31, 60]})
    hub.add_model(DRAFT, cfg, card=f"---\nbase_model: {TARGET}\n---\n# draft\n", private=True)
    at = page_app("../pages/overview.py", timeout=90)
    at.query_params["draft"] = DRAFT
    at.run()
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize("picked", [False, True])
def test_the_suggested_reference_follows_the_token_unless_picked(hub: HubEmulator, picked: bool) -> None:
    at = _overview(hub)
    before = at.session_state["ov_ref"]
    if picked:  # the user's own pick, before the token
        other = next(o for o in at.selectbox(key="ov_ref").options if o != before)
        at.selectbox(key="ov_ref").set_value(other).run()
        before = other
    at.sidebar.text_input(key="hub_token").set_value(hub.token).run()
    assert not at.exception, at.exception
    after = at.session_state["ov_ref"]
    if picked:
        assert after == before
    else:
        assert after != before, after
        assert "Qwen3" in after or "qwen3" in after.lower(), after
