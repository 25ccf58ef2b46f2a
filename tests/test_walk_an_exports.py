"""Walk AN minor: Compare's exports say where each training volume comes from, and what an approximate one is.

The walk compared gptosslab/gpt-oss-20b-eagle3-v2 (300,000 samples typed in) with zhuyksir/EAGLE3-gpt-oss-20b-bf16
(1,000,000 in the registry, from "~1M (dataset name)": the name of its dataset, zhuyksir/perfect-blend-gptoss-20B-1M).
(1) The LaTeX export (cmp.tex) had no train_source: the typed-in figure read as the same kind as the registry's.
(2) The CSV (cmp.csv) called the 1,000,000 "published", though nothing published states it: it is approximate,
read from the dataset's name.
"""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path

import pandas as pd
import pytest

from comparelib import export, tables
from comparelib.models import comparison, registry
from tests.fixtures import routed_compare

ZHU = "zhuyksir/EAGLE3-gpt-oss-20b-bf16"
OWN = "gptosslab/gpt-oss-20b-eagle3-v2@bca5f52"
ZHU_SOURCE = "approximate: from the dataset's name (zhuyksir/perfect-blend-gptoss-20B-1M)"


def _frame() -> pd.DataFrame:
    theirs = comparison.load_entry(f"registry:{ZHU}")
    mine = copy.copy(theirs)  # the walk's own draft: same shape, 300,000 samples typed in
    mine.label = OWN
    return comparison.table([theirs, mine], {}, typed={OWN: 300_000.0})


def _row_text(text: str, fmt: str, draft: str) -> str:
    """The line (Markdown, LaTeX) or record (CSV, JSON) of ``draft`` in a rendered export, LaTeX escapes undone."""
    if fmt == "json":
        return json.dumps(next(r for r in json.loads(text) if r["draft"] == draft))
    if fmt == "csv":
        return str(pd.read_csv(io.StringIO(text)).set_index("draft").loc[draft].to_dict())
    plain = text.replace("\\_", "_").replace("{,}", ",").replace("\\textasciitilde{}", "~")
    return next(line for line in plain.splitlines() if line.lstrip("| ").startswith(draft + " "))


def test_table_says_the_registry_volume_is_approximate() -> None:
    df = _frame().set_index("draft")
    assert df.loc[ZHU, "train_samples"] == 1_000_000
    assert df.loc[ZHU, "train_source"] == ZHU_SOURCE
    assert df.loc[OWN, "train_source"] == "typed in"


@pytest.mark.parametrize("fmt", export.FORMATS)
def test_every_export_says_where_each_volume_comes_from(fmt: str) -> None:
    text = export.render(_frame(), fmt, table=tables.DRAFT_PARAMS)
    zhu, own = _row_text(text, fmt, ZHU), _row_text(text, fmt, OWN)
    assert "1,000,000" in zhu or "1000000" in zhu, zhu
    assert ZHU_SOURCE in zhu, zhu
    assert "300,000" in own or "300000" in own, own
    assert "typed in" in own, own
    assert "typed in" not in zhu and "approximate" not in own


# (registry draft, the start of its train_source): every "~" volume is approximate; a stated one is published
BASIS_CASES = [
    (ZHU, ZHU_SOURCE),
    ("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", 'approximate: "~532K conversations" as published'),
    ("yuhuili/EAGLE3-Vicuna1.3-13B", 'approximate: "~532K" as published'),
    ("lightseekorg/kimi-k2.5-eagle3", 'approximate: "~300K per phase (20k steps each), ~600K total" as published'),
    ("yuhuili/EAGLE-Vicuna-13B-v1.3", 'approximate: "~68K" as published'),
    ("lmsys/SGLang-EAGLE3-Llama-4-Scout-17B-16E-Instruct-SpecForge", 'unverified: "1.4M (template, unverified)"'),
    ("AQ-MedAI/Kimi-K2-Instruct-eagle3", "published"),
    ("Tengyunw/qwen3_8b_eagle3", "published"),
]


@pytest.mark.parametrize(("hub_id", "basis"), BASIS_CASES, ids=[c[0] for c in BASIS_CASES])
def test_registry_volume_basis(hub_id: str, basis: str) -> None:
    assert comparison.volume_basis(registry.get_draft(hub_id)) == basis


def test_every_approximate_registry_volume_is_labelled_so() -> None:
    """No volume the registry writes with "~" is called plainly published."""
    for d in registry.load_registry():
        if d.train_samples is not None and "~" in (d.train_samples_text or ""):
            assert comparison.volume_basis(d).startswith("approximate: "), (d.hub_id, comparison.volume_basis(d))


def test_compare_page_says_the_published_draft_volume_is_approximate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The draft's details on the page: "trained on 1,000,000 samples" said no more than the CSV did."""
    import streamlit as st

    st.cache_data.clear()
    monkeypatch.setenv("SPECDRAFT_DB", f"sqlite:///{tmp_path / 'walk.sqlite'}")
    at = routed_compare(f"registry:{ZHU}", m=[f"registry:{ZHU}"])
    at.session_state["compare_details_open"] = True  # the user opens Details
    at.run()
    assert not at.exception, at.exception
    said = " ".join(str(m.value) for m in at.markdown)
    assert f"trained on 1,000,000 samples ({ZHU_SOURCE})" in said, said
