"""Draft step cost of the Kimi pair, measured with torch on whatever device is present.

The pair: AQ-MedAI/Kimi-K2-Instruct-eagle3 (1.19B outside the embedding, 32K draft vocabulary) and
the built-in example's full-vocabulary twin (example:own-kimi-k2.5-draft, 2.14B). Both are built
from their configs with random weights directly on the device, then timed per batch size: one
decode step and proposals of 1..N steps (chain drafting). The reference, measured in the same run,
is the device's nominal peak memory bandwidth (GPUs in ``draftcost.PEAK_BANDWIDTH_GBS``) and a
plain tensor copy (read + write) on the same device; the printed ratios are bandwidth achieved by
a step against those, and the big draft's step time against the small one's.

    python benchmarks/bench_draftcost.py                      # cuda if present, else cpu
    python benchmarks/bench_draftcost.py --device cuda --json --out comparelib/builtin/draftcost/kimi-pair-h200.json
    python benchmarks/bench_draftcost.py --tiny               # the same structure scaled down, CPU in seconds
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PAIR = ("registry:AQ-MedAI/Kimi-K2-Instruct-eagle3", "example:own-kimi-k2.5-draft")

# --tiny: every size divided the same way, so the pair keeps its structure (draft vocab 32000/163840)
TINY = {
    "hidden_size": 256,
    "intermediate_size": 640,
    "num_attention_heads": 4,
    "num_key_value_heads": 4,
    "head_dim": 64,
}
TINY_VOCAB_DIV = 20


def specs(tiny: bool) -> list[tuple[str, Any]]:
    from comparelib.models import architectures, comparison

    out = []
    for source in PAIR:
        entry = comparison.load_entry(source, with_header=False)
        if not tiny:
            out.append((entry.label, entry.spec))
            continue
        cfg = dict(entry.spec.raw_config)
        cfg.update(TINY)
        cfg.pop("target_hidden_size", None)
        cfg["vocab_size"] = entry.spec.vocab_size // TINY_VOCAB_DIV
        cfg["draft_vocab_size"] = (entry.spec.draft_vocab_size or entry.spec.vocab_size) // TINY_VOCAB_DIV
        out.append((f"{entry.label} (tiny)", architectures.parse_config(cfg, source=f"{entry.label} (tiny)")))
    return out


def main(argv: list[str] | None = None) -> int:
    from comparelib.analysis import draftcost

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None, help="cpu or cuda (default: cuda when present)")
    ap.add_argument("--dtype", default="bf16", choices=sorted(draftcost.DTYPES))
    ap.add_argument("--batch", default=None, help="batch sizes (default 1,2,4,8,16,32,64; --tiny: 1,8,64)")
    ap.add_argument("--context", type=int, default=None, help="KV-cache tokens (default 2048; --tiny: 256)")
    ap.add_argument("--steps", default="1..8", help="longest proposal, N or 1..N (default 1..8)")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--threads", type=int, default=None, help="torch CPU threads (--tiny default: 1)")
    ap.add_argument("--no-cuda-graph", action="store_true", help="on a GPU, time eager forwards")
    ap.add_argument("--tiny", action="store_true", help="the pair scaled down (runs on a CPU in seconds)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--out", default=None, help="also write the JSON object to this file")
    args = ap.parse_args(argv)

    import torch

    device = draftcost.resolve_device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    batches = draftcost.parse_batches(args.batch or ("1,8,64" if args.tiny else "1,2,4,8,16,32,64"))
    context = args.context or (256 if args.tiny else 2048)
    steps = draftcost.parse_steps(args.steps)
    threads = args.threads if args.threads is not None else (1 if args.tiny else None)
    if threads is not None:
        torch.set_num_threads(threads)
    t0 = time.perf_counter()
    reference = draftcost.copy_bandwidth_gbs(device, mib=1024 if device.startswith("cuda") else 256)
    log = (lambda m: print(m, file=sys.stderr)) if not args.json else (lambda m: None)
    costs = []
    for label, spec in specs(args.tiny):
        costs.append(
            draftcost.measure(
                spec,
                label=label,
                device=device,
                dtype=args.dtype,
                batches=batches,
                context=context,
                steps=steps,
                repeats=args.repeats,
                warmup=args.warmup,
                reference_gbs=reference,
                progress=log,
                cuda_graphs=not args.no_cuda_graph,
            )
        )
    small, big = costs
    ratios = []
    for rs in small.results:
        rb = big.result(rs.batch)
        if rb is not None:
            ratios.append(
                {
                    "batch": rs.batch,
                    "step_ms_ratio": rb.step_ms / rs.step_ms,
                    "bytes_ratio": rb.bytes_per_step / rs.bytes_per_step,
                    "proposal_ms_ratio": rb.proposal_ms / rs.proposal_ms,
                }
            )
    out = {
        "device": device,
        "device_name": small.device_name,
        "dtype": args.dtype,
        "context": context,
        "steps": steps,
        "tiny": args.tiny,
        "peak_gbs": small.peak_gbs,
        "reference_gbs": reference,
        "reference": "tensor copy on the same device, GB/s of bytes read + written, same run",
        "torch": torch.__version__,
        "cuda_graphs": all(c.cuda_graphs for c in costs),
        "wall_s": time.perf_counter() - t0,
        "drafts": [c.to_json() for c in costs],
        "big_vs_small": ratios,
    }
    text = json.dumps(out, indent=2)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    if args.json:
        print(text)
        return 0
    w = sys.stdout.write
    peak = f"nominal peak {small.peak_gbs:.0f} GB/s, " if small.peak_gbs else ""
    w(f"{small.device_name}, {args.dtype}, context {context}; {peak}measured copy {reference:.1f} GB/s (read+write)\n")
    for c in costs:
        p = c.params
        w(
            f"\n{c.draft}: {p['excluding_embedding'] / 1e9:.3f}B outside the embedding,"
            f" lm_head {p['lm_head'] / 1e6:.0f}M\n"
        )
        w(f"batch   step ms   ±IQR  first ms  proposal ms ({steps} steps)  GB/step     GB/s  of peak  of copy\n")
        for r in c.results:
            fp = f"{r.fraction_of_peak * 100:6.0f}%" if r.fraction_of_peak is not None else "      -"
            of_copy = (r.fraction_of_reference or 0) * 100
            w(
                f"{r.batch:>5}  {r.step_ms:8.3f}  {r.step_ms_spread:5.3f}  {r.first_step_ms:8.3f}"
                f"  {r.proposal_ms:21.3f}  {r.bytes_per_step / 1e9:7.3f}  {r.bandwidth_gbs:7.1f}"
                f"  {fp}  {of_copy:6.0f}%\n"
            )
        w(draftcost.closeness_sentence(c) + "\n")
    w(
        "\nbig / small: "
        + ", ".join(
            f"batch {r['batch']}: step x{r['step_ms_ratio']:.2f} (bytes x{r['bytes_ratio']:.2f})" for r in ratios
        )
        + "\n"
    )
    w(f"wall {out['wall_s']:.1f} s\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
