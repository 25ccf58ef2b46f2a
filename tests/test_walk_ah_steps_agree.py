"""Walk AH 3: the speedup page and the plan named different num_steps from the same model and runs.

Group l3-vllm on vLLM at batch 4 (the walk's store): baseline #5 at 170.0 tok/s, num_steps 2, 3, 4 measured in #6, #7,
#8 (350.6 tok/s at 4), and #9 at num_steps 3 served with another target (left out of the fit). The fitted model
predicts 356.6 tok/s at 4 and 357.8 at 5 (+0.3%: a tie by the 2% rule). ``speedup --run-group`` said "Predicted best:
num_steps=5 at 357.8 tok/s": it set the prediction at 5 against the MEASURED 350.6 at 4 (+2.05%, just past 2%),
while the plan, all predicted at batch 1, named 4 ("4 (5, 6 tie; all predicted)"); at ``--rank-batch 4`` the plan
named 5 too and claimed a +7.2 tok/s gain. A prediction is now weighed against the model's own prediction at a
measured num_steps (like with like), on both pages: 4 stands, measured, and 5 and 6 tie with it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from comparelib.analysis import plan, speedup
from comparelib.models import comparison
from tests.fixtures import bench_store, cli_in_process, stored_run

TARGET = "meta-llama/Meta-Llama-3-8B-Instruct"
DRAFT = "llama3-8b-eagle3-spec"
# the walk's runs #5..#9 (group l3-vllm, vLLM, 4 concurrent, 16 requests of 128 tokens): id, num_steps (None: the
# baseline), tok/s, acceptance length, per-position acceptance, the model served
RUNS: list[tuple[int, int | None, float, float | None, list[float] | None, str]] = [
    (5, None, 169.988297032848, None, None, TARGET),
    (6, 2, 274.0112424230516, 2.206896551724138, [0.8103448275862069, 0.39655172413793105], TARGET),
    (
        7,
        3,
        333.1884632172928,
        2.612244897959184,
        [0.8163265306122449, 0.5918367346938775, 0.20408163265306123],
        TARGET,
    ),
    (
        8,
        4,
        350.5976381580305,
        2.9767441860465116,
        [0.813953488372093, 0.5813953488372093, 0.3953488372093023, 0.18604651162790697],
        TARGET,
    ),
    (
        9,
        3,
        305.8471692617859,
        2.612244897959184,
        [0.8163265306122449, 0.5918367346938775, 0.20408163265306123],
        "meta-llama/Llama-3.1-8B-Instruct",
    ),
]
# the walk's local draft (speculators EAGLE-3 format, /tmp/walk_ah/repro/make_data.py)
LAYER = {
    "attention_bias": False,
    "attention_dropout": 0.0,
    "bos_token_id": 128000,
    "eos_token_id": 128009,
    "hidden_act": "silu",
    "hidden_size": 4096,
    "initializer_range": 0.02,
    "intermediate_size": 14336,
    "max_position_embeddings": 8192,
    "model_type": "llama",
    "num_attention_heads": 32,
    "num_hidden_layers": 1,
    "num_key_value_heads": 8,
    "pretraining_tp": 1,
    "rms_norm_eps": 1e-05,
    "rope_scaling": None,
    "rope_theta": 500000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "use_cache": True,
    "vocab_size": 128256,
}
DRAFT_CONFIG = {
    "architectures": ["Eagle3Speculator"],
    "speculators_model_type": "eagle3",
    "speculators_version": "0.9.0",
    "draft_vocab_size": 32000,
    "target_hidden_size": 4096,
    "norm_before_residual": False,
    "norm_before_fc": False,
    "fc_norm": False,
    "norm_output": False,
    "embed_requires_grad": False,
    "eagle_aux_hidden_state_layer_ids": [2, 16, 29],
    "transformer_layer_config": LAYER,
    "speculators_config": {
        "algorithm": "eagle3",
        "proposal_methods": [
            {"proposal_type": "greedy", "speculative_tokens": 3, "verifier_accept_k": 1, "accept_tolerance": 0.0}
        ],
        "default_proposal_method": "greedy",
        "verifier": {"name_or_path": TARGET, "architectures": ["LlamaForCausalLM"]},
    },
    "torch_dtype": "bfloat16",
    "transformers_version": "4.57.0",
}


def _runs() -> list[Any]:
    from dataclasses import replace

    out = []
    for i, k, t, al, rates, model in RUNS:
        r = stored_run(
            i, k, t, al, engine="vllm", algo="unknown", draft=None if k is None else DRAFT, model=model, topk=None,
            ndt=None, requests=16, concurrency=4, max_tokens=128, group="l3-vllm",
        )  # fmt: skip
        out.append(replace(r, summary={"accept_per_position": rates} if rates else {}))
    return out


@pytest.fixture
def draft_folder(tmp_path: Path) -> Path:
    folder = tmp_path / DRAFT
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(DRAFT_CONFIG))
    return folder


def test_the_model_puts_a_tie_between_4_and_5() -> None:
    """The finding's numbers: predicted 356.6 at 4 and 357.8 at 5 (+0.3%), measured 350.6 at 4."""
    model = speedup.model_from_runs(_runs())
    frame = speedup.predict_frame(model).set_index("num_steps")
    assert frame.at[4, "tok_s"] == pytest.approx(356.6, abs=0.05)
    assert frame.at[5, "tok_s"] == pytest.approx(357.8, abs=0.05)
    assert frame.at[4, "pick_tok_s"] == pytest.approx(350.6, abs=0.05)
    assert frame.at[5, "tok_s"] / frame.at[4, "pick_tok_s"] > 1 + speedup.TIE_TOLERANCE  # the old comparison: +2.05%


def test_speedup_names_the_measured_best_and_the_predictions_that_tie_with_it() -> None:
    opt = speedup.optimum(speedup.model_from_runs(_runs()))
    assert (opt.num_steps, opt.ties, opt.source, opt.run_ids) == (4, (5, 6), "measured", (8,)), opt.sentence
    assert opt.sentence.startswith("Best: num_steps=4 at 350.6 tok/s (+106.2% against 170.0 tok/s without "), opt
    assert "Predicted best" not in opt.sentence
    # the predictions are weighed against the model's own 356.6 at num_steps 4, not against the measured 350.6
    assert (
        "num_steps=5 and num_steps=6 tie within noise (357.8 tok/s predicted, 0.3% above the model's 356.6 tok/s at "
        "num_steps=4; 353.6 tok/s predicted, 0.9% below it)"
    ) in opt.sentence, opt.sentence


def _plan(folder: Path, rank: int) -> plan.Plan:
    entry = comparison.load_entry(str(folder), with_header=False, with_card=False)
    return plan.build(plan.inputs_for(entry, runs=_runs(), own_samples=5_001.0), rank_batch=rank)


def _steps(result: plan.Plan) -> plan.Option:
    return next(o for o in result.options if o.kind == "num-steps")


def test_the_plan_at_the_served_batch_names_what_the_speedup_page_names(draft_folder: Path) -> None:
    opt = speedup.optimum(speedup.model_from_runs(_runs()))
    ns = _steps(_plan(draft_folder, 4))
    best = next(e["value"] for e in ns.evidence if e["what"] == "best num_steps per batch")
    ties = next(e["value"] for e in ns.evidence if e["what"].startswith("num_steps that tie"))
    assert best["4"] == opt.num_steps == 4 and tuple(ties["4"]) == opt.ties == (5, 6)
    assert "batch 4: 4 (measured; 5, 6 tie; 5, 6 predicted) at 350.6 tok/s measured in run #8" in ns.note, ns.note
    assert ns.gain is not None and ns.gain.value == pytest.approx(0.0)  # no gain claimed over the served #8
    # batch 1, all predicted, is unchanged: 4 with 5 and 6 tying
    ns1 = _steps(_plan(draft_folder, 1))
    assert "batch 1: 4 (5, 6 tie; all predicted)" in ns1.note, ns1.note


def _store() -> None:
    from comparelib.live.store import Store

    store: Store = bench_store()
    for i, k, t, al, rates, model in RUNS:
        cfg = {
            "engine": "vllm",
            "model": model,
            "speculative_algorithm": None if k is None else "unknown",
            "draft_model": None if k is None else DRAFT,
            "num_steps": k,
        }
        rid = store.start_run(
            endpoint=f"http://127.0.0.1:{18616 + i}",
            server_config=cfg,
            group="l3-vllm",
            params={"concurrency": 4, "requests": 16, "max_tokens": 128, "prompt_set": "bundled"},
        )
        summary: dict[str, Any] = {"requests": 16, "errors": 0, "output_tokens_per_s": t}
        if k is not None:
            summary |= {"accept_length": al, "accept_per_position": rates}
        store.finish_run(rid, summary)
        assert rid - min(r.id for r in store.runs(group="l3-vllm")) == i - 5


def test_cli_speedup_and_plan_agree(capsys: pytest.CaptureFixture[str], draft_folder: Path) -> None:
    _store()
    ids = sorted(r.id for r in bench_store().runs(group="l3-vllm"))
    k4 = ids[3]  # the walk's #8
    out = cli_in_process(capsys, "speedup", "--run-group", "l3-vllm")
    assert out.returncode == 0, out.stderr
    assert "Best: num_steps=4 at 350.6 tok/s" in out.stdout and f"measured in run #{k4}" in out.stdout, out.stdout
    assert "Predicted best" not in out.stdout, out.stdout
    data = json.loads(cli_in_process(capsys, "speedup", "--run-group", "l3-vllm", "--json").stdout)
    assert (data["optimum"]["num_steps"], data["optimum"]["ties"]) == (4, [5, 6])
    got = cli_in_process(
        capsys, "plan", str(draft_folder), "--group", "l3-vllm", "--no-kept-log", "--rank-batch", "4", "--json"
    )
    assert got.returncode == 0, got.stderr
    steps = next(o for o in json.loads(got.stdout)["options"] if o["kind"] == "num-steps")
    best = next(e["value"] for e in steps["evidence"] if e["what"] == "best num_steps per batch")
    assert best["4"] == 4, steps


def test_the_pages_agree(draft_folder: Path) -> None:
    """Acceptance vs data's Live results and Overview's plan at the served batch (``plan_batch=4``)."""
    from tests.fixtures import page_app, page_text

    _store()
    k4 = sorted(r.id for r in bench_store().runs(group="l3-vllm"))[3]
    live = page_app("../pages/scaling.py", timeout=120)
    live.query_params["draft"] = str(draft_folder)
    live.query_params["draft_group"] = "l3-vllm"
    live.run()
    assert not live.exception, live.exception
    said = page_text(live) + " ".join(x.value for x in [*live.success, *live.info, *live.warning])
    assert "num_steps=4 at 350.6 tok/s" in said and f"measured in run #{k4}" in said, said
    assert "Predicted best" not in said, said
    overview = page_app("../pages/overview.py", timeout=120)
    overview.query_params["draft"] = str(draft_folder)
    overview.query_params["draft_group"] = "l3-vllm"
    overview.query_params["plan_batch"] = "4"
    overview.run()
    assert not overview.exception, overview.exception
    shown = page_text(overview) + " ".join(str(getattr(x, "value", "")) for x in overview.markdown)
    assert f"batch 4: 4 (measured; 5, 6 tie; 5, 6 predicted) at 350.6 tok/s measured in run #{k4}" in shown, shown


# (case, measured tok/s where measured else predicted, the model's predictions, measured num_steps, expected pick)
RULE_CASES: list[tuple[str, dict[int, float], dict[int, float], set[int], tuple[int, tuple[int, ...]]]] = [
    # walk AH3: +2.05% against the measurement, +0.3% against the model's own 356.6 at 4: a tie, 4 stands
    ("ah3", {4: 350.6, 5: 357.8, 6: 353.6}, {4: 356.6, 5: 357.8, 6: 353.6}, {4}, (4, (5, 6))),
    # a prediction that gains beyond noise on both scales wins
    ("gains-on-both", {4: 300.0, 5: 320.0}, {4: 298.0, 5: 320.0}, {4}, (5, ())),
    # walk AB: the model misses #6 by 28%; 279.2 predicted at 2 is 4.3% under the 291.6 measured at 3: 3 stands
    ("model-misses-the-run", {2: 279.2, 3: 291.6}, {2: 279.2, 3: 210.4}, {3}, (3, ())),
    # two measured num_steps are weighed on their measurements, whatever the model says
    ("both-measured", {4: 248.4, 5: 263.4}, {4: 264.6, 5: 262.0}, {4, 5}, (5, ())),
]


@pytest.mark.parametrize(
    ("case", "tok_s", "predicted", "measured", "expected"), RULE_CASES, ids=[c[0] for c in RULE_CASES]
)
def test_a_prediction_gains_on_a_measurement_only_as_far_as_it_gains_on_the_models_own_prediction_there(
    case: str,
    tok_s: dict[int, float],
    predicted: dict[int, float],
    measured: set[int],
    expected: tuple[int, tuple[int, ...]],
) -> None:
    assert speedup.pick_steps(tok_s, predicted, measured) == expected


def test_the_plans_lead_says_the_noise_is_of_a_predicted_figure_where_nothing_was_served(draft_folder: Path) -> None:
    """The lead said "2% of the served tok/s at batch 1" where batch 1's 89.2 tok/s was predicted from batch 4 runs."""
    at_1, at_4 = (plan.lead(_plan(draft_folder, b)) or "" for b in (1, 4))
    assert "2% of the served setting's tok/s predicted at batch 1, where no run measured it)" in at_1, at_1
    assert "2% of the served tok/s at batch 4)" in at_4, at_4
