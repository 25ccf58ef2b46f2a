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
    # the prediction still sits above the runs (the step cost is swapped in): said, with the real cause
    gap = [w.value for w in at.warning if w.value.startswith(f"The prediction for {FIRST} is ")]
    assert len(gap) == 1, [w.value for w in at.warning]
    assert f"above run #{runs[2]} at num_steps=3" in gap[0]
    assert "Its acceptance there is what those runs measured, so the gap is the cycle time" in gap[0]
    assert f"fitted to runs {named}" in gap[0] and "typed" not in gap[0]
    # and the headline for that draft names the measured best beside its predicted one
    best = next(m.value for m in at.markdown if m.value.startswith(f"**{FIRST}**: "))
    assert f"the measured best is num_steps=3 at 721.6 tok/s in run #{runs[2]}" in best, best


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
            "a geometric fit to all of them, rising no faster than the last measured gain per step",
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
