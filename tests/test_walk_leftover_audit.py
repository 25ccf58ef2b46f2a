"""Leftover audit findings from the walks.

1. The domain guess took the marker "function " as code evidence: a walk's 5,000 ordinary chat rows came out
   4,034 "code" because their text used the English word "function". Code now needs code: a fenced block, a
   ``def name(`` / ``function name(...) {`` / ``class Name:`` line, an import statement and the like.
2. "Unique usable rows" dropped exact duplicates only, while the audit also counted rows that differ only by
   whitespace as duplicates: a row with a doubled space or a trailing newline was one more unique usable row.
   Unique usable rows now keep one copy of each row once whitespace is collapsed, in the result (page, CLI,
   exports) and in the Ray path (``Tally.merge`` carries the same keys).
3. The fake SGLang server can report NEXTN as real SGLang does (EAGLE, the target itself as the draft), and the
   benchmark client stores such a run as the target's own MTP.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from comparelib.audit import result as auditresult
from comparelib.audit import scan
from comparelib.live.bench import run_benchmark
from comparelib.live.store import Store
from comparelib.models import registry
from tests.fixtures import run_cli
from tests.tokenizer_fixture import build_tokenizer

ROOT = Path(__file__).resolve().parents[1]

# --- 1. code needs code ------------------------------------------------------------------------------

DOMAIN_CASES = [
    # prose that says "function" (or other words the markers held) is not code
    ("What is the function of the mitochondria in a cell?", "other"),
    ("My main function in the team is to coordinate the release; the function starts at noon.", "other"),
    ("A function is a rule that assigns to each input exactly one output.", "other"),
    ("Explain the function (and the history) of the SELECT button on a remote.", "other"),
    ("Please describe the class structure of medieval society.\nclass was fixed at birth.", "other"),
    ("You are a helpful assistant. Call a function only when the user asks for one.", "other"),
    ("def\nThe abbreviation def. means definition.", "other"),
    # real JavaScript
    ("function add(a, b) {\n  return a + b;\n}", "code"),
    ("Here you go:\n\nasync function load(url) {\n  const r = await fetch(url);\n}", "code"),
    ("const double = (x) => {\n  return 2 * x;\n};", "code"),
    ("Use it like this: `[1, 2].map(function (x) { return x * 2; })`", "code"),
    ("import React from 'react';\nexport default App;", "code"),
    ("console.log('hi')", "code"),
    # real Python
    ("def add(a, b):\n    return a + b", "code"),
    ("Sure!\n\ndef greet(name: str) -> str:\n    return f'hi {name}'", "code"),
    ("class Point:\n    x: int", "code"),
    ("Sure.\nclass Stack(list):\n    pass", "code"),
    ("import numpy as np\nx = np.zeros(3)", "code"),
    ("from collections import Counter\nCounter('abc')", "code"),
    ("```python\nprint(1)\n```", "code"),
    # others
    ("#include <stdio.h>\nint main() { return 0; }", "code"),
    ("SELECT name FROM users WHERE id = 1;", "code"),
    ("public static void main(String[] args) {", "code"),
    ('fn main() {\n    println!("hi");\n}', "code"),
]


@pytest.mark.parametrize(("text", "domain"), DOMAIN_CASES)
def test_code_needs_code_evidence(text: str, domain: str) -> None:
    assert scan.domain_of(text) == domain


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _chat(user: str, answer: str) -> dict:
    return {"messages": [{"role": "user", "content": user}, {"role": "assistant", "content": answer}]}


@pytest.fixture(scope="module")
def tok(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tokenizer(tmp_path_factory.mktemp("tok") / "chatml")


def test_chat_rows_that_say_function_are_not_counted_as_code(tmp_path: Path, tok: Path) -> None:
    rows = [_chat(f"What is the function of organ {i}?", f"Its main function is number {i}.") for i in range(8)]
    rows += [_chat("Write add.", "```js\nfunction add(a, b) {\n  return a + b;\n}\n```")]
    res = scan.audit(str(_write(tmp_path / "chat.jsonl", rows)), tokenizer=str(tok))
    assert res.domains == {"code": 1, "math": 0, "cjk": 0, "other": 8}


# --- 2. unique usable rows leave out whitespace-only duplicates ------------------------------------------

ROWS = [
    _chat("Tell me about cats.", "Cats are small felines."),
    _chat("Tell me about cats.", "Cats are small felines."),  # exact duplicate of row 1
    _chat("Tell me  about cats.", "Cats are small felines.\n"),  # whitespace-only duplicate of row 1
    _chat(" Tell me about cats.", "Cats\tare small felines."),  # whitespace-only duplicate of row 1
    _chat("Tell me about dogs.", "Dogs are loyal."),
    _chat("Tell me about birds.", "Birds fly."),
]


def test_unique_usable_rows_leave_out_whitespace_only_duplicates(tmp_path: Path, tok: Path) -> None:
    res = scan.audit(str(_write(tmp_path / "train.jsonl", ROWS)), tokenizer=str(tok))
    assert (res.samples, res.duplicates, res.whitespace_duplicates) == (6, 1, 3)
    assert res.trained_samples == 6  # the trainers train every copy
    assert res.unique_samples == 3  # cats, dogs, birds
    one = {
        i: scan.audit(str(_write(tmp_path / f"one{i}.jsonl", [ROWS[i]])), tokenizer=str(tok)).tokens for i in (0, 4, 5)
    }
    assert res.unique_tokens == sum(one.values())  # the first copy of each
    assert res.unique_volume() == {"samples": 3, "tokens": res.unique_tokens}
    rows = dict(res.summary_rows())  # the CLI's table and every export
    assert rows["unique usable samples"] == 3 and rows["unique usable tokens"] == res.unique_tokens
    said = res.volume_sentence()
    assert "Unique usable rows: 3 samples" in said and "whitespace" in said, said
    assert "whitespace" in auditresult.VOLUME_UNIQUE


def test_cli_audit_and_its_export_count_the_same_unique_rows(tmp_path: Path, tok: Path) -> None:
    path = str(_write(tmp_path / "train.jsonl", ROWS))
    proc = run_cli("audit", path, "--tokenizer", str(tok), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["unique_samples"] == 3
    proc = run_cli("audit", path, "--tokenizer", str(tok))
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"^unique usable samples\s+3$", proc.stdout, re.M), proc.stdout
    proc = run_cli("audit", path, "--tokenizer", str(tok), "--export", "csv")
    assert proc.returncode == 0, proc.stderr
    assert "unique usable samples,3" in proc.stdout, proc.stdout


def test_merged_blocks_count_the_same_unique_rows(tmp_path: Path, tok: Path) -> None:
    """The Ray path merges per-block Tallies: whitespace duplicates split across blocks still count once."""
    from comparelib.audit.tokens import load_tokenizer

    bundle = load_tokenizer(str(tok))
    whole = scan.audit(str(_write(tmp_path / "all.jsonl", ROWS)), tokenizer=bundle)
    first = scan.audit(str(_write(tmp_path / "a.jsonl", ROWS[:3])), tokenizer=bundle)
    assert first.unique_samples == 1
    parts = []
    for k, rows in enumerate((ROWS[:3], ROWS[3:])):
        tally = scan.Tally(100, 0)
        items = []
        for i, row in enumerate(rows):
            prepared = tally.check(k * 1000 + i, json.dumps(row), "openai", bundle, json.loads)
            assert prepared is not None
            items.append(prepared)
        from comparelib.audit.tokens import count_prepared

        tally.count(items, count_prepared(bundle, items), 2048)
        parts.append(tally)
    parts[1].merge(parts[0])  # blocks arrive in any order
    assert scan.usable_volumes(parts[1])[2:] == (whole.unique_samples, whole.unique_tokens) == (3, whole.unique_tokens)


# --- 3. the fake SGLang server reports NEXTN as SGLang does -----------------------------------------------

TARGET = "deepseek-ai/DeepSeek-V3"


def _serve(*args: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.fake_inference",
            "--port",
            "0",
            "--ttft-ms",
            "0",
            "--chunk-delay-ms",
            "1",
            *args,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = re.search(r"listening on (http://\S+)", line)
    assert found, line
    return proc, found.group(1)


@pytest.mark.parametrize(
    ("args", "algorithm", "draft"),
    [
        (["--algorithm", "EAGLE", "--draft-model", TARGET], "EAGLE", TARGET),
        (["--algorithm", "NEXTN"], "EAGLE", TARGET),  # SGLang resolves NEXTN to EAGLE, the target as the draft
    ],
)
def test_fake_sglang_reports_the_targets_own_mtp_and_the_client_stores_it(
    tmp_path: Path, args: list[str], algorithm: str, draft: str
) -> None:
    proc, url = _serve("--engine", "sglang", "--model", TARGET, *args)
    try:
        store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
        run = run_benchmark(
            url, prompts=["Say hello."], concurrency=1, requests=2, max_tokens=16, warmup=0, recorder=store
        )
    finally:
        proc.terminate()
        proc.wait(10)
    assert run.run_id is not None
    record = store.run(run.run_id)
    assert (record.speculative_algorithm, record.draft_model, record.model) == (algorithm, draft, TARGET)
    assert registry.is_mtp(record) and registry.algorithm_label(record) == "MTP (NEXTN)"
    assert record.draft == "MTP (NEXTN)" and "MTP (NEXTN)" in record.title and not record.is_baseline


def test_fake_server_algorithm_defaults_to_eagle3() -> None:
    from tests.fake_inference import FakeInferenceServer, options_from_args

    opts = options_from_args([])
    assert (opts.speculative_algorithm, opts.draft_model) == ("EAGLE3", "fake/draft-eagle3")
    info = FakeInferenceServer(options_from_args(["--algorithm", "nextn", "--model", "m/x"])).server_info()
    assert (info["speculative_algorithm"], info["speculative_draft_model_path"]) == ("EAGLE", "m/x")
    assert options_from_args(["--no-spec", "--algorithm", "EAGLE"]).speculative_algorithm is None
