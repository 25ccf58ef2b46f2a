"""``python -m comparelib bench``: benchmark a live SGLang / vLLM / OpenAI-compatible server."""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
from typing import Any


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "bench",
        help="benchmark a live SGLang/vLLM server and store the results",
        description="Stream requests at a fixed concurrency; measure TTFT, TPOT, tok/s "
        "and acceptance length; store the run.",
    )
    p.add_argument("--endpoint", required=True, help="server base URL, e.g. http://127.0.0.1:30000")
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--requests", type=int, default=64, help="measured requests (after warm-up)")
    p.add_argument("--max-tokens", type=int, default=256)
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--warmup", type=int, default=2, help="warm-up requests, not measured")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per request before it counts as stalled")
    p.add_argument("--label", action="append", default=[], help="free label, repeatable (e.g. NCCL_PROTO=LL)")
    p.add_argument("--group", default=None, help="group name for a sweep or session")
    p.add_argument(
        "--engine",
        choices=("sglang", "vllm", "openai"),
        default=None,
        help="skip detection (default: detect from the server)",
    )
    p.add_argument(
        "--route",
        choices=("auto", "generate", "chat", "completions"),
        default="auto",
        help="auto: SGLang native /generate (per-request acceptance), else chat completions",
    )
    p.add_argument("--ignore-eos", action="store_true", help="ask the server to generate exactly max tokens")
    p.add_argument("--algorithm", default=None, help="stated speculative algorithm (vLLM cannot report it)")
    p.add_argument(
        "--draft-model",
        default=None,
        help="the draft the server runs (Hub id or folder), recorded when the server measures speculation but does "
        "not report its draft (vLLM never does); a draft the server reports is kept, and a baseline records none",
    )
    p.add_argument("--num-steps", type=int, default=None, help="stated num_steps / num_speculative_tokens")
    p.add_argument("--topk", type=int, default=None, help="stated topk")
    p.add_argument("--num-draft-tokens", type=int, default=None, help="stated num_draft_tokens")
    p.add_argument("--prompts", default=None, help="JSONL prompts (prompt/text or messages/conversations rows)")
    p.add_argument("--db", default=None, help="SQLAlchemy URL of the results store (default: settings)")
    p.add_argument("--no-store", action="store_true", help="do not record the run")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def _fmt(value: Any, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def run(args: argparse.Namespace) -> int:
    from comparelib.cli._util import print_json
    from comparelib.live import bench, prompts, servers

    stated = {  # the draft is not among them: it only fills what the server does not report (BenchOptions)
        "speculative_algorithm": ("--algorithm", args.algorithm),
        "num_steps": ("--num-steps", args.num_steps),
        "topk": ("--topk", args.topk),
        "num_draft_tokens": ("--num-draft-tokens", args.num_draft_tokens),
    }
    spec = {k: v for k, (_, v) in stated.items() if v is not None}
    flags = "/".join(flag for flag, v in stated.values() if v is not None)
    prompt_list = prompts.load_prompts(args.prompts)
    recorder = None
    stored_note = None
    if not args.no_store:
        if importlib.util.find_spec("comparelib.live.store") is not None:
            from comparelib.live.store import Store

            recorder = Store(args.db)
        else:
            stored_note = "results store not available: the run was not recorded"
    options = bench.BenchOptions(
        endpoint=args.endpoint,
        concurrency=args.concurrency,
        requests=args.requests,
        max_tokens=args.max_tokens,
        temperature=args.temperature,
        warmup=args.warmup,
        timeout_s=args.timeout,
        labels=tuple(args.label),
        engine=args.engine,
        spec_override=spec or None,
        group=args.group,
        route=args.route,
        ignore_eos=args.ignore_eos,
        prompt_set=prompts.prompt_set_name(args.prompts),
        spec_source=f"stated with {flags}" if flags else servers.STATED_FOR_THE_RUN,
        draft_model=args.draft_model,
        draft_source="--draft-model",
    )
    result = bench.benchmark(options, prompts=prompt_list, recorder=recorder)
    s = result.summary
    if stored_note:
        s.notes.append(stored_note)
    if args.json:
        print_json(
            {
                "run_id": result.run_id,
                "status": result.status,
                "endpoint": result.endpoint,
                "server_config": result.server_config,
                "params": result.params,
                "requests": s.requests,
                "ok": s.ok,
                "errors": s.errors,
                "error_kinds": s.error_kinds,
                "duration_s": s.duration_s,
                "output_tokens": s.output_tokens,
                "output_tokens_per_s": s.output_tokens_per_s,
                "request_throughput": s.request_throughput,
                "accept_length": s.accept_length,
                "accept_length_mean": s.accept_length_mean,
                "accept_per_position": s.accept_per_position,
                "acceptance_source": s.acceptance_source,
                "spec_decode": s.spec_decode,
                "ttft_ms": s.ttft_ms,
                "tpot_ms": s.tpot_ms,
                "e2e_ms": s.e2e_ms,
                "itl_ms": s.itl_ms,
                "notes": s.notes,
            }
        )
        return 0
    c = result.server_config
    lines = [
        f"endpoint      {result.endpoint}  ({c.engine} {c.version or ''}, model {c.model or '-'})",
        f"speculation   {servers.spec_text(c)}",
        f"status        {result.status}; run id {_fmt(result.run_id)}",
        f"requests      {s.requests} ({s.errors} failed{': ' + str(s.error_kinds) if s.errors else ''})",
        f"output tok/s  {_fmt(s.output_tokens_per_s, 1)}   requests/s {_fmt(s.request_throughput, 2)}",
        f"accept length {_fmt(s.accept_length, 3)} pooled, {_fmt(s.accept_length_mean, 3)} mean "
        f"({s.acceptance_source or 'no acceptance data'})",
        f"TTFT ms       p50 {_fmt(s.ttft_ms['p50'], 1)}  p99 {_fmt(s.ttft_ms['p99'], 1)}",
        f"TPOT ms       p50 {_fmt(s.tpot_ms['p50'], 2)}  p99 {_fmt(s.tpot_ms['p99'], 2)}",
    ]
    lines += [f"note          {n}" for n in s.notes]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
