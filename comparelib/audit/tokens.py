"""Token counting with the target's tokenizer and chat template: the tokenizer bundle and per-row counts.

A row is rendered once with the chat template and cut at its assistant spans. Counting is
``Tokenizer.encode_batch_fast`` over those segments (no offsets, Rust uses all cores); where a cut
could change tokenisation (not after a newline or special token) the row is tokenised whole with
offsets instead. Both give the prefix-rule mask of ``templates.reference_spans`` (tests compare
them row by row). Without a tokenizer the count is a byte estimate (``FALLBACK_METHOD``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from comparelib import limits, paths, settings
from comparelib.audit import conversations as conv_mod
from comparelib.audit import templates
from comparelib.errors import ConfigError, DataError, HubError, InputError

FALLBACK_METHOD = "estimate without a tokenizer: ceil(UTF-8 bytes / 4) per conversation, ChatML framing"


def fallback_count(text: str) -> int:
    """Tokens without a tokenizer: a byte-level estimate (about 4 bytes per BPE token)."""
    return (len(text.encode("utf-8")) + 3) // 4


@dataclass
class TokenizerBundle:
    """The target's tokenizer and chat template, and whether segment counting is exact for it."""

    tokenizer: Any | None
    template: templates.ChatTemplate
    name: str | None
    segment_safe: bool = False
    _added: frozenset[str] = field(default_factory=frozenset, repr=False)  # added-token strings
    _lengths: tuple[int, ...] = field(default=(), repr=False)  # their distinct lengths
    _ends: frozenset[str] = field(default_factory=frozenset, repr=False)  # their last characters
    _starts: frozenset[str] = field(default_factory=frozenset, repr=False)  # their first characters
    shape: templates.TemplateShape | None = None
    # a tokenizer asked for that could not be read, so the estimate counts instead (``load_tokenizer_or_estimate``):
    # the sentence that says which, why, and how to count exactly
    unread: str | None = None

    @property
    def method(self) -> str:
        return "tokenizer" if self.tokenizer is not None else FALLBACK_METHOD


def _segment_safe(tokenizer: Any) -> tuple[bool, list[str]]:
    """Whether counting a text as pieces cut after a newline/special token equals counting it whole.

    True for byte-level BPE without normalizer or prefix space (GPT-2, Llama 3, Qwen): their
    pre-tokenizers never join a newline with the non-space character after it, and added tokens
    are split out first.
    """
    spec = json.loads(tokenizer.to_str())
    added = [t["content"] for t in spec.get("added_tokens") or [] if isinstance(t, dict) and t.get("content")]
    if any(t.get("lstrip") or t.get("rstrip") for t in spec.get("added_tokens") or [] if isinstance(t, dict)):
        return False, added
    if spec.get("normalizer") is not None:
        return False, added

    def ok(pre: Any) -> bool:
        if pre is None:
            return False
        kind = pre.get("type")
        if kind == "Sequence":
            return all(ok(p) for p in pre.get("pretokenizers") or [])
        if kind == "ByteLevel":
            return not pre.get("add_prefix_space", False)
        if kind == "Split":  # Llama 3 / Qwen regexes; other behaviours may glue pieces together
            return pre.get("behavior") == "Isolated"
        if kind in ("Digits", "Punctuation"):
            return True
        return False

    return ok(spec.get("pre_tokenizer")), added


def _tokenizer_folder(ref: str) -> tuple[Path, str]:
    path: Path | None
    try:
        path = paths.resolve_user_path(ref, "tokenizer")
    except InputError:
        if ref.startswith((".", "/", "~", "\\")) or ref.endswith(".json"):
            raise
        path = None  # not a path under the data root: a Hub repo id
    if path is not None and path.is_file():
        return path.parent, str(path)
    if path is not None and path.is_dir():
        if not (path / "tokenizer.json").is_file():
            raise InputError(f"{path} has no tokenizer.json; point --tokenizer at a folder or repo with one")
        return path, str(path)
    if ref.startswith((".", "/", "~")) or ref.endswith(".json"):
        raise InputError(f"tokenizer {ref!r}: no such file or folder")
    from comparelib.models import hub

    mref = hub.parse_ref(ref)
    if mref.is_local:
        assert mref.local_path is not None
        return _tokenizer_folder(str(mref.local_path))
    repo = str(mref.repo_id)
    target = hub.download_file(repo, "tokenizer.json", revision=mref.revision)
    folder = Path(target).parent
    for extra in ("tokenizer_config.json", "chat_template.jinja"):
        try:
            hub.download_file(repo, extra, revision=mref.revision)
        except HubError:
            pass
    return folder, repo


# files a repo ships its tokenizer in (the audit reads tokenizer.json; the others say a tokenizer exists in a form
# it does not read)
_TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "tokenizer.model",
    "tiktoken.model",
    "vocab.json",
    "merges.txt",
    "special_tokens_map.json",
)


@dataclass(frozen=True)
class Unread:
    """Why a tokenizer could not be read here (``why``, a clause) and how to count with it exactly (``how``)."""

    why: str
    how: str

    def sentence(self, what: str) -> str:
        """What the audit says when it counted with the estimate instead (``what``: "The tokenizer of X")."""
        return (
            f"{what} could not be read: {self.why}. Tokens are estimated as UTF-8 bytes / 4 (a plain ChatML "
            f"template), not the target's tokens. To count exactly, {self.how}."
        )


def unread_reason(exc: BaseException, token_field: str) -> Unread:
    """Why a tokenizer could not be read (the error ``load_tokenizer`` raised, or the Hub's answer to a check) and
    what to do in a page whose token field is labelled ``token_field``: gated, not shown (private or gated
    without a token, or not on this Hub), offline or unreachable without a cached copy, or anything else."""
    from comparelib.errors import EntryNotFoundError, GatedRepoError, HubAccessError, OfflineError
    from comparelib.models import hub

    place = f'the sidebar\'s "{token_field}" field'
    elsewhere = (
        "put the target's tokenizer.json (with its tokenizer_config.json) in a folder this server can read (under "
        "SPECDRAFT_DATA_ROOT where it is set) and type that folder in the tokenizer field"
    )
    if isinstance(exc, GatedRepoError):
        page = f"{settings.hf_endpoint()}/{exc.repo_id}"
        if exc.token_given:
            return Unread(
                f"model {exc.repo_id} is gated and the Hub token in use has not been granted access",
                f"accept its terms on the Hub ({page}) with that token's account, or paste another token in {place}",
            )
        return Unread(
            f"model {exc.repo_id} is gated and no Hub token is given",
            f"accept its terms on the Hub ({page}), then paste a token of that account in {place}",
        )
    if isinstance(exc, HubAccessError):
        shown = "to the Hub token in use" if exc.token_given else "without a token"
        return Unread(
            f"{hub.endpoint_host()} shows no model {exc.repo_id} {shown} (it is private or gated, or not on this Hub)",
            f"paste a token that can read it in {place}, or type a tokenizer that can be read in the tokenizer field "
            "(a Hub model id, or a folder with tokenizer.json)",
        )
    if isinstance(exc, OfflineError):
        where = (
            "offline (HF_HUB_OFFLINE is set)"
            if settings.hf_offline()
            else f"{hub.endpoint_host()} could not be reached"
        )
        again = "unset HF_HUB_OFFLINE" if settings.hf_offline() else "run the audit again when the Hub can be reached"
        return Unread(f"{where}, and its tokenizer.json is not in the local cache", f"{elsewhere}, or {again}")
    said = str(exc).rstrip(". ")
    if isinstance(exc, EntryNotFoundError):
        return Unread(said, "type a tokenizer repo or folder that has one (the target's own) in the tokenizer field")
    return Unread(
        said,
        "type a tokenizer that can be read in the tokenizer field (tokenizer.json, its folder, or a Hub model id)",
    )


@dataclass(frozen=True)
class TokenizerCheck:
    """What can be told of a tokenizer before the audit reads it (``check_tokenizer``): that it holds no
    tokenizer.json (``missing``, a clause to follow its name), or that it cannot be read here (``unread``)."""

    missing: str | None = None
    unread: Unread | None = None


def _cached_tokenizer(repo_id: str, revision: str | None, token_field: str) -> TokenizerCheck:
    """Offline or unreachable: readable where the local cache holds its tokenizer.json for this session."""
    from comparelib.errors import CompareError
    from comparelib.models import hub

    try:
        hub.download(repo_id, "tokenizer.json", revision=revision, repo_type="model", local_only=True)
    except CompareError as cached:
        return TokenizerCheck(unread=unread_reason(cached, token_field))
    return TokenizerCheck()


def check_tokenizer(ref: str, *, token_field: str = "HF_TOKEN") -> TokenizerCheck:
    """Whether ``ref`` (a Hub model id or a folder) gives the audit a tokenizer, told without reading it: the
    folder's files or the Hub repo's listing (a gated repo: one HEAD of its tokenizer.json; offline or
    unreachable: the local cache). ``missing`` when it holds no tokenizer.json; ``unread`` when it cannot be read
    here (gated, not shown, offline or unreachable without a cached copy); neither when it can, or when that
    cannot be told (the audit's own error says why when it runs)."""
    from comparelib.errors import CompareError, HubAccessError, OfflineError
    from comparelib.models import hub

    ref = str(ref).strip()
    if not ref:
        return TokenizerCheck()
    files: list[str]
    try:
        path = paths.resolve_user_path(ref, "tokenizer")
    except InputError:
        path = None
    try:
        if path is not None and path.is_dir():
            files = sorted(p.name for p in path.iterdir() if p.is_file())
            where = "folder"
        elif path is not None and path.exists():
            return TokenizerCheck()  # a file: load_tokenizer reads it or says why
        else:
            mref = hub.parse_ref(ref)
            if mref.repo_id is None or mref.repo_type != "model":
                return TokenizerCheck()
            repo, revision = str(mref.repo_id), mref.revision
            if settings.hf_offline():  # the cache holds only the files read before: whether it holds this one
                return _cached_tokenizer(repo, revision, token_field)
            try:
                info = hub.api_client().model_info(repo, revision=revision, token=hub.auth_token())
            except Exception as exc:  # noqa: BLE001 - mapped: gated, not shown, unreachable, or cannot tell
                said = hub.map_error(exc, repo_id=repo, revision=revision, filename="tokenizer.json")
                if isinstance(said, OfflineError):
                    return _cached_tokenizer(repo, revision, token_field)
                if isinstance(said, HubAccessError):
                    return TokenizerCheck(unread=unread_reason(said, token_field))
                return TokenizerCheck()
            if info.siblings is None:  # the Hub gave no listing: cannot tell
                return TokenizerCheck()
            files = [sib.rfilename for sib in info.siblings]
            where = "Hub repo"
            if "tokenizer.json" in files and info.gated:  # listed to anyone; its files only to a granted token
                try:
                    hub.check_file(repo, "tokenizer.json", revision=revision)
                except HubAccessError as exc:
                    return TokenizerCheck(unread=unread_reason(exc, token_field))
    except (CompareError, OSError):
        return TokenizerCheck()
    except Exception:  # noqa: BLE001 - anything else: the audit's own error says which on Run
        return TokenizerCheck()
    if "tokenizer.json" in files:
        return TokenizerCheck()
    other = [f for f in _TOKENIZER_FILES if f in files]
    has = f"; it holds {', '.join(other)}, not the tokenizer.json the audit reads" if other else ""
    return TokenizerCheck(missing=f"has no tokenizer files the audit can read (no tokenizer.json in the {where}{has})")


def missing_tokenizer(ref: str) -> str | None:
    """Why ``ref`` (a Hub model id or a folder) gives the audit no tokenizer, as a clause to follow its name ("has
    no tokenizer files the audit can read (no tokenizer.json in the Hub repo)") when it is known to hold no
    tokenizer.json (the Hub repo's file listing, the folder's files); None when it holds one, or when that cannot
    be told (offline, not found, unreadable: ``check_tokenizer``'s ``unread``)."""
    return check_tokenizer(ref).missing


def load_tokenizer_or_estimate(ref: str, *, what: str, token_field: str = "HF_TOKEN") -> TokenizerBundle:
    """``load_tokenizer`` for a tokenizer the user did not choose (a page puts the draft's target in its field):
    one that cannot be read (gated or not shown without a token that can read it, offline or unreachable without a
    cached copy, not a tokenizer) gives the byte estimate instead of stopping the audit, with ``unread`` saying
    which (``what``: "The tokenizer of your draft's target X"), why and how to count exactly. A tokenizer the user
    typed goes to ``load_tokenizer``, whose error stops the audit."""
    from comparelib.errors import CompareError

    try:
        return load_tokenizer(ref)
    except CompareError as exc:
        bundle = load_tokenizer(None)
        bundle.unread = unread_reason(exc, token_field).sentence(what)
        return bundle


def load_tokenizer(ref: str | None) -> TokenizerBundle:
    """tokenizer.json (+ its chat template) from a file, folder or Hub repo; None: the fallback count."""
    if ref is None or not str(ref).strip():
        template = templates.fallback_template()
        return TokenizerBundle(None, template, None, shape=templates.probe_shape(template))
    from tokenizers import Tokenizer

    folder, name = _tokenizer_folder(str(ref).strip())
    named = Path(name)
    file = named if named.is_file() and named.parent.resolve() == folder.resolve() else folder / "tokenizer.json"
    file = paths.member(file, "tokenizer file")
    cap = limits.CONFIG_BYTES
    if file.is_file() and file.stat().st_size > cap.value():
        raise cap.refuse(f"tokenizer file {file.name}", seen=limits.human_bytes(file.stat().st_size))
    try:
        tokenizer = Tokenizer.from_file(str(file))
    except Exception as exc:  # noqa: BLE001 - the Rust error text is the useful part
        raise ConfigError(f"{file} is not a tokenizers tokenizer.json: {exc}") from None
    template = templates.load_template(folder) or templates.fallback_template()
    safe, added = _segment_safe(tokenizer)
    return TokenizerBundle(
        tokenizer,
        template,
        name,
        segment_safe=safe,
        _added=frozenset(added),
        _lengths=tuple(sorted({len(t) for t in added})),
        _ends=frozenset(t[-1] for t in added),
        _starts=frozenset(t[0] for t in added),
        shape=templates.probe_shape(template),
    )


# ---------------------------------------------------------------------------------------------
# Per-row token counting


@dataclass
class Prepared:
    """A rendered row ready to tokenise: either segments (odd ones supervised) or text + spans."""

    segments: list[str] | None
    text: str | None = None
    spans: list[tuple[int, int]] | None = None
    rewritten: bool = False
    """The prefix rule did not hold (the template renders earlier turns differently once later turns are added):
    spans were found in the whole render by header ... end of turn, as SpecForge finds them (``header_spans``)."""
    key: int | None = None
    """The row's duplicate hash once whitespace is collapsed (``scan.Tally.keep``): its copies, exact or
    whitespace-only, share it, so the unique usable rows are counted from the token counts."""
    line: int = 0
    """The row's location code (``scan.Tally.keep``): the unique usable rows keep the first copy by location, which
    does not depend on the order merged blocks arrive in (whitespace-only copies tokenise to different lengths)."""

    @property
    def rendered(self) -> str:
        """The text the trainer sees."""
        return (self.text or "") if self.segments is None else "".join(self.segments)


def _clean_cut(bundle: TokenizerBundle, text: str, p: int) -> bool:
    if p <= 0 or p >= len(text):
        return True
    left, right = text[p - 1], text[p]
    if left == "\n" and not right.isspace():
        return True
    added = bundle._added
    if left in bundle._ends and any(text[p - n : p] in added for n in bundle._lengths if n <= p):
        return True
    if right in bundle._starts and any(text[p : p + n] in added for n in bundle._lengths):
        return True
    return False


def _cut(bundle: TokenizerBundle, text: str, spans: list[tuple[int, int]], rewritten: bool = False) -> Prepared:
    if bundle.tokenizer is not None and not bundle.segment_safe:
        return Prepared(None, text, spans, rewritten)
    segments: list[str] = []
    pos = 0
    for start, end in spans:
        if bundle.tokenizer is not None and not (_clean_cut(bundle, text, start) and _clean_cut(bundle, text, end)):
            return Prepared(None, text, spans, rewritten)
        segments.append(text[pos:start])
        segments.append(text[start:end])
        pos = end
    segments.append(text[pos:])
    return Prepared(segments, rewritten=rewritten)


def _spans_in_process(
    bundle: TokenizerBundle, turns: Sequence[tuple[str, str]], context: templates.ToolContext | None = None
) -> tuple[str, list[tuple[int, int]], bool]:
    """(the whole render, its assistant spans, whether they were found by header ... end of turn)."""
    text = bundle.template.render_turns(turns, context=context)  # refused here: SpecForge cannot use the row either
    # a tool call renders after the content, inside the turn: header+content+tail is not there, so rows with
    # tool context take the prefix rule (the worker's spans op does the same for the rows it gets)
    fast = templates.fast_spans(text, turns, bundle.shape) if bundle.shape and context is None else None
    if fast is not None:
        return text, fast, False
    try:
        return (*templates.reference_spans(bundle.template, turns, context, full=text), False)
    except limits.LimitError:
        raise
    except DataError:
        # Templates that rewrite earlier turns (Qwen3 drops old reasoning) have no prefix spans: the whole render,
        # which is what SpecForge trains on, with its rule: assistant header ... end of turn.
        if bundle.shape is None:
            raise
        return text, templates.pretemplated_spans(text, bundle.shape), True


_TOOL_CALL_CHARS = 8 << 20
"""About how much message text one worker call for tool rows carries (a row's prefixes repeat its turns)."""

Row = tuple[conv_mod.Conversation, Sequence[tuple[str, str]], templates.ToolContext | None]
"""A row to render: the conversation, the turns the trainer keeps, and their tool context (None: none)."""


def _tool_rows_remote(
    bundle: TokenizerBundle,
    rows: Sequence[Row],
    todo: Sequence[int],
    out: list[Prepared | DataError | None],
    cancel: Callable[[], bool] | None,
) -> None:
    """Rows with tool or reasoning context for an untrusted template: each prefix the prefix rule needs goes to the
    worker's render op (``templates.render_item``; the worker's spans op takes role and content only), in calls of
    about ``_TOOL_CALL_CHARS``, so each render keeps the worker's time and size caps; spans are put together here."""
    from comparelib.audit import sandbox

    items: list[list[Any]] = []
    sizes: list[int] = []
    owners: list[tuple[int, int]] = []  # (row, number of renders of that row)
    for i in todo:
        _conv, turns, context = rows[i]
        messages = templates.as_messages(turns, context)
        tools = context.tools if context is not None else None
        extra = len(json.dumps(tools, default=str)) if tools else 0
        upto = [0]
        for m in messages:
            calls = len(json.dumps(m.get("tool_calls"), default=str))
            upto.append(upto[-1] + len(m["content"]) + len(m.get("reasoning_content") or "") + calls + 32)
        plan = templates.prefix_renders(turns)
        for n, gen in plan:
            items.append(templates.render_item(messages[:n], gen, tools))
            sizes.append(upto[n] + extra)
        owners.append((i, len(plan)))
    answers: list[Any] = []
    start = 0
    while start < len(items):
        end, size = start + 1, sizes[start]
        while end < len(items) and size + sizes[end] <= _TOOL_CALL_CHARS:
            size += sizes[end]
            end += 1
        answers += sandbox.pool().call(bundle.template, "render", items[start:end], cancel=cancel)
        start = end
    at = 0
    for i, count in owners:
        got, at = answers[at : at + count], at + count
        if got[0][0] != "ok":
            out[i] = DataError(got[0][1])
            continue
        rewritten = False
        try:
            if any(answer[0] != "ok" for answer in got):
                raise DataError(next(answer[1] for answer in got if answer[0] != "ok"))
            text, spans = templates.spans_from_renders([str(answer[1]) for answer in got])
        except DataError as exc:
            if bundle.shape is None:  # as in _spans_in_process: the header rule when prefixes do not hold
                out[i] = exc
                continue
            text, spans = str(got[0][1]), templates.pretemplated_spans(str(got[0][1]), bundle.shape)
            rewritten = True
        out[i] = _cut(bundle, text, spans, rewritten)


def prepare_many(
    bundle: TokenizerBundle,
    rows: Sequence[Row],
    *,
    cancel: Callable[[], bool] | None = None,
) -> list[Prepared | DataError]:
    """``prepare`` for a batch: an untrusted template renders the whole batch in one worker call (rows with
    tool context in calls of their own).

    A row the template refuses comes back as its DataError; a cap refusal (LimitError) aborts the batch.
    """
    out: list[Prepared | DataError | None] = [None] * len(rows)
    remote: list[int] = []
    remote_tools: list[int] = []
    for i, (conv, turns, context) in enumerate(rows):
        if conv.pretemplated:
            text = conv.text or ""
            out[i] = _cut(bundle, text, templates.pretemplated_spans(text, bundle.shape) if bundle.shape else [])
        elif bundle.template.trusted:
            try:
                out[i] = _cut(bundle, *_spans_in_process(bundle, turns, context))
            except limits.LimitError:
                raise
            except DataError as exc:
                out[i] = exc
        elif context is not None:
            remote_tools.append(i)
        else:
            remote.append(i)
    if remote:
        from comparelib.audit import sandbox

        answers = sandbox.pool().call(
            bundle.template, "spans", [[list(t) for t in rows[i][1]] for i in remote], cancel=cancel
        )
        for i, answer in zip(remote, answers, strict=True):
            if answer[0] != "ok":
                out[i] = DataError(answer[1])
            else:
                rewritten = len(answer) > 3 and bool(answer[3])  # the worker's header-rule fallback
                out[i] = _cut(bundle, answer[1], [(int(a), int(b)) for a, b in answer[2]], rewritten)
    if remote_tools:
        _tool_rows_remote(bundle, rows, remote_tools, out, cancel)
    return [item for item in out if item is not None]


def prepare(
    bundle: TokenizerBundle,
    conv: conv_mod.Conversation,
    turns: Sequence[tuple[str, str]],
    context: templates.ToolContext | None = None,
) -> Prepared:
    """Render ``turns`` once and cut the text at its assistant spans (see module docstring)."""
    (item,) = prepare_many(bundle, [(conv, turns, context)])
    if isinstance(item, DataError):
        raise item
    return item


def count_prepared(bundle: TokenizerBundle, items: Sequence[Prepared]) -> list[tuple[int, int]]:
    """(tokens, supervised tokens) per row; segments batched through ``encode_batch_fast``."""
    flat = [seg for item in items if item.segments is not None for seg in item.segments if seg]
    tok = bundle.tokenizer
    if tok is None:
        lengths = [len(s.encode("utf-8")) for s in flat]  # bytes; divided by 4 per row below
    else:
        encode = getattr(tok, "encode_batch_fast", None) or tok.encode_batch  # _fast: tokenizers >= 0.21
        lengths = [len(e) for e in encode(flat, add_special_tokens=False)] if flat else []
    whole = [i for i, item in enumerate(items) if item.segments is None]
    exact: dict[int, tuple[int, int]] = {}
    if whole:
        assert tok is not None  # only rows prepared with a tokenizer are tokenised whole
        encs = tok.encode_batch([items[i].text for i in whole], add_special_tokens=False)
        for i, enc in zip(whole, encs, strict=False):
            mask = templates.mask_from_offsets(enc.offsets, items[i].spans or [])
            exact[i] = (len(enc), sum(mask))
    out: list[tuple[int, int]] = []
    it = iter(lengths)
    for i, item in enumerate(items):
        if item.segments is None:
            out.append(exact[i])
            continue
        total = sup = 0
        for j, seg in enumerate(item.segments):
            if seg:
                n = next(it)
                total += n
                if j & 1:
                    sup += n
        out.append(((total + 3) // 4, (sup + 3) // 4) if tok is None else (total, sup))
    return out


def count_turns(bundle: TokenizerBundle, turn_lists: Sequence[Sequence[tuple[str, str]]]) -> list[tuple[int, int]]:
    """(tokens, supervised tokens) for conversations given as turn lists (library and test helper)."""
    rows: list[Row] = []
    for turns in turn_lists:
        kept, _ = conv_mod.trainable_turns(turns)
        rows.append((conv_mod.Conversation(turns=list(kept)), kept, None))
    prepared = []
    for item in prepare_many(bundle, rows):
        if isinstance(item, DataError):
            raise item
        prepared.append(item)
    return count_prepared(bundle, prepared)
