"""Walk AW (Qwen3-235B-A22B-Instruct-2507, a local v2 draft, group q235): every speculative pair loses, #8/#7 0.58x
(vLLM, batch 1), #3/#1 0.57x (SGLang, batch 1), #5/#4 0.46x and #6/#4 0.44x (SGLang, batch 32).

AW1. Overview's live speed called #8/#7 "The pair to serve (the largest speedup measured; the fastest pair in tok/s
     loses)" while the plan below ranked "Serve without speculation" first: no pair gains, so none is to serve; the
     line names the smallest loss, and the headline says every speculative run measured was slower than its baseline.
AW2. The plan's num-steps row called run #5 "Overview's pair" (``speedup.best_pair``, the fastest in tok/s) while
     Overview led with #8 (``overview.lead_pair``); its "Served now" named SGLang's #3/#1 loss without its engine
     beside a vLLM pair of the same batch.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from comparelib.analysis import overview, plan
from comparelib.models import comparison, registry
from tests.fixtures import stored_run

TARGET = "Qwen/Qwen3-235B-A22B-Instruct-2507"
DRAFT = "/tmp/walk_aw/home/files/drafts/q235-eagle3-v2"
REF = "lmsys/SGLang-EAGLE3-Qwen3-235B-A22B-Instruct-2507-SpecForge-Meituan"


def _runs() -> list[Any]:
    def run(id_: int, steps: int | None, tok: float, *, engine: str = "sglang", batch: int = 1, **kw: Any) -> Any:
        return stored_run(
            id_, steps, tok, 2.98 if steps == 3 else 2.33 if steps else None, engine=engine,
            draft=DRAFT if steps else None, model=TARGET, group="q235", concurrency=batch,
            requests=64 if batch == 32 else 32, max_tokens=128, **kw,
        )  # fmt: skip

    return [
        run(1, None, 182.6),
        run(3, 3, 104.9),
        run(4, None, 3272.3, batch=32),
        run(5, 3, 1517.6, batch=32),
        run(6, 2, 1450.7, batch=32),
        run(7, None, 169.1, engine="vllm"),
        run(8, 3, 98.35, engine="vllm", topk=None, ndt=None),
    ]


def test_no_losing_pair_is_called_the_pair_to_serve() -> None:
    live = overview.live_facts(_runs())
    assert live is not None and (live.run_id, live.baseline_run_id) == (8, 7), live
    assert "to serve" not in live.lead_words and "to serve" not in live.sentence, live.sentence
    assert live.lead_words.startswith("No pair gains"), live.lead_words
    assert "smallest loss" in live.lead_words, live.lead_words
    assert "slower than without speculation in every comparable pair measured" in live.sentence, live.sentence


def test_a_gaining_pair_is_still_the_pair_to_serve() -> None:
    """The rule of walk U stands: the fastest pair loses, another gains; that one is to serve."""
    runs = [r for r in _runs() if r.id not in (7, 8)]
    runs[1] = stored_run(3, 3, 300.0, 2.98, draft=DRAFT, model=TARGET, group="q235", concurrency=1, requests=32,
                         max_tokens=128)  # fmt: skip
    live = overview.live_facts(runs)
    assert live is not None and live.run_id == 3 and live.lead_words == overview.LEAD_SERVED, live


def test_the_headline_says_every_speculative_run_measured_was_slower() -> None:
    a = overview.answer(None, registry.get_draft(REF), _runs(), 24_900.0, own_target=TARGET, draft=DRAFT)
    assert "every speculative run measured" in a.gap_sentence, a.gap_sentence
    assert "slower than its comparable baseline" in a.gap_sentence, a.gap_sentence
    assert "#8" in a.gap_sentence and "0.58x" in a.gap_sentence, a.gap_sentence


def _draft_config() -> dict[str, Any]:
    return {
        "architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama", "hidden_size": 4096,
        "intermediate_size": 24576, "num_hidden_layers": 1, "num_attention_heads": 64, "num_key_value_heads": 4,
        "head_dim": 128, "vocab_size": 151936, "draft_vocab_size": 32000, "max_position_embeddings": 40960,
        "rope_theta": 1000000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "rms_norm_eps": 1e-06,
        "hidden_act": "silu", "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 46, 90]},
    }  # fmt: skip


def _plan(tmp_path: Path) -> plan.Plan:
    folder = tmp_path / "q235-eagle3-v2"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(_draft_config()))
    entry = comparison.load_entry(str(folder), with_header=False, with_card=False)
    return plan.build(plan.inputs_for(entry, runs=_runs(), own_samples=24_900.0, draft=DRAFT), rank_batch=1)


def test_the_plan_calls_no_run_overviews_pair_but_overviews(tmp_path: Path) -> None:
    result = _plan(tmp_path)
    text = " ".join([*(str(o.note) for o in result.options), *(s.text for s in result.sources)])
    lead = overview.lead_pair(_runs())
    assert lead is not None and lead.spec.id == 8
    assert "run #5: Overview's pair" not in text, text
    assert "served: 3 at batch 32, run #5: the fastest pair in tok/s" in text, text


def test_served_now_names_the_engine_where_the_group_has_pairs_of_two(tmp_path: Path) -> None:
    words = plan.current_words(_plan(tmp_path))
    assert "no speculative tok/s is predicted" in words, words
    assert "SGLang" in words, words
