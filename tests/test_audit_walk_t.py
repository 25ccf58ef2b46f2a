"""Walk T: a message whose value is not text (a number, a list) is a finding that says what SpecForge does with it,
and duplicates after whitespace normalisation are counted exactly, beside the exact duplicates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from comparelib.audit import conversations as cm
from comparelib.audit import scan
from tests.fixtures import page_app
from tests.tokenizer_fixture import build_tokenizer

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "audit.py")

# Walk T's Ling-flash-2.0 stand-in: content joined with `+`, as Ling's template joins it (a number raises TypeError)
LING = (
    "{% for message in messages %}{% set role = message['role'] | upper %}{% if role == 'USER' %}"
    "{% set role = 'HUMAN' %}{% endif %}{{ '<role>' + role + '</role>' + message['content'] + '<|role_end|>' }}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<role>ASSISTANT</role>' }}{% endif %}"
)
# prints the content as it is (Jinja writes str(value))
PRINTS = (
    "{% for message in messages %}{{ '<|im_start|>' ~ message['role'] ~ '\n' }}{{ message['content'] }}"
    "{{ '<|im_end|>\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
# calls a string method on it: undefined on a number, a jinja2 UndefinedError that SpecForge does not catch
STRIPS = (
    "{% for message in messages %}{{ '<|im_start|>' ~ message['role'] ~ '\n' ~ message['content'].strip() }}"
    "{{ '<|im_end|>\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
TEMPLATES = {"ling": LING, "prints": PRINTS, "strips": STRIPS}


def _sg(*turns: tuple[str, Any]) -> dict:
    return {"conversations": [{"from": r, "value": v} for r, v in turns]}


def _oa(*messages: tuple[str, Any]) -> dict:
    return {"messages": [{"role": r, "content": c} for r, c in messages]}


GOOD = [_sg(("human", f"Question {i}?"), ("gpt", f"Answer {i}.")) for i in range(3)]
GOOD_OA = [_oa(("user", f"Question {i}?"), ("assistant", f"Answer {i}.")) for i in range(3)]

# (case, template, row, the values named, SpecForge's outcome (None: nothing flagged), whether the row is a sample)
NON_TEXT_CASES: list[tuple[str, str, dict, str, str | None, bool]] = [
    (
        "a number in the user turn, Ling's +",
        "ling",
        _sg(("human", 12345), ("gpt", "ok")),
        "message 1 (user): value is a number",
        "fallback",
        True,
    ),
    (
        "walk T's row: a number and a list",
        "ling",
        _sg(("human", 12346), ("gpt", ["a", "list"])),
        "message 1 (user): value is a number; message 2 (assistant): value is a list",
        "fallback",
        True,
    ),
    (
        "a number, printed by the template",
        "prints",
        _sg(("human", 12345), ("gpt", "ok")),
        "message 1 (user): value is a number",
        "template",
        True,
    ),
    (
        "a float, printed",
        "prints",
        _sg(("human", "q"), ("gpt", 1.5)),
        "message 2 (assistant): value is a number",
        "template",
        True,
    ),
    ("zero", "ling", _sg(("human", 0), ("gpt", "ok")), "message 1 (user): value is a number", "empty", True),
    (
        "false",
        "ling",
        _sg(("human", "q"), ("gpt", False)),
        "message 2 (assistant): value is true/false",
        "empty",
        True,
    ),
    (
        "a number as the system prompt, Ling's +: the fallback cannot join it",
        "ling",
        _sg(("system", 7), ("human", "q"), ("gpt", "ok")),
        "message 1 (system): value is a number",
        "fail",
        False,
    ),
    (
        "a number as the system prompt, printed",
        "prints",
        _sg(("system", 7), ("human", "q"), ("gpt", "ok")),
        "message 1 (system): value is a number",
        "template",
        True,
    ),
    (
        "a string method on a number",
        "strips",
        _sg(("human", 12345), ("gpt", "ok")),
        "message 1 (user): value is a number",
        "fail",
        False,
    ),
    (
        "OpenAI content parts, Ling's +",
        "ling",
        _oa(("user", "q"), ("assistant", [{"type": "text", "text": "hi"}])),
        "message 2 (assistant): content is a list",
        "fallback",
        True,
    ),
    ("null is an empty turn, not flagged", "ling", _sg(("human", "q"), ("gpt", None)), "", None, True),
    ("text is not flagged", "ling", _sg(("human", "q"), ("gpt", "a")), "", None, True),
    ("a leading turn the trainer drops", "ling", _sg(("gpt", 5), ("human", "q"), ("gpt", "a")), "", None, True),
]


@pytest.fixture(scope="module")
def toks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("toks")
    return {name: build_tokenizer(root / name, template=src) for name, src in TEMPLATES.items()}


def _write(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("case", "template", "row", "named", "outcome", "sample"), NON_TEXT_CASES, ids=[c[0] for c in NON_TEXT_CASES]
)
def test_a_non_text_value_is_flagged_with_what_specforge_does(
    tmp_path: Path,
    toks: dict[str, Path],
    case: str,
    template: str,
    row: dict,
    named: str,
    outcome: str | None,
    sample: bool,
) -> None:
    good = GOOD_OA if "messages" in row else GOOD
    path = _write(tmp_path / "train.jsonl", [*good, row])
    res = scan.audit(str(path), tokenizer=str(toks[template]), max_length=512)
    flagged = outcome is not None
    assert res.non_text_rows == int(flagged)
    assert res.non_text_outcomes == ({outcome: 1} if flagged else {})
    assert res.samples == 3 + int(sample) and res.malformed == int(not sample)
    if flagged:
        (ex,) = res.non_text_examples
        assert ex["line"] == 4 and ex["values"] == named
        assert ex["SpecForge"] == scan.NON_TEXT_OUTCOMES[outcome]
        assert any(n.startswith("1 row(s) have a message whose value or content is not text") for n in res.notes)
        assert dict(res.summary_rows())["rows with a non-text value"] == 1
    else:
        assert not res.non_text_examples and not any("is not text" in n for n in res.notes)
    if not sample:
        assert res.malformed_examples[0]["line"] == 4
        assert "SpecForge" in res.malformed_examples[0]["reason"]


@pytest.mark.parametrize("value", [0, False, [], {}, 0.0])
def test_a_falsy_value_is_an_empty_turn_as_specforge_makes_it(value: Any) -> None:
    # specforge 0.2.0 data/parse.py Parser._normalize_message: content = message.get("content") or
    # message.get("value") or ""
    conv = cm.normalize(_sg(("human", "q"), ("gpt", value)), "sharegpt")
    assert conv.turns == [("user", "q"), ("assistant", "")]


# --------------------------------------------------------------------------- duplicates ignoring whitespace


def _q(text: str, answer: str = "An answer.") -> dict:
    return _sg(("human", text), ("gpt", answer))


BASE = "Question 7: please explain python asyncio for case 123."
WALK_T = "  " + BASE.replace(" ", "  ") + "\n"  # walk T's planted near-duplicates

# (case, rows, exact duplicates, duplicates ignoring whitespace, (line, same as) of each whitespace-only one)
WS_CASES: list[tuple[str, list[dict], int, int, list[tuple[int, int]]]] = [
    ("walk T: doubled spaces, leading blanks, a trailing newline", [_q(BASE), _q(WALK_T)], 0, 1, [(2, 1)]),
    ("an exact duplicate counts in both", [_q(BASE), _q(BASE)], 1, 1, []),
    ("tabs and newlines inside", [_q("a b c"), _q("a\tb\n\nc")], 0, 1, [(2, 1)]),
    ("in the answer too", [_q("q", "one two"), _q("q", " one   two ")], 0, 1, [(2, 1)]),
    ("different words are not", [_q("a b"), _q("a c")], 0, 0, []),
    ("whitespace is collapsed, not removed", [_q("ab"), _q("a b")], 0, 0, []),
    ("ASCII whitespace only: a no-break space is text", [_q("a b"), _q("a\u00a0b")], 0, 0, []),
    ("a carriage return and a form feed", [_q("a b"), _q("a\r\n\x0cb ")], 0, 1, [(2, 1)]),
    (
        "the turns still have their roles",
        [_sg(("human", "x"), ("gpt", "y")), _sg(("human", "x y"), ("gpt", ""))],
        0,
        0,
        [],
    ),
    ("three copies", [_q(BASE), _q(WALK_T), _q(BASE + " ")], 0, 2, [(2, 1), (3, 1)]),
    ("an exact copy and a spaced one", [_q(BASE), _q(BASE), _q(WALK_T)], 1, 2, [(3, 1)]),
]


@pytest.mark.parametrize(("case", "rows", "exact", "spaced", "examples"), WS_CASES, ids=[c[0] for c in WS_CASES])
def test_duplicates_ignoring_whitespace(
    tmp_path: Path,
    toks: dict[str, Path],
    case: str,
    rows: list[dict],
    exact: int,
    spaced: int,
    examples: list[tuple[int, int]],
) -> None:
    path = _write(tmp_path / "train.jsonl", rows)
    res = scan.audit(str(path), tokenizer=str(toks["prints"]))
    assert res.duplicates == exact
    assert res.whitespace_duplicates == spaced
    assert [(e["line"], e["same_as"]) for e in res.whitespace_duplicate_examples] == examples
    table = dict(res.summary_rows())
    assert table["exact duplicates"] == exact and table["duplicates ignoring whitespace"] == spaced


def test_whitespace_duplicates_merge_across_blocks() -> None:
    """The Ray path merges per-block tallies: the count is the same as one pass."""
    from comparelib.audit.sources import Source
    from comparelib.audit.tokens import load_tokenizer

    bundle = load_tokenizer(None)
    rows = [_q(BASE), _q("other"), _q(WALK_T), _q(BASE), _q("  other ")]
    whole = scan.Tally(100, 0)
    blocks = [scan.Tally(100, 0), scan.Tally(100, 0)]
    load = json.loads
    for line, row in enumerate(rows, start=1):
        whole.check(line, json.dumps(row), "sharegpt", bundle, load)
        blocks[line > 2].check(line, json.dumps(row), "sharegpt", bundle, load)
    merged = scan.Tally(100, 0)
    for block in reversed(blocks):  # blocks arrive in any order
        merged.merge(block)
    src = Source(name="x", iterate=lambda: iter(()))
    one = scan.finish(whole, src, bundle, "sharegpt", 2048, notes=[], elapsed=0.0)
    two = scan.finish(merged, src, bundle, "sharegpt", 2048, notes=[], elapsed=0.0)
    assert (one.duplicates, one.whitespace_duplicates) == (two.duplicates, two.whitespace_duplicates) == (1, 3)
    assert (
        one.whitespace_duplicate_examples
        == two.whitespace_duplicate_examples
        == [
            {"line": 3, "same_as": 1},
            {"line": 5, "same_as": 2},
        ]
    )


# --------------------------------------------------------------------------- walk T's set in small: CLI and page


def _walk_rows() -> list[Any]:
    rows: list[Any] = [
        _q(f"Question {i}: please explain topic {i} for case {i * 7}.", f"Answer {i}.") for i in range(300)
    ]
    for j in range(6):  # walk T's ns rows: a number asked, a list or null answered
        rows.insert(40 * j + 5, _sg(("human", 12345 + j), ("gpt", ["a", "list"] if j % 2 else None)))
    for j in range(4):  # whitespace-only copies
        src = rows[20 + j * 50]
        spaced = json.loads(json.dumps(src))
        spaced["conversations"][0]["value"] = "  " + spaced["conversations"][0]["value"].replace(" ", "  ") + "\n"
        rows.append(spaced)
    rows += [rows[100], rows[101]]  # exact copies
    rows.insert(7, "this line is not json at all")
    return rows


@pytest.fixture(scope="module")
def walk_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write(tmp_path_factory.mktemp("walkt") / "train.jsonl", _walk_rows())


def test_walk_t_in_small(walk_file: Path, toks: dict[str, Path]) -> None:
    res = scan.audit(str(walk_file), tokenizer=str(toks["ling"]))
    assert res.non_text_rows == 6 and res.non_text_outcomes == {"fallback": 6}
    assert res.samples == 312 and res.malformed == 1  # the six are trained (SpecForge's fallback), so samples
    assert res.duplicates == 2 and res.whitespace_duplicates == 6


def test_the_cli_prints_both_counts(
    walk_file: Path, toks: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.fixtures import cli_in_process

    out = cli_in_process(capsys, "audit", str(walk_file), "--tokenizer", str(toks["ling"]))
    assert out.returncode == 0, out.stderr
    lines = [line.split() for line in out.stdout.splitlines()]
    assert ["exact", "duplicates", "2"] in lines
    assert ["duplicates", "ignoring", "whitespace", "6"] in lines
    assert ["rows", "with", "a", "non-text", "value", "6"] in lines
    assert "note: 6 row(s) have a message whose value or content is not text" in out.stdout
    js = cli_in_process(capsys, "audit", str(walk_file), "--tokenizer", str(toks["ling"]), "--json")
    got = json.loads(js.stdout)
    assert got["whitespace_duplicates"] == 6 and got["duplicates"] == 2
    assert got["non_text_rows"] == 6 and got["non_text_outcomes"] == {"fallback": 6}


def test_the_page_shows_both(walk_file: Path, toks: dict[str, Path]) -> None:
    at = page_app(PAGE, timeout=120).run()
    at.text_input(key="audit_source").set_value(str(walk_file))
    at.text_input(key="audit_tokenizer").set_value(str(toks["ling"]))
    at.button(key="audit_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    labels = {m.label: m.value for m in at.metric}
    assert labels["Exact duplicates"] == "2"
    assert labels["Duplicates ignoring whitespace"] == "6"
    assert labels["Rows with a non-text value"].startswith("6 (")
    frames = [d.value for d in at.dataframe]
    values = next(f for f in frames if "values" in f.columns)
    assert list(values["line"])[:2] == ["6", "47"]
    assert "SpecForge" in values.columns
    dups = next(f for f in frames if "same as" in f.columns)
    assert "whitespace only" in set(dups["kind"])
    said = [c.value for c in at.caption]
    assert sum("value or content is not text" in c for c in said) == 1, said
