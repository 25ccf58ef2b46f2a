"""eval-draft speed: dump tokens evaluated per second against the FLOP bound, and peak memory vs dump files.

A synthetic draft (random weights, built on the device as draft-cost builds it) and synthetic
SpecForge dumps (random aux states, greedy-looking token ids); the evaluation is the library's
``offline.evaluate`` with K steps. The reference, measured in the same run, is the device's
matmul rate (a large square matmul at the same dtype): the FLOP bound is
``2 x params x tokens x steps / that rate`` (params: fc, decoder layer, lm_head; the embedding is a
lookup). The evaluator runs two chains per row (own tokens for replay, dump tokens for SpecForge's
teacher-forced figures), so its own work is about twice that bound. Peak RSS is measured in a fresh
child per number of dump files: streaming one file at a time keeps it flat.

    python benchmarks/bench_offline.py --json                 # tiny, CPU
    python benchmarks/bench_offline.py --device cuda --kimi   # Kimi-shaped draft, bf16, K=7 (GPU)
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import peak_rss_mb, run_child  # noqa: E402

TINY = {"hidden": 256, "intermediate": 640, "heads": 4, "kv_heads": 4, "head_dim": 64, "vocab": 8192, "draft": 1600}
KIMI = {"hidden": 7168, "intermediate": 18432, "heads": 64, "kv_heads": 64, "head_dim": 128, "vocab": 163840,
        "draft": 32000}  # fmt: skip


def _shape(dims: dict[str, int]) -> Any:
    from comparelib.analysis import draftcost

    return draftcost.DraftShape(
        hidden=dims["hidden"],
        intermediate=dims["intermediate"],
        heads=dims["heads"],
        kv_heads=dims["kv_heads"],
        head_dim=dims["head_dim"],
        vocab=dims["vocab"],
        draft_vocab=dims["draft"],
        target_hidden=dims["hidden"],
        num_aux=3,
        layers=1,
        with_d2t=True,
        with_t2d=True,
    )


def write_dumps(folder: Path, files: int, seq: int, dims: dict[str, int]) -> None:
    import torch

    gen = torch.Generator().manual_seed(0)
    out = folder / "rows_0-2000"
    out.mkdir(parents=True, exist_ok=True)
    for i in range(files):
        ids = torch.randint(0, dims["vocab"], (seq,), generator=gen)
        mask = torch.zeros(seq, dtype=torch.long)
        mask[seq // 8 :] = 1
        torch.save(
            {
                "input_ids": ids,
                "loss_mask": mask,
                "hidden_state": torch.randn(1, seq, dims["hidden"], generator=gen).to(torch.bfloat16),
                "aux_hidden_state": torch.randn(1, seq, 3 * dims["hidden"], generator=gen).to(torch.bfloat16),
            },
            out / f"data_{i}.ckpt",
        )


def matmul_flops(device: str, dtype: Any) -> float:
    import torch

    n = 4096 if device.startswith("cuda") else 1024
    a = torch.randn(n, n, device=device).to(dtype)
    for _ in range(2):
        a @ a
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    reps = 20 if device.startswith("cuda") else 5
    t = time.perf_counter()
    for _ in range(reps):
        a @ a
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    return 2 * n**3 * reps / (time.perf_counter() - t)


def measure(files: int, seq: int, steps: int, device: str, dtype: str, kimi: bool) -> dict[str, Any]:
    import torch

    from comparelib.analysis import draftcost, offline

    dims = KIMI if kimi else TINY
    shape = _shape(dims)
    model = draftcost.build_draft(shape, device=device, dtype=dtype)
    model.requires_grad_(False)
    emb = model.embed_tokens.weight
    ids = torch.arange(shape.draft_vocab, device=device)
    d2t = ids * (shape.vocab // shape.draft_vocab) - ids
    t2d = torch.zeros(shape.vocab, dtype=torch.bool)
    t2d[(d2t + ids).cpu()] = True
    ld = offline.LoadedDraft("synthetic", {}, shape, model, d2t.cpu(), t2d, "random", None)
    lm_head = torch.randn(shape.vocab, shape.hidden, device=device).to(emb.dtype)
    head = offline.TargetHead(emb, torch.ones(shape.hidden, device=device, dtype=emb.dtype), lm_head, 1e-6, "random")
    params = sum(p.numel() for n, p in model.named_parameters() if n != "embed_tokens.weight")
    with tempfile.TemporaryDirectory() as tmp:
        write_dumps(Path(tmp), files, seq, dims)
        offline.evaluate("synthetic", tmp, steps=1, device=device, dtype=dtype, max_samples=1, loaded=(ld, head))
        if device.startswith("cuda"):
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        t = time.perf_counter()
        ev = offline.evaluate(
            "synthetic", tmp, steps=steps, device=device, dtype=dtype, bootstrap=0, loaded=(ld, head)
        )
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        seconds = time.perf_counter() - t
    peak = matmul_flops(device, draftcost._torch_dtype(dtype))
    bound_s = 2 * params * ev.tokens * steps / peak
    return {
        "device": device,
        "device_name": draftcost.device_name(device),
        "dtype": dtype,
        "shape": "kimi" if kimi else "tiny",
        "files": files,
        "seq": seq,
        "steps": steps,
        "params": params,
        "tokens": ev.tokens,
        "seconds": seconds,
        "tokens_per_s": ev.tokens / seconds,
        "matmul_tflops": peak / 1e12,
        "flop_bound_s": bound_s,
        "of_flop_bound": bound_s / seconds,
        "peak_rss_mb": peak_rss_mb(),
        "gpu_peak_gb": torch.cuda.max_memory_allocated() / 1e9 if device.startswith("cuda") else None,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--dtype", default=None, choices=["fp32", "bf16"], help="default: bf16 on cuda, fp32 on cpu")
    ap.add_argument("--kimi", action="store_true", help="the Kimi-shaped draft (hidden 7168, 32K draft vocab)")
    ap.add_argument("--steps", type=int, default=7)
    ap.add_argument("--seq", type=int, default=None, help="tokens per dump file (default 512 tiny, 2048 kimi)")
    ap.add_argument("--files", default="1,4,16", help="numbers of dump files, comma-separated")
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    dtype = args.dtype or ("bf16" if args.device.startswith("cuda") else "fp32")
    seq = args.seq or (2048 if args.kimi else 512)
    if args.child is not None:
        print(json.dumps(measure(args.child, seq, args.steps, args.device, dtype, args.kimi)))
        return 0
    rows = []
    for n in [int(x) for x in args.files.split(",")]:
        extra = ["--kimi"] if args.kimi else []
        rows.append(
            run_child(
                Path(__file__),
                "--child",
                str(n),
                "--device",
                args.device,
                "--dtype",
                dtype,
                "--steps",
                str(args.steps),
                "--seq",
                str(seq),
                *extra,
            )
        )
    out = {"runs": rows, "rss_growth": rows[-1]["peak_rss_mb"] / rows[0]["peak_rss_mb"] if rows else None}
    if args.json:
        print(json.dumps(out))
        return 0
    for r in rows:
        print(
            f"{r['device_name']} {r['shape']} {r['dtype']} K={r['steps']} files={r['files']:>3}: "
            f"{r['tokens_per_s']:,.0f} tok/s, {r['of_flop_bound'] * 100:.1f}% of the FLOP bound "
            f"({r['matmul_tflops']:.2f} TFLOP/s matmul measured), peak RSS {r['peak_rss_mb']} MB"
        )
    print(f"peak RSS, most files / fewest: x{out['rss_growth']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
