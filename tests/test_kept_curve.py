"""A training log's learning curve kept with the draft: a reload, or a colleague opening the share link, sees the
curve and Overview weighs its verdict, as the sender did.

Walks found the curve lived in the browser session only (``app.remember_curve``): Overview said "your training log
has plateaued" to the sender, and the link's reader got the published trend's answer instead.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from comparelib.models import registry
from tests.fixtures import bench_store, page_app, page_text
from tests.hub_emulator import HubEmulator

DRAFT = "acme/llama31-8b-eagle3-kept"
OTHER = "acme/llama31-8b-eagle3-other"
TARGET = "meta-llama/Llama-3.1-8B-Instruct"
CARD = f"---\nbase_model: {TARGET}\ntags:\n- eagle3\n---\n# Llama-3.1-8B EAGLE-3 draft\n"
SCALING = "../pages/scaling.py"
OVERVIEW = "../pages/overview.py"
PLATEAU = "Your training log (Acceptance vs data) has plateaued"
ONLY_KEEPER = "Only the browser session that kept it can forget it"
KEEP_SHOWS_YOURS = "keeping another log shows that one instead, and this one stays stored under it"


def _add_drafts(hub: HubEmulator) -> None:
    cfg: dict[str, Any] = dict(registry.get_draft("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B").config or {})
    cfg.update(architectures=["LlamaForCausalLMEagle3"], max_position_embeddings=131_072)
    for repo in (DRAFT, OTHER):
        hub.add_model(repo, cfg, card=CARD)


def _plateau_log(path: Path) -> Path:
    """A CSV log flat from ~100K samples on (tau_sim ~2.19 over 3 positions)."""
    rows = ["step,samples_seen,acc_0,acc_1,acc_2"]
    for i in range(40):
        seen = (i + 1) * 16_000
        rows.append(f"{i + 1},{seen},{0.6 + 0.1 * (1 - math.exp(-seen / 40_000)):.6f},0.5,0.4")
    path.write_text("\n".join(rows) + "\n")
    return path


def _page(path: str, draft: str | None) -> AppTest:
    """A fresh browser session opening the page's link (the draft in its query), on the Learning curve tab."""
    at = page_app(path, timeout=120)
    if draft is not None:
        at.query_params["draft"] = draft
    at.session_state["sc_tab"] = "Learning curve"
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def _curve_shown(at: AppTest) -> bool:
    return len(at.get("vega_lite_chart")) == 2  # the fit's, plus the learning curve's


def _weighs_plateau(at: AppTest) -> bool:
    return any(PLATEAU in w.value for w in at.warning)


def _buttons(at: AppTest) -> set[str]:
    return {b.key for b in at.button if b.key}


def test_a_kept_log_goes_with_the_drafts_link(hub: HubEmulator, tmp_path: Path) -> None:
    _add_drafts(hub)
    log = _plateau_log(tmp_path / "plateau.csv")
    sender = _page(SCALING, DRAFT)
    assert "lc_attach" not in _buttons(sender)  # nothing loaded, nothing to keep
    sender.text_input(key="lc_path").input(str(log)).run()
    assert not sender.exception and _curve_shown(sender)
    assert "plateau" in page_text(sender)
    sender.button(key="lc_attach").click().run()
    assert not sender.exception and not sender.error, [e.value for e in sender.error]
    said = page_text(sender)
    assert f"Kept with your draft ({DRAFT})" in said, said
    assert "lc_attach" not in _buttons(sender) and "lc_forget" in _buttons(sender)  # kept: offered to forget
    row = bench_store().learning_curve(DRAFT, points=False)
    assert row is not None and row["source"] == "plateau.csv" and row["attached_by"] == "anonymous visitor"
    assert _weighs_plateau(_page(OVERVIEW, DRAFT))

    # a colleague opens the link (a fresh session, no log loaded): Overview weighs the kept log as the sender's did
    log.unlink()  # the log itself is not needed: its curve's points were kept
    colleague = _page(OVERVIEW, DRAFT)
    assert _weighs_plateau(colleague), page_text(colleague)
    tab = _page(SCALING, DRAFT)
    shown = page_text(tab)
    assert _curve_shown(tab), shown
    assert f"Showing the training log kept with your draft ({DRAFT}): plateau.csv, kept on " in shown, shown
    assert "by anonymous visitor" in shown and "Upload a training log" not in shown
    # not theirs to forget: said, and no button (a link's reader once deleted the sender's log for everyone)
    assert ONLY_KEEPER in shown and KEEP_SHOWS_YOURS in shown, shown
    assert "lc_forget" not in _buttons(tab) and "lc_attach" not in _buttons(tab)
    tab.run()
    assert bench_store().learning_curve(DRAFT) is not None and _curve_shown(tab)

    # another draft's link does not get it
    assert not _weighs_plateau(_page(OVERVIEW, OTHER))
    other = _page(SCALING, OTHER)
    assert not _curve_shown(other) and "Upload a training log or give a path" in page_text(other)

    # the sender (their log gone too: the kept curve shown) forgets it: the tab and Overview answer without it
    # again, for everyone
    sender.text_input(key="lc_path").input("").run()
    assert f"Showing the training log kept with your draft ({DRAFT})" in page_text(sender)
    assert ONLY_KEEPER not in page_text(sender)
    sender.button(key="lc_forget").click().run()
    assert not sender.exception and not sender.error, [e.value for e in sender.error]
    assert "lc_forget" not in _buttons(sender) and "Upload a training log or give a path" in page_text(sender)
    tab.run()
    assert not _curve_shown(tab) and "Upload a training log or give a path" in page_text(tab)
    assert bench_store().learning_curve(DRAFT) is None
    assert not _weighs_plateau(_page(OVERVIEW, DRAFT))


def test_a_log_loaded_over_a_kept_one_is_shown_in_its_place(hub: HubEmulator, tmp_path: Path) -> None:
    """A session's own log is shown over the kept one; the tab says another is kept, by whom, and that keeping
    shows this one instead: the other stays stored, and is the draft's again once this one is forgotten."""
    _add_drafts(hub)
    first = _plateau_log(tmp_path / "first.csv")
    at = _page(SCALING, DRAFT)
    at.text_input(key="lc_path").input(str(first)).run()
    at.button(key="lc_attach").click().run()
    first_id = _kept_id()
    second = _plateau_log(tmp_path / "second.csv")
    fresh = _page(SCALING, DRAFT)
    fresh.text_input(key="lc_path").input(str(second)).run()
    said = page_text(fresh)
    assert "first.csv, kept on " in said and "by anonymous visitor" in said, said
    assert ONLY_KEEPER in said and "keeping this log shows yours instead, and theirs stays stored under it" in said, (
        said
    )
    assert "lc_forget" not in _buttons(fresh) and "lc_attach" in _buttons(fresh)
    fresh.button(key="lc_attach").click().run()
    assert not fresh.exception and not fresh.error
    row = bench_store().learning_curve(DRAFT, points=False)
    assert row is not None and row["source"] == "second.csv"
    assert bench_store().learning_curve_by_id(first_id) is not None  # under it, not replaced
    # forgetting its own drops only that: the first session's is the draft's again, still not the second's to forget
    fresh.button(key="lc_forget").click().run()
    assert not fresh.exception and not fresh.error, [e.value for e in fresh.error]
    assert _kept_id() == first_id and "lc_forget" not in _buttons(fresh)
    assert "first.csv, kept on " in page_text(fresh)
    # the first session still may
    at.run()
    at.button(key="lc_forget").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert bench_store().learning_curve(DRAFT) is None


def _kept_id() -> int | None:
    row = bench_store().learning_curve(DRAFT, points=False)
    return None if row is None else int(row["id"])


def _signed_in(email: str) -> AppTest:
    """A fresh browser session signed in as ``email`` (SPECDRAFT_REQUIRE_LOGIN on), on the draft's link."""
    at = page_app(SCALING, timeout=120)
    at.user = {"is_logged_in": True, "email": email}
    at.query_params["draft"] = DRAFT
    at.session_state["sc_tab"] = "Learning curve"
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def test_with_sign_in_the_keeper_may_forget_from_any_session(
    hub: HubEmulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sign-in on: the signed-in visitor who kept a log may forget it from another browser session; another
    signed-in visitor sees who kept it and no Forget button."""
    monkeypatch.setenv("SPECDRAFT_REQUIRE_LOGIN", "1")
    _add_drafts(hub)
    alice = _signed_in("alice@example.com")
    alice.text_input(key="lc_path").input(str(_plateau_log(tmp_path / "p.csv"))).run()
    alice.button(key="lc_attach").click().run()
    row = bench_store().learning_curve(DRAFT, points=False)
    assert row is not None and row["attached_by"] == "alice@example.com"

    bob = _signed_in("bob@example.com")
    said = page_text(bob)
    assert _curve_shown(bob) and "by alice@example.com" in said, said
    assert "Only alice@example.com, signed in, or the browser session that kept it can forget it" in said, said
    assert "lc_forget" not in _buttons(bob)

    again = _signed_in("alice@example.com")  # alice, on another computer
    assert "lc_forget" in _buttons(again)
    again.button(key="lc_forget").click().run()
    assert not again.exception and not again.error, [e.value for e in again.error]
    assert bench_store().learning_curve(DRAFT) is None


@pytest.mark.parametrize("draft", [None, "example"])
def test_the_built_in_example_keeps_no_log(tmp_path: Path, draft: str | None) -> None:
    at = _page(SCALING, draft)
    at.text_input(key="lc_path").input(str(_plateau_log(tmp_path / "p.csv"))).run()
    assert not at.exception and _curve_shown(at)
    assert "lc_attach" not in _buttons(at)


# Runs app.own_curve in AppTest in a fresh interpreter: with no kept curve the curves module (numpy, pandas) is never
# imported, and the store is read once per run however often the pages ask.
SCRIPT = """
import sys

import sqlalchemy as sa
import streamlit as st

import app
from comparelib import settings
from comparelib.models.draft import OwnDraft

store = app.open_store(settings.database_url())
reads = st.session_state.setdefault("reads", [])
if "listening" not in st.session_state:
    def spy(conn, cursor, statement, *rest):
        if "learning_curves" in statement:
            reads.append(statement.split()[0])
    sa.event.listen(store.engine, "before_cursor_execute", spy)
    st.session_state["listening"] = True
draft = OwnDraft.parse("acme/kept-draft")
verdicts = [app.own_curve_verdict(draft) for _ in range(3)]
st.write(f"{verdicts[0]}|{'comparelib.analysis.curves' in sys.modules}|{len(reads)}")
reads.clear()
"""

LIGHT_CHECK = """
import sys
from streamlit.testing.v1 import AppTest

at = AppTest.from_file(sys.argv[1], default_timeout=60).run()
assert not at.exception, at.exception
assert at.markdown[0].value == "None|False|1", at.markdown[0].value  # one look-up, no curves module

from comparelib import settings
from comparelib.analysis import curves
from comparelib.live.store import Store

acc = (0.7, 0.5, 0.4)
points = [curves.CurvePoint(i, 16_000.0 * i, "train", acc, curves.tau_sim(acc)) for i in range(1, 30)]
flat = curves.analyse(points)
Store(settings.database_url()).save_learning_curve(draft="acme/kept-draft", source="f.csv", **curves.to_stored(flat))
at.run()
assert at.markdown[0].value == f"{flat.verdict}|True|2", at.markdown[0].value  # the look-up, and its points once
at.run()
assert at.markdown[0].value == f"{flat.verdict}|True|1", at.markdown[0].value  # the rebuilt curve is cached
print("ok")
"""


def test_a_kept_curve_is_read_once_per_run_and_loads_curves_only_when_kept(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    script = tmp_path / "own_curve_page.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, SPECDRAFT_HOME=str(tmp_path / "home"), HF_HUB_OFFLINE="1", PYTHONPATH=str(root))
    out = subprocess.run(
        [sys.executable, "-c", LIGHT_CHECK, str(script)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stdout[-1000:] + out.stderr[-3000:]
