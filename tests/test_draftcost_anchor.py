"""The Draft cost tab's acceptance is the sweep's, at every num_steps it measured (walk W).

A user's group held SGLang sweeps at batch 1 and batch 8 (num_steps 1-4, acceptance 2.00/2.46/2.91/3.20). The tab
read the acceptance only from the 1-step run (2.00: every drafted token accepted), carried it as a per-position
acceptance of 1.0 (capped 0.99) to every num_steps, and predicted 3.94 accepted tokens at 3 steps where run #12
measured 2.91: 1418.1 tok/s beside a measured 721.6, a "Predicted best: num_steps=10 at 3586.6 tok/s (+906.9%)", and a
warning that blamed "the acceptance typed for it" though nothing was typed.
"""

from __future__ import annotations

from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from comparelib.analysis import draftcost, speedup
from tests.fixtures import bench_config, bench_store, page_app, page_text, store_run

TARGET = "moonshotai/Kimi-K2.5"
DRAFT = "example:own-kimi-k2.5-draft"  # the built-in draft: its step cost is in the recorded figures
FIRST = "example: own Kimi-K2.5 draft"
OTHER = "AQ-MedAI/Kimi-K2-Instruct-eagle3"
GROUP = "walkw-like"
ALS = (2.00, 2.46, 2.91, 3.20)
# batch: baseline tok/s, then tok/s at num_steps 1..4 (walk W's group)
SWEEPS = {1: (46.9, (75.3, 84.0, 90.2, 89.1)), 8: (356.2, (608.4, 678.1, 721.6, 671.3))}


def _store() -> dict[tuple[int, int], int]:
    """Walk W's group as the bench page stores it; ids by (batch, num_steps), 0 steps the baseline."""
    store = bench_store()
    ids: dict[tuple[int, int], int] = {}
    for batch, (base, tok_s) in SWEEPS.items():
        for k, tps in [(0, base), *zip(range(1, 5), tok_s, strict=True)]:
            cfg = bench_config(
                "sglang", TARGET, k or None, draft=None, topk=1 if k else None, ndt=k + 1 if k else None
            )
            summary: dict[str, Any] = {"requests": 16, "errors": 0, "output_tokens_per_s": tps}
            summary["accept_length"] = ALS[k - 1] if k else None
            ids[(batch, k)] = store_run(store, cfg, summary, group=GROUP, concurrency=batch)
    return ids


def _model() -> speedup.SpeedupModel:
    model = speedup.model_from_runs(bench_store().runs(group=GROUP), target=TARGET)
    assert model.concurrency == 8  # the fitted sweep is batch 8, as on the walk
    return model


# the acceptance each num_steps must use: the measurement where there is one; past 4 steps at least the 3.20
# measured at 4 and at most what the last measured gain per step (3.20 - 2.91) allows; never about k + 1
EXPECTED = [(k, ALS[k - 1], ALS[k - 1], "measured") for k in range(1, 5)] + [
    (k, 3.20, 3.20 + (k - 4) * (3.20 - 2.91), "predicted") for k in range(5, 11)
]


@pytest.mark.parametrize(("k", "lo", "hi", "source"), EXPECTED)
def test_every_num_steps_uses_the_acceptance_the_sweep_measured(k: int, lo: float, hi: float, source: str) -> None:
    _store()
    model = _model()
    side = draftcost.compare(model, [draftcost.Candidate(FIRST, 1.2), draftcost.Candidate(OTHER, 0.8)])
    for name in (FIRST, OTHER):  # the other draft, with nothing typed, is given the same acceptance
        row = side[(side["scenario"] == name) & (side["num_steps"] == k)].iloc[0]
        assert lo - 1e-9 <= row["accept_length"] <= hi + 1e-9, (name, k, row["accept_length"])
        assert row["accept_source"] == source
        # the predicted tok/s is that acceptance over the cycle with the draft's step cost
        m = speedup.with_draft_step(model, row["draft_step_ms"])
        assert row["tok_s"] == pytest.approx(8 * row["accept_length"] / m.cycle_ms(k) * 1000.0)


@pytest.mark.parametrize(
    ("k", "want"),
    # typed 2.76 at 4 steps where 3.20 was measured: each gain over one token scaled by 1.76 / 2.20 = 0.8
    [(1, 1.80), (2, 1 + 1.46 * 0.8), (3, 1 + 1.91 * 0.8), (4, 2.76)],
)
def test_a_typed_acceptance_carries_the_measured_curve_through_it(k: int, want: float) -> None:
    _store()
    model = _model()
    assert draftcost.anchor_steps(model) == 4  # typed at the most positions measured, not at the 1-step run
    side = draftcost.compare(model, [draftcost.Candidate(OTHER, 0.8, typed=2.76, at_steps=4)])
    row = side[side["num_steps"] == k].iloc[0]
    assert row["accept_length"] == pytest.approx(want) and row["accept_source"] == "typed"


def _tab() -> AppTest:
    at = page_app("../pages/scaling.py", timeout=90)
    at.query_params["draft"] = DRAFT
    at.query_params["draft_group"] = GROUP
    at.session_state["sc_tab"] = "Draft cost"
    at.run()
    assert not at.exception, at.exception
    return at


def _table(at: AppTest) -> Any:
    found = [d.value for d in at.dataframe if "predicted tok/s: " in " ".join(map(str, d.value.columns))]
    assert len(found) == 1
    return found[0]


def test_the_tab_predicts_from_the_measured_acceptances_and_names_their_runs() -> None:
    ids = _store()
    runs = [ids[(8, k)] for k in range(1, 5)]
    at = _tab()
    assert at.selectbox(key="sc_dc_first").value == FIRST
    acc = at.number_input(key="sc_dc_acc_1")  # the draft the sweep measured: typed at 4 steps, opens on 3.20
    assert acc.label == f"Acceptance of {FIRST} at 4 steps" and acc.value == pytest.approx(3.20)
    assert acc.help.startswith(f"Starts at run #{runs[3]}'s measured acceptance at 4 steps")
    table = _table(at)
    for k, al in enumerate(ALS, start=1):
        assert table.loc[k, f"acceptance used: {FIRST}"] == pytest.approx(al)
        assert table.loc[k, "measured in run"] == f"#{runs[k - 1]}"
    assert all(table.loc[k, f"acceptance used: {FIRST}"] < 3.2 + (k - 4) * 0.3 for k in range(5, 11))
    text = page_text(at)
    named = ", ".join(f"#{i}" for i in runs[:3]) + f" and #{runs[3]}"
    assert f"{FIRST}'s acceptance: measured at num_steps 1-4 (runs {named}: 2.00, 2.46, 2.91, 3.20)" in text, text
    assert f"at num_steps 5-10 predicted from runs {named} (measured at num_steps 1-4" in text
    assert f"{OTHER}: the same, assumed (no run of the group served it)" in text


def test_a_typed_acceptance_is_named_as_typed_beside_the_run_it_replaces() -> None:
    ids = _store()
    at = _tab()
    at.number_input(key="sc_dc_acc_1").set_value(2.5).run()
    assert not at.exception, at.exception
    table = _table(at)
    assert table.loc[4, f"acceptance used: {FIRST}"] == pytest.approx(2.5)
    assert table.loc[4, f"acceptance used: {OTHER}"] == pytest.approx(3.2)  # nothing typed for it: the sweep's
    gap = next(w.value for w in at.warning if w.value.startswith(f"The prediction for {FIRST} is "))
    assert f"the acceptance typed for it (2.50 at 4 steps where run #{ids[(8, 4)]} measured 3.20)" in gap, gap
    assert f"Used for it: typed, 2.50 at 4 steps, where run #{ids[(8, 4)]} measured 3.20" in page_text(at)


@pytest.mark.parametrize(
    ("points", "said", "not_said"),
    [
        # one 1-step run that accepted every drafted token: the only rate there is, 1.0, is called an upper bound
        ([speedup.SweepPoint(1, 600.0, 2.00, run_id=3)], "an upper bound until another num_steps is measured", None),
        # one run that rejected some: a geometric rate through it, no bound to call
        ([speedup.SweepPoint(2, 600.0, 2.40, run_id=3)], "a geometric rate through that one num_steps", "upper bound"),
        # a sweep whose 1-step run accepted everything: later positions are read from the later runs, not from it
        (
            [speedup.SweepPoint(k, 600.0 + k, al, run_id=10 + k) for k, al in enumerate(ALS, start=1)],
            "a geometric fit to all of them within num_steps 1-4; past 4, each further step adds the share of the "
            "step before that the last two measured gains keep",
            "upper bound",
        ),
    ],
)
def test_the_caption_says_what_an_extrapolated_acceptance_rests_on(
    points: list[speedup.SweepPoint], said: str, not_said: str | None
) -> None:
    model = speedup.fit_sweep(points, concurrency=8)
    words = draftcost.acceptance_sources(model, [draftcost.Candidate(FIRST, 1.0)])
    assert said in words, words
    assert not_said is None or not_said not in words, words


# --------------------------------------------------------------------------------------------
# The cycle: the served draft keeps the one fitted to its runs; another draft's step is that fit + the difference of
# the two drafts' step costs in the same figures (walk W: the recorded H200 figures, 0.54-1.21 ms, replaced the
# 3.87 ms per step fitted to the batch-8 sweep, predicting 15-59% above the very runs the sweep measured)

FIGURES = ["measured: NVIDIA H200", "estimate: bandwidth floor"]  # the two step-cost sources the tab offers


def _figures(which: str) -> tuple[dict[str, Any], float, float, str]:
    """The record, the served draft's and the other draft's step cost at batch 8, and how they were read."""
    record = next(rec for label, rec in draftcost.figure_sources(DRAFT) if label.startswith(which))
    by_name = {d["draft"]: d for d in record["drafts"]}
    first, how = draftcost.step_ms_for_batch(by_name[FIRST], 8, estimate=bool(record.get("estimate")))
    other, _ = draftcost.step_ms_for_batch(by_name[OTHER], 8, estimate=bool(record.get("estimate")))
    return record, first, other, how


def _rows(side: Any, name: str) -> Any:
    return side[side["scenario"] == name].set_index("num_steps")


@pytest.mark.parametrize("which", FIGURES)
def test_the_served_draft_keeps_the_fitted_cycle_and_reproduces_its_runs(which: str) -> None:
    _store()
    model = _model()
    _record, first_ms, other_ms, how = _figures(which)
    side = draftcost.compare(
        model, [draftcost.Candidate(FIRST, first_ms, step_how=how), draftcost.Candidate(OTHER, other_ms, step_how=how)]
    )
    mine = _rows(side, FIRST)
    for k, measured in enumerate(SWEEPS[8][1], start=1):
        assert mine.at[k, "cycle_ms"] == pytest.approx(model.cycle_ms(k))  # the fitted cycle, whatever the figure
        assert mine.at[k, "step_ms"] == pytest.approx(model.t_step_ms)
        # the prediction is the fit's own at the measured acceptance: within the fit's residual of the runs (<4% here)
        assert mine.at[k, "tok_s"] == pytest.approx(8 * ALS[k - 1] / model.cycle_ms(k) * 1000.0)
        assert abs(mine.at[k, "tok_s"] / measured - 1) < 0.04, (k, mine.at[k, "tok_s"], measured)


@pytest.mark.parametrize("which", FIGURES)
def test_another_drafts_step_is_the_fit_plus_the_difference_of_their_step_costs(which: str) -> None:
    _store()
    model = _model()
    _record, first_ms, other_ms, how = _figures(which)
    assert other_ms < first_ms  # the 32K-vocabulary head is the cheaper step in both figures
    side = draftcost.compare(
        model, [draftcost.Candidate(FIRST, first_ms, step_how=how), draftcost.Candidate(OTHER, other_ms, step_how=how)]
    )
    other = _rows(side, OTHER)
    for k in range(1, 11):
        assert other.at[k, "step_ms"] == pytest.approx(model.t_step_ms + (other_ms - first_ms))
        assert other.at[k, "cycle_ms"] == pytest.approx(model.cycle_ms(k) + k * (other_ms - first_ms))
        assert other.at[k, "step_figure_ms"] == pytest.approx(other_ms)
    assert (other["tok_s"] > _rows(side, FIRST)["tok_s"]).all()  # same acceptance, cheaper step


def test_the_caption_says_where_each_per_step_cost_came_from() -> None:
    ids = _store()
    model = _model()
    record, first_ms, other_ms, how = _figures(FIGURES[0])
    cands = [draftcost.Candidate(FIRST, first_ms, step_how=how), draftcost.Candidate(OTHER, other_ms, step_how=how)]
    words = draftcost.step_sources(model, cands, device=record["device_name"])
    runs = "runs " + ", ".join(f"#{ids[(8, k)]}" for k in range(1, 4)) + f" and #{ids[(8, 4)]}"
    assert f"{FIRST}: the 3.87 ms per step and 21.74 ms per cycle fitted to {runs}, its own runs" in words, words
    assert "no verify time was recorded, so that step also counts checking one more token" in words
    assert (
        f"{OTHER}: {FIRST}'s fitted 3.87 ms per step - 0.40 ms = 3.47 ms, the difference of their step costs "
        "measured at batch 8 on NVIDIA H200 (0.81 against 1.21 ms)"
    ) in words, words


def test_without_the_served_drafts_figure_each_figure_replaces_the_fitted_step() -> None:
    """The sweep's draft is not in the figures: nothing to take a difference from, so each draft's own figure stands
    in for the fitted drafting cost, as before, and the page says why the predictions leave the runs."""
    ids = _store()
    model = _model()
    _record, first_ms, other_ms, how = _figures(FIGURES[0])
    cands = [draftcost.Candidate(OTHER, other_ms, step_how=how), draftcost.Candidate(FIRST, first_ms, step_how=how)]
    side = draftcost.compare(model, cands, served=False)
    for c in cands:
        rows = _rows(side, c.label)
        for k in range(1, 11):
            assert rows.at[k, "cycle_ms"] == pytest.approx(speedup.with_draft_step(model, c.step_ms).cycle_ms(k))
    said = draftcost.anchor_problem(model, "acme/draft", in_figures=False)
    assert said is not None and said.startswith("acme/draft, the draft the sweep measured, has no step cost in ")
    assert "cannot be set against the 3.87 ms per step fitted to runs #" in said and f"#{ids[(8, 4)]}" in said
    assert draftcost.anchor_problem(model, FIRST, in_figures=True) is None


# a sweep whose cycle times bend (the 3-step run far slower than the line through the others): the fit itself misses
BENT = [(1, 600.0, 2.00), (2, 700.0, 2.46), (3, 560.0, 2.91), (4, 690.0, 3.20), (5, 700.0, 3.40)]


@pytest.mark.parametrize(
    ("points", "warned"),
    [
        ([(k, tps, al) for k, tps, al in zip(range(1, 5), SWEEPS[8][1], ALS, strict=True)], False),  # walk W: <4%
        (BENT, True),
    ],
)
def test_the_gap_warning_fires_only_where_the_fit_itself_misses(
    points: list[tuple[int, float, float]], warned: bool
) -> None:
    model = speedup.fit_sweep(
        [speedup.SweepPoint(k, tps, al, run_id=20 + k) for k, tps, al in points], concurrency=8, baseline_tok_s=356.2
    )
    cands = [draftcost.Candidate(FIRST, 1.21, step_how="measured at batch 8"), draftcost.Candidate(OTHER, 0.81)]
    side = draftcost.compare(model, cands)
    table = draftcost.side_by_side(side, [FIRST, OTHER], model.measured, acceptances=True)
    gap = draftcost.prediction_gaps(table, FIRST, because=draftcost.gap_reason(model, cands[0], estimate=False))
    if not warned:
        assert gap is None, gap
        return
    assert gap is not None and "above run #23 at num_steps=3" in gap, gap
    assert "its cycle is the one fitted to them" in gap and "so the gap is the fit's own" in gap, gap
    assert "step cost picked" not in gap and "typed" not in gap


def test_the_tab_reproduces_the_served_drafts_runs_and_names_each_step_cost() -> None:
    ids = _store()
    runs = [ids[(8, k)] for k in range(1, 5)]
    at = _tab()
    table = _table(at)
    for k, measured in enumerate(SWEEPS[8][1], start=1):
        assert table.loc[k, "measured tok/s"] == pytest.approx(measured)
        assert abs(table.loc[k, f"predicted tok/s: {FIRST}"] / measured - 1) < 0.04, (k, table.loc[k])
        assert table.loc[k, f"predicted tok/s: {OTHER}"] > table.loc[k, f"predicted tok/s: {FIRST}"]
    # the fit does not miss its runs, so no gap warning and no measured best set beside the predicted one
    assert not [w.value for w in at.warning if w.value.startswith("The prediction for ")], [
        w.value for w in at.warning
    ]
    best = next(m.value for m in at.markdown if m.value.startswith(f"**{FIRST}**: "))
    assert "num_steps=3" in best and "the measured best is" not in best, best
    text = page_text(at)
    named = ", ".join(f"#{i}" for i in runs[:3]) + f" and #{runs[3]}"
    assert f"{FIRST}: the 3.87 ms per step and 21.74 ms per cycle fitted to runs {named}, its own runs" in text, text
    assert (
        f"{OTHER}: {FIRST}'s fitted 3.87 ms per step - 0.40 ms = 3.47 ms, the difference of their step costs" in text
    )
    # a typed acceptance for the served draft still moves it off its runs, and the warning names that, not the step
    at.number_input(key="sc_dc_acc_1").set_value(2.5).run()
    gap = next(w.value for w in at.warning if w.value.startswith(f"The prediction for {FIRST} is "))
    assert "Its cycle is the one fitted to those runs" in gap and "step cost picked" not in gap, gap


def test_a_draft_not_in_the_figures_is_said_to_have_none_and_nothing_is_set_against_the_fit(hub: Any) -> None:
    from tests.fixtures import aq_config, aq_tensors

    hub.add_model("acme/kimi-draft", aq_config(), tensors=aq_tensors())
    ids = _store()
    at = page_app("../pages/scaling.py", timeout=90)
    at.query_params["draft"] = "acme/kimi-draft"
    at.query_params["draft_group"] = GROUP
    at.session_state["sc_tab"] = "Draft cost"
    at.run()
    assert not at.exception, at.exception
    source = at.selectbox(key="sc_dc_source")
    source.set_value(next(o for o in source.options if o.startswith("measured: NVIDIA H200"))).run()
    assert not at.exception, at.exception
    first = at.selectbox(key="sc_dc_first")
    assert first.value == "acme/kimi-draft (no step cost in these figures)", first.options
    warned = [w.value for w in at.warning if w.value.startswith("acme/kimi-draft, the draft the sweep measured")]
    assert len(warned) == 1 and "cannot be set against the 3.87 ms per step fitted to runs #" in warned[0], warned
    assert f"#{ids[(8, 4)]}" in warned[0]
    table = _table(at)
    assert {f"predicted tok/s: {FIRST}", f"predicted tok/s: {OTHER}"} <= set(table.columns)
    assert not [w.value for w in at.warning if w.value.startswith("The prediction for ")]  # no draft here was served
    assert "acme/kimi-draft's acceptance: measured at num_steps 1-4" in page_text(at)


def _calibrated() -> speedup.SpeedupModel:
    """The built-in example's kind of model: one 2-step run with its verify time, the best of num_steps 1-10."""
    return speedup.fit_sweep(
        [speedup.SweepPoint(2, 94.0, 2.1, run_id=3)], concurrency=1, verify_ms=21.8, sweep_range=(1, 10)
    )


@pytest.mark.parametrize(
    # (model, served figure, other figure, the other's per-step cost, its drafting part, words)
    ("which", "first_ms", "other_ms", "step", "drafting", "said"),
    [
        # walk W: no verify time, the whole fitted step counted as drafting; the difference comes off it
        ("walk W", 1.21, 0.81, 3.8749 - 0.40, 3.8749 - 0.40, "fitted 3.87 ms per step - 0.40 ms = 3.47 ms"),
        ("walk W", 0.81, 1.21, 3.8749 + 0.40, 3.8749 + 0.40, "fitted 3.87 ms per step + 0.40 ms = 4.27 ms"),
        # the example's run recorded its verify time: 0.28 ms of its 3.87 ms step is drafting; the step still moves by
        # the difference (not floored at the drafting part), the drafting part at 0 and the rest checking
        ("calibrated", 1.08, 0.68, 3.8728 - 0.40, 0.0, "calibrated 3.87 ms per step - 0.40 ms = 3.47 ms"),
        # a difference larger than the whole step: floored at 0, and said
        ("walk W", 5.0, 0.5, 0.0, 0.0, "= 0.00 ms, the difference of their step costs"),
    ],
)
def test_the_other_drafts_step_moves_by_the_difference_whatever_the_split(
    which: str, first_ms: float, other_ms: float, step: float, drafting: float, said: str
) -> None:
    if which == "walk W":
        _store()
    model = _model() if which == "walk W" else _calibrated()
    cands = [
        draftcost.Candidate(name, ms, step_how="measured at batch 8")
        for name, ms in ((FIRST, first_ms), (OTHER, other_ms))
    ]
    other = _rows(draftcost.compare(model, cands), OTHER)
    assert other.at[2, "step_ms"] == pytest.approx(step, abs=1e-3)
    assert other.at[2, "draft_step_ms"] == pytest.approx(drafting, abs=1e-3)
    assert other.at[2, "cycle_ms"] == pytest.approx(
        model.t_verify_ms + 2 * max(model.t_step_ms + other_ms - first_ms, 0)
    )
    words = draftcost.step_sources(model, cands, device="NVIDIA H200")
    assert f"{OTHER}: {FIRST}'s " in words and said in words, words
    assert ("floored at 0" in words) == (step == 0.0), words
