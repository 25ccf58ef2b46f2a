"""Walk AN 1: past the measured num_steps the speedup model predicted the most a chain can accept, not what it would.

Group gptoss-20b-serving, SGLang, batch 1 (the walk's store): baseline #1 at 112.6 tok/s; num_steps 2, 3, 4 measured in
#8, #9, #10 (AL 2.59, 3.16, 3.51; 204.5, 283.6, 265.2 tok/s). The app put AL 3.85, 4.20, 4.55 at 5, 6, 7, exactly
3.51 + 0.35 per step (``accept_bound``, an upper bound), 4.99 at 9 from a geometric fit, and said "Predicted best:
num_steps=9 at 354.4 tok/s" (+25% over the measured 283.6). The measured gains shrink (0.57, then 0.35: each position
keeps ~0.61 of the one before); carried on, as vLLM's per-position rule does (``accept_from_positions``), AL is 3.72,
3.84, 3.92, 3.96, 3.99 at 5..9, and 9 ties with the measured best at 3.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from comparelib.analysis import speedup
from tests.fixtures import bench_store, cli_in_process, stored_run

TARGET = "openai/gpt-oss-20b"
DRAFT = "gptosslab/gpt-oss-20b-eagle3-v2"
GROUP = "gptoss-20b-serving"
# the walk's runs: id, num_steps (None: the baseline), output tok/s, acceptance length (12 requests of 256 tokens)
RUNS: list[tuple[int, int | None, float, float | None]] = [
    (1, None, 112.61195340442069, None),
    (8, 2, 204.5294479417599, 2.585858585858586),
    (9, 3, 283.5574096534581, 3.1604938271604937),
    (10, 4, 265.159812776851, 3.506849315068493),
]


def _runs() -> list[object]:
    return [
        stored_run(i, k, t, al, engine="sglang", draft=None if k is None else DRAFT, model=TARGET, group=GROUP,
                   requests=12, concurrency=1, max_tokens=256)
        for i, k, t, al in RUNS
    ]  # fmt: skip


def test_acceptance_past_the_sweep_carries_the_shrinking_gains() -> None:
    model = speedup.model_from_runs(_runs())
    got = [round(model.accept_at(k), 2) for k in range(5, 10)]
    assert got == pytest.approx([3.72, 3.84, 3.92, 3.96, 3.99], abs=0.006), got
    # the linear bound stays a bound: above every prediction, never shown as one
    assert all(model.accept_at(k) < model.accept_bound(k) for k in range(5, 11))
    frame = speedup.predict_frame(model).set_index("num_steps")
    assert frame.at[9, "tok_s"] == pytest.approx(283.2, abs=1.5)  # the app's 14.09 ms cycle at 9


def test_the_measured_best_stands() -> None:
    opt = speedup.optimum(speedup.model_from_runs(_runs()))
    assert (opt.num_steps, opt.source, opt.run_ids) == (3, "measured", (9,)), opt.sentence
    assert "Predicted best" not in opt.sentence, opt.sentence
    assert opt.sentence.startswith("Best: num_steps=3 at 283.6 tok/s"), opt.sentence


def test_a_prediction_within_the_models_error_does_not_win() -> None:
    """Past 2% on both scales, but the model misses run #9 by 9.7%: 5% is inside its own error."""
    tok = {2: 204.5, 3: 283.6, 4: 265.2, 9: 298.0}
    model_tok = {2: 214.7, 3: 256.2, 4: 277.7, 9: 298.0}
    assert speedup.pick_steps(tok, model_tok, {2, 3, 4}) == (3, ())
    # a gain beyond the model's own error still wins
    assert speedup.pick_steps({**tok, 9: 330.0}, {**model_tok, 9: 330.0}, {2, 3, 4})[0] == 9


def test_the_sentence_says_why_a_prediction_was_not_recommended() -> None:
    """A geometric-looking sweep whose model misses a run: the best prediction is inside the fit's error."""
    pts = [
        speedup.SweepPoint(2, 204.5, 2.59, 8),
        speedup.SweepPoint(3, 283.6, 3.16, 9),
        speedup.SweepPoint(4, 265.2, 3.51, 10),
    ]
    model = speedup.fit_sweep(pts, baseline_tok_s=112.6)
    frame = speedup.predict_frame(model, (2, 3, 4, 9))
    # a what-if frame where 9 gains 5% on the measured best (and more on the model's 256 at 3)
    frame.loc[frame["num_steps"] == 9, ["tok_s", "pick_tok_s"]] = 298.0
    opt = speedup.optimum(model, frame=frame)
    assert (opt.num_steps, opt.source) == (3, "measured"), opt.sentence
    assert "predictions beyond 4 do not beat it within the fit's error" in opt.sentence, opt.sentence
    assert "Measured best num_steps 3 (run #9)" in opt.sentence, opt.sentence


def test_a_predicted_pick_is_not_said_to_be_picked_on_measurements() -> None:
    """When the best is predicted, the model-gap sentence must not claim the best is picked on the measurements."""
    pts = [speedup.SweepPoint(1, 150.0, 1.7, 5), speedup.SweepPoint(2, 190.0, 2.3, 6)]
    model = speedup.fit_sweep(pts, baseline_tok_s=100.0)
    frame = speedup.predict_frame(model, (1, 2, 5))
    frame.loc[frame["num_steps"] == 2, "tok_s"] = 160.0  # the model misses #6 by 16%
    frame.loc[frame["num_steps"] == 5, ["tok_s", "pick_tok_s"]] = 400.0  # far past the miss: 5 wins, predicted
    opt = speedup.optimum(model, frame=frame)
    assert (opt.num_steps, opt.source) == (5, "predicted"), opt.sentence
    assert "The model misses the measurement" in opt.sentence, opt.sentence
    assert "picked on the measurements" not in opt.sentence, opt.sentence


def _store() -> list[int]:
    store = bench_store()
    ids = []
    for _i, k, t, al in RUNS:
        cfg = {
            "engine": "sglang",
            "model": TARGET,
            "speculative_algorithm": None if k is None else "EAGLE3",
            "draft_model": None if k is None else DRAFT,
            "num_steps": k,
            "topk": None if k is None else 1,
            "num_draft_tokens": None if k is None else k + 1,
        }
        rid = store.start_run(
            endpoint="http://127.0.0.1:18691",
            server_config=cfg,
            group=GROUP,
            params={"concurrency": 1, "requests": 12, "max_tokens": 256, "prompt_set": "bundled"},
        )
        summary: dict[str, object] = {"requests": 12, "errors": 0, "output_tokens_per_s": t}
        if al is not None:
            summary["accept_length"] = al
        store.finish_run(rid, summary)
        ids.append(rid)
    return ids


def test_cli_names_the_measured_best(capsys: pytest.CaptureFixture[str]) -> None:
    ids = _store()
    args = ("speedup", "--run-group", GROUP, "--batch", "1", "--engine", "sglang", "--draft", DRAFT)
    out = cli_in_process(capsys, *args)
    assert out.returncode == 0, out.stderr
    assert "Best: num_steps=3 at 283.6 tok/s" in out.stdout and f"measured in run #{ids[2]}" in out.stdout, out.stdout
    assert "Predicted best" not in out.stdout, out.stdout
    data = json.loads(cli_in_process(capsys, *args, "--json").stdout)
    assert data["optimum"]["num_steps"] == 3


def test_the_plan_names_what_the_speedup_page_names(tmp_path: Path) -> None:
    """Overview's plan picks with the same function: batch 1 names the measured 3, not a predicted 9."""
    from comparelib.analysis import plan
    from comparelib.models import comparison
    from tests.test_walk_ah_steps_agree import DRAFT_CONFIG

    cfg: dict[str, Any] = copy.deepcopy(DRAFT_CONFIG)
    cfg["speculators_config"]["verifier"]["name_or_path"] = TARGET
    folder = tmp_path / "draft"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(cfg))
    entry = comparison.load_entry(str(folder), with_header=False, with_card=False)
    result = plan.build(plan.inputs_for(entry, runs=_runs(), own_samples=300_000.0), rank_batch=1)
    ns = next(o for o in result.options if o.kind == "num-steps")
    best = next(e["value"] for e in ns.evidence if e["what"] == "best num_steps per batch")
    assert best["1"] == speedup.optimum(speedup.model_from_runs(_runs())).num_steps == 3, ns.note
    assert "batch 1: 3 (measured;" in ns.note and "at 283.6 tok/s measured in run #9" in ns.note, ns.note
