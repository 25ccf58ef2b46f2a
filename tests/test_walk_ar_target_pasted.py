"""Walk AR (minor): with a target set on Compare drafts, the target pasted as your draft (by mistake) first read
"Target moonshotai/Kimi-K2.6, the target from Compare drafts: your draft's config names none and no run of it names
one", above the warning that the pasted model is that target. A target model has no target of its own to find."""

from __future__ import annotations

import json

from comparelib.models import architectures
from tests.fixtures import page_app


def test_a_target_pasted_as_your_draft_gets_no_target_sentence(hub) -> None:  # type: ignore[no-untyped-def]
    cfg = architectures.known_target("moonshotai/Kimi-K2-Instruct")
    hub.add_model("moonshotai/Kimi-K2-Instruct", json.loads(json.dumps(cfg)))
    at = page_app("../pages/overview.py", timeout=60)
    at.query_params["draft"] = "moonshotai/Kimi-K2-Instruct"
    at.query_params["draft_target"] = "moonshotai/Kimi-K2-Instruct"  # set on Compare drafts before
    at.run()
    assert not at.exception, at.exception
    shown = " ".join([w.value for w in at.warning] + [c.value for c in at.caption] + [i.value for i in at.info])
    assert "moonshotai/Kimi-K2-Instruct is a target model" in shown, shown
    assert "the target from Compare drafts" not in shown, shown
    assert "no run of it names one" not in shown, shown
