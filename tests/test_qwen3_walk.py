"""A new user's walk: a Qwen/Qwen3-8B EAGLE-3 draft from a local folder (its config names no target), vLLM-only runs
served as Qwen/Qwen3-8B, a SpecForge training log, 250K samples typed in.

What it found: a gap verdict that pooled every setting ("predicts 3.86 (95% band 3.04..4.68)" at steps=3, where
acceptance is at most 4); a vLLM run at 5 steps set against a fit at 3 (its key "steps=3,bs=4,vllm" never matched
"steps=3,topk=1,draft=4" as a string prefix); tau_sim_last empty for runs at K=4 and K=5 of a 7-position log cut to
3; Overview comparing with the Kimi-K2 draft while Acceptance vs data used the Qwen3-8B one; a tied lm_head
described as a D x H head of its own."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from comparelib.analysis import curves, overview, scaling, verdicts
from comparelib.live.store import RunRecord
from comparelib.models import comparison, registry
from tests.fixtures import page_app, published_fit, stored_run

QWEN = "Qwen/Qwen3-8B"
TENGYUN = "Tengyunw/qwen3_8b_eagle3"  # 600K samples, no config in the registry, no GSM8K result
REDHAT = "RedHatAI/Qwen3-8B-speculator.eagle3"  # no config or volume; publishes an acceptance length (MT-Bench)
KIMI_REF = registry.KIMI_REFERENCE
KEY = "steps=3,topk=1,draft=4,bs=8,sglang"  # GSM8K's best-fitted setting: what Acceptance vs data opens on


def _run(
    id_: int,
    steps: int | None,
    al: float | None = None,
    *,
    engine: str = "vllm",
    algo: str | None = "EAGLE3",
    topk: int | None = None,
    ndt: int | None = None,
    model: str = QWEN,
) -> RunRecord:
    """A stored run as a vLLM benchmark keeps it: num_steps as stated on the form, topk/ndt unstated."""
    return stored_run(
        id_,
        steps,
        100.0 + 10 * (steps or 0),
        al,
        engine=engine,
        algo=algo,
        model=model,
        group="qwen3-8b-sf250k",
        topk=topk,
        ndt=ndt,
        al_mean=None,
        requests=8,
        prompt_set=None,
    )


# ---------------------------------------------------------------- 1. a gap verdict fits at one setting


def _synthetic_points() -> pd.DataFrame:
    """Published drafts at two settings of one benchmark (3 steps: AL ~2-3; 7 steps: AL ~4.5-6.5), and a
    reference that reports nothing there: pooled, the two settings made one line that left 1..4 at 3 steps."""
    rows = []
    for key, chain, base in ((KEY, "(3,1,4)", 2.0), ("steps=7,topk=1,draft=8,bs=8,sglang", "(7,1,8)", 4.5)):
        for i, vol in enumerate((1e5, 3e5, 1e6, 3e6)):
            rows.append(
                scaling.own_point(
                    draft=f"pub/{chain}-{i}",
                    benchmark="gsm8k",
                    accept_length=base + 0.6 * i,
                    setting_key=key,
                    chain=chain,
                    samples=vol,
                    target_model="acme/target",
                    source="test",
                )
            )
    rows.append(  # the reference: a volume, and a result on another benchmark only
        scaling.own_point(
            draft="ref/qwen",
            benchmark="mtbench",
            accept_length=2.3,
            setting_key="steps=3,T=0,vllm",
            samples=6e5,
            target_model=QWEN,
            source="test",
        )
    )
    pts = pd.DataFrame(rows)
    pts["kind"] = "published"
    return scaling.scaling_points(pts)


GAP_CASES = [
    # (reference, points, fallback setting, the setting the fit must be at, phrase)
    (TENGYUN, None, None, KEY, "(the best-fitted setting)"),
    (TENGYUN, None, KEY, KEY, "the setting picked on this page"),
    (TENGYUN, None, "steps=7,topk=1,draft=8,bs=8,sglang", "steps=7,topk=1,draft=8,bs=8,sglang", "picked on this page"),
    ("ref/qwen", "synthetic", None, KEY, "ref/qwen reports no GSM8K acceptance"),
    ("ref/qwen", "synthetic", "steps=7,topk=1,draft=8,bs=8,sglang", "steps=7,topk=1,draft=8,bs=8,sglang", "page"),
    (KIMI_REF, None, "steps=7,topk=1,draft=8,bs=8,sglang", KEY, "It reports an acceptance length of 3.27"),
    # in the registry with a config and a volume but no results: compared on volume, fitted at one setting
    # its "~1M (dataset name)" is said as that, not as published (walk AT)
    ("zhuyksir/EAGLE3-gpt-oss-20b-bf16", None, None, KEY, "1M (read from its dataset's name, not stated) of the"),
]


@pytest.mark.parametrize(("reference", "points", "fallback", "setting", "phrase"), GAP_CASES)
def test_a_gap_verdict_never_pools_settings(
    reference: str, points: str | None, fallback: str | None, setting: str, phrase: str
) -> None:
    pts = _synthetic_points() if points == "synthetic" else scaling.published_points()
    v = verdicts.gap_verdict(250_000, reference, points=pts, fallback_setting=fallback)
    assert v.setting_key == setting and v.fit is not None and v.fit.setting_key == setting, v.sentence
    assert phrase in v.sentence, v.sentence
    assert "at this setting" not in v.sentence and f"at {setting}" in v.sentence, v.sentence
    # every point of the fit is at that setting: not the 14 drafts of every setting
    at_setting = scaling.select(pts, benchmark="gsm8k", setting_key=setting)
    assert set(v.fit.drafts) <= set(at_setting.points["draft"]), v.fit.drafts
    steps = scaling.steps_of(setting)
    assert v.predicted is not None and steps is not None
    assert 1.0 <= v.predicted[1] <= v.predicted[0] <= v.predicted[2] <= steps + 1, v.predicted


def test_the_gap_verdict_predicts_what_the_pages_fit_predicts() -> None:
    """The walk: "Fit ... predicts 1.69" and, in the same fold-out, "pooled ... predicts 3.86 (95% band
    3.04..4.68)" at steps=3. The verdict now leans on the page's fit, so the two say one number."""
    pts = scaling.published_points()
    sel = scaling.select(pts, benchmark="gsm8k", setting_key=KEY)
    page_fit = scaling.fit_published(sel)
    v = verdicts.gap_verdict(250_000, TENGYUN, points=pts, fallback_setting=KEY)
    assert v.predicted is not None
    assert v.predicted == pytest.approx(scaling.predict_bounded(page_fit, 250_000)[:3])
    assert "3.86" not in v.sentence and "4.68" not in v.sentence, v.sentence


def test_a_looser_chain_fit_is_clipped_to_its_chain() -> None:
    """The labelled chain fit's key is "chain (3,1,4)": its bounds were 1..inf, so a line above 4 printed as is."""
    assert scaling.accept_bounds("chain (3,1,4)") == (1.0, 4.0)
    assert scaling.accept_bounds("chain (7,?,?)") == (1.0, 8.0)
    assert scaling.accept_bounds("steps=3,topk=1,draft=4,bs=8,sglang") == (1.0, 4.0)


# ---------------------------------------------------------------- 2. a vLLM run is a chain; chains compared by field

RUN_SETTINGS = [
    # (engine, algorithm, num_steps, topk, num_draft_tokens, key, chain)
    ("vllm", "EAGLE3", 3, None, None, "steps=3,topk=1,draft=4,bs=4,vllm", "(3,1,4)"),
    ("vllm", "unknown", 5, None, None, "steps=5,topk=1,draft=6,bs=4,vllm", "(5,1,6)"),
    ("vllm", "eagle", 2, 1, None, "steps=2,topk=1,draft=3,bs=4,vllm", "(2,1,3)"),
    ("vllm", None, 4, None, None, "steps=4,topk=1,draft=5,bs=4,vllm", "(4,1,5)"),
    ("vllm", "ngram", 3, None, None, "steps=3,bs=4,vllm", "(3,?,?)"),  # not the EAGLE proposer: as stated
    ("vllm", "EAGLE3", None, None, None, "bs=4,vllm", None),  # num_steps unknown: nothing to infer
    ("sglang", "EAGLE3", 3, None, None, "steps=3,bs=4,sglang", "(3,?,?)"),  # SGLang reports its own
    ("sglang", "EAGLE3", 3, None, 4, "steps=3,topk=1,draft=4,bs=4,sglang", "(3,1,4)"),
    ("sglang", "EAGLE3", 3, 4, 8, "steps=3,topk=4,draft=8,bs=4,tree,sglang", "(3,4,8)"),
]


@pytest.mark.parametrize(("engine", "algo", "steps", "topk", "ndt", "key", "chain"), RUN_SETTINGS)
def test_a_vllm_eagle_run_is_keyed_as_the_chain_it_drafts(
    engine: str, algo: str | None, steps: int | None, topk: int | None, ndt: int | None, key: str, chain: str | None
) -> None:
    run = _run(1, steps or 3, 2.5, engine=engine, algo=algo, topk=topk, ndt=ndt)
    if steps is None:  # a speculative run whose num_steps was not stated
        run = dataclasses.replace(run, num_steps=None)
    assert registry.run_setting(run) == (key, chain)


SAME_CHAIN = [
    # (own key, fit key, same chain)
    ("steps=3,bs=4,vllm", KEY, True),  # a prefix "steps=3,bs=4,vllm" never matched "steps=3,topk=1,draft=4"
    ("steps=3,topk=1,draft=4,bs=4,vllm", KEY, True),
    ("steps=5,bs=4,vllm", KEY, False),
    ("steps=5,topk=1,draft=6,bs=4,vllm", KEY, False),
    ("steps=3,topk=4,draft=8,bs=4,tree,sglang", KEY, False),
    ("steps=3,topk=1,draft=4", "steps=3,T=0,vllm", True),
    ("bs=1,T=0,dynamic tree (EAGLE-2),eagle", KEY, False),  # no num_steps: like nothing
    ("steps=30,topk=1,draft=31", KEY, False),
]


@pytest.mark.parametrize(("own", "fit_key", "same"), SAME_CHAIN)
def test_chains_are_compared_by_their_fields(own: str, fit_key: str, same: bool) -> None:
    assert verdicts.same_chain(own, fit_key) is same


def _fit_at(setting_key: str) -> scaling.Fit:
    return published_fit(setting_key)


# (keys of the user's runs #7, #8, #9 at 3, 4, 5 steps, the run set against a fit at 3 steps)
MOST_LIKE = [
    (("steps=3,bs=4,vllm", "steps=4,bs=4,vllm", "steps=5,bs=4,vllm"), "run #7"),  # keys as stored before
    (tuple(f"steps={k},topk=1,draft={k + 1},bs=4,vllm" for k in (3, 4, 5)), "run #7"),
    (("steps=4,bs=4,vllm", "steps=5,bs=4,vllm", "steps=6,bs=4,vllm"), "run #9"),  # none at 3: the best, said unlike
]


@pytest.mark.parametrize(("keys", "named"), MOST_LIKE)
def test_the_measurement_set_against_a_fit_is_at_its_num_steps(keys: tuple[str, ...], named: str) -> None:
    """The walk's "You measured 2.91 (run #9, at steps=5,bs=4,vllm)" was set against a fit at steps=3."""
    own = pd.DataFrame(
        [
            scaling.own_point(
                draft="acme/qwen3-8b",
                benchmark="gsm8k",  # the fit's: a run on other prompts never reaches its target (test_plan_walk_w)
                accept_length=al,
                setting_key=key,
                samples=250_000,
                target_model=QWEN,
                source=f"store run {rid} (measured)",
            )
            for rid, key, al in zip((7, 8, 9), keys, (2.35, 2.7, 2.91), strict=True)
        ]
    )
    found = verdicts.measured_against_fit(_fit_at(KEY), 250_000, own)
    assert found is not None
    _, text = found
    assert f"({named}, at {keys[0 if named == 'run #7' else 2]})" in text, text
    reached = verdicts.already_reached(_fit_at(KEY), 2.3, own)
    assert (reached is not None) is (named == "run #7"), reached


def test_vllm_runs_line_up_with_the_fit_through_their_own_points() -> None:
    runs = [_run(1, None), _run(7, 3, 2.35), _run(8, 4, 2.7), _run(9, 5, 2.91)]
    own = scaling.own_points_from_runs(runs, draft="acme/qwen3-8b", samples=250_000)
    assert list(own["setting_key"]) == [f"steps={k},topk=1,draft={k + 1},bs=4,vllm" for k in (3, 4, 5)]
    assert list(own["chain"]) == ["(3,1,4)", "(4,1,5)", "(5,1,6)"]
    found = verdicts.measured_against_fit(_fit_at(KEY), 250_000, own)
    assert found is not None and "(run #7, at steps=3,topk=1,draft=4,bs=4,vllm)" in found[1], found


# ---------------------------------------------------------------- 3. tau_sim_last at the run's own num_steps

ACC = (0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2)  # seven positions, as SpecForge logs them


def _acc_at(step: int) -> tuple[float, ...]:
    return tuple(round(min(1.0, a * (0.9 + 0.01 * step)), 4) for a in ACC)


def _log(path: Path) -> Path:
    """A SpecForge-style CSV: ten steps, seven positions each."""
    header = "step,samples_seen," + ",".join(f"acc_{i}" for i in range(7))
    lines = [header] + [f"{s},{s * 32}," + ",".join(f"{a:.4f}" for a in _acc_at(s)) for s in range(1, 11)]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(
    ("page_steps", "run_steps", "positions"),
    [
        (3, 3, 3),
        (3, 4, 4),  # was empty: the log cut to the page's 3 positions
        (3, 5, 5),
        (3, 7, 7),
        (3, 8, None),  # more than the log has: none
        (None, 5, 5),
        (7, 2, 2),
    ],
)
def test_tau_sim_last_is_at_the_runs_own_num_steps(
    tmp_path: Path, page_steps: int | None, run_steps: int, positions: int | None
) -> None:
    lc = curves.curve([str(_log(tmp_path / "specforge.csv"))], steps=page_steps)
    frame = curves.live_frame([_run(1, None), _run(2, run_steps, 2.6)], lc)
    assert len(frame) == 1
    got = frame["tau_sim_last"].iloc[0]
    if positions is None:
        assert got is None or pd.isna(got)
    else:  # the log's last line, over the run's own num_steps
        assert got == pytest.approx(curves.tau_sim(_acc_at(10), positions))
    if page_steps:  # the curve's own tau_sim still uses the page's positions
        last = lc.points[-1]
        assert len(last.acc) == page_steps and last.tau_sim == pytest.approx(curves.tau_sim(_acc_at(10), page_steps))


# ---------------------------------------------------------------- 4. one reference on both pages


def _scaling_choices() -> list[str]:
    return sorted(scaling.published_points()["draft"].dropna().unique())


REFERENCE_CASES = [
    # (own repo, target, reference both pages preselect)
    # Overview had the Kimi-K2 draft: "no other ... has a config here"; a Qwen3-8B draft publishing an acceptance
    # length comes before Tengyunw's, which states a volume and no acceptance
    ("acme/qwen3-8b", QWEN, REDHAT),
    ("acme/x", "Qwen/Qwen3-30B-A3B", "Tengyunw/qwen3_30b_moe_eagle3"),
    ("acme/x", "meta-llama/Llama-3.1-8B-Instruct", "lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge"),
    ("acme/x", "moonshotai/Kimi-K2.5", "lightseekorg/kimi-k2.5-eagle3"),  # its own target's (walk AE)
    ("acme/x", "moonshotai/Kimi-K2-Thinking", KIMI_REF),  # a Kimi target with no published draft of its own
    ("acme/x", None, KIMI_REF),
    # RedHatAI's states no config or volume but publishes an acceptance length: before zhuyksir's (a volume, no
    # acceptance), on both pages
    ("acme/x", "openai/gpt-oss-20b", "RedHatAI/gpt-oss-20b-speculator.eagle3"),
    ("zhuyksir/EAGLE3-gpt-oss-20b-bf16", "openai/gpt-oss-20b", "RedHatAI/gpt-oss-20b-speculator.eagle3"),
    ("acme/x", "acme/private-70b", KIMI_REF),
]


@pytest.mark.parametrize(("own_repo", "target", "expected"), REFERENCE_CASES)
def test_both_pages_preselect_the_same_reference(own_repo: str, target: str | None, expected: str) -> None:
    on_overview = overview.default_reference(overview.reference_choices(), own_repo, target)
    on_scaling = overview.default_reference(_scaling_choices(), own_repo, target)
    assert on_overview == on_scaling and on_overview.hub_id == expected, (on_overview, on_scaling)


def test_a_reference_without_a_config_says_its_size_is_not_known() -> None:
    pick = overview.default_reference(overview.reference_choices(), "acme/qwen3-8b", QWEN)
    assert "size is not known" in pick.why and "training data and acceptance compare" in pick.why
    own = comparison.load_entry(f"registry:{KIMI_REF}", with_header=False)
    ans = overview.answer(own, registry.get_draft(TENGYUN), [], 250_000.0, own_target=QWEN)
    assert ans.reference == TENGYUN and ans.size is None and ans.size_ratio is None
    assert ans.ref_volume == 600_000 and ans.data_ratio == pytest.approx(2.4)
    assert ans.gap == "training data" and "250K samples against 600K (2.4x fewer)" in ans.gap_sentence
    assert "1.4M" not in ans.gap_sentence and "the size of" not in ans.gap_sentence


def _qwen3_8b_config() -> dict[str, Any]:
    """A raw EAGLE-3 config for Qwen3-8B (hidden 4096, vocabulary 151,936): it names no target."""
    cfg = dict(registry.get_draft("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B").config or {})
    cfg.update(vocab_size=151_936, draft_vocab_size=32_000, intermediate_size=12_288, max_position_embeddings=40_960)
    return cfg


def _qwen_group() -> None:
    from comparelib import settings
    from comparelib.live.store import Store

    store = Store(settings.database_url())
    for steps, tok_s, al in ((None, 100.0, None), (3, 160.0, 2.35), (4, 165.0, 2.7), (5, 158.0, 2.91)):
        rid = store.start_run(
            endpoint="http://127.0.0.1:8000",
            server_config={
                "engine": "vllm",
                "model": QWEN,
                "speculative_algorithm": "unknown" if steps else None,
                "num_steps": steps,
            },
            group="qwen3-8b-sf250k",
            params={"concurrency": 4, "max_tokens": 64},
        )
        store.finish_run(rid, {"requests": 8, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": al})


def _walk(page: str, tmp_path: Path) -> AppTest:
    draft_dir = tmp_path / "qwen3-8b-eagle3"
    draft_dir.mkdir()
    (draft_dir / "config.json").write_text(json.dumps(_qwen3_8b_config()))
    _qwen_group()
    at = page_app(f"../pages/{page}.py", timeout=90)
    at.query_params["draft"] = str(draft_dir)
    at.query_params["draft_group"] = "qwen3-8b-sf250k"
    at.query_params["draft_samples"] = "250000"
    at.run()
    assert not at.exception, at.exception
    return at


def test_overview_compares_a_qwen3_draft_with_the_qwen3_reference(tmp_path: Path) -> None:
    at = _walk("overview", tmp_path)
    # the default is the Qwen3-8B draft publishing an acceptance length; Tengyunw's, picked, gives the volume gap
    assert at.selectbox(key="ov_ref").value == REDHAT
    at.selectbox(key="ov_ref").set_value(TENGYUN).run()
    assert not at.exception, at.exception
    md = "\n".join(m.value for m in at.markdown)
    head = at.subheader[0].value if at.subheader else ""
    assert head.startswith("The largest gap is training data: 250K samples against 600K (2.4x fewer)."), head
    assert "1.4M" not in head and "% the size of" not in md + head and KIMI_REF not in md
    assert f"{TENGYUN}'s is not known: the registry has no config for it" in md, md
    # the volume gap's fit is at one setting, named, and inside 1..steps+1
    (fold,) = [e for e in at.expander if e.label.startswith("What the published data predicts")]
    said = " ".join(m.value for m in fold.markdown)
    assert f"so the fit is at {KEY}" in said and "at this setting" not in said, said


def test_acceptance_vs_data_agrees_with_overview_and_fits_at_its_setting(tmp_path: Path) -> None:
    at = _walk("scaling", tmp_path)
    assert at.selectbox(key="sc_ref").value == REDHAT  # as on Overview
    assert at.selectbox(key="sc_setting").value == KEY
    texts = "\n".join([m.value for m in at.markdown] + [i.value for i in at.info] + [w.value for w in at.warning])
    assert "pooled across all 14" not in texts
    assert f"so the fit is at {KEY} (the setting picked on this page)" in texts, texts
    # the measured run set against the fit at 3 steps is the run at 3 steps
    assert "(run #" in texts and "at steps=3,topk=1,draft=4,bs=4,vllm)" in texts, texts
    assert "at steps=5" not in texts


# ---------------------------------------------------------------- 5. a tied lm_head is said to be tied


@pytest.mark.parametrize(
    ("own_tied", "ref_tied", "has", "lacks"),
    [
        (True, False, "no lm_head of its own in our draft: it is tied to the embedding", "32,000 x 7,168 against"),
        (False, True, "no lm_head of its own in the reference: it is tied to the embedding", "x 7,168 against"),
        (False, False, "32,000 x 7,168", "tied"),  # the same two heads: no lm_head sentence, nothing tied
        (True, True, "Our draft's lm_head is tied to the embedding", "x 7,168 over"),
    ],
)
def test_a_tied_lm_head_is_described_as_tied(
    tmp_path: Path, own_tied: bool, ref_tied: bool, has: str, lacks: str
) -> None:
    cfg = dict(registry.get_draft(KIMI_REF).config or {})

    def entry(name: str, tied: bool) -> comparison.Entry:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps({**cfg, "tie_word_embeddings": tied}))
        return comparison.load_entry(str(folder), with_header=False)

    own, ref = entry("own", own_tied), entry("ref", ref_tied)
    size = overview.size_facts(own, ref, "our draft", "the reference")
    if own_tied == ref_tied and not own_tied:
        has = "same size outside the embedding"
    assert has in size.sentence and lacks not in size.sentence, size.sentence
