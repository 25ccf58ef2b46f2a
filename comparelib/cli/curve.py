"""``curve``: the learning curve (simulated acceptance length against samples seen) of a training run."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "curve",
        help="learning curve from training logs: tau_sim against samples seen, a saturating fit and a verdict",
    )
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="SpecForge / speculators / EAGLE console logs, TensorBoard event files or run directories, CSV",
    )
    p.add_argument(
        "--batch-size",
        type=float,
        default=None,
        help="global samples per logged step (samples_seen = step * N) when the log does not say",
    )
    p.add_argument(
        "--epoch-samples",
        type=float,
        default=None,
        help="samples per epoch, for per-epoch logs (the EAGLE trainer): samples_seen = epoch * N",
    )
    p.add_argument("--steps", type=int, default=None, help="use only the first N draft positions (a chain of N steps)")
    p.add_argument(
        "--format",
        dest="fmt",
        default="auto",
        choices=("auto", "tensorboard", "specforge", "speculators", "eagle", "csv"),
    )
    p.add_argument(
        "--split", default="auto", choices=("auto", "train", "eval"), help="points to fit (auto: eval if 5+)"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from comparelib import paths
    from comparelib.analysis import traininglogs

    # paths first, before pandas loads (~60 MB): a log outside the data root, or a run directory's event file
    # linked out of it, is refused at the cost of a directory listing
    for raw in args.files:
        path = paths.resolve_user_path(raw, "training log")
        if path.is_dir() and args.fmt in ("auto", "tensorboard"):
            traininglogs.event_files(path)

    from comparelib.analysis import curves
    from comparelib.cli._util import print_json

    c = curves.curve(
        args.files,
        fmt=args.fmt,
        batch_size=args.batch_size,
        epoch_samples=args.epoch_samples,
        steps=args.steps,
        split=args.split,
    )
    if args.json:
        print_json(c.to_json())
        return 0
    w = sys.stdout.write
    ev = c.evidence
    w(
        f"{c.stats.get('format')}: {ev['train_points']} train points, {ev['eval_points']} eval points, "
        f"{ev['positions']} positions; fitting {ev['split']} against "
        f"{'samples seen' if ev['x'] == 'samples' else ev['x']}\n"
    )
    # the page reads the chosen setting's num_steps by default, this every position: said, so the two compare
    cut = ev.get("positions_logged", 0) > ev["positions"] or ev.get("steps")
    w(
        c.positions_words()
        + ("" if cut else "; --steps N uses the first N, as Acceptance vs data does at a setting's num_steps")
        + "\n"
    )
    if c.fit is not None:
        f = c.fit
        w(
            f"tau = {f.tau_inf:.3f} - {f.a:.3f} * (x / {f.x_ref:.4g}) ** -{f.b:.3f};"
            f" n={f.n}, R²={f.r2:.3f}, residual SE={f.residual_se:.3f}\n"
        )
        if ev.get("fit_not_used_because"):  # the line is the fit's, not a prediction
            w(f"fit set aside for predictions: {'; '.join(ev['fit_not_used_because'])}\n")
    elif ev.get("fit_not_used_because"):  # an overfitting log with too few points up to its peak to fit
        w(f"no fit: {'; '.join(ev['fit_not_used_because'])}\n")
    rf = ev.get("recent_fit")
    if rf:  # the same form over the last doubling alone: how the recent curve bends (the verdict weighs it)
        g = rf["gain_at_2x"]
        w(
            f"fit to the last doubling ({rf['points']} points): tau = {rf['tau_inf']:.3f} - {rf['a']:.3f} * "
            f"(x / {c.fit.x_ref if c.fit else ev['x_max']:.4g}) ** -{rf['b']:.3f}, residual SE={rf['residual_se']:.3f}"
            + (
                f"; set aside: {'; '.join(rf['problems'])}"
                if rf["problems"]
                else f"; predicts {g['mean']:+.3f} ({g['low']:+.3f}..{g['high']:+.3f}) at 2x"
            )
            + "\n"
        )
    if ev.get("note"):
        w(f"note: {ev['note']}\n")
    skipped = c.stats.get("long_lines_skipped", 0)
    if skipped:
        w(f"note: {skipped} over-long lines skipped\n")
    w(f"verdict: {c.verdict}\n{c.sentence}\n")
    return 0
