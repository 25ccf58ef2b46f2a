"""``plan``: which change closes the draft's acceptance gap, ranked by tok/s gained per GPU-hour."""

from __future__ import annotations

import argparse
import math
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from comparelib.models.comparison import Entry


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "plan",
        help="rank more data, draft size, num_steps and wiring/vocab fixes by tok/s gained per GPU-hour",
    )
    p.add_argument("draft", metavar="DRAFT", help="Hub URL, org/name[@rev], local folder, registry:<id> or 'example'")
    p.add_argument("--target", default=None, help="the target model (Hub id or folder) when the config does not say")
    p.add_argument(
        "--curve",
        nargs="+",
        metavar="LOG",
        default=None,
        help="the draft's training log(s) (see curve; default: the log kept with the draft on Acceptance vs data)",
    )
    p.add_argument(
        "--no-kept-log",
        action="store_true",
        help="do not read the training log kept with the draft (Overview reads it)",
    )
    p.add_argument("--batch-size", type=float, default=None, help="for --curve: global samples per logged step")
    p.add_argument("--epoch-samples", type=float, default=None, help="for --curve: samples per epoch (EAGLE logs)")
    p.add_argument("--target-al", type=float, default=None, help="acceptance length to reach (default: published)")
    p.add_argument("--steps", type=int, default=3, help="num_steps K of the acceptance figures (chain K,1,K+1)")
    p.add_argument(
        "--benchmark",
        default=None,
        help="benchmark of the target AL and the published points (pooled fit); default: the one Overview's reference "
        "publishes most on, as Acceptance vs data opens on it (GSM8K first among equals, and without a reference)",
    )
    p.add_argument("--gpu", default="H200", help="H100, H200, A100 or B200")
    p.add_argument("--ttt", type=int, default=7, help="TTT steps of the training recipe (SpecForge default 7)")
    p.add_argument(
        "--epochs",
        type=float,
        default=None,
        help="epochs of the training recipe (default: your --curve log's passes over --samples, else 1)",
    )
    p.add_argument("--tokens-per-sample", type=float, default=None, help="default: the attached audit, else 2048")
    p.add_argument(
        "--samples",
        type=float,
        default=None,
        help="your training samples (default: the audit attached to the draft, see --volume)",
    )
    p.add_argument(
        "--volume",
        default=None,
        help="the draft name its audited volume is stored under (default: the draft's own name, as Dataset audit "
        "attaches it)",
    )
    p.add_argument("--group", default=None, help="the run group of its benchmarks")
    p.add_argument("--offline", default=None, metavar="FILE", help="eval-draft --json output (AL by steps, vocab)")
    p.add_argument(
        "--train-samples-per-s", type=float, default=None, help="your run's training samples/s (from its log)"
    )
    p.add_argument("--gen-samples-per-s", type=float, default=None, help="your run's hidden-state samples/s")
    p.add_argument("--gpus", type=int, default=1, help="GPUs of the run those rates were measured on")
    p.add_argument(
        "--rank-batch",
        type=int,
        default=1,
        help="batch size the ranking uses: 1, 8, 64, or any other where the draft's runs measured a speculative run "
        "and its baseline",
    )
    p.add_argument("--db", default=None, help="results store URL (default: SPECDRAFT_DB or the local SQLite file)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def _positive(name: str, value: float | None) -> None:
    from comparelib.errors import InputError

    if value is not None and not 0 < value < math.inf:
        raise InputError(f"{name} must be a positive, finite number, got {value:g}")


def _samples_text(samples: float | None, where: str, name: str, *, by_name: bool) -> str:
    """Where the plan's training samples come from, as the sidebar says it ("328, attached from Dataset audit as
    acme/x"), and what overrides it (``by_name``: the audit stored under the draft's own name, not given);
    what to do when none is known."""
    if samples:
        text = f"{samples:,.0f}, {where}"
        if by_name and where != "--samples":
            text += " (stored under your draft's name; --volume or --samples to use another)"
        return text
    if where.startswith("no training volume"):  # --volume names none
        return f"{where}, or pass --samples"
    return (
        f"not measured: no audit is stored under {name!r}; attach one on Dataset audit, or pass --volume or --samples"
    )


def _load(source: str, target: str | None) -> tuple[Entry, str]:
    """The draft's entry with ``target`` read, and ""; or, when the target cannot be read (its config not
    reachable, or of an architecture the counter does not know), the entry with the target named but not counted,
    and why: Overview makes the plan without the target's size and says so (walk T: ``plan`` exited 2 on
    BailingMoeV2ForCausalLM while Overview showed the plan). An error of the draft's own is raised."""
    from dataclasses import replace

    from comparelib.analysis import summary
    from comparelib.errors import CompareError
    from comparelib.models import comparison

    try:
        return summary.read_entry(source, target, with_card=True), ""  # as Overview reads it (walk BL4)
    except CompareError as exc:
        if not target:
            raise
        entry = comparison.load_entry(source, with_header=False)  # the draft's own error, if it is the draft's
        why = f"its config could not be read ({' '.join(str(exc).split())})"
        return replace(entry, target_label=target, target_count=None), why


def run(args: argparse.Namespace) -> int:
    from comparelib.analysis import curves, plan
    from comparelib.cli._util import print_json
    from comparelib.errors import CompareError, InputError
    from comparelib.live.store import Store
    from comparelib.models import comparison
    from comparelib.models.draft import DEFAULT, OwnDraft, base_model_from_card, resolve_target
    from comparelib.values import bench_label

    for name in ("samples", "tokens_per_sample", "train_samples_per_s", "gen_samples_per_s", "epochs"):
        _positive("--" + name.replace("_", "-"), getattr(args, name))
    if args.gpus < 1:
        raise InputError(f"--gpus must be at least 1, got {args.gpus}")
    if args.rank_batch < 1:
        raise InputError(f"--rank-batch must be a positive whole number, got {args.rank_batch}")
    if args.target_al is not None and not 1.0 < args.target_al < math.inf:
        raise InputError(f"--target-al must be a finite number above 1, got {args.target_al:g}")
    if args.target_al is not None and not args.curve and args.target_al >= args.steps + 1:
        raise InputError(
            f"--target-al must be above 1 and below {args.steps + 1} (a chain of --steps {args.steps} accepts "
            f"at most {args.steps + 1} tokens a cycle), got {args.target_al:g}"
        )
    draft = OwnDraft.parse(args.draft, volume=args.volume, group=args.group)
    if draft.is_example:
        draft = draft.with_(volume=args.volume or DEFAULT.volume, group=args.group or DEFAULT.group)
    plan.gpu(args.gpu)  # refuse an unknown GPU before anything is fetched
    entry, target_unread = _load(draft.source, args.target)
    store = Store(args.db)
    store.ensure_examples()
    volumes = store.data_volumes()
    by_name = not draft.volume and draft.name in comparison.volumes_by_draft(volumes)
    if by_name:  # the audit Dataset audit attached to this draft (stored under its name, OwnDraft.name), as pages
        draft = draft.with_(volume=draft.name)
    runs = draft.runs(store)
    target_from = ""  # where the target came from when neither --target nor the draft's config names it
    if entry.target_label is None and entry.spec.role == "draft":
        # the target as Overview takes it: the model card's base_model, else the one the draft's own runs were
        # served with (the plan aimed at a Kimi draft's AL for a Qwen3-32B draft whose runs named Qwen3-32B)
        chosen = resolve_target(None, runs, draft=draft.match_name, card=base_model_from_card(entry.card))
        if chosen.model:
            entry, target_unread = _load(draft.source, chosen.model)
            target_from = {
                "card": comparison.CARD_TARGET_WORDS,
                "runs": "the model your draft's runs were served with",
            }.get(chosen.origin, "")
    # why the target is not counted (its config unread, or read and of an architecture the counter does not know):
    # the plan is made without its size, as on Overview, and says why
    uncounted = entry.target_label is not None and entry.target_count is None
    not_counted = target_unread or (entry.target_note or "" if uncounted else "")
    own_samples, samples_src = (args.samples, "--samples") if args.samples else draft.training_samples(volumes)
    samples_text = _samples_text(own_samples, samples_src, draft.name, by_name=by_name)
    row = draft.volume_row(volumes)
    own_tokens = float(row["tokens"]) if row and row.get("tokens") and not args.samples else None
    curve = None
    curve_src = ""
    kept: dict | None = None  # the log kept with the draft on Acceptance vs data, read as Overview reads it
    if args.curve:
        # tau_sim over the plan's own --steps positions: a 7-position curve's gain is not the gain at 2 steps
        curve = curves.curve(
            args.curve, batch_size=args.batch_size, epoch_samples=args.epoch_samples, steps=args.steps
        )
        curve_src = ", ".join(args.curve)
        log_text = f"{curve_src} (--curve)"
    elif args.no_kept_log:
        log_text = "none (--no-kept-log)"
    elif draft.is_example or (kept := store.learning_curve(draft.name)) is None:
        log_text = f"none (none kept with {draft.name} on Acceptance vs data; --curve LOG gives one)"
    else:
        log_text = (
            f"{curves.kept_words(kept)}: kept with your draft on Acceptance vs data, read as Overview reads it; "
            "--curve LOG uses another, --no-kept-log none"
        )
        curve_src = f"the training log kept with your draft on Acceptance vs data ({kept['source'] or 'no name'})"
        try:
            curve = curves.from_stored(kept)
        except CompareError as exc:  # as Overview: the plan is made without it, and says why
            log_text = f"none: the log kept with your draft cannot be read ({exc})"
            kept, curve_src = None, ""
    offline = plan.read_offline(args.offline) if args.offline else None
    train_rate, rate_src = args.train_samples_per_s, ""
    if train_rate is None and args.curve and args.batch_size:
        for path in args.curve:
            found = plan.rate_from_log(path, args.batch_size)
            if found:
                train_rate, rate_src = found[0], f"training rate from the log's timestamps, {found[1]}"
                break
    given = dict(
        runs=runs,
        own_samples=own_samples,
        own_samples_source=samples_src if own_samples else "",
        own_tokens=own_tokens,
        offline=offline,
        benchmark=args.benchmark,
        draft=draft.match_name,
        steps=args.steps,  # the kept log read at the plan's positions, as --curve is (walk AL3)
    )
    try:
        inputs = plan.inputs_for(entry, **given, curve=curve, curve_source=curve_src)
    except CompareError as exc:
        if curve is None:
            raise
        # as Overview (page and `overview --curve`): a log, given or kept, that cannot be fitted is still weighed by
        # its verdict, and the plan says why (walk BY 2: `plan --curve` refused a step-only log Overview used)
        inputs = plan.inputs_for(entry, **given, curve_verdict=getattr(curve, "verdict", None), curve_unused=str(exc))
    result = plan.build(
        inputs,
        target_al=args.target_al,
        gpu_name=args.gpu,
        steps=args.steps,
        ttt=args.ttt,
        epochs=args.epochs,
        tokens_per_sample=args.tokens_per_sample,
        rank_batch=args.rank_batch,
        gen_samples_per_s=args.gen_samples_per_s,
        train_samples_per_s=train_rate,
        user_gpus=args.gpus,
        rate_source=rate_src,
    )
    if args.json:
        log = (
            {"source": ", ".join(args.curve), "kept": False}
            if args.curve
            else None
            if kept is None
            else {"source": kept["source"], "kept": True, "id": kept["id"], "words": curves.kept_words(kept)}
        )
        target = {"model": entry.target_label, "from": target_from or None, "not_counted": not_counted or None}
        print_json(
            {
                **result.to_json(),
                "training_samples": {"samples": own_samples, "source": samples_text},
                "target": target,
                "training_log": log,
            }
        )
        return 0
    w = sys.stdout.write
    w(f"plan for {result.draft} on {result.gpu}")
    if result.target_al is not None:
        w(f", target AL {result.target_al:g} at {result.steps} steps")
        source = next((s.text for s in result.sources if s.id == result.target_al_source), "")
        if source:  # which published draft it is, and why that one
            w(f" (from {source.removeprefix('registry: ')})")
    w(f"\ntraining samples: {samples_text}\n")
    w(f"training log: {log_text}\n")
    # what the target AL is read on, and the pooled trend fitted on unless its line below says otherwise (walk AC)
    bench_how = (
        f", {result.benchmark_source}; --benchmark gives another" if result.benchmark_source else " (--benchmark)"
    )
    w(f"benchmark: {bench_label(result.benchmark)}{bench_how}\n")
    if not_counted:  # as Overview's caption: the plan is made without the target's size, and says why
        origin = f", from {target_from}" if target_from else ""
        w(
            f"target {entry.target_label}{origin}: {not_counted.rstrip('.')}. The plan is made without the target's "
            "size: hidden-state generation is not costed (unless --gen-samples-per-s gives its rate)\n"
        )
    elif target_from:  # as Overview's caption: a target your draft's config does not name is said with its origin
        w(f"target {entry.target_label}, from {target_from} (--target overrides it)\n")
    w(f"{result.fit_note}\n")
    if now := plan.current_words(result):  # what every gain at the ranking batch is against, and where it comes from
        w(f"{now}\n")
    kinds = {src.id: src.kind for src in result.sources}
    unmeasured = {
        b: f" (predicted: {sid})"
        for b, sid in (result.current.get("tok_s_source") or {}).items()
        if kinds.get(sid) == "predicted"
    }
    for i, o in enumerate(result.options, 1):
        w(f"{i}. [{o.kind}] {o.title}\n")
        if o.al is not None and o.al.value is not None:
            w(f"   AL {o.al.text('.2f')}\n")
        if o.samples_needed is not None:  # on your log's axis, samples seen (epochs x unique samples)
            seen = " seen" if result.fit is not None and result.fit.scope == "curve" else ""
            w(f"   samples{seen} needed {o.samples_needed.words(missing='not reached')}\n")
        tot = o.total
        if tot.value:
            w(
                f"   GPU-hours {tot.hours()} (generation {o.generation.hours()}, "
                f"training {o.training.hours()}); offline storage {o.storage.text(',.1f', ' TB')}\n"
            )
        elif tot.value is None and o.training.value:  # no target count: generation is not costed
            w(
                f"   GPU-hours: training {o.training.hours()}, hidden-state generation not costed; "
                f"offline storage {o.storage.text(',.1f', ' TB')}\n"
            )
        if o.tok_s:
            # a batch no run measured is said so, with the source it is predicted from (walk W's bare "bs64: 6,482.1")
            w(
                "   tok/s "
                + ", ".join(
                    f"bs{b}: {v.value:,.1f}"
                    + (f" (measured: {o.measured[b]})" if b in o.measured else unmeasured.get(b, ""))
                    for b, v in o.tok_s.items()
                    if v.value
                )
                + "\n"
            )
        if o.gain is not None and o.gain.value is not None:
            # ranked by this: a gain within run-to-run noise is no gain, and ranks after every real one
            current = float((result.current.get("tok_s") or {}).get(str(result.rank_batch)) or 0.0)
            noise = (
                f"within run-to-run noise, {result.noise:,.1f} tok/s ({plan.NOISE:.0%} of {current:,.1f} tok/s): "
                "no gain"
            )
            if o.gain.value < -result.noise:  # a loss past the noise is a loss, not "within noise" (walk R2)
                noise = (
                    f"a loss: past run-to-run noise, {result.noise:,.1f} tok/s ({plan.NOISE:.0%} of {current:,.1f} "
                    "tok/s)"
                )
            w(
                f"   gain at bs{result.rank_batch}: {o.gain.value:+,.1f} tok/s"
                + ("" if plan.gains(o, result.noise) else f" ({noise})")
                + "\n"
            )
        if o.note:
            w(f"   {o.note}\n")
    w("sources:\n")
    for s in result.sources:
        w(f"  {s.id}: {s.text}\n")
    return 0
