"""How fast are training logs turned into a learning curve, against reading the file raw, and is memory flat?

Writes a deterministic SpecForge console log (``--lines``, 1M by default; every line a metrics line,
``step N: {...}`` with acc_0..acc_6, ploss_0..ploss_6, loss, lr as SpecForge 0.2.0 prints them, an
eval line every 1000 steps), then measures in one run:

* curve lines/s: ``comparelib.analysis.curves.curve`` end to end (bounded line reads, regex extraction,
  tau_sim, thinning, the fit and the verdict);
* raw lines/s: ``for line in open(path, "rb")`` over the same file (the floor: nothing is parsed),
  and raw MB/s reading it in 1 MiB blocks;
* their ratio, best of ``--repeat`` alternating runs of each;
* a naive reference: ``ast.literal_eval`` of every line's dict (on the first ``--naive-lines``);
* peak RSS of ``curve`` in fresh subprocesses at ``--small-lines`` and at ``--lines`` (aim: flat).

``--json`` prints one JSON object (keys include ``ratio_vs_raw_lines`` and ``peak_rss_mb``).
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import peak_rss_mb, run_child  # noqa: E402 - after the path is set

POSITIONS = 7


def generate(path: Path, lines: int, seed: int = 7) -> None:
    """A rising curve: acc_0 = 0.9 - 0.5 * (step/10) ** -0.3, later positions a little lower, with noise."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as fh:
        step = 0
        written = 0
        while written < lines:
            step += 1
            base = 0.9 - 0.5 * (step / 10) ** -0.3
            accs = [min(1.0, max(0.0, base * 0.95**i + rng.gauss(0, 0.02))) for i in range(POSITIONS)]
            d: dict[str, float] = {f"acc_{i}": a for i, a in enumerate(accs)}
            d |= {f"ploss_{i}": 2.0 - a for i, a in enumerate(accs)}
            d |= {"acc": sum(accs) / POSITIONS, "loss": 3.1, "lr": 1e-4}
            fh.write(f"step {step}: {d}\n")
            written += 1
            if step % 1000 == 0 and written < lines:
                fh.write(f"step {step}: {{'eval/avg_loss': 1.0, 'eval/per_position_acc': {accs}}}\n")
                written += 1


def generate_speculators(path: Path, lines: int, seed: int = 7) -> None:
    """speculators 0.9.0 console records (train/logger.py::FormatDictFilter), one per line, a val record per 1000."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as fh:
        step = 0
        written = 0
        while written < lines:
            step += 1
            base = 0.9 - 0.5 * (step / 10) ** -0.3
            parts = []
            full = 1.0
            for i in range(POSITIONS):
                cond = min(1.0, max(0.0, base * 0.95**i + rng.gauss(0, 0.02)))
                full *= cond
                parts += [
                    f"train/loss_{i}={2.0 - cond:.3f}",
                    f"train/full_acc_{i}={full:.3f}",
                    f"train/cond_acc_{i}={cond:.3f}",
                ]
            parts += ["train/loss=3.100", "profile/step_time=0.512", "epoch=0", "lr=1.00e-04", f"global_step={step}"]
            fh.write(f"[12:00:00] INFO     {', '.join(parts)}     trainer.py:587\n")
            written += 1
            if step % 1000 == 0 and written < lines:
                vals = ", ".join(f"val/cond_acc_{i}_epoch={base * 0.95**i:.3f}" for i in range(POSITIONS))
                fh.write(f"[12:00:00] INFO     val/loss_epoch=1.000, {vals}, epoch=0\n")
                written += 1


GENERATORS = {"specforge": generate, "speculators": generate_speculators}


def raw_lines(path: Path) -> tuple[float, int]:
    t0 = time.perf_counter()
    n = 0
    with open(path, "rb") as fh:
        for _ in fh:
            n += 1
    return n / (time.perf_counter() - t0), n


def raw_blocks(path: Path) -> float:
    t0 = time.perf_counter()
    total = 0
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            total += len(block)
    return total / 1e6 / (time.perf_counter() - t0)


def run_curve(path: Path) -> tuple[float, dict]:
    from comparelib.analysis import curves

    t0 = time.perf_counter()
    c = curves.curve([path], batch_size=64)
    dt = time.perf_counter() - t0
    return c.stats["lines_or_events"] / dt, {"verdict": c.verdict, "points": len(c.points), "stats": c.stats}


def naive(path: Path, limit: int) -> float:
    rx = re.compile(r"step (\d+): (\{.*\})")
    t0 = time.perf_counter()
    n = 0
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            m = rx.search(line)
            if m:
                ast.literal_eval(m.group(2))
            n += 1
            if n >= limit:
                break
    return n / (time.perf_counter() - t0)


def child(path: str) -> None:
    rate, info = run_curve(Path(path))
    print(json.dumps({"peak_rss_mb": peak_rss_mb(), "lines_per_s": rate, "points": info["points"]}))


def measure_rss(path: Path) -> dict:
    return run_child(__file__, "--child", str(path))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--small-lines", type=int, default=100_000, help="the smaller size for the memory check")
    parser.add_argument("--naive-lines", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=2, help="alternating curve/raw runs; the best of each counts")
    parser.add_argument("--format", choices=sorted(GENERATORS), default="specforge", help="which console log to write")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child)
        return 0
    log = (lambda *_: None) if args.json else (lambda msg: print(msg, flush=True))
    with tempfile.TemporaryDirectory(prefix="bench_curves_") as tmp:
        big, small = Path(tmp) / "train.log", Path(tmp) / "small.log"
        t0 = time.perf_counter()
        GENERATORS[args.format](big, args.lines)
        GENERATORS[args.format](small, args.small_lines)
        size_mb = big.stat().st_size / 1e6
        log(f"wrote {args.lines:,} lines ({size_mb:.0f} MB) in {time.perf_counter() - t0:.1f} s")
        curve_rates, raw_rates, block_rates = [], [], []
        info: dict = {}
        for _ in range(max(1, args.repeat)):
            r, _ = raw_lines(big)
            raw_rates.append(r)
            block_rates.append(raw_blocks(big))
            rate, info = run_curve(big)
            curve_rates.append(rate)
        curve_best, raw_best = max(curve_rates), max(raw_rates)
        log(
            f"curve: {curve_best:,.0f} lines/s; raw line iteration: {raw_best:,.0f} lines/s; "
            f"ratio {curve_best / raw_best:.3f}; raw block read {max(block_rates):,.0f} MB/s"
        )
        naive_rate = naive(big, args.naive_lines) if args.format == "specforge" else None
        if naive_rate:
            log(f"naive ast.literal_eval per line: {naive_rate:,.0f} lines/s ({curve_best / naive_rate:.1f}x slower)")
        rss_small, rss_big = measure_rss(small), measure_rss(big)
        log(
            f"peak RSS: {args.small_lines:,} lines {rss_small['peak_rss_mb']} MB, {args.lines:,} lines "
            f"{rss_big['peak_rss_mb']} MB"
        )
        log(f"verdict {info['verdict']}, {info['points']} points kept, thinned {info['stats']['thinned']}")
        out = {
            "format": args.format,
            "lines": args.lines,
            "file_mb": round(size_mb, 1),
            "curve_lines_per_s": round(curve_best),
            "raw_lines_per_s": round(raw_best),
            "ratio_vs_raw_lines": round(curve_best / raw_best, 4),
            "raw_block_mb_per_s": round(max(block_rates), 1),
            "curve_mb_per_s": round(curve_best / args.lines * size_mb, 1),
            "naive_literal_eval_lines_per_s": round(naive_rate) if naive_rate else None,
            "speedup_vs_naive": round(curve_best / naive_rate, 2) if naive_rate else None,
            "peak_rss_mb": {str(args.small_lines): rss_small["peak_rss_mb"], str(args.lines): rss_big["peak_rss_mb"]},
            "rss_growth": round(rss_big["peak_rss_mb"] / rss_small["peak_rss_mb"], 3),
            "verdict": info["verdict"],
            "points_kept": info["points"],
            "thinned": info["stats"]["thinned"],
        }
        if args.json:
            print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
