"""``runs``: the stored benchmark runs (measured, imported and the built-in example)."""

from __future__ import annotations

import argparse
import sys

FORMATS = ("csv", "md", "json", "latex")  # comparelib.export.FORMATS, without importing pandas for --help

TABLE_COLUMNS = [
    "id",
    "kind",
    "group",
    "status",
    "engine",
    "speculative_algorithm",
    "num_steps",
    "topk",
    "num_draft_tokens",
    "requests",
    "errors",
    "output_tokens_per_s",
    "accept_length",
    "tpot_p50_ms",
    "labels",
]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("runs", help="list stored benchmark runs")
    p.add_argument(
        "--db", metavar="URL", help="SQLAlchemy database URL (default: SPECDRAFT_DB, else the local SQLite file)"
    )
    p.add_argument("--group", help="only runs of this group")
    p.add_argument("--no-examples", action="store_true", help="leave out the built-in example runs")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print a JSON list of run records")
    out.add_argument("--format", choices=FORMATS, help="print the runs table as csv / md / json / latex")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from comparelib import export, tables
    from comparelib.cli._util import print_json
    from comparelib.live.store import Store

    store = Store(args.db)
    try:
        store.ensure_examples()
        include = not args.no_examples
        if args.json:
            print_json(store.runs(group=args.group, include_examples=include))
            return 0
        frame = store.runs_frame(group=args.group, include_examples=include)
        if args.format:
            sys.stdout.write(export.render(frame, args.format, table=tables.RUNS))
            return 0
        if frame.empty:
            print(f"no runs stored in {store.display_url}")
            return 0
        table = frame[TABLE_COLUMNS].copy()
        table["status"] = ["running (incomplete)" if s == "running" else s for s in table["status"]]
        print(_text_table(table))
        print(f"\n{len(frame)} run(s) in {store.display_url}; kind=example rows are built-in example data")
        return 0
    finally:
        store.close()


def _text_table(frame: object) -> str:
    """Plain text: missing values as "-", numbers with two decimals."""
    import pandas as pd

    assert isinstance(frame, pd.DataFrame)
    out = frame.astype(object)
    for col in out.columns:
        is_float = frame[col].dtype.kind == "f"
        out[col] = ["-" if pd.isna(v) else (f"{v:.2f}" if is_float else str(v)) for v in out[col]]
    return out.to_string(index=False)
