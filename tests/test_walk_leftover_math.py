"""Leftover audit findings: the math guess and the trained volume's words.

1. The domain guess called a row "math" on a bare word ("equation", "solve for", "theorem", "integral",
   "derivative", "probability"), the way it called one "code" on "function " before 0c63645: ordinary chat about
   the probability of rain or the equation of supply and demand came out "math". Math now needs math: LaTeX
   (``\\frac``, ``\\boxed{``, ``\\(...\\)``, ``$...$`` with math inside), an equation with digits and operators, a
   power like ``x^2`` or a GSM8K ``#### 42`` answer line.
2. The rows trained on were said to keep "exact duplicates", while they keep every copy, rows that differ from
   another only in whitespace included: the words say "duplicates kept", and the attach sentence counts both.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from comparelib import values
from comparelib.audit import result as auditresult
from comparelib.audit import scan
from tests.tokenizer_fixture import build_tokenizer

# --- 1. math needs math --------------------------------------------------------------------------------

MATH_CASES = [
    # prose that uses math words (or signs that are not math) is not math
    ("What is the probability that it rains tomorrow? The forecast says there is a good chance.", "other"),
    ("The equation of supply and demand shapes every market; solve for the best outcome with your team.", "other"),
    ("Pythagoras' theorem is taught in school, and the theorem is named after him.", "other"),
    ("Integrity is an integral part of leadership; the derivative works of the novel sold well.", "other"),
    ("Use the integral and derivative rules from class, and reread the probability chapter.", "other"),
    ('He said the equation "love = trust" sums up a marriage.', "other"),
    ("On a scale of 1-10, how would you rate the film? 1 = awful, 10 = superb.", "other"),
    ("Tickets cost $5 to $10, and dinner is $$ (moderate) at $20 and $30.", "other"),
    ("Prices went from $5-$7 to $8+$2 fees.", "other"),
    ("#### Step 2: install the package\nRun the installer.", "other"),
    ("Open https://example.com/search?q=3&page=2 to see the results.", "other"),
    ("The files are in C:\\internal\\summary\\notes.txt on the share.", "other"),
    ("See you at 10:30 ^_^", "other"),
    # real math
    ("Solve 3x + 2 = 11.\nSubtract 2: 3x = 9, so x = 3.", "math"),
    ("If x^2 = 49, what is x?", "math"),
    ("Natalia sold 48/2 = <<48/2=24>>24 clips in May.\nShe sold 48+24 = <<48+24=72>>72 clips.\n#### 72", "math"),
    ("Adding the three amounts gives the total.\n#### 1,250", "math"),
    ("Let $x$ be the number of apples Tom has.", "math"),
    ("For a right triangle, $a^2 + b^2 = c^2$.", "math"),
    ("The area of a circle is \\(\\pi r^2\\).", "math"),
    ("\\[ \\int_0^1 x \\, dx = \\tfrac{1}{2} \\]", "math"),
    ("So the total is \\boxed{42}.", "math"),
    ("$$\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}$$", "math"),
    ("The sum is\n$$ a + b $$\nfor any two numbers.", "math"),
    ("Find the derivative of f(x) = x\u00b2 + 3x.", "math"),
    ("Two sixes: P = 1/6 \u00d7 1/6 = 1/36.", "math"),
    ("Compute 3 + 4 = 7", "math"),
    ("\\frac{1}{2}", "math"),
    # code still comes first
    ("```python\nprob = 1 / 6\n```", "code"),
]


@pytest.mark.parametrize(("text", "domain"), MATH_CASES)
def test_math_needs_math_evidence(text: str, domain: str) -> None:
    assert scan.domain_of(text) == domain


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _chat(user: str, answer: str) -> dict:
    return {"messages": [{"role": "user", "content": user}, {"role": "assistant", "content": answer}]}


@pytest.fixture(scope="module")
def tok(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tokenizer(tmp_path_factory.mktemp("tok") / "chatml")


def test_chat_rows_that_say_probability_are_not_counted_as_math(tmp_path: Path, tok: Path) -> None:
    rows = [
        _chat(f"What is the probability of rain on day {i}?", f"The equation is simple: day {i} looks dry.")
        for i in range(6)
    ]
    rows += [_chat("Solve 2x + 3 = 11.", "2x = 8, so x = 4. The answer is \\boxed{4}.")]
    res = scan.audit(str(_write(tmp_path / "chat.jsonl", rows)), tokenizer=str(tok))
    assert res.domains == {"code": 0, "math": 1, "cjk": 0, "other": 6}


# --- 2. the rows trained on keep every duplicate ----------------------------------------------------------

OLD_TRAINED = "rows trained on, with exact duplicates kept and rows with no supervised token left out"


def test_trained_volume_words_say_duplicates_kept_not_only_exact_ones() -> None:
    assert "exact duplicates kept" not in values.VOLUME_TRAINED
    assert "duplicates kept" in values.VOLUME_TRAINED
    assert auditresult.VOLUME_TRAINED == values.VOLUME_TRAINED
    # a volume stored with the old words counts the same rows (every copy): it reads as the words now say it
    assert values.volume_words(f"/data/chat.jsonl ({OLD_TRAINED})") == values.VOLUME_TRAINED
    assert values.volume_words(f"/data/chat.jsonl ({values.VOLUME_TRAINED})") == values.VOLUME_TRAINED


ROWS = [
    _chat("Tell me about cats.", "Cats are small felines."),
    _chat("Tell me about cats.", "Cats are small felines."),  # exact duplicate of row 1
    _chat("Tell me  about cats.", "Cats are small felines.\n"),  # whitespace-only duplicate of row 1
    _chat("Tell me about dogs.", "Dogs are loyal."),
]


def test_the_attach_sentence_says_whitespace_only_duplicates_are_kept_too(tmp_path: Path, tok: Path) -> None:
    res = scan.audit(str(_write(tmp_path / "train.jsonl", ROWS)), tokenizer=str(tok))
    assert (res.duplicates, res.whitespace_duplicates, res.trained_samples) == (1, 2, 4)
    said = res.volume_sentence()
    assert (
        "the 1 exact duplicates and the 1 rows that differ from an earlier row only in whitespace are kept, "
        "as the trainers train each copy"
    ) in said, said


def test_the_attach_sentence_with_only_whitespace_duplicates(tmp_path: Path, tok: Path) -> None:
    res = scan.audit(str(_write(tmp_path / "train.jsonl", [ROWS[0], ROWS[2], ROWS[3]])), tokenizer=str(tok))
    assert (res.duplicates, res.whitespace_duplicates) == (0, 1)
    said = res.volume_sentence()
    assert "no row is an exact duplicate" not in said, said
    assert "the 1 rows that differ from an earlier row only in whitespace are kept" in said, said
