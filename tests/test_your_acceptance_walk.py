"""Pages agree on which run is "your acceptance" and which reference your draft is compared with.

A new user's Qwen3-32B walk (an EAGLE-3 draft whose config names no target; its card says ``base_model:
Qwen/Qwen3-32B``; a group with a vLLM batch-1 sweep, a vLLM batch-8 run, baselines, and SGLang batch-1 runs at 3
steps) found:
1. Overview's acceptance was the batch-8 vLLM run's, Acceptance vs data's an SGLang batch-1 run's;
2. the reference was the Kimi-K2 draft (the global default) while a Qwen3 draft gave the target AL;
3. the target was "not known" before runs were attached, though the card names it;
4. the CLI's plan aimed at the Kimi draft's AL while Overview's plan aimed at the Qwen3 draft's;
5. the target notice called a target's own MTP registry entry a "published draft" for it;
6. a published range pooled 3-step and 7-step results without saying so.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from comparelib.analysis import overview
from tests.fixtures import (
    bench_config,
    bench_store,
    page_app,
    page_text,
    qwen3_32b_config,
    qwen3_32b_eagle3_config,
    store_run,
)
from tests.hub_emulator import HubEmulator

DRAFT = "yourorg/qwen3-32b-eagle3"
TARGET = "Qwen/Qwen3-32B"
GROUP = "qwen32-sweep"
QWEN3_REF = "lmsys/SGLang-EAGLE3-Qwen3-30B-A3B-Instruct-2507-SpecForge-Nex"
KIMI_REF = "AQ-MedAI/Kimi-K2-Instruct-eagle3"
CARD = f"---\nlicense: apache-2.0\nbase_model: {TARGET}\ntags:\n- eagle3\n---\n# Qwen3-32B EAGLE-3 draft\n"


def _target_config() -> dict[str, Any]:
    return qwen3_32b_config()


def _draft_config() -> dict[str, Any]:
    """A SpecForge EAGLE-3 config: it names no target (no eagle_config target, no verifier)."""
    return qwen3_32b_eagle3_config({"eagle_aux_hidden_state_layer_ids": [1, 31, 61]})


def _add_draft(hub: HubEmulator, *, card: str | None = CARD) -> None:
    hub.add_model(DRAFT, _draft_config(), card=card)
    hub.add_model(TARGET, _target_config())


def _store_runs() -> dict[str, int]:
    """The walk's group, stored as the bench page stores runs; returns the ids by name."""
    store = bench_store()
    ids: dict[str, int] = {}

    def run(name: str, engine: str, steps: int | None, batch: int, tok_s: float, al: float | None) -> None:
        cfg = bench_config(
            engine,
            TARGET,
            steps,
            draft=DRAFT if steps else None,
            topk=1 if steps and engine == "sglang" else None,
            ndt=steps + 1 if steps and engine == "sglang" else None,
        )
        summary = {"requests": 32, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": al}
        ids[name] = store_run(store, cfg, summary, group=GROUP, concurrency=batch, endpoint=f"http://{engine}:8000")

    run("vllm-base-1", "vllm", None, 1, 40.0, None)
    for k, al in zip(range(1, 6), (1.8, 2.2, 2.5, 2.7, 2.8), strict=True):
        run(f"vllm-{k}", "vllm", k, 1, 50.0 + 5 * k, al)
    run("vllm-base-8", "vllm", None, 8, 280.0, None)
    run("vllm-8", "vllm", 3, 8, 420.0, 2.59)  # the fastest pair: Overview's acceptance came from it
    run("sglang-base", "sglang", None, 1, 42.0, None)
    run("sglang-13", "sglang", 3, 1, 70.0, 2.70)
    run("sglang-14", "sglang", 3, 1, 72.0, 2.74)
    return ids


def _page(path: str, **query: str) -> AppTest:
    import streamlit as st

    st.cache_data.clear()  # another test's read of the same draft (its config, its card) stays cached per process
    at = page_app(path, timeout=90)
    at.query_params["draft"] = DRAFT
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


# ------------------------------------------------------------------ 1. one run is "your acceptance"


def test_overview_and_acceptance_vs_data_read_the_same_run_and_say_why(hub: HubEmulator) -> None:
    """Overview said "ours 2.59 (measured, run #11)" (the batch-8 vLLM run) while Acceptance vs data led with
    run #14's 2.74 (SGLang batch 1). Both now read the run the library picks and say why it is that run."""
    _add_draft(hub)
    ids = _store_runs()
    want = ids["sglang-14"]
    overview_page = _page("../pages/overview.py", draft_group=GROUP, draft_samples="90000")
    md = page_text(overview_page)
    assert f"(measured, run #{want}, at the published chain of steps=3,topk=1,draft=4,bs=8,sglang" in md, md
    assert f"run #{ids['vllm-8']})" not in md
    scaling_page = _page("../pages/scaling.py", draft_group=GROUP, draft_samples="90000")
    text = page_text(scaling_page)
    assert f"Your acceptance: 2.74, run #{want} (at the published chain of" in text, text


@pytest.mark.parametrize(
    ("settings", "expected", "why"),
    [
        # exactly at a published setting: that run, whatever is faster
        (["steps=3,topk=1,draft=4,bs=8,vllm"], "vllm-8", "at the published setting"),
        # the chain only: the same engine first, then the newest
        (["steps=3,topk=1,draft=4,bs=8,sglang"], "sglang-14", "engine vllm"),
        # no published chain drafted: the best comparable pair's speculative run
        (["steps=7,topk=1,draft=8,bs=8,sglang"], "vllm-8", "best comparable pair"),
    ],
)
def test_own_acceptance_rule(settings: list[str], expected: str, why: str) -> None:
    from comparelib.live.store import Store

    ids = _store_runs()
    from comparelib import settings as app_settings

    runs = Store(app_settings.database_url()).runs(group=GROUP)
    got = overview.own_acceptance(runs, settings, draft=DRAFT)
    assert got is not None and got.run.id == ids[expected], got
    if expected == "sglang-14":
        assert "engine vllm" not in got.why  # the same engine: no difference in engine to say, only the batch size
        assert "batch 1 (published: 8)" in got.why, got.why
        # vLLM measured the same chain at that batch apart: named, with its acceptance (walk AJ)
        other = f"; vLLM run #{ids['vllm-3']} measured 2.50 at the same chain and batch, not on the published engine"
        assert other in got.why, got.why
    else:
        assert why in got.why, got.why


# ------------------------------------------------------------------ 2. one reference: the nearest of the family


def test_a_target_without_published_drafts_takes_the_nearest_of_its_family() -> None:
    pick = overview.default_reference(overview.reference_choices(), DRAFT, TARGET)
    assert pick.hub_id == QWEN3_REF, pick
    assert f"No published draft for {TARGET}" in pick.why and "(same family, Qwen3)" in pick.why, pick.why


def test_overview_acceptance_vs_data_and_the_plan_name_one_reference() -> None:
    from comparelib.analysis import plan, scaling

    pts = scaling.published_points()
    aim = plan.default_target(
        pts, benchmark="gsm8k", setting_key="steps=3,topk=1,draft=4,bs=8,sglang", target=TARGET, own=DRAFT
    )
    assert aim is not None and aim[1].startswith(QWEN3_REF), aim
    assert "(same family)" in aim[1] and "Overview's reference" in aim[1]


# ------------------------------------------------------------------ 3. the target from the model card


def test_the_card_base_model_names_the_target_before_any_run(hub: HubEmulator) -> None:
    _add_draft(hub)
    at = _page("../pages/overview.py")
    md = page_text(at)
    assert "target not known" not in md
    assert f"target `{TARGET}` (the base_model of its model card)" in md, md
    assert at.selectbox(key="ov_ref").value == QWEN3_REF


def test_no_card_is_no_target_and_no_error(hub: HubEmulator) -> None:
    from comparelib.models.draft import base_model_from_card, card_target

    _add_draft(hub, card=None)
    assert card_target(DRAFT) is None
    assert base_model_from_card("---\nbase_model: [a/b, c/d]\n---\n") is None  # several: none is the target
    assert base_model_from_card(f"---\nbase_model: {KIMI_REF}\n---\n") is None  # a published draft, not a target
    at = _page("../pages/overview.py")
    assert "target not known" in page_text(at)


# ------------------------------------------------------------------ 4. CLI and Overview give one plan


def test_the_cli_plan_is_the_plan_overview_builds(hub: HubEmulator) -> None:
    from comparelib import settings
    from comparelib.analysis import plan, scaling
    from comparelib.live.store import Store
    from comparelib.models import comparison
    from comparelib.models.draft import OwnDraft, resolve_target
    from tests.fixtures import run_cli

    _add_draft(hub, card=None)  # the target comes from the runs, as in the walk
    _store_runs()
    proc = run_cli("plan", DRAFT, "--group", GROUP, "--samples", "90000", "--json")
    assert proc.returncode == 0, proc.stderr
    cli = json.loads(proc.stdout)
    # the library calls Overview makes (pages/overview.py: app.draft_target, then the entry with that target)
    own = OwnDraft.parse(DRAFT, group=GROUP, samples=90000)
    runs = own.runs(Store(settings.database_url()))
    target = resolve_target(None, runs, draft=own.match_name).model
    assert target == TARGET
    entry = comparison.load_entry(DRAFT, target=target, with_header=False, with_card=False)
    inputs = plan.inputs_for(
        entry,
        runs=runs,
        own_samples=90000.0,
        own_samples_source="typed in",
        published=scaling.published_points(),
        draft=own.match_name,
    )
    page = plan.build(inputs, target_al=None, gpu_name="H200", rank_batch=plan.BATCHES[0]).to_json()
    assert cli["target_al"] == page["target_al"] == pytest.approx(2.64), (cli["target_al"], page["target_al"])
    assert [o["kind"] for o in cli["options"]] == [o["kind"] for o in page["options"]]
    assert [o["title"] for o in cli["options"]] == [o["title"] for o in page["options"]]


# ------------------------------------------------------------------ 5. a target's own MTP is not a published draft


def test_the_target_notice_calls_native_mtp_layers_native(hub: HubEmulator) -> None:
    from comparelib.models import architectures, comparison
    from comparelib.models.draft import target_notice

    hub.add_model("deepseek-ai/DeepSeek-V3", architectures.known_target("deepseek-ai/DeepSeek-V3"))
    notice = target_notice(comparison.load_entry("deepseek-ai/DeepSeek-V3", with_header=False, with_card=False))
    assert notice is not None
    assert "Published drafts for it: deepseek-ai/DeepSeek-V3" not in notice.sentence, notice.sentence
    assert "its own MTP layers (native)" in notice.sentence


# ------------------------------------------------------------------ 6. a published range names its settings


def test_a_published_range_over_settings_is_given_per_setting() -> None:
    acc = overview.accept_facts(None, None, KIMI_REF)
    line = overview.accept_line(acc, KIMI_REF, "missing", None, measured=False)
    assert "3.17-5.38" not in line and "3.17-5.38" not in acc.sentence, line
    assert "at steps=3,topk=1,draft=4,bs=8,sglang" in line and "at steps=7,topk=1,draft=8,bs=8,sglang" in line
    assert "4.66-5.38 at steps=7" in line, line
    assert "(setting not stated by the source)" in line
