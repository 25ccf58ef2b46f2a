"""Overview's "Use it as the target on Compare drafts" stays in the browser session (walk BH, 2).

It was a markdown link, which opens a new tab: a new session, without the Hub token typed in this one. Walk BH
pasted MiniMax-M2 as its draft, followed the link, typed its private draft back there and got "could not be read ...
without a token". Through the router it is now a page link (same tab, same session), with the target, the published
drafts known for it and the draft in its query.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs

from streamlit.testing.v1 import AppTest

from comparelib.models import architectures
from tests.hub_emulator import HubEmulator

ROOT = Path(__file__).resolve().parents[1]
KIMI = "moonshotai/Kimi-K2-Instruct"


def test_the_target_link_is_a_page_link_in_the_same_session(hub: HubEmulator) -> None:
    hub.add_model(KIMI, json.loads(json.dumps(architectures.known_target(KIMI))))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["draft"] = KIMI
    at.run()
    assert not at.exception, at.exception
    links = [e for e in at.get("page_link") if "Use it as the target on Compare drafts" in e.proto.label]
    assert len(links) == 1, [e.proto for e in at.get("page_link")]
    link = links[0].proto
    assert link.page == "compare", link  # the Compare drafts page, by its url path
    query = parse_qs(link.query_string)
    assert query["target"] == [KIMI] and query["draft"] == [KIMI], query
    assert "registry:AQ-MedAI/Kimi-K2-Instruct-eagle3" in query["m"], query
    # no markdown link (a new tab) beside it
    assert not [m.value for m in at.markdown if "Use it as the target" in m.value]
