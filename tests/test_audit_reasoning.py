"""Reasoning in training rows reaches the chat template the way SpecForge hands it over.

A gpt-oss style row (OpenAI messages, the assistant's reasoning in ``reasoning_content``) was counted at 955
tokens / 353 loss-masked where SpecForge counts 3,661 / 3,059: only role and content reached the template.
SpecForge 0.2.0's ThinkingParser (data/parse.py:446-458) keeps ``reasoning_content`` (with role, content,
tool_calls, name, tool_call_id) and drops every other field, ``thinking`` and ``reasoning`` included; the
loss mask runs from the assistant header to the end of the turn, so rendered reasoning is supervised.
The expected texts below were checked against specforge 0.2.0's ThinkingParser run on these rows.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from comparelib.audit import conversations as cm
from comparelib.audit import scan as audit
from comparelib.audit import templates, tokens
from tests.fixtures import expected_counts
from tests.tokenizer_fixture import build_tokenizer

# Renders reasoning_content on every assistant turn, and a harmony-style developer message.
REASONING_TEMPLATE = (
    "{% for message in messages %}"
    "{% if message['role'] == 'assistant' %}"
    "{{ '<|im_start|>assistant\n' }}"
    "{% if message.reasoning_content is string and message.reasoning_content %}"
    "{{ '<think>\n' + message.reasoning_content + '\n</think>\n\n' }}"
    "{% endif %}"
    "{{ message['content'] + '<|im_end|>\n' }}"
    "{% elif message['role'] == 'developer' %}"
    "{{ '<|im_start|>developer\n# Instructions\n' + message['content'] + '<|im_end|>\n' }}"
    "{% else %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

# Qwen3's rule: reasoning only on the assistant turns after the last user message (earlier turns drop it,
# so prefixes do not hold and spans come from the header ... end-of-turn rule, as SpecForge finds them).
QWEN3_LIKE_TEMPLATE = (
    "{% set ns = namespace(last=-1) %}"
    "{% for message in messages %}{% if message['role'] == 'user' %}{% set ns.last = loop.index0 %}{% endif %}"
    "{% endfor %}"
    "{% for message in messages %}"
    "{% if message['role'] == 'assistant' %}"
    "{{ '<|im_start|>assistant\n' }}"
    "{% if loop.index0 > ns.last and message.reasoning_content is string %}"
    "{{ '<think>\n' + message.reasoning_content + '\n</think>\n\n' }}"
    "{% endif %}"
    "{{ message['content'] + '<|im_end|>\n' }}"
    "{% else %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

# A gpt-oss style template that reads message.thinking: SpecForge never hands it that field.
THINKING_TEMPLATE = REASONING_TEMPLATE.replace("reasoning_content", "thinking")

# Plain ChatML (the fallback's shape): reads role and content only.
PLAIN_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

WHY = "Two apples plus three apples: count them one by one, that is five apples in all. " * 4
WHY2 = "Now double it: five and five make ten. " * 3


def _row(*messages: dict) -> dict:
    return {"messages": list(messages)}


def _u(text: str) -> dict:
    return {"role": "user", "content": text}


def _a(text: str, **extra: str) -> dict:
    return {"role": "assistant", "content": text, **extra}


ROWS = [
    _row(_u("2+3?"), _a("5", reasoning_content=WHY)),
    _row(_u("2+3?"), _a("5", thinking=WHY)),  # gpt-oss field: SpecForge drops it
    _row(_u("2+3?"), _a("5", reasoning_content=WHY), _u("double?"), _a("10", reasoning_content=WHY2)),
    _row({"role": "developer", "content": "be brief"}, _u("2+3?"), _a("5", reasoning_content=WHY)),
    _row(_u("hi"), _a("hello")),
]

H = "<|im_start|>assistant\n"
E = "<|im_end|>\n"


def _think(text: str) -> str:
    return f"<think>\n{text}\n</think>\n\n"


# template -> (per row: the trainer's text as (piece, supervised)), the anomaly counts
EXPECTED: dict[str, tuple[list[list[tuple[str, bool]]], dict[str, int]]] = {
    "reasoning": (
        [
            [(f"<|im_start|>user\n2+3?{E}{H}", False), (_think(WHY) + "5" + E, True)],
            [(f"<|im_start|>user\n2+3?{E}{H}", False), ("5" + E, True)],
            [
                (f"<|im_start|>user\n2+3?{E}{H}", False),
                (_think(WHY) + "5" + E, True),
                (f"<|im_start|>user\ndouble?{E}{H}", False),
                (_think(WHY2) + "10" + E, True),
            ],
            # a leading developer message is dropped, as SpecForge drops any leading non-user message
            [(f"<|im_start|>user\n2+3?{E}{H}", False), (_think(WHY) + "5" + E, True)],
            [(f"<|im_start|>user\nhi{E}{H}", False), ("hello" + E, True)],
        ],
        {"reasoning_not_counted": 1, "starts_without_user": 1},
    ),
    "qwen3_like": (
        [
            [(f"<|im_start|>user\n2+3?{E}{H}", False), (_think(WHY) + "5" + E, True)],
            [(f"<|im_start|>user\n2+3?{E}{H}", False), ("5" + E, True)],
            [
                (f"<|im_start|>user\n2+3?{E}{H}", False),
                ("5" + E, True),  # before the last user message: the template drops its reasoning
                (f"<|im_start|>user\ndouble?{E}{H}", False),
                (_think(WHY2) + "10" + E, True),
            ],
            [(f"<|im_start|>user\n2+3?{E}{H}", False), (_think(WHY) + "5" + E, True)],
            [(f"<|im_start|>user\nhi{E}{H}", False), ("hello" + E, True)],
        ],
        {"reasoning_not_counted": 1, "unknown_role": 1},  # it never names developer
    ),
    "thinking": (  # reads message.thinking only: no reasoning reaches it
        [
            [(f"<|im_start|>user\n2+3?{E}{H}", False), ("5" + E, True)],
            [(f"<|im_start|>user\n2+3?{E}{H}", False), ("5" + E, True)],
            [
                (f"<|im_start|>user\n2+3?{E}{H}", False),
                ("5" + E, True),
                (f"<|im_start|>user\ndouble?{E}{H}", False),
                ("10" + E, True),
            ],
            [(f"<|im_start|>user\n2+3?{E}{H}", False), ("5" + E, True)],
            [(f"<|im_start|>user\nhi{E}{H}", False), ("hello" + E, True)],
        ],
        {"reasoning_not_counted": 4, "starts_without_user": 1},
    ),
    "plain": (
        [
            [(f"<|im_start|>user\n2+3?{E}{H}", False), ("5" + E, True)],
            [(f"<|im_start|>user\n2+3?{E}{H}", False), ("5" + E, True)],
            [
                (f"<|im_start|>user\n2+3?{E}{H}", False),
                ("5" + E, True),
                (f"<|im_start|>user\ndouble?{E}{H}", False),
                ("10" + E, True),
            ],
            [(f"<|im_start|>user\n2+3?{E}{H}", False), ("5" + E, True)],
            [(f"<|im_start|>user\nhi{E}{H}", False), ("hello" + E, True)],
        ],
        {"reasoning_not_counted": 4, "unknown_role": 1},
    ),
}
TEMPLATES = {
    "reasoning": REASONING_TEMPLATE,
    "qwen3_like": QWEN3_LIKE_TEMPLATE,
    "thinking": THINKING_TEMPLATE,
    "plain": PLAIN_TEMPLATE,
}


def write_jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def toks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("reasoning")
    return {
        name: build_tokenizer(base / name, texts=[WHY, WHY2], template=source) for name, source in TEMPLATES.items()
    }


@pytest.mark.parametrize("mode", ["auto", "off"])  # auto: the template renders in a worker; off: in-process
@pytest.mark.parametrize("name", list(TEMPLATES))
def test_reasoning_is_counted_as_specforge_renders_it(
    tmp_path: Path, toks: dict[str, Path], monkeypatch: pytest.MonkeyPatch, name: str, mode: str
) -> None:
    monkeypatch.setenv("SPECDRAFT_RENDER_SANDBOX", mode)
    res = audit.audit(str(write_jsonl(tmp_path / "r.jsonl", ROWS)), tokenizer=str(toks[name]))
    tok = tokens.load_tokenizer(str(toks[name])).tokenizer
    texts, anomalies = EXPECTED[name]
    expected = [expected_counts(tok, pieces) for pieces in texts]
    assert res.samples == len(ROWS) and res.malformed == 0
    assert (res.tokens, res.assistant_tokens) == (sum(t for t, _ in expected), sum(s for _, s in expected))
    assert res.anomalies == anomalies
    flagged = anomalies.get("reasoning_not_counted", 0)
    assert any(n.startswith(f"{flagged} row(s) carry reasoning") for n in res.notes) == bool(flagged)
    counted = 3 if name in ("reasoning", "qwen3_like") else 0  # rows 0, 2 and 3 carry reasoning_content
    assert any(n.startswith(f"{counted} row(s) have their reasoning_content rendered") for n in res.notes) == bool(
        counted
    )


def test_rows_over_max_length_once_reasoning_is_counted(tmp_path: Path, toks: dict[str, Path]) -> None:
    """Short answers with long reasoning: over max_length only once the reasoning is in the count."""
    tok = tokens.load_tokenizer(str(toks["reasoning"])).tokenizer
    rows = [_row(_u("2+3?"), _a("5", reasoning_content=WHY * k)) for k in (1, 3, 6)] + [_row(_u("hi"), _a("hello"))]
    lengths = [
        expected_counts(tok, [(f"<|im_start|>user\n2+3?{E}{H}", False), (_think(WHY * k) + "5" + E, True)])[0]
        for k in (1, 3, 6)
    ]
    plain = expected_counts(tok, [(f"<|im_start|>user\n2+3?{E}{H}", False), ("5" + E, True)])[0]
    max_length = (lengths[0] + lengths[1]) // 2  # between the 1x and 3x rows; every answer alone fits
    assert plain < lengths[0] < max_length < lengths[1] < lengths[2]
    res = audit.audit(
        str(write_jsonl(tmp_path / "r.jsonl", rows)), tokenizer=str(toks["reasoning"]), max_length=max_length
    )
    assert res.over_max_length == 2
    assert res.anomalies == {}


def test_unknown_role_examples_name_the_role(tmp_path: Path, toks: dict[str, Path]) -> None:
    rows = [
        _row({"role": "developer", "content": "be brief"}, _u("q"), _a("a")),
        _row(_u("q"), {"role": "Narrator", "content": "n"}, _a("a")),
    ]
    res = audit.audit(str(write_jsonl(tmp_path / "r.jsonl", rows)), tokenizer=str(toks["plain"]))
    assert res.anomalies == {"unknown_role": 2}
    roles = [ex["roles"] for ex in res.anomaly_examples]
    assert roles == [
        ["developer (unknown role, dropped)", "user", "assistant"],
        ["user", "Narrator (unknown role, dropped)", "assistant"],
    ]


# (message, the fields kept for the template, anomalies): SpecForge keeps reasoning_content only
MESSAGE_CASES = [
    (_a("a", reasoning_content="r"), {1: {"reasoning_content": "r"}}, []),
    (_a("a", reasoning_content=""), {1: {"reasoning_content": ""}}, []),  # passed on as SpecForge passes it
    (_a("a", thinking="r"), {}, ["reasoning_not_counted"]),
    (_a("a", reasoning="r"), {}, ["reasoning_not_counted"]),
    (_a("a", reasoning_content="r", thinking="r"), {1: {"reasoning_content": "r"}}, []),
    (_a("a", thinking=""), {}, []),
]


@pytest.mark.parametrize(
    ("message", "fields", "anomalies"), MESSAGE_CASES, ids=[str(m) for m, _f, _a in MESSAGE_CASES]
)
def test_reasoning_fields_are_kept_as_specforge_keeps_them(message: dict, fields: dict, anomalies: list) -> None:
    conv = cm.normalize(_row(_u("q"), message), "openai")
    assert conv.turns == [("user", "q"), ("assistant", "a")]
    assert conv.fields == fields
    assert conv.anomalies == anomalies


TOOL_AND_REASONING = "{{ tools }}{% for m in messages %}{{ m.tool_calls }}{{ m.reasoning_content }}{% endfor %}"
CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": {}}}
WITH_BOTH = _row(_u("q"), _a("", reasoning_content="r", tool_calls=[CALL]), {"role": "tool", "content": "42",
                 "tool_call_id": "c1"}, _a("ok"))  # fmt: skip
# (template, row, what the context carries for the kept turns, tools left out, reasoning left out)
REASONING_CONTEXT_CASES = [
    ("reasoning", REASONING_TEMPLATE, _row(_u("q"), _a("a", reasoning_content="r")),
     templates.ToolContext(None, ({}, {"reasoning_content": "r"})), False, False),
    ("plain", PLAIN_TEMPLATE, _row(_u("q"), _a("a", reasoning_content="r")), None, False, True),
    ("thinking", THINKING_TEMPLATE, _row(_u("q"), _a("a", reasoning_content="r")), None, False, True),
    ("empty reasoning", PLAIN_TEMPLATE, _row(_u("q"), _a("a", reasoning_content="")), None, False, False),
    ("tools and reasoning", TOOL_AND_REASONING, WITH_BOTH,
     templates.ToolContext(None, ({}, {"reasoning_content": "r", "tool_calls": [CALL]}, {"tool_call_id": "c1"}, {})),
     False, False),
    ("reasoning, not tools", REASONING_TEMPLATE, WITH_BOTH,
     templates.ToolContext(None, ({}, {"reasoning_content": "r"}, {}, {})), True, False),
]  # fmt: skip


@pytest.mark.parametrize(
    ("source", "row", "context", "tools_out", "reasoning_out"),
    [c[1:] for c in REASONING_CONTEXT_CASES],
    ids=[c[0] for c in REASONING_CONTEXT_CASES],
)
def test_reasoning_context_follows_what_the_template_reads(
    source: str, row: dict, context: object, tools_out: bool, reasoning_out: bool
) -> None:
    conv = cm.normalize(row, "openai")
    positions = list(range(len(conv.turns)))
    template = templates.ChatTemplate(source)
    assert cm.tool_context(conv, positions, template) == (context, tools_out)
    assert cm.reasoning_left_out(conv, positions, template) is reasoning_out


# (template, messages, turns kept, fields, unknown roles, anomalies): developer turns go where the template names
# the role; elsewhere they are dropped like any unknown role, and the fields of later turns move with them
DEVELOPER_CASES = [
    ("names developer", REASONING_TEMPLATE,
     [{"role": "developer", "content": "d"}, _u("q"), _a("a", reasoning_content="r")],
     [("developer", "d"), ("user", "q"), ("assistant", "a")], {2: {"reasoning_content": "r"}}, [], []),
    ("does not", PLAIN_TEMPLATE,
     [{"role": "developer", "content": "d"}, {"role": "narrator", "content": "n"}, _u("q"),
      {"role": "developer", "content": "d2"}, _a("a", reasoning_content="r")],
     [("user", "q"), ("assistant", "a")], {1: {"reasoning_content": "r"}},
     [(0, "developer"), (0, "narrator"), (1, "developer")], ["unknown_role", "unknown_role", "unknown_role"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("source", "messages", "turns", "fields", "unknown", "anomalies"),
    [c[1:] for c in DEVELOPER_CASES],
    ids=[c[0] for c in DEVELOPER_CASES],
)
def test_developer_is_kept_where_the_template_names_it(
    source: str, messages: list, turns: list, fields: dict, unknown: list, anomalies: list
) -> None:
    conv = cm.normalize({"messages": messages}, "openai")
    cm.keep_developer(conv, templates.ChatTemplate(source))
    assert (conv.turns, conv.fields, conv.unknown_roles, conv.anomalies) == (turns, fields, unknown, anomalies)


# Qwen3's own rule (its tokenizer_config template, tools left out): reasoning on the assistant turns after the last
# user message, and "<think>\n\n</think>\n\n" on the last turn even without reasoning. A later turn changes how an
# earlier one renders, so the prefix rule fails on every multi-turn row (and the probe's third render differs).
# "RAISE" stands for a row the template refuses whole: SpecForge cannot render it either.
QWEN3_TEMPLATE = (
    "{% if messages[0].role == 'system' %}{{ '<|im_start|>system\n' + messages[0].content + '<|im_end|>\n' }}"
    "{% endif %}"
    "{% set ns = namespace(last_query_index=messages|length - 1) %}"
    "{% for message in messages %}{% if message.role == 'user' %}{% set ns.last_query_index = loop.index0 %}"
    "{% endif %}{% endfor %}"
    "{% for message in messages %}"
    "{% if message.content == 'RAISE' %}{{ raise_exception('refused') }}{% endif %}"
    "{% if message.role == 'user' or (message.role == 'system' and not loop.first) %}"
    "{{ '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' }}"
    "{% elif message.role == 'assistant' %}"
    "{% set reasoning_content = message.reasoning_content if message.reasoning_content is string else '' %}"
    "{% if loop.index0 > ns.last_query_index and (loop.last or reasoning_content) %}"
    "{{ '<|im_start|>assistant\n<think>\n' + reasoning_content.strip('\n') + '\n</think>\n\n' + message.content }}"
    "{% else %}{{ '<|im_start|>assistant\n' + message.content }}{% endif %}"
    "{{ '<|im_end|>\n' }}"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
QWEN3_ROWS = [
    _row(_u("2+3?"), _a("5", reasoning_content=WHY), _u("double?"), _a("10", reasoning_content=WHY2)),
    _row(_u("2+3?"), _a("5"), _u("double?"), _a("10")),
    _row(_u("2+3?"), _a("5", reasoning_content=WHY)),  # one turn: the prefix rule holds
    _row(_u("2+3?"), _a("RAISE")),
]
# The text SpecForge trains on (specforge 0.2.0 ThinkingParser, qwen3-thinking spans, its system prompt unset, run
# on these rows with this template and tokenizer: equal token and loss-mask counts), as (piece, supervised).
QWEN3_EXPECTED = [
    [
        (f"<|im_start|>user\n2+3?{E}{H}", False),
        ("5" + E, True),  # before the last user message: Qwen3 drops its reasoning
        (f"<|im_start|>user\ndouble?{E}{H}", False),
        (_think(WHY2) + "10" + E, True),
    ],
    [
        (f"<|im_start|>user\n2+3?{E}{H}", False),
        ("5" + E, True),
        (f"<|im_start|>user\ndouble?{E}{H}", False),
        ("<think>\n\n</think>\n\n10" + E, True),
    ],
    [(f"<|im_start|>user\n2+3?{E}{H}", False), (_think(WHY) + "5" + E, True)],
]


@pytest.mark.parametrize("mode", ["auto", "off"])
def test_rows_qwen3_rewrites_are_counted_as_specforge_trains_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """A Qwen3-8B walk set all 12 rows with reasoning in two assistant turns aside as malformed ("renders earlier
    turns differently once later turns are added"): SpecForge trains them, on the one render of the whole row."""
    monkeypatch.setenv("SPECDRAFT_RENDER_SANDBOX", mode)
    folder = build_tokenizer(tmp_path / "qwen3", texts=[WHY, WHY2], template=QWEN3_TEMPLATE)
    res = audit.audit(str(write_jsonl(tmp_path / "r.jsonl", QWEN3_ROWS)), tokenizer=str(folder))
    tok = tokens.load_tokenizer(str(folder)).tokenizer
    expected = [expected_counts(tok, pieces) for pieces in QWEN3_EXPECTED]
    assert (res.samples, res.malformed) == (3, 1)
    assert res.malformed_examples[0]["line"] == 4 and "refused" in res.malformed_examples[0]["reason"]
    assert (res.tokens, res.assistant_tokens) == (sum(t for t, _ in expected), sum(s for _, s in expected))
    note = next(n for n in res.notes if "render differently once later turns are added" in n)
    assert note.startswith("2 row(s) render differently") and "as SpecForge trains them" in note
    assert "In 1 of them earlier turns' reasoning_content is not in that text" in note
    assert res.regenerated == 0  # reasoning_content is no mark of regeneration


def test_reasoning_content_alone_is_not_regeneration(tmp_path: Path, toks: dict[str, Path]) -> None:
    """308 rows of a reasoning set were called regenerated only for carrying reasoning_content; SpecForge's
    regeneration script marks its rows with status (its --reasoning save adds reasoning_content beside it)."""
    rows = [
        _row(_u("2+3?"), _a("5", reasoning_content=WHY)),
        {**_row(_u("2+3?"), _a("5", reasoning_content=WHY)), "status": "success"},
    ]
    res = audit.audit(str(write_jsonl(tmp_path / "r.jsonl", rows)), tokenizer=str(toks["reasoning"]))
    assert (res.regenerated, res.original, res.regeneration_status) == (1, 1, {"success": 1})
