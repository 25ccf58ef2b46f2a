"""Walk AS (minor): Acceptance vs data's "How the speed model was identified" said the dashed lines' acceptance is
"geometric elsewhere" beside its own note that acceptance past the measured num_steps comes from the per-position
rates of a vLLM run. The caption names where the model's acceptance comes from."""

from __future__ import annotations

import pytest

from tests.fixtures import bench_config, bench_store, page_app, store_run

TARGET = "Qwen/Qwen3-8B"
DRAFT = "acme/qwen3-8b-eagle3"
RATES = [0.74, 0.55, 0.42, 0.33, 0.27]


@pytest.mark.parametrize("rates", [True, False])
def test_the_caption_names_where_acceptance_elsewhere_comes_from(rates: bool) -> None:
    store = bench_store()
    for steps, tok, al in ((None, 74.0, None), (3, 144.2, 2.56), (5, 167.8, 3.46)):
        summary = {"requests": 8, "errors": 0, "output_tokens_per_s": tok, "accept_length": al}
        if steps and rates:
            summary["accept_per_position"] = RATES[:steps]
        store_run(store, bench_config("vllm", TARGET, steps, draft=DRAFT if steps else None, topk=None, ndt=None),
                  summary, group="qwen3-ours")  # fmt: skip
    at = page_app("../pages/scaling.py", timeout=120)
    at.query_params["draft"] = DRAFT
    at.query_params["draft_group"] = "qwen3-ours"
    at.run()
    assert not at.exception, at.exception
    said = [c.value for c in at.caption if c.value.startswith("Dashed lines are predictions")]
    assert len(said) == 1, [c.value for c in at.caption]
    notes = " ".join(m.value for m in at.markdown)
    if rates:
        assert "per-position rates of run" in notes, notes
        assert "geometric elsewhere" not in said[0] and "per-position rates" in said[0], said[0]
    else:
        assert "geometric elsewhere" in said[0], said[0]
