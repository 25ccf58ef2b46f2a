"""``overview``: the Overview page's answer for your draft, from the same functions and the same inputs."""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from comparelib.analysis.summary import Said


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "overview",
        help="the Overview page's answer: size, training data, acceptance, live speed and the largest gap",
    )
    p.add_argument(
        "draft", metavar="DRAFT", help="Hub URL, org/name[@rev], local folder, registry:<id> or 'example' (HF_TOKEN)"
    )
    p.add_argument(
        "--reference",
        default=None,
        help="the published draft to compare with (default: the one Overview suggests; --json lists the choices)",
    )
    p.add_argument(
        "--volume",
        default=None,
        help="the draft name its audited training volume is stored under (default: the audit stored under your "
        "draft's own name, as the sidebar attaches it, unless --samples is given)",
    )
    p.add_argument("--samples", default=None, help="training samples, as typed in the sidebar (an audit comes first)")
    p.add_argument("--group", default=None, help="the run group of its benchmarks")
    p.add_argument(
        "--target",
        default=None,
        help="the target set on Compare drafts: used only where your draft's config, model card and runs name none",
    )
    p.add_argument(
        "--curve",
        nargs="+",
        metavar="LOG",
        default=None,
        help="the draft's training log(s), as loaded on Acceptance vs data (default: the log kept with the draft)",
    )
    p.add_argument("--no-kept-log", action="store_true", help="do not read the training log kept with the draft")
    p.add_argument("--batch-size", type=float, default=None, help="for --curve: global samples per logged step")
    p.add_argument("--epoch-samples", type=float, default=None, help="for --curve: samples per epoch (EAGLE logs)")
    p.add_argument(
        "--steps", type=int, default=3, help="for --curve: draft positions used (Acceptance vs data's default 3)"
    )
    p.add_argument("--db", default=None, help="results store URL (default: SPECDRAFT_DB or the local SQLite file)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def plain(text: str) -> str:
    """A page's markdown as terminal text: links as their text, no bold."""
    return _LINK.sub(r"\1", text).replace("**", "")


def _unknown(what: str, value: str, known: list[str], hint: str) -> Exception:
    from comparelib.errors import InputError

    listed = ", ".join(known[:20]) + (f" and {len(known) - 20} more" if len(known) > 20 else "")
    return InputError(f"unknown {what} {value!r}: {hint}; stored: {listed or 'none'}")


def run(args: argparse.Namespace) -> int:
    from comparelib.live.store import Store

    store = Store(args.db)
    try:
        return _run(args, store)
    finally:
        store.close()


def _run(args: argparse.Namespace, store: Any) -> int:
    from comparelib.analysis import curves, overview, scaling, summary
    from comparelib.cli._util import print_json
    from comparelib.errors import CompareError, InputError
    from comparelib.models import comparison
    from comparelib.models.draft import DEFAULT, OwnDraft, card_target, target_of

    draft = OwnDraft.parse(args.draft, volume=args.volume, samples=args.samples, group=args.group, target=args.target)
    store.ensure_examples()  # as the page's store: the built-in example's runs and audit
    volumes = store.data_volumes()
    stored = sorted(comparison.volumes_by_draft(volumes))
    if args.volume is not None and args.volume not in stored:
        raise _unknown("--volume", args.volume, stored, "no training volume is stored under it")
    if args.group is not None and args.group not in (groups := store.groups()):
        raise _unknown("--group", args.group, groups, "no run is stored under it")
    if draft.is_example:  # the example with its own audit and runs, as the sidebar starts
        default_volume = DEFAULT.volume if args.samples is None else None
        draft = draft.with_(volume=args.volume or default_volume, group=args.group or DEFAULT.group)
    elif args.volume is None and args.samples is None:  # as the sidebar attaches a pasted draft's own audit
        draft = draft.with_(volume=draft.own_volume(volumes))
    drafts = overview.reference_choices()

    def load(source: str, target: str | None = None) -> comparison.Entry:
        return summary.read_entry(source, target)  # the page's

    own_entry: comparison.Entry | None = load(draft.source)  # an unreadable draft: one line, exit 2
    runs = draft.runs(store)
    target = target_of(draft, runs, own_entry, lambda: card_target(draft.source))
    suggested = overview.default_reference(
        drafts, draft.name, target.model, runs, own_shape=None if target.model else overview.draft_shape(own_entry)
    )
    choices = summary.reference_options(drafts, suggested, target.model)
    reference = args.reference or suggested.hub_id
    if reference not in choices:
        raise InputError(
            f"unknown --reference {reference!r}: Overview offers the published drafts with a config, and your "
            "target's (overview DRAFT --json lists them under reference.choices)"
        )
    notes: list[Said] = [summary.Said("caption", target.note)] if target.note else []
    own_entry, said = summary.with_target(own_entry, target.model, lambda t: load(draft.source, t))
    notes += said
    ref_entry, ref_unread = summary.read_reference(reference, drafts, load)  # as the page: the Hub's, else why not
    suggested = replace(suggested, why=summary.reference_why(suggested.why, ref_entry))  # its size read, or not

    curve = None
    log: dict[str, Any] | None = None
    if args.curve:  # as a log loaded on Acceptance vs data: an unreadable one is an error
        curve = curves.curve(
            args.curve, batch_size=args.batch_size, epoch_samples=args.epoch_samples, steps=args.steps
        )
        log = {"source": ", ".join(args.curve), "kept": False, "words": f"{', '.join(args.curve)} (--curve)"}
    elif not args.no_kept_log and not draft.is_example and (kept := store.learning_curve(draft.name)) is not None:
        log = {"source": kept["source"], "kept": True, "id": kept["id"], "words": curves.kept_words(kept)}
        try:
            curve = curves.from_stored(kept)
        except CompareError as exc:  # as the page: answered without it, and said
            log["unread"] = str(exc)
    if log is not None and curve is not None:
        log["verdict"] = curve.verdict

    result = summary.summarise(
        draft,
        own_entry,
        ref_entry,
        reference,
        runs,
        volumes,
        target=target,
        suggested=suggested,
        curve=curve,
        ref_unread=ref_unread,
    )
    answer = result.answer
    gap = plan_lead = plan_none = caution = None
    if result.headline_kind != "target":
        published = scaling.published_points()
        made = None
        if own_entry is not None:
            from comparelib.analysis import plan

            try:
                made = summary.plan_for(
                    draft,
                    own_entry,
                    runs,
                    volumes,
                    published=published,
                    curve=curve,
                    # the run the answer reads "your acceptance" from, as the page passes it (a --reference other
                    # than the suggested one may read another run)
                    own_run=answer.own.run.id if answer.own is not None else None,
                )
            except CompareError as exc:
                plan_none = f"No plan for this draft: {exc}"
            else:
                plan_lead = plan.lead(made)
                caution = summary.plan_caution(answer, plan_lead)  # another target's figure: not a goal
        gap = summary.volume_gap(answer, published, made=made)  # the plan's own fit said beside the line (walk AD)

    if args.json:
        plan_said = {
            "lead": plain(plan_lead) if plan_lead else None,
            "none": plan_none,
            "caution": plain(caution.text) if caution is not None else None,
        }
        print_json(_json(args, draft, reference, suggested, choices, target, log, result, notes, gap, plan_said))
        return 0
    w = sys.stdout.write
    w(f"overview of {draft.short} against {reference}\n")
    w(f"reference: {reference}" + (f" ({suggested.why})" if reference == suggested.hub_id else " (--reference)"))
    w(f"\ntraining volume: {draft.volume_text(volumes)}\n")
    if log is None:
        why = "--no-kept-log" if args.no_kept_log else f"none kept with {draft.name} on Acceptance vs data"
        w(f"training log: none ({why}; --curve LOG gives one)\n")
    elif "unread" in log:
        w(f"training log: none: the log kept with your draft cannot be read ({log['unread']})\n")
    else:
        w(f"training log: {log['words']}{'' if args.curve else ', kept with your draft on Acceptance vs data'}\n")
    ids = ", ".join(f"#{r.id}" for r in answer.runs)
    w(f"runs read: {ids or 'none'}" + (f" (group {draft.group})" if draft.group else " (no run group attached)"))
    w(f"\n\n{result.headline}\n")
    for note in [*notes, *result.notes]:
        w(f"{'warning' if note.kind in ('warning', 'error') else 'note'}: {plain(note.text)}\n")
    for line in result.lines:
        w(plain(line) + "\n")
    if gap is not None:
        label = (
            "volume gap (predicted from the published trend, not measured)"
            if gap.kind == "predicted"
            else "volume gap"
        )
        w(f"{label}: {plain(gap.text)}\n")
    if caution is not None:
        w(f"note: {plain(caution.text)}\n")
    if plan_lead:
        w(f"plan at Overview's defaults (published target AL, H200, batch 1): {plain(plan_lead)}\n")
    elif plan_none:
        w(f"plan: {plan_none}\n")
    if draft.uses_example_data:
        w("example data: the built-in Kimi-K2.5 draft and its hand-measured SGLang session\n")
    return 0


def _json(
    args: argparse.Namespace,
    draft: Any,
    reference: str,
    suggested: Any,
    choices: list[str],
    target: Any,
    log: dict[str, Any] | None,
    result: Any,
    notes: list[Said],
    gap: Said | None,
    plan_said: dict[str, str | None],
) -> dict[str, Any]:
    from comparelib.analysis import summary

    a = result.answer
    size = a.size
    live = a.live
    own = a.own
    return {
        "draft": {
            "source": draft.source,
            "name": draft.name,
            "volume": draft.volume,
            "samples": draft.samples,
            "group": draft.group,
        },
        "reference": {
            "hub_id": reference,
            "suggested": suggested.hub_id,
            "why": suggested.why,
            "given": args.reference is not None,
            "choices": choices,
        },
        "target": {
            "model": target.model,
            "from": summary.TARGET_FROM.get(target.origin) or None,
            "note": target.note or None,
        },
        "training_volume": {"samples": result.own_volume, "source": result.volume_source},
        "training_log": log,
        "headline": result.headline,
        "headline_kind": result.headline_kind,
        "gap": a.gap or None,
        "notes": [{"kind": n.kind, "text": plain(n.text)} for n in [*notes, *result.notes]],
        "lines": [plain(line) for line in result.lines],
        "size": None
        if size is None
        else {
            "own_excluding_embedding": size.own_excluding_embedding,
            "reference_excluding_embedding": size.ref_excluding_embedding,
            "own_total": size.own_total,
            "reference_total": size.ref_total,
            "ratio": a.size_ratio,
            "not_compared": a.size_note or None,
        },
        "data": {
            "own_samples": a.own_volume,
            "reference_samples": a.ref_volume,
            "reference_at_least": a.ref_volume_floor,
            "ratio": a.data_ratio,
        },
        "acceptance": {
            "own": a.own_accept,
            "run_id": own.run.id if own is not None else None,
            "setting": a.own_setting,
            "why": own.why if own is not None else None,
            "reference_range": a.accept.ref_range,
            "reference_settings": list(a.accept.ref_settings),
            "ratio": a.accept_ratio,
        },
        "live": None
        if live is None
        else {
            "run_id": live.run_id,
            "baseline_run_id": live.baseline_run_id,
            "spec_tok_s": live.spec_tok_s,
            "baseline_tok_s": live.baseline_tok_s,
            "speedup": live.speedup,
            "engine": live.engine,
            "num_steps": live.num_steps,
            "setting": live.setting,  # "num_steps 3, topk 4, 16 draft tokens": a tree named as one
            "batch": live.batch,
            "kind": live.kind,
            "verdict": live.verdict or None,
        },
        "best_run_id": a.best_run.id if a.best_run is not None else None,
        "side_by_side": [
            {"draft": p.draft, "setting": p.setting, "theirs_run_id": p.theirs.id, "yours_run_id": p.yours.id}
            for p in [*a.side_by_side, *a.others_beside]
        ],
        # the target's own MTP layers measured in your group, set against your draft's best run (walk Z)
        "native_mtp": a.native_mtp.to_json() if a.native_mtp is not None else None,
        "run_ids": [r.id for r in a.runs],
        "volume_gap": None if gap is None else {"kind": gap.kind, "text": plain(gap.text)},
        "plan": plan_said,  # the lead Overview shows (published target AL, H200, batch 1), or why there is none
    }
