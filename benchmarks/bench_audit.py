"""How fast is the training-data audit, against the tokenizer's own limit, and does memory stay flat?

Generates a deterministic synthetic ShareGPT-style JSONL set (``--rows``, 200K by default), trains a
32K byte-level BPE on part of it, then measures in one run:

* audit tokens/s: ``comparelib.audit.scan.audit`` end to end (read, parse, template, tokenise, checks);
* raw tokenizer tokens/s: ``encode_batch_fast`` on the same rendered texts in 2K-text chunks,
  already in memory (the limit: nothing else is done);
* their ratio (aim: >= 0.8), best of ``--repeat`` alternating runs of each;
* a naive hand-written reference: pandas ``read_json(lines=True)`` + one ``encode`` per row
  (on at most 50K rows, it is slow);
* peak RSS of the audit in fresh subprocesses at 50K and at ``--rows`` rows (aim: flat).

``--json`` prints one JSON object (keys include ``ratio`` and ``peak_rss_mb``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import peak_rss_mb, run_child  # noqa: E402 - after the path is set

_SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ne",
    "ru",
    "ta",
    "shi",
    "po",
    "ve",
    "da",
    "ri",
    "zu",
    "el",
    "an",
    "or",
    "is",
    "th",
    "qu",
    "ex",
    "in",
    "un",
    "ge",
    "bo",
    "fa",
]


def _words(rng: random.Random, n: int) -> list[str]:
    out = set()
    while len(out) < n:
        out.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(1, 4))))
    return sorted(out)


def generate(path: Path, rows: int, seed: int = 1234) -> None:
    """Deterministic ShareGPT rows: 1-4 exchanges, Zipf-ish words, some code, math and CJK."""
    rng = random.Random(seed)
    vocab = _words(rng, 6000)
    weights = [1.0 / (i + 1) for i in range(len(vocab))]
    cum = []
    acc = 0.0
    for w in weights:
        acc += w
        cum.append(acc)

    def sentence(n: int) -> str:
        ws = rng.choices(vocab, cum_weights=cum, k=n)
        return " ".join(ws).capitalize() + rng.choice([".", "?", "!", "."])

    def message(n_words: int) -> str:
        parts = []
        left = n_words
        while left > 0:
            k = min(left, rng.randint(5, 18))
            parts.append(sentence(k))
            left -= k
        text = " ".join(parts)
        r = rng.random()
        if r < 0.08:
            text += f"\n\n```python\ndef f(x):\n    return x * {rng.randint(1, 9)} + {rng.randint(0, 99)}\n```"
        elif r < 0.14:
            a, b = rng.randint(1, 99), rng.randint(1, 99)
            text += f"\n\nSo {a} + {b} = {a + b}, and the answer is \\boxed{{{a + b}}}."
        elif r < 0.17:
            text = "这是一个关于数据的问题，请详细回答。" * rng.randint(1, 4) + text
        return text

    with open(path, "w", encoding="utf-8") as fh:
        for i in range(rows):
            conv = []
            for _ in range(rng.choice([1, 1, 2, 2, 3, 4])):
                conv.append({"from": "human", "value": message(rng.randint(8, 60))})
                conv.append({"from": "gpt", "value": message(rng.randint(20, 220))})
            fh.write(json.dumps({"id": f"row{i}", "conversations": conv}, ensure_ascii=False) + "\n")
            if i % 997 == 0 and i:  # a few exact duplicates, as real dumps have
                fh.write(json.dumps({"id": f"dup{i}", "conversations": conv}, ensure_ascii=False) + "\n")


CHATML = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


def build_tokenizer(data: Path, folder: Path, vocab_size: int = 32000, train_rows: int = 20000) -> Path:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    def texts():
        with open(data, encoding="utf-8") as fh:
            for i, line in enumerate(fh):
                if i >= train_rows:
                    return
                for m in json.loads(line)["conversations"]:
                    yield m["value"]

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=["<|im_start|>", "<|im_end|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts(), trainer=trainer)
    folder.mkdir(parents=True, exist_ok=True)
    tok.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(json.dumps({"chat_template": CHATML, "eos_token": "<|im_end|>"}))
    return folder


def head(src: Path, dst: Path, rows: int) -> None:
    with open(src, encoding="utf-8") as fi, open(dst, "w", encoding="utf-8") as fo:
        for i, line in enumerate(fi):
            if i >= rows:
                break
            fo.write(line)


def rendered_texts(data: Path) -> list[str]:
    from comparelib.audit.conversations import normalize, trainable_turns
    from comparelib.audit.templates import ChatTemplate

    tpl = ChatTemplate(CHATML)
    out = []
    with open(data, encoding="utf-8") as fh:
        for line in fh:
            turns, _ = trainable_turns(normalize(json.loads(line), "sharegpt").turns)
            out.append(tpl.render_turns(turns))
    return out


def raw_throughput(tok_dir: Path, texts: list[str]) -> float:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tok_dir / "tokenizer.json"))
    t0 = time.perf_counter()
    n = 0
    for i in range(0, len(texts), 2048):
        n += sum(len(e) for e in tok.encode_batch_fast(texts[i : i + 2048], add_special_tokens=False))
    return n / (time.perf_counter() - t0)


def naive_reference(tok_dir: Path, data: Path, max_rows: int) -> tuple[float, int]:
    """What one writes by hand: pandas read, then encode row by row."""
    import pandas as pd
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tok_dir / "tokenizer.json"))
    t0 = time.perf_counter()
    df = pd.read_json(data, lines=True, nrows=max_rows)
    n = 0
    roles = {"human": "user", "gpt": "assistant"}
    for conv in df["conversations"]:
        text = "".join(f"<|im_start|>{roles.get(m['from'], m['from'])}\n{m['value']}<|im_end|>\n" for m in conv)
        n += len(tok.encode(text, add_special_tokens=False))
    return n / (time.perf_counter() - t0), len(df)


def child_audit(data: str, tok_dir: str) -> None:
    from comparelib.audit.scan import audit

    res = audit(data, tokenizer=tok_dir)
    print(
        json.dumps(
            {
                "peak_rss_mb": peak_rss_mb(),
                "tokens": res.tokens,
                "samples": res.samples,
                "elapsed_s": res.elapsed_s,
            }
        )
    )


def measure_rss(data: Path, tok_dir: Path) -> dict:
    return run_child(__file__, "--child-audit", str(data), "--tokenizer", str(tok_dir))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--small-rows", type=int, default=50_000, help="the smaller size for the memory check")
    parser.add_argument("--naive-rows", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=2, help="alternating audit/raw runs; the best of each counts")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--workdir", type=Path, default=None, help="keep generated files here")
    parser.add_argument("--child-audit", help=argparse.SUPPRESS)
    parser.add_argument("--tokenizer", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_audit:
        child_audit(args.child_audit, args.tokenizer)
        return 0

    from comparelib.audit.scan import audit

    tmp = tempfile.TemporaryDirectory() if args.workdir is None else None
    work = Path(tmp.name) if tmp else args.workdir
    work.mkdir(parents=True, exist_ok=True)
    log = (lambda *a: print(*a, file=sys.stderr)) if args.json else print
    big = work / f"sharegpt_{args.rows}.jsonl"
    if not big.exists():
        t0 = time.perf_counter()
        generate(big, args.rows)
        log(f"generated {args.rows:,} rows in {time.perf_counter() - t0:.1f}s ({big.stat().st_size / 1e6:.0f} MB)")
    small_rows = min(args.small_rows, args.rows)
    small = work / f"sharegpt_{small_rows}.jsonl"
    if not small.exists():
        head(big, small, small_rows)
    tok_dir = work / "tok32k"
    if not (tok_dir / "tokenizer.json").exists():
        t0 = time.perf_counter()
        build_tokenizer(big, tok_dir)
        log(f"trained a 32K byte-level BPE in {time.perf_counter() - t0:.1f}s")

    # Audit and raw tokenizer runs alternate, best of --repeat each: the machine may be shared, and
    # a burst of someone else's load should not land on one side of the ratio only.
    texts = rendered_texts(big)
    audit_runs: list[float] = []
    raw_runs: list[float] = []
    res = None
    for k in range(args.repeat):
        t0 = time.perf_counter()
        res = audit(str(big), tokenizer=str(tok_dir))
        audit_s = time.perf_counter() - t0
        audit_runs.append(res.tokens / audit_s)
        log(
            f"audit #{k + 1}: {res.samples:,} samples, {res.tokens:,} tokens in {audit_s:.1f}s = "
            f"{audit_runs[-1] / 1e6:.2f}M tok/s ({res.rows_with_offsets} rows needed offsets; "
            f"{res.duplicates} duplicates)"
        )
        raw_runs.append(raw_throughput(tok_dir, texts))
        log(f"raw encode_batch_fast #{k + 1} (2K-text chunks, texts in memory): {raw_runs[-1] / 1e6:.2f}M tok/s")
    del texts
    assert res is not None
    audit_tps, raw_tps = max(audit_runs), max(raw_runs)
    ratio = audit_tps / raw_tps
    log(f"ratio audit / raw (best of {args.repeat} each): {ratio:.2f} (aim >= 0.8)")

    naive_tps, naive_n = naive_reference(tok_dir, big, args.naive_rows)
    log(
        f"naive pandas + per-row encode ({naive_n:,} rows): {naive_tps / 1e6:.2f}M tok/s "
        f"(audit is {audit_tps / naive_tps:.1f}x)"
    )

    rss_small = measure_rss(small, tok_dir)
    rss_big = measure_rss(big, tok_dir)
    peak = {str(small_rows): rss_small["peak_rss_mb"], str(args.rows): rss_big["peak_rss_mb"]}
    log(f"peak RSS: {small_rows:,} rows {rss_small['peak_rss_mb']} MB, {args.rows:,} rows {rss_big['peak_rss_mb']} MB")

    out = {
        "rows": args.rows,
        "samples": res.samples,
        "tokens": res.tokens,
        "audit_tokens_per_s": round(audit_tps),
        "raw_tokens_per_s": round(raw_tps),
        "ratio": round(ratio, 3),
        "audit_runs_tokens_per_s": [round(x) for x in audit_runs],
        "raw_runs_tokens_per_s": [round(x) for x in raw_runs],
        "naive_tokens_per_s": round(naive_tps),
        "naive_rows": naive_n,
        "speedup_vs_naive": round(audit_tps / naive_tps, 2),
        "peak_rss_mb": peak,
        "rss_growth": round(rss_big["peak_rss_mb"] / rss_small["peak_rss_mb"], 3),
        "rows_with_offsets": res.rows_with_offsets,
        "cores": os.cpu_count(),
    }
    if args.json:
        print(json.dumps(out))
    if tmp:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
