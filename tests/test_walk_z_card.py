"""A draft card naming a target whose own MTP layers the registry lists under the target's id is read as naming that
target (walk Z: base_model deepseek-ai/DeepSeek-V3 was taken for a published draft, and every page said the target
was not known)."""

from __future__ import annotations

from typing import Any

import pytest

from comparelib.models.draft import base_model_from_card

CASES = [
    ("deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-V3"),  # a target (its native MTP is listed under its id)
    ("moonshotai/Kimi-K2-Instruct", "moonshotai/Kimi-K2-Instruct"),  # a target
    ("AQ-MedAI/Kimi-K2-Instruct-eagle3", None),  # a published draft: a draft fine-tuned from it names no target
    ("lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge", None),
]


@pytest.mark.parametrize(("base", "target"), CASES)
def test_the_cards_base_model_is_a_target_unless_it_is_a_published_draft(base: str, target: str | None) -> None:
    assert base_model_from_card(f"---\nbase_model: {base}\nlibrary_name: sglang\n---\n# draft\n") == target


def test_a_group_holding_only_the_targets_mtp_is_said_as_such(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk Z: a group holding only the target's MTP run read "attach a run group in the sidebar" (one was) and "no
    speculative run in group ..." (the MTP run is one): your draft has none there."""
    import json

    from tests.fixtures import aq_config, bench_config, bench_store, cli_in_process, store_run

    target = "moonshotai/Kimi-K2-Instruct"
    folder = tmp_path / "my-kimi-draft"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(aq_config()))
    (folder / "README.md").write_text(f"---\nbase_model: {target}\n---\n# mine\n")
    store = bench_store()
    cfg = bench_config("sglang", target, 3, draft=target, topk=1, ndt=4)  # SGLang NEXTN: the target as its draft
    cfg["speculative_algorithm"] = "NEXTN"
    summary = {"requests": 8, "errors": 0, "output_tokens_per_s": 125.0, "accept_length": 3.64}
    store_run(store, cfg, summary, group="mtp-only", concurrency=1, endpoint="http://sglang:8000")
    proc = cli_in_process(capsys, "overview", str(folder), "--group", "mtp-only", "--json")
    assert proc.returncode == 0, proc.stderr
    said = json.dumps(json.loads(proc.stdout))
    assert "attach a run group in the sidebar" not in said, said
    assert "no speculative run of your draft" in said, said
    assert "no speculative run in group" not in said, said


def test_the_acceptance_factor_reads_the_references_figure_at_your_chain() -> None:
    """Walk Z: ours (3.00 at steps=3, topk=1, draft=4, batch 1) was set against MATH500 3.49, a figure whose setting
    the source does not state, while the reference publishes MATH500 3.468 at our chain (bs=8)."""
    from comparelib.analysis import overview

    facts = overview.accept_facts(3.0, "steps=3,topk=1,draft=4,bs=1,sglang", "AQ-MedAI/Kimi-K2-Instruct-eagle3")
    assert dict(facts.by_benchmark)["math500"] == pytest.approx(3.468)
    said = overview.accept_comparison(3.0, facts)
    assert said.startswith("the reference's MATH500 3.47 is 1.16 times our 3.00"), said
    # the range still names every setting it publishes, the unstated one included
    assert [s for s, _, _ in facts.by_setting] == [
        "steps=3,topk=1,draft=4,bs=8,sglang",
        "setting not stated by the source",
    ]


@pytest.mark.parametrize("fmt", ["md", "latex", "csv"])
def test_an_integer_cell_is_rounded_as_the_notes_are(fmt: str) -> None:
    """Walk Z: the plan table said samples_needed 6,163,056 where its note said 6,163,057 (int() cut 6,163,056.6)."""
    import pandas as pd

    from comparelib import export, tables

    frame = pd.DataFrame({"rank": [1], "option": ["more data"], "samples_needed": [6_163_056.6]})
    out = export.render(frame, fmt, table=tables.PLAN)
    assert "6,163,057" in out or "6163057" in out, out
    assert "6,163,056" not in out and "6163056" not in out, out
