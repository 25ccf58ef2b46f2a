"""Walks U and V: Overview (and ``overview``, which calls the same functions) said what the user's evidence did not.

Walk U (a gpt-oss-20b draft on vLLM, runs on GSM8K/HumanEval/MATH500 prompts at batch 1 and 16):

A. The reference, RedHatAI/gpt-oss-20b-speculator.eagle3, publishes MT-Bench 2.56 only (num_steps 3, T=0, vLLM).
   Overview said it "publishes no acceptance length ... so there is no published figure" and "Not enough evidence yet
   to name a gap", instead of comparing with 2.56 and saying the prompts differ; "your acceptance" was the batch-16
   run (the fastest pair's) though a batch-1 run drafted the same chain, said "at the published chain ...; no run at
   that setting exactly".
D. Live speed led with the fastest pair in tok/s, batch 16 at a loss, not with the pair a user would serve.

Walk V (a GLM-4.5-Air draft on SGLang; the registry has no GLM draft, so the reference is the Kimi-K2 draft):

B. "The largest gap is training data: 180K samples against 1.4M" against a draft for another target; with no target
   known, "sizes are not compared" and then "Why they differ: ... fewer parameters"; the plan's samples to reach the
   Kimi draft's acceptance read as a goal.
C. The lab's own unpublished draft in the group was "Measured side by side", the README's words for a published one.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from comparelib.analysis import overview
from comparelib.models import registry
from tests.fixtures import bench_store, cli_in_process, page_app, stored_run

REDHAT = "RedHatAI/gpt-oss-20b-speculator.eagle3"
KIMI = "AQ-MedAI/Kimi-K2-Instruct-eagle3"
GPT_OSS = "openai/gpt-oss-20b"
GLM = "zai-org/GLM-4.5-Air"
PROMPTS = "gsm8k_humaneval_math500.jsonl"
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def _folder(tmp_path: Path, name: str, config: dict[str, Any]) -> str:
    """Your draft as a local folder holding its config."""
    folder = tmp_path / name
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config))
    return str(folder)


def _store(group: str, target: str, engine: str, runs: list[tuple[int | None, float, float | None, int, str]]) -> None:
    """Runs stored as the bench page stores them: (num_steps or None for a baseline, tok/s, AL, batch, draft)."""
    store = bench_store()
    for steps, tok_s, al, batch, draft in runs:
        cfg = {
            "engine": engine,
            "model": target,
            "speculative_algorithm": "EAGLE3" if steps else None,
            "draft_model": draft if steps else None,
            "num_steps": steps,
            "topk": 1 if steps and engine == "sglang" else None,
            "num_draft_tokens": steps + 1 if steps and engine == "sglang" else None,
        }
        rid = store.start_run(
            endpoint=f"http://{engine}:8000",
            server_config=cfg,
            group=group,
            params={"concurrency": batch, "max_tokens": 256, "prompt_set": PROMPTS, "temperature": 0.0},
        )
        store.finish_run(rid, {"requests": 30, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": al})


def _page(query: dict[str, str]) -> AppTest:
    import streamlit as st

    st.cache_data.clear()  # another test's read of a draft of the same name stays cached per process
    at = page_app("../pages/overview.py", timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def _lines(at: AppTest) -> list[str]:
    md = next(m.value for m in at.markdown if m.value.startswith("- **Your draft:**"))
    return [_LINK.sub(r"\1", line).replace("**", "") for line in md.split("\n")]


def _line(lines: list[str], start: str) -> str:
    return next(line for line in lines if line.startswith(start))


# ---------------------------------------------------------------- walk U: A and D

U_DRAFT = "acme-gptoss-eagle3"
U_GROUP = "walk-u"
# run ids #1..#8: batch 1 baseline and num_steps 1..4, batch 16 baseline and num_steps 2 and 3 (a loss)
U_RUNS = [
    (None, 150.0, None, 1, U_DRAFT),
    (1, 210.0, 1.70, 1, U_DRAFT),
    (2, 250.0, 2.20, 1, U_DRAFT),
    (3, 270.0, 2.50, 1, U_DRAFT),  # #4: the published chain at batch 1
    (4, 268.0, 2.70, 1, U_DRAFT),
    (None, 1800.0, None, 16, U_DRAFT),
    (2, 1720.0, 2.20, 16, U_DRAFT),  # #7: the fastest in tok/s, 0.96x
    (3, 1692.0, 2.48, 16, U_DRAFT),  # #8: the published chain at batch 16
]


def _walk_u(tmp_path: Path) -> str:
    source = _folder(tmp_path, U_DRAFT, dict(registry.get_draft("zhuyksir/EAGLE3-gpt-oss-20b-bf16").config or {}))
    _store(U_GROUP, GPT_OSS, "vllm", U_RUNS)
    bench_store().save_data_volume(draft=U_DRAFT, samples=200_000, tokens=90_000_000, source="audit")
    return source


def test_walk_u_compares_with_the_figure_the_reference_publishes_on_the_batch_1_run(
    tmp_path: Path, capsys: Any
) -> None:
    source = _walk_u(tmp_path)
    proc = cli_in_process(capsys, "overview", source, "--group", U_GROUP, "--json")
    assert proc.returncode == 0, proc.stderr
    said = json.loads(proc.stdout)
    assert said["reference"]["hub_id"] == REDHAT

    # A: your acceptance is the batch-1 run at the published chain, said in one statement
    acc = said["acceptance"]
    assert acc["run_id"] == 4 and acc["own"] == pytest.approx(2.50), acc
    assert (
        acc["why"]
        == "at the published chain of steps=3,topk=1,draft=4,T=0,vllm, batch 1 (the source states no batch size)"
    )
    line = _line(said["lines"], "- Acceptance length:")
    assert (
        "(measured, run #4, at the published chain of steps=3,topk=1,draft=4,T=0,vllm, batch 1 (the source states no"
        in line
    )
    assert "no run at that setting exactly" not in line, line
    # the figure it publishes, and that the prompts differ
    assert f"{REDHAT} 2.56 (published) on MT-Bench at steps=3,topk=1,draft=4,T=0,vllm." in line, line
    assert "It publishes none on GSM8K/HumanEval/MATH500." in line, line
    assert (
        f"Prompts differ: your '{PROMPTS}' prompts against their MT-Bench (acceptance depends on the prompts), so "
        "the gap is indicative, not like for like."
    ) in line, line
    assert "no published figure" not in line, line
    # the headline compares with it too, as indicative
    head = said["headline"]
    assert not head.startswith("Not enough evidence"), head
    assert head.startswith(
        "Acceptance is close (the reference's MT-Bench 2.56 is 1.02 times our 2.50), but on other prompts (it "
        "publishes MT-Bench only, none on GSM8K/HumanEval/MATH500), so this is indicative, not like for like."
    ), head
    assert "publishes no acceptance length" not in head, head

    # D: the lead pair is batch 1's (1.80x), not batch 16's loss (the fastest in tok/s); the loss is said as one
    live = said["live"]
    assert (live["run_id"], live["baseline_run_id"], live["batch"]) == (4, 1, 1), live
    assert live["speedup"] == pytest.approx(270 / 150)
    speed = _line(said["lines"], "- Live speed")
    assert (
        "The pair to serve (the largest speedup measured; the fastest pair in tok/s loses): run #4 (vllm, "
        "num_steps 3) at batch 1, 270.0 tok/s with speculation against baseline run #1 150.0 tok/s without: 1.80x"
    ) in speed, speed
    assert "vLLM EAGLE-3 batch 16, num_steps 2 at 0.96x (#7/#6), a loss." in speed, speed

    # the page says the same (it calls the same functions)
    at = _page({"draft": source, "draft_group": U_GROUP, "draft_vol": U_DRAFT})
    assert _lines(at) == said["lines"]
    assert [i.value for i in at.info][0] == head  # a statement, not a "largest gap" subheader


# (runs as (id, steps, tok/s, AL, batch, temperature), the published settings, the run picked, words of its why)
OWN_CASES = [
    # walk U: no batch published: batch 1 over batch 16, whichever pair is faster
    (
        [
            (1, None, 150.0, None, 1, 0),
            (2, 3, 270.0, 2.5, 1, 0),
            (3, None, 1800.0, None, 16, 0),
            (4, 3, 1900, 2.4, 16, 0),
        ],
        ["steps=3,T=0,vllm"],
        2,
        "batch 1 (the source states no batch size)",
    ),
    # the published batch where it is stated
    (
        [(1, 3, 270.0, 2.5, 1, 0), (2, 3, 1692.0, 2.48, 8, 0)],
        ["steps=3,topk=1,draft=4,bs=8,vllm"],
        2,
        "at the published setting steps=3,topk=1,draft=4,bs=8,vllm",
    ),
    # no run drafts the published chain: the pair Live speed leads with (batch 1's 1.80x), not the fastest pair's
    # run, which loses at batch 16 (0.94x)
    (
        [
            (1, None, 150.0, None, 1, 0),
            (2, 2, 270.0, 2.2, 1, 0),
            (3, None, 1800.0, None, 16, 0),
            (4, 2, 1692, 2.1, 16, 0),
        ],
        ["steps=3,T=0,vllm"],
        2,
        "the speculative run of the pair Overview leads live speed with",
    ),
    # the published temperature (0) before the batch size: a sampled run at batch 1 is not the closest
    (
        [(1, 3, 270.0, 2.1, 1, 0.7), (2, 3, 1692.0, 2.48, 16, 0)],
        ["steps=3,T=0,vllm"],
        2,
        "batch 16 (the source states no batch size)",
    ),
    # walk BE: an imported `vllm bench serve` run records no temperature; a run stored at T=0 on the same chain and
    # engine comes first, though the imported pair is faster and neither is at batch 1
    (
        [
            (9, None, 400.0, None, 4, 0),
            (12, 3, 876.0, 2.98, 4, 0),
            (14, None, 900.0, None, 16, None),
            (15, 3, 1580.0, 2.80, 16, None),
        ],
        ["steps=3,topk=1,draft=4,T=0,vllm"],
        12,
        "at the published chain of steps=3,topk=1,draft=4,T=0,vllm, batch 4 (the source states no batch size)",
    ),
    # only the imported run at the chain: taken, and its temperature said as not recorded, not as the published 0
    (
        [(14, None, 900.0, None, 16, None), (15, 3, 1580.0, 2.80, 16, None)],
        ["steps=3,topk=1,draft=4,T=0,vllm"],
        15,
        "temperature not recorded (published: 0) and batch 16 (the source states no batch size)",
    ),
]


@pytest.mark.parametrize(("runs", "settings", "picked", "why"), OWN_CASES)
def test_your_acceptance_is_the_run_closest_to_the_published_setting(
    runs: list[tuple[int, int | None, float, float | None, int, float | None]],
    settings: list[str],
    picked: int,
    why: str,
) -> None:
    stored = []
    for id_, steps, tok_s, al, batch, temp in runs:
        run = stored_run(id_, steps, tok_s, al, engine="vllm", model=GPT_OSS, draft=U_DRAFT, concurrency=batch)
        if temp is not None:  # the bench page stores the temperature it asked for; an imported file states none
            run.params["temperature"] = temp
        stored.append(run)
    got = overview.own_acceptance(stored, settings, draft=U_DRAFT)
    assert got is not None and got.run.id == picked, got
    assert why in got.why and "no run at that setting exactly" not in got.why, got.why


# (batch-1 speculative tok/s, batch-16 speculative tok/s, the lead pair's run, whether it is "the pair to serve")
LEAD_CASES = [
    (156.0, 800.0, 4, False),  # both pay (walk Q): the fastest pair in tok/s leads, as before
    (180.0, 500.0, 2, True),  # batch 16 loses (0.92x): batch 1's pair leads
    (90.0, 500.0, 4, False),  # both lose: the fastest loses less (0.92x against 0.90x), so it stays
]


@pytest.mark.parametrize(("spec1", "spec16", "lead", "served"), LEAD_CASES)
def test_live_speed_leads_with_the_pair_to_serve(spec1: float, spec16: float, lead: int, served: bool) -> None:
    runs = [
        stored_run(1, None, 100.0, concurrency=1, draft=U_DRAFT),
        stored_run(2, 3, spec1, 2.6, draft=U_DRAFT, concurrency=1),
        stored_run(3, None, 544.0, concurrency=16, draft=U_DRAFT),
        stored_run(4, 3, spec16, 2.5, draft=U_DRAFT, concurrency=16),
    ]
    live = overview.live_facts(runs, U_DRAFT)
    assert live is not None and live.run_id == lead and live.served is served, live
    assert live.sentence.startswith("Speculation pays") or not served
    assert ("The pair to serve" in live.sentence) is served, live.sentence
    if spec16 / 544.0 < 0.98 and lead == 2:
        assert f"at {spec16 / 544:.2f}x (#4/#3), a loss" in live.sentence, live.sentence


# ---------------------------------------------------------------- walk V: B and C

V_DRAFT = "glm-air-eagle3"
V_GROUP = "walk-v"
LAB_Y = "lab-y/glm-air-eagle3-v0"
GLM_DRAFT_CONFIG = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 10944,
    "num_hidden_layers": 1,
    "num_attention_heads": 96,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "vocab_size": 151552,
    "draft_vocab_size": 32000,
    "max_position_embeddings": 131072,
    "rope_theta": 1000000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "rms_norm_eps": 1e-05,
}


def _walk_v(tmp_path: Path, *, runs: bool) -> str:
    source = _folder(tmp_path, V_DRAFT, GLM_DRAFT_CONFIG)
    if runs:
        _store(
            V_GROUP,
            GLM,
            "sglang",
            [(None, 90.0, None, 1, V_DRAFT), (3, 150.0, 2.40, 1, V_DRAFT), (3, 160.0, 2.60, 1, LAB_Y)],
        )
    bench_store().save_data_volume(draft=V_DRAFT, samples=180_000, tokens=90_000_000, source="audit")
    return source


def test_walk_v_names_no_largest_gap_against_a_draft_for_another_target(tmp_path: Path, capsys: Any) -> None:
    source = _walk_v(tmp_path, runs=True)
    proc = cli_in_process(capsys, "overview", source, "--group", V_GROUP, "--json")
    assert proc.returncode == 0, proc.stderr
    said = json.loads(proc.stdout)
    assert said["reference"]["hub_id"] == KIMI and said["target"]["model"] == GLM
    head = said["headline"]
    # B: said in the headline, and no "largest gap" against it
    assert head.startswith(
        f"No published draft for {GLM}; the nearest reference is {KIMI}, a draft for moonshotai/Kimi-K2-Instruct, so "
        "gaps are not like for like."
    ), head
    assert "largest gap" not in head.lower() and said["gap"] is None and said["headline_kind"] == "statement", head
    assert "7.8x less training data (180K samples against 1.4M)" in head, head  # a difference, said as one

    # C: the lab's own draft is named by its run, not "measured side by side"
    lines = said["lines"]
    assert (
        f"- Your other draft {LAB_Y}, measured in run #3 at the setting of your run #2 (group {V_GROUP}, SGLang, "
        "num_steps 3, batch 1): 2.60 accept, 160.0 tok/s against yours 2.40, 150.0 tok/s."
    ) in lines, lines
    assert not any("Measured side by side" in line for line in lines), lines
    notes = [n["text"] for n in said["notes"]]
    assert f"Run #3 of {LAB_Y} is not counted as yours: it is compared with yours below, run by run." in notes, notes

    at = _page({"draft": source, "draft_group": V_GROUP, "draft_vol": V_DRAFT})
    assert _lines(at) == lines
    assert [i.value for i in at.info][0] == head
    assert not [s.value for s in at.subheader if "largest gap" in s.value.lower()]


def test_walk_v_with_no_target_compares_no_sizes_and_names_no_goal(tmp_path: Path, capsys: Any) -> None:
    source = _walk_v(tmp_path, runs=False)
    proc = cli_in_process(capsys, "overview", source, "--json")
    assert proc.returncode == 0, proc.stderr
    said = json.loads(proc.stdout)
    assert said["reference"]["hub_id"] == KIMI and said["target"]["model"] is None
    head = said["headline"]
    assert head.startswith(
        f"Not like for like: your draft's target is not known and {KIMI} is a draft of another architecture (hidden "
        "size 7,168 and vocabulary 163,840, against your 4,096 and 151,552), so no gap is named against it."
    ), head
    assert "largest gap" not in head.lower() and said["gap"] is None, head
    # sizes said not compared, and not compared in the next bullet either
    lines = said["lines"]
    assert any("so no size gap is named" in line for line in lines), lines
    assert not any(line.startswith("- Why they differ") for line in lines), lines
    assert not any("fewer parameters" in line for line in lines), lines
    # the plan's samples reach another target's acceptance: said so, not as a goal
    plan = said["plan"]
    assert plan["lead"] and "samples" in plan["lead"].lower(), plan
    assert plan["caution"] and plan["caution"].endswith("not a goal for your draft."), plan
    assert said["volume_gap"]["text"].startswith(f"Not like for like: your draft's target is not known and {KIMI}")
    assert "The volume below is that draft's, not a goal for yours." in said["volume_gap"]["text"]

    at = _page({"draft": source, "draft_vol": V_DRAFT})
    assert _lines(at) == lines
    captions = [c.value for c in at.caption]
    assert plan["caution"] in captions, captions


# (your target, the reference, its target, size note, the sentence's start; "" where it is like for like)
UNLIKE_CASES = [
    (GLM, KIMI, "moonshotai/Kimi-K2-Instruct", "", f"No published draft for {GLM}; the nearest reference is {KIMI}"),
    # a draft of the same family (the nearest of it) is the README's rule, said with it: not flagged here
    ("Qwen/Qwen3-32B", "x/q3-30b", "Qwen/Qwen3-30B-A3B-Instruct-2507", "", ""),
    # a Kimi target against the Kimi-K2 draft: the same family
    ("moonshotai/Kimi-K2.5", KIMI, "moonshotai/Kimi-K2-Instruct", "", ""),
    # another family's draft picked while one for your target exists
    (GPT_OSS, KIMI, "moonshotai/Kimi-K2-Instruct", "", f"{KIMI} is a draft for moonshotai/Kimi-K2-Instruct, not"),
    # no target known: only another architecture is flagged
    (None, KIMI, "moonshotai/Kimi-K2-Instruct", "", ""),
    (None, KIMI, "moonshotai/Kimi-K2-Instruct", "your draft's target is not known and X", "Not like for like: your"),
]


UNLIKE_CASES += [
    # a target of no known family: flagged unless your draft has the reference's very shape (the journey's acme/target
    # with a draft of the Kimi-K2 draft's hidden size and vocabulary, a likely private Kimi fine-tune)
    ("acme/target", KIMI, "moonshotai/Kimi-K2-Instruct", "", "No published draft for acme/target; the nearest"),
    ("acme/target", KIMI, "moonshotai/Kimi-K2-Instruct", "same shape", ""),
    # a known other family stays flagged whatever the shape
    (GLM, KIMI, "moonshotai/Kimi-K2-Instruct", "same shape", f"No published draft for {GLM}; the nearest"),
]


@pytest.mark.parametrize(("target", "reference", "ref_target", "size_note", "start"), UNLIKE_CASES)
def test_when_a_reference_is_no_like_for_like_yardstick(
    target: str | None, reference: str, ref_target: str, size_note: str, start: str
) -> None:
    same = size_note == "same shape"
    got = overview.unlike_reference(target, reference, ref_target, "" if same else size_note, same_shape=same)
    assert got.startswith(start) if start else got == "", got
    assert not start or got.endswith(("so gaps are not like for like", "so no gap is named against it")), got


def test_walk_v_plan_with_no_target_says_its_target_al_is_another_models(tmp_path: Path, capsys: Any) -> None:
    """The plan's own text aimed a GLM draft naming no target at the Kimi-K2 draft's 3.271 as "the published draft
    with the most training data", with no word that it is another model's figure."""
    source = _walk_v(tmp_path, runs=False)
    proc = cli_in_process(capsys, "plan", source)
    assert proc.returncode == 0, proc.stderr
    first = proc.stdout.splitlines()[0]
    assert f"from {KIMI} at (3,1,4) on gsm8k" in first, first
    assert "a draft for moonshotai/Kimi-K2-Instruct; your draft names no target" in first, first
    assert "not a goal for yours" in first, first
