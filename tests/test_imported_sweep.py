"""An imported run of unrecorded prompts is another setting: the fit never joins it to the app's sweep.

A user walk: a run group held a team's own Llama-3.1-8B EAGLE-3 draft "v2" measured by this app on vLLM at batch 1
(num_steps 1-4, bundled prompts, and a baseline) plus one run imported from a `vllm bench serve` JSON at num_steps 5,
whose prompt set the file does not record. ``speedup --draft v2 --batch 1`` fitted the imported run into v2's
num_steps sweep and read its per-position acceptance rates, while the sweep chart drew it as a setting of its own;
and Overview quoted the 2.35x pair the imported run made against the app's baseline without saying "imported".
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from comparelib.analysis import speedup
from comparelib.live.store import RunRecord
from tests.fixtures import bench_config, bench_store, page_app, run_cli, stored_run

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
V2 = "acme/llama31-8b-eagle3-v2"
GROUP = "llama-v2-b1"
FILE = "v2_k5.json"
# v2 as this app measured it at batch 1: a cycle of 7.5 + 1.2 k ms; the baseline decodes a token in 7.04 ms
AL = {1: 1.75, 2: 2.30, 3: 2.70, 4: 3.00}
BASELINE_TOK_S = 142.0
# the imported run: num_steps 5, 2.35x the baseline, and per-position rates for five positions (vLLM's own)
IMPORTED_TOK_S = round(2.35 * BASELINE_TOK_S, 1)
IMPORTED_RATES = [0.82, 0.62, 0.46, 0.33, 0.24]
IMPORTED_AL = 1 + sum(IMPORTED_RATES)


def _tok_s(k: int) -> float:
    return AL[k] / (7.5 + 1.2 * k) * 1000.0


def _measured() -> list[RunRecord]:
    def run(id_: int, steps: int | None, tok_s: float, al: float | None = None) -> RunRecord:
        return stored_run(
            id_, steps, tok_s, al, engine="vllm", draft=V2, model=LLAMA, concurrency=1, max_tokens=256, topk=None
        )

    return [run(1, None, BASELINE_TOK_S), *(run(1 + k, k, _tok_s(k), AL[k]) for k in AL)]


def _imported(params: dict[str, Any]) -> RunRecord:
    """Run #19 as the importer stores a `vllm bench serve` result (``params``: what the file recorded)."""
    run = stored_run(
        19, 5, IMPORTED_TOK_S, IMPORTED_AL, engine="vllm", draft=V2, model=LLAMA, concurrency=1, topk=None
    )
    return replace(
        run,
        kind="imported",
        params={"format": "vllm bench serve", "source_file": FILE, **params},
        summary={"accept_per_position": IMPORTED_RATES},
    )


# what the imported file recorded -> whether it may join the app's sweep, and what the left-out text says
IMPORTED_CASES = [
    (  # vllm bench serve writes neither the dataset nor the output length
        {"max_concurrency": 1},
        False,
        f"run #19 (vllm, num_steps=5) left out of the fit: imported from {FILE}; its max_tokens and prompt set are "
        "not recorded (run #2: max_tokens 256, prompt set bundled)",
    ),
    (  # the output length recorded, the prompt set not
        {"max_concurrency": 1, "random_output_len": 256},
        False,
        f"run #19 (vllm, num_steps=5) left out of the fit: imported from {FILE}; its prompt set is not recorded "
        "(run #2: prompt set bundled)",
    ),
    (  # another prompt set, recorded
        {"max_concurrency": 1, "random_output_len": 256, "dataset_name": "random"},
        False,
        "run #19 (vllm, num_steps=5) left out of the fit: different prompt_set: random against bundled",
    ),
    (  # the same prompt set and conditions recorded: one setting, it may join
        {"max_concurrency": 1, "random_output_len": 256, "dataset_name": "bundled"},
        True,
        None,
    ),
]


@pytest.mark.parametrize(("params", "joins", "left_out"), IMPORTED_CASES, ids=["bare", "no-prompts", "other", "same"])
@pytest.mark.parametrize("baseline_run_id", [None, 1], ids=["chosen-baseline", "given-baseline"])
def test_an_imported_run_of_unrecorded_prompts_is_not_fitted_into_the_apps_sweep(
    params: dict[str, Any], joins: bool, left_out: str | None, baseline_run_id: int | None
) -> None:
    measured = _measured()
    runs = [*measured, _imported(params)]
    model = speedup.model_from_runs(runs, draft=V2, baseline_run_id=baseline_run_id)
    series = speedup.sweep_series([r for r in runs if not r.is_baseline])
    # fit and chart agree: the imported run is in the fit exactly when the chart draws it on the sweep's line
    assert (series[19] == series[2]) is joins, series
    if joins:
        assert model.fitted_run_ids == (2, 3, 4, 5, 19) and model.left_out == ()
        assert "runs fitted: #2, #3, #4, #5, #19 (imported) (vllm)" in model.notes
        return
    assert model.fitted_run_ids == (2, 3, 4, 5) and model.left_out == (left_out,)
    assert model.per_position is None  # the imported run's per-position rates are not read
    alone = speedup.model_from_runs(measured, draft=V2, baseline_run_id=baseline_run_id)
    frame, want = speedup.predict_frame(model), speedup.predict_frame(alone)
    assert list(frame["accept_length"]) == pytest.approx(list(want["accept_length"]))
    assert speedup.optimum(model).num_steps == speedup.optimum(alone).num_steps
    assert model.baseline_run_id == 1 and "runs fitted: #2, #3, #4, #5 (vllm)" in model.notes
    choices, fitted = speedup.sweep_choices(runs, draft=V2)
    assert fitted is not None and choices[fitted].key == (1, "vllm")


def test_a_pair_made_with_an_imported_run_names_it_imported() -> None:
    """The pair stands (the app's baseline is the only one) and says what the imported run did not record; every
    sentence quoting it names the run as imported."""
    from comparelib.analysis import overview

    runs = [*_measured(), _imported({"max_concurrency": 1})]
    # beside the app's own speculative runs, the app's pair answers (walk R2): a pair of one tool comes first
    own = speedup.best_pair(runs, V2)
    assert own is not None and (own.spec.id, own.baseline.id) == (5, 1) and own.note is None
    runs_mixed = [r for r in runs if r.is_baseline or r.id == 19]  # the imported run is the only speculative one
    pair = speedup.best_pair(runs_mixed, V2)
    assert pair is not None and (pair.spec.id, pair.baseline.id) == (19, 1)
    assert pair.note is not None and "prompt set not recorded by vllm bench serve (run #19)" in pair.note
    live = overview.live_facts(runs_mixed)
    assert live is not None and live.imported == (19,) and live.note == pair.note
    assert live.sentence.startswith("Measured at batch 1: run #19 (imported, vllm, num_steps 5) at 333.7 tok/s"), (
        live.sentence
    )
    assert speedup.run_ref(pair.spec) == "#19 (imported)" and speedup.run_ref(pair.baseline) == "#1"
    # a tree and a chain each against its baseline: the imported chain is named so
    tree = replace(runs[3], id=7, topk=4, num_draft_tokens=8, output_tokens_per_s=300.0)
    said = speedup.chains_and_trees([*runs, tree], V2)
    assert len(said) == 1 and "run #19 (imported)) 2.35x" in said[0], said


# ---------------------------------------------------------------- the CLI and Overview, on a stored group


def _store_group(tmp_path: Path) -> int:
    """The walk's group in the store: the app's runs as the bench page stores them, then the imported file."""
    from comparelib.live.importers import import_file, stated_spec
    from tests.test_importers import vllm_record

    store = bench_store()
    params = {"concurrency": 1, "max_tokens": 256, "temperature": 0.0, "prompt_set": "bundled", "ignore_eos": False}
    for steps in (None, *AL):
        cfg = bench_config("vllm", LLAMA, steps, draft=V2 if steps else None, topk=None, ndt=None)
        rid = store.start_run(endpoint="http://127.0.0.1:8000", server_config=cfg, group=GROUP, params=params)
        tok_s = _tok_s(steps) if steps else BASELINE_TOK_S
        store.finish_run(
            rid, {"requests": 32, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": AL.get(steps or 0)}
        )
    record = vllm_record(detailed=False)
    record.update(
        max_concurrency=1,
        output_throughput=IMPORTED_TOK_S,
        spec_decode_acceptance_length=IMPORTED_AL,
        spec_decode_per_position_acceptance_rates=IMPORTED_RATES,
        model_id=LLAMA,
    )
    path = tmp_path / FILE
    path.write_text(json.dumps(record), encoding="utf-8")
    [imported] = import_file(store, path, group=GROUP, spec=stated_spec("EAGLE3", draft_model=V2), name=FILE)
    return imported


def test_speedup_draft_batch_1_leaves_the_imported_run_out_and_says_why(tmp_path: Path) -> None:
    imported = _store_group(tmp_path)
    proc = run_cli("speedup", "--run-group", GROUP, "--draft", V2, "--batch", "1", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert sorted(p["run_id"] for p in out["measured"]) == [2, 3, 4, 5]
    runs = bench_store().runs(group=GROUP)
    alone = speedup.model_from_runs([r for r in runs if r.id != imported], draft=V2)
    want = speedup.summary(alone)
    assert [round(r["accept_length"], 6) for r in out["predicted"]] == [
        round(r["accept_length"], 6) for r in want["predicted"]
    ]
    assert out["optimum"]["num_steps"] == want["optimum"]["num_steps"]
    text = run_cli("speedup", "--run-group", GROUP, "--draft", V2, "--batch", "1")
    assert text.returncode == 0, text.stderr
    assert (
        f"  - run #{imported} (vllm, num_steps=5) left out of the fit: imported from {FILE}; its max_tokens, "
        "temperature, prompt set and ignore_eos are not recorded (run #2: max_tokens 256, temperature 0, prompt set "
        f"bundled, ignore_eos False); number of requests not recorded for run #2 (run #{imported}: number of requests "
        "3)\n"
    ) in text.stdout, text.stdout  # these app runs' params leave out the number of requests, the import has it
    assert "  - runs fitted: #2, #3, #4, #5 (vllm)\n" in text.stdout
    assert "per-position rates" not in text.stdout  # the imported run's rates are not the sweep's acceptance


def test_overview_answers_with_the_apps_own_pair_before_an_imported_one(tmp_path: Path, hub) -> None:  # noqa: ANN001
    from comparelib.models import registry

    hub.add_model(V2, dict(registry.get_draft("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B").config or {}))
    imported = _store_group(tmp_path)
    at = page_app("../pages/overview.py", timeout=60)
    at.query_params["draft"] = V2
    at.query_params["draft_group"] = GROUP
    at.run()
    assert not at.exception, at.exception
    md = "\n".join(m.value for m in at.markdown)
    # the app's own pair answers, not the faster imported file beside the app's baseline (walk R2)
    assert "**Live speed** (measured): run #5 (vllm, num_steps 4) at batch 1," in md, md
    assert "without: [1.72x](/bench?" in md and f"run #{imported} (imported" not in md.split("**Live speed**")[1], md
