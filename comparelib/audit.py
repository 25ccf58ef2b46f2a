"""The training-data audit: one streaming pass that counts what a draft will actually train on.

Why streaming: published drafts train on millions of rows, so nothing here holds the dataset.
Memory bounds (independent of the number of rows unless noted):

* token lengths: a ``Counter`` of integer lengths, bounded by the longest sample;
* exact duplicates: one 8-byte hash and one 8-byte row location per row in ``array``s (16 MB per
  million rows: the only part that grows, and it is not Python objects);
* near duplicates: MinHash LSH (64 permutations, word 3-grams, Jaccard >= 0.8) over a reservoir of at
  most ``near_dup_cap`` rows (default 10,000) whose first 1,500 characters are kept: about 15-60 MB
  at most (ASCII vs CJK text); exact when the dataset is smaller, a lower bound otherwise;
* parsing runs ahead of tokenising by at most ``_QUEUE_BATCHES`` batches of ~2K texts;
* estimate mode keeps one small tuple per sampled row.

Tokenising is ``Tokenizer.encode_batch_fast`` on ~2K-text chunks (Rust uses all cores) while a
reader thread parses and renders the next chunk. ``encode_batch_fast`` has no offsets, so the loss
mask is computed by tokenising each conversation as segments cut at its assistant-span
boundaries; where a boundary could change tokenisation (not after a newline or special token)
the row is tokenised whole with offsets instead. Both give the prefix-rule mask of
``templates.reference_spans`` (tests compare them row by row).
"""

from __future__ import annotations

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
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from itertools import repeat
from pathlib import Path
from typing import Any

from comparelib import conversations as conv_mod
from comparelib import limits, paths, redact, templates
from comparelib.errors import CompareError, ConfigError, DataError, HubError, InputError

ProgressFn = Callable[[int, float, "float | None"], None]

DEFAULT_MAX_LENGTH = 2048
MAX_LENGTH_NOTE = "truncated by SpecForge, dropped by EAGLE"
FALLBACK_METHOD = "estimate without a tokenizer: ceil(UTF-8 bytes / 4) per conversation, ChatML framing"
CHUNK_TEXTS = 2048
_QUEUE_BATCHES = 4
_DETECT_ROWS = 200
_EXAMPLES = 5
_NEAR_DUP_CHARS = 1500
FILE_EXTENSIONS = (".jsonl", ".json", ".parquet", ".arrow", ".jsonl.gz", ".jsonl.bz2", ".jsonl.xz", ".jsonl.zst")

_CODE_MARKS = (
    "```",
    "\ndef ",
    "\nclass ",
    "\nimport ",
    "#include",
    "function(",
    "function ",
    "public static ",
    "SELECT ",
    "console.log",
    "=> {",
    "</div>",
    "fn main(",
)
_MATH_MARKS = ("\\frac", "\\boxed", "\\sqrt", "\\sum", "\\int", "$$", "\\(", "\\[")
_MATH_WORDS = ("equation", "solve for", "theorem", "integral", "derivative", "probability")
_CODE_RE = re.compile("|".join(re.escape(m) for m in _CODE_MARKS))  # literal alternation: one C pass
_MATH_RE = re.compile("|".join(re.escape(m) for m in _MATH_MARKS))
_ARITH = re.compile(r"\d\s*[+\-*/^]\s*\d+\s*=|\d\s*=\s*\d")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
DOMAINS: tuple[str, ...] = ("code", "math", "cjk", "other")


def _has_any(text: str, marks: Sequence[str]) -> bool:
    for mark in marks:
        if mark in text:
            return True
    return False


def domain_of(text: str) -> str:
    """A cheap single label, code > math > CJK > other, from the first 1,500 characters.

    Literal patterns (one C pass each), the arithmetic regex only where an "=" makes it worth it:
    this runs on every row of millions.
    """
    head = text[:1500]
    if _CODE_RE.search(head) or head.startswith(("def ", "import ", "class ")):
        return "code"
    if _MATH_RE.search(head) or ("=" in head and _ARITH.search(head)):
        return "math"
    if _has_any(head.lower(), _MATH_WORDS):
        return "math"
    if not head.isascii():
        cjk = len(_CJK.findall(head))
        if cjk and cjk * 10 >= len(head) - head.count(" "):  # >= 10% of non-space characters
            return "cjk"
    return "other"


def fallback_count(text: str) -> int:
    """Tokens without a tokenizer: a byte-level estimate (about 4 bytes per BPE token)."""
    return (len(text.encode("utf-8")) + 3) // 4


# ---------------------------------------------------------------------------------------------
# Tokenizer


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
    from comparelib import hub

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


def load_tokenizer(ref: str | None) -> TokenizerBundle:
    """tokenizer.json (+ its chat template) from a file, folder or Hub repo; None: the fallback count."""
    if ref is None or not str(ref).strip():
        template = templates.fallback_template()
        return TokenizerBundle(None, template, None, shape=templates.probe_shape(template))
    from tokenizers import Tokenizer

    folder, name = _tokenizer_folder(str(ref).strip())
    named = Path(name)
    file = named if named.is_file() and named.parent.resolve() == folder.resolve() else folder / "tokenizer.json"
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


def prepare(bundle: TokenizerBundle, conv: conv_mod.Conversation, turns: Sequence[tuple[str, str]]) -> Prepared:
    """Render ``turns`` once and cut the text at its assistant spans (see module docstring)."""
    if conv.pretemplated:
        text = conv.text or ""
        spans = templates.pretemplated_spans(text, bundle.shape) if bundle.shape else []
    else:
        text = bundle.template.render_turns(turns)
        spans = templates.fast_spans(text, turns, bundle.shape) if bundle.shape else None
        if spans is None:
            try:
                text, spans = templates.reference_spans(bundle.template, turns)
            except limits.LimitError:
                raise
            except DataError:
                # Templates that rewrite earlier turns (e.g. drop old reasoning) have no prefix
                # spans; fall back to SpecForge's rule: assistant header ... end of turn.
                if bundle.shape is None:
                    raise
                spans = templates.pretemplated_spans(text, bundle.shape)
    if bundle.tokenizer is not None and not bundle.segment_safe:
        return Prepared(None, text, spans)
    segments: list[str] = []
    pos = 0
    for start, end in spans:
        if bundle.tokenizer is not None and not (_clean_cut(bundle, text, start) and _clean_cut(bundle, text, end)):
            return Prepared(None, text, spans)
        segments.append(text[pos:start])
        segments.append(text[start:end])
        pos = end
    segments.append(text[pos:])
    return Prepared(segments)


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
    prepared = []
    for turns in turn_lists:
        kept, _ = conv_mod.trainable_turns(turns)
        prepared.append(prepare(bundle, conv_mod.Conversation(turns=list(kept)), kept))
    return count_prepared(bundle, prepared)


# ---------------------------------------------------------------------------------------------
# Sources


@dataclass
class Source:
    """Rows from files or a Hub dataset, with progress information where it can be known."""

    name: str
    iterate: Callable[[], Iterator[tuple[int, Any]]]
    total_rows: int | None = None
    total_bytes: int = 0
    hub_rows: int | None = None
    hub_rows_note: str | None = None
    kind: str = "local"
    sample_hub: Callable[[int, int], Iterator[tuple[int, Any]]] | None = None
    locate: Callable[[int], Any] = lambda code: code
    _bytes_done: list[int] = field(default_factory=lambda: [0])

    def fraction(self) -> float | None:
        if self.total_bytes > 0:
            return min(1.0, self._bytes_done[0] / self.total_bytes)
        return None


def _files_in(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    files = sorted(p for p in path.rglob("*") if p.is_file() and p.name.endswith(FILE_EXTENSIONS))
    if not files:
        raise InputError(f"{path} holds no .jsonl, .json, .parquet or .arrow files")
    return files


def _first_line_is_object(path: Path) -> bool:
    with open(path, "rb") as fh:
        try:
            for line in limits.iter_lines(fh, path.name):
                if line.strip():
                    try:
                        return isinstance(limits.loads(line, f"{path.name} line 1"), dict)
                    except ValueError:
                        return False
        except limits.LimitError:
            return True  # one huge line: read as JSON Lines, where the row cap refuses it with its line number
    return False


def _json_rows(path: Path, counter: list[int]) -> Iterator[tuple[int, Any]]:
    """Rows of a JSON Lines file (streamed, line numbers kept) or of a whole-JSON file.

    A ``.json`` file whose first line is not a complete object is one JSON document (an array, or
    an object holding the rows under data/train/rows): that case is read whole, the only one
    that is not streamed, and only up to SPECDRAFT_MAX_DOCUMENT_BYTES. Lines are read with a
    bounded reader (SPECDRAFT_MAX_ROW_BYTES) and compressed files through a decompression guard.
    """
    data: Any = None
    if path.suffix == ".json" and not _first_line_is_object(path):
        raw = limits.read_file_capped(path, path.name, limits.DOCUMENT_BYTES)
        try:
            data = limits.loads(raw, path.name)
        except ValueError:
            data = None  # not one document either: read it line by line, bad lines set aside
        del raw
    if path.suffix == ".json" and data is not None:
        counter[0] += path.stat().st_size
        if isinstance(data, dict):
            data = next((data[k] for k in ("data", "train", "rows") if isinstance(data.get(k), list)), [data])
        if not isinstance(data, list):
            raise DataError(f"{path.name} holds a JSON {type(data).__name__}, not a list of rows")
        for i, row in enumerate(data, 1):
            yield i, row
        return
    with limits.open_maybe_compressed(path, path.name) as fh:
        for i, line in enumerate(limits.iter_lines(fh, path.name), 1):
            counter[0] += len(line)
            if line.strip():
                yield i, line


def _table_rows(path: Path, counter: list[int]) -> Iterator[tuple[int, Any]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    size = path.stat().st_size
    try:
        if path.suffix == ".parquet":
            pf = pq.ParquetFile(path)
            total = max(1, pf.metadata.num_rows)
            batches: Iterator[Any] = pf.iter_batches(batch_size=_parquet_batch(pf, path.name))
        else:
            try:
                reader: Any = pa.ipc.open_file(path)
                total = max(1, sum(reader.get_batch(i).num_rows for i in range(reader.num_record_batches)))
                batches = (reader.get_batch(i) for i in range(reader.num_record_batches))
            except pa.ArrowInvalid:
                stream = pa.ipc.open_stream(path)
                total = 0
                batches = iter(stream)
    except (pa.ArrowException, OSError) as exc:
        raise DataError(f"{path.name} cannot be read as {path.suffix[1:]}: {exc}") from None
    i = 0
    for batch in batches:
        for row in batch.to_pylist():
            i += 1
            yield i, row
        counter[0] += int(size * batch.num_rows / total) if total else 0


def _parquet_batch(pf: Any, name: str) -> int:
    """Rows per batch so a batch holds about 64 MiB; refuses row groups whose rows are over the row cap.

    Parquet states each row group's uncompressed size, so a group whose average row is over
    SPECDRAFT_MAX_ROW_BYTES, or which is over SPECDRAFT_MAX_DOCUMENT_BYTES as a whole, is refused
    before it is decoded.
    """
    row_cap, doc_cap = limits.ROW_BYTES.value(), limits.DOCUMENT_BYTES.value()
    widest = 1.0
    meta = pf.metadata
    for i in range(meta.num_row_groups):
        group = meta.row_group(i)
        rows, size = max(1, group.num_rows), int(group.total_byte_size)
        if size / rows > row_cap:
            raise limits.ROW_BYTES.refuse(
                f"{name} row group {i}", value=row_cap, seen=f"{limits.human_bytes(size // rows)} per row on average"
            )
        if size > doc_cap:
            raise limits.DOCUMENT_BYTES.refuse(f"{name} row group {i}", value=doc_cap, seen=limits.human_bytes(size))
        widest = max(widest, size / rows)
    return max(1, min(1024, int(64 * limits.MiB / widest)))


def table_row_count(path: Path) -> int | None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        if path.suffix == ".parquet":
            return int(pq.ParquetFile(path).metadata.num_rows)
        if path.suffix == ".arrow":
            reader = pa.ipc.open_file(path)
            return sum(reader.get_batch(i).num_rows for i in range(reader.num_record_batches))
    except (pa.ArrowException, OSError):
        return None
    return None


def _local_source(path: Path) -> Source:
    files = _files_in(path)
    counter = [0]
    total_rows: int | None = 0
    for f in files:
        if f.suffix in (".parquet", ".arrow"):
            n = table_row_count(f)
            total_rows = None if n is None or total_rows is None else total_rows + n
        else:
            total_rows = None
    total_bytes = sum(f.stat().st_size for f in files)
    multi = len(files) > 1

    def iterate() -> Iterator[tuple[int, Any]]:
        counter[0] = 0
        for k, f in enumerate(files):
            rows = _table_rows(f, counter) if f.suffix in (".parquet", ".arrow") else _json_rows(f, counter)
            for line, row in rows:
                yield k * _FILE_STRIDE + line, row

    def locate(code: int) -> Any:
        if not multi:
            return code
        k, line = divmod(int(code), _FILE_STRIDE)
        return f"{files[k].relative_to(path)}:{line}"

    src = Source(
        name=str(path), iterate=iterate, total_rows=total_rows or None, total_bytes=total_bytes, locate=locate
    )
    src._bytes_done = counter
    return src


_FILE_STRIDE = 1 << 40


def _looks_like_hub(text: str) -> bool:
    if text.lower().endswith(FILE_EXTENSIONS + (".gz", ".csv", ".txt")):
        return False  # a mistyped local file, not a repo id
    return text.startswith(("http://", "https://", "hf://")) or bool(
        re.fullmatch(r"(?:datasets/)?[\w.\-]+/[\w.\-]+(?:@[\w.\-/]+)?", text)
    )


def open_source(ref: str, *, config: str | None = None, split: str | None = None) -> Source:
    """A local file/folder, or a Hub dataset (``org/name`` or its URL) streamed with ``datasets``."""
    text = str(ref or "").strip().strip("\"'")
    if not text:
        raise InputError("no dataset given: a .jsonl/.json/.parquet/.arrow file, a folder, or a Hub dataset id")
    try:
        path = paths.resolve_user_path(text, "dataset")
    except InputError:
        if _looks_like_hub(text) and not text.startswith(("/", ".", "~", "\\")):
            return _hub_source(text, config=config, split=split)
        raise
    if path.exists():
        return _local_source(path)
    if not _looks_like_hub(text):
        raise InputError(f"{text}: no such file or folder (and not a Hub dataset id like org/name)")
    return _hub_source(text, config=config, split=split)


def _parquet_count(
    repo_id: str, *, revision: str | None, config: str | None, split: str
) -> tuple[int | None, str | None]:
    """Rows of ``split`` from Parquet footers on the Hub, or (None, why the Hub cannot tell)."""
    from comparelib import hub, settings

    head = "the Hub does not say how many rows this split has (no dataset_info in the card"
    if settings.hf_offline():
        return None, f"{head}, and Parquet footers cannot be read offline); counted by reading"
    try:
        rows = hub.parquet_rows(repo_id, revision=revision, config=config)
    except CompareError as exc:
        return None, f"{head}, and its Parquet footers could not be read: {exc}); counted by reading"
    if rows is None:
        return None, (
            f"{head}, and the repo has no Parquet files nor a Parquet export whose footers would give "
            "it); counted by reading"
        )
    if split not in rows:
        return None, (
            f"{head}, and no Parquet file belongs to split {split!r}: found "
            f"{', '.join(sorted(rows))}); counted by reading"
        )
    return rows[split], None


def _hub_json_rows(fs: Any, url: str, name: str) -> Iterator[tuple[int, Any]]:
    """Rows of one JSON / JSON Lines file on the Hub, streamed by range requests with the local caps."""
    import io

    path = url.removeprefix("hf://")
    raw = fs.open(path, "rb", block_size=4 * limits.MiB)
    try:
        fh: Any = raw
        if name.endswith(limits.COMPRESSED_SUFFIXES):
            size = int(fs.size(path) or 0)
            if name.endswith(".gz"):
                import gzip

                fh = limits.DecompressionGuard(gzip.GzipFile(fileobj=raw, mode="rb"), name, size)
            elif name.endswith(".bz2"):
                import bz2

                fh = limits.DecompressionGuard(bz2.BZ2File(raw, "rb"), name, size)
            elif name.endswith(".xz"):
                import lzma

                fh = limits.DecompressionGuard(lzma.LZMAFile(raw, "rb"), name, size)
            else:
                raise limits.LimitError(f"{name} is zstd-compressed; decompress it or use .gz/.bz2/.xz")
        elif name.endswith(".json"):
            doc = limits.read_capped(raw, name, limits.DOCUMENT_BYTES)
            try:
                data = limits.loads(doc, name)
            except ValueError:
                data = None
            if isinstance(data, dict):
                data = next((data[k] for k in ("data", "train", "rows") if isinstance(data.get(k), list)), [data])
            if isinstance(data, list):
                yield from enumerate(data, 1)
                return
            fh = io.BytesIO(doc)  # not one document: JSON Lines in a .json file
        chunks = iter(lambda: fh.read(limits.MiB), b"")
        for i, line in enumerate(limits.iter_chunk_lines(chunks, name, limits.ROW_BYTES), 1):
            if line.strip():
                yield i, line
    finally:
        raw.close()


def _hub_parquet_rows(fs: Any, url: str, name: str) -> Iterator[tuple[int, Any]]:
    """Rows of one Parquet file on the Hub by range requests, row groups checked against the caps first."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = url.removeprefix("hf://")
    with fs.open(path, "rb", block_size=4 * limits.MiB) as raw:
        try:
            pf = pq.ParquetFile(raw)
            batches = pf.iter_batches(batch_size=_parquet_batch(pf, name))
        except pa.ArrowException as exc:
            raise DataError(f"{name} cannot be read as parquet: {exc}") from None
        i = 0
        for batch in batches:
            for row in batch.to_pylist():
                i += 1
                yield i, row


def _hub_source(text: str, *, config: str | None, split: str | None) -> Source:
    from comparelib import hub, settings

    body = text[len("datasets/") :] if text.startswith("datasets/") else text
    mref = hub.parse_ref(body)
    if mref.is_local:
        assert mref.local_path is not None
        return _local_source(mref.local_path)
    repo_id = str(mref.repo_id)
    split_given = bool(split)
    split = split or "train"
    hub_rows: int | None = None
    note: str | None = None
    try:
        rows = hub.dataset_info_rows(repo_id, revision=mref.revision)
    except HubError:
        raise
    except CompareError as exc:
        rows, note = None, str(exc)
    if rows:
        per_config = rows.get(config or "default") or (next(iter(rows.values())) if len(rows) == 1 else None)
        if per_config and split in per_config:
            hub_rows = per_config[split]
    if hub_rows is None and note is None:
        hub_rows, note = _parquet_count(repo_id, revision=mref.revision, config=config, split=split)

    hub.check_dataset_card(repo_id, mref.revision)  # data_files on other hosts: refused before any data request
    json_files: list[str] = []
    kind = ["json"]

    def load() -> Any:
        import datasets
        import datasets.config as ds_config

        # datasets 5.2 builds every HfApi/HfFileSystem it uses from its module constant
        # datasets.config.HF_ENDPOINT, frozen at import. load_dataset has no endpoint argument, and
        # storage_options={"hf": {"endpoint": ...}} only reaches the file reads, not the HfApi calls that
        # resolve the repo (commit, README, listing), which would still go to huggingface.co. So the
        # constant has to follow the endpoint configured now (a mirror, the emulator). huggingface_hub's
        # own constants are left alone: datasets passes its endpoint to huggingface_hub explicitly, and
        # pins it (with the token) in DownloadConfig.storage_options, so later streamed reads use it too.
        endpoint = settings.hf_endpoint()
        if ds_config.HF_ENDPOINT != endpoint:
            ds_config.HF_ENDPOINT = endpoint
            ds_config.HUB_DATASETS_URL = endpoint + "/datasets/{repo_id}/resolve/{revision}/{path}"
        hub.quiet_datasets()
        token = settings.hf_token()
        try:
            # load_dataset(streaming=True) is exactly load_dataset_builder + as_streaming_dataset
            # (datasets/load.py, load_dataset); split in two so the resolved files are checked first.
            builder = datasets.load_dataset_builder(
                repo_id, config, revision=mref.revision, token=token or False
            )  # False: never a token stored on disk
            resolved = [str(f) for f in (builder.config.data_files or {}).get(split, [])]
            hub.check_data_file_urls(repo_id, resolved)
            if getattr(builder, "name", None) in ("json", "parquet") and resolved:
                # datasets' JSON reader appends f.readline() (unbounded) to each 10 MB chunk and lets
                # pyarrow grow its block for a long row: one 30 MB row costs GBs. Our bounded readers
                # stream the same files (range requests) with every cap; Parquet row groups are
                # checked against the row cap from the footer before they are decoded.
                json_files[:] = resolved
                kind[0] = str(builder.name)
                return None
            return builder.as_streaming_dataset(split=split)
        except CompareError:
            raise
        except Exception as exc:  # noqa: BLE001 - datasets raises many types; the message matters
            msg = redact.mask_text(" ".join(str(exc).split()), token)[:300]
            raise HubError(
                f"cannot load dataset {repo_id} (config {config or 'default'}, split {split}): {msg}"
            ) from None

    def stream_json(files: list[str]) -> Iterator[tuple[int, Any]]:
        from huggingface_hub import HfFileSystem

        fs = HfFileSystem(
            endpoint=settings.hf_endpoint(), token=settings.hf_token() or False, skip_instance_cache=True
        )
        for k, url in enumerate(files):
            name = url.rsplit("/", 1)[-1]
            suffixes = (
                (".parquet",)
                if kind[0] == "parquet"
                else ((".json", ".jsonl") + tuple(".jsonl" + c for c in limits.COMPRESSED_SUFFIXES))
            )
            if not name.endswith(suffixes):
                raise DataError(
                    f"dataset {repo_id} (config {config or 'default'}, split {split}) could not be read "
                    f"while streaming: {name} is not {kind[0]}, but the files resolved for this config "
                    f"are read as {kind[0]} (datasets picks one reader per repo); pass a config whose "
                    "files all have one format, or convert them"
                )
            rows = _hub_parquet_rows(fs, url, name) if kind[0] == "parquet" else _hub_json_rows(fs, url, name)
            try:
                for line, row in rows:
                    yield k * _FILE_STRIDE + line, row
            except CompareError:
                raise
            except Exception as exc:  # noqa: BLE001
                raise read_failed(exc) from None

    def data_files() -> list[str]:
        """The repo's own data files for ``split`` (for repos ``datasets`` cannot list)."""
        try:
            info = hub._api().dataset_info(repo_id, revision=mref.revision, token=settings.hf_token() or False)
        except Exception:  # noqa: BLE001 - no listing: nothing to fall back to
            return []
        names = sorted(
            s.rfilename
            for s in info.siblings or []
            if s.rfilename.endswith(FILE_EXTENSIONS) and not s.rfilename.startswith(".")
        )
        matching = [n for n in names if re.search(rf"(^|[/_.\-]){re.escape(split)}([/_.\-]|$)", n)]
        if config:  # a config the loader refused: only files that name it, never the whole repo instead
            matching = [n for n in matching if re.search(rf"(^|[/_.\-]){re.escape(config)}([/_.\-]|$)", n)]
        # Every file only when the user named neither: a split or config asked for must never be
        # answered with counts of other data.
        return matching or ([] if config or split_given else names)

    def from_files(files: list[str]) -> Iterator[tuple[int, Any]]:
        counter = [0]
        for k, name in enumerate(files):
            path = hub.download_file(repo_id, name, revision=mref.revision, repo_type="dataset", cap=None)
            rows = _table_rows(path, counter) if path.suffix in (".parquet", ".arrow") else _json_rows(path, counter)
            for line, row in rows:
                yield k * _FILE_STRIDE + line, row

    def read_failed(exc: Exception) -> CompareError:
        """A file ``datasets`` cannot decode while streaming (e.g. configs mixing JSON and Parquet)."""
        if isinstance(exc, CompareError):
            return exc
        msg = redact.mask_text(" ".join(str(exc).split()), settings.hf_token())[:300]
        return DataError(
            f"dataset {repo_id} (config {config or 'default'}, split {split}) could not be read "
            f"while streaming: {type(exc).__name__}: {msg}"
        )

    def iterate() -> Iterator[tuple[int, Any]]:
        try:
            loaded = load()
            if loaded is None:
                yield from stream_json(json_files)
                return
            stream = iter(loaded)
            first = next(stream, None)
        except HubError:
            files = data_files()
            if not files:
                raise
            yield from from_files(files)
            return
        except Exception as exc:  # noqa: BLE001 - decoding errors surface on the first row
            raise read_failed(exc) from None
        if first is None:
            return
        yield 1, first
        try:
            yield from enumerate(stream, 2)
        except Exception as exc:  # noqa: BLE001
            raise read_failed(exc) from None

    def sample(n: int, seed: int) -> Iterator[tuple[int, Any]]:
        try:
            loaded = load()
            if loaded is None:  # our bounded reader: like datasets' shuffle(buffer_size).take(n), a
                # seeded sample of the first max(1000, 10 n) rows, so only those are fetched
                head = list(itertools.islice(stream_json(json_files), max(1000, 10 * n)))
                picked = sorted(random.Random(seed).sample(head, min(n, len(head))), key=lambda it: it[0])
                yield from picked
                return
            ds = loaded.shuffle(seed=seed, buffer_size=max(1000, 10 * n)).take(n)
            try:
                rows = list(ds)
            except HubError:
                raise
            except Exception as exc:  # noqa: BLE001
                raise read_failed(exc) from None
        except HubError:
            if not data_files():
                raise
            picked, _seen = _reservoir(iterate(), n, seed)
            yield from picked
            return
        yield from enumerate(rows, 1)

    return Source(
        name=f"datasets/{repo_id}" + (f" ({config}/{split})" if config else f" ({split})"),
        iterate=iterate,
        total_rows=hub_rows,
        hub_rows=hub_rows,
        hub_rows_note=note,
        kind="hub",
        sample_hub=sample,
    )


# ---------------------------------------------------------------------------------------------
# Result


@dataclass
class AuditResult:
    """Everything the audit found; ``to_volume`` is what a draft's comparison needs."""

    source: str
    format: str
    format_label: str
    tokenizer: str | None
    token_count_method: str
    template: str
    samples: int
    rows_read: int
    turns: int
    tokens: int
    assistant_tokens: int
    supervised_fraction: float
    length: dict[str, float]
    histogram: dict[str, list[float]]
    max_length: int
    over_max_length: int
    over_max_length_share: float
    over_max_length_note: str
    empty: int
    malformed: int
    malformed_examples: list[dict[str, Any]]
    anomalies: dict[str, int]
    anomaly_rows: int
    anomaly_examples: list[dict[str, Any]]
    duplicates: int
    duplicate_examples: list[dict[str, Any]]
    near_duplicates: int
    near_duplicates_checked: int
    near_duplicate_examples: list[dict[str, Any]]
    regenerated: int
    original: int
    regeneration_status: dict[str, int]
    domains: dict[str, int]
    zero_supervised: int
    rows_with_offsets: int
    estimated: bool = False
    estimate: dict[str, dict[str, float]] | None = None
    population: int | None = None
    hub_rows: int | None = None
    hub_rows_note: str | None = None
    elapsed_s: float = 0.0
    notes: list[str] = field(default_factory=list)

    def to_volume(self) -> dict[str, int]:
        return {
            "samples": int(self.samples),
            "tokens": int(self.tokens),
            "assistant_tokens": int(self.assistant_tokens),
        }

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary_rows(self) -> list[tuple[str, Any]]:
        rows: list[tuple[str, Any]] = [
            ("source", self.source),
            ("format", self.format),
            ("tokenizer", self.tokenizer or "none (estimate)"),
            ("token count", self.token_count_method),
            ("chat template", self.template),
            ("samples", self.samples),
            ("rows read", self.rows_read),
            ("turns", self.turns),
            ("tokens", self.tokens),
            ("assistant tokens", self.assistant_tokens),
            ("supervised fraction", round(self.supervised_fraction, 4)),
        ]
        rows += [(f"length {k}", v) for k, v in self.length.items()]
        rows += [
            (f"over max_length {self.max_length}", self.over_max_length),
            ("over max_length share", round(self.over_max_length_share, 4)),
            ("empty", self.empty),
            ("malformed", self.malformed),
            ("role-order anomaly rows", self.anomaly_rows),
            ("exact duplicates", self.duplicates),
            ("near duplicates", self.near_duplicates),
            ("near-duplicate rows checked", self.near_duplicates_checked),
            ("regenerated", self.regenerated),
            ("original", self.original),
            ("zero supervised tokens", self.zero_supervised),
        ]
        rows += [(f"domain {k}", v) for k, v in self.domains.items()]
        rows += [(f"anomaly {k}", v) for k, v in sorted(self.anomalies.items())]
        if self.estimate:
            for key, est in self.estimate.items():
                rows.append((f"{key} 95% low", round(est["low"])))
                rows.append((f"{key} 95% high", round(est["high"])))
        if self.hub_rows is not None or self.hub_rows_note:
            rows.append(("rows per the Hub", self.hub_rows if self.hub_rows is not None else self.hub_rows_note))
        return rows

    def summary_table(self) -> Any:
        import pandas as pd

        # values keep their types so JSON carries numbers as numbers (and text as text)
        rows = [
            (k, v if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v))
            for k, v in self.summary_rows()
        ]
        return pd.DataFrame(rows, columns=["metric", "value"], dtype=object)

    def export(self, fmt: str) -> str:
        from comparelib import export

        return export.render(self.summary_table(), fmt)


def percentiles(lengths: Counter[int], qs: Sequence[float] = (50, 90, 99)) -> dict[str, float]:
    """Exact nearest-rank percentiles of the integer lengths in a Counter."""
    total = sum(lengths.values())
    out: dict[str, float] = {}
    if total == 0:
        return {**{f"p{int(q)}": 0 for q in qs}, "max": 0, "mean": 0.0}
    keys = sorted(lengths)
    for q in qs:
        rank = max(1, math.ceil(q / 100 * total))
        seen = 0
        for k in keys:
            seen += lengths[k]
            if seen >= rank:
                out[f"p{int(q)}"] = k
                break
    out["max"] = keys[-1]
    out["mean"] = round(sum(k * v for k, v in lengths.items()) / total, 2)
    return out


def histogram(lengths: Counter[int], bins: int = 40) -> dict[str, list[float]]:
    if not lengths:
        return {"bins": [0.0, 1.0], "counts": [0]}
    hi = max(lengths)
    width = max(1, math.ceil((hi + 1) / bins))
    n = math.ceil((hi + 1) / width)
    counts = [0] * n
    for k, v in lengths.items():
        counts[k // width] += v
    return {"bins": [float(i * width) for i in range(n + 1)], "counts": counts}


# ---------------------------------------------------------------------------------------------
# The scan


class _Stats:
    """Running totals; written by the reader thread (row checks) and the main thread (tokens)."""

    def __init__(self, near_dup_cap: int, seed: int) -> None:
        self.rows_read = 0
        self.samples = 0
        self.turns = 0
        self.empty = 0
        self.malformed = 0
        self.malformed_examples: list[dict[str, Any]] = []
        self.anomalies: Counter[str] = Counter()
        self.anomaly_rows = 0
        self.anomaly_examples: list[dict[str, Any]] = []
        self.hashes = array("Q")
        self.hash_lines = array("q")  # row location codes, parallel to hashes (for duplicate examples)
        self.regenerated = 0
        self.status: Counter[str] = Counter()
        self.domains: Counter[str] = Counter({d: 0 for d in DOMAINS})
        self.reservoir: list[tuple[Any, int, str]] = []
        self.near_cap = near_dup_cap
        self.valid_seen = 0
        self.rng = random.Random(seed)
        # token side
        self.tokens = 0
        self.assistant = 0
        self.lengths: Counter[int] = Counter()
        self.over = 0
        self.zero_sup = 0
        self.with_offsets = 0
        self.per_row: list[tuple[int, int, int]] | None = None  # estimate mode: (tokens, assistant, over)

    def malformed_row(self, line: Any, reason: str, raw: Any) -> None:
        self.malformed += 1
        if len(self.malformed_examples) < _EXAMPLES:
            snippet = (
                raw.decode("utf-8", "replace")
                if isinstance(raw, bytes)
                else (raw if isinstance(raw, str) else json.dumps(raw, default=str)[:400])
            )
            self.malformed_examples.append({"line": line, "reason": reason, "row": snippet.strip()[:200]})


def _parse(raw: Any, load: Callable[[Any], Any] | None = None) -> Any:
    if isinstance(raw, (bytes, str)):
        return (load or limits.json_loader("a row"))(raw)
    return raw


def _reader(
    source_rows: Iterator[tuple[int, Any]],
    fmt: str,
    bundle: TokenizerBundle,
    stats: _Stats,
    out: queue.Queue[Any],
    stop: threading.Event,
) -> None:
    """Parse, normalise, check and render rows; hand ~2K-text batches to the tokenising thread."""
    try:
        load = limits.json_loader("a row")  # the depth cap read once, not per row
        pending: list[tuple[Any, Any]] = []
        it = iter(source_rows)
        if fmt == "auto":
            parsed_sample: list[Any] = []
            for line, raw in it:
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
                    f"conversations, messages, text or prompt/response; pass --format"
                )
            fmt = detected
        out.put(("format", fmt))

        def rows() -> Iterator[tuple[Any, Any]]:
            yield from pending
            yield from it

        batch: list[Prepared] = []
        n_texts = 0
        for line, raw in rows():
            if stop.is_set():
                return
            stats.rows_read += 1
            try:
                row = _parse(raw, load)
            except ValueError as exc:
                stats.malformed_row(line, f"invalid JSON: {exc}", raw)
                continue
            try:
                conv = conv_mod.normalize(row, fmt)
            except conv_mod.RowError as exc:
                stats.malformed_row(line, str(exc), raw)
                continue
            if conv_mod.is_empty(conv):
                stats.empty += 1
                if len(stats.malformed_examples) < _EXAMPLES:
                    stats.malformed_examples.append({"line": line, "reason": "empty conversation", "row": ""})
                continue
            if conv.pretemplated:
                kept, anomalies = conv.turns, list(conv.anomalies)
            else:
                kept, anomalies = conv_mod.trainable_turns(conv.turns)
                anomalies = conv.anomalies + anomalies
            try:
                prepared = prepare(bundle, conv, kept)
            except limits.LimitError:
                raise  # a template over its time/size budget fails every row alike: stop with the cap's message
            except DataError as exc:
                stats.malformed_row(line, str(exc), raw)
                continue
            # Row-level checks (reader thread only).
            stats.samples += 1
            stats.turns += len(conv.turns)
            if anomalies:
                stats.anomaly_rows += 1
                stats.anomalies.update(set(anomalies))
                if len(stats.anomaly_examples) < _EXAMPLES:
                    stats.anomaly_examples.append(
                        {"line": line, "anomalies": sorted(set(anomalies)), "roles": [r for r, _ in conv.turns][:12]}
                    )
            canon = conv_mod.joined_text(conv.turns)
            h = int.from_bytes(
                hashlib.blake2b(canon.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little"
            )
            stats.hashes.append(h)
            stats.hash_lines.append(line)
            content = "\n".join(c for _r, c in conv.turns)
            stats.domains[domain_of(content)] += 1
            if conv.regenerated:
                stats.regenerated += 1
            if conv.status:
                stats.status[conv.status] += 1
            # Near-duplicate reservoir (Algorithm R over valid rows).
            stats.valid_seen += 1
            if len(stats.reservoir) < stats.near_cap:
                stats.reservoir.append((line, h, content[:_NEAR_DUP_CHARS]))
            else:
                j = stats.rng.randrange(stats.valid_seen)
                if j < stats.near_cap:
                    stats.reservoir[j] = (line, h, content[:_NEAR_DUP_CHARS])
            batch.append(prepared)
            n_texts += len(prepared.segments) if prepared.segments is not None else 4
            if n_texts >= CHUNK_TEXTS:
                out.put(("batch", batch))
                batch, n_texts = [], 0
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


def _near_duplicates(stats: _Stats, threshold: float = 0.8, num_perm: int = 64) -> tuple[int, list[dict[str, Any]]]:
    """Rows in the reservoir whose word-3-gram Jaccard with an earlier row is >= threshold (MinHash LSH)."""
    import numpy as np
    from datasketch import LeanMinHash, MinHashLSH

    if len(stats.reservoir) < 2:
        return 0, []
    gen = np.random.RandomState(1)
    a = gen.randint(1, 1 << 62, size=num_perm, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    b = gen.randint(0, 1 << 62, size=num_perm, dtype=np.uint64)
    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    found = 0
    examples: list[dict[str, Any]] = []
    items = sorted(stats.reservoir, key=lambda r: r[0])
    meta: dict[int, tuple[Any, int]] = {}
    for key, (line, h, text) in enumerate(items):
        m = LeanMinHash(seed=1, hashvalues=_signature(text, a, b), scheme="legacy")
        hits = [k for k in lsh.query(m) if meta[k][1] != h]
        if hits:
            found += 1
            if len(examples) < _EXAMPLES:
                examples.append({"line": line, "similar_to": meta[min(hits)][0]})
        lsh.insert(key, m)
        meta[key] = (line, h)
    return found, examples


def _duplicates(stats: _Stats) -> tuple[int, list[dict[str, Any]]]:
    import numpy as np

    if not len(stats.hashes):
        return 0, []
    arr = np.frombuffer(stats.hashes, dtype=np.uint64)
    _uniq, first, counts = np.unique(arr, return_index=True, return_counts=True)
    dups = int(len(arr) - len(first))
    examples: list[dict[str, Any]] = []
    if dups:
        first_set = set(first.tolist())
        seen_first = {int(arr[i]): stats.hash_lines[i] for i in first.tolist()}
        for i in range(len(arr)):
            if i not in first_set:
                examples.append({"line": stats.hash_lines[i], "same_as": seen_first[int(arr[i])]})
                if len(examples) >= _EXAMPLES:
                    break
    return dups, examples


def _estimate(values: Sequence[float], population: int) -> dict[str, float]:
    """Population total from a simple random sample, with a 95% normal interval (with fpc)."""
    n = len(values)
    if n == 0:
        return {"value": 0.0, "low": 0.0, "high": 0.0, "se": 0.0}
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    fpc = max(0.0, (population - n) / (population - 1)) if population > 1 else 0.0
    se = population * math.sqrt(var / n * fpc)
    total = population * mean
    return {"value": total, "low": total - 1.96 * se, "high": total + 1.96 * se, "se": se}


def _reservoir(rows: Iterator[tuple[int, Any]], n: int, seed: int) -> tuple[list[tuple[int, Any]], int]:
    rng = random.Random(seed)
    sample: list[tuple[int, Any]] = []
    seen = 0
    for item in rows:
        seen += 1
        if len(sample) < n:
            sample.append(item)
        else:
            j = rng.randrange(seen)
            if j < n:
                sample[j] = item
    sample.sort(key=lambda it: it[0])
    return sample, seen


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
) -> AuditResult:
    """Scan a dataset (or a random sample of ``sample`` rows) and report what training will see."""
    if max_length is None or int(max_length) < 1:
        raise InputError("max_length must be a positive number of tokens")
    if sample is not None and int(sample) < 1:
        raise InputError("--sample must be a positive number of rows")
    fmt = conv_mod.check_format(fmt or "auto")
    src = source if isinstance(source, Source) else open_source(str(source), config=config, split=split)
    bundle = tokenizer if isinstance(tokenizer, TokenizerBundle) else load_tokenizer(tokenizer)
    t0 = time.perf_counter()
    stats = _Stats(near_dup_cap, seed)
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
            picked, population = _reservoir(src.iterate(), int(sample), seed)
            rows_iter = iter(picked)
        stats.per_row = []
        total_hint = min(int(sample), population) if population is not None else int(sample)
    else:
        rows_iter = src.iterate()
    if max_rows is not None:
        import itertools

        rows_iter = itertools.islice(rows_iter, int(max_rows))
    q: queue.Queue[Any] = queue.Queue(maxsize=_QUEUE_BATCHES)
    stop = threading.Event()
    reader = threading.Thread(
        target=_reader, args=(rows_iter, fmt, bundle, stats, q, stop), name="audit-reader", daemon=True
    )
    reader.start()
    detected = fmt
    max_len = int(max_length)
    last_report = [0.0]

    def absorb(items: list[Prepared], counts: list[tuple[int, int]]) -> None:
        lengths = stats.lengths
        for prepared, (n_tok, n_sup) in zip(items, counts, strict=False):
            stats.tokens += n_tok
            stats.assistant += n_sup
            lengths[n_tok] += 1
            over = n_tok > max_len
            if over:
                stats.over += 1
            if n_sup == 0:
                stats.zero_sup += 1
            if prepared.segments is None:
                stats.with_offsets += 1
            if stats.per_row is not None:
                stats.per_row.append((n_tok, n_sup, int(over)))
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
    if stats.rows_read == 0 and stats.samples == 0:
        raise DataError(f"{src.name} has no rows")
    if stats.samples == 0 and stats.rows_read > 0 and stats.malformed == stats.rows_read:
        first = stats.malformed_examples[0] if stats.malformed_examples else {"line": "?", "reason": "?"}
        raise DataError(
            f"no row of {src.name} could be used as {detected} data (row {src.locate(first['line'])}: "
            f"{first['reason']}); check the file or pass the right --format"
        )
    if progress is not None:
        progress(stats.rows_read, stats.rows_read / max(1e-9, time.perf_counter() - t0), 0.0)
    dups, dup_examples = _duplicates(stats)
    near, near_examples = _near_duplicates(stats)
    if stats.valid_seen > stats.near_cap:
        notes.append(
            f"near duplicates checked on a random reservoir of {stats.near_cap:,} of "
            f"{stats.valid_seen:,} rows: a lower bound for the whole set"
        )
    if bundle.tokenizer is None:
        notes.append("no tokenizer given: token counts are estimates (UTF-8 bytes / 4), not the target's tokens")
    if bundle.template.is_fallback and detected != "text":
        notes.append("no chat template found: conversations rendered with a plain ChatML template")
    if bundle.shape is None:
        notes.append("the chat template's assistant framing could not be probed; spans found by prefix rendering")
    tokens, assistant, samples, over = stats.tokens, stats.assistant, stats.samples, stats.over
    estimate: dict[str, dict[str, float]] | None = None
    if sample is not None and population is not None and stats.per_row is not None:
        n = stats.rows_read
        rows = stats.per_row + [(0, 0, 0)] * max(0, n - len(stats.per_row))  # unusable rows count as zero
        estimate = {
            "tokens": _estimate([r[0] for r in rows], population),
            "assistant_tokens": _estimate([r[1] for r in rows], population),
            "samples": _estimate([1.0] * len(stats.per_row) + [0.0] * (n - len(stats.per_row)), population),
            "over_max_length": _estimate([r[2] for r in rows], population),
        }
        tokens = round(estimate["tokens"]["value"])
        assistant = round(estimate["assistant_tokens"]["value"])
        samples = round(estimate["samples"]["value"])
        over = round(estimate["over_max_length"]["value"])
        notes.append(
            f"estimate from a random sample of {n:,} of {population:,} rows (seed {seed}); "
            f"duplicates, anomalies and malformed counts are for the sample only"
        )
    for examples in (stats.malformed_examples, stats.anomaly_examples, dup_examples, near_examples):
        for ex in examples:
            for key in ("line", "same_as", "similar_to"):
                if key in ex:
                    ex[key] = src.locate(ex[key])
    label = conv_mod.FORMAT_LABELS.get(detected, detected)
    return AuditResult(
        source=src.name,
        format=detected,
        format_label=label,
        tokenizer=bundle.name,
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
        duplicates=dups,
        duplicate_examples=dup_examples,
        near_duplicates=near,
        near_duplicates_checked=len(stats.reservoir),
        near_duplicate_examples=near_examples,
        regenerated=stats.regenerated,
        original=stats.samples - stats.regenerated,
        regeneration_status=dict(stats.status),
        domains=dict(stats.domains),
        zero_supervised=stats.zero_sup,
        rows_with_offsets=stats.with_offsets,
        estimated=estimate is not None,
        estimate=estimate,
        population=population,
        hub_rows=src.hub_rows,
        hub_rows_note=src.hub_rows_note,
        elapsed_s=round(time.perf_counter() - t0, 3),
        notes=notes,
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
