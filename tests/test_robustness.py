"""Robustness sweep: hostile input on every page and CLI sub-command gets a message, never a traceback.

Pages: each case sets widgets (by key) to a hostile value, presses the page's action and asserts no
exception, plus an st.error / st.warning / st.info when the action had to be refused. CLI: each bad
invocation exits 2 with exactly one ``error:`` line on stderr. A sentinel HF_TOKEN must never show up in
anything the Compare page renders or offers for download.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import streamlit.testing.v1.app_test as app_test_mod
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

from comparelib import export
from tests.fixtures import AQ, aq_config, page_app
from tests.hub_emulator import HubEmulator

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "pages"
SENTINEL = "hf_SENTINELsecret123"
LONG = "x" * 5000
UNICODE = "模型/ünïcødé-🚀"
CLOSED = "http://127.0.0.1:1"


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, str]:
    """Hostile files and folders, by placeholder name."""
    rand = tmp_path / "random.bin"
    rand.write_bytes(bytes((i * 197 + 13) % 256 for i in range(4096)))
    rand_jsonl = tmp_path / "random.jsonl"
    rand_jsonl.write_bytes(rand.read_bytes())
    folder = tmp_path / "empty_dir"
    folder.mkdir()
    one_bad = tmp_path / "one_bad_line.jsonl"
    good = {"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "hello there"}]}
    one_bad.write_text(json.dumps(good) + "\n{not json\n" + json.dumps(good) + "\n", encoding="utf-8")
    bad_cfg = tmp_path / "bad_cfg"
    bad_cfg.mkdir()
    (bad_cfg / "config.json").write_text('{"hidden_size": ', encoding="utf-8")
    list_cfg = tmp_path / "list_cfg"
    list_cfg.mkdir()
    (list_cfg / "config.json").write_text("[1, 2, 3]", encoding="utf-8")
    empty_cfg = tmp_path / "empty_cfg"
    empty_cfg.mkdir()
    (empty_cfg / "config.json").write_text("{}", encoding="utf-8")
    odd_cfg = tmp_path / "odd_cfg"
    odd_cfg.mkdir()
    (odd_cfg / "config.json").write_text(
        json.dumps({**aq_config(), "hidden_size": "big", "num_hidden_layers": -1}), encoding="utf-8"
    )
    odd = tmp_path / "odd"
    odd.mkdir()
    for name in ("random.parquet", "random.arrow"):
        (odd / name).write_bytes(rand.read_bytes())
    (odd / "scalar.json").write_text('"just a string"', encoding="utf-8")
    (odd / "numbers.jsonl").write_text("1\n[2, 3]\nnull\n", encoding="utf-8")
    (odd / "empty.jsonl").write_text("", encoding="utf-8")
    (odd / "nested.jsonl").write_text(
        json.dumps({"conversations": [[{"from": 1}], None, 5]}) + "\n" + json.dumps({"messages": "hello"}) + "\n",
        encoding="utf-8",
    )
    (odd / "tokenizer.json").write_bytes(rand.read_bytes())
    for name in (
        "specforge/rows_0-1/data_0.ckpt",
        "modelopt/abc.pt",
        "speculators/hs_0.safetensors",
        "gz/rows_0-1/data_0.ckpt.gz",
    ):
        dump = odd / "dumps" / name
        dump.parent.mkdir(parents=True, exist_ok=True)
        dump.write_bytes(rand.read_bytes())
    return {
        "rand": str(rand),
        "rand_jsonl": str(rand_jsonl),
        "dir": str(folder),
        "one_bad": str(one_bad),
        "bad_cfg": str(bad_cfg),
        "list_cfg": str(list_cfg),
        "empty_cfg": str(empty_cfg),
        "odd_cfg": str(odd_cfg),
        "missing": str(tmp_path / "no" / "such" / "thing"),
        "odd": str(odd),
    }


def fill(value: Any, files: dict[str, str]) -> Any:
    return value.format(**files) if isinstance(value, str) and "{" in value and "}" in value else value


# Choices that enable other widgets: run after setting them, as a browser would, before the next widget.
ENABLERS = {"bench_prompt_source", "sc_vol_pick", "sc_x"}


def set_widgets(at: AppTest, widgets: dict[str, tuple[str, Any]], files: dict[str, str]) -> None:
    for key, (kind, value) in widgets.items():
        getattr(at, kind)(key=key).set_value(fill(value, files))
        if key in ENABLERS:
            at.run()
            assert not at.exception, at.exception


def messages(at: AppTest) -> list[str]:
    return [e.value for e in at.error] + [w.value for w in at.warning] + [i.value for i in at.info]


def page(name: str) -> AppTest:
    return page_app(str(PAGES / f"{name}.py"), timeout=60)


# ------------------------------------------------------------------ Overview (no button: every change re-runs)

# Your draft is chosen in the sidebar's form ("Use this draft"), on every page.
OVERVIEW_CASES = [
    # (widgets, refused)
    ({"draft_source": ("text_input", "")}, True),
    ({"draft_source": ("text_input", "   ")}, True),
    ({"draft_source": ("text_input", "{missing}")}, True),
    ({"draft_source": ("text_input", "{dir}")}, True),
    ({"draft_source": ("text_input", "{rand}")}, True),
    ({"draft_source": ("text_input", "{bad_cfg}")}, True),
    ({"draft_source": ("text_input", "{list_cfg}")}, True),
    ({"draft_source": ("text_input", "{empty_cfg}")}, True),
    ({"draft_source": ("text_input", "{odd_cfg}")}, True),
    ({"draft_source": ("text_input", "{one_bad}")}, True),
    ({"draft_source": ("text_input", "/etc/passwd")}, True),
    ({"draft_source": ("text_input", "file:///etc/passwd")}, True),
    ({"draft_source": ("text_input", "registry:no/such-draft")}, True),
    ({"draft_source": ("text_input", "example:nope")}, True),
    ({"draft_source": ("text_input", f"{CLOSED}/org/name")}, True),
    ({"draft_source": ("text_input", LONG)}, True),
    ({"draft_source": ("text_input", UNICODE)}, True),
    ({"draft_samples": ("number_input", 10**13)}, False),
    ({"draft_samples": ("number_input", 1)}, False),
    # below min_value: Streamlit keeps the last valid value (a browser cannot send these at all)
    ({"draft_samples": ("number_input", -5)}, False),
    ({"draft_samples": ("number_input", 0)}, False),
]


@pytest.mark.parametrize(("widgets", "refused"), OVERVIEW_CASES)
def test_overview_hostile_input(files: dict[str, str], widgets: dict[str, tuple[str, Any]], refused: bool) -> None:
    at = page("overview").run()
    assert not at.exception
    for key, (kind, value) in widgets.items():
        getattr(at.sidebar, kind)(key=key).set_value(fill(value, files))
    at.sidebar.button[0].click().run()  # "Use this draft"
    assert not at.exception, at.exception
    if refused:
        assert at.error, messages(at)


DRAFT_QUERY_CASES = [
    {"draft": LONG},
    {"draft": "file:///etc/passwd"},
    {"draft": "acme/x", "draft_samples": "-3"},
    {"draft": "acme/x", "draft_samples": "lots"},
    {"draft": "registry:no/such-draft"},
    {"draft": "example", "draft_group": "g" * 600},
    {"draft": UNICODE, "draft_vol": UNICODE},
]


@pytest.mark.parametrize("name", ["overview", "compare", "bench", "scaling"])
@pytest.mark.parametrize("query", DRAFT_QUERY_CASES)
def test_hostile_draft_links(query: dict[str, Any], name: str) -> None:
    at = page(name)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    if name == "overview":
        assert at.error, messages(at)


# ------------------------------------------------------------------ Compare (form submit)

COMPARE_CASES = [
    # (widgets, refused)
    ({"compare_picks": ("multiselect", []), "compare_urls": ("text_area", "")}, True),
    ({"compare_picks": ("multiselect", []), "compare_urls": ("text_area", "   \n\t\n  ")}, True),
    ({"compare_urls": ("text_area", "{missing}")}, True),
    ({"compare_urls": ("text_area", "{dir}")}, True),
    ({"compare_urls": ("text_area", "{rand}")}, True),
    ({"compare_urls": ("text_area", "{bad_cfg}")}, True),
    ({"compare_urls": ("text_area", "{list_cfg}")}, True),
    ({"compare_urls": ("text_area", "{empty_cfg}")}, True),
    ({"compare_urls": ("text_area", "{odd_cfg}")}, True),
    ({"compare_urls": ("text_area", "file:///etc/passwd")}, True),
    ({"compare_urls": ("text_area", "https://example.com/org/name")}, True),
    ({"compare_urls": ("text_area", f"{CLOSED}/org/name")}, True),
    ({"compare_urls": ("text_area", "registry:no/such-draft")}, True),
    ({"compare_urls": ("text_area", LONG)}, True),
    ({"compare_urls": ("text_area", UNICODE)}, True),
    ({"compare_target": ("text_input", "{missing}")}, True),
    ({"compare_target": ("text_input", "{rand}")}, True),
    ({"compare_target": ("text_input", "file:///etc/passwd")}, True),
    ({"compare_target": ("text_input", f"{CLOSED}/org/name")}, True),
    ({"compare_target": ("text_input", LONG)}, True),
    ({"compare_target": ("text_input", UNICODE)}, True),
    ({"compare_target": ("text_input", "   ")}, False),
    ({"compare_target_layers": ("text_input", "abc")}, True),
    ({"compare_target_layers": ("text_input", "-3")}, True),
    ({"compare_target_layers": ("text_input", "0")}, True),
    ({"compare_target_layers": ("text_input", "3.5")}, True),
    ({"compare_target_layers": ("text_input", "1e9")}, True),
    ({"compare_target_layers": ("text_input", "99999999999999999999999")}, True),
    ({"compare_target_layers": ("text_input", "٣٠")}, False),  # Arabic-Indic digits: int() reads 30
    ({"compare_target_layers": ("text_input", "   ")}, False),
]


@pytest.mark.parametrize(("widgets", "refused"), COMPARE_CASES)
def test_compare_hostile_input(files: dict[str, str], widgets: dict[str, tuple[str, Any]], refused: bool) -> None:
    at = page("compare").run()
    assert not at.exception
    set_widgets(at, widgets, files)
    at.button[0].click().run()
    assert not at.exception, at.exception
    if refused:
        assert messages(at)
        assert at.error or not at.dataframe, "a refused input must not silently show a table"


CREDENTIAL_URLS = [
    f"https://user:{SENTINEL}@huggingface.co/acme/draft",
    f"https://{SENTINEL}@huggingface.co/acme/draft",
    f"https://user:{SENTINEL}@example.com/acme/draft",
    f"https://user:{SENTINEL}@huggingface.co:notaport/acme/draft",
]


@pytest.mark.parametrize("url", CREDENTIAL_URLS)
def test_compare_never_echoes_credentials_pasted_in_a_url(url: str) -> None:
    at = page("compare").run()
    at.text_area(key="compare_urls").set_value(url)
    at.text_input(key="compare_target").set_value(url)
    at.button[0].click().run()
    assert not at.exception
    assert at.error
    shown = " ".join(messages(at) + [m.value for m in at.markdown] + [str(df.value) for df in at.dataframe])
    assert SENTINEL not in shown
    assert SENTINEL not in json.dumps({k: at.query_params[k] for k in at.query_params})


HUB_REPOS = [
    # (repo id, config.json bytes or dict)
    ("acme/random-config", bytes((i * 197 + 13) % 256 for i in range(512))),
    ("acme/list-config", b"[1, 2, 3]"),
    ("acme/empty-config", b"{}"),
    ("acme/odd-config", None),  # filled in with nonsense types below
    ("acme/no-config", b""),
]


@pytest.mark.parametrize(("repo", "config"), HUB_REPOS)
def test_compare_hostile_hub_repos(hub: HubEmulator, repo: str, config: bytes | None) -> None:
    if config is None:
        config = json.dumps({**aq_config(), "hidden_size": "big", "num_hidden_layers": -1}).encode()
    if repo == "acme/no-config":
        hub.add_repo(repo, {"README.md": b"no config here"})
    else:
        hub.add_model(repo, config)
    at = page("compare").run()
    at.multiselect(key="compare_picks").set_value([AQ])
    at.text_area(key="compare_urls").set_value(f"{repo}\n{hub.url}/{repo}@no-such-rev\n{repo}-missing")
    at.button[0].click().run()
    assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 3, errors
    assert len(at.dataframe[0].value) == 1  # the good draft still shows


QUERY_CASES = [
    {"m": ["file:///etc/passwd"]},
    {"m": [""], "layers": "abc"},
    {"m": [f"registry:{AQ}"], "layers": "-1"},
    {"m": [f"registry:{AQ}"], "target": "file:///etc/passwd"},
    {"m": [LONG]},
    {"m": [UNICODE, f"{CLOSED}/a/b"]},
]


@pytest.mark.parametrize("query", QUERY_CASES)
def test_compare_hostile_query_params(query: dict[str, Any]) -> None:
    at = page("compare")
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    assert messages(at)


# ------------------------------------------------------------------ Dataset audit

AUDIT_CASES = [
    # (widgets, refused)
    ({"audit_source": ("text_input", "")}, True),
    ({"audit_source": ("text_input", "   ")}, True),
    ({"audit_source": ("text_input", "{missing}")}, True),
    ({"audit_source": ("text_input", "{dir}")}, True),
    ({"audit_source": ("text_input", "{rand}")}, True),
    ({"audit_source": ("text_input", "{rand_jsonl}")}, True),
    ({"audit_source": ("text_input", "/etc/passwd")}, True),
    ({"audit_source": ("text_input", "file:///etc/passwd")}, True),
    ({"audit_source": ("text_input", "https://example.com/datasets/org/name")}, True),
    ({"audit_source": ("text_input", f"{CLOSED}/datasets/org/name")}, True),
    ({"audit_source": ("text_input", "acme/no-such-dataset")}, True),
    ({"audit_source": ("text_input", LONG)}, True),
    ({"audit_source": ("text_input", UNICODE)}, True),
    ({"audit_source": ("text_input", "{odd}/random.parquet")}, True),
    ({"audit_source": ("text_input", "{odd}/random.arrow")}, True),
    ({"audit_source": ("text_input", "{odd}/scalar.json")}, True),
    ({"audit_source": ("text_input", "{odd}/numbers.jsonl")}, True),
    ({"audit_source": ("text_input", "{odd}/empty.jsonl")}, True),
    ({"audit_source": ("text_input", "{odd}/nested.jsonl")}, True),
    ({"audit_source": ("text_input", "{odd}/dumps")}, True),
    ({"audit_source": ("text_input", "{one_bad}"), "audit_tokenizer": ("text_input", "{odd}")}, True),
    ({"audit_source": ("text_input", "{one_bad}")}, False),  # audited, the bad line counted as malformed
    ({"audit_source": ("text_input", "{one_bad}"), "audit_tokenizer": ("text_input", "{missing}")}, True),
    ({"audit_source": ("text_input", "{one_bad}"), "audit_tokenizer": ("text_input", "{rand}")}, True),
    ({"audit_source": ("text_input", "{one_bad}"), "audit_tokenizer": ("text_input", "{dir}")}, True),
    ({"audit_source": ("text_input", "{one_bad}"), "audit_tokenizer": ("text_input", "file:///etc/passwd")}, True),
    ({"audit_source": ("text_input", "{one_bad}"), "audit_tokenizer": ("text_input", f"{CLOSED}/org/tok")}, True),
    ({"audit_source": ("text_input", "{one_bad}"), "audit_tokenizer": ("text_input", UNICODE)}, True),
    ({"audit_source": ("text_input", "{one_bad}"), "audit_tokenizer": ("text_input", "   ")}, False),
    # out of range: Streamlit keeps the default, the audit runs with max_length 2048
    ({"audit_source": ("text_input", "{one_bad}"), "audit_max_length": ("number_input", -5)}, False),
    ({"audit_source": ("text_input", "{one_bad}"), "audit_max_length": ("number_input", 0)}, False),
    ({"audit_source": ("text_input", "{one_bad}"), "audit_max_length": ("number_input", 10**12)}, False),
    (
        {
            "audit_source": ("text_input", "{one_bad}"),
            "audit_sample_mode": ("checkbox", True),
            "audit_sample_n": ("number_input", -1),
        },
        False,
    ),
    (
        {
            "audit_source": ("text_input", "{one_bad}"),
            "audit_sample_mode": ("checkbox", True),
            "audit_sample_n": ("number_input", 10**12),
        },
        False,
    ),
    ({"audit_source": ("text_input", "{one_bad}"), "audit_format": ("selectbox", "openai")}, True),
    (
        {
            "audit_source": ("text_input", "{one_bad}"),
            "audit_config": ("text_input", LONG),
            "audit_split": ("text_input", UNICODE),
        },
        False,
    ),  # ignored for a local file
    (
        {
            "audit_source": ("text_input", "acme/no-such-dataset"),
            "audit_config": ("text_input", LONG),
            "audit_split": ("text_input", UNICODE),
        },
        True,
    ),
]


@pytest.mark.parametrize(("widgets", "refused"), AUDIT_CASES)
def test_audit_hostile_input(
    hub: HubEmulator, files: dict[str, str], widgets: dict[str, tuple[str, Any]], refused: bool
) -> None:
    at = page("audit").run()
    assert not at.exception
    set_widgets(at, widgets, files)
    at.button(key="audit_run").click().run()
    assert not at.exception, at.exception
    if refused:
        assert at.error, messages(at)
    else:
        assert not at.error, [e.value for e in at.error]
        assert at.metric, "the audit result should be shown"


HUB_DATASET_CASES = [
    # (files in the dataset repo, config, split, refused)
    ({"train.jsonl": b"{bad\n"}, "", "", True),
    ({"train.jsonl": bytes((i * 197 + 13) % 256 for i in range(2048))}, "", "", True),
    ({"data/train.parquet": bytes((i * 197 + 13) % 256 for i in range(2048))}, "", "", True),
    ({"README.md": b"nothing else"}, "", "", True),
    ({"train.jsonl": b'{"text": "hello"}\n'}, "no-such-config", "", True),
    ({"train.jsonl": b'{"text": "hello"}\n'}, "", "no-such-split", True),
    ({"train.jsonl": b'{"text": "hello"}\n'}, "", "", False),
]


@pytest.mark.parametrize(("repo_files", "config", "split", "refused"), HUB_DATASET_CASES)
def test_audit_hostile_hub_datasets(
    hub: HubEmulator, repo_files: dict[str, bytes], config: str, split: str, refused: bool
) -> None:
    hub.add_repo("acme/ds", repo_files, repo_type="dataset")
    at = page("audit").run()
    at.text_input(key="audit_source").set_value(f"{hub.url}/datasets/acme/ds")
    at.text_input(key="audit_config").set_value(config)
    at.text_input(key="audit_split").set_value(split)
    at.button(key="audit_run").click().run()
    assert not at.exception, at.exception
    if refused:
        assert at.error, messages(at)
    else:
        assert not at.error and at.metric


def test_audit_of_a_file_with_one_bad_line_keeps_the_good_rows(files: dict[str, str]) -> None:
    at = page("audit").run()
    at.text_input(key="audit_source").set_value(files["one_bad"])
    at.button(key="audit_run").click().run()
    assert not at.exception
    assert next(m.value for m in at.metric if m.label == "Samples") == "2"
    assert next(m.value for m in at.metric if m.label == "Malformed rows") == "1"


ATTACH_CASES = [
    ("", True),
    ("   ", True),
    (LONG, True),  # over the draft-name cap (every session's sidebar lists the names)
    (UNICODE, False),
]


@pytest.mark.parametrize(("draft", "refused"), ATTACH_CASES)
def test_attach_volume_hostile_names(files: dict[str, str], draft: str, refused: bool) -> None:
    at = page("audit").run()
    at.text_input(key="audit_source").set_value(files["one_bad"])
    at.button(key="audit_run").click().run()
    at.text_input(key="audit_attach_draft").set_value(draft)
    at.button(key="audit_attach").click().run()
    assert not at.exception
    if refused:
        assert at.error
    else:
        assert any(draft.strip() in s.value for s in at.success)
        from comparelib import settings
        from comparelib.live.store import Store

        assert any(v["draft"] == draft for v in Store(settings.database_url()).data_volumes())


DUMP_CASES = [
    # (widgets, refused)
    ({"dumps_folder": ("text_input", "")}, True),
    ({"dumps_folder": ("text_input", "   ")}, True),
    ({"dumps_folder": ("text_input", "{missing}")}, True),
    ({"dumps_folder": ("text_input", "{dir}")}, True),
    ({"dumps_folder": ("text_input", "{rand}")}, True),
    ({"dumps_folder": ("text_input", "/etc/passwd")}, True),
    ({"dumps_folder": ("text_input", "file:///etc/passwd")}, True),
    ({"dumps_folder": ("text_input", LONG)}, True),
    ({"dumps_folder": ("text_input", UNICODE)}, True),
    ({"dumps_folder": ("text_input", "{odd}/dumps/specforge")}, True),
    ({"dumps_folder": ("text_input", "{odd}/dumps/modelopt")}, True),
    ({"dumps_folder": ("text_input", "{odd}/dumps/speculators")}, True),
    ({"dumps_folder": ("text_input", "{odd}/dumps/gz")}, True),
    ({"dumps_folder": ("text_input", "{odd}/dumps")}, True),
    ({"dumps_folder": ("text_input", "{odd}/dumps/modelopt"), "dumps_config": ("text_input", "{odd_cfg}")}, True),
    ({"dumps_folder": ("text_input", "{dir}"), "dumps_config": ("text_input", "{rand}")}, True),
    ({"dumps_folder": ("text_input", "{dir}"), "dumps_config": ("text_input", "{missing}")}, True),
    ({"dumps_folder": ("text_input", "{dir}"), "dumps_config": ("text_input", "{bad_cfg}")}, True),
    ({"dumps_folder": ("text_input", "{dir}"), "dumps_config": ("text_input", "{list_cfg}")}, True),
    ({"dumps_folder": ("text_input", "{dir}"), "dumps_config": ("text_input", LONG)}, True),
    ({"dumps_folder": ("text_input", "{dir}"), "dumps_hidden": ("number_input", -5)}, True),
    ({"dumps_folder": ("text_input", "{dir}"), "dumps_hidden": ("number_input", 10**12)}, True),
    ({"dumps_folder": ("text_input", "{dir}"), "dumps_max_files": ("number_input", -1)}, True),
    ({"dumps_folder": ("text_input", "{dir}"), "dumps_max_files": ("number_input", 10**9)}, True),
]


@pytest.mark.parametrize(("widgets", "refused"), DUMP_CASES)
def test_dumps_hostile_input(files: dict[str, str], widgets: dict[str, tuple[str, Any]], refused: bool) -> None:
    at = page("audit").run()
    assert not at.exception
    set_widgets(at, widgets, files)
    at.button(key="dumps_run").click().run()
    assert not at.exception, at.exception
    if refused:
        assert at.error, messages(at)


# ------------------------------------------------------------------ Live benchmark (closed port: fails fast)

BENCH_BASE = {
    "bench_endpoint": ("text_input", CLOSED),
    "bench_requests": ("number_input", 1),
    "bench_warmup": ("number_input", 0),
    "bench_timeout": ("number_input", 2.0),
}
BENCH_CASES = [
    {"bench_endpoint": ("text_input", "")},
    {"bench_endpoint": ("text_input", "   ")},
    {"bench_endpoint": ("text_input", "file:///etc/passwd")},
    {"bench_endpoint": ("text_input", "ftp://127.0.0.1:1")},
    {"bench_endpoint": ("text_input", "{missing}")},
    {"bench_endpoint": ("text_input", LONG)},
    {"bench_endpoint": ("text_input", UNICODE)},
    {"bench_endpoint": ("text_input", f"http://user:{SENTINEL}@127.0.0.1:1")},
    {},
    {"bench_concurrency": ("number_input", -1)},
    {"bench_concurrency": ("number_input", 10**9)},
    {"bench_requests": ("number_input", 0)},
    {"bench_requests": ("number_input", -5)},
    {"bench_requests": ("number_input", 10**12)},
    {"bench_max_tokens": ("number_input", -3)},
    {"bench_temperature": ("number_input", -1.0)},
    {"bench_temperature": ("number_input", float("nan"))},
    {"bench_warmup": ("number_input", -1)},
    {"bench_timeout": ("number_input", -1.0)},
    {"bench_timeout": ("number_input", 0.0)},
    {"bench_spec_steps": ("number_input", -1), "bench_spec_topk": ("number_input", 10**9)},
    {
        "bench_labels": ("text_input", LONG),
        "bench_group": ("text_input", UNICODE),
        "bench_spec_algorithm": ("text_input", "   "),
    },
    {"bench_prompt_source": ("radio", "dataset file"), "bench_prompt_path": ("text_input", "")},
    {"bench_prompt_source": ("radio", "dataset file"), "bench_prompt_path": ("text_input", "   ")},
    {"bench_prompt_source": ("radio", "dataset file"), "bench_prompt_path": ("text_input", "{missing}")},
    {"bench_prompt_source": ("radio", "dataset file"), "bench_prompt_path": ("text_input", "{dir}")},
    {"bench_prompt_source": ("radio", "dataset file"), "bench_prompt_path": ("text_input", "{rand}")},
    {"bench_prompt_source": ("radio", "dataset file"), "bench_prompt_path": ("text_input", "{rand_jsonl}")},
    {"bench_prompt_source": ("radio", "dataset file"), "bench_prompt_path": ("text_input", "{one_bad}")},
    {"bench_prompt_source": ("radio", "dataset file"), "bench_prompt_path": ("text_input", UNICODE)},
    {"bench_prompt_source": ("radio", "dataset file"), "bench_prompt_path": ("text_input", "{odd}/numbers.jsonl")},
    {"bench_prompt_source": ("radio", "dataset file"), "bench_prompt_path": ("text_input", "{odd}/nested.jsonl")},
    {"bench_prompt_source": ("radio", "dataset file"), "bench_prompt_path": ("text_input", "{odd}/empty.jsonl")},
]


@pytest.mark.parametrize("widgets", BENCH_CASES)
def test_bench_hostile_input(files: dict[str, str], widgets: dict[str, tuple[str, Any]]) -> None:
    at = page("bench")
    at.session_state["bench_form_open"] = True  # "Run a benchmark" is built while open
    at.run()
    assert not at.exception
    set_widgets(at, {**BENCH_BASE, **widgets}, files)
    at.button(key="bench_run").click().run()
    assert not at.exception, at.exception
    if "bench_job" in at.session_state:
        job = at.session_state["bench_job"]
        assert job.done.wait(60), "the benchmark thread did not finish"
        at.run()
        assert not at.exception, at.exception
    assert at.error, messages(at)  # every case is refused: bad input, or nothing listening on the port
    assert SENTINEL not in " ".join(messages(at))


# ------------------------------------------------------------------ Acceptance vs data (no button)

SCALING_CASES = [
    # (widgets, refused)
    # out of range: Streamlit keeps the last valid value, the page must still render
    ({"sc_target": ("number_input", -1.0)}, False),
    ({"sc_target": ("number_input", 0.0)}, False),
    ({"sc_target": ("number_input", 1.0)}, False),
    ({"sc_target": ("number_input", 1e9)}, False),
    ({"sc_target": ("number_input", float("nan"))}, False),
    ({"sc_vol_pick": ("selectbox", "typed in"), "sc_vol_typed": ("number_input", -5)}, False),
    ({"sc_vol_pick": ("selectbox", "typed in"), "sc_vol_typed": ("number_input", 0)}, False),
    ({"sc_vol_pick": ("selectbox", "typed in"), "sc_vol_typed": ("number_input", 10**15)}, False),
    ({"sc_x": ("radio", "tokens"), "sc_group": ("selectbox", "(none)")}, False),
    ({"sc_x": ("radio", "tokens"), "sc_vol_pick": ("selectbox", "typed in")}, False),
    # the learning-curve section: hostile paths are refused with a message, odd numbers still render
    ({"lc_path": ("text_input", "{missing}")}, True),
    ({"lc_path": ("text_input", "{dir}")}, True),
    ({"lc_path": ("text_input", "{rand}")}, True),
    ({"lc_path": ("text_input", "{odd}/numbers.jsonl")}, True),
    ({"lc_path": ("text_input", "{one_bad}"), "lc_batch": ("number_input", -5)}, True),
    ({"lc_steps": ("number_input", 10**6)}, False),
    ({"lc_epoch": ("number_input", 10**15), "lc_batch": ("number_input", 10**15)}, False),
]


@pytest.mark.parametrize(("widgets", "refused"), SCALING_CASES)
def test_scaling_hostile_input(files: dict[str, str], widgets: dict[str, tuple[str, Any]], refused: bool) -> None:
    at = page("scaling")
    if any(key.startswith("lc_") for key in widgets):
        at.session_state["sc_tab"] = "Learning curve"  # built only while shown
    at.run()
    assert not at.exception
    set_widgets(at, widgets, files)
    at.run()
    assert not at.exception, at.exception
    if refused:
        assert at.error or at.warning, messages(at)


def test_scaling_every_benchmark_setting_and_axis_renders() -> None:
    """Every choice the selectors offer, at both ends of the target range: a page, never a traceback."""
    from comparelib.analysis import scaling

    at = page("scaling").run()
    benches = scaling.benchmarks(scaling.published_points())  # raw values: the options are shown formatted
    assert len(benches) == len(at.selectbox(key="sc_bench").options)
    for x, bench_list in (("samples", benches), ("tokens", benches[:3])):
        at.radio(key="sc_x").set_value(x).run()
        for bench in bench_list:
            at.selectbox(key="sc_bench").set_value(bench).run()
            assert not at.exception, (x, bench, at.exception)
    at.radio(key="sc_x").set_value("samples").run()
    at.selectbox(key="sc_bench").set_value("gsm8k").run()
    for setting in at.selectbox(key="sc_setting").options:  # shown as "key — n points, ...": set the key
        at.selectbox(key="sc_setting").set_value(setting.split(" — ")[0]).run()
        assert not at.exception, (setting, at.exception)
    for target in (1.05, 20.0):
        at.number_input(key="sc_target").set_value(target).run()
        assert not at.exception, (target, at.exception)
    for ref in at.selectbox(key="sc_ref").options:
        at.selectbox(key="sc_ref").set_value(ref).run()
        assert not at.exception, (ref, at.exception)


def test_overview_every_reference_and_own_draft_renders() -> None:
    at = page("overview").run()
    refs = list(at.selectbox(key="ov_ref").options)
    for ref in refs:
        at.selectbox(key="ov_ref").set_value(ref).run()
        assert not at.exception, (ref, at.exception)
        assert not at.error, (ref, [e.value for e in at.error])
    # a published draft for the target without a config is a reference (data and acceptance), not a pasteable draft
    from comparelib.analysis import overview

    countable = set(overview.reference_choices())
    assert set(refs) - countable, "the example's target has published drafts without a config: offered too"
    for own in [r for r in refs if r in countable]:
        at.sidebar.text_input(key="draft_source").set_value(f"registry:{own}")
        at.sidebar.button[0].click().run()
        assert not at.exception, (own, at.exception)
        assert not at.error, (own, [e.value for e in at.error])


def test_compare_every_published_draft_at_once() -> None:
    at = page("compare").run()
    options = list(at.multiselect(key="compare_picks").options)
    at.multiselect(key="compare_picks").set_value(options)
    at.text_area(key="compare_urls").set_value("")
    at.text_input(key="compare_target_layers").set_value("61")
    at.button[0].click().run()
    assert not at.exception, at.exception
    # Loading never fails; wiring lint may (61 layers is the wrong target for most drafts), and says so in
    # its per-draft headline, which is an error box too.
    assert not [e.value for e in at.error if "Act on this first" not in e.value]
    assert len(at.dataframe[0].value) == len(options)


# ------------------------------------------------------------------ HF_TOKEN never rendered


class RecordingMediaStorage(MemoryMediaFileStorage):
    """Keeps every instance AppTest creates, so the test can read what the download buttons would serve."""

    instances: list[MemoryMediaFileStorage] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        RecordingMediaStorage.instances.append(self)


def _walk(node: Any) -> list[Any]:
    out = [node]
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            out.extend(_walk(child))
    return out


def test_hf_token_never_rendered_on_compare(hub: HubEmulator, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_TOKEN", SENTINEL)
    monkeypatch.setattr(app_test_mod, "MemoryMediaFileStorage", RecordingMediaStorage)
    RecordingMediaStorage.instances = []
    # exports are made when their button is clicked (a deferred callable): record the callables to make them here
    deferred: list[Any] = []
    add_deferred = MediaFileManager.add_deferred

    def recording(self: MediaFileManager, data_callable: Any, *args: Any, **kwargs: Any) -> str:
        deferred.append(data_callable)
        return add_deferred(self, data_callable, *args, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add_deferred", recording)
    hub.add_model("acme/gated", aq_config(), gated=True)
    at = page("compare").run()
    at.multiselect(key="compare_picks").set_value([AQ])
    at.text_area(key="compare_urls").set_value(f"acme/gated\n{hub.url}/acme/gated/tree/main")
    at.text_input(key="compare_target").set_value(f"{hub.url}/acme/gated")
    at.button[0].click().run()
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert "acme/gated" in errors  # the gated repo was refused with a message
    texts: list[str] = []
    for node in _walk(at._tree):
        proto = getattr(node, "proto", None)
        if proto is not None:
            texts.append(str(proto))
        for attr in ("value", "body", "label"):
            try:
                value = getattr(node, attr, None)
            except Exception:  # noqa: BLE001 - some nodes have no value outside a run
                continue
            if value is not None:
                texts.append(str(value))
    for df in at.dataframe:
        texts.append(df.value.to_csv())
        texts.extend(export.render(df.value, fmt) for fmt in export.FORMATS)
    served = [f.content for storage in RecordingMediaStorage.instances for f in storage._files_by_id.values()]
    served += [make() for make in deferred]
    assert served, "the download buttons should have registered their data"
    texts.extend(b.decode("utf-8", "replace") if isinstance(b, bytes) else str(b) for b in served)
    texts.append(json.dumps({k: at.query_params[k] for k in at.query_params}))
    for text in texts:
        assert SENTINEL not in text
    assert any(r.authorized for r in hub.requests), "the token should have been sent to the Hub"
    assert not any(SENTINEL in r.path or SENTINEL in r.query for r in hub.requests)


def test_hf_token_never_rendered_on_audit(hub: HubEmulator, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_TOKEN", SENTINEL)
    hub.add_repo("acme/gated-ds", {"train.jsonl": b'{"text": "hi"}\n'}, repo_type="dataset", gated=True)
    hub.add_model("acme/gated-tok", aq_config(), gated=True)
    for source, tokenizer in (
        ("acme/gated-ds", ""),
        (f"{hub.url}/datasets/acme/gated-ds", ""),
        ("acme/missing-ds", ""),
        ("acme/gated-ds", "acme/gated-tok"),
    ):
        at = page("audit").run()
        at.text_input(key="audit_source").set_value(source)
        at.text_input(key="audit_tokenizer").set_value(tokenizer)
        at.button(key="audit_run").click().run()
        assert not at.exception, at.exception
        assert at.error, (source, messages(at))
        shown = " ".join(messages(at) + [m.value for m in at.markdown] + [c.value for c in at.caption])
        assert SENTINEL not in shown
    assert not any(SENTINEL in r.path or SENTINEL in r.query for r in hub.requests)


# ------------------------------------------------------------------ CLI: exit 2, one "error:" line

CLI_CASES = [
    ("params", ["params", ""]),
    ("params", ["params", "   "]),
    ("params", ["params", "{dir}"]),
    ("params", ["params", "{rand}"]),
    ("params", ["params", "{bad_cfg}"]),
    ("params", ["params", "{list_cfg}"]),
    ("params", ["params", "file:///etc/passwd"]),
    ("params", ["params", f"{CLOSED}/org/name"]),
    ("params", ["params", UNICODE]),
    ("params", ["params", f"https://user:{SENTINEL}@huggingface.co/acme/draft"]),
    ("params", ["params", f"https://{SENTINEL}@huggingface.co:x/acme/draft"]),
    ("params", ["params", f"registry:{AQ}", "--target-layers", "abc"]),
    ("params", ["params", f"registry:{AQ}", "--target", "{missing}"]),
    ("compare", ["compare", "{missing}"]),
    ("compare", ["compare", "{missing}", "{rand}"]),
    ("compare", ["compare", f"registry:{AQ}", "--db", "nope://x"]),
    ("compare", ["compare", f"registry:{AQ}", "--format", "xlsx"]),
    ("audit", ["audit", ""]),
    ("audit", ["audit", "{dir}"]),
    ("audit", ["audit", "{rand}"]),
    ("audit", ["audit", "file:///etc/passwd"]),
    ("audit", ["audit", "{odd}/random.parquet"]),
    ("audit", ["audit", "{odd}/numbers.jsonl"]),
    ("audit", ["audit", "{odd}/nested.jsonl"]),
    ("audit", ["audit", "{one_bad}", "--max-length", "-5"]),
    ("audit", ["audit", "{one_bad}", "--sample", "0"]),
    ("audit", ["audit", "{one_bad}", "--format", "nope"]),
    ("audit", ["audit", "{one_bad}", "--tokenizer", "{rand}"]),
    ("audit-dump", ["audit-dump", "{missing}"]),
    ("audit-dump", ["audit-dump", "{dir}"]),
    ("audit-dump", ["audit-dump", "{rand}"]),
    ("audit-dump", ["audit-dump", "{dir}", "--config", "{rand}"]),
    ("audit-dump", ["audit-dump", "{dir}", "--max-files", "-1"]),
    ("audit-dump", ["audit-dump", "{dir}", "--embedding", "{rand}"]),
    ("bench", ["bench", "--endpoint", CLOSED, "--requests", "1", "--warmup", "0", "--timeout", "2"]),
    ("bench", ["bench", "--endpoint", "file:///etc/passwd"]),
    ("bench", ["bench", "--endpoint", f"http://user:{SENTINEL}@127.0.0.1:1/v1?api_key={SENTINEL}"]),
    ("bench", ["bench", "--endpoint", ""]),
    ("bench", ["bench", "--endpoint", CLOSED, "--concurrency", "-1"]),
    ("bench", ["bench", "--endpoint", CLOSED, "--requests", "0"]),
    ("bench", ["bench", "--endpoint", CLOSED, "--timeout", "-1"]),
    ("bench", ["bench", "--endpoint", CLOSED, "--temperature", "nan"]),
    ("bench", ["bench", "--endpoint", CLOSED, "--prompts", "{missing}"]),
    ("bench", ["bench", "--endpoint", CLOSED, "--prompts", "{rand}"]),
    ("bench", ["bench", "--endpoint", CLOSED, "--prompts", "{dir}"]),
    ("bench", ["bench", "--endpoint", CLOSED, "--prompts", "{odd}/numbers.jsonl"]),
    ("bench", ["bench", "--endpoint", CLOSED, "--prompts", "{odd}/nested.jsonl"]),
    ("bench", ["bench", "--endpoint", CLOSED, "--db", "nope://"]),
    ("runs", ["runs", "--db", "nope://"]),
    ("runs", ["runs", "--db", ""]),
    ("runs", ["runs", "--db", f"postgresql+psycopg2://bob:{SENTINEL}@127.0.0.1:1/x"]),
    ("runs", ["runs", "--db", "sqlite:///{dir}"]),
    ("runs", ["runs", "--db", "sqlite:///{rand}"]),
    ("import", ["import", "{missing}"]),
    ("import", ["import", "{dir}"]),
    ("import", ["import", "{rand}"]),
    ("import", ["import", "{one_bad}"]),
    ("import", ["import", "{odd}/numbers.jsonl"]),
    ("import", ["import", "{odd}/empty.jsonl"]),
    ("import", ["import", "{odd}/scalar.json"]),
    ("scaling", ["scaling", "--benchmark", "nope"]),
    ("scaling", ["scaling", "--benchmark", ""]),
    ("scaling", ["scaling", "--setting", "zz"]),
    ("scaling", ["scaling", "--target-accept", "-1"]),
    ("scaling", ["scaling", "--target-accept", "inf"]),
    ("scaling", ["scaling", "--own-samples", "nan"]),
    ("scaling", ["scaling", "--own-samples", "inf"]),
    ("scaling", ["scaling", "--reference", "nope/nope", "--own-samples", "1000"]),
    ("curve", ["curve", "{missing}"]),
    ("curve", ["curve", "{dir}"]),
    ("curve", ["curve", "{rand}"]),
    ("curve", ["curve", "{rand}", "--format", "tensorboard"]),
    ("curve", ["curve", "{rand}", "--format", "csv"]),
    ("curve", ["curve", "{odd}/numbers.jsonl"]),
    ("curve", ["curve", "{one_bad}", "--batch-size", "-1"]),
    ("curve", ["curve", "{one_bad}", "--batch-size", "nan"]),
    ("curve", ["curve", "{one_bad}", "--steps", "0"]),
    ("curve", ["curve", "{one_bad}", "--format", "wandb"]),
    ("speedup", ["speedup", "--run-group", "nope"]),
    ("speedup", ["speedup", "--run-group", ""]),
    ("speedup", ["speedup", "--run-group", "example-kimi-k2.5", "--max-steps", "0"]),
    ("speedup", ["speedup", "--run-group", "example-kimi-k2.5", "--baseline-run", "99999"]),
    ("speedup", ["speedup", "--run-group", "example-kimi-k2.5", "--target-accept", "nan"]),
    ("speedup", ["speedup", "--run-group", "example-kimi-k2.5", "--target-accept", "inf"]),
    ("speedup", ["speedup", "--run-group", "example-kimi-k2.5", "--target-accept", "2.5", "--at-steps", "0"]),
    ("speedup", ["speedup", "--run-group", "example-kimi-k2.5", "--draft-cost", "{rand}"]),
    ("speedup", ["speedup", "--run-group", "example-kimi-k2.5", "--draft-step-ms", "nan"]),
    ("draft-cost", ["draft-cost", "{missing}", "--device", "cpu"]),
    ("draft-cost", ["draft-cost", "{rand}", "--device", "cpu"]),
    ("draft-cost", ["draft-cost", "{bad_cfg}", "--device", "cpu"]),
    ("draft-cost", ["draft-cost", "registry:yuhuili/EAGLE-LLaMA3-Instruct-8B", "--device", "cpu"]),
    ("draft-cost", ["draft-cost", f"registry:{AQ}", "--device", "cpu", "--batch", "0"]),
    ("draft-cost", ["draft-cost", f"registry:{AQ}", "--device", "cpu", "--steps", "99"]),
    ("draft-cost", ["draft-cost", f"registry:{AQ}", "--device", "cpu", "--context", "-1"]),
    ("draft-cost", ["draft-cost", f"registry:{AQ}", "--device", "tpu"]),
    ("draft-cost", ["draft-cost", f"registry:{AQ}", "--device", "cpu", "--batch", "4096", "--context", "1048576"]),
    ("plan", ["plan", ""]),
    ("plan", ["plan", "{missing}"]),
    ("plan", ["plan", "{bad_cfg}"]),
    ("plan", ["plan", "example", "--gpu", "TPU9"]),
    ("plan", ["plan", "example", "--target-al", "nan"]),
    ("plan", ["plan", "example", "--steps", "0"]),
    ("plan", ["plan", "example", "--curve", "{missing}"]),
    ("plan", ["plan", "example", "--curve", "{rand}", "--batch-size", "8"]),
    ("plan", ["plan", "example", "--offline", "{rand}"]),
    ("plan", ["plan", "example", "--offline", "{bad_cfg}"]),
    ("overview", ["overview", ""]),
    ("overview", ["overview", "{missing}"]),
    ("overview", ["overview", "{bad_cfg}"]),
    ("overview", ["overview", "{list_cfg}"]),
    ("overview", ["overview", "example", "--samples", "-3"]),
    ("overview", ["overview", "example", "--curve", "{missing}"]),
    ("overview", ["overview", "example", "--curve", "{rand}"]),
    ("overview", ["overview", "example", "--reference", "nope/nope"]),
    ("overview", ["overview", "example", "--group", "no-such-group"]),
    ("eval-draft", ["eval-draft", "{empty_cfg}", "--dumps", "{missing}"]),
    ("eval-draft", ["eval-draft", "{empty_cfg}", "--dumps", "{dir}"]),
    ("eval-draft", ["eval-draft", "{missing}", "--dumps", "{odd}/dumps/specforge"]),
    ("eval-draft", ["eval-draft", "{bad_cfg}", "--dumps", "{odd}/dumps/specforge"]),
    ("eval-draft", ["eval-draft", "{empty_cfg}", "--dumps", "{odd}/dumps/specforge"]),
    ("eval-draft", ["eval-draft", "{list_cfg}", "--dumps", "{odd}/dumps/modelopt"]),
    ("eval-draft", ["eval-draft", "{empty_cfg}", "--dumps", "{odd}/dumps/specforge", "--steps", "0"]),
    ("eval-draft", ["eval-draft", "{empty_cfg}", "--dumps", "{odd}/dumps/specforge", "--device", "tpu"]),
    ("eval-draft", ["eval-draft", "{empty_cfg}", "--dumps", "{odd}/dumps/specforge", "--dtype", "fp16"]),
    ("eval-draft", ["eval-draft", "{empty_cfg}", "--dumps", "{odd}/dumps/specforge", "--data", "{rand_jsonl}"]),
    ("eval-draft", ["eval-draft", "{empty_cfg}", "--dumps", "{odd}/dumps/specforge", "--draft-cost", "{rand}"]),
    ("eval-draft", ["eval-draft", "{empty_cfg}", "--dumps", "{odd}/dumps/specforge", "--max-samples", "0"]),
]


def test_cli_cases_cover_every_sub_command() -> None:
    from comparelib.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert set(sub.choices) == {name for name, _ in CLI_CASES}


@pytest.mark.parametrize(("command", "argv"), CLI_CASES, ids=[f"{c}-{i}" for i, (c, _) in enumerate(CLI_CASES)])
def test_cli_bad_input_exits_2_with_one_error_line(
    files: dict[str, str], tmp_path: Path, command: str, argv: list[str]
) -> None:
    args = [fill(a, files) for a in argv]
    if command in ("bench", "import", "speedup", "overview") and "--db" not in args:
        args += ["--db", f"sqlite:///{tmp_path / 'cli.sqlite'}"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_TOKEN": SENTINEL}
    proc = subprocess.run(
        [sys.executable, "-m", "comparelib", *args], capture_output=True, text=True, timeout=120, cwd=ROOT, env=env
    )
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert len(lines) == 1 and lines[0].startswith("error:"), proc.stderr
    assert "Traceback" not in proc.stderr
    assert SENTINEL not in proc.stderr + proc.stdout


@pytest.mark.parametrize("kind", ["specforge", "modelopt", "speculators"])
def test_cli_corrupt_dump_files_are_findings_not_tracebacks(files: dict[str, str], kind: str) -> None:
    """Random bytes under a dump's file names: the audit itself works and reports each file as unreadable."""
    proc = subprocess.run(
        [sys.executable, "-m", "comparelib", "audit-dump", f"{files['odd']}/dumps/{kind}"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 1, proc.stderr  # 1: a broken dump, after the report (2 is unusable input)
    assert "Traceback" not in proc.stderr
    assert "[error] unreadable" in proc.stdout and "verdict: broken" in proc.stdout


OFFLINE_CASES = [
    # (draft, dumps, confine to the data root): each is refused with a message after "Evaluate"
    ("{empty_cfg}", "{missing}", False),
    ("{rand}", "{odd}/dumps/specforge", False),
    ("{empty_cfg}", "{odd}/dumps/specforge", False),
    ("{empty_cfg}", "/etc", True),
]


@pytest.mark.parametrize(("draft", "dumps", "confine"), OFFLINE_CASES)
def test_offline_section_hostile_input(
    files: dict[str, str], monkeypatch: pytest.MonkeyPatch, draft: str, dumps: str, confine: bool
) -> None:
    if confine:
        monkeypatch.setenv("SPECDRAFT_DATA_ROOT", str(Path(files["dir"]).parent))
    at = page("scaling")
    at.session_state["sc_tab"] = "Before serving"  # built only while shown
    at.run()
    assert not at.exception
    at.text_input(key="od_draft").set_value(fill(draft, files))
    at.text_input(key="od_dumps").set_value(fill(dumps, files)).run()
    at.button(key="od_run").click().run()
    assert not at.exception, at.exception
    assert at.error, messages(at)
    if confine:
        assert any("outside the data root" in e.value for e in at.error)
