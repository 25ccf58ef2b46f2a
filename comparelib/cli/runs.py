"""``runs``: the stored benchmark runs (measured, imported and the built-in example)."""

from __future__ import annotations

import argparse
import sys

FORMATS = ("csv", "md", "json", "latex")  # comparelib.export.FORMATS, without importing pandas for --help

# The text table's columns and their short headers (--format and --json keep every column, named as stored).
TABLE_COLUMNS = {
    "id": "id",
    "kind": "kind",
    "group": "group",
    "status": "status",
    "engine": "engine",
    "speculative_algorithm": "speculation",
    "draft": "draft",
    "num_steps": "steps",
    "topk": "topk",
    "num_draft_tokens": "ndt",
    "batch": "bs",  # walk BV 4: batch 4 and 16 runs of one group read alike, told apart only by their requests
    "requests": "requests",
    "errors": "errors",
    "output_tokens_per_s": "tok/s",
    "accept_length": "AL",
    "tpot_p50_ms": "TPOT p50 ms",
    "labels": "labels",
}
# the longest a text cell is shown (labels and group names are the user's, up to 200 characters each; a draft's
# repo id whole as most are: "RedHatAI/Qwen3-8B-speculator.eagle3"), and the speculation whole: "speculative (vLLM does
# not report the algorithm)" cut at 24 read "speculative (vLLM does …"
TEXT_WIDTH = {"labels": 32, "group": 24, "draft": 36, "speculative_algorithm": 48}
TEXT_WIDTH_DEFAULT = 24


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
    from comparelib.errors import InputError
    from comparelib.live.store import Store
    from comparelib.values import plain

    store = Store(args.db)
    try:
        store.ensure_examples()
        include = not args.no_examples
        groups = store.groups()
        if args.group is not None and args.group not in groups:  # as `speedup --run-group`: not an empty store
            raise InputError(
                f"unknown group {args.group!r}: no run is stored under it; groups in the store: "
                f"{', '.join(groups) or 'none'} (leave out --group to list every run)"
            )
        if args.json:  # each record with its draft as the table names it (RunRecord.draft)
            records = store.runs(group=args.group, include_examples=include)
            print_json([{**plain(r), "draft": r.draft} for r in records])
            return 0
        frame = store.runs_frame(group=args.group, include_examples=include)
        if args.format:
            sys.stdout.write(export.render(frame, args.format, table=tables.RUNS))
            return 0
        if frame.empty:
            of = f" of group {args.group!r} besides the built-in example" if args.group else ""
            print(f"no runs{of} stored in {store.display_url}")
            return 0
        table = frame[list(TABLE_COLUMNS)].copy()
        table["status"] = ["running (incomplete)" if s == "running" else s for s in table["status"]]
        print(_text_table(table))
        print(f"\n{len(frame)} run(s) in {store.display_url}; kind=example rows are built-in example data")
        cut = ("labels", "group", "draft")
        if any(len(str(v)) > TEXT_WIDTH.get(c, TEXT_WIDTH_DEFAULT) for c in cut for v in table[c]):
            print("long labels, groups and drafts are cut here (\u2026); --format or --json print them whole")
        return 0
    finally:
        store.close()


def _text_table(frame: object) -> str:
    """Plain text for a terminal: text left-aligned and cut with an ellipsis at TEXT_WIDTH, numbers
    right-aligned with two decimals, missing values as "-"."""
    import pandas as pd

    assert isinstance(frame, pd.DataFrame)
    columns = []
    for col in frame.columns:
        kind = frame[col].dtype.kind
        numeric = kind in "iuf"
        width = TEXT_WIDTH.get(col, TEXT_WIDTH_DEFAULT)
        cells = []
        for v in frame[col]:
            if pd.isna(v):
                cells.append("-")
            elif kind == "f":
                cells.append(f"{v:.2f}")
            else:
                text = str(v)
                cells.append(text if numeric or len(text) <= width else text[: width - 1] + "\u2026")
        header = TABLE_COLUMNS.get(col, col)
        size = max(len(header), *(len(c) for c in cells))
        pad = str.rjust if numeric else str.ljust
        columns.append([pad(header, size), *(pad(c, size) for c in cells)])
    return "\n".join("  ".join(row).rstrip() for row in zip(*columns, strict=True))
