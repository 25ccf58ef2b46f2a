"""``eval-draft``: what a trained EAGLE-3 checkpoint accepts on hidden-state dumps, before any server exists."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from comparelib.analysis import offline


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
    p.add_argument(
        "--teacher",
        default="dump",
        choices=["dump", "target"],
        help="tokens the teacher-forced figures (acc, al_positions, simulated_acc_len) feed: the dump's, as SpecForge "
        "does (default), or the target's greedy tokens (faster: no second chain; al_replay is the same either way)",
    )
    p.add_argument("--data", help="the prepared JSONL the dump was made from: row domains give by_domain")
    p.add_argument(
        "--draft-cost", help="a draft-cost --json file of this draft: predicts the best num_steps per batch size"
    )
    p.add_argument("--verify-ms", type=float, help="with --draft-cost: the target's verify forward time per cycle, ms")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from comparelib.analysis import offline
    from comparelib.cli._util import print_json
    from comparelib.errors import InputError

    if args.draft_cost and args.verify_ms is None:
        raise InputError("--draft-cost needs --verify-ms: the target's verify forward per cycle, in ms")
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
        teacher=args.teacher,
    )
    best = None
    if args.draft_cost and args.verify_ms is not None:
        best = _best_steps(ev, args.draft_cost, args.verify_ms)
    if args.json:
        out = ev.to_json()
        if best is not None:
            out["best_steps"] = best
        print_json(out)
        return 0
    w = sys.stdout.write
    w(f"{ev.draft} on {ev.samples} samples ({ev.tokens:,} tokens, {ev.format}), {ev.device} {ev.dtype}\n")
    if ev.skipped:  # said up front: the figures below leave these files out
        n = len(ev.skipped)
        w(f"{n} dump file{'s' if n != 1 else ''} left out (listed below, with why)\n")
    w(f"target tokens: {ev.labels_from}\n")
    if ev.teacher == "dump":
        w(offline.teacher_words(ev.teacher_tokens, ev.tokens, ev.rows) + "\n")
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
    if best is not None:
        for row in best["rows"]:
            if row["best"]:
                w(f"batch {row['batch']}: best num_steps {row['num_steps']} ({row['tok_s']:.0f} tok/s predicted)\n")
        for line in best["evidence"]:
            w(f"  {line}\n")
    w(f"{ev.seconds:.1f} s\n")
    return 0


def _best_steps(ev: offline.Evaluation, path: str, verify_ms: float) -> dict[str, Any]:
    from comparelib.analysis import draftcost, speedup

    record = draftcost.load_recorded(path)
    cost = record["drafts"][0]
    al = {b["steps"]: b["al_replay"] for b in ev.by_steps}
    frame, evidence = speedup.offline_best_steps(
        al,
        cost,
        verify_ms=verify_ms,
        al_source=f"eval-draft on {ev.dumps}",
        verify_source="given (--verify-ms)",
    )
    return {"rows": frame.to_dict(orient="records"), "evidence": evidence}
