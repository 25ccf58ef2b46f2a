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
        "--target",
        help="your drafts' target model (Hub URL, local folder or a known hub id), as the Compare page's target "
        "field: published drafts (registry:<hub id>, or a registry draft's Hub repo) keep the target they were "
        "trained for unless --target-all",
    )
    p.add_argument(
        "--target-all", action="store_true", help="use --target for the published drafts too (the page's checkbox)"
    )
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
    from comparelib import export, redact, tables
    from comparelib.errors import CompareError, InputError
    from comparelib.live.store import Store
    from comparelib.models import comparison, hub

    if args.engine:
        from comparelib.models import engines

        engines.parse_choice(args.engine)  # a bad choice is one message and exit 2, not one per model
    if args.target_all and not args.target:
        raise InputError("--target-all needs --target: the target model to use for every draft")
    entries: list[comparison.Entry] = []
    errors: list[tuple[str, str]] = []
    kept_own: list[str] = []  # published drafts that keep their own target although --target was given
    for src in args.models:  # one bad source is one error line, the others are still shown
        mine = bool(args.target) and comparison.target_applies(src, to_published=args.target_all)
        if args.target and not mine:
            kept_own.append(src)
        try:
            entries.append(
                comparison.load_entry(
                    src,
                    target=args.target if mine else None,
                    with_header=not args.no_header,
                    serving=args.engine,
                    card_target=True,  # no --target: the model card's base_model, as the Compare page takes it
                )
            )
        except hub.CheckpointError as exc:  # the draft's own checkpoint: the command's way round it too
            errors.append((src, f"{exc} (here: --no-header counts it from its config alone)"))
        except CompareError as exc:
            errors.append((src, str(exc)))
    if not entries:  # nothing to show: one error line naming every source that failed
        raise InputError("none of the models could be loaded: " + "; ".join(f"{src}: {msg}" for src, msg in errors))
    for src, msg in errors:
        print(f"error: {src}: {' '.join(msg.split())}", file=sys.stderr)
    # a published draft whose target's config is not shipped takes the size read for another draft's same target
    entries = comparison.share_targets(entries)
    store = Store(args.db)
    store.ensure_examples()
    volumes = comparison.volumes_by_label(entries, comparison.volumes_by_draft(store.data_volumes()))
    sys.stdout.write(export.render(comparison.table(entries, volumes), args.format, table=tables.DRAFT_PARAMS))
    notes = [comparison.role_note(e) for e in entries]
    # a target the model card named (or could not give): said, as the page's caption under its target field
    notes += [f"{e.label}: {origin}" for e in entries if (origin := comparison.target_origin(e))]
    # counts from a config that is not the draft's own (a template), or a target's header not read: no stored count
    notes += [f"{e.label}: {said}" for e in entries if (said := comparison.stored_note(e))]
    notes += [  # a target known by name whose size is not known here: why draft_to_target is blank, and what to give
        f"{e.label}: no draft/target ratio: {why} (--target {e.target_label}"
        + (" --target-all)" if e.kind == "registry" else ")")
        for e in entries
        # a target that was read and could not be counted: target_origin said why; giving it again changes nothing
        if e.target_label is not None and not e.target_note and (why := comparison.no_ratio_reason(e)) is not None
    ]
    if kept_own:  # as the page: --target is your draft's target
        notes.append(
            f"--target {redact.mask_url(args.target)} is your drafts' target; {', '.join(kept_own)} "
            + ("keeps the target it was" if len(kept_own) == 1 else "keep the targets they were")
            + " trained for (--target-all gives them --target too)"
        )
    # a target model among the drafts: said under the table (md), else on stderr so csv/json/latex stay parseable
    # (their rows carry "role": "target")
    for note in filter(None, notes):
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
