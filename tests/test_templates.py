"""Chat templates rendered like HF does, and assistant spans by the prefix rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from comparelib.audit import templates
from comparelib.errors import ConfigError, DataError
from tests.tokenizer_fixture import CHATML_TEMPLATE, LLAMA3_TEMPLATE

U, A = "user", "assistant"
CHATML = templates.ChatTemplate(CHATML_TEMPLATE, {"bos_token": "<|begin_of_text|>"})
LLAMA3 = templates.ChatTemplate(LLAMA3_TEMPLATE, {"bos_token": "<|begin_of_text|>"})

RENDER_CASES = [
    (CHATML, [(U, "hi")], False, "<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n"),
    (
        CHATML,
        [(U, "hi")],
        True,
        "<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n",
    ),
    (
        LLAMA3,
        [(U, "  hi  "), (A, "yo")],
        False,
        "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\nyo<|eot_id|>",
    ),
    (
        templates.fallback_template(),
        [(U, "q"), (A, "a")],
        True,
        "<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\na<|im_end|>\n<|im_start|>assistant\n",
    ),
    # trim_blocks + lstrip_blocks: block tags do not leave their newline/indent behind
    (
        templates.ChatTemplate(
            "{% for m in messages %}\n    {% if m.role == 'user' %}\n[{{ m.content }}]\n    {% endif %}\n{% endfor %}"
        ),
        [(U, "x"), (A, "y")],
        False,
        "[x]\n",
    ),
    # tojson keeps non-ASCII and HF's keyword arguments
    (
        templates.ChatTemplate("{{ messages[0].content | tojson }}|{{ {'a': 1} | tojson(indent=1) }}"),
        [(U, "héllo")],
        False,
        '"héllo"|{\n "a": 1\n}',
    ),
    # {% generation %} blocks (HF assistant masks) pass their body through
    (
        templates.ChatTemplate(
            "{% for m in messages %}{% generation %}<{{ m.content }}>{% endgeneration %}{% endfor %}"
        ),
        [(U, "x")],
        False,
        "<x>",
    ),
]


@pytest.mark.parametrize(("template", "turns", "gen", "expected"), RENDER_CASES)
def test_render(template: templates.ChatTemplate, turns: list, gen: bool, expected: str) -> None:
    assert template.render_turns(turns, add_generation_prompt=gen) == expected


def test_raise_exception_becomes_data_error() -> None:
    tpl = templates.ChatTemplate(
        "{% if messages[0].role != 'user' %}{{ raise_exception('must start with user') }}{% endif %}ok"
    )
    assert tpl.render_turns([(U, "x")]) == "ok"
    with pytest.raises(DataError, match="must start with user"):
        tpl.render_turns([(A, "x")])


def test_sandbox_blocks_unsafe_attributes() -> None:
    tpl = templates.ChatTemplate("{{ messages.__class__.__mro__[1].__subclasses__() }}")
    with pytest.raises(DataError):
        tpl.render_turns([(U, "x")])


def test_bad_jinja_is_config_error() -> None:
    with pytest.raises(ConfigError, match="does not parse"):
        templates.template_from_config({"chat_template": "{% for x in %}"})


CONFIG_CASES = [
    ({}, None),
    ({"chat_template": "A{{ bos_token }}", "bos_token": "<s>"}, "A<s>"),
    ({"chat_template": "B", "bos_token": {"content": "<s>", "lstrip": False}}, "B"),
    ({"chat_template": [{"name": "tool_use", "template": "T"}, {"name": "default", "template": "D"}]}, "D"),
]


@pytest.mark.parametrize(("config", "rendered"), CONFIG_CASES)
def test_template_from_config(config: dict, rendered: str | None) -> None:
    tpl = templates.template_from_config(config)
    assert (tpl.render([]) if tpl else None) == rendered


def test_load_template_prefers_chat_template_jinja(tmp_path: Path) -> None:
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"chat_template": "old", "eos_token": "</s>"}))
    assert templates.load_template(tmp_path).render([]) == "old"
    (tmp_path / "chat_template.jinja").write_text("new{{ eos_token }}")
    assert templates.load_template(tmp_path).render([]) == "new</s>"
    assert templates.load_template(tmp_path / "missing") is None


def test_probe_shapes() -> None:
    chatml = templates.probe_shape(CHATML)
    assert chatml == templates.TemplateShape("<|im_start|>assistant\n", "", "<|im_end|>\n")
    llama = templates.probe_shape(LLAMA3)
    assert llama == templates.TemplateShape("<|start_header_id|>assistant<|end_header_id|>\n\n", "", "<|eot_id|>")
    # a template that renders earlier turns differently has no prefix shape
    odd = templates.ChatTemplate("{% for m in messages %}{{ m.content }}{% if loop.last %}!{% endif %}{% endfor %}")
    assert templates.probe_shape(odd) is None


CONVERSATIONS = [
    [(U, "hello"), (A, "hi there")],
    [("system", "be brief"), (U, "q1"), (A, "a1"), (U, "q2"), (A, "a2")],
    [(U, "q"), (A, " leading space and trailing  ")],
    [(U, "assistant"), (A, "assistant")],  # content equal to the role name
    [(U, "repeat"), (A, "repeat"), (U, "repeat"), (A, "repeat")],
    [(U, "q"), (A, "")],
]


@pytest.mark.parametrize("template", [CHATML, LLAMA3], ids=["chatml", "llama3"])
@pytest.mark.parametrize("turns", CONVERSATIONS)
def test_fast_spans_agree_with_reference(template: templates.ChatTemplate, turns: list) -> None:
    text, spans = templates.reference_spans(template, turns)
    assert len(spans) == sum(1 for r, _c in turns if r == A)
    shape = templates.probe_shape(template)
    assert shape is not None
    fast = templates.fast_spans(template.render_turns(turns), turns, shape)
    if fast is not None:  # None means "rewritten content, use the reference" (llama3 trims)
        assert fast == spans
    for (start, end), content in zip(spans, [c for r, c in turns if r == A], strict=False):
        assert content.strip() in text[start:end]


def test_reference_span_covers_content_and_end_token() -> None:
    text, spans = templates.reference_spans(CHATML, [(U, "q"), (A, "answer")])
    assert [text[s:e] for s, e in spans] == ["answer<|im_end|>\n"]


def test_pretemplated_spans() -> None:
    shape = templates.probe_shape(CHATML)
    assert shape is not None
    text = (
        "<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\nA1<|im_end|>\n"
        "<|im_start|>user\nq2<|im_end|>\n<|im_start|>assistant\nA2 cut off"
    )
    spans = templates.pretemplated_spans(text, shape)
    assert [text[s:e] for s, e in spans] == ["A1<|im_end|>\n", "A2 cut off"]


MASK_CASES = [
    ([(0, 3), (3, 5), (5, 9)], [(3, 5)], [0, 1, 0]),
    ([(0, 3), (3, 5), (5, 9)], [(0, 9)], [1, 1, 1]),
    ([(0, 3), (3, 5), (5, 9)], [], [0, 0, 0]),
    ([(0, 2), (2, 4), (4, 6), (6, 8)], [(2, 4), (6, 8)], [0, 1, 0, 1]),
    ([(0, 4), (4, 8)], [(2, 6)], [0, 1]),  # a token is supervised if it starts inside the span
]


@pytest.mark.parametrize(("offsets", "spans", "mask"), MASK_CASES)
def test_mask_from_offsets(offsets: list, spans: list, mask: list) -> None:
    assert templates.mask_from_offsets(offsets, spans) == mask


# ---------------------------------------------------------------------------------------------
# Tools: a template in the shape of Qwen 2.5's tools branch (schemas in a system block, each call
# after the assistant content, tool results as user turns), and rows that carry tool content.

TOOL_TEMPLATE = (
    "{% if tools %}<|im_start|>system\n# Tools\n<tools>"
    "{% for tool in tools %}\n{{ tool | tojson }}{% endfor %}\n</tools><|im_end|>\n{% endif %}"
    "{% for message in messages %}"
    "{% if message.role == 'assistant' %}"
    "{{ '<|im_start|>assistant\n' + message.content }}"
    "{% for call in message.tool_calls or [] %}"
    "{% set fn = call.function if call.function is defined else call %}"
    '{{ \'\n<tool_call>\n{"name": "\' + fn.name + \'", "arguments": \' }}'
    "{{ fn.arguments if fn.arguments is string else fn.arguments | tojson }}{{ '}\n</tool_call>' }}"
    "{% endfor %}"
    "{{ '<|im_end|>\n' }}"
    "{% elif message.role == 'tool' %}"
    "{{ '<|im_start|>user\n<tool_response>\n' + message.content + '\n</tool_response><|im_end|>\n' }}"
    "{% else %}{{ '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' }}{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
TOOL = templates.ChatTemplate(TOOL_TEMPLATE)
SCHEMA = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}
SCHEMA_TEXT = '{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}'
CALL = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}
CALL_TEXT = '\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
TOOL_TURNS = [(U, "Weather in Paris?"), (A, ""), ("tool", "21 C"), (A, "It is 21 C.")]
TOOL_FIELDS = ({}, {"tool_calls": [CALL]}, {"tool_call_id": "c1"}, {})

SUPPORT_CASES = [
    (TOOL_TEMPLATE, (True, True)),
    (CHATML_TEMPLATE, (False, False)),
    (templates.FALLBACK_TEMPLATE, (False, False)),
    ("{% for m in messages %}{{ m['tool_calls'] | tojson }}{% endfor %}", (False, True)),
    ("{% if tools %}{{ tools | tojson }}{% endif %}", (True, False)),
    ("{{ messages[0].my_tool_calls_x }}{{ toolset }}", (False, False)),  # whole words only
]


@pytest.mark.parametrize(("source", "support"), SUPPORT_CASES)
def test_tool_support_is_read_from_the_source(source: str, support: tuple[bool, bool]) -> None:
    tpl = templates.ChatTemplate(source)
    assert (tpl.renders_tools, tpl.renders_tool_calls) == support


# (source, (reads reasoning_content, names the developer role)): SpecForge hands the template reasoning_content
# only; the developer role counts where the template compares a role with it, not where it says the word
READS_CASES = [
    ("{% for m in messages %}{{ m.reasoning_content }}{% endfor %}", (True, False)),
    ("{% for m in messages %}{{ m['reasoning_content'] }}{% endfor %}", (True, False)),
    ("{% for m in messages %}{{ m.thinking }}{% endfor %}", (False, False)),
    ("{{ messages[0].my_reasoning_content_x }}", (False, False)),
    ("{% if messages[0].role == 'developer' %}x{% endif %}", (False, True)),
    ('{% if messages[0].role == "developer" %}x{% endif %}', (False, True)),
    ("{{ 'You are a developer tool.' }}", (False, False)),
    (templates.FALLBACK_TEMPLATE, (False, False)),
]


@pytest.mark.parametrize(("source", "reads"), READS_CASES)
def test_reasoning_and_developer_support_is_read_from_the_source(source: str, reads: tuple[bool, bool]) -> None:
    tpl = templates.ChatTemplate(source)
    assert (tpl.renders_reasoning, tpl.renders_developer) == reads


TOOL_RENDER_CASES = [
    # schemas only: rendered into the prompt
    (
        [(U, "q")],
        templates.ToolContext(tools=[SCHEMA]),
        f"<|im_start|>system\n# Tools\n<tools>{SCHEMA_TEXT}</tools><|im_end|>\n<|im_start|>user\nq<|im_end|>\n",
    ),
    # a call, its result and the answer
    (
        TOOL_TURNS,
        templates.ToolContext(fields=TOOL_FIELDS),
        "<|im_start|>user\nWeather in Paris?<|im_end|>\n"
        f"<|im_start|>assistant\n{CALL_TEXT}<|im_end|>\n"
        "<|im_start|>user\n<tool_response>\n21 C\n</tool_response><|im_end|>\n"
        "<|im_start|>assistant\nIt is 21 C.<|im_end|>\n",
    ),
    # no context: role and content only, as before
    ([(U, "q"), (A, "")], None, "<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\n<|im_end|>\n"),
    # an empty schema list is no tools (SpecForge passes None so the template stays out of tool mode)
    ([(U, "q")], templates.ToolContext(tools=[]), "<|im_start|>user\nq<|im_end|>\n"),
]


@pytest.mark.parametrize("mode", ["auto", "off"])  # auto: the worker process renders it; off: in-process
@pytest.mark.parametrize(("turns", "context", "expected"), TOOL_RENDER_CASES)
def test_tool_context_reaches_the_template(
    monkeypatch: pytest.MonkeyPatch, mode: str, turns: list, context: templates.ToolContext | None, expected: str
) -> None:
    monkeypatch.setenv("SPECDRAFT_RENDER_SANDBOX", mode)
    assert TOOL.render_turns(turns, context=context) == expected


@pytest.mark.parametrize("mode", ["auto", "off"])
def test_reference_span_of_a_tool_call_covers_the_call(monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    monkeypatch.setenv("SPECDRAFT_RENDER_SANDBOX", mode)
    text, spans = templates.reference_spans(TOOL, TOOL_TURNS, templates.ToolContext(fields=TOOL_FIELDS))
    assert [text[s:e] for s, e in spans] == [f"{CALL_TEXT}<|im_end|>\n", "It is 21 C.<|im_end|>\n"]
