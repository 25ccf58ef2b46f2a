"""Walk AC, C4: Compare drafts' export (CSV/MD/JSON: scripts/s5_compare_exports.py) left train_samples and
train_source empty for your draft (mavlab/maverick-eagle3-speculators) while the sidebar said "Training data in use:
400,000 samples, typed in" and Overview used 400K. README: "train_samples / train_tokens are the volume in use"."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from comparelib.models import comparison
from tests.fixtures import routed_compare


def _local_draft(root: Path) -> Path:
    from tests.test_walk_ab_export_audit_bench import gemma_draft

    return gemma_draft(root)


def test_compare_export_says_the_typed_samples_in_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import streamlit as st

    st.cache_data.clear()
    monkeypatch.setenv("SPECDRAFT_DB", f"sqlite:///{tmp_path / 'walk.sqlite'}")
    folder = _local_draft(tmp_path)
    at = routed_compare(str(folder), draft_samples="400000")
    said = " ".join(c.value for c in at.sidebar.caption)
    assert "Training data in use: 400,000 samples, typed in" in said, said
    df = at.dataframe[0].value
    own = df[df["draft"].str.startswith(folder.name)].iloc[0]
    assert own["train_samples"] == 400_000 and own["train_source"] == "typed in", own.to_dict()
    assert pd.isna(own["attached_volume"])  # nothing attached
    published = df[~df["draft"].str.startswith(folder.name)].iloc[0]
    assert published["train_source"] == "published"


def test_table_uses_typed_samples_only_for_the_draft_they_were_typed_for(tmp_path: Path) -> None:
    mine = comparison.load_entry(str(_local_draft(tmp_path)), card_target=True)
    theirs = comparison.load_entry("registry:AQ-MedAI/Kimi-K2-Instruct-eagle3")
    typed = {mine.label: 400_000.0, theirs.label: 5.0}  # a published draft keeps its published figure
    df = comparison.table([mine, theirs], {}, typed=typed)
    assert df["train_samples"].tolist() == [400_000, 1_400_000]
    assert df["train_source"].tolist() == ["typed in", "published"]
    assert json.loads(df.to_json(orient="records"))[0]["train_samples"] == 400_000
