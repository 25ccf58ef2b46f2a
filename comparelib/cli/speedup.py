"""``speedup``: fit the cycle-cost model to a num_steps sweep in the store and predict every num_steps."""

from __future__ import annotations

import argparse
import sys

from comparelib.values import integer, run_param


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("speedup", help="predict tok/s per num_steps from a stored sweep (predictions, never stored)")
    p.add_argument("--run-group", required=True, help="run group in the results store (e.g. example-kimi-k2.5)")
    p.add_argument("--baseline-run", type=int, default=None, help="id of the baseline run (default: the best match)")
    p.add_argument(
        "--draft",
        default=None,
        metavar="DRAFT",
        help=(
            "your draft as the sidebar takes it (Hub id or URL, org/name[@rev], local folder): only its runs and the "
            "baselines are fitted, as on the pages (default: the sweep of the group's fastest pair, whichever "
            "draft it is)"
        ),
    )
    p.add_argument(
        "--target-accept",
        type=float,
        default=None,
        help="also predict with this acceptance length (e.g. from the scaling fit)",
    )
    p.add_argument("--at-steps", type=int, default=None, help="num_steps at which --target-accept is quoted")
    p.add_argument(
        "--draft-step-ms",
        type=float,
        default=None,
        help="a measured draft step (ms, whole batch) in place of the fitted one",
    )
    p.add_argument(
        "--draft-cost",
        action="append",
        default=None,
        metavar="FILE",
        help=(
            "draft-cost / bench_draftcost.py JSON: one draft replaces the fitted step; "
            "two or more are predicted side by side"
        ),
    )
    p.add_argument(
        "--batch",
        type=int,
        default=None,
        help="fit the sweep measured at this concurrency (default: the sweep holding the group's best pair)",
    )
    p.add_argument(
        "--engine",
        default=None,
        help="fit the sweep measured on this engine (sglang or vllm; with --batch, the page's Sweep choice)",
    )
    p.add_argument("--max-steps", type=int, default=10, help="predict num_steps 1..N (default 10)")
    p.add_argument("--db", default=None, help="results store URL (default: SPECDRAFT_DB or the local SQLite file)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from comparelib.analysis import speedup
    from comparelib.cli._util import print_json
    from comparelib.errors import InputError
    from comparelib.live.store import Store
    from comparelib.models.draft import draft_match

    if not 1 <= args.max_steps <= 64:
        raise InputError(f"--max-steps must be 1..64, got {args.max_steps}")
    if args.draft_step_ms is not None and not (args.draft_step_ms >= 0 and args.draft_step_ms < float("inf")):
        raise InputError(f"--draft-step-ms must be a non-negative number of ms, got {args.draft_step_ms:g}")
    if args.target_accept is not None and not args.target_accept > 1.0:
        raise InputError(f"--target-accept must be above 1, got {args.target_accept:g}")
    store = Store(args.db)
    if args.run_group.startswith("example-"):
        store.ensure_examples()
    runs = store.runs(group=args.run_group)
    if not runs:
        groups = store.groups()
        raise InputError(f"no runs in group {args.run_group!r}; groups in the store: {', '.join(groups) or 'none'}")
    mine, target, own_note = None, None, None
    fitted = list(runs)
    if args.draft:
        # as the pages fit it (verdicts.live_outlook): another draft's runs and MTP runs left out and named, the
        # target the one your draft's runs were served with, and the sweep holding your draft's pair
        from comparelib.models.draft import OwnDraft, runs_of_draft, target_from_runs

        mine = OwnDraft.parse(args.draft).match_name
        own = runs_of_draft(runs, mine)
        if not any(not r.is_baseline for r in own.kept):
            raise InputError(
                f"no run of your draft {mine} in group {args.run_group!r}; its runs are of "
                f"{', '.join(sorted(_drafts(runs)))}: pass one of them as --draft, or leave --draft out"
            )
        left = {r.id for r in own.left_out}
        fitted = [r for r in runs if r.id not in left]
        target, own_note = target_from_runs(runs, draft=mine), own.note
    batches = _batches(fitted)
    # every batch's runs (of your draft, with --draft): an acceptance measured at another batch stands in for the
    # model's at a num_steps the fitted sweep did not measure, named as such (``speedup.with_accept_elsewhere``)
    accept_from = list(fitted)
    if args.batch is not None:
        if args.batch not in batches:
            raise InputError(
                f"no speculative run at batch {args.batch} in group {args.run_group!r}; its sweeps ran at batch "
                f"{', '.join(map(str, sorted(batches))) or 'none'}"
            )
        fitted = [r for r in fitted if integer(run_param(r, "concurrency")) == args.batch]
    if args.engine:
        engine = args.engine.strip().lower()
        engines = {str(r.engine or "").lower() for r in fitted if not r.is_baseline and r.num_steps}
        if engine not in engines:
            where = f" at batch {args.batch}" if args.batch is not None else ""
            raise InputError(
                f"no speculative run on {args.engine}{where} in group {args.run_group!r}; its sweeps ran on "
                f"{', '.join(sorted(e for e in engines if e)) or 'no known engine'}"
            )
        fitted = [r for r in fitted if str(r.engine or "").lower() == engine]
    swept = _batches(fitted)  # the batches left to choose from (on --engine's engine)
    model = speedup.model_from_runs(
        fitted,
        baseline_run_id=args.baseline_run,
        draft_step_ms=args.draft_step_ms,
        target=target,
        draft=mine,
        accept_from=accept_from,
    )
    chosen = _which_draft(runs, model, mine, own_note)
    steps = range(1, args.max_steps + 1)
    candidates = _candidates(args.draft_cost or [], model.concurrency)
    if len(candidates) == 1:
        model = speedup.with_draft_step(model, candidates[0].step_ms, source=candidates[0].label)
    out = speedup.summary(model, steps=steps)
    held = speedup.cycle_held(model)  # one run, its cycle not split: no tok/s at another num_steps (walk S)
    void = held or speedup.unphysical(model)  # or a fit no server has (walk BQ 2: verify% -30, 595.9 tok/s)
    side = None
    if len(candidates) > 1:
        side = speedup.compare_drafts(model, candidates, steps=steps)
        out["drafts"] = side.to_dict(orient="records")
    out["chains_and_trees"] = speedup.chains_and_trees(runs, mine)  # measured pairs: the fit is of chains only
    # every batch size and engine --batch/--engine can pick, as the pages' Sweep choice labels it
    out["sweeps"] = [
        {
            "batch": c.batch,
            "engine": c.engine,
            "label": c.label,
            "fitted_run_ids": list(c.fitted_ids),
            "left_out_run_ids": [i for i, _ in c.left_out],
        }
        for c in speedup.sweep_groups(runs, target=target, draft=mine)
    ]
    out["run_group"] = args.run_group
    out["kinds"] = sorted({r.kind for r in runs})
    out["draft"] = chosen
    if args.target_accept is not None and not held:
        frame = speedup.what_if(model, args.target_accept, at_steps=args.at_steps, steps=steps)
        improved = frame[frame["scenario"] != "current draft"]
        out["what_if"] = improved.to_dict(orient="records")
        out["what_if_optimum"] = speedup.optimum(model, frame=improved).__dict__
    if args.json:
        print_json(out)
        return 0
    w = sys.stdout.write
    if chosen["hint"]:  # which draft the fit is of, where the group holds several: a note, not the table
        sys.stderr.write(chosen["hint"] + "\n")
    of = f"; draft {chosen['fitted']}" if chosen["fitted"] else ""
    if mine and chosen["fitted"] and not draft_match(chosen["fitted"], mine):  # no run names it: taken as its
        of = f"; draft {mine} (the runs of {chosen['fitted']})"
    w(f"group {args.run_group} ({', '.join(out['kinds'])}){of}; model: {model.method}\n")
    if chosen["note"]:
        w(f"  - {chosen['note']}\n")
    others = sorted(b for b in swept if b != model.concurrency)
    if args.batch is None and others:
        w(f"  - fitted at batch {model.concurrency}; the group also swept batch {', '.join(map(str, others))}: "
          f"--batch {others[0]} fits that sweep\n")  # fmt: skip
    for note in model.notes:
        w(f"  - {note}\n")
    for line in out["chains_and_trees"]:
        w(f"  - chains or trees (measured): {line}\n")
    # the acceptance is measured where the sweep measured that num_steps: marked, so a model value is never
    # read as a measurement (the column showed the geometric 2.56 beside a measured 2.51)
    # the measured tok/s beside the model's: the best is picked on the measurement where there is one (the model
    # put 264.6 at num_steps 4 where 248.4 was measured, and only the prediction was shown)
    w("num_steps  accept    cycle_ms  verify%  tok/s (predicted)  tok/s (measured)\n")
    for row in out["predicted"]:
        mark = {"measured": "m", "other batch": "b"}.get(row["accept_source"], "p")
        meas = row.get("measured_tok_s")
        said = (
            f"  {meas:16.1f}  {', '.join(f'#{i}' for i in row['measured_runs'])}"
            if meas is not None and meas == meas
            else ""
        )
        tok, unknown = row["tok_s"], void and row["tok_s"] is None
        w(
            f"{row['num_steps']:>9}  {row['accept_length']:6.2f} {mark}  "
            + (f"{'-':>8}" if unknown else f"{row['cycle_ms']:8.2f}")
            + (f"  {'-':>6}" if void else f"  {row['verify_share'] * 100:6.1f}")
            + (f"  {'-':>17}" if tok is None else f"  {tok:17.1f}")
            + f"{said}\n"
        )
    w("accept: m = measured (mean of the sweep's runs at that num_steps), p = predicted by the model")
    other = [
        f"num_steps {r['num_steps']}: {r['accept_from']}"
        for r in out["predicted"]
        if r["accept_source"] == "other batch"
    ]
    if other:  # acceptance can vary with the batch size: said where it came from, never as this batch's
        w(f", b = measured at another batch size ({'; '.join(other)})")
    w("\n")
    w("tok/s (measured): the mean of the sweep's runs at that num_steps (named); the best is picked on it there\n")
    if held:
        w(
            "-: not predicted: one num_steps was measured and its cycle is not split into verification and drafting, "
            "so what another num_steps costs is not known (see the notes)\n"
        )
    elif void:
        w("-: not predicted: the fitted costs are not a server's (see the notes and what is missing below)\n")
    if speedup.optimum_missing(model):
        w("no prediction of the best num_steps yet; missing: " + "; ".join(out["missing"]) + "\n")
    else:
        w(out["optimum"]["sentence"] + "\n")
        for m in out["missing"]:
            w(f"missing: {m}\n")
    if "what_if_optimum" in out and not speedup.optimum_missing(model):
        w("with the higher acceptance: " + out["what_if_optimum"]["sentence"] + "\n")
    if side is not None:
        w("side by side (same acceptance unless given; accept_to_match: what it needs to equal the first draft)\n")
        for row in side.to_dict(orient="records"):
            w(
                f"{row['num_steps']:>9}  {row['scenario'][:40]:<40}  step {row['draft_step_ms']:7.3f} ms  "
                f"{row['tok_s']:8.1f} tok/s  accept_to_match {row['accept_to_match']:.2f}\n"
            )
    return 0


def _batches(runs: list) -> set[int]:
    """The concurrencies the group's speculative runs measured."""
    return {
        c
        for r in runs
        if not r.is_baseline and r.num_steps and (c := integer(run_param(r, "concurrency"))) is not None
    }


def _drafts(runs: list) -> dict[str, list[int]]:
    """The drafts of a group's speculative runs as the runs table names them (``registry.draft_label``), with their
    run ids; names of one draft (its repo id, a folder of its name) are one (``draft.draft_match``)."""
    from comparelib.models.draft import draft_match
    from comparelib.models.registry import draft_label, is_mtp

    out: dict[str, list[int]] = {}
    raw: dict[str, str] = {}
    for r in runs:
        if r.is_baseline:
            continue
        name, named = draft_label(r), str(r.draft_model or "").strip()
        same = None if is_mtp(r) or not named else next((k for k, v in raw.items() if draft_match(named, v)), None)
        key = same or name
        raw.setdefault(key, "" if is_mtp(r) else named)
        out.setdefault(key, []).append(int(r.id))
    return out


def _which_draft(runs: list, model: object, mine: str | None, note: str | None) -> dict:
    """Which draft's runs were fitted and which other drafts the group holds: ``fitted`` (its name, or None when
    the fit mixes names), ``given`` (--draft), ``others`` ([{draft, runs}]), ``note`` (runs left out for
    --draft, ``runs_of_draft``'s words) and ``hint`` (without --draft, in a group of several drafts)."""
    fitted_ids = {p.run_id for p in getattr(model, "measured", ()) if p.run_id is not None}
    drafts = _drafts(runs)
    of_fit = [name for name, ids in drafts.items() if fitted_ids & set(ids)]
    others = [{"draft": name, "runs": ids} for name, ids in drafts.items() if name not in of_fit]
    fitted = of_fit[0] if len(of_fit) == 1 else None
    hint = None
    if mine is None and others:
        listed = "; ".join(f"{o['draft']} ({', '.join(f'#{i}' for i in o['runs'])})" for o in others)
        hint = (
            f"fitted the runs of {fitted or ' and '.join(of_fit)}; the group also holds runs of {listed}: "
            "pass --draft to choose"
        )
    return {"fitted": fitted, "given": mine, "others": others, "note": note, "hint": hint}


def _candidates(files: list[str], batch: int) -> list:
    """One candidate per draft in the given draft-cost files, at the sweep's concurrency."""
    from comparelib.analysis import draftcost, speedup

    out = []
    for path in files:
        data = draftcost.load_recorded(path)
        for d in data["drafts"]:
            ms, how = draftcost.step_ms_for_batch(d, batch, estimate=bool(data.get("estimate")))
            out.append(speedup.DraftCandidate(label=f"{d.get('draft') or path} ({how})", step_ms=ms))
    return out
