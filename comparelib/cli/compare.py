"""``compare``: the side-by-side table for several drafts, in csv / md / json / latex."""

from __future__ import annotations

import argparse
import sys

FORMATS = ("csv", "md", "json", "latex")  # comparelib.export.FORMATS, without importing pandas for --help


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="compare several drafts side by side")
    p.add_argument("models", nargs="+", help="Hub URLs, local folders, or registry:<hub id>")
    p.add_argument("--format", choices=FORMATS, default="md")
    p.add_argument(
        "--engine",
        metavar="ENGINE[ VERSION]",
        help="the engine you serve with, e.g. 'SGLang 0.5.23' or 'vLLM' (newest rules); "
        "default: check the newest rules of SGLang and vLLM",
    )
    p.add_argument("--no-header", action="store_true", help="do not read safetensors headers")
    p.add_argument("--db", help="results store with attached training volumes (default: SPECDRAFT_DB or the app's)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from comparelib import export, tables
    from comparelib.errors import InputError
    from comparelib.live.store import Store
    from comparelib.models import comparison

    if args.engine:
        from comparelib.models import engines

        engines.parse_choice(args.engine)  # a bad choice is one message and exit 2, not one per model
    entries, errors = comparison.load_entries(args.models, with_header=not args.no_header, serving=args.engine)
    if not entries:  # nothing to show: one error line naming every source that failed
        raise InputError("none of the models could be loaded: " + "; ".join(f"{src}: {msg}" for src, msg in errors))
    for src, msg in errors:
        print(f"error: {src}: {' '.join(msg.split())}", file=sys.stderr)
    store = Store(args.db)
    store.ensure_examples()
    volumes = comparison.volumes_by_draft(store.data_volumes())
    sys.stdout.write(export.render(comparison.table(entries, volumes), args.format, table=tables.DRAFT_PARAMS))
    # a target model among the drafts: said under the table (md), else on stderr so csv/json/latex stay parseable
    # (their rows carry "role": "target")
    for note in filter(None, map(comparison.role_note, entries)):
        if args.format == "md":
            sys.stdout.write(f"\nNote: {note}\n")
        else:
            print(f"note: {note}", file=sys.stderr)
    if args.format == "md":
        for sentence in comparison.headlines(entries):
            sys.stdout.write(f"\n{sentence}\n")
        for sentence in comparison.lint_headlines(entries):
            sys.stdout.write(f"\nWiring: {sentence}\n")
    return 2 if errors else 0
