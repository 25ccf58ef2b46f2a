"""The page's headline reads the training log with the inputs on screen, whatever order they were typed in (walk AM).

Walk AM typed the log's path, then "Samples per logged step" 64: the verdict box said "peaked at 2.70 at 461K
samples seen ... by 691K samples seen", while the headline above it (What more data would buy) said "peaked at 2.70
at 7.2K steps and fell 0.23 to 2.47 by 11K steps ... Keep the checkpoint at 7.2K steps": it read the curve the
previous run had remembered, before the batch size. Typed the other way round it was right. "11K steps" also named
step 10,800, a step that is not in the log.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from comparelib import cli
from comparelib.analysis import curves
from tests.fixtures import page_app

PEAK_SAMPLES = "peaked at 2.70 at 461K samples seen and fell 0.23 to 2.47 by 691K samples seen"


def _walk_am_log(path: Path) -> Path:
    """Walk AM's SpecForge console log (its make_log.py): train acceptance keeps rising over 11,700 steps, eval
    (every 900 steps) peaks at step 7,200 and falls to step 10,800; no samples recorded (batch_size 64)."""
    random.seed(3)
    lines = [
        "Namespace(target_model_path='Qwen/Qwen3.5-397B-A17B', batch_size=64, num_epochs=3, max_length=4096, "
        "ttt_length=7)"
    ]

    def accs(base: float) -> list[float]:
        return [max(0.05, min(0.97, base * (0.93**k))) for k in range(7)]

    total = 11700
    for step in range(200, total + 1, 200):
        x = step / total
        tr = 0.55 + 0.30 * (1 - math.exp(-4 * x)) + 0.06 * x
        a = accs(tr + random.uniform(-0.004, 0.004))
        lines.append(
            f"step {step}: {{"
            + ", ".join(f"'train/acc_{i}': {v:.4f}" for i, v in enumerate(a))
            + ", 'train/loss': 1.2}"
        )
        if step % 900 == 0:
            ev = (
                0.52 + 0.27 * (1 - math.exp(-5 * x))
                if x < 0.6
                else 0.52 + 0.27 * (1 - math.exp(-3)) - 0.20 * (x - 0.6)
            )
            a = accs(ev)
            lines.append(f"step {step}: {{" + ", ".join(f"'eval/acc_{i}': {v:.4f}" for i, v in enumerate(a)) + "}")
    path.write_text("\n".join(lines) + "\n")
    return path


def _lead(at: AppTest) -> str:
    """The headline's lead: the answer block's bold first line (the trend's sentence follows on the next)."""
    return next(m.value for m in at.markdown if m.value.startswith("**Your training log")).split("  \n")[0]


def _verdict_box(at: AppTest) -> str:
    return next(m.value for m in at.markdown if "trending_down: overfitting]**" in m.value)


def _page() -> AppTest:
    at = page_app("../pages/scaling.py", timeout=120)
    at.session_state["sc_tab"] = "Learning curve"
    at.run()
    return at


@pytest.mark.parametrize("path_first", [True, False], ids=["path-then-batch", "batch-then-path"])
def test_the_headline_reads_the_log_with_the_batch_size_on_screen(tmp_path: Path, path_first: bool) -> None:
    log = str(_walk_am_log(tmp_path / "specforge_train.log"))
    at = _page()
    first, second = (("lc_path", log), ("lc_batch", 64)) if path_first else (("lc_batch", 64), ("lc_path", log))
    for key, value in (first, second):  # one input a run, as a browser commits them
        if key == "lc_path":
            at.text_input(key=key).input(value)
        else:
            at.number_input(key=key).set_value(value)
        at.run()
        assert not at.exception, at.exception
    box, lead = _verdict_box(at), _lead(at)
    assert PEAK_SAMPLES in box, box
    assert f"is overfitting: eval tau_sim {PEAK_SAMPLES}" in lead, lead
    assert "Keep the checkpoint at 461K samples seen" in lead and " steps" not in lead, lead
    # Overview reads the curve this page remembered: the same reading
    remembered = at.session_state["_own_curve"]["example:own-kimi-k2.5-draft"]
    assert remembered.peak is not None
    assert (remembered.peak.x, remembered.peak.unit) == (460_800, "samples seen")


def test_the_batch_size_cleared_again_reads_steps_in_the_headline(tmp_path: Path) -> None:
    """Back to 0 (no batch size): the headline is in steps at once, and names the steps the log has."""
    log = str(_walk_am_log(tmp_path / "specforge_train.log"))
    at = _page()
    at.number_input(key="lc_batch").set_value(64)
    at.text_input(key="lc_path").input(log)
    at.run()
    at.number_input(key="lc_batch").set_value(0)
    at.run()
    assert not at.exception, at.exception
    lead, box = _lead(at), _verdict_box(at)
    for text in (lead, box):
        assert "peaked at 2.70 at 7.2K steps and fell 0.23 to 2.47 by 10.8K steps" in text, text
        assert "samples seen" not in text.split("tau_sim over")[0], text


def test_the_cli_says_what_the_page_says(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = str(_walk_am_log(tmp_path / "specforge_train.log"))
    assert cli.main(["curve", log, "--batch-size", "64", "--steps", "3"]) == 0
    assert PEAK_SAMPLES in capsys.readouterr().out
    assert "by 10.8K steps" in curves.curve([log], steps=3).sentence


def test_a_cleared_path_takes_the_log_out_of_the_headline_and_overview(tmp_path: Path) -> None:
    """No log named any more: the tab asks for one, and neither the headline nor Overview reads the one cleared."""
    log = str(_walk_am_log(tmp_path / "specforge_train.log"))
    at = _page()
    at.text_input(key="lc_path").input(log)
    at.run().run()  # twice: the page before this fix read the log into its headline one run late
    assert _lead(at)
    at.text_input(key="lc_path").input("")
    at.run()
    assert not at.exception, at.exception
    assert "Upload a training log or give a path" in " ".join(c.value for c in at.caption)
    assert not [m.value for m in at.markdown if m.value.startswith("**Your training log")]
    assert "example:own-kimi-k2.5-draft" not in at.session_state["_own_curve"]
