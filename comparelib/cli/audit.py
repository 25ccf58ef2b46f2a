"""``python -m comparelib audit``: what is in a draft's training data, counted with the target's tokenizer."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "audit",
        help="audit a training dataset (JSONL/JSON/Parquet/Arrow, folder or Hub id)",
        description="Count samples, tokens and loss-masked tokens, length percentiles, "
        "duplicates and anomalies of a draft-training dataset.",
    )
    p.add_argument("source", help="a .jsonl/.json/.parquet/.arrow file, a folder, or a Hub dataset (org/name or URL)")
    p.add_argument("--tokenizer", help="tokenizer.json, its folder, or a Hub model id (default: byte estimate)")
    p.add_argument("--max-length", type=int, default=2048, help="trainer max_length (default 2048)")
    p.add_argument("--sample", type=int, default=None, help="audit N random rows and estimate totals with a 95%% CI")
    p.add_argument("--seed", type=int, default=0, help="random seed for --sample")
    p.add_argument(
        "--format", default="auto", help="auto, specforge, modelopt, sharegpt, openai, text or prompt_response"
    )
    p.add_argument("--config", default=None, help="Hub dataset config name")
    p.add_argument("--split", default=None, help="Hub dataset split (default train)")
    p.add_argument(
        "--ray",
        metavar="ADDRESS",
        default=None,
        help="run as a Ray Data pipeline on this cluster (local: start one here; needs requirements-ray.txt)",
    )
    p.add_argument("--ray-workers", type=int, default=None, metavar="N", help="Ray workers (default: cluster CPUs)")
    p.add_argument("--export", choices=("csv", "md", "json"), default=None, help="print the summary table instead")
    p.add_argument("--json", action="store_true", help="print the full result as JSON")
    p.set_defaults(func=run)


def _stderr_progress() -> Any:
    if not sys.stderr.isatty():
        return None

    from comparelib.audit.scan import progress_text

    def show(rows: int, rate: float, eta: float | None) -> None:
        sys.stderr.write(f"\r{progress_text(rows, rate, eta)[1]}   ")
        sys.stderr.flush()

    return show


def run(args: argparse.Namespace) -> int:
    from comparelib.audit.scan import audit
    from comparelib.cli._util import print_json
    from comparelib.errors import InputError

    progress = _stderr_progress()
    if args.ray:
        if args.sample is not None or args.config or args.split:
            raise InputError("--ray scans every row of local files: leave out --sample, --config and --split")
        from comparelib.audit import cluster

        result = cluster.audit(
            args.source,
            address=args.ray,
            tokenizer=args.tokenizer,
            max_length=args.max_length,
            fmt=args.format,
            seed=args.seed,
            workers=args.ray_workers,
            progress=progress,
        )
    else:
        result = audit(
            args.source,
            tokenizer=args.tokenizer,
            max_length=args.max_length,
            fmt=args.format,
            sample=args.sample,
            seed=args.seed,
            config=args.config,
            split=args.split,
            progress=progress,
        )
    if progress is not None:
        sys.stderr.write("\n")
    if args.json:
        print_json(result)
    elif args.export:
        sys.stdout.write(result.export(args.export))
    else:
        width = max(len(k) for k, _ in result.summary_rows())
        for key, value in result.summary_rows():
            shown = f"{value:,}" if isinstance(value, int) else str(value)
            print(f"{key:<{width}}  {shown}")
        for note in result.notes:
            print(f"note: {note}")
        for err in result.file_errors:
            print(f"file not read: {err['file']}: {err['error']}")
        if result.runner and result.runner.get("retry_note"):
            print(f"note: {result.runner['retry_note']}")
    return 0
