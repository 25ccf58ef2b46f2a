"""Runs of a draft's group that were served with another target model are another model's numbers.

A group holds whatever was benchmarked under its name: a Llama-3.1-8B draft's group may also hold runs of a
Qwen3-8B server. Those runs are left out of the draft's answers (Overview's pair, the sweep, the plan, its own
points on Acceptance vs data) and named; when the draft's target is not known, the answer says the group mixes
targets instead of pooling them silently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from comparelib.analysis import overview, plan, speedup
from comparelib.models import comparison, registry
from comparelib.models.draft import model_match, runs_for_target, target_from_runs
from tests.fixtures import page_app

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
QWEN = "Qwen/Qwen3-8B"
LLAMA_DRAFT = "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"  # published for LLAMA: its target is known
KIMI_REF = "AQ-MedAI/Kimi-K2-Instruct-eagle3"

# (name a server reported, the draft's target, verdict)
MATCHES = [
    (LLAMA, LLAMA, "same"),
    ("meta-llama/llama-3.1-8b-instruct", LLAMA, "same"),  # case
    ("/models/Llama-3.1-8B-Instruct", LLAMA, "same"),  # served from a local folder
    ("/root/.cache/huggingface/hub/models--meta-llama--Llama-3.1-8B-Instruct/snapshots/0e9e39f", LLAMA, "same"),
    (f"{LLAMA}@main", LLAMA, "same"),
    ("RedHatAI/Llama-3.1-8B-Instruct-FP8-dynamic", LLAMA, "same"),  # a quantised copy of the same model
    ("Kimi-K2.5", "moonshotai/Kimi-K2.5", "same"),  # the built-in example's runs
    (QWEN, LLAMA, "other"),
    ("/root/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/abc", LLAMA, "other"),
    ("meta-llama/Llama-3.3-70B-Instruct", LLAMA, "other"),  # another size
    ("meta-llama/Meta-Llama-3-8B-Instruct", LLAMA, "other"),  # another version
    ("moonshotai/Kimi-K2-Instruct", "moonshotai/Kimi-K2.5", "other"),
    ("Qwen/Qwen3-30B-A3B", QWEN, "other"),
    ("llama", LLAMA, "unsure"),  # a --served-model-name alias
    ("acme/target", LLAMA, "unsure"),
    ("", LLAMA, "unsure"),
]


@pytest.mark.parametrize(("served", "target", "verdict"), MATCHES)
def test_served_names_are_matched_to_the_target(served: str, target: str, verdict: str) -> None:
    assert model_match(served, target) == verdict


def _run(store, model: str, tok_s: float, steps: int | None = None, al: float | None = None, group: str = "mine"):  # type: ignore[no-untyped-def]
    """One finished run as the bench page stores it; ``steps=None`` is a baseline."""
    cfg = {
        "engine": "sglang",
        "model": model,
        "speculative_algorithm": "EAGLE3" if steps else None,
        "num_steps": steps,
        "topk": 1 if steps else None,
        "num_draft_tokens": steps + 1 if steps else None,
    }
    rid = store.start_run(
        endpoint="http://127.0.0.1:30000", server_config=cfg, group=group, params={"concurrency": 4, "max_tokens": 64}
    )
    store.finish_run(rid, {"requests": 8, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": al})
    return rid


def _store():  # type: ignore[no-untyped-def]
    from comparelib import settings
    from comparelib.live.store import Store

    return Store(settings.database_url())


def _mixed_group(store) -> tuple[dict[str, int], list[int]]:  # type: ignore[no-untyped-def]
    """The draft's Llama runs (a baseline and one speculative run), and a faster Qwen3-8B sweep beside them:
    three num_steps and a 3x speedup, what both the best pair and the sweep preferred."""
    llama = {"base": _run(store, LLAMA, 100.0), "spec": _run(store, LLAMA, 150.0, 3, 2.5)}
    qwen = [_run(store, QWEN, 100.0)] + [_run(store, QWEN, 200.0 + 50 * k, k, 1.5 + 0.5 * k) for k in (2, 3, 4)]
    return llama, qwen


def _entries(tmp_path: Path | None = None) -> tuple[comparison.Entry, comparison.Entry]:
    """The draft (the published Llama-3.1-8B one, or its raw config in a folder: no target named) and a reference."""
    if tmp_path is None:
        own = comparison.load_entry(f"registry:{LLAMA_DRAFT}")
    else:
        (tmp_path / "config.json").write_text(json.dumps(dict(registry.get_draft(LLAMA_DRAFT).config or {})))
        own = comparison.load_entry(str(tmp_path))
    return own, comparison.load_entry(f"registry:{KIMI_REF}")


def _note(qwen: list[int]) -> str:
    ids = ", ".join(f"#{i}" for i in qwen)
    return (
        f"{len(qwen)} runs of group mine ({ids}) were served with {QWEN}, not your draft's target {LLAMA}; left out."
    )


def test_overview_takes_its_pair_from_the_drafts_target_and_names_the_rest() -> None:
    store = _store()
    llama, qwen = _mixed_group(store)
    own, ref = _entries()
    assert own.target_label == LLAMA
    answer = overview.answer(own, ref, store.runs(group="mine"), None)
    assert answer.live is not None
    assert (answer.live.run_id, answer.live.baseline_run_id) == (llama["spec"], llama["base"])
    assert answer.live.speedup == pytest.approx(1.5)  # not the Qwen server's 3x
    assert answer.best_run.id == llama["spec"] and answer.own_accept == pytest.approx(2.5)
    assert answer.runs_note == _note(qwen)
    assert {r.id for r in answer.runs} == set(llama.values())


def test_the_sweep_and_the_plan_leave_the_other_targets_runs_out() -> None:
    store = _store()
    llama, qwen = _mixed_group(store)
    runs = store.runs(group="mine")
    # the bare group (no draft): the sweep of most num_steps is the Qwen one, as before; it names the mix
    bare = speedup.model_from_runs(runs)
    assert {p.run_id for p in bare.measured} == set(qwen[1:])
    assert any(n.startswith("Group mine mixes 2 target models:") for n in bare.notes), bare.notes
    model = speedup.model_from_runs(runs, target=LLAMA)
    assert [p.run_id for p in model.measured] == [llama["spec"]]
    assert model.baseline_run_id == llama["base"]
    assert _note(qwen) in model.notes
    own, _ = _entries()
    inputs = plan.inputs_for(own, runs=runs, published=None)
    assert {r.id for r in inputs.runs} == set(llama.values()) and inputs.runs_note == _note(qwen)
    result = plan.build(inputs, draws=50)
    assert result.served_steps == 3 and result.current["runs_note"] == _note(qwen)
    texts = {s.id: s.text for s in result.sources}
    assert f"served: run {llama['spec']} at 3 steps" in texts[result.current["source"]]
    assert any(s.text == f"benchmark runs: {_note(qwen)}" for s in result.sources)


def test_only_the_other_targets_runs_say_so() -> None:
    """Runs of the draft's own target under another name are kept, and an unmatched or missing name is said."""
    store = _store()
    same = _run(store, "/models/Llama-3.1-8B-Instruct", 150.0, 3, 2.5, group="g")
    alias = _run(store, "llama", 140.0, 3, 2.4, group="g")
    unnamed = _run(store, "", 130.0, 3, 2.3, group="g")
    split = runs_for_target(store.runs(group="g"), LLAMA)
    assert [r.id for r in split.kept] == [same, alias, unnamed] and not split.left_out
    assert split.note == (
        f"1 run of group g (#{alias}) was served as llama, a name this app cannot match to your draft's target "
        f"{LLAMA}; kept. 1 run of group g (#{unnamed}) does not record its target model; kept."
    )
    clean = runs_for_target([r for r in store.runs(group="g") if r.id == same], LLAMA)
    assert clean.note is None and len(clean.kept) == 1
    # one model under two names is one target: the Hub id is the one named
    two_names = [r for r in store.runs(group="g") if r.id == same] + [store.run(_run(store, LLAMA, 100.0, group="g"))]
    assert target_from_runs(two_names) == LLAMA


def test_an_unknown_target_and_a_group_of_two_targets_is_said(tmp_path: Path) -> None:
    store = _store()
    llama, qwen = _mixed_group(store)
    own, ref = _entries(tmp_path)
    assert own.target_label is None  # a raw EAGLE-3 config names no target, and the runs name two
    answer = overview.answer(own, ref, store.runs(group="mine"), None)
    note = answer.runs_note or ""
    ids_llama = ", ".join(f"#{i}" for i in llama.values())
    ids_qwen = ", ".join(f"#{i}" for i in qwen)
    assert note.startswith(f"Group mine mixes 2 target models: {LLAMA} ({ids_llama}) and {QWEN} ({ids_qwen}).")
    assert "cannot be told from the others'" in note
    assert len(answer.runs) == len(llama) + len(qwen)  # nothing can be left out: the answer says so instead
    inputs = plan.inputs_for(own, runs=store.runs(group="mine"), published=None)
    assert inputs.runs_note == note


def _md(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_overview_page_names_the_runs_it_left_out() -> None:
    store = _store()
    llama, qwen = _mixed_group(store)
    at = page_app("../pages/overview.py", timeout=60)
    at.query_params["draft"] = f"registry:{LLAMA_DRAFT}"
    at.query_params["draft_group"] = "mine"
    at.run()
    assert not at.exception, at.exception
    md = _md(at)
    assert f"**Live speed** (measured): run #{llama['spec']} (sglang, num_steps 3)" in md, md
    assert f"against baseline run #{llama['base']}" in md and "1.50x" in md
    assert "3.00x" not in md and f"run #{qwen[-1]}" not in md
    assert _note(qwen) in [w.value for w in at.warning]


def test_overview_page_says_a_group_mixes_targets_when_the_draft_names_none(tmp_path: Path) -> None:
    store = _store()
    _mixed_group(store)
    (tmp_path / "config.json").write_text(json.dumps(dict(registry.get_draft(LLAMA_DRAFT).config or {})))
    at = page_app("../pages/overview.py", timeout=60)
    at.query_params["draft"] = str(tmp_path)
    at.query_params["draft_group"] = "mine"
    at.run()
    assert not at.exception, at.exception
    warned = " ".join(w.value for w in at.warning)
    assert f"Group mine mixes 2 target models: {LLAMA} (" in warned and f"and {QWEN} (" in warned, warned


def test_acceptance_vs_data_leaves_the_other_targets_runs_out() -> None:
    store = _store()
    llama, qwen = _mixed_group(store)
    at = page_app("../pages/scaling.py", timeout=60)
    at.query_params["draft"] = f"registry:{LLAMA_DRAFT}"
    at.query_params["draft_group"] = "mine"
    at.run()
    assert not at.exception, at.exception
    assert _note(qwen) in [w.value for w in at.warning]
    notes = " ".join(m.value for m in at.markdown)
    assert f"runs fitted: #{llama['spec']} (sglang)" in notes, notes  # the speed model's notes, Llama's run only
