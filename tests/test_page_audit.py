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
    assert any("acme/private-tok not found" in e.value for e in at.error)  # no token: a private repo is not there
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
