"""Prompts for live benchmarks: the bundled set, or rows of a JSONL file the user points at.

A prompt is either plain text or a chat conversation (list of {"role", "content"} messages that
ends with a user turn); the client sends conversations to chat routes and flattens them for text
routes. Baseline and speculative runs must use the same prompts, so loading is deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from comparelib import limits, paths, settings
from comparelib.errors import CompareError, DataError, InputError

Message = dict[str, str]
Prompt = str | list[Message]

BUNDLED_NAME = "bundled"
_TEXT_KEYS = ("prompt", "text", "question", "instruction", "input", "query")
_ROLE_MAP = {
    "human": "user",
    "user": "user",
    "gpt": "assistant",
    "assistant": "assistant",
    "model": "assistant",
    "bot": "assistant",
    "system": "system",
}


def bundled_path() -> Path:
    return settings.BUILTIN_DIR / "prompts.jsonl"


def _messages(turns: Sequence[Any]) -> list[Message] | None:
    """ShareGPT ({from, value}) or OpenAI ({role, content}) turns, cut after the last user turn."""
    out: list[Message] = []
    for turn in turns:
        if not isinstance(turn, Mapping):
            return None
        role = _ROLE_MAP.get(str(turn.get("role", turn.get("from", ""))).lower())
        content = turn.get("content", turn.get("value"))
        if role is None or not isinstance(content, str):
            continue
        out.append({"role": role, "content": content})
    while out and out[-1]["role"] != "user":
        out.pop()
    return out or None


def prompt_from_row(row: Any) -> Prompt | None:
    """One prompt from a dataset row, or None if the row has nothing usable."""
    if isinstance(row, str):
        return row if row.strip() else None
    if not isinstance(row, Mapping):
        return None
    for key in ("messages", "conversations", "conversation"):
        turns = row.get(key)
        if isinstance(turns, list):
            msgs = _messages(turns)
            if msgs:
                return msgs
    for key in _TEXT_KEYS:
        value = row.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return _from_conversations(row)


def _from_conversations(row: Mapping[str, Any]) -> Prompt | None:
    """Layouts only the audit's reader knows (content as parts, SpecForge/ModelOpt rows)."""
    try:
        from comparelib.audit import conversations
    except ImportError:
        return None
    fmt = conversations.detect_format([row])
    if fmt is None or fmt == "text":
        return None
    try:
        conv = conversations.normalize(row, fmt)
    except (ValueError, CompareError):
        return None
    return _messages([{"role": role, "content": content} for role, content in conv.turns])


def load_prompts(path: str | Path | None = None, *, limit: int | None = None) -> list[Prompt]:
    """Prompts from a JSONL file (one row per line) or, without a path, the bundled set."""
    source = paths.resolve_user_path(path, "prompt file") if path is not None else bundled_path()
    if not source.is_file():
        raise InputError(f"prompt file not found: {source}")
    prompts: list[Prompt] = []
    try:
        with source.open("rb") as fh:
            for lineno, raw in enumerate(limits.iter_lines(fh, source.name), 1):
                if not raw.strip():
                    continue
                line = raw.decode("utf-8")
                try:
                    row = limits.loads(line, f"{source.name} line {lineno}")
                except ValueError as exc:
                    raise DataError(
                        f"{source.name} line {lineno} is not JSON ({getattr(exc, 'msg', exc)}); expected one JSON "
                        f"object per line with a 'prompt' or 'messages' field"
                    ) from exc
                prompt = prompt_from_row(row)
                if prompt is not None:
                    prompts.append(prompt)
                if limit is not None and len(prompts) >= limit:
                    break
    except UnicodeDecodeError as exc:
        raise DataError(f"{source.name} is not UTF-8 text") from exc
    if not prompts:
        raise DataError(
            f"no prompts in {source.name}: rows need a 'prompt'/'text' string or a "
            f"'messages'/'conversations' list ending in a user turn"
        )
    return prompts


def prompt_set_name(path: str | Path | None) -> str:
    return BUNDLED_NAME if path is None else Path(path).name


def as_messages(prompt: Prompt) -> list[Message]:
    return [{"role": "user", "content": prompt}] if isinstance(prompt, str) else list(prompt)


def as_text(prompt: Prompt) -> str:
    """Conversations flattened for text routes (/generate, /v1/completions) without a chat template."""
    if isinstance(prompt, str):
        return prompt
    if len(prompt) == 1:
        return prompt[0]["content"]
    return "\n\n".join(f"{m['role'].capitalize()}: {m['content']}" for m in prompt) + "\n\nAssistant:"
