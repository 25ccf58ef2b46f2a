"""The CLI answers for your draft as the pages do (``draft.match_name``, ``runs_of_draft``).

A new-user walk (Qwen3-8B; group q3r1-b1: a baseline #1, the user's chain sweep num_steps 1..4 #2-#5, trees #6/#7,
and RedHatAI/Qwen3-8B-speculator.eagle3 runs at num_steps 3 and 1, #8/#9, faster) found three differences:
``speedup`` fitted RedHatAI's two runs and left the user's sweep out as "different draft model", with no way to
name the draft; ``plan`` ignored the Dataset audit stored under the draft's name (328 samples) that Overview used;
and ``runs`` had no draft column, so the published draft's runs read as the user's.
"""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests.fixtures import QWEN3_8B_EAGLE3, bench_config, bench_store, run_cli, store_run

GROUP = "q3r1-b1"
TARGET = "Qwen/Qwen3-8B"
MINE = "myteam/q3-8b-eagle3-r1"
PUBLISHED = "RedHatAI/Qwen3-8B-speculator.eagle3"
SAMPLES = 328
# (draft_model, num_steps, topk, num_draft_tokens, tok/s, accept length); None: the baseline
WALK = (
    (None, None, None, None, 100.0, None),
    (MINE, 1, 1, 2, 130.0, 1.7),
    (MINE, 2, 1, 3, 145.0, 2.2),
    (MINE, 3, 1, 4, 150.0, 2.5),
    (MINE, 4, 1, 5, 148.0, 2.7),
    (MINE, 3, 4, 8, 140.0, 2.8),
    (MINE, 4, 4, 16, 135.0, 3.0),
    (PUBLISHED, 3, 1, 4, 175.0, 3.1),
    (PUBLISHED, 1, 1, 2, 150.0, 1.85),
)


def _seed(rows=WALK, group: str = GROUP) -> None:  # noqa: ANN001
    """The walk's runs stored as the bench page stores them, and the audit attached under the draft's name."""
    store = bench_store()
    for draft, steps, topk, ndt, tok_s, al in rows:  # a draft exactly where there are steps
        cfg = bench_config("sglang", TARGET, steps, draft=draft, topk=topk, ndt=ndt)
        store_run(
            store, cfg, {"requests": 8, "errors": 0, "output_tokens_per_s": tok_s, "accept_length": al}, group=group
        )
    store.save_data_volume(draft=MINE, samples=SAMPLES, tokens=SAMPLES * 900, source="walk.jsonl", kind="measured")


def _json(*args: str) -> dict:
    proc = run_cli(*args, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


# ---------------------------------------------------------------- 1. speedup --draft


def _page_model(draft: str):  # noqa: ANN202
    """What Acceptance vs data fits for ``draft`` as the sidebar takes it (verdicts.live_outlook, the target from
    the draft's own runs: a raw EAGLE-3 config names none)."""
    from comparelib.analysis import verdicts
    from comparelib.models.draft import OwnDraft, target_from_runs

    runs = bench_store().runs(group=GROUP)
    name = OwnDraft.parse(draft).match_name
    target = target_from_runs(runs, draft=name)
    return verdicts.live_outlook(runs, None, reference="", x="samples", target=target, draft=name).model


SPEEDUP_DRAFTS = [  # (--draft as typed, the runs fitted, the draft named)
    (MINE, [2, 3, 4, 5], MINE),
    (f"https://huggingface.co/{MINE}/tree/main", [2, 3, 4, 5], MINE),
    (PUBLISHED, [8, 9], PUBLISHED),
]


@pytest.mark.parametrize(("typed", "fitted", "named"), SPEEDUP_DRAFTS, ids=["repo id", "hub url", "published"])
def test_speedup_draft_fits_that_drafts_sweep_as_the_pages_do(typed: str, fitted: list[int], named: str) -> None:
    _seed()
    out = _json("speedup", "--run-group", GROUP, "--draft", typed)
    assert sorted(p["run_id"] for p in out["measured"]) == fitted
    page = _page_model(typed)
    assert sorted(p.run_id for p in page.measured) == fitted
    from comparelib.analysis import speedup

    want = speedup.summary(page, steps=range(1, 11))
    assert [round(r["tok_s"], 6) for r in out["predicted"]] == [round(r["tok_s"], 6) for r in want["predicted"]]
    assert out["optimum"]["sentence"] == want["optimum"]["sentence"]
    assert out["draft"]["fitted"] == named and out["draft"]["hint"] is None
    others = [o["draft"] for o in out["draft"]["others"]]
    assert others == [PUBLISHED if named == MINE else MINE]
    text = run_cli("speedup", "--run-group", GROUP, "--draft", typed)
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith(f"group {GROUP} (measured); draft {named}; model: fit\n"), text.stdout
    assert "run(s) of another draft left out" in text.stdout or "runs of another draft left out" in text.stdout
    assert "different draft model" not in text.stdout and not text.stderr


def test_speedup_without_draft_says_which_draft_it_fitted_and_how_to_choose() -> None:
    _seed()
    proc = run_cli("speedup", "--run-group", GROUP)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (
        f"fitted the runs of {PUBLISHED}; the group also holds runs of {MINE} (#2, #3, #4, #5, #6, #7): "
        "pass --draft to choose\n"
    )
    assert f"draft {PUBLISHED}; model: fit" in proc.stdout.splitlines()[0]
    out = _json("speedup", "--run-group", GROUP)
    assert out["draft"]["fitted"] == PUBLISHED and out["draft"]["given"] is None
    assert out["draft"]["others"] == [{"draft": MINE, "runs": [2, 3, 4, 5, 6, 7]}]
    assert "pass --draft to choose" in out["draft"]["hint"]


def test_speedup_of_one_draft_says_nothing_about_others() -> None:
    _seed(WALK[:5])
    proc = run_cli("speedup", "--run-group", GROUP)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert _json("speedup", "--run-group", GROUP)["draft"] == {
        "fitted": MINE,
        "given": None,
        "others": [],
        "note": None,
        "hint": None,
    }


def test_speedup_draft_with_no_run_in_the_group_is_refused_with_the_drafts_it_holds() -> None:
    _seed((WALK[0], *WALK[7:]))  # the baseline and the published draft's runs only
    proc = run_cli("speedup", "--run-group", GROUP, "--draft", MINE)
    assert proc.returncode == 2 and not proc.stdout
    assert proc.stderr == (
        f"error: no run of your draft {MINE} in group {GROUP!r}; its runs are of {PUBLISHED}: pass one of them "
        "as --draft, or leave --draft out\n"
    )


# ---------------------------------------------------------------- 2. plan: the audit stored under the draft's name


def test_plan_uses_the_audit_stored_under_the_drafts_name(hub) -> None:  # noqa: ANN001
    hub.add_model(MINE, QWEN3_8B_EAGLE3)
    _seed()
    base = ("plan", MINE, "--group", GROUP)
    default = _json(*base)
    given = _json(*base, "--volume", MINE)  # what reproduced Overview in the walk
    strip = ("training_samples",)
    assert {k: v for k, v in default.items() if k not in strip} == {k: v for k, v in given.items() if k not in strip}
    assert any(f"your training samples: {SAMPLES}" in s["text"] for s in default["sources"]), default["sources"]
    assert default["training_samples"] == {
        "samples": SAMPLES,
        "source": f"{SAMPLES}, attached from Dataset audit as {MINE} (stored under your draft's name; --volume or "
        "--samples to use another)",
    }
    assert given["training_samples"]["source"] == f"{SAMPLES}, attached from Dataset audit as {MINE}"
    text = run_cli(*base)
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines()[1].startswith(f"training samples: {SAMPLES}, attached from Dataset audit as ")
    # --samples and --volume still override it
    typed = _json(*base, "--samples", "50000")
    assert typed["training_samples"] == {"samples": 50000.0, "source": "50,000, --samples"}
    assert typed != default
    other = _json(*base, "--volume", "someone/else")
    assert other["training_samples"]["samples"] is None
    assert other["training_samples"]["source"].startswith("no training volume is stored under 'someone/else'")


# ---------------------------------------------------------------- 3. runs: the draft column


def test_runs_name_each_runs_draft_in_every_output_as_the_live_page_exports_them() -> None:
    _seed()
    mtp = bench_store()
    rid = mtp.start_run(
        endpoint="http://127.0.0.1:30001",
        # SGLang's NEXTN as it reports itself: EAGLE with the target as its draft
        server_config={"engine": "sglang", "model": TARGET, "speculative_algorithm": "EAGLE", "draft_model": TARGET},
        group=GROUP,
        params={"concurrency": 1},
    )
    mtp.finish_run(rid, {"requests": 8, "errors": 0, "output_tokens_per_s": 120.0, "accept_length": 1.9})
    want = {1: "\u2014", 2: MINE, 7: MINE, 8: PUBLISHED, 9: PUBLISHED, rid: "MTP (NEXTN)"}

    text = run_cli("runs", "--group", GROUP)
    assert text.returncode == 0, text.stderr
    header, *lines = text.stdout.splitlines()
    assert header.split()[5:7] == ["speculation", "draft"], header
    for line in lines[: len(WALK) + 1]:
        run_id = int(line.split()[0])
        if run_id in want:
            assert want[run_id] in line, line

    got = run_cli("runs", "--group", GROUP, "--format", "csv")
    assert got.returncode == 0, got.stderr
    rows = {int(r["id"]): r["draft"] for r in csv.DictReader(io.StringIO(got.stdout))}
    assert {k: rows[k] for k in want} == want
    # the Live benchmark page's "Download runs table" makes its file from these very calls (pages/bench.py)
    from comparelib import export, tables
    from comparelib.live.store import runs_to_frame

    page = export.render(
        runs_to_frame(bench_store().runs(group=GROUP, include_examples=True)), "csv", table=tables.RUNS
    )
    assert got.stdout == page

    records = json.loads(run_cli("runs", "--group", GROUP, "--json").stdout)
    assert {r["id"]: r["draft"] for r in records if r["id"] in want} == want
    table = json.loads(run_cli("runs", "--group", GROUP, "--format", "json").stdout)
    assert {r["id"]: r["draft"] for r in table if r["id"] in want} == want


def test_plan_says_a_loss_past_the_noise_is_a_loss(hub) -> None:  # noqa: ANN001
    """Walk R2: the measured tree, 12.2 tok/s below the best chain, printed "gain at bs1: -12.2 tok/s (within
    run-to-run noise, 2.0 tok/s ...: no gain)". Here the tree #6 measured 140.0 against the served chain's 150.0."""
    hub.add_model(MINE, QWEN3_8B_EAGLE3)
    _seed()
    proc = run_cli("plan", MINE, "--group", GROUP)
    assert proc.returncode == 0, proc.stderr
    tree = proc.stdout.split("[tree]")[1].split("\n2. ")[0].split("\n3. ")[0]
    assert "gain at bs1: -10.0 tok/s (a loss: past run-to-run noise, " in tree, tree
    assert "within run-to-run noise" not in tree.split("gain at bs1:")[1].splitlines()[0], tree
