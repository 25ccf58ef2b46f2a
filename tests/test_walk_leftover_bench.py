"""Live benchmark leftovers of earlier walks: run labels, the "newest sweep" caption, the acceptance chart.

1. "Compare runs" named two runs of one draft and setting at batch 1 and batch 16 "#3 EAGLE-3 steps=3" and
   "#4 EAGLE-3 steps=3": which is which was not said (nor the engine).
2. "the selection opens on ... its newest sweep" left out a run of that sweep: the page took the newest run's sweep
   by ``sweep_mismatch``, which a run measured again with another number of requests does not pass, while the
   sweep chart draws it on the same line (``sweep_series`` leaves the request count out).
3. The acceptance chart drew a vLLM batch-1 point and a vLLM batch-16 point of one acceptance length at one
   num_steps on the same spot: the one drawn last hid the other.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from comparelib import settings
from comparelib.analysis import speedup
from comparelib.charts import run_sweep_charts
from comparelib.live.store import Store
from tests.fixtures import page_app

ROOT = Path(__file__).resolve().parents[1]
TARGET = "meta-llama/Llama-3.1-8B-Instruct"
DRAFT = "labx/llama8b-eagle3"
GROUP = "lo-sweep"


def _stored(
    store: Store,
    batch: int,
    steps: int | None,
    tok_s: float,
    *,
    engine: str = "vllm",
    al: float | None = None,
    requests: int = 16,
    topk: int | None = None,
    ndt: int | None = None,
) -> int:
    """One finished run as the bench client stores it (``steps=None``: the target alone)."""
    server: dict[str, object] = {"engine": engine, "model": TARGET}
    if steps is not None:
        server.update(speculative_algorithm="EAGLE3", draft_model=DRAFT, num_steps=steps)
        if topk is not None:
            server.update(topk=topk, num_draft_tokens=ndt)
    rid = store.start_run(
        endpoint=f"http://{engine}:1",
        group=GROUP,
        params={"concurrency": batch, "max_tokens": 96, "requests": requests},
        server_config=server,
    )
    summary: dict[str, float] = {"requests": requests, "output_tokens_per_s": tok_s}
    if steps is not None:
        summary["accept_length"] = al if al is not None else 1.5 + 0.3 * steps
    store.finish_run(rid, summary)
    return rid


def _page() -> Any:
    at = page_app(str(ROOT / "pages" / "bench.py"), timeout=90)
    at.query_params["draft"] = DRAFT
    at.query_params["draft_group"] = GROUP
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


# --- 1. every run's label says its batch and engine --------------------------------------------------------------


def test_compare_runs_labels_tell_two_batches_and_engines_apart() -> None:
    store = Store(settings.database_url())
    b1, b16 = _stored(store, 1, None, 40.0), _stored(store, 16, None, 420.0)
    s1, s16 = _stored(store, 1, 3, 80.0), _stored(store, 16, 3, 700.0)
    g1 = _stored(store, 1, 3, 85.0, engine="sglang")
    at = _page()
    runs = {r.id: r for r in store.runs(group=GROUP)}
    chosen = at.multiselect(key="compare_runs")
    assert set(chosen.value) >= {runs[i].title for i in (b1, b16, s1, s16, g1)}, chosen.value
    shown = {int(t.split()[0].lstrip("#")): t for t in chosen.options}  # the names the picker shows
    table = next(df.value for df in at.dataframe if "speedup" in df.value.columns)
    rows = {int(t.split()[0].lstrip("#")): t for t in table["run"]}
    assert {i: rows[i] for i in (b1, b16, s1, s16, g1)} == {i: shown[i] for i in (b1, b16, s1, s16, g1)}
    # what is left once the run id is taken off says what tells the runs apart: batch and engine
    rest = {i: re.sub(r"^#\d+ ", "", shown[i]) for i in (b1, b16, s1, s16, g1)}
    assert len(set(rest.values())) == 5, rest
    assert "bs=1 " in rest[s1] and "bs=16 " in rest[s16] and "bs=16 " in rest[b16], rest
    assert "vllm" in rest[s1] and "sglang" in rest[g1], rest
    assert "steps=3" in rest[s1] and "steps=3" in rest[g1], rest
    assert at.selectbox(key="requests_run").options[-1] == shown[max(shown)]  # the per-request picker names alike


# --- 2. "its newest sweep" is the newest run's line on the sweep chart -------------------------------------------


def _line_of(store: Store, rid: int) -> set[int]:
    """The runs the sweep chart draws on ``rid``'s line (its spec's data)."""
    runs = store.runs(group=GROUP)
    series, models = speedup.sweep_chart_inputs(runs, draft=DRAFT)
    charts = run_sweep_charts(runs, series, models)
    assert charts is not None
    data = [row for rows in charts[0].to_dict()["datasets"].values() for row in rows if "series" in row]
    titles = {r.title: r.id for r in runs}
    return {titles[row["run"]] for row in data if row["series"] == series[rid]}


def test_the_newest_sweep_holds_every_run_of_its_chart_line() -> None:
    store = Store(settings.database_url())
    _stored(store, 1, None, 40.0)
    chain = [_stored(store, 1, k, tok) for k, tok in enumerate((60.0, 70.0, 78.0, 84.0, 82.0, 80.0), start=1)]
    again = _stored(store, 1, 3, 77.0, requests=48)  # num_steps 3 measured again with more requests: newest
    assert _line_of(store, again) == {*chain, again}  # the chart draws them as one line
    at = _page()
    titles = {r.id: r.title for r in store.runs(group=GROUP)}
    picked = at.multiselect(key="compare_runs").value
    assert {titles[i] for i in (*chain, again)} <= set(picked), picked  # num_steps 1 (#2) was left out
    assert not [c.value for c in at.caption if "older runs" in c.value]


def test_the_caption_names_the_runs_of_the_newest_sweep() -> None:
    store = Store(settings.database_url())
    _stored(store, 1, None, 40.0)
    trees = [_stored(store, 1, k, 70.0 + k, engine="sglang", topk=4, ndt=8) for k in (2, 3, 4)]
    _stored(store, 1, None, 41.0, engine="sglang")
    chain = [
        _stored(store, 1, k, tok, engine="sglang") for k, tok in enumerate((60.0, 70.0, 78.0, 84.0, 82.0, 80.0), 1)
    ]
    again = _stored(store, 1, 3, 77.0, engine="sglang", requests=48)
    line = _line_of(store, again)
    assert line == {*chain, again}
    at = _page()
    said = [c.value for c in at.caption if "older runs" in c.value]
    ids = ", ".join(f"#{i}" for i in sorted(line))
    assert len(said) == 1, said
    assert f"Your older runs #{trees[0]}, #{trees[1]} are not picked" in said[0], said
    label = speedup.sweep_chart_inputs(store.runs(group=GROUP), draft=DRAFT)[0][again]
    assert f'its newest sweep ({ids}: the sweep chart\'s line "{label}"),' in said[0], said


# --- 3. the acceptance chart draws every batch's and engine's point where it is seen -----------------------------


def test_acceptance_points_of_two_batches_and_engines_are_drawn_apart() -> None:
    store = Store(settings.database_url())
    for engine in ("sglang", "vllm"):
        for batch in (1, 16):
            _stored(store, batch, None, 40.0 * batch, engine=engine)
            for k, al in ((2, 2.10), (3, 2.55), (4, 2.90)):
                _stored(store, batch, k, 60.0 * batch + k, engine=engine, al=al)
    runs = store.runs(group=GROUP)
    series, models = speedup.sweep_chart_inputs(runs, draft=DRAFT)
    assert len(set(series.values())) == 4  # one line per engine and batch
    charts = run_sweep_charts(runs, series, models)
    assert charts is not None and charts[1] is not None
    spec = charts[1].to_dict()
    rows = [row for rows in spec["datasets"].values() for row in rows if "series" in row]
    assert len(rows) == 12

    def x_field(enc: dict[str, Any]) -> str:
        return str(enc["x"]["field"])

    layers = spec.get("layer") or [spec]
    enc = spec.get("encoding") or layers[0]["encoding"]
    drawn = {(row[x_field(enc)], row["accept length"]) for row in rows}
    assert len(drawn) == 12, sorted(drawn)  # no point on another's spot
    # the tooltip still says the num_steps measured
    assert {row["num_steps"] for row in rows} == {2, 3, 4}
    # each engine has its own shape, with a legend
    assert enc["shape"]["field"] == "engine", enc
    assert enc["shape"].get("legend", {}) is not None
    assert {row["engine"] for row in rows} == {"sglang", "vllm"}


def test_a_lone_newest_run_is_not_called_a_sweep() -> None:
    """Walk BB: the newest run was a lone tree (num_steps 3, topk 4, 8 draft tokens) after a 1..6 chain sweep; the
    caption said "its newest sweep (#17: ... tree ...)" and "Your older runs #9" for one run."""
    store = Store(settings.database_url())
    _stored(store, 1, None, 40.0, engine="sglang")
    chain = [
        _stored(store, 1, k, tok, engine="sglang") for k, tok in enumerate((60.0, 70.0, 78.0, 84.0, 82.0, 80.0), 1)
    ]
    tree = _stored(store, 1, 3, 81.0, engine="sglang", topk=4, ndt=8)
    assert _line_of(store, tree) == {tree}
    at = _page()
    said = [c.value for c in at.caption if "older run" in c.value]
    assert len(said) == 1, said
    label = speedup.sweep_chart_inputs(store.runs(group=GROUP), draft=DRAFT)[0][tree]
    assert f"Your older run #{chain[0]} is not picked" in said[0], said
    assert f'its newest run, alone on its line (#{tree}: the sweep chart\'s line "{label}"),' in said[0], said
    assert "its newest sweep" not in said[0], said
