"""``audit-dump``: check an offline hidden-state dump (shapes, NaN, loss masks, aux-layer wiring)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from comparelib.cli._util import print_json

# A script or CI step must be able to stop on a broken dump without parsing the report; 2 stays what every
# command means by it (input it cannot use), so "the dump is broken" and "the audit could not run" differ.
EXIT_BROKEN = 1

_EPILOG = """\
exit status:
  0  verdict ok or suspect (warnings and notes do not fail the run)
  1  verdict broken: at least one error finding (the report is still printed, --json too)
  2  unusable input: no such folder, no dump files, a bad --config/--embedding or option
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "audit-dump",
        help="audit a hidden-state dump (SpecForge, ModelOpt, speculators, EAGLE)",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("folder", help="folder holding the dump files (or one dump file)")
    p.add_argument(
        "--config",
        metavar="PATH|HUB_ID",
        help="the draft's config.json, the folder holding it, or its Hub id or URL (private: HF_TOKEN)",
    )
    p.add_argument("--target-hidden", type=int, metavar="N", help="the target's hidden size (overrides --config)")
    p.add_argument("--vocab", type=int, metavar="N", help="the target's vocab size (overrides --config)")
    p.add_argument(
        "--embedding",
        metavar="PATH",
        help="target checkpoint (.safetensors file or folder) holding *embed_tokens.weight",
    )
    p.add_argument("--max-files", type=int, default=8, metavar="N", help="files to sample (default 8)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    p.add_argument(
        "--all",
        dest="full",
        action="store_true",
        help="check every file, with per-layer mean/std/norm per file and drift across files",
    )
    p.add_argument(
        "--ray",
        metavar="ADDRESS",
        default=None,
        help="check files on a Ray cluster (local: start one here; needs requirements-ray.txt)",
    )
    p.add_argument("--ray-workers", type=int, default=None, metavar="N", help="Ray workers (default: cluster CPUs)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def _fmt(x: object) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.3g}"
    if isinstance(x, list):
        return "/".join(_fmt(v) for v in x)
    return str(x)


def run(args: argparse.Namespace) -> int:
    from comparelib.audit import dumps

    config = dumps.load_draft_config(args.config) if args.config else None
    embedding = dumps.load_embedding(args.embedding) if args.embedding else None
    common: dict[str, Any] = {
        "draft_config": config,
        "target_hidden_size": args.target_hidden,
        "vocab_size": args.vocab,
        "embedding": embedding,
        "max_files": args.max_files,
        "seed": args.seed,
        "full": args.full,
    }
    if args.ray:
        from comparelib.audit import cluster

        progress = None
        if sys.stderr.isatty():

            def progress(done: int, total: int) -> None:
                sys.stderr.write(f"\r{done:,} of {total:,} files checked   ")
                sys.stderr.flush()

        report = cluster.audit_dumps(
            args.folder, address=args.ray, workers=args.ray_workers, progress=progress, **common
        )
        if progress is not None:
            sys.stderr.write("\n")
    else:
        report = dumps.audit_dumps(args.folder, **common)
    if args.json:
        print_json(
            {
                "format": report.format,
                "folder": report.folder,
                "files_total": report.files_total,
                "files_read": report.files_read,
                "verdict": report.summary["verdict"],
                "findings": report.findings,
                "summary": report.summary,
                "files": report.files,
                "layer_stats": report.layer_stats,
                "runner": report.runner,
            }
        )
        return _exit_code(report.verdict)
    out = sys.stdout
    s = report.summary
    out.write(f"{report.folder}: {s['format_label']}\n")
    out.write(
        f"read {report.files_read} of {report.files_total} files (sampled {s['files_sampled']}, seed {s['seed']})\n"
    )
    left = len(s["files_left_out"])
    out.write(
        f"figures over {s['files_counted']} of {report.files_read} files read"
        + (
            f"; {left} failed checks and {'is' if left == 1 else 'are'} left out: "
            + ", ".join(s["files_left_out"][:3])
            + (f" and {left - 3} more" if left > 3 else "")
            if left
            else ""
        )
        + "\n"
    )
    supervised = _fmt(s["supervised_tokens"])
    if s.get("masked_tokens") not in (None, s["supervised_tokens"]):  # the trainer zeroes a masked last position
        supervised += f" of {s['masked_tokens']} masked (each sample's last position is not supervised)"
    out.write(
        f"tokens {s['tokens']}, supervised {supervised}, "
        # a median RMS per element, not the L2 norm per token of the --all lines (~sqrt(hidden) larger)
        f"aux RMS per element (median over tokens, mean over files), low/mid/high {_fmt(s['mean_aux_norms'])}\n"
    )
    out.write(
        f"{'file':<40} {'status':<10} {'len':>5} {'H':>6} {'dtype':<9} {'mask':>5} {'nan':>4} {'aux RMS':<20} "
        "aux cos\n"
    )
    for row in report.files:
        if row.get("status") in ("refused", "unreadable"):
            out.write(f"{row['name']:<40} {row['status']}\n")
            continue
        out.write(
            f"{row['name']:<40} {row['status']:<10} {_fmt(row['seq_len']):>5} {_fmt(row['hidden']):>6} "
            f"{_fmt(row['dtype']):<9} "
            f"{_fmt(row['loss_mask_share']):>5} {row['nan']:>4} {_fmt(row['aux_norms']):<20} "
            f"{_fmt(row['aux_pairwise_cos'])}\n"
        )
    for line in report.finding_lines():
        out.write(f"{line}\n")
    for layer, d in (s.get("layer_drift") or {}).items():
        out.write(
            f"layer {layer}: {dumps.LAYER_NORM_LABEL} {d['min_norm']:.4g}..{d['max_norm']:.4g} "
            f"over {d['files']} files "
            f"(median {d['median_norm']:.4g}, largest jump between files {d['max_jump']:.2f}x)\n"
        )
    out.write(f"{report.headline()}\n")
    return _exit_code(report.verdict)


def _exit_code(verdict: str) -> int:
    return EXIT_BROKEN if verdict == "broken" else 0
