"""AppTest of the Dataset audit page: a small JSONL + the test tokenizer, bad paths, attach, dumps tab."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.fixtures import page_app
from tests.tokenizer_fixture import build_tokenizer

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "audit.py")


def _rows() -> list[str]:
    rows = []
    for i in range(12):
        rows.append(
            json.dumps(
                {
                    "id": str(i),
                    "conversations": [
                        {"from": "human", "value": f"Question number {i}?"},
                        {"from": "gpt", "value": "An answer. " * (i + 1)},
                    ],
                }
            )
        )
    rows.insert(3, "{broken")
    return rows


@pytest.fixture()
def data(tmp_path: Path) -> tuple[Path, Path]:
    path = tmp_path / "train.jsonl"
    path.write_text("\n".join(_rows()) + "\n", encoding="utf-8")
    return path, build_tokenizer(tmp_path / "tok")


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def run_audit(at: AppTest, source: str, tokenizer: str = "", **extra: object) -> AppTest:
    at.text_input(key="audit_source").set_value(source)
    at.text_input(key="audit_tokenizer").set_value(tokenizer)
    for key, value in extra.items():
        widget = at.number_input(key=key) if key in ("audit_max_length", "audit_sample_n") else at.checkbox(key=key)
        widget.set_value(value)
    return at.button(key="audit_run").click().run()


def test_audit_shows_counts_and_exports(data: tuple[Path, Path]) -> None:
    path, tok = data
    at = page_app(PAGE, timeout=60).run()
    assert not at.exception
    from comparelib.audit.scan import audit

    expected = audit(str(path), tokenizer=str(tok), max_length=60)
    assert 0 < expected.over_max_length < 12
    run_audit(at, str(path), str(tok), audit_max_length=60)
    assert not at.exception
    assert not at.error
    assert metric(at, "Samples") == "12"
    assert metric(at, "Tokens") == f"{expected.tokens:,}"
    assert metric(at, "Malformed rows") == "1"
    assert metric(at, "Format") == "sharegpt"
    assert metric(at, "Over max_length 60").startswith(f"{expected.over_max_length} (")
    labels = {b.label for b in at.get("download_button")}
    assert {"Download CSV", "Download JSON", "Download MD"} <= labels
    malformed = next(d.value for d in at.dataframe if "reason" in d.value.columns)
    assert list(malformed["line"]) == ["4"]


def test_attach_saves_volume(data: tuple[Path, Path]) -> None:
    path, tok = data
    at = page_app(PAGE, timeout=60).run()
    run_audit(at, str(path), str(tok))
    tokens = int(metric(at, "Tokens").replace(",", ""))
    at.text_input(key="audit_attach_draft").set_value("my-draft")
    at.button(key="audit_attach").click().run()
    assert not at.exception
    assert any("Saved 12 samples" in s.value for s in at.success)
    from comparelib.live.store import Store

    vols = [v for v in Store().data_volumes() if v["draft"] == "my-draft"]
    assert vols and vols[-1]["samples"] == 12 and vols[-1]["tokens"] == tokens


def test_sample_mode_marks_estimate(data: tuple[Path, Path]) -> None:
    path, tok = data
    at = page_app(PAGE, timeout=60).run()
    run_audit(at, str(path), str(tok), audit_sample_mode=True, audit_sample_n=10)
    assert not at.exception
    assert any("random sample of 10 of 13 rows" in w.value for w in at.warning)


@pytest.mark.parametrize(
    ("source", "tokenizer", "message"),
    [
        ("/no/such/file.jsonl", "", "no such file"),
        ("{data}", "/no/such/tokenizer", "no such file"),
        ("{bad}", "", "no row parses as JSON"),
    ],
)
def test_bad_input_is_an_error_not_a_traceback(
    data: tuple[Path, Path], tmp_path: Path, source: str, tokenizer: str, message: str
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("nope\n")
    at = page_app(PAGE, timeout=60).run()
    run_audit(at, source.format(data=data[0], bad=bad), tokenizer)
    assert not at.exception
    assert any(message in e.value for e in at.error)


def test_dumps_tab_reports_bad_folder(tmp_path: Path) -> None:
    at = page_app(PAGE, timeout=60).run()
    at.text_input(key="dumps_folder").set_value(str(tmp_path / "missing"))
    at.button(key="dumps_run").click().run()
    assert not at.exception
    assert at.error


def test_an_empty_file_leaves_no_stale_progress_bar(data: tuple[Path, Path], tmp_path: Path) -> None:
    _, tok = data
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    at = page_app(PAGE, timeout=60).run()
    run_audit(at, str(empty), str(tok))
    assert not at.exception, at.exception
    assert at.error, "an empty file is an error the user reads"
    assert not [p for p in at.get("progress") if "Starting" in str(p.proto.text)]


def test_the_volume_is_attached_under_the_drafts_name_not_the_pasted_url(data: tuple[Path, Path], hub) -> None:
    from tests.fixtures import aq_config, aq_tensors

    path, tok = data
    hub.add_model("acme/kimi-draft", aq_config(), tensors=aq_tensors())
    at = page_app(PAGE, timeout=60)
    at.query_params["draft"] = f"{hub.url}/acme/kimi-draft/tree/main"
    at.run()
    run_audit(at, str(path), str(tok))
    assert not at.exception, at.exception
    assert at.text_input(key="audit_attach_draft").value == "acme/kimi-draft"


def test_dumps_tab_full_scan_shows_layer_statistics(tmp_path: Path) -> None:
    from tests import dump_fixtures as fx

    root = fx.build_dump(tmp_path / "dump", "specforge", n_files=3)
    at = page_app(PAGE, timeout=60).run()
    at.text_input(key="dumps_folder").set_value(str(root))
    at.checkbox(key="dumps_full").check()
    at.button(key="dumps_run").click().run()
    assert not at.exception and not at.error
    layers = next(d.value for d in at.dataframe if "layer" in d.value.columns)
    assert len(layers) == 3 * 4 and set(layers["layer"]) == {"low", "mid", "high", "final"}


def test_the_sidebar_token_opens_a_private_hub_tokenizer(data: tuple[Path, Path], hub) -> None:
    """The audit runs with the session's token, as Compare does: a private tokenizer on the Hub is read."""
    path, tok = data
    hub.add_repo("acme/private-tok", {p.name: p.read_bytes() for p in tok.iterdir() if p.is_file()}, private=True)
    at = page_app(PAGE, timeout=60).run()
    run_audit(at, str(path), "acme/private-tok")
    assert any(
        "shows no model acme/private-tok without a token" in e.value for e in at.error
    )  # no token: a private repo is not there
    at.sidebar.text_input(key="hub_token").set_value(hub.token).run()
    run_audit(at, str(path), "acme/private-tok")
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert metric(at, "Samples") == "12"
    assert "tokenizer: acme/private-tok" in " ".join(c.value for c in at.caption)
    assert hub.token not in json.dumps(dict(at.query_params))


def test_the_sidebar_token_opens_a_private_hub_dataset(data: tuple[Path, Path], hub) -> None:
    """The audit's row reader runs in a thread: without the call's context it read the Hub without the session's
    token, so a private dataset passed the card check and then "cannot be accessed"."""
    path, tok = data
    hub.add_repo("acme/private-chat", {"data/train.jsonl": path.read_bytes()}, repo_type="dataset", private=True)
    at = page_app(PAGE, timeout=60).run()
    at.sidebar.text_input(key="hub_token").set_value(hub.token).run()
    run_audit(at, "acme/private-chat", str(tok))
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert metric(at, "Samples") == "12"


QWEN3_8B = "Qwen/Qwen3-8B"
QWEN3_DRAFT = "yourorg/qwen3-8b-eagle3"


def _qwen3_8b_config(draft: bool) -> dict:
    config = {
        "architectures": ["LlamaForCausalLMEagle3" if draft else "Qwen3ForCausalLM"],
        "model_type": "llama" if draft else "qwen3",
        "hidden_size": 4096,
        "intermediate_size": 12288,
        "num_hidden_layers": 1 if draft else 36,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "vocab_size": 151936,
        "max_position_embeddings": 40960,
        "rms_norm_eps": 1e-6,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
    }
    if draft:  # a SpecForge EAGLE-3 config names no target: its card's base_model does
        config.update(draft_vocab_size=32000, eagle_config={"eagle_aux_hidden_state_layer_ids": [1, 17, 33]})
    return config


def test_the_tokenizer_defaults_to_your_drafts_target(tmp_path: Path, hub) -> None:
    """A Qwen3-8B walk: with the draft set, the tokenizer field started empty, so the audit counted bytes / 4 and
    flagged every reasoning row reasoning_not_counted. It now opens on the draft's target (its card's base_model),
    counted with that target's tokenizer and chat template; a tokenizer typed there is kept."""
    import streamlit as st

    from comparelib.audit.scan import audit
    from tests.test_audit_reasoning import QWEN3_ROWS, QWEN3_TEMPLATE, WHY, WHY2, write_jsonl

    tok = build_tokenizer(tmp_path / "tok", texts=[WHY, WHY2], template=QWEN3_TEMPLATE)
    files = {p.name: p.read_bytes() for p in tok.iterdir() if p.is_file()}
    card = f"---\nlicense: apache-2.0\nbase_model: {QWEN3_8B}\n---\n# Qwen3-8B EAGLE-3 draft\n"
    hub.add_model(QWEN3_DRAFT, _qwen3_8b_config(draft=True), card=card)
    hub.add_model(QWEN3_8B, _qwen3_8b_config(draft=False), extra_files=files)
    path = write_jsonl(tmp_path / "r.jsonl", QWEN3_ROWS[:3])
    st.cache_data.clear()  # another test's read of a draft stays cached per process
    at = page_app(PAGE, timeout=90)
    at.query_params["draft"] = QWEN3_DRAFT
    at.run()
    assert not at.exception, at.exception
    assert at.text_input(key="audit_tokenizer").value == QWEN3_8B
    said = " ".join(c.value for c in at.caption)
    assert f"your draft's target `{QWEN3_8B}` (the base_model of your draft's model card)" in said, said
    at.text_input(key="audit_source").set_value(str(path))
    at.button(key="audit_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    expected = audit(str(path), tokenizer=str(tok))
    assert metric(at, "Tokens") == f"{expected.tokens:,}"
    said = " ".join(c.value for c in at.caption)
    assert f"tokenizer: {QWEN3_8B}" in said and "counting: tokenizer.json + chat template" in said
    assert "reasoning_not_counted" not in said and "bytes / 4" not in said
    at.text_input(key="audit_tokenizer").set_value(str(tok))  # typed (a form: sent with Run audit): kept
    at.button(key="audit_run").click().run()
    assert at.text_input(key="audit_tokenizer").value == str(tok)
    assert f"tokenizer: {tok}" in " ".join(c.value for c in at.caption)
    at.run()
    assert at.text_input(key="audit_tokenizer").value == str(tok)
