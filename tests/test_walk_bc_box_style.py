"""Compare's "Will it serve?" box is never calmer than the lint (walk BC, a fixer's note).

A draft whose rows serve the trained blocks but whose lint holds an error (here an EAGLE-3 head with
``tie_word_embeddings: true``: SGLang then uses the embedding as the head) got the green "serves" box beside the
lint's error.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.fixtures import page_app
from tests.test_walk_bc_serve_assumed import QWEN, _draft


def test_an_error_level_lint_never_gets_the_green_box(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SPECDRAFT_DATA_ROOT", str(tmp_path))
    fine = _draft(tmp_path, [1, 17, 32], name="fine")
    tied = _draft(tmp_path, [1, 17, 32], name="tied")
    for d in (fine, tied):  # the config alone: the helper's partial checkpoint is a finding of its own
        (Path(d) / "model.safetensors").unlink()
    cfg = json.loads((Path(tied) / "config.json").read_text())
    (Path(tied) / "config.json").write_text(json.dumps({**cfg, "tie_word_embeddings": True}))
    at = page_app("../pages/compare.py", timeout=120)
    at.query_params["m"] = [fine, tied]
    at.query_params["target"] = QWEN
    at.run()
    assert not at.exception, at.exception
    lint = [f for f in at.dataframe if "lint_errors" in f.value.columns][0].value.set_index("draft")
    assert lint.loc["tied", "lint_errors"] >= 1 and lint.loc["fine", "lint_errors"] == 0, lint["lint_errors"]
    green = [s.value for s in at.success if s.value.startswith(("**fine**", "**tied**"))]
    assert green == [s for s in green if s.startswith("**fine**")] and green, green  # the clean one stays green
    assert any(w.value.startswith("**tied**: ") for w in at.warning), [w.value for w in at.warning]
