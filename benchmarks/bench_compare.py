"""Time to parse and count every registry draft, cold and warm, against json.loads of the same text.

Cold: a fresh interpreter that imports the library and does one pass (what the CLI pays).
Warm: repeated passes in this process (what the app pays once modules are loaded).
The reference is json.loads of the same config texts, measured in the same run, so the printed
ratios mean "how many times the cost of merely reading the JSON".

    python benchmarks/bench_compare.py [--repeat 200] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def config_texts(include_targets: bool) -> list[str]:
    """Every registry draft's config (Medusa-1 heads need their base model, so they are left out)."""
    from comparelib.models import architectures, registry

    texts = [json.dumps(d.config) for d in registry.load_registry() if d.config and "medusa_num_heads" not in d.config]
    if include_targets:  # 1T-parameter MoE targets list ~70K tensors each: a different workload
        texts += [json.dumps(architectures.known_target(t)) for t in architectures.known_targets()]
    return texts


def one_pass_ours(texts: list[str]) -> int:
    from comparelib.models import architectures, params

    total = 0
    for text in texts:
        spec = architectures.parse_config(json.loads(text))
        total += params.count(spec).total
    return total


def one_pass_reference(texts: list[str]) -> int:
    return sum(len(json.loads(text)) for text in texts)


def timed(fn, texts: list[str], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(texts)
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


COLD = """
import json, sys, time
t0 = time.perf_counter()
texts = json.load(open(sys.argv[2]))
if sys.argv[1] == "ours":
    from comparelib.models import architectures, params
    for t in texts:
        params.count(architectures.parse_config(json.loads(t)))
else:
    for t in texts:
        json.loads(t)
print(time.perf_counter() - t0)
"""


def cold(kind: str, path: Path, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-c", COLD, kind, str(path)], cwd=ROOT, capture_output=True, text=True, check=True
        )
        samples.append(float(out.stdout.strip()))
    return statistics.median(samples)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=200, help="warm passes (median is reported)")
    ap.add_argument("--cold-repeat", type=int, default=5, help="fresh interpreters per kind")
    ap.add_argument("--with-targets", action="store_true", help="also parse the shipped target configs")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()

    texts = config_texts(args.with_targets)
    tmp = ROOT / "benchmarks" / ".configs.json"
    tmp.write_text(json.dumps(texts))
    try:
        warm_ours = timed(one_pass_ours, texts, args.repeat)
        warm_ref = timed(one_pass_reference, texts, args.repeat)
        cold_ours = cold("ours", tmp, args.cold_repeat)
        cold_ref = cold("reference", tmp, args.cold_repeat)
    finally:
        tmp.unlink(missing_ok=True)
    result = {
        "configs": len(texts),
        "warm_s": warm_ours,
        "warm_reference_s": warm_ref,
        "warm_ratio": warm_ours / warm_ref,
        "warm_per_config_us": warm_ours / len(texts) * 1e6,
        "cold_s": cold_ours,
        "cold_reference_s": cold_ref,
        "cold_ratio": cold_ours / cold_ref,
    }
    if args.json:
        print(json.dumps(result))
    else:
        what = "registry drafts + shipped targets" if args.with_targets else "registry drafts"
        print(f"configs: {len(texts)} ({what})")
        print(
            f"warm: {warm_ours * 1e3:.3f} ms per pass vs json.loads {warm_ref * 1e3:.3f} ms "
            f"-> ratio {result['warm_ratio']:.1f}x ({result['warm_per_config_us']:.0f} us per config)"
        )
        print(
            f"cold: {cold_ours * 1e3:.1f} ms (import + one pass) vs json.loads {cold_ref * 1e3:.1f} ms "
            f"-> ratio {result['cold_ratio']:.1f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
