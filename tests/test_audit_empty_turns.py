"""Walk R: rows with an empty user or assistant turn are a finding of their own (they still count as samples, as
the trainers keep them), a share never reads 0.0% or 100.0% when it is not, and the dump tab checks against the
sidebar draft's config."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from comparelib.audit import conversations as cm
from comparelib.audit import scan
from comparelib.audit.result import percent, share_value
from tests.fixtures import page_app
from tests.tokenizer_fixture import build_tokenizer

U, A = "user", "assistant"
PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "audit.py")
CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


def _sg(*turns: tuple[str, Any]) -> dict:
    return {"conversations": [{"from": r, "value": v} for r, v in turns]}


def _oa(*messages: dict) -> dict:
    return {"messages": list(messages)}


# (case, row, format, expected (message number, role) of each empty turn)
EMPTY_TURN_CASES: list[tuple[str, dict, str, list[tuple[int, str]]]] = [
    ("every turn written", _sg(("human", "q"), ("gpt", "a")), "sharegpt", []),
    ("empty assistant", _sg(("human", "Hello?"), ("gpt", "")), "sharegpt", [(2, A)]),
    ("empty user", _sg(("human", ""), ("gpt", "Nothing was asked.")), "sharegpt", [(1, U)]),
    ("whitespace only", _sg(("human", "q"), ("gpt", " \n\t ")), "sharegpt", [(2, A)]),
    (
        "null content",
        _oa({"role": "user", "content": "q"}, {"role": "assistant", "content": None}),
        "openai",
        [(2, A)],
    ),
    (
        "empty content parts",
        _oa({"role": "user", "content": []}, {"role": "assistant", "content": "a"}),
        "openai",
        [(1, U)],
    ),
    (
        "second exchange's answer",
        _sg(("human", "q1"), ("gpt", "a1"), ("human", "q2"), ("gpt", "")),
        "sharegpt",
        [(4, A)],
    ),
    (
        "both turns of two",
        _sg(("human", "q"), ("gpt", ""), ("human", " "), ("gpt", "a")),
        "sharegpt",
        [(2, A), (3, U)],
    ),
    (
        "a tool call is not empty",
        _oa({"role": "user", "content": "q"}, {"role": "assistant", "content": None, "tool_calls": [CALL]}),
        "openai",
        [],
    ),
    (
        "reasoning only is not empty",
        _oa({"role": "user", "content": "q"}, {"role": "assistant", "content": "", "reasoning_content": "think"}),
        "openai",
        [],
    ),
    (
        "an empty system prompt is not flagged",
        _oa(
            {"role": "system", "content": ""}, {"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}
        ),
        "openai",
        [],
    ),
    (
        "an empty tool result is not flagged",
        _oa(
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "", "tool_calls": [CALL]},
            {"role": "tool", "content": ""},
            {"role": "assistant", "content": "a"},
        ),
        "openai",
        [],
    ),
    (
        "a dropped role still counts in the message number",
        _sg(("narrator", "once"), ("human", ""), ("gpt", "a")),
        "sharegpt",
        [(2, U)],
    ),
    ("a leading turn the trainer drops", _sg(("gpt", ""), ("human", "q"), ("gpt", "a")), "sharegpt", []),
    ("empty response", {"prompt": "q", "response": ""}, "prompt_response", [(2, A)]),
]


@pytest.mark.parametrize(("case", "row", "fmt", "expected"), EMPTY_TURN_CASES, ids=[c[0] for c in EMPTY_TURN_CASES])
def test_empty_turns(case: str, row: dict, fmt: str, expected: list[tuple[int, str]]) -> None:
    conv = cm.normalize(row, fmt)
    positions, _anomalies = cm.trainable_positions(conv.turns)
    assert cm.empty_turns(conv, positions) == expected
    assert not cm.is_empty(conv)  # a row with some turn written is a sample, not an empty row


# (fraction, percent shown, summary-table value)
PERCENT_CASES: list[tuple[float, str, float]] = [
    (0.0, "0.0%", 0.0),
    (1.0, "100.0%", 1.0),
    (1 / 2993, "<0.1%", 0.0003),  # walk R: "Over max_length 2,048: 1 (0.0%)"
    (1 / 40_000, "<0.1%", 2.5e-05),  # the table's 4 places would read 0.0
    (0.0005, "0.1%", 0.0005),
    (7 / 2993, "0.2%", 0.0023),
    (0.5, "50.0%", 0.5),
    (2992 / 2993, ">99.9%", 0.9997),
    (39_999 / 40_000, ">99.9%", 0.999975),  # nor 1.0
    (0.9994, "99.9%", 0.9994),
    (20 / 320, "6.3%", 0.0625),  # walk W: a half rounds up (Python's format rounds it to even: 6.2%)
    (1 / 8, "12.5%", 0.125),
    (0.00125, "0.1%", 0.0013),
]


@pytest.mark.parametrize(("fraction", "shown", "value"), PERCENT_CASES)
def test_a_share_never_reads_none_or_all_when_it_is_not(fraction: float, shown: str, value: float) -> None:
    assert percent(fraction) == shown
    assert share_value(fraction) == pytest.approx(value)
    assert (share_value(fraction) > 0) == (fraction > 0) and (share_value(fraction) < 1) == (fraction < 1)


# --------------------------------------------------------------------------- the audit


def _walk_rows(n: int = 2993) -> list[dict]:
    """Walk R's set in small: ShareGPT rows, six with an empty answer, one with an empty question, one long."""
    rows = [
        _sg(("human", f"Question {i}: how do I sort a list?"), ("gpt", f"Use sorted(), answer {i}.")) for i in range(n)
    ]
    for i in (63, 193, 979, 1169, 1342, 2978):
        rows[i] = _sg(("human", "Hello?"), ("gpt", ""))
    rows[1316] = _sg(("human", ""), ("gpt", "Nothing was asked."))
    rows[400] = _sg(("human", "Write a lot."), ("gpt", "word " * 300))
    return rows


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def tok(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tokenizer(tmp_path_factory.mktemp("tok") / "chatml")


@pytest.fixture(scope="module")
def walk_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write(tmp_path_factory.mktemp("data") / "train.jsonl", _walk_rows())


def test_rows_with_an_empty_turn_are_flagged_and_still_samples(walk_file: Path, tok: Path) -> None:
    res = scan.audit(str(walk_file), tokenizer=str(tok), max_length=256)
    assert res.samples == 2993 and res.empty == 0 and res.malformed == 0  # as the trainers keep them
    assert res.empty_turn_rows == 7 and res.empty_turn_roles == {"assistant": 6, "user": 1}
    assert [ex["line"] for ex in res.empty_turn_examples] == [64, 194, 980, 1170, 1317]
    assert res.empty_turn_examples[4]["empty turns"] == "message 1 (user)"
    assert res.empty_turn_example_rows()[0] == {
        "line": 64,
        "empty turns": "message 2 (assistant)",
        "roles": "user → assistant",
    }
    assert res.share(res.empty_turn_rows) == "0.2%"
    assert res.empty_turn_note.startswith(
        "7 of 2,993 samples (0.2%) have an empty or whitespace-only user or assistant turn (1 with an empty user "
        "turn, 6 with an empty assistant turn): they are counted as samples"
    )
    assert res.empty_turn_note in res.notes
    rows = dict(res.summary_rows())
    assert rows["rows with an empty turn"] == 7
    assert rows["rows with an empty assistant turn"] == 6 and rows["rows with an empty user turn"] == 1
    assert res.over_max_length == 1 and rows["over max_length share"] > 0


def test_estimate_mode_shares_the_sample(walk_file: Path, tok: Path) -> None:
    res = scan.audit(str(walk_file), tokenizer=str(tok), sample=1000, seed=3)
    kept = res.rows_read - res.malformed - res.empty
    assert res.estimated and 0 < res.empty_turn_rows < 7
    assert res.share(res.empty_turn_rows) == percent(res.empty_turn_rows / kept)
    assert f"of {kept:,} samples in the sample" in res.empty_turn_note


def test_the_cli_prints_the_count_and_the_note(walk_file: Path, tok: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.fixtures import cli_in_process

    out = cli_in_process(capsys, "audit", str(walk_file), "--tokenizer", str(tok))
    assert out.returncode == 0, out.stderr
    assert any(line.split() == ["rows", "with", "an", "empty", "turn", "7"] for line in out.stdout.splitlines())
    assert "note: 7 of 2,993 samples (0.2%) have an empty" in out.stdout


# --------------------------------------------------------------------------- the page


def _metric(at: Any, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_the_page_shows_empty_turns_and_no_zero_share(walk_file: Path, tok: Path) -> None:
    at = page_app(PAGE, timeout=120).run()
    at.text_input(key="audit_source").set_value(str(walk_file))
    at.text_input(key="audit_tokenizer").set_value(str(tok))
    at.number_input(key="audit_max_length").set_value(256)
    at.button(key="audit_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert _metric(at, "Samples") == "2,993"
    assert _metric(at, "Over max_length 256") == "1 (<0.1%)"  # walk R: "1 (0.0%)"
    assert _metric(at, "Rows with an empty turn") == "7 (0.2%)"
    assert _metric(at, "Empty rows") == "0"
    examples = next(d.value for d in at.dataframe if "empty turns" in d.value.columns)
    assert list(examples["line"]) == ["64", "194", "980", "1170", "1317"]
    said = [c.value for c in at.caption]
    assert sum("have an empty or whitespace-only user or assistant turn" in c for c in said) == 1, said
    assert any("they are counted as samples, as SpecForge and speculators train on them" in c for c in said)


# --------------------------------------------------------------------------- the dump tab and the sidebar's draft

DRAFT = "walkr-lab/tiny-eagle3"


def _tiny_draft_config() -> dict[str, Any]:
    return {
        "architectures": ["LlamaForCausalLMEagle3"],
        "model_type": "llama",
        "hidden_size": 32,
        "target_hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 1,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "vocab_size": 96,
        "draft_vocab_size": 48,
        "max_position_embeddings": 2048,
        "rms_norm_eps": 1e-6,
        "torch_dtype": "bfloat16",
        "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 5, 8]},
    }


def _dump_with_one_narrow_file(root: Path) -> Path:
    """Four SpecForge files; file 3's aux holds two layers, not three (walk R's hs_3)."""
    from tests import dump_fixtures as fx

    def two_layers(i: int, rec: dict[str, Any]) -> None:
        if i == 3:
            rec["aux_hidden_state"] = rec["aux_hidden_state"][..., : 2 * fx.HIDDEN].contiguous()

    return fx.build_dump(root, "specforge", n_files=4, mutate=two_layers)


def _run_dumps(at: Any, folder: Path, **fields: Any) -> Any:
    at.text_input(key="dumps_folder").set_value(str(folder))
    for key, value in fields.items():
        (at.number_input(key=key) if key == "dumps_hidden" else at.text_input(key=key)).set_value(value)
    return at.button(key="dumps_run").click().run()


def test_the_dump_tab_checks_against_the_sidebar_drafts_config(tmp_path: Path, hub: Any) -> None:
    import streamlit as st

    hub.add_model(DRAFT, _tiny_draft_config())
    root = _dump_with_one_narrow_file(tmp_path / "dump")
    st.cache_data.clear()  # another test's read of a draft stays cached per process
    at = page_app(PAGE, timeout=90)
    at.query_params["draft"] = DRAFT
    at.run()
    assert not at.exception, at.exception
    said = " ".join(c.value for c in at.caption)
    assert (
        f"With no config given here, the files are checked against your draft's config (`{DRAFT}`, the sidebar's "
        "draft): target hidden size 32 (its target_hidden_size; aux = 3 × 32 = 96), vocab 96 (its vocab_size), "
        "aux layer ids [1, 5, 8]. A config or a target hidden size given here replaces it."
    ) in said, said
    _run_dumps(at, root)
    assert not at.exception
    assert [e.value for e in at.error] == ["verdict: broken - 1 error"]  # hs_3's aux, and nothing else
    lines = " ".join(t.value for t in at.text)
    assert "no_target_hidden" not in lines  # walk R: "no target hidden size given" with the draft set
    assert "aux_width (rows_0-2000/data_3.ckpt)" in lines and "([1, 5, 8])" in lines, lines
    said = " ".join(c.value for c in at.caption)
    assert f"Checked against your draft's config (`{DRAFT}`, the sidebar's draft): target hidden size 32" in said

    # a config typed here replaces the sidebar draft's: its hidden size is the one checked
    other = tmp_path / "other" / "config.json"
    other.parent.mkdir()
    other.write_text(json.dumps({"target_hidden_size": 48}), encoding="utf-8")
    _run_dumps(at, root, dumps_config=str(other))
    lines = " ".join(t.value for t in at.text)
    assert "hidden_size" in lines and "Checked against your draft's config" not in " ".join(
        c.value for c in at.caption
    )


def test_the_dump_tab_without_a_draft_says_none_was_given(tmp_path: Path) -> None:
    root = _dump_with_one_narrow_file(tmp_path / "dump")
    at = page_app(PAGE, timeout=90).run()  # the built-in example draft: its config is not your dump's
    assert not any("the sidebar's draft" in c.value for c in at.caption)
    _run_dumps(at, root)
    assert not at.exception
    assert "no_target_hidden" in " ".join(t.value for t in at.text)


def test_the_dump_tab_says_when_the_sidebar_drafts_config_cannot_be_read(hub: Any) -> None:
    """Walk R2: a share link to a private draft (no token typed yet) read only "no target hidden size given"."""
    import streamlit as st

    hub.add_model(DRAFT, _tiny_draft_config(), private=True)
    st.cache_data.clear()
    at = page_app(PAGE, timeout=90)
    at.query_params["draft"] = DRAFT
    at.run()
    assert not at.exception, at.exception
    said = " ".join(c.value for c in at.caption)
    assert f"Your draft {DRAFT} could not be read" in said, said
    assert "The dumps are checked without its config until it can be read, or a config is given here." in said
    at.sidebar.text_input(key="hub_token").set_value(hub.token).run()
    said = " ".join(c.value for c in at.caption)
    assert "could not be read" not in said and "checked against your draft's config" in said, said
