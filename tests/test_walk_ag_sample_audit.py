"""Walk AG3: a sample audit of a Hub dataset whose split states no row count (so totals are not extrapolated)
reported "Exact duplicates 26" and "Unique usable rows: 974 samples, 194,014 tokens", offered for Attach, as if they
were the split's: the split (3,000 rows) has 240 duplicates (8.0%), and a random third of it finds a duplicate only
where the row it repeats was drawn too, about a third of that rate. The estimate path already said "Unique usable
rows: not counted for an estimate (duplicates are counted in the sample only)"; the sample path now says the same
(not counted, not offered to attach), and labels its duplicates as the sample's, a rate below the split's.

The data here is the walk's shape, smaller: 600 rows of which 48 (8.0%) repeat an earlier row, a sample of 200.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures import cli_in_process, page_app

DATASET = "acme/coder-chat"
ROWS, DUPS, SAMPLE = 600, 48, 200


def _rows() -> list[dict[str, Any]]:
    unique = [
        {
            "conversations": [
                {"role": "user", "content": f"Write function number {i}."},
                {"role": "assistant", "content": f"def f{i}():\n    return {i}\n" + "# more\n" * (i % 9)},
            ]
        }
        for i in range(ROWS - DUPS)
    ]
    rows = unique + [dict(unique[i]) for i in range(DUPS)]  # 48 rows repeat an earlier one
    random.Random(7).shuffle(rows)
    return rows


def _add_dataset(hub: Any) -> None:
    body = "".join(json.dumps(r) + "\n" for r in _rows()).encode()
    hub.add_repo(DATASET, {"data/train.jsonl": body}, repo_type="dataset")  # no dataset_info: no row count


@pytest.fixture
def tok(tmp_path: Path) -> Path:
    from tests.tokenizer_fixture import build_tokenizer

    return build_tokenizer(tmp_path / "tok")


def test_the_full_split_counts_its_duplicates(hub: Any, tok: Path) -> None:
    from comparelib.audit.scan import audit

    _add_dataset(hub)
    full = audit(DATASET, tokenizer=str(tok))
    assert full.duplicates == DUPS and full.sample_rows is None
    assert full.unique_volume() is not None and full.unique_volume()["samples"] == ROWS - DUPS  # type: ignore[index]
    assert "Unique usable rows: 552 samples" in full.volume_sentence()


def test_a_sample_counts_duplicates_in_the_sample_and_no_unique_rows(hub: Any, tok: Path) -> None:
    from comparelib.audit.scan import audit

    _add_dataset(hub)
    result = audit(DATASET, tokenizer=str(tok), sample=SAMPLE)
    assert not result.estimated and result.population is None  # the Hub states no row count: not extrapolated
    assert result.sample_rows == SAMPLE and result.sampled
    assert 0 < result.duplicates < DUPS, result.duplicates  # a lower rate than the split's 8%
    # unique usable rows: not counted, as for an estimate, and so not offered to Attach
    assert result.unique_samples is None and result.unique_volume() is None
    said = result.volume_sentence()
    assert "Unique usable rows: not counted for a sample (duplicates are counted in the sample only)" in said, said
    assert f"the {result.duplicates:,} exact duplicates in the sample are kept" in said, said
    note = result.duplicates_note()
    assert note is not None and note in result.notes
    assert note.startswith(f"duplicates are counted within the sample of {SAMPLE:,} rows only"), note
    assert "lower duplicate rate than the whole split" in note, note
    assert ("unique usable samples", None) not in result.summary_rows()


def test_the_cli_json_of_a_sample(hub: Any, tok: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _add_dataset(hub)
    proc = cli_in_process(capsys, "audit", DATASET, "--tokenizer", str(tok), "--sample", str(SAMPLE), "--json")
    assert proc.returncode == 0, proc.stderr
    said = json.loads(proc.stdout)
    assert said["unique_samples"] is None and said["unique_tokens"] is None, said
    assert said["sample_rows"] == SAMPLE
    assert any(
        n.startswith(f"duplicates are counted within the sample of {SAMPLE:,} rows only") for n in said["notes"]
    )

    proc = cli_in_process(capsys, "audit", DATASET, "--tokenizer", str(tok), "--sample", str(SAMPLE))
    assert proc.returncode == 0, proc.stderr
    assert "unique usable samples" not in proc.stdout, proc.stdout
    assert f"note: duplicates are counted within the sample of {SAMPLE:,} rows only" in proc.stdout, proc.stdout


def test_the_page_labels_the_samples_duplicates_and_offers_no_unique_rows(hub: Any, tok: Path) -> None:
    import streamlit as st

    _add_dataset(hub)
    st.cache_data.clear()
    at = page_app("pages/audit.py", timeout=120).run()
    at.text_input(key="audit_source").set_value(DATASET)
    at.text_input(key="audit_tokenizer").set_value(str(tok))
    at.checkbox(key="audit_sample_mode").check()
    at.number_input(key="audit_sample_n").set_value(SAMPLE)
    at.button(key="audit_run").click().run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    labels = {m.label: m.value for m in at.metric}
    assert "Exact duplicates" not in labels, labels
    assert int(labels["Exact duplicates in the sample"]) > 0, labels
    captions = " ".join(c.value for c in at.caption)
    assert f"Note: duplicates are counted within the sample of {SAMPLE:,} rows only" in captions, captions
    assert "Unique usable rows: not counted for a sample" in captions, captions
    assert at.radio(key="audit_attach_what").options == [f"rows trained on ({SAMPLE:,} samples)"]
