"""Row layouts -> (role, content) turns, format detection, regeneration markers, role-order checks."""

from __future__ import annotations

import pytest

from comparelib.audit import conversations as cm
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
        True,
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
