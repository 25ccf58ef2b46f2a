"""Walk BP 2: at batch 16 (vLLM, Qwen3-235B) the sweep measured num_steps 2 and 3 (836.7 and 770.8 tok/s, runs #9
and #10), and every surface named "Predicted best: num_steps=1 at 834.5 tok/s ... num_steps=2 ties within noise":
a prediction 0.3% under the measured fastest, named for being the smaller. A prediction that only ties a measured
num_steps is not named over it; it stays a tie, with what would settle it."""

from __future__ import annotations

import pytest

from comparelib.analysis import speedup

PICKS = [
    # tok/s picked on, the model's tok/s, measured num_steps -> (named, ties)
    pytest.param(
        {1: 834.5, 2: 836.7, 3: 770.8}, {1: 834.5, 2: 836.7, 3: 770.8}, {2, 3}, (2, (1,)), id="walk-bp-measured-2"
    ),
    pytest.param(  # both measured: the smallest within noise is named, as before
        {1: 834.5, 2: 836.7, 3: 770.8}, {1: 830.0, 2: 836.7, 3: 770.8}, {1, 2, 3}, (1, (2,)), id="both-measured"
    ),
    pytest.param(  # nothing measured (a batch no run measured): the smallest, as before
        {1: 834.5, 2: 836.7, 3: 770.8}, None, set(), (1, (2,)), id="all-predicted"
    ),
]


@pytest.mark.parametrize(("tok", "model_tok", "measured", "expected"), PICKS)
def test_a_tying_prediction_is_not_named_over_a_measurement(
    tok: dict[int, float],
    model_tok: dict[int, float] | None,
    measured: set[int],
    expected: tuple[int, tuple[int, ...]],
) -> None:
    assert speedup.pick_steps(tok, model_tok, measured) == expected


def test_the_sentence_names_the_measured_best_and_the_tie() -> None:
    """The walk's runs: batch 1's #5 measured acceptance 1.74 at num_steps 1, which stands in at batch 16."""
    from dataclasses import replace

    from tests.fixtures import stored_run

    # id, num_steps (None: baseline), tok/s, AL, batch, requests
    rows = [
        (4, None, 46.10694642729216, None, 1, 8),
        (5, 1, 59.62602511582509, 1.7391304347826086, 1, 8),
        (6, 2, 75.43270381743609, 2.5, 1, 8),
        (7, 3, 64.90096552263867, 3.0, 1, 8),
        (8, 4, 39.85373192341974, 3.0, 1, 8),
        (9, 2, 836.6610870798985, 2.5, 16, 32),
        (10, 3, 770.7817493292874, 3.0, 16, 32),
        (11, None, 589.2726823164585, None, 16, 32),
    ]
    runs = []
    for i, k, t, al, c, n in rows:
        run = stored_run(i, k, t, al, engine="vllm", draft=None if k is None else "my-qwen235-eagle3",
                         model="Qwen/Qwen3-235B-A22B-Instruct-2507", concurrency=c, requests=n, max_tokens=256,
                         topk=None, ndt=None)  # fmt: skip
        runs.append(replace(run, params={**run.params, "requests": n, "temperature": 0.0}))
    model = speedup.model_from_runs([r for r in runs if r.params["concurrency"] == 16], accept_from=runs)
    opt = speedup.optimum(model)
    assert (opt.num_steps, opt.source, opt.run_ids) == (2, "measured", (9,)), opt.sentence
    assert opt.sentence.startswith("Best: num_steps=2 at 836.7 tok/s"), opt.sentence
    assert opt.ties == (1,), opt.sentence
    assert "a prediction that only ties a measurement is not named over it (measure num_steps=1" in opt.sentence
