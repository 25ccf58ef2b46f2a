"""What a training volume counts (walk S, finding 8c).

The walk attached 5,001 samples: every rendered row, with 30 exact duplicates and a system-only row (no supervised
token), and nothing said so. A training volume is the rows a trainer trains on: SpecForge drops rows below
``min_loss_tokens`` (default 1; specforge/data/preprocessing.py has_minimum_valid_tokens) and speculators drops rows
with no supervised token ("unsupervised", speculators/data_generation/preprocessing.py _append_row); neither
removes duplicates, so a duplicate is trained once per copy. The audit page also offers the unique usable rows.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from comparelib.audit import result as auditresult
from comparelib.audit import scan
from comparelib.live.store import Store
from comparelib.models.draft import OwnDraft
from tests.fixtures import page_app
from tests.tokenizer_fixture import build_tokenizer

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "audit.py")


def _msg(role: str, content: str) -> dict:
    return {"role": role, "content": content}


def _row(i: int) -> dict:
    return {"messages": [_msg("user", f"Question number {i}?"), _msg("assistant", "An answer. " * (i + 1))]}


SYSTEM_ONLY = {"messages": [_msg("system", "You are a helpful assistant.")]}
EMPTY_ANSWER = {"messages": [_msg("user", "Anything?"), _msg("assistant", "")]}  # supervises its end-of-turn token

# 8 distinct rows, 3 more copies of row 0, the system-only row twice, one empty answer:
# 14 samples; 2 with no supervised token; 4 exact duplicates (3 of row 0, 1 of the system-only row)
ROWS = [_row(i) for i in range(8)] + [_row(0)] * 3 + [SYSTEM_ONLY, SYSTEM_ONLY, EMPTY_ANSWER]
TRAINED, UNIQUE = 12, 9  # 14 - 2 no-supervised rows; 12 - 3 copies of row 0 (samples - zero - duplicates = 8 is wrong)


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def tok(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tokenizer(tmp_path_factory.mktemp("tok") / "chatml")


def _tokens(tmp: Path, tok: Path, rows: list[dict]) -> int:
    return scan.audit(str(_write(tmp / f"part{len(rows)}.jsonl", rows)), tokenizer=str(tok)).tokens


def test_audit_counts_the_rows_trained_on_and_the_unique_usable_rows(tmp_path: Path, tok: Path) -> None:
    res = scan.audit(str(_write(tmp_path / "train.jsonl", ROWS)), tokenizer=str(tok))
    assert (res.samples, res.zero_supervised, res.duplicates) == (14, 2, 4)
    system_tokens = _tokens(tmp_path, tok, [SYSTEM_ONLY])
    row0_tokens = _tokens(tmp_path, tok, [_row(0)])
    assert res.trained_samples == TRAINED and res.trained_tokens == res.tokens - 2 * system_tokens
    assert res.unique_samples == UNIQUE and res.unique_tokens == res.trained_tokens - 3 * row0_tokens
    vol = res.to_volume()
    assert (vol["samples"], vol["tokens"]) == (TRAINED, res.trained_tokens)  # what Attach stores by default
    assert res.unique_volume() == {"samples": UNIQUE, "tokens": res.unique_tokens}
    rows = dict(res.summary_rows())
    assert rows["samples trained on"] == TRAINED and rows["unique usable samples"] == UNIQUE


def _audit_page(tmp_path: Path, tok: Path):
    at = page_app(PAGE, timeout=60).run()
    at.text_input(key="audit_source").set_value(str(_write(tmp_path / "train.jsonl", ROWS)))
    at.text_input(key="audit_tokenizer").set_value(str(tok))
    at.button(key="audit_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


@pytest.mark.parametrize(
    ("pick", "samples", "words"),
    [
        (None, TRAINED, auditresult.VOLUME_TRAINED),  # the default: what a trainer trains on
        ("unique usable rows", UNIQUE, auditresult.VOLUME_UNIQUE),
    ],
)
def test_attach_says_what_it_counts(tmp_path: Path, tok: Path, pick: str | None, samples: int, words: str) -> None:
    at = _audit_page(tmp_path, tok)
    said = " ".join(c.value for c in at.caption)
    assert f"{TRAINED:,} of 14 samples" in said, said
    assert "2 with no supervised token" in said and "4 exact duplicates" in said, said
    assert f"Unique usable rows: {UNIQUE:,}" in said, said
    if pick is not None:
        at.radio(key="audit_attach_what").set_value(pick)
    at.text_input(key="audit_attach_draft").set_value("my-draft")
    at.button(key="audit_attach").click().run()
    assert not at.exception and not at.error
    assert any(f"Saved {samples:,} samples" in s.value and words in s.value for s in at.success), [
        s.value for s in at.success
    ]
    volumes = Store().data_volumes()
    row = [v for v in volumes if v["draft"] == "my-draft"][-1]
    assert row["samples"] == samples and words in row["source"]
    # Overview and the sidebar say what the attached number is
    text = OwnDraft(source="acme/draft", volume="my-draft").volume_text(volumes)
    assert text.startswith(f"{samples:,} samples, attached from Dataset audit as my-draft") and words in text, text


@pytest.mark.parametrize("sample", [None, 6])  # the full scan and the sampled estimate (6 of 8 rows)
def test_tokens_trained_on_stop_at_max_length(tmp_path: Path, tok: Path, sample: int | None) -> None:
    """SpecForge truncates each row to max_length (specforge 0.2.0 data/parse.py: ``truncation=True,
    max_length=max_length``), so tokens past it are not trained on: the volume counted them (walk S left this)."""
    rows = [_row(i) for i in range(8)]
    path = _write(tmp_path / "train.jsonl", rows)
    full = scan.audit(str(path), tokenizer=str(tok))
    lengths = sorted(_tokens(tmp_path, tok, [r]) for r in rows)  # _tokens writes part1.jsonl each time
    cut = lengths[1]  # 6 of the 8 rows are longer than this
    res = scan.audit(str(path), tokenizer=str(tok), max_length=cut, sample=sample)
    if sample is None:
        assert res.tokens == full.tokens  # the dataset's own tokens are still all counted
        assert res.over_max_length == sum(n > cut for n in lengths) == 6
        assert res.trained_tokens == sum(min(n, cut) for n in lengths) < full.trained_tokens
        assert res.unique_tokens == res.trained_tokens  # no duplicates here
    else:  # an estimate from 6 of the 8 rows: its per-row values are cut at max_length too
        assert res.estimated and res.trained_tokens <= 8 * cut < full.tokens
    assert f"cut at max_length {cut:,}" in res.volume_sentence(), res.volume_sentence()


def test_an_invalid_json_line_is_said_to_stop_specforge(tmp_path: Path, tok: Path) -> None:
    """SpecForge 0.2.0 reads a JSON Lines file with ``datasets.load_dataset("json", data_files=path)``
    (data/prompt_builder.py), which raises DatasetGenerationError on one bad line: the audit set the line aside
    and counted the rest as if a trainer would too (walk S left this)."""
    path = tmp_path / "train.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS[:5]) + '{"messages": [oops\n', encoding="utf-8")
    res = scan.audit(str(path), tokenizer=str(tok))
    assert res.malformed == 1 and res.samples == 5
    said = " ".join(res.notes)
    assert "1 line is not valid JSON" in said and 'load_dataset("json"' in said and "does not start" in said, said
    # a set-aside row that is valid JSON is not this stop (datasets parses it)
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS[:5]) + '{"text": 3}\n', encoding="utf-8")
    assert "not valid JSON" not in " ".join(scan.audit(str(path), tokenizer=str(tok)).notes)
