"""Walk BK, findings 1, 2, 3 and 6: Overview's words on the reference yuhuili/EAGLE3-DeepSeek-R1-Distill-LLaMA-8B.

The walk: acme-ml/R1-Distill-Llama-8B-eagle3-think (target deepseek-ai/DeepSeek-R1-Distill-Llama-8B), 12,300 samples,
group r1-bk: SGLang batch 1, a baseline (#4), chains at num_steps 1..6 (#5-#10, #10 measuring 3.33), a topk-4 tree
(#11, 3.33); a batch-16 pair (#12 baseline, #13 num_steps 3, 2.79); vLLM num_steps 3 (#14). The reference publishes
an EAGLE-2 dynamic tree's GSM8K 6.93 (RTX 3090) and only a lower bound on its volume (train_samples_min 532K).

- BK1: the headline said "12K samples against at least 532K", the volume-gap fold-out "does not report its training
  volume, so the volumes cannot be compared" and "is not on the trend (no training volume reported)".
- BK2: with a plateaued training log, the headline dropped "(not like for like)" from the 2.08x acceptance ratio and
  said "as the published figures are a tree's", as if the trees were alike.
- BK3: "publishes no config" / "assumed, not published" of a repo holding config.json (the registry's is assumed,
  the Hub's not read).
- BK6: "chain run #13 (num_steps 3) measured 2.79, not set against them: a chain accepts less per cycle by
  construction", naming the batch-16 run while the tree is set against the batch-1 chain #7 elsewhere, and false
  (the 6-step chain #10 measured the tree's 3.33).
"""

from __future__ import annotations

from typing import Any

import pytest

from comparelib.analysis import overview, scaling, summary
from comparelib.models import registry
from tests.fixtures import bench_config, bench_store, cli_in_process, store_run, stored_run
from tests.hub_emulator import HubEmulator

REF = "yuhuili/EAGLE3-DeepSeek-R1-Distill-LLaMA-8B"
DRAFT = "acme-ml/R1-Distill-Llama-8B-eagle3-think"
TARGET = "deepseek-ai/DeepSeek-R1-Distill-Llama-8B"
GROUP = "r1-bk"
# (id, engine, num_steps, topk, draft tokens, batch, tok/s, accept length): the walk's runs (None steps: baseline)
WALK = (
    (4, "sglang", None, None, None, 1, 47.2, None),
    (5, "sglang", 1, 1, 2, 1, 69.8, 1.79),
    (6, "sglang", 2, 1, 3, 1, 78.7, 2.4),
    (7, "sglang", 3, 1, 4, 1, 82.5, 2.79),
    (8, "sglang", 4, 1, 5, 1, 77.5, 3.0),
    (9, "sglang", 5, 1, 6, 1, 76.5, 3.16),
    (10, "sglang", 6, 1, 7, 1, 74.0, 3.33),
    (11, "sglang", 3, 4, 8, 1, 86.9, 3.33),
    (12, "sglang", None, None, None, 16, 597.0, None),
    (13, "sglang", 3, 1, 4, 16, 926.0, 2.79),
    (14, "vllm", 3, None, None, 1, 81.2, 2.79),
)
OLD_WORDS = (
    "does not report its training volume",  # BK1
    "cannot be compared",
    "no training volume reported",
    "publishes no config",  # BK3
    "assumed, not published",
    "by construction",  # BK6
    "accepts less per cycle",
    "chain run #13",
)


def _runs() -> list[Any]:
    return [
        stored_run(i, steps, tok, al, engine=eng, draft=DRAFT, model=TARGET, topk=k, ndt=ndt, concurrency=b)
        for i, eng, steps, k, ndt, b, tok, al in WALK
    ]


def _answer(curve: str | None) -> overview.Answer:
    return overview.answer(
        None, registry.get_draft(REF), _runs(), 12_300.0, curve_verdict=curve, own_target=TARGET, draft=DRAFT
    )


@pytest.mark.parametrize("curve", [None, "plateau"])
def test_the_headline_keeps_not_like_for_like_with_or_without_a_log(curve: str | None) -> None:
    """BK2 and BK6 in the headline."""
    a = _answer(curve)
    head = a.gap_sentence
    assert "at least 532K" in head, head
    assert "2.08 times our 3.33" in head and "not like for like" in head, head
    # a tree only in shape: never implied alike
    assert "as the published figures are a tree's too, at other settings" in head, head
    # the chain named is the batch-1 chain the tree is set against in Chains or trees, with its batch, and why
    assert (
        "chain run #7 (num_steps 3, batch 1) measured 2.79, not set against them: a chain is another setting" in head
    )
    for old in OLD_WORDS:
        assert old not in head, (old, head)


def test_the_acceptance_line_names_the_batch_1_chain() -> None:
    """BK6 in OwnAccept.why (the Acceptance length line)."""
    mine = overview.own_acceptance(_runs(), overview.reference_settings(REF), draft=DRAFT)
    assert mine is not None and mine.run.id == 11, mine
    assert "chain run #7 (num_steps 3, batch 1) measured 2.79, not set against them" in mine.why, mine.why
    assert "by construction" not in mine.why and "#13" not in mine.why, mine.why


def test_the_volume_gap_says_the_bound() -> None:
    """BK1: the fold-out under a headline comparing on "at least 532K" says the bound."""
    said = summary.volume_gap(_answer(None), scaling.published_points())
    assert said is not None
    text = said.text
    assert f"{REF} states only a lower bound on its training volume, at least 532K samples" in text, text
    assert "your 12K samples are at least 43x fewer, but the trend cannot place a draft known only by a bound" in text
    assert "is not on the trend (its training volume is only a lower bound, at least 532K samples)" in text, text
    for old in OLD_WORDS[:3]:
        assert old not in text, (old, text)


@pytest.mark.parametrize(
    ("words", "want"),
    [
        (
            lambda: summary._size_basis(REF),
            f"counted from the configs; {REF}'s is assumed, not the published config.json (not read), so no size "
            "gap is named",
        ),
        (
            lambda: "; ".join(
                overview.missing_evidence(
                    reference=REF,
                    own_volume=12_300.0,
                    ref_volume=532_000.0,
                    own_accept=3.33,
                    acc=None,
                    sizes_known=True,
                    ref_config_assumed=True,
                    has_runs=True,
                    measured_beside=True,  # no acceptance facts needed
                    own_config=True,
                    other_architecture="",
                )
            ),
            f"{REF}'s config is assumed, not the published config.json (not read), so sizes are not compared",
        ),
    ],
    ids=["size line", "not known yet"],
)
def test_an_assumed_config_is_not_read_not_unpublished(words: Any, want: str) -> None:
    """BK3: both Overview states word it as Compare does."""
    text = words()
    assert want in text, text
    assert "publishes no config" not in text and "not published" not in text, text


def test_the_cli_agrees(hub: HubEmulator, capsys: pytest.CaptureFixture[str]) -> None:
    """The walk's repro, on the CLI: every wrong sentence is gone and the right ones are there."""
    config = {
        "architectures": ["LlamaForCausalLMEagle3"],
        "model_type": "llama",
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_hidden_layers": 1,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "vocab_size": 128256,
        "draft_vocab_size": 32000,
        "max_position_embeddings": 131072,
        "rms_norm_eps": 1e-05,
        "hidden_act": "silu",
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        "target_hidden_size": 4096,
        "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 15, 28], "use_aux_hidden_state": True},
    }
    hub.add_model(DRAFT, config, card=f"---\nbase_model: {TARGET}\n---\n# R1 draft\n")
    store = bench_store()
    for _, eng, steps, k, ndt, b, tok, al in WALK:
        cfg = bench_config(eng, TARGET, steps, draft=DRAFT if steps else None, topk=k, ndt=ndt)
        summ = {"requests": 32 if b == 16 else 6, "errors": 0, "output_tokens_per_s": tok, "accept_length": al}
        store_run(store, cfg, summ, group=GROUP, concurrency=b)
    done = cli_in_process(capsys, "overview", DRAFT, "--group", GROUP, "--samples", "12300", "--no-kept-log")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for old in OLD_WORDS:
        assert old not in out, (old, out)
    assert "at least 532K" in out and "not like for like" in out, out
    assert "states only a lower bound on its training volume, at least 532K samples" in out, out
    assert f"{REF}'s is assumed, not the published config.json (not read)" in out, out
    # the store numbers the runs from #1: the walk's #7 is #4 here, its batch-16 #13 is #10
    assert "chain run #4 (num_steps 3, batch 1) measured 2.79, not set against them" in out, out
    assert "chain run #10" not in out, out
