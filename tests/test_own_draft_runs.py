"""Only your draft's runs answer for it, and a target's own MTP layers are called MTP.

Two new-user walks: a gpt-oss-120b group holding the user's EAGLE-3 runs beside runs of a published draft and of a
Kimi draft had no target ("unknown") and Overview compared with a Kimi draft; a DeepSeek-V3 group holding the user's
EAGLE-3 runs and MTP runs (SGLang NEXTN, stored as EAGLE with the target as its draft) reported the MTP run as
"your draft". vLLM's mtp runs were keyed (3,?,?) in the sweep, and pairs at other settings were told apart by batch
and steps only."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from comparelib.analysis import overview, speedup
from comparelib.live.store import RunRecord
from comparelib.models import registry
from comparelib.models.draft import draft_match, resolve_target, runs_of_draft, target_from_runs
from tests.fixtures import bench_store, page_app, store_run, stored_run
from tests.hub_emulator import HubEmulator

GPT_OSS = "openai/gpt-oss-120b"
KIMI = "moonshotai/Kimi-K2-Instruct"
DSV3 = "deepseek-ai/DeepSeek-V3"
MINE = "acme/gpt-oss-120b-eagle3"


def rec(
    id_: int,
    steps: int | None,
    tok_s: float,
    *,
    model: str = GPT_OSS,
    draft: str | None = None,
    algo: str | None = "EAGLE3",
    engine: str = "sglang",
    concurrency: int = 4,
    al: float | None = 2.5,
) -> RunRecord:
    """One stored run; ``steps=None`` is a baseline (no speculation, no draft)."""
    return stored_run(
        id_,
        steps,
        tok_s,
        None if steps is None else al,
        engine=engine,
        algo=algo,
        draft=draft,
        model=model,
        ndt=None if engine == "vllm" or steps is None else steps + 1,
        concurrency=concurrency,
    )


# ---------------------------------------------------------------- 1. the target from the draft's own runs

MIXED_TARGETS = [
    rec(1, None, 400.0),
    rec(2, 3, 560.0, draft="/data/models/gpt-oss-120b-eagle3"),  # the user's, served from a local folder
    rec(3, 3, 640.0, draft="lmsys/EAGLE3-gpt-oss-120b-bf16"),  # a published draft measured beside it
    rec(4, 3, 120.0, model=KIMI, draft="AQ-MedAI/Kimi-K2-Instruct-eagle3"),  # a Kimi draft in the same group
]


@pytest.mark.parametrize(
    ("run_draft", "draft", "same"),
    [
        ("acme/gpt-oss-120b-eagle3", MINE, True),
        ("ACME/GPT-OSS-120B-Eagle3@main", MINE, True),  # case and a revision aside
        ("/data/models/gpt-oss-120b-eagle3/", MINE, True),  # a local folder of the same name
        ("/root/.cache/huggingface/hub/models--acme--gpt-oss-120b-eagle3/snapshots/abc", MINE, True),
        ("gpt-oss-120b-eagle3", "/data/gpt-oss-120b-eagle3", True),  # folder name against folder name
        ("other/gpt-oss-120b-eagle3", MINE, False),  # same name, another owner: another draft
        ("lmsys/EAGLE3-gpt-oss-120b-bf16", MINE, False),
        (None, MINE, False),
        ("acme/gpt-oss-120b-eagle3", None, False),
    ],
)
def test_a_run_is_the_drafts_by_repo_id_or_folder_name(run_draft: str | None, draft: str | None, same: bool) -> None:
    assert draft_match(run_draft, draft) is same


def test_only_the_drafts_own_runs_and_the_baselines_say_its_target() -> None:
    assert target_from_runs(MIXED_TARGETS) is None  # all runs: two targets, none the draft's (unchanged)
    assert target_from_runs(MIXED_TARGETS, MINE) == GPT_OSS
    assert target_from_runs(MIXED_TARGETS, "/data/models/gpt-oss-120b-eagle3") == GPT_OSS
    got = resolve_target(None, MIXED_TARGETS, None, draft=MINE)
    assert (got.model, got.origin) == (GPT_OSS, "runs")
    # no run names this draft: runs naming no draft count, a published draft's never; a baseline says what the
    # group served
    published = "lmsys/EAGLE3-gpt-oss-120b-bf16"
    unnamed = [rec(1, None, 400.0, model=KIMI), rec(2, 3, 560.0, model=KIMI), rec(3, 3, 90.0, draft=published)]
    assert target_from_runs(unnamed, MINE) == KIMI
    kimi_draft = "AQ-MedAI/Kimi-K2-Instruct-eagle3"
    assert target_from_runs([rec(1, None, 400.0), rec(4, 3, 120.0, model=KIMI, draft=kimi_draft)], MINE) == GPT_OSS


def test_runs_of_a_draft_served_from_a_folder_of_another_name_are_taken_as_its_and_said() -> None:
    """A draft served from its training checkpoint's folder (epoch_9) names no run by its name: those runs may be
    its and are kept, said in a sentence; a published draft's run is still another draft's."""
    runs = [
        rec(1, None, 400.0),
        rec(2, 3, 560.0, draft="/ckpt/outputs/epoch_9"),
        rec(3, 3, 640.0, draft="lmsys/EAGLE3-gpt-oss-120b-bf16"),
    ]
    split = runs_of_draft(runs, MINE)
    assert [r.id for r in split.kept] == [1, 2] and [r.id for r in split.left_out] == [3]
    assert split.note == (
        f"1 run of another draft left out: #3 lmsys/EAGLE3-gpt-oss-120b-bf16 (your draft is {MINE}). "
        f"No run names your draft {MINE}: the runs of /ckpt/outputs/epoch_9 (#2) are taken as its. Benchmark it "
        "served from a folder of its name to tell it from other drafts."
    )
    pair = speedup.best_pair(runs, draft=MINE)
    assert pair is not None and pair.spec.id == 2
    # once a run names it, the folder of another name is another draft's
    named = [*runs, rec(4, 2, 500.0, draft=MINE)]
    assert [r.id for r in runs_of_draft(named, MINE).kept] == [1, 4]


def _own_group(group: str) -> None:
    """The gpt-oss walk stored as the bench page stores it: a baseline, the user's runs from a local folder, a
    faster published draft's run and a Kimi draft's run, all in one group."""
    store = bench_store()
    rows = (
        (GPT_OSS, None, None, 400.0, None),
        (GPT_OSS, "EAGLE3", "/data/models/gpt-oss-120b-eagle3", 560.0, 2.9),
        (GPT_OSS, "EAGLE3", "lmsys/EAGLE3-gpt-oss-120b-bf16", 640.0, 3.4),
        (KIMI, "EAGLE3", "AQ-MedAI/Kimi-K2-Instruct-eagle3", 120.0, 3.1),
    )
    for model, spec, draft, tok_s, acc in rows:
        cfg = {
            "engine": "sglang",
            "model": model,
            "speculative_algorithm": spec,
            "draft_model": draft,
            "num_steps": 3 if spec else None,
            "num_draft_tokens": 4 if spec else None,
        }
        summary = {"requests": 8, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": acc}
        store_run(store, cfg, summary, group=group, concurrency=32)


def _own_page(hub: HubEmulator, page: str, group: str, *, timeout: float) -> AppTest:
    """``page`` opened on the user's draft (a gpt-oss EAGLE-3 config naming no target) and the gpt-oss walk
    stored under ``group``."""
    cfg = dict(registry.get_draft("lmsys/EAGLE3-gpt-oss-120b-bf16").config or {})
    cfg.pop("eagle_config", None)
    hub.add_model(MINE, cfg)
    _own_group(group)
    at = page_app(page, timeout=timeout)
    at.query_params["draft"] = MINE
    at.query_params["draft_group"] = group
    at.run()
    assert not at.exception, at.exception
    return at


def test_overview_answers_from_the_drafts_own_runs_in_a_group_of_several_drafts(hub) -> None:
    """The target is the one the user's runs were served with (gpt-oss-120b, not 'unknown'), the reference a
    gpt-oss draft, and the pair is the user's run at its batch size; the other drafts' runs are named, not used."""
    at = _own_page(hub, "../pages/overview.py", "gptoss-runs", timeout=60)
    assert registry.get_draft(at.selectbox(key="ov_ref").value).target_model == GPT_OSS
    md = "\n".join(m.value for m in at.markdown)
    assert f"target `{GPT_OSS}` (the model its runs were served with)" in md, md
    live = next(line for line in md.splitlines() if line.startswith("- **Live speed**"))
    assert "(sglang, num_steps 3) at batch 32, [560.0 tok/s]" in live and "1.40x" in live, live
    left = " ".join(c.value for c in at.caption)
    # measured beside yours at the same setting: compared side by side, not "left out"
    assert "Run #3 of lmsys/EAGLE3-gpt-oss-120b-bf16 is not counted as yours: it is compared" in left, left
    warned = " ".join(w.value for w in at.warning)  # the Kimi draft's run: another target's, left out first
    assert f"served with {KIMI}, not your draft's target {GPT_OSS}; left out" in warned, warned


# ---------------------------------------------------------------- 2. the best pair among the draft's own runs

MINE_DS = "acme/dsv3-eagle3"
DS_GROUP = [
    rec(1, None, 300.0, model=DSV3),
    rec(2, 3, 390.0, model=DSV3, draft=MINE_DS),
    rec(3, 3, 540.0, model=DSV3, draft=DSV3, algo="EAGLE"),  # SGLang NEXTN as it reports itself
    rec(4, 2, 420.0, model=DSV3, draft="lmsys/other-dsv3-eagle3"),
    rec(5, 2, 360.0, model=DSV3, draft=MINE_DS),
]


def test_the_best_pair_is_your_drafts_and_the_others_are_named() -> None:
    old = speedup.best_pair(DS_GROUP)
    assert old is not None and old.spec.id == 3  # no draft given: the fastest run of the group, as before
    pair = speedup.best_pair(DS_GROUP, draft=MINE_DS)
    assert pair is not None and (pair.spec.id, pair.baseline.id) == (2, 1)
    live = overview.live_facts(DS_GROUP, draft=MINE_DS)
    assert live is not None and live.run_id == 2
    assert live.left_out == (
        f"2 runs of another draft left out: #3 MTP (NEXTN), #4 lmsys/other-dsv3-eagle3 (your draft is {MINE_DS})."
    )
    assert live.left_out in live.sentence
    assert all("#3" not in u and "#4" not in u for u in live.unpaired + live.others)
    split = runs_of_draft(DS_GROUP, MINE_DS)
    assert [r.id for r in split.kept] == [1, 2, 5] and [r.id for r in split.left_out] == [3, 4]
    # the answer's acceptance is the draft's own run's, not the MTP run's
    from comparelib.models import comparison

    ans = overview.answer(
        comparison.load_entry(comparison.registry_source("AQ-MedAI/Kimi-K2-Instruct-eagle3"), with_header=False),
        registry.get_draft("AQ-MedAI/Kimi-K2-Instruct-eagle3"),
        DS_GROUP,
        None,
        own_target=DSV3,
        draft=MINE_DS,
    )
    assert ans.best_run is not None and ans.best_run.id == 2
    # another draft that is not published, measured at your setting: compared side by side, not only left out
    assert [(p.theirs.id, p.yours.id) for p in ans.others_beside] == [(4, 5)]  # your newest run there
    # the target's own MTP layers, measured faster than your draft: set against it, not only left out (walk Z)
    assert ans.native_mtp is not None and (ans.native_mtp.mtp.id, ans.native_mtp.yours.id) == (3, 2)
    assert ans.native_mtp.verdict == "faster"
    assert ans.draft_note == (
        "Run #4 of lmsys/other-dsv3-eagle3 is not counted as yours: it is compared with yours below, run by run. "
        "Run #3 (MTP (NEXTN), the target's own MTP layers) is not counted as yours: it is set against yours above."
    )


# ---------------------------------------------------------------- 3 and 4. MTP under its aliases is one algorithm


@pytest.mark.parametrize(
    ("algo", "draft", "engine", "key", "label"),
    [
        ("EAGLE", DSV3, "sglang", "mtp", "MTP (NEXTN)"),  # SGLang's NEXTN, rewritten to EAGLE, target as draft
        ("NEXTN", None, "sglang", "mtp", "MTP (NEXTN)"),
        ("mtp", None, "vllm", "mtp", "MTP"),
        ("deepseek_mtp", None, "vllm", "mtp", "MTP"),
        ("qwen3_next_mtp", None, "vllm", "mtp", "MTP"),
        ("EAGLE", "acme/dsv3-eagle", "sglang", "eagle", "EAGLE"),  # another draft: EAGLE
        ("EAGLE3", DSV3, "sglang", "eagle3", "EAGLE-3"),
        ("eagle-3", None, "vllm", "eagle3", "EAGLE-3"),
        ("unknown", None, "vllm", "unknown", None),
    ],
)
def test_a_targets_own_mtp_is_called_mtp(algo: str, draft: str | None, engine: str, key: str, label: str) -> None:
    run = rec(2, 3, 500.0, model=DSV3, draft=draft, algo=algo, engine=engine)
    assert registry.algorithm_key(run) == key
    assert registry.algorithm_label(run) == label
    assert registry.is_mtp(run) is (key == "mtp")


def test_nextn_and_eagle_with_the_target_as_draft_are_one_sweep_and_eagle3_another() -> None:
    nextn = rec(2, 2, 500.0, model=DSV3, draft=None, algo="NEXTN")
    as_eagle = rec(3, 3, 540.0, model=DSV3, draft=DSV3, algo="EAGLE")
    eagle3 = rec(4, 3, 390.0, model=DSV3, draft=MINE_DS, algo="EAGLE3")
    assert speedup.sweep_mismatch(nextn, as_eagle) == []
    assert speedup._sweep_signature(nextn) == speedup._sweep_signature(as_eagle)
    assert "different algorithm: MTP (NEXTN) against EAGLE-3" in speedup.sweep_mismatch(as_eagle, eagle3)
    series = speedup.sweep_series([nextn, as_eagle, eagle3])
    assert series[2] == series[3] == "sglang MTP (NEXTN) bs=4 chain"
    assert series[4] == "sglang EAGLE-3 bs=4 chain"


def test_vllm_mtp_runs_are_chains_and_its_aliases_one_algorithm() -> None:
    mtp = rec(2, 3, 500.0, model=DSV3, algo="mtp", engine="vllm")
    alias = rec(3, 2, 480.0, model=DSV3, algo="deepseek_mtp", engine="vllm")
    assert registry.run_setting(mtp)[1] == "(3,1,4)"
    assert registry.run_setting(alias)[1] == "(2,1,3)"
    assert speedup.sweep_mismatch(mtp, alias) == []
    assert speedup._sweep_signature(mtp) == speedup._sweep_signature(
        rec(4, 3, 1.0, model=DSV3, algo="qwen3_next_mtp", engine="vllm")
    )


# ---------------------------------------------------------------- 5. pairs named by engine, algorithm and batch


def test_pairs_at_other_settings_name_engine_algorithm_and_batch() -> None:
    runs = [
        rec(10, None, 400.0, concurrency=4),
        rec(11, 3, 700.0, draft=MINE, concurrency=4),
        rec(12, None, 2000.0, engine="vllm", concurrency=32),
        rec(13, 3, 3200.0, draft=MINE, algo="eagle3", engine="vllm", concurrency=32),
        rec(14, None, 90.0, concurrency=1),
        rec(15, 3, 180.0, draft=MINE, concurrency=1),
    ]
    live = overview.live_facts(runs, draft=MINE)
    assert live is not None and (live.run_id, live.baseline_run_id) == (13, 12)
    assert live.batch == 32 and live.batch_words == "at batch 32"
    assert live.sentence.startswith("Measured at batch 32: run #13 (vllm, num_steps 3)"), live.sentence
    assert live.others == (
        "SGLang EAGLE-3 batch 1, num_steps 3 at 2.00x (#15/#14)",
        "SGLang EAGLE-3 batch 4, num_steps 3 at 1.75x (#11/#10)",
    )


# ---------------------------------------------------------------- 6. the plan and Acceptance vs data: the same runs


def test_the_plan_and_the_live_outlook_read_only_your_drafts_runs() -> None:
    """The plan and Acceptance vs data's live outlook kept every run of the group: the MTP run (#3, faster) and
    another draft's (#4) were 'your draft measured' there while Overview's pair left them out."""
    from comparelib.analysis import plan, verdicts
    from comparelib.models import comparison

    entry = comparison.load_entry(
        comparison.registry_source("AQ-MedAI/Kimi-K2-Instruct-eagle3"), with_header=False, with_card=False
    )
    old = plan.inputs_for(entry, runs=DS_GROUP, target=DSV3)
    assert {r.id for r in old.runs} == {1, 2, 3, 4, 5}  # no draft named: every run, as before
    inputs = plan.inputs_for(entry, runs=DS_GROUP, target=DSV3, draft=MINE_DS)
    assert [r.id for r in inputs.runs] == [1, 2, 5]
    assert "2 runs of another draft left out: #3 MTP (NEXTN), #4 lmsys/other-dsv3-eagle3" in inputs.runs_note

    look = verdicts.live_outlook(DS_GROUP, None, reference="r", x="samples", target=DSV3, draft=MINE_DS)
    assert sorted(look.measured["run_id"]) == [1, 2, 5]
    assert {p.run_id for p in look.model.measured} <= {2, 5}
    assert look.runs_note is not None and "#3 MTP (NEXTN)" in look.runs_note


def test_acceptance_vs_data_plots_only_your_drafts_runs_and_names_the_others(hub) -> None:
    """The gpt-oss group as stored by the bench page: the published draft's run (3.4) was drawn as one of your
    draft's points on Acceptance vs data; it is left out and named, as on Overview."""
    at = _own_page(hub, "../pages/scaling.py", "gptoss-av", timeout=90)
    said = " ".join(c.value for c in at.caption)
    assert "1 run of another draft left out: " in said and "lmsys/EAGLE3-gpt-oss-120b-bf16" in said, said
    assert "3.40" not in " ".join(m.value for m in at.markdown)
