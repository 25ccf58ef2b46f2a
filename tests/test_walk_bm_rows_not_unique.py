"""Walk BM 3: the plan's "More training data" row called an attached audit's rows trained on (duplicates kept)
"unique samples" ("144,000 unique samples at 1.7 epochs", where the audit counted 13,840 unique rows). Which count
was attached is stored with it (``values.VOLUME_TRAINED`` / ``VOLUME_UNIQUE``); the row now names the one it has."""

from __future__ import annotations

from dataclasses import replace

import pytest

from comparelib.analysis import plan
from comparelib.values import VOLUME_TRAINED, VOLUME_UNIQUE
from tests.test_plan_samples_seen import _inputs, _more, _with_log

CASES = [
    # the attached volume's source, the noun the row must use, a noun it must not use
    # as ``Draft.training_samples`` says an attached audit's volume
    (
        f"attached from Dataset audit as acme/chats: {VOLUME_TRAINED}",
        "samples (rows trained on, duplicates kept) at 10 epochs",
        "unique samples at",
    ),
    (f"attached from Dataset audit as acme/chats: {VOLUME_UNIQUE}", "unique samples at 10 epochs", "rows trained on"),
    ("typed in the sidebar", "unique samples at 10 epochs", "rows trained on"),
]


@pytest.mark.parametrize(("source", "said", "not_said"), CASES)
def test_the_more_data_row_names_what_the_attached_volume_counts(source: str, said: str, not_said: str) -> None:
    inputs = replace(_with_log(_inputs(4960.0), 2.46, 3000.0), own_samples_source=source)
    result = plan.build(inputs, target_al=3.0)
    assert result.cost["epochs"] == pytest.approx(10.0)
    note = _more(result).note or ""
    assert said in note, note
    assert not_said not in note, note
    assert not_said not in result.cost["epochs_source"], result.cost["epochs_source"]
