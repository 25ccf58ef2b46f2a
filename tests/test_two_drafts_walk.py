"""Two drafts of one team in one run group: a user walking the app with acme/llama31-8b-eagle3-v1 and -v2 (both
Llama-3.1-8B EAGLE-3) found:

A. a training log loaded for v2 stayed on Acceptance vs data's "Learning curve" tab after the sidebar's draft was
   switched to v1 (and was then remembered as v1's log), while Overview dropped it;
B. a share link to the private v2 opened without a Hub token gave Overview only "not found ... set HF_TOKEN" while
   Acceptance vs data answered from the runs, and Compare drafts named the target as what could not be read;
C. Dataset audit's message for a private or gated tokenizer named HF_TOKEN (a server setting), not the sidebar's
   "Hub token (this session only)" field;
D. Overview said a rising training log's verdict twice, and named a tree in its other pairs without its draft tokens
   ("num_steps=3, tree topk=4") where "Chains or trees" right below said "num_steps 3, topk 4, 8 draft tokens".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from comparelib.models import registry
from tests.fixtures import bench_config, bench_store, page_app, page_text, routed_compare, store_run, stored_run
from tests.hub_emulator import HubEmulator

V1 = "acme/llama31-8b-eagle3-v1"
V2 = "acme/llama31-8b-eagle3-v2"
TARGET = "meta-llama/Llama-3.1-8B-Instruct"
CARD = f"---\nbase_model: {TARGET}\ntags:\n- eagle3\n---\n# Llama-3.1-8B EAGLE-3 draft\n"


def _draft_config() -> dict[str, Any]:
    """A SpecForge EAGLE-3 config for Llama-3.1-8B-Instruct (it names no target: the card does)."""
    cfg = dict(registry.get_draft("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B").config or {})
    cfg.update(architectures=["LlamaForCausalLMEagle3"], max_position_embeddings=131_072)
    return cfg


def _add_drafts(hub: HubEmulator, **kw: Any) -> None:
    for repo in (V1, V2):
        hub.add_model(repo, _draft_config(), card=CARD, **kw)


def _use(at: AppTest, source: str) -> AppTest:
    """Choose the draft in the sidebar, as a user does, and press "Use this draft"."""
    at.sidebar.text_input(key="draft_source").set_value(source)
    at.sidebar.button[0].click().run()
    assert not at.exception, at.exception
    return at


# ------------------------------------------------------------------ A. a training log belongs to its draft

LOG = "step,acc_0,acc_1\n" + "".join(f"{s},{0.9 - 0.4 / s:.4f},0.6\n" for s in range(1, 13))


def _curve_shown(at: AppTest) -> bool:
    return len(at.get("vega_lite_chart")) == 2  # the fit's, plus the learning curve's


@pytest.mark.parametrize("how", ["upload", "path"])
def test_a_training_log_loaded_for_v2_stays_with_v2(
    hub: HubEmulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    import app

    root = tmp_path / "root"
    root.mkdir()
    monkeypatch.setenv("SPECDRAFT_DATA_ROOT", str(root))
    (root / "v2.csv").write_text(LOG)
    _add_drafts(hub)
    at = page_app("../pages/scaling.py", timeout=90)
    at.session_state["sc_tab"] = "Learning curve"
    _use(at.run(), V2)
    if how == "upload":
        at.file_uploader[0].set_value(("v2.csv", LOG.encode(), "text/csv")).run()
    else:
        at.text_input(key="lc_path").input("v2.csv").run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    assert _curve_shown(at)
    assert set(at.session_state[app.CURVE_STATE]) == {f"hub:{V2.lower()}"}  # a Hub draft by its identity

    _use(at, V1)  # another draft: its page shows no log, and v2's is not taken for v1's
    assert not at.error, [e.value for e in at.error]
    assert not _curve_shown(at), page_text(at)
    assert "Upload a training log or give a path" in page_text(at)
    assert at.text_input(key="lc_path").value == ""
    assert at.file_uploader[0].value is None
    assert set(at.session_state[app.CURVE_STATE]) == {f"hub:{V2.lower()}"}  # a Hub draft by its identity

    _use(at, V2)  # back to v2: the log loaded for it comes back
    assert not at.error, [e.value for e in at.error]
    assert _curve_shown(at), page_text(at)
    if how == "path":
        assert at.text_input(key="lc_path").value == "v2.csv"
        return
    assert "Using v2.csv, uploaded for this draft earlier in this session." in page_text(at)
    assert len([p for p in (root / "uploads").rglob("*") if p.is_file()]) == 1
    at.button(key="lc_forget_upload").click().run()  # dropped for good: deleted, and no curve
    assert not at.exception, at.exception
    assert not _curve_shown(at) and "Upload a training log or give a path" in page_text(at)
    assert [p for p in (root / "uploads").rglob("*") if p.is_file()] == []


# ------------------------------------------------------------------ C. the audit points at the sidebar's token field

AUDIT = "../pages/audit.py"


@pytest.mark.parametrize(
    ("case", "token", "needles"),
    [
        (
            "private-tok",
            None,
            ("The tokenizer could not be read: ", "shows no model acme/private-tok without a token", "private"),
        ),
        ("gated-tok", None, ("The tokenizer could not be read: model acme/gated-tok is gated.", "/acme/gated-tok)")),
        ("gated-tok", "ungranted", ("model acme/gated-tok is gated and the Hub token in use has not been granted",)),
        ("private-chat", None, ("The dataset could not be read: ", "shows no dataset acme/private-chat")),
    ],
)
def test_a_private_or_gated_tokenizer_points_at_the_sidebars_token_field(
    hub: HubEmulator, tmp_path: Path, case: str, token: str | None, needles: tuple[str, ...]
) -> None:
    """The audit's message named HF_TOKEN, a server setting a visitor cannot set; the page's own field is named."""
    from tests.test_page_audit import _rows, run_audit
    from tests.tokenizer_fixture import build_tokenizer

    data = tmp_path / "train.jsonl"
    data.write_text("\n".join(_rows()) + "\n", encoding="utf-8")
    tok = build_tokenizer(tmp_path / "tok")
    tok_files = {p.name: p.read_bytes() for p in tok.iterdir() if p.is_file()}
    hub.add_repo("acme/private-tok", tok_files, private=True)
    hub.add_repo("acme/gated-tok", tok_files, gated=True)
    hub.add_repo("acme/private-chat", {"data/train.jsonl": data.read_bytes()}, repo_type="dataset", private=True)
    at = page_app(AUDIT, timeout=60).run()
    import app

    assert at.sidebar.text_input(key="hub_token").label == app.TOKEN_FIELD  # the field the message names
    if token:
        at.sidebar.text_input(key="hub_token").set_value(hub.ungranted_token).run()
    if case == "private-chat":
        run_audit(at, "acme/private-chat", str(tok))
    else:
        run_audit(at, str(data), f"acme/{case}")
    assert not at.exception, at.exception
    message = " ".join(e.value for e in at.error)
    assert 'the sidebar\'s "Hub token (this session only)" field' in message, message
    assert "HF_TOKEN" not in message, message
    for needle in needles:
        assert needle in message, message


# ------------------------------------------------------------------ B. a private draft opened without a token

GROUP = "llama31-drafts"
REFERENCE = "lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge"  # Overview's reference for the target


def _store_group() -> dict[str, int]:
    """The team's group as the bench page stores it (SGLang, batch 1): a baseline, v1 and v2 at num_steps 3."""
    store = bench_store()
    ids: dict[str, int] = {}
    for name, draft, steps, tok_s, al in (
        ("base", None, None, 90.0, None),
        ("v1", V1, 3, 150.0, 2.6),
        ("v2", V2, 3, 162.0, 2.9),
    ):
        cfg = bench_config("sglang", TARGET, steps, draft=draft, topk=1 if steps else None, ndt=4 if steps else None)
        summary = {"requests": 32, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": al}
        ids[name] = store_run(store, cfg, summary, group=GROUP, endpoint="http://sglang:30000")
    return ids


def _overview(**query: str) -> AppTest:
    import streamlit as st

    st.cache_data.clear()
    at = page_app("../pages/overview.py", timeout=90)
    for key, value in {"draft": V2, "draft_group": GROUP, "draft_samples": "250000", **query}.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def test_overview_answers_what_it_can_for_a_private_draft_without_a_token(hub: HubEmulator) -> None:
    _add_drafts(hub, private=True)
    ids = _store_group()
    at = _overview()
    assert not at.error, [e.value for e in at.error]
    top = at.warning[0].value
    assert top.startswith(f"Your draft {V2} could not be read: "), top
    assert "private" in top and 'paste a token that can read it in the sidebar\'s "Hub token (this session only)"' in (
        top.replace("Paste", "paste")
    ), top
    md = "\n".join(m.value for m in at.markdown)
    # its runs, its volume and the published reference for the target its runs were served with still answer
    assert f"run #{ids['v2']}" in md and "Live speed** (measured)" in md, md
    assert "250K samples" in md and REFERENCE in md, md
    assert f"target `{TARGET}` (the model its runs were served with)" in md, md
    assert "not read: its config could not be read (see above), so sizes are not compared" in md, md
    assert "No plan for this draft: the plan needs your draft's config" in page_text(at)

    at.sidebar.text_input(key="hub_token").set_value(hub.token).run()  # the token given: the whole answer
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    assert not any("could not be read" in w.value for w in at.warning)
    assert "**Size outside the embedding**" in "\n".join(m.value for m in at.markdown)


def test_compare_names_the_private_draft_not_its_target_as_unread(hub: HubEmulator) -> None:
    _add_drafts(hub, private=True)
    _store_group()
    at = routed_compare(V2, GROUP)
    errors = " ".join(e.value for e in at.error) + " ".join(w.value for w in at.warning)
    assert f"Your draft {V2} could not be read: " in errors, errors
    assert 'the sidebar\'s "Hub token (this session only)" field' in errors, errors
    assert f"{TARGET}, could not be read" not in errors, errors  # the target was never the one unread


# ------------------------------------------------------------------ D. said once, and a tree named whole


def _rising_curve():  # type: ignore[no-untyped-def]
    """A learning curve still rising at its last point, as Acceptance vs data keeps it."""
    from comparelib.analysis import curves

    pts = []
    for i in range(40):
        a = 0.92 - 0.5 * (i + 1) ** -0.35
        acc = (a, a * 0.97, a * 0.94)
        pts.append(curves.CurvePoint(i + 1, (i + 1) * 16_000.0, "train", acc, curves.tau_sim(acc)))
    curve = curves.analyse(pts)
    assert curve.verdict == "rising"
    return curve


def test_overview_says_a_rising_log_once() -> None:
    """The headline names the data gap and that the log agrees; the note under it said the same again."""
    at = page_app("../pages/overview.py", timeout=60)
    at.session_state["_own_curve"] = {"example:own-kimi-k2.5-draft": _rising_curve()}
    at.run()
    assert not at.exception, at.exception
    head = at.subheader[0].value
    assert head.startswith("The largest gap is training data") and "still rising" in head, head
    assert page_text(at).count("still rising") == 1, page_text(at)


@pytest.mark.parametrize(
    ("topk", "ndt", "words"),
    [
        (1, 4, "num_steps 3 at"),  # a chain: its steps
        (4, 8, "num_steps 3, topk 4, 8 draft tokens at"),  # a tree: its topk and draft tokens, as Chains or trees
        (4, None, "num_steps 3, topk 4 at"),  # draft tokens not recorded: not guessed
    ],
)
def test_other_pairs_name_a_tree_by_its_draft_tokens(topk: int, ndt: int | None, words: str) -> None:
    from comparelib.analysis import overview, speedup

    runs = [
        stored_run(1, None, 90.0, concurrency=1, draft=V2),
        stored_run(2, 3, 180.0, 2.8, concurrency=1, draft=V2, topk=topk, ndt=ndt),
        stored_run(3, None, 400.0, concurrency=8, draft=V2),
        stored_run(4, 3, 900.0, 2.8, concurrency=8, draft=V2),
    ]
    live = overview.live_facts(runs, draft=V2)
    assert live is not None and (live.run_id, live.baseline_run_id) == (4, 3)
    assert live.others == (f"SGLang EAGLE-3 batch 1, {words} 2.00x (#2/#1)",), live.others
    if topk > 1 and ndt:  # the same words as the tree's in Chains or trees
        assert "topk 4, 8 draft tokens" in speedup.shape_words(runs[1])
