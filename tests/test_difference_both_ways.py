"""Compare's size tip names each component's change when they go both ways.

Walk Q: "has 87,818,240 more parameters than scoutlab/scout-eagle3-b ... 251,658,240 of them (287%) are in the mlp":
the MLP was 251.66M larger and the lm_head 163.84M smaller, which the sentence did not say.
"""

from __future__ import annotations

import json
from pathlib import Path

from comparelib.models import comparison, registry


def _entry(path: Path, **change: int) -> comparison.Entry:
    cfg = {**(registry.get_draft("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B").config or {}), **change}
    path.mkdir()
    (path / "config.json").write_text(json.dumps(cfg))
    return comparison.load_entry(str(path), with_header=False, with_card=False)


def test_a_gap_made_of_a_larger_mlp_and_a_smaller_head(tmp_path: Path) -> None:
    base = _entry(tmp_path / "base")
    wide = _entry(tmp_path / "wide", intermediate_size=2 * 14336, draft_vocab_size=16000)
    mlp = 3 * 14336 * 4096  # three projections, each 14,336 more wide
    head = 16000 * 4096
    said = comparison.difference_sentence(wide, base)
    assert said is not None
    assert f"has {mlp - head:,} more parameters than" in said
    assert f": {mlp:,} more in the mlp, {head:,} fewer in the lm_head." in said, said
    assert "%)" not in said
    # one way only: the share stays
    only = comparison.difference_sentence(_entry(tmp_path / "mlp", intermediate_size=2 * 14336), base)
    assert only is not None and f"{mlp:,} of them (100%) are in the mlp" in only, only
