"""Compare's engine rows open on your draft once it can be read (walk AZ, minor).

Walk AZ opened Compare with its private draft before typing the Hub token: the draft had no verdict, and the
"Engine rows ... of draft" pick landed on the published draft. After the token made the draft readable, the pick
stayed there, with nothing saying "(your draft)".
"""

from __future__ import annotations

from comparelib.models import registry
from tests.fixtures import eagle3_tensors, routed_compare
from tests.hub_emulator import HubEmulator

DRAFT = "l70lab/llama33-70b-eagle3"
TARGET = "meta-llama/Llama-3.3-70B-Instruct"
PUBLISHED = "lmsys/SGLang-EAGLE3-Llama-3.3-70B-Instruct-SpecForge"


def test_the_engine_rows_follow_your_draft_once_the_token_reads_it(hub: HubEmulator) -> None:
    cfg = dict(registry.get_draft(PUBLISHED).config)
    hub.add_model(
        DRAFT,
        cfg,
        tensors=eagle3_tensors(8192, 28672, 128256, 32000, kv_dim=1024),
        card=f"---\nbase_model: {TARGET}\n---\n",
        private=True,
    )
    at = routed_compare(DRAFT, m=[f"registry:{PUBLISHED}", DRAFT], target=TARGET)
    pick = at.selectbox(key="compare_serve_detail")
    assert not pick.value.endswith("(your draft)"), pick.options  # unread without the token: no rows of it
    at.sidebar.text_input(key="hub_token").set_value(hub.token).run()
    assert not at.exception, at.exception
    pick = at.selectbox(key="compare_serve_detail")
    assert pick.value.startswith(DRAFT) and pick.value.endswith("(your draft)"), (pick.value, pick.options)
    # a pick of another draft, made while yours is listed, holds
    other = next(o for o in pick.options if not o.endswith("(your draft)"))
    pick.set_value(other).run()
    at.run()
    assert at.selectbox(key="compare_serve_detail").value == other
