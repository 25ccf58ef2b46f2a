"""``import``: sglang.bench_serving JSONL and vllm bench serve JSON results into the store."""

from __future__ import annotations

import argparse
import dataclasses
import sys

# the stated speculative numbers an import takes (the page's num_steps field goes to 64 too); a tree's
# num_draft_tokens may exceed num_steps
MAX_STATED = {"--num-steps": 64, "--topk": 64, "--num-draft-tokens": 1024}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("import", help="import sglang.bench_serving / vllm bench serve results into the store")
    p.add_argument("files", nargs="+", metavar="FILE", help="sglang.bench_serving JSONL or vllm --save-result JSON")
    p.add_argument(
        "--db", metavar="URL", help="SQLAlchemy database URL (default: SPECDRAFT_DB, else the local SQLite file)"
    )
    p.add_argument("--label", action="append", default=[], metavar="L", help="label for the imported runs (repeat)")
    p.add_argument("--group", help="group the imported runs belong to (e.g. a sweep name)")
    spec = p.add_argument_group(
        "stated speculative config (vLLM results do not carry it): fills only what a file does not say, and never "
        "makes a run without speculation speculative"
    )
    spec.add_argument("--spec-algorithm", help="e.g. EAGLE3 ('none' or 'baseline' states none)")
    spec.add_argument(
        "--draft",
        "--draft-model",
        dest="draft_model",
        metavar="DRAFT",
        help="the draft served (Hub id or folder), stored as the runs' draft_model; a draft the file records is kept",
    )
    spec.add_argument("--num-steps", type=int)
    spec.add_argument("--topk", type=int)
    spec.add_argument("--num-draft-tokens", type=int)
    p.add_argument("--json", action="store_true", help="print the imported runs as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from comparelib.cli._util import print_json
    from comparelib.errors import InputError
    from comparelib.live.importers import (
        detect_format,
        import_file,
        imported_text,
        read_records,
        stated_draft_text,
        stated_spec,
    )
    from comparelib.live.store import Store
    from comparelib.paths import resolve_user_path

    for flag, value in (
        ("--num-steps", args.num_steps),
        ("--topk", args.topk),
        ("--num-draft-tokens", args.num_draft_tokens),
    ):  # a stated value is stored as the run's config: nonsense would be charted and fitted
        top = MAX_STATED[flag]
        if value is not None and not 1 <= value <= top:
            raise InputError(
                f"{flag} must be a whole number from 1 to {top}, got {value}; leave it out when the file says "
                "it, or for a run without speculation"
            )
    args.files = [str(resolve_user_path(path, "result file")) for path in args.files]
    # check every file before writing anything
    for path in args.files:
        for record in read_records(path):
            detect_format(record)
    spec = stated_spec(
        args.spec_algorithm,
        draft_model=args.draft_model,
        num_steps=args.num_steps,
        topk=args.topk,
        num_draft_tokens=args.num_draft_tokens,
    )
    store = Store(args.db)
    try:
        imported: list[tuple[str, int]] = []
        for path in args.files:
            ids = import_file(store, path, labels=args.label, group=args.group, spec=spec)
            imported.extend((path, i) for i in ids)
        note = stated_draft_text([store.run(i) for _, i in imported], args.draft_model, field="--draft")
        if args.json:
            print_json([{"file": path, **dataclasses.asdict(store.run(i))} for path, i in imported])
        else:
            for path, i in imported:
                rec = store.run(i)
                tps = "-" if rec.output_tokens_per_s is None else f"{rec.output_tokens_per_s:.2f}"
                print(f"{imported_text([i], path)}: {rec.params.get('format')}, {tps} output tok/s")
        if note:
            print(note, file=sys.stderr)
        return 0
    finally:
        store.close()
