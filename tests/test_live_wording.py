"""What the live-benchmark CLI prints: ``runs`` as a readable table, ``bench``'s speculation and set-aside note
naming the flags (there is no form on the CLI), ``import`` numbering its runs; the helpers the page shares."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from comparelib.live import bench, prompts, servers
from comparelib.live.importers import imported_text, stated_spec
from comparelib.live.store import Store
from tests.fixtures import cli_in_process, run_cli

LONG_LABELS = ["NCCL_PROTO=LL", "NCCL_ALGO=Ring", "NCCL_P2P_LEVEL=SYS", "cuda-graph-max-bs=256", "tp=8 on h200 node 3"]


def test_runs_text_is_a_left_aligned_table_of_sensible_width(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    url = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    store = Store(url)
    rid = store.start_run(
        endpoint="http://127.0.0.1:9", server_config={"engine": "vllm"}, labels=LONG_LABELS, group="qwen3-8b-sf250k"
    )
    store.close()
    proc = cli_in_process(capsys, "runs", "--db", url)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    header, rows = lines[0], [ln for ln in lines[1:5] if ln.strip()]
    assert header.split()[:3] == ["id", "kind", "group"] and header.rstrip().endswith("labels")
    at = header.index("labels")
    mine = next(r for r in rows if r.split()[0] == str(rid))
    assert mine[at:].startswith("NCCL_PROTO=LL, ")  # left-aligned under its header, not right-justified
    assert mine.rstrip().endswith("\u2026") and ", ".join(LONG_LABELS) not in proc.stdout  # cut, with an ellipsis
    assert mine[header.index("group") :].startswith("qwen3-8b-sf250k ")
    # was 200, padded for the longest labels; 170 before the draft column (its cells cut at 36)
    assert max(len(r) for r in rows) <= 210, max(len(r) for r in rows)
    assert "--format or --json print them whole" in proc.stdout
    listed = json.loads(cli_in_process(capsys, "runs", "--db", url, "--json").stdout)
    assert next(r for r in listed if r["id"] == rid)["labels"] == LONG_LABELS  # --json: whole, as stored


def test_cli_bench_names_a_vllm_speculation_whose_method_is_not_stated(fake_server, tmp_path: Path) -> None:
    server = fake_server("vllm", ttft_s=0.0, chunk_delay_s=0.0, tokens_per_chunk=2, num_steps=4, output_tokens=8)
    proc = run_cli(
        "bench", "--endpoint", server.url, "--requests", "4", "--warmup", "0", "--max-tokens", "8",
        "--db", f"sqlite:///{tmp_path / 'b.sqlite'}",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("speculation"))
    assert line.split(None, 1)[1] == "speculative (method not stated), num_steps=4", line
    assert "unknown" not in proc.stdout


@pytest.mark.parametrize("engine", ["sglang", "vllm"])
def test_cli_bench_says_the_flags_it_set_aside_not_a_form(fake_server, tmp_path: Path, engine: str) -> None:
    server = fake_server(engine, ttft_s=0.0, chunk_delay_s=0.0, speculative_algorithm=None, output_tokens=8)
    proc = run_cli(
        "bench", "--endpoint", server.url, "--requests", "2", "--warmup", "0", "--max-tokens", "8",
        "--num-steps", "4", "--topk", "1", "--db", f"sqlite:///{tmp_path / 'b.sqlite'}",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "speculation   none (baseline)" in proc.stdout
    assert "the speculative settings stated with --num-steps/--topk were set aside" in proc.stdout
    assert "form" not in proc.stdout


SOURCES = [
    (None, servers.IGNORED_SPEC_NOTE),  # a library caller: said without naming a form
    ("stated in the form", "the speculative settings stated in the form were set aside"),
]


@pytest.mark.parametrize(("source", "note"), SOURCES)
def test_the_set_aside_note_names_where_the_settings_were_stated(fake_server, source: str | None, note: str) -> None:
    server = fake_server("sglang", ttft_s=0.0, chunk_delay_s=0.0, speculative_algorithm=None, output_tokens=8)
    extra = {} if source is None else {"spec_source": source}
    run = bench.benchmark(
        bench.BenchOptions(
            endpoint=server.url, requests=2, warmup=0, max_tokens=8, spec_override={"num_steps": 4}, **extra
        ),
        prompts=prompts.load_prompts(),
    )
    assert any(note in n for n in run.summary.notes), run.summary.notes
    assert "form" not in servers.IGNORED_SPEC_NOTE


IMPORTED = [
    ([10], "x.json", "imported run #10 from x.json"),
    ([10, 11], "x.jsonl", "imported runs #10, #11 from x.jsonl"),
    ([], "x.json", "imported no runs from x.json"),
]


@pytest.mark.parametrize(("ids", "source", "text"), IMPORTED)
def test_imported_text(ids: list[int], source: str, text: str) -> None:
    assert imported_text(ids, source) == text


STATED = [
    ((None,), {}, {}),
    (("EAGLE3",), {"num_steps": 3}, {"speculative_algorithm": "EAGLE3", "num_steps": 3}),
    ((" eagle ",), {"topk": 0}, {"speculative_algorithm": "eagle", "topk": 0}),  # 0 is stated, not missing
    (("none",), {"num_steps": 2}, {"num_steps": 2}),  # "none"/"baseline" state no algorithm
    (("Baseline",), {}, {}),
    (
        ("",),
        {"draft_model": " acme/draft ", "num_draft_tokens": 4},
        {"draft_model": "acme/draft", "num_draft_tokens": 4},
    ),
]


@pytest.mark.parametrize(("args", "kwargs", "spec"), STATED)
def test_stated_spec_keeps_only_what_was_given(args: tuple, kwargs: dict, spec: dict) -> None:
    assert stated_spec(*args, **kwargs) == spec


def test_cli_import_numbers_its_runs(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from tests.test_importers import vllm_record

    path = tmp_path / "vl.json"
    path.write_text(json.dumps(vllm_record()), encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'i.sqlite'}"
    proc = cli_in_process(capsys, "import", str(path), "--db", url, "--spec-algorithm", "EAGLE3")
    assert proc.returncode == 0, proc.stderr
    rid = Store(url).runs(include_examples=False)[-1].id
    assert proc.stdout.startswith(f"imported run #{rid} from {path}: vllm bench serve, 66.70 output tok/s"), (
        proc.stdout
    )
