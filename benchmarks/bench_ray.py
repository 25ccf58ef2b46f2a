"""Ray Data audit against the single-process audit on this machine: rows/s, GB/s, memory per worker.

Generates ``--shards`` JSONL shards (``--rows`` rows in all, the synthetic ShareGPT-style set of
``bench_audit``) and a 32K byte-level BPE, then in one run measures the single-process audit
(the reference) and the Ray Data audit with 1 and 2 workers on a local cluster (``ray.init``,
2 CPUs), each best of ``--repeat``. Each worker reports its peak RSS: with 1 worker it reads twice
the rows of a worker in the 2-worker run, so equal figures mean memory is flat in the input size.
Also checks that the Ray results equal the reference (exact fields). ``--json``: one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_audit import build_tokenizer, generate  # noqa: E402 - after the path is set


def shard(src: Path, folder: Path, shards: int) -> int:
    folder.mkdir()
    lines = src.read_text(encoding="utf-8").splitlines(keepends=True)
    per = -(-len(lines) // shards)
    for k in range(shards):
        (folder / f"part-{k:03d}.jsonl").write_text("".join(lines[k * per : (k + 1) * per]), encoding="utf-8")
    return sum(f.stat().st_size for f in folder.iterdir())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", type=int, default=40_000)
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    import ray

    from comparelib.audit import cluster, scan

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        whole = base / "all.jsonl"
        generate(whole, args.rows)
        tok = build_tokenizer(whole, base / "tok", train_rows=min(args.rows, 10_000))
        size = shard(whole, base / "set", args.shards)
        data = str(base / "set")

        def best(run: object) -> tuple[float, object]:
            times, out = [], None
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                out = run()  # type: ignore[operator]
                times.append(time.perf_counter() - t0)
            return min(times), out

        t_one, ref = best(lambda: scan.audit(data, tokenizer=str(tok)))
        t0 = time.perf_counter()
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        t_init = time.perf_counter() - t0
        results: dict[str, dict] = {}
        for workers in (1, 2):
            t, res = best(lambda w=workers: cluster.audit(data, address="local", tokenizer=str(tok), workers=w))
            same = {k: v for k, v in res.to_dict().items() if k not in ("elapsed_s", "runner")} == {  # type: ignore[union-attr]
                k: v
                for k, v in ref.to_dict().items()  # type: ignore[union-attr]
                if k not in ("elapsed_s", "runner")
            }
            results[str(workers)] = {
                "seconds": round(t, 2),
                "rows_per_s": round(args.rows / t),
                "gb_per_s": round(size / t / 1e9, 4),
                "ratio_to_single": round(t_one / t, 2),
                "worker_peak_rss_mb": res.runner["worker_peak_rss_mb"],  # type: ignore[union-attr]
                "same_as_single": same,
            }
        ray.shutdown()
    out = {
        "rows": args.rows,
        "shards": args.shards,
        "bytes": size,
        "single": {
            "seconds": round(t_one, 2),
            "rows_per_s": round(args.rows / t_one),
            "gb_per_s": round(size / t_one / 1e9, 4),
        },
        "ray_init_s": round(t_init, 1),
        "ray": results,
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{args.rows:,} rows in {args.shards} shards, {size / 1e6:,.1f} MB")
        s = out["single"]
        print(f"single process: {s['seconds']} s, {s['rows_per_s']:,} rows/s, {s['gb_per_s']} GB/s (reference)")
        print(f"ray.init (local, 2 CPUs): {out['ray_init_s']} s, not counted below")
        for w, r in results.items():
            print(
                f"ray, {w} worker(s): {r['seconds']} s, {r['rows_per_s']:,} rows/s, {r['gb_per_s']} GB/s, "
                f"{r['ratio_to_single']}x single, worker peak RSS {r['worker_peak_rss_mb']} MB, "
                f"same numbers: {r['same_as_single']}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
