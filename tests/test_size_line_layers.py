"""Overview's size line gives the layers' ratio the headline names a size gap from, where the lm_heads differ.

Walk Q: the headline said draft b was "1.59x smaller in its layers (outside the embedding and the lm_head)" while
the size line under it said only "ours is 90% the size of the reference", its 64K-vocabulary head included.
"""

from __future__ import annotations

from tests.fixtures import page_app


def test_the_size_line_says_the_layers_ratio_beside_the_whole() -> None:
    at = page_app("pages/overview.py", timeout=90)  # the built-in example: a full-vocabulary head against 32K
    at.run()
    assert not at.exception, at.exception
    md = "\n".join(m.value for m in at.markdown)
    assert (
        "ours is 1.79 times the size of the reference with its lm_head; about the same size as it in its layers "
        "(outside the embedding and the lm_head), the figure the answer uses (another draft vocabulary: 163,840 "
        "rows against 32,000)."
    ) in md, md
