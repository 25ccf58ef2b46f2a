"""Walk BX 2 (low): moonshotai/Kimi-K2.5 pasted as "your draft" with no token typed read only "could not be read: model
moonshotai/Kimi-K2.5 is gated. Accept its terms ...", and Overview answered against a Kimi-K2-Instruct draft; with
the token it said the model is a target and named its drafts. The app ships this target's config and its drafts: a
known target is recognised without the Hub, as when the Hub is offline, and said to be read from the shipped config."""

from __future__ import annotations

import json

from comparelib.models import architectures, comparison
from tests.fixtures import page_app

TARGET = "moonshotai/Kimi-K2.5"


def test_a_gated_known_target_is_read_from_the_shipped_config(hub) -> None:  # noqa: ANN001
    hub.add_model(TARGET, json.loads(json.dumps(architectures.known_target(TARGET))), gated=True)
    entry = comparison.load_entry(TARGET, with_header=False)
    assert entry.spec.role == "target"
    note = comparison.role_note(entry) or ""
    assert "gated" in note and "shipped with the app" in note, note
    assert "was not reached" not in note, note


def test_overview_calls_a_gated_known_target_a_target_without_a_token(hub) -> None:  # noqa: ANN001
    hub.add_model(TARGET, json.loads(json.dumps(architectures.known_target(TARGET))), gated=True)
    at = page_app("../pages/overview.py", timeout=60)
    at.query_params["draft"] = TARGET
    at.run()
    assert not at.exception, at.exception
    warned = " ".join(w.value for w in at.warning)
    assert f"{TARGET} is a target model" in warned and "not a draft" in warned, warned
    assert "lightseekorg/kimi-k2.5-eagle3" in warned, warned  # its drafts, not Kimi-K2-Instruct's
    errors = " ".join(e.value for e in at.error)
    assert "could not be read" not in errors, errors
