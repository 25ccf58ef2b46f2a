"""eval-draft speed: dump tokens evaluated per second against the FLOP bound, and peak memory vs dump files.

A synthetic draft (random weights, built on the device as draft-cost builds it), a random target head
and synthetic SpecForge dumps (random aux and final states). ``--dumps greedy`` (default): the answer
span is the target head's own greedy output over the stored final states, as in a regenerated dataset;
``--dumps random``: random token ids (a dataset the target did not write), so the dump-token chain is
recomputed for nearly every row. The evaluation is the library's ``offline.evaluate`` with K steps.

The bound is ``2 x params x tokens x steps / peak`` (params: fc, decoder layer, lm_head; the embedding
is a lookup), against two peaks: the matmul rate measured in the same run (a large square matmul at the
same dtype) and the chip's nominal dense rate (``--nominal-tflops``; 989 for an H100/H200 in bf16). The
evaluator's own work is counted separately: the target lm_head over the final states (twice on the
first file: pre- or post-norm probe), fc once, layer + draft lm_head per step, the recomputed
dump-token rows, and causal attention. Peak RSS is measured in a fresh child per number of dump files.

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


def write_dumps(folder: Path, files: int, seq: int, dims: dict[str, int], head: Any, greedy: bool) -> None:
    """SpecForge-layout files; ``greedy``: the answer (loss-masked) tokens are the target head's greedy tokens."""
    from types import SimpleNamespace

    import torch

    from comparelib.analysis import offline

    gen = torch.Generator().manual_seed(0)
    out = folder / "rows_0-2000"
    out.mkdir(parents=True, exist_ok=True)
    dev, dtype = head.lm_head.device, head.lm_head.dtype
    for i in range(files):
        ids = torch.randint(0, dims["vocab"], (seq,), generator=gen)
        mask = torch.zeros(seq, dtype=torch.long)
        mask[seq // 8 :] = 1
        final = torch.randn(1, seq, dims["hidden"], generator=gen).to(torch.bfloat16)
        if greedy:
            sample = SimpleNamespace(input_ids=ids, final=final[0], labels=None)
            g = offline.target_tokens(sample, head, str(dev), dtype, normed=False)
            ids[seq // 8 :] = g[seq // 8 - 1 : -1]
        torch.save(
            {
                "input_ids": ids,
                "loss_mask": mask,
                "hidden_state": final,
                "aux_hidden_state": torch.randn(1, seq, 3 * dims["hidden"], generator=gen).to(torch.bfloat16),
            },
            out / f"data_{i}.ckpt",
        )


def own_flops(model: Any, dims: dict[str, int], ev: Any, files: int, seq: int, steps: int, probe: bool) -> float:
    """The evaluator's own multiply-adds x 2: target lm_head, fc once, layer + draft lm_head per step (and per
    recomputed dump-token row), causal attention."""
    fc = sum(p.numel() for n, p in model.named_parameters() if n.startswith(("fc", "input_norm")))
    layer = sum(p.numel() for n, p in model.named_parameters() if n.startswith("layers."))
    head = sum(p.numel() for n, p in model.named_parameters() if n.startswith(("lm_head", "norm")))
    tokens = files * seq
    target = 2 * dims["vocab"] * dims["hidden"] * (tokens + (seq if probe else 0))
    step_rows = tokens * steps + ev.teacher_rows * (steps - 1)
    draft = 2 * fc * tokens + 2 * (layer + head) * step_rows
    attn_per_seq_step = 2 * dims["heads"] * dims["head_dim"] * seq * seq  # QK and PV over the causal half
    attn = attn_per_seq_step * (files * steps + ev.teacher_rows * (steps - 1) / seq)
    return float(target + draft + attn)


def agreement(ld: Any, head: Any, folder: str, steps: int, device: str, dtype: Any) -> dict[str, Any]:
    """The fused attention path against the chunked one on the first dump file: same tokens?"""
    import torch

    from comparelib.analysis import offline
    from comparelib.audit import dumps

    sample = next(iter(dumps.iter_samples(folder, max_files=1)))
    g = offline.target_tokens(sample, head, device, dtype, normed=False, on_device=True)
    aux = sample.aux.to(device=device, dtype=dtype)
    with torch.inference_mode():
        got = {}
        for fused in (True, False):
            fwd = offline.Forward(ld, fused=fused)
            st = fwd.launch(sample.input_ids, aux, g, steps, sample.loss_mask)
            got[fused] = (st.chain.cpu(), st.run.cpu(), fwd.fused)
    a, b = got[True], got[False]
    return {
        "fused_ran": a[2] > 0,
        "tokens_equal": float((a[0] == b[0]).float().mean()),
        "step1_equal": float((a[0][:, 0] == b[0][:, 0]).float().mean()),
        "run_lengths_equal": float((a[1] == b[1]).float().mean()),
    }


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


def measure(
    files: int, seq: int, steps: int, device: str, dtype: str, kimi: bool, greedy: bool, teacher: str, nominal: float
) -> dict[str, Any]:
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
    lm_head = (torch.randn(shape.vocab, shape.hidden, device=device) / shape.hidden**0.5).to(emb.dtype)
    head = offline.TargetHead(emb, torch.ones(shape.hidden, device=device, dtype=emb.dtype), lm_head, 1e-6, "random")
    params = sum(p.numel() for n, p in model.named_parameters() if n != "embed_tokens.weight")
    tdtype = draftcost._torch_dtype(dtype)
    with tempfile.TemporaryDirectory() as tmp:
        write_dumps(Path(tmp), files, seq, dims, head, greedy)
        offline.evaluate("synthetic", tmp, steps=steps, device=device, dtype=dtype, max_samples=1, loaded=(ld, head))
        if device.startswith("cuda"):
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        t = time.perf_counter()
        ev = offline.evaluate(
            "synthetic", tmp, steps=steps, device=device, dtype=dtype, bootstrap=0, loaded=(ld, head), teacher=teacher
        )
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        seconds = time.perf_counter() - t
        gpu_peak = torch.cuda.max_memory_allocated() / 1e9 if device.startswith("cuda") else None
        check = agreement(ld, head, tmp, steps, device, tdtype) if files == 1 else None
    peak = matmul_flops(device, tdtype)
    flops = 2 * params * ev.tokens * steps
    own = own_flops(model, dims, ev, files, seq, steps, probe=True)
    return {
        "device": device,
        "device_name": draftcost.device_name(device),
        "dtype": dtype,
        "shape": "kimi" if kimi else "tiny",
        "dumps": "greedy" if greedy else "random",
        "teacher": teacher,
        "files": files,
        "seq": seq,
        "steps": steps,
        "params": params,
        "tokens": ev.tokens,
        "seconds": seconds,
        "tokens_per_s": ev.tokens / seconds,
        "attention": ev.attention,
        "teacher_rows": ev.teacher_rows,
        "matmul_tflops": peak / 1e12,
        "nominal_tflops": nominal or None,
        "flop_bound_s": flops / peak,
        "of_flop_bound": flops / peak / seconds,
        "of_nominal_bound": flops / (nominal * 1e12) / seconds if nominal else None,
        "own_tflop": own / 1e12,
        "own_tflops_per_s": own / seconds / 1e12,
        "own_of_matmul": own / seconds / peak,
        "al_replay_k": ev.by_steps[-1]["al_replay"],
        "fused_vs_chunked": check,
        "peak_rss_mb": peak_rss_mb(),
        "gpu_peak_gb": gpu_peak,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--dtype", default=None, choices=["fp32", "bf16"], help="default: bf16 on cuda, fp32 on cpu")
    ap.add_argument("--kimi", action="store_true", help="the Kimi-shaped draft (hidden 7168, 32K draft vocab)")
    ap.add_argument("--steps", type=int, default=7)
    ap.add_argument("--seq", type=int, default=None, help="tokens per dump file (default 512 tiny, 2048 kimi)")
    ap.add_argument("--files", default="1,4,16", help="numbers of dump files, comma-separated")
    ap.add_argument("--dumps", default="greedy", choices=["greedy", "random"], help="answer tokens (see above)")
    ap.add_argument("--teacher", default="dump", choices=["dump", "target"], help="eval-draft's --teacher")
    ap.add_argument(
        "--nominal-tflops", type=float, default=None, help="the chip's nominal dense rate (H100/H200: 989)"
    )
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    dtype = args.dtype or ("bf16" if args.device.startswith("cuda") else "fp32")
    seq = args.seq or (2048 if args.kimi else 512)
    nominal = args.nominal_tflops
    if nominal is None and args.device.startswith("cuda") and dtype == "bf16":
        from comparelib.analysis import draftcost

        name = draftcost.device_name(args.device)
        nominal = 989.0 if any(k in name for k in ("H100", "H200", "H800", "H20 ")) else 0.0
    if args.child is not None:
        m = measure(args.child, seq, args.steps, args.device, dtype, args.kimi, args.dumps == "greedy", args.teacher,
                    nominal or 0.0)  # fmt: skip
        print(json.dumps(m))
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
                "--dumps",
                args.dumps,
                "--teacher",
                args.teacher,
                "--nominal-tflops",
                str(nominal or 0.0),
                *extra,
            )
        )
    out = {"runs": rows, "rss_growth": rows[-1]["peak_rss_mb"] / rows[0]["peak_rss_mb"] if rows else None}
    if args.json:
        print(json.dumps(out))
        return 0
    for r in rows:
        nom = f", {r['of_nominal_bound'] * 100:.1f}% of nominal" if r["of_nominal_bound"] else ""
        print(
            f"{r['device_name']} {r['shape']} {r['dtype']} K={r['steps']} {r['dumps']} dumps, teacher {r['teacher']}, "
            f"files={r['files']:>3}: {r['tokens_per_s']:,.0f} tok/s, {r['of_flop_bound'] * 100:.1f}% of the FLOP "
            f"bound ({r['matmul_tflops']:.2f} TFLOP/s matmul measured){nom}; own work {r['own_tflops_per_s']:.2f} "
            f"TFLOP/s ({r['own_of_matmul'] * 100:.1f}% of matmul), {r['teacher_rows']} dump-chain rows, "
            f"{r['attention']} attention; peak RSS {r['peak_rss_mb']} MB"
            + (f", GPU peak {r['gpu_peak_gb']:.2f} GB" if r["gpu_peak_gb"] else "")
        )
        if r["fused_vs_chunked"]:
            print(f"  fused vs chunked attention on file 1: {r['fused_vs_chunked']}")
    print(f"peak RSS, most files / fewest: x{out['rss_growth']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
