"""A published draft pasted as yours: its own published figure at the target's chain meets the target (walk BG, 1).

With ``registry:lmsys/SGLang-EAGLE3-Qwen3-Next-80B-A3B-Instruct-FP8-SpecForge`` as your draft (no runs, no volume),
Overview's plan said "Ranked first: More training data ... reaches the target 2.64 ... at about 772K samples;
GPU-hours 32; 25.9 TB", and Acceptance vs data "To reach 2.64 ... you need about 1.1M samples", while the same
Overview listed the draft's own published GSM8K 3.13 at steps=3,topk=1,draft=4,bs=8,sglang: the target's benchmark
and chain, 0.49 above it.
"""

from __future__ import annotations

import pytest

from tests.fixtures import cli_in_process, page_app, page_text

DRAFT = "lmsys/SGLang-EAGLE3-Qwen3-Next-80B-A3B-Instruct-FP8-SpecForge"


def test_the_plan_says_the_target_is_met_by_the_published_figure(capsys: pytest.CaptureFixture[str]) -> None:
    done = cli_in_process(capsys, "plan", f"registry:{DRAFT}")
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert "target AL 2.64 at 3 steps" in text, text
    assert (
        f"Target already met by {DRAFT}'s published figure: it publishes AL 3.13 on GSM8K at "
        "steps=3,topk=1,draft=4,bs=8,sglang, at or above the target 2.64" in text
    ), text
    assert "samples needed" not in text.split("2. [")[0], text  # no samples or cost for the first row
    over = cli_in_process(capsys, "overview", f"registry:{DRAFT}")
    assert over.returncode == 0, over.stderr
    said = " ".join(over.stdout.split())
    assert "Ranked first: More training data" not in said, said
    assert "The target is already met: More training data (same draft, same recipe) is not needed to reach it." in said


def test_acceptance_vs_data_says_the_draft_already_meets_the_target() -> None:
    at = page_app("../pages/scaling.py", timeout=90)
    at.query_params["draft"] = f"registry:{DRAFT}"
    at.run()
    assert not at.exception, at.exception
    assert (
        f"{DRAFT} already meets the target 2.64 by its own published figure: it publishes AL 3.13 on GSM8K at "
        "steps=3,topk=1,draft=4,bs=8,sglang" in page_text(at)
    ), page_text(at)
