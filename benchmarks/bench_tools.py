"""What does counting tool calls and reasoning through the chat template cost the dataset audit?

Rows with tool schemas and ``tool_calls``, or assistant turns with ``reasoning_content``, are rendered through
a template that reads those fields with the prefix rule (one render per turn boundary), where plain rows take
the fast path. This script builds one tokenizer and one template (the shape of Qwen 2.5's tools branch, and a
Qwen3-like ``<think>`` block), writes ``--rows`` OpenAI-messages rows three ways (with tools and calls; with
reasoning; and the tool rows as plain text of about the same length) and audits each in one run. A fourth set,
two-turn rows with reasoning in both assistant turns, goes through a template with Qwen3's rule (reasoning only
after the last user message): no prefix spans, so each is counted on its whole render. It prints
rows/s of each and the ratios to the plain rows, best of ``--repeat`` alternating runs; the plain audit is the
reference measured in the same run. ``--json`` prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TEMPLATE = (
    "{% if tools %}<|im_start|>system\n# Tools\n<tools>"
    "{% for tool in tools %}\n{{ tool | tojson }}{% endfor %}\n</tools><|im_end|>\n{% endif %}"
    "{% for message in messages %}"
    "{% if message.role == 'assistant' %}"
    "{{ '<|im_start|>assistant\n' }}"
    "{% if message.reasoning_content %}{{ '<think>\n' + message.reasoning_content + '\n</think>\n' }}{% endif %}"
    "{{ message.content }}"
    "{% for call in message.tool_calls or [] %}"
    "{% set fn = call.function if call.function is defined else call %}"
    '{{ \'\n<tool_call>\n{"name": "\' + fn.name + \'", "arguments": \' }}'
    "{{ fn.arguments if fn.arguments is string else fn.arguments | tojson }}{{ '}\n</tool_call>' }}"
    "{% endfor %}"
    "{{ '<|im_end|>\n' }}"
    "{% elif message.role == 'tool' %}"
    "{{ '<|im_start|>user\n<tool_response>\n' + message.content + '\n</tool_response><|im_end|>\n' }}"
    "{% else %}{{ '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' }}{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
# Qwen3's rule for reasoning: rendered on the assistant turns after the last user message only, so a later turn
# changes how an earlier one renders; multi-turn rows have no prefix spans and are counted on the whole render.
QWEN3_TEMPLATE = (
    "{% set ns = namespace(last=messages|length - 1) %}"
    "{% for message in messages %}{% if message.role == 'user' %}{% set ns.last = loop.index0 %}{% endif %}"
    "{% endfor %}"
    "{% for message in messages %}"
    "{% if message.role == 'assistant' %}"
    "{% set thought = message.reasoning_content if message.reasoning_content is string else '' %}"
    "{{ '<|im_start|>assistant\n' }}"
    "{% if loop.index0 > ns.last and (loop.last or thought) %}"
    "{{ '<think>\n' + thought + '\n</think>\n\n' }}{% endif %}"
    "{{ message.content + '<|im_end|>\n' }}"
    "{% else %}{{ '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' }}{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
WORDS = "weather city forecast rain sun wind degrees today tomorrow please tell me what is the in at".split()


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def rows(n: int, seed: int = 0) -> tuple[list[dict], list[dict], list[dict], list[dict]]:
    """(tool rows, the same rows with the call and schema written as plain text, rows with reasoning, two-turn
    rows with reasoning in both assistant turns)."""
    rng = random.Random(seed)
    tool_rows, plain_rows, reasoning_rows, multi_rows = [], [], [], []
    schema = {
        "type": "function",
        "function": {
            "name": "weather",
            "description": "the forecast for a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
    for _ in range(n):
        q, result, answer = _text(rng, 12), _text(rng, 8), _text(rng, 20)
        city = rng.choice(["Paris", "Oslo", "Lima", "Kyoto"])
        call = {"type": "function", "function": {"name": "weather", "arguments": json.dumps({"city": city})}}
        tool_rows.append(
            {
                "tools": [schema],
                "messages": [
                    {"role": "user", "content": q},
                    {"role": "assistant", "content": "", "tool_calls": [call]},
                    {"role": "tool", "content": result},
                    {"role": "assistant", "content": answer},
                ],
            }
        )
        plain_rows.append(
            {
                "messages": [
                    {"role": "system", "content": json.dumps(schema)},
                    {"role": "user", "content": q},
                    {"role": "assistant", "content": json.dumps(call)},
                    {"role": "user", "content": result},
                    {"role": "assistant", "content": answer},
                ]
            }
        )
        reasoning_rows.append(
            {
                "messages": [
                    {"role": "user", "content": q},
                    {"role": "assistant", "content": answer, "reasoning_content": _text(rng, 40)},
                ]
            }
        )
        multi_rows.append(
            {
                "messages": [
                    {"role": "user", "content": q},
                    {"role": "assistant", "content": answer, "reasoning_content": _text(rng, 40)},
                    {"role": "user", "content": result},
                    {"role": "assistant", "content": _text(rng, 20), "reasoning_content": _text(rng, 40)},
                ]
            }
        )
    return tool_rows, plain_rows, reasoning_rows, multi_rows


def tokenizer(folder: Path, sample: list[str], template: str = TEMPLATE) -> Path:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=2000,
        special_tokens=["<|im_start|>", "<|im_end|>", "<|endoftext|>"],
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(sample, trainer=trainer)
    folder.mkdir(parents=True, exist_ok=True)
    tok.save(str(folder / "tokenizer.json"))
    config = {"eos_token": "<|im_end|>", "model_max_length": 8192, "chat_template": template}
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    from comparelib.audit import scan

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        tool_rows, plain_rows, reasoning_rows, multi_rows = rows(args.rows)
        paths = {}
        cases = (("tools", tool_rows), ("plain", plain_rows), ("reasoning", reasoning_rows), ("multi", multi_rows))
        for name, data in cases:
            paths[name] = base / f"{name}.jsonl"
            paths[name].write_text("\n".join(json.dumps(r) for r in data) + "\n", encoding="utf-8")
        sample = [json.dumps(r) for r in plain_rows[:500]]
        tok = tokenizer(base / "tok", sample)
        qwen3 = tokenizer(base / "qwen3", sample, QWEN3_TEMPLATE)
        best: dict[str, float] = {}
        counted: dict[str, tuple[int, int, int]] = {}
        malformed: dict[str, int] = {}
        for _ in range(args.repeat):
            for name in ("plain", "tools", "reasoning", "multi"):
                t0 = time.perf_counter()
                res = scan.audit(str(paths[name]), tokenizer=str(qwen3 if name == "multi" else tok))
                dt = time.perf_counter() - t0
                best[name] = min(best.get(name, dt), dt)
                uncounted = res.anomalies.get("tools_not_counted", 0) + res.anomalies.get("reasoning_not_counted", 0)
                counted[name] = (res.samples, uncounted, int(res.tokens))
                malformed[name] = res.malformed
    out = {
        "rows": args.rows,
        "plain_rows_per_s": args.rows / best["plain"],
        "tool_rows_per_s": args.rows / best["tools"],
        "reasoning_rows_per_s": args.rows / best["reasoning"],
        "ratio_tool_over_plain_time": best["tools"] / best["plain"],
        "ratio_reasoning_over_plain_time": best["reasoning"] / best["plain"],
        "multi_turn_reasoning_rows_per_s": args.rows / best["multi"],
        "ratio_multi_turn_reasoning_over_plain_time": best["multi"] / best["plain"],
        "multi_turn_reasoning_rows_counted": counted["multi"][0],
        "multi_turn_reasoning_rows_malformed": malformed["multi"],
        "tool_rows_not_counted": counted["tools"][1],
        "reasoning_rows_not_counted": counted["reasoning"][1],
        "tokens": {"plain": counted["plain"][2], "tools": counted["tools"][2], "reasoning": counted["reasoning"][2]},
    }
    if args.json:
        print(json.dumps(out))
    else:
        plain, tools = out["plain_rows_per_s"], out["tool_rows_per_s"]
        print(f"rows {args.rows}: plain {plain:,.0f} rows/s, tool rows {tools:,.0f}")
        print(f"reasoning rows {out['reasoning_rows_per_s']:,.0f} rows/s")
        print(f"tool rows take {out['ratio_tool_over_plain_time']:.2f}x the plain rows' time")
        print(f"reasoning rows take {out['ratio_reasoning_over_plain_time']:.2f}x the plain rows' time")
        print(
            f"two-turn reasoning rows, Qwen3's rule: {out['multi_turn_reasoning_rows_per_s']:,.0f} rows/s, "
            f"{out['ratio_multi_turn_reasoning_over_plain_time']:.2f}x the plain rows' time; "
            f"{out['multi_turn_reasoning_rows_counted']:,} counted, {out['multi_turn_reasoning_rows_malformed']:,} "
            "set aside as malformed"
        )
        tokens = out["tokens"]
        print(
            f"tokens counted: plain {tokens['plain']:,}, tools {tokens['tools']:,}, reasoning {tokens['reasoning']:,}"
        )
        print(
            f"rows left uncounted: tools {out['tool_rows_not_counted']}, reasoning {out['reasoning_rows_not_counted']}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
