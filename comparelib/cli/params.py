"""``params``: exact parameter counts, checkpoint reconciliation and wiring lint for one model."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, TextIO

from comparelib.cli._util import print_json

if TYPE_CHECKING:  # the command imports the library when it runs: --help stays quick
    from comparelib.models.comparison import Entry


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
    from comparelib.models import comparison, hub, lint, params

    try:
        entry = comparison.load_entry(
            args.model,
            target=args.target,
            target_layers=lint.parse_target_layers(args.target_layers, name="--target-layers"),
            with_header=not args.no_header,
            serving=args.engine,
            card_target=True,  # no --target: the model card's base_model, as the pages take it
        )
    except hub.CheckpointError as exc:  # the draft's own checkpoint: the command's way round it too
        raise hub.CheckpointError(f"{exc} (here: --no-header counts it from its config alone)") from None
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
    if entry.spec.role == "draft":  # a target has no target and no ratio (comparison.load_entry)
        out.write(_target_line(entry) + "\n")
    # a target's weights are no draft's trainable part: its trainable/frozen split is not shown as one
    skipped = {"trainable", "frozen"} if note is not None else set()
    said = comparison.stored_note(entry)  # a template's counts, or a target's header not read (walk BW 1)
    if said:
        skipped.add("stored")
        out.write(f"note: {said.replace('is left empty', 'is not shown')}\n")
    if not entry.spec.tensors:  # an uncounted target's headers not read: no counts (walk BL6)
        skipped.update((*params.HEADLINE, "mtp", "vision"))
    for key in (*params.HEADLINE, "mtp", "vision"):
        if key in skipped:
            continue
        if p[key] is not None and not (key in {"mtp", "vision"} and not p[key]):
            tied = "  (tied to the embedding)" if key == "lm_head" and p["lm_head_tied"] else ""
            out.write(f"  {key:<20} {p[key]:>18,}{tied}\n")
    if entry.spec.tensors:  # none: an uncounted target whose headers were not read, as its note says (walk BL6)
        _write_sizes(out, data)
    _write_checkpoint(out, entry)
    _write_serving(out, entry)
    _write_lint(out, entry, args.engine)
    return 0


def _write_sizes(out: TextIO, data: dict[str, Any]) -> None:
    """The memory line and the components of ``params --json``'s object."""
    mem = data["memory_bytes"]  # memory_table: a draft's weights shared with the target are not counted again
    out.write(
        f"memory, {data['memory_counts']}: "
        + " · ".join(f"{k} {v:,} bytes ({v / 2**30:.2f} GiB)" for k, v in mem.items())
        + "\n"
    )
    out.write("components:\n")
    for comp in data["components"]:
        tied = f"  tied to the {comp['tied_to']}" if comp["tied_to"] else ""
        out.write(f"  {comp['name']:<12} {comp['params']:>18,}{tied}\n")
    for comp in data["components"]:
        if comp["note"]:
            out.write(f"note: {comp['name']} {comp['note']}\n")


def _write_lint(out: TextIO, entry: Entry, choice: str | None) -> None:
    """The wiring lint as Compare shows it (``comparison.lint_headline`` and ``lint_groups``): the headline, the
    findings to read, then the known-harmless ones under the page's own heading (``lint.harmless_title``)."""
    from comparelib.models import comparison, engines, lint

    engine = (engines.parse_choice(choice)[0], "the engine given with --engine") if choice else None
    if entry.spec.role == "draft":
        where = f'listed below under "{lint.HARMLESS_HEADING}"'
        said = comparison.lint_headline(entry, where, engine=engine, rows_where="will it serve above says the change")
        out.write(f"wiring: {said}\n")
    act_on, harmless = comparison.lint_groups(entry, engine[0] if engine else None)
    for f in act_on:
        out.write(f"[{f.severity}] {f.code}: {f.message}\n")
    if harmless:
        out.write(lint.harmless_title(len(harmless)) + "\n")
        for f in harmless:
            out.write(f"  [{f.severity}] {f.code}: {f.message}\n")


def _target_line(entry: Entry) -> str:
    """The target, where it came from when the card named it, and the draft-to-target ratio (``target``,
    ``target_from`` and ``draft_to_target_ratio`` of --json)."""
    if entry.target_label is None:
        layers = f" (N = {entry.target_layers} layers given)" if entry.target_layers else ""
        why = f"; {entry.target_note}" if entry.target_note else "; give --target for the draft-to-target ratio"
        return f"target: none known{layers}{why}"
    from comparelib.models.comparison import CARD_TARGET_WORDS

    origin = f" (from {CARD_TARGET_WORDS}; --target overrides it)" if entry.target_from == "card" else ""
    if entry.target_count is None and entry.target_note:  # read, not countable: its checkpoint's total, or why not
        ratio = (
            f"; draft-to-target ratio {entry.ratio:.6f} ({entry.ratio:.3%}: excluding embedding over the target's "
            "total from its checkpoint)"
            if entry.ratio is not None
            else "; draft-to-target ratio unknown"
        )
        return f"target {entry.target_label}{origin}{ratio}; {entry.target_note}"
    if entry.ratio is None or entry.target_count is None:
        return f"target {entry.target_label}{origin}; draft-to-target ratio unknown (its config is not known here)"
    active = (
        f"; {entry.ratio_active:.3%} of its {entry.target_count.active:,} active parameters, what a token costs it"
        if entry.ratio_active is not None and entry.target_count.active
        else ""
    )
    return (
        f"target {entry.target_label}{origin} ({entry.target_count.total:,} parameters); draft-to-target ratio "
        f"{entry.ratio:.6f} ({entry.ratio:.3%}: excluding embedding over the target's total{active})"
    )


def _write_checkpoint(out: TextIO, entry: Entry) -> None:
    """The safetensors header against the config, as --json's ``checkpoint`` says it, plus its notes."""
    ck = entry.checkpoint
    if ck is None:
        return
    verdict = "matches the config" if ck.matches_config else "does not match the config"
    out.write(
        f"checkpoint: {ck.param_elements:,} parameter elements, {ck.buffer_elements:,} buffer elements; {verdict}\n"
    )
    design = set(ck.by_design)
    for name, why in ck.missing:
        out.write(f"  missing {name}{' (by design)' if name in design else ''}: {why}\n")
    for name, why in ck.unexpected:
        out.write(f"  unexpected {name}: {why}\n")
    for name, want, got in ck.shape_mismatches:
        out.write(f"  shape {name}: config {list(want)}, checkpoint {list(got)}\n")
    for line in ck.notes:
        out.write(f"  note: {line}\n")


def _write_serving(out: TextIO, entry: Entry) -> None:
    """Will it serve: one line per engine version and runner (--json's ``serving``), under the page's headline."""
    from comparelib.models import comparison, serving

    if entry.spec.role != "draft":
        return
    why = comparison.no_serving_verdict(entry)
    if why is not None:
        out.write(f"will it serve: no verdict: {why}\n")
        return
    adv = serving.advice(**entry.serving_args)
    out.write(f"will it serve: {serving.headline(entry.serving, adv)}\n")
    for v, row in zip(entry.serving, serving.table_rows(entry.serving, adv), strict=True):
        parts = [f"{v.status}" + (f": {v.reason}" if v.reason else "")]
        if row["blocks captured"]:
            parts.append(f"feeds {row['blocks captured']} (ids from {row['ids read from'] or 'none'})")
        if v.same_as_trained is not None:
            parts.append(f"same as trained: {row['same as trained?']}")
        if v.status != "unsupported" and row["what to change"] != "nothing":  # unsupported: the reason says it
            parts.append(f"change: {row['what to change']}")
        if v.note:
            parts.append(v.note)
        out.write(f"  {v.label}: {'; '.join(parts)}\n")
