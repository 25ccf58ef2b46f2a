"""Live benchmark's "Compare runs": which runs are your draft's, and the selection it opens on (walk P).

The walk's store: group r1d-sweep with vLLM baselines at batch 1 (#1) and 4 (#7), the draft labx/r1d-llama8b-eagle3
at num_steps 1..5 at each batch, and a run of /data/drafts/r1d-llama8b-eagle3. It found:

1. with the sidebar on a local folder epoch_3 and no run group attached, the page's pool fell back to the latest
   runs stored and claimed labx/r1d-llama8b-eagle3's runs as epoch_3's ("No run names your draft epoch_3: the runs
   of ... are taken as its", "Your older runs #2..."), while Overview said "Live speed: missing";
2. "the selection opens on your draft's 6 newest runs" picked 5 of the draft's runs: a baseline took a place.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from comparelib import settings
from comparelib.live.store import Store
from comparelib.models import registry
from comparelib.models.draft import OwnDraft, pool_is_attached, run_pool, runs_of_draft, unattached_runs
from tests.fixtures import page_app

ROOT = Path(__file__).resolve().parents[1]
TARGET = "deepseek-ai/DeepSeek-R1-Distill-Llama-8B"
LABX = "labx/r1d-llama8b-eagle3"
FOLDER = "/data/drafts/r1d-llama8b-eagle3"
GROUP = "r1d-sweep"


def _stored(store: Store, batch: int, steps: int | None, tok_s: float, draft: str = LABX, group: str = GROUP) -> int:
    """One finished vLLM run as the bench client stores it (``steps=None``: the target alone)."""
    server: dict[str, object] = {"engine": "vllm", "model": TARGET}
    if steps is not None:
        server.update(speculative_algorithm="EAGLE3", draft_model=draft, num_steps=steps)
    rid = store.start_run(
        endpoint="http://vllm:1", group=group, params={"concurrency": batch, "max_tokens": 96}, server_config=server
    )
    summary: dict[str, float] = {"requests": 16, "output_tokens_per_s": tok_s}
    if steps is not None:
        summary["accept_length"] = 1.5 + 0.3 * steps
    store.finish_run(rid, summary)
    return rid


def _walk(store: Store) -> dict[str, list[int]]:
    """The walk's group: bs1 baseline (#1) and K1..5 (#2-#6), a run of another folder's draft (#7), bs4 baseline (#8)
    and K1..5 (#9-#13)."""
    ids: dict[str, list[int]] = {"bs1": [], "bs4": []}
    ids["bs1"].append(_stored(store, 1, None, 40.77))
    ids["bs1"] += [_stored(store, 1, k, tok) for k, tok in enumerate((62.05, 77.95, 78.95, 83.37, 80.0), start=1)]
    ids["folder"] = [_stored(store, 1, 3, 79.0, draft=FOLDER)]
    ids["bs4"].append(_stored(store, 4, None, 135.42))
    ids["bs4"] += [_stored(store, 4, k, tok) for k, tok in enumerate((213.5, 248.4, 260.5, 248.4, 263.5), start=1)]
    return ids


def _epoch3(tmp_path: Path) -> Path:
    folder = tmp_path / "ckpt" / "epoch_3"
    folder.mkdir(parents=True)
    config = dict(registry.get_draft("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B").config or {})
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


# --- 1. no run group attached: no run is taken as yours --------------------------------------------------------


def test_the_latest_runs_are_not_yours_without_a_run_group() -> None:
    store = Store(settings.database_url())
    ids = _walk(store)
    runs = store.runs()
    draft = OwnDraft.parse("/tmp/walkP/ckpt/epoch_3")
    assert not pool_is_attached(runs, draft)
    pool = run_pool(runs, draft)
    assert "taken as its" in (runs_of_draft(pool, draft.match_name).note or "")  # the group rule, read alone
    own = unattached_runs(pool, draft)
    assert own.kept == ()
    assert {r.id for r in own.left_out} == {*ids["bs1"][1:], *ids["bs4"][1:], *ids["folder"]}
    note = own.note or ""
    assert note.startswith("No run group is attached to your draft epoch_3, so no run is taken as yours"), note
    assert f"of other drafts: {LABX} (#2-#6, #9-#13); {FOLDER} (#7)." in note, note
    # a run naming your draft (in a group not attached) is pointed at, not claimed
    mine = _stored(store, 1, 2, 70.0, draft="/ckpt/epoch_3", group="e3")
    said = unattached_runs(run_pool(store.runs(), draft), draft).note or ""
    assert f"Runs naming your draft: #{mine} in group e3; attach their group in the sidebar" in said, said
    # attached, or the example: the group's rule as before
    assert pool_is_attached(runs, OwnDraft.parse(LABX, group=GROUP))
    assert not pool_is_attached(runs, OwnDraft.parse(LABX, group="gone"))
    assert pool_is_attached(runs, OwnDraft.parse("example"))


def test_live_benchmark_and_overview_agree_that_no_run_is_yours(tmp_path: Path) -> None:
    store = Store(settings.database_url())
    _walk(store)
    folder = _epoch3(tmp_path)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["draft"] = str(folder)
    at.run()
    assert not at.exception, at.exception
    overview = "\n".join(m.value for m in at.markdown)
    assert "**Live speed:** missing: no run group attached to your draft" in overview, overview
    at.switch_page("pages/bench.py").run()
    assert not at.exception, at.exception
    said = [c.value for c in at.caption]
    text = "\n".join(said)
    assert "taken as its" not in text and "Your older runs" not in text, said
    assert any(
        c.startswith("No run group is attached to your draft epoch_3, so no run is taken as yours") for c in said
    )
    picked = at.multiselect(key="compare_runs").value
    titles = {r.id: r.title for r in store.runs()}
    assert picked == [titles[i] for i in (1, 7, 8, 9, 10, 11, 12, 13)], picked  # the latest runs, their baselines


# --- 2. "your draft's 6 newest runs" are 6 speculative runs ---------------------------------------------------


def test_the_newest_runs_counted_are_your_drafts_speculative_runs() -> None:
    store = Store(settings.database_url())
    ids = _walk(store)
    at = page_app(str(ROOT / "pages" / "bench.py"), timeout=90)
    at.query_params["draft"] = LABX
    at.query_params["draft_group"] = GROUP
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    runs = {r.title: r for r in store.runs(group=GROUP)}
    picked = [runs[t] for t in at.multiselect(key="compare_runs").value]
    spec = [r.id for r in picked if not r.is_baseline]
    # 6 of the draft's speculative runs (the folder's run names it too), the baselines on top
    # and batch 1's best chain (num_steps 4, 83.37 tok/s), which Overview's other pairs cite (walk T)
    assert spec == [ids["bs1"][4], *ids["folder"], *ids["bs4"][1:]], spec
    assert {r.id for r in picked if r.is_baseline} == {ids["bs1"][0], ids["bs4"][0]}
    said = [c.value for c in at.caption if "older runs" in c.value]
    assert said == [
        "Your older runs #2, #3, #4, #6 are not picked: the selection opens on your draft's 6 newest speculative "
        'runs, its newest sweep (#9, #10, #11, #12, #13: the sweep chart\'s line "vllm EAGLE-3 bs=4 chain"), the best '
        "chain and tree of each setting and their baselines. Add them under Runs to compare them too."
    ], said


@pytest.mark.parametrize("n", [1, 3])
def test_fewer_runs_than_the_count_are_all_picked(n: int) -> None:
    store = Store(settings.database_url())
    base = _stored(store, 1, None, 40.0)
    spec = [_stored(store, 1, k, 60.0 + k) for k in range(1, n + 1)]
    at = page_app(str(ROOT / "pages" / "bench.py"), timeout=90)
    at.query_params["draft"] = LABX
    at.query_params["draft_group"] = GROUP
    at.run()
    assert not at.exception
    titles = {r.id: r.title for r in store.runs(group=GROUP)}
    assert at.multiselect(key="compare_runs").value == [titles[i] for i in (base, *spec)]
    assert not [c.value for c in at.caption if "older runs" in c.value]


# --- walk T: the runs Overview and the plan cite are picked, however old -----------------------------------------


def _sglang(store: Store, batch: int, steps: int | None, tok_s: float, topk: int = 1, ndt: int | None = None) -> int:
    server: dict[str, object] = {"engine": "sglang", "model": TARGET}
    if steps is not None:
        server.update(
            speculative_algorithm="EAGLE3",
            draft_model=LABX,
            num_steps=steps,
            topk=topk,
            num_draft_tokens=ndt or steps + 1,
        )
    rid = store.start_run(
        endpoint="http://sglang:1", group=GROUP, params={"concurrency": batch, "max_tokens": 96}, server_config=server
    )
    summary: dict[str, float] = {"requests": 16, "output_tokens_per_s": tok_s}
    if steps is not None:
        summary["accept_length"] = 1.5 + 0.3 * steps + (0.6 if topk > 1 else 0.0)
    store.finish_run(rid, summary)
    return rid


def test_the_best_chain_and_tree_of_each_setting_are_picked_however_old() -> None:
    """Walk T: 100 runs, the batch-1 sweep and trees stored first. Overview's "chains or trees" and the plan cite the
    best chain and the tree at batch 1, and Compare runs opened without them ("Your older runs #6, #7, #8")."""
    store = Store(settings.database_url())
    base1 = _sglang(store, 1, None, 46.8)
    chains = [
        _sglang(store, 1, k, tok)
        for k, tok in zip((1, 2, 3, 4, 5, 6), (66.0, 75.0, 79.1, 77.0, 75.5, 72.0), strict=True)
    ]
    tree = _sglang(store, 1, 3, 87.4, topk=4, ndt=8)
    _sglang(store, 32, None, 985.0)
    b32 = _sglang(store, 32, 3, 1057.7)
    newer = [_sglang(store, 32, k, 1000.0 + k) for k in (1, 2, 4, 5, 6, 7, 8)]  # a newer batch-32 sweep
    at = page_app(str(ROOT / "pages" / "bench.py"), timeout=90)
    at.query_params["draft"] = LABX
    at.query_params["draft_group"] = GROUP
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    runs = {r.title: r for r in store.runs(group=GROUP)}
    picked = {runs[t].id for t in at.multiselect(key="compare_runs").value}
    assert {chains[2], tree, base1, b32} <= picked, picked  # batch 1's best chain (num_steps 3) and its tree
    assert set(newer) <= picked, picked
    said = " ".join(c.value for c in at.caption if "older runs" in c.value)
    assert f"#{chains[2]}," not in said and f"#{tree}," not in said, said
    assert "the best chain and tree of each setting" in said, said
