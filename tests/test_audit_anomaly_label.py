"""The dataset audit's anomaly count names what it counts: rows with any anomaly, not only role-order ones.

The Llama-3.3-70B walk's only anomaly was ``tools_not_counted`` (a legacy ``function_call`` message), yet the
page showed "Role-order anomalies 1" and the CLI "role-order anomaly rows 1".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fixtures import page_app, run_cli

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "audit.py")


def _row(i: int, extra: dict | None = None) -> str:
    return json.dumps(
        {
            "id": str(i),
            "messages": [
                {"role": "user", "content": f"question {i}?"},
                {"role": "assistant", "content": "an answer", **(extra or {})},
            ],
        }
    )


# (case, rows, the anomaly kinds expected, anomaly rows): every kind is counted under one neutral label
CASES = [
    ("tools only (the walk)", [_row(0, {"function_call": {"name": "f", "arguments": "{}"}}), _row(1)],
     {"tools_not_counted": 1}, 1),
    ("role order", [json.dumps({"messages": [{"role": "assistant", "content": "hi"}]}), _row(1)],
     {"starts_without_user": 1}, 1),
    ("none", [_row(0), _row(1)], {}, 0),
]  # fmt: skip


@pytest.mark.parametrize(("case", "rows", "kinds", "count"), CASES, ids=[c[0] for c in CASES])
def test_cli_labels_the_count_anomaly_rows(
    tmp_path: Path, case: str, rows: list[str], kinds: dict[str, int], count: int
) -> None:
    path = tmp_path / "train.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    proc = run_cli("audit", str(path))
    assert proc.returncode == 0, proc.stderr
    lines = {line.split("  ")[0].strip(): line.split()[-1] for line in proc.stdout.splitlines() if "  " in line}
    assert lines["anomaly rows"] == str(count)
    assert not any("role-order" in line for line in proc.stdout.splitlines())
    for kind, n in kinds.items():
        if n:
            assert lines[f"anomaly {kind}"] == str(n)


def test_page_metric_reads_anomaly_rows(tmp_path: Path) -> None:
    path = tmp_path / "train.jsonl"
    path.write_text("\n".join(CASES[0][1]) + "\n", encoding="utf-8")
    at = page_app(PAGE, timeout=60).run()
    at.text_input(key="audit_source").set_value(str(path))
    at.button(key="audit_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    labels = {m.label: m.value for m in at.metric}
    assert labels.get("Anomaly rows") == "1"
    assert not any("role-order" in label.lower() for label in labels)
