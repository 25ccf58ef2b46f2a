"""A target model pasted where a draft belongs: Compare and the CLI say it is a target, as Overview does.

Counted as a draft, Qwen3-8B read as 8.19B trainable parameters, 0.94 of a Llama-3.1-8B target and lint-clean.
Its counts stay visible as a target's; Compare offers to move it to the target field with the published drafts
known for it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Button

from comparelib.models import architectures
from tests.fixtures import QWEN3_8B_EAGLE3, page_app, run_cli
from tests.hub_emulator import HubEmulator

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "compare.py")
LLAMA_DRAFT = "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"
LLAMA_TARGET = "meta-llama/Llama-3.1-8B-Instruct"
QWEN3_8B_TOTAL = 8_190_735_360  # Qwen3-8B counted from its config (untied lm_head)
QWEN3_8B_EXCL = 7_568_405_504

# an EAGLE-3 draft for Qwen3-8B as SpecForge writes it (the walk-through's qwen3_8b draft)
QWEN_DRAFT: dict[str, object] = {**QWEN3_8B_EAGLE3, "model_type": "llama"}


def _folder(path: Path, config: object) -> Path:
    path.mkdir()
    (path / "config.json").write_text(json.dumps(config))
    return path


@pytest.fixture
def target_dir(tmp_path: Path) -> Path:
    """Qwen3-8B's own config (a plain Qwen3ForCausalLM) in a folder, as a user would paste it."""
    return _folder(tmp_path / "qwen3-8b", architectures.known_target("Qwen/Qwen3-8B"))


def _params_table(at: AppTest) -> pd.DataFrame:
    return at.dataframe[0].value.set_index("draft")


def _use_buttons(at: AppTest) -> list[Button]:
    return [b for b in at.button if b.label.startswith("Use ") and b.label.endswith(" as the target")]


def test_compare_page_counts_a_pasted_target_as_a_target_and_moves_it_to_the_target_field(
    tmp_path: Path, target_dir: Path
) -> None:
    draft_dir = _folder(tmp_path / "qwen-draft", QWEN_DRAFT)
    at = page_app(PAGE, timeout=120)
    at.query_params["m"] = [f"registry:{LLAMA_DRAFT}", str(draft_dir), str(target_dir)]
    at.query_params["target"] = LLAMA_TARGET  # the field applies to the pasted sources, the target among them
    at.run()
    assert not at.exception, at.exception
    assert any("qwen3-8b is a target model" in w.value for w in at.warning)
    df = _params_table(at)
    row = df.loc["qwen3-8b"]
    assert row["role"] == "target"
    assert (int(row["total"]), int(row["excluding_embedding"])) == (QWEN3_8B_TOTAL, QWEN3_8B_EXCL)  # still shown
    for col in ("trainable", "frozen", "draft_to_target", "target", "lint_errors", "lint_warnings"):
        assert pd.isna(row[col]), (col, row[col])  # not a draft's figure, not a clean lint
    assert list(df.loc[[LLAMA_DRAFT, "qwen-draft"], "role"]) == ["draft", "draft"]
    assert df.loc[LLAMA_DRAFT, "draft_to_target"] == pytest.approx(0.05289)

    (use,) = _use_buttons(at)
    assert use.label == "Use qwen3-8b as the target"
    use.click().run()
    assert not at.exception, at.exception
    assert at.text_input(key="compare_target").value == str(target_dir)
    assert at.text_area(key="compare_urls").value == str(draft_dir)
    assert at.query_params["target"] == str(target_dir)
    assert at.query_params["m"] == [f"registry:{LLAMA_DRAFT}", str(draft_dir)]
    assert not [w.value for w in at.warning if "is a target model" in w.value] and not _use_buttons(at)
    df = _params_table(at)
    assert list(df.index) == [LLAMA_DRAFT, "qwen-draft"]
    mine = df.loc["qwen-draft"]
    assert mine["target"] == "qwen3-8b"  # your draft is now sized against the target
    assert mine["draft_to_target"] == pytest.approx(round(int(mine["excluding_embedding"]) / QWEN3_8B_TOTAL, 5))
    assert df.loc[LLAMA_DRAFT, "target"] == LLAMA_TARGET  # a published draft keeps its own


def test_compare_page_brings_in_the_published_drafts_known_for_a_pasted_hub_target(hub: HubEmulator) -> None:
    hub.add_model(LLAMA_TARGET, architectures.known_target(LLAMA_TARGET))
    at = page_app(PAGE, timeout=120)
    at.query_params["m"] = [LLAMA_TARGET]
    at.run()
    assert not at.exception, at.exception
    warned = " ".join(w.value for w in at.warning)
    assert f"{LLAMA_TARGET} is a target model" in warned and LLAMA_DRAFT in warned
    assert list(_params_table(at)["role"]) == ["target"]
    assert not [s.value for s in at.success if "No findings" in s.value]  # a target is not lint-clean: not linted
    (use,) = _use_buttons(at)
    assert use.label == f"Use {LLAMA_TARGET} as the target"
    use.click().run()
    assert not at.exception, at.exception
    assert at.text_input(key="compare_target").value == LLAMA_TARGET
    picks = at.multiselect(key="compare_picks").value
    assert LLAMA_DRAFT in picks and "lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge" in picks
    assert at.query_params["target"] == LLAMA_TARGET
    df = _params_table(at)
    assert set(df["role"]) == {"draft"} and set(df["target"]) == {LLAMA_TARGET}


def test_cli_params_says_a_target_is_a_target_in_text_and_json(target_dir: Path) -> None:
    text = run_cli("params", str(target_dir))
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0] == "qwen3-8b  (Qwen3ForCausalLM, qwen3, a target model)"
    assert lines[1].startswith("note: qwen3-8b is a target model (Qwen3ForCausalLM, 36 layers), not a draft")
    assert f"--target {target_dir}" in lines[1]
    assert f"  total                     {QWEN3_8B_TOTAL:,}" in lines
    assert not [line for line in lines if line.lstrip().startswith(("trainable", "frozen"))]

    # a target given to a target: no target, no ratio (was 0.94249 of Llama-3.1-8B)
    proc = run_cli("params", str(target_dir), "--target", LLAMA_TARGET, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["role"] == "target"
    assert data["target"] is None and data["draft_to_target_ratio"] is None
    assert data["params"]["total"] == QWEN3_8B_TOTAL  # its counts, as a target's
    notice = data["target_notice"]
    assert notice["hub_id"] is None and notice["drafts"] == []  # a folder names no hub id
    assert notice["note"].startswith("qwen3-8b is a target model")

    draft = json.loads(run_cli("params", f"registry:{LLAMA_DRAFT}", "--json").stdout)
    assert draft["role"] == "draft" and draft["target_notice"] is None


def test_cli_params_lists_the_published_drafts_of_a_hub_target(hub: HubEmulator) -> None:
    hub.add_model("Qwen/Qwen3-8B", architectures.known_target("Qwen/Qwen3-8B"))
    proc = run_cli("params", "Qwen/Qwen3-8B", "--json")
    assert proc.returncode == 0, proc.stderr
    notice = json.loads(proc.stdout)["target_notice"]
    assert notice["hub_id"] == "Qwen/Qwen3-8B"
    assert "RedHatAI/Qwen3-8B-speculator.eagle3" in notice["drafts"]
    assert "RedHatAI/Qwen3-8B-speculator.eagle3" in notice["note"]
    assert notice["note"].endswith("--target Qwen/Qwen3-8B")


def test_cli_compare_marks_the_target_row_in_md_and_json(target_dir: Path) -> None:
    md = run_cli("compare", str(target_dir), f"registry:{LLAMA_DRAFT}", "--format", "md")
    assert md.returncode == 0, md.stderr
    header, _, target_row, draft_row = md.stdout.splitlines()[:4]
    cols = [c.strip() for c in header.strip("|").split("|")]
    row = dict(zip(cols, (c.strip() for c in target_row.strip("|").split("|")), strict=True))
    assert row["role"] == "target" and row["total"] == f"{QWEN3_8B_TOTAL:,}"
    assert (row["trainable"], row["draft_to_target"], row["lint_errors"]) == ("", "", "")
    assert dict(zip(cols, (c.strip() for c in draft_row.strip("|").split("|")), strict=True))["role"] == "draft"
    assert "\nNote: qwen3-8b is a target model (Qwen3ForCausalLM, 36 layers), not a draft" in md.stdout

    js = run_cli("compare", str(target_dir), f"registry:{LLAMA_DRAFT}", "--format", "json")
    assert js.returncode == 0, js.stderr
    target, draft = json.loads(js.stdout)  # stdout stays one JSON document; the note goes to stderr
    assert target["role"] == "target" and target["total"] == QWEN3_8B_TOTAL
    assert target["trainable"] is None and target["draft_to_target"] is None and target["lint_errors"] is None
    assert draft["role"] == "draft" and draft["trainable"] == 424_689_664 and draft["lint_errors"] == 0
    assert "note: qwen3-8b is a target model" in js.stderr


@pytest.mark.parametrize(
    ("source", "drafts_named", "pinned"),
    [
        ("moonshotai/Kimi-K2-Instruct", "AQ-MedAI/Kimi-K2-Instruct-eagle3", "moonshotai/Kimi-K2-Instruct@v0.1"),
        (
            "https://huggingface.co/Qwen/Qwen3-8B",
            "RedHatAI/Qwen3-8B-speculator.eagle3",
            "https://huggingface.co/Qwen/Qwen3-8B/tree/v0.1",
        ),
        ("meta-llama/llama-3.1-8b-instruct", LLAMA_DRAFT, "meta-llama/llama-3.1-8b-instruct@v0.1"),  # any case
    ],
)
def test_a_target_pasted_as_the_draft_offline_is_still_said_to_be_a_target(
    monkeypatch: pytest.MonkeyPatch, source: str, drafts_named: str, pinned: str
) -> None:
    """Offline, a pasted target the app ships a config for was an error ("not in the local cache") on Overview,
    though the app knows it is a target: it is now read from the shipped config, and said to be."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # st.cache_data lives as long as the process: an earlier test that read this target from the emulator left
    # its entry there (keyed by source), and Overview served it without going offline (red in CI, green alone)
    import streamlit as st

    st.cache_data.clear()
    at = page_app("pages/overview.py", timeout=120)
    at.query_params["draft"] = source
    at.run()
    assert not at.exception, at.exception
    said = " ".join(w.value for w in [*at.warning, *at.info, *at.error])
    assert "is a target model" in said and drafts_named in said, said
    assert "the config of" in said and "shipped with the app" in said
    assert not [e.value for e in at.error if "local cache" in e.value]

    proc = run_cli("params", source, "--json", env={"HF_HUB_OFFLINE": "1"})
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["role"] == "target" and drafts_named in data["target_notice"]["drafts"]

    # a revision the app holds no config of stays an error: the shipped config is the default branch's
    proc = run_cli("params", pinned, env={"HF_HUB_OFFLINE": "1"})
    assert proc.returncode != 0 and "not in the local cache" in proc.stderr
