"""Hub datasets audited through the real ``datasets`` streaming path (against the local Hub emulator),
and row counts the Hub can give without a download: card ``dataset_info`` or Parquet footers."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from comparelib.audit import hubdata, sources
from comparelib.audit import scan as audit
from comparelib.audit.result import AuditResult
from comparelib.errors import DataError, RepoNotFoundError
from tests.hub_emulator import HubEmulator
from tests.tokenizer_fixture import build_tokenizer

U, A = "user", "assistant"


def sf(i: int, turns: list) -> dict:
    return {"id": str(i), "conversations": [{"role": r, "content": c} for r, c in turns]}


TRAIN = [sf(i, [(U, f"question {i}"), (A, f"answer {i} " * (i + 1))]) for i in range(9)]
TEST = [sf(100 + i, [(U, f"test prompt {i}?"), (A, "short")]) for i in range(4)]


def jsonl(rows: list[dict]) -> bytes:
    return ("\n".join(json.dumps(r) for r in rows) + "\n").encode()


def parquet(rows: list[dict], row_group_size: int = 10_000) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows), buf, row_group_size=row_group_size)
    return buf.getvalue()


@pytest.fixture(scope="module")
def tok_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tokenizer(tmp_path_factory.mktemp("tok") / "chatml")


def local_audit(tmp_path: Path, rows: list[dict], tok_dir: Path) -> AuditResult:
    path = tmp_path / "local.jsonl"
    path.write_bytes(jsonl(rows))
    return audit.audit(str(path), tokenizer=str(tok_dir))


def streamed(hub: HubEmulator, repo_id: str) -> bool:
    """True when ``datasets`` listed the repo (tree) and read files by range: its streaming path.

    The audit's fallback lists siblings through /api/datasets/{repo} and downloads whole files instead.
    """
    tree = [r for r in hub.requests if r.url_path.startswith(f"/api/datasets/{repo_id}/tree/") and r.status == 200]
    data = [
        r
        for r in hub.requests
        if r.method == "GET"
        and f"/datasets/{repo_id}/resolve/" in r.url_path
        and r.url_path.endswith((".jsonl", ".parquet"))
        and r.status in (200, 206)
    ]
    return bool(tree) and bool(data) and all(r.range is not None for r in data)


# (files in the repo, config, split, rows expected)
CASES = [
    ("jsonl", {"data/train.jsonl": jsonl(TRAIN), "data/test.jsonl": jsonl(TEST)}, None, "train", TRAIN),
    ("jsonl-test-split", {"data/train.jsonl": jsonl(TRAIN), "data/test.jsonl": jsonl(TEST)}, None, "test", TEST),
    (
        "parquet",
        {
            "data/train-00000-of-00002.parquet": parquet(TRAIN[:5]),
            "data/train-00001-of-00002.parquet": parquet(TRAIN[5:]),
        },
        None,
        "train",
        TRAIN,
    ),
    (
        "parquet-split-folders",
        {"train/0.parquet": parquet(TRAIN), "test/0.parquet": parquet(TEST)},
        None,
        "test",
        TEST,
    ),
]


@pytest.mark.parametrize(("name", "files", "config", "split", "rows"), CASES, ids=[c[0] for c in CASES])
def test_hub_dataset_streams_like_the_local_file(
    hub: HubEmulator,
    tmp_path: Path,
    tok_dir: Path,
    name: str,
    files: dict[str, bytes],
    config: str | None,
    split: str,
    rows: list[dict],
) -> None:
    hub.add_repo(f"acme/{name}", files, repo_type="dataset")
    local = local_audit(tmp_path, rows, tok_dir)
    res = audit.audit(f"acme/{name}", tokenizer=str(tok_dir), config=config, split=split)
    assert streamed(hub, f"acme/{name}"), [(r.method, r.url_path, r.range) for r in hub.requests]
    assert (res.samples, res.tokens, res.assistant_tokens) == (local.samples, local.tokens, local.assistant_tokens)
    assert res.samples == len(rows) and res.malformed == 0


CONFIG_CARD = b"""---
configs:
- config_name: chat
  data_files:
  - split: train
    path: chat/train.jsonl
  - split: test
    path: chat/test.jsonl
- config_name: extra
  data_files:
  - split: train
    path: extra/*.jsonl
---
# two configs
"""


@pytest.mark.parametrize(
    ("config", "split", "rows"),
    [
        ("chat", "train", TRAIN),
        ("chat", "test", TEST),
        ("extra", "train", TEST[:3]),
    ],
)
def test_config_and_split_selection(
    hub: HubEmulator, tmp_path: Path, tok_dir: Path, config: str, split: str, rows: list[dict]
) -> None:
    hub.add_repo(
        "acme/multi",
        {
            "README.md": CONFIG_CARD,
            "chat/train.jsonl": jsonl(TRAIN),
            "chat/test.jsonl": jsonl(TEST),
            "extra/part-0.jsonl": jsonl(TEST[:3]),
        },
        repo_type="dataset",
    )
    local = local_audit(tmp_path, rows, tok_dir)
    res = audit.audit("acme/multi", tokenizer=str(tok_dir), config=config, split=split)
    assert streamed(hub, "acme/multi")
    assert (res.samples, res.tokens, res.assistant_tokens) == (local.samples, local.tokens, local.assistant_tokens)
    assert f"({config}/{split})" in res.source


def test_undecodable_streamed_file_is_a_clear_error(hub: HubEmulator) -> None:
    # datasets 5.2 picks one builder for the whole repo from the first config's files (JSON here), so a
    # config of Parquet files is decoded as JSON: the audit must say so, not leak a pyarrow traceback.
    card = CONFIG_CARD.replace(b"extra/*.jsonl", b"extra/*.parquet")
    hub.add_repo(
        "acme/mixed",
        {
            "README.md": card,
            "chat/train.jsonl": jsonl(TRAIN),
            "chat/test.jsonl": jsonl(TEST),
            "extra/part-0.parquet": parquet(TEST[:3]),
        },
        repo_type="dataset",
    )
    with pytest.raises(DataError) as info:
        audit.audit("acme/mixed", config="extra", split="train")
    assert "acme/mixed" in str(info.value) and "config extra" in str(info.value)


def test_private_dataset_streams_with_the_token_in_headers_only(
    hub: HubEmulator, tmp_path: Path, tok_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub.add_repo("acme/private", {"data/train.jsonl": jsonl(TRAIN)}, repo_type="dataset", private=True)
    with pytest.raises(RepoNotFoundError):
        audit.audit("acme/private")
    monkeypatch.setenv("HF_TOKEN", hub.token)
    hub.clear_requests()
    res = audit.audit("acme/private", tokenizer=str(tok_dir))
    local = local_audit(tmp_path, TRAIN, tok_dir)
    assert streamed(hub, "acme/private")
    assert (res.samples, res.tokens) == (local.samples, local.tokens)
    assert all(r.authorized for r in hub.requests)
    assert all(hub.token not in r.path + r.query for r in hub.requests)


def test_estimate_mode_streams_a_sample(hub: HubEmulator, tok_dir: Path) -> None:
    hub.add_repo("acme/sampled", {"data/train.jsonl": jsonl(TRAIN)}, repo_type="dataset")
    res = audit.audit("acme/sampled", tokenizer=str(tok_dir), sample=4, seed=1)
    assert streamed(hub, "acme/sampled")
    assert res.rows_read == 4


# --- row counts without downloading ---------------------------------------------------------------

BIG = 50_000


@pytest.fixture(scope="module")
def big_parquet() -> bytes:
    # Incompressible-ish text so the data pages dwarf the footer.
    rows = [{"id": str(i), "text": f"row {i} " + format(i * 2654435761 % (1 << 64), "x") * 4} for i in range(BIG)]
    return parquet(rows)


def test_parquet_repo_without_card_counts_reads_only_footers(hub: HubEmulator, big_parquet: bytes) -> None:
    small = parquet(TEST)
    hub.add_repo(
        "acme/big",
        {
            "data/train-00000-of-00002.parquet": big_parquet,
            "data/train-00001-of-00002.parquet": big_parquet,
            "data/test-00000-of-00001.parquet": small,
        },
        repo_type="dataset",
    )
    src = sources.open_source("acme/big")
    assert src.hub_rows == 2 * BIG and src.total_rows == 2 * BIG and src.hub_rows_note is None
    served = hub.bytes_served(".parquet")
    total = 2 * len(big_parquet) + len(small)
    assert 0 < served < total / 10, (served, total)
    assert hub.file_size("acme/big", "data/train-00000-of-00002.parquet", repo_type="dataset") == len(big_parquet)
    # The listing went through the tree route and every .parquet read was a range request.
    assert any(r.url_path.startswith("/api/datasets/acme/big/tree/") for r in hub.requests)
    assert all(r.range for r in hub.requests if r.method == "GET" and r.url_path.endswith(".parquet"))
    assert hubdata.parquet_rows("acme/big") == {"train": 2 * BIG, "test": len(TEST)}
    assert hubdata.parquet_rows("acme/big", split="test") == {"test": len(TEST)}


def test_card_counts_win_over_parquet(hub: HubEmulator) -> None:
    card = b"---\ndataset_info:\n  splits:\n  - name: train\n    num_examples: 9\n---\n"
    hub.add_repo("acme/carded", {"README.md": card, "data/train.parquet": parquet(TRAIN)}, repo_type="dataset")
    src = sources.open_source("acme/carded")
    assert src.hub_rows == 9 and src.hub_rows_note is None
    assert hub.bytes_served(".parquet") == 0


def test_jsonl_only_repo_says_the_hub_cannot_tell(hub: HubEmulator) -> None:
    hub.add_repo("acme/plain", {"data/train.jsonl": jsonl(TRAIN)}, repo_type="dataset")
    src = sources.open_source("acme/plain")
    assert src.hub_rows is None
    note = src.hub_rows_note or ""
    assert "does not say how many rows" in note and "no Parquet files" in note
    assert hubdata.parquet_rows("acme/plain") is None


def test_split_without_parquet_file_names_the_splits_found(hub: HubEmulator) -> None:
    hub.add_repo("acme/trainonly", {"train.parquet": parquet(TRAIN)}, repo_type="dataset")
    src = sources.open_source("acme/trainonly", split="test")
    assert src.hub_rows is None and "split 'test'" in (src.hub_rows_note or "") and "train" in src.hub_rows_note


def test_unreadable_parquet_footer_gives_the_reason(hub: HubEmulator) -> None:
    hub.add_repo("acme/broken", {"data/train.parquet": b"not a parquet file at all"}, repo_type="dataset")
    src = sources.open_source("acme/broken")
    assert src.hub_rows is None
    note = src.hub_rows_note or ""
    assert "Parquet footers could not be read" in note and "data/train.parquet" in note and "not a readable" in note


def test_parquet_export_revision_counts_when_the_repo_has_none(hub: HubEmulator) -> None:
    hub.add_repo("acme/converted", {"data/train.jsonl": jsonl(TRAIN)}, repo_type="dataset")
    hub.add_repo(
        "acme/converted",
        {
            "default/train/0000.parquet": parquet(TRAIN),
            "default/partial-test/0000.parquet": parquet(TEST),
            "other/train/0000.parquet": parquet(TEST[:2]),
        },
        repo_type="dataset",
        revision="refs/convert/parquet",
    )
    assert hubdata.parquet_rows("acme/converted") == {"train": len(TRAIN), "test": len(TEST)}
    assert hubdata.parquet_rows("acme/converted", config="other") == {"train": 2}
    assert sources.open_source("acme/converted").hub_rows == len(TRAIN)


def test_private_repo_footers_use_the_token_in_headers_only(hub: HubEmulator, monkeypatch: pytest.MonkeyPatch) -> None:
    hub.add_repo("acme/secret", {"data/train.parquet": parquet(TRAIN)}, repo_type="dataset", private=True)
    with pytest.raises(RepoNotFoundError):
        hubdata.parquet_rows("acme/secret")
    monkeypatch.setenv("HF_TOKEN", hub.token)
    assert hubdata.parquet_rows("acme/secret") == {"train": len(TRAIN)}
    assert all(hub.token not in r.path + r.query for r in hub.requests)
    assert any(r.authorized for r in hub.requests if r.url_path.endswith(".parquet"))


def test_offline_parquet_rows_is_unknown(hub: HubEmulator, monkeypatch: pytest.MonkeyPatch) -> None:
    hub.add_repo("acme/off", {"data/train.parquet": parquet(TRAIN)}, repo_type="dataset")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert hubdata.parquet_rows("acme/off") is None
    assert not hub.requests


SPLIT_NAMES = [
    ("train-00000-of-00001.parquet", "train"),
    ("data/train-00003-of-00010-a1b2c3.parquet", "train"),
    ("data/test-00000-of-00001.parquet", "test"),
    ("data/validation/part.parquet", "validation"),
    ("dev.parquet", "validation"),
    ("val/0.parquet", "validation"),
    ("eval_set/data.parquet", "train"),
    ("evaluation.parquet", "test"),
    ("data/0000.parquet", "train"),
    ("trainer/x.parquet", "train"),
    ("contest/x.parquet", "train"),
]


@pytest.mark.parametrize(("path", "split"), SPLIT_NAMES)
def test_parquet_split_of(path: str, split: str) -> None:
    assert hubdata.parquet_split_of(path) == split
