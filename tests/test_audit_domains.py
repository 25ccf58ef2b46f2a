"""The audit's domain mix reads the domain a row states (``domain``, ``category``, ``task_category``) before
guessing one from its text, says which it did, and caps the labels a hostile file can add.

Before, rows carrying ``"domain": "math"`` / "code" / "chat" were all guessed from their text: a 310-row chat
mix showed as "domain other 310".
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from comparelib import limits
from comparelib.audit import conversations as conv_mod
from comparelib.audit import scan
from comparelib.audit.tokens import load_tokenizer
from tests.fixtures import run_cli


def _sf(i: int, **extra: Any) -> dict[str, Any]:
    """A SpecForge row with plain text (no code or math markers: the heuristic says "other")."""
    return {
        "id": str(i),
        "conversations": [
            {"role": "user", "content": f"Tell me about item {i}."},
            {"role": "assistant", "content": f"Item {i} is a plain thing."},
        ],
        **extra,
    }


def _code(i: int) -> dict[str, Any]:
    return {
        "id": f"c{i}",
        "conversations": [
            {"role": "user", "content": f"Write f{i}."},
            {"role": "assistant", "content": f"```python\ndef f{i}():\n    return {i}\n```"},
        ],
    }


STATED_CASES = [
    # row fields, (field, label) read
    ({"domain": "math"}, ("domain", "math")),
    ({"category": " Coding "}, ("category", "coding")),  # OpenHermes-2.5
    ({"category": "chat"}, ("category", "chat")),  # Llama-Nemotron post-training
    ({"task_category": "Coding & Debugging"}, ("task_category", "coding & debugging")),  # Magpie
    ({"domain": "MATH\n", "category": "code"}, ("domain", "math")),  # domain first
    ({"domain": "", "category": "chat"}, ("category", "chat")),  # an empty field states nothing
    ({"domain": None, "category": "code"}, ("category", "code")),
    ({"domain": "  \n\t "}, None),
    ({"domain": ["math"]}, None),
    ({"domain": 3}, None),
    ({"source": "glaive-code-assist"}, None),  # the sub-dataset a row came from, not its domain
    ({"task": "cot_gsm8k"}, None),
    ({"dataset": "gsm8k"}, None),
    ({"domain": "x" * 500}, ("domain", "x" * conv_mod.MAX_DOMAIN_CHARS)),
    ({"domain": "Multi   word\nlabel"}, ("domain", "multi word label")),
    ({"domain": "ma\x1b[31mth\x00"}, ("domain", "ma [31mth")),  # no terminal escape reaches the CLI
]


@pytest.mark.parametrize(("fields", "expected"), STATED_CASES)
def test_stated_domain(fields: dict[str, Any], expected: tuple[str, str] | None) -> None:
    assert conv_mod.stated_domain(fields) == expected
    conv = conv_mod.normalize(_sf(0, **fields), "specforge")
    assert (conv.domain_field, conv.domain) == (expected or (None, None))


def _labels(n: int) -> list[dict[str, Any]]:
    return [_sf(i, domain=f"label-{i:03d}") for i in range(n)]


AUDIT_CASES = [
    # id, rows, domains shown, source, words in the note
    (
        "stated-by-domain",
        [_sf(i, domain=d) for i, d in enumerate(["math"] * 150 + ["code"] * 100 + ["chat"] * 60)],
        {"math": 150, "code": 100, "chat": 60},
        "stated",
        "as the rows state it (their domain field)",
    ),
    (
        "stated-by-category-case-folded",
        [_sf(i, category=c) for i, c in enumerate(["Math", " math", "coding", "roleplay"])],
        {"math": 2, "coding": 1, "roleplay": 1},
        "stated",
        "their category field",
    ),
    (
        "guessed",
        [_sf(i) for i in range(5)] + [_code(i) for i in range(2)],
        {"code": 2, "math": 0, "cjk": 0, "other": 5},
        "guessed",
        "guessed from the text",
    ),
    (
        "mixed",
        [_sf(i, category="chat") for i in range(3)] + [_code(i) for i in range(2)] + [_sf(9, domain="code")],
        {"chat": 3, "code": 3},
        "mixed",
        "4 of 6 rows state their domain (their domain / category fields); the other 2 are guessed",
    ),
    (
        "hostile-many-labels",
        _labels(50),
        {**{f"label-{i:03d}": 1 for i in range(scan.DOMAIN_LABELS)}, "other (38 labels)": 38},
        "stated",
        "their domain field",
    ),
]


@pytest.mark.parametrize(
    ("rows", "domains", "source", "note"), [c[1:] for c in AUDIT_CASES], ids=[c[0] for c in AUDIT_CASES]
)
def test_audit_domain_mix(
    tmp_path: Path, rows: list[dict[str, Any]], domains: dict[str, int], source: str, note: str
) -> None:
    path = tmp_path / "train.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    res = scan.audit(str(path))
    assert res.domains == domains
    assert sum(res.domains.values()) == res.samples == len(rows)
    assert res.domain_source == source
    assert note in res.domain_note and res.domain_note in res.notes, res.domain_note
    table = dict(res.summary_rows())
    assert table["domain source"] == source and all(table[f"domain {k}"] == v for k, v in domains.items())


def test_other_layouts_read_the_stated_domain_too(tmp_path: Path) -> None:
    rows = [
        {"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "yo"}], "category": "chat"},
        {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}], "domain": "chat"},
    ]
    for i, row in enumerate(rows):
        path = tmp_path / f"{i}.jsonl"
        path.write_text(json.dumps(row) + "\n", encoding="utf-8")
        res = scan.audit(str(path))
        assert res.domains == {"chat": 1} and res.domain_source == "stated"


def _tally(rows: list[dict[str, Any]], seed: int = 0) -> scan.Tally:
    bundle = load_tokenizer(None)
    load = limits.json_loader("a row")
    tally = scan.Tally(100, seed)
    for i, row in enumerate(rows):
        tally.check(i, json.dumps(row), "specforge", bundle, load)
    return tally


def _mix(t: scan.Tally) -> tuple[dict[str, int], str, str]:
    return scan.domain_mix(t.domains, t.stated, t.stated_untracked, t.stated_fields)


def test_merged_blocks_give_the_mix_of_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Ray path merges per-block Tallies (cluster.py): the mix, its source and the label cap agree with one
    process's, also when each block alone stays under the tracked-label cap and together they go past it."""
    monkeypatch.setattr(scan, "DOMAIN_TRACKED", 20)
    rows = (
        [_sf(i, domain="math") for i in range(30)]
        + [_sf(100 + i, category="code") for i in range(25)]
        + [_code(i) for i in range(4)]
        + [_sf(200 + i, domain=f"rare-{i}") for i in range(30)]
    )
    whole = _tally(rows)
    first, second = _tally(rows[::2], 1), _tally(rows[1::2], 2)
    assert len(first.stated) <= 20 and len(second.stated) <= 20
    first.merge(second)
    assert len(first.stated) <= 20
    merged_mix, whole_mix = _mix(first), _mix(whole)
    assert merged_mix[1] == whole_mix[1] == "mixed"
    assert merged_mix[2] == whole_mix[2]
    for mix in (merged_mix, whole_mix):
        domains = mix[0]
        assert domains["math"] == 30 and domains["code"] == 25 + 4  # stated code and guessed code together
        assert len(domains) == scan.DOMAIN_LABELS + 1 and sum(domains.values()) == len(rows)
        other = next(k for k in domains if k.startswith("other ("))
        assert other.endswith("+ labels)")  # past the tracked cap: a lower bound


def test_a_row_per_label_holds_the_tracked_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scan, "DOMAIN_TRACKED", 10)
    t = _tally([_sf(i, domain=f"l{i}") for i in range(40)])
    assert len(t.stated) == 10 and t.stated_untracked == 30
    domains, source, _note = _mix(t)
    assert source == "stated" and domains["other (1+ labels)"] == 30 and sum(domains.values()) == 40


def test_domain_mix_counts() -> None:
    guessed = Counter({"code": 0, "math": 0, "cjk": 0, "other": 0})
    assert scan.domain_mix(guessed, Counter())[1] == "guessed"
    assert scan.domain_mix(guessed, Counter({"chat": 2}), fields=Counter({"category": 2}))[:2] == (
        {"chat": 2},
        "stated",
    )


def test_cli_prints_where_the_mix_comes_from(tmp_path: Path) -> None:
    path = tmp_path / "train.jsonl"
    path.write_text("\n".join(json.dumps(_sf(i, domain="math")) for i in range(3)) + "\n", encoding="utf-8")
    proc = run_cli("audit", str(path))
    assert proc.returncode == 0, proc.stderr
    assert "domain math" in proc.stdout and "domain other" not in proc.stdout
    assert "note: domain mix as the rows state it (their domain field)" in proc.stdout
