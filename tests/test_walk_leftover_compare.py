"""Two findings left over from the walks (note42: "noticed and left").

1. ``python -m comparelib params`` printed the known-harmless lint findings (rope-mismatch, aux-agree on the
   AQ-MedAI Kimi draft against Kimi-K2) as bare ``[warning]`` lines, beside the ones to act on, while Compare puts
   them in a collapsed "Known harmless (2): published drafts work this way" group under a "Nothing to act on"
   headline. Both now group them through ``comparison.lint_groups`` and ``lint.harmless_title``.
2. A share link opened without a token (a fresh browser session) to a Compare view whose draft is public but whose
   target is a gated Hub repo dropped the draft's whole row (one error naming the target). The draft's own config is
   public: its row stays, and what needs the target (its size, the draft/target ratio) says the target could not be
   read and to paste a Hub token.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from comparelib.models import architectures, comparison, lint
from tests.fixtures import AQ, aq_config, aq_tensors, cli_in_process, page_app
from tests.hub_emulator import HubEmulator

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "compare.py")
KIMI = "moonshotai/Kimi-K2-Instruct"


def test_params_groups_known_harmless_findings_as_compare_does(capsys: pytest.CaptureFixture[str]) -> None:
    done = cli_in_process(capsys, "params", f"registry:{AQ}", "--target", KIMI, "--no-header")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    # before: "[warning] rope-mismatch: ..." on its own line, read as one to act on
    assert not [line for line in lines if line.startswith(("[warning] rope-mismatch", "[info] aux-agree"))], lines
    entry = comparison.load_entry(f"registry:{AQ}", target=KIMI, with_header=False)
    act_on, harmless = comparison.lint_groups(entry)
    assert {f.code for f in harmless} == {"rope-mismatch", "aux-agree"} and not act_on
    title = lint.harmless_title(len(harmless))
    assert title == "Known harmless (2): published drafts work this way"  # the page's expander, word for word
    at = title_index = lines.index(title)
    assert [line.split(":")[0].strip() for line in lines[at + 1 : at + 3]] == [
        f"[{f.severity}] {f.code}" for f in harmless
    ]
    # the headline the page shows above its findings, with where this command lists the harmless ones
    (head,) = [line for line in lines if line.startswith("wiring: ")]
    assert head.startswith("wiring: Nothing to act on") and "2 known-harmless notes are listed below" in head
    assert lines.index(head) < title_index


def test_params_json_and_text_agree_on_what_is_harmless(capsys: pytest.CaptureFixture[str]) -> None:
    done = cli_in_process(capsys, "params", f"registry:{AQ}", "--target", KIMI, "--no-header", "--json")
    data = json.loads(done.stdout)
    assert {f["code"] for f in data["lint"] if f["harmless"]} == {"rope-mismatch", "aux-agree"}


GATED_TARGET = "acme/kimi-gated"
DRAFT = "acme/public-draft"


def _share_link(hub: HubEmulator) -> tuple[AppTest, str]:
    cfg = json.loads(json.dumps(architectures.known_target(KIMI)))
    hub.add_model(GATED_TARGET, cfg, gated=True)
    sha = hub.add_model(DRAFT, aq_config(), tensors=aq_tensors())
    at = page_app(PAGE, timeout=120)  # a fresh browser session: no token
    at.query_params["draft"] = DRAFT
    at.query_params["draft_target"] = GATED_TARGET
    at.query_params["m"] = [DRAFT]
    at.query_params["target"] = GATED_TARGET
    return at, sha


def test_a_share_link_without_token_keeps_the_public_draft_when_its_target_is_gated(hub: HubEmulator) -> None:
    at, sha = _share_link(hub)
    at.run()
    assert not at.exception, at.exception
    assert not [e.value for e in at.error if DRAFT in e.value], [e.value for e in at.error]
    assert at.dataframe, "the draft's row was dropped"
    df = at.dataframe[0].value.set_index("draft")
    row = df.loc[f"{DRAFT}@{sha[:7]}"]
    # its own config is public: its own counts are shown (AQ's embedding is frozen: 163,840 x 7,168)
    assert int(row["frozen"]) == 1_174_405_120 and int(row["trainable"]) == 1_190_948_864
    # what needs the target is marked unavailable, and says how to open it
    assert row["target"] == GATED_TARGET
    assert row["draft_to_target"] is None or row["draft_to_target"] != row["draft_to_target"]  # None or NaN
    why = str(row["target_size_from"])
    assert "gated" in why and "Hub token" in why, why
    said = " ".join(w.value for w in at.warning)
    assert GATED_TARGET in said and "gated" in said and "Hub token" in said, said
    # with the token, the same link reads the target and gives the ratio
    at.sidebar.text_input(key="hub_token").set_value(hub.token).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    df = at.dataframe[0].value.set_index("draft")
    assert df.loc[f"{DRAFT}@{sha[:7]}", "draft_to_target"] > 0
    assert not [w.value for w in at.warning if "gated" in w.value]
