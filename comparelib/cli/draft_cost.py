"""``draft-cost``: build a draft from its config with random weights and time its steps with torch."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "draft-cost",
        help="time one draft step and an N-step proposal with torch (random weights, CPU or GPU)",
    )
    p.add_argument("draft", help="registry:<hub id>, example:own-kimi-k2.5-draft, Hub URL, org/name or local folder")
    p.add_argument("--target", help="the target model (Hub URL, local folder or a known hub id)")
    p.add_argument("--device", default=None, help="cpu or cuda (default: cuda when torch sees a GPU, else cpu)")
    p.add_argument("--dtype", default="bf16", choices=["bf16", "fp32"], help="weight and KV dtype (default bf16)")
    p.add_argument("--batch", default="1,8,32,64", help="batch sizes, comma-separated (default 1,8,32,64)")
    p.add_argument("--context", type=int, default=2048, help="KV-cache tokens each sequence attends to (default 2048)")
    p.add_argument("--steps", default="1..3", help="proposal length N, as N or 1..N (default 1..3)")
    p.add_argument("--repeats", type=int, default=10, help="timed repeats per measurement (default 10)")
    p.add_argument("--warmup", type=int, default=3, help="untimed warm-up runs per batch size (default 3)")
    p.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's own choice)")
    p.add_argument("--no-cuda-graph", action="store_true", help="on a GPU, time eager forwards (default: CUDA graphs)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from comparelib.analysis import draftcost
    from comparelib.cli._util import print_json
    from comparelib.models import comparison

    batches = draftcost.parse_batches(args.batch)
    steps = draftcost.parse_steps(args.steps)
    device = args.device or ("cuda" if _cuda() else "cpu")
    device = draftcost.resolve_device(device)
    entry = comparison.load_entry(args.draft, target=args.target, with_header=False)
    progress = None if args.json else (lambda msg: print(msg, file=sys.stderr))
    cost = draftcost.measure(
        entry.spec,
        label=entry.label,
        device=device,
        dtype=args.dtype,
        batches=batches,
        context=args.context,
        steps=steps,
        repeats=args.repeats,
        warmup=args.warmup,
        threads=args.threads,
        cuda_graphs=not args.no_cuda_graph,
        progress=progress,
    )
    if args.json:
        print_json(cost.to_json())
        return 0
    w = sys.stdout.write
    p = cost.params
    w(f"{cost.draft} on {cost.device_name}, {cost.dtype}, context {cost.context}, proposal of {cost.steps} steps\n")
    w(f"params {p['total']:,} ({p['excluding_embedding']:,} outside the embedding; lm_head {p['lm_head']:,})\n")
    if cost.peak_gbs:
        w(f"peak memory bandwidth {cost.peak_gbs:.0f} GB/s (nominal); measured copy {cost.reference_gbs:.0f} GB/s\n")
    else:
        w(f"measured copy bandwidth (read + write) {cost.reference_gbs:.1f} GB/s\n")
    w("batch   step ms  ±(IQR)  proposal ms  MB/step    GB/s  of peak/ref\n")
    for r in cost.results:
        frac = r.fraction_of_peak if r.fraction_of_peak is not None else r.fraction_of_reference
        w(
            f"{r.batch:>5}  {r.step_ms:8.3f}  {r.step_ms_spread:6.3f}  {r.proposal_ms:11.3f}  "
            f"{r.bytes_per_step / 1e6:7.1f}  {r.bandwidth_gbs:6.1f}  {'' if frac is None else f'{frac * 100:5.0f}%'}\n"
        )
    w(draftcost.closeness_sentence(cost) + "\n")
    return 0


def _cuda() -> bool:
    try:
        import torch
    except ImportError:  # pragma: no cover
        return False
    return bool(torch.cuda.is_available())
