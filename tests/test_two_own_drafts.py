"""Two drafts of one team (v1 and v2) measured in one group are set side by side, and told apart on the charts.

Walk O: a team benchmarked acme/llama31-8b-eagle3-v1 and -v2 in one group. Overview left v1's runs out as
"another draft" without comparing them, and the sweep legend cut both names to "acme/llama31-8b-eagle3…".
"""

from __future__ import annotations

import pytest

from comparelib.analysis import overview, speedup
from tests.fixtures import stored_run
from tests.hub_emulator import HubEmulator
from tests.test_side_by_side_walk import DRAFT, GROUP, TARGET, _add_draft, _page, _runs, _store_group

V1 = "myteam/q3-8b-eagle3-r0"  # the team's earlier draft: not published


def test_your_other_draft_measured_beside_yours_is_compared_not_only_left_out(hub: HubEmulator) -> None:
    _add_draft(hub)
    ids = _store_group(V1)
    pairs = overview.side_by_side(_runs(), DRAFT, TARGET, published=False)
    assert [(p.theirs.id, p.yours.id) for p in pairs] == [
        (ids["theirs-3"], ids["mine-3"]),
        (ids["theirs-1"], ids["mine-1"]),
    ]
    assert overview.side_by_side(_runs(), DRAFT, TARGET) == ()  # not a published draft
    at = _page("../pages/overview.py")
    md = "\n".join(m.value for m in at.markdown)
    # "measured side by side" is the README's words for a published draft on your server (walk V): yours by its run
    assert (
        f"- Your other draft {V1}, measured in run #{ids['theirs-3']} at the setting of your run #{ids['mine-3']} "
        f"(group {GROUP}, SGLang, num_steps 3, batch 1): 2.74 accept, 173.4 tok/s against yours 2.53, 160.4 tok/s."
    ) in md, md
    assert "Measured side by side" not in md, md
    captions = [c.value for c in at.caption]
    said = f"Runs #{ids['theirs-3']}, #{ids['theirs-1']} of {V1} are not counted as yours: they are compared"
    assert any(c.startswith(said) for c in captions), captions


@pytest.mark.parametrize(
    ("names", "yours", "labels"),
    [
        # a team's drafts share the start: their names without the org, so they stay apart
        (
            ("acme/llama31-8b-eagle3-v1", "acme/llama31-8b-eagle3-v2"),
            None,
            ("llama31-8b-eagle3-v1", "llama31-8b-eagle3-v2"),
        ),
        # names apart at the start keep it
        (
            ("RedHatAI/Qwen3-8B-speculator.eagle3", "AngelSlim/Qwen3-8B_eagle3"),
            None,
            ("RedHatAI/Qwen3-8B-spec\u2026", "AngelSlim/Qwen3-8B_eag\u2026"),
        ),
        # yours reads "your draft"; the other whole when short
        (("acme/v1", "acme/llama31-8b-eagle3-v2"), "acme/llama31-8b-eagle3-v2", ("acme/v1", "your draft")),
    ],
)
def test_legend_names_of_two_drafts_stay_apart(
    names: tuple[str, str], yours: str | None, labels: tuple[str, str]
) -> None:
    runs = [stored_run(i + 1, 3, 100.0 + i, 2.5, draft=name) for i, name in enumerate(names)]
    series = speedup.sweep_series(runs, {}, draft=yours)
    got = tuple(series[r.id].split(" \u00b7 ")[0] for r in runs)
    assert got == labels, series
    assert len(set(series.values())) == 2
