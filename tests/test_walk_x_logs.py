"""Walk X: a log whose ``epoch`` column is training progress, and Acceptance vs data's default setting.

1. ``curve train_overfit.csv`` (``epoch`` 0.25 at 5K samples .. 5.000 at 100K: 20K samples a pass) said "peaked at
   2.16 at pass 4 of 6 (epoch 3 in the log, 60K samples seen) ... 100K samples seen are 6 passes ... Keep the pass-4
   checkpoint": the reader's ``int(epoch)`` made 0.25..0.75 epoch 0 and 5.000 a sixth pass. The same log with whole
   1-based epochs said "pass 3 of 5 ... Keep the pass-3 checkpoint", which is right.
2. Acceptance vs data opened on the setting with most published volumes (``...bs=8,sglang``) and said "To reach 2.548
   on GSM8K at ...bs=8,sglang", while 2.548 is lmsys's Llama-3.1-8B draft's figure at bs=1 (Overview's reference and
   setting) and that draft is not among the bs=8 setting's published drafts.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from comparelib.analysis import curves
from tests.fixtures import LLAMA31_8B_EAGLE3, bench_config, bench_store, cli_in_process, page_app, page_text, store_run
from tests.hub_emulator import HubEmulator

# ------------------------------------------------------------------ 1. epochs as progress, passes as passes

# walk X's train_overfit.csv: a point every 50 steps of 100 samples, eval every 100 steps, 20K samples a pass
WALK_X_EVAL = {  # step: acc_0..acc_2
    100: (0.4000, 0.3400, 0.2880),
    200: (0.5000, 0.4250, 0.3600),
    300: (0.5600, 0.4760, 0.4032),
    400: (0.6000, 0.5100, 0.4320),
    500: (0.6300, 0.5355, 0.4536),
    600: (0.6450, 0.5483, 0.4644),
    700: (0.6300, 0.5355, 0.4536),
    800: (0.6150, 0.5227, 0.4428),
    900: (0.6000, 0.5100, 0.4320),
    1000: (0.5850, 0.4972, 0.4212),
}
STEPS_PER_PASS = 200


def _train_acc(step: int) -> tuple[float, float, float]:
    """Train accuracy that keeps rising (walk X's: 0.447 at step 50 to 0.767 at step 1000)."""
    a0 = 0.80 - 0.353 * math.exp(-(step - 50) / 330)
    return a0, a0 * 0.85, a0 * 0.72


def _log(path: Path, epoch_of: Any, eval_acc: dict[int, tuple[float, ...]] | None = None) -> Path:
    """Walk X's log with its ``epoch`` column written by ``epoch_of(step)``."""
    evals = eval_acc or WALK_X_EVAL
    rows = ["step,samples_seen,epoch,split,acc_0,acc_1,acc_2"]
    for step in range(50, 1001, 50):
        for split, acc in (("eval", evals.get(step)), ("train", _train_acc(step))):
            if acc is not None:
                cells = ",".join(f"{a:.4f}" for a in acc)
                rows.append(f"{step},{step * 100},{epoch_of(step)},{split},{cells}")
    path.write_text("\n".join(rows) + "\n")
    return path


def _progress(step: int) -> str:
    return f"{step / STEPS_PER_PASS:.3f}"  # 0.250 .. 5.000, as walk X's log


WALK_X_WORDS = (
    "peaked at 2.16 at pass 3 of 5 (60K samples seen) and fell 0.16 to 2.00 by pass 5 (100K samples seen)",
    "100K samples seen are 5 passes over the same samples",
    "Keep the pass-3 checkpoint (60K samples seen)",
)

# name, epoch column, the peak's (pass, passes, last pass), words the sentence holds
EPOCH_CASES: list[tuple[str, Any, tuple[int, int, int], tuple[str, ...]]] = [
    ("progress 0.25..5.000 (walk X)", _progress, (3, 5, 5), WALK_X_WORDS),
    ("whole, 1-based (walk X's intepoch)", lambda s: (s - 1) // STEPS_PER_PASS + 1, (3, 5, 5), WALK_X_WORDS),
    (
        "whole, 0-based (speculators')",
        lambda s: (s - 1) // STEPS_PER_PASS,
        (3, 5, 5),
        ("peaked at 2.16 at pass 3 of 5 (epoch 2 in the log, 60K samples seen)", *WALK_X_WORDS[1:]),
    ),
    ("progress to 2 decimals", lambda s: f"{s / STEPS_PER_PASS:.2f}", (3, 5, 5), WALK_X_WORDS),
]


@pytest.mark.parametrize(("name", "epoch_of", "passes", "words"), EPOCH_CASES, ids=[c[0] for c in EPOCH_CASES])
def test_a_peak_is_named_by_its_pass_whatever_the_epoch_convention(
    tmp_path: Path, name: str, epoch_of: Any, passes: tuple[int, int, int], words: tuple[str, ...]
) -> None:
    c = curves.curve([_log(tmp_path / "train.csv", epoch_of)])
    assert c.verdict == "overfitting", c.sentence
    assert c.peak is not None and (c.peak.pass_no, c.peak.passes, c.peak.last_pass) == passes
    for w in words:
        assert w in c.sentence, c.sentence
    assert "pass 4" not in c.sentence and "6 passes" not in c.sentence and "of 6" not in c.sentence


def test_an_eval_at_epoch_zero_is_before_the_first_pass_not_a_pass_of_its_own(tmp_path: Path) -> None:
    """Progress logs often evaluate before training (epoch 0.000): that point is in pass 1, not pass 0 or a sixth."""
    log = _log(tmp_path / "train.csv", _progress)
    lines = log.read_text().splitlines()
    log.write_text("\n".join([lines[0], "0,0,0.000,eval,0.3000,0.2500,0.2000", *lines[1:]]) + "\n")
    c = curves.curve([log])
    assert c.peak is not None and (c.peak.pass_no, c.peak.passes, c.peak.last_pass) == (3, 5, 5), c.sentence
    for w in WALK_X_WORDS:
        assert w in c.sentence, c.sentence


def test_a_peak_part_way_through_a_pass_is_kept_by_its_step_not_the_pass_checkpoint(tmp_path: Path) -> None:
    """A peak at epoch 2.5 is in pass 3, half through it: the pass-3 checkpoint (saved at 3.000) is after it."""
    evals = dict(WALK_X_EVAL)
    evals[500], evals[600] = WALK_X_EVAL[600], WALK_X_EVAL[500]  # the peak at step 500, epoch 2.500
    c = curves.curve([_log(tmp_path / "train.csv", _progress, evals)])
    assert c.peak is not None and c.peak.epoch == 2.5 and c.peak.pass_no == 3, c.sentence
    assert "peaked at 2.16 at pass 3 of 5 (epoch 2.5 in the log, 50K samples seen)" in c.sentence, c.sentence
    assert "Keep the checkpoint at step 500 (50K samples seen)" in c.sentence, c.sentence
    assert "pass-3 checkpoint" not in c.sentence


def test_the_curve_command_says_walk_xs_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    done = cli_in_process(capsys, "curve", str(_log(tmp_path / "train_overfit.csv", _progress)))
    assert done.returncode == 0, done.stderr
    for w in WALK_X_WORDS:
        assert w in done.stdout, done.stdout
    assert "pass 4 of 6" not in done.stdout


def test_a_kept_curve_keeps_the_logs_progress_epochs(tmp_path: Path) -> None:
    """Kept with the draft and read back (a share link), the curve names the same passes: 0.25 is not stored as 0."""
    c = curves.curve([_log(tmp_path / "train.csv", _progress)])
    back = curves.from_stored(curves.to_stored(c))
    assert [p.epoch for p in back.points] == [p.epoch for p in c.points]
    assert back.points[0].epoch == 0.25
    assert back.sentence == c.sentence


# ------------------------------------------------------------------ 2. the reference's setting, by default

DRAFT = "walkx/llama31-8b-eagle3-fullvocab"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
REFERENCE = "lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge"
GROUP = "walkx-l31"
CARD = f"---\nbase_model: {LLAMA}\nlibrary_name: sglang\ntags: [eagle3]\n---\n# {DRAFT}\n"
BS1 = "steps=3,topk=1,draft=4,bs=1,sglang"
BS8 = "steps=3,topk=1,draft=4,bs=8,sglang"


def _group() -> dict[int, int]:
    """Walk X's group: an SGLang sweep at batch 1 (baseline, then num_steps 1..3); run ids by num_steps."""
    store = bench_store()
    ids = {}
    for k, (tps, al) in enumerate([(60.0, None), (80.0, 1.8), (98.0, 2.4), (104.0, 3.0)]):
        cfg = bench_config("sglang", LLAMA, k or None, draft=DRAFT if k else None, topk=1 if k else None,
                           ndt=k + 1 if k else None)  # fmt: skip
        summary: dict[str, Any] = {"requests": 16, "errors": 0, "output_tokens_per_s": tps, "accept_length": al}
        ids[k] = store_run(store, cfg, summary, group=GROUP, concurrency=1, endpoint="http://sglang:8000")
    return ids


def _page(hub: HubEmulator, path: str = "../pages/scaling.py", tab: str | None = None) -> AppTest:
    import streamlit as st

    st.cache_data.clear()
    hub.add_model(DRAFT, LLAMA31_8B_EAGLE3, card=CARD)
    at = page_app(path, timeout=120)
    for key, value in {"draft": DRAFT, "draft_group": GROUP}.items():
        at.query_params[key] = value
    if tab:
        at.session_state["sc_tab"] = tab
    at.run()
    assert not at.exception, at.exception
    return at


def test_acceptance_vs_data_opens_on_the_setting_its_reference_and_target_are_at(hub: HubEmulator) -> None:
    ids = _group()
    overview_text = page_text(_page(hub, "../pages/overview.py"))
    assert f"at the published setting {BS1}" in overview_text, overview_text
    at = _page(hub)
    assert at.selectbox(key="sc_ref").value == REFERENCE
    assert at.selectbox(key="sc_bench").value == "gsm8k"
    assert at.selectbox(key="sc_setting").value == BS1  # was BS8, the setting with most published volumes
    assert at.number_input(key="sc_target").value == pytest.approx(2.548)
    text = page_text(at)
    assert f"on GSM8K at {BS8}" not in text, text  # no headline at a setting the target is not published at
    # the headline names the reference's setting, says why there is no fit there, and which setting of the same
    # chain can be fitted
    warned = " ".join(w.value for w in at.warning)
    assert f"No fit for GSM8K at {BS1}: need at least 3 distinct training volumes" in warned, warned
    assert f"It is the setting {REFERENCE} publishes at (the reference)." in warned, warned
    assert f"{BS8} drafts the same chain (3,1,4) (7 points, 3 volumes): pick it" in warned, warned
    assert "for a fit there; the reference publishes no figure at it." in warned, warned
    assert f"Your acceptance: 3.00, run #{ids[3]} (at the published setting {BS1})" in text, text
    assert f"GSM8K at {BS1}, x axis: samples" in text
    # no fit there, but your own evidence still answers first: the run measured 3.00 against the target 2.548
    lead = [m.value for m in at.markdown if m.value.startswith("**")]
    assert lead and lead[0].startswith(f"**Your draft already measured 3.00 (run #{ids[3]}"), lead
    assert "at or above the target 2.548" in lead[0], lead


def test_the_published_drafts_listed_are_at_the_targets_setting(hub: HubEmulator, tmp_path: Path) -> None:
    _group()
    at = _page(hub, tab="Learning curve")
    at.text_input(key="lc_path").input(str(_log(tmp_path / "train_overfit.csv", _progress))).run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert f"**Published drafts at GSM8K, {BS1}**" in text, text
    listed = next(d.value for d in at.dataframe if "draft" in d.value.columns and "source" in d.value.columns)
    assert REFERENCE in set(listed["draft"]), listed  # the target's draft among them (at bs=8 it was not)
    assert listed.loc[listed["draft"] == REFERENCE, "accept_length"].tolist() == [pytest.approx(2.548)]
    assert "pass 3 of 5" in text and "pass 4 of 6" not in text, text


def test_a_setting_picked_stays_until_the_reference_changes(hub: HubEmulator) -> None:
    _group()
    at = _page(hub)
    at.selectbox(key="sc_setting").set_value(BS8).run()
    assert not at.exception and at.selectbox(key="sc_setting").value == BS8
    text = page_text(at)
    # the fit's answer where the user asked for it, the target (lmsys's bs=1 figure) at its own setting (walk AE)
    assert f"To reach 2.548 on GSM8K, published at {BS1}, you need about" in text, text
    assert f"by the log-linear fit at {BS8}" in text, text
    at.selectbox(key="sc_bench").set_value("gsm8k").run()  # a rerun keeps the pick
    assert at.selectbox(key="sc_setting").value == BS8
    at.selectbox(key="sc_ref").set_value("AQ-MedAI/Kimi-K2-Instruct-eagle3").run()
    assert not at.exception
    assert at.selectbox(key="sc_setting").value == BS8  # Kimi-K2's draft publishes GSM8K at bs=8
    at.selectbox(key="sc_ref").set_value(REFERENCE).run()
    assert at.selectbox(key="sc_setting").value == BS1


def test_default_setting_is_the_references_published_one() -> None:
    from comparelib.analysis import overview, scaling

    pub = scaling.published_points()
    # reference, benchmark, the setting a page opens on
    cases = [
        (REFERENCE, "gsm8k", BS1),
        ("AQ-MedAI/Kimi-K2-Instruct-eagle3", "gsm8k", BS8),
        (None, "gsm8k", BS8),  # no reference: the best-fittable setting, as before
        ("acme/not-published", "gsm8k", BS8),
    ]
    for ref, bench, want in cases:
        got = scaling.default_setting(pub, bench, ref, overview.reference_settings(ref) if ref else ())
        assert got == want, (ref, got)
    alt = scaling.fittable_same_chain(pub, "gsm8k", BS1)
    assert alt is not None and (alt.setting_key, alt.chain) == (BS8, "(3,1,4)")
    assert scaling.fittable_same_chain(pub, "gsm8k", BS8) is None  # fittable itself
