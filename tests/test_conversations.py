"""Row layouts -> (role, content) turns, format detection, regeneration markers, role-order checks."""

from __future__ import annotations

import pytest

from comparelib.audit import conversations as cm
from comparelib.audit import templates
from comparelib.errors import InputError

U, A = "user", "assistant"

# (row, format, expected turns, regenerated)
NORMALIZE_CASES = [
    (
        {"id": "1", "conversations": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]},
        "specforge",
        [(U, "hi"), (A, "yo")],
        False,
    ),
    (
        {"id": "1", "conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "yo"}]},
        "sharegpt",
        [(U, "hi"), (A, "yo")],
        False,
    ),
    (
        {
            "id": "1",
            "conversations": [
                {"from": "system", "value": "s"},
                {"from": "human", "value": "q"},
                {"from": "chatgpt", "value": "a"},
            ],
        },
        "sharegpt",
        [("system", "s"), (U, "q"), (A, "a")],
        False,
    ),
    (
        {
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
                {"role": "assistant", "content": None},
            ]
        },
        "openai",
        [(U, "ab"), (A, "")],
        False,
    ),
    (
        {
            "conversation_id": "c1",
            "conversations": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}],
        },
        "modelopt",
        [(U, "q"), (A, "a")],
        False,
    ),
    ({"text": "<|im_start|>user\nq<|im_end|>"}, "text", [("text", "<|im_start|>user\nq<|im_end|>")], False),
    ({"prompt": "q", "response": "a"}, "prompt_response", [(U, "q"), (A, "a")], False),
    (
        {"instruction": "q", "output": "a", "system": "s"},
        "prompt_response",
        [("system", "s"), (U, "q"), (A, "a")],
        False,
    ),
    # regeneration markers
    (
        {
            "id": "1",
            "status": "success",
            "conversations": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}],
        },
        "specforge",
        [(U, "q"), (A, "a")],
        True,
    ),
    (
        {
            "id": "1",
            "conversations": [
                {"role": "user", "content": "q"},
                {"role": "assistant", "content": "a", "reasoning_content": "think"},
            ],
        },
        "specforge",
        [(U, "q"), (A, "a")],
        False,  # reasoning_content alone: reasoning sets carry it from their own generation
    ),
    (
        {
            "id": "1",
            "status": "success",
            "conversations": [
                {"role": "user", "content": "q"},
                {"role": "assistant", "content": "a", "reasoning_content": "think"},
            ],
        },
        "specforge",
        [(U, "q"), (A, "a")],
        True,  # SpecForge's regeneration (--reasoning save) writes status beside it
    ),
    (
        {"id": "abc_gen2", "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]},
        "openai",
        [(U, "q"), (A, "a")],
        True,
    ),
    ({"text": "t", "metadata": {"finish_reason": "stop"}}, "text", [("text", "t")], True),
    ({"id": "gen2", "messages": [{"role": "user", "content": "q"}]}, "openai", [(U, "q")], False),
]


@pytest.mark.parametrize(("row", "fmt", "turns", "regenerated"), NORMALIZE_CASES)
def test_normalize(row: dict, fmt: str, turns: list, regenerated: bool) -> None:
    conv = cm.normalize(row, fmt)
    assert conv.turns == turns
    assert conv.regenerated is regenerated


DETECT_CASES = [
    ([{"id": "1", "conversations": [{"role": "user", "content": "x"}]}], "specforge"),
    ([{"conversation_id": "1", "conversations": [{"role": "user", "content": "x"}]}], "modelopt"),
    ([{"conversations": [{"from": "human", "value": "x"}]}], "sharegpt"),
    ([{"messages": [{"role": "user", "content": "x"}], "prompt_id": "p"}], "openai"),
    ([{"id": "1", "text": "x"}], "text"),
    ([{"prompt": "x", "completion": "y"}], "prompt_response"),
    ([{"foo": 1}, "not a dict", 3], None),
    ([{"text": "a"}, {"messages": []}, {"messages": []}], "openai"),
]


@pytest.mark.parametrize(("rows", "expected"), DETECT_CASES)
def test_detect_format(rows: list, expected: str | None) -> None:
    assert cm.detect_format(rows) == expected


BAD_ROWS = [
    ([1, 2], "specforge", "not an object"),
    ({"id": "1"}, "specforge", "no 'conversations'"),
    ({"conversations": "abc"}, "sharegpt", "expected a list"),
    ({"conversations": [{"value": "x"}]}, "sharegpt", "no 'from'"),
    ({"messages": [{"role": "user", "content": {"a": 1}}]}, "openai", "not text"),
    ({"text": 5}, "text", "no 'text'"),
    ({"prompt": "q"}, "prompt_response", "no prompt/response"),
]


@pytest.mark.parametrize(("row", "fmt", "message"), BAD_ROWS)
def test_bad_rows_raise_row_error(row: object, fmt: str, message: str) -> None:
    with pytest.raises(cm.RowError, match=message):
        cm.normalize(row, fmt)


ORDER_CASES = [
    ([(U, "q"), (A, "a")], [(U, "q"), (A, "a")], []),
    ([("system", "s"), (U, "q"), (A, "a")], [("system", "s"), (U, "q"), (A, "a")], []),
    ([(A, "x"), (U, "q"), (A, "a")], [(U, "q"), (A, "a")], ["starts_without_user"]),
    ([(U, "q"), (U, "q2"), (A, "a")], [(U, "q"), (U, "q2"), (A, "a")], ["consecutive_user"]),
    ([(U, "q"), (A, "a"), (A, "b")], [(U, "q"), (A, "a"), (A, "b")], ["consecutive_assistant"]),
    ([(U, "q")], [(U, "q")], ["no_assistant_turn"]),
    ([(U, "q"), (A, "a"), (U, "q2")], [(U, "q"), (A, "a"), (U, "q2")], ["ends_with_user"]),
    ([(U, "q"), ("system", "s"), (A, "a")], [(U, "q"), ("system", "s"), (A, "a")], ["system_in_middle"]),
    ([(U, "q"), ("tool", "r"), (A, "a")], [(U, "q"), ("tool", "r"), (A, "a")], []),
]


@pytest.mark.parametrize(("turns", "kept", "anomalies"), ORDER_CASES)
def test_trainable_turns(turns: list, kept: list, anomalies: list) -> None:
    out, found = cm.trainable_turns(turns)
    assert out == kept
    assert found == anomalies


def test_unknown_role_is_dropped_and_flagged() -> None:
    conv = cm.normalize(
        {
            "conversations": [
                {"from": "human", "value": "q"},
                {"from": "narrator", "value": "n"},
                {"from": "gpt", "value": "a"},
            ]
        },
        "sharegpt",
    )
    assert conv.turns == [(U, "q"), (A, "a")]
    assert conv.anomalies == ["unknown_role"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("auto", "auto"),
        ("ShareGPT", "sharegpt"),
        ("messages", "openai"),
        ("prompt-response", "prompt_response"),
        ("text", "text"),
    ],
)
def test_check_format(name: str, expected: str) -> None:
    assert cm.check_format(name) == expected


def test_check_format_rejects_unknown() -> None:
    with pytest.raises(InputError, match="unknown data format"):
        cm.check_format("csv-ish")


def test_empty_and_joined_text() -> None:
    assert cm.is_empty(cm.Conversation(turns=[(U, "  "), (A, "")]))
    assert not cm.is_empty(cm.Conversation(turns=[(U, "x")]))
    # the separator makes ("ab", "") and ("a", "b") different
    assert cm.joined_text([(U, "ab"), (A, "")]) != cm.joined_text([(U, "a"), (A, "b")])


# ---------------------------------------------------------------------------------------------
# Tool content: kept per turn the way SpecForge's parser cleans it, and handed to tool-aware templates

SCHEMA = {"type": "function", "function": {"name": "f", "parameters": {}}}
CLEAN_CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": {"x": 1}}}


def _oa(*messages: dict, **extra: object) -> dict:
    return {"messages": [{"role": "user", "content": "q"}, *messages], **extra}


# (row, format, turns, fields, tools, anomalies)
TOOL_ROWS = [
    # OpenAI call with string arguments: parsed to a dict, extra keys dropped, content None is ""
    (
        _oa(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "index": 0, "function": {"name": "f", "arguments": '{"x": 1}'}}
                ],
            }
        ),
        "openai",
        [(U, "q"), (A, "")],
        {1: {"tool_calls": [CLEAN_CALL]}},
        None,
        [],
    ),
    # dict arguments kept; missing id/type filled like SpecForge; arguments that are not JSON become {}
    (
        _oa(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"function": {"name": "f", "arguments": {"x": 1}}},
                    {"function": {"name": "g", "arguments": "not json"}},
                    "not a call",
                ],
            }
        ),
        "openai",
        [(U, "q"), (A, "")],
        {
            1: {
                "tool_calls": [
                    {"id": "", "type": "function", "function": {"name": "f", "arguments": {"x": 1}}},
                    {"id": "", "type": "function", "function": {"name": "g", "arguments": {}}},
                ]
            }
        },
        None,
        [],
    ),
    # tool_calls as a JSON string; the tool result keeps tool_call_id and name; tools as a JSON string
    (
        _oa(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": '[{"id": "c1", "function": {"name": "f", "arguments": {"x": 1}}}]',
            },
            {"role": "tool", "content": "42", "tool_call_id": "c1", "name": "f"},
            {"role": "assistant", "content": "42."},
            tools='[{"type": "function", "function": {"name": "f", "parameters": {}}}]',
        ),
        "openai",
        [(U, "q"), (A, ""), ("tool", "42"), (A, "42.")],
        {1: {"tool_calls": [CLEAN_CALL]}, 2: {"tool_call_id": "c1", "name": "f"}},
        [SCHEMA],
        [],
    ),
    # tool_calls that are not JSON are dropped (SpecForge does too); tools not JSON or empty: no tools
    (
        _oa({"role": "assistant", "content": "a", "tool_calls": "[oops"}, tools="{oops"),
        "openai",
        [(U, "q"), (A, "a")],
        {},
        None,
        [],
    ),
    (_oa({"role": "assistant", "content": "a"}, tools=[]), "openai", [(U, "q"), (A, "a")], {}, None, []),
    # the legacy function_call: no template reads it, so it stays flagged whatever the template
    (
        _oa({"role": "assistant", "content": "", "function_call": {"name": "f", "arguments": "{}"}}),
        "openai",
        [(U, "q"), (A, "")],
        {},
        None,
        ["tools_not_counted"],
    ),
    # ShareGPT with a "function" result and row-level tools
    (
        {
            "conversations": [
                {"from": "human", "value": "q"},
                {"from": "gpt", "value": "", "tool_calls": [CLEAN_CALL]},
                {"from": "function", "value": "42"},
                {"from": "gpt", "value": "42."},
            ],
            "tools": [SCHEMA],
        },
        "sharegpt",
        [(U, "q"), (A, ""), ("tool", "42"), (A, "42.")],
        {1: {"tool_calls": [CLEAN_CALL]}},
        [SCHEMA],
        [],
    ),
]


@pytest.mark.parametrize(("row", "fmt", "turns", "fields", "tools", "anomalies"), TOOL_ROWS)
def test_tool_content_is_kept_per_turn(
    row: dict, fmt: str, turns: list, fields: dict, tools: list | None, anomalies: list
) -> None:
    conv = cm.normalize(row, fmt)
    assert conv.turns == turns
    assert conv.fields == fields
    assert conv.tools == tools
    assert conv.anomalies == anomalies


def test_tool_arguments_past_the_depth_cap_set_the_row_aside() -> None:
    deep = "[" * 300 + "]" * 300
    row = _oa({"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": deep}}]})
    with pytest.raises(cm.RowError, match="SPECDRAFT_MAX_JSON_DEPTH"):
        cm.normalize(row, "openai")


TOOLS_AND_CALLS = "{{ tools }}{% for m in messages %}{{ m.tool_calls }}{% endfor %}"
WITH_CALLS = cm.Conversation(
    turns=[(A, "stray"), (U, "q"), (A, ""), ("tool", "42"), (A, "ok")],
    tools=[SCHEMA],
    fields={0: {"tool_calls": [CLEAN_CALL]}, 2: {"tool_calls": [CLEAN_CALL]}, 3: {"tool_call_id": "c1"}},
)
KEPT = [1, 2, 3, 4]  # the leading assistant turn is dropped: its fields go with it
# (template source, conversation, expected context, left out)
CONTEXT_CASES = [
    (
        TOOLS_AND_CALLS,
        WITH_CALLS,
        templates.ToolContext([SCHEMA], ({}, {"tool_calls": [CLEAN_CALL]}, {"tool_call_id": "c1"}, {})),
        False,
    ),
    ("{{ tools }}", WITH_CALLS, templates.ToolContext([SCHEMA], ()), True),  # calls it cannot show
    (
        "{% for m in messages %}{{ m.tool_calls }}{% endfor %}",  # schemas it cannot show
        WITH_CALLS,
        templates.ToolContext(None, ({}, {"tool_calls": [CLEAN_CALL]}, {"tool_call_id": "c1"}, {})),
        True,
    ),
    ("{% for m in messages %}{{ m.content }}{% endfor %}", WITH_CALLS, None, True),  # no tools support at all
    (
        TOOLS_AND_CALLS,
        cm.Conversation(turns=[(A, "x"), (U, "q"), (A, "a"), (U, "q"), (A, "a")]),
        None,
        False,
    ),  # no tools
]


@pytest.mark.parametrize(("source", "conv", "context", "left_out"), CONTEXT_CASES)
def test_tool_context_follows_what_the_template_reads(
    source: str, conv: cm.Conversation, context: object, left_out: bool
) -> None:
    assert cm.tool_context(conv, KEPT, templates.ChatTemplate(source)) == (context, left_out)


POSITION_CASES = [
    ([(U, "q"), (A, "a")], [0, 1]),
    ([("system", "s"), (A, "x"), ("tool", "t"), (U, "q"), (A, "a")], [0, 3, 4]),
    ([(A, "x"), (A, "y")], []),
]


@pytest.mark.parametrize(("turns", "positions"), POSITION_CASES)
def test_trainable_positions_index_the_kept_turns(turns: list, positions: list) -> None:
    found, anomalies = cm.trainable_positions(turns)
    assert found == positions
    assert anomalies == cm.trainable_turns(turns)[1]
    assert [turns[i] for i in found] == cm.trainable_turns(turns)[0]
