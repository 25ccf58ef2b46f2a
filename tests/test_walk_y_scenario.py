"""Acceptance vs data's "more data" scenario is not refused from a comparison the page refuses to make (walk Y).

The Live results tab said "No 'more data' scenario: the fit's prediction of 2.78 at lmsys/...'s volume is not above
what your draft measured at 3 steps (3.00, run #12), so the published trend says nothing about more data for your
draft", while 2.78 is a GSM8K fit and 3.00 was measured on the bundled prompts: the top of the same page said those two
are not on one scale, and Overview and the plan said more data should help.
"""

from __future__ import annotations

from typing import Any

import pytest

from comparelib.analysis import verdicts
from tests.fixtures import stored_run

REFERENCE = "lmsys/SGLang-EAGLE3-Qwen3-30B-A3B-Instruct-2507-SpecForge-Nex"


def _runs(prompts: str | None) -> list:  # type: ignore[type-arg]
    # walk Y's batch-1 sweep on vLLM: baseline, then num_steps 1, 2, 3 (AL 1.50, 2.00, 3.00)
    rows = [(10, None, 48.3, None), (11, 1, 60.6, 1.50), (12, 3, 96.9, 3.00), (13, 2, 71.7, 2.00)]
    return [
        stored_run(i, k, t, al, engine="vllm", algo=None, concurrency=1, requests=16, prompt_set=prompts)
        for i, k, t, al in rows
    ]


@pytest.mark.parametrize(
    ("prompts", "said"),
    [
        (
            "bundled",
            "is a GSM8K figure and your draft measured at 3 steps (3.00, run #12, your acceptance) on the 'bundled' "
            "prompts: not on one scale",
        ),  # fmt: skip
        (
            "gsm8k",
            "is not above what your draft measured at 3 steps (3.00, run #12, your acceptance), so the published "
            "trend says nothing",
        ),
        (
            None,
            "is not above what your draft measured at 3 steps (3.00, run #12, your acceptance), so the published "
            "trend says nothing",
        ),
    ],
)
def test_the_more_data_scenario_is_refused_only_on_one_scale(prompts: str | None, said: str) -> None:
    look = verdicts.live_outlook(
        _runs(prompts),
        (2.78, 3, 1_400_000),
        reference=REFERENCE,
        x="samples",
        own_run=(12, 3, 3.00),
        benchmark="gsm8k",
    )
    assert look.no_scenario is not None and said in look.no_scenario, look.no_scenario
    if prompts == "bundled":
        assert "says nothing about more data" not in look.no_scenario


@pytest.mark.parametrize(("passes", "said"), [(4.0, "4"), (2.5, "2.5"), (99.94, "99.9"), (2666.67, "2,667")])
def test_a_count_of_passes_reads_as_the_times_beside_it(passes: float, said: str) -> None:
    """Overview read "about 2,666.7 passes" beside "2,667 times" (walk Y): whole from 100 passes on."""
    from comparelib.analysis.traininglogs import passes_text

    assert passes_text(passes) == said


def test_num_steps_that_lost_to_the_baseline_are_said_beside_the_best() -> None:
    """Walk Y at batch 16: num_steps 1 wins (1.13x, measured), while num_steps 3 and 5 lose (0.93x, 0.88x); only the
    speedup column showed it."""
    from comparelib.analysis import speedup

    rows = [(20, None, 516.9, None), (21, 1, 585.5, 1.50), (22, 2, 566.4, 2.00), (23, 3, 480.4, 3.00)]
    rows.append((24, 5, 456.6, 3.75))
    runs = [
        stored_run(i, k, t, al, engine="vllm", algo=None, concurrency=16, requests=64, prompt_set="gsm8k")
        for i, k, t, al in rows
    ]
    best = speedup.optimum(speedup.model_from_runs(runs))
    assert best.num_steps == 1 and best.source == "measured", best.sentence
    assert (
        "Measured slower than without speculation (516.9 tok/s) at batch 16: num_steps=3 (0.93x, run #23), "
        "num_steps=5 (0.88x, run #24)."
    ) in best.sentence, best.sentence
    # a sweep where nothing lost says nothing of the kind
    won = speedup.optimum(speedup.model_from_runs(runs[:3]))
    assert "Measured slower than without speculation" not in won.sentence, won.sentence


def test_the_plan_says_when_your_targets_published_draft_sits_below_the_pooled_trend(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Walk Y: the plan named 771,629 samples to reach the Qwen3-30B-A3B draft's 2.64 from a fit over every target
    that puts 2.84 at the 1.4M samples that very draft needed for 2.64; nothing said it sits below the trend."""
    import json

    from tests.fixtures import cli_in_process

    folder = tmp_path / "q30-eagle3"
    folder.mkdir()
    config = {
        "architectures": ["LlamaForCausalLMEagle3"],
        "model_type": "llama",
        "hidden_size": 2048,
        "intermediate_size": 6144,
        "num_hidden_layers": 1,
        "num_attention_heads": 32,
        "num_key_value_heads": 4,
        "head_dim": 128,
        "vocab_size": 151936,
        "draft_vocab_size": 32000,
        "max_position_embeddings": 40960,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
    }
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "README.md").write_text("---\nbase_model: Qwen/Qwen3-30B-A3B-Instruct-2507\n---\n# q30\n")
    proc = cli_in_process(capsys, "plan", str(folder), "--samples", "640000")
    assert proc.returncode == 0, proc.stderr
    out = " ".join(proc.stdout.split())
    assert (
        "The published draft for your target sits below this pooled trend: " + REFERENCE + " published 2.64 at 1.4M "
        in out
    )  # walk AX: "measured 1.72 at 532K" named a published figure as a measurement
    assert f"{REFERENCE} measured" not in out, out
    assert "so the samples named here may be too few" in out, out
