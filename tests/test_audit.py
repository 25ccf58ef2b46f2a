"""The audit scan: token counts and loss masks equal the per-row reference, every report field,
every file layout, estimate mode, bad input, and the CLI."""

from __future__ import annotations

import dataclasses
import json
import math
import random
from pathlib import Path

import pytest

from comparelib.audit import result as auditresult
from comparelib.audit import scan as audit
from comparelib.audit import templates, tokens
from comparelib.audit.conversations import trainable_turns
from comparelib.errors import DataError, InputError
from tests.fixtures import expected_counts, run_cli
from tests.tokenizer_fixture import LLAMA3_TEMPLATE, build_tokenizer

U, A = "user", "assistant"

TRICKY = [
    [(U, "Hello there"), (A, "Hi! How are you?")],
    [("system", "Be brief."), (U, "q1"), (A, "a1"), (U, "q2"), (A, "a2")],
    [(U, "q"), (A, " leading space")],
    [(U, "q"), (A, "\nleading newline\n")],
    [(U, "q"), (A, "\n\n  indented\n\n")],
    [(U, "code?"), (A, "```python\ndef f(x):\n    return x + 1\n```")],
    [(U, "你好"), (A, "你好，世界。这是一个测试。")],
    [(U, "assistant"), (A, "assistant")],
    [(U, "q"), (A, "")],
    [(A, "orphan"), (U, "q"), (A, "answer")],
    [(U, "q"), (A, "says <|im_end|> inside")],
    [(U, "2+2?"), (A, "2 + 2 = 4, so \\boxed{4}.")],
]


@pytest.fixture(scope="module")
def tok_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tokenizer(tmp_path_factory.mktemp("tok") / "chatml")


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory, tok_dir: Path) -> dict[str, tokens.TokenizerBundle]:
    base = tmp_path_factory.mktemp("toks")
    llama = build_tokenizer(base / "llama3", template=LLAMA3_TEMPLATE)
    prefix = build_tokenizer(base / "prefix", prefix_space=True)
    return {
        "chatml": tokens.load_tokenizer(str(tok_dir)),
        "llama3": tokens.load_tokenizer(str(llama)),
        "prefix_space": tokens.load_tokenizer(str(prefix / "tokenizer.json")),
    }


def reference(bundle: tokens.TokenizerBundle, turns: list) -> tuple[int, int]:
    kept, _ = trainable_turns(turns)
    ids, mask = templates.reference_loss_mask(bundle.tokenizer, bundle.template, kept)
    return len(ids), sum(mask)


def test_segment_safety_detected(bundles: dict[str, tokens.TokenizerBundle]) -> None:
    assert bundles["chatml"].segment_safe and bundles["llama3"].segment_safe
    assert not bundles["prefix_space"].segment_safe


@pytest.mark.parametrize("name", ["chatml", "llama3", "prefix_space"])
def test_counts_equal_reference_row_by_row(bundles: dict[str, tokens.TokenizerBundle], name: str) -> None:
    bundle = bundles[name]
    fast = tokens.count_turns(bundle, TRICKY)
    assert fast == [reference(bundle, t) for t in TRICKY]
    assert all(sup > 0 for _tok, sup in fast[:8])


def test_counts_equal_reference_on_random_conversations(bundles: dict[str, tokens.TokenizerBundle]) -> None:
    rng = random.Random(7)
    pieces = ["hello", " world", "\n", "  ", "def f():", "你好", "x = 1", "!", "\n\n", "<|im_end|>", "assistant", "\t"]
    convs = []
    for _ in range(60):
        turns = [
            (U if i % 2 == 0 else A, "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8))))
            for i in range(rng.randint(1, 6))
        ]
        convs.append(turns)
    for name in ("chatml", "llama3"):
        bundle = bundles[name]
        assert tokens.count_turns(bundle, convs) == [reference(bundle, t) for t in convs]


def write_jsonl(path: Path, rows: list) -> Path:
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write((row if isinstance(row, str) else json.dumps(row, ensure_ascii=False)) + "\n")
    return path


def sf(i: int, turns: list, **extra: object) -> dict:
    return {"id": str(i), "conversations": [{"role": r, "content": c} for r, c in turns], **extra}


LONG = " ".join(
    random.Random(5).choices(
        "the quick brown fox jumps over a lazy dog while seven red birds sing "
        "softly near old stone walls under pale morning light".split(),
        k=240,
    )
)
FIXTURE_ROWS: list = [
    sf(0, TRICKY[0]),  # line 1
    sf(1, TRICKY[1]),  # line 2
    "{not json",  # line 3: malformed
    sf(3, TRICKY[5]),  # line 4: code
    [1, 2, 3],  # line 5: malformed (not an object)
    sf(5, TRICKY[0]),  # line 6: exact duplicate of line 1
    sf(6, [(U, "   "), (A, "")]),  # line 7: empty
    sf(7, [(A, "orphan"), (U, "q"), (A, "a")]),  # line 8: role anomaly
    sf(8, TRICKY[6], status="success"),  # line 9: CJK, regenerated
    sf(9, [(U, "tell me"), (A, LONG)]),  # line 10: long
    sf(10, [(U, "tell me"), (A, LONG + " again")]),  # line 11: near duplicate of line 10
    {"id": "11", "messages": []},  # line 12: malformed for this format
    sf(12, TRICKY[11]),  # line 13: math
    "",  # line 14: blank, skipped
    sf(14, [(U, "q"), (A, "with thinking")], status="success"),  # line 15
]
VALID_TURNS = [
    TRICKY[0],
    TRICKY[1],
    TRICKY[5],
    TRICKY[0],
    [(A, "orphan"), (U, "q"), (A, "a")],
    TRICKY[6],
    [(U, "tell me"), (A, LONG)],
    [(U, "tell me"), (A, LONG + " again")],
    TRICKY[11],
    [(U, "q"), (A, "with thinking")],
]


@pytest.fixture(scope="module")
def fixture_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_jsonl(tmp_path_factory.mktemp("data") / "train.jsonl", FIXTURE_ROWS)


def nearest_rank(values: list[int], q: float) -> int:
    s = sorted(values)
    return s[max(1, math.ceil(q / 100 * len(s))) - 1]


def test_audit_report_fields(fixture_file: Path, tok_dir: Path, bundles: dict[str, tokens.TokenizerBundle]) -> None:
    calls: list[tuple[int, float, float | None]] = []
    res = audit.audit(
        str(fixture_file),
        tokenizer=str(tok_dir),
        max_length=100,
        progress=lambda n, rate, eta: calls.append((n, rate, eta)),
    )
    ref = [reference(bundles["chatml"], t) for t in VALID_TURNS]
    assert res.format == "specforge"
    assert res.samples == len(VALID_TURNS) == 10
    assert res.rows_read == 14  # the blank line is not a row
    assert res.tokens == sum(t for t, _ in ref)
    assert res.assistant_tokens == sum(s for _, s in ref)
    assert res.supervised_fraction == pytest.approx(res.assistant_tokens / res.tokens)
    lengths = [t for t, _ in ref]
    assert res.length["p50"] == nearest_rank(lengths, 50)
    assert res.length["p90"] == nearest_rank(lengths, 90)
    assert res.length["max"] == max(lengths)
    assert sum(res.histogram["counts"]) == 10 and len(res.histogram["bins"]) == len(res.histogram["counts"]) + 1
    assert res.over_max_length == sum(1 for n in lengths if n > 100) >= 2
    assert res.over_max_length_note == "truncated by SpecForge, dropped by EAGLE"
    assert res.malformed == 3 and res.empty == 1
    assert [ex["line"] for ex in res.malformed_examples] == [3, 5, 7, 12]
    assert "invalid JSON" in res.malformed_examples[0]["reason"]
    assert res.duplicates == 1 and res.duplicate_examples == [{"line": 6, "same_as": 1}]
    assert res.near_duplicates == 1 and res.near_duplicate_examples == [{"line": 11, "similar_to": 10}]
    assert res.anomalies == {"starts_without_user": 1} and res.anomaly_examples[0]["line"] == 8
    assert res.regenerated == 2 and res.original == 8 and res.regeneration_status == {"success": 2}
    assert res.domains == {"code": 1, "math": 1, "cjk": 1, "other": 7}
    assert res.turns == sum(len(t) for t in VALID_TURNS)
    # the tokens trained on stop at max_length (SpecForge truncates), the dataset's own tokens do not
    trained = sum(min(n, 100) for n in lengths)
    assert res.to_volume() == {"samples": 10, "tokens": trained, "assistant_tokens": res.assistant_tokens}
    assert calls and calls[-1][0] == 14 and calls[-1][2] == 0.0


def test_exports_carry_the_summary(fixture_file: Path, tok_dir: Path) -> None:
    res = audit.audit(str(fixture_file), tokenizer=str(tok_dir))
    table = res.summary_table()
    assert dict(zip(table["metric"], table["value"], strict=False))["samples"] == 10
    assert '"metric": "tokens"' in res.export("json")
    exported = {row["metric"]: row["value"] for row in json.loads(res.export("json"))}
    assert exported["samples"] == 10 and exported["tokens"] == res.tokens  # numbers as numbers
    assert isinstance(exported["supervised fraction"], float) and isinstance(exported["format"], str)
    assert f"| tokens | {res.tokens:,} |" in res.export("md")
    assert f"assistant tokens,{res.assistant_tokens}" in res.export("csv")


def test_result_tables_for_the_page(fixture_file: Path, tok_dir: Path) -> None:
    res = audit.audit(str(fixture_file), tokenizer=str(tok_dir))
    assert res.estimate_warning() is None and res.estimate_rows() == [] and res.hub_rows_sentence() is None
    responses = {r["kind"]: r["samples"] for r in res.response_rows()}
    assert responses["original"] == 8 and responses["status: success"] == 2
    assert responses["no supervised token"] == res.zero_supervised
    assert res.duplicate_rows() == [
        {"kind": "exact", "line": "6", "same as": "1"},
        {"kind": "near", "line": "11", "same as": "10"},
    ]
    assert res.anomaly_count_rows() == [{"anomaly": "starts_without_user", "rows": 1}]
    example = res.anomaly_example_rows()[0]
    assert example["anomalies"] == "starts_without_user" and example["roles"] == "assistant → user → assistant"
    hub = dataclasses.replace(res, hub_rows=None, hub_rows_note="the Hub does not say")
    assert hub.hub_rows_sentence() == "the Hub does not say"
    assert dataclasses.replace(res, hub_rows=1234).hub_rows_sentence() == "The Hub states 1,234 rows for this split."


def test_estimate_tables_round_the_interval(fixture_file: Path, tok_dir: Path) -> None:
    est = audit.audit(str(fixture_file), tokenizer=str(tok_dir), sample=5, seed=3)
    assert est.estimate_warning() == (
        "Estimate from a random sample of 5 of 14 rows; totals carry a 95% confidence interval."
    )
    rows = {r["metric"]: r for r in est.estimate_rows()}
    assert set(rows) == {
        "tokens",
        "assistant_tokens",
        "samples",
        "over_max_length",
        "samples_trained_on",  # the training volume Attach stores (result.VOLUME_TRAINED), estimated too
        "tokens_trained_on",
    }
    assert est.to_volume()["samples"] == round(est.estimate["samples_trained_on"]["value"])
    assert est.estimate is not None
    assert rows["tokens"]["estimate"] == round(est.estimate["tokens"]["value"]) == est.tokens
    assert rows["tokens"]["95% low"] <= rows["tokens"]["estimate"] <= rows["tokens"]["95% high"]


def test_without_tokenizer_uses_labelled_fallback(fixture_file: Path) -> None:
    res = audit.audit(str(fixture_file))
    assert res.tokenizer is None and res.token_count_method == tokens.FALLBACK_METHOD
    assert any("no tokenizer" in n for n in res.notes)
    fb = templates.fallback_template()
    expected = sum(tokens.fallback_count(fb.render_turns(trainable_turns(t)[0])) for t in VALID_TURNS)
    assert res.tokens == expected and 0 < res.assistant_tokens < res.tokens


def _layouts(tmp: Path, rows: list[dict]) -> dict[str, Path]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = {"jsonl": write_jsonl(tmp / "a.jsonl", rows)}
    (tmp / "a.json").write_text(json.dumps(rows))
    out["json"] = tmp / "a.json"
    table = pa.Table.from_pylist(rows)
    pq.write_table(table, tmp / "a.parquet", row_group_size=7)
    out["parquet"] = tmp / "a.parquet"
    with pa.ipc.new_file(tmp / "a.arrow", table.schema) as w:
        w.write_table(table, max_chunksize=5)
    out["arrow"] = tmp / "a.arrow"
    (tmp / "lines.json").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out["jsonl_named_json"] = tmp / "lines.json"
    (tmp / "wrapped.json").write_text(json.dumps({"version": 1, "data": rows}, indent=2))
    out["json_object_with_data"] = tmp / "wrapped.json"
    import gzip

    with gzip.open(tmp / "a.jsonl.gz", "wt", encoding="utf-8") as fh:
        fh.write("\n".join(json.dumps(r) for r in rows) + "\n")
    out["jsonl_gz"] = tmp / "a.jsonl.gz"
    folder = tmp / "folder"
    folder.mkdir()
    write_jsonl(folder / "part1.jsonl", rows[:10])
    write_jsonl(folder / "part2.jsonl", rows[10:])
    out["folder"] = folder
    return out


def test_every_layout_gives_the_same_counts(tmp_path: Path, tok_dir: Path) -> None:
    rows = [
        {
            "conversations": [
                {"from": "human", "value": f"question {i}"},
                {"from": "gpt", "value": f"answer {i} " * (i % 5 + 1)},
            ]
        }
        for i in range(23)
    ]
    results = {k: audit.audit(str(p), tokenizer=str(tok_dir)) for k, p in _layouts(tmp_path, rows).items()}
    first = results["jsonl"]
    assert first.format == "sharegpt" and first.samples == 23
    for name, res in results.items():
        assert (res.samples, res.tokens, res.assistant_tokens, res.format) == (
            first.samples,
            first.tokens,
            first.assistant_tokens,
            first.format,
        ), name


def test_folder_locations_name_the_file(tmp_path: Path, tok_dir: Path) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    write_jsonl(folder / "a.jsonl", [sf(0, TRICKY[0])])
    write_jsonl(folder / "b.jsonl", [sf(1, TRICKY[2]), "oops"])
    res = audit.audit(str(folder), tokenizer=str(tok_dir))
    assert res.samples == 2 and res.malformed_examples[0]["line"] == "b.jsonl:2"


def test_format_override_and_pretemplated(
    tmp_path: Path, tok_dir: Path, bundles: dict[str, tokens.TokenizerBundle]
) -> None:
    text, spans = templates.reference_spans(bundles["chatml"].template, TRICKY[1])
    path = write_jsonl(tmp_path / "t.jsonl", [{"id": "x", "text": text}])
    res = audit.audit(str(path), tokenizer=str(tok_dir), fmt="text")
    enc = bundles["chatml"].tokenizer.encode(text, add_special_tokens=False)
    assert res.format == "text" and res.tokens == len(enc)
    assert res.assistant_tokens == sum(templates.mask_from_offsets(enc.offsets, spans))
    # forcing a format that fits no row is an error, not an empty report
    with pytest.raises(DataError, match="could be used as sharegpt data .row 1: no 'conversations' field"):
        audit.audit(str(path), tokenizer=str(tok_dir), fmt="sharegpt")


def test_offsets_path_gives_reference_counts(fixture_file: Path, bundles: dict[str, tokens.TokenizerBundle]) -> None:
    bundle = bundles["prefix_space"]
    res = audit.audit(str(fixture_file), tokenizer=bundle)
    assert res.rows_with_offsets == res.samples == 10
    assert res.tokens == sum(reference(bundle, t)[0] for t in VALID_TURNS)
    assert res.assistant_tokens == sum(reference(bundle, t)[1] for t in VALID_TURNS)


def _synthetic(path: Path, n: int) -> Path:
    rng = random.Random(3)
    words = ["alpha", "beta", "gamma", "delta", "the", "fox", "runs", "code", "x", "7"]
    rows = []
    for i in range(n):
        turns = []
        for _ in range(rng.randint(1, 3)):
            turns += [
                (U, " ".join(rng.choices(words, k=rng.randint(2, 20)))),
                (A, " ".join(rng.choices(words, k=rng.randint(1, 120)))),
            ]
        rows.append(sf(i, turns))
    return write_jsonl(path, rows)


def test_estimate_interval_covers_exact(tmp_path: Path, tok_dir: Path) -> None:
    path = _synthetic(tmp_path / "syn.jsonl", 1500)
    bundle = tokens.load_tokenizer(str(tok_dir))
    exact = audit.audit(str(path), tokenizer=bundle)
    est = audit.audit(str(path), tokenizer=bundle, sample=200, seed=11)
    assert est.estimated and est.population == 1500 and est.rows_read == 200
    assert est.estimate is not None
    for key in ("tokens", "assistant_tokens", "samples"):
        ci = est.estimate[key]
        assert ci["low"] <= getattr(exact, key) <= ci["high"], key
        assert ci["high"] - ci["low"] < 0.5 * getattr(exact, key)  # informative, not a vacuous interval
    # sampling everything is exact with a zero-width interval
    full = audit.audit(str(path), tokenizer=bundle, sample=5000)
    assert full.tokens == exact.tokens and full.estimate["tokens"]["low"] == pytest.approx(exact.tokens)


def test_near_duplicate_reservoir_is_bounded(tmp_path: Path, tok_dir: Path) -> None:
    path = _synthetic(tmp_path / "syn.jsonl", 300)
    res = audit.audit(str(path), tokenizer=str(tok_dir), near_dup_cap=50)
    assert res.near_duplicates_checked == 50
    assert any("reservoir of 50" in n for n in res.notes)


BAD_INPUTS = [
    ("missing.jsonl", InputError, "no such file"),
    ("nojson.jsonl", DataError, "no row parses as JSON"),
    ("unknown.jsonl", DataError, "unknown data format"),
    ("emptydir", InputError, "holds no"),
    ("empty.jsonl", DataError, "has no rows"),
]


@pytest.mark.parametrize(("name", "exc", "message"), BAD_INPUTS)
def test_bad_input(tmp_path: Path, name: str, exc: type, message: str) -> None:
    (tmp_path / "nojson.jsonl").write_text("hello\nworld\n")
    write_jsonl(tmp_path / "unknown.jsonl", [{"foo": 1}, {"bar": 2}])
    (tmp_path / "emptydir").mkdir()
    (tmp_path / "empty.jsonl").write_text("\n\n")
    with pytest.raises(exc, match=message):
        audit.audit(str(tmp_path / name))


def test_bad_options(fixture_file: Path) -> None:
    with pytest.raises(InputError, match="max_length"):
        audit.audit(str(fixture_file), max_length=0)
    with pytest.raises(InputError, match="unknown data format"):
        audit.audit(str(fixture_file), fmt="xml")
    with pytest.raises(InputError, match="tokenizer"):
        audit.audit(str(fixture_file), tokenizer="./no/such/tokenizer")


PERCENTILE_CASES = [
    ({}, {"p50": 0, "p90": 0, "p99": 0, "max": 0}),
    ({5: 1}, {"p50": 5, "p90": 5, "p99": 5, "max": 5}),
    ({1: 50, 100: 50}, {"p50": 1, "p90": 100, "p99": 100, "max": 100}),
    ({i: 1 for i in range(1, 101)}, {"p50": 50, "p90": 90, "p99": 99, "max": 100}),
]


@pytest.mark.parametrize(("counts", "expected"), PERCENTILE_CASES)
def test_percentiles(counts: dict, expected: dict) -> None:
    from collections import Counter

    got = auditresult.percentiles(Counter(counts))
    assert {k: got[k] for k in expected} == expected


DOMAIN_CASES = [
    ("```js\nx()\n```", "code"),
    ("import os\nprint(1)", "code"),
    ("Compute 3 + 4 = 7", "math"),
    ("\\frac{1}{2}", "math"),
    ("这是一个测试，你好世界", "cjk"),
    ("plain English text", "other"),
    ("résumé café", "other"),
]


@pytest.mark.parametrize(("text", "domain"), DOMAIN_CASES)
def test_domain_of(text: str, domain: str) -> None:
    assert audit.domain_of(text) == domain


def test_cli_json(fixture_file: Path, tok_dir: Path) -> None:
    proc = run_cli("audit", str(fixture_file), "--tokenizer", str(tok_dir), "--max-length", "100", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    for key in (
        "samples",
        "tokens",
        "assistant_tokens",
        "malformed",
        "duplicates",
        "near_duplicates",
        "over_max_length",
        "length",
        "format",
    ):
        assert key in out
    assert out["samples"] == 10 and out["malformed"] == 3 and out["format"] == "specforge"
    assert set(out["length"]) >= {"p50", "p90", "p99", "max"}


@pytest.mark.parametrize(
    "args", [("does/not/exist.jsonl",), ("{path}", "--format", "nope"), ("{bad}",), ("{bad}", "--format", "sharegpt")]
)
def test_cli_bad_input_exits_2(tmp_path: Path, args: tuple[str, ...]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{{{\n[[[\n")
    argv = [a.format(path=bad, bad=bad) for a in args]
    proc = run_cli("audit", *argv, "--json")
    assert proc.returncode == 2
    assert proc.stderr.startswith("error:") and len(proc.stderr.strip().splitlines()) == 1


# --- Hub datasets and tokenizers, through the local Hub emulator ------------------------------

from tests.hub_emulator import HubEmulator  # noqa: E402 - the `hub` fixture comes from the conftest plugin

CHAT_ROWS = [sf(i, [(U, f"question {i}"), (A, f"answer {i} " * (i + 1))]) for i in range(7)]
CARD = b"---\ndataset_info:\n  splits:\n  - name: train\n    num_bytes: 900\n    num_examples: 7\n---\n# chat\n"


def _jsonl_bytes(rows: list) -> bytes:
    return ("\n".join(json.dumps(r) for r in rows) + "\n").encode()


def test_hub_dataset_and_tokenizer(hub: HubEmulator, tmp_path: Path, tok_dir: Path) -> None:
    hub.add_repo("acme/chat", {"README.md": CARD, "data/train.jsonl": _jsonl_bytes(CHAT_ROWS)}, repo_type="dataset")
    hub.add_repo("acme/target", {n: (tok_dir / n).read_bytes() for n in ("tokenizer.json", "tokenizer_config.json")})
    local = audit.audit(str(write_jsonl(tmp_path / "chat.jsonl", CHAT_ROWS)), tokenizer=str(tok_dir))
    for ref in ("acme/chat", f"{hub.url}/datasets/acme/chat"):
        res = audit.audit(ref, tokenizer="acme/target")
        assert res.samples == 7 and res.hub_rows == 7 and res.hub_rows_note is None
        assert (res.tokens, res.assistant_tokens) == (local.tokens, local.assistant_tokens)
        assert res.tokenizer == "acme/target"


def test_hub_dataset_without_row_count_says_so(hub: HubEmulator) -> None:
    hub.add_repo("acme/nocard", {"train.jsonl": _jsonl_bytes(CHAT_ROWS[:3])}, repo_type="dataset")
    res = audit.audit("acme/nocard")
    assert res.samples == 3 and res.hub_rows is None
    assert "does not say how many rows" in (res.hub_rows_note or "")


def test_hub_dataset_missing_is_a_clear_error(hub: HubEmulator) -> None:
    from comparelib.errors import HubError

    with pytest.raises(HubError) as info:
        audit.audit("acme/does-not-exist")
    assert "acme/does-not-exist" in str(info.value)


THINK_TEMPLATE = (
    "{% for m in messages %}"
    "{% set c = m['content'] %}"
    "{% if m['role'] == 'assistant' and not loop.last %}{% set c = c.split('</think>')[-1] %}{% endif %}"
    "{{ '<|im_start|>' + m['role'] + '\n' + c + '<|im_end|>\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


def test_template_that_rewrites_history_falls_back_to_header_rule(tmp_path: Path) -> None:
    bundle = tokens.load_tokenizer(str(build_tokenizer(tmp_path / "think", template=THINK_TEMPLATE)))
    turns = [(U, "q1"), (A, "<think>hmm</think>a1"), (U, "q2"), (A, "<think>more</think>a2")]
    with pytest.raises(DataError, match="renders earlier turns differently"):
        templates.reference_spans(bundle.template, turns)
    text = bundle.template.render_turns(turns)
    assert "hmm" not in text and "more" in text
    enc = bundle.tokenizer.encode(text, add_special_tokens=False)
    spans = templates.pretemplated_spans(text, bundle.shape)
    assert [text[s:e] for s, e in spans] == ["a1<|im_end|>\n", "<think>more</think>a2<|im_end|>\n"]
    expected = (len(enc), sum(templates.mask_from_offsets(enc.offsets, spans)))
    assert tokens.count_turns(bundle, [turns]) == [expected]


def test_template_error_sets_row_aside(tmp_path: Path) -> None:
    strict = (
        "{% for m in messages %}{% if (m['role'] == 'user') != (loop.index0 % 2 == 0) %}"
        "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}"
        "{% endif %}{{ m['role'] + ': ' + m['content'] + '\n' }}{% endfor %}"
    )
    tok = build_tokenizer(tmp_path / "strict", template=strict)
    path = write_jsonl(tmp_path / "d.jsonl", [sf(0, [(U, "a"), (A, "b")]), sf(1, [(U, "a"), (U, "b"), (A, "c")])])
    res = audit.audit(str(path), tokenizer=str(tok))
    assert res.samples == 1 and res.malformed == 1
    assert "roles must alternate" in res.malformed_examples[0]["reason"]
    assert res.malformed_examples[0]["line"] == 2


PREPARE_CASES = [
    ([(U, "q"), (A, "plain answer")], True),  # cut after "assistant\n" and after <|im_end|>\n: clean
    ([(U, "q"), (A, " leading space")], False),  # "\n" + " " may merge: whole row with offsets
    ([(U, "q"), (A, "\n\nleading newlines")], False),
]


@pytest.mark.parametrize(("turns", "segmented"), PREPARE_CASES)
def test_prepare_cuts_only_at_safe_boundaries(
    bundles: dict[str, tokens.TokenizerBundle], turns: list, segmented: bool
) -> None:
    from comparelib.audit.conversations import Conversation

    prepared = tokens.prepare(bundles["chatml"], Conversation(turns=turns), turns)
    assert (prepared.segments is not None) is segmented
    if segmented:
        assert prepared.segments[1] == turns[-1][1] + "<|im_end|>\n"


# (rows, rows/s, seconds left, fraction, text)
PROGRESS_CASES = [
    (460, 1000.0, 0.54, 0.46, "460 rows · 1,000 rows/s · under 2 s left"),  # was "0 s left" at 46%
    (500, 100.0, 5.0, 0.5, "500 rows · 100 rows/s · about 5 s left"),
    (100, 10.0, 600.0, 100 / 6100, "100 rows · 10 rows/s · about 10 min left"),
    (1000, 100.0, 0.0, 1.0, "1,000 rows · 100 rows/s"),
    (10, 5.0, None, 0.0, "10 rows · 5 rows/s"),
]


@pytest.mark.parametrize(("rows", "rate", "eta", "frac", "text"), PROGRESS_CASES)
def test_progress_text_agrees_with_the_bar(rows: int, rate: float, eta: float | None, frac: float, text: str) -> None:
    got_frac, got_text = audit.progress_text(rows, rate, eta)
    assert got_frac == pytest.approx(frac, abs=0.005) and got_text == text


def test_a_plain_audit_imports_no_ray(tmp_path: Path) -> None:
    """Without --ray nothing changes: one process, and Ray is never imported (it is optional)."""
    import subprocess
    import sys

    path = write_jsonl(tmp_path / "d.jsonl", [sf(i, TRICKY[i % len(TRICKY)]) for i in range(20)])
    code = (
        "import sys\n"
        "from comparelib.cli import main\n"
        f"assert main(['audit', {str(path)!r}, '--json']) == 0\n"
        "import comparelib.audit.cluster\n"  # the module itself imports Ray only when a pipeline runs
        "assert not [m for m in sys.modules if m == 'ray' or m.startswith('ray.')], 'ray imported'\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=Path(__file__).parent.parent
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["samples"] == 20


def test_a_uri_source_reads_like_the_local_folder(
    tmp_path: Path, tok_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """s3:// / gs:// go through pyarrow's filesystems; file:// is the same code path without a network."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = tmp_path / "d"
    folder.mkdir()
    write_jsonl(folder / "a.jsonl", [sf(i, TRICKY[i % len(TRICKY)]) for i in range(15)] + ["{bad"])
    pq.write_table(pa.Table.from_pylist([sf(i, TRICKY[i % 5]) for i in range(9)]), folder / "b.parquet")
    local = audit.audit(str(folder), tokenizer=str(tok_dir))
    remote = audit.audit(folder.as_uri(), tokenizer=str(tok_dir))
    same = {k: v for k, v in local.to_dict().items() if k not in ("source", "elapsed_s")}
    assert {k: v for k, v in remote.to_dict().items() if k not in ("source", "elapsed_s")} == same
    assert remote.malformed_examples[0]["line"] == "a.jsonl:16" and remote.samples == 24
    monkeypatch.setenv("SPECDRAFT_DATA_ROOT", str(tmp_path))
    with pytest.raises(InputError, match="not read on this server"):
        audit.audit(folder.as_uri())


# ---------------------------------------------------------------------------------------------
# Tool rows: with a template that reads tools / tool_calls, the calls and schemas are counted and a
# call's turn is supervised; with one that does not, the row stays flagged and the note says so.

from tests.test_templates import SCHEMA, SCHEMA_TEXT, TOOL_TEMPLATE  # noqa: E402

TOOL_ROWS = [
    {  # a call (compact string arguments: the trainer parses them, the template re-serialises), its result, answer
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}
                ],
            },
            {"role": "tool", "content": "21 C", "tool_call_id": "c1"},
            {"role": "assistant", "content": "It is 21 C."},
        ],
        "tools": [SCHEMA],
    },
    {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]},  # no tools
    {"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}], "tools": [SCHEMA]},
]
TOOLS_BLOCK = f"<|im_start|>system\n# Tools\n<tools>{SCHEMA_TEXT}</tools><|im_end|>\n"
# each row as the trainer's text: (piece, supervised)
TOOL_ROW_TEXTS = [
    [
        (TOOLS_BLOCK + "<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n", False),
        ('\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>\n', True),
        ("<|im_start|>user\n<tool_response>\n21 C\n</tool_response><|im_end|>\n<|im_start|>assistant\n", False),
        ("It is 21 C.<|im_end|>\n", True),
    ],
    [("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n", False), ("hello<|im_end|>\n", True)],
    [(TOOLS_BLOCK + "<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\n", False), ("a<|im_end|>\n", True)],
]


@pytest.fixture(scope="module")
def tool_tok(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tokenizer(tmp_path_factory.mktemp("tok") / "tools", template=TOOL_TEMPLATE)


# auto: the template renders in a worker (each prefix a render op); off: in-process; one-per-call: a worker
# call per prefix render, so the answers of several rows are put back together across calls
@pytest.mark.parametrize("mode", ["auto", "off", "one-per-call"])
def test_tool_calls_and_schemas_are_counted(
    tmp_path: Path, tool_tok: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    monkeypatch.setenv("SPECDRAFT_RENDER_SANDBOX", "off" if mode == "off" else "auto")
    if mode == "one-per-call":
        monkeypatch.setattr(tokens, "_TOOL_CALL_CHARS", 1)
    res = audit.audit(str(write_jsonl(tmp_path / "t.jsonl", TOOL_ROWS)), tokenizer=str(tool_tok))
    tok = tokens.load_tokenizer(str(tool_tok)).tokenizer
    expected = [expected_counts(tok, pieces) for pieces in TOOL_ROW_TEXTS]
    assert res.samples == 3 and res.malformed == 0
    assert (res.tokens, res.assistant_tokens) == (sum(t for t, _ in expected), sum(s for _, s in expected))
    assert res.anomalies == {}
    assert not [n for n in res.notes if "tool" in n]


def test_a_template_without_tools_keeps_the_flag(tmp_path: Path, tok_dir: Path) -> None:
    res = audit.audit(str(write_jsonl(tmp_path / "t.jsonl", TOOL_ROWS)), tokenizer=str(tok_dir))
    bundle = tokens.load_tokenizer(str(tok_dir))
    plain = [
        [(U, "Weather in Paris?"), (A, ""), ("tool", "21 C"), (A, "It is 21 C.")],
        [(U, "hi"), (A, "hello")],
        [(U, "q"), (A, "a")],
    ]
    ref = [reference(bundle, t) for t in plain]  # role and content only, as the template renders them
    assert (res.tokens, res.assistant_tokens) == (sum(t for t, _ in ref), sum(s for _, s in ref))
    assert res.anomalies == {"tools_not_counted": 2}
    assert [ex["line"] for ex in res.anomaly_examples] == [1, 3]
    assert any(
        n.startswith("2 row(s) carry tool calls or tool schemas the chat template does not render") for n in res.notes
    )


@pytest.mark.parametrize("mode", ["off", "always"])
def test_tool_schemas_render_under_the_size_cap(
    tmp_path: Path, tool_tok: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """The schemas go through the same bounded render (and worker) as the messages: a row whose schemas
    push the rendered text over SPECDRAFT_MAX_RENDER_BYTES stops the audit with that cap's message."""
    from comparelib.audit import sandbox
    from comparelib.errors import LimitError

    monkeypatch.setenv("SPECDRAFT_RENDER_SANDBOX", mode)
    monkeypatch.setenv("SPECDRAFT_MAX_RENDER_BYTES", "4KiB")
    monkeypatch.setattr(sandbox, "_POOL", None)  # fresh workers, started under the cap set here
    big = {"type": "function", "function": {"name": "f", "description": "x" * 8000}}
    rows = [{"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}], "tools": [big]}]
    try:
        with pytest.raises(LimitError, match="SPECDRAFT_MAX_RENDER_BYTES"):
            audit.audit(str(write_jsonl(tmp_path / "t.jsonl", rows)), tokenizer=str(tool_tok))
    finally:
        if sandbox._POOL is not None:
            sandbox._POOL.close()
