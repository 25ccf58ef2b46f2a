"""The plan's more-data row where the fit puts the target at or below your volume (walk BJ, 3).

With ``registry:lmsys/SGLang-EAGLE3-Qwen3-Coder-30B-A3B-Instruct-SpecForge`` pasted as your draft (1.4M published
samples, no run of it), the pooled trend puts the target 2.64 (Nex's GSM8K) at about 772K samples (691K since walk BX 1
put lightseekorg's phase-1 figures at their own 300K samples), and the row said
"at or below your 1,400,000 samples: the target may already be in reach at your volume" while costing retraining on
your volume ("samples needed about 1.4M (1.4M..unbounded)", "GPU-hours 26 (generation 0.0 ..., training 26)", 47 TB),
and Overview's lead said "Ranked first: More training data". Now the row claims no gain or cost, as "Target already
met" does, and the lead does not rank it first.
"""

from __future__ import annotations

import json

import pytest

from tests.fixtures import cli_in_process, page_app, page_text

DRAFT = "lmsys/SGLang-EAGLE3-Qwen3-Coder-30B-A3B-Instruct-SpecForge"
SAID = (
    "puts the target 2.64 (lmsys/SGLang-EAGLE3-Qwen3-30B-A3B-Instruct-2507-SpecForge-Nex's published GSM8K AL at "
    "(3,1,4)) at about 691K samples, at or below your 1,400,000 samples: more training data is not what the trend "
    "asks for, so no gain or cost is claimed. No run of your draft measured acceptance at (3,1,4) to say whether it "
    "reaches the target there."
)
LEAD = "More training data (same draft, same recipe): not what the fit asks for, as it puts the target at or below"


def test_plan_json_row_claims_no_samples_gain_or_cost(capsys: pytest.CaptureFixture[str]) -> None:
    done = cli_in_process(capsys, "plan", f"registry:{DRAFT}", "--json")
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    row = next(o for o in plan["options"] if o["kind"] == "more-data")
    note = " ".join(row["note"].split())
    assert SAID in note, note
    assert "may already be in reach" not in note and "Offline storage" not in note, note
    # (field, what it was before the fix): every figure of the row is now empty
    for field, got in [
        ("samples_needed", row["samples_needed"]),
        ("gain_tok_s", row["gain_tok_s"]),
        ("al", row["al"]),
        ("training GPU-hours", (row["gpu_hours"]["training"] or {}).get("value")),
        ("storage TB", (row["storage_tb"] or {}).get("value")),
    ]:
        assert not got, (field, got)
    assert plan["current"]["target_in_reach_by_trend"] == pytest.approx(691_332, rel=0.01)


@pytest.mark.parametrize(
    ("command", "present", "absent"),
    [
        ("plan", SAID, "samples needed"),
        ("overview", LEAD, "Ranked first: More training data"),
    ],
)
def test_cli_says_it_and_does_not_rank_it_first(
    command: str, present: str, absent: str, capsys: pytest.CaptureFixture[str]
) -> None:
    done = cli_in_process(capsys, command, f"registry:{DRAFT}")
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert present in text, text
    assert absent not in text, text
    assert "GPU-hours on" not in text and "47.0 TB" not in text, text


def test_overview_page_lead() -> None:
    at = page_app("../pages/overview.py", timeout=120)
    at.query_params["draft"] = f"registry:{DRAFT}"
    at.run()
    assert not at.exception, at.exception
    text = " ".join(page_text(at).split())
    assert LEAD in text, text
    assert "Ranked first: More training data" not in text, text
    assert "the target may already be in reach at your volume" not in text, text
