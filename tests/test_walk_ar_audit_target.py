"""Walk AR 2: Dataset audit read your draft's target without its runs. Every run of the attached group was served
with moonshotai/Kimi-K2.6, and Overview said "target moonshotai/Kimi-K2.6 (the model its runs were served with)",
but Audit left its tokenizer field empty (with the target set on Compare: "your draft's config names none and no run
of it names one"). The audit's tokenizer field opens on your draft's target as the other pages find it."""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.fixtures import KIMI_EAGLE3, bench_config, bench_store, store_run

ROOT = Path(__file__).resolve().parents[1]
TARGET = "moonshotai/Kimi-K2.6"
DRAFT_CONFIG = {
    **KIMI_EAGLE3,
    "draft_vocab_size": 163840,
}  # a SpecForge EAGLE-3 config naming no target, full vocabulary


def test_the_audits_tokenizer_opens_on_the_target_your_runs_were_served_with(tmp_path: Path) -> None:
    folder = tmp_path / "k26-eagle3-v3"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(DRAFT_CONFIG))
    store = bench_store()
    for steps, tok in ((None, 44.07), (3, 79.32)):
        store_run(
            store,
            bench_config(
                "sglang", TARGET, steps, draft=str(folder) if steps else None, topk=1, ndt=4 if steps else None
            ),
            {"requests": 8, "errors": 0, "output_tokens_per_s": tok, "accept_length": 2.98 if steps else None},
            group="k26-v3b",
        )
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["draft"] = str(folder)
    at.query_params["draft_group"] = "k26-v3b"
    at.run()
    assert not at.exception, at.exception
    at.switch_page("pages/audit.py").run()
    assert not at.exception, at.exception
    assert at.text_input(key="audit_tokenizer").value == TARGET
    said = " ".join(c.value for c in at.caption)
    assert "no run of it names one" not in said, said
