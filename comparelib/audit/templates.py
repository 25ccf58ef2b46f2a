"""Chat templates rendered the way HF tokenizers and the trainers render them.

Token counts and loss masks only match training if the text is the text the trainer saw, so the
template from ``tokenizer_config.json`` is rendered with the same Jinja set-up as
``transformers.apply_chat_template`` (sandboxed, trim/lstrip blocks, ``raise_exception``,
``tojson``, ``{% generation %}``). The loss mask follows the prefix rule: an assistant turn covers
the characters between "conversation so far + generation prompt" and "conversation including the
turn".
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from comparelib import limits, paths
from comparelib.errors import ConfigError, DataError

Turn = tuple[str, str]

# ChatML: used when the tokenizer has no template, and labelled as such in the report.
FALLBACK_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

SHIPPED_DIGESTS = frozenset({hashlib.sha256(FALLBACK_TEMPLATE.encode("utf-8")).hexdigest()})
"""Templates the project ships: the only ones rendered in-process (same bytes, same behaviour)."""

_SPECIAL_KEYS = ("bos_token", "eos_token", "unk_token", "pad_token", "sep_token", "cls_token", "mask_token")


def _raise_exception(message: str) -> None:
    from jinja2.exceptions import TemplateError

    raise TemplateError(message)


def _tojson(
    value: Any, ensure_ascii: bool = False, indent: int | None = None, separators: Any = None, sort_keys: bool = False
) -> str:
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def _strftime_now(fmt: str) -> str:
    return datetime.now().strftime(fmt)


_budget = threading.local()
"""Per-thread render budget: (deadline on time.monotonic, output byte cap); None outside a render."""


def _check_budget() -> None:
    budget = getattr(_budget, "value", None)
    if budget is not None and time.monotonic() > budget[0]:
        raise limits.RENDER_SECONDS.refuse("rendering one conversation with the chat template")


def _check_size(value: Any) -> Any:
    budget = getattr(_budget, "value", None)
    if budget is not None and isinstance(value, (str, bytes, list, tuple, dict)) and len(value) > budget[1]:
        raise limits.RENDER_BYTES.refuse("a value built by the chat template", value=budget[1])
    return value


def _bounded_range(*args: int) -> Any:
    """The sandbox's range (at most 100,000 items), checking the render time budget as it goes."""
    from jinja2.sandbox import safe_range

    rng = safe_range(*args)

    def gen() -> Any:
        for i, value in enumerate(rng):
            if not i & 255:
                _check_budget()
            yield value

    return gen()


_FORMAT_WIDTH = re.compile(r"%[-#0 +]*(\d+)|\.(\d+)")


@lru_cache(maxsize=16)
def _compile(source: str) -> Any:
    from jinja2 import nodes
    from jinja2.exceptions import TemplateError
    from jinja2.ext import Extension, loopcontrols
    from jinja2.sandbox import ImmutableSandboxedEnvironment
    from jinja2.utils import Namespace

    class _Generation(Extension):
        """``{% generation %}`` blocks (HF assistant masks) render their body unchanged."""

        tags = {"generation"}

        def parse(self, parser: Any) -> Any:
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            return nodes.CallBlock(self.call_method("_passthrough"), [], [], body).set_lineno(lineno)

        def _passthrough(self, caller: Any) -> str:
            return str(caller())

    class _BoundedNamespace(Namespace):
        """``namespace()`` whose attributes cannot grow past the rendered-size cap."""

        def __setitem__(self, name: str, value: Any) -> None:
            _check_budget()
            super().__setitem__(name, _check_size(value))

    class _Bounded(ImmutableSandboxedEnvironment):
        """The HF sandbox plus time and size budgets checked on every call, operator and attribute."""

        intercepted_binops = frozenset({"*", "**", "+", "%"})

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            _check_budget()
            budget = getattr(_budget, "value", None)
            cap = budget[1] if budget is not None else limits.RENDER_BYTES.value()
            if (
                operator == "**"
                and isinstance(left, int)
                and isinstance(right, int)
                and abs(right) > 64
                and abs(left) > 1
            ):
                raise limits.RENDER_BYTES.refuse(f"{left} ** {right} in the chat template", value=cap)
            if operator == "%" and isinstance(left, str) and _FORMAT_WIDTH.search(left):
                wide = max(int(x or 0) for m in _FORMAT_WIDTH.findall(left) for x in m)
                if wide > cap:
                    raise limits.RENDER_BYTES.refuse("a format width in the chat template", value=cap)
            if operator == "*":
                for seq, n in ((left, right), (right, left)):
                    if isinstance(seq, (str, list, tuple)) and isinstance(n, int) and len(seq) * n > cap:
                        raise limits.RENDER_BYTES.refuse("a repeated value in the chat template", value=cap)
            return _check_size(super().call_binop(context, operator, left, right))

        def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
            _check_budget()
            return _check_size(super().call(__context, __obj, *args, **kwargs))

        def getattr(self, obj: Any, attribute: str) -> Any:
            _check_budget()
            return super().getattr(obj, attribute)

        def getitem(self, obj: Any, argument: Any) -> Any:
            _check_budget()
            return super().getitem(obj, argument)

    env = _Bounded(trim_blocks=True, lstrip_blocks=True, extensions=[_Generation, loopcontrols])
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    env.globals["range"] = _bounded_range
    env.globals["namespace"] = _BoundedNamespace
    try:
        return env.from_string(source)
    except TemplateError as exc:
        raise ConfigError(f"the chat template does not parse as Jinja: {exc}") from None
    except RecursionError:
        raise ConfigError("the chat template nests too deeply to parse") from None


def _render_bounded(template: Any, **context: Any) -> str:
    """Render through ``generate`` so the time and size budgets are checked between output pieces."""
    seconds = limits.RENDER_SECONDS.value()
    cap = limits.RENDER_BYTES.value()
    _budget.value = (time.monotonic() + seconds, cap)
    try:
        done: list[str] = []  # joined every 4,096 pieces: a million one-character pieces must not cost 50 MB
        parts: list[str] = []
        size = 0
        for piece in template.generate(**context):
            size += len(piece)
            if size > cap:
                raise limits.RENDER_BYTES.refuse("one conversation rendered with the chat template", value=cap)
            parts.append(piece)
            if len(parts) >= 4096:
                done.append("".join(parts))
                parts.clear()
                _check_budget()
        return "".join(done) + "".join(parts)
    finally:
        _budget.value = None


@dataclass(frozen=True)
class ChatTemplate:
    """A Jinja chat template plus the special-token strings it refers to."""

    source: str
    special: dict[str, str] = field(default_factory=dict)
    name: str = "tokenizer_config.json"
    is_fallback: bool = False

    @property
    def trusted(self) -> bool:
        """Rendered in-process: a template the project ships (by content), unless the sandbox is forced."""
        from comparelib.audit import sandbox

        how = sandbox.mode()
        return how == "off" or (how == "auto" and _digest(self.source) in SHIPPED_DIGESTS)

    @property
    def renders_tools(self) -> bool:
        """Whether the template reads the ``tools`` schemas HF passes in (``tools=``)."""
        return _fields_read(self.source)[0]

    @property
    def renders_tool_calls(self) -> bool:
        """Whether the template reads ``message.tool_calls`` (and so the tool messages' fields)."""
        return _fields_read(self.source)[1]

    @property
    def renders_reasoning(self) -> bool:
        """Whether the template reads ``message.reasoning_content``, the one reasoning field SpecForge hands it."""
        return _fields_read(self.source)[2]

    @property
    def renders_developer(self) -> bool:
        """Whether the template names the harmony ``developer`` role (as a quoted string it compares roles with)."""
        return _fields_read(self.source)[3]

    def render(
        self,
        messages: Sequence[dict[str, Any]] | dict[str, Any],
        add_generation_prompt: bool = False,
        tools: list[Any] | None = None,
    ) -> str:
        """The rendered text. ``messages`` may also be ``render_item``'s {"messages", "tools"} envelope: the
        sandbox worker's render op hands its item on unchanged, so that is how tools reach a worker."""
        from jinja2.exceptions import TemplateError

        if isinstance(messages, dict):
            envelope = messages
            messages, tools = envelope.get("messages") or [], envelope.get("tools")
        if not self.trusted:
            from comparelib.audit import sandbox

            item = render_item(messages, add_generation_prompt, tools)
            ((status, text),) = sandbox.pool().call(self, "render", [item])
            if status != "ok":
                raise DataError(text)
            return str(text)
        template = _compile(self.source)
        try:
            return _render_bounded(  # the extra context renders under the same time and size budget
                template,
                messages=list(messages),
                add_generation_prompt=add_generation_prompt,
                tools=tools or None,  # SpecForge passes None, not [], so templates stay out of tool mode
                documents=None,
                **self.special,
            )
        except limits.LimitError:
            raise
        except RecursionError:
            raise DataError("the chat template recursed too deeply on a conversation") from None
        except TemplateError as exc:
            raise DataError(f"the chat template refused a conversation: {exc}") from None
        except (TypeError, KeyError, AttributeError, ValueError) as exc:
            raise DataError(f"{FAILED} ({type(exc).__name__}): {exc}") from None

    def render_turns(
        self, turns: Sequence[Turn], add_generation_prompt: bool = False, context: ToolContext | None = None
    ) -> str:
        return self.render(as_messages(turns, context), add_generation_prompt, context.tools if context else None)


FAILED = "the chat template failed on a conversation"
"""How a render that raised a Python error (TypeError, KeyError, AttributeError, ValueError) begins; the type follows
in brackets, as ``falls_back`` reads it."""


def falls_back(message: str) -> bool:
    """Whether a render error is one SpecForge 0.2.0 catches: ``GeneralParser.parse`` (data/parse.py, the parser of
    its general and thinking templates) renders with ``except (ValueError, TypeError)`` and then builds the text from
    its registered template's headers instead. A jinja2 error (an undefined method, ``raise_exception``) stops it."""
    return message.startswith((f"{FAILED} (TypeError)", f"{FAILED} (ValueError)"))


def render_errors(
    template: ChatTemplate, items: Sequence[tuple[list[dict[str, Any]], list[Any] | None]]
) -> list[str | None]:
    """Render each (messages, tools) as it is (contents need not be text): None where it renders, else the error.

    An untrusted template renders the whole batch in one worker call; a cap refusal (LimitError) propagates."""
    if not items:
        return []
    if not template.trusted:
        from comparelib.audit import sandbox

        answers = sandbox.pool().call(template, "render", [render_item(m, False, tools) for m, tools in items])
        return [None if status == "ok" else str(text) for status, text in answers]
    out: list[str | None] = []
    for messages, tools in items:
        try:
            template.render(messages, False, tools)
            out.append(None)
        except limits.LimitError:
            raise
        except DataError as exc:
            out.append(str(exc))
    return out


def render_item(messages: Sequence[dict[str, Any]], add_generation_prompt: bool, tools: list[Any] | None) -> list[Any]:
    """One item of the sandbox worker's render op: the plain message list, or an envelope when there are tools."""
    payload: Any = {"messages": list(messages), "tools": tools} if tools else list(messages)
    return [payload, add_generation_prompt]


_TOOLS_NAME = re.compile(r"\btools\b")
_TOOL_CALLS = re.compile(r"\btool_calls\b")
_REASONING = re.compile(r"\breasoning_content\b")
_DEVELOPER = re.compile(r"""(['"])developer\1""")


@lru_cache(maxsize=64)
def _fields_read(source: str) -> tuple[bool, bool, bool, bool]:
    """(names ``tools``, ``tool_calls``, ``reasoning_content``, the role ``'developer'``): a plain word search,
    so no template code runs for it.

    A template that names none cannot show that content; one that names them only in its text
    renders what it renders, and the trainer sees that same text.
    """
    return (
        bool(_TOOLS_NAME.search(source)),
        bool(_TOOL_CALLS.search(source)),
        bool(_REASONING.search(source)),
        bool(_DEVELOPER.search(source)),
    )


@lru_cache(maxsize=64)
def _digest(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()


def fallback_template() -> ChatTemplate:
    return ChatTemplate(
        FALLBACK_TEMPLATE, {"bos_token": "", "eos_token": "<|im_end|>"}, name="fallback ChatML", is_fallback=True
    )


@dataclass(frozen=True)
class ToolContext:
    """What a tool- or reasoning-aware template reads besides role and content, for the turns it renders.

    ``tools`` is the row's schema list (HF's ``tools=``); ``fields`` holds, per turn, the message's
    ``tool_calls`` / ``tool_call_id`` / ``name`` / ``reasoning_content`` ({} for a plain turn). A prefix of
    the turns renders with the same context: fields past its end are not read.
    """

    tools: list[Any] | None = None
    fields: tuple[dict[str, Any], ...] = ()


def as_messages(turns: Sequence[Turn], context: ToolContext | None = None) -> list[dict[str, Any]]:
    fields = context.fields if context is not None else ()
    if not fields:
        return [{"role": role, "content": content} for role, content in turns]
    return [
        {"role": role, "content": content, **(fields[i] if i < len(fields) else {})}
        for i, (role, content) in enumerate(turns)
    ]


def _token_text(value: Any) -> str:
    if isinstance(value, dict):  # AddedToken serialised as a dict
        return str(value.get("content") or "")
    return "" if value is None else str(value)


def template_from_config(config: dict[str, Any], name: str = "tokenizer_config.json") -> ChatTemplate | None:
    """The chat template in a tokenizer_config.json dict, or None when it has none."""
    raw = config.get("chat_template")
    if isinstance(raw, list):  # named templates: HF picks "default"
        named = {str(t.get("name")): t.get("template") for t in raw if isinstance(t, dict)}
        raw = named.get("default") or next(iter(named.values()), None)
    if not raw:
        return None
    if not isinstance(raw, str):
        raise ConfigError(f"{name}: chat_template is neither a string nor a list of named templates")
    cap = limits.TEMPLATE_BYTES
    if len(raw) > cap.value() or len(raw.encode("utf-8", "surrogatepass")) > cap.value():
        raise cap.refuse(f"the chat template in {name}", seen=limits.human_bytes(len(raw.encode("utf-8", "replace"))))
    special = {key: _token_text(config.get(key)) for key in _SPECIAL_KEYS}
    template = ChatTemplate(raw, special, name=name)
    if template.trusted:
        _compile(raw)
    else:  # compiling is running code too (a 1 MiB template took 46 s and 1.3 GB in-process)
        from comparelib.audit import sandbox

        sandbox.pool().shape(template)
    return template


def load_template(folder: str | Path) -> ChatTemplate | None:
    """The template in a tokenizer folder: chat_template.jinja wins over tokenizer_config.json."""
    folder = Path(folder)
    config: dict[str, Any] = {}
    cfg_path = folder / "tokenizer_config.json"
    if cfg_path.is_file():
        cfg_path = paths.member(cfg_path, "tokenizer config")
        try:
            config = limits.loads(limits.read_text_capped(cfg_path, str(cfg_path), limits.CONFIG_BYTES), str(cfg_path))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{cfg_path} is not valid JSON: {exc}") from None
        if not isinstance(config, dict):
            raise ConfigError(f"{cfg_path} is not a JSON object")
    jinja_path = folder / "chat_template.jinja"
    if jinja_path.is_file():
        jinja_path = paths.member(jinja_path, "chat template file")
        try:
            source = limits.read_text_capped(jinja_path, str(jinja_path), limits.TEMPLATE_BYTES)
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read {jinja_path} as UTF-8 text: {exc}") from None
        config = {**config, "chat_template": source}
        return template_from_config(config, name=str(jinja_path.name))
    return template_from_config(config) if config else None


# ---------------------------------------------------------------------------------------------
# Assistant spans


def prefix_renders(turns: Sequence[Turn]) -> list[tuple[int, bool]]:
    """The renders the prefix rule needs, as (turns in the prefix, add_generation_prompt): the whole
    conversation, then for each assistant turn the prefix before it with the prompt, and the prefix with it."""
    out = [(len(turns), False)]
    for i, (role, _content) in enumerate(turns):
        if role == "assistant":
            out += [(i, True), (i + 1, False)]
    return out


def _span(full: str, before: str, upto: str) -> tuple[int, int] | None:
    """The span one assistant turn adds (None if it renders as nothing), or DataError if the prefixes do not hold."""
    if not (upto.startswith(before) and full.startswith(upto)):
        raise DataError(
            "the chat template renders earlier turns differently once later turns are added; "
            "assistant spans cannot be found by prefix"
        )
    return (len(before), len(upto)) if len(upto) > len(before) else None


def spans_from_renders(texts: Sequence[str]) -> tuple[str, list[tuple[int, int]]]:
    """The rendered text and assistant spans from the texts of ``prefix_renders``, in that order."""
    full = texts[0]
    spans = [_span(full, before, upto) for before, upto in zip(texts[1::2], texts[2::2], strict=True)]
    return full, [s for s in spans if s is not None]


def reference_spans(
    template: ChatTemplate, turns: Sequence[Turn], context: ToolContext | None = None, full: str | None = None
) -> tuple[str, list[tuple[int, int]]]:
    """The rendered text and its assistant character spans, by rendering every prefix.

    Straightforward and slow (two renders per assistant turn): the definition the fast path in
    ``audit`` is tested against, and the rule for rows with tool context (a call follows the content).
    ``full``: the whole conversation already rendered. A turn whose prefixes do not hold stops the renders.
    """
    if full is None:
        full = template.render_turns(turns, False, context)
    spans: list[tuple[int, int]] = []
    for i, (role, _content) in enumerate(turns):
        if role == "assistant":
            before = template.render_turns(turns[:i], True, context)
            span = _span(full, before, template.render_turns(turns[: i + 1], False, context))
            if span is not None:
                spans.append(span)
    return full, spans


def mask_from_offsets(offsets: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int]]) -> list[int]:
    """1 for every token whose first character lies in an assistant span."""
    mask = [0] * len(offsets)
    k = 0
    for t, (start, end) in enumerate(offsets):
        if end <= start and start == 0 and t > 0:  # zero-width token at 0 (rare): not supervised
            continue
        while k < len(spans) and spans[k][1] <= start:
            k += 1
        if k < len(spans) and spans[k][0] <= start < spans[k][1]:
            mask[t] = 1
    return mask


def reference_loss_mask(
    tokenizer: Any, template: ChatTemplate, turns: Sequence[Turn], context: ToolContext | None = None
) -> tuple[list[int], list[int]]:
    """(token ids, loss mask) for one conversation, the slow obvious way."""
    text, spans = reference_spans(template, turns, context)
    enc = tokenizer.encode(text, add_special_tokens=False)
    return list(enc.ids), mask_from_offsets(enc.offsets, spans)


@dataclass(frozen=True)
class TemplateShape:
    """What the template puts around an assistant turn, learnt once from a probe conversation.

    ``gen_prompt`` is the generation prompt (the assistant header), ``lead`` what the template
    inserts between the header and the content, ``tail`` what follows the content up to the end
    of the turn (the end-of-turn token, a newline).
    """

    gen_prompt: str
    lead: str
    tail: str
    prefix_stable: bool = True
    """False: a later turn changes how an earlier one renders (Qwen3 drops the reasoning of assistant turns before
    the last user message). The framing still finds assistant spans by header ... end of turn, as SpecForge finds
    them in the one render it trains on, but ``fast_spans`` (a prefix-rule shortcut) is not used."""


_PROBE_USER = "\ue000probe question\ue000"
_PROBE_ASSISTANT = "\ue001probe answer\ue001"


def probe_shape(template: ChatTemplate) -> TemplateShape | None:
    """The assistant-turn framing of ``template``, or None if a one-turn conversation does not render as a prefix
    (``prefix_stable``: whether a later turn also leaves the earlier ones as they were)."""
    if not template.trusted:
        from comparelib.audit import sandbox

        learnt = sandbox.pool().shape(template)
        if not learnt:
            return None
        stable = bool(learnt[3]) if len(learnt) > 3 else True
        return TemplateShape(str(learnt[0]), str(learnt[1]), str(learnt[2]), prefix_stable=stable)
    try:
        user_only = template.render_turns([("user", _PROBE_USER)])
        with_prompt = template.render_turns([("user", _PROBE_USER)], add_generation_prompt=True)
        full = template.render_turns([("user", _PROBE_USER), ("assistant", _PROBE_ASSISTANT)])
        second = template.render_turns([("user", _PROBE_USER), ("assistant", _PROBE_ASSISTANT), ("user", _PROBE_USER)])
    except limits.LimitError:
        raise  # a cap refusal is not "no shape": every row would pay the cap again
    except DataError:
        return None
    if not (with_prompt.startswith(user_only) and full.startswith(with_prompt)):
        return None
    gen_prompt = with_prompt[len(user_only) :]
    at = full.find(_PROBE_ASSISTANT, len(with_prompt))
    if at < 0 or not gen_prompt:
        return None
    lead = full[len(with_prompt) : at]
    tail = full[at + len(_PROBE_ASSISTANT) :]
    return TemplateShape(gen_prompt=gen_prompt, lead=lead, tail=tail, prefix_stable=second.startswith(full))


def fast_spans(text: str, turns: Sequence[Turn], shape: TemplateShape) -> list[tuple[int, int]] | None:
    """Assistant spans in an already rendered ``text`` by searching for header+content in order.

    Returns None for a template that is not prefix-stable (``TemplateShape.prefix_stable``), and when the
    content is not found verbatim (the template rewrote it): the caller
    then uses ``reference_spans`` for that row.
    """
    if not shape.prefix_stable:
        return None
    spans: list[tuple[int, int]] = []
    pos = 0
    head = shape.gen_prompt + shape.lead
    for role, content in turns:
        if role != "assistant":
            if content:
                at = text.find(content, pos)
                if at < 0:
                    return None
                pos = at + len(content)
            continue
        needle = head + content + shape.tail
        at = text.find(needle, pos)
        if at < 0:
            return None
        start = at + len(shape.gen_prompt)
        end = at + len(needle)
        spans.append((start, end))
        pos = end
    return spans


def pretemplated_spans(text: str, shape: TemplateShape) -> list[tuple[int, int]]:
    """Assistant spans in a pre-templated string: from each header to the end-of-turn marker."""
    spans: list[tuple[int, int]] = []
    tail = shape.tail.strip() or shape.tail
    pos = 0
    while True:
        at = text.find(shape.gen_prompt, pos)
        if at < 0:
            return spans
        start = at + len(shape.gen_prompt)
        stop = text.find(tail, start) if tail else -1
        if stop < 0:
            spans.append((start, len(text)))
            return spans
        end = stop + len(tail)
        if shape.tail.startswith(tail) and text.startswith(shape.tail, stop):
            end = stop + len(shape.tail)
        spans.append((start, end))
        pos = end
