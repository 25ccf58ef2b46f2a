"""Hub datasets: row counts from the card and Parquet footers, and the rule that data stays on the Hub.

The audit reads training data from Hub datasets through ``datasets``/``HfFileSystem``; this module
answers what can be known without downloading data (rows per split) and refuses cards whose files
live anywhere but the Hub endpoint. Client, token and error mapping are the model fetch's
(``comparelib.models.hub``), so both sides behave the same offline, gated or mirrored.
"""

from __future__ import annotations

import contextvars
import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from comparelib import limits, redact, settings
from comparelib.errors import CompareError, DataError, EntryNotFoundError, InputError, OfflineError
from comparelib.models import hub


def _rows_from_card(card: dict[str, Any] | None) -> dict[str, dict[str, int]] | None:
    info = (card or {}).get("dataset_info")
    if info is None:
        return None
    entries = info if isinstance(info, list) else [info]
    rows: dict[str, dict[str, int]] = {}
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        config = str(entry.get("config_name") or "default")
        for split in entry.get("splits") or []:
            if isinstance(split, dict) and isinstance(split.get("num_examples"), int) and split.get("name"):
                rows.setdefault(config, {})[str(split["name"])] = int(split["num_examples"])
    return rows or None


def _card_from_readme(path: Path) -> dict[str, Any] | None:
    from huggingface_hub.repocard import metadata_load

    try:
        return metadata_load(path)
    except Exception:  # noqa: BLE001 - a broken YAML block just means "unknown"
        return None


def _dataset_card(repo_id: str, revision: str | None) -> dict[str, Any] | None:
    """The dataset card's YAML: from the API, else the cached README (offline or unreachable); None if neither."""
    hub.check_repo_id(repo_id, repo_id)
    if not settings.hf_offline():
        try:
            info = hub.api_client().dataset_info(
                repo_id, revision=revision, expand=["cardData"], token=hub.auth_token()
            )
        except Exception as exc:  # noqa: BLE001
            if not hub.is_transport_error(exc):
                raise hub.map_error(
                    exc, repo_id=repo_id, revision=revision, filename="README.md", repo_type="dataset"
                ) from None
        else:
            hub.note_reader(repo_id, "dataset", public=info.private is False and not info.gated)
            return info.card_data.to_dict() if info.card_data is not None else None
    try:
        path = hub.download(repo_id, "README.md", revision=revision, repo_type="dataset", local_only=True)
    except (EntryNotFoundError, OfflineError):
        return None
    if path.stat().st_size > limits.CONFIG_BYTES.value():
        return None  # a card too big to read is a card that does not say
    return _card_from_readme(path)


def dataset_info_rows(repo_id: str, revision: str | None = None) -> dict[str, dict[str, int]] | None:
    """Rows per config and split as the dataset card's ``dataset_info`` states them; None if it does not say."""
    return _rows_from_card(_dataset_card(repo_id, revision))


PARQUET_EXPORT_REVISION = "refs/convert/parquet"
"""Where the Hub keeps its automatic Parquet conversion of a dataset (one folder per config)."""

_SPLIT_ALIASES = {
    "train": "train",
    "training": "train",
    "validation": "validation",
    "valid": "validation",
    "val": "validation",
    "dev": "validation",
    "test": "test",
    "testing": "test",
    "eval": "test",
    "evaluation": "test",
}
_FOOTER_BLOCK = 64 * 1024  # pyarrow asks for the last 64 KiB first; a larger block would fetch data pages


def parquet_split_of(path: str) -> str:
    """The split a data file belongs to, by the naming rules ``datasets`` applies to data-files-only repos.

    ``train-00000-of-00001.parquet``, ``data/train/x.parquet``, ``test.parquet``, ``data/dev-0.parquet``
    (dev/val/valid -> validation, eval/testing -> test); a file naming no split is ``train``, as in
    ``datasets``.
    """
    parts = path.split("/")
    stem = parts[-1].rsplit(".", 1)[0]
    candidates = [*re.split(r"[-_. ]", stem), *parts[:-1]]
    for word in candidates:
        if word.lower() in _SPLIT_ALIASES:
            return _SPLIT_ALIASES[word.lower()]
    return "train"


def _export_split_of(path: str, config: str | None) -> str | None:
    """``{config}/{split}/0000.parquet`` (or ``partial-{split}``) in the Parquet export; None if another config."""
    parts = path.split("/")
    if len(parts) < 3 or (parts[0] != (config or "default")):
        return None
    split = parts[1]
    return split[len("partial-") :] if split.startswith("partial-") else split


def _parquet_listing(repo_id: str, revision: str | None) -> list[tuple[str, int]]:
    """(path, size) of every .parquet file at ``revision``; [] when that revision does not exist."""
    from huggingface_hub import errors as hf

    try:
        entries = list(
            hub.api_client().list_repo_tree(
                repo_id, repo_type="dataset", revision=revision, recursive=True, token=hub.auth_token()
            )
        )
    except hf.RevisionNotFoundError:
        if revision == PARQUET_EXPORT_REVISION:
            return []
        raise
    return sorted(
        (e.path, int(e.size)) for e in entries if getattr(e, "size", None) is not None and e.path.endswith(".parquet")
    )


def _footer_rows(fs: Any, repo_id: str, revision: str | None, path: str) -> int:
    """Rows in one Parquet file from its footer alone (range requests through HfFileSystem)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    with fs.open(
        f"datasets/{repo_id}/{path}", "rb", revision=revision, block_size=_FOOTER_BLOCK, cache_type="readahead"
    ) as fh:
        try:
            return int(pq.ParquetFile(fh).metadata.num_rows)
        except pa.ArrowException as exc:
            raise DataError(f"{path} in dataset {repo_id} is not a readable Parquet file ({exc})") from None


def parquet_rows(
    repo_id: str, *, revision: str | None = None, split: str | None = None, config: str | None = None
) -> dict[str, int] | None:
    """Rows per split summed from Parquet footers, without downloading data; None if the Hub cannot tell.

    The repo's own ``.parquet`` data files count first; a repo without any falls back to the Hub's
    ``refs/convert/parquet`` export (only for the default branch, which is what the export converts).
    ``config`` picks a folder of that name (in the export, ``default`` if not given). None when neither
    has Parquet files, when offline, or when ``split`` has none.
    """
    hub.check_repo_id(repo_id, repo_id)
    if settings.hf_offline():
        return None
    try:
        files = _parquet_listing(repo_id, revision)
        by_split: dict[str, list[str]] = {}
        use_rev = revision
        if config not in (None, "default"):  # a named config's files sit under a folder of that name
            files = [(p, n) for p, n in files if config in p.split("/")[:-1]]
        for path, _size in files:
            by_split.setdefault(parquet_split_of(path), []).append(path)
        if not files and revision is None:
            use_rev = PARQUET_EXPORT_REVISION
            for path, _size in _parquet_listing(repo_id, PARQUET_EXPORT_REVISION):
                name = _export_split_of(path, config)
                if name is not None:
                    by_split.setdefault(name, []).append(path)
        if split is not None:
            by_split = {split: by_split[split]} if split in by_split else {}
        if not by_split:
            return None
        from huggingface_hub import HfFileSystem

        # endpoint and token passed explicitly (huggingface_hub froze its environment at import); the
        # token travels in the Authorization header only. No instance cache: listings are per call.
        fs = HfFileSystem(endpoint=settings.hf_endpoint(), token=hub.auth_token(), skip_instance_cache=True)
        jobs = [(name, path) for name, names in by_split.items() for path in names]
        with ThreadPoolExecutor(max_workers=min(8, len(jobs))) as pool:
            ctx = contextvars.copy_context()
            counts = list(pool.map(lambda job: ctx.copy().run(_footer_rows, fs, repo_id, use_rev, job[1]), jobs))
    except CompareError:
        raise
    except Exception as exc:  # noqa: BLE001 - huggingface_hub/pyarrow failures become ours
        raise hub.map_error(
            exc, repo_id=repo_id, revision=revision, filename="Parquet footers", repo_type="dataset"
        ) from None
    rows: dict[str, int] = {}
    for (name, _path), n in zip(jobs, counts, strict=False):
        rows[name] = rows.get(name, 0) + n
    return rows


# --------------------------------------------------------------------------------------------------
# datasets: only the Hub, nothing else


def quiet_datasets() -> None:
    """No telemetry or third-party request from ``datasets``/``huggingface_hub``.

    datasets 5.2 sends a HEAD to s3.amazonaws.com for every Hub dataset it loads
    (datasets/load.py, increase_load_count, unless config.HF_UPDATE_DOWNLOAD_COUNTS is false), and a
    GET to datasets-server.<endpoint host> (below);
    huggingface_hub's send_telemetry is off with HF_HUB_DISABLE_TELEMETRY. Both are module
    constants read at import, so they are set here as well as in the environment.
    """
    os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"
    os.environ["HF_UPDATE_DOWNLOAD_COUNTS"] = "false"
    from huggingface_hub import constants as hf_constants

    hf_constants.HF_HUB_DISABLE_TELEMETRY = True
    import datasets.config as ds_config

    ds_config.HF_UPDATE_DOWNLOAD_COUNTS = False
    # datasets/load.py (HubDatasetModuleFactory.get_module) also asks the dataset viewer at
    # "datasets-server." + the endpoint's host (utils/_dataset_viewer.py) for exported infos: another
    # host than the endpoint (a mirror's or a local one's would be anybody's). The audit reads the card
    # and the files itself, so that call is switched off.
    ds_config.USE_PARQUET_EXPORT = False


def _hub_url(value: str) -> bool:
    """Whether a data_files entry names a file on the Hub: a repo-relative path/glob, hf://, or the endpoint."""
    text = value.strip()
    if text.startswith("hf://"):
        return "::" not in text
    if "://" in text or text.startswith(("//", "\\\\")) or "::" in text:
        host, port, _scheme = hub.endpoint_parts()
        parts = urlsplit(text)
        try:
            their_port = parts.port
        except ValueError:
            return False
        return (
            parts.scheme in ("http", "https")
            and hub.bare_host(parts.hostname or "") == hub.bare_host(host)
            and their_port == port
        )
    return not (text.startswith(("/", "~")) or (len(text) > 1 and text[1] == ":"))  # not an absolute local path


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def check_data_files(card: dict[str, Any] | None, shown: str) -> None:
    """Refuse a dataset card whose configs point data_files/data_dir anywhere but this Hub."""
    configs = (card or {}).get("configs")
    entries: list[str] = []
    for cfg in configs if isinstance(configs, list) else []:
        if isinstance(cfg, dict):
            entries += _strings(cfg.get("data_files")) + _strings(cfg.get("data_dir"))
    entries += _strings((card or {}).get("data_files"))
    for entry in entries:
        if not _hub_url(entry):
            raise InputError(
                f"{shown}: its dataset card points data_files at {redact.mask_url(entry)[:200]!r}, which is "
                f"not a file on {hub.endpoint_host()}; only files on the Hub endpoint are read, so nothing "
                "was fetched"
            )


def check_data_file_urls(repo_id: str, urls: list[str]) -> None:
    """Second check, on the files ``datasets`` resolved: every one must be on the Hub (hf:// or the endpoint)."""
    for url in urls:
        if not _hub_url(url) or not url.startswith(("hf://", settings.hf_endpoint())):
            raise InputError(
                f"dataset {repo_id} resolves a data file at {redact.mask_url(url)[:200]!r}, which is not "
                f"on {hub.endpoint_host()}; only files on the Hub endpoint are read"
            )


def check_dataset_card(repo_id: str, revision: str | None = None) -> None:
    """Read the dataset card (API, or the cached README offline) and refuse non-Hub data_files."""
    check_data_files(_dataset_card(repo_id, revision), f"dataset {repo_id}")
