"""Walk Z with a DeepSeek-V3 target: the target's own MTP layers measured in your run group.

The user's EAGLE-3 draft names deepseek-ai/DeepSeek-V3 in its model card's base_model (as in test_walk_z_card);
its run group holds a baseline, three runs of the draft and an SGLang NEXTN run (the target's own MTP layers).

1. Overview said nothing of the MTP run but "1 run of another draft left out: #3 MTP (NEXTN)", though it measured
   125.0 tok/s (1.60x over baseline #1) against the draft's best 96.1 tok/s (1.23x) at the same batch and engine.
   Overview, the CLI's ``overview`` and the plan's "Served now" now say it, from one function
   (``overview.native_mtp``); a slower MTP run gets one short clause; a group without one, nothing.
(The sweep chart's MTP line split by request count is test_walk_z_card's.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from comparelib.analysis import overview
from tests.fixtures import aq_config, bench_config, bench_store, cli_in_process, page_app, page_text

TARGET = "deepseek-ai/DeepSeek-V3"
GROUP = "walkz-dsv3"


def _draft_folder(tmp_path: Path) -> Path:
    """The user's EAGLE-3 draft for DeepSeek-V3: a raw config naming no target, a card whose base_model names it."""
    folder = tmp_path / "my-dsv3-eagle3"
    folder.mkdir()
    config = aq_config()
    config["vocab_size"] = 129280  # DeepSeek-V3's vocabulary
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "README.md").write_text(f"---\nbase_model: {TARGET}\nlibrary_name: sglang\n---\n# mine\n")
    return folder


def _put(
    folder: Path, steps: int | None, tok_s: float, al: float | None, *, mtp: bool = False, batch: int = 1,
    requests: int = 8, prompts: str = "bundled",
) -> int:  # fmt: skip
    """One run stored as the Live benchmark page stores it: SGLang serving DeepSeek-V3, with your draft, with its
    own MTP layers (NEXTN, the target as its draft), or none (a baseline)."""
    store = bench_store()
    draft = (TARGET if mtp else str(folder)) if steps else None
    config = bench_config(
        "sglang", TARGET, steps, draft=draft, topk=1 if steps else None, ndt=steps + 1 if steps else None
    )
    if mtp:
        config["speculative_algorithm"] = "NEXTN"
    params = {"concurrency": batch, "requests": requests, "max_tokens": 256, "prompt_set": prompts}
    rid = store.start_run(endpoint="http://sglang:30000", server_config=config, group=GROUP, params=params)
    summary: dict[str, Any] = {"requests": requests, "errors": 0, "output_tokens_per_s": tok_s}
    if al is not None:
        summary["accept_length"] = al
    store.finish_run(rid, summary)
    return rid


def _walk_z(folder: Path, mtp: dict[str, Any] | None) -> None:
    """#1 baseline (78.1 tok/s), #2, #4, #5 your draft at num_steps 1, 2, 3 (#5: 96.1 tok/s, 1.23x); #3 the
    target's MTP (``mtp``: its tok/s and settings; None: a fourth run of your draft instead); #6 a baseline at
    the MTP run's settings where they are not #1's."""
    assert _put(folder, None, 78.1, None) == 1
    _put(folder, 1, 88.0, 1.9)
    if mtp is None:
        _put(folder, 4, 94.0, 3.1)
    else:
        _put(folder, 3, mtp["tok_s"], 3.64, mtp=True, batch=mtp.get("batch", 1), prompts=mtp.get("prompts", "bundled"))
    _put(folder, 2, 93.0, 2.5)
    assert _put(folder, 3, 96.1, 2.9) == 5
    if mtp is not None and "base" in mtp:
        _put(folder, None, mtp["base"], None, batch=mtp.get("batch", 1), prompts=mtp.get("prompts", "bundled"))


FASTER = (
    "The target's own MTP layers were measured faster than your draft: run #3 (SGLang MTP (NEXTN), batch 1, "
    "num_steps 3) at 125.0 tok/s (1.60x over baseline #1) against your best run #5 (SGLang EAGLE-3, batch 1, "
    "num_steps 3) at 96.1 tok/s (1.23x over baseline #1), at the same engine, batch and benchmark settings."
)
OTHER_BATCH = (
    "The target's own MTP layers were measured with a larger speedup than your draft: run #3 (SGLang MTP (NEXTN), "
    "batch 8, num_steps 3) at 700.0 tok/s (1.60x over baseline #6) against your best run #5 (SGLang EAGLE-3, batch 1, "
    "num_steps 3) at 96.1 tok/s (1.23x over baseline #1); settings differ (batch 8 against 1)"
)
SLOWER = (
    "The target's own MTP layers measured slower than your draft: run #3 at 80.0 tok/s against your run #5 at 96.1"
)

# (case, the MTP run (None: none in the group), what Overview says of it, how (a warning, or a caption), the verdict)
CASES = [
    pytest.param({"tok_s": 125.0}, FASTER, "warning", "faster", id="mtp-faster-same-setting"),
    pytest.param({"tok_s": 700.0, "batch": 8, "base": 437.5}, OTHER_BATCH, "warning", "faster", id="mtp-other-batch"),
    pytest.param({"tok_s": 80.0}, SLOWER, "caption", "slower", id="mtp-slower"),
    pytest.param(None, None, None, None, id="no-mtp-run"),
]


@pytest.mark.parametrize(("mtp", "said", "kind", "verdict"), CASES)
def test_the_targets_own_mtp_is_set_against_your_draft(
    tmp_path: Path, mtp: dict[str, Any] | None, said: str | None, kind: str | None, verdict: str | None
) -> None:
    folder = _draft_folder(tmp_path)
    _walk_z(folder, mtp)
    at = page_app("pages/overview.py", timeout=90)
    at.query_params["draft"] = str(folder)
    at.query_params["draft_group"] = GROUP
    at.run()
    assert not at.exception, at.exception
    text = page_text(at)
    warnings = "\n".join(w.value for w in at.warning)
    if said is None:
        assert "own MTP layers were measured" not in text and "own MTP layers measured" not in text, text
    else:
        assert said in text, text
        assert (said in warnings) is (kind == "warning"), warnings
    if verdict == "faster":  # the MTP run is compared, not only "left out" as another draft's
        assert "run of another draft left out: #3 MTP (NEXTN)" not in text, text
    # the one function the page, the CLI and the plan read
    found = overview.native_mtp(bench_store().runs(group=GROUP), str(folder))
    assert (found.verdict if found is not None else None) == verdict, found


@pytest.mark.parametrize(("mtp", "said", "kind", "verdict"), CASES[:1] + CASES[2:3])
def test_the_cli_overview_and_the_plan_say_what_overview_says(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    mtp: dict[str, Any],
    said: str,
    kind: str,
    verdict: str,
) -> None:
    folder = _draft_folder(tmp_path)
    _walk_z(folder, mtp)
    proc = cli_in_process(capsys, "overview", str(folder), "--group", GROUP, "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    notes = {n["text"]: n["kind"] for n in out["notes"]}
    hit = [t for t in notes if said in t]
    assert hit and notes[hit[0]] == kind, notes
    assert out["native_mtp"]["verdict"] == verdict and out["native_mtp"]["mtp_run_id"] == 3, out["native_mtp"]
    assert out["native_mtp"]["your_run_id"] == 5, out["native_mtp"]
    # the plan's "Served now" (batch 1, what every gain is against) says it where the MTP run is faster
    proc = cli_in_process(capsys, "plan", str(folder), "--group", GROUP)
    assert proc.returncode == 0, proc.stderr
    served = next(line for line in proc.stdout.splitlines() if line.startswith("Served now at batch 1"))
    assert (said in served) is (verdict == "faster"), served
    if verdict == "faster":  # Overview's plan lead (what to do) names it too, in short
        assert "own MTP layers were measured faster" in (out["plan"]["lead"] or ""), out["plan"]
