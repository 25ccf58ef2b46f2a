"""Walk AT (minor): the audit's "turns 20,028" counted the 20 system prompts of 5,000 rows among 20,008 user and
assistant turns. The figure counts every message, and is named so."""

from __future__ import annotations

import json
from pathlib import Path

from comparelib.audit.scan import audit


def test_the_message_count_names_system_prompts(tmp_path: Path) -> None:
    rows = [
        {"conversations": [{"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": f"a{i}"}]}
        for i in range(4)
    ]
    rows[0]["conversations"].insert(0, {"role": "system", "content": "be brief"})
    path = tmp_path / "train.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    summary = dict(audit(str(path)).summary_rows())
    assert summary["messages (system prompts included)"] == 9
    assert "turns" not in summary
