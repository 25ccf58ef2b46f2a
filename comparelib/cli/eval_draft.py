"""``eval-draft``: what a trained EAGLE-3 checkpoint accepts on hidden-state dumps, before any server exists."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "eval-draft",
        help="offline acceptance of a trained EAGLE-3 draft on hidden-state dumps (replay AL per num_steps)",
    )
    p.add_argument("draft", help="the draft: a local folder with config.json + safetensors, or a Hub repo")
    p.add_argument("--dumps", required=True, help="folder of hidden-state dumps (SpecForge, speculators, ModelOpt)")
    p.add_argument(
        "--target", help="the target (local folder or Hub repo): only its embedding, norm, lm_head are read"
    )
    p.add_argument("--steps", type=int, default=8, help="largest num_steps evaluated; 1..8 in one pass (default 8)")
    p.add_argument("--device", default="cpu", help="cpu or cuda (default cpu)")
    p.add_argument("--dtype", default="fp32", choices=["fp32", "bf16"], help="compute dtype (default fp32)")
    p.add_argument("--max-samples", type=int, default=None, help="evaluate at most N dump files (sorted order)")
    p.add_argument("--data", help="the prepared JSONL the dump was made from: row domains give by_domain")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from comparelib.analysis import offline
    from comparelib.cli._util import print_json

    domains = offline.domain_map(args.data) if args.data else None
    progress = None if args.json else (lambda msg: print(msg, file=sys.stderr))
    ev = offline.evaluate(
        args.draft,
        args.dumps,
        target=args.target,
        steps=args.steps,
        device=args.device,
        dtype=args.dtype,
        max_samples=args.max_samples,
        domains=domains,
        progress=progress,
    )
    if args.json:
        print_json(ev.to_json())
        return 0
    w = sys.stdout.write
    w(f"{ev.draft} on {ev.samples} samples ({ev.tokens:,} tokens, {ev.format}), {ev.device} {ev.dtype}\n")
    w(f"target tokens: {ev.labels_from}\n")
    w("steps  AL replay (95% CI)        AL positions*  SpecForge sim.**  cycles\n")
    for b in ev.by_steps:
        ci = b["al_replay_ci"]
        cis = f"[{ci[0]:.2f}, {ci[1]:.2f}]" if ci else ""
        alp = b["al_positions"]
        w(
            f"{b['steps']:>5}  {b['al_replay']:.3f} {cis:<16}  {'' if alp is None else f'{alp:.3f}':>13}  "
            f"{b['simulated_acc_len']:>16.3f}  {b['cycles']:>6}\n"
        )
    w("acc (conditional): " + ", ".join("-" if a is None else f"{a:.3f}" for a in ev.acc) + "\n")
    v = ev.vocab
    ceiling = "-" if v["ceiling"] is None else f"{v['ceiling'] * 100:.1f}%"
    w(f"draft vocabulary {v['draft_vocab']:,} of {v['target_vocab']:,}: can emit {ceiling} of the target's tokens\n")
    for f in v["findings"]:
        w(f"  {f['severity']}: {f['code']}: {f['message']}\n")
    for name, d in ev.by_domain.items():
        al = d["by_steps"][-1]["al_replay"]
        w(f"  domain {name}: {d['samples']} samples, AL replay {al:.3f} at {len(d['by_steps'])} steps\n")
    w(f"* {offline.POSITIONS_NOTE}\n** {offline.SPECFORGE_NOTE}\n")
    for s in ev.skipped:
        w(f"skipped {s}\n")
    w(f"{ev.seconds:.1f} s\n")
    return 0
