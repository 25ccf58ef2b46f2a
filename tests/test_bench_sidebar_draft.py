"""Walk R: a new user's own vLLM runs read "another draft" and were dropped everywhere.

vLLM's server does not report the draft it serves, and the Live benchmark form had no Draft field, so the user's
num_steps=3 vLLM run (#16), made from the form with their draft in the sidebar, was stored with no draft. Overview,
Acceptance vs data and the CLI then said "2 runs of another draft left out: #15 (no draft recorded), #16 (no draft
recorded)", the like-for-like vLLM pair (96.8 / 59.2 = 1.63x) was missing, and ``runs`` showed the speculation of
a run whose acceptance (2.56) was measured as "not stated". Now:

1. a speculative run whose server reports no draft records the draft in the sidebar (the CLI: --draft-model), and
   its notes say so; a draft the server reports is never overwritten, and a baseline records none;
2. ``runs`` and the stored runs table say what is known of the speculation ("speculative (vLLM does not report the
   algorithm)"), not "not stated";
3. a stored speculative run that records no draft is left out of your draft's runs as one that cannot be shown to
   be yours, never as another draft's, and never taken as yours without a word.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from comparelib import settings
from comparelib.analysis import overview
from comparelib.live import bench, servers
from comparelib.live.store import Store, runs_to_frame
from comparelib.models.draft import runs_of_draft
from tests.fixtures import cli_in_process, page_app, stored_run

PAGE = str(Path(__file__).resolve().parent.parent / "pages" / "bench.py")
MINE = "walkr-lab/qwen3-235b-eagle3-r"
PUBLISHED = "lmsys/Qwen3-235B-A22B-EAGLE3"
TARGET = "Qwen/Qwen3-235B-A22B-Instruct-2507"
GROUP = "walkr-r"
FAST = {"ttft_s": 0.0, "chunk_delay_s": 0.0, "output_tokens": 8, "model": TARGET}
SIDEBAR_NOTE = f"draft recorded from the sidebar: {MINE}; the server does not report it"


def _measure(url: str, store: Store, **options: Any) -> tuple[bench.BenchRun, Any]:
    opts = bench.BenchOptions(endpoint=url, requests=3, concurrency=1, max_tokens=8, warmup=0, **options)
    run = bench.benchmark(opts, prompts=["Say hello."], recorder=store)
    assert run.run_id is not None
    return run, store.run(run.run_id)


# --- 1. the draft in the sidebar is recorded where the server reports none -----------------------------------------

# (engine, what the server reports, the draft it should record, the note said about the draft)
RECORDING = [
    pytest.param("vllm", {"tokens_per_chunk": 2, "num_steps": 3}, MINE, SIDEBAR_NOTE, id="vllm-speculative"),
    pytest.param("vllm", {"speculative_algorithm": None, "tokens_per_chunk": 1}, None, None, id="vllm-baseline"),
    pytest.param(
        "sglang",
        {"draft_model": PUBLISHED},
        PUBLISHED,
        f"the server reports its draft, {PUBLISHED}; the draft from the sidebar ({MINE}) was not recorded",
        id="sglang-reports-another-draft",
    ),
    pytest.param(
        "sglang",
        {"draft_model": "/data/drafts/qwen3-235b-eagle3-r"},
        "/data/drafts/qwen3-235b-eagle3-r",
        None,
        id="sglang-reports-your-draft-from-a-folder",
    ),
    pytest.param("sglang", {"speculative_algorithm": None, "tokens_per_chunk": 1}, None, None, id="sglang-baseline"),
]


@pytest.mark.parametrize(("engine", "reported", "recorded", "note"), RECORDING)
def test_a_speculative_run_records_your_draft_only_where_the_server_reports_none(
    fake_server, tmp_path: Path, engine: str, reported: dict[str, Any], recorded: str | None, note: str | None
) -> None:
    server = fake_server(engine, **{**FAST, **reported})
    store = Store(f"sqlite:///{tmp_path / 'runs.sqlite'}")
    run, rec = _measure(server.url, store, draft_model=MINE, draft_source=servers.SIDEBAR_DRAFT)
    assert run.server_config.draft_model == recorded and rec.draft_model == recorded
    said = [n for n in run.summary.notes if "draft" in n]
    assert said == ([note] if note else []), said
    assert rec.summary["notes"] == run.summary.notes  # kept with the run
    if note == SIDEBAR_NOTE:
        assert rec.server_config["raw"][servers.DRAFT_RECORDED_FROM] == servers.SIDEBAR_DRAFT
        assert rec.accept_length == pytest.approx(2.0) and not rec.is_baseline
        assert runs_of_draft([rec], MINE).kept == (rec,)  # your run, no longer "no draft recorded"


def test_the_live_form_records_your_sidebar_draft_on_a_vllm_run(fake_server) -> None:
    """The walk: your group holds SGLang runs naming your draft; the form's vLLM baseline and num_steps=3 runs
    (the draft chosen in the sidebar) are yours, said so, and compared with each other, not left out."""
    store = Store(settings.database_url())
    rid = store.start_run(
        endpoint="http://sglang:1",
        group=GROUP,
        params={"concurrency": 1, "max_tokens": 8},
        server_config={"engine": "sglang", "model": TARGET, "speculative_algorithm": "EAGLE3", "draft_model": MINE,
                       "num_steps": 3, "topk": 1, "num_draft_tokens": 4},
    )  # fmt: skip
    store.finish_run(rid, {"requests": 6, "output_tokens_per_s": 98.3, "accept_length": 2.56})
    base = fake_server("vllm", **FAST, speculative_algorithm=None, tokens_per_chunk=1)
    spec = fake_server("vllm", **FAST, tokens_per_chunk=3, num_steps=3)
    at = page_app(PAGE, timeout=60)
    at.session_state["bench_form_open"] = True
    at.query_params["draft"] = MINE
    at.query_params["draft_group"] = GROUP
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.text_input(key="bench_spec_draft").value == MINE  # the sidebar's draft, as the import's Draft field
    at.number_input(key="bench_concurrency").set_value(1)
    at.number_input(key="bench_max_tokens").set_value(8)
    at.number_input(key="bench_warmup").set_value(0)
    for server, steps in ((base, None), (spec, 3)):
        at.text_input(key="bench_endpoint").set_value(server.url)
        at.number_input(key="bench_requests").set_value(3)
        at.number_input(key="bench_spec_steps").set_value(steps)
        at.button(key="bench_run").click().run()
        job = at.session_state["bench_job"]
        assert job.done.wait(60), "the benchmark thread did not finish"
        at.run()
        assert not at.exception and not at.error, [e.value for e in at.error]
    runs = store.runs(group=GROUP)
    vbase, vspec = runs[-2], runs[-1]
    assert (vbase.engine, vbase.is_baseline, vbase.draft_model) == ("vllm", True, None)
    assert (vspec.engine, vspec.is_baseline, vspec.draft_model) == ("vllm", False, MINE)
    assert f"Run {vspec.id}: {SIDEBAR_NOTE}." in [c.value for c in at.caption]
    assert vspec.summary["notes"] == [SIDEBAR_NOTE]
    # Compare runs opens on it with its own vLLM baseline; nothing is said to be another draft's
    assert {vbase.title, vspec.title} <= set(at.multiselect(key="compare_runs").value)
    assert not [c.value for c in at.caption if "another draft" in c.value or "no draft recorded" in c.value]


@pytest.mark.parametrize(
    ("engine", "reported", "recorded", "note"),
    [
        pytest.param(
            "vllm", {"tokens_per_chunk": 2}, MINE,
            f"draft recorded from --draft-model: {MINE}; the server does not report it", id="vllm",
        ),
        pytest.param(
            "sglang", {"draft_model": PUBLISHED}, PUBLISHED,
            f"the server reports its draft, {PUBLISHED}; the draft from --draft-model ({MINE}) was not recorded",
            id="sglang-reports-another",
        ),
        pytest.param(
            "vllm", {"speculative_algorithm": None, "tokens_per_chunk": 1}, None,
            "no speculation was measured, so this run is a baseline and records no draft; the draft given with "
            f"--draft-model ({MINE}) was not recorded",
            id="vllm-baseline",
        ),
    ],
)  # fmt: skip
def test_cli_bench_draft_model_follows_the_same_rule(
    fake_server,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    engine: str,
    reported: dict[str, Any],
    recorded: str | None,
    note: str,
) -> None:
    server = fake_server(engine, **{**FAST, **reported})
    url = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    proc = cli_in_process(
        capsys, "bench", "--endpoint", server.url, "--requests", "2", "--warmup", "0", "--max-tokens", "8",
        "--draft-model", MINE, "--db", url,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert f"note          {note}" in proc.stdout.splitlines(), proc.stdout
    assert "set aside" not in proc.stdout  # no other stated setting to set aside
    assert Store(url).runs()[-1].draft_model == recorded


# --- 2. the speculation a run shows: what is known, never "not stated" ---------------------------------------------

# (engine, kind, algorithm as stored, the runs table's speculation)
SPECULATION = [
    ("vllm", "measured", "unknown", "speculative (vLLM does not report the algorithm)"),
    ("vllm", "imported", "unknown", "speculative (vLLM does not report the algorithm)"),
    ("vllm", "measured", "eagle3", "eagle3"),  # as stated
    ("sglang", "measured", "EAGLE3", "EAGLE3"),  # as the server reported it
    ("openai", "imported", "unknown", "speculative (algorithm not recorded)"),
    ("vllm", "measured", None, None),  # a baseline
]


def test_runs_say_what_is_known_of_a_speculation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'spec.sqlite'}"
    store = Store(url)
    for engine, kind, algo, _ in SPECULATION:
        cfg = {"engine": engine, "model": TARGET, "speculative_algorithm": algo, "num_steps": 3 if algo else None}
        rid = store.start_run(endpoint="http://h:1", server_config=cfg, kind=kind, group=GROUP)
        store.finish_run(rid, {"requests": 6, "output_tokens_per_s": 96.8, "accept_length": 2.56 if algo else None})
    frame = runs_to_frame(store.runs(group=GROUP))
    shown = [None if v is None or v != v else v for v in frame["speculative_algorithm"]]
    assert shown == [want for *_, want in SPECULATION]
    store.close()
    proc = cli_in_process(capsys, "runs", "--db", url, "--no-examples")
    assert proc.returncode == 0, proc.stderr
    assert "not stated" not in proc.stdout and "unknown" not in proc.stdout
    rows = proc.stdout.splitlines()[1:7]
    assert [("speculative (vLLM does not report the algorithm)" in r) for r in rows] == [
        True, True, False, False, False, False,
    ]  # fmt: skip
    assert "speculative (algorithm not recorded)" in rows[4]


# --- 3. stored runs that record no draft: not another draft's, not silently yours -----------------------------------


def _walk_r() -> list[Any]:
    """Walk R's group: SGLang batch 1 (baseline, num_steps 3 of your draft), vLLM batch 1 (baseline, #15 and #16
    with no draft recorded) and the import #17 of your draft (Draft field)."""
    return [
        stored_run(4, None, 60.4, engine="sglang", model=TARGET, group=GROUP, concurrency=1),
        stored_run(7, 3, 98.3, 2.56, engine="sglang", draft=MINE, model=TARGET, group=GROUP, concurrency=1),
        stored_run(14, None, 59.2, engine="vllm", model=TARGET, group=GROUP, concurrency=1),
        stored_run(15, 3, 96.9, 2.56, engine="vllm", algo="unknown", model=TARGET, group=GROUP, concurrency=1,
                   topk=None, ndt=None),
        stored_run(16, 3, 96.8, 2.56, engine="vllm", algo="unknown", model=TARGET, group=GROUP, concurrency=1,
                   topk=None, ndt=None),
    ]  # fmt: skip


UNRECORDED_NOTE = (
    f"2 speculative runs left out: #15, #16 (no draft recorded: cannot be shown to be yours; your draft is {MINE}). "
    "vLLM does not report the draft it serves: Live benchmark records the draft in your sidebar on a new vLLM run, an "
    "import the one in its Draft field."
)


@pytest.mark.parametrize(
    ("extra", "kept", "note"),
    [
        pytest.param([], [4, 7, 14], UNRECORDED_NOTE, id="yours-and-unrecorded"),
        pytest.param(
            [stored_run(18, 3, 99.0, 2.7, engine="sglang", draft=PUBLISHED, model=TARGET, group=GROUP,
                        concurrency=1)],
            [4, 7, 14],
            f"1 run of another draft left out: #18 {PUBLISHED} (your draft is {MINE}). 2 speculative runs left out: "
            "#15, #16 (no draft recorded: cannot be shown to be yours). vLLM does not report the draft it serves: "
            "Live benchmark records the draft in your sidebar on a new vLLM run, an import the one in its Draft "
            "field.",
            id="another-draft-and-unrecorded",
        ),
        pytest.param(  # n-gram drafts with no model: no draft of yours, said by its method
            [stored_run(19, 3, 70.0, 1.4, engine="vllm", algo="ngram", model=TARGET, group=GROUP, concurrency=1)],
            [4, 7, 14],
            f"1 run of another draft left out: #19 n-gram (your draft is {MINE}). 2 speculative runs left out: "
            "#15, #16 (no draft recorded: cannot be shown to be yours). vLLM does not report the draft it serves: "
            "Live benchmark records the draft in your sidebar on a new vLLM run, an import the one in its Draft "
            "field.",
            id="n-gram-and-unrecorded",
        ),
    ],
)  # fmt: skip
def test_runs_that_record_no_draft_are_not_called_another_drafts(extra: list[Any], kept: list[int], note: str) -> None:
    split = runs_of_draft([*_walk_r(), *extra], MINE)
    assert [r.id for r in split.kept] == kept
    assert [r.id for r in split.unrecorded] == [15, 16]
    assert split.note == note


def test_a_group_naming_no_draft_says_its_unrecorded_runs_are_taken_as_yours() -> None:
    runs = [r for r in _walk_r() if r.engine == "vllm"]
    split = runs_of_draft(runs, MINE)
    assert [r.id for r in split.kept] == [14, 15, 16] and not split.left_out
    assert split.note == f"No run names your draft {MINE}: the runs that record no draft (#15, #16) are taken as its."


def test_overview_says_the_unrecorded_runs_cannot_be_shown_to_be_yours() -> None:
    facts = overview.live_facts(_walk_r(), MINE)
    assert facts is not None and (facts.run_id, facts.baseline_run_id) == (7, 4)
    assert "of another draft" not in facts.sentence, facts.sentence
    assert UNRECORDED_NOTE in facts.sentence and facts.left_out == UNRECORDED_NOTE, facts.sentence
