"""Dataset shapes a fresh walk brought that the audit misread: Alpaca's input, tool calls, folders mixing
layouts, a {"data": [...]} document written on one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from comparelib.audit import conversations
from comparelib.audit import scan as audit

ALPACA_CASES = [
    # row, the user turn the trainer sees
    ({"instruction": "Sum the list.", "input": "[1, 2, 3]", "output": "6"}, "Sum the list.\n\n[1, 2, 3]"),
    ({"instruction": "Say hi.", "input": "", "output": "hi"}, "Say hi."),  # empty context: no blank lines
    ({"instruction": "Say hi.", "input": "  ", "output": "hi"}, "Say hi."),
    ({"input": "What is 2+2?", "output": "4"}, "What is 2+2?"),  # input alone is the prompt
    ({"prompt": "Q", "response": "A"}, "Q"),
]


@pytest.mark.parametrize(("row", "user"), ALPACA_CASES)
def test_alpaca_context_is_part_of_the_prompt(row: dict, user: str) -> None:
    conv = conversations.normalize(row, "prompt_response")
    assert conv.turns[0] == ("user", user)


TOOL_CASES = [
    # messages, row-level extras, flagged
    ([{"role": "user", "content": "weather?"}, {"role": "assistant", "content": "sunny"}], {}, False),
    (
        [
            {"role": "user", "content": "weather in Paris?"},
            {"role": "assistant", "content": None, "tool_calls": [{"function": {"name": "w", "arguments": "{}"}}]},
            {"role": "tool", "content": "18C"},
            {"role": "assistant", "content": "18C and sunny"},
        ],
        {},
        True,
    ),
    ([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}], {"tools": [{"name": "w"}]}, True),
]


@pytest.mark.parametrize(("messages", "extra", "flagged"), TOOL_CASES)
def test_tool_calls_are_flagged_as_not_counted(tmp_path: Path, messages: list, extra: dict, flagged: bool) -> None:
    """Without a tokenizer the fallback ChatML template renders role and content only: a row whose calls or
    schemas a target's template would render says its tokens are undercounted (they were counted silently: 68
    tokens against 166 for one tool-use row)."""
    path = tmp_path / "tools.jsonl"
    path.write_text(json.dumps({"messages": messages, **extra}) + "\n")
    res = audit.audit(str(path))
    assert (res.anomalies.get("tools_not_counted", 0) == 1) is flagged, res.anomalies
    note = next((n for n in res.notes if "tool calls or tool schemas" in n), None)
    assert (note is not None) is flagged, res.notes
    if flagged:
        assert note is not None and note.startswith("1 row(s) carry") and "undercounted" in note


def test_a_folder_mixing_layouts_says_which_rows_are_the_other_layout(tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    share = [
        {"conversations": [{"from": "human", "value": f"q{i}"}, {"from": "gpt", "value": f"a{i}"}]} for i in range(5)
    ]
    (folder / "a.jsonl").write_text("\n".join(json.dumps(r) for r in share) + "\n")
    oai = [
        {"messages": [{"role": "user", "content": f"u{i}"}, {"role": "assistant", "content": "x"}]} for i in range(3)
    ]
    (folder / "b.json").write_text(json.dumps(oai))
    res = audit.audit(str(folder))
    assert res.format == "sharegpt" and res.samples == 5 and res.malformed == 3
    assert any(n.startswith("3 of the malformed rows are OpenAI messages rows") for n in res.notes), res.notes


@pytest.mark.parametrize("indent", [None, 1])
def test_a_json_document_holding_its_rows_is_read_on_one_line_too(tmp_path: Path, indent: int | None) -> None:
    """json.dump({"data": rows}) writes one line; it was taken for a JSON Lines row and refused."""
    rows = [{"conversations": [{"from": "human", "value": f"q{i}"}, {"from": "gpt", "value": "a"}]} for i in range(4)]
    path = tmp_path / "rows.json"
    path.write_text(json.dumps({"data": rows}, indent=indent))
    res = audit.audit(str(path))
    assert res.samples == 4 and res.malformed == 0


def test_rows_differing_only_in_a_tool_call_are_not_duplicates(tmp_path: Path) -> None:
    """The duplicate hash read role and content only: two calls with different arguments were one row twice."""

    def row(city: str) -> dict:
        call = {"type": "function", "function": {"name": "weather", "arguments": json.dumps({"city": city})}}
        return {
            "messages": [
                {"role": "user", "content": "What is the weather?"},
                {"role": "assistant", "content": "", "tool_calls": [call]},
                {"role": "tool", "content": "sunny"},
                {"role": "assistant", "content": "It is sunny."},
            ]
        }

    path = tmp_path / "calls.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (row("Paris"), row("Oslo"), row("Paris"))) + "\n")
    res = audit.audit(str(path))
    assert res.duplicates == 1 and res.duplicate_examples == [{"line": 3, "same_as": 1}], res.duplicate_examples
