"""The training-data audit: one streaming pass that counts what a draft will actually train on.

Rows come from ``sources`` (files, folders, Hub datasets), are counted by ``tokens`` (the target's
tokenizer and chat template) and end in an ``auditresult.AuditResult``; this module is the scan
that ties them together and the row-level checks (duplicates, anomalies, domain mix).

Why streaming: published drafts train on millions of rows, so nothing here holds the dataset.
Memory bounds (independent of the number of rows unless noted):

* token lengths: a ``Counter`` of integer lengths, bounded by the longest sample;
* exact duplicates, and duplicates once whitespace is collapsed: two 8-byte hashes and one 8-byte row location
  per row in ``array``s (24 MB per million rows), and for the unique usable rows the collapsed hash, location,
  tokens and a flag per counted row (25 MB more): the only parts that grow, and they are not Python objects;
* near duplicates: MinHash LSH (64 permutations, word 3-grams, Jaccard >= 0.8) over a reservoir of at
  most ``near_dup_cap`` rows (default 10,000) whose first 1,500 characters are kept: about 15-60 MB
  at most (ASCII vs CJK text); exact when the dataset is smaller, a lower bound otherwise;
* parsing runs ahead of tokenising by at most ``_QUEUE_BATCHES`` batches of ~2K texts;
* estimate mode keeps one small tuple per sampled row.

Tokenising is ``Tokenizer.encode_batch_fast`` on ~2K-text chunks (Rust uses all cores) while a
reader thread parses and renders the next chunk (see ``tokens`` for how the loss mask is counted).
"""

from __future__ import annotations

import contextvars
import hashlib
import itertools
import json
import math
import queue
import random
import re
import threading
import time
import zlib
from array import array
from collections import Counter, deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from itertools import repeat
from typing import Any, Literal

from comparelib import limits
from comparelib.audit import conversations as conv_mod
from comparelib.audit.result import AuditResult, histogram, percent, percentiles
from comparelib.audit.sources import Source, open_source, reservoir
from comparelib.audit.templates import ChatTemplate, ToolContext, as_messages, falls_back, render_errors
from comparelib.audit.tokens import (
    FALLBACK_METHOD,
    Prepared,
    TokenizerBundle,
    count_prepared,
    load_tokenizer,
    prepare,
    prepare_many,
)
from comparelib.errors import DataError, InputError

ProgressFn = Callable[[int, float, "float | None"], None]

DEFAULT_MAX_LENGTH = 2048
MAX_LENGTH_NOTE = "truncated by SpecForge, dropped by EAGLE"
CHUNK_TEXTS = 2048
_QUEUE_BATCHES = 4
_DETECT_ROWS = 200
_EXAMPLES = 5
_NEAR_DUP_CHARS = 1500

_CODE_MARKS = ("```", "#include", "console.log(", "=> {", "</div>", "fn main(")
"""Literal code evidence: a fenced block, a C include, a JS log call or arrow body, an HTML close tag, Rust's main."""
_LINE_CODE = {
    "def": re.compile(r"def[ \t]+\w+[ \t]*\("),  # Python: def name(
    "class": re.compile(r"class[ \t]+\w+[ \t]*[(:{]"),  # class Name: / class Name(Base) / class Name {
    "import": re.compile(  # import os / import numpy as np / import React from 'react'
        r"import[ \t]+[\w.]+(?:[ \t]+as[ \t]+\w+)?[ \t]*;?[ \t]*(?:\n|$)|import[ \t][^\n]*[ \t]from[ \t]+['\"]"
    ),
    "from": re.compile(r"from[ \t]+[\w.]+[ \t]+import[ \t]+[\w(*]"),  # from x import y
}
"""Code words that are code only as a statement of their own line (after indentation, "async" for def)."""
_WORD_CODE = {
    "function": re.compile(r"function[ \t]*\*?[ \t]*[\w$]*[ \t]*\([^()\n]*\)[ \t]*\{"),  # JS function f(a) {
    "public": re.compile(r"public[ \t]+(?:static[ \t]+)?[\w<>\[\]]+[ \t]+\w+[ \t]*\("),  # Java / C# method
    "private": re.compile(r"private[ \t]+(?:static[ \t]+)?[\w<>\[\]]+[ \t]+\w+[ \t]*\("),
    "protected": re.compile(r"protected[ \t]+(?:static[ \t]+)?[\w<>\[\]]+[ \t]+\w+[ \t]*\("),
    "SELECT": re.compile(r"SELECT\b[^\n]*\bFROM\b"),  # SQL, upper case as written
}
"""Code words that are code with the syntax after them, anywhere a word starts.

Why not the bare words: "function", "class", "import" and "select" are English, and a walk's 5,000 ordinary chat
rows read 4,034 "code" on the bare marker "function ". Each word is found with ``str.find`` and its syntax matched
only there: one regex over the whole text cost about 0.5 ms a row of prose that uses the words."""
_LATEX = re.compile(
    r"\\(?:[dt]?frac|boxed|sqrt|sum|int|prod|lim|cdot|times|leq|geq|neq|approx|equiv|infty|binom|partial"
    r"|math(?:bb|bf|rm|cal))(?![A-Za-z])"  # a command, not a path's \internal or \summary
    r"|\\begin\{(?:align|equation|gather|cases|[pbv]?matrix)"
    r"|\\\([^\n]{1,300}?\\\)|\\\[.{1,1000}?\\\]",  # \( inline \) and \[ display \], closed
    re.DOTALL,
)
"""LaTeX math at a backslash: a command (where no letter follows), an environment, a closed \\( \\) or \\[ \\] span."""
_DISPLAY = re.compile(r"\$\$([^$]{1,1000}+)\$\$")  # $$ ... $$
_INLINE = re.compile(r"\$([^\s$][^$\n]{0,300}+)\$")  # $...$, which does not end with a space (checked after)
_MATH_INSIDE = re.compile(r"[=^_\\{}<>]|^\s*[A-Za-z]\s*$|[A-Za-z0-9)]\s*[+\-*/]\s*[A-Za-z0-9(]")
"""What makes a dollar span math: a relation, power, subscript, command or brace, one letter, or an operation."""
_EQ_LEFT = re.compile(
    r"(?:\d\s*[+\-*/^\u00d7\u00f7]\s*\d+"  # 3 + 4 =
    r"|\b\d*[a-z]\s*[+\-*/\u00d7\u00f7]\s*\d*[a-z]"  # a + b =, 2x - y =
    r"|\b[a-zA-Z]\([a-z]\))\s*$"  # f(x) =
)
"""What stands before an "=" that makes it an equation whatever follows (searched in the 24 characters before)."""
_EQ_RIGHT = re.compile(r"\s*-?\d")
_POWER = re.compile(r"\{?-?[A-Za-z0-9(]")  # after a "^" that follows a letter, digit or bracket: x^2, 2^{10}, (a+b)^2
_GSM8K = re.compile(r"####[ \t]*-?[\d,]*\d(?:\.\d+)?[ \t]*(?:\n|$)")  # a GSM8K answer line: #### 72
_MATH_SIGNS = ("\u222b", "\u2211")  # the integral and n-ary sum signs
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
Domain = Literal["code", "math", "cjk", "other"]
DOMAINS: tuple[Domain, ...] = ("code", "math", "cjk", "other")
DOMAIN_LABELS = 12  # stated labels shown; the rest are one "other (N labels)" row
DOMAIN_TRACKED = 1000  # distinct stated labels counted: a file with a label per row holds this many at most

NON_TEXT_OUTCOMES: dict[str, str] = {
    "empty": 'trains it as an empty turn (content or value or "")',
    "template": "hands it to the chat template as it is, which renders it: trains on what the template writes for it",
    "fallback": (
        "the chat template raises TypeError or ValueError on it: SpecForge renders the row without the template "
        "(its registered template's headers, the value as Python text) and trains on that"
    ),
    "fail": "stops on it: its preprocessing raises, and the run fails",
}
"""What SpecForge 0.2.0 does with a message whose content is not text (``conversations.NonText``), by its code:
data/parse.py ``Parser._normalize_message`` turns a falsy value into "" and passes any other on;
``GeneralParser.parse`` (also the thinking parser's) renders with the target's chat template and, on
``(ValueError, TypeError)``, builds the text from its registered template's headers with f-strings, joining a system
message's content as it is."""


def _has_any(text: str, marks: Sequence[str]) -> bool:
    for mark in marks:
        if mark in text:
            return True
    return False


def _line_start(text: str, at: int) -> int:
    """Where the indentation before ``at`` begins (a line's start when only spaces and tabs stand before ``at``)."""
    while at > 0 and text[at - 1] in " \t":
        at -= 1
    return at


def _code_statement(text: str) -> bool:
    """Whether a code word of ``_LINE_CODE`` starts a line, or one of ``_WORD_CODE`` starts a word, with its syntax."""
    for word, pattern in _LINE_CODE.items():
        at = text.find(word)
        while at != -1:
            start = _line_start(text, at)
            if word == "def" and start > 0 and text[start - 1] != "\n" and text[start - 5 : start] == "async":
                start = _line_start(text, start - 5)  # async def name(
            if (start == 0 or text[start - 1] == "\n") and pattern.match(text, at):
                return True
            at = text.find(word, at + 1)
    for word, pattern in _WORD_CODE.items():
        at = text.find(word)
        while at != -1:
            if (at == 0 or not (text[at - 1].isalnum() or text[at - 1] in "_$")) and pattern.match(text, at):
                return True
            at = text.find(word, at + 1)
    return False


def _equation(text: str) -> bool:
    """Whether an "=" stands in an equation: a digit or a lone letter before it and a number after it (3x = 9,
    x = -3; not a link's ?q=3 or a setting's timeout = 30), or an operation or f(x) before it (3 + 4 =, a + b =,
    f(x) =)."""
    at = text.find("=")
    while at != -1:
        j = at - 1
        while j >= 0 and text[j] in " \t":
            j -= 1
        if j >= 0:
            c = text[j]  # a digit, a lone letter (x, 3x; not a word's or a link's ?q) or f(x)'s bracket
            lone = c.isascii() and c.islower() and (j == 0 or not (text[j - 1].isalpha() or text[j - 1] in "_?&./=-"))
            if (c.isdigit() or lone) and _EQ_RIGHT.match(text, at + 1):
                return True
            if (c.isdigit() or lone or c == ")") and _EQ_LEFT.search(text, max(0, j - 23), j + 1):
                return True
        at = text.find("=", at + 1)
    return False


def _math_evidence(text: str) -> bool:
    """Whether ``text`` holds math: LaTeX, a $ span with math inside, an equation, a power or a GSM8K answer line.

    Why not the words ("equation", "probability", "theorem", ...): prose uses them, as it uses "function". As for
    code, each sign (a backslash, "$", "=", "^", "####") is found with ``str.find`` and its pattern matched only
    there: most prose has none, and a row full of them costs a match per sign, not a regex over the whole text."""
    at = text.find("\\")
    while at != -1:
        if _LATEX.match(text, at):
            return True
        at = text.find("\\", at + 1)
    at = text.find("$")
    while at != -1:
        display = text.startswith("$$", at)
        m = (_DISPLAY if display else _INLINE).match(text, at)
        inner = m.group(1) if m else ""
        if inner and (display or not inner[-1].isspace()) and _MATH_INSIDE.search(inner):
            return True
        at = text.find("$", at + 1)
    if _equation(text):
        return True
    at = text.find("^")
    while at != -1:
        if at > 0 and (text[at - 1].isascii() and text[at - 1].isalnum() or text[at - 1] in ")}"):
            if _POWER.match(text, at + 1):
                return True
        at = text.find("^", at + 1)
    at = text.find("####")
    while at != -1:
        if (at == 0 or text[at - 1] == "\n") and _GSM8K.match(text, at):
            return True
        at = text.find("####", at + 1)
    return _has_any(text, _MATH_SIGNS)


def domain_of(text: str) -> Domain:
    """A cheap single label, code > math > CJK > other, from the first 1,500 characters.

    Code needs code evidence (``_CODE_MARKS``, ``_code_statement``) and math math evidence (``_math_evidence``),
    not a word that prose uses too.
    Literal searches (``str`` ``in``, a C pass each: faster than one regex alternation over the text), a code
    word's syntax and a math sign's pattern matched only where the word or sign occurs: this runs on every row of
    millions.
    """
    head = text[:1500]
    if _has_any(head, _CODE_MARKS) or _code_statement(head):
        return "code"
    if _math_evidence(head):
        return "math"
    if not head.isascii():
        cjk = len(_CJK.findall(head))
        if cjk and cjk * 10 >= len(head) - head.count(" "):  # >= 10% of non-space characters
            return "cjk"
    return "other"


def domain_mix(
    guessed: Counter[str], stated: Counter[str], untracked: int = 0, fields: Counter[str] | None = None
) -> tuple[dict[str, int], str, str]:
    """(samples per domain, where the labels come from, the sentence that says so) for the report.

    Where they come from is "guessed" (no row states a domain: ``domain_of``'s labels, all four shown), "stated"
    (every row does: its labels) or "mixed" (both, counted together). Stated labels are capped at
    ``DOMAIN_LABELS`` rows, the most common first; the rest, and labels past ``DOMAIN_TRACKED``, are one
    "other (N labels)" row, so a file with a new label per row cannot blow up the table."""
    n_stated = sum(stated.values()) + untracked
    n_guessed = sum(guessed.values())
    markers = "code, math and CJK markers"
    if n_stated == 0:
        return (
            dict(guessed),
            "guessed",
            f"domain mix guessed from the text ({markers}): no row states its domain in a "
            f"{', '.join(conv_mod.DOMAIN_FIELDS[:-1])} or {conv_mod.DOMAIN_FIELDS[-1]} field",
        )
    combined = Counter(stated)
    combined.update({k: v for k, v in guessed.items() if v})
    ranked = sorted(combined.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = dict(ranked[:DOMAIN_LABELS])
    rest = ranked[DOMAIN_LABELS:]
    if rest or untracked:
        label = f"other ({len(rest) + bool(untracked):,}{'+' if untracked else ''} labels)"
        shown[label] = shown.get(label, 0) + sum(v for _k, v in rest) + untracked
    used = [f for f in conv_mod.DOMAIN_FIELDS if fields and fields.get(f)] or ["domain"]
    named = " / ".join(used) + (" field" if len(used) == 1 else " fields")
    if n_guessed == 0:
        return shown, "stated", f"domain mix as the rows state it (their {named}), not guessed from the text"
    return (
        shown,
        "mixed",
        f"domain mix partly stated, partly guessed: {n_stated:,} of {n_stated + n_guessed:,} rows state their "
        f"domain (their {named}); "
        f"the other {n_guessed:,} are guessed from the text ({markers})",
    )


# ---------------------------------------------------------------------------------------------
# The scan


def _perms(num_perm: int = 64) -> tuple[Any, Any]:
    """The MinHash permutations (seeded: every process, and every Ray worker, draws the same ones)."""
    import numpy as np

    gen = np.random.RandomState(1)
    a = gen.randint(1, 1 << 62, size=num_perm, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    b = gen.randint(0, 1 << 62, size=num_perm, dtype=np.uint64)
    return a, b


class Tally:
    """Running totals of a scan, or of one block of it: ``merge`` adds blocks exactly.

    One process keeps one Tally (written by the reader thread for row checks and by the main
    thread for tokens); a Ray worker keeps one per block and the driver merges them. Counts, sums,
    the length Counter (so the percentiles) and the duplicate hashes merge exactly; the
    near-duplicate reservoir is a uniform sample of each block, merged by sampling without
    replacement in proportion to the rows each block saw (exact while the rows fit in the cap).
    """

    def __init__(self, near_dup_cap: int, seed: int) -> None:
        self.rows_read = 0
        self.samples = 0
        self.turns = 0
        self.empty = 0
        self.malformed = 0
        self.invalid_json = 0  # malformed rows that are not JSON at all: datasets' json loader stops on one
        self.malformed_examples: list[dict[str, Any]] = []
        self.anomalies: Counter[str] = Counter()
        self.other_layouts: Counter[str] = Counter()  # set-aside rows that are another supported layout
        self.anomaly_rows = 0
        self.anomaly_examples: list[dict[str, Any]] = []
        self.empty_turn_rows = 0  # samples with an empty user or assistant turn (conversations.empty_turns)
        self.empty_turn_roles: Counter[str] = Counter()  # rows by the role of their empty turn
        self.empty_turn_examples: list[dict[str, Any]] = []
        self.hashes = array("Q")
        self.spaced_hashes = array("Q")  # the same rows with whitespace collapsed (``collapse``), parallel
        self.hash_lines = array("q")  # row location codes, parallel to hashes (for duplicate examples)
        self.non_text_rows = 0  # rows with a kept message whose content is not text (conversations.NonText)
        self.non_text_outcomes: Counter[str] = Counter()  # those rows by what SpecForge does (NON_TEXT_OUTCOMES)
        self.non_text_examples: list[dict[str, Any]] = []
        self.regenerated = 0
        self.status: Counter[str] = Counter()
        self.domains: Counter[str] = Counter({d: 0 for d in DOMAINS})  # guessed from the text (``domain_of``)
        self.stated: Counter[str] = Counter()  # stated by the rows (conversations.stated_domain)
        self.stated_fields: Counter[str] = Counter()  # the fields that stated them
        self.stated_untracked = 0  # rows whose stated label came after DOMAIN_TRACKED others
        self.reservoir: list[tuple[Any, int, Any]] = []  # (line, exact hash, MinHash signature)
        self.near_cap = near_dup_cap
        self.valid_seen = 0
        self.rng = random.Random(seed)
        self.file_errors: list[dict[str, str]] = []  # Ray workers: a file that could not be read
        # token side
        self.tokens = 0
        self.assistant = 0
        self.lengths: Counter[int] = Counter()
        self.over = 0
        self.zero_sup = 0
        self.with_offsets = 0
        self.reasoning_rows = 0  # rows whose reasoning_content reaches the chat template
        self.rewritten_rows = 0  # counted on the whole render, spans by header ... end of turn (Prepared.rewritten)
        self.reasoning_dropped_rows = 0  # of those, rows whose template left a turn's reasoning_content out
        self.per_row: list[tuple[int, int, int]] | None = None  # estimate mode: (tokens, assistant, over)
        # one entry per counted row: its whitespace-collapsed duplicate hash, location, tokens and whether it has a
        # supervised token (24+1 bytes): the rows a trainer trains on and the unique usable rows (``usable_volumes``)
        self.row_keys = array("Q")
        self.row_lines = array("q")  # row location codes: the first copy of each is the one kept
        self.row_tokens = array("q")
        self.row_usable = array("b")
        self._perm: tuple[Any, Any] | None = None

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_perm"] = None  # drawn again where it is needed
        return state

    def malformed_row(self, line: Any, reason: str, raw: Any) -> None:
        self.malformed += 1
        if len(self.malformed_examples) < _EXAMPLES:
            snippet = (
                raw.decode("utf-8", "replace")
                if isinstance(raw, bytes)
                else (raw if isinstance(raw, str) else json.dumps(raw, default=str)[:400])
            )
            self.malformed_examples.append({"line": line, "reason": reason, "row": snippet.strip()[:200]})

    def admit(
        self, line: Any, raw: Any, fmt: str, load: Callable[[Any], Any], template: ChatTemplate
    ) -> tuple[conv_mod.Conversation, Sequence[tuple[str, str]], list[str], ToolContext | None] | None:
        """Parse, normalise and check one row: (conversation, turns to render, anomalies, the tool context
        ``template`` can render), or None if unusable."""
        self.rows_read += 1
        try:
            row = _parse(raw, load)
        except ValueError as exc:
            self.malformed_row(line, f"invalid JSON: {exc}", raw)
            self.invalid_json += 1
            return None
        try:
            conv = conv_mod.normalize(row, fmt)
        except conv_mod.RowError as exc:
            # a folder mixing layouts (ShareGPT files beside OpenAI ones): the trainer, given one format, cannot
            # read these rows either, so they stay set aside; the report says which layout they are in
            other = conv_mod.detect_format([row])
            if other is not None and other != fmt:
                self.other_layouts[other] += 1
            self.malformed_row(line, str(exc), raw)
            return None
        if conv_mod.is_empty(conv):
            self.empty += 1
            if len(self.malformed_examples) < _EXAMPLES:
                self.malformed_examples.append({"line": line, "reason": "empty conversation", "row": ""})
            return None
        if conv.pretemplated:
            return conv, conv.turns, list(conv.anomalies), None
        conv_mod.keep_developer(conv, template)
        positions, anomalies = conv_mod.trainable_positions(conv.turns)
        conv.empty_turns = conv_mod.empty_turns(conv, positions)
        conv.non_text_kept = conv_mod.kept_non_text(conv, positions)
        kept = [conv.turns[i] for i in positions]
        anomalies = conv.anomalies + anomalies
        context, left_out = conv_mod.tool_context(conv, positions, template)
        if left_out:
            anomalies.append("tools_not_counted")
        if conv_mod.reasoning_left_out(conv, positions, template):
            anomalies.append("reasoning_not_counted")
        return conv, kept, anomalies, context

    def keep(
        self,
        line: Any,
        conv: conv_mod.Conversation,
        anomalies: list[str],
        context: ToolContext | None = None,
        prepared: Prepared | None = None,
    ) -> None:
        """Row-level totals of a row that rendered: samples, anomalies, duplicates, domains, the near-dup sample."""
        self.samples += 1
        if context is not None and any(conv_mod.REASONING_FIELD in f for f in context.fields):
            self.reasoning_rows += 1
        if prepared is not None and prepared.rewritten:
            self.rewritten_rows += 1
            if context is not None:
                text = prepared.rendered
                thoughts = (str(f.get(conv_mod.REASONING_FIELD) or "").strip() for f in context.fields)
                if any(t and t not in text for t in thoughts):
                    self.reasoning_dropped_rows += 1
        self.turns += len(conv.turns)
        if conv.empty_turns:
            self.empty_turn_rows += 1
            self.empty_turn_roles.update({role for _n, role in conv.empty_turns})
            if len(self.empty_turn_examples) < _EXAMPLES:
                self.empty_turn_examples.append(
                    {
                        "line": line,
                        "empty turns": ", ".join(f"message {n} ({role})" for n, role in conv.empty_turns),
                        "roles": conv_mod.example_roles(conv),
                    }
                )
        if anomalies:
            self.anomaly_rows += 1
            self.anomalies.update(set(anomalies))
            if len(self.anomaly_examples) < _EXAMPLES:
                self.anomaly_examples.append(
                    {"line": line, "anomalies": sorted(set(anomalies)), "roles": conv_mod.example_roles(conv)}
                )
        canon = conv_mod.joined_text(conv.turns)
        extra_json = ""
        if conv.tools or conv.fields:  # rows differing only in a call's arguments or a schema are not duplicates
            extra = [conv.tools, sorted(conv.fields.items())]
            extra_json = json.dumps(extra, sort_keys=True, default=str, ensure_ascii=False)
        if extra_json:
            canon += " \x1e " + extra_json
        data = (canon + _END).encode("utf-8", "surrogatepass")
        h = int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")
        spaced = int.from_bytes(hashlib.blake2b(collapse(data), digest_size=8).digest(), "little")
        self.hashes.append(h)
        self.spaced_hashes.append(spaced)
        self.hash_lines.append(line)
        if prepared is not None:
            prepared.key = spaced  # the unique usable rows keep one copy of rows equal once whitespace is collapsed
            prepared.line = line
        content = "\n".join(c for _r, c in conv.turns)
        if conv.domain is not None:  # the row says what it is: its label, not a guess from its text
            self.stated_fields[conv.domain_field or "domain"] += 1
            if conv.domain in self.stated or len(self.stated) < DOMAIN_TRACKED:
                self.stated[conv.domain] += 1
            else:
                self.stated_untracked += 1
        else:
            self.domains[domain_of(content)] += 1
        if conv.regenerated:
            self.regenerated += 1
        if conv.status:
            self.status[conv.status] += 1
        # Near-duplicate reservoir (Algorithm R over valid rows); the signature is taken on entry.
        self.valid_seen += 1
        if len(self.reservoir) < self.near_cap:
            self.reservoir.append((line, h, self._sign(content)))
        else:
            j = self.rng.randrange(self.valid_seen)
            if j < self.near_cap:
                self.reservoir[j] = (line, h, self._sign(content))

    def check(
        self, line: Any, raw: Any, fmt: str, bundle: TokenizerBundle, load: Callable[[Any], Any]
    ) -> Prepared | None:
        """Parse, normalise, check and render one row; its Prepared form to count, or None if unusable."""
        admitted = self.admit(line, raw, fmt, load, bundle.template)
        if admitted is None:
            return None
        conv, kept, anomalies, context = admitted
        try:
            prepared = prepare(bundle, conv, kept, context)
        except limits.LimitError:
            raise  # a template over its time/size budget fails every row alike: stop with the cap's message
        except DataError as exc:
            self.malformed_row(line, str(exc), raw)
            return None
        if conv.non_text_kept:
            probe = non_text_probe(conv, kept, context)
            (error,) = render_errors(bundle.template, [probe]) if probe is not None else (None,)
            if not self.non_text(line, raw, conv, kept, error):
                return None
        self.keep(line, conv, anomalies, context, prepared)
        return prepared

    def non_text(
        self, line: Any, raw: Any, conv: conv_mod.Conversation, kept: Sequence[tuple[str, str]], error: str | None
    ) -> bool:
        """Count a row with a non-text content (``non_text_outcome``); False if SpecForge stops on it: the row is then
        set aside (malformed), not a sample."""
        outcome, stop = non_text_outcome(conv.non_text_kept, kept, error)
        values = "; ".join(v.label() for _k, v in conv.non_text_kept)
        self.non_text_rows += 1
        self.non_text_outcomes[outcome] += 1
        if len(self.non_text_examples) < _EXAMPLES:
            self.non_text_examples.append({"line": line, "values": values, "SpecForge": NON_TEXT_OUTCOMES[outcome]})
        if stop is not None:
            self.malformed_row(line, f"{values}: {stop}", raw)
            return False
        return True

    def _sign(self, content: str) -> Any:
        if self._perm is None:
            self._perm = _perms()
        return _signature(content[:_NEAR_DUP_CHARS], *self._perm).astype("uint32")  # top 32 bits only

    def count(self, items: Sequence[Prepared], counts: Sequence[tuple[int, int]], max_len: int) -> None:
        """Add the token counts of rows that ``check`` passed."""
        lengths = self.lengths
        for prepared, (n_tok, n_sup) in zip(items, counts, strict=False):
            self.tokens += n_tok
            self.assistant += n_sup
            lengths[n_tok] += 1
            over = n_tok > max_len
            if over:
                self.over += 1
            if n_sup == 0:
                self.zero_sup += 1
            if prepared.segments is None:
                self.with_offsets += 1
            if self.per_row is not None:
                self.per_row.append((n_tok, n_sup, int(over)))
            if prepared.key is not None:
                self.row_keys.append(prepared.key)
                self.row_lines.append(prepared.line)
                self.row_tokens.append(min(n_tok, max_len))  # a trainer truncates the rest (MAX_LENGTH_NOTE)
                self.row_usable.append(1 if n_sup else 0)

    def merge(self, other: Tally) -> None:
        """Add another block's totals (blocks may arrive in any order; examples keep the first rows)."""
        for name in (
            "rows_read",
            "samples",
            "turns",
            "empty",
            "malformed",
            "invalid_json",
            "anomaly_rows",
            "empty_turn_rows",
            "non_text_rows",
            "regenerated",
            "tokens",
            "assistant",
            "over",
            "zero_sup",
            "with_offsets",
            "reasoning_rows",
            "rewritten_rows",
            "reasoning_dropped_rows",
            "stated_untracked",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in (
            "anomalies",
            "empty_turn_roles",
            "non_text_outcomes",
            "other_layouts",
            "status",
            "domains",
            "lengths",
            "stated",
            "stated_fields",
        ):
            getattr(self, name).update(getattr(other, name))
        if len(self.stated) > DOMAIN_TRACKED:  # blocks with many labels each: the rarest become untracked rows
            kept = dict(self.stated.most_common(DOMAIN_TRACKED))
            self.stated_untracked += sum(self.stated.values()) - sum(kept.values())
            self.stated = Counter(kept)
        key = _line_key
        self.malformed_examples = sorted(self.malformed_examples + other.malformed_examples, key=key)[:_EXAMPLES]
        self.anomaly_examples = sorted(self.anomaly_examples + other.anomaly_examples, key=key)[:_EXAMPLES]
        self.empty_turn_examples = sorted(self.empty_turn_examples + other.empty_turn_examples, key=key)[:_EXAMPLES]
        self.non_text_examples = sorted(self.non_text_examples + other.non_text_examples, key=key)[:_EXAMPLES]
        self.hashes.extend(other.hashes)
        self.spaced_hashes.extend(other.spaced_hashes)
        self.hash_lines.extend(other.hash_lines)
        self.row_keys.extend(other.row_keys)
        self.row_lines.extend(other.row_lines)
        self.row_tokens.extend(other.row_tokens)
        self.row_usable.extend(other.row_usable)
        self.file_errors.extend(other.file_errors)
        self._merge_reservoir(other)
        self.valid_seen += other.valid_seen

    def _merge_reservoir(self, other: Tally) -> None:
        both = self.reservoir + other.reservoir
        if len(both) <= self.near_cap:  # both blocks kept every row: the union is every row
            self.reservoir = both
            return
        mine, theirs = list(self.reservoir), list(other.reservoir)
        self.rng.shuffle(mine)
        self.rng.shuffle(theirs)
        left_mine, left_theirs = self.valid_seen, other.valid_seen
        out: list[tuple[Any, int, Any]] = []
        while len(out) < self.near_cap and (mine or theirs):
            if mine and (not theirs or self.rng.random() * (left_mine + left_theirs) < left_mine):
                out.append(mine.pop())
                left_mine -= 1
            else:
                out.append(theirs.pop())
                left_theirs -= 1
        self.reservoir = out


_END = " \x1d"
"""Ends every row's canonical text: a content's trailing whitespace then collapses into the space before it."""
_WHITESPACE = bytes.maketrans(b"\t\n\r\x0b\x0c", b"     ")


def collapse(data: bytes) -> bytes:
    """``data`` (a row's UTF-8 ``conversations.joined_text`` + ``_END``) with every run of ASCII whitespace (space,
    tab, newline, CR, FF, VT) one space: with joined_text's spaced separators and the end mark, each content
    collapsed and stripped. Rows equal so are duplicates once whitespace is ignored.

    Whole-buffer C passes (one translate, then one replace per halving of the longest run, the last finding none),
    as it runs on every row of millions: on bench_audit's rows (2.5 KB) about 10 us a row on the 2-core development
    box, against 14 us for ``b" ".join(data.split())``, 46 us for a regex and 27 us a row for a numpy pass over a
    batch (which also held the reader up on a 16-core machine)."""
    out = data.translate(_WHITESPACE)
    size = -1
    while len(out) != size:
        size = len(out)
        out = out.replace(b"  ", b" ")
    return out


def non_text_probe(
    conv: conv_mod.Conversation, kept: Sequence[tuple[str, str]], context: ToolContext | None
) -> tuple[list[dict[str, Any]], list[Any] | None] | None:
    """The kept messages as SpecForge hands them to the chat template, each non-text content as the row holds it
    (a falsy one as ""), with the row's tools; None when no value reaches the template (all falsy)."""
    if not any(v.reaches_template for _k, v in conv.non_text_kept):
        return None
    messages = as_messages(kept, context)
    for k, value in conv.non_text_kept:
        if value.reaches_template:
            messages[k] = {**messages[k], "content": value.value}
    return messages, context.tools if context is not None else None


def non_text_outcome(
    values: Sequence[tuple[int, conv_mod.NonText]], kept: Sequence[tuple[str, str]], error: str | None
) -> tuple[str, str | None]:
    """(what SpecForge 0.2.0 does with a row whose kept messages hold ``values``: a key of ``NON_TEXT_OUTCOMES``,
    why it stops (None unless "fail")); ``error`` is what the chat template said rendering them as they are
    (``non_text_probe``; None: it rendered, or nothing reached it)."""
    if not any(v.reaches_template for _k, v in values):
        return "empty", None
    if error is None:
        return "template", None
    if not falls_back(error):
        return (
            "fail",
            f"{error}; SpecForge 0.2.0 catches only TypeError and ValueError there, so its preprocessing stops",
        )
    if kept and kept[0][0] == "system" and any(k == 0 and v.reaches_template for k, v in values):
        return "fail", (
            f"{error}; SpecForge 0.2.0 then renders without the template and joins the system prompt as it is, "
            "which raises TypeError: its preprocessing stops"
        )
    return "fallback", None


def _line_key(example: dict[str, Any]) -> Any:
    line = example.get("line")
    return (0, line) if isinstance(line, int) else (1, str(line))


def _parse(raw: Any, load: Callable[[Any], Any] | None = None) -> Any:
    if isinstance(raw, (bytes, str)):
        return (load or limits.json_loader("a row"))(raw)
    return raw


def detect(rows: Iterator[tuple[int, Any]], fmt: str) -> tuple[str, list[tuple[int, Any]]]:
    """The data format (``fmt`` unless "auto": read from the first rows) and the rows read to find it."""
    pending: list[tuple[int, Any]] = []
    if fmt != "auto":
        return fmt, pending
    load = limits.json_loader("a row")
    parsed_sample: list[Any] = []
    for line, raw in rows:
        pending.append((line, raw))
        try:
            parsed_sample.append(_parse(raw, load))
        except ValueError:
            continue
        if len(parsed_sample) >= _DETECT_ROWS:
            break
    detected = conv_mod.detect_format(parsed_sample)
    if detected is None:
        if not pending:
            raise DataError("the dataset has no rows")
        if not parsed_sample:
            raise DataError("no row parses as JSON: is this a JSON Lines / JSON / Parquet dataset?")
        keys = sorted({k for r in parsed_sample if isinstance(r, dict) for k in r})[:12]
        raise DataError(
            f"unknown data format (fields seen: {', '.join(keys) or 'none'}); expected "
            f"conversations, messages, text or prompt/response; pick the format (`--format` on the CLI, "
            "'Format' on the page)"
        )
    return detected, pending


_RENDER_ROWS = 256
"""Rows rendered per call: an untrusted template renders a whole batch in one worker round trip."""


def _reader(
    source_rows: Iterator[tuple[int, Any]],
    fmt: str,
    bundle: TokenizerBundle,
    stats: Tally,
    out: queue.Queue[Any],
    stop: threading.Event,
    keep_running: Callable[[], bool] | None = None,
) -> None:
    """Check rows (``Tally.admit``), render them 256 at a time, keep their totals (``Tally.keep``); hand ~2K-text
    batches to the tokenising thread."""
    try:
        load = limits.json_loader("a row")  # the depth cap read once, not per row
        it = iter(source_rows)
        fmt, pending = detect(it, fmt)
        out.put(("format", fmt))
        batch: list[Prepared] = []
        n_texts = 0
        todo: list[tuple[int, Any, conv_mod.Conversation, list[str], Any, ToolContext | None]] = []

        def cancel() -> bool:
            return stop.is_set() or (keep_running is not None and not keep_running())

        def flush() -> None:
            """Render the queued rows in one call (one worker round trip for an untrusted template)."""
            nonlocal batch, n_texts
            done = prepare_many(bundle, [(conv, kept, ctx) for _l, _r, conv, _a, kept, ctx in todo], cancel=cancel)
            probes = {
                i: probe
                for i, (_l, _r, conv, _a, kept, ctx) in enumerate(todo)
                if conv.non_text_kept and (probe := non_text_probe(conv, kept, ctx)) is not None
            }
            errors = dict(zip(probes, render_errors(bundle.template, list(probes.values())), strict=True))
            for i, ((line, raw, conv, anomalies, kept, ctx), prepared) in enumerate(zip(todo, done, strict=True)):
                if isinstance(prepared, DataError):
                    stats.malformed_row(line, str(prepared), raw)
                    continue
                if conv.non_text_kept and not stats.non_text(line, raw, conv, kept, errors.get(i)):
                    continue
                stats.keep(line, conv, anomalies, ctx, prepared)
                batch.append(prepared)
                n_texts += len(prepared.segments) if prepared.segments is not None else 4
                if n_texts >= CHUNK_TEXTS:
                    out.put(("batch", batch))
                    batch, n_texts = [], 0
            todo.clear()

        for line, raw in itertools.chain(pending, it):
            if stop.is_set():
                return
            admitted = stats.admit(line, raw, fmt, load, bundle.template)
            if admitted is None:
                continue
            conv, kept, anomalies, context = admitted
            todo.append((line, raw, conv, anomalies, kept, context))
            if len(todo) >= _RENDER_ROWS:
                flush()  # a cap refusal (LimitError) fails every row alike: it stops the audit with its message
        flush()
        if batch:
            out.put(("batch", batch))
        out.put(("done", None))
    except BaseException as exc:  # noqa: BLE001 - re-raised in the main thread
        out.put(("error", exc))


def _signature(text: str, a: Any, b: Any) -> Any:
    """MinHash of the word 3-grams of ``text``, vectorised with numpy (datasketch's own hashing is
    per-shingle Python and ~10x slower). CRC32 word hashes keep results identical from run to run."""
    import numpy as np

    words = text.lower().split()
    if not words:
        words = [""]
    wh = np.fromiter(
        map(zlib.crc32, map(str.encode, words, repeat("utf-8"), repeat("surrogatepass"))),
        dtype=np.uint64,
        count=len(words),
    )
    if len(wh) >= 3:
        sh = wh[:-2] * np.uint64(0x9E3779B97F4A7C15) + wh[1:-1] * np.uint64(0xC2B2AE3D27D4EB4F) + wh[2:]
    else:
        sh = wh
    # multiply-shift hashing (a*x + b mod 2^64, top 32 bits): a universal family, no slow modulo
    return ((np.unique(sh)[:, None] * a + b) >> np.uint64(32)).min(axis=0)


def _near_duplicates(stats: Tally, threshold: float = 0.8, num_perm: int = 64) -> tuple[int, list[dict[str, Any]]]:
    """Rows in the reservoir whose word-3-gram Jaccard with an earlier row is >= threshold (MinHash LSH)."""
    import numpy as np
    from datasketch import LeanMinHash, MinHashLSH

    if len(stats.reservoir) < 2:
        return 0, []
    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    found = 0
    examples: list[dict[str, Any]] = []
    items = sorted(stats.reservoir, key=lambda r: r[0])
    meta: dict[int, tuple[Any, int]] = {}
    for key, (line, h, sig) in enumerate(items):
        m = LeanMinHash(seed=1, hashvalues=np.asarray(sig, dtype=np.uint64), scheme="legacy")
        hits = [k for k in lsh.query(m) if meta[k][1] != h]
        if hits:
            found += 1
            if len(examples) < _EXAMPLES:
                examples.append({"line": line, "similar_to": meta[min(hits)][0]})
        lsh.insert(key, m)
        meta[key] = (line, h)
    return found, examples


def _duplicates(stats: Tally) -> tuple[int, list[dict[str, Any]], int, list[dict[str, Any]]]:
    """(exact duplicates: every row after the first, in row order, whose canonical hash repeats; the first of them;
    the same count once whitespace is collapsed (``collapse``: the exact ones included); the first rows that
    repeat an earlier one only so, each with the first row it repeats).

    One argsort by row location and one ``np.unique`` per hash array: blocks merged in any order count alike."""
    import numpy as np

    if not len(stats.hashes):
        return 0, [], 0, []
    lines_arr = np.frombuffer(stats.hash_lines, dtype=np.int64)
    order = np.argsort(lines_arr, kind="stable")  # merged blocks arrive in any order; one process: already sorted
    lines = lines_arr[order]

    def repeats(hashes: array) -> tuple[Any, Any]:
        """(whether each row repeats an earlier row's hash, the location of the first row with its hash)."""
        arr = np.frombuffer(hashes, dtype=np.uint64)[order]
        _uniq, first, inverse = np.unique(arr, return_index=True, return_inverse=True)
        again = np.ones(len(arr), dtype=bool)
        again[first] = False
        return again, lines[first][inverse.reshape(-1)]

    exact, exact_first = repeats(stats.hashes)
    examples = [
        {"line": int(lines[i]), "same_as": int(exact_first[i])} for i in np.flatnonzero(exact)[:_EXAMPLES].tolist()
    ]
    spaced, spaced_first = repeats(stats.spaced_hashes)
    only = np.flatnonzero(spaced & ~exact)[:_EXAMPLES].tolist()
    spaced_examples = [{"line": int(lines[i]), "same_as": int(spaced_first[i])} for i in only]
    return int(exact.sum()), examples, int(spaced.sum()), spaced_examples


def usable_volumes(stats: Tally) -> tuple[int, int, int, int]:
    """(samples, tokens) of the rows a trainer trains on, then of the unique usable rows.

    SpecForge drops a row below ``min_loss_tokens`` supervised tokens (default 1; specforge 0.2.0
    data/preprocessing.py, has_minimum_valid_tokens) and speculators one with none ("unsupervised",
    speculators 0.9.0 data_generation/preprocessing.py _append_row); neither drops a duplicate, trained once per
    copy. The unique usable rows keep one copy of each, the first by row location (duplicates exact or
    whitespace-only share their ``collapse`` hash): a row that differs from another only in whitespace adds nothing
    new to learn."""
    import numpy as np

    keys = np.frombuffer(stats.row_keys, dtype=np.uint64)
    toks = np.frombuffer(stats.row_tokens, dtype=np.int64)
    usable = np.frombuffer(stats.row_usable, dtype=np.int8).astype(bool)
    if not len(keys):
        return 0, 0, 0, 0
    order = np.argsort(np.frombuffer(stats.row_lines, dtype=np.int64)[usable], kind="stable")  # blocks: any order
    kept = toks[usable][order]
    _uniq, first = np.unique(keys[usable][order], return_index=True)
    return int(usable.sum()), int(kept.sum()), len(first), int(kept[first].sum())


def _estimate(values: Sequence[float], population: int, *, indicator: bool = False) -> dict[str, float]:
    """Population total from a simple random sample, with a 95% normal interval (with fpc).

    The values are counts (never negative): the total is at least what the sample holds, and for a 0/1
    ``indicator`` at most that plus every row not sampled. Walk AU's interval for rows over max_length, 3.7 to 11,
    began below the 5 the sample held."""
    n = len(values)
    if n == 0:
        return {"value": 0.0, "low": 0.0, "high": 0.0, "se": 0.0}
    seen = float(sum(values))
    mean = seen / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    fpc = max(0.0, (population - n) / (population - 1)) if population > 1 else 0.0
    se = population * math.sqrt(var / n * fpc)
    total = population * mean
    high = total + 1.96 * se
    if indicator:
        high = min(high, seen + max(0, population - n))
    return {"value": total, "low": max(total - 1.96 * se, seen), "high": high, "se": se}


def audit(
    source: str | Source,
    *,
    tokenizer: str | TokenizerBundle | None = None,
    max_length: int = DEFAULT_MAX_LENGTH,
    fmt: str = "auto",
    sample: int | None = None,
    seed: int = 0,
    config: str | None = None,
    split: str | None = None,
    progress: ProgressFn | None = None,
    near_dup_cap: int = 10_000,
    max_rows: int | None = None,
    keep_running: Callable[[], bool] | None = None,
) -> AuditResult:
    """Scan a dataset (or a random sample of ``sample`` rows) and report what training will see.

    ``keep_running`` (a page passes "its browser session is still there") turning false kills a chat
    template worker mid-render and ends the audit with RenderCancelled.
    """
    if max_length is None or int(max_length) < 1:
        raise InputError("max_length must be a positive number of tokens")
    if sample is not None and int(sample) < 1:
        raise InputError("--sample must be a positive number of rows")
    fmt = conv_mod.check_format(fmt or "auto")
    src = source if isinstance(source, Source) else open_source(str(source), config=config, split=split)
    bundle = tokenizer if isinstance(tokenizer, TokenizerBundle) else load_tokenizer(tokenizer)
    t0 = time.perf_counter()
    stats = Tally(near_dup_cap, seed)
    notes: list[str] = []
    population: int | None = None
    total_hint = src.total_rows
    if sample is not None:
        if src.kind == "hub" and src.sample_hub is not None:
            rows_iter: Iterator[tuple[int, Any]] = src.sample_hub(int(sample), seed)
            population = src.hub_rows
            if population is None:
                notes.append("the Hub does not state the split's row count, so totals are not extrapolated")
            else:
                notes.append("Hub sample drawn with a shuffle buffer (approximately random)")
        else:
            picked, population = reservoir(src.iterate(), int(sample), seed)
            rows_iter = iter(picked)
        stats.per_row = []
        total_hint = min(int(sample), population) if population is not None else int(sample)
    else:
        rows_iter = src.iterate()
    if max_rows is not None:
        rows_iter = itertools.islice(rows_iter, int(max_rows))
    q: queue.Queue[Any] = queue.Queue(maxsize=_QUEUE_BATCHES)
    stop = threading.Event()
    # the reader runs in this call's context: a session's Hub token (settings.session_token) reaches its reads
    reader = threading.Thread(
        target=contextvars.copy_context().run,
        args=(_reader, rows_iter, fmt, bundle, stats, q, stop, keep_running),
        name="audit-reader",
        daemon=True,
    )
    reader.start()
    detected = fmt
    max_len = int(max_length)
    last_report = [0.0]

    def absorb(items: list[Prepared], counts: list[tuple[int, int]]) -> None:
        stats.count(items, counts, max_len)
        now = time.perf_counter()
        if progress is not None and now - last_report[0] >= 0.25:
            last_report[0] = now
            _report(progress, stats.rows_read, now - t0, total_hint, src.fraction() if sample is None else None)

    # Two tokenising threads: while one does its Python bookkeeping the other keeps Rayon busy.
    pending: deque[tuple[list[Prepared], Future[list[tuple[int, int]]]]] = deque()
    pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="audit-tokenize")
    try:
        while True:
            kind, payload = q.get()
            if kind == "format":
                detected = payload
                continue
            if kind == "error":
                raise payload
            if kind == "done":
                break
            pending.append((payload, pool.submit(count_prepared, bundle, payload)))
            while len(pending) >= 2 or (pending and pending[0][1].done()):
                items, fut = pending.popleft()
                absorb(items, fut.result())
        while pending:
            items, fut = pending.popleft()
            absorb(items, fut.result())
    finally:
        stop.set()
        while reader.is_alive():
            try:
                q.get(timeout=0.05)
            except queue.Empty:
                pass
        reader.join()
        pool.shutdown(wait=True, cancel_futures=True)
    if progress is not None:
        progress(stats.rows_read, stats.rows_read / max(1e-9, time.perf_counter() - t0), 0.0)
    return finish(
        stats,
        src,
        bundle,
        detected,
        max_len,
        notes=notes,
        elapsed=time.perf_counter() - t0,
        sample=sample,
        population=population,
        seed=seed,
    )


def finish(
    stats: Tally,
    src: Source,
    bundle: TokenizerBundle,
    detected: str,
    max_len: int,
    *,
    notes: list[str],
    elapsed: float,
    sample: int | None = None,
    population: int | None = None,
    seed: int = 0,
) -> AuditResult:
    """The AuditResult of a finished (or merged) Tally; one process and the Ray path both end here."""
    if stats.file_errors and stats.rows_read == 0:
        first_error = stats.file_errors[0]
        raise DataError(f"no file of {src.name} could be read ({first_error['file']}: {first_error['error']})")
    if stats.rows_read == 0 and stats.samples == 0:
        raise DataError(f"{src.name} has no rows")
    if stats.samples == 0 and stats.rows_read > 0 and stats.malformed == stats.rows_read:
        first: dict[str, Any] = (
            stats.malformed_examples[0] if stats.malformed_examples else {"line": "?", "reason": "?"}
        )
        raise DataError(
            f"no row of {src.name} could be used as {detected} data (row {src.locate(first['line'])}: "
            f"{first['reason']}); check the file or pass the right --format"
        )
    dups, dup_examples, spaced_dups, spaced_examples = _duplicates(stats)
    near, near_examples = _near_duplicates(stats)
    if stats.valid_seen > stats.near_cap:
        notes.append(
            f"near duplicates checked on a random reservoir of {stats.near_cap:,} of "
            f"{stats.valid_seen:,} rows: a lower bound for the whole set"
        )
    if bundle.tokenizer is None:
        notes.append(
            "the tokenizer asked for could not be read: token counts are estimates (UTF-8 bytes / 4), not the "
            "target's tokens"
            if bundle.unread
            else "no tokenizer given: token counts are estimates (UTF-8 bytes / 4), not the target's tokens"
        )
    if bundle.template.is_fallback and detected != "text":
        notes.append("no chat template found: conversations rendered with a plain ChatML template")
    if bundle.shape is None:
        notes.append("the chat template's assistant framing could not be probed; spans found by prefix rendering")
    tool_rows = stats.anomalies.get("tools_not_counted", 0)
    if tool_rows:
        notes.append(
            f"{tool_rows:,} row(s) carry tool calls or tool schemas the chat template does not render (it never "
            "names tools / tool_calls, or a message uses the legacy function_call): their arguments and schemas "
            "are not in the token counts (undercounted)"
        )
    if stats.reasoning_rows:
        notes.append(
            f"{stats.reasoning_rows:,} row(s) have their reasoning_content rendered by the chat template and counted "
            "(supervised inside the assistant turn), as SpecForge's thinking templates (qwen3-thinking, "
            "kimi-k2-thinking, ...) train on it; its other templates drop the field, so with one of those the "
            "trained tokens are fewer"
        )
    if stats.rewritten_rows:
        dropped = stats.reasoning_dropped_rows
        notes.append(
            f"{stats.rewritten_rows:,} row(s) render differently once later turns are added (the chat template "
            "rewrites earlier turns: Qwen3's drops the reasoning of assistant turns before the last user message), so "
            "their assistant spans cannot be found by prefix; they are counted as SpecForge trains them: the whole "
            "conversation rendered once, each assistant span from its header to the end of its turn"
            + (
                f". In {dropped:,} of them earlier turns' reasoning_content is not in that text: the target never "
                "sees it in training, and it is not in the counts"
                if dropped
                else ""
            )
        )
    reasoning_rows = stats.anomalies.get("reasoning_not_counted", 0)
    if reasoning_rows:
        notes.append(
            f"{reasoning_rows:,} row(s) carry reasoning that is not in the token counts (undercounted), nor in "
            "what SpecForge trains on: the chat template never names reasoning_content (the fallback ChatML "
            "included; a gpt-oss template reads thinking, which transformers fills from reasoning_content only "
            "from 5.21, SpecForge 0.2.0 pins 5.8.1), or the reasoning is in a thinking / reasoning field, which "
            "SpecForge drops before the template; put it in reasoning_content and use a template that renders it"
        )
    if stats.invalid_json and src.kind != "hub":  # a local or remote file: what a trainer is given
        n, where = stats.invalid_json, " in the sample" if sample is not None else ""
        notes.append(
            f"{n:,} line{' is' if n == 1 else 's are'} not valid JSON{where}: "
            "the audit sets them aside, but SpecForge 0.2.0 reads a JSON Lines file with datasets' json loader "
            '(data/prompt_builder.py, load_dataset("json", data_files=path)), which stops on the first one '
            "(DatasetGenerationError), so training does not start until they are fixed or removed"
        )
    empty_note = ""
    if stats.empty_turn_rows:
        empty_note = empty_turn_note(stats.empty_turn_rows, stats.samples, stats.empty_turn_roles, sample is not None)
        notes.append(empty_note)
    non_text_note = ""
    if stats.non_text_rows:
        non_text_note = non_text_sentence(stats.non_text_rows, stats.non_text_outcomes)
        notes.append(non_text_note)
    for layout, n in sorted(stats.other_layouts.items()):
        notes.append(
            f"{n:,} of the malformed rows are {conv_mod.FORMAT_LABELS.get(layout, layout)} rows, not "
            f"{conv_mod.FORMAT_LABELS.get(detected, detected)}: the source mixes layouts, and a trainer given one "
            "format cannot read the others; convert them or audit those files on their own"
        )
    domains, domain_source, domain_note = domain_mix(
        stats.domains, stats.stated, stats.stated_untracked, stats.stated_fields
    )
    notes.append(domain_note)
    tokens, assistant, samples, over = stats.tokens, stats.assistant, stats.samples, stats.over
    trained, trained_tokens, unique, unique_tokens = usable_volumes(stats)
    unique_kept: tuple[int | None, int | None] = (unique, unique_tokens)
    estimate: dict[str, dict[str, float]] | None = None
    if sample is not None and population is not None and stats.per_row is not None:
        n = stats.rows_read
        rows = stats.per_row + [(0, 0, 0)] * max(0, n - len(stats.per_row))  # unusable rows count as zero
        estimate = {
            "tokens": _estimate([r[0] for r in rows], population),
            "assistant_tokens": _estimate([r[1] for r in rows], population),
            "samples": _estimate(
                [1.0] * len(stats.per_row) + [0.0] * (n - len(stats.per_row)), population, indicator=True
            ),
            "over_max_length": _estimate([r[2] for r in rows], population, indicator=True),
            "samples_trained_on": _estimate([float(r[1] > 0) for r in rows], population, indicator=True),
            "tokens_trained_on": _estimate([min(r[0], max_len) if r[1] > 0 else 0 for r in rows], population),
        }
        trained = round(estimate["samples_trained_on"]["value"])
        trained_tokens = round(estimate["tokens_trained_on"]["value"])
        unique_kept = (None, None)  # duplicates are counted in the sample only: no total of distinct rows
        tokens = round(estimate["tokens"]["value"])
        assistant = round(estimate["assistant_tokens"]["value"])
        samples = round(estimate["samples"]["value"])
        over = round(estimate["over_max_length"]["value"])
        notes.append(
            f"estimate from a random sample of {n:,} of {population:,} rows (seed {seed}); "
            f"duplicates, anomalies and malformed counts are for the sample only"
        )
    elif sample is not None:  # not extrapolated (no row count): a sample's duplicates give no count of unique rows
        unique_kept = (None, None)
    for examples in (
        stats.malformed_examples,
        stats.anomaly_examples,
        stats.empty_turn_examples,
        stats.non_text_examples,
        dup_examples,
        spaced_examples,
        near_examples,
    ):
        for ex in examples:
            for key in ("line", "same_as", "similar_to"):
                if key in ex:
                    ex[key] = src.locate(ex[key])
    label = conv_mod.FORMAT_LABELS.get(detected, detected)
    result = AuditResult(
        source=src.name,
        format=detected,
        format_label=label,
        tokenizer=bundle.name,
        tokenizer_unread=bundle.unread,
        token_count_method="tokenizer.json + chat template" if bundle.tokenizer is not None else FALLBACK_METHOD,
        template=bundle.template.name if detected != "text" else "none (pre-templated)",
        samples=samples,
        rows_read=stats.rows_read,
        turns=stats.turns,
        tokens=tokens,
        assistant_tokens=assistant,
        supervised_fraction=(stats.assistant / stats.tokens) if stats.tokens else 0.0,
        length=percentiles(stats.lengths),
        histogram=histogram(stats.lengths),
        max_length=max_len,
        over_max_length=over,
        over_max_length_share=(stats.over / stats.samples) if stats.samples else 0.0,
        over_max_length_note=MAX_LENGTH_NOTE,
        empty=stats.empty,
        malformed=stats.malformed,
        malformed_examples=stats.malformed_examples,
        anomalies=dict(stats.anomalies),
        anomaly_rows=stats.anomaly_rows,
        anomaly_examples=stats.anomaly_examples,
        empty_turn_rows=stats.empty_turn_rows,
        empty_turn_roles=dict(sorted(stats.empty_turn_roles.items())),
        empty_turn_examples=stats.empty_turn_examples,
        empty_turn_note=empty_note,
        duplicates=dups,
        duplicate_examples=dup_examples,
        whitespace_duplicates=spaced_dups,
        whitespace_duplicate_examples=spaced_examples,
        non_text_rows=stats.non_text_rows,
        non_text_outcomes=dict(sorted(stats.non_text_outcomes.items())),
        non_text_examples=stats.non_text_examples,
        non_text_note=non_text_note,
        near_duplicates=near,
        near_duplicates_checked=len(stats.reservoir),
        near_duplicate_examples=near_examples,
        regenerated=stats.regenerated,
        original=stats.samples - stats.regenerated,
        regeneration_status=dict(stats.status),
        domains=domains,
        domain_source=domain_source,
        domain_note=domain_note,
        zero_supervised=stats.zero_sup,
        trained_samples=trained,
        trained_tokens=trained_tokens,
        unique_samples=unique_kept[0],
        unique_tokens=unique_kept[1],
        rows_with_offsets=stats.with_offsets,
        estimated=estimate is not None,
        estimate=estimate,
        sample_rows=stats.rows_read if sample is not None and estimate is None else None,  # as ``mark_sample``
        population=population,
        hub_rows=src.hub_rows,
        hub_rows_note=src.hub_rows_note,
        elapsed_s=round(elapsed, 3),
        notes=notes,
        file_errors=sorted(stats.file_errors, key=lambda e: e["file"]),
    )
    if dup_note := result.duplicates_note():  # a sample's duplicates are not the split's (walk AG3)
        result.notes.append(dup_note)
    return result


def empty_turn_note(rows: int, samples: int, roles: Mapping[str, int], sampled: bool = False) -> str:
    """The sentence that says how many samples have an empty turn, which roles, and that they still count."""
    by_role = ", ".join(f"{roles[r]:,} with an empty {r} turn" for r in conv_mod.EMPTY_TURN_ROLES if roles.get(r))
    return (
        f"{rows:,} of {samples:,} samples{' in the sample' if sampled else ''} ({percent(rows / samples)}) have an "
        f"empty or whitespace-only user or assistant turn ({by_role}): they are counted as samples, as SpecForge "
        "and speculators train on them (neither checks for empty turns: an empty assistant turn supervises only "
        "its end-of-turn token, and the answer after an empty user turn is trained without a question); fix or "
        "drop them before training"
    )


def non_text_sentence(rows: int, outcomes: Mapping[str, int]) -> str:
    """The sentence that says how many rows hold a message whose content is not text and what SpecForge does."""
    said = {
        "empty": "{n:,} only hold falsy ones (0, false, [], {{}}), which it trains as empty turns",
        "template": "in {n:,} the chat template renders the value as it is, and that text trains",
        "fallback": (
            "in {n:,} the chat template raises TypeError or ValueError on it (as one that joins content with + "
            "does), and SpecForge renders the whole row without the template instead (its registered template's "
            "headers: no system header, no end of turn after user turns, a list as Python's ['a', 'b']) and trains "
            "on that"
        ),
        "fail": (
            "on {n:,} its preprocessing raises and the run stops (the template's error is not TypeError or "
            "ValueError, or the value is the system prompt): set aside here, not samples"
        ),
    }
    parts = [said[k].format(n=outcomes[k]) for k in ("fail", "fallback", "template", "empty") if outcomes.get(k)]
    return (
        f"{rows:,} row(s) have a message whose value or content is not text (a number, a list, true/false): "
        'SpecForge 0.2.0 does not check (data/parse.py: content or value or ""); '
        + "; ".join(parts)
        + ". The audit counts the text it reads from them (a number's digits, a list's text parts joined). Where "
        "no such value is in a JSONL file's first 10 MB, datasets 5.2's load_dataset (which SpecForge reads it "
        'with) turns later ones into their JSON text (12345 becomes "12345") before SpecForge sees them. '
        "Write them as text before training"
    )


def progress_text(rows: int, rate: float, eta: float | None) -> tuple[float, str]:
    """(fraction done, one line) for a progress callback's numbers, shared by the page and the CLI.

    The fraction follows from the same rate as the time left, so the two always agree; under two
    seconds left reads as such rather than "0 s left" while the bar is half full.
    """
    remaining = rate * eta if eta is not None else None
    frac = rows / (rows + remaining) if remaining is not None and rows + remaining > 0 else 0.0
    frac = min(1.0, max(0.0, frac))
    if eta is None or frac >= 1.0:
        left = ""
    elif eta < 2.0:
        left = " · under 2 s left"
    elif eta < 120:
        left = f" · about {eta:,.0f} s left"
    else:
        left = f" · about {eta / 60:,.0f} min left"
    return frac, f"{rows:,} rows · {rate:,.0f} rows/s{left}"


def _report(progress: ProgressFn, rows: int, elapsed: float, total: int | None, fraction: float | None) -> None:
    rate = rows / elapsed if elapsed > 0 else 0.0
    eta: float | None = None
    if total:
        eta = max(0.0, (total - rows) / rate) if rate > 0 else None
    elif fraction:
        eta = max(0.0, elapsed * (1.0 / fraction - 1.0))
    progress(rows, rate, eta)
