"""Walks AL and AM on the plan: a training log kept with the draft, and what the plan says of it.

AL3: ``plan DRAFT --group G --samples N`` read the log KEPT with the draft (speculators, 5 positions, 16 samples per
logged step) at its own 5 positions while the plan was at 3 steps ("its ceiling 25.61 is above the 6.00 a 5-position
chain can reach"); ``--curve LOG --batch-size 16`` gave "17.54 is above the 4.00 a 3-position chain". The README: the
log is read over the plan's ``--steps`` positions, however it arrives (kept, loaded on Acceptance vs data, --curve).

AL4: with a still-rising log Overview's headline says "Your training log is still rising, which agrees: more data
should help" while the plan's lead said only "More training data is not predicted for your draft, which the
published trend does not place" and its row named nothing of the log: the row names the log's measured slope.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from comparelib import cli
from comparelib.analysis import curves, plan
from comparelib.models import comparison
from tests.fixtures import aq_config, aq_tensors, bench_store

DRAFT = "acme/kimi-draft-rising"
GROUP = "rising-sweep"
SAMPLES = "120000"


def _speculators_log(path: Path) -> Path:
    """Walk AL's make_log.py: speculators 0.9.0 console lines, 5 positions, 7,500 steps, still rising at its end."""
    lines = []
    for step in range(100, 7501, 100):
        x = math.log2(step / 100)
        acc = [min(0.95, 0.42 + 0.06 * x - 0.02 * i + 0.001 * ((step // 100) % 3)) for i in range(5)]
        lines.append(
            "INFO:speculators.metrics:"
            + ", ".join(f"train/cond_acc_{i}={a:.3f}" for i, a in enumerate(acc))
            + f", train/loss=1.{900 - step // 10:03d}, epoch=0, lr=0.0001, global_step={step}"
        )
    lines.append(
        "INFO:speculators.metrics:"
        + ", ".join(f"val/cond_acc_{i}_epoch={0.42 + 0.06 * math.log2(75) - 0.02 * i - 0.01:.3f}" for i in range(5))
        + ", epoch=0"
    )
    path.write_text("\n".join(lines) + "\n")
    return path


def _setup(hub: Any, log: Path) -> str:
    """The draft on the Hub, a batch-1 chain sweep on the bundled prompts, and the log kept with it as Acceptance
    vs data keeps it (read with 16 samples per logged step, every position the log gave)."""
    hub.add_model(DRAFT, aq_config(), tensors=aq_tensors())
    store = bench_store()
    for steps, ndt, tok_s, acc in ((None, None, 40.0, None), (2, 3, 63.0, 2.8), (3, 4, 66.0, 3.6), (4, 5, 65.0, 4.2)):
        cfg = {
            "engine": "sglang",
            "model": "moonshotai/Kimi-K2.5",
            "speculative_algorithm": "EAGLE3" if steps else None,
            "draft_model": DRAFT if steps else None,
            "num_steps": steps,
            "topk": 1 if steps else None,
            "num_draft_tokens": ndt,
        }
        rid = store.start_run(
            endpoint="http://127.0.0.1:30000",
            server_config=cfg,
            group=GROUP,
            params={"concurrency": 1, "prompt_set": "bundled"},
        )
        store.finish_run(rid, {"requests": 8, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": acc})
    kept = curves.curve([log], batch_size=16)
    assert kept.verdict == "rising", kept.sentence
    store.save_learning_curve(
        draft=DRAFT, source=log.name, attached_by="walk AL", **curves.to_stored(kept, batch_size=16)
    )
    return f"{hub.url}/{DRAFT}"


def _plan(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code = cli.main(["plan", *args, "--samples", SAMPLES, "--json"])
    out = capsys.readouterr().out
    assert code == 0, out
    return dict(json.loads(out))


def test_the_kept_log_is_read_at_the_plans_steps(hub: Any, capsys: Any, tmp_path: Path) -> None:
    log = _speculators_log(tmp_path / "train_speculators.log")
    source = _setup(hub, log)
    kept = _plan(capsys, source, "--group", GROUP)
    given = _plan(capsys, source, "--group", GROUP, "--curve", str(log), "--batch-size", "16")
    assert kept["training_log"]["kept"] is True
    assert "a 3-position chain" in given["fit_note"], given["fit_note"]
    # one log, one plan: read at the plan's 3 steps however it arrives (not "a 5-position chain" when kept)
    assert kept["fit_note"] == given["fit_note"], (kept["fit_note"], given["fit_note"])
    assert "5-position" not in kept["fit_note"]


def test_a_rising_log_is_named_in_the_more_data_row(hub: Any, capsys: Any, tmp_path: Path) -> None:
    log = _speculators_log(tmp_path / "train_speculators.log")
    source = _setup(hub, log)
    slope = curves.curve([log], batch_size=16, steps=3).evidence["slope_per_doubling_last"]["slope"]
    result = _plan(capsys, source, "--group", GROUP)
    more = next(o for o in result["options"] if o["kind"] == "more-data")
    # the log's own evidence, measured and in its units, where the trend cannot place your draft
    assert f"is still rising: train tau_sim rose {slope:+.3f} per doubling of the samples seen" in more["note"], more
    assert "tau_sim over 3 positions" in more["note"], more["note"]
    code = cli.main(["overview", source, "--group", GROUP, "--samples", SAMPLES, "--json"])
    out = capsys.readouterr().out
    assert code == 0, out
    said = json.loads(out)
    lead = said["plan"]["lead"]
    assert "still rising, which agrees" in said["headline"], said["headline"]
    # the plan's lead below it does not read as "more data is not predicted" alone: it names the log's rise
    assert lead.startswith("No option is predicted to gain beyond run-to-run noise"), lead  # the walk's path
    assert f"{slope:+.3f} per doubling" in lead, lead
    assert "More training data is not predicted" not in lead, lead


AM_DRAFT = "acme/kimi-draft-overfit"
AM_GROUP = "overfit-sweep"


def _am_log(path: Path) -> Path:
    """Walk AM's make_log.py: a SpecForge log, batch 64, 7 positions; train keeps rising, eval peaks at 461K samples
    seen and falls 0.23 by 691K (overfitting)."""
    rng = __import__("random").Random(3)
    out = ["Namespace(target_model_path='moonshotai/Kimi-K2.5', batch_size=64, num_epochs=3, ttt_length=7)"]

    def accs(base: float) -> list[float]:
        return [max(0.05, min(0.97, base * (0.93**k))) for k in range(7)]

    total = 11700
    for step in range(200, total + 1, 200):
        x = step / total
        a = accs(0.55 + 0.30 * (1 - math.exp(-4 * x)) + 0.06 * x + rng.uniform(-0.004, 0.004))
        out.append(f"step {step}: {{" + ", ".join(f"'train/acc_{i}': {v:.4f}" for i, v in enumerate(a)) + "}")
        if step % 900 == 0:
            ev = (
                0.52 + 0.27 * (1 - math.exp(-5 * x))
                if x < 0.6
                else 0.52 + 0.27 * (1 - math.exp(-3)) - 0.20 * (x - 0.6)
            )
            out.append(
                f"step {step}: {{" + ", ".join(f"'eval/acc_{i}': {v:.4f}" for i, v in enumerate(accs(ev))) + "}"
            )
    path.write_text("\n".join(out) + "\n")
    return path


def _am_setup(hub: Any) -> str:
    """Chains at num_steps 2 and 4 (none at the plan's 3) at batch 1 and 8, and the target's own MTP layers measured
    faster than your draft at batch 1, slower at batch 8 (walk AM's group)."""
    hub.add_model(AM_DRAFT, aq_config(), tensors=aq_tensors())
    store = bench_store()
    rows: list[tuple[str | None, int | None, int | None, float, float | None]] = [
        (None, None, None, 32.0, None),
        ("EAGLE3", 2, 3, 50.0, 2.5),
        ("EAGLE3", 4, 5, 53.0, 3.0),
        ("NEXTN", 3, 4, 60.0, 2.9),
    ]
    for bs, per in ((1, 1.0), (8, 7.0)):
        for algo, steps, ndt, tok_s, acc in rows:
            cfg = {
                "engine": "sglang",
                "model": "moonshotai/Kimi-K2.5",
                "speculative_algorithm": algo,
                "draft_model": AM_DRAFT if algo == "EAGLE3" else None,
                "num_steps": steps,
                "topk": 1 if steps else None,
                "num_draft_tokens": ndt,
            }
            rid = store.start_run(
                endpoint="http://127.0.0.1:30000",
                server_config=cfg,
                group=AM_GROUP,
                params={"concurrency": bs, "prompt_set": "bundled"},
            )
            # MTP: faster than your draft at batch 1, slower at batch 8
            speed = tok_s * per * (0.6 if algo == "NEXTN" and bs == 8 else 1.0)
            store.finish_run(rid, {"requests": 8, "errors": 0, "output_tokens_per_s": speed, "accept_length": acc})
    return f"{hub.url}/{AM_DRAFT}"


def test_the_more_data_row_costs_the_count_it_shows(hub: Any, capsys: Any, tmp_path: Path) -> None:
    source = _am_setup(hub)
    log = _am_log(tmp_path / "specforge_train.log")
    args = ("--group", AM_GROUP, "--curve", str(log), "--batch-size", "64", "--target-al", "3.3")
    for batch in ("1", "8"):
        result = _plan(capsys, source, *args, "--rank-batch", batch)
        more = next(o for o in result["options"] if o["kind"] == "more-data")
        assert "the count the cost is computed on" in more["note"], more["note"]
        assert more["gain_tok_s"]["value"] is not None, more
        # the note's count is costed: GPU-hours and tok/s per GPU-hour, not empty beside a ranked gain (walk AM)
        assert more["gpu_hours"]["total"]["value"], more["gpu_hours"]
        assert more["tok_s_per_gpu_hour"] is not None, more


def test_the_mtp_caution_names_the_plans_batch(hub: Any, capsys: Any, tmp_path: Path) -> None:
    source = _am_setup(hub)
    log = _am_log(tmp_path / "specforge_train.log")
    args = ("--group", AM_GROUP, "--curve", str(log), "--batch-size", "64")
    del args
    entry = comparison.load_entry(source)
    inputs = plan.inputs_for(
        entry,
        runs=bench_store().runs(group=AM_GROUP),
        own_samples=250000.0,
        own_samples_source="--samples",
        curve=curves.curve([str(log)], batch_size=64, steps=3),
        curve_source=log.name,
        draft=AM_DRAFT,
    )
    at1 = plan.lead(plan.build(inputs, rank_batch=1)) or ""
    at8 = plan.lead(plan.build(inputs, rank_batch=8)) or ""
    assert "not what is fastest to serve at batch 1 now" in at1, at1
    assert "This plan ranks at batch" not in at1  # batch 1 is where the MTP layers are faster
    # at batch 8 your draft measured faster: the lead says so, not only batch 1's caution (walk AM)
    assert "not what is fastest to serve at batch 1 now" in at8, at8
    assert "This plan ranks at batch 8, where your draft measured faster than them" in at8, at8


def test_overview_says_the_last_eval_point_is_not_the_logs_end(hub: Any, capsys: Any, tmp_path: Path) -> None:
    source = _am_setup(hub)
    log = _am_log(tmp_path / "specforge_train.log")
    code = cli.main(
        ["overview", source, "--group", AM_GROUP, "--samples", "250000", "--curve", str(log), "--batch-size", "64"]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    # eval's last point is 691K samples seen (2.8 passes over 250K); training was logged on to 742K (3 passes)
    assert "Its 691K samples seen are about 2.8 passes" not in out, out
    assert "Its last eval point, at 691K samples seen, is about 2.8 passes over your 250K samples" in out, out
    assert "training runs on to 742K samples seen in the log, about 3 passes" in out, out


def test_the_targets_own_published_figure_is_named_where_it_is_not_the_aim() -> None:
    # walk AL: the plan aimed at a Kimi-K2 draft's 3.271 for a Vicuna-13B draft while yuhuili/EAGLE3-Vicuna1.3-13B
    # publishes GSM8K acceptance for that very target, on a dynamic tree at batch 1 (6.29: past a 3-step chain's 4)
    from comparelib.analysis import scaling

    target = "lmsys/vicuna-13b-v1.3"
    aim = plan.published_target(
        scaling.published_points(), scaling.family_of(target), "gsm8k", "(3,1,4)", target=target
    )
    assert aim is not None
    assert "not for your target" in aim[1], aim  # the fallback stays disclosed
    assert (
        "yuhuili/EAGLE3-Vicuna1.3-13B, a draft for your target, publishes GSM8K 6.29 at bs=1,T=0,dynamic tree"
        in (aim[1])
    ), aim
    assert "above the 4 a 3-step chain can reach" in aim[1], aim
