"""Live benchmark answers from your draft's own runs, and names every algorithm as Overview does.

A DeepSeek-V3 group holds your EAGLE-3 draft's sweep, the target's own MTP layers served through SGLang (NEXTN,
which SGLang reports as EAGLE with the target as its draft) and their baseline. Overview's pair was your draft's;
Live benchmark's "Compare runs" started from the faster MTP run as its pair, the fit behind the plan took the MTP
sweep, and the run titles called the MTP runs "EAGLE".
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from comparelib import settings
from comparelib.analysis import speedup
from comparelib.live.store import RunRecord, Store
from tests.fixtures import page_app

PAGE = str(Path(__file__).resolve().parent.parent / "pages" / "bench.py")
T0 = datetime(2026, 1, 1, tzinfo=UTC)
DSV3 = "deepseek-ai/DeepSeek-V3"
MINE = "acme/dsv3-eagle3"


def rec(
    id_: int,
    steps: int | None,
    tok_s: float,
    *,
    algo: str | None = "EAGLE3",
    draft: str | None = MINE,
    engine: str = "sglang",
    topk: int | None = 1,
) -> RunRecord:
    base = steps is None
    return RunRecord(
        id=id_, created_at=T0 + timedelta(minutes=id_), endpoint=f"http://{engine}:1", engine=engine,
        kind="measured", group="dsv3", labels=[], status="finished",
        speculative_algorithm=None if base else algo, draft_model=None if base else draft, model=DSV3,
        num_steps=steps, topk=None if base else topk,
        num_draft_tokens=None if base or topk is None else steps + 1,  # type: ignore[operator]
        is_baseline=base, requests=64, errors=0, output_tokens_per_s=tok_s, accept_length=None if base else 2.5,
        accept_length_mean=None, ttft_p50_ms=None, ttft_p99_ms=None, tpot_p50_ms=None, tpot_p99_ms=None, summary={},
        params={"concurrency": 4, "max_tokens": 64}, server_config={}, notes={},
    )  # fmt: skip


GROUP = [
    rec(1, None, 300.0),
    rec(2, 2, 380.0),  # your draft's sweep
    rec(3, 3, 390.0),
    rec(4, 2, 520.0, algo="EAGLE", draft=DSV3),  # the target's MTP layers, as SGLang reports NEXTN
    rec(5, 3, 540.0, algo="EAGLE", draft=DSV3),
]


@pytest.mark.parametrize(
    ("run", "title"),
    [
        (rec(4, 2, 520.0, algo="EAGLE", draft=DSV3), "#4 MTP (NEXTN) steps=2 topk=1 ndt=3"),
        (rec(6, 2, 520.0, algo="NEXTN", draft=None), "#6 MTP (NEXTN) steps=2 topk=1 ndt=3"),
        (rec(7, 2, 500.0, algo="deepseek_mtp", draft=None, engine="vllm", topk=None), "#7 MTP steps=2"),
        (rec(8, 2, 500.0, algo="mtp", draft=None, engine="vllm", topk=None), "#8 MTP steps=2"),
        (rec(2, 2, 380.0), "#2 EAGLE-3 steps=2 topk=1 ndt=3"),
        (rec(9, 2, 380.0, algo="EAGLE", draft="acme/dsv3-eagle"), "#9 EAGLE steps=2 topk=1 ndt=3"),
        (rec(10, 2, 380.0, algo="unknown", engine="vllm", topk=None), "#10 speculative steps=2"),
        (rec(1, None, 300.0), "#1 baseline"),
    ],
)
def test_run_titles_name_the_algorithm_as_every_page_does(run: RunRecord, title: str) -> None:
    assert run.title == title


def test_the_fit_takes_your_drafts_sweep_not_the_faster_mtp_one() -> None:
    assert speedup.sweep_of(GROUP).served.id == 5  # no draft given: the group's fastest pair, as before
    sweep = speedup.sweep_of(GROUP, draft=MINE)
    assert [r.id for r in sweep.runs] == [2, 3] and sweep.served.id == 3 and sweep.baseline.id == 1
    model = speedup.model_from_runs(GROUP, draft=MINE)
    assert [p.run_id for p in model.measured] == [2, 3]


def test_the_default_comparison_holds_your_drafts_pair_and_leaves_the_mtp_runs_out() -> None:
    picked = speedup.with_baselines(GROUP, GROUP[-2:], draft=MINE)
    assert [r.id for r in picked] == [1, 3]  # your pair (#3 against #1); the MTP runs #4, #5 named on the page
    assert [r.id for r in speedup.with_baselines(GROUP, GROUP[-2:])] == [1, 4, 5]  # no draft: as before


def _stored(store: Store, steps: int | None, tok_s: float, draft: str | None, algo: str = "EAGLE3") -> int:
    server = {"engine": "sglang", "model": DSV3}
    if steps is not None:
        server.update(
            speculative_algorithm=algo, draft_model=draft, num_steps=steps, topk=1, num_draft_tokens=steps + 1
        )
    rid = store.start_run(
        endpoint="http://sglang:1", group="dsv3", params={"concurrency": 4, "max_tokens": 64}, server_config=server
    )
    summary = {"requests": 32.0, "output_tokens_per_s": tok_s, **({"accept_length": 2.5} if steps else {})}
    store.finish_run(rid, summary)
    return rid


def test_live_benchmark_compares_your_drafts_runs_and_names_the_mtp_runs_left_out() -> None:
    store = Store(settings.database_url())
    base = _stored(store, None, 300.0, None)
    mine = [_stored(store, k, tok, MINE) for k, tok in ((2, 380.0), (3, 390.0))]
    mtp = [_stored(store, k, tok, DSV3, algo="EAGLE") for k, tok in ((2, 520.0), (3, 540.0))]
    at = page_app(PAGE, timeout=60)
    at.query_params["draft"] = MINE
    at.query_params["draft_group"] = "dsv3"
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    runs = {r.id: r for r in store.runs(group="dsv3")}
    assert at.multiselect(key="compare_runs").value == [runs[i].title for i in (base, *mine)]
    said = [c.value for c in at.caption if "of another draft left out" in c.value]
    assert said == [
        f"2 runs of another draft left out: #{mtp[0]} MTP (NEXTN), #{mtp[1]} MTP (NEXTN) (your draft is {MINE}). "
        "Runs of another draft can be added under Runs to compare them with yours."
    ], said
    assert all("MTP (NEXTN) steps=" in runs[i].title for i in mtp)  # the run picker names them so too
    at.multiselect(key="compare_runs").set_value([runs[i].title for i in (base, mine[1], mtp[1])]).run()
    assert not [c.value for c in at.caption if "of another draft left out" in c.value]  # added: no longer said
