"""Walk AP 1: a draft kept as a SpecForge checkpoint folder (qwen3-30b-eagle3/epoch_9) took another team's run
(/ckpt/other-team-draft/epoch_9) as its own, silently: the match compared the last folder name only, and every
SpecForge checkpoint is named epoch_N. A generic checkpoint name now matches only with the same parent folder."""

from __future__ import annotations

import pytest

from comparelib.models.draft import draft_match, runs_of_draft
from tests.fixtures import stored_run

CASES = [
    # run's draft_model, your draft, match
    ("/ckpt/qwen3-30b-eagle3/epoch_9", "qwen3-30b-eagle3/epoch_9", True),
    ("/ckpt/other-team-draft/epoch_9", "qwen3-30b-eagle3/epoch_9", False),  # the walk's wrong answer
    ("/ckpt/other-team-draft/checkpoint-1200", "/data/mine/checkpoint-1200", False),
    ("/mnt/a/step_500", "/srv/b/step_500", False),
    ("epoch_9", "qwen3-30b-eagle3/epoch_9", True),  # a bare name: nothing else to compare
    ("/ckpt/qwen3-30b-eagle3/epoch_9", "epoch_9", True),
    ("/ckpt/mydraft", "/data/mydraft", True),  # a named folder served from another place is still yours
    ("acme/draft", "acme/draft", True),
    ("acme/draft", "acme/other", False),
]


@pytest.mark.parametrize(("served", "draft", "expected"), CASES)
def test_checkpoint_names_match_only_with_their_parent(served: str, draft: str, expected: bool) -> None:
    assert draft_match(served, draft) is expected


def test_another_teams_epoch_9_is_left_out_and_named() -> None:
    common = {"engine": "sglang", "model": "Qwen/Qwen3-30B-A3B", "group": "q3moe-g2", "requests": 12}
    runs = [
        stored_run(9, None, 117.6, None, draft=None, **common),
        stored_run(10, 3, 160.5, 2.0, draft="/ckpt/qwen3-30b-eagle3/epoch_9", **common),
        stored_run(11, 3, 212.7, 2.91, draft="/ckpt/other-team-draft/epoch_9", **common),
    ]
    split = runs_of_draft(runs, "qwen3-30b-eagle3/epoch_9")
    assert sorted(r.id for r in split.kept) == [9, 10], split.note
    assert [r.id for r in split.left_out] == [11]
    assert "#11 /ckpt/other-team-draft/epoch_9" in (split.note or ""), split.note
