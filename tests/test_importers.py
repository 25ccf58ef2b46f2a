"""Importing sglang.bench_serving JSONL and `vllm bench serve --save-result` JSON into the store.

The fixtures carry the key sets those tools write (sglang/benchmark/serving.py ``result`` and
``result_details``; vllm/benchmarks/serve.py ``result_json``), with values of a plausible run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from comparelib.errors import DataError, InputError
from comparelib.live.importers import SGLANG, VLLM, detect_format, import_file, read_records
from comparelib.live.store import Store
from tests.fixtures import cli_in_process, run_cli, sglang_record


def vllm_record(*, spec: bool = True, detailed: bool = True) -> dict:
    rec = {
        "date": "20260301-101500",
        "endpoint_type": "openai-chat",
        "backend": "openai-chat",
        "label": "eagle3-k3",
        "model_id": "meta-llama/Llama-3.1-8B-Instruct",
        "tokenizer_id": "meta-llama/Llama-3.1-8B-Instruct",
        "num_prompts": 3,
        "request_rate": "inf",
        "burstiness": 1.0,
        "max_concurrency": 2,
        "duration": 6.0,
        "completed": 2,
        "failed": 1,
        "total_input_tokens": 300,
        "total_output_tokens": 400,
        "request_throughput": 0.33,
        "request_goodput": None,
        "output_throughput": 66.7,
        "total_token_throughput": 116.7,
        "max_output_tokens_per_s": 80.0,
        "max_concurrent_requests": 2,
        "rtfx": 0.0,
        "mean_ttft_ms": 40.0,
        "median_ttft_ms": 41.0,
        "std_ttft_ms": 2.0,
        "p99_ttft_ms": 44.0,
        "mean_tpot_ms": 14.0,
        "median_tpot_ms": 13.5,
        "std_tpot_ms": 1.0,
        "p99_tpot_ms": 16.0,
        "mean_itl_ms": 30.0,
        "median_itl_ms": 29.0,
        "std_itl_ms": 4.0,
        "p99_itl_ms": 41.0,
    }
    if spec:
        rec.update(
            {
                "spec_decode_acceptance_rate": 63.3,
                "spec_decode_acceptance_length": 2.9,
                "spec_decode_num_drafts": 138,
                "spec_decode_draft_tokens": 414,
                "spec_decode_accepted_tokens": 262,
                "spec_decode_per_position_acceptance_rates": [0.8, 0.62, 0.48],
            }
        )
    if detailed:
        rec.update(
            {
                "input_lens": [100, 100, 100],
                "output_lens": [200, 200, 0],
                "ttfts": [0.04, 0.042, 0.0],
                "itls": [[0.03] * 69, [0.029] * 70, []],
                "latencies": [2.75, 2.79, 0.0],
                "start_times": [1000.0, 1000.1, 1000.2],
                "generated_texts": ["x", "y", ""],
                "errors": ["", "", "Bad Request"],
            }
        )
    return rec


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(f"sqlite:///{tmp_path / 'imp.sqlite'}")
    yield s
    s.close()


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


FORMAT_CASES = [
    (sglang_record(), SGLANG),
    (sglang_record(details=False, accept=None), SGLANG),
    (vllm_record(), VLLM),
    (vllm_record(spec=False, detailed=False), VLLM),
]


@pytest.mark.parametrize(("record", "fmt"), FORMAT_CASES)
def test_detect_format(record: dict, fmt: str) -> None:
    assert detect_format(record) == fmt


BAD_RECORDS = [
    ({"foo": 1}, "no completed, output_throughput"),
    ({"completed": 1, "output_throughput": 2.0}, "cannot tell which tool"),
    ({"completed": 1, "output_throughput": 2.0, "accept_length": 2, "failed": 0}, "cannot tell which tool"),
]


@pytest.mark.parametrize(("record", "message"), BAD_RECORDS)
def test_unknown_format_names_what_was_expected(record: dict, message: str) -> None:
    with pytest.raises(DataError) as info:
        detect_format(record)
    assert message in str(info.value)
    assert "sglang.bench_serving" in str(info.value) and "vllm bench serve" in str(info.value)


def test_import_sglang_jsonl_with_details(store: Store, tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "sglang_0301.jsonl", [sglang_record(steps=3), sglang_record(steps=5, accept=3.4, details=False)]
    )
    ids = import_file(store, path, labels=["NCCL_PROTO=LL"], group="llama-sweep")
    assert len(ids) == 2
    first, second = store.run(ids[0]), store.run(ids[1])
    assert first.kind == "imported" and first.status == "finished" and first.group == "llama-sweep"
    assert first.engine == "sglang" and first.speculative_algorithm == "EAGLE3"
    assert (first.num_steps, first.topk, first.num_draft_tokens) == (3, 1, 4)
    assert first.draft_model == "lmsys/sglang-EAGLE3-LLaMA3.1-Instruct-8B"
    assert first.output_tokens_per_s == pytest.approx(81.92)
    assert first.accept_length == pytest.approx(2.87) and first.accept_length_mean is None
    assert (first.ttft_p50_ms, first.ttft_p99_ms, first.tpot_p50_ms, first.tpot_p99_ms) == (90.0, 110.0, 11.8, 12.6)
    assert (first.requests, first.errors) == (5, 1)
    assert first.labels == ["NCCL_PROTO=LL"]
    assert first.params["max_concurrency"] == 4 and first.params["format"] == SGLANG
    assert "api_key" not in first.server_config["raw"]
    assert "sk-server-secret" not in json.dumps(store.snapshots(ids[0]), default=str)
    reqs = store.requests(ids[0])
    assert len(reqs) == 5 and list(reqs["ok"]) == [True, True, True, True, False]
    assert reqs.loc[4, "error"] == "ClientPayloadError: stream cut"
    assert reqs.loc[0, "ttft_s"] == pytest.approx(0.09)
    assert reqs.loc[0, "e2e_s"] == pytest.approx(0.09 + 255 * 0.0118)
    assert reqs.loc[0, "tpot_s"] == pytest.approx(0.0118)
    assert second.num_steps == 5 and second.accept_length == pytest.approx(3.4)
    assert (second.requests, second.errors) == (4, 0) and store.requests(ids[1]).empty


def test_import_vllm_json(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "openai-chat-infqps-concurrency2-Llama-3.1-8B-20260301-101500.json"
    path.write_text(json.dumps(vllm_record()), encoding="utf-8")
    (rid,) = import_file(store, path, spec={"speculative_algorithm": "EAGLE3", "draft_model": "my/draft"})
    rec = store.run(rid)
    assert rec.engine == "vllm" and rec.kind == "imported"
    assert rec.speculative_algorithm == "EAGLE3" and rec.draft_model == "my/draft"
    assert rec.num_steps == 3  # from the per-position acceptance list
    assert rec.accept_length == pytest.approx(2.9)
    assert rec.summary["accept_per_position"] == [0.8, 0.62, 0.48]
    assert (rec.requests, rec.errors) == (3, 1)
    assert rec.labels == ["eagle3-k3"] and rec.model == "meta-llama/Llama-3.1-8B-Instruct"
    assert rec.created_at.year == 2026 and rec.created_at.month == 3
    assert (rec.ttft_p50_ms, rec.tpot_p99_ms) == (41.0, 16.0)
    reqs = store.requests(rid)
    assert list(reqs["ok"]) == [True, True, False] and reqs.loc[2, "error"] == "Bad Request"
    assert reqs.loc[0, "e2e_s"] == pytest.approx(2.75)
    assert reqs.loc[0, "tpot_s"] == pytest.approx((2.75 - 0.04) / 199)
    assert reqs.loc[1, "started_at"] == pytest.approx(1000.1)


def test_import_vllm_baseline_and_append_result_lines(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "appended.json"
    path.write_text(
        json.dumps(vllm_record(spec=False, detailed=False)) + "\n" + json.dumps(vllm_record()), encoding="utf-8"
    )
    ids = import_file(store, path)
    base, spec = store.run(ids[0]), store.run(ids[1])
    assert base.is_baseline and base.accept_length is None and base.requests == 3
    assert not spec.is_baseline and spec.speculative_algorithm == "unknown"


def test_bad_file_imports_nothing(store: Store, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "mixed.jsonl", [sglang_record(), {"hello": "world"}])
    with pytest.raises(DataError, match="record 2"):
        import_file(store, path)
    assert store.runs() == []
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text('{"completed": 1}\nnot json\n', encoding="utf-8")
    with pytest.raises(DataError, match="line 2 is not JSON"):
        read_records(garbage)
    (tmp_path / "empty.json").write_text("  \n", encoding="utf-8")
    with pytest.raises(DataError, match="empty"):
        read_records(tmp_path / "empty.json")
    with pytest.raises(InputError, match="no such file"):
        read_records(tmp_path / "missing.json")


def test_cli_import_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:

    url = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    sg = write_jsonl(tmp_path / "sg.jsonl", [sglang_record()])
    vl = tmp_path / "vl.json"
    vl.write_text(json.dumps(vllm_record()), encoding="utf-8")
    proc = cli_in_process(
        capsys,
        "import",
        str(sg),
        str(vl),
        "--db",
        url,
        "--label",
        "nightly",
        "--group",
        "g",
        "--num-steps",
        "3",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert [d["file"] for d in data] == [str(sg), str(vl)]
    assert all(d["kind"] == "imported" and d["group"] == "g" and "nightly" in d["labels"] for d in data)
    assert data[1]["accept_length"] == pytest.approx(2.9) and data[1]["num_steps"] == 3
    listed = cli_in_process(capsys, "runs", "--db", url, "--json")
    assert sorted(r["kind"] for r in json.loads(listed.stdout)) == ["example"] * 3 + ["imported"] * 2


def test_cli_import_bad_file_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"foo": 1}), encoding="utf-8")
    proc = run_cli("import", str(bad), "--db", f"sqlite:///{tmp_path / 'x.sqlite'}")
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "expected sglang.bench_serving" in proc.stderr
    assert not (tmp_path / "x.sqlite").exists()  # nothing opened, nothing written
