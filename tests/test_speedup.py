"""The speedup model: sweeps generated from a known cost model must give it back, and the built-in
Kimi-K2.5 session (one speculative point plus notes) must come out as it was measured."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from comparelib import cli
from comparelib.analysis import speedup
from comparelib.errors import DataError
from comparelib.live.store import Store
from tests.fixtures import run_cli

ACCEPT_CASES = [(0.0, 3, 1.0), (0.5, 1, 1.5), (0.5, 2, 1.75), (0.8, 3, 2.952), (1.0, 4, 5.0)]


@pytest.mark.parametrize(("alpha", "k", "expected"), ACCEPT_CASES)
def test_geometric_acceptance(alpha: float, k: int, expected: float) -> None:
    assert speedup.geometric_accept(alpha, k) == pytest.approx(expected)
    if 0 < alpha < 1:
        assert speedup.alpha_for(expected, k) == pytest.approx(alpha, abs=1e-9)


def test_alpha_for_rejects_impossible_acceptance() -> None:
    with pytest.raises(DataError, match="impossible"):
        speedup.alpha_for(3.5, 2)


def true_tok_s(t_verify: float, t_draft: float, alpha: float, k: int, concurrency: int = 1) -> float:
    return concurrency * speedup.geometric_accept(alpha, k) / (t_verify + k * t_draft) * 1000.0


# (verify ms, draft step ms, alpha, swept num_steps, concurrency)
SWEEPS = [
    (20.0, 1.5, 0.70, [1, 2, 3, 4, 5, 6, 7], 1),
    (12.0, 0.8, 0.80, [1, 3, 5, 7], 1),
    (30.0, 6.0, 0.55, [2, 4, 6], 1),
    (8.0, 2.5, 0.65, [1, 2, 3, 4, 5], 8),
]


def _true_optimum(tv: float, td: float, a: float, c: int, measured: Sequence[int] = ()) -> int:
    """The num_steps the rule names under the true model: the smallest within 2% of the fastest, the smallest
    measured one where one of them was measured (a prediction that only ties a measurement is not named over it)."""
    top = max(true_tok_s(tv, td, a, k, c) for k in range(1, 11))
    ties = [k for k in range(1, 11) if true_tok_s(tv, td, a, k, c) >= top * (1 - speedup.TIE_TOLERANCE)]
    return min([k for k in ties if k in measured] or ties)


@pytest.mark.parametrize(("tv", "td", "alpha", "steps", "conc"), SWEEPS)
def test_fit_recovers_the_generating_model(tv: float, td: float, alpha: float, steps: list[int], conc: int) -> None:
    points = [
        speedup.SweepPoint(k, true_tok_s(tv, td, alpha, k, conc), speedup.geometric_accept(alpha, k)) for k in steps
    ]
    m = speedup.fit_sweep(points, baseline_tok_s=conc * 1000.0 / tv, concurrency=conc)
    assert m.method == "fit"
    assert m.t_verify_ms == pytest.approx(tv, rel=1e-6)
    assert m.t_step_ms == pytest.approx(td, rel=1e-6)
    assert m.alpha == pytest.approx(alpha, abs=1e-6)
    opt = speedup.optimum(m)
    assert opt.num_steps == _true_optimum(tv, td, alpha, conc, steps)
    assert opt.tok_s == pytest.approx(true_tok_s(tv, td, alpha, opt.num_steps, conc), rel=1e-6)
    k = opt.num_steps
    assert opt.verify_share == pytest.approx(tv / (tv + k * td), rel=1e-6)


@pytest.mark.parametrize(("tv", "td", "alpha", "steps", "conc"), SWEEPS[:2])
def test_fit_is_close_under_measurement_noise(tv: float, td: float, alpha: float, steps: list[int], conc: int) -> None:
    wiggle = [1.004, 0.996, 1.003, 0.997, 1.002, 0.998, 1.001]  # +-0.4%, fixed so the test is deterministic
    points = [
        speedup.SweepPoint(
            k, true_tok_s(tv, td, alpha, k, conc) * wiggle[i], speedup.geometric_accept(alpha, k) / wiggle[-1 - i]
        )
        for i, k in enumerate(steps)
    ]
    m = speedup.fit_sweep(points, concurrency=conc)
    assert m.t_verify_ms == pytest.approx(tv, rel=0.05)
    assert m.t_step_ms == pytest.approx(td, rel=0.15)
    assert m.alpha == pytest.approx(alpha, abs=0.01)
    best = speedup.optimum(m)
    true_best = _true_optimum(tv, td, alpha, conc)
    # the noisy optimum is the true one, or one within the tie tolerance of it under the true model
    assert true_tok_s(tv, td, alpha, best.num_steps, conc) >= true_tok_s(tv, td, alpha, true_best, conc) * 0.98


def test_predictions_are_marked_and_higher_acceptance_helps() -> None:
    points = [speedup.SweepPoint(k, true_tok_s(20, 1.5, 0.6, k), speedup.geometric_accept(0.6, k)) for k in (1, 2, 3)]
    m = speedup.fit_sweep(points, baseline_tok_s=50.0)
    frame = speedup.what_if(m, 3.0, at_steps=3)
    assert set(frame["kind"]) == {"predicted"}
    cur = frame[frame["scenario"] == "current draft"].set_index("num_steps")["tok_s"]
    better = frame[frame["scenario"] != "current draft"].set_index("num_steps")["tok_s"]
    assert (better > cur).all()
    assert speedup.predict_frame(m)["speedup"].iloc[0] == pytest.approx(cur.iloc[0] / 50.0)


@pytest.fixture()
def example_runs():  # type: ignore[no-untyped-def]
    store = Store("sqlite://")
    store.ensure_examples()
    return store, store.runs(group="example-kimi-k2.5")


def test_kimi_example_agrees_with_what_was_measured(example_runs) -> None:  # type: ignore[no-untyped-def]
    store, runs = example_runs
    before = len(store.runs())
    m = speedup.model_from_runs(runs)
    assert m.method == "calibrated"
    assert m.baseline_tok_s == 88.8  # the NCCL-tuned baseline, not the 62.9 default-environment one
    assert m.alpha == pytest.approx(speedup.alpha_for(2.1, 2))
    opt = speedup.optimum(m)
    assert opt.num_steps == 2
    assert opt.tok_s == pytest.approx(94.0, abs=0.05)
    assert opt.speedup == pytest.approx(94.0 / 88.8, abs=1e-3)
    assert opt.verify_share > 0.95
    # not a tie: the next best (3 steps) is more than the 2% noise band below
    assert opt.runner_up == 3 and not opt.tie and opt.runner_up_tok_s < 94.0 * 0.98
    assert "num_steps=2 at 94.0 tok/s (+5.9% against 88.8 tok/s" in opt.sentence
    frame = speedup.predict_frame(m)
    assert (frame["verify_share"] > 0.9).all()
    assert frame.loc[frame["num_steps"] == 2, "cycle_ms"].item() == pytest.approx(2.1 / 94.0 * 1000)
    # verify time inside the 21-28 ms the session measured
    assert 21.0 <= m.verify_ms(2) <= 28.0
    assert any("best of num_steps 1..10" in n for n in m.notes)
    # predictions are never written to the store
    speedup.what_if(m, 3.27, at_steps=3)
    assert len(store.runs()) == before


def test_one_point_without_sweep_note_keeps_drafting_only() -> None:
    m = speedup.fit_sweep([speedup.SweepPoint(2, 94.0, 2.1)], verify_ms=(21.0, 28.0), verify_share_min=0.95)
    assert m.method == "calibrated"
    assert m.t_step_ms == pytest.approx(m.t_draft_ms)
    assert m.cycle_ms(2) == pytest.approx(2.1 / 94.0 * 1000)


def test_model_from_runs_needs_a_speculative_run(example_runs) -> None:  # type: ignore[no-untyped-def]
    _, runs = example_runs
    with pytest.raises(DataError, match="no finished speculative run"):
        speedup.model_from_runs([r for r in runs if r.is_baseline])


def test_cli_speedup_on_the_example_group() -> None:
    proc = run_cli(
        "speedup", "--run-group", "example-kimi-k2.5", "--target-accept", "3.27", "--at-steps", "3", "--json"
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["optimum"]["num_steps"] == 2
    assert out["optimum"]["tok_s"] == pytest.approx(94.0, abs=0.05)
    assert [r["num_steps"] for r in out["predicted"]] == list(range(1, 11))
    assert {r["kind"] for r in out["predicted"]} == {"predicted"}
    assert out["what_if_optimum"]["tok_s"] > 94.0
    assert out["missing"] == []  # the example's notes give enough evidence


def test_cli_speedup_says_what_is_missing_for_one_point(tmp_path) -> None:  # type: ignore[no-untyped-def]
    url = f"sqlite:///{tmp_path / 'r.sqlite'}"
    store = Store(url)
    rid = store.start_run(
        endpoint="http://h:1",
        group="one",
        params={"concurrency": 8},
        server_config={
            "engine": "sglang",
            "model": "m",
            "speculative_algorithm": "EAGLE3",
            "num_steps": 3,
            "num_draft_tokens": 4,
        },
    )
    store.finish_run(rid, {"requests": 8, "output_tokens_per_s": 2827.7, "accept_length": 2.5})
    proc = run_cli("speedup", "--run-group", "one", "--db", url)
    assert proc.returncode == 0, proc.stderr
    assert "Predicted best" not in proc.stdout
    assert "no prediction of the best num_steps yet; missing: only one num_steps was measured (3)" in proc.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("speedup", "--run-group", "no-such-group"),
        ("speedup", "--run-group", "example-kimi-k2.5", "--max-steps", "0"),
        ("speedup",),
    ],
)
def test_cli_speedup_bad_input_exits_2(args: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    from comparelib import cli

    try:
        code = cli.main(list(args))
    except SystemExit as exc:  # argparse's own errors (a missing option) exit from inside the parser
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1


def test_per_position_rates_are_used_when_measured() -> None:
    # vLLM's rates are fractions of all drafts (``num_accepted_tokens_per_pos / num_drafts``): L = 1 + sum
    rates = (0.8, 0.6, 0.4)
    assert speedup.accept_from_positions(rates, 3) == pytest.approx(1 + 0.8 + 0.6 + 0.4)
    # past the measured positions the last conditional rate (0.4 / 0.6) carries on
    assert speedup.accept_from_positions(rates, 4) == pytest.approx(2.8 + 0.4 * (0.4 / 0.6))
    assert speedup.accept_from_positions((0.7,), 2) == pytest.approx(1 + 0.7 + 0.49)
    points = [
        speedup.SweepPoint(
            k,
            1000 * speedup.accept_from_positions(rates[:k], k) / (20 + 2 * k),
            speedup.accept_from_positions(rates[:k], k),
            accept_per_position=rates[:k],
        )
        for k in (1, 2, 3)
    ]
    m = speedup.fit_sweep(points)
    assert m.per_position == rates  # the longest run's, not the first run's one rate
    assert m.t_verify_ms == pytest.approx(20.0) and m.t_step_ms == pytest.approx(2.0)
    assert m.accept_length(2) == pytest.approx(2.4)


# walk L: a vLLM sweep at concurrency 1, with the rates vLLM's counters gave (measured best: 3 steps)
WALK_L = [
    (1, 61.02, 1.7910, (0.791,)),
    (2, 73.48, 2.4, (0.8, 0.6)),
    (3, 78.65, 2.7907, (0.814, 0.581, 0.395)),
    (4, 76.98, 3.0, (0.8, 0.6, 0.4, 0.2)),
    (5, 77.87, 3.2432, (0.811, 0.595, 0.405, 0.216, 0.216)),
]


def test_a_vllm_sweep_is_extrapolated_from_its_longest_rates() -> None:
    """The k=1 run's one rate, read as a conditional rate, predicted 3.86 at six steps and named 6 the best
    num_steps at 85.9 tok/s, faster than any run measured."""
    pts = [speedup.SweepPoint(k, t, a, i, r) for i, (k, t, a, r) in enumerate(WALK_L)]
    m = speedup.fit_sweep(pts, baseline_tok_s=38.75)
    assert m.accept_at(6) == pytest.approx(3.2432 + 0.216, abs=2e-3)
    assert any("per-position rates of run #4" in n for n in m.notes)
    best = speedup.optimum(m)
    assert best.num_steps == 3
    assert best.tok_s <= max(t for _, t, _, _ in WALK_L) * 1.01


def test_rates_shorter_than_the_sweep_are_set_aside() -> None:
    pts = [speedup.SweepPoint(k, t, a, i, r if k == 1 else None) for i, (k, t, a, r) in enumerate(WALK_L)]
    m = speedup.fit_sweep(pts, baseline_tok_s=38.75)
    assert m.per_position is None
    assert any("measured for 1 position only" in n for n in m.notes)
    assert speedup.optimum(m).num_steps <= 5


# (points (num_steps, tok/s, acceptance), baseline tok/s, what is reported missing)
EVIDENCE_CASES = [
    ([(3, 2827.7, 2.5)], None, ["only one num_steps was measured (3)", "a baseline run"]),
    ([(3, 2827.7, 2.5)], 1500.0, ["only one num_steps was measured (3)"]),
    ([(2, 90.0, 2.2), (4, 95.0, 2.9)], None, ["a baseline run"]),
    ([(2, 90.0, 2.2), (4, 95.0, 2.9)], 80.0, []),
]


@pytest.mark.parametrize(("points", "base", "missing"), EVIDENCE_CASES)
def test_predictions_need_enough_evidence(points, base, missing) -> None:  # type: ignore[no-untyped-def]
    model = speedup.fit_sweep([speedup.SweepPoint(k, t, a) for k, t, a in points], baseline_tok_s=base)
    found = speedup.missing_evidence(model)
    assert len(found) == len(missing)
    for text, expected in zip(found, missing, strict=False):
        assert expected in text


def test_the_example_session_has_enough_evidence(tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    store.ensure_examples()
    assert speedup.missing_evidence(speedup.model_from_runs(store.runs())) == []


def test_a_prediction_below_a_measured_point_says_so() -> None:
    """A fit whose best predicted num_steps is slower than a measured run must not pass silently."""
    points = [
        speedup.SweepPoint(2, 600.0, 2.4, run_id=11),
        speedup.SweepPoint(4, 1057.0, 3.1, run_id=12),
    ]
    m = speedup.fit_sweep(points, concurrency=8)
    frame = speedup.predict_frame(m)
    frame["tok_s"] = frame["tok_s"].clip(upper=771.6)  # a model that underestimates, as the user saw
    opt = speedup.optimum(m, frame=frame)
    assert opt.measured_faster == 1057.0
    assert "Measured faster than this prediction: 1057.0 tok/s at num_steps=4 (run #12)" in opt.sentence
    honest = speedup.optimum(m)
    assert honest.measured_faster is None or honest.measured_faster > honest.tok_s


# a measured run above the fastest prediction by this share; whether the page warns (the tie tolerance is 2%)
FASTER_CASES = [(0.017, False), (0.0, False), (0.03, True)]


@pytest.mark.parametrize(("above", "warns"), FASTER_CASES)
def test_a_measured_run_within_noise_of_the_prediction_is_no_alarm(above: float, warns: bool) -> None:
    """636.2 measured against 625.2 predicted (1.7%) said "the model underestimates this group"."""
    points = [speedup.SweepPoint(2, 600.0, 2.17, run_id=3), speedup.SweepPoint(3, 636.2, 2.51, run_id=4)]
    m = speedup.fit_sweep(points, concurrency=4)
    frame = speedup.predict_frame(m)
    frame["tok_s"] = frame["tok_s"].clip(upper=636.2 / (1 + above))  # a model that is this much too low
    opt = speedup.optimum(m, frame=frame)
    assert ("Measured faster than this prediction" in opt.sentence) is warns, opt.sentence
    assert (opt.measured_faster is not None) is warns


def test_cli_speedup_marks_measured_and_predicted_acceptance(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The "accept" column showed the geometric 2.56 at num_steps 3 where 2.51 was measured, unmarked."""
    url = f"sqlite:///{tmp_path / 'r.sqlite'}"
    store = Store(url)
    for k, tok_s, al in ((2, 601.4, 2.17), (3, 623.8, 2.51), (4, 623.9, 2.77)):
        rid = store.start_run(
            endpoint="http://h:1",
            group="walk",
            params={"concurrency": 4},
            server_config={
                "engine": "vllm",
                "model": "Qwen/Qwen3-8B",
                "speculative_algorithm": "EAGLE3",
                "num_steps": k,
                "num_draft_tokens": k + 1,
            },
        )
        store.finish_run(rid, {"requests": 8, "output_tokens_per_s": tok_s, "accept_length": al})
    proc = run_cli("speedup", "--run-group", "walk", "--db", url)
    assert proc.returncode == 0, proc.stderr
    rows = {int(line.split()[0]): line.split()[1:3] for line in proc.stdout.splitlines() if line[:9].strip().isdigit()}
    assert rows[3] == ["2.51", "m"] and rows[2] == ["2.17", "m"] and rows[4] == ["2.77", "m"]
    assert rows[1][1] == "p" and rows[6][1] == "p"
    assert "m = measured" in proc.stdout and "p = predicted" in proc.stdout
    out = json.loads(run_cli("speedup", "--run-group", "walk", "--db", url, "--json").stdout)
    assert [r["accept_source"] for r in out["predicted"][:5]] == [
        "predicted",
        "measured",
        "measured",
        "measured",
        "predicted",
    ]


# walk L's second sweep, batch 16 (tok/s measured; acceptance as at batch 1)
WALK_L_16 = [(1, 675.33), (2, 744.86), (3, 717.19), (4, 691.82), (5, 663.83)]


def _seed_walk_l(group: str, *, sglang_too: bool = False) -> None:
    from comparelib import settings
    from comparelib.live.store import Store

    store = Store(settings.database_url())
    rows = [(1, None, 38.75, None, None, "vllm"), (16, None, 473.15, None, None, "vllm")]
    rows += [(1, k, t, a, r, "vllm") for k, t, a, r in WALK_L]
    rows += [(16, k, t, WALK_L[k - 1][2], WALK_L[k - 1][3], "vllm") for k, t in WALK_L_16]
    if sglang_too:  # the same draft on SGLang at batch 1, a little faster
        rows += [(1, None, 40.1, None, None, "sglang")] + [
            (1, k, t * 1.05, a, None, "sglang") for k, t, a, _ in WALK_L
        ]
    for batch, steps, tok_s, al, rates, engine in rows:
        cfg = {
            "engine": engine,
            "model": "meta-llama/Llama-3.3-70B-Instruct",
            "speculative_algorithm": "EAGLE3" if steps else None,
            "draft_model": "labx/llama33-70b-eagle3" if steps else None,
            "num_steps": steps,
        }
        rid = store.start_run(endpoint="http://127.0.0.1:8000", server_config=cfg, group=group,
                              params={"concurrency": batch})  # fmt: skip
        summary = {"requests": 12, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": al}
        if rates:
            summary["accept_per_position"] = list(rates)
        store.finish_run(rid, summary)


def test_speedup_fits_the_batch_asked_for(capsys: pytest.CaptureFixture[str]) -> None:
    """Walk L swept batch 1 and 16; the CLI fitted one of them with no way to ask for the other."""
    _seed_walk_l("walk-l")
    assert cli.main(["speedup", "--run-group", "walk-l"]) == 0
    out = capsys.readouterr().out
    fitted = 16 if "fitted at batch 16" in out else 1
    other = 1 if fitted == 16 else 16
    assert f"the group also swept batch {other}: --batch {other} fits that sweep" in out, out
    assert cli.main(["speedup", "--run-group", "walk-l", "--batch", "1", "--json"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert [p["num_steps"] for p in one["measured"]] == [1, 2, 3, 4, 5]
    assert one["optimum"]["num_steps"] == 3  # the batch-1 runs' best, within 2%
    assert cli.main(["speedup", "--run-group", "walk-l", "--batch", "64"]) == 2
    err = capsys.readouterr().err
    assert "no speculative run at batch 64 in group 'walk-l'; its sweeps ran at batch 1, 16" in err, err


def test_speedup_fits_the_engine_asked_for(capsys: pytest.CaptureFixture[str]) -> None:
    """Acceptance vs data's Sweep box picks a batch and an engine; at batch 1 the CLI could not choose vLLM's sweep
    over SGLang's."""
    _seed_walk_l("two-engines", sglang_too=True)
    for engine in ("vllm", "sglang"):
        assert cli.main(["speedup", "--run-group", "two-engines", "--batch", "1", "--engine", engine, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert [p["num_steps"] for p in out["measured"]] == [1, 2, 3, 4, 5]
        expected = [round(t * (1.05 if engine == "sglang" else 1.0), 6) for _, t, _, _ in WALK_L]
        assert [round(p["tok_s"], 6) for p in out["measured"]] == expected
    assert cli.main(["speedup", "--run-group", "two-engines", "--batch", "16", "--engine", "sglang"]) == 2
    err = capsys.readouterr().err
    assert "no speculative run on sglang at batch 16 in group 'two-engines'; its sweeps ran on vllm" in err, err


# (tree tok/s, chain tok/s, the verdict's words): baseline 100 tok/s, one batch
TREE_CASES = [
    (219.7, 212.6, "the tree is 3% faster"),
    (127.5, 129.0, "within 2%: a tie within run-to-run noise"),
    (106.0, 129.0, "the chain is 22% faster"),
]


@pytest.mark.parametrize(("tree", "chain", "said"), TREE_CASES)
def test_chains_and_trees_compare_the_best_measured_pairs(tree: float, chain: float, said: str) -> None:
    from dataclasses import replace

    from tests.fixtures import stored_run

    runs = [
        stored_run(1, None, 100.0, concurrency=1),
        stored_run(2, 4, chain, 3.2, draft="me/d", concurrency=1),
        stored_run(3, 2, chain * 0.9, 2.4, draft="me/d", concurrency=1),
        replace(stored_run(4, 3, tree, 3.6, draft="me/d", concurrency=1), topk=4, num_draft_tokens=8),
    ]
    (line,) = speedup.chains_and_trees(runs, "me/d")
    assert line.startswith(
        f"batch 1, sglang: best tree (num_steps 3, topk 4, 8 draft tokens, run #4) {tree / 100:.2f}x against the "
        f"best chain (num_steps 4, run #2) {chain / 100:.2f}x"
    ), line
    assert line.endswith(said), line


def test_chains_and_trees_never_set_one_drafts_tree_against_anothers_chain() -> None:
    from dataclasses import replace

    from tests.fixtures import stored_run

    runs = [
        stored_run(1, None, 100.0, concurrency=1),
        stored_run(2, 4, 180.0, 3.2, draft="me/a", concurrency=1),
        replace(stored_run(3, 3, 150.0, 3.6, draft="me/b", concurrency=1), topk=4, num_draft_tokens=8),
    ]
    assert speedup.chains_and_trees(runs) == []  # a's chain and b's tree: no draft ran both
    runs.append(replace(stored_run(4, 3, 190.0, 3.6, draft="me/a", concurrency=1), topk=4, num_draft_tokens=8))
    (line,) = speedup.chains_and_trees(runs)
    assert line.startswith("batch 1, sglang, me/a: best tree (num_steps 3, topk 4, 8 draft tokens, run #4)"), line
