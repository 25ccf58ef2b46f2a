"""Walk S: with the training log kept on Acceptance vs data, Overview ranked "More training data" last ("your log
has plateaued"), while ``plan DRAFT --group G`` (no ``--curve``) did not read the kept log: it ranked more data
second and never said the log plateaued. The README says the CLI and Overview give the same plan.

``plan`` reads the log kept with the draft, as Overview does, unless ``--curve`` names another or
``--no-kept-log`` says not to, and says which log it used.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from comparelib import cli
from comparelib.analysis import curves
from tests.fixtures import aq_config, aq_tensors, bench_store, page_app

DRAFT = "acme/kimi-draft-kept"
GROUP = "kept-sweep"
SAMPLES = "20000"  # your training samples, typed in (the sidebar's field, the CLI's --samples)


def _plateau_curve() -> curves.Curve:
    """Flat from ~100K samples seen on (tau_sim ~2.19 over 3 positions)."""
    pts = []
    for i in range(40):
        seen = (i + 1) * 16_000
        acc = (0.6 + 0.1 * (1 - math.exp(-seen / 40_000)), 0.5, 0.4)
        pts.append(curves.CurvePoint(i + 1, float(seen), "train", acc, curves.tau_sim(acc)))
    curve = curves.analyse(pts)
    assert curve.verdict == "plateau"
    return curve


def _setup(hub: Any, *, keep: bool) -> str:
    """The draft on the Hub, a batch-1 chain sweep of it on the bundled prompts, and (``keep``) a plateaued log
    kept with it, as "Keep this log with your draft" stores it."""
    hub.add_model(DRAFT, aq_config(), tensors=aq_tensors())
    store = bench_store()
    for steps, ndt, tok_s, acc in ((None, None, 40.0, None), (1, 2, 55.0, 1.7), (2, 3, 63.0, 2.2), (3, 4, 66.0, 2.6)):
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
    if keep:
        store.save_learning_curve(
            draft=DRAFT, source="plateau.csv", attached_by="a colleague", **curves.to_stored(_plateau_curve(), steps=3)
        )
    return f"{hub.url}/{DRAFT}"


def _overview(source: str) -> tuple[list[str], str]:
    """Overview's ranked option kinds, and its answer's markdown."""
    at = page_app("../pages/overview.py", timeout=120)
    at.query_params["draft"] = source
    at.query_params["draft_group"] = GROUP
    at.query_params["draft_samples"] = SAMPLES
    at.session_state["ov_plan"] = True  # the plan opened: its ranked table
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    (table,) = [d.value for d in at.dataframe if "kind" in d.value.columns and "rank" in d.value.columns]
    return list(table.sort_values("rank")["kind"]), "\n".join(m.value for m in at.markdown)


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = cli.main(["plan", *args, "--samples", SAMPLES])
    return code, capsys.readouterr().out


@pytest.mark.parametrize("keep", [True, False])
def test_the_cli_and_overview_rank_alike_with_the_kept_log(hub: Any, capsys: Any, keep: bool) -> None:
    source = _setup(hub, keep=keep)
    code, out = _cli(capsys, source, "--group", GROUP, "--json")
    assert code == 0, out
    result = json.loads(out)
    kinds = [o["kind"] for o in result["options"]]
    shown, md = _overview(source)
    assert kinds == shown, (kinds, shown, keep)
    # the runs were on the bundled prompts: Overview's acceptance line says so, not only the batch size (walk S)
    # (the reference, lightseekorg's Kimi-K2.5 draft, states no batch size: the prompts alone differ)
    assert "differ: your 'bundled' prompts against their GSM8K/HumanEval/MATH500" in md, md
    more = next(o for o in result["options"] if o["kind"] == "more-data")
    assert ("has plateaued" in more["note"]) is keep, more["note"]
    if keep:
        assert kinds[-1] == "more-data", kinds  # your own log outweighs the published trend, on both
        assert result["training_log"]["kept"] is True and result["training_log"]["source"] == "plateau.csv"
    else:
        assert result["training_log"] is None

    code, text = _cli(capsys, source, "--group", GROUP)
    assert code == 0
    line = next(x for x in text.splitlines() if x.startswith("training log: "))
    if keep:
        assert line.startswith("training log: plateau.csv, kept on "), line
        assert "kept with your draft on Acceptance vs data, read as Overview reads it" in line, line
        assert "by a colleague" in line and "--no-kept-log" in line and "--curve" in line, line
    else:
        assert line == f"training log: none (none kept with {DRAFT} on Acceptance vs data; --curve LOG gives one)"


def test_no_kept_log_and_curve_override_the_kept_log(hub: Any, capsys: Any, tmp_path: Any) -> None:
    source = _setup(hub, keep=True)
    code, text = _cli(capsys, source, "--group", GROUP, "--no-kept-log")
    assert code == 0
    assert "training log: none (--no-kept-log)" in text, text
    assert "has plateaued" not in text

    log = tmp_path / "rising.csv"  # still rising: the kept plateau is not read under it
    rows = ["step,samples_seen,acc_0,acc_1,acc_2"]
    rows += [f"{i},{i * 4_000},{0.3 + 0.3 * i / 40:.4f},0.3,0.2" for i in range(1, 41)]
    log.write_text("\n".join(rows) + "\n")
    code, text = _cli(capsys, source, "--group", GROUP, "--curve", str(log))
    assert code == 0
    assert f"training log: {log} (--curve)" in text, text
    assert "has plateaued" not in text
