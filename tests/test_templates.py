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
