"""Where audited rows come from: local files and folders, and Hub datasets read by streaming.

A ``Source`` yields ``(location code, raw row)`` pairs and knows what it can about its size (rows
from Parquet/Arrow metadata or the Hub's card, bytes read so far for progress). Every read is
bounded: lines by SPECDRAFT_MAX_ROW_BYTES, whole JSON documents by SPECDRAFT_MAX_DOCUMENT_BYTES,
compressed files by a decompression guard, Parquet row groups checked from the footer first.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from comparelib import limits, paths, redact
from comparelib.errors import CompareError, DataError, HubError, InputError

FILE_EXTENSIONS = (".jsonl", ".json", ".parquet", ".arrow", ".jsonl.gz", ".jsonl.bz2", ".jsonl.xz", ".jsonl.zst")
SourceKind = Literal["local", "hub", "remote"]
# Object stores and other filesystems pyarrow reads (credentials from the usual environment of each node).
REMOTE_SCHEMES = ("s3://", "gs://", "gcs://", "file://")


@dataclass
class Source:
    """Rows from files or a Hub dataset, with progress information where it can be known."""

    name: str
    iterate: Callable[[], Iterator[tuple[int, Any]]]
    total_rows: int | None = None
    total_bytes: int = 0
    hub_rows: int | None = None
    hub_rows_note: str | None = None
    kind: SourceKind = "local"
    sample_hub: Callable[[int, int], Iterator[tuple[int, Any]]] | None = None
    locate: Callable[[int], Any] = lambda code: code
    files: list[str] = field(default_factory=list)  # local paths or remote URIs, in the order rows are read
    refused: list[tuple[str, str]] = field(default_factory=list)  # (file, why): members never read (lenient)
    _bytes_done: list[int] = field(default_factory=lambda: [0])

    def fraction(self) -> float | None:
        if self.total_bytes > 0:
            return min(1.0, self._bytes_done[0] / self.total_bytes)
        return None


def _files_in(path: Path, refused: list[tuple[str, str]] | None = None) -> list[Path]:
    """The data files under ``path``, each through ``paths.member``; a member that leads out of the data root
    stops the listing, or with ``refused`` given is set aside there (never read) and the rest is listed."""
    if path.is_file():
        return [path]
    files = []
    for p in sorted(path.rglob("*")):
        if not (p.is_file() and p.name.endswith(FILE_EXTENSIONS)) or paths.in_uploads(p):
            continue  # a typed folder never reads the uploads folder (its result is shared between sessions)
        try:
            files.append(paths.member(p, "dataset file"))
        except InputError as exc:
            if refused is None:
                raise
            refused.append((str(p.relative_to(path)), str(exc)))
    files.sort()
    if not files and not refused:
        raise InputError(f"{path} holds no .jsonl, .json, .parquet or .arrow files")
    return files


def _first_line_is_object(path: Path) -> bool:
    with open(path, "rb") as fh:
        try:
            for line in limits.iter_lines(fh, path.name):
                if line.strip():
                    try:
                        first = limits.loads(line, f"{path.name} line 1")
                    except ValueError:
                        return False
                    # {"data": [...]} written on one line is a whole document holding its rows, not a JSONL row
                    return isinstance(first, dict) and not any(
                        isinstance(first.get(k), list) for k in ("data", "train", "rows")
                    )
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


def _local_source(path: Path, lenient: bool = False) -> Source:
    refused: list[tuple[str, str]] = []
    files = _files_in(path, refused if lenient else None)
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
            yield from file_rows(f, k, counter)

    def locate(code: int) -> Any:
        if not multi:
            return code
        k, line = divmod(int(code), _FILE_STRIDE)
        return f"{files[k].relative_to(path)}:{line}"

    src = Source(
        name=str(path),
        iterate=iterate,
        total_rows=total_rows or None,
        total_bytes=total_bytes,
        locate=locate,
        files=[str(f) for f in files],
        refused=refused,
    )
    src._bytes_done = counter
    return src


_FILE_STRIDE = 1 << 40


def file_rows(file: str | Path, k: int, counter: list[int] | None = None) -> Iterator[tuple[int, Any]]:
    """Rows of the ``k``-th file of a source (local path or remote URI), with the source's location codes."""
    counter = counter if counter is not None else [0]
    if str(file).startswith(REMOTE_SCHEMES):
        fs, where = _remote_fs(str(file))
        name = where.rsplit("/", 1)[-1]
        remote = _hub_parquet_rows(fs, where, name) if name.endswith(".parquet") else _hub_json_rows(fs, where, name)
        for line, row in remote:
            yield k * _FILE_STRIDE + line, row
        return
    path = paths.resolve_user_path(file, "dataset file")  # a link inside the folder may lead out of the data root
    rows = _table_rows(path, counter) if path.suffix in (".parquet", ".arrow") else _json_rows(path, counter)
    for line, row in rows:
        yield k * _FILE_STRIDE + line, row


class _ArrowFiles:
    """A pyarrow filesystem with the two calls the bounded remote readers make (``open``, ``size``)."""

    def __init__(self, fs: Any) -> None:
        self.fs = fs

    def open(self, path: str, mode: str = "rb", block_size: int = 0) -> Any:
        return self.fs.open_input_file(path)

    def size(self, path: str) -> int:
        return int(self.fs.get_file_info(path).size or 0)


def _remote_fs(uri: str) -> tuple[_ArrowFiles, str]:
    """The pyarrow filesystem for ``uri`` and the path in it; refused while a data root confines paths."""
    import pyarrow as pa
    import pyarrow.fs as pafs

    if paths.is_confined():
        raise InputError(
            f"{uri.split('://', 1)[0]}:// URIs are not read on this server (SPECDRAFT_DATA_ROOT confines reads "
            "to its folder); copy the data under it"
        )
    try:
        fs, where = pafs.FileSystem.from_uri(uri)
    except (pa.ArrowException, ValueError, OSError) as exc:
        raise InputError(f"cannot open {uri}: {' '.join(str(exc).split())[:300]}") from None
    return _ArrowFiles(fs), where


def _remote_source(uri: str) -> Source:
    """Files under a remote URI (s3://, gs://, file://) read through pyarrow's filesystems, with the caps."""
    import pyarrow as pa
    import pyarrow.fs as pafs

    files_fs, where = _remote_fs(uri)
    fs = files_fs.fs
    try:
        info = fs.get_file_info(where)
        if info.type == pafs.FileType.NotFound:
            raise InputError(f"{uri}: no such file or folder")
        if info.type == pafs.FileType.File:
            found = [where]
        else:
            listed = fs.get_file_info(pafs.FileSelector(where, recursive=True))
            found = sorted(
                i.path
                for i in listed
                if i.type == pafs.FileType.File and i.path.endswith(FILE_EXTENSIONS) and not i.path.endswith(".arrow")
            )
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"cannot list {uri}: {' '.join(str(exc).split())[:300]}") from None
    if not found:
        raise InputError(f"{uri} holds no .jsonl, .json or .parquet files (.arrow is read from local paths only)")
    scheme = uri.split("://", 1)[0] + "://"
    files = [scheme + f for f in found]
    base = where.rstrip("/") + "/"

    def iterate() -> Iterator[tuple[int, Any]]:
        for k, f in enumerate(files):
            yield from file_rows(f, k)

    def locate(code: int) -> Any:
        if len(files) == 1:
            return code
        k, line = divmod(int(code), _FILE_STRIDE)
        return f"{found[k].removeprefix(base)}:{line}"

    return Source(name=uri, iterate=iterate, kind="remote", locate=locate, files=files)


def _looks_like_hub(text: str) -> bool:
    if text.lower().endswith(FILE_EXTENSIONS + (".gz", ".csv", ".txt")):
        return False  # a mistyped local file, not a repo id
    return text.startswith(("http://", "https://", "hf://")) or bool(
        re.fullmatch(r"(?:datasets/)?[\w.\-]+/[\w.\-]+(?:@[\w.\-/]+)?", text)
    )


def open_source(ref: str, *, config: str | None = None, split: str | None = None, lenient: bool = False) -> Source:
    """A local file/folder, or a Hub dataset (``org/name`` or its URL) streamed with ``datasets``.

    ``lenient``: a folder member refused by the data root is listed in ``Source.refused`` instead of stopping
    (the Ray path reports it as a finding on that file)."""
    text = str(ref or "").strip().strip("\"'")
    if not text:
        raise InputError("no dataset given: a .jsonl/.json/.parquet/.arrow file, a folder, or a Hub dataset id")
    if text.startswith(REMOTE_SCHEMES):
        return _remote_source(text)
    try:
        path = paths.resolve_user_path(text, "dataset")
    except InputError:
        if _looks_like_hub(text) and not text.startswith(("/", ".", "~", "\\")):
            return _hub_source(text, config=config, split=split)
        raise
    if path.exists():
        return _local_source(path, lenient)
    if not _looks_like_hub(text):
        raise InputError(f"{text}: no such file or folder (and not a Hub dataset id like org/name)")
    return _hub_source(text, config=config, split=split)


def _parquet_count(
    repo_id: str, *, revision: str | None, config: str | None, split: str
) -> tuple[int | None, str | None]:
    """Rows of ``split`` from Parquet footers on the Hub, or (None, why the Hub cannot tell)."""
    from comparelib import settings
    from comparelib.audit import hubdata

    head = "the Hub does not say how many rows this split has (no dataset_info in the card"
    if settings.hf_offline():
        return None, f"{head}, and Parquet footers cannot be read offline); counted by reading"
    try:
        rows = hubdata.parquet_rows(repo_id, revision=revision, config=config)
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
    from comparelib import settings
    from comparelib.audit import hubdata
    from comparelib.models import hub

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
        rows = hubdata.dataset_info_rows(repo_id, revision=mref.revision)
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

    hubdata.check_dataset_card(repo_id, mref.revision)  # data_files on other hosts: refused before any data request
    json_files: list[str] = []
    kind: list[Literal["json", "parquet"]] = ["json"]  # the reader datasets chose for these files

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
        hubdata.quiet_datasets()
        token = settings.hf_token()
        try:
            # load_dataset(streaming=True) is exactly load_dataset_builder + as_streaming_dataset
            # (datasets/load.py, load_dataset); split in two so the resolved files are checked first.
            builder = datasets.load_dataset_builder(
                repo_id, config, revision=mref.revision, token=token or False
            )  # False: never a token stored on disk
            resolved = [str(f) for f in (builder.config.data_files or {}).get(split, [])]
            hubdata.check_data_file_urls(repo_id, resolved)
            if getattr(builder, "name", None) in ("json", "parquet") and resolved:
                # datasets' JSON reader appends f.readline() (unbounded) to each 10 MB chunk and lets
                # pyarrow grow its block for a long row: one 30 MB row costs GBs. Our bounded readers
                # stream the same files (range requests) with every cap; Parquet row groups are
                # checked against the row cap from the footer before they are decoded.
                json_files[:] = resolved
                kind[0] = "parquet" if builder.name == "parquet" else "json"
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
            info = hub.api_client().dataset_info(repo_id, revision=mref.revision, token=settings.hf_token() or False)
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
            path = hub.download_file(
                repo_id, name, revision=mref.revision, repo_type="dataset", cap=limits.HUB_DATA_FILE_BYTES
            )
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
            picked, _seen = reservoir(iterate(), n, seed)
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


def reservoir(rows: Iterator[tuple[int, Any]], n: int, seed: int) -> tuple[list[tuple[int, Any]], int]:
    """A seeded uniform sample of ``n`` rows (Algorithm R), in row order, and how many rows were seen."""
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
