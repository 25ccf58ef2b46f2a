"""Training-data rows in any of the common layouts, turned into one list of (role, content) turns
(plus the tool schemas and per-message tool fields that tool-aware chat templates read).

Drafts are trained from SpecForge, ShareGPT/EAGLE, OpenAI-messages, ModelOpt, pre-templated and
prompt/response files; the audit must count them all the same way, so every layout is reduced
here to ``Conversation`` before anything is tokenised. Role names are mapped the way SpecForge's
``prepare_data.py`` maps ShareGPT roles.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from comparelib import limits
from comparelib.audit import templates
from comparelib.errors import InputError, LimitError

FORMATS: tuple[str, ...] = ("specforge", "modelopt", "sharegpt", "openai", "text", "prompt_response")
FORMAT_LABELS: dict[str, str] = {
    "specforge": "SpecForge (id + conversations of role/content)",
    "modelopt": "ModelOpt (conversation_id + conversations of role/content)",
    "sharegpt": "ShareGPT (conversations of from/value)",
    "openai": "OpenAI messages",
    "text": "pre-templated text",
    "prompt_response": "prompt/response pairs",
}

ROLE_MAP: dict[str, str] = {
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "gpt": "assistant",
    "chatgpt": "assistant",
    "bing": "assistant",
    "bard": "assistant",
    "model": "assistant",
    "system": "system",
    "tool": "tool",
    "function": "tool",
    "ipython": "tool",
    "developer": "developer",  # harmony (gpt-oss); kept where the chat template names it (``keep_developer``)
}

REASONING_FIELD = "reasoning_content"
"""The one reasoning field SpecForge hands the chat template: specforge 0.2.0 data/parse.py:455-478
(ThinkingParser, the parser of its thinking templates, keeps role, content, tool_calls, reasoning_content,
name, tool_call_id; ``_sanitize_message`` drops every other field; its GeneralParser keeps role, content and
tool_calls only). The loss mask runs from the assistant header to the end of the turn, so reasoning the
template renders inside the turn is supervised. Its pinned transformers (5.8.1) passes the field as is;
transformers 5.21 and later also copy it into ``thinking``, which gpt-oss's template reads."""
DROPPED_REASONING_FIELDS: tuple[str, ...] = ("thinking", "reasoning")
"""Reasoning under another name (gpt-oss's HF template reads ``thinking``): SpecForge drops it before the
template, so it is neither trained on nor counted; the row is flagged ``reasoning_not_counted``."""
MAX_ROLE_CHARS = 40  # an unknown role named in an example row is cut to this

_PROMPT_KEYS = ("prompt", "instruction", "question", "input", "query")
_RESPONSE_KEYS = ("response", "completion", "output", "answer", "chosen")
_GEN_ID = re.compile(r"_gen\d+$")
# Row fields that state a sample's domain, in the order they are read: ``domain`` (OpenThoughts' metadata, a
# team's own mix), ``category`` (OpenHermes-2.5, Llama-Nemotron post-training: "math", "code", "chat"),
# ``task_category`` (Magpie). ``source``/``dataset``/``task`` name the sub-dataset or task a row came from
# (hundreds of values in Tulu-3 or FLAN), not its domain, so they are not read as one.
DOMAIN_FIELDS: tuple[str, ...] = ("domain", "category", "task_category")
MAX_DOMAIN_CHARS = 40  # a stated label longer than this is cut: a hostile file cannot widen the table


class RowError(ValueError):
    """One row that cannot be used; it is set aside and reported, the run goes on."""


@dataclass(frozen=True)
class NonText:
    """A message whose content (``value`` in ShareGPT) is neither text nor null, as the row holds it.

    SpecForge 0.2.0 does not check the type: ``Parser._normalize_message`` (data/parse.py) takes
    ``message.get("content") or message.get("value") or ""``, so a falsy value (0, false, [], {}) becomes an empty
    turn and any other reaches the chat template as it is (``scan.NON_TEXT_OUTCOMES`` says what happens there).
    The audit counts the text ``_content`` reads from it (text parts joined, a number's digits)."""

    message: int  # the message's number in the row, counted from 1, dropped roles included
    role: str
    field: str  # "value" (ShareGPT) or "content"
    value: Any

    @property
    def kind(self) -> str:
        if isinstance(self.value, bool):
            return "true/false"
        if isinstance(self.value, (int, float)):
            return "a number"
        if isinstance(self.value, list):
            return "a list"
        if isinstance(self.value, Mapping):
            return "an object"
        return f"a {type(self.value).__name__}"

    @property
    def reaches_template(self) -> bool:
        """Whether SpecForge hands it to the chat template (truthy) rather than an empty string (falsy)."""
        return bool(self.value)

    def label(self) -> str:
        return f"message {self.message} ({self.role}): {self.field} is {self.kind}"


@dataclass
class Conversation:
    """One training sample: turns in order, and how (if at all) it was regenerated."""

    turns: list[tuple[str, str]]
    regenerated: bool = False
    status: str | None = None  # SpecForge regeneration status: success / error / skipped
    text: str | None = None  # pre-templated rows: the text as the trainer sees it
    anomalies: list[str] = field(default_factory=list)
    tools: list[Any] | None = None  # the row's tool schemas, as the trainer hands them to the template
    # turn index -> tool_calls / tool_call_id / name / reasoning_content: what a template may read besides content
    fields: dict[int, dict[str, Any]] = field(default_factory=dict)
    domain: str | None = None  # the domain the row states (``stated_domain``), normalised; None: not stated
    domain_field: str | None = None  # the field that stated it
    unknown_roles: list[tuple[int, str]] = field(default_factory=list)  # (turn index it preceded, role): dropped
    empty_turns: list[tuple[int, str]] = field(default_factory=list)  # (message number, role): ``empty_turns``
    non_text: dict[int, NonText] = field(default_factory=dict)  # turn index -> its content as the row holds it
    non_text_kept: list[tuple[int, NonText]] = field(default_factory=list)  # ``kept_non_text``, set by the scan

    @property
    def pretemplated(self) -> bool:
        return self.text is not None


def _content(value: Any) -> str:
    """Message content as text: OpenAI content-part lists are joined, None is empty."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = []
        for part in value:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "".join(parts)
    if isinstance(value, (int, float)):
        return str(value)
    raise RowError(f"message content is a {type(value).__name__}, not text")


def _nested_json(raw: str, subject: str, default: Any) -> Any:
    """A JSON string inside a row (SpecForge parses these); ``default`` if it is not JSON, RowError past a cap."""
    try:
        return limits.loads(raw, subject)
    except LimitError as exc:
        raise RowError(str(exc)) from None
    except ValueError:
        return default


def _tool_calls(value: Any) -> list[dict[str, Any]]:
    """``tool_calls`` cleaned the way SpecForge's trainer cleans them before the chat template sees them.

    specforge 0.2.0 data/parse.py:40-101 (``Parser._sanitize_message``): a JSON string is parsed (dropped
    if it is not JSON), only id/type/function(name, arguments) are kept, and string arguments are parsed
    to a dict ({} if not JSON), so a template's ``arguments | tojson`` re-serialises them.
    """
    if isinstance(value, str):
        value = _nested_json(value, "a tool_calls string", None)
    if not isinstance(value, list):
        return []
    out: list[dict[str, Any]] = []
    for call in value:
        if not isinstance(call, Mapping):
            continue
        clean: dict[str, Any] = {"id": call.get("id", ""), "type": call.get("type", "function")}
        func = call.get("function", {})
        if isinstance(func, Mapping):
            arguments = func.get("arguments", {})
            if isinstance(arguments, str):
                arguments = _nested_json(arguments, "a tool call's arguments", {})
            clean["function"] = {"name": func.get("name", ""), "arguments": arguments}
        out.append(clean)
    return out


def _tools(value: Any) -> list[Any] | None:
    """The row's ``tools`` schemas as SpecForge reads them (data/preprocessing.py:261-283): a list, or a JSON
    string of one; anything else is no tools (the trainer then renders with ``tools=None``, parse.py:141)."""
    if isinstance(value, str):
        value = _nested_json(value, "the tools string", None)
    return value if isinstance(value, list) and value else None


def _label(value: Any, cap: int) -> str:
    """``value`` as a one-line label: unprintable characters dropped, whitespace collapsed, cut at ``cap``."""
    text = value if isinstance(value, str) else str(value)
    return " ".join("".join(ch if ch.isprintable() else " " for ch in text[: cap * 25]).split())[:cap].strip()


@dataclass
class _Parsed:
    turns: list[tuple[str, str]]
    anomalies: list[str]
    fields: dict[int, dict[str, Any]]
    unknown_roles: list[tuple[int, str]]
    non_text: dict[int, NonText] = field(default_factory=dict)


def _messages(value: Any, role_key: str, content_key: str) -> _Parsed:
    if not isinstance(value, list):
        raise RowError(f"expected a list of messages, got {type(value).__name__}")
    turns: list[tuple[str, str]] = []
    anomalies: list[str] = []
    fields: dict[int, dict[str, Any]] = {}
    unknown: list[tuple[int, str]] = []
    non_text: dict[int, NonText] = {}
    for number, msg in enumerate(value, start=1):
        if not isinstance(msg, Mapping):
            raise RowError("a message is not an object")
        if role_key not in msg:
            raise RowError(f"a message has no {role_key!r} field")
        raw_role = str(msg.get(role_key) or "").strip().lower()
        role = ROLE_MAP.get(raw_role)
        if role is None:
            anomalies.append("unknown_role")  # SpecForge drops these messages too
            unknown.append((len(turns), _label(msg.get(role_key) or "(empty)", MAX_ROLE_CHARS) or "(empty)"))
            continue
        raw = msg.get(content_key)
        if type(raw) is str or isinstance(raw, str):  # nearly every message: one identity check
            content = raw
        else:
            if raw is not None:
                non_text[len(turns)] = NonText(number, role, content_key, raw)
            # SpecForge's `content or value or ""` (data/parse.py _normalize_message): a falsy value is an empty turn
            content = _content(raw) if raw else ""
        extra: dict[str, Any] = {}
        thought = msg.get(REASONING_FIELD)
        if isinstance(thought, str):  # passed on as SpecForge passes it, "" included (templates test `is string`)
            extra[REASONING_FIELD] = thought
        elif any(isinstance(msg.get(k), str) and msg[k] for k in DROPPED_REASONING_FIELDS):
            anomalies.append("reasoning_not_counted")
        if msg.get("tool_calls"):
            calls = _tool_calls(msg["tool_calls"])
            if calls:
                extra["tool_calls"] = calls
        elif msg.get("function_call"):
            # the legacy OpenAI field: SpecForge keeps only role/content/tool_calls (parse.py:24), templates
            # read tool_calls, so no template renders it and its arguments are never in the counts
            anomalies.append("tools_not_counted")
        if role == "tool":  # what HF templates read on a tool result (SpecForge's ThinkingParser keeps them)
            extra.update({k: msg[k] for k in ("tool_call_id", "name") if isinstance(msg.get(k), str)})
        if extra:
            fields[len(turns)] = extra
        turns.append((role, content))
    return _Parsed(turns, anomalies, fields, unknown, non_text)


def _detect_one(row: Mapping[str, Any]) -> str | None:
    conv = row.get("conversations")
    if isinstance(conv, list) and conv:
        first = next((m for m in conv if isinstance(m, Mapping)), None)
        if first is not None:
            if "from" in first and "value" in first:
                return "sharegpt"
            if "role" in first:
                return "modelopt" if "conversation_id" in row else "specforge"
    if isinstance(row.get("messages"), list):
        return "openai"
    if isinstance(row.get("conversations"), list):
        return "specforge"
    if isinstance(row.get("text"), str):
        return "text"
    if any(k in row for k in _PROMPT_KEYS) and any(k in row for k in _RESPONSE_KEYS):
        return "prompt_response"
    return None


def detect_format(rows: Iterable[Any]) -> str | None:
    """The most common layout among sample rows (dicts); None if none is recognised."""
    votes: Counter[str] = Counter()
    for row in rows:
        if isinstance(row, Mapping):
            fmt = _detect_one(row)
            if fmt:
                votes[fmt] += 1
    return votes.most_common(1)[0][0] if votes else None


def check_format(fmt: str) -> str:
    name = fmt.strip().lower().replace("-", "_")
    aliases = {
        "auto": "auto",
        "messages": "openai",
        "chatml": "openai",
        "pretemplated": "text",
        "preformatted": "text",
        "prompt": "prompt_response",
        "eagle": "sharegpt",
    }
    name = aliases.get(name, name)
    if name != "auto" and name not in FORMATS:
        raise InputError(f"unknown data format {fmt!r}; use auto or one of {', '.join(FORMATS)}")
    return name


def stated_domain(row: Mapping[str, Any]) -> tuple[str, str] | None:
    """(field, label) of the domain ``row`` states in one of ``DOMAIN_FIELDS``; None when it states none.

    The label is lower-cased, its whitespace collapsed, unprintable characters dropped and cut at
    ``MAX_DOMAIN_CHARS``, so "Math", " math " and "MATH\n" are one domain and no label carries a terminal escape.
    An empty or non-text value (a list, a number, null) states nothing: the next field is read."""
    for key in DOMAIN_FIELDS:
        value = row.get(key)
        if not isinstance(value, str):
            continue
        label = " ".join("".join(ch if ch.isprintable() else " " for ch in value[:1000]).split()).lower()
        label = label[:MAX_DOMAIN_CHARS].strip()
        if label:
            return key, label
    return None


def _regenerated(row: Mapping[str, Any]) -> tuple[bool, str | None]:
    """Whether ``row`` was regenerated by a target (a marker a regeneration script writes), and its status.

    SpecForge's regenerate_train_data.py marks every row it writes with ``status`` (success / error / skipped);
    its ``--reasoning save`` adds ``reasoning_content`` beside that status. ``reasoning_content`` alone is no
    evidence: reasoning datasets (OpenThoughts, R1 distills, gpt-oss outputs) carry it from their own generation.
    speculators' rows carry ``primary_id`` and ``metadata.finish_reason``; ``_gen<N>`` ids mark generated copies.
    """
    status = row.get("status")
    status = str(status) if isinstance(status, str) else None
    meta = row.get("metadata")
    finish = isinstance(meta, Mapping) and meta.get("finish_reason") is not None
    rid = row.get("id")
    gen_id = isinstance(rid, str) and bool(_GEN_ID.search(rid))
    return bool(status or finish or gen_id or "primary_id" in row), status


def normalize(row: Any, fmt: str) -> Conversation:
    """The conversation in ``row`` read as ``fmt``; raises RowError when it does not fit."""
    if not isinstance(row, Mapping):
        raise RowError(f"row is a JSON {type(row).__name__}, not an object")
    parsed = _Parsed([], [], {}, [])
    text: str | None = None
    if fmt in ("specforge", "modelopt"):
        if "conversations" not in row:
            raise RowError("no 'conversations' field")
        parsed = _messages(row["conversations"], "role", "content")
    elif fmt == "sharegpt":
        if "conversations" not in row:
            raise RowError("no 'conversations' field")
        parsed = _messages(row["conversations"], "from", "value")
    elif fmt == "openai":
        if "messages" not in row:
            raise RowError("no 'messages' field")
        parsed = _messages(row["messages"], "role", "content")
    elif fmt == "text":
        raw = row.get("text")
        if not isinstance(raw, str):
            raise RowError("no 'text' string")
        text = raw
        parsed.turns = [("text", raw)]
    elif fmt == "prompt_response":
        prompt = next((row[k] for k in _PROMPT_KEYS if k in row), None)
        response = next((row[k] for k in _RESPONSE_KEYS if k in row), None)
        if prompt is None or response is None:
            raise RowError("no prompt/response pair")
        if isinstance(row.get("system"), str) and row["system"]:
            parsed.turns.append(("system", row["system"]))
        user = _content(prompt)
        extra = row.get("input")
        if "instruction" in row and isinstance(extra, str) and extra.strip():
            user = f"{user}\n\n{extra}"  # Alpaca / CodeAlpaca: the instruction's context is part of the prompt
        parsed.turns += [("user", user), ("assistant", _content(response))]
    else:
        raise InputError(f"unknown data format {fmt!r}")
    tools = _tools(row.get("tools")) if text is None else None
    regenerated, status = _regenerated(row)
    domain_field, domain = stated_domain(row) or (None, None)
    return Conversation(
        turns=parsed.turns,
        regenerated=regenerated,
        status=status,
        text=text,
        anomalies=parsed.anomalies,
        tools=tools,
        fields=parsed.fields,
        domain=domain,
        domain_field=domain_field,
        unknown_roles=parsed.unknown_roles,
        non_text=parsed.non_text,
    )


_TOOL_FIELDS = frozenset({"tool_calls", "tool_call_id", "name"})


def tool_context(
    conv: Conversation, positions: Sequence[int], template: templates.ChatTemplate
) -> tuple[templates.ToolContext | None, bool]:
    """The row's tool and reasoning content the template can render, for the kept turns at ``positions``; and
    whether some tool content is left out (flagged ``tools_not_counted``: the count cannot include it honestly;
    reasoning left out is ``reasoning_left_out``).

    Like SpecForge (parse.py:136-143, ``tokenizer.apply_chat_template(messages, tools=tool or None)``) the
    schemas go in as ``tools`` and each message keeps its tool_calls and reasoning_content (ThinkingParser,
    parse.py:455-478), so they are counted and the assistant span holding them is supervised. A template
    that never names ``tools`` / ``tool_calls`` / ``reasoning_content`` (the fallback ChatML one included)
    renders role and content only, as before.
    """
    if conv.tools is None and not conv.fields:
        return None, False
    has_calls = any("tool_calls" in f for f in conv.fields.values())
    tools = conv.tools if template.renders_tools else None
    read = (_TOOL_FIELDS if template.renders_tool_calls else frozenset()) | (
        {REASONING_FIELD} if template.renders_reasoning else frozenset()
    )
    fields: tuple[dict[str, Any], ...] = ()
    if read and conv.fields:
        fields = tuple({k: v for k, v in conv.fields.get(i, {}).items() if k in read} for i in positions)
    left_out = (conv.tools is not None and tools is None) or (has_calls and not template.renders_tool_calls)
    if tools is None and not any(fields):
        return None, left_out
    return templates.ToolContext(tools, fields), left_out


def reasoning_left_out(conv: Conversation, positions: Sequence[int], template: templates.ChatTemplate) -> bool:
    """Whether a kept turn carries ``reasoning_content`` the template never reads (flagged
    ``reasoning_not_counted``: neither the count nor SpecForge's training text holds it)."""
    return not template.renders_reasoning and any(conv.fields.get(i, {}).get(REASONING_FIELD) for i in positions)


def keep_developer(conv: Conversation, template: templates.ChatTemplate) -> None:
    """Drop ``developer`` turns from ``conv`` when the template never names that role, flagged ``unknown_role``
    and named in ``unknown_roles``, as any role the audit does not know. A template that names it gets them:
    SpecForge passes the role through (parse.py:105-116), though it drops a leading one like any leading
    non-user message (``trainable_positions``: ``starts_without_user``)."""
    if template.renders_developer or not any(role == "developer" for role, _ in conv.turns):
        return
    before: dict[int, list[str]] = {}  # the unknown roles already dropped, by the turn they preceded
    for at, name in conv.unknown_roles:
        before.setdefault(at, []).append(name)
    turns: list[tuple[str, str]] = []
    fields: dict[int, dict[str, Any]] = {}
    non_text: dict[int, NonText] = {}
    unknown: list[tuple[int, str]] = []
    for i in range(len(conv.turns) + 1):
        unknown += [(len(turns), name) for name in before.get(i, [])]
        if i == len(conv.turns):
            break
        role, content = conv.turns[i]
        if role == "developer":
            unknown.append((len(turns), "developer"))
            conv.anomalies.append("unknown_role")
            continue
        if i in conv.fields:
            fields[len(turns)] = conv.fields[i]
        if i in conv.non_text:
            non_text[len(turns)] = conv.non_text[i]
        turns.append((role, content))
    conv.turns, conv.fields, conv.unknown_roles, conv.non_text = turns, fields, unknown, non_text


def example_roles(conv: Conversation, limit: int = 12) -> list[str]:
    """The row's roles in order for an example table, each dropped unknown role named where it stood."""
    dropped: dict[int, list[str]] = {}
    for at, name in conv.unknown_roles:
        dropped.setdefault(at, []).append(f"{name} (unknown role, dropped)")
    out: list[str] = []
    for i in range(len(conv.turns) + 1):
        out += dropped.get(i, [])
        if i < len(conv.turns):
            out.append(conv.turns[i][0])
        if len(out) >= limit:
            break
    return out[:limit]


def is_empty(conv: Conversation) -> bool:
    """Every turn empty (or none): the row is set aside, not a sample. A row with only some turns empty is
    ``empty_turns``'s: it stays a sample and is flagged."""
    return not conv.turns or all(not content.strip() for _role, content in conv.turns)


EMPTY_TURN_ROLES: tuple[str, ...] = ("user", "assistant")


def empty_turns(conv: Conversation, positions: Sequence[int]) -> list[tuple[int, str]]:
    """(message number in the row, counted from 1 with dropped roles included, role) of each kept user or
    assistant turn whose content is empty or whitespace only, and that carries no tool_calls and no
    reasoning_content (an assistant turn that only calls a tool is not empty).

    The row still trains, so it stays a sample: SpecForge 0.2.0 keeps such a message as is (data/parse.py
    ``_normalize_message`` turns a missing content into ""); its loss mask runs from the assistant header to the
    end-of-turn token, so an empty assistant turn supervises only that token, and only a row with no supervised
    token at all is filtered (EAGLE-3's minimum_loss_tokens is 1: algorithms/common/defaults.py, applied in
    data/preprocessing.py). speculators 0.9.0 (data_generation/preprocessing.py) makes one row per assistant
    turn, supervising what the turn adds to the prompt's render: for an empty turn the end-of-turn tokens; only
    ``--minimum-valid-tokens`` (default off) drops it. Neither checks for empty content. An empty user turn
    asks nothing: the answer after it is trained without its question."""
    out: list[tuple[int, str]] = []
    for i in positions:
        role, content = conv.turns[i]
        if role not in EMPTY_TURN_ROLES or content.strip():
            continue
        extra = conv.fields.get(i, {})
        if extra.get("tool_calls") or str(extra.get(REASONING_FIELD) or "").strip():
            continue
        out.append((i + 1 + sum(1 for at, _name in conv.unknown_roles if at <= i), role))
    return out


def kept_non_text(conv: Conversation, positions: Sequence[int]) -> list[tuple[int, NonText]]:
    """(index among the kept turns, the value) of each kept turn whose content is not text: a leading turn the
    trainer drops never reaches the chat template, so it is not flagged."""
    if not conv.non_text:
        return []
    return [(k, conv.non_text[i]) for k, i in enumerate(positions) if i in conv.non_text]


def trainable_positions(turns: Sequence[tuple[str, str]]) -> tuple[list[int], list[str]]:
    """The indices of the turns a trainer keeps, and the role-order anomalies found on the way.

    Like SpecForge and EAGLE: an optional leading system message, then leading non-user
    messages are dropped; assistant must follow user or tool.
    """
    anomalies: list[str] = []
    out: list[int] = []
    start = 0
    if turns and turns[0][0] == "system":
        out.append(0)
        start = 1
    first = next((i for i in range(start, len(turns)) if turns[i][0] == "user"), len(turns))
    if first > start:
        anomalies.append("starts_without_user")
    prev = None
    for i in range(first, len(turns)):
        role = turns[i][0]
        if role == "system":
            anomalies.append("system_in_middle")
        elif role == prev and role in ("user", "assistant"):
            anomalies.append(f"consecutive_{role}")
        prev = role
        out.append(i)
    roles = [turns[i][0] for i in out]
    if "assistant" not in roles:
        anomalies.append("no_assistant_turn")
    elif roles[-1] == "user":
        anomalies.append("ends_with_user")
    return out, anomalies


def trainable_turns(turns: Sequence[tuple[str, str]]) -> tuple[list[tuple[str, str]], list[str]]:
    """The turns a trainer keeps (``trainable_positions``), and the role-order anomalies."""
    positions, anomalies = trainable_positions(turns)
    return [(turns[i][0], turns[i][1]) for i in positions], anomalies


def joined_text(turns: Sequence[tuple[str, str]]) -> str:
    """Canonical text of a conversation for hashing: roles and contents, unambiguous separators.

    The separators stand between spaces, so collapsing the whitespace of the whole text (``scan.collapse``) strips
    each content's ends as well: a content's leading and trailing whitespace joins the separator's space."""
    return " \x1e ".join(f"{role} \x1f {content}" for role, content in turns)
