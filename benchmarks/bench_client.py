"""How exactly, and how cheaply, the benchmark client measures a streaming server; GuideLLM as reference.

Runs tests/fake_inference.py in its own process (pinned to CPU 0) with known TTFT and inter-chunk
delays, and the client in this process (pinned to CPU 1), at concurrency 1..256. The truth is what
the server did by its own clock (time.perf_counter, system-wide monotonic on Linux), reported next
to the nominal injected delays:

* TPOT error: client mean TPOT = (E2E - TTFT)/(N - 1) against the server's (last - first chunk)/(N - 1).
  GuideLLM's comparable figure is its "inter_token_latency" (its own TPOT includes TTFT).
* throughput error: client output tok/s against tokens / (first request received .. last finished).
* chunk rate: a zero-delay server streams 1-token chunks; chunks/s (wall) and chunks per CPU-second of
  the client. GuideLLM's CPU is taken as the difference between a large and a tiny run, so its
  start-up is not charged.

    python benchmarks/bench_client.py [--quick] [--json] [--guidellm PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from comparelib.live.bench import run_benchmark  # noqa: E402

SERVER_CPU = {0}
CLIENT_CPU = {1}
PROMPTS = [f"Benchmark prompt number {i}: tell me something about the number {i}." for i in range(64)]


def _pin(cpus: set[int]) -> None:
    try:
        available = os.sched_getaffinity(0)
        if cpus <= available and len(available) > 1:
            os.sched_setaffinity(0, cpus)
    except (AttributeError, OSError):
        pass


class FakeServerProcess:
    def __init__(self, **opts: Any) -> None:
        args = [sys.executable, "-m", "tests.fake_inference", "--port", "0"]
        for key, value in opts.items():
            args += [f"--{key.replace('_', '-')}", str(value)]
        self.proc = subprocess.Popen(
            args, cwd=ROOT, stdout=subprocess.PIPE, text=True, preexec_fn=lambda: _pin(SERVER_CPU)
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if "listening on" not in line:
            self.stop()
            raise RuntimeError(f"fake server did not start: {line!r}")
        self.url = line.rsplit(" ", 1)[-1].strip()

    def _call(self, path: str, method: str = "GET") -> Any:
        req = urllib.request.Request(self.url + path, method=method, data=b"" if method == "POST" else None)
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.loads(resp.read())

    def reset(self) -> None:
        self._call("/_fake/reset", "POST")

    def timings(self) -> list[dict[str, float]]:
        return self._call("/_fake/timings")["timings"]

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def server_truth(timings: list[dict[str, float]]) -> dict[str, float]:
    tpots = [(t["last"] - t["first"]) / (t["tokens"] - 1) for t in timings if t["tokens"] > 1]
    span = max(t["done"] for t in timings) - min(t["received"] for t in timings)
    return {
        "tpot_ms": 1000 * sum(tpots) / len(tpots),
        "ttft_ms": 1000 * sum(t["first"] - t["received"] for t in timings) / len(timings),
        "tokens_per_s": sum(t["tokens"] for t in timings) / span,
        "requests": len(timings),
    }


def run_ours(url: str, concurrency: int, requests: int, warmup: int = 0) -> dict[str, Any]:
    cpu0, t0 = time.process_time(), time.perf_counter()
    run = run_benchmark(
        url,
        prompts=PROMPTS,
        concurrency=concurrency,
        requests=requests,
        max_tokens=4096,
        temperature=0.0,
        warmup=warmup,
        timeout_s=120.0,
        labels=[],
        engine="vllm",
    )
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    s = run.summary
    return {
        "tpot_ms": s.tpot_ms["mean"],
        "ttft_ms": s.ttft_ms["mean"],
        "tokens_per_s": s.output_tokens_per_s,
        "warmup": warmup,
        "errors": s.errors,
        "chunks": sum(r.n_chunks for r in run.results),
        "duration_s": s.duration_s,
        "wall_s": wall,
        "cpu_s": cpu,
    }


def find_guidellm(given: str | None) -> str | None:
    for candidate in (given, shutil.which("guidellm"), "/tmp/guidellm-venv/bin/guidellm"):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def run_guidellm(binary: str, url: str, concurrency: int, requests: int, workdir: Path) -> dict[str, Any]:
    data = workdir / "prompts.jsonl"
    if not data.exists():
        data.write_text("".join(json.dumps({"prompt": p}) + "\n" for p in PROMPTS), encoding="utf-8")
    out = workdir / f"guidellm-{concurrency}-{requests}-{time.monotonic_ns()}.json"
    cmd = [
        binary,
        "run",
        "--backend",
        f"kind=openai_http,target={url}",
        "--profile",
        f"kind=concurrent,streams={concurrency}",
        "--constraint",
        f"kind=max_requests,count={requests}",
        "--data",
        f"kind=json_file,path={data}",
        "--output",
        f"kind=json,path={out}",
        "--disable-console",
    ]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(
        cmd, capture_output=True, text=True, timeout=600, cwd=workdir, preexec_fn=lambda: _pin(CLIENT_CPU)
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0 or not out.exists():
        raise RuntimeError(f"guidellm failed ({proc.returncode}): {(proc.stderr or proc.stdout)[-400:]}")
    bench = json.loads(out.read_text())["benchmarks"][0]
    m = bench["metrics"]

    def stat(name: str, key: str = "mean") -> float:
        return float(m[name]["successful"][key])

    tokens = stat("output_token_count", "total_sum")
    return {
        "tpot_ms": stat("inter_token_latency_ms"),
        "ttft_ms": stat("time_to_first_token_ms"),
        "tokens_per_s": tokens / float(bench["duration"]),
        "duration_s": float(bench["duration"]),
        "errors": int(m["request_totals"]["errored"]) if isinstance(m.get("request_totals"), dict) else 0,
        "chunks": stat("request_streaming_iterations_count", "total_sum"),
        "wall_s": wall,
        "cpu_s": (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
    }


def rel(measured: float, truth: float) -> float:
    return (measured - truth) / truth


def accuracy(
    client: str, runner: Any, server: FakeServerProcess, levels: list[int], waves: int, nominal_tpot_ms: float
) -> list[dict[str, Any]]:
    rows = []
    for c in levels:
        requests = max(waves * c, 8)
        server.reset()
        got = runner(c, requests)
        # warm-up streams (which open the connections) finish before the measured ones start
        timings = sorted(server.timings(), key=lambda t: t["received"])[got.get("warmup", 0) :]
        truth = server_truth(timings)
        rows.append(
            {
                "client": client,
                "concurrency": c,
                "requests": requests,
                "errors": got["errors"],
                "tpot_ms": got["tpot_ms"],
                "tpot_truth_ms": truth["tpot_ms"],
                "tpot_nominal_ms": nominal_tpot_ms,
                "tpot_error": rel(got["tpot_ms"], truth["tpot_ms"]),
                "tpot_error_vs_nominal": rel(got["tpot_ms"], nominal_tpot_ms),
                "ttft_ms": got["ttft_ms"],
                "ttft_truth_ms": truth["ttft_ms"],
                "tokens_per_s": got["tokens_per_s"],
                "tokens_per_s_truth": truth["tokens_per_s"],
                "throughput_error": rel(got["tokens_per_s"], truth["tokens_per_s"]),
            }
        )
        print(
            f"  {client:8s} c={c:<4d} TPOT {got['tpot_ms']:.3f} ms (truth {truth['tpot_ms']:.3f}, "
            f"err {100 * rows[-1]['tpot_error']:+.2f}%)  tok/s {got['tokens_per_s']:.0f} "
            f"(truth {truth['tokens_per_s']:.0f}, err {100 * rows[-1]['throughput_error']:+.2f}%)  "
            f"errors {got['errors']}",
            file=sys.stderr,
            flush=True,
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="fewer levels and requests (CI-sized)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--guidellm", default=None, help="path to the guidellm binary (default: search)")
    p.add_argument("--no-guidellm", action="store_true", help="measure only this client")
    p.add_argument("--levels", default=None, help="comma-separated concurrency levels (must include 64)")
    args = p.parse_args(argv)
    _pin(CLIENT_CPU)
    levels = [1, 16, 64] if args.quick else [1, 4, 16, 64, 256]
    if args.levels:
        levels = sorted({int(x) for x in args.levels.split(",") if x.strip()} | {64})
    waves = 2 if args.quick else 4
    ttft_ms, delay_ms, per_chunk, out_tokens = 50.0, 20.0, 4, 64
    nominal_tpot = (out_tokens // per_chunk - 1) * delay_ms / (out_tokens - 1)
    binary = None if args.no_guidellm else find_guidellm(args.guidellm)
    report: dict[str, Any] = {
        "setup": {
            "ttft_ms": ttft_ms,
            "chunk_delay_ms": delay_ms,
            "tokens_per_chunk": per_chunk,
            "output_tokens": out_tokens,
            "levels": levels,
            "waves": waves,
            "server_cpu": sorted(SERVER_CPU),
            "client_cpu": sorted(CLIENT_CPU),
        },
        "guidellm": None,
    }
    version = None
    if binary:
        v = subprocess.run([binary, "--version"], capture_output=True, text=True)
        version = v.stdout.strip().rsplit(" ", 1)[-1] if v.returncode == 0 else None
    report["guidellm_version"] = version

    print(
        f"accuracy: TTFT {ttft_ms:g} ms, {out_tokens // per_chunk} chunks of {per_chunk} tokens every "
        f"{delay_ms:g} ms (nominal TPOT {nominal_tpot:.3f} ms)",
        file=sys.stderr,
    )
    server = FakeServerProcess(
        engine="vllm", ttft_ms=ttft_ms, chunk_delay_ms=delay_ms, tokens_per_chunk=per_chunk, output_tokens=out_tokens
    )
    workdir = Path(tempfile.mkdtemp(prefix="bench-client-"))
    try:
        ours = accuracy("ours", lambda c, n: run_ours(server.url, c, n, warmup=c), server, levels, waves, nominal_tpot)
        report["accuracy"] = ours
        theirs: list[dict[str, Any]] = []
        if binary:
            theirs = accuracy(
                "guidellm",
                lambda c, n: run_guidellm(binary, server.url, c, n, workdir),
                server,
                levels,
                waves,
                nominal_tpot,
            )
            report["accuracy"] += theirs
    finally:
        server.stop()

    chunk_tokens = 1000 if args.quick else 2000
    rate_c, rate_n = 64, (64 if args.quick else 128)
    print(
        f"chunk rate: zero-delay server, {rate_n} requests x {chunk_tokens} one-token chunks at concurrency {rate_c}",
        file=sys.stderr,
    )
    server = FakeServerProcess(
        engine="vllm", ttft_ms=0, chunk_delay_ms=0, tokens_per_chunk=1, output_tokens=chunk_tokens
    )
    try:
        run_ours(server.url, 8, 8)  # warm the imports and the server
        got = run_ours(server.url, rate_c, rate_n)
        rate = {
            "ours": {
                "chunks": got["chunks"],
                "chunks_per_s": got["chunks"] / got["duration_s"],
                "cpu_s": got["cpu_s"],
                "chunks_per_cpu_s": got["chunks"] / got["cpu_s"],
                "errors": got["errors"],
            }
        }
        print(
            f"  ours     {rate['ours']['chunks_per_s']:,.0f} chunks/s, {rate['ours']['chunks_per_cpu_s']:,.0f} "
            f"chunks per CPU-second",
            file=sys.stderr,
        )
        if binary:
            small = run_guidellm(binary, server.url, 1, 1, workdir)
            big = run_guidellm(binary, server.url, rate_c, rate_n, workdir)
            cpu = max(big["cpu_s"] - small["cpu_s"], 1e-9)
            chunks = big["chunks"] - small["chunks"]
            rate["guidellm"] = {
                "chunks": big["chunks"],
                "chunks_per_s": big["chunks"] / big["duration_s"],
                "cpu_s": cpu,
                "chunks_per_cpu_s": chunks / cpu,
                "errors": big["errors"],
            }
            print(
                f"  guidellm {rate['guidellm']['chunks_per_s']:,.0f} chunks/s, "
                f"{rate['guidellm']['chunks_per_cpu_s']:,.0f} chunks per CPU-second",
                file=sys.stderr,
            )
        report["chunk_rate"] = rate
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)

    at64 = {r["client"]: r for r in report["accuracy"] if r["concurrency"] == 64}
    headline: dict[str, Any] = {
        "ours_tpot_error_c64": at64["ours"]["tpot_error"],
        "ours_throughput_error_c64": at64["ours"]["throughput_error"],
        "ours_chunks_per_s": report["chunk_rate"]["ours"]["chunks_per_s"],
        "ours_chunks_per_cpu_s": report["chunk_rate"]["ours"]["chunks_per_cpu_s"],
    }
    if binary and "guidellm" in at64:
        g = report["chunk_rate"]["guidellm"]
        headline.update(
            {
                "guidellm_tpot_error_c64": at64["guidellm"]["tpot_error"],
                "guidellm_throughput_error_c64": at64["guidellm"]["throughput_error"],
                "guidellm_chunks_per_s": g["chunks_per_s"],
                "guidellm_chunks_per_cpu_s": g["chunks_per_cpu_s"],
                "chunk_rate_ratio": report["chunk_rate"]["ours"]["chunks_per_s"] / g["chunks_per_s"],
                "chunks_per_cpu_s_ratio": report["chunk_rate"]["ours"]["chunks_per_cpu_s"] / g["chunks_per_cpu_s"],
            }
        )
    report["headline"] = headline
    report["guidellm"] = "available" if binary else "not available"
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print(
        f"{'client':9s} {'conc':>5s} {'TPOT ms':>9s} {'truth':>8s} {'err %':>7s} {'tok/s':>9s} {'truth':>9s} "
        f"{'err %':>7s} {'errors':>6s}"
    )
    for r in report["accuracy"]:
        print(
            f"{r['client']:9s} {r['concurrency']:5d} {r['tpot_ms']:9.3f} {r['tpot_truth_ms']:8.3f} "
            f"{100 * r['tpot_error']:+7.2f} {r['tokens_per_s']:9.0f} {r['tokens_per_s_truth']:9.0f} "
            f"{100 * r['throughput_error']:+7.2f} {r['errors']:6d}"
        )
    for name, r in report["chunk_rate"].items():
        print(f"chunk rate {name:9s} {r['chunks_per_s']:12,.0f} chunks/s  {r['chunks_per_cpu_s']:12,.0f} per CPU-s")
    if not binary:
        print("guidellm: not available")
    else:
        print(
            f"ratio ours/guidellm (guidellm {version}): chunks/s {headline['chunk_rate_ratio']:.2f}x, "
            f"chunks per CPU-s {headline['chunks_per_cpu_s_ratio']:.2f}x"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
