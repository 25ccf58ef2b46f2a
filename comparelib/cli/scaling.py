"""``scaling``: fit acceptance length against training volume for one benchmark and setting."""

from __future__ import annotations

import argparse
import math
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("scaling", help="fit acceptance length against training-data volume")
    p.add_argument("--benchmark", default="gsm8k", help="benchmark name (gsm8k, mtbench, humaneval, math500, ...)")
    p.add_argument(
        "--setting",
        default=None,
        help="chain like 3,1,4 or a full setting key; default: the setting with the most volumes",
    )
    p.add_argument("--x", choices=("samples", "tokens"), default="samples", help="volume axis")
    p.add_argument("--target-accept", type=float, default=None, help="acceptance length to reach")
    p.add_argument(
        "--own-samples",
        type=float,
        default=None,
        help="your draft's training volume; default: the latest volume in the results store",
    )
    p.add_argument("--reference", default=None, help="published draft to compare the own volume against")
    p.add_argument("--db", default=None, help="results store URL (default: SPECDRAFT_DB or the local SQLite file)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from comparelib.analysis import scaling, verdicts
    from comparelib.cli._util import print_json
    from comparelib.errors import DataError, InputError

    if args.target_accept is not None and not 1.0 < args.target_accept < math.inf:
        raise InputError(
            "--target-accept must be a finite number above 1 (acceptance length counts the bonus token), "
            f"got {args.target_accept:g}"
        )
    if args.own_samples is not None and not 0 < args.own_samples < math.inf:
        raise InputError(f"--own-samples must be a positive, finite number, got {args.own_samples:g}")
    bench = args.benchmark.strip().lower()
    own_volume = args.own_samples
    own_source = "--own-samples" if own_volume is not None else None
    if own_volume is None:
        from comparelib.live.store import Store

        store = Store(args.db)
        store.ensure_examples()
        vols = [v for v in store.data_volumes() if v.get(args.x)]
        if vols:
            latest = vols[-1]
            own_volume = float(latest[args.x])
            own_source = f"store: {latest['draft']} ({latest.get('kind')})"
    points = scaling.scaling_points()
    key = scaling.resolve_setting(points, bench, args.setting, args.x)
    sel = scaling.select(points, benchmark=bench, setting_key=key, x=args.x)
    pub = sel.points[sel.points["kind"] == "published"]
    out: dict[str, Any] = {
        "benchmark": bench,
        "setting_key": key,
        "x": args.x,
        "points": len(pub),
        "excluded": int(len(sel.excluded)),
        "excluded_reasons": _reason_counts(sel.excluded),
    }
    try:
        f = scaling.fit_published(sel)
        out["fit"] = verdicts.fit_summary(f, target_accept=args.target_accept, own_volume=own_volume)
        out["fit_error"] = None
    except DataError as exc:
        f = None
        out["fit"] = None
        out["fit_error"] = str(exc)
    out["own_volume"] = own_volume
    out["own_volume_source"] = own_source
    if args.reference and own_volume:
        out["gap"] = verdicts.gap_sentence(
            own_volume, args.reference, benchmark=bench, setting_key=key, points=points, x=args.x
        )
    if args.json:
        print_json(out)
        return 0
    w = sys.stdout.write
    w(
        f"{verdicts.bench_label(bench)} at {key}: {len(pub)} published points "
        f"({int(len(sel.excluded))} others excluded)\n"
    )
    if f is None:
        w(f"no fit: {out['fit_error']}\n")
    else:
        w(
            f"accept = {f.a:.3f} (±{f.se_a:.3f}) + {f.b:.3f} (±{f.se_b:.3f}) * log10({args.x});"
            f" n={f.n}, R²={f.r2:.3f}, residual SE={f.residual_se:.3f}\n"
        )
        if args.target_accept is not None:
            w(verdicts.target_sentence(f, args.target_accept) + "\n")
        if own_volume:
            mean, lo, hi, _ = scaling.predict_bounded(f, own_volume)
            unsaid = scaling.unsaid_at(f, own_volume)  # a clip is not the trend's value (walk T: "1.00 (1.00..4.00)")
            w(
                f"at {verdicts.human(own_volume)} {args.x} ({own_source}): "
                + (
                    f"the trend cannot say: {unsaid}"
                    if unsaid
                    else f"{mean:.2f} (95% band {lo:.2f}..{hi:.2f})"
                    f"{' (extrapolated)' if f.extrapolates(own_volume) else ''}"
                )
                + "\n"
            )
    if out.get("gap"):
        w(out["gap"] + "\n")
    return 0


def _reason_counts(excluded: pd.DataFrame) -> dict[str, int]:
    counts: dict[str, int] = {}
    for reason in excluded["reason"]:
        head = str(reason).split(" (")[0].split(";")[0]
        counts[head] = counts.get(head, 0) + 1
    return counts
