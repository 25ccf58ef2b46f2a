"""Walk AB (Compare drafts' export, Dataset audit, Live benchmark's form): a local EAGLE-3 folder for
google/gemma-3-27b-it (a target the app ships the config of, its model card's base_model), an audit attached to it,
and vLLM runs in a run group.

1. Compare drafts' export left ``attached_volume`` empty for that draft while an audit was attached to it (its
   ``train_samples`` 348 and ``train_source`` "measured: ..." came from it, and the sidebar said "attached").
2. The same export left ``draft_to_active`` empty for the dense Gemma target while the Kimi (MoE) draft had 3.62%:
   a dense target's token passes through all its parameters (less a vision tower: a text token never enters it).
3. Dataset audit opened with the draft's target in the tokenizer field; where that repo could not be read (gated
   without a token, not on the Hub, offline), "Run audit" failed outright.
4. Live benchmark: Max tokens filled with 64 (then Tab) read 256 again, and the run was stored with 256.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from comparelib.live.store import Store
from comparelib.models import comparison
from tests.fixtures import routed_compare

GEMMA = "google/gemma-3-27b-it"
DRAFT_NAME = "gemma27-eagle3"
H, V, FFN = 5376, 262208, 14336
# the walk's draft (its make_draft.py): SpecForge's EAGLE-3 config for Gemma 3 27B, a full-vocabulary lm_head
GEMMA_DRAFT_CONFIG: dict[str, Any] = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "model_type": "llama",
    "hidden_act": "silu",
    "hidden_size": H,
    "intermediate_size": FFN,
    "num_hidden_layers": 1,
    "num_attention_heads": 32,
    "num_key_value_heads": 16,
    "head_dim": 128,
    "vocab_size": V,
    "draft_vocab_size": V,
    "max_position_embeddings": 8192,
    "rms_norm_eps": 1e-06,
    "rope_theta": 1000000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "target_hidden_size": H,
    "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 30, 58], "use_aux_hidden_state": True},
}
CARD = (
    f"---\nbase_model: {GEMMA}\nlibrary_name: sglang\ntags: [eagle3, speculative-decoding]\n---\n"
    f"# {DRAFT_NAME}\nEAGLE-3 draft for {GEMMA} trained with SpecForge on 60,000 samples.\n"
)


def gemma_draft(root: Path) -> Path:
    """The walk's local draft folder: config.json and a model card naming its target."""
    folder = root / DRAFT_NAME
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(GEMMA_DRAFT_CONFIG), encoding="utf-8")
    (folder / "README.md").write_text(CARD, encoding="utf-8")
    return folder


@pytest.fixture(autouse=True)
def _fresh_reads() -> None:
    import streamlit as st

    st.cache_data.clear()


# ---------------------------------------------------------------- 1. attached_volume for your own draft

AUDIT_SOURCE = "/data/chat.jsonl (rows trained on, with exact duplicates kept)"


def test_compare_export_names_the_audit_attached_to_your_draft(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's table (what its CSV / Markdown / JSON downloads render) says the attached audit in
    ``attached_volume`` where ``train_samples`` uses it, as the sidebar does."""
    db = f"sqlite:///{tmp_path / 'walk.sqlite'}"
    monkeypatch.setenv("SPECDRAFT_DB", db)
    folder = gemma_draft(tmp_path)
    store = Store(db)
    store.save_data_volume(draft=DRAFT_NAME, samples=348, tokens=26_294, source=AUDIT_SOURCE, attached_by="walker")
    store.close()
    at = routed_compare(str(folder), draft_vol=DRAFT_NAME)
    said = " ".join(c.value for c in at.sidebar.caption)
    assert f"Training data in use: 348 samples, attached from Dataset audit as {DRAFT_NAME}" in said, said
    df = at.dataframe[0].value
    own = df[df["draft"].str.startswith(DRAFT_NAME)].iloc[0]
    assert (own["train_samples"], own["train_tokens"]) == (348, 26_294)
    assert own["train_source"] == f"measured: {AUDIT_SOURCE}"
    attached = own["attached_volume"]
    assert isinstance(attached, str), own.to_dict()
    assert attached.startswith(f"348 samples, 26,294 tokens (measured: {AUDIT_SOURCE}, by walker, "), attached
    published = df[df["draft"].str.startswith("AQ-MedAI/Kimi-K2-Instruct-eagle3")].iloc[0]
    assert published["train_source"] == "published" and pd.isna(published["attached_volume"])  # nothing attached


VOLUME_CASES = [
    # draft, what is stored under its name, train_source, attached_volume's start (None: empty)
    ("own draft, one audit", [(348, 26_294, "audit a")], "measured: audit a", "348 samples, 26,294 tokens (measured:"),
    ("own draft, two sources", [(10, None, "audit a"), (348, 26_294, "audit b")], "measured: audit b", "10 samples"),
    ("own draft, nothing", [], None, None),
    ("published, one attached", [(5, None, "team audit")], "published", "5 samples (measured: team audit"),
    ("published, nothing", [], "published", None),
]


@pytest.mark.parametrize(("case", "stored", "source", "attached"), VOLUME_CASES)
def test_attached_volume_lists_every_volume_stored_for_the_draft(
    tmp_path: Path, case: str, stored: list[tuple[int, int | None, str]], source: str | None, attached: str | None
) -> None:
    published = case.startswith("published")
    entry = (
        comparison.load_entry("registry:AQ-MedAI/Kimi-K2-Instruct-eagle3")
        if published
        else comparison.load_entry(str(gemma_draft(tmp_path)), card_target=True)
    )
    store = Store(f"sqlite:///{tmp_path / 'v.sqlite'}")
    for samples, tokens, src in stored:
        store.save_data_volume(draft=entry.label, samples=samples, tokens=tokens, source=src, attached_by="a")
    row = comparison.table([entry], comparison.volumes_by_draft(store.data_volumes())).iloc[0]
    store.close()
    assert (row["train_source"] if pd.notna(row["train_source"]) else None) == source
    if attached is None:
        assert pd.isna(row["attached_volume"]), row["attached_volume"]
        return
    assert str(row["attached_volume"]).startswith(attached), row["attached_volume"]
    for samples, _tokens, src in stored:  # every source's latest, the one in use too
        assert f"{samples:,} samples" in row["attached_volume"] and src in row["attached_volume"]


# ---------------------------------------------------------------- 2. draft_to_active for a dense target


def _per_token(count: Any) -> int:
    return count.active if count.active is not None else count.total - count.mtp - count.vision


@pytest.mark.parametrize(
    ("case", "source"),
    [
        ("dense, multimodal (vision tower)", "gemma folder"),
        ("dense, text only", "registry:yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"),
        ("MoE", "registry:AQ-MedAI/Kimi-K2-Instruct-eagle3"),
    ],
)
def test_draft_to_active_is_over_what_a_token_of_the_target_passes_through(
    tmp_path: Path, case: str, source: str
) -> None:
    text = str(gemma_draft(tmp_path)) if source == "gemma folder" else source
    entry = comparison.load_entry(text, card_target=True, with_header=False)
    tc = entry.target_count
    assert tc is not None and entry.ratio is not None
    row = comparison.table([entry], {}).iloc[0]
    want = entry.count.excluding_embedding / _per_token(tc)
    assert row["draft_to_active"] == pytest.approx(round(want, 5)), row.to_dict()
    assert comparison.entry_json(entry)["draft_to_target_active_ratio"] == pytest.approx(want, rel=1e-12)
    if case == "dense, text only":  # every parameter is on a token's path: the same as draft/target
        assert row["draft_to_active"] == row["draft_to_target"]
    elif case.startswith("dense, multimodal"):  # Gemma 3's vision tower is not: a little above draft/target
        assert tc.vision > 0 and tc.active is None and entry.target_label == GEMMA
        assert row["draft_to_active"] > row["draft_to_target"]
        assert row["draft_to_active"] == pytest.approx(round(1_837_667_328 / (27_432_406_640 - 423_060_336), 5))
    else:
        assert (
            tc.active is not None
            and tc.active < tc.total
            and row["draft_to_active"] == pytest.approx(0.0362, abs=5e-5)
        )


# ---------------------------------------------------------------- 3. a prefilled tokenizer that cannot be read

AUDIT_PAGE = "pages/audit.py"
GEMMA_TARGET_CONFIG = {"architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3"}
ROWS = [
    {"conversations": [{"role": "user", "content": f"Question {i}?"}, {"role": "assistant", "content": "Yes. " * i}]}
    for i in range(1, 6)
]
TOKEN_FIELD_WORDS = 'the sidebar\'s "Hub token (this session only)" field'
UNREAD_CASES = [
    # case, what the target's repo is here, words of why it could not be read, words of how to count exactly
    ("gated, no token", "gated", ["model google/gemma-3-27b-it is gated", "no Hub token"], ["accept its terms"]),
    ("not on the Hub", "absent", ["shows no model google/gemma-3-27b-it without a token"], [TOKEN_FIELD_WORDS]),
    ("offline", "offline", ["offline (HF_HUB_OFFLINE is set)", "not in the local cache"], ["tokenizer.json"]),
    ("unreachable", "unreachable", ["could not be reached", "not in the local cache"], ["tokenizer.json"]),
]


def _dataset(tmp_path: Path) -> Path:
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


def _tokenizer_files(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    from tests.tokenizer_fixture import build_tokenizer

    tok = build_tokenizer(tmp_path / "tok")
    return tok, {p.name: p.read_bytes() for p in tok.iterdir() if p.is_file()}


def _target_is(where: str, hub: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The draft's target as the case has it: gated (with a tokenizer), not on the Hub, offline or unreachable."""
    tok, files = _tokenizer_files(tmp_path)
    if where == "gated":
        hub.add_model(GEMMA, GEMMA_TARGET_CONFIG, extra_files=files, gated=True)
    elif where == "offline":
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    elif where == "unreachable":
        from tests.streamlit_server import free_port

        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{free_port()}")  # nothing listens there
    return tok


def _captions(at: Any) -> str:
    return " ".join(c.value for c in at.caption)


@pytest.mark.parametrize(("case", "where", "why", "how"), UNREAD_CASES)
def test_a_prefilled_target_tokenizer_that_cannot_be_read_falls_back_to_the_estimate(
    tmp_path: Path, hub: Any, monkeypatch: pytest.MonkeyPatch, case: str, where: str, why: list[str], how: list[str]
) -> None:
    from comparelib.audit.scan import audit
    from tests.fixtures import page_app
    from tests.test_page_audit import metric

    tok = _target_is(where, hub, tmp_path, monkeypatch)
    data = _dataset(tmp_path)
    at = page_app(AUDIT_PAGE, timeout=120)
    at.query_params["draft"] = str(gemma_draft(tmp_path))
    at.run()
    assert not at.exception, at.exception
    assert at.text_input(key="audit_tokenizer").value == GEMMA  # kept there: a token pasted later counts with it
    said = _captions(at)
    assert "count the tokens your draft trains on" not in said, said  # no claim for a tokenizer not read
    assert f"your draft's target `{GEMMA}`" in said and "cannot be read here" in said, said
    assert all(w in said for w in why), said
    at.text_input(key="audit_source").set_value(str(data))
    at.button(key="audit_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    warned = " ".join(w.value for w in at.warning)
    assert f"The tokenizer of your draft's target {GEMMA} could not be read" in warned, warned
    assert "UTF-8 bytes / 4" in warned and "To count exactly" in warned, warned
    assert all(w in warned for w in why + how), warned
    assert metric(at, "Tokens") == f"{audit(str(data)).tokens:,}"  # the estimate, as an empty field counts
    said = _captions(at)
    assert "tokenizer: none" in said and "count the tokens your draft trains on" not in said, said
    if where == "gated":  # the token the warning asks for: counted with the target's own tokenizer
        at.sidebar.text_input(key="hub_token").set_value(hub.token).run()
        assert "count the tokens your draft trains on" in _captions(at), _captions(at)
        at.button(key="audit_run").click().run()
        assert not at.exception and not at.error and not at.warning, [w.value for w in at.warning]
        assert metric(at, "Tokens") == f"{audit(str(data), tokenizer=str(tok)).tokens:,}"
        assert f"tokenizer: {GEMMA}" in _captions(at)


def test_a_typed_tokenizer_that_cannot_be_read_still_stops_the_audit(tmp_path: Path, hub: Any) -> None:
    from tests.fixtures import page_app

    data = _dataset(tmp_path)
    at = page_app(AUDIT_PAGE, timeout=120)
    at.query_params["draft"] = str(gemma_draft(tmp_path))
    at.run()
    at.text_input(key="audit_source").set_value(str(data))
    at.text_input(key="audit_tokenizer").set_value("acme/not-on-this-hub")
    at.button(key="audit_run").click().run()
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert "The tokenizer could not be read" in errors and "acme/not-on-this-hub" in errors, errors
    assert not [m for m in at.metric if m.label == "Tokens"]  # no result


def test_the_cli_audit_with_a_tokenizer_it_cannot_read_fails(tmp_path: Path, hub: Any) -> None:
    from tests.fixtures import run_cli

    got = run_cli("audit", str(_dataset(tmp_path)), "--tokenizer", GEMMA, env={"HF_ENDPOINT": hub.url})
    assert got.returncode != 0 and f"model {GEMMA} not found" in got.stderr, (got.returncode, got.stderr)


# ---------------------------------------------------------------- 4. a value typed in the benchmark form stays

BENCH_PAGE = "pages/bench.py"
FORM_NUMBERS = ["bench_concurrency", "bench_requests", "bench_max_tokens", "bench_warmup", "bench_spec_steps"]


def test_a_run_that_changes_nothing_does_not_overwrite_what_the_browser_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every run wrote each kept widget's value back into session state (app.keep_values), so each widget went to
    the browser with set_value: a run still in flight when the user committed another value (fill, Tab) then reset
    that field to the value the run started with. The walk's Max tokens 64 read 256 again, and the run used 256
    (the Playwright test below shows it in a browser). A value is sent back only where the app changes it."""
    from tests.fixtures import page_app

    monkeypatch.setenv("SPECDRAFT_DB", f"sqlite:///{tmp_path / 'b.sqlite'}")
    at = page_app(BENCH_PAGE, timeout=120)
    at.session_state["bench_form_open"] = True
    at.run()
    assert not at.exception, at.exception
    at.number_input(key="bench_max_tokens").set_value(64)
    at.number_input(key="bench_requests").set_value(16).run()
    assert not at.exception, at.exception
    at.run()  # the next run, as another field's commit starts it: nothing the app changes
    for key in FORM_NUMBERS:
        widget = at.number_input(key=key)
        assert not widget.proto.set_value, f"{key} is sent back to the browser, overwriting what it shows"
    assert (at.number_input(key="bench_max_tokens").value, at.number_input(key="bench_requests").value) == (64, 16)
    # a visit to another page and back: the values kept, and shown (sent back once, as they must be)
    at.session_state["bench_form_open"] = False
    at.run()
    at.session_state["bench_form_open"] = True
    at.run()
    assert (at.number_input(key="bench_max_tokens").value, at.number_input(key="bench_requests").value) == (64, 16)


BROWSER_FIELDS = ["Concurrency", "Requests", "Max tokens", "Warm-up requests", "num_steps", "topk"]


def test_values_filled_in_quick_succession_stay_in_the_browser(browser: Any, tmp_path: Path) -> None:
    """The walk's way of filling the form (fill, Tab, next field at once): with each run sending every kept value
    back, about one round in two lost a value (Max tokens back to 256, num_steps emptied). Six rounds here."""
    from tests.streamlit_server import running_app, wait_for_script

    env = {
        "SPECDRAFT_HOME": str(tmp_path / "home"),
        "HF_HOME": str(tmp_path / "hf"),
        "SPECDRAFT_DB": f"sqlite:///{tmp_path / 'b.sqlite'}",
        "HF_HUB_OFFLINE": "1",
    }
    with running_app(env) as url:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(url + "/bench")
        wait_for_script(page)
        page.get_by_text("Run a benchmark").first.click()
        page.get_by_role("spinbutton", name="Max tokens", exact=True).wait_for()
        wait_for_script(page)
        lost = []
        for round_ in range(6):
            want = {label: str(3 + round_ + i) for i, label in enumerate(BROWSER_FIELDS)}
            for label in BROWSER_FIELDS:
                page.get_by_role("spinbutton", name=label, exact=True).fill(want[label])
                page.keyboard.press("Tab")
            for _ in range(2):  # the last commit's run, and any run it was queued behind
                page.wait_for_timeout(800)
                wait_for_script(page)
            got = {label: page.get_by_role("spinbutton", name=label, exact=True).input_value() for label in want}
            lost += [(round_, label, want[label], got[label]) for label in want if got[label] != want[label]]
        page.close()
    assert not lost, f"(round, field, filled, shown after the runs): {lost}"
