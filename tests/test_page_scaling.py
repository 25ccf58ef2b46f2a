"""The "Acceptance vs data" page: default offline answer, chart specs, and the widgets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.fixtures import page_app

KEY = "steps=3,topk=1,draft=4,bs=8,sglang"


def _texts(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [m.value for m in at.info] + [m.value for m in at.warning]
    parts += [m.value for m in at.caption]
    return "\n".join(parts)


@pytest.fixture()
def at() -> AppTest:
    app = page_app("../pages/scaling.py", timeout=60).run()
    assert not app.exception, app.exception
    return app


def test_default_page_answers_offline(at: AppTest) -> None:
    assert not at.error
    assert at.selectbox(key="sc_bench").value == "gsm8k"
    assert at.selectbox(key="sc_setting").value == KEY
    text = _texts(at)
    # the target opens on the published one Overview's plan aims at (a round 3.00 was the page's own)
    from comparelib.analysis import plan, scaling
    from comparelib.models.draft import DEFAULT

    aim = plan.default_target(
        scaling.published_points(), benchmark="gsm8k", setting_key=KEY, target="moonshotai/Kimi-K2.5", own=DEFAULT.name
    )
    assert aim is not None and at.number_input(key="sc_target").value == pytest.approx(aim[0]) == pytest.approx(3.201)
    assert f"Default 3.201: {aim[1]}, as Overview's plan." in text
    # lightseekorg's 3.201 states SGLang and no batch size: said at its own setting, the fit at the fit's (walk AE)
    assert aim.setting == "steps=3,topk=1,draft=4,sglang"
    assert (
        "To reach 3.201 on GSM8K, published at steps=3,topk=1,draft=4,sglang (batch size not stated), you need about "
        f"2.7M samples by the log-linear fit at {KEY}" in text
    ), text
    assert (
        "37K training samples sits far below the 1.4M of the published draft "
        "AQ-MedAI/Kimi-K2-Instruct-eagle3 (38x fewer)" in text
    )
    assert "a fit pooled across all 7 drafts" in text
    # live results for the example group, with the model's optimum
    # num_steps=2 is the example's measured run: the best is said as measured, the model's value beside it
    assert "Best: num_steps=2 at 94.0 tok/s (+5.9% against 88.8 tok/s" in text
    assert ", measured in run #" in text and "the model predicts 94.0 tok/s there" in text
    assert "Example data" in text


def test_chart_specs(at: AppTest) -> None:
    charts = at.get("vega_lite_chart")
    assert len(charts) == 3  # the scaling chart, then throughput and acceptance each at the column's width
    spec = json.loads(charts[0].proto.spec)
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks == ["area", "line", "rule", "point", "point"]  # the user's points are drawn over the volume rule
    assert spec["layer"][4]["encoding"]["x"]["scale"]["type"] == "log"
    assert spec["layer"][4]["encoding"]["color"]["field"] == "kind"  # the chosen benchmark's colour, and yours
    assert spec["layer"][4]["encoding"]["shape"]["field"] == "kind"
    assert spec["layer"][3]["mark"]["color"] == "#b8b8b8"  # other settings greyed out
    sweep = json.loads(charts[1].proto.spec)
    assert sweep["width"] == "container" and json.loads(charts[2].proto.spec)["width"] == "container"
    left = sweep["layer"]  # one chart per part: side by side the second chart was clipped
    assert left[0]["encoding"]["strokeDash"]["field"] == "kind"
    assert left[-1]["mark"]["type"] == "rule"  # the baseline
    keys = [b.key for b in at.get("download_button")]
    assert keys == ["sc_dl_png", "sc_dl_svg", "sc_dl_vl"]  # the points' exports are in their own tab
    at.session_state["sc_tab"] = "Points in the fit"
    at.run()
    keys = [b.key for b in at.get("download_button")]
    assert keys == ["sc_dl_png", "sc_dl_svg", "sc_dl_vl", "sc_dl_csv", "sc_dl_md"]
    assert len(at.get("vega_lite_chart")) == 1  # the live tab's charts are not built while another is shown


def test_target_and_typed_volume(at: AppTest) -> None:
    at.number_input(key="sc_target").set_value(3.5).run()
    at.selectbox(key="sc_vol_pick").set_value("typed in").run()
    at.number_input(key="sc_vol_typed").set_value(400_000).run()
    assert not at.exception and not at.error
    text = _texts(at)
    assert f"To reach 3.5 on GSM8K at {KEY}" in text
    assert "At your 400K samples the fit predicts" in text
    assert "400K training samples sits below the 1.4M" in text


def test_setting_with_too_few_volumes_says_so(at: AppTest) -> None:
    at.selectbox(key="sc_setting").set_value("steps=3,topk=1,draft=4,bs=1,sglang").run()
    assert not at.exception
    warnings = [w.value for w in at.warning]
    assert any(
        "No fit for GSM8K at steps=3,topk=1,draft=4,bs=1,sglang" in w and "at least 3 distinct" in w for w in warnings
    )
    spec = json.loads(at.get("vega_lite_chart")[0].proto.spec)
    assert [layer["mark"]["type"] for layer in spec["layer"]] == ["rule", "point", "point"]  # no fit line, no band


def test_tokens_axis_without_data_warns(at: AppTest) -> None:
    at.radio(key="sc_x").set_value("tokens").run()
    assert not at.exception
    assert any("No published draft with known training tokens reports GSM8K" in w.value for w in at.warning)


def test_no_run_group(at: AppTest) -> None:
    at.selectbox(key="sc_group").set_value("(none)").run()
    assert not at.exception
    assert len(at.get("vega_lite_chart")) == 1
    assert "Pick a run group" in _texts(at)


def _one_point_no_baseline(group: str) -> None:
    from comparelib import settings
    from comparelib.live.store import Store

    store = Store(settings.database_url())
    rid = store.start_run(
        endpoint="http://h:1",
        group=group,
        params={"concurrency": 8, "prompt_set": "gsm8k"},
        server_config={
            "engine": "sglang",
            "model": "acme/target",
            "speculative_algorithm": "EAGLE3",
            "num_steps": 3,
            "topk": 1,
            "num_draft_tokens": 4,
        },
    )
    store.finish_run(rid, {"requests": 16, "output_tokens_per_s": 2827.7, "accept_length": 2.5})
    store.save_data_volume(draft="acme/kimi-draft", samples=12_000, source="audit")


def test_one_point_without_baseline_predicts_nothing_and_says_what_is_missing() -> None:
    _one_point_no_baseline("one-point")
    app = page_app("../pages/scaling.py", timeout=60)
    app.query_params["draft"] = "acme/kimi-draft"
    app.query_params["draft_vol"] = "acme/kimi-draft"
    app.query_params["draft_group"] = "one-point"
    app.run()
    assert not app.exception, app.exception
    text = _texts(app)
    assert "Predicted best" not in text and "2827.7 tok/s, verification" not in text
    assert "No prediction of the best num_steps yet. Missing: only one num_steps was measured (3)" in text
    assert "a baseline run (the same model and server settings without speculation)" in text
    assert "Example data" not in text


def test_own_measured_acceptance_next_to_the_fit_and_why_they_disagree() -> None:
    _one_point_no_baseline("one-point")
    app = page_app("../pages/scaling.py", timeout=60)
    app.query_params["draft"] = "acme/kimi-draft"
    app.query_params["draft_vol"] = "acme/kimi-draft"
    app.query_params["draft_group"] = "one-point"
    app.run()
    assert app.selectbox(key="sc_vol_pick").value.startswith("acme/kimi-draft (12,000 samples")
    text = _texts(app)
    # the fit's line is clipped at 1.00 there: the trend cannot say, and why (walk T's one rule, not "predicts 1.00")
    floor = "its value there is the floor of 1.00, the least acceptance possible, not a prediction"
    assert f"At your 12K samples the fit cannot say what a draft reaches: {floor}" in text
    # named by its run and setting; the fit's own setting is the same, so it is not repeated
    assert (
        f"You measured **2.50** (run #1, at steps=3,topk=1,draft=4,bs=8,sglang); the fit cannot say what a draft "
        f"reaches at 12K: {floor}" in text
    )
    assert "from the fit's value" not in text and "12K is below the smallest published volume" in text
    assert "neither confirms nor contradicts your measurement: trust the measurement for your draft" in text


def test_the_answer_and_a_chart_lead_the_page_derivations_fold_away() -> None:
    """Acceptance vs data: no long coloured blocks stacked above the first chart."""
    from tests.fixtures import page_app

    at = page_app("../pages/scaling.py", timeout=60).run()
    assert not at.exception, at.exception
    kinds = []

    def walk(node) -> None:  # type: ignore[no-untyped-def]
        kinds.append(node.type)
        if node.type == "expander":
            return  # folded: not on screen until opened
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at.main)
    first_chart = next(i for i, k in enumerate(kinds) if k == "vega_lite_chart")
    blocks = [k for k in kinds[:first_chart] if k in ("success", "warning", "info", "error")]
    assert len(blocks) <= 1, kinds[:first_chart]
    assert any(e.label.startswith("The fit, its prediction") for e in at.expander)
    # derivations in fold-outs that are built when opened: the excluded points
    assert not any("reason" in d.value.columns for d in at.dataframe)
    at.session_state["sc_tab"] = "Points in the fit"
    at.session_state["sc_excluded_open"] = True
    at.run()
    assert not at.exception, at.exception
    excluded = next(d.value for d in at.dataframe if "reason" in d.value.columns)
    assert len(excluded) > 0 and set(excluded["benchmark"]) == {at.selectbox(key="sc_bench").value}


def test_a_run_stored_between_reruns_changes_the_answer() -> None:
    """The page caches its selection, fit, verdict and live outlook by their inputs; the group's runs are
    one of them, so a baseline stored after the first run shows on the next (no stale cache)."""
    from comparelib import settings
    from comparelib.live.store import Store

    _one_point_no_baseline("grows")
    app = page_app("../pages/scaling.py", timeout=60)
    app.query_params["draft"] = "acme/kimi-draft"
    app.query_params["draft_group"] = "grows"
    app.run()
    assert "a baseline run (the same model and server settings without speculation)" in _texts(app)
    store = Store(settings.database_url())
    rid = store.start_run(
        endpoint="http://h:1",
        group="grows",
        params={"concurrency": 8, "prompt_set": "gsm8k"},
        server_config={"engine": "sglang", "model": "acme/target", "speculative_algorithm": None},
    )
    store.finish_run(rid, {"requests": 16, "output_tokens_per_s": 1200.0})
    app.run()
    assert not app.exception, app.exception
    text = _texts(app)
    assert "a baseline run (the same model and server settings without speculation)" not in text
    assert "only one num_steps was measured (3)" in text


def _keys(at: AppTest, kind: str) -> list[str]:
    return [w.key for w in at.get(kind)]


def test_only_the_tab_shown_is_built_and_what_was_typed_in_another_stays() -> None:
    """The tabs are built only while shown (each one's grids, charts and inputs cost the browser); what the user
    typed or picked in one is still there when they come back from another."""
    at = page_app("../pages/scaling.py", timeout=60).run()
    assert not at.exception, at.exception
    assert "sc_dc_source" not in _keys(at, "selectbox") and "od_draft" not in _keys(at, "text_input")
    assert len(at.get("vega_lite_chart")) == 3  # the fit's, and the live tab's two

    at.session_state["sc_tab"] = "Draft cost"
    at.run()
    assert "sc_dc_source" in _keys(at, "selectbox") and len(at.get("vega_lite_chart")) == 1
    at.number_input(key="sc_dc_acc_0").set_value(1.8).run()
    at.session_state["sc_tab"] = "Before serving"
    at.run()
    at.text_input(key="od_draft").set_value("org/my-draft").run()
    at.number_input(key="od_steps").set_value(3).run()
    at.session_state["sc_tab"] = "Live results"
    at.run()
    assert not at.exception, at.exception
    assert "sc_dc_acc_0" not in _keys(at, "number_input") and "od_draft" not in _keys(at, "text_input")

    at.session_state["sc_tab"] = "Draft cost"
    at.run()
    assert at.number_input(key="sc_dc_acc_0").value == 1.8
    at.session_state["sc_tab"] = "Before serving"
    at.run()
    assert at.text_input(key="od_draft").value == "org/my-draft" and at.number_input(key="od_steps").value == 3
    assert not at.exception, at.exception


def test_an_uploaded_log_stays_while_another_tab_is_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An uploader that is not drawn forgets its file: the learning curve's inputs stay built while a log is
    uploaded, so switching tabs never loses it (its chart and tables wait until the tab is shown again)."""
    root = tmp_path / "root"
    root.mkdir()
    monkeypatch.setenv("SPECDRAFT_DATA_ROOT", str(root))
    log = "step,acc_0,acc_1\n" + "".join(f"{s},{0.9 - 0.4 / s:.4f},0.6\n" for s in range(1, 13))
    at = page_app("../pages/scaling.py", timeout=60)
    at.session_state["sc_tab"] = "Learning curve"
    at.run()
    at.file_uploader[0].set_value(("train.csv", log.encode(), "text/csv")).run()
    assert not at.exception, at.exception
    assert len(at.get("vega_lite_chart")) == 2  # the fit's and the curve's
    held = [p for p in (root / "uploads").rglob("*") if p.is_file()]
    assert len(held) == 1, held

    at.session_state["sc_tab"] = "Live results"
    at.run()
    assert not at.exception, at.exception
    import app
    from comparelib.models.draft import DEFAULT

    # still drawn (in the hidden tab), so it keeps the file
    assert app.draft_key("lc_upload", DEFAULT) in _keys(at, "file_uploader")
    assert len(at.get("vega_lite_chart")) == 3  # the fit's and the live tab's: no curve while hidden
    assert [p for p in (root / "uploads").rglob("*") if p.is_file()] == held

    at.session_state["sc_tab"] = "Learning curve"
    at.run()
    assert not at.exception, at.exception
    assert len(at.get("vega_lite_chart")) == 2 and not at.error


def test_the_reference_is_a_draft_for_your_target_as_on_overview() -> None:
    """Acceptance vs data compared a Llama-3.1-8B draft with the Kimi-K2 draft; it now preselects the same
    reference as Overview (a published draft for your target), and says why; the example keeps Kimi-K2."""
    llama = page_app("../pages/scaling.py", timeout=60)
    llama.query_params["draft"] = "registry:yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"
    llama.run()
    assert not llama.exception, llama.exception
    assert llama.selectbox(key="sc_ref").value == "lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge"
    assert any("your target (meta-llama/Llama-3.1-8B-Instruct)" in c.value for c in llama.caption)
    example = page_app("../pages/scaling.py", timeout=60).run()
    assert example.selectbox(key="sc_ref").value == "AQ-MedAI/Kimi-K2-Instruct-eagle3"


def test_a_new_draft_brings_its_own_volume_and_runs_not_the_examples() -> None:
    """Opened on the example, then another draft chosen in the sidebar: the page's volume and run group follow
    the new draft (keyed selectboxes ignore a new default, so they kept the example's 37K and its runs)."""
    at = page_app("../pages/scaling.py", timeout=60).run()
    assert at.selectbox(key="sc_group").value == "example-kimi-k2.5"
    at.sidebar.text_input(key="draft_source").set_value("registry:yuhuili/EAGLE3-LLaMA3.1-Instruct-8B")
    at.sidebar.selectbox(key="draft_volume").set_value("(none)")
    at.sidebar.number_input(key="draft_samples").set_value(200_000)
    at.sidebar.button[0].click().run()
    assert not at.exception, at.exception
    assert at.selectbox(key="sc_group").value == "(none)"
    assert at.selectbox(key="sc_vol_pick").value == "typed in"
    caption = " ".join(c.value for c in at.caption)
    assert "your volume: 200K samples (yuhuili/EAGLE3-LLaMA3.1-Instruct-8B); run group: none" in caption, caption
    assert "37K" not in caption
    # a pick made on the page holds while the draft stays
    at.selectbox(key="sc_group").set_value("example-kimi-k2.5").run()
    assert at.selectbox(key="sc_group").value == "example-kimi-k2.5"


def test_a_sweep_no_server_could_give_predicts_no_draft_costs() -> None:
    """Two runs whose cycle got cheaper with more steps (noise or a changed setting): the Draft cost tab showed
    predicted tok/s rising to num_steps=10 above its own note that the fit is no server's."""
    from comparelib import settings
    from comparelib.live.store import Store

    store = Store(settings.database_url())
    for steps, tok_s, acc in ((2, 700.0, 2.2), (3, 1100.0, 2.6)):
        rid = store.start_run(
            endpoint="http://h:1",
            group="odd-sweep",
            params={"concurrency": 4, "prompt_set": "gsm8k"},
            server_config={
                "engine": "sglang",
                "model": "acme/target",
                "speculative_algorithm": "EAGLE3",
                "num_steps": steps,
                "topk": 1,
                "num_draft_tokens": steps + 1,
            },
        )
        store.finish_run(rid, {"requests": 16, "output_tokens_per_s": tok_s, "accept_length": acc})
    at = page_app("../pages/scaling.py", timeout=60)
    at.query_params["draft"] = "example:own-kimi-k2.5-draft"
    at.query_params["draft_group"] = "odd-sweep"
    at.session_state["sc_tab"] = "Draft cost"
    at.run()
    assert not at.exception, at.exception
    warned = " ".join(w.value for w in at.warning)
    assert "No predicted tok/s per draft: the sweep's fitted costs are not a server's" in warned, warned
    assert "a sweep whose cycle time grows with num_steps" in warned
    assert not [df for df in at.dataframe if "num_steps" in df.value.columns and "tok_s" in " ".join(df.value.columns)]


def test_target_follows_the_settings_published_target_until_typed(at: AppTest) -> None:
    """The field opens on the plan's target at each setting; a keyed field kept 3.201 under "Default 4.655"."""
    from comparelib.analysis import plan, scaling

    seven = "steps=7,topk=1,draft=8,bs=8,sglang"
    at.selectbox(key="sc_setting").set_value(seven).run()
    aim = plan.default_target(
        scaling.published_points(), benchmark="gsm8k", setting_key=seven, target="moonshotai/Kimi-K2.5", own=None
    )
    assert aim is not None and at.number_input(key="sc_target").value == pytest.approx(aim[0])
    at.number_input(key="sc_target").set_value(4.0).run()
    at.selectbox(key="sc_setting").set_value(KEY).run()
    assert at.number_input(key="sc_target").value == pytest.approx(4.0)  # typed: kept
