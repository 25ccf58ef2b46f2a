"""AppTest of the Compare page: offline default, a pasted emulator URL, errors, shareable query."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.fixtures import AQ, aq_config, aq_tensors, page_app
from tests.hub_emulator import HubEmulator

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "compare.py")


def table_values(at: AppTest) -> list[int]:
    df = at.dataframe[0].value
    return [int(v) for v in df["excluding_embedding"]]


def test_opens_offline_on_the_kimi_comparison() -> None:
    at = page_app(PAGE, timeout=120).run()
    assert not at.exception
    values = table_values(at)
    assert 1_190_948_864 in values and 2_135_977_984 in values
    assert any("lm_head" in i.value and "945,029,120" in i.value for i in at.info)
    labels = [b.label for b in at.get("download_button")]
    assert {"Download CSV", "Download MD", "Download JSON", "Download LaTeX"} <= set(labels)


def test_pasted_hub_url_shows_commit_and_counts(hub: HubEmulator) -> None:
    sha = hub.add_model("acme/kimi-draft", aq_config(), tensors=aq_tensors())
    at = page_app(PAGE, timeout=120).run()
    at.multiselect(key="compare_picks").set_value([AQ])
    at.text_area(key="compare_urls").set_value(f"{hub.url}/acme/kimi-draft/tree/main")
    at.button[0].click().run()
    assert not at.exception
    df = at.dataframe[0].value
    assert list(df["draft"]) == [AQ, f"acme/kimi-draft@{sha[:7]}"]
    assert df["revision"].iloc[1] == sha[:12]
    assert table_values(at) == [1_190_948_864, 1_190_948_864]
    assert at.query_params["m"] == [f"registry:{AQ}", f"{hub.url}/acme/kimi-draft/tree/main"]


def test_errors_are_messages_not_tracebacks(hub: HubEmulator) -> None:
    hub.add_model("acme/gated", aq_config(), gated=True)
    at = page_app(PAGE, timeout=120).run()
    at.multiselect(key="compare_picks").set_value([AQ])
    at.text_area(key="compare_urls").set_value("acme/gated\nhttps://example.com/a/b\nacme/missing")
    at.button[0].click().run()
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    # a gated repo: the page names its own token field (the CLI names HF_TOKEN)
    assert '"Hub token (this session only)" field' in errors and "example.com" in errors and "acme/missing" in errors
    assert len(at.dataframe[0].value) == 1  # the good source still shows


def test_query_params_reproduce_a_comparison() -> None:
    at = page_app(PAGE, timeout=120)
    at.query_params["m"] = [f"registry:{AQ}"]
    at.run()
    assert not at.exception
    assert table_values(at) == [1_190_948_864]


def test_bad_target_layers_is_an_error_message() -> None:
    at = page_app(PAGE, timeout=120).run()
    at.text_input(key="compare_target_layers").set_value("-3")
    at.button[0].click().run()
    assert not at.exception
    assert any("whole number" in e.value for e in at.error)


def _lint_text(at: AppTest) -> str:
    frames = [d.value for d in at.dataframe if "code" in getattr(d.value, "columns", [])]
    return " ".join(" ".join(f["message"]) for f in frames) + " ".join(
        x.value for x in [*at.error, *at.warning, *at.success]
    )


def test_kimi_draft_on_kimi_target_has_no_false_one_layer_apart() -> None:
    at = page_app(PAGE, timeout=120)
    at.query_params["m"] = [f"registry:{AQ}"]
    at.query_params["target"] = "moonshotai/Kimi-K2-Instruct"
    at.run()
    assert not at.exception
    text = _lint_text(at)
    assert "one layer" not in text and "[3, 31, 59]" not in text
    assert any("Nothing to act on" in s.value for s in at.success)
    # the known-harmless findings sit in a collapsed group, not in the main findings table
    (group,) = [x for x in at.expander if x.label.startswith("Known harmless")]
    assert len(group.dataframe) == 0  # its grid is built only when the user opens it
    at.session_state["compare_harmless_open"] = True
    at.run()
    (group,) = [x for x in at.expander if x.label.startswith("Known harmless")]
    codes = set(group.dataframe[0].value["code"])
    assert codes == {"rope-mismatch", "aux-agree"}
    table = at.dataframe[0].value
    assert (int(table["lint_errors"].iloc[0]), int(table["lint_warnings"].iloc[0])) == (0, 0)  # harmless only


def test_engine_selector_applies_that_version_rules() -> None:
    at = page_app(PAGE, timeout=120)
    at.query_params["m"] = [f"registry:{AQ}"]
    at.run()
    assert at.selectbox(key="compare_engine").value == "newest rules of every engine"
    at.selectbox(key="compare_engine").set_value("SGLang 0.5.1").run()
    assert not at.exception
    assert any("engine-unsupported" in e.value and "SGLang 0.5.1" in e.value for e in at.error)


def test_minus_one_draft_is_counted_and_its_lint_says_what_each_engine_does(tmp_path: Path) -> None:
    import json

    from comparelib.models import registry

    config = json.loads((registry.EXAMPLE_OWN_DRAFT / "config.json").read_text())
    config["eagle_config"]["eagle_aux_hidden_state_layer_ids"] = [-1, 29, 57]
    (tmp_path / "config.json").write_text(json.dumps(config))
    at = page_app(PAGE, timeout=120)
    at.query_params["m"] = [str(tmp_path)]
    at.query_params["target"] = "moonshotai/Kimi-K2.5"
    at.run()
    assert not at.exception
    assert table_values(at) == [2_135_977_984]  # counted like the same draft with valid ids
    (head,) = [e.value for e in at.error if "aux-negative" in e.value]
    assert "captured 2 of 3 aux hidden states" in head and "SpecForge 0.2.0 refuses them" in head
    # SGLang's DeepSeek path adds 1 when the first id is 1 ([1, 29, 57] -> boundaries 2, 30, 58; writing [2, 30, 58]
    # also works, as given); vLLM reads the top level as given
    assert "for SGLang 0.5.23 write [1, 29, 57] into eagle_config; for vLLM 0.34.0 / 0.33.0 write [2, 30, 58]" in head


def test_the_sidebar_draft_starts_the_comparison_and_a_session_token_opens_a_gated_repo(hub: HubEmulator) -> None:
    import json

    sha = hub.add_model("acme/gated-draft", aq_config(), tensors=aq_tensors(), gated=True)
    at = page_app(PAGE, timeout=120)
    at.query_params["draft"] = "acme/gated-draft"
    at.run()
    assert any("gated" in e.value and "Hub token" in e.value for e in at.error)
    at.sidebar.text_input(key="hub_token").set_value(hub.token).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    df = at.dataframe[0].value
    assert f"acme/gated-draft@{sha[:7]}" in list(df["draft"])  # your draft, next to the published defaults
    # the token is nowhere but in the session: not in the link, the page, or the exports
    assert hub.token not in json.dumps(dict(at.query_params))
    page_text = " ".join(str(e.value) for e in [*at.markdown, *at.caption, *at.info, *at.error])
    assert hub.token not in page_text
    for button in at.get("download_button"):
        assert hub.token not in str(button.proto)
    # numbers formatted by the shared column description: the name pinned, counts localized
    cfg = json.loads(at.dataframe[0].proto.columns)
    assert cfg["draft"]["pinned"] is True and cfg["excluding_embedding"]["type_config"]["format"] == "localized"
    assert cfg["bf16_GiB"]["type_config"]["format"] == "%.3f GiB"


def test_two_drafts_with_the_same_name_get_distinct_chart_labels(tmp_path: Path) -> None:
    import json

    for run in ("run1", "run2"):
        folder = tmp_path / run / "checkpoint"
        folder.mkdir(parents=True)
        (folder / "config.json").write_text(json.dumps(aq_config()))
    at = page_app(PAGE, timeout=120)
    at.query_params["m"] = [str(tmp_path / "run1" / "checkpoint"), str(tmp_path / "run2" / "checkpoint")]
    at.run()
    assert not at.exception
    chart = (
        json.loads(at.get("arrow_vega_lite_chart")[0].proto.spec)
        if at.get("arrow_vega_lite_chart")
        else json.loads(at.get("vega_lite_chart")[0].proto.spec)
    )
    assert chart["encoding"]["y"]["axis"]["labelLimit"] >= 400
    from comparelib.models import comparison

    entries = [comparison.load_entry(str(tmp_path / r / "checkpoint")) for r in ("run1", "run2")]
    names = comparison.display_names(entries)
    assert names == [str(tmp_path / "run1" / "checkpoint"), str(tmp_path / "run2" / "checkpoint")]
    assert set(comparison.components_frame(entries)["draft"]) == set(names)


def test_the_target_field_is_your_drafts_published_drafts_keep_theirs() -> None:
    llama = "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"
    at = page_app(PAGE, timeout=120).run()
    at.multiselect(key="compare_picks").set_value([AQ, llama])
    at.text_area(key="compare_urls").set_value("example:own-kimi-k2.5-draft")
    at.text_input(key="compare_target").set_value("moonshotai/Kimi-K2.5")
    at.button[0].click().run()
    assert not at.exception, at.exception
    df = at.dataframe[0].value.set_index("draft")
    assert df.loc["example: own Kimi-K2.5 draft", "target"] == "moonshotai/Kimi-K2.5"
    assert df.loc[llama, "target"] != "moonshotai/Kimi-K2.5"  # its own target, not the field's
    llama_errors = [e.value for e in at.error if llama in e.value]
    assert not llama_errors, llama_errors
    # asked for explicitly, the field applies to the published drafts too
    at.checkbox(key="compare_target_all").check()
    at.button[0].click().run()
    df = at.dataframe[0].value.set_index("draft")
    assert df.loc[llama, "target"] == "moonshotai/Kimi-K2.5"
    assert at.query_params["target_all"] == "1"


def test_the_session_token_survives_page_switches_and_stays_in_the_session(hub: HubEmulator) -> None:
    import json

    import app

    hub.add_model("acme/gated-draft", aq_config(), tensors=aq_tensors(), gated=True)
    at = page_app(PAGE, timeout=120)
    at.query_params["draft"] = "acme/gated-draft"
    at.run()
    at.sidebar.text_input(key="hub_token").set_value(hub.token).run()
    assert not at.error, [e.value for e in at.error]
    for page in ("overview.py", "compare.py", "overview.py"):
        at.switch_page(page).run()
        assert not at.exception, at.exception
        assert at.sidebar.text_input(key="hub_token").value == hub.token, page
        assert not [e.value for e in at.error if "gated" in e.value], page  # the gated draft still opens
    assert hub.token not in json.dumps(dict(at.query_params))
    # another browser session starts without it
    other = page_app(PAGE, timeout=120)
    other.query_params["draft"] = "acme/gated-draft"
    other.run()
    assert other.sidebar.text_input(key="hub_token").value in ("", None)
    assert app.TOKEN_KEPT not in other.session_state


def test_a_target_pasted_among_drafts_is_called_a_target(hub: HubEmulator) -> None:
    import json

    from comparelib.models import architectures

    cfg = json.loads(json.dumps(architectures.known_target("moonshotai/Kimi-K2-Instruct")))
    hub.add_model("moonshotai/Kimi-K2-Instruct", cfg)
    at = page_app(PAGE, timeout=120).run()
    at.multiselect(key="compare_picks").set_value([AQ])
    at.text_area(key="compare_urls").set_value("moonshotai/Kimi-K2-Instruct")
    at.button[0].click().run()
    assert not at.exception, at.exception
    warned = " ".join(w.value for w in at.warning)
    assert "moonshotai/Kimi-K2-Instruct is a target model" in warned and AQ in warned
    assert not [i.value for i in at.info if "Kimi-K2-Instruct@" in i.value or "moonshotai" in i.value]


def test_will_it_serve_has_one_row_per_engine_and_runner_and_names_the_change() -> None:
    # the built-in Kimi-K2.5 draft ([1, 29, 57] in eagle_config) against Kimi-K2.5
    at = page_app(PAGE, timeout=120)
    at.query_params["m"] = ["example:own-kimi-k2.5-draft"]
    at.query_params["target"] = "moonshotai/Kimi-K2.5"
    at.run()
    assert not at.exception
    assert "Will it serve?" in [s.value for s in at.subheader]
    frames = [d.value for d in at.dataframe if "starts?" in d.value.columns]
    assert len(frames) == 1
    df = frames[0]
    assert list(df["engine"]) == [
        "SGLang 0.5.23",
        "SGLang 0.5.1",
        "vLLM 0.34.0 (v2, only runner)",
        "vLLM 0.33.0 (v2, default)",
        "vLLM 0.33.0 (v1, VLLM_USE_V2_MODEL_RUNNER=0)",
    ]
    assert list(df["same as trained?"]) == ["yes", "unknown", "yes", "yes", "no"]
    assert df["starts?"][1].startswith("unsupported")
    heads = [w.value for w in at.warning if w.value.startswith("**example") and "feeds the draft other" in w.value]
    assert len(heads) == 1 and "vLLM 0.33.0 (v1, VLLM_USE_V2_MODEL_RUNNER=0)" in heads[0]
    assert '{"eagle_aux_hidden_state_layer_ids": [2, 30, 58]}' in heads[0]
    at.selectbox(key="compare_engine").set_value("vLLM 0.33.0").run()
    assert not at.exception
    df = next(d.value for d in at.dataframe if "starts?" in d.value.columns)
    assert len(df) == 2 and df["ids read from"][0] == "default"
    at.selectbox(key="compare_engine").set_value("vLLM 0.34.0").run()  # V2 is its only runner
    assert not at.exception
    df = next(d.value for d in at.dataframe if "starts?" in d.value.columns)
    assert list(df["engine"]) == ["vLLM 0.34.0 (v2, only runner)"] and list(df["same as trained?"]) == ["yes"]


def test_details_are_built_only_when_opened_and_show_the_chosen_draft(hub) -> None:  # type: ignore[no-untyped-def]
    """The tensor table and checkpoint header of one draft, built when the Details fold-out is opened."""
    sha = hub.add_model("acme/kimi-draft", aq_config(), tensors=aq_tensors())
    at = page_app(PAGE, timeout=120)
    at.query_params["m"] = [f"registry:{AQ}", "acme/kimi-draft"]
    at.run()
    assert not at.exception, at.exception
    assert not any("shape" in d.value.columns and "component" in d.value.columns for d in at.dataframe)
    at.session_state["compare_details_open"] = True  # the user opens Details
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="compare_detail").value == f"acme/kimi-draft@{sha[:7]}"  # the last draft
    text = " ".join(m.value for m in at.markdown)
    assert f"commit `{sha}`" in text and "**Checkpoint header**:" in text and "matches the config" in text
    tensors = next(d.value for d in at.dataframe if "component" in d.value.columns)
    assert len(tensors) > 5


def test_draft_name_columns_are_as_wide_as_their_longest_name() -> None:
    """The pinned draft column of the parameters and findings tables is sized to every name, not a fixed width
    that cuts "AQ-MedAI/Kimi-K2-Instruct-e…" (issue 19, item 10; the browser test measures it drawn)."""
    import json

    from comparelib import tables

    at = page_app(PAGE, timeout=120)
    at.query_params["m"] = [f"registry:{AQ}"]
    at.session_state["compare_harmless_open"] = True
    at.run()
    assert not at.exception
    frames = [d for d in at.dataframe if "draft" in d.value.columns]
    assert len(frames) >= 2  # the parameters and the (known-harmless) findings
    for frame in frames:
        config = json.loads(frame.proto.columns)["draft"]
        assert config["pinned"] is True
        assert config["width"] == tables.fit_px(frame.value["draft"], "draft") >= tables.text_px(AQ) + 16


def test_a_tied_lm_head_is_said_under_the_chart_and_its_checkpoint_note_in_details(tmp_path: Path) -> None:
    """tie_word_embeddings on an EAGLE-3 head: the page counted the trained lm_head as served and said nothing
    of the head the checkpoint still stores (SGLang never loads it, vLLM does)."""
    from tests.checkpoints import TINY_EAGLE3, TINY_LLAMA, write_checkpoint

    draft = write_checkpoint({**TINY_EAGLE3, "tie_word_embeddings": True}, tmp_path / "tied")
    target = write_checkpoint(TINY_LLAMA, tmp_path / "target")
    at = page_app(PAGE, timeout=120)
    at.query_params["m"] = [str(draft)]
    at.query_params["target"] = str(target)
    at.run()
    assert not at.exception, at.exception
    captions = " ".join(c.value for c in at.caption)
    assert "lm_head" in captions and "tied" in captions and "embedding" in captions, captions
    at.session_state["compare_details_open"] = True
    at.run()
    assert not at.exception, at.exception
    notes = [m.value for m in at.markdown if m.value.startswith("- note: ")]
    assert notes and any("vLLM" in n for n in notes), notes


def test_the_ratios_come_first_and_fit_on_screen_at_1400_px() -> None:
    """Walk Q: at a 1400 px window draft/target and the MoE draft/target-active ratio were the 14th and 15th of
    25 columns, past the grid's right edge. The name, trainable and stored counts and the two ratios come first,
    their widths within the grid beside the sidebar; the frame (what CSV and JSON carry) keeps its column names."""
    import json

    from comparelib import tables
    from comparelib.models import comparison

    at = page_app(PAGE, timeout=120).run()
    assert not at.exception, at.exception
    grid = at.dataframe[0]
    first = ["draft", "trainable", "stored", "draft_to_target", "draft_to_active"]
    assert list(grid.proto.column_order)[: len(first)] == first, list(grid.proto.column_order)
    cfg = json.loads(grid.proto.columns)
    assert all(isinstance(cfg[c]["width"], int) for c in first), {c: cfg[c]["width"] for c in first}
    assert sum(cfg[c]["width"] for c in first) <= tables.GRID_PX
    assert (cfg["draft_to_target"]["label"], cfg["draft_to_active"]["label"]) == ("draft/target", "draft/active")
    assert cfg["draft_to_target"]["type_config"]["format"] == "percent"
    assert cfg["draft_to_active"]["type_config"]["format"] == "percent"
    assert "active" in cfg["draft_to_active"]["help"] and "MoE" in cfg["draft_to_active"]["help"]
    assert list(grid.value.columns) == list(comparison.TABLE_COLUMNS)  # the exports' names, unchanged


def test_ling_flash_target_is_counted_not_an_unsupported_architecture(hub: HubEmulator) -> None:
    """A new user typed inclusionAI/Ling-flash-2.0 as the target: the page said "unsupported architecture
    BailingMoeV2ForCausalLM (supported: ...)" and left every cell that needs the target's size empty. Its config
    (served here by the Hub emulator, shipped with the app too) is counted: the ratios are filled."""
    from comparelib.models import architectures

    ling = "inclusionAI/Ling-flash-2.0"
    hub.add_model(ling, architectures.known_target(ling) or {"architectures": ["BailingMoeV2ForCausalLM"]})
    published = "AQ-MedAI/Ling-Flash-2.0-eagle3"
    at = page_app(PAGE, timeout=120).run()
    at.multiselect(key="compare_picks").set_value([published])
    at.text_input(key="compare_target").set_value(ling)
    at.checkbox(key="compare_target_all").check()
    at.button[0].click().run()
    assert not at.exception, at.exception
    said = " ".join(e.value for e in [*at.error, *at.warning, *at.info])
    assert "unsupported architecture" not in said, said
    df = at.dataframe[0].value.set_index("draft")
    assert df.loc[published, "target"] == ling
    assert 0 < df.loc[published, "draft_to_target"] < 0.01
    assert 0 < df.loc[published, "draft_to_active"] < 1
