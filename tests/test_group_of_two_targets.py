"""A local EAGLE-3 draft for Qwen3-30B-A3B whose config names no target, its group holding runs of two targets
(#1-#5 served with Qwen/Qwen3-30B-A3B, #6 with Qwen/Qwen3-8B), the target set on Compare drafts.

Before: the pages said "no run of it names one" (they name two), the sweep drew #6 as "sglang bs=1 chain (#6)"
beside the draft's own line with nothing saying it is another model, "Per-request results" opened on #6, the
stored-runs table had no target model on screen and "why no speedup" was cut in one line; Compare kept the
previous draft's rows after the sidebar's draft changed on Compare, and kept the Kimi-K2 reference after the
target set there made Overview's reference a Qwen3-30B-A3B draft.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from streamlit.testing.v1 import AppTest

from comparelib import charts, settings, tables
from comparelib.analysis import speedup  # noqa: E402
from comparelib.live.store import Store
from comparelib.models import registry
from comparelib.models.draft import COMPARE_WORDS, model_match, resolve_target
from tests.fixtures import page_app

ROOT = Path(__file__).resolve().parents[1]
Q30 = "Qwen/Qwen3-30B-A3B"
Q8 = "Qwen/Qwen3-8B"
GROUP = "qwen30-walk"
KIMI_REF = "AQ-MedAI/Kimi-K2-Instruct-eagle3"
QWEN30_DRAFT = "lmsys/SGLang-EAGLE3-Qwen3-30B-A3B-Instruct-2507-SpecForge-Nex"  # countable, for Q30's -2507
OVERVIEW_REF = "Tengyunw/qwen3_30b_moe_eagle3"  # Overview's pick for Q30: the registry has no config of it
LLAMA_DRAFT = "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"


# --- 1. the note on a target set on Compare when the runs name two ----------------------------------------------


def _ns(i: int, model: str | None, kind: str = "measured") -> SimpleNamespace:
    return SimpleNamespace(id=i, kind=kind, model=model)


WALK_RUNS = [*(_ns(i, Q30) for i in range(1, 6)), _ns(6, Q8)]

NOTE_CASES = [
    # runs, typed on Compare, in the note, not in the note
    (WALK_RUNS, Q30, f"its runs name several targets ({Q30}: #1-#5; {Q8}: #6), and #1-#5 were served with this one",
     "no run of it names one"),
    (WALK_RUNS, "meta-llama/Llama-3.1-8B", f"its runs name several targets ({Q30}: #1-#5; {Q8}: #6).",
     "served with this one"),
    ([_ns(1, Q30), _ns(3, Q8), _ns(4, Q30), _ns(9, None)], Q8, f"({Q30}: #1, #4; {Q8}: #3), and #3 was served",
     "no run"),
    ([], Q30, "your draft's config names none and no run of it names one.", "several"),
    ([_ns(1, None), _ns(2, "Kimi-K2.5", kind="example")], Q30, "no run of it names one", "several"),
]  # fmt: skip


@pytest.mark.parametrize(("runs", "typed", "said", "unsaid"), NOTE_CASES)
def test_the_compare_target_note_says_what_the_runs_name(
    runs: list[SimpleNamespace], typed: str, said: str, unsaid: str
) -> None:
    got = resolve_target(None, runs, typed)
    assert (got.model, got.origin) == (typed, "compare")
    assert got.note.startswith(f"Target {typed}, the {COMPARE_WORDS}: your draft's config names none and")
    assert said in got.note and unsaid not in got.note, got.note


# --- 2. the Live benchmark page on a group of two targets -----------------------------------------------------


def _sweep_run(i: int, tok_s: float, model: str, steps: int | None, engine: str = "sglang") -> SimpleNamespace:
    base = steps is None
    return SimpleNamespace(
        id=i, num_steps=steps, output_tokens_per_s=tok_s, accept_length=None if base else 2.0 + 0.2 * steps,
        title=f"#{i}", kind="measured", engine=engine, is_baseline=base, labels=[], model=model,
        params={"concurrency": 1, "max_tokens": 64}, server_config={}, notes={},
        speculative_algorithm=None if base else "EAGLE3", draft_model=None if base else "/data/q30-draft",
        topk=None if base else 1, num_draft_tokens=None if base else steps + 1,  # type: ignore[operator]
    )  # fmt: skip


SWEEP = [
    _sweep_run(1, 60.0, Q30, None),
    _sweep_run(2, 90.0, Q30, 3),
    _sweep_run(3, 95.0, Q30, 4),
    _sweep_run(4, 92.0, Q30, 5),
    _sweep_run(5, 85.0, Q30, 3, engine="vllm"),
    _sweep_run(6, 140.0, "/root/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/abc", 3),
    _sweep_run(7, 70.0, Q8, None),
]


def test_sweep_lines_and_baselines_name_their_model_in_a_group_of_two_targets() -> None:
    models = speedup.served_models(SWEEP, model_match)  # the cache folder of Qwen3-8B is Qwen3-8B
    series = speedup.sweep_series([r for r in SWEEP if not r.is_baseline], models)
    assert series == {
        2: "Qwen3-30B-A3B · sglang EAGLE-3 bs=1 chain",
        3: "Qwen3-30B-A3B · sglang EAGLE-3 bs=1 chain",
        4: "Qwen3-30B-A3B · sglang EAGLE-3 bs=1 chain",
        5: "Qwen3-30B-A3B · vllm EAGLE-3 bs=1 chain",
        6: "Qwen3-8B · sglang EAGLE-3 bs=1 chain",  # was "sglang bs=1 chain (#6)" beside "... (#2)"
    }
    built = charts.run_sweep_charts(SWEEP, series, models)
    assert built is not None
    rows = [row for ds in built[0].to_dict()["datasets"].values() for row in ds]
    assert {r["baseline"] for r in rows if "baseline" in r} == {
        "#1 Qwen3-30B-A3B sglang baseline",
        "#7 Qwen3-8B sglang baseline",
    }
    # one target model: labels as before
    one = [r for r in SWEEP if r.model == Q30]
    assert speedup.served_models(one, model_match) == {}
    assert set(speedup.sweep_series([r for r in one if not r.is_baseline]).values()) == {
        "sglang EAGLE-3 bs=1 chain",
        "vllm EAGLE-3 bs=1 chain",
    }


def _stored(store: Store, model: str, tok_s: float, steps: int | None, engine: str = "sglang") -> int:
    cfg = {
        "engine": engine,
        "model": model,
        "speculative_algorithm": "EAGLE3" if steps else None,
        "num_steps": steps,
        "topk": 1 if steps else None,
        "num_draft_tokens": steps + 1 if steps else None,
    }
    rid = store.start_run(
        endpoint="http://127.0.0.1:30000", server_config=cfg, group=GROUP, params={"concurrency": 1, "max_tokens": 64}
    )
    store.add_request(rid, {"index": 0, "ok": True, "ttft_s": 0.02, "output_tokens": 64})
    store.finish_run(rid, {"requests": 1, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": 2.5})
    return rid


def _walk_group() -> list[int]:
    """#1 baseline, #2-#4 SGLang chains, #5 vLLM (Qwen3-30B-A3B), #6 an SGLang chain served with Qwen3-8B."""
    store = Store(settings.database_url())
    ids = [_stored(store, Q30, 60.0, None), *(_stored(store, Q30, 90.0 + k, k) for k in (3, 4, 5))]
    ids.append(_stored(store, Q30, 85.0, 3, engine="vllm"))
    ids.append(_stored(store, Q8, 140.0, 3))
    return ids


def _draft_dir(tmp_path: Path) -> Path:
    """The Qwen3-30B-A3B draft's raw EAGLE-3 config in a folder: it names no target."""
    path = tmp_path / "qwen30-draft"
    path.mkdir()
    (path / "config.json").write_text(json.dumps(dict(registry.get_draft(QWEN30_DRAFT).config or {})))
    return path


def test_bench_page_opens_on_the_drafts_target_and_shows_the_model_and_whole_reasons(tmp_path: Path) -> None:
    ids = _walk_group()
    at = page_app("pages/bench.py", timeout=60)
    at.query_params["draft"] = str(_draft_dir(tmp_path))
    at.query_params["draft_group"] = GROUP
    at.query_params["draft_target"] = Q30
    at.run()
    assert not at.exception, at.exception
    titles = {r.id: r.title for r in Store(settings.database_url()).runs(group=GROUP)}
    assert at.selectbox(key="requests_run").value == titles[ids[4]]  # the latest Qwen3-30B-A3B run, not #6
    runs = next(d for d in at.dataframe if "output_tokens_per_s" in d.value.columns)
    order = list(runs.proto.column_order)
    # a group of two targets: the target model beside the id, on screen at 1400 px (one target: after the metrics)
    assert order.index("model") == 1, order
    cmp = next(d for d in at.dataframe if "speedup_note" in d.value.columns)
    assert cmp.proto.row_height > 64  # the grid wraps a cell's words only in rows taller than 64 px
    assert tables.WRAP_ROW_PX == cmp.proto.row_height


def test_bench_page_without_a_known_target_opens_on_the_latest_run(tmp_path: Path) -> None:
    ids = _walk_group()
    at = page_app("pages/bench.py", timeout=60)
    at.query_params["draft"] = str(_draft_dir(tmp_path))
    at.query_params["draft_group"] = GROUP
    at.run()
    assert not at.exception, at.exception
    titles = {r.id: r.title for r in Store(settings.database_url()).runs(group=GROUP)}
    assert at.selectbox(key="requests_run").value == titles[ids[-1]]  # mixed and no target: nothing to prefer


# --- 3 and 4. Compare's drafts follow the sidebar's draft and its target ----------------------------------------


def _folder(tmp_path: Path, name: str, source: str) -> Path:
    path = tmp_path / name
    path.mkdir()
    (path / "config.json").write_text(json.dumps(dict(registry.get_draft(source).config or {})))
    return path


def _router(draft_dir: Path) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["draft"] = str(draft_dir)
    at.run()
    assert not at.exception, at.exception
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    return at


def _drafts_shown(at: AppTest) -> list[str]:
    return list(next(d for d in at.dataframe if "excluding_embedding" in d.value.columns).value["draft"])


def _use_draft(at: AppTest, source: Path) -> None:
    """Change the sidebar's draft, on the Compare page."""
    at.sidebar.text_input(key="draft_source").set_value(str(source))
    next(b for b in at.sidebar.button if b.label == "Use this draft").click().run()
    assert not at.exception, at.exception


@pytest.mark.parametrize("pressed", [False, True], ids=["seeded", "after-compare"])
def test_compares_drafts_follow_the_sidebar_draft_changed_on_compare(tmp_path: Path, pressed: bool) -> None:
    first = _folder(tmp_path, "draft-a", LLAMA_DRAFT)
    second = _folder(tmp_path, "draft-b", QWEN30_DRAFT)
    at = _router(first)
    assert "draft-a" in _drafts_shown(at)
    if pressed:  # the comparison is in the link (m=...)
        next(b for b in at.button if b.label == "Compare").click().run()
        assert not at.exception, at.exception
    _use_draft(at, second)
    shown = _drafts_shown(at)
    assert "draft-b" in shown and "draft-a" not in shown, shown
    if pressed:
        assert str(second) in at.query_params["m"] and str(first) not in at.query_params["m"]


def test_a_typed_draft_stays_when_the_sidebar_draft_changes(tmp_path: Path) -> None:
    first = _folder(tmp_path, "draft-a", LLAMA_DRAFT)
    second = _folder(tmp_path, "draft-b", QWEN30_DRAFT)
    at = _router(first)
    at.multiselect(key="compare_picks").set_value([QWEN30_DRAFT])  # the user's pick
    next(b for b in at.button if b.label == "Compare").click().run()
    _use_draft(at, second)
    assert at.multiselect(key="compare_picks").value == [QWEN30_DRAFT]  # kept
    shown = _drafts_shown(at)
    assert "draft-b" in shown and "draft-a" not in shown, shown


def test_seeded_drafts_follow_overviews_reference_after_the_target_is_set_on_compare(tmp_path: Path) -> None:
    _walk_group()
    draft_dir = _draft_dir(tmp_path)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["draft"] = str(draft_dir)
    at.query_params["draft_group"] = GROUP
    at.run()
    # two targets in the runs: not known, so the published draft of its hidden size and vocabulary (2,048, 151,936)
    assert at.selectbox(key="ov_ref").value == QWEN30_DRAFT
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    assert at.multiselect(key="compare_picks").value == [QWEN30_DRAFT]
    at.text_input(key="compare_target").set_value(Q30)
    next(b for b in at.button if b.label == "Compare").click().run()
    assert not at.exception, at.exception
    # Overview's reference is now the Qwen3-30B-A3B draft; the registry has none of its config to count, so a
    # countable draft for the same target is listed, and the caption says why (here: its Hub config was not read)
    assert at.multiselect(key="compare_picks").value == [QWEN30_DRAFT]
    said = " ".join(c.value for c in at.main.caption)
    unread = f"Overview compares your draft with {OVERVIEW_REF}, whose config could not be read from the Hub"
    assert unread in said, said
    assert list(at.query_params["m"]) == [f"registry:{QWEN30_DRAFT}", str(draft_dir)]
    at.switch_page("pages/overview.py").run()
    assert at.selectbox(key="ov_ref").value == OVERVIEW_REF
    note = " ".join(c.value for c in at.main.caption)
    assert f"its runs name several targets ({Q30}: #1-#5; {Q8}: #6)" in note, note
    at.switch_page("pages/compare.py").run()  # and back: the same seed
    assert at.multiselect(key="compare_picks").value == [QWEN30_DRAFT]
