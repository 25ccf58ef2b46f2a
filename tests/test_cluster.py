"""The Ray Data audits give the single-process audits' numbers, and bad files become findings.

One local cluster (2 CPUs) serves the whole module; every test runs one or two short pipelines.
Skipped when Ray is not installed (tests/run.sh installs requirements-ray.txt under CI or
SPECDRAFT_TEST_RAY=1).
"""

from __future__ import annotations

import gzip
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray")

import torch  # noqa: E402

from comparelib.audit import cluster, dumps  # noqa: E402
from comparelib.audit import scan as audit  # noqa: E402
from comparelib.errors import DataError, OutsideDataRootError  # noqa: E402
from tests import dump_fixtures as fx  # noqa: E402
from tests.fixtures import cli_in_process  # noqa: E402
from tests.test_audit import TRICKY, sf, write_jsonl  # noqa: E402
from tests.tokenizer_fixture import build_tokenizer  # noqa: E402

N = fx.N_LAYERS
RUNTIME_ONLY = {"elapsed_s", "runner"}  # the only fields allowed to differ between the two paths


@pytest.fixture(scope="module", autouse=True)
def local_cluster() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def tok_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tokenizer(tmp_path_factory.mktemp("tok") / "chatml")


def _rows(start: int, n: int) -> list[Any]:
    out: list[Any] = []
    for i in range(start, start + n):
        turns = TRICKY[i % len(TRICKY)]
        if i % 7 == 0:
            turns = turns + [("user", f"follow-up {i} " * (i % 11)), ("assistant", f"reply {i} " * (i % 13 + 1))]
        out.append(sf(i, turns))
    return out


def _dataset(root: Path) -> Path:
    """JSONL, gzipped JSONL and Parquet shards of one SpecForge-format set, with duplicates and bad rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    root.mkdir()
    first = _rows(0, 60)
    long = " ".join(f"w{j % 37} tok{j}" for j in range(120))
    near = [sf(500, [("user", "q"), ("assistant", long)]), sf(501, [("user", "q"), ("assistant", long + " more")])]
    write_jsonl(root / "a.jsonl", first + ["{not json", sf(999, []), near[0]])
    with gzip.open(root / "b.jsonl.gz", "wt", encoding="utf-8") as fh:
        for row in _rows(60, 50) + first[:5]:  # exact duplicates of shard a, in another file
            fh.write(json.dumps(row) + "\n")
    pq.write_table(
        pa.Table.from_pylist(_rows(110, 40) + first[10:14] + near[1:]), root / "c.parquet", row_group_size=9
    )
    return root


def _exact(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k not in RUNTIME_ONLY}


def test_cli_json_is_the_same_with_and_without_ray(
    tmp_path: Path, tok_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _dataset(tmp_path / "set")
    plain = cli_in_process(capsys, "audit", str(data), "--tokenizer", str(tok_dir), "--json")
    on_ray = cli_in_process(capsys, "audit", str(data), "--tokenizer", str(tok_dir), "--json", "--ray", "local")
    assert plain.returncode == on_ray.returncode == 0, on_ray.stderr
    one, many = json.loads(plain.stdout), json.loads(on_ray.stdout)
    assert _exact(many) == _exact(one)
    # the planted problems are in both, so equality is not two empty reports
    assert one["duplicates"] >= 9 and one["malformed"] == 1 and one["empty"] == 1
    assert one["empty_turn_rows"] >= 1 and one["empty_turn_examples"]  # TRICKY's (user, "q"), (assistant, "")
    assert one["near_duplicates"] >= 1 and one["rows_read"] == 60 + 3 + 55 + 45
    assert any(str(e["line"]).startswith("c.parquet:") for e in one["near_duplicate_examples"])
    assert one["runner"] is None
    assert many["runner"]["engine"] == "ray" and many["runner"]["blocks"] == 3
    assert many["runner"]["retried_blocks"] == 0 and any("exact" in s for s in many["runner"]["sketches"])


def test_rows_with_an_empty_turn_are_counted_alike_on_ray(tmp_path: Path, tok_dir: Path) -> None:
    """Walk R: rows with an empty user or assistant turn, in two files (two blocks merged on the driver), give the
    single-process count, roles, examples and note."""
    root = tmp_path / "set"
    root.mkdir()
    write_jsonl(
        root / "a.jsonl", [sf(i, [("user", f"q{i}"), ("assistant", "" if i % 5 == 0 else f"a{i}")]) for i in range(20)]
    )
    write_jsonl(
        root / "b.jsonl",
        [sf(i, [("user", " " if i % 4 == 0 else f"q{i}"), ("assistant", f"a{i}")]) for i in range(20, 40)],
    )
    one = audit.audit(str(root), tokenizer=str(tok_dir))
    many = cluster.audit(str(root), address="local", tokenizer=str(tok_dir))
    assert _exact(many.to_dict()) == _exact(one.to_dict())
    assert one.samples == 40 and one.empty_turn_rows == 9 and one.empty_turn_roles == {"assistant": 4, "user": 5}
    assert [ex["line"] for ex in one.empty_turn_examples] == [
        "a.jsonl:1",
        "a.jsonl:6",
        "a.jsonl:11",
        "a.jsonl:16",
        "b.jsonl:1",
    ]
    assert one.empty_turn_note.startswith("9 of 40 samples (22.5%) have an empty")


def test_a_bad_file_is_a_finding_with_its_path(tmp_path: Path, tok_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "root"
    data = root / "set"
    data.mkdir(parents=True)
    write_jsonl(data / "good.jsonl", _rows(0, 30))
    (data / "broken.parquet").write_bytes(b"PAR1 this is not parquet")
    write_jsonl(data / "huge.jsonl", [sf(1, [("user", "x" * 5000), ("assistant", "y")])])
    outside = write_jsonl(tmp_path / "outside.jsonl", _rows(40, 3))
    (data / "link.jsonl").symlink_to(outside)
    tok = shutil.copytree(tok_dir, root / "tok")
    monkeypatch.setenv("SPECDRAFT_DATA_ROOT", str(root))
    monkeypatch.setenv("SPECDRAFT_MAX_ROW_BYTES", "4096")  # the cap holds on the workers too
    with pytest.raises((DataError, OutsideDataRootError)):
        audit.audit(str(data), tokenizer=str(tok))  # one process stops at the first bad file (or the link out)
    res = cluster.audit(str(data), address="local", tokenizer=str(tok))
    errors = {e["file"]: e["error"] for e in res.file_errors}
    assert set(errors) == {"broken.parquet", "huge.jsonl", "link.jsonl"}
    assert "cannot be read as parquet" in errors["broken.parquet"]
    assert "SPECDRAFT_MAX_ROW_BYTES" in errors["huge.jsonl"]
    assert "outside the data root" in errors["link.jsonl"]
    assert res.samples == 30  # the good file is still counted


def _wrong_layer_specforge(tmp: Path) -> Path:
    """Six SpecForge files (one with a NaN), a seventh captured at the wrong layers, an eighth corrupt."""
    root = fx.build_dump(tmp / "sf", "specforge", n_files=6, mutate=fx.nan_in_first)
    wrong = fx.build_dump(tmp / "wrong", "specforge", n_files=7, aux=[N - 3, N - 2, N - 1])
    shutil.copy(wrong / "rows_0-2000" / "data_6.ckpt", root / "rows_0-2000" / "data_6.ckpt")
    (root / "rows_0-2000" / "data_7.ckpt").write_bytes(b"\x80\x02 not a torch file")
    return root


def _same_report(a: dumps.DumpReport, b: dumps.DumpReport) -> None:
    assert a.findings == b.findings
    assert a.files == b.files
    assert a.summary == b.summary
    assert a.layer_stats == b.layer_stats
    assert (a.format, a.files_total, a.files_read) == (b.format, b.files_total, b.files_read)


def test_full_dump_scan_is_the_same_on_ray(tmp_path: Path) -> None:
    torch.set_num_threads(1)
    root = _wrong_layer_specforge(tmp_path)
    one = dumps.audit_dumps(root, full=True, target_hidden_size=fx.HIDDEN)
    seen: list[tuple[int, int]] = []
    many = cluster.audit_dumps(
        root, address="local", full=True, target_hidden_size=fx.HIDDEN, progress=lambda d, t: seen.append((d, t))
    )
    _same_report(one, many)
    assert seen[-1] == (8, 8)
    assert many.runner is not None and many.runner["engine"] == "ray"
    by_code = {f.code: f for f in many.findings}
    assert "rows_0-2000/data_7.ckpt" in (by_code["unreadable"].file or "")  # the planted bad file, by path
    assert by_code["nan"].file == "rows_0-2000/data_0.ckpt"
    drift = [f for f in many.findings if f.code == "layer_drift"]
    assert drift and all("data_6.ckpt" in (f.file or f.message) for f in drift)
    assert {r["layer"] for r in many.layer_stats} == {"low", "mid", "high", "final"}
    assert many.summary["layer_drift"]["low"]["max_jump"] > 1.5


def test_speculators_sample_is_the_same_on_ray(tmp_path: Path) -> None:
    torch.set_num_threads(1)
    root = fx.build_dump(tmp_path / "spec", "speculators", n_files=5)
    one = dumps.audit_dumps(root, max_files=3, seed=4)
    many = cluster.audit_dumps(root, address="local", max_files=3, seed=4, workers=1)
    _same_report(one, many)
    assert one.summary["files_sampled"] == 3 and one.format == "speculators"
    assert many.runner is not None and many.runner["workers"] == 1


def test_the_page_runs_on_the_cluster_named_in_the_environment(
    tmp_path: Path, tok_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.fixtures import page_app

    data = _dataset(tmp_path / "set")
    expected = audit.audit(str(data), tokenizer=str(tok_dir))
    monkeypatch.setenv(cluster.ENV_ADDRESS, "local")
    at = page_app(str(Path(__file__).resolve().parents[1] / "pages" / "audit.py"), timeout=120).run()
    at.text_input(key="audit_source").set_value(str(data))
    at.text_input(key="audit_tokenizer").set_value(str(tok_dir))
    at.button(key="audit_run").click().run()
    assert not at.exception and not at.error
    assert next(m.value for m in at.metric if m.label == "Tokens") == f"{expected.tokens:,}"
    assert any("Ran on Ray (local, 2 workers)" in c.value for c in at.caption)


def test_a_uri_is_read_by_the_workers(tmp_path: Path, tok_dir: Path) -> None:
    """s3:// and gs:// are read through pyarrow's filesystems on the workers; file:// takes the same path offline."""
    data = _dataset(tmp_path / "set")
    uri = data.as_uri()
    one = audit.audit(uri, tokenizer=str(tok_dir))
    many = cluster.audit(uri, address="local", tokenizer=str(tok_dir), workers=1)
    assert _exact(many.to_dict()) == _exact(one.to_dict())
    assert many.source == uri and many.runner is not None and many.runner["blocks"] == 3
