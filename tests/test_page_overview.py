"""The landing page: the answer first for the built-in example, numbers linked to their pages."""

from __future__ import annotations

import math

import pytest
from streamlit.testing.v1 import AppTest

from tests.fixtures import page_app
from tests.test_losing_batch import BASE16, SPEC16, walk_s

REF = "AQ-MedAI/Kimi-K2-Instruct-eagle3"


def _run() -> AppTest:
    at = page_app("../pages/overview.py", timeout=60).run()
    assert not at.exception, at.exception
    return at


def _md(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_answer_first_for_the_example() -> None:
    at = _run()
    assert not at.error
    headline = at.subheader[0].value
    assert headline.startswith("The largest gap is training data: 37K samples against 1.4M (38x fewer).")
    md = _md(at)
    # size outside and with the embedding, linked to the compare page
    assert "[2,135,977,984](/compare?" in md and "[1,190,948,864](/compare?" in md
    assert "[3,310,383,104](/compare?" in md and "[2,365,353,984](/compare?" in md
    assert "all of it is the lm_head: 163,840 x 7,168 over the full vocabulary against 32,000 x 7,168" in md
    assert "1,174,405,120-parameter embedding (163,840 x 7,168), frozen and shared with the target" in md
    # data volume ratio, acceptance at (not) the same setting, live speed
    assert "[37K samples](/audit)" in md and "[38x](/scaling) less data." in md
    # the published range is given per setting (3.17-5.38 pooled 3- and 7-step results without saying so)
    assert "(measured, run #" in md and "**Settings differ:**" in md
    assert "[3.27-3.47](/scaling) at steps=3,topk=1,draft=4,bs=8,sglang; [3.17-3.49](/scaling) (setting not" in md
    assert "[94.0 tok/s](/bench)" in md and "[88.8 tok/s](/bench)" in md and "[1.06x](/bench) (+5.9%)" in md
    assert "**Live speed** (measured): run #" in md
    assert "(example data)" in md
    # the volume gap in the published data, and links to every page
    assert "38x fewer" in md and "[chart](/scaling)" in md
    for page in ("compare", "audit", "bench", "scaling"):
        assert f"(/{page})" in md


def _use(at: AppTest, source: str, **widgets: object) -> AppTest:
    """Choose the draft in the sidebar, as a user does, and press "Use this draft"."""
    at.sidebar.text_input(key="draft_source").set_value(source)
    for key, value in widgets.items():
        widget = (
            at.sidebar.selectbox(key=key)
            if key in ("draft_volume", "draft_group")
            else at.sidebar.number_input(key=key)
        )
        widget.set_value(value)
    at.sidebar.button[0].click().run()
    assert not at.exception, at.exception
    return at


def test_selectors_change_the_answer() -> None:
    at = _run()
    at.selectbox(key="ov_ref").set_value("lmsys/SGLang-EAGLE3-Llama-3.3-70B-Instruct-SpecForge").run()
    assert not at.exception
    md = _md(at)
    assert "lmsys/SGLang-EAGLE3-Llama-3.3-70B-Instruct-SpecForge" in md
    _use(at, "example", draft_volume="(none)", draft_samples=1_400_000)
    assert "[1.4M samples](/audit?" in _md(at) and "(typed in)" in _md(at)
    # the choice is carried in the page's link
    assert at.query_params["draft"] == "example:own-kimi-k2.5-draft"
    assert at.query_params["draft_samples"] == "1400000"


def test_our_draft_from_the_registry_and_a_bad_folder() -> None:
    at = _run()
    _use(at, f"registry:{REF}")
    # the Kimi-K2 draft as yours is set against another published draft, not itself (walk AJ3: it read "the same
    # size outside the embedding", its own count against its own)
    assert at.session_state["ov_ref"] != REF and "same size outside the embedding" not in _md(at)
    # another draft does not inherit the example's audit and runs
    assert "draft_vol" not in at.query_params and "draft_group" not in at.query_params
    # a published draft as yours carries its published volume (walk AJ3), not the example's audit
    published = f"(published: the registry's figure for {REF}; a number typed in or an audit attached replaces it)"
    assert "**Training volume:** ours [1.4M samples](/scaling?" in _md(at) and published in _md(at), _md(at)
    assert "37K" not in _md(at)
    _use(at, "/no/such/folder")
    assert any("no config.json" in e.value or "/no/such/folder" in e.value for e in at.error), [
        e.value for e in at.error
    ]


def _own_runs(group: str, model: str = "acme/target") -> None:
    """Three benchmark runs of the user's own server, stored as the bench page stores them."""
    from comparelib import settings
    from comparelib.live.store import Store

    store = Store(settings.database_url())
    for spec, tok_s, acc in ((None, 40.0, None), ("EAGLE3", 61.2, 2.5), ("EAGLE3", 58.0, 2.3)):
        cfg = {
            "engine": "sglang",
            "model": model,
            "speculative_algorithm": spec,
            "num_steps": 3 if spec else None,
            "num_draft_tokens": 4 if spec else None,
        }
        rid = store.start_run(
            endpoint="http://127.0.0.1:30000",
            server_config=cfg,
            group=group,
            params={"concurrency": 4, "max_tokens": 64},
        )
        store.finish_run(rid, {"requests": 8, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": acc})
    store.save_data_volume(draft="acme/kimi-draft", samples=12_345, tokens=9_000_000, source="audit")


def test_a_hub_draft_with_its_own_audit_and_runs_never_mixes_in_the_example(hub) -> None:
    from tests.fixtures import aq_config, aq_tensors

    hub.add_model("acme/kimi-draft", aq_config(), tensors=aq_tensors())
    _own_runs("acme-sweep")
    at = _run()
    _use(at, f"{hub.url}/acme/kimi-draft", draft_volume="acme/kimi-draft", draft_group="acme-sweep")
    md = _md(at) + "\n" + at.subheader[0].value
    assert not at.error, [e.value for e in at.error]
    assert "2,135,977,984" not in md  # the built-in example's size
    assert "37K" not in md and "(example data)" not in md
    assert "acme/kimi-draft@" in md
    assert "[1,190,948,864](/compare?" in md  # its own size outside the embedding
    assert "[12K samples](/audit?" in md  # its own audit
    assert "[2.50](/bench" in md and "(measured, run #" in md  # its own acceptance, named as measured
    assert "[61.2 tok/s](/bench" in md and "[40.0 tok/s](/bench" in md and "+53.0%" in md
    assert at.query_params["draft_group"] == "acme-sweep"


def test_the_plan_lead_never_prints_an_uncosted_total_as_zero(hub) -> None:
    """A Hub draft whose target is unknown: generation is not costed, so there is no GPU-hour total. The lead
    said "GPU-hours on H200: 0 (0..unbounded)"; it gives the training hours and says what is not costed."""
    from tests.fixtures import aq_config, aq_tensors

    hub.add_model("acme/kimi-draft", aq_config(), tensors=aq_tensors())
    _own_runs("acme-sweep")  # stores the draft's audited volume too; its runs are not attached here
    at = _run()
    _use(at, f"{hub.url}/acme/kimi-draft", draft_volume="acme/kimi-draft")
    assert not at.exception and not at.error, [e.value for e in at.error]
    lead = next(m.value for m in at.markdown if m.value.startswith("**Ranked first:"))
    assert "GPU-hours on H200: training " in lead and "hidden-state generation not costed" in lead, lead
    assert ": 0 (0.." not in lead and "(0..unbounded)" not in lead, lead
    assert "tok/s cannot be predicted. Note:" in lead, lead  # two clauses, two sentences
    hours = float(lead.split("GPU-hours on H200: training ")[1].split(" ")[0].replace(",", ""))
    assert hours > 0


def test_a_num_steps_pick_from_one_measured_setting_is_called_a_prediction(hub) -> None:
    """Item 7: runs at one num_steps only fix no per-step cost, so the plan names no best num_steps (it would be
    the assumption's, not the server's); it says what is missing, in whole sentences."""
    from tests.fixtures import aq_config, aq_tensors

    hub.add_model("acme/kimi-draft", aq_config(), tensors=aq_tensors())
    _own_runs("acme-sweep")
    at = _run()
    _use(at, f"{hub.url}/acme/kimi-draft", draft_volume="acme/kimi-draft", draft_group="acme-sweep")
    assert not at.exception and not at.error, [e.value for e in at.error]
    lead = next(m.value for m in at.markdown if m.value.startswith("**Ranked first:"))
    assert "Predicted best num_steps" not in lead and "batch 1:" not in lead, lead
    at.session_state["ov_plan"] = True  # the user opens the plan: the num_steps row says why it has no pick
    at.run()
    table = next(df.value for df in at.dataframe if "kind" in df.value.columns)
    row = table[table["kind"] == "num-steps"].iloc[0]
    note = str(row["note"])
    assert note.startswith(
        "No best num_steps predicted yet (served: 3 at batch 4, run #2: Overview's pair); still missing: only one "
        "num_steps"
    ), note
    assert note.endswith("rather than assumed."), note


def test_missing_figures_say_they_are_missing(hub) -> None:
    from tests.fixtures import aq_config, aq_tensors

    hub.add_model("acme/kimi-draft", aq_config(), tensors=aq_tensors())
    at = page_app("../pages/overview.py", timeout=60)
    at.query_params["draft"] = "acme/kimi-draft"
    at.run()
    assert not at.exception, at.exception
    md = _md(at)
    assert "2,135,977,984" not in md and "37K" not in md
    assert "**Training volume:** ours is missing" in md
    assert "**Acceptance length:** ours missing (no run group attached" in md
    assert "**Live speed:** missing: no run group attached to your draft" in md


def test_a_speedup_against_another_model_is_refused() -> None:
    _own_runs("mixed", model="acme/target")
    from comparelib import settings
    from comparelib.live.store import Store

    store = Store(settings.database_url())
    for rid in [r.id for r in store.runs(group="mixed") if r.is_baseline]:
        store.delete_run(rid)
    rid = store.start_run(
        endpoint="http://x:1", server_config={"engine": "sglang", "model": "other/model"}, group="mixed"
    )
    store.finish_run(rid, {"requests": 8, "output_tokens_per_s": 20.0})
    at = page_app("../pages/overview.py", timeout=60)
    at.query_params["draft"] = "registry:" + REF
    at.query_params["draft_group"] = "mixed"
    at.run()
    md = _md(at)
    assert "no speedup: no comparable baseline in this group: the closest, run #" in md
    assert "has different target model: acme/target against other/model" in md


def test_plan_for_the_example_ranks_more_data_first() -> None:
    at = _run()
    assert any(h.value == "What closes the gap, and what it costs" for h in at.subheader)
    md = _md(at)
    assert "**Ranked first: More training data (same draft, same recipe).**" in md
    assert "GPU-hours on H200:" in md and "offline storage" in md and "TB (" in md
    # closed, the plan is its first line only: no table, no chart, no Altair work
    assert not any("option" in df.value.columns for df in at.dataframe)
    assert not list(at.get("arrow_vega_lite_chart")) + list(at.get("vega_lite_chart"))
    at.session_state["ov_plan"] = True  # the user opens the plan
    at.run()
    assert not at.exception, at.exception
    md = _md(at)
    assert md.count("**Ranked first: More training data (same draft, same recipe).**") == 1
    table = next(df.value for df in at.dataframe if "option" in df.value.columns)
    assert table["kind"].iloc[0] == "more-data"
    assert {"samples_needed", "samples_low", "samples_high", "gpu_hours", "storage_tb"} <= set(table.columns)
    first_samples = float(table["samples_needed"].iloc[0])
    charts = list(at.get("arrow_vega_lite_chart")) + list(at.get("vega_lite_chart"))
    titles = " ".join(str(c.proto.spec) for c in charts)
    assert "the plan's fit" in titles and "Cost against gain per option" in titles
    # a lower target needs fewer samples
    at.number_input(key="plan_target").set_value(3.0).run()
    assert not at.exception, at.exception
    table = next(df.value for df in at.dataframe if "option" in df.value.columns)
    lower = float(table.loc[table["kind"] == "more-data", "samples_needed"].iloc[0])
    assert lower < first_samples


def _run_of(store, group: str, engine: str, tok_s: float, spec: str | None, steps: int | None, acc=None) -> int:
    cfg = {"engine": engine, "model": "acme/target", "speculative_algorithm": spec, "num_steps": steps}
    rid = store.start_run(
        endpoint="http://127.0.0.1:30000", server_config=cfg, group=group, params={"concurrency": 8, "max_tokens": 256}
    )
    store.finish_run(rid, {"requests": 8, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": acc})
    return rid


def test_the_best_comparable_pair_of_the_group_answers_and_is_named() -> None:
    """SGLang speculative + SGLang baseline, then a newer vLLM speculative run: the SGLang pair answers."""
    from comparelib import settings
    from comparelib.live.store import Store

    store = Store(settings.database_url())
    spec = _run_of(store, "kimi", "sglang", 730.0, "EAGLE3", 4, 3.1)
    base = _run_of(store, "kimi", "sglang", 299.5, None, None)
    other = _run_of(store, "kimi", "vllm", 800.0, "eagle3", 4, 3.0)
    at = page_app("../pages/overview.py", timeout=60)
    at.query_params["draft"] = "registry:" + REF
    at.query_params["draft_group"] = "kimi"
    at.run()
    assert not at.exception, at.exception
    md = _md(at)
    assert f"**Live speed** (measured): run #{spec} (sglang, num_steps 4)" in md
    assert f"against baseline run #{base}" in md and "[2.44x](/bench" in md
    assert (
        f"run #{other} (vllm): no comparable baseline in this group: the closest, run #{base}, has different "
        "engine: vllm against sglang" in md
    )
    assert "no comparable baseline: different engine" not in at.subheader[0].value if at.subheader else True


def test_a_target_pasted_as_your_draft_is_called_a_target(hub) -> None:
    import json

    from comparelib.models import architectures

    cfg = architectures.known_target("moonshotai/Kimi-K2-Instruct")
    hub.add_model("moonshotai/Kimi-K2-Instruct", json.loads(json.dumps(cfg)))
    at = page_app("../pages/overview.py", timeout=60)
    at.query_params["draft"] = "moonshotai/Kimi-K2-Instruct"
    at.run()
    assert not at.exception, at.exception
    warned = " ".join(w.value for w in at.warning)
    assert "moonshotai/Kimi-K2-Instruct is a target model" in warned and "not a draft" in warned
    assert "1.03 trillion parameters" in warned
    assert "AQ-MedAI/Kimi-K2-Instruct-eagle3" in warned  # drafts known for it
    assert not at.subheader  # no "largest gap is size: a factor of 860.9"
    md = _md(at)
    assert "Use it as the target on Compare drafts" in md and "target=moonshotai%2FKimi-K2-Instruct" in md
    assert "factor of" not in md + warned


def test_a_draft_naming_no_target_takes_the_one_its_runs_were_served_with(hub) -> None:
    """A raw EAGLE-3 config names no target, so a Llama-3.1-8B draft was set against the Kimi-K2 draft ("the
    largest gap is size"). Its runs say what the server served: the reference is a Llama-3.1-8B draft."""
    from comparelib.models import registry

    cfg = dict(registry.get_draft("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B").config or {})
    hub.add_model("acme/llama-draft", cfg)
    _own_runs("llama-runs", model="meta-llama/Llama-3.1-8B-Instruct")
    at = page_app("../pages/overview.py", timeout=60)
    at.query_params["draft"] = "acme/llama-draft"
    at.run()
    assert not at.exception, at.exception
    # no runs attached: the target is not known, so a published draft of its hidden size and vocabulary
    assert at.selectbox(key="ov_ref").value == LLAMA_REF
    assert any(c.value.startswith("Chosen for the same hidden size and vocabulary as your draft") for c in at.caption)
    at = page_app("../pages/overview.py", timeout=60)
    at.query_params["draft"] = "acme/llama-draft"
    at.query_params["draft_group"] = "llama-runs"
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="ov_ref").value == LLAMA_REF
    assert any("your target (meta-llama/Llama-3.1-8B-Instruct)" in c.value for c in at.caption)


def test_the_plan_of_a_draft_naming_no_target_is_costed_for_the_target_its_runs_name(hub) -> None:
    """The reference followed the runs' target, but the plan read only the config: "the target's parameter count
    is unknown (no target named)", generation not costed, and the Kimi draft's AL as the target."""
    from comparelib.models import registry

    cfg = dict(registry.get_draft("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B").config or {})
    hub.add_model("acme/llama-draft", cfg)
    _own_runs("llama-runs", model="meta-llama/Llama-3.1-8B-Instruct")
    at = page_app("../pages/overview.py", timeout=60)
    at.query_params["draft"] = "acme/llama-draft"
    at.query_params["draft_group"] = "llama-runs"
    at.query_params["draft_samples"] = "50000"
    at.run()
    assert not at.exception, at.exception
    lead = next(m.value for m in at.markdown if m.value.startswith("**Ranked first:"))
    assert "hidden-state generation not costed" not in lead and "no target named" not in lead, lead
    text = " ".join(m.value for m in at.markdown)
    assert "target `meta-llama/Llama-3.1-8B-Instruct` (the model its runs were served with)" in text, text


def test_the_target_link_takes_only_drafts_compare_can_read(hub) -> None:
    """Llama-3.1-8B has three published drafts; one has no built-in config, and Compare would show an error
    for it. The link takes the two that load offline."""
    import json

    from comparelib.models import architectures

    cfg = architectures.known_target("meta-llama/Llama-3.1-8B-Instruct")
    hub.add_model("meta-llama/Llama-3.1-8B-Instruct", json.loads(json.dumps(cfg)))
    at = page_app("../pages/overview.py", timeout=60)
    at.query_params["draft"] = "meta-llama/Llama-3.1-8B-Instruct"
    at.run()
    assert not at.exception, at.exception
    md = _md(at)
    assert "RedHatAI/Llama-3.1-8B-Instruct-speculator.eagle3" in " ".join(w.value for w in at.warning)
    assert "yuhuili%2FEAGLE3-LLaMA3.1-Instruct-8B" in md and "RedHatAI" not in md, md


def test_no_headline_without_a_real_gap() -> None:
    at = _run()
    _use(at, f"registry:{REF}")
    at.selectbox(key="ov_ref").set_value(REF).run()  # compared with itself by choice (not the suggested reference)
    headlines = [h.value for h in at.subheader if h.value != "What closes the gap, and what it costs"]  # the plan's
    assert not headlines, headlines
    info = " ".join(i.value for i in at.info)
    assert "No real gap to the reference" in info and "size (within 0%)" in info


def test_differences_are_words_not_signed_counts() -> None:
    from comparelib.analysis import overview

    assert overview.count_words(1_190_859_520) == "1.19 billion"
    assert overview.count_words(52_000) == "52,000"
    assert overview.size_words(1.02) == "about the same size as"
    assert overview.size_words(0.5) == "50% the size of"
    assert overview.size_words(860.9) == "861 times the size of"
    name, sentence = overview.largest_gap(data_ratio=None, size_ratio=1.0, accept_ratio=None)
    assert name == "" and "factor" not in sentence


def _plateau_curve():  # type: ignore[no-untyped-def]
    """A learning curve flat from ~100K samples on (tau_sim ~2.19 at 3 positions), as Acceptance vs data keeps it."""
    from comparelib.analysis import curves

    pts = []
    for i in range(40):
        seen = (i + 1) * 16_000
        acc = (0.6 + 0.1 * (1 - math.exp(-seen / 40_000)), 0.5, 0.4)
        pts.append(curves.CurvePoint(i + 1, float(seen), "train", acc, curves.tau_sim(acc)))
    curve = curves.analyse(pts)
    assert curve.verdict == "plateau"
    return curve


def test_a_plateaued_training_log_outweighs_the_data_gap() -> None:
    """Item 8: the answer and the plan below it both weigh the log: no "more data reaches the target" from the
    published trend under a headline that says the log plateaued."""
    at = page_app("../pages/overview.py", timeout=60)
    at.session_state["_own_curve"] = {"example:own-kimi-k2.5-draft": _plateau_curve()}
    at.run()
    assert not at.exception, at.exception
    head = at.subheader[0].value if at.subheader else ""
    assert not head.startswith("The largest gap is training data"), head
    assert "Your training log has plateaued" in head
    assert any("plateaued" in w.value for w in at.warning)
    lead = next(m.value for m in at.markdown if m.value.startswith("**Ranked first:"))
    assert "reaches the target" not in lead, lead
    at.session_state["ov_plan"] = True  # the user opens the plan: it names the curve it was fitted on
    at.run()
    assert "fitted on your learning curve" in " ".join(c.value for c in at.caption), [c.value for c in at.caption]


def test_overview_leads_with_the_answer_and_folds_the_fit() -> None:
    at = _run()
    assert at.subheader and at.subheader[0].value.startswith("The largest gap is")
    (fold,) = [e for e in at.expander if e.label.startswith("What the published data predicts")]
    assert "38x fewer" in " ".join(m.value for m in fold.markdown)


def test_acceptance_at_another_setting_is_no_headline() -> None:
    from comparelib.analysis import overview

    name, sentence = overview.largest_gap(
        data_ratio=None, size_ratio=1.0, accept_ratio=1.13, accept_same_setting=False
    )
    assert name == "" and "different settings (not like for like)" in sentence and "size (within 0%)" in sentence
    name, sentence = overview.largest_gap(data_ratio=None, size_ratio=1.0, accept_ratio=1.3, accept_same_setting=True)
    assert name == "acceptance length" and "Alike: size." in sentence


LLAMA_REF = "lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge"  # 1.4M samples, against yuhuili's 532K


@pytest.mark.parametrize(
    ("own_repo", "own_target", "expected", "why"),
    [
        # a Kimi target's own published drafts first (walk AE: K2.6 took the Kimi-K2 draft); one with none keeps it
        ("acme/x", "moonshotai/Kimi-K2.5", "lightseekorg/kimi-k2.5-eagle3", "your target (moonshotai/Kimi-K2.5)"),
        ("acme/x", "moonshotai/Kimi-K2-Thinking", REF, "a Kimi target"),
        ("acme/x", None, REF, "target is not known"),
        ("acme/x", "meta-llama/Llama-3.1-8B-Instruct", LLAMA_REF, "trained on the most samples"),
        (LLAMA_REF, "meta-llama/Llama-3.1-8B-Instruct", "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "most samples"),
        ("acme/x", "META-LLAMA/llama-3.1-8b-instruct", LLAMA_REF, "most samples"),  # ids are case-insensitive
        # a draft publishing an acceptance length (no config, no volume) before one stating a volume only
        ("acme/x", "openai/gpt-oss-20b", "RedHatAI/gpt-oss-20b-speculator.eagle3", "publishes an acceptance length"),
        (
            "zhuyksir/EAGLE3-gpt-oss-20b-bf16",
            "openai/gpt-oss-20b",
            "RedHatAI/gpt-oss-20b-speculator.eagle3",
            "size is",
        ),
        # no other draft for Qwen3-32B to compare: the nearest of its family, not the Kimi-K2 draft
        ("acme/x", "Qwen/Qwen3-32B", "lmsys/SGLang-EAGLE3-Qwen3-30B-A3B-Instruct-2507-SpecForge-Nex", "same family"),
        # none known for it at all: not "no other" (walk BB, GLM-4.5-Air)
        ("acme/x", "acme/private-70b", REF, "No published draft for acme/private-70b is known here"),
        ("acme/x", "zai-org/GLM-4.5-Air", REF, "No published draft for zai-org/GLM-4.5-Air is known here"),
    ],
)
def test_the_default_reference_is_a_draft_for_your_target(
    own_repo: str, own_target: str | None, expected: str, why: str
) -> None:
    from comparelib.analysis import overview

    pick = overview.default_reference(overview.reference_choices(), own_repo, own_target)
    assert pick.hub_id == expected and why in pick.why, pick
    assert pick.why.endswith(".") and pick.why[0].isupper()


def test_a_llama_draft_is_compared_with_a_llama_draft_until_the_user_picks_another() -> None:
    """A Llama-3.1-8B draft was compared with the Kimi-K2 draft: 28x less data than a draft for another target.
    Now its reference is the published draft for its own target; a pick holds, and a new draft resets it."""
    at = _run()
    _use(at, "registry:yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", draft_samples=50_000)
    assert at.selectbox(key="ov_ref").value == LLAMA_REF
    assert any("your target (meta-llama/Llama-3.1-8B-Instruct)" in c.value for c in at.caption)
    assert LLAMA_REF in _md(at) and REF not in _md(at)
    at.selectbox(key="ov_ref").set_value("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B").run()
    assert not at.exception
    at.run()
    assert at.selectbox(key="ov_ref").value == "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"  # the user's pick holds
    _use(at, "example:own-kimi-k2.5-draft")
    assert at.selectbox(key="ov_ref").value == REF  # another draft: its own default again


def test_an_opened_plan_with_nothing_to_draw_says_so_instead_of_empty_charts() -> None:
    """No fit and no gain (a draft whose target has no published points, no runs): the plan drew two empty
    charts with "0.000000" axes."""
    at = page_app("../pages/overview.py", timeout=60)
    at.query_params["draft"] = "registry:yuhuili/EAGLE-Vicuna-13B-v1.3"
    at.session_state["ov_plan"] = True
    at.run()
    assert not at.exception, at.exception
    captions = " ".join(c.value for c in at.caption)
    assert "No option has a predicted gain yet" in captions, captions
    assert not at.get("vega_lite_chart") or all("0.000000" not in str(c.proto) for c in at.get("vega_lite_chart"))


def test_a_measured_tree_faster_than_every_chain_leads_overviews_plan(hub) -> None:
    """Walk Q: a tree measured 6.5 tok/s over the best chain while Overview's plan said no option gains beyond
    noise. Overview's plan now ranks the measured tree first, beside its Chains or trees line."""
    from comparelib import settings
    from comparelib.live.store import Store
    from tests.fixtures import aq_config, aq_tensors

    hub.add_model("acme/kimi-draft", aq_config(), tensors=aq_tensors())
    store = Store(settings.database_url())
    # batch 1: baseline 40 tok/s; chains at num_steps 1..4; a tree at num_steps 3, topk 4, 8 draft tokens
    for steps, topk, ndt, tok_s, acc in (
        (None, None, None, 40.0, None),
        (1, 1, 2, 55.0, 1.7),
        (2, 1, 3, 63.0, 2.2),
        (3, 1, 4, 66.0, 2.6),
        (4, 1, 5, 65.0, 2.8),
        (3, 4, 8, 72.5, 3.1),
    ):
        cfg = {
            "engine": "sglang",
            "model": "acme/target",
            "speculative_algorithm": "EAGLE3" if steps else None,
            "draft_model": "acme/kimi-draft" if steps else None,
            "num_steps": steps,
            "topk": topk,
            "num_draft_tokens": ndt,
        }
        rid = store.start_run(
            endpoint="http://127.0.0.1:30000", server_config=cfg, group="tree-sweep", params={"concurrency": 1}
        )
        store.finish_run(rid, {"requests": 8, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": acc})
    at = _run()
    _use(at, f"{hub.url}/acme/kimi-draft", draft_group="tree-sweep")
    assert not at.exception and not at.error, [e.value for e in at.error]
    lead = next(m.value for m in at.markdown if m.value.startswith("**Ranked first:"))
    assert lead.startswith(
        "**Ranked first: Serve the measured tree (num_steps 3, topk 4, 8 draft tokens) at batch 1.**"
    ), lead
    assert "measured 72.5 tok/s against the best chain, num_steps 3 (run #4), 66.0: 6.5 tok/s above it" in lead, lead
    md = _md(at)
    assert "**Chains or trees** (measured)" in md and "the tree is 10% faster" in md, md


def test_a_reference_counted_from_a_template_config_is_said_to_be_estimated() -> None:
    """Walk R2: Overview said "Size outside the embedding (counted from the configs): ... 592,461,824" of a published
    draft whose registry config is a SpecForge template, while Compare drafts called the same count an estimate."""
    meituan = "lmsys/SGLang-EAGLE3-Qwen3-235B-A22B-Instruct-2507-SpecForge-Meituan"
    at = _run()
    assert meituan in at.selectbox(key="ov_ref").options
    at.selectbox(key="ov_ref").set_value(meituan).run()
    assert not at.exception, at.exception
    line = _size_line(at)
    assert f"(counted from the configs; {meituan}'s is estimated from a SpecForge template config" in line, line
    at.selectbox(key="ov_ref").set_value("AQ-MedAI/Kimi-K2-Instruct-eagle3").run()  # its published config, read
    line = _size_line(at)
    assert line.startswith("- **Size outside the embedding** (counted from the configs): "), line


def _size_line(at: AppTest) -> str:
    return next(line for m in at.markdown for line in m.value.splitlines() if "**Size outside the embedding**" in line)


def test_a_size_gap_to_a_template_counted_reference_says_it_is_estimated(hub) -> None:
    """Walk R2's headline "The largest gap is size: your draft is 75% the size of the reference" was counted from
    SpecForge's template config for the Meituan draft, not its published one."""
    from tests.test_compare_walk_r import CARD, DRAFT, DRAFT_CONFIG, PUBLISHED, TARGET, TARGET_CONFIG, TENSORS

    hub.add_model(TARGET, TARGET_CONFIG)
    hub.add_model(DRAFT, DRAFT_CONFIG, tensors=TENSORS, card=CARD)
    at = _run()
    _use(at, f"{hub.url}/{DRAFT}")
    assert at.session_state["ov_ref"] == PUBLISHED  # the published draft for its target
    heading = at.subheader[0].value
    # size is all that compares here: the only gap known, not the largest (walk BS 4)
    assert heading.startswith("The only gap known is size: your draft is 75% the size of the reference"), heading
    assert "(the reference's size estimated from a SpecForge template config, not its published config)" in heading


def _walk_s_page(**params: str) -> AppTest:
    """Overview of a draft whose group measured walk S: batch 1's sweep and a batch-16 pair where speculation loses
    (0.92x), with ``params`` added to the link."""
    from tests.test_plan_rank_batch import _store_walk_s

    _store_walk_s(walk_s())
    at = page_app("../pages/overview.py", timeout=60)
    at.query_params["draft"] = "registry:" + REF
    at.query_params["draft_group"] = "walks-s"
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def _lead(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith(("**Ranked first:", "**No option")))


def test_the_plan_ranks_at_a_batch_the_user_measured_and_the_link_carries_it() -> None:
    """The plan offered 1, 8 and 64 only: a pair measured at batch 16 showed in its notes, not ranked at."""
    at = _walk_s_page()
    assert not _lead(at).startswith("**Ranked first: Serve without speculation"), _lead(at)  # batch 1, the default
    at.session_state["ov_plan"] = True  # the user opens the plan
    at.run()
    box = at.selectbox(key="plan_batch")
    assert list(box.options) == ["1", "8", "16", "64"] and box.value == 1
    box.set_value(16).run()
    assert not at.exception, at.exception
    table = next(df.value for df in at.dataframe if "option" in df.value.columns)
    assert table["kind"].iloc[0] == "no-speculation"
    assert float(table["gain_tok_s"].iloc[0]) == pytest.approx(BASE16 - SPEC16)  # measured: run #7 against #8
    assert "tok_s_bs16" in table.columns
    captions = "\n".join(c.value for c in at.caption)
    assert "Served now at batch 16: no speculative tok/s is predicted there: speculation lost at batch 16" in captions
    assert at.query_params["plan_batch"] == "16"  # the link reproduces the ranking
    # the link opened elsewhere: the plan ranks at batch 16, closed (its first line) and opened
    shared = _walk_s_page(plan_batch="16")
    assert _lead(shared).startswith("**Ranked first: Serve without speculation at batch >= 16.**"), _lead(shared)
    shared.session_state["ov_plan"] = True
    shared.run()
    assert shared.selectbox(key="plan_batch").value == 16
    shared.selectbox(key="plan_batch").set_value(1).run()  # back to the default: the link drops it
    assert "plan_batch" not in shared.query_params
    # a batch the draft's runs measured no pair at is not offered, and a link naming one ranks at the default
    other = _walk_s_page(plan_batch="32")
    other.session_state["ov_plan"] = True
    other.run()
    assert not other.exception, other.exception
    assert other.selectbox(key="plan_batch").value == 1
