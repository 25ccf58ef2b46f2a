"""Walk BT 2: before the token was typed, Acceptance vs data said "your draft names no target" of a private draft
whose card names one (it could not be read); Overview and Compare said it could not be read. The page now says
that its target is not known because the draft could not be read."""

from __future__ import annotations

from tests.fixtures import QWEN3_8B_EAGLE3, page_app, page_text

DRAFT = "tealfin/private-eagle3"


def test_an_unread_draft_is_not_said_to_name_no_target(hub) -> None:  # noqa: ANN001
    hub.add_model(DRAFT, QWEN3_8B_EAGLE3, private=True)
    at = page_app("../pages/scaling.py", timeout=120)
    at.query_params["draft"] = f"{hub.url}/{DRAFT}"
    at.run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert "your draft names no target" not in text, text[:3000]
    assert "your draft could not be read, so its target is not known" in text, text[:3000]
    assert "Default 3.271: AQ-MedAI/Kimi-K2-Instruct-eagle3" in text  # the target's caption says it too
    assert text.count("could not be read, so its target") >= 2, text[:3000]
