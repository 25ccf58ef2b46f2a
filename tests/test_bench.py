"""The benchmark client against local SGLang/vLLM/OpenAI fake servers whose truth is known."""

from __future__ import annotations

import json
import math
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from comparelib import redact, values
from comparelib.analysis.speedup import speedup_against
from comparelib.errors import BenchError, DataError, InputError
from comparelib.live import bench, prompts, servers
from comparelib.live.bench import RequestResult, ServerConfig, run_benchmark, summarize
from tests.fixtures import run_cli

PROMPTS: list[prompts.Prompt] = [
    "Say hello.",
    "Write a haiku about tests.",
    [{"role": "user", "content": "What is 2 + 2?"}],
]
SECRETS = ("sk-should-never-be-stored", "hf_secretsecretsecret")


def _bench(url: str, **kw: Any) -> bench.BenchRun:
    args: dict[str, Any] = dict(
        prompts=PROMPTS,
        concurrency=4,
        requests=8,
        max_tokens=64,
        temperature=0.0,
        warmup=1,
        timeout_s=10.0,
        labels=["test"],
    )
    args.update(kw)
    return run_benchmark(url, **args)


# --- measured numbers against the servers' truth ---------------------------------------------------


def _median(values: list[float]) -> float:
    return bench.percentiles(values)["p50"]


def test_sglang_native_timing_tokens_and_acceptance(fake_server) -> None:
    server = fake_server("sglang", ttft_s=0.05, chunk_delay_s=0.02, tokens_per_chunk=4, output_tokens=32)
    run = _bench(server.url)
    s = run.summary
    assert run.status == "finished" and run.params["route"] == "generate"
    assert s.requests == 8 and s.errors == 0 and s.ok == 8
    for r in run.results:
        assert r.ok, r.error
        assert r.output_tokens == 32 and r.n_chunks == 8 and len(r.chunk_gaps_s) == 7
        assert r.spec_verify_ct == 8 and r.accept_length == 4.0
        assert r.prompt_tokens is not None and r.prompt_tokens >= 1
        # The server waits >= 50 ms before the first chunk and >= 20 ms between chunks.
        assert 0.049 <= r.ttft_s < 0.25
        assert r.e2e_s - r.ttft_s >= 7 * 0.020 - 0.002
        # TPOT is exactly (E2E - TTFT) / (N - 1) of the same request; gaps telescope to last - first chunk.
        assert r.tpot_s == pytest.approx((r.e2e_s - r.ttft_s) / 31, rel=1e-12)
        assert 7 * 0.020 - 0.002 <= sum(r.chunk_gaps_s) <= r.e2e_s - r.ttft_s + 1e-9
    # Against what the server actually did (its own clock; the first stream was the warm-up):
    truth = server.timings[1:]
    assert len(truth) == 8
    server_ttft = _median([t["first"] - t["received"] for t in truth])
    server_decode = _median([t["last"] - t["first"] for t in truth])
    assert 0.0 <= s.ttft_ms["p50"] / 1000 - server_ttft < 0.015
    assert s.tpot_ms["p50"] / 1000 * 31 == pytest.approx(server_decode, abs=0.010)
    # the median gap against the server's median gap (its mean, decode / 7, moves with one late chunk on a busy
    # machine while the median does not: a CI run read 20.8 ms against a mean of 27.2)
    server_gaps = [b - a for t in truth for a, b in zip(t["chunk_at"], t["chunk_at"][1:], strict=False)]
    assert len(server_gaps) == 8 * 7
    assert s.itl_ms["p50"] / 1000 == pytest.approx(_median(server_gaps), abs=0.005)
    # and against what it was told to do, with room for a loaded machine
    assert 50.0 <= s.ttft_ms["p50"] <= 80.0
    assert 7 * 20.0 / 31 - 0.05 <= s.tpot_ms["p50"] <= 7 * 30.0 / 31
    assert s.output_tokens == 8 * 32
    assert s.output_tokens_per_s == pytest.approx(s.output_tokens / s.duration_s)
    assert s.request_throughput == pytest.approx(8 / s.duration_s)
    # two waves of 4 requests of >= 190 ms; the warm-up is outside the measured phase
    assert 0.38 <= s.duration_s < 0.38 + 0.40
    assert s.accept_length == 4.0 and s.accept_length_mean == 4.0
    assert s.acceptance_source == "sglang meta_info"
    assert s.accept_per_position is None


def test_sglang_server_config_read_back_and_secrets_stripped(fake_server) -> None:
    server = fake_server(
        "sglang",
        ttft_s=0.0,
        chunk_delay_s=0.0,
        num_steps=2,
        topk=1,
        num_draft_tokens=3,
        version="0.5.9",
        model="Qwen/Qwen3-8B",
        draft_model="me/qwen3-8b-eagle3",
    )
    run = _bench(server.url, requests=2, warmup=0)
    c = run.server_config
    assert (c.engine, c.version, c.model) == ("sglang", "0.5.9", "Qwen/Qwen3-8B")
    assert (c.speculative_algorithm, c.draft_model, c.num_steps, c.topk, c.num_draft_tokens) == (
        "EAGLE3",
        "me/qwen3-8b-eagle3",
        2,
        1,
        3,
    )
    assert c.raw["server_info_route"] == "/server_info"
    dumped = json.dumps(values.plain(c))
    assert not any(secret in dumped for secret in SECRETS)
    assert c.raw["api_key"] == redact.PLACEHOLDER and c.raw["hf_token"] == redact.PLACEHOLDER


def test_sglang_get_server_info_fallback(fake_server) -> None:
    server = fake_server("sglang", ttft_s=0.0, chunk_delay_s=0.0, server_info_route="legacy", num_steps=5)
    config = servers.detect_server(server.url)
    assert config.engine == "sglang" and config.num_steps == 5
    assert config.raw["server_info_route"] == "/get_server_info"


def test_sglang_baseline_has_no_acceptance(fake_server) -> None:
    server = fake_server(
        "sglang", ttft_s=0.0, chunk_delay_s=0.001, speculative_algorithm=None, tokens_per_chunk=1, output_tokens=10
    )
    run = _bench(server.url, requests=4)
    assert run.server_config.speculative_algorithm is None and run.server_config.num_steps is None
    assert run.summary.accept_length is None and run.summary.accept_length_mean is None
    assert all(r.n_chunks == 10 and r.output_tokens == 10 for r in run.results)


def test_sglang_openai_route_uses_counter_delta(fake_server) -> None:
    server = fake_server("sglang", ttft_s=0.0, chunk_delay_s=0.001, tokens_per_chunk=3, output_tokens=30)
    run = _bench(server.url, route="chat", requests=6, warmup=2)
    s = run.summary
    assert s.errors == 0 and s.output_tokens == 180
    assert s.accept_length == 3.0 and s.accept_length_mean is None
    assert s.acceptance_source == "sglang counters"


def test_vllm_acceptance_from_counter_deltas(fake_server) -> None:
    # Verify steps emit 4, 3, 3, 1 tokens: accepted 3, 2, 2, 0 of k=3 drafts per step.
    server = fake_server(
        "vllm", ttft_s=0.05, chunk_delay_s=0.01, accept_pattern=[4, 3, 3, 1], num_steps=3, output_tokens=33
    )
    run = _bench(
        server.url,
        warmup=3,
        spec_override={"speculative_algorithm": "eagle3", "num_steps": 3, "draft_model": "me/draft"},
    )
    s = run.summary
    assert run.params["route"] == "chat"
    assert s.errors == 0
    assert all(r.output_tokens == 33 and r.n_chunks == 12 for r in run.results)
    assert s.accept_length == 2.75
    assert s.accept_per_position == [0.75, 0.75, 0.25]
    # warm-up traffic is outside the before/after window: exactly 8 requests x 12 steps
    assert s.spec_decode == {"drafts": 96.0, "accepted": 168.0, "draft_tokens": 288.0}
    assert s.acceptance_source == "vllm spec_decode counters"
    # the role-only first chunk is not content: TTFT is the injected 50 ms
    assert all(0.049 <= r.ttft_s < 0.25 for r in run.results)
    c = run.server_config
    assert (c.engine, c.version, c.model) == ("vllm", "0.0.0-fake", "fake/target-model")
    assert (c.speculative_algorithm, c.num_steps, c.draft_model, c.config_source) == (
        "eagle3",
        3,
        "me/draft",
        "stated",
    )


def test_vllm_without_stated_config_is_marked_unknown(fake_server) -> None:
    server = fake_server("vllm", ttft_s=0.0, chunk_delay_s=0.0, tokens_per_chunk=2, num_steps=4)
    config = servers.detect_server(server.url)
    assert config.speculative_algorithm == "unknown" and config.num_steps == 4 and config.config_source == "metrics"


@pytest.mark.parametrize("route", ["chat", "completions"])
def test_openai_server_has_no_acceptance(fake_server, route: str) -> None:
    server = fake_server("openai", ttft_s=0.01, chunk_delay_s=0.002, tokens_per_chunk=2, output_tokens=20)
    run = _bench(server.url, route=route)
    s = run.summary
    assert run.server_config.engine == "openai" and run.server_config.speculative_algorithm is None
    assert s.errors == 0 and s.output_tokens == 8 * 20 and all(r.n_chunks == 10 for r in run.results)
    assert s.accept_length is None and s.accept_length_mean is None
    assert any("no acceptance data" in n for n in s.notes)


def test_256_concurrent_streams(fake_server) -> None:
    server = fake_server("vllm", ttft_s=0.02, chunk_delay_s=0.005, tokens_per_chunk=2, output_tokens=8)
    run = _bench(server.url, concurrency=256, requests=256, warmup=0)
    assert run.summary.errors == 0 and run.summary.output_tokens == 256 * 8
    assert sorted(r.index for r in run.results) == list(range(256))


# --- faults ----------------------------------------------------------------------------------------

FAULTS = [
    ("fail_every", 3, 9, "http_error", 3, "HTTP 500"),
    ("cut_every", 4, 8, "stream_cut", 2, "cut mid-way"),
    ("truncate_every", 2, 6, "stream_cut", 3, "before [DONE]"),
    ("garbage_every", 3, 6, "garbage_chunk", 2, "unparseable chunk"),
    ("stall_every", 4, 8, "timeout", 2, "within 0.5 s"),
]


@pytest.mark.parametrize("engine", ["sglang", "vllm"])
@pytest.mark.parametrize(("option", "every", "n", "kind", "expected", "message"), FAULTS)
def test_fault_recorded_per_request_and_run_goes_on(
    fake_server, engine: str, option: str, every: int, n: int, kind: str, expected: int, message: str
) -> None:
    server = fake_server(engine, ttft_s=0.005, chunk_delay_s=0.002, output_tokens=16, **{option: every})
    run = _bench(server.url, requests=n, warmup=0, concurrency=2, timeout_s=0.5)
    s = run.summary
    assert run.status == "finished"
    assert s.requests == n and s.errors == expected and s.ok == n - expected
    assert s.error_kinds == {kind: expected}
    failed = [r for r in run.results if not r.ok]
    assert all(r.error_kind == kind and message in (r.error or "") for r in failed)
    assert all(r.output_tokens == 16 for r in run.results if r.ok)
    assert s.output_tokens == 16 * (n - expected)


def test_mixed_faults_counted_exactly(fake_server) -> None:
    server = fake_server(
        "sglang",
        ttft_s=0.002,
        chunk_delay_s=0.001,
        output_tokens=12,
        fail_every=5,
        cut_every=7,
        garbage_every=9,
        stall_every=11,
    )
    run = _bench(server.url, requests=20, warmup=0, concurrency=4, timeout_s=0.5)
    # 5,10,15,20 -> 500; 7,14 -> cut; 9,18 -> garbage; 11 -> stall
    assert run.summary.error_kinds == {"http_error": 4, "stream_cut": 2, "garbage_chunk": 2, "timeout": 1}
    assert run.summary.errors == 9 and run.summary.ok == 11


# --- recording, progress, interruption -------------------------------------------------------------


class CallLog:
    """A recorder double (the store's 5 contract methods) that keeps the call order."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.threads: set[str] = set()

    def _log(self, name: str, value: Any) -> None:
        self.calls.append((name, value))
        self.threads.add(threading.current_thread().name)

    def start_run(self, **kw: Any) -> int:
        self._log("start_run", kw)
        return 7

    def add_snapshot(self, run_id: int, when: str, payload: Any) -> None:
        self._log(f"snapshot:{when}", payload)

    def add_request(self, run_id: int, result: RequestResult) -> None:
        self._log("request", result)

    def finish_run(self, run_id: int, summary: Any, status: str = "finished") -> None:
        self._log(f"finish:{status}", summary)


def test_recorder_contract_order(fake_server) -> None:
    server = fake_server("vllm", ttft_s=0.0, chunk_delay_s=0.001)
    log = CallLog()
    run = _bench(server.url, recorder=log, group="sweep-1", labels=["NCCL_PROTO=LL", "2-step"])
    names = [name for name, _ in log.calls]
    assert names == ["start_run", "snapshot:before", *["request"] * 8, "snapshot:after", "finish:finished"]
    start = log.calls[0][1]
    assert start["labels"] == ["NCCL_PROTO=LL", "2-step"] and start["group"] == "sweep-1"
    assert start["kind"] == "measured" and start["params"]["concurrency"] == 4
    assert start["params"]["prompt_set"] == "bundled"
    assert "vllm:spec_decode_num_drafts_total" in log.calls[1][1]["metrics"]["counters"]
    assert run.run_id == 7
    assert log.threads == {"bench-recorder"}  # the event loop never waits on the database


def test_progress_and_interrupt(fake_server) -> None:
    server = fake_server("sglang", ttft_s=0.0, chunk_delay_s=0.01, output_tokens=16)
    stop = threading.Event()
    seen: list[tuple[int, int, float]] = []

    def progress(done: int, total: int, tps: float) -> None:
        seen.append((done, total, tps))
        if done == 3:
            stop.set()

    log = CallLog()
    run = _bench(server.url, requests=40, concurrency=2, warmup=0, progress=progress, stop_event=stop, recorder=log)
    assert run.status == "interrupted"
    assert 3 <= run.summary.requests < 40
    assert [d for d, _, _ in seen] == list(range(1, len(seen) + 1)) and all(t == 40 for _, t, _ in seen)
    assert all(tps > 0 for _, _, tps in seen)
    assert log.calls[-1][0] == "finish:interrupted"
    assert sum(1 for name, _ in log.calls if name == "request") == run.summary.requests


def test_records_into_real_sqlite_store(fake_server, tmp_path: Path) -> None:
    from comparelib.live.store import Store

    server = fake_server("sglang", ttft_s=0.0, chunk_delay_s=0.001, fail_every=4)
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    run = _bench(server.url, recorder=store, warmup=0, labels=["baseline?"])
    assert run.run_id is not None
    record = store.run(run.run_id)
    assert record.status == "finished" and record.requests == 8 and record.errors == 2
    assert record.accept_length == 4.0 and record.speculative_algorithm == "EAGLE3"
    frame = store.requests(run.run_id)
    assert len(frame) == 8 and int(frame["ok"].sum()) == 6
    assert [s["phase"] for s in store.snapshots(run.run_id)] == ["before", "after"]
    assert not any(secret in json.dumps(record.server_config) for secret in SECRETS)


# --- CLI -------------------------------------------------------------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli("bench", *args)


def test_cli_json_keys(fake_server, tmp_path: Path) -> None:
    server = fake_server("sglang", ttft_s=0.0, chunk_delay_s=0.001, output_tokens=8, tokens_per_chunk=2)
    proc = _cli(
        "--endpoint",
        server.url,
        "--requests",
        "4",
        "--concurrency",
        "2",
        "--warmup",
        "0",
        "--label",
        "NCCL_PROTO=LL",
        "--db",
        f"sqlite:///{tmp_path / 'cli.sqlite'}",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    for key in ("output_tokens_per_s", "accept_length", "accept_length_mean", "errors", "server_config", "run_id"):
        assert key in out
    assert set(out["ttft_ms"]) >= {"p50", "p99"} and set(out["tpot_ms"]) >= {"p50", "p99"}
    assert out["accept_length"] == 2.0 and out["errors"] == 0 and isinstance(out["run_id"], int)
    assert out["server_config"]["speculative_algorithm"] == "EAGLE3"


@pytest.mark.parametrize("endpoint", ["http://127.0.0.1:1", "ftp://example.org", "http://"])
def test_cli_bad_endpoint_exits_2(endpoint: str, tmp_path: Path) -> None:
    proc = _cli("--endpoint", endpoint, "--db", f"sqlite:///{tmp_path / 'x.sqlite'}", "--json")
    assert proc.returncode == 2
    assert proc.stderr.startswith("error:") and len(proc.stderr.strip().splitlines()) == 1


def test_unreachable_endpoint_raises_bench_error() -> None:
    with pytest.raises(BenchError, match="cannot reach"):
        servers.detect_server("http://127.0.0.1:1", timeout_s=2)


# --- pure functions --------------------------------------------------------------------------------

PROMETHEUS = """\
# HELP vllm:spec_decode_num_drafts_total Number of drafts.
# TYPE vllm:spec_decode_num_drafts_total counter
vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} 10.0
vllm:spec_decode_num_drafts_total{engine="1",model_name="m"} 30.0
vllm:spec_decode_num_drafts_created{engine="0",model_name="m"} 1.7e9
vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="m"} 70
vllm:spec_decode_num_accepted_tokens_created{engine="0",model_name="m"} 1.7e9
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="a\\"b",position="1"} 20
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="0"} 30
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="m",position="0"} 5
sglang:spec_verify_calls_total 12 1700000000000
not a sample line
"""

PROM_CASES = [
    ("vllm:spec_decode_num_drafts_total", 40.0),
    ("vllm:spec_decode_num_accepted_tokens_total", 70.0),
    ("sglang:spec_verify_calls_total", 12.0),
]


@pytest.mark.parametrize(("name", "value"), PROM_CASES)
def test_counter_snapshot_sums_exact_names(name: str, value: float) -> None:
    assert servers.counter_snapshot(PROMETHEUS)["counters"][name] == value


def test_per_position_and_label_escapes() -> None:
    snap = servers.counter_snapshot(PROMETHEUS)
    assert snap["accepted_per_pos"] == {"0": 35.0, "1": 20.0}
    labels = [lab for name, lab, _ in servers.parse_prometheus(PROMETHEUS) if lab.get("position") == "1"]
    assert labels[0]["model_name"] == 'a"b'


def test_vllm_acceptance_delta() -> None:
    before = {"counters": {servers.VLLM_DRAFTS: 10.0, servers.VLLM_ACCEPTED: 5.0}, "accepted_per_pos": {"0": 4.0}}
    after = {
        "counters": {servers.VLLM_DRAFTS: 30.0, servers.VLLM_ACCEPTED: 40.0},
        "accepted_per_pos": {"0": 20.0, "1": 10.0},
    }
    acc = servers.vllm_acceptance(before, after)
    assert acc.accept_length == 2.75 and acc.per_position == [0.8, 0.5]
    assert servers.vllm_acceptance(after, after).accept_length is None


REDACT_CASES = [
    ("api_key", "abc", True),
    ("hf_token", "x", True),
    ("admin_api_key", "x", True),
    ("token", "t", True),
    ("ssl_keyfile_password", "p", True),
    ("speculative_num_draft_tokens", 4, False),
    ("tokenizer_path", "q", False),
    ("max_total_tokens", 100, False),
    ("api_key", None, False),
    ("model_path", "hf_abcdefghijklmnop", True),
    ("author", "me", False),
]


@pytest.mark.parametrize(("key", "value", "hidden"), REDACT_CASES)
def test_redact(key: str, value: Any, hidden: bool) -> None:
    out = redact.redact({"outer": {key: value}})["outer"][key]
    assert (out == redact.PLACEHOLDER) is hidden


ENDPOINT_CASES = [
    ("127.0.0.1:30000", "http://127.0.0.1:30000"),
    ("http://host:8000/v1", "http://host:8000"),
    ("http://host:8000/v1/chat/completions", "http://host:8000"),
    ("https://host/prefix/", "https://host/prefix"),
]


@pytest.mark.parametrize(("given", "expected"), ENDPOINT_CASES)
def test_normalise_endpoint(given: str, expected: str) -> None:
    assert servers.normalise_endpoint(given) == expected


@pytest.mark.parametrize("bad", ["", "ftp://h", "http://user:pw@h:1", "http://h:notaport"])
def test_normalise_endpoint_rejects(bad: str) -> None:
    with pytest.raises(BenchError):
        servers.normalise_endpoint(bad)


def _r(i: int, out: int | None, verify: int | None, ok: bool = True, ttft: float = 0.1) -> RequestResult:
    return RequestResult(
        index=i,
        ok=ok,
        error=None if ok else "x",
        started_at=0.0,
        prompt_tokens=5,
        output_tokens=out,
        ttft_s=ttft,
        e2e_s=1.0,
        tpot_s=0.01,
        n_chunks=1,
        chunk_gaps_s=[0.02],
        spec_verify_ct=verify,
        accept_length=(out / verify) if out and verify else None,
        error_kind=None if ok else "http_error",
    )


def test_pooled_and_mean_acceptance_differ() -> None:
    s = summarize([_r(0, 100, 20), _r(1, 10, 10), _r(2, None, None, ok=False)], duration_s=2.0)
    assert s.accept_length == pytest.approx(110 / 30)  # sum / sum
    assert s.accept_length_mean == pytest.approx((5.0 + 1.0) / 2)  # mean of per-request ratios
    assert s.output_tokens == 110 and s.output_tokens_per_s == 55.0 and s.errors == 1 and s.ok == 2


PCT_CASES = [
    ([1.0, 2.0, 3.0, 4.0], {"p50": 2.5, "p90": 3.7, "p99": 3.97, "mean": 2.5}),
    ([5.0], {"p50": 5.0, "p90": 5.0, "p99": 5.0, "mean": 5.0}),
]


@pytest.mark.parametrize(("values", "expected"), PCT_CASES)
def test_percentiles(values: list[float], expected: dict[str, float]) -> None:
    got = bench.percentiles(values)
    assert got == pytest.approx(expected)


def test_percentiles_empty_are_nan() -> None:
    assert all(math.isnan(v) for v in bench.percentiles([]).values())


def test_speedup_of_recorded_runs(tmp_path: Path) -> None:
    from comparelib.live.store import Store

    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    spec_cfg = ServerConfig(engine="sglang", model="acme/target", speculative_algorithm="EAGLE3", num_steps=3)
    base_cfg = ServerConfig(engine="sglang", model="acme/target")
    ids = {}
    for name, cfg, tokens in (("run", spec_cfg, 94), ("base", base_cfg, 63), ("zero", base_cfg, 0)):
        ids[name] = store.start_run(endpoint="http://h:1", server_config=cfg)
        store.finish_run(ids[name], summarize([_r(0, tokens, 45 if cfg is spec_cfg else None)], 1.0))
    run, base, zero = (store.run(ids[k]) for k in ("run", "base", "zero"))
    assert speedup_against(run, base) == (pytest.approx(94 / 63), None)
    value, why = speedup_against(run, zero)
    assert value is None and "zero output tokens/s" in why
    store.close()


def test_bad_options_raise_input_error() -> None:
    with pytest.raises(InputError):
        run_benchmark(
            "http://127.0.0.1:1",
            prompts=PROMPTS,
            concurrency=0,
            requests=1,
            max_tokens=1,
            temperature=0.0,
            warmup=0,
            timeout_s=1.0,
            labels=[],
        )


# --- prompts ---------------------------------------------------------------------------------------


def test_bundled_prompt_set() -> None:
    rows = [json.loads(line) for line in prompts.bundled_path().read_text(encoding="utf-8").splitlines()]
    assert len(rows) >= 55
    assert {r["category"] for r in rows} >= {"chat", "code", "math", "summarisation", "multilingual"}
    assert len(prompts.load_prompts()) == len(rows)


PROMPT_ROWS = [
    ({"prompt": "hi"}, "hi"),
    ({"text": "raw"}, "raw"),
    (
        {
            "messages": [
                {"role": "system", "content": "s"},
                {"role": "user", "content": "u"},
                {"role": "assistant", "content": "a"},
            ]
        },
        [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
    ),
    (
        {"conversations": [{"from": "human", "value": "q"}, {"from": "gpt", "value": "a"}]},
        [{"role": "user", "content": "q"}],
    ),
    (
        {"conversations": [{"role": "user", "content": [{"type": "text", "text": "parts"}]}]},
        [{"role": "user", "content": "parts"}],
    ),
    ({"answer": "only an answer"}, None),
    ("plain string", "plain string"),
]


@pytest.mark.parametrize(("row", "expected"), PROMPT_ROWS)
def test_prompt_from_row(row: Any, expected: Any) -> None:
    assert prompts.prompt_from_row(row) == expected


def test_prompt_file_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"prompt": "ok"}\nnot json\n', encoding="utf-8")
    with pytest.raises(DataError, match="line 2"):
        prompts.load_prompts(bad)
    with pytest.raises(InputError):
        prompts.load_prompts(tmp_path / "missing.jsonl")


def test_http_server_that_is_not_an_inference_server(httpserver) -> None:
    with pytest.raises(BenchError, match="not like an inference server"):
        servers.detect_server(httpserver.url_for("/"), timeout_s=5)


# --- options ---------------------------------------------------------------------------------------

OPTION_CASES = [
    # (field overrides, None when valid else a fragment of the message)
    ({}, None),
    ({"concurrency": 0}, "concurrency must be an integer >= 1, got 0"),
    ({"concurrency": 2.0}, "concurrency must be an integer"),
    ({"concurrency": True}, "concurrency must be an integer"),
    ({"requests": 0}, "requests must be an integer >= 1"),
    ({"max_tokens": -1}, "max_tokens must be an integer >= 1"),
    ({"warmup": -1}, "warmup must be an integer >= 0"),
    ({"warmup": 0}, None),
    ({"temperature": -0.1}, "temperature must be a number >= 0"),
    ({"temperature": math.nan}, "temperature must be a number"),
    ({"temperature": 1}, None),
    ({"timeout_s": 0.0}, "timeout must be a number >= 0.001"),
    ({"timeout_s": math.inf}, "timeout must be a number"),
    ({"route": "grpc"}, "route must be auto, generate, chat, completions; got 'grpc'"),
    ({"route": "completions"}, None),
    ({"engine": "tgi"}, "unknown engine 'tgi': use sglang, vllm or openai"),
    ({"engine": "vllm"}, None),
    ({"labels": ("ok", "bad\udcff")}, "label 'bad?' is not valid UTF-8 text"),
    ({"labels": "one text"}, "labels must be a list of texts"),
    ({"group": "nul\x00here"}, "group 'nul?here' is not valid UTF-8 text"),
]


@pytest.mark.parametrize(("overrides", "message"), OPTION_CASES)
def test_options_are_checked_when_built(overrides: dict[str, Any], message: str | None) -> None:
    if message is None:
        options = bench.BenchOptions(endpoint="http://127.0.0.1:8000/v1/", **overrides)
        assert options.endpoint == "http://127.0.0.1:8000"
        for key, value in overrides.items():
            assert getattr(options, key) == value
        return
    with pytest.raises(bench.OptionsError) as info:
        bench.BenchOptions(endpoint="http://127.0.0.1:8000", **overrides)
    assert message in str(info.value)
    assert isinstance(info.value, BenchError) and isinstance(info.value, InputError)


def test_options_are_frozen_and_keep_the_key_out_of_repr() -> None:
    options = bench.BenchOptions(endpoint="http://h:1", labels=["a", "b"], api_key="sk-should-never-be-stored")
    assert options.labels == ("a", "b")
    assert "sk-should-never-be-stored" not in repr(options)
    assert "api_key" not in options.params()
    with pytest.raises(AttributeError):
        options.concurrency = 2  # type: ignore[misc]
    with pytest.raises(BenchError, match="not an http"):
        bench.BenchOptions(endpoint="ftp://h")


@pytest.mark.parametrize("engine", ["sglang", "vllm"])
def test_a_baseline_server_stays_a_baseline_whatever_the_form_states(fake_server, tmp_path, engine) -> None:
    """num_steps=4 left in the form from the run before must not make a run without speculation a spec run."""
    from comparelib.live.store import Store

    server = fake_server(engine, ttft_s=0.0, chunk_delay_s=0.0, speculative_algorithm=None, output_tokens=8)
    store = Store(f"sqlite:///{tmp_path / 'runs.db'}")
    run = bench.benchmark(
        bench.BenchOptions(
            endpoint=server.url, concurrency=2, requests=4, warmup=0, max_tokens=8, spec_override={"num_steps": 4}
        ),
        prompts=prompts.load_prompts(),
        recorder=store,
    )
    c = run.server_config
    assert c.speculative_algorithm is None and c.num_steps is None
    assert c.raw["stated_spec_config_ignored"] == {"num_steps": 4}
    assert servers.IGNORED_SPEC_NOTE in run.summary.notes
    record = store.runs()[-1]
    assert record.is_baseline and record.num_steps is None and "baseline" in record.title


def test_a_stated_num_steps_on_vllm_reads_speculative_not_unknown(fake_server, tmp_path) -> None:
    from comparelib.live.store import Store

    server = fake_server("vllm", ttft_s=0.0, chunk_delay_s=0.0, tokens_per_chunk=2, num_steps=4, output_tokens=8)
    store = Store(f"sqlite:///{tmp_path / 'runs.db'}")
    bench.benchmark(
        bench.BenchOptions(
            endpoint=server.url, concurrency=2, requests=4, warmup=0, max_tokens=8, spec_override={"num_steps": 4}
        ),
        prompts=prompts.load_prompts(),
        recorder=store,
    )
    record = store.runs()[-1]
    assert not record.is_baseline and record.num_steps == 4
    assert "unknown" not in record.title and "speculative steps=4" in record.title
