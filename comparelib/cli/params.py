"""``params``: exact parameter counts, checkpoint reconciliation and wiring lint for one model."""

from __future__ import annotations

import argparse
import sys

from comparelib.cli._util import print_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("params", help="count a model's parameters by component and lint its wiring")
    p.add_argument("model", help="Hub URL, org/name[@rev], hf:// URI, local folder, or registry:<hub id>")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--target", help="the target model (Hub URL, local folder or a known hub id)")
    group.add_argument("--target-layers", type=int, metavar="N", help="the target's number of decoder layers")
    p.add_argument(
        "--engine",
        metavar="ENGINE[ VERSION]",
        help="the engine you serve with, e.g. 'SGLang 0.5.23' or 'vLLM' (newest rules); "
        "default: check the newest rules of SGLang and vLLM",
    )
    p.add_argument("--no-header", action="store_true", help="do not read safetensors headers")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from comparelib.models import comparison, lint, params

    entry = comparison.load_entry(
        args.model,
        target=args.target,
        target_layers=lint.parse_target_layers(args.target_layers, name="--target-layers"),
        with_header=not args.no_header,
        serving=args.engine,
    )
    data = comparison.entry_json(entry)
    if args.json:
        print_json(data)
        return 0
    out = sys.stdout
    p = data["params"]
    note = comparison.role_note(entry)
    role = "" if note is None else ", a target model"
    out.write(f"{entry.label}  ({entry.spec.architecture}, {entry.spec.dialect}{role})\n")
    if note is not None:  # said first: every count below is a target's, not a draft's
        out.write(f"note: {note}\n")
    if entry.commit_sha:
        out.write(f"commit {entry.commit_sha}\n")
    # a target's weights are no draft's trainable part: its trainable/frozen split is not shown as one
    skipped = {"trainable", "frozen"} if note is not None else set()
    for key in (*params.HEADLINE, "mtp", "vision"):
        if key in skipped:
            continue
        if p[key] is not None and not (key in {"mtp", "vision"} and not p[key]):
            out.write(f"  {key:<20} {p[key]:>18,}\n")
    out.write("components:\n")
    for comp in data["components"]:
        out.write(f"  {comp['name']:<12} {comp['params']:>18,}\n")
    for f in data["lint"]:
        out.write(f"[{f['severity']}] {f['code']}: {f['message']}\n")
    return 0
